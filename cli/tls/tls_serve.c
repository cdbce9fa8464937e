/* gostx tls serve and connect: each listener a service (the command
 * line's, or each section of a -c file), run by tls_proxy.c's workers
 * and reloaded on SIGHUP. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tls_cli.h"

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
  int rc = tls_secret_files_private(&s->o);
  if (!rc) rc = tls_build_config(s->mode, &s->o, s->where, &cfg, &store);
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
  px->timing = o->timing;
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
    fprintf(stderr, "gostx %s: %s%s%sreloaded%s%s\n", tls_mode_name[s->mode], s->name ? "[" : "",
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
int tls_serve_file(const struct tls_opts *cmdline) {
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
  if (!rc) rc = tls_keylog_open(f.global.keylog, "tls serve");
  for (size_t i = 0; !rc && i < f.n; i++, all.n++) {
    struct service *s = &all.s[i];
    s->o = f.svc[i].o;
    s->mode = MODE_SERVE;
    s->name = f.svc[i].name;
    snprintf(s->where, sizeof s->where, "%s:%u [%s]", cmdline->config, f.svc[i].line, f.svc[i].name);
    rc = tls_check_opts(s->mode, &s->o, s->where);
    if (!rc) rc = service_init(s, threads);
  }
  if (!rc) rc = services_run(&all);
  if (all.s) services_free(&all);
  free(all.s);
  tls_file_free(&f);
  return rc;
}

/* serve or connect from the command line's options: one service. */
int tls_serve_one(enum tls_mode mode, const struct tls_opts *o, const char *sub, uint64_t threads) {
  struct service one;
  memset(&one, 0, sizeof one);
  one.o = *o;
  one.mode = mode;
  snprintf(one.where, sizeof one.where, "%s", sub);
  struct services all = {&one, 1};
  int rc = service_init(&one, threads);
  if (!rc) rc = services_run(&all);
  services_free(&all);
  return rc;
}
