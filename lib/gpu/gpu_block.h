/* gostx CUDA backend: the per-thread work of every kernel, written once as
 * plain C that compiles both as CUDA device code (kernels.cu) and as host C
 * (tests/test_gpu_block.c), so that the kernels' arithmetic is checked
 * against the CPU library on any machine, with or without a GPU.
 *
 * A kernel only computes (warp, lane) or a thread index from its launch
 * geometry and calls one of the *_thread functions below; memory access goes
 * through GPU_LD32/GPU_ST32 (plain 32-bit accesses on the device, byte-wise
 * little-endian on the host). Buffers given to the kernels are 4-byte aligned.
 *
 * Constant time: nothing here indexes memory or branches on secret data.
 *   - Kuznyechik runs bitsliced, 32 blocks per thread: s[j][b] bit i = bit b
 *     of byte j of the thread's block i. pi and pi^-1 are the Boolean circuits
 *     of the CPU core (kuz_sbox32.h, from kuz_tables.h's macros), L is R
 *     applied 16 times, each R one GF(2)-linear step of XORs on whole words.
 *   - Magma / GOST 28147-89 with one key run bitsliced too, 32 blocks per
 *     thread, the S-boxes as circuits built from the parameter set's
 *     constants; the batch kernels (a key per block) look the 4-bit S-boxes
 *     up by shifting a 64-bit word that packs the 16 entries (variable
 *     shifts, no memory access), exactly as the CPU core does.
 * Branches depend only on lengths and indices (public). */
#ifndef GOSTX_GPU_BLOCK_H
#define GOSTX_GPU_BLOCK_H

#ifdef __CUDACC__
#define GOSTX_GPU_HD __host__ __device__ __attribute__((always_inline))
#define GOSTX_GPU_UNROLL _Pragma("unroll")
#define GOSTX_GPU_NOUNROLL _Pragma("unroll 1")
#else
#include <stdint.h>
#include <stddef.h>
#define GOSTX_GPU_HD
#define GOSTX_GPU_UNROLL
#define GOSTX_GPU_NOUNROLL
#endif

#include "kuz_sbox32.h"
#include "../magma/sbox_sets.h"

/* Kernel parameters, passed by value (same layout in C and CUDA C++). */
typedef struct gostx_gpu_kuz_params {
  uint8_t ek[10][16]; /* round keys K1..K10 as byte strings (gostx_kuz_key.ek) */
} gostx_gpu_kuz_params;

typedef struct gostx_gpu_magma_params {
  uint64_t sb[8]; /* the packed S-boxes of the key's parameter set */
  uint32_t rk[8]; /* K1..K8 */
  uint32_t le;    /* 1 = GOST 28147-89 byte convention */
  uint32_t set;   /* the S-box parameter set (GOSTX_SBOX_*): picks the bitsliced circuits */
} gostx_gpu_magma_params;

#define GOSTX_GPU_KUZ_LANES 32 /* blocks per thread, threads per warp */
#define GOSTX_GPU_KUZ_WARP_BLOCKS (GOSTX_GPU_KUZ_LANES * 32) /* 1024 blocks = 16 KiB */

/* ---- memory ---- */
#ifdef __CUDACC__
#define GPU_LD32(p) (*(const uint32_t *)(p))
#define GPU_ST32(p, v) (*(uint32_t *)(p) = (v))
#else
static inline uint32_t GPU_LD32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void GPU_ST32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
#endif

