/* lib/asn1: the DER writer's lengths at every boundary, its refusals and
 * its counting past a short buffer; random element trees written and read
 * back by the strict reader; OIDs from text and back; INTEGERs; PEM written
 * and read for every length mod 3 and line boundary, several labels. */
#include <stdlib.h>

#include "testutil.h"
#include "asn1/der.h"
#include "asn1/pem.h"

/* The element header X.690 10.1 gives for tag and len. */
static size_t header(uint8_t tag, size_t len, uint8_t *h) {
  size_t n = 0;
  h[n++] = tag;
  if (len < 0x80) {
    h[n++] = (uint8_t)len;
    return n;
  }
  size_t k = 0;
  for (size_t l = len; l; l >>= 8) k++;
  h[n++] = (uint8_t)(0x80 | k);
  while (k--) h[n++] = (uint8_t)(len >> 8 * k);
  return n;
}

static void lengths(void) {
  static const size_t lens[] = {0, 1, 127, 128, 129, 255, 256, 257, 65535, 65536, 70000};
  size_t cap = 80000;
  uint8_t *buf = malloc(cap), *content = malloc(cap), h[8];
  t_rand_bytes(content, cap);
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    size_t len = lens[i], got = 0, hn = header(GOSTX__DER_OCTETS, len, h);
    uint8_t pub[GOSTX_DER_HEADER_MAX]; /* the public header writer (gostx/der.h): the same bytes */
    CHECK(gostx_der_header(pub, GOSTX__DER_OCTETS, len) == hn && !memcmp(pub, h, hn),
          "gostx_der_header, length %zu", len);
    for (int nested = 0; nested < 2; nested++) { /* tlv in one call; begin, raw, end */
      gostx__der_w w;
      gostx__der_w_init(&w, buf, cap);
      if (nested) {
        gostx__der_w_begin(&w, GOSTX__DER_OCTETS);
        gostx__der_w_raw(&w, content, len);
        gostx__der_w_end(&w);
      } else {
        gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, content, len);
      }
      CHECK_RC(gostx__der_w_finish(&w, &got), 0, "finish");
      CHECK(got == hn + len, "length %zu: wrote %zu", len, got);
      CHECK_BYTES(buf, h, hn, "header");
      CHECK(memcmp(buf + hn, content, len) == 0, "length %zu: content moved", len);
      gostx__der r = {buf, got}, c;
      CHECK_RC(gostx__der_get(&r, GOSTX__DER_OCTETS, &c, NULL), 0, "read back");
      CHECK(c.n == len && gostx__der_done(&r), "length %zu read back as %zu", len, c.n);
    }
  }
  free(buf);
  free(content);
  uint8_t pub[GOSTX_DER_HEADER_MAX];
  CHECK(gostx_der_header(pub, 0x30, UINT64_MAX - 1) == GOSTX_DER_HEADER_MAX && pub[1] == 0x88,
        "the longest length: 8 length bytes");
  CHECK(gostx_der_header(pub, 0x24, UINT64_MAX) == 2 && pub[1] == 0x80, "UINT64_MAX: indefinite");
  CHECK(gostx_der_header(NULL, 0x30, 1) == 0, "no buffer");
}

/* A random tree of elements, written; returns the bytes a reference writer
 * (header() and plain copies, inside out) makes for it. */
static size_t tree(gostx__der_w *w, uint8_t *ref, int depth) {
  size_t n = 0, kids = t_rand_below(4);
  for (size_t k = 0; k < kids; k++) {
    uint8_t h[8], tag;
    if (depth < 6 && t_rand_below(2)) {
      tag = t_rand_below(2) ? GOSTX__DER_SEQ : GOSTX__DER_CTXC(t_rand_below(4));
      uint8_t *inner = malloc(1 << 16);
      gostx__der_w_begin(w, tag);
      size_t in = tree(w, inner, depth + 1);
      gostx__der_w_end(w);
      size_t hn = header(tag, in, h);
      memcpy(ref + n, h, hn), memcpy(ref + n + hn, inner, in);
      n += hn + in;
      free(inner);
    } else {
      uint8_t body[300];
      size_t len = t_rand_below(2) ? t_rand_below(8) : t_rand_below(sizeof body);
      t_rand_bytes(body, len);
      tag = GOSTX__DER_OCTETS;
      gostx__der_w_tlv(w, tag, body, len);
      size_t hn = header(tag, len, h);
      memcpy(ref + n, h, hn), memcpy(ref + n + hn, body, len);
      n += hn + len;
    }
  }
  return n;
}

