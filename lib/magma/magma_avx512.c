/* Magma / GOST 28147-89, AVX-512 (F + BW + VBMI): the byte-sliced core
 * (sliced_core.h) on 512-bit registers, 64 blocks per group. Two of the
 * core's hooks use what AVX-512 adds (docs/MAGMA.md counts the ops):
 *   carries live in mask registers: a compare writes a mask, the "equal and
 *   carry in" test is one compare under the incoming mask, and the carry is
 *   added as a masked +1, instead of vector compares, AND, OR and SUB;
 *   S-box lookups are VPERMB on the 16-entry table repeated four times:
 *   VPERMB reads only the index's low 6 bits, so the sum byte (low nibble)
 *   and the 16-bit shift right by 4 (high nibble) index it without the AND
 *   with 0x0f that PSHUFB needs, and three-way XORs are one VPTERNLOGD.
 * Every group runs here, a partial last one padded (until 0.2 a rest of up
 * to 32 blocks went to the AVX2 file: a cross-ISA call outside the
 * dispatcher, with a CPU check of its own). */
#include "magma/impl.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE

#define TARGET GOSTX_TARGET_AVX512
#define FN(name) avx512_##name
#include "magma/sliced_zmm.h"
/* VPERMB indexes 64 bytes by the low 6 bits; the table repeats every 16. */
#define SB_LO(s, m0f) (s)
#define SB_HI(s, m0f) _mm512_srli_epi16((s), 4)
#define SB_LOOKUP(table, idx) _mm512_permutexvar_epi8((idx), (table))

/* ---- Few blocks: the vector round (below) with a block per qword ----
 * A byte-sliced group costs the same for 2 blocks as for 64: its round is a
 * carry chain and three lookups deep, and 32 of them make ~1100 TSC ticks
 * whatever the group holds. MGM's short messages are made of such calls
 * (Y1 and Z1, a few H values and gamma blocks, the tag: three dependent
 * calls a message). Here block b sits in qword b of a zmm (its half n1 in
 * the low dword of one register, n2 in another), and the round is the
 * one-block vector round's (vround_g below; the high dwords carry garbage
 * that never reaches the low ones): up to LANES_VECS registers of 8 blocks
 * go through 32 rounds side by side, so a call of up to 32 blocks costs
 * about one block's latency. No secret reaches an address or a branch. */
#define LANES_VECS 8
#define LANES_MAX (8 * LANES_VECS)

struct lanes_consts {
  __m512i tlo, thi, pick, low, jhi, pack, shuf;
};

TARGET static inline __m512i lanes_g(const struct lanes_consts *c, __m512i a, __m512i k) {
  const __m512i x = _mm512_add_epi32(a, k);
  const __m512i idx = _mm512_ternarylogic_epi64(_mm512_multishift_epi64_epi8(c->pick, x), c->low,
                                                c->jhi, 0xea); /* (b & low) | jhi */
#ifdef GOSTX_CT_PLANTS
  uint8_t plant[64];
  _mm512_storeu_si512((void *)plant, idx);
  GOSTX_CT_PLANT(GOSTX_PLANT_MAGMA_LANES, plant, 64);
#endif
  const __m512i s = _mm512_permutex2var_epi8(c->tlo, idx, c->thi);
  return _mm512_rol_epi32(_mm512_multishift_epi64_epi8(c->pack, s), 11);
}

/* nv (1..LANES_VECS, a constant after inlining) registers of blocks, the
 * last with nb - 8 (nv - 1) of them; kw[r]: round r's key word. */
