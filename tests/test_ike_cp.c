/* The Configuration payload (lib/ike/cp.c, RFC 7296 3.15): round trips of
 * the five attributes kept, the others skipped, the lengths of 3.15.1's
 * table (its rows below, as the RFC prints them) held to, and every
 * malformed body refused. */
#include <stdio.h>
#include <string.h>

#include "ike/ike.h"
#include "testutil.h"

/* RFC 7296 3.15.1's table of attributes, its rows as printed there. */
static const char rfc_table[] =
    "INTERNAL_IP4_ADDRESS     1      YES*          0 or 4 octets\n"
    "INTERNAL_IP4_NETMASK     2      NO            0 or 4 octets\n"
    "INTERNAL_IP4_DNS         3      YES           0 or 4 octets\n"
    "INTERNAL_IP4_NBNS        4      YES           0 or 4 octets\n"
    "INTERNAL_IP4_DHCP        6      YES           0 or 4 octets\n"
    "APPLICATION_VERSION      7      NO            0 or more\n"
    "INTERNAL_IP6_ADDRESS     8      YES*          0 or 17 octets\n"
    "INTERNAL_IP6_DNS         10     YES           0 or 16 octets\n"
    "INTERNAL_IP6_DHCP        12     YES           0 or 16 octets\n"
    "INTERNAL_IP4_SUBNET      13     YES           0 or 8 octets\n"
    "SUPPORTED_ATTRIBUTES     14     NO            Multiple of 2\n"
    "INTERNAL_IP6_SUBNET      15     YES           17 octets\n";

static const struct {
  const char *name;
  int value;
} ours[] = {
    {"INTERNAL_IP4_ADDRESS", GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS},
    {"INTERNAL_IP4_NETMASK", GOSTX_IKE_CA_INTERNAL_IP4_NETMASK},
    {"INTERNAL_IP4_DNS", GOSTX_IKE_CA_INTERNAL_IP4_DNS},
    {"INTERNAL_IP4_NBNS", GOSTX_IKE_CA_INTERNAL_IP4_NBNS},
    {"INTERNAL_IP4_DHCP", GOSTX_IKE_CA_INTERNAL_IP4_DHCP},
    {"APPLICATION_VERSION", GOSTX_IKE_CA_APPLICATION_VERSION},
    {"INTERNAL_IP6_ADDRESS", GOSTX_IKE_CA_INTERNAL_IP6_ADDRESS},
    {"INTERNAL_IP6_DNS", GOSTX_IKE_CA_INTERNAL_IP6_DNS},
    {"INTERNAL_IP6_DHCP", GOSTX_IKE_CA_INTERNAL_IP6_DHCP},
    {"INTERNAL_IP4_SUBNET", GOSTX_IKE_CA_INTERNAL_IP4_SUBNET},
    {"SUPPORTED_ATTRIBUTES", GOSTX_IKE_CA_SUPPORTED_ATTRIBUTES},
    {"INTERNAL_IP6_SUBNET", GOSTX_IKE_CA_INTERNAL_IP6_SUBNET},
};

/* a body: CFG Type, RESERVED, then the attributes given as raw octets */
static size_t body(uint8_t *b, uint8_t cfg, const uint8_t *attrs, size_t len) {
  b[0] = cfg;
  b[1] = b[2] = b[3] = 0;
  memcpy(b + 4, attrs, len);
  return 4 + len;
}

/* one attribute of type with len octets of Value (v[16] = prefix when 17) */
static size_t attr(uint8_t *a, uint16_t type, size_t len) {
  a[0] = (uint8_t)(type >> 8);
  a[1] = (uint8_t)type;
  a[2] = (uint8_t)(len >> 8);
  a[3] = (uint8_t)len;
  for (size_t i = 0; i < len; i++) a[4 + i] = (uint8_t)(i + 1);
  if (len == 17) a[4 + 16] = 64;
  return 4 + len;
}

/* Every row: the number ours says, the lengths it allows read, one more
 * and one less refused. */
