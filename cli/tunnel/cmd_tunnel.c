/* gostx tunnel -c CONFIG: a GOST network encryptor (ESP in UDP over a TUN
 * device; docs/TUNNEL.md). The main thread sets everything up, then only
 * waits for signals and writes the status file; the workers move packets. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__) /* after a libc header: it defines __GLIBC__ */
#include <malloc.h>
#endif

#include "../commands.h"
#include "tunnel.h"
#include "tunnel_gw.h"

static void usage(FILE *f) {
  fprintf(f,
          "Usage: gostx tunnel -c CONFIG [--new-keys]  run the tunnel (root: TUN device)\n"
          "       gostx tunnel --status [--json] -c CONFIG\n"
          "                                            print the counters of the running tunnel\n"
          "                                            (--json: as one JSON object)\n"
          "       gostx tunnel --check -c CONFIG [--new-keys]\n"
          "                                            check the config, keys and state file\n"
          "                                            as a start would, then exit\n"
          "\n"
          "IP packets from the TUN device travel in ESP (RFC 4303) inside UDP (RFC 3948),\n"
          "protected by ENCR_KUZNYECHIK_MGM_KTREE or ENCR_MAGMA_MGM_KTREE (RFC 9227).\n"
          "The state file (state = ...) says which keys it belongs to and how far their\n"
          "sequence numbers went: a start without it, or with another key's, is refused.\n"
          "  --new-keys  the keys the state file does not know are new (never used):\n"
          "              start them at sequence number 1. Give it once, for the first\n"
          "              start with new keys; with the state of these keys it is refused.\n"
          "Key files must be regular files that group and others cannot access\n"
          "(chmod go=), unless the config says insecure_key_file = true.\n"
          "--status exits 1 when the tunnel is not running; it also says which UDP\n"
          "offloads are on (udp_gso, udp_gro; udp_offload = off in the config turns\n"
          "both off) and which TUN offloads (tun_csum, tun_tso, tun_uso; tun_offload\n"
          "= off turns them off).\n"
          "With keying = ikev2 in the config the tunnel keys itself with IKEv2 (RFC 7296,\n"
          "RFC 9385: a PSK or certificates) instead of key files and a state file;\n"
          "--status then also shows the IKE SA and the Child SA.\n"
          "SIGHUP reloads the keys: new key files and SPIs in the config (both ends),\n"
          "switched to without a packet lost (docs/TUNNEL.md, \"Reloading keys\"); with\n"
          "keying = ikev2 it reads the CRLs of the crl lines again.\n"
          "With [peer NAME] sections the tunnel is a gateway of many peers, each with its\n"
          "own keys, state file (STATE.peer.NAME) and inner prefixes (remote_ts): --status\n"
          "then lists every peer; SIGHUP adds, changes and removes peers (the rest: a\n"
          "restart).\n"
          "SIGUSR1 prints the counters on stderr; SIGINT/SIGTERM stop the tunnel.\n"
          "The config file is described in docs/TUNNEL.md.\n");
}

/* SIGHUP of a gateway: the [pool]'s CRLs (the running config's files);
 * the config read again, its IKEv2 sites' changes staged (their files
 * read), its static peers' made, then the sites' (the IKE thread's); the
 * whole refused in one line where any part is (tunnel_gw.h). */
static void gw_reload(struct tunnel *t) {
  static struct tunnel_config next; /* big; the main thread only */
  size_t peers[4], sites[3] = {0};
  tunnel_ra_reload_crls(t);
  if (tunnel_gw_reload_read(t, &next)) return;
  int rc = t->ra ? tunnel_ra_sites_stage(t, &next, sites) : 0;
  if (!rc && (rc = tunnel_gw_reload(t, &next, peers)) && t->ra) tunnel_ra_sites_unstage(t);
  if (!rc) tunnel_config_sites_shed(&t->cfg); /* the staged sites are copies */
  if (!rc && t->ra && tunnel_ra_sites_commit(t)) memset(sites, 0, sizeof sites);
  if (!rc) tunnel_gw_reload_say(t, peers, sites);
  tunnel_config_free(&next);
}

