/* The x86-64 field products with MULX (BMI2) and two carry chains, ADCX on
 * CF for the low halves and ADOX on OF for the high halves (ADX): the 2n-limb
 * product row by row in registers, no flag spills; the reductions are
 * field_body.h's, shared with the portable field. The rows that run them
 * (mul_mulx.c, mul_avx512ifma.c) call them through field_mulx.h; the
 * portable field stays the reference. Constant time: no branch or index on the operands. */
#include "gost3410/field_body.h"

#include <string.h>

#include "arch.h"
#include "gost3410/field_x86_64_8.h"

#if defined(GOSTX_ARCH_X86_64) && defined(__GNUC__)


/* ---- 2^512 - c: the product and the squaring with the fold in registers ---- */

/* One multiply-accumulate of a row: rdx a_j into limbs lo (CF chain), hi
 * (OF chain). */
#define GX_MAC8(j, lo, hi) \
  "mulxq " j "(%[a]), %%rax, %%rcx\n\t" \
  "adcxq %%rax, %%" lo "\n\t" \
  "adoxq %%rcx, %%" hi "\n\t"
/* Row i >= 1 of the product: the window w0..w7 holds limbs i..i+7; w0 is
 * final after the first step and goes to the low half (t + loff), its
 * register then takes the row's new top limb (i + 8). b (at boff) is
 * reached through its pointer in t: the low half, c and the pointers to b
 * and r share t's base register, so the block needs two (a, t) besides
 * its eleven, well inside what is left where rbp holds the frame (-O0,
 * AddressSanitizer); t's address is in a register whatever the build does
 * with the stack. */
#define GX_M8_ROW(boff, loff, w0, w1, w2, w3, w4, w5, w6, w7) \
  "movq 72(%[t]), %%rdx\n\t" \
  "movq " boff "(%%rdx), %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t" \
  GX_MAC8("0", w0, w1) \
  "movq %%" w0 ", " loff "(%[t])\n\t" \
  GX_MAC8("8", w1, w2) GX_MAC8("16", w2, w3) GX_MAC8("24", w3, w4) \
  GX_MAC8("32", w4, w5) GX_MAC8("40", w5, w6) GX_MAC8("48", w6, w7) \
  "mulxq 56(%[a]), %%rax, %%" w0 "\n\t" \
  "adcxq %%rax, %%" w7 "\n\t" \
  "adoxq %[z], %%" w0 "\n\t" \
  "adcxq %[z], %%" w0 "\n\t"

/* The fold of the high half h0..h7 (registers named by the caller) by c onto the
 * low half (t[0..8)): limb i = lo_i + low(c h_i) + high(c h_(i-1)), the low
 * products on CF, the low half on OF; each h register takes high(c h_i)
 * and then becomes limb i + 1 (limb 0 in rcx). The top (h7's register)
 * is at most c. Then W = limbs + top 2^512 < 2^512 + c^2 < 2 m is reduced
 * in one step: U = limbs + (top + 1) c carries out of 2^512 exactly when W
 * >= m, and then U mod 2^512 = W - m; otherwise W = U - c (no borrow, as U
 * >= c). Two carry chains after the fold, no comparison. c is read from
 * `cat`, the pointer to r from `rp`; r is written last, so it may be a or
 * b. */
#define GX_FOLD8_STEP(h, hprev, loff) \
  "mulxq %%" h ", %%rax, %%" h "\n\t" \
  "adcxq %%rax, %%" hprev "\n\t" \
  "adoxq " loff "(%[t]), %%" hprev "\n\t"
#define GX_FOLD8_PM(cat, rp, h0, h1, h2, h3, h4, h5, h6, h7) \
  "movq " cat ", %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t" \
  "mulxq %%" h0 ", %%rcx, %%" h0 "\n\t" \
  "adoxq 0(%[t]), %%rcx\n\t" \
  GX_FOLD8_STEP(h1, h0, "8") GX_FOLD8_STEP(h2, h1, "16") \
  GX_FOLD8_STEP(h3, h2, "24") GX_FOLD8_STEP(h4, h3, "32") \
  GX_FOLD8_STEP(h5, h4, "40") GX_FOLD8_STEP(h6, h5, "48") \
  GX_FOLD8_STEP(h7, h6, "56") \
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
  "movq " rp ", %%rax\n\t" \
  "movq %%rcx, 0(%%rax)\n\t" \
  "movq %%" h0 ", 8(%%rax)\n\t" \
  "movq %%" h1 ", 16(%%rax)\n\t" \
  "movq %%" h2 ", 24(%%rax)\n\t" \
  "movq %%" h3 ", 32(%%rax)\n\t" \
  "movq %%" h4 ", 40(%%rax)\n\t" \
  "movq %%" h5 ", 48(%%rax)\n\t" \
  "movq %%" h6 ", 56(%%rax)\n\t"

