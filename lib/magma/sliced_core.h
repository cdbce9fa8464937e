/* Byte-sliced Magma / GOST 28147-89 core, one template for every vector
 * width (included by magma_ssse3.c, magma_avx2.c and magma_avx512.c; not a
 * header of its own). docs/MAGMA.md explains the layout and counts the instructions.
 *
 * A group is V_BYTES blocks: eight registers, register m holding byte j of
 * half h (m = 4h + j, j = 0 least significant; half 0 = a0 = n1, half 1 =
 * a1 = n2) of every block of the group, each byte XOR 0x80 ("biased").
 * Per round, with x the half fed to g and y the half it is XORed into:
 *   s = x + k mod 2^32    four byte adds; carries from signed compares of
 *                         the biased bytes against 255 - k_j (generate: x_j >
 *                         255 - k_j; propagate: x_j == 255 - k_j)
 *   y ^= t(s) <<< 11      per sum byte, three pshufb: the low nibble's S-box
 *                         output, already rotated, lands in one byte of y, the
 *                         high nibble's in two (its 4 bits straddle a byte)
 * Every operation is the same for all data: no secret branch or address.
 *
 * The includer defines: V (the vector type), V_BYTES, TARGET (the function
 * attribute enabling the ISA), FN(name) (a per-ISA name), and the operations
 * V_LOADU V_LOADA V_STOREU V_SET1_32 V_AND V_OR V_XOR V_ADD8 V_SUB8 V_GT8
 * V_EQ8 V_SRL16 V_SHUF(data, index) V_UNPLO16 V_UNPHI16 V_UNPLO32 V_UNPHI32
 * V_UNPLO64 V_UNPHI64 (the unpacks work within 128-bit lanes). V_LOADA only
 * reads the 32-byte rows of struct gostx__magma_sliced (each 16-byte table
 * or mask twice); a wider V must broadcast them.
 *
 * Optional hooks, for ISAs with better primitives (magma_avx512.c); left
 * undefined, they are the vector forms below, which is all that the SSSE3
 * and AVX2 files use:
 *   CARRY_T                the type of a carry (default V, -1 per carrying byte)
 *   CARRY_FIRST(x, nk)     carry out of byte 0: x > nk (signed, biased bytes)
 *   CARRY_NEXT(c, x, nk)   carry out of byte j > 0: x > nk, or x == nk and c
 *   ADD_CARRY(s, c)        s + (carry in c)
 *   SB_LO(s, m0f), SB_HI(s, m0f)  the table index for the low / high nibble
 *   SB_LOOKUP(table, idx)  the 16-entry table lookup
 *   V_XOR3(a, b, c)        a ^ b ^ c */

/* A group: 8 registers x V_BYTES bytes = V_BYTES 8-byte blocks. Bulk data
 * runs two groups side by side, whose rounds are independent: one group's
 * round is a carry chain and a few table lookups deep (docs/MAGMA.md), and
 * the second group fills the gaps. */
#define GROUP_BLOCKS V_BYTES

#ifndef CARRY_T
#define CARRY_T V
#define CARRY_FIRST(x, nk) V_GT8(x, nk)
#define CARRY_NEXT(c, x, nk) V_OR(V_GT8(x, nk), V_AND(V_EQ8(x, nk), c))
#define ADD_CARRY(s, c) V_SUB8(s, c)
#endif
#ifndef SB_LO
#define SB_LO(s, m0f) V_AND(s, m0f)
#define SB_HI(s, m0f) V_AND(V_SRL16(s, 4), m0f)
#define SB_LOOKUP(table, idx) V_SHUF(table, idx)
#endif
#ifndef V_XOR3
#define V_XOR3(a, b, c) V_XOR(a, V_XOR(b, c))
#endif
#ifndef PAIR_GROUPS
#define PAIR_GROUPS 1 /* 0: one group at a time (when pairs spill too much) */
#endif

/* 8x8 transpose of 16-bit elements within each 128-bit lane: element e of
 * register m <-> element m of register e. Its own inverse. */
