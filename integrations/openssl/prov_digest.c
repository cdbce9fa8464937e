/* Streebog-256/512 (GOST R 34.11-2012) as the digests md_gost12_256 and
 * md_gost12_512, and GOST R 34.11-94 with the CryptoPro parameter set as
 * md_gost94, with gostprov's aliases and OIDs. dupctx is there so that the
 * default provider's HMAC, PBKDF2 and HKDF can run on them. */
#include <string.h>

#include "prov.h"

/* newctx / freectx / dupctx of a digest whose context is one plain struct. */
#define DIGEST_CTX_FNS(pre, type)                                                                \
  static void *pre##_newctx(void *provctx) {                                                     \
    (void)provctx;                                                                               \
    return prov_alloc(sizeof(type));                                                             \
  }                                                                                              \
  static void pre##_freectx(void *ctx) { prov_free(ctx, sizeof(type)); }                         \
  static void *pre##_dupctx(void *ctx) {                                                         \
    void *dup = prov_alloc(sizeof(type));                                                        \
    if (dup) memcpy(dup, ctx, sizeof(type));                                                     \
    return dup;                                                                                  \
  }

DIGEST_CTX_FNS(sb, gostx_streebog_ctx)
DIGEST_CTX_FNS(g94, gostx_gost94_ctx)

static int sb_update(void *ctx, const unsigned char *in, size_t len) {
  int rc = gostx_streebog_update(ctx, in, len);
  return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "streebog update");
}

static int digest_get_params(OSSL_PARAM params[], size_t block, size_t len) {
  OSSL_PARAM *p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_BLOCK_SIZE);
  if (p && !OSSL_PARAM_set_size_t(p, block)) return 0;
  p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_SIZE);
  if (p && !OSSL_PARAM_set_size_t(p, len)) return 0;
  return 1;
}

static PROV_PARAMS(digest_gettable_params,
    OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, NULL))

#define STREEBOG(bits)                                                                           \
  static int sb##bits##_init(void *ctx, const OSSL_PARAM params[]) {                             \
    (void)params;                                                                                \
    return gostx_streebog_init(ctx, bits / 8) == GOSTX_OK;                                       \
  }                                                                                              \
  static int sb##bits##_final(void *ctx, unsigned char *out, size_t *outl, size_t outsz) {       \
    if (outsz < bits / 8) {                                                                      \
      prov_err(PROV_R_BUFFER_TOO_SMALL, "digest needs %d bytes", bits / 8);                      \
      return 0;                                                                                  \
    }                                                                                            \
    int rc = gostx_streebog_final(ctx, out);                                                     \
    if (rc != GOSTX_OK) return prov_lib_err(rc, "streebog final");                               \
    *outl = bits / 8;                                                                            \
    return 1;                                                                                    \
  }                                                                                              \
  static int sb##bits##_get_params(OSSL_PARAM params[]) {                                        \
    return digest_get_params(params, GOSTX_STREEBOG_BLOCK_LEN, bits / 8);                        \
  }                                                                                              \
  static const OSSL_DISPATCH streebog##bits##_fns[] = {                                          \
      {OSSL_FUNC_DIGEST_NEWCTX, (prov_fn)sb_newctx},                                             \
      {OSSL_FUNC_DIGEST_INIT, (prov_fn)sb##bits##_init},                                         \
      {OSSL_FUNC_DIGEST_UPDATE, (prov_fn)sb_update},                                             \
      {OSSL_FUNC_DIGEST_FINAL, (prov_fn)sb##bits##_final},                                       \
      {OSSL_FUNC_DIGEST_FREECTX, (prov_fn)sb_freectx},                                           \
      {OSSL_FUNC_DIGEST_DUPCTX, (prov_fn)sb_dupctx},                                             \
      {OSSL_FUNC_DIGEST_GET_PARAMS, (prov_fn)sb##bits##_get_params},                             \
      {OSSL_FUNC_DIGEST_GETTABLE_PARAMS, (prov_fn)digest_gettable_params},                       \
      {0, NULL},                                                                                 \
  };

STREEBOG(256)
STREEBOG(512)

/* md_gost94: the CryptoPro parameter set, as gost-engine's (which has no
 * other). */
static int g94_init(void *ctx, const OSSL_PARAM params[]) {
  (void)params;
  return gostx_gost94_init(ctx, GOSTX_SBOX_CRYPTOPRO_3411_94) == GOSTX_OK;
}

static int g94_update(void *ctx, const unsigned char *in, size_t len) {
  int rc = gostx_gost94_update(ctx, in, len);
  return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "gost94 update");
}

static int g94_final(void *ctx, unsigned char *out, size_t *outl, size_t outsz) {
  if (outsz < GOSTX_GOST94_LEN) {
    prov_err(PROV_R_BUFFER_TOO_SMALL, "digest needs %d bytes", GOSTX_GOST94_LEN);
    return 0;
  }
  int rc = gostx_gost94_final(ctx, out);
  if (rc != GOSTX_OK) return prov_lib_err(rc, "gost94 final");
  *outl = GOSTX_GOST94_LEN;
  return 1;
}

static int g94_get_params(OSSL_PARAM params[]) {
  return digest_get_params(params, GOSTX_GOST94_BLOCK_LEN, GOSTX_GOST94_LEN);
}

static const OSSL_DISPATCH gost94_fns[] = {
    {OSSL_FUNC_DIGEST_NEWCTX, (prov_fn)g94_newctx},
    {OSSL_FUNC_DIGEST_INIT, (prov_fn)g94_init},
    {OSSL_FUNC_DIGEST_UPDATE, (prov_fn)g94_update},
    {OSSL_FUNC_DIGEST_FINAL, (prov_fn)g94_final},
    {OSSL_FUNC_DIGEST_FREECTX, (prov_fn)g94_freectx},
    {OSSL_FUNC_DIGEST_DUPCTX, (prov_fn)g94_dupctx},
    {OSSL_FUNC_DIGEST_GET_PARAMS, (prov_fn)g94_get_params},
    {OSSL_FUNC_DIGEST_GETTABLE_PARAMS, (prov_fn)digest_gettable_params},
    {0, NULL},
};

const OSSL_ALGORITHM prov_digests[] = {
    {"md_gost12_256:id-tc26-gost3411-12-256:streebog256:1.2.643.7.1.1.2.2", PROV_PROPS,
     streebog256_fns, "Streebog-256, GOST R 34.11-2012 (libgostx)"},
    {"md_gost12_512:id-tc26-gost3411-12-512:streebog512:1.2.643.7.1.1.2.3", PROV_PROPS,
     streebog512_fns, "Streebog-512, GOST R 34.11-2012 (libgostx)"},
    {"md_gost94:id-GostR3411-94:1.2.643.2.2.9", PROV_PROPS, gost94_fns,
     "GOST R 34.11-94, CryptoPro parameter set (libgostx)"},
    {NULL, NULL, NULL, NULL},
};
