/* gostx cms -encrypt / -decrypt (EnvelopedData: KTRI, KARI, RFC 4490),
 * -EncryptedData_encrypt / _decrypt (a -secretkey) and -digest_create /
 * -digest_verify (DigestedData), on lib/cms. A decrypted content is
 * written (0600, atomically) only after the library has decrypted it
 * whole and, for -OMAC content, checked its MAC; plain CTR-ACPKM and
 * GOST 28147-89 CFB are said on stderr to be unauthenticated. All of it
 * streams (lib/cms's *_stream calls). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cms_cli.h"

/* The algorithms other producers use that gostx does not read, named in
 * a refusal beside their OID. */
static const char *foreign_name(const char *dotted) {
  static const struct {
    const char *oid, *name;
  } names[] = {
      {"2.16.840.1.101.3.4.1.2", "AES-128-CBC"},    {"2.16.840.1.101.3.4.1.22", "AES-192-CBC"},
      {"2.16.840.1.101.3.4.1.42", "AES-256-CBC"},   {"2.16.840.1.101.3.4.1.6", "AES-128-GCM"},
      {"2.16.840.1.101.3.4.1.26", "AES-192-GCM"},   {"2.16.840.1.101.3.4.1.46", "AES-256-GCM"},
      {"2.16.840.1.101.3.4.1.7", "AES-128-CCM"},    {"2.16.840.1.101.3.4.1.27", "AES-192-CCM"},
      {"2.16.840.1.101.3.4.1.47", "AES-256-CCM"},   {"2.16.840.1.101.3.4.1.5", "AES-128 key wrap"},
      {"2.16.840.1.101.3.4.1.25", "AES-192 key wrap"}, {"2.16.840.1.101.3.4.1.45", "AES-256 key wrap"},
      {"1.2.840.113549.3.7", "DES-EDE3-CBC"},      {"1.2.840.113549.3.2", "RC2-CBC"},
      {"1.3.14.3.2.7", "DES-CBC"},                 {"1.2.840.113549.1.1.1", "RSA"},
      {"1.2.840.113549.1.1.7", "RSAES-OAEP"},      {"1.3.132.1.11.1", "ECDH (SHA-256 KDF)"},
      {"1.3.133.16.840.63.0.2", "ECDH (SHA-1 KDF)"},
      {"1.2.643.2.2.19", "GOST R 34.10-2001 key agreement (VKO with GOST R 34.11-94)"},
      {"1.2.643.2.2.98", "GOST R 34.10-2001 key agreement (VKO with GOST R 34.11-94)"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(dotted, names[i].oid)) return names[i].name;
  return NULL;
}

/* openssl cms's line after a refused decryption, and its status; an
 * algorithm not built named by its OID (and name where known). */
/* element: what TOO_LARGE found too large (NULL: not said) */
static int refuse(const char *path, gostx_cms_status st, const uint8_t *oid, size_t oid_len,
                  const char *element) {
  char text[160] = "";
  if ((st == GOSTX_CMS_UNKNOWN_CIPHER || st == GOSTX_CMS_UNKNOWN_KEY_WRAP) && oid) {
    char dotted[80];
    gostx_cms_oid_text(oid, oid_len, dotted, sizeof dotted);
    const char *name = foreign_name(dotted);
    snprintf(text, sizeof text, " (%s%sOID %s)", name ? name : "", name ? ", " : "", dotted);
  }
  if (st == GOSTX_CMS_TOO_LARGE && element) snprintf(text, sizeof text, ": %s", element);
  cli_err("cms: %s: %s%s", path, gostx_cms_status_name(st), text);
  fprintf(stderr, "Error decrypting CMS structure\n");
  return CMS_EXIT_VERIFY;
}

static void say_unauthenticated(gostx_cms_cipher cipher) {
  if (!gostx_cms_cipher_has_mac(cipher))
    cli_err("cms: note: the content is %s: not authenticated (a changed ciphertext decrypts to "
            "changed bytes undetected)",
            cipher == GOSTX_CMS_GOST89 ? "GOST 28147-89 CFB" : "CTR-ACPKM without OMAC");
}

/* The message made by make (two calls: size, then the bytes) written as
 * -outform asks. */
typedef int (*make_fn)(const void *ctx, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                       size_t *out_len);

static int make_and_write(const cms_args *a, make_fn make, const void *ctx, const uint8_t *in,
                          size_t len) {
  size_t need = 0;
  uint8_t *der = NULL;
  int rc = make(ctx, in, len, NULL, 0, &need);
  if (!rc && !(der = malloc(need))) rc = GOSTX_ENOMEM;
  if (!rc) rc = make(ctx, in, len, der, need, &need);
  if (rc) {
    cli_err("cms: %s", gostx_strerror(rc));
    free(der);
    return CLI_EXIT_FAIL;
  }
  rc = cms_write_message(a->out, a->outform, der, need);
  free(der);
  return rc;
}

/* ---- -encrypt ---- */

typedef struct recipients {
  cli_cert_list *certs;
  gostx_x509_cert list[GOSTX_CMS_MAX_RECIPIENTS];
  size_t n;
} recipients;

static int content_read(void *ctx, uint8_t *buf, size_t cap, size_t *got) {
  return cli_in_read(ctx, buf, cap, got);
}

/* -in encrypted in constant memory (gostx_cms_encrypt_stream) to -out:
 * DER lengths from a regular file's size, else (a pipe) BER with
 * indefinite lengths, as openssl cms -stream writes. */
static int encrypt_to_out(const cms_args *a, gostx_cms_encrypt_stream_params *p) {
  cli_in in;
  cms_stream_out out;
  struct stat sb;
  p->cipher = a->cipher;
  p->work_len = GOSTX_CMS_STREAM_WORK;
  if (!(p->work = malloc(p->work_len))) return cli_err("out of memory"), CLI_EXIT_FAIL;
  int rc = cli_in_open(&in, a->in);
  if (rc) return free(p->work), rc;
  p->content_len = fstat(fileno(in.f), &sb) == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size
                                                                         : GOSTX_CMS_LEN_UNKNOWN;
  if (!(rc = cms_stream_out_open(&out, a->out, a->outform))) {
    int lrc = gostx_cms_encrypt_stream(p, content_read, &in, cms_stream_write, &out);
    if (lrc == GOSTX_ELEN) rc = (cli_err("cms: %s changed size while it was read", in.name), CLI_EXIT_FAIL);
    else if (lrc) rc = lrc > 0 ? lrc : (cli_err("cms: %s", gostx_strerror(lrc)), CLI_EXIT_FAIL);
    if (!rc) rc = cms_stream_out_commit(&out);
    cms_stream_out_close(&out);
  }
  cli_in_close(&in);
  gostx_memzero(p->work, p->work_len);
  free(p->work);
  return rc;
}

/* path's private key (-passin) into key; with cert (cert_path's), it
 * must be that certificate's key. */
static int load_key_of(const char *path, const char *passin, const gostx_x509_cert *cert,
                       const char *cert_path, gostx_gost3410_key *key) {
  int rc = cli_load_key_pass(path, key, "-passin", passin);
  if (rc) return rc;
  if (!gostx_gost3410_key_is_private(key)) rc = cli_usage("cms: %s: not a private key", path);
  if (!rc && cert &&
      (cert->curve != key->curve || cert->pub_len != 2 * key->len || memcmp(cert->pub, key->q, cert->pub_len)))
    rc = cli_usage("cms: %s is not the private key of %s", path, cert_path);
  return rc;
}

/* -originator CERT -originator-key KEY: a KARI's static originator, on
 * every recipient's curve (KEG agrees on one curve only). */
static int load_originator(const cms_args *a, const recipients *r, cli_cert_list *orig,
                           gostx_gost3410_key *key) {
  int rc = cli_load_certs(a->originator, orig);
  if (!rc) rc = load_key_of(a->originator_key, a->passin, &orig->c[0], a->originator, key);
  for (size_t i = 0; !rc && i < r->n; i++)
    if (r->list[i].curve != key->curve)
      rc = cli_usage("cms: -originator %s: not on %s's curve", a->originator, a->recip[i]);
  return rc;
}

/* Each -recip file's first certificate, a GOST R 34.10-2012 key. */
static int load_recipients(const cms_args *a, recipients *r) {
  for (size_t i = 0; i < a->n_recip; i++) {
    size_t first = r->certs->n;
    int rc = cli_load_certs(a->recip[i], r->certs);
    if (rc) return rc;
    const gostx_x509_cert *c = &r->certs->c[first];
    if (c->key_alg == GOSTX_X509_KEY_2001)
      return cli_usage("cms: %s: a GOST R 34.10-2001 key (KeyTransport2019 needs a 2012 key)", a->recip[i]);
    /* a size query for this one: refused only for a missing key id here */
    gostx_cms_encrypt_params p = {a->cipher, a->kari, a->key_id, NULL, NULL};
    size_t need;
    if (a->key_id && gostx_cms_encrypt_with(c, 1, &p, NULL, 0, NULL, 0, &need))
      return cli_usage("cms: -keyid: %s has no subjectKeyIdentifier", a->recip[i]);
    r->list[r->n++] = *c;
  }
  return 0;
}

int cms_encrypt(const cms_args *a) {
  recipients r;
  memset(&r, 0, sizeof r);
  int rc = (r.certs = calloc(1, sizeof *r.certs)) ? load_recipients(a, &r)
                                                  : (cli_err("out of memory"), CLI_EXIT_FAIL);
  cli_cert_list *orig = calloc(1, sizeof *orig);
  gostx_gost3410_key okey;
  memset(&okey, 0, sizeof okey);
  if (!rc && !orig) rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc && a->originator_key) rc = load_originator(a, &r, orig, &okey);
  gostx_cms_encrypt_stream_params p = {0};
  p.recipients = r.list, p.n_recipients = r.n, p.kari = a->kari, p.key_id = a->key_id;
  if (a->originator_key) p.originator = &orig->c[0], p.originator_key = &okey;
  if (!rc) rc = encrypt_to_out(a, &p);
  gostx_gost3410_key_clear(&okey);
  if (orig) cli_cert_list_free(orig);
  free(orig);
  if (r.certs) cli_cert_list_free(r.certs);
  free(r.certs);
  return rc;
}