GOSTX_GPU_HD static inline uint32_t gpu_bswap32(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

/* Up to n <= 16 bytes at p as four little-endian words (missing bytes 0). */
GOSTX_GPU_HD static inline void gpu_load_words(uint32_t w[4], const uint8_t *p, unsigned n) {
  if (n == 16) {
    GOSTX_GPU_UNROLL
    for (unsigned q = 0; q < 4; q++) w[q] = GPU_LD32(p + 4 * q);
    return;
  }
  for (unsigned q = 0; q < 4; q++) w[q] = 0;
  for (unsigned i = 0; i < n; i++) w[i >> 2] |= (uint32_t)p[i] << (8 * (i & 3));
}

GOSTX_GPU_HD static inline void gpu_store_words(uint8_t *p, const uint32_t w[4], unsigned n) {
  if (n == 16) {
    GOSTX_GPU_UNROLL
    for (unsigned q = 0; q < 4; q++) GPU_ST32(p + 4 * q, w[q]);
    return;
  }
  for (unsigned i = 0; i < n; i++) p[i] = (uint8_t)(w[i >> 2] >> (8 * (i & 3)));
}

/* ---- 32x32 bit transpose: a[k] bit i <-> a[i] bit k ----
 * Swaps the off-diagonal j x j sub-blocks for j = 16, 8, 4, 2, 1. */
GOSTX_GPU_HD static inline void gpu_transpose32(uint32_t a[32]) {
  const uint32_t masks[5] = {0x0000ffffu, 0x00ff00ffu, 0x0f0f0f0fu, 0x33333333u, 0x55555555u};
  GOSTX_GPU_UNROLL
  for (unsigned st = 0; st < 5; st++) {
    const unsigned j = 16u >> st;
    const uint32_t m = masks[st];
    GOSTX_GPU_UNROLL
    for (unsigned k = 0; k < 32; k++) {
      if (k & j) continue;
      uint32_t t = ((a[k] >> j) ^ a[k + j]) & m;
      a[k + j] ^= t;
      a[k] ^= t << j;
    }
  }
}

/* ---- Kuznyechik, bitsliced on 32-bit words ---- */

/* Words of 32 blocks -> s: blk[i][q] is little-endian word q of block i, so
 * bit k of word q is bit k % 8 of byte 4q + k / 8. blk is overwritten. */
GOSTX_GPU_HD static inline void kuz32_to_slices(uint32_t s[16][8], uint32_t blk[4][32]) {
  GOSTX_GPU_UNROLL
  for (unsigned q = 0; q < 4; q++) {
    gpu_transpose32(blk[q]);
    GOSTX_GPU_UNROLL
    for (unsigned k = 0; k < 32; k++) s[4 * q + k / 8][k % 8] = blk[q][k];
  }
}

/* s is read-only; not const-qualified (ISO C before C2X rejects the implicit
 * conversion of uint32_t (*)[8] to const uint32_t (*)[8]). */
GOSTX_GPU_HD static inline void kuz32_from_slices(uint32_t blk[4][32], uint32_t s[16][8]) {
  GOSTX_GPU_UNROLL
  for (unsigned q = 0; q < 4; q++) {
    GOSTX_GPU_UNROLL
    for (unsigned k = 0; k < 32; k++) blk[q][k] = s[4 * q + k / 8][k % 8];
    gpu_transpose32(blk[q]);
  }
}

/* One R step on the ring: x_i = s[(head + i) & 15]; writes
 * l(x_0..x_15) = sum c_j x_j, c = (148, 32, 133, 16, 194, 192, 1, 251, 1, 192,
 * 194, 16, 133, 32, 148, 1), into slot (head + 15) & 15. l is the CPU vector
 * path's generated program KUZ_LSTEP_W (kuz_tables.h: 174 XORs; the pair-sum
 * and Horner form used here before took ~245). Its outputs go to y first:
 * the slot written is x_15's, which the program still reads. */
GOSTX_GPU_HD static inline void kuz32_l_step(uint32_t s[16][8], unsigned head) {
#define X_(i, b) s[(head + (i)) & 15][b]
#define D_(j) y[j]
  uint32_t y[8];
  KUZ_LSTEP_W(uint32_t, X_, D_);
#undef X_
#undef D_
  GOSTX_GPU_UNROLL
  for (unsigned b = 0; b < 8; b++) s[(head + 15) & 15][b] = y[b];
}

/* Round key bytes as all-zeros / all-ones words (the key is uniform across
 * threads, so this reads the same parameter address in every thread). */
GOSTX_GPU_HD static inline void kuz32_xor_key(uint32_t s[16][8], const uint8_t key[16]) {
  GOSTX_GPU_UNROLL
  for (unsigned j = 0; j < 16; j++) {
    const uint32_t kj = key[j];
    GOSTX_GPU_UNROLL
    for (unsigned b = 0; b < 8; b++) s[j][b] ^= 0u - ((kj >> b) & 1u);
  }
}

/* Key words for the per-lane keys of the batch kernels: kw[8 j + b] has bit i
 * = bit b of byte j of lane i's round key (gpu_kuz_keys_thread makes them). */
GOSTX_GPU_HD static inline void kuz32_xor_keyw(uint32_t s[16][8], const uint8_t *kw) {
  GOSTX_GPU_UNROLL
  for (unsigned j = 0; j < 16; j++) {
    GOSTX_GPU_UNROLL
    for (unsigned b = 0; b < 8; b++) s[j][b] ^= GPU_LD32(kw + 4 * (8 * j + b));
  }
}

/* S then L: R sixteen times, l going into the slot of the dropped byte 15,
 * which becomes byte 0; after 16 steps the ring is back in place. */
GOSTX_GPU_HD static inline void kuz32_sl(uint32_t s[16][8]) {
  GOSTX_GPU_UNROLL
  for (unsigned j = 0; j < 16; j++) kuz32_sbox_fwd(s[j]);
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 16; i++) kuz32_l_step(s, (16u - i) & 15u);
}

GOSTX_GPU_HD static inline void kuz32_encrypt(uint32_t s[16][8], const gostx_gpu_kuz_params *p) {
  GOSTX_GPU_NOUNROLL
  for (unsigned r = 0; r < 9; r++) {
    kuz32_xor_key(s, p->ek[r]);
    kuz32_sl(s);
  }
  kuz32_xor_key(s, p->ek[9]);
}

/* The same with per-lane keys: kw holds 10 rounds of 128 key words. */
#define GOSTX_GPU_KUZ_KW_BYTES (10 * 128 * 4)
GOSTX_GPU_HD static inline void kuz32_encrypt_kw(uint32_t s[16][8], const uint8_t *kw) {
  GOSTX_GPU_NOUNROLL
  for (unsigned r = 0; r < 9; r++) {
    kuz32_xor_keyw(s, kw + 512 * r);
    kuz32_sl(s);
  }
  kuz32_xor_keyw(s, kw + 512 * 9);
}

