/* "kuznyechik-xts": Kuznyechik in IEEE 1619 XTS with ciphertext stealing
 * (gostprov has no XTS; the name follows OpenSSL's aes-256-xts). As
 * OpenSSL's XTS: a 64-byte key (data key || tweak key, the halves must
 * differ), the 16-byte IV is the tweak, and every update is one whole data
 * unit of at least 16 bytes encrypted under that tweak. */
#include <string.h>

#include <openssl/evp.h>

#include "prov.h"

#define XTS_IV_LEN 16

typedef struct xts_ctx {
  gostx_xts_key key; /* 64-byte aligned: prov_alloc */
  int enc, key_set, iv_set;
  uint8_t tweak[XTS_IV_LEN];
} xts_ctx;

static void *xts_newctx(void *provctx) {
  (void)provctx;
  return prov_alloc(sizeof(xts_ctx));
}

static void xts_freectx(void *vx) { prov_free(vx, sizeof(xts_ctx)); }

static void *xts_dupctx(void *vx) { return prov_dup(vx, sizeof(xts_ctx)); }

static int xts_init(void *vx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                    size_t ivlen, const OSSL_PARAM params[], int enc) {
  xts_ctx *x = vx;
  (void)params;
  x->enc = enc;
  if (!prov_check_key_iv(key, keylen, GOSTX_XTS_KEY_LEN, iv, ivlen, XTS_IV_LEN, x->tweak,
                         &x->iv_set))
    return 0;
  if (key) {
    int rc = gostx_xts_set_key(&x->key, key);
    if (rc != GOSTX_OK) return prov_lib_err(rc, "xts key (the two halves must differ)");
    x->key_set = 1;
  }
  return 1;
}

PROV_CIPHER_INITS(xts)

static int xts_update(void *vx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl) {
  if (!prov_check_inl(inl)) return 0;
  xts_ctx *x = vx;
  if (!x->key_set || !x->iv_set) {
    prov_err(PROV_R_NO_KEY, x->key_set ? "no tweak (iv) set" : "no key set");
    return 0;
  }
  if (inl < 16 || outsize < inl) {
    prov_err(inl < 16 ? PROV_R_BAD_LEN : PROV_R_BUFFER_TOO_SMALL,
             "an XTS data unit is one update of at least 16 bytes (got %zu)", inl);
    return 0;
  }
  int rc = x->enc ? gostx_xts_encrypt(&x->key, x->tweak, in, inl, out)
                  : gostx_xts_decrypt(&x->key, x->tweak, in, inl, out);
  if (rc != GOSTX_OK) return prov_lib_err(rc, "xts");
  *outl = inl;
  return 1;
}

static int xts_final(void *vx, unsigned char *out, size_t *outl, size_t outsize) {
  (void)vx;
  (void)out;
  (void)outsize;
  *outl = 0;
  return 1;
}

static int xts_get_params(OSSL_PARAM params[]) {
  return prov_cipher_get_params(params, EVP_CIPH_XTS_MODE, GOSTX_XTS_KEY_LEN, XTS_IV_LEN, 1, 0, 1);
}

static int xts_get_ctx_params(void *vx, OSSL_PARAM params[]) {
  xts_ctx *x = vx;
  OSSL_PARAM *p;
  if (!xts_get_params(params)) return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) &&
      !OSSL_PARAM_set_octet_string(p, x->tweak, XTS_IV_LEN))
    return 0;
  return 1;
}

static int xts_set_ctx_params(void *vx, const OSSL_PARAM params[]) {
  (void)vx;
  return prov_cipher_set_common(params, GOSTX_XTS_KEY_LEN, XTS_IV_LEN, NULL);
}

static PROV_CTX_PARAMS(xts_gettable_ctx_params,
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0))

static PROV_CTX_PARAMS(xts_settable_ctx_params,
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL))

#define kuz_xts_newctx xts_newctx
#define kuz_xts_get_params xts_get_params
PROV_CIPHER_TABLE(prov_kuz_xts_fns, kuz_xts, xts);
