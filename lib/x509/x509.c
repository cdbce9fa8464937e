/* X.509 certificates (RFC 5280) with GOST keys and signatures (RFC 4491,
 * RFC 9215): the DER parser. Certificates are public: branches on their
 * bytes are fine; what matters is that every byte is checked, so the
 * parser refuses anything that is not DER of the certificate structure
 * (a strictness that openssl also applies to the signed part). */
#include <stdio.h>

#include "asn1/pem.h"
#include "x509/x509_internal.h"

#define GOSTX__X509_MAX_DEPTH_TEXT GOSTX__STR(GOSTX_X509_MAX_DEPTH)

/* Each text starts with the check that failed, as the API promises. */
const char *gostx_x509_status_name(gostx_x509_status st) {
  switch (st) {
    case GOSTX_X509_OK: return "ok";
    case GOSTX_X509_MALFORMED: return "parse: not a DER certificate";
    case GOSTX_X509_UNSUPPORTED: return "algorithm: not a GOST key or signature algorithm";
    case GOSTX_X509_BAD_SIGNATURE: return "signature: the certificate's signature does not verify";
    case GOSTX_X509_NOT_YET_VALID: return "validity: certificate is not yet valid";
    case GOSTX_X509_EXPIRED: return "validity: certificate has expired";
    case GOSTX_X509_UNKNOWN_CA: return "issuer: no trusted issuer found (unknown CA)";
    case GOSTX_X509_NOT_CA: return "basicConstraints: the issuer is not a CA";
    case GOSTX_X509_PATH_LEN: return "pathLenConstraint: path length constraint exceeded";
    case GOSTX_X509_KEY_USAGE: return "keyUsage: the key usage does not allow this use";
    case GOSTX_X509_EXT_KEY_USAGE: return "extendedKeyUsage: the certificate is not for this purpose";
    case GOSTX_X509_NAME_MISMATCH: return "subjectAltName: hostname or IP address mismatch";
    case GOSTX_X509_CRITICAL_EXT: return "extensions: unhandled critical extension";
    case GOSTX_X509_BAD_KEY: return "subjectPublicKeyInfo: the public key is not a valid point";
    case GOSTX_X509_NAME_CONSTRAINTS:
      return "name constraints: a name outside the permitted or inside the excluded subtrees";
    case GOSTX_X509_POLICY: return "policies: no valid certificate policy where one is required";
    case GOSTX_X509_PATH_TOO_LONG:
      return "path length limit: no path within " GOSTX__X509_MAX_DEPTH_TEXT " certificates";
    case GOSTX_X509_BAD_EXTENSION:
      return "extensions: an extension's value is not what RFC 5280 section 4.2 defines (not its "
             "syntax in DER, out of range, empty, or the extension repeated)";
    case GOSTX_X509_BAD_VERSION:
      return "version: a field this version has not (extensions before v3, unique IDs in v1)";
    case GOSTX_X509_SIG_ALG_MISMATCH:
      return "signatureAlgorithm: the signed algorithm (tbsCertificate.signature) and the outer "
             "signatureAlgorithm differ (RFC 5280 4.1.1.2)";
    case GOSTX_X509_PROFILE:
      return "profile: the certificate breaks a rule of RFC 5280's profile (a MUST of section 4)";
    case GOSTX_X509_EMAIL_MISMATCH: return "subjectAltName: email address mismatch";
    case GOSTX_X509_REVOKED: return "revocation: certificate revoked";
    case GOSTX_X509_CRL_UNAVAILABLE:
      return "revocation: unable to get certificate CRL (no CRL of the issuer: no revocation data)";
    case GOSTX_X509_CRL_SCOPE:
      return "revocation: status unknown (the issuer's CRLs do not cover the certificate: "
             "issuingDistributionPoint scope or reasons)";
    case GOSTX_X509_CRL_EXPIRED: return "revocation: CRL has expired (nextUpdate passed: stale data)";
    case GOSTX_X509_CRL_BAD_SIGNATURE: return "revocation: CRL signature failure";
    case GOSTX_X509_CRL_WRONG_ISSUER:
      return "revocation: the CRL is from the wrong issuer (another name or key)";
    case GOSTX_X509_CRL_CRITICAL_EXT: return "revocation: unhandled critical CRL extension";
    case GOSTX_X509_CRL_MALFORMED: return "crl: not a DER CRL";
    case GOSTX_X509_CRL_DELTA: return "crl: delta CRLs are not supported";
    case GOSTX_X509_CRL_INDIRECT: return "crl: indirect CRLs are not supported";
    case GOSTX_X509_OCSP_UNKNOWN: return "revocation: status unknown (the OCSP responder answered unknown)";
    case GOSTX_X509_OCSP_INVALID: return "revocation: the OCSP response for the certificate fails its checks";
    case GOSTX_X509_OCSP_STALE: return "revocation: the OCSP response is stale (nextUpdate passed)";
    case GOSTX_X509_NO_REVOCATION_DATA:
      return "revocation: no revocation data (no CRL of the issuer, no OCSP response for the certificate)";
    case GOSTX_X509_CRL_NO_NUMBER:
      return "revocation: the CRL has no cRLNumber (RFC 5280 5.2.3): not used";
    case GOSTX_X509_CRL_NUMBER_CRITICAL:
      return "revocation: the CRL's cRLNumber is marked critical (RFC 5280 5.2.3): not used";
  }
  return "unknown status";
}