/* Reads every element of r down to its leaves: 0 when all is strict DER. */
static int walk(gostx__der r) {
  while (!gostx__der_done(&r)) {
    uint8_t tag;
    gostx__der c;
    if (gostx__der_next(&r, &tag, &c, NULL)) return -1;
    if ((tag & 0x20) && walk(c)) return -1;
  }
  return 0;
}

static void trees(void) {
  size_t cap = 1 << 16;
  uint8_t *buf = malloc(cap), *ref = malloc(cap), *small = malloc(cap);
  for (int t = 0; t < 400; t++) {
    gostx__der_w w;
    gostx__der_w_init(&w, buf, cap);
    size_t rn = tree(&w, ref, 0), got = 0;
    CHECK_RC(gostx__der_w_finish(&w, &got), 0, "tree finish");
    CHECK(got == rn && memcmp(buf, ref, rn) == 0, "tree %d: %zu bytes against %zu", t, got, rn);
    CHECK(walk((gostx__der){buf, got}) == 0, "tree %d does not read back", t);
    /* The same tree into a buffer short by 1..: GOSTX_ELEN and the length
     * it needs; counting alone (NULL) says the same. */
    if (rn) {
      size_t need = 0, short_cap = t_rand_below(rn);
      gostx__der_w s;
      gostx__der_w_init(&s, small, short_cap);
      gostx__der_w cnt;
      gostx__der_w_init(&cnt, NULL, 0);
      /* replay: the writer calls of buf's tree, as raw elements */
      gostx__der_w_raw(&s, buf, rn);
      gostx__der_w_raw(&cnt, buf, rn);
      CHECK_RC(gostx__der_w_finish(&s, &need), GOSTX_ELEN, "short buffer");
      CHECK(need == rn, "short buffer: needs %zu, want %zu", need, rn);
      CHECK_RC(gostx__der_w_finish(&cnt, &need), 0, "counting");
      CHECK(need == rn, "counting: %zu, want %zu", need, rn);
    }
  }
  free(buf);
  free(ref);
  free(small);
}

/* Nested elements into every short buffer: GOSTX_ELEN with the full length
 * (the counting goes on past the end through begin and end). */
static void short_nested(void) {
  uint8_t big[600], full[719], part[719];
  t_rand_bytes(big, sizeof big);
  size_t want = 0;
  for (size_t cap = 0; cap <= sizeof full; cap++) {
    gostx__der_w w;
    gostx__der_w_init(&w, cap == sizeof full ? full : part, cap);
    gostx__der_w_begin(&w, GOSTX__DER_SEQ);
    gostx__der_w_begin(&w, GOSTX__DER_SEQ);
    gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, big, 100);
    gostx__der_w_end(&w);
    gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, big, sizeof big);
    gostx__der_w_u32(&w, 0x80000000u);
    gostx__der_w_end(&w);
    size_t got = 0;
    int rc = gostx__der_w_finish(&w, &got);
    if (cap == sizeof full) {
      CHECK_RC(rc, 0, "nested, room");
      want = got;
    } else {
      CHECK(rc == GOSTX_ELEN && got == 4 + 2 + 2 + 100 + 4 + 600 + 2 + 5,
            "cap %zu: rc %d, needs %zu", cap, rc, got);
    }
  }
  CHECK(want == 4 + 2 + 2 + 100 + 4 + 600 + 2 + 5, "nested: %zu", want);
  CHECK(walk((gostx__der){full, want}) == 0, "nested reads back");
}

static void misuse(void) {
  uint8_t buf[64];
  size_t n = 0;
  gostx__der_w w;
  gostx__der_w_init(&w, buf, sizeof buf);
  gostx__der_w_end(&w);
  CHECK_RC(gostx__der_w_finish(&w, &n), GOSTX_EINVAL, "end without begin");
  gostx__der_w_init(&w, buf, sizeof buf);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  CHECK_RC(gostx__der_w_finish(&w, &n), GOSTX_EINVAL, "left open");
  gostx__der_w_init(&w, buf, sizeof buf);
  for (int i = 0; i <= GOSTX__DER_W_DEPTH; i++) gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  for (int i = 0; i <= GOSTX__DER_W_DEPTH; i++) gostx__der_w_end(&w);
  CHECK_RC(gostx__der_w_finish(&w, &n), GOSTX_EINVAL, "nested too deep");
  gostx__der_w_init(&w, buf, sizeof buf);
  for (int i = 0; i < GOSTX__DER_W_DEPTH; i++) gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  for (int i = 0; i < GOSTX__DER_W_DEPTH; i++) gostx__der_w_end(&w);
  CHECK_RC(gostx__der_w_finish(&w, &n), 0, "nested as deep as allowed");
  CHECK(n == 2 * GOSTX__DER_W_DEPTH, "deep: %zu bytes", n);
  /* an error is sticky: a later good write does not clear it */
  gostx__der_w_init(&w, buf, sizeof buf);
  gostx__der_w_oid(&w, "1.2.x");
  gostx__der_w_tlv(&w, GOSTX__DER_NULL, NULL, 0);
  CHECK_RC(gostx__der_w_finish(&w, &n), GOSTX_EINVAL, "bad OID sticks");
}

