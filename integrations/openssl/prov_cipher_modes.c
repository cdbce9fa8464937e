/* Kuznyechik and Magma in the GOST R 34.13-2015 modes (ECB, CBC, CFB, OFB,
 * CTR) and CTR-ACPKM, as EVP ciphers. The data goes through libgostx's
 * streaming context (gostx_mode_*), whose cores run the vector code on
 * every update of more than a few blocks. Parameters are gostprov's: IV
 * lengths n (CBC/CFB/OFB) and n/2 (CTR, CTR-ACPKM), PKCS#7 padding for
 * ECB/CBC (OpenSSL's, switchable with "padding"), "key-mesh" for the ACPKM
 * section size (4096 bytes Kuznyechik, 1024 Magma by default, as
 * gost-engine). ECB and CTR take the opt-in param "threads" (1 = the
 * worker pool for updates of 64 KiB and more; CTR then runs on the
 * library's counter-at-block-k call instead of the streaming context).
 * The CTR ciphers also take gostprov's "alg_id_param" (OpenSSL's
 * OSSL_CIPHER_PARAM_ALGORITHM_ID_PARAMS, what CMS carries): the DER of
 * GOST2015 cipher params, SEQUENCE { OCTET STRING iv || kdf seed (8) }; as
 * gost-engine, getting or setting it (CMS) makes the ACPKM section 256 KiB,
 * and setting it gives the IV. The seed is only carried here (zero unless
 * set): these ciphers derive no key from it. */
#include <string.h>

#include <openssl/evp.h>

#include "prov.h"

typedef struct modes_desc {
  int cipher_id;   /* GOSTX_CIPHER_* */
  int mode;        /* GOSTX_MODE_* */
  unsigned evp_mode;
  size_t ivlen;    /* EVP IV length */
  size_t blocksize;/* EVP block size: n for ECB/CBC, 1 for the stream modes */
  size_t section;  /* CTR-ACPKM default section (gost-engine's) */
} modes_desc;

typedef struct modes_ctx {
  gostx_cipher c; /* 64-byte aligned: the context comes from prov_alloc */
  gostx_mode_ctx m;
  const modes_desc *d;
  size_t n;        /* cipher block length */
  int enc, key_set, iv_set, started, padding, threads;
  size_t section;
  uint64_t done;   /* CTR: bytes of the message processed */
  uint8_t iv[GOSTX_MAX_BLOCK_LEN];
  uint8_t seed[8]; /* alg_id_param's kdf seed, carried only */
  prov_blockbuf pending; /* ECB/CBC: input short of a block (whole blocks go to the library) */
  prov_keystream ks;     /* CTR, CTR-ACPKM, OFB: keystream made ahead for short updates */
} modes_ctx;

static int is_block_mode(const modes_desc *d) {
  return d->mode == GOSTX_MODE_ECB || d->mode == GOSTX_MODE_CBC;
}

static void *modes_newctx(const modes_desc *d) {
  modes_ctx *x = prov_alloc(sizeof *x);
  if (!x) return NULL;
  x->d = d;
  x->n = d->cipher_id == GOSTX_ALG_KUZNYECHIK ? GOSTX_KUZ_BLOCK_LEN : GOSTX_MAGMA_BLOCK_LEN;
  x->padding = 1;
  x->section = d->section;
  return x;
}

static void modes_freectx(void *vx) {
  modes_ctx *x = vx;
  if (x) gostx_mode_clear(&x->m);
  prov_free(x, sizeof *x);
}

static void *modes_dupctx(void *vx) { return prov_dup(vx, sizeof(modes_ctx)); }

/* (Re)start the stream from the key and the IV given last. */
static int modes_start(modes_ctx *x) {
  x->started = 0;
  x->pending.len = 0;
  prov_stream_reset(&x->ks);
  x->done = 0;
  if (!x->key_set || (x->d->ivlen && !x->iv_set)) return 1; /* the rest comes later */
  int rc = gostx_mode_init(&x->m, &x->c, x->d->mode, !x->enc, x->d->ivlen ? x->iv : NULL,
                           x->d->ivlen, 0, GOSTX_PAD_NONE,
                           x->d->mode == GOSTX_MODE_CTR_ACPKM ? x->section : 0);
  if (rc != GOSTX_OK) return prov_lib_err(rc, "mode init");
  x->started = 1;
  return 1;
}

