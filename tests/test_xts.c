/* Kuznyechik-XTS: VeraCrypt's published self-test values for Kuznyechik, and
 * a textbook XTS (IEEE 1619) written here from single-block cipher calls and
 * a bit-by-bit GF(2^128) multiplication, with ciphertext stealing. */
#include <stdlib.h>

#include "testutil.h"

/* ---- textbook reference ---- */

/* r = a * b mod x^128 + x^7 + x^2 + x + 1, IEEE 1619 convention: 16-byte
 * little-endian numbers, bit k of the number is coefficient of x^k. */
static int le_bit(const uint8_t *p, unsigned k) { return (p[k / 8] >> (k % 8)) & 1; }
static void le_flip(uint8_t *p, unsigned k) { p[k / 8] ^= (uint8_t)(1u << (k % 8)); }

static void ref_gf_mul_le(uint8_t r[16], const uint8_t a[16], const uint8_t b[16]) {
  uint8_t prod[32] = {0};
  for (unsigned i = 0; i < 128; i++)
    for (unsigned j = 0; j < 128; j++)
      if (le_bit(a, i) && le_bit(b, j)) le_flip(prod, i + j);
  for (unsigned k = 254; k >= 128; k--) {
    if (!le_bit(prod, k)) continue;
    le_flip(prod, k);
    le_flip(prod, k - 128 + 7);
    le_flip(prod, k - 128 + 2);
    le_flip(prod, k - 128 + 1);
    le_flip(prod, k - 128);
  }
  memcpy(r, prod, 16);
}

static const uint8_t ALPHA[16] = {2}; /* the polynomial x */

/* One block: F(in xor t) xor t with F = E_K1 or D_K1. */
static void ref_block(const gostx_kuz_key *k1, int dec, const uint8_t t[16], const uint8_t *in,
                      uint8_t *out) {
  uint8_t b[16];
  for (int i = 0; i < 16; i++) b[i] = in[i] ^ t[i];
  if (dec) gostx_kuz_decrypt_blocks(k1, b, b, 1);
  else gostx_kuz_encrypt_blocks(k1, b, b, 1);
  for (int i = 0; i < 16; i++) out[i] = b[i] ^ t[i];
}

/* IEEE 1619 section 5.3 / 5.4 with stealing, written straight from the text.
 * key = K1 || K2, len >= 16, in and out distinct. */
static void ref_xts(const uint8_t key[64], int dec, const uint8_t tweak[16], const uint8_t *in,
                    uint8_t *out, size_t len) {
  gostx_kuz_key k1, k2;
  size_t m = len / 16, b = len % 16, nt = m + (b ? 1 : 0);
  uint8_t (*t)[16] = malloc(nt * 16); /* the tweaks of the blocks, in order */
  gostx_kuz_set_key(&k1, key);
  gostx_kuz_set_key(&k2, key + 32);
  gostx_kuz_encrypt_blocks(&k2, tweak, t[0], 1);
  for (size_t j = 1; j < nt; j++) ref_gf_mul_le(t[j], t[j - 1], ALPHA);
  size_t plain = b ? m - 1 : m;
  for (size_t j = 0; j < plain; j++) ref_block(&k1, dec, t[j], in + 16 * j, out + 16 * j);
  if (b) {
    uint8_t cc[16], pp[16];
    const uint8_t *last_full = in + 16 * (m - 1), *partial = in + 16 * m;
    /* Encryption: CC = X(P_{m-1}, T_{m-1}); C_m = head of CC; C_{m-1} = X(P_m || tail of CC, T_m).
     * Decryption swaps the two tweaks. */
    ref_block(&k1, dec, dec ? t[m] : t[m - 1], last_full, cc);
    memcpy(pp, partial, b);
    memcpy(pp + b, cc + b, 16 - b);
    memcpy(out + 16 * m, cc, b);
    ref_block(&k1, dec, dec ? t[m - 1] : t[m], pp, out + 16 * (m - 1));
  }
  free(t);
  gostx_kuz_clear(&k1);
  gostx_kuz_clear(&k2);
}

/* ---- CRC-32 (IEEE 802.3, reflected), as VeraCrypt's GetCrc32 ---- */
static uint32_t crc32_buf(const uint8_t *p, size_t len) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < len; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

/* ---- tests ---- */

/* VeraCrypt src/Common/Tests.c, TestSectorBufEncryption(): key1 and key2 of
 * IEEE 1619 vectors 10-14, every 512-byte data unit holding bytes 00..ff
 * twice, four units starting at unit 0xFFFFFFFFFF - i (i = 0..3); the CRC-32
 * of the 2048 encrypted bytes for Kuznyechik, then EncryptBuffer (units 0..3). */
