/* What cms_enhance.c (the steps of -enhance) and cms_enhance_tsa.c (a
 * TSA's own validation data put in its token) share. */
#ifndef GOSTX_CMS_ENHANCE_H
#define GOSTX_CMS_ENHANCE_H

#include "crl_file.h"
#include "cms_cli.h"
#include "gostx/cades.h"
#include "ocsp_file.h"

typedef struct enhance {
  const cms_args *a;
  gostx_x509_store *store;
  cli_cert_list *untrusted;
  cli_crl_list *crls;
  cli_ocsp_list *ocsps;
  uint8_t *der; /* the message as it is now */
  size_t len;
  gostx_cms_signed *sd;
  gostx_cades_info *info;
  gostx_cms_ts_token *t;
  int reply_used, pending; /* -tsa-reply taken; a query written, the rest for the next run */
} enhance;

/* A lib call that writes a message: sized, then made (call is a
 * closure over the inputs through its ctx). */
typedef int (*make_fn)(const enhance *e, const void *ctx, uint8_t *out, size_t cap, size_t *len,
                       gostx_cades_status *st);

/* make's output, sized then made, into *out (malloc'ed): 0, or the exit
 * status having named what failed. */
int enhance_made(const enhance *e, make_fn make, const void *ctx, const char *what, uint8_t **out,
                 size_t *len);
/* make's output as the message from now on (e->der, e->sd). */
int enhance_remake(enhance *e, make_fn make, const void *ctx, const char *what);
/* -ocsp URL asked about cert (a SHA-1 CertID, a nonce), the response
 * checked now against issuer and appended to e->ocsps. */
int enhance_ask_ocsp(enhance *e, const gostx_x509_cert *cert, const gostx_x509_cert *issuer);

/* The validation data for a built path (res): the certificates above its
 * first, and of the CRLs and OCSP responses given or fetched those for its
 * certificates (a CRL by one's issuer, a response naming one). */
typedef struct enhance_values {
  const uint8_t *certs[GOSTX_X509_MAX_DEPTH], *crls[CLI_CRLS_MAX], *ocsps[CLI_OCSPS_MAX];
  size_t cert_len[GOSTX_X509_MAX_DEPTH], crl_len[CLI_CRLS_MAX], ocsp_len[CLI_OCSPS_MAX];
  gostx_cades_validation v;
} enhance_values;
void enhance_values_for(const enhance *e, const gostx_x509_verify_result *res, enhance_values *ev);

/* Each timestamp of kind (GOSTX_CADES_TS_SIGNATURE, GOSTX_CADES_TS_ESC)
 * whose token has no validation data of its own gets its TSA's: the
 * chain above the TSA certificate and the CRLs and OCSP responses for it
 * (-CRLfile, -ocsp-resp, -ocsp URL asked about the TSA), judged at the
 * time given; none found is said (a warning), a revocation refused. */
int enhance_tsa_values(enhance *e, int kind);

#endif
