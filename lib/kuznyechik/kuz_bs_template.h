/* Template: the portable core's bitsliced Kuznyechik on vector words of
 * BS_LANES 64-bit lanes, 64 * BS_LANES blocks per batch (each lane is one
 * portable batch of 64 blocks). Included by the ISA files with:
 *   BS_W            the vector type (uint64_t vector_size(8 * BS_LANES))
 *   BS_LANES        2, 4 or 8
 *   BS_ATTR         the function attribute enabling the instruction set
 *   BS_NAME(x)      x with the file's suffix
 *   BS_LOAD_GROUP(p, lo, hi) / BS_STORE_GROUP(p, lo, hi): BS_LANES blocks at
 *                   p <-> their low and high 8-byte halves, one block per lane
 * and provides BS_NAME(blocks)(km, in, out, n, decrypt) for any n >= 1
 * (with BS_WIDE_MIN defined, also the block calls BS_NAME(encrypt_blocks)
 * and BS_NAME(decrypt_blocks) of an implementation table, see the end), and
 * the multi-key pair BS_NAME(key_planes)(planes, rk, n) /
 * BS_NAME(blocks_mk)(planes, in, out, n, decrypt) for one batch of n <= 64 *
 * BS_LANES blocks where block i has its own key (see below).
 * Constant time: no branch or address depends on keys or data.
 *
 * S is the generated Boolean circuit (KUZ_SBOX_*_W, kuz_tables.h: 172 gates
 * for pi, 151 for pi^-1). L is R sixteen times on a 32-slot state buffer
 * (each step prepends or appends one byte, so the window is a constant offset
 * from a moving pointer and the steps are one loop); l is the generated XOR
 * program KUZ_LSTEP_W (174 XORs; the 128 window words as memory operands).
 * The buffer is 256 words (8 KiB with ymm words): it lives in L1. */

#ifndef KUZ_BS_KEY_MASKS
#define KUZ_BS_KEY_MASKS
/* Round keys as bit masks: km[r][j][b] is all-ones when bit b of byte j of
 * K_{r+1} is set (mask arithmetic, no branch on the key). Built once per
 * call, then each round's key XOR is a broadcast and an XOR per word.
 * (kuz_avx2.c builds them with vector compares instead.) */
__attribute__((unused)) static void build_key_masks(uint64_t km[10][16][8], const gostx_kuz_key *k) {
  for (unsigned r = 0; r < 10; r++)
    for (unsigned j = 0; j < 16; j++)
      for (unsigned b = 0; b < 8; b++) km[r][j][b] = 0 - (uint64_t)((k->ek[r][j] >> b) & 1);
}

#endif

BS_ATTR static inline BS_W BS_NAME(bcast)(uint64_t v) {
  BS_W w;
  for (unsigned i = 0; i < BS_LANES; i++) w[i] = v;
  return w;
}

/* *p in every lane. An ISA file may define BS_BCAST_MEM as its broadcast
 * load: GCC otherwise loads four neighbouring key masks as one word and
 * spreads each with a shuffle, an ALU operation per key word. */
#ifndef BS_BCAST_MEM
#define BS_BCAST_MEM(p) BS_NAME(bcast)(*(p))
#endif

/* The portable byte transpose, lane-wise: byte t of w[b] <-> byte b of w[t]. */
BS_ATTR static inline void BS_NAME(transpose_bytes)(BS_W w[8]) {
  static const uint64_t mask[3] = {0x00000000ffffffffULL, 0x0000ffff0000ffffULL,
                                   0x00ff00ff00ff00ffULL};
#pragma GCC unroll 3
  for (unsigned st = 0; st < 3; st++) {
    unsigned s = 4u >> st, sh = 8 * s;
#pragma GCC unroll 8
    for (unsigned i = 0; i < 8; i++) {
      if (i & s) continue;
      BS_W t = ((w[i] >> sh) ^ w[i + s]) & BS_NAME(bcast)(mask[st]);
      w[i + s] ^= t;
      w[i] ^= t << sh;
    }
  }
}

/* 8x8 bit transposes inside every byte position of eight words:
 * w'[k] bit (8p + r) = w[r] bit (8p + k). An involution. */