static int modes_set_ctx_params(void *vx, const OSSL_PARAM params[]);

static int modes_init(void *vx, const unsigned char *key, size_t keylen, const unsigned char *iv,
                      size_t ivlen, const OSSL_PARAM params[], int enc) {
  modes_ctx *x = vx;
  x->enc = enc;
  if (!modes_set_ctx_params(x, params)) return 0;
  if (!prov_check_key_iv(key, keylen, GOSTX_KEY_LEN, iv, ivlen, x->d->ivlen, x->iv, &x->iv_set))
    return 0;
  if (key) {
    int rc = gostx_cipher_init(&x->c, x->d->cipher_id, key);
    if (rc != GOSTX_OK) return prov_lib_err(rc, "key");
    x->key_set = 1;
  }
  return modes_start(x);
}

PROV_CIPHER_INITS(modes)

/* Whole blocks through the library: ECB on the pool when opted in. */
static int run_blocks(void *vx, const uint8_t *in, uint8_t *out, size_t len) {
  modes_ctx *x = vx;
  if (x->threads && x->d->mode == GOSTX_MODE_ECB && len >= GOSTX_BULK_MIN) {
    int rc = x->enc ? gostx_ecb_encrypt_mt(prov_pool(), &x->c, in, len, out)
                    : gostx_ecb_decrypt_mt(prov_pool(), &x->c, in, len, out);
    return rc == GOSTX_OK ? 1 : prov_lib_err(rc, "ecb");
  }
  size_t got = 0;
  int rc = gostx_mode_update(&x->m, in, len, out, &got);
  return rc == GOSTX_OK && got == len ? 1 : prov_lib_err(rc, "update");
}

/* The stream modes' bytes through the library's streaming context. */
static int stream_bytes(void *vx, const uint8_t *in, uint8_t *out, size_t len) {
  modes_ctx *x = vx;
  size_t got = 0;
  int rc = gostx_mode_update(&x->m, in, len, out, &got);
  return rc == GOSTX_OK && got == len ? 1 : prov_lib_err(rc, "update");
}

/* CTR on the pool: the rest of a started block from its keystream block
 * (block done / n encrypted alone), then everything else from the block
 * boundary on through the library's counter-at-block-k call. */
static int ctr_threads_update(modes_ctx *x, unsigned char *out, size_t *outl,
                              const unsigned char *in, size_t inl) {
  const size_t n = x->n, ivlen = x->d->ivlen;
  size_t head = x->done % n ? n - x->done % n : 0, pos = 0;
  if (head > inl) head = inl;
  if (head) {
    uint8_t ks[GOSTX_MAX_BLOCK_LEN] = {0};
    int rc = gostx_ctr_crypt_mt_at(NULL, &x->c, x->iv, ivlen, x->done / n, ks, n, ks);
    if (rc != GOSTX_OK) return prov_lib_err(rc, "ctr");
    for (; pos < head; pos++) out[pos] = in[pos] ^ ks[x->done % n + pos];
    gostx_memzero(ks, sizeof ks);
  }
  if (inl > head) {
    int rc = gostx_ctr_crypt_mt_at(prov_pool(), &x->c, x->iv, ivlen, (x->done + head) / n,
                                   in + head, inl - head, out + head);
    if (rc != GOSTX_OK) return prov_lib_err(rc, "ctr");
  }
  x->done += inl;
  *outl = inl;
  return 1;
}

static int modes_update(void *vx, unsigned char *out, size_t *outl, size_t outsize,
                        const unsigned char *in, size_t inl) {
  if (!prov_check_inl(inl)) return 0;
  modes_ctx *x = vx;
  if (!x->started) return prov_not_started(x->key_set);
  if (is_block_mode(x->d))
    return prov_block_update(&x->pending, x->n, x->enc, x->padding, run_blocks, x, out, outl,
                             outsize, in, inl);
  if (!prov_check_room(outsize, inl)) return 0;
  if (x->threads && x->d->mode == GOSTX_MODE_CTR) return ctr_threads_update(x, out, outl, in, inl);
  int ok = x->d->mode == GOSTX_MODE_CFB ? stream_bytes(x, in, out, inl)
                                        : prov_stream_update(&x->ks, stream_bytes, x, in, out, inl);
  if (!ok) return 0;
  x->done += inl;
  *outl = inl;
  return 1;
}

