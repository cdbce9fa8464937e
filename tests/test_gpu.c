/* The CUDA backend against the CPU library. Without a GPU (or driver) it
 * checks that gostx_gpu_open reports the absence cleanly and exits 77 (ctest
 * skip). With one, every GPU call is compared with the CPU call on random
 * keys and odd lengths, through host buffers (chunked, several streams, also
 * in place and with a small chunk size so that many chunks are in flight)
 * and through device buffers. Built with GOSTX_CUDA=ON only.
 *
 * ctest also runs it with GOSTX_CUDA_DRIVER pointing at the mock driver of
 * tests/gpu_mock (the whole host side against host-run kernels), and with
 * GOSTX_TEST_EXPECT_UNSUP=<text>: then gostx_gpu_open must fail with
 * GOSTX_EUNSUP and a reason containing <text> (no driver, no device, cuInit
 * failing, kernels not loadable), and the test passes instead of skipping. */
#include <dlfcn.h>
#include <stdlib.h>

#include "testutil.h"

/* Under the mock driver (tests/gpu_mock, GOSTX_CUDA_DRIVER) the kernels run
 * on the host: lengths are capped so that the run stays short. */
static size_t max_len = (size_t)-1;

static void rand_bytes(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)t_rand();
}

static const size_t LENS[] = {0, 1, 15, 16, 17, 4095, 4096, 16384 + 8, 65536 + 3, (1u << 20) + 7,
                              (3u << 20) + 7, (9u << 20) + 7};
#define NLENS (sizeof LENS / sizeof *LENS)

static int no_gpu(void) {
  gostx_gpu *g = (gostx_gpu *)1;
  int rc = gostx_gpu_open(&g, 0);
  const char *why = gostx_gpu_error();
  const char *expect = getenv("GOSTX_TEST_EXPECT_UNSUP");
  CHECK(rc == GOSTX_EUNSUP, "open without GPU: %d (%s)", rc, gostx_strerror(rc));
  CHECK(g == NULL, "handle NULL on failure");
  CHECK(why && *why, "a reason is given");
  if (expect) CHECK(strstr(why, expect) != NULL, "reason \"%s\" mentions \"%s\"", why, expect);
  CHECK(gostx_gpu_open(NULL, 0) == GOSTX_EINVAL, "NULL handle pointer");
  gostx_gpu_close(NULL);
  printf("no GPU: %s (%s)\n", why, gostx_strerror(rc));
  int r = t_done();
  return expect || r ? r : 77;
}

static long mock_live(void) {
  const char *lib = getenv("GOSTX_CUDA_DRIVER");
  void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : NULL;
  long (*f)(void) = NULL;
  if (h) *(void **)&f = dlsym(h, "mockcuda_live_allocations");
  long n = f ? f() : 0;
  if (h) dlclose(h);
  return n;
}

/* One GPU call on host buffers, out of place and in place, vs want. */
#define HOST_CASE(call_out, call_in, want, len, what)                               \
  do {                                                                             \
    memset(got, 0xee, (len) + 1);                                                  \
    CHECK_RC(call_out, 0, what);                                                   \
    CHECK(!memcmp(got, want, len) && got[len] == 0xee, "%s, len %zu", what, (size_t)(len)); \
    memcpy(got, in, len);                                                          \
    CHECK_RC(call_in, 0, what);                                                    \
    CHECK(!memcmp(got, want, len), "%s in place, len %zu", what, (size_t)(len));   \
  } while (0)

