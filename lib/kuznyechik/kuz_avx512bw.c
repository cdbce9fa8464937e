/* Kuznyechik on AVX-512 F/BW/VL without VBMI or GFNI (the avx512bw level:
 * Skylake-SP, Cascade Lake), constant time: the bitsliced kernel of
 * kuz_bs_template.h on 512-bit words, 512 blocks per batch (each 64-bit
 * lane is one portable batch of 64 blocks). Against the AVX2 file's ymm
 * words: half the instructions per block, and GCC folds the S-box circuits'
 * and the L program's XOR pairs into VPTERNLOGQ. docs/KUZNYECHIK.md
 * ("avx512bw") has the measurements.
 *
 * The level requires AVX2 (every AVX-512 CPU has it), so what a 512-block
 * batch does not pay for runs on the AVX2 file's code (kuz_avx2.h): calls and tails of
 * up to KUZ_AVX512BW_WIDE_MIN - 1 blocks (its 256- and 128-block ymm / xmm
 * batches and its one-block kernel), the multi-key calls (whose schedule
 * must fit gostx_kuz_mk.sched, where 512-block key planes do not), XTS
 * and the last < 512 counters of a CTR call.
 * The key schedule is AVX2's too (lib/dispatch.c: kuz_expand_for). */
#include "impl.h"
#include "kuz_avx2.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE
#include <pthread.h>

typedef uint64_t W8 __attribute__((vector_size(64)));

#define AVX512BW GOSTX_TARGET_AVX512BW
#define AVX512BW_INLINE static inline __attribute__((always_inline)) GOSTX_TARGET_AVX512BW

/* The S-box circuits' ~a & b as one vpandnq each (see kuz_tables.h). */
AVX512BW_INLINE W8 andn_w8(W8 a, W8 b) { return (W8)_mm512_andnot_si512((__m512i)a, (__m512i)b); }
#define KUZ_ANDN(a, b) _Generic((a), W8: andn_w8, default: kuz_andn_u64)((a), (b))
#include "kuz_tables.h"

/* From this many blocks a (padded) 512-block batch beats the AVX2 file's
 * 256-block one plus its tail (measured: docs/KUZNYECHIK.md). */
#define KUZ_AVX512BW_WIDE_MIN 257
#define BATCH8 512

/* Eight blocks (128 bytes): two loads, two unpacks; lanes hold blocks
 * 0, 4, 1, 5, 2, 6, 3, 7 (the template only needs STORE8 to undo LOAD8). */
#define LOAD8(p, lo, hi)                                          \
  do {                                                            \
    __m512i x_ = _mm512_loadu_si512((const void *)(p));           \
    __m512i y_ = _mm512_loadu_si512((const void *)((p) + 64));    \
    (lo) = (W8)_mm512_unpacklo_epi64(x_, y_);                     \
    (hi) = (W8)_mm512_unpackhi_epi64(x_, y_);                     \
  } while (0)
#define STORE8(p, lo, hi)                                                                         \
  do {                                                                                            \
    _mm512_storeu_si512((void *)(p), _mm512_unpacklo_epi64((__m512i)(lo), (__m512i)(hi)));        \
    _mm512_storeu_si512((void *)((p) + 64), _mm512_unpackhi_epi64((__m512i)(lo), (__m512i)(hi))); \
  } while (0)

#define BS_ATTR AVX512BW
#define BS_W W8
#define BS_LANES 8
#define BS_NAME(x) x##_w8
#define BS_LOAD_GROUP LOAD8
#define BS_STORE_GROUP STORE8
#define BS_BCAST_MEM(p) ((W8)_mm512_set1_epi64((long long)*(p)))
/* Two 64-bit masks as A, B, A, B, ... (one 128-bit broadcast load). */
#define BS_BCAST2_MEM(p) ((W8)_mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)(p))))
#define BS_CTR 1 /* ctr_prep and mul_const; the batch below (512 counters) */
#include "kuz_bs_template.h"

