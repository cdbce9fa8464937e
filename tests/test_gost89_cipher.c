/* GOST 28147-89 as a gostx_cipher (gostx_cipher_init_gost89): the GOST R
 * 34.13 modes run on it with the key's S-box set and RFC 5830 byte order.
 * Known answers for ECB; CBC, CFB, OFB, OMAC and CTR-ACPKM against modes
 * composed here from the 1989 block calls, for every S-box set, register
 * lengths of one to three blocks and lengths that cross the chain kernels'
 * batches; ACPKM re-keying must keep the cipher's kind. */
#include <stdlib.h>

#include "gostx/gost89.h"
#include "testutil.h"

/* Crypto++ GOST vectors (TestData/gostval.dat), id-GostR3411-94-TestParamSet;
 * the same as tests/test_gost89.c's first rows. */
static const char *const ecb_kat[][3] = {
  {"BE5EC2006CFF9DCF52354959F1FF0CBFE95061B5A648C10387069C25997C0672", "0DF82802B741A292", "07F9027DF7F7DF89"},
  {"75713134B60FEC45A607BB83AA3746AF4FF99DA6D1B53B5B1B402A1BAA030D1B", "1122334455667788", "03251E14F9D28ACB"},
};

static void test_ecb_kat(void) {
  for (size_t i = 0; i < sizeof ecb_kat / sizeof ecb_kat[0]; i++) {
    uint8_t *key = hex_alloc(ecb_kat[i][0], NULL), *pt = hex_alloc(ecb_kat[i][1], NULL);
    uint8_t *ct = hex_alloc(ecb_kat[i][2], NULL), out[8];
    gostx_cipher c;
    CHECK_RC(gostx_cipher_init_gost89(&c, key, GOSTX_SBOX_TEST_3411_94), 0, "init_gost89");
    CHECK(gostx_cipher_block_len(&c) == 8, "block length 8");
    CHECK_RC(gostx_ecb_encrypt(&c, pt, 8, out), 0, "ecb encrypt");
    CHECK_BYTES(out, ct, 8, "ECB KAT through the cipher handle");
    CHECK_RC(gostx_ecb_decrypt(&c, ct, 8, out), 0, "ecb decrypt");
    CHECK_BYTES(out, pt, 8, "ECB KAT decrypt through the cipher handle");
    gostx_cipher_clear(&c);
    free(key);
    free(pt);
    free(ct);
  }
}

enum { MAXLEN = 8 * 700 }; /* beyond the modes' 4096-byte batches */

/* The GOST R 34.13 modes with an m-byte register (z = m / 8 blocks), each
 * block through gostx_gost89_encrypt_blocks / decrypt_blocks. */
static void ref_cbc(const gostx_gost89_key *k, int dec, const uint8_t *iv, size_t m,
                    const uint8_t *in, size_t len, uint8_t *out) {
  uint8_t r[32], x[8];
  memcpy(r, iv, m);
  for (size_t i = 0; i < len; i += 8) {
    if (!dec) {
      for (int j = 0; j < 8; j++) x[j] = in[i + j] ^ r[j];
      gostx_gost89_encrypt_blocks(k, x, 1, out + i);
      memmove(r, r + 8, m - 8);
      memcpy(r + m - 8, out + i, 8);
    } else {
      uint8_t c[8];
      memcpy(c, in + i, 8);
      gostx_gost89_decrypt_blocks(k, c, 1, x);
      for (int j = 0; j < 8; j++) out[i + j] = x[j] ^ r[j];
      memmove(r, r + 8, m - 8);
      memcpy(r + m - 8, c, 8);
    }
  }
}

/* CFB (s = 8) and OFB (s = 8), one register block of m. */
static void ref_fb(const gostx_gost89_key *k, int ofb, int dec, const uint8_t *iv, size_t m,
                   const uint8_t *in, size_t len, uint8_t *out) {
  uint8_t r[32], g[8];
  memcpy(r, iv, m);
  for (size_t i = 0; i < len; i += 8) {
    size_t t = len - i < 8 ? len - i : 8;
    gostx_gost89_encrypt_blocks(k, r, 1, g);
    uint8_t c[8];
    memcpy(c, in + i, t);
    for (size_t j = 0; j < t; j++) out[i + j] = in[i + j] ^ g[j];
    /* R shifts in the gamma block (OFB) or the ciphertext (CFB) */
    memmove(r, r + 8, m - 8);
    memcpy(r + m - 8, ofb ? g : dec ? c : out + i, t);
  }
}

/* OMAC (GOST R 34.13 section 5.6), full tag. */
static void dbl64(uint8_t *k) {
  int carry = k[0] >> 7;
  for (int j = 0; j < 7; j++) k[j] = (uint8_t)(k[j] << 1 | k[j + 1] >> 7);
  k[7] = (uint8_t)(k[7] << 1 ^ (carry ? 0x1b : 0));
}

static void ref_omac(const gostx_gost89_key *k, const uint8_t *in, size_t len, uint8_t tag[8]) {
  uint8_t s[8] = {0}, k1[8] = {0}, last[8] = {0};
  gostx_gost89_encrypt_blocks(k, k1, 1, k1);
  dbl64(k1);
  size_t full = len && len % 8 == 0 ? len - 8 : len - len % 8;
  for (size_t i = 0; i < full; i += 8) {
    for (int j = 0; j < 8; j++) s[j] ^= in[i + j];
    gostx_gost89_encrypt_blocks(k, s, 1, s);
  }
  memcpy(last, in + full, len - full);
  if (len - full < 8) {
    last[len - full] = 0x80;
    dbl64(k1); /* K2 */
  }
  for (int j = 0; j < 8; j++) s[j] ^= last[j] ^ k1[j];
  gostx_gost89_encrypt_blocks(k, s, 1, tag);
}