static void rfc_numbers_and_lengths(void) {
  const char *line = rfc_table;
  size_t rows = 0;
  while (*line) {
    char name[40], len_text[40];
    int value = -1, got = 0;
    CHECK(sscanf(line, "%39s %d %*s %39[^\n]", name, &value, len_text) == 3, "row %zu reads",
          rows);
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
      if (!strcmp(ours[i].name, name)) {
        CHECK(ours[i].value == value, "%s is %d in the RFC, %d here", name, value, ours[i].value);
        got = 1;
      }
    CHECK(got, "%s has a number here", name);
    const uint16_t t = (uint16_t)value;
    uint8_t v[40] = {0};
    v[16] = 64;
    int n = 0, end = 0;
    if (!strcmp(len_text, "0 or more")) {
      CHECK_RC(gostx__ike_cp_attr_check(t, 0, v), GOSTX_OK, name);
      CHECK_RC(gostx__ike_cp_attr_check(t, 33, v), GOSTX_OK, name);
    } else if (!strcmp(len_text, "Multiple of 2")) {
      CHECK_RC(gostx__ike_cp_attr_check(t, 0, v), GOSTX_OK, name);
      CHECK_RC(gostx__ike_cp_attr_check(t, 6, v), GOSTX_OK, name);
      CHECK_RC(gostx__ike_cp_attr_check(t, 7, v), GOSTX_EFORMAT, name);
    } else if (sscanf(len_text, "0 or %d octets%n", &n, &end) == 1 && !len_text[end]) {
      CHECK_RC(gostx__ike_cp_attr_check(t, 0, v), GOSTX_OK, name);
      CHECK_RC(gostx__ike_cp_attr_check(t, (size_t)n, v), GOSTX_OK, name);
      CHECK_RC(gostx__ike_cp_attr_check(t, (size_t)n - 1, v), GOSTX_EFORMAT, name);
      CHECK_RC(gostx__ike_cp_attr_check(t, (size_t)n + 1, v), GOSTX_EFORMAT, name);
    } else {
      CHECK(sscanf(len_text, "%d octets%n", &n, &end) == 1 && !len_text[end] && n,
            "%s: a length rule this test knows", name);
      CHECK_RC(gostx__ike_cp_attr_check(t, 0, v), GOSTX_EFORMAT, name);
      CHECK_RC(gostx__ike_cp_attr_check(t, (size_t)n, v), GOSTX_OK, name);
      CHECK_RC(gostx__ike_cp_attr_check(t, (size_t)n + 1, v), GOSTX_EFORMAT, name);
    }
    rows++;
    line = strchr(line, '\n') + 1;
  }
  CHECK(rows == sizeof ours / sizeof ours[0], "every row of the table checked");
  /* an IPv6 prefix length past 128 */
  uint8_t v[17] = {0};
  v[16] = 129;
  CHECK_RC(gostx__ike_cp_attr_check(GOSTX_IKE_CA_INTERNAL_IP6_ADDRESS, 17, v), GOSTX_EFORMAT,
           "IPv6 prefix 129 refused");
  v[16] = 128;
  CHECK_RC(gostx__ike_cp_attr_check(GOSTX_IKE_CA_INTERNAL_IP6_ADDRESS, 17, v), GOSTX_OK,
           "IPv6 prefix 128");
}

/* The writer's body read back: the same fields. */
static void round_trip(const gostx_ike_cp *cp, const char *what) {
  uint8_t buf[1024];
  gostx_ike_writer w;
  gostx_ike_cp back;
  gostx__ike_w_inner(&w, buf, sizeof buf);
  gostx__ike_w_cp(&w, cp);
  CHECK(w.err == GOSTX_OK && w.first == GOSTX_IKE_PT_CP, "%s: written", what);
  CHECK_RC(gostx__ike_cp_read(buf + 4, w.len - 4, &back), GOSTX_OK, what);
  CHECK(back.cfg_type == cp->cfg_type && back.n == cp->n && !back.skipped, "%s: fields", what);
  for (size_t i = 0; i < cp->n && i < back.n; i++)
    CHECK(back.a[i].type == cp->a[i].type && back.a[i].len == cp->a[i].len &&
              !memcmp(back.a[i].v, cp->a[i].v, cp->a[i].len),
          "%s: attribute %zu", what, i);
}

