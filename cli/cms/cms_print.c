/* gostx cms -cmsout [-print]: a SignedData checked and written again
 * (PEM or DER), or its structure as text. A SignedData holds no secret:
 * everything in it may be printed. */
#include <stdlib.h>
#include <string.h>

#include "cms_cli.h"

static void print_hex(FILE *f, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) fprintf(f, "%02x", p[i]);
  fputc('\n', f);
}

static void print_oid(FILE *f, const uint8_t *p, size_t n) {
  static const struct { const char *oid, *name; } names[] = {
      {"1.2.840.113549.1.7.1", "data"},
      {"1.2.643.7.1.1.2.2", "Streebog-256"},
      {"1.2.643.7.1.1.2.3", "Streebog-512"},
      {"1.2.643.7.1.1.1.1", "GOST R 34.10-2012 256"},
      {"1.2.643.7.1.1.1.2", "GOST R 34.10-2012 512"},
      {"1.2.643.7.1.1.3.2", "GOST R 34.10-2012 256 with Streebog-256"},
      {"1.2.643.7.1.1.3.3", "GOST R 34.10-2012 512 with Streebog-512"},
  };
  char text[96];
  gostx_cms_oid_text(p, n, text, sizeof text);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(text, names[i].oid)) {
      fprintf(f, "%s (%s)\n", names[i].name, text);
      return;
    }
  fprintf(f, "%s\n", text);
}

static void print_name(FILE *f, const uint8_t *name, size_t len) {
  char text[1024];
  if (gostx_x509_name_text(name, len, text, sizeof text)) snprintf(text, sizeof text, "(malformed)");
  fprintf(f, "%s\n", text);
}

static void print_time(FILE *f, int64_t t) {
  time_t tt = (time_t)t;
  struct tm tm;
  char text[64];
  if (gmtime_r(&tt, &tm) && strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm))
    fprintf(f, "%s\n", text);
  else
    fprintf(f, "%lld\n", (long long)t);
}

static void print_cert(FILE *f, size_t i, const gostx_x509_cert *c) {
  fprintf(f, "    [%zu] subject: ", i);
  print_name(f, c->subject, c->subject_len);
  fprintf(f, "        issuer: ");
  print_name(f, c->issuer, c->issuer_len);
  fprintf(f, "        serial: ");
  print_hex(f, c->serial, c->serial_len);
}

static void print_attrs(FILE *f, const gostx_cms_signer_info *si) {
  fprintf(f, "      signedAttrs:%s\n", si->attr_status ? " (refused: see -verify)" : "");
  if (si->attr_content_type) {
    fprintf(f, "        contentType: ");
    print_oid(f, si->attr_content_type, si->attr_content_type_len);
  }
  if (si->attr_digest) {
    fprintf(f, "        messageDigest: ");
    print_hex(f, si->attr_digest, si->attr_digest_len);
  }
  if (si->has_signing_time) {
    fprintf(f, "        signingTime: ");
    print_time(f, si->signing_time);
  }
  if (si->ess_hash) {
    const char *alg = si->ess_hash_alg == GOSTX_CMS_ESS_SHA1_V1 ? "SHA-1"
                      : si->ess_hash_alg == GOSTX_CMS_ESS_SHA256 ? "SHA-256"
                      : si->ess_hash_alg == GOSTX_CMS_ESS_STREEBOG256 ? "Streebog-256"
                      : si->ess_hash_alg == GOSTX_CMS_ESS_STREEBOG512 ? "Streebog-512"
                                                                      : "unknown";
    fprintf(f, "        %s: %s ", si->ess_hash_alg == GOSTX_CMS_ESS_SHA1_V1 ? "signingCertificate" : "signingCertificateV2", alg);
    print_hex(f, si->ess_hash, si->ess_hash_len);
  }
}

static void print_signer(FILE *f, size_t i, const gostx_cms_signer_info *si) {
  fprintf(f, "    [%zu] version: %d\n", i, si->version);
  if (si->sid_kind == GOSTX_CMS_SID_KEY_ID) {
    fprintf(f, "      sid: subjectKeyIdentifier ");
    print_hex(f, si->sid_key_id, si->sid_key_id_len);
  } else {
    fprintf(f, "      sid: issuer ");
    print_name(f, si->sid_issuer, si->sid_issuer_len);
    fprintf(f, "           serial ");
    print_hex(f, si->sid_serial, si->sid_serial_len);
  }
  fprintf(f, "      digestAlgorithm: ");
  print_oid(f, si->digest_oid, si->digest_oid_len);
  if (si->signed_attrs) print_attrs(f, si);
  fprintf(f, "      signatureAlgorithm: ");
  print_oid(f, si->sig_oid, si->sig_oid_len);
  fprintf(f, "      signature: ");
  print_hex(f, si->signature, si->signature_len);
  if (si->unsigned_attrs) fprintf(f, "      unsignedAttrs: %zu bytes\n", si->unsigned_attrs_len);
  if (si->unsigned_attrs) cms_ts_print(f, si);
}

static void print_signed(FILE *f, const gostx_cms_signed *sd) {
  fprintf(f, "CMS ContentInfo: signedData (1.2.840.113549.1.7.2)\n  version: %d\n", sd->version);
  fprintf(f, "  eContentType: ");
  print_oid(f, sd->content_type, sd->content_type_len);
  if (sd->content)
    fprintf(f, "  eContent: %zu bytes attached\n", sd->content_len);
  else
    fprintf(f, "  eContent: absent (detached signature)\n");
  fprintf(f, "  certificates: %zu", sd->n_certs);
  if (sd->n_certs_skipped) fprintf(f, " (and %zu not GOST X.509)", sd->n_certs_skipped);
  fputc('\n', f);
  for (size_t i = 0; i < sd->n_certs; i++) print_cert(f, i, &sd->certs[i]);
  fprintf(f, "  signerInfos: %zu\n", sd->n_signers);
  for (size_t i = 0; i < sd->n_signers; i++) print_signer(f, i, &sd->signers[i]);
}

/* The text to a memory stream, then to -out atomically (or stdout). */
static int print_to(const char *path, const gostx_cms_signed *sd) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  print_signed(f, sd);
  int rc = fclose(f) ? (cli_err("out of memory"), CLI_EXIT_FAIL) : cli_write_file(path, text, len, 0);
  free(text);
  return rc;
}

int cms_cmsout(const cms_args *a) {
  uint8_t *der = NULL;
  gostx_cms_signed *sd = NULL;
  int rc = cms_load_signed(a, &der, &sd);
  if (!rc) rc = a->print ? print_to(a->out, sd) : cms_write_message(a->out, a->outform, sd->der, sd->der_len);
  free(sd);
  free(der);
  return rc;
}
