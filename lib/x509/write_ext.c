/* Certificate extensions from openssl's extension text (RFC 5280 section
 * 4.2; include/gostx/x509_write.h lists the syntax taken). Each is encoded
 * here into the extnValue's DER; the certificate and request writers copy
 * them in order. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <strings.h>

#include "x509/write_internal.h"

#define ITEMS_MAX 64
/* The comma-separated items of a value, spaces around each removed. */
typedef struct items {
  char buf[2048];
  const char *v[ITEMS_MAX];
  size_t n;
} items;

static int is_space(char c) { return c == ' ' || c == '\t'; }

static int split(const char *name, const char *value, items *it, char *err, size_t cap) {
  size_t len = strlen(value);
  if (len >= sizeof it->buf) return gostx__x509_fail(err, cap, "%s: value too long", name);
  memcpy(it->buf, value, len + 1);
  it->n = 0;
  for (char *s = it->buf;;) {
    char *end = strchr(s, ',');
    if (end) *end = 0;
    while (is_space(*s)) s++;
    for (char *t = s + strlen(s); t > s && is_space(t[-1]);) *--t = 0;
    if (!*s) return gostx__x509_fail(err, cap, "%s: empty item in '%s'", name, value);
    if (it->n == ITEMS_MAX) return gostx__x509_fail(err, cap, "%s: more than %d items", name, ITEMS_MAX);
    it->v[it->n++] = s;
    if (!end) return 0;
    s = end + 1;
  }
}

/* "prefix:rest" (prefix case-insensitive): rest, else NULL. */
static const char *after(const char *item, const char *prefix) {
  size_t n = strlen(prefix);
  return strncasecmp(item, prefix, n) ? NULL : item + n;
}

/* "pathlen:N": N, else -1. */
static long pathlen_of(const char *item) {
  const char *rest = after(item, "pathlen:");
  char *end;
  if (!rest || *rest < '0' || *rest > '9') return -1;
  long v = strtol(rest, &end, 10);
  return *end || v > 1000000 ? -1 : v;
}

static int ext_basic(gostx__der_w *w, const items *it, char *err, size_t cap) {
  int ca = -1;
  long pathlen = -1;
  for (size_t i = 0; i < it->n; i++) {
    const char *v = it->v[i], *rest = after(v, "CA:");
    int is_true = rest && !strcasecmp(rest, "TRUE"), is_false = rest && !strcasecmp(rest, "FALSE");
    if ((is_true || is_false) && ca < 0)
      ca = is_true;
    else if (pathlen < 0 && pathlen_of(v) >= 0)
      pathlen = pathlen_of(v);
    else
      return gostx__x509_fail(err, cap, "basicConstraints: '%s' is not CA:TRUE, CA:FALSE or "
                              "pathlen:N (each at most once)", v);
  }
  if (ca < 0) return gostx__x509_fail(err, cap, "basicConstraints: CA:TRUE or CA:FALSE is needed");
  if (pathlen >= 0 && !ca)
    return gostx__x509_fail(err, cap, "basicConstraints: pathlen only with CA:TRUE (RFC 5280 4.2.1.9)");
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  if (ca) gostx__der_w_tlv(w, GOSTX__DER_BOOL, "\xff", 1);
  if (pathlen >= 0) gostx__der_w_u32(w, (uint32_t)pathlen);
  gostx__der_w_end(w);
  return 0;
}

static const char *const ku_names[] = {"digitalSignature", "nonRepudiation", "keyEncipherment",
                                       "dataEncipherment", "keyAgreement",   "keyCertSign",
                                       "cRLSign",          "encipherOnly",   "decipherOnly"};

/* A BIT STRING of bits (bit 0 the first), trailing zero bits left out as
 * DER's NamedBitList rule wants. */
static void put_named_bits(gostx__der_w *w, unsigned bits) {
  int top = 0;
  for (int b = 0; b < 32; b++)
    if (bits & (1u << b)) top = b;
  uint8_t v[5] = {(uint8_t)(7 - top % 8)};
  for (int b = 0; b <= top; b++)
    if (bits & (1u << b)) v[1 + b / 8] |= (uint8_t)(0x80 >> (b % 8));
  gostx__der_w_tlv(w, GOSTX__DER_BITS, v, 2 + (size_t)top / 8);
}

static int ext_key_usage(gostx__der_w *w, const items *it, char *err, size_t cap) {
  unsigned bits = 0;
  for (size_t i = 0; i < it->n; i++) {
    size_t k = 0;
    while (k < sizeof ku_names / sizeof ku_names[0] && strcasecmp(it->v[i], ku_names[k])) k++;
    if (k == sizeof ku_names / sizeof ku_names[0])
      return gostx__x509_fail(err, cap, "keyUsage: unknown usage '%s' (digitalSignature, "
                              "nonRepudiation, keyEncipherment, dataEncipherment, keyAgreement, "
                              "keyCertSign, cRLSign, encipherOnly, decipherOnly)", it->v[i]);
    bits |= 1u << k;
  }
  put_named_bits(w, bits);
  return 0;
}

