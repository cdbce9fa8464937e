/* kuznyechik-ctr-acpkm-omac and magma-ctr-acpkm-omac as ciphers, as
 * gost-engine's provider has them for CMS content encryption
 * (gost-engine's gost_gost2015.c): K_enc || K_mac = KDF_TREE_GOSTR3411_2012_256(K,
 * "kdf tree", seed, R = 1) with an 8-byte random seed; the data go through
 * CTR-ACPKM under K_enc; the tag is OMAC under K_mac of the plaintext,
 * encrypted by the same CTR-ACPKM stream after the data.
 * Params: "kdf-seed" (8 bytes; random at encryption unless set; the
 * decryptor sets the sender's), "tag" (after an encryption's final; before
 * a decryption's final), "key-mesh" (the section: 4096 Kuznyechik, 1024
 * Magma), and gostprov's "alg_id_param" (DER SEQUENCE { OCTET STRING iv ||
 * seed }, what CMS carries; getting or setting it switches the section to
 * 256 KiB, as gost-engine does for CMS). Flagged AEAD, as gostprov's are:
 * the tag and seed travel beside the ciphertext, so `openssl enc` (which
 * would drop them and exit 0) refuses these ciphers. */
#include <string.h>
#include <sys/random.h>

#include <openssl/evp.h>

#include "prov.h"

#define SEED_LEN 8
#define CMS_SECTION (256 * 1024)

typedef struct aom_ctx {
  gostx_mode_ctx m;    /* CTR-ACPKM under K_enc (64-byte aligned: prov_alloc) */
  gostx_omac_ctx omac; /* OMAC under K_mac */
  gostx_cipher c;
  prov_keystream ks;
  int cipher_id;
  size_t n, ivlen, section;
  int enc, key_set, iv_set, seed_set, started, done, tag_set;
  uint8_t key[GOSTX_KEY_LEN], iv[GOSTX_MAX_BLOCK_LEN / 2], seed[SEED_LEN];
  uint8_t tag[GOSTX_MAX_BLOCK_LEN];
} aom_ctx;

static void *aom_newctx(int id) {
  aom_ctx *x = prov_alloc(sizeof *x);
  if (x) {
    x->cipher_id = id;
    x->n = id == GOSTX_ALG_KUZNYECHIK ? GOSTX_KUZ_BLOCK_LEN : GOSTX_MAGMA_BLOCK_LEN;
    x->ivlen = x->n / 2;
    x->section = id == GOSTX_ALG_KUZNYECHIK ? 4096 : 1024;
  }
  return x;
}
static void *kuz_aom_newctx(void *provctx) {
  (void)provctx;
  return aom_newctx(GOSTX_ALG_KUZNYECHIK);
}
static void *magma_aom_newctx(void *provctx) {
  (void)provctx;
  return aom_newctx(GOSTX_ALG_MAGMA);
}

static void aom_freectx(void *vx) { prov_free(vx, sizeof(aom_ctx)); }

static void *aom_dupctx(void *vx) { return prov_dup(vx, sizeof(aom_ctx)); }

static int aom_set_ctx_params(void *vx, const OSSL_PARAM params[]);

static int aom_init(void *vx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                    size_t ivlen, const OSSL_PARAM params[], int enc) {
  aom_ctx *x = vx;
  x->enc = enc;
  x->started = x->done = 0;
  if (!prov_check_key_iv(key, keylen, GOSTX_KEY_LEN, iv, ivlen, x->ivlen, x->iv, &x->iv_set))
    return 0;
  if (key) {
    memcpy(x->key, key, GOSTX_KEY_LEN);
    x->key_set = 1;
    /* a fresh seed for each new key, as gost-engine; the decryptor sets the sender's */
    x->seed_set = 0;
    if (enc && getrandom(x->seed, SEED_LEN, 0) != SEED_LEN) {
      prov_err(PROV_R_LIB_ERROR, "getrandom failed for the KDF seed");
      return 0;
    }
    if (!enc) memset(x->seed, 0, SEED_LEN);
  }
  return aom_set_ctx_params(x, params);
}

PROV_CIPHER_INITS(aom)

