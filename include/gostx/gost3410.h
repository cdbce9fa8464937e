/* gostx: GOST R 34.10-2012 signatures and the VKO_GOSTR3410_2012 key
 * agreement (R 50.1.113-2016, RFC 7836 section 4.3). Part of the public API.
 *
 * Byte order. Every number this API takes or gives is big-endian, as the
 * standard prints it:
 *   private key d:  len bytes (len = gostx_gost3410_size(): 32 or 64)
 *   public key Q:   x || y, 2 * len bytes, each coordinate big-endian
 *   signature:      r || s, 2 * len bytes, each big-endian (the standard's
 *                   zeta = r || s). X.509/CMS (RFC 9215) and gost-engine
 *                   write s || r instead, and gost-engine stores public keys
 *                   as x || y with each coordinate little-endian.
 *   digest:         the bytes gostx_streebog() wrote (Streebog-256 for the
 *                   256-bit curves, Streebog-512 for the 512-bit ones); the
 *                   standard's alpha is that byte string read little-endian,
 *                   as gost-engine reads it, and e = alpha mod q (1 if 0).
 *   UKM:            1..64 bytes read little-endian (gost-engine's order);
 *                   0 mod q counts as 1, as R 50.1.113-2016 says.
 * Errors: GOSTX_EINVAL unknown curve, NULL, private key 0 or >= q, public key
 * off the curve, a coordinate >= p or the point at infinity; GOSTX_ELEN a
 * buffer of the wrong length; GOSTX_EFORMAT r or s = 0 or >= q;
 * GOSTX_EAUTH a well-formed signature that does not verify; GOSTX_EIO the
 * OS random generator failed. */
#ifndef GOSTX_GOST3410_H
#define GOSTX_GOST3410_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gostx_gost3410_curve {
  GOSTX_GOST3410_256_TEST = 1, /* GOST R 34.10-2012 example 1 curve (p = 2^255 + 1073) */
  GOSTX_GOST3410_256_A,        /* id-tc26-gost-3410-2012-256-paramSetA (Edwards, cofactor 4) */
  GOSTX_GOST3410_256_B,        /* paramSetB = CryptoPro-A = CryptoPro-XchA */
  GOSTX_GOST3410_256_C,        /* paramSetC = CryptoPro-B */
  GOSTX_GOST3410_256_D,        /* paramSetD = CryptoPro-C = CryptoPro-XchB */
  GOSTX_GOST3410_512_TEST,     /* GOST R 34.10-2012 example 2 curve */
  GOSTX_GOST3410_512_A,        /* id-tc26-gost-3410-2012-512-paramSetA */
  GOSTX_GOST3410_512_B,        /* id-tc26-gost-3410-2012-512-paramSetB */
  GOSTX_GOST3410_512_C         /* id-tc26-gost-3410-2012-512-paramSetC (Edwards, cofactor 4) */
} gostx_gost3410_curve;

/* Field size in bytes of a curve (32 or 64), 0 for an unknown id. */
GOSTX_API size_t gostx_gost3410_size(gostx_gost3410_curve curve);
/* The curve's parameter-set name ("id-tc26-gost-3410-2012-256-paramSetA") and
 * OID ("1.2.643.7.1.2.1.1.1"), or NULL for an unknown id. */
GOSTX_API const char *gostx_gost3410_curve_name(gostx_gost3410_curve curve);
GOSTX_API const char *gostx_gost3410_curve_oid(gostx_gost3410_curve curve);
/* The id for a name or OID as above, or the CryptoPro aliases
 * ("id-GostR3410-2001-CryptoPro-A-ParamSet", "...-XchA-ParamSet", ...);
 * GOSTX_EINVAL when unknown. */
GOSTX_API int gostx_gost3410_curve_by_name(const char *name);

/* A new key pair from the OS generator: priv[len], pub[2 * len]. */
GOSTX_API int gostx_gost3410_keygen(gostx_gost3410_curve curve, uint8_t *priv, size_t priv_len,
                                    uint8_t *pub, size_t pub_len);
/* Q = d * P. */
GOSTX_API int gostx_gost3410_public_key(gostx_gost3410_curve curve, const uint8_t *priv,
                                        size_t priv_len, uint8_t *pub, size_t pub_len);
/* 0 when pub is a point of the curve (not infinity, coordinates < p). */
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_check_public_key(gostx_gost3410_curve curve,
                                                               const uint8_t *pub,
                                                               size_t pub_len);
/* Signs a digest (digest_len = len); sig = r || s (2 * len bytes, big-endian).
 * The nonce is hedged: see docs/GOST3410.md. */
GOSTX_API int gostx_gost3410_sign(gostx_gost3410_curve curve, const uint8_t *priv,
                                  size_t priv_len, const uint8_t *digest, size_t digest_len,
                                  uint8_t *sig, size_t sig_len);
/* 0 when sig = r || s is a valid signature of digest under pub. */
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_verify(gostx_gost3410_curve curve,
                                                     const uint8_t *pub, size_t pub_len,
                                                     const uint8_t *digest, size_t digest_len,
                                                     const uint8_t *sig, size_t sig_len);
/* VKO_GOSTR3410_2012_256 (out_len 32) or _512 (out_len 64):
 * K = (cofactor * UKM * d) * Q_peer, out = Streebog(x_K || y_K), the
 * coordinates each written little-endian (len bytes), as R 50.1.113-2016 does. */
GOSTX_API int gostx_gost3410_vko(gostx_gost3410_curve curve, const uint8_t *priv,
                                 size_t priv_len, const uint8_t *peer_pub, size_t pub_len,
                                 const uint8_t *ukm, size_t ukm_len, uint8_t *out,
                                 size_t out_len);

#ifdef __cplusplus
}
#endif
#endif
