/* The TLS 1.3 key schedule over HMAC-Streebog-256 (RFC 8446 section 7.1 with
 * the hash of RFC 9367) and TLSTREE, the record re-keying of RFC 9367
 * section 4.1.2. Lengths and labels are public; the secrets pass only
 * through HMAC and are wiped from the stack. */
#include "tls_internal.h"

/* RFC 9367: the suites' TLSTREE constants (section 4.1.2) and SNMAX
 * (section 4.1.3); n/8 for the IV and the MGM tag (section 4.1.1). */
static const gostx__tls_suite suites[] = {
    {GOSTX__TLS_KUZNYECHIK_MGM_L, "TLS_GOSTR341112_256_WITH_KUZNYECHIK_MGM_L",
     GOSTX_ALG_KUZNYECHIK, 16, 16, 0xF800000000000000u, 0xFFFFFFF000000000u,
     0xFFFFFFFFFFFFE000u, UINT64_MAX},
    {GOSTX__TLS_MAGMA_MGM_L, "TLS_GOSTR341112_256_WITH_MAGMA_MGM_L", GOSTX_ALG_MAGMA, 8, 8,
     0xFFE0000000000000u, 0xFFFFFFFFC0000000u, 0xFFFFFFFFFFFFFF80u, UINT64_MAX},
    {GOSTX__TLS_KUZNYECHIK_MGM_S, "TLS_GOSTR341112_256_WITH_KUZNYECHIK_MGM_S",
     GOSTX_ALG_KUZNYECHIK, 16, 16, 0xFFFFFFFFE0000000u, 0xFFFFFFFFFFFF0000u,
     0xFFFFFFFFFFFFFFF8u, ((uint64_t)1 << 42) - 1},
    {GOSTX__TLS_MAGMA_MGM_S, "TLS_GOSTR341112_256_WITH_MAGMA_MGM_S", GOSTX_ALG_MAGMA, 8, 8,
     0xFFFFFFFFFC000000u, 0xFFFFFFFFFFFFE000u, 0xFFFFFFFFFFFFFFFFu, ((uint64_t)1 << 39) - 1},
};

const gostx__tls_suite *gostx__tls_suite_by_id(unsigned id) {
  for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
    if (suites[i].id == id) return &suites[i];
  return NULL;
}

int gostx__tls_hkdf_extract(const uint8_t *salt, size_t salt_len, const uint8_t *ikm,
                            size_t ikm_len, uint8_t prk[GOSTX__TLS_HASH_LEN]) {
  static const uint8_t zeros[GOSTX__TLS_HASH_LEN] = {0};
  if (!prk || (!ikm && ikm_len) || (!salt && salt_len)) return GOSTX_EINVAL;
  if (!salt) {
    salt = zeros;
    salt_len = sizeof zeros;
  }
  return gostx_hmac(GOSTX__TLS_HASH_LEN, salt, salt_len, ikm ? (const void *)ikm : zeros,
                    ikm_len, prk);
}

/* T(i) = HMAC(PRK, T(i-1) | info | i), out = T(1) | T(2) | ... */
int gostx__tls_hkdf_expand(const uint8_t *prk, size_t prk_len, const uint8_t *info,
                           size_t info_len, uint8_t *out, size_t out_len) {
  if (!prk || !out || (!info && info_len)) return GOSTX_EINVAL;
  if (out_len == 0 || out_len > 255 * GOSTX__TLS_HASH_LEN) return GOSTX_ELEN;
  uint8_t t[GOSTX__TLS_HASH_LEN];
  gostx_hmac_ctx h;
  int rc = GOSTX_OK;
  size_t done = 0;
  for (unsigned i = 1; done < out_len && rc == GOSTX_OK; i++) {
    uint8_t ctr = (uint8_t)i;
    rc = gostx_hmac_init(&h, GOSTX__TLS_HASH_LEN, prk, prk_len);
    if (rc == GOSTX_OK && i > 1) rc = gostx_hmac_update(&h, t, sizeof t);
    if (rc == GOSTX_OK && info_len) rc = gostx_hmac_update(&h, info, info_len);
    if (rc == GOSTX_OK) rc = gostx_hmac_update(&h, &ctr, 1);
    if (rc == GOSTX_OK) rc = gostx_hmac_final(&h, t);
    size_t take = out_len - done < sizeof t ? out_len - done : sizeof t;
    if (rc == GOSTX_OK) memcpy(out + done, t, take);
    done += take;
  }
  gostx_hmac_clear(&h);
  gostx_memzero(t, sizeof t);
  if (rc != GOSTX_OK) gostx_memzero(out, out_len);
  return rc;
}