/* build_key_masks (kuz_bs_template.h) in one vector per key byte: bit b
 * shifted down and negated in lane b (arithmetic, no mask register: SIMDe
 * models masked moves with branches, which the ct gate would report). */
AVX512BW static void key_masks_avx512bw(uint64_t km[10][16][8], const gostx_kuz_key *k) {
  const __m512i shifts = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), one = _mm512_set1_epi64(1);
  for (unsigned r = 0; r < 10; r++)
    for (unsigned j = 0; j < 16; j++) {
      const __m512i bit = _mm512_and_si512(_mm512_srlv_epi64(_mm512_set1_epi64(k->ek[r][j]), shifts), one);
      _mm512_storeu_si512((void *)km[r][j], _mm512_sub_epi64(_mm512_setzero_si512(), bit));
    }
}

/* Whole 512-block batches, a remainder of KUZ_AVX512BW_WIDE_MIN.. blocks as
 * one padded batch; shorter calls and remainders on the AVX2 table. */
AVX512BW static void run(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n,
                         int decrypt) {
  if (n >= KUZ_AVX512BW_WIDE_MIN) {
    _Alignas(64) uint64_t km[10][16][8];
    key_masks_avx512bw(km, k);
    size_t rem = n % BATCH8, big = rem >= KUZ_AVX512BW_WIDE_MIN ? n : n - rem;
    blocks_w8((const uint64_t(*)[16][8])km, in, out, big, decrypt);
    in += 16 * big;
    out += 16 * big;
    n -= big;
    gostx_memzero(km, sizeof km);
  }
  if (n) (decrypt ? gostx__kuz_avx2_decrypt : gostx__kuz_avx2_encrypt)(k, in, out, n);
}

static void kuz_avx512bw_encrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  run(k, in, out, n, 0);
}

static void kuz_avx512bw_decrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  run(k, in, out, n, 1);
}

/* ---------------- counter mode ----------------
 * kuz_bs_template.h's counter kernel (see BS_CTR there: no input transpose,
 * round 1 from precomputed planes) stretched to 512 counters: byte p of
 * block i is (c_p + (i mod 256)) mod 256 (ctr_prep_w8 on the planes of
 * i mod 256), and the part above byte p is base + q, q = carry + (i >= 256)
 * in {0, 1, 2}, so round 1's output is
 *   w ^ a0 ^ [q = 1] (a0 ^ a1) ^ [q = 2] (a0 ^ a2),
 * a_q = L(S'((ctr + 256 q) ^ K1)) by the AVX2 file's one-block code.
 * Whole batches only: the last < 512 counters take the AVX2 table's ctr. */
static W8 pat8[8], hi8; /* planes of i mod 256; all-ones where i >= 256 */
static pthread_once_t pat8_once = PTHREAD_ONCE_INIT;

AVX512BW static void pat8_init(void) {
  _Alignas(64) uint8_t buf[16 * BATCH8];
  _Alignas(64) W8 s[16][8];
  for (unsigned i = 0; i < BATCH8; i++) memset(buf + 16 * i, (int)(i & 255), 16);
  load_w8(s, buf);
  for (unsigned b = 0; b < 8; b++) pat8[b] = s[0][b];
  for (unsigned i = 0; i < BATCH8; i++) memset(buf + 16 * i, (int)(i >> 8), 16);
  load_w8(s, buf);
  hi8 = s[0][0];
}

