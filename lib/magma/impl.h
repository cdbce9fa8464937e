/* Magma / GOST 28147-89 internals shared by the portable core, the key
 * schedule and the tests. Not installed. */
#ifndef GOSTX_MAGMA_IMPL_H
#define GOSTX_MAGMA_IMPL_H

#include "blockops/multikey.h"
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

#ifdef GOSTX_ARCH_X86_64
/* One block in general registers (magma_x86_64.c): the sequential modes'
 * path at the x86-64 vector levels. in == out allowed. */
void gostx__magma_x86_encrypt1(const gostx_magma_key *k, const uint8_t in[8], uint8_t out[8]);
void gostx__magma_x86_decrypt1(const gostx_magma_key *k, const uint8_t in[8], uint8_t out[8]);
void gostx__magma_x86_imit16_words(const gostx_magma_key *k, uint32_t *a1, uint32_t *a0);
void gostx__magma_x86_chain(const gostx_magma_key *k, int op, uint8_t s[8], const uint8_t *in,
                            uint8_t *out, size_t n);
#endif

/* ---- Byte-sliced vector cores (sliced_core.h, used by magma_ssse3.c,
 * magma_avx2.c, magma_avx512.c and magma_neon.c; docs/MAGMA.md) ----
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
  /* The one-block VBMI round (magma_avx512.c): vround[set][16 j + n] =
   * pi_j(n), in the high nibble for even j and the low nibble for odd j, so
   * that the bytes of S-boxes 2k and 2k+1 meet at bits 16k+4..16k+11 of the
   * looked-up qword. 128 bytes: one VPERMI2B over two zmm halves. */
  _Alignas(64) uint8_t vround[GOSTX_SBOX_COUNT][128];
  /* The sequential modes' round (magma_avx512.c, vround_chain): two
   * 64-entry tables, one VPERMI2B on ymm each. Bytes 0..63: entry 16 m + n =
   * pi_{2m}(n) << 3; bytes 64..127: entry 16 m + n = pi_{2m+1}(n). */
  _Alignas(64) uint8_t vpair[GOSTX_SBOX_COUNT][128];
};
const struct gostx__magma_sliced *gostx__magma_sliced_tables(void);

/* Per-round constants for the sliced cores, in round order (decryption:
 * reversed): rc[r][j] = byte j of the round key, replicated into all four
 * bytes, for j = 0..3; rc[r][4 + j] = the same for (~byte j) ^ 0x80, the
 * biased carry threshold 255 - k_j. Secret: wipe after use. */
void gostx__magma_sliced_round_consts(const gostx_magma_key *k, int decrypt, uint32_t rc[32][8]);

/* ---- Implementation table (filled by lib/dispatch.c) ---- */
typedef void (*gostx_magma_blocks_fn)(const gostx_magma_key *k, const uint8_t *in, uint8_t *out,
                                      size_t nblocks);
struct gostx_magma_impl {
  const char *name;
  gostx_magma_blocks_fn encrypt_blocks;
  gostx_magma_blocks_fn decrypt_blocks;
  /* Multi-key path (optional; NULL: gostx__magma_mk_* calls the block
   * functions once per block): mk_init writes, in GOSTX_MAGMA_MK_BYTES at
   * sched (aligned to 64), a schedule for n <= GOSTX_MAGMA_MK_MAX keys that
   * share keys[0]'s S-box set and byte convention; mk_blocks then processes
   * n blocks (at most the schedule's), block i under keys[i] (k: keys[0]),
   * op GOSTX__MAGMA_ENC, _DEC or _IMIT (the 16-round IMIT core,
   * gostx__magma_imit16_words). in == out allowed. Constant time; every op
   * from one schedule. */
  void (*mk_init)(void *sched, const gostx_magma_key *const *keys, size_t n);
  void (*mk_blocks)(const void *sched, const gostx_magma_key *k, const uint8_t *in, uint8_t *out,
                    size_t n, int op);
  /* The 16-round IMIT core on one state, as gostx__magma_imit16_words. */
  void (*imit16_words)(const gostx_magma_key *k, uint32_t *a1, uint32_t *a0);
  /* n blocks of a mode where each block needs the previous result, s (one
   * block, the key's byte order) carried through: op GOSTX__MAGMA_CHAIN_CBC
   * s = E(s ^ in_i), out_i = s; _CFB s = in_i ^ E(s), out_i = s (CFB
   * encryption, full blocks); _MAC s = E(s ^ in_i), out unused (OMAC);
   * _OFB s = E(s), out_i = in_i ^ s. in == out allowed.
   * gostx__magma_chain is the generic one. */
  void (*chain)(const gostx_magma_key *k, int op, uint8_t s[8], const uint8_t *in, uint8_t *out,
                size_t n);
  /* As gostx_kuz_impl's: MGM messages from which one call each beats the
   * stream batch's lanes (0: never). */
  size_t mgm_solo_min;
  /* gostx__ctr_fill for 8-byte blocks, a vector register of counters at a
   * time (optional; NULL: the generic fill). CTR and MGM spend on the
   * counters about an eighth of what the byte-sliced groups cost. */
  void (*ctr_fill)(uint8_t *dst, uint8_t ctr[8], unsigned inc, size_t count);
};
enum {
  GOSTX__MAGMA_CHAIN_CBC = 0,
  GOSTX__MAGMA_CHAIN_CFB = 1,
  GOSTX__MAGMA_CHAIN_MAC = 2,
  GOSTX__MAGMA_CHAIN_OFB = 3
};
void gostx__magma_chain(const gostx_magma_key *k, int op, uint8_t s[8], const uint8_t *in,
                        uint8_t *out, size_t n);
