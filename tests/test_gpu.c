/* The CUDA backend against the CPU library. Without a GPU (or driver) it
 * checks that gostx_gpu_open reports the absence cleanly and exits 77 (ctest
 * skip). With one, every GPU call is compared with the CPU call on random
 * keys and odd lengths, through host buffers (chunked, several streams, also
 * in place and with a small chunk size so that many chunks are in flight)
 * and through device buffers, on misaligned host buffers, on registered
 * (pinned) host memory, with one and several staging-copy threads; the
 * batch calls (a key and IV per stream) against the one-stream CPU calls;
 * the GPU + CPU split against the CPU. Built with GOSTX_CUDA=ON only.
 *
 * ctest also runs it with GOSTX_CUDA_DRIVER pointing at the mock driver of
 * tests/gpu_mock (the whole host side against host-run kernels), and with
 * GOSTX_TEST_EXPECT_UNSUP=<text>: then gostx_gpu_open must fail with
 * GOSTX_EUNSUP and a reason containing <text> (no driver, no device, cuInit
 * failing, kernels not loadable), and the test passes instead of skipping. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "testutil.h"

/* Under the mock driver (tests/gpu_mock, GOSTX_CUDA_DRIVER) the kernels run
 * on the host: lengths are capped so that the run stays short. */
