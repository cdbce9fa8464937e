/* A certificate's GOST R 34.10 signature checked against an issuer's key
 * (x509_internal.h): below path building (path.c), the path checks
 * (verify.c) and the profile (profile.c), which all ask it. */
#include "x509/x509_internal.h"

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
