/* The 4-limb x86-64 field bodies (MULX/ADX, GNU inline assembly) as
 * static inline functions: field_mulx.h calls them straight from the MULX
 * rows' point formulas, so a product costs no call, and field_x86_64.c
 * uses them in its products. Not installed. */
#ifndef GOSTX_GOST3410_FIELD_X86_64_H
#define GOSTX_GOST3410_FIELD_X86_64_H

#include <stdint.h>

#include "arch.h"
#include "gost3410/field.h"

#if defined(GOSTX_ARCH_X86_64) && defined(__GNUC__)
#define GX_FIELD_X86_64 1
/* The bodies below are forced inline: in the large units that call them
 * (the MULX rows' template instances) GCC would otherwise keep them out of
 * line, a call per product in the hot formulas. */
#define GX_BODY_INLINE static inline __attribute__((always_inline))

/* The carry chains' last step adds a zero (a memory operand: no register). */
static const uint64_t gx_asm_zero = 0;

/* The eight limb registers of the 4-limb bodies below (outputs written
 * before the inputs are last read: early clobbers), and a's load into t0..t3. */
#define GX_OUT_T8                                                                     \
  [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), \
      [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7)
#define GX_LOAD4_A \
  "movq (%[a]), %[t0]\n\t" \
  "movq 8(%[a]), %[t1]\n\t" \
  "movq 16(%[a]), %[t2]\n\t" \
  "movq 24(%[a]), %[t3]\n\t"

#define GX_STORE_T4(r) ((r)[0] = t0, (r)[1] = t1, (r)[2] = t2, (r)[3] = t3)
#define GX_STORE_T8(r) (GX_STORE_T4(r), (r)[4] = t4, (r)[5] = t5, (r)[6] = t6, (r)[7] = t7)
/* Inputs and clobbers of the additions and subtractions modulo any m. */
#define GX_IN_ABM [a] "r"(a), [b] "r"(b), [m] "r"(M->m) : "rax", "cc", "memory"
#define GX_LOAD8_A \
  GX_LOAD4_A \
  "movq 32(%[a]), %[t4]\n\t" \
  "movq 40(%[a]), %[t5]\n\t" \
  "movq 48(%[a]), %[t6]\n\t" \
  "movq 56(%[a]), %[t7]\n\t"

/* t = a b, four limbs, row by row: each limb of the product in its own
 * register (operands t0..t7, the compiler's choice), so what follows reads no
 * memory. Uses a, b, z (a zero in memory), rax, rcx, rdx. */
#define GX_MUL4_ROWS \
  "movq (%[b]), %%rdx\n\t" \
  "mulxq (%[a]), %[t0], %[t1]\n\t" \
  "mulxq 8(%[a]), %%rax, %[t2]\n\t" \
  "addq %%rax, %[t1]\n\t" \
  "mulxq 16(%[a]), %%rax, %[t3]\n\t" \
  "adcq %%rax, %[t2]\n\t" \
  "mulxq 24(%[a]), %%rax, %[t4]\n\t" \
  "adcq %%rax, %[t3]\n\t" \
  "adcq $0, %[t4]\n\t" \
  "movq 8(%[b]), %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t" \
  "mulxq 0(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t1]\n\t" \
  "adoxq %%rcx, %[t2]\n\t" \
  "mulxq 8(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t2]\n\t" \
  "adoxq %%rcx, %[t3]\n\t" \
  "mulxq 16(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t3]\n\t" \
  "adoxq %%rcx, %[t4]\n\t" \
  "mulxq 24(%[a]), %%rax, %[t5]\n\t" \
  "adcxq %%rax, %[t4]\n\t" \
  "adoxq %[z], %[t5]\n\t" \
  "adcxq %[z], %[t5]\n\t" \
  "movq 16(%[b]), %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t" \
  "mulxq 0(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t2]\n\t" \
  "adoxq %%rcx, %[t3]\n\t" \
  "mulxq 8(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t3]\n\t" \
  "adoxq %%rcx, %[t4]\n\t" \
  "mulxq 16(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t4]\n\t" \
  "adoxq %%rcx, %[t5]\n\t" \
  "mulxq 24(%[a]), %%rax, %[t6]\n\t" \
  "adcxq %%rax, %[t5]\n\t" \
  "adoxq %[z], %[t6]\n\t" \
  "adcxq %[z], %[t6]\n\t" \
  "movq 24(%[b]), %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t" \
  "mulxq 0(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t3]\n\t" \
  "adoxq %%rcx, %[t4]\n\t" \
  "mulxq 8(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t4]\n\t" \
  "adoxq %%rcx, %[t5]\n\t" \
  "mulxq 16(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t5]\n\t" \
  "adoxq %%rcx, %[t6]\n\t" \
  "mulxq 24(%[a]), %%rax, %[t7]\n\t" \
  "adcxq %%rax, %[t6]\n\t" \
  "adoxq %[z], %[t7]\n\t" \
  "adcxq %[z], %[t7]\n\t"