BS_ATTR static inline void BS_NAME(transpose_bits)(BS_W w[8]) {
  static const uint64_t mask[3] = {0x0f0f0f0f0f0f0f0fULL, 0x3333333333333333ULL,
                                   0x5555555555555555ULL};
#pragma GCC unroll 3
  for (unsigned st = 0; st < 3; st++) {
    unsigned sh = 4u >> st;
#pragma GCC unroll 8
    for (unsigned i = 0; i < 8; i++) {
      if (i & sh) continue;
      BS_W t = ((w[i] >> sh) ^ w[i + sh]) & BS_NAME(bcast)(mask[st]);
      w[i + sh] ^= t;
      w[i] ^= t << sh;
    }
  }
}

/* 64 * BS_LANES blocks <-> s: group g = 8 t + r (0..63) is BS_LANES
 * consecutive blocks, which BS_LOAD_GROUP spreads over the lanes as their
 * low and high halves. Per t, a bit transpose of the eight groups' halves
 * gives, per byte p and plane k, one byte of eight blocks; a byte transpose
 * over t then gathers s[p][k] (bit 8 t + r of a lane = block group 8 t + r).
 * BS_STORE_GROUP and the same transposes in reverse undo it.
 * mask (a compile-time NULL in load / store): 64 * BS_LANES blocks XORed
 * into the blocks as they are read, and into the results as they are
 * written (XTS: the tweaks, so the whitening costs no pass of its own). */
BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(load_any)(BS_W s[16][8],
                                                                          const uint8_t *in,
                                                                          const uint8_t *mask) {
  BS_W tmp[16][8]; /* tmp[k (+8 for high halves)][t] */
  for (unsigned t = 0; t < 8; t++) {
    BS_W a[8], b[8];
    for (unsigned r = 0; r < 8; r++) {
      BS_LOAD_GROUP(in + 16 * BS_LANES * (8 * t + r), a[r], b[r]);
      if (mask) {
        BS_W ma, mb;
        BS_LOAD_GROUP(mask + 16 * BS_LANES * (8 * t + r), ma, mb);
        a[r] ^= ma;
        b[r] ^= mb;
      }
    }
    BS_NAME(transpose_bits)(a);
    BS_NAME(transpose_bits)(b);
    for (unsigned k = 0; k < 8; k++) {
      tmp[k][t] = a[k];
      tmp[k + 8][t] = b[k];
    }
  }
  for (unsigned h = 0; h < 2; h++)
    for (unsigned k = 0; k < 8; k++) {
      BS_W x[8];
      for (unsigned t = 0; t < 8; t++) x[t] = tmp[k + 8 * h][t];
      BS_NAME(transpose_bytes)(x);
      for (unsigned p = 0; p < 8; p++) s[p + 8 * h][k] = x[p];
    }
}

BS_ATTR __attribute__((noinline)) static void BS_NAME(load)(BS_W s[16][8], const uint8_t *in) {
  BS_NAME(load_any)(s, in, NULL);
}

BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(store_any)(uint8_t *out,
                                                                           BS_W s[16][8],
                                                                           const uint8_t *mask) {
  BS_W tmp[16][8];
  for (unsigned h = 0; h < 2; h++)
    for (unsigned k = 0; k < 8; k++) {
      BS_W x[8];
      for (unsigned p = 0; p < 8; p++) x[p] = s[p + 8 * h][k];
      BS_NAME(transpose_bytes)(x);
      for (unsigned t = 0; t < 8; t++) tmp[k + 8 * h][t] = x[t];
    }
  for (unsigned t = 0; t < 8; t++) {
    BS_W a[8], b[8];
    for (unsigned k = 0; k < 8; k++) {
      a[k] = tmp[k][t];
      b[k] = tmp[k + 8][t];
    }
    BS_NAME(transpose_bits)(a);
    BS_NAME(transpose_bits)(b);
    for (unsigned r = 0; r < 8; r++) {
      if (mask) {
        BS_W ma, mb;
        BS_LOAD_GROUP(mask + 16 * BS_LANES * (8 * t + r), ma, mb);
        a[r] ^= ma;
        b[r] ^= mb;
      }
      BS_STORE_GROUP(out + 16 * BS_LANES * (8 * t + r), a[r], b[r]);
    }
  }
}

