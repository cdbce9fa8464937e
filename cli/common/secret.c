/* gostx CLI: secrets from files and from the terminal. Files are read with
 * read(2), so no stdio buffer keeps a copy; the terminal is read with echo
 * off, restored on SIGINT/SIGTERM. Used by enc/dec, disk, the key-file /
 * fd options of cipher, mac and kdf, and the openssl-style password
 * arguments of genpkey and pkey (-pass, -passin, -passout). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"

/* Reads fd to its end, up to cap bytes, with read(2). name: for messages. */
static long read_secret_fd(int fd, const char *name, uint8_t *buf, size_t cap) {
  size_t n = 0;
  while (n < cap) {
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      cli_err("%s: read error: %s", name, strerror(errno));
      gostx_memzero(buf, cap);
      return -1;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  return (long)n;
}

/* Reads up to cap bytes of a file with read(2): no stdio buffer keeps a copy
 * of the secret. Returns the count, or -1 after printing why. */
long cli_read_secret_file(const char *path, uint8_t *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    cli_err("%s: %s", path, strerror(errno));
    return -1;
  }
  long n = read_secret_fd(fd, path, buf, cap);
  close(fd);
  return n;
}

int cli_secret_file_private(const char *opt, const char *path, int allow, const char *allow_opt) {
  struct stat st;
  if (stat(strcmp(path, "-") ? path : "/dev/stdin", &st) || !S_ISREG(st.st_mode) ||
      !(st.st_mode & 077))
    return 0;
  unsigned mode = (unsigned)(st.st_mode & 07777);
  if (!allow) {
    cli_err("%s %s has mode %04o: group or others can access it; chmod go= it, or give %s to "
            "use it anyway", opt, path, mode, allow_opt);
    return CLI_EXIT_FAIL;
  }
  cli_err("warning: %s %s has mode %04o: group or others can access it (used because of %s)",
          opt, path, mode, allow_opt);
  return 0;
}

