/* Kuznyechik portable core: constant time, endian-neutral C11.
 *
 * Nothing here branches on or indexes memory with secret data (keys, blocks,
 * intermediate state). The S-box is never looked up: pi and pi^-1 are Boolean
 * circuits on bit planes (~230 and ~190 word operations for 64 S-box
 * evaluations), built from the GF(2^4) structure of pi (Biryukov, Perrin,
 * Udovenko 2016) and checked on all inputs by scripts/gen_kuz_tables.py, which
 * writes them with the other constants into kuz_tables.h. L uses its
 * GF(2)-linearity; its tables are indexed only by public positions.
 *
 * Three layouts, chosen by the (public) block count:
 *   - >= KUZ_BS_MIN blocks: fully bitsliced, 64 blocks per batch (s[j][b] bit
 *     n = bit b of byte j of block n). 16 S circuits per round; L is R applied
 *     16 times, where R renames words and l costs ~245 XORs.
 *   - 2..KUZ_BS_MIN-1 blocks: four blocks as eight planes (bit 16*blk + j of
 *     plane b = bit b of byte j). One S circuit per round; L by its 16
 *     diagonals: lanes times GF(2^8) constants with masks, then a rotation
 *     inside each 16-lane group.
 *   - one block: S on 16-lane planes, L as the XOR of the 128 GF(2) columns
 *     selected with masks by the bits of the block.
 * Measured on one loaded core of a 2-core AMD EPYC VM: ~80 MB/s for 64-block
 * batches, ~18 MB/s for 4..13 blocks, ~9.5 MB/s for lone blocks; set_key
 * ~8 us. The key schedule runs on the one-block path. */
#include "impl.h"
#include "kuz_tables.h"

#define REP16 0x0001000100010001ULL /* a 16-lane value copied to four groups */

/* 8x8 bit matrix transpose inside a word: bit k of byte b <-> bit b of byte k. */
static inline uint64_t transpose8(uint64_t x) {
  uint64_t t;
  t = (x ^ (x >> 7)) & 0x00aa00aa00aa00aaULL;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000cccc0000ccccULL;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000f0f0f0f0ULL;
  x ^= t ^ (t << 28);
  return x;
}

/* 8x8 byte matrix transpose across eight words: byte t of w[b] <-> byte b of w[t]. */
static inline void transpose_bytes(uint64_t w[8]) {
  static const uint64_t mask[3] = {0x00000000ffffffffULL, 0x0000ffff0000ffffULL,
                                   0x00ff00ff00ff00ffULL};
  for (unsigned st = 0; st < 3; st++) {
    unsigned s = 4u >> st, sh = 8 * s;
    for (unsigned i = 0; i < 8; i++) {
      if (i & s) continue;
      uint64_t t = ((w[i] >> sh) ^ w[i + s]) & mask[st];
      w[i + s] ^= t;
      w[i] ^= t << sh;
    }
  }
}

/* 64 bytes -> planes: byte (8t + k) of the input is lane 8t + k. */
static inline void to_planes(uint64_t p[8], const uint8_t in[64]) {
  for (unsigned t = 0; t < 8; t++) p[t] = transpose8(gostx_load64_le(in + 8 * t));
  transpose_bytes(p);
}

static inline void from_planes(uint8_t out[64], uint64_t p[8]) {
  transpose_bytes(p);
  for (unsigned t = 0; t < 8; t++) gostx_store64_le(out + 8 * t, transpose8(p[t]));
}

/* One 16-byte string -> planes, replicated to all four lane groups. */
static inline void block_planes(uint64_t p[8], const uint8_t in[16]) {
  uint64_t w0 = transpose8(gostx_load64_le(in)), w1 = transpose8(gostx_load64_le(in + 8));
  for (unsigned b = 0; b < 8; b++)
    p[b] = (((w0 >> (8 * b)) & 0xff) | (((w1 >> (8 * b)) & 0xff) << 8)) * REP16;
}

