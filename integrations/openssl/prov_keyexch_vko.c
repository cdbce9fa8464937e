/* Key agreement for "gost2012_256" / "gost2012_512" keys: VKO_GOSTR3410_2012
 * (R 50.1.113-2016 section 4.3, RFC 7836). Params:
 *   "ukm": the UKM, 1..8 bytes read little-endian as gost-engine reads it,
 *     or 32 bytes: then the derive is KEG (RFC 9189; the UKM is the hash H,
 *     the output 64 bytes), as gost-engine's is for a 32-byte UKM. A text
 *     value is hex (`-pkeyopt ukm:HEX`, as with gost-engine), an octet
 *     string is taken as it is. "ukmhex" is the same, as text only
 *     (gost-engine's own name: -pkeyopt ukmhex:HEX). Required, as
 *     gost-engine requires it; other lengths are refused (gost-engine's
 *     derive fails on them), as `gostx vko` refuses them.
 *   "kdf-outlen": 32 (VKO_GOSTR3410_2012_256, the default, gost-engine's
 *     output) or 64 (VKO_GOSTR3410_2012_512); KEG's output is 64 whatever
 *     it says. */
#include <string.h>

#include <openssl/crypto.h>

#include "prov.h"

typedef struct vko_ctx {
  prov_gost_key key, peer;
  size_t len; /* the key size: 32 or 64 */
  int has_key, has_peer;
  uint8_t ukm[64];
  size_t ukm_len;
  size_t outlen;
} vko_ctx;

static void *vko_new(size_t len) {
  vko_ctx *x = prov_alloc(sizeof *x);
  if (x) x->len = len, x->outlen = 32;
  return x;
}
static void *vko256_new(void *provctx) {
  (void)provctx;
  return vko_new(32);
}
static void *vko512_new(void *provctx) {
  (void)provctx;
  return vko_new(64);
}
static void vko_free(void *vx) { prov_free(vx, sizeof(vko_ctx)); }
static void *vko_dup(void *vx) { return prov_dup(vx, sizeof(vko_ctx)); }

/* 1..8 bytes: VKO's UKM; 32: KEG's H. */
static int ukm_len_ok(size_t n) { return (n >= 1 && n <= 8) || n == 32; }

static int set_ukm(vko_ctx *x, const OSSL_PARAM *p) {
  if (p->data_type == OSSL_PARAM_UTF8_STRING) {
    long n = 0;
    unsigned char *b = OPENSSL_hexstr2buf(p->data, &n);
    int ok = b && ukm_len_ok((size_t)n);
    if (ok) memcpy(x->ukm, b, (size_t)n), x->ukm_len = (size_t)n;
    OPENSSL_clear_free(b, b ? (size_t)n : 0);
    if (!ok && !b) prov_err(PROV_R_BAD_PARAM, "ukm must be hex");
    else if (!ok) prov_err(PROV_R_BAD_PARAM, "ukm is %ld bytes: 1..8 (VKO) or 32 (KEG)", n);
    return ok;
  }
  const void *v = NULL;
  size_t n = 0;
  if (!OSSL_PARAM_get_octet_string_ptr(p, &v, &n) || !ukm_len_ok(n)) {
    prov_err(PROV_R_BAD_PARAM, "ukm is %zu bytes: 1..8 (VKO) or 32 (KEG)", n);
    return 0;
  }
  memcpy(x->ukm, v, n);
  x->ukm_len = n;
  return 1;
}

static int vko_set_ctx_params(void *vx, const OSSL_PARAM params[]) {
  vko_ctx *x = vx;
  const OSSL_PARAM *p;
  if ((p = OSSL_PARAM_locate_const(params, "ukm")) && !set_ukm(x, p)) return 0;
  if ((p = OSSL_PARAM_locate_const(params, "ukmhex"))) {
    if (p->data_type != OSSL_PARAM_UTF8_STRING) {
      prov_err(PROV_R_BAD_PARAM, "ukmhex must be hex text");
      return 0;
    }
    if (!set_ukm(x, p)) return 0;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_EXCHANGE_PARAM_KDF_OUTLEN))) {
    size_t n = 0;
    if (!OSSL_PARAM_get_size_t(p, &n) || (n != 32 && n != 64)) {
      prov_err(PROV_R_BAD_PARAM, "kdf-outlen %zu: must be 32 or 64", n);
      return 0;
    }
    x->outlen = n;
  }
  return 1;
}

static const OSSL_PARAM *vko_settable_ctx_params(void *vx, void *provctx) {
  (void)vx, (void)provctx;
  static const OSSL_PARAM t[] = {OSSL_PARAM_utf8_string("ukm", NULL, 0),
                                 OSSL_PARAM_utf8_string("ukmhex", NULL, 0),
                                 OSSL_PARAM_size_t(OSSL_EXCHANGE_PARAM_KDF_OUTLEN, NULL),
                                 OSSL_PARAM_END};
  return t;
}

/* What derive writes: 64 bytes for KEG, else kdf-outlen. */
static size_t derived_len(const vko_ctx *x) { return x->ukm_len == 32 ? 64 : x->outlen; }