int cli_secret_fd(const char *opt, const char *s, int *fd, char name[32]) {
  uint64_t v;
  int rc = cli_uint(opt, s, 0, INT_MAX, &v);
  if (rc) return rc;
  *fd = (int)v;
  snprintf(name, 32, "%s %d", opt, *fd);
  if (fcntl(*fd, F_GETFD) < 0) {
    cli_err("%s: %s", name, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  return 0;
}

int cli_read_secret(const char *file, const char *fd_opt, const char *fd_s, size_t min,
                    size_t max, uint8_t **out, size_t *len) {
  *out = NULL;
  *len = 0;
  int fd = -1, rc;
  char fd_name[32];
  if (!file && (rc = cli_secret_fd(fd_opt, fd_s, &fd, fd_name))) return rc;
  const char *name = file ? file : fd_name;
  uint8_t *buf = malloc(max + 1); /* one byte more tells "too long" */
  if (!buf) {
    cli_err("%s: out of memory", name);
    return CLI_EXIT_FAIL;
  }
  long got = file ? cli_read_secret_file(file, buf, max + 1) : read_secret_fd(fd, name, buf, max + 1);
  if (got < 0) {
    free(buf);
    return CLI_EXIT_FAIL;
  }
  if ((size_t)got < min || (size_t)got > max) {
    cli_free_secret(buf, max + 1);
    if (min == max)
      return cli_usage("%s: the key must be exactly %zu raw bytes (not hex); this is %s", name,
                       max, (size_t)got > max ? "longer" : "shorter");
    if (got == 0) return cli_usage("%s: empty key", name);
    return cli_usage("%s: key longer than %zu bytes", name, max);
  }
  *out = buf;
  *len = (size_t)got;
  return 0;
}

/* Strips one trailing "\n" or "\r\n". */
static size_t chomp(const uint8_t *p, size_t n) {
  if (n && p[n - 1] == '\n') n--;
  if (n && p[n - 1] == '\r') n--;
  return n;
}

/* pass has room for CLI_PASS_MAX + 2 bytes. fd < 0: read the file path;
 * otherwise fd, named path in messages. */
static int read_pass_file(const char *path, int fd, uint8_t *pass, size_t *len) {
  long got = fd < 0 ? cli_read_secret_file(path, pass, CLI_PASS_MAX + 2)
                    : read_secret_fd(fd, path, pass, CLI_PASS_MAX + 2);
  if (got < 0) return CLI_EXIT_FAIL;
  size_t n = chomp(pass, (size_t)got);
  if (n > CLI_PASS_MAX) return cli_usage("%s: passphrase longer than %d bytes", path, CLI_PASS_MAX);
  if (n == 0) return cli_usage("%s: empty passphrase", path);
  *len = n;
  return 0;
}

int cli_read_pass_fd(const char *fd_opt, const char *fd_s, uint8_t *pass, size_t *len) {
  int fd, rc;
  char name[32];
  if ((rc = cli_secret_fd(fd_opt, fd_s, &fd, name))) return rc;
  return read_pass_file(name, fd, pass, len);
}

/* The terminal's settings while echo is off, restored on SIGINT/SIGTERM. */
static int tty_fd = -1;
static struct termios tty_saved;
static volatile sig_atomic_t tty_echo_off;
static struct sigaction tty_old_int, tty_old_term;

static void tty_restore_signal(int sig) {
  if (tty_echo_off) tcsetattr(tty_fd, TCSAFLUSH, &tty_saved);
  /* Then what was there before: the output's cleanup (cli/common/out.c) or death. */
  sigaction(sig, sig == SIGINT ? &tty_old_int : &tty_old_term, NULL);
  raise(sig);
}

/* Reads one line from /dev/tty with echo off. */
static int tty_read_pass(const char *prompt, uint8_t *pass, size_t *len) {
  if (tty_fd < 0) tty_fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty_fd < 0) {
    cli_err("cannot open the terminal (/dev/tty) to ask for the passphrase: %s; "
            "use --pass-file FILE",
            strerror(errno));
    return CLI_EXIT_FAIL;
  }
  struct termios t;
  int have_termios = tcgetattr(tty_fd, &tty_saved) == 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = tty_restore_signal;
  sigaction(SIGINT, &sa, &tty_old_int);
  sigaction(SIGTERM, &sa, &tty_old_term);
  if (have_termios) {
    t = tty_saved;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
    t.c_lflag |= ICANON;
    tty_echo_off = 1;
    tcsetattr(tty_fd, TCSAFLUSH, &t);
  }
  /* The prompt comes after echo is off, so nothing typed after it is lost. */
  if (write(tty_fd, prompt, strlen(prompt)) < 0) { /* reading still works */
  }
  size_t n = 0;
  int rc = 0, too_long = 0;
  for (;;) {
    char c;
    ssize_t r = read(tty_fd, &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || c == '\n') break;
    if (n < CLI_PASS_MAX + 1) pass[n++] = (uint8_t)c;
    else too_long = 1;
  }
  if (have_termios) {
    tcsetattr(tty_fd, TCSANOW, &tty_saved);
    tty_echo_off = 0;
  }
  sigaction(SIGINT, &tty_old_int, NULL);
  sigaction(SIGTERM, &tty_old_term, NULL);
  if (write(tty_fd, "\n", 1) < 0) { /* echo was off: end the prompt's line */
  }
  n = chomp(pass, n);
  if (too_long || n > CLI_PASS_MAX) rc = cli_usage("passphrase longer than %d bytes", CLI_PASS_MAX);
  else if (n == 0) rc = cli_usage("empty passphrase");
  *len = n;
  return rc;
}

int cli_read_pass(const char *pass_file, const char *prompt, int confirm, uint8_t *pass,
                  size_t *len) {
  if (pass_file) return read_pass_file(pass_file, -1, pass, len);
  int rc = tty_read_pass(prompt, pass, len);
  if (rc || !confirm) return rc;
  uint8_t again[CLI_PASS_MAX + 2];
  size_t len2 = 0, n = strlen(prompt);
  char again_prompt[128]; /* "Passphrase: " -> "Passphrase (again): " */
  if (n >= 2 && !strcmp(prompt + n - 2, ": ")) n -= 2;
  snprintf(again_prompt, sizeof again_prompt, "%.*s (again): ", (int)n, prompt);
  rc = tty_read_pass(again_prompt, again, &len2);
  if (!rc && (len2 != *len || gostx_memeq_ct(again, pass, *len) != 0)) {
    cli_err("the passphrases do not match");
    rc = CLI_EXIT_FAIL;
  }
  gostx_memzero(again, sizeof again);
  return rc;
}

/* The first line of buf[n], up to its "\n", as openssl 3 takes a password
 * from a file, descriptor or stdin: a "\r" before the "\n" stays part of the
 * password (so a key written from a CRLF file by either tool opens with the
 * other from the same file). */
static int first_line(const char *from, const uint8_t *buf, size_t n, size_t *len) {
  const uint8_t *nl = memchr(buf, '\n', n);
  if (nl) n = (size_t)(nl - buf);
  if (n > CLI_PASS_MAX) return cli_usage("%s: password longer than %d bytes", from, CLI_PASS_MAX);
  if (n == 0) return cli_usage("%s: empty password", from);
  *len = n;
  return 0;
}

/* file:, fd: or stdin: up to cap bytes read into buf (*got),
 * name for messages. NOT_A_SOURCE when spec is none of them (not 1: that
 * is CLI_EXIT_FAIL, a source that failed, a missing file). */
#define NOT_A_SOURCE (-1)

static int read_source(const char *opt, const char *spec, uint8_t *buf, size_t cap, long *got,
                       char *name, size_t name_cap) {
  int fd = -1, rc;
  const char *path = NULL;
  if (!strncmp(spec, "file:", 5)) {
    path = spec + 5;
    snprintf(name, name_cap, "%s file:%.40s", opt, path);
  } else if (!strncmp(spec, "fd:", 3)) {
    char fdname[32];
    if ((rc = cli_secret_fd(opt, spec + 3, &fd, fdname))) return rc;
    snprintf(name, name_cap, "%s fd:%s", opt, spec + 3);
  } else if (!strcmp(spec, "stdin")) {
    fd = 0;
    snprintf(name, name_cap, "%s stdin", opt);
  } else {
    return NOT_A_SOURCE;
  }
  *got = path ? cli_read_secret_file(path, buf, cap) : read_secret_fd(fd, name, buf, cap);
  return *got < 0 ? CLI_EXIT_FAIL : 0;
}

int cli_read_pass_lines(const char *opt, const char *spec, uint8_t *in, size_t *in_len,
                        uint8_t *out, size_t *out_len) {
  uint8_t *buf = malloc(2 * CLI_PASS_MAX + 8);
  long got = 0;
  char name[64];
  if (!buf) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  int rc = read_source(opt, spec, buf, 2 * CLI_PASS_MAX + 8, &got, name, sizeof name);
  if (rc == NOT_A_SOURCE)
    rc = cli_usage("%s: '%s': one source for both passwords must be file:, fd: or stdin",
                   opt, spec);
  if (!rc) rc = first_line(name, buf, (size_t)got, in_len);
  if (!rc) {
    memcpy(in, buf, *in_len);
    const uint8_t *nl = memchr(buf, '\n', (size_t)got);
    size_t skip = nl ? (size_t)(nl - buf) + 1 : (size_t)got;
    rc = first_line(name, buf + skip, (size_t)got - skip, out_len);
    if (!rc) memcpy(out, buf + skip, *out_len);
  }
  cli_free_secret(buf, 2 * CLI_PASS_MAX + 8);
  return rc;
}

/* All of v (pass: and env:, newlines included, as openssl takes them). */
static int whole_value(const char *from, const char *v, uint8_t *pass, size_t *len) {
  size_t n = strlen(v);
  if (n > CLI_PASS_MAX) return cli_usage("%s: password longer than %d bytes", from, CLI_PASS_MAX);
  if (n == 0) return cli_usage("%s: empty password", from);
  memcpy(pass, v, n);
  *len = n;
  return 0;
}

int cli_read_pass_arg(const char *opt, const char *spec, uint8_t *pass, size_t *len) {
  uint8_t *buf = NULL;
  long got = 0;
  int rc;
  char name[64];
  if (!strncmp(spec, "pass:", 5)) {
    snprintf(name, sizeof name, "%s pass:", opt);
    return whole_value(name, spec + 5, pass, len);
  }
  if (!strncmp(spec, "env:", 4)) {
    const char *v = getenv(spec + 4);
    snprintf(name, sizeof name, "%s env:%.40s", opt, spec + 4);
    if (!v) return cli_usage("%s: no such environment variable", name);
    return whole_value(name, v, pass, len);
  }
  if (!(buf = malloc(CLI_PASS_MAX + 2))) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  rc = read_source(opt, spec, buf, CLI_PASS_MAX + 2, &got, name, sizeof name);
  if (rc == NOT_A_SOURCE)
    rc = cli_usage("%s: '%s' is none of pass:PASSWORD, file:PATH, fd:N, env:VAR, stdin", opt, spec);
  if (!rc) rc = first_line(name, buf, (size_t)got, len);
  if (!rc) memcpy(pass, buf, *len);
  cli_free_secret(buf, CLI_PASS_MAX + 2);
  return rc;
}

int cli_key_source(const char *name, const char *hex, const char *file, const char *fd,
                   int stdin_is_data) {
  int sources = !!hex + !!file + !!fd;
  if (!sources) return cli_usage("%s: missing key (-k KEYHEX, --key-file FILE or --key-fd N)", name);
  if (sources > 1) return cli_usage("%s: give only one of -k, --key-file and --key-fd", name);
  if (stdin_is_data && file && !strcmp(file, "-"))
    return cli_usage("%s: --key-file needs a file (stdin is the data; --key-fd N reads a descriptor)",
                     name);
  return 0;
}
