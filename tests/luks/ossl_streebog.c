/* A test-only OpenSSL 3 provider with one digest, "streebog512" (the
 * kernel's and LUKS's name for Streebog-512), computed by libgostx.
 *
 * Debian's cryptsetup hashes through OpenSSL in a library context of its
 * own, into which it loads only the providers named "default" and
 * "legacy"; neither has Streebog, and OPENSSL_CONF does not reach that
 * context (gost-engine's provider, which could be loaded as "legacy", names
 * the digest md_gost12_512, not streebog512). tests/luks/test_cryptsetup.sh
 * therefore puts this module in a folder as legacy.so and points
 * OPENSSL_MODULES there: cryptsetup then reads gostx's LUKS1 headers, and
 * verifies their mk-digest with OpenSSL's own PBKDF2 and HMAC over this
 * digest. Written from provider(7) and provider-digest(7). */
#include <stdlib.h>
#include <string.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <gostx.h>

#define DIGEST_LEN GOSTX_STREEBOG512_LEN

static void *sb_newctx(void *provctx) {
  (void)provctx;
  void *ctx = NULL;
  /* the context holds 16-byte aligned state */
  if (posix_memalign(&ctx, 64, sizeof(gostx_streebog_ctx)) != 0) return NULL;
  memset(ctx, 0, sizeof(gostx_streebog_ctx));
  return ctx;
}

static void sb_freectx(void *ctx) {
  if (!ctx) return;
  gostx_streebog_clear(ctx);
  free(ctx);
}

static void *sb_dupctx(void *ctx) {
  void *dup = sb_newctx(NULL);
  if (dup) memcpy(dup, ctx, sizeof(gostx_streebog_ctx));
  return dup;
}

static int sb_init(void *ctx, const OSSL_PARAM params[]) {
  (void)params;
  return gostx_streebog_init(ctx, DIGEST_LEN) == GOSTX_OK;
}

static int sb_update(void *ctx, const unsigned char *in, size_t len) {
  return gostx_streebog_update(ctx, in, len) == GOSTX_OK;
}

static int sb_final(void *ctx, unsigned char *out, size_t *outl, size_t outsz) {
  if (outsz < DIGEST_LEN || gostx_streebog_final(ctx, out) != GOSTX_OK) return 0;
  *outl = DIGEST_LEN;
  return 1;
}

static int sb_get_params(OSSL_PARAM params[]) {
  OSSL_PARAM *p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_BLOCK_SIZE);
  if (p && !OSSL_PARAM_set_size_t(p, GOSTX_STREEBOG_BLOCK_LEN)) return 0;
  p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_SIZE);
  if (p && !OSSL_PARAM_set_size_t(p, DIGEST_LEN)) return 0;
  return 1;
}

static const OSSL_PARAM *sb_gettable_params(void *provctx) {
  (void)provctx;
  static const OSSL_PARAM table[] = {
      OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, NULL),
      OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, NULL),
      OSSL_PARAM_END,
  };
  return table;
}

typedef void (*fn)(void);
static const OSSL_DISPATCH streebog512_functions[] = {
    {OSSL_FUNC_DIGEST_NEWCTX, (fn)sb_newctx},
    {OSSL_FUNC_DIGEST_INIT, (fn)sb_init},
    {OSSL_FUNC_DIGEST_UPDATE, (fn)sb_update},
    {OSSL_FUNC_DIGEST_FINAL, (fn)sb_final},
    {OSSL_FUNC_DIGEST_FREECTX, (fn)sb_freectx},
    {OSSL_FUNC_DIGEST_DUPCTX, (fn)sb_dupctx},
    {OSSL_FUNC_DIGEST_GET_PARAMS, (fn)sb_get_params},
    {OSSL_FUNC_DIGEST_GETTABLE_PARAMS, (fn)sb_gettable_params},
    {0, NULL},
};

static const OSSL_ALGORITHM digests[] = {
    {"streebog512:gostx-streebog512", "provider=gostx", streebog512_functions,
     "Streebog-512 (GOST R 34.11-2012) from libgostx"},
    {NULL, NULL, NULL, NULL},
};

static const OSSL_ALGORITHM *query(void *provctx, int operation_id, int *no_cache) {
  (void)provctx;
  *no_cache = 0;
  return operation_id == OSSL_OP_DIGEST ? digests : NULL;
}

static const OSSL_DISPATCH provider_functions[] = {
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (fn)query},
    {0, NULL},
};

__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle,
                                                              const OSSL_DISPATCH *in,
                                                              const OSSL_DISPATCH **out,
                                                              void **provctx) {
  (void)in;
  *out = provider_functions;
  *provctx = (void *)handle;
  return 1;
}
