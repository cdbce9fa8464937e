/* gostx: the bulk engine. A fixed pool of worker threads, parallel variants of
 * the parallelisable modes, and the XTS disk calls (many messages at once:
 * gostx_batch_streams, batch.h). Results
 * are identical to the single-threaded calls for every thread count. Part of
 * the public API. */
#ifndef GOSTX_BULK_H
#define GOSTX_BULK_H

#include "cipher.h"
#include "xts.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gostx_pool gostx_pool;

/* nthreads = 0: one thread per online CPU (at most 1024). Threads are created
 * once, here, with every signal blocked. NULL when threads cannot be created. */
GOSTX_API gostx_pool *gostx_pool_new(unsigned nthreads);
/* Waits for a run in progress, stops and joins the threads. NULL: no-op. */
GOSTX_API void gostx_pool_free(gostx_pool *pool);
/* Number of threads that run tasks (the caller counts as one of them);
 * 1 for NULL. */
GOSTX_API unsigned gostx_pool_size(const gostx_pool *pool);
/* Runs fn(arg, i) for every i in [0, ntasks) on the pool (the calling thread
 * helps) and returns when all have finished. Not re-entrant: one run at a
 * time per pool (concurrent callers are serialised). Indices are handed out
 * dynamically, in increasing order, each exactly once. pool NULL (or a pool of
 * one thread) runs every task inline on the calling thread; so does a run
 * started from inside a task of the same pool, and so does a pool used in a
 * child process after fork() (the threads stay in the parent; the child
 * may still free the pool). ntasks 0 returns at once.
 * Returns GOSTX_OK, or GOSTX_EINVAL when fn is NULL. */
GOSTX_API int gostx_pool_run(gostx_pool *pool, size_t ntasks, void (*fn)(void *arg, size_t i),
                             void *arg);

/* ---- Parallel variants of the parallelisable modes ----
 * Each gives exactly the bytes (and return code) of the single-threaded call
 * named beside it, for every pool size; pool may be NULL (one thread). The
 * work is split on block boundaries into tasks of 32 to 256 KiB (about 8 per
 * thread, handed out dynamically); inputs shorter than GOSTX_BULK_MIN, a NULL
 * pool and a one-thread pool call the single-threaded function. in and out
 * may be equal (in place); otherwise they must not overlap. */
#define GOSTX_BULK_MIN (64 * 1024)

/* = gostx_ctr_crypt(c, iv, iv_len, n, ...): s = n. */
GOSTX_API int gostx_ctr_crypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *iv,
                                 size_t iv_len, const uint8_t *in, size_t len, uint8_t *out);
/* The same on a piece of a message that starts at block first_block (in[0]
 * is that block's first byte; the counter starts at CTR_1 + first_block):
 * for callers that get a message in pieces, such as the OpenSSL provider. */
GOSTX_API int gostx_ctr_crypt_mt_at(gostx_pool *pool, const gostx_cipher *c, const uint8_t *iv,
                                    size_t iv_len, uint64_t first_block, const uint8_t *in,
                                    size_t len, uint8_t *out);
/* = gostx_ctr_acpkm_crypt. The ACPKM key chain is sequential: it is computed
 * one window (4 MiB of sections) ahead, by one task, while the other threads
 * encrypt the sections of the current window. GOSTX_ENOMEM never: without
 * memory for the keys it runs single-threaded. */
GOSTX_API int gostx_ctr_acpkm_crypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *iv,
                                       size_t iv_len, size_t section_len, const uint8_t *in,
                                       size_t len, uint8_t *out);
/* = gostx_ecb_encrypt / gostx_ecb_decrypt. */
GOSTX_API int gostx_ecb_encrypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *in,
                                   size_t len, uint8_t *out);
GOSTX_API int gostx_ecb_decrypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *in,
                                   size_t len, uint8_t *out);
/* = gostx_mgm_encrypt / gostx_mgm_decrypt, with the message's parameters
 * (all but the data and the tag) in p. Both the keystream and the tag sum
 * are split across the threads (the sum is linear: partial sums are XORed).
 * Decryption authenticates the whole ciphertext first (in parallel) and
 * writes nothing to out when the tag is wrong (GOSTX_EAUTH). */