/* HkdfLabel: uint16 length | opaque label<7..255> ("tls13 " | label) |
 * opaque context<0..255>. */
int gostx__tls_expand_label(const uint8_t secret[GOSTX__TLS_HASH_LEN], const char *label,
                            const uint8_t *context, size_t context_len, uint8_t *out,
                            size_t out_len) {
  static const char prefix[] = "tls13 ";
  if (!secret || !label || !out || (!context && context_len)) return GOSTX_EINVAL;
  size_t label_len = strlen(label), full = sizeof prefix - 1 + label_len;
  if (label_len == 0 || full > 255 || context_len > 255 || out_len > 0xffff) return GOSTX_ELEN;
  uint8_t info[2 + 1 + 255 + 1 + 255];
  size_t n = 0;
  info[n++] = (uint8_t)(out_len >> 8);
  info[n++] = (uint8_t)out_len;
  info[n++] = (uint8_t)full;
  memcpy(info + n, prefix, sizeof prefix - 1);
  n += sizeof prefix - 1;
  memcpy(info + n, label, label_len);
  n += label_len;
  info[n++] = (uint8_t)context_len;
  if (context_len) memcpy(info + n, context, context_len);
  n += context_len;
  int rc = gostx__tls_hkdf_expand(secret, GOSTX__TLS_HASH_LEN, info, n, out, out_len);
  gostx_memzero(info, n); /* the context may be a transcript hash: public, but cheap */
  return rc;
}

int gostx__tls_derive_secret(const uint8_t secret[GOSTX__TLS_HASH_LEN], const char *label,
                             const uint8_t hash[GOSTX__TLS_HASH_LEN],
                             uint8_t out[GOSTX__TLS_HASH_LEN]) {
  if (!hash) return GOSTX_EINVAL;
  return gostx__tls_expand_label(secret, label, hash, GOSTX__TLS_HASH_LEN, out,
                                 GOSTX__TLS_HASH_LEN);
}

int gostx__tls_next_secret(const uint8_t *prev, const uint8_t *ikm, size_t ikm_len,
                           uint8_t out[GOSTX__TLS_HASH_LEN]) {
  static const uint8_t zeros[GOSTX__TLS_HASH_LEN] = {0};
  if (!out || (!ikm && ikm_len)) return GOSTX_EINVAL;
  if (!ikm) {
    ikm = zeros;
    ikm_len = sizeof zeros;
  }
  if (!prev) return gostx__tls_hkdf_extract(NULL, 0, ikm, ikm_len, out);
  uint8_t empty_hash[GOSTX__TLS_HASH_LEN], salt[GOSTX__TLS_HASH_LEN];
  int rc = gostx_streebog(GOSTX__TLS_HASH_LEN, zeros, 0, empty_hash);
  if (rc == GOSTX_OK) rc = gostx__tls_derive_secret(prev, "derived", empty_hash, salt);
  if (rc == GOSTX_OK) rc = gostx__tls_hkdf_extract(salt, sizeof salt, ikm, ikm_len, out);
  gostx_memzero(salt, sizeof salt);
  return rc;
}

