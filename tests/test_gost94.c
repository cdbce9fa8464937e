/* GOST R 34.11-94: the standard's examples and published digests for both
 * parameter sets (tests/vectors/gost94.json), digests from an independent
 * implementation (gost-engine) where the checksum carries, streaming in random
 * pieces against one-shot, and argument errors. Run at every implementation
 * level: the hash encrypts with the dispatched GOST 28147-89. */
#include <stdlib.h>

#include "testutil.h"

static void test_vectors(void) {
  tv_iter it = tv_open("gost94.json");
  CHECK(it.n >= 13, "gost94.json has its cases");
  for (json *c; (c = tv_next(&it)) != NULL;) {
    const char *ps = tv_str(c, "paramset");
    int sbox = gostx_sbox_by_name(ps);
    CHECK(sbox == GOSTX_SBOX_TEST_3411_94 || sbox == GOSTX_SBOX_CRYPTOPRO_3411_94,
          "case %zu: parameter set %s", it.i, ps);
    size_t plen, dlen;
    uint8_t *part = tv_hex(c, "message_bytes", &plen);
    uint8_t *want = tv_hex(c, "digest_bytes", &dlen);
    CHECK(dlen == GOSTX_GOST94_LEN, "case %zu: digest length", it.i);
    size_t repeat = json_get(c, "message_repeat") ? (size_t)tv_int(c, "message_repeat") : 1;
    size_t mlen = plen * repeat;
    uint8_t *msg = malloc(mlen ? mlen : 1);
    for (size_t r = 0; r < repeat; r++) memcpy(msg + r * plen, part, plen);
    char what[96];
    snprintf(what, sizeof what, "case %zu (%s, %zu bytes)", it.i, ps, mlen);

    uint8_t got[32];
    CHECK_RC(gostx_gost94(sbox, msg, mlen, got), GOSTX_OK, what);
    CHECK_BYTES(got, want, 32, what);

    /* Streaming in random pieces (some empty) gives the same. */
    gostx_gost94_ctx ctx;
    CHECK_RC(gostx_gost94_init(&ctx, sbox), GOSTX_OK, "init");
    for (size_t off = 0; off < mlen;) {
      size_t piece = t_rand_below(mlen - off < 100 ? mlen - off + 1 : 100);
      CHECK_RC(gostx_gost94_update(&ctx, msg + off, piece), GOSTX_OK, "update");
      off += piece;
    }
    memset(got, 0, sizeof got);
    CHECK_RC(gostx_gost94_final(&ctx, got), GOSTX_OK, "final");
    CHECK_BYTES(got, want, 32, "streamed in pieces");

    /* The printed form (RFC 5831) is the byte-reversal of the bytes. */
    if (json_get(c, "digest_as_printed_in_standard")) {
      size_t prlen;
      uint8_t *printed = tv_hex(c, "digest_as_printed_in_standard", &prlen);
      CHECK(prlen == 32, "printed length");
      for (size_t j = 0; j < 32 && j < prlen; j++) got[j] = printed[prlen - 1 - j];
      CHECK_BYTES(got, want, 32, "printed digest reversed");
      free(printed);
    }
    free(msg);
    free(part);
    free(want);
  }
  tv_close(&it);
}

/* Digests by gost-engine, an independent implementation, of messages whose
 * checksum Sigma carries through all 256 bits (every block 0xff..ff) and of
 * a pattern over many blocks:
 *   head -c LEN /dev/zero | tr '\0' '\377' | openssl dgst -engine gost -md_gost94
 *   python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 167 + 13) & 255
 *     for i in range(1000)))' | openssl dgst -engine gost -md_gost94 */
static void test_engine_digests(void) {
  static const struct { size_t len; int pattern; const char *digest; } cases[] = {
      {32, 0, "7be75a0626961e6db5df1e656662f4fef84774dec2c231bbd52b533c6e95c3a6"},
      {64, 0, "58504d26b3677e756ba3f4a9fd2f14b3ba5457066a4aa1d700659b90dcddd3c6"},
      {96, 0, "cd82005a3fde2ed6220ab653879e8e97fea9ca34e11ca2fe47d0c1d2f303b46f"},
      {1000, 1, "9efc8adf25bd4ec80ab7d3d6fe9044db67473c1230dc90e78eaea5807a8cbba9"},
  };
  uint8_t msg[1000], want[32], got[32];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (size_t j = 0; j < cases[i].len; j++)
      msg[j] = cases[i].pattern ? (uint8_t)(j * 167 + 13) : 0xff;
    hex_decode(cases[i].digest, want, sizeof want);
    CHECK_RC(gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, msg, cases[i].len, got), GOSTX_OK,
             "engine digest");
    CHECK_BYTES(got, want, 32, cases[i].pattern ? "pattern 1000 bytes" : "0xff blocks (carry)");
  }
}

