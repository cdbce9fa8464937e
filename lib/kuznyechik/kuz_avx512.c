/* Kuznyechik on AVX-512 (F/BW/VL + VBMI + GFNI), constant time: no
 * secret-dependent branch or address; the only memory reads are of public
 * tables at fixed addresses. docs/KUZNYECHIK.md ("AVX-512") has the
 * derivation and the operation counts.
 *
 * Layout: one block per 128-bit lane, byte j of the block in byte j of the
 * lane (byte 0 = a_15), so a zmm holds four blocks and an xmm one.
 *
 * Field: GFNI's gf2p8mulb multiplies modulo the AES polynomial 0x11B, while
 * Kuznyechik's field is modulo 0x1C3. The state lives in the image of the
 * isomorphism phi: GF(2^8)/0x1C3 -> GF(2^8)/0x11B (scripts/gen_kuz_phi.py),
 * applied to every byte by gf2p8affineqb:
 *   - entering: phi(p ^ K1) (encryption) or phi(c) (decryption), one affine;
 *   - round keys phi(K_i) (or phi(L^-1(K_i)) = phi(k->dk[i])), ten affines
 *     per call;
 *   - S: the 256-byte table phi o pi o phi^-1 (or phi o pi^-1 o phi^-1) in
 *     four zmm, looked up by two vpermi2b (128 entries each) and a blend on
 *     each index's top bit;
 *   - L: since phi is a ring isomorphism, phi(L x) = M' phi(x) with
 *     M'[j][i] = phi(M[j][i]), computed by gf2p8mulb against per-byte
 *     constant vectors (below);
 *   - leaving: one affine by phi^-1.
 *
 * L as diagonals, rotations shared: with rot_s(v)[j] = v[(j + s) mod 16]
 * (vpshufb within each lane), L(y)[j] = sum_d M[j][j + d] y[j + d]. Writing
 * d = a + b with a in {0, 5, 10, 15}, b in {0..4} (b = 0 only for a = 15):
 *   L(y) = sum_a rot_a( sum_b C_{a,b} * rot_b(y) ),
 *   C_{a,b}[i] = M[i - a][i + b]   (indices mod 16, values through phi),
 * so 4 rotations of y, 16 products, 3 rotations of group sums; the XORs are
 * 3-way vpternlogq with the next round key folded in (17 terms, 8 ops).
 * Per round and zmm (4 blocks): 16 gf2p8mulb + 1 vpmovb2m (GFNI/p0 side),
 * 7 vpshufb + 2 vpermi2b (shuffle side), 8 vpternlogq + 1 vpblendmb.
 *
 * Calls: 16 blocks per loop pass (four independent zmm chains); a tail of
 * 2..15 blocks goes through a stack buffer in 1..4 zmm; a single block (CBC
 * encryption, OMAC: latency-bound) through an xmm path whose S-box lookups
 * still use the zmm forms of vpermi2b (the 128-bit form has 32-entry tables). */
#include "impl.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE
#include <pthread.h>

#include "kuz_tables.h"
#include "kuz_xts_avx512.h"

#define AVX512_INLINE static inline __attribute__((always_inline)) GOSTX_TARGET_AVX512

/* gf2p8affineqb matrices of phi and phi^-1 (scripts/gen_kuz_phi.py: phi(t) = 0x30,
 * the smallest root of t^8 + t^7 + t^6 + t + 1 in the AES field). */
#define KUZ_PHI 0x5d0ce430cee6bcd0ULL
#define KUZ_PHI_INV 0xc9248c8eb6be7c4aULL

/* Rotation amounts: rot_b(y) for b = 1..4, then the group offsets 5, 10, 15. */
static const unsigned rot_amount[7] = {1, 2, 3, 4, 5, 10, 15};

/* Public constants, built once from kuz_tables.h.
 * sbox[dir]: phi o pi o phi^-1 (dir 0) and phi o pi^-1 o phi^-1 (dir 1).
 * mul[dir][5g + b]: C_{5g,b} for g = 0..2, b = 0..4; mul[dir][15]: C_{15,0};
 *   each 16-byte vector repeated in the four lanes.
 * rot[r]: vpshufb indices of rot_{rot_amount[r]}, every lane. */
struct avx512_consts {
  _Alignas(64) uint8_t sbox[2][256];
  _Alignas(64) uint8_t mul[2][16][64];
  _Alignas(64) uint8_t rot[7][64];
  _Alignas(64) uint8_t shl2[64]; /* vpshufb: each lane's bytes up by two, zeros in */
  _Alignas(16) uint8_t cphi[32][16]; /* phi of the key schedule's C_1..C_32 */
};
static struct avx512_consts kc;
static pthread_once_t kc_once = PTHREAD_ONCE_INIT;

