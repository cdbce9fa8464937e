/* PBKDF2 (RFC 8018 section 5.2) with PRF = HMAC_GOSTR3411_2012_512, as
 * R 50.1.111-2016 / RFC 9337 specify, and (internal, for files others
 * write: kdf/pbkdf2.h) with HMAC-SHA256, HMAC-Streebog-256 and HMAC-GOST
 * R 34.11-94. The HMAC states after absorbing K ^ ipad
 * and K ^ opad are computed once per call and copied for every iteration,
 * so each iteration costs only the message compressions. */
#include "internal.h"
#include "kdf/pbkdf2.h"
#include "kdf/sha256.h"

#define PRF_MAX GOSTX_STREEBOG512_LEN

/* A keyed HMAC state of either hash; a copy of it restarts the PRF. */
typedef union prf_ctx {
  gostx_hmac_ctx streebog;
  gostx__hmac_sha256_ctx sha256;
  struct {
    gostx_gost94_ctx inner, outer;
  } gost94;
} prf_ctx;

typedef struct prf {
  size_t len; /* hLen */
  int (*init)(prf_ctx *h, const uint8_t *key, size_t len);
  int (*update)(prf_ctx *h, const uint8_t *data, size_t len);
  int (*final)(prf_ctx *h, uint8_t *out);
} prf;

static int streebog_init(prf_ctx *h, const uint8_t *key, size_t len) {
  return gostx_hmac_init(&h->streebog, GOSTX_STREEBOG512_LEN, key, len);
}
static int streebog_update(prf_ctx *h, const uint8_t *data, size_t len) {
  return gostx_hmac_update(&h->streebog, data, len);
}
static int streebog_final(prf_ctx *h, uint8_t *out) { return gostx_hmac_final(&h->streebog, out); }
static int streebog256_init(prf_ctx *h, const uint8_t *key, size_t len) {
  return gostx_hmac_init(&h->streebog, GOSTX_STREEBOG256_LEN, key, len);
}
/* HMAC (RFC 2104) over GOST R 34.11-94 with the CryptoPro parameter set,
 * RFC 4357's HMAC_GOSTR3411: its block, and so the key's pad, is 32 bytes. */
static int gost94_init(prf_ctx *h, const uint8_t *key, size_t len) {
  uint8_t k[GOSTX_GOST94_BLOCK_LEN] = {0}, pad[GOSTX_GOST94_BLOCK_LEN];
  int rc = GOSTX_OK;
  if (len > sizeof k) rc = gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, key, len, k);
  else if (len) memcpy(k, key, len);
  for (size_t i = 0; i < sizeof pad; i++) pad[i] = k[i] ^ 0x36;
  if (!rc) rc = gostx_gost94_init(&h->gost94.inner, GOSTX_SBOX_CRYPTOPRO_3411_94);
  if (!rc) rc = gostx_gost94_update(&h->gost94.inner, pad, sizeof pad);
  for (size_t i = 0; i < sizeof pad; i++) pad[i] = k[i] ^ 0x5c;
  if (!rc) rc = gostx_gost94_init(&h->gost94.outer, GOSTX_SBOX_CRYPTOPRO_3411_94);
  if (!rc) rc = gostx_gost94_update(&h->gost94.outer, pad, sizeof pad);
  gostx_memzero(k, sizeof k);
  gostx_memzero(pad, sizeof pad);
  return rc;
}
static int gost94_update(prf_ctx *h, const uint8_t *data, size_t len) {
  return gostx_gost94_update(&h->gost94.inner, data, len);
}
static int gost94_final(prf_ctx *h, uint8_t *out) {
  uint8_t d[GOSTX_GOST94_LEN];
  int rc = gostx_gost94_final(&h->gost94.inner, d);
  if (!rc) rc = gostx_gost94_update(&h->gost94.outer, d, sizeof d);
  if (!rc) rc = gostx_gost94_final(&h->gost94.outer, out);
  gostx_memzero(d, sizeof d);
  return rc;
}
static int sha256_init(prf_ctx *h, const uint8_t *key, size_t len) {
  gostx__hmac_sha256_init(&h->sha256, key, len);
  return GOSTX_OK;
}
static int sha256_update(prf_ctx *h, const uint8_t *data, size_t len) {
  gostx__hmac_sha256_update(&h->sha256, data, len);
  return GOSTX_OK;
}
static int sha256_final(prf_ctx *h, uint8_t *out) {
  gostx__hmac_sha256_final(&h->sha256, out);
  return GOSTX_OK;
}

/* T_1 || T_2 || ... of PBKDF2 with PRF f. */
static int pbkdf2(const prf *f, const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                  size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len) {
  size_t done = 0, hl = f->len;
  if ((!pass && pass_len) || (!salt && salt_len) || !out) return GOSTX_EINVAL;
  if (iterations < 1) return GOSTX_EINVAL;
  if (out_len == 0) return GOSTX_ELEN;
  /* dkLen <= (2^32 - 1) * hLen */
  if ((uint64_t)out_len > (uint64_t)0xffffffffu * hl) return GOSTX_ELEN;
  prf_ctx keyed, h;
  uint8_t u[PRF_MAX], t[PRF_MAX], ibuf[4];
  int rc = f->init(&keyed, pass, pass_len);
  for (uint32_t block = 1; rc == GOSTX_OK && done < out_len; block++) {
    /* U_1 = PRF(P, S || INT(block)) */
    gostx_store32_be(ibuf, block);
    h = keyed;
    rc = f->update(&h, salt, salt_len);
    if (rc == GOSTX_OK) rc = f->update(&h, ibuf, 4);
    if (rc == GOSTX_OK) rc = f->final(&h, u);
    memcpy(t, u, hl);
    /* U_j = PRF(P, U_{j-1}); T = U_1 ^ ... ^ U_c */
    for (uint32_t j = 1; rc == GOSTX_OK && j < iterations; j++) {
      h = keyed;
      rc = f->update(&h, u, hl);
      if (rc == GOSTX_OK) rc = f->final(&h, u);
      gostx_xor(t, t, u, hl);
    }
    size_t take = out_len - done < hl ? out_len - done : hl;
    if (rc == GOSTX_OK) memcpy(out + done, t, take);
    done += take;
  }
  gostx_memzero(&keyed, sizeof keyed);
  gostx_memzero(&h, sizeof h);
  gostx_memzero(u, sizeof u);
  gostx_memzero(t, sizeof t);
  if (rc != GOSTX_OK) gostx_memzero(out, out_len);
  return rc;
}

int gostx_pbkdf2_streebog512(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                             size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len) {
  static const prf f = {GOSTX_STREEBOG512_LEN, streebog_init, streebog_update, streebog_final};
  return pbkdf2(&f, pass, pass_len, salt, salt_len, iterations, out, out_len);
}

int gostx__pbkdf2_sha256(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                         size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len) {
  static const prf f = {GOSTX__SHA256_LEN, sha256_init, sha256_update, sha256_final};
  return pbkdf2(&f, pass, pass_len, salt, salt_len, iterations, out, out_len);
}

int gostx__pbkdf2_streebog256(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                              size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len) {
  static const prf f = {GOSTX_STREEBOG256_LEN, streebog256_init, streebog_update, streebog_final};
  return pbkdf2(&f, pass, pass_len, salt, salt_len, iterations, out, out_len);
}

int gostx__pbkdf2_gost94(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                         size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len) {
  static const prf f = {GOSTX_GOST94_LEN, gost94_init, gost94_update, gost94_final};
  return pbkdf2(&f, pass, pass_len, salt, salt_len, iterations, out, out_len);
}