TARGET static inline void FN(transpose)(V x[8]) {
  V t[8], u[8];
  for (int i = 0; i < 4; i++) {
    t[2 * i] = V_UNPLO16(x[2 * i], x[2 * i + 1]);
    t[2 * i + 1] = V_UNPHI16(x[2 * i], x[2 * i + 1]);
  }
  u[0] = V_UNPLO32(t[0], t[2]); u[1] = V_UNPHI32(t[0], t[2]);
  u[2] = V_UNPLO32(t[1], t[3]); u[3] = V_UNPHI32(t[1], t[3]);
  u[4] = V_UNPLO32(t[4], t[6]); u[5] = V_UNPHI32(t[4], t[6]);
  u[6] = V_UNPLO32(t[5], t[7]); u[7] = V_UNPHI32(t[5], t[7]);
  x[0] = V_UNPLO64(u[0], u[4]); x[1] = V_UNPHI64(u[0], u[4]);
  x[2] = V_UNPLO64(u[1], u[5]); x[3] = V_UNPHI64(u[1], u[5]);
  x[4] = V_UNPLO64(u[2], u[6]); x[5] = V_UNPHI64(u[2], u[6]);
  x[6] = V_UNPLO64(u[3], u[7]); x[7] = V_UNPHI64(u[3], u[7]);
}

/* One round: y ^= g[k](x). rc: this round's constants (see
 * gostx__magma_sliced_round_consts); tab: the S-box set's 12 tables. */
TARGET static inline void FN(round)(const V x[4], V y[4], const uint32_t rc[8],
                                    const uint8_t (*tab)[32], V m0f) {
  V s0, s1, s2, s3, nk;
  CARRY_T c;
  /* s = x + k with byte carries (by default c is -1 in bytes that carry out). */
  s0 = V_ADD8(x[0], V_SET1_32(rc[0]));
  c = CARRY_FIRST(x[0], V_SET1_32(rc[4]));
  s1 = ADD_CARRY(V_ADD8(x[1], V_SET1_32(rc[1])), c);
  nk = V_SET1_32(rc[5]);
  c = CARRY_NEXT(c, x[1], nk);
  s2 = ADD_CARRY(V_ADD8(x[2], V_SET1_32(rc[2])), c);
  nk = V_SET1_32(rc[6]);
  c = CARRY_NEXT(c, x[2], nk);
  s3 = ADD_CARRY(V_ADD8(x[3], V_SET1_32(rc[3])), c);
  (void)m0f; /* unused when the hooks need no nibble mask */
  /* y ^= t(s) <<< 11. */
#define SBOX_BYTE(j, s)                                                                   \
  do {                                                                                    \
    V lo = SB_LO(s, m0f), hi = SB_HI(s, m0f);                                             \
    y[((j) + 1) & 3] = V_XOR3(y[((j) + 1) & 3], SB_LOOKUP(V_LOADA(tab[3 * (j)]), lo),      \
                              SB_LOOKUP(V_LOADA(tab[3 * (j) + 1]), hi));                  \
    y[((j) + 2) & 3] = V_XOR(y[((j) + 2) & 3], SB_LOOKUP(V_LOADA(tab[3 * (j) + 2]), hi)); \
  } while (0)
  SBOX_BYTE(0, s0);
  SBOX_BYTE(1, s1);
  SBOX_BYTE(2, s2);
  SBOX_BYTE(3, s3);
#undef SBOX_BYTE
}

/* Encrypts (or decrypts: rc decides) ng (1 or 2, a constant after inlining)
 * groups of GROUP_BLOCKS blocks each. in and out may be equal. */