static void test_cipher(gostx_gpu *g, int id) {
  const size_t n = id == GOSTX_CIPHER_KUZNYECHIK ? 16 : 8;
  uint8_t key[32], iv[8];
  rand_bytes(key, 32);
  rand_bytes(iv, 8);
  gostx_cipher c;
  gostx_cipher_init(&c, id, key);
  gostx_gpu_ptr din = 0, dout = 0;
  size_t maxlen = LENS[NLENS - 1] + 16;
  CHECK_RC(gostx_gpu_alloc(g, &din, maxlen), 0, "alloc");
  CHECK_RC(gostx_gpu_alloc(g, &dout, maxlen), 0, "alloc");
  for (size_t li = 0; li < NLENS && LENS[li] <= max_len; li++) {
    size_t len = LENS[li], bl = len / n * n;
    uint8_t *in = malloc(len + 1), *want = malloc(len + 1), *got = malloc(len + 1);
    rand_bytes(in, len);
    gostx_ctr_crypt(&c, iv, n / 2, n, in, want, len);
    HOST_CASE(gostx_gpu_ctr_crypt(g, &c, iv, n / 2, in, got, len),
              gostx_gpu_ctr_crypt(g, &c, iv, n / 2, got, got, len), want, len, "ctr");
    gostx_ecb_encrypt(&c, in, want, bl);
    HOST_CASE(gostx_gpu_ecb_encrypt(g, &c, in, got, bl), gostx_gpu_ecb_encrypt(g, &c, got, got, bl),
              want, bl, "ecb encrypt");
    gostx_ecb_decrypt(&c, in, want, bl);
    HOST_CASE(gostx_gpu_ecb_decrypt(g, &c, in, got, bl), gostx_gpu_ecb_decrypt(g, &c, got, got, bl),
              want, bl, "ecb decrypt");
    /* device buffers */
    gostx_ctr_crypt(&c, iv, n / 2, n, in, want, len);
    CHECK_RC(gostx_gpu_upload(g, din, in, len), 0, "upload");
    CHECK_RC(gostx_gpu_ctr_crypt_dev(g, &c, iv, n / 2, din, dout, len), 0, "ctr dev");
    memset(got, 0xee, len + 1);
    CHECK_RC(gostx_gpu_download(g, got, dout, len), 0, "download");
    CHECK(!memcmp(got, want, len), "ctr dev, len %zu", len);
    gostx_ecb_encrypt(&c, in, want, bl);
    CHECK_RC(gostx_gpu_ecb_encrypt_dev(g, &c, din, din, bl), 0, "ecb dev in place");
    CHECK_RC(gostx_gpu_download(g, got, din, bl), 0, "download");
    CHECK(!memcmp(got, want, bl), "ecb dev, len %zu", bl);
    CHECK_RC(gostx_gpu_ecb_decrypt_dev(g, &c, din, dout, bl), 0, "ecb dev decrypt");
    CHECK_RC(gostx_gpu_download(g, got, dout, bl), 0, "download");
    CHECK(!memcmp(got, in, bl), "ecb dev decrypt, len %zu", bl);
    free(in);
    free(want);
    free(got);
  }
  /* argument checks */
  uint8_t b[32] = {0};
  CHECK_RC(gostx_gpu_ctr_crypt(g, &c, iv, n, b, b, 32), GOSTX_ELEN, "ctr iv_len");
  CHECK_RC(gostx_gpu_ecb_encrypt(g, &c, b, b, n + 1), GOSTX_ELEN, "ecb partial block");
  CHECK_RC(gostx_gpu_ecb_encrypt_dev(g, &c, din + 2, dout, 32), GOSTX_EINVAL, "misaligned device input");
  CHECK_RC(gostx_gpu_ctr_crypt_dev(g, &c, iv, n / 2, din, dout + 1, 32), GOSTX_EINVAL,
           "misaligned device output");
  /* 4-byte aligned but not block aligned is fine */
  rand_bytes(b, 32);
  uint8_t want[32], got2[32];
  gostx_ctr_crypt(&c, iv, n / 2, n, b, want, 32);
  CHECK_RC(gostx_gpu_upload(g, din + 4, b, 32), 0, "upload");
  CHECK_RC(gostx_gpu_ctr_crypt_dev(g, &c, iv, n / 2, din + 4, dout + 12, 32), 0, "ctr dev +4/+12");
  CHECK_RC(gostx_gpu_download(g, got2, dout + 12, 32), 0, "download");
  CHECK(!memcmp(got2, want, 32), "ctr dev on 4-byte aligned offsets");
  gostx_gpu_free(g, din);
  gostx_gpu_free(g, dout);
  gostx_cipher_clear(&c);
}