/* Planes -> the 16-byte string in lane group 0. */
static inline void planes_block(uint8_t out[16], const uint64_t p[8]) {
  uint64_t w0 = 0, w1 = 0;
  for (unsigned b = 0; b < 8; b++) {
    w0 |= (p[b] & 0xff) << (8 * b);
    w1 |= ((p[b] >> 8) & 0xff) << (8 * b);
  }
  gostx_store64_le(out, transpose8(w0));
  gostx_store64_le(out + 8, transpose8(w1));
}

/* Lanes j of each 16-lane group move to lane (j - d) mod 16. */
static inline uint64_t rot_lanes(uint64_t z, unsigned d) {
  uint64_t lo = REP16 * ((1u << (16 - d)) - 1);
  return ((z >> d) & lo) | ((z << (16 - d)) & ~lo);
}

/* y = M x for the matrix given by its diagonal masks (L or L^-1). */
static void linear_planes(uint64_t p[8], const uint64_t mask[16][8]) {
  uint64_t x[8][8], y[8] = {0};
  for (unsigned b = 0; b < 8; b++) x[0][b] = p[b];
  /* x[k] = x[k-1] * 2 modulo x^8 + x^7 + x^6 + x + 1 */
  for (unsigned k = 1; k < 8; k++) {
    const uint64_t *a = x[k - 1];
    uint64_t *r = x[k];
    r[0] = a[7];
    r[1] = a[0] ^ a[7];
    r[2] = a[1];
    r[3] = a[2];
    r[4] = a[3];
    r[5] = a[4];
    r[6] = a[5] ^ a[7];
    r[7] = a[6] ^ a[7];
  }
  for (unsigned d = 0; d < 16; d++) {
    const uint64_t *m = mask[d];
    for (unsigned b = 0; b < 8; b++) {
      uint64_t z = (x[0][b] & m[0]) ^ (x[1][b] & m[1]) ^ (x[2][b] & m[2]) ^ (x[3][b] & m[3]) ^
                   (x[4][b] & m[4]) ^ (x[5][b] & m[5]) ^ (x[6][b] & m[6]) ^ (x[7][b] & m[7]);
      y[b] ^= d ? rot_lanes(z, d) : z;
    }
  }
  for (unsigned b = 0; b < 8; b++) p[b] = y[b];
}

static inline void xor_planes(uint64_t p[8], const uint64_t k[8]) {
  for (unsigned b = 0; b < 8; b++) p[b] ^= k[b];
}

static void encrypt_planes(uint64_t p[8], const uint64_t kp[10][8]) {
  for (unsigned r = 0; r < 9; r++) {
    xor_planes(p, kp[r]);
    kuz_sbox_fwd(p);
    linear_planes(p, gostx__kuz_lmask_fwd);
  }
  xor_planes(p, kp[9]);
}

static void decrypt_planes(uint64_t p[8], const uint64_t kp[10][8]) {
  xor_planes(p, kp[9]);
  for (unsigned r = 9; r-- > 0;) {
    linear_planes(p, gostx__kuz_lmask_inv);
    kuz_sbox_inv(p);
    xor_planes(p, kp[r]);
  }
}

/* ---- 64 blocks at a time, fully bitsliced ----
 * s[j][b] bit n is bit b of byte j of block n. Byte positions are separate
 * words, so L needs no lane movement: it is R applied 16 times, and R only
 * moves the window by one byte and computes l(a). The state lives in a
 * buffer of 32 slots: between rounds in slots 0..15; X and S write 16..31;
 * R step k reads the window at slots 16-k..31-k and writes slot 15-k, so the
 * state is back in 0..15 (decryption: L^-1 appends upward into 16..31, then
 * S^-1 and X write 0..15). Every window access is a constant offset from one
 * pointer. (Until 2026-11-22 the 16 bytes were a ring with a runtime head:
 * each of the ~128 window accesses of a step was an address computation.)
 * l = sum_j c_j a_j with c = (148, 32, 133, 16, 194, 192, 1, 251, 1, 192, 194,
 * 16, 133, 32, 148, 1) is symmetric, so bytes with equal coefficients are
 * added first (u_0..u_7), then grouped by coefficient bit (t_k = sum of the
 * u_i whose coefficient has bit k) and l = sum_k 2^k t_k by Horner's rule:
 * about 245 XORs per R step for 64 blocks. (The vector files use the
 * generated 174-XOR program instead; this file keeps an independent form.) */

