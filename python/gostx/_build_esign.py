"""cffi declarations of the qualified-signature calls (include/gostx/ocsp.h,
cades.h, x509_crl.h's PEM reader), kept apart
from _build.py so neither file grows past its size; _build.py appends them
to its CDEF. As there, ``...`` lets the compiler supply what is not read."""

CDEF_ESIGN = r"""
/* OCSP (include/gostx/ocsp.h) */
#define GOSTX_OCSP_MAX_IDS ...
#define GOSTX_OCSP_NONCE_MAX ...
#define GOSTX_OCSP_SKEW_DEFAULT ...
#define GOSTX_OCSP_RESP_SUCCESSFUL ...
#define GOSTX_OCSP_RESP_MALFORMED_REQUEST ...
#define GOSTX_OCSP_RESP_INTERNAL_ERROR ...
#define GOSTX_OCSP_RESP_TRY_LATER ...
#define GOSTX_OCSP_RESP_SIG_REQUIRED ...
#define GOSTX_OCSP_RESP_UNAUTHORIZED ...
typedef enum gostx_ocsp_hash { GOSTX_OCSP_HASH_OTHER, GOSTX_OCSP_SHA1, GOSTX_OCSP_STREEBOG256,
                               GOSTX_OCSP_STREEBOG512, ... } gostx_ocsp_hash;
typedef struct gostx_ocsp_certid {
  gostx_ocsp_hash hash; uint8_t name_hash[...]; uint8_t key_hash[...]; size_t hash_len;
  uint8_t serial[...]; size_t serial_len; ...;
} gostx_ocsp_certid;
typedef struct gostx_ocsp_request {
  gostx_ocsp_certid id[...]; size_t n; uint8_t nonce[...]; size_t nonce_len; ...;
} gostx_ocsp_request;
typedef enum gostx_ocsp_cert_status { GOSTX_OCSP_GOOD, GOSTX_OCSP_REVOKED, GOSTX_OCSP_UNKNOWN,
                                      ... } gostx_ocsp_cert_status;
typedef struct gostx_ocsp_single {
  gostx_ocsp_certid id; gostx_ocsp_cert_status status; int64_t revocation_time; int reason;
  int64_t this_update, next_update; ...;
} gostx_ocsp_single;
typedef struct gostx_ocsp_response {
  int status; size_t sig_len; int by_key; const uint8_t *responder; size_t responder_len;
  int64_t produced_at; size_t n_single; const uint8_t *nonce; size_t nonce_len; ...;
} gostx_ocsp_response;
typedef enum gostx_ocsp_status { GOSTX_OCSP_OK, GOSTX_OCSP_MALFORMED, GOSTX_OCSP_NOT_SUCCESSFUL,
    GOSTX_OCSP_UNSIGNED, GOSTX_OCSP_UNSUPPORTED, GOSTX_OCSP_UNKNOWN_RESPONDER,
    GOSTX_OCSP_BAD_SIGNATURE, GOSTX_OCSP_NOT_AUTHORIZED, GOSTX_OCSP_RESPONDER_NOT_ISSUED,
    GOSTX_OCSP_RESPONDER_EXPIRED, GOSTX_OCSP_CERT_MISSING, GOSTX_OCSP_NONCE_MISSING,
    GOSTX_OCSP_NONCE_MISMATCH, GOSTX_OCSP_NOT_YET_VALID, GOSTX_OCSP_STALE, ... } gostx_ocsp_status;
typedef struct gostx_ocsp_check_opts {
  int64_t now; int64_t skew; int64_t max_age; const gostx_x509_cert *issuer;
  const gostx_x509_cert *trusted; size_t n_trusted; const uint8_t *nonce; size_t nonce_len; ...;
} gostx_ocsp_check_opts;
typedef struct gostx_ocsp_signer_info { int delegated; int nocheck; gostx_x509_cert cert; ...; }
    gostx_ocsp_signer_info;

/* CRLs (include/gostx/x509_crl.h) */typedef struct gostx_x509_crl { const uint8_t *issuer; size_t issuer_len; ...; } gostx_x509_crl;
typedef struct gostx_x509_revocation { int reason; int64_t revocation_date; ...; }
    gostx_x509_revocation;

/* CAdES-C / X Long / X Long Type 1 (cades.h): verify's calls */
#define GOSTX_CADES_MAX ...
#define GOSTX_CADES_TS_ESC ...
#define GOSTX_CADES_TS_SIGNATURE ...
typedef enum gostx_cades_status { GOSTX_CADES_OK, GOSTX_CADES_MALFORMED, GOSTX_CADES_DUPLICATE,
    GOSTX_CADES_TOO_MANY, GOSTX_CADES_UNKNOWN_HASH, GOSTX_CADES_NO_SIGNATURE_TIMESTAMP,
    GOSTX_CADES_NO_REFERENCES, GOSTX_CADES_REFS_COUNT, GOSTX_CADES_CERT_WITHOUT_VALUE,
    GOSTX_CADES_CERT_HASH_MISMATCH, GOSTX_CADES_REV_WITHOUT_VALUE, GOSTX_CADES_REV_HASH_MISMATCH,
    GOSTX_CADES_SIGNATURE_TIMESTAMP, GOSTX_CADES_ESC_TIMESTAMP, GOSTX_CADES_TIME_ORDER,
    GOSTX_CADES_BAD_CRL, GOSTX_CADES_BAD_OCSP, GOSTX_CADES_BAD_CERT, GOSTX_CADES_TIMESTAMPED,
    GOSTX_CADES_OTHER_TOKEN, GOSTX_CADES_TSA_PATH,
    GOSTX_CADES_CERT_REF_MISMATCH, GOSTX_CADES_REV_REF_MISMATCH, ... } gostx_cades_status;
typedef enum gostx_cades_level { GOSTX_CADES_BES, GOSTX_CADES_T, GOSTX_CADES_C,
    GOSTX_CADES_X_LONG, GOSTX_CADES_X_TYPE1, GOSTX_CADES_X_LONG_TYPE1, ... } gostx_cades_level;
#define GOSTX_CADES_TSA_NOT_JUDGED ...
#define GOSTX_CADES_TSA_OK ...
#define GOSTX_CADES_TSA_NO_DATA ...
typedef struct gostx_cades_tsa_judged {
  int outcome; int64_t at; int stale; int64_t stale_at; size_t depth; ...;
} gostx_cades_tsa_judged;
typedef struct gostx_cades_info {
  size_t n_sig_ts, n_esc_ts;
  const uint8_t *sig_ts[...], *esc_ts[...];
  size_t sig_ts_len[...], esc_ts_len[...];
  int has_cert_refs, has_rev_refs, has_cert_values, has_rev_values;
  size_t n_certs, n_crls, n_ocsps;
  const uint8_t *certs[...], *crls[...], *ocsps[...];
  size_t cert_len[...], crl_len[...], ocsp_len[...];
  int64_t sig_ts_time[...], esc_ts_time[...];
  gostx_cades_tsa_judged sig_ts_tsa[...], esc_ts_tsa[...];
  ...;
} gostx_cades_info;
typedef struct gostx_cades_validation {
  const uint8_t *const *certs, *const *crls, *const *ocsps;
  const size_t *cert_len, *crl_len, *ocsp_len;
  size_t n_certs, n_crls, n_ocsps;
  ...;
} gostx_cades_validation;
typedef struct gostx_cades_verdict {
  gostx_cades_status status; gostx_cades_level level; size_t index; gostx_cms_ts_verdict ts;
  int ts_kind; size_t ts_index; gostx_x509_status x509; size_t depth; int64_t at; char why[...];
  ...;
} gostx_cades_verdict;
typedef struct gostx_cades_revocation {
  const gostx_x509_crl *crls; size_t n_crls; const gostx_ocsp_response *ocsps; size_t n_ocsps; ...;
} gostx_cades_revocation;
/* the one enhance policy (cades.h: gostx_cades_enhance), Python's I/O as
 * callbacks (_cades.py) */
#define GOSTX_CADES_LATER ...
#define GOSTX_CADES_R_OK ...
#define GOSTX_CADES_R_PENDING ...
#define GOSTX_CADES_R_INPUT ...
#define GOSTX_CADES_R_FETCH ...
#define GOSTX_CADES_R_STAMP ...
#define GOSTX_CADES_R_OCSP ...
#define GOSTX_CADES_R_NO_CERT ...
#define GOSTX_CADES_R_CHAIN ...
#define GOSTX_CADES_R_BUILD ...
#define GOSTX_CADES_R_JUDGED ...
#define GOSTX_CADES_R_LEVEL ...
#define GOSTX_CADES_R_STAMPED ...
#define GOSTX_CADES_R_TSA_DATA ...
#define GOSTX_CADES_R_NO_DATA ...
typedef struct gostx_cades_report {
  int what; gostx_cades_level level; int ts_kind; size_t ts_index; int revocation;
  int fetch, rc; gostx_cms_status cms; int pki_status; gostx_ocsp_status ocsp;
  int64_t gen_time; uint8_t serial[20]; size_t serial_len; gostx_cades_verdict v; ...;
} gostx_cades_report;
typedef struct gostx_cades_fetch {
  void *ctx;
  int (*tsa)(void *, int, const uint8_t *, size_t, const uint8_t **, size_t *);
  int (*ocsp)(void *, const uint8_t *, size_t, const uint8_t **, size_t *);
  int (*crl)(void *, const uint8_t *, size_t, const uint8_t **, size_t *);
  void (*note)(void *, const gostx_cades_report *);
  int (*put)(void *, const uint8_t *, size_t);
  ...;
} gostx_cades_fetch;
typedef struct gostx_cades_enhance_opts {
  size_t signer; gostx_cades_level to; const gostx_cms_verify_params *params;
  const gostx_cades_validation *have; int force; ...;
} gostx_cades_enhance_opts;
extern "Python" int gxpy_cades_tsa(void *, int, const uint8_t *, size_t, const uint8_t **,
                                   size_t *);
extern "Python" void gxpy_cades_note(void *, const gostx_cades_report *);
extern "Python" int gxpy_cades_put(void *, const uint8_t *, size_t);
"""

# The functions it calls, by the header sections above; their declarations
# are read from include/gostx/*.h (_build_headers.py), after all the types.
FUNCTIONS_ESIGN = """
# OCSP (include/gostx/ocsp.h)
gostx_ocsp_certid_make gostx_ocsp_certid_equal gostx_ocsp_request_write gostx_ocsp_request_parse
gostx_ocsp_response_parse gostx_ocsp_single_next gostx_ocsp_cert_next gostx_ocsp_status_name
gostx_ocsp_check_opts_init gostx_ocsp_check gostx_ocsp_reason_name
# CRLs (include/gostx/x509_crl.h)
gostx_x509_crl_pem_next gostx_x509_crl_parse gostx_x509_crl_reason_name gostx_x509_crl_status
# CAdES-C / X Long / X Long Type 1 (cades.h): verify's calls
gostx_cades_status_name gostx_cades_level_name gostx_cades_judged_at_timestamp
gostx_cades_verify gostx_cades_verify_with
# the one enhance policy (cades.h: gostx_cades_enhance), Python's I/O as callbacks (_cades.py)
gostx_cades_enhance
"""
