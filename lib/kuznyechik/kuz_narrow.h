/* Kuznyechik's narrow kernel: one block per 256-bit vector, both 128-bit
 * halves working, constant time (no secret-dependent branch or address).
 * For calls of a few blocks and the sequential modes (CBC/CFB encryption,
 * OFB, OMAC), the key schedule, and CTR-ACPKM's key chain, where the
 * bitsliced batch would pad one block to a hundred. docs/KUZNYECHIK.md,
 * "Narrow path", has the method and the measurements.
 *
 * Included by kuz_avx2.c (V = __m256i) and kuz_ssse3.c (V = a pair of
 * __m128i), each of which defines first:
 *   V; NARROW_TARGET (the function attribute for its ISA);
 *   v_load(p)      the 32 bytes at p (32-byte aligned; half 0 = p[0..15]);
 *   v_block(p)     the 16 bytes at p (any alignment) in both halves;
 *   v_store(p, v)  half 0 of v to the 16 bytes at p;
 *   v_zero(), v_xor, v_and, v_set1_8(c), v_srl4 (each 16-bit lane >> 4),
 *   v_shuf(tbl, idx) (pshufb in each half), v_adds8 (signed saturating add),
 *   v_flip_hi() (0 in half 0, 0x80 in every byte of half 1);
 *   v_fold(v, y)   y ^ (half 0 ^ half 1 of v) in both halves;
 *   V_PIN(v)       an empty asm that keeps v in registers as computed.
 * Everything here is static: each including file gets its own copy. */
#ifndef GOSTX_KUZ_NARROW_H
#define GOSTX_KUZ_NARROW_H
#include <pthread.h>
#include <string.h>

#define N_INLINE static inline __attribute__((always_inline)) NARROW_TARGET
#define N_FN static NARROW_TARGET

/* Constants of the narrow kernel, built once from kuz_tables.h.
 * sbox[dir][h]: the S-box's rows as differences (see sbox_n): half 0 =
 *   row h ^ row h - 1 of pi (or pi^-1; row 0 itself for h = 0), half 1 =
 *   row h + 8 ^ row h + 7 (row 8 for h = 0).
 * sbias[h]: the signed bytes added to the index for difference h: -16 h in
 *   both halves (half 1's index has bit 7 flipped, so this is 128 - 16 (h + 8)
 *   on x ^ 0x80).
 * L (or L^-1) is the sum over output byte i, input byte j and basis element
 * k of (x_j * beta_k) moved to byte i, for the k in the coordinates of
 * M[i][j] over the basis beta (kuz_l_basis). prod[dir][s][0 / 1][n]: the
 * products n * beta_k and (16 n) * beta_k, half 0 for k = a_s and half 1 for
 * k = b_s (the eight k in four pairs), so one pair of nibble lookups gives
 * x * beta_a and x * beta_b. sel[dir][s][t]: vpshufb indices that move the
 * t-th term of each output byte out of those products (0x80: none, the byte
 * is zeroed), so one shuffle both selects and routes, and the terms of one
 * k take as many shuffles as the most terms any output byte has for that k.
 * The basis matters: over 1, 2, 4, .., 128 that is 15 for L (50 shuffles a
 * round), over kuz_l_basis 9..10 (39; the old masked diagonals: 136 ops). */
#define KUZ_N_SRC 4
#define KUZ_N_SEL 12
struct narrow_consts {
  _Alignas(32) uint8_t prod[2][KUZ_N_SRC][2][32];
  _Alignas(32) uint8_t sbox[2][8][32];
  _Alignas(32) int8_t sbias[8][32];
  _Alignas(32) uint8_t sel[2][KUZ_N_SRC][KUZ_N_SEL][32];
};
static struct narrow_consts nc;
static pthread_once_t nc_once = PTHREAD_ONCE_INIT;

/* A basis of GF(2^8) per direction, found by scripts/kuz_l_basis.py (hill
 * climbing; any basis gives the same bytes, this one the fewest shuffles),
 * and the shuffles per product pair that it needs, pairs ordered by need.
 * nc_init pairs the basis so; were a count too small, terms would be
 * dropped and every test would fail. */
static const uint8_t kuz_l_basis[2][8] = {{40, 97, 7, 187, 20, 96, 196, 3},
                                          {131, 3, 141, 187, 102, 45, 147, 44}};