/* t = a b for the Montgomery moduli (field_body.h's redc follows). */
static inline void wide4(uint64_t *t, const uint64_t *a, const uint64_t *b) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
  __asm__(
      GX_MUL4_ROWS
      : GX_OUT_T8
      : [a] "r"(a), [b] "r"(b), [z] "m"(gx_asm_zero)
      : "rax", "rcx", "rdx", "cc", "memory");
  t[0] = t0, t[1] = t1, t[2] = t2, t[3] = t3, t[4] = t4, t[5] = t5, t[6] = t6, t[7] = t7;
}

/* The fold of mul4_pm and sqr4_pm (below). */
#define GX_FOLD4_PM \
  "movq %[c], %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t" \
  "mulxq %[t4], %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t0]\n\t" \
  "adoxq %%rcx, %[t1]\n\t" \
  "mulxq %[t5], %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t1]\n\t" \
  "adoxq %%rcx, %[t2]\n\t" \
  "mulxq %[t6], %%rax, %%rcx\n\t" \
  "adcxq %%rax, %[t2]\n\t" \
  "adoxq %%rcx, %[t3]\n\t" \
  "mulxq %[t7], %%rax, %[t4]\n\t" \
  "adcxq %%rax, %[t3]\n\t" \
  "adoxq %[z], %[t4]\n\t" \
  "adcxq %[z], %[t4]\n\t" \
  "incq %[t4]\n\t" \
  "imulq %%rdx, %[t4]\n\t" \
  "addq %[t4], %[t0]\n\t" \
  "adcq $0, %[t1]\n\t" \
  "adcq $0, %[t2]\n\t" \
  "adcq $0, %[t3]\n\t" \
  "sbbq %%rax, %%rax\n\t" \
  "notq %%rax\n\t" \
  "andq %%rdx, %%rax\n\t" \
  "subq %%rax, %[t0]\n\t" \
  "sbbq $0, %[t1]\n\t" \
  "sbbq $0, %[t2]\n\t" \
  "sbbq $0, %[t3]\n\t"

/* r = a b mod m for m = 2^256 - c (c < 2^16; field_body.h's pm_reduce, in
 * registers): the high half times c folds onto the low half, MULX again with
 * the two carry chains, leaving W = t + top 2^256 with top <= c, so W <
 * 2^256 + c^2 < 2 m. U = t + (top + 1) c carries out of 2^256 exactly when W
 * >= m, and then U mod 2^256 = W - m; otherwise W = U - c (no borrow: U >=
 * c). Two 4-limb chains after the fold, no comparison. */
GX_BODY_INLINE void mul4_pm(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
  __asm__(GX_MUL4_ROWS GX_FOLD4_PM
      : GX_OUT_T8
      : [a] "r"(a), [b] "r"(b), [z] "m"(gx_asm_zero), [c] "m"(M->c)
      : "rax", "rcx", "rdx", "cc", "memory");
  GX_STORE_T4(r);
}

/* r = a^2 mod m for m = 2^256 - c: the six cross products once, doubled,
 * plus the four squares (10 MULX against 16), then mul4_pm's fold. MULX
 * leaves the flags alone, so the squares' carry chain runs through them. */
