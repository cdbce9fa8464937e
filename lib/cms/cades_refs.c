/* CAdES references met by values (RFC 5126 6.2, 6.3.3, 6.3.4): a
 * signer's or a timestamp token's own complete-certificate-references
 * against certificate-values and the SignedData's certificates, and
 * complete-revocation-references against revocation-values, every value
 * read by lib/x509's parsers first (gostx_cades_verify,
 * gostx_cades_tsa_values). */
#include "cms/cades_internal.h"

/* A certificate reference met: a value (certificate-values or the
 * SignedData's certificates) with its hash; or, failing that, one of the
 * same issuer and serial whose hash differs. */
static gostx_cades_status cert_met(const gostx_cades_cert_ref *ref, const gostx_cades_info *info,
                                   const gostx_cms_signed *sd) {
  gostx_x509_cert c;
  int same_id = 0;
  if (!ref->hash.alg) return GOSTX_CADES_UNKNOWN_HASH;
  for (size_t i = 0; i < info->n_certs + sd->n_certs; i++) {
    const uint8_t *der = i < info->n_certs ? info->certs[i] : sd->certs[i - info->n_certs].der;
    size_t len = i < info->n_certs ? info->cert_len[i] : sd->certs[i - info->n_certs].der_len;
    if (gostx__cades_hash_is(&ref->hash, der, len)) return GOSTX_CADES_OK;
    if (ref->serial && !gostx_x509_parse(der, len, &c, NULL) && c.serial_len == ref->serial_len &&
        memcmp(c.serial, ref->serial, c.serial_len) == 0 &&
        (!ref->issuer || gostx__x509_name_equal(c.issuer, c.issuer_len, ref->issuer, ref->issuer_len)))
      same_id = 1;
  }
  return same_id ? GOSTX_CADES_CERT_HASH_MISMATCH : GOSTX_CADES_CERT_WITHOUT_VALUE;
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

/* the revocation value the reference names without its hash: the CRL of
 * that issuer and thisUpdate, the response of that responder ([1] byName,
 * [2] byKey) and producedAt */
static int same_crl(const gostx_cades_rev_ref *ref, const gostx_x509_crl *crl) {
  return ref->name && crl->this_update == ref->time &&
         gostx__x509_name_equal(crl->issuer, crl->issuer_len, ref->name, ref->name_len);
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

static gostx_cades_status rev_met(const gostx_cades_rev_ref *ref, const gostx_cades_info *info,
                                  const gostx_x509_crl *crls, const gostx_ocsp_response *ocsps) {
  int crl = ref->kind == GOSTX_CADES_REF_CRL, same_id = 0;
  size_t n = crl ? info->n_crls : info->n_ocsps;
  if (ref->has_hash && !ref->hash.alg) return GOSTX_CADES_UNKNOWN_HASH;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *der = crl ? info->crls[i] : info->ocsps[i];
    size_t len = crl ? info->crl_len[i] : info->ocsp_len[i];
    int id = crl ? same_crl(ref, &crls[i]) : same_ocsp(ref, &ocsps[i]);
    if (ref->has_hash ? gostx__cades_hash_is(&ref->hash, der, len) : id) return GOSTX_CADES_OK;
    same_id |= id;
  }
  return same_id ? GOSTX_CADES_REV_HASH_MISMATCH : GOSTX_CADES_REV_WITHOUT_VALUE;
}

gostx_cades_status gostx__cades_refs_met(const gostx_cades_info *info, const gostx_cms_signed *sd,
                                         const gostx_x509_crl *crls, const gostx_ocsp_response *ocsps,
                                         size_t *index) {
  gostx_cades_status st;
  for (*index = 0; *index < info->n_cert_refs; (*index)++)
    if ((st = cert_met(&info->cert_refs[*index], info, sd))) return st;
  for (*index = 0; *index < info->n_rev_refs; (*index)++)
    if ((st = rev_met(&info->rev_refs[*index], info, crls, ocsps))) return st;
  return GOSTX_CADES_OK;
}
