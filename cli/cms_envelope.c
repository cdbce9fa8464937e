/* gostx cms -encrypt / -decrypt (EnvelopedData, KeyTransport2019),
 * -EncryptedData_encrypt / _decrypt (a -secretkey) and -digest_create /
 * -digest_verify (DigestedData), on lib/cms. A decrypted content is
 * written (0600, atomically) only after the library has decrypted it
 * whole and, for -OMAC content, checked its MAC; plain CTR-ACPKM is said
 * on stderr to be unauthenticated. */
#include <stdlib.h>
#include <string.h>

#include "cms_cli.h"

/* openssl cms's line after a refused decryption, and its status */
static int refuse(const char *path, gostx_cms_status st, const uint8_t *oid, size_t oid_len) {
  char text[96] = "";
  if (st == GOSTX_CMS_UNKNOWN_ALGORITHM && oid) {
    char dotted[80];
    gostx_cms_oid_text(oid, oid_len, dotted, sizeof dotted);
    snprintf(text, sizeof text, " (OID %s)", dotted);
  }
  cli_err("cms: %s: %s%s", path, gostx_cms_status_name(st), text);
  fprintf(stderr, "Error decrypting CMS structure\n");
  return CMS_EXIT_VERIFY;
}

static void say_unauthenticated(const gostx_cms_encrypted_content *ec) {
  if (!gostx_cms_cipher_has_mac(ec->cipher))
    cli_err("cms: note: the content is %s: not authenticated (a changed ciphertext decrypts to "
            "changed bytes undetected)",
            ec->cipher == GOSTX_CMS_GOST89 ? "GOST 28147-89 CFB" : "CTR-ACPKM without OMAC");
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
  gostx_cms_encrypt_params params;
} recipients;

static int make_enveloped(const void *ctx, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                          size_t *out_len) {
  const recipients *r = ctx;
  return gostx_cms_encrypt_with(r->list, r->n, &r->params, in, len, out, cap, out_len);
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
    gostx_cms_encrypt_params p = {a->cipher, a->kari, a->key_id};
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
  r.params.cipher = a->cipher;
  r.params.kari = a->kari;
  r.params.key_id = a->key_id;
  uint8_t *content = NULL;
  size_t len = 0;
  int rc = (r.certs = calloc(1, sizeof *r.certs)) ? load_recipients(a, &r)
                                                  : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = cms_read_file(a->in, &content, &len);
  if (!rc) rc = make_and_write(a, make_enveloped, &r, content, len);
  if (content) gostx_memzero(content, len);
  free(content);
  if (r.certs) cli_cert_list_free(r.certs);
  free(r.certs);
  return rc;
}

/* ---- -decrypt ---- */

/* The recipient's certificate (when -recip names it) and its private key
 * (which must be it). */
static int load_recipient_key(const cms_args *a, cli_cert_list *certs, gostx_gost3410_key *key) {
  int rc = a->n_recip ? cli_load_certs(a->recip[0], certs) : 0;
  cli_key k;
  if (!rc) rc = cli_load_key_pass(a->inkey[0], &k, "-passin", a->passin);
  if (rc) return rc;
  if (k.kind != GOSTX_GOST3410_KEY_PRIVATE) rc = cli_usage("cms: %s: not a private key", a->inkey[0]);
  if (!rc && cli_key_object(&k, key)) rc = cli_usage("cms: %s: not a usable key", a->inkey[0]);
  cli_key_clear(&k);
  const gostx_x509_cert *c = &certs->c[0];
  if (!rc && a->n_recip && (c->curve != key->curve || c->pub_len != 2 * key->len || memcmp(c->pub, key->q, c->pub_len)))
    rc = cli_usage("cms: %s is not the private key of %s", a->inkey[0], a->recip[0]);
  return rc;
}

/* The content to -out, private (0600): it was secret. */
static int write_content(const cms_args *a, const uint8_t *p, size_t len) {
  return cli_write_file(a->out, p, len, CLI_OUT_PRIVATE);
}

/* A refused decryption named: with -inkey alone, that no recipient opens;
 * an unknown algorithm: the content's, else the (first) key wrap's. */
static int refuse_enveloped(const cms_args *a, const gostx_cms_enveloped *env,
                            const gostx_x509_cert *cert, gostx_cms_status st) {
  const gostx_cms_recipient *ri = &env->recipients[0];
  if (!cert && st == GOSTX_CMS_RECIPIENT_NOT_FOUND) {
    cli_err("cms: %s: none of its %zu recipients opens with the key of %s", a->in,
            env->n_recipients + env->n_other_recipients, a->inkey[0]);
    fprintf(stderr, "Error decrypting CMS structure\n");
    return CMS_EXIT_VERIFY;
  }
  return env->content.cipher ? refuse(a->in, st, ri->kea_oid, ri->kea_oid_len)
                             : refuse(a->in, st, env->content.alg_oid, env->content.alg_oid_len);
}

