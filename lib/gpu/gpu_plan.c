/* Host-side arithmetic of the CUDA backend; see gpu_plan.h. */
#include "gpu_plan.h"
#include "magma/impl.h"

void gostx__gpu_kuz_params(gostx_gpu_kuz_params *p, const gostx_kuz_key *k) {
  memcpy(p->ek, k->ek, sizeof p->ek);
}

void gostx__gpu_magma_params(gostx_gpu_magma_params *p, const gostx_magma_key *k) {
  memcpy(p->sb, gostx__magma_sbox[k->sbox_id % GOSTX_SBOX_COUNT], sizeof p->sb);
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