typedef struct gostx_mgm_params {
  const uint8_t *nonce; /* one block of the cipher (16 bytes Kuznyechik, 8 Magma) */
  const uint8_t *aad;   /* associated data, aad_len bytes (NULL when 0) */
  size_t aad_len;
  size_t tag_len;       /* 4..block bytes */
} gostx_mgm_params;
GOSTX_API int gostx_mgm_encrypt_mt(gostx_pool *pool, const gostx_cipher *c,
                                   const gostx_mgm_params *p, const uint8_t *in, size_t len,
                                   uint8_t *out, uint8_t *tag);
GOSTX_API GOSTX_MUST_CHECK int gostx_mgm_decrypt_mt(gostx_pool *pool, const gostx_cipher *c,
                                                    const gostx_mgm_params *p, const uint8_t *in,
                                                    size_t len, const uint8_t *tag, uint8_t *out);
/* The XTS many-sector calls (gostx_xts_*_mt, gostx_xts_*_disk, and
 * gostx_gpu_xts_*) all take the numbering the same way:
 * first_sector, then the sector size, both before the data (in, its length,
 * out). Both are integers, so a swapped pair compiles: keep this order.
 *
 * Consecutive XTS data units: unit i is bytes [i*sector_size, (i+1)*sector_size)
 * with tweak first_sector + i (plain64, = gostx_xts_encrypt_sector). The last
 * unit may be shorter (len need not be a multiple of sector_size) but must
 * be at least 16 bytes, as must sector_size (GOSTX_ELEN otherwise). The
 * tweaks count whole units: for a disk in dm-crypt's plain64 / LUKS layout
 * with sectors larger than 512 bytes use gostx_xts_encrypt_disk. */
GOSTX_API int gostx_xts_encrypt_mt(gostx_pool *pool, const gostx_xts_key *key,
                                   uint64_t first_sector, size_t sector_size, const uint8_t *in,
                                   size_t len, uint8_t *out);
GOSTX_API int gostx_xts_decrypt_mt(gostx_pool *pool, const gostx_xts_key *key,
                                   uint64_t first_sector, size_t sector_size, const uint8_t *in,
                                   size_t len, uint8_t *out);

/* ---- Disks: XTS sectors numbered as dm-crypt numbers them ----
 * nsectors sectors of sector_size bytes (>= 16) back to back in in / out
 * (in == out allowed), sector i being disk sector first_sector + i. Each
 * sector is ONE XTS data unit (dm-crypt encrypts a 4096-byte sector as one
 * unit, not as eight 512-byte ones) under key, with the plain64 tweak
 *     (first_sector + i) * (sector_size / tweak_unit)   mod 2^64
 * as a 16-byte little-endian integer:
 *   tweak_unit = GOSTX_XTS_TWEAK_512: the tweak counts 512-byte units, for
 *     every sector size. dm-crypt's default (cipher kuznyechik-xts-plain64,
 *     sector_size:4096 gives sector s the tweak 8 s), and what LUKS1 and
 *     LUKS2 always use. The default to choose.
 *   tweak_unit = sector_size: the tweak counts whole sectors (s), dm-crypt
 *     plain with --iv-large-sectors (cryptsetup: plain mode only); the
 *     numbering of gostx_xts_encrypt_mt.
 * With 512-byte sectors both are the same. Other divisors of sector_size are
 * accepted (the tweak counts tweak_unit-byte units). GOSTX_EINVAL when
 * tweak_unit is 0 or does not divide sector_size, GOSTX_ELEN when
 * sector_size < 16. Runs on the one-key sector engine of
 * gostx_batch_streams: groups of sectors over
 * the pool (NULL: the calling thread), the tweaks of a group through E_K2 in
 * one call, full blocks through the implementation's XTS kernel. */
#define GOSTX_XTS_TWEAK_512 512
GOSTX_API int gostx_xts_encrypt_disk(gostx_pool *pool, const gostx_xts_key *key,
                                     uint64_t first_sector, size_t sector_size, size_t tweak_unit,
                                     const uint8_t *in, size_t nsectors, uint8_t *out);
GOSTX_API int gostx_xts_decrypt_disk(gostx_pool *pool, const gostx_xts_key *key,
                                     uint64_t first_sector, size_t sector_size, size_t tweak_unit,
                                     const uint8_t *in, size_t nsectors, uint8_t *out);

#ifdef __cplusplus
}
#endif
#endif