GOSTX_GPU_HD static inline void kuz32_decrypt(uint32_t s[16][8], const gostx_gpu_kuz_params *p) {
  kuz32_xor_key(s, p->ek[9]);
  GOSTX_GPU_NOUNROLL
  for (int r = 8; r >= 0; r--) {
    /* R^-1: the head advances and l fills the old byte 0's slot */
    GOSTX_GPU_UNROLL
    for (unsigned i = 0; i < 16; i++) kuz32_l_step(s, (i + 1) & 15u);
    GOSTX_GPU_UNROLL
    for (unsigned j = 0; j < 16; j++) kuz32_sbox_inv(s[j]);
    kuz32_xor_key(s, p->ek[r]);
  }
}

/* ---- 128-bit big-endian counters (GOST R 34.13 CTR for n = 16) ---- */
typedef struct gostx_gpu_u128 {
  uint64_t hi, lo; /* bytes 0..7 and 8..15 of the counter, big-endian */
} gostx_gpu_u128;

GOSTX_GPU_HD static inline gostx_gpu_u128 gpu_u128_add(gostx_gpu_u128 a, uint64_t n) {
  gostx_gpu_u128 r;
  r.lo = a.lo + n;
  r.hi = a.hi + (r.lo < a.lo);
  return r;
}

/* Counter -> little-endian words of its byte string. */
GOSTX_GPU_HD static inline void gpu_u128_words(uint32_t w[4], gostx_gpu_u128 c) {
  w[0] = gpu_bswap32((uint32_t)(c.hi >> 32));
  w[1] = gpu_bswap32((uint32_t)c.hi);
  w[2] = gpu_bswap32((uint32_t)(c.lo >> 32));
  w[3] = gpu_bswap32((uint32_t)c.lo);
}

/* ---- Kuznyechik per-thread work ----
 * A warp w covers blocks [1024 w, 1024 w + 1024); lane l of it takes blocks
 * 1024 w + 32 i + l, i = 0..31, so that each of the 32 loads of a warp reads
 * 512 consecutive bytes (coalesced). */

/* ECB over nblocks blocks; with tw != NULL each block is whitened with the
 * 16-byte block at the same position of tw before and after the cipher (the
 * XTS core: C = E(P ^ T) ^ T). */
GOSTX_GPU_HD static inline void gpu_kuz_ecb_thread(const uint8_t *in, uint8_t *out,
                                                   uint64_t nblocks, const uint8_t *tw,
                                                   const gostx_gpu_kuz_params *p, int decrypt,
                                                   uint64_t warp, unsigned lane) {
  const uint64_t base = warp * GOSTX_GPU_KUZ_WARP_BLOCKS + lane;
  if (base >= nblocks) return;
  uint32_t blk[4][32], s[16][8];
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t n = base + 32u * i;
    uint32_t w[4] = {0, 0, 0, 0};
    if (n < nblocks) {
      gpu_load_words(w, in + 16 * n, 16);
      if (tw) {
        uint32_t t[4];
        gpu_load_words(t, tw + 16 * n, 16);
        for (unsigned q = 0; q < 4; q++) w[q] ^= t[q];
      }
    }
    for (unsigned q = 0; q < 4; q++) blk[q][i] = w[q];
  }
  kuz32_to_slices(s, blk);
  if (decrypt) kuz32_decrypt(s, p);
  else kuz32_encrypt(s, p);
  kuz32_from_slices(blk, s);
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t n = base + 32u * i;
    if (n >= nblocks) break;
    uint32_t w[4];
    for (unsigned q = 0; q < 4; q++) w[q] = blk[q][i];
    if (tw) {
      uint32_t t[4];
      gpu_load_words(t, tw + 16 * n, 16);
      for (unsigned q = 0; q < 4; q++) w[q] ^= t[q];
    }
    gpu_store_words(out + 16 * n, w, 16);
  }
}

/* CTR with s = n = 16 over len bytes: block n of the job uses counter
 * ctr + n (mod 2^128); a short last block uses the head of its gamma. */
GOSTX_GPU_HD static inline void gpu_kuz_ctr_thread(const uint8_t *in, uint8_t *out, uint64_t len,
                                                   gostx_gpu_u128 ctr,
                                                   const gostx_gpu_kuz_params *p,
                                                   uint64_t warp, unsigned lane) {
  const uint64_t nblocks = (len + 15) / 16;
  const uint64_t base = warp * GOSTX_GPU_KUZ_WARP_BLOCKS + lane;
  if (base >= nblocks) return;
  uint32_t blk[4][32], s[16][8];
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    uint32_t w[4];
    gpu_u128_words(w, gpu_u128_add(ctr, base + 32u * i));
    for (unsigned q = 0; q < 4; q++) blk[q][i] = w[q];
  }
  kuz32_to_slices(s, blk);
  kuz32_encrypt(s, p);
  kuz32_from_slices(blk, s);
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t n = base + 32u * i;
    if (n >= nblocks) break;
    const uint64_t left = len - 16 * n;
    const unsigned m = left >= 16 ? 16u : (unsigned)left;
    uint32_t w[4];
    gpu_load_words(w, in + 16 * n, m);
    for (unsigned q = 0; q < 4; q++) w[q] ^= blk[q][i];
    gpu_store_words(out + 16 * n, w, m);
  }
}

/* XTS tweaks: t0 holds one encrypted tweak T_0 = E_K2(sector) per sector;
 * thread r writes T_j = T_0 * alpha^j (IEEE 1619, little-endian 128-bit
 * numbers) for the blocks j = 16 r' .. 16 r' + 15 of its sector, where the
 * sector has bps blocks and r = sector * ceil(bps / 16) + r'. */
