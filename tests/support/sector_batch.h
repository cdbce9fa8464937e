/* Sector batches for the tests: nsectors messages of sector_len bytes back
 * to back in in / out, keys nkeys = 1 (one key) or nsectors (sector i's key
 * keys[i]), run as ONE gostx_batch_streams call (batch.h). These are the
 * argument lists of the sector-batch calls that gostx 0.x had
 * (gostx_batch_{cbc,ctr,omac,xts}_*, docs/API_CHANGES.md), kept so that the
 * tests which covered them still cover the same cases; the library runs
 * them on its sector engine (equal lengths) and must give the one-stream
 * calls' bytes. GOSTX_EINVAL for nkeys other than 1 and nsectors,
 * GOSTX_ENOMEM when the stream array cannot be allocated. */
#ifndef GOSTX_TEST_SECTOR_BATCH_H
#define GOSTX_TEST_SECTOR_BATCH_H

#include "gostx.h"

int sectors_cbc_encrypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                        const uint8_t *ivs, size_t iv_len, const uint8_t *in, size_t sector_len,
                        size_t nsectors, uint8_t *out);
int sectors_cbc_decrypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                        const uint8_t *ivs, size_t iv_len, const uint8_t *in, size_t sector_len,
                        size_t nsectors, uint8_t *out);
/* iv_len: the IVs' stride (n / 2 of each sector's cipher). */
int sectors_ctr_crypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                      const uint8_t *ivs, size_t iv_len, const uint8_t *in, size_t sector_len,
                      size_t nsectors, uint8_t *out);
int sectors_omac(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                 const uint8_t *in, size_t sector_len, size_t nsectors, uint8_t *tags,
                 size_t tag_len);
/* Sector i's tweak: sector_nums[i], or first_sector + i (16-byte LE). */
int sectors_xts_encrypt(gostx_pool *pool, const gostx_xts_key *const *keys, size_t nkeys,
                        const uint64_t *sector_nums, uint64_t first_sector, size_t sector_len,
                        const uint8_t *in, size_t nsectors, uint8_t *out);
int sectors_xts_decrypt(gostx_pool *pool, const gostx_xts_key *const *keys, size_t nkeys,
                        const uint64_t *sector_nums, uint64_t first_sector, size_t sector_len,
                        const uint8_t *in, size_t nsectors, uint8_t *out);

#endif
