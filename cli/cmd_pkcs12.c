/* gostx pkcs12: GOST PKCS#12 (PFX) files as `openssl pkcs12` handles
 * them (include/gostx/pkcs12.h, docs/PKCS12.md): split one into a PEM key
 * and chain, print its structure (-info), or make one (-export). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum {
  O_IN = 1, O_OUT, O_PASSIN, O_PASSOUT, O_NOKEYS, O_NOCERTS, O_NOENC, O_INFO, O_NOOUT, O_EXPORT,
  O_INKEY, O_CERTFILE, O_NAME, O_KEYPBE, O_CERTPBE, O_MACALG, O_ITER, O_MAXITER, O_HELP
};

static const cli_opt opts[] = {
    {"in", 0, CLI_PATH, O_IN},          {"out", 0, CLI_PATH, O_OUT},
    {"passin", 0, CLI_ARG, O_PASSIN},   {"passout", 0, CLI_ARG, O_PASSOUT},
    {"nokeys", 0, CLI_NOARG, O_NOKEYS}, {"nocerts", 0, CLI_NOARG, O_NOCERTS},
    {"noenc", 0, CLI_NOARG, O_NOENC},   {"nodes", 0, CLI_NOARG, O_NOENC},
    {"info", 0, CLI_NOARG, O_INFO},     {"noout", 0, CLI_NOARG, O_NOOUT},
    {"export", 0, CLI_NOARG, O_EXPORT}, {"inkey", 0, CLI_PATH, O_INKEY},
    {"certfile", 0, CLI_PATH, O_CERTFILE}, {"name", 0, CLI_ARG, O_NAME},
    {"keypbe", 0, CLI_ARG, O_KEYPBE},   {"certpbe", 0, CLI_ARG, O_CERTPBE},
    {"macalg", 0, CLI_ARG, O_MACALG},   {"iter", 0, CLI_ARG, O_ITER},
    {"maxiter", 0, CLI_ARG, O_MAXITER}, {"help", 'h', CLI_NOARG, O_HELP},
    {NULL, 0, 0, 0},
};

typedef struct args {
  const char *in, *out, *passin, *passout, *inkey, *certfile, *name, *keypbe, *certpbe, *macalg;
  uint64_t iter, maxiter;
  int nokeys, nocerts, noenc, info, noout, export_;
} args;

static void help(void) {
  printf(
      "Usage: gostx pkcs12 -in F.pfx [-passin ARG] [-nokeys|-nocerts] [-out F.pem]\n"
      "                    [-passout ARG|-noenc] [-info] [-noout] [-maxiter N]\n"
      "       gostx pkcs12 -export -inkey KEY -in CERT [-certfile CHAIN] [-name NAME]\n"
      "                    -out F.pfx [-passin ARG] [-passout ARG] [-keypbe PBE]\n"
      "                    [-certpbe PBE|NONE] [-macalg streebog512] [-iter N]\n\n"
      "Reads a GOST PKCS#12 file (.pfx, .p12) and writes its private key (PEM,\n"
      "encrypted under -passout with PBES2 Kuznyechik-CTR-ACPKM, or plain with -noenc;\n"
      "created 0600) and its certificates (PEM, the key's own first). -info prints the\n"
      "structure on stderr (parts, bags, algorithms, iterations, the MAC; no secrets);\n"
      "-noout writes nothing else. The MAC is checked under -passin before anything is\n"
      "decrypted: a wrong password is said as such (exit 1); a damaged or truncated\n"
      "file, or one with trailing bytes, is malformed (exit 2). -maxiter N: the most\n"
      "PBKDF2 iterations the whole file may cost (default 4000000, about two\n"
      "seconds; the MAC counts twice): a file asking more is refused before any work.\n\n"
      "-export writes a PFX of KEY (PEM or DER, -passin when encrypted; or the key in\n"
      "CERT when -inkey is not given) and the certificates of CERT and CHAIN (the one\n"
      "matching KEY first; none matching is an error), under -passout: -keypbe for\n"
      "the key, -certpbe for the certificates: gost89 (GOST 28147-89 CFB, parameter\n"
      "set Z: TC26 R 50.1.112-2016, what `openssl pkcs12 -engine gost -keypbe gost89`\n"
      "and certtool write; the default), kuznyechik or magma (CTR-ACPKM, RFC 9337),\n"
      "kuznyechik-omac or magma-omac (CTR-ACPKM-OMAC, RFC 9337/9548: the ciphertext\n"
      "carries a tag; gost-engine 3.0 does not read it); NONE leaves the certificates\n"
      "unencrypted. PBKDF2-HMAC-Streebog-512, -iter N\n"
      "(default 2048), MAC HMAC-Streebog-512 (R 50.1.112-2016). Output 0600, written\n"
      "to a temporary file and renamed: nothing is written on failure.\n\n"
      "Passwords: pass:PASSWORD or env:VAR (the whole value), file:PATH, fd:N or stdin\n"
      "(the first line); the bytes as given (UTF-8), as gost-engine and certtool\n"
      "take them; pass: alone is the empty password. Without -passin the password\n"
      "is asked on the terminal.\n" CLI_ARGV_SECRET_NOTE(
          "pass:PASSWORD", "file:, fd: and env:"));
}

static int parse_args(int argc, char **argv, args *a) {
  cli_parser p;
  int id, rc = 0;
  memset(a, 0, sizeof *a);
  a->iter = 2048;
  a->maxiter = GOSTX_PKCS12_WORK_DEFAULT;
  cli_parser_init_openssl(&p, "pkcs12", argc, argv, opts);
  while (!rc && (id = cli_next(&p, opts)) != CLI_END) {
    switch (id) {
      case O_IN: a->in = p.arg; break;
      case O_OUT: a->out = p.arg; break;
      case O_PASSIN: a->passin = p.arg; break;
      case O_PASSOUT: a->passout = p.arg; break;
      case O_NOKEYS: a->nokeys = 1; break;
      case O_NOCERTS: a->nocerts = 1; break;
      case O_NOENC: a->noenc = 1; break;
      case O_INFO: a->info = 1; break;
      case O_NOOUT: a->noout = 1; break;
      case O_EXPORT: a->export_ = 1; break;
      case O_INKEY: a->inkey = p.arg; break;
      case O_CERTFILE: a->certfile = p.arg; break;
      case O_NAME: a->name = p.arg; break;
      case O_KEYPBE: a->keypbe = p.arg; break;
      case O_CERTPBE: a->certpbe = p.arg; break;
      case O_MACALG: a->macalg = p.arg; break;
      case O_ITER: rc = cli_uint("-iter", p.arg, 1, 10000000, &a->iter); break;
      case O_MAXITER: rc = cli_uint("-maxiter", p.arg, 1, UINT64_MAX / 4, &a->maxiter); break;
      case O_HELP: help(); return -1;
      case CLI_POS: return cli_usage("pkcs12: unexpected argument '%s'", p.pos);
      default: return CLI_EXIT_USAGE;
    }
  }
  if (rc) return rc;
  if (!a->in) return cli_usage("pkcs12: missing -in FILE (try gostx pkcs12 --help)");
  if (a->nokeys && a->nocerts) return cli_usage("pkcs12: -nokeys and -nocerts leave nothing");
  if (a->noenc && a->passout && !a->export_)
    return cli_usage("pkcs12: -noenc and -passout contradict each other");
  return 0;
}

/* A password from spec (opt names it), or asked on the terminal. */
static int get_pass(const char *opt, const char *spec, const char *prompt, int confirm,
                    uint8_t *pass, size_t *len) {
  return spec ? cli_pfx_pass(opt, spec, pass, len) : cli_read_pass(NULL, prompt, confirm, pass, len);
}