/* The block loop of a `chain` entry that keeps the state in two words: the
 * last argument is a statement encrypting (s1, s0) in place (s1 the high
 * word, as gostx__magma_load gives them). The one-block cores
 * (magma_x86_64.c, magma_avx512.c's vector round) differ only in it. */
#define GOSTX__MAGMA_CHAIN_WORDS(k, op, st, in, out, n, ...)                              \
  do {                                                                                   \
    uint32_t s1, s0;                                                                     \
    gostx__magma_load((k), (st), &s1, &s0);                                              \
    for (size_t i_ = 0; i_ < (n); i_++) {                                                \
      uint32_t p1, p0;                                                                   \
      gostx__magma_load((k), (in) + 8 * i_, &p1, &p0);                                   \
      if ((op) == GOSTX__MAGMA_CHAIN_CBC || (op) == GOSTX__MAGMA_CHAIN_MAC) {            \
        s1 ^= p1;                                                                        \
        s0 ^= p0;                                                                        \
      }                                                                                  \
      __VA_ARGS__;                                                                       \
      if ((op) == GOSTX__MAGMA_CHAIN_CFB) {                                              \
        s1 ^= p1;                                                                        \
        s0 ^= p0;                                                                        \
      }                                                                                  \
      if ((op) == GOSTX__MAGMA_CHAIN_OFB)                                                \
        gostx__magma_store((k), (out) + 8 * i_, s1 ^ p1, s0 ^ p0);                       \
      else if ((op) != GOSTX__MAGMA_CHAIN_MAC)                                           \
        gostx__magma_store((k), (out) + 8 * i_, s1, s0);                                 \
    }                                                                                    \
    gostx__magma_store((k), (st), s1, s0);                                               \
  } while (0)
/* Multi-key Magma / GOST 28147-89 (lib/magma/magma.c): the handle
 * gostx_magma_mk, its limits and the op codes are in lib/blockops/multikey.h. */
/* impl NULL: the dispatcher's choice. crypt: the first count <= n lanes'
 * blocks (lanes past count are neither read nor written), op as mk_blocks. */
void gostx__magma_mk_init(gostx_magma_mk *m, const struct gostx_magma_impl *impl,
                          const gostx_magma_key *const *keys, size_t n);
void gostx__magma_mk_crypt(const gostx_magma_mk *m, int op, const uint8_t *in, uint8_t *out,
                           size_t count);
void gostx__magma_mk_clear(gostx_magma_mk *m);

/* The ISA tables (lib/magma/magma_*.c); lib/dispatch.c chooses. */
extern const struct gostx_magma_impl gostx_magma_portable;
#ifdef GOSTX_ARCH_X86_64
/* Byte-sliced vector Magma (lib/magma/magma_ssse3.c, magma_avx2.c, magma_avx512.c). */
extern const struct gostx_magma_impl gostx_magma_ssse3;
extern const struct gostx_magma_impl gostx_magma_avx2;
extern const struct gostx_magma_impl gostx_magma_avx512;
extern const struct gostx_magma_impl gostx_magma_avx512bw; /* AVX-512 F/BW, no VBMI */
/* gostx_magma_avx512 with the sequential modes (chain) on a vector round:
 * chosen on Intel cores (lib/dispatch.c; docs/MAGMA.md "One block"). */
extern const struct gostx_magma_impl gostx_magma_avx512_vround;
#endif
#ifdef GOSTX_ARCH_AARCH64
extern const struct gostx_magma_impl gostx_magma_neon; /* byte-sliced, lib/magma/magma_neon.c */
#endif

/* The GOST 28147-89 pieces the stream batches share: lib/gost89/gost89_internal.h. */

#endif