BS_ATTR __attribute__((noinline)) static void BS_NAME(store)(uint8_t *out, BS_W s[16][8]) {
  BS_NAME(store_any)(out, s, NULL);
}

#ifdef BS_XTS
BS_ATTR __attribute__((noinline)) static void BS_NAME(load_x)(BS_W s[16][8], const uint8_t *in,
                                                              const uint8_t *mask) {
  BS_NAME(load_any)(s, in, mask);
}

BS_ATTR __attribute__((noinline)) static void BS_NAME(store_x)(uint8_t *out, BS_W s[16][8],
                                                               const uint8_t *mask) {
  BS_NAME(store_any)(out, s, mask);
}
#endif

/* One R step (inv = 0) or R^-1 step (inv = 1) of L on the 32-slot state
 * buffer (see BS_NAME(encrypt_any)): the window x_0..x_15 is w[0..15]
 * (inverse: w[1..15], w[0]) and l(x) goes to w[-1] (inverse: w[16]). Every
 * address is a constant offset from w, so the sixteen steps are one loop.
 * l is the generated straight-line XOR program KUZ_LSTEP_W (kuz_tables.h:
 * 174 XORs, ordered for 16 registers; docs/KUZNYECHIK.md). */
BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(l_lin)(BS_W (*w)[8], int inv) {
  /* Opaque to the optimizer: otherwise GCC's predictive commoning sees that
   * step k + 1 reads what step k read one slot over and carries the window
   * words from step to step, through the stack. */
  __asm__("" : "+r"(w));
  BS_W *dst = inv ? w[16] : w[-1];
#define KUZ_X(i, b) (inv ? ((i) < 15 ? w[1 + (i)][b] : w[0][b]) : w[(i)][b])
#define KUZ_D(j) dst[j]
  KUZ_LSTEP_W(BS_W, KUZ_X, KUZ_D);
#undef KUZ_X
#undef KUZ_D
}

/* Round key r, byte j, into the 8 planes d. One key for the whole batch
 * (planes = 0): key is km[10][16][8], bit masks broadcast to every lane. A
 * key per block (planes = 1): key is BS_W[10][16][8], the round keys of the
 * batch's blocks in the bitsliced layout (BS_NAME(key_planes)), XORed word by
 * word. Two keys (planes = 2, where the ISA file defines BS_BCAST2_MEM): key
 * is uint64_t[10][16][8][2], the masks of key A and key B side by side,
 * which BS_BCAST2_MEM spreads as A, B, A, B, ... over the 64-bit lanes. planes is a compile-time constant at every call site (the functions
 * are always inlined), so each entry point below has one straight-line key
 * XOR and the round code exists once. */
BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(xor_key_byte)(BS_W d[8],
                                                                              const void *key,
                                                                              unsigned r, unsigned j,
                                                                              int planes) {
  if (planes == 1) {
    const BS_W(*kp)[16][8] = (const BS_W(*)[16][8])key;
    for (unsigned b = 0; b < 8; b++) d[b] ^= kp[r][j][b];
#ifdef BS_BCAST2_MEM
  } else if (planes == 2) {
    const uint64_t(*k2)[16][8][2] = (const uint64_t(*)[16][8][2])key;
    for (unsigned b = 0; b < 8; b++) d[b] ^= BS_BCAST2_MEM(k2[r][j][b]);
#endif
  } else {
    const uint64_t(*km)[16][8] = (const uint64_t(*)[16][8])key;
    for (unsigned b = 0; b < 8; b++) d[b] ^= BS_BCAST_MEM(&km[r][j][b]);
  }
}

/* Round key r into the whole state. */
BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(xor_key)(BS_W s[16][8],
                                                                         const void *key,
                                                                         unsigned r, int planes) {
  for (unsigned j = 0; j < 16; j++) BS_NAME(xor_key_byte)(s[j], key, r, j, planes);
}