/* One R step (inv = 0: window w[0..15], l into w[-1]) or R^-1 step
 * (inv = 1: window w[1..15], w[0], l into w[16]). */
static inline void l_step(uint64_t (*w)[8], int inv) {
  const uint64_t *x[16];
  for (unsigned i = 0; i < 16; i++) x[i] = inv ? w[(i + 1) & 15] : w[i];
  uint64_t t[8][8];
  for (unsigned b = 0; b < 8; b++) {
    uint64_t u0 = x[0][b] ^ x[14][b];           /* 148 = bits 7,4,2 */
    uint64_t u1 = x[1][b] ^ x[13][b];           /*  32 = bit 5 */
    uint64_t u2 = x[2][b] ^ x[12][b];           /* 133 = bits 7,2,0 */
    uint64_t u3 = x[3][b] ^ x[11][b];           /*  16 = bit 4 */
    uint64_t u4 = x[4][b] ^ x[10][b];           /* 194 = bits 7,6,1 */
    uint64_t u5 = x[5][b] ^ x[9][b];            /* 192 = bits 7,6 */
    uint64_t u6 = x[6][b] ^ x[8][b] ^ x[15][b]; /*   1 = bit 0 */
    uint64_t u7 = x[7][b];                      /* 251 = bits 7,6,5,4,3,1,0 */
    uint64_t u02 = u0 ^ u2, u45 = u4 ^ u5 ^ u7;
    t[0][b] = u2 ^ u6 ^ u7;
    t[1][b] = u4 ^ u7;
    t[2][b] = u02;
    t[3][b] = u7;
    t[4][b] = u0 ^ u3 ^ u7;
    t[5][b] = u1 ^ u7;
    t[6][b] = u45;
    t[7][b] = u02 ^ u45;
  }
  /* acc = t7; acc = acc * 2 + t_k for k = 6..0 (p(x) = x^8 + x^7 + x^6 + x + 1) */
  uint64_t a[8];
  for (unsigned b = 0; b < 8; b++) a[b] = t[7][b];
  for (unsigned k = 7; k-- > 0;) {
    const uint64_t h = a[7];
    a[7] = a[6] ^ h ^ t[k][7];
    a[6] = a[5] ^ h ^ t[k][6];
    a[5] = a[4] ^ t[k][5];
    a[4] = a[3] ^ t[k][4];
    a[3] = a[2] ^ t[k][3];
    a[2] = a[1] ^ t[k][2];
    a[1] = a[0] ^ h ^ t[k][1];
    a[0] = h ^ t[k][0];
  }
  uint64_t *dst = inv ? w[16] : w[-1];
  for (unsigned b = 0; b < 8; b++) dst[b] = a[b];
}

/* Round key byte j, bit b, as an all-zeros or all-ones word. */
static inline void xor_key_bs(uint64_t s[16][8], const uint8_t key[16]) {
  for (unsigned j = 0; j < 16; j++)
    for (unsigned b = 0; b < 8; b++) s[j][b] ^= 0 - (uint64_t)((key[j] >> b) & 1);
}

/* Round key r: one key's (k, broadcast as masks) or, for a key per block,
 * the bit planes pl[r] of the batch whose block n is block n's round key
 * (the layout is linear in the blocks: XORing the planes is the key XOR). */
static inline void xor_round_key(uint64_t s[16][8], const gostx_kuz_key *k,
                                 const uint64_t (*pl)[16][8], unsigned r) {
  if (!pl) {
    xor_key_bs(s, k->ek[r]);
    return;
  }
  for (unsigned j = 0; j < 16; j++)
    for (unsigned b = 0; b < 8; b++) s[j][b] ^= pl[r][j][b];
}

static void encrypt_bs(uint64_t s[32][8], const gostx_kuz_key *k, const uint64_t (*pl)[16][8]) {
  for (unsigned r = 0; r < 9; r++) {
    for (unsigned j = 0; j < 16; j++)
      for (unsigned b = 0; b < 8; b++) s[16 + j][b] = s[j][b];
    xor_round_key(s + 16, k, pl, r);
    for (unsigned j = 0; j < 16; j++) kuz_sbox_fwd(s[16 + j]);
    for (unsigned i = 0; i < 16; i++) l_step(s + 16 - i, 0);
  }
  xor_round_key(s, k, pl, 9);
}

