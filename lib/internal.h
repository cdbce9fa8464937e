/* The base every file of lib/ may use: byte-order loads and stores, value
 * barriers, the constant-time gate's plants, CPU features, counter and
 * tweak arithmetic. The cipher layer's operations are in cipher_ops.h, the
 * dispatcher in dispatch.h, so a file names the layer it uses by including
 * it (scripts/layers.py checks the edges). Not installed. */
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

/* The block buffer of a hash or MAC (Streebog, GOST R 34.11-94, GOST 28147-89
 * IMIT, SHA-1, SHA-256): moves what fits of *in (*len bytes) into
 * buf[*buf_len..block), advancing *in and *len; 1 when buf is now full. */
static inline int gostx_buffer_fill(uint8_t *buf, size_t *buf_len, size_t block,
                                    const uint8_t **in, size_t *len) {
  size_t take = block - *buf_len;
  if (take > *len) take = *len;
  memcpy(buf + *buf_len, *in, take);
  *buf_len += take;
  *in += take;
  *len -= take;
  return *buf_len == block;
}

/* The Merkle-Damgard strengthening of SHA-1 and SHA-256 (FIPS 180-4 5.1.1):
 * 0x80, zeros to 56 mod 64, the message length in bits big-endian, for a
 * message of total bytes with buf_len of them buffered, written into tail;
 * returns how many bytes to hash. */
static inline size_t gostx_md_tail(uint8_t tail[72], size_t buf_len, uint64_t total) {
  size_t zeros = (buf_len < 56 ? 56 : 120) - buf_len;
  memset(tail, 0, zeros);
  tail[0] = 0x80;
  gostx_store64_be(tail + zeros, total * 8);
  return zeros + 8;
}

/* The rest of the shell SHA-1 and SHA-256 share (FIPS 180-4: 64-byte
 * blocks, 32-bit big-endian words): the block buffer and the byte count,
 * the update through the hash's own compression of its chaining value h,
 * and the final writing words words of h. Inline, so that each hash calls
 * its compression directly. */
typedef struct gostx_md32 {
  uint8_t buf[64];
  size_t buf_len;
  uint64_t total; /* bytes hashed so far */
} gostx_md32;
typedef void (*gostx_md32_compress)(uint32_t *h, const uint8_t *block);

static inline void gostx_md32_update(uint32_t *h, gostx_md32 *m, gostx_md32_compress compress,
                                     const void *data, size_t len) {
  const uint8_t *p = data;
  m->total += len;
  while (len) {
    if (!gostx_buffer_fill(m->buf, &m->buf_len, sizeof m->buf, &p, &len)) continue;
    compress(h, m->buf);
    m->buf_len = 0;
  }
}

static inline void gostx_md32_final(uint32_t *h, gostx_md32 *m, gostx_md32_compress compress,
                                    size_t words, uint8_t *out) {
  uint8_t tail[sizeof m->buf + 8];
  gostx_md32_update(h, m, compress, tail, gostx_md_tail(tail, m->buf_len, m->total));
  for (size_t i = 0; i < words; i++) gostx_store32_be(out + 4 * i, h[i]);
}

/* dst += src mod 2^(64 * words), both little-endian byte strings (the
 * checksums Sigma of Streebog and GOST R 34.11-94). No branches on the data:
 * Sigma is a sum of message blocks (secret for HMAC inner input). */