/* The extnValue (its content) of the extension oid[len] of a parsed
 * certificate: 1, or 0 when it has none. */
int gostx__x509_cert_ext(const gostx_x509_cert *c, const uint8_t *oid, size_t oid_len,
                         gostx__der *value) {
  gostx__der tbs = {c->tbs, c->tbs_len}, body, seq, el;
  uint8_t tag;
  if (gostx__der_get(&tbs, GOSTX__DER_SEQ, &body, NULL)) return 0;
  while (body.n && !gostx__der_next(&body, &tag, &el, NULL)) {
    if (tag != GOSTX__DER_CTXC(3) || gostx__der_get(&el, GOSTX__DER_SEQ, &seq, NULL)) continue;
    while (seq.n) {
      gostx__der ext, id;
      int critical;
      if (gostx__der_get(&seq, GOSTX__DER_SEQ, &ext, NULL) || gostx__der_oid(&ext, &id)) return 0;
      if (gostx__der_peek(&ext, GOSTX__DER_BOOL) && gostx__der_bool(&ext, &critical)) return 0;
      if (gostx__der_oid_is(id, oid, oid_len))
        return !gostx__der_get(&ext, GOSTX__DER_OCTETS, value, NULL);
    }
  }
  return 0;
}

/* A GOST R 34.10-2001 SubjectPublicKeyInfo (RFC 4491 section 2.3.1): the
 * parameter set, the GOST R 34.11-94 CryptoPro digest set, an optional
 * cipher set, then BIT STRING { OCTET STRING x || y, little-endian }.
 * The 2012 keys are lib/gost3410's (keys.c), which refuses this algorithm. */
static int get_key_2001(gostx__der alg, gostx__der bits, gostx_x509_cert *c, gostx_x509_status *st) {
  gostx__der params, ps, dg, cipher, point;
  char text[48];
  if (gostx__der_get(&alg, GOSTX__DER_SEQ, &params, NULL) || alg.n || gostx__der_oid(&params, &ps) ||
      gostx__der_oid(&params, &dg) || (params.n && gostx__der_oid(&params, &cipher)) || params.n)
    return GOSTX_EFORMAT;
  gostx__der_oid_text(ps, text, sizeof text);
  int curve = gostx_gost3410_curve_by_name(text);
  if (curve < 0 || gostx_gost3410_size((gostx_gost3410_curve)curve) != 32 ||
      !GOSTX__DER_OID_IS(dg, OID_GOST94_CRYPTOPRO))
    return *st = GOSTX_X509_UNSUPPORTED, GOSTX_EFORMAT;
  if (bits.n < 1 || bits.p[0] != 0) return GOSTX_EFORMAT;
  bits.p++, bits.n--;
  if (gostx__der_get(&bits, GOSTX__DER_OCTETS, &point, NULL) || bits.n || point.n != 64)
    return GOSTX_EFORMAT;
  for (size_t i = 0; i < 32; i++) {
    c->pub[i] = point.p[31 - i];
    c->pub[32 + i] = point.p[63 - i];
  }
  c->curve = (gostx_gost3410_curve)curve;
  c->pub_len = 64;
  c->key_alg = GOSTX_X509_KEY_2001;
  if (gostx_gost3410_check_public_key(c->curve, c->pub, 64))
    return *st = GOSTX_X509_BAD_KEY, GOSTX_EFORMAT;
  return 0;
}

