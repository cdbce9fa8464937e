/* Magma (GOST R 34.12-2015, RFC 8891) and the shared GOST 28147-89 core:
 * every case of tests/vectors/magma.json (t, g, key schedule, encryption with
 * all 31 round states, decryption), the same example in the GOST 28147-89
 * byte order, and random round trips against a plain reference written here
 * from RFC 8891 section 4 (unpacked S-box table, no code shared with lib/). */
#include <stdlib.h>

#include "magma/impl.h"
#include "testutil.h"

/* ---- Independent reference: RFC 8891 pi'_0..pi'_7, table lookups ---- */
static const uint8_t ref_pi[8][16] = {
  {12, 4, 6, 2, 10, 5, 11, 9, 14, 8, 13, 7, 0, 3, 15, 1},
  {6, 8, 2, 3, 9, 10, 5, 12, 1, 14, 4, 7, 11, 13, 0, 15},
  {11, 3, 5, 8, 2, 15, 10, 13, 14, 1, 7, 4, 12, 9, 6, 0},
  {12, 8, 2, 1, 13, 4, 15, 6, 7, 0, 10, 5, 3, 14, 9, 11},
  {7, 15, 5, 10, 8, 1, 6, 13, 0, 9, 3, 14, 11, 4, 2, 12},
  {5, 13, 15, 6, 9, 2, 12, 10, 11, 7, 8, 1, 4, 3, 14, 0},
  {8, 14, 2, 5, 6, 9, 1, 12, 15, 4, 11, 0, 13, 10, 3, 7},
  {1, 7, 14, 13, 0, 5, 8, 3, 4, 15, 10, 6, 9, 12, 11, 2},
};

static uint32_t ref_g(uint32_t k, uint32_t a) {
  uint32_t x = a + k, y = 0;
  for (int i = 0; i < 8; i++) y |= (uint32_t)ref_pi[i][(x >> (4 * i)) & 15] << (4 * i);
  return (y << 11) | (y >> 21);
}