static int open_enveloped(const cms_args *a, const uint8_t *der, size_t der_len,
                          const gostx_x509_cert *cert, const gostx_gost3410_key *key,
                          const gostx_x509_cert *originator) {
  gostx_cms_enveloped *env = calloc(1, sizeof *env);
  gostx_cms_status st = GOSTX_CMS_OK;
  size_t len = 0;
  uint8_t *out = NULL;
  int rc = env ? 0 : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc && gostx_cms_enveloped_parse(der, der_len, env, &st)) rc = refuse(a->in, st, NULL, 0);
  if (!rc && (out = malloc(env->content.ciphertext_len + 1)) == NULL)
    rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc && gostx_cms_enveloped_decrypt(env, cert, key, originator, out, env->content.ciphertext_len + 1, &len, &st))
    rc = refuse_enveloped(a, env, cert, st);
  if (!rc) say_unauthenticated(&env->content);
  if (!rc) rc = write_content(a, out, len);
  if (out) gostx_memzero(out, len);
  free(out);
  free(env);
  return rc;
}

int cms_decrypt(const cms_args *a) {
  cli_cert_list *certs = calloc(1, sizeof *certs), *orig = calloc(1, sizeof *orig);
  gostx_gost3410_key key;
  memset(&key, 0, sizeof key);
  uint8_t *der = NULL;
  size_t der_len = 0;
  int rc = certs && orig ? load_recipient_key(a, certs, &key) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  /* a KeyAgreeRecipientInfo's static originator (openssl's -originator) */
  if (!rc && a->originator) rc = cli_load_certs(a->originator, orig);
  if (!rc) rc = cms_read_message(a->in, a->inform, &der, &der_len);
  if (!rc)
    rc = open_enveloped(a, der, der_len, a->n_recip ? &certs->c[0] : NULL, &key,
                        a->originator ? &orig->c[0] : NULL);
  gostx_gost3410_key_clear(&key);
  free(der);
  if (certs) cli_cert_list_free(certs);
  if (orig) cli_cert_list_free(orig);
  free(certs);
  free(orig);
  return rc;
}

/* ---- EncryptedData ---- */

typedef struct secret_key {
  uint8_t key[32];
  gostx_cms_cipher cipher;
} secret_key;

static int make_encrypted(const void *ctx, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                          size_t *out_len) {
  const secret_key *s = ctx;
  return gostx_cms_encrypted_encrypt(s->key, s->cipher, in, len, out, cap, out_len);
}

int cms_encdata_encrypt(const cms_args *a) {
  secret_key s;
  s.cipher = a->cipher;
  uint8_t *content = NULL;
  size_t len = 0;
  int rc = cli_hex_exact("-secretkey", a->secretkey, s.key, sizeof s.key) ? CLI_EXIT_USAGE : 0;
  if (!rc) rc = cms_read_file(a->in, &content, &len);
  if (!rc) rc = make_and_write(a, make_encrypted, &s, content, len);
  gostx_memzero(&s, sizeof s);
  if (content) gostx_memzero(content, len);
  free(content);
  return rc;
}

int cms_encdata_decrypt(const cms_args *a) {
  uint8_t key[32], *der = NULL, *out = NULL;
  size_t der_len = 0, len = 0;
  gostx_cms_encrypted ed;
  gostx_cms_status st = GOSTX_CMS_OK;
  int rc = cli_hex_exact("-secretkey", a->secretkey, key, sizeof key) ? CLI_EXIT_USAGE : 0;
  if (!rc) rc = cms_read_message(a->in, a->inform, &der, &der_len);
  if (!rc && gostx_cms_encrypted_parse(der, der_len, &ed, &st)) rc = refuse(a->in, st, NULL, 0);
  if (!rc && !(out = malloc(ed.content.ciphertext_len + 1))) rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc && gostx_cms_encrypted_decrypt(&ed, key, out, ed.content.ciphertext_len + 1, &len, &st))
    rc = refuse(a->in, st, ed.content.alg_oid, ed.content.alg_oid_len);
  if (!rc) say_unauthenticated(&ed.content);
  if (!rc) rc = write_content(a, out, len);
  gostx_memzero(key, sizeof key);
  if (out) gostx_memzero(out, len);
  free(out);
  free(der);
  return rc;
}

/* ---- DigestedData ---- */

static int make_digested(const void *ctx, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                         size_t *out_len) {
  return gostx_cms_digest_create(*(const size_t *)ctx, in, len, out, cap, out_len);
}

int cms_digest_create(const cms_args *a) {
  uint8_t *content = NULL;
  size_t len = 0, md = a->digest_len ? a->digest_len : 32;
  int rc = cms_read_file(a->in, &content, &len);
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
