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
 * off the curve, a coordinate >= p, the point at infinity or (256 paramSetA,
 * 512 paramSetC: cofactor 4) outside the order-q subgroup; GOSTX_ELEN a
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
/* The named parameter sets, one per call for i = 0, 1, ...: the set's name
 * and OID (as gostx_gost3410_curve_by_name takes them) and its curve id as
 * the result; GOSTX_EINVAL past the last. Each curve's own name comes
 * first (i < the number of ids), then the CryptoPro aliases, which share a
 * curve under their own OIDs. One table for the library, the CLI and the
 * OpenSSL provider. */
GOSTX_API int gostx_gost3410_paramset(size_t i, const char **name, const char **oid);
/* The curve's short name ("256A" .. "256D", "512A" .. "512C", "256TEST",
 * "512TEST": the tc26 paramSets and the standard's examples), or NULL for
 * an unknown id; and the id for a short name in either case, GOSTX_EINVAL
 * when unknown. The CLI's CURVE arguments and the benchmark's rows use them. */
GOSTX_API const char *gostx_gost3410_curve_short_name(gostx_gost3410_curve curve);
GOSTX_API int gostx_gost3410_curve_by_short_name(const char *name);

/* A new key pair from the OS generator: priv[len], pub[2 * len]. */
GOSTX_API int gostx_gost3410_keygen(gostx_gost3410_curve curve, uint8_t *priv, size_t priv_len,
                                    uint8_t *pub, size_t pub_len);
/* Q = d * P. */
GOSTX_API int gostx_gost3410_public_key(gostx_gost3410_curve curve, const uint8_t *priv,
                                        size_t priv_len, uint8_t *pub, size_t pub_len);
/* 0 when pub is a point of the curve of order q (not infinity, coordinates
 * < p, q pub = O: checked on the cofactor-4 sets, true of every point on the
 * others). Every call that takes a public key checks the same. */
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
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_vko(gostx_gost3410_curve curve,
                                                  const uint8_t *priv, size_t priv_len,
                                                  const uint8_t *peer_pub, size_t pub_len,
                                                  const uint8_t *ukm, size_t ukm_len,
                                                  uint8_t *out, size_t out_len);

/* KEG (RFC 9189), the key export key of the GOST TLS cipher
 * suites: out[64] from our d, the peer's Q and the
 * 32-byte handshake hash H. UKM = H[1..16] read big-endian (1 when zero);
 * 256-bit curves: KDF_TREE_GOSTR3411_2012_256(VKO_256(d, Q, UKM), "kdf tree",
 * H[17..24], R = 1), 64 bytes; 512-bit curves: VKO_512(d, Q, UKM). What
 * `openssl pkeyutl -derive -pkeyopt ukmhex:H` computes with gost-engine for a
 * 32-byte H. Errors as gostx_gost3410_vko; GOSTX_ELEN unless h_len = 32 and
 * out_len = 64. */
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_keg(gostx_gost3410_curve curve, const uint8_t *priv,
                                                  size_t priv_len, const uint8_t *peer_pub,
                                                  size_t pub_len, const uint8_t *h, size_t h_len,
                                                  uint8_t *out, size_t out_len);