/* Encrypts/decrypts one block, Magma byte order (big-endian halves). */
static void ref_block(const uint8_t key[32], const uint8_t in[8], uint8_t out[8], int dec) {
  uint32_t K[32];
  for (int i = 0; i < 8; i++) {
    uint32_t w = (uint32_t)key[4 * i] << 24 | (uint32_t)key[4 * i + 1] << 16 |
                 (uint32_t)key[4 * i + 2] << 8 | key[4 * i + 3];
    K[i] = K[i + 8] = K[i + 16] = K[31 - i] = w;
  }
  uint32_t a1 = (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
  uint32_t a0 = (uint32_t)in[4] << 24 | (uint32_t)in[5] << 16 | (uint32_t)in[6] << 8 | in[7];
  for (int r = 0; r < 32; r++) {
    uint32_t k = dec ? K[31 - r] : K[r];
    uint32_t t = a1 ^ ref_g(k, a0);
    if (r == 31) { a1 = t; break; }
    a1 = a0;
    a0 = t;
  }
  for (int i = 0; i < 4; i++) {
    out[i] = (uint8_t)(a1 >> (24 - 8 * i));
    out[4 + i] = (uint8_t)(a0 >> (24 - 8 * i));
  }
}

static uint32_t hex32(const char *h) { return (uint32_t)strtoul(h, NULL, 16); }

/* Byte-reverses each 32-bit word of a buffer (Magma <-> GOST 28147-89 key order). */
static void rev_words(uint8_t *out, const uint8_t *in, size_t len) {
  for (size_t i = 0; i < len; i += 4)
    for (int j = 0; j < 4; j++) out[i + j] = in[i + 3 - j];
}
/* Magma block -> GOST 28147-89 block: words byte-reversed and halves swapped. */
static void to_gost89_block(uint8_t out[8], const uint8_t in[8]) {
  for (int j = 0; j < 4; j++) { out[j] = in[7 - j]; out[4 + j] = in[3 - j]; }
}

static void test_vectors(void) {
  json *f = tv_load("magma.json");
  json *cases = tv_cases(f);
  const uint64_t *sz = gostx__magma_sbox[GOSTX_SBOX_TC26_Z];
  int n_enc = 0;
  for (size_t i = 0; i < json_len(cases); i++) {
    json *c = json_at(cases, i);
    const char *kind = tv_str(c, "kind"), *name = tv_str(c, "name");
    if (!strcmp(kind, "t")) {
      uint32_t got = gostx__magma_t(sz, hex32(tv_str(c, "input")));
      CHECK(got == hex32(tv_str(c, "output")), "%s: got %08x", name, got);
    } else if (!strcmp(kind, "g")) {
      uint32_t got = gostx__magma_g(sz, hex32(tv_str(c, "k")), hex32(tv_str(c, "a")));
      CHECK(got == hex32(tv_str(c, "output")), "%s: got %08x", name, got);
    } else if (!strcmp(kind, "key_schedule")) {
      size_t kl;
      uint8_t *key = tv_hex(c, "key", &kl);
      gostx_magma_key k;
      CHECK_RC(gostx_magma_set_key(&k, key), 0, "set_key");
      json *rk = json_get(c, "round_keys_K1_to_K32");
      CHECK(json_len(rk) == 32, "32 round keys");
      for (unsigned r = 1; r <= 32 && r <= json_len(rk); r++) {
        uint32_t want = hex32(json_str(json_at(rk, r - 1)));
        uint32_t got = gostx__magma_round_key(&k, r);
        CHECK(got == want, "K%u: got %08x want %08x", r, got, want);
      }
      gostx_magma_clear(&k);
      free(key);
    } else if (!strcmp(kind, "encrypt")) {
      size_t kl, pl, cl;
      uint8_t *key = tv_hex(c, "key", &kl), *pt = tv_hex(c, "plaintext", &pl);
      uint8_t *ct = tv_hex(c, "ciphertext", &cl);
      CHECK(kl == 32 && pl == 8 && cl == 8, "%s: lengths", name);
      gostx_magma_key k;
      gostx_magma_set_key(&k, key);
      /* Round states through the internal core. */
      uint64_t trace[31];
      uint32_t a1 = gostx_load32_be(pt), a0 = gostx_load32_be(pt + 4);
      gostx__magma_encrypt_words(&k, &a1, &a0, trace);
      json *st = json_get(c, "round_states_a1_a0_after_G_K1_to_G_K31");
      CHECK(json_len(st) == 31, "31 round states");
      for (size_t r = 0; r < 31 && r < json_len(st); r++) {
        uint64_t want = strtoull(json_str(json_at(st, r)), NULL, 16);
        CHECK(trace[r] == want, "round %zu: got %016llx want %016llx", r + 1,
              (unsigned long long)trace[r], (unsigned long long)want);
      }
      CHECK(((uint64_t)a1 << 32 | a0) == gostx_load64_be(ct), "%s: core output", name);
      /* Public API, both directions. */
      uint8_t out[8], back[8];
      gostx_magma_encrypt_blocks(&k, pt, 1, out);
      CHECK_BYTES(out, ct, 8, "magma encrypt (A.4)");
      gostx_magma_decrypt_blocks(&k, ct, 1, back);
      CHECK_BYTES(back, pt, 8, "magma decrypt (A.5)");
      /* Portable table directly, whatever the dispatcher chose. */
      gostx_magma_portable.encrypt_blocks(&k, pt, out, 1);
      CHECK_BYTES(out, ct, 8, "portable encrypt");
      gostx_magma_portable.decrypt_blocks(&k, ct, out, 1);
      CHECK_BYTES(out, pt, 8, "portable decrypt");
      /* Reference agrees with the standard too (so it can judge random runs). */
      ref_block(key, pt, out, 0);
      CHECK_BYTES(out, ct, 8, "reference encrypt");
      ref_block(key, ct, out, 1);
      CHECK_BYTES(out, pt, 8, "reference decrypt");

      /* The same example in GOST 28147-89 byte order (note in magma.json). */
      static const uint8_t key89[32] = {
        0xcc, 0xdd, 0xee, 0xff, 0x88, 0x99, 0xaa, 0xbb, 0x44, 0x55, 0x66, 0x77, 0x00, 0x11, 0x22,
        0x33, 0xf3, 0xf2, 0xf1, 0xf0, 0xf7, 0xf6, 0xf5, 0xf4, 0xfb, 0xfa, 0xf9, 0xf8, 0xff, 0xfe,
        0xfd, 0xfc};
      static const uint8_t pt89[8] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};
      static const uint8_t ct89[8] = {0x3d, 0xca, 0xd8, 0xc2, 0xe5, 0x01, 0xe9, 0x4e};
      gostx_gost89_key k89;
      CHECK_RC(gostx_gost89_set_key(&k89, key89, GOSTX_SBOX_TC26_Z), 0, "gost89 set_key");
      gostx_gost89_encrypt_blocks(&k89, pt89, 1, out);
      CHECK_BYTES(out, ct89, 8, "gost89 byte order encrypt");
      gostx_gost89_decrypt_blocks(&k89, ct89, 1, out);
      CHECK_BYTES(out, pt89, 8, "gost89 byte order decrypt");
      uint8_t kr[32];
      rev_words(kr, key, 32);
      CHECK_BYTES(kr, key89, 32, "key89 = word-reversed key");
      gostx_gost89_clear(&k89);
      gostx_magma_clear(&k);
      free(key); free(pt); free(ct);
      n_enc++;
    } else {
      CHECK(0, "unknown kind %s", kind);
    }
  }
  CHECK(n_enc == 1, "one encryption case");
  json_free(f);
}

