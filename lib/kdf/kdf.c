/* KDF_GOSTR3411_2012_256 and KDF_TREE_GOSTR3411_2012_256 (RFC 7836 sections
 * 4.4 and 4.5, R 50.1.113-2016):
 *   K(i) = HMAC_256(K_in, [i]_R | label | 0x00 | seed | [L]_b)
 * with [i]_R the counter as R big-endian bytes and [L]_b the output length in
 * bits, big-endian, in the minimal number of bytes. KDF_256 is the case R = 1,
 * L = 256 (so [L]_b = 0x01 0x00) with a single block. */
#include "internal.h"

/* One block K(i) into out[32] from h, keyed and not yet fed: the rest of
 * HMAC after its key. lenc/lenc_len is [L]_b. */
static int kdf_feed(gostx_hmac_ctx *h, const uint8_t *ctr, size_t ctr_len, const uint8_t *label,
                    size_t label_len, const uint8_t *seed, size_t seed_len, const uint8_t *lenc,
                    size_t lenc_len, uint8_t out[32]) {
  static const uint8_t zero = 0x00;
  int rc = gostx_hmac_update(h, ctr, ctr_len);
  if (rc == GOSTX_OK) rc = gostx_hmac_update(h, label, label_len);
  if (rc == GOSTX_OK) rc = gostx_hmac_update(h, &zero, 1);
  if (rc == GOSTX_OK) rc = gostx_hmac_update(h, seed, seed_len);
  if (rc == GOSTX_OK) rc = gostx_hmac_update(h, lenc, lenc_len);
  if (rc == GOSTX_OK) rc = gostx_hmac_final(h, out);
  return rc;
}

static int kdf_block(const uint8_t *key, size_t key_len, const uint8_t *ctr, size_t ctr_len,
                     const uint8_t *label, size_t label_len, const uint8_t *seed, size_t seed_len,
                     const uint8_t *lenc, size_t lenc_len, uint8_t out[32]) {
  gostx_hmac_ctx h;
  int rc = gostx_hmac_init(&h, 32, key, key_len);
  if (rc == GOSTX_OK)
    rc = kdf_feed(&h, ctr, ctr_len, label, label_len, seed, seed_len, lenc, lenc_len, out);
  gostx_hmac_clear(&h);
  return rc;
}

static int check_inputs(const uint8_t *key, size_t key_len, const uint8_t *label,
                        size_t label_len, const uint8_t *seed, size_t seed_len) {
  if ((!key && key_len) || (!label && label_len) || (!seed && seed_len)) return GOSTX_EINVAL;
  return GOSTX_OK;
}

int gostx_kdf256(const uint8_t *key, size_t key_len, const uint8_t *label, size_t label_len,
                 const uint8_t *seed, size_t seed_len, uint8_t out[32]) {
  if (!out) return GOSTX_EINVAL;
  int rc = check_inputs(key, key_len, label, label_len, seed, seed_len);
  if (rc != GOSTX_OK) return rc;
  static const uint8_t one = 0x01, l256[2] = {0x01, 0x00};
  return kdf_block(key, key_len, &one, 1, label, label_len, seed, seed_len, l256, 2, out);
}

/* KDF_256 from a copy of keyed (gostx_hmac_init done, nothing fed): the
 * key's two blocks are compressed once for many derivations. */
int gostx__kdf256_keyed(const gostx_hmac_ctx *keyed, const uint8_t *label, size_t label_len,
                        const uint8_t *seed, size_t seed_len, uint8_t out[32]) {
  if (!keyed || !out) return GOSTX_EINVAL;
  int rc = check_inputs(NULL, 0, label, label_len, seed, seed_len);
  if (rc != GOSTX_OK) return rc;
  static const uint8_t one = 0x01, l256[2] = {0x01, 0x00};
  gostx_hmac_ctx h = *keyed;
  rc = kdf_feed(&h, &one, 1, label, label_len, seed, seed_len, l256, 2, out);
  gostx_hmac_clear(&h);
  return rc;
}

int gostx_kdf_tree256(const uint8_t *key, size_t key_len, const uint8_t *label, size_t label_len,
                      const uint8_t *seed, size_t seed_len, size_t r_bytes, uint8_t *out,
                      size_t out_len) {
  if (!out) return GOSTX_EINVAL;
  int rc = check_inputs(key, key_len, label, label_len, seed, seed_len);
  if (rc != GOSTX_OK) return rc;
  if (r_bytes < 1 || r_bytes > 4) return GOSTX_EINVAL;
  if (out_len == 0) return GOSTX_ELEN;
  /* The block counter must fit in R bytes (i runs 1..n), and L in bits must
   * fit the 64-bit value we encode. */
  uint64_t nblocks = ((uint64_t)out_len + 31) / 32;
  uint64_t max_blocks = (r_bytes == 4) ? 0xffffffffu : ((uint64_t)1 << (8 * r_bytes)) - 1;
  if (nblocks > max_blocks || (uint64_t)out_len > UINT64_MAX / 8) return GOSTX_ELEN;

  uint8_t lenc[8], ctr[4], block[32];
  uint64_t bits = (uint64_t)out_len * 8;
  size_t lenc_len = 0;
  for (int sh = 56; sh >= 0; sh -= 8) {
    uint8_t b = (uint8_t)(bits >> sh);
    if (b || lenc_len) lenc[lenc_len++] = b; /* drop leading zero bytes (L is public) */
  }
  size_t done = 0;
  for (uint64_t i = 1; i <= nblocks && rc == GOSTX_OK; i++) {
    for (size_t j = 0; j < r_bytes; j++) ctr[j] = (uint8_t)(i >> (8 * (r_bytes - 1 - j)));
    rc = kdf_block(key, key_len, ctr, r_bytes, label, label_len, seed, seed_len, lenc, lenc_len,
                   block);
    size_t take = out_len - done < 32 ? out_len - done : 32;
    if (rc == GOSTX_OK) memcpy(out + done, block, take);
    done += take;
  }
  gostx_memzero(block, sizeof block);
  if (rc != GOSTX_OK) gostx_memzero(out, out_len);
  return rc;
}