static void decrypt_bs(uint64_t s[32][8], const gostx_kuz_key *k, const uint64_t (*pl)[16][8]) {
  xor_round_key(s, k, pl, 9);
  for (unsigned r = 9; r-- > 0;) {
    for (unsigned i = 0; i < 16; i++) l_step(s + i, 1);
    for (unsigned j = 0; j < 16; j++) {
      kuz_sbox_inv(s[16 + j]);
      for (unsigned b = 0; b < 8; b++) s[j][b] = s[16 + j][b];
    }
    xor_round_key(s, k, pl, r);
  }
}

/* Up to 64 blocks <-> s (lane n = block n; lanes past nblocks are zero and
 * not stored). Words of eight blocks form 8x8 byte matrices: a byte
 * transpose gathers byte j of the eight blocks into one word, then the same
 * bit/byte transposes as to_planes make the planes. */
static void load_bs(uint64_t s[16][8], const uint8_t *in, size_t nblocks) {
  for (unsigned t = 0; t < 8; t++) {
    uint64_t a[8], b[8];
    for (unsigned r = 0; r < 8; r++) {
      size_t n = 8 * t + r;
      a[r] = n < nblocks ? gostx_load64_le(in + 16 * n) : 0;
      b[r] = n < nblocks ? gostx_load64_le(in + 16 * n + 8) : 0;
    }
    transpose_bytes(a);
    transpose_bytes(b);
    for (unsigned j = 0; j < 8; j++) {
      s[j][t] = transpose8(a[j]);
      s[j + 8][t] = transpose8(b[j]);
    }
  }
  for (unsigned j = 0; j < 16; j++) transpose_bytes(s[j]);
}

static void store_bs(uint8_t *out, uint64_t s[16][8], size_t nblocks) {
  for (unsigned j = 0; j < 16; j++) transpose_bytes(s[j]);
  for (unsigned t = 0; t < 8; t++) {
    uint64_t a[8], b[8];
    for (unsigned j = 0; j < 8; j++) {
      a[j] = transpose8(s[j][t]);
      b[j] = transpose8(s[j + 8][t]);
    }
    transpose_bytes(a);
    transpose_bytes(b);
    for (unsigned r = 0; r < 8; r++) {
      size_t n = 8 * t + r;
      if (n >= nblocks) break;
      gostx_store64_le(out + 16 * n, a[r]);
      gostx_store64_le(out + 16 * n + 8, b[r]);
    }
  }
}

/* ---- One block: S on 16-lane planes, L by its GF(2) columns ----
 * A lone block wastes 48 of the 64 plane lanes, and the diagonal L costs the
 * same for one block as for four, so one block takes L as the XOR of the 128
 * columns selected (by masks) by its bits: cheaper than either for n = 1. */

/* A string as two little-endian words <-> 16-lane planes (no replication). */
static inline void words_planes(uint64_t p[8], uint64_t w0, uint64_t w1) {
  w0 = transpose8(w0);
  w1 = transpose8(w1);
  for (unsigned b = 0; b < 8; b++) p[b] = ((w0 >> (8 * b)) & 0xff) | (((w1 >> (8 * b)) & 0xff) << 8);
}

static inline void planes_words(const uint64_t p[8], uint64_t *w0, uint64_t *w1) {
  uint64_t a = 0, c = 0;
  for (unsigned b = 0; b < 8; b++) {
    a |= (p[b] & 0xff) << (8 * b);
    c |= ((p[b] >> 8) & 0xff) << (8 * b);
  }
  *w0 = transpose8(a);
  *w1 = transpose8(c);
}

