/* GOST 28147-89 as gostprov registers it: "gost89" (CFB), "gost89-cnt"
 * (counter gamma, CryptoPro-A), "gost89-cnt-12" (counter gamma, TC26-Z) and
 * "gost89-cbc". As gost-engine does: CFB and CNT mesh the key every 1024
 * bytes (CryptoPro key meshing), CBC does not mesh and pads PKCS#7
 * ("padding" 0 turns that off). CFB and CBC take their S-box set from the
 * environment variable CRYPT_PARAMS when a key is set (a dotted OID or an
 * ASN.1 name, e.g. 1.2.643.2.2.31.1 or id-Gost28147-89-CryptoPro-A-ParamSet;
 * unset or empty: TC26-Z), as gostprov does; the CNT pair has fixed sets.
 * CFB/CNT run on the library's streaming gamma (gostx_gost89_*), CBC on its
 * GOST R 34.13 CBC context over GOST 28147-89 as a cipher handle
 * (gostx_cipher_init_gost89); the padding stays here, as OpenSSL's. */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "prov.h"

#define G89_BLOCK 8

typedef struct g89_desc {
  int mode; /* GOSTX_GOST89_CFB, GOSTX_GOST89_CNT, or 0 for CBC */
  int sbox; /* a gostx_sbox, or -1: the one CRYPT_PARAMS names */
  unsigned evp_mode;
  size_t blocksize;
} g89_desc;

typedef struct g89_ctx {
  gostx_gost89_ctx s;   /* CFB/CNT stream */
  gostx_gost89_key key; /* CFB/CNT */
  gostx_cipher c;       /* CBC */
  gostx_mode_ctx cbc;   /* CBC chain, whole blocks, no padding of its own */
  const g89_desc *d;
  int enc, key_set, iv_set, started, padding;
  uint8_t iv[G89_BLOCK];
  prov_blockbuf pending; /* CBC input short of a block */
  prov_keystream ks;      /* CNT: keystream made ahead for short updates */
} g89_ctx;

static void *g89_newctx(const g89_desc *d) {
  g89_ctx *x = prov_alloc(sizeof *x);
  if (x) {
    x->d = d;
    x->padding = 1;
  }
  return x;
}

static void g89_freectx(void *vx) { prov_free(vx, sizeof(g89_ctx)); }

static void *g89_dupctx(void *vx) { return prov_dup(vx, sizeof(g89_ctx)); }

static int g89_start(g89_ctx *x) {
  x->started = 0;
  x->pending.len = 0;
  prov_stream_reset(&x->ks);
  if (!x->key_set || !x->iv_set) return 1;
  if (x->d->mode) {
    int rc = gostx_gost89_init(&x->s, &x->key, x->d->mode, !x->enc, x->iv, 1);
    if (rc != GOSTX_OK) return prov_lib_err(rc, "gost89 init");
  } else {
    int rc = gostx_mode_init(&x->cbc, &x->c, GOSTX_MODE_CBC, !x->enc, x->iv, G89_BLOCK, 0,
                             GOSTX_PAD_NONE, 0);
    if (rc != GOSTX_OK) return prov_lib_err(rc, "cbc init");
  }
  x->started = 1;
  return 1;
}

/* The S-box set CRYPT_PARAMS names (gostprov reads the same variable), or
 * TC26-Z, gostprov's default; -1 with an error for a name we do not know. */
static int crypt_params_sbox(void) {
  const char *name = getenv("CRYPT_PARAMS");
  if (!name || !*name) return GOSTX_SBOX_TC26_Z;
  int sbox = gostx_sbox_by_name(name);
  if (sbox < 0)
    prov_err(PROV_R_BAD_PARAM, "unknown GOST 28147-89 parameter set CRYPT_PARAMS='%s'",
             name);
  return sbox;
}

static int g89_set_ctx_params(void *vx, const OSSL_PARAM params[]) {
  g89_ctx *x = vx;
  return prov_cipher_set_common(params, GOSTX_KEY_LEN, G89_BLOCK, x->d->mode ? NULL : &x->padding);
}

