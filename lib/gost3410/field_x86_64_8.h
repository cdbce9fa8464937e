/* The 8-limb x86-64 field for m = 2^512 - c (512 paramSetA/C): the
 * additions inline, the product and the squaring (field_x86_64.c) called
 * straight, so the MULX rows' point formulas (field_mulx.h) reach them
 * with no dispatch and no copy. Not installed. */
#ifndef GOSTX_GOST3410_FIELD_X86_64_8_H
#define GOSTX_GOST3410_FIELD_X86_64_8_H

#include "gost3410/field_x86_64.h"

#ifdef GX_FIELD_X86_64

/* r = a b and r = a^2 mod m for m = 2^512 - c (field_x86_64.c: their
 * blocks of assembly are longer than ISO C's strings, so not inline here;
 * the call is all they cost over it). */
void gostx__fe_mul8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
void gostx__fe_sqr8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a);

/* Eight limbs, m = 2^512 - c: a + b = t + carry 2^512, and t + c mod 2^512
 * is a + b - m exactly when the carry is set or t + c carries; so c is added
 * under a mask (no second copy of t: no registers for it). */
GX_BODY_INLINE void add8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  const uint64_t c = M->c;
  uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
  __asm__(GX_LOAD8_A
          "addq (%[b]), %[t0]\n\t"
          "adcq 8(%[b]), %[t1]\n\t"
          "adcq 16(%[b]), %[t2]\n\t"
          "adcq 24(%[b]), %[t3]\n\t"
          "adcq 32(%[b]), %[t4]\n\t"
          "adcq 40(%[b]), %[t5]\n\t"
          "adcq 48(%[b]), %[t6]\n\t"
          "adcq 56(%[b]), %[t7]\n\t"
          "sbbq %%rax, %%rax\n\t" /* -carry */
          "movq %[c], %%rdx\n\t"
          "movq %[t0], %%rcx\n\t" /* the carry of t + c, t kept */
          "addq %%rdx, %%rcx\n\t"
          "movq %[t1], %%rcx\n\t"
          "adcq $0, %%rcx\n\t"
          "movq %[t2], %%rcx\n\t"
          "adcq $0, %%rcx\n\t"
          "movq %[t3], %%rcx\n\t"
          "adcq $0, %%rcx\n\t"
          "movq %[t4], %%rcx\n\t"
          "adcq $0, %%rcx\n\t"
          "movq %[t5], %%rcx\n\t"
          "adcq $0, %%rcx\n\t"
          "movq %[t6], %%rcx\n\t"
          "adcq $0, %%rcx\n\t"
          "movq %[t7], %%rcx\n\t"
          "adcq $0, %%rcx\n\t"
          "sbbq %%rcx, %%rcx\n\t"
          "orq %%rcx, %%rax\n\t"
          "andq %%rdx, %%rax\n\t"
          "addq %%rax, %[t0]\n\t"
          "adcq $0, %[t1]\n\t"
          "adcq $0, %[t2]\n\t"
          "adcq $0, %[t3]\n\t"
          "adcq $0, %[t4]\n\t"
          "adcq $0, %[t5]\n\t"
          "adcq $0, %[t6]\n\t"
          "adcq $0, %[t7]\n\t"
          : GX_OUT_T8
          : [a] "r"(a), [b] "r"(b), [c] "m"(c)
          : "rax", "rcx", "rdx", "cc", "memory");
  GX_STORE_T8(r);
}

/* a - b, and on a borrow + m = - c mod 2^512: c subtracted under the mask. */
GX_BODY_INLINE void sub8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  const uint64_t c = M->c;
  uint64_t t0, t1, t2, t3, t4, t5, t6, t7;
  __asm__(GX_LOAD8_A
          "subq (%[b]), %[t0]\n\t"
          "sbbq 8(%[b]), %[t1]\n\t"
          "sbbq 16(%[b]), %[t2]\n\t"
          "sbbq 24(%[b]), %[t3]\n\t"
          "sbbq 32(%[b]), %[t4]\n\t"
          "sbbq 40(%[b]), %[t5]\n\t"
          "sbbq 48(%[b]), %[t6]\n\t"
          "sbbq 56(%[b]), %[t7]\n\t"
          "sbbq %%rax, %%rax\n\t"
          "andq %[c], %%rax\n\t"
          "subq %%rax, %[t0]\n\t"
          "sbbq $0, %[t1]\n\t"
          "sbbq $0, %[t2]\n\t"
          "sbbq $0, %[t3]\n\t"
          "sbbq $0, %[t4]\n\t"
          "sbbq $0, %[t5]\n\t"
          "sbbq $0, %[t6]\n\t"
          "sbbq $0, %[t7]\n\t"
          : GX_OUT_T8
          : [a] "r"(a), [b] "r"(b), [c] "m"(c)
          : "rax", "cc", "memory");
  GX_STORE_T8(r);
}

#endif
#endif