/* out = S(in ^ K_r[j]) and out = S^-1(in) ^ K_r[j] for one byte's planes,
 * through registers: written in place on the state, GCC also stored the
 * intermediate words (8 dead stores per byte). This and BS_BCAST_MEM made
 * the AVX2 wide path ~15 % faster (docs/KUZNYECHIK.md). */
BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(xs_byte)(BS_W out[8], const BS_W in[8],
                                                                         const void *key, unsigned r,
                                                                         unsigned j, int planes) {
  BS_W v[8];
  for (unsigned b = 0; b < 8; b++) v[b] = in[b];
  BS_NAME(xor_key_byte)(v, key, r, j, planes);
  KUZ_SBOX_FWD_W(BS_W, v);
  for (unsigned b = 0; b < 8; b++) out[b] = v[b];
}

BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(sx_inv_byte)(BS_W out[8], const BS_W in[8],
                                                                             const void *key, unsigned r,
                                                                             unsigned j, int planes) {
  BS_W v[8];
  for (unsigned b = 0; b < 8; b++) v[b] = in[b];
  KUZ_SBOX_INV_W(BS_W, v);
  BS_NAME(xor_key_byte)(v, key, r, j, planes);
  for (unsigned b = 0; b < 8; b++) out[b] = v[b];
}

/* The state buffer s[32][8]: the 16 bytes' planes are in slots 0..15
 * between rounds. A round's X and S read slots 0..15 and write 16..31; the
 * 16 R steps then prepend one byte each, slots 15 down to 0, so the state is
 * back in 0..15 (decryption: L^-1 appends into 16..31, then S^-1 and X write
 * 0..15). Rounds r0 + 1 .. 10 (r0 = 0: the whole cipher; the counter kernel
 * starts from round 1's output with r0 = 1). Tried and dropped: the next
 * round's X and S of each byte right after the R step that made it (the
 * slot it goes to is free by then): no faster once xs_byte kept its words
 * in registers (ECB 685 against 681 MB/s; decryption 5 % slower). */
BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(encrypt_any)(BS_W s[32][8],
                                                                             const void *key, int planes,
                                                                             unsigned r0) {
  for (unsigned r = r0; r < 9; r++) {
    for (unsigned j = 0; j < 16; j++) BS_NAME(xs_byte)(s[16 + j], s[j], key, r, j, planes);
#pragma GCC unroll 1
    for (unsigned k = 0; k < 16; k++) BS_NAME(l_lin)(s + 16 - k, 0);
  }
  BS_NAME(xor_key)(s, key, 9, planes);
}

BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(decrypt_any)(BS_W s[32][8],
                                                                             const void *key, int planes) {
  BS_NAME(xor_key)(s, key, 9, planes);
  for (unsigned r = 9; r-- > 0;) {
#pragma GCC unroll 1
    for (unsigned k = 0; k < 16; k++) BS_NAME(l_lin)(s + k, 1);
    for (unsigned j = 0; j < 16; j++) BS_NAME(sx_inv_byte)(s[j], s[16 + j], key, r, j, planes);
  }
}

BS_ATTR __attribute__((noinline)) static void BS_NAME(encrypt)(BS_W s[32][8], const uint64_t km[10][16][8]) {
  BS_NAME(encrypt_any)(s, km, 0, 0);
}

BS_ATTR __attribute__((noinline)) static void BS_NAME(decrypt)(BS_W s[32][8], const uint64_t km[10][16][8]) {
  BS_NAME(decrypt_any)(s, km, 0);
}

/* Per-block keys: the same rounds with the planes variant of the key XOR. */
/* (kp: BS_W[10][16][8]; void so that the one-key instance of batch(), where
 * this branch is dead, does not look like an overread at -O0) */
BS_ATTR __attribute__((noinline, unused)) static void BS_NAME(encrypt_mk)(BS_W s[32][8], const void *kp) {
  BS_NAME(encrypt_any)(s, kp, 1, 0);
}

BS_ATTR __attribute__((noinline, unused)) static void BS_NAME(decrypt_mk)(BS_W s[32][8], const void *kp) {
  BS_NAME(decrypt_any)(s, kp, 1);
}

