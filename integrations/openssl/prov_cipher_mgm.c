/* kuznyechik-mgm and magma-mgm (RFC 9058) as EVP AEAD ciphers, through the
 * standard params: "ivlen" (the nonce is one block: 16 or 8 bytes), "tag"
 * and "taglen" (4..n bytes; n by default). AAD goes in by update with out ==
 * NULL, before the data. As with AES-GCM under EVP, decryption releases
 * plaintext from update before final has checked the tag: final fails on a
 * wrong tag and the caller must then discard what update gave. As AES-GCM,
 * after an encryption's final a new nonce must be given before the next
 * encryption (decryption may follow without one). gost-engine's TLS 1.3
 * "tlstree" param (RFC 9367 per-record keys) is not implemented: it is
 * refused, since ignoring it would give a TLS caller the wrong record. */
#include <string.h>

#include <openssl/evp.h>

#include "prov.h"

typedef struct mgm_ctx {
  gostx_mgm_ctx m; /* holds a copy of the cipher (64-byte aligned: prov_alloc) */
  gostx_cipher c;
  int cipher_id;
  size_t n, taglen;
  int enc, key_set, iv_set, started, tag_set, done;
  int nonce_used; /* an encryption under this nonce ended: no more until a new one */
  uint8_t nonce[GOSTX_MAX_BLOCK_LEN];
  uint8_t tag[GOSTX_MAX_BLOCK_LEN];
} mgm_ctx;

static void *mgm_newctx(int id) {
  mgm_ctx *x = prov_alloc(sizeof *x);
  if (x) {
    x->cipher_id = id;
    x->n = id == GOSTX_ALG_KUZNYECHIK ? GOSTX_KUZ_BLOCK_LEN : GOSTX_MAGMA_BLOCK_LEN;
    x->taglen = x->n;
  }
  return x;
}
static void *kuz_mgm_newctx(void *provctx) {
  (void)provctx;
  return mgm_newctx(GOSTX_ALG_KUZNYECHIK);
}
static void *magma_mgm_newctx(void *provctx) {
  (void)provctx;
  return mgm_newctx(GOSTX_ALG_MAGMA);
}

static void mgm_freectx(void *vx) { prov_free(vx, sizeof(mgm_ctx)); }

static void *mgm_dupctx(void *vx) { return prov_dup(vx, sizeof(mgm_ctx)); }

static int mgm_start(mgm_ctx *x) {
  x->started = x->done = 0;
  if (!x->key_set || !x->iv_set || (x->enc && x->nonce_used)) return 1;
  int rc = gostx_mgm_init(&x->m, &x->c, !x->enc, x->nonce, x->n);
  if (rc != GOSTX_OK) return prov_lib_err(rc, "mgm init (the nonce's top bit must be 0)");
  x->started = 1;
  return 1;
}

static int mgm_set_ctx_params(void *vx, const OSSL_PARAM params[]);

static int mgm_init(void *vx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                    size_t ivlen, const OSSL_PARAM params[], int enc) {
  mgm_ctx *x = vx;
  x->enc = enc;
  if (!mgm_set_ctx_params(x, params)) return 0;
  if (!prov_check_key_iv(key, keylen, GOSTX_KEY_LEN, iv, ivlen, x->n, x->nonce, &x->iv_set))
    return 0;
  if (iv) x->nonce_used = 0;
  if (key) {
    int rc = gostx_cipher_init(&x->c, x->cipher_id, key);
    if (rc != GOSTX_OK) return prov_lib_err(rc, "key");
    x->key_set = 1;
  }
  return mgm_start(x);
}

PROV_CIPHER_INITS(mgm)

static int mgm_update(void *vx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl) {
  if (!prov_check_inl(inl)) return 0;
  mgm_ctx *x = vx;
  if (!x->started || x->done) {
    prov_err(PROV_R_NO_KEY, !x->key_set ? "no key set" : !x->iv_set ? "no nonce set"
                                                                      : "already finished");
    return 0;
  }
  int rc;
  if (!out) { /* AAD */
    rc = gostx_mgm_aad(&x->m, in, inl);
    *outl = inl;
  } else {
    if (!prov_check_room(outsize, inl)) return 0;
    rc = gostx_mgm_update(&x->m, in, inl, out);
    *outl = inl;
  }
  return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "mgm update");
}