AVX512BW __attribute__((noinline)) static void ctr_batch8(W8 s[32][8], const uint64_t km[10][16][8],
                                                          const W8 w[16][8], W8 carry,
                                                          const uint8_t a[3][16], uint8_t *out) {
  const W8 q1 = carry ^ hi8, q2 = carry & hi8;
  for (unsigned j = 0; j < 16; j++)
    for (unsigned b = 0; b < 8; b++) {
      const uint64_t m0 = 0 - (uint64_t)((a[0][j] >> b) & 1);
      const uint64_t m1 = 0 - (uint64_t)(((a[0][j] ^ a[1][j]) >> b) & 1);
      const uint64_t m2 = 0 - (uint64_t)(((a[0][j] ^ a[2][j]) >> b) & 1);
      s[j][b] = w[j][b] ^ bcast_w8(m0) ^ (q1 & bcast_w8(m1)) ^ (q2 & bcast_w8(m2));
    }
  encrypt_any_w8(s, km, 0, 1);
  store_w8(out, s);
}

AVX512BW static void kuz_avx512bw_ctr(const gostx_kuz_key *k, uint8_t ctr[16], unsigned inc,
                                      const uint8_t *in, uint8_t *out, size_t n) {
  if (n >= BATCH8) {
    _Alignas(64) uint8_t ks[16 * BATCH8];
    _Alignas(64) uint64_t km[10][16][8];
    _Alignas(64) W8 w[16][8], s[32][8], carry[1];
    uint8_t a[3][16], next[16];
    const unsigned p = inc == GOSTX__CTR_LEFT ? 7 : 15;
    pthread_once(&pat8_once, pat8_init);
    key_masks_avx512bw(km, k);
    ctr_prep_w8(w, carry, (const uint64_t(*)[16][8])km, pat8, p, ctr[p]);
    gostx__kuz_avx2_ls_drop(a[0], ctr, k->ek[0], p);
    for (; n >= BATCH8; n -= BATCH8) {
      for (unsigned q = 1; q <= 2; q++) {
        memcpy(next, ctr, 16);
        gostx__ctr_add(next, 16, inc, 256 * q);
        gostx__kuz_avx2_ls_drop(a[q], next, k->ek[0], p);
      }
      gostx_prefetch_batch(in, out, sizeof ks);
      ctr_batch8(s, (const uint64_t(*)[16][8])km, w, carry[0], (const uint8_t(*)[16])a, ks);
      if (in) {
        gostx_xor(out, in, ks, sizeof ks);
        in += sizeof ks;
      } else {
        memcpy(out, ks, sizeof ks);
      }
      out += sizeof ks;
      memcpy(ctr, next, 16); /* ctr + 512 */
      memcpy(a[0], a[2], 16);
    }
    gostx_memzero(ks, sizeof ks);
    gostx_memzero(km, sizeof km);
    gostx_memzero(w, sizeof w);
    gostx_memzero(s, sizeof s);
    gostx_memzero(carry, sizeof carry);
    gostx_memzero(a, sizeof a);
    gostx_memzero(next, sizeof next);
  }
  if (n) gostx__kuz_avx2_ctr(k, ctr, inc, in, out, n); /* its own kernel from 129 blocks */
}

/* ---------------- CTR-ACPKM: two 4 KiB sections per batch ----------------
 * A 4 KiB section is 256 counters under one key: half of this file's batch.
 * Two consecutive sections share one batch, key A in the even 64-bit lanes
 * and key B in the odd ones (LOAD8 puts blocks 8 g + 0..3 of each 8-block
 * group in the even lanes and 8 g + 4..7 in the odd): the key XOR is one
 * 128-bit broadcast of the two masks (BS_BCAST2_MEM), as cheap as one key's,
 * and ctr_prep_planes takes both keys' byte 15 the same way. Block n of the
 * batch then carries counter 4 (n / 8) + n % 4 of its section (byte 15; the
 * section starts at 0 there), so the keystream comes out as 64-byte pieces
 * of A and B in turn, which the XOR pass puts in place. Round 1's constant
 * is a0 = L(S'(ctr ^ A1)) in A's lanes and a1 = L(S'((ctr + 256) ^ B1)) in
 * B's. Before, each section went to the AVX2 kernel (CTR-ACPKM ~0.55x this
 * level's CTR); the key chain stays one key after the other. */