/* ---- key files: DER and PEM (lib/gost3410/keys.c), docs/GOST3410.md ----
 * The formats gost-engine, OpenSSL and X.509 use (RFC 4491, RFC 9215,
 * R 1323565.1.023-2018):
 *   private key: PKCS#8 PrivateKeyInfo, algorithm id-tc26-gost3410-12-256
 *     (1.2.643.7.1.1.1.1) or -512 (1.2.643.7.1.1.1.2), parameters
 *     SEQUENCE { publicKeyParamSet OID, digestParamSet OID OPTIONAL }, the key
 *     an OCTET STRING of d little-endian (what gost-engine 3.x writes);
 *   public key: SubjectPublicKeyInfo, same algorithm, a BIT STRING holding
 *     an OCTET STRING of x || y, each coordinate little-endian.
 * PEM labels "PRIVATE KEY" and "PUBLIC KEY". The API's own byte order stays
 * big-endian (above): the codec converts. Readers are strict DER and refuse,
 * with GOSTX_EFORMAT, anything malformed (bad lengths, non-minimal
 * encodings, trailing bytes, an unknown algorithm or parameter set, a
 * digest OID that does not match the key size, a curve of the other key
 * size); GOSTX_EUNSUP for a well-formed key of another algorithm or an
 * unknown parameter set (an encrypted PKCS#8 key, a GOST R 34.10-2001 key,
 * an RSA key); a well-formed key that is invalid (d = 0 or >= q, a point
 * off the curve or outside the order-q subgroup) is GOSTX_EINVAL. */

/* Large enough for any key this codec writes or reads. */
#define GOSTX_GOST3410_DER_MAX 512
#define GOSTX_GOST3410_PEM_MAX 1024

typedef enum gostx_gost3410_key_kind {
  GOSTX_GOST3410_KEY_PRIVATE = 1, /* PKCS#8 PrivateKeyInfo */
  GOSTX_GOST3410_KEY_PUBLIC = 2   /* SubjectPublicKeyInfo */
} gostx_gost3410_key_kind;
#define GOSTX_GOST3410_OID_MAX 32

/* ---- an external private key: the private operations as callbacks ----
 * For a key that lives elsewhere (a PKCS#11 token, another process) and is
 * never read out: gostx_gost3410_key_set_external (below) makes a key from
 * its Q and these callbacks, and every signer and every key agreement of
 * the library (CMS, X.509 certificates and CRLs, OCSP, TSA, TLS, IKE,
 * XMLDSig) and of the CLI then calls them where it would use d. Each
 * returns 0 or a negative GOSTX_E* code of its own choosing (a removed
 * token, a wrong PIN, ...), which reaches the caller unchanged; the library
 * checks every public argument before calling, and releases nothing of the
 * output of a callback that failed.
 *   sign: sig = r || s (2 * len bytes, big-endian) over digest (len bytes),
 *         exactly what gostx_gost3410_sign computes for the same digest;
 *   vko:  exactly what gostx_gost3410_vko computes (out_len 32 or 64, the
 *         UKM 1..len bytes little-endian, peer_pub already checked as a
 *         point of the order-q subgroup); NULL when the key cannot derive
 *         (key agreement is then GOSTX_EUNSUP). KEG is computed from it. */
typedef struct gostx_gost3410_key_ops {
  int (*sign)(void *ctx, const uint8_t *digest, size_t digest_len, uint8_t *sig, size_t sig_len);
  int (*vko)(void *ctx, const uint8_t *peer_pub, size_t pub_len, const uint8_t *ukm,
             size_t ukm_len, uint8_t *out, size_t out_len);
} gostx_gost3410_key_ops;

