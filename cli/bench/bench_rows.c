/* gostx bench: the rows, what each one runs on one stream, and the streams'
 * buffers and keys. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- the work of one row ---- */


#define GOST89_SBOX GOSTX_SBOX_CRYPTOPRO_A

/* Rows with a bulk-engine variant call it: with s->pool NULL it is the
 * single-threaded call (include/gostx/bulk.h). */
static int w_ecb_enc(struct stream *s) {
  return gostx_ecb_encrypt_mt(s->pool, &s->c, s->in, s->len, s->out);
}
static int w_ecb_dec(struct stream *s) {
  return gostx_ecb_decrypt_mt(s->pool, &s->c, s->in, s->len, s->out);
}
static int w_cbc_enc(struct stream *s) {
  return gostx_cbc_encrypt(&s->c, s->iv, s->c.block_len, s->in, s->len, s->out);
}
static int w_cbc_dec(struct stream *s) {
  return gostx_cbc_decrypt(&s->c, s->iv, s->c.block_len, s->in, s->len, s->out);
}
static int w_cfb_enc(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_cfb_encrypt(&s->c, s->iv, n, n, s->in, s->len, s->out);
}
static int w_cfb_dec(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_cfb_decrypt(&s->c, s->iv, n, n, s->in, s->len, s->out);
}
static int w_ofb(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_ofb_crypt(&s->c, s->iv, n, n, s->in, s->len, s->out);
}
static int w_ctr(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_ctr_crypt_mt(s->pool, &s->c, s->iv, n / 2, s->in, s->len, s->out);
}
static int w_ctr_acpkm(struct stream *s) {
  return gostx_ctr_acpkm_crypt_mt(s->pool, &s->c, s->iv, s->c.block_len / 2, ACPKM_SECTION, s->in,
                                  s->len, s->out);
}
static int w_omac(struct stream *s) {
  return gostx_omac(&s->c, s->in, s->len, s->tag, s->c.block_len);
}
static int w_mgm_enc(struct stream *s) {
  const gostx_mgm_params p = {s->iv, NULL, 0, s->c.block_len};
  return gostx_mgm_encrypt_mt(s->pool, &s->c, &p, s->in, s->len, s->out, s->tag);
}
static int w_mgm_dec(struct stream *s) {
  const gostx_mgm_params p = {s->iv, NULL, 0, s->c.block_len};
  return gostx_mgm_decrypt_mt(s->pool, &s->c, &p, s->aux, s->len, s->tag, s->out);
}
/* XTS, one call: consecutive data units of s->unit bytes (the last one may
 * be shorter), tweaks first + i. */
static int w_xts_enc(struct stream *s) {
  return gostx_xts_encrypt_mt(s->pool, &s->xts, 0, s->unit, s->in, s->len, s->out);
}
static int w_xts_dec(struct stream *s) {
  return gostx_xts_decrypt_mt(s->pool, &s->xts, 0, s->unit, s->in, s->len, s->out);
}
/* XTS, the stream batch on sectors (s->xs: one key, or a key per sector):
 * the sectors that fit (one length: the sector engine), then what is left
 * (>= 16 bytes) as one more stream. */
static int xts_batch(struct stream *s, int dec) {
  const gostx_batch_op op = dec ? GOSTX_BATCH_XTS_DECRYPT : GOSTX_BATCH_XTS_ENCRYPT;
  const gostx_batch_params p = {0};
  const size_t sl = s->len < s->unit ? s->len : s->unit, ns = s->len / sl, rest = s->len % sl;
  int rc = gostx_batch_streams(s->pool, op, &p, s->xs, ns);
  if (!rc && rest >= 16) rc = gostx_batch_streams(s->pool, op, &p, s->xs + ns, 1);
  return rc;
}
static int w_xts_batch_enc(struct stream *s) { return xts_batch(s, 0); }
static int w_xts_batch_dec(struct stream *s) { return xts_batch(s, 1); }
static int w_g89_cnt(struct stream *s) {
  return gostx_gost89_cnt(&s->g89, s->iv, 1, s->in, s->len, s->out);
}
static int w_g89_cfb(struct stream *s) {
  return gostx_gost89_cfb(&s->g89, s->iv, 1, 0, s->in, s->len, s->out);
}
static int w_sb256(struct stream *s) { return gostx_streebog(32, s->in, s->len, s->tag); }
static int w_sb512(struct stream *s) {
  uint8_t d[64];
  return gostx_streebog(64, s->in, s->len, d);
}
static int w_hmac256(struct stream *s) { return gostx_hmac(32, s->key, 32, s->in, s->len, s->tag); }
static int w_hmac512(struct stream *s) {
  uint8_t d[64];
  return gostx_hmac(64, s->key, 32, s->in, s->len, d);
}



