/* ACPKM re-keying (RFC 8645 = R 1323565.1.017-2018): every case of
 * tests/vectors/acpkm.json (key sequences, CTR-ACPKM for both ciphers,
 * OMAC-ACPKM with its key material), and random tests against a textbook
 * version written here (one block per cipher call, the key re-derived by
 * hand at each section), streaming across section boundaries and at every
 * split point of the vectors. */
#include <stdlib.h>

#include "modes/modes_internal.h"
#include "testutil.h"

/* ---- Textbook reference ---- */

/* ACPKM(K): encrypt D = 80..9f block by block under K. */
static void ref_acpkm(int cid, const uint8_t key[32], uint8_t next[32]) {
  uint8_t d[32];
  for (int i = 0; i < 32; i++) d[i] = (uint8_t)(0x80 + i);
  gostx_cipher c;
  gostx_cipher_init(&c, cid, key);
  for (size_t i = 0; i < 32; i += c.block_len) gostx_cipher_encrypt_blocks(&c, d + i, 1, next + i);
  gostx_cipher_clear(&c);
}

/* CTR-ACPKM: block i (from 0) uses K^{1 + floor(i*n/N)}; the counter runs on. */
static void ref_ctr_acpkm(int cid, const uint8_t key[32], size_t N, const uint8_t *iv,
                          const uint8_t *in, uint8_t *out, size_t len) {
  gostx_cipher c;
  uint8_t k[32], ctr[16] = {0}, y[16];
  memcpy(k, key, 32);
  gostx_cipher_init(&c, cid, k);
  const size_t n = c.block_len;
  memcpy(ctr, iv, n / 2);
  for (size_t i = 0; i * n < len; i++) {
    if (i > 0 && (i * n) % N == 0) {
      ref_acpkm(cid, k, k);
      gostx_cipher_init(&c, cid, k);
    }
    gostx_cipher_encrypt_blocks(&c, ctr, 1, y);
    for (size_t j = 0; j < n && i * n + j < len; j++) out[i * n + j] = in[i * n + j] ^ y[j];
    for (size_t j = n; j-- > 0;)
      if (++ctr[j] != 0) break;
  }
  gostx_cipher_clear(&c);
}

static void ref_dbl(uint8_t *k, size_t n) {
  int msb = k[0] >> 7;
  for (size_t j = 0; j < n; j++) k[j] = (uint8_t)((k[j] << 1) | (j + 1 < n ? k[j + 1] >> 7 : 0));
  if (msb) k[n - 1] ^= n == 16 ? 0x87 : 0x1b;
}

/* OMAC-ACPKM-Master (RFC 8645 section 6.3.6): l = ceil(|M|/N) sections (at
 * least one), key material K^1|K1^1|...|K^l|K1^l = CTR-ACPKM(T*, K, IV=1..1)
 * over zeros; block i uses section floor(i*n/N); the last block takes K1^l,
 * or K2^l = dbl(K1^l) when partial. */
static void ref_omac_acpkm(int cid, const uint8_t key[32], size_t N, size_t T, const uint8_t *in,
                           size_t len, uint8_t *mac) {
  const size_t n = cid == GOSTX_ALG_KUZNYECHIK ? 16 : 8, d = 32 + n;
  size_t l = len ? (len + N - 1) / N : 1;
  uint8_t *km = calloc(l, d), iv[8], C[16] = {0}, last[16] = {0}, K[16];
  memset(iv, 0xff, sizeof iv);
  ref_ctr_acpkm(cid, key, T, iv, km, km, l * d);
  gostx_cipher c;
  size_t q = len ? (len + n - 1) / n : 1, i;
  for (i = 0; i + 1 < q; i++) {
    gostx_cipher_init(&c, cid, km + (i * n / N) * d);
    for (size_t j = 0; j < n; j++) C[j] ^= in[i * n + j];
    gostx_cipher_encrypt_blocks(&c, C, 1, C);
  }
  const uint8_t *sec = km + (i * n / N) * d;
  gostx_cipher_init(&c, cid, sec);
  memcpy(K, sec + 32, n);
  size_t r = len - i * n;
  if (r) memcpy(last, in + i * n, r);
  if (r < n) {
    last[r] = 0x80;
    ref_dbl(K, n);
  }
  for (size_t j = 0; j < n; j++) C[j] ^= last[j] ^ K[j];
  gostx_cipher_encrypt_blocks(&c, C, 1, mac);
  gostx_cipher_clear(&c);
  free(km);
}

