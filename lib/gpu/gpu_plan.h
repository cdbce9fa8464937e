/* gostx CUDA backend: the host-side arithmetic that needs no GPU (kernel
 * parameters from expanded keys, counters at a block offset, chunk sizes),
 * in plain C so that tests/test_gpu_block.c checks it on any machine. */
#ifndef GOSTX_GPU_PLAN_H
#define GOSTX_GPU_PLAN_H

#include "internal.h"
#include "gpu_block.h"

/* Kernel parameters from an expanded key. */
void gostx__gpu_kuz_params(gostx_gpu_kuz_params *p, const gostx_kuz_key *k);
void gostx__gpu_magma_params(gostx_gpu_magma_params *p, const gostx_magma_key *k);

/* The CTR counter (s = n) of block number `block` (0-based) of a message
 * with the given IV (n/2 bytes): IV || 0^{n/2} + block, mod 2^n.
 * Kuznyechik: all of *c; Magma: c->lo only (64-bit). */
void gostx__gpu_ctr_at(int cipher_id, const uint8_t *iv, uint64_t block, gostx_gpu_u128 *c);

/* Threads for a Kuznyechik launch over nblocks blocks: one warp (32
 * threads) per 1024 blocks, each thread taking 32 of them. */
uint64_t gostx__gpu_kuz_threads(uint64_t nblocks);

/* Length of the next chunk of a job of `total` bytes of which `done` are
 * done: at most max_chunk rounded down to a multiple of unit (at least one
 * unit), and all that is left when that is less. unit > 0. */
size_t gostx__gpu_next_chunk(size_t total, size_t done, size_t max_chunk, size_t unit);

#endif
