/* Kuznyechik on AVX-512 (F/BW/VL + VBMI + GFNI), byte-sliced: 64 blocks at a
 * time, zmm j holding byte j of all 64, for the avx512 row's long calls
 * (kuz_avx512.c hands it every whole group of 64 blocks under one key).
 * Constant time: no secret-dependent branch or address; the only memory
 * reads are of public tables at fixed addresses and of the caller's key.
 *
 * Why (docs/KUZNYECHIK.md, "byte-sliced"): the lane layout of kuz_avx512.c
 * spends 16 vgf2p8mulb, 9 byte shuffles and 10 other ops per round and zmm,
 * and Intel issues 512-bit ops on two ports only (GFNI on one of them,
 * shuffles on the other). Here L is the LFSR it is defined from, run 16
 * steps on whole registers: with u_0..u_15 the input bytes a_0..a_15,
 *   u_{t+16} = u_t ^ u_{t+7} ^ u_{t+9} ^ 251 u_{t+8}
 *              ^ sum_{k=1..6} c_k (u_{t+k} ^ u_{t+16-k}),
 *   c = 148, 32, 133, 16, 194, 192 (l's coefficients are symmetric),
 * and L(a) = (u_31, ..., u_16). One step is 6 XORs, 7 products by a constant
 * (vgf2p8affineqb with a broadcast matrix, in Kuznyechik's own field: no
 * isomorphism) and 5 XORs (4 vpternlogq): 18 ops for 64 bytes. L^-1 is the
 * same step backwards, u_t = u_{t+16} ^ (the same sum), t = 15..0. With the
 * S-box (two vpermi2b and a blend on the top bit per register) and the round
 * key: 368 ops per round of 64 blocks, 23 per zmm of 4 blocks (35 before),
 * 112 of them on the GFNI port (256 before). The transposition in and out
 * (vpermb, then a 16 x 16 dword transpose by vpermt2d) costs 160 shuffles
 * per 64 blocks, about a twentieth of the rounds. */
#include "impl.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE
#include <pthread.h>

#include "kuz_tables.h"
#include "kuz_xts_avx512.h"

#ifdef GOSTX_EMULATE_AVX512
/* On SIMDe (make emu, the constant-time check's emulated build) each
 * intrinsic is a loop over lanes: unrolled 16 ways and forced inline into
 * every mode's kernel they made this one file take minutes of compiling
 * (over 8 of CPU). That build checks the source's data flow, which
 * unrolling leaves alone; the native code is the same either way. */
#define SL_INLINE static inline GOSTX_TARGET_AVX512
#define SL_UNROLL(n)
#else
#define SL_INLINE static inline __attribute__((always_inline)) GOSTX_TARGET_AVX512
#define SL_PRAGMA(x) _Pragma(#x)
#define SL_UNROLL(n) SL_PRAGMA(GCC unroll n)
#endif

/* Public constants, built once.
 * sbox[dir], sdiff[dir]: the first half of pi (dir 0) or pi^-1 (dir 1), and
 *   the second half XOR the first.
 * mat[k]: the gf2p8affineqb matrix of x -> c x in GF(2^8)/0x1C3 for
 *   c = 148, 32, 133, 16, 194, 192, 251 (k = 0..6).
 * gather / scatter: vpermb indices between 4 blocks per zmm (byte 16 b + j)
 *   and the dword layout (byte 4 j + b: dword j = byte j of the 4 blocks).
 * tr[s][h]: vpermt2d indices of transpose stage s, h = 0 for the register
 *   whose bit s is 0, h = 1 for its partner. */
struct sliced_consts {
  _Alignas(64) uint8_t sbox[2][128];
  _Alignas(64) uint8_t sdiff[2][128];
  _Alignas(64) uint8_t gather[64];
  _Alignas(64) uint8_t scatter[64];
  _Alignas(64) uint32_t tr[4][2][16];
  _Alignas(64) uint8_t iota[64]; /* 0, 1, ..., 63 */
  uint64_t mat[7];
};
static struct sliced_consts sc;
static pthread_once_t sc_once = PTHREAD_ONCE_INIT;

