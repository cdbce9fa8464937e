/* Shared pieces of the gostx OpenSSL 3 provider (integrations/openssl/).
 * Every call into libgostx made by the provider lives in this folder, so a
 * rename in the library's API is one mechanical edit here. The library
 * itself never sees an OpenSSL header. */
#ifndef GOSTX_PROV_H
#define GOSTX_PROV_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <gostx.h>

typedef void (*prov_fn)(void);

/* Every algorithm carries it, so that `-propquery provider=gostx` (or a
 * config's default_properties) picks ours when gostprov is loaded too. */
#define PROV_PROPS "provider=gostx"

/* The provider context: the core handle (for errors) and the worker pool,
 * created on first use by a context that asked for threads. */
typedef struct prov_ctx {
  const OSSL_CORE_HANDLE *handle;
} prov_ctx;

/* Reasons for prov_err, with their text in prov_main.c; the message says
 * what is wrong. */
enum {
  PROV_R_BAD_KEY_LEN = 1,
  PROV_R_BAD_IV_LEN,
  PROV_R_BAD_PARAM,
  PROV_R_NO_KEY,
  PROV_R_AUTH_FAILED,
  PROV_R_BAD_PADDING,
  PROV_R_BAD_LEN,
  PROV_R_BUFFER_TOO_SMALL,
  PROV_R_LIB_ERROR,
  PROV_R_NO_MEMORY,
  PROV_R_UNSUPPORTED,
  PROV_R_NONCE_REUSE,
  PROV_R_BAD_KEY,
  PROV_R_BAD_SIGNATURE
};
/* Raise an OpenSSL error from this provider: reason plus a printf message. */
void prov_err(int reason, const char *fmt, ...);
/* prov_err for a negative libgostx return code; returns 0 (the OpenSSL failure value). */
int prov_lib_err(int rc, const char *what);

/* EVP_CipherUpdate takes an int length and hands it on as size_t: a
 * negative one arrives above INT_MAX (and the stream ciphers' outsize with
 * it). 0 with an error raised for such a length. */
int prov_check_inl(size_t inl);
/* A cipher update's room: 1 when outsize holds need bytes, else 0 with
 * OpenSSL's buffer-too-small error. */
int prov_check_room(size_t outsize, size_t need);
/* The error of an update or final on a cipher context that is not started
 * (its key and IV are both needed): names what is missing; returns 0. */
int prov_not_started(int key_set);
/* An ACPKM section length parameter (name in messages; none when p is
 * NULL: 1): a positive multiple of the block n, taken into *out when
 * allowed; 0 when it is no size_t, or after saying "NAME: a positive
 * multiple of N" and when (the conditions, "" for none). */
int prov_section_param(const OSSL_PARAM *p, const char *name, size_t n, int allowed,
                       const char *when, size_t *out);

/* Zeroed memory aligned for the library's 64-byte aligned key structures. */
void *prov_alloc(size_t size);
/* Wipes size bytes, then frees. */
void prov_free(void *p, size_t size);
/* A prov_alloc copy of size bytes at p: the dupctx of a context that owns
 * no memory outside itself. */
void *prov_dup(const void *p, size_t size);

/* The shared worker pool for contexts that opted in to threads (param
 * "threads" = 1); NULL when threads cannot be started (callers then run on
 * one thread). Freed when the provider is unloaded. */
gostx_pool *prov_pool(void);
void prov_pool_teardown(void);

/* get_params shared by every cipher: mode (EVP_CIPH_*_MODE), key, IV and
 * block length, and the flags. */
int prov_cipher_get_params(OSSL_PARAM params[], unsigned mode, size_t keylen, size_t ivlen,
                           size_t blocksize, int aead, int custom_iv);
const OSSL_PARAM *prov_cipher_gettable_params(void *provctx);

/* ECB/CBC: partial blocks wait in a prov_blockbuf, whole blocks go to fn
 * (returns 1 or raises an error and returns 0); PKCS#7 padding when
 * padding is on (prov_block.c). */
typedef int (*prov_blocks_fn)(void *ctx, const uint8_t *in, uint8_t *out, size_t len);
typedef struct prov_blockbuf {
  uint8_t buf[GOSTX_MAX_BLOCK_LEN];
  size_t len;
} prov_blockbuf;
int prov_block_update(prov_blockbuf *b, size_t n, int enc, int padding, prov_blocks_fn fn,
                      void *ctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl);
int prov_block_final(prov_blockbuf *b, size_t n, int enc, int padding, prov_blocks_fn fn,
                     void *ctx, unsigned char *out, size_t *outl, size_t outsize);
/* The params of every non-AEAD cipher context: "padding" (where padding
 * is not NULL), "keylen" and "ivlen" only at their fixed values. */