#define GX_CLOBBER8 "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc", "memory"

/* r = a b mod m for m = 2^512 - c (any a, b < 2^512; r < m). */
void gostx__fe_mul8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  uint64_t t[11]; /* the low half, c, the pointers to b and r (GX_M8_ROW) */
  t[8] = M->c;
  t[9] = (uint64_t)(uintptr_t)b;
  t[10] = (uint64_t)(uintptr_t)r;
  __asm__ volatile(
      "movq 72(%[t]), %%rdx\n\t" /* row 0: limbs 0..8 */
      "movq (%%rdx), %%rdx\n\t"
      "mulxq (%[a]), %%rax, %%r8\n\t"
      "movq %%rax, 0(%[t])\n\t"
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
      GX_FOLD8_PM("64(%[t])", "80(%[t])", "r15", "r8", "r9", "r10", "r11", "r12", "r13", "r14")
      :
      : [a] "r"(a), [t] "r"(t), [z] "m"(gx_asm_zero)
      : GX_CLOBBER8);
}

/* The top product of a squaring row: lo into the window's last limb, hi a
 * new top limb with both carries. */
#define GX_SQR8_TOP(j, lo, top) \
  "mulxq " j "(%[a]), %%rax, %%" top "\n\t" \
  "adcxq %%rax, %%" lo "\n\t" \
  "adoxq %[z], %%" top "\n\t" \
  "adcxq %[z], %%" top "\n\t"
/* Row 0 of both 8-limb squarings: a_0 a_1..a_7 into limbs 1..8, in r8..r15. */
#define GX_SQR8_ROW0 \
  "movq (%[a]), %%rdx\n\t" \
  "mulxq 8(%[a]), %%r8, %%r9\n\t" \
  "mulxq 16(%[a]), %%rax, %%r10\n\t" \
  "addq %%rax, %%r9\n\t" \
  "mulxq 24(%[a]), %%rax, %%r11\n\t" \
  "adcq %%rax, %%r10\n\t" \
  "mulxq 32(%[a]), %%rax, %%r12\n\t" \
  "adcq %%rax, %%r11\n\t" \
  "mulxq 40(%[a]), %%rax, %%r13\n\t" \
  "adcq %%rax, %%r12\n\t" \
  "mulxq 48(%[a]), %%rax, %%r14\n\t" \
  "adcq %%rax, %%r13\n\t" \
  "mulxq 56(%[a]), %%rax, %%r15\n\t" \
  "adcq %%rax, %%r14\n\t" \
  "adcq $0, %%r15\n\t"
#define GX_SQR8_ROW(i) \
  "movq " i "(%[a]), %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t"
/* Limbs 2i and 2i + 1 of the square in the low half (memory): doubled on
 * the CF chain, a_i^2 added on the OF chain; rdx is the temporary. */
#define GX_S8_DIAG_MEM(ai, o0, o1) \
  "movq " ai "(%[a]), %%rdx\n\t" \
  "mulxq %%rdx, %%rax, %%rcx\n\t" \
  "movq " o0 "(%[t]), %%rdx\n\t" \
  "adcxq %%rdx, %%rdx\n\t" \
  "adoxq %%rax, %%rdx\n\t" \
  "movq %%rdx, " o0 "(%[t])\n\t" \
  "movq " o1 "(%[t]), %%rdx\n\t" \
  "adcxq %%rdx, %%rdx\n\t" \
  "adoxq %%rcx, %%rdx\n\t" \
  "movq %%rdx, " o1 "(%[t])\n\t"
/* The same for limbs of the high half, in registers x, y. */
#define GX_S8_DIAG_REG(ai, x, y) \
  "movq " ai "(%[a]), %%rdx\n\t" \
  "mulxq %%rdx, %%rax, %%rcx\n\t" \
  "adcxq %%" x ", %%" x "\n\t" \
  "adoxq %%rax, %%" x "\n\t" \
  "adcxq %%" y ", %%" y "\n\t" \
  "adoxq %%rcx, %%" y "\n\t"
#define GX_S8_STORE(x, off) "movq %%" x ", " off "(%[t])\n\t"

/* r = a^2 mod m for m = 2^512 - c: the 28 cross products row by row, limbs
 * 1..7 to the low half as they become final, 8..14 kept in registers (r15,
 * rbx, r8..r12); doubled and the eight squares added (36 MULX against 64);
 * then gostx__fe_mul8_pm's fold on those registers. */