static int vko_get_ctx_params(void *vx, OSSL_PARAM params[]) {
  vko_ctx *x = vx;
  OSSL_PARAM *p = OSSL_PARAM_locate(params, OSSL_EXCHANGE_PARAM_KDF_OUTLEN);
  return !p || OSSL_PARAM_set_size_t(p, derived_len(x));
}

static const OSSL_PARAM *vko_gettable_ctx_params(void *vx, void *provctx) {
  (void)vx, (void)provctx;
  static const OSSL_PARAM t[] = {OSSL_PARAM_size_t(OSSL_EXCHANGE_PARAM_KDF_OUTLEN, NULL),
                                 OSSL_PARAM_END};
  return t;
}

static int key_fits(const vko_ctx *x, const void *keydata) {
  if (!keydata || ((const prov_gost_key *)keydata)->len != x->len) {
    prov_err(PROV_R_BAD_KEY, "not a %zu-bit GOST R 34.10-2012 key", x->len * 8);
    return 0;
  }
  return 1;
}

static int vko_init(void *vx, void *keydata, const OSSL_PARAM params[]) {
  vko_ctx *x = vx;
  if (!key_fits(x, keydata) || !prov_gost_key_take(&x->key, keydata, 1)) return 0;
  x->has_key = 1;
  return vko_set_ctx_params(x, params);
}

static int vko_set_peer(void *vx, void *peerdata) {
  vko_ctx *x = vx;
  if (!key_fits(x, peerdata) || !prov_gost_key_take(&x->peer, peerdata, 0)) return 0;
  if (x->has_key && x->key.ps->curve != x->peer.ps->curve) {
    prov_err(PROV_R_BAD_KEY, "peer key is on %s, ours on %s", x->peer.ps->name, x->key.ps->name);
    return 0;
  }
  if (gostx_gost3410_check_public_key(x->peer.ps->curve, x->peer.pub, 2 * x->len) != GOSTX_OK) {
    prov_err(PROV_R_BAD_KEY, "peer public key is not a point of order q of %s", x->peer.ps->name);
    return 0;
  }
  x->has_peer = 1;
  return 1;
}

static int vko_derive(void *vx, unsigned char *secret, size_t *secretlen, size_t outlen) {
  vko_ctx *x = vx;
  if (!secret) {
    *secretlen = derived_len(x);
    return 1;
  }
  if (!x->has_key || !x->has_peer) {
    prov_err(PROV_R_NO_KEY, x->has_key ? "no peer key" : "no private key");
    return 0;
  }
  if (!x->ukm_len) {
    prov_err(PROV_R_BAD_PARAM, "no UKM (param \"ukm\", -pkeyopt ukm:HEX)");
    return 0;
  }
  const size_t n = derived_len(x);
  if (outlen < n) {
    prov_err(PROV_R_BUFFER_TOO_SMALL, "shared key is %zu bytes, buffer has %zu", n, outlen);
    return 0;
  }
  int rc = x->ukm_len == 32
               ? gostx_gost3410_keg(x->key.ps->curve, x->key.priv, x->len, x->peer.pub, 2 * x->len,
                                    x->ukm, 32, secret, 64)
               : gostx_gost3410_vko(x->key.ps->curve, x->key.priv, x->len, x->peer.pub, 2 * x->len,
                                    x->ukm, x->ukm_len, secret, n);
  if (rc != GOSTX_OK) return prov_lib_err(rc, x->ukm_len == 32 ? "KEG" : "VKO");
  *secretlen = n;
  return 1;
}

#define VKO_TABLE(sym, bits)                                                                   \
  const OSSL_DISPATCH sym[] = {                                                                \
      {OSSL_FUNC_KEYEXCH_NEWCTX, (prov_fn)vko##bits##_new},                                    \
      {OSSL_FUNC_KEYEXCH_FREECTX, (prov_fn)vko_free},                                          \
      {OSSL_FUNC_KEYEXCH_DUPCTX, (prov_fn)vko_dup},                                            \
      {OSSL_FUNC_KEYEXCH_INIT, (prov_fn)vko_init},                                             \
      {OSSL_FUNC_KEYEXCH_SET_PEER, (prov_fn)vko_set_peer},                                     \
      {OSSL_FUNC_KEYEXCH_DERIVE, (prov_fn)vko_derive},                                         \
      {OSSL_FUNC_KEYEXCH_SET_CTX_PARAMS, (prov_fn)vko_set_ctx_params},                         \
      {OSSL_FUNC_KEYEXCH_SETTABLE_CTX_PARAMS, (prov_fn)vko_settable_ctx_params},               \
      {OSSL_FUNC_KEYEXCH_GET_CTX_PARAMS, (prov_fn)vko_get_ctx_params},                         \
      {OSSL_FUNC_KEYEXCH_GETTABLE_CTX_PARAMS, (prov_fn)vko_gettable_ctx_params},               \
      {0, NULL}}
VKO_TABLE(prov_gost256_vko_fns, 256);
VKO_TABLE(prov_gost512_vko_fns, 512);
