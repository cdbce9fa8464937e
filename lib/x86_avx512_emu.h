/* The AVX-512 intrinsics for -DGOSTX_EMULATE_AVX512=ON builds (`make emu`,
 * the emulated step of scripts/check_ct.sh): SIMDe's C versions, except the
 * ones whose C form indexes an array with, or branches on, an operand.
 *
 * The instructions behind those (VPERMB, VPERMI2B, VPSHUFB, VPBLENDMB and the
 * masked byte moves and adds) work on registers, in a time that does not
 * depend on the data; SIMDe writes them as `r[i] = a[idx[i]]` or
 * `k & bit ? a : b`. Under valgrind such a line is reported as a secret
 * index or branch, and worse, the value it loads from a public table comes
 * back marked public: the secret marking dies at the first S-box and a real
 * leak further on would go unseen. The models below compute the same bytes
 * with byte compares, masks and SSSE3's PSHUFB (a register permute that
 * memcheck follows lane by lane), so the marking flows through them as
 * through the instruction. tests/test_avx512_ops.c checks each one against
 * the Intel SDM's definition, in the emulated build. */
#ifndef GOSTX_X86_AVX512_EMU_H
#define GOSTX_X86_AVX512_EMU_H

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#include <simde/x86/clmul.h>
#include <simde/x86/gfni.h>

simde__m512i gostx_emu_permutexvar_epi8(simde__m512i idx, simde__m512i a);
simde__m512i gostx_emu_permutex2var_epi8(simde__m512i a, simde__m512i idx, simde__m512i b);
simde__m256i gostx_emu_permutex2var_epi8_256(simde__m256i a, simde__m256i idx, simde__m256i b);
simde__m512i gostx_emu_shuffle_epi8(simde__m512i a, simde__m512i idx);
simde__m128i gostx_emu_shuffle_epi8_128(simde__m128i a, simde__m128i idx);
simde__m512i gostx_emu_mask_mov_epi8(simde__m512i src, simde__mmask64 k, simde__m512i a);
simde__m128i gostx_emu_mask_mov_epi8_128(simde__m128i src, simde__mmask16 k, simde__m128i a);

#undef _mm512_permutexvar_epi8
#define _mm512_permutexvar_epi8(idx, a) gostx_emu_permutexvar_epi8((idx), (a))
#undef _mm512_permutex2var_epi8
#define _mm512_permutex2var_epi8(a, idx, b) gostx_emu_permutex2var_epi8((a), (idx), (b))
#undef _mm256_permutex2var_epi8
#define _mm256_permutex2var_epi8(a, idx, b) gostx_emu_permutex2var_epi8_256((a), (idx), (b))
#undef _mm512_shuffle_epi8
#define _mm512_shuffle_epi8(a, idx) gostx_emu_shuffle_epi8((a), (idx))
#undef _mm_shuffle_epi8
#define _mm_shuffle_epi8(a, idx) gostx_emu_shuffle_epi8_128((a), (idx))
#undef _mm512_mask_mov_epi8
#define _mm512_mask_mov_epi8(src, k, a) gostx_emu_mask_mov_epi8((src), (k), (a))
#undef _mm512_mask_blend_epi8
#define _mm512_mask_blend_epi8(k, a, b) gostx_emu_mask_mov_epi8((a), (k), (b))
#undef _mm_mask_blend_epi8
#define _mm_mask_blend_epi8(k, a, b) gostx_emu_mask_mov_epi8_128((a), (k), (b))
#undef _mm512_mask_add_epi8
#define _mm512_mask_add_epi8(src, k, a, b) \
  gostx_emu_mask_mov_epi8((src), (k), simde_mm512_add_epi8((a), (b)))

/* VPMADD52LUQ / VPMADD52HUQ on ymm (AVX512IFMA + VL), which this SIMDe
 * lacks: per lane, acc + the low / high 52 bits of the 104-bit product of
 * the operands' low 52 bits. */
simde__m256i gostx_emu_madd52lo_epu64(simde__m256i acc, simde__m256i a, simde__m256i b);
simde__m256i gostx_emu_madd52hi_epu64(simde__m256i acc, simde__m256i a, simde__m256i b);
#undef _mm256_madd52lo_epu64
#define _mm256_madd52lo_epu64(acc, a, b) gostx_emu_madd52lo_epu64((acc), (a), (b))
#undef _mm256_madd52hi_epu64
#define _mm256_madd52hi_epu64(acc, a, b) gostx_emu_madd52hi_epu64((acc), (a), (b))

/* Nothing to clear in the emulation (SIMDe has no VZEROUPPER). */
#undef _mm256_zeroupper
#define _mm256_zeroupper() ((void)0)

#define __mmask8 simde__mmask8
#define __mmask16 simde__mmask16
#define __mmask32 simde__mmask32
#define __mmask64 simde__mmask64

#endif