/* ---- a key: one reader and one writer for every key file ----
 * A key holds its curve, Q, d when it has the private part, and the
 * parameter set OID the file named (several OIDs name one curve; see
 * GOSTX_GOST3410_OID_MAX below: a key read and written again keeps it).
 * d is secret: gostx_gost3410_key_clear wipes it.
 * An external key (gostx_gost3410_key_set_external) has ops set, d all zero
 * and has_private 0: ask gostx_gost3410_key_is_private whether a key can
 * sign. The key does not own ops_ctx: whoever made the key keeps it (and
 * ops) alive while the key is used, and frees it; gostx_gost3410_key_clear
 * only wipes the struct, and a copy of the struct shares the same ctx.
 * ops and ops_ctx were appended in 0.x (docs/API_CHANGES.md): code that
 * zeroes or copies the whole struct keeps working.
 * gost2001 (appended in 0.x too) marks a GOST R 34.10-2001 key (the same
 * curve arithmetic as a 2012 256-bit key): gostx_gost3410_key_write then
 * writes it as gost-engine writes a 2001 key, algorithm id-GostR3410-2001
 * (1.2.643.2.2.19) with SEQUENCE { its CryptoPro parameter set OID,
 * id-GostR3411-94-CryptoProParamSet 1.2.643.2.2.30.1 } (GOSTX_EINVAL for
 * a 512-bit key or a parameter set OID other than 1.2.643.2.2.35.x /
 * 36.x). The CryptoPro container reader (gostx/keycont.h) sets it, and
 * gostx_p11_key_bind / _key_public for a token key whose
 * CKA_GOSTR3411_PARAMS name GOST R 34.11-94 (gostx/pkcs11.h); the key
 * reader still refuses 2001 key files. The library's signers hash with
 * Streebog and write the 2012 OIDs, so gostx_gost3410_key_sign (and with
 * it CMS, X.509 certificates, CSRs and CRLs, OCSP, TSA, IKE AUTH,
 * XMLDSig) refuses such a key with GOSTX_EUNSUP, and
 * gostx_tls_config_set_key does too. A caller that makes a bare 2001
 * signature (`gostx sign`: the digest GOST R 34.11-94, as gost-engine's
 * md_gost94) clears the flag on its copy. */
typedef struct gostx_gost3410_key {
  gostx_gost3410_curve curve;
  size_t len;                          /* 32 or 64: bytes of d and of each coordinate */
  int has_private;                     /* d is set */
  uint8_t d[64];                       /* big-endian, len bytes */
  uint8_t q[128];                      /* x || y, big-endian, 2 len bytes */
  char oid[GOSTX_GOST3410_OID_MAX];    /* the parameter set OID, "" for the default */
  const gostx_gost3410_key_ops *ops;   /* NULL, or the private operations of an external key */
  void *ops_ctx;                       /* the callbacks' ctx, not owned */
  int gost2001;                        /* a GOST R 34.10-2001 key: see below */
} gostx_gost3410_key;

typedef enum gostx_gost3410_format {
  GOSTX_GOST3410_DER = 1,
  GOSTX_GOST3410_PEM = 2 /* NUL-terminated text; *out_len excludes the NUL */
} gostx_gost3410_format;

/* Encryption of a written private key (PBES2, below): cipher, iterations
 * 1..10,000,000 (2048 is OpenSSL's default) and the password (any bytes). */
typedef enum gostx_gost3410_pbe {
  GOSTX_GOST3410_PBE_KUZNYECHIK = 1, /* kuznyechik-ctr-acpkm (gost-engine's choice too) */
  GOSTX_GOST3410_PBE_MAGMA = 2       /* magma-ctr-acpkm */
} gostx_gost3410_pbe;
typedef struct gostx_gost3410_pbe_params {
  gostx_gost3410_pbe cipher;
  uint32_t iterations;
  const uint8_t *pass;
  size_t pass_len;
} gostx_gost3410_pbe_params;

/* A key from d (big-endian, the curve's size; 0 < d < q), Q computed; or
 * from Q (on the curve, in the order-q subgroup). oid: NULL or "" for the
 * default OID, else dotted text that names curve (GOSTX_EINVAL otherwise). */
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_key_set_private(gostx_gost3410_key *key,
                                                              gostx_gost3410_curve curve,
                                                              const uint8_t *d, size_t d_len,
                                                              const char *oid);
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_key_set_public(gostx_gost3410_key *key,
                                                             gostx_gost3410_curve curve,
                                                             const uint8_t *q, size_t q_len,
                                                             const char *oid);
/* An external key: Q checked as gostx_gost3410_key_set_public checks it,
 * oid as there, the private operations ops (ops->sign required, ops->vko
 * may be NULL) called with ctx. has_private stays 0 and d zero. */
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_key_set_external(gostx_gost3410_key *key,
                                                               gostx_gost3410_curve curve,
                                                               const uint8_t *q, size_t q_len,
                                                               const char *oid,
                                                               const gostx_gost3410_key_ops *ops,
                                                               void *ctx);
