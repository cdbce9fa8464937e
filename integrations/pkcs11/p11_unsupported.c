/* The functions of the standard's table this token does not implement
 * (p11.h): each answers CKR_FUNCTION_NOT_SUPPORTED. They are weak, so the
 * one defined in another file replaces its entry at link time, and the
 * function lists (p11_module.c) always have every slot filled. Kept in a
 * file of their own: a weak and a strong definition cannot share one. */
#include "p11.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define P11_UNSUPPORTED(name, args) \
  __attribute__((weak)) CK_RV name args { return CKR_FUNCTION_NOT_SUPPORTED; }
GOSTX_CK_FUNCTIONS_2_40(P11_UNSUPPORTED)
GOSTX_CK_FUNCTIONS_3_0(P11_UNSUPPORTED)
#undef P11_UNSUPPORTED
#pragma GCC diagnostic pop

