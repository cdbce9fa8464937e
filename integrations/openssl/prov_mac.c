/* MACs with gostprov's names: kuznyechik-mac and magma-mac (OMAC, GOST R
 * 34.13-2015), gost-mac and gost-mac-12 (GOST 28147-89 IMIT, CryptoPro-A and
 * TC26-Z, key meshing, 4-byte default), and OMAC-ACPKM (RFC 8645)
 * kuznyechik-ctr-acpkm-omac and magma-ctr-acpkm-omac. Params as gostprov's:
 * "key", "size"; OMAC-ACPKM also "key-mesh" (section N, 4096 by default) and
 * "cipher-key-mesh" (the master stream's section T*, gost-engine's CTR-ACPKM
 * default: 4096 Kuznyechik, 1024 Magma). Set after EVP_MAC_init, before
 * any data, the sections restart the MAC; after data they are refused. */
#include <string.h>

#include "prov.h"

enum { MAC_OMAC, MAC_OMAC_ACPKM, MAC_IMIT };

typedef struct mac_desc {
  int kind, cipher_id, sbox;
  size_t n;           /* block length = full MAC length */
  size_t size;        /* default output length */
  size_t section, master_section;
} mac_desc;

typedef struct mac_ctx {
  gostx_omac_ctx omac; /* OMAC, OMAC-ACPKM (64-byte aligned: prov_alloc) */
  gostx_gost89_ctx imit;
  gostx_cipher c;
  const mac_desc *d;
  size_t size, section, master_section;
  uint8_t key[GOSTX_KEY_LEN];
  int key_set, started, fed; /* fed: data went in since the MAC started */
} mac_ctx;

static void *mac_newctx(const mac_desc *d) {
  mac_ctx *x = prov_alloc(sizeof *x);
  if (x) {
    x->d = d;
    x->size = d->size;
    x->section = d->section;
    x->master_section = d->master_section;
  }
  return x;
}

static void mac_freectx(void *vx) { prov_free(vx, sizeof(mac_ctx)); }

static void *mac_dupctx(void *vx) { return prov_dup(vx, sizeof(mac_ctx)); }

static int mac_start(mac_ctx *x) {
  int rc;
  x->started = x->fed = 0;
  if (!x->key_set) return 1;
  switch (x->d->kind) {
    case MAC_IMIT: {
      gostx_gost89_key k;
      rc = gostx_gost89_set_key(&k, x->key, x->d->sbox);
      if (rc == GOSTX_OK) rc = gostx_gost89_imit_init(&x->imit, &k, NULL, 1);
      gostx_gost89_clear(&k);
      break;
    }
    case MAC_OMAC:
      rc = gostx_cipher_init(&x->c, x->d->cipher_id, x->key);
      if (rc == GOSTX_OK) rc = gostx_omac_init(&x->omac, &x->c);
      break;
    default:
      rc = gostx_cipher_init(&x->c, x->d->cipher_id, x->key);
      if (rc == GOSTX_OK)
        rc = gostx_omac_acpkm_init(&x->omac, &x->c, x->section, x->master_section);
      break;
  }
  if (rc != GOSTX_OK) return prov_lib_err(rc, "mac init");
  x->started = 1;
  return 1;
}

static int mac_set_key(mac_ctx *x, const unsigned char *key, size_t keylen) {
  if (keylen != GOSTX_KEY_LEN) {
    prov_err(PROV_R_BAD_KEY_LEN, "key is %zu bytes, must be %d", keylen, GOSTX_KEY_LEN);
    return 0;
  }
  memcpy(x->key, key, GOSTX_KEY_LEN);
  x->key_set = 1;
  return 1;
}

static int mac_set_ctx_params(void *vx, const OSSL_PARAM params[]) {
  mac_ctx *x = vx;
  const OSSL_PARAM *p;
  if (!params) return 1;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_SIZE))) {
    size_t s;
    if (!OSSL_PARAM_get_size_t(p, &s)) return 0;
    if (s < 1 || s > x->d->n) {
      prov_err(PROV_R_BAD_PARAM, "size %zu: must be 1..%zu", s, x->d->n);
      return 0;
    }
    x->size = s;
  }
  if (x->d->kind == MAC_OMAC_ACPKM) {
    const OSSL_PARAM *mesh = OSSL_PARAM_locate_const(params, "key-mesh");
    const OSSL_PARAM *master = OSSL_PARAM_locate_const(params, "cipher-key-mesh");
    if ((mesh || master) && x->started && x->fed) {
      prov_err(PROV_R_BAD_PARAM, "key-mesh, cipher-key-mesh: set them before the first update");
      return 0;
    }
    if (!prov_section_param(mesh, "key-mesh", x->d->n, 1, "", &x->section) ||
        !prov_section_param(master, "cipher-key-mesh", x->d->n, 1, "", &x->master_section))
      return 0;
    /* after init: the MAC restarts under the new sections (a key given
     * below restarts it anyway) */
    if ((mesh || master) && x->started && !OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_KEY) &&
        !mac_start(x))
      return 0;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_KEY))) {
    const void *key;
    size_t keylen;
    if (!OSSL_PARAM_get_octet_string_ptr(p, &key, &keylen) || !mac_set_key(x, key, keylen))
      return 0;
    return mac_start(x);
  }
  return 1;
}

static int mac_init(void *vx, const unsigned char *key, size_t keylen,
                    const OSSL_PARAM params[]) {
  mac_ctx *x = vx;
  if (!mac_set_ctx_params(x, params)) return 0;
  if (key && !mac_set_key(x, key, keylen)) return 0;
  if (!mac_start(x)) return 0;
  if (!x->started) {
    prov_err(PROV_R_NO_KEY, "no key set");
    return 0;
  }
  return 1;
}

