/* Streebog-256/512 (GOST R 34.11-2012): the standard's examples, digests from
 * an independent implementation (gost-engine), the published N/Sigma carry
 * messages, streaming against one-shot, the dispatched compression against the
 * portable one, and argument errors. */
#include <stdlib.h>

#include "streebog/impl.h"
#include "testutil.h"
#include "dispatch.h"

/* The fixed pattern the gost-engine digests below were taken over. */
static void fill_pattern(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 167 + 13);
}

/* Digests of fill_pattern(len) produced by gost-engine, an independent
 * implementation, with
 *   python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 167 + 13) & 255
 *     for i in range(LEN)))' | openssl dgst -engine gost -md_gost12_256
 * (and -md_gost12_512). Byte order as openssl prints it. */
static const struct { size_t len; const char *d256, *d512; } engine_pattern[] = {
    {0, "3f539a213e97c802cc229d474c6aa32a825a360b2a933a949fd925208d9ce1bb",
     "8e945da209aa869f0455928529bcae4679e9873ab707b55315f56ceb98bef0a7362f715528356ee83cda5f2aac4c6ad2ba3a715c1bcd81cb8e9f90bf4c1c1a8a"},
    {1, "fcafd4bffa5586449367919963c760d4fabe965a048f68ee3f018a2eedc8c7dd",
     "0cce65682d6243c70f50bfacf93dd414890ca8b27d6e9467c56450f458d9f040eb1c0d89511f09a82c011354c40ce72903064cb6d67e76b5c6e53409a2e0b8d9"},
    {31, "99d242304b498232baa879c813379425d2ef5040db2a677ff6999d3175c8afc6",
     "d62b38018369b23ff238462512b5de2eac1c14ab963b1fb817aa49d5e4c01996e8dbd7e6de1df87bfe5a426eaedd0fb3f79d6a459d45942df4a8c00d3f3355e2"},
    {32, "07433c9e58e8ec95dd53f09943c47c20b9c3bbfd8b9e48c71021c40cde20bc8f",
     "97736fcb55fa86c66d8d24c95f8e1c370c794224ff66a4a80de832643c6d48b517f8e0fcee2994e8d70db32cc750fcde2cb5cc2b81a9371710e2e1e48e65ff37"},
    {55, "43631f60f713ef7527dd0fb8ff23485520dfbce14a7b5a17d34bca81441400b8",
     "c102e22b9a1a5acef11b70cbcc267a6b601130258d799ef3a56dff4a6c5f9753e1167fbbca7a2fd6289c940a91afa61129faffd65ffe7bfbae5798a117b7bf8a"},
    {56, "3438123309bf7e3034083028afbfd5e08c25df519e59db8114ff1f3efcfcde50",
     "8976cfdb7eb01d57a5c305a26ac093fa1ab65e24ffa96938d6fe32ba1cef9f2fdf7daad7a7b6e7b8bd1fb0f50d623a1b736dd878c6abc942ca3f4c75fa8ef86a"},
    {63, "7eb1afab91e85c79ce5b65fa611e951bc874a379525f5ecac6d11ced8dc724aa",
     "00bcf0049a73a4fa8e21cdee372bd53f2dca7beac27327799d6fac40c879fbccd7203e4a8d9559f9bf12843ba926c895c86d5ae7917148fc5bf5777858fcd63e"},
    {64, "0efa9645951920a5f2bd1a0e19d493f2d01d185e4a9baea7d20807d7e34a8b1a",
     "8d4f6f10255c6e02f2fd3310113143a629ee0ba1947d8a0bb97670a83db0ec1672ee5f495d7e0a2c12de80d5a7e7ada0c4b38639aa65613da74a138160988a3a"},
    {65, "193808033167c2689e15a9c16faa6308d8fc32deebadd09453a4ca619c9536c7",
     "801d16833347500650d7dbc1db90ed8236f980dc16932c2422aac08893ba78391348d849e5e3f0d300b1ec19423545f3d22ac3dc383be3de8ffa7330947f1c68"},
    {127, "5930703d0fbd2b1aa250f432cb93a77d46c154ef0164c3d7501141e0228c6e41",
     "96fe616015923002b43f611df2859687c6994d9350b842b6fcc18ec8e2fe5205f17b06e78843e6e26e8304fd1975d6d3f385a5cd9e40046903f9b8006f54b6e7"},
    {128, "2dce6425c2a91af588a622c9f361ee3ad85675746ce23152eb55851e088d77e6",
     "cc78862a20dffd4532d6a4f301968cbacdfe2352f97cd2c2e6ac7cd1eee3cfb618affe30041a4ace76e7c51108e293ce5ee0989791f2e3e934aaca0ee23b5c62"},
    {129, "d2bde104e78fe7df699200f7754c28155292bfdd9523b0ef8ebda5c49322545f",
     "01a4fbce298ba1dd622f9a565e3b244b53f462779af98dc16ad8c5085d068757f9f24a73eb5e6f4582ba5389c8bfa3aa9cbcc94aac4a626fcc714a8ad25bc219"},
    {1000, "2e9c060ddf54dac41f0358b5d5292d88881d368e8cc3b2ff7cc758e75c84f4b7",
     "b437e4e12aa61b925819205d41004f22bb08bd178fd55a152a9328f4c6082b074690ff7b3bb4c612cb8d65b7e37aa1f44ff89625fb139bf40493c1b9bf2aa4a3"},
    {1048576, "fc7af286231a37cdc46fb64b52af353088eca18ec2a92deb7b095fa7baead6ac",
     "e5d13d031670f6c9e7264129f97ae660b448d64d6d757b9f193398a11391bc81b2e6d8ab3dce4b314e2d1e4210929aeeeb4a268e0926fae27034fdc42873e3be"},
};