TARGET static inline __attribute__((always_inline)) void lanes_pass(
    const struct lanes_consts *c, const __m512i *kv, const uint8_t kw[32], int nv,
    const uint8_t *in, uint8_t *out, size_t nb) {
  __m512i n1[LANES_VECS], n2[LANES_VECS];
  uint8_t part[64];
  const size_t tail = nb - 8 * (size_t)(nv - 1); /* blocks in the last register, 1..8 */
  for (int v = 0; v < nv; v++) {
    const uint8_t *src = in + 64 * v;
    if (v == nv - 1 && tail < 8) {
      memcpy(part, src, 8 * tail);
      memset(part + 8 * tail, 0, sizeof part - 8 * tail);
      src = part;
    }
    /* qword = a1 << 32 | a0 (the byte convention's shuffle) */
    const __m512i x = _mm512_shuffle_epi8(_mm512_loadu_si512((const void *)src), c->shuf);
    n1[v] = x;                         /* n1 = a0 */
    n2[v] = _mm512_srli_epi64(x, 32); /* n2 = a1 */
  }
  for (int r = 0; r < 32; r += 2) {
    const __m512i k0 = kv[kw[r]], k1 = kv[kw[r + 1]];
    for (int v = 0; v < nv; v++) n2[v] = _mm512_xor_si512(n2[v], lanes_g(c, n1[v], k0));
    for (int v = 0; v < nv; v++) n1[v] = _mm512_xor_si512(n1[v], lanes_g(c, n2[v], k1));
  }
  for (int v = 0; v < nv; v++) {
    /* after 32 rounds a1 = n1, a0 = n2 */
    const __m512i o = _mm512_shuffle_epi8(
        _mm512_mask_blend_epi32(0xaaaa, n2[v], _mm512_slli_epi64(n1[v], 32)), c->shuf);
    if (v == nv - 1 && tail < 8) {
      _mm512_storeu_si512((void *)part, o);
      memcpy(out + 64 * v, part, 8 * tail);
    } else {
      _mm512_storeu_si512((void *)(out + 64 * v), o);
    }
  }
  gostx_memzero(part, sizeof part);
}

/* 1..LANES_MAX blocks (sliced_core.h sends 2 and up: a lone block is
 * faster on the one-block core); decrypt: the round keys in reverse order. */
TARGET static void lanes_blocks(const gostx_magma_key *k, const uint8_t *in, uint8_t *out,
                                size_t n, int decrypt) {
  if (n == 0) return;
  const uint8_t *tab = gostx__magma_sliced_tables()->vround[k->sbox_id];
  struct lanes_consts c;
  c.tlo = _mm512_load_si512((const void *)tab);
  c.thi = _mm512_load_si512((const void *)(tab + 64));
  c.pick = _mm512_set1_epi64(0x1c1814100c080400); /* byte j: bit offset 4 j */
  c.low = _mm512_set1_epi8(0x0f);
  c.jhi = _mm512_set1_epi64(0x7060504030201000); /* byte j: 16 j */
  c.pack = _mm512_set1_epi64(0x34241404);        /* byte k: bit offset 16 k + 4 */
  /* Magma's blocks are big-endian a1 || a0: reverse each qword; GOST
   * 28147-89's little-endian a0 || a1 already is the qword. */
  c.shuf = k->le ? _mm512_set_epi64(0x0f0e0d0c0b0a0908, 0x0706050403020100, 0x0f0e0d0c0b0a0908,
                                    0x0706050403020100, 0x0f0e0d0c0b0a0908, 0x0706050403020100,
                                    0x0f0e0d0c0b0a0908, 0x0706050403020100)
                 : _mm512_set_epi64(0x08090a0b0c0d0e0f, 0x0001020304050607, 0x08090a0b0c0d0e0f,
                                    0x0001020304050607, 0x08090a0b0c0d0e0f, 0x0001020304050607,
                                    0x08090a0b0c0d0e0f, 0x0001020304050607);
  __m512i kv[8];
  uint8_t kw[32];
  for (int i = 0; i < 8; i++) kv[i] = _mm512_set1_epi32((int)k->rk[i]);
  for (unsigned r = 0; r < 32; r++) { /* K1..K8 three times, K8..K1; decryption reversed */
    const unsigned e = decrypt ? 31 - r : r;
    kw[r] = (uint8_t)(e < 24 ? e & 7 : 31 - e);
  }
  switch ((n + 7) / 8) {
    case 1: lanes_pass(&c, kv, kw, 1, in, out, n); break;
    case 2: lanes_pass(&c, kv, kw, 2, in, out, n); break;
    case 3: lanes_pass(&c, kv, kw, 3, in, out, n); break;
    case 4: lanes_pass(&c, kv, kw, 4, in, out, n); break;
    case 5: lanes_pass(&c, kv, kw, 5, in, out, n); break;
    case 6: lanes_pass(&c, kv, kw, 6, in, out, n); break;
    case 7: lanes_pass(&c, kv, kw, 7, in, out, n); break;
    default: lanes_pass(&c, kv, kw, 8, in, out, n); break;
  }
  gostx_memzero(kv, sizeof kv);
}
#define FEW_BLOCKS_MAX LANES_MAX
#define FEW_BLOCKS(k, in, out, n, decrypt) lanes_blocks((k), (in), (out), (n), (decrypt))