static size_t max_len = (size_t)-1;

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
  const size_t n = id == GOSTX_ALG_KUZNYECHIK ? 16 : 8;
  uint8_t key[32], iv[8];
  gostx_cipher c;
  t_rand_cipher(&c, id, key, iv);
  gostx_gpu_ptr din = 0, dout = 0;
  size_t maxlen = LENS[NLENS - 1] + 16;
  CHECK_RC(gostx_gpu_alloc(g, &din, maxlen), 0, "alloc");
  CHECK_RC(gostx_gpu_alloc(g, &dout, maxlen), 0, "alloc");
  for (size_t li = 0; li < NLENS && LENS[li] <= max_len; li++) {
    size_t len = LENS[li], bl = len / n * n;
    uint8_t *in = malloc(len + 1), *want = malloc(len + 1), *got = malloc(len + 1);
    t_rand_bytes(in, len);
    gostx_ctr_crypt(&c, iv, n / 2, n, in, len, want);
    HOST_CASE(gostx_gpu_ctr_crypt(g, &c, iv, n / 2, in, len, got),
              gostx_gpu_ctr_crypt(g, &c, iv, n / 2, got, len, got), want, len, "ctr");
    gostx_ecb_encrypt(&c, in, bl, want);
    HOST_CASE(gostx_gpu_ecb_encrypt(g, &c, in, bl, got), gostx_gpu_ecb_encrypt(g, &c, got, bl, got),
              want, bl, "ecb encrypt");
    gostx_ecb_decrypt(&c, in, bl, want);
    HOST_CASE(gostx_gpu_ecb_decrypt(g, &c, in, bl, got), gostx_gpu_ecb_decrypt(g, &c, got, bl, got),
              want, bl, "ecb decrypt");
    { /* host buffers at odd addresses: the staging copies take any alignment */
      uint8_t *ui = malloc(len + 8), *uo = malloc(len + 8);
      memcpy(ui + 1, in, len);
      gostx_ctr_crypt(&c, iv, n / 2, n, in, len, want);
      CHECK_RC(gostx_gpu_ctr_crypt(g, &c, iv, n / 2, ui + 1, len, uo + 3), 0, "ctr misaligned");
      CHECK(!memcmp(uo + 3, want, len), "ctr, host buffers at +1/+3, len %zu", len);
      free(ui);
      free(uo);
    }
    /* device buffers */
    gostx_ctr_crypt(&c, iv, n / 2, n, in, len, want);
    CHECK_RC(gostx_gpu_upload(g, din, in, len), 0, "upload");
    CHECK_RC(gostx_gpu_ctr_crypt_dev(g, &c, iv, n / 2, din, len, dout), 0, "ctr dev");
    memset(got, 0xee, len + 1);
    CHECK_RC(gostx_gpu_download(g, got, dout, len), 0, "download");
    CHECK(!memcmp(got, want, len), "ctr dev, len %zu", len);
    gostx_ecb_encrypt(&c, in, bl, want);
    CHECK_RC(gostx_gpu_ecb_encrypt_dev(g, &c, din, bl, din), 0, "ecb dev in place");
    CHECK_RC(gostx_gpu_download(g, got, din, bl), 0, "download");
    CHECK(!memcmp(got, want, bl), "ecb dev, len %zu", bl);
    CHECK_RC(gostx_gpu_ecb_decrypt_dev(g, &c, din, bl, dout), 0, "ecb dev decrypt");
    CHECK_RC(gostx_gpu_download(g, got, dout, bl), 0, "download");
    CHECK(!memcmp(got, in, bl), "ecb dev decrypt, len %zu", bl);
    free(in);
    free(want);
    free(got);
  }
  /* argument checks */
  uint8_t b[32] = {0};
  CHECK_RC(gostx_gpu_ctr_crypt(g, &c, iv, n, b, 32, b), GOSTX_ELEN, "ctr iv_len");
  CHECK_RC(gostx_gpu_ecb_encrypt(g, &c, b, n + 1, b), GOSTX_ELEN, "ecb partial block");
  CHECK_RC(gostx_gpu_ecb_encrypt_dev(g, &c, din + 2, 32, dout), GOSTX_EINVAL, "misaligned device input");
  CHECK_RC(gostx_gpu_ctr_crypt_dev(g, &c, iv, n / 2, din, 32, dout + 1), GOSTX_EINVAL,
           "misaligned device output");
  /* 4-byte aligned but not block aligned is fine */
  t_rand_bytes(b, 32);
  uint8_t want[32], got2[32];
  gostx_ctr_crypt(&c, iv, n / 2, n, b, 32, want);
  CHECK_RC(gostx_gpu_upload(g, din + 4, b, 32), 0, "upload");
  CHECK_RC(gostx_gpu_ctr_crypt_dev(g, &c, iv, n / 2, din + 4, 32, dout + 12), 0, "ctr dev +4/+12");
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
    t_rand_bytes(key, 64);
    gostx_xts_key x;
    CHECK_RC(gostx_xts_set_key(&x, key), 0, "xts key");
    uint64_t s0 = t_rand();
    if (si == 0) s0 = ~0ull - 5; /* sector numbers wrap past 2^64 - 1 */
    uint8_t *in = malloc(len + 1), *want = malloc(len + 1), *got = malloc(len + 1);
    t_rand_bytes(in, len);
    for (size_t s = 0; s < nsec; s++)
      gostx_xts_encrypt_sector(&x, s0 + s, in + s * sl, sl, want + s * sl);
    HOST_CASE(gostx_gpu_xts_encrypt(g, &x, s0, sl, in, len, got),
              gostx_gpu_xts_encrypt(g, &x, s0, sl, got, len, got), want, len, "xts encrypt");
    for (size_t s = 0; s < nsec; s++)
      gostx_xts_decrypt_sector(&x, s0 + s, in + s * sl, sl, want + s * sl);
    HOST_CASE(gostx_gpu_xts_decrypt(g, &x, s0, sl, in, len, got),
              gostx_gpu_xts_decrypt(g, &x, s0, sl, got, len, got), want, len, "xts decrypt");
    gostx_gpu_ptr d = 0;
    CHECK_RC(gostx_gpu_alloc(g, &d, len), 0, "alloc");
    CHECK_RC(gostx_gpu_upload(g, d, in, len), 0, "upload");
    CHECK_RC(gostx_gpu_xts_decrypt_dev(g, &x, s0, sl, d, len, d), 0, "xts dev");
    CHECK_RC(gostx_gpu_download(g, got, d, len), 0, "download");
    CHECK(!memcmp(got, want, len), "xts decrypt dev, sector %zu", sl);
    gostx_gpu_free(g, d);
    CHECK_RC(gostx_gpu_xts_encrypt(g, &x, s0, sl, in, sl + 8, got), GOSTX_ELEN, "xts partial sector");
    free(in);
    free(want);
    free(got);
    gostx_xts_clear(&x);
  }
}

