/* The key derivation functions of R 50.1.113-2016 / RFC 7836 section 4.4
 * and 4.5, under their standard names (gostprov has no KDFs):
 *   KDF_GOSTR3411_2012_256: params "key", "label", "seed"; output 32 bytes.
 *   KDF_TREE_GOSTR3411_2012_256: the same plus "r" (counter bytes, 1..4,
 *   default 1); any output length (L = 8 * keylen bits). */
#include <string.h>

#include "prov.h"

#define KDF_MAX_INPUT 4096 /* key, label and seed are short in every protocol */

typedef struct kdf_ctx {
  int tree;
  size_t r;
  uint8_t key[KDF_MAX_INPUT], label[KDF_MAX_INPUT], seed[KDF_MAX_INPUT];
  size_t key_len, label_len, seed_len;
  int key_set;
} kdf_ctx;

static void *kdf_newctx(int tree) {
  kdf_ctx *x = prov_alloc(sizeof *x);
  if (x) {
    x->tree = tree;
    x->r = 1;
  }
  return x;
}
static void *kdf256_newctx(void *provctx) {
  (void)provctx;
  return kdf_newctx(0);
}
static void *kdftree_newctx(void *provctx) {
  (void)provctx;
  return kdf_newctx(1);
}

static void kdf_freectx(void *vx) { prov_free(vx, sizeof(kdf_ctx)); }

static void *kdf_dupctx(void *vx) { return prov_dup(vx, sizeof(kdf_ctx)); }

static void kdf_reset(void *vx) {
  kdf_ctx *x = vx;
  int tree = x->tree;
  gostx_memzero(x, sizeof *x);
  x->tree = tree;
  x->r = 1;
}

static int get_octets(const OSSL_PARAM *p, uint8_t *dst, size_t *len, const char *what) {
  const void *v;
  size_t n;
  if (!OSSL_PARAM_get_octet_string_ptr(p, &v, &n)) return 0;
  if (n > KDF_MAX_INPUT) {
    prov_err(PROV_R_BAD_PARAM, "%s longer than %d bytes", what, KDF_MAX_INPUT);
    return 0;
  }
  if (n) memcpy(dst, v, n);
  *len = n;
  return 1;
}

static int kdf_set_ctx_params(void *vx, const OSSL_PARAM params[]) {
  kdf_ctx *x = vx;
  const OSSL_PARAM *p;
  if (!params) return 1;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_KDF_PARAM_KEY))) {
    if (!get_octets(p, x->key, &x->key_len, "key")) return 0;
    x->key_set = 1;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_KDF_PARAM_LABEL)) &&
      !get_octets(p, x->label, &x->label_len, "label"))
    return 0;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_KDF_PARAM_SEED)) &&
      !get_octets(p, x->seed, &x->seed_len, "seed"))
    return 0;
  if (x->tree && (p = OSSL_PARAM_locate_const(params, "r"))) {
    size_t r;
    if (!OSSL_PARAM_get_size_t(p, &r)) return 0;
    if (r < 1 || r > 4) {
      prov_err(PROV_R_BAD_PARAM, "r (counter bytes) must be 1..4, not %zu", r);
      return 0;
    }
    x->r = r;
  }
  return 1;
}

static int kdf_derive(void *vx, unsigned char *out, size_t keylen, const OSSL_PARAM params[]) {
  kdf_ctx *x = vx;
  if (!kdf_set_ctx_params(x, params)) return 0;
  if (!x->key_set) {
    prov_err(PROV_R_NO_KEY, "no key set");
    return 0;
  }
  int rc;
  if (!x->tree) {
    if (keylen != 32) {
      prov_err(PROV_R_BAD_LEN, "KDF_GOSTR3411_2012_256 gives 32 bytes, not %zu", keylen);
      return 0;
    }
    rc = gostx_kdf256(x->key, x->key_len, x->label, x->label_len, x->seed, x->seed_len, out);
  } else {
    rc = gostx_kdf_tree256(x->key, x->key_len, x->label, x->label_len, x->seed, x->seed_len,
                           x->r, out, keylen);
  }
  return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "kdf");
}

static int kdf_get_ctx_params(void *vx, OSSL_PARAM params[]) {
  kdf_ctx *x = vx;
  OSSL_PARAM *p = OSSL_PARAM_locate(params, OSSL_KDF_PARAM_SIZE);
  return !p || OSSL_PARAM_set_size_t(p, x->tree ? SIZE_MAX : 32);
}

static PROV_CTX_PARAMS(kdf_gettable_ctx_params,
    OSSL_PARAM_size_t(OSSL_KDF_PARAM_SIZE, NULL))

static PROV_CTX_PARAMS(kdf_settable_ctx_params,
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_KEY, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_LABEL, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_KDF_PARAM_SEED, NULL, 0),
    OSSL_PARAM_size_t("r", NULL))

#define KDF_FNS(name)                                                                            \
  static const OSSL_DISPATCH name##_fns[] = {                                                    \
      {OSSL_FUNC_KDF_NEWCTX, (prov_fn)name##_newctx},                                            \
      {OSSL_FUNC_KDF_FREECTX, (prov_fn)kdf_freectx},                                             \
      {OSSL_FUNC_KDF_DUPCTX, (prov_fn)kdf_dupctx},                                               \
      {OSSL_FUNC_KDF_RESET, (prov_fn)kdf_reset},                                                 \
      {OSSL_FUNC_KDF_DERIVE, (prov_fn)kdf_derive},                                               \
      {OSSL_FUNC_KDF_GET_CTX_PARAMS, (prov_fn)kdf_get_ctx_params},                               \
      {OSSL_FUNC_KDF_GETTABLE_CTX_PARAMS, (prov_fn)kdf_gettable_ctx_params},                     \
      {OSSL_FUNC_KDF_SET_CTX_PARAMS, (prov_fn)kdf_set_ctx_params},                               \
      {OSSL_FUNC_KDF_SETTABLE_CTX_PARAMS, (prov_fn)kdf_settable_ctx_params},                     \
      {0, NULL}};
KDF_FNS(kdf256)
KDF_FNS(kdftree)

const OSSL_ALGORITHM prov_kdfs[] = {
    {"KDF_GOSTR3411_2012_256", PROV_PROPS, kdf256_fns,
     "KDF_GOSTR3411_2012_256, RFC 7836 4.4 (libgostx)"},
    {"KDF_TREE_GOSTR3411_2012_256", PROV_PROPS, kdftree_fns,
     "KDF_TREE_GOSTR3411_2012_256, RFC 7836 4.5 (libgostx)"},
    {NULL, NULL, NULL, NULL},
};