GOSTX_GPU_HD static inline void gpu_xts_mul_alpha(uint64_t *lo, uint64_t *hi) {
  const uint64_t carry = 0 - (*hi >> 63);
  *hi = (*hi << 1) | (*lo >> 63);
  *lo = (*lo << 1) ^ (carry & 0x87);
}

/* T *= alpha^16: shift left by 16 and fold the 16 bits shifted out back in
 * times x^7 + x^2 + x + 1 (at most 23 bits: no second fold). */
GOSTX_GPU_HD static inline void gpu_xts_mul_alpha16(uint64_t *lo, uint64_t *hi) {
  const uint64_t h = *hi >> 48;
  *hi = (*hi << 16) | (*lo >> 48);
  *lo = (*lo << 16) ^ h ^ (h << 1) ^ (h << 2) ^ (h << 7);
}

GOSTX_GPU_HD static inline void gpu_xts_tweak_thread(const uint8_t *t0, uint8_t *tw,
                                                     uint64_t nsectors, uint32_t bps,
                                                     uint64_t r) {
  const uint64_t runs = (bps + 15) / 16;
  const uint64_t sector = r / runs;
  if (sector >= nsectors) return;
  const uint32_t j0 = (uint32_t)(r % runs) * 16;
  const uint8_t *t = t0 + 16 * sector;
  uint64_t lo = (uint64_t)GPU_LD32(t) | (uint64_t)GPU_LD32(t + 4) << 32;
  uint64_t hi = (uint64_t)GPU_LD32(t + 8) | (uint64_t)GPU_LD32(t + 12) << 32;
  for (uint32_t j = 0; j < j0; j += 16) gpu_xts_mul_alpha16(&lo, &hi); /* j0 = 16 r' */
  uint8_t *o = tw + 16 * (sector * bps + j0);
  for (uint32_t j = j0; j < j0 + 16 && j < bps; j++, o += 16) {
    GPU_ST32(o, (uint32_t)lo);
    GPU_ST32(o + 4, (uint32_t)(lo >> 32));
    GPU_ST32(o + 8, (uint32_t)hi);
    GPU_ST32(o + 12, (uint32_t)(hi >> 32));
    gpu_xts_mul_alpha(&lo, &hi);
  }
}

/* ---- Magma / GOST 28147-89 ---- */
/* A lookup shifts the 64-bit word of the packed S-box by 4 x the index.
 * Measured on H100 (2026-11-23): ~11 ALU instructions a lookup, the kernel
 * ALU-pipe bound at 121 GB/s; selecting the 32-bit half first (SEL) and
 * shifting 32 bits made nvcc emit more (81 GB/s), so this form stays. */
GOSTX_GPU_HD static inline uint32_t gpu_magma_g(const uint64_t sb[8], uint32_t k, uint32_t a) {
  a += k;
  uint32_t r = 0;
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 8; i++) r |= ((uint32_t)(sb[i] >> ((a >> (4 * i)) & 15u) * 4) & 15u) << (4 * i);
  return (r << 11) | (r >> 21);
}

/* The 32 rounds in place on the halves (a1, a0), as the CPU core: n1 = a0,
 * n2 = a1; K1..K8 three times, then K8..K1 (decryption: reversed). */
GOSTX_GPU_HD static inline void gpu_magma_words(const uint64_t sb[8], const uint32_t rk[8],
                                                int decrypt, uint32_t *a1, uint32_t *a0) {
  uint32_t n1 = *a0, n2 = *a1;
  GOSTX_GPU_UNROLL
  for (unsigned r = 0; r < 32; r += 2) {
    /* round r uses key index: encryption up for r < 24, down after;
     * decryption up for r < 8, down after */
    const int up = decrypt ? r < 8 : r < 24;
    const unsigned i0 = up ? (r & 7) : 7 - (r & 7);
    const unsigned i1 = up ? ((r + 1) & 7) : 7 - ((r + 1) & 7);
    n2 ^= gpu_magma_g(sb, rk[i0], n1);
    n1 ^= gpu_magma_g(sb, rk[i1], n2);
  }
  *a1 = n1;
  *a0 = n2;
}

/* One 8-byte block as two little-endian words w0 (bytes 0..3), w1 (4..7),
 * under the round keys rk (p's own, or a stream's in the batch kernels). */
GOSTX_GPU_HD static inline void gpu_magma_block_rk(const gostx_gpu_magma_params *p,
                                                   const uint32_t rk[8], int decrypt,
                                                   uint32_t *w0, uint32_t *w1) {
  uint32_t a1, a0;
  if (p->le) { a0 = *w0; a1 = *w1; }
  else { a1 = gpu_bswap32(*w0); a0 = gpu_bswap32(*w1); }
  gpu_magma_words(p->sb, rk, decrypt, &a1, &a0);
  if (p->le) { *w0 = a0; *w1 = a1; }
  else { *w0 = gpu_bswap32(a1); *w1 = gpu_bswap32(a0); }
}

/* Bytes [8 n, 8 n + 8) of in (all of them, or the last m < 8) as two words. */
GOSTX_GPU_HD static inline void gpu_load8(const uint8_t *p, unsigned m, uint32_t *w0, uint32_t *w1) {
  if (m == 8) { *w0 = GPU_LD32(p); *w1 = GPU_LD32(p + 4); return; }
  uint32_t w[2] = {0, 0};
  for (unsigned i = 0; i < m; i++) w[i >> 2] |= (uint32_t)p[i] << (8 * (i & 3));
  *w0 = w[0];
  *w1 = w[1];
}