static const uint8_t l_coef[7] = {148, 32, 133, 16, 194, 192, 251};

static void sc_init(void) {
  const uint8_t *pis[2] = {gostx__kuz_pi, gostx__kuz_pi_inv};
  for (unsigned dir = 0; dir < 2; dir++)
    for (unsigned v = 0; v < 128; v++) {
      sc.sbox[dir][v] = pis[dir][v];
      sc.sdiff[dir][v] = (uint8_t)(pis[dir][v] ^ pis[dir][v + 128]);
    }
  for (unsigned k = 0; k < 7; k++) {
    /* Output bit i of the affine is the parity of (matrix byte 7 - i) & x:
     * bit b of that byte is bit i of c 2^b. */
    uint64_t m = 0;
    for (unsigned b = 0; b < 8; b++) {
      const uint8_t col = gostx__kuz_gf_mul(l_coef[k], (uint8_t)(1u << b));
      for (unsigned i = 0; i < 8; i++) m |= (uint64_t)((col >> i) & 1) << (8 * (7 - i) + b);
    }
    sc.mat[k] = m;
  }
  for (unsigned j = 0; j < 16; j++)
    for (unsigned b = 0; b < 4; b++) {
      sc.gather[4 * j + b] = (uint8_t)(16 * b + j);
      sc.scatter[16 * b + j] = (uint8_t)(4 * j + b);
    }
  for (unsigned i = 0; i < 64; i++) sc.iota[i] = (uint8_t)i;
  for (unsigned s = 0; s < 4; s++)
    for (unsigned c = 0; c < 16; c++) {
      const unsigned bit = 1u << s;
      sc.tr[s][0][c] = c & bit ? 16 + (c ^ bit) : c;
      sc.tr[s][1][c] = c & bit ? 16 + c : c | bit;
    }
}

/* &sc, opaque to the optimizer: the constants stay memory operands. */
SL_INLINE const struct sliced_consts *consts(void) {
  const struct sliced_consts *c = &sc;
  __asm__("" : "+r"(c));
  return c;
}

#define LDZ(p) _mm512_load_si512((const void *)(p))
#define XOR3(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)

SL_INLINE __m512i mulc(const struct sliced_consts *c, __m512i x, unsigned k) {
  return _mm512_gf2p8affine_epi64_epi8(x, _mm512_set1_epi64((long long)c->mat[k]), 0);
}

/* One step of the recurrence: first ^ the sum over u[1..15] (u = &u_t). The
 * newest operand (u[15] forwards, u[1] backwards) meets the first product,
 * whose XOR comes last: one XOR, a product and one XOR on the chain. */
SL_INLINE __m512i lstep(const struct sliced_consts *c, const __m512i *u, __m512i first) {
  const __m512i p1 = mulc(c, _mm512_xor_si512(u[1], u[15]), 0);
  const __m512i p2 = mulc(c, _mm512_xor_si512(u[2], u[14]), 1);
  const __m512i p3 = mulc(c, _mm512_xor_si512(u[3], u[13]), 2);
  const __m512i p4 = mulc(c, _mm512_xor_si512(u[4], u[12]), 3);
  const __m512i p5 = mulc(c, _mm512_xor_si512(u[5], u[11]), 4);
  const __m512i p6 = mulc(c, _mm512_xor_si512(u[6], u[10]), 5);
  const __m512i p8 = mulc(c, u[8], 6);
  __m512i s = XOR3(first, u[7], u[9]);
  s = XOR3(s, p8, p6);
  s = XOR3(s, p5, p4);
  s = XOR3(s, p3, p2);
  return _mm512_xor_si512(s, p1);
}

