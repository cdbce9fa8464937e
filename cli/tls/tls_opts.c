/* gostx tls's options, as the command line (cmd_tls.c) and serve's -c
 * file (tls_file.c) give them: each set by its id, the forms' checks, the
 * secret files' permissions. */
#include <string.h>

#include "tls_cli.h"

const char *const tls_mode_name[] = {"tls serve", "tls connect", "tls client"};

/* Option id set to arg (a flag: arg NULL). */
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
  case TLS_O_TIMING: o->timing = 1; break;
  default: return -1;
  }
  return 0;
}

/* Which options the mode takes, and the ones it needs. */
int tls_check_opts(enum tls_mode mode, const struct tls_opts *o, const char *sub) {
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
      {"--timing", o->timing, mode != MODE_CLIENT},
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
int tls_secret_files_private(const struct tls_opts *o) {
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
