/* gostx ts -reply and what serve shares with it: the TSA (key, signer
 * certificate, chain, policy, accuracy) loaded, serial numbers taken from
 * their file under a lock, a query answered with a token or a refusal. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "ts_cli.h"

#define DEFAULT_POLICY "1.2.643.100.1" /* what openssl ts's examples and the tests use */

/* "secs:1,millis:500,micros:0" (openssl ts's accuracy) or SECONDS */
static int accuracy_arg(const char *s, gostx_tsa_params *p) {
  uint64_t v;
  char part[32];
  if (!strchr(s, ':')) {
    if (cli_uint("-accuracy", s, 0, UINT32_MAX, &v)) return CLI_EXIT_USAGE;
    p->accuracy_secs = (uint32_t)v;
    return 0;
  }
  while (*s) {
    size_t n = strcspn(s, ",");
    if (n >= sizeof part) return cli_usage("ts: -accuracy: '%s' is too long", s);
    memcpy(part, s, n), part[n] = 0;
    s += n + (s[n] == ',');
    char *colon = strchr(part, ':'), *name = part;
    while (*name == ' ') name++;
    if (!colon) return cli_usage("ts: -accuracy: '%s': secs:N, millis:N or micros:N", part);
    *colon = 0;
    uint32_t *to = !strcmp(name, "secs") ? &p->accuracy_secs : !strcmp(name, "millis") ? &p->accuracy_millis
                 : !strcmp(name, "micros") ? &p->accuracy_micros : NULL;
    if (!to) return cli_usage("ts: -accuracy: unknown unit '%s' (secs, millis, micros)", name);
    if (cli_uint("-accuracy", colon + 1, 0, to == &p->accuracy_secs ? UINT32_MAX : 999, &v))
      return CLI_EXIT_USAGE;
    *to = (uint32_t)v;
  }
  return 0;
}

/* An OID's dotted text: two arcs or more, digits only (the writer checks the rest). */
static int dotted(const char *s) {
  size_t arcs = 0;
  for (const char *p = s; *p; p++) {
    size_t n = strspn(p, "0123456789");
    if (!n || n > 10 || (p[n] && p[n] != '.') || (p[n] == '.' && !p[n + 1])) return 0;
    arcs++, p += n;
    if (!*p) break;
  }
  return arcs >= 2 && (s[0] == '0' || s[0] == '1' || s[0] == '2') && s[1] == '.';
}

/* RFC 3161 2.3: the TSA's certificate has extendedKeyUsage, critical,
 * with timeStamping its only purpose; verifiers refuse tokens of any
 * other (lib/cms/tsa_verify.c), so such a TSA does not start. What is
 * wrong with c, or NULL. */
static const char *not_tsa(const gostx_x509_cert *c) {
  unsigned eku = c->ext_key_usage;
  if (eku == ~0u) return "it has no extendedKeyUsage";
  if (!(eku & GOSTX_X509_EKU_TIMESTAMP)) return "its extendedKeyUsage lacks timeStamping";
  if (eku & ~(GOSTX_X509_EKU_TIMESTAMP | GOSTX_X509_EKU_CRITICAL))
    return "its extendedKeyUsage has purposes besides timeStamping";
  if (!(eku & GOSTX_X509_EKU_CRITICAL)) return "its extendedKeyUsage is not critical";
  return NULL;
}