/* One batch of 1 <= n <= 64 * BS_LANES blocks from in (a short batch padded
 * with zero blocks that are never stored); key: masks or planes as for
 * xor_key. In place allowed. mask (BS_XTS files; a compile-time NULL
 * elsewhere): 64 * BS_LANES blocks of XTS tweaks, out = F(in ^ mask) ^ mask
 * (only the first m matter). */
BS_ATTR static inline __attribute__((always_inline)) void BS_NAME(batch)(BS_W s[32][8],
                                                                       const void *key, int planes,
                                                                       const uint8_t *in, uint8_t *out,
                                                                       size_t m, int decrypt,
                                                                       const uint8_t *mask) {
  enum { BATCH = 64 * BS_LANES };
  _Alignas(32) uint8_t pad[16 * BATCH];
  const uint8_t *src = in;
  (void)mask;
  if (m < BATCH) {
    memcpy(pad, in, 16 * m);
    memset(pad + 16 * m, 0, sizeof pad - 16 * m);
    src = pad;
  }
#ifdef BS_XTS
  if (mask) BS_NAME(load_x)(s, src, mask);
  else
#endif
    BS_NAME(load)(s, src);
  if (planes) {
    if (decrypt) BS_NAME(decrypt_mk)(s, key);
    else BS_NAME(encrypt_mk)(s, key);
  } else {
    if (decrypt) BS_NAME(decrypt)(s, (const uint64_t(*)[16][8])key);
    else BS_NAME(encrypt)(s, (const uint64_t(*)[16][8])key);
  }
  uint8_t *dst = m < BATCH ? pad : out;
#ifdef BS_XTS
  if (mask) BS_NAME(store_x)(dst, s, mask);
  else
#endif
    BS_NAME(store)(dst, s);
  if (m < BATCH) {
    memcpy(out, pad, 16 * m);
    gostx_memzero(pad, sizeof pad);
  }
}

/* n >= 1 blocks in batches of 64 * BS_LANES under one key. In place allowed. */
BS_ATTR static void BS_NAME(blocks)(const uint64_t km[10][16][8], const uint8_t *in, uint8_t *out,
                                    size_t n, int decrypt) {
  enum { BATCH = 64 * BS_LANES };
  _Alignas(BS_W) BS_W s[32][8];
  for (;;) {
    size_t m = n < BATCH ? n : BATCH;
    if (n >= 2 * BATCH) gostx_prefetch_batch(in + 16 * BATCH, out + 16 * BATCH, 16 * BATCH);
    BS_NAME(batch)(s, km, 0, in, out, m, decrypt, NULL);
    in += 16 * m;
    out += 16 * m;
    n -= m;
    if (!n) break;
  }
  gostx_memzero(s, sizeof s);
}

/* Multi-key schedule: planes[r] = the bitsliced layout of the batch whose
 * block i is round key r of key i (rk[i][r], i < n; zero for the padding
 * blocks). The layout is linear in the blocks, so XORing planes[r] into the
 * state XORs rk[i][r] into block i, which is all a round-key addition is. */
BS_ATTR __attribute__((unused)) static void BS_NAME(key_planes)(BS_W planes[10][16][8],
                                                               const uint8_t (*const *rk)[16],
                                                               size_t n) {
  enum { BATCH = 64 * BS_LANES };
  _Alignas(32) uint8_t buf[16 * BATCH];
  memset(buf, 0, sizeof buf);
  for (unsigned r = 0; r < 10; r++) {
    for (size_t i = 0; i < n; i++) memcpy(buf + 16 * i, rk[i][r], 16);
    BS_NAME(load)(planes[r], buf);
  }
  gostx_memzero(buf, sizeof buf);
}

/* One batch of 1 <= n <= 64 * BS_LANES blocks, block i under the key whose
 * planes BS_NAME(key_planes) built. In place allowed. */
BS_ATTR __attribute__((unused)) static void BS_NAME(blocks_mk)(const BS_W planes[10][16][8],
                                                              const uint8_t *in, uint8_t *out,
                                                              size_t n, int decrypt) {
  _Alignas(BS_W) BS_W s[32][8];
  BS_NAME(batch)(s, planes, 1, in, out, n, decrypt, NULL);
  gostx_memzero(s, sizeof s);
}


