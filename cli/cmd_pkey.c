/* gostx genpkey and gostx pkey: GOST R 34.10-2012 key files in PEM or DER
 * (PKCS#8 / SubjectPublicKeyInfo as gost-engine writes them). The key
 * loading every command shares is cli/common/key.c. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "commands.h"

#define CURVE_HELP                                                                  \
  "CURVE: 256A 256B 256C 256D 512A 512B 512C (tc26 paramSets; 256B = CryptoPro-A,\n" \
  "256C = CryptoPro-B, 256D = CryptoPro-C), 256TEST 512TEST (the standard's\n"      \
  "examples), or a full name or OID (id-tc26-gost-3410-2012-256-paramSetA,\n"       \
  "id-GostR3410-2001-CryptoPro-XchA-ParamSet, 1.2.643.7.1.2.1.2.1, ...). The\n"        \
  "key file names 256B, 256C, 256D (by any name) by their CryptoPro-A, -B, -C\n"      \
  "OIDs, as gost-engine's default paramsets A, B, C.\n"

/* A short name (the library's table), else a full name or OID. */
static int curve_of(const char *s, gostx_gost3410_curve *curve) {
  int id = gostx_gost3410_curve_by_short_name(s);
  if (id < 0) id = gostx_gost3410_curve_by_name(s);
  if (id < 0) return cli_usage("unknown curve '%s' (try gostx genpkey --help)", s);
  *curve = (gostx_gost3410_curve)id;
  return 0;
}

/* Encryption of a private key written out: the password (NULL: none). */
typedef struct enc_opts {
  const uint8_t *pass;
  size_t pass_len;
  gostx_gost3410_pbe cipher;
  uint32_t iter;
} enc_opts;

static int encode_key(const gostx_gost3410_key *k, int pub_only, int der, const enc_opts *e, uint8_t *out,
                      size_t cap, size_t *len) {
  int priv = !pub_only && gostx_gost3410_key_is_private(k);
  const gostx_gost3410_pbe_params pbe = {e ? e->cipher : GOSTX_GOST3410_PBE_KUZNYECHIK,
                                         e ? e->iter : 0, e ? e->pass : NULL, e ? e->pass_len : 0};
  return gostx_gost3410_key_write(k, priv ? GOSTX_GOST3410_KEY_PRIVATE : GOSTX_GOST3410_KEY_PUBLIC,
                                  der ? GOSTX_GOST3410_DER : GOSTX_GOST3410_PEM,
                                  priv && e && e->pass ? &pbe : NULL, out, cap, len);
}

/* Writes the key through a temporary file; a private key is created 0600. */
static int write_key(const char *sub, const char *path, const gostx_gost3410_key *k, int pub_only, int der,
                     const enc_opts *e, int out_flags) {
  uint8_t out[GOSTX_GOST3410_PEM_MAX];
  size_t len;
  int secret = !pub_only && gostx_gost3410_key_is_private(k);
  if (secret && cli_key_exportable(sub, k)) return CLI_EXIT_FAIL;
  int rc = encode_key(k, pub_only, der, e, out, sizeof out, &len);
  if (rc) {
    cli_err("%s: %s", sub, gostx_strerror(rc));
    return CLI_EXIT_FAIL;
  }
  int status = cli_write_file(path, out, len, out_flags | (secret ? CLI_OUT_PRIVATE : 0));
  gostx_memzero(out, sizeof out);
  return status;
}

static int outform(const char *s, int *der) {
  if (!s || !strcasecmp(s, "PEM")) return *der = 0, 0;
  if (!strcasecmp(s, "DER")) return *der = 1, 0;
  return cli_usage("--outform must be PEM or DER, not '%s'", s);
}

enum {
  O_CURVE = 1, O_OUT, O_OUTFORM, O_IN, O_PUBOUT, O_TEXT, O_HELP, O_PASS, O_PASSIN, O_PASSOUT,
  O_KUZ, O_MAGMA, O_ITER
};

#define ENC_DEFAULT_ITER 2048 /* OpenSSL's and gost-engine's PBKDF2 default */