/* gf2p8affineqb on one byte, as Intel defines it: output bit i is the parity
 * of (byte 7 - i of the matrix) AND x. The tables are built with the same
 * matrices the instructions use, so a wrong matrix cannot hide. */
static uint8_t affine_byte(uint64_t m, uint8_t x) {
  unsigned r = 0;
  for (unsigned i = 0; i < 8; i++) {
    unsigned v = (unsigned)(m >> (8 * (7 - i))) & x, p = 0;
    for (; v; v >>= 1) p ^= v & 1; /* public table data only */
    r |= p << i;
  }
  return (uint8_t)r;
}

static void kc_init(void) {
  const uint8_t *pis[2] = {gostx__kuz_pi, gostx__kuz_pi_inv};
  const uint8_t(*mats[2])[16] = {gostx__kuz_lmatrix_fwd, gostx__kuz_lmatrix_inv};
  for (unsigned dir = 0; dir < 2; dir++) {
    for (unsigned v = 0; v < 256; v++)
      kc.sbox[dir][v] = affine_byte(KUZ_PHI, pis[dir][affine_byte(KUZ_PHI_INV, (uint8_t)v)]);
    for (unsigned t = 0; t < 16; t++) {
      unsigned a = t < 15 ? 5 * (t / 5) : 15, b = t < 15 ? t % 5 : 0;
      for (unsigned i = 0; i < 64; i++) {
        unsigned j = i & 15;
        kc.mul[dir][t][i] = affine_byte(KUZ_PHI, mats[dir][(j + 16 - a) & 15][(j + b) & 15]);
      }
    }
  }
  for (unsigned r = 0; r < 7; r++)
    for (unsigned i = 0; i < 64; i++) kc.rot[r][i] = (uint8_t)(((i & 15) + rot_amount[r]) & 15);
  for (unsigned i = 0; i < 64; i++) kc.shl2[i] = (uint8_t)((i & 15) < 2 ? 0x80 : (i & 15) - 2);
  for (unsigned i = 0; i < 32; i++)
    for (unsigned j = 0; j < 16; j++) kc.cphi[i][j] = affine_byte(KUZ_PHI, gostx__kuz_c[i][j]);
}

/* &kc, opaque to the optimizer so that the constants stay memory operands
 * (free on the load ports) instead of being hoisted and spilled. */
AVX512_INLINE const struct avx512_consts *consts(void) {
  const struct avx512_consts *c = &kc;
  __asm__("" : "+r"(c));
  return c;
}

#define LDZ(p) _mm512_load_si512((const void *)(p))
#define LDX(p) _mm_load_si128((const __m128i *)(const void *)(p))
#define LDU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define XOR3Z(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)
#define XOR3X(a, b, c) _mm_ternarylogic_epi64((a), (b), (c), 0x96)

/* ---------------- zmm: four blocks per register ---------------- */

/* S' on every byte: two 128-entry vpermi2b and a blend on bit 7 of x. */
AVX512_INLINE __m512i sbox_z(const struct avx512_consts *c, unsigned dir, __m512i x) {
  const uint8_t *t = c->sbox[dir];
  __m512i lo = _mm512_permutex2var_epi8(LDZ(t), x, LDZ(t + 64));
  __m512i hi = _mm512_permutex2var_epi8(LDZ(t + 128), x, LDZ(t + 192));
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
}

/* L'(y) ^ key: 7 vpshufb, 16 gf2p8mulb, 8 vpternlogq. */
AVX512_INLINE __m512i lin_z(const struct avx512_consts *c, unsigned dir, __m512i y, __m512i key) {
  const uint8_t(*m)[64] = c->mul[dir];
#define MZ(v, i) _mm512_gf2p8mul_epi8((v), LDZ(m[i]))
#define RZ(v, r) _mm512_shuffle_epi8((v), LDZ(c->rot[r]))
  const __m512i y1 = RZ(y, 0), y2 = RZ(y, 1), y3 = RZ(y, 2), y4 = RZ(y, 3);
  __m512i g5 = XOR3Z(MZ(y, 5), MZ(y1, 6), MZ(y2, 7));
  __m512i g10 = XOR3Z(MZ(y, 10), MZ(y1, 11), MZ(y2, 12));
  g5 = XOR3Z(g5, MZ(y3, 8), MZ(y4, 9));
  g10 = XOR3Z(g10, MZ(y3, 13), MZ(y4, 14));
  __m512i s = XOR3Z(MZ(y, 0), MZ(y1, 1), MZ(y2, 2));
  s = XOR3Z(s, MZ(y3, 3), MZ(y4, 4));
  s = XOR3Z(s, key, RZ(MZ(y, 15), 6));
  return XOR3Z(s, RZ(g5, 4), RZ(g10, 5));
#undef MZ
#undef RZ
}