/* Messages that stress the 512-bit additions (Sigma carries across all
 * words). Digests from `openssl dgst -engine gost -md_gost12_256/512`. */
enum carry_kind { FF64, FF127, FF128, FF192, FF64_01, FF8_0PAD };
static size_t build_carry(enum carry_kind k, uint8_t *m) {
  switch (k) {
    case FF64: memset(m, 0xff, 64); return 64;
    case FF127: memset(m, 0xff, 127); return 127;
    case FF128: memset(m, 0xff, 128); return 128;
    case FF192: memset(m, 0xff, 192); return 192;
    case FF64_01: /* 0xff block, then a block that is the integer 1 */
      memset(m, 0xff, 64);
      m[64] = 0x01;
      memset(m + 65, 0x00, 63);
      return 128;
    case FF8_0PAD: /* two blocks with only the low word all-ones, then 8 x 0xff */
      for (int b = 0; b < 2; b++) {
        memset(m + 64 * b, 0xff, 8);
        memset(m + 64 * b + 8, 0x00, 56);
      }
      memset(m + 128, 0xff, 8);
      return 136;
  }
  return 0;
}
static const struct { enum carry_kind kind; const char *name, *d256, *d512; } engine_carry[] = {
    {FF64, "ff64", "964a5ab60286f106288743e2fe1a422d160898ca1bd535e831aa500cfe34d7e8",
     "41629de677d7e8090c3cd70affe3300d1e1cfba2db97945ec37feb4e1375bc02a53f00370b7d715b07f37f93cac844efadbfd1b85f9ddae3de9656c0e95affc7"},
    {FF127, "ff127", "75567e779838c0f477fc2610a1254d2736de5f6a07546bcc317b1b14edae1b42",
     "82134ea1cdf96cacd7d0b8bda0e1bf3f85c4cbcbcd224f914510d9c865843aaa20303c5d7b5d6d35235bbf83c757c419f749b0671ffa8ca5c52db91e50e98a02"},
    {FF128, "ff128", "4749bfc37b7ddad7c745dc2da1fb22619f70154c064ae3b6cb34bc2b2c0827c1",
     "90a161d12ad309498d3fe5d48202d8a4e9c406d6a264aeab258ac5ecc37a7962aaf9587a5abb09b6bb81ec4b3752a3ff5a838ef175be5772056bc5fe54fcfc7e"},
    {FF192, "ff192", "d3ce7eb4da9ad01a0b929025486a2fd99e84f188069f9e5f47f11d1a949be991",
     "55d8f76f0894bde0ec14c906f95be44ec9eac0ab5d05fb1a8aa92bee629b1dab9f1d2552e2d3a1aab9ce2c07941b06dbac5baff6ce461df2f7c60a8a763cc1e9"},
    {FF64_01, "ff64_01", "04ab1a2830691e3b3902ffd73e2e177174deae0849bac5e753eb247ce284b038",
     "26ce56dad95cd59b1f425d31516e0e2bed6d619787428a63123819300381235c3d0b3b2f5bf24c826e5340f9766375e89a7e0c026c740d469634f67f2ab7ac79"},
    {FF8_0PAD, "ff8_0pad", "fd26d172af77f561442426139d7e272a382e5fbf291578b4bca99f24da95682f",
     "7d034cc8d28adb6b75e1cd9e2db011fcabd965602d94bb163c0e5347a7218b9f3cbdb6cd6a9bdc5ba18f18f83e143c4828917226b030cd763c1044880bc39d54"},
};