GOSTX_GPU_HD static inline void gpu_store8(uint8_t *p, unsigned m, uint32_t w0, uint32_t w1) {
  if (m == 8) { GPU_ST32(p, w0); GPU_ST32(p + 4, w1); return; }
  for (unsigned i = 0; i < m; i++) p[i] = (uint8_t)((i < 4 ? w0 : w1) >> (8 * (i & 3)));
}

/* GOST 28147-89 CNT without key meshing. Gamma block i (i = 1, 2, ...) is
 * E(N3_i || N4_i) with N3_i = N3_0 + i C2 mod 2^32 and N4_i the
 * representative in [1, 2^32 - 1] of N4_0 + i C1 mod 2^32 - 1, which is
 * what i end-around-carry additions of C1 give; (N3_0, N4_0) = E(IV). */
#define GOSTX_GPU_CNT_C2 0x01010101u
#define GOSTX_GPU_CNT_C1 0x01010104u

GOSTX_GPU_HD static inline uint32_t gpu_cnt_n4(uint32_t n4_0, uint64_t i) {
  const uint64_t M = 0xffffffffu;
  /* i mod M by folding, then n4_0 + (i mod M) * C1 < 2^57, folded twice */
  uint64_t im = (i & M) + (i >> 32);
  im = (im & M) + (im >> 32);
  if (im >= M) im -= M;
  uint64_t v = (uint64_t)n4_0 + im * GOSTX_GPU_CNT_C1;
  v = (v & M) + (v >> 32);
  v = (v & M) + (v >> 32);
  if (v >= M) v -= M;
  return v == 0 ? 0xffffffffu : (uint32_t)v;
}

/* ---- Magma / GOST 28147-89, bitsliced: 32 blocks per thread ----
 * The one-key kernels. h[b] bit i = bit b of the thread's block i's 32-bit
 * half. A round, out ^= rot11(S(in + k)): the round key (uniform) added by a
 * ripple-carry chain (two 3-input operations per bit), the eight 4-bit
 * S-boxes as Boolean circuits built at compile time from the parameter set's
 * constants (sbox_sets.h): output bit b is x3 ? g1(x2, x1, x0) : g0(x2, x1, x0)
 * with g0, g1 the 3-input functions whose truth tables are bit b of entries
 * 0..7 and 8..15, so three LOP3 per output bit once nvcc folds the constants;
 * the rotation is a renaming. No table, no data-dependent shift: constant
 * time. Measured against the shift kernel in docs/BENCHMARKS.md ("GPU"). */

/* f(a, b, c) for a constant truth table t: bit 4a + 2b + c of t. */
#define GPU_F3(t, a, b, c)                                                                     \
  ((((t) >> 0 & 1u) ? ~(a) & ~(b) & ~(c) : 0u) | (((t) >> 1 & 1u) ? ~(a) & ~(b) & (c) : 0u) | \
   (((t) >> 2 & 1u) ? ~(a) & (b) & ~(c) : 0u) | (((t) >> 3 & 1u) ? ~(a) & (b) & (c) : 0u) |   \
   (((t) >> 4 & 1u) ? (a) & ~(b) & ~(c) : 0u) | (((t) >> 5 & 1u) ? (a) & ~(b) & (c) : 0u) |   \
   (((t) >> 6 & 1u) ? (a) & (b) & ~(c) : 0u) | (((t) >> 7 & 1u) ? (a) & (b) & (c) : 0u))
/* Truth table of output bit b of the packed S-box row sb over entries
 * 8h..8h+7, as a function of the index bits (x2, x1, x0). */
#define GPU_SB_T1(sb, h, b, p) ((unsigned)((sb) >> (32 * (h) + 4 * (p) + (b)) & 1u) << (p))
#define GPU_SB_T(sb, h, b)                                                                    \
  (GPU_SB_T1(sb, h, b, 0) | GPU_SB_T1(sb, h, b, 1) | GPU_SB_T1(sb, h, b, 2) |                 \
   GPU_SB_T1(sb, h, b, 3) | GPU_SB_T1(sb, h, b, 4) | GPU_SB_T1(sb, h, b, 5) |                 \
   GPU_SB_T1(sb, h, b, 6) | GPU_SB_T1(sb, h, b, 7))
GOSTX_GPU_HD static inline uint32_t gpu_f3(unsigned t, uint32_t a, uint32_t b, uint32_t c) {
  return GPU_F3(t, a, b, c);
}
#define GPU_SB_BIT(sb, b, x)                                                                  \
  gpu_f3(0xCAu, (x)[3], gpu_f3(GPU_SB_T(sb, 1, b), (x)[2], (x)[1], (x)[0]),                  \
         gpu_f3(GPU_SB_T(sb, 0, b), (x)[2], (x)[1], (x)[0]))
#define GPU_SB4(sb, t, y, o)                                                                  \
  y[(o)] = GPU_SB_BIT(sb, 0, (t) + (o));                                                     \
  y[(o) + 1] = GPU_SB_BIT(sb, 1, (t) + (o));                                                 \
  y[(o) + 2] = GPU_SB_BIT(sb, 2, (t) + (o));                                                 \
  y[(o) + 3] = GPU_SB_BIT(sb, 3, (t) + (o));