#define CIPHER_ROWS(alg, prim, k)                                                              \
  {alg, "ecb-enc", prim, k, w_ecb_enc, 1, 0, 0}, {alg, "ecb-dec", prim, k, w_ecb_dec, 1, 0, 0},  \
  {alg, "cbc-enc", prim, k, w_cbc_enc, 0, 0, 0}, {alg, "cbc-dec", prim, k, w_cbc_dec, 0, 0, 0},  \
  {alg, "cfb-enc", prim, k, w_cfb_enc, 0, 0, 0}, {alg, "cfb-dec", prim, k, w_cfb_dec, 0, 0, 0},  \
  {alg, "ofb", prim, k, w_ofb, 0, 0, 0},         {alg, "ctr", prim, k, w_ctr, 1, 0, 0},          \
  {alg, "ctr-acpkm", prim, k, w_ctr_acpkm, 1, 0, 0}, {alg, "omac", prim, k, w_omac, 0, 0, 0},    \
  {alg, "mgm-enc", prim, k, w_mgm_enc, 1, 0, 0}, {alg, "mgm-dec", prim, k, w_mgm_dec, 1, 0, 0}

/* Kuznyechik-XTS encryption and decryption rows: "xts-" kind "enc" suffix. */
#define XTS_ROWS(kind, suffix, fn, unit, keyed)                                                  \
  {"kuznyechik", "xts-" kind "enc" suffix, GOSTX_ALG_KUZNYECHIK, K_XTS, fn##_enc, 1, unit, keyed}, \
  {"kuznyechik", "xts-" kind "dec" suffix, GOSTX_ALG_KUZNYECHIK, K_XTS, fn##_dec, 1, unit, keyed}

const struct row bench_rows[] = {
    CIPHER_ROWS("kuznyechik", GOSTX_ALG_KUZNYECHIK, K_KUZ),
    /* XTS: one call over the buffer (gostx_xts_*_mt) with 4096- and
     * 512-byte data units; the stream batch on sectors (gostx_batch_streams)
     * with one key and with a key per sector. Compare with ecb-enc / ecb-dec. */
    XTS_ROWS("", "", w_xts, XTS_SECTOR, 0),   XTS_ROWS("", "-512", w_xts, 512, 0),
    XTS_ROWS("batch-", "", w_xts_batch, 4096, 0), XTS_ROWS("batch-", "-512", w_xts_batch, 512, 0),
    XTS_ROWS("keyed-", "", w_xts_batch, 4096, 1), XTS_ROWS("keyed-", "-512", w_xts_batch, 512, 1),
    CIPHER_ROWS("magma", GOSTX_ALG_MAGMA, K_MAGMA),
    {"gost89", "cnt", GOSTX_ALG_MAGMA, K_NONE, w_g89_cnt, 0, 0, 0},
    {"gost89", "cfb-enc", GOSTX_ALG_MAGMA, K_NONE, w_g89_cfb, 0, 0, 0},
    {"streebog256", "hash", GOSTX_ALG_STREEBOG, K_NONE, w_sb256, 0, 0, 0},
    {"streebog512", "hash", GOSTX_ALG_STREEBOG, K_NONE, w_sb512, 0, 0, 0},
    {"hmac-streebog256", "mac", GOSTX_ALG_STREEBOG, K_NONE, w_hmac256, 0, 0, 0},
    {"hmac-streebog512", "mac", GOSTX_ALG_STREEBOG, K_NONE, w_hmac512, 0, 0, 0},
};
const size_t bench_nrows = sizeof bench_rows / sizeof bench_rows[0];

int bench_row_is_mgm(const struct row *r) { return r->fn == w_mgm_enc || r->fn == w_mgm_dec; }

void bench_stream_free(struct stream *s) {
  for (int i = 0; i < 3; i++) free(s->mem[i]);
  gostx_cipher_clear(&s->c);
  gostx_xts_clear(&s->xts);
  for (size_t i = 0; i < s->nxk; i++) gostx_xts_clear(&s->xkeys[i]);
  free(s->xkeys);
  free(s->xs);
  free(s->xtw);
  memset(s, 0, sizeof *s);
}

/* Buffers 64-byte aligned plus `offset`; deterministic contents, keys and IVs
 * (the IV's top bit clear for MGM). seed makes each stream's key its own. */
int bench_stream_setup(struct stream *s, const struct row *r, size_t len, size_t offset,
                        unsigned seed) {
  memset(s, 0, sizeof *s);
  s->len = len;
  uint8_t **bufs[3] = {&s->in, &s->out, &s->aux};
  for (int i = 0; i < 3; i++) {
    s->mem[i] = aligned_alloc(64, (len + 64 + 63) / 64 * 64);
    if (!s->mem[i]) return GOSTX_ENOMEM;
    *bufs[i] = (uint8_t *)s->mem[i] + offset;
  }
  uint32_t x = 0x9e3779b9u ^ (seed * 0x85ebca6bu);
  for (size_t i = 0; i < len; i++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    s->in[i] = (uint8_t)x;
  }
  for (int i = 0; i < 64; i++) s->key[i] = (uint8_t)(i * 7 + seed * 31 + 1);
  for (int i = 0; i < 16; i++) s->iv[i] = (uint8_t)(0x12 + i * 0x11);
  s->iv[0] &= 0x7f;
  int rc = 0;
  if (r->keying == K_KUZ || r->keying == K_MAGMA)
    rc = gostx_cipher_init(&s->c, (gostx_alg)r->keying, s->key);
  else if (r->fn == w_g89_cnt || r->fn == w_g89_cfb)
    rc = gostx_gost89_set_key(&s->g89, s->key, GOST89_SBOX);
  else if (r->keying == K_XTS) rc = gostx_xts_set_key(&s->xts, s->key);
  if (rc) return rc;
  s->unit = r->unit;
  if (r->keyed) { /* distinct keys, one per sector (and the partial one), in sector order */
    s->nxk = len / (len < r->unit ? len : r->unit) + 1;
    s->xkeys = aligned_alloc(64, s->nxk * sizeof *s->xkeys);
    if (!s->xkeys) return GOSTX_ENOMEM;
    uint8_t k[64];
    memcpy(k, s->key, sizeof k);
    for (size_t i = 0; i < s->nxk && !rc; i++) {
      for (int b = 0; b < 8; b++) k[b] = (uint8_t)(s->key[b] ^ (i >> (8 * b)));
      rc = gostx_xts_set_key(&s->xkeys[i], k);
    }
    gostx_memzero(k, sizeof k);
    if (rc) return rc;
  }
  if (r->fn == w_xts_batch_enc || r->fn == w_xts_batch_dec) {
    const size_t sl = len < r->unit ? len : r->unit;
    s->nxs = len / sl + 1;
    s->xs = calloc(s->nxs, sizeof *s->xs);
    s->xtw = calloc(s->nxs, 16);
    if (!s->xs || !s->xtw) return GOSTX_ENOMEM;
    for (size_t i = 0; i < s->nxs; i++) {
      for (int b = 0; b < 8; b++) s->xtw[16 * i + b] = (uint8_t)(i >> (8 * b));
      s->xs[i] = (gostx_stream){.key = r->keyed ? &s->xkeys[i] : &s->xts, .iv = s->xtw + 16 * i,
                                .in = s->in + i * sl, .len = i < len / sl ? sl : len % sl,
                                .out = s->out + i * sl};
    }
  }
  if (r->fn == w_mgm_dec) { /* a valid ciphertext and tag to open on every pass */
    size_t n = s->c.block_len;
    rc = gostx_mgm_encrypt(&s->c, s->iv, NULL, 0, s->in, len, s->aux, s->tag, n);
  }
  return rc;
}
