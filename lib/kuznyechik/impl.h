/* Kuznyechik internals shared by the portable core, the key schedule, the ISA
 * files (kuz_ssse3.c, kuz_avx2.c, kuz_avx512bw.c, kuz_avx512.c, kuz_neon.c), the lstable
 * row and the tests. Private: `cmake --install` installs include/ only.
 *
 * Byte order: a 16-byte string is the standard's a_15||...||a_0 read left to
 * right, so byte[0] = a_15 is the most significant byte (RFC 7801). */
#ifndef GOSTX_KUZ_IMPL_H
#define GOSTX_KUZ_IMPL_H

#include "blockops/multikey.h"
#include "internal.h"

/* The transforms of GOST R 34.12-2015 on one 16-byte string, constant time.
 * out may equal in. */
void gostx__kuz_S(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_S_inv(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_R(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_R_inv(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_L(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_L_inv(uint8_t out[16], const uint8_t in[16]);

/* Iteration constant C_i = L(Vec128(i)), i = 1..32; out is zeroed for other i. */
void gostx__kuz_C(uint8_t out[16], unsigned i);

/* The portable block functions (the dispatcher's always-usable row). They
 * read only k->ek; k->dk holds L^-1(K_1)..L^-1(K_10) for table-driven fast
 * paths (S^-1 L^-1 X[K] = S^-1 X[L^-1 K] L^-1), filled by gostx_kuz_set_key.
 * Constant-time circuits, masks and the generated tables of kuz_tables.h
 * (scripts/gen_kuz_tables.py: pi, pi^-1, L as GF(2^8) matrices, ...) can be
 * shared with the ISA files. */
void gostx__kuz_portable_encrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                                 size_t nblocks);
void gostx__kuz_portable_decrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                                 size_t nblocks);

/* Key schedule core (portable, constant time): K1..K10 from the 32-byte key. */
void gostx__kuz_expand(uint8_t rk[10][16], const uint8_t key[32]);
/* GF(2^8) product mod x^8 + x^7 + x^6 + x + 1, for building tables of public
 * constants at start-up (it branches on its operands: never call it on secrets). */
uint8_t gostx__kuz_gf_mul(uint8_t a, uint8_t b);

/* ---- Implementation table (filled by lib/dispatch.c) ---- */
typedef void (*gostx_kuz_blocks_fn)(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                                    size_t nblocks);
/* The optional fields may be left out (zero): batch = 0 means 64, and an
 * implementation without mk_init gets the generic multi-key fallback of
 * lib/kuznyechik/kuz.c (one block call per run of equal keys). */
struct gostx_kuz_impl {
  const char *name;
  gostx_kuz_blocks_fn encrypt_blocks;
  gostx_kuz_blocks_fn decrypt_blocks;
  /* Blocks per call from which the throughput stops growing (the wide
   * kernel's batch): the sector-batch engine interleaves this many sectors. */
  size_t batch;
  /* Multi-key path: mk_init prepares, in mk_size bytes at sched (aligned to
   * 64), a schedule for n keys (1 <= n <= mk_max; keys[i] is read only
   * here) for the directions in dirs (GOSTX__MK_ENC, GOSTX__MK_DEC, or
   * both), and returns how many bytes from sched it wrote (what the clear
   * wipes); mk_encrypt / mk_decrypt then process exactly n blocks, block i
   * under keys[i]. in == out allowed, any alignment. Constant time. */
  size_t mk_max, mk_size;
  size_t (*mk_init)(void *sched, const gostx_kuz_key *const *keys, size_t n, unsigned dirs);
  void (*mk_encrypt)(const void *sched, const uint8_t *in, uint8_t *out);
  void (*mk_decrypt)(const void *sched, const uint8_t *in, uint8_t *out);
  /* Counter-mode keystream (optional; NULL: gostx__cipher_ctr fills counter
   * blocks and calls encrypt_blocks): out = in xor E(ctr), E(ctr + 1), ...
   * for nblocks blocks (in NULL: out = the keystream), the counter stepped
   * as inc says (GOSTX__CTR_*) and left at the next value. Same bytes as the
   * generic path; constant time in the key, the data and the counter. */
  void (*ctr)(const gostx_kuz_key *k, uint8_t ctr[16], unsigned inc, const uint8_t *in,
              uint8_t *out, size_t nblocks);
  /* Key schedule (optional; NULL: the portable one): k->ek = K1..K10 and
   * k->dk = L^-1(K1..K10) from the 32-byte key, the same bytes as
   * gostx__kuz_expand + gostx__kuz_L_inv. Constant time. CTR-ACPKM and
   * OMAC-ACPKM run it once per section. */
  void (*expand)(gostx_kuz_key *k, const uint8_t key[32]);
  /* XTS with the whitening inside the cipher call (optional; NULL: the
   * generic loop of lib/modes/xts.c, which XORs tweak buffers around
   * encrypt_blocks). count data units of nb >= 1 full blocks each, unit u at
   * in / out + p * stride, p = idx ? idx[u] : u (units do not overlap; in ==
   * out allowed), under key keys[nkeys == 1 ? 0 : u] (nkeys is 1 or count):
   * block j of unit u becomes F(x ^ T) ^ T, T = t[u] * alpha^j
   * (gostx__xts_mul_alpha), F = encryption or (decrypt) decryption; t holds
   * count 16-byte tweaks T_0 (E_K2 of the tweak, already made) and each is
   * left at t[u] * alpha^nb, the tweak that ciphertext stealing continues
   * from. Same bytes as the generic loop; constant time. */
  void (*xts)(const gostx_kuz_key *const *keys, size_t nkeys, uint8_t *t, const size_t *idx,
              const uint8_t *in, uint8_t *out, size_t stride, size_t nb, size_t count,
              int decrypt);
  /* Blocks per data unit from which one xts call per unit (under its own
   * key) runs at full speed: the sector batch then gives sectors with
   * distinct keys calls of their own instead of interleaving them through
   * multi-key calls. 0 with xts NULL. */
  size_t xts_unit;
  /* CTR-ACPKM over whole sections (optional; NULL: lib/modes/ctr.c steps
   * the key itself): out = in xor the keystream of up to nsec sections of
   * sec_blocks blocks each, the first under *k, and k -> ACPKM(k) (RFC 8645
   * 6.2.1, the new key expanded) between two sections, never after the
   * last. Returns how many sections it did (0 when sec_blocks does not suit
   * it); ctr is left after them, and *k is the last one's key (ek and dk).
   * Same bytes as the generic loop; constant time. */
  size_t (*ctr_acpkm)(gostx_kuz_key *k, uint8_t ctr[16], size_t sec_blocks, const uint8_t *in,
                      uint8_t *out, size_t nsec);
  /* One-block chains (optional; NULL: one encrypt_blocks call per block):
   * nblocks blocks of CBC encryption, CFB encryption, OFB or the MAC's
   * chain, op and the state s as gostx__cipher_chain (lib/cipher_ops.h)
   * defines them, s kept in registers from block to block. */
  void (*chain)(const gostx_kuz_key *k, int op, uint8_t s[16], const uint8_t *in, uint8_t *out,
                size_t nblocks);
  /* MGM messages (AAD + data bytes) from which one gostx_mgm_* call each
   * beats the stream batch's multi-key lanes (gostx_batch_streams then
   * gives such streams that call; 0: never). Measured with `gostx bench
   * --impl LEVEL --batch SIZE --filter mgm-seal` (docs/BULK.md). */
  size_t mgm_solo_min;
  /* Counter runs back to back (optional; NULL: one ctr call per run): the
   * contract of gostx__cipher_ctr_runs (lib/cipher_ops.h), out = the
   * keystreams of nruns runs, each run's counter left as it is. For MGM's
   * H values and gamma of short messages: a kernel with wide groups fills
   * them across runs instead of padding each run's last one. */
  void (*ctr_runs)(const gostx_kuz_key *k, const struct gostx__ctr_run *runs, size_t nruns,
                   uint8_t *out);
};

/* Multi-key Kuznyechik (lib/kuznyechik/kuz.c): the handle gostx_kuz_mk and
 * its limits are in lib/blockops/multikey.h, which the batch lanes share. */
/* impl NULL: the dispatcher's choice. 1 <= n <= GOSTX_KUZ_MK_MAX. Only the
 * directions in dirs may be called. */
void gostx__kuz_mk_init(gostx_kuz_mk *m, const struct gostx_kuz_impl *impl,
                        const gostx_kuz_key *const *keys, size_t n, unsigned dirs);
void gostx__kuz_mk_encrypt(const gostx_kuz_mk *m, const uint8_t *in, uint8_t *out);
void gostx__kuz_mk_decrypt(const gostx_kuz_mk *m, const uint8_t *in, uint8_t *out);
void gostx__kuz_mk_clear(gostx_kuz_mk *m);

/* The ISA tables (lib/kuznyechik/kuz_*.c); lib/dispatch.c chooses. */
extern const struct gostx_kuz_impl gostx_kuz_portable;
/* Opt-in, table-based, leaks the key through the cache (lib/kuznyechik/kuz_lstable.c). */
extern const struct gostx_kuz_impl gostx_kuz_lstable;
#ifdef GOSTX_ARCH_X86_64
/* AVX-512 F/BW/VL + VBMI + GFNI (lib/kuznyechik/kuz_avx512.c; lib/x86_avx512.h). */
extern const struct gostx_kuz_impl gostx_kuz_avx512;
/* Its byte-sliced kernel (lib/kuznyechik/kuz_avx512_sliced.c): ngroups x 64
 * blocks under one key, encrypted or decrypted; in == out allowed. */
void gostx__kuz_avx512_sliced(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                              size_t ngroups, int decrypt);
/* ... and its counter mode: ngroups x 64 blocks of the impl table's ctr. */
void gostx__kuz_avx512_sliced_ctr(const gostx_kuz_key *k, uint8_t ctr[16], unsigned inc,
                                  const uint8_t *in, uint8_t *out, size_t ngroups);
/* ... and counter runs (gostx_kuz_impl.ctr_runs' layout, runs in order as
 * one stream of blocks): the stream's first nblocks keystream blocks into
 * out, in groups of 64 that may span runs, the last one padded when
 * nblocks is not a multiple of 64 (nblocks <= the runs' total). */
void gostx__kuz_avx512_sliced_ctr_runs(const gostx_kuz_key *k, const struct gostx__ctr_run *runs,
                                       uint8_t *out, size_t nblocks);
/* ... and XTS on data units of nb blocks under one key (the layout of
 * gostx_kuz_impl.xts: unit u at in / out + (idx ? idx[u] : u) * stride, T_0
 * at t + 16 u; block j whitened with T_0 * alpha^j before and after): the
 * first nblocks blocks of the units' blocks taken in order as one stream,
 * in groups of 64 that may span units (the last one padded when nblocks is
 * not a multiple of 64). Each unit finished is left at T_nb, the one where
 * the stream stops (unit nblocks / nb) at T_j, j = nblocks % nb; in == out
 * allowed. */
void gostx__kuz_avx512_sliced_xts_units(const gostx_kuz_key *k, uint8_t *t, const size_t *idx,
                                        const uint8_t *in, uint8_t *out, size_t stride,
                                        size_t nb, size_t nblocks, int decrypt);
/* AVX-512 F/BW/VL, bitsliced on zmm words (lib/kuznyechik/kuz_avx512bw.c). */
extern const struct gostx_kuz_impl gostx_kuz_avx512bw;
extern const struct gostx_kuz_impl gostx_kuz_avx2;
extern const struct gostx_kuz_impl gostx_kuz_ssse3;
#endif
#ifdef GOSTX_ARCH_AARCH64
extern const struct gostx_kuz_impl gostx_kuz_neon; /* bitsliced, lib/kuznyechik/kuz_neon.c */
#endif

#endif