AVX512_INLINE __m512i affine_z(__m512i x, uint64_t m) {
  return _mm512_gf2p8affine_epi64_epi8(x, _mm512_set1_epi64((long long)m), 0);
}

/* nz (1..4, a constant after inlining) registers of four blocks each.
 * Round key r of register i is K(r, i) = rk[r * rs + i * is]: K(0, i) = K1
 * as is, K(1..9, i) = phi of K2..K10 (encryption) or of L^-1(K2)..L^-1(K10)
 * (decryption). One key: the ten broadcast to the four lanes, rs = 1,
 * is = 0. A key per block (the multi-key path): each register's four lanes'
 * keys, read from the schedule (rs, is constants after inlining). */
#define KZ(r, i) rk[(r) * rs + (i) * is]
/* tw (XTS, NULL otherwise: a constant after inlining): XORed in with K1 on
 * the way in (encryption) or out (decryption), one vpternlogq either way. */
AVX512_INLINE void crypt_z(const __m512i *rk, size_t rs, size_t is, __m512i *x, unsigned nz,
                           unsigned dir, const __m512i *tw) {
  const struct avx512_consts *c = consts();
  if (dir == 0) {
    for (unsigned i = 0; i < nz; i++)
      x[i] = affine_z(tw ? XOR3Z(x[i], tw[i], KZ(0, i)) : _mm512_xor_si512(x[i], KZ(0, i)), KUZ_PHI);
    for (unsigned r = 1; r < 10; r++) {
      for (unsigned i = 0; i < nz; i++) x[i] = lin_z(c, 0, sbox_z(c, 0, x[i]), KZ(r, i));
      if (r == 5) GOSTX_CT_PLANT(GOSTX_PLANT_KUZNYECHIK, x, 64 * nz);
    }
    for (unsigned i = 0; i < nz; i++) x[i] = affine_z(x[i], KUZ_PHI_INV);
  } else {
    for (unsigned i = 0; i < nz; i++) x[i] = lin_z(c, 1, affine_z(x[i], KUZ_PHI), KZ(9, i));
    for (unsigned r = 9; --r > 0;)
      for (unsigned i = 0; i < nz; i++) x[i] = lin_z(c, 1, sbox_z(c, 1, x[i]), KZ(r, i));
    for (unsigned i = 0; i < nz; i++) {
      const __m512i y = affine_z(sbox_z(c, 1, x[i]), KUZ_PHI_INV);
      x[i] = tw ? XOR3Z(y, KZ(0, i), tw[i]) : _mm512_xor_si512(y, KZ(0, i));
    }
  }
}
#undef KZ

/* 64 * nz bytes from in to out. */
AVX512_INLINE void run_z(const __m512i *rk, size_t rs, size_t is, const uint8_t *in,
                         uint8_t *out, unsigned nz, unsigned dir) {
  __m512i x[4];
  for (unsigned i = 0; i < nz; i++) x[i] = _mm512_loadu_si512((const void *)(in + 64 * i));
  crypt_z(rk, rs, is, x, nz, dir, NULL);
  for (unsigned i = 0; i < nz; i++) _mm512_storeu_si512((void *)(out + 64 * i), x[i]);
}

/* ---------------- xmm: one block, for latency ---------------- */

AVX512_INLINE __m128i sbox_x(const struct avx512_consts *c, unsigned dir, __m128i x) {
  const uint8_t *t = c->sbox[dir];
  const __m512i xz = _mm512_castsi128_si512(x); /* upper lanes: don't care */
  __m128i lo = _mm512_castsi512_si128(_mm512_permutex2var_epi8(LDZ(t), xz, LDZ(t + 64)));
  __m128i hi = _mm512_castsi512_si128(_mm512_permutex2var_epi8(LDZ(t + 128), xz, LDZ(t + 192)));
  return _mm_mask_blend_epi8(_mm_movepi8_mask(x), lo, hi);
}

