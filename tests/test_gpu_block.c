/* The CUDA kernels' per-thread code (lib/gpu/gpu_block.h) and the backend's
 * host arithmetic (lib/gpu/gpu_plan.c), run here as host C over every
 * (warp, lane) or thread index a launch would have, and compared with the
 * CPU library on random keys and odd lengths. Needs no GPU: this is what
 * verifies the kernels' math on machines without one. Built with
 * GOSTX_CUDA=ON only. */
#include <stdlib.h>

#include "testutil.h"
#include "gpu/gpu_plan.h"

/* Emulate a launch: every warp and lane (Kuznyechik), every thread (Magma). */
/* Threads t = 0 .. gostx__gpu_kuz_threads(n) - 1, as the kernels see them. */
static void kuz_ecb_launch(const uint8_t *in, uint8_t *out, size_t nblocks, const uint8_t *tw,
                           const gostx_gpu_kuz_params *p, int dec) {
  uint64_t threads = gostx__gpu_kuz_threads(nblocks);
  for (uint64_t t = 0; t < threads; t++)
    gpu_kuz_ecb_thread(in, out, nblocks, tw, p, dec, t >> 5, (unsigned)(t & 31));
}

static void kuz_ctr_launch(const uint8_t *in, uint8_t *out, size_t len, gostx_gpu_u128 ctr,
                           const gostx_gpu_kuz_params *p) {
  uint64_t threads = gostx__gpu_kuz_threads((len + 15) / 16);
  for (uint64_t t = 0; t < threads; t++)
    gpu_kuz_ctr_thread(in, out, len, ctr, p, t >> 5, (unsigned)(t & 31));
}

static void test_transpose(void) {
  uint32_t a[32], b[32];
  for (int i = 0; i < 32; i++) a[i] = b[i] = (uint32_t)t_rand();
  gpu_transpose32(a);
  int ok = 1;
  for (unsigned k = 0; k < 32; k++)
    for (unsigned i = 0; i < 32; i++) ok &= ((a[k] >> i) & 1) == ((b[i] >> k) & 1);
  CHECK(ok, "32x32 transpose");
  gpu_transpose32(a);
  CHECK(!memcmp(a, b, sizeof a), "transpose is an involution");
}

static const size_t LENS[] = {0, 1, 15, 16, 17, 31, 32, 33, 100, 511, 512, 513,
                              4095, 4096, 16384, 16385, 16399, 40000 + 7, 100003};

static void test_kuz(void) {
  for (unsigned trial = 0; trial < 3; trial++) {
    uint8_t key[32], iv[8];
    gostx_cipher c;
    t_rand_cipher(&c, GOSTX_ALG_KUZNYECHIK, key, iv);
    gostx_gpu_kuz_params p;
    gostx__gpu_kuz_params(&p, &c.u.kuz);
    for (size_t li = 0; li < sizeof LENS / sizeof *LENS; li++) {
      size_t len = LENS[li], nb = len / 16, bl = nb * 16;
      uint8_t *in = malloc(len + 1), *want = malloc(len + 1), *got = malloc(len + 1);
      t_rand_bytes(in, len);
      /* ECB both ways */
      gostx_ecb_encrypt(&c, in, bl, want);
      memset(got, 0xee, len + 1);
      kuz_ecb_launch(in, got, nb, NULL, &p, 0);
      CHECK(!memcmp(got, want, bl), "kuz ecb encrypt, %zu blocks", nb);
      CHECK(bl == len || got[bl] == 0xee, "kuz ecb writes nothing past the end");
      kuz_ecb_launch(got, got, nb, NULL, &p, 1);
      CHECK(!memcmp(got, in, bl), "kuz ecb decrypt in place, %zu blocks", nb);
      /* CTR at block offset 0 and, chunked, at an odd split */
      gostx_ctr_crypt(&c, iv, 8, 16, in, len, want);
      gostx_gpu_u128 ctr;
      gostx__gpu_ctr_at(GOSTX_ALG_KUZNYECHIK, iv, 0, &ctr);
      memset(got, 0xee, len + 1);
      kuz_ctr_launch(in, got, len, ctr, &p);
      CHECK(!memcmp(got, want, len) && got[len] == 0xee, "kuz ctr, len %zu", len);
      size_t split = (nb / 3) * 16;
      memset(got, 0xee, len + 1);
      kuz_ctr_launch(in, got, split, ctr, &p);
      gostx__gpu_ctr_at(GOSTX_ALG_KUZNYECHIK, iv, split / 16, &ctr);
      kuz_ctr_launch(in + split, got + split, len - split, ctr, &p);
      CHECK(!memcmp(got, want, len), "kuz ctr in two chunks, len %zu split %zu", len, split);
      free(in);
      free(want);
      free(got);
    }
    gostx_cipher_clear(&c);
  }
  /* the counter carries across the 64-bit halves */
  {
    uint8_t key[32], iv[8], in[64], want[64], got[64];
    t_rand_bytes(key, 32);
    t_rand_bytes(in, 64);
    memset(iv, 0xff, 8);
    gostx_cipher c;
    gostx_cipher_init(&c, GOSTX_ALG_KUZNYECHIK, key);
    gostx_gpu_kuz_params p;
    gostx__gpu_kuz_params(&p, &c.u.kuz);
    /* blocks with counter ff..ff || ff..fe, ff..ff || ff..ff, 0, 1 */
    uint8_t ctrs[64];
    memset(ctrs, 0xff, 32);
    ctrs[15] = 0xfe;
    memset(ctrs + 32, 0, 32);
    ctrs[63] = 1;
    gostx_kuz_encrypt_blocks(&c.u.kuz, ctrs, 4, want);
    for (int i = 0; i < 64; i++) want[i] ^= in[i];
    gostx_gpu_u128 ctr = {~0ull, ~0ull - 1};
    kuz_ctr_launch(in, got, 64, ctr, &p);
    CHECK(!memcmp(got, want, 64), "kuz ctr wraps mod 2^128");
  }
}