/* The keys and both streams, at the first update (the seed may come after init). */
static int aom_start(aom_ctx *x) {
  if (!x->key_set || !x->iv_set) return prov_not_started(x->key_set);
  uint8_t keys[2 * GOSTX_KEY_LEN];
  gostx_cipher mac_cipher;
  int rc = gostx_kdf_tree256(x->key, GOSTX_KEY_LEN, (const uint8_t *)"kdf tree", 8, x->seed,
                             SEED_LEN, 1, keys, sizeof keys);
  if (rc == GOSTX_OK) rc = gostx_cipher_init(&x->c, x->cipher_id, keys);
  if (rc == GOSTX_OK) rc = gostx_cipher_init(&mac_cipher, x->cipher_id, keys + GOSTX_KEY_LEN);
  if (rc == GOSTX_OK) rc = gostx_omac_init(&x->omac, &mac_cipher);
  if (rc == GOSTX_OK)
    rc = gostx_mode_init(&x->m, &x->c, GOSTX_MODE_CTR_ACPKM, 0, x->iv, x->ivlen, 0,
                         GOSTX_PAD_NONE, x->section);
  gostx_memzero(keys, sizeof keys);
  gostx_cipher_clear(&mac_cipher);
  if (rc != GOSTX_OK) return prov_lib_err(rc, "ctr-acpkm-omac init");
  prov_stream_reset(&x->ks);
  x->started = 1;
  return 1;
}

static int aom_bytes(void *vx, const uint8_t *in, uint8_t *out, size_t len) {
  aom_ctx *x = vx;
  size_t got = 0;
  int rc = gostx_mode_update(&x->m, in, len, out, &got);
  return rc == GOSTX_OK && got == len ? 1 : prov_lib_err(rc, "update");
}

static int aom_update(void *vx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl) {
  if (!prov_check_inl(inl)) return 0;
  aom_ctx *x = vx;
  if (x->done || (!x->started && !aom_start(x))) {
    if (x->done) prov_err(PROV_R_BAD_PARAM, "already finished");
    return 0;
  }
  if (!prov_check_room(outsize, inl)) return 0;
  /* the MAC is over the plaintext: before encryption, after decryption */
  int rc = x->enc ? gostx_omac_update(&x->omac, in, inl) : GOSTX_OK;
  if (rc != GOSTX_OK) return prov_lib_err(rc, "omac");
  if (!prov_stream_update(&x->ks, aom_bytes, x, in, out, inl)) return 0;
  rc = x->enc ? GOSTX_OK : gostx_omac_update(&x->omac, out, inl);
  if (rc != GOSTX_OK) return prov_lib_err(rc, "omac");
  *outl = inl;
  return 1;
}

static int aom_final(void *vx, unsigned char *out, size_t *outl, size_t outsize) {
  aom_ctx *x = vx;
  (void)out;
  (void)outsize;
  *outl = 0;
  if (x->done || (!x->started && !aom_start(x))) {
    if (x->done) prov_err(PROV_R_BAD_PARAM, "already finished");
    return 0;
  }
  if (!x->enc && !x->tag_set) {
    prov_err(PROV_R_BAD_PARAM, "no tag set for decryption");
    return 0;
  }
  x->done = 1;
  uint8_t mac[GOSTX_MAX_BLOCK_LEN], sent[GOSTX_MAX_BLOCK_LEN];
  int ok = gostx_omac_final(&x->omac, mac, x->n) == GOSTX_OK;
  if (ok && x->enc) {
    ok = prov_stream_update(&x->ks, aom_bytes, x, mac, x->tag, x->n);
  } else if (ok) {
    ok = prov_stream_update(&x->ks, aom_bytes, x, x->tag, sent, x->n);
    if (ok && gostx_memeq_ct(sent, mac, x->n) != 0) {
      prov_err(PROV_R_AUTH_FAILED, "ctr-acpkm-omac: tag mismatch");
      ok = 0;
    }
  }
  gostx_memzero(mac, sizeof mac);
  gostx_memzero(sent, sizeof sent);
  gostx_mode_clear(&x->m);
  prov_stream_reset(&x->ks);
  return ok;
}

/* DER of GOST2015 cipher params: SEQUENCE { OCTET STRING (iv || seed) } */
static size_t alg_id_der(const aom_ctx *x, uint8_t *der) {
  size_t ukm = x->ivlen + SEED_LEN;
  der[0] = 0x30, der[1] = (uint8_t)(ukm + 2), der[2] = 0x04, der[3] = (uint8_t)ukm;
  memcpy(der + 4, x->iv, x->ivlen);
  memcpy(der + 4 + x->ivlen, x->seed, SEED_LEN);
  return ukm + 4;
}

