/* cli/common/cert_build.c and cert_issue.c: what `gostx req`, `gostx x509
 * -req` and `gostx ca` share. Each
 * function prints why it failed and returns 0, CLI_EXIT_USAGE or
 * CLI_EXIT_FAIL. */
#ifndef GOSTX_CLI_CERT_BUILD_H
#define GOSTX_CLI_CERT_BUILD_H

#include "cli.h"

#define CSR_FILE_MAX (1u << 20) /* a request or CA file read whole */
#define CERT_DER_MAX 16384      /* a certificate or request written */

/* A private key file (-passin for an encrypted one) as the signer; opt
 * names the option in messages. gostx_gost3410_key_clear(k) when done. */
int cert_load_signing_key(const char *opt, const char *path, const char *pass_spec,
                          gostx_gost3410_key *k);
/* der to path ("-"/NULL stdout), as PEM with label when pem. */
int cert_write(const char *path, const char *label, const uint8_t *der, size_t len, int pem);
/* -outform PEM|DER. */
int cert_outform(const char *arg, int *pem);
/* -days N: now + N days. */
int cert_days(const char *arg, int64_t now, int64_t *not_after);
/* -not_before / -not_after DATE, openssl's forms: YYMMDDHHMMSSZ (UTCTime),
 * YYYYMMDDHHMMSSZ (GeneralizedTime) or "today" (now): Unix time. */
int cert_date(const char *opt, const char *arg, int64_t now, int64_t *t);

typedef struct cert_serial {
  uint8_t b[20];
  size_t len;
} cert_serial;
/* 159 random bits with the top one set: positive, 20 bytes (RFC 5280 4.1.2.2). */
int cert_random_serial(cert_serial *s);
/* -set_serial: decimal, or hex after "0x" (hex: hex digits only). */
int cert_parse_serial(const char *what, const char *text, int hex, cert_serial *s);
/* -CAserial FILE: its number plus one, written back (create: a random one
 * when the file does not exist). */
int cert_next_serial(const char *path, int create, cert_serial *s);
/* -extfile FILE [-extensions SECTION]: each "name = value" of the section
 * (the top of the file, or the one its "extensions =" names) added to e;
 * subjectAltName = @section as openssl takes it. */
int cert_extfile(const char *path, const char *section, gostx_x509_exts *e);

/* What `gostx x509 -req` (and `gostx ca`) issue from: the request, the
 * CA's certificate and key (cakey NULL: in the ca file), validity, the
 * extension file, the serial (set, else -CAserial's, else random). */
typedef struct x509_req_args {
  const char *in, *ca, *cakey, *pass, *days, *extfile, *section, *caserial, *out;
  const char *not_before, *not_after;
  int pem, copy, create, have_serial, cakey_in_ca;
  cert_serial serial;
} x509_req_args;
/* A request read from a file: PEM ("CERTIFICATE REQUEST") or DER, parsed
 * and its signature checked; *buf holds the DER the views point into
 * (cli/common/cert_issue.c, as the next). */
int cert_load_csr(const char *path, uint8_t **buf, gostx_x509_csr *csr);
/* The certificate, DER, malloc'ed into *der. */
int cert_issue(const x509_req_args *a, uint8_t **der, size_t *len);

#endif
