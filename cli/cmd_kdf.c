/* gostx kdf: PBKDF2-HMAC-Streebog-512 (R 50.1.111-2016), KDF_GOSTR3411_2012_256
 * and KDF_TREE_GOSTR3411_2012_256 (RFC 7836 4.4/4.5). Prints lowercase hex. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

#define KDF_MAX_OUT (1u << 20) /* generous cap on --len for printing */
/* PBKDF2's cost is iterations x output blocks of 64 bytes (one HMAC chain
 * each). Bounded like every passphrase KDF of the command: `gostx enc`
 * stores at most GOSTX_FILE_ITER_MAX (2^24: 23 s of CPU on the reference
 * machine), `gostx dec` accepts no more, and `kdf pbkdf2` computes no more
 * in total. */
#define PBKDF2_MAX_WORK ((uint64_t)GOSTX_FILE_ITER_MAX)

static void kdf_usage(void) {
  printf(
      "Usage: gostx kdf pbkdf2 PASS --salt HEX --iter N [--len BYTES]\n"
      "       gostx kdf kdf256 KEY --label HEX --seed HEX\n"
      "       gostx kdf kdftree KEY --label HEX --seed HEX --len BYTES [--r BYTES]\n"
      "  PASS: --pass STR | --pass-hex HEX | --pass-file FILE | --pass-fd N\n"
      "  KEY:  -k KEYHEX | --key-file FILE | --key-fd N\n"
      "\n"
      "  pbkdf2   PBKDF2 with HMAC-Streebog-512 (R 50.1.111-2016); --len default 64;\n"
      "           --iter x ceil(--len / 64) at most 16777216 (2^24: tens of seconds,\n"
      "           the most `gostx enc` stores and `gostx dec` accepts)\n"
      "  kdf256   KDF_GOSTR3411_2012_256 (RFC 7836 4.4): 32 bytes\n"
      "           = HMAC-256(K, 01 || label || 00 || seed || 01 00)\n"
      "  kdftree  KDF_TREE_GOSTR3411_2012_256 (RFC 7836 4.5) with a counter of\n"
      "           --r bytes (1..4, default 1); L = 8 * --len bits\n"
      "\n"
      "Options:\n"
      "  -k, --key HEX      input key (any length)\n"
      "      --key-file FILE  input key: the raw bytes of FILE (1..65536)\n"
      "      --key-fd N     input key: raw bytes read from descriptor N to its end\n"
      "      --label HEX    label bytes (may be empty: --label '')\n"
      "      --seed HEX     seed bytes (may be empty)\n"
      "      --pass STR     password as given (bytes of the argument)\n"
      "      --pass-hex HEX password bytes in hex\n"
      "      --pass-file FILE  password = contents of FILE, one trailing newline\n"
      "                     dropped (1..1024 bytes, as for `gostx enc`)\n"
      "      --pass-fd N    the same, read from descriptor N to its end\n"
      "      --salt HEX     salt bytes\n"
      "      --iter N       iteration count, 1..16777216\n"
      "      --len BYTES    output length, 1..1048576\n"
      "      --r BYTES      kdftree counter width\n"
      "  -h, --help         this help\n"
      "\n" CLI_ARGV_SECRET_NOTE("-k HEX, --pass or --pass-hex",
                                 "--key-file, --key-fd, --pass-file and --pass-fd"));
}

enum { OPT_KEY = 1, OPT_LABEL, OPT_SEED, OPT_PASS, OPT_PASS_HEX, OPT_SALT, OPT_ITER, OPT_LEN,
       OPT_R, OPT_KEY_FILE, OPT_KEY_FD, OPT_PASS_FILE, OPT_PASS_FD, OPT_HELP };

static const cli_opt kdf_opts[] = {
    {"key", 'k', CLI_ARG, OPT_KEY},
    {"key-file", 0, CLI_PATH, OPT_KEY_FILE},
    {"key-fd", 0, CLI_ARG, OPT_KEY_FD},
    {"pass-file", 0, CLI_PATH, OPT_PASS_FILE},
    {"pass-fd", 0, CLI_ARG, OPT_PASS_FD},
    {"label", 0, CLI_ARG, OPT_LABEL},
    {"seed", 0, CLI_ARG, OPT_SEED},
    {"pass", 0, CLI_ARG, OPT_PASS},
    {"pass-hex", 0, CLI_ARG, OPT_PASS_HEX},
    {"salt", 0, CLI_ARG, OPT_SALT},
    {"iter", 0, CLI_ARG, OPT_ITER},
    {"len", 0, CLI_ARG, OPT_LEN},
    {"r", 0, CLI_ARG, OPT_R},
    {"help", 'h', CLI_NOARG, OPT_HELP},
    {NULL, 0, 0, 0},
};