#define PASS_HELP(opt)                                                                     \
  "Passwords (" opt "):\n"                                                              \
  "pass:PASSWORD or env:VAR (the whole value), file:PATH, fd:N or stdin (the\n"       \
  "first line, without its \"\\n\"; a \"\\r\" before it is part of the password), as\n"  \
  "openssl 3 takes them; one file or fd for both -passin and -passout: line 1\n"       \
  "and line 2.\n" CLI_ARGV_SECRET_NOTE("pass:PASSWORD", "file:, fd: and env:")

#define ENC_HELP                                                                           \
  "An encrypted key is PKCS#8 PBES2 (\"ENCRYPTED PRIVATE KEY\"): PBKDF2 with\n"          \
  "HMAC-Streebog-512 and --iter N iterations (default 2048), then\n"                      \
  "Kuznyechik-CTR-ACPKM (default; -kuznyechik-ctr-acpkm) or Magma-CTR-ACPKM\n"            \
  "(-magma-ctr-acpkm), as gost-engine writes and reads them. Read too: GOST\n"           \
  "28147-89 CFB, and PBKDF2 with HMAC-SHA256 (what openssl writes without -v2prf).\n"    \
  "Unlike openssl, a password alone encrypts (no cipher option needed);\n"              \
  "a cipher option without a password is an error.\n"

/* The cipher and iteration options of genpkey and pkey, and the password
 * read from spec (opt names it); e->pass points into pass. */
static int enc_setup(const char *sub, const char *opt, const char *spec, int cipher,
                     const char *iter_s, uint8_t *pass, enc_opts *e) {
  memset(e, 0, sizeof *e);
  e->cipher = cipher ? (gostx_gost3410_pbe)cipher : GOSTX_GOST3410_PBE_KUZNYECHIK;
  e->iter = ENC_DEFAULT_ITER;
  if (!spec) {
    if (cipher || iter_s) return cli_usage("%s: a cipher or --iter needs a password (%s)", sub, opt);
    return 0;
  }
  if (iter_s) {
    char *end;
    unsigned long v = strtoul(iter_s, &end, 10);
    if (*iter_s < '0' || *iter_s > '9' || *end || v < 1 || v > 10000000)
      return cli_usage("%s: --iter must be 1..10000000, not '%s'", sub, iter_s);
    e->iter = (uint32_t)v;
  }
  int rc = cli_read_pass_arg(opt, spec, pass, &e->pass_len);
  if (!rc) e->pass = pass;
  return rc;
}

static const cli_opt genpkey_opts[] = {
    {"curve", 'c', CLI_ARG, O_CURVE}, {"out", 'o', CLI_PATH, O_OUT},
    {"outform", 0, CLI_ARG, O_OUTFORM}, {"pass", 0, CLI_ARG, O_PASS},
    {"kuznyechik-ctr-acpkm", 0, CLI_NOARG, O_KUZ}, {"magma-ctr-acpkm", 0, CLI_NOARG, O_MAGMA},
    {"iter", 0, CLI_ARG, O_ITER}, {"help", 'h', CLI_NOARG, O_HELP},
    {NULL, 0, 0, 0},
};

