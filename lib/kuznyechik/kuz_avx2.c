/* Kuznyechik on AVX2, constant time (no secret-dependent branch or address).
 *
 * Two kernels, chosen by the (public) block count; docs/KUZNYECHIK.md has
 * the measurements and the instruction counts behind the choice.
 *
 *   - Wide (>= KUZ_AVX2_WIDE_MIN blocks): the portable core's bitsliced
 *     layout on 256-bit words, 256 blocks per batch (each 64-bit lane is one
 *     portable batch of 64 blocks). S is the generated Boolean circuit
 *     (KUZ_SBOX_*_W from kuz_tables.h), L is R sixteen times where R renames
 *     words and costs ~245 XORs: ~1.9 vector ops per byte per round. A short
 *     last batch is padded with zero lanes that are never stored.
 *   - Narrow (fewer blocks, e.g. CBC encryption and OMAC): one block copied
 *     into both 128-bit halves of a ymm, each half doing half of the work.
 *     S: each half looks up eight of the sixteen 16-byte rows of pi with
 *     vpshufb (row chosen by comparing the high nibble, so every row is read
 *     for every byte), then the halves are XORed. L: the matrix by its 16
 *     diagonals; x * 2^k for k = 0..7 are computed lane-wise, diagonal d is
 *     the sum of masked x * 2^k, rotated by d with vpshufb; half 0 sums the
 *     diagonals 0..7, half 1 the diagonals 8..15. ~210 ops per round.
 *
 * Key schedule, tails and modes stay in portable code; this file is only the
 * block loops. */
#include "impl.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#include <pthread.h>

#include "kuz_tables.h"

#define AVX2 __attribute__((target("avx2")))
#define AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

/* Calls of at least this many blocks take the wide kernel (measured
 * crossover, bench/kuz_speed.c); shorter calls and short tails the narrow. */
#define KUZ_AVX2_WIDE_MIN 56
#define WIDE_BLOCKS 256

/* ---------------- wide: bitsliced, 256 blocks ---------------- */

typedef uint64_t W __attribute__((vector_size(32)));

AVX2 static inline W bcast(uint64_t v) { return (W){v, v, v, v}; }

static inline uint64_t ld64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8); /* x86 is little-endian */
  return v;
}
static inline void st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The portable transposes, lane-wise on four words. */
AVX2 static inline W transpose8_w(W x) {
  W t;
  t = (x ^ (x >> 7)) & bcast(0x00aa00aa00aa00aaULL);
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & bcast(0x0000cccc0000ccccULL);
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & bcast(0x00000000f0f0f0f0ULL);
  x ^= t ^ (t << 28);
  return x;
}

AVX2 static inline void transpose_bytes_w(W w[8]) {
  static const uint64_t mask[3] = {0x00000000ffffffffULL, 0x0000ffff0000ffffULL,
                                   0x00ff00ff00ff00ffULL};
  for (unsigned st = 0; st < 3; st++) {
    unsigned s = 4u >> st, sh = 8 * s;
    for (unsigned i = 0; i < 8; i++) {
      if (i & s) continue;
      W t = ((w[i] >> sh) ^ w[i + s]) & bcast(mask[st]);
      w[i + s] ^= t;
      w[i] ^= t << sh;
    }
  }
}

/* 256 blocks <-> s. Group g = 0..63 is blocks 4g..4g+3 (64 bytes); two
 * loads and two unpacks give the low and the high halves of its blocks in
 * lanes (4g, 4g+2, 4g+1, 4g+3), and bit g of each lane is that block. The
 * transposes are then the portable ones, lane-wise. */
AVX2 static void load_wide(W s[16][8], const uint8_t *in) {
  for (unsigned t = 0; t < 8; t++) {
    W a[8], b[8];
    for (unsigned r = 0; r < 8; r++) {
      const uint8_t *p = in + 64 * (8 * t + r);
      __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
      __m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
      a[r] = (W)_mm256_unpacklo_epi64(x, y);
      b[r] = (W)_mm256_unpackhi_epi64(x, y);
    }
    transpose_bytes_w(a);
    transpose_bytes_w(b);
    for (unsigned j = 0; j < 8; j++) {
      s[j][t] = transpose8_w(a[j]);
      s[j + 8][t] = transpose8_w(b[j]);
    }
  }
  for (unsigned j = 0; j < 16; j++) transpose_bytes_w(s[j]);
}