#include "magma/sliced_core.h"

const struct gostx_magma_impl gostx_magma_avx512 = {"avx512", avx512_encrypt, avx512_decrypt,
                                                    avx512_mk_init, avx512_mk_blocks, ONE_IMIT16, ONE_CHAIN, 512,
                                                    CTR_FILL};

/* ---- One block on a vector round: the sequential modes ----
 * CBC/CFB encryption, OFB and OMAC run one block at a time, so a round's
 * latency is all that counts. The general-register core (magma_x86_64.c)
 * needs nine ROR-by-CL a round (two uops each on Intel's two shift ports;
 * on AMD ~45 ALU ops, throughput-bound at ~12.5 cycles); this round never
 * leaves one xmm register, and its chain is six instructions deep
 * (docs/MAGMA.md "One block"):
 *   x  = a + k                                           VPADDD
 *   ie = (x & 0x0f0f0f0f) | 16 m in byte m: nibble 2m     VPTERNLOGD
 *   io = ((x >> 4) & 0x0f0f0f0f) | 16 m: nibble 2m+1      VPSRLD, VPTERNLOGD
 *   e  = vpair[ie]: byte m = pi_2m(n) << 3               VPERMI2B ymm (64 entries)
 *   o  = vpair[64 + io]: byte m = pi_2m+1(n)              VPERMI2B ymm
 *   y ^= (e <<< 8) ^ (o <<< 15)                           VPROLD x2, VPTERNLOGD
 * The rotations put pi_i's output at bits 4i + 11 mod 32, which is
 * t(x) <<< 11: byte m of e moves to bits 8m + 11, byte m of o to 8m + 15.
 * 1 + 1 + 1 + 3 + 1 + 1 = 8 cycles on Intel (VPERMI2B 3), 10.6 measured on
 * Zen 4 (VPERMI2B ymm 4, VPROLD 2), against 13 / 16 for the previous
 * VPMULTISHIFTQB form. The value sits in dword 0; the other dwords carry
 * harmless garbage (every step is per dword or per byte, and a byte's
 * high bits are masked off before the lookup). No secret reaches an
 * address or a branch. lib/dispatch.c prefers the row on Intel and on AMD
 * family 25 (Zen 4); elsewhere it stays usable by name. */
struct vround_consts {
  __m256i e0, e1, o0, o1;
  __m128i low, tag;
};

