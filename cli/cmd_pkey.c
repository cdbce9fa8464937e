/* gostx genpkey and gostx pkey: GOST R 34.10-2012 key files in PEM or DER
 * (PKCS#8 / SubjectPublicKeyInfo as gost-engine writes them), and the key
 * loading that sign, verify and vko (cli/cmd_sign.c) share. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* Short curve names; anything else goes to gostx_gost3410_curve_by_name
 * (tc26 and CryptoPro names, OIDs). */
static const struct {
  const char *name;
  gostx_gost3410_curve id;
} short_curves[] = {
    {"256A", GOSTX_GOST3410_256_A},       {"256B", GOSTX_GOST3410_256_B},
    {"256C", GOSTX_GOST3410_256_C},       {"256D", GOSTX_GOST3410_256_D},
    {"512A", GOSTX_GOST3410_512_A},       {"512B", GOSTX_GOST3410_512_B},
    {"512C", GOSTX_GOST3410_512_C},       {"256TEST", GOSTX_GOST3410_256_TEST},
    {"512TEST", GOSTX_GOST3410_512_TEST}, {NULL, 0},
};

#define CURVE_HELP                                                                  \
  "CURVE: 256A 256B 256C 256D 512A 512B 512C (tc26 paramSets; 256B = CryptoPro-A,\n" \
  "256C = CryptoPro-B, 256D = CryptoPro-C), 256TEST 512TEST (the standard's\n"      \
  "examples), or a full name or OID (id-tc26-gost-3410-2012-256-paramSetA,\n"       \
  "id-GostR3410-2001-CryptoPro-XchA-ParamSet, 1.2.643.7.1.2.1.2.1, ...).\n"

static int curve_of(const char *s, gostx_gost3410_curve *curve) {
  for (size_t i = 0; short_curves[i].name; i++)
    if (!strcasecmp(s, short_curves[i].name)) return *curve = short_curves[i].id, 0;
  int id = gostx_gost3410_curve_by_name(s);
  if (id < 0) return cli_usage("unknown curve '%s' (try gostx genpkey --help)", s);
  *curve = (gostx_gost3410_curve)id;
  return 0;
}

void cli_parser_init_openssl(cli_parser *p, const char *sub, int argc, char **argv,
                             const cli_opt *opts, char words[][24]) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) break;
    if (a[0] != '-' || a[1] == '-' || !a[1] || !a[2]) continue;
    for (const cli_opt *o = opts; o->long_name; o++)
      if (!strcmp(a + 1, o->long_name) && strlen(o->long_name) < 21) {
        snprintf(words[i], 24, "--%s", o->long_name);
        argv[i] = words[i];
        break;
      }
  }
  cli_parser_init(p, sub, argc, argv);
}

int cli_load_key(const char *path, cli_key *k) {
  uint8_t *buf = malloc(CLI_KEY_FILE_MAX + 1);
  if (!buf) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  memset(k, 0, sizeof *k);
  long n = cli_read_secret_file(strcmp(path, "-") ? path : "/dev/stdin", buf, CLI_KEY_FILE_MAX + 1);
  int rc;
  if (n < 0) {
    free(buf);
    return CLI_EXIT_FAIL;
  }
  if (n > CLI_KEY_FILE_MAX) {
    rc = GOSTX_EFORMAT;
  } else {
    size_t i = 0;
    while (i < (size_t)n && strchr(" \t\r\n", buf[i])) i++;
    if (i < (size_t)n && buf[i] == '-')
      rc = gostx_gost3410_key_from_pem((const char *)buf, (size_t)n, &k->kind, &k->curve, &k->len,
                                       k->priv, sizeof k->priv, k->pub, sizeof k->pub);
    else
      rc = gostx_gost3410_key_from_der(buf, (size_t)n, &k->kind, &k->curve, &k->len, k->priv,
                                       sizeof k->priv, k->pub, sizeof k->pub);
  }
  cli_free_secret(buf, CLI_KEY_FILE_MAX + 1);
  if (!rc) return 0;
  if (rc == GOSTX_EUNSUP)
    cli_err("%s: unsupported key: not a GOST R 34.10-2012 key of a known parameter set "
            "(or an encrypted one)", path);
  else if (rc == GOSTX_EINVAL)
    cli_err("%s: invalid key: private key 0 or >= q, or public point not on the curve", path);
  else
    cli_err("%s: not a GOST R 34.10-2012 key in PEM or DER (malformed)", path);
  return CLI_EXIT_USAGE;
}