int prov_cipher_set_common(const OSSL_PARAM params[], size_t keylen, size_t ivlen, int *padding);
const OSSL_PARAM *prov_cipher_gettable_ctx_params(void *vx, void *provctx);
/* What prov_cipher_gettable_ctx_params lists, for a cipher that answers more. */
#define PROV_CIPHER_CTX_GETTABLE                                                                 \
  OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),                                                 \
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),                                         \
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),                                          \
      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),                                     \
      OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),                                          \
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0), OSSL_PARAM_size_t("key-mesh", NULL)

/* A gettable/settable params callback returning one constant table: the
 * params given, then OSSL_PARAM_END. PROV_CTX_PARAMS for the per-context
 * callbacks (vx, provctx), PROV_PARAMS for the per-algorithm ones. */
#define PROV_CTX_PARAMS(name, ...)                                                               \
  const OSSL_PARAM *name(void *vx, void *provctx) {                                              \
    (void)vx;                                                                                    \
    (void)provctx;                                                                               \
    static const OSSL_PARAM table[] = {__VA_ARGS__, OSSL_PARAM_END};                             \
    return table;                                                                                \
  }
#define PROV_PARAMS(name, ...)                                                                   \
  const OSSL_PARAM *name(void *provctx) {                                                        \
    (void)provctx;                                                                               \
    static const OSSL_PARAM table[] = {__VA_ARGS__, OSSL_PARAM_END};                             \
    return table;                                                                                \
  }

/* Keystream made ahead for short updates of the data-independent stream
 * modes (prov_stream.c). fn XORs len bytes with the next keystream bytes
 * (the mode's own update); 1 on success, 0 with an error raised. */
typedef int (*prov_stream_fn)(void *ctx, const uint8_t *in, uint8_t *out, size_t len);
typedef struct prov_keystream {
  uint8_t buf[4096]; /* 256 Kuznyechik blocks: one full batch of the bitsliced kernels */
  size_t pos, len; /* buf[pos..len) not used yet */
} prov_keystream;
int prov_stream_update(prov_keystream *ks, prov_stream_fn fn, void *ctx, const uint8_t *in,
                       uint8_t *out, size_t len);
void prov_stream_reset(prov_keystream *ks);

/* The length checks of a cipher init call: keylen when key is given, ivlen
 * when iv is given (then copied to iv_dst and *iv_set raised). 0 with an
 * error raised when a length is wrong. */
int prov_check_key_iv(const unsigned char *key, size_t keylen, size_t want_keylen,
                      const unsigned char *iv, size_t ivlen, size_t want_ivlen, uint8_t *iv_dst,
                      int *iv_set);

/* FAM_einit and FAM_dinit from FAM_init(ctx, key, keylen, iv, ivlen, params, enc). */
#define PROV_CIPHER_INITS(fam)                                                                   \
  static int fam##_einit(void *vx, const unsigned char *key, size_t keylen,                      \
                         const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[]) {     \
    return fam##_init(vx, key, keylen, iv, ivlen, params, 1);                                    \
  }                                                                                              \
  static int fam##_dinit(void *vx, const unsigned char *key, size_t keylen,                      \
                         const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[]) {     \
    return fam##_init(vx, key, keylen, iv, ivlen, params, 0);                                    \
  }

/* The dispatch table of a cipher: PREFIX_newctx, PREFIX_get_params and the
 * context functions FAM_* of its family. */