void gostx__fe_sqr8_pm(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  uint64_t t[10]; /* the low half, c, the pointer to r */
  t[8] = M->c;
  t[9] = (uint64_t)(uintptr_t)r;
  __asm__ volatile(
      "movq $0, 0(%[t])\n\t"
      GX_SQR8_ROW0
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
      GX_FOLD8_PM("64(%[t])", "72(%[t])", "r15", "rbx", "r8", "r9", "r10", "r11", "r12", "r13")
      :
      : [a] "r"(a), [t] "r"(t), [z] "m"(gx_asm_zero)
      : "rbx", GX_CLOBBER8);
}

/* ---- the 8-limb product for the Montgomery moduli ---- */

/* Row i >= 1 of the 8-limb product: b_i (at bt + boff) times a into the
 * window w0..w7 (limbs i..i+7) and the new top w8; w0, complete, goes to bt +
 * toff. Low halves on CF (ADCX), high halves on OF (ADOX). */
#define GX_ROW8(boff, toff, w0, w1, w2, w3, w4, w5, w6, w7, w8) \
  "movq " boff "(%[bt]), %%rdx\n\t" \
  "xorl %%eax, %%eax\n\t" \
  GX_MAC8("0", w0, w1) GX_MAC8("8", w1, w2) GX_MAC8("16", w2, w3) GX_MAC8("24", w3, w4) \
  GX_MAC8("32", w4, w5) GX_MAC8("40", w5, w6) GX_MAC8("48", w6, w7) \
  "mulxq 56(%[a]), %%rax, %%" w8 "\n\t" \
  "adcxq %%rax, %%" w7 "\n\t" \
  "adoxq %[z], %%" w8 "\n\t" \
  "adcxq %[z], %%" w8 "\n\t" \
  "movq %%" w0 ", " toff "(%[bt])\n\t"

/* bt[0..8) = b on entry, bt[8..24) = a b on exit: one pointer for both
 * leaves a register for the row window (nine accumulators). */
