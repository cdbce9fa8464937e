/* The AVX-512 instructions the table-free code relies on, against models
 * written here from the Intel SDM's pseudo-code, on random operands:
 * GF2P8AFFINEQB (the matrix's bit order), VPERMI2B (bit 6 of the index picks
 * the table), VPERMB, VPMOVB2M + VPBLENDMB, VPTERNLOGQ 0x96, and the
 * element order of _mm512_set_epi64. On an AVX-512 CPU this checks the
 * hardware; in `make emu` builds it checks SIMDe's C versions, so that the
 * emulated test suite cannot pass through an emulation that shares a
 * misreading of the instructions with lib/streebog/streebog_avx512.c.
 * Exits 77 where the AVX-512 rows cannot run. */
#include "internal.h"
#include "testutil.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE

static int parity8(unsigned x) {
  x ^= x >> 4;
  x ^= x >> 2;
  x ^= x >> 1;
  return (int)(x & 1);
}

/* out[0..5][64]: affine(x, a), permutex2var(a, x, b), permutexvar(x, a),
 * blend(movepi8_mask(x), a, b), ternlog 0x96 (x, a, b), set_epi64(7..0). */
static GOSTX_TARGET_AVX512 void run_ops(uint8_t out[6][64], const uint8_t x[64], const uint8_t a[64],
                                        const uint8_t b[64]) {
  const __m512i vx = _mm512_loadu_si512((const void *)x), va = _mm512_loadu_si512((const void *)a),
                vb = _mm512_loadu_si512((const void *)b);
  _mm512_storeu_si512((void *)out[0], _mm512_gf2p8affine_epi64_epi8(vx, va, 0));
  _mm512_storeu_si512((void *)out[1], _mm512_permutex2var_epi8(va, vx, vb));
  _mm512_storeu_si512((void *)out[2], _mm512_permutexvar_epi8(vx, va));
  _mm512_storeu_si512((void *)out[3], _mm512_mask_blend_epi8(_mm512_movepi8_mask(vx), va, vb));
  _mm512_storeu_si512((void *)out[4], _mm512_ternarylogic_epi64(vx, va, vb, 0x96));
  _mm512_storeu_si512((void *)out[5], _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
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
  int bad[6] = {0};
  for (int it = 0; it < 2000; it++) {
    uint8_t x[64], a[64], b[64], got[6][64];
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
    }
  }
  static const char *const names[6] = {"gf2p8affineqb", "vpermi2b", "vpermb", "vpmovb2m + vpblendmb",
                                       "vpternlogq 0x96", "set_epi64 order"};
  for (int k = 0; k < 6; k++) CHECK(bad[k] == 0, "%s: %d bytes differ from the SDM model", names[k], bad[k]);
  return t_done();
}

#else
int main(void) {
  printf("no AVX-512 code on this target: skipped\n");
  return 77;
}
#endif
