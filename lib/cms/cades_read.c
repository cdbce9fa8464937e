/* CAdES-C / X attributes read (RFC 5126 6.2, 6.3; Annex A's module has
 * EXPLICIT TAGS): the references, the values, the timestamps' tokens; and
 * where an OCSPResponse holds its BasicOCSPResponse (lib/x509 reads both,
 * RFC 6960 4.2.1). All public data. */
#include "cms/cades_internal.h"
#include "sha1/sha1.h"

const char *gostx_cades_status_name(gostx_cades_status st) {
  switch (st) {
    case GOSTX_CADES_OK: return "ok";
    case GOSTX_CADES_MALFORMED: return "CAdES: an attribute is not the DER RFC 5126 gives";
    case GOSTX_CADES_DUPLICATE: return "CAdES: an attribute allowed once is there twice";
    case GOSTX_CADES_TOO_MANY: return "CAdES: more references, values or timestamps than gostx reads";
    case GOSTX_CADES_UNKNOWN_HASH:
      return "CAdES: a reference's hash is none of SHA-1, Streebog-256, Streebog-512";
    case GOSTX_CADES_NO_SIGNATURE_TIMESTAMP:
      return "CAdES: validation data without a signature-time-stamp (not CAdES-T)";
    case GOSTX_CADES_NO_REFERENCES:
      return "CAdES: values or an ES-C timestamp without the complete references";
    case GOSTX_CADES_REFS_COUNT:
      return "complete-revocation-references: not one per certificate reference plus the signer's";
    case GOSTX_CADES_CERT_WITHOUT_VALUE:
      return "complete-certificate-references: a reference without a certificate value";
    case GOSTX_CADES_CERT_HASH_MISMATCH:
      return "complete-certificate-references: the certificate's hash does not match";
    case GOSTX_CADES_REV_WITHOUT_VALUE:
      return "complete-revocation-references: a reference without a revocation value";
    case GOSTX_CADES_REV_HASH_MISMATCH:
      return "complete-revocation-references: the CRL's or OCSP response's hash does not match";
    case GOSTX_CADES_SIGNATURE_TIMESTAMP: return "signature-time-stamp: the timestamp fails";
    case GOSTX_CADES_ESC_TIMESTAMP: return "CAdES-C-time-stamp: the timestamp fails";
    case GOSTX_CADES_TIME_ORDER:
      return "CAdES-C-time-stamp: older than the signature-time-stamp";
    case GOSTX_CADES_BAD_CRL: return "CAdES: a CRL given or carried is not one lib/x509 reads";
    case GOSTX_CADES_BAD_OCSP:
      return "CAdES: an OCSP response given or carried is not a successful one lib/x509 reads";
    case GOSTX_CADES_BAD_CERT: return "CAdES: a certificate given does not parse";
    case GOSTX_CADES_TIMESTAMPED:
      return "CAdES: the signature-time-stamps are covered by a CAdES-C-time-stamp: none is added or changed";
    case GOSTX_CADES_OTHER_TOKEN:
      return "CAdES: the new token is not the old one with unsigned attributes added";
    case GOSTX_CADES_TSA_PATH: return "CAdES: a timestamp's TSA certificate fails at the token's time";
    case GOSTX_CADES_CERT_REF_MISMATCH:
      return "complete-certificate-references: the certificate of that hash is not the one issuerSerial names";
    case GOSTX_CADES_REV_REF_MISMATCH:
      return "complete-revocation-references: the CRL or OCSP response of that hash is not the one the "
             "reference names (issuer, time, CRL number or responder differ)";
  }
  return "unknown status";
}

const char *gostx_cades_level_name(gostx_cades_level l) {
  switch (l) {
    case GOSTX_CADES_BES: return "CAdES-BES";
    case GOSTX_CADES_T: return "CAdES-T";
    case GOSTX_CADES_C: return "CAdES-C";
    case GOSTX_CADES_X_LONG: return "CAdES-X Long";
    case GOSTX_CADES_X_TYPE1: return "CAdES-X Type 1";
    case GOSTX_CADES_X_LONG_TYPE1: return "CAdES-X Long Type 1";
  }
  return "unknown level";
}

/* ---- OCSP responses (read by lib/x509) ---- */

/* OCSPResponse { responseStatus ENUMERATED, responseBytes [0] { SEQUENCE {
 * responseType, response OCTET STRING } } }, or the BasicOCSPResponse itself
 * (it starts with a SEQUENCE, the outer one with an ENUMERATED): lib/x509
 * reads and judges it; only the BasicOCSPResponse's place is found here. */
