/* The GOST TLS 1.2 key schedule and key exchange (RFC 9189 with RFC 5246
 * and RFC 7627): the PRF over HMAC-Streebog-256, the master secrets, the key
 * block, Finished, and the preliminary secret's export and import (KEG +
 * KExp15, KEG_28147 + KExp28147). Labels and lengths are public; secrets
 * pass only through HMAC, the curve and the wraps, and are wiped. */
#include "tls12_internal.h"
#include "gost3410/key_internal.h"

/* RFC 9189 sections 4.1, 4.3 and 8.1.1: cipher, n, the key block's IV
 * length, the MAC, verify_data, CTR-ACPKM's section, TLSTREE, SNMAX. */
static const gostx__tls12_suite suites[] = {
    {GOSTX__TLS12_KUZNYECHIK_CTR_OMAC, "TLS_GOSTR341112_256_WITH_KUZNYECHIK_CTR_OMAC", 1,
     GOSTX_ALG_KUZNYECHIK, 16, 8, 16, 32, 4096, 0xFFFFFFFF00000000u, 0xFFFFFFFFFFF80000u,
     0xFFFFFFFFFFFFFFC0u, UINT64_MAX},
    {GOSTX__TLS12_MAGMA_CTR_OMAC, "TLS_GOSTR341112_256_WITH_MAGMA_CTR_OMAC", 1, GOSTX_ALG_MAGMA, 8,
     4, 8, 32, 1024, 0xFFFFFFC000000000u, 0xFFFFFFFFFE000000u, 0xFFFFFFFFFFFFF000u,
     ((uint64_t)1 << 32) - 1},
    {GOSTX__TLS12_28147_CNT_IMIT, "TLS_GOSTR341112_256_WITH_28147_CNT_IMIT", 0, GOSTX_ALG_MAGMA, 8,
     8, 4, 12, 0, 0, 0, 0, UINT64_MAX},
};

const gostx__tls12_suite *gostx__tls12_suite_by_id(unsigned id) {
  for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
    if (suites[i].id == id) return &suites[i];
  return NULL;
}

/* HMAC(secret, a | label | seed1 | seed2) (a_len 0: without a). */
static int prf_hmac(const uint8_t *secret, size_t secret_len, const uint8_t *a, size_t a_len,
                    const char *label, size_t label_len, const uint8_t *seed1, size_t seed1_len,
                    const uint8_t *seed2, size_t seed2_len, uint8_t out[GOSTX__TLS_HASH_LEN]) {
  gostx_hmac_ctx h;
  int rc = gostx_hmac_init(&h, GOSTX__TLS_HASH_LEN, secret, secret_len);
  if (rc == GOSTX_OK && a_len) rc = gostx_hmac_update(&h, a, a_len);
  if (rc == GOSTX_OK && label_len) rc = gostx_hmac_update(&h, label, label_len);
  if (rc == GOSTX_OK && seed1_len) rc = gostx_hmac_update(&h, seed1, seed1_len);
  if (rc == GOSTX_OK && seed2_len) rc = gostx_hmac_update(&h, seed2, seed2_len);
  if (rc == GOSTX_OK) rc = gostx_hmac_final(&h, out);
  gostx_hmac_clear(&h);
  return rc;
}

/* P_hash: A(0) = label | seed, A(i) = HMAC(secret, A(i-1)), out =
 * HMAC(secret, A(1) | label | seed) | HMAC(secret, A(2) | label | seed) | ... */
int gostx__tls12_prf(const uint8_t *secret, size_t secret_len, const char *label,
                     const uint8_t *seed1, size_t seed1_len, const uint8_t *seed2,
                     size_t seed2_len, uint8_t *out, size_t out_len) {
  if (!secret || !label || !out || (!seed1 && seed1_len) || (!seed2 && seed2_len))
    return GOSTX_EINVAL;
  if (out_len == 0 || out_len > 0xffff) return GOSTX_ELEN;
  size_t label_len = strlen(label);
  uint8_t a[GOSTX__TLS_HASH_LEN], t[GOSTX__TLS_HASH_LEN];
  int rc = prf_hmac(secret, secret_len, NULL, 0, label, label_len, seed1, seed1_len, seed2,
                    seed2_len, a);
  for (size_t done = 0; done < out_len && rc == GOSTX_OK;) {
    rc = prf_hmac(secret, secret_len, a, sizeof a, label, label_len, seed1, seed1_len, seed2,
                  seed2_len, t);
    size_t take = out_len - done < sizeof t ? out_len - done : sizeof t;
    if (rc == GOSTX_OK) memcpy(out + done, t, take);
    done += take;
    if (rc == GOSTX_OK && done < out_len)
      rc = prf_hmac(secret, secret_len, a, sizeof a, "", 0, NULL, 0, NULL, 0, a);
  }
  gostx_memzero(a, sizeof a);
  gostx_memzero(t, sizeof t);
  if (rc != GOSTX_OK) gostx_memzero(out, out_len);
  return rc;
}

