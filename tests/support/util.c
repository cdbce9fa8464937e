/* Test support: vectors access, hex, checks, random numbers. */
#include <stdarg.h>
#include <stdlib.h>

#include "testutil.h"
#include "dispatch.h"

int t_pass, t_fail;

json *tv_load(const char *name) {
  const char *dir = getenv("GOSTX_VECTORS");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "tests/vectors", name);
  return json_load(path);
}

uint8_t *tv_file(const char *name, size_t *len) {
  const char *dir = getenv("GOSTX_VECTORS");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "tests/vectors", name);
  return t_read_file(path, len);
}

uint8_t *t_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  uint8_t *buf = malloc((1 << 20) + 1);
  if (!f || !buf) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  *len = fread(buf, 1, 1 << 20, f);
  buf[*len] = 0;
  fclose(f);
  return buf;
}

json *tv_cases(json *file) {
  json *c = json_get(file, "cases");
  if (json_type_of(c) != JSON_ARR) { fprintf(stderr, "vectors file without \"cases\"\n"); exit(2); }
  return c;
}

tv_iter tv_open(const char *name) {
  tv_iter it = {tv_load(name), NULL, (size_t)-1, 0};
  it.cases = tv_cases(it.file);
  it.n = json_len(it.cases);
  return it;
}

json *tv_next(tv_iter *it) { return ++it->i < it->n ? json_at(it->cases, it->i) : NULL; }

json *tv_next_where(tv_iter *it, const char *key, const char *value) {
  json *c;
  while ((c = tv_next(it)) != NULL && strcmp(tv_str(c, key), value) != 0) {
  }
  return c;
}

void tv_close(tv_iter *it) { json_free(it->file); }

const char *tv_str(const json *c, const char *key) {
  const char *s = json_str(json_get(c, key));
  if (!s) {
    fprintf(stderr, "vector \"%s\": missing string field \"%s\"\n",
            json_str(json_get(c, "name")) ? json_str(json_get(c, "name")) : "?", key);
    exit(2);
  }
  return s;
}

uint8_t *tv_hex(const json *c, const char *key, size_t *len) { return hex_alloc(tv_str(c, key), len); }

long long tv_int(const json *c, const char *key) {
  json *v = json_get(c, key);
  if (json_type_of(v) != JSON_NUM) { fprintf(stderr, "missing number field \"%s\"\n", key); exit(2); }
  return (long long)json_num(v);
}

static int hexval(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if (h >= 'a' && h <= 'f') return h - 'a' + 10;
  if (h >= 'A' && h <= 'F') return h - 'A' + 10;
  return -1;
}

