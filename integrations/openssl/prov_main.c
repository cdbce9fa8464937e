/* The gostx OpenSSL 3 provider: entry point, the algorithm query, errors,
 * memory and the shared worker pool. Written from provider(7),
 * provider-base(7) and the per-operation pages; algorithm names, aliases and
 * OIDs follow gost-engine's provider (gostprov) so that configs and programs
 * need no change. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "prov.h"

static const OSSL_CORE_HANDLE *core_handle;
static OSSL_FUNC_core_new_error_fn *core_new_error;
static OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *core_vset_error;
static OSSL_FUNC_BIO_read_ex_fn *core_bio_read_ex;
static OSSL_FUNC_BIO_write_ex_fn *core_bio_write_ex;

int prov_bio_read(OSSL_CORE_BIO *bio, void *buf, size_t len, size_t *got) {
  *got = 0;
  return core_bio_read_ex && core_bio_read_ex(bio, buf, len, got);
}

int prov_bio_write(OSSL_CORE_BIO *bio, const void *buf, size_t len) {
  size_t done = 0;
  if (!core_bio_write_ex) return 0;
  while (done < len) {
    size_t n = 0;
    if (!core_bio_write_ex(bio, (const char *)buf + done, len - done, &n) || n == 0) return 0;
    done += n;
  }
  return 1;
}

void prov_err(int reason, const char *fmt, ...) {
  if (!core_new_error || !core_vset_error) return;
  va_list ap;
  va_start(ap, fmt);
  core_new_error(core_handle);
  if (core_set_error_debug) core_set_error_debug(core_handle, "gostx", 0, "gostx");
  core_vset_error(core_handle, reason, fmt, ap);
  va_end(ap);
}

/* The reason strings (OSSL_FUNC_PROVIDER_GET_REASON_STRINGS), so that an
 * error prints "bad key length", not "reason(1)". OpenSSL 3.0 unloads them
 * when the provider is freed with its library context, and that crashes on
 * a freed lock when the context is freed after OpenSSL's own atexit
 * cleanup (cryptsetup frees its own context so, tests/luks). The default
 * context goes inside that cleanup, before the strings' lock: the table is
 * offered there only (OSSL_provider_init); elsewhere the messages alone
 * carry the text. */
static const OSSL_ITEM reason_strings[] = {
    {PROV_R_BAD_KEY_LEN, "bad key length"},
    {PROV_R_BAD_IV_LEN, "bad iv length"},
    {PROV_R_BAD_PARAM, "bad parameter"},
    {PROV_R_NO_KEY, "no key or iv set, or already finished"},
    {PROV_R_AUTH_FAILED, "authentication failed"},
    {PROV_R_BAD_PADDING, "bad padding"},
    {PROV_R_BAD_LEN, "bad length"},
    {PROV_R_BUFFER_TOO_SMALL, "output buffer too small"},
    {PROV_R_LIB_ERROR, "libgostx error"},
    {PROV_R_NO_MEMORY, "out of memory"},
    {PROV_R_UNSUPPORTED, "unsupported"},
    {PROV_R_NONCE_REUSE, "nonce already used for an encryption"},
    {PROV_R_BAD_KEY, "bad key"},
    {PROV_R_BAD_SIGNATURE, "bad signature"},
    {0, NULL},
};

static const OSSL_ITEM *get_reason_strings(void *provctx) {
  (void)provctx;
  return reason_strings;
}

int prov_lib_err(int rc, const char *what) {
  int reason = rc == GOSTX_ELEN ? PROV_R_BAD_LEN
               : rc == GOSTX_EAUTH ? PROV_R_AUTH_FAILED
               : rc == GOSTX_EPAD ? PROV_R_BAD_PADDING
               : rc == GOSTX_ENOMEM ? PROV_R_NO_MEMORY
                                    : PROV_R_LIB_ERROR;
  prov_err(reason, "%s: %s", what, gostx_strerror(rc));
  return 0;
}