/* (w0, w1) = L(planes p): bit j of plane b is bit b of byte j. */
static inline void l_columns_planes(const uint64_t p[8], uint64_t *w0, uint64_t *w1) {
  uint64_t y0 = 0, y1 = 0;
  for (unsigned j = 0; j < 16; j++)
    for (unsigned b = 0; b < 8; b++) {
      uint64_t m = 0 - ((p[b] >> j) & 1);
      y0 ^= m & gostx__kuz_lcol_fwd[8 * j + b][0];
      y1 ^= m & gostx__kuz_lcol_fwd[8 * j + b][1];
    }
  *w0 = y0;
  *w1 = y1;
}

/* (w0, w1) = L^-1(w0, w1): bit q of the words is bit q % 8 of byte q / 8. */
static inline void l_inv_columns(uint64_t *w0, uint64_t *w1) {
  uint64_t y0 = 0, y1 = 0, a = *w0, c = *w1;
  for (unsigned q = 0; q < 64; q++) {
    uint64_t m = 0 - ((a >> q) & 1), n = 0 - ((c >> q) & 1);
    y0 ^= (m & gostx__kuz_lcol_inv[q][0]) ^ (n & gostx__kuz_lcol_inv[64 + q][0]);
    y1 ^= (m & gostx__kuz_lcol_inv[q][1]) ^ (n & gostx__kuz_lcol_inv[64 + q][1]);
  }
  *w0 = y0;
  *w1 = y1;
}

/* LSX[k](w): the encryption round and the key schedule's F. */
static inline void lsx1(uint64_t *w0, uint64_t *w1, uint64_t k0, uint64_t k1) {
  uint64_t p[8];
  words_planes(p, *w0 ^ k0, *w1 ^ k1);
  kuz_sbox_fwd(p);
  l_columns_planes(p, w0, w1);
}

static void encrypt1(const gostx_kuz_key *k, const uint8_t in[16], uint8_t out[16]) {
  uint64_t w0 = gostx_load64_le(in), w1 = gostx_load64_le(in + 8);
  for (unsigned r = 0; r < 9; r++)
    lsx1(&w0, &w1, gostx_load64_le(k->ek[r]), gostx_load64_le(k->ek[r] + 8));
  gostx_store64_le(out, w0 ^ gostx_load64_le(k->ek[9]));
  gostx_store64_le(out + 8, w1 ^ gostx_load64_le(k->ek[9] + 8));
}

static void decrypt1(const gostx_kuz_key *k, const uint8_t in[16], uint8_t out[16]) {
  uint64_t w0 = gostx_load64_le(in) ^ gostx_load64_le(k->ek[9]);
  uint64_t w1 = gostx_load64_le(in + 8) ^ gostx_load64_le(k->ek[9] + 8);
  uint64_t p[8];
  for (unsigned r = 9; r-- > 0;) {
    l_inv_columns(&w0, &w1);
    words_planes(p, w0, w1);
    kuz_sbox_inv(p);
    planes_words(p, &w0, &w1);
    w0 ^= gostx_load64_le(k->ek[r]);
    w1 ^= gostx_load64_le(k->ek[r] + 8);
  }
  gostx_store64_le(out, w0);
  gostx_store64_le(out + 8, w1);
}

/* From this many blocks on, a (partly empty) 64-lane bitsliced batch is
 * cheaper than 4-block plane batches (measured; see the file comment). */
#ifndef KUZ_BS_MIN
#define KUZ_BS_MIN 14
#endif

typedef void (*one_fn)(const gostx_kuz_key *k, const uint8_t in[16], uint8_t out[16]);
typedef void (*planes_fn)(uint64_t p[8], const uint64_t kp[10][8]);
typedef void (*bs_fn)(uint64_t s[32][8], const gostx_kuz_key *k, const uint64_t (*pl)[16][8]);

