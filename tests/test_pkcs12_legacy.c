/* The legacy algorithms gostx reads PFX files others write with, and
 * nothing else (lib/sha1, lib/des3, lib/rc2, lib/pkcs12/legacy.c): SHA-1
 * against FIPS 180's examples, HMAC-SHA1 against RFC 2202, Triple DES
 * against NIST SP 800-67's example, FIPS 46's worked key schedule and an
 * SP 800-20 known answer, RC2 against RFC 2268's vectors, CBC decryption
 * against its definition over the block cipher, RFC 7292's KDF against
 * OpenSSL's PKCS12KDF, and the padding. The CryptoPro files themselves
 * (tests/test_pkcs12.c) check SHA-1, the KDF and 3DES together. */
#include "des3/des3.h"
#include "rc2/rc2.h"
#include "pkcs12/pkcs12_internal.h"
#include "md_kat.h"
#include "sha1/sha1.h"
#include "testutil.h"

static void unhex(const char *hex, uint8_t *out, size_t len) {
  CHECK(hex_decode(hex, out, len) == (long)len, "hex constant %s", hex);
}

static void sha1_init(void *c) { gostx__sha1_init(c); }
static void sha1_update(void *c, const void *p, size_t n) { gostx__sha1_update(c, p, n); }
static void sha1_final(void *c, uint8_t *out) { gostx__sha1_final(c, out); }

/* FIPS 180's examples and the empty message; a million 'a' and splits
 * (md_kat.h). */
