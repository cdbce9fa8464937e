/* Path validation (RFC 5280 section 6, the parts a TLS peer needs) of a
 * path path.c built, and the name checks of RFC 6125. Everything here is
 * public data: certificates, names, times. */
#include <arpa/inet.h>

#include "x509/x509_internal.h"

/* keyUsage bits as RFC 5280 numbers them */
#define KU_DIGITAL_SIGNATURE (1u << 0)
#define KU_KEY_ENCIPHERMENT (1u << 2)
#define KU_KEY_AGREEMENT (1u << 4)
#define KU_KEY_CERT_SIGN (1u << 5)
#define KU_CRL_SIGN (1u << 6)
#define KU_NON_REPUDIATION (1u << 1)

/* The keyUsage bits of which a leaf needs one: a TLS 1.3 certificate (or
 * a TLS 1.2 client's) signs the handshake; a TLS 1.2 server's key (RFC
 * 9189) is the other end of the key exchange (KEG or VKO, then the key
 * export of the preliminary secret); the others as openssl's purposes of
 * the same names ask. ~0u: none asked. */
static unsigned leaf_key_usage(gostx_x509_purpose purpose) {
  switch (purpose) {
    case GOSTX_X509_PURPOSE_ANY:
    case GOSTX_X509_PURPOSE_OCSP_HELPER: return ~0u;
    case GOSTX_X509_PURPOSE_SERVER_TLS12: return KU_KEY_ENCIPHERMENT | KU_KEY_AGREEMENT | KU_DIGITAL_SIGNATURE;
    case GOSTX_X509_PURPOSE_SMIME_SIGN:
    case GOSTX_X509_PURPOSE_TIMESTAMP_SIGN: return KU_DIGITAL_SIGNATURE | KU_NON_REPUDIATION;
    case GOSTX_X509_PURPOSE_SMIME_ENCRYPT:
    case GOSTX_X509_PURPOSE_NS_SERVER: return KU_KEY_ENCIPHERMENT;
    case GOSTX_X509_PURPOSE_CRL_SIGN: return KU_CRL_SIGN;
    default: return KU_DIGITAL_SIGNATURE;
  }
}

/* The EKU purpose that the leaf's and the CAs' EKU (when present) must
 * name, or anyExtendedKeyUsage; 0: CAs' EKUs are not looked at. */
static unsigned chain_eku(gostx_x509_purpose purpose) {
  switch (purpose) {
    case GOSTX_X509_PURPOSE_SERVER:
    case GOSTX_X509_PURPOSE_SERVER_TLS12:
    case GOSTX_X509_PURPOSE_NS_SERVER: return GOSTX_X509_EKU_SERVER;
    case GOSTX_X509_PURPOSE_CLIENT: return GOSTX_X509_EKU_CLIENT;
    case GOSTX_X509_PURPOSE_SMIME_SIGN:
    case GOSTX_X509_PURPOSE_SMIME_ENCRYPT: return GOSTX_X509_EKU_EMAIL;
    default: return 0;
  }
}

/* The leaf's own EKU rules for timestampsign and codesign (openssl's):
 * the extension required, and for timestamps critical and alone. */
static gostx_x509_status leaf_eku(const gostx_x509_cert *c, gostx_x509_purpose purpose) {
  unsigned eku = c->ext_key_usage & ~GOSTX_X509_EKU_CRITICAL;
  if (purpose == GOSTX_X509_PURPOSE_CODE_SIGN && (c->ext_key_usage == ~0u || !(eku & GOSTX_X509_EKU_CODE)))
    return GOSTX_X509_EXT_KEY_USAGE;
  if (purpose == GOSTX_X509_PURPOSE_TIMESTAMP_SIGN) {
    if (c->ext_key_usage == ~0u || eku != GOSTX_X509_EKU_TIMESTAMP ||
        !(c->ext_key_usage & GOSTX_X509_EKU_CRITICAL))
      return GOSTX_X509_EXT_KEY_USAGE;
    if (c->key_usage != ~0u && (c->key_usage & ~(KU_DIGITAL_SIGNATURE | KU_NON_REPUDIATION)))
      return GOSTX_X509_KEY_USAGE;
  }
  return GOSTX_X509_OK;
}

static int same_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  return an == bn && memcmp(a, b, an) == 0;
}

/* ---- names (RFC 6125 section 6.4; RFC 5280 iPAddress) ---- */

static int lower(int ch) { return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch; }

static int equal_nocase(const uint8_t *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (lower(a[i]) != lower((uint8_t)b[i])) return 0;
  return 1;
}

/* A dNSName against the reference host (no trailing dot): equal ignoring
 * ASCII case, or "*.rest" where the wildcard stands for exactly the host's
 * whole left-most label and rest has at least two labels. */