AVX2 static void store_wide(uint8_t *out, W s[16][8]) {
  for (unsigned j = 0; j < 16; j++) transpose_bytes_w(s[j]);
  for (unsigned t = 0; t < 8; t++) {
    W a[8], b[8];
    for (unsigned j = 0; j < 8; j++) {
      a[j] = transpose8_w(s[j][t]);
      b[j] = transpose8_w(s[j + 8][t]);
    }
    transpose_bytes_w(a);
    transpose_bytes_w(b);
    for (unsigned r = 0; r < 8; r++) {
      uint8_t *p = out + 64 * (8 * t + r);
      __m256i lo = (__m256i)a[r], hi = (__m256i)b[r];
      _mm256_storeu_si256((__m256i *)(void *)p, _mm256_unpacklo_epi64(lo, hi));
      _mm256_storeu_si256((__m256i *)(void *)(p + 32), _mm256_unpackhi_epi64(lo, hi));
    }
  }
}

/* One R step of L (see l_step in kuz_portable.c for the derivation): writes
 * l(x_0..x_15), x_i = s[(head + i) & 15], into slot (head + 15) & 15.
 * t is scratch memory owned by the caller: the 64 partial sums go there and
 * the Horner pass reads them as memory operands, so only its eight
 * accumulators live in registers (the 64-word t in registers spilled badly). */
AVX2 static inline void l_step_w(W s[16][8], W t[8][8], unsigned head) {
  const W *x[16];
  for (unsigned i = 0; i < 16; i++) x[i] = s[(head + i) & 15];
  for (unsigned b = 0; b < 8; b++) {
    W u0 = x[0][b] ^ x[14][b];           /* 148 = bits 7,4,2 */
    W u1 = x[1][b] ^ x[13][b];           /*  32 = bit 5 */
    W u2 = x[2][b] ^ x[12][b];           /* 133 = bits 7,2,0 */
    W u3 = x[3][b] ^ x[11][b];           /*  16 = bit 4 */
    W u4 = x[4][b] ^ x[10][b];           /* 194 = bits 7,6,1 */
    W u5 = x[5][b] ^ x[9][b];            /* 192 = bits 7,6 */
    W u6 = x[6][b] ^ x[8][b] ^ x[15][b]; /*   1 = bit 0 */
    W u7 = x[7][b];                      /* 251 = bits 7,6,5,4,3,1,0 */
    W u02 = u0 ^ u2, u45 = u4 ^ u5 ^ u7;
    t[0][b] = u2 ^ u6 ^ u7;
    t[1][b] = u4 ^ u7;
    t[2][b] = u02;
    /* t_3 = u7 = x_7: read in place below, not copied */
    t[4][b] = u0 ^ u3 ^ u7;
    t[5][b] = u1 ^ u7;
    t[6][b] = u45;
    t[7][b] = u02 ^ u45;
  }
  /* acc = t7; acc = acc * 2 + t_k for k = 6..0 (p(x) = x^8 + x^7 + x^6 + x + 1) */
  W a0 = t[7][0], a1 = t[7][1], a2 = t[7][2], a3 = t[7][3];
  W a4 = t[7][4], a5 = t[7][5], a6 = t[7][6], a7 = t[7][7];
  for (unsigned k = 7; k-- > 0;) {
    const W h = a7, *tk = k == 3 ? x[7] : t[k];
    a7 = a6 ^ h ^ tk[7];
    a6 = a5 ^ h ^ tk[6];
    a5 = a4 ^ tk[5];
    a4 = a3 ^ tk[4];
    a3 = a2 ^ tk[3];
    a2 = a1 ^ tk[2];
    a1 = a0 ^ h ^ tk[1];
    a0 = h ^ tk[0];
  }
  W *dst = s[(head + 15) & 15];
  dst[0] = a0; dst[1] = a1; dst[2] = a2; dst[3] = a3;
  dst[4] = a4; dst[5] = a5; dst[6] = a6; dst[7] = a7;
}

