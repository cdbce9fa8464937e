/* RFC 5280's certificate profile (section 4): the MUSTs a certificate of a
 * conforming chain keeps that path validation (section 6) does not look
 * at, checked for every certificate of a built path unless the caller asks
 * for the lax reading (GOSTX_X509_VERIFY_LAX). Section 6 alone accepts a
 * leaf with keyCertSign, a CA without key identifiers or with its
 * constraints non-critical; a chain a conforming CA cannot have issued is
 * refused here, each rule by its own line (docs/X509.md, "The profile").
 * Everything here is public data. */
#include "x509/x509_internal.h"

#define OID_EXT_SKI "\x55\x1d\x0e" /* 2.5.29.14 */
#define OID_EXT_AKI "\x55\x1d\x23" /* 2.5.29.35 */

/* One extension of a certificate: present, its criticality, its value. */
typedef struct ext_info {
  int present, critical;
  gostx__der value;
} ext_info;

/* What the rules look at, read once per certificate. */
typedef struct facts {
  const gostx_x509_cert *c;
  ext_info bc, san, ski, aki, nc, pc;
  int anchor; /* the trust anchor: an input of path validation (6.1.1(d)) */
  gostx_x509_sig_memo *memo; /* the run's valid signatures, or NULL */
} facts;

static int empty_name(const uint8_t *name, size_t len) {
  (void)name;
  return len == 2; /* SEQUENCE {}: 30 00 */
}

/* The extension with this OID, from the TBSCertificate's [3] (which
 * gostx_x509_parse checked: the walk cannot fail on a parsed one). */
static ext_info find_ext(const gostx_x509_cert *c, const char *oid, size_t oid_len) {
  ext_info e = {0, 0, {NULL, 0}};
  gostx__der tbs = {c->tbs, c->tbs_len}, body, field, exts, ext, id;
  uint8_t tag = 0;
  if (gostx__der_get(&tbs, GOSTX__DER_SEQ, &body, NULL)) return e;
  while (!gostx__der_next(&body, &tag, &field, NULL))
    if (tag == GOSTX__DER_CTXC(3)) break;
  if (tag != GOSTX__DER_CTXC(3) || gostx__der_get(&field, GOSTX__DER_SEQ, &exts, NULL)) return e;
  while (!gostx__der_get(&exts, GOSTX__DER_SEQ, &ext, NULL)) {
    if (gostx__der_oid(&ext, &id) || !gostx__der_oid_is(id, (const uint8_t *)oid, oid_len)) continue;
    e.present = 1;
    if (gostx__der_peek(&ext, GOSTX__DER_BOOL)) (void)gostx__der_bool(&ext, &e.critical);
    (void)gostx__der_get(&ext, GOSTX__DER_OCTETS, &e.value, NULL);
    break;
  }
  return e;
}
#define FIND(c, oid) find_ext(c, oid, sizeof oid - 1)

/* RFC 1034 3.5's preferred name syntax, as RFC 1123 2.1 lets a label
 * start with a digit: labels of letters, digits and hyphens, 1 to 63
 * long, no hyphen at either end, 253 in all; no empty label (so no
 * leading or trailing dot). A subjectAltName may also have "*" as its
 * whole first label (RFC 6125 6.4.3's wildcard); a constraint may be ""
 * (every name). */
static int dns_syntax_ok(gostx__der v, int in_san) {
  size_t label = 0;
  if (!v.n) return !in_san;
  if (v.n > 253) return 0;
  if (in_san && v.n > 2 && v.p[0] == '*' && v.p[1] == '.') v.p += 2, v.n -= 2;
  for (size_t i = 0; i <= v.n; i++) {
    uint8_t ch = i < v.n ? v.p[i] : '.';
    if (ch == '.') {
      if (!label || v.p[i - 1] == '-') return 0;
      label = 0;
    } else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z') {
      label++;
    } else if ((ch >= '0' && ch <= '9') || (ch == '-' && label)) {
      label++;
    } else {
      return 0;
    }
    if (label > 63) return 0;
  }
  return 1;
}

