/* Magma / GOST 28147-89 internals shared by the portable core, the key
 * schedule and the tests. Not installed. */
#ifndef GOSTX_MAGMA_IMPL_H
#define GOSTX_MAGMA_IMPL_H

#include "internal.h"

/* S-box parameter sets, each 4-bit S-box packed into one uint64_t:
 * nibble j of gostx__magma_sbox[set][i] is pi_i(j), where pi_0 acts on the
 * least significant nibble of the 32-bit word (RFC 8891 numbering). */
extern const uint64_t gostx__magma_sbox[GOSTX_SBOX_COUNT][8];

/* t: the S-box layer on a 32-bit word. Constant time: each lookup is a
 * variable shift of a packed 64-bit word, not a secret-indexed load. */
static inline uint32_t gostx__magma_t(const uint64_t sb[8], uint32_t a) {
  /* Nibble i of a, times 4, is the bit offset of its entry in sb[i]. */
  uint32_t r = (uint32_t)(sb[0] >> ((a << 2) & 0x3c)) & 0xf;
  r |= ((uint32_t)(sb[1] >> ((a >> 2) & 0x3c)) & 0xf) << 4;
  r |= ((uint32_t)(sb[2] >> ((a >> 6) & 0x3c)) & 0xf) << 8;
  r |= ((uint32_t)(sb[3] >> ((a >> 10) & 0x3c)) & 0xf) << 12;
  r |= ((uint32_t)(sb[4] >> ((a >> 14) & 0x3c)) & 0xf) << 16;
  r |= ((uint32_t)(sb[5] >> ((a >> 18) & 0x3c)) & 0xf) << 20;
  r |= ((uint32_t)(sb[6] >> ((a >> 22) & 0x3c)) & 0xf) << 24;
  r |= ((uint32_t)(sb[7] >> ((a >> 26) & 0x3c)) & 0xf) << 28;
  return r;
}

/* g[k](a) = t(a + k mod 2^32) <<< 11. */
static inline uint32_t gostx__magma_g(const uint64_t sb[8], uint32_t k, uint32_t a) {
  uint32_t x = gostx__magma_t(sb, a + k);
  return (x << 11) | (x >> 21);
}

/* Round key K_i (i = 1..32) of the expanded key. */
uint32_t gostx__magma_round_key(const gostx_magma_key *k, unsigned i);

/* Block <-> halves (a1 = high, a0 = low in RFC 8891 terms) for either byte
 * convention: big-endian a1||a0 (Magma) or little-endian n1=a0, n2=a1
 * (GOST 28147-89 / RFC 5830). */
static inline void gostx__magma_load(const gostx_magma_key *k, const uint8_t *p, uint32_t *a1,
                                     uint32_t *a0) {
  if (k->le) { *a0 = gostx_load32_le(p); *a1 = gostx_load32_le(p + 4); }
  else { *a1 = gostx_load32_be(p); *a0 = gostx_load32_be(p + 4); }
}
static inline void gostx__magma_store(const gostx_magma_key *k, uint8_t *p, uint32_t a1,
                                      uint32_t a0) {
  if (k->le) { gostx_store32_le(p, a0); gostx_store32_le(p + 4, a1); }
  else { gostx_store32_be(p, a1); gostx_store32_be(p + 4, a0); }
}

/* Full 32-round encryption of the halves (a1, a0) in place. If trace is not
 * NULL (tests), trace[i] = a1||a0 after round i+1 for i = 0..30: the
 * standard's round states. */
void gostx__magma_encrypt_words(const gostx_magma_key *k, uint32_t *a1, uint32_t *a0,
                                uint64_t *trace);
void gostx__magma_decrypt_words(const gostx_magma_key *k, uint32_t *a1, uint32_t *a0);
/* The IMIT core (GOST 28147-89 "16-Z"): 16 ordinary rounds with keys
 * K1..K8, K1..K8 (no unswapped G* at the end); on return (a1, a0) is the
 * state after the 16th round. */
void gostx__magma_imit16_words(const gostx_magma_key *k, uint32_t *a1, uint32_t *a0);

/* ---- Byte-sliced vector cores (magma_sliced.h, docs/MAGMA.md) ----
 * The SIMD implementations keep byte j of each half of many blocks in one
 * vector register, every byte XOR 0x80 ("biased", so that signed byte
 * compares act as unsigned ones for the carries of the 32-bit addition).
 * These tables are built once from gostx__magma_sbox, in portable code. */
struct gostx__magma_sliced {
  /* sbox[set][3j + 0]: low nibble of sum byte j -> its S-box output after
   * <<< 11, bits 3..6 of byte (j+1)&3. sbox[set][3j + 1] and [3j + 2]: high
   * nibble, indexed by the biased nibble (h ^ 8) -> bit 7 of byte (j+1)&3
   * and bits 0..2 of byte (j+2)&3. Each 16-byte table twice (both lanes of
   * a 256-bit register). */
  _Alignas(32) uint8_t sbox[GOSTX_SBOX_COUNT][12][32];
  /* pshufb masks per byte convention (0 Magma, 1 GOST 28147-89) that turn
   * two blocks in a 128-bit lane into eight 16-bit pairs, pair m = byte j of
   * half h (m = 4h + j; half 0 = a0 = n1, half 1 = a1), and back. */
  _Alignas(32) uint8_t load_shuf[2][32];
  _Alignas(32) uint8_t store_shuf[2][32];
};
const struct gostx__magma_sliced *gostx__magma_sliced_tables(void);

/* Per-round constants for the sliced cores, in round order (decryption:
 * reversed): rc[r][j] = byte j of the round key, replicated into all four
 * bytes, for j = 0..3; rc[r][4 + j] = the same for (~byte j) ^ 0x80, the
 * biased carry threshold 255 - k_j. Secret: wipe after use. */
void gostx__magma_sliced_round_consts(const gostx_magma_key *k, int decrypt, uint32_t rc[32][8]);

#endif