static int modes_final(void *vx, unsigned char *out, size_t *outl, size_t outsize) {
  modes_ctx *x = vx;
  *outl = 0;
  if (!x->started) return prov_not_started(x->key_set);
  if (!is_block_mode(x->d)) return 1;
  return prov_block_final(&x->pending, x->n, x->enc, x->padding, run_blocks, x, out, outl,
                          outsize);
}

#define CMS_SECTION (256 * 1024)

static int is_ctr(const modes_desc *d) {
  return d->mode == GOSTX_MODE_CTR || d->mode == GOSTX_MODE_CTR_ACPKM;
}

/* CMS's 256 KiB sections, before any data (the stream restarts with them) */
static int cms_section(modes_ctx *x) {
  if (x->d->mode != GOSTX_MODE_CTR_ACPKM || x->done || x->section == CMS_SECTION) return 1;
  x->section = CMS_SECTION;
  return !x->started || modes_start(x);
}

/* DER of SEQUENCE { OCTET STRING iv || seed }: 4 + ivlen + 8 bytes */
static size_t alg_id_der(const modes_ctx *x, uint8_t *der) {
  size_t ukm = x->d->ivlen + sizeof x->seed;
  der[0] = 0x30, der[1] = (uint8_t)(ukm + 2), der[2] = 0x04, der[3] = (uint8_t)ukm;
  memcpy(der + 4, x->iv, x->d->ivlen);
  memcpy(der + 4 + x->d->ivlen, x->seed, sizeof x->seed);
  return ukm + 4;
}

static PROV_CTX_PARAMS(modes_gettable_ctx_params, PROV_CIPHER_CTX_GETTABLE,
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_ALGORITHM_ID_PARAMS, NULL, 0))

static int modes_get_ctx_params(void *vx, OSSL_PARAM params[]) {
  modes_ctx *x = vx;
  OSSL_PARAM *p;
  if (!prov_cipher_get_params(params, x->d->evp_mode, GOSTX_KEY_LEN, x->d->ivlen,
                              x->d->blocksize, 0, 1))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_PADDING)) &&
      !OSSL_PARAM_set_uint(p, (unsigned)x->padding))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) && x->d->ivlen &&
      !OSSL_PARAM_set_octet_string(p, x->iv, x->d->ivlen))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_ALGORITHM_ID_PARAMS)) && is_ctr(x->d)) {
    uint8_t der[4 + 8 + 8];
    if (!x->iv_set) {
      prov_err(PROV_R_NO_KEY, "alg_id_param: no iv set");
      return 0;
    }
    if (!OSSL_PARAM_set_octet_string(p, der, alg_id_der(x, der)) || !cms_section(x)) return 0;
  }
  if ((p = OSSL_PARAM_locate(params, "key-mesh")) && !OSSL_PARAM_set_size_t(p, x->section))
    return 0;
  return 1;
}

