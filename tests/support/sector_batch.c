/* Sector batches as gostx_batch_streams calls (sector_batch.h). */
#include "sector_batch.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One stream per sector; tweaks (XTS: 16 bytes per sector) in tw. */
static int run(gostx_pool *pool, gostx_batch_op op, const void *const *keys, size_t nkeys,
               const uint8_t *ivs, size_t iv_stride, const uint8_t *tw, const uint8_t *in,
               size_t sl, size_t ns, uint8_t *out, uint8_t *tags, size_t tag_len,
               size_t iv_len) {
  if (!keys || (nkeys != 1 && nkeys != ns)) return GOSTX_EINVAL;
  gostx_stream *s = calloc(ns ? ns : 1, sizeof *s);
  if (!s) return GOSTX_ENOMEM;
  for (size_t i = 0; i < ns; i++) {
    s[i].key = keys[nkeys == 1 ? 0 : i];
    s[i].iv = tw ? tw + 16 * i : ivs ? ivs + i * iv_stride : NULL;
    s[i].in = in ? in + i * sl : NULL;
    s[i].len = sl;
    s[i].out = out ? out + i * sl : NULL;
    s[i].tag = tags ? tags + i * tag_len : NULL;
  }
  gostx_batch_params p;
  memset(&p, 0, sizeof p);
  p.iv_len = iv_len;
  p.tag_len = tag_len;
  int rc = gostx_batch_streams(pool, op, &p, s, ns);
  free(s);
  return rc;
}

static int cbc(gostx_pool *pool, gostx_batch_op op, const gostx_cipher *const *keys,
               size_t nkeys, const uint8_t *ivs, size_t iv_len, const uint8_t *in, size_t sl,
               size_t ns, uint8_t *out) {
  /* iv_len 0 would be the streams' default (n), not an error as before */
  if (iv_len == 0) return GOSTX_EINVAL;
  return run(pool, op, (const void *const *)keys, nkeys, ivs, iv_len, NULL, in, sl, ns, out, NULL,
             0, iv_len);
}

int sectors_cbc_encrypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                        const uint8_t *ivs, size_t iv_len, const uint8_t *in, size_t sector_len,
                        size_t nsectors, uint8_t *out) {
  return cbc(pool, GOSTX_BATCH_CBC_ENCRYPT, keys, nkeys, ivs, iv_len, in, sector_len, nsectors,
             out);
}

int sectors_cbc_decrypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                        const uint8_t *ivs, size_t iv_len, const uint8_t *in, size_t sector_len,
                        size_t nsectors, uint8_t *out) {
  return cbc(pool, GOSTX_BATCH_CBC_DECRYPT, keys, nkeys, ivs, iv_len, in, sector_len, nsectors,
             out);
}

int sectors_ctr_crypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                      const uint8_t *ivs, size_t iv_len, const uint8_t *in, size_t sector_len,
                      size_t nsectors, uint8_t *out) {
  /* the streams take n / 2 bytes of IV; a different stride was an error */
  for (size_t i = 0; keys && i < nkeys; i++)
    if (!keys[i] || iv_len != keys[i]->block_len / 2) return GOSTX_EINVAL;
  return run(pool, GOSTX_BATCH_CTR, (const void *const *)keys, nkeys, ivs, iv_len, NULL, in,
             sector_len, nsectors, out, NULL, 0, 0);
}

int sectors_omac(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                 const uint8_t *in, size_t sector_len, size_t nsectors, uint8_t *tags,
                 size_t tag_len) {
  if (tag_len == 0) return GOSTX_ELEN; /* 0 would be the streams' default (n) */
  return run(pool, GOSTX_BATCH_OMAC, (const void *const *)keys, nkeys, NULL, 0, NULL, in,
             sector_len, nsectors, NULL, tags, tag_len, 0);
}

static int xts(gostx_pool *pool, gostx_batch_op op, const gostx_xts_key *const *keys,
               size_t nkeys, const uint64_t *nums, uint64_t first, size_t sl, const uint8_t *in,
               size_t ns, uint8_t *out) {
  uint8_t *tw = calloc(ns ? ns : 1, 16);
  if (!tw) return GOSTX_ENOMEM;
  for (size_t i = 0; i < ns; i++) gostx_store64_le(tw + 16 * i, nums ? nums[i] : first + i);
  int rc = run(pool, op, (const void *const *)keys, nkeys, NULL, 0, tw, in, sl, ns, out, NULL,
               0, 0);
  free(tw);
  return rc;
}

int sectors_xts_encrypt(gostx_pool *pool, const gostx_xts_key *const *keys, size_t nkeys,
                        const uint64_t *sector_nums, uint64_t first_sector, size_t sector_len,
                        const uint8_t *in, size_t nsectors, uint8_t *out) {
  return xts(pool, GOSTX_BATCH_XTS_ENCRYPT, keys, nkeys, sector_nums, first_sector, sector_len,
             in, nsectors, out);
}

int sectors_xts_decrypt(gostx_pool *pool, const gostx_xts_key *const *keys, size_t nkeys,
                        const uint64_t *sector_nums, uint64_t first_sector, size_t sector_len,
                        const uint8_t *in, size_t nsectors, uint8_t *out) {
  return xts(pool, GOSTX_BATCH_XTS_DECRYPT, keys, nkeys, sector_nums, first_sector, sector_len,
             in, nsectors, out);
}
