/* gostx tls serve -c FILE: the file of services (docs/TLS_CLI.md). Global
 * settings first, then a [name] section per service; each key is the
 * command line's option of the same name, set through tls_opt_set (the
 * meaning of each is cmd_tls.c's alone). Every refusal is one line naming
 * FILE:LINE. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tls_cli.h"

#define FILE_MAX (1u << 20)
#define LINE_MAX_BYTES 1023

enum key_place { GLOBAL, SERVICE };
#define KEY_LOG (-1) /* not an option: stderr's file */

/* The keys: the option each sets, where it may stand, and whether it is a
 * flag (true or false) rather than a value. */
static const struct file_key {
  const char *name;
  int id;
  enum key_place place;
  int flag;
} keys[] = {
    {"workers", TLS_O_THREADS, GLOBAL, 0},
    {"keylog", TLS_O_KEYLOG, GLOBAL, 0},
    {"log", KEY_LOG, GLOBAL, 0},
    {"listen", TLS_O_LISTEN, SERVICE, 0},
    {"backend", TLS_O_BACKEND, SERVICE, 0},
    {"cert", TLS_O_CERT, SERVICE, 0},
    {"key", TLS_O_KEY, SERVICE, 0},
    {"chain", TLS_O_CHAIN, SERVICE, 0},
    {"passin", TLS_O_PASSIN, SERVICE, 0},
    {"ca", TLS_O_CA, SERVICE, 0},
    {"verify-client", TLS_O_VERIFY, SERVICE, 1},
    {"require-client", TLS_O_REQUIRE, SERVICE, 1},
    {"version", TLS_O_VERSION, SERVICE, 0},
    {"suites", TLS_O_SUITES, SERVICE, 0},
    {"groups", TLS_O_GROUPS, SERVICE, 0},
    {"alpn", TLS_O_ALPN, SERVICE, 0},
    {"timeout", TLS_O_TIMEOUT, SERVICE, 0},
    {"psk-file", TLS_O_PSK_FILE, SERVICE, 0},
    {"no-tickets", TLS_O_NO_TICKETS, SERVICE, 1},
    {"ticket-key", TLS_O_TICKET_KEY, SERVICE, 0},
    {"insecure-key-file", TLS_O_INSECURE_KEY_FILE, SERVICE, 1},
    {"timing", TLS_O_TIMING, SERVICE, 1},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  return s;
}

/* The whole file, NUL-terminated, in *text: 0 or a code after printing. */
static int read_text(const char *path, char **text, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  struct stat st;
  if (fd < 0) return cli_usage("%s: %s", path, strerror(errno));
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return cli_usage("%s: not a regular file", path);
  }
  if (st.st_size > FILE_MAX) {
    close(fd);
    return cli_usage("%s: larger than %u bytes", path, FILE_MAX);
  }
  /* its size and a byte more: a file that grew since is refused, not cut */
  size_t cap = (size_t)st.st_size + 1, n = 0;
  char *buf = malloc(cap + 1);
  ssize_t r = 1;
  while (buf && n < cap && (r = read(fd, buf + n, cap - n)) > 0) n += (size_t)r;
  int e = errno;
  close(fd);
  if (!buf) return cli_usage("%s: out of memory", path);
  if (r < 0 || n == cap) {
    free(buf);
    return r < 0 ? cli_usage("%s: %s", path, strerror(e))
                 : cli_usage("%s: changed while it was read", path);
  }
  buf[n] = 0;
  *text = buf;
  *len = n;
  return 0;
}

/* The parse's state: where it is and what was seen where. */
struct parse {
  const char *path;
  unsigned line;
  struct tls_file *f;
  struct tls_opts *cur; /* the section's options, or the global ones */
  unsigned first[NKEYS]; /* the line each key was given on, in this section */
};

