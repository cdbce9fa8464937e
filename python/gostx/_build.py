"""cffi API-mode declarations of the libgostx calls the package uses.

This is the one place that names C functions: the Python modules reach them
only through ``gostx._native.lib``. Run as a script (CMakeLists.txt does) it
writes the extension's C source to the path given, from the C sources'
headers (its second argument). CDEF declares the types, as much of each as
Python reads (``...;`` in a struct lets the compiler supply the layout);
FUNCTIONS names the calls, whose prototypes _build_headers.py reads from
include/gostx/*.h. A few calls stay written in CDEF as Python sees them: an
enum parameter or result as int where the enum is not declared here.
"""
import sys

import cffi

CDEF = r"""
#define GOSTX_OK ...
#define GOSTX_EINVAL ...
#define GOSTX_ELEN ...
#define GOSTX_EAUTH ...
#define GOSTX_ENOMEM ...
#define GOSTX_ESTATE ...
#define GOSTX_EPAD ...
#define GOSTX_EUNSUP ...
#define GOSTX_EIO ...
#define GOSTX_EFORMAT ...
#define GOSTX_FILE_HEADER_LEN ...
#define GOSTX_FILE_CHUNK_DEFAULT ...
#define GOSTX_FILE_ITER_DEFAULT ...
#define GOSTX_GOST3410_DER_MAX ...
#define GOSTX_GOST3410_PEM_MAX ...

typedef enum gostx_alg { GOSTX_ALG_KUZNYECHIK, GOSTX_ALG_MAGMA, GOSTX_ALG_STREEBOG, GOSTX_ALG_MGM,
                         GOSTX_ALG_GOST3410, GOSTX_ALG_END, ... } gostx_alg;
typedef enum gostx_file_kdf { GOSTX_FILE_KDF_RAW, GOSTX_FILE_KDF_PBKDF2, ... } gostx_file_kdf;
int gostx_impl_requested(const char **value, const char **running);

/* ciphers */
typedef struct { gostx_alg id; size_t block_len; ...; } gostx_cipher;

/* GOST R 34.13 modes; the enums' values come from the header (the trailing ...) */
enum gostx_mode { GOSTX_MODE_ECB, GOSTX_MODE_CBC, GOSTX_MODE_CFB, GOSTX_MODE_OFB,
                  GOSTX_MODE_CTR, GOSTX_MODE_CTR_ACPKM, ... };
enum gostx_padding { GOSTX_PAD_NONE, GOSTX_PAD_1, GOSTX_PAD_2, GOSTX_PAD_3, ... };
typedef struct { ...; } gostx_mode_ctx;
int gostx_mode_init(gostx_mode_ctx *ctx, const gostx_cipher *c, int mode, int decrypt,
                    const uint8_t *iv, size_t iv_len, size_t s, int padding,
                    size_t section_len);
typedef struct { ...; } gostx_omac_ctx;

/* MGM */
typedef struct { ...; } gostx_mgm_ctx;

/* XTS */
typedef struct { ...; } gostx_xts_key;

/* GOST 28147-89 */
enum gostx_gost89_mode { GOSTX_GOST89_ECB, GOSTX_GOST89_CNT, GOSTX_GOST89_CFB, GOSTX_GOST89_IMIT,
                        ... };
typedef struct { ...; } gostx_gost89_key;
typedef struct { ...; } gostx_gost89_ctx;
int gostx_gost89_set_key(gostx_gost89_key *k, const uint8_t *key, int sbox);
void gostx_magma_clear(gostx_gost89_key *k);
int gostx_gost89_init(gostx_gost89_ctx *ctx, const gostx_gost89_key *k, int mode, int decrypt,
                      const uint8_t *iv, int meshing);

/* Streebog, HMAC, KDFs, key wrap */
typedef struct { ...; } gostx_streebog_ctx;
typedef struct { ...; } gostx_gost94_ctx;
int gostx_gost94_init(gostx_gost94_ctx *ctx, int sbox);
typedef struct { ...; } gostx_hmac_ctx;

/* GOST R 34.10-2012 signatures and VKO (include/gostx/gost3410.h) */
typedef enum gostx_gost3410_curve { GOSTX_GOST3410_256_TEST, GOSTX_GOST3410_256_A,
    GOSTX_GOST3410_256_B, GOSTX_GOST3410_256_C, GOSTX_GOST3410_256_D, GOSTX_GOST3410_512_TEST,
    GOSTX_GOST3410_512_A, GOSTX_GOST3410_512_B, GOSTX_GOST3410_512_C, ... } gostx_gost3410_curve;
typedef enum gostx_gost3410_key_kind { GOSTX_GOST3410_KEY_PRIVATE, GOSTX_GOST3410_KEY_PUBLIC, ... }
    gostx_gost3410_key_kind;
typedef enum gostx_gost3410_pbe { GOSTX_GOST3410_PBE_KUZNYECHIK, GOSTX_GOST3410_PBE_MAGMA, ... }
    gostx_gost3410_pbe;
#define GOSTX_GOST3410_OID_MAX 32
typedef struct gostx_gost3410_key_ops {
  int (*sign)(void *ctx, const uint8_t *digest, size_t digest_len, uint8_t *sig, size_t sig_len);
  int (*vko)(void *ctx, const uint8_t *peer_pub, size_t pub_len, const uint8_t *ukm,
             size_t ukm_len, uint8_t *out, size_t out_len);
} gostx_gost3410_key_ops;
typedef struct gostx_gost3410_key {
  gostx_gost3410_curve curve;
  size_t len;
  int has_private;
  uint8_t d[64];
  uint8_t q[128];
  char oid[32];
  const gostx_gost3410_key_ops *ops;
  void *ops_ctx;
  int gost2001;
} gostx_gost3410_key;
typedef enum gostx_gost3410_format { GOSTX_GOST3410_DER, GOSTX_GOST3410_PEM, ... }
    gostx_gost3410_format;
typedef struct gostx_gost3410_pbe_params {
  gostx_gost3410_pbe cipher;
  uint32_t iterations;
  const uint8_t *pass;
  size_t pass_len;
} gostx_gost3410_pbe_params;
/* keys on PKCS#11 tokens (include/gostx/pkcs11.h) */
#define GOSTX_P11_HAS_PIN_VALUE ...
typedef struct { unsigned has; ...; } gostx_p11_uri;
typedef enum gostx_p11_status { GOSTX_P11_OK, GOSTX_P11_BAD_URI, GOSTX_P11_MODULE,
  GOSTX_P11_NO_TOKEN, GOSTX_P11_NO_OBJECT, GOSTX_P11_PIN_NEEDED, GOSTX_P11_PIN_INCORRECT,
  GOSTX_P11_PIN_LOCKED, GOSTX_P11_REMOVED, GOSTX_P11_UNSUPPORTED, GOSTX_P11_BAD_ANSWER,
  GOSTX_P11_TOKEN_ERROR, ... } gostx_p11_status;
typedef struct gostx_p11_key gostx_p11_key;
typedef int (*gostx_p11_pin_fn)(void *arg, const char *token_label, unsigned long flags,
                                uint8_t *pin, size_t cap, size_t *pin_len);
extern "Python" int gxpy_p11_pin(void *, const char *, unsigned long, uint8_t *, size_t,
                                 size_t *);
void free(void *p);
/* PKCS#12 (include/gostx/pkcs12.h) */
#define GOSTX_PKCS12_WORK_DEFAULT ...
typedef struct gostx_pkcs12 gostx_pkcs12;
typedef enum gostx_pkcs12_bag_type { GOSTX_PKCS12_BAG_KEY, GOSTX_PKCS12_BAG_SHROUDED_KEY,
                                     GOSTX_PKCS12_BAG_CERT, GOSTX_PKCS12_BAG_OTHER,
                                     GOSTX_PKCS12_BAG_BAD_CERT, ... }
    gostx_pkcs12_bag_type;
typedef struct gostx_pkcs12_bag {
  gostx_pkcs12_bag_type type;
  const uint8_t *der;
  size_t der_len;
  const uint8_t *key_id;
  size_t key_id_len;
  char name[256];
  char problem[96];
  ...;
} gostx_pkcs12_bag;
typedef enum gostx_pkcs12_pbe { GOSTX_PKCS12_PBE_GOST89, GOSTX_PKCS12_PBE_KUZNYECHIK,
                                GOSTX_PKCS12_PBE_MAGMA, GOSTX_PKCS12_PBE_NONE,
                                GOSTX_PKCS12_PBE_KUZNYECHIK_OMAC, GOSTX_PKCS12_PBE_MAGMA_OMAC,
                                ... } gostx_pkcs12_pbe;
typedef struct gostx_pkcs12_params {
  gostx_pkcs12_pbe key_pbe;
  gostx_pkcs12_pbe cert_pbe;
  uint32_t iterations;
  const char *name;
  const uint8_t *pass;
  size_t pass_len;
} gostx_pkcs12_params;

/* the bulk engine */
typedef struct gostx_pool gostx_pool;
typedef struct gostx_mgm_params {
  const uint8_t *nonce;
  const uint8_t *aad;
  size_t aad_len;
  size_t tag_len;
} gostx_mgm_params;
/* stream batches (batch.h): the enum's values come from the header */
typedef enum gostx_batch_op {
  GOSTX_BATCH_CBC_ENCRYPT, GOSTX_BATCH_CBC_DECRYPT, GOSTX_BATCH_CFB_ENCRYPT,
  GOSTX_BATCH_CFB_DECRYPT, GOSTX_BATCH_OFB, GOSTX_BATCH_CTR, GOSTX_BATCH_OMAC,
  GOSTX_BATCH_OMAC_ACPKM, GOSTX_BATCH_MGM_SEAL, GOSTX_BATCH_MGM_OPEN, GOSTX_BATCH_XTS_ENCRYPT,
  GOSTX_BATCH_XTS_DECRYPT, GOSTX_BATCH_GOST89_CFB_ENCRYPT, GOSTX_BATCH_GOST89_CFB_DECRYPT,
  GOSTX_BATCH_GOST89_CNT, GOSTX_BATCH_GOST89_IMIT, ... } gostx_batch_op;
typedef struct gostx_stream {
  const void *key; const uint8_t *iv; const uint8_t *aad; size_t aad_len; const uint8_t *in;
  size_t len; uint8_t *out; uint8_t *tag; int status; ...;
} gostx_stream;
typedef struct gostx_batch_params {
  size_t iv_len; size_t tag_len; size_t section_len; size_t master_section_len; int meshing; ...;
} gostx_batch_params;

/* the file format */
typedef struct { gostx_alg alg; gostx_file_kdf kdf; uint32_t chunk_size; uint32_t iterations; ...; }
    gostx_file_header;
typedef struct { gostx_file_header h; uint8_t header[84]; size_t tag_len; ...; } gostx_file;

/* X.509 (include/gostx/x509.h) */
typedef enum gostx_x509_status { GOSTX_X509_OK, GOSTX_X509_MALFORMED, GOSTX_X509_UNSUPPORTED,
    GOSTX_X509_BAD_SIGNATURE, GOSTX_X509_NOT_YET_VALID, GOSTX_X509_EXPIRED, GOSTX_X509_UNKNOWN_CA,
    GOSTX_X509_NOT_CA, GOSTX_X509_PATH_LEN, GOSTX_X509_KEY_USAGE, GOSTX_X509_EXT_KEY_USAGE,
    GOSTX_X509_NAME_MISMATCH, GOSTX_X509_CRITICAL_EXT, GOSTX_X509_BAD_KEY,
    GOSTX_X509_NAME_CONSTRAINTS, GOSTX_X509_POLICY, GOSTX_X509_PATH_TOO_LONG,
    GOSTX_X509_BAD_EXTENSION, GOSTX_X509_BAD_VERSION, GOSTX_X509_SIG_ALG_MISMATCH,
    GOSTX_X509_PROFILE, GOSTX_X509_EMAIL_MISMATCH, GOSTX_X509_REVOKED, GOSTX_X509_CRL_UNAVAILABLE,
    GOSTX_X509_CRL_SCOPE, GOSTX_X509_CRL_EXPIRED, GOSTX_X509_CRL_BAD_SIGNATURE,
    GOSTX_X509_CRL_WRONG_ISSUER, GOSTX_X509_CRL_CRITICAL_EXT, GOSTX_X509_CRL_MALFORMED,
    GOSTX_X509_CRL_DELTA, GOSTX_X509_CRL_INDIRECT, GOSTX_X509_OCSP_UNKNOWN,
    GOSTX_X509_OCSP_INVALID, GOSTX_X509_OCSP_STALE, GOSTX_X509_NO_REVOCATION_DATA,
    GOSTX_X509_CRL_NO_NUMBER, GOSTX_X509_CRL_NUMBER_CRITICAL, ... } gostx_x509_status;
typedef enum gostx_x509_purpose { GOSTX_X509_PURPOSE_ANY, GOSTX_X509_PURPOSE_SERVER,
    GOSTX_X509_PURPOSE_CLIENT, GOSTX_X509_PURPOSE_SERVER_TLS12, ... } gostx_x509_purpose;
#define GOSTX_X509_MAX_DEPTH ...
typedef struct gostx_x509_cert {
  const uint8_t *der; size_t der_len;
  const uint8_t *issuer, *subject, *serial;
  size_t issuer_len, subject_len, serial_len;
  int version; int key_alg;
  int64_t not_before, not_after;
  gostx_gost3410_curve curve;
  uint8_t pub[128]; size_t pub_len;
  int sig_alg; int is_ca; int path_len; unsigned key_usage; unsigned ext_key_usage;
  ...;
} gostx_x509_cert;
typedef struct gostx_x509_store gostx_x509_store;
typedef struct gostx_x509_verify_opts {
  int64_t now; gostx_x509_purpose purpose; const char *name; unsigned flags;
  const struct gostx_x509_crl *crls; size_t n_crls; int crl_check;
  const struct gostx_ocsp_response *ocsps; size_t n_ocsps; ...;
} gostx_x509_verify_opts;
#define GOSTX_X509_CRL_CHECK_ALL ...
#define GOSTX_X509_VERIFY_LAX ...
#define GOSTX_X509_KEY_2012_256 ...
#define GOSTX_X509_KEY_2012_512 ...
#define GOSTX_X509_KEY_2001 ...
typedef struct gostx_x509_verify_result {
  gostx_x509_status status; size_t depth; size_t path_len;
  const gostx_x509_cert *path[...]; char why[...];
} gostx_x509_verify_result;

/* CMS SignedData, RFC 3161 and CAdES-T (include/gostx/cms.h, tsa.h, cms_ts.h) */
#define GOSTX_CMS_HASH_256 ...
#define GOSTX_CMS_HASH_512 ...
#define GOSTX_CMS_MAX_SIGNERS ...
#define GOSTX_CMS_MAX_CERTS ...
#define GOSTX_CMS_MAX_RECIPIENTS ...
#define GOSTX_CMS_ATTACHED ...
#define GOSTX_CMS_CADES ...
#define GOSTX_CMS_NO_ATTRS ...
#define GOSTX_CMS_NO_SIGNING_TIME ...
#define GOSTX_CMS_NO_CERTS ...
typedef struct gostx_cms_hash { unsigned want; int done; ...; } gostx_cms_hash;
typedef enum gostx_cms_status { GOSTX_CMS_OK, GOSTX_CMS_MALFORMED, GOSTX_CMS_TRUNCATED,
    GOSTX_CMS_TRAILING_DATA, GOSTX_CMS_NOT_SIGNED_DATA, GOSTX_CMS_TOO_MANY,
    GOSTX_CMS_UNKNOWN_ALGORITHM, GOSTX_CMS_ALGORITHM_MISMATCH, GOSTX_CMS_NO_CONTENT,
    GOSTX_CMS_MISSING_ATTRIBUTE, GOSTX_CMS_BAD_ATTRIBUTE, GOSTX_CMS_CONTENT_TYPE_MISMATCH,
    GOSTX_CMS_DIGEST_MISMATCH, GOSTX_CMS_BAD_SIGNATURE, GOSTX_CMS_SIGNER_NOT_FOUND,
    GOSTX_CMS_SIGNING_CERT_MISMATCH, GOSTX_CMS_KEY_USAGE, GOSTX_CMS_CHAIN, GOSTX_CMS_WRONG_TYPE,
    GOSTX_CMS_RECIPIENT_NOT_FOUND, GOSTX_CMS_WRONG_KEY, GOSTX_CMS_BAD_MAC,
    GOSTX_CMS_ORIGINATOR_NOT_FOUND, GOSTX_CMS_BAD_EOC, GOSTX_CMS_TOO_DEEP, GOSTX_CMS_TOO_LARGE,
    GOSTX_CMS_TOO_MANY_RECIPIENTS, GOSTX_CMS_UNKNOWN_CIPHER, GOSTX_CMS_UNKNOWN_KEY_WRAP,
    GOSTX_CMS_RECIPIENT_KIND, GOSTX_CMS_KEY_MISMATCH, GOSTX_CMS_BAD_MAC_ATTRIBUTE,
    GOSTX_CMS_NO_ENCRYPTED_CONTENT, GOSTX_CMS_BAD_CONTENT_TYPE, GOSTX_CMS_BAD_DIGEST_ALGORITHMS,
    ... } gostx_cms_status;
typedef struct gostx_cms_signer_info {
  size_t digest_len;
  const uint8_t *signature; size_t signature_len;
  int has_signing_time; int64_t signing_time;
  ...;
} gostx_cms_signer_info;
typedef struct gostx_cms_signed {
  const uint8_t *content; size_t content_len;
  size_t n_signers, n_certs;
  gostx_cms_signer_info signers[...];
  gostx_x509_cert certs[...];
  ...;
} gostx_cms_signed;
typedef struct gostx_cms_verdict {
  gostx_cms_status status; size_t signer; gostx_x509_status x509; size_t depth; char oid[64];
  const gostx_x509_cert *signer_cert;
  ...;
} gostx_cms_verdict;
typedef struct gostx_cms_verify_params {
  const gostx_x509_store *store; const gostx_x509_cert *untrusted; size_t n_untrusted; int64_t now;
  ...;
} gostx_cms_verify_params;
typedef struct gostx_cms_signer { const gostx_x509_cert *cert; const gostx_gost3410_key *key; ...; }
    gostx_cms_signer;
typedef struct gostx_cms_sign_params {
  unsigned flags; int64_t signing_time; const gostx_x509_cert *certs; size_t n_certs; ...;
} gostx_cms_sign_params;
typedef enum gostx_cms_cipher { GOSTX_CMS_CIPHER_UNKNOWN, GOSTX_CMS_KUZNYECHIK, GOSTX_CMS_MAGMA,
    GOSTX_CMS_KUZNYECHIK_OMAC, GOSTX_CMS_MAGMA_OMAC, GOSTX_CMS_GOST89, ... } gostx_cms_cipher;
typedef struct gostx_cms_encrypted_content {
  gostx_cms_cipher cipher; size_t ciphertext_len; ...;
} gostx_cms_encrypted_content;
typedef struct gostx_cms_enveloped {
  size_t n_recipients; gostx_cms_encrypted_content content; ...;
} gostx_cms_enveloped;
typedef struct gostx_cms_encrypt_params {
  gostx_cms_cipher cipher; int kari; int key_id; ...;
} gostx_cms_encrypt_params;
typedef enum gostx_cms_ts_status { GOSTX_CMS_TS_OK, GOSTX_CMS_TS_MALFORMED, GOSTX_CMS_TS_REFUSED,
    GOSTX_CMS_TS_NOT_TSTINFO, GOSTX_CMS_TS_UNKNOWN_ALGORITHM, GOSTX_CMS_TS_IMPRINT_MISMATCH,
    GOSTX_CMS_TS_TOKEN, GOSTX_CMS_TS_NOT_TSA, GOSTX_CMS_TS_NONCE_MISMATCH,
    GOSTX_CMS_TS_POLICY_MISMATCH, GOSTX_CMS_TS_NO_SIGNING_CERT, ... } gostx_cms_ts_status;
typedef struct gostx_cms_ts_token {
  const uint8_t *token; size_t token_len; gostx_cms_signed sd; int64_t gen_time; ...;
} gostx_cms_ts_token;
typedef struct gostx_cms_ts_verdict { gostx_cms_ts_status status; gostx_cms_verdict cms; ...; }
    gostx_cms_ts_verdict;
typedef struct gostx_tsa_expect {
  const gostx_cms_hash *hash; const uint8_t *digest; size_t digest_len;
  const uint8_t *nonce; size_t nonce_len; const uint8_t *policy; size_t policy_len;
} gostx_tsa_expect;

/* TLS (include/gostx/tls.h) */
#define GOSTX_TLS_WANT_READ ...
#define GOSTX_TLS_WANT_WRITE ...
#define GOSTX_TLS_CLOSED ...
#define GOSTX_TLS_VERSION_1_2 ...
#define GOSTX_TLS_VERSION_1_3 ...
#define GOSTX_TLS_SESSION_MAX ...
typedef enum gostx_tls_role { GOSTX_TLS_CLIENT, GOSTX_TLS_SERVER, ... } gostx_tls_role;
typedef enum gostx_tls_verify { GOSTX_TLS_VERIFY_NONE, GOSTX_TLS_VERIFY_PEER,
                                GOSTX_TLS_VERIFY_REQUIRE, ... } gostx_tls_verify;
typedef struct gostx_tls_config gostx_tls_config;
typedef struct gostx_tls gostx_tls;

/* helpers defined in SOURCE below */
int gxpy_file_stream(const gostx_file *file, int decrypt, int in_fd, int out_fd, gostx_pool *pool,
                     char *msg, size_t msg_len, int *in_errno, int *out_errno, int *cancel);
void gxpy_tls_keylog_to_fd(gostx_tls_config *cfg, int fd);
typedef struct gxpy_bio { size_t out_len; int eof; ...; } gxpy_bio;
void gxpy_bio_attach(gostx_tls *c, gxpy_bio *b);
size_t gxpy_bio_feed(gxpy_bio *b, const uint8_t *p, size_t len);
size_t gxpy_bio_room(const gxpy_bio *b);
const uint8_t *gxpy_bio_out(const gxpy_bio *b);
"""

