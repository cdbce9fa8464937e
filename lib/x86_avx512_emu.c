/* The register-only models of lib/x86_avx512_emu.h (emulated builds only).
 * Each 512-bit operand is four 16-byte quarters; a byte permute over a
 * table of 64 (or 128) bytes is four (eight) PSHUFBs, one per 16-byte
 * chunk of the table, each kept where the index's chunk number matches. */
#include "arch.h"

#if defined(GOSTX_EMULATE_AVX512) && defined(GOSTX_ARCH_X86_64)
#include <stdint.h>
#include <string.h>

#include "x86_avx512_emu.h"

/* GCC vector types, not the _mm_ names: SIMDe's aliases have taken those. */
typedef uint8_t v16 __attribute__((vector_size(16)));
typedef char v16c __attribute__((vector_size(16)));
#define SSSE3 __attribute__((target("ssse3")))

typedef struct {
  v16 q[4];
} quarters;

static quarters split(simde__m512i v) {
  quarters r;
  memcpy(&r, &v, sizeof r);
  return r;
}

static simde__m512i join(quarters r) {
  simde__m512i v;
  memcpy(&v, &r, sizeof v);
  return v;
}

static v16 from128(simde__m128i v) {
  v16 r;
  memcpy(&r, &v, sizeof r);
  return r;
}

static simde__m128i to128(v16 r) {
  simde__m128i v;
  memcpy(&v, &r, sizeof v);
  return v;
}

/* PSHUFB: r[i] = idx[i] & 0x80 ? 0 : a[idx[i] & 15]. */
SSSE3 static v16 pshufb(v16 a, v16 idx) {
  return (v16)__builtin_ia32_pshufb128((v16c)a, (v16c)idx);
}

/* Table bytes idx & (16 * nchunks - 1) of t (nchunks 16-byte chunks). */
SSSE3 static v16 lookup(const v16 *t, unsigned nchunks, v16 idx) {
  const v16 lo = idx & 15, chunk = (idx >> 4) & (uint8_t)(nchunks - 1);
  v16 r = {0};
  for (unsigned c = 0; c < nchunks; c++) r |= (v16)(chunk == (uint8_t)c) & pshufb(t[c], lo);
  return r;
}

/* VPERMB: r[i] = a[idx[i] & 63]. */
SSSE3 simde__m512i gostx_emu_permutexvar_epi8(simde__m512i idx, simde__m512i a) {
  const quarters t = split(a), x = split(idx);
  quarters r;
  for (int i = 0; i < 4; i++) r.q[i] = lookup(t.q, 4, x.q[i]);
  return join(r);
}

/* VPERMI2B / VPERMT2B: r[i] = (a || b)[idx[i] & 127]. */
SSSE3 simde__m512i gostx_emu_permutex2var_epi8(simde__m512i a, simde__m512i idx, simde__m512i b) {
  const quarters ta = split(a), tb = split(b), x = split(idx);
  v16 t[8];
  for (int i = 0; i < 4; i++) {
    t[i] = ta.q[i];
    t[4 + i] = tb.q[i];
  }
  quarters r;
  for (int i = 0; i < 4; i++) r.q[i] = lookup(t, 8, x.q[i]);
  return join(r);
}

/* VPERMI2B / VPERMT2B on ymm: r[i] = (a || b)[idx[i] & 63], VPERMB's model
 * on the two tables side by side. */
SSSE3 simde__m256i gostx_emu_permutex2var_epi8_256(simde__m256i a, simde__m256i idx,
                                                     simde__m256i b) {
  const simde__m512i t = simde_mm512_inserti64x4(simde_mm512_castsi256_si512(a), b, 1);
  const simde__m512i x = simde_mm512_inserti64x4(simde_mm512_setzero_si512(), idx, 0);
  return simde_mm512_castsi512_si256(gostx_emu_permutexvar_epi8(x, t));
}

/* VPSHUFB on each 16-byte lane. */
SSSE3 simde__m512i gostx_emu_shuffle_epi8(simde__m512i a, simde__m512i idx) {
  const quarters t = split(a), x = split(idx);
  quarters r;
  for (int i = 0; i < 4; i++) r.q[i] = pshufb(t.q[i], x.q[i]);
  return join(r);
}

SSSE3 simde__m128i gostx_emu_shuffle_epi8_128(simde__m128i a, simde__m128i idx) {
  return to128(pshufb(from128(a), from128(idx)));
}

/* Bit i of the low 16 bits of k spread to byte i: 0xff where set. */
SSSE3 static v16 mask_bytes(unsigned k) {
  const v16 bits = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const v16 pick = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
  const v16 two = {(uint8_t)k, (uint8_t)(k >> 8)};
  return (v16)((pshufb(two, pick) & bits) == bits);
}

/* Bytes of a where bit i of k (16 bits) is set, of src elsewhere. */
SSSE3 static v16 blend16(v16 src, unsigned k, v16 a) {
  const v16 m = mask_bytes(k);
  return (m & a) | (~m & src);
}

/* VMOVDQU8 with a merge mask (and VPBLENDMB): r[i] = k bit i ? a[i] : src[i]. */
SSSE3 simde__m512i gostx_emu_mask_mov_epi8(simde__m512i src, simde__mmask64 k, simde__m512i a) {
  const quarters s = split(src), v = split(a);
  quarters r;
  for (int i = 0; i < 4; i++) r.q[i] = blend16(s.q[i], (unsigned)(k >> (16 * i)), v.q[i]);
  return join(r);
}

SSSE3 simde__m128i gostx_emu_mask_mov_epi8_128(simde__m128i src, simde__mmask16 k, simde__m128i a) {
  return to128(blend16(from128(src), k, from128(a)));
}

/* The 104-bit product of two 52-bit numbers from their 26-bit halves (each
 * partial product below 2^53): plain multiplies and shifts, no 128-bit
 * type, which memcheck follows bit by bit. */
static void mul52(uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi) {
  const uint64_t m26 = ((uint64_t)1 << 26) - 1, m52 = ((uint64_t)1 << 52) - 1;
  a &= m52;
  b &= m52;
  const uint64_t a0 = a & m26, a1 = a >> 26, b0 = b & m26, b1 = b >> 26;
  const uint64_t p00 = a0 * b0, p11 = a1 * b1, mid = a0 * b1 + a1 * b0; /* each < 2^53 */
  /* a b = p00 + mid 2^26 + p11 2^52 */
  const uint64_t low = p00 + ((mid & m26) << 26); /* < 2^53 */
  *lo = low & m52;
  *hi = p11 + (mid >> 26) + (low >> 52);
}

/* acc + the low (high = 0) or high 52 bits of each lane's product. */
static simde__m256i madd52(simde__m256i acc, simde__m256i a, simde__m256i b, int high) {
  uint64_t r[4], x[4], y[4], lo, hi;
  memcpy(r, &acc, sizeof r);
  memcpy(x, &a, sizeof x);
  memcpy(y, &b, sizeof y);
  for (int i = 0; i < 4; i++) {
    mul52(x[i], y[i], &lo, &hi);
    r[i] += high ? hi : lo;
  }
  memcpy(&acc, r, sizeof r);
  return acc;
}

simde__m256i gostx_emu_madd52lo_epu64(simde__m256i acc, simde__m256i a, simde__m256i b) {
  return madd52(acc, a, b, 0);
}

simde__m256i gostx_emu_madd52hi_epu64(simde__m256i acc, simde__m256i a, simde__m256i b) {
  return madd52(acc, a, b, 1);
}
#else
typedef int gostx_x86_avx512_emu_unused; /* ISO C: no empty translation unit */
#endif