static int get_spki(gostx__der *r, gostx_x509_cert *c, gostx_x509_status *st) {
  gostx__der whole, body, alg, algw, oid, bits;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &body, &whole)) return GOSTX_EFORMAT;
  c->spki = whole.p;
  c->spki_len = whole.n;
  if (gostx__der_get(&body, GOSTX__DER_SEQ, &alg, &algw) || gostx__der_oid(&alg, &oid) ||
      gostx__der_get(&body, GOSTX__DER_BITS, &bits, NULL) || body.n)
    return GOSTX_EFORMAT;
  if (GOSTX__DER_OID_IS(oid, OID_KEY_2001)) return get_key_2001(alg, bits, c, st);
  if (!GOSTX__DER_OID_IS(oid, OID_KEY_2012_256) && !GOSTX__DER_OID_IS(oid, OID_KEY_2012_512))
    return *st = GOSTX_X509_UNSUPPORTED, GOSTX_EFORMAT;
  gostx_gost3410_key key;
  int rc = gostx_gost3410_key_read(&key, whole.p, whole.n, NULL, 0);
  if (rc == GOSTX_EINVAL) return *st = GOSTX_X509_BAD_KEY, GOSTX_EFORMAT;
  if (rc == GOSTX_EUNSUP) return *st = GOSTX_X509_UNSUPPORTED, GOSTX_EFORMAT;
  if (rc || key.has_private) return GOSTX_EFORMAT;
  c->curve = key.curve;
  c->pub_len = 2 * key.len;
  memcpy(c->pub, key.q, c->pub_len);
  c->key_alg = key.len == 32 ? GOSTX_X509_KEY_2012_256 : GOSTX_X509_KEY_2012_512;
  return 0;
}

/* A Name: SEQUENCE OF SET OF SEQUENCE { OID, value } (the values any
 * single element). */
int gostx__x509_check_name(gostx__der name) {
  while (name.n) {
    gostx__der rdn, atv, oid;
    uint8_t tag;
    if (gostx__der_get(&name, GOSTX__DER_SET, &rdn, NULL) || !rdn.n) return GOSTX_EFORMAT;
    while (rdn.n) {
      if (gostx__der_get(&rdn, GOSTX__DER_SEQ, &atv, NULL) || gostx__der_oid(&atv, &oid) ||
          gostx__der_next(&atv, &tag, NULL, NULL) || atv.n)
        return GOSTX_EFORMAT;
    }
  }
  return 0;
}

static int get_name(gostx__der *r, const uint8_t **p, size_t *n) {
  gostx__der body, whole;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &body, &whole) || gostx__x509_check_name(body)) return GOSTX_EFORMAT;
  *p = whole.p;
  *n = whole.n;
  return 0;
}

/* keyUsage: a BIT STRING, bit 0 the first (most significant) bit; the
 * unused bits zero, as DER wants. */
static int ext_key_usage(gostx__der v, gostx_x509_cert *c) {
  gostx__der bits;
  if (gostx__der_get(&v, GOSTX__DER_BITS, &bits, NULL) || v.n || bits.n < 1 || bits.p[0] > 7 ||
      bits.n > 3 || (bits.n == 1 && bits.p[0]))
    return GOSTX_EFORMAT;
  unsigned ku = 0;
  for (size_t i = 1; i < bits.n; i++)
    for (int b = 0; b < 8; b++)
      if (bits.p[i] & (0x80 >> b)) ku |= 1u << (8 * (i - 1) + (size_t)b);
  if (bits.n > 1 && (bits.p[bits.n - 1] & ((1u << bits.p[0]) - 1))) return GOSTX_EFORMAT;
  c->key_usage = ku;
  return 0;
}

static int ext_basic(gostx__der v, gostx_x509_cert *c) {
  gostx__der seq;
  int ca = 0, len = -1;
  if (gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || v.n) return GOSTX_EFORMAT;
  if (gostx__der_peek(&seq, GOSTX__DER_BOOL)) {
    if (gostx__der_bool(&seq, &ca) || !ca) return GOSTX_EFORMAT; /* DER: FALSE is absent */
  }
  if (seq.n && (gostx__der_small_uint(&seq, &len) || seq.n)) return GOSTX_EFORMAT;
  c->is_ca = ca;
  c->path_len = len;
  return 0;
}

