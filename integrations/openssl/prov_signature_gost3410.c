/* GOST R 34.10-2012 signatures for "gost2012_256" / "gost2012_512" keys:
 * digest-sign/verify over Streebog (md_gost12_256 / md_gost12_512, the
 * only digest each size takes) and sign/verify of a ready digest. The
 * bytes are s || r, each big-endian, as gost-engine writes them and as
 * X.509 and CMS carry them (RFC 9215); libgostx takes r || s. The
 * AlgorithmIdentifier is id-tc26-signwithdigest-gost3410-12-256/512
 * (1.2.643.7.1.1.3.2 / .3.3) with no parameters, so X.509 signing works. */
#include <string.h>
#include <strings.h>

#include "prov.h"

typedef struct sig_ctx {
  prov_gost_key key;
  gostx_streebog_ctx md;
  size_t len;    /* 32 or 64: the key's size, also the digest's */
  int has_key;
  int md_ready;  /* a digest-sign/verify is under way */
} sig_ctx;

static void *sig_new(size_t len) {
  sig_ctx *x = prov_alloc(sizeof *x);
  if (x) x->len = len;
  return x;
}
static void *sig256_new(void *provctx, const char *propq) {
  (void)provctx, (void)propq;
  return sig_new(32);
}
static void *sig512_new(void *provctx, const char *propq) {
  (void)provctx, (void)propq;
  return sig_new(64);
}
static void sig_free(void *vx) { prov_free(vx, sizeof(sig_ctx)); }
static void *sig_dup(void *vx) { return prov_dup(vx, sizeof(sig_ctx)); }

/* The names of the one digest a key size takes. */
static int digest_fits(size_t len, const char *name) {
  static const char *const n256[] = {"md_gost12_256", "streebog256", "id-tc26-gost3411-12-256",
                                     "1.2.643.7.1.1.2.2", NULL};
  static const char *const n512[] = {"md_gost12_512", "streebog512", "id-tc26-gost3411-12-512",
                                     "1.2.643.7.1.1.2.3", NULL};
  for (const char *const *n = len == 32 ? n256 : n512; *n; n++)
    if (!strcasecmp(name, *n)) return 1;
  prov_err(PROV_R_BAD_PARAM, "digest %s does not go with a %zu-bit GOST key (%s only)", name,
           len * 8, prov_gost_digest_name(len));
  return 0;
}

static int sig_set_ctx_params(void *vx, const OSSL_PARAM params[]) {
  sig_ctx *x = vx;
  const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_SIGNATURE_PARAM_DIGEST);
  const char *name = NULL;
  if (p && (!OSSL_PARAM_get_utf8_string_ptr(p, &name) || !digest_fits(x->len, name))) return 0;
  return 1;
}

static const OSSL_PARAM *sig_settable_ctx_params(void *vx, void *provctx) {
  (void)vx, (void)provctx;
  static const OSSL_PARAM t[] = {OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL, 0),
                                 OSSL_PARAM_END};
  return t;
}

static int sig_init(void *vx, void *keydata, const OSSL_PARAM params[], int sign) {
  sig_ctx *x = vx;
  if (!keydata || ((prov_gost_key *)keydata)->len != x->len) {
    prov_err(PROV_R_BAD_KEY, "not a %zu-bit GOST R 34.10-2012 key", x->len * 8);
    return 0;
  }
  if (!prov_gost_key_take(&x->key, keydata, sign)) return 0;
  x->has_key = 1;
  x->md_ready = 0;
  return sig_set_ctx_params(x, params);
}
static int sig_sign_init(void *vx, void *keydata, const OSSL_PARAM params[]) {
  return sig_init(vx, keydata, params, 1);
}
static int sig_verify_init(void *vx, void *keydata, const OSSL_PARAM params[]) {
  return sig_init(vx, keydata, params, 0);
}