/* ---- the rules: each 1 when f's certificate breaks it ---- */

/* Not asked of the trust anchor, whose serial and issuer are no part of
 * the path (RFC 5280 6.1.1(d) takes its name and key): old roots in real
 * stores carry negative serials (x509-limbo's online::fastly.com). */
static int serial_not_positive(const facts *f) {
  if (f->anchor) return 0;
  const gostx_x509_cert *c = f->c; /* a minimal INTEGER: 0 is one zero byte */
  return (c->serial[0] & 0x80) || (c->serial_len == 1 && c->serial[0] == 0);
}
static int issuer_empty(const facts *f) { return empty_name(f->c->issuer, f->c->issuer_len); }
static int ca_subject_empty(const facts *f) {
  const gostx_x509_cert *c = f->c;
  int crl_issuer = c->key_usage != ~0u && (c->key_usage & GOSTX_X509_KU_CRL_SIGN);
  return (c->is_ca || crl_issuer) && empty_name(c->subject, c->subject_len);
}
static int empty_subject_san(const facts *f) {
  return empty_name(f->c->subject, f->c->subject_len) && !(f->san.present && f->san.critical);
}
static int cert_sign_not_ca(const facts *f) {
  return f->c->key_usage != ~0u && (f->c->key_usage & GOSTX_X509_KU_KEY_CERT_SIGN) && !f->c->is_ca;
}
static int key_usage_empty(const facts *f) { return f->c->key_usage == 0; }
/* a CA whose key verifies certificates: keyCertSign, or no keyUsage */
static int signing_ca(const gostx_x509_cert *c) {
  return c->is_ca && (c->key_usage & GOSTX_X509_KU_KEY_CERT_SIGN);
}
/* Not asked of the anchor: an input (6.1.1(d)) whose keyUsage, when it has
 * none, allows every use, as 6.1.4(n) reads an absent one; its
 * certificates are judged by what it carries (basicConstraints, a present
 * keyUsage's keyCertSign), not by how it was issued. */
static int ca_key_usage_absent(const facts *f) { return !f->anchor && f->c->is_ca && f->c->key_usage == ~0u; }
static int ca_basic_not_critical(const facts *f) { return signing_ca(f->c) && !f->bc.critical; }
static int path_len_not_ca(const facts *f) { return f->c->path_len >= 0 && !signing_ca(f->c); }
static int ca_without_ski(const facts *f) { return f->c->is_ca && !f->ski.present; }

/* The keyIdentifier, [0] of AuthorityKeyIdentifier, is what must be there;
 * a self-signed certificate (its own key verifies it) may go without, and
 * so may the anchor. */
static int no_aki_key_id(const facts *f) {
  gostx__der v = f->aki.value, seq;
  /* an anchor names no issuer in the path: a cross-signed root taken as
   * the anchor needs none (limbo's cve-2024-0567) */
  if (f->anchor) return 0;
  if (f->aki.present && !gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) &&
      gostx__der_peek(&seq, GOSTX__DER_CTX(0)))
    return 0;
  return !(gostx__x509_self_issued(f->c) && !gostx__x509_check_signature(f->c, f->c, f->memo));
}
static int nc_not_ca(const facts *f) { return f->nc.present && !f->c->is_ca; }
static int nc_not_critical(const facts *f) { return f->nc.present && !f->nc.critical; }
static int pc_not_critical(const facts *f) { return f->pc.present && !f->pc.critical; }

static int san_dns_bad(const facts *f) {
  gostx__der san = {f->c->san, f->c->san_len}, v;
  uint8_t tag;
  while (f->c->san && !gostx__der_next(&san, &tag, &v, NULL))
    if (tag == SAN_DNS && !dns_syntax_ok(v, 1)) return 1;
  return 0;
}