/* ---- Vectors ---- */

static size_t stream_ctr(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t len,
                         size_t split) {
  size_t w1 = 0, w2 = 0, w3 = 0;
  gostx_mode_update(ctx, in, split, out, &w1);
  gostx_mode_update(ctx, in + split, len - split, out + w1, &w2);
  CHECK_RC(gostx_mode_final(ctx, out + w1 + w2, &w3), 0, "mode_final");
  return w1 + w2 + w3;
}

static void test_vectors(void) {
  json *f = tv_load("acpkm.json");
  json *cases = tv_cases(f);
  int seen[3] = {0};
  for (size_t ci = 0; ci < json_len(cases); ci++) {
    json *tc = json_at(cases, ci);
    const char *name = tv_str(tc, "name"), *kind = tv_str(tc, "kind");
    int cid = gostx_alg_by_name(tv_str(tc, "cipher"));
    size_t klen;
    uint8_t *key = tv_hex(tc, "key", &klen);
    gostx_cipher c;
    CHECK_RC(gostx_cipher_init(&c, cid, key), 0, name);
    const size_t n = c.block_len;

    if (!strcmp(kind, "acpkm_key_sequence")) {
      seen[0]++;
      json *keys = json_get(tc, "keys");
      uint8_t k[32], r[32];
      memcpy(r, key, 32);
      for (size_t i = 0; i < json_len(keys); i++) {
        uint8_t want[32];
        CHECK(hex_decode(json_str(json_at(keys, i)), want, 32) == 32, "key hex");
        CHECK_RC(gostx_acpkm_next_key(&c, k), 0, "next key");
        CHECK_BYTES(k, want, 32, name);
        ref_acpkm(cid, r, r);
        CHECK_BYTES(r, want, 32, "reference ACPKM vs vector");
        gostx_cipher_init(&c, cid, k);
      }
    } else if (!strcmp(kind, "ctr_acpkm")) {
      seen[1]++;
      size_t N = (size_t)tv_int(tc, "section_size_bits") / 8, ivlen, plen, clen;
      uint8_t *iv = tv_hex(tc, "iv", &ivlen), *pt = tv_hex(tc, "plaintext", &plen);
      uint8_t *ct = tv_hex(tc, "ciphertext", &clen);
      uint8_t *out = malloc(plen + 2 * n);
      CHECK(plen == clen && ivlen == n / 2, "%s: sizes", name);
      CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, ivlen, N, pt, plen, out), 0, name);
      CHECK_BYTES(out, ct, plen, name);
      CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, ivlen, N, out, plen, out), 0, "in place");
      CHECK_BYTES(out, pt, plen, "decrypt in place");
      ref_ctr_acpkm(cid, key, N, iv, pt, out, plen);
      CHECK_BYTES(out, ct, plen, "reference CTR-ACPKM vs vector");
      /* Plain CTR agrees on the first section. */
      CHECK_RC(gostx_ctr_crypt(&c, iv, ivlen, n, pt, N, out), 0, "ctr");
      CHECK_BYTES(out, ct, N, "first section = CTR");
      /* Streaming: every split point, both ways, and byte by byte. */
      for (size_t sp = 0; sp <= plen; sp++) {
        gostx_mode_ctx ctx;
        gostx_mode_init(&ctx, &c, GOSTX_MODE_CTR_ACPKM, sp & 1, iv, ivlen, 0, 0, N);
        size_t w = stream_ctr(&ctx, pt, out, plen, sp);
        int ok = w == plen && !memcmp(out, ct, plen);
        CHECK(ok, "%s: split %zu", name, sp);
        if (!ok) break;
      }
      gostx_mode_ctx ctx;
      size_t tot = 0, w;
      gostx_mode_init(&ctx, &c, GOSTX_MODE_CTR_ACPKM, 1, iv, ivlen, n, 0, N);
      for (size_t i = 0; i < plen; i++) {
        gostx_mode_update(&ctx, ct + i, 1, out + tot, &w);
        tot += w;
      }
      CHECK_RC(gostx_mode_final(&ctx, out + tot, &w), 0, "final");
      CHECK(tot + w == plen, "byte by byte length");
      CHECK_BYTES(out, pt, plen, "byte by byte");
      free(iv); free(pt); free(ct); free(out);
    } else if (!strcmp(kind, "omac_acpkm")) {
      seen[2]++;
      size_t N = (size_t)tv_int(tc, "section_size_bits") / 8;
      size_t T = (size_t)tv_int(tc, "master_section_size_bits") / 8, plen, kml, ml;
      uint8_t *pt = tv_hex(tc, "plaintext", &plen), *km = tv_hex(tc, "key_material", &kml);
      uint8_t *mac = tv_hex(tc, "mac", &ml), got[16], iv[8];
      CHECK(ml == n && kml == ((plen + N - 1) / N) * (32 + n), "%s: sizes", name);
      /* The key material is ACPKM-Master = CTR-ACPKM(T*, K, 1^{n/2}) over zeros. */
      uint8_t *z = calloc(1, kml);
      memset(iv, 0xff, sizeof iv);
      CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, n / 2, T, z, kml, z), 0, "ACPKM-Master");
      CHECK_BYTES(z, km, kml, "key_material");
      free(z);
      CHECK_RC(gostx_omac_acpkm(&c, N, T, pt, plen, got, n), 0, name);
      CHECK_BYTES(got, mac, n, name);
      CHECK_RC(gostx_omac_acpkm(&c, N, T, pt, plen, got, 3), 0, name);
      CHECK_BYTES(got, mac, 3, "truncated");
      ref_omac_acpkm(cid, key, N, T, pt, plen, got);
      CHECK_BYTES(got, mac, n, "reference OMAC-ACPKM vs vector");
      for (size_t sp = 0; sp <= plen; sp++) {
        gostx_omac_ctx ctx;
        memset(got, 0, sizeof got);
        CHECK_RC(gostx_omac_acpkm_init(&ctx, &c, N, T), 0, "init");
        gostx_omac_update(&ctx, pt, sp);
        gostx_omac_update(&ctx, pt + sp, plen - sp);
        CHECK_RC(gostx_omac_final(&ctx, got, n), 0, "final");
        if (!CHECK_BYTES(got, mac, n, "omac-acpkm split")) fprintf(stderr, "  split %zu\n", sp);
      }
      gostx_omac_ctx ctx;
      gostx_omac_acpkm_init(&ctx, &c, N, T);
      for (size_t i = 0; i < plen; i++) gostx_omac_update(&ctx, pt + i, 1);
      gostx_omac_final(&ctx, got, n);
      CHECK_BYTES(got, mac, n, "omac-acpkm byte by byte");
      free(pt); free(km); free(mac);
    } else {
      CHECK(0, "%s: unknown kind %s", name, kind);
    }
    free(key);
    gostx_cipher_clear(&c);
  }
  CHECK(seen[0] == 2 && seen[1] == 2 && seen[2] == 4, "case kinds seen %d %d %d", seen[0],
        seen[1], seen[2]);
  json_free(f);
}