static const struct {
  const char *name, *oid;
} eku_names[] = {
    {"serverAuth", "1.3.6.1.5.5.7.3.1"},   {"clientAuth", "1.3.6.1.5.5.7.3.2"},
    {"codeSigning", "1.3.6.1.5.5.7.3.3"},  {"emailProtection", "1.3.6.1.5.5.7.3.4"},
    {"timeStamping", "1.3.6.1.5.5.7.3.8"}, {"OCSPSigning", "1.3.6.1.5.5.7.3.9"},
    {"ipsecIKE", "1.3.6.1.5.5.7.3.17"},    {"anyExtendedKeyUsage", "2.5.29.37.0"},
};

static int ext_eku(gostx__der_w *w, const items *it, char *err, size_t cap) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  for (size_t i = 0; i < it->n; i++) {
    const char *oid = it->v[i];
    uint8_t enc[64];
    size_t len;
    for (size_t k = 0; k < sizeof eku_names / sizeof eku_names[0]; k++)
      if (!strcasecmp(it->v[i], eku_names[k].name)) oid = eku_names[k].oid;
    if (gostx__der_oid_encode(oid, enc, sizeof enc, &len))
      return gostx__x509_fail(err, cap, "extendedKeyUsage: unknown purpose '%s' (serverAuth, "
                              "clientAuth, codeSigning, emailProtection, timeStamping, "
                              "OCSPSigning, ipsecIKE, anyExtendedKeyUsage or a dotted OID)", it->v[i]);
    gostx__der_w_tlv(w, GOSTX__DER_OID, enc, len);
  }
  gostx__der_w_end(w);
  return 0;
}

/* IA5String text for a GeneralName: printable ASCII, not empty. */
static int ia5_name(const char *what, const char *v, char *err, size_t cap) {
  if (!*v) return gostx__x509_fail(err, cap, "subjectAltName: empty %s", what);
  for (const char *s = v; *s; s++)
    if ((uint8_t)*s <= 0x20 || (uint8_t)*s >= 0x7f)
      return gostx__x509_fail(err, cap, "subjectAltName: %s '%s': printable ASCII only "
                              "(an internationalized name in its A-label form)", what, v);
  return 0;
}

static int ext_san(gostx__der_w *w, const items *it, char *err, size_t cap) {
  static const struct {
    const char *prefix;
    uint8_t tag;
  } kinds[] = {{"DNS:", 2}, {"email:", 1}, {"URI:", 6}};
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  for (size_t i = 0; i < it->n; i++) {
    const char *v = it->v[i], *rest;
    uint8_t ip[16];
    if ((rest = after(v, "IP:"))) {
      int v4 = inet_pton(AF_INET, rest, ip) == 1;
      if (!v4 && inet_pton(AF_INET6, rest, ip) != 1)
        return gostx__x509_fail(err, cap, "subjectAltName: '%s' is no IPv4 or IPv6 address", rest);
      gostx__der_w_tlv(w, GOSTX__DER_CTX(7), ip, v4 ? 4 : 16);
      continue;
    }
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && !(rest = after(v, kinds[k].prefix))) k++;
    if (k == sizeof kinds / sizeof kinds[0])
      return gostx__x509_fail(err, cap, "subjectAltName: '%s' is none of DNS:, IP:, email:, URI:", v);
    if (ia5_name(kinds[k].prefix, rest, err, cap)) return GOSTX_EINVAL;
    gostx__der_w_tlv(w, GOSTX__DER_CTX(kinds[k].tag), rest, strlen(rest));
  }
  gostx__der_w_end(w);
  return 0;
}

/* The identifiers: flags the writers act on (they need the keys). */
static int ext_ski(gostx_x509_exts *e, const items *it, char *err, size_t cap) {
  if (it->n != 1 || (strcmp(it->v[0], "hash") && strcmp(it->v[0], "none")))
    return gostx__x509_fail(err, cap, "subjectKeyIdentifier: hash or none");
  e->ski = strcmp(it->v[0], "none") ? 2 : 0;
  return 0;
}

static int ext_aki(gostx_x509_exts *e, const items *it, char *err, size_t cap) {
  int keyid = 0, none = 0;
  for (size_t i = 0; i < it->n; i++) {
    const char *v = it->v[i];
    if (!strcmp(v, "keyid") || !strcmp(v, "keyid:always"))
      keyid = 1;
    else if (!strcmp(v, "none"))
      none = 1;
    else if (strcmp(v, "issuer")) /* openssl's fallback when there is no keyid: never here */
      return gostx__x509_fail(err, cap, "authorityKeyIdentifier: '%s': keyid, keyid:always, issuer or "
                              "none (issuer:always is not supported)", v);
  }
  if (none == keyid) return gostx__x509_fail(err, cap, "authorityKeyIdentifier: keyid or none");
  e->aki = keyid ? 2 : 0;
  return 0;
}