/* The counters into the status file (written whole, then renamed). */
static void write_status(struct tunnel *t) {
  char tmp[TUNNEL_PATH_MAX + 8];
  snprintf(tmp, sizeof tmp, "%s.tmp", t->cfg.status);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  fprintf(f, "pid %ld\ntime %lld\ntun %s\nworkers %u\n", (long)getpid(), (long long)time(NULL),
          t->cfg.tun, t->nworkers);
  if (t->gw) { /* each peer's SAs and counts on its line */
    fprintf(f, "peers %zu\n", tunnel_gw_peers(t) + t->cfg.nsites); /* static and IKEv2 */
    tunnel_gw_status(t, f);
  } else {
    fprintf(f, "seq_used %llu\n",
            (unsigned long long)(t->sf.st_out ? atomic_load(&t->sf.st_out->seq_used) : 0));
    tunnel_sa_print(t, f);
  }
  tunnel_offloads_print(t, f);
  tunnel_ike_status(t, f);
  tunnel_counters_print(t, f);
#if defined(__GLIBC__)
  /* the heap in use, every arena (a gateway's memory per peer is read off
   * it: docs/TUNNEL.md, Counters) */
  const struct mallinfo2 m = mallinfo2();
  fprintf(f, "heap_bytes %zu\n", m.uordblks + m.hblkhd);
#endif
  if (fclose(f) == 0)
    rename(tmp, t->cfg.status);
  else
    unlink(tmp);
}