void *prov_alloc(size_t size) {
  void *p = NULL;
  if (posix_memalign(&p, 64, size) != 0) {
    prov_err(PROV_R_NO_MEMORY, "%zu bytes", size);
    return NULL;
  }
  memset(p, 0, size);
  return p;
}

void prov_free(void *p, size_t size) {
  if (!p) return;
  gostx_memzero(p, size);
  free(p);
}

void *prov_dup(const void *p, size_t size) {
  void *y = prov_alloc(size);
  if (y) memcpy(y, p, size);
  return y;
}

/* ---- the worker pool, shared by the contexts that opt in ---- */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static gostx_pool *pool;
static int pool_failed;

gostx_pool *prov_pool(void) {
  pthread_mutex_lock(&pool_lock);
  if (!pool && !pool_failed) {
    pool = gostx_pool_new(0);
    pool_failed = pool == NULL;
  }
  gostx_pool *p = pool;
  pthread_mutex_unlock(&pool_lock);
  return p;
}

void prov_pool_teardown(void) {
  pthread_mutex_lock(&pool_lock);
  gostx_pool_free(pool);
  pool = NULL;
  pool_failed = 0;
  pthread_mutex_unlock(&pool_lock);
}

/* ---- cipher get_params shared by every cipher ---- */
int prov_cipher_get_params(OSSL_PARAM params[], unsigned mode, size_t keylen, size_t ivlen,
                           size_t blocksize, int aead, int custom_iv) {
  OSSL_PARAM *p;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) && !OSSL_PARAM_set_uint(p, mode))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) &&
      !OSSL_PARAM_set_size_t(p, keylen))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, ivlen))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) &&
      !OSSL_PARAM_set_size_t(p, blocksize))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) && !OSSL_PARAM_set_int(p, aead))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) &&
      !OSSL_PARAM_set_int(p, custom_iv))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CTS)) && !OSSL_PARAM_set_int(p, 0))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) &&
      !OSSL_PARAM_set_int(p, 0))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) && !OSSL_PARAM_set_int(p, 0))
    return 0;
  return 1;
}

PROV_PARAMS(prov_cipher_gettable_params,
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL))

/* Names, aliases and OIDs as gostprov registers them (gost-engine's
 * gost_prov_cipher.c); gostprov has no magma-ecb or XTS: those names are ours. */