/* The purpose's GOSTX_X509_EKU_* bit (an OID holds NUL bytes: lengths kept). */
static unsigned eku_bit(gostx__der oid) {
#define KP(oid, bit) {oid, sizeof oid - 1, bit}
  static const struct {
    const char *oid;
    size_t len;
    unsigned bit;
  } named[] = {
      KP(OID_EKU_SERVER, GOSTX_X509_EKU_SERVER), KP(OID_EKU_CLIENT, GOSTX_X509_EKU_CLIENT),
      KP(OID_EKU_ANY, GOSTX_X509_EKU_ANY),       KP(OID_EKU_IPSEC_IKE, GOSTX_X509_EKU_IPSEC_IKE),
      KP(OID_EKU_EMAIL, GOSTX_X509_EKU_EMAIL),   KP(OID_EKU_CODE, GOSTX_X509_EKU_CODE),
      KP(OID_EKU_TIMESTAMP, GOSTX_X509_EKU_TIMESTAMP),
  };
#undef KP
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
    if (gostx__der_oid_is(oid, (const uint8_t *)named[i].oid, named[i].len)) return named[i].bit;
  return GOSTX_X509_EKU_OTHER;
}

static int ext_eku(gostx__der v, gostx_x509_cert *c) {
  gostx__der seq, oid;
  unsigned eku = 0;
  if (gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || v.n || !seq.n) return GOSTX_EFORMAT;
  while (seq.n) {
    if (gostx__der_oid(&seq, &oid)) return GOSTX_EFORMAT;
    eku |= eku_bit(oid);
  }
  c->ext_key_usage = eku;
  return 0;
}

/* IA5String text as RFC 5280 uses it in names: printable ASCII. */
static int printable_ascii(gostx__der v) {
  for (size_t i = 0; i < v.n; i++)
    if (v.p[i] < 0x20 || v.p[i] > 0x7e) return 0;
  return 1;
}

/* One GeneralName's value checked where gostx reads it: rfc822Name and
 * dNSName printable ASCII (a dNSName also without spaces), iPAddress
 * ip_len or 2 * ip_len / 4 bytes (an address; a constraint's address and
 * mask), directoryName one Name; the other forms only as elements. */
static int check_general_name(uint8_t tag, gostx__der v, size_t ip_v4) {
  if ((tag & 0xc0) != 0x80) return GOSTX_EFORMAT;
  if (tag == SAN_IP && v.n != ip_v4 && v.n != 4 * ip_v4) return GOSTX_EFORMAT;
  if ((tag == SAN_DNS || tag == SAN_EMAIL) && !printable_ascii(v)) return GOSTX_EFORMAT;
  if (tag == SAN_DNS && memchr(v.p, ' ', v.n)) return GOSTX_EFORMAT;
  if (tag == SAN_DIR) {
    gostx__der name;
    if (gostx__der_get(&v, GOSTX__DER_SEQ, &name, NULL) || v.n || gostx__x509_check_name(name))
      return GOSTX_EFORMAT;
  }
  return 0;
}

/* subjectAltName: GeneralNames, at least one (RFC 5280 4.2.1.6). */
static int ext_san(gostx__der v, gostx_x509_cert *c) {
  gostx__der seq, name;
  uint8_t tag;
  if (gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || v.n || !seq.n) return GOSTX_EFORMAT;
  c->san = seq.p;
  c->san_len = seq.n;
  while (seq.n)
    if (gostx__der_next(&seq, &tag, &name, NULL) || check_general_name(tag, name, 4))
      return GOSTX_EFORMAT;
  return 0;
}

/* GeneralSubtrees: at least one GeneralSubtree, each only its base: the
 * minimum MUST be 0 (so absent in DER) and the maximum absent (4.2.1.10). */
static int check_subtrees(gostx__der trees) {
  if (!trees.n) return GOSTX_EFORMAT;
  while (trees.n) {
    gostx__der tree, base;
    uint8_t tag;
    if (gostx__der_get(&trees, GOSTX__DER_SEQ, &tree, NULL) ||
        gostx__der_next(&tree, &tag, &base, NULL) || tree.n || check_general_name(tag, base, 8))
      return GOSTX_EFORMAT;
  }
  return 0;
}