static int print_status(const struct tunnel_config *cfg, int json) {
  /* the file outlives its tunnel: counters of a dead one are not shown as
   * if it ran */
  int running = tunnel_state_running(cfg);
  if (running < 0) return CLI_EXIT_FAIL;
  if (!running) {
    cli_err("tunnel of %s is not running (no tunnel holds %s.lock)", cfg->path, cfg->state);
    return CLI_EXIT_FAIL;
  }
  FILE *f = fopen(cfg->status, "r");
  if (!f) {
    cli_err("%s: %s (the tunnel is starting?)", cfg->status, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  int rc = CLI_EXIT_OK;
  if (json) {
    if (tunnel_status_json(f, stdout)) rc = CLI_EXIT_FAIL;
  } else {
    char line[256];
    while (fgets(line, sizeof line, f)) fputs(line, stdout);
  }
  fclose(f);
  return rc;
}

/* The static keys: the SA pair of the key files, linked before the
 * workers start (the state file counts their numbers). 0, or
 * CLI_EXIT_USAGE / CLI_EXIT_FAIL after one line. */
static int static_sas(struct tunnel *t) {
  gostx_esp_sa out = {0}, in = {0};
  int rc = tunnel_load_keys(&t->cfg, &out, &in);
  if (!rc) {
    t->sf.st_out = tunnel_sa_from_esp(&out, TUNNEL_SA_OUT, t->cfg.threads);
    t->sf.st_in = tunnel_sa_from_esp(&in, TUNNEL_SA_IN, t->cfg.threads);
  }
  gostx_esp_sa_clear(&out);
  gostx_esp_sa_clear(&in);
  if (rc) return rc;
  if (!t->sf.st_out || !t->sf.st_in) {
    tunnel_sa_free(t->sf.st_out);
    tunnel_sa_free(t->sf.st_in);
    t->sf.st_out = t->sf.st_in = NULL;
    cli_err("tunnel: out of memory");
    return CLI_EXIT_FAIL;
  }
  atomic_store(&t->sa_out, t->sf.st_out);
  atomic_store(&t->sa_in[0], t->sf.st_in);
  return 0;
}

static int integrity_only(gostx_esp_transform x) {
  return x == GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE || x == GOSTX_ESP_MAGMA_MGM_MAC_KTREE;
}

/* keying = ikev2: the main thread waits (signals and the status file as
 * later) until IKE has installed the first Child SA; *stop set: a signal
 * came first. */
static void wait_for_keys(struct tunnel *t, const sigset_t *sigs, int *stop) {
  struct timespec tick = {0, 20 * 1000 * 1000};
  struct timespec last;
  clock_gettime(CLOCK_MONOTONIC, &last);
  while (!tunnel_ike_installed(t)) {
    int s = sigtimedwait(sigs, NULL, &tick);
    if (s == SIGINT || s == SIGTERM) {
      *stop = 1;
      break;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec != last.tv_sec) write_status(t);
    last = now;
  }
}

/* The n workers on their queues and sockets: 0, or CLI_EXIT_FAIL after one
 * line (t->nworkers: those started). */
static int start_workers(struct tunnel *t, unsigned n, const int *udp, const int *send,
                         const int *tun) {
  for (unsigned i = 0; i < n; i++) {
    struct tunnel_worker *w = &t->w[i];
    w->t = t;
    w->idx = i;
    w->tun_fd = tun[i];
    w->udp_fd = udp[i];
    w->send_fd = send[i];
    w->peer = t->cfg.peer;
    /* a GRO buffer holds a whole train of datagrams; without, one holds a
     * packet, or with IKE an IKE message behind its marker */
    w->rx_slot = t->udp_gro ? TUNNEL_GRO_BUF : t->ike || t->ra ? TUNNEL_IKE_SLOT : TUNNEL_SLOT;
    /* with TUN offloads, a super-packet's room after them */
    w->buf_len = (size_t)TUNNEL_BURST * 2 * TUNNEL_SLOT + (size_t)TUNNEL_RX_BUFS * w->rx_slot +
                 (t->tun_vnet ? TUNNEL_SUPER_MAX + TUNNEL_GRO_OUT : 0);
    w->buf = malloc(w->buf_len);
    /* everything the worker uses is set before it starts: datagrams wait in
     * its socket already, and it opens them at once (a worker that read
     * w->plain before this thread set it wrote payloads at NULL + k * SLOT) */
    w->plain =
        w->buf ? w->buf + (size_t)TUNNEL_BURST * TUNNEL_SLOT + (size_t)TUNNEL_RX_BUFS * w->rx_slot
               : NULL;
    w->super = w->buf && t->tun_vnet ? w->plain + (size_t)TUNNEL_BURST * TUNNEL_SLOT : NULL;
    w->gro = w->super ? w->super + TUNNEL_SUPER_MAX : NULL;
    if (!w->buf || pthread_create(&w->thread, NULL, tunnel_worker_run, w)) {
      cli_err("tunnel: cannot start worker %u", i);
      free(w->buf);
      w->buf = NULL;
      return CLI_EXIT_FAIL;
    }
    t->nworkers++;
  }
  return 0;
}

static int run(struct tunnel *t) {
  unsigned n = t->cfg.threads;
  int udp[TUNNEL_MAX_THREADS], send[TUNNEL_MAX_THREADS], tun[TUNNEL_MAX_THREADS], tun_lock = -1;
  const int ike = t->cfg.keying == TUNNEL_KEYING_IKEV2;
  int rc = tunnel_state_load(t, 1), stop = 0;
  if (rc) return rc;
  if (!ike && !t->gw) tunnel_state_skip_one(&t->sf);
  for (size_t i = 0; t->gw && i < t->gw->npeers; i++)
    if (t->gw->peers[i].sf.st_out) tunnel_state_skip_one(&t->gw->peers[i].sf);
  rc = tunnel_udp_open(&t->cfg, udp, send, n);
  if (rc) return rc;
  tunnel_udp_offload(t, udp, send, n);
  tunnel_udp_pktinfo(t, udp, n, ike || t->ra); /* before the IKE socket is made */
  t->tun_vnet = !t->cfg.tun_offload_off;
  rc = tunnel_tun_open(&t->cfg, tun, n, &tun_lock);
  if (!rc) tunnel_tun_offload(t, tun[0]);
  if (!rc) {
    rc = tunnel_state_begin(t);
    if (rc) {
      for (unsigned i = 0; i < n; i++) close(tun[i]);
      tunnel_tun_unlock(&t->cfg, tun_lock);
    }
  }
  if (rc) {
    for (unsigned i = 0; i < n; i++) {
      close(udp[i]);
      if (i) close(send[i]);
    }
    return rc;
  }
  /* the workers inherit a mask without the signals: only sigtimedwait
   * below sees them */
  sigset_t sigs, old;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGUSR1);
  sigaddset(&sigs, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &sigs, &old);
  t->nworkers = 0;
  t->peer_now = t->cfg.peer;
  /* keying = ikev2: the workers run before the keys come, so that IKE_AUTH
   * on their port (worker 0's socket sends IKE there) and ESP of a peer
   * still sealing under an SA we lost (a restart) reach the IKE thread,
   * which tells the peer (ike/ike_daemon.c, gostx__ike_mgr_esp_unknown);
   * they read the TUN device only once there is an outbound SA */
  if (ike) rc = tunnel_ike_start(t, udp[0]);
  if (!rc) rc = tunnel_ra_start(t, udp[0]); /* a gateway's remote users (none: nothing) */
  if (!rc) rc = start_workers(t, n, udp, send, tun);
  if (ike && !rc) wait_for_keys(t, &sigs, &stop);
  char who[160];
  if (t->gw && t->ra)
    snprintf(who, sizeof who, "%zu peers and up to %zu remote users (a gateway)",
             tunnel_gw_peers(t) + t->cfg.nsites, t->gw->nusers - t->gw->nsites);
  else if (t->gw) snprintf(who, sizeof who, "%zu peers (a gateway)", tunnel_gw_peers(t) + t->cfg.nsites);
  else snprintf(who, sizeof who, "peer %s", t->cfg.peer_s);
  if (!rc && !stop)
    fprintf(stderr,
            "gostx tunnel: %s up, local %s, %s, %s%s%s, %u workers, UDP GSO %s, GRO %s, "
            "TUN TSO %s, USO %s, checksum offload %s\n",
            t->cfg.tun, t->cfg.local_s, who,
            t->gw ? "static keys" : tunnel_transform_name(t->cfg.transform),
            ike ? " (keys from IKEv2)" : "",
            integrity_only(t->cfg.transform) ? " (integrity only: packets in clear)" : "",
            t->nworkers, atomic_load(&t->udp_gso) ? "on" : "off", t->udp_gro ? "on" : "off",
            t->tun_tso ? "on" : "off", t->tun_uso ? "on" : "off", t->tun_csum ? "on" : "off");
  write_status(t);
  /* the state files' reservations every tick; the status and the reload
   * timers every second (and at each signal) */
  const struct timespec tick = {TUNNEL_STATE_TICK_MS / 1000, TUNNEL_STATE_TICK_MS % 1000 * 1000000L};
  unsigned ticks = 0;
  while (!rc && !stop) {
    int s = sigtimedwait(&sigs, NULL, &tick);
    if (s == SIGINT || s == SIGTERM) break;
    if (s == SIGUSR1) tunnel_counters_print(t, stderr);
    if (s == SIGHUP && t->gw) gw_reload(t);
    else if (s == SIGHUP) tunnel_reload(t);
    tunnel_state_tick(t);
    if (s > 0 || ++ticks * TUNNEL_STATE_TICK_MS >= 1000) {
      ticks = 0;
      write_status(t);
      tunnel_reload_tick(t);
    }
  }
  atomic_store(&t->stop, 1);
  tunnel_ike_stop(t);
  tunnel_ra_stop(t);
  for (unsigned i = 0; i < t->nworkers; i++) {
    pthread_join(t->w[i].thread, NULL);
    if (t->w[i].buf) gostx_memzero(t->w[i].buf, t->w[i].buf_len);
    free(t->w[i].buf);
  }
  write_status(t);
  tunnel_state_close(t);
  for (unsigned i = 0; i < n; i++) {
    close(udp[i]);
    if (i) close(send[i]);
    close(tun[i]);
  }
  tunnel_tun_unlock(&t->cfg, tun_lock);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

int cmd_tunnel(int argc, char **argv) {
  enum { OPT_CONFIG = 1, OPT_STATUS, OPT_JSON, OPT_CHECK, OPT_NEW_KEYS, OPT_HELP };
  static const cli_opt opts[] = {{"config", 'c', CLI_PATH, OPT_CONFIG},
                                 {"status", 0, CLI_NOARG, OPT_STATUS},
                                 {"json", 0, CLI_NOARG, OPT_JSON},
                                 {"check", 0, CLI_NOARG, OPT_CHECK},
                                 {"new-keys", 0, CLI_NOARG, OPT_NEW_KEYS},
                                 {"help", 'h', CLI_NOARG, OPT_HELP},
                                 {NULL, 0, 0, 0}};
  cli_parser p;
  cli_parser_init(&p, "tunnel", argc, argv);
  const char *config = NULL;
  int status = 0, json = 0, check = 0, new_keys = 0, o;
  while ((o = cli_next(&p, opts)) != CLI_END) {
    switch (o) {
    case OPT_CONFIG: config = p.arg; break;
    case OPT_STATUS: status = 1; break;
    case OPT_JSON: json = 1; break;
    case OPT_CHECK: check = 1; break;
    case OPT_NEW_KEYS: new_keys = 1; break;
    case OPT_HELP: usage(stdout); return CLI_EXIT_OK;
    case CLI_POS: return cli_usage("tunnel: unexpected argument '%s'", p.pos);
    default: return CLI_EXIT_USAGE;
    }
  }
  if (!config) return cli_usage("tunnel: -c CONFIG is required (see gostx tunnel --help)");
  if (status && (check || new_keys))
    return cli_usage("tunnel: --status takes no --check or --new-keys");
  if (json && !status) return cli_usage("tunnel: --json is for --status");
  static struct tunnel t; /* big (per-worker counters): not on the stack */
  memset(&t, 0, sizeof t);
  t.lock_fd = -1;
  t.ike_pair[0] = t.ike_pair[1] = -1;
  t.new_keys = new_keys;
  int rc = tunnel_config_read(config, &t.cfg);
  if (rc) return rc;
  if (status) {
    rc = print_status(&t.cfg, json);
    tunnel_config_free(&t.cfg);
    return rc;
  }
  pthread_mutex_init(&t.sa_lock, NULL);
  pthread_mutex_init(&t.peer_lock, NULL);
  pthread_mutex_init(&t.sf.lock, NULL);
  snprintf(t.sf.path, sizeof t.sf.path, "%s", t.cfg.state);
  if (t.cfg.keying == TUNNEL_KEYING_IKEV2) {
    /* no key files: IKE makes new keys for every SA */
    if (new_keys)
      return cli_usage("tunnel: --new-keys is for keying = static (IKE's keys are new at "
                       "every SA)");
    rc = tunnel_ike_prepare(&t);
  } else if (t.cfg.npeers || t.cfg.pool) {
    rc = tunnel_gw_prepare(&t);
    if (!rc) rc = tunnel_ra_prepare(&t);
  } else {
    rc = static_sas(&t);
    if (!rc) rc = tunnel_fingerprints(&t.sf);
  }
  if (!rc && check) rc = tunnel_state_load(&t, 0);
  if (!rc && !check) rc = run(&t);
  if (t.lock_fd >= 0) close(t.lock_fd);
  tunnel_ike_free(&t);
  tunnel_sa_free(t.next_out); /* a reload's, not switched to */
  tunnel_sa_clear_all(&t);     /* the workers have stopped */
  tunnel_ra_free(&t);          /* before the gateway's tables its users are in */
  tunnel_gw_free(&t);
  tunnel_config_free(&t.cfg);
  return rc;
}
