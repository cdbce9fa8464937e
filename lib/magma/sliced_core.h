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

/* One round: y ^= g[k](x), k given as vectors: k0..k3 byte j of the key
 * word per byte, n0..n2 the biased carry thresholds (255 - k_j) ^ 0x80;
 * tab: the S-box set's 12 tables. */
TARGET static inline void FN(round_v)(const V x[4], V y[4], V k0, V k1, V k2, V k3, V n0, V n1,
                                      V n2, const uint8_t (*tab)[32], V m0f) {
  V s0, s1, s2, s3;
  CARRY_T c;
  /* s = x + k with byte carries (by default c is -1 in bytes that carry out). */
  s0 = V_ADD8(x[0], k0);
  c = CARRY_FIRST(x[0], n0);
  s1 = ADD_CARRY(V_ADD8(x[1], k1), c);
  c = CARRY_NEXT(c, x[1], n1);
  s2 = ADD_CARRY(V_ADD8(x[2], k2), c);
  c = CARRY_NEXT(c, x[2], n2);
  s3 = ADD_CARRY(V_ADD8(x[3], k3), c);
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

/* One key for every block: rc is this round's constants (see
 * gostx__magma_sliced_round_consts), broadcast. */
TARGET static inline void FN(round)(const V x[4], V y[4], const uint32_t rc[8],
                                    const uint8_t (*tab)[32], V m0f) {
  FN(round_v)(x, y, V_SET1_32(rc[0]), V_SET1_32(rc[1]), V_SET1_32(rc[2]), V_SET1_32(rc[3]),
              V_SET1_32(rc[4]), V_SET1_32(rc[5]), V_SET1_32(rc[6]), tab, m0f);
}

/* A key per block: kv holds the key word's 8 vectors (the layout of
 * FN(mk_init)), lane b being block b's key. */
TARGET static inline void FN(round_mk)(const V x[4], V y[4], const V *kv,
                                       const uint8_t (*tab)[32], V m0f) {
  FN(round_v)(x, y, V_LOADU(kv), V_LOADU(kv + 1), V_LOADU(kv + 2), V_LOADU(kv + 3),
              V_LOADU(kv + 4), V_LOADU(kv + 5), V_LOADU(kv + 6), tab, m0f);
}

/* The key word (0..7) that round r of 32 uses: K1..K8 three times, then
 * K8..K1 (decryption: the reverse order). Public. */
static inline unsigned FN(round_word)(unsigned r, int decrypt) {
  const unsigned e = decrypt ? 31 - r : r;
  return e < 24 ? e & 7 : 31 - e;
}

/* Encrypts (or decrypts) ng (1 or 2, a constant after inlining) groups of
 * GROUP_BLOCKS blocks each. One key (kv NULL): rc decides the direction. A
 * key per block (kv: ng groups of FN(mk_init) vectors): decrypt does (0
 * encrypt, 1 decrypt, 2 the IMIT core). in and out may be equal. */
TARGET static inline __attribute__((always_inline)) void FN(groups)(
    int ng, const uint32_t rc[32][8], const V *kv, int decrypt, const uint8_t (*tab)[32],
    const uint8_t *load_shuf, const uint8_t *store_shuf, const uint8_t *in, uint8_t *out) {
  const V bias = V_SET1_32(0x80808080u), m0f = V_SET1_32(0x0f0f0f0fu);
  const V ls = V_LOADA(load_shuf);
  V r[2][8];
  for (int g = 0; g < ng; g++) {
    for (int i = 0; i < 8; i++) r[g][i] = V_SHUF(V_LOADU(in + (8 * g + i) * V_BYTES), ls);
    FN(transpose)(r[g]);
    for (int i = 0; i < 8; i++) r[g][i] = V_XOR(r[g][i], bias);
  }
  /* n1 = a0 = r[0..3], n2 = a1 = r[4..7]; rounds alternate which is updated. */
  /* op (decrypt) 2: the IMIT core, 16 rounds with K1..K8 twice. */
  const unsigned nr = kv && decrypt == 2 ? 16 : 32;
  if (kv) {
    for (unsigned i = 0; i < nr; i += 2) {
      const unsigned w0 = nr == 16 ? i & 7 : FN(round_word)(i, decrypt);
      const unsigned w1 = nr == 16 ? (i + 1) & 7 : FN(round_word)(i + 1, decrypt);
      for (int g = 0; g < ng; g++) FN(round_mk)(r[g], r[g] + 4, kv + 64 * g + 8 * w0, tab, m0f);
      for (int g = 0; g < ng; g++) FN(round_mk)(r[g] + 4, r[g], kv + 64 * g + 8 * w1, tab, m0f);
    }
  } else {
    for (int i = 0; i < 32; i += 2) {
      for (int g = 0; g < ng; g++) FN(round)(r[g], r[g] + 4, rc[i], tab, m0f);
      for (int g = 0; g < ng; g++) FN(round)(r[g] + 4, r[g], rc[i + 1], tab, m0f);
    }
  }
  for (int g = 0; g < ng; g++) {
    GOSTX_CT_PLANT(GOSTX_PLANT_MAGMA_N1, r[g] + (nr == 32 ? 4 : 0), 4 * V_BYTES);
    GOSTX_CT_PLANT(GOSTX_PLANT_MAGMA_N2, r[g] + (nr == 32 ? 0 : 4), 4 * V_BYTES);
  }
  const V ss = V_LOADA(store_shuf);
  for (int g = 0; g < ng; g++) {
    /* After 32 rounds a1 = n1, a0 = n2: swap the halves back (after the
     * IMIT core's 16 they sit where they started). */
    V o[8];
    const int sw = nr == 32 ? 4 : 0;
    for (int i = 0; i < 4; i++) {
      o[i] = V_XOR(r[g][sw + i], bias);
      o[4 + i] = V_XOR(r[g][(4 + sw + i) & 7], bias);
    }
    FN(transpose)(o);
    for (int i = 0; i < 8; i++) V_STOREU(out + (8 * g + i) * V_BYTES, V_SHUF(o[i], ss));
  }
}

TARGET static void FN(group1)(const uint32_t rc[32][8], const uint8_t (*tab)[32],
                              const uint8_t *ls, const uint8_t *ss, const uint8_t *in, uint8_t *out) {
  FN(groups)(1, rc, NULL, 0, tab, ls, ss, in, out);
}

TARGET static void FN(group2)(const uint32_t rc[32][8], const uint8_t (*tab)[32],
                              const uint8_t *ls, const uint8_t *ss, const uint8_t *in, uint8_t *out) {
  FN(groups)(2, rc, NULL, 0, tab, ls, ss, in, out);
}

/* ---- A key per block (multi-key) ----
 * The schedule: per group of GROUP_BLOCKS lanes, per key word w, 8 vectors:
 * byte j of lane b's word in lane b of vector j, its carry threshold
 * (255 - k_j) ^ 0x80 in vector 4 + j (vector 7 unused). They are made by
 * pushing "blocks" whose halves are (word, word ^ 0x7f7f7f7f) through the
 * data's load path, so that lane b is block b of a group at every width.
 * All keys share one S-box set and byte convention (keys[0]'s). Lanes from
 * n up to the group's end get zero keys (their blocks are padding). */
TARGET static void FN(mk_init)(void *sched, const gostx_magma_key *const *keys, size_t n) {
  V *kv = sched;
  const struct gostx__magma_sliced *t = gostx__magma_sliced_tables();
  const gostx_magma_key *k0 = keys[0];
  const V ls = V_LOADA(t->load_shuf[k0->le ? 1 : 0]);
  uint8_t buf[8 * GROUP_BLOCKS];
  V r[8];
  for (size_t g0 = 0; g0 < n; g0 += GROUP_BLOCKS, kv += 64) {
    for (unsigned w = 0; w < 8; w++) {
      for (size_t b = 0; b < GROUP_BLOCKS; b++) {
        const uint32_t x = g0 + b < n ? keys[g0 + b]->rk[w] : 0;
        gostx__magma_store(k0, buf + 8 * b, x ^ 0x7f7f7f7fu, x);
      }
      for (int i = 0; i < 8; i++) r[i] = V_SHUF(V_LOADU(buf + i * V_BYTES), ls);
      FN(transpose)(r);
      for (int i = 0; i < 8; i++) V_STOREU(kv + 8 * w + i, r[i]);
    }
  }
  gostx_memzero(buf, sizeof buf);
  gostx_memzero(r, sizeof r);
}

TARGET static void FN(mk_group1)(const V *kv, int dec, const uint8_t (*tab)[32],
                                 const uint8_t *ls, const uint8_t *ss, const uint8_t *in,
                                 uint8_t *out) {
  FN(groups)(1, NULL, kv, dec, tab, ls, ss, in, out);
}

TARGET static void FN(mk_group2)(const V *kv, int dec, const uint8_t (*tab)[32],
                                 const uint8_t *ls, const uint8_t *ss, const uint8_t *in,
                                 uint8_t *out) {
  FN(groups)(2, NULL, kv, dec, tab, ls, ss, in, out);
}

/* Any number of blocks: pairs of groups, then single groups, straight from
 * in to out; the rest through a zero-padded group (or pair) on the stack;
 * FN(blocks) hands a short rest to the includer's FEW_BLOCKS. One key (rc;
 * kv NULL) or a key per block (kv: the schedule, its lanes advancing with
 * the blocks; op as FN(groups)). */
TARGET static void FN(walk)(const uint32_t (*rc)[8], const V *kv, int op,
                            const gostx_magma_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  const struct gostx__magma_sliced *t = gostx__magma_sliced_tables();
  const uint8_t (*tab)[32] = t->sbox[k->sbox_id];
  const uint8_t *ls = t->load_shuf[k->le ? 1 : 0], *ss = t->store_shuf[k->le ? 1 : 0];
#define GROUPS(ng, src, dst)                                                        \
  do {                                                                              \
    if (kv) (ng == 2 ? FN(mk_group2) : FN(mk_group1))(kv, op, tab, ls, ss, src, dst); \
    else (ng == 2 ? FN(group2) : FN(group1))(rc, tab, ls, ss, src, dst);           \
    if (kv) kv += 64 * ng;                                                          \
  } while (0)
  for (; PAIR_GROUPS && n >= 2 * GROUP_BLOCKS; n -= 2 * GROUP_BLOCKS) {
    GROUPS(2, in, out);
    in += 16 * GROUP_BLOCKS;
    out += 16 * GROUP_BLOCKS;
  }
  /* The rest zero-padded on the stack; more than a group of it as a pair:
   * side by side two groups cost little more than one, a group and a
   * padded group twice as much. */
  const int ng = PAIR_GROUPS && n > GROUP_BLOCKS ? 2 : 1;
  for (; ng == 1 && n >= GROUP_BLOCKS; n -= GROUP_BLOCKS) {
    GROUPS(1, in, out);
    in += 8 * GROUP_BLOCKS;
    out += 8 * GROUP_BLOCKS;
  }
  if (n) {
    uint8_t buf[16 * GROUP_BLOCKS];
    memcpy(buf, in, 8 * n);
    memset(buf + 8 * n, 0, 8 * GROUP_BLOCKS * ng - 8 * n);
    GROUPS(ng, buf, buf);
    memcpy(out, buf, 8 * n);
    gostx_memzero(buf, 8 * GROUP_BLOCKS * ng);
  }
#undef GROUPS
}

TARGET static void FN(blocks)(const gostx_magma_key *k, const uint8_t *in, uint8_t *out,
                              size_t n, int decrypt) {
#ifdef FEW_BLOCKS_MAX
  /* A rest that would be a padded group goes to the few-blocks kernel. */
  const size_t rest = n % (2 * GROUP_BLOCKS);
  if (rest && rest <= FEW_BLOCKS_MAX) {
    n -= rest;
    FEW_BLOCKS(k, in + 8 * n, out + 8 * n, rest, decrypt);
    if (!n) return;
  }
#endif
  uint32_t rc[32][8];
  gostx__magma_sliced_round_consts(k, decrypt, rc);
  FN(walk)((const uint32_t(*)[8])rc, NULL, 0, k, in, out, n);
  gostx_memzero(rc, sizeof rc);
}

#ifdef V_ADD64
/* gostx__ctr_fill's 8-byte forms, V_BYTES / 8 counter blocks a register:
 * the counter as a native qword plus each lane's offset (in the moving half
 * alone for GOSTX__CTR_RIGHT and _LEFT, where a 32-bit add wraps within the
 * half as MGM's incr_r and incr_l do), each qword's bytes then reversed
 * into the block's big-endian order. The counter is secret (MGM's Y and
 * Z): it only meets adds, no branch or address. What is left past whole
 * registers goes to the generic fill, which steps ctr to the end. */
TARGET static void FN(ctr_fill)(uint8_t *dst, uint8_t ctr[8], unsigned inc, size_t count) {
  enum { L = V_BYTES / 8 };
  static const uint8_t rev[32] __attribute__((aligned(32))) = {
      7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
      7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8};
  const size_t whole = count - count % L;
  if (whole) {
    const unsigned shift = inc == GOSTX__CTR_LEFT ? 32 : 0;
    const int wide = inc == GOSTX__CTR_FULL;
    uint64_t offs[L];
    for (unsigned i = 0; i < L; i++) offs[i] = (uint64_t)i << shift;
    const uint64_t v = gostx_load64_be(ctr);
    const V step = V_SET1_64((uint64_t)L << shift), r = V_LOADA(rev);
    V x = wide ? V_ADD64(V_SET1_64(v), V_LOADU(offs)) : V_ADD32(V_SET1_64(v), V_LOADU(offs));
    for (size_t i = 0; i < whole; i += L) {
      V_STOREU(dst + 8 * i, V_SHUF(x, r));
      x = wide ? V_ADD64(x, step) : V_ADD32(x, step);
    }
    const uint64_t lo = v & 0xffffffffu, hi = v >> 32;
    const uint64_t next = wide                      ? v + whole
                          : inc == GOSTX__CTR_LEFT ? (uint64_t)(uint32_t)(hi + whole) << 32 | lo
                                                   : hi << 32 | (uint32_t)(lo + whole);
    gostx_store64_be(ctr, next);
  }
  gostx__ctr_fill(dst + 8 * whole, ctr, 8, inc, count - whole);
}
#define CTR_FILL FN(ctr_fill)
#else
#define CTR_FILL NULL
#endif

/* The block calls of an implementation table. A single block (the
 * sequential modes) goes to a one-block core, faster for it than a padded
 * group (docs/MAGMA.md): on x86-64 the general-register one
 * (magma_x86_64.c), elsewhere the portable one. */
#ifdef GOSTX_ARCH_X86_64
#define ONE_ENCRYPT(k, in, out) gostx__magma_x86_encrypt1((k), (in), (out))
#define ONE_DECRYPT(k, in, out) gostx__magma_x86_decrypt1((k), (in), (out))
#define ONE_IMIT16 gostx__magma_x86_imit16_words
#define ONE_CHAIN gostx__magma_x86_chain
#else
#define ONE_ENCRYPT(k, in, out) gostx_magma_portable.encrypt_blocks((k), (in), (out), 1)
#define ONE_DECRYPT(k, in, out) gostx_magma_portable.decrypt_blocks((k), (in), (out), 1)
#define ONE_IMIT16 gostx__magma_imit16_words
#define ONE_CHAIN gostx__magma_chain
#endif

/* Up to this many blocks the one-block core, block by block, beats one
 * zero-padded group: on a 64-block group two blocks (MGM's Y1 and Z1 of one
 * message: 270 against 410 ns on Zen 4); the 16- and 32-block groups cost
 * about two single blocks. */
#define ONE_BLOCKS_MAX (V_BYTES == 64 ? 2 : 1)

#ifdef FEW_BLOCKS_MAX
/* The includer's kernel for calls of 2..FEW_BLOCKS_MAX blocks
 * (magma_avx512.c); one block stays on the one-block core (136 against
 * 171 ns on Zen 4). */
static void FN(encrypt)(const gostx_magma_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  if (n > FEW_BLOCKS_MAX) FN(blocks)(k, in, out, n, 0);
  else if (n > 1) FEW_BLOCKS(k, in, out, n, 0);
  else if (n) ONE_ENCRYPT(k, in, out);
}

static void FN(decrypt)(const gostx_magma_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  if (n > FEW_BLOCKS_MAX) FN(blocks)(k, in, out, n, 1);
  else if (n > 1) FEW_BLOCKS(k, in, out, n, 1);
  else if (n) ONE_DECRYPT(k, in, out);
}
#else
static void FN(encrypt)(const gostx_magma_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  if (n > ONE_BLOCKS_MAX) FN(blocks)(k, in, out, n, 0);
  else for (size_t i = 0; i < n; i++) ONE_ENCRYPT(k, in + 8 * i, out + 8 * i);
}

static void FN(decrypt)(const gostx_magma_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  if (n > ONE_BLOCKS_MAX) FN(blocks)(k, in, out, n, 1);
  else for (size_t i = 0; i < n; i++) ONE_DECRYPT(k, in + 8 * i, out + 8 * i);
}
#endif

/* n blocks, block b under the schedule's lane b; k: keys[0] (S-box set,
 * byte convention); op: 0 encrypt, 1 decrypt, 2 the IMIT core. */
TARGET static void FN(mk_blocks)(const void *sched, const gostx_magma_key *k, const uint8_t *in,
                                 uint8_t *out, size_t n, int op) {
  FN(walk)(NULL, sched, op, k, in, out, n);
}

#undef ONE_BLOCKS_MAX
#undef FEW_BLOCKS_MAX
#undef FEW_BLOCKS
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
