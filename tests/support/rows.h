/* The implementations a differential test checks are the dispatcher's rows
 * (lib/dispatch.c, read through gostx__impl_row_info), never a list of the
 * test's own: a row added to the dispatcher is checked with no change to
 * the tests, on every architecture (the NEON rows under qemu in make cross).
 *
 *   struct t_row rows[T_MAX_ROWS];
 *   size_t n = t_rows(GOSTX_ALG_MAGMA, &gostx_magma_portable, rows);
 *   for (i < n) { check rows[i].impl; t_row_checked(GOSTX_ALG_MAGMA, rows[i].impl); }
 *   t_rows_all_checked(GOSTX_ALG_MAGMA, &gostx_magma_portable);
 */
#ifndef GOSTX_TEST_ROWS_H
#define GOSTX_TEST_ROWS_H

#include <stddef.h>

#include "internal.h"
#include "dispatch.h" /* struct gostx__row_info */

#define T_MAX_ROWS 16

struct t_row {
  const void *impl; /* a const struct gostx_{kuz,magma,streebog,mgm,gx}_impl * */
  struct gostx__row_info info;
};

/* The rows of alg (enum gostx_alg) this CPU runs, best first, without
 * `except` (the reference the test compares with; NULL: none left out).
 * Prints one line per row: checked, or skipped because the CPU lacks it. */
size_t t_rows(int alg, const void *except, struct t_row out[T_MAX_ROWS]);

/* Notes that the test compared impl with the reference. */
void t_row_checked(int alg, const void *impl);

/* Fails the test (CHECK) for every row of alg this CPU runs, other than
 * except, that t_row_checked never saw. */
void t_rows_all_checked(int alg, const void *except);

#endif