static W8 pat_ab[8]; /* planes of each block's counter byte, as above */
static pthread_once_t pat_ab_once = PTHREAD_ONCE_INIT;

AVX512BW static void pat_ab_init(void) {
  _Alignas(64) uint8_t buf[16 * BATCH8];
  _Alignas(64) W8 s[16][8];
  for (unsigned n = 0; n < BATCH8; n++) memset(buf + 16 * n, (int)(4 * (n / 8) + n % 4), 16);
  load_w8(s, buf);
  for (unsigned b = 0; b < 8; b++) pat_ab[b] = s[0][b];
}

/* km2[r][j][b] = {mask of A, mask of B} (the layout BS_BCAST2_MEM reads). */
AVX512BW static void key_masks2(uint64_t km2[10][16][8][2], const uint8_t a[10][16],
                                const uint8_t b[10][16]) {
  const __m512i lo = _mm512_setr_epi64(0, 0, 1, 1, 2, 2, 3, 3), one = _mm512_set1_epi64(1);
  const __m512i hi = _mm512_add_epi64(lo, _mm512_set1_epi64(4));
  for (unsigned r = 0; r < 10; r++)
    for (unsigned j = 0; j < 16; j++) {
      const __m512i ab = _mm512_unpacklo_epi64(_mm512_set1_epi64(a[r][j]), _mm512_set1_epi64(b[r][j]));
      const __m512i m0 = _mm512_and_si512(_mm512_srlv_epi64(ab, lo), one);
      const __m512i m1 = _mm512_and_si512(_mm512_srlv_epi64(ab, hi), one);
      _mm512_storeu_si512((void *)km2[r][j][0], _mm512_sub_epi64(_mm512_setzero_si512(), m0));
      _mm512_storeu_si512((void *)km2[r][j][4], _mm512_sub_epi64(_mm512_setzero_si512(), m1));
    }
}

AVX512BW __attribute__((noinline)) static void ctr_batch_ab(W8 s[32][8], const uint64_t km2[10][16][8][2],
                                                            const W8 w[16][8], const uint8_t a0[16],
                                                            const uint8_t a1[16], uint8_t *out) {
  const W8 odd = (W8)_mm512_setr_epi64(0, -1, 0, -1, 0, -1, 0, -1);
  for (unsigned j = 0; j < 16; j++)
    for (unsigned b = 0; b < 8; b++) {
      const uint64_t m0 = 0 - (uint64_t)((a0[j] >> b) & 1);
      const uint64_t m1 = 0 - (uint64_t)(((a0[j] ^ a1[j]) >> b) & 1);
      s[j][b] = w[j][b] ^ bcast_w8(m0) ^ (odd & bcast_w8(m1));
    }
  encrypt_any_w8(s, km2, 2, 1);
  store_w8(out, s);
}

/* Everything the sections hold that derives from the keys: one wipe. */
struct acpkm_ab {
  _Alignas(64) uint8_t ks[16 * BATCH8];
  _Alignas(64) uint64_t km2[10][16][8][2];
  _Alignas(64) W8 w[16][8], s[32][8], carry[1], kb[8];
  _Alignas(64) uint8_t a[2][16], ka[10][16], kbk[10][16];
};

/* Sections of 256 blocks from byte 15 = 0, two at a time; an odd last one
 * through the AVX2 table. k ends as the last section's key (as the AVX2
 * entry leaves it). Other shapes: the AVX2 table's entry below 512 blocks a
 * section, the generic loop (this file's batches) from there. */
