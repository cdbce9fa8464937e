/* Magma / GOST 28147-89, one block at a time in x86-64 general registers: the
 * path of the sequential modes (CBC and CFB encryption, OFB, OMAC, IMIT) at
 * the ssse3/avx2/avx512 levels, where a single block cannot fill a vector.
 *
 * Constant time like the portable core (no secret-indexed load, no secret
 * branch): each 4-bit S-box is a 64-bit word, looked up by rotating it.
 * What differs is the op count per round, which bounds it on wide cores
 * (docs/MAGMA.md "One block"):
 *   - the S-box word of nibble i is kept rotated left by 4i, so ROR by
 *     4 * nibble leaves the entry already at bits 4i..4i+3: one AND, no
 *     shift back into place;
 *   - the eight rotation counts come from two masked copies of the sum
 *     (even nibbles * 4 and odd nibbles * 4, one per byte) read as bytes
 *     (CL, AH/DH, then one shift by 16), not from eight shifts;
 *   - the OR tree is balanced.
 * ROR by CL has no BMI2 form, and GCC does not keep this schedule from C
 * (measured 15.8 against 13.5 cycles/round), hence the inline assembly.
 * Rotate-by-register has a fixed latency on x86-64 whatever the count. */
#include "magma/impl.h"

#ifdef GOSTX_ARCH_X86_64

/* Entry n of S-box i must land at bit (4i + 11) mod 32, the <<< 11 folded
 * in: t[i] is the S-box word rotated left by that position, so ROR by 4n
 * puts the entry there. Nibble 5 lands on bits 31, 0, 1, 2: its word is
 * looked up twice, t[5] for bit 31 and t[8] (rotated right by 1) for bits
 * 0..2. */
static void rotated_sboxes(uint64_t t[9], const uint64_t sb[8]) {
  for (unsigned i = 0; i < 8; i++) {
    const unsigned p = (4 * i + 11) & 31;
    t[i] = (sb[i] << p) | (sb[i] >> (64 - p));
  }
  t[8] = (sb[5] >> 1) | (sb[5] << 63);
}

/* One lookup: ROR word w by CL, keep bits m; XOR it into dst. */
#define LOOKUP(w, m, tmp, dst)                               \
  "movq " #w "*8(%[t]), %[" tmp "]\n\t"                       \
  "rorq %%cl, %[" tmp "]\n\t"                                 \
  "andl $" m ", %k[" tmp "]\n\t"                              \
  "xorl %k[" tmp "], %k[" dst "]\n\t"

/* y ^= t(x) <<< 11 for x = half + round key. The eight (nine) entries
 * have disjoint bits, so XOR combines them and y in one tree. */
static inline uint32_t round_x86(const uint64_t t[9], uint32_t y, uint32_t x) {
  uint64_t y64 = y, a, b, v, e, o;
  const uint64_t x64 = x;
  __asm__(
      /* e: byte j = 4 * nibble 2j; o: byte j = 4 * nibble 2j+1. */
      "leal (,%q[x],4), %k[e]\n\t"
      "andl $0x3C3C3C3C, %k[e]\n\t"
      "movl %k[x], %k[o]\n\t"
      "shrl $2, %k[o]\n\t"
      "andl $0x3C3C3C3C, %k[o]\n\t"
      "movl %k[e], %%ecx\n\t"
      "movq 0(%[t]), %[a]\n\t rorq %%cl, %[a]\n\t andl $0x7800, %k[a]\n\t"
      "movl %k[o], %%ecx\n\t"
      "movq 8(%[t]), %[b]\n\t rorq %%cl, %[b]\n\t andl $0x78000, %k[b]\n\t"
      "movzbl %h[e], %%ecx\n\t" LOOKUP(2, "0x780000", "v", "a")
      "movzbl %h[o], %%ecx\n\t" LOOKUP(3, "0x7800000", "v", "b")
      /* The same for nibbles 4..7, straight from x (renamed registers). */
      "movl %k[x], %k[e]\n\t"
      "shrl $14, %k[e]\n\t"
      "andl $0x3C3C, %k[e]\n\t"
      "movl %k[x], %k[o]\n\t"
      "shrl $18, %k[o]\n\t"
      "andl $0x3C3C, %k[o]\n\t"
      "movl %k[e], %%ecx\n\t" LOOKUP(4, "0x78000000", "v", "a")
      "movl %k[o], %%ecx\n\t" LOOKUP(5, "0x80000000", "v", "b") LOOKUP(8, "0x7", "v", "y")
      "movzbl %h[e], %%ecx\n\t" LOOKUP(6, "0x78", "v", "a")
      "movzbl %h[o], %%ecx\n\t" LOOKUP(7, "0x780", "v", "b")
      "xorl %k[a], %k[y]\n\t"
      "xorl %k[b], %k[y]\n\t"
      : [y] "+r"(y64), [a] "=&r"(a), [b] "=&r"(b), [v] "=&r"(v), [e] "=&Q"(e), [o] "=&Q"(o)
      : [x] "r"(x64), [t] "r"(t), "m"(*(const uint64_t(*)[9])t) /* the asm reads t[] */
      : "rcx", "cc");
  return (uint32_t)y64;
}

