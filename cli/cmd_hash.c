/* gostx hash: Streebog (and GOST R 34.11-94) digests in the format of
 * sha256sum, and -c to check such a list. The files are hashed several at a
 * time (cli/hash_files.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void hash_usage(void) {
  printf(
      "Usage: gostx hash [-a streebog256|streebog512|gost94|gost94-test] [-j N] [FILE...]\n"
      "       gostx hash -c [-a ALG] [-j N] LIST\n"
      "\n"
      "Prints '<hex digest>  <name>' for each FILE (no FILE or '-' = stdin,\n"
      "printed as '-'), like sha256sum, in argument order. Several files are\n"
      "hashed at once, one per core. The digest bytes are those printed by\n"
      "`openssl dgst -engine gost -md_gost12_256` (and _512, md_gost94): RFC 6986\n"
      "and RFC 5831 print the same values byte-reversed.\n"
      "\n"
      "Options:\n"
      "  -a, --algorithm ALG  streebog256 (default) or streebog512\n"
      "                       (also accepted: 256, 512, gost12_256, gost12_512),\n"
      "                       gost94: GOST R 34.11-94 with the CryptoPro parameter\n"
      "                       set (gost-engine's md_gost94; also md_gost94,\n"
      "                       gost94-cryptopro), gost94-test: with the test\n"
      "                       parameter set (the standard's examples). A legacy\n"
      "                       hash: prefer Streebog for anything new\n"
      "  -c, --check          read '<hex>  <name>' lines from LIST (or stdin) and\n"
      "                       check them; prints 'NAME: OK' or 'NAME: FAILED';\n"
      "                       without -a the algorithm follows the digest length\n"
      "                       (Streebog); a gost94 list needs -a gost94\n"
      "      --quiet          with -c: print only failures\n"
      "  -j, --threads N      files hashed at once, 0 = one per core (default 0)\n"
      "  -h, --help           this help\n"
      "\n"
      "Exit status: 0 all good, 1 a file could not be read or a check failed,\n"
      "2 usage error.\n");
}

/* -a NAME: the digest length and the hash of alg (a job template). */
static int parse_alg(const char *s, cli_hash_job *alg) {
  static const struct { const char *name; size_t len; int gost94, sbox; } algs[] = {
      {"streebog256", GOSTX_STREEBOG256_LEN, 0, 0}, {"256", GOSTX_STREEBOG256_LEN, 0, 0},
      {"gost12_256", GOSTX_STREEBOG256_LEN, 0, 0},  {"md_gost12_256", GOSTX_STREEBOG256_LEN, 0, 0},
      {"streebog-256", GOSTX_STREEBOG256_LEN, 0, 0},
      {"streebog512", GOSTX_STREEBOG512_LEN, 0, 0}, {"512", GOSTX_STREEBOG512_LEN, 0, 0},
      {"gost12_512", GOSTX_STREEBOG512_LEN, 0, 0},  {"md_gost12_512", GOSTX_STREEBOG512_LEN, 0, 0},
      {"streebog-512", GOSTX_STREEBOG512_LEN, 0, 0},
      {"gost94", GOSTX_GOST94_LEN, 1, GOSTX_SBOX_CRYPTOPRO_3411_94},
      {"md_gost94", GOSTX_GOST94_LEN, 1, GOSTX_SBOX_CRYPTOPRO_3411_94},
      {"gost94-cryptopro", GOSTX_GOST94_LEN, 1, GOSTX_SBOX_CRYPTOPRO_3411_94},
      {"gost94-test", GOSTX_GOST94_LEN, 1, GOSTX_SBOX_TEST_3411_94},
  };
  for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
    if (!strcmp(s, algs[i].name)) {
      alg->digest_len = algs[i].len;
      alg->gost94 = algs[i].gost94;
      alg->sbox = algs[i].sbox;
      return 0;
    }
  return cli_usage("hash: unknown algorithm '%s' (streebog256, streebog512, gost94 or gost94-test)",
                   s);
}

/* sha256sum's convention: a name with a newline or backslash is escaped and
 * the line starts with a backslash. */
static int needs_escape(const char *name) {
  return strchr(name, '\n') || strchr(name, '\\') || strchr(name, '\r');
}

static void print_name(const char *name) {
  if (!needs_escape(name)) {
    fputs(name, stdout);
    return;
  }
  for (const char *c = name; *c; c++) {
    if (*c == '\n') fputs("\\n", stdout);
    else if (*c == '\r') fputs("\\r", stdout);
    else if (*c == '\\') fputs("\\\\", stdout);
    else putchar(*c);
  }
}

static void print_line(const uint8_t *digest, size_t len, const char *name) {
  if (needs_escape(name)) putchar('\\');
  char hex[2 * GOSTX_STREEBOG512_LEN + 1];
  cli_hex_str(digest, len, hex);
  fputs(hex, stdout);
  fputs("  ", stdout);
  print_name(name);
  putchar('\n');
}