/* Round keys as bit masks: km[r][j][b] is all-ones when bit b of byte j of
 * K_{r+1} is set (mask arithmetic, no branch on the key). Built once per
 * call, then each round's key XOR is a broadcast and an XOR per word. */
typedef uint64_t key_masks[10][16][8];

static void build_key_masks(key_masks km, const gostx_kuz_key *k) {
  for (unsigned r = 0; r < 10; r++)
    for (unsigned j = 0; j < 16; j++)
      for (unsigned b = 0; b < 8; b++) km[r][j][b] = 0 - (uint64_t)((k->ek[r][j] >> b) & 1);
}

AVX2 static inline void xor_key_w(W s[16][8], const uint64_t km[16][8]) {
  for (unsigned j = 0; j < 16; j++)
    for (unsigned b = 0; b < 8; b++) s[j][b] ^= bcast(km[j][b]);
}

AVX2 static void encrypt_wide(W s[16][8], W t[8][8], const key_masks km) {
  for (unsigned r = 0; r < 9; r++) {
    xor_key_w(s, km[r]);
    for (unsigned j = 0; j < 16; j++) KUZ_SBOX_FWD_W(W, s[j]);
    /* unrolled so that every slot address is a constant offset */
#pragma GCC unroll 16
    for (unsigned i = 0; i < 16; i++) l_step_w(s, t, (16 - i) & 15);
  }
  xor_key_w(s, km[9]);
}

AVX2 static void decrypt_wide(W s[16][8], W t[8][8], const key_masks km) {
  xor_key_w(s, km[9]);
  for (unsigned r = 9; r-- > 0;) {
#pragma GCC unroll 16
    for (unsigned i = 1; i <= 16; i++) l_step_w(s, t, i & 15);
    for (unsigned j = 0; j < 16; j++) KUZ_SBOX_INV_W(W, s[j]);
    xor_key_w(s, km[r]);
  }
}

/* ---------------- narrow: one block per ymm ---------------- */

/* Constants of the narrow kernel, built once from kuz_tables.h.
 * sbox[dir][h]: half 0 = row h of pi (or pi^-1), half 1 = row h + 8.
 * hsel[h]: the high nibble each half selects (h, h + 8) in every byte.
 * lmask[dir][d][k]: half 0 for diagonal d, half 1 for diagonal d + 8; byte m
 *   is all-ones when bit k of M[m - d][m] is set (indices mod 16), so that
 *   diagonal d of M x is rot_d(sum_k lmask & x * 2^k).
 * rot[d]: vpshufb indices with byte i = (i + d) mod 16 (half 1: d + 8).
 * mul2k[k][0 / 1][n]: n * 2^k and (16 n) * 2^k in GF(2^8) (both halves), so
 *   x * 2^k is two lookups by nibble, in parallel for all k rather than a
 *   chain of seven doublings. */
struct narrow_consts {
  _Alignas(32) uint8_t mul2k[8][2][32];
  _Alignas(32) uint8_t sbox[2][8][32];
  _Alignas(32) uint8_t hsel[8][32];
  _Alignas(32) uint8_t lmask[2][8][8][32];
  _Alignas(32) uint8_t rot[8][32];
};
static struct narrow_consts nc;
static pthread_once_t nc_once = PTHREAD_ONCE_INIT;

/* GF(2^8) product mod x^8 + x^7 + x^6 + x + 1 (constants only: public data). */
static uint8_t gf_mul(uint8_t a, uint8_t b) {
  unsigned p = 0, x = a;
  for (unsigned i = 0; i < 8; i++) {
    if (b >> i & 1) p ^= x;
    x = ((x << 1) ^ (x & 0x80 ? 0x1c3u : 0)) & 0xff;
  }
  return (uint8_t)p;
}