/* out ^= rot11(S(in + k)) with S the set's circuit function SL. */
#define GPU_MAGMA_BS_ROUND(SL, in, out, k)                                                    \
  do {                                                                                        \
    uint32_t t_[32], y_[32], c_ = 0;                                                          \
    const uint32_t k_ = (k);                                                                  \
    GOSTX_GPU_UNROLL                                                                          \
    for (unsigned b_ = 0; b_ < 32; b_++) {                                                    \
      const uint32_t K_ = 0u - ((k_ >> b_) & 1u), x_ = (in)[b_];                              \
      t_[b_] = x_ ^ K_ ^ c_;                                                                  \
      c_ = (x_ & K_) | (c_ & (x_ ^ K_));                                                      \
    }                                                                                         \
    SL(t_, y_);                                                                               \
    GOSTX_GPU_UNROLL                                                                          \
    for (unsigned b_ = 0; b_ < 32; b_++) (out)[(b_ + 11) & 31] ^= y_[b_];                     \
  } while (0)

/* Per parameter set: its S-box layer and its 32 rounds (key order as
 * gpu_magma_words: K1..K8 three times then K8..K1; decryption reversed). */
#define GPU_MAGMA_BS_DEFINE(id, r0, r1, r2, r3, r4, r5, r6, r7)                               \
  GOSTX_GPU_HD static inline void gpu_magma_bs_sl_##id(const uint32_t t[32], uint32_t y[32]) { \
    GPU_SB4(r0, t, y, 0) GPU_SB4(r1, t, y, 4) GPU_SB4(r2, t, y, 8) GPU_SB4(r3, t, y, 12)     \
    GPU_SB4(r4, t, y, 16) GPU_SB4(r5, t, y, 20) GPU_SB4(r6, t, y, 24) GPU_SB4(r7, t, y, 28)  \
  }                                                                                           \
  GOSTX_GPU_HD static inline void gpu_magma_bs_rounds_##id(uint32_t n1[32], uint32_t n2[32],   \
                                                           const gostx_gpu_magma_params *p,    \
                                                           int decrypt) {                      \
    GOSTX_GPU_NOUNROLL                                                                        \
    for (unsigned r = 0; r < 32; r += 2) {                                                    \
      const int up = decrypt ? r < 8 : r < 24;                                                \
      const unsigned i0 = up ? (r & 7) : 7 - (r & 7);                                         \
      const unsigned i1 = up ? ((r + 1) & 7) : 7 - ((r + 1) & 7);                             \
      GPU_MAGMA_BS_ROUND(gpu_magma_bs_sl_##id, n1, n2, p->rk[i0]);                            \
      GPU_MAGMA_BS_ROUND(gpu_magma_bs_sl_##id, n2, n1, p->rk[i1]);                            \
    }                                                                                         \
  }
GOSTX_MAGMA_SBOX_SETS(GPU_MAGMA_BS_DEFINE)
#undef GPU_MAGMA_BS_DEFINE

#define GPU_MAGMA_BS_CASE(id, ...) \
  case id: gpu_magma_bs_rounds_##id(n1, n2, p, decrypt); break;
/* The set is a public parameter, uniform across the launch. */
GOSTX_GPU_HD static inline void gpu_magma_bs_rounds(uint32_t n1[32], uint32_t n2[32],
                                                    const gostx_gpu_magma_params *p,
                                                    int decrypt) {
  switch (p->set) { GOSTX_MAGMA_SBOX_SETS(GPU_MAGMA_BS_CASE) default: break; }
}
#undef GPU_MAGMA_BS_CASE

/* Blocks as two little-endian words (w[0][i], w[1][i]) of block i -> the
 * cipher's halves (n1 = a0, n2 = a1 as gpu_magma_block_rk reads them), bit
 * planes, the 32 rounds, and back; w is overwritten with the result. */
GOSTX_GPU_HD static inline void gpu_magma_bs_blocks(const gostx_gpu_magma_params *p,
                                                    int decrypt, uint32_t w[2][32]) {
  uint32_t n1[32], n2[32];
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    if (p->le) { n1[i] = w[0][i]; n2[i] = w[1][i]; }
    else { n2[i] = gpu_bswap32(w[0][i]); n1[i] = gpu_bswap32(w[1][i]); }
  }
  gpu_transpose32(n1);
  gpu_transpose32(n2);
  gpu_magma_bs_rounds(n1, n2, p, decrypt);
  gpu_transpose32(n1);
  gpu_transpose32(n2);
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) { /* a1 = n1, a0 = n2 */
    if (p->le) { w[0][i] = n2[i]; w[1][i] = n1[i]; }
    else { w[0][i] = gpu_bswap32(n1[i]); w[1][i] = gpu_bswap32(n2[i]); }
  }
}

/* The thread layout of the Kuznyechik kernels: warp w covers blocks
 * [1024 w, 1024 w + 1024), lane l takes blocks 1024 w + 32 i + l. */
