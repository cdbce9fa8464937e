/* gostx CLI helpers: option parsing, strict hex/number parsing, streams,
 * and output files that appear only when everything succeeded. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"

/* ---- errors ---- */

static void verr(const char *fmt, va_list ap) {
  fputs("gostx: ", stderr);
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

/* ---- option parsing ---- */

void cli_parser_init(cli_parser *p, const char *sub, int argc, char **argv) {
  memset(p, 0, sizeof *p);
  p->argc = argc;
  p->argv = argv;
  p->idx = 1; /* argv[0] is the subcommand name */
  p->sub = sub;
}

/* Takes the argument of option `shown` from the rest of the current word or
 * from the next argv element. */
static int take_arg(cli_parser *p, const char *inline_arg, const char *shown) {
  if (inline_arg) {
    p->arg = inline_arg;
    return 0;
  }
  if (p->idx >= p->argc) {
    cli_err("%s: option %s needs a value", p->sub, shown);
    return -1;
  }
  p->arg = p->argv[p->idx++];
  return 0;
}

int cli_next(cli_parser *p, const cli_opt *opts) {
  p->arg = NULL;
  p->pos = NULL;
  if (p->pending && *p->pending) {
    /* Continue a cluster of short flags such as -dv. */
    char c = *p->pending++;
    for (const cli_opt *o = opts; o->long_name; o++) {
      if (o->short_name != c) continue;
      char shown[3] = {'-', c, 0};
      if (o->has_arg) {
        const char *rest = *p->pending ? p->pending : NULL;
        p->pending = NULL;
        if (take_arg(p, rest, shown) < 0) return CLI_BAD;
      }
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
      return cli_next(p, opts);
    }
    const char *name = a + 2;
    const char *eq = strchr(name, '=');
    size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
    for (const cli_opt *o = opts; o->long_name; o++) {
      if (strlen(o->long_name) != nlen || strncmp(o->long_name, name, nlen) != 0) continue;
      if (!o->has_arg) {
        if (eq) {
          cli_err("%s: option --%s takes no value", p->sub, o->long_name);
          return CLI_BAD;
        }
        return o->id;
      }
      if (take_arg(p, eq ? eq + 1 : NULL, a) < 0) return CLI_BAD;
      return o->id;
    }
    cli_err("%s: unknown option --%.*s (try --help)", p->sub, (int)nlen, name);
    return CLI_BAD;
  }
  p->pending = a + 1;
  return cli_next(p, opts);
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

/* ---- input ---- */

int cli_in_open(cli_in *in, const char *path) {
  memset(in, 0, sizeof *in);
  if (!path || strcmp(path, "-") == 0) {
    in->f = stdin;
    in->name = "stdin";
    in->is_stdin = 1;
    return 0;
  }
  in->name = path;
  in->f = fopen(path, "rb");
  if (!in->f) {
    cli_err("%s: %s", path, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  struct stat st;
  if (fstat(fileno(in->f), &st) == 0 && S_ISDIR(st.st_mode)) {
    cli_err("%s: %s", path, strerror(EISDIR));
    fclose(in->f);
    in->f = NULL;
    return CLI_EXIT_FAIL;
  }
  return 0;
}

int cli_in_read(cli_in *in, uint8_t *buf, size_t cap, size_t *got) {
  size_t n = 0;
  while (n < cap) {
    size_t r = fread(buf + n, 1, cap - n, in->f);
    n += r;
    if (r == 0) {
      if (ferror(in->f)) {
        cli_err("%s: read error: %s", in->name, strerror(errno));
        return CLI_EXIT_FAIL;
      }
      break; /* EOF */
    }
  }
  *got = n;
  return 0;
}

int cli_in_read_all(cli_in *in, uint8_t **out, size_t *out_len) {
  size_t cap = CLI_CHUNK, len = 0;
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
  *out = buf;
  *out_len = len;
  return 0;
oom_free:
  free(buf);
oom:
  cli_err("%s: out of memory reading the input", in->name);
  return CLI_EXIT_FAIL;
}

void cli_in_close(cli_in *in) {
  if (in->f && !in->is_stdin) fclose(in->f);
  in->f = NULL;
}

/* ---- output ---- */

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Follows symbolic links (relative ones from the link's directory). Returns a
 * malloc'ed path when path was a link, NULL otherwise or on any error. */
static char *resolve_links(const char *path) {
  char *cur = NULL;
  struct stat st;
  for (int hops = 0; hops < 40; hops++) {
    const char *p = cur ? cur : path;
    if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
    char target[4096];
    ssize_t len = readlink(p, target, sizeof target - 1);
    if (len < 0 || (size_t)len >= sizeof target - 1) break;
    target[len] = 0;
    const char *slash = strrchr(p, '/');
    size_t dir_len = (target[0] != '/' && slash) ? (size_t)(slash - p) + 1 : 0;
    char *next = malloc(dir_len + (size_t)len + 1);
    if (!next) break;
    memcpy(next, p, dir_len);
    memcpy(next + dir_len, target, (size_t)len + 1);
    free(cur);
    cur = next;
  }
  free(cur);
  return NULL;
}

int cli_out_open(cli_out *out, const char *path) {
  memset(out, 0, sizeof *out);
  if (!path || strcmp(path, "-") == 0) {
    out->f = stdout;
    out->name = "stdout";
    return 0;
  }
  out->name = path;
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      cli_err("%s: %s", path, strerror(EISDIR));
      return CLI_EXIT_FAIL;
    }
    /* A device or pipe: cannot be replaced atomically, write it directly. */
    out->f = fopen(path, "wb");
    if (!out->f) {
      cli_err("%s: %s", path, strerror(errno));
      return CLI_EXIT_FAIL;
    }
    return 0;
  }
  /* A symbolic link: replace the file it points to, not the link. */
  char *real = resolve_links(path);
  /* Temporary file beside the target, so rename() stays on one file system. */
  out->path = real ? real : dup_str(path);
  if (out->path) path = out->path;
  size_t n = strlen(path);
  out->tmp_path = malloc(n + 32);
  if (!out->path || !out->tmp_path) {
    cli_err("out of memory");
    free(out->path);
    free(out->tmp_path);
    out->path = out->tmp_path = NULL;
    return CLI_EXIT_FAIL;
  }
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  snprintf(out->tmp_path, n + 32, "%.*s.%s.gostx-XXXXXX", (int)dir_len, path, path + dir_len);
  int fd = mkstemp(out->tmp_path);
  if (fd < 0) {
    cli_err("%s: cannot create a temporary file beside it: %s", path, strerror(errno));
    free(out->path);
    free(out->tmp_path);
    out->path = out->tmp_path = NULL;
    return CLI_EXIT_FAIL;
  }
  out->f = fdopen(fd, "wb");
  if (!out->f) {
    cli_err("%s: %s", path, strerror(errno));
    close(fd);
    unlink(out->tmp_path);
    free(out->path);
    free(out->tmp_path);
    out->path = out->tmp_path = NULL;
    return CLI_EXIT_FAIL;
  }
  return 0;
}

int cli_out_write(cli_out *out, const void *buf, size_t len) {
  if (out->failed) return CLI_EXIT_FAIL;
  if (len && fwrite(buf, 1, len, out->f) != len) {
    cli_err("%s: write error: %s", out->name, strerror(errno));
    out->failed = 1;
    return CLI_EXIT_FAIL;
  }
  return 0;
}

int cli_out_commit(cli_out *out) {
  if (!out->f) return CLI_EXIT_FAIL;
  if (out->failed) {
    cli_out_abort(out);
    return CLI_EXIT_FAIL;
  }
  if (fflush(out->f) != 0 || ferror(out->f)) {
    cli_err("%s: write error: %s", out->name, strerror(errno));
    cli_out_abort(out);
    return CLI_EXIT_FAIL;
  }
  if (!out->tmp_path) { /* stdout or a device */
    int rc = 0;
    if (out->f != stdout) rc = fclose(out->f);
    out->f = NULL;
    if (rc != 0) {
      cli_err("%s: write error: %s", out->name, strerror(errno));
      return CLI_EXIT_FAIL;
    }
    return 0;
  }
  /* mkstemp made the file 0600; give it the mode a new file would get, or
   * keep the mode of the file it replaces. */
  struct stat st;
  mode_t mode;
  if (stat(out->path, &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  int fd = fileno(out->f);
  if (fchmod(fd, mode) != 0) {
    cli_err("%s: %s", out->tmp_path, strerror(errno));
    cli_out_abort(out);
    return CLI_EXIT_FAIL;
  }
  int rc = fclose(out->f);
  out->f = NULL;
  if (rc != 0) {
    cli_err("%s: write error: %s", out->name, strerror(errno));
    unlink(out->tmp_path);
    goto fail;
  }
  if (rename(out->tmp_path, out->path) != 0) {
    cli_err("%s: cannot rename the temporary file into place: %s", out->path, strerror(errno));
    unlink(out->tmp_path);
    goto fail;
  }
  free(out->path);
  free(out->tmp_path);
  out->path = out->tmp_path = NULL;
  return 0;
fail:
  free(out->path);
  free(out->tmp_path);
  out->path = out->tmp_path = NULL;
  return CLI_EXIT_FAIL;
}

void cli_out_abort(cli_out *out) {
  if (out->f && out->f != stdout) fclose(out->f);
  else if (out->f == stdout) fflush(stdout);
  out->f = NULL;
  if (out->tmp_path) unlink(out->tmp_path);
  free(out->path);
  free(out->tmp_path);
  out->path = out->tmp_path = NULL;
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