static void test_cnt(gostx_gpu *g) {
  for (int sbox = 0; sbox < GOSTX_SBOX_COUNT; sbox++) {
    uint8_t key[32], iv[8];
    t_rand_bytes(key, 32);
    t_rand_bytes(iv, 8);
    gostx_gost89_key k;
    gostx_gost89_set_key(&k, key, sbox);
    for (size_t li = 0; li < NLENS && LENS[li] <= max_len; li++) {
      size_t len = LENS[li];
      uint8_t *in = malloc(len + 1), *want = malloc(len + 1), *got = malloc(len + 1);
      t_rand_bytes(in, len);
      gostx_gost89_cnt(t_gost89_key(key, sbox), iv, 0, in, len, want);
      HOST_CASE(gostx_gpu_gost89_cnt(g, &k, iv, in, len, got),
                gostx_gpu_gost89_cnt(g, &k, iv, got, len, got), want, len, "gost89 cnt");
      free(in);
      free(want);
      free(got);
    }
  }
}

/* Registered host memory: in, out or both moved by DMA without staging,
 * also at odd offsets inside the registered range; and the staging copies
 * on one thread and on several. */
static void test_register(gostx_gpu *g) {
  const size_t len = max_len < (5u << 20) + 9 ? max_len : (5u << 20) + 9, bl = len / 16 * 16;
  uint8_t key[32], iv[8];
  gostx_cipher c;
  t_rand_cipher(&c, GOSTX_ALG_KUZNYECHIK, key, iv);
  uint8_t *in = malloc(len + 16), *got = malloc(len + 16), *want = malloc(len + 16);
  t_rand_bytes(in, len + 16);
  CHECK_RC(gostx_gpu_host_register(g, in, len + 16), 0, "register in");
  CHECK_RC(gostx_gpu_host_register(g, in + 8, 64), GOSTX_ENOMEM, "overlapping registration refused");
  for (int mode = 0; mode < 3; mode++) { /* 0: in registered, 1: in and out, 2: out */
    if (mode == 1) CHECK_RC(gostx_gpu_host_register(g, got, len + 16), 0, "register out");
    if (mode == 2) CHECK_RC(gostx_gpu_host_unregister(g, in), 0, "unregister in");
    for (size_t a = 0; a < 2; a++) { /* aligned, then at +1 / +5 */
      const uint8_t *i0 = in + a;
      uint8_t *o0 = got + 5 * a;
      gostx_ctr_crypt(&c, iv, 8, 16, i0, len, want);
      memset(got, 0xee, len + 16);
      CHECK_RC(gostx_gpu_ctr_crypt(g, &c, iv, 8, i0, len, o0), 0, "ctr registered");
      CHECK(!memcmp(o0, want, len), "ctr, registered mode %d, offset %zu", mode, a);
      gostx_ecb_encrypt(&c, i0, bl, want);
      CHECK_RC(gostx_gpu_ecb_encrypt(g, &c, i0, bl, o0), 0, "ecb registered");
      CHECK(!memcmp(o0, want, bl), "ecb, registered mode %d, offset %zu", mode, a);
    }
    /* in place inside a registered range */
    memcpy(got, in, len);
    gostx_ctr_crypt(&c, iv, 8, 16, in, len, want);
    CHECK_RC(gostx_gpu_ctr_crypt(g, &c, iv, 8, got, len, got), 0, "ctr in place registered");
    CHECK(!memcmp(got, want, len), "ctr in place, registered mode %d", mode);
  }
  CHECK_RC(gostx_gpu_host_unregister(g, in), GOSTX_EINVAL, "unregister twice");
  CHECK_RC(gostx_gpu_host_register(g, NULL, 16), GOSTX_EINVAL, "register NULL");
  /* staging copies on 1 and 4 threads (got stays registered: out direct) */
  CHECK_RC(gostx_gpu_host_unregister(g, got), 0, "unregister out");
  for (unsigned t = 1; t <= 4; t += 3) {
    CHECK_RC(gostx_gpu_set_copy_threads(g, t), 0, "copy threads");
    memset(got, 0, len);
    CHECK_RC(gostx_gpu_ctr_crypt(g, &c, iv, 8, in, len, got), 0, "ctr");
    gostx_ctr_crypt(&c, iv, 8, 16, in, len, want);
    CHECK(!memcmp(got, want, len), "ctr with %u copy threads", t);
  }
  CHECK_RC(gostx_gpu_set_copy_threads(g, 0), 0, "copy threads default");
  free(in);
  free(got);
  free(want);
  gostx_cipher_clear(&c);
}