int gostx__tls12_master_secret(const uint8_t *pms, size_t pms_len,
                               const uint8_t client_random[GOSTX__TLS12_RANDOM_LEN],
                               const uint8_t server_random[GOSTX__TLS12_RANDOM_LEN],
                               uint8_t ms[GOSTX__TLS12_MS_LEN]) {
  if (!client_random || !server_random) return GOSTX_EINVAL;
  return gostx__tls12_prf(pms, pms_len, "master secret", client_random, GOSTX__TLS12_RANDOM_LEN,
                          server_random, GOSTX__TLS12_RANDOM_LEN, ms, GOSTX__TLS12_MS_LEN);
}

int gostx__tls12_extended_master_secret(const uint8_t *pms, size_t pms_len,
                                        const uint8_t session_hash[GOSTX__TLS_HASH_LEN],
                                        uint8_t ms[GOSTX__TLS12_MS_LEN]) {
  if (!session_hash) return GOSTX_EINVAL;
  return gostx__tls12_prf(pms, pms_len, "extended master secret", session_hash,
                          GOSTX__TLS_HASH_LEN, NULL, 0, ms, GOSTX__TLS12_MS_LEN);
}

int gostx__tls12_key_block(const gostx__tls12_suite *suite, const uint8_t ms[GOSTX__TLS12_MS_LEN],
                           const uint8_t client_random[GOSTX__TLS12_RANDOM_LEN],
                           const uint8_t server_random[GOSTX__TLS12_RANDOM_LEN],
                           gostx__tls12_keys *keys) {
  if (!suite || !ms || !client_random || !server_random || !keys) return GOSTX_EINVAL;
  uint8_t kb[4 * GOSTX__TLS_KEY_LEN + 2 * GOSTX__TLS12_MAX_IV_LEN];
  size_t iv = suite->iv_len, len = 4 * GOSTX__TLS_KEY_LEN + 2 * iv;
  int rc = gostx__tls12_prf(ms, GOSTX__TLS12_MS_LEN, "key expansion", server_random,
                            GOSTX__TLS12_RANDOM_LEN, client_random, GOSTX__TLS12_RANDOM_LEN, kb,
                            len);
  memset(keys, 0, sizeof *keys);
  if (rc == GOSTX_OK) {
    const uint8_t *p = kb;
    memcpy(keys->client_mac, p, GOSTX__TLS_KEY_LEN), p += GOSTX__TLS_KEY_LEN;
    memcpy(keys->server_mac, p, GOSTX__TLS_KEY_LEN), p += GOSTX__TLS_KEY_LEN;
    memcpy(keys->client_key, p, GOSTX__TLS_KEY_LEN), p += GOSTX__TLS_KEY_LEN;
    memcpy(keys->server_key, p, GOSTX__TLS_KEY_LEN), p += GOSTX__TLS_KEY_LEN;
    memcpy(keys->client_iv, p, iv), p += iv;
    memcpy(keys->server_iv, p, iv);
  }
  gostx_memzero(kb, sizeof kb);
  return rc;
}

int gostx__tls12_finished(const gostx__tls12_suite *suite, const uint8_t ms[GOSTX__TLS12_MS_LEN],
                          int server, const uint8_t hash[GOSTX__TLS_HASH_LEN], uint8_t *out) {
  if (!suite || !ms || !hash || !out) return GOSTX_EINVAL;
  return gostx__tls12_prf(ms, GOSTX__TLS12_MS_LEN, server ? "server finished" : "client finished",
                          hash, GOSTX__TLS_HASH_LEN, NULL, 0, out, suite->verify_len);
}

/* ---- key exchange ---- */

/* K_EXP_MAC and K_EXP_ENC as ciphers of the suite, from KEG(d, Q, h). */
static int kexp15_keys(const gostx__tls12_suite *suite, const gostx_gost3410_key *key,
                       const uint8_t *q, size_t q_len, const uint8_t h[GOSTX__TLS_HASH_LEN],
                       gostx_cipher *mac, gostx_cipher *enc) {
  if (!suite || !suite->tree || !h) return GOSTX_EINVAL;
  uint8_t k[2 * GOSTX__TLS_KEY_LEN];
  int rc = gostx_gost3410_key_keg(key, q, q_len, h, GOSTX__TLS_HASH_LEN, k, sizeof k);
  if (rc == GOSTX_OK) rc = gostx_cipher_init(mac, suite->alg, k);
  if (rc == GOSTX_OK) rc = gostx_cipher_init(enc, suite->alg, k + GOSTX__TLS_KEY_LEN);
  gostx_memzero(k, sizeof k);
  return rc;
}

