/* A PKCS#12 file wherever the CLI takes a key (docs/PKCS12.md): `gostx pkey
 * -i`, `gostx sign -k`, and `gostx tls --cert` with the chain too; and the
 * checks `gostx pkcs12` shares: certificate bags lib/x509 refused, and a
 * key that is not its certificates'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PFX_FILE_MAX (1u << 20)

int cli_pfx_is(const char *path) {
  uint8_t b[8];
  FILE *f = path && strcmp(path, "-") ? fopen(path, "rb") : NULL;
  if (!f) return 0;
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  /* SEQUENCE { INTEGER 3, SEQUENCE ...: a PFX; a PKCS#8 key has version 0 or 1 */
  size_t h = n < 2 ? 0 : b[1] < 0x80 ? 2 : b[1] >= 0x81 && b[1] <= 0x83 ? 2u + (b[1] & 3) : 0;
  return h && n >= h + 4 && b[0] == 0x30 && !memcmp(b + h, "\x02\x01\x03\x30", 4);
}

/* The certificates of p, the key's own (cert_bag) first, appended as copies. */
static int copy_certs(const gostx_pkcs12 *p, size_t cert_bag, const char *path, cli_pfx_certs *c) {
  for (size_t pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < gostx_pkcs12_bag_count(p); i++) {
      gostx_pkcs12_bag b;
      if ((pass == 0) != (i == cert_bag) || gostx_pkcs12_bag_get(p, i, &b) ||
          b.type != GOSTX_PKCS12_BAG_CERT)
        continue;
      if (*c->n == c->cap) return cli_usage("%s: more than %zu certificates", path, c->cap);
      if (!(c->der[*c->n] = malloc(b.der_len))) {
        cli_err("out of memory");
        return CLI_EXIT_FAIL;
      }
      memcpy(c->der[*c->n], b.der, b.der_len);
      c->len[(*c->n)++] = b.der_len;
    }
  return 0;
}

/* Bag i as "bag N (subject S, a B-bit key)" in text[cap]. */
static void describe_cert(const gostx_pkcs12 *p, size_t i, char *text, size_t cap) {
  gostx_pkcs12_bag b;
  gostx_x509_cert c;
  char subject[200] = "?";
  if (gostx_pkcs12_bag_get(p, i, &b) || gostx_x509_parse(b.der, b.der_len, &c, NULL)) {
    snprintf(text, cap, "bag %zu", i + 1);
    return;
  }
  (void)gostx_x509_name_text(c.subject, c.subject_len, subject, sizeof subject);
  snprintf(text, cap, "bag %zu (subject %s, a %zu-bit key)", i + 1, subject, c.pub_len * 4);
}

/* The certificate bag whose localKeyId is the first key bag's, SIZE_MAX none. */
static size_t cert_named_by_key(const gostx_pkcs12 *p) {
  gostx_pkcs12_bag key, b;
  size_t i, n = gostx_pkcs12_bag_count(p);
  for (i = 0; i < n; i++)
    if (!gostx_pkcs12_bag_get(p, i, &key) &&
        (key.type == GOSTX_PKCS12_BAG_KEY || key.type == GOSTX_PKCS12_BAG_SHROUDED_KEY))
      break;
  if (i == n || !key.key_id) return SIZE_MAX;
  for (i = 0; i < n; i++)
    if (!gostx_pkcs12_bag_get(p, i, &b) && b.type == GOSTX_PKCS12_BAG_CERT && b.key_id &&
        b.key_id_len == key.key_id_len && !memcmp(b.key_id, key.key_id, b.key_id_len))
      return i;
  return SIZE_MAX;
}