static void run_blocks(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t nblocks,
                       planes_fn fn, bs_fn bfn, one_fn ofn) {
  uint64_t kp[10][8], p[8];
  if (nblocks >= KUZ_BS_MIN) {
    uint64_t s[32][8]; /* the state in slots 0..15, see encrypt_bs */
    while (nblocks >= KUZ_BS_MIN) {
      size_t n = nblocks < 64 ? nblocks : 64;
      load_bs(s, in, n);
      bfn(s, k, NULL);
      store_bs(out, s, n);
      nblocks -= n;
      in += 16 * n;
      out += 16 * n;
    }
    gostx_memzero(s, sizeof s);
  }
  if (nblocks >= 2) {
    for (unsigned r = 0; r < 10; r++) block_planes(kp[r], k->ek[r]);
    for (; nblocks >= 4; nblocks -= 4, in += 64, out += 64) {
      to_planes(p, in);
      fn(p, (const uint64_t(*)[8])kp);
      from_planes(out, p);
    }
  }
  if (nblocks == 1) {
    ofn(k, in, out);
  } else if (nblocks) {
    uint8_t buf[64] = {0};
    memcpy(buf, in, 16 * nblocks);
    to_planes(p, buf);
    fn(p, (const uint64_t(*)[8])kp);
    from_planes(buf, p);
    memcpy(out, buf, 16 * nblocks);
    gostx_memzero(buf, sizeof buf);
  }
  /* kp may be partly unset when it was not needed; wiping it all is harmless */
  gostx_memzero(kp, sizeof kp);
  gostx_memzero(p, sizeof p);
}

void gostx__kuz_portable_encrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                                 size_t nblocks) {
  run_blocks(k, in, out, nblocks, encrypt_planes, encrypt_bs, encrypt1);
}

void gostx__kuz_portable_decrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                                 size_t nblocks) {
  run_blocks(k, in, out, nblocks, decrypt_planes, decrypt_bs, decrypt1);
}

/* ---- Single transforms (tests, key schedule helpers) ---- */

void gostx__kuz_S(uint8_t out[16], const uint8_t in[16]) {
  uint64_t p[8];
  block_planes(p, in);
  kuz_sbox_fwd(p);
  planes_block(out, p);
}

void gostx__kuz_S_inv(uint8_t out[16], const uint8_t in[16]) {
  uint64_t p[8];
  block_planes(p, in);
  kuz_sbox_inv(p);
  planes_block(out, p);
}

void gostx__kuz_L(uint8_t out[16], const uint8_t in[16]) {
  uint64_t p[8], w0, w1;
  words_planes(p, gostx_load64_le(in), gostx_load64_le(in + 8));
  l_columns_planes(p, &w0, &w1);
  gostx_store64_le(out, w0);
  gostx_store64_le(out + 8, w1);
}

void gostx__kuz_L_inv(uint8_t out[16], const uint8_t in[16]) {
  uint64_t w0 = gostx_load64_le(in), w1 = gostx_load64_le(in + 8);
  l_inv_columns(&w0, &w1);
  gostx_store64_le(out, w0);
  gostx_store64_le(out + 8, w1);
}

/* l(a_15..a_0): GF(2^8) products by the public coefficients, computed with
 * masks (no data-dependent branch or index). */
static uint8_t lsum(const uint8_t a[16]) {
  static const uint8_t lc[16] = {148, 32, 133, 16, 194, 192, 1, 251,
                                 1,   192, 194, 16, 133, 32, 148, 1};
  unsigned s = 0;
  for (unsigned j = 0; j < 16; j++) {
    unsigned x = a[j];
    for (unsigned b = 0; b < 8; b++) {
      if (lc[j] >> b & 1) s ^= x; /* branch on the public coefficient only */
      x = ((x << 1) ^ (0x1c3u & (0u - (x >> 7)))) & 0xff;
    }
  }
  return (uint8_t)s;
}

void gostx__kuz_R(uint8_t out[16], const uint8_t in[16]) {
  uint8_t t[16];
  t[0] = lsum(in);
  memcpy(t + 1, in, 15);
  memcpy(out, t, 16);
}

void gostx__kuz_R_inv(uint8_t out[16], const uint8_t in[16]) {
  uint8_t t[16];
  memcpy(t, in + 1, 15);
  t[15] = in[0];
  t[15] = lsum(t);
  memcpy(out, t, 16);
}

void gostx__kuz_C(uint8_t out[16], unsigned i) {
  if (i >= 1 && i <= 32) memcpy(out, gostx__kuz_c[i - 1], 16);
  else memset(out, 0, 16);
}

/* (K_{2i+1}, K_{2i+2}) = F[C_{8i}]..F[C_{8i-7}](K_{2i-1}, K_{2i}),
 * F[c](a1, a0) = (L S(a1 ^ c) ^ a0, a1), on the one-block path. */