static void hexbuf(const char *hex, uint8_t *out, size_t len) {
  long n = hex_decode(hex, out, len);
  if (n != (long)len) {
    fprintf(stderr, "bad hex constant %s\n", hex);
    exit(1);
  }
}

/* Hashes msg with both variants and compares to hex digests. */
static void check_digests(const uint8_t *msg, size_t len, const char *d256, const char *d512,
                          const char *what) {
  uint8_t want[64], got[64];
  char label[160];
  hexbuf(d256, want, 32);
  CHECK_RC(gostx_streebog(32, msg, len, got), GOSTX_OK, what);
  snprintf(label, sizeof label, "%s (256)", what);
  CHECK_BYTES(got, want, 32, label);
  hexbuf(d512, want, 64);
  CHECK_RC(gostx_streebog(64, msg, len, got), GOSTX_OK, what);
  snprintf(label, sizeof label, "%s (512)", what);
  CHECK_BYTES(got, want, 64, label);
}

static void test_standard_vectors(void) {
  tv_iter it = tv_open("streebog.json");
  for (json *c; (c = tv_next(&it)) != NULL;) {
    size_t mlen, dlen;
    uint8_t *msg = tv_hex(c, "message_bytes", &mlen);
    uint8_t *want = tv_hex(c, "digest_bytes", &dlen);
    long long bits = tv_int(c, "hash_bits");
    CHECK(dlen * 8 == (size_t)bits, "%s: digest length", tv_str(c, "name"));
    uint8_t got[64];
    CHECK_RC(gostx_streebog(dlen, msg, mlen, got), GOSTX_OK, tv_str(c, "name"));
    CHECK_BYTES(got, want, dlen, tv_str(c, "name"));

    /* The same through the streaming API, one byte at a time. */
    gostx_streebog_ctx ctx;
    CHECK_RC(gostx_streebog_init(&ctx, dlen), GOSTX_OK, "init");
    for (size_t j = 0; j < mlen; j++) gostx_streebog_update(&ctx, msg + j, 1);
    memset(got, 0, sizeof got);
    CHECK_RC(gostx_streebog_final(&ctx, got), GOSTX_OK, "final");
    CHECK_BYTES(got, want, dlen, "bytewise streaming");

    /* The printed form is the byte-reversal of the bytes (the file's own
     * convention, checked so that a swapped field would be noticed). */
    size_t plen;
    uint8_t *printed = tv_hex(c, "digest_as_printed_in_standard", &plen);
    CHECK(plen == dlen, "printed length");
    for (size_t j = 0; j < dlen && j < plen; j++) got[j] = printed[plen - 1 - j];
    CHECK_BYTES(got, want, dlen, "printed digest reversed");
    free(printed);
    free(msg);
    free(want);
  }
  tv_close(&it);
}

static void test_engine_digests(void) {
  size_t maxlen = 0;
  for (size_t i = 0; i < sizeof engine_pattern / sizeof engine_pattern[0]; i++)
    if (engine_pattern[i].len > maxlen) maxlen = engine_pattern[i].len;
  uint8_t *buf = malloc(maxlen + 1);
  if (!buf) exit(1);
  fill_pattern(buf, maxlen);
  for (size_t i = 0; i < sizeof engine_pattern / sizeof engine_pattern[0]; i++) {
    char what[64];
    snprintf(what, sizeof what, "gost-engine pattern len %zu", engine_pattern[i].len);
    check_digests(buf, engine_pattern[i].len, engine_pattern[i].d256, engine_pattern[i].d512, what);
  }
  /* The 1 MiB pattern once more in odd-sized pieces. */
  gostx_streebog_ctx ctx;
  uint8_t got[64], want[64];
  const size_t big = 1048576;
  CHECK(maxlen == big, "pattern table has the 1 MiB entry");
  gostx_streebog_init(&ctx, 64);
  for (size_t off = 0; off < big;) {
    size_t n = 1 + t_rand_below(5000);
    if (n > big - off) n = big - off;
    gostx_streebog_update(&ctx, buf + off, n);
    off += n;
  }
  gostx_streebog_final(&ctx, got);
  hexbuf(engine_pattern[sizeof engine_pattern / sizeof engine_pattern[0] - 1].d512, want, 64);
  CHECK_BYTES(got, want, 64, "1 MiB streamed in random pieces");
  free(buf);
}