/* ---- reading ---- */

static const char *bag_type_name(gostx_pkcs12_bag_type t) {
  switch (t) {
    case GOSTX_PKCS12_BAG_KEY: return "keyBag";
    case GOSTX_PKCS12_BAG_SHROUDED_KEY: return "pkcs8ShroudedKeyBag";
    case GOSTX_PKCS12_BAG_CERT: return "certBag";
    case GOSTX_PKCS12_BAG_BAD_CERT: return "certBag (not read)";
    default: return "other bag";
  }
}

static void print_bag(size_t i, const gostx_pkcs12_bag *b) {
  fprintf(stderr, "  bag %zu, %s", i + 1, bag_type_name(b->type));
  if (b->type == GOSTX_PKCS12_BAG_OTHER) fprintf(stderr, " %s", b->bag_oid);
  if (b->type == GOSTX_PKCS12_BAG_SHROUDED_KEY)
    fprintf(stderr, ": %s, %lu iterations", b->scheme, (unsigned long)b->iterations);
  if (b->type == GOSTX_PKCS12_BAG_BAD_CERT) fprintf(stderr, ": %s", b->problem);
  gostx_x509_cert c;
  char subject[256];
  if (b->type == GOSTX_PKCS12_BAG_CERT && !gostx_x509_parse(b->der, b->der_len, &c, NULL) &&
      !gostx_x509_name_text(c.subject, c.subject_len, subject, sizeof subject))
    fprintf(stderr, ": subject %s", subject);
  fprintf(stderr, "\n");
  if (b->name[0]) fprintf(stderr, "    friendlyName: %s\n", b->name);
  if (b->key_id) {
    fprintf(stderr, "    localKeyID:");
    for (size_t j = 0; j < b->key_id_len; j++) fprintf(stderr, " %02X", b->key_id[j]);
    fprintf(stderr, "\n");
  }
}

