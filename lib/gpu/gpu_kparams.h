/* Expands a GOSTX_KERNEL parameter list (T1, p1, T2, p2, ...) of n pairs:
 * GOSTX_KP_DECL -> "T1 p1, T2 p2, ..." (a parameter list),
 * GOSTX_KP_UNPACK -> "T1 p1 = *(T1 *)args[0]; ..." (from cuLaunchKernel's
 * argument array). Shared by kernels.cu and the tests' mock driver. */
#ifndef GOSTX_GPU_KPARAMS_H
#define GOSTX_GPU_KPARAMS_H

#define GOSTX_KP_D3(T1, a1, T2, a2, T3, a3) T1 a1, T2 a2, T3 a3
#define GOSTX_KP_D4(T1, a1, T2, a2, T3, a3, T4, a4) GOSTX_KP_D3(T1, a1, T2, a2, T3, a3), T4 a4
#define GOSTX_KP_D5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) \
  GOSTX_KP_D4(T1, a1, T2, a2, T3, a3, T4, a4), T5 a5
#define GOSTX_KP_D6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6) \
  GOSTX_KP_D5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5), T6 a6
#define GOSTX_KP_D7(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7) \
  GOSTX_KP_D6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6), T7 a7

#define GOSTX_KP_U3(T1, a1, T2, a2, T3, a3) \
  T1 a1 = *(T1 *)args[0]; T2 a2 = *(T2 *)args[1]; T3 a3 = *(T3 *)args[2];
#define GOSTX_KP_U4(T1, a1, T2, a2, T3, a3, T4, a4) \
  GOSTX_KP_U3(T1, a1, T2, a2, T3, a3) T4 a4 = *(T4 *)args[3];
#define GOSTX_KP_D8(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8) \
  GOSTX_KP_D7(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7), T8 a8
#define GOSTX_KP_D9(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8, T9, a9) \
  GOSTX_KP_D8(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8), T9 a9

#define GOSTX_KP_U5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) \
  GOSTX_KP_U4(T1, a1, T2, a2, T3, a3, T4, a4) T5 a5 = *(T5 *)args[4];
#define GOSTX_KP_U6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6) \
  GOSTX_KP_U5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) T6 a6 = *(T6 *)args[5];
#define GOSTX_KP_U7(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7) \
  GOSTX_KP_U6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6) T7 a7 = *(T7 *)args[6];

#define GOSTX_KP_U8(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8) \
  GOSTX_KP_U7(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7) T8 a8 = *(T8 *)args[7];
#define GOSTX_KP_U9(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8, T9, a9) \
  GOSTX_KP_U8(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8) T9 a9 = *(T9 *)args[8];

#define GOSTX_KP_CAT_(a, b) a##b
#define GOSTX_KP_CAT(a, b) GOSTX_KP_CAT_(a, b)
#define GOSTX_KP_APPLY(m, args) m args
#define GOSTX_KP_DECL(n, params) GOSTX_KP_APPLY(GOSTX_KP_CAT(GOSTX_KP_D, n), params)
#define GOSTX_KP_UNPACK(n, params) GOSTX_KP_APPLY(GOSTX_KP_CAT(GOSTX_KP_U, n), params)

#endif
