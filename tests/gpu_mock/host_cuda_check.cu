/* The kernels' per-thread code as nvcc sees it (__CUDACC__ defined: the
 * device memory accessors, __host__ __device__ attributes, unroll pragmas),
 * compiled by nvcc for the host and run there against the CPU library.
 * Complements tests/test_gpu_block.c, which compiles the same header as C.
 * Built and run by ctest (test_gpu_hostcuda) in -DGOSTX_CUDA=ON builds; links
 * no CUDA library (-cudart none). gostx.h is C (it uses _Alignas), so the
 * few library calls are declared here on opaque, suitably aligned storage:
 * gostx_kuz_key starts with ek[10][16], gostx_magma_key with rk[8], sbox_id, le. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_block.h"

extern "C" {
int gostx_kuz_set_key(void *k, const uint8_t key[32]);
void gostx_kuz_encrypt_blocks(const void *k, const uint8_t *in, size_t n, uint8_t *out);
void gostx_kuz_decrypt_blocks(const void *k, const uint8_t *in, size_t n, uint8_t *out);
int gostx_magma_set_key(void *k, const uint8_t key[32]);
int gostx_gost89_set_key(void *k, const uint8_t key[32], int sbox);
void gostx_magma_encrypt_blocks(const void *k, const uint8_t *in, size_t n, uint8_t *out);
extern const uint64_t gostx__magma_sbox[][8];
}

static int fails, passes;
static void check(int ok, const char *what, size_t len) {
  if (ok) passes++;
  else { fails++; printf("FAIL %s, len %zu\n", what, len); }
}

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint8_t rnd8(void) {
  rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
  return (uint8_t)(rs >> 24);
}

int main(void) {
  alignas(64) static unsigned char kuz[1024], mag[64], g89[64];
  uint8_t key[32];
  for (int i = 0; i < 32; i++) key[i] = rnd8();
  gostx_kuz_set_key(kuz, key);
  gostx_magma_set_key(mag, key);
  gostx_gost89_set_key(g89, key, 1);
  gostx_gpu_kuz_params kp;
  memcpy(kp.ek, kuz, sizeof kp.ek);
  gostx_gpu_magma_params mp, gp;
  memcpy(mp.rk, mag, 32);
  memcpy(gp.rk, g89, 32);
  memcpy(mp.sb, gostx__magma_sbox[0], 64);
  memcpy(gp.sb, gostx__magma_sbox[1], 64);
  mp.le = 0;
  gp.le = 1;
  mp.set = 0; /* id-tc26-gost-28147-param-Z */
  gp.set = 1; /* CryptoPro-A */

  static const size_t lens[] = {0, 1, 16, 17, 4095, 16384 + 16, 70001};
  for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
    const size_t len = lens[li];
    uint8_t *in = (uint8_t *)aligned_alloc(64, len + 64), *got = (uint8_t *)aligned_alloc(64, len + 64);
    uint8_t *want = (uint8_t *)aligned_alloc(64, len + 64), *ks = (uint8_t *)aligned_alloc(64, len + 64);
    for (size_t i = 0; i < len; i++) in[i] = rnd8();
    /* Kuznyechik ECB encrypt / decrypt */
    const size_t nb = len / 16;
    gostx_kuz_encrypt_blocks(kuz, in, nb, want);
    for (uint64_t t = 0; t < (nb + 1023) / 1024 * 32; t++)
      gpu_kuz_ecb_thread(in, got, nb, NULL, &kp, 0, t >> 5, (unsigned)(t & 31));
    check(!memcmp(got, want, 16 * nb), "kuz ecb", len);
    for (uint64_t t = 0; t < (nb + 1023) / 1024 * 32; t++)
      gpu_kuz_ecb_thread(got, got, nb, NULL, &kp, 1, t >> 5, (unsigned)(t & 31));
    check(!memcmp(got, in, 16 * nb), "kuz ecb decrypt", len);
    /* Kuznyechik CTR: counters (IV = 8 bytes of 0x5a, then 0, 1, ...) */
    const size_t cb = (len + 15) / 16;
    for (size_t n = 0; n < cb; n++) {
      memset(ks + 16 * n, 0x5a, 8);
      for (int b = 0; b < 8; b++) ks[16 * n + 8 + b] = (uint8_t)((uint64_t)n >> (56 - 8 * b));
    }
    gostx_kuz_encrypt_blocks(kuz, ks, cb, ks);
    for (size_t i = 0; i < len; i++) want[i] = in[i] ^ ks[i];
    gostx_gpu_u128 c = {0x5a5a5a5a5a5a5a5aull, 0};
    for (uint64_t t = 0; t < (cb + 1023) / 1024 * 32; t++)
      gpu_kuz_ctr_thread(in, got, len, c, &kp, t >> 5, (unsigned)(t & 31));
    check(!memcmp(got, want, len), "kuz ctr", len);
    /* Magma ECB and CTR (IV 4 bytes of 0xa5) */
    const size_t mb = len / 8, mcb = (len + 7) / 8;
    gostx_magma_encrypt_blocks(mag, in, mb, want);
    for (uint64_t t = 0; t < (mb + 1023) / 1024 * 32; t++)
      gpu_magma_bs_ecb_thread(in, got, mb, &mp, 0, t >> 5, (unsigned)(t & 31));
    check(!memcmp(got, want, 8 * mb), "magma ecb", len);
    for (size_t n = 0; n < mcb; n++) {
      memset(ks + 8 * n, 0xa5, 4);
      for (int b = 0; b < 4; b++) ks[8 * n + 4 + b] = (uint8_t)((uint32_t)n >> (24 - 8 * b));
    }
    gostx_magma_encrypt_blocks(mag, ks, mcb, ks);
    for (size_t i = 0; i < len; i++) want[i] = in[i] ^ ks[i];
    for (uint64_t t = 0; t < (mcb + 1023) / 1024 * 32; t++)
      gpu_magma_bs_gamma_thread(in, got, len, 0, 0xa5a5a5a5ull << 32, 0, 0, &mp, t >> 5,
                                (unsigned)(t & 31));
    check(!memcmp(got, want, len), "magma ctr", len);
    /* GOST 28147-89 ECB, CryptoPro-A */
    gostx_magma_encrypt_blocks(g89, in, mb, want);
    for (uint64_t t = 0; t < (mb + 1023) / 1024 * 32; t++)
      gpu_magma_bs_ecb_thread(in, got, mb, &gp, 0, t >> 5, (unsigned)(t & 31));
    check(!memcmp(got, want, 8 * mb), "gost89 ecb", len);
    free(in); free(got); free(want); free(ks);
  }
  printf("%d passed, %d failed\n", passes, fails);
  return fails != 0;
}