static inline void wide8(uint64_t *bt, const uint64_t *a) {
  __asm__ volatile(
      "movq (%[bt]), %%rdx\n\t"
      "mulxq (%[a]), %%r8, %%r9\n\t"
      "mulxq 8(%[a]), %%rax, %%r10\n\t"
      "addq %%rax, %%r9\n\t"
      "mulxq 16(%[a]), %%rax, %%r11\n\t"
      "adcq %%rax, %%r10\n\t"
      "mulxq 24(%[a]), %%rax, %%r12\n\t"
      "adcq %%rax, %%r11\n\t"
      "mulxq 32(%[a]), %%rax, %%r13\n\t"
      "adcq %%rax, %%r12\n\t"
      "mulxq 40(%[a]), %%rax, %%r14\n\t"
      "adcq %%rax, %%r13\n\t"
      "mulxq 48(%[a]), %%rax, %%r15\n\t"
      "adcq %%rax, %%r14\n\t"
      "mulxq 56(%[a]), %%rax, %%rbx\n\t"
      "adcq %%rax, %%r15\n\t"
      "adcq $0, %%rbx\n\t"
      "movq %%r8, 64(%[bt])\n\t"
      GX_ROW8("8", "72", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rbx", "r8")
      GX_ROW8("16", "80", "r10", "r11", "r12", "r13", "r14", "r15", "rbx", "r8", "r9")
      GX_ROW8("24", "88", "r11", "r12", "r13", "r14", "r15", "rbx", "r8", "r9", "r10")
      GX_ROW8("32", "96", "r12", "r13", "r14", "r15", "rbx", "r8", "r9", "r10", "r11")
      GX_ROW8("40", "104", "r13", "r14", "r15", "rbx", "r8", "r9", "r10", "r11", "r12")
      GX_ROW8("48", "112", "r14", "r15", "rbx", "r8", "r9", "r10", "r11", "r12", "r13")
      GX_ROW8("56", "120", "r15", "rbx", "r8", "r9", "r10", "r11", "r12", "r13", "r14")
      "movq %%rbx, 128(%[bt])\n\t"
      "movq %%r8, 136(%[bt])\n\t"
      "movq %%r9, 144(%[bt])\n\t"
      "movq %%r10, 152(%[bt])\n\t"
      "movq %%r11, 160(%[bt])\n\t"
      "movq %%r12, 168(%[bt])\n\t"
      "movq %%r13, 176(%[bt])\n\t"
      "movq %%r14, 184(%[bt])\n\t"
      :
      : [a] "r"(a), [bt] "r"(bt), [z] "m"(gx_asm_zero)
      : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
        "memory");
}

#define GX_SQR8_STORE(lo, hi, off_lo, off_hi) \
  "movq %%" lo ", " off_lo "(%[t])\n\t" \
  "movq %%" hi ", " off_hi "(%[t])\n\t"
/* Limbs 2i and 2i + 1 of t: doubled on the CF chain (ADCX x, x), a_i^2
 * added on the OF chain. */
#define GX_SQR8_DIAG(ai, t0, t1) \
  "movq " ai "(%[a]), %%rdx\n\t" \
  "mulxq %%rdx, %%rax, %%rcx\n\t" \
  "movq " t0 "(%[t]), %%r8\n\t" \
  "adcxq %%r8, %%r8\n\t" \
  "adoxq %%rax, %%r8\n\t" \
  "movq %%r8, " t0 "(%[t])\n\t" \
  "movq " t1 "(%[t]), %%r9\n\t" \
  "adcxq %%r9, %%r9\n\t" \
  "adoxq %%rcx, %%r9\n\t" \
  "movq %%r9, " t1 "(%[t])\n\t"

/* t[0..16) = a^2: the 28 cross products a_i a_j (i < j) row by row, two
 * limbs final after each row, then doubled and the eight squares added (36
 * MULX against wide8's 64). */
static inline void sqr8_wide(uint64_t *t, const uint64_t *a) {
  t[0] = t[15] = 0;
  __asm__ volatile(
      GX_SQR8_ROW0
      GX_SQR8_STORE("r8", "r9", "8", "16")
      GX_SQR8_ROW("8")
      GX_MAC8("16", "r10", "r11") GX_MAC8("24", "r11", "r12") GX_MAC8("32", "r12", "r13")
      GX_MAC8("40", "r13", "r14") GX_MAC8("48", "r14", "r15") GX_SQR8_TOP("56", "r15", "rbx")
      GX_SQR8_STORE("r10", "r11", "24", "32")
      GX_SQR8_ROW("16")
      GX_MAC8("24", "r12", "r13") GX_MAC8("32", "r13", "r14") GX_MAC8("40", "r14", "r15")
      GX_MAC8("48", "r15", "rbx") GX_SQR8_TOP("56", "rbx", "r8")
      GX_SQR8_STORE("r12", "r13", "40", "48")
      GX_SQR8_ROW("24")
      GX_MAC8("32", "r14", "r15") GX_MAC8("40", "r15", "rbx") GX_MAC8("48", "rbx", "r8")
      GX_SQR8_TOP("56", "r8", "r9")
      GX_SQR8_STORE("r14", "r15", "56", "64")
      GX_SQR8_ROW("32")
      GX_MAC8("40", "rbx", "r8") GX_MAC8("48", "r8", "r9") GX_SQR8_TOP("56", "r9", "r10")
      GX_SQR8_STORE("rbx", "r8", "72", "80")
      GX_SQR8_ROW("40")
      GX_MAC8("48", "r9", "r10") GX_SQR8_TOP("56", "r10", "r11")
      GX_SQR8_STORE("r9", "r10", "88", "96")
      "movq 48(%[a]), %%rdx\n\t" /* row 6: a_6 a_7 */
      "mulxq 56(%[a]), %%rax, %%r12\n\t"
      "addq %%rax, %%r11\n\t"
      "adcq $0, %%r12\n\t"
      GX_SQR8_STORE("r11", "r12", "104", "112")
      "xorl %%eax, %%eax\n\t"
      GX_SQR8_DIAG("0", "0", "8") GX_SQR8_DIAG("8", "16", "24") GX_SQR8_DIAG("16", "32", "40")
      GX_SQR8_DIAG("24", "48", "56") GX_SQR8_DIAG("32", "64", "72")
      GX_SQR8_DIAG("40", "80", "88") GX_SQR8_DIAG("48", "96", "104")
      GX_SQR8_DIAG("56", "112", "120")
      :
      : [a] "r"(a), [t] "r"(t), [z] "m"(gx_asm_zero)
      : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "cc",
        "memory");
}

void gostx__fe_sqr_mulx(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  uint64_t t[2 * GX_MAXN];
  if (M->n == 4 && M->c) {
    sqr4_pm(M, r, a);
  } else if (M->n == 8 && M->c) { /* the modulus's form: public */
    gostx__fe_sqr8_pm(M, r, a);
  } else if (M->n == 8) {
    sqr8_wide(t, a);
    redc(M, r, t, 8);
  } else {
    gostx__fe_mul_mulx(M, r, a, a);
  }
}

void gostx__fe_mul_mulx(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  uint64_t bt[3 * GX_MAXN];
  if (M->n == 4 && M->c) {
    mul4_pm(M, r, a, b);
  } else if (M->n == 4) {
    wide4(bt, a, b);
    redc(M, r, bt, 4);
  } else if (M->c) { /* 8 limbs, the modulus's form: public */
    gostx__fe_mul8_pm(M, r, a, b);
  } else {
    memcpy(bt, b, 8 * 8);
    wide8(bt, a);
    redc(M, r, bt + 8, 8);
  }
}

#endif
