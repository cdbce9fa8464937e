/* SignedData and the other CMS types as PEM: "CMS" (openssl cms) or
 * "PKCS7" (GnuTLS, openssl smime and pkcs7) read, "CMS" written. */
#include "asn1/pem.h"
#include "cms/cms_internal.h"

int gostx_cms_pem_read(const char *text, size_t len, uint8_t *der, size_t cap, size_t *der_len) {
  static const char *const labels[] = {"CMS", "PKCS7"};
  size_t pos = 0;
  int which;
  if (!text || !der || !der_len) return GOSTX_EINVAL;
  if (gostx__pem_find(text, len, &pos, labels, 2, &which)) return GOSTX_EFORMAT;
  return gostx__pem_body(text, len, &pos, labels[which], der, cap, der_len) ? GOSTX_EFORMAT : 0;
}

int gostx_cms_pem_write(const uint8_t *der, size_t der_len, char *out, size_t cap, size_t *out_len) {
  if (!der || !out_len) return GOSTX_EINVAL;
  return gostx__pem_write("CMS", der, der_len, out, cap, out_len);
}

/* cms.h's earlier names of gostx/base64.h's calls */
size_t gostx_cms_base64_encode(const uint8_t *in, size_t n, char *out) {
  return gostx_base64_encode(in, n, out);
}

int gostx_cms_base64_decode(gostx_cms_base64 *d, const char *s, size_t n, uint8_t *out, size_t *out_len) {
  return gostx_base64_decode(d, s, n, out, out_len);
}
