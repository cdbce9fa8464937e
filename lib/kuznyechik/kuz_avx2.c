/* Kuznyechik on AVX2, constant time (no secret-dependent branch or address).
 *
 * Two kernels, chosen by the (public) block count; docs/KUZNYECHIK.md has
 * the measurements and the instruction counts behind the choice.
 *
 *   - Wide (>= KUZ_AVX2_WIDE_MIN blocks): the portable core's bitsliced
 *     layout on vector words (kuz_bs_template.h), 256 blocks per batch on
 *     ymm words (each 64-bit lane is one portable batch of 64 blocks), and
 *     128 per batch on xmm words for a remainder of 72..128 blocks. S is
 *     the generated Boolean circuit, L is R sixteen times: ~2 vector ops per
 *     byte per round, bound by the L1 traffic of the 4 KiB state. A short
 *     last batch is padded with zero blocks that are never stored.
 *   - Narrow (fewer blocks, e.g. CBC encryption and OMAC; kuz_narrow.h,
 *     shared with kuz_ssse3.c): one block copied into both 128-bit halves
 *     of a ymm, each half doing half of the work. S: pi as the XOR of row
 *     differences chosen by thresholds on the byte, eight rows per half
 *     (vpaddsb + vpshufb each), then the halves are XORed. L: the products
 *     of x by a basis of GF(2^8), two per ymm (one per half), then 39
 *     vpshufb that each select one term for every output byte and move it
 *     there, XORed; the halves are XORed again. ~121 ops per round; two
 *     blocks at a time when there are two, so their chains overlap.
 *
 * Also here: the counter-mode keystream, XTS and CTR-ACPKM sections on the
 * wide kernel, the multi-key calls, and (kuz_narrow.h) the one-block chains
 * and the key schedule. */
#include "impl.h"
#include "kuz_avx2.h"
#include "blockops/xts_walk.h"

#ifdef GOSTX_ARCH_X86_64
#include <immintrin.h>
#include <pthread.h>

typedef uint64_t W4 __attribute__((vector_size(32)));
#include "kuz_w2.h" /* W2, andn_w2, LOAD2/STORE2: shared with kuz_ssse3.c */

/* The S-box circuits' ~a & b as one vpandn each (see kuz_tables.h; the
 * header's own uint64_t instances take the plain form). */
static inline __attribute__((always_inline, target("avx2"))) W4 andn_w4(W4 a, W4 b) {
  return (W4)_mm256_andnot_si256((__m256i)a, (__m256i)b);
}
#define KUZ_ANDN(a, b) _Generic((a), W4: andn_w4, W2: andn_w2, default: kuz_andn_u64)((a), (b))
#include "kuz_tables.h"

#define AVX2 __attribute__((target("avx2")))
#define AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

/* Calls of at least this many blocks take the wide kernel (measured
 * crossover, bench/kuz_speed.c); shorter calls and short tails the narrow. */
#define KUZ_AVX2_WIDE_MIN 72

/* ---------------- wide: bitsliced, 256 or 128 blocks ---------------- */

/* Four blocks (64 bytes): two loads, two unpacks; lanes hold blocks 0, 2, 1, 3. */
#define LOAD4(p, lo, hi)                                                              \
  do {                                                                                \
    __m256i x_ = _mm256_loadu_si256((const __m256i *)(const void *)(p));              \
    __m256i y_ = _mm256_loadu_si256((const __m256i *)(const void *)((p) + 32));       \
    (lo) = (W4)_mm256_unpacklo_epi64(x_, y_);                                         \
    (hi) = (W4)_mm256_unpackhi_epi64(x_, y_);                                         \
  } while (0)
#define STORE4(p, lo, hi)                                                                         \
  do {                                                                                            \
    _mm256_storeu_si256((__m256i *)(void *)(p), _mm256_unpacklo_epi64((__m256i)(lo), (__m256i)(hi)));        \
    _mm256_storeu_si256((__m256i *)(void *)((p) + 32), _mm256_unpackhi_epi64((__m256i)(lo), (__m256i)(hi))); \
  } while (0)