/* cp with each of the n attributes (type, value, length) added */
typedef struct {
  uint16_t type;
  const uint8_t *v;
  size_t len;
} attr_in;
static void add_all(gostx_ike_cp *cp, const attr_in *in, size_t n) {
  for (size_t i = 0; i < n; i++)
    CHECK_RC(gostx__ike_cp_add(cp, in[i].type, in[i].v, in[i].len), GOSTX_OK, "add");
}

static void round_trips(void) {
  /* 2.19's example: the request, empty attributes, and the reply */
  gostx_ike_cp q = {.cfg_type = GOSTX_IKE_CFG_REQUEST};
  const attr_in ask[] = {{GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, NULL, 0},
                         {GOSTX_IKE_CA_INTERNAL_IP4_NETMASK, NULL, 0},
                         {GOSTX_IKE_CA_INTERNAL_IP4_DNS, NULL, 0},
                         {GOSTX_IKE_CA_INTERNAL_IP6_ADDRESS, NULL, 0},
                         {GOSTX_IKE_CA_INTERNAL_IP6_DNS, NULL, 0}};
  add_all(&q, ask, 5);
  round_trip(&q, "CFG_REQUEST");
  gostx_ike_cp r = {.cfg_type = GOSTX_IKE_CFG_REPLY};
  const uint8_t a4[4] = {198, 51, 100, 234}, m4[4] = {255, 255, 255, 0}, d4[4] = {198, 51, 100, 33};
  uint8_t a6[17] = {0x20, 0x01, 0x0d, 0xb8, [15] = 5, [16] = 64}, d6[16] = {0x20, 0x01, [15] = 53};
  const attr_in give[] = {{GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, a4, 4},
                          {GOSTX_IKE_CA_INTERNAL_IP4_NETMASK, m4, 4},
                          {GOSTX_IKE_CA_INTERNAL_IP4_DNS, d4, 4},
                          {GOSTX_IKE_CA_INTERNAL_IP4_DNS, d4, 4},
                          {GOSTX_IKE_CA_INTERNAL_IP6_ADDRESS, a6, 17},
                          {GOSTX_IKE_CA_INTERNAL_IP6_DNS, d6, 16}};
  add_all(&r, give, 6);
  round_trip(&r, "CFG_REPLY");
  gostx_ike_cp s = {.cfg_type = GOSTX_IKE_CFG_SET}, k = {.cfg_type = GOSTX_IKE_CFG_ACK};
  CHECK_RC(gostx__ike_cp_add(&s, GOSTX_IKE_CA_INTERNAL_IP4_DNS, d4, 4), GOSTX_OK, "add");
  round_trip(&s, "CFG_SET");
  round_trip(&k, "an empty CFG_ACK"); /* 3.15: zero or more attributes */
  /* what cannot be added: another kind, a wrong length, past the bound */
  CHECK_RC(gostx__ike_cp_add(&s, GOSTX_IKE_CA_INTERNAL_IP4_NBNS, d4, 4), GOSTX_EFORMAT,
           "NBNS is not kept");
  CHECK_RC(gostx__ike_cp_add(&s, GOSTX_IKE_CA_INTERNAL_IP4_DNS, d4, 3), GOSTX_EFORMAT,
           "3 octets of IPv4");
  while (s.n < GOSTX_IKE_CP_MAX_ATTRS) gostx__ike_cp_add(&s, GOSTX_IKE_CA_INTERNAL_IP4_DNS, d4, 4);
  CHECK_RC(gostx__ike_cp_add(&s, GOSTX_IKE_CA_INTERNAL_IP4_DNS, d4, 4), GOSTX_ELEN, "full");
  round_trip(&s, "a full CFG_SET");
  /* the writer refuses what the reader would */
  uint8_t buf[256];
  gostx_ike_writer w;
  gostx_ike_cp bad = {.cfg_type = GOSTX_IKE_CFG_REQUEST};
  gostx__ike_cp_add(&bad, GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, NULL, 0);
  gostx__ike_cp_add(&bad, GOSTX_IKE_CA_INTERNAL_IP4_NETMASK, m4, 4);
  gostx__ike_w_inner(&w, buf, sizeof buf);
  gostx__ike_w_cp(&w, &bad);
  CHECK_RC(w.err, GOSTX_EFORMAT, "writer: a netmask's value in a request refused");
  bad.cfg_type = 0;
  bad.n = 0;
  gostx__ike_w_inner(&w, buf, sizeof buf);
  gostx__ike_w_cp(&w, &bad);
  CHECK_RC(w.err, GOSTX_EFORMAT, "writer: CFG Type 0 refused");
}

