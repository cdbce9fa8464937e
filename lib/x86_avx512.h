/* What every AVX-512 file includes instead of <immintrin.h>.
 *
 * Normal builds: the intrinsics, and GOSTX_TARGET_AVX512 turns on, per
 * function, the ISA extensions the AVX-512 files use (the library itself is
 * built for baseline x86-64; lib/dispatch.c runs these functions only where
 * lib/cpu.c found every one of them).
 *
 * -DGOSTX_EMULATE_AVX512=ON builds (`make emu`): the same source compiled
 * against SIMDe (libsimde-dev), which implements each intrinsic in plain C
 * (the byte permutes and masked byte moves: register-only models of ours,
 * lib/x86_avx512_emu.h), and lib/cpu.c reports the features present. The
 * AVX-512 code then runs, slowly, on any CPU, so the whole test suite and the differential tests
 * check its logic on machines without AVX-512 (docs/QUALITY.md). What the
 * emulation cannot check is the real hardware: instruction timing and
 * compiler code generation for the native target. */
#ifndef GOSTX_X86_AVX512_H
#define GOSTX_X86_AVX512_H

#include "arch.h"

#ifdef GOSTX_ARCH_X86_64
#define GOSTX_HAVE_AVX512_CODE 1

#ifdef GOSTX_EMULATE_AVX512
#include "x86_avx512_emu.h"
#define GOSTX_TARGET_AVX512
#define GOSTX_TARGET_AVX512BW
#define GOSTX_TARGET_AVX512IFMA
#else
#include <immintrin.h>
#define GOSTX_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,gfni,vpclmulqdq,pclmul")))
/* The avx512bw level's files (Skylake-SP, Cascade Lake: no VBMI, no GFNI). */
#define GOSTX_TARGET_AVX512BW __attribute__((target("avx2,avx512f,avx512bw,avx512vl")))
/* GOST R 34.10's Edwards k P on 52-bit limbs (lib/gost3410/ec_edwards_ifma.c). */
#define GOSTX_TARGET_AVX512IFMA __attribute__((target("avx2,avx512f,avx512vl,avx512ifma")))
#endif

#endif
#endif