/* x = L(x) (dir 0) or L^-1(x) (dir 1); x[j] is byte j, a_{15-j}. */
SL_INLINE void lin(const struct sliced_consts *c, __m512i x[16], unsigned dir) {
  __m512i u[32];
  if (dir == 0) {
SL_UNROLL(16)
    for (unsigned i = 0; i < 16; i++) u[i] = x[15 - i];
SL_UNROLL(16)
    for (unsigned t = 0; t < 16; t++) u[16 + t] = lstep(c, u + t, u[t]);
SL_UNROLL(16)
    for (unsigned i = 0; i < 16; i++) x[15 - i] = u[16 + i];
  } else {
SL_UNROLL(16)
    for (unsigned i = 0; i < 16; i++) u[16 + i] = x[15 - i];
SL_UNROLL(16)
    for (unsigned t = 16; t-- > 0;) u[t] = lstep(c, u + t, u[t + 16]);
SL_UNROLL(16)
    for (unsigned i = 0; i < 16; i++) x[15 - i] = u[i];
  }
}

/* vpermi2b with zero-masking (the emulation's register model of the byte
 * permute, then its masked move). */
#ifdef GOSTX_EMULATE_AVX512
#define PERM2_Z(k, a, i, b) \
  _mm512_mask_mov_epi8(_mm512_setzero_si512(), (k), _mm512_permutex2var_epi8((a), (i), (b)))
#else
#define PERM2_Z(k, a, i, b) _mm512_maskz_permutex2var_epi8((k), (a), (i), (b))
#endif

/* S or S^-1 on every byte, XORed with key: the table's first half by x's
 * low 7 bits, and where bit 7 is set, the difference of the halves; the two
 * and the key in one vpternlogq (a blend and an XOR would be two ops). */
SL_INLINE __m512i sbox_key(const struct sliced_consts *c, unsigned dir, __m512i x, __m512i key) {
  const uint8_t *t = c->sbox[dir], *d = c->sdiff[dir];
  /* Opaque per call: the tables come from memory into the register that
   * vpermt2b overwrites (a load) instead of register copies (ALU uops). */
  __asm__ volatile("" : "+r"(t), "+r"(d));
  const __m512i lo = _mm512_permutex2var_epi8(LDZ(t), x, LDZ(t + 64));
  const __m512i hd = PERM2_Z(_mm512_movepi8_mask(x), LDZ(d), x, LDZ(d + 64));
  return XOR3(lo, hd, key);
}

/* The 16 x 16 dword transpose (self-inverse): stage s swaps bit s of the
 * register number with bit s of the dword position. */
SL_INLINE void transpose(const struct sliced_consts *c, __m512i x[16]) {
SL_UNROLL(4)
  for (unsigned s = 0; s < 4; s++) {
    const __m512i i0 = LDZ(c->tr[s][0]), i1 = LDZ(c->tr[s][1]);
SL_UNROLL(16)
    for (unsigned r = 0; r < 16; r++) {
      if (r & (1u << s)) continue;
      const unsigned q = r | (1u << s);
      const __m512i a = _mm512_permutex2var_epi32(x[r], i0, x[q]);
      x[q] = _mm512_permutex2var_epi32(x[r], i1, x[q]);
      x[r] = a;
    }
  }
}

/* The rounds on one group of 64 blocks; kb[r][j]: byte j of the r-th key
 * added, in every byte. Encryption adds K1, then L^-1(K_{r+1}) (k->dk)
 * before L, where the S-box's ternary op takes it: L(S(x)) ^ K =
 * L(S(x) ^ L^-1(K)). Decryption adds K10, then K9..K1 after S^-1. */
