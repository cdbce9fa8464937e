/* Walking the dispatcher's rows in the differential tests (rows.h). */
#include "rows.h"

#include <stdlib.h>

#include "testutil.h"
#include "dispatch.h"

/* Which rows were checked, per primitive (enum gostx_alg is small). */
static const void *seen[GOSTX_ALG_END][T_MAX_ROWS];
static size_t nseen[GOSTX_ALG_END];

size_t t_rows(int alg, const void *except, struct t_row out[T_MAX_ROWS]) {
  size_t n = 0;
  struct gostx__row_info info;
  const void *impl;
  for (size_t i = 0; (impl = gostx__impl_row_info(alg, i, &info)) != NULL; i++) {
    if (impl == except) continue;
    if (!info.usable) {
      printf("%s %s (level %s): not on this CPU, skipped\n", gostx_alg_name((gostx_alg)alg), info.name,
             info.level);
      continue;
    }
    if (n == T_MAX_ROWS) {
      fprintf(stderr, "tests/support/rows.h: more than %d rows: raise T_MAX_ROWS\n", T_MAX_ROWS);
      exit(1);
    }
    printf("%s %s (level %s): checked\n", gostx_alg_name((gostx_alg)alg), info.name, info.level);
    out[n++] = (struct t_row){impl, info};
  }
  return n;
}

void t_row_checked(int alg, const void *impl) {
  if (alg <= 0 || alg >= GOSTX_ALG_END) return;
  for (size_t i = 0; i < nseen[alg]; i++)
    if (seen[alg][i] == impl) return;
  if (nseen[alg] < T_MAX_ROWS) seen[alg][nseen[alg]++] = impl;
}

void t_rows_all_checked(int alg, const void *except) {
  struct gostx__row_info info;
  const void *impl;
  size_t rows = 0;
  for (size_t i = 0; (impl = gostx__impl_row_info(alg, i, &info)) != NULL; i++) {
    rows++;
    if (impl == except || !info.usable) continue;
    int found = 0;
    for (size_t j = 0; j < nseen[alg]; j++) found |= seen[alg][j] == impl;
    CHECK(found, "%s row %s (level %s) runs here but was not compared with the reference",
          gostx_alg_name((gostx_alg)alg), info.name, info.level);
  }
  CHECK(rows > 0, "%s has dispatcher rows", gostx_alg_name((gostx_alg)alg));
}