static int sig_sign(void *vx, unsigned char *sig, size_t *siglen, size_t sigsize,
                    const unsigned char *tbs, size_t tbslen) {
  sig_ctx *x = vx;
  const size_t n = x->len;
  if (!sig) {
    *siglen = 2 * n;
    return 1;
  }
  if (!x->has_key || !x->key.has_priv) {
    prov_err(PROV_R_NO_KEY, "no private key");
    return 0;
  }
  if (sigsize < 2 * n) {
    prov_err(PROV_R_BUFFER_TOO_SMALL, "signature needs %zu bytes, buffer has %zu", 2 * n, sigsize);
    return 0;
  }
  if (!tbs || tbslen != n) {
    prov_err(PROV_R_BAD_LEN, "digest is %zu bytes, must be %zu", tbslen, n);
    return 0;
  }
  uint8_t rs[128];
  int rc = gostx_gost3410_sign(x->key.ps->curve, x->key.priv, n, tbs, n, rs, 2 * n);
  if (rc != GOSTX_OK) return prov_lib_err(rc, "GOST R 34.10-2012 sign");
  rc = gostx_gost3410_sig_swap(rs, 2 * n, sig, 2 * n); /* s || r */
  if (rc != GOSTX_OK) return prov_lib_err(rc, "signature halves");
  *siglen = 2 * n;
  return 1;
}

static int sig_verify(void *vx, const unsigned char *sig, size_t siglen, const unsigned char *tbs,
                      size_t tbslen) {
  sig_ctx *x = vx;
  const size_t n = x->len;
  if (!x->has_key) {
    prov_err(PROV_R_NO_KEY, "no public key");
    return 0;
  }
  if (!sig || siglen != 2 * n) {
    prov_err(PROV_R_BAD_SIGNATURE, "signature is %zu bytes, must be %zu (s || r)", siglen, 2 * n);
    return 0;
  }
  if (!tbs || tbslen != n) {
    prov_err(PROV_R_BAD_LEN, "digest is %zu bytes, must be %zu", tbslen, n);
    return 0;
  }
  uint8_t rs[128];
  int rc = gostx_gost3410_sig_swap(sig, 2 * n, rs, 2 * n);
  if (rc == GOSTX_OK)
    rc = gostx_gost3410_verify(x->key.ps->curve, x->key.pub, 2 * n, tbs, n, rs, 2 * n);
  if (rc == GOSTX_OK) return 1;
  if (rc == GOSTX_EFORMAT)
    prov_err(PROV_R_BAD_SIGNATURE, "r or s is 0 or not below the group order");
  else if (rc == GOSTX_EAUTH)
    prov_err(PROV_R_BAD_SIGNATURE, "signature does not verify");
  else
    prov_lib_err(rc, "GOST R 34.10-2012 verify");
  return 0;
}

static int sig_digest_init(void *vx, const char *mdname, void *keydata, const OSSL_PARAM params[],
                           int sign) {
  sig_ctx *x = vx;
  if (mdname && *mdname && !digest_fits(x->len, mdname)) return 0;
  if (!sig_init(vx, keydata, params, sign)) return 0;
  int rc = gostx_streebog_init(&x->md, x->len);
  if (rc != GOSTX_OK) return prov_lib_err(rc, "Streebog init");
  x->md_ready = 1;
  return 1;
}
static int sig_digest_sign_init(void *vx, const char *mdname, void *keydata,
                                const OSSL_PARAM params[]) {
  return sig_digest_init(vx, mdname, keydata, params, 1);
}
static int sig_digest_verify_init(void *vx, const char *mdname, void *keydata,
                                  const OSSL_PARAM params[]) {
  return sig_digest_init(vx, mdname, keydata, params, 0);
}

static int sig_digest_update(void *vx, const unsigned char *data, size_t len) {
  sig_ctx *x = vx;
  if (!x->md_ready) {
    prov_err(PROV_R_NO_KEY, "digest-sign/verify not initialised");
    return 0;
  }
  int rc = gostx_streebog_update(&x->md, data, len);
  return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "Streebog update");
}

/* The digest so far, leaving the running state as it was (a size query
 * or a second final must see the same data). */
static int sig_digest_now(sig_ctx *x, uint8_t *h) {
  if (!x->md_ready) {
    prov_err(PROV_R_NO_KEY, "digest-sign/verify not initialised");
    return 0;
  }
  gostx_streebog_ctx copy = x->md;
  int rc = gostx_streebog_final(&copy, h);
  gostx_streebog_clear(&copy);
  return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "Streebog final");
}