/* -info: the structure on stderr, as openssl prints it there, the bags
 * numbered from 1 as the warnings name them; then which certificate is the
 * key's (own: its bag, SIZE_MAX none). */
static void print_info(const gostx_pkcs12 *p, size_t own) {
  gostx_pkcs12_mac mac;
  gostx_pkcs12_mac_get(p, &mac);
  int sha1 = !strcmp(mac.alg, "sha1"); /* RFC 7292's own MAC, as CryptoPro CSP writes it */
  fprintf(stderr, "MAC: HMAC-%s (%s), Iteration %lu, salt %zu bytes\n",
          sha1 ? "SHA1" : strcmp(mac.alg, "streebog256") ? "Streebog-512" : "Streebog-256",
          sha1 ? "RFC 7292 appendix B KDF" : "R 50.1.112-2016", (unsigned long)mac.iterations,
          mac.salt_len);
  for (size_t s = 0; s < gostx_pkcs12_safe_count(p); s++) {
    gostx_pkcs12_safe safe;
    if (gostx_pkcs12_safe_get(p, s, &safe)) continue;
    if (safe.encrypted)
      fprintf(stderr, "PKCS7 Encrypted data: %s, Iteration %lu\n", safe.scheme,
              (unsigned long)safe.iterations);
    else
      fprintf(stderr, "PKCS7 Data\n");
    for (size_t i = 0; i < gostx_pkcs12_bag_count(p); i++) {
      gostx_pkcs12_bag b;
      if (!gostx_pkcs12_bag_get(p, i, &b) && b.safe == s) print_bag(i, &b);
    }
  }
  gostx_pkcs12_bag b;
  gostx_x509_cert c;
  char subject[256] = "?";
  if (own != SIZE_MAX && !gostx_pkcs12_bag_get(p, own, &b) &&
      !gostx_x509_parse(b.der, b.der_len, &c, NULL))
    (void)gostx_x509_name_text(c.subject, c.subject_len, subject, sizeof subject);
  if (own != SIZE_MAX) fprintf(stderr, "Key's certificate: bag %zu, subject %s\n", own + 1, subject);
  else if (gostx_pkcs12_key(p, NULL, NULL) == 0)
    fprintf(stderr, "Key's certificate: none in the file\n");
}

/* A growing text buffer for the PEM output. */
typedef struct text {
  char *p;
  size_t n, cap;
} text;