AVX512_INLINE __m128i lin_x(const struct avx512_consts *c, unsigned dir, __m128i y, __m128i key) {
  const uint8_t(*m)[64] = c->mul[dir];
#define MX(v, i) _mm_gf2p8mul_epi8((v), LDX(m[i]))
#define RX(v, r) _mm_shuffle_epi8((v), LDX(c->rot[r]))
  const __m128i y1 = RX(y, 0), y2 = RX(y, 1), y3 = RX(y, 2), y4 = RX(y, 3);
  __m128i g5 = XOR3X(MX(y, 5), MX(y1, 6), MX(y2, 7));
  __m128i g10 = XOR3X(MX(y, 10), MX(y1, 11), MX(y2, 12));
  g5 = XOR3X(g5, MX(y3, 8), MX(y4, 9));
  g10 = XOR3X(g10, MX(y3, 13), MX(y4, 14));
  __m128i s = XOR3X(MX(y, 0), MX(y1, 1), MX(y2, 2));
  s = XOR3X(s, MX(y3, 3), MX(y4, 4));
  s = XOR3X(s, key, RX(MX(y, 15), 6));
  return XOR3X(s, RX(g5, 4), RX(g10, 5));
#undef MX
#undef RX
}

AVX512_INLINE __m128i affine_x(__m128i x, uint64_t m) {
  return _mm_gf2p8affine_epi64_epi8(x, _mm_set1_epi64x((long long)m), 0);
}

AVX512_INLINE __m128i crypt_x(const __m128i rk[10], __m128i x, unsigned dir) {
  const struct avx512_consts *c = consts();
  if (dir == 0) {
    x = affine_x(_mm_xor_si128(x, rk[0]), KUZ_PHI);
    for (unsigned r = 1; r < 10; r++) {
      x = lin_x(c, 0, sbox_x(c, 0, x), rk[r]);
      if (r == 5) GOSTX_CT_PLANT(GOSTX_PLANT_KUZNYECHIK_ONE, &x, sizeof x);
    }
    return affine_x(x, KUZ_PHI_INV);
  }
  x = lin_x(c, 1, affine_x(x, KUZ_PHI), rk[9]);
  for (unsigned r = 9; --r > 0;) x = lin_x(c, 1, sbox_x(c, 1, x), rk[r]);
  return _mm_xor_si128(affine_x(sbox_x(c, 1, x), KUZ_PHI_INV), rk[0]);
}

/* ---------------- entry points ---------------- */

/* The round keys the kernels take: K1 as is, then phi of the rest. */
AVX512_INLINE void round_keys_x(__m128i rk[10], const gostx_kuz_key *k, unsigned dir) {
  const uint8_t(*src)[16] = dir ? k->dk : k->ek;
  rk[0] = _mm_loadu_si128((const __m128i *)(const void *)k->ek[0]);
  for (unsigned i = 1; i < 10; i++)
    rk[i] = affine_x(_mm_loadu_si128((const __m128i *)(const void *)src[i]), KUZ_PHI);
}

/* One block: xmm keys and kernel, nothing else. */
GOSTX_TARGET_AVX512 static void one_block(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                                          unsigned dir) {
  __m128i rk[10];
  round_keys_x(rk, k, dir);
  __m128i x = crypt_x(rk, _mm_loadu_si128((const __m128i *)(const void *)in), dir);
  _mm_storeu_si128((__m128i *)(void *)out, x);
  gostx_memzero(rk, sizeof rk);
}

/* Fewer than 16 blocks, more than one: through a zero-padded stack buffer
 * in as few zmm as hold them (the count is public). */
GOSTX_TARGET_AVX512 static void tail_z(const __m512i *rk, size_t rs, size_t is, const uint8_t *in,
                                       uint8_t *out, size_t n, unsigned dir) {
  _Alignas(64) uint8_t buf[256];
  memset(buf, 0, sizeof buf);
  memcpy(buf, in, 16 * n);
  switch ((n + 3) / 4) {
    case 1: run_z(rk, rs, is, buf, buf, 1, dir); break;
    case 2: run_z(rk, rs, is, buf, buf, 2, dir); break;
    case 3: run_z(rk, rs, is, buf, buf, 3, dir); break;
    default: run_z(rk, rs, is, buf, buf, 4, dir); break;
  }
  memcpy(out, buf, 16 * n);
  gostx_memzero(buf, sizeof buf);
}

/* Asks for the round keys a direction reads (a key per unit or lane: with
 * thousands of keys they come from L2 or beyond). */
AVX512_INLINE void key_prefetch(const gostx_kuz_key *k, unsigned dir) {
  const uint8_t *p = (const uint8_t *)(dir ? k->dk : k->ek);
  __builtin_prefetch(p, 0, 3);
  __builtin_prefetch(p + 64, 0, 3);
  __builtin_prefetch(p + 128, 0, 3);
  if (dir) __builtin_prefetch(k->ek, 0, 3); /* K1 */
}