SL_INLINE void rounds(const struct sliced_consts *c, const uint32_t kb[10][16], __m512i x[16],
                      unsigned dir) {
#define KB(r, j) _mm512_set1_epi32((int)kb[(r)][(j)])
  const unsigned first = dir ? 9 : 0;
SL_UNROLL(16)
  for (unsigned j = 0; j < 16; j++) x[j] = _mm512_xor_si512(x[j], KB(first, j));
  if (dir == 0) {
    for (unsigned r = 1; r < 10; r++) {
SL_UNROLL(16)
      for (unsigned j = 0; j < 16; j++) x[j] = sbox_key(c, 0, x[j], KB(r, j));
      lin(c, x, 0);
      if (r == 5) GOSTX_CT_PLANT(GOSTX_PLANT_KUZNYECHIK_SLICED, x, 16 * sizeof x[0]);
    }
  } else {
    for (unsigned r = 9; r-- > 0;) {
      lin(c, x, 1);
SL_UNROLL(16)
      for (unsigned j = 0; j < 16; j++) x[j] = sbox_key(c, 1, x[j], KB(r, j));
    }
  }
#undef KB
}

/* 64 blocks from in into slices, XORed first with tw[i] (4 blocks each, in
 * memory order) unless tw is NULL; with at non-NULL, block quad i (64 bytes)
 * is read from at[i] instead of in + 64 i. */
SL_INLINE void load_slices(const struct sliced_consts *c, __m512i x[16], const uint8_t *in,
                           const uint8_t *const *at, const __m512i *tw) {
  const __m512i g = LDZ(c->gather);
SL_UNROLL(16)
  for (unsigned i = 0; i < 16; i++) {
    __m512i y = _mm512_loadu_si512((const void *)(at ? at[i] : in + 64 * i));
    if (tw) y = _mm512_xor_si512(y, tw[i]);
    x[i] = _mm512_permutexvar_epi8(g, y);
  }
  transpose(c, x);
}

/* Slices back to 64 blocks at out (quad i at at[i] with at non-NULL),
 * XORed with the blocks at xin and with tw[i] unless NULL. */
SL_INLINE void store_slices(const struct sliced_consts *c, __m512i x[16], uint8_t *out,
                            uint8_t *const *at, const uint8_t *xin, const __m512i *tw) {
  const __m512i s = LDZ(c->scatter);
  transpose(c, x);
SL_UNROLL(16)
  for (unsigned i = 0; i < 16; i++) {
    __m512i y = _mm512_permutexvar_epi8(s, x[i]);
    if (xin) y = _mm512_xor_si512(y, _mm512_loadu_si512((const void *)(xin + 64 * i)));
    if (tw) y = _mm512_xor_si512(y, tw[i]);
    _mm512_storeu_si512((void *)(at ? at[i] : out + 64 * i), y);
  }
}

/* The slices of the 64 counters ctr + 0..63, stepped as inc says, made in
 * place (no transposition in): the last byte of the stepped half is
 * ctr's + lane; the lanes where it wrapped carry one into the bytes above,
 * and those bytes are then the same in every such lane, those of ctr +
 * 256 (made in scalar, no branch on the value): one compare for the mask
 * and one masked broadcast per byte, all independent (a byte-by-byte carry
 * chain cost CTR ~3 % against ECB: its 45 dependent ops stall the first
 * round). up = ctr + 256 comes from the caller, who wipes it once: a call
 * here, inside the group loop, made the compiler spill and reload all 16
 * slices around it. */
SL_INLINE void ctr_slices(const struct sliced_consts *c, __m512i x[16], const uint8_t ctr[16],
                          const uint8_t up[16], unsigned inc) {
  const unsigned top = inc == GOSTX__CTR_LEFT ? 7 : 15;
  const __m512i iota = LDZ(c->iota);
  x[top] = _mm512_add_epi8(_mm512_set1_epi8((char)ctr[top]), iota);
  const __mmask64 wrap = _mm512_cmplt_epu8_mask(x[top], iota);
SL_UNROLL(16)
  for (unsigned j = 0; j < 16; j++)
    if (j != top)
      x[j] = _mm512_mask_blend_epi8(wrap, _mm512_set1_epi8((char)ctr[j]),
                                    _mm512_set1_epi8((char)up[j]));
}

