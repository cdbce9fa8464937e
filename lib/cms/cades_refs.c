/* CAdES references met by values (RFC 5126 6.2, 6.3.3, 6.3.4): a
 * signer's or a timestamp token's own complete-certificate-references
 * against certificate-values and the SignedData's certificates, and
 * complete-revocation-references against revocation-values, every value
 * read by lib/x509's parsers first (gostx_cades_verify,
 * gostx_cades_tsa_values). */
#include "cms/cades_internal.h"

/* what references are met by: the values (info's, crls and ocsps read
 * from them in order) and the SignedData's certificates */
typedef struct ref_values {
  const gostx_cades_info *info;
  const gostx_cms_signed *sd;
  const gostx_x509_crl *crls;
  const gostx_ocsp_response *ocsps;
} ref_values;

/* issuerSerial, when the reference has one, names c: its serial and a
 * directoryName equal to c's issuer (RFC 5126 6.2.1). An issuerSerial
 * without a directoryName names no certificate. */
static int cert_named(const gostx_cades_cert_ref *ref, const gostx_x509_cert *c) {
  return ref->issuer && c->serial_len == ref->serial_len && memcmp(c->serial, ref->serial, c->serial_len) == 0 &&
         gostx__x509_name_equal(c->issuer, c->issuer_len, ref->issuer, ref->issuer_len);
}

/* A certificate reference met: a value (certificate-values or the
 * SignedData's certificates) with its hash, which its issuerSerial names
 * too. Failing that: CERT_REF_MISMATCH when the value of that hash is
 * another certificate than issuerSerial says, CERT_HASH_MISMATCH when the
 * certificate issuerSerial names has another hash. */
static gostx_cades_status cert_met(const ref_values *x, const gostx_cades_cert_ref *ref) {
  gostx_x509_cert parsed;
  int named_other = 0, same_id = 0;
  if (!ref->hash.alg) return GOSTX_CADES_UNKNOWN_HASH;
  for (size_t i = 0; i < x->info->n_certs + x->sd->n_certs; i++) {
    const gostx_x509_cert *c = NULL;
    if (i >= x->info->n_certs) c = &x->sd->certs[i - x->info->n_certs];
    else if (!gostx_x509_parse(x->info->certs[i], x->info->cert_len[i], &parsed, NULL)) c = &parsed;
    const uint8_t *der = c ? c->der : x->info->certs[i];
    size_t len = c ? c->der_len : x->info->cert_len[i];
    int named = ref->serial && c && cert_named(ref, c);
    if (gostx__cades_hash_is(&ref->hash, der, len)) {
      if (!ref->serial || named) return GOSTX_CADES_OK;
      named_other = 1;
    }
    same_id |= named;
  }
  return named_other ? GOSTX_CADES_CERT_REF_MISMATCH
         : same_id   ? GOSTX_CADES_CERT_HASH_MISMATCH
                     : GOSTX_CADES_CERT_WITHOUT_VALUE;
}

gostx_cades_status gostx__cades_read_revs(const gostx_cades_info *info, gostx__cades_revs *r, size_t *index,
                                          gostx_x509_status *xs) {
  for (*index = 0; *index < info->n_crls; (*index)++)
    if (gostx_x509_crl_parse(info->crls[*index], info->crl_len[*index], &r->crls[r->n_crls++], xs))
      return GOSTX_CADES_BAD_CRL;
  for (*index = 0; *index < info->n_ocsps; (*index)++) {
    gostx_ocsp_response *o = &r->ocsps[r->n_ocsps++];
    if (gostx_ocsp_response_parse(info->ocsps[*index], info->ocsp_len[*index], o) ||
        o->status != GOSTX_OCSP_RESP_SUCCESSFUL)
      return GOSTX_CADES_BAD_OCSP;
  }
  return GOSTX_CADES_OK;
}