int gostx__cades_read_ocsp(const uint8_t *der, size_t len, gostx__cades_ocsp *o) {
  gostx__der r = {der, len}, outer, bytes, rb;
  memset(o, 0, sizeof *o);
  if (gostx_ocsp_response_parse(der, len, &o->r) || o->r.status != GOSTX_OCSP_RESP_SUCCESSFUL)
    return GOSTX_EFORMAT;
  o->basic = r;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &outer, NULL) || !gostx__der_peek(&outer, 0x0a)) return 0;
  if (gostx__der_get(&outer, 0x0a, NULL, NULL) || gostx__der_get(&outer, GOSTX__DER_CTXC(0), &bytes, NULL) ||
      gostx__der_get(&bytes, GOSTX__DER_SEQ, &rb, NULL) || gostx__der_get(&rb, GOSTX__DER_OID, NULL, NULL) ||
      gostx__der_get(&rb, GOSTX__DER_OCTETS, &o->basic, NULL))
    return GOSTX_EFORMAT;
  return 0;
}

int gostx__cades_ocsp_covers(const gostx__cades_ocsp *o, const gostx_x509_cert *cert) {
  static const size_t sizes[] = {[GOSTX_OCSP_SHA1] = 20, [GOSTX_OCSP_STREEBOG256] = 32,
                                 [GOSTX_OCSP_STREEBOG512] = 64};
  gostx_ocsp_single s;
  size_t pos = 0;
  uint8_t h[64];
  while (gostx_ocsp_single_next(&o->r, &pos, &s)) {
    size_t n = s.id.hash > 0 && s.id.hash <= GOSTX_OCSP_STREEBOG512 ? sizes[s.id.hash] : 0;
    if (!n || s.id.serial_len != cert->serial_len || memcmp(s.id.serial, cert->serial, cert->serial_len) ||
        s.id.hash_len != n)
      continue;
    if (n == 20) gostx__sha1(cert->issuer, cert->issuer_len, h);
    else gostx_streebog(n, cert->issuer, cert->issuer_len, h);
    if (memcmp(s.id.name_hash, h, n) == 0) return 1;
  }
  return 0;
}

/* ---- hashes ---- */

/* OtherHash ::= CHOICE { sha1Hash OCTET STRING, otherHash SEQUENCE {
 * hashAlgorithm, hashValue OCTET STRING } } */
int gostx__cades_read_hash(gostx__der *r, gostx_cades_hash *h) {
  gostx__der seq, oid, value;
  memset(h, 0, sizeof *h);
  if (gostx__der_peek(r, GOSTX__DER_OCTETS)) {
    if (gostx__der_get(r, GOSTX__DER_OCTETS, &value, NULL)) return GOSTX_EFORMAT;
    h->alg = 20;
  } else {
    if (gostx__der_get(r, GOSTX__DER_SEQ, &seq, NULL) || gostx__cms_alg_id(&seq, &oid) ||
        gostx__der_get(&seq, GOSTX__DER_OCTETS, &value, NULL) || seq.n)
      return GOSTX_EFORMAT;
    h->oid = oid.p, h->oid_len = oid.n;
    h->alg = GOSTX__DER_OID_IS(oid, OID_SHA1) ? 20 : gostx__cms_digest_size(oid);
  }
  if (h->alg && value.n != h->alg) return GOSTX_EFORMAT;
  h->value = value.p, h->value_len = value.n;
  return 0;
}

int gostx__cades_hash_is(const gostx_cades_hash *h, const uint8_t *der, size_t len) {
  uint8_t d[64];
  if (h->alg == 20) gostx__sha1(der, len, d);
  else if (h->alg == 32 || h->alg == 64) gostx_streebog(h->alg, der, len, d);
  else return 0;
  return h->value_len == h->alg && memcmp(h->value, d, h->alg) == 0;
}

/* ---- the attributes ---- */

int gostx__cades_unsigned(const gostx_cms_signer_info *si, gostx__der *attrs) {
  attrs->p = NULL, attrs->n = 0;
  if (!si->unsigned_attrs) return 0;
  gostx__der r = {si->unsigned_attrs, si->unsigned_attrs_len};
  return gostx__der_get(&r, GOSTX__DER_CTXC(1), attrs, NULL) || r.n ? GOSTX_EFORMAT : 0;
}