int cli_pfx_check(const char *path, const gostx_pkcs12 *p, int need_pair, size_t *own) {
  size_t n = gostx_pkcs12_bag_count(p), ncerts = 0, first = SIZE_MAX, len = 0;
  gostx_pkcs12_bag b;
  for (size_t i = 0; i < n; i++) {
    if (gostx_pkcs12_bag_get(p, i, &b)) continue;
    if (b.type == GOSTX_PKCS12_BAG_BAD_CERT)
      cli_err("warning: %s: certificate bag %zu skipped: %s", path, i + 1, b.problem);
    if (b.type == GOSTX_PKCS12_BAG_CERT && !ncerts++) first = i;
  }
  *own = SIZE_MAX;
  gostx_gost3410_key key;
  if (gostx_pkcs12_key(p, &key, own)) return 0; /* no GOST key */
  len = key.len;
  gostx_gost3410_key_clear(&key);
  size_t named = cert_named_by_key(p);
  char a[320], o[320];
  if (*own == SIZE_MAX && !ncerts) {
    if (need_pair) return cli_usage("%s: the PKCS#12 file holds no certificate for its key", path);
    return 0;
  }
  if (*own == SIZE_MAX) {
    describe_cert(p, named != SIZE_MAX ? named : first, a, sizeof a);
    const char *how = named != SIZE_MAX ? ", which its localKeyID names," : "";
    if (need_pair)
      return cli_usage("%s: the PKCS#12 file's key (%zu-bit) is not its certificate's: %s%s holds "
                       "another key (and no other certificate there is the key's)",
                       path, len * 8, a, how);
    cli_err("warning: %s: the private key (%zu-bit) is not the key of any certificate in the file: "
            "%s%s holds another key",
            path, len * 8, a, how);
  } else if (named != SIZE_MAX && named != *own) {
    describe_cert(p, named, a, sizeof a);
    describe_cert(p, *own, o, sizeof o);
    cli_err("warning: %s: the key bag's localKeyID names certificate %s, whose key is not the "
            "private key's; the key's own certificate is %s",
            path, a, o);
  }
  return 0;
}

/* The key (and certificates) of the PFX in buf[n], opened with pass. */
static int take(const char *path, const uint8_t *buf, size_t n, const uint8_t *pass,
                size_t pass_len, gostx_gost3410_key *k, cli_pfx_certs *certs) {
  gostx_pkcs12 *p = NULL;
  char why[256];
  size_t cert_bag;
  int rc = gostx_pkcs12_read(buf, n, pass, pass_len, 0, &p, why, sizeof why);
  if (rc) {
    cli_err("%s: %s", path, why[0] ? why : gostx_strerror(rc));
    return rc == GOSTX_EAUTH || rc == GOSTX_ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
  }
  memset(k, 0, sizeof *k);
  rc = gostx_pkcs12_key(p, k, &cert_bag);
  if (rc == GOSTX_EINVAL) rc = cli_usage("%s: the PKCS#12 file holds no private key", path);
  else if (rc) rc = cli_usage("%s: the PKCS#12 file's key is not a GOST R 34.10-2012 key", path);
  /* with certs the door serves the pair: a key not its certificate's is refused */
  if (!rc) rc = cli_pfx_check(path, p, certs != NULL, &cert_bag);
  if (!rc && certs) rc = copy_certs(p, cert_bag, path, certs);
  gostx_pkcs12_free(p);
  if (rc) gostx_gost3410_key_clear(k);
  return rc;
}

int cli_pfx_pass(const char *opt, const char *spec, uint8_t *pass, size_t *len) {
  if (spec && !strcmp(spec, "pass:")) return *len = 0, 0; /* said so: the empty password */
  return cli_read_pass_arg(opt, spec, pass, len);
}

int cli_pfx_load(const char *path, const char *pass_opt, const char *pass_spec,
                 const uint8_t *pw, size_t pw_len, gostx_gost3410_key *k, cli_pfx_certs *certs) {
  if (!pass_spec && !pw)
    return cli_usage("%s is a PKCS#12 file: give its password with %s", path,
                     pass_opt ? pass_opt : "-passin");
  uint8_t *buf = malloc(PFX_FILE_MAX + 1), pass[CLI_PASS_MAX + 2];
  size_t pass_len = pw_len;
  if (!buf) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  long n = cli_read_secret_file(path, buf, PFX_FILE_MAX + 1);
  int rc = n < 0 ? CLI_EXIT_FAIL : 0;
  if (!rc && n > (long)PFX_FILE_MAX) rc = cli_usage("%s: larger than %u bytes", path, PFX_FILE_MAX);
  if (!rc && pw) memcpy(pass, pw, pw_len);
  else if (!rc) rc = cli_pfx_pass(pass_opt, pass_spec, pass, &pass_len);
  if (!rc) rc = take(path, buf, (size_t)n, pass, pass_len, k, certs);
  gostx_memzero(pass, sizeof pass);
  free(buf);
  return rc;
}