static int text_room(text *t, size_t more) {
  if (t->n + more + 1 <= t->cap) return 0;
  size_t cap = (t->n + more + 1) * 2;
  char *q = malloc(cap);
  if (!q) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  if (t->p) memcpy(q, t->p, t->n);
  cli_free_secret((uint8_t *)t->p, t->cap); /* it may hold the key */
  t->p = q, t->cap = cap;
  return 0;
}

/* The key as PEM (encrypted under pass, or plain when pass is NULL). */
static int add_key(text *t, const gostx_pkcs12 *p, const uint8_t *pass, size_t pass_len,
                   size_t *cert_bag, const char *in) {
  size_t n;
  gostx_gost3410_key key;
  int rc = gostx_pkcs12_key(p, &key, cert_bag);
  if (rc == GOSTX_EINVAL) return 0; /* no key in the file */
  if (rc) {
    cli_err("%s: the key is not a GOST R 34.10-2012 key gostx reads", in);
    return CLI_EXIT_USAGE;
  }
  /* -passout: the key as gostx pkey writes it, PBES2 Kuznyechik, 2048 rounds */
  const gostx_gost3410_pbe_params pbe = {GOSTX_GOST3410_PBE_KUZNYECHIK, 2048, pass, pass_len};
  rc = text_room(t, GOSTX_GOST3410_PEM_MAX);
  if (!rc)
    rc = gostx_gost3410_key_write(&key, GOSTX_GOST3410_KEY_PRIVATE, GOSTX_GOST3410_PEM,
                                  pass ? &pbe : NULL, t->p + t->n, t->cap - t->n, &n);
  gostx_gost3410_key_clear(&key);
  if (rc > 0) return rc;
  if (rc) {
    cli_err("pkcs12: writing the key: %s", gostx_strerror(rc));
    return CLI_EXIT_FAIL;
  }
  t->n += n;
  return 0;
}

static int add_cert(text *t, const gostx_pkcs12_bag *b) {
  size_t n = 0;
  (void)gostx_x509_to_pem("CERTIFICATE", b->der, b->der_len, NULL, 0, &n);
  int rc = text_room(t, n);
  if (!rc && gostx_x509_to_pem("CERTIFICATE", b->der, b->der_len, t->p + t->n, t->cap - t->n, &n)) {
    cli_err("pkcs12: writing a certificate failed");
    rc = CLI_EXIT_FAIL;
  }
  if (!rc) t->n += n;
  return rc;
}

/* The certificates, the key's own (cert_bag) first. */
static int add_certs(text *t, const gostx_pkcs12 *p, size_t cert_bag) {
  gostx_pkcs12_bag b;
  int rc = 0;
  if (cert_bag != SIZE_MAX && !gostx_pkcs12_bag_get(p, cert_bag, &b)) rc = add_cert(t, &b);
  for (size_t i = 0; !rc && i < gostx_pkcs12_bag_count(p); i++)
    if (i != cert_bag && !gostx_pkcs12_bag_get(p, i, &b) && b.type == GOSTX_PKCS12_BAG_CERT)
      rc = add_cert(t, &b);
  return rc;
}

/* The library's refusal as one line and an exit status. */
static int read_error(const char *in, int rc, const char *why) {
  cli_err("%s: %s", in, why[0] ? why : gostx_strerror(rc));
  if (rc == GOSTX_EUNSUP && strstr(why, "iterations"))
    fprintf(stderr, "gostx: pkcs12: a higher -maxiter allows it, if you trust the file\n");
  return rc == GOSTX_EAUTH || rc == GOSTX_ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
}

static int split_out(const args *a, const gostx_pkcs12 *p) {
  uint8_t pass[CLI_PASS_MAX + 2];
  size_t pass_len = 0, cert_bag = SIZE_MAX;
  text t = {0};
  int rc = 0, want_key = !a->nokeys;
  if (want_key && !a->noenc)
    rc = get_pass("-passout", a->passout, "Enter PEM pass phrase: ", 1, pass, &pass_len);
  if (!rc && want_key) rc = add_key(&t, p, a->noenc ? NULL : pass, pass_len, &cert_bag, a->in);
  if (!rc && !want_key && gostx_pkcs12_key(p, NULL, &cert_bag))
    cert_bag = SIZE_MAX; /* no GOST key: the certificates in file order */
  if (!rc && !a->nocerts) rc = add_certs(&t, p, cert_bag);
  if (!rc && t.n == 0) {
    cli_err("%s: nothing to write (no %s in the file)", a->in, a->nocerts ? "key" : "key or certificate");
    rc = CLI_EXIT_FAIL;
  }
  if (!rc) rc = cli_write_file(a->out, t.p, t.n, want_key ? CLI_OUT_PRIVATE : 0);
  gostx_memzero(pass, sizeof pass);
  cli_free_secret((uint8_t *)t.p, t.cap);
  return rc;
}