int ts_tsa_load(const ts_args *a, ts_tsa *t) {
  memset(t, 0, sizeof *t);
  if (!(t->certs = calloc(1, sizeof *t->certs))) return cli_err("out of memory"), CLI_EXIT_FAIL;
  int rc = cert_load_signing_key("-inkey", a->inkey, a->passin, &t->k);
  if (!rc) rc = cli_load_certs(a->signer, t->certs);
  if (!rc && t->certs->n != 1) rc = cli_usage("ts: -signer %s: one certificate (the TSA's) is needed", a->signer);
  if (!rc && a->chain) rc = cli_load_certs(a->chain, t->certs);
  if (rc) return rc;
  const gostx_x509_cert *c = &t->certs->c[0];
  if (c->pub_len != 2 * t->k.len || memcmp(c->pub, t->k.q, c->pub_len) != 0)
    return cli_usage("ts: -inkey %s is not the key of -signer %s", a->inkey, a->signer);
  const char *why = not_tsa(c);
  if (why)
    return cli_usage("ts: -signer %s is not a TSA certificate: %s (RFC 3161 2.3: extendedKeyUsage "
                     "critical, with timeStamping alone)", a->signer, why);
  gostx_tsa_params *p = &t->p;
  p->cert = c, p->key = &t->k;
  p->chain = t->certs->c + 1, p->n_chain = t->certs->n - 1;
  p->policy = a->policy ? a->policy : a->tspolicy ? a->tspolicy : DEFAULT_POLICY;
  if (!dotted(p->policy)) return cli_usage("ts: -policy '%s' is no OID", p->policy);
  /* openssl ts's default accuracy is none; the token says "secs:1" unless told */
  p->accuracy_secs = 1;
  p->tsa_name = a->tsa_name;
  if (a->accuracy && ((p->accuracy_secs = 0), accuracy_arg(a->accuracy, p))) return CLI_EXIT_USAGE;
  t->serial = a->serial;
  return 0;
}

void ts_tsa_free(ts_tsa *t) {
  gostx_gost3410_key_clear(&t->k);
  if (t->certs) cli_cert_list_free(t->certs);
  free(t->certs);
  t->certs = NULL;
}

/* ---- the serial file ---- */

static int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The file's hex number (up to 40 digits; a missing or empty file is 0)
 * plus one into serial[20], big-endian. */
static int serial_read(const char *path, uint8_t serial[20]) {
  char text[128];
  memset(serial, 0, 20);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) goto next;
  if (fd < 0) return cli_err("ts: -serial %s: %s", path, strerror(errno)), CLI_EXIT_FAIL;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n < 0) return cli_err("ts: -serial %s: %s", path, strerror(errno)), CLI_EXIT_FAIL;
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ')) n--;
  if (n > 40) return cli_err("ts: -serial %s: more than 160 bits", path), CLI_EXIT_FAIL;
  for (ssize_t i = 0; i < n; i++) {
    int d = hex_digit(text[n - 1 - i]);
    if (d < 0) return cli_err("ts: -serial %s: not a hex number", path), CLI_EXIT_FAIL;
    serial[19 - i / 2] |= (uint8_t)(d << (4 * (i % 2)));
  }
next:
  for (int i = 19; i >= 0; i--)
    if (++serial[i]) return 0;
  return cli_err("ts: -serial %s: the serial numbers are used up (2^160)", path), CLI_EXIT_FAIL;
}

int ts_serial_next(const char *path, uint8_t serial[20], size_t *len) {
  char lock[4096], hex[48];
  if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock)
    return cli_err("ts: -serial %s: name too long", path), CLI_EXIT_FAIL;
  /* the lock is on a file never replaced: the serial file itself is
   * renamed over, and a lock on its old inode would guard nothing */
  int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lfd < 0) return cli_err("ts: %s: %s", lock, strerror(errno)), CLI_EXIT_FAIL;
  int rc = flock(lfd, LOCK_EX) ? (cli_err("ts: %s: lock: %s", lock, strerror(errno)), CLI_EXIT_FAIL)
                               : serial_read(path, serial);
  size_t first = 0;
  while (first < 19 && serial[first] == 0) first++;
  cli_hex_str(serial + first, 20 - first, hex);
  size_t n = strlen(hex);
  hex[n++] = '\n';
  if (!rc) rc = cli_write_file(path, hex, n, 0); /* fsynced and renamed before it is used */
  close(lfd); /* the lock goes with it */
  if (rc) return rc;
  memmove(serial, serial + first, 20 - first);
  *len = 20 - first;
  return 0;
}

/* ---- a query answered ---- */

