/* Host-side arithmetic of the CUDA backend; see gpu_plan.h. */
#include "gpu_plan.h"

/* The packed S-box rows for the kernel parameters, made from the one list
 * (magma/sbox_sets.h, through gpu_block.h) the device's circuits come from:
 * the host side needs no cipher internals. */
#define SET(id, r0, r1, r2, r3, r4, r5, r6, r7) [id] = {r0, r1, r2, r3, r4, r5, r6, r7},
static const uint64_t magma_sets[GOSTX_SBOX_COUNT][8] = {GOSTX_MAGMA_SBOX_SETS(SET)};
#undef SET

void gostx__gpu_kuz_params(gostx_gpu_kuz_params *p, const gostx_kuz_key *k) {
  memcpy(p->ek, k->ek, sizeof p->ek);
}

void gostx__gpu_magma_params(gostx_gpu_magma_params *p, const gostx_magma_key *k) {
  memcpy(p->sb, magma_sets[k->sbox_id % GOSTX_SBOX_COUNT], sizeof p->sb);
  memcpy(p->rk, k->rk, sizeof p->rk);
  p->le = k->le ? 1u : 0u;
  p->set = (uint32_t)(k->sbox_id % GOSTX_SBOX_COUNT);
}

void gostx__gpu_ctr_at(int cipher_id, const uint8_t *iv, uint64_t block, gostx_gpu_u128 *c) {
  if (cipher_id == GOSTX_ALG_KUZNYECHIK) {
    gostx_gpu_u128 z = {gostx_load64_be(iv), 0};
    *c = gpu_u128_add(z, block);
  } else {
    c->hi = 0;
    c->lo = ((uint64_t)gostx_load32_be(iv) << 32) + block;
  }
}

size_t gostx__gpu_next_chunk(size_t total, size_t done, size_t max_chunk, size_t unit) {
  size_t left = total - done;
  size_t chunk = max_chunk / unit * unit;
  if (chunk == 0) chunk = unit;
  return left < chunk ? left : chunk;
}

uint64_t gostx__gpu_kuz_threads(uint64_t nblocks) {
  return (nblocks + GOSTX_GPU_KUZ_WARP_BLOCKS - 1) / GOSTX_GPU_KUZ_WARP_BLOCKS * 32;
}