int gostx__tls12_kexp15(const gostx__tls12_suite *suite, gostx_gost3410_curve curve,
                        const uint8_t *d, size_t d_len, const uint8_t *q, size_t q_len,
                        const uint8_t h[GOSTX__TLS_HASH_LEN],
                        const uint8_t pms[GOSTX__TLS12_PMS_LEN], uint8_t *out, size_t *out_len) {
  if (!pms || !out || !out_len) return GOSTX_EINVAL;
  gostx_cipher mac, enc;
  gostx_gost3410_key eph;
  memset(&mac, 0, sizeof mac);
  memset(&enc, 0, sizeof enc);
  int rc = gostx__key_from_d(&eph, curve, d, d_len);
  if (rc == GOSTX_OK) rc = kexp15_keys(suite, &eph, q, q_len, h, &mac, &enc);
  /* IV = H[25..24 + n/2] (1-based): the bytes from offset 24. */
  if (rc == GOSTX_OK)
    rc = gostx_kexp15(&enc, &mac, h + 24, suite->block_len / 2, pms, GOSTX__TLS12_PMS_LEN, out,
                      out_len);
  gostx_gost3410_key_clear(&eph);
  gostx_cipher_clear(&mac);
  gostx_cipher_clear(&enc);
  return rc;
}

int gostx__tls12_kimp15(const gostx__tls12_suite *suite, const gostx_gost3410_key *key,
                        const uint8_t *q, size_t q_len, const uint8_t h[GOSTX__TLS_HASH_LEN],
                        const uint8_t *in, size_t in_len, uint8_t pms[GOSTX__TLS12_PMS_LEN]) {
  if (!in || !pms || !suite) return GOSTX_EINVAL;
  if (in_len != GOSTX__TLS12_PMS_LEN + suite->block_len) return GOSTX_ELEN;
  gostx_cipher mac, enc;
  uint8_t s[GOSTX__TLS12_PMS_LEN];
  size_t s_len = 0;
  memset(&mac, 0, sizeof mac);
  memset(&enc, 0, sizeof enc);
  int rc = kexp15_keys(suite, key, q, q_len, h, &mac, &enc);
  if (rc == GOSTX_OK)
    rc = gostx__verdict(
        gostx_kimp15(&enc, &mac, h + 24, suite->block_len / 2, in, in_len, s, &s_len));
  if (rc == GOSTX_OK) memcpy(pms, s, sizeof s);
  gostx_cipher_clear(&mac);
  gostx_cipher_clear(&enc);
  gostx_memzero(s, sizeof s);
  return rc;
}

/* KEG_28147(d, Q, h) = CPDivers(UKM, VKO_256(d, Q, UKM)), UKM = h[0..8). */
static int keg28147(const gostx_gost3410_key *key, const uint8_t *q, size_t q_len,
                    const uint8_t h[GOSTX__TLS_HASH_LEN], uint8_t kek[GOSTX__TLS_KEY_LEN]) {
  if (!h) return GOSTX_EINVAL;
  uint8_t r[GOSTX__TLS_KEY_LEN];
  int rc = gostx_gost3410_key_vko(key, q, q_len, h, 8, r, sizeof r);
  if (rc == GOSTX_OK) rc = gostx_cpro_kek_diversify(r, GOSTX_SBOX_TC26_Z, h, kek);
  gostx_memzero(r, sizeof r);
  return rc;
}

/* KExp28147 (pms given) or KImp28147 (wrapped given) under KEG_28147. */
static int kx28147(const gostx_gost3410_key *key, const uint8_t *q, size_t q_len,
                   const uint8_t *h, const uint8_t *pms, const uint8_t *wrapped, uint8_t *out) {
  uint8_t kek[GOSTX__TLS_KEY_LEN];
  int rc = keg28147(key, q, q_len, h, kek);
  if (rc == GOSTX_OK && pms) rc = gostx_gost89_key_wrap(kek, GOSTX_SBOX_TC26_Z, h, pms, out);
  if (rc == GOSTX_OK && wrapped)
    rc = gostx__verdict(gostx_gost89_key_unwrap(kek, GOSTX_SBOX_TC26_Z, wrapped, out));
  gostx_memzero(kek, sizeof kek);
  return rc;
}

int gostx__tls12_kexp28147(gostx_gost3410_curve curve, const uint8_t *d, size_t d_len,
                           const uint8_t *q, size_t q_len, const uint8_t h[GOSTX__TLS_HASH_LEN],
                           const uint8_t pms[GOSTX__TLS12_PMS_LEN],
                           uint8_t out[GOSTX__TLS12_KEXP28147_LEN]) {
  if (!pms || !out) return GOSTX_EINVAL;
  gostx_gost3410_key eph;
  int rc = gostx__key_from_d(&eph, curve, d, d_len);
  if (rc == GOSTX_OK) rc = kx28147(&eph, q, q_len, h, pms, NULL, out);
  gostx_gost3410_key_clear(&eph);
  return rc;
}

int gostx__tls12_kimp28147(const gostx_gost3410_key *key, const uint8_t *q, size_t q_len,
                           const uint8_t h[GOSTX__TLS_HASH_LEN],
                           const uint8_t in[GOSTX__TLS12_KEXP28147_LEN],
                           uint8_t pms[GOSTX__TLS12_PMS_LEN]) {
  if (!in || !pms || !h) return GOSTX_EINVAL;
  /* KImp28147 step 2: the IV sent must be h[1..8] (public bytes both sides have). */
  if (memcmp(in, h, 8) != 0) return GOSTX_EAUTH;
  return kx28147(key, q, q_len, h, NULL, in, pms);
}
