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

#include "magma/sliced_core.h"

const struct gostx_magma_impl gostx_magma_avx512 = {"avx512", avx512_encrypt, avx512_decrypt,
                                                    avx512_mk_init, avx512_mk_blocks, ONE_IMIT16, ONE_CHAIN, 512};

/* ---- One block on a vector round: the sequential modes on Intel cores ----
 * CBC/CFB encryption, OFB and OMAC run one block at a time, so a round's
 * latency is all that counts. On Intel cores the general-register core
 * (magma_x86_64.c) is held back by its nine ROR-by-CL, two uops each on
 * the two shift ports (~17 TSC ticks a round measured); this round never
 * leaves one xmm register (~12, docs/MAGMA.md "One block"):
 *   x = a + k                                           VPADDD
 *   byte j = bits 4j..4j+7 of x: nibble j low           VPMULTISHIFTQB
 *   index = (byte & 0x0f) | 16 j                        VPTERNLOGQ
 *   bytes = vround[set][index]: S-boxes 2k, 2k+1 at     VPERMI2B (128-byte table)
 *           bits 16k+4..16k+11 of the qword
 *   t(x) = those four 8-bit fields packed               VPMULTISHIFTQB
 *   g = t(x) <<< 11                                     VPROLD
 * The value sits in dword 0; the other lanes carry harmless garbage (a
 * byte's high nibble is masked off, the packing reads qword 0 only). No
 * secret reaches an address or a branch. On AMD cores the same round is
 * slower than the register core (5-cycle 512-bit permutes), so dispatch
 * chooses this table only on Intel (lib/dispatch.c). */
struct vround_consts {
  __m512i tlo, thi;
  __m128i pick, low, jhi, pack;
};

TARGET static inline __m128i vround_g(const struct vround_consts *c, __m128i a, __m128i k) {
  const __m128i x = _mm_add_epi32(a, k);
  const __m128i idx = _mm_ternarylogic_epi64(_mm_multishift_epi64_epi8(c->pick, x), c->low, c->jhi,
                                             0xea); /* (b & low) | jhi */
#ifdef GOSTX_CT_PLANTS
  uint8_t plant[16];
  _mm_storeu_si128((__m128i *)(void *)plant, idx);
  GOSTX_CT_PLANT(GOSTX_PLANT_MAGMA_VROUND, plant, 8);
#endif
  const __m128i s = _mm512_castsi512_si128(_mm512_permutex2var_epi8(c->tlo, _mm512_castsi128_si512(idx), c->thi));
  return _mm_rol_epi32(_mm_multishift_epi64_epi8(c->pack, s), 11);
}

#define VR(y, kk, x) y = _mm_xor_si128((y), vround_g(&c, (x), (kk)))
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
  const uint8_t *tab = gostx__magma_sliced_tables()->vround[k->sbox_id];
  struct vround_consts c;
  c.tlo = _mm512_load_si512((const void *)tab);
  c.thi = _mm512_load_si512((const void *)(tab + 64));
  c.pick = _mm_set_epi64x(0, 0x1c1814100c080400); /* byte j: bit offset 4 j */
  c.low = _mm_set1_epi8(0x0f);
  c.jhi = _mm_set_epi64x(0, 0x7060504030201000); /* byte j: 16 j */
  c.pack = _mm_set_epi64x(0, 0x34241404);        /* byte k: bit offset 16 k + 4 */
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
    vround_chain, 512};

#endif