static void test_veracrypt(void) {
  static const uint8_t k1[32] = {0x27, 0x18, 0x28, 0x18, 0x28, 0x45, 0x90, 0x45, 0x23, 0x53, 0x60,
                                 0x28, 0x74, 0x71, 0x35, 0x26, 0x62, 0x49, 0x77, 0x57, 0x24, 0x70,
                                 0x93, 0x69, 0x99, 0x59, 0x57, 0x49, 0x66, 0x96, 0x76, 0x27};
  static const uint8_t k2[32] = {0x31, 0x41, 0x59, 0x26, 0x53, 0x58, 0x97, 0x93, 0x23, 0x84, 0x62,
                                 0x64, 0x33, 0x83, 0x27, 0x95, 0x02, 0x88, 0x41, 0x97, 0x16, 0x93,
                                 0x99, 0x37, 0x51, 0x05, 0x82, 0x09, 0x74, 0x94, 0x45, 0x92};
  static const uint32_t want_units[4] = {0x6b86e72e, 0xa4f8637d, 0xfd83e76d, 0xb24fc47b};
  const uint32_t want_buffer = 0xd6d39cdb, plain_crc = 0x9f5edd58;
  uint8_t key[64], buf[2048];
  gostx_xts_key x;
  memcpy(key, k1, 32);
  memcpy(key + 32, k2, 32);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)i;
  CHECK(crc32_buf(buf, sizeof buf) == plain_crc, "CRC-32 of the plaintext");
  for (int tc = 0; tc < 4; tc++) {
    uint64_t first = 0xffffffffffull - (uint64_t)tc;
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)i;
    for (int u = 0; u < 4; u++)
      CHECK_RC(gostx_xts_encrypt_sector(&x, first + (uint64_t)u, buf + 512 * u, buf + 512 * u, 512), 0,
               "sector enc");
    uint32_t crc = crc32_buf(buf, sizeof buf);
    CHECK(crc == want_units[tc], "VeraCrypt Kuznyechik XTS case %d: crc %08x want %08x", tc, crc,
          want_units[tc]);
    for (int u = 0; u < 4; u++)
      CHECK_RC(gostx_xts_decrypt_sector(&x, first + (uint64_t)u, buf + 512 * u, buf + 512 * u, 512), 0,
               "sector dec");
    CHECK(crc32_buf(buf, sizeof buf) == plain_crc, "VeraCrypt case %d decrypts back", tc);
  }
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)i;
  for (int u = 0; u < 4; u++) gostx_xts_encrypt_sector(&x, (uint64_t)u, buf + 512 * u, buf + 512 * u, 512);
  CHECK(crc32_buf(buf, sizeof buf) == want_buffer, "VeraCrypt Kuznyechik EncryptBuffer: crc %08x",
        crc32_buf(buf, sizeof buf));
  gostx_xts_clear(&x);
}

static void rand_key(uint8_t key[64]) {
  t_rand_bytes(key, 64);
  key[32] = (uint8_t)(key[0] ^ 1); /* halves always differ */
}

/* One length: encrypt and decrypt against the reference, round trip, in
 * place, misaligned. */
static void check_len(size_t len) {
  uint8_t key[64], tweak[16];
  uint8_t pt[1024 + 3], ct[1024 + 3], ref[1024], back[1024 + 3];
  gostx_xts_key x;
  size_t off = t_rand_below(4);
  rand_key(key);
  t_rand_bytes(tweak, 16);
  t_rand_bytes(pt + off, len);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");

  ref_xts(key, 0, tweak, pt + off, ref, len);
  CHECK_RC(gostx_xts_encrypt(&x, tweak, pt + off, ct + 3 - off, len), 0, "encrypt");
  if (!CHECK_BYTES(ct + 3 - off, ref, len, "xts vs reference")) fprintf(stderr, "  len %zu\n", len);
  CHECK_RC(gostx_xts_decrypt(&x, tweak, ct + 3 - off, back + off, len), 0, "decrypt");
  CHECK_BYTES(back + off, pt + off, len, "xts round trip");
  /* Decryption against the reference's decryption of the same bytes. */
  ref_xts(key, 1, tweak, pt + off, ref, len);
  CHECK_RC(gostx_xts_decrypt(&x, tweak, pt + off, back, len), 0, "decrypt random");
  CHECK_BYTES(back, ref, len, "xts decrypt vs reference");
  /* In place. */
  memcpy(back, pt + off, len);
  CHECK_RC(gostx_xts_encrypt(&x, tweak, back, back, len), 0, "in place enc");
  CHECK_BYTES(back, ct + 3 - off, len, "in place ct");
  CHECK_RC(gostx_xts_decrypt(&x, tweak, back, back, len), 0, "in place dec");
  CHECK_BYTES(back, pt + off, len, "in place round trip");
  gostx_xts_clear(&x);
}

