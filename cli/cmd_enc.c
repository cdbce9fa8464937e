/* gostx enc / dec / keygen: the encrypted file format of docs/FORMAT.md
 * (lib/container). Encryption and decryption seal/open a batch of chunks on
 * all cores; decryption writes only chunks whose tag verified, into a
 * temporary file renamed into place on success. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"


#define PROGRESS_MIN_BYTES (8u << 20) /* no progress bar for smaller inputs */

/* ---- secrets ---- */

static int read_key_file(const char *path, uint8_t key[GOSTX_KEY_LEN]) {
  uint8_t buf[GOSTX_KEY_LEN + 1];
  long n = cli_read_secret_file(path, buf, sizeof buf);
  if (n < 0) return CLI_EXIT_FAIL;
  if (n != GOSTX_KEY_LEN) {
    gostx_memzero(buf, sizeof buf);
    return cli_usage("%s: a key file must hold exactly 32 bytes (%s); make one with "
                     "`gostx keygen -o FILE`",
                     path, n > GOSTX_KEY_LEN ? "it is longer" : "it is shorter");
  }
  memcpy(key, buf, GOSTX_KEY_LEN);
  gostx_memzero(buf, sizeof buf);
  return 0;
}

/* The secret given on the command line: a key file, -p or --pass-file. */
struct secret {
  const char *key_file, *pass_file;
  int prompt;
  gostx_file_kdf kdf;     /* GOSTX_FILE_KDF_* */
  uint8_t buf[CLI_PASS_MAX + 2]; /* the key or the passphrase */
  size_t len;
};

static int secret_check_opts(struct secret *s, const char *sub) {
  int n = !!s->key_file + !!s->pass_file + !!s->prompt;
  if (n == 0) return cli_usage("%s: give a key file (-k FILE), -p or --pass-file FILE", sub);
  if (n > 1) return cli_usage("%s: give only one of -k, -p and --pass-file", sub);
  s->kdf = s->key_file ? GOSTX_FILE_KDF_RAW : GOSTX_FILE_KDF_PBKDF2;
  return 0;
}

static int secret_load(struct secret *s, int confirm) {
  if (s->key_file) {
    s->len = GOSTX_KEY_LEN;
    return read_key_file(s->key_file, s->buf);
  }
  return cli_read_pass(s->pass_file, "Passphrase: ", confirm, s->buf, &s->len);
}

static void secret_wipe(struct secret *s) {
  gostx_memzero(s->buf, sizeof s->buf);
  s->len = 0;
}

/* ---- shared plumbing ---- */

/* Refuses an output that is the input, the key file or the passphrase file:
 * `enc -k K -o K` would replace the key with a file that needs it. */
static int same_file_check(const char *sub, const char *in_path, const char *out_path,
                           const struct secret *sec) {
  const cli_input ins[] = {
      {in_path ? in_path : "-", "input"},
      {sec->key_file, "key file"},
      {sec->pass_file, "passphrase file"},
  };
  return cli_refuse_same_file(sub, out_path, ins, sizeof ins / sizeof ins[0]);
}

struct progress {
  int on;
  uint64_t total;
  struct timespec start, last;
  int drawn;
};

static double seconds_since(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void progress_init(struct progress *p, FILE *in, int quiet) {
  memset(p, 0, sizeof *p);
  struct stat st;
  if (quiet || !isatty(2) || fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode)) return;
  if ((uint64_t)st.st_size < PROGRESS_MIN_BYTES) return;
  p->on = 1;
  p->total = (uint64_t)st.st_size;
  clock_gettime(CLOCK_MONOTONIC, &p->start);
  p->last = p->start;
}

static void progress_draw(struct progress *p, uint64_t done, int force) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (!force && seconds_since(&p->last, &now) < 0.2) return;
  p->last = now;
  double t = seconds_since(&p->start, &now);
  double mbs = t > 0 ? (double)done / 1e6 / t : 0;
  double pct = p->total ? 100.0 * (double)done / (double)p->total : 100.0;
  if (pct > 100) pct = 100;
  int width = 30, fill = (int)(pct / 100 * width);
  char bar[64];
  for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
  bar[width] = 0;
  fprintf(stderr, "\r[%s] %5.1f%% %9.1f / %.1f MiB  %7.1f MB/s", bar, pct,
          (double)done / 1048576.0, (double)p->total / 1048576.0, mbs);
  fflush(stderr);
  p->drawn = 1;
}

static void progress_cb(void *arg, uint64_t done) {
  struct progress *p = arg;
  if (p->on) progress_draw(p, done, 0);
}