GX_BODY_INLINE void sqr4_pm(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
  __asm__("movq (%[a]), %%rdx\n\t"
          "mulxq 8(%[a]), %[t1], %[t2]\n\t"
          "mulxq 16(%[a]), %%rax, %[t3]\n\t"
          "addq %%rax, %[t2]\n\t"
          "mulxq 24(%[a]), %%rax, %[t4]\n\t"
          "adcq %%rax, %[t3]\n\t"
          "adcq $0, %[t4]\n\t"
          "movq 8(%[a]), %%rdx\n\t"
          "xorl %%eax, %%eax\n\t"
          "mulxq 16(%[a]), %%rax, %%rcx\n\t"
          "adcxq %%rax, %[t3]\n\t"
          "adoxq %%rcx, %[t4]\n\t"
          "mulxq 24(%[a]), %%rax, %[t5]\n\t"
          "adcxq %%rax, %[t4]\n\t"
          "adoxq %[z], %[t5]\n\t"
          "adcxq %[z], %[t5]\n\t"
          "movq 16(%[a]), %%rdx\n\t"
          "mulxq 24(%[a]), %%rax, %[t6]\n\t"
          "addq %%rax, %[t5]\n\t"
          "adcq $0, %[t6]\n\t"
          "movq $0, %[t7]\n\t" /* doubled: t1..t6 plus each carry */
          "addq %[t1], %[t1]\n\t"
          "adcq %[t2], %[t2]\n\t"
          "adcq %[t3], %[t3]\n\t"
          "adcq %[t4], %[t4]\n\t"
          "adcq %[t5], %[t5]\n\t"
          "adcq %[t6], %[t6]\n\t"
          "adcq $0, %[t7]\n\t"
          "movq (%[a]), %%rdx\n\t" /* plus a_i^2 at limb 2i */
          "mulxq %%rdx, %[t0], %%rax\n\t"
          "addq %%rax, %[t1]\n\t"
          "movq 8(%[a]), %%rdx\n\t"
          "mulxq %%rdx, %%rax, %%rcx\n\t"
          "adcq %%rax, %[t2]\n\t"
          "adcq %%rcx, %[t3]\n\t"
          "movq 16(%[a]), %%rdx\n\t"
          "mulxq %%rdx, %%rax, %%rcx\n\t"
          "adcq %%rax, %[t4]\n\t"
          "adcq %%rcx, %[t5]\n\t"
          "movq 24(%[a]), %%rdx\n\t"
          "mulxq %%rdx, %%rax, %%rcx\n\t"
          "adcq %%rax, %[t6]\n\t"
          "adcq %%rcx, %[t7]\n\t" GX_FOLD4_PM
          : GX_OUT_T8
          : [a] "r"(a), [z] "m"(gx_asm_zero), [c] "m"(M->c)
          : "rax", "rcx", "rdx", "cc", "memory");
  GX_STORE_T4(r);
}

/* r = a + b mod m, four limbs, any modulus (a, b < m): the sum, its
 * carry, the sum less m, and CMOVNC keeps the difference unless it
 * borrowed past the carry. */
GX_BODY_INLINE void add4(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
  __asm__(GX_LOAD4_A
          "xorl %%eax, %%eax\n\t"
          "addq (%[b]), %[t0]\n\t"
          "adcq 8(%[b]), %[t1]\n\t"
          "adcq 16(%[b]), %[t2]\n\t"
          "adcq 24(%[b]), %[t3]\n\t"
          "adcq $0, %%rax\n\t"
          "movq %[t0], %[t4]\n\t"
          "subq (%[m]), %[t4]\n\t"
          "movq %[t1], %[t5]\n\t"
          "sbbq 8(%[m]), %[t5]\n\t"
          "movq %[t2], %[t6]\n\t"
          "sbbq 16(%[m]), %[t6]\n\t"
          "movq %[t3], %[t7]\n\t"
          "sbbq 24(%[m]), %[t7]\n\t"
          "sbbq $0, %%rax\n\t" /* borrows: the sum was below m */
          "cmovncq %[t4], %[t0]\n\t"
          "cmovncq %[t5], %[t1]\n\t"
          "cmovncq %[t6], %[t2]\n\t"
          "cmovncq %[t7], %[t3]\n\t"
          : GX_OUT_T8
          : GX_IN_ABM);
  GX_STORE_T4(r);
}

/* r = a - b mod m, four limbs: the difference, and m added back under the
 * borrow's mask (CMOVNC zeroes the copy of m otherwise). */
GX_BODY_INLINE void sub4(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
  __asm__(GX_LOAD4_A
          "movq (%[m]), %[t4]\n\t"
          "movq 8(%[m]), %[t5]\n\t"
          "movq 16(%[m]), %[t6]\n\t"
          "movq 24(%[m]), %[t7]\n\t"
          "xorl %%eax, %%eax\n\t"
          "subq (%[b]), %[t0]\n\t"
          "sbbq 8(%[b]), %[t1]\n\t"
          "sbbq 16(%[b]), %[t2]\n\t"
          "sbbq 24(%[b]), %[t3]\n\t"
          "cmovncq %%rax, %[t4]\n\t"
          "cmovncq %%rax, %[t5]\n\t"
          "cmovncq %%rax, %[t6]\n\t"
          "cmovncq %%rax, %[t7]\n\t"
          "addq %[t4], %[t0]\n\t"
          "adcq %[t5], %[t1]\n\t"
          "adcq %[t6], %[t2]\n\t"
          "adcq %[t7], %[t3]\n\t"
          : GX_OUT_T8
          : GX_IN_ABM);
  GX_STORE_T4(r);
}

#endif
#endif