/* The portable core's alternating form (magma_portable.c): n1 = a0 and
 * n2 = a1 at the start, each round updates one half in place:
 * R(y, k, x) = y ^ g[k](x). */
#define R(y, k, x) round_x86(t, (y), (x) + (k))
#define EIGHT_UP(n1, n2)                                                      \
  do {                                                                        \
    n2 = R(n2, k0, n1); n1 = R(n1, k1, n2); n2 = R(n2, k2, n1); n1 = R(n1, k3, n2); \
    n2 = R(n2, k4, n1); n1 = R(n1, k5, n2); n2 = R(n2, k6, n1); n1 = R(n1, k7, n2); \
  } while (0)
#define EIGHT_DOWN(n1, n2)                                                    \
  do {                                                                        \
    n2 = R(n2, k7, n1); n1 = R(n1, k6, n2); n2 = R(n2, k5, n1); n1 = R(n1, k4, n2); \
    n2 = R(n2, k3, n1); n1 = R(n1, k2, n2); n2 = R(n2, k1, n1); n1 = R(n1, k0, n2); \
  } while (0)
#define KEYS                                                                  \
  uint64_t t[9];                                                              \
  rotated_sboxes(t, gostx__magma_sbox[k->sbox_id]);                           \
  const uint32_t k0 = k->rk[0], k1 = k->rk[1], k2 = k->rk[2], k3 = k->rk[3];  \
  const uint32_t k4 = k->rk[4], k5 = k->rk[5], k6 = k->rk[6], k7 = k->rk[7]

/* Encryption of (a1, a0) = (n2, n1); afterwards (a1, a0) = (n1, n2). */
#define ENCRYPT32(n1, n2)                                                     \
  do {                                                                        \
    EIGHT_UP(n1, n2); /* K1..K24 */                                           \
    EIGHT_UP(n1, n2);                                                         \
    EIGHT_UP(n1, n2);                                                         \
    EIGHT_DOWN(n1, n2); /* K25..K32 = K8..K1 */                               \
  } while (0)

void gostx__magma_x86_encrypt1(const gostx_magma_key *k, const uint8_t in[8], uint8_t out[8]) {
  KEYS;
  uint32_t n1, n2;
  gostx__magma_load(k, in, &n2, &n1);
  ENCRYPT32(n1, n2);
  gostx__magma_store(k, out, n1, n2);
}

/* The chained modes with the state in registers: going through memory
 * between blocks (store, load, XOR, store, load) cost ~20 cycles a block. */
void gostx__magma_x86_chain(const gostx_magma_key *k, int op, uint8_t s[8], const uint8_t *in,
                            uint8_t *out, size_t n) {
  KEYS;
  GOSTX__MAGMA_CHAIN_WORDS(k, op, s, in, out, n, {
    uint32_t n1 = s0, n2 = s1;
    ENCRYPT32(n1, n2);
    s1 = n1;
    s0 = n2;
  });
}

void gostx__magma_x86_decrypt1(const gostx_magma_key *k, const uint8_t in[8], uint8_t out[8]) {
  KEYS;
  uint32_t n1, n2;
  gostx__magma_load(k, in, &n2, &n1);
  EIGHT_UP(n1, n2); /* K32..K25 = K1..K8, then K24..K1 */
  EIGHT_DOWN(n1, n2);
  EIGHT_DOWN(n1, n2);
  EIGHT_DOWN(n1, n2);
  gostx__magma_store(k, out, n1, n2);
}

void gostx__magma_x86_imit16_words(const gostx_magma_key *k, uint32_t *a1, uint32_t *a0) {
  KEYS;
  uint32_t n1 = *a0, n2 = *a1;
  EIGHT_UP(n1, n2);
  EIGHT_UP(n1, n2);
  *a1 = n2; /* an even number of plain rounds: the halves sit where they started */
  *a0 = n1;
}

#endif