/* nameConstraints (4.2.1.10): permitted [0], excluded [1], not both absent. */
static int ext_name_constraints(gostx__der v, gostx_x509_cert *c) {
  gostx__der seq, trees;
  if (gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || v.n || !seq.n) return GOSTX_EFORMAT;
  c->name_constraints = seq.p;
  c->name_constraints_len = seq.n;
  if (gostx__der_peek(&seq, GOSTX__DER_CTXC(0)) &&
      (gostx__der_get(&seq, GOSTX__DER_CTXC(0), &trees, NULL) || check_subtrees(trees)))
    return GOSTX_EFORMAT;
  if (seq.n && (gostx__der_get(&seq, GOSTX__DER_CTXC(1), &trees, NULL) || check_subtrees(trees) ||
                seq.n))
    return GOSTX_EFORMAT;
  return 0;
}

/* PolicyQualifiers: at least one SEQUENCE { OID, one element }. */
static int check_qualifiers(gostx__der quals) {
  gostx__der qual, qid;
  uint8_t tag;
  if (!quals.n) return GOSTX_EFORMAT;
  while (quals.n)
    if (gostx__der_get(&quals, GOSTX__DER_SEQ, &qual, NULL) || gostx__der_oid(&qual, &qid) ||
        gostx__der_next(&qual, &tag, NULL, NULL) || qual.n)
      return GOSTX_EFORMAT;
  return 0;
}

/* How many PolicyInformation of the (checked) list have this OID. */
static size_t policy_count(gostx__der list, gostx__der oid) {
  size_t n = 0;
  gostx__der info, id;
  while (!gostx__der_get(&list, GOSTX__DER_SEQ, &info, NULL) && !gostx__der_oid(&info, &id))
    n += gostx__der_oid_is(id, oid.p, oid.n);
  return n;
}

/* certificatePolicies (4.2.1.4): PolicyInformation { OID, qualifiers
 * OPTIONAL }, at least one, each OID once. */
static int ext_policies(gostx__der v, gostx_x509_cert *c) {
  gostx__der seq, info, oid, quals;
  if (gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || v.n || !seq.n) return GOSTX_EFORMAT;
  c->policies = seq.p;
  c->policies_len = seq.n;
  for (gostx__der r = seq; r.n;) {
    if (gostx__der_get(&r, GOSTX__DER_SEQ, &info, NULL) || gostx__der_oid(&info, &oid))
      return GOSTX_EFORMAT;
    if (info.n && (gostx__der_get(&info, GOSTX__DER_SEQ, &quals, NULL) || info.n ||
                   check_qualifiers(quals)))
      return GOSTX_EFORMAT;
  }
  for (gostx__der r = seq; r.n;) {
    (void)gostx__der_get(&r, GOSTX__DER_SEQ, &info, NULL); /* checked above */
    (void)gostx__der_oid(&info, &oid);
    if (policy_count(seq, oid) != 1) return GOSTX_EFORMAT;
  }
  return 0;
}

/* policyMappings (4.2.1.5): pairs of OIDs, at least one. */
static int ext_policy_mappings(gostx__der v, gostx_x509_cert *c) {
  gostx__der seq, pair, a, b;
  if (gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || v.n || !seq.n) return GOSTX_EFORMAT;
  c->policy_mappings = seq.p;
  c->policy_mappings_len = seq.n;
  while (seq.n)
    if (gostx__der_get(&seq, GOSTX__DER_SEQ, &pair, NULL) || gostx__der_oid(&pair, &a) ||
        gostx__der_oid(&pair, &b) || pair.n)
      return GOSTX_EFORMAT;
  return 0;
}

/* policyConstraints (4.2.1.11): requireExplicitPolicy [0],
 * inhibitPolicyMapping [1], not both absent. */
static int ext_policy_constraints(gostx__der v, gostx_x509_cert *c) {
  gostx__der seq;
  if (gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL) || v.n || !seq.n) return GOSTX_EFORMAT;
  if (gostx__der_peek(&seq, GOSTX__DER_CTX(0)) &&
      gostx__der_small_uint_tagged(&seq, GOSTX__DER_CTX(0), &c->require_explicit_policy))
    return GOSTX_EFORMAT;
  if (seq.n && (gostx__der_small_uint_tagged(&seq, GOSTX__DER_CTX(1), &c->inhibit_policy_mapping) ||
                seq.n))
    return GOSTX_EFORMAT;
  return 0;
}

