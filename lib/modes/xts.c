/* Kuznyechik-XTS: the IEEE 1619 XTS construction over the Kuznyechik block,
 * with ciphertext stealing, as VeraCrypt and dm-crypt "xts-plain64" use it.
 *
 *   T_0 = E_K2(tweak), T_{j+1} = T_j * alpha     C_j = E_K1(P_j xor T_j) xor T_j
 *
 * T is a 128-bit little-endian number (byte 0 least significant); times alpha
 * is a left shift by one, folding x^128 back in as 0x87 (IEEE 1619 section 5.2).
 * Full blocks go through the cipher in runs: the tweaks for a run are laid out
 * in a buffer, XORed in, one multi-block call, XORed out.
 *
 * Conformance: no standard publishes Kuznyechik-XTS vectors. The full-block
 * path reproduces VeraCrypt's Kuznyechik XTS self-test CRCs (which fixes the
 * tweak encryption, the little-endian alpha multiplication and plain64
 * sector numbering); ciphertext stealing rests on the IEEE 1619 text and is
 * checked against a textbook version in tests/test_xts.c. */
#include "internal.h"

#define XTS_BATCH 256 /* blocks per cipher call: the widest bitsliced Kuznyechik batch */

int gostx_xts_set_key(gostx_xts_key *x, const uint8_t key[GOSTX_XTS_KEY_LEN]) {
  int rc;
  if (!x || !key) return GOSTX_EINVAL;
  /* IEEE 1619-2007 section 5.1 (and 1619-2018): Key1 must differ from Key2. */
  if (gostx_memeq_ct(key, key + 32, 32) == 0) return GOSTX_EINVAL;
  rc = gostx_kuz_set_key(&x->data, key);
  if (!rc) rc = gostx_kuz_set_key(&x->tweak, key + 32);
  if (rc) gostx_xts_clear(x);
  return rc;
}

void gostx_xts_clear(gostx_xts_key *x) {
  if (x) gostx_memzero(x, sizeof *x);
}

/* T *= alpha on the little-endian halves (lo = bytes 0..7, hi = bytes 8..15). */
static inline void xts_mul_alpha(uint64_t *lo, uint64_t *hi) {
  uint64_t carry = 0 - (*hi >> 63);
  *hi = (*hi << 1) | (*lo >> 63);
  *lo = (*lo << 1) ^ (carry & 0x87);
}

static inline void xts_store_tweak(uint8_t *p, uint64_t lo, uint64_t hi) {
  gostx_store64_le(p, lo);
  gostx_store64_le(p + 8, hi);
}

/* One block with tweak t: out = F(in xor t) xor t, F = E_K1 or D_K1. */
static void xts_block(const gostx_xts_key *x, int decrypt, const uint8_t t[16],
                      const uint8_t *in, uint8_t *out) {
  uint8_t b[16];
  gostx_xor(b, in, t, 16);
  if (decrypt) gostx_kuz_decrypt_blocks(&x->data, b, b, 1);
  else gostx_kuz_encrypt_blocks(&x->data, b, b, 1);
  gostx_xor(out, b, t, 16);
  gostx_memzero(b, sizeof b);
}

static int xts_crypt(const gostx_xts_key *x, int decrypt, const uint8_t tweak[16],
                     const uint8_t *in, uint8_t *out, size_t len) {
  uint8_t tw[XTS_BATCH * 16], t0[16], t1[16], cc[16], pp[16];
  uint64_t lo, hi;
  size_t nfull, rest, bulk, tw_used = 0;
  if (!x || !tweak || !in || !out) return GOSTX_EINVAL;
  if (len < 16) return GOSTX_ELEN;
  nfull = len / 16;
  rest = len % 16;
  bulk = rest ? nfull - 1 : nfull; /* with stealing, the last full block waits */

  gostx_kuz_encrypt_blocks(&x->tweak, tweak, t0, 1);
  lo = gostx_load64_le(t0);
  hi = gostx_load64_le(t0 + 8);

  while (bulk) {
    size_t b = bulk < XTS_BATCH ? bulk : XTS_BATCH;
    if (16 * b > tw_used) tw_used = 16 * b;
    for (size_t i = 0; i < b; i++) {
      xts_store_tweak(tw + 16 * i, lo, hi);
      xts_mul_alpha(&lo, &hi);
    }
    gostx_xor(out, in, tw, 16 * b);
    if (decrypt) gostx_kuz_decrypt_blocks(&x->data, out, out, b);
    else gostx_kuz_encrypt_blocks(&x->data, out, out, b);
    gostx_xor(out, out, tw, 16 * b);
    in += 16 * b;
    out += 16 * b;
    bulk -= b;
  }

  if (rest) {
    /* Ciphertext stealing (IEEE 1619 section 5.3.2 / 5.4.2). Block m = the
     * last full one, tweak T_m; the partial block m+1 has tweak T_{m+1}. */
    xts_store_tweak(t0, lo, hi);
    xts_mul_alpha(&lo, &hi);
    xts_store_tweak(t1, lo, hi);
    /* Encryption runs block m under T_m then the merged block under T_{m+1};
     * decryption needs them the other way round. */
    xts_block(x, decrypt, decrypt ? t1 : t0, in, cc);
    memcpy(pp, in + 16, rest); /* read the tail before out (maybe == in) changes */
    memcpy(pp + rest, cc + rest, 16 - rest);
    memcpy(out + 16, cc, rest);
    xts_block(x, decrypt, decrypt ? t0 : t1, pp, out);
  }

  gostx_memzero(tw, tw_used); /* only what held tweaks: a 512-byte sector used 32 of 256 rows */
  gostx_memzero(t0, sizeof t0);
  gostx_memzero(t1, sizeof t1);
  gostx_memzero(cc, sizeof cc);
  gostx_memzero(pp, sizeof pp);
  return GOSTX_OK;
}

int gostx_xts_encrypt(const gostx_xts_key *x, const uint8_t tweak[16], const uint8_t *in,
                      uint8_t *out, size_t len) {
  return xts_crypt(x, 0, tweak, in, out, len);
}

int gostx_xts_decrypt(const gostx_xts_key *x, const uint8_t tweak[16], const uint8_t *in,
                      uint8_t *out, size_t len) {
  return xts_crypt(x, 1, tweak, in, out, len);
}

static void sector_tweak(uint8_t t[16], uint64_t sector) {
  gostx_store64_le(t, sector);
  memset(t + 8, 0, 8);
}

int gostx_xts_encrypt_sector(const gostx_xts_key *x, uint64_t sector, const uint8_t *in,
                             uint8_t *out, size_t len) {
  uint8_t t[16];
  sector_tweak(t, sector);
  return xts_crypt(x, 0, t, in, out, len);
}

int gostx_xts_decrypt_sector(const gostx_xts_key *x, uint64_t sector, const uint8_t *in,
                             uint8_t *out, size_t len) {
  uint8_t t[16];
  sector_tweak(t, sector);
  return xts_crypt(x, 1, t, in, out, len);
}
