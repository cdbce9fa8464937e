/* gostx tls serve | connect | client: GOST TLS 1.3 (RFC 9367 suites) and
 * TLS 1.2 (RFC 9189 suites) in
 * front of any TCP server, in front of any TCP client, and an s_client-like
 * look at a server: the usage and the command line read. The options, as
 * the command line and a -c file set them, are tls_opts.c's; the relays
 * are in cli/tls/tls_proxy.c. */
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
          "  --timing            serve, connect: as each connection ends, a line on stderr\n"
          "                      of its worker's CPU time since its last line: system\n"
          "                      calls (plain side, TLS side, epoll), TLS (handshake,\n"
          "                      records) and the rest, on the thread's CPU clock (for\n"
          "                      benchmarks: each clock read is a system call)\n"
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
      {"timing", 0, CLI_NOARG, TLS_O_TIMING},
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
  const char *sub = tls_mode_name[mode];
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
  if (o.config) return tls_serve_file(&o);
  int rc = tls_check_opts(mode, &o, sub);
  /* serve and connect check theirs with each read of the files */
  if (!rc && mode == MODE_CLIENT) rc = tls_secret_files_private(&o);
  if (rc) return rc;
  uint64_t timeout = 30, threads = 0;
  if (o.timeout && cli_uint("--timeout", o.timeout, 1, 3600, &timeout)) return CLI_EXIT_USAGE;
  if (o.threads && cli_uint("--threads", o.threads, 1, 1024, &threads)) return CLI_EXIT_USAGE;
  if ((rc = tls_keylog_open(o.keylog, sub))) return rc;
  if (mode == MODE_CLIENT) {
    gostx_tls_config *cfg = NULL;
    gostx_x509_store *store = NULL;
    if (!(rc = tls_build_config(mode, &o, sub, &cfg, &store))) rc = tls_run_client(&o, cfg, (unsigned)timeout);
    gostx_tls_config_free(cfg);
    gostx_x509_store_free(store);
  } else {
    rc = tls_serve_one(mode, &o, sub, threads);
  }
  tls_keylog_close();
  return rc;
}