/* inhibitAnyPolicy (4.2.1.14): SkipCerts. */
static int ext_inhibit_any(gostx__der v, gostx_x509_cert *c) {
  if (gostx__der_small_uint(&v, &c->inhibit_any_policy) || v.n) return GOSTX_EFORMAT;
  return 0;
}

/* The extensions gostx processes: any other one is refused when critical. */
static const struct {
  const char *oid;
  size_t len;
  int (*parse)(gostx__der v, gostx_x509_cert *c);
} known_ext[] = {
#define EXT(oid, parse) {oid, sizeof oid - 1, parse}
    EXT(OID_EXT_BASIC, ext_basic),
    EXT(OID_EXT_KEY_USAGE, ext_key_usage),
    EXT(OID_EXT_EKU, ext_eku),
    EXT(OID_EXT_SAN, ext_san),
    EXT(OID_EXT_NAME_CONSTRAINTS, ext_name_constraints),
    EXT(OID_EXT_POLICIES, ext_policies),
    EXT(OID_EXT_POLICY_MAPPINGS, ext_policy_mappings),
    EXT(OID_EXT_POLICY_CONSTRAINTS, ext_policy_constraints),
    EXT(OID_EXT_INHIBIT_ANY, ext_inhibit_any),
#undef EXT
};

/* Extensions: each at most once (RFC 5280 section 4.2); critical written
 * only when TRUE (DER's DEFAULT rule). Every extension OID seen is kept
 * once, so a repeated unknown one is refused too. A value that is not
 * what its extension defines is BAD_EXTENSION: the DER around it was fine. */
static int get_extensions(gostx__der exts, gostx_x509_cert *c, gostx_x509_status *st) {
  gostx__der seen[64];
  size_t n_seen = 0;
  gostx__der seq;
  if (gostx__der_get(&exts, GOSTX__DER_SEQ, &seq, NULL) || exts.n || !seq.n) return GOSTX_EFORMAT;
  while (seq.n) {
    gostx__der ext, oid, value;
    int critical = 0;
    if (gostx__der_get(&seq, GOSTX__DER_SEQ, &ext, NULL) || gostx__der_oid(&ext, &oid))
      return GOSTX_EFORMAT;
    if (gostx__der_peek(&ext, GOSTX__DER_BOOL) && (gostx__der_bool(&ext, &critical) || !critical))
      return GOSTX_EFORMAT;
    if (gostx__der_get(&ext, GOSTX__DER_OCTETS, &value, NULL) || ext.n) return GOSTX_EFORMAT;
    *st = GOSTX_X509_BAD_EXTENSION;
    if (n_seen == sizeof seen / sizeof seen[0]) return GOSTX_EFORMAT;
    for (size_t i = 0; i < n_seen; i++)
      if (gostx__der_oid_is(seen[i], oid.p, oid.n)) return GOSTX_EFORMAT;
    seen[n_seen++] = oid;
    size_t k = 0;
    while (k < sizeof known_ext / sizeof known_ext[0] &&
           !gostx__der_oid_is(oid, (const uint8_t *)known_ext[k].oid, known_ext[k].len))
      k++;
    if (k == sizeof known_ext / sizeof known_ext[0])
      c->unknown_critical |= critical;
    else if (known_ext[k].parse(value, c))
      return GOSTX_EFORMAT;
    else if (critical && known_ext[k].parse == ext_eku) /* timestampsign asks it critical */
      c->ext_key_usage |= GOSTX_X509_EKU_CRITICAL;
    *st = GOSTX_X509_MALFORMED;
  }
  return 0;
}

/* The TBSCertificate's fields in order (RFC 5280 section 4.1), into the
 * gostx_x509_cert obj (a gostx__x509_tbs_reader). */