static void progress_end(struct progress *p, int ok) {
  if (!p->on || !p->drawn) return;
  if (ok) progress_draw(p, p->total, 1);
  fputc('\n', stderr);
}

static int out_write_cb(void *arg, const uint8_t *buf, size_t len) {
  return cli_out_write(arg, buf, len);
}

static int make_pool(uint64_t threads, gostx_pool **pool) {
  *pool = NULL;
  if (threads == 1) return 0;
  *pool = gostx_pool_new((unsigned)threads);
  if (!*pool) cli_err("cannot start worker threads; continuing on one thread");
  return 0;
}

/* ---- enc / dec ---- */

enum { OPT_KEY = 1, OPT_PASS, OPT_PASS_FILE, OPT_THREADS, OPT_IN, OPT_OUT, OPT_CHUNK, OPT_ALG,
       OPT_ITER, OPT_QUIET, OPT_HELP, OPT_FORCE };

static const cli_opt enc_opts[] = {
    {"key", 'k', CLI_PATH, OPT_KEY},
    {"passphrase", 'p', CLI_NOARG, OPT_PASS},
    {"pass-file", 0, CLI_PATH, OPT_PASS_FILE},
    {"threads", 'j', CLI_ARG, OPT_THREADS},
    {"in", 'i', CLI_PATH, OPT_IN},
    {"out", 'o', CLI_PATH, OPT_OUT},
    {"chunk", 0, CLI_ARG, OPT_CHUNK},
    {"alg", 'a', CLI_ARG, OPT_ALG},
    {"iter", 0, CLI_ARG, OPT_ITER},
    {"quiet", 'q', CLI_NOARG, OPT_QUIET},
    {"help", 'h', CLI_NOARG, OPT_HELP},
    {NULL, 0, 0, 0},
};

static void enc_usage(void) {
  printf(
      "Usage: gostx enc (-k KEYFILE | -p | --pass-file FILE) [-i IN] [-o OUT] [OPTIONS]\n"
      "\n"
      "Encrypts a file (default stdin to stdout) into the gostx file format\n"
      "(docs/FORMAT.md): chunks sealed with MGM under a key derived for this file\n"
      "alone; truncation, reordering, splicing and any modification are detected\n"
      "by `gostx dec`. Chunks are sealed on all cores.\n"
      "\n"
      "Options:\n"
      "  -k, --key FILE      key file holding 32 raw bytes (see `gostx keygen`)\n"
      "  -p, --passphrase    ask for a passphrase on the terminal (twice)\n"
      "      --pass-file FILE  passphrase = contents of FILE (one trailing newline\n"
      "                      is dropped)\n"
      "  -a, --alg ALG       kuznyechik (default) or magma\n"
      "      --chunk SIZE    plaintext bytes per chunk, 1K..64M (default 1M);\n"
      "                      K and M suffixes are powers of 1024\n"
      "      --iter N        PBKDF2-HMAC-Streebog-512 iterations for a passphrase,\n"
      "                      1..16777216 (default %u; 2^24 takes tens of\n"
      "                      seconds), stored in the file\n"
      "  -j, --threads N     worker threads, 0 = all cores (default 0)\n"
      "  -i, --in FILE       input (default stdin)\n"
      "  -o, --out FILE      output (default stdout, not a terminal); appears only\n"
      "                      on success, complete and synced to disk; until then an\n"
      "                      existing FILE stays as it was. Must not be the input,\n"
      "                      the key file or the passphrase file.\n"
      "  -q, --quiet         no progress bar (shown on a terminal for inputs > 8 MiB)\n"
      "  -h, --help          this help\n"
      "\n"
      "Exit status: 0 success, 1 failure, 2 usage error.\n",
      GOSTX_FILE_ITER_DEFAULT);
}