static int mgm_final(void *vx, unsigned char *out, size_t *outl, size_t outsize) {
  mgm_ctx *x = vx;
  (void)out;
  (void)outsize;
  *outl = 0;
  if (!x->started && x->enc && x->nonce_used) {
    prov_err(PROV_R_NONCE_REUSE, "give a new nonce (IV) before encrypting again");
    return 0;
  }
  if (!x->started || x->done) {
    prov_err(PROV_R_NO_KEY, "no key or nonce set, or already finished");
    return 0;
  }
  x->done = 1;
  int rc;
  if (x->enc) {
    rc = gostx_mgm_final_encrypt(&x->m, x->tag, x->n);
    x->nonce_used = 1;
    if (rc == GOSTX_OK) x->tag_set = 1;
  } else {
    if (!x->tag_set) {
      gostx_mgm_clear(&x->m);
      prov_err(PROV_R_BAD_PARAM, "no tag set for decryption");
      return 0;
    }
    rc = gostx_mgm_final_decrypt(&x->m, x->tag, x->taglen);
  }
  return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "mgm final");
}

static int mgm_get_ctx_params(void *vx, OSSL_PARAM params[]) {
  mgm_ctx *x = vx;
  OSSL_PARAM *p;
  if (!prov_cipher_get_params(params, 0, GOSTX_KEY_LEN, x->n, 1, 1, 1)) return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) &&
      !OSSL_PARAM_set_size_t(p, x->taglen))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) &&
      !OSSL_PARAM_set_octet_string(p, x->nonce, x->n))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG))) {
    if (!x->enc || !x->done || !x->tag_set) {
      prov_err(PROV_R_BAD_PARAM, "the tag is there after an encryption's final");
      return 0;
    }
    if (p->data_size < 4 || p->data_size > x->n) {
      prov_err(PROV_R_BAD_PARAM, "tag length %zu: must be 4..%zu", p->data_size, x->n);
      return 0;
    }
    if (!OSSL_PARAM_set_octet_string(p, x->tag, p->data_size)) return 0;
  }
  return 1;
}

static int mgm_set_ctx_params(void *vx, const OSSL_PARAM params[]) {
  mgm_ctx *x = vx;
  const OSSL_PARAM *p;
  if (!params) return 1;
  if (OSSL_PARAM_locate_const(params, "tlstree") ||
      OSSL_PARAM_locate_const(params, "tlstree_mode")) {
    prov_err(PROV_R_UNSUPPORTED,
             "tlstree: TLSTREE record keys (RFC 9367) are not implemented in gostx");
    return 0;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_IVLEN))) {
    size_t len;
    if (!OSSL_PARAM_get_size_t(p, &len)) return 0;
    if (len != x->n) {
      prov_err(PROV_R_BAD_IV_LEN, "MGM nonce is one block: %zu bytes, not %zu", x->n, len);
      return 0;
    }
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TAG))) {
    /* encryption: a length only (data NULL); decryption: the expected tag */
    if (p->data_size < 4 || p->data_size > x->n) {
      prov_err(PROV_R_BAD_PARAM, "tag length %zu: must be 4..%zu", p->data_size, x->n);
      return 0;
    }
    if (p->data) {
      if (x->enc) {
        prov_err(PROV_R_BAD_PARAM, "a tag is set for decryption only");
        return 0;
      }
      memcpy(x->tag, p->data, p->data_size);
      x->tag_set = 1;
    }
    x->taglen = p->data_size;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN))) {
    size_t kl;
    if (!OSSL_PARAM_get_size_t(p, &kl) || kl != GOSTX_KEY_LEN) {
      prov_err(PROV_R_BAD_KEY_LEN, "key length is fixed at %d bytes", GOSTX_KEY_LEN);
      return 0;
    }
  }
  return 1;
}

static int mgm_get_params_kuz(OSSL_PARAM params[]) {
  return prov_cipher_get_params(params, 0, GOSTX_KEY_LEN, GOSTX_KUZ_BLOCK_LEN, 1, 1, 1);
}
static int mgm_get_params_magma(OSSL_PARAM params[]) {
  return prov_cipher_get_params(params, 0, GOSTX_KEY_LEN, GOSTX_MAGMA_BLOCK_LEN, 1, 1, 1);
}

static PROV_CTX_PARAMS(mgm_gettable_ctx_params,
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0))

static PROV_CTX_PARAMS(mgm_settable_ctx_params,
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL))

#define kuz_mgm_get_params mgm_get_params_kuz
#define magma_mgm_get_params mgm_get_params_magma
PROV_CIPHER_TABLE(prov_kuz_mgm_fns, kuz_mgm, mgm);
PROV_CIPHER_TABLE(prov_magma_mgm_fns, magma_mgm, mgm);