/* The functions an option applies to, so that a typo does not pass. */
enum { F_PBKDF2 = 1, F_KDF256 = 2, F_TREE = 4 };
static const struct {
  int id;
  const char *name;
  int fns;
} kdf_applies[] = {
    {OPT_KEY, "-k", F_KDF256 | F_TREE},        {OPT_LABEL, "--label", F_KDF256 | F_TREE},
    {OPT_SEED, "--seed", F_KDF256 | F_TREE},   {OPT_PASS, "--pass", F_PBKDF2},
    {OPT_PASS_HEX, "--pass-hex", F_PBKDF2},    {OPT_SALT, "--salt", F_PBKDF2},
    {OPT_ITER, "--iter", F_PBKDF2},            {OPT_LEN, "--len", F_PBKDF2 | F_TREE},
    {OPT_R, "--r", F_TREE},
    {OPT_KEY_FILE, "--key-file", F_KDF256 | F_TREE}, {OPT_KEY_FD, "--key-fd", F_KDF256 | F_TREE},
    {OPT_PASS_FILE, "--pass-file", F_PBKDF2},  {OPT_PASS_FD, "--pass-fd", F_PBKDF2},
};

/* The inputs (a: password or key, b: salt or label, c: seed) and the
 * output, wiped at the end. */
struct kdf_bufs {
  uint8_t *a, *b, *c, *out;
  size_t a_len, b_len, c_len, out_len;
};

/* The library's verdict: the output printed, or why not (a bad length or
 * parameter: a usage error). */
static int kdf_report(const char *which, int rc, const struct kdf_bufs *k) {
  if (!rc) {
    cli_print_hex(k->out, k->out_len);
    return 0;
  }
  cli_err("%s: %s", which, gostx_strerror(rc));
  return rc == GOSTX_EINVAL || rc == GOSTX_ELEN ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}

/* --iter and --len, their work bounded (PBKDF2_MAX_WORK). */
static int pbkdf2_cost(const char **v, uint64_t *iter, size_t *out_len) {
  int rc;
  *out_len = 64;
  if ((rc = cli_uint("--iter", v[OPT_ITER], 1, GOSTX_FILE_ITER_MAX, iter))) return rc;
  if (v[OPT_LEN] && (rc = cli_size("--len", v[OPT_LEN], 1, KDF_MAX_OUT, out_len))) return rc;
  uint64_t blocks = (*out_len + 63) / 64;
  if (*iter * blocks > PBKDF2_MAX_WORK)
    return cli_usage("pbkdf2: --len %zu at --iter %llu is %llu x %llu HMAC iterations, more than "
                     "the limit of 16777216 (2^24); lower --len or --iter",
                     *out_len, (unsigned long long)*iter, (unsigned long long)blocks,
                     (unsigned long long)*iter);
  return 0;
}

/* The password: --pass as given, --pass-file / --pass-fd as `gostx enc`
 * reads them, or --pass-hex. */
static int pbkdf2_pass(const char **v, struct kdf_bufs *k) {
  int rc;
  if (v[OPT_PASS]) {
    k->a_len = strlen(v[OPT_PASS]);
    k->a = malloc(k->a_len + 1);
    if (!k->a) return cli_usage("out of memory");
    memcpy(k->a, v[OPT_PASS], k->a_len);
    return 0;
  }
  if (!v[OPT_PASS_FILE] && !v[OPT_PASS_FD])
    return cli_hex("pbkdf2: --pass-hex", v[OPT_PASS_HEX], &k->a, &k->a_len);
  uint8_t *pass = malloc(CLI_PASS_MAX + 2);
  size_t len = 0;
  if (!pass) return cli_usage("out of memory");
  rc = v[OPT_PASS_FILE] ? cli_read_pass(v[OPT_PASS_FILE], NULL, 0, pass, &len)
                        : cli_read_pass_fd("--pass-fd", v[OPT_PASS_FD], pass, &len);
  if (rc) {
    cli_free_secret(pass, CLI_PASS_MAX + 2);
    return rc;
  }
  gostx_memzero(pass + len, CLI_PASS_MAX + 2 - len); /* the dropped newline, the rest */
  k->a = pass;
  k->a_len = len;
  return 0;
}

static int kdf_pbkdf2(const char **v, struct kdf_bufs *k) {
  uint64_t iter = 0;
  int rc, sources = !!v[OPT_PASS] + !!v[OPT_PASS_HEX] + !!v[OPT_PASS_FILE] + !!v[OPT_PASS_FD];
  if (sources > 1)
    return cli_usage("pbkdf2: give only one of --pass, --pass-hex, --pass-file and --pass-fd");
  if (!sources) return cli_usage("pbkdf2: missing --pass, --pass-hex, --pass-file or --pass-fd");
  if (!v[OPT_SALT]) return cli_usage("pbkdf2: missing --salt HEX");
  if (!v[OPT_ITER]) return cli_usage("pbkdf2: missing --iter N");
  if ((rc = pbkdf2_cost(v, &iter, &k->out_len)) || (rc = pbkdf2_pass(v, k)) ||
      (rc = cli_hex("pbkdf2: --salt", v[OPT_SALT], &k->b, &k->b_len)))
    return rc;
  if (!(k->out = malloc(k->out_len))) return cli_usage("out of memory");
  rc = gostx_pbkdf2_streebog512(k->a, k->a_len, k->b, k->b_len, (uint32_t)iter, k->out, k->out_len);
  return kdf_report("pbkdf2", rc, k);
}