void cli_key_clear(cli_key *k) { gostx_memzero(k, sizeof *k); }

/* PEM or DER of the private or public half into out[cap]. */
static int encode_key(const cli_key *k, int pub_only, int der, uint8_t *out, size_t cap,
                      size_t *len) {
  if (pub_only || k->kind == GOSTX_GOST3410_KEY_PUBLIC)
    return der ? gostx_gost3410_pub_to_der(k->curve, k->pub, 2 * k->len, out, cap, len)
               : gostx_gost3410_pub_to_pem(k->curve, k->pub, 2 * k->len, (char *)out, cap, len);
  return der ? gostx_gost3410_priv_to_der(k->curve, k->priv, k->len, out, cap, len)
             : gostx_gost3410_priv_to_pem(k->curve, k->priv, k->len, (char *)out, cap, len);
}

/* Writes the key through a temporary file; a private key is created 0600. */
static int write_key(const char *sub, const char *path, const cli_key *k, int pub_only, int der,
                     int out_flags) {
  uint8_t out[GOSTX_GOST3410_PEM_MAX];
  size_t len;
  int rc = encode_key(k, pub_only, der, out, sizeof out, &len), status;
  if (rc) {
    cli_err("%s: %s", sub, gostx_strerror(rc));
    return CLI_EXIT_FAIL;
  }
  int secret = !pub_only && k->kind == GOSTX_GOST3410_KEY_PRIVATE;
  cli_out o;
  status = cli_out_open(&o, path, out_flags | (secret ? CLI_OUT_PRIVATE : 0));
  if (!status) status = cli_out_write(&o, out, len);
  if (!status) status = cli_out_commit(&o);
  else cli_out_abort(&o);
  gostx_memzero(out, sizeof out);
  return status;
}

static int outform(const char *s, int *der) {
  if (!s || !strcasecmp(s, "PEM")) return *der = 0, 0;
  if (!strcasecmp(s, "DER")) return *der = 1, 0;
  return cli_usage("--outform must be PEM or DER, not '%s'", s);
}

enum { O_CURVE = 1, O_OUT, O_OUTFORM, O_IN, O_PUBOUT, O_TEXT, O_HELP };

static const cli_opt genpkey_opts[] = {
    {"curve", 'c', CLI_ARG, O_CURVE}, {"out", 'o', CLI_PATH, O_OUT},
    {"outform", 0, CLI_ARG, O_OUTFORM}, {"help", 'h', CLI_NOARG, O_HELP},
    {NULL, 0, 0, 0},
};

int cmd_genpkey(int argc, char **argv) {
  char words[argc > 0 ? argc : 1][24];
  cli_parser p;
  cli_parser_init_openssl(&p, "genpkey", argc, argv, genpkey_opts, words);
  const char *curve_s = NULL, *out_path = NULL, *form = NULL;
  int id, der = 0, rc;
  while ((id = cli_next(&p, genpkey_opts)) != CLI_END) {
    switch (id) {
      case O_CURVE: curve_s = p.arg; break;
      case O_OUT: out_path = p.arg; break;
      case O_OUTFORM: form = p.arg; break;
      case O_HELP:
        printf("Usage: gostx genpkey -c CURVE [-o FILE] [--outform PEM|DER]\n\n"
               "Writes a new GOST R 34.10-2012 private key (PKCS#8, as gost-engine writes it)\n"
               "to FILE (created mode 0600; an existing FILE is not replaced) or stdout.\n"
               "openssl spellings work too: -out, -outform.\n\n" CURVE_HELP);
        return CLI_EXIT_OK;
      case CLI_POS: return cli_usage("genpkey: unexpected argument '%s'", p.pos);
      default: return CLI_EXIT_USAGE;
    }
  }
  if (!curve_s) return cli_usage("genpkey: missing -c CURVE (try gostx genpkey --help)");
  cli_key k;
  memset(&k, 0, sizeof k);
  if ((rc = curve_of(curve_s, &k.curve)) || (rc = outform(form, &der))) return rc;
  k.kind = GOSTX_GOST3410_KEY_PRIVATE;
  k.len = gostx_gost3410_size(k.curve);
  if ((rc = gostx_gost3410_keygen(k.curve, k.priv, k.len, k.pub, 2 * k.len))) {
    cli_err("genpkey: %s", gostx_strerror(rc));
    return CLI_EXIT_FAIL;
  }
  int status = write_key("genpkey", out_path, &k, 0, der, CLI_OUT_NEW);
  cli_key_clear(&k);
  return status;
}

