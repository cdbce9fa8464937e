/* gostx tls client: an s_client-like look at a server, stdin and stdout
 * relayed over the connection (tls_relay.c) by a poll loop. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tls_cli.h"

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

int tls_run_client(const struct tls_opts *o, const gostx_tls_config *cfg, unsigned timeout) {
  const char *sub = tls_mode_name[MODE_CLIENT];
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
