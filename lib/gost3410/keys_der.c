/* What the GOST R 34.10-2012 key formats share (keys_der.h): the
 * AlgorithmIdentifier and the parameter set OIDs, as RFC 4491 / RFC 9215
 * and gost-engine 3.x write them. */
#include <string.h>

#include "gost3410/keys_der.h"

#define DGST_OID_256 "1.2.643.7.1.1.2.2" /* id-tc26-gost3411-12-256 */
#define DGST_OID_512 "1.2.643.7.1.1.2.3" /* id-tc26-gost3411-12-512 */
#define DGST_OID_94 "1.2.643.2.2.30.1"   /* id-GostR3411-94-CryptoProParamSet */

void gostx__key_reverse(uint8_t *out, const uint8_t *in, size_t len) {
  for (size_t i = 0; i < len; i++) out[i] = in[len - 1 - i];
}

int gostx__key_emit(const gostx__der_w *w, const uint8_t *der, uint8_t *out, size_t cap,
                    size_t *out_len) {
  int rc = gostx__der_w_finish(w, out_len);
  if (rc) return rc;
  if (!out || cap < *out_len) return GOSTX_ELEN;
  memcpy(out, der, *out_len);
  return 0;
}

/* The parameter set OID written. Several name one curve (256 B = CryptoPro-A
 * = CryptoPro-XchA, 256 C = CryptoPro-B, 256 D = CryptoPro-C =
 * CryptoPro-XchB), and gost-engine will not derive (VKO) between keys whose
 * OIDs differ even when the curve is the same: so oid, when given, is
 * written as it is (a key read and written again keeps the OID it came
 * with; the _oid readers give it), after checking that it names curve.
 * Otherwise the 256-bit sets B, C, D go out under their CryptoPro OIDs (RFC
 * 4357), as gost-engine's paramsets A, B, C and the CAs' certificates name
 * them, the commoner name. */
int gostx__key_paramset_oid(gostx_gost3410_curve curve, const char *oid, const char **out) {
  uint8_t enc[32];
  size_t n;
  if (oid && *oid) {
    if (strlen(oid) >= GOSTX_GOST3410_OID_MAX || gostx__der_oid_encode(oid, enc, sizeof enc, &n) ||
        gostx_gost3410_curve_by_name(oid) != (int)curve)
      return GOSTX_EINVAL;
    *out = oid;
    return 0;
  }
  switch (curve) {
    case GOSTX_GOST3410_256_B: *out = "1.2.643.2.2.35.1"; break;
    case GOSTX_GOST3410_256_C: *out = "1.2.643.2.2.35.2"; break;
    case GOSTX_GOST3410_256_D: *out = "1.2.643.2.2.35.3"; break;
    default: *out = gostx_gost3410_curve_oid(curve);
  }
  return *out ? 0 : GOSTX_EINVAL;
}

/* gost-engine writes the digest OID after the CryptoPro (2001) OIDs, the
 * test sets' and the 512-bit sets A and B, and omits it after the tc26 256
 * OIDs (A, B, C, D) and 512 C, as RFC 9215 section 3.3 asks; we write what
 * it writes. */
static int writes_digest_oid(const char *oid) {
  return strncmp(oid, "1.2.643.7.1.2.1.1.", 18) && strcmp(oid, "1.2.643.7.1.2.1.2.3");
}

/* A GOST R 34.10-2001 key (RFC 4491 section 2.3.2, as gost-engine writes
 * it): id-GostR3410-2001, a CryptoPro parameter set (the 2001 sets are all
 * 1.2.643.2.2.35.x or .36.x) and the GOST R 34.11-94 CryptoPro digest set. */
int gostx__key_alg_check(const gostx_gost3410_key *k, const char *paramset_oid) {
  if (!k->gost2001) return 0;
  return k->len == 32 && (!strncmp(paramset_oid, "1.2.643.2.2.35.", 15) ||
                          !strncmp(paramset_oid, "1.2.643.2.2.36.", 15))
             ? 0
             : GOSTX_EINVAL;
}

void gostx__key_put_algorithm(gostx__der_w *w, const char *paramset_oid, size_t len,
                              int gost2001) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, gost2001    ? GOSTX__KEY_ALG_OID_2001
                      : len == 32 ? GOSTX__KEY_ALG_OID_256
                                  : GOSTX__KEY_ALG_OID_512);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, paramset_oid);
  if (gost2001)
    gostx__der_w_oid(w, DGST_OID_94);
  else if (writes_digest_oid(paramset_oid))
    gostx__der_w_oid(w, len == 32 ? DGST_OID_256 : DGST_OID_512);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

int gostx__key_get_oid(gostx__der *r, char *text) {
  gostx__der oid;
  if (gostx__der_oid(r, &oid)) return GOSTX_EFORMAT;
  return gostx__der_oid_text(oid, text, GOSTX__KEY_OID_TEXT_MAX) ? GOSTX_EUNSUP : 0;
}

int gostx__key_get_algorithm(gostx__der *r, gostx_gost3410_curve *curve, size_t *len,
                             char *ps_oid) {
  gostx__der alg, params;
  char oid[GOSTX__KEY_OID_TEXT_MAX];
  int rc = gostx__der_get(r, GOSTX__DER_SEQ, &alg, NULL);
  if (rc) return rc;
  if ((rc = gostx__key_get_oid(&alg, oid))) return rc;
  if (!strcmp(oid, GOSTX__KEY_ALG_OID_256))
    *len = 32;
  else if (!strcmp(oid, GOSTX__KEY_ALG_OID_512))
    *len = 64;
  else
    return GOSTX_EUNSUP; /* RSA, EC, GOST R 34.10-2001, ... */
  if (gostx__der_get(&alg, GOSTX__DER_SEQ, &params, NULL) || !gostx__der_done(&alg))
    return GOSTX_EFORMAT;
  if ((rc = gostx__key_get_oid(&params, oid))) return rc;
  int id = gostx_gost3410_curve_by_name(oid);
  if (id < 0) return GOSTX_EUNSUP;
  if (gostx_gost3410_size((gostx_gost3410_curve)id) != *len) return GOSTX_EFORMAT;
  memcpy(ps_oid, oid, sizeof oid);
  if (!gostx__der_done(&params)) { /* digestParamSet: Streebog of the key's size */
    if ((rc = gostx__key_get_oid(&params, oid))) return rc;
    if (strcmp(oid, *len == 32 ? DGST_OID_256 : DGST_OID_512) || !gostx__der_done(&params))
      return GOSTX_EFORMAT;
  }
  *curve = (gostx_gost3410_curve)id;
  return 0;
}