static int sig_digest_sign_final(void *vx, unsigned char *sig, size_t *siglen, size_t sigsize) {
  sig_ctx *x = vx;
  uint8_t h[64];
  if (!sig) return sig_sign(vx, NULL, siglen, sigsize, NULL, 0);
  return sig_digest_now(x, h) && sig_sign(vx, sig, siglen, sigsize, h, x->len);
}

static int sig_digest_verify_final(void *vx, const unsigned char *sig, size_t siglen) {
  sig_ctx *x = vx;
  uint8_t h[64];
  return sig_digest_now(x, h) && sig_verify(vx, sig, siglen, h, x->len);
}

static int sig_get_ctx_params(void *vx, OSSL_PARAM params[]) {
  sig_ctx *x = vx;
  /* SEQUENCE { OID 1.2.643.7.1.1.3.2 or .3.3 }: parameters absent (RFC 9215) */
  const uint8_t aid[] = {0x30, 0x0a, 0x06, 0x08, 0x2a, 0x85, 0x03, 0x07,
                         0x01, 0x01, 0x03, x->len == 32 ? 0x02 : 0x03};
  OSSL_PARAM *p;
  if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_ALGORITHM_ID)) &&
      !OSSL_PARAM_set_octet_string(p, aid, sizeof aid))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_DIGEST)) &&
      !OSSL_PARAM_set_utf8_string(p, prov_gost_digest_name(x->len)))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_DIGEST_SIZE)) &&
      !OSSL_PARAM_set_size_t(p, x->len))
    return 0;
  return 1;
}

static const OSSL_PARAM *sig_gettable_ctx_params(void *vx, void *provctx) {
  (void)vx, (void)provctx;
  static const OSSL_PARAM t[] = {
      OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, NULL, 0),
      OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, NULL, 0),
      OSSL_PARAM_size_t(OSSL_SIGNATURE_PARAM_DIGEST_SIZE, NULL), OSSL_PARAM_END};
  return t;
}

#define SIGNATURE_TABLE(sym, bits)                                                             \
  const OSSL_DISPATCH sym[] = {                                                                \
      {OSSL_FUNC_SIGNATURE_NEWCTX, (prov_fn)sig##bits##_new},                                  \
      {OSSL_FUNC_SIGNATURE_FREECTX, (prov_fn)sig_free},                                        \
      {OSSL_FUNC_SIGNATURE_DUPCTX, (prov_fn)sig_dup},                                          \
      {OSSL_FUNC_SIGNATURE_SIGN_INIT, (prov_fn)sig_sign_init},                                 \
      {OSSL_FUNC_SIGNATURE_SIGN, (prov_fn)sig_sign},                                           \
      {OSSL_FUNC_SIGNATURE_VERIFY_INIT, (prov_fn)sig_verify_init},                             \
      {OSSL_FUNC_SIGNATURE_VERIFY, (prov_fn)sig_verify},                                       \
      {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_INIT, (prov_fn)sig_digest_sign_init},                   \
      {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_UPDATE, (prov_fn)sig_digest_update},                    \
      {OSSL_FUNC_SIGNATURE_DIGEST_SIGN_FINAL, (prov_fn)sig_digest_sign_final},                 \
      {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_INIT, (prov_fn)sig_digest_verify_init},               \
      {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_UPDATE, (prov_fn)sig_digest_update},                  \
      {OSSL_FUNC_SIGNATURE_DIGEST_VERIFY_FINAL, (prov_fn)sig_digest_verify_final},             \
      {OSSL_FUNC_SIGNATURE_GET_CTX_PARAMS, (prov_fn)sig_get_ctx_params},                       \
      {OSSL_FUNC_SIGNATURE_GETTABLE_CTX_PARAMS, (prov_fn)sig_gettable_ctx_params},             \
      {OSSL_FUNC_SIGNATURE_SET_CTX_PARAMS, (prov_fn)sig_set_ctx_params},                       \
      {OSSL_FUNC_SIGNATURE_SETTABLE_CTX_PARAMS, (prov_fn)sig_settable_ctx_params},             \
      {0, NULL}}
SIGNATURE_TABLE(prov_gost256_signature_fns, 256);
SIGNATURE_TABLE(prov_gost512_signature_fns, 512);