TARGET static inline __attribute__((always_inline)) void FN(groups)(
    int ng, const uint32_t rc[32][8], const uint8_t (*tab)[32], const uint8_t *load_shuf,
    const uint8_t *store_shuf, const uint8_t *in, uint8_t *out) {
  const V bias = V_SET1_32(0x80808080u), m0f = V_SET1_32(0x0f0f0f0fu);
  const V ls = V_LOADA(load_shuf);
  V r[2][8];
  for (int g = 0; g < ng; g++) {
    for (int i = 0; i < 8; i++) r[g][i] = V_SHUF(V_LOADU(in + (8 * g + i) * V_BYTES), ls);
    FN(transpose)(r[g]);
    for (int i = 0; i < 8; i++) r[g][i] = V_XOR(r[g][i], bias);
  }
  /* n1 = a0 = r[0..3], n2 = a1 = r[4..7]; rounds alternate which is updated. */
  for (int i = 0; i < 32; i += 2) {
    for (int g = 0; g < ng; g++) FN(round)(r[g], r[g] + 4, rc[i], tab, m0f);
    for (int g = 0; g < ng; g++) FN(round)(r[g] + 4, r[g], rc[i + 1], tab, m0f);
  }
  const V ss = V_LOADA(store_shuf);
  for (int g = 0; g < ng; g++) {
    /* After 32 rounds a1 = n1, a0 = n2: swap the halves back. */
    V o[8];
    for (int i = 0; i < 4; i++) {
      o[i] = V_XOR(r[g][4 + i], bias);
      o[4 + i] = V_XOR(r[g][i], bias);
    }
    FN(transpose)(o);
    for (int i = 0; i < 8; i++) V_STOREU(out + (8 * g + i) * V_BYTES, V_SHUF(o[i], ss));
  }
}

TARGET static void FN(group1)(const uint32_t rc[32][8], const uint8_t (*tab)[32],
                              const uint8_t *ls, const uint8_t *ss, const uint8_t *in, uint8_t *out) {
  FN(groups)(1, rc, tab, ls, ss, in, out);
}

TARGET static void FN(group2)(const uint32_t rc[32][8], const uint8_t (*tab)[32],
                              const uint8_t *ls, const uint8_t *ss, const uint8_t *in, uint8_t *out) {
  FN(groups)(2, rc, tab, ls, ss, in, out);
}

/* Any number of blocks: pairs of groups, then single groups, straight from
 * in to out; the rest through a zero-padded group on the stack. */
TARGET static void FN(blocks)(const gostx_magma_key *k, const uint8_t *in, uint8_t *out,
                              size_t n, int decrypt) {
  const struct gostx__magma_sliced *t = gostx__magma_sliced_tables();
  const uint8_t (*tab)[32] = t->sbox[k->sbox_id];
  const uint8_t *ls = t->load_shuf[k->le ? 1 : 0], *ss = t->store_shuf[k->le ? 1 : 0];
  uint32_t rc[32][8];
  gostx__magma_sliced_round_consts(k, decrypt, rc);
  for (; PAIR_GROUPS && n >= 2 * GROUP_BLOCKS; n -= 2 * GROUP_BLOCKS) {
    FN(group2)(rc, tab, ls, ss, in, out);
    in += 16 * GROUP_BLOCKS;
    out += 16 * GROUP_BLOCKS;
  }
  for (; n >= GROUP_BLOCKS; n -= GROUP_BLOCKS) {
    FN(group1)(rc, tab, ls, ss, in, out);
    in += 8 * GROUP_BLOCKS;
    out += 8 * GROUP_BLOCKS;
  }
  if (n) {
    uint8_t buf[8 * GROUP_BLOCKS];
    memcpy(buf, in, 8 * n);
    memset(buf + 8 * n, 0, sizeof buf - 8 * n);
    FN(group1)(rc, tab, ls, ss, buf, buf);
    memcpy(out, buf, 8 * n);
    gostx_memzero(buf, sizeof buf);
  }
  gostx_memzero(rc, sizeof rc);
}

#undef GROUP_BLOCKS
#undef PAIR_GROUPS
#undef CARRY_T
#undef CARRY_FIRST
#undef CARRY_NEXT
#undef ADD_CARRY
#undef SB_LO
#undef SB_HI
#undef SB_LOOKUP
#undef V_XOR3