/* ---- -decrypt ---- */

/* The recipient's certificate (when -recip names it) and its private key
 * (which must be it). */
static int load_recipient_key(const cms_args *a, cli_cert_list *certs, gostx_gost3410_key *key) {
  int rc = a->n_recip ? cli_load_certs(a->recip[0], certs) : 0;
  if (rc) return rc;
  return load_key_of(a->inkey[0], a->passin, a->n_recip ? &certs->c[0] : NULL, a->recip[0], key);
}

/* Where decrypted content goes until the library says it is whole and
 * authentic: -out's temporary file (cli_out, 0600: it was secret), put
 * in place only then; for stdout or a pipe, an unlinked spool file
 * (tmpfile) copied there only then: nothing reaches -out before. */
typedef struct content_out {
  cli_out out;
  FILE *spool;
  int failed;
} content_out;

static int content_open(content_out *c, const char *path) {
  memset(c, 0, sizeof *c);
  int rc = cli_out_open(&c->out, path, CLI_OUT_PRIVATE);
  if (rc) return rc;
  if (!c->out.direct) return cli_out_bulk(&c->out), 0;
  if ((c->spool = tmpfile())) return 0;
  cli_out_abort(&c->out);
  cli_err("cms: cannot make a spool file for %s", c->out.name);
  return CLI_EXIT_FAIL;
}

