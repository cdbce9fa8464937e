/* Certificate path building and validation (RFC 5280 section 6, the parts
 * a TLS peer needs) and the name checks of RFC 6125. Everything here is
 * public data: certificates, names, times. */
#include <arpa/inet.h>

#include "x509/x509_internal.h"

#define MAX_DEPTH GOSTX_X509_MAX_DEPTH /* certificates in a path, anchor included */

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

int gostx__x509_check_signature(const gostx_x509_cert *cert, const gostx_x509_cert *issuer) {
  uint8_t digest[64], sig[128];
  size_t len;
  gostx_x509_key_alg need_key;
  switch (cert->sig_alg) {
    case GOSTX_X509_SIG_2012_256: need_key = GOSTX_X509_KEY_2012_256, len = 32; break;
    case GOSTX_X509_SIG_2012_512: need_key = GOSTX_X509_KEY_2012_512, len = 64; break;
    case GOSTX_X509_SIG_2001: need_key = GOSTX_X509_KEY_2001, len = 32; break;
    default: return GOSTX_EUNSUP;
  }
  if (issuer->key_alg != need_key || cert->sig_value_len != 2 * len) return GOSTX_EUNSUP;
  int rc = cert->sig_alg == GOSTX_X509_SIG_2001
               ? gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, cert->tbs, cert->tbs_len, digest)
               : gostx_streebog(len, cert->tbs, cert->tbs_len, digest);
  /* X.509 writes s || r; the signature API takes r || s (the 2001 and the
   * 2012-256 signature are the same arithmetic on the same curves) */
  if (!rc) rc = gostx_gost3410_sig_swap(cert->sig_value, 2 * len, sig, 2 * len);
  if (!rc)
    rc = gostx_gost3410_verify(issuer->curve, issuer->pub, issuer->pub_len, digest, len, sig,
                               2 * len);
  return rc ? GOSTX_EAUTH : 0;
}

static int same_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  return an == bn && memcmp(a, b, an) == 0;
}

/* RFC 5280 7.1: the names compared after RFC 4518 preparation (names.c). */
static int issued_by_name(const gostx_x509_cert *c, const gostx_x509_cert *issuer) {
  return gostx__x509_name_equal(c->issuer, c->issuer_len, issuer->subject, issuer->subject_len);
}

/* A certificate that issued c among cands[n] (skipping those in the path
 * so far): by name, then by signature. *found the first whose signature
 * verifies; else the status that says why none did. */