void gostx__kuz_expand(uint8_t rk[10][16], const uint8_t key[32]) {
  uint64_t a1_0 = gostx_load64_le(key), a1_1 = gostx_load64_le(key + 8);
  uint64_t a0_0 = gostx_load64_le(key + 16), a0_1 = gostx_load64_le(key + 24);
  memcpy(rk[0], key, 16);
  memcpy(rk[1], key + 16, 16);
  for (unsigned i = 0; i < 32; i++) {
    uint64_t t0 = a1_0, t1 = a1_1;
    lsx1(&t0, &t1, gostx_load64_le(gostx__kuz_c[i]), gostx_load64_le(gostx__kuz_c[i] + 8));
    t0 ^= a0_0;
    t1 ^= a0_1;
    a0_0 = a1_0;
    a0_1 = a1_1;
    a1_0 = t0;
    a1_1 = t1;
    if (i % 8 == 7) {
      unsigned n = (i + 1) / 4;
      gostx_store64_le(rk[n], a1_0);
      gostx_store64_le(rk[n] + 8, a1_1);
      gostx_store64_le(rk[n + 1], a0_0);
      gostx_store64_le(rk[n + 1] + 8, a0_1);
    }
  }
}

/* ---- Multi-key: block n under key n, one 64-block bitsliced batch ----
 * The schedule is the ten round keys' planes (load_bs of a batch whose block
 * n is round key r of key n; zero blocks past the keys), 10 KiB. */
#define KUZ_PORTABLE_MK_MAX 64
struct mk_portable {
  uint64_t pl[10][16][8];
  size_t n;
};

static size_t portable_mk_init(void *sched, const gostx_kuz_key *const *keys, size_t n,
                               unsigned dirs) {
  struct mk_portable *m = sched;
  uint8_t buf[16 * KUZ_PORTABLE_MK_MAX];
  (void)dirs; /* decryption reads the same planes in reverse */
  for (unsigned r = 0; r < 10; r++) {
    for (size_t i = 0; i < n; i++) memcpy(buf + 16 * i, keys[i]->ek[r], 16);
    load_bs(m->pl[r], buf, n);
  }
  m->n = n;
  gostx_memzero(buf, sizeof buf);
  return sizeof *m;
}

static void portable_mk_run(const void *sched, const uint8_t *in, uint8_t *out, bs_fn fn) {
  const struct mk_portable *m = sched;
  uint64_t s[32][8];
  load_bs(s, in, m->n);
  fn(s, NULL, (const uint64_t(*)[16][8])m->pl);
  store_bs(out, s, m->n);
  gostx_memzero(s, sizeof s);
}

static void portable_mk_encrypt(const void *sched, const uint8_t *in, uint8_t *out) {
  portable_mk_run(sched, in, out, encrypt_bs);
}

static void portable_mk_decrypt(const void *sched, const uint8_t *in, uint8_t *out) {
  portable_mk_run(sched, in, out, decrypt_bs);
}

const struct gostx_kuz_impl gostx_kuz_portable = {"portable", gostx__kuz_portable_encrypt,
                                                  gostx__kuz_portable_decrypt,
                                                  KUZ_PORTABLE_MK_MAX, KUZ_PORTABLE_MK_MAX,
                                                  sizeof(struct mk_portable), portable_mk_init,
                                                  portable_mk_encrypt, portable_mk_decrypt,
                                                  NULL, NULL, NULL, 0, NULL, NULL, 0, NULL};

/* GF(2^8) product modulo x^8 + x^7 + x^6 + x + 1, for the tables the kernels
 * build at start-up from public constants (here, below the kernels that use
 * it, not in kuz.c above them). */
uint8_t gostx__kuz_gf_mul(uint8_t a, uint8_t b) {
  unsigned p = 0, x = a;
  for (unsigned i = 0; i < 8; i++) {
    if (b >> i & 1) p ^= x;
    x = ((x << 1) ^ (x & 0x80 ? 0x1c3u : 0)) & 0xff;
  }
  return (uint8_t)p;
}