static int g89_init(void *vx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                    size_t ivlen, const OSSL_PARAM params[], int enc) {
  g89_ctx *x = vx;
  x->enc = enc;
  if (!g89_set_ctx_params(x, params)) return 0;
  if (!prov_check_key_iv(key, keylen, GOSTX_KEY_LEN, iv, ivlen, G89_BLOCK, x->iv, &x->iv_set))
    return 0;
  if (key) {
    int sbox = x->d->sbox >= 0 ? x->d->sbox : crypt_params_sbox();
    if (sbox < 0) return 0;
    int rc = x->d->mode ? gostx_gost89_set_key(&x->key, key, sbox)
                        : gostx_cipher_init_gost89(&x->c, key, sbox);
    if (rc != GOSTX_OK) return prov_lib_err(rc, "key");
    x->key_set = 1;
  }
  return g89_start(x);
}

PROV_CIPHER_INITS(g89)

/* CBC over whole blocks: the library's chain. */
static int cbc_blocks(void *vx, const uint8_t *in, uint8_t *out, size_t len) {
  g89_ctx *x = vx;
  size_t done;
  int rc = gostx_mode_update(&x->cbc, in, len, out, &done);
  return rc == GOSTX_OK && done == len ? 1 : prov_lib_err(rc ? rc : GOSTX_ESTATE, "cbc");
}

/* CFB and CNT bytes through the library's streaming context. */
static int g89_bytes(void *vx, const uint8_t *in, uint8_t *out, size_t len) {
  g89_ctx *x = vx;
  int rc = gostx_gost89_update(&x->s, in, len, out);
  return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "update");
}

static int g89_update(void *vx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl) {
  if (!prov_check_inl(inl)) return 0;
  g89_ctx *x = vx;
  if (!x->started) return prov_not_started(x->key_set);
  if (!x->d->mode)
    return prov_block_update(&x->pending, G89_BLOCK, x->enc, x->padding, cbc_blocks, x, out,
                             outl, outsize, in, inl);
  if (!prov_check_room(outsize, inl)) return 0;
  int ok = x->d->mode == GOSTX_GOST89_CNT ? prov_stream_update(&x->ks, g89_bytes, x, in, out, inl)
                                          : g89_bytes(x, in, out, inl);
  if (!ok) return 0;
  *outl = inl;
  return 1;
}

static int g89_final(void *vx, unsigned char *out, size_t *outl, size_t outsize) {
  g89_ctx *x = vx;
  *outl = 0;
  if (!x->started) return prov_not_started(x->key_set);
  if (x->d->mode) return 1;
  return prov_block_final(&x->pending, G89_BLOCK, x->enc, x->padding, cbc_blocks, x, out, outl,
                          outsize);
}

static int g89_get_ctx_params(void *vx, OSSL_PARAM params[]) {
  g89_ctx *x = vx;
  OSSL_PARAM *p;
  if (!prov_cipher_get_params(params, x->d->evp_mode, GOSTX_KEY_LEN, G89_BLOCK, x->d->blocksize,
                              0, 1))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_PADDING)) &&
      !OSSL_PARAM_set_uint(p, (unsigned)x->padding))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) &&
      !OSSL_PARAM_set_octet_string(p, x->iv, G89_BLOCK))
    return 0;
  return 1;
}

#define g89_gettable_ctx_params prov_cipher_gettable_ctx_params

static PROV_CTX_PARAMS(g89_settable_ctx_params,
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL))

#define G89_CIPHER(name, mode, sbox, evp_mode, bs)                                               \
  static const g89_desc name##_desc = {mode, sbox, evp_mode, bs};                                \
  static void *name##_newctx(void *provctx) {                                                    \
    (void)provctx;                                                                               \
    return g89_newctx(&name##_desc);                                                             \
  }                                                                                              \
  static int name##_get_params(OSSL_PARAM params[]) {                                            \
    return prov_cipher_get_params(params, evp_mode, GOSTX_KEY_LEN, G89_BLOCK, bs, 0, 1);         \
  }                                                                                              \
  PROV_CIPHER_TABLE(prov_##name##_fns, name, g89);

G89_CIPHER(gost89_cfb, GOSTX_GOST89_CFB, -1, EVP_CIPH_CFB_MODE, 1)
G89_CIPHER(gost89_cnt, GOSTX_GOST89_CNT, GOSTX_SBOX_CRYPTOPRO_A, EVP_CIPH_OFB_MODE, 1)
G89_CIPHER(gost89_cnt12, GOSTX_GOST89_CNT, GOSTX_SBOX_TC26_Z, EVP_CIPH_OFB_MODE, 1)
G89_CIPHER(gost89_cbc, 0, -1, EVP_CIPH_CBC_MODE, 8)
