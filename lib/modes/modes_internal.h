/* Helpers shared by the GOST R 34.13-2015 modes in lib/modes/ (not installed).
 * Tests may include this header to reach the OMAC subkeys. */
#ifndef GOSTX_MODES_INTERNAL_H
#define GOSTX_MODES_INTERNAL_H

#include "internal.h"
#include "cipher_ops.h"

/* Bytes per multi-block call: modes that can batch (ECB, CTR gamma, CBC and
 * CFB decryption) hand the block cipher this much at a time, so that wide
 * SIMD paths get full batches. */
#define GOSTX__MODES_BATCH 4096

/* Both block lengths the modes know; anything else is not a valid cipher. */
static inline int gostx__modes_cipher_ok(const gostx_cipher *c) {
  return c && ((c->id == GOSTX_ALG_KUZNYECHIK && c->block_len == GOSTX_KUZ_BLOCK_LEN) ||
               (c->id == GOSTX_ALG_MAGMA && c->block_len == GOSTX_MAGMA_BLOCK_LEN));
}

/* Multiplication by x in GF(2^n), big-endian (OMAC subkeys): shift left by one
 * bit and xor R_n (0x87 for n = 128, 0x1b for n = 64) into the last byte when
 * the top bit was set, without branching on it. out may equal in. */
void gostx__omac_dbl(uint8_t *out, const uint8_t *in, size_t n);
/* K1 = dbl(E_K(0^n)), K2 = dbl(K1) (GOST R 34.13-2015 section 5.6.1). Either
 * output may be NULL. */
void gostx__omac_subkeys(const gostx_cipher *c, uint8_t *k1, uint8_t *k2);

/* ACPKM: replace c's key by ACPKM(key) in place. */
int gostx__acpkm_rekey(gostx_cipher *c);

/* Per-mode cores over a prepared context (lib/modes/stream.c sets it up).
 * ECB/CBC take whole blocks; in == out is allowed. */
void gostx__ecb_blocks(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t nblocks);
void gostx__cbc_blocks(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t nblocks);
/* Stream modes: any length; in == out is allowed. */
void gostx__cfb_bytes(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t len);
void gostx__ofb_bytes(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t len);
void gostx__ctr_bytes(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t len);

/* ---- XTS cores (lib/modes/xts.c), shared with the bulk engine ----
 * Units: count data units of len >= 16 bytes, unit k at in / out + p * len,
 * p = idx ? idx[k] : k (in == out allowed). */
#define GOSTX__XTS_UNITS 256 /* units per E_K2 call and per stealing call, at most */

/* Everything for count units under one key: unit k's tweak is the 16-byte
 * little-endian (plain64) number (nums ? nums[p] : first + p) * step, mod 2^64.
 * The tweaks of up to GOSTX__XTS_UNITS units go through E_K2 in one call. */
void gostx__xts_units(const gostx_xts_key *x, int decrypt, const uint64_t *nums, uint64_t first,
                      uint64_t step, const size_t *idx, const uint8_t *in, uint8_t *out,
                      size_t len, size_t count);
/* Step 2 alone: gostx__xts_full (cipher_ops.h, the cipher layer). */
/* Step 3 alone: ciphertext stealing for count <= GOSTX__XTS_UNITS units of
 * len bytes (len % 16 != 0), t[k] = T_m of unit k (m = len / 16 - 1, the
 * last full block, not yet processed). crypt runs n blocks in place, block
 * k under unit k's key (one key, or a multi-key schedule). */
typedef void (*gostx__xts_crypt_fn)(const void *ctx, int decrypt, uint8_t *buf, size_t n);
void gostx__xts_steal(gostx__xts_crypt_fn crypt, const void *ctx, int decrypt, const uint8_t *t,
                      const size_t *idx, const uint8_t *in, uint8_t *out, size_t len,
                      size_t count);

#endif