GOSTX_TARGET_AVX512 static void run_enc(const struct sliced_consts *c, const uint32_t kb[10][16],
                                        const uint8_t *in, uint8_t *out, size_t ngroups) {
  for (size_t i = 0; i < ngroups; i++, in += 1024, out += 1024) {
    __m512i x[16];
    load_slices(c, x, in, NULL, NULL);
    rounds(c, kb, x, 0);
    store_slices(c, x, out, NULL, NULL, NULL);
  }
}

GOSTX_TARGET_AVX512 static void run_dec(const struct sliced_consts *c, const uint32_t kb[10][16],
                                        const uint8_t *in, uint8_t *out, size_t ngroups) {
  for (size_t i = 0; i < ngroups; i++, in += 1024, out += 1024) {
    __m512i x[16];
    load_slices(c, x, in, NULL, NULL);
    rounds(c, kb, x, 1);
    store_slices(c, x, out, NULL, NULL, NULL);
  }
}

GOSTX_TARGET_AVX512 static void run_ctr(const struct sliced_consts *c, const uint32_t kb[10][16],
                                        uint8_t ctr[16], unsigned inc, const uint8_t *in,
                                        uint8_t *out, size_t ngroups) {
  uint8_t up[16];
  for (size_t i = 0; i < ngroups; i++, out += 1024) {
    __m512i x[16];
    memcpy(up, ctr, 16);
    gostx__ctr_add(up, 16, inc, 256);
    ctr_slices(c, x, ctr, up, inc);
    gostx__ctr_add(ctr, 16, inc, 64);
    rounds(c, kb, x, 0);
    if (in) {
      store_slices(c, x, out, NULL, in, NULL);
      in += 1024;
    } else {
      store_slices(c, x, out, NULL, NULL, NULL);
    }
  }
  gostx_memzero(up, sizeof up);
}

/* The counters ctr + 0, 1, ... into lanes a..63 (a > 0; the lanes below
 * kept): ctr_slices under the lane mask, the lane's offset from a in the
 * low byte, up = ctr + 256 (the caller's, wiped once per group). Where a
 * later run starts, its call overwrites the lanes above. */
SL_INLINE void ctr_slices_from(const struct sliced_consts *c, __m512i x[16],
                               const uint8_t ctr[16], const uint8_t up[16], unsigned inc,
                               unsigned a) {
  const unsigned top = inc == GOSTX__CTR_LEFT ? 7 : 15;
  const __mmask64 lanes = ~(__mmask64)0 << a;
  const __m512i d = _mm512_sub_epi8(LDZ(c->iota), _mm512_set1_epi8((char)a));
  const __m512i t = _mm512_add_epi8(_mm512_set1_epi8((char)ctr[top]), d);
  const __mmask64 wrap = _mm512_cmplt_epu8_mask(t, d);
  x[top] = _mm512_mask_mov_epi8(x[top], lanes, t);
SL_UNROLL(16)
  for (unsigned j = 0; j < 16; j++)
    if (j != top) {
      /* mask_mov, not mask_set1: the emulated build models the former
       * without a branch on the mask (lib/x86_avx512_emu.h); the compiler
       * makes a masked broadcast of either */
      x[j] = _mm512_mask_mov_epi8(x[j], lanes & ~wrap, _mm512_set1_epi8((char)ctr[j]));
      x[j] = _mm512_mask_mov_epi8(x[j], lanes & wrap, _mm512_set1_epi8((char)up[j]));
    }
}

/* A list of counter runs taken as one stream of blocks (the layout of
 * gostx__cipher_ctr_runs) and where it stands: run r, its block o. */
struct ctr_stream {
  const struct gostx__ctr_run *runs;
  size_t r, o;
};

/* The stream's next m <= 64 counters into lanes 0..m-1 (the lanes above
 * hold counters of no use), the stream moved on. Where the runs meet in
 * the group depends only on their lengths: public. */
