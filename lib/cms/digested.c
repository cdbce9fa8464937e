/* DigestedData (RFC 5652 section 7) with Streebog-256 or -512, as
 * R 1323565.1.025-2019's examples A.3 write it: the content is attached
 * (id-data) and the digest is over eContent's octets. */
#include "cms/cms_internal.h"

static int digested_content(gostx__der *body, void *dst, gostx_cms_status *st) {
  gostx_cms_digested *out = dst;
  gostx__der dd = *body, oid, eci, type, explicit, content, digest;
  if (gostx__der_small_uint(&dd, &out->version) || out->version > 2 ||
      gostx__cms_alg_id(&dd, &oid) || gostx__der_get(&dd, GOSTX__DER_SEQ, &eci, NULL) ||
      gostx__der_oid(&eci, &type))
    return GOSTX_EFORMAT;
  out->digest_oid = oid.p, out->digest_oid_len = oid.n;
  out->digest_len = gostx__cms_digest_size(oid);
  out->content_type = type.p, out->content_type_len = type.n;
  if (!eci.n) return *st = GOSTX_CMS_NO_CONTENT, GOSTX_EFORMAT; /* nothing digested here */
  if (gostx__der_get(&eci, GOSTX__DER_CTXC(0), &explicit, NULL) || eci.n ||
      gostx__der_get(&explicit, GOSTX__DER_OCTETS, &content, NULL) || explicit.n ||
      gostx__der_get(&dd, GOSTX__DER_OCTETS, &digest, NULL) || dd.n)
    return GOSTX_EFORMAT;
  out->content = content.p, out->content_len = content.n;
  out->digest = digest.p, out->stored_digest_len = digest.n;
  return 0;
}

int gostx_cms_digested_parse(const uint8_t *der, size_t der_len, gostx_cms_digested *out,
                             gostx_cms_status *st) {
  int rc = gostx__cms_parse(der, der_len, out, sizeof *out, OID_DIGESTED_DATA,
                            sizeof OID_DIGESTED_DATA - 1, digested_content, st);
  if (!rc) out->der = der, out->der_len = der_len;
  return rc;
}

int gostx_cms_digested_verify(const gostx_cms_digested *dd, gostx_cms_status *st) {
  gostx_cms_status dummy;
  uint8_t md[64];
  if (!st) st = &dummy;
  *st = GOSTX_CMS_OK;
  if (!dd || !dd->der) return GOSTX_EINVAL;
  if (!dd->digest_len) return *st = GOSTX_CMS_UNKNOWN_ALGORITHM, GOSTX_EAUTH;
  gostx_streebog(dd->digest_len, dd->content, dd->content_len, md);
  if (dd->stored_digest_len != dd->digest_len || memcmp(md, dd->digest, dd->digest_len))
    return *st = GOSTX_CMS_DIGEST_MISMATCH, GOSTX_EAUTH;
  return 0;
}

int gostx_cms_digest_create(size_t digest_len, const uint8_t *content, size_t len, uint8_t *out,
                            size_t cap, size_t *out_len) {
  uint8_t md[64] = {0};
  if (!out_len || (digest_len != 32 && digest_len != 64) || (!content && len)) return GOSTX_EINVAL;
  if (out) gostx_streebog(digest_len, content ? content : (const uint8_t *)"", len, md);
  gostx__der_w w;
  gostx__cms_w_open(&w, out, cap, "1.2.840.113549.1.7.5");
  gostx__der_w_u32(&w, 0); /* RFC 5652 7: id-data */
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_oid(&w, digest_len == 32 ? "1.2.643.7.1.1.2.2" : "1.2.643.7.1.1.2.3");
  gostx__der_w_end(&w);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_oid(&w, "1.2.840.113549.1.7.1");
  gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, content, len);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, md, digest_len);
  gostx__cms_w_close(&w);
  return gostx__der_w_finish(&w, out_len);
}