int ts_answer(const ts_tsa *t, const uint8_t *query, size_t len, uint8_t *out, size_t cap,
              size_t *out_len, uint32_t *fail) {
  gostx_tsa_query q;
  uint8_t serial[20];
  size_t serial_len;
  struct timespec now;
  if (gostx_tsa_query_parse(query, len, &q, fail) == 0) *fail = gostx_tsa_check(&t->p, &q);
  if (!*fail && clock_gettime(CLOCK_REALTIME, &now)) *fail = GOSTX_TSA_FAIL_TIME_NOT_AVAILABLE;
  if (!*fail && ts_serial_next(t->serial, serial, &serial_len)) *fail = GOSTX_TSA_FAIL_SYSTEM_FAILURE;
  if (!*fail &&
      gostx_tsa_reply(&t->p, &q, serial, serial_len, (int64_t)now.tv_sec,
                      (uint32_t)(now.tv_nsec / 1000000), out, cap, out_len) == 0)
    return 0;
  if (!*fail) {
    cli_err("ts: the token could not be signed");
    *fail = GOSTX_TSA_FAIL_SYSTEM_FAILURE;
  }
  return gostx_tsa_refusal(*fail, gostx_tsa_fail_name(*fail), out, cap, out_len) ? CLI_EXIT_FAIL : 0;
}

/* The reply or token to -out (the token alone with -token_out), or its text. */
static int write_reply(const ts_args *a, const uint8_t *der, size_t len, int token) {
  if (a->token_out && !token) {
    static gostx_cms_ts_token t;
    gostx_cms_ts_status st;
    if (gostx_cms_ts_parse(der, len, &t, &st))
      return cli_err("ts: -token_out: %s", gostx_cms_ts_status_name(st)), CLI_EXIT_FAIL;
    der = t.token, len = t.token_len, token = 1;
  }
  if (a->text) {
    ts_print_reply(stdout, der, len, token);
    return 0;
  }
  return cli_write_file(a->out, der, len, 0);
}

/* -in's bytes are a TimeStampResp or a token (a rejection too, which is
 * printed or copied as it is): 0, or CLI_EXIT_FAIL naming what they are not. */
static int reply_in_reads(const ts_args *a, const uint8_t *in, size_t len) {
  static gostx_cms_ts_token t;
  gostx_cms_ts_status st;
  if (!gostx_cms_ts_parse(in, len, &t, &st) || st == GOSTX_CMS_TS_REFUSED) return 0;
  cli_err("ts: -in %s: %s", a->in, gostx_cms_ts_status_name(st));
  return CLI_EXIT_FAIL;
}

int ts_reply(const ts_args *a) {
  uint8_t *in, *out;
  size_t in_len, out_len;
  uint32_t fail = 0;
  if (a->in) { /* a reply (or token) read, written again or printed */
    int rc = cli_read_file(a->in, &(cli_file){NULL, TS_REPLY_MAX, 0}, &in, &in_len);
    if (!rc) rc = reply_in_reads(a, in, in_len);
    if (!rc) rc = write_reply(a, in, in_len, a->token_in);
    free(in);
    return rc;
  }
  ts_tsa t;
  int rc = ts_tsa_load(a, &t);
  if (!rc) rc = cli_read_file(a->queryfile, &(cli_file){NULL, TS_QUERY_MAX, 0}, &in, &in_len);
  if (rc) return ts_tsa_free(&t), rc;
  if (!(out = malloc(TS_REPLY_MAX))) rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = ts_answer(&t, in, in_len, out, TS_REPLY_MAX, &out_len, &fail);
  if (!rc && fail && a->token_out) /* no token to write: the refusal itself, named */
    rc = CLI_EXIT_FAIL;
  else if (!rc)
    rc = write_reply(a, out, out_len, 0);
  if (fail) {
    cli_err("ts: %s: the query is refused: %s", a->queryfile, gostx_tsa_fail_name(fail));
    rc = CLI_EXIT_FAIL;
  }
  free(in);
  free(out);
  ts_tsa_free(&t);
  return rc;
}