#ifdef BS_CTR
/* ---- Counter mode: round 1 without the transpose, S and L of the bytes that
 * do not move ----
 * In a batch of 64 * BS_LANES consecutive counters only the counter's lowest
 * byte, byte p (15 when the whole block or its right half counts, 7 for the
 * left half), takes every value: block i has (c_p + i) mod 256 there, where
 * c_p is that byte of the batch's first counter, and above it either base0
 * (no carry out of byte p) or base1 = base0 + 1 (carry). As L is linear,
 *   L(S(x ^ K1)) = L(S'(base ^ K1)) ^ L(e_p * pi(x_p ^ K1_p))
 * with S' = S with byte p dropped. The second term depends on the key and c_p
 * only, and c_p is the same for every batch of a call (they step by 256):
 * ctr_prep makes it once per call in the bitsliced layout, with the plane of
 * the blocks that carry, by an 8-bit adder on bit planes (no branch or
 * address depends on c_p, which in MGM is secret). ctr_batch starts each batch
 * from it and the two 16-byte constants a0 = L(S'(base0 ^ K1)) and
 * a1 = L(S'(base1 ^ K1)) that the ISA file makes with its one-block code, then
 * runs rounds 2..10: no input transpose, and one round in nine saved.
 * pat: the bit planes of the batch whose block i is i in every byte. */

/* x * t on bit planes, mod t^8 + t^7 + t^6 + t + 1: three XORs. */
BS_ATTR static inline void BS_NAME(mul_t)(BS_W out[8], const BS_W x[8]) {
  const BS_W h = x[7];
  out[7] = x[6] ^ h;
  out[6] = x[5] ^ h;
  for (unsigned b = 5; b >= 2; b--) out[b] = x[b - 1];
  out[1] = x[0] ^ h;
  out[0] = h;
}

/* kb: the planes of K1's byte p in every lane (ctr_prep), or of two keys'
 * in their lanes (the avx512bw file's CTR-ACPKM sections). */
BS_ATTR __attribute__((noinline, unused)) static void BS_NAME(ctr_prep_planes)(BS_W w[16][8], BS_W *carry,
                                                                       const BS_W kb[8],
                                                                       const BS_W pat[8], unsigned p,
                                                                       unsigned cp) {
  BS_W v[8], c = BS_NAME(bcast)(0);
  for (unsigned b = 0; b < 8; b++) { /* v = i + c_p on the planes, c = the carry out */
    const BS_W x = pat[b], y = BS_NAME(bcast)(0 - (uint64_t)((cp >> b) & 1));
    v[b] = x ^ y ^ c ^ kb[b];
    c = (x & y) | (c & (x ^ y));
  }
  *carry = c;
  KUZ_SBOX_FWD_W(BS_W, v);
  /* w[j] = M[j][p] * v as the sum of v * t^k over the bits k of the public
   * constant: the eight v * t^k once (21 XORs), then ~3 sums of 8 planes a
   * byte (Horner per byte made the eight steps for each of the 16). */
  BS_W vt[8][8];
  for (unsigned b = 0; b < 8; b++) vt[0][b] = v[b];
  for (unsigned k = 1; k < 8; k++) BS_NAME(mul_t)(vt[k], vt[k - 1]);
  for (unsigned j = 0; j < 16; j++) {
    const unsigned m = gostx__kuz_lmatrix_fwd[j][p];
    BS_W acc[8];
    for (unsigned b = 0; b < 8; b++) acc[b] = BS_NAME(bcast)(0);
    for (unsigned k = 0; k < 8; k++)
      if ((m >> k) & 1)
        for (unsigned b = 0; b < 8; b++) acc[b] ^= vt[k][b];
    for (unsigned b = 0; b < 8; b++) w[j][b] = acc[b];
  }
  gostx_memzero(vt, sizeof vt);
}

BS_ATTR static void BS_NAME(ctr_prep)(BS_W w[16][8], BS_W *carry, const uint64_t km[10][16][8],
                                      const BS_W pat[8], unsigned p, unsigned cp) {
  BS_W kb[8];
  for (unsigned b = 0; b < 8; b++) kb[b] = BS_NAME(bcast)(km[0][p][b]);
  BS_NAME(ctr_prep_planes)(w, carry, kb, pat, p, cp);
}

