/* The 8-limb x86-64 field bodies for m = 2^512 - c (512 paramSetA/C), as
 * static inline functions like field_x86_64.h's 4-limb ones: the point
 * formulas (field_inline.h) call them with no call and no copy. The product
 * keeps its high half in registers and folds it by c there; only the low
 * half goes through a local array. Only where lib/dispatch.c chose the MULX
 * field. Not installed. */
#ifndef GOSTX_GOST3410_FIELD_X86_64_8_H
#define GOSTX_GOST3410_FIELD_X86_64_8_H

#include "gost3410/field_x86_64.h"

#ifdef GX_FIELD_X86_64

/* One multiply-accumulate of a row: rdx a_j into limbs lo (CF chain), hi
 * (OF chain). */
#define GX_MAC8(j, lo, hi) \
  "mulxq " j "(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %%" lo "\n\t" \
  "adoxq %%rcx, %%" hi "\n\t"
/* Row i >= 1 of the product: the window w0..w7 holds limbs i..i+7; w0 is
 * final after the first step and goes to the low half (lo + loff), its
 * register then takes the row's new top limb (i + 8). Eight window
 * registers, not nine: a, b and r all stay in registers. */
#define GX_M8_ROW(boff, loff, w0, w1, w2, w3, w4, w5, w6, w7) \
  "movq " boff "(%[b]), %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t" \
  GX_MAC8("0", w0, w1) \
  "movq %%" w0 ", " loff "+%[lo]\n\t" \
  GX_MAC8("8", w1, w2) GX_MAC8("16", w2, w3) GX_MAC8("24", w3, w4) \
  GX_MAC8("32", w4, w5) GX_MAC8("40", w5, w6) GX_MAC8("48", w6, w7) \
  "mulxq 56(%[a]), %%rax, %%" w0 "\n\t" \
  "adcxq %%rax, %%" w7 "\n\t" \
  "adoxq %[z], %%" w0 "\n\t" \
  "adcxq %[z], %%" w0 "\n\t"

/* The fold of the high half h0..h7 (registers named by the caller) by c onto the
 * low half (at the offsets 0..56 followed by `at`): limb i = lo_i + low(c h_i) + high(c h_(i-1)), the low
 * products on CF, the low half on OF; each h register takes high(c h_i)
 * and then becomes limb i + 1 (limb 0 in rcx). The top (h7's register)
 * is at most c. Then W = limbs + top 2^512 < 2^512 + c^2 < 2 m is reduced
 * in one step: U = limbs + (top + 1) c carries out of 2^512 exactly when W
 * >= m, and then U mod 2^512 = W - m; otherwise W = U - c (no borrow, as U
 * >= c). Two carry chains after the fold, no comparison. r written last, so
 * it may be a or b. */
#define GX_FOLD8_STEP(h, hprev, loff, at) \
  "mulxq %%" h ", %%rax, %%" h "\n\t" \
  "adcxq %%rax, %%" hprev "\n\t" \
  "adoxq " loff at ", %%" hprev "\n\t"
#define GX_FOLD8_PM(at, h0, h1, h2, h3, h4, h5, h6, h7) \
  "movq %[c], %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t" \
  "mulxq %%" h0 ", %%rcx, %%" h0 "\n\t" \
  "adoxq 0" at ", %%rcx\n\t" \
  GX_FOLD8_STEP(h1, h0, "8", at) GX_FOLD8_STEP(h2, h1, "16", at) \
  GX_FOLD8_STEP(h3, h2, "24", at) GX_FOLD8_STEP(h4, h3, "32", at) \
  GX_FOLD8_STEP(h5, h4, "40", at) GX_FOLD8_STEP(h6, h5, "48", at) \
  GX_FOLD8_STEP(h7, h6, "56", at) \
  "adcxq %[z], %%" h7 "\n\t" \
  "adoxq %[z], %%" h7 "\n\t" \
  "incq %%" h7 "\n\t" \
  "imulq %%rdx, %%" h7 "\n\t" \
  "addq %%" h7 ", %%rcx\n\t" \
  "adcq $0, %%" h0 "\n\t" \
  "adcq $0, %%" h1 "\n\t" \
  "adcq $0, %%" h2 "\n\t" \
  "adcq $0, %%" h3 "\n\t" \
  "adcq $0, %%" h4 "\n\t" \
  "adcq $0, %%" h5 "\n\t" \
  "adcq $0, %%" h6 "\n\t" \
  "sbbq %%rax, %%rax\n\t" \
  "notq %%rax\n\t" \
  "andq %%rdx, %%rax\n\t" \
  "subq %%rax, %%rcx\n\t" \
  "sbbq $0, %%" h0 "\n\t" \
  "sbbq $0, %%" h1 "\n\t" \
  "sbbq $0, %%" h2 "\n\t" \
  "sbbq $0, %%" h3 "\n\t" \
  "sbbq $0, %%" h4 "\n\t" \
  "sbbq $0, %%" h5 "\n\t" \
  "sbbq $0, %%" h6 "\n\t" \
  "movq %%rcx, 0(%[r])\n\t" \
  "movq %%" h0 ", 8(%[r])\n\t" \
  "movq %%" h1 ", 16(%[r])\n\t" \
  "movq %%" h2 ", 24(%[r])\n\t" \
  "movq %%" h3 ", 32(%[r])\n\t" \
  "movq %%" h4 ", 40(%[r])\n\t" \
  "movq %%" h5 ", 48(%[r])\n\t" \
  "movq %%" h6 ", 56(%[r])\n\t"