int gostx__cades_next_attr(gostx__der *attrs, gostx__der *oid, gostx__der *values, gostx__der *content) {
  gostx__der attr;
  if (gostx__der_get(attrs, GOSTX__DER_SEQ, &attr, NULL)) return GOSTX_EFORMAT;
  *content = attr;
  if (gostx__der_oid(&attr, oid) || gostx__der_get(&attr, GOSTX__DER_SET, values, NULL) || attr.n)
    return GOSTX_EFORMAT;
  return 0;
}

/* the one value of a single-valued attribute, a SEQUENCE: its content */
static int one_seq(gostx__der values, gostx__der *seq) {
  return gostx__der_get(&values, GOSTX__DER_SEQ, seq, NULL) || values.n ? GOSTX_EFORMAT : 0;
}

/* OtherCertID { otherCertHash, issuerSerial { issuer GeneralNames,
 * serialNumber } OPTIONAL }: the issuer a directoryName [4] */
static gostx_cades_status cert_ref(gostx__der r, gostx_cades_cert_ref *c) {
  gostx__der is, names, dn, name, serial;
  memset(c, 0, sizeof *c);
  if (gostx__cades_read_hash(&r, &c->hash)) return GOSTX_CADES_MALFORMED;
  if (!r.n) return GOSTX_CADES_OK;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &is, NULL) || r.n || gostx__der_get(&is, GOSTX__DER_SEQ, &names, NULL) ||
      gostx__der_get(&is, GOSTX__DER_INT, &serial, NULL) || is.n || !gostx__der_int_minimal(serial))
    return GOSTX_CADES_MALFORMED;
  while (names.n) { /* the first directoryName; other kinds of name are passed over */
    uint8_t tag;
    if (gostx__der_next(&names, &tag, &dn, NULL)) return GOSTX_CADES_MALFORMED;
    if (tag != GOSTX__DER_CTXC(4) || c->issuer) continue;
    if (gostx__der_get(&dn, GOSTX__DER_SEQ, NULL, &name) || dn.n) return GOSTX_CADES_MALFORMED;
    c->issuer = name.p, c->issuer_len = name.n;
  }
  c->serial = serial.p, c->serial_len = serial.n;
  return GOSTX_CADES_OK;
}

static gostx_cades_status cert_refs(gostx__der values, gostx_cades_info *info) {
  gostx__der seq, id;
  if (one_seq(values, &seq)) return GOSTX_CADES_MALFORMED;
  while (seq.n) {
    if (gostx__der_get(&seq, GOSTX__DER_SEQ, &id, NULL)) return GOSTX_CADES_MALFORMED;
    if (info->n_cert_refs == GOSTX_CADES_MAX) return GOSTX_CADES_TOO_MANY;
    gostx_cades_status st = cert_ref(id, &info->cert_refs[info->n_cert_refs++]);
    if (st) return st;
  }
  return GOSTX_CADES_OK;
}

/* CrlValidatedID { crlHash, crlIdentifier { crlissuer, crlIssuedTime
 * UTCTime, crlNumber OPTIONAL } OPTIONAL } */
static gostx_cades_status crl_id(gostx__der r, gostx_cades_rev_ref *ref) {
  gostx__der ident, name, t, number;
  ref->kind = GOSTX_CADES_REF_CRL, ref->has_hash = 1;
  if (gostx__cades_read_hash(&r, &ref->hash)) return GOSTX_CADES_MALFORMED;
  if (!r.n) return GOSTX_CADES_OK;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &ident, NULL) || r.n ||
      gostx__der_get(&ident, GOSTX__DER_SEQ, NULL, &name) ||
      gostx__der_get(&ident, GOSTX__DER_UTCTIME, NULL, &t) || gostx__der_time(&t, &ref->time))
    return GOSTX_CADES_MALFORMED;
  ref->name = name.p, ref->name_len = name.n;
  if (ident.n) {
    if (gostx__der_get(&ident, GOSTX__DER_INT, &number, NULL) || ident.n || !gostx__der_int_minimal(number))
      return GOSTX_CADES_MALFORMED;
    ref->crl_number = number.p, ref->crl_number_len = number.n;
  }
  return GOSTX_CADES_OK;
}

/* OcspResponsesID { ocspIdentifier { ocspResponderID, producedAt },
 * ocspRepHash OPTIONAL } */