#define PROV_CIPHER_TABLE(sym, prefix, fam)                                                      \
  const OSSL_DISPATCH sym[] = {                                                                  \
      {OSSL_FUNC_CIPHER_NEWCTX, (prov_fn)prefix##_newctx},                                       \
      {OSSL_FUNC_CIPHER_FREECTX, (prov_fn)fam##_freectx},                                        \
      {OSSL_FUNC_CIPHER_DUPCTX, (prov_fn)fam##_dupctx},                                          \
      {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (prov_fn)fam##_einit},                                     \
      {OSSL_FUNC_CIPHER_DECRYPT_INIT, (prov_fn)fam##_dinit},                                     \
      {OSSL_FUNC_CIPHER_UPDATE, (prov_fn)fam##_update},                                          \
      {OSSL_FUNC_CIPHER_FINAL, (prov_fn)fam##_final},                                            \
      {OSSL_FUNC_CIPHER_GET_PARAMS, (prov_fn)prefix##_get_params},                               \
      {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, (prov_fn)prov_cipher_gettable_params},                  \
      {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (prov_fn)fam##_get_ctx_params},                          \
      {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (prov_fn)fam##_set_ctx_params},                          \
      {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, (prov_fn)fam##_gettable_ctx_params},                \
      {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, (prov_fn)fam##_settable_ctx_params},                \
      {0, NULL}}

/* ---- GOST R 34.10-2012 keys (prov_keymgmt_gost3410.c) ----
 * One entry per parameter-set OID the library names (gostx_gost3410_paramset):
 * CryptoPro-A and paramSetB are the same curve under two OIDs, and a key
 * keeps the OID it was made or read with, so that it is written back
 * unchanged. */
typedef struct prov_paramset {
  const char *name;     /* OpenSSL's short name of the OID (the "group" param) */
  const char *oid;
  const char *shortcut; /* gost-engine's -pkeyopt paramset:VALUE, or NULL */
  gostx_gost3410_curve curve;
} prov_paramset;

/* The keydata of "gost2012_256" (len 32) and "gost2012_512" (len 64). */
typedef struct prov_gost_key {
  size_t len;
  const prov_paramset *ps; /* NULL until a parameter set is chosen */
  int has_priv, has_pub;
  uint8_t priv[64]; /* d, big-endian */
  uint8_t pub[128]; /* x || y, big-endian */
} prov_gost_key;

/* The set of a len-byte key by gost-engine's shortcut ("A", "XA", "TCB"),
 * OpenSSL's short name or the OID; NULL when unknown. */
const prov_paramset *prov_paramset_find(size_t len, const char *name);
const prov_paramset *prov_paramset_by_oid(size_t len, const char *oid);
prov_gost_key *prov_gost_key_new(size_t len);
void prov_gost_key_free(prov_gost_key *k);
/* "gost2012_256" / "gost2012_512", "md_gost12_256" / "md_gost12_512". */
const char *prov_gost_key_type(size_t len);
const char *prov_gost_digest_name(size_t len);
/* d (big-endian, len bytes) with Q computed from it; 0 with an error raised
 * when d is 0 or >= q or no set is chosen. */
int prov_gost_key_set_priv(prov_gost_key *k, const uint8_t *d);
/* Q (x || y big-endian); 0 with an error raised when it is off the curve or
 * outside the order-q subgroup. */
int prov_gost_key_set_pub(prov_gost_key *k, const uint8_t *q);
/* Copies of a keydata for the operation contexts; 0 with an error raised when
 * it lacks what the operation needs (private: need_priv). */
int prov_gost_key_take(prov_gost_key *dst, const void *keydata, int need_priv);
/* The keymgmt export (also used by the decoders' export_object). */
int prov_gost_key_export(void *keydata, int selection, OSSL_CALLBACK *cb, void *cbarg);
/* A keydata from params (the encoders' import_object); NULL on error. */
void *prov_gost_key_import_new(size_t len, int selection, const OSSL_PARAM params[]);

/* The core's BIO functions (the encoders write, the decoders read). */
int prov_bio_read(OSSL_CORE_BIO *bio, void *buf, size_t len, size_t *got);
int prov_bio_write(OSSL_CORE_BIO *bio, const void *buf, size_t len);

/* Algorithm tables of each file, gathered by prov_main.c. */
extern const OSSL_ALGORITHM prov_digests[];
extern const OSSL_ALGORITHM prov_macs[];
extern const OSSL_ALGORITHM prov_kdfs[];
extern const OSSL_DISPATCH prov_kuz_ecb_fns[], prov_kuz_cbc_fns[], prov_kuz_cfb_fns[],
    prov_kuz_ofb_fns[], prov_kuz_ctr_fns[], prov_kuz_ctr_acpkm_fns[], prov_magma_ecb_fns[],
    prov_magma_cbc_fns[], prov_magma_ctr_fns[], prov_magma_ctr_acpkm_fns[];
extern const OSSL_DISPATCH prov_gost89_cfb_fns[], prov_gost89_cnt_fns[], prov_gost89_cnt12_fns[],
    prov_gost89_cbc_fns[];
extern const OSSL_DISPATCH prov_kuz_mgm_fns[], prov_magma_mgm_fns[];
extern const OSSL_DISPATCH prov_kuz_xts_fns[];
extern const OSSL_DISPATCH prov_kuz_ctr_acpkm_omac_fns[], prov_magma_ctr_acpkm_omac_fns[];
extern const OSSL_DISPATCH prov_gost256_keymgmt_fns[], prov_gost512_keymgmt_fns[];
extern const OSSL_DISPATCH prov_gost256_signature_fns[], prov_gost512_signature_fns[];
extern const OSSL_DISPATCH prov_gost256_vko_fns[], prov_gost512_vko_fns[];
extern const OSSL_ALGORITHM prov_encoders[], prov_decoders[];

#endif
