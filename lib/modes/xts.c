/* Kuznyechik-XTS: the IEEE 1619 XTS construction over the Kuznyechik block,
 * with ciphertext stealing, as VeraCrypt and dm-crypt "xts-plain64" use it.
 *
 *   T_0 = E_K2(tweak), T_{j+1} = T_j * alpha     C_j = E_K1(P_j xor T_j) xor T_j
 *
 * T is a 128-bit little-endian number (byte 0 least significant); times alpha
 * is a left shift by one, folding x^128 back in as 0x87 (IEEE 1619 section 5.2;
 * gostx__xts_mul_alpha in internal.h).
 *
 * Everything XTS in the library runs through this file's cores, for one data
 * unit (the public one-unit calls) as for many (gostx_xts_*_mt, the sector
 * batches, the disk calls of include/gostx/bulk.h):
 *   1. the tweaks of up to XTS_UNITS units go through E_K2 in one call;
 *   2. their full blocks go through the implementation's xts entry (the
 *      whitening inside the cipher kernel, tweaks made in registers) or,
 *      without one, the generic loop below: runs of up to XTS_RUN blocks,
 *      back to back in memory across unit boundaries, tweaks laid out in a
 *      buffer, XORed in, one multi-block call, XORed out;
 *   3. ciphertext stealing, when the unit length is not a multiple of 16,
 *      for all the units at once (two calls of one block per unit).
 *
 * Conformance: no standard publishes Kuznyechik-XTS vectors. The full-block
 * path reproduces VeraCrypt's Kuznyechik XTS self-test CRCs (which fixes the
 * tweak encryption, the little-endian alpha multiplication and plain64
 * sector numbering); ciphertext stealing rests on the IEEE 1619 text and is
 * checked against a textbook version in tests/test_xts.c. */
#include "modes_internal.h"
#include "cipher_ops.h"

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

/* ---- step 3: ciphertext stealing ---- */

void gostx__xts_steal(gostx__xts_crypt_fn crypt, const void *ctx, int decrypt, const uint8_t *t,
                      const size_t *idx, const uint8_t *in, uint8_t *out, size_t len,
                      size_t count) {
  /* IEEE 1619 5.3.2 / 5.4.2. Block m (the last full one) has tweak T_m =
   * t[u], the partial block T_{m+1}; encryption runs block m under T_m and
   * then the merged block under T_{m+1}, decryption the other way round.
   * Both steps for all the units in one call each. */
  enum { U = GOSTX__XTS_UNITS };
  uint8_t ta[U * 16], tb[U * 16], buf[U * 16], cc[16];
  const size_t rest = len % 16, m = len / 16 - 1;
  for (size_t k = 0; k < count; k++) {
    uint64_t lo = gostx_load64_le(t + 16 * k), hi = gostx_load64_le(t + 16 * k + 8);
    uint8_t *first = decrypt ? tb + 16 * k : ta + 16 * k, *second = decrypt ? ta + 16 * k : tb + 16 * k;
    gostx_store64_le(first, lo);
    gostx_store64_le(first + 8, hi);
    gostx__xts_mul_alpha(&lo, &hi);
    gostx_store64_le(second, lo);
    gostx_store64_le(second + 8, hi);
    const size_t p = (idx ? idx[k] : k) * len + 16 * m;
    gostx_xor(buf + 16 * k, in + p, ta + 16 * k, 16);
  }
  crypt(ctx, decrypt, buf, count);
  for (size_t k = 0; k < count; k++) {
    const size_t p = (idx ? idx[k] : k) * len + 16 * m;
    gostx_xor(cc, buf + 16 * k, ta + 16 * k, 16); /* CC */
    /* PP = tail || CC[rest..]; read the tail before out (maybe in) changes. */
    memcpy(buf + 16 * k, in + p + 16, rest);
    memcpy(buf + 16 * k + rest, cc + rest, 16 - rest);
    memcpy(out + p + 16, cc, rest);
    gostx_xor(buf + 16 * k, buf + 16 * k, tb + 16 * k, 16);
  }
  crypt(ctx, decrypt, buf, count);
  for (size_t k = 0; k < count; k++) {
    const size_t p = (idx ? idx[k] : k) * len + 16 * m;
    gostx_xor(out + p, buf + 16 * k, tb + 16 * k, 16);
  }
  gostx_memzero(ta, 16 * count);
  gostx_memzero(tb, 16 * count);
  gostx_memzero(buf, 16 * count);
  gostx_memzero(cc, sizeof cc);
}