/* ---- Random tests ---- */

static void test_ctr_random(int cid) {
  uint8_t key[32], iv[8];
  const size_t cap = 4096;
  uint8_t *pt = malloc(cap), *a = malloc(cap), *b = malloc(cap + 16);
  for (int it = 0; it < 24; it++) {
    t_rand_bytes(key, sizeof key);
    t_rand_bytes(iv, sizeof iv);
    gostx_cipher c;
    gostx_cipher_init(&c, cid, key);
    const size_t n = c.block_len;
    /* N from one block up to past the batch size of the mode code. */
    size_t N = n * (it < 4 ? (size_t)it + 1 : 1 + t_rand_below(it & 1 ? 8 : 300));
    size_t len = it < 3 ? (size_t)it * 7 : t_rand_below(cap + 1);
    t_rand_bytes(pt, len);
    CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, n / 2, N, pt, len, a), 0, "ctr-acpkm");
    ref_ctr_acpkm(cid, key, N, iv, pt, b, len);
    if (!CHECK_BYTES(a, b, len, "ctr-acpkm vs reference")) fprintf(stderr, "  N %zu len %zu\n", N, len);
    /* Streaming in random pieces, across section boundaries; in place. */
    gostx_mode_ctx ctx;
    size_t tot = 0, w, off = 1 + t_rand_below(7);
    memcpy(b + off, a, len);
    gostx_mode_init(&ctx, &c, GOSTX_MODE_CTR_ACPKM, 1, iv, n / 2, 0, 0, N);
    for (size_t p = 0; p < len;) {
      size_t k = t_rand_piece(len - p, n);
      gostx_mode_update(&ctx, b + off + p, k, b + off + p, &w);
      CHECK(w == k, "stream writes what it reads");
      p += k;
      tot += w;
    }
    CHECK_RC(gostx_mode_final(&ctx, b, &w), 0, "mode_final");
    CHECK(tot == len && w == 0, "stream length");
    if (!CHECK_BYTES(b + off, pt, len, "ctr-acpkm stream")) fprintf(stderr, "  N %zu len %zu\n", N, len);
    gostx_cipher_clear(&c);
  }
  free(pt); free(a); free(b);
}