/* kdftree's --len and --r: the counter must not wrap (at most 2^(8r) - 1
 * blocks of 32 bytes). */
static int tree_len(const char **v, size_t *out_len, size_t *r) {
  int rc;
  if (!v[OPT_LEN]) return cli_usage("kdftree: missing --len BYTES");
  if ((rc = cli_size("--len", v[OPT_LEN], 1, KDF_MAX_OUT, out_len))) return rc;
  if (v[OPT_R] && (rc = cli_size("--r", v[OPT_R], 1, 4, r))) return rc;
  uint64_t blocks = (*out_len + 31) / 32;
  if (*r < 4 && blocks > ((uint64_t)1 << (8 * *r)) - 1)
    return cli_usage("kdftree: --len %zu needs a counter wider than --r %zu", *out_len, *r);
  return 0;
}

/* The key and the hex inputs of kdf256 and kdftree. */
static int keyed_inputs(const char **v, const char *which, struct kdf_bufs *k) {
  char what[32];
  int rc;
  snprintf(what, sizeof what, "%s: key", which);
  if (v[OPT_KEY] ? (rc = cli_hex(what, v[OPT_KEY], &k->a, &k->a_len))
                 : (rc = cli_read_secret(v[OPT_KEY_FILE], "--key-fd", v[OPT_KEY_FD], 1, 65536, &k->a,
                                         &k->a_len)))
    return rc;
  snprintf(what, sizeof what, "%s: --label", which);
  if ((rc = cli_hex(what, v[OPT_LABEL], &k->b, &k->b_len))) return rc;
  snprintf(what, sizeof what, "%s: --seed", which);
  return cli_hex(what, v[OPT_SEED], &k->c, &k->c_len);
}

/* kdf256 and kdftree (tree). */
static int kdf_keyed(const char **v, const char *which, int tree, struct kdf_bufs *k) {
  size_t r = 1;
  int rc = cli_key_source(which, v[OPT_KEY], v[OPT_KEY_FILE], v[OPT_KEY_FD], 0);
  if (rc) return rc;
  if (!v[OPT_LABEL]) return cli_usage("%s: missing --label HEX", which);
  if (!v[OPT_SEED]) return cli_usage("%s: missing --seed HEX", which);
  k->out_len = 32;
  if ((tree && (rc = tree_len(v, &k->out_len, &r))) || (rc = keyed_inputs(v, which, k))) return rc;
  if (!(k->out = malloc(k->out_len))) return cli_usage("out of memory");
  rc = tree ? gostx_kdf_tree256(k->a, k->a_len, k->b, k->b_len, k->c, k->c_len, r, k->out, k->out_len)
            : gostx_kdf256(k->a, k->a_len, k->b, k->b_len, k->c, k->c_len, k->out);
  return kdf_report(which, rc, k);
}

int cmd_kdf(int argc, char **argv) {
  cli_parser p;
  cli_parser_init(&p, "kdf", argc, argv);
  const char *v[OPT_HELP] = {0}; /* option values by id */
  const char *which = NULL;
  int id;
  while ((id = cli_next(&p, kdf_opts)) != CLI_END) {
    if (id == OPT_HELP) {
      kdf_usage();
      return CLI_EXIT_OK;
    }
    if (id == CLI_POS) {
      if (which) return cli_usage("kdf: unexpected argument '%s'", p.pos);
      which = p.pos;
      continue;
    }
    if (id < 0) return CLI_EXIT_USAGE;
    v[id] = p.arg;
  }
  if (!which) return cli_usage("kdf: missing function: pbkdf2, kdf256 or kdftree");
  int fn = !strcmp(which, "pbkdf2") ? F_PBKDF2 : !strcmp(which, "kdf256") ? F_KDF256
           : !strcmp(which, "kdftree") ? F_TREE : 0;
  if (!fn) return cli_usage("kdf: unknown function '%s' (pbkdf2, kdf256, kdftree)", which);
  for (size_t i = 0; i < sizeof kdf_applies / sizeof kdf_applies[0]; i++)
    if (v[kdf_applies[i].id] && !(kdf_applies[i].fns & fn))
      return cli_usage("%s: option %s does not apply", which, kdf_applies[i].name);
  struct kdf_bufs k = {0};
  int rc = fn == F_PBKDF2 ? kdf_pbkdf2(v, &k) : kdf_keyed(v, which, fn == F_TREE, &k);
  cli_free_secret(k.a, k.a_len);
  cli_free_secret(k.b, k.b_len);
  cli_free_secret(k.c, k.c_len);
  cli_free_secret(k.out, k.out_len);
  return rc;
}
