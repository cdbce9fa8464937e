/* Every Kuznyechik implementation this CPU can run (the dispatcher's rows,
 * tests/support/rows.h; the tables called directly) against the portable core: random
 * keys, every block count 0..300 (around the narrow pair loop, the wide
 * kernels' 64/72-block thresholds, the 128- and 256-block batches, the
 * AVX-512 file's 4-block registers and 16-block loop) and a few larger
 * counts around multiples of 16 and 256, misaligned
 * buffers, in place, encryption and decryption; plus the standard's vector
 * through each. */
#include <stdlib.h>

#include "kuznyechik/impl.h"
#include "rows.h"
#include "testutil.h"

#define MAXB 300

static void check_vector(const struct gostx_kuz_impl *im) {
  json *f = tv_load("kuznyechik.json");
  json *cases = tv_cases(f);
  int seen = 0;
  for (size_t i = 0; i < json_len(cases); i++) {
    const json *c = json_at(cases, i);
    if (strcmp(tv_str(c, "kind"), "encrypt")) continue;
    uint8_t *key = tv_hex(c, "key", NULL), *pt = tv_hex(c, "plaintext", NULL);
    uint8_t *ct = tv_hex(c, "ciphertext", NULL);
    gostx_kuz_key k;
    CHECK_RC(gostx_kuz_set_key(&k, key), GOSTX_OK, "set_key");
    /* the vector alone, and as every block of a long run (wide kernel) */
    uint8_t buf[16 * MAXB];
    for (size_t n = 1; n <= MAXB; n += (n < 4 ? 1 : 59)) {
      for (size_t b = 0; b < n; b++) memcpy(buf + 16 * b, pt, 16);
      im->encrypt_blocks(&k, buf, buf, n);
      for (size_t b = 0; b < n; b++) CHECK_BYTES(buf + 16 * b, ct, 16, im->name);
      im->decrypt_blocks(&k, buf, buf, n);
      for (size_t b = 0; b < n; b++) CHECK_BYTES(buf + 16 * b, pt, 16, im->name);
    }
    free(key);
    free(pt);
    free(ct);
    seen++;
  }
  CHECK(seen > 0, "encrypt vector present");
  json_free(f);
}

/* ---- the counter kernel (impl->ctr) against portable blocks ---- */

/* +1 on bytes lo..hi-1 of c as a big-endian number (the oracle: byte-wise,
 * written independently of the library's word arithmetic). */
static void ref_inc(uint8_t *c, size_t lo, size_t hi) {
  for (size_t i = hi; i-- > lo;)
    if (++c[i] != 0) break;
}
static void ref_step(uint8_t c[16], unsigned inc) {
  if (inc == GOSTX__CTR_FULL) ref_inc(c, 0, 16);
  else if (inc == GOSTX__CTR_RIGHT) ref_inc(c, 8, 16);
  else ref_inc(c, 0, 8);
}

/* Counts around the kernel's 128-block threshold and 256-block batches. */
static const size_t ctr_counts[] = {0,   1,   2,   3,   17,  71,  72,  127, 128, 129, 130, 200,
                                    255, 256, 257, 300, 383, 384, 385, 511, 512, 513, 700, 1025};