#define BS_ATTR AVX2
#define BS_W W4
#define BS_LANES 4
#define BS_NAME(x) x##_w4
#define BS_LOAD_GROUP LOAD4
#define BS_STORE_GROUP STORE4
#define BS_CTR 1 /* the counter-mode kernel, 256-block batches only */
#define BS_XTS 1 /* load / store with the tweaks XORed in */
#define BS_BCAST_MEM(p) ((W4)_mm256_broadcastq_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(p))))
#include "kuz_bs_template.h"
#undef BS_CTR
#undef BS_BCAST_MEM
#undef BS_W
#undef BS_LANES
#undef BS_NAME
#undef BS_LOAD_GROUP
#undef BS_STORE_GROUP

/* The same on 128-bit words (VEX-encoded): half the cost of a padded
 * 256-block batch for 64..128 blocks. */
#define BS_W W2
#define BS_LANES 2
#define BS_NAME(x) x##_w2
#define BS_LOAD_GROUP LOAD2
#define BS_STORE_GROUP STORE2
#define BS_BCAST_MEM(p) ((W2)_mm_castpd_si128(_mm_loaddup_pd((const double *)(const void *)(p))))
#include "kuz_bs_template.h"
#undef BS_XTS
#undef BS_BCAST_MEM
#undef BS_ATTR
#undef BS_W
#undef BS_LANES
#undef BS_NAME
#undef BS_LOAD_GROUP
#undef BS_STORE_GROUP

/* build_key_masks (kuz_bs_template.h) with vector compares: the key byte in
 * every byte, then bit b's 64-bit mask is "all eight bytes have bit b",
 * one AND and one byte compare per 4 masks (~7 instructions a key byte;
 * eight shift/negate/stores take ~40). Rounds r0..9: the counter
 * kernel starts from round 1's output (and reads K1's byte p itself);
 * CTR-ACPKM and XTS sectors pay this per key. */
AVX2_INLINE void key_byte_masks(uint64_t m[8], const uint8_t *byte) {
  const long long b0 = 0x0101010101010101ll;
  const __m256i lo = _mm256_setr_epi64x(b0, b0 << 1, b0 << 2, b0 << 3);
  const __m256i hi = _mm256_setr_epi64x(b0 << 4, b0 << 5, b0 << 6, (long long)(0x8080808080808080ull));
  const __m256i v = _mm256_set1_epi8((char)*byte);
  _mm256_storeu_si256((__m256i *)(void *)m, _mm256_cmpeq_epi8(_mm256_and_si256(v, lo), lo));
  _mm256_storeu_si256((__m256i *)(void *)(m + 4), _mm256_cmpeq_epi8(_mm256_and_si256(v, hi), hi));
}

AVX2 static void key_masks_avx2(uint64_t km[10][16][8], const gostx_kuz_key *k, unsigned r0) {
  for (unsigned r = r0; r < 10; r++)
    for (unsigned j = 0; j < 16; j++) key_byte_masks(km[r][j], &k->ek[r][j]);
}

/* ---------------- narrow: one block per ymm (kuz_narrow.h) ---------------- */

typedef __m256i V;
#define NARROW_TARGET __attribute__((target("avx2")))
AVX2_INLINE V v_load(const uint8_t *p) { return _mm256_load_si256((const __m256i *)(const void *)p); }
AVX2_INLINE V v_block(const uint8_t *p) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p));
}
AVX2_INLINE void v_store(uint8_t *p, V v) { _mm_storeu_si128((__m128i *)(void *)p, _mm256_castsi256_si128(v)); }
AVX2_INLINE V v_zero(void) { return _mm256_setzero_si256(); }
AVX2_INLINE V v_xor(V a, V b) { return _mm256_xor_si256(a, b); }
AVX2_INLINE V v_and(V a, V b) { return _mm256_and_si256(a, b); }
AVX2_INLINE V v_set1_8(int c) { return _mm256_set1_epi8((char)c); }
AVX2_INLINE V v_srl4(V a) { return _mm256_srli_epi16(a, 4); }
AVX2_INLINE V v_shuf(V t, V i) { return _mm256_shuffle_epi8(t, i); }
AVX2_INLINE V v_adds8(V a, V b) { return _mm256_adds_epi8(a, b); }
AVX2_INLINE V v_flip_hi(void) {
  const long long m = (long long)0x8080808080808080ull;
  return _mm256_set_epi64x(m, m, 0, 0);
}
/* y goes in while the lane swap is in flight (the next round's key, or the
 * Feistel half), one XOR off the chain. */