static void dec_usage(void) {
  printf(
      "Usage: gostx dec (-k KEYFILE | -p | --pass-file FILE) [-i IN] [-o OUT] [OPTIONS]\n"
      "\n"
      "Decrypts a file made by `gostx enc`. Every chunk's tag is verified before\n"
      "its plaintext is written; a wrong key, a modified header or chunk, a\n"
      "truncated, reordered or spliced file, or data after the final chunk stop\n"
      "decryption with a message and exit status 1. The algorithm, chunk size and\n"
      "PBKDF2 iterations come from the file's header (at most 16777216, tens of\n"
      "seconds of work; the format allows no more).\n"
      "\n"
      "Options:\n"
      "  -k, --key FILE      key file holding 32 raw bytes\n"
      "  -p, --passphrase    ask for the passphrase on the terminal\n"
      "      --pass-file FILE  passphrase = contents of FILE (one trailing newline\n"
      "                      is dropped)\n"
      "  -j, --threads N     worker threads, 0 = all cores (default 0)\n"
      "  -i, --in FILE       input (default stdin)\n"
      "  -o, --out FILE      output (default stdout). A regular file appears only\n"
      "                      when the whole input verified, synced to disk; on\n"
      "                      failure or interruption nothing is left and an existing\n"
      "                      FILE stays as it was. Must not be the input, the key\n"
      "                      file or the passphrase file.\n"
      "  -q, --quiet         no progress bar (shown on a terminal for inputs > 8 MiB)\n"
      "  -h, --help          this help\n"
      "\n"
      "Note: output to stdout, a pipe or a device is written as chunks verify. On\n"
      "failure the exit status is non-zero, but whatever reads the pipe may already\n"
      "have received the earlier (authentic) chunks: check the exit status before\n"
      "trusting piped output.\n"
      "\n"
      "Exit status: 0 success, 1 failure (authentication, format, I/O), 2 usage error.\n");
}

struct encdec_opts {
  struct secret sec;
  const char *in_path, *out_path;
  uint64_t threads, chunk, iter;
  int alg, quiet;
};

static int parse_encdec(int argc, char **argv, const char *sub, int enc, struct encdec_opts *o) {
  cli_parser p;
  cli_parser_init(&p, sub, argc, argv);
  o->chunk = GOSTX_FILE_CHUNK_DEFAULT;
  o->iter = GOSTX_FILE_ITER_DEFAULT;
  o->alg = GOSTX_ALG_KUZNYECHIK;
  int id, rc, have_iter = 0;
  while ((id = cli_next(&p, enc_opts)) != CLI_END) {
    switch (id) {
      case OPT_HELP:
        enc ? enc_usage() : dec_usage();
        return -1;
      case OPT_KEY: o->sec.key_file = p.arg; break;
      case OPT_PASS: o->sec.prompt = 1; break;
      case OPT_PASS_FILE: o->sec.pass_file = p.arg; break;
      case OPT_IN: o->in_path = p.arg; break;
      case OPT_OUT: o->out_path = p.arg; break;
      case OPT_QUIET: o->quiet = 1; break;
      case OPT_THREADS:
        if ((rc = cli_uint("-j", p.arg, 0, 1024, &o->threads))) return rc;
        break;
      case OPT_CHUNK:
        if (!enc) return cli_usage("dec: --chunk is read from the file; it is not an option here");
        if ((rc = cli_parse_size("--chunk", p.arg, GOSTX_FILE_CHUNK_MIN, GOSTX_FILE_CHUNK_MAX,
                                 &o->chunk)))
          return rc;
        break;
      case OPT_ALG:
        if (!enc) return cli_usage("dec: -a is read from the file; it is not an option here");
        if (!strcmp(p.arg, "kuznyechik") || !strcmp(p.arg, "kuz"))
          o->alg = GOSTX_ALG_KUZNYECHIK;
        else if (!strcmp(p.arg, "magma"))
          o->alg = GOSTX_ALG_MAGMA;
        else
          return cli_usage("enc: unknown algorithm '%s' (kuznyechik or magma)", p.arg);
        break;
      case OPT_ITER:
        if (!enc) return cli_usage("dec: --iter is read from the file; it is not an option here");
        if ((rc = cli_uint("--iter", p.arg, GOSTX_FILE_ITER_MIN, GOSTX_FILE_ITER_MAX, &o->iter)))
          return rc;
        have_iter = 1;
        break;
      case CLI_POS:
        return cli_usage("%s: unexpected argument '%s' (use -i IN / -o OUT)", sub, p.pos);
      default:
        return CLI_EXIT_USAGE;
    }
  }
  if ((rc = secret_check_opts(&o->sec, sub))) return rc;
  if (have_iter && o->sec.key_file)
    return cli_usage("enc: --iter applies to a passphrase, not to a key file");
  return 0;
}

/* Runs the chunk stream of ct from in to out (sealing, or opening when
 * decrypt) on the pool, with the progress bar; returns the library's code,
 * s holding the details. */
