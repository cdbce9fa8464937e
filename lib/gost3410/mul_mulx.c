/* The "mulx" GOST R 34.10 row (lib/dispatch.c, at the avx2 level, so the
 * CPU has AVX2; chosen where it has BMI2 and ADX too): the scalar
 * multiplications of mul_template.h on the MULX/ADX field (field_mulx.h)
 * and the AVX2 table scans (select_avx2.c). x86-64 only. */
#include "gost3410/field_mulx.h"
#include "gost3410/impl.h"

#ifdef GX_FIELD_X86_64
#define GX_SCAN gostx__sc_scan_avx2
#define GX_ROW gostx_gx_mulx
#define GX_ROW_NAME "mulx"
#include "gost3410/mul_template.h"
#endif