static void oids(void) {
  static const struct {
    const char *text, *hex;
  } good[] = {
      {"1.2.643.7.1.1.1.1", "2a850307010101 01"},
      {"1.2.840.113549.1.5.13", "2a864886f70d01050d"},
      {"2.999.3", "883703"},
      {"0.0", "00"},
      {"0.39", "27"},
      {"2.5.29.30", "551d1e"},
      {"1.2.4294967295", "2a8fffffff7f"},
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    uint8_t enc[32], want[32];
    char hex[40], text[80];
    size_t n = 0, k = 0;
    for (const char *h = good[i].hex; *h; h++)
      if (*h != ' ') hex[k++] = *h;
    hex[k] = 0;
    long wn = hex_decode(hex, want, sizeof want);
    CHECK_RC(gostx__der_oid_encode(good[i].text, enc, sizeof enc, &n), 0, good[i].text);
    CHECK(wn >= 0 && n == (size_t)wn && memcmp(enc, want, n) == 0, "%s encoded", good[i].text);
    CHECK_RC(gostx__der_oid_text((gostx__der){enc, n}, text, sizeof text), 0, "text");
    CHECK(strcmp(text, good[i].text) == 0, "%s back as %s", good[i].text, text);
    CHECK_RC(gostx__der_oid_encode(good[i].text, enc, n - 1, &k), GOSTX_ELEN, "short");
  }
  static const char *const bad[] = {"", "1", "3.1", "1.40", "0.40", "1..2", "1.2.", ".1.2",
                                    "01.2", "1.02", "1.2a", "1.2 ", "1.4294967296", "-1.2"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint8_t enc[32];
    size_t n;
    CHECK_RC(gostx__der_oid_encode(bad[i], enc, sizeof enc, &n), GOSTX_EINVAL, bad[i]);
  }
  /* text that does not fit is cut and said */
  uint8_t enc[32];
  size_t n;
  char text[11];
  gostx__der_oid_encode("1.2.643.7.1.1.1.1", enc, sizeof enc, &n);
  CHECK_RC(gostx__der_oid_text((gostx__der){enc, n}, text, sizeof text), GOSTX_ELEN, "cut");
  CHECK(strcmp(text, "1.2.643...") == 0, "cut as %s", text);
}

static void integers(void) {
  static const struct {
    uint32_t v;
    const char *hex;
  } u[] = {{0, "020100"}, {1, "020101"}, {127, "02017f"}, {128, "02020080"},
           {256, "02020100"}, {0x80000000u, "02050080000000"}, {0xffffffffu, "020500ffffffff"}};
  for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
    uint8_t buf[16], want[16];
    size_t n = 0;
    gostx__der_w w;
    gostx__der_w_init(&w, buf, sizeof buf);
    gostx__der_w_u32(&w, u[i].v);
    CHECK_RC(gostx__der_w_finish(&w, &n), 0, "u32");
    long wn = hex_decode(u[i].hex, want, sizeof want);
    CHECK(n == (size_t)wn && memcmp(buf, want, n) == 0, "u32 %u", u[i].v);
    gostx__der r = {buf, n};
    uint32_t back = 1;
    CHECK_RC(gostx__der_u32(&r, &back), 0, "u32 read");
    CHECK(back == u[i].v, "u32 %u read as %u", u[i].v, back);
  }
  static const struct {
    const char *hex;
    int rc;
  } rd[] = {{"0200", GOSTX_EFORMAT},        {"020180", GOSTX_EFORMAT},
            {"02020001", GOSTX_EFORMAT},    {"02050100000000", GOSTX_EUNSUP},
            {"0206008000000000", GOSTX_EUNSUP}, {"0206000080000000", GOSTX_EFORMAT},
            {"040100", GOSTX_EFORMAT}};
  for (size_t i = 0; i < sizeof rd / sizeof rd[0]; i++) {
    uint8_t buf[16];
    long n = hex_decode(rd[i].hex, buf, sizeof buf);
    gostx__der r = {buf, (size_t)n};
    uint32_t v;
    CHECK_RC(gostx__der_u32(&r, &v), rd[i].rc, rd[i].hex);
  }
  /* big-endian bytes: leading zeros dropped, a sign byte added */
  uint8_t be[] = {0, 0, 0x80, 1}, buf[16], want[] = {0x02, 0x03, 0x00, 0x80, 0x01};
  size_t n = 0;
  gostx__der_w w;
  gostx__der_w_init(&w, buf, sizeof buf);
  gostx__der_w_uint(&w, be, sizeof be);
  gostx__der_w_finish(&w, &n);
  CHECK(n == sizeof want && memcmp(buf, want, n) == 0, "uint with a sign byte");
}