static const OSSL_ALGORITHM ciphers[] = {
    {"gost89:GOST 28147-89:1.2.643.2.2.21", PROV_PROPS, prov_gost89_cfb_fns,
     "GOST 28147-89 CFB, key meshing (libgostx)"},
    {"gost89-cnt", PROV_PROPS, prov_gost89_cnt_fns, "GOST 28147-89 CNT, CryptoPro-A (libgostx)"},
    {"gost89-cnt-12", PROV_PROPS, prov_gost89_cnt12_fns, "GOST 28147-89 CNT, TC26-Z (libgostx)"},
    {"gost89-cbc", PROV_PROPS, prov_gost89_cbc_fns, "GOST 28147-89 CBC (libgostx)"},
    {"kuznyechik-ecb", PROV_PROPS, prov_kuz_ecb_fns, "Kuznyechik ECB (libgostx)"},
    {"kuznyechik-cbc", PROV_PROPS, prov_kuz_cbc_fns, "Kuznyechik CBC (libgostx)"},
    {"kuznyechik-cfb", PROV_PROPS, prov_kuz_cfb_fns, "Kuznyechik CFB (libgostx)"},
    {"kuznyechik-ofb", PROV_PROPS, prov_kuz_ofb_fns, "Kuznyechik OFB (libgostx)"},
    {"kuznyechik-ctr", PROV_PROPS, prov_kuz_ctr_fns, "Kuznyechik CTR (libgostx)"},
    {"magma-ecb", PROV_PROPS, prov_magma_ecb_fns, "Magma ECB (libgostx)"},
    {"magma-cbc", PROV_PROPS, prov_magma_cbc_fns, "Magma CBC (libgostx)"},
    {"magma-ctr", PROV_PROPS, prov_magma_ctr_fns, "Magma CTR (libgostx)"},
    {"magma-ctr-acpkm:1.2.643.7.1.1.5.1.1",
     PROV_PROPS, prov_magma_ctr_acpkm_fns, "Magma CTR-ACPKM (libgostx)"},
    {"magma-ctr-acpkm-omac:1.2.643.7.1.1.5.1.2", PROV_PROPS, prov_magma_ctr_acpkm_omac_fns,
     "Magma CTR-ACPKM with OMAC, CMS content encryption (libgostx)"},
    {"kuznyechik-ctr-acpkm:1.2.643.7.1.1.5.2.1",
     PROV_PROPS, prov_kuz_ctr_acpkm_fns, "Kuznyechik CTR-ACPKM (libgostx)"},
    {"kuznyechik-ctr-acpkm-omac:1.2.643.7.1.1.5.2.2", PROV_PROPS, prov_kuz_ctr_acpkm_omac_fns,
     "Kuznyechik CTR-ACPKM with OMAC, CMS content encryption (libgostx)"},
    {"kuznyechik-mgm", PROV_PROPS, prov_kuz_mgm_fns, "Kuznyechik MGM AEAD (libgostx)"},
    {"magma-mgm", PROV_PROPS, prov_magma_mgm_fns, "Magma MGM AEAD (libgostx)"},
    {"kuznyechik-xts", PROV_PROPS, prov_kuz_xts_fns,
     "Kuznyechik XTS, IEEE 1619 with ciphertext stealing (libgostx; not in gostprov)"},
    {NULL, NULL, NULL, NULL},
};

/* GOST R 34.10-2012 under gost-engine's key type names (the short and long
 * names OpenSSL gives the key OIDs, which X.509 and CMS look up). */
#define GOST256_NAMES "gost2012_256:GOST R 34.10-2012 with 256 bit modulus:1.2.643.7.1.1.1.1"
#define GOST512_NAMES "gost2012_512:GOST R 34.10-2012 with 512 bit modulus:1.2.643.7.1.1.1.2"
static const OSSL_ALGORITHM keymgmt[] = {
    {GOST256_NAMES, PROV_PROPS, prov_gost256_keymgmt_fns,
     "GOST R 34.10-2012 256-bit keys (libgostx)"},
    {GOST512_NAMES, PROV_PROPS, prov_gost512_keymgmt_fns,
     "GOST R 34.10-2012 512-bit keys (libgostx)"},
    {NULL, NULL, NULL, NULL},
};
static const OSSL_ALGORITHM signature[] = {
    {GOST256_NAMES, PROV_PROPS, prov_gost256_signature_fns,
     "GOST R 34.10-2012 256-bit signatures, s || r (libgostx)"},
    {GOST512_NAMES, PROV_PROPS, prov_gost512_signature_fns,
     "GOST R 34.10-2012 512-bit signatures, s || r (libgostx)"},
    {NULL, NULL, NULL, NULL},
};
static const OSSL_ALGORITHM keyexch[] = {
    {GOST256_NAMES, PROV_PROPS, prov_gost256_vko_fns,
     "VKO_GOSTR3410_2012, 256-bit keys (libgostx)"},
    {GOST512_NAMES, PROV_PROPS, prov_gost512_vko_fns,
     "VKO_GOSTR3410_2012, 512-bit keys (libgostx)"},
    {NULL, NULL, NULL, NULL},
};