/* Sections of 4 KiB and more, several in one call: the ciphers' section
 * kernels (the AVX2 Kuznyechik one takes whole 256-block sections and makes
 * the keys between them itself). One-shot, in place at an odd offset, and
 * streamed with a first piece that ends inside a section. */
static void test_ctr_sections(int cid) {
  static const size_t secs[] = {4096, 8192};
  static const size_t lens[] = {4096, 8192, 4 * 4096 + 5, 6 * 4096 - 16, 3 * 8192 + 100};
  const size_t cap = 6 * 4096 + 8192;
  uint8_t key[32], iv[8];
  uint8_t *pt = malloc(cap), *a = malloc(cap), *b = malloc(cap + 16);
  for (size_t si = 0; si < sizeof secs / sizeof secs[0]; si++)
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
      const size_t N = secs[si], len = lens[li];
      t_rand_bytes(key, sizeof key);
      t_rand_bytes(iv, sizeof iv);
      t_rand_bytes(pt, len);
      gostx_cipher c;
      gostx_cipher_init(&c, cid, key);
      const size_t n = c.block_len;
      ref_ctr_acpkm(cid, key, N, iv, pt, b, len);
      CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, n / 2, N, pt, len, a), 0, "ctr-acpkm sections");
      if (!CHECK_BYTES(a, b, len, "ctr-acpkm sections vs reference"))
        fprintf(stderr, "  N %zu len %zu\n", N, len);
      memcpy(b + 3, pt, len);
      CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, n / 2, N, b + 3, len, b + 3), 0, "in place");
      CHECK_BYTES(b + 3, a, len, "ctr-acpkm sections in place at offset 3");
      gostx_mode_ctx ctx;
      size_t w, first = 100 + t_rand_below(N - 100);
      if (first > len) first = len;
      gostx_mode_init(&ctx, &c, GOSTX_MODE_CTR_ACPKM, 1, iv, n / 2, 0, 0, N);
      gostx_mode_update(&ctx, pt, first, b, &w);
      gostx_mode_update(&ctx, pt + first, len - first, b + first, &w);
      CHECK_RC(gostx_mode_final(&ctx, b + len, &w), 0, "mode_final");
      if (!CHECK_BYTES(b, a, len, "ctr-acpkm sections streamed"))
        fprintf(stderr, "  N %zu len %zu first %zu\n", N, len, first);
      gostx_cipher_clear(&c);
    }
  free(pt); free(a); free(b);
}