static int modes_set_ctx_params(void *vx, const OSSL_PARAM params[]) {
  modes_ctx *x = vx;
  const OSSL_PARAM *p;
  if (!params) return 1;
  if (!prov_cipher_set_common(params, GOSTX_KEY_LEN, x->d->ivlen,
                              is_block_mode(x->d) ? &x->padding : NULL))
    return 0;
  if ((p = OSSL_PARAM_locate_const(params, "key-mesh"))) {
    if (!prov_section_param(p, "key-mesh", x->n, x->d->mode == GOSTX_MODE_CTR_ACPKM && !x->done,
                            " for CTR-ACPKM, before the first update", &x->section))
      return 0;
    if (x->started && !modes_start(x)) return 0; /* the stream restarts with the new sections */
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_ALGORITHM_ID_PARAMS)) &&
      is_ctr(x->d)) {
    const uint8_t *der;
    size_t len, ivlen = x->d->ivlen, ukm = ivlen + sizeof x->seed;
    if (x->done || !OSSL_PARAM_get_octet_string_ptr(p, (const void **)&der, &len) ||
        len != ukm + 4 || der[0] != 0x30 || der[1] != ukm + 2 || der[2] != 0x04 ||
        der[3] != ukm) {
      prov_err(PROV_R_BAD_PARAM,
               "alg_id_param: SEQUENCE { OCTET STRING of %zu bytes }, before the first update",
               ukm);
      return 0;
    }
    memcpy(x->iv, der + 4, ivlen);
    memcpy(x->seed, der + 4 + ivlen, sizeof x->seed);
    x->iv_set = 1;
    if (x->d->mode == GOSTX_MODE_CTR_ACPKM) x->section = CMS_SECTION;
    if (!modes_start(x)) return 0; /* the stream from this IV */
  }
  if ((p = OSSL_PARAM_locate_const(params, "threads"))) {
    unsigned t;
    if (!OSSL_PARAM_get_uint(p, &t)) return 0;
    if (x->d->mode == GOSTX_MODE_CTR && x->threads != (t != 0) && x->done) {
      prov_err(PROV_R_BAD_PARAM, "threads: set it before the first update");
      return 0;
    }
    x->threads = t != 0;
  }
  return 1;
}

static PROV_CTX_PARAMS(modes_settable_ctx_params,
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t("key-mesh", NULL),
    OSSL_PARAM_uint("threads", NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_ALGORITHM_ID_PARAMS, NULL, 0))

/* One descriptor and one dispatch table per algorithm. */
#define MODES_CIPHER(name, id, mode, evp_mode, ivlen, bs, section)                               \
  static const modes_desc name##_desc = {id, mode, evp_mode, ivlen, bs, section};                \
  static void *name##_newctx(void *provctx) {                                                    \
    (void)provctx;                                                                               \
    return modes_newctx(&name##_desc);                                                           \
  }                                                                                              \
  static int name##_get_params(OSSL_PARAM params[]) {                                            \
    return prov_cipher_get_params(params, evp_mode, GOSTX_KEY_LEN, ivlen, bs, 0, 1);             \
  }                                                                                              \
  PROV_CIPHER_TABLE(prov_##name##_fns, name, modes);

#define KUZ GOSTX_ALG_KUZNYECHIK
#define MAG GOSTX_ALG_MAGMA
MODES_CIPHER(kuz_ecb, KUZ, GOSTX_MODE_ECB, EVP_CIPH_ECB_MODE, 0, 16, 0)
MODES_CIPHER(kuz_cbc, KUZ, GOSTX_MODE_CBC, EVP_CIPH_CBC_MODE, 16, 16, 0)
MODES_CIPHER(kuz_cfb, KUZ, GOSTX_MODE_CFB, EVP_CIPH_CFB_MODE, 16, 1, 0)
MODES_CIPHER(kuz_ofb, KUZ, GOSTX_MODE_OFB, EVP_CIPH_OFB_MODE, 16, 1, 0)
MODES_CIPHER(kuz_ctr, KUZ, GOSTX_MODE_CTR, EVP_CIPH_CTR_MODE, 8, 1, 0)
MODES_CIPHER(kuz_ctr_acpkm, KUZ, GOSTX_MODE_CTR_ACPKM, EVP_CIPH_CTR_MODE, 8, 1, 4096)
MODES_CIPHER(magma_ecb, MAG, GOSTX_MODE_ECB, EVP_CIPH_ECB_MODE, 0, 8, 0)
MODES_CIPHER(magma_cbc, MAG, GOSTX_MODE_CBC, EVP_CIPH_CBC_MODE, 8, 8, 0)
MODES_CIPHER(magma_ctr, MAG, GOSTX_MODE_CTR, EVP_CIPH_CTR_MODE, 4, 1, 0)
MODES_CIPHER(magma_ctr_acpkm, MAG, GOSTX_MODE_CTR_ACPKM, EVP_CIPH_CTR_MODE, 4, 1, 1024)