GOSTX_GPU_HD static inline void gpu_magma_bs_ecb_thread(const uint8_t *in, uint8_t *out,
                                                        uint64_t nblocks,
                                                        const gostx_gpu_magma_params *p,
                                                        int decrypt, uint64_t warp,
                                                        unsigned lane) {
  const uint64_t base = warp * GOSTX_GPU_KUZ_WARP_BLOCKS + lane;
  if (base >= nblocks) return;
  uint32_t w[2][32];
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t n = base + 32u * i;
    w[0][i] = w[1][i] = 0;
    if (n < nblocks) gpu_load8(in + 8 * n, 8, &w[0][i], &w[1][i]);
  }
  gpu_magma_bs_blocks(p, decrypt, w);
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t n = base + 32u * i;
    if (n >= nblocks) break;
    gpu_store8(out + 8 * n, 8, w[0][i], w[1][i]);
  }
}

/* XOR of 32 gamma blocks into the thread's blocks of in/out (len bytes in
 * all; a short last block takes the head of its gamma). */
GOSTX_GPU_HD static inline void gpu_magma_bs_xor_out(const uint8_t *in, uint8_t *out,
                                                     uint64_t len, uint64_t base,
                                                     uint32_t g[2][32]) {
  const uint64_t nblocks = (len + 7) / 8;
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t n = base + 32u * i;
    if (n >= nblocks) break;
    const uint64_t left = len - 8 * n;
    const unsigned m = left >= 8 ? 8u : (unsigned)left;
    uint32_t w0, w1;
    gpu_load8(in + 8 * n, m, &w0, &w1);
    gpu_store8(out + 8 * n, m, w0 ^ g[0][i], w1 ^ g[1][i]);
  }
}

/* Counter modes, block n of the launch taking gamma block number start + n:
 *   cnt = 0: Magma CTR (s = n = 8), the 64-bit big-endian counter start + n;
 *   cnt = 1: GOST 28147-89 CNT without key meshing, gamma block start + n
 *            (N3, N4 from (n3_0, n4_0) as gpu_cnt_n4 says; le = 1 keys).
 * The kernels pass cnt as a constant, so the choice folds away. */
GOSTX_GPU_HD static inline void gpu_magma_bs_gamma_thread(const uint8_t *in, uint8_t *out,
                                                          uint64_t len, int cnt, uint64_t start,
                                                          uint32_t n3_0, uint32_t n4_0,
                                                          const gostx_gpu_magma_params *p,
                                                          uint64_t warp, unsigned lane) {
  const uint64_t base = warp * GOSTX_GPU_KUZ_WARP_BLOCKS + lane;
  if (base >= (len + 7) / 8) return;
  uint32_t g[2][32];
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t c = start + base + 32u * i;
    g[0][i] = cnt ? n3_0 + (uint32_t)c * GOSTX_GPU_CNT_C2 : gpu_bswap32((uint32_t)(c >> 32));
    g[1][i] = cnt ? gpu_cnt_n4(n4_0, c) : gpu_bswap32((uint32_t)c);
  }
  gpu_magma_bs_blocks(p, 0, g);
  gpu_magma_bs_xor_out(in, out, len, base, g);
}

/* ---- many streams, each with its own key and IV (the batch calls) ----
 * Streams are those of a CTR stream batch (gostx_batch_streams) of one
 * length: nstreams messages of bps blocks each, back to back. A launch covers the streams [s_lo, s_hi) of a job; in
 * and out point at stream s_lo. Key material is indexed by the absolute
 * stream number (one_key: entry 0 for every stream). Stream numbers are
 * public, so indexing by them is constant time. */

/* Kuznyechik: a group is 32 consecutive streams. Thread (group q, block k)
 * takes block k of each stream of the group, stream 32 q + i in bit i of the
 * words, so one thread's 32 blocks share the block index and differ in key;
 * with bps >= 32 the lanes of a warp read consecutive blocks of one stream
 * per load (coalesced). The key XOR takes words whose bit i is a bit of
 * stream 32 q + i's round key: kw, GOSTX_GPU_KUZ_KW_BYTES per group, made by
 * gpu_kuz_keys_thread from ek (160 bytes of round keys K1..K10 per stream). */
GOSTX_GPU_HD static inline void gpu_kuz_keys_thread(const uint8_t *ek, uint8_t *kw,
                                                    uint64_t nkeys, uint64_t t) {
  const uint64_t g = t / 40; /* thread (group, round r, quarter q) */
  const unsigned r = (unsigned)(t % 40) / 4, q = (unsigned)(t % 4);
  if (32 * g >= nkeys) return;
  uint32_t a[32];
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t s = 32 * g + i;
    a[i] = s < nkeys ? GPU_LD32(ek + 160 * s + 16 * r + 4 * q) : 0;
  }
  gpu_transpose32(a); /* a[k] bit i = bit k of stream i's word q: byte 4q + k/8, bit k%8 */
  uint8_t *o = kw + GOSTX_GPU_KUZ_KW_BYTES * g + 512 * r + 4 * 32 * q;
  GOSTX_GPU_UNROLL
  for (unsigned k = 0; k < 32; k++) GPU_ST32(o + 4 * k, a[k]);
}

/* CTR (s = n = 16) per stream: stream s's counter is its 8-byte IV (ivs +
 * 8 s) followed by 8 zero bytes, block k uses counter + k (k < 2^64: the IV
 * half never changes). t counts threads from group s_lo / 32. */