# The functions it calls, by the header sections above; their declarations
# are read from include/gostx/*.h (_build_headers.py), after all the types.
FUNCTIONS = """
gostx_strerror gostx_version gostx_impl gostx_cpu_features gostx_memzero
# ciphers
gostx_cipher_init gostx_cipher_encrypt_blocks gostx_cipher_decrypt_blocks gostx_cipher_clear
# GOST R 34.13 modes; the enums' values come from the header (the trailing ...)
gostx_ecb_encrypt gostx_ecb_decrypt gostx_cbc_encrypt gostx_cbc_decrypt gostx_cfb_encrypt
gostx_cfb_decrypt gostx_ofb_crypt gostx_ctr_crypt gostx_ctr_acpkm_crypt gostx_mode_update
gostx_mode_final gostx_mode_clear gostx_omac_init gostx_omac_acpkm_init gostx_omac_update
gostx_omac_final gostx_omac_clear
# MGM
gostx_mgm_encrypt gostx_mgm_decrypt gostx_mgm_init gostx_mgm_aad gostx_mgm_update
gostx_mgm_final_encrypt gostx_mgm_final_decrypt gostx_mgm_clear
# XTS
gostx_xts_set_key gostx_xts_clear gostx_xts_encrypt gostx_xts_decrypt
# GOST 28147-89
gostx_sbox_by_name gostx_gost89_ecb_encrypt gostx_gost89_ecb_decrypt gostx_gost89_update
gostx_gost89_ctx_clear gostx_gost89_imit_init gostx_gost89_imit_update gostx_gost89_imit_final
# Streebog, HMAC, KDFs, key wrap
gostx_streebog_init gostx_streebog_update gostx_streebog_final gostx_streebog
gostx_streebog_clear gostx_gost94_update gostx_gost94_final gostx_gost94_clear gostx_hmac_init
gostx_hmac_update gostx_hmac_final gostx_hmac_clear gostx_hmac gostx_omac gostx_omac_acpkm
gostx_kdf256 gostx_kdf_tree256 gostx_pbkdf2_streebog512 gostx_kexp15 gostx_kimp15
# GOST R 34.10-2012 signatures and VKO (include/gostx/gost3410.h)
gostx_gost3410_size gostx_gost3410_curve_name gostx_gost3410_curve_oid
gostx_gost3410_curve_by_name gostx_gost3410_keygen gostx_gost3410_public_key
gostx_gost3410_check_public_key gostx_gost3410_sign gostx_gost3410_verify gostx_gost3410_vko
gostx_gost3410_keg gostx_gost3410_key_set_private gostx_gost3410_key_set_public
gostx_gost3410_key_read gostx_gost3410_key_is_encrypted gostx_gost3410_key_write
gostx_gost3410_key_clear gostx_gost3410_key_encryption gostx_gost3410_key_is_private
gostx_gost3410_key_sign gostx_gost3410_key_vko gostx_gost3410_key_keg
# keys on PKCS#11 tokens (include/gostx/pkcs11.h)
gostx_p11_uri_parse gostx_p11_uri_clear gostx_p11_error gostx_p11_error_clear gostx_p11_key_open
gostx_p11_cert_read gostx_p11_key_public gostx_p11_key_cert gostx_p11_key_bind
gostx_p11_key_check gostx_p11_key_free gostx_p11_finalize
# PKCS#12 (include/gostx/pkcs12.h)
gostx_pkcs12_read gostx_pkcs12_free gostx_pkcs12_bag_count gostx_pkcs12_bag_get gostx_pkcs12_key
gostx_pkcs12_write
# the bulk engine
gostx_pool_new gostx_pool_free gostx_ctr_crypt_mt gostx_ctr_crypt_mt_at gostx_ctr_acpkm_crypt_mt
gostx_ecb_encrypt_mt gostx_ecb_decrypt_mt gostx_mgm_encrypt_mt gostx_mgm_decrypt_mt
gostx_xts_encrypt_mt gostx_xts_decrypt_mt
# stream batches (batch.h): the enum's values come from the header
gostx_batch_streams
# the file format
gostx_file_init_encrypt gostx_file_init_decrypt gostx_file_clear gostx_file_seal_chunk
gostx_file_open_chunk
# X.509 (include/gostx/x509.h)
gostx_x509_status_name gostx_x509_parse gostx_x509_pem_next gostx_x509_name_text
gostx_x509_san_next gostx_x509_store_new gostx_x509_store_free gostx_x509_store_add_der
gostx_x509_store_add_path gostx_x509_verify_opts_init gostx_x509_verify_with
# CMS SignedData, RFC 3161 and CAdES-T (include/gostx/cms.h, tsa.h, cms_ts.h)
gostx_cms_hash_init gostx_cms_hash_update gostx_cms_hash_final gostx_cms_status_name
gostx_cms_signed_parse gostx_cms_signed_hashes gostx_cms_signed_verify gostx_cms_sign
gostx_cms_enveloped_parse gostx_cms_enveloped_decrypt gostx_cms_encrypt gostx_cms_encrypt_with
gostx_cms_pem_read gostx_cms_pem_write gostx_cms_ts_status_name gostx_cms_ts_parse
gostx_tsa_verify gostx_cms_ts_tokens
# TLS (include/gostx/tls.h)
gostx_tls_config_new gostx_tls_config_free gostx_tls_config_set_chain gostx_tls_config_set_key
gostx_tls_config_set_psk gostx_tls_config_set_tickets gostx_tls_config_set_store
gostx_tls_config_set_verify gostx_tls_config_set_suites gostx_tls_config_set_groups
gostx_tls_config_set_alpn gostx_tls_config_set_versions gostx_tls_config_error gostx_tls_new
gostx_tls_free gostx_tls_set_servername gostx_tls_get_session gostx_tls_set_session
gostx_tls_session_reused gostx_tls_set_fd gostx_tls_handshake gostx_tls_read gostx_tls_write
gostx_tls_pending gostx_tls_unsent gostx_tls_close gostx_tls_version gostx_tls_version_id
gostx_tls_suite gostx_tls_group gostx_tls_alpn gostx_tls_servername gostx_tls_peer_chain
gostx_tls_error gostx_tls_alert
"""

