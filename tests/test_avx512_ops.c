/* The AVX-512 instructions the table-free code relies on, against models
 * written here from the Intel SDM's pseudo-code, on random operands:
 * GF2P8AFFINEQB (the matrix's bit order), VPERMI2B (bit 6 of the index picks
 * the table), VPERMB, VPMOVB2M + VPBLENDMB, VPTERNLOGQ 0x96, the element
 * order of _mm512_set_epi64, VPSHUFB (512 and 128 bits), the masked byte
 * add and the 128-bit byte blend. On an AVX-512 CPU this checks the
 * hardware; in `make emu` builds it checks SIMDe's C versions and our
 * register-only models of the byte permutes and masked moves
 * (lib/x86_avx512_emu.h), so that the emulated test suite cannot pass
 * through an emulation that shares a misreading of the instructions with
 * the AVX-512 files.
 * Exits 77 where the AVX-512 rows cannot run. */
#include "internal.h"
#include "dispatch.h"
#include "testutil.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE

static int parity8(unsigned x) {
  x ^= x >> 4;
  x ^= x >> 2;
  x ^= x >> 1;
  return (int)(x & 1);
}

#define NOPS 11

/* out[0..9][64]: affine(x, a), permutex2var(a, x, b), permutexvar(x, a),
 * blend(movepi8_mask(x), a, b), ternlog 0x96 (x, a, b), set_epi64(7..0),
 * shuffle_epi8(a, x), the 128-bit shuffle of the first 16 bytes,
 * mask_add_epi8(b, movepi8_mask(x), a, x), the 128-bit blend, and the
 * 256-bit permutex2var of the first 32 bytes. */
static GOSTX_TARGET_AVX512 void run_ops(uint8_t out[NOPS][64], const uint8_t x[64], const uint8_t a[64],
                                        const uint8_t b[64]) {
  const __m512i vx = _mm512_loadu_si512((const void *)x), va = _mm512_loadu_si512((const void *)a),
                vb = _mm512_loadu_si512((const void *)b);
  _mm512_storeu_si512((void *)out[0], _mm512_gf2p8affine_epi64_epi8(vx, va, 0));
  _mm512_storeu_si512((void *)out[1], _mm512_permutex2var_epi8(va, vx, vb));
  _mm512_storeu_si512((void *)out[2], _mm512_permutexvar_epi8(vx, va));
  _mm512_storeu_si512((void *)out[3], _mm512_mask_blend_epi8(_mm512_movepi8_mask(vx), va, vb));
  _mm512_storeu_si512((void *)out[4], _mm512_ternarylogic_epi64(vx, va, vb, 0x96));
  _mm512_storeu_si512((void *)out[5], _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
  _mm512_storeu_si512((void *)out[6], _mm512_shuffle_epi8(va, vx));
  const __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)x),
                a1 = _mm_loadu_si128((const __m128i *)(const void *)a),
                b1 = _mm_loadu_si128((const __m128i *)(const void *)b);
  memset(out[7], 0, 64);
  _mm_storeu_si128((__m128i *)(void *)out[7], _mm_shuffle_epi8(a1, x1));
  _mm512_storeu_si512((void *)out[8], _mm512_mask_add_epi8(vb, _mm512_movepi8_mask(vx), va, vx));
  memset(out[9], 0, 64);
  _mm_storeu_si128((__m128i *)(void *)out[9], _mm_mask_blend_epi8(_mm_movepi8_mask(x1), a1, b1));
  memset(out[10], 0, 64);
  _mm256_storeu_si256((__m256i *)(void *)out[10],
                      _mm256_permutex2var_epi8(_mm256_loadu_si256((const __m256i *)(const void *)a),
                                               _mm256_loadu_si256((const __m256i *)(const void *)x),
                                               _mm256_loadu_si256((const __m256i *)(const void *)b)));
}

int main(void) {
  if (!gostx__level_supported("avx512")) {
    printf("no AVX-512 here: skipped\n");
    return 77;
  }
  const struct gostx_cpu *f = gostx__cpu();
  if (!(f->avx512vbmi && f->gfni)) {
    printf("no AVX-512 VBMI + GFNI here: skipped\n");
    return 77;
  }
  t_rand_init();
  int bad[NOPS] = {0};
  for (int it = 0; it < 2000; it++) {
    uint8_t x[64], a[64], b[64], got[NOPS][64];
    t_rand_bytes(x, 64);
    t_rand_bytes(a, 64);
    t_rand_bytes(b, 64);
    run_ops(got, x, a, b);
    for (int i = 0; i < 64; i++) {
      /* SDM: result bit k = parity(A.qword[i/8].byte[7 - k] AND x.byte[i]) */
      unsigned r = 0;
      for (int k = 0; k < 8; k++) r |= (unsigned)parity8(a[8 * (i / 8) + 7 - k] & x[i]) << k;
      bad[0] += got[0][i] != r;
      bad[1] += got[1][i] != ((x[i] & 64) ? b : a)[x[i] & 63];
      bad[2] += got[2][i] != a[x[i] & 63];
      bad[3] += got[3][i] != ((x[i] & 128) ? b[i] : a[i]);
      bad[4] += got[4][i] != (uint8_t)(x[i] ^ a[i] ^ b[i]);
      bad[5] += got[5][i] != (i % 8 == 0 ? i / 8 : 0);
      /* VPSHUFB: per 16-byte lane, zero where bit 7 of the index is set. */
      const uint8_t sh = (x[i] & 128) ? 0 : a[16 * (i / 16) + (x[i] & 15)];
      bad[6] += got[6][i] != sh;
      bad[7] += got[7][i] != (i < 16 ? sh : 0);
      bad[8] += got[8][i] != ((x[i] & 128) ? (uint8_t)(a[i] + x[i]) : b[i]);
      bad[9] += got[9][i] != (i < 16 ? ((x[i] & 128) ? b[i] : a[i]) : 0);
      bad[10] += got[10][i] != (i < 32 ? ((x[i] & 32) ? b : a)[x[i] & 31] : 0); /* VPERMI2B ymm */
    }
  }
  static const char *const names[NOPS] = {
      "gf2p8affineqb", "vpermi2b",         "vpermb",           "vpmovb2m + vpblendmb", "vpternlogq 0x96",
      "set_epi64 order", "vpshufb (512)", "vpshufb (128)", "vpaddb with a merge mask", "vpblendmb (128)",
      "vpermi2b (256)"};
  for (int k = 0; k < NOPS; k++) CHECK(bad[k] == 0, "%s: %d bytes differ from the SDM model", names[k], bad[k]);
  return t_done();
}

#else
int main(void) {
  printf("no AVX-512 code on this target: skipped\n");
  return 77;
}
#endif
