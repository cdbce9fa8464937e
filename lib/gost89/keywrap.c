/* The GOST 28147-89 key wrap and the CryptoPro key wrap of RFC 4357
 * (sections 6.1-6.5): a 32-byte CEK encrypted in ECB under the KEK with a
 * 4-byte IMIT over it that starts from the 8-byte UKM; the CryptoPro form
 * first diversifies the KEK by the UKM (section 6.5: eight CFB passes whose
 * IVs are sums of the key's words chosen by the UKM's bits). RFC 9189's
 * KEG_28147 (CPDivers) and KExp28147 are these. The UKM is public; the sums
 * are taken with masks all the same, so the key's words are not branched on. */
#include "internal.h"

int gostx_cpro_kek_diversify(const uint8_t kek[GOSTX_KEY_LEN], gostx_sbox sbox,
                             const uint8_t ukm[8], uint8_t out[GOSTX_KEY_LEN]) {
  if (!kek || !ukm || !out) return GOSTX_EINVAL;
  uint8_t k[GOSTX_KEY_LEN], iv[8];
  gostx_gost89_key key;
  int rc = GOSTX_OK;
  memcpy(k, kek, sizeof k);
  for (int i = 0; i < 8 && rc == GOSTX_OK; i++) {
    uint32_t s1 = 0, s2 = 0;
    for (int j = 0; j < 8; j++) {
      uint32_t w = gostx_load32_le(k + 4 * j);
      uint32_t bit = 0u - (uint32_t)((ukm[i] >> j) & 1u);
      s1 += w & bit;
      s2 += w & ~bit;
    }
    gostx_store32_le(iv, s1);
    gostx_store32_le(iv + 4, s2);
    rc = gostx_gost89_set_key(&key, k, sbox);
    if (rc == GOSTX_OK) rc = gostx_gost89_cfb(&key, iv, 0, 0, k, sizeof k, k);
  }
  if (rc == GOSTX_OK) memcpy(out, k, sizeof k);
  gostx_memzero(k, sizeof k);
  gostx_memzero(&key, sizeof key);
  return rc;
}

int gostx_gost89_key_wrap(const uint8_t kek[GOSTX_KEY_LEN], gostx_sbox sbox,
                          const uint8_t ukm[8], const uint8_t cek[GOSTX_KEY_LEN],
                          uint8_t out[GOSTX_GOST89_WRAP_LEN]) {
  if (!kek || !ukm || !cek || !out) return GOSTX_EINVAL;
  gostx_gost89_key key;
  uint8_t mac[4];
  int rc = gostx_gost89_set_key(&key, kek, sbox);
  if (rc == GOSTX_OK) rc = gostx_gost89_imit(&key, ukm, 0, cek, GOSTX_KEY_LEN, mac, sizeof mac);
  if (rc == GOSTX_OK) {
    memmove(out + 8, cek, GOSTX_KEY_LEN); /* cek may lie in out */
    memcpy(out, ukm, 8);
    rc = gostx_gost89_ecb_encrypt(&key, out + 8, GOSTX_KEY_LEN, out + 8);
  }
  if (rc == GOSTX_OK) memcpy(out + 8 + GOSTX_KEY_LEN, mac, sizeof mac);
  else gostx_memzero(out, GOSTX_GOST89_WRAP_LEN);
  gostx_memzero(&key, sizeof key);
  gostx_memzero(mac, sizeof mac);
  return rc;
}

int gostx_gost89_key_unwrap(const uint8_t kek[GOSTX_KEY_LEN], gostx_sbox sbox,
                            const uint8_t in[GOSTX_GOST89_WRAP_LEN],
                            uint8_t cek[GOSTX_KEY_LEN]) {
  if (!kek || !in || !cek) return GOSTX_EINVAL;
  gostx_gost89_key key;
  uint8_t k[GOSTX_KEY_LEN], mac[4];
  int rc = gostx_gost89_set_key(&key, kek, sbox);
  if (rc == GOSTX_OK) rc = gostx_gost89_ecb_decrypt(&key, in + 8, GOSTX_KEY_LEN, k);
  if (rc == GOSTX_OK) rc = gostx_gost89_imit(&key, in, 0, k, sizeof k, mac, sizeof mac);
  /* memeq_ct is 0 or -1: the verdict is formed without a branch, then
   * made public through the one door (lib/common.c). */
  if (rc == GOSTX_OK)
    rc = gostx__verdict(gostx_memeq_ct(mac, in + 8 + GOSTX_KEY_LEN, sizeof mac) & GOSTX_EAUTH);
  if (rc == GOSTX_OK) memcpy(cek, k, sizeof k);
  gostx_memzero(&key, sizeof key);
  gostx_memzero(k, sizeof k);
  gostx_memzero(mac, sizeof mac);
  return rc;
}

int gostx_cpro_key_wrap(const uint8_t kek[GOSTX_KEY_LEN], gostx_sbox sbox, const uint8_t ukm[8],
                        const uint8_t cek[GOSTX_KEY_LEN], uint8_t out[GOSTX_GOST89_WRAP_LEN]) {
  uint8_t k[GOSTX_KEY_LEN];
  int rc = gostx_cpro_kek_diversify(kek, sbox, ukm, k);
  if (rc == GOSTX_OK) rc = gostx_gost89_key_wrap(k, sbox, ukm, cek, out);
  gostx_memzero(k, sizeof k);
  return rc;
}

int gostx_cpro_key_unwrap(const uint8_t kek[GOSTX_KEY_LEN], gostx_sbox sbox,
                          const uint8_t in[GOSTX_GOST89_WRAP_LEN], uint8_t cek[GOSTX_KEY_LEN]) {
  if (!in) return GOSTX_EINVAL;
  uint8_t k[GOSTX_KEY_LEN];
  int rc = gostx_cpro_kek_diversify(kek, sbox, in, k);
  if (rc == GOSTX_OK) rc = gostx_gost89_key_unwrap(k, sbox, in, cek);
  gostx_memzero(k, sizeof k);
  return rc;
}