SL_INLINE void stream_slices(const struct sliced_consts *c, __m512i x[16], struct ctr_stream *s,
                             size_t m) {
  uint8_t v[16], up[16];
  for (size_t a = 0; a < m;) {
    const struct gostx__ctr_run *run = &s->runs[s->r];
    const size_t take = run->count - s->o < m - a ? run->count - s->o : m - a;
    memcpy(v, run->ctr, 16);
    gostx__ctr_add(v, 16, run->inc, s->o);
    memcpy(up, v, 16);
    gostx__ctr_add(up, 16, run->inc, 256);
    if (a == 0) ctr_slices(c, x, v, up, run->inc);
    else ctr_slices_from(c, x, v, up, run->inc, (unsigned)a);
    a += take;
    if ((s->o += take) == run->count) {
      s->r++;
      s->o = 0;
    }
  }
  gostx_memzero(v, sizeof v);
  gostx_memzero(up, sizeof up);
}

/* The first nblocks keystream blocks of the stream into out, in groups of
 * 64 across runs; a last group of fewer runs full and keeps its first. */
GOSTX_TARGET_AVX512 static void run_ctr_runs(const struct sliced_consts *c,
                                             const uint32_t kb[10][16], struct ctr_stream *s,
                                             uint8_t *out, size_t nblocks) {
  for (size_t done = 0; done < nblocks; done += 64) {
    const size_t m = nblocks - done < 64 ? nblocks - done : 64;
    __m512i x[16];
    stream_slices(c, x, s, m);
    rounds(c, kb, x, 0);
    if (m == 64) {
      store_slices(c, x, out + 16 * done, NULL, NULL, NULL);
    } else {
      _Alignas(64) uint8_t last[1024];
      store_slices(c, x, last, NULL, NULL, NULL);
      memcpy(out + 16 * done, last, 16 * m);
      gostx_memzero(last, sizeof last);
    }
  }
}

/* v * alpha^64 in every lane: the low half moved up, the high half times
 * 0x87 (one vpclmulqdq). */
SL_INLINE __m512i tw_mul64(__m512i v) {
  const __m512i fold = _mm512_clmulepi64_epi128(v, _mm512_set1_epi64(0x87), 0x01);
  return _mm512_xor_si512(_mm512_unpacklo_epi64(_mm512_setzero_si512(), v), fold);
}

/* XTS over data units of any length under one key. The units' blocks are
 * taken in order as one stream and cut into groups of 64, so short units
 * share groups (a 512-byte sector is 32 blocks: half a group) and a group
 * may hold the end of one unit and the start of the next; each block keeps
 * its own unit's tweak. Per group the tweaks are laid
 * out in tb (block p at tb + 16 p) and each quad of 4 blocks (one zmm before
 * the gather) is read from where it lies when its blocks are consecutive in
 * one unit, otherwise (a unit boundary inside it, or past the stream's end
 * in a padded last group) from st, where its blocks were copied. Which
 * quads those are depends only on the lengths and positions: public. */

/* T * alpha^0..n from T at t into dst, n <= 64 (whole runs of 16: up to
 * 16 n + 256 bytes written). Every run straight from the first (alpha^16,
 * ^32, ^48 in one step each, ^64 as tw_mul64): no chain of multiplications
 * between the kernel's groups. */
SL_INLINE void tw_fill(uint8_t *dst, const uint8_t *t, size_t n) {
  __m512i tw[4];
  gostx__kuz_tw_start(tw, t);
SL_UNROLL(4)
  for (unsigned i = 0; i < 4; i++) _mm512_storeu_si512((void *)(dst + 64 * i), tw[i]);
  for (unsigned k = 1; 16 * k <= n; k++)
SL_UNROLL(4)
    for (unsigned i = 0; i < 4; i++)
      _mm512_storeu_si512((void *)(dst + 256 * k + 64 * i),
                          k == 4 ? tw_mul64(tw[i]) : gostx__kuz_tw_mul(tw[i], 16 * k));
}