static void check_ctr(const struct gostx_kuz_impl *im) {
  enum { MAXC = 1025 };
  static uint8_t ctrs[16 * MAXC], want[16 * MAXC], src[16 * MAXC + 16], got[16 * MAXC + 16];
  for (unsigned inc = 0; inc < 3; inc++)
    for (size_t ci = 0; ci < sizeof ctr_counts / sizeof ctr_counts[0]; ci++)
      for (unsigned shape = 0; shape < 6; shape++) {
        const size_t n = ctr_counts[ci];
        const size_t p = inc == GOSTX__CTR_LEFT ? 7 : 15, lo = inc == GOSTX__CTR_LEFT ? 0 : 8;
        uint8_t key[32], c0[16], c[16], r[16];
        gostx_kuz_key k;
        t_rand_bytes(key, sizeof key);
        gostx_kuz_set_key(&k, key);
        t_rand_bytes(c0, 16);
        /* shapes: random; lowest byte 0 / 255; the counting part about to
         * wrap (all ones above a random lowest byte), for FULL also the
         * right half about to carry into the left; a counter of all ones */
        if (shape == 1) c0[p] = 0;
        if (shape == 2) c0[p] = 255;
        if (shape == 3) memset(c0 + lo, 0xff, 7);
        if (shape == 4) memset(c0 + 8, 0xff, 7);
        if (shape == 5) memset(c0, 0xff, 16);
        memcpy(r, c0, 16);
        for (size_t i = 0; i < n; i++) {
          memcpy(ctrs + 16 * i, r, 16);
          ref_step(r, inc);
        }
        gostx__kuz_portable_encrypt(&k, ctrs, want, n);
        /* keystream only */
        memcpy(c, c0, 16);
        memset(got, 0xa5, sizeof got);
        im->ctr(&k, c, inc, NULL, got, n);
        CHECK(!memcmp(got, want, 16 * n), "%s ctr keystream inc=%u n=%zu shape=%u", im->name, inc, n,
              shape);
        CHECK(got[16 * n] == 0xa5, "%s ctr writes only its blocks", im->name);
        CHECK(!memcmp(c, r, 16), "%s ctr leaves the next counter inc=%u n=%zu shape=%u", im->name,
              inc, n, shape);
        /* XOR into data, misaligned, then in place */
        const size_t oi = 1 + t_rand_below(15), oo = t_rand_below(16);
        t_rand_bytes(src, sizeof src);
        for (size_t i = 0; i < 16 * n; i++) want[i] ^= src[oi + i];
        memcpy(c, c0, 16);
        im->ctr(&k, c, inc, src + oi, got + oo, n);
        CHECK(!memcmp(got + oo, want, 16 * n), "%s ctr xor inc=%u n=%zu", im->name, inc, n);
        memcpy(c, c0, 16);
        im->ctr(&k, c, inc, src + oi, src + oi, n);
        CHECK(!memcmp(src + oi, want, 16 * n), "%s ctr in place inc=%u n=%zu", im->name, inc, n);
      }
}

/* ---- counter runs (impl->ctr_runs) against portable blocks: runs of
 * random lengths (0, short, around the 64-block groups and the padding
 * threshold), each its own step and counter, some about to wrap their
 * lowest byte, so that groups hold runs' starts and wraps in any lane ---- */
static void check_ctr_runs(const struct gostx_kuz_impl *im) {
  enum { MAXR = 12, MAXL = 150 };
  static const size_t lens[] = {0, 1, 2, 5, 23, 39, 40, 41, 63, 64, 65, 88, 90, 127, 128, 129};
  static uint8_t ctrs[16 * MAXR * MAXL], want[16 * MAXR * MAXL], got[16 * MAXR * MAXL + 16];
  for (unsigned trial = 0; trial < 400; trial++) {
    uint8_t key[32], c0[MAXR][16], keep[MAXR][16];
    struct gostx__ctr_run runs[MAXR];
    gostx_kuz_key k;
    t_rand_bytes(key, sizeof key);
    gostx_kuz_set_key(&k, key);
    const size_t nr = 1 + t_rand_below(MAXR);
    size_t total = 0;
    for (size_t r = 0; r < nr; r++) {
      const unsigned inc = (unsigned)t_rand_below(3);
      const size_t len = t_rand_below(2) ? lens[t_rand_below(sizeof lens / sizeof lens[0])]
                                         : t_rand_below(MAXL + 1);
      uint8_t c[16];
      t_rand_bytes(c0[r], 16);
      if (t_rand_below(2)) c0[r][inc == GOSTX__CTR_LEFT ? 7 : 15] = (uint8_t)(250 + t_rand_below(6));
      if (t_rand_below(4) == 0) memset(c0[r] + (inc == GOSTX__CTR_LEFT ? 0 : 8), 0xff, 7);
      memcpy(keep[r], c0[r], 16);
      memcpy(c, c0[r], 16);
      for (size_t i = 0; i < len; i++, total++) {
        memcpy(ctrs + 16 * total, c, 16);
        ref_step(c, inc);
      }
      runs[r] = (struct gostx__ctr_run){c0[r], inc, len};
    }
    gostx__kuz_portable_encrypt(&k, ctrs, want, total);
    memset(got, 0xa5, sizeof got);
    im->ctr_runs(&k, runs, nr, got);
    CHECK(!memcmp(got, want, 16 * total), "%s ctr_runs trial %u (%zu runs, %zu blocks)", im->name,
          trial, nr, total);
    CHECK(got[16 * total] == 0xa5, "%s ctr_runs writes only its blocks", im->name);
    CHECK(!memcmp(c0, keep, 16 * nr), "%s ctr_runs leaves the runs' counters", im->name);
  }
}