static void test_sha1(void) {
  static const t_md_vector v[] = {
      {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
      {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
  };
  gostx__sha1_ctx ctx;
  t_md md = {"SHA-1", 20, gostx__sha1, sha1_init, sha1_update, sha1_final, &ctx};
  t_md_check(&md, v, sizeof v / sizeof v[0], "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

static void test_hmac_sha1(void) {
  static const char big[] = "Test Using Larger Than Block-Size Key - Hash Key First";
  uint8_t k0b[20], kaa[80], want[20], got[20];
  memset(k0b, 0x0b, sizeof k0b), memset(kaa, 0xaa, sizeof kaa);
  gostx__hmac_sha1(k0b, 20, "Hi There", 8, got);
  unhex("b617318655057264e28bc0b6fb378c8ef146be00", want, 20);
  CHECK_BYTES(got, want, 20, "RFC 2202 case 1");
  gostx__hmac_sha1((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28, got);
  unhex("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79", want, 20);
  CHECK_BYTES(got, want, 20, "RFC 2202 case 2");
  gostx__hmac_sha1(kaa, 80, big, strlen(big), got);
  unhex("aa4ae5e15272d00e95705637ce8a3b55ed402112", want, 20);
  CHECK_BYTES(got, want, 20, "RFC 2202 case 6 (a key longer than the block)");
}

static void test_des3(void) {
  uint8_t key[24], pt[24], ct[24], got[24], iv[8];
  /* SP 800-67 Rev. 1 appendix B: three keys, "The qufck brown fox jump" */
  unhex("0123456789abcdef23456789abcdef01456789abcdef0123", key, 24);
  memcpy(pt, "The qufck brown fox jump", 24);
  unhex("a826fd8ce53b855fcce21c8112256fe668d5c05dd9b6b900", ct, 24);
  for (int i = 0; i < 3; i++) gostx__des3_encrypt_block(key, pt + 8 * i, got + 8 * i);
  CHECK_BYTES(got, ct, 24, "SP 800-67 example, encryption");
  /* CBC decryption, against C_i = E(P_i ^ C_{i-1}) built here from the block */
  unhex("f69f2445df4f9b17", iv, 8);
  uint8_t chain[8], cbc[24];
  memcpy(chain, iv, 8);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 8; j++) chain[j] ^= pt[8 * i + j];
    gostx__des3_encrypt_block(key, chain, cbc + 8 * i);
    memcpy(chain, cbc + 8 * i, 8);
  }
  unhex("a5c282bad0de3774becd2e04386b589fb5057d8552fc4336", ct, 24); /* openssl des-ede3-cbc */
  CHECK_BYTES(cbc, ct, 24, "CBC over the block cipher");
  CHECK_RC(gostx__des3_cbc_decrypt(key, iv, cbc, 24, got), 0, "CBC decryption");
  CHECK_BYTES(got, pt, 24, "CBC decryption");
  CHECK_RC(gostx__des3_cbc_decrypt(key, iv, cbc, 23, got), GOSTX_EINVAL, "not whole blocks");
  /* one key three times is single DES: FIPS 46's worked example and SP
   * 800-20 table 1's first variable-plaintext answer */
  unhex("133457799bbcdff1133457799bbcdff1133457799bbcdff1", key, 24);
  unhex("0123456789abcdef", pt, 8), unhex("85e813540f0ab405", ct, 8);
  gostx__des3_encrypt_block(key, pt, got);
  CHECK_BYTES(got, ct, 8, "DES worked example");
  memset(key, 1, 24);
  unhex("8000000000000000", pt, 8), unhex("95f8a5e5dd31d900", ct, 8);
  gostx__des3_encrypt_block(key, pt, got);
  CHECK_BYTES(got, ct, 8, "SP 800-20 variable plaintext, round 1");
}

/* RFC 2268 section 5, every vector; and CBC decryption under RC2 against
 * the chain built here from its block encryption. */
static void test_rc2(void) {
  static const struct { const char *key; unsigned bits; const char *pt, *ct; } v[] = {
      {"0000000000000000", 63, "0000000000000000", "ebb773f993278eff"},
      {"ffffffffffffffff", 64, "ffffffffffffffff", "278b27e42e2f0d49"},
      {"3000000000000000", 64, "1000000000000001", "30649edf9be7d2c2"},
      {"88", 64, "0000000000000000", "61a8a244adacccf0"},
      {"88bca90e90875a", 64, "0000000000000000", "6ccf4308974c267f"},
      {"88bca90e90875a7f0f79c384627bafb2", 64, "0000000000000000", "1a807d272bbe5db1"},
      {"88bca90e90875a7f0f79c384627bafb2", 128, "0000000000000000", "2269552ab0f85ca6"},
      {"88bca90e90875a7f0f79c384627bafb216f80a6f85920584c42fceb0be255daf1e", 129, "0000000000000000",
       "5b78d3a43dfff1f1"},
  };
  uint8_t key[33], pt[8], ct[8], got[8], iv[8] = {9, 8, 7, 6, 5, 4, 3, 2};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    long n = hex_decode(v[i].key, key, sizeof key);
    unhex(v[i].pt, pt, 8), unhex(v[i].ct, ct, 8);
    CHECK(n > 0 && !gostx__rc2_encrypt_block(key, (size_t)n, v[i].bits, pt, got), "rc2 %zu", i);
    CHECK_BYTES(got, ct, 8, v[i].ct);
    static const uint8_t zero_iv[8];
    CHECK(!gostx__rc2_cbc_decrypt(key, (size_t)n, v[i].bits, zero_iv, ct, 8, got), "rc2 decrypt %zu", i);
    CHECK_BYTES(got, pt, 8, "RFC 2268 decryption");
    for (int j = 0; j < 8; j++) pt[j] ^= iv[j];
    gostx__rc2_encrypt_block(key, (size_t)n, v[i].bits, pt, ct); /* CBC, one block: E(P ^ IV) */
    CHECK(!gostx__rc2_cbc_decrypt(key, (size_t)n, v[i].bits, iv, ct, 8, got), "rc2 cbc %zu", i);
    unhex(v[i].pt, pt, 8);
    CHECK_BYTES(got, pt, 8, "RC2 CBC decryption");
  }
  CHECK_RC(gostx__rc2_cbc_decrypt(key, 5, 40, iv, ct, 7, got), GOSTX_EINVAL, "not whole blocks");
  CHECK_RC(gostx__rc2_encrypt_block(key, 0, 40, pt, got), GOSTX_EINVAL, "no key");
}

/* RFC 7292 B.2 over SHA-1, against OpenSSL 3's PKCS12KDF given the
 * BMPString (`openssl kdf -kdfopt digest:SHA1 -kdfopt hexpass:BMP+0000
 * ... PKCS12KDF`; "smeg" is also BouncyCastle's vector): ASCII and
 * Cyrillic passwords, one block and three (the I_j update), one and 1000
 * rounds. */
static void test_kdf(void) {
  uint8_t bmp[64], salt[8], want[45], got[45];
  size_t bmp_len;
  CHECK_RC(gostx__pkcs12_bmp_password((const uint8_t *)"smeg", 4, bmp, sizeof bmp, &bmp_len), 0, "bmp");
  unhex("0a58cf64530d823f", salt, 8);
  CHECK_RC(gostx__pkcs12_kdf_sha1(bmp, bmp_len, salt, 8, 1, 1, got, 24), 0, "kdf");
  unhex("8aaae6297b6cb04642ab5b077851284eb7128f1a2a7fbca3", want, 24);
  CHECK_BYTES(got, want, 24, "smeg, id 1, 1 round");
  CHECK_RC(gostx__pkcs12_bmp_password((const uint8_t *)"пароль", 12, bmp, sizeof bmp, &bmp_len), 0, "bmp");
  CHECK(bmp_len == 14 && bmp[0] == 0x04 && bmp[1] == 0x3f && !bmp[12] && !bmp[13], "BMPString + NUL");
  unhex("05dec959acff72f7", salt, 8);
  CHECK_RC(gostx__pkcs12_kdf_sha1(bmp, bmp_len, salt, 8, 3, 1000, got, 45), 0, "kdf");
  unhex("cb931d25f9e18ef0826603bce021c9895c3e4893d82326ea2443ccd6772680c2f789e782ee57ffe64425fe3603",
        want, 45);
  CHECK_BYTES(got, want, 45, "пароль, id 3, 1000 rounds, 45 bytes");
  CHECK_RC(gostx__pkcs12_bmp_password((const uint8_t *)"\xf0\x9f\x98\x80", 4, bmp, sizeof bmp, &bmp_len),
           GOSTX_EINVAL, "outside the BMP");
}

/* pbeWithSHAAnd3-KeyTripleDES-CBC: one block made here under the key and
 * IV of the KDF, then its PKCS#5 padding judged: good ones cut, others
 * (zero, over 8, not all the same) refused. */
static void test_des3_pbe_padding(void) {
  static const struct { const char *block; long kept; } v[] = {
      {"41424344454647" "01", 7}, {"0808080808080808", 0}, {"4142434445460202", 6},
      {"4142434445460302", -1}, {"4142434445464700", -1}, {"0909090909090909", -1},
      {"4142434445464708", -1},
  };
  static const uint8_t bmp[] = {0, 'p', 0, 'w', 0, 0}, salt[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint8_t key[24], iv[8], block[8], ct[8], out[8];
  CHECK(!gostx__pkcs12_kdf_sha1(bmp, sizeof bmp, salt, 8, 1, 5, key, 24) &&
            !gostx__pkcs12_kdf_sha1(bmp, sizeof bmp, salt, 8, 2, 5, iv, 8),
        "kdf");
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    unhex(v[i].block, block, 8);
    for (int j = 0; j < 8; j++) block[j] ^= iv[j];
    gostx__des3_encrypt_block(key, block, ct);
    size_t n = 99;
    int rc = gostx__pkcs12_legacy_decrypt(GOSTX__P12_SHA_3DES, bmp, sizeof bmp, salt, 8, 5, ct, 8, out, &n);
    CHECK(v[i].kept < 0 ? rc == GOSTX_EAUTH : rc == 0 && n == (size_t)v[i].kept, "padding %s: rc %d, %zu kept",
          v[i].block, rc, n);
  }
}

int main(void) {
  t_rand_init();
  test_sha1();
  test_hmac_sha1();
  test_des3();
  test_rc2();
  test_kdf();
  test_des3_pbe_padding();
  return t_done();
}