/* 1 when the key can sign: it holds d, or it is an external key; else 0. */
GOSTX_API int gostx_gost3410_key_is_private(const gostx_gost3410_key *key);
/* The private operations of any key, d's or the callbacks': what
 * gostx_gost3410_sign, gostx_gost3410_vko and gostx_gost3410_keg compute
 * (same lengths, same errors), the key's curve taken. An external key
 * without a vko callback: GOSTX_EUNSUP from key_vko and key_keg; a
 * callback's error is returned as it came, out left untouched; a key
 * with no private part: GOSTX_EINVAL; key_sign with a GOST R 34.10-2001
 * key (gost2001, above): GOSTX_EUNSUP, the callback not called. */
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_key_sign(const gostx_gost3410_key *key,
                                                       const uint8_t *digest, size_t digest_len,
                                                       uint8_t *sig, size_t sig_len);
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_key_vko(const gostx_gost3410_key *key,
                                                      const uint8_t *peer_pub, size_t pub_len,
                                                      const uint8_t *ukm, size_t ukm_len,
                                                      uint8_t *out, size_t out_len);
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_key_keg(const gostx_gost3410_key *key,
                                                      const uint8_t *peer_pub, size_t pub_len,
                                                      const uint8_t *h, size_t h_len,
                                                      uint8_t *out, size_t out_len);
/* Reads any key file: DER or PEM (told apart by the input), a private key
 * (PKCS#8, in every form gost-engine reads: besides the form above an
 * INTEGER (older files), a bare 32/64-byte little-endian string, a nested
 * OCTET STRING, and the CryptoPro masked form), a public key
 * (SubjectPublicKeyInfo), or an encrypted private key (PBES2), which needs
 * pass (a wrong password: GOSTX_EAUTH; pass NULL: GOSTX_EAUTH at once, no
 * key derivation run, so untrusted input costs nothing; pass is ignored for
 * the others; an empty password is pass non-NULL, pass_len 0). PEM is
 * read as openssl reads it: text and blocks of other labels before the
 * first key block are skipped (certtool writes a description of the key
 * there), anything after its END line is ignored, the BEGIN and END lines
 * are strict; "\r\n" line ends are allowed. Errors as the codec above says: GOSTX_EFORMAT malformed,
 * GOSTX_EUNSUP another algorithm or scheme, GOSTX_EINVAL an invalid key.
 * *key is written only on success. */
GOSTX_API GOSTX_MUST_CHECK int gostx_gost3410_key_read(gostx_gost3410_key *key, const void *in,
                                                       size_t in_len, const uint8_t *pass,
                                                       size_t pass_len);
/* 1 when in is an encrypted private key (DER or PEM): a caller can ask for
 * the password before reading it; 0 otherwise. */
GOSTX_API int gostx_gost3410_key_is_encrypted(const void *in, size_t in_len);
/* Writes the key's private part (PKCS#8; encrypted when pbe is not NULL)
 * or its public part (SubjectPublicKeyInfo; pbe must be NULL) as DER or
 * PEM into out[cap], *out_len the length. GOSTX_ELEN when cap is too small
 * (*out_len: what it needs), GOSTX_EINVAL for a private part the key lacks,
 * GOSTX_EUNSUP for the private part of an external key (it stays where it
 * is: nothing is written).
 * The salt and IV of an encrypted key come from the OS generator. */
GOSTX_API int gostx_gost3410_key_write(const gostx_gost3410_key *key,
                                       gostx_gost3410_key_kind part,
                                       gostx_gost3410_format format,
                                       const gostx_gost3410_pbe_params *pbe, void *out,
                                       size_t cap, size_t *out_len);
/* Wipes the key (d included). */
GOSTX_API void gostx_gost3410_key_clear(gostx_gost3410_key *key);