# Whole-file streaming runs in C on the library's pipeline (reads, seals and
# writes overlap on the pool) with the GIL released; only the write sink and
# the FILE* plumbing (with each side's errno) live here, as they have no place
# in the library.
SOURCE = r"""
#ifndef _GNU_SOURCE /* fopencookie (glibc, musl); Python.h defines it first */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <gostx.h>
#include <gostx/tls.h>
#include <stdint.h>

/* One side of the stream: its descriptor (owned by Python), the errno of
 * its failed call, and the flag Python sets on Ctrl-C (each read and write
 * then fails with ECANCELED, which ends the stream). The library reads and
 * writes on its own I/O thread, so the errno is taken there, right after the
 * call that failed. */
struct gxpy_side {
  int fd;
  int err;
  volatile int *cancel;
};

static int gxpy_write(void *arg, const uint8_t *buf, size_t len) {
  struct gxpy_side *o = arg;
  while (len) {
    if (*o->cancel) {
      o->err = ECANCELED;
      return -1;
    }
    ssize_t w = write(o->fd, buf, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      o->err = w < 0 ? errno : EIO;
      return -1;
    }
    buf += w;
    len -= (size_t)w;
  }
  return 0;
}

#if defined(__GLIBC__) || defined(__linux__)
static ssize_t gxpy_read(void *cookie, char *buf, size_t len) {
  struct gxpy_side *in = cookie;
  for (;;) {
    if (*in->cancel) {
      in->err = ECANCELED;
      return -1;
    }
    ssize_t r = read(in->fd, buf, len);
    if (r >= 0 || errno != EINTR) {
      if (r < 0) in->err = errno;
      return r;
    }
  }
}

static FILE *gxpy_reader(struct gxpy_side *in) {
  cookie_io_functions_t fns = {gxpy_read, NULL, NULL, NULL};
  return fopencookie(in, "r", fns);
}
#else /* no cookies: a read error is reported as EIO */
static FILE *gxpy_reader(struct gxpy_side *in) {
  int fd = dup(in->fd);
  FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
  if (!f && fd >= 0) close(fd);
  return f;
}
#endif

/* decrypt = 0: in_fd plaintext -> out_fd header + chunks; decrypt = 1: in_fd
 * is positioned after the header (the caller parsed it and keyed file from it).
 * The caller opens, syncs and closes both descriptors. */
static int gxpy_file_stream(const gostx_file *file, int decrypt, int in_fd, int out_fd,
                            gostx_pool *pool, char *msg, size_t msg_len, int *in_errno,
                            int *out_errno, int *cancel) {
  struct gxpy_side in = {in_fd, 0, cancel}, out = {out_fd, 0, cancel};
  gostx_file_stream s;
  int rc;
  msg[0] = 0;
  FILE *f = gxpy_reader(&in);
  if (!f) {
    *in_errno = errno;
    snprintf(msg, msg_len, "%s", strerror(errno));
    return GOSTX_EIO;
  }
  memset(&s, 0, sizeof s);
  s.in = f;
  s.write = gxpy_write;
  s.write_arg = &out;
  s.pool = pool;
  rc = decrypt ? gostx_file_decrypt_stream(file, &s) : gostx_file_encrypt_stream(file, &s);
  fclose(f);
  *in_errno = in.err;
  *out_errno = out.err;
  if (rc != 0) snprintf(msg, msg_len, "%s", s.msg[0] ? s.msg : gostx_strerror(rc));
  return rc;
}
/* The key log (SSLKEYLOGFILE): each line appended to a descriptor Python
 * opened (O_APPEND) and keeps open while the config lives. In C, not a
 * Python callback: the line comes in the middle of a handshake that runs
 * without the GIL. */
static void gxpy_keylog_line(void *user, const char *line) {
  int fd = (int)(intptr_t)user;
  size_t len = strlen(line);
  char buf[512];
  if (len + 1 > sizeof buf) return; /* NSS lines are < 300 bytes */
  memcpy(buf, line, len);
  buf[len] = '\n';
  ssize_t w;
  do w = write(fd, buf, len + 1); /* one write: lines of threads stay whole */
  while (w < 0 && errno == EINTR);
}

static void gxpy_tls_keylog_to_fd(gostx_tls_config *cfg, int fd) {
  gostx_tls_config_set_keylog(cfg, fd >= 0 ? gxpy_keylog_line : NULL, (void *)(intptr_t)fd);
}

/* The memory transport of gostx.tls.TLSObject (_tls_bio.py, ssl.SSLObject's
 * shape): the library reads what Python fed into in[] and writes its records
 * into out[], which Python empties into the outgoing ssl.MemoryBIO after each
 * call. In C so the library's calls run without the GIL and call no Python;
 * a full out[] is WANT_WRITE, an empty in[] WANT_READ (or EOF once eof is set:
 * the peer's bytes ended). */
#define GXPY_BIO_CAP 65536
typedef struct gxpy_bio {
  size_t out_len;
  int eof;
  size_t in_off, in_len;
  uint8_t in[GXPY_BIO_CAP];
  uint8_t out[GXPY_BIO_CAP];
} gxpy_bio;

static ssize_t gxpy_bio_read(void *user, uint8_t *buf, size_t len) {
  gxpy_bio *b = user;
  size_t n = b->in_len - b->in_off;
  if (n == 0) {
    if (b->eof) return 0;
    errno = EAGAIN;
    return -1;
  }
  if (n > len) n = len;
  memcpy(buf, b->in + b->in_off, n);
  b->in_off += n;
  return (ssize_t)n;
}

static ssize_t gxpy_bio_write(void *user, const uint8_t *buf, size_t len) {
  gxpy_bio *b = user;
  size_t room = GXPY_BIO_CAP - b->out_len;
  if (room == 0) {
    errno = EAGAIN;
    return -1;
  }
  if (len > room) len = room;
  memcpy(b->out + b->out_len, buf, len);
  b->out_len += len;
  return (ssize_t)len;
}

static void gxpy_bio_attach(gostx_tls *c, gxpy_bio *b) {
  gostx_tls_set_io(c, gxpy_bio_read, gxpy_bio_write, b);
}

/* Takes what fits of p (the unread bytes moved to the front first). */
static size_t gxpy_bio_feed(gxpy_bio *b, const uint8_t *p, size_t len) {
  if (b->in_off) {
    memmove(b->in, b->in + b->in_off, b->in_len - b->in_off);
    b->in_len -= b->in_off;
    b->in_off = 0;
  }
  size_t room = GXPY_BIO_CAP - b->in_len;
  if (len > room) len = room;
  memcpy(b->in + b->in_len, p, len);
  b->in_len += len;
  return len;
}

static size_t gxpy_bio_room(const gxpy_bio *b) {
  return GXPY_BIO_CAP - (b->in_len - b->in_off);
}

static const uint8_t *gxpy_bio_out(const gxpy_bio *b) { return b->out; }
"""


def make_ffi(source_dir, xmldsig):
    """source_dir: the C sources (their include/); xmldsig: libgostx-xmldsig's
    calls too (the script's argument "xmldsig")."""
    from _build_esign import CDEF_ESIGN, FUNCTIONS_ESIGN  # beside this file (run as a script)
    from _build_headers import prototypes
    from _build_xmldsig import CDEF_XMLDSIG, SOURCE_XMLDSIG
    ffi = cffi.FFI()
    ffi.cdef(CDEF + CDEF_ESIGN + (CDEF_XMLDSIG if xmldsig else "") +
             prototypes(source_dir, FUNCTIONS + FUNCTIONS_ESIGN))
    ffi.set_source("gostx._gostx", SOURCE + (SOURCE_XMLDSIG if xmldsig else ""))
    return ffi


if __name__ == "__main__":  # _build.py OUT.c SOURCE_DIR [xmldsig]
    make_ffi(sys.argv[2], sys.argv[3:] == ["xmldsig"]).emit_c_code(sys.argv[1])
