/* The public API's shape (docs/API_CHANGES.md): the sizes bindings read
 * agree with the compiler's, one id space for ciphers and primitives, and
 * the calls that take key objects refuse the wrong kind of key. The
 * argument order itself is checked by the compiler (every test calls it). */
#include "testutil.h"

static void test_sizes(void) {
#define SIZE_IS(name) CHECK(gostx_sizeof_##name() == sizeof(gostx_##name), "sizeof " #name)
  SIZE_IS(kuz_key);
  SIZE_IS(magma_key);
  SIZE_IS(cipher);
  SIZE_IS(mode_ctx);
  SIZE_IS(omac_ctx);
  SIZE_IS(mgm_ctx);
  SIZE_IS(xts_key);
  SIZE_IS(gost89_ctx);
  SIZE_IS(streebog_ctx);
  SIZE_IS(hmac_ctx);
  SIZE_IS(file);
  SIZE_IS(file_header);
  SIZE_IS(file_stream);
  SIZE_IS(luks);
  SIZE_IS(luks_header);
  SIZE_IS(stream);
  SIZE_IS(batch_params);
#undef SIZE_IS
}

static void test_ids(void) {
  /* The file format stores the cipher id as a byte: the values are fixed. */
  CHECK(GOSTX_ALG_KUZNYECHIK == 1 && GOSTX_ALG_MAGMA == 2, "cipher ids are the format's bytes");
  static const uint8_t key[GOSTX_KEY_LEN] = {1, 2, 3};
  gostx_cipher c;
  for (int a = 1; a < GOSTX_ALG_END; a++) {
    int is_cipher = a == GOSTX_ALG_KUZNYECHIK || a == GOSTX_ALG_MAGMA;
    CHECK_RC(gostx_cipher_init(&c, (gostx_alg)a, key), is_cipher ? 0 : GOSTX_EINVAL,
             gostx_alg_name((gostx_alg)a));
    if (is_cipher) CHECK(c.id == (gostx_alg)a, "cipher %d keeps its id", a);
  }
  CHECK_RC(gostx_cipher_init(&c, (gostx_alg)0, key), GOSTX_EINVAL, "id 0");
}

/* Issue 30: the version at compile time (GOSTX_VERSION_*) is the version
 * the library reports at run time, and the string spells the numbers. */
static void test_version(void) {
#if defined(GOSTX_VERSION_MAJOR) && defined(GOSTX_VERSION_MINOR) && \
    defined(GOSTX_VERSION_PATCH) && defined(GOSTX_VERSION_STRING) && defined(GOSTX_VERSION_NUMBER)
  CHECK(!strcmp(gostx_version(), GOSTX_VERSION_STRING), "gostx_version() %s, headers %s",
        gostx_version(), GOSTX_VERSION_STRING);
  char spelled[32];
  snprintf(spelled, sizeof spelled, "%d.%d.%d", GOSTX_VERSION_MAJOR, GOSTX_VERSION_MINOR,
           GOSTX_VERSION_PATCH);
  CHECK(!strcmp(spelled, GOSTX_VERSION_STRING), "GOSTX_VERSION_STRING %s, numbers %s",
        GOSTX_VERSION_STRING, spelled);
  CHECK(GOSTX_VERSION_NUMBER ==
            GOSTX_VERSION_MAJOR * 10000 + GOSTX_VERSION_MINOR * 100 + GOSTX_VERSION_PATCH,
        "GOSTX_VERSION_NUMBER");
  CHECK(GOSTX_VERSION_MINOR < 100 && GOSTX_VERSION_PATCH < 100, "NUMBER stays ordered");
#if GOSTX_VERSION_NUMBER < 200
  CHECK(0, "#if on GOSTX_VERSION_NUMBER");
#endif
#else
  CHECK(0, "no GOSTX_VERSION_* macros in gostx/common.h");
#endif
}

/* Issue 30: the file API takes the typed enums the rest of the API takes,
 * not bare ints (C has no run-time reflection; _Generic tells the types). */
static void test_file_types(void) {
  gostx_file_header h;
  memset(&h, 0, sizeof h);
  CHECK(_Generic(h.alg, int: 0, default: 1), "gostx_file_header.alg is a gostx_alg, not int");
  CHECK(_Generic(h.kdf, int: 0, default: 1), "gostx_file_header.kdf is a gostx_file_kdf, not int");
  CHECK(_Generic(&gostx_file_tag_len, size_t (*)(int): 0, default: 1),
        "gostx_file_tag_len takes a gostx_alg");
  CHECK(_Generic(&gostx_file_nonce, int (*)(int, uint64_t, int, uint8_t *): 0, default: 1),
        "gostx_file_nonce takes a gostx_alg");
  CHECK(_Generic(&gostx_file_init_encrypt,
                 int (*)(gostx_file *, int, int, uint32_t, uint32_t, const uint8_t *, size_t,
                         const uint8_t *): 0,
                 default: 1),
        "gostx_file_init_encrypt takes gostx_alg and gostx_file_kdf");
  CHECK(GOSTX_FILE_KDF_RAW == 1 && GOSTX_FILE_KDF_PBKDF2 == 2, "kdf ids are the format's bytes");
}