#define GX_CLOBBER8 "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc", "memory"

/* r = a b mod m for m = 2^512 - c (any a, b < 2^512; r < m). */
static inline void mul8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  uint64_t lo[8];
  __asm__ volatile(
      "movq (%[b]), %%rdx\n\t" /* row 0: limbs 0..8 */
      "mulxq (%[a]), %%rax, %%r8\n\t"
      "movq %%rax, 0+%[lo]\n\t"
      "mulxq 8(%[a]), %%rax, %%r9\n\t"
      "addq %%rax, %%r8\n\t"
      "mulxq 16(%[a]), %%rax, %%r10\n\t"
      "adcq %%rax, %%r9\n\t"
      "mulxq 24(%[a]), %%rax, %%r11\n\t"
      "adcq %%rax, %%r10\n\t"
      "mulxq 32(%[a]), %%rax, %%r12\n\t"
      "adcq %%rax, %%r11\n\t"
      "mulxq 40(%[a]), %%rax, %%r13\n\t"
      "adcq %%rax, %%r12\n\t"
      "mulxq 48(%[a]), %%rax, %%r14\n\t"
      "adcq %%rax, %%r13\n\t"
      "mulxq 56(%[a]), %%rax, %%r15\n\t"
      "adcq %%rax, %%r14\n\t"
      "adcq $0, %%r15\n\t"
      GX_M8_ROW("8", "8", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")
      GX_M8_ROW("16", "16", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "r8")
      GX_M8_ROW("24", "24", "r10", "r11", "r12", "r13", "r14", "r15", "r8", "r9")
      GX_M8_ROW("32", "32", "r11", "r12", "r13", "r14", "r15", "r8", "r9", "r10")
      GX_M8_ROW("40", "40", "r12", "r13", "r14", "r15", "r8", "r9", "r10", "r11")
      GX_M8_ROW("48", "48", "r13", "r14", "r15", "r8", "r9", "r10", "r11", "r12")
      GX_M8_ROW("56", "56", "r14", "r15", "r8", "r9", "r10", "r11", "r12", "r13")
      GX_FOLD8_PM("+%[lo]", "r15", "r8", "r9", "r10", "r11", "r12", "r13", "r14")
      : [lo] "=m"(lo)
      : [a] "r"(a), [b] "r"(b), [r] "r"(r), [z] "m"(gx_asm_zero), [c] "m"(M->c)
      : GX_CLOBBER8);
}

/* The top product of a squaring row: lo into the window's last limb, hi a
 * new top limb with both carries. */
#define GX_SQR8_TOP(j, lo, top) \
  "mulxq " j "(%[a]), %%rax, %%" top "\n\t" \
  "adcxq %%rax, %%" lo "\n\t" \
  "adoxq %[z], %%" top "\n\t" \
  "adcxq %[z], %%" top "\n\t"
#define GX_SQR8_ROW(i) \
  "movq " i "(%[a]), %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t"
/* Limbs 2i and 2i + 1 of the square in the low half (memory): doubled on
 * the CF chain, a_i^2 added on the OF chain; rdx is the temporary. */
#define GX_S8_DIAG_MEM(ai, o0, o1) \
  "movq " ai "(%[a]), %%rdx\n\t" \
  "mulxq %%rdx, %%rax, %%rcx\n\t" \
  "movq " o0 "+%[lo], %%rdx\n\t" \
  "adcxq %%rdx, %%rdx\n\t" \
  "adoxq %%rax, %%rdx\n\t" \
  "movq %%rdx, " o0 "+%[lo]\n\t" \
  "movq " o1 "+%[lo], %%rdx\n\t" \
  "adcxq %%rdx, %%rdx\n\t" \
  "adoxq %%rcx, %%rdx\n\t" \
  "movq %%rdx, " o1 "+%[lo]\n\t"
/* The same for limbs of the high half, in registers x, y. */
#define GX_S8_DIAG_REG(ai, x, y) \
  "movq " ai "(%[a]), %%rdx\n\t" \
  "mulxq %%rdx, %%rax, %%rcx\n\t" \
  "adcxq %%" x ", %%" x "\n\t" \
  "adoxq %%rax, %%" x "\n\t" \
  "adcxq %%" y ", %%" y "\n\t" \
  "adoxq %%rcx, %%" y "\n\t"