static int mac_update(void *vx, const unsigned char *in, size_t inl) {
  mac_ctx *x = vx;
  if (!x->started) {
    prov_err(PROV_R_NO_KEY, "no key set");
    return 0;
  }
  x->fed = 1;
  int rc = x->d->kind == MAC_IMIT ? gostx_gost89_imit_update(&x->imit, in, inl)
                                  : gostx_omac_update(&x->omac, in, inl);
  return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "mac update");
}

static int mac_final(void *vx, unsigned char *out, size_t *outl, size_t outsize) {
  mac_ctx *x = vx;
  if (!x->started) {
    prov_err(PROV_R_NO_KEY, "no key set");
    return 0;
  }
  if (outsize < x->size) {
    prov_err(PROV_R_BUFFER_TOO_SMALL, "mac needs %zu bytes", x->size);
    return 0;
  }
  int rc = x->d->kind == MAC_IMIT ? gostx_gost89_imit_final(&x->imit, out, x->size)
                                  : gostx_omac_final(&x->omac, out, x->size);
  x->started = 0;
  if (rc != GOSTX_OK) return prov_lib_err(rc, "mac final");
  *outl = x->size;
  return 1;
}

static int mac_get_ctx_params(void *vx, OSSL_PARAM params[]) {
  mac_ctx *x = vx;
  OSSL_PARAM *p;
  if ((p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_SIZE)) && !OSSL_PARAM_set_size_t(p, x->size))
    return 0;
  if ((p = OSSL_PARAM_locate(params, "keylen")) && !OSSL_PARAM_set_size_t(p, GOSTX_KEY_LEN))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_BLOCK_SIZE)) &&
      !OSSL_PARAM_set_size_t(p, x->d->n))
    return 0;
  return 1;
}

static PROV_CTX_PARAMS(mac_gettable_ctx_params,
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, NULL),
    OSSL_PARAM_size_t("keylen", NULL),
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_BLOCK_SIZE, NULL))

static PROV_CTX_PARAMS(mac_settable_ctx_params,
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, NULL),
    OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, NULL, 0),
    OSSL_PARAM_size_t("key-mesh", NULL),
    OSSL_PARAM_size_t("cipher-key-mesh", NULL))

#define GOSTX_MAC(name, kind, id, sbox, n, size, section, master)                                \
  static const mac_desc name##_desc = {kind, id, sbox, n, size, section, master};                \
  static void *name##_newctx(void *provctx) {                                                    \
    (void)provctx;                                                                               \
    return mac_newctx(&name##_desc);                                                             \
  }                                                                                              \
  static const OSSL_DISPATCH name##_fns[] = {                                                    \
      {OSSL_FUNC_MAC_NEWCTX, (prov_fn)name##_newctx},                                            \
      {OSSL_FUNC_MAC_FREECTX, (prov_fn)mac_freectx},                                             \
      {OSSL_FUNC_MAC_DUPCTX, (prov_fn)mac_dupctx},                                               \
      {OSSL_FUNC_MAC_INIT, (prov_fn)mac_init},                                                   \
      {OSSL_FUNC_MAC_UPDATE, (prov_fn)mac_update},                                               \
      {OSSL_FUNC_MAC_FINAL, (prov_fn)mac_final},                                                 \
      {OSSL_FUNC_MAC_GET_CTX_PARAMS, (prov_fn)mac_get_ctx_params},                               \
      {OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, (prov_fn)mac_gettable_ctx_params},                     \
      {OSSL_FUNC_MAC_SET_CTX_PARAMS, (prov_fn)mac_set_ctx_params},                               \
      {OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS, (prov_fn)mac_settable_ctx_params},                     \
      {0, NULL}};

#define KUZ GOSTX_ALG_KUZNYECHIK
#define MAG GOSTX_ALG_MAGMA
GOSTX_MAC(kuz_mac, MAC_OMAC, KUZ, 0, 16, 16, 0, 0)
GOSTX_MAC(magma_mac, MAC_OMAC, MAG, 0, 8, 8, 0, 0)
GOSTX_MAC(gost_mac, MAC_IMIT, 0, GOSTX_SBOX_CRYPTOPRO_A, 8, 4, 0, 0)
GOSTX_MAC(gost_mac_12, MAC_IMIT, 0, GOSTX_SBOX_TC26_Z, 8, 4, 0, 0)
GOSTX_MAC(kuz_acpkm_omac, MAC_OMAC_ACPKM, KUZ, 0, 16, 16, 4096, 4096)
GOSTX_MAC(magma_acpkm_omac, MAC_OMAC_ACPKM, MAG, 0, 8, 8, 4096, 1024)

const OSSL_ALGORITHM prov_macs[] = {
    {"gost-mac:1.2.643.2.2.22", PROV_PROPS, gost_mac_fns,
     "GOST 28147-89 MAC, CryptoPro-A, key meshing (libgostx)"},
    {"gost-mac-12", PROV_PROPS, gost_mac_12_fns, "GOST 28147-89 MAC, TC26-Z (libgostx)"},
    {"magma-mac", PROV_PROPS, magma_mac_fns, "Magma OMAC (libgostx)"},
    {"kuznyechik-mac", PROV_PROPS, kuz_mac_fns, "Kuznyechik OMAC (libgostx)"},
    {"kuznyechik-ctr-acpkm-omac:1.2.643.7.1.1.5.2.2", PROV_PROPS, kuz_acpkm_omac_fns,
     "Kuznyechik OMAC-ACPKM (libgostx)"},
    {"magma-ctr-acpkm-omac:1.2.643.7.1.1.5.1.2", PROV_PROPS, magma_acpkm_omac_fns,
     "Magma OMAC-ACPKM (libgostx)"},
    {NULL, NULL, NULL, NULL},
};