static void test_alpha16(void) {
  int ok = 1;
  for (int k = 0; k < 2000; k++) {
    uint64_t lo = t_rand(), hi = t_rand(), lo2 = lo, hi2 = hi;
    if (k < 4) hi = hi2 = k & 1 ? ~0ull : 0xffff000000000000ull, lo = lo2 = k & 2 ? ~0ull : 1;
    gpu_xts_mul_alpha16(&lo, &hi);
    for (int j = 0; j < 16; j++) gpu_xts_mul_alpha(&lo2, &hi2);
    ok &= lo == lo2 && hi == hi2;
  }
  CHECK(ok, "alpha^16 in one step equals 16 doublings");
}

static void test_xts(void) {
  static const size_t SECTORS[] = {16, 48, 512, 4096, 65536 + 48};
  for (size_t si = 0; si < 5; si++) {
    size_t sl = SECTORS[si], bps = sl / 16, nsec = si >= 3 ? 3 : 9;
    uint8_t key[64];
    t_rand_bytes(key, 64);
    gostx_xts_key x;
    CHECK_RC(gostx_xts_set_key(&x, key), 0, "xts set key");
    size_t len = sl * nsec;
    uint8_t *in = malloc(len), *want = malloc(len), *got = malloc(len), *tw = malloc(len);
    uint8_t *t0 = malloc(16 * nsec);
    t_rand_bytes(in, len);
    uint64_t sector0 = t_rand();
    for (size_t s = 0; s < nsec; s++)
      gostx_xts_encrypt_sector(&x, sector0 + s, in + s * sl, sl, want + s * sl);
    /* what the host does: the sector numbers, encrypted under K2 (ECB
     * kernel), expanded into one tweak per block, then the whitened ECB */
    memset(t0, 0, 16 * nsec);
    for (size_t s = 0; s < nsec; s++)
      for (int b = 0; b < 8; b++) t0[16 * s + b] = (uint8_t)((sector0 + s) >> (8 * b));
    gostx_gpu_kuz_params p1, p2;
    gostx__gpu_kuz_params(&p1, &x.data);
    gostx__gpu_kuz_params(&p2, &x.tweak);
    kuz_ecb_launch(t0, t0, nsec, NULL, &p2, 0);
    uint64_t runs = nsec * ((bps + 15) / 16);
    for (uint64_t r = 0; r < runs + 3; r++) gpu_xts_tweak_thread(t0, tw, nsec, (uint32_t)bps, r);
    kuz_ecb_launch(in, got, len / 16, tw, &p1, 0);
    CHECK(!memcmp(got, want, len), "xts encrypt, sector %zu", sl);
    kuz_ecb_launch(got, got, len / 16, tw, &p1, 1);
    CHECK(!memcmp(got, in, len), "xts decrypt, sector %zu", sl);
    free(in); free(want); free(got); free(tw); free(t0);
    gostx_xts_clear(&x);
  }
}