static void nc_init(void) {
  for (unsigned k = 0; k < 8; k++)
    for (unsigned n = 0; n < 32; n++) {
      nc.mul2k[k][0][n] = gf_mul((uint8_t)(n & 15), (uint8_t)(1u << k));
      nc.mul2k[k][1][n] = gf_mul((uint8_t)((n & 15) << 4), (uint8_t)(1u << k));
    }
  const uint8_t *pis[2] = {gostx__kuz_pi, gostx__kuz_pi_inv};
  const uint8_t(*mats[2])[16] = {gostx__kuz_lmatrix_fwd, gostx__kuz_lmatrix_inv};
  for (unsigned dir = 0; dir < 2; dir++)
    for (unsigned h = 0; h < 8; h++) {
      memcpy(nc.sbox[dir][h], pis[dir] + 16 * h, 16);
      memcpy(nc.sbox[dir][h] + 16, pis[dir] + 16 * (h + 8), 16);
    }
  for (unsigned h = 0; h < 8; h++) {
    memset(nc.hsel[h], (int)h, 16);
    memset(nc.hsel[h] + 16, (int)(h + 8), 16);
  }
  for (unsigned dir = 0; dir < 2; dir++)
    for (unsigned half = 0; half < 2; half++)
      for (unsigned dd = 0; dd < 8; dd++) {
        unsigned d = dd + 8 * half;
        for (unsigned k = 0; k < 8; k++)
          for (unsigned m = 0; m < 16; m++) {
            uint8_t c = mats[dir][(m + 16 - d) & 15][m];
            nc.lmask[dir][dd][k][16 * half + m] = (uint8_t)(0 - ((c >> k) & 1));
          }
        for (unsigned i = 0; i < 16; i++) nc.rot[dd][16 * half + i] = (uint8_t)((i + d) & 15);
      }
}

#define LD(p) _mm256_load_si256((const __m256i *)(const void *)(p))

/* &nc, hidden from the optimizer: without this GCC hoists all ~100 constant
 * loads out of the round loop and spills them to the stack (4 KiB copied per
 * call); with it they stay memory operands, which are free here. */
AVX2_INLINE const struct narrow_consts *consts(void) {
  const struct narrow_consts *c = &nc;
  __asm__("" : "+r"(c));
  return c;
}

/* XOR of the two halves, in both halves. */
AVX2_INLINE __m256i fold(__m256i v) {
  return _mm256_xor_si256(v, _mm256_permute2x128_si256(v, v, 0x01));
}

/* XOR of v[0..n-1] as a balanced tree (short dependency chains). */
#define XOR_TREE8(v) \
  _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256((v)[0], (v)[1]), _mm256_xor_si256((v)[2], (v)[3])), \
                   _mm256_xor_si256(_mm256_xor_si256((v)[4], (v)[5]), _mm256_xor_si256((v)[6], (v)[7])))

/* pi or pi^-1 on every byte (x has the same block in both halves). */
AVX2_INLINE __m256i sbox_n(__m256i x, unsigned dir) {
  const struct narrow_consts *c = consts();
  const __m256i nib = _mm256_set1_epi8(0x0f);
  const __m256i lo = _mm256_and_si256(x, nib);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nib);
  __m256i v[8];
  for (unsigned h = 0; h < 8; h++) {
    __m256i row = _mm256_shuffle_epi8(LD(c->sbox[dir][h]), lo);
    v[h] = _mm256_and_si256(row, _mm256_cmpeq_epi8(hi, LD(c->hsel[h])));
  }
  return fold(XOR_TREE8(v));
}

/* L or L^-1 by diagonals. */
AVX2_INLINE __m256i linear_n(__m256i x, unsigned dir) {
  const struct narrow_consts *c = consts();
  const __m256i nib = _mm256_set1_epi8(0x0f);
  const __m256i lo = _mm256_and_si256(x, nib);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nib);
  __m256i p[8], w[8];
  p[0] = x;
  for (unsigned k = 1; k < 8; k++)
    p[k] = _mm256_xor_si256(_mm256_shuffle_epi8(LD(c->mul2k[k][0]), lo),
                            _mm256_shuffle_epi8(LD(c->mul2k[k][1]), hi));
  for (unsigned d = 0; d < 8; d++) {
    __m256i z[8];
    for (unsigned k = 0; k < 8; k++) z[k] = _mm256_and_si256(p[k], LD(c->lmask[dir][d][k]));
    w[d] = _mm256_shuffle_epi8(XOR_TREE8(z), LD(c->rot[d]));
  }
  return fold(XOR_TREE8(w));
}

AVX2 static inline __m256i key_n(const uint8_t rk[16]) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)rk));
}