AVX512BW static size_t kuz_avx512bw_ctr_acpkm(gostx_kuz_key *k, uint8_t ctr[16], size_t sec,
                                              const uint8_t *in, uint8_t *out, size_t nsec) {
  if (sec != 256 || nsec < 2 || ctr[15] != 0)
    return sec < BATCH8 ? gostx__kuz_avx2_ctr_acpkm(k, ctr, sec, in, out, nsec) : 0;
  struct acpkm_ab st;
  uint8_t next[16];
  pthread_once(&pat_ab_once, pat_ab_init);
  memcpy(st.ka, k->ek, sizeof st.ka);
  size_t i = 0;
  for (; i + 2 <= nsec; i += 2) {
    if (i) gostx__kuz_avx2_acpkm_next(st.ka); /* A: the key after the last B */
    memcpy(st.kbk, st.ka, sizeof st.kbk);
    gostx__kuz_avx2_acpkm_next(st.kbk);
    key_masks2(st.km2, (const uint8_t(*)[16])st.ka, (const uint8_t(*)[16])st.kbk);
    for (unsigned b = 0; b < 8; b++) st.kb[b] = (W8)BS_BCAST2_MEM(st.km2[0][15][b]);
    ctr_prep_planes_w8(st.w, st.carry, st.kb, pat_ab, 15, 0);
    gostx__kuz_avx2_ls_drop(st.a[0], ctr, st.ka[0], 15);
    memcpy(next, ctr, 16);
    gostx__ctr_add(next, 16, GOSTX__CTR_FULL, 256);
    gostx__kuz_avx2_ls_drop(st.a[1], next, st.kbk[0], 15);
    gostx_prefetch_batch(in, out, sizeof st.ks);
    ctr_batch_ab(st.s, (const uint64_t(*)[16][8][2])st.km2, st.w, st.a[0], st.a[1], st.ks);
    for (unsigned c = 0; c < 64; c++) /* 64-byte pieces: A's, then B's */
      for (unsigned h = 0; h < 2; h++) {
        const size_t at = 4096 * h + 64 * c;
        __m512i x = _mm512_load_si512((const void *)(st.ks + 128 * c + 64 * h));
        if (in) x = _mm512_xor_si512(x, _mm512_loadu_si512((const void *)(in + at)));
        _mm512_storeu_si512((void *)(out + at), x);
      }
    if (in) in += sizeof st.ks;
    out += sizeof st.ks;
    gostx__ctr_add(ctr, 16, GOSTX__CTR_FULL, 512);
    memcpy(st.ka, st.kbk, sizeof st.ka); /* the last section's key so far */
  }
  memcpy(k->ek, st.ka, sizeof k->ek);
  if (i < nsec) { /* one more section: its key, then the AVX2 kernel */
    gostx__kuz_avx2_acpkm_next(k->ek);
    gostx__kuz_avx2_ctr_acpkm(k, ctr, sec, in, out, 1);
  }
  gostx__kuz_avx2_dk(k->dk, (const uint8_t(*)[16])k->ek);
  gostx_memzero(&st, sizeof st);
  return nsec;
}

/* The multi-key calls, XTS and the one-block chains are the AVX2 code's
 * (kuz_avx2.h; the chains' zmm version was weighed in docs/KUZNYECHIK.md
 * and not built).
 * batch: 256, the multi-key calls' (AVX2) batch, which the sector engine
 * fills. mk_size: the handle's whole buffer, which AVX2's schedule fits (kuz.c
 * checks it against sched; tests/test_kuz_simd.c against gostx_kuz_avx2). */
const struct gostx_kuz_impl gostx_kuz_avx512bw = {"avx512bw", kuz_avx512bw_encrypt,
                                                  kuz_avx512bw_decrypt, 256,
                                                  GOSTX_KUZ_MK_MAX, GOSTX_KUZ_MK_BYTES,
                                                  gostx__kuz_avx2_mk_init, gostx__kuz_avx2_mk_encrypt,
                                                  gostx__kuz_avx2_mk_decrypt, kuz_avx512bw_ctr, NULL,
                                                  gostx__kuz_avx2_xts, 256, kuz_avx512bw_ctr_acpkm,
                                                  gostx__kuz_avx2_chain, 4096, NULL};

#endif