static void pem(void) {
  static const char *const labels[] = {"CERTIFICATE", "PRIVATE KEY", "X509 CRL"};
  uint8_t der[400], back[400];
  char text[1200];
  for (size_t len = 1; len <= 300; len++) {
    t_rand_bytes(der, len);
    const char *label = labels[len % 3];
    size_t n = 0, pos = 0, got = 0;
    CHECK_RC(gostx__pem_write(label, der, len, text, sizeof text, &n), 0, "pem write");
    CHECK(n == strlen(text), "pem length %zu: %zu", len, n);
    size_t need = 0;
    CHECK_RC(gostx__pem_write(label, der, len, NULL, 0, &need), GOSTX_ELEN, "pem measure");
    CHECK(need >= n, "pem measure %zu < %zu", need, n);
    int which = -1;
    CHECK_RC(gostx__pem_find(text, n, &pos, labels, 3, &which), 0, "pem find");
    CHECK(which == (int)(len % 3), "pem label %d", which);
    CHECK_RC(gostx__pem_body(text, n, &pos, label, back, sizeof back, &got), 0, "pem body");
    CHECK(got == len && memcmp(back, der, len) == 0 && pos == n, "pem %zu round trip", len);
    /* any base64 character changed into '*' is refused */
    size_t at = strlen("-----BEGIN -----\n") + strlen(label) + t_rand_below(4 * len / 3);
    if (text[at] != '\n' && text[at] != '=') {
      text[at] = '*';
      pos = 0;
      CHECK_RC(gostx__pem_block(text, n, &pos, label, back, sizeof back, &got), GOSTX_EFORMAT,
               "pem with a bad character");
    }
  }
  /* two blocks: the second found after the first; other labels skipped */
  char two[1200];
  size_t a = 0, b = 0, pos = 0, got = 0;
  gostx__pem_write("CERTIFICATE", der, 50, two, sizeof two, &a);
  gostx__pem_write("PRIVATE KEY", der + 50, 60, two + a, sizeof two - a, &b);
  CHECK_RC(gostx__pem_block(two, a + b, &pos, "PRIVATE KEY", back, sizeof back, &got), 1, "second");
  CHECK(got == 60 && memcmp(back, der + 50, 60) == 0, "the second block");
  CHECK_RC(gostx__pem_block(two, a + b, &pos, "PRIVATE KEY", back, sizeof back, &got), 0, "none left");
  pos = 0;
  static const char *const none[] = {"PUBLIC KEY"};
  int which;
  CHECK_RC(gostx__pem_find(two, a + b, &pos, none, 1, &which), GOSTX_EUNSUP, "other labels only");
  pos = 0;
  CHECK_RC(gostx__pem_find("no pem here\n", 12, &pos, none, 1, &which), GOSTX_EFORMAT, "no BEGIN");
}

/* The base64 alone: what gostx__pem_write writes, decoded in pieces cut
 * anywhere (a group carried across); refusals by name. */
