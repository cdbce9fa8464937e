/* gostx CLI helpers: option parsing, strict hex/number parsing, the
 * services' listening socket, input streams (output files:
 * cli/common/out.c). */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"

/* ---- errors ---- */

static _Thread_local const char *err_scope;

void cli_err_scope(const char *where) { err_scope = where; }

static void verr(const char *fmt, va_list ap) {
  fputs("gostx: ", stderr);
  if (err_scope) {
    char head[400]; /* enough of the message to see whether it names the scope */
    va_list aq;
    va_copy(aq, ap);
    vsnprintf(head, sizeof head, fmt, aq);
    va_end(aq);
    size_t n = strlen(err_scope);
    if (strncmp(head, err_scope, n) || head[n] != ':') fprintf(stderr, "%s: ", err_scope);
  }
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void cli_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verr(fmt, ap);
  va_end(ap);
}

int cli_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verr(fmt, ap);
  va_end(ap);
  return CLI_EXIT_USAGE;
}

/* ---- GOSTX_IMPL not honoured ---- */

const char *cli_impl_note(const char **value) {
  static char note[192], shown[64];
  const char *v, *running;
  gostx_impl_request r = gostx_impl_requested(&v, &running);
  *value = NULL;
  if (r != GOSTX_IMPL_UNKNOWN && r != GOSTX_IMPL_UNSUPPORTED) return NULL;
  size_t i = 0; /* the environment's bytes, printable */
  for (; v[i] && i < sizeof shown - 1; i++) shown[i] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
  shown[i] = 0;
  *value = shown;
  if (r == GOSTX_IMPL_UNKNOWN)
    snprintf(note, sizeof note,
             "not a level (%s) or an implementation name (case matters); running %s",
             gostx_levels(), running);
  else
    snprintf(note, sizeof note, "this CPU cannot run it; running %s", running);
  return note;
}

void cli_impl_warn(void) {
  static int warned;
  const char *value, *note = cli_impl_note(&value);
  if (warned || !note) return;
  warned = 1;
  cli_err("warning: GOSTX_IMPL=%s: %s", value, note);
}

/* ---- option parsing ---- */

void cli_parser_init(cli_parser *p, const char *sub, int argc, char **argv) {
  memset(p, 0, sizeof *p);
  p->argc = argc;
  p->argv = argv;
  p->idx = 1; /* argv[0] is the subcommand name */
  p->sub = sub;
}

/* Takes the argument of option `shown` from the rest of the current word or
 * from the next argv element. A file name must not be empty: `-o ''` (an
 * unset shell variable) is refused here, before any work. */
static int take_arg(cli_parser *p, const char *inline_arg, const char *shown, int has_arg) {
  if (inline_arg) {
    p->arg = inline_arg;
  } else if (p->idx >= p->argc) {
    cli_err("%s: option %s needs a value", p->sub, shown);
    return -1;
  } else {
    p->arg = p->argv[p->idx++];
  }
  if (has_arg == CLI_PATH && !*p->arg) {
    cli_err("%s: option %s needs a file name, got an empty string", p->sub, shown);
    return -1;
  }
  return 0;
}

/* The next row of an option table: each row is stride bytes after the
 * last (a cli_opt alone, or the first member of a cli_field); a NULL name
 * ends the table. */
static const cli_opt *row_after(const cli_opt *o, size_t stride) {
  return (const cli_opt *)(const void *)((const char *)o + stride);
}