/* One batch of 64 * BS_LANES keystream blocks into out (64 * BS_LANES * 16 bytes). */
BS_ATTR __attribute__((noinline, unused)) static void BS_NAME(ctr_batch)(BS_W s[32][8],
                                                                 const uint64_t km[10][16][8],
                                                                 const BS_W w[16][8], BS_W carry,
                                                                 const uint8_t a0[16],
                                                                 const uint8_t a1[16], uint8_t *out) {
  for (unsigned j = 0; j < 16; j++)
    for (unsigned b = 0; b < 8; b++) {
      const uint64_t m0 = 0 - (uint64_t)((a0[j] >> b) & 1);
      const uint64_t m1 = 0 - (uint64_t)(((a0[j] ^ a1[j]) >> b) & 1);
      s[j][b] = w[j][b] ^ BS_NAME(bcast)(m0) ^ (carry & BS_NAME(bcast)(m1));
    }
  BS_NAME(encrypt_any)(s, km, 0, 1);
  BS_NAME(store)(out, s);
}
#endif

#ifdef BS_WIDE_MIN
/* The whole block call of a 128-bit file (kuz_ssse3.c, kuz_neon.c): batches
 * of 64 * BS_LANES blocks through the kernel, the last one padded when at
 * least BS_WIDE_MIN blocks remain; calls and remainders shorter than that
 * go to BS_SHORT_ENC / BS_SHORT_DEC (the file's one-block kernel), or
 * without those to the portable core. */
#ifndef BS_SHORT_ENC
#define BS_SHORT_ENC gostx__kuz_portable_encrypt
#define BS_SHORT_DEC gostx__kuz_portable_decrypt
#endif
static void BS_NAME(run)(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n,
                         int decrypt) {
  if (n >= BS_WIDE_MIN) {
    uint64_t km[10][16][8];
    build_key_masks(km, k);
    size_t rem = n % (64 * BS_LANES), big = rem >= BS_WIDE_MIN ? n : n - rem;
    BS_NAME(blocks)((const uint64_t(*)[16][8])km, in, out, big, decrypt);
    in += 16 * big;
    out += 16 * big;
    n -= big;
    gostx_memzero(km, sizeof km);
  }
  if (n) (decrypt ? BS_SHORT_DEC : BS_SHORT_ENC)(k, in, out, n);
}

static void BS_NAME(encrypt_blocks)(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  BS_NAME(run)(k, in, out, n, 0);
}

static void BS_NAME(decrypt_blocks)(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  BS_NAME(run)(k, in, out, n, 1);
}

/* The multi-key calls of the table (block i under key i): the key planes
 * of one 64 * BS_LANES-block batch, every call one padded batch. */
#define BS_MK_MAX (64 * BS_LANES)
struct BS_NAME(mk) {
  BS_W planes[10][16][8];
  size_t n;
};

static size_t BS_NAME(mk_init)(void *sched, const gostx_kuz_key *const *keys, size_t n,
                               unsigned dirs) {
  struct BS_NAME(mk) *m = sched;
  const uint8_t(*rk[BS_MK_MAX])[16];
  (void)dirs; /* decryption reads the same planes in reverse */
  for (size_t i = 0; i < n; i++) rk[i] = keys[i]->ek;
  BS_NAME(key_planes)(m->planes, rk, n);
  m->n = n;
  return sizeof *m;
}

static void BS_NAME(mk_encrypt)(const void *sched, const uint8_t *in, uint8_t *out) {
  const struct BS_NAME(mk) *m = sched;
  BS_NAME(blocks_mk)((const BS_W(*)[16][8])m->planes, in, out, m->n, 0);
}

static void BS_NAME(mk_decrypt)(const void *sched, const uint8_t *in, uint8_t *out) {
  const struct BS_NAME(mk) *m = sched;
  BS_NAME(blocks_mk)((const BS_W(*)[16][8])m->planes, in, out, m->n, 1);
}
#endif