/* The batch calls: stream i against the one-stream CPU call with its own
 * key and IV; stream counts around the 32-stream groups, lengths that make
 * streams and groups straddle chunks; one key for all; host (out of place,
 * in place, odd addresses) and device buffers. */
static void test_batch(gostx_gpu *g) {
  static const size_t COUNTS[] = {1, 5, 31, 32, 33, 100, 300};
  for (int kind = 0; kind < 3; kind++) { /* Kuznyechik CTR, Magma CTR, GOST 28147-89 CNT */
    const size_t n = kind == 0 ? 16 : 8, iv_len = kind == 0 ? 8 : kind == 1 ? 4 : 8;
    for (size_t ci = 0; ci < sizeof COUNTS / sizeof *COUNTS; ci++) {
      const size_t ns = COUNTS[ci];
      size_t sl = n * (1 + t_rand() % (ci & 1 ? 256 : 40));
      while (sl * ns > max_len / 4 && sl > n) sl = sl / 2 / n * n;
      const size_t len = sl * ns;
      for (int one = 0; one < 2; one++) {
        const size_t nk = one ? 1 : ns;
        gostx_cipher *ck = calloc(nk, sizeof *ck);
        gostx_gost89_key *gk = calloc(nk, sizeof *gk);
        const void **kp = calloc(nk, sizeof *kp);
        uint8_t (*raw)[32] = calloc(nk, 32);
        const int sbox = (int)(t_rand() % GOSTX_SBOX_COUNT);
        for (size_t i = 0; i < nk; i++) {
          t_rand_bytes(raw[i], 32);
          if (kind == 2) {
            gostx_gost89_set_key(&gk[i], raw[i], sbox);
            kp[i] = &gk[i];
          } else {
            gostx_cipher_init(&ck[i], kind == 0 ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA,
                              raw[i]);
            kp[i] = &ck[i];
          }
        }
        uint8_t *ivs = malloc(iv_len * ns), *in = malloc(len + 8), *want = malloc(len + 8),
                *got = malloc(len + 8);
        t_rand_bytes(ivs, iv_len * ns);
        t_rand_bytes(in, len);
        for (size_t i = 0; i < ns; i++) {
          const size_t k = one ? 0 : i;
          if (kind == 2)
            gostx_gost89_cnt(t_gost89_key(raw[k], sbox), ivs + 8 * i, 0, in + i * sl, sl, want + i * sl);
          else
            gostx_ctr_crypt(&ck[k], ivs + iv_len * i, iv_len, n, in + i * sl, sl, want + i * sl);
        }
#define BATCH(i_, o_)                                                                       \
  (kind == 2 ? gostx_gpu_batch_gost89_cnt(g, (const gostx_gost89_key *const *)kp, nk, ivs, i_, \
                                          sl, ns, o_)                                        \
             : gostx_gpu_batch_ctr_crypt(g, (const gostx_cipher *const *)kp, nk, ivs, iv_len, \
                                         i_, sl, ns, o_))
        const char *what = kind == 0 ? "kuz ctr batch" : kind == 1 ? "magma ctr batch" : "cnt batch";
        HOST_CASE(BATCH(in, got), BATCH(got, got), want, len, what);
        memcpy(got + 8, in, len); /* odd addresses: in at +8 - 7, out at +3 */
        memmove(got + 1, got + 8, len);
        CHECK_RC(BATCH(got + 1, got + 3), 0, what);
        CHECK(!memcmp(got + 3, want, len), "%s, %zu streams of %zu, odd addresses", what, ns, sl);
        gostx_gpu_ptr d = 0;
        CHECK_RC(gostx_gpu_alloc(g, &d, len), 0, "alloc");
        CHECK_RC(gostx_gpu_upload(g, d, in, len), 0, "upload");
        CHECK_RC(kind == 2 ? gostx_gpu_batch_gost89_cnt_dev(g,
                                                            (const gostx_gost89_key *const *)kp,
                                                            nk, ivs, d, sl, ns, d)
                           : gostx_gpu_batch_ctr_crypt_dev(g, (const gostx_cipher *const *)kp, nk,
                                                           ivs, iv_len, d, sl, ns, d),
                 0, what);
        memset(got, 0, len);
        CHECK_RC(gostx_gpu_download(g, got, d, len), 0, "download");
        CHECK(!memcmp(got, want, len), "%s dev, %zu streams of %zu, keys %zu", what, ns, sl, nk);
        gostx_gpu_free(g, d);
        /* argument checks, nothing written */
        memset(got, 0x5a, len);
        CHECK_RC(kind == 2 ? GOSTX_ELEN
                           : gostx_gpu_batch_ctr_crypt(g, (const gostx_cipher *const *)kp, nk,
                                                       ivs, iv_len + 1, in, sl, ns, got),
                 GOSTX_ELEN, "batch: wrong IV length");
        if (ns > 2 && !one)
          CHECK_RC(kind == 2 ? gostx_gpu_batch_gost89_cnt(g, (const gostx_gost89_key *const *)kp,
                                                          2, ivs, in, sl, ns, got)
                             : gostx_gpu_batch_ctr_crypt(g, (const gostx_cipher *const *)kp, 2,
                                                         ivs, iv_len, in, sl, ns, got),
                   GOSTX_EINVAL, "batch: nkeys neither 1 nor the stream count");
#undef BATCH
        CHECK_RC(kind == 2 ? gostx_gpu_batch_gost89_cnt(g, (const gostx_gost89_key *const *)kp,
                                                        nk, ivs, in, sl + 4, ns, got)
                           : gostx_gpu_batch_ctr_crypt(g, (const gostx_cipher *const *)kp, nk,
                                                       ivs, iv_len, in, sl + n / 2, ns, got),
                 GOSTX_ELEN, "batch: partial block");
        size_t untouched = 0;
        while (untouched < len && got[untouched] == 0x5a) untouched++;
        CHECK(untouched == len, "batch: refused calls write nothing");
        free(ivs);
        free(in);
        free(want);
        free(got);
        for (size_t i = 0; i < nk; i++) gostx_cipher_clear(&ck[i]);
        free(ck);
        free(gk);
        free(kp);
        free(raw);
      }
    }
  }
  /* mixed key kinds and mixed S-box sets are refused */
  uint8_t key[32] = {1}, iv[16] = {0}, b[64] = {0};
  gostx_cipher k2[2];
  gostx_cipher_init(&k2[0], GOSTX_ALG_KUZNYECHIK, key);
  gostx_cipher_init(&k2[1], GOSTX_ALG_MAGMA, key);
  const gostx_cipher *kp2[2] = {&k2[0], &k2[1]};
  CHECK_RC(gostx_gpu_batch_ctr_crypt(g, kp2, 2, iv, 8, b, 32, 2, b), GOSTX_EINVAL,
           "batch: Kuznyechik and Magma keys mixed");
  gostx_gost89_key g2[2];
  gostx_gost89_set_key(&g2[0], key, 0);
  gostx_gost89_set_key(&g2[1], key, 1);
  const gostx_gost89_key *gp2[2] = {&g2[0], &g2[1]};
  CHECK_RC(gostx_gpu_batch_gost89_cnt(g, gp2, 2, iv, b, 32, 2, b), GOSTX_EINVAL,
           "batch: two S-box sets");
  gostx_cipher_clear(&k2[0]);
  gostx_cipher_clear(&k2[1]);
}