AVX2_INLINE V v_fold(V v, V y) {
  V t = _mm256_xor_si256(v, y);
  __asm__("" : "+x"(t)); /* or GCC adds y after the swap, on the chain */
  return _mm256_xor_si256(t, _mm256_permute2x128_si256(v, v, 0x01));
}
#define V_PIN(v) __asm__("" : "+x"(v))
#include "kuz_narrow.h"

/* ---------------- entry points ---------------- */

typedef void (*narrow_fn)(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n);

/* Whole 256-block batches on ymm words; a remainder of more than 128 blocks
 * as one padded 256-block batch, of KUZ_AVX2_WIDE_MIN..128 blocks as one
 * padded 128-block batch on xmm words, and below that the narrow kernel. */
AVX2 static void run(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n, int decrypt,
                     narrow_fn narrow) {
  if (n >= KUZ_AVX2_WIDE_MIN) {
    uint64_t km[10][16][8];
    key_masks_avx2(km, k, 0);
    /* 256-block batches; the last one padded when more than 128 remain */
    size_t rem = n % 256, big = rem > 128 ? n : n - rem;
    if (big) blocks_w4((const uint64_t(*)[16][8])km, in, out, big, decrypt);
    in += 16 * big;
    out += 16 * big;
    n -= big;
    if (n >= KUZ_AVX2_WIDE_MIN) { /* one padded 128-block batch */
      blocks_w2((const uint64_t(*)[16][8])km, in, out, n, decrypt);
      n = 0;
    }
    gostx_memzero(km, sizeof km);
  }
  if (n) narrow(k, in, out, n);
}

AVX2 void gostx__kuz_avx2_encrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  run(k, in, out, n, 0, encrypt_narrow);
}

AVX2 void gostx__kuz_avx2_decrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  run(k, in, out, n, 1, decrypt_narrow);
}

/* ---------------- multi-key: block i under key i ----------------
 * The schedule for n keys is what the kernel that a one-key call of n blocks
 * would take needs per block: n >= 129 the ymm bit-planes of the ten round
 * keys (256-block batch), 72..128 the xmm ones (128-block batch), fewer the
 * round keys themselves for the narrow kernel's pairs. Built once, used for
 * every call of the group (a CBC chain step, an OMAC step, ...). */
#define KUZ_AVX2_MK_MAX 256
/* Sectors the batch engine interleaves (gostx_kuz_impl.batch): one full ymm
 * batch; docs/BULK.md 4 has the 64-vs-256 measurement (-D to re-measure). */
#ifndef KUZ_AVX2_BATCH
#define KUZ_AVX2_BATCH 256
#endif
struct mk_avx2 {
  size_t n;
  union {
    W4 w4[10][16][8];
    W2 w2[10][16][8];
    uint8_t rk[KUZ_AVX2_WIDE_MIN][10][16];
  } u;
};

/* One schedule serves both directions (the bitsliced decryption reads the
 * same planes in reverse; the narrow kernel takes ek both ways). */
AVX2 size_t gostx__kuz_avx2_mk_init(void *sched, const gostx_kuz_key *const *keys, size_t n,
                                    unsigned dirs) {
  struct mk_avx2 *m = sched;
  const uint8_t(*rk[KUZ_AVX2_MK_MAX])[16];
  (void)dirs;
  m->n = n;
  for (size_t i = 0; i < n; i++) rk[i] = keys[i]->ek;
  if (n > 128) {
    key_planes_w4(m->u.w4, rk, n);
    return offsetof(struct mk_avx2, u) + sizeof m->u.w4;
  }
  if (n >= KUZ_AVX2_WIDE_MIN) {
    key_planes_w2(m->u.w2, rk, n);
    return offsetof(struct mk_avx2, u) + sizeof m->u.w2;
  }
  for (size_t i = 0; i < n; i++) memcpy(m->u.rk[i], keys[i]->ek, sizeof m->u.rk[i]);
  return offsetof(struct mk_avx2, u) + n * sizeof m->u.rk[0];
}