static void base64_pieces(void) {
  uint8_t in[100] = {0}, out[100];
  char text[200], pem[400];
  for (size_t n = 0; n <= sizeof in; n++) {
    for (size_t i = 0; i < n; i++) in[i] = (uint8_t)(i * 37 + n);
    size_t len = gostx_base64_encode(in, n, text), pem_len;
    CHECK(len == (n + 2) / 3 * 4, "%zu bytes: %zu characters", n, len);
    CHECK(gostx__pem_write("X", in, n, pem, sizeof pem, &pem_len) == 0 && (n > 48 || !memcmp(pem + 18, text, len)),
          "%zu bytes: the characters gostx__pem_write writes", n);
    for (size_t cut = 0; cut <= len; cut += 3) {
      gostx_base64 d = {0, 0, 0};
      size_t a = 0, b = 0;
      int rc = gostx_base64_decode(&d, text, cut, out, &a) | gostx_base64_decode(&d, text + cut, len - cut, out + a, &b);
      CHECK(rc == 0 && a + b == n && !memcmp(out, in, n) && d.nbits == 0, "%zu bytes cut at %zu: back", n, cut);
    }
  }
  gostx_base64 d = {0, 0, 0};
  size_t got;
  CHECK(gostx_base64_decode(&d, "QU*=", 4, out, &got) == GOSTX_EFORMAT, "a character not base64");
  d = (gostx_base64){0, 0, 0};
  CHECK(gostx_base64_decode(&d, "QQ=A", 4, out, &got) == GOSTX_EFORMAT, "a character after '='");
  d = (gostx_base64){0, 0, 0};
  CHECK(gostx_base64_decode(&d, "QUJ", 3, out, &got) == 0 && got == 2 && d.nbits, "three characters: mid-byte");
  d = (gostx_base64){0, 0, 0};
  CHECK(gostx_base64_decode(&d, "QQ==", 4, out, &got) == 0 && got == 1 && !d.nbits, "'=' ends the byte");
  d = (gostx_base64){0, 0, 0};
  CHECK(gostx_base64_decode(&d, "QQ=", 3, out, &got) == 0 && gostx_base64_decode(&d, "A", 1, out, &got),
        "a character after '=' of an earlier piece");
  d = (gostx_base64){0, 0, 0};
  CHECK(gostx_base64_decode(&d, "QU\nJD", 5, out, &got) == GOSTX_EFORMAT, "a line end inside");
  CHECK(gostx_base64_decode(NULL, "QQ==", 4, out, &got) == GOSTX_EINVAL && gostx_base64_encode(NULL, 1, text) == 0,
        "NULL");
}

/* RFC 4648 section 10's vectors, both ways, through the public names and
 * gostx/cms.h's earlier ones; then every character of section 4's table,
 * from the 64 values packed into 48 bytes. */
static void base64_rfc4648(void) {
  static const char *const v[][2] = {{"", ""},         {"f", "Zg=="},     {"fo", "Zm8="},
                                     {"foo", "Zm9v"},  {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                     {"foobar", "Zm9vYmFy"}};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    const uint8_t *in = (const uint8_t *)v[i][0];
    size_t n = strlen(v[i][0]), len = strlen(v[i][1]), got = 99, got2 = 99;
    char text[16], text2[16];
    uint8_t out[16], out2[16];
    CHECK(gostx_base64_encode(in, n, text) == len && !memcmp(text, v[i][1], len), "encode \"%s\"", v[i][0]);
    CHECK(gostx_cms_base64_encode(in, n, text2) == len && !memcmp(text2, text, len), "the alias encodes \"%s\"",
          v[i][0]);
    gostx_base64 d = {0, 0, 0};
    gostx_cms_base64 d2 = {0, 0, 0};
    CHECK(gostx_base64_decode(&d, v[i][1], len, out, &got) == 0 && got == n && !memcmp(out, in, n) && !d.nbits,
          "decode %s", v[i][1]);
    CHECK(gostx_cms_base64_decode(&d2, v[i][1], len, out2, &got2) == 0 && got2 == n && !memcmp(out2, in, n),
          "the alias decodes %s", v[i][1]);
  }
  static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  uint8_t packed[48], back[48];
  for (unsigned g = 0; g < 16; g++) { /* values 4g .. 4g+3 as three bytes */
    uint32_t w = (4 * g) << 18 | (4 * g + 1) << 12 | (4 * g + 2) << 6 | (4 * g + 3);
    packed[3 * g] = (uint8_t)(w >> 16), packed[3 * g + 1] = (uint8_t)(w >> 8), packed[3 * g + 2] = (uint8_t)w;
  }
  char text[64];
  size_t got;
  CHECK(gostx_base64_encode(packed, 48, text) == 64 && !memcmp(text, table, 64), "section 4's table, encoded");
  gostx_base64 d = {0, 0, 0};
  CHECK(gostx_base64_decode(&d, table, 64, back, &got) == 0 && got == 48 && !memcmp(back, packed, 48),
        "section 4's table, decoded");
  for (int c = 0; c < 256; c++) { /* every other byte refused */
    char one[4] = {'Q', 'Q', 'Q', (char)c};
    d = (gostx_base64){0, 0, 0};
    int rc = gostx_base64_decode(&d, one, 4, back, &got);
    CHECK((rc == 0) == (c == '=' || (c && strchr(table, c))), "the byte %d", c);
  }
}

int main(void) {
  t_rand_init();
  lengths();
  trees();
  short_nested();
  misuse();
  oids();
  integers();
  pem();
  base64_pieces();
  base64_rfc4648();
  return t_done();
}