static int dns_matches(const uint8_t *p, size_t n, const char *host, size_t hn) {
  if (n && p[n - 1] == '.') n--; /* an absolute name is the same name */
  if (n == hn && equal_nocase(p, host, n)) return !memchr(p, '*', n);
  if (n < 4 || p[0] != '*' || p[1] != '.') return 0;
  const uint8_t *rest = p + 1; /* ".example.com" */
  size_t rn = n - 1;
  if (memchr(rest, '*', rn) || !memchr(rest + 1, '.', rn - 1)) return 0;
  const char *dot = memchr(host, '.', hn);
  if (!dot || dot == host) return 0;
  return hn - (size_t)(dot - host) == rn && equal_nocase(rest, dot, rn);
}

static int name_matches(const gostx_x509_cert *leaf, const char *name) {
  uint8_t ip[16];
  size_t ip_len = 0, hn = strlen(name);
  if (inet_pton(AF_INET, name, ip) == 1)
    ip_len = 4;
  else if (inet_pton(AF_INET6, name, ip) == 1)
    ip_len = 16;
  if (!ip_len) {
    if (hn && name[hn - 1] == '.') hn--;
    if (!hn || memchr(name, '*', hn)) return 0; /* the reference is a name, not a pattern */
  }
  gostx__der san = {leaf->san, leaf->san_len}, value;
  uint8_t tag;
  while (leaf->san && !gostx__der_next(&san, &tag, &value, NULL)) {
    if (ip_len && tag == SAN_IP && same_bytes(value.p, value.n, ip, ip_len)) return 1;
    if (!ip_len && tag == SAN_DNS && dns_matches(value.p, value.n, name, hn)) return 1;
  }
  return 0;
}

/* ---- the checks of each certificate of the built path ---- */

/* The CAs between path[i] and the leaf that count against path[i]'s
 * pathLenConstraint: not the leaf, not self-issued ones (6.1.4(l)). */
static size_t cas_below(const gostx_x509_cert *const *path, size_t i) {
  size_t n = 0;
  for (size_t k = 1; k < i; k++) n += !gostx__x509_self_issued(path[k]);
  return n;
}

static gostx_x509_status check_cert(const gostx_x509_cert *const *path, size_t i, int anchor,
                                    int64_t now, gostx_x509_purpose purpose) {
  const gostx_x509_cert *c = path[i];
  if (now < c->not_before) return GOSTX_X509_NOT_YET_VALID;
  if (now > c->not_after) return GOSTX_X509_EXPIRED;
  if (c->unknown_critical) return GOSTX_X509_CRITICAL_EXT;
  unsigned eku_need = chain_eku(purpose);
  if (i > 0) {
    /* an issuer: a CA (a version 1 anchor counts as one, as in openssl),
     * allowed to sign certificates, with no more CAs below it than its
     * pathLenConstraint */
    if (!c->is_ca && !(anchor && c->version == 1)) return GOSTX_X509_NOT_CA;
    if (!(c->key_usage & KU_KEY_CERT_SIGN)) return GOSTX_X509_KEY_USAGE;
    if (c->path_len >= 0 && cas_below(path, i) > (size_t)c->path_len) return GOSTX_X509_PATH_LEN;
  } else if (leaf_key_usage(purpose) != ~0u && !(c->key_usage & leaf_key_usage(purpose))) {
    return GOSTX_X509_KEY_USAGE;
  } else {
    gostx_x509_status st = leaf_eku(c, purpose);
    if (st != GOSTX_X509_OK) return st;
  }
  /* a CA's EKU, when it has one, limits what it may issue for */
  if (eku_need && !anchor && !(c->ext_key_usage & (eku_need | GOSTX_X509_EKU_ANY)))
    return GOSTX_X509_EXT_KEY_USAGE;
  return GOSTX_X509_OK;
}

gostx_x509_status gostx__x509_check_path(const gostx_x509_cert *const *path, size_t len,
                                         const gostx_x509_verify_opts *o, size_t *depth,
                                         char *why, size_t why_cap) {
  gostx_x509_status st = GOSTX_X509_OK;
  /* from the anchor down, as a path is processed */
  for (size_t i = len; st == GOSTX_X509_OK && i-- > 0;) {
    st = check_cert(path, i, i == len - 1, o->now, o->purpose);
    if (st != GOSTX_X509_OK) *depth = i;
  }
  if (st == GOSTX_X509_OK) st = gostx__x509_name_constraints(path, len, depth, why, why_cap);
  if (st == GOSTX_X509_OK) st = gostx__x509_policies(path, len, depth, why, why_cap);
  if (st == GOSTX_X509_OK && o->name && !name_matches(path[0], o->name)) {
    st = GOSTX_X509_NAME_MISMATCH;
    *depth = 0;
  }
  if (st == GOSTX_X509_OK) st = gostx__x509_leaf_opts(path[0], o, why, why_cap);
  /* RFC 5280's profile (profile.c) last: a chain that section 6 refuses
   * is named by that check first */
  if (st == GOSTX_X509_OK && !(o->flags & GOSTX_X509_VERIFY_LAX))
    st = gostx__x509_profile(path, len, depth, why, why_cap, o->memo);
  /* revocation (crl_status.c) after every other check: a path that is
   * refused anyway costs no CRL signatures */
  if (st == GOSTX_X509_OK) st = gostx__x509_revocation(path, len, o, depth, why, why_cap);
  return st;
}