/* A refused decryption named: with -inkey alone, that no recipient opens;
 * else as openssl cms names it. */
static int refuse_decrypt(const cms_args *a, const gostx_cms_decrypt_params *p,
                          const gostx_cms_stream_result *res) {
  if (!p->cert && !p->secret_key && res->status == GOSTX_CMS_RECIPIENT_NOT_FOUND) {
    cli_err("cms: %s: none of its %zu recipients opens with the key of %s", a->in,
            res->n_recipients, a->inkey[0]);
    fprintf(stderr, "Error decrypting CMS structure\n");
    return CMS_EXIT_VERIFY;
  }
  return refuse(a->in, res->status, res->oid, res->oid_len, res->too_large);
}

static int content_write(void *ctx, const uint8_t *p, size_t len) {
  content_out *c = ctx;
  if (c->spool ? fwrite(p, 1, len, c->spool) != len : cli_out_write(&c->out, p, len) != 0) {
    if (c->spool) cli_err("cms: spool file: write error");
    return c->failed = 1, CLI_EXIT_FAIL;
  }
  return 0;
}

static int content_commit(content_out *c) {
  static uint8_t buf[65536];
  size_t n;
  int rc = c->spool && fseek(c->spool, 0, SEEK_SET) ? CLI_EXIT_FAIL : 0;
  while (!rc && c->spool && (n = fread(buf, 1, sizeof buf, c->spool)) > 0)
    rc = cli_out_write(&c->out, buf, n);
  if (!rc && c->spool && ferror(c->spool)) rc = (cli_err("cms: spool file: read error"), CLI_EXIT_FAIL);
  if (!rc) rc = cli_out_commit(&c->out);
  return rc;
}

static void content_close(content_out *c) {
  cli_out_abort(&c->out);
  if (c->spool) fclose(c->spool);
}