static int run_stream(const gostx_file *ct, int decrypt, cli_in *in, cli_out *out,
                      gostx_pool *pool, int quiet, gostx_file_stream *s) {
  struct progress prog;
  progress_init(&prog, in->f, quiet);
  memset(s, 0, sizeof *s);
  s->in = in->f;
  if (cli_in_map(in)) { /* sealed or opened where it lies, no copy */
    const uint64_t skip = decrypt ? GOSTX_FILE_HEADER_LEN : 0;
    s->in_mem = in->map + (in->map_len > skip ? skip : in->map_len);
    s->in_mem_len = in->map_len > skip ? in->map_len - skip : 0;
  }
  s->write = out_write_cb;
  s->write_arg = out;
  s->progress = progress_cb;
  s->progress_arg = &prog;
  s->pool = pool;
  int lrc = decrypt ? gostx_file_decrypt_stream(ct, s) : gostx_file_encrypt_stream(ct, s);
  progress_end(&prog, lrc == 0);
  return lrc;
}

/* enc's and dec's common end: the chunk stream of ct on the pool, then the
 * output committed once the input is known unchanged (nothing is left at
 * the output's name otherwise: the caller aborts it). *committed: whether
 * the output was committed. */
static int stream_and_commit(const char *sub, const gostx_file *ct, int decrypt, cli_in *in,
                             cli_out *out, const struct encdec_opts *o, int *committed) {
  gostx_pool *pool = NULL;
  gostx_file_stream s;
  make_pool(o->threads, &pool);
  cli_out_bulk(out);
  int rc = 0, lrc = run_stream(ct, decrypt, in, out, pool, o->quiet, &s);
  gostx_pool_free(pool);
  if (lrc) {
    if (!out->failed)
      cli_err("%s: %s: %s", sub, decrypt || lrc == GOSTX_EIO ? in->name : "error", s.msg);
    if (decrypt && out->direct && s.chunks)
      cli_err("dec: %s already received %llu verified chunk(s) before the failure", out->name,
              (unsigned long long)s.chunks);
    return CLI_EXIT_FAIL;
  }
  if ((rc = cli_in_check_unchanged(in, sub))) return rc;
  *committed = 1;
  return cli_out_commit(out);
}

/* enc's and dec's body once the input is open (dec: its header, got bytes
 * at hdr, read and checked): the output opened before the passphrase and
 * the KDF (a bad -o fails at once), the file's keys, the stream; the
 * output committed or dropped, the secret wiped. */
