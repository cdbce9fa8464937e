/* CryptoPro CSP's key bag (pkcs12_internal.h): a pkcs8ShroudedKeyBag whose
 * encryptionAlgorithm is 1.2.840.113549.1.12.1.80 with parameters
 * SEQUENCE { salt OCTET STRING, iterations INTEGER }. No standard defines
 * it; the steps below are those of TC26 MR 26.2.001-2012's password scheme
 * as converter projects describe them, checked on CryptoPro's own exports
 * (tests/vectors/pkcs12/README.cryptopro): every step is verified there by
 * the key wrap's MAC and by the key matching its certificate.
 *  1. K = password as UTF-16LE; K = GOST R 34.11-94(K | salt | i), i a
 *     16-bit big-endian counter, for i = 1 .. iterations (CryptoPro's
 *     34.11-94 parameter set).
 *  2. The bag decrypts under GOST 28147-89 CFB (CryptoPro-A S-box, no key
 *     meshing), key K, IV the salt's first 8 bytes, to a PrivateKeyInfo
 *     whose privateKey is CryptoAPI's private key blob: a 16-byte header
 *     (type 7, the ALG_ID, "MAG1", ...) then SEQUENCE { SEQUENCE { ukm,
 *     SEQUENCE { CEK_ENC, CEK_MAC }, [0] { usage, [0] { agreement OID,
 *     the key's parameters } } }, OCTET STRING }.
 *  3. The key (CEK) unwrapped from CEK_ENC: GOST R 34.10-2001 keys with
 *     the CryptoPro key wrap under K (RFC 4357 6.3); 2012 keys under
 *     KEK = KDF_GOSTR3411_2012_256(K, 26 bd b8 78, ukm) with the GOST
 *     28147-89 key wrap (RFC 4357 6.1: ECB, CEK_MAC = IMIT(ukm, KEK, CEK)),
 *     over both halves of a 512-bit key. CEK_MAC checked in constant time.
 *  4. The key, little-endian as in the blob, becomes a PrivateKeyInfo with
 *     the blob's algorithm and parameters (the bare-string form gost-engine
 *     and lib/gost3410 read). */
#include <string.h>

#include "gostx/gost89.h"
#include "gostx/gost94.h"
#include "gostx/kdf.h"
#include "gostx/keywrap.h"
#include "pkcs12/pkcs12_internal.h"

#define OID_2001 "1.2.643.2.2.19"
#define OID_2012_256 "1.2.643.7.1.1.1.1"
#define OID_2012_512 "1.2.643.7.1.1.1.2"
#define BLOB_HEADER 16

int gostx__pkcs12_cpro_params(gostx__der params, gostx__der *salt, uint32_t *iter) {
  gostx__der body;
  if (gostx__der_get(&params, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&params) ||
      gostx__der_get(&body, GOSTX__DER_OCTETS, salt, NULL) || salt->n < 8 || salt->n > 64 ||
      gostx__der_u32(&body, iter) || !gostx__der_done(&body))
    return GOSTX_EFORMAT;
  return *iter == 0 || *iter > GOSTX__P12_CPRO_ITER_MAX ? GOSTX_EUNSUP : 0;
}

/* Step 1. The password arrives as UTF-8; its BMPString, byte-swapped and
 * without the NUL, is the UTF-16LE the scheme hashes. */
static int password_key(const uint8_t *pass, size_t pass_len, gostx__der salt, uint32_t iter,
                        uint8_t k[32]) {
  uint8_t buf[2 * 256 + 2 + 64 + 2];
  size_t n;
  int rc = gostx__pkcs12_bmp_password(pass, pass_len, buf, 2 * 256 + 2, &n);
  if (rc) return rc;
  n -= 2;
  for (size_t i = 0; i < n; i += 2) {
    uint8_t t = buf[i];
    buf[i] = buf[i + 1], buf[i + 1] = t;
  }
  for (uint32_t i = 1; i <= iter; i++) {
    memcpy(buf + n, salt.p, salt.n);
    buf[n + salt.n] = (uint8_t)(i >> 8), buf[n + salt.n + 1] = (uint8_t)i;
    gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, buf, n + salt.n + 2, k);
    memcpy(buf, k, 32), n = 32;
  }
  gostx_memzero(buf, sizeof buf);
  return 0;
}

/* The blob's fields (step 2). */
typedef struct blob {
  gostx__der ukm, enc, mac, params; /* params: the SEQUENCE of the key's OIDs, whole */
} blob;

static int parse_blob(gostx__der b, blob *out) {
  gostx__der all, inner, cek, attrs, algs, agree, tail;
  static const uint8_t magic[4] = {'M', 'A', 'G', '1'};
  if (b.n < BLOB_HEADER || b.p[0] != 7 || memcmp(b.p + 8, magic, 4)) return GOSTX_EFORMAT;
  b.p += BLOB_HEADER, b.n -= BLOB_HEADER;
  if (gostx__der_get(&b, GOSTX__DER_SEQ, &all, NULL) || !gostx__der_done(&b) ||
      gostx__der_get(&all, GOSTX__DER_SEQ, &inner, NULL) ||
      gostx__der_get(&all, GOSTX__DER_OCTETS, &tail, NULL) || !gostx__der_done(&all) ||
      gostx__der_get(&inner, GOSTX__DER_OCTETS, &out->ukm, NULL) || out->ukm.n != 8 ||
      gostx__der_get(&inner, GOSTX__DER_SEQ, &cek, NULL) ||
      gostx__der_get(&cek, GOSTX__DER_OCTETS, &out->enc, NULL) ||
      gostx__der_get(&cek, GOSTX__DER_OCTETS, &out->mac, NULL) || out->mac.n != 4 ||
      !gostx__der_done(&cek) || gostx__der_get(&inner, GOSTX__DER_CTXC(0), &attrs, NULL) ||
      !gostx__der_done(&inner))
    return GOSTX_EFORMAT;
  /* [0] { key usage BIT STRING, [0] { agreement OID, parameters } } */
  if (gostx__der_get(&attrs, 0x03, NULL, NULL) ||
      gostx__der_get(&attrs, GOSTX__DER_CTXC(0), &algs, NULL) || !gostx__der_done(&attrs) ||
      gostx__der_oid(&algs, &agree) ||
      gostx__der_get(&algs, GOSTX__DER_SEQ, NULL, &out->params) || !gostx__der_done(&algs))
    return GOSTX_EFORMAT;
  return 0;
}