AVX2 static void mk_run(const void *sched, const uint8_t *in, uint8_t *out, int decrypt) {
  const struct mk_avx2 *m = sched;
  size_t n = m->n, i = 0;
  if (n > 128) {
    blocks_mk_w4((const W4(*)[16][8])m->u.w4, in, out, n, decrypt);
    return;
  }
  if (n >= KUZ_AVX2_WIDE_MIN) {
    blocks_mk_w2((const W2(*)[16][8])m->u.w2, in, out, n, decrypt);
    return;
  }
  pthread_once(&nc_once, nc_init);
  for (; i + 2 <= n; i += 2) {
    if (decrypt) dec_pair_n(m->u.rk[i], m->u.rk[i + 1], in + 16 * i, out + 16 * i);
    else enc_pair_n(m->u.rk[i], m->u.rk[i + 1], in + 16 * i, out + 16 * i);
  }
  if (i < n) {
    if (decrypt) dec_one_n(m->u.rk[i], in + 16 * i, out + 16 * i);
    else enc_one_n(m->u.rk[i], in + 16 * i, out + 16 * i);
  }
}

AVX2 void gostx__kuz_avx2_mk_encrypt(const void *sched, const uint8_t *in, uint8_t *out) {
  mk_run(sched, in, out, 0);
}

AVX2 void gostx__kuz_avx2_mk_decrypt(const void *sched, const uint8_t *in, uint8_t *out) {
  mk_run(sched, in, out, 1);
}

/* ---------------- counter mode ----------------
 * Keystream in 256-block batches that start from round 1's output
 * (ctr_prep_w4 / ctr_batch_w4, kuz_bs_template.h: no input transpose, eight
 * of nine rounds); a remainder of up to 128 blocks, and short calls, fill
 * counter blocks and take run(). */

/* The bit planes of the batch whose block i holds i in every byte. */
static W4 ctr_pat[8];
static pthread_once_t pat_once = PTHREAD_ONCE_INIT;

AVX2 static void pat_init(void) {
  _Alignas(32) uint8_t buf[16 * 256];
  _Alignas(32) W4 s[16][8];
  for (unsigned i = 0; i < 256; i++) memset(buf + 16 * i, (int)i, 16);
  load_w4(s, buf);
  for (unsigned b = 0; b < 8; b++) ctr_pat[b] = s[0][b];
}

/* a = L(S(x ^ K1)) with byte p of S's output dropped (one-block code; also
 * the avx512bw file's counter kernel's, lib/kuznyechik/impl.h). */
AVX2 void gostx__kuz_avx2_ls_drop(uint8_t a[16], const uint8_t x[16], const uint8_t k1[16],
                                  unsigned p) {
  pthread_once(&nc_once, nc_init);
  uint8_t keep[16];
  memset(keep, 0xff, sizeof keep);
  keep[p] = 0;
  __m256i v = _mm256_xor_si256(v_block(x), v_block(k1));
  v = v_and(sbox_n(v, 0, v_zero()), v_block(keep));
  v_store(a, linear_n(v, 0, v_zero()));
}

/* The counter kernel under one key: its tables, the batch and the keystream
 * (gostx__kuz_avx2_ctr, and the CTR-ACPKM sections below, per section key). */
struct ctr_state {
  _Alignas(32) uint8_t ks[16 * 256];
  _Alignas(32) uint64_t km[10][16][8];
  _Alignas(32) W4 w[16][8], s[32][8], carry[1];
  uint8_t a[2][16];
};