long hex_decode(const char *hex, uint8_t *out, size_t cap) {
  size_t l = strlen(hex);
  if (l % 2 || l / 2 > cap) return -1;
  for (size_t i = 0; i < l / 2; i++) {
    int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return (long)(l / 2);
}

uint8_t *hex_alloc(const char *hex, size_t *len) {
  size_t cap = strlen(hex) / 2;
  uint8_t *p = malloc(cap + 1);
  long n = p ? hex_decode(hex, p, cap) : -1;
  if (n < 0) { fprintf(stderr, "bad hex: %.40s\n", hex); exit(2); }
  if (len) *len = (size_t)n;
  return p;
}

void hex_print(FILE *f, const uint8_t *p, size_t len) {
  for (size_t i = 0; i < len; i++) fprintf(f, "%02x", p[i]);
}

void t_check(int ok, const char *file, int line, const char *fmt, ...) {
  if (ok) { t_pass++; return; }
  t_fail++;
  fprintf(stderr, "FAIL %s:%d: ", file, line);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

int t_check_bytes(const uint8_t *got, const uint8_t *want, size_t len, const char *file, int line,
                  const char *what) {
  int ok = len == 0 || memcmp(got, want, len) == 0;
  t_check(ok, file, line, "%s differs", what);
  if (!ok) {
    fprintf(stderr, "  got:  "); hex_print(stderr, got, len);
    fprintf(stderr, "\n  want: "); hex_print(stderr, want, len);
    fputc('\n', stderr);
  }
  return ok;
}

int t_done(void) {
  printf("%d passed, %d failed\n", t_pass, t_fail);
  return t_fail ? 1 : (t_pass ? 0 : 1);
}

static uint64_t rs[4];

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void t_rand_init(void) {
  const char *e = getenv("GOSTX_TEST_SEED");
  uint64_t seed = e && *e ? strtoull(e, NULL, 0) : 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 4; i++) { /* splitmix64 to fill the state */
    seed += 0x9e3779b97f4a7c15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    rs[i] = z ^ (z >> 31);
  }
  fprintf(stderr, "random seed: GOSTX_TEST_SEED=%s\n", e && *e ? e : "0x9e3779b97f4a7c15");
}

uint64_t t_rand(void) {
  uint64_t r = rotl(rs[1] * 5, 7) * 9, t = rs[1] << 17;
  rs[2] ^= rs[0]; rs[3] ^= rs[1]; rs[1] ^= rs[2]; rs[0] ^= rs[3];
  rs[2] ^= t; rs[3] = rotl(rs[3], 45);
  return r;
}

size_t t_rand_below(size_t n) { return n ? (size_t)(t_rand() % n) : 0; }

void t_rand_bytes(uint8_t *p, size_t len) {
  for (size_t i = 0; i < len; i++) p[i] = (uint8_t)(t_rand() >> 56);
}

const void *t_next_usable(int alg, size_t *i) {
  int usable;
  const void *row;
  while ((row = gostx__impl_row(alg, (*i)++, &usable)) != NULL && !usable) {
  }
  return row;
}

void t_rand_cipher(gostx_cipher *c, gostx_alg alg, uint8_t key[GOSTX_KEY_LEN], uint8_t iv[8]) {
  t_rand_bytes(key, GOSTX_KEY_LEN);
  t_rand_bytes(iv, 8);
  gostx_cipher_init(c, alg, key);
}

size_t t_rand_piece(size_t left, size_t n) {
  size_t k;
  switch (t_rand_below(4)) {
    case 0: k = 1; break;
    case 1: k = t_rand_below(3 * n + 1); break;
    case 2: k = t_rand_below(700); break;
    default: k = left; break;
  }
  return k < left ? k : left;
}

void t_omac_pieces(gostx_omac_ctx *ctx, const uint8_t *msg, size_t len, size_t n, uint8_t *mac,
                   size_t mac_len) {
  for (size_t off = 0; off < len;) {
    size_t k = t_rand_piece(len - off, n);
    gostx_omac_update(ctx, msg + off, k);
    off += k;
  }
  gostx_omac_final(ctx, mac, mac_len);
}

const gostx_gost89_key *t_gost89_key(const uint8_t *key, int sbox) {
  static gostx_gost89_key slots[8];
  static unsigned next;
  gostx_gost89_key *k = &slots[next++ % 8];
  if (!key || gostx_gost89_set_key(k, key, sbox) != GOSTX_OK) return NULL;
  return k;
}

const gostx_cipher *t_cipher(int id, const uint8_t *key) {
  static gostx_cipher slots[8];
  static unsigned next;
  gostx_cipher *c = &slots[next++ % 8];
  if (!key || gostx_cipher_init(c, (gostx_alg)id, key) != GOSTX_OK) return NULL;
  return c;
}

int t_is_level(const char *name) {
  const char *p = gostx_levels();
  size_t n = strlen(name);
  while ((p = strstr(p, name)) != NULL) {
    if ((p == gostx_levels() || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
    p += n;
  }
  return 0;
}

/* Runs before main in every test program: when ctest runs the suite at a
 * forced implementation level (GOSTX_IMPL=avx2, ...) that this CPU lacks,
 * the test is skipped (exit 77) rather than silently testing portable code. */
int gostx__level_supported(const char *level);
__attribute__((constructor)) static void skip_unsupported_level(void) {
  const char *forced = getenv("GOSTX_IMPL");
  if (!forced || !*forced || !t_is_level(forced)) return;
  if (!gostx__level_supported(forced)) {
    printf("skipped: this CPU cannot run GOSTX_IMPL=%s\n", forced);
    exit(77);
  }
}

void t_make_sign_key(gostx_gost3410_curve curve, t_sign_key *k) {
  size_t len = gostx_gost3410_size(curve);
  k->curve = curve;
  CHECK_RC(gostx_gost3410_keygen(curve, k->priv, len, k->pub, 2 * len), 0, "keygen");
  CHECK_RC(gostx_gost3410_key_set_private(&k->xk, curve, k->priv, len, NULL), 0, "key object");
  CHECK_RC(gostx_gost3410_key_write(&k->xk, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL,
                                    k->spki, sizeof k->spki, &k->spki_len),
           0, "spki");
}

#if defined(__GLIBC__)
#include <malloc.h>
size_t t_heap_used(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}
#else
size_t t_heap_used(void) { return 0; }
#endif

int t_heap_counted(void) {
  size_t before = t_heap_used();
  void *volatile probe = malloc(1u << 20); /* volatile: not elided */
  size_t after = t_heap_used();
  free(probe);
  return after >= before + (1u << 20);
}