/* Step 3: cek[enc.n] from the blob under the password key k. */
static int unwrap(const char *alg, const uint8_t k[32], const blob *b, uint8_t *cek) {
  static const uint8_t label[4] = {0x26, 0xbd, 0xb8, 0x78};
  uint8_t wrapped[GOSTX_GOST89_WRAP_LEN], kek[32], mac[4];
  if (!strcmp(alg, OID_2001)) {
    if (b->enc.n != 32) return GOSTX_EFORMAT;
    memcpy(wrapped, b->ukm.p, 8), memcpy(wrapped + 8, b->enc.p, 32), memcpy(wrapped + 40, b->mac.p, 4);
    return gostx_cpro_key_unwrap(k, GOSTX_SBOX_CRYPTOPRO_A, wrapped, cek);
  }
  if (b->enc.n != (strcmp(alg, OID_2012_512) ? 32u : 64u)) return GOSTX_EFORMAT;
  gostx_gost89_key key;
  int rc = gostx_kdf256(k, 32, label, sizeof label, b->ukm.p, 8, kek);
  if (!rc) rc = gostx_gost89_set_key(&key, kek, GOSTX_SBOX_CRYPTOPRO_A);
  if (!rc) rc = gostx_gost89_ecb_decrypt(&key, b->enc.p, b->enc.n, cek);
  if (!rc) rc = gostx_gost89_imit(&key, b->ukm.p, 0, cek, b->enc.n, mac, sizeof mac);
  if (!rc) rc = gostx__verdict(gostx_memeq_ct(mac, b->mac.p, sizeof mac) & GOSTX_EAUTH);
  if (rc) gostx_memzero(cek, b->enc.n);
  gostx_memzero(kek, sizeof kek), gostx_memzero(&key, sizeof key);
  return rc;
}

/* Step 4. */
static int put_key(const char *alg, const blob *b, const uint8_t *cek, uint8_t *out, size_t cap,
                   size_t *out_len) {
  gostx__der_w w;
  gostx__der_w_init(&w, out, cap);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_u32(&w, 0);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_oid(&w, alg);
  gostx__der_w_raw(&w, b->params.p, b->params.n);
  gostx__der_w_end(&w);
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, cek, b->enc.n);
  gostx__der_w_end(&w);
  return gostx__der_w_finish(&w, out_len);
}

int gostx__pkcs12_cpro_decrypt(const uint8_t *pass, size_t pass_len, gostx__der salt,
                               uint32_t iter, gostx__der ct, uint8_t *out, size_t cap,
                               size_t *out_len) {
  uint8_t k[32], cek[64];
  gostx__der r, body, alg, alg_oid, key;
  gostx_gost89_key cfb;
  blob b;
  char oid[64];
  if (ct.n > cap) return GOSTX_ELEN;
  int rc = password_key(pass, pass_len, salt, iter, k);
  if (!rc) rc = gostx_gost89_set_key(&cfb, k, GOSTX_SBOX_CRYPTOPRO_A);
  if (!rc) rc = gostx_gost89_cfb(&cfb, salt.p, 0, 1, ct.p, ct.n, out);
  gostx_memzero(&cfb, sizeof cfb);
  if (rc) goto done;
  r = (gostx__der){out, ct.n};
  rc = GOSTX_EFORMAT; /* the caller says: not under this password, or altered */
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&r) ||
      gostx__der_get(&body, GOSTX__DER_INT, NULL, NULL) ||
      gostx__der_get(&body, GOSTX__DER_SEQ, &alg, NULL) ||
      gostx__der_oid(&alg, &alg_oid) || gostx__der_oid_text(alg_oid, oid, sizeof oid) ||
      gostx__der_get(&body, GOSTX__DER_OCTETS, &key, NULL) || parse_blob(key, &b))
    goto done;
  if (strcmp(oid, OID_2001) && strcmp(oid, OID_2012_256) && strcmp(oid, OID_2012_512)) {
    rc = GOSTX_EUNSUP;
    goto done;
  }
  if ((rc = unwrap(oid, k, &b, cek))) goto done;
  /* the blob's fields point into out, which the key now overwrites: copy
   * the parameters first (they are public) */
  uint8_t params[96];
  if (b.params.n > sizeof params) {
    rc = GOSTX_EFORMAT;
    goto done;
  }
  memcpy(params, b.params.p, b.params.n);
  b.params.p = params;
  gostx_memzero(out, ct.n);
  rc = put_key(oid, &b, cek, out, cap, out_len);
done:
  if (rc) gostx_memzero(out, ct.n);
  gostx_memzero(k, sizeof k), gostx_memzero(cek, sizeof cek);
  return rc;
}