static void print_hex_line(const char *what, const uint8_t *p, size_t len) {
  printf("%s", what);
  cli_print_hex(p, len);
}

static const cli_opt pkey_opts[] = {
    {"in", 'i', CLI_PATH, O_IN},          {"out", 'o', CLI_PATH, O_OUT},
    {"outform", 0, CLI_ARG, O_OUTFORM},   {"pubout", 0, CLI_NOARG, O_PUBOUT},
    {"text", 0, CLI_NOARG, O_TEXT},       {"help", 'h', CLI_NOARG, O_HELP},
    {NULL, 0, 0, 0},
};

int cmd_pkey(int argc, char **argv) {
  char words[argc > 0 ? argc : 1][24];
  cli_parser p;
  cli_parser_init_openssl(&p, "pkey", argc, argv, pkey_opts, words);
  const char *in_path = NULL, *out_path = NULL, *form = NULL;
  int id, der = 0, rc, pubout = 0, text = 0;
  while ((id = cli_next(&p, pkey_opts)) != CLI_END) {
    switch (id) {
      case O_IN: in_path = p.arg; break;
      case O_OUT: out_path = p.arg; break;
      case O_OUTFORM: form = p.arg; break;
      case O_PUBOUT: pubout = 1; break;
      case O_TEXT: text = 1; break;
      case O_HELP:
        printf("Usage: gostx pkey -i KEY [--pubout] [-o FILE] [--outform PEM|DER] [--text]\n\n"
               "Reads a GOST R 34.10-2012 key (PEM or DER, private or public; every private\n"
               "key form gost-engine reads) and writes it again (PEM by default), its public\n"
               "key with --pubout, or with --text its curve and numbers in hex, big-endian\n"
               "(the private key too unless --pubout). A private key output is created 0600.\n"
               "openssl spellings work too: -in, -out, -pubout, -outform, -text.\n");
        return CLI_EXIT_OK;
      case CLI_POS: return cli_usage("pkey: unexpected argument '%s'", p.pos);
      default: return CLI_EXIT_USAGE;
    }
  }
  if (!in_path) return cli_usage("pkey: missing -i KEY (try gostx pkey --help)");
  if ((rc = outform(form, &der))) return rc;
  cli_input ins[] = {{in_path, "key file"}};
  if ((rc = cli_refuse_same_file("pkey", out_path, ins, 1))) return rc;
  cli_key k;
  if ((rc = cli_load_key(in_path, &k))) return rc;
  int status = 0;
  if (text) {
    int priv = !pubout && k.kind == GOSTX_GOST3410_KEY_PRIVATE;
    printf("GOST R 34.10-2012 %s key, %zu bits\ncurve: %s (%s)\n", priv ? "private" : "public",
           8 * k.len, gostx_gost3410_curve_name(k.curve), gostx_gost3410_curve_oid(k.curve));
    if (priv) print_hex_line("d: ", k.priv, k.len);
    print_hex_line("x: ", k.pub, k.len);
    print_hex_line("y: ", k.pub + k.len, k.len);
  } else {
    status = write_key("pkey", out_path, &k, pubout, der, 0);
  }
  cli_key_clear(&k);
  return status;
}