/* ---- the key schedule (impl->expand) against the portable one ---- */
static void check_expand(const struct gostx_kuz_impl *im) {
  for (unsigned trial = 0; trial < 200; trial++) {
    uint8_t key[32];
    gostx_kuz_key got, want;
    t_rand_bytes(key, sizeof key);
    if (trial == 0) memset(key, 0, sizeof key);
    if (trial == 1) memset(key, 0xff, sizeof key);
    memset(&got, 0xa5, sizeof got);
    im->expand(&got, key);
    gostx__kuz_expand(want.ek, key);
    for (unsigned r = 0; r < 10; r++) gostx__kuz_L_inv(want.dk[r], want.ek[r]);
    CHECK(!memcmp(got.ek, want.ek, sizeof want.ek), "%s expand: round keys (trial %u)", im->name, trial);
    CHECK(!memcmp(got.dk, want.dk, sizeof want.dk), "%s expand: L^-1 of the round keys (trial %u)",
          im->name, trial);
  }
}

/* Block counts beyond 0..MAXB: around the AVX-512 file's 16-block loop and
 * 4-block registers at larger sizes, and the avx512bw file's 512-block
 * batches with tails for its padded batch (>= 257) and for AVX2 (<= 256). */
static const size_t extra_counts[] = {511, 512, 513, 768, 769, 1023, 1024, 1025,
                                      1039, 1040, 1041, 1280, 4095, 4096, 4097};
#define MAXN 4097

int main(void) {
  struct t_row rows[T_MAX_ROWS];
  const size_t nrows = t_rows(GOSTX_ALG_KUZNYECHIK, &gostx_kuz_portable, rows);
  t_rand_init();
  static uint8_t src[16 * MAXN + 32], want[16 * MAXN], got[16 * MAXN + 32], back[16 * MAXN + 32];
  const size_t nextra = sizeof extra_counts / sizeof extra_counts[0];
  for (size_t c = 0; c < nrows; c++) {
    const struct gostx_kuz_impl *im = rows[c].impl;
    check_vector(im);
#ifdef GOSTX_ARCH_X86_64
    /* avx512bw runs AVX2's multi-key calls in a schedule of its own mk_size */
    if (im == &gostx_kuz_avx512bw)
      CHECK(gostx_kuz_avx2.mk_size <= im->mk_size && gostx_kuz_avx2.mk_max >= im->mk_max,
            "avx512bw: AVX2's multi-key schedule fits its mk_size");
#endif
    if (im->ctr) check_ctr(im);
    if (im->ctr_runs) check_ctr_runs(im);
    if (im->expand) check_expand(im);
    for (size_t idx = 0; idx <= MAXB + nextra; idx++) {
      const size_t n = idx <= MAXB ? idx : extra_counts[idx - MAXB - 1];
      uint8_t key[32];
      gostx_kuz_key k;
      t_rand_bytes(key, sizeof key);
      gostx_kuz_set_key(&k, key);
      size_t off_in = t_rand_below(16), off_out = t_rand_below(16);
      t_rand_bytes(src, sizeof src);
      uint8_t *in = src + off_in, *out = got + off_out;

      gostx__kuz_portable_encrypt(&k, in, want, n);
      memset(got, 0xa5, sizeof got);
      im->encrypt_blocks(&k, in, out, n);
      CHECK(!memcmp(out, want, 16 * n), "%s encrypt n=%zu offsets %zu/%zu", im->name, n, off_in, off_out);
      CHECK(got[off_out + 16 * n] == 0xa5 && (off_out == 0 || got[off_out - 1] == 0xa5),
            "%s encrypt n=%zu writes only its blocks", im->name, n);

      uint8_t *dec = back + off_in;
      im->decrypt_blocks(&k, out, dec, n);
      CHECK(!memcmp(dec, in, 16 * n), "%s decrypt n=%zu", im->name, n);

      /* in place, both directions, at an odd offset */
      memcpy(dec, in, 16 * n);
      im->encrypt_blocks(&k, dec, dec, n);
      CHECK(!memcmp(dec, want, 16 * n), "%s encrypt in place n=%zu", im->name, n);
      im->decrypt_blocks(&k, dec, dec, n);
      CHECK(!memcmp(dec, in, 16 * n), "%s decrypt in place n=%zu", im->name, n);

      /* decryption of random data against portable (not only round trips) */
      gostx__kuz_portable_decrypt(&k, in, want, n);
      im->decrypt_blocks(&k, in, out, n);
      CHECK(!memcmp(out, want, 16 * n), "%s decrypt vs portable n=%zu", im->name, n);
    }
    t_row_checked(GOSTX_ALG_KUZNYECHIK, im);
  }
  t_rows_all_checked(GOSTX_ALG_KUZNYECHIK, &gostx_kuz_portable);
  return t_done();
}
