/* XMLDSig's base64 (integrations/xmldsig/doc.c: xd_b64_encode,
 * xd_b64_decode over gostx/base64.h): RFC 4648 section 10's vectors, the
 * white space XML allows between characters, and what it refuses; then
 * random texts against a model of its rules: white space (space, tab, CR,
 * LF) skipped; refused: another character, one after '=', more than two
 * '=', a character alone in its last group, nonzero unused bits, more bytes
 * than cap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The rules above, written plainly: the length or -1. */
static long model(const char *s, uint8_t *out, size_t cap) {
  uint32_t acc = 0;
  unsigned bits = 0, pad = 0;
  size_t n = 0;
  for (; *s; s++) {
    if (strchr(" \t\r\n", *s)) continue;
    if (*s == '=') {
      pad++;
      continue;
    }
    const char *q = strchr(table, *s);
    if (pad || !q) return -1;
    acc = acc << 6 | (uint32_t)(q - table), bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (n == cap) return -1;
      out[n++] = (uint8_t)(acc >> bits);
    }
  }
  return pad > 2 || bits >= 6 || (acc & ((1u << bits) - 1)) ? -1 : (long)n;
}

static void vectors(void) {
  static const char *const v[][2] = {{"", ""},         {"f", "Zg=="},       {"fo", "Zm8="},
                                     {"foo", "Zm9v"},  {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                     {"foobar", "Zm9vYmFy"}};
  uint8_t out[16];
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    size_t n = strlen(v[i][0]);
    char *e = xd_b64_encode((const uint8_t *)v[i][0], n);
    CHECK(e && !strcmp(e, v[i][1]), "encode \"%s\": %s", v[i][0], e ? e : "NULL");
    free(e);
    CHECK(xd_b64_decode(v[i][1], out, sizeof out) == (long)n && !memcmp(out, v[i][0], n), "decode %s",
          v[i][1]);
  }
  static const struct {
    const char *text;
    long len;
  } cases[] = {
      {" Zm9v\n YmFy\r\n", 6}, {"Z m 9\tv", 3}, {"Zg = =", 1}, {"Zg\n==\n", 1}, {"Zg", 1},
      {"Zg=", 1},              {"Zm8", 2},      {"Zg==A", -1}, {"Zg= =A", -1}, {"Zg===", -1},
      {"Zh==", -1},            {"Zm9=", -1},    {"Z", -1},     {"Zm9vY", -1},  {"Zm9v\f", -1},
      {"Zm-_", -1},            {"Zm9v*", -1},   {"\xc3\xa9", -1}, {" \n", 0},  {"AAAA=", 3},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK(xd_b64_decode(cases[i].text, out, sizeof out) == cases[i].len, "\"%s\": %ld", cases[i].text,
          cases[i].len);
  CHECK(xd_b64_decode("Zm9vYmFy", out, 6) == 6 && xd_b64_decode("Zm9vYmFy", out, 5) == -1, "cap");
}

static void random_texts(void) {
  static const char pick[] = "AQgw/+9=== \n\t\r*";
  char s[40];
  uint8_t a[32], b[32];
  srand(82);
  for (int t = 0; t < 200000; t++) {
    size_t len = (size_t)rand() % (sizeof s - 1);
    for (size_t i = 0; i < len; i++) s[i] = pick[rand() % (sizeof pick - 1)];
    s[len] = 0;
    size_t cap = (size_t)rand() % 32;
    long want = model(s, a, cap), got = xd_b64_decode(s, b, cap);
    CHECK(got == want && (got < 0 || !memcmp(a, b, (size_t)got)), "\"%s\" cap %zu: %ld, model %ld", s, cap, got,
          want);
    uint8_t bytes[24];
    size_t n = (size_t)rand() % sizeof bytes;
    for (size_t i = 0; i < n; i++) bytes[i] = (uint8_t)rand();
    char *e = xd_b64_encode(bytes, n);
    CHECK(e && strlen(e) == (n + 2) / 3 * 4 && xd_b64_decode(e, a, sizeof a) == (long)n && !memcmp(a, bytes, n),
          "%zu bytes round trip", n);
    free(e);
  }
}

int main(void) {
  vectors();
  random_texts();
  return t_done();
}