static int split(const args *a) {
  uint8_t *pfx = NULL, pass[CLI_PASS_MAX + 2];
  size_t len = 0, pass_len = 0;
  gostx_pkcs12 *p = NULL;
  char why[256] = "";
  cli_input ins[] = {{a->in, "PKCS#12 file"}};
  int rc = cli_refuse_same_file("pkcs12", a->noout ? NULL : a->out, ins, a->noout ? 0 : 1);
  if (!rc) rc = cli_read_file(a->in, NULL, &pfx, &len);
  if (!rc) rc = get_pass("-passin", a->passin, "Enter Import Password: ", 0, pass, &pass_len);
  if (!rc) {
    int lrc = gostx_pkcs12_read(pfx, len, pass, pass_len, a->maxiter, &p, why, sizeof why);
    if (lrc) rc = read_error(a->in, lrc, why);
  }
  gostx_memzero(pass, sizeof pass);
  free(pfx);
  size_t own = SIZE_MAX;
  if (!rc) rc = cli_pfx_check(a->in, p, 0, &own); /* warnings: the split goes on */
  if (!rc && a->info) print_info(p, own);
  if (!rc && !a->noout) rc = split_out(a, p);
  gostx_pkcs12_free(p);
  return rc;
}

/* ---- writing ---- */

static int pbe_of(const char *opt, const char *s, int none_ok, gostx_pkcs12_pbe *pbe) {
  if (!s || !strcmp(s, "gost89")) return *pbe = GOSTX_PKCS12_PBE_GOST89, 0;
  if (!strcmp(s, "kuznyechik") || !strcmp(s, "kuznyechik-ctr-acpkm"))
    return *pbe = GOSTX_PKCS12_PBE_KUZNYECHIK, 0;
  if (!strcmp(s, "magma") || !strcmp(s, "magma-ctr-acpkm")) return *pbe = GOSTX_PKCS12_PBE_MAGMA, 0;
  if (!strcmp(s, "kuznyechik-omac") || !strcmp(s, "kuznyechik-ctr-acpkm-omac"))
    return *pbe = GOSTX_PKCS12_PBE_KUZNYECHIK_OMAC, 0;
  if (!strcmp(s, "magma-omac") || !strcmp(s, "magma-ctr-acpkm-omac"))
    return *pbe = GOSTX_PKCS12_PBE_MAGMA_OMAC, 0;
  if (none_ok && !strcmp(s, "NONE")) return *pbe = GOSTX_PKCS12_PBE_NONE, 0;
  return cli_usage("pkcs12: %s must be gost89, kuznyechik, magma, kuznyechik-omac or "
                   "magma-omac%s, not '%s'", opt, none_ok ? " (or NONE)" : "", s);
}

/* The certificates of path (PEM blocks) appended to certs. */
typedef struct certs {
  uint8_t *der[GOSTX_PKCS12_BAGS_MAX];
  size_t len[GOSTX_PKCS12_BAGS_MAX], n;
} certs;

static int load_certs(const char *path, certs *c) {
  /* PEM blocks only (-in holds the key too); each must parse: the PFX
   * must hold certificates readers take; a bag left for the key */
  cli_certs_how how = {{NULL, 0, 1}, GOSTX_PKCS12_BAGS_MAX - 1, 0, 1};
  return cli_certs_read_der(path, &how, c->der, c->len, &c->n);
}