/* Every (warp, lane) of a launch over nb blocks and one warp beyond it
 * (which must do nothing). */
#define FOR_THREADS(nb, body)                                                       \
  for (uint64_t t_ = 0; t_ < gostx__gpu_kuz_threads(nb) + 32; t_++) {               \
    const uint64_t warp = t_ >> 5;                                                  \
    const unsigned lane = (unsigned)(t_ & 31);                                      \
    body;                                                                           \
  }

/* The Magma / GOST 28147-89 kernels' threads, every S-box set, against the
 * CPU library: the bitsliced one-key threads (ECB both ways, CTR and CNT
 * split at a block offset), and the shift-based block function of the
 * batch kernels, block by block. */
static void test_magma(void) {
  for (int sbox = 0; sbox < GOSTX_SBOX_COUNT; sbox++) {
    uint8_t key[32], iv[8];
    gostx_cipher c;
    t_rand_cipher(&c, GOSTX_ALG_MAGMA, key, iv);
    gostx_gost89_key g89;
    gostx_gost89_set_key(&g89, key, sbox);
    gostx_gpu_magma_params pm, pg;
    gostx__gpu_magma_params(&pm, &c.u.magma);
    gostx__gpu_magma_params(&pg, &g89);
    CHECK(pg.set == (uint32_t)sbox && pm.set == GOSTX_SBOX_TC26_Z, "S-box set in the parameters");
    for (size_t li = 0; li < sizeof LENS / sizeof *LENS; li++) {
      size_t len = LENS[li], nb = len / 8, bl = nb * 8;
      uint8_t *in = malloc(len + 1), *want = malloc(len + 1), *got = malloc(len + 1);
      t_rand_bytes(in, len);
      for (int g = sbox == 0 ? 0 : 1; g < 2; g++) { /* Magma (set Z only), GOST 28147-89 */
        const gostx_gpu_magma_params *p = g ? &pg : &pm;
        const char *name = g ? "gost89" : "magma";
        if (g) gostx_gost89_ecb_encrypt(&g89, in, bl, want);
        else gostx_ecb_encrypt(&c, in, bl, want);
        memset(got, 0xee, len + 1);
        FOR_THREADS(nb, gpu_magma_bs_ecb_thread(in, got, nb, p, 0, warp, lane));
        CHECK(!memcmp(got, want, bl) && (bl == len || got[bl] == 0xee), "%s ecb sbox %d, %zu",
              name, sbox, nb);
        FOR_THREADS(nb, gpu_magma_bs_ecb_thread(got, got, nb, p, 1, warp, lane));
        CHECK(!memcmp(got, in, bl), "%s ecb decrypt sbox %d, %zu", name, sbox, nb);
        int ok = 1; /* the batch kernels' block function */
        for (size_t n = 0; n < nb; n++) {
          uint32_t w0 = gostx_load32_le(in + 8 * n), w1 = gostx_load32_le(in + 8 * n + 4);
          gpu_magma_block_rk(p, p->rk, 0, &w0, &w1);
          ok &= w0 == gostx_load32_le(want + 8 * n) && w1 == gostx_load32_le(want + 8 * n + 4);
        }
        CHECK(ok, "%s shift block function sbox %d, %zu blocks", name, sbox, nb);
      }
      if (sbox == 0) {
        gostx_ctr_crypt(&c, iv, 4, 8, in, len, want);
        gostx_gpu_u128 ctr;
        gostx__gpu_ctr_at(GOSTX_ALG_MAGMA, iv, 0, &ctr);
        const size_t split = (nb / 3) * 8;
        memset(got, 0xee, len + 1);
        FOR_THREADS((split + 7) / 8,
                    gpu_magma_bs_gamma_thread(in, got, split, 0, ctr.lo, 0, 0, &pm, warp, lane));
        gostx__gpu_ctr_at(GOSTX_ALG_MAGMA, iv, split / 8, &ctr);
        FOR_THREADS((len - split + 7) / 8,
                    gpu_magma_bs_gamma_thread(in + split, got + split, len - split, 0, ctr.lo,
                                              0, 0, &pm, warp, lane));
        CHECK(!memcmp(got, want, len) && got[len] == 0xee, "magma ctr, len %zu", len);
      }
      gostx_gost89_cnt(t_gost89_key(key, sbox), iv, 0, in, len, want);
      uint8_t s8[8];
      gostx_gost89_encrypt_blocks(&g89, iv, 1, s8);
      const uint32_t n3 = gostx_load32_le(s8), n4 = gostx_load32_le(s8 + 4);
      const size_t split = (nb / 2) * 8;
      memset(got, 0xee, len + 1);
      FOR_THREADS((split + 7) / 8,
                  gpu_magma_bs_gamma_thread(in, got, split, 1, 1, n3, n4, &pg, warp, lane));
      FOR_THREADS((len - split + 7) / 8,
                  gpu_magma_bs_gamma_thread(in + split, got + split, len - split, 1,
                                            1 + split / 8, n3, n4, &pg, warp, lane));
      CHECK(!memcmp(got, want, len) && got[len] == 0xee, "gost89 cnt sbox %d, len %zu", sbox, len);
      free(in);
      free(want);
      free(got);
    }
    gostx_cipher_clear(&c);
  }
}

