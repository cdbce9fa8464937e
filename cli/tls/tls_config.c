/* gostx tls: the TLS config its options make (certificates, keys, PSK,
 * ticket key, versions, suites, groups, ALPN, CA store, key log), shared
 * by serve, connect and client. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tls_cli.h"

/* ---- key log ---- */

static struct {
  FILE *f;
  pthread_mutex_t mu;
} keylog = {NULL, PTHREAD_MUTEX_INITIALIZER};

static void keylog_line(void *user, const char *line) {
  (void)user;
  pthread_mutex_lock(&keylog.mu);
  fprintf(keylog.f, "%s\n", line);
  fflush(keylog.f);
  pthread_mutex_unlock(&keylog.mu);
}

/* --keylog FILE, else $SSLKEYLOGFILE, opened once for every config. */
int tls_keylog_open(const char *opt, const char *sub) {
  const char *path = opt ? opt : getenv("SSLKEYLOGFILE");
  if (!path || !*path) return 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  keylog.f = fd >= 0 ? fdopen(fd, "a") : NULL;
  if (!keylog.f) {
    cli_err("tls: key log %s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return CLI_EXIT_FAIL;
  }
  /* whoever reads the file reads the traffic: never silently */
  cli_err("%s: writing the TLS secrets to %s%s", sub, path, opt ? "" : " (SSLKEYLOGFILE)");
  return 0;
}

/* ---- certificates and keys ---- */

#define TLS_CHAIN_MAX 10
#define TLS_CERT_FILE_MAX (1u << 20)

struct tls_chain {
  size_t n;
  uint8_t *der[TLS_CHAIN_MAX];
  size_t len[TLS_CHAIN_MAX];
};

static void chain_free(struct tls_chain *ch) {
  for (size_t i = 0; i < ch->n; i++) free(ch->der[i]);
  ch->n = 0;
}

/* The certificates of path (PEM blocks, or one DER) appended to ch. */
static int chain_read(const char *opt, const char *path, struct tls_chain *ch) {
  cli_certs_how how = {{opt, TLS_CERT_FILE_MAX, 1}, TLS_CHAIN_MAX, 0, 0};
  return cli_certs_read_der(path, &how, ch->der, ch->len, &ch->n);
}

/* --cert, --chain and --key into cfg; the key must be the leaf's. A
 * PKCS#12 --cert gives the key and the chain (its leaf first). */
static int set_identity(gostx_tls_config *cfg, const struct tls_opts *o, const char *sub) {
  struct tls_chain ch = {0};
  gostx_gost3410_key k;
  memset(&k, 0, sizeof k);
  int pfx = cli_pfx_is(o->cert), rc;
  cli_pfx_certs certs = {ch.der, ch.len, TLS_CHAIN_MAX, &ch.n};
  char cert_opt[400], chain_opt[400]; /* the messages name the service */
  snprintf(cert_opt, sizeof cert_opt, "%s: --cert", sub);
  snprintf(chain_opt, sizeof chain_opt, "%s: --chain", sub);
  if (pfx) rc = cli_pfx_load(o->cert, "-passin", o->passin, NULL, 0, &k, &certs);
  else rc = chain_read(cert_opt, o->cert, &ch);
  if (!rc && o->chain) rc = chain_read(chain_opt, o->chain, &ch);
  if (!rc && !pfx) rc = cli_load_key_pass(o->key, &k, "-passin", o->passin);
  if (!rc && !gostx_gost3410_key_is_private(&k))
    rc = cli_usage("%s: --key %s is a public key, not a private one", sub, o->key);
  if (!rc) rc = cli_key_2012(sub, o->key, &k);
  if (!rc && gostx_tls_config_set_chain(cfg, (const uint8_t *const *)ch.der, ch.len, ch.n))
    rc = cli_usage("%s: --cert %s: %s", sub, o->cert, gostx_tls_config_error(cfg));
  /* the library refuses a key that is not the leaf's */
  if (!rc && gostx_tls_config_set_key(cfg, &k))
    rc = cli_usage("%s: --key %s does not go with --cert %s: %s", sub, o->key, o->cert,
                   gostx_tls_config_error(cfg));
  gostx_gost3410_key_clear(&k);
  chain_free(&ch);
  return rc;
}

/* ---- the config ---- */

/* --psk IDENTITY:HEX (or the same text on --psk-file's first line) into
 * cfg: the identity up to the last ':', 1..255 bytes; the key 32 bytes. */
static int set_psk(gostx_tls_config *cfg, const struct tls_opts *o, const char *sub) {
  const char *opt = o->psk ? "--psk" : "--psk-file";
  char text[255 + 1 + 64 + 3]; /* the longest valid line, its newline, one byte over */
  size_t n;
  if (o->psk) {
    n = strlen(o->psk);
    if (n >= sizeof text) return cli_usage("%s: %s: longer than IDENTITY (255 bytes):HEX (64)", sub, opt);
    memcpy(text, o->psk, n + 1);
  } else {
    long got = cli_read_secret_file(o->psk_file, (uint8_t *)text, sizeof text - 1);
    if (got < 0) return CLI_EXIT_FAIL;
    n = (size_t)got;
    text[n] = 0;
    if (n && text[n - 1] == '\n') text[--n] = 0;
    if (n && text[n - 1] == '\r') text[--n] = 0;
    if (n == sizeof text - 1 || strchr(text, '\n') || strlen(text) != n) {
      gostx_memzero(text, sizeof text);
      return cli_usage("%s: %s %s: not one line IDENTITY:HEX", sub, opt, o->psk_file);
    }
  }
  char *colon = strrchr(text, ':');
  char what[64];
  snprintf(what, sizeof what, "%s: %s key", sub, opt);
  uint8_t key[32];
  int rc = 0;
  if (!colon) rc = cli_usage("%s: %s: no ':' between IDENTITY and the key in hex", sub, opt);
  else if (colon == text) rc = cli_usage("%s: %s: the identity is empty", sub, opt);
  else if (colon - text > 255) rc = cli_usage("%s: %s: the identity is longer than 255 bytes", sub, opt);
  else rc = cli_hex_exact(what, colon + 1, key, sizeof key);
  if (!rc && gostx_tls_config_set_psk(cfg, (const uint8_t *)text, (size_t)(colon - text), key, sizeof key))
    rc = cli_usage("%s: %s: %s", sub, opt, gostx_tls_config_error(cfg));
  gostx_memzero(key, sizeof key);
  gostx_memzero(text, sizeof text);
  return rc;
}

/* --ticket-key FILE: the key that seals serve's tickets, 64 hex digits on
 * one line (openssl rand -hex 32), so that servers sharing the file (or
 * one restarted) take each other's tickets. */
static int set_ticket_key(gostx_tls_config *cfg, const char *path, const char *sub) {
  char text[64 + 3]; /* the digits, "\r\n", one byte over */
  long got = cli_read_secret_file(path, (uint8_t *)text, sizeof text - 1);
  if (got < 0) return CLI_EXIT_FAIL;
  size_t n = (size_t)got;
  text[n] = 0;
  if (n && text[n - 1] == '\n') text[--n] = 0;
  if (n && text[n - 1] == '\r') text[--n] = 0;
  char what[600];
  snprintf(what, sizeof what, "%s: --ticket-key %s", sub, path);
  uint8_t key[32];
  int rc = n == 64 && strlen(text) == n ? cli_hex_exact(what, text, key, sizeof key)
                                        : cli_usage("%s: not one line of 64 hex digits", what);
  if (!rc) (void)gostx_tls_config_set_ticket_key(cfg, key, sizeof key);
  gostx_memzero(key, sizeof key);
  gostx_memzero(text, sizeof text);
  return rc;
}

static int set_list(gostx_tls_config *cfg, int (*set)(gostx_tls_config *, const char *),
                    const char *opt, const char *list, const char *sub) {
  if (!list || set(cfg, list) == 0) return 0;
  return cli_usage("%s: %s '%s': %s", sub, opt, list, gostx_tls_config_error(cfg));
}

/* Whether the suite list (names the library took) has an entry of TLS
 * version v: RFC 9189's (1.2) end in CTR_OMAC or CNT_IMIT, RFC 9367's
 * (1.3) in MGM_L or MGM_S. */
static int suites_have_version(const char *list, unsigned v) {
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ":,");
    int tls12 = (n >= 8 && !strncmp(p + n - 8, "CTR_OMAC", 8)) ||
                (n >= 8 && !strncmp(p + n - 8, "CNT_IMIT", 8));
    if (n && tls12 == (v == 0x0303)) return 1;
    p += n + (p[n] != 0);
  }
  return 0;
}