/* Puts the certificate whose subject key is k's first; none: an error. */
static int key_cert_first(certs *c, const gostx_gost3410_key *k) {
  for (size_t i = 0; i < c->n; i++) {
    gostx_x509_cert x;
    if (gostx_x509_parse(c->der[i], c->len[i], &x, NULL) || x.pub_len != 2 * k->len ||
        memcmp(x.pub, k->q, x.pub_len))
      continue;
    uint8_t *d = c->der[i];
    size_t l = c->len[i];
    memmove(c->der + 1, c->der, i * sizeof c->der[0]);
    memmove(c->len + 1, c->len, i * sizeof c->len[0]);
    c->der[0] = d, c->len[0] = l;
    return 0;
  }
  return cli_usage("pkcs12: no certificate matches the private key");
}

static int export_write(const args *a, const gostx_gost3410_key *k, const certs *c) {
  gostx_pkcs12_params params = {0, 0, (uint32_t)a->iter, a->name, NULL, 0};
  uint8_t pass[CLI_PASS_MAX + 2], *out = NULL;
  size_t pass_len = 0, need = 0, out_len = 0;
  int rc = pbe_of("-keypbe", a->keypbe, 0, &params.key_pbe);
  if (!rc) rc = pbe_of("-certpbe", a->certpbe, 1, &params.cert_pbe);
  if (!rc && a->macalg && strcmp(a->macalg, "streebog512") && strcmp(a->macalg, "md_gost12_512"))
    rc = cli_usage("pkcs12: -macalg must be streebog512 (md_gost12_512), not '%s'", a->macalg);
  if (!rc) rc = get_pass("-passout", a->passout, "Enter Export Password: ", 1, pass, &pass_len);
  params.pass = pass, params.pass_len = pass_len;
  const uint8_t *const *ders = (const uint8_t *const *)c->der;
  if (!rc && (gostx_pkcs12_write(k, ders, c->len, c->n, &params, NULL, 0, &need) ||
              !(out = malloc(need)))) {
    cli_err("pkcs12: cannot make the PFX");
    rc = CLI_EXIT_FAIL;
  }
  if (!rc && gostx_pkcs12_write(k, ders, c->len, c->n, &params, out, need, &out_len)) {
    cli_err("pkcs12: cannot make the PFX");
    rc = CLI_EXIT_FAIL;
  }
  if (!rc) rc = cli_write_file(a->out, out, out_len, CLI_OUT_PRIVATE);
  gostx_memzero(pass, sizeof pass);
  free(out);
  return rc;
}

static int export_pfx(const args *a) {
  if (a->nokeys || a->nocerts || a->noenc || a->info)
    return cli_usage("pkcs12: -export takes no -nokeys, -nocerts, -noenc or -info");
  if (!a->out) return cli_usage("pkcs12: -export needs -out F.pfx");
  cli_input ins[] = {{a->in, "certificate file"}, {a->inkey, "key file"}, {a->certfile, "chain file"}};
  certs c = {0};
  gostx_gost3410_key k;
  memset(&k, 0, sizeof k);
  int rc = cli_refuse_same_file("pkcs12", a->out, ins, 3);
  if (!rc) rc = cli_load_key_pass(a->inkey ? a->inkey : a->in, &k, "-passin", a->passin);
  if (!rc && !gostx_gost3410_key_is_private(&k))
    rc = cli_usage("pkcs12: %s holds no private key", a->inkey ? a->inkey : a->in);
  if (!rc) rc = cli_key_exportable("pkcs12", &k);
  if (!rc) rc = load_certs(a->in, &c);
  if (!rc && a->certfile) rc = load_certs(a->certfile, &c);
  if (!rc && c.n == 0) rc = cli_usage("pkcs12: %s holds no certificate", a->in);
  if (!rc) rc = key_cert_first(&c, &k);
  if (!rc) rc = export_write(a, &k, &c);
  for (size_t i = 0; i < c.n; i++) free(c.der[i]);
  gostx_gost3410_key_clear(&k);
  return rc;
}

int cmd_pkcs12(int argc, char **argv) {
  args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  return a.export_ ? export_pfx(&a) : split(&a);
}