static void test_carry(void) {
  uint8_t m[256];
  for (size_t i = 0; i < sizeof engine_carry / sizeof engine_carry[0]; i++) {
    size_t n = build_carry(engine_carry[i].kind, m);
    check_digests(m, n, engine_carry[i].d256, engine_carry[i].d512, engine_carry[i].name);
  }
  /* The "carry" message published in gost-engine's test/test_digest.c:
   * 64 x 0xee, then 0x16, 62 x 0x11, 0x16. */
  memset(m, 0xee, 64);
  m[64] = 0x16;
  memset(m + 65, 0x11, 62);
  m[127] = 0x16;
  check_digests(m, 128, "81bb632fa31fcc38b4c379a662dbc58b9bed83f50d3a1b2ce7271ab02d25babb",
                "8b06f41e59907d9636e892caf5942fcdfb71fa31169a5e70f0edb873664df41c"
                "2cce6e06dc6755d15a61cdeb92bd607cc4aaca6732bf3568a23a210dd520fd41",
                "published carry message");
  /* 64 zero bytes ("M4" in the same file). */
  memset(m, 0, 64);
  check_digests(m, 64, "df1fda9ce83191390537358031db2ecaa6aa54cd0eda241dc107105e13636b95",
                "b0fd29ac1b0df441769ff3fdb8dc564df67721d6ac06fb28ceffb7bbaa7948c6"
                "c014ac999235b58cb26fb60fb112a145d7b4ade9ae566bf2611402c552d20db7",
                "64 zero bytes (M4)");
}

/* Every two-way split, and random three-way splits, of random messages must
 * give the one-shot digest. */
static void test_streaming(void) {
  uint8_t msg[200], want[64], got[64];
  for (int round = 0; round < 6; round++) {
    size_t len = t_rand_below(sizeof msg + 1);
    if (round == 0) len = 0;
    if (round == 1) len = sizeof msg;
    t_rand_bytes(msg, len);
    for (size_t dlen = 32; dlen <= 64; dlen += 32) {
      gostx_streebog(dlen, msg, len, want);
      int bad = 0;
      for (size_t cut = 0; cut <= len; cut++) {
        gostx_streebog_ctx ctx;
        gostx_streebog_init(&ctx, dlen);
        gostx_streebog_update(&ctx, msg, cut);
        gostx_streebog_update(&ctx, msg + cut, len - cut);
        gostx_streebog_final(&ctx, got);
        if (memcmp(got, want, dlen) != 0) bad++;
      }
      for (int k = 0; k < 50; k++) {
        size_t a = t_rand_below(len + 1), b = a + t_rand_below(len - a + 1);
        gostx_streebog_ctx ctx;
        gostx_streebog_init(&ctx, dlen);
        gostx_streebog_update(&ctx, msg, a);
        gostx_streebog_update(&ctx, NULL, 0);
        gostx_streebog_update(&ctx, msg + a, b - a);
        gostx_streebog_update(&ctx, msg + b, len - b);
        gostx_streebog_final(&ctx, got);
        if (memcmp(got, want, dlen) != 0) bad++;
      }
      CHECK(bad == 0, "streaming splits, len %zu, digest %zu: %d mismatches", len, dlen, bad);
    }
  }
  /* A large random message in random pieces. */
  const size_t big = 300000;
  uint8_t *m = malloc(big);
  if (!m) exit(1);
  t_rand_bytes(m, big);
  for (size_t dlen = 32; dlen <= 64; dlen += 32) {
    gostx_streebog(dlen, m, big, want);
    gostx_streebog_ctx ctx;
    gostx_streebog_init(&ctx, dlen);
    for (size_t off = 0; off < big;) {
      size_t n = t_rand_below(700);
      if (n > big - off) n = big - off;
      gostx_streebog_update(&ctx, m + off, n);
      off += n;
    }
    gostx_streebog_final(&ctx, got);
    CHECK_BYTES(got, want, dlen, "large message in random pieces");
  }
  free(m);
}

