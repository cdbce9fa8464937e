/* RFC 7292's own password integrity and privacy, read only, for the files
 * CryptoPro CSP writes around its GOST key bag (pkcs12_internal.h): the
 * appendix B.2 KDF over SHA-1, MacData HMAC-SHA1 keyed by it (ID 3), and
 * the PBEs of appendix C gostx reads (key ID 1, IV ID 2):
 * pbeWithSHAAnd3-KeyTripleDES-CBC, pbeWithSHAAnd128BitRC2-CBC and
 * pbeWithSHAAnd40BitRC2-CBC. The password is a BMPString with its two-byte
 * NUL (B.1). */
#include <string.h>

#include "des3/des3.h"
#include "rc2/rc2.h"
#include "pkcs12/pkcs12_internal.h"
#include "sha1/sha1.h"

#define V GOSTX__SHA1_BLOCK /* the KDF's block, v */
#define U GOSTX__SHA1_LEN   /* its output block, u */

/* x repeated to fill out[n] (n a multiple of V; nothing when len is 0). */
static void repeat(const uint8_t *x, size_t len, uint8_t *out, size_t n) {
  for (size_t i = 0; i < n && len; i++) out[i] = x[i % len];
}

/* I_j = (I_j + B + 1) mod 2^(8v), big-endian, for every block of I: plain
 * adds with the carry in a word, no branch on the bytes (I holds the
 * password). */
static void add_b(uint8_t *in, size_t in_len, const uint8_t b[V]) {
  for (size_t j = 0; j < in_len; j += V) {
    unsigned carry = 1;
    for (size_t k = V; k-- > 0;) {
      carry += (unsigned)in[j + k] + b[k];
      in[j + k] = (uint8_t)carry;
      carry >>= 8;
    }
  }
}

int gostx__pkcs12_kdf_sha1(const uint8_t *bmp, size_t bmp_len, const uint8_t *salt,
                           size_t salt_len, uint8_t id, uint32_t iter, uint8_t *out, size_t n) {
  size_t s_len = V * ((salt_len + V - 1) / V), p_len = V * ((bmp_len + V - 1) / V);
  if (iter == 0 || salt_len > 1024 || bmp_len > 1024) return GOSTX_EINVAL;
  uint8_t in[2 * 1024 + 2 * V], d[V], a[U], b[V];
  memset(d, id, sizeof d);
  repeat(salt, salt_len, in, s_len);
  repeat(bmp, bmp_len, in + s_len, p_len);
  for (size_t done = 0; done < n; done += U) {
    gostx__sha1_ctx ctx;
    gostx__sha1_init(&ctx);
    gostx__sha1_update(&ctx, d, sizeof d);
    gostx__sha1_update(&ctx, in, s_len + p_len);
    gostx__sha1_final(&ctx, a);
    for (uint32_t r = 1; r < iter; r++) gostx__sha1(a, sizeof a, a);
    memcpy(out + done, a, n - done < U ? n - done : U);
    repeat(a, sizeof a, b, sizeof b);
    add_b(in, s_len + p_len, b);
  }
  gostx_memzero(in, sizeof in), gostx_memzero(a, sizeof a), gostx_memzero(b, sizeof b);
  return 0;
}

int gostx__pkcs12_bmp_password(const uint8_t *pass, size_t pass_len, uint8_t *bmp, size_t cap,
                               size_t *bmp_len) {
  size_t n = 0;
  for (size_t i = 0; i < pass_len;) {
    uint32_t c = pass[i];
    size_t k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 0;
    if (!k || i + k > pass_len) return GOSTX_EINVAL; /* not UTF-8 within the BMP */
    c = k == 1 ? c : c & (k == 2 ? 0x1f : 0x0f);
    for (size_t j = 1; j < k; j++) {
      if ((pass[i + j] & 0xc0) != 0x80) return GOSTX_EINVAL;
      c = c << 6 | (pass[i + j] & 0x3f);
    }
    if (n + 2 > cap) return GOSTX_ELEN;
    bmp[n] = (uint8_t)(c >> 8), bmp[n + 1] = (uint8_t)c;
    n += 2, i += k;
  }
  if (n + 2 > cap) return GOSTX_ELEN;
  bmp[n] = bmp[n + 1] = 0; /* the terminating NUL, B.1 */
  *bmp_len = n + 2;
  return 0;
}

int gostx__pkcs12_mac_sha1(const uint8_t *bmp, size_t bmp_len, const uint8_t *salt,
                           size_t salt_len, uint32_t iter, const uint8_t *data, size_t len,
                           uint8_t *mac) {
  uint8_t k[U];
  int rc = gostx__pkcs12_kdf_sha1(bmp, bmp_len, salt, salt_len, 3, iter, k, sizeof k);
  if (!rc) gostx__hmac_sha1(k, sizeof k, data, len, mac);
  gostx_memzero(k, sizeof k);
  return rc;
}

/* The key each PBE takes (appendix C): 3DES's three keys, RC2's 16 or 5
 * bytes (effective bits the same). */
static size_t pbe_key_len(gostx__p12_legacy_pbe pbe) {
  return pbe == GOSTX__P12_SHA_3DES ? GOSTX__DES3_KEY_LEN : pbe == GOSTX__P12_SHA_RC2_128 ? 16 : 5;
}

int gostx__pkcs12_legacy_decrypt(gostx__p12_legacy_pbe pbe, const uint8_t *bmp, size_t bmp_len,
                                 const uint8_t *salt, size_t salt_len, uint32_t iter,
                                 const uint8_t *in, size_t len, uint8_t *out, size_t *out_len) {
  uint8_t key[GOSTX__DES3_KEY_LEN], iv[8];
  size_t key_len = pbe_key_len(pbe);
  if (!len || len % 8) return GOSTX_EFORMAT;
  int rc = gostx__pkcs12_kdf_sha1(bmp, bmp_len, salt, salt_len, 1, iter, key, key_len);
  if (!rc) rc = gostx__pkcs12_kdf_sha1(bmp, bmp_len, salt, salt_len, 2, iter, iv, sizeof iv);
  if (!rc && pbe == GOSTX__P12_SHA_3DES) rc = gostx__des3_cbc_decrypt(key, iv, in, len, out);
  else if (!rc) rc = gostx__rc2_cbc_decrypt(key, key_len, (unsigned)(8 * key_len), iv, in, len, out);
  gostx_memzero(key, sizeof key);
  if (rc) return rc;
  return gostx__cbc_unpad8(out, len, out_len);
}