static void test_random(void) {
  enum { MAXB = 70 };
  uint8_t key[32], buf[MAXB * 8 + 16], ref[MAXB * 8], out[MAXB * 8 + 16], tmp[8];
  for (int iter = 0; iter < 60; iter++) {
    t_rand_bytes(key, 32);
    gostx_magma_key k;
    gostx_magma_set_key(&k, key);
    size_t nb = iter < MAXB ? (size_t)iter % MAXB : t_rand_below(MAXB + 1);
    size_t off_in = t_rand_below(8), off_out = t_rand_below(8);
    uint8_t *in = buf + off_in, *o = out + off_out;
    t_rand_bytes(in, nb * 8);
    for (size_t b = 0; b < nb; b++) ref_block(key, in + 8 * b, ref + 8 * b, 0);
    gostx_magma_encrypt_blocks(&k, in, nb, o);
    int ok = !nb || !memcmp(o, ref, nb * 8);
    CHECK(ok, "random encrypt nb=%zu off=%zu/%zu", nb, off_in, off_out);
    gostx_magma_decrypt_blocks(&k, o, nb, o); /* in place */
    CHECK(!nb || !memcmp(o, in, nb * 8), "random decrypt in place nb=%zu", nb);
    /* Decryption against the reference too. */
    if (nb) {
      ref_block(key, in, tmp, 1);
      gostx_magma_decrypt_blocks(&k, in, 1, o);
      CHECK_BYTES(o, tmp, 8, "random decrypt vs reference");
    }
    /* Encrypt in place equals out of place. */
    memcpy(o, in, nb * 8);
    gostx_magma_encrypt_blocks(&k, o, nb, o);
    CHECK(!nb || !memcmp(o, ref, nb * 8), "random encrypt in place nb=%zu", nb);

    /* GOST 28147-89 with S-box Z = Magma with words byte-reversed and halves swapped. */
    uint8_t key89[32], in89[8], want89[8], got89[8];
    rev_words(key89, key, 32);
    gostx_gost89_key k89;
    gostx_gost89_set_key(&k89, key89, GOSTX_SBOX_TC26_Z);
    t_rand_bytes(tmp, 8);
    ref_block(key, tmp, ref, 0);
    to_gost89_block(in89, tmp);
    to_gost89_block(want89, ref);
    gostx_gost89_encrypt_blocks(&k89, in89, 1, got89);
    CHECK_BYTES(got89, want89, 8, "gost89 Z = byte-swapped magma");
    gostx_gost89_decrypt_blocks(&k89, got89, 1, got89);
    CHECK_BYTES(got89, in89, 8, "gost89 round trip");
    /* Every S-box set round-trips. */
    for (int s = 0; s < GOSTX_SBOX_COUNT; s++) {
      gostx_gost89_set_key(&k89, key, s);
      gostx_gost89_encrypt_blocks(&k89, in89, 1, got89);
      gostx_gost89_decrypt_blocks(&k89, got89, 1, got89);
      CHECK_BYTES(got89, in89, 8, "gost89 round trip per S-box");
    }
    gostx_magma_clear(&k);
  }
}

static void test_sbox_tables(void) {
  /* Each row of each set must be a permutation of 0..15. */
  for (int s = 0; s < GOSTX_SBOX_COUNT; s++)
    for (int r = 0; r < 8; r++) {
      unsigned seen = 0;
      for (int j = 0; j < 16; j++) seen |= 1u << ((gostx__magma_sbox[s][r] >> (4 * j)) & 15);
      CHECK(seen == 0xffff, "S-box set %d row %d is a permutation", s, r);
    }
  /* Z matches the reference table. */
  for (int r = 0; r < 8; r++)
    for (int j = 0; j < 16; j++)
      CHECK(((gostx__magma_sbox[GOSTX_SBOX_TC26_Z][r] >> (4 * j)) & 15) == ref_pi[r][j],
            "Z row %d entry %d", r, j);
}