static void test_lengths(void) {
  for (size_t len = 16; len <= 100; len++) check_len(len);
  for (int i = 0; i < 40; i++) check_len(16 + t_rand_below(1024 - 16 + 1));
  check_len(1024);
  check_len(1023);
}

/* A long data unit: many internal runs of blocks, and a stolen tail. */
static void test_long(void) {
  const size_t len = 16 * 1024 + 7;
  uint8_t key[64], tweak[16];
  uint8_t *pt = malloc(len), *ct = malloc(len), *back = malloc(len), *ref = malloc(len);
  gostx_xts_key x;
  rand_key(key);
  t_rand_bytes(tweak, 16);
  t_rand_bytes(pt, len);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, pt, ct, len), 0, "long enc");
  ref_xts(key, 0, tweak, pt, ref, len);
  CHECK_BYTES(ct, ref, len, "long unit vs reference");
  CHECK_RC(gostx_xts_decrypt(&x, tweak, ct, back, len), 0, "long dec");
  CHECK_BYTES(back, pt, len, "long round trip");
  free(pt);
  free(ct);
  free(back);
  free(ref);
  gostx_xts_clear(&x);
}

static void test_sector_and_errors(void) {
  uint8_t key[64], tweak[16] = {0}, buf[64] = {0}, a[64], b[64];
  gostx_xts_key x;
  rand_key(key);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");
  /* plain64: the sector number as a 16-byte little-endian tweak. */
  const uint64_t sector = 0x0123456789abcdefull;
  for (int i = 0; i < 8; i++) tweak[i] = (uint8_t)(sector >> (8 * i));
  t_rand_bytes(buf, sizeof buf);
  CHECK_RC(gostx_xts_encrypt_sector(&x, sector, buf, a, 50), 0, "sector");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, b, 50), 0, "tweak");
  CHECK_BYTES(a, b, 50, "sector = LE tweak");
  CHECK_RC(gostx_xts_decrypt_sector(&x, sector, a, b, 50), 0, "sector dec");
  CHECK_BYTES(b, buf, 50, "sector round trip");

  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, a, 0), GOSTX_ELEN, "len 0");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, a, 1), GOSTX_ELEN, "len 1");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, a, 15), GOSTX_ELEN, "len 15");
  CHECK_RC(gostx_xts_decrypt(&x, tweak, buf, a, 15), GOSTX_ELEN, "dec len 15");
  CHECK_RC(gostx_xts_encrypt_sector(&x, 1, buf, a, 15), GOSTX_ELEN, "sector len 15");
  CHECK_RC(gostx_xts_encrypt(NULL, tweak, buf, a, 16), GOSTX_EINVAL, "NULL key");
  CHECK_RC(gostx_xts_encrypt(&x, NULL, buf, a, 16), GOSTX_EINVAL, "NULL tweak");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, NULL, a, 16), GOSTX_EINVAL, "NULL in");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, NULL, 16), GOSTX_EINVAL, "NULL out");
  gostx_xts_clear(&x);

  memcpy(key + 32, key, 32);
  CHECK_RC(gostx_xts_set_key(&x, key), GOSTX_EINVAL, "key1 == key2");
  CHECK_RC(gostx_xts_set_key(NULL, key), GOSTX_EINVAL, "NULL ctx");
  CHECK_RC(gostx_xts_set_key(&x, NULL), GOSTX_EINVAL, "NULL key bytes");
}

static void test_gf_reference(void) {
  /* The reference multiply itself: x^127 * x folds to 0x87, and x * stays a shift. */
  uint8_t a[16] = {0}, r[16], want[16] = {0x87};
  a[15] = 0x80;
  ref_gf_mul_le(r, a, ALPHA);
  CHECK_BYTES(r, want, 16, "x^127 * alpha");
  memset(a, 0, 16);
  a[0] = 0x81;
  memset(want, 0, 16);
  want[0] = 0x02;
  want[1] = 0x01;
  ref_gf_mul_le(r, a, ALPHA);
  CHECK_BYTES(r, want, 16, "0x81 * alpha");
}

int main(void) {
  t_rand_init();
  test_gf_reference();
  test_veracrypt();
  test_lengths();
  test_long();
  test_sector_and_errors();
  return t_done();
}