static const unsigned kuz_n_sel[2][KUZ_N_SRC] = {{10, 10, 10, 9}, {11, 10, 9, 9}};

static void nc_init(void) {
  const uint8_t *pis[2] = {gostx__kuz_pi, gostx__kuz_pi_inv};
  const uint8_t(*mats[2])[16] = {gostx__kuz_lmatrix_fwd, gostx__kuz_lmatrix_inv};
  for (unsigned dir = 0; dir < 2; dir++)
    for (unsigned h = 0; h < 8; h++) {
      for (unsigned n = 0; n < 16; n++) {
        const uint8_t *row = pis[dir] + 16 * h + n, *row8 = row + 128;
        nc.sbox[dir][h][n] = (uint8_t)(row[0] ^ (h ? row[-16] : 0));
        nc.sbox[dir][h][16 + n] = (uint8_t)(row8[0] ^ (h ? row8[-16] : 0));
      }
    }
  for (unsigned h = 0; h < 8; h++) memset(nc.sbias[h], -16 * (int)h, 32);
  for (unsigned dir = 0; dir < 2; dir++) {
    /* coord[c]: the coordinates of c over the basis (bit k: beta_k). */
    uint8_t coord[256];
    for (unsigned m = 0; m < 256; m++) {
      unsigned v = 0;
      for (unsigned k = 0; k < 8; k++)
        if (m >> k & 1) v ^= kuz_l_basis[dir][k];
      coord[v] = (uint8_t)m;
    }
    /* need[k]: the most terms of beta_k in one output byte
     * (mats[dir][i][j]: the coefficient of input byte j in output byte i). */
    unsigned need[8], order[8];
    for (unsigned k = 0; k < 8; k++) {
      need[k] = 0;
      order[k] = k;
      for (unsigned i = 0; i < 16; i++) {
        unsigned t = 0;
        for (unsigned j = 0; j < 16; j++) t += (coord[mats[dir][i][j]] >> k) & 1;
        if (t > need[k]) need[k] = t;
      }
    }
    for (unsigned a = 0; a < 8; a++) /* by need, most first (insertion sort) */
      for (unsigned b = a; b > 0 && need[order[b]] > need[order[b - 1]]; b--) {
        unsigned t = order[b];
        order[b] = order[b - 1];
        order[b - 1] = t;
      }
    memset(nc.sel[dir], 0x80, sizeof nc.sel[dir]);
    for (unsigned s = 0; s < KUZ_N_SRC; s++)
      for (unsigned half = 0; half < 2; half++) {
        const unsigned k = order[2 * s + half];
        const uint8_t beta = kuz_l_basis[dir][k];
        for (unsigned n = 0; n < 16; n++) {
          nc.prod[dir][s][0][16 * half + n] = gostx__kuz_gf_mul((uint8_t)n, beta);
          nc.prod[dir][s][1][16 * half + n] = gostx__kuz_gf_mul((uint8_t)(n << 4), beta);
        }
        for (unsigned i = 0; i < 16; i++) {
          unsigned t = 0;
          for (unsigned j = 0; j < 16; j++)
            if ((coord[mats[dir][i][j]] >> k) & 1 && t < kuz_n_sel[dir][s])
              nc.sel[dir][s][t++][16 * half + i] = (uint8_t)j;
        }
      }
  }
}

#define LD(p) v_load((const uint8_t *)(p))

/* &nc, hidden from the optimizer: without this GCC hoists all ~100 constant
 * loads out of the round loop and spills them to the stack (4 KiB copied per
 * call); with it they stay memory operands, which are free here. */
N_INLINE const struct narrow_consts *consts(void) {
  const struct narrow_consts *c = &nc;
  __asm__("" : "+r"(c));
  return c;
}

/* XOR of v[0..7] as a balanced tree (short dependency chains). */
#define XOR_TREE8(v) \
  v_xor(v_xor(v_xor((v)[0], (v)[1]), v_xor((v)[2], (v)[3])), v_xor(v_xor((v)[4], (v)[5]), v_xor((v)[6], (v)[7])))