/* [name]: a new service (a name given once). */
static int section(struct parse *ps, char *s) {
  size_t n = strlen(s);
  if (s[n - 1] != ']') return cli_usage("%s:%u: a section is written [NAME]", ps->path, ps->line);
  s[n - 1] = 0;
  char *name = trim(s + 1);
  size_t len = strlen(name);
  if (!len || len >= sizeof ps->f->svc[0].name || strspn(name, "abcdefghijklmnopqrstuvwxyz"
                                                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789._-") != len)
    return cli_usage("%s:%u: a service name is 1-63 of A-Z a-z 0-9 . _ -: '%s'", ps->path,
                     ps->line, name);
  for (size_t i = 0; i < ps->f->n; i++)
    if (!strcmp(ps->f->svc[i].name, name))
      return cli_usage("%s:%u: service [%s] given twice (first on line %u)", ps->path, ps->line,
                       name, ps->f->svc[i].line);
  struct tls_file_service *svc = realloc(ps->f->svc, (ps->f->n + 1) * sizeof *svc);
  if (!svc) return cli_usage("%s: out of memory", ps->path);
  ps->f->svc = svc;
  svc += ps->f->n++;
  memset(svc, 0, sizeof *svc);
  memcpy(svc->name, name, len + 1);
  svc->line = ps->line;
  ps->cur = &svc->o;
  memset(ps->first, 0, sizeof ps->first);
  return 0;
}

/* KEY = VALUE into the current section through the option it names. */
static int setting(struct parse *ps, char *s) {
  char *eq = strchr(s, '=');
  if (!eq) return cli_usage("%s:%u: expected KEY = VALUE or [NAME]", ps->path, ps->line);
  *eq = 0;
  char *k = trim(s), *v = trim(eq + 1);
  size_t i = 0;
  while (i < NKEYS && strcmp(k, keys[i].name)) i++;
  if (i == NKEYS) return cli_usage("%s:%u: unknown key '%s'", ps->path, ps->line, k);
  const struct file_key *key = &keys[i];
  int in_service = ps->cur != &ps->f->global;
  if (key->place == GLOBAL && in_service)
    return cli_usage("%s:%u: %s is a global setting: put it before the first [service]",
                     ps->path, ps->line, k);
  if (key->place == SERVICE && !in_service)
    return cli_usage("%s:%u: %s belongs to a service: put it under a [name]", ps->path, ps->line,
                     k);
  if (ps->first[i])
    return cli_usage("%s:%u: %s given twice (first on line %u)", ps->path, ps->line, k,
                     ps->first[i]);
  ps->first[i] = ps->line;
  if (!*v) return cli_usage("%s:%u: %s: no value", ps->path, ps->line, k);
  if (key->flag && strcmp(v, "true") && strcmp(v, "false"))
    return cli_usage("%s:%u: %s is true or false, not '%s'", ps->path, ps->line, k, v);
  if (key->id == KEY_LOG) ps->f->log = v;
  else if (!key->flag || !strcmp(v, "true")) (void)tls_opt_set(ps->cur, key->id, v);
  return 0;
}

/* One line (its newline cut): a comment, a blank, a section or a key. */
static int one_line(struct parse *ps, char *line, size_t len) {
  if (len > LINE_MAX_BYTES)
    return cli_usage("%s:%u: line longer than %d bytes", ps->path, ps->line, LINE_MAX_BYTES);
  if (strlen(line) != len) return cli_usage("%s:%u: a NUL byte in the line", ps->path, ps->line);
  char *hash = strchr(line, '#');
  if (hash) *hash = 0;
  char *s = trim(line);
  if (!*s) return 0;
  return *s == '[' ? section(ps, s) : setting(ps, s);
}

int tls_file_read(const char *path, struct tls_file *f) {
  memset(f, 0, sizeof *f);
  size_t len = 0;
  int rc = read_text(path, &f->text, &len);
  f->text_len = len;
  struct parse ps = {path, 0, f, &f->global, {0}};
  for (char *p = f->text, *end = f->text + len; !rc && p < end;) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    char *stop = nl ? nl : end;
    *stop = 0;
    ps.line++;
    rc = one_line(&ps, p, (size_t)(stop - p));
    p = stop + 1;
  }
  if (!rc && !f->n) rc = cli_usage("%s: no service ([name] and its settings)", path);
  if (rc) tls_file_free(f);
  return rc;
}

void tls_file_free(struct tls_file *f) {
  if (f->text) gostx_memzero(f->text, f->text_len); /* it may hold passin = pass:... */
  free(f->text);
  free(f->svc);
  memset(f, 0, sizeof *f);
}