static const OSSL_ALGORITHM *query(void *provctx, int operation_id, int *no_cache) {
  (void)provctx;
  *no_cache = 0;
  switch (operation_id) {
    case OSSL_OP_DIGEST: return prov_digests;
    case OSSL_OP_CIPHER: return ciphers;
    case OSSL_OP_MAC: return prov_macs;
    case OSSL_OP_KDF: return prov_kdfs;
    case OSSL_OP_KEYMGMT: return keymgmt;
    case OSSL_OP_SIGNATURE: return signature;
    case OSSL_OP_KEYEXCH: return keyexch;
    case OSSL_OP_ENCODER: return prov_encoders;
    case OSSL_OP_DECODER: return prov_decoders;
    default: return NULL;
  }
}

static PROV_PARAMS(gettable_params,
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL))

/* "kuznyechik avx2, magma avx2, ...": what libgostx chose on this CPU. */
static char impl_text[160];
static pthread_once_t impl_once = PTHREAD_ONCE_INIT;
static void impl_fill(void) {
  size_t used = 0;
  for (int i = 1; i < GOSTX_ALG_END && used < sizeof impl_text; i++)
    used += (size_t)snprintf(impl_text + used, sizeof impl_text - used, "%s%s %s", i > 1 ? ", " : "",
                             gostx_alg_name((gostx_alg)i), gostx_impl((gostx_alg)i));
}
static const char *impl_names(void) {
  pthread_once(&impl_once, impl_fill);
  return impl_text;
}

static int get_params(void *provctx, OSSL_PARAM params[]) {
  (void)provctx;
  OSSL_PARAM *p;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) &&
      !OSSL_PARAM_set_utf8_ptr(
          p, "gostx: GOST ciphers, hashes, MACs, KDFs and GOST R 34.10-2012 keys from libgostx"))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) &&
      !OSSL_PARAM_set_utf8_ptr(p, gostx_version()))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) &&
      !OSSL_PARAM_set_utf8_ptr(p, impl_names()))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) && !OSSL_PARAM_set_int(p, 1))
    return 0;
  return 1;
}

static void teardown(void *provctx) {
  prov_pool_teardown();
  free(provctx);
}

static const OSSL_DISPATCH provider_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (prov_fn)teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (prov_fn)gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (prov_fn)get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (prov_fn)query},
    {0, NULL},
};
/* the same with the reason strings: for the default library context */
static const OSSL_DISPATCH provider_functions_strings[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (prov_fn)teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (prov_fn)gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (prov_fn)get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (prov_fn)query},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (prov_fn)get_reason_strings},
    {0, NULL},
};

__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle,
                                                              const OSSL_DISPATCH *in,
                                                              const OSSL_DISPATCH **out,
                                                              void **provctx) {
  OSSL_FUNC_core_get_libctx_fn *core_get_libctx = NULL;
  for (; in && in->function_id; in++) {
    switch (in->function_id) {
      case OSSL_FUNC_CORE_NEW_ERROR: core_new_error = OSSL_FUNC_core_new_error(in); break;
      case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
        core_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
        break;
      case OSSL_FUNC_CORE_VSET_ERROR: core_vset_error = OSSL_FUNC_core_vset_error(in); break;
      case OSSL_FUNC_CORE_GET_LIBCTX: core_get_libctx = OSSL_FUNC_core_get_libctx(in); break;
      case OSSL_FUNC_BIO_READ_EX: core_bio_read_ex = OSSL_FUNC_BIO_read_ex(in); break;
      case OSSL_FUNC_BIO_WRITE_EX: core_bio_write_ex = OSSL_FUNC_BIO_write_ex(in); break;
      default: break;
    }
  }
  prov_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return 0;
  ctx->handle = handle;
  core_handle = handle;
  *provctx = ctx;
  /* NULL also stands for the default context */
  const OPENSSL_CORE_CTX *lib = core_get_libctx ? core_get_libctx(handle) : (OPENSSL_CORE_CTX *)1;
  int default_ctx = !lib || lib == (const OPENSSL_CORE_CTX *)OSSL_LIB_CTX_get0_global_default();
  *out = default_ctx ? provider_functions_strings : provider_functions;
  return 1;
}