/* pi or pi^-1 on every byte, XOR y (x has the same block in both halves).
 * The rows by thresholds: pi(x) = XOR of D_h[x & 15] over h <= x >> 4 (D_0 =
 * row 0, D_h = row h ^ row h - 1), so a difference is wanted exactly when
 * x >= 16 h, and a signed saturating add makes that test and the index at
 * once: pshufb reads bit 7 (set: zero) and the low nibble, and the sum
 * x - 16 h keeps x's low nibble. Half 0 takes h = 0..7 on x as a signed byte
 * (x - 16 h >= 0 iff 16 h <= x < 128, never saturating upwards); half 1
 * takes h = 8..15 on x ^ 0x80, i.e. x - 128 (x - 16 h >= 0 iff x >= 16 h).
 * Half 0 then holds the sum for x < 128 and half 1 for x >= 128; the fold
 * adds them. Per row an add and a shuffle (the old row select was a
 * shuffle, a compare with the high nibble and an AND: 26 ops for S, not 36). */
N_INLINE V sbox_n(V x, unsigned dir, V y) {
  const struct narrow_consts *c = consts();
  const V idx = v_xor(x, v_flip_hi());
  V v[8];
  v[0] = v_shuf(LD(c->sbox[dir][0]), idx);
  for (unsigned h = 1; h < 8; h++) v[h] = v_shuf(LD(c->sbox[dir][h]), v_adds8(idx, LD(c->sbias[h])));
  return v_fold(XOR_TREE8(v), y);
}

/* L or L^-1, XOR y: four product pairs, each followed by its
 * select-and-route shuffles (two accumulators per pair to keep the XOR
 * chains short). */
N_INLINE V linear_n(V x, unsigned dir, V y) {
  const struct narrow_consts *c = consts();
  const V nib = v_set1_8(0x0f);
  const V lo = v_and(x, nib);
  const V hi = v_and(v_srl4(x), nib);
  V acc[KUZ_N_SRC];
#pragma GCC unroll 4
  for (unsigned s = 0; s < KUZ_N_SRC; s++) {
    const V p = v_xor(v_shuf(LD(c->prod[dir][s][0]), lo), v_shuf(LD(c->prod[dir][s][1]), hi));
    V u = v_shuf(p, LD(c->sel[dir][s][0]));
    V v = v_shuf(p, LD(c->sel[dir][s][1]));
#pragma GCC unroll 8
    for (unsigned t = 2; t + 1 < kuz_n_sel[dir][s]; t += 2) {
      u = v_xor(u, v_shuf(p, LD(c->sel[dir][s][t])));
      v = v_xor(v, v_shuf(p, LD(c->sel[dir][s][t + 1])));
      /* as written: reassociated, GCC made all 39 shuffles first and
       * spilled half of them to the stack */
      V_PIN(u);
      V_PIN(v);
    }
    if (kuz_n_sel[dir][s] % 2) u = v_xor(u, v_shuf(p, LD(c->sel[dir][s][kuz_n_sel[dir][s] - 1])));
    acc[s] = v_xor(u, v);
  }
  return v_fold(v_xor(v_xor(acc[0], acc[1]), v_xor(acc[2], acc[3])), y);
}

/* Two independent blocks per loop pass so that their dependency chains
 * overlap; a lone block runs the same code with one chain. The pair takes a
 * round-key array per block (ka, kb: K1..K10), equal for a one-key call and
 * distinct for the multi-key path. */
N_INLINE void enc_pair_n(const uint8_t (*ka)[16], const uint8_t (*kb)[16], const uint8_t *in,
                         uint8_t *out) {
  V a = v_xor(v_block(in), v_block(ka[0]));
  V b = v_xor(v_block(in + 16), v_block(kb[0]));
  for (unsigned r = 1; r < 10; r++) {
    a = linear_n(sbox_n(a, 0, v_zero()), 0, v_block(ka[r]));
    b = linear_n(sbox_n(b, 0, v_zero()), 0, v_block(kb[r]));
  }
  v_store(out, a);
  v_store(out + 16, b);
}

/* Encryption of a block whose first round key K1 is already XORed in (the
 * chain folds K1 into its input XOR): rounds 2..10. */
N_INLINE V enc_keyed_n(const uint8_t (*k)[16], V a) {
  for (unsigned r = 1; r < 10; r++) a = linear_n(sbox_n(a, 0, v_zero()), 0, v_block(k[r]));
  return a;
}

N_INLINE void enc_one_n(const uint8_t (*k)[16], const uint8_t *in, uint8_t *out) {
  v_store(out, enc_keyed_n(k, v_xor(v_block(in), v_block(k[0]))));
}