/* Key masks, round 1's planes and a0 for batches from ctr under k. */
AVX2 static void ctr_key(struct ctr_state *st, const gostx_kuz_key *k, const uint8_t ctr[16],
                         unsigned p) {
  pthread_once(&nc_once, nc_init);
  pthread_once(&pat_once, pat_init);
  key_masks_avx2(st->km, k, 1);
  key_byte_masks(st->km[0][p], &k->ek[0][p]);
  ctr_prep_w4(st->w, st->carry, (const uint64_t(*)[16][8])st->km, ctr_pat, p, ctr[p]);
  gostx__kuz_avx2_ls_drop(st->a[0], ctr, k->ek[0], p);
}

/* Batches while more than 128 blocks remain (the last one padded when
 * short); *in (NULL: the keystream itself) and *out move on, ctr too.
 * Returns the blocks left. a1 is the next batch's a0 and, when byte p of
 * the counter is not 0, this batch's blocks past the carry; the caller
 * that knows byte p is 0 and that no batch follows under this key (the
 * CTR-ACPKM sections; the counter is public there, in MGM it is not) sets
 * last_a1_unused and saves one block. */
AVX2 static size_t ctr_batches(struct ctr_state *st, const gostx_kuz_key *k, uint8_t ctr[16],
                               unsigned inc, unsigned p, const uint8_t **in, uint8_t **out,
                               size_t n, int last_a1_unused) {
  uint8_t next[16];
  while (n > 128) {
    const size_t used = n < 256 ? 16 * n : sizeof st->ks;
    memcpy(next, ctr, 16);
    gostx__ctr_add(next, 16, inc, 256);
    if (last_a1_unused && n <= 256) memcpy(st->a[1], st->a[0], 16);
    else gostx__kuz_avx2_ls_drop(st->a[1], next, k->ek[0], p);
    gostx_prefetch_batch(*in, *out, used);
    ctr_batch_w4(st->s, (const uint64_t(*)[16][8])st->km, st->w, st->carry[0], st->a[0], st->a[1],
                 st->ks);
    if (*in) {
      gostx_xor(*out, *in, st->ks, used);
      *in += used;
    } else {
      memcpy(*out, st->ks, used);
    }
    *out += used;
    gostx__ctr_add(ctr, 16, inc, used / 16);
    memcpy(st->a[0], st->a[1], 16);
    n -= used / 16;
  }
  return n;
}

AVX2 void gostx__kuz_avx2_ctr(const gostx_kuz_key *k, uint8_t ctr[16], unsigned inc, const uint8_t *in,
                              uint8_t *out, size_t n) {
  struct ctr_state st;
  size_t used = 0; /* bytes of st.ks to wipe when the batches did not run */
  if (n > 128) {
    const unsigned p = inc == GOSTX__CTR_LEFT ? 7 : 15;
    ctr_key(&st, k, ctr, p);
    n = ctr_batches(&st, k, ctr, inc, p, &in, &out, n, 0);
    used = sizeof st; /* all of it: tables, state, keystream */
  }
  while (n) {
    size_t m = n < 256 ? n : 256;
    gostx__ctr_fill(st.ks, ctr, 16, inc, m);
    run(k, st.ks, st.ks, m, 0, encrypt_narrow);
    if (in) {
      gostx_xor(out, in, st.ks, 16 * m);
      in += 16 * m;
    } else {
      memcpy(out, st.ks, 16 * m);
    }
    out += 16 * m;
    n -= m;
    if (used < 16 * m) used = 16 * m;
  }
  gostx_memzero(&st, used); /* ks is the struct's first member */
}

/* ---------------- XTS ----------------
 * The walker (lib/modes/xts.c) hands out runs of up to 256 blocks under one
 * key that lie back to back in memory, with their tweaks in tw; a run of
 * more than 128 blocks is one (padded) ymm batch, 72..128 one xmm batch,
 * both with the tweaks XORed in during the transposes (load_x / store_x),
 * and a shorter run takes the narrow kernel between two XOR passes. The key
 * masks are built when the key changes (which units share a key is public). */
/* v * alpha^4 on both 128-bit lanes (two tweaks, lo in the low qword): each
 * qword shifted by 4, the low one's top bits moved up, the high one's top
 * bits (t < 16) folded back as t * 0x87 = t ^ t<<1 ^ t<<2 ^ t<<7. */