static gostx_cades_status ocsp_id(gostx__der r, gostx_cades_rev_ref *ref) {
  gostx__der ident, responder, t;
  uint8_t tag;
  ref->kind = GOSTX_CADES_REF_OCSP;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &ident, NULL) || gostx__der_next(&ident, &tag, NULL, &responder) ||
      (tag != GOSTX__DER_CTXC(1) && tag != GOSTX__DER_CTXC(2)) ||
      gostx__der_get(&ident, GOSTX__DER_GENTIME, NULL, &t) || gostx__der_time(&t, &ref->time) || ident.n)
    return GOSTX_CADES_MALFORMED;
  ref->name = responder.p, ref->name_len = responder.n;
  if (!r.n) return GOSTX_CADES_OK;
  ref->has_hash = 1;
  return gostx__cades_read_hash(&r, &ref->hash) || r.n ? GOSTX_CADES_MALFORMED : GOSTX_CADES_OK;
}

/* [0] CRLListID { crls SEQUENCE OF CrlValidatedID } or [1] OcspListID {
 * ocspResponses SEQUENCE OF OcspResponsesID }: each entry into info */
static gostx_cades_status rev_list(gostx__der field, int kind, size_t owner, gostx_cades_info *info) {
  gostx__der list, seq, id;
  if (gostx__der_get(&field, GOSTX__DER_SEQ, &list, NULL) || field.n ||
      gostx__der_get(&list, GOSTX__DER_SEQ, &seq, NULL) || list.n)
    return GOSTX_CADES_MALFORMED;
  while (seq.n) {
    if (gostx__der_get(&seq, GOSTX__DER_SEQ, &id, NULL)) return GOSTX_CADES_MALFORMED;
    if (info->n_rev_refs == 2 * GOSTX_CADES_MAX) return GOSTX_CADES_TOO_MANY;
    gostx_cades_rev_ref *ref = &info->rev_refs[info->n_rev_refs++];
    memset(ref, 0, sizeof *ref);
    ref->owner = owner;
    gostx_cades_status st = kind == GOSTX_CADES_REF_CRL ? crl_id(id, ref) : ocsp_id(id, ref);
    if (st) return st;
  }
  return GOSTX_CADES_OK;
}

/* CompleteRevocationRefs ::= SEQUENCE OF CrlOcspRef { crlids [0], ocspids
 * [1], otherRev [2] (passed over), each OPTIONAL, in that order } */
static gostx_cades_status rev_refs(gostx__der values, gostx_cades_info *info) {
  gostx__der seq, ref, field;
  uint8_t tag, last;
  if (one_seq(values, &seq)) return GOSTX_CADES_MALFORMED;
  for (size_t owner = 0; seq.n; owner++) {
    if (gostx__der_get(&seq, GOSTX__DER_SEQ, &ref, NULL)) return GOSTX_CADES_MALFORMED;
    if (owner == GOSTX_CADES_MAX + 1) return GOSTX_CADES_TOO_MANY;
    info->n_crl_ocsp_refs++;
    for (last = 0; ref.n; last = tag) {
      if (gostx__der_next(&ref, &tag, &field, NULL) || tag < GOSTX__DER_CTXC(0) ||
          tag > GOSTX__DER_CTXC(2) || (last && tag <= last))
        return GOSTX_CADES_MALFORMED;
      if (tag == GOSTX__DER_CTXC(2)) continue;
      gostx_cades_status st =
          rev_list(field, tag == GOSTX__DER_CTXC(0) ? GOSTX_CADES_REF_CRL : GOSTX_CADES_REF_OCSP, owner, info);
      if (st) return st;
    }
  }
  return GOSTX_CADES_OK;
}

/* a SEQUENCE OF SEQUENCE's elements (certificates, CRLs, responses) */
static gostx_cades_status seq_of(gostx__der seq, const uint8_t **p, size_t *len, size_t *n) {
  gostx__der whole;
  while (seq.n) {
    if (gostx__der_get(&seq, GOSTX__DER_SEQ, NULL, &whole)) return GOSTX_CADES_MALFORMED;
    if (*n == GOSTX_CADES_MAX) return GOSTX_CADES_TOO_MANY;
    p[*n] = whole.p, len[(*n)++] = whole.n;
  }
  return GOSTX_CADES_OK;
}

/* RevocationValues { crlVals [0] SEQUENCE OF CertificateList, ocspVals [1]
 * SEQUENCE OF BasicOCSPResponse, otherRevVals [2] (passed over) } */