/* -in decrypted in constant memory (gostx_cms_decrypt_stream) into -out:
 * put in place only when the library returns 0 (whole, and the OMAC
 * checked for -OMAC content); a refusal is named, nothing written. */
static int decrypt_to_out(const cms_args *a, gostx_cms_decrypt_params *p) {
  cms_stream_in in;
  content_out c;
  gostx_cms_stream_result res;
  p->work_len = GOSTX_CMS_STREAM_WORK;
  if (!(p->work = malloc(p->work_len))) return cli_err("out of memory"), CLI_EXIT_FAIL;
  int rc = cms_stream_open(&in, a->in, a->inform);
  if (rc) return free(p->work), rc;
  if (!(rc = content_open(&c, a->out))) {
    int lrc = gostx_cms_decrypt_stream(p, cms_stream_read, &in, content_write, &c, &res);
    if (lrc && (in.failed || c.failed)) rc = in.failed ? lrc : CLI_EXIT_FAIL; /* said already */
    else if (lrc) rc = refuse_decrypt(a, p, &res);
    if (!rc) say_unauthenticated(res.cipher);
    if (!rc) rc = content_commit(&c);
    content_close(&c);
  }
  cms_stream_close(&in);
  free(p->work);
  return rc;
}

int cms_decrypt(const cms_args *a) {
  cli_cert_list *certs = calloc(1, sizeof *certs), *orig = calloc(1, sizeof *orig);
  gostx_gost3410_key key;
  memset(&key, 0, sizeof key);
  int rc = certs && orig ? load_recipient_key(a, certs, &key) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  /* a KeyAgreeRecipientInfo's static originator (openssl's -originator) */
  if (!rc && a->originator) rc = cli_load_certs(a->originator, orig);
  gostx_cms_decrypt_params p = {0};
  if (!rc) {
    p.cert = a->n_recip ? &certs->c[0] : NULL, p.key = &key;
    p.originator = a->originator ? &orig->c[0] : NULL;
    rc = decrypt_to_out(a, &p);
  }
  gostx_gost3410_key_clear(&key);
  if (certs) cli_cert_list_free(certs);
  if (orig) cli_cert_list_free(orig);
  free(certs);
  free(orig);
  return rc;
}

/* ---- EncryptedData ---- */

/* -EncryptedData_encrypt / _decrypt under -secretkey's 32 bytes. */
static int encdata(const cms_args *a, int decrypt) {
  uint8_t key[32];
  gostx_cms_encrypt_stream_params e = {0};
  gostx_cms_decrypt_params d = {0};
  e.secret_key = d.secret_key = key;
  int rc = cli_hex_exact("-secretkey", a->secretkey, key, sizeof key) ? CLI_EXIT_USAGE : 0;
  if (!rc) rc = decrypt ? decrypt_to_out(a, &d) : encrypt_to_out(a, &e);
  gostx_memzero(key, sizeof key);
  return rc;
}

int cms_encdata_encrypt(const cms_args *a) { return encdata(a, 0); }
int cms_encdata_decrypt(const cms_args *a) { return encdata(a, 1); }

/* ---- DigestedData ---- */

static int make_digested(const void *ctx, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                         size_t *out_len) {
  return gostx_cms_digest_create(*(const size_t *)ctx, in, len, out, cap, out_len);
}

int cms_digest_create(const cms_args *a) {
  uint8_t *content = NULL;
  size_t len = 0, md = a->digest_len ? a->digest_len : 32;
  int rc = cli_read_file(a->in, NULL, &content, &len);
  if (!rc) rc = make_and_write(a, make_digested, &md, content, len);
  free(content);
  return rc;
}

int cms_digest_verify(const cms_args *a) {
  uint8_t *der = NULL;
  size_t der_len = 0;
  gostx_cms_digested dd;
  gostx_cms_status st = GOSTX_CMS_OK;
  int rc = cms_read_message(a->in, a->inform, &der, &der_len);
  if (!rc && (gostx_cms_digested_parse(der, der_len, &dd, &st) || gostx_cms_digested_verify(&dd, &st))) {
    cli_err("cms: %s: %s", a->in, gostx_cms_status_name(st));
    fprintf(stderr, "Verification failure\n");
    rc = CMS_EXIT_VERIFY;
  }
  if (!rc) fprintf(stderr, "Verification successful\n");
  if (!rc && a->out) rc = cli_write_file(a->out, dd.content, dd.content_len, 0);
  free(der);
  return rc;
}