/* cli_next over rows of any stride; p->opt: the row of an option returned. */
static int next_row(cli_parser *p, const cli_opt *opts, size_t stride) {
  p->arg = NULL;
  p->pos = NULL;
  if (p->pending && *p->pending) {
    /* Continue a cluster of short flags such as -dv. */
    char c = *p->pending++;
    for (const cli_opt *o = opts; o->long_name; o = row_after(o, stride)) {
      if (o->short_name != c) continue;
      char shown[3] = {'-', c, 0};
      if (o->has_arg) {
        const char *rest = *p->pending ? p->pending : NULL;
        p->pending = NULL;
        if (take_arg(p, rest, shown, o->has_arg) < 0) return CLI_BAD;
      }
      p->opt = o;
      return o->id;
    }
    cli_err("%s: unknown option -%c (try --help)", p->sub, c);
    return CLI_BAD;
  }
  p->pending = NULL;
  if (p->idx >= p->argc) return CLI_END;
  const char *a = p->argv[p->idx++];
  if (p->only_pos || a[0] != '-' || a[1] == 0) {
    p->pos = a;
    return CLI_POS;
  }
  if (a[1] == '-') {
    if (a[2] == 0) { /* "--" */
      p->only_pos = 1;
      return next_row(p, opts, stride);
    }
    const char *name = a + 2;
    const char *eq = strchr(name, '=');
    size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
    for (const cli_opt *o = opts; o->long_name; o = row_after(o, stride)) {
      if (strlen(o->long_name) != nlen || strncmp(o->long_name, name, nlen) != 0) continue;
      if (!o->has_arg) {
        if (eq) {
          cli_err("%s: option --%s takes no value", p->sub, o->long_name);
          return CLI_BAD;
        }
        p->opt = o;
        return o->id;
      }
      char shown[64];
      snprintf(shown, sizeof shown, "--%s", o->long_name);
      if (take_arg(p, eq ? eq + 1 : NULL, shown, o->has_arg) < 0) return CLI_BAD;
      p->opt = o;
      return o->id;
    }
    cli_err("%s: unknown option --%.*s (try --help)", p->sub, (int)nlen, name);
    return CLI_BAD;
  }
  p->pending = a + 1;
  return next_row(p, opts, stride);
}

int cli_next(cli_parser *p, const cli_opt *opts) { return next_row(p, opts, sizeof *opts); }

int cli_next_into(cli_parser *p, const cli_field *fields, void *dst) {
  for (;;) {
    int id = next_row(p, &fields->opt, sizeof *fields);
    if (id < 0) return id;
    const cli_field *f = (const cli_field *)(const void *)p->opt; /* its first member */
    char *at = (char *)dst + f->off;
    if (f->to == CLI_TO_STR)
      memcpy(at, &p->arg, sizeof p->arg);
    else if (f->to == CLI_TO_FLAG)
      memcpy(at, &f->value, sizeof f->value);
    else
      return id;
  }
}

void cli_parser_init_openssl(cli_parser *p, const char *sub, int argc, char **argv,
                             const cli_opt *opts) {
  /* One command runs per process: static room for the rewritten words, a
   * few (any more stay as they are and are refused as unknown options). */
  static char words[16][32]; /* the longest: -kuznyechik-ctr-acpkm-omac */
  size_t used = 0;
  for (int i = 1; i < argc && used < sizeof words / sizeof words[0]; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) break;
    if (a[0] != '-' || a[1] == '-' || !a[1] || !a[2]) continue;
    for (const cli_opt *o = opts; o->long_name; o++)
      if (!strcmp(a + 1, o->long_name) && strlen(o->long_name) < sizeof words[0] - 2) {
        snprintf(words[used], sizeof words[0], "--%s", o->long_name);
        argv[i] = words[used++];
        break;
      }
  }
  cli_parser_init(p, sub, argc, argv);
}