AVX2 static inline __m256i block_in(const uint8_t *in) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)in));
}
AVX2 static inline void block_out(uint8_t *out, __m256i x) {
  _mm_storeu_si128((__m128i *)(void *)out, _mm256_castsi256_si128(x));
}

/* Two independent blocks per loop pass so that their dependency chains
 * overlap; a lone block runs the same code with one chain. */
AVX2 static void encrypt_narrow(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  pthread_once(&nc_once, nc_init);
  for (; n >= 2; n -= 2, in += 32, out += 32) {
    __m256i a = block_in(in), b = block_in(in + 16);
    for (unsigned r = 0; r < 9; r++) {
      const __m256i rk = key_n(k->ek[r]);
      a = linear_n(sbox_n(_mm256_xor_si256(a, rk), 0), 0);
      b = linear_n(sbox_n(_mm256_xor_si256(b, rk), 0), 0);
    }
    const __m256i rk = key_n(k->ek[9]);
    block_out(out, _mm256_xor_si256(a, rk));
    block_out(out + 16, _mm256_xor_si256(b, rk));
  }
  if (n) {
    __m256i a = block_in(in);
    for (unsigned r = 0; r < 9; r++) a = linear_n(sbox_n(_mm256_xor_si256(a, key_n(k->ek[r])), 0), 0);
    block_out(out, _mm256_xor_si256(a, key_n(k->ek[9])));
  }
}

AVX2 static void decrypt_narrow(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  pthread_once(&nc_once, nc_init);
  for (; n >= 2; n -= 2, in += 32, out += 32) {
    const __m256i k9 = key_n(k->ek[9]);
    __m256i a = _mm256_xor_si256(block_in(in), k9), b = _mm256_xor_si256(block_in(in + 16), k9);
    for (unsigned r = 9; r-- > 0;) {
      const __m256i rk = key_n(k->ek[r]);
      a = _mm256_xor_si256(sbox_n(linear_n(a, 1), 1), rk);
      b = _mm256_xor_si256(sbox_n(linear_n(b, 1), 1), rk);
    }
    block_out(out, a);
    block_out(out + 16, b);
  }
  if (n) {
    __m256i a = _mm256_xor_si256(block_in(in), key_n(k->ek[9]));
    for (unsigned r = 9; r-- > 0;) a = _mm256_xor_si256(sbox_n(linear_n(a, 1), 1), key_n(k->ek[r]));
    block_out(out, a);
  }
}

/* ---------------- entry points ---------------- */

typedef void (*wide_fn)(W s[16][8], W t[8][8], const key_masks km);
typedef void (*narrow_fn)(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n);

AVX2 static void run(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n, wide_fn wide,
                     narrow_fn narrow) {
  if (n >= KUZ_AVX2_WIDE_MIN) {
    _Alignas(32) W s[16][8], t[8][8];
    _Alignas(32) uint8_t pad[16 * WIDE_BLOCKS];
    key_masks km;
    build_key_masks(km, k);
    for (; n >= WIDE_BLOCKS; n -= WIDE_BLOCKS, in += 16 * WIDE_BLOCKS, out += 16 * WIDE_BLOCKS) {
      load_wide(s, in);
      wide(s, t, km);
      store_wide(out, s);
    }
    if (n >= KUZ_AVX2_WIDE_MIN) { /* a short batch: zero blocks fill it, never stored */
      memcpy(pad, in, 16 * n);
      memset(pad + 16 * n, 0, sizeof pad - 16 * n);
      load_wide(s, pad);
      wide(s, t, km);
      store_wide(pad, s);
      memcpy(out, pad, 16 * n);
      gostx_memzero(pad, sizeof pad);
      n = 0;
    }
    gostx_memzero(s, sizeof s);
    gostx_memzero(t, sizeof t);
    gostx_memzero(km, sizeof km);
  }
  if (n) narrow(k, in, out, n);
}

AVX2 static void kuz_avx2_encrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  run(k, in, out, n, encrypt_wide, encrypt_narrow);
}

AVX2 static void kuz_avx2_decrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  run(k, in, out, n, decrypt_wide, decrypt_narrow);
}

const struct gostx_kuz_impl gostx_kuz_avx2 = {"avx2", kuz_avx2_encrypt, kuz_avx2_decrypt};

#endif
