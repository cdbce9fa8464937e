/* The implementations a bench program times: the dispatcher's rows this CPU
 * runs (lib/dispatch.c, gostx__impl_row_info), portable (the last row)
 * first, so that no bench keeps a list of ISAs of its own. Header-only: the
 * harness library itself stays free of lib/internal.h. */
#ifndef GOSTX_BENCH_ROWS_H
#define GOSTX_BENCH_ROWS_H

#include "internal.h"
#include "dispatch.h"

/* Fills out with up to max usable rows of alg (enum gostx_alg); returns how many. */
static inline size_t gostx_bench_rows(int alg, const void **out, size_t max) {
  struct gostx__row_info info;
  size_t nrows = 0, n = 0;
  while (gostx__impl_row_info(alg, nrows, &info)) nrows++;
  for (size_t r = nrows; r-- > 0 && n < max;) {
    const void *impl = gostx__impl_row_info(alg, r, &info);
    if (info.usable) out[n++] = impl;
  }
  return n;
}

#endif