/* ---- strict parsing ---- */

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int cli_hex(const char *what, const char *hex, uint8_t **out, size_t *len) {
  size_t n = strlen(hex);
  if (n % 2) return cli_usage("%s: odd number of hex digits (%zu)", what, n);
  for (size_t i = 0; i < n; i++)
    if (hexval(hex[i]) < 0)
      return cli_usage("%s: not a hex digit at position %zu: '%c'", what, i + 1, hex[i]);
  uint8_t *buf = malloc(n / 2 + 1); /* +1: never malloc(0) */
  if (!buf) return cli_usage("out of memory");
  for (size_t i = 0; i < n / 2; i++)
    buf[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
  *out = buf;
  *len = n / 2;
  return 0;
}

int cli_hex_exact(const char *what, const char *hex, uint8_t *out, size_t want) {
  uint8_t *buf;
  size_t len;
  int rc = cli_hex(what, hex, &buf, &len);
  if (rc) return rc;
  if (len != want) {
    cli_free_secret(buf, len);
    return cli_usage("%s must be %zu bytes (%zu hex digits), got %zu bytes", what, want,
                     2 * want, len);
  }
  memcpy(out, buf, len);
  cli_free_secret(buf, len);
  return 0;
}

uint64_t cli_thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int cli_uint(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out) {
  uint64_t v = 0;
  if (!*s) return cli_usage("%s: empty number", what);
  for (const char *c = s; *c; c++) {
    if (*c < '0' || *c > '9') return cli_usage("%s: not a decimal number: '%s'", what, s);
    unsigned d = (unsigned)(*c - '0');
    if (v > (UINT64_MAX - d) / 10) return cli_usage("%s: number too large: '%s'", what, s);
    v = v * 10 + d;
  }
  if (v < min || v > max)
    return cli_usage("%s must be between %llu and %llu, got %s", what, (unsigned long long)min,
                     (unsigned long long)max, s);
  *out = v;
  return 0;
}

int cli_size(const char *what, const char *s, size_t min, size_t max, size_t *out) {
  uint64_t v;
  int rc = cli_uint(what, s, min, max, &v);
  if (!rc) *out = (size_t)v;
  return rc;
}

int cli_parse_size(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out) {
  char digits[32];
  size_t n = 0;
  while (s[n] >= '0' && s[n] <= '9' && n < sizeof digits - 1) {
    digits[n] = s[n];
    n++;
  }
  digits[n] = 0;
  const char *suf = s + n;
  uint64_t mul = 1;
  if (!*suf) mul = 1;
  else if (!strcmp(suf, "K") || !strcmp(suf, "k") || !strcmp(suf, "KiB")) mul = 1024;
  else if (!strcmp(suf, "M") || !strcmp(suf, "m") || !strcmp(suf, "MiB")) mul = 1024 * 1024;
  else if (!strcmp(suf, "G") || !strcmp(suf, "g") || !strcmp(suf, "GiB")) mul = 1024u << 20;
  else if (!strcmp(suf, "T") || !strcmp(suf, "t") || !strcmp(suf, "TiB")) mul = (uint64_t)1 << 40;
  else return cli_usage("%s: not a size: '%s' (bytes, or with a K/M/G/T suffix)", what, s);
  uint64_t v;
  if (!n) return cli_usage("%s: not a size: '%s'", what, s);
  int rc = cli_uint(what, digits, 0, UINT64_MAX / mul, &v);
  if (rc) return rc;
  v *= mul;
  if (v < min || v > max)
    return cli_usage("%s must be between %llu and %llu bytes, got %s", what,
                     (unsigned long long)min, (unsigned long long)max, s);
  *out = v;
  return 0;
}

void cli_hex_str(const uint8_t *p, size_t len, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < len; i++) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
  out[2 * len] = 0;
}

void cli_print_hex(const uint8_t *p, size_t len) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < len; i++) {
    putchar(digits[p[i] >> 4]);
    putchar(digits[p[i] & 15]);
  }
  putchar('\n');
}

void cli_free_secret(uint8_t *p, size_t len) {
  if (!p) return;
  gostx_memzero(p, len);
  free(p);
}

/* ---- sockets ---- */

int cli_listen(const struct sockaddr *sa, unsigned len, int backlog, int defer_s) {
  int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
  if (fd < 0) return -1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (defer_s > 0) setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer_s, sizeof defer_s);
  if (bind(fd, sa, (socklen_t)len) || listen(fd, backlog)) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

/* ---- input ---- */