static int get_tbs(gostx__der tbs, void *obj, gostx__der *sig_alg_inner, gostx_x509_status *st) {
  gostx_x509_cert *c = obj;
  gostx__der ver, serial, valid;
  c->version = 1;
  if (gostx__der_peek(&tbs, GOSTX__DER_CTXC(0))) {
    int v;
    /* DER leaves DEFAULT v1 out, so a present version is v2 or v3 */
    if (gostx__der_get(&tbs, GOSTX__DER_CTXC(0), &ver, NULL) || gostx__der_small_uint(&ver, &v) ||
        ver.n || v < 1 || v > 2)
      return GOSTX_EFORMAT;
    c->version = v + 1;
  }
  if (gostx__der_get(&tbs, GOSTX__DER_INT, &serial, NULL) || serial.n > 21 || !gostx__der_int_minimal(serial))
    return GOSTX_EFORMAT;
  c->serial = serial.p;
  c->serial_len = serial.n;
  gostx__der inner_whole, probe = tbs;
  if (gostx__der_get(&probe, GOSTX__DER_SEQ, NULL, &inner_whole)) return GOSTX_EFORMAT;
  *sig_alg_inner = inner_whole;
  if (gostx__x509_sig_alg(&tbs, &c->sig_alg, st) || get_name(&tbs, &c->issuer, &c->issuer_len))
    return GOSTX_EFORMAT;
  if (gostx__der_get(&tbs, GOSTX__DER_SEQ, &valid, NULL) ||
      gostx__der_time(&valid, &c->not_before) || gostx__der_time(&valid, &c->not_after) || valid.n)
    return GOSTX_EFORMAT;
  if (get_name(&tbs, &c->subject, &c->subject_len) || get_spki(&tbs, c, st)) return GOSTX_EFORMAT;
  /* issuerUniqueID [1], subjectUniqueID [2]: v2 and v3 only; not used.
   * Extensions [3]: v3 only (4.1.2.1). A field in the wrong version is
   * DER, and so is named as a version error. */
  for (int k = 1; k <= 2; k++) {
    if (!gostx__der_peek(&tbs, (uint8_t)GOSTX__DER_CTX(k))) continue;
    if (c->version < 2) return *st = GOSTX_X509_BAD_VERSION, GOSTX_EFORMAT;
    if (gostx__der_get(&tbs, (uint8_t)GOSTX__DER_CTX(k), &ver, NULL)) return GOSTX_EFORMAT;
  }
  if (tbs.n) {
    gostx__der exts, probe2 = tbs;
    if (gostx__der_get(&probe2, GOSTX__DER_CTXC(3), &exts, NULL) || probe2.n) return GOSTX_EFORMAT;
    if (c->version != 3) return *st = GOSTX_X509_BAD_VERSION, GOSTX_EFORMAT;
    if (get_extensions(exts, c, st)) return GOSTX_EFORMAT;
  }
  return 0;
}

int gostx_x509_parse(const uint8_t *der, size_t der_len, gostx_x509_cert *out,
                     gostx_x509_status *st) {
  gostx_x509_cert c;
  memset(&c, 0, sizeof c);
  c.path_len = -1;
  c.key_usage = ~0u;
  c.ext_key_usage = ~0u;
  c.require_explicit_policy = c.inhibit_policy_mapping = c.inhibit_any_policy = -1;
  gostx__x509_signed d = GOSTX__X509_SIGNED(c, get_tbs, GOSTX_X509_MALFORMED);
  return gostx__x509_signed_parse(der, der_len, &d, out, st);
}

int gostx_x509_pem_next(const char *pem, size_t pem_len, size_t *pos, uint8_t *der, size_t cap,
                        size_t *der_len) {
  return gostx__pem_block(pem, pem_len, pos, "CERTIFICATE", der, cap, der_len);
}

int gostx_x509_san_next(const gostx_x509_cert *cert, size_t *pos, int *type,
                        const uint8_t **value, size_t *len) {
  if (!cert || !pos || !type || !value || !len) return GOSTX_EINVAL;
  if (!cert->san || *pos >= cert->san_len) return 0;
  gostx__der r = {cert->san + *pos, cert->san_len - *pos}, v;
  uint8_t tag;
  if (gostx__der_next(&r, &tag, &v, NULL)) return GOSTX_EFORMAT; /* not from gostx_x509_parse */
  *type = tag & 0x1f;
  *value = v.p;
  *len = v.n;
  *pos = cert->san_len - r.n;
  return 1;
}

static const struct {
  const char *oid, *name;
} attr_names[] = {
    {"\x55\x04\x03", "CN"},  {"\x55\x04\x06", "C"},  {"\x55\x04\x07", "L"},
    {"\x55\x04\x08", "ST"},  {"\x55\x04\x0a", "O"},  {"\x55\x04\x0b", "OU"},
    {"\x55\x04\x05", "serialNumber"}, {"\x55\x04\x09", "street"},
    {"\x2a\x86\x48\x86\xf7\x0d\x01\x09\x01", "emailAddress"},
    {"\x2a\x85\x03\x03\x81\x03\x01\x01", "INN"}, {"\x2a\x85\x03\x64\x01", "OGRN"},
    {"\x2a\x85\x03\x64\x03", "SNILS"}, {"\x2a\x85\x03\x64\x05", "OGRNIP"},
};