typedef int (*encode_fn)(gostx__der_w *w, const items *it, char *err, size_t cap);
static const struct {
  const char *name, *oid;
  encode_fn encode;
} known[] = {
    {"basicConstraints", "2.5.29.19", ext_basic},
    {"keyUsage", "2.5.29.15", ext_key_usage},
    {"extendedKeyUsage", "2.5.29.37", ext_eku},
    {"subjectAltName", "2.5.29.17", ext_san},
};

void gostx_x509_exts_init(gostx_x509_exts *e) {
  if (!e) return;
  memset(e, 0, sizeof *e);
  e->ski = e->aki = 1;
}

static int find(const gostx_x509_exts *e, const uint8_t *oid, size_t oid_len) {
  for (size_t i = 0; i < e->n; i++)
    if (e->ext[i].oid_len == oid_len && !memcmp(e->ext[i].oid, oid, oid_len)) return 1;
  return 0;
}

int gostx_x509_exts_add_der(gostx_x509_exts *e, const uint8_t *oid, size_t oid_len, int critical,
                            const uint8_t *value, size_t value_len) {
  if (!e || !oid || !oid_len || oid_len > sizeof e->ext[0].oid || (!value && value_len))
    return GOSTX_EINVAL;
  if (find(e, oid, oid_len)) return 1;
  if (e->n == GOSTX_X509_EXTS_MAX || value_len > sizeof e->data - e->used) return GOSTX_ELEN;
  gostx_x509_ext *x = &e->ext[e->n++];
  memcpy(x->oid, oid, oid_len);
  x->oid_len = oid_len;
  x->critical = !!critical;
  x->off = e->used;
  x->len = value_len;
  if (value_len) memcpy(e->data + e->used, value, value_len);
  e->used += value_len;
  return 0;
}

/* A known extension's value encoded, then added. */
static int add_encoded(gostx_x509_exts *e, size_t k, int critical, const items *it, char *err,
                       size_t cap) {
  uint8_t oid[16], value[2048];
  size_t oid_len, len;
  gostx__der_w w;
  (void)gostx__der_oid_encode(known[k].oid, oid, sizeof oid, &oid_len); /* ours: valid */
  if (find(e, oid, oid_len)) return gostx__x509_fail(err, cap, "%s given twice", known[k].name);
  gostx__der_w_init(&w, value, sizeof value);
  if (known[k].encode(&w, it, err, cap)) return GOSTX_EINVAL;
  if (gostx__der_w_finish(&w, &len) || gostx_x509_exts_add_der(e, oid, oid_len, critical, value, len))
    return gostx__x509_fail(err, cap, "%s: too long, or too many extensions", known[k].name);
  return 0;
}

int gostx_x509_exts_add(gostx_x509_exts *e, const char *name, const char *value, char *err,
                        size_t err_cap) {
  if (!e || !name || !value) return GOSTX_EINVAL;
  items it;
  if (split(name, value, &it, err, err_cap)) return GOSTX_EINVAL;
  int critical = !strcmp(it.v[0], "critical");
  if (critical) {
    memmove(it.v, it.v + 1, --it.n * sizeof it.v[0]);
    if (!it.n) return gostx__x509_fail(err, err_cap, "%s: nothing after 'critical'", name);
  }
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
    if (!strcmp(name, known[k].name)) return add_encoded(e, k, critical, &it, err, err_cap);
  int ski = !strcmp(name, "subjectKeyIdentifier"), aki = !strcmp(name, "authorityKeyIdentifier");
  if (!ski && !aki)
    return gostx__x509_fail(err, err_cap, "unknown extension '%s' (basicConstraints, keyUsage, "
                            "extendedKeyUsage, subjectAltName, subjectKeyIdentifier, "
                            "authorityKeyIdentifier)", name);
  if (critical) return gostx__x509_fail(err, err_cap, "%s is never critical (RFC 5280 4.2.1)", name);
  if ((ski ? e->ski : e->aki) != 1) return gostx__x509_fail(err, err_cap, "%s given twice", name);
  return ski ? ext_ski(e, &it, err, err_cap) : ext_aki(e, &it, err, err_cap);
}

int gostx_x509_exts_add_line(gostx_x509_exts *e, const char *line, char *err, size_t err_cap) {
  if (!e || !line) return GOSTX_EINVAL;
  const char *eq = strchr(line, '=');
  if (!eq) return gostx__x509_fail(err, err_cap, "'%s' is not NAME=VALUE", line);
  char name[64];
  const char *s = line, *t = eq;
  while (is_space(*s)) s++;
  while (t > s && is_space(t[-1])) t--;
  if (t == s || (size_t)(t - s) >= sizeof name) return gostx__x509_fail(err, err_cap, "'%s': no extension name", line);
  memcpy(name, s, (size_t)(t - s));
  name[t - s] = 0;
  return gostx_x509_exts_add(e, name, eq + 1, err, err_cap);
}