static void test_key_kinds(void) {
  static const uint8_t key[GOSTX_KEY_LEN] = {7}, iv[8] = {1};
  uint8_t buf[16] = {0}, mac[8];
  gostx_magma_key magma;
  gostx_gost89_key g89;
  gostx_gost89_ctx ctx;
  CHECK_RC(gostx_magma_set_key(&magma, key), 0, "magma key");
  CHECK_RC(gostx_gost89_set_key(&g89, key, GOSTX_SBOX_CRYPTOPRO_A), 0, "gost89 key");
  /* A Magma key has the other byte order: the 1989 modes refuse it. */
  CHECK_RC(gostx_gost89_cnt(&magma, iv, 0, buf, sizeof buf, buf), GOSTX_EINVAL, "cnt, magma key");
  CHECK_RC(gostx_gost89_cfb(&magma, iv, 0, 0, buf, sizeof buf, buf), GOSTX_EINVAL, "cfb, magma key");
  CHECK_RC(gostx_gost89_imit(&magma, NULL, 0, buf, sizeof buf, mac, 4), GOSTX_EINVAL, "imit, magma key");
  CHECK_RC(gostx_gost89_init(&ctx, &magma, GOSTX_GOST89_CNT, 0, iv, 0), GOSTX_EINVAL, "init, magma key");
  CHECK_RC(gostx_gost89_imit_init(&ctx, &magma, NULL, 0), GOSTX_EINVAL, "imit_init, magma key");
  CHECK_RC(gostx_gost89_cnt(NULL, iv, 0, buf, sizeof buf, buf), GOSTX_EINVAL, "cnt, NULL key");
  CHECK_RC(gostx_gost89_cnt(&g89, iv, 0, buf, sizeof buf, buf), 0, "cnt, gost89 key");
  /* The one-shot call and a context over the same key object agree, and the
   * caller's key object is left as it was (the context meshes its own copy). */
  uint8_t a[2048], b[2048];
  t_rand_bytes(a, sizeof a);
  memcpy(b, a, sizeof b);
  gostx_gost89_key before = g89;
  CHECK_RC(gostx_gost89_cnt(&g89, iv, 1, a, sizeof a, a), 0, "cnt meshing");
  CHECK_RC(gostx_gost89_init(&ctx, &g89, GOSTX_GOST89_CNT, 0, iv, 1), 0, "init meshing");
  CHECK_RC(gostx_gost89_update(&ctx, b, sizeof b, b), 0, "update meshing");
  gostx_gost89_ctx_clear(&ctx);
  CHECK(!memcmp(a, b, sizeof a), "one-shot = context");
  CHECK(!memcmp(&before, &g89, sizeof g89), "key object unchanged by meshing");

  /* KExp15: both keys of one cipher. */
  gostx_cipher kuz, mag;
  uint8_t out[64];
  size_t out_len;
  CHECK_RC(gostx_cipher_init(&kuz, GOSTX_ALG_KUZNYECHIK, key), 0, "kuz");
  CHECK_RC(gostx_cipher_init(&mag, GOSTX_ALG_MAGMA, key), 0, "magma");
  CHECK_RC(gostx_kexp15(&kuz, &mag, iv, 8, key, 32, out, &out_len), GOSTX_EINVAL, "mixed ciphers");
  CHECK_RC(gostx_kexp15(&kuz, NULL, iv, 8, key, 32, out, &out_len), GOSTX_EINVAL, "NULL mac key");
  CHECK_RC(gostx_kimp15(&mag, &kuz, iv, 4, out, 40, buf, &out_len), GOSTX_EINVAL, "kimp mixed");
  CHECK_RC(gostx_kexp15(&kuz, &kuz, iv, 8, key, 32, out, &out_len), 0, "one cipher twice");
  gostx_cipher_clear(&kuz);
  gostx_cipher_clear(&mag);
}

int main(void) {
  t_rand_init();
  test_sizes();
  test_ids();
  test_version();
  test_file_types();
  test_key_kinds();
  return t_done();
}