static void test_omac_random(int cid) {
  uint8_t key[32], msg[1200], a[16], b[16];
  for (int it = 0; it < 30; it++) {
    t_rand_bytes(key, sizeof key);
    gostx_cipher c;
    gostx_cipher_init(&c, cid, key);
    const size_t n = c.block_len;
    size_t N = n * (1 + t_rand_below(6)), T = n * (1 + t_rand_below(12));
    size_t len = it < 3 ? (size_t)it * n : t_rand_below(sizeof msg + 1);
    t_rand_bytes(msg, len);
    CHECK_RC(gostx_omac_acpkm(&c, N, T, msg, len, a, n), 0, "omac-acpkm");
    ref_omac_acpkm(cid, key, N, T, msg, len, b);
    if (!CHECK_BYTES(a, b, n, "omac-acpkm vs reference"))
      fprintf(stderr, "  N %zu T %zu len %zu\n", N, T, len);
    gostx_omac_ctx ctx;
    gostx_omac_acpkm_init(&ctx, &c, N, T);
    t_omac_pieces(&ctx, msg, len, n, a, n);
    CHECK_BYTES(a, b, n, "omac-acpkm stream");
    gostx_cipher_clear(&c);
  }
}

static void test_errors(void) {
  uint8_t key[32] = {7}, iv[16] = {0}, buf[64] = {0}, out[64];
  const int cids[2] = {GOSTX_ALG_KUZNYECHIK, GOSTX_ALG_MAGMA};
  for (int i = 0; i < 2; i++) {
    gostx_cipher c;
    gostx_cipher_init(&c, cids[i], key);
    size_t n = c.block_len;
    CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, n / 2, 0, buf, n, out), GOSTX_EINVAL, "N = 0");
    CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, n / 2, n + 1, buf, n, out), GOSTX_EINVAL, "N not multiple");
    CHECK_RC(gostx_ctr_acpkm_crypt(&c, iv, n, n, buf, n, out), GOSTX_EINVAL, "iv_len n");
    CHECK_RC(gostx_ctr_acpkm_crypt(NULL, iv, n / 2, n, buf, n, out), GOSTX_EINVAL, "NULL cipher");
    gostx_mode_ctx ctx;
    CHECK_RC(gostx_mode_init(&ctx, &c, GOSTX_MODE_CTR_ACPKM, 0, iv, n / 2, 1, 0, n), GOSTX_EINVAL,
             "CTR-ACPKM s != n");
    CHECK_RC(gostx_mode_init(&ctx, &c, GOSTX_MODE_CTR_ACPKM, 0, iv, n / 2, 0, 0, 0), GOSTX_EINVAL,
             "CTR-ACPKM N = 0");
    CHECK_RC(gostx_acpkm_next_key(&c, NULL), GOSTX_EINVAL, "next key NULL");
    CHECK_RC(gostx_omac_acpkm(&c, 0, 4 * n, buf, 5, out, n), GOSTX_EINVAL, "omac N = 0");
    CHECK_RC(gostx_omac_acpkm(&c, n, 4 * n + 1, buf, 5, out, n), GOSTX_EINVAL, "omac T* bad");
    CHECK_RC(gostx_omac_acpkm(&c, 2 * n - 1, 4 * n, buf, 5, out, n), GOSTX_EINVAL, "omac N bad");
    CHECK_RC(gostx_omac_acpkm(&c, n, 4 * n, buf, 5, out, n + 1), GOSTX_ELEN, "omac mac_len");
    gostx_omac_ctx oc;
    CHECK_RC(gostx_omac_acpkm_init(&oc, &c, n, 0), GOSTX_EINVAL, "init T* = 0");
    CHECK_RC(gostx_omac_update(&oc, buf, 1), GOSTX_ESTATE, "update after failed init");
    /* The empty message takes the first section's keys. */
    uint8_t a[16], b[16];
    CHECK_RC(gostx_omac_acpkm(&c, n, 4 * n, NULL, 0, a, n), 0, "empty message");
    ref_omac_acpkm(cids[i], key, n, 4 * n, NULL, 0, b);
    CHECK_BYTES(a, b, n, "empty message vs reference");
  }
}

int main(void) {
  t_rand_init();
  test_vectors();
  test_errors();
  test_ctr_random(GOSTX_ALG_KUZNYECHIK);
  test_ctr_random(GOSTX_ALG_MAGMA);
  test_ctr_sections(GOSTX_ALG_KUZNYECHIK);
  test_ctr_sections(GOSTX_ALG_MAGMA);
  test_omac_random(GOSTX_ALG_KUZNYECHIK);
  test_omac_random(GOSTX_ALG_MAGMA);
  return t_done();
}