static void test_xts(gostx_gpu *g) {
  static const size_t SECTORS[] = {16, 512, 4096, 65536};
  for (size_t si = 0; si < 4; si++) {
    const size_t sl = SECTORS[si];
    size_t nsec = si == 3 ? 70 : (3u << 20) / sl + 3;
    if (nsec * sl > max_len) nsec = si == 3 ? 5 : max_len / sl;
    const size_t len = sl * nsec;
    uint8_t key[64];
    rand_bytes(key, 64);
    gostx_xts_key x;
    CHECK_RC(gostx_xts_set_key(&x, key), 0, "xts key");
    uint64_t s0 = t_rand();
    if (si == 0) s0 = ~0ull - 5; /* sector numbers wrap past 2^64 - 1 */
    uint8_t *in = malloc(len + 1), *want = malloc(len + 1), *got = malloc(len + 1);
    rand_bytes(in, len);
    for (size_t s = 0; s < nsec; s++)
      gostx_xts_encrypt_sector(&x, s0 + s, in + s * sl, want + s * sl, sl);
    HOST_CASE(gostx_gpu_xts_encrypt(g, &x, s0, sl, in, got, len),
              gostx_gpu_xts_encrypt(g, &x, s0, sl, got, got, len), want, len, "xts encrypt");
    for (size_t s = 0; s < nsec; s++)
      gostx_xts_decrypt_sector(&x, s0 + s, in + s * sl, want + s * sl, sl);
    HOST_CASE(gostx_gpu_xts_decrypt(g, &x, s0, sl, in, got, len),
              gostx_gpu_xts_decrypt(g, &x, s0, sl, got, got, len), want, len, "xts decrypt");
    gostx_gpu_ptr d = 0;
    CHECK_RC(gostx_gpu_alloc(g, &d, len), 0, "alloc");
    CHECK_RC(gostx_gpu_upload(g, d, in, len), 0, "upload");
    CHECK_RC(gostx_gpu_xts_decrypt_dev(g, &x, s0, sl, d, d, len), 0, "xts dev");
    CHECK_RC(gostx_gpu_download(g, got, d, len), 0, "download");
    CHECK(!memcmp(got, want, len), "xts decrypt dev, sector %zu", sl);
    gostx_gpu_free(g, d);
    CHECK_RC(gostx_gpu_xts_encrypt(g, &x, s0, sl, in, got, sl + 8), GOSTX_ELEN, "xts partial sector");
    free(in);
    free(want);
    free(got);
    gostx_xts_clear(&x);
  }
}

static void test_cnt(gostx_gpu *g) {
  for (int sbox = 0; sbox < GOSTX_SBOX_COUNT; sbox++) {
    uint8_t key[32], iv[8];
    rand_bytes(key, 32);
    rand_bytes(iv, 8);
    gostx_gost89_key k;
    gostx_gost89_set_key(&k, key, sbox);
    for (size_t li = 0; li < NLENS && LENS[li] <= max_len; li++) {
      size_t len = LENS[li];
      uint8_t *in = malloc(len + 1), *want = malloc(len + 1), *got = malloc(len + 1);
      rand_bytes(in, len);
      gostx_gost89_cnt(key, sbox, iv, 0, in, want, len);
      HOST_CASE(gostx_gpu_gost89_cnt(g, &k, iv, in, got, len),
                gostx_gpu_gost89_cnt(g, &k, iv, got, got, len), want, len, "gost89 cnt");
      free(in);
      free(want);
      free(got);
    }
  }
}

int main(void) {
  t_rand_init();
  gostx_gpu *g = NULL;
  if (getenv("GOSTX_TEST_EXPECT_UNSUP")) return no_gpu();
  int rc = gostx_gpu_open(&g, 0);
  if (rc == GOSTX_EUNSUP) return no_gpu();
  CHECK_RC(rc, 0, "gostx_gpu_open");
  if (rc) {
    printf("%s\n", gostx_gpu_error());
    return t_done();
  }
  printf("GPU: %s\n", gostx_gpu_name(g));
  const int mock = strstr(gostx_gpu_name(g), "mock") != NULL;
  if (mock) max_len = (1u << 20) + 7;
  /* default chunk (8 MiB), then a small one: many chunks on all streams */
  for (int pass = 0; pass < 2; pass++) {
    if (pass) CHECK_RC(gostx_gpu_set_chunk(g, 64 << 10), 0, "set_chunk");
    test_cipher(g, GOSTX_CIPHER_KUZNYECHIK);
    test_cipher(g, GOSTX_CIPHER_MAGMA);
    test_xts(g);
    test_cnt(g);
  }
  gostx_gpu_close(g);
  if (mock) CHECK(mock_live() == 0, "close frees all device and pinned memory (%ld left)", mock_live());
  return t_done();
}