/* The dispatched compression (whatever fast path the CPU gets) must agree
 * with the portable one on random inputs. */
static void test_dispatch_matches_portable(void) {
  const struct gostx_streebog_impl *impl = gostx__dispatch()->streebog;
  CHECK(impl && impl->compress && impl->name, "dispatch has a Streebog implementation");
  if (!impl || !impl->compress) return;
  int bad = 0;
  for (int i = 0; i < 500; i++) {
    uint8_t h1[64], h2[64], n[64], m[64];
    t_rand_bytes(h1, 64);
    t_rand_bytes(n, 64);
    t_rand_bytes(m, 64);
    memcpy(h2, h1, 64);
    impl->compress(h1, n, m);
    gostx_streebog_portable.compress(h2, n, m);
    if (memcmp(h1, h2, 64) != 0) bad++;
  }
  CHECK(bad == 0, "%s compress vs portable: %d mismatches", impl->name, bad);
  CHECK(strcmp(gostx_impl(GOSTX_ALG_STREEBOG), impl->name) == 0, "gostx_impl names it");
}

static void test_errors(void) {
  gostx_streebog_ctx ctx;
  uint8_t d[64], zero[64] = {0};
  CHECK_RC(gostx_streebog_init(NULL, 64), GOSTX_EINVAL, "init NULL ctx");
  CHECK_RC(gostx_streebog_init(&ctx, 48), GOSTX_EINVAL, "init digest_len 48");
  CHECK_RC(gostx_streebog_init(&ctx, 0), GOSTX_EINVAL, "init digest_len 0");
  CHECK_RC(gostx_streebog_update(&ctx, "x", 1), GOSTX_ESTATE, "update after failed init");
  CHECK_RC(gostx_streebog_final(&ctx, d), GOSTX_ESTATE, "final after failed init");
  CHECK_RC(gostx_streebog_init(&ctx, 32), GOSTX_OK, "init 32");
  CHECK_RC(gostx_streebog_update(&ctx, NULL, 1), GOSTX_EINVAL, "update NULL data, len 1");
  CHECK_RC(gostx_streebog_update(&ctx, NULL, 0), GOSTX_OK, "update NULL data, len 0");
  CHECK_RC(gostx_streebog_update(NULL, "x", 1), GOSTX_EINVAL, "update NULL ctx");
  CHECK_RC(gostx_streebog_final(&ctx, NULL), GOSTX_EINVAL, "final NULL digest");
  CHECK_RC(gostx_streebog_update(&ctx, "abc", 3), GOSTX_OK, "update");
  CHECK_RC(gostx_streebog_final(&ctx, d), GOSTX_OK, "final");
  CHECK(memcmp(&ctx, zero, sizeof zero) == 0, "final wipes the context");
  CHECK_RC(gostx_streebog_update(&ctx, "x", 1), GOSTX_ESTATE, "update after final");
  CHECK_RC(gostx_streebog_final(&ctx, d), GOSTX_ESTATE, "final after final");
  CHECK_RC(gostx_streebog(64, NULL, 1, d), GOSTX_EINVAL, "one-shot NULL data");
  CHECK_RC(gostx_streebog(64, "x", 1, NULL), GOSTX_EINVAL, "one-shot NULL digest");
  CHECK_RC(gostx_streebog(16, "x", 1, d), GOSTX_EINVAL, "one-shot digest_len 16");
  CHECK_RC(gostx_streebog(64, NULL, 0, d), GOSTX_OK, "one-shot empty NULL");
  CHECK(gostx_sizeof_streebog_ctx() == sizeof(gostx_streebog_ctx), "sizeof ctx");
  gostx_streebog_clear(NULL); /* must not crash */
}

int main(void) {
  t_rand_init();
  test_standard_vectors();
  test_engine_digests();
  test_carry();
  test_streaming();
  test_dispatch_matches_portable();
  test_errors();
  return t_done();
}