/* ---- encrypted private keys: PKCS#8 EncryptedPrivateKeyInfo, PBES2 ----
 * (RFC 8018 with the GOST algorithms of RFC 9337; docs/GOST3410.md): PBKDF2
 * with HMAC-Streebog-512 (1.2.643.7.1.1.4.2), a 32-byte key, then
 * Kuznyechik-CTR-ACPKM (1.2.643.7.1.1.5.2.1) or Magma-CTR-ACPKM
 * (1.2.643.7.1.1.5.1.1) with SEQUENCE { ukm OCTET STRING } whose first n/2
 * bytes are the IV: what gostx_gost3410_key_write writes with a pbe and
 * gost-engine writes and reads (`openssl pkcs8 -topk8 -v2 kuznyechik-ctr-acpkm
 * -v2prf id-tc26-hmac-gost-3411-2012-512`). Read, not written: GOST 28147-89
 * CFB (1.2.643.2.2.21, SEQUENCE { iv, S-box parameter set OID }),
 * gost-engine's `-v2 gost89`; and the PRF hmacWithSHA256
 * (1.2.840.113549.2.9), OpenSSL's default, which gost-engine writes when
 * -v2prf is not given. PEM label "ENCRYPTED PRIVATE KEY". Any other scheme
 * (AES, PBKDF2 with SHA-1 or SHA-512, PKCS#12 PBE, more than 10,000,000
 * iterations, ...) is GOSTX_EUNSUP; gostx_gost3410_key_encryption says which
 * it is. CTR has no integrity check: a wrong password (or a damaged
 * ciphertext) decrypts to something that is not a private key, reported as
 * GOSTX_EAUTH. */
/* The scheme of an encrypted private key (DER, or its PEM block) as text
 * into text[cap], e.g. "PBES2: PBKDF2 with hmacWithSHA256, aes-256-cbc"
 * (unknown OIDs dotted): 0 when gostx_gost3410_key_read reads it,
 * GOSTX_EUNSUP when not (text says what it is), GOSTX_EFORMAT when it is no
 * EncryptedPrivateKeyInfo (text untouched). */
GOSTX_API int gostx_gost3410_key_encryption(const void *in, size_t in_len, char *text,
                                            size_t cap);
/* ---- the parameter set's OID as the key file names it ----
 * Several OIDs name one curve: 256 B = tc26 paramSetB 1.2.643.7.1.2.1.1.2 =
 * CryptoPro-A 1.2.643.2.2.35.1 = CryptoPro-XchA 1.2.643.2.2.36.0; 256 C =
 * paramSetC 1.2.643.7.1.2.1.1.3 = CryptoPro-B 1.2.643.2.2.35.2; 256 D =
 * paramSetD 1.2.643.7.1.2.1.1.4 = CryptoPro-C 1.2.643.2.2.35.3 =
 * CryptoPro-XchB 1.2.643.2.2.36.1. A key whose oid is "" is written with
 * the CryptoPro A, B, C OIDs for B, C, D. gost-engine derives (VKO) only
 * between keys whose OIDs are the same, so a key read keeps in .oid the OID
 * its file named, and gostx_gost3410_key_write writes it back, with the
 * digest OID where gost-engine writes one for that OID (not after the tc26
 * 256-bit OIDs nor 512 paramSetC). The 0.3 calls that took a key as bytes
 * and a curve (gostx_gost3410_priv_to_der, _key_from_pem_oid, ... 20 of
 * them) and gostx_gost3410_encrypted_scheme[_pem] were removed in 0.4.0:
 * docs/API_CHANGES.md names the call for each. */

/* Swaps the halves of a signature (sig_len = 2 len): r || s (this API) <->
 * s || r (gost-engine's `openssl dgst -sign` output, X.509/CMS per RFC 9215),
 * each half big-endian in both. out may equal sig. */
GOSTX_API int gostx_gost3410_sig_swap(const uint8_t *sig, size_t sig_len, uint8_t *out,
                                      size_t out_len);

#ifdef __cplusplus
}
#endif
#endif