/* The closed form of N4 against the step-by-step end-around-carry sum,
 * including start values 0 and 2^32 - 1 and indices past 2^32. */
static void test_cnt_n4(void) {
  const uint32_t starts[] = {0, 1, 0xffffffffu, 0xfefefefbu, 0xfefefefcu, 0x12345678u};
  int ok = 1;
  for (size_t s = 0; s < sizeof starts / sizeof *starts; s++) {
    uint32_t n4 = starts[s];
    for (uint64_t i = 1; i <= 100000; i++) {
      uint64_t v = (uint64_t)n4 + GOSTX_GPU_CNT_C1;
      n4 = (uint32_t)v + (uint32_t)(v >> 32);
      ok &= gpu_cnt_n4(starts[s], i) == n4;
    }
  }
  CHECK(ok, "N4 closed form, 6 x 100000 steps");
  /* i and i + (2^32 - 1) give the same N4 */
  ok = 1;
  for (int k = 0; k < 1000; k++) {
    uint64_t i = t_rand() >> 20;
    uint32_t n = (uint32_t)t_rand();
    ok &= gpu_cnt_n4(n, i) == gpu_cnt_n4(n, i + 0xffffffffull);
  }
  CHECK(ok, "N4 closed form is periodic mod 2^32 - 1");
}

static void test_plan(void) {
  CHECK(gostx__gpu_next_chunk(100, 0, 32, 16) == 32, "chunk");
  CHECK(gostx__gpu_next_chunk(100, 96, 32, 16) == 4, "last chunk");
  CHECK(gostx__gpu_next_chunk(100, 0, 40, 16) == 32, "chunk rounds down to the unit");
  CHECK(gostx__gpu_next_chunk(100, 0, 8, 48) == 48, "chunk of at least one unit");
  CHECK(gostx__gpu_next_chunk(0, 0, 8, 16) == 0, "empty job");
  size_t total = 1000003, done = 0, n = 0;
  while (done < total) {
    size_t c = gostx__gpu_next_chunk(total, done, 4096 * 3 + 5, 4096);
    CHECK(c > 0 && (c % 4096 == 0 || done + c == total), "chunk %zu", n);
    done += c;
    n++;
  }
  CHECK(done == total && n == (total + 12287) / 12288, "chunks cover the job");
  uint8_t iv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  gostx_gpu_u128 c;
  gostx__gpu_ctr_at(GOSTX_ALG_KUZNYECHIK, iv, 5, &c);
  CHECK(c.hi == 0x0102030405060708ull && c.lo == 5, "kuz counter");
  gostx__gpu_ctr_at(GOSTX_ALG_MAGMA, iv, 0x100000005ull, &c);
  CHECK(c.lo == 0x0102030500000005ull, "magma counter wraps into the IV half mod 2^64");
  CHECK(gostx__gpu_kuz_threads(0) == 0 && gostx__gpu_kuz_threads(1) == 32 &&
            gostx__gpu_kuz_threads(1024) == 32 && gostx__gpu_kuz_threads(1025) == 64,
        "one warp per 1024 Kuznyechik blocks");
}

int main(void) {
  t_rand_init();
  test_transpose();
  test_plan();
  test_cnt_n4();
  test_kuz();
  test_alpha16();
  test_xts();
  test_magma();
  return t_done();
}
