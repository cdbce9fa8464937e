/* The GOST R 34.10-2012 field implementations lib/dispatch.c chooses
 * between (name first, as every implementation table): the portable
 * products, the MULX/ADX ones, or those with the Edwards k P on AVX-512
 * IFMA. Kernel level: dispatch.c includes this, not ec.h (the curve code
 * sits above the dispatcher). Not installed. */
#ifndef GOSTX_GOST3410_FIELD_IMPL_H
#define GOSTX_GOST3410_FIELD_IMPL_H

struct gostx_gx_field_impl {
  const char *name;
  int mulx;
  int ifma; /* AVX-512 IFMA lane code (ec_edwards_ifma.c, ec_ifma.c) */
};
extern const struct gostx_gx_field_impl gostx_gx_field_portable, gostx_gx_field_mulx,
    gostx_gx_field_ifma;
const struct gostx_gx_field_impl *gostx__gx_field(void);

#endif
