/* The one place that names the target architecture. ISA files, the CPU
 * probe and the dispatcher test these macros instead of repeating compiler
 * checks; an architecture without a macro here builds the portable code only.
 *   GOSTX_ARCH_X86_64   x86-64 with GCC or clang (SSSE3/AVX2/AVX-512 files)
 *   GOSTX_ARCH_AARCH64  AArch64 with GCC or clang (NEON/PMULL files)
 *   GOSTX_ARCH_NAME     "x86_64", "aarch64" or "other" (gostx info) */
#ifndef GOSTX_ARCH_H
#define GOSTX_ARCH_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GOSTX_ARCH_X86_64 1
#define GOSTX_ARCH_NAME "x86_64"
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define GOSTX_ARCH_AARCH64 1
#define GOSTX_ARCH_NAME "aarch64"
#else
#define GOSTX_ARCH_NAME "other"
#endif

#endif