int cmd_genpkey(int argc, char **argv) {
  cli_parser p;
  cli_parser_init_openssl(&p, "genpkey", argc, argv, genpkey_opts);
  const char *curve_s = NULL, *out_path = NULL, *form = NULL, *pass_s = NULL, *iter_s = NULL;
  int id, der = 0, rc, cipher = 0;
  while ((id = cli_next(&p, genpkey_opts)) != CLI_END) {
    switch (id) {
      case O_CURVE: curve_s = p.arg; break;
      case O_OUT: out_path = p.arg; break;
      case O_OUTFORM: form = p.arg; break;
      case O_PASS: pass_s = p.arg; break;
      case O_KUZ: cipher = GOSTX_GOST3410_PBE_KUZNYECHIK; break;
      case O_MAGMA: cipher = GOSTX_GOST3410_PBE_MAGMA; break;
      case O_ITER: iter_s = p.arg; break;
      case O_HELP:
        printf("Usage: gostx genpkey -c CURVE [-o FILE] [--outform PEM|DER]\n"
               "                     [-pass ARG [-kuznyechik-ctr-acpkm | -magma-ctr-acpkm]\n"
               "                     [--iter N]]\n\n"
               "Writes a new GOST R 34.10-2012 private key (PKCS#8, as gost-engine writes it)\n"
               "to FILE (created mode 0600; an existing FILE is not replaced) or stdout;\n"
               "encrypted under the password ARG with -pass.\n"
               "openssl spellings work too: -out, -outform, -pass.\n\n" CURVE_HELP "\n" ENC_HELP
               PASS_HELP("-pass"));
        return CLI_EXIT_OK;
      case CLI_POS: return cli_usage("genpkey: unexpected argument '%s'", p.pos);
      default: return CLI_EXIT_USAGE;
    }
  }
  if (!curve_s) return cli_usage("genpkey: missing -c CURVE (try gostx genpkey --help)");
  gostx_gost3410_key k;
  gostx_gost3410_curve curve = 0;
  memset(&k, 0, sizeof k);
  if ((rc = curve_of(curve_s, &curve)) || (rc = outform(form, &der))) return rc;
  uint8_t pass[CLI_PASS_MAX + 2];
  enc_opts e;
  if ((rc = enc_setup("genpkey", "-pass", pass_s, cipher, iter_s, pass, &e))) return rc;
  size_t len = gostx_gost3410_size(curve);
  if ((rc = gostx_gost3410_keygen(curve, k.d, len, k.q, 2 * len)) ||
      (rc = gostx_gost3410_key_set_private(&k, curve, k.d, len, NULL))) {
    gostx_gost3410_key_clear(&k);
    cli_err("genpkey: %s", gostx_strerror(rc));
    gostx_memzero(pass, sizeof pass);
    return CLI_EXIT_FAIL;
  }
  int status = write_key("genpkey", out_path, &k, 0, der, &e, CLI_OUT_NEW);
  gostx_gost3410_key_clear(&k);
  gostx_memzero(pass, sizeof pass);
  return status;
}

/* "name: hex\n" appended at buf + *n (the caller sized buf). */
static void text_line(char *buf, size_t *n, const char *name, const uint8_t *p, size_t len) {
  *n += (size_t)sprintf(buf + *n, "%s: ", name);
  cli_hex_str(p, len, buf + *n);
  *n += 2 * len;
  buf[(*n)++] = '\n';
}

/* pkey --text: the curve and the numbers in hex, to OUT (0600 when d is in
 * it) or stdout. */
static int write_text(const char *path, const gostx_gost3410_key *k, int priv) {
  char buf[1024];
  size_t n = (size_t)snprintf(buf, sizeof buf, "GOST R 34.10-2012 %s key, %zu bits\ncurve: %s (%s)\n",
                              priv ? "private" : "public", 8 * k->len,
                              gostx_gost3410_curve_name(k->curve), gostx_gost3410_curve_oid(k->curve));
  if (priv) text_line(buf, &n, "d", k->d, k->len);
  text_line(buf, &n, "x", k->q, k->len);
  text_line(buf, &n, "y", k->q + k->len, k->len);
  int status = cli_write_file(path, buf, n, priv ? CLI_OUT_PRIVATE : 0);
  gostx_memzero(buf, sizeof buf);
  return status;
}

static const cli_opt pkey_opts[] = {
    {"in", 'i', CLI_PATH, O_IN},          {"out", 'o', CLI_PATH, O_OUT},
    {"outform", 0, CLI_ARG, O_OUTFORM},   {"pubout", 0, CLI_NOARG, O_PUBOUT},
    {"text", 0, CLI_NOARG, O_TEXT},       {"passin", 0, CLI_ARG, O_PASSIN},
    {"passout", 0, CLI_ARG, O_PASSOUT},   {"kuznyechik-ctr-acpkm", 0, CLI_NOARG, O_KUZ},
    {"magma-ctr-acpkm", 0, CLI_NOARG, O_MAGMA}, {"iter", 0, CLI_ARG, O_ITER},
    {"help", 'h', CLI_NOARG, O_HELP},     {NULL, 0, 0, 0},
};