/* The ten round keys of one key in every lane (rk is wiped by the caller). */
AVX512_INLINE void round_keys_z(__m512i rk[10], const gostx_kuz_key *k, unsigned dir) {
  const uint8_t(*src)[16] = dir ? k->dk : k->ek;
  rk[0] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)k->ek[0]));
  for (unsigned i = 1; i < 10; i++)
    rk[i] = _mm512_broadcast_i32x4(
        affine_x(_mm_loadu_si128((const __m128i *)(const void *)src[i]), KUZ_PHI));
}

GOSTX_TARGET_AVX512 static void run(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n,
                                    unsigned dir) {
  pthread_once(&kc_once, kc_init);
  if (n == 1) {
    one_block(k, in, out, dir);
    return;
  }
  if (n == 0) return;
  if (n >= 64) { /* whole groups of 64: the byte-sliced kernel (kuz_avx512_sliced.c) */
    gostx__kuz_avx512_sliced(k, in, out, n / 64, (int)dir);
    in += 16 * (n & ~(size_t)63);
    out += 16 * (n & ~(size_t)63);
    n &= 63;
    if (n == 0) return;
  }
  __m512i rk[10];
  round_keys_z(rk, k, dir);
  for (; n >= 16; n -= 16, in += 256, out += 256) run_z(rk, 1, 0, in, out, 4, dir);
  if (n == 1) {
    __m128i r[10];
    for (unsigned i = 0; i < 10; i++) r[i] = _mm512_castsi512_si128(rk[i]);
    _mm_storeu_si128((__m128i *)(void *)out,
                     crypt_x(r, _mm_loadu_si128((const __m128i *)(const void *)in), dir));
    gostx_memzero(r, sizeof r);
  } else if (n) {
    tail_z(rk, 1, 0, in, out, n, dir);
  }
  gostx_memzero(rk, sizeof rk);
}

GOSTX_TARGET_AVX512 static void kuz_avx512_encrypt(const gostx_kuz_key *k, const uint8_t *in,
                                                   uint8_t *out, size_t n) {
  run(k, in, out, n, 0);
}

GOSTX_TARGET_AVX512 static void kuz_avx512_decrypt(const gostx_kuz_key *k, const uint8_t *in,
                                                   uint8_t *out, size_t n) {
  run(k, in, out, n, 1);
}

/* Counter mode: whole groups of 64 blocks with the counters made in the
 * byte-sliced kernel's registers (no counter buffer, no transposition in,
 * the XOR on the way out); the rest, under 64 blocks, as the generic path
 * does it, through a stack buffer. */
GOSTX_TARGET_AVX512 static void kuz_avx512_ctr(const gostx_kuz_key *k, uint8_t ctr[16],
                                               unsigned inc, const uint8_t *in, uint8_t *out,
                                               size_t n) {
  const size_t g = n / 64, r = n % 64;
  if (g) gostx__kuz_avx512_sliced_ctr(k, ctr, inc, in, out, g);
  if (!r) return;
  _Alignas(64) uint8_t buf[1024];
  in = in ? in + 1024 * g : NULL;
  out += 1024 * g;
  gostx__ctr_fill(buf, ctr, 16, inc, r);
  run(k, buf, buf, r, 0);
  if (in) gostx_xor(out, in, buf, 16 * r);
  else memcpy(out, buf, 16 * r);
  gostx_memzero(buf, 16 * r);
}

/* Counter runs as one stream (MGM's H values and gamma, message after
 * message): the sliced kernel's groups of 64 span runs, and a last group of
 * at least CTR_PAD_MIN blocks runs padded there, fewer through the 16-block
 * passes (Zen 4, ns per block: the sliced CTR ~9.7, the passes ~16.7 in
 * MGM's calls: even at ~37). */
#define CTR_PAD_MIN 40

GOSTX_TARGET_AVX512 static void kuz_avx512_ctr_runs(const gostx_kuz_key *k,
                                                    const struct gostx__ctr_run *runs,
                                                    size_t nruns, uint8_t *out) {
  size_t total = 0;
  for (size_t r = 0; r < nruns; r++) total += runs[r].count;
  const size_t rest = total % 64, shared = rest >= CTR_PAD_MIN ? total : total - rest;
  if (shared) gostx__kuz_avx512_sliced_ctr_runs(k, runs, out, shared);
  if (shared == total) return;
  /* the stream's last blocks, maybe from several runs, through a buffer */
  _Alignas(64) uint8_t buf[1024];
  uint8_t v[16];
  size_t skip = shared, p = 0;
  for (size_t r = 0; r < nruns; r++) {
    if (skip >= runs[r].count) {
      skip -= runs[r].count;
      continue;
    }
    memcpy(v, runs[r].ctr, 16);
    gostx__ctr_add(v, 16, runs[r].inc, skip);
    gostx__ctr_fill(buf + 16 * p, v, 16, runs[r].inc, runs[r].count - skip);
    p += runs[r].count - skip;
    skip = 0;
  }
  run(k, buf, buf, p, 0);
  memcpy(out + 16 * shared, buf, 16 * p);
  gostx_memzero(buf, 16 * p);
  gostx_memzero(v, sizeof v);
}