N_INLINE void dec_pair_n(const uint8_t (*ka)[16], const uint8_t (*kb)[16], const uint8_t *in,
                         uint8_t *out) {
  V a = v_xor(v_block(in), v_block(ka[9]));
  V b = v_xor(v_block(in + 16), v_block(kb[9]));
  for (unsigned r = 9; r-- > 0;) {
    a = sbox_n(linear_n(a, 1, v_zero()), 1, v_block(ka[r]));
    b = sbox_n(linear_n(b, 1, v_zero()), 1, v_block(kb[r]));
  }
  v_store(out, a);
  v_store(out + 16, b);
}

N_INLINE void dec_one_n(const uint8_t (*k)[16], const uint8_t *in, uint8_t *out) {
  V a = v_xor(v_block(in), v_block(k[9]));
  for (unsigned r = 9; r-- > 0;) a = sbox_n(linear_n(a, 1, v_zero()), 1, v_block(k[r]));
  v_store(out, a);
}

N_FN void encrypt_narrow(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  pthread_once(&nc_once, nc_init);
  for (; n >= 2; n -= 2, in += 32, out += 32) enc_pair_n(k->ek, k->ek, in, out);
  if (n) enc_one_n(k->ek, in, out);
}

N_FN void decrypt_narrow(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  pthread_once(&nc_once, nc_init);
  for (; n >= 2; n -= 2, in += 32, out += 32) dec_pair_n(k->ek, k->ek, in, out);
  if (n) dec_one_n(k->ek, in, out);
}

/* One-block chains: CBC and CFB encryption, OFB and OMAC (the `chain`
 * entry). The state stays in a register from block to block (through
 * gostx__cipher_chain's generic loop each block was a copy, an XOR in
 * memory and a whole block call, ~10 % of a block). */
N_FN void chain_narrow(const gostx_kuz_key *k, int op, uint8_t s[16], const uint8_t *in, uint8_t *out,
                       size_t n) {
  pthread_once(&nc_once, nc_init);
  const V k1 = v_block(k->ek[0]);
  V x = v_block(s);
  for (size_t i = 0; i < n; i++, in += 16) {
    const V p = v_block(in); /* before any store: in may equal out */
    if (op == GOSTX__CHAIN_CBC || op == GOSTX__CHAIN_MAC) x = v_xor(x, v_xor(p, k1));
    else x = v_xor(x, k1);
    x = enc_keyed_n(k->ek, x);
    if (op == GOSTX__CHAIN_CFB) x = v_xor(x, p);
    if (op == GOSTX__CHAIN_OFB) v_store(out + 16 * i, v_xor(x, p));
    else if (op != GOSTX__CHAIN_MAC) v_store(out + 16 * i, x);
  }
  v_store(s, x);
}

/* Key schedule: the 32 Feistel rounds (a1, a0) -> (L(S(a1 ^ C_i)) ^ a0, a1)
 * on the one-block S and L (the portable bitsliced round costs ~15x more
 * for one block), and dk = L^-1(ek): what CTR-ACPKM pays per section
 * (kuz_avx2.c's section kernel skips dk but for its last key). */
N_FN void expand_ek(uint8_t ek[10][16], const uint8_t key[32]) {
  V a1 = v_block(key), a0 = v_block(key + 16);
  v_store(ek[0], a1);
  v_store(ek[1], a0);
  for (unsigned i = 0; i < 32; i++) {
    const V t = linear_n(sbox_n(v_xor(a1, v_block(gostx__kuz_c[i])), 0, v_zero()), 0, a0);
    a0 = a1;
    a1 = t;
    if (i % 8 == 7) {
      v_store(ek[(i + 1) / 4], a1);
      v_store(ek[(i + 1) / 4 + 1], a0);
    }
  }
}

N_FN void expand_dk(uint8_t dk[10][16], const uint8_t ek[10][16]) {
  for (unsigned r = 0; r < 10; r++) v_store(dk[r], linear_n(v_block(ek[r]), 1, v_zero()));
}

N_FN void expand_narrow(gostx_kuz_key *k, const uint8_t key[32]) {
  pthread_once(&nc_once, nc_init);
  expand_ek(k->ek, key);
  expand_dk(k->dk, k->ek);
}

#endif