/* The units (gostx__kuz_avx512_sliced_xts_units' arguments) and where the
 * stream stands: unit u, its block j. */
struct xts_units {
  uint8_t *t;
  const size_t *idx;
  const uint8_t *in;
  uint8_t *out;
  size_t stride, nb, u, j;
};

/* One group's layout: tb its tweaks (and tw_fill's overrun), ip / op where
 * each quad is read and written, st the copied quads (a bit each in
 * staged), bo[p] where block p of those goes (NULL: padding). */
struct xts_group {
  _Alignas(64) uint8_t tb[80 * 16];
  _Alignas(64) uint8_t st[1024];
  const uint8_t *ip[16];
  uint8_t *op[16], *bo[64];
  unsigned staged;
};

/* The next m <= 64 blocks of the stream into g; the stream and its units'
 * t move on. Out of line: scalar work, kept away from the round code's
 * registers. */
__attribute__((noinline)) GOSTX_TARGET_AVX512 static void group_layout(struct xts_units *a,
                                                                      struct xts_group *g,
                                                                      size_t m) {
  g->staged = 0;
  for (size_t p = 0; p < m;) {
    const size_t n = a->nb - a->j < m - p ? a->nb - a->j : m - p;
    const size_t p0 = p, off = (a->idx ? a->idx[a->u] : a->u) * a->stride + 16 * a->j;
    uint8_t *tu = a->t + 16 * a->u;
    tw_fill(g->tb + 16 * p, tu, n);
    memcpy(tu, g->tb + 16 * (p + n), 16); /* T_{j+n}: where this unit goes on */
    for (const size_t e = p + n; p < e;) {
      const size_t o = off + 16 * (p - p0);
      if (p % 4 == 0 && e - p >= 4) { /* a whole quad in this unit */
        g->ip[p / 4] = a->in + o;
        g->op[p / 4] = a->out + o;
        p += 4;
      } else {
        g->staged |= 1u << (p / 4);
        memcpy(g->st + 16 * p, a->in + o, 16);
        g->bo[p] = a->out + o;
        p++;
      }
    }
    if ((a->j += n) == a->nb) {
      a->j = 0;
      a->u++;
    }
  }
  for (size_t p = m; p < 64; p++) { /* a padded last group: zeros in */
    g->staged |= 1u << (p / 4);
    memset(g->st + 16 * p, 0, 16);
    memset(g->tb + 16 * p, 0, 16);
    g->bo[p] = NULL;
  }
  for (unsigned q = 0; q < 16; q++)
    if (g->staged >> q & 1) g->ip[q] = g->op[q] = g->st + 64 * q;
}

/* Two layouts in turn: group k + 1's is made before group k's rounds, which
 * do not wait for it, so its multiplications' latency hides under them. */
SL_INLINE void run_xts_units(const struct sliced_consts *c, const uint32_t kb[10][16],
                             struct xts_units *a, size_t nblocks, unsigned dir) {
  struct xts_group gr[2];
  unsigned staged = 0; /* whether st held data: what to wipe */
  const size_t ng = (nblocks + 63) / 64;
  group_layout(a, &gr[0], nblocks < 64 ? nblocks : 64);
  for (size_t k = 0; k < ng; k++) {
    struct xts_group *g = &gr[k & 1];
    if (k + 1 < ng) {
      const size_t left = nblocks - 64 * (k + 1);
      group_layout(a, &gr[(k + 1) & 1], left < 64 ? left : 64);
    }
    __m512i x[16];
    staged |= g->staged;
    load_slices(c, x, NULL, g->ip, (const __m512i *)(const void *)g->tb);
    rounds(c, kb, x, dir);
    store_slices(c, x, NULL, g->op, NULL, (const __m512i *)(const void *)g->tb);
    for (unsigned q = 0; q < 16; q++) /* usually none */
      if (g->staged >> q & 1)
        for (unsigned p = 4 * q; p < 4 * q + 4; p++)
          if (g->bo[p]) memcpy(g->bo[p], g->st + 16 * p, 16);
  }
  for (unsigned i = 0; i < 2 && i < ng; i++) {
    gostx_memzero(gr[i].tb, sizeof gr[i].tb);
    if (staged) gostx_memzero(gr[i].st, sizeof gr[i].st);
  }
}