/* One CTR job split between the GPU and the pool, for several shares. */
static void test_split(gostx_gpu *g) {
  static const double SHARES[] = {0, 0.25, 0.5, 0.9, 1};
  gostx_pool *pool = gostx_pool_new(2);
  for (int id = 0; id < 2; id++) {
    const int cid = id ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK;
    const size_t n = id ? 8 : 16, len = (max_len < (3u << 20) ? max_len : (3u << 20)) + 5;
    uint8_t key[32], iv[8];
    gostx_cipher c;
    t_rand_cipher(&c, cid, key, iv);
    uint8_t *in = malloc(len), *want = malloc(len), *got = malloc(len);
    t_rand_bytes(in, len);
    gostx_ctr_crypt(&c, iv, n / 2, n, in, len, want);
    for (size_t si = 0; si < 5; si++)
      for (int p = 0; p < 2; p++) {
        memset(got, 0, len);
        CHECK_RC(gostx_gpu_ctr_crypt_split(g, p ? pool : NULL, SHARES[si], &c, iv, n / 2, in, len,
                                           got),
                 0, "split");
        CHECK(!memcmp(got, want, len), "split, cipher %d, GPU share %.2f, pool %d", cid,
              SHARES[si], p);
      }
    CHECK_RC(gostx_gpu_ctr_crypt_split(g, pool, 1.5, &c, iv, n / 2, in, len, got), GOSTX_EINVAL,
             "split: share > 1");
    free(in);
    free(want);
    free(got);
    gostx_cipher_clear(&c);
  }
  gostx_pool_free(pool);
}

