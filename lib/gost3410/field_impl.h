/* The GOST R 34.10-2012 implementations lib/dispatch.c chooses between
 * (name first, as every implementation table): the portable products and
 * scans (scalar.c); the MULX/ADX products with the AVX2 scans
 * (select_avx2.c); those plus the curve steps in AVX-512 IFMA lanes
 * (ec_edwards_ifma.c). A curve is loaded on one row per operation
 * (gostx__ec_curve_load): the curve code calls what the row holds and
 * names no ISA. Kernel level: dispatch.c includes this, not ec.h (the
 * curve code sits above the dispatcher). Not installed. */
#ifndef GOSTX_GOST3410_FIELD_IMPL_H
#define GOSTX_GOST3410_FIELD_IMPL_H

#include <stdint.h>

struct gostx_gx_lanes; /* ec.h */

struct gostx_gx_field_impl {
  const char *name;
  int mulx; /* the field's products by field_x86_64.c */
  /* r = entry idx of a table of `entries` entries of `limbs` limbs, every
   * entry read under a mask (constant time in idx). */
  void (*scan)(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx);
  /* The curve steps this row runs in its own lane code, or NULL (ec.h). */
  const struct gostx_gx_lanes *lanes;
};
extern const struct gostx_gx_field_impl gostx_gx_field_portable, gostx_gx_field_mulx,
    gostx_gx_field_ifma;
const struct gostx_gx_field_impl *gostx__gx_field(void);

#endif