GOSTX_TARGET_AVX512 static void run_xts_units_enc(const struct sliced_consts *c,
                                                  const uint32_t kb[10][16],
                                                  struct xts_units *a, size_t nblocks) {
  run_xts_units(c, kb, a, nblocks, 0);
}

GOSTX_TARGET_AVX512 static void run_xts_units_dec(const struct sliced_consts *c,
                                                  const uint32_t kb[10][16],
                                                  struct xts_units *a, size_t nblocks) {
  run_xts_units(c, kb, a, nblocks, 1);
}

/* kb from the key: see rounds(). */
GOSTX_TARGET_AVX512 static void key_slices(uint32_t kb[10][16], const gostx_kuz_key *k,
                                           int decrypt) {
  for (unsigned r = 0; r < 10; r++) {
    const uint8_t *src = decrypt || r == 0 ? k->ek[r] : k->dk[r];
    /* each key byte broadcast to the four bytes of its lane (plain C: SIMDe,
     * which the emulated build uses, has no _mm512_cvtepu8_epi32) */
    for (unsigned j = 0; j < 16; j++) kb[r][j] = (uint32_t)src[j] * 0x01010101u;
  }
}

GOSTX_TARGET_AVX512 void gostx__kuz_avx512_sliced(const gostx_kuz_key *k, const uint8_t *in,
                                                  uint8_t *out, size_t ngroups, int decrypt) {
  pthread_once(&sc_once, sc_init);
  _Alignas(64) uint32_t kb[10][16];
  key_slices(kb, k, decrypt);
  if (decrypt) run_dec(consts(), kb, in, out, ngroups);
  else run_enc(consts(), kb, in, out, ngroups);
  gostx_memzero(kb, sizeof kb);
}

GOSTX_TARGET_AVX512 void gostx__kuz_avx512_sliced_ctr(const gostx_kuz_key *k, uint8_t ctr[16],
                                                      unsigned inc, const uint8_t *in,
                                                      uint8_t *out, size_t ngroups) {
  pthread_once(&sc_once, sc_init);
  _Alignas(64) uint32_t kb[10][16];
  key_slices(kb, k, 0);
  run_ctr(consts(), kb, ctr, inc, in, out, ngroups);
  gostx_memzero(kb, sizeof kb);
}

GOSTX_TARGET_AVX512 void gostx__kuz_avx512_sliced_ctr_runs(const gostx_kuz_key *k,
                                                           const struct gostx__ctr_run *runs,
                                                           uint8_t *out, size_t nblocks) {
  struct ctr_stream s = {runs, 0, 0};
  pthread_once(&sc_once, sc_init);
  _Alignas(64) uint32_t kb[10][16];
  key_slices(kb, k, 0);
  run_ctr_runs(consts(), kb, &s, out, nblocks);
  gostx_memzero(kb, sizeof kb);
}

GOSTX_TARGET_AVX512 void gostx__kuz_avx512_sliced_xts_units(
    const gostx_kuz_key *k, uint8_t *t, const size_t *idx, const uint8_t *in, uint8_t *out,
    size_t stride, size_t nb, size_t nblocks, int decrypt) {
  struct xts_units a = {t, idx, in, out, stride, nb, 0, 0};
  pthread_once(&sc_once, sc_init);
  _Alignas(64) uint32_t kb[10][16];
  key_slices(kb, k, decrypt);
  if (decrypt) run_xts_units_dec(consts(), kb, &a, nblocks);
  else run_xts_units_enc(consts(), kb, &a, nblocks);
  gostx_memzero(kb, sizeof kb);
}

#endif