static gostx_cades_status rev_values(gostx__der values, gostx_cades_info *info) {
  gostx__der seq, field, list;
  uint8_t tag, last = 0;
  gostx_cades_status st = GOSTX_CADES_OK;
  if (one_seq(values, &seq)) return GOSTX_CADES_MALFORMED;
  for (; seq.n && !st; last = tag) {
    if (gostx__der_next(&seq, &tag, &field, NULL) || tag < GOSTX__DER_CTXC(0) || tag > GOSTX__DER_CTXC(2) ||
        (last && tag <= last))
      return GOSTX_CADES_MALFORMED;
    if (tag == GOSTX__DER_CTXC(2)) continue;
    if (gostx__der_get(&field, GOSTX__DER_SEQ, &list, NULL) || field.n) return GOSTX_CADES_MALFORMED;
    st = tag == GOSTX__DER_CTXC(0) ? seq_of(list, info->crls, info->crl_len, &info->n_crls)
                                   : seq_of(list, info->ocsps, info->ocsp_len, &info->n_ocsps);
  }
  return st;
}

/* a token attribute: one TimeStampToken per attribute (a ContentInfo) */
static gostx_cades_status token(gostx__der values, const uint8_t **p, size_t *len, size_t *n) {
  gostx__der tok;
  if (gostx__der_get(&values, GOSTX__DER_SEQ, NULL, &tok) || values.n) return GOSTX_CADES_MALFORMED;
  if (*n == GOSTX_CADES_MAX) return GOSTX_CADES_TOO_MANY;
  p[*n] = tok.p, len[(*n)++] = tok.n;
  return GOSTX_CADES_OK;
}

static gostx_cades_status once(int *seen) { return (*seen)++ ? GOSTX_CADES_DUPLICATE : GOSTX_CADES_OK; }

static gostx_cades_status one_attr(gostx__der oid, gostx__der values, gostx_cades_info *info) {
  gostx_cades_status st = GOSTX_CADES_OK;
  gostx__der seq;
  const uint8_t *ignored[GOSTX_CADES_MAX];
  size_t ignored_len[GOSTX_CADES_MAX];
  if (GOSTX__DER_OID_IS(oid, OID_AA_SIG_TS))
    return token(values, info->sig_ts, info->sig_ts_len, &info->n_sig_ts);
  if (GOSTX__DER_OID_IS(oid, OID_AA_ESC_TS))
    return token(values, info->esc_ts, info->esc_ts_len, &info->n_esc_ts);
  if (GOSTX__DER_OID_IS(oid, OID_AA_CERTS_CRLS_TS)) { /* counted, kept as they came */
    if (info->n_certs_crls_ts == GOSTX_CADES_MAX) return GOSTX_CADES_TOO_MANY;
    size_t n = 0;
    st = token(values, ignored, ignored_len, &n);
    info->n_certs_crls_ts++;
    return st;
  }
  if (GOSTX__DER_OID_IS(oid, OID_AA_CERT_REFS))
    return (st = once(&info->has_cert_refs)) ? st : cert_refs(values, info);
  if (GOSTX__DER_OID_IS(oid, OID_AA_REV_REFS))
    return (st = once(&info->has_rev_refs)) ? st : rev_refs(values, info);
  if (GOSTX__DER_OID_IS(oid, OID_AA_CERT_VALUES)) {
    if ((st = once(&info->has_cert_values))) return st;
    return one_seq(values, &seq) ? GOSTX_CADES_MALFORMED
                                 : seq_of(seq, info->certs, info->cert_len, &info->n_certs);
  }
  if (GOSTX__DER_OID_IS(oid, OID_AA_REV_VALUES))
    return (st = once(&info->has_rev_values)) ? st : rev_values(values, info);
  return GOSTX_CADES_OK;
}

int gostx_cades_parse(const gostx_cms_signer_info *si, gostx_cades_info *info, gostx_cades_status *st) {
  gostx_cades_status dummy;
  gostx__der attrs, oid, values, content;
  if (!st) st = &dummy;
  *st = GOSTX_CADES_MALFORMED;
  if (!si || !info) return GOSTX_EINVAL;
  memset(info, 0, sizeof *info);
  if (gostx__cades_unsigned(si, &attrs)) return GOSTX_EFORMAT;
  *st = GOSTX_CADES_OK;
  while (attrs.n && !*st) {
    if (gostx__cades_next_attr(&attrs, &oid, &values, &content)) *st = GOSTX_CADES_MALFORMED;
    else *st = one_attr(oid, values, info);
  }
  return *st ? GOSTX_EFORMAT : 0;
}
