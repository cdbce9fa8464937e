/* The constant-time table scans of the scalar multiplications with AVX2,
 * for the rows at the avx2 level and above (mul_mulx.c, mul_avx512ifma.c):
 * every entry read, each ANDed with a mask from VPCMPEQQ of its index
 * against the wanted one, ORed into accumulators that stay in ymm registers
 * (3 to 8 of them). tests/test_gost3410.c checks the row against the
 * portable one. */
#include "gost3410/ec.h"

#include "arch.h"

#if defined(GOSTX_ARCH_X86_64) && defined(__GNUC__)
#include <immintrin.h>

#define TARGET __attribute__((target("avx2")))

/* limbs a multiple of 4, a constant in each instantiation. */
TARGET static inline void scan_body(uint64_t *r, const uint64_t *tab, int entries, uint64_t idx,
                                    const int limbs) {
  __m256i acc[8], want = _mm256_set1_epi64x((long long)idx), one = _mm256_set1_epi64x(1),
                  at = _mm256_setzero_si256();
  for (int j = 0; j < limbs / 4; j++) acc[j] = _mm256_setzero_si256();
  for (int i = 0; i < entries; i++) {
    __m256i mask = _mm256_cmpeq_epi64(at, want);
    const uint64_t *src = tab + (size_t)i * (size_t)limbs;
    for (int j = 0; j < limbs / 4; j++)
      acc[j] = _mm256_or_si256(
          acc[j], _mm256_and_si256(mask, _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * j))));
    at = _mm256_add_epi64(at, one);
  }
  for (int j = 0; j < limbs / 4; j++) _mm256_storeu_si256((__m256i *)(void *)(r + 4 * j), acc[j]);
}

TARGET void gostx__sc_scan_avx2(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx) {
  /* one instantiation per entry size: the accumulators stay in ymm registers */
  if (limbs == 8)
    scan_body(r, tab, entries, idx, 8);
  else if (limbs == 12)
    scan_body(r, tab, entries, idx, 12);
  else if (limbs == 16)
    scan_body(r, tab, entries, idx, 16);
  else if (limbs == 24)
    scan_body(r, tab, entries, idx, 24);
  else
    scan_body(r, tab, entries, idx, 32);
}
#endif