static int nc_dns_bad(const facts *f) {
  gostx__der nc = {f->c->name_constraints, f->c->name_constraints_len}, trees, tree, base;
  uint8_t tag;
  while (f->c->name_constraints && !gostx__der_next(&nc, &tag, &trees, NULL))
    while (!gostx__der_get(&trees, GOSTX__DER_SEQ, &tree, NULL))
      if (!gostx__der_next(&tree, &tag, &base, NULL) && tag == SAN_DNS && !dns_syntax_ok(base, 0))
        return 1;
  return 0;
}

/* In the order docs/X509.md lists them; the text is the refusal. */
static const struct {
  int (*broken)(const facts *f);
  const char *why;
} rules[] = {
    {serial_not_positive, "profile: serialNumber is not a positive integer (RFC 5280 4.1.2.2)"},
    {issuer_empty, "profile: the issuer name is empty (RFC 5280 4.1.2.4)"},
    {ca_subject_empty, "profile: a CA (cA or cRLSign) with an empty subject name (RFC 5280 4.1.2.6)"},
    {empty_subject_san,
     "profile: an empty subject name without a critical subjectAltName (RFC 5280 4.1.2.6, 4.2.1.6)"},
    {no_aki_key_id,
     "profile: no authorityKeyIdentifier keyIdentifier in a certificate that is not self-signed "
     "(RFC 5280 4.2.1.1)"},
    {ca_without_ski, "profile: a CA certificate without subjectKeyIdentifier (RFC 5280 4.2.1.2)"},
    {key_usage_empty, "profile: keyUsage with no bit set (RFC 5280 4.2.1.3)"},
    {ca_key_usage_absent, "profile: a CA certificate without keyUsage (RFC 5280 4.2.1.3)"},
    {cert_sign_not_ca,
     "profile: keyCertSign in a certificate that is not a CA (RFC 5280 4.2.1.3, 4.2.1.9)"},
    {san_dns_bad,
     "profile: a subjectAltName dNSName not in the preferred name syntax (RFC 5280 4.2.1.6)"},
    {ca_basic_not_critical, "profile: basicConstraints of a CA not marked critical (RFC 5280 4.2.1.9)"},
    {path_len_not_ca,
     "profile: pathLenConstraint in a certificate that is not a CA with keyCertSign (RFC 5280 4.2.1.9)"},
    {nc_not_ca, "profile: nameConstraints in a certificate that is not a CA (RFC 5280 4.2.1.10)"},
    {nc_not_critical, "profile: nameConstraints not marked critical (RFC 5280 4.2.1.10)"},
    {nc_dns_bad,
     "profile: a dNSName constraint not in the preferred name syntax (RFC 5280 4.2.1.10, 4.2.1.6)"},
    {pc_not_critical, "profile: policyConstraints not marked critical (RFC 5280 4.2.1.11)"},
};

/* The rule a certificate breaks first, NULL when none. */
static const char *broken_rule(const gostx_x509_cert *c, int anchor, gostx_x509_sig_memo *memo) {
  facts f = {c, FIND(c, OID_EXT_BASIC), FIND(c, OID_EXT_SAN), FIND(c, OID_EXT_SKI),
             FIND(c, OID_EXT_AKI), FIND(c, OID_EXT_NAME_CONSTRAINTS),
             FIND(c, OID_EXT_POLICY_CONSTRAINTS), anchor, memo};
  for (size_t k = 0; k < sizeof rules / sizeof rules[0]; k++)
    if (rules[k].broken(&f)) return rules[k].why;
  return NULL;
}

gostx_x509_status gostx__x509_profile(const gostx_x509_cert *const *path, size_t len,
                                      size_t *depth, char *why, size_t cap, gostx_x509_sig_memo *memo) {
  for (size_t i = len; i-- > 0;) { /* from the anchor down, as the other checks */
    const char *rule = broken_rule(path[i], i == len - 1, memo);
    if (rule) {
      *depth = i;
      snprintf(why, cap, "%s", rule);
      return GOSTX_X509_PROFILE;
    }
  }
  return GOSTX_X509_OK;
}