GOSTX_GPU_HD static inline void gpu_kuz_ctr_batch_thread(const uint8_t *in, uint8_t *out,
                                                         uint64_t s_lo, uint64_t s_hi,
                                                         uint64_t bps, const uint8_t *ivs,
                                                         const uint8_t *kw, int one_key,
                                                         uint64_t t) {
  const uint64_t q = s_lo / 32 + t / bps, k = t % bps;
  if (32 * q >= s_hi) return;
  uint32_t blk[4][32], s[16][8];
  const uint32_t k_hi = gpu_bswap32((uint32_t)(k >> 32)), k_lo = gpu_bswap32((uint32_t)k);
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t st = 32 * q + i;
    const int live = st >= s_lo && st < s_hi;
    blk[0][i] = live ? GPU_LD32(ivs + 8 * st) : 0;
    blk[1][i] = live ? GPU_LD32(ivs + 8 * st + 4) : 0;
    blk[2][i] = k_hi;
    blk[3][i] = k_lo;
  }
  kuz32_to_slices(s, blk);
  kuz32_encrypt_kw(s, kw + (one_key ? 0 : GOSTX_GPU_KUZ_KW_BYTES * q));
  kuz32_from_slices(blk, s);
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 32; i++) {
    const uint64_t st = 32 * q + i;
    if (st < s_lo || st >= s_hi) continue;
    const uint64_t at = 16 * ((st - s_lo) * bps + k);
    uint32_t w[4];
    gpu_load_words(w, in + at, 16);
    for (unsigned j = 0; j < 4; j++) w[j] ^= blk[j][i];
    gpu_store_words(out + at, w, 16);
  }
}

/* Magma: thread n takes block n of the launch, block n % bps of stream
 * s_lo + n / bps; rks: 32 bytes of round keys K1..K8 per stream (p: the
 * S-boxes and byte convention, shared by all streams). */
GOSTX_GPU_HD static inline void gpu_magma_rk_load(uint32_t rk[8], const uint8_t *rks,
                                                  uint64_t st, int one_key) {
  const uint8_t *r = rks + (one_key ? 0 : 32 * st);
  GOSTX_GPU_UNROLL
  for (unsigned i = 0; i < 8; i++) rk[i] = GPU_LD32(r + 4 * i);
}

/* Block n of in/out xor E(g0 || g1) under the stream's round keys. */
GOSTX_GPU_HD static inline void gpu_magma_gamma_xor(const gostx_gpu_magma_params *p,
                                                    const uint8_t *rks, uint64_t st, int one_key,
                                                    uint32_t g0, uint32_t g1, const uint8_t *in,
                                                    uint8_t *out, uint64_t n) {
  uint32_t rk[8], w0, w1;
  gpu_magma_rk_load(rk, rks, st, one_key);
  gpu_magma_block_rk(p, rk, 0, &g0, &g1);
  gpu_load8(in + 8 * n, 8, &w0, &w1);
  gpu_store8(out + 8 * n, 8, w0 ^ g0, w1 ^ g1);
}

/* CTR (s = n = 8): counter = the stream's 4-byte IV (ivs + 4 s) || 0 + k. */
GOSTX_GPU_HD static inline void gpu_magma_ctr_batch_thread(const uint8_t *in, uint8_t *out,
                                                           uint64_t nblocks, uint64_t bps,
                                                           uint64_t s_lo, const uint8_t *ivs,
                                                           const uint8_t *rks, int one_key,
                                                           const gostx_gpu_magma_params *p,
                                                           uint64_t n) {
  if (n >= nblocks) return;
  const uint64_t st = s_lo + n / bps, k = n % bps;
  gpu_magma_gamma_xor(p, rks, st, one_key, GPU_LD32(ivs + 4 * st), gpu_bswap32((uint32_t)k), in,
                      out, n);
}

/* GOST 28147-89 CNT per stream. Setup, thread st: (N3, N4) = E_K(IV) of
 * stream st into n34 (8 bytes per stream); ivs: 8 bytes per stream. */
GOSTX_GPU_HD static inline void gpu_gost89_cnt_setup_thread(const uint8_t *ivs, uint8_t *n34,
                                                            uint64_t nstreams,
                                                            const uint8_t *rks, int one_key,
                                                            const gostx_gpu_magma_params *p,
                                                            uint64_t st) {
  if (st >= nstreams) return;
  uint32_t rk[8], w0 = GPU_LD32(ivs + 8 * st), w1 = GPU_LD32(ivs + 8 * st + 4);
  gpu_magma_rk_load(rk, rks, st, one_key);
  gpu_magma_block_rk(p, rk, 0, &w0, &w1);
  GPU_ST32(n34 + 8 * st, w0);
  GPU_ST32(n34 + 8 * st + 4, w1);
}

/* Block k of a stream is gamma block i = k + 1 (as in gpu_magma_bs_gamma_thread). */
GOSTX_GPU_HD static inline void gpu_gost89_cnt_batch_thread(const uint8_t *in, uint8_t *out,
                                                            uint64_t nblocks, uint64_t bps,
                                                            uint64_t s_lo, const uint8_t *n34,
                                                            const uint8_t *rks, int one_key,
                                                            const gostx_gpu_magma_params *p,
                                                            uint64_t n) {
  if (n >= nblocks) return;
  const uint64_t st = s_lo + n / bps, i = n % bps + 1;
  gpu_magma_gamma_xor(p, rks, st, one_key,
                      GPU_LD32(n34 + 8 * st) + (uint32_t)i * GOSTX_GPU_CNT_C2,
                      gpu_cnt_n4(GPU_LD32(n34 + 8 * st + 4), i), in, out, n);
}

#endif