int cli_in_try_open(cli_in *in, const char *path) {
  memset(in, 0, sizeof *in);
  if (!path || strcmp(path, "-") == 0) {
    in->f = stdin;
    in->name = "stdin";
    in->is_stdin = 1;
    return 0;
  }
  in->name = path;
  in->f = fopen(path, "rb");
  if (!in->f) return errno ? errno : EIO;
  struct stat st;
  if (fstat(fileno(in->f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(in->f);
    in->f = NULL;
    return EISDIR;
  }
  return 0;
}

int cli_in_open(cli_in *in, const char *path) {
  int e = cli_in_try_open(in, path);
  if (!e) return 0;
  cli_err("%s: %s", path, strerror(e));
  return CLI_EXIT_FAIL;
}

int cli_in_try_read(cli_in *in, uint8_t *buf, size_t cap, size_t *got) {
  size_t n = 0;
  int e = 0;
  while (n < cap) {
    size_t r = fread(buf + n, 1, cap - n, in->f);
    n += r;
    if (r == 0) {
      if (ferror(in->f)) e = errno ? errno : EIO;
      break; /* EOF */
    }
  }
  *got = n;
  return e;
}

int cli_in_read(cli_in *in, uint8_t *buf, size_t cap, size_t *got) {
  int e = cli_in_try_read(in, buf, cap, got);
  if (!e) return 0;
  cli_err("%s: read error: %s", in->name, strerror(e));
  return CLI_EXIT_FAIL;
}

int cli_in_read_all(cli_in *in, uint8_t **out, size_t *out_len) {
  return cli_in_read_all_room(in, 0, out, out_len);
}

int cli_in_read_all_room(cli_in *in, size_t room, uint8_t **out, size_t *out_len) {
  /* A regular file: its size up front, so no copies while growing and no
   * untouched pages (a file that grew meanwhile still grows the buffer). */
  size_t cap = CLI_CHUNK, len = 0;
  struct stat st;
  if (!in->is_stdin && fstat(fileno(in->f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uint64_t)st.st_size < SIZE_MAX / 2 - room - CLI_CHUNK)
    cap = (size_t)st.st_size + CLI_CHUNK; /* the last read, of 0 bytes, needs CLI_CHUNK */
  uint8_t *buf = malloc(cap);
  if (!buf) goto oom;
  for (;;) {
    if (cap - len < CLI_CHUNK) {
      if (cap > SIZE_MAX / 2) goto oom_free;
      uint8_t *nb = realloc(buf, cap * 2);
      if (!nb) goto oom_free;
      buf = nb;
      cap *= 2;
    }
    size_t got;
    if (cli_in_read(in, buf + len, CLI_CHUNK, &got)) {
      free(buf);
      return CLI_EXIT_FAIL;
    }
    len += got;
    if (got < CLI_CHUNK) break;
  }
  if (cap - len < room) {
    uint8_t *nb = realloc(buf, len + room);
    if (!nb) goto oom_free;
    buf = nb;
  }
  *out = buf;
  *out_len = len;
  return 0;
oom_free:
  free(buf);
oom:
  cli_err("%s: out of memory reading the input", in->name);
  return CLI_EXIT_FAIL;
}

int cli_read_file(const char *path, const cli_file *how, uint8_t **buf, size_t *len) {
  cli_in in;
  size_t max = how ? how->max : 0;
  *buf = NULL, *len = 0;
  int rc = cli_in_open(&in, path);
  if (rc) return rc;
  if (!max) {
    rc = cli_in_read_all(&in, buf, len);
  } else if (!(*buf = malloc(max + 1))) { /* a byte more: /dev/zero is refused, not read */
    cli_err("%s: out of memory reading the input", path);
    rc = CLI_EXIT_FAIL;
  } else if (!(rc = cli_in_read(&in, *buf, max + 1, len)) && *len > max) {
    rc = how->usage ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
    cli_err("%s%s%s: larger than %zu bytes", how->opt ? how->opt : "", how->opt ? " " : "", path, max);
  }
  cli_in_close(&in);
  if (rc) free(*buf), *buf = NULL, *len = 0;
  return rc;
}

int cli_in_map(cli_in *in) {
  const char *env = getenv("GOSTX_MMAP"); /* "0": read(), for comparisons */
  struct stat st;
  if (in->is_stdin || (env && !strcmp(env, "0"))) return 0;
  if (fstat(fileno(in->f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      (uint64_t)st.st_size > SIZE_MAX)
    return 0;
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fileno(in->f), 0);
  if (p == MAP_FAILED) return 0;
  posix_madvise(p, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL); /* read-ahead */
  in->map = p;
  in->map_len = (uint64_t)st.st_size;
  in->mtime = st.st_mtim;
  return 1;
}

int cli_in_check_unchanged(cli_in *in, const char *sub) {
  struct stat st;
  if (!in->map) return 0;
  if (fstat(fileno(in->f), &st) == 0 && (uint64_t)st.st_size == in->map_len &&
      st.st_mtim.tv_sec == in->mtime.tv_sec && st.st_mtim.tv_nsec == in->mtime.tv_nsec)
    return 0;
  cli_err("%s: %s changed while it was read; nothing written", sub, in->name);
  return CLI_EXIT_FAIL;
}

void cli_in_close(cli_in *in) {
  if (in->map) munmap((void *)(uintptr_t)in->map, (size_t)in->map_len);
  in->map = NULL;
  if (in->f && !in->is_stdin) fclose(in->f);
  in->f = NULL;
}

void cli_json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') printf("\\%c", ch);
    else if (ch < 0x20) printf("\\u%04x", ch);
    else putchar(ch);
  }
  putchar('"');
}