static void one_key_crypt(const void *ctx, int decrypt, uint8_t *buf, size_t n) {
  if (decrypt) gostx_kuz_decrypt_blocks(ctx, buf, n, buf);
  else gostx_kuz_encrypt_blocks(ctx, buf, n, buf);
}

/* Steps 2 and 3 for count <= XTS_UNITS units whose T_0 are in t. */
static void xts_finish(const gostx_xts_key *x, int decrypt, uint8_t *t, const size_t *idx,
                       const uint8_t *in, uint8_t *out, size_t len, size_t count) {
  const size_t nb = len / 16 - (len % 16 ? 1 : 0); /* with stealing, the last full block waits */
  const gostx_kuz_key *const k[1] = {&x->data};
  gostx__xts_full(k, 1, decrypt, t, idx, in, out, len, nb, count);
  if (len % 16) gostx__xts_steal(one_key_crypt, &x->data, decrypt, t, idx, in, out, len, count);
}

void gostx__xts_units(const gostx_xts_key *x, int decrypt, const uint64_t *nums, uint64_t first,
                      uint64_t step, const size_t *idx, const uint8_t *in, uint8_t *out,
                      size_t len, size_t count) {
  enum { U = GOSTX__XTS_UNITS };
  uint8_t t[U * 16];
  size_t used = 0;
  for (size_t base = 0; base < count; base += U) {
    const size_t c = count - base < U ? count - base : U;
    for (size_t k = 0; k < c; k++) {
      const size_t p = idx ? idx[base + k] : base + k;
      gostx_store64_le(t + 16 * k, (nums ? nums[p] : first + p) * step); /* plain64 */
      memset(t + 16 * k + 8, 0, 8);
    }
    gostx_kuz_encrypt_blocks(&x->tweak, t, c, t); /* T_0 of every unit, one call */
    if (idx) xts_finish(x, decrypt, t, idx + base, in, out, len, c);
    else xts_finish(x, decrypt, t, NULL, in + base * len, out + base * len, len, c);
    if (used < 16 * c) used = 16 * c;
  }
  gostx_memzero(t, used);
}

/* ---- the one-unit API ---- */

static int xts_crypt(const gostx_xts_key *x, int decrypt, const uint8_t tweak[16],
                     const uint8_t *in, uint8_t *out, size_t len) {
  uint8_t t[16];
  if (!x || !tweak || !in || !out) return GOSTX_EINVAL;
  if (len < 16) return GOSTX_ELEN;
  gostx_kuz_encrypt_blocks(&x->tweak, tweak, 1, t);
  xts_finish(x, decrypt, t, NULL, in, out, len, 1);
  gostx_memzero(t, sizeof t);
  return GOSTX_OK;
}

int gostx_xts_encrypt(const gostx_xts_key *x, const uint8_t tweak[16], const uint8_t *in,
                      size_t len, uint8_t *out) {
  return xts_crypt(x, 0, tweak, in, out, len);
}

int gostx_xts_decrypt(const gostx_xts_key *x, const uint8_t tweak[16], const uint8_t *in,
                      size_t len, uint8_t *out) {
  return xts_crypt(x, 1, tweak, in, out, len);
}

static int xts_sector(const gostx_xts_key *x, int decrypt, uint64_t sector, const uint8_t *in,
                      uint8_t *out, size_t len) {
  if (!x || !in || !out) return GOSTX_EINVAL;
  if (len < 16) return GOSTX_ELEN;
  gostx__xts_units(x, decrypt, NULL, sector, 1, NULL, in, out, len, 1);
  return GOSTX_OK;
}

int gostx_xts_encrypt_sector(const gostx_xts_key *x, uint64_t sector, const uint8_t *in,
                             size_t len, uint8_t *out) {
  return xts_sector(x, 0, sector, in, out, len);
}

int gostx_xts_decrypt_sector(const gostx_xts_key *x, uint64_t sector, const uint8_t *in,
                             size_t len, uint8_t *out) {
  return xts_sector(x, 1, sector, in, out, len);
}