typedef struct text_out {
  char *p;
  size_t cap, n;
} text_out;

static void put(text_out *o, const char *s, size_t len) {
  for (size_t i = 0; i < len && o->n + 1 < o->cap; i++) o->p[o->n++] = s[i];
  o->p[o->n] = 0;
}

static void put_escaped(text_out *o, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char esc[5];
    snprintf(esc, sizeof esc, "\\x%02x", p[i]);
    put(o, esc, 4);
  }
}

static void put_utf8(text_out *o, uint32_t cp) {
  char u[4];
  size_t k = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  static const uint8_t lead[5] = {0, 0, 0xc0, 0xe0, 0xf0};
  for (size_t i = k - 1; i > 0; i--, cp >>= 6) u[i] = (char)(0x80 | (cp & 0x3f));
  u[0] = (char)(lead[k] | cp);
  put(o, u, k);
}

/* BMPString (UCS-2, width 2: X.680 has no surrogate pairs in it) and
 * UniversalString (UCS-4, width 4), as CryptoPro writes names, shown as
 * UTF-8. A control or backslash is escaped as the byte strings' are; what
 * UTF-8 cannot say (a surrogate, beyond U+10FFFF, a partial last
 * character) is escaped byte by byte, so nothing is hidden. */
static void put_wide(text_out *o, gostx__der v, size_t width) {
  while (v.n) {
    size_t k = v.n < width ? v.n : width;
    uint32_t cp = 0;
    for (size_t i = 0; i < k; i++) cp = cp << 8 | v.p[i];
    if (k < width || (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff) {
      put_escaped(o, v.p, k);
    } else if (cp < 0xa0 && !(cp >= 0x20 && cp < 0x7f && cp != '\\')) {
      uint8_t ch = (uint8_t)cp;
      put_escaped(o, &ch, 1);
    } else {
      put_utf8(o, cp);
    }
    v.p += k;
    v.n -= k;
  }
}

int gostx_x509_name_text(const uint8_t *name, size_t name_len, char *text, size_t cap) {
  if (!name || !text || !cap) return GOSTX_EINVAL;
  text_out o = {text, cap, 0};
  text[0] = 0;
  gostx__der r = {name, name_len}, seq;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &seq, NULL) || r.n || gostx__x509_check_name(seq)) return GOSTX_EFORMAT;
  int first = 1;
  while (seq.n) {
    gostx__der rdn, atv, oid, value;
    uint8_t tag;
    (void)gostx__der_get(&seq, GOSTX__DER_SET, &rdn, NULL); /* checked above */
    while (rdn.n) {
      (void)gostx__der_get(&rdn, GOSTX__DER_SEQ, &atv, NULL);
      (void)gostx__der_oid(&atv, &oid);
      (void)gostx__der_next(&atv, &tag, &value, NULL);
      if (!first) put(&o, ", ", 2);
      first = 0;
      const char *an = NULL;
      for (size_t k = 0; k < sizeof attr_names / sizeof attr_names[0]; k++)
        if (gostx__der_oid_is(oid, (const uint8_t *)attr_names[k].oid, strlen(attr_names[k].oid)))
          an = attr_names[k].name;
      char buf[64];
      if (!an) gostx__der_oid_text(oid, buf, sizeof buf), an = buf;
      put(&o, an, strlen(an));
      put(&o, "=", 1);
      if (tag == 0x1e || tag == 0x1c) {
        put_wide(&o, value, tag == 0x1e ? 2 : 4);
        continue;
      }
      for (size_t i = 0; i < value.n; i++) {
        uint8_t ch = value.p[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
          put(&o, (const char *)&ch, 1);
        } else if (ch >= 0x80 && tag == 0x0c &&
                   !(ch == 0xc2 && i + 1 < value.n && value.p[i + 1] < 0xa0) &&
                   !(ch < 0xa0 && i > 0 && value.p[i - 1] == 0xc2)) {
          put(&o, (const char *)&ch, 1); /* UTF8String as it is, but no C1 control */
        } else {
          put_escaped(&o, &ch, 1);
        }
      }
    }
  }
  return 0;
}