static inline void gostx_add_le(uint8_t *dst, const uint8_t *src, int words) {
  uint64_t carry = 0;
  for (int i = 0; i < words; i++) {
    uint64_t a = gostx_load64_le(dst + 8 * i), b = gostx_load64_le(src + 8 * i);
    uint64_t t = a + carry;
    uint64_t c1 = t < carry; /* compiles to a flag, not a jump */
    uint64_t s = t + b;
    uint64_t c2 = s < b;
    gostx_store64_le(dst + 8 * i, s);
    carry = c1 | c2;
  }
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

/* A function kept whole under its own name, for tests/ct/declassified.supp,
 * which names it: GCC would otherwise inline or clone it (e.g. as
 * open_result.constprop.0); clang, which has no noclone, builds only the
 * pedantic and fuzz gates, not the constant-time check. */
#if defined(__clang__)
#define GOSTX_NAMED_FN __attribute__((noinline))
#elif defined(__GNUC__)
#define GOSTX_NAMED_FN __attribute__((noinline, noclone))
#else
#define GOSTX_NAMED_FN
#endif

/* ---- Planted leaks of the constant-time gate (scripts/check_ct.sh) ----
 * Only in -DGOSTX_CT_CHECK=ON builds, which define GOSTX_CT_PLANTS: at a
 * site inside a primitive's vector code, GOSTX_CT_PLANT(id, p, n) reads a
 * table at an index taken from each of the n secret bytes at p when
 * tests/ct/ct_check sets gostx__ct_plant to id, a leak that the gate must
 * report in that primitive's function. Elsewhere it is nothing at all. */
enum {
  GOSTX_PLANT_NONE,
  GOSTX_PLANT_KUZNYECHIK,     /* kuz_avx512.c, the 16-block kernel's state */
  GOSTX_PLANT_KUZNYECHIK_ONE, /* kuz_avx512.c, the one-block kernel's (CBC, OMAC, keys) */
  GOSTX_PLANT_MAGMA_N1,       /* sliced_core.h: half n1 of every block after 32 rounds */
  GOSTX_PLANT_MAGMA_N2,       /* ... and half n2 */
  GOSTX_PLANT_STREEBOG,       /* streebog_avx512.c, streebog_ct.h: the data path mid-compression */
  GOSTX_PLANT_MGM,            /* mgm_avx512.c, the accumulated products */
  GOSTX_PLANT_GOST3410,       /* gost3410/mul_weier.h: each digit of the secret scalar (k G) */
  GOSTX_PLANT_GOST3410_VKO,   /* gost3410/mul_weier.h: each digit of the secret scalar (VKO's k P) */
  GOSTX_PLANT_GOST3410_ED,    /* gost3410/mul_edwards.h: the same, k G on the Edwards sets */
  GOSTX_PLANT_GOST3410_ED_VKO, /* ... and k P on the Edwards sets */
  GOSTX_PLANT_ESP_PAD,         /* esp/esp.c trailer_bad: the decrypted pad length */
  GOSTX_PLANT_MAGMA_VROUND,    /* magma_avx512.c: the one-block vector round's S-box indexes */
  GOSTX_PLANT_MAGMA_LANES,     /* magma_avx512.c: the few-blocks vector round's S-box indexes */
  GOSTX_PLANT_GOST3410_ED_IFMA, /* gost3410/ec_edwards_ifma.c: k P's digits on AVX-512 IFMA */
  GOSTX_PLANT_KUZNYECHIK_SLICED, /* kuz_avx512_sliced.c: the 64-block kernel's state */
  GOSTX_PLANT_GOST3410_ED_IFMA_BASE /* gost3410/ec_edwards_ifma.c: k G's digits on AVX-512 IFMA */
};
#ifdef GOSTX_CT_PLANTS
extern int gostx__ct_plant;
static inline void gostx__ct_plant_touch(const void *p, size_t n) {
  static const volatile uint8_t table[256]; /* volatile: the loads stay */
  static volatile uint8_t sink;
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) sink = (uint8_t)(sink + table[b[i]]);
}
#define GOSTX_CT_PLANT(id, p, n) \
  do {                           \
    if (gostx__ct_plant == (id)) gostx__ct_plant_touch((p), (n)); \
  } while (0)
#else
#define GOSTX_CT_PLANT(id, p, n) ((void)0)
#endif
/* The constant-time gate's door for data that is public by design once a
 * check has passed (the authenticated inside of an IKE message, which the
 * engine parses): in -DGOSTX_CT_CHECK=ON builds it tells valgrind the n
 * bytes at p are defined; elsewhere it is nothing at all. */
#ifdef GOSTX_CT_PLANTS
#include <valgrind/memcheck.h>
#define GOSTX_CT_DECLASSIFY(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define GOSTX_CT_DECLASSIFY(p, n) ((void)0)
#endif

/* ---- CPU features (lib/cpu.c) ---- */
struct gostx_cpu {
  int sse2, ssse3, sse41, pclmul, avx, avx2, bmi2, adx, vaes, vpclmul, gfni;
  int avx512f, avx512bw, avx512vl, avx512vbmi, avx512ifma;
  int neon, pmull; /* AArch64: Advanced SIMD, and the 64-bit polynomial multiply */
  int intel;       /* x86-64 vendor GenuineIntel: a preference between rows, never a capability */
  unsigned family; /* x86-64 display family (AMD Zen 4: 0x19, Zen 5: 0x1a): a preference too */
};
const struct gostx_cpu *gostx__cpu(void);
/* A check's verdict on secret data (GOSTX_OK, GOSTX_EAUTH, GOSTX_EFORMAT)
 * as a constant: the one door through which ESP and TLS record open branch
 * on a secret-derived value (public by design; lib/common.c). */
int gostx__verdict(int rc);
/* PKCS#5 padding of an 8-byte-block CBC plaintext buf[len] (lib/common.c):
 * *out_len without it; GOSTX_EFORMAT a length not of whole blocks,
 * GOSTX_EAUTH bad padding (judged in constant time: a wrong password). */
int gostx__cbc_unpad8(const uint8_t *buf, size_t len, size_t *out_len);
/* KDF_256 (lib/kdf/kdf.c) under a key already in keyed (gostx_hmac_init
 * with digest 32): what TLSTREE's last level repeats per record. */
int gostx__kdf256_keyed(const gostx_hmac_ctx *keyed, const uint8_t *label, size_t label_len,
                        const uint8_t *seed, size_t seed_len, uint8_t out[32]);

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

/* count successive counter blocks of n bytes into dst, ctr left at the next
 * (lib/blockops/ctr_fill.c: the kernels use it too). */
void gostx__ctr_fill(uint8_t *dst, uint8_t *ctr, size_t n, unsigned inc, size_t count);
/* One run of counter blocks for gostx__cipher_ctr_runs (lib/cipher_ops.h):
 * count blocks from the counter at ctr (n bytes, not changed), stepped as
 * inc says. */
struct gostx__ctr_run {
  const uint8_t *ctr;
  unsigned inc;
  size_t count;
};
/* The steps of the sequential modes (lib/cipher_ops.h gostx__cipher_chain;
 * the kernels' chain entries take the same op). */
enum { GOSTX__CHAIN_CBC = 0, GOSTX__CHAIN_CFB = 1, GOSTX__CHAIN_MAC = 2, GOSTX__CHAIN_OFB = 3 };

#endif