static void test_modes_composed(void) {
  static uint8_t pt[MAXLEN], got[MAXLEN], want[MAXLEN];
  uint8_t key[32], iv[24];
  const size_t lens[] = {8, 16, 64, 4096, 4104, MAXLEN};
  for (int sbox = 0; sbox < GOSTX_SBOX_COUNT; sbox++) {
    t_rand_bytes(key, sizeof key);
    t_rand_bytes(iv, sizeof iv);
    gostx_cipher c;
    gostx_gost89_key k;
    CHECK_RC(gostx_cipher_init_gost89(&c, key, (gostx_sbox)sbox), 0, "init_gost89");
    CHECK_RC(gostx_gost89_set_key(&k, key, (gostx_sbox)sbox), 0, "gost89 key");
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
      const size_t len = lens[li];
      t_rand_bytes(pt, len);
      for (size_t m = 8; m <= 24; m += 8) {
        ref_cbc(&k, 0, iv, m, pt, len, want);
        CHECK_RC(gostx_cbc_encrypt(&c, iv, m, pt, len, got), 0, "cbc encrypt");
        CHECK(!memcmp(got, want, len), "CBC sbox %d m %zu len %zu", sbox, m, len);
        ref_cbc(&k, 1, iv, m, want, len, got);
        CHECK(!memcmp(got, pt, len), "reference CBC round trip");
        CHECK_RC(gostx_cbc_decrypt(&c, iv, m, want, len, got), 0, "cbc decrypt");
        CHECK(!memcmp(got, pt, len), "CBC decrypt sbox %d m %zu len %zu", sbox, m, len);
      }
      const size_t odd = len - 3; /* a partial last segment */
      ref_fb(&k, 0, 0, iv, 8, pt, odd, want);
      CHECK_RC(gostx_cfb_encrypt(&c, iv, 8, 8, pt, odd, got), 0, "cfb encrypt");
      CHECK(!memcmp(got, want, odd), "CFB sbox %d len %zu", sbox, odd);
      CHECK_RC(gostx_cfb_decrypt(&c, iv, 8, 8, want, odd, got), 0, "cfb decrypt");
      CHECK(!memcmp(got, pt, odd), "CFB decrypt sbox %d len %zu", sbox, odd);
      ref_fb(&k, 1, 0, iv, 16, pt, odd, want);
      CHECK_RC(gostx_ofb_crypt(&c, iv, 16, 8, pt, odd, got), 0, "ofb");
      CHECK(!memcmp(got, want, odd), "OFB sbox %d len %zu", sbox, odd);
      uint8_t tag[8], tag_want[8];
      ref_omac(&k, pt, odd, tag_want);
      CHECK_RC(gostx_omac(&c, pt, odd, tag, 8), 0, "omac");
      CHECK_BYTES(tag, tag_want, 8, "OMAC on GOST 28147-89");
    }
    gostx_cipher_clear(&c);
    gostx_gost89_clear(&k);
  }
}

/* CTR-ACPKM re-keys inside the mode: the next key must be a GOST 28147-89
 * key with the same S-box set, not a Magma one. */
static void test_acpkm_keeps_kind(void) {
  static uint8_t pt[256], got[256], want[256];
  uint8_t key[32], iv[4], ctr[8] = {0}, next[32];
  const size_t section = 64;
  t_rand_bytes(key, sizeof key);
  t_rand_bytes(iv, sizeof iv);
  t_rand_bytes(pt, sizeof pt);
  gostx_cipher c, r;
  CHECK_RC(gostx_cipher_init_gost89(&c, key, GOSTX_SBOX_CRYPTOPRO_A), 0, "init_gost89");
  r = c;
  memcpy(ctr, iv, 4);
  for (size_t i = 0; i < sizeof pt; i += 8) {
    if (i && i % section == 0) {
      CHECK_RC(gostx_acpkm_next_key(&r, next), 0, "acpkm next key");
      CHECK_RC(gostx_cipher_init_gost89(&r, next, GOSTX_SBOX_CRYPTOPRO_A), 0, "re-key");
    }
    uint8_t g[8];
    gostx_cipher_encrypt_blocks(&r, ctr, 1, g);
    for (int j = 0; j < 8; j++) want[i + j] = pt[i + j] ^ g[j];
    for (int j = 7; j >= 0 && ++ctr[j] == 0; j--) {
    }
  }
  CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, 4, section, pt, sizeof pt, got), 0, "ctr-acpkm");
  CHECK_BYTES(got, want, sizeof pt, "CTR-ACPKM on GOST 28147-89 re-keys as GOST 28147-89");
  gostx_cipher_clear(&c);
  gostx_cipher_clear(&r);
}

static void test_errors(void) {
  uint8_t key[32] = {1};
  gostx_cipher c;
  CHECK(gostx_cipher_init_gost89(NULL, key, GOSTX_SBOX_TC26_Z) == GOSTX_EINVAL, "NULL handle");
  CHECK(gostx_cipher_init_gost89(&c, NULL, GOSTX_SBOX_TC26_Z) == GOSTX_EINVAL, "NULL key");
  CHECK(gostx_cipher_init_gost89(&c, key, GOSTX_SBOX_COUNT) == GOSTX_EINVAL, "unknown S-box set");
  CHECK(gostx_cipher_init_gost89(&c, key, (gostx_sbox)-1) == GOSTX_EINVAL, "negative S-box set");
}

int main(void) {
  t_rand_init();
  test_ecb_kat();
  test_modes_composed();
  test_acpkm_keeps_kind();
  test_errors();
  return t_done();
}