#define GX_S8_STORE(x, off) "movq %%" x ", " off "+%[lo]\n\t"

/* r = a^2 mod m for m = 2^512 - c: the 28 cross products row by row, limbs
 * 1..7 to the low half as they become final, 8..14 kept in registers (r15,
 * rbx, r8..r12); doubled and the eight squares added (36 MULX against 64);
 * then mul8_pm's fold on those registers. */
static inline void sqr8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  uint64_t lo[8];
  __asm__ volatile(
      "movq $0, 0+%[lo]\n\t"
      "movq (%[a]), %%rdx\n\t" /* row 0: a_0 a_1..a_7 into limbs 1..8 */
      "mulxq 8(%[a]), %%r8, %%r9\n\t"
      "mulxq 16(%[a]), %%rax, %%r10\n\t"
      "addq %%rax, %%r9\n\t"
      "mulxq 24(%[a]), %%rax, %%r11\n\t"
      "adcq %%rax, %%r10\n\t"
      "mulxq 32(%[a]), %%rax, %%r12\n\t"
      "adcq %%rax, %%r11\n\t"
      "mulxq 40(%[a]), %%rax, %%r13\n\t"
      "adcq %%rax, %%r12\n\t"
      "mulxq 48(%[a]), %%rax, %%r14\n\t"
      "adcq %%rax, %%r13\n\t"
      "mulxq 56(%[a]), %%rax, %%r15\n\t"
      "adcq %%rax, %%r14\n\t"
      "adcq $0, %%r15\n\t"
      GX_S8_STORE("r8", "8") GX_S8_STORE("r9", "16")
      GX_SQR8_ROW("8")
      GX_MAC8("16", "r10", "r11") GX_MAC8("24", "r11", "r12") GX_MAC8("32", "r12", "r13")
      GX_MAC8("40", "r13", "r14") GX_MAC8("48", "r14", "r15") GX_SQR8_TOP("56", "r15", "rbx")
      GX_S8_STORE("r10", "24") GX_S8_STORE("r11", "32")
      GX_SQR8_ROW("16")
      GX_MAC8("24", "r12", "r13") GX_MAC8("32", "r13", "r14") GX_MAC8("40", "r14", "r15")
      GX_MAC8("48", "r15", "rbx") GX_SQR8_TOP("56", "rbx", "r8")
      GX_S8_STORE("r12", "40") GX_S8_STORE("r13", "48")
      GX_SQR8_ROW("24")
      GX_MAC8("32", "r14", "r15") GX_MAC8("40", "r15", "rbx") GX_MAC8("48", "rbx", "r8")
      GX_SQR8_TOP("56", "r8", "r9")
      GX_S8_STORE("r14", "56") /* limb 8 stays in r15 */
      GX_SQR8_ROW("32")
      GX_MAC8("40", "rbx", "r8") GX_MAC8("48", "r8", "r9") GX_SQR8_TOP("56", "r9", "r10")
      GX_SQR8_ROW("40")
      GX_MAC8("48", "r9", "r10") GX_SQR8_TOP("56", "r10", "r11")
      "movq 48(%[a]), %%rdx\n\t" /* row 6: a_6 a_7 into limbs 13, 14 */
      "mulxq 56(%[a]), %%rax, %%r12\n\t"
      "addq %%rax, %%r11\n\t"
      "adcq $0, %%r12\n\t"
      "xorl %%r13d, %%r13d\n\t" /* limb 15; CF = OF = 0 */
      GX_S8_DIAG_MEM("0", "0", "8") GX_S8_DIAG_MEM("8", "16", "24")
      GX_S8_DIAG_MEM("16", "32", "40") GX_S8_DIAG_MEM("24", "48", "56")
      GX_S8_DIAG_REG("32", "r15", "rbx") GX_S8_DIAG_REG("40", "r8", "r9")
      GX_S8_DIAG_REG("48", "r10", "r11") GX_S8_DIAG_REG("56", "r12", "r13")
      GX_FOLD8_PM("+%[lo]", "r15", "rbx", "r8", "r9", "r10", "r11", "r12", "r13")
      : [lo] "=m"(lo)
      : [a] "r"(a), [r] "r"(r), [z] "m"(gx_asm_zero), [c] "m"(M->c)
      : "rbx", GX_CLOBBER8);
}

/* Eight limbs, m = 2^512 - c: a + b = t + carry 2^512, and t + c mod 2^512
 * is a + b - m exactly when the carry is set or t + c carries; so c is added
 * under a mask (no second copy of t: no registers for it). */
static inline void add8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
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
static inline void sub8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
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