static void test_api(void) {
  uint8_t key[32] = {0};
  gostx_magma_key k;
  CHECK_RC(gostx_magma_set_key(NULL, key), GOSTX_EINVAL, "set_key NULL key struct");
  CHECK_RC(gostx_magma_set_key(&k, NULL), GOSTX_EINVAL, "set_key NULL key");
  CHECK_RC(gostx_gost89_set_key(&k, key, -1), GOSTX_EINVAL, "gost89 bad sbox");
  CHECK_RC(gostx_gost89_set_key(&k, key, GOSTX_SBOX_COUNT), GOSTX_EINVAL, "gost89 bad sbox");
  CHECK_RC(gostx_gost89_set_key(&k, NULL, 0), GOSTX_EINVAL, "gost89 NULL key");
  /* Zero blocks touches nothing (NULL buffers allowed). */
  gostx_magma_set_key(&k, key);
  gostx_magma_encrypt_blocks(&k, NULL, 0, NULL);
  gostx_magma_clear(&k);
  static const uint8_t zero[sizeof k];
  CHECK(!memcmp(&k, zero, sizeof k), "clear wipes the key");

  static const struct { const char *name; int id; } names[] = {
    {"Z", GOSTX_SBOX_TC26_Z}, {"tc26-z", GOSTX_SBOX_TC26_Z}, {"A", GOSTX_SBOX_CRYPTOPRO_A},
    {"cryptopro-a", GOSTX_SBOX_CRYPTOPRO_A}, {"cryptopro-b", GOSTX_SBOX_CRYPTOPRO_B},
    {"C", GOSTX_SBOX_CRYPTOPRO_C}, {"cryptopro-d", GOSTX_SBOX_CRYPTOPRO_D},
    {"test", GOSTX_SBOX_TEST_3411_94}, {"test-3411-94", GOSTX_SBOX_TEST_3411_94},
    {"id-Gost28147-89-CryptoPro-A-ParamSet", GOSTX_SBOX_CRYPTOPRO_A},
    {"1.2.643.2.2.31.4", GOSTX_SBOX_CRYPTOPRO_D}, {"1.2.643.7.1.2.5.1.1", GOSTX_SBOX_TC26_Z},
    {"id-Gost28147-89-TestParamSet", GOSTX_SBOX_TEST_28147},
    {"1.2.643.2.2.31.0", GOSTX_SBOX_TEST_28147},
    {"1.2.643.2.2.30.1", GOSTX_SBOX_CRYPTOPRO_3411_94},
    {"id-GostR3411-94-CryptoProParamSet", GOSTX_SBOX_CRYPTOPRO_3411_94},
    {"1.2.643.2.2.31", -1}, {"nope", -1}, {"", -1},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    CHECK(gostx_sbox_by_name(names[i].name) == names[i].id, "sbox_by_name(%s)", names[i].name);
  CHECK(gostx_sbox_by_name(NULL) == -1, "sbox_by_name(NULL)");
  for (int s = 0; s < GOSTX_SBOX_COUNT; s++)
    CHECK(gostx_sbox_by_name(gostx_sbox_name(s)) == s, "name round trip %d", s);
  CHECK(gostx_sbox_name(-1) == NULL && gostx_sbox_name(GOSTX_SBOX_COUNT) == NULL, "bad id name");
  CHECK(!strcmp(gostx_sbox_name(GOSTX_SBOX_TEST_3411_94), "test-3411-94"), "canonical name");
  CHECK(gostx_impl(GOSTX_ALG_MAGMA) != NULL, "impl name");

  /* Magma through the generic cipher handle. */
  gostx_cipher c;
  uint8_t pt[8] = {1, 2, 3, 4, 5, 6, 7, 8}, a[8], b[8];
  CHECK_RC(gostx_cipher_init(&c, GOSTX_ALG_MAGMA, key), 0, "cipher_init magma");
  gostx_cipher_encrypt_blocks(&c, pt, 1, a);
  ref_block(key, pt, b, 0);
  CHECK_BYTES(a, b, 8, "cipher handle magma");
  gostx_cipher_clear(&c);
}

int main(void) {
  t_rand_init();
  test_vectors();
  test_sbox_tables();
  test_random();
  test_api();
  return t_done();
}
