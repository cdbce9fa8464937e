/* gostx tls serve | connect | client: GOST TLS 1.3 (RFC 9367 suites) and
 * TLS 1.2 (RFC 9189 suites) in
 * front of any TCP server, in front of any TCP client, and an s_client-like
 * look at a server. The options that make the TLS config are shared; the
 * relays are in cli/tls/tls_proxy.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../commands.h"
#include "tls_cli.h"

enum tls_mode { MODE_SERVE, MODE_CONNECT, MODE_CLIENT };
static const char *const mode_name[] = {"tls serve", "tls connect", "tls client"};

#define COMMON_HELP                                                                        \
  "  --version 1.2|1.3   the only TLS version allowed (default: both, 1.3 preferred)\n"   \
  "  --suites LIST       cipher suites in preference order, ':' or ',' between:\n"         \
  "                      TLS 1.3: KUZNYECHIK_MGM_L, MAGMA_MGM_L, KUZNYECHIK_MGM_S,\n"      \
  "                      MAGMA_MGM_S; TLS 1.2: KUZNYECHIK_CTR_OMAC, MAGMA_CTR_OMAC,\n"     \
  "                      28147_CNT_IMIT; or their RFC names (TLS_GOSTR341112_256_WITH_\n"  \
  "                      KUZNYECHIK_MGM_L, ...); each version takes its own entries\n"    \
  "  --groups LIST       key exchange groups: GC256A GC256B GC256C GC256D GC512A\n"        \
  "                      GC512B GC512C\n"                                                  \
  "  --alpn LIST         application protocols (ALPN), e.g. h2,http/1.1\n"                 \
  "  --keylog FILE       append the TLS secrets (SSLKEYLOGFILE format, for Wireshark)\n"   \
  "                      to FILE; without it the SSLKEYLOGFILE variable names the file\n"  \
  "  --timeout SECONDS   for a TCP connect and a handshake (default 30)\n"            \
  "  --psk IDENTITY:HEX  an external PSK (RFC 8446 4.2.11, with ECDHE): the identity\n"  \
  "                      (1-255 bytes, up to the last ':') and a 32-byte key in hex;\n" \
  "                      both sides need the same; serve then needs no certificate,\n"  \
  "                      client and connect no --ca (a server that does not take the\n"\
  "                      PSK fails the handshake unless its chain verifies)\n"         \
  "  --psk-file FILE     the same IDENTITY:HEX, the one line of FILE\n"

#define KEY_HELP                                                                           \
  "  --cert FILE         the certificate (PEM or DER; PEM: the leaf first, then any\n"    \
  "                      intermediates), and --chain FILE more intermediates (PEM)\n"    \
  "  --key FILE          its GOST R 34.10-2012 private key (PEM or DER, as gostx\n"        \
  "                      genpkey and gost-engine write it); encrypted keys take\n"         \
  "  -passin ARG         pass:PASSWORD, env:VAR, file:PATH, fd:N or stdin (as openssl)\n"  \
  "  --cert F.pfx        a PKCS#12 file: the key and the chain from it, no --key;\n"    \
  "                      -passin its password (docs/PKCS12.md)\n"

static void usage(FILE *f) {
  fprintf(f,
          "Usage: gostx tls serve --listen ADDR:PORT --backend ADDR:PORT --cert FILE --key FILE\n"
          "                       [--chain FILE] [-passin ARG]\n"
          "                       [--ca FILE|DIR --verify-client|--require-client] [OPTIONS]\n"
          "       gostx tls serve -c FILE   several services from FILE (docs/TLS_CLI.md)\n"
          "       gostx tls connect --listen ADDR:PORT --upstream HOST:PORT --ca FILE|DIR\n"
          "                       [--servername NAME] [--cert FILE --key FILE] [OPTIONS]\n"
          "       gostx tls client HOST:PORT --ca FILE|DIR [--servername NAME] [--insecure]\n"
          "                       [--cert FILE --key FILE] [OPTIONS]\n"
          "\n"
          "GOST TLS 1.3 (RFC 8446 with the RFC 9367 cipher suites: Kuznyechik or Magma\n"
          "in MGM, GOST R 34.10-2012 keys and signatures, Streebog) and GOST TLS 1.2\n"
          "(RFC 9189: Kuznyechik or Magma CTR with OMAC, GOST 28147-89 CNT with IMIT).\n"
          "  serve    terminates GOST TLS on --listen and relays each connection's data\n"
          "           to a new TCP connection to --backend (any TCP server: nginx, an\n"
          "           application), on all cores\n"
          "  connect  a plain TCP port on --listen whose connections reach --upstream\n"
          "           over GOST TLS (so curl or any program talks to GOST TLS servers)\n"
          "  client   connects, prints the version, suite, group, signature scheme,\n"
          "           ALPN and the server's chain on stderr, then relays stdin to the\n"
          "           server and the server's data to stdout until the server closes;\n"
          "           a failed handshake says what failed (the alert, the certificate\n"
          "           check) and exits 1\n");
  /* in parts: ISO C compilers need take no string literal over 4095 bytes */
  fprintf(f,
          "\n"
          "Options:\n"
          "  -c, --config FILE   serve: the services of FILE, [NAME] sections whose keys\n"
          "                      are these options' names (listen = ADDR:PORT, ...)\n");
  fprintf(f,
          "  --listen ADDR:PORT  where serve and connect accept ([::1]:PORT for IPv6;\n"
          "                      port 0: any free port; the address is printed on stderr)\n"
          "  --backend ADDR:PORT serve: the plain TCP server behind\n"
          "  --upstream HOST:PORT connect: the GOST TLS server\n"
          "  --ca FILE|DIR       trust anchors (PEM certificates) for the peer's chain\n"
          "  --verify-client     serve: ask clients for a certificate, verify it if sent\n"
          "  --require-client    serve: refuse clients without a valid certificate\n"
          "  --servername NAME   the name sent (SNI) and verified against the server's\n"
          "                      certificate (default: the host of HOST:PORT)\n"
          "  --insecure          client: do not verify the server's chain and name\n"
          "  --close-on-eof      client: the end of stdin sends close_notify at once (the\n"
          "                      server sees the end of data; some, nginx among them, then\n"
          "                      stop a long answer); by default it is sent once the server\n"
          "                      has closed\n"
          "  --sess-out FILE     client: the session ticket the server sent, saved (0600)\n"
          "                      for --sess-in (secret: it holds the session's key; one\n"
          "                      use each, a resumed connection brings a new one)\n"
          "  --sess-in FILE      client: resume that session (TLS 1.3, the same server\n"
          "                      name): no certificate, no signature, a fresh ECDHE; a\n"
          "                      server that declines gets a full handshake. Also\n"
          "                      -sess_out, -sess_in (as openssl s_client)\n"
          "  --no-tickets        serve: send no session tickets (-no_ticket); connect: do\n"
          "                      not resume (by default each upstream connection resumes\n"
          "                      with a ticket an earlier one brought)\n"
          "  --ticket-key FILE   serve: the key that seals its tickets, 64 hex digits on one\n"
          "                      line (openssl rand -hex 32; secret): servers sharing it,\n"
          "                      or one restarted, take each other's tickets (default: a\n"
          "                      key of its own, made at start)\n" KEY_HELP
          COMMON_HELP
          "  --threads N         serve, connect: worker threads (default: one per CPU)\n");
  fprintf(f,
          "  --insecure-key-file use secret files (--key, -passin file:, --psk-file,\n"
          "                      --ticket-key, --sess-in) that group or others can\n"
          "                      access; by default they are refused (chmod go= them)\n"
          "\n"
          "Each connection ends as it should: the peer's close_notify closes the plain\n"
          "side for writing, the plain side's end of data sends close_notify, the other\n"
          "direction goes on (half-close); a TLS error resets the plain connection.\n"
          "SIGINT or SIGTERM stops serve and connect; SIGHUP reloads their certificates,\n"
          "keys and CAs (connections keep theirs; files that fail leave the old ones).\n"
          "Exit status: 0 success, 1 a connection or handshake failure or a file that\n"
          "cannot be read or is not kept private, 2 usage error.\n"
          "\n" CLI_ARGV_SECRET_NOTE("-passin pass:PASSWORD or --psk",
                                   "-passin's file:, fd: and env: and --psk-file"));
}


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
static int keylog_open(const char *opt, const char *sub) {
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
  if (!rc && !k.has_private)
    rc = cli_usage("%s: --key %s is a public key, not a private one", sub, o->key);
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
static int build_config(enum tls_mode mode, const struct tls_opts *o, const char *sub,
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

/* Which options the mode takes, and the ones it needs. */
static int check_opts(enum tls_mode mode, const struct tls_opts *o, const char *sub) {
  struct {
    const char *name;
    int given, allowed;
  } only[] = {
      {"--listen", !!o->listen, mode != MODE_CLIENT},
      {"--backend", !!o->backend, mode == MODE_SERVE},
      {"--upstream", !!o->upstream, mode == MODE_CONNECT},
      {"--servername", !!o->servername, mode != MODE_SERVE},
      {"--verify-client", o->verify_client, mode == MODE_SERVE},
      {"--require-client", o->require_client, mode == MODE_SERVE},
      {"--insecure", o->insecure, mode == MODE_CLIENT},
      {"--close-on-eof", o->close_on_eof, mode == MODE_CLIENT},
      {"--sess-in", !!o->sess_in, mode == MODE_CLIENT},
      {"--sess-out", !!o->sess_out, mode == MODE_CLIENT},
      {"--no-tickets", o->no_tickets, mode != MODE_CLIENT},
      {"--ticket-key", !!o->ticket_key, mode == MODE_SERVE},
      {"--threads", !!o->threads, mode != MODE_CLIENT},
      {"HOST:PORT", !!o->target, mode == MODE_CLIENT},
  };
  for (size_t i = 0; i < sizeof only / sizeof only[0]; i++)
    if (only[i].given && !only[i].allowed)
      return cli_usage("%s: %s is not an option of %s (see gostx tls --help)", sub, only[i].name,
                       sub);
  if (mode != MODE_CLIENT && !o->listen) return cli_usage("%s: --listen ADDR:PORT is required", sub);
  if (mode == MODE_SERVE && !o->backend) return cli_usage("%s: --backend ADDR:PORT is required", sub);
  if (mode == MODE_CONNECT && !o->upstream)
    return cli_usage("%s: --upstream HOST:PORT is required", sub);
  if (mode == MODE_CLIENT && !o->target) return cli_usage("%s: HOST:PORT is required", sub);
  int psk = o->psk || o->psk_file;
  if (o->psk && o->psk_file) return cli_usage("%s: give --psk or --psk-file, not both", sub);
  if (o->no_tickets && o->ticket_key)
    return cli_usage("%s: --no-tickets sends no tickets: it takes no --ticket-key", sub);
  int pfx = cli_pfx_is(o->cert); /* a PKCS#12 --cert holds the key too */
  if (pfx && o->key) return cli_usage("%s: --cert %s is a PKCS#12 file with the key: no --key", sub, o->cert);
  if (!pfx && !!o->cert != !!o->key) return cli_usage("%s: --cert and --key go together", sub);
  if (mode == MODE_SERVE && !o->cert && !psk)
    return cli_usage("%s: --cert FILE and --key FILE are required (or --psk)", sub);
  if (o->chain && !o->cert) return cli_usage("%s: --chain needs --cert and --key", sub);
  if (o->passin && !o->key && !pfx) return cli_usage("%s: -passin needs --key", sub);
  if (mode == MODE_SERVE) {
    if (o->verify_client && o->require_client)
      return cli_usage("%s: --verify-client or --require-client, not both", sub);
    if ((o->verify_client || o->require_client) && !o->ca)
      return cli_usage("%s: --%s-client needs --ca FILE (the clients' trust anchors)", sub,
                       o->verify_client ? "verify" : "require");
    if (o->ca && !o->verify_client && !o->require_client)
      return cli_usage("%s: --ca verifies clients: give --verify-client or --require-client", sub);
  } else if (o->insecure && o->ca) {
    return cli_usage("%s: --insecure verifies nothing: it takes no --ca", sub);
  } else if (!o->ca && !o->insecure && !psk) {
    return cli_usage("%s: --ca FILE is required (the server's trust anchors)%s", sub,
                     mode == MODE_CLIENT ? ", or --insecure" : "");
  }
  return 0;
}

/* The secret files given (the key, its password file, the PSK, the ticket
 * key, a session) kept from group and others, unless --insecure-key-file. */
static int secret_files_private(const struct tls_opts *o) {
  const char *pass_file = o->passin && !strncmp(o->passin, "file:", 5) ? o->passin + 5 : NULL;
  const struct {
    const char *opt, *path;
  } files[] = {{"--key", o->key},           {"-passin file:", pass_file},
               {"--cert (PKCS#12, with the key)", cli_pfx_is(o->cert) ? o->cert : NULL},
               {"--psk-file", o->psk_file}, {"--ticket-key", o->ticket_key},
               {"--sess-in", o->sess_in}};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    int rc = files[i].path ? cli_secret_file_private(files[i].opt, files[i].path,
                                                     o->insecure_key_file, "--insecure-key-file")
                           : 0;
    if (rc) return rc;
  }
  return 0;
}

/* ---- gostx tls client ---- */

struct client {
  const struct tls_opts *o;
  const struct tls_addr *addr;
  const char *servername;
};

static int client_ready(struct tls_conn *c) {
  struct client *cl = c->user;
  const char *alpn = gostx_tls_alpn(c->tls), *sn = gostx_tls_servername(c->tls);
  FILE *f = stderr;
  fprintf(f, "Connected to %s\n", cl->addr->text);
  fprintf(f, "Version: %s\n", gostx_tls_version(c->tls));
  fprintf(f, "Suite: %s\n", gostx_tls_suite(c->tls));
  const char *group = gostx_tls_group(c->tls), *scheme = gostx_tls_scheme(c->tls);
  fprintf(f, "Group: %s\n", group ? group : "(none: TLS 1.2 key transport)");
  /* no signature: the server proved the external PSK, or (1.2) holds its key */
  fprintf(f, "Scheme: %s\n",
          scheme ? scheme
                 : gostx_tls_version_id(c->tls) == GOSTX_TLS_VERSION_1_2
                       ? "(none: TLS 1.2, the server signs nothing)"
                       : gostx_tls_session_reused(c->tls) ? "(none: the resumed session)"
                                                           : "(none: the PSK)");
  fprintf(f, "ALPN: %s\n", alpn ? alpn : "(none)");
  fprintf(f, "Server name: %s\n", sn ? sn : "(none)");
  const gostx_x509_cert *chain = NULL;
  size_t n = gostx_tls_peer_chain(c->tls, &chain);
  fprintf(f, "Peer chain: %zu certificate%s\n", n, n == 1 ? "" : "s");
  for (size_t i = 0; i < n; i++) {
    char subj[512], iss[512];
    gostx_x509_name_text(chain[i].subject, chain[i].subject_len, subj, sizeof subj);
    gostx_x509_name_text(chain[i].issuer, chain[i].issuer_len, iss, sizeof iss);
    fprintf(f, "  %zu subject: %s\n    issuer:  %s\n    serial:  ", i, subj, iss);
    /* hex, as openssl x509 -serial prints it: which certificate of
     * several with one subject (a renewed one) is served */
    for (size_t b = 0; b < chain[i].serial_len; b++) fprintf(f, "%02X", chain[i].serial[b]);
    fputc('\n', f);
  }
  int reused = gostx_tls_session_reused(c->tls);
  /* TLS 1.3 without a signature and not resumed: the external PSK. TLS 1.2
   * never has a signature: its chain is what was verified (or not). */
  int psk = !scheme && !reused && gostx_tls_version_id(c->tls) == GOSTX_TLS_VERSION_1_3;
  fprintf(f, "Session: %s\n", reused ? "reused (a ticket)" : "new");
  if (reused)
    fprintf(f, "Verification: the resumed session (the server's Finished under its key; its\n"
               "  first handshake verified the chain)\n");
  else if (psk)
    fprintf(f, "Verification: the PSK (the server's binder and Finished)\n");
  else if (cl->o->insecure)
    fprintf(f, "Verification: skipped (--insecure)\n");
  else
    fprintf(f, "Verification: OK (chain to %s, name %s)\n", cl->o->ca, cl->servername);
  fprintf(f, "---\n");
  fflush(f);
  return 0;
}

/* A blocking connect of a, within timeout seconds: the fd (non-blocking)
 * or -1 after printing. */
static int connect_within(const struct tls_addr *a, unsigned timeout, const char *sub) {
  int pending, fd = tls_connect_nb(a, &pending);
  if (fd >= 0 && pending) {
    struct pollfd p = {fd, POLLOUT, 0};
    int r = poll(&p, 1, (int)timeout * 1000);
    int err = r == 0 ? ETIMEDOUT : 0;
    socklen_t len = sizeof err;
    if (r > 0) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (r < 0) err = errno;
    if (err) {
      close(fd);
      fd = -1;
      errno = err;
    }
  }
  if (fd < 0) cli_err("%s: connect to %s: %s", sub, a->text, strerror(errno));
  return fd;
}

/* --sess-in FILE: the session offered (as --sess-out wrote it). */
static int session_in(gostx_tls *tls, const char *path, const char *sub) {
  uint8_t buf[GOSTX_TLS_SESSION_MAX + 1];
  long n = cli_read_secret_file(path, buf, sizeof buf);
  if (n < 0) return CLI_EXIT_FAIL;
  int rc = gostx_tls_set_session(tls, buf, (size_t)n);
  gostx_memzero(buf, sizeof buf);
  if (rc) return cli_usage("%s: --sess-in %s: not a session (as --sess-out writes one)", sub, path);
  return 0;
}

/* --sess-out FILE: the newest ticket, through a temporary file (0600), so
 * a run that brought none leaves FILE as it was. */
static int session_out(gostx_tls *tls, const char *path, const char *sub, int insecure) {
  uint8_t buf[GOSTX_TLS_SESSION_MAX];
  size_t n = 0;
  int rc = gostx_tls_get_session(tls, buf, sizeof buf, &n);
  if (rc == GOSTX_ESTATE) {
    cli_err("%s: --sess-out %s: %s: not written", sub, path,
            insecure ? "no session of a server not verified (--insecure) is kept"
                     : "the server sent no session ticket");
    return 0;
  }
  if (rc) {
    cli_err("%s: --sess-out %s: %s", sub, path, gostx_strerror(rc));
    return CLI_EXIT_FAIL;
  }
  rc = cli_write_file(path, buf, n, CLI_OUT_PRIVATE);
  gostx_memzero(buf, sizeof buf);
  return rc;
}

static int run_client(const struct tls_opts *o, const gostx_tls_config *cfg, unsigned timeout) {
  const char *sub = mode_name[MODE_CLIENT];
  struct tls_addr addr;
  int rc = tls_addr_parse("HOST:PORT", o->target, 0, 0, &addr);
  if (rc) return rc;
  struct client cl = {o, &addr, o->servername ? o->servername : addr.host};
  /* the relay and, after it, the larger buffer for stdout */
  struct tls_conn *c = malloc(sizeof *c + TLS_CLIENT_OUT);
  gostx_tls *tls = c ? gostx_tls_new(cfg) : NULL;
  if (!tls) {
    free(c);
    cli_err("%s: out of memory", sub);
    return CLI_EXIT_FAIL;
  }
  if (gostx_tls_set_servername(tls, cl.servername)) {
    gostx_tls_free(tls);
    free(c);
    return cli_usage("%s: --servername '%s': not a DNS name or IP address", sub, cl.servername);
  }
  if (o->sess_in && (rc = session_in(tls, o->sess_in, sub))) {
    gostx_tls_free(tls);
    free(c);
    return rc;
  }
  signal(SIGPIPE, SIG_IGN);
  int fd = connect_within(&addr, timeout, sub);
  if (fd < 0) {
    gostx_tls_free(tls);
    free(c);
    return CLI_EXIT_FAIL;
  }
  tls_conn_init(c, tls, fd, 0, 1);
  c->t2p = (uint8_t *)(c + 1);
  c->t2p_cap = TLS_CLIENT_OUT;
  c->t2p_lent = 1;
  /* stdout a pipe: room for a whole batch, so its write seldom waits for
   * the reader (no effect, and no harm, where the system refuses) */
  if (fcntl(1, F_GETPIPE_SZ) > 0 && fcntl(1, F_GETPIPE_SZ) < 2 * TLS_CLIENT_OUT)
    (void)fcntl(1, F_SETPIPE_SZ, 2 * TLS_CLIENT_OUT);
  gostx_tls_set_fd(tls, fd);
  c->plain_blocking = 1;
  c->exit_on_peer_close = 1;
  c->hold_close = !o->close_on_eof;
  c->on_ready = client_ready;
  c->user = &cl;
  time_t deadline = time(NULL) + timeout;
  for (;;) {
    int r = tls_conn_pump(c);
    if (r == TLS_PUMP_DONE) break;
    if (r == TLS_PUMP_FAIL) {
      cli_err("%s: %s: %s", sub, addr.text, c->why);
      rc = CLI_EXIT_FAIL;
      break;
    }
    if (r == TLS_PUMP_AGAIN) continue;
    struct pollfd p[2] = {{fd, 0, 0}, {0, 0, 0}};
    if (c->want & TLS_WANT_TLS_RD) p[0].events |= POLLIN;
    if (c->want & TLS_WANT_TLS_WR) p[0].events |= POLLOUT;
    if (c->want & TLS_WANT_PLAIN_RD) p[1].events = POLLIN;
    int wait_ms = c->handshaken ? -1 : (int)(deadline - time(NULL)) * 1000;
    if (!c->handshaken && wait_ms <= 0) {
      cli_err("%s: %s: handshake timed out", sub, addr.text);
      rc = CLI_EXIT_FAIL;
      break;
    }
    int n = poll(p, p[1].events ? 2 : 1, wait_ms);
    if (n < 0 && errno != EINTR) {
      cli_err("%s: poll: %s", sub, strerror(errno));
      rc = CLI_EXIT_FAIL;
      break;
    }
    if (n > 0 && p[1].revents) c->plain_rd_ready = 1;
    if (n > 0 && p[0].revents & (POLLIN | POLLHUP | POLLERR)) c->tls_rd_idle = 0;
  }
  close(fd);
  if (o->sess_out && c->handshaken) {
    int wrc = session_out(tls, o->sess_out, sub, o->insecure);
    if (!rc) rc = wrc;
  }
  gostx_tls_free(tls);
  tls_conn_free_buffers(c);
  gostx_memzero(c, sizeof *c + TLS_CLIENT_OUT);
  free(c);
  return rc;
}

/* ---- the command ---- */

/* The relays' and connections' buffers come and go with each burst of
 * data (freed when they wait empty: an idle connection holds none). What
 * is freed stays in the heap for the next burst rather than going back to
 * the kernel at each free: trimming the heap's top there and faulting it
 * in again cost serve 6 % of its bulk CPU time (bench/tls_speed.sh). */
static void keep_freed_heap(void) {
#ifdef __GLIBC__
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int tls_opt_set(struct tls_opts *o, int id, const char *arg) {
  switch (id) {
  case TLS_O_LISTEN: o->listen = arg; break;
  case TLS_O_BACKEND: o->backend = arg; break;
  case TLS_O_UPSTREAM: o->upstream = arg; break;
  case TLS_O_CERT: o->cert = arg; break;
  case TLS_O_KEY: o->key = arg; break;
  case TLS_O_CHAIN: o->chain = arg; break;
  case TLS_O_PASSIN: o->passin = arg; break;
  case TLS_O_CA: o->ca = arg; break;
  case TLS_O_VERIFY: o->verify_client = 1; break;
  case TLS_O_REQUIRE: o->require_client = 1; break;
  case TLS_O_SERVERNAME: o->servername = arg; break;
  case TLS_O_INSECURE: o->insecure = 1; break;
  case TLS_O_VERSION: o->version = arg; break;
  case TLS_O_SUITES: o->suites = arg; break;
  case TLS_O_GROUPS: o->groups = arg; break;
  case TLS_O_ALPN: o->alpn = arg; break;
  case TLS_O_KEYLOG: o->keylog = arg; break;
  case TLS_O_THREADS: o->threads = arg; break;
  case TLS_O_TIMEOUT: o->timeout = arg; break;
  case TLS_O_CLOSE_ON_EOF: o->close_on_eof = 1; break;
  case TLS_O_PSK: o->psk = arg; break;
  case TLS_O_PSK_FILE: o->psk_file = arg; break;
  case TLS_O_SESS_IN: o->sess_in = arg; break;
  case TLS_O_SESS_OUT: o->sess_out = arg; break;
  case TLS_O_NO_TICKETS: o->no_tickets = 1; break;
  case TLS_O_TICKET_KEY: o->ticket_key = arg; break;
  case TLS_O_INSECURE_KEY_FILE: o->insecure_key_file = 1; break;
  case TLS_O_CONFIG: o->config = arg; break;
  default: return -1;
  }
  return 0;
}

/* ---- serve and connect: services, reloaded on SIGHUP ---- */

/* One listener: the command line's, or a section of a -c file. */
struct service {
  struct tls_opts o;
  enum tls_mode mode;
  char where[320]; /* names it in messages: "tls serve", "FILE:LINE [name]" */
  const char *name; /* a section of a -c file: its name, in the proxy's lines */
  struct tls_proxy px;
  /* serve without --ticket-key: a random key of its own kept across
   * reloads, so tickets issued before one still resume after it */
  int own_ticket_key;
  uint8_t ticket_key[32];
};

/* A config from s's options and files, read now: 0 and *out, or a
 * CLI_EXIT_* code after printing. */
static int service_config(struct service *s, struct tls_cfg_ref **out) {
  gostx_tls_config *cfg = NULL;
  gostx_x509_store *store = NULL;
  /* a -c file's service: every line about its files names it */
  if (s->name) cli_err_scope(s->where);
  int rc = secret_files_private(&s->o);
  if (!rc) rc = build_config(s->mode, &s->o, s->where, &cfg, &store);
  cli_err_scope(NULL);
  if (rc) return rc;
  if (s->own_ticket_key) (void)gostx_tls_config_set_ticket_key(cfg, s->ticket_key, sizeof s->ticket_key);
  if (!(*out = tls_cfg_ref_new(cfg, store))) {
    cli_err("%s: out of memory", s->where);
    return CLI_EXIT_FAIL;
  }
  return 0;
}

/* s ready to run (its options checked): addresses resolved, the first
 * config made. threads: 0 for one per CPU. */
static int service_init(struct service *s, uint64_t threads) {
  const struct tls_opts *o = &s->o;
  struct tls_proxy *px = &s->px;
  int rc = 0;
  uint64_t timeout = 30;
  if (!rc && o->timeout && cli_uint("--timeout", o->timeout, 1, 3600, &timeout)) rc = CLI_EXIT_USAGE;
  if (!rc) rc = tls_addr_parse("--listen", o->listen, 1, 1, &px->listen);
  const char *target = s->mode == MODE_SERVE ? o->backend : o->upstream;
  if (!rc) rc = tls_addr_parse(s->mode == MODE_SERVE ? "--backend" : "--upstream", target, 0, 0, &px->target);
  if (rc) return rc;
  s->own_ticket_key = s->mode == MODE_SERVE && !o->ticket_key && !o->no_tickets;
  if (s->own_ticket_key && gostx_random_bytes(s->ticket_key, sizeof s->ticket_key)) {
    cli_err("%s: no random bytes for the ticket key", s->where);
    return CLI_EXIT_FAIL;
  }
  if ((rc = service_config(s, &px->cfg))) return rc;
  px->serve = s->mode == MODE_SERVE;
  px->servername = s->mode == MODE_CONNECT ? (o->servername ? o->servername : px->target.host) : NULL;
  px->resume = s->mode == MODE_CONNECT && !o->no_tickets;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  px->threads = threads ? (unsigned)threads : ncpu > 0 ? (unsigned)ncpu : 1;
  px->handshake_timeout = (unsigned)timeout;
  /* a servername the library refuses is a usage error before any start */
  gostx_tls *probe = px->servername ? gostx_tls_new(px->cfg->cfg) : NULL;
  if (probe && gostx_tls_set_servername(probe, px->servername))
    rc = cli_usage("%s: --servername '%s': not a DNS name or IP address", s->where, px->servername);
  gostx_tls_free(probe);
  return rc;
}

struct services {
  struct service *s;
  size_t n;
};

/* SIGHUP: each service's certificate, key, CA (and PSK and ticket key
 * files) read anew; one that fails keeps what it has. */
static void services_reload(void *user) {
  struct services *all = user;
  for (size_t i = 0; i < all->n; i++) {
    struct service *s = &all->s[i];
    struct tls_cfg_ref *next;
    if (service_config(s, &next)) {
      cli_err("%s: reload refused: the certificate, key and CA in use stay", s->where);
      continue;
    }
    tls_proxy_cfg_swap(&s->px, next);
    fprintf(stderr, "gostx %s: %s%s%sreloaded%s%s\n", mode_name[s->mode], s->name ? "[" : "",
            s->name ? s->name : "", s->name ? "] " : "", s->o.cert ? ": " : "",
            s->o.cert ? s->o.cert : "");
  }
  fflush(stderr);
}

static int services_run(struct services *all) {
  struct tls_proxy **ps = calloc(all->n, sizeof *ps);
  if (!ps) {
    cli_err("tls: out of memory");
    return CLI_EXIT_FAIL;
  }
  for (size_t i = 0; i < all->n; i++) {
    ps[i] = &all->s[i].px;
    ps[i]->name = all->s[i].name;
  }
  int rc = tls_proxies_run(ps, all->n, services_reload, all);
  free(ps);
  return rc;
}

static void services_free(struct services *all) {
  for (size_t i = 0; i < all->n; i++) {
    tls_cfg_ref_put(all->s[i].px.cfg);
    gostx_memzero(all->s[i].ticket_key, sizeof all->s[i].ticket_key);
  }
}

/* log = FILE of a -c file: stderr appended to it from here on. */
static int log_to(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (fd < 0 || dup2(fd, 2) < 0) {
    cli_err("tls serve: log %s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return CLI_EXIT_FAIL;
  }
  close(fd);
  return 0;
}

/* gostx tls serve -c FILE: every section a service, in one process. */
static int serve_file(const struct tls_opts *cmdline) {
  struct tls_opts none;
  memset(&none, 0, sizeof none);
  none.config = cmdline->config;
  if (memcmp(&none, cmdline, sizeof none))
    return cli_usage("tls serve: -c FILE takes no other options: the file has them all");
  struct tls_file f;
  int rc = tls_file_read(cmdline->config, &f);
  if (rc) return rc;
  uint64_t threads = 0;
  char what[600];
  snprintf(what, sizeof what, "%s: workers", cmdline->config);
  if (f.global.threads && cli_uint(what, f.global.threads, 1, 1024, &threads)) rc = CLI_EXIT_USAGE;
  struct services all = {calloc(f.n, sizeof *all.s), 0};
  if (!rc && !all.s) {
    cli_err("tls serve: out of memory");
    rc = CLI_EXIT_FAIL;
  }
  if (!rc && f.log) rc = log_to(f.log);
  if (!rc) rc = keylog_open(f.global.keylog, "tls serve");
  for (size_t i = 0; !rc && i < f.n; i++, all.n++) {
    struct service *s = &all.s[i];
    s->o = f.svc[i].o;
    s->mode = MODE_SERVE;
    s->name = f.svc[i].name;
    snprintf(s->where, sizeof s->where, "%s:%u [%s]", cmdline->config, f.svc[i].line, f.svc[i].name);
    rc = check_opts(s->mode, &s->o, s->where);
    if (!rc) rc = service_init(s, threads);
  }
  if (!rc) rc = services_run(&all);
  if (all.s) services_free(&all);
  free(all.s);
  tls_file_free(&f);
  return rc;
}

int cmd_tls(int argc, char **argv) {
  keep_freed_heap();
  static const cli_opt opts[] = {
      {"listen", 0, CLI_ARG, TLS_O_LISTEN},         {"backend", 0, CLI_ARG, TLS_O_BACKEND},
      {"upstream", 0, CLI_ARG, TLS_O_UPSTREAM},     {"cert", 0, CLI_PATH, TLS_O_CERT},
      {"key", 0, CLI_PATH, TLS_O_KEY},              {"chain", 0, CLI_PATH, TLS_O_CHAIN},
      {"passin", 0, CLI_ARG, TLS_O_PASSIN},         {"ca", 0, CLI_PATH, TLS_O_CA},
      {"verify-client", 0, CLI_NOARG, TLS_O_VERIFY}, {"require-client", 0, CLI_NOARG, TLS_O_REQUIRE},
      {"servername", 0, CLI_ARG, TLS_O_SERVERNAME}, {"insecure", 0, CLI_NOARG, TLS_O_INSECURE},
      {"version", 0, CLI_ARG, TLS_O_VERSION},       {"suites", 0, CLI_ARG, TLS_O_SUITES},
      {"groups", 0, CLI_ARG, TLS_O_GROUPS},         {"alpn", 0, CLI_ARG, TLS_O_ALPN},
      {"keylog", 0, CLI_PATH, TLS_O_KEYLOG},        {"threads", 0, CLI_ARG, TLS_O_THREADS},
      {"timeout", 0, CLI_ARG, TLS_O_TIMEOUT},       {"close-on-eof", 0, CLI_NOARG, TLS_O_CLOSE_ON_EOF},
      {"psk", 0, CLI_ARG, TLS_O_PSK},               {"psk-file", 0, CLI_PATH, TLS_O_PSK_FILE},
      {"sess-in", 0, CLI_PATH, TLS_O_SESS_IN},      {"sess_in", 0, CLI_PATH, TLS_O_SESS_IN},
      {"sess-out", 0, CLI_PATH, TLS_O_SESS_OUT},    {"sess_out", 0, CLI_PATH, TLS_O_SESS_OUT},
      {"no-tickets", 0, CLI_NOARG, TLS_O_NO_TICKETS}, {"no_ticket", 0, CLI_NOARG, TLS_O_NO_TICKETS},
      {"ticket-key", 0, CLI_PATH, TLS_O_TICKET_KEY},
      {"insecure-key-file", 0, CLI_NOARG, TLS_O_INSECURE_KEY_FILE},
      {"config", 'c', CLI_PATH, TLS_O_CONFIG},
      {"help", 'h', CLI_NOARG, TLS_O_HELP},
      {NULL, 0, 0, 0}};
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
  }
  enum tls_mode mode;
  if (!strcmp(argv[1], "serve")) mode = MODE_SERVE;
  else if (!strcmp(argv[1], "connect")) mode = MODE_CONNECT;
  else if (!strcmp(argv[1], "client")) mode = MODE_CLIENT;
  else return cli_usage("tls: unknown form '%s' (serve, connect or client; see gostx tls --help)", argv[1]);
  const char *sub = mode_name[mode];
  struct tls_opts o;
  memset(&o, 0, sizeof o);
  cli_parser p;
  cli_parser_init_openssl(&p, sub, argc - 1, argv + 1, opts);
  int opt;
  while ((opt = cli_next(&p, opts)) != CLI_END) {
    if (opt == TLS_O_HELP) {
      usage(stdout);
      return CLI_EXIT_OK;
    }
    if (opt == CLI_POS) {
      if (mode != MODE_CLIENT || o.target)
        return cli_usage("%s: unexpected argument '%s'", sub, p.pos);
      o.target = p.pos;
    } else if (tls_opt_set(&o, opt, p.arg)) {
      return CLI_EXIT_USAGE;
    }
  }
  if (o.config && mode != MODE_SERVE) return cli_usage("%s: -c FILE is a form of tls serve", sub);
  if (o.config) return serve_file(&o);
  int rc = check_opts(mode, &o, sub);
  /* serve and connect check theirs with each read of the files */
  if (!rc && mode == MODE_CLIENT) rc = secret_files_private(&o);
  if (rc) return rc;
  uint64_t timeout = 30, threads = 0;
  if (o.timeout && cli_uint("--timeout", o.timeout, 1, 3600, &timeout)) return CLI_EXIT_USAGE;
  if (o.threads && cli_uint("--threads", o.threads, 1, 1024, &threads)) return CLI_EXIT_USAGE;
  if ((rc = keylog_open(o.keylog, sub))) return rc;
  if (mode == MODE_CLIENT) {
    gostx_tls_config *cfg = NULL;
    gostx_x509_store *store = NULL;
    if (!(rc = build_config(mode, &o, sub, &cfg, &store))) rc = run_client(&o, cfg, (unsigned)timeout);
    gostx_tls_config_free(cfg);
    gostx_x509_store_free(store);
  } else {
    struct service one;
    memset(&one, 0, sizeof one);
    one.o = o;
    one.mode = mode;
    snprintf(one.where, sizeof one.where, "%s", sub);
    struct services all = {&one, 1};
    rc = service_init(&one, threads);
    if (!rc) rc = services_run(&all);
    services_free(&all);
  }
  if (keylog.f) fclose(keylog.f);
  return rc;
}