/* Any split of any message gives the one-shot digest, for both sets. */
static void test_streaming(void) {
  static uint8_t msg[700];
  for (int iter = 0; iter < 200; iter++) {
    int sbox = iter & 1 ? GOSTX_SBOX_TEST_3411_94 : GOSTX_SBOX_CRYPTOPRO_3411_94;
    size_t len = iter < 100 ? (size_t)iter * 7 % 300 : t_rand_below(sizeof msg + 1);
    t_rand_bytes(msg, len);
    uint8_t a[32], b[32];
    CHECK_RC(gostx_gost94(sbox, msg, len, a), GOSTX_OK, "one-shot");
    gostx_gost94_ctx ctx;
    gostx_gost94_init(&ctx, sbox);
    size_t cut1 = t_rand_below(len + 1), cut2 = cut1 + t_rand_below(len - cut1 + 1);
    gostx_gost94_update(&ctx, msg, cut1);
    gostx_gost94_update(&ctx, msg + cut1, cut2 - cut1);
    gostx_gost94_update(&ctx, msg + cut2, len - cut2);
    gostx_gost94_final(&ctx, b);
    CHECK(!memcmp(a, b, 32), "three pieces %zu/%zu of %zu", cut1, cut2, len);
  }
  /* The parameter set matters. */
  uint8_t a[32], b[32];
  gostx_gost94(GOSTX_SBOX_TEST_3411_94, "abc", 3, a);
  gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, "abc", 3, b);
  CHECK(memcmp(a, b, 32) != 0, "the two parameter sets differ");
}

static void test_errors(void) {
  gostx_gost94_ctx ctx;
  uint8_t d[32];
  static const gostx_gost94_ctx zero;
  CHECK_RC(gostx_gost94_init(NULL, GOSTX_SBOX_CRYPTOPRO_3411_94), GOSTX_EINVAL, "init NULL");
  CHECK_RC(gostx_gost94_init(&ctx, GOSTX_SBOX_COUNT), GOSTX_EINVAL, "init bad set");
  CHECK_RC(gostx_gost94_init(&ctx, (gostx_sbox)-1), GOSTX_EINVAL, "init set -1");
  CHECK_RC(gostx_gost94_update(&ctx, "x", 1), GOSTX_ESTATE, "update after failed init");
  CHECK_RC(gostx_gost94_final(&ctx, d), GOSTX_ESTATE, "final after failed init");
  memset(&ctx, 0, sizeof ctx);
  CHECK_RC(gostx_gost94_update(&ctx, "x", 1), GOSTX_ESTATE, "update on a zeroed context");
  CHECK_RC(gostx_gost94_init(&ctx, GOSTX_SBOX_TEST_3411_94), GOSTX_OK, "init");
  CHECK_RC(gostx_gost94_update(&ctx, NULL, 1), GOSTX_EINVAL, "update NULL data, len 1");
  CHECK_RC(gostx_gost94_update(&ctx, NULL, 0), GOSTX_OK, "update NULL data, len 0");
  CHECK_RC(gostx_gost94_update(NULL, "x", 1), GOSTX_EINVAL, "update NULL ctx");
  CHECK_RC(gostx_gost94_final(&ctx, NULL), GOSTX_EINVAL, "final NULL digest");
  CHECK_RC(gostx_gost94_update(&ctx, "abc", 3), GOSTX_OK, "update");
  CHECK_RC(gostx_gost94_final(&ctx, d), GOSTX_OK, "final");
  CHECK(memcmp(&ctx, &zero, sizeof ctx) == 0, "final wipes the context");
  CHECK_RC(gostx_gost94_update(&ctx, "x", 1), GOSTX_ESTATE, "update after final");
  CHECK_RC(gostx_gost94_final(&ctx, d), GOSTX_ESTATE, "final after final");
  CHECK_RC(gostx_gost94(GOSTX_SBOX_TEST_3411_94, NULL, 1, d), GOSTX_EINVAL, "one-shot NULL data");
  CHECK_RC(gostx_gost94(GOSTX_SBOX_TEST_3411_94, "x", 1, NULL), GOSTX_EINVAL, "one-shot NULL out");
  CHECK_RC(gostx_gost94(GOSTX_SBOX_COUNT, "x", 1, d), GOSTX_EINVAL, "one-shot bad set");
  CHECK_RC(gostx_gost94(GOSTX_SBOX_TEST_3411_94, NULL, 0, d), GOSTX_OK, "one-shot empty NULL");
  CHECK(gostx_sizeof_gost94_ctx() == sizeof(gostx_gost94_ctx), "sizeof ctx");
  gostx_gost94_clear(NULL); /* must not crash */
}

int main(void) {
  t_rand_init();
  test_vectors();
  test_engine_digests();
  test_streaming();
  test_errors();
  return t_done();
}