/* y ^ g[k](a) */
TARGET static inline __m128i vround_r(const struct vround_consts *c, __m128i y, __m128i a,
                                      __m128i k) {
  const __m128i x = _mm_add_epi32(a, k);
  const __m128i ie = _mm_ternarylogic_epi32(x, c->low, c->tag, 0xea); /* (x & low) | tag */
  const __m128i io = _mm_ternarylogic_epi32(_mm_srli_epi32(x, 4), c->low, c->tag, 0xea);
#ifdef GOSTX_CT_PLANTS
  uint8_t plant[32];
  _mm_storeu_si128((__m128i *)(void *)plant, ie);
  _mm_storeu_si128((__m128i *)(void *)(plant + 16), io);
  memmove(plant + 4, plant + 16, 4);
  GOSTX_CT_PLANT(GOSTX_PLANT_MAGMA_VROUND, plant, 8);
#endif
  const __m128i e =
      _mm256_castsi256_si128(_mm256_permutex2var_epi8(c->e0, _mm256_castsi128_si256(ie), c->e1));
  const __m128i o =
      _mm256_castsi256_si128(_mm256_permutex2var_epi8(c->o0, _mm256_castsi128_si256(io), c->o1));
  return _mm_ternarylogic_epi32(y, _mm_rol_epi32(e, 8), _mm_rol_epi32(o, 15), 0x96); /* xor3 */
}

#define VR(y, kk, x) y = vround_r(&c, (y), (x), (kk))
#define VR_EIGHT_UP(n1, n2)                                                   \
  do {                                                                        \
    VR(n2, kv[0], n1); VR(n1, kv[1], n2); VR(n2, kv[2], n1); VR(n1, kv[3], n2); \
    VR(n2, kv[4], n1); VR(n1, kv[5], n2); VR(n2, kv[6], n1); VR(n1, kv[7], n2); \
  } while (0)
#define VR_EIGHT_DOWN(n1, n2)                                                 \
  do {                                                                        \
    VR(n2, kv[7], n1); VR(n1, kv[6], n2); VR(n2, kv[5], n1); VR(n1, kv[4], n2); \
    VR(n2, kv[3], n1); VR(n1, kv[2], n2); VR(n2, kv[1], n1); VR(n1, kv[0], n2); \
  } while (0)

/* impl.h's `chain` on the vector round. */
TARGET static void vround_chain(const gostx_magma_key *k, int op, uint8_t st[8], const uint8_t *in,
                                uint8_t *out, size_t n) {
  const uint8_t *tab = gostx__magma_sliced_tables()->vpair[k->sbox_id];
  struct vround_consts c;
  c.e0 = _mm256_load_si256((const __m256i *)(const void *)tab);
  c.e1 = _mm256_load_si256((const __m256i *)(const void *)(tab + 32));
  c.o0 = _mm256_load_si256((const __m256i *)(const void *)(tab + 64));
  c.o1 = _mm256_load_si256((const __m256i *)(const void *)(tab + 96));
  c.low = _mm_set1_epi8(0x0f);
  c.tag = _mm_set1_epi32(0x30201000); /* byte m: 16 m, the table of nibble position m */
  __m128i kv[8];
  for (int i = 0; i < 8; i++) kv[i] = _mm_cvtsi32_si128((int)k->rk[i]);
  GOSTX__MAGMA_CHAIN_WORDS(k, op, st, in, out, n, {
    __m128i n1 = _mm_cvtsi32_si128((int)s0), n2 = _mm_cvtsi32_si128((int)s1);
    VR_EIGHT_UP(n1, n2); /* K1..K24, then K8..K1 */
    VR_EIGHT_UP(n1, n2);
    VR_EIGHT_UP(n1, n2);
    VR_EIGHT_DOWN(n1, n2);
    s1 = (uint32_t)_mm_cvtsi128_si32(n1);
    s0 = (uint32_t)_mm_cvtsi128_si32(n2);
  });
  gostx_memzero(kv, sizeof kv);
}

const struct gostx_magma_impl gostx_magma_avx512_vround = {
    "avx512-vround", avx512_encrypt, avx512_decrypt, avx512_mk_init, avx512_mk_blocks, ONE_IMIT16,
    vround_chain, 512, CTR_FILL};

#endif