/* ---------------- key schedule ----------------
 * The 32 Feistel rounds (a1, a0) -> (L(S(a1 ^ C_i)) ^ a0, a1) are encryption
 * rounds, so they run on the one-block xmm kernel, kept in the phi domain from
 * the key to the round keys (phi is linear: phi(a ^ b) = phi(a) ^ phi(b));
 * dk = L^-1(ek) is lin_x with the inverse matrices and a zero key. A chain of
 * 32 rounds, latency-bound, but each round is one GFNI round: what CTR-ACPKM
 * and OMAC-ACPKM pay per section (this row used to borrow AVX2's schedule). */
GOSTX_TARGET_AVX512 static void kuz_avx512_expand(gostx_kuz_key *k, const uint8_t key[32]) {
  pthread_once(&kc_once, kc_init);
  const struct avx512_consts *c = consts();
  __m128i a1 = affine_x(LDU(key), KUZ_PHI), a0 = affine_x(LDU(key + 16), KUZ_PHI), rk[10];
  rk[0] = a1;
  rk[1] = a0;
  for (unsigned i = 0; i < 32; i++) {
    const __m128i t = lin_x(c, 0, sbox_x(c, 0, _mm_xor_si128(a1, LDX(c->cphi[i]))), a0);
    a0 = a1;
    a1 = t;
    if (i % 8 == 7) {
      rk[(i + 1) / 4] = a1;
      rk[(i + 1) / 4 + 1] = a0;
    }
  }
  for (unsigned r = 0; r < 10; r++) {
    _mm_storeu_si128((__m128i *)(void *)k->ek[r], affine_x(rk[r], KUZ_PHI_INV));
    _mm_storeu_si128((__m128i *)(void *)k->dk[r],
                     affine_x(lin_x(c, 1, rk[r], _mm_setzero_si128()), KUZ_PHI_INV));
  }
  gostx_memzero(rk, sizeof rk);
}

/* ---------------- multi-key: block i under key i ----------------
 * The schedule holds, per direction and round, the round keys of the n <=
 * 128 keys side by side (as the kernels take them: K1, then phi of the
 * rest), so that the four lanes' keys of a register are one 64-byte load;
 * slots up to the next multiple of 16 are zero (the padded tail pass). */
#define KUZ_AVX512_MK_MAX 128
struct mk_avx512 {
  _Alignas(64) uint8_t rk[2][10][KUZ_AVX512_MK_MAX][16];
  size_t n;
};

/* Only the directions asked for (XTS tweak keys only ever encrypt); returns
 * the bytes from the start written: the first direction plane, or both. */
GOSTX_TARGET_AVX512 static size_t kuz_avx512_mk_init(void *sched, const gostx_kuz_key *const *keys,
                                                     size_t n, unsigned dirs) {
  struct mk_avx512 *m = sched;
  m->n = n;
  for (unsigned dir = 0; dir < 2; dir++) {
    if (!(dirs & (1u << dir))) continue;
    for (size_t i = 0; i < n; i++) {
      if (i + 4 < n) key_prefetch(keys[i + 4], dir);
      const uint8_t(*src)[16] = dir ? keys[i]->dk : keys[i]->ek;
      _mm_store_si128((__m128i *)(void *)m->rk[dir][0][i],
                      _mm_loadu_si128((const __m128i *)(const void *)keys[i]->ek[0]));
      for (unsigned j = 1; j < 10; j++)
        _mm_store_si128((__m128i *)(void *)m->rk[dir][j][i],
                        affine_x(_mm_loadu_si128((const __m128i *)(const void *)src[j]), KUZ_PHI));
    }
    for (unsigned j = 0; j < 10; j++) memset(m->rk[dir][j][n], 0, 16 * ((0 - n) % 16));
  }
  return dirs & GOSTX__MK_DEC ? sizeof m->rk : sizeof m->rk[0];
}