AVX2_INLINE __m256i tw_mul4(__m256i v) {
  const __m256i c = _mm256_srli_epi64(v, 60);
  const __m256i dn = _mm256_srli_si256(c, 8);
  const __m256i fold = _mm256_xor_si256(_mm256_xor_si256(dn, _mm256_slli_epi64(dn, 1)),
                                        _mm256_xor_si256(_mm256_slli_epi64(dn, 2),
                                                         _mm256_slli_epi64(dn, 7)));
  return _mm256_xor_si256(_mm256_xor_si256(_mm256_slli_epi64(v, 4), _mm256_slli_si256(c, 8)),
                          fold);
}

/* The walker's fill (struct gostx__xts_walk): two registers of two tweaks
 * each, stepped by alpha^4 independently (no chain through the blocks);
 * fewer than 8 tweaks, and the last 0..3, by the scalar step. */
AVX2 static void tweaks_avx2(uint8_t *tw, uint64_t *lo, uint64_t *hi, size_t n) {
  size_t i = 0;
  if (n >= 8) {
    _Alignas(32) uint64_t q[8];
    uint64_t l = *lo, h = *hi;
    for (unsigned k = 0; k < 4; k++) {
      q[2 * k] = l;
      q[2 * k + 1] = h;
      gostx__xts_mul_alpha(&l, &h);
    }
    __m256i a = _mm256_load_si256((const __m256i *)(const void *)q);
    __m256i b = _mm256_load_si256((const __m256i *)(const void *)(q + 4));
    for (; n - i >= 4; i += 4) {
      _mm256_storeu_si256((__m256i *)(void *)(tw + 16 * i), a);
      _mm256_storeu_si256((__m256i *)(void *)(tw + 16 * i + 32), b);
      a = tw_mul4(a);
      b = tw_mul4(b);
    }
    *lo = (uint64_t)_mm256_extract_epi64(a, 0);
    *hi = (uint64_t)_mm256_extract_epi64(a, 1);
    gostx_memzero(q, sizeof q);
  }
  for (; i < n; i++) {
    gostx_store64_le(tw + 16 * i, *lo);
    gostx_store64_le(tw + 16 * i + 8, *hi);
    gostx__xts_mul_alpha(lo, hi);
  }
}

AVX2 void gostx__kuz_avx2_xts(const gostx_kuz_key *const *keys, size_t nkeys, uint8_t *t,
                              const size_t *idx, const uint8_t *in, uint8_t *out, size_t stride,
                              size_t nb, size_t count, int decrypt) {
  _Alignas(32) uint8_t tw[16 * 256];
  _Alignas(32) uint64_t km[10][16][8];
  _Alignas(32) union {
    W4 w4[32][8];
    W2 w2[32][8];
  } s;
  struct gostx__xts_walk w;
  const gostx_kuz_key *k, *cur = NULL;
  size_t m, off, used = 0, sw = 0; /* sw: bytes of s to wipe */
  gostx__xts_walk_init(&w, keys, nkeys, t, idx, stride, nb, count);
  w.fill = tweaks_avx2;
  while ((m = gostx__xts_walk_next(&w, tw, 256, &off, &k)) != 0) {
    if (used < 16 * m) used = 16 * m;
    if (m < KUZ_AVX2_WIDE_MIN) {
      gostx_xor(out + off, in + off, tw, 16 * m);
      (decrypt ? decrypt_narrow : encrypt_narrow)(k, out + off, out + off, m);
      gostx_xor(out + off, out + off, tw, 16 * m);
      continue;
    }
    if (k != cur) {
      key_masks_avx2(km, k, 0);
      cur = k;
    }
    if (m == 256) gostx_prefetch_batch(in + off + 4096, out + off + 4096, 4096);
    /* A partial batch still reads the tweaks of its padding blocks: define
     * them (their results are dropped, but the bitsliced words mix them with
     * the real blocks, and valgrind cannot see that the mixing cancels). */
    const size_t cap = m > 128 ? 256 : 128;
    if (m < cap) {
      memset(tw + 16 * m, 0, 16 * (cap - m));
      if (used < 16 * cap) used = 16 * cap;
    }
    if (m > 128) {
      batch_w4(s.w4, km, 0, in + off, out + off, m, decrypt, tw);
      sw = sizeof s.w4;
    } else {
      batch_w2(s.w2, km, 0, in + off, out + off, m, decrypt, tw);
      if (sw < sizeof s.w2) sw = sizeof s.w2;
    }
  }
  if (cur) gostx_memzero(km, sizeof km);
  gostx_memzero(&s, sw);
  gostx_memzero(tw, used);
  gostx_memzero(&w, sizeof w);
}

