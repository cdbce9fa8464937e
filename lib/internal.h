/* Internal helpers shared by all of lib/: byte-order loads/stores and the
 * implementation tables the dispatcher fills. Not installed. */
#ifndef GOSTX_INTERNAL_H
#define GOSTX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arch.h"
#include "gostx.h"

/* v, hidden from the optimiser, so that no branch or flag use can be derived
 * from a secret the code only computes with. (GCC 12 for AArch64 ended the
 * GOST 28147-89 counter loop by comparing the secret counter with its final
 * value instead of counting steps: a secret-dependent branch, found by the
 * CT check under qemu.) */
static inline uint32_t gostx_value_barrier32(uint32_t v) {
#if defined(__GNUC__)
  __asm__("" : "+r"(v));
#endif
  return v;
}

/* Endian-neutral loads and stores (compilers turn these into single moves). */
static inline uint32_t gostx_load32_be(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint32_t gostx_load32_le(const uint8_t *p) {
  return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}
static inline void gostx_store32_be(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void gostx_store32_le(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
/* The 64-bit forms as one move (and a bswap) where the byte order is known:
 * GCC 12 does not always merge the byte-wise stores (XTS tweaks were built
 * with ~70 shift/or instructions each). */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint64_t gostx_load64_le(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static inline void gostx_store64_le(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint64_t gostx_load64_be(const uint8_t *p) {
  return __builtin_bswap64(gostx_load64_le(p));
}
static inline void gostx_store64_be(uint8_t *p, uint64_t v) { gostx_store64_le(p, __builtin_bswap64(v)); }
#else
static inline uint64_t gostx_load64_le(const uint8_t *p) {
  return (uint64_t)gostx_load32_le(p) | ((uint64_t)gostx_load32_le(p + 4) << 32);
}
static inline void gostx_store64_le(uint8_t *p, uint64_t v) {
  gostx_store32_le(p, (uint32_t)v); gostx_store32_le(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t gostx_load64_be(const uint8_t *p) {
  return ((uint64_t)gostx_load32_be(p) << 32) | gostx_load32_be(p + 4);
}
static inline void gostx_store64_be(uint8_t *p, uint64_t v) {
  gostx_store32_be(p, (uint32_t)(v >> 32)); gostx_store32_be(p + 4, (uint32_t)v);
}
#endif
static inline void gostx_xor(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t len) {
  for (size_t i = 0; i < len; i++) out[i] = (uint8_t)(a[i] ^ b[i]);
}

/* Asks for the len bytes at in and at out (to be written) one batch ahead
 * of their use. Large calls stream from DRAM, and a batch's loads and stores
 * come in a burst after thousands of instructions that touch only L1: without
 * this, 64 MiB ECB runs ~4 % slower than 1 MiB. Addresses are public. */
static inline void gostx_prefetch_batch(const uint8_t *in, const uint8_t *out, size_t len) {
#if defined(__GNUC__) || defined(__clang__)
  for (size_t i = 0; i < len; i += 64) {
    if (in) __builtin_prefetch(in + i, 0, 3);
    __builtin_prefetch(out + i, 1, 3);
  }
#else
  (void)in, (void)out, (void)len;
#endif
}

/* Hides a value from the optimizer, so that it cannot turn arithmetic on a
 * secret into a branch (loop versioning on a counter's wrap, for one). */
#if defined(__GNUC__) || defined(__clang__)
#define GOSTX_VALUE_BARRIER(v) __asm__("" : "+r"(v))
#else
#define GOSTX_VALUE_BARRIER(v) ((void)0)
#endif

/* ---- CPU features (lib/cpu.c) ---- */
struct gostx_cpu {
  int sse2, ssse3, sse41, pclmul, avx, avx2, bmi2, vaes, vpclmul, gfni;
  int avx512f, avx512bw, avx512vl, avx512vbmi;
  int neon, pmull; /* AArch64: Advanced SIMD, and the 64-bit polynomial multiply */
};
const struct gostx_cpu *gostx__cpu(void);

/* ---- Implementation tables (one per primitive; filled by lib/dispatch.c) ----
 * Each ISA file exports one const table; dispatch.c is the only place that
 * chooses among them. */
typedef void (*gostx_kuz_blocks_fn)(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                                    size_t nblocks);
/* The optional fields may be left out (zero): batch = 0 means 64, and an
 * implementation without mk_init gets the generic multi-key fallback of
 * lib/kuznyechik/kuz.c (one block call per run of equal keys). */
struct gostx_kuz_impl {
  const char *name;
  gostx_kuz_blocks_fn encrypt_blocks;
  gostx_kuz_blocks_fn decrypt_blocks;
  /* Blocks per call from which the throughput stops growing (the wide
   * kernel's batch): the sector-batch engine interleaves this many sectors. */
  size_t batch;
  /* Multi-key path: mk_init prepares, in mk_size bytes at sched (aligned to
   * 64), a schedule for n keys (1 <= n <= mk_max; keys[i] is read only
   * here) for the directions in dirs (GOSTX__MK_ENC, GOSTX__MK_DEC, or
   * both), and returns how many bytes from sched it wrote (what the clear
   * wipes); mk_encrypt / mk_decrypt then process exactly n blocks, block i
   * under keys[i]. in == out allowed, any alignment. Constant time. */
  size_t mk_max, mk_size;
  size_t (*mk_init)(void *sched, const gostx_kuz_key *const *keys, size_t n, unsigned dirs);
  void (*mk_encrypt)(const void *sched, const uint8_t *in, uint8_t *out);
  void (*mk_decrypt)(const void *sched, const uint8_t *in, uint8_t *out);
  /* Counter-mode keystream (optional; NULL: gostx__cipher_ctr fills counter
   * blocks and calls encrypt_blocks): out = in xor E(ctr), E(ctr + 1), ...
   * for nblocks blocks (in NULL: out = the keystream), the counter stepped
   * as inc says (GOSTX__CTR_*) and left at the next value. Same bytes as the
   * generic path; constant time in the key, the data and the counter. */
  void (*ctr)(const gostx_kuz_key *k, uint8_t ctr[16], unsigned inc, const uint8_t *in,
              uint8_t *out, size_t nblocks);
  /* Key schedule (optional; NULL: the portable one): k->ek = K1..K10 and
   * k->dk = L^-1(K1..K10) from the 32-byte key, the same bytes as
   * gostx__kuz_expand + gostx__kuz_L_inv. Constant time. CTR-ACPKM and
   * OMAC-ACPKM run it once per section. */
  void (*expand)(gostx_kuz_key *k, const uint8_t key[32]);
  /* XTS with the whitening inside the cipher call (optional; NULL: the
   * generic loop of lib/modes/xts.c, which XORs tweak buffers around
   * encrypt_blocks). count data units of nb >= 1 full blocks each, unit u at
   * in / out + p * stride, p = idx ? idx[u] : u (units do not overlap; in ==
   * out allowed), under key keys[nkeys == 1 ? 0 : u] (nkeys is 1 or count):
   * block j of unit u becomes F(x ^ T) ^ T, T = t[u] * alpha^j
   * (gostx__xts_mul_alpha), F = encryption or (decrypt) decryption; t holds
   * count 16-byte tweaks T_0 (E_K2 of the tweak, already made) and each is
   * left at t[u] * alpha^nb, the tweak that ciphertext stealing continues
   * from. Same bytes as the generic loop; constant time. */
  void (*xts)(const gostx_kuz_key *const *keys, size_t nkeys, uint8_t *t, const size_t *idx,
              const uint8_t *in, uint8_t *out, size_t stride, size_t nb, size_t count,
              int decrypt);
  /* Blocks per data unit from which one xts call per unit (under its own
   * key) runs at full speed: the sector batch then gives sectors with
   * distinct keys calls of their own instead of interleaving them through
   * multi-key calls. 0 with xts NULL. */
  size_t xts_unit;
};

/* Walks the full blocks of XTS data units (the contract of the impl's xts
 * entry) in runs: each run is at most max blocks under one key that lie back
 * to back in memory (within a unit, or across units whose positions are
 * adjacent and whose key pointers are equal), and comes with its tweaks. The
 * generic loop (lib/modes/xts.c) and the bitsliced kernels use it; wipe the
 * walker with gostx_memzero after use. */
struct gostx__xts_walk {
  /* Writes n tweaks from (*lo, *hi) on, leaves it at the next one: a
   * kernel may set its own vector form after init (NULL: the scalar
   * chain of gostx__xts_mul_alpha, ~4 cycles of latency a tweak). */
  void (*fill)(uint8_t *tw, uint64_t *lo, uint64_t *hi, size_t n);
  const gostx_kuz_key *const *keys;
  size_t nkeys;
  uint8_t *t;
  const size_t *idx;
  size_t stride, nb, count;
  size_t u, j;      /* the next block: block j of unit u */
  uint64_t lo, hi;  /* its tweak */
};
void gostx__xts_walk_init(struct gostx__xts_walk *w, const gostx_kuz_key *const *keys,
                          size_t nkeys, uint8_t *t, const size_t *idx, size_t stride, size_t nb,
                          size_t count);
/* The next run: its length (0 when done), *off its first block's byte offset
 * from in / out, *key its key, tw[i] the tweak of its block i (16 * max
 * bytes). When a unit's last block is taken its t[u] is set to the tweak
 * after it. */
size_t gostx__xts_walk_next(struct gostx__xts_walk *w, uint8_t *tw, size_t max, size_t *off,
                            const gostx_kuz_key **key);

/* XTS: T *= alpha on a tweak held as two little-endian halves (lo = bytes
 * 0..7, hi = bytes 8..15): a left shift by one, folding x^128 back in as
 * x^7 + x^2 + x + 1 = 0x87 (IEEE 1619 section 5.2). No branch on T. The one
 * scalar tweak step of the library (modes, batches, kernels). */
static inline void gostx__xts_mul_alpha(uint64_t *lo, uint64_t *hi) {
  const uint64_t carry = 0 - (*hi >> 63);
  *hi = (*hi << 1) | (*lo >> 63);
  *lo = (*lo << 1) ^ (carry & 0x87);
}

/* How a counter block steps (n = 16 or 8 bytes, big-endian):
 * FULL adds 1 to the whole block mod 2^(8n) (GOST R 34.13 CTR), RIGHT to its
 * right half mod 2^(4n) (MGM's Y, incr_r), LEFT to its left half (MGM's Z). */
enum { GOSTX__CTR_FULL = 0, GOSTX__CTR_RIGHT = 1, GOSTX__CTR_LEFT = 2 };

/* ctr += k as inc says. No branch on the counter's value. */
static inline void gostx__ctr_add(uint8_t *ctr, size_t n, unsigned inc, uint64_t k) {
  if (n == 16) {
    uint64_t hi = gostx_load64_be(ctr), lo = gostx_load64_be(ctr + 8);
    if (inc == GOSTX__CTR_LEFT) {
      hi += k;
    } else {
      uint64_t nlo = lo + k;
      if (inc == GOSTX__CTR_FULL) hi += (uint64_t)(nlo < lo); /* carry, no branch */
      lo = nlo;
    }
    gostx_store64_be(ctr, hi);
    gostx_store64_be(ctr + 8, lo);
  } else {
    uint32_t hi = gostx_load32_be(ctr), lo = gostx_load32_be(ctr + 4);
    if (inc == GOSTX__CTR_FULL) {
      uint64_t v = (((uint64_t)hi << 32) | lo) + k;
      hi = (uint32_t)(v >> 32);
      lo = (uint32_t)v;
    } else if (inc == GOSTX__CTR_LEFT) {
      hi += (uint32_t)k;
    } else {
      lo += (uint32_t)k;
    }
    gostx_store32_be(ctr, hi);
    gostx_store32_be(ctr + 4, lo);
  }
}

/* count successive counter blocks of n bytes into dst, ctr left at the next. */
void gostx__ctr_fill(uint8_t *dst, uint8_t *ctr, size_t n, unsigned inc, size_t count);
/* Counter-mode keystream for either cipher (lib/cipher.c): out = in xor
 * E(ctr), E(ctr + 1), ... over nblocks blocks (in NULL: the keystream
 * itself; in == out allowed), ctr stepped as inc says and left at the next
 * value. The implementation's ctr kernel where it has one. */
void gostx__cipher_ctr(const gostx_cipher *c, uint8_t *ctr, unsigned inc, const uint8_t *in,
                       uint8_t *out, size_t nblocks);

/* Multi-key Kuznyechik (lib/kuznyechik/kuz.c): n <= GOSTX_KUZ_MK_MAX keys
 * prepared once, then calls of exactly n blocks, block i under keys[i]
 * (keys may repeat). Uses the implementation's mk path when it has one, and
 * otherwise its block function once per run of equal key pointers: the same
 * bytes either way. The keys must stay valid while the handle is used (the
 * fallback reads them). About 44 KiB: meant for a task's stack; wipe with
 * gostx__kuz_mk_clear. */
#define GOSTX_KUZ_MK_MAX 256
#define GOSTX_KUZ_MK_BYTES (41 * 1024)
typedef struct gostx_kuz_mk {
  _Alignas(64) unsigned char sched[GOSTX_KUZ_MK_BYTES];
  const struct gostx_kuz_impl *impl;
  int native; /* 1: impl->mk_* with sched; 0: the per-run fallback */
  size_t n, used; /* used: bytes of sched to wipe */
  const gostx_kuz_key *keys[GOSTX_KUZ_MK_MAX];
} gostx_kuz_mk;
/* Directions a schedule serves: mk_encrypt (ENC), mk_decrypt (DEC). */
enum { GOSTX__MK_ENC = 1, GOSTX__MK_DEC = 2, GOSTX__MK_BOTH = 3 };
/* impl NULL: the dispatcher's choice. 1 <= n <= GOSTX_KUZ_MK_MAX. Only the
 * directions in dirs may be called. */
void gostx__kuz_mk_init(gostx_kuz_mk *m, const struct gostx_kuz_impl *impl,
                        const gostx_kuz_key *const *keys, size_t n, unsigned dirs);
void gostx__kuz_mk_encrypt(const gostx_kuz_mk *m, const uint8_t *in, uint8_t *out);
void gostx__kuz_mk_decrypt(const gostx_kuz_mk *m, const uint8_t *in, uint8_t *out);
void gostx__kuz_mk_clear(gostx_kuz_mk *m);

typedef void (*gostx_magma_blocks_fn)(const gostx_magma_key *k, const uint8_t *in, uint8_t *out,
                                      size_t nblocks);
struct gostx_magma_impl {
  const char *name;
  gostx_magma_blocks_fn encrypt_blocks;
  gostx_magma_blocks_fn decrypt_blocks;
  /* Multi-key path (optional; NULL: gostx__magma_mk_* calls the block
   * functions once per block): mk_init writes, in GOSTX_MAGMA_MK_BYTES at
   * sched (aligned to 64), a schedule for n <= GOSTX_MAGMA_MK_MAX keys that
   * share keys[0]'s S-box set and byte convention; mk_blocks then processes
   * n blocks (at most the schedule's), block i under keys[i] (k: keys[0]),
   * op GOSTX__MAGMA_ENC, _DEC or _IMIT (the 16-round IMIT core,
   * gostx__magma_imit16_words). in == out allowed. Constant time; every op
   * from one schedule. */
  void (*mk_init)(void *sched, const gostx_magma_key *const *keys, size_t n);
  void (*mk_blocks)(const void *sched, const gostx_magma_key *k, const uint8_t *in, uint8_t *out,
                    size_t n, int op);
};
enum { GOSTX__MAGMA_ENC = 0, GOSTX__MAGMA_DEC = 1, GOSTX__MAGMA_IMIT = 2 };

/* Multi-key Magma / GOST 28147-89 (lib/magma/magma.c), as gostx_kuz_mk:
 * n <= GOSTX_MAGMA_MK_MAX keys with one S-box set and byte convention, then
 * calls of exactly n blocks, block i under keys[i]. The keys must stay valid
 * while the handle is used (the fallback reads them). Wipe with
 * gostx__magma_mk_clear. */
#define GOSTX_MAGMA_MK_MAX 64
#define GOSTX_MAGMA_MK_BYTES (GOSTX_MAGMA_MK_MAX * 64)
typedef struct gostx_magma_mk {
  _Alignas(64) unsigned char sched[GOSTX_MAGMA_MK_BYTES];
  const struct gostx_magma_impl *impl;
  size_t n;
  const gostx_magma_key *keys[GOSTX_MAGMA_MK_MAX];
} gostx_magma_mk;
/* impl NULL: the dispatcher's choice. crypt: the first count <= n lanes'
 * blocks (lanes past count are neither read nor written), op as mk_blocks. */
void gostx__magma_mk_init(gostx_magma_mk *m, const struct gostx_magma_impl *impl,
                          const gostx_magma_key *const *keys, size_t n);
void gostx__magma_mk_crypt(const gostx_magma_mk *m, int op, const uint8_t *in, uint8_t *out,
                           size_t count);
void gostx__magma_mk_clear(gostx_magma_mk *m);

/* GOST 28147-89 pieces the stream batches share (lib/gost89/gost89.c): the
 * CryptoPro key meshing constant C (RFC 4357 2.3.2: K' = D_K(C)) and one
 * CNT counter step (N3 += C2, N4 += C1 mod 2^32 - 1). */
#define GOSTX__GOST89_MESH_PERIOD 1024
extern const uint8_t gostx__gost89_mesh_c[32];
void gostx__gost89_cnt_step(uint8_t reg[8]);

/* Streebog compression g_N(h, m): h = E(LPS(h ^ N), m) ^ h ^ m, all 64-byte
 * little-endian strings as the standard's internal vectors. */
struct gostx_streebog_impl {
  const char *name;
  void (*compress)(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]);
};

/* MGM's multiply-accumulate: acc ^= sum_{i<nblocks} H_i (x) X_i in GF(2^128)
 * (mul_acc128, 16-byte blocks) or GF(2^64) (mul_acc64, 8-byte blocks), every
 * value a big-endian block as in RFC 9058; h and x hold nblocks blocks each,
 * any alignment. nblocks may be 0. */
struct gostx_mgm_impl {
  const char *name;
  void (*mul_acc128)(uint8_t acc[16], const uint8_t *h, const uint8_t *x, size_t nblocks);
  void (*mul_acc64)(uint8_t acc[8], const uint8_t *h, const uint8_t *x, size_t nblocks);
};

extern const struct gostx_kuz_impl gostx_kuz_portable;
/* Opt-in, table-based, leaks the key through the cache (lib/kuznyechik/kuz_lstable.c). */
extern const struct gostx_kuz_impl gostx_kuz_lstable;
#ifdef GOSTX_ARCH_X86_64
/* AVX-512 F/BW/VL + VBMI + GFNI (lib/kuznyechik/kuz_avx512.c; lib/x86_avx512.h). */
extern const struct gostx_kuz_impl gostx_kuz_avx512;
extern const struct gostx_kuz_impl gostx_kuz_avx2;
extern const struct gostx_kuz_impl gostx_kuz_ssse3;
#endif
extern const struct gostx_magma_impl gostx_magma_portable;
extern const struct gostx_streebog_impl gostx_streebog_portable;
extern const struct gostx_mgm_impl gostx_mgm_portable;
#ifdef GOSTX_ARCH_X86_64
extern const struct gostx_mgm_impl gostx_mgm_clmul;   /* PCLMULQDQ + SSSE3 */
extern const struct gostx_mgm_impl gostx_mgm_vpclmul; /* VPCLMULQDQ + AVX2 */
extern const struct gostx_mgm_impl gostx_mgm_avx512;  /* VPCLMULQDQ on 512-bit registers */
extern const struct gostx_streebog_impl gostx_streebog_x86; /* baseline x86-64 */
/* Table-free, constant-time: AVX-512 F/BW + VBMI + GFNI (lib/x86_avx512.h). */
extern const struct gostx_streebog_impl gostx_streebog_avx512;
/* Byte-sliced vector Magma (lib/magma/magma_ssse3.c, magma_avx2.c, magma_avx512.c). */
extern const struct gostx_magma_impl gostx_magma_ssse3;
extern const struct gostx_magma_impl gostx_magma_avx2;
extern const struct gostx_magma_impl gostx_magma_avx512;
#endif
#ifdef GOSTX_ARCH_AARCH64
extern const struct gostx_kuz_impl gostx_kuz_neon;     /* bitsliced, lib/kuznyechik/kuz_neon.c */
extern const struct gostx_magma_impl gostx_magma_neon; /* byte-sliced, lib/magma/magma_neon.c */
extern const struct gostx_mgm_impl gostx_mgm_neon;     /* PMULL, lib/mgm/mgm_neon.c */
extern const struct gostx_streebog_impl gostx_streebog_neon; /* sliced, table-free */
#endif

struct gostx_dispatch {
  const struct gostx_kuz_impl *kuz;
  /* Kuznyechik's key schedule: kuz's own expand, else that of the best
   * usable row below it (the avx512 table has none: avx2's, the same bytes),
   * NULL = the portable schedule. CTR-ACPKM runs it once per section. */
  void (*kuz_expand)(gostx_kuz_key *k, const uint8_t key[32]);
  const struct gostx_magma_impl *magma;
  const struct gostx_streebog_impl *streebog;
  const struct gostx_mgm_impl *mgm;
};
/* The process-wide choice, made once (thread-safe) on first use. */
const struct gostx_dispatch *gostx__dispatch(void);
/* 1 when the named level (lib/levels.def) runs here. */
int gostx__level_supported(const char *level);
/* Row i of a primitive's implementation list (enum gostx_alg; a const
 * struct gostx_kuz_impl / _magma_impl / _streebog_impl / _mgm_impl *), NULL past the end;
 * *usable (may be NULL) = whether this CPU runs it. For differential tests. */
const void *gostx__impl_row(int primitive, size_t i, int *usable);
/* The same with the row's description: the dispatcher's policy as data, so
 * tests check the choice against the rows instead of re-stating them. */
struct gostx__row_info {
  int usable;        /* this CPU and OS run it */
  const char *level; /* its level (lib/levels.def) */
  int opt_in;        /* chosen only when named exactly */
  const char *name;  /* the implementation's name */
};
const void *gostx__impl_row_info(int alg, size_t i, struct gostx__row_info *info);

#endif