GOSTX_TARGET_AVX512 static void mk_run(const void *sched, const uint8_t *in, uint8_t *out,
                                       unsigned dir) {
  const struct mk_avx512 *m = sched;
  /* K(r, i) of the pass at block p: rk[dir][r][p + 4 i] as one zmm. */
  enum { RS = KUZ_AVX512_MK_MAX * 16 / 64 };
  size_t n = m->n, p = 0;
  pthread_once(&kc_once, kc_init);
  for (; n - p >= 16; p += 16)
    run_z((const __m512i *)(const void *)m->rk[dir][0][p], RS, 1, in + 16 * p, out + 16 * p, 4, dir);
  if (p < n) tail_z((const __m512i *)(const void *)m->rk[dir][0][p], RS, 1, in + 16 * p, out + 16 * p,
                    n - p, dir);
}

GOSTX_TARGET_AVX512 static void kuz_avx512_mk_encrypt(const void *sched, const uint8_t *in,
                                                      uint8_t *out) {
  mk_run(sched, in, out, 0);
}

GOSTX_TARGET_AVX512 static void kuz_avx512_mk_decrypt(const void *sched, const uint8_t *in,
                                                      uint8_t *out) {
  mk_run(sched, in, out, 1);
}

/* ---------------- XTS: the whitening inside the kernel ----------------
 * Four tweak registers hold the tweaks of the 16 blocks of a pass, T_j in
 * the lane of block j; the next pass's are these times alpha^16, four
 * independent multiplications (no chain through the blocks):
 *   v * alpha^k = (v << k across the 128 bits) ^ (top k bits) * 0x87,
 * the shift as two 64-bit shifts and the low half's carry moved up
 * (vpunpcklqdq with zero), the fold as one carry-less multiply of the high
 * half's top bits by 0x87 (< 2^(k+8), in the low half); kuz_xts_avx512.h.
 * The first pass's tweaks come from T_0 the same way. So the
 * tweak costs ~5 ops per register per pass against the cipher's ~330, and
 * the data is read and written once. */

/* v * alpha^16, the step between passes: the 16-bit shift is a byte move
 * (vpshufb with the constant kc.shl2), the fold as above: 4 ops. */
AVX512_INLINE __m512i tw_mul16(const struct avx512_consts *c, __m512i v) {
  const __m512i fold = _mm512_clmulepi64_epi128(_mm512_srli_epi64(v, 48),
                                                _mm512_set1_epi64(0x87), 0x01);
  return _mm512_xor_si512(_mm512_shuffle_epi8(v, LDZ(c->shl2)), fold);
}

/* One pass of nz registers: out = F(in ^ T) ^ T; encryption folds the
 * first XOR into K1's, decryption the second. */
AVX512_INLINE void xts_z(const __m512i rk[10], const __m512i tw[4], const uint8_t *in,
                         uint8_t *out, unsigned nz, unsigned dir) {
  __m512i x[4];
  for (unsigned i = 0; i < nz; i++) x[i] = _mm512_loadu_si512((const void *)(in + 64 * i));
  if (dir == 1)
    for (unsigned i = 0; i < nz; i++) x[i] = _mm512_xor_si512(x[i], tw[i]);
  crypt_z(rk, 1, 0, x, nz, dir, tw);
  if (dir == 0)
    for (unsigned i = 0; i < nz; i++) x[i] = _mm512_xor_si512(x[i], tw[i]);
  for (unsigned i = 0; i < nz; i++) _mm512_storeu_si512((void *)(out + 64 * i), x[i]);
}

/* One data unit of nb blocks from T_0 at t; t left at T_nb. */
AVX512_INLINE void xts_unit(const __m512i rk[10], uint8_t *t, const uint8_t *in, uint8_t *out,
                            size_t nb, unsigned dir) {
  __m512i tw[4];
  size_t j = 0;
  gostx__kuz_tw_start(tw, t);
  const struct avx512_consts *c = consts();
  for (; nb - j >= 16; j += 16) {
    xts_z(rk, tw, in + 16 * j, out + 16 * j, 4, dir);
    for (unsigned i = 0; i < 4; i++) tw[i] = tw_mul16(c, tw[i]);
  }
  const size_t r = nb - j; /* 0..15 blocks left, their tweaks already in tw */
  if (r) {
    /* Rare (units of a length not a multiple of 256 bytes): the tweaks
     * through memory around tail_z, whose round code is shared, rather than
     * four more inlined copies per direction (under SIMDe they tripled the
     * file's compile time). */
    _Alignas(64) uint8_t buf[256], tb[256];
    for (unsigned i = 0; i < 4; i++) _mm512_store_si512((void *)(tb + 64 * i), tw[i]);
    gostx_xor(buf, in + 16 * j, tb, 16 * r);
    tail_z(rk, 1, 0, buf, buf, r, dir);
    gostx_xor(out + 16 * j, buf, tb, 16 * r);
    gostx_memzero(buf, 16 * r);
    gostx_memzero(tb, sizeof tb);
  }
  /* T_nb: lane r % 4 of register r / 4 (public positions). */
  const __m512i sel = _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                                       _mm512_set1_epi64((long long)(2 * (r % 4))));
  const __m512i v = r < 4 ? tw[0] : r < 8 ? tw[1] : r < 12 ? tw[2] : tw[3];
  _mm_storeu_si128((__m128i *)(void *)t, _mm512_castsi512_si128(_mm512_permutexvar_epi64(sel, v)));
}