/* ---------------- CTR-ACPKM sections ----------------
 * Sections of whole 256-block batches through the counter kernel, the key
 * chain between them without leaving this file: ACPKM(K) = E_K(80..8f) ||
 * E_K(90..9f) as one pair on the narrow kernel, its schedule without dk,
 * the key masks and the counter-kernel tables once per section, and every
 * buffer wiped once per call instead of once per section (lib/modes/ctr.c's
 * generic loop calls gostx__kuz_avx2_ctr and the whole key set-up per section). */
/* ACPKM(K) = E_K(80..8f) || E_K(90..9f) as one pair on the narrow kernel,
 * then that key's round keys, in place; no dk (impl.h). */
AVX2 void gostx__kuz_avx2_acpkm_next(uint8_t ek[10][16]) {
  uint8_t d[32], key[32];
  pthread_once(&nc_once, nc_init);
  for (unsigned i = 0; i < 32; i++) d[i] = (uint8_t)(0x80 + i);
  enc_pair_n((const uint8_t(*)[16])ek, (const uint8_t(*)[16])ek, d, key);
  expand_ek(ek, key);
  gostx_memzero(key, sizeof key);
}

AVX2 size_t gostx__kuz_avx2_ctr_acpkm(gostx_kuz_key *k, uint8_t ctr[16], size_t sec,
                                      const uint8_t *in, uint8_t *out, size_t nsec) {
  if (sec % 256 || !nsec) return 0;
  struct ctr_state st;
  _Alignas(64) gostx_kuz_key cur;
  memcpy(cur.ek, k->ek, sizeof cur.ek);
  for (size_t i = 0; i < nsec; i++) {
    if (i) gostx__kuz_avx2_acpkm_next(cur.ek);
    ctr_key(&st, &cur, ctr, 15);
    ctr_batches(&st, &cur, ctr, GOSTX__CTR_FULL, 15, &in, &out, sec, ctr[15] == 0);
  }
  if (nsec > 1) {
    memcpy(k->ek, cur.ek, sizeof k->ek);
    expand_dk(k->dk, k->ek);
  }
  gostx_memzero(&st, sizeof st);
  gostx_memzero(&cur, sizeof cur);
  return nsec;
}

/* dk = L^-1(ek) (impl.h). */
AVX2 void gostx__kuz_avx2_dk(uint8_t dk[10][16], const uint8_t ek[10][16]) {
  pthread_once(&nc_once, nc_init);
  expand_dk(dk, ek);
}

/* The narrow kernel's one-block chains, for the AVX-512 BW table too. */
AVX2 void gostx__kuz_avx2_chain(const gostx_kuz_key *k, int op, uint8_t s[16], const uint8_t *in,
                                uint8_t *out, size_t n) {
  chain_narrow(k, op, s, in, out, n);
}

const struct gostx_kuz_impl gostx_kuz_avx2 = {"avx2", gostx__kuz_avx2_encrypt, gostx__kuz_avx2_decrypt,
                                              KUZ_AVX2_BATCH,
                                              KUZ_AVX2_MK_MAX, sizeof(struct mk_avx2),
                                              gostx__kuz_avx2_mk_init, gostx__kuz_avx2_mk_encrypt,
                                              gostx__kuz_avx2_mk_decrypt, gostx__kuz_avx2_ctr,
                                              expand_narrow, gostx__kuz_avx2_xts, 256,
                                              gostx__kuz_avx2_ctr_acpkm, chain_narrow, 4096, NULL};

#endif