static int aom_get_ctx_params(void *vx, OSSL_PARAM params[]) {
  aom_ctx *x = vx;
  OSSL_PARAM *p;
  if (!prov_cipher_get_params(params, EVP_CIPH_CTR_MODE, GOSTX_KEY_LEN, x->ivlen, 1, 1, 1))
    return 0;
  if ((p = OSSL_PARAM_locate(params, "kdf-seed")) &&
      !OSSL_PARAM_set_octet_string(p, x->seed, SEED_LEN))
    return 0;
  if ((p = OSSL_PARAM_locate(params, "key-mesh")) && !OSSL_PARAM_set_size_t(p, x->section))
    return 0;
  if ((p = OSSL_PARAM_locate(params, "alg_id_param"))) {
    uint8_t der[4 + GOSTX_MAX_BLOCK_LEN / 2 + SEED_LEN];
    if (!OSSL_PARAM_set_octet_string(p, der, alg_id_der(x, der))) return 0;
    if (!x->started) x->section = CMS_SECTION;
  }
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG))) {
    if (!x->enc || !x->done || p->data_size != x->n) {
      prov_err(PROV_R_BAD_PARAM, "the %zu-byte tag is there after an encryption's final", x->n);
      return 0;
    }
    if (!OSSL_PARAM_set_octet_string(p, x->tag, x->n)) return 0;
  }
  return 1;
}

static int aom_set_ctx_params(void *vx, const OSSL_PARAM params[]) {
  aom_ctx *x = vx;
  const OSSL_PARAM *p;
  if (!params) return 1;
  if (!prov_cipher_set_common(params, GOSTX_KEY_LEN, x->ivlen, NULL)) return 0;
  const int late = x->started;
  if ((p = OSSL_PARAM_locate_const(params, "kdf-seed"))) {
    const void *v;
    size_t len;
    if (late || !OSSL_PARAM_get_octet_string_ptr(p, &v, &len) || len != SEED_LEN) {
      prov_err(PROV_R_BAD_PARAM, "kdf-seed: %d bytes, before the first update", SEED_LEN);
      return 0;
    }
    memcpy(x->seed, v, SEED_LEN);
    x->seed_set = 1;
  }
  if ((p = OSSL_PARAM_locate_const(params, "alg_id_param"))) {
    const uint8_t *der;
    size_t len, ukm = x->ivlen + SEED_LEN;
    if (late || !OSSL_PARAM_get_octet_string_ptr(p, (const void **)&der, &len) ||
        len != ukm + 4 || der[0] != 0x30 || der[1] != ukm + 2 || der[2] != 0x04 ||
        der[3] != ukm) {
      prov_err(PROV_R_BAD_PARAM, "alg_id_param: SEQUENCE { OCTET STRING of %zu bytes }", ukm);
      return 0;
    }
    memcpy(x->iv, der + 4, x->ivlen);
    memcpy(x->seed, der + 4 + x->ivlen, SEED_LEN);
    x->iv_set = x->seed_set = 1;
    x->section = CMS_SECTION;
  }
  if ((p = OSSL_PARAM_locate_const(params, "key-mesh"))) {
    size_t s;
    if (late || !OSSL_PARAM_get_size_t(p, &s) || s == 0 || s % x->n) {
      prov_err(PROV_R_BAD_PARAM, "key-mesh: a positive multiple of %zu, before the first update",
               x->n);
      return 0;
    }
    x->section = s;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TAG))) {
    if (x->enc || !p->data || p->data_size != x->n) {
      prov_err(PROV_R_BAD_PARAM, "tag: the sender's %zu bytes, for decryption", x->n);
      return 0;
    }
    memcpy(x->tag, p->data, x->n);
    x->tag_set = 1;
  }
  return 1;
}

static int kuz_aom_get_params(OSSL_PARAM params[]) {
  return prov_cipher_get_params(params, EVP_CIPH_CTR_MODE, GOSTX_KEY_LEN, 8, 1, 1, 1);
}
static int magma_aom_get_params(OSSL_PARAM params[]) {
  return prov_cipher_get_params(params, EVP_CIPH_CTR_MODE, GOSTX_KEY_LEN, 4, 1, 1, 1);
}

/* the same params both ways */
static PROV_CTX_PARAMS(aom_gettable_ctx_params,
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_octet_string("kdf-seed", NULL, 0),
    OSSL_PARAM_octet_string("alg_id_param", NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t("key-mesh", NULL))
#define aom_settable_ctx_params aom_gettable_ctx_params

PROV_CIPHER_TABLE(prov_kuz_ctr_acpkm_omac_fns, kuz_aom, aom);
PROV_CIPHER_TABLE(prov_magma_ctr_acpkm_omac_fns, magma_aom, aom);