/* Units under one key run as one stream of blocks through the sliced
 * kernel's groups of 64 (gostx__kuz_avx512_sliced_xts_units), so short units
 * (512-byte sectors: 32 blocks) share them; a last group of at least
 * XTS_PAD_MIN blocks runs padded to 64 there, as the 16-block passes do
 * fewer at ~0.6x its speed per block (Zen 4, one unit a call, MB/s passes /
 * padded: 40 blocks 850 / 732, 48 922 / 951, 56 897 / 1122). What is left,
 * and units under keys of their own, go unit by unit below. */
#define XTS_PAD_MIN 48

/* How many of the count * nb blocks (in unit order) the shared groups take. */
static size_t xts_shared_blocks(size_t nkeys, size_t nb, size_t count) {
  if (nkeys > 1 || count > SIZE_MAX / 64 / nb) return 0;
  const size_t total = nb * count, rest = total % 64;
  return rest >= XTS_PAD_MIN ? total : total - rest;
}

GOSTX_TARGET_AVX512 static void kuz_avx512_xts(const gostx_kuz_key *const *keys, size_t nkeys,
                                               uint8_t *t, const size_t *idx, const uint8_t *in,
                                               uint8_t *out, size_t stride, size_t nb,
                                               size_t count, int decrypt) {
  __m512i rk[10];
  const gostx_kuz_key *cur = keys[0];
  size_t u = 0;
  pthread_once(&kc_once, kc_init);
  const size_t shared = xts_shared_blocks(nkeys, nb, count);
  if (shared) {
    gostx__kuz_avx512_sliced_xts_units(cur, t, idx, in, out, stride, nb, shared, decrypt);
    u = shared / nb;
    if (u == count) return;
  }
  round_keys_z(rk, cur, decrypt ? 1 : 0);
  if (shared % nb) { /* the rest of the unit the groups stopped in */
    const size_t off = (idx ? idx[u] : u) * stride + 16 * (shared % nb);
    if (decrypt) xts_unit(rk, t + 16 * u, in + off, out + off, nb - shared % nb, 1);
    else xts_unit(rk, t + 16 * u, in + off, out + off, nb - shared % nb, 0);
    u++;
  }
  for (; u < count; u++) {
    const size_t off = (idx ? idx[u] : u) * stride;
    if (nkeys > 1) {
      if (keys[u] != cur) { /* which units share a key is public */
        cur = keys[u];
        round_keys_z(rk, cur, decrypt ? 1 : 0);
      }
      if (u + 1 < count) key_prefetch(keys[u + 1], decrypt ? 1 : 0);
    }
    /* whole groups of 64 blocks: the byte-sliced kernel, tweaks in its registers */
    const size_t g = nb / 64, done = 1024 * g;
    if (g)
      gostx__kuz_avx512_sliced_xts_units(cur, t + 16 * u, NULL, in + off, out + off, 0, nb, 64 * g,
                                         decrypt);
    if (nb == 64 * g) continue;
    if (decrypt) xts_unit(rk, t + 16 * u, in + off + done, out + off + done, nb - 64 * g, 1);
    else xts_unit(rk, t + 16 * u, in + off + done, out + off + done, nb - 64 * g, 0);
  }
  gostx_memzero(rk, sizeof rk);
}

/* batch 0: the batch engine's default group of 64 sectors (four of the
 * 16-block passes per multi-key call). xts_unit 16: one pass. */
const struct gostx_kuz_impl gostx_kuz_avx512 = {"avx512", kuz_avx512_encrypt, kuz_avx512_decrypt,
                                                0, KUZ_AVX512_MK_MAX, sizeof(struct mk_avx512),
                                                kuz_avx512_mk_init, kuz_avx512_mk_encrypt,
                                                kuz_avx512_mk_decrypt, kuz_avx512_ctr,
                                                kuz_avx512_expand,
                                                kuz_avx512_xts, 16, NULL, NULL, 512,
                                                kuz_avx512_ctr_runs};

#endif