static int encdec_run(const char *sub, int decrypt, struct encdec_opts *o, cli_in *in,
                      const uint8_t *hdr, size_t got) {
  gostx_file ct;
  cli_out out = {0};
  const char *why = NULL;
  int rc, have_ct = 0, have_out = 0, committed = 0;
  if ((rc = cli_out_open(&out, o->out_path, 0))) goto done;
  have_out = 1;
  if ((rc = secret_load(&o->sec, !decrypt))) goto done;
  int lrc = decrypt ? gostx_file_init_decrypt(&ct, hdr, got, o->sec.buf, o->sec.len, &why)
                    : gostx_file_init_encrypt(&ct, o->alg, o->sec.kdf, (uint32_t)o->chunk,
                                              (uint32_t)o->iter, o->sec.buf, o->sec.len, NULL);
  secret_wipe(&o->sec);
  if (lrc) {
    if (decrypt) cli_err("dec: %s: %s", in->name, why ? why : gostx_strerror(lrc));
    else cli_err("enc: %s", gostx_strerror(lrc));
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  have_ct = 1;
  rc = stream_and_commit(sub, &ct, decrypt, in, &out, o, &committed);
  if (committed) have_out = 0;
done:
  if (have_out) cli_out_abort(&out);
  if (have_ct) gostx_file_clear(&ct);
  secret_wipe(&o->sec);
  return rc;
}

/* dec's header read and checked first: "not a gostx file" before asking
 * for a passphrase. */
static int dec_header(cli_in *in, const struct encdec_opts *o, uint8_t *hdr, size_t *got) {
  gostx_file_header h;
  const char *why = NULL;
  int rc = cli_in_read(in, hdr, GOSTX_FILE_HEADER_LEN, got);
  if (rc) return rc;
  if (gostx_file_header_parse(&h, hdr, *got, &why)) {
    cli_err("dec: %s: %s", in->name, why);
    return CLI_EXIT_FAIL;
  }
  if (h.kdf != o->sec.kdf) {
    cli_err("dec: %s: %s", in->name,
            h.kdf == GOSTX_FILE_KDF_PBKDF2
                ? "this file was encrypted with a passphrase: use -p or --pass-file"
                : "this file was encrypted with a key file: use -k KEYFILE");
    return CLI_EXIT_FAIL;
  }
  return 0;
}

static int encdec(int argc, char **argv, int decrypt) {
  const char *sub = decrypt ? "dec" : "enc";
  struct encdec_opts o;
  memset(&o, 0, sizeof o);
  int rc = parse_encdec(argc, argv, sub, !decrypt, &o);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  if ((rc = same_file_check(sub, o.in_path, o.out_path, &o.sec))) return rc;
  if (!decrypt && (!o.out_path || !strcmp(o.out_path, "-")) && isatty(1))
    return cli_usage("enc: refusing to write ciphertext to a terminal (use -o FILE or redirect)");
  cli_in in = {0};
  uint8_t hdr[GOSTX_FILE_HEADER_LEN];
  size_t got = 0;
  if ((rc = cli_in_open(&in, o.in_path))) return rc;
  if (!decrypt || !(rc = dec_header(&in, &o, hdr, &got)))
    rc = encdec_run(sub, decrypt, &o, &in, hdr, got);
  secret_wipe(&o.sec);
  cli_in_close(&in);
  return rc;
}

int cmd_enc(int argc, char **argv) { return encdec(argc, argv, 0); }

int cmd_dec(int argc, char **argv) { return encdec(argc, argv, 1); }

/* ---- keygen ---- */

static const cli_opt keygen_opts[] = {
    {"out", 'o', CLI_PATH, OPT_OUT},
    {"force", 'f', CLI_NOARG, OPT_FORCE},
    {"help", 'h', CLI_NOARG, OPT_HELP},
    {NULL, 0, 0, 0},
};

static void keygen_usage(void) {
  printf(
      "Usage: gostx keygen [-o FILE] [--force]\n"
      "\n"
      "Writes a new random 32-byte key (from getrandom) for `gostx enc -k`.\n"
      "\n"
      "Options:\n"
      "  -o, --out FILE   the key file, created with mode 0600 and synced to disk\n"
      "                   before it appears (default stdout, not a terminal)\n"
      "  -f, --force      replace FILE if it exists (default: refuse)\n"
      "  -h, --help       this help\n");
}

static int write_all(int fd, const uint8_t *p, size_t len) {
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int cmd_keygen(int argc, char **argv) {
  cli_parser p;
  cli_parser_init(&p, "keygen", argc, argv);
  const char *path = NULL;
  int force = 0, id;
  while ((id = cli_next(&p, keygen_opts)) != CLI_END) {
    if (id == OPT_HELP) {
      keygen_usage();
      return CLI_EXIT_OK;
    }
    if (id == OPT_OUT) path = p.arg;
    else if (id == OPT_FORCE) force = 1;
    else if (id == CLI_POS) return cli_usage("keygen: unexpected argument '%s'", p.pos);
    else return CLI_EXIT_USAGE;
  }
  uint8_t key[GOSTX_KEY_LEN];
  if (gostx_random_bytes(key, sizeof key)) {
    cli_err("keygen: no randomness from the operating system");
    return CLI_EXIT_FAIL;
  }
  int rc = CLI_EXIT_OK;
  if (!path || !strcmp(path, "-")) {
    if (isatty(1)) {
      rc = cli_usage("keygen: refusing to write a binary key to a terminal (use -o FILE)");
    } else if (write_all(1, key, sizeof key)) {
      cli_err("keygen: stdout: write error: %s", strerror(errno));
      rc = CLI_EXIT_FAIL;
    }
    gostx_memzero(key, sizeof key);
    return rc;
  }
  struct stat st;
  if (lstat(path, &st) == 0 && !force) {
    gostx_memzero(key, sizeof key);
    cli_err("keygen: %s exists; refusing to overwrite it (use --force)", path);
    return CLI_EXIT_FAIL;
  }
  /* Mode 0600 from the start, put in place like every output (cli/common/out.c):
   * never a half-written key, never the old mode; without --force the final
   * link fails if the name appeared meanwhile. Written with write(2): no
   * stdio buffer keeps a copy of the key. */
  cli_out out;
  rc = cli_out_open(&out, path, CLI_OUT_PRIVATE | (force ? 0 : CLI_OUT_NEW));
  if (!rc && write_all(fileno(out.f), key, sizeof key) != 0) {
    cli_err("keygen: %s: write error: %s", path, strerror(errno));
    cli_out_abort(&out);
    rc = CLI_EXIT_FAIL;
  }
  if (!rc) rc = cli_out_commit(&out);
  gostx_memzero(key, sizeof key);
  return rc;
}