/* The files the options name opened, or CLI_EXIT_FAIL naming the first
 * that cannot be and why (the readers say only the path, the store's
 * "cannot open"). */
static int files_readable(const struct tls_opts *o, const char *sub) {
  const struct {
    const char *opt, *path;
  } files[] = {{"--cert", o->cert}, {"--key", o->key}, {"--chain", o->chain},
               {"--ca", o->ca}, {"--psk-file", o->psk_file}, {"--ticket-key", o->ticket_key}};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    if (!files[i].path || !strcmp(files[i].path, "-")) continue;
    if (gostx_p11_is_uri(files[i].path)) continue; /* a token's key or certificate */
    int fd = open(files[i].path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      cli_err("%s: %s %s: %s", sub, files[i].opt, files[i].path, strerror(errno));
      return CLI_EXIT_FAIL;
    }
    close(fd);
  }
  return 0;
}

/* The config the options say (sub names them in messages): *out and
 * *store_out (NULL when no --ca), or a CLI_EXIT_* code after printing. Run
 * again for each reload: it reads every file anew. */
int tls_build_config(enum tls_mode mode, const struct tls_opts *o, const char *sub,
                        gostx_tls_config **out, gostx_x509_store **store_out) {
  gostx_tls_config *cfg =
      gostx_tls_config_new(mode == MODE_SERVE ? GOSTX_TLS_SERVER : GOSTX_TLS_CLIENT);
  gostx_x509_store *store = NULL;
  if (!cfg) {
    cli_err("%s: out of memory", sub);
    return CLI_EXIT_FAIL;
  }
  int rc = files_readable(o, sub);
  if (rc) {
  } else if (o->version) {
    unsigned v = !strcmp(o->version, "1.3") ? 0x0304 : !strcmp(o->version, "1.2") ? 0x0303 : 0;
    if (!v) rc = cli_usage("%s: --version must be 1.2 or 1.3, not '%s'", sub, o->version);
    else if (gostx_tls_config_set_versions(cfg, v, v))
      rc = cli_usage("%s: --version %s: %s", sub, o->version, gostx_tls_config_error(cfg));
  } else if (gostx_tls_config_set_versions(cfg, 0x0303, 0x0304)) {
    /* both, the library preferring the newest */
    rc = cli_usage("%s: TLS 1.2 and 1.3: %s", sub, gostx_tls_config_error(cfg));
  }
  if (!rc) rc = set_list(cfg, gostx_tls_config_set_suites, "--suites", o->suites, sub);
  /* a --version whose suites were all left out could never connect */
  if (!rc && o->suites && o->version) {
    unsigned v = !strcmp(o->version, "1.2") ? 0x0303 : 0x0304;
    if (!suites_have_version(o->suites, v))
      rc = cli_usage("%s: --suites '%s' has no TLS %s suite (--version %s)", sub, o->suites,
                     o->version, o->version);
  }
  if (!rc) rc = set_list(cfg, gostx_tls_config_set_groups, "--groups", o->groups, sub);
  if (!rc) rc = set_list(cfg, gostx_tls_config_set_alpn, "--alpn", o->alpn, sub);
  if (!rc && o->cert) rc = set_identity(cfg, o, sub);
  if (!rc && (o->psk || o->psk_file)) rc = set_psk(cfg, o, sub);
  if (!rc && o->ca) {
    store = gostx_x509_store_new();
    char err[256] = "";
    int lrc;
    if (!store) {
      cli_err("%s: out of memory", sub);
      rc = CLI_EXIT_FAIL;
    } else if ((lrc = gostx_x509_store_add_path(store, o->ca, err, sizeof err))) {
      /* I/O (a file of the folder unreadable) is 1, what was read and
       * refused a usage error (2), as for the other files */
      const char *why = *err ? err : "no certificate read";
      if (lrc == GOSTX_EIO) cli_err("%s: --ca %s: %s", sub, o->ca, why);
      rc = lrc == GOSTX_EIO ? CLI_EXIT_FAIL : cli_usage("%s: --ca %s: %s", sub, o->ca, why);
    } else {
      gostx_tls_config_set_store(cfg, store);
    }
  }
  if (!rc && mode == MODE_SERVE && o->no_tickets) (void)gostx_tls_config_set_tickets(cfg, 0, 0);
  if (!rc && o->ticket_key) rc = set_ticket_key(cfg, o->ticket_key, sub);
  if (!rc) {
    if (mode == MODE_SERVE)
      gostx_tls_config_set_verify(cfg, o->require_client  ? GOSTX_TLS_VERIFY_REQUIRE
                                       : o->verify_client ? GOSTX_TLS_VERIFY_PEER
                                                          : GOSTX_TLS_VERIFY_NONE);
    else
      gostx_tls_config_set_verify(cfg, o->insecure ? GOSTX_TLS_VERIFY_NONE : GOSTX_TLS_VERIFY_PEER);
  }
  if (!rc && keylog.f) gostx_tls_config_set_keylog(cfg, keylog_line, NULL);
  if (rc) {
    gostx_tls_config_free(cfg);
    gostx_x509_store_free(store);
    return rc;
  }
  *out = cfg;
  *store_out = store;
  return 0;
}

void tls_keylog_close(void) {
  if (keylog.f) fclose(keylog.f);
}