static void reads(void) {
  uint8_t a[512], b[600];
  gostx_ike_cp cp;
  size_t n = 0;
  /* R bit set, unknown and listed-but-not-kept attributes skipped */
  n += attr(a + n, GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, 4);
  a[0] |= 0x80;
  n += attr(a + n, GOSTX_IKE_CA_APPLICATION_VERSION, 9);
  n += attr(a + n, 0x4242, 3); /* not in 3.15.1: ignored, any length */
  n += attr(a + n, GOSTX_IKE_CA_INTERNAL_IP6_SUBNET, 17);
  n += attr(a + n, GOSTX_IKE_CA_INTERNAL_IP4_DNS, 0);
  size_t l = body(b, GOSTX_IKE_CFG_REPLY, a, n);
  CHECK_RC(gostx__ike_cp_read(b, l, &cp), GOSTX_OK, "mixed attributes read");
  CHECK(cp.n == 2 && cp.skipped == 3, "two kept, three skipped");
  CHECK(cp.a[0].type == GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS && cp.a[0].len == 4 &&
            cp.a[0].v[0] == 1 && cp.a[0].v[3] == 4,
        "the R bit ignored (3.15.1), the address read");
  CHECK(cp.a[1].type == GOSTX_IKE_CA_INTERNAL_IP4_DNS && cp.a[1].len == 0, "an empty DNS");

  /* CFG Types */
  CHECK_RC(gostx__ike_cp_read(b, 4, &cp), GOSTX_OK, "no attributes");
  b[0] = 0;
  CHECK_RC(gostx__ike_cp_read(b, 4, &cp), GOSTX_EFORMAT, "CFG Type 0");
  b[0] = 5;
  CHECK_RC(gostx__ike_cp_read(b, 4, &cp), GOSTX_EUNSUP, "CFG Type 5: unsupported");
  b[0] = GOSTX_IKE_CFG_REPLY;
  CHECK_RC(gostx__ike_cp_read(b, 3, &cp), GOSTX_EFORMAT, "shorter than the CFG header");

  /* every cut of the mixed body: a truncated attribute, never read */
  for (size_t cut = 5; cut < l; cut++) {
    const int at_boundary = cut == 4 + 8 || cut == 4 + 8 + 13 || cut == 4 + 8 + 13 + 7 ||
                            cut == 4 + 8 + 13 + 7 + 21;
    const int rc = gostx__ike_cp_read(b, cut, &cp);
    CHECK(at_boundary ? rc == GOSTX_OK : rc == GOSTX_EFORMAT, "cut at %zu: %d", cut, rc);
  }
  /* an attribute's length past the body */
  b[4 + 3] = 5;
  CHECK_RC(gostx__ike_cp_read(b, l, &cp), GOSTX_EFORMAT, "IPv4 of 5 octets");
  b[4 + 3] = 4;
  b[4 + 2] = 0x7f;
  CHECK_RC(gostx__ike_cp_read(b, l, &cp), GOSTX_EFORMAT, "a length past the body");
  b[4 + 2] = 0;
  /* odd IPv4 lengths, for each IPv4 kind kept */
  const uint16_t v4[] = {GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, GOSTX_IKE_CA_INTERNAL_IP4_NETMASK,
                         GOSTX_IKE_CA_INTERNAL_IP4_DNS};
  for (size_t i = 0; i < 3; i++)
    for (size_t len = 1; len < 9; len++) {
      if (len == 4) continue;
      n = attr(a, v4[i], len);
      l = body(b, GOSTX_IKE_CFG_REPLY, a, n);
      CHECK_RC(gostx__ike_cp_read(b, l, &cp), GOSTX_EFORMAT, "IPv4 attribute of odd length");
    }
  /* IPv6 address of 16 (no prefix) and DNS of 17 */
  n = attr(a, GOSTX_IKE_CA_INTERNAL_IP6_ADDRESS, 16);
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REPLY, a, n), &cp), GOSTX_EFORMAT,
           "IPv6 address without its prefix length");
  n = attr(a, GOSTX_IKE_CA_INTERNAL_IP6_DNS, 17);
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REPLY, a, n), &cp), GOSTX_EFORMAT,
           "IPv6 DNS of 17 octets");
  /* a skipped attribute is checked too */
  n = attr(a, GOSTX_IKE_CA_INTERNAL_IP4_SUBNET, 7);
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REPLY, a, n), &cp), GOSTX_EFORMAT,
           "IP4_SUBNET of 7 octets, though skipped");
  /* the netmask: a value in a request, twice, without an address */
  n = attr(a, GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, 0);
  n += attr(a + n, GOSTX_IKE_CA_INTERNAL_IP4_NETMASK, 4);
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REQUEST, a, n), &cp), GOSTX_EFORMAT,
           "a netmask's value in a request");
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REPLY, a, n), &cp), GOSTX_OK,
           "a netmask's value in a reply");
  n += attr(a + n, GOSTX_IKE_CA_INTERNAL_IP4_NETMASK, 4);
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REPLY, a, n), &cp), GOSTX_EFORMAT,
           "two netmasks");
  n = attr(a, GOSTX_IKE_CA_INTERNAL_IP4_NETMASK, 0);
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REQUEST, a, n), &cp), GOSTX_EFORMAT,
           "a netmask without an address");
  /* more kept attributes than the bound; as many skipped ones are fine */
  n = 0;
  for (size_t i = 0; i <= GOSTX_IKE_CP_MAX_ATTRS; i++)
    n += attr(a + n, GOSTX_IKE_CA_INTERNAL_IP4_DNS, 4);
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REPLY, a, n), &cp), GOSTX_EFORMAT,
           "17 DNS servers");
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REPLY, a, n - 8), &cp), GOSTX_OK,
           "16 DNS servers");
  n = 0;
  for (size_t i = 0; i <= 2 * GOSTX_IKE_CP_MAX_ATTRS; i++)
    n += attr(a + n, GOSTX_IKE_CA_INTERNAL_IP4_NBNS, 4);
  CHECK_RC(gostx__ike_cp_read(b, body(b, GOSTX_IKE_CFG_REPLY, a, n), &cp), GOSTX_OK,
           "33 NBNS servers skipped");
  CHECK(cp.skipped == 2 * GOSTX_IKE_CP_MAX_ATTRS + 1 && cp.n == 0, "counted, none kept");
  CHECK_RC(gostx__ike_cp_read(NULL, 4, &cp), GOSTX_EINVAL, "NULL");
}

/* In a message: the chain reader hands the CP payload over. */
static void in_a_chain(void) {
  uint8_t buf[256];
  gostx_ike_writer w;
  gostx_ike_chain c;
  gostx_ike_cp cp = {.cfg_type = GOSTX_IKE_CFG_REQUEST}, back;
  gostx__ike_cp_add(&cp, GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, NULL, 0);
  gostx__ike_w_inner(&w, buf, sizeof buf);
  const uint8_t id[4] = {1, 2, 3, 4};
  gostx__ike_w_id(&w, GOSTX_IKE_PT_IDI, GOSTX_IKE_ID_IPV4_ADDR, id, 4);
  gostx__ike_w_cp(&w, &cp);
  CHECK_RC(gostx__ike_chain_read(w.first, buf, w.len, &c, NULL), GOSTX_OK, "chain");
  const gostx_ike_payload *p = gostx__ike_find(&c, GOSTX_IKE_PT_CP);
  CHECK(p && gostx__ike_cp_read(p->body, p->len, &back) == GOSTX_OK && back.n == 1,
        "the CP payload found and read");
}

int main(void) {
  rfc_numbers_and_lengths();
  round_trips();
  reads();
  in_a_chain();
  return t_done();
}