static gostx_x509_status find_issuer(const gostx_x509_cert *c, const gostx_x509_cert *cands,
                                     size_t n, const gostx_x509_cert *const *path, size_t depth,
                                     const gostx_x509_cert **found) {
  gostx_x509_status st = GOSTX_X509_UNKNOWN_CA;
  for (size_t i = 0; i < n; i++) {
    const gostx_x509_cert *cand = &cands[i];
    int used = 0;
    for (size_t k = 0; k < depth; k++)
      used |= same_bytes(path[k]->der, path[k]->der_len, cand->der, cand->der_len);
    if (used || !issued_by_name(c, cand)) continue;
    int rc = gostx__x509_check_signature(c, cand);
    if (!rc) {
      *found = cand;
      return GOSTX_X509_OK;
    }
    if (st != GOSTX_X509_BAD_SIGNATURE)
      st = rc == GOSTX_EUNSUP ? GOSTX_X509_UNSUPPORTED : GOSTX_X509_BAD_SIGNATURE;
  }
  return st;
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

/* From chain[0] up to an anchor: path[*path_len]. */
static gostx_x509_status build(const gostx_x509_cert *anchors, size_t n_anchors,
                               const gostx_x509_cert *chain, size_t n, size_t *depth,
                               const gostx_x509_cert **path, size_t *path_len) {
  size_t len = 1;
  *path_len = 1;
  int anchored = 0;
  path[0] = &chain[0];
  for (;;) {
    const gostx_x509_cert *c = path[len - 1], *next = NULL;
    for (size_t k = 0; k < n_anchors && !anchored; k++) /* c itself trusted */
      anchored = same_bytes(c->der, c->der_len, anchors[k].der, anchors[k].der_len);
    if (anchored) return GOSTX_X509_OK;
    gostx_x509_status st = find_issuer(c, anchors, n_anchors, path, len, &next);
    if (st == GOSTX_X509_OK) {
      anchored = 1;
    } else {
      gostx_x509_status st2 = find_issuer(c, chain + 1, n - 1, path, len, &next);
      /* a signature that failed is the better report than no issuer found */
      if (st2 != GOSTX_X509_OK) {
        *depth = len - 1;
        return st2 == GOSTX_X509_UNKNOWN_CA ? st : st2;
      }
    }
    if (len == MAX_DEPTH) { /* an issuer, but no room for it */
      *depth = len - 1;
      return GOSTX_X509_PATH_TOO_LONG;
    }
    path[len++] = next;
    *path_len = len;
    if (anchored) return GOSTX_X509_OK;
  }
}

static gostx_x509_status build_and_check(const gostx_x509_cert *anchors, size_t n_anchors,
                                         const gostx_x509_cert *chain, size_t n, int64_t now,
                                         gostx_x509_purpose purpose, const char *name,
                                         const gostx_x509_verify_opts *opts, size_t *depth,
                                         const gostx_x509_cert **path, size_t *path_len,
                                         char *why, size_t why_cap) {
  gostx_x509_status st = build(anchors, n_anchors, chain, n, depth, path, path_len);
  size_t len = *path_len;
  /* from the anchor down, as a path is processed */
  for (size_t i = len; st == GOSTX_X509_OK && i-- > 0;) {
    st = check_cert(path, i, i == len - 1, now, purpose);
    if (st != GOSTX_X509_OK) *depth = i;
  }
  if (st == GOSTX_X509_OK) st = gostx__x509_name_constraints(path, len, depth, why, why_cap);
  if (st == GOSTX_X509_OK) st = gostx__x509_policies(path, len, depth, why, why_cap);
  if (st == GOSTX_X509_OK && name && !name_matches(path[0], name)) st = GOSTX_X509_NAME_MISMATCH;
  if (st == GOSTX_X509_OK) st = gostx__x509_leaf_opts(path[0], opts, why, why_cap);
  /* RFC 5280's profile (profile.c) last: a chain that section 6 refuses
   * is named by that check first */
  if (st == GOSTX_X509_OK && !(opts && (opts->flags & GOSTX_X509_VERIFY_LAX)))
    st = gostx__x509_profile(path, len, depth, why, why_cap);
  return st;
}

gostx_x509_status gostx__x509_verify_path(const gostx_x509_cert *anchors, size_t n_anchors,
                                          const gostx_x509_cert *chain, size_t n, int64_t now,
                                          gostx_x509_purpose purpose, const char *name,
                                          const gostx_x509_verify_opts *opts, size_t *depth,
                                          const gostx_x509_cert **path_out,
                                          size_t cap, size_t *path_len, char *why,
                                          size_t why_cap) {
  const gostx_x509_cert *path[MAX_DEPTH];
  char detail[512] = "";
  size_t d0 = 0, len = 0;
  if (!depth) depth = &d0;
  *depth = 0;
  if (path_len) *path_len = 0;
  gostx_x509_status st = !chain || !n ? GOSTX_X509_MALFORMED
                                      : build_and_check(anchors, n_anchors, chain, n, now, purpose,
                                                        name, opts, depth, path, &len, detail,
                                                        sizeof detail);
  if (path_out && path_len) {
    size_t k = len < cap ? len : cap;
    memcpy(path_out, path, k * sizeof path[0]);
    *path_len = k;
  }
  if (why && why_cap)
    snprintf(why, why_cap, "%s", st == GOSTX_X509_OK ? "" : detail[0] ? detail : gostx_x509_status_name(st));
  return st;
}