int cmd_pkey(int argc, char **argv) {
  cli_parser p;
  cli_parser_init_openssl(&p, "pkey", argc, argv, pkey_opts);
  const char *in_path = NULL, *out_path = NULL, *form = NULL, *passin = NULL, *passout = NULL;
  const char *iter_s = NULL;
  int id, der = 0, rc, pubout = 0, text = 0, cipher = 0;
  while ((id = cli_next(&p, pkey_opts)) != CLI_END) {
    switch (id) {
      case O_IN: in_path = p.arg; break;
      case O_OUT: out_path = p.arg; break;
      case O_OUTFORM: form = p.arg; break;
      case O_PUBOUT: pubout = 1; break;
      case O_TEXT: text = 1; break;
      case O_PASSIN: passin = p.arg; break;
      case O_PASSOUT: passout = p.arg; break;
      case O_KUZ: cipher = GOSTX_GOST3410_PBE_KUZNYECHIK; break;
      case O_MAGMA: cipher = GOSTX_GOST3410_PBE_MAGMA; break;
      case O_ITER: iter_s = p.arg; break;
      case O_HELP:
        printf("Usage: gostx pkey -i KEY [-passin ARG] [--pubout] [-o FILE] [--outform PEM|DER]\n"
               "                  [--text] [-passout ARG [-kuznyechik-ctr-acpkm |\n"
               "                  -magma-ctr-acpkm] [--iter N]]\n\n"
               "Reads a GOST R 34.10-2012 key (PEM or DER, private or public; every private\n"
               "key form gost-engine reads; text before a PEM block is skipped and after it\n"
               "ignored, as openssl does) and writes it again (PEM by default), its public\n"
               "key with --pubout, or with --text its curve and numbers in hex, big-endian\n"
               "(d too unless --pubout). An output holding d is created 0600. The parameter\n"
               "set's OID is written as KEY names it (gost-engine derives only between keys\n"
               "naming the same one: CryptoPro-A, -XchA and tc26 paramSetB are one curve).\n"
               "An encrypted KEY is read with its password (-passin); -passout writes the\n"
               "private key encrypted (not with --pubout or --text). A wrong password: one\n"
               "line on stderr, exit 1, nothing written. KEY may be a pkcs11: URI (a key on\n"
               "a token, docs/PKCS11.md): --pubout writes its public key; its private key\n"
               "stays on the token.\n"
               "openssl spellings work too: -in, -out, -pubout, -outform, -text, -passin,\n"
               "-passout.\n\n" ENC_HELP PASS_HELP("-passin, -passout"));
        return CLI_EXIT_OK;
      case CLI_POS: return cli_usage("pkey: unexpected argument '%s'", p.pos);
      default: return CLI_EXIT_USAGE;
    }
  }
  if (!in_path) return cli_usage("pkey: missing -i KEY (try gostx pkey --help)");
  if ((rc = outform(form, &der))) return rc;
  cli_input ins[] = {{in_path, "key file"}};
  if ((rc = cli_refuse_same_file("pkey", out_path, ins, 1))) return rc;
  if (passout && (pubout || text))
    return cli_usage("pkey: -passout encrypts a private key: not with --pubout or --text");
  uint8_t pass[CLI_PASS_MAX + 2], pass_in[CLI_PASS_MAX + 2];
  size_t pass_in_len = 0;
  enc_opts e;
  /* -passin and -passout from one file, descriptor or stdin: line 1 and
   * line 2, as openssl reads them */
  int two_lines = passin && passout && !strcmp(passin, passout) &&
                  (!strncmp(passin, "file:", 5) || !strncmp(passin, "fd:", 3) ||
                   !strcmp(passin, "stdin"));
  if (two_lines) { /* the cipher options as usual; the password from line 2 */
    rc = enc_setup("pkey", "-passout", "pass:-", cipher, iter_s, pass, &e);
    if (!rc)
      rc = cli_read_pass_lines("-passin/-passout", passin, pass_in, &pass_in_len, pass, &e.pass_len);
  } else {
    rc = enc_setup("pkey", "-passout", passout, cipher, iter_s, pass, &e);
  }
  if (rc) {
    gostx_memzero(pass, sizeof pass);
    gostx_memzero(pass_in, sizeof pass_in);
    return rc;
  }
  gostx_gost3410_key k;
  rc = two_lines ? cli_load_key_pw(in_path, &k, pass_in, pass_in_len)
                 : cli_load_key_pass(in_path, &k, "-passin", passin);
  gostx_memzero(pass_in, sizeof pass_in);
  if (rc) {
    gostx_memzero(pass, sizeof pass);
    return rc;
  }
  int status = 0;
  if (text)
    status = write_text(out_path, &k, !pubout && k.has_private);
  else
    status = write_key("pkey", out_path, &k, pubout, der, &e, 0);
  gostx_gost3410_key_clear(&k);
  gostx_memzero(pass, sizeof pass);
  return status;
}