/* "NAME: RESULT" for -c, escaped like the list lines. */
static void print_result(const char *name, const char *result) {
  if (needs_escape(name)) putchar('\\');
  print_name(name);
  printf(": %s\n", result);
}

/* Undoes print_line's escaping in place; returns -1 on a bad escape. */
static int unescape(char *s) {
  char *w = s;
  for (char *r = s; *r; r++) {
    if (*r != '\\') {
      *w++ = *r;
      continue;
    }
    r++;
    if (*r == 'n') *w++ = '\n';
    else if (*r == 'r') *w++ = '\r';
    else if (*r == '\\') *w++ = '\\';
    else return -1;
  }
  *w = 0;
  return 0;
}

static int is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Reads one line of any length into *line (malloc'ed, grown as needed).
 * Returns the length, or -1 at EOF. */
static long read_line(FILE *f, char **line, size_t *cap) {
  size_t len = 0;
  int c;
  while ((c = fgetc(f)) != EOF) {
    if (len + 2 > *cap) {
      size_t ncap = *cap ? *cap * 2 : 256;
      char *nl = realloc(*line, ncap);
      if (!nl) return -2;
      *line = nl;
      *cap = ncap;
    }
    if (c == '\n') break;
    (*line)[len++] = (char)c;
  }
  if (c == EOF && len == 0) return -1;
  (*line)[len] = 0;
  if (len && (*line)[len - 1] == '\r') (*line)[--len] = 0; /* lists written on Windows */
  return (long)len;
}

/* One line of a -c list: the job and the digest it must give. */
struct check_entry {
  uint8_t want[GOSTX_STREEBOG512_LEN];
  char *name;
};

struct check_state {
  struct check_entry *e;
  cli_hash_job *jobs;
  int quiet;
  unsigned long failed, unreadable;
};

static void check_report(void *arg, const cli_hash_job *j) {
  struct check_state *st = arg;
  const struct check_entry *e = &st->e[j - st->jobs];
  if (j->err) {
    cli_hash_job_error(j);
    print_result(e->name, "FAILED open or read");
    st->unreadable++;
  } else if (gostx_memeq_ct(e->want, j->digest, j->digest_len) == 0) {
    if (!st->quiet) print_result(e->name, "OK");
  } else {
    print_result(e->name, "FAILED");
    st->failed++;
  }
}

/* Parses the list (all of it: the files are then hashed on all cores), or
 * returns -2 when memory runs out. */
static long parse_list(FILE *f, const cli_hash_job *forced, struct check_entry **ents,
                       cli_hash_job **jobs, size_t *n, unsigned long *bad_format) {
  char *line = NULL;
  size_t cap = 0, ecap = 0;
  long len;
  while ((len = read_line(f, &line, &cap)) >= 0) {
    char *p = line;
    int escaped = 0;
    if (*p == '\\') {
      escaped = 1;
      p++;
    }
    size_t hex_len = 0;
    while (is_hex_digit(p[hex_len])) hex_len++;
    size_t digest_len = hex_len / 2;
    int ok_len = (hex_len == 2 * GOSTX_STREEBOG256_LEN || hex_len == 2 * GOSTX_STREEBOG512_LEN) &&
                 (!forced || digest_len == forced->digest_len);
    /* "<hex>  <name>" (text) or "<hex> *<name>" (binary): same bytes here. */
    if (!ok_len || p[hex_len] != ' ' || (p[hex_len + 1] != ' ' && p[hex_len + 1] != '*') ||
        p[hex_len + 2] == 0) {
      if (line[0] != '#' && len > 0) (*bad_format)++;
      continue;
    }
    char *name = p + hex_len + 2;
    if (escaped && unescape(name) < 0) {
      (*bad_format)++;
      continue;
    }
    if (*n == ecap) {
      size_t nc = ecap ? 2 * ecap : 64;
      struct check_entry *ne = realloc(*ents, nc * sizeof *ne);
      if (ne) *ents = ne;
      cli_hash_job *nj = ne ? realloc(*jobs, nc * sizeof *nj) : NULL;
      if (nj) *jobs = nj;
      if (!nj) {
        len = -2;
        break;
      }
      ecap = nc;
    }
    struct check_entry *e = &(*ents)[*n];
    cli_hash_job *j = &(*jobs)[*n];
    memset(j, 0, sizeof *j);
    if (!(e->name = strdup(name))) {
      len = -2;
      break;
    }
    for (size_t i = 0; i < digest_len; i++) {
      char pair[3] = {p[2 * i], p[2 * i + 1], 0};
      e->want[i] = (uint8_t)strtoul(pair, NULL, 16);
    }
    if (forced) *j = *forced;
    j->path = e->name;
    j->digest_len = digest_len;
    (*n)++;
  }
  free(line);
  return len;
}

static int check_list(const char *list_path, const cli_hash_job *forced, int quiet,
                      unsigned threads) {
  cli_in in;
  int rc = cli_in_open(&in, list_path);
  if (rc) return rc;
  const char *list_name = in.is_stdin ? "-" : list_path;
  struct check_state st = {NULL, NULL, quiet, 0, 0};
  size_t n = 0;
  unsigned long bad_format = 0;
  long len = parse_list(in.f, forced, &st.e, &st.jobs, &n, &bad_format);
  int read_failed = ferror(in.f);
  cli_in_close(&in);
  if (len != -2 && !read_failed) cli_hash_files(st.jobs, n, threads, check_report, &st);
  for (size_t i = 0; i < n; i++) free(st.e[i].name);
  free(st.e);
  free(st.jobs);
  if (len == -2) {
    cli_err("%s: out of memory", list_name);
    return CLI_EXIT_FAIL;
  }
  if (read_failed) {
    cli_err("%s: read error: %s", list_name, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  if (bad_format)
    cli_err("WARNING: %lu line%s improperly formatted", bad_format,
            bad_format == 1 ? " is" : "s are");
  if (st.unreadable)
    cli_err("WARNING: %lu listed file%s could not be read", st.unreadable,
            st.unreadable == 1 ? "" : "s");
  if (st.failed)
    cli_err("WARNING: %lu computed checksum%s did NOT match", st.failed,
            st.failed == 1 ? "" : "s");
  if (n == 0) {
    cli_err("%s: no properly formatted checksum lines found", list_name);
    return CLI_EXIT_FAIL;
  }
  return (st.failed || st.unreadable) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* hash FILE...: one line per file, or the error. */
static void line_report(void *arg, const cli_hash_job *j) {
  int *status = arg;
  if (j->err) {
    cli_hash_job_error(j);
    *status = CLI_EXIT_FAIL; /* go on with the other files */
    return;
  }
  print_line(j->digest, j->digest_len, j->path);
}

enum { OPT_ALG = 1, OPT_CHECK, OPT_QUIET, OPT_THREADS, OPT_HELP };

static const cli_opt hash_opts[] = {
    {"algorithm", 'a', CLI_ARG, OPT_ALG},
    {"check", 'c', CLI_NOARG, OPT_CHECK},
    {"quiet", 0, CLI_NOARG, OPT_QUIET},
    {"threads", 'j', CLI_ARG, OPT_THREADS},
    {"help", 'h', CLI_NOARG, OPT_HELP},
    {NULL, 0, 0, 0},
};

int cmd_hash(int argc, char **argv) {
  cli_parser p;
  cli_parser_init(&p, "hash", argc, argv);
  cli_hash_job alg = {.digest_len = GOSTX_STREEBOG256_LEN};
  int alg_given = 0, check = 0, quiet = 0;
  uint64_t threads = 0;
  const char **files = calloc((size_t)argc + 1, sizeof *files);
  size_t nfiles = 0;
  if (!files) return cli_usage("out of memory");
  int id, rc = 0;
  while ((id = cli_next(&p, hash_opts)) != CLI_END) {
    switch (id) {
      case OPT_ALG:
        rc = parse_alg(p.arg, &alg);
        alg_given = 1;
        break;
      case OPT_CHECK: check = 1; break;
      case OPT_QUIET: quiet = 1; break;
      case OPT_THREADS: rc = cli_uint("-j", p.arg, 0, 1024, &threads); break;
      case OPT_HELP:
        free(files);
        hash_usage();
        return CLI_EXIT_OK;
      case CLI_POS: files[nfiles++] = p.pos; break;
      default: rc = CLI_EXIT_USAGE; break;
    }
    if (rc) {
      free(files);
      return rc;
    }
  }
  if (check) {
    if (nfiles > 1) {
      free(files);
      return cli_usage("hash: -c takes one LIST file");
    }
    rc = check_list(nfiles ? files[0] : NULL, alg_given ? &alg : NULL, quiet, (unsigned)threads);
    free(files);
    return rc;
  }
  if (quiet) {
    free(files);
    return cli_usage("hash: --quiet only applies to -c");
  }
  if (nfiles == 0) files[nfiles++] = "-";
  int status = CLI_EXIT_OK;
  cli_hash_job *jobs = calloc(nfiles, sizeof *jobs);
  if (!jobs) {
    free(files);
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  for (size_t i = 0; i < nfiles; i++) {
    jobs[i] = alg;
    jobs[i].path = files[i];
  }
  cli_hash_files(jobs, nfiles, (unsigned)threads, line_report, &status);
  free(jobs);
  free(files);
  return status;
}