/* gostx_gpu_upload must return with the bytes on the device: the kernels
 * run on streams that do not wait for the legacy stream, so a copy still in
 * flight (cuMemcpyHtoD from pageable memory returns once the bytes are
 * staged) lets a kernel read what the buffer held before. A second handle
 * keeps the copy engines busy from another thread, so a late copy shows;
 * each round's input differs from the last, so stale bytes do not match. */
struct hammer {
  atomic_int stop;
  size_t len;
};

static void *hammer_thread(void *arg) {
  struct hammer *h = arg;
  gostx_gpu *g2 = NULL;
  if (gostx_gpu_open(&g2, 0)) return NULL;
  uint8_t key[32] = {1}, iv[8] = {2};
  gostx_cipher c;
  gostx_cipher_init(&c, GOSTX_ALG_MAGMA, key);
  uint8_t *buf = malloc(h->len);
  memset(buf, 0x5a, h->len);
  while (!atomic_load(&h->stop)) gostx_gpu_ctr_crypt(g2, &c, iv, 4, buf, h->len, buf);
  free(buf);
  gostx_gpu_close(g2);
  return NULL;
}

static void test_upload_then_kernel(gostx_gpu *g, int mock) {
  const size_t len = mock ? (1u << 20) + 5 : (64u << 20) + 5;
  const int rounds = mock ? 2 : 24;
  uint8_t key[32], iv[8];
  gostx_cipher c;
  t_rand_cipher(&c, GOSTX_ALG_KUZNYECHIK, key, iv);
  uint8_t *in = malloc(len), *want = malloc(len), *got = malloc(len);
  gostx_gpu_ptr din = 0, dout = 0;
  CHECK_RC(gostx_gpu_alloc(g, &din, len), 0, "alloc");
  CHECK_RC(gostx_gpu_alloc(g, &dout, len), 0, "alloc");
  struct hammer h = {.len = 32u << 20};
  pthread_t th;
  int hammering = !mock && pthread_create(&th, NULL, hammer_thread, &h) == 0;
  int bad = 0;
  for (int r = 0; r < rounds && din && dout; r++) {
    memset(in, r, len);
    t_rand_bytes(in + (size_t)r * 4099 % len, 64);
    gostx_ctr_crypt(&c, iv, 8, 16, in, len, want);
    CHECK_RC(gostx_gpu_upload(g, din, in, len), 0, "upload");
    CHECK_RC(gostx_gpu_ctr_crypt_dev(g, &c, iv, 8, din, len, dout), 0, "ctr dev");
    CHECK_RC(gostx_gpu_download(g, got, dout, len), 0, "download");
    if (memcmp(got, want, len)) bad++;
  }
  CHECK(bad == 0, "a kernel right after gostx_gpu_upload read the uploaded bytes (%d of %d rounds did not)",
        bad, rounds);
  if (hammering) {
    atomic_store(&h.stop, 1);
    pthread_join(th, NULL);
  }
  gostx_gpu_free(g, din);
  gostx_gpu_free(g, dout);
  free(in);
  free(want);
  free(got);
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
    test_cipher(g, GOSTX_ALG_KUZNYECHIK);
    test_cipher(g, GOSTX_ALG_MAGMA);
    test_xts(g);
    test_cnt(g);
    test_batch(g);
  }
  test_register(g);
  test_split(g);
  test_upload_then_kernel(g, mock);
  gostx_gpu_close(g);
  if (mock) CHECK(mock_live() == 0, "close frees all device and pinned memory (%ld left)", mock_live());
  return t_done();
}
