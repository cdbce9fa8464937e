#define _GNU_SOURCE /* memmem */
/* What `gostx x509 -req` and `gostx ca` issue with (cert_build.h): a
 * request read and checked, the CA's certificate and key, the
 * certificate written by lib/x509's writer. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cert_build.h"

int cert_load_csr(const char *path, uint8_t **buf, gostx_x509_csr *csr) {
  uint8_t *text;
  size_t len, der_len, pos = 0;
  int rc = cli_read_file(path, &(cli_file){NULL, CSR_FILE_MAX, 0}, &text, &len);
  if (rc) return rc;
  *buf = malloc(len ? len : 1);
  if (!*buf) {
    free(text);
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  int r = gostx_x509_csr_pem_next((const char *)text, len, &pos, *buf, len, &der_len);
  if (r == 0) memcpy(*buf, text, der_len = len); /* no PEM block: DER */
  free(text);
  if (r < 0) return cli_usage("%s: malformed PEM certificate request", path);
  switch (gostx_x509_csr_parse(*buf, der_len, csr)) {
    case 0: return 0;
    case GOSTX_EAUTH:
      cli_err("%s: the request's signature does not verify (altered, or not signed by the key "
              "it carries)", path);
      return CLI_EXIT_FAIL;
    case GOSTX_EUNSUP:
      return cli_usage("%s: not a GOST R 34.10-2012 request (key or signature algorithm)", path);
    default: return cli_usage("%s: not a DER or PEM PKCS#10 certificate request", path);
  }
}

/* The issuer: its certificate (the first of the file, parsed over *der)
 * and its key, which must be the certificate's. */
typedef struct issuer {
  uint8_t *der;
  gostx_x509_cert cert;
  gostx_gost3410_key xk;
} issuer;

static int load_issuer(const x509_req_args *a, issuer *is) {
  uint8_t *text = NULL;
  size_t len = 0;
  /* A pkcs11: URI names the certificate stored with the CA's key on a
   * token, and the key itself (-CAkey defaults to it). */
  int on_token = gostx_p11_is_uri(a->ca), rc = 0;
  if (!on_token && (rc = cli_read_file(a->ca, &(cli_file){NULL, CSR_FILE_MAX, 0}, &text, &len)))
    return rc;
  cli_certs_how how = {{"-CA", 0, 1}, 0, 0, 0}; /* refusals name -CA, as usage errors */
  cli_cert_list *l = calloc(1, sizeof *l);
  if (!l) rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
  else rc = on_token ? cli_certs_read(a->ca, &how, l) : cli_certs_parse(a->ca, &how, text, len, l);
  if (!rc) { /* the first is the issuer's */
    is->cert = l->c[0], is->der = l->der[0];
    l->der[0] = NULL;
  }
  if (l) cli_cert_list_free(l);
  free(l);
  int holds_key = on_token || memmem(text, len, "PRIVATE KEY-----", 16) != NULL;
  free(text);
  if (rc) return rc;
  if (is->cert.key_alg == GOSTX_X509_KEY_2001)
    return cli_usage("-CA %s: a GOST R 34.10-2001 key; gostx issues with 2012 keys", a->ca);
  if (a->cakey_in_ca && !holds_key)
    return cli_usage("-CA %s holds no private key: give -CAkey", a->ca);
  rc = cert_load_signing_key("-CAkey", a->cakey, a->pass, &is->xk);
  if (rc) return rc;
  if (is->xk.curve != is->cert.curve || 2 * is->xk.len != is->cert.pub_len ||
      memcmp(is->xk.q, is->cert.pub, is->cert.pub_len)) {
    cli_err("-CAkey %s does not match the certificate -CA %s (another key)", a->cakey, a->ca);
    return CLI_EXIT_FAIL;
  }
  if (!is->cert.is_ca)
    cli_err("warning: -CA %s has no basicConstraints CA:TRUE: verifiers refuse what it issues", a->ca);
  return 0;
}

/* -extfile's extensions, then the request's (-copy_extensions copy). */
static int x509_req_exts(const x509_req_args *a, const gostx_x509_csr *csr, gostx_x509_exts *e) {
  gostx_x509_exts_init(e);
  int rc = a->extfile ? cert_extfile(a->extfile, a->section, e) : 0;
  const uint8_t *oid, *value;
  size_t pos = 0, oid_len, value_len;
  int critical;
  while (!rc && a->copy &&
         gostx_x509_csr_ext_next(csr, &pos, &oid, &oid_len, &critical, &value, &value_len) == 1)
    if (gostx_x509_exts_add_der(e, oid, oid_len, critical, value, value_len) < 0)
      rc = cli_usage("-copy_extensions: the request has too many or too long extensions");
  return rc;
}

static int x509_req_issue(const x509_req_args *a, const gostx_x509_csr *csr, const issuer *is,
                          const gostx_x509_exts *e, uint8_t *der, size_t *len) {
  cert_serial serial = a->serial;
  uint8_t id[64];
  size_t id_len = 0;
  int64_t now = (int64_t)time(NULL), not_before = now, not_after = now + 30 * 86400;
  int rc = a->days ? cert_days(a->days, now, &not_after) : 0;
  if (!rc && a->not_before) rc = cert_date("-not_before", a->not_before, now, &not_before);
  if (!rc && a->not_after) rc = cert_date("-not_after", a->not_after, now, &not_after);
  if (!rc && not_after < not_before)
    rc = cli_usage("x509 -req: the certificate would end (-not_after, -days) before it starts");
  if (!rc && !a->have_serial)
    rc = a->caserial ? cert_next_serial(a->caserial, a->create, &serial) : cert_random_serial(&serial);
  if (rc) return rc;
  if (e->aki && gostx_x509_cert_key_id(&is->cert, id, sizeof id, &id_len)) {
    cli_err("-CA %s: its key identifier cannot be made", a->ca);
    return CLI_EXIT_FAIL;
  }
  gostx_x509_cert_spec s = {serial.b, serial.len, is->cert.subject, csr->subject,
                            is->cert.subject_len, csr->subject_len, not_before, not_after, csr->spki,
                            csr->spki_len, e, e->aki ? id : NULL, id_len};
  if (gostx_x509_cert_write(&s, &is->xk, der, CERT_DER_MAX, len)) {
    cli_err("x509 -req: the certificate could not be written (too large?)");
    return CLI_EXIT_FAIL;
  }
  return 0;
}

int cert_issue(const x509_req_args *ap, uint8_t **der_out, size_t *len) {
  x509_req_args a = *ap;
  if (!a.cakey) a.cakey = a.ca, a.cakey_in_ca = 1;
  issuer *is = calloc(1, sizeof *is);
  gostx_x509_exts *e = malloc(sizeof *e);
  uint8_t *csr_der = NULL, *der = malloc(CERT_DER_MAX);
  gostx_x509_csr csr;
  int rc = 0;
  if (!is || !e || !der) {
    cli_err("out of memory");
    rc = CLI_EXIT_FAIL;
  }
  if (!rc) rc = cert_load_csr(a.in, &csr_der, &csr);
  if (!rc) rc = load_issuer(&a, is);
  if (!rc) rc = x509_req_exts(&a, &csr, e);
  if (!rc) rc = x509_req_issue(&a, &csr, is, e, der, len);
  if (is) {
    gostx_gost3410_key_clear(&is->xk);
    free(is->der);
  }
  free(is);
  free(e);
  free(csr_der);
  if (rc) free(der);
  else *der_out = der;
  return rc;
}