int gostx__tls_traffic_keys(const gostx__tls_suite *suite,
                            const uint8_t secret[GOSTX__TLS_HASH_LEN],
                            uint8_t key[GOSTX__TLS_KEY_LEN], uint8_t *iv) {
  if (!suite || !key || !iv) return GOSTX_EINVAL;
  int rc = gostx__tls_expand_label(secret, "key", NULL, 0, key, GOSTX__TLS_KEY_LEN);
  if (rc == GOSTX_OK) rc = gostx__tls_expand_label(secret, "iv", NULL, 0, iv, suite->iv_len);
  if (rc != GOSTX_OK) gostx_memzero(key, GOSTX__TLS_KEY_LEN);
  return rc;
}

int gostx__tls_finished_key(const uint8_t secret[GOSTX__TLS_HASH_LEN],
                            uint8_t out[GOSTX__TLS_HASH_LEN]) {
  return gostx__tls_expand_label(secret, "finished", NULL, 0, out, GOSTX__TLS_HASH_LEN);
}

int gostx__tls_finished_mac(const uint8_t finished_key[GOSTX__TLS_HASH_LEN],
                            const uint8_t hash[GOSTX__TLS_HASH_LEN],
                            uint8_t out[GOSTX__TLS_HASH_LEN]) {
  if (!finished_key || !hash || !out) return GOSTX_EINVAL;
  return gostx_hmac(GOSTX__TLS_HASH_LEN, finished_key, GOSTX__TLS_HASH_LEN, hash,
                    GOSTX__TLS_HASH_LEN, out);
}

int gostx__tls_update_secret(const uint8_t secret[GOSTX__TLS_HASH_LEN],
                             uint8_t out[GOSTX__TLS_HASH_LEN]) {
  return gostx__tls_expand_label(secret, "traffic upd", NULL, 0, out, GOSTX__TLS_HASH_LEN);
}

/* KDF_j's label "levelj" and seed STR_8(masked). */
static void level_input(int level, uint64_t masked, uint8_t label[6], uint8_t seed[8]) {
  memcpy(label, "level", 5);
  label[5] = (uint8_t)('0' + level);
  gostx_store64_be(seed, masked);
}

int gostx__tls_tree_level(const uint8_t key[GOSTX__TLS_KEY_LEN], int level, uint64_t masked,
                          uint8_t out[GOSTX__TLS_KEY_LEN]) {
  uint8_t label[6], seed[8];
  level_input(level, masked, label, seed);
  return gostx_kdf256(key, GOSTX__TLS_KEY_LEN, label, sizeof label, seed, sizeof seed, out);
}

int gostx__tls_tree_level_keyed(const gostx_hmac_ctx *keyed, int level, uint64_t masked,
                                uint8_t out[GOSTX__TLS_KEY_LEN]) {
  uint8_t label[6], seed[8];
  level_input(level, masked, label, seed);
  return gostx__kdf256_keyed(keyed, label, sizeof label, seed, sizeof seed, out);
}

int gostx__tls_tree(const uint8_t root[GOSTX__TLS_KEY_LEN], uint64_t seq, uint64_t c1,
                    uint64_t c2, uint64_t c3, uint8_t *level1, uint8_t *level2,
                    uint8_t out[GOSTX__TLS_KEY_LEN]) {
  if (!root || !out) return GOSTX_EINVAL;
  uint8_t k1[GOSTX__TLS_KEY_LEN], k2[GOSTX__TLS_KEY_LEN];
  int rc = gostx__tls_tree_level(root, 1, seq & c1, k1);
  if (rc == GOSTX_OK) rc = gostx__tls_tree_level(k1, 2, seq & c2, k2);
  if (rc == GOSTX_OK) rc = gostx__tls_tree_level(k2, 3, seq & c3, out);
  if (rc == GOSTX_OK && level1) memcpy(level1, k1, sizeof k1);
  if (rc == GOSTX_OK && level2) memcpy(level2, k2, sizeof k2);
  gostx_memzero(k1, sizeof k1);
  gostx_memzero(k2, sizeof k2);
  return rc;
}
