/* The "avx512ifma" GOST R 34.10 row (lib/dispatch.c, at the avx512 level):
 * the "mulx" row's field and scans, and the curve steps in AVX-512 IFMA
 * lanes where the curve's p = 2^(64 n) - c, c < 2^14 (ec_ifma.c: the
 * Weierstrass addition and doublings for a = -3; ec_edwards_ifma.c: the
 * Edwards sets' k G, k P and a G + b P loops). x86-64 only. */
#include "gost3410/field_mulx.h"
#include "gost3410/impl.h"
#include "x86_avx512.h"

#if defined(GX_FIELD_X86_64) && defined(GOSTX_HAVE_AVX512_CODE)
#define GX_SCAN gostx__sc_scan_avx2
#define GX_LANE_POINT_ADD gostx__ec_point_add_ifma
#define GX_LANE_POINT_DBL_N gostx__ec_point_dbl_n_ifma
#define GX_LANE_JAC_DBL_N gostx__ec_jac_dbl_n_ifma
#define GX_LANE_ED_MUL gostx__ec_ed_mul_ifma
#define GX_LANE_ED_MUL2 gostx__ec_ed_mul2_ifma_vartime
#define GX_LANE_ED_MUL_BASE gostx__ec_ed_mul_base_ifma
#define GX_ROW gostx_gx_avx512ifma
#define GX_ROW_NAME "avx512ifma"
#include "gost3410/mul_template.h"
#endif
