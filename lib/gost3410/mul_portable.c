/* The "portable" GOST R 34.10 row (lib/dispatch.c, every CPU): the scalar
 * multiplications of mul_template.h on field.c's products and scalar.c's
 * portable scan. */
#include "gost3410/field.h"
#include "gost3410/impl.h"

static inline void fe_mul(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  gostx__fe_mul(M, r, a, b);
}
static inline void fe_sqr(const gx_mont *M, uint64_t *r, const uint64_t *a) { gostx__fe_sqr(M, r, a); }
static inline void fe_add(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  gostx__fe_add(M, r, a, b);
}
static inline void fe_sub(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  gostx__fe_sub(M, r, a, b);
}
#define GX_SCAN gostx__sc_scan_portable
#define GX_ROW gostx_gx_portable
#define GX_ROW_NAME "portable"
#include "gost3410/mul_template.h"