/* the revocation value the reference's identifier names: the CRL of that
 * issuer and thisUpdate, the response of that responder ([1] byName, [2]
 * byKey) and producedAt */
static int same_crl(const gostx_cades_rev_ref *ref, const gostx_x509_crl *crl) {
  return ref->name && crl->this_update == ref->time &&
         gostx__x509_name_equal(crl->issuer, crl->issuer_len, ref->name, ref->name_len);
}

/* every field of a CRL reference's crlIdentifier is the CRL's: issuer,
 * crlIssuedTime, and crlNumber when the reference gives one (RFC 5126
 * 6.2.2); no identifier names nothing to compare */
static int crl_named(const gostx_cades_rev_ref *ref, const gostx_x509_crl *crl) {
  if (!ref->name) return 1;
  return same_crl(ref, crl) &&
         (!ref->crl_number || (crl->crl_number && crl->crl_number_len == ref->crl_number_len &&
                               memcmp(crl->crl_number, ref->crl_number, ref->crl_number_len) == 0));
}

static int same_ocsp(const gostx_cades_rev_ref *ref, const gostx_ocsp_response *o) {
  gostx__der r = {ref->name, ref->name_len}, in, key;
  uint8_t tag;
  if (o->produced_at != ref->time || gostx__der_next(&r, &tag, &in, NULL) ||
      tag != GOSTX__DER_CTXC(o->by_key ? 2 : 1))
    return 0;
  if (o->by_key && (gostx__der_get(&in, GOSTX__DER_OCTETS, &key, NULL) || in.n)) return 0;
  if (o->by_key) in = key;
  return in.n == o->responder_len && memcmp(in.p, o->responder, in.n) == 0;
}

/* A revocation reference met: a value of its hash whose every identifying
 * field is the reference's (an OCSP reference without ocspRepHash: the
 * response its identifier names). Failing that: REV_REF_MISMATCH when the
 * value of that hash differs from the identifier, REV_HASH_MISMATCH when
 * the value the identifier names has another hash. */
static gostx_cades_status rev_met(const ref_values *x, const gostx_cades_rev_ref *ref) {
  int crl = ref->kind == GOSTX_CADES_REF_CRL, same_id = 0, named_other = 0;
  size_t n = crl ? x->info->n_crls : x->info->n_ocsps;
  if (ref->has_hash && !ref->hash.alg) return GOSTX_CADES_UNKNOWN_HASH;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *der = crl ? x->info->crls[i] : x->info->ocsps[i];
    size_t len = crl ? x->info->crl_len[i] : x->info->ocsp_len[i];
    int named = crl ? crl_named(ref, &x->crls[i]) : same_ocsp(ref, &x->ocsps[i]);
    if (!ref->has_hash && named) return GOSTX_CADES_OK;
    if (ref->has_hash && gostx__cades_hash_is(&ref->hash, der, len)) {
      if (named) return GOSTX_CADES_OK;
      named_other = 1;
    }
    same_id |= crl ? same_crl(ref, &x->crls[i]) : named;
  }
  return named_other ? GOSTX_CADES_REV_REF_MISMATCH
         : same_id   ? GOSTX_CADES_REV_HASH_MISMATCH
                     : GOSTX_CADES_REV_WITHOUT_VALUE;
}

gostx_cades_status gostx__cades_refs_met(const gostx_cades_info *info, const gostx_cms_signed *sd,
                                         const gostx_x509_crl *crls, const gostx_ocsp_response *ocsps,
                                         size_t *index) {
  gostx_cades_status st;
  ref_values x = {info, sd, crls, ocsps};
  for (*index = 0; *index < info->n_cert_refs; (*index)++)
    if ((st = cert_met(&x, &info->cert_refs[*index]))) return st;
  for (*index = 0; *index < info->n_rev_refs; (*index)++)
    if ((st = rev_met(&x, &info->rev_refs[*index]))) return st;
  return GOSTX_CADES_OK;
}
