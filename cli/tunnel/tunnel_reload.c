/* gostx tunnel: SIGHUP, new static keys at run time (docs/TUNNEL.md,
 * "Reloading keys"): the config file read again, its new key files and
 * SPIs made a new SA pair and installed make-before-break through
 * tunnel_sa.h, the state file moved to them. */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "tunnel.h"

static long long now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec;
}

/* The settings a reload may change: the keys, their SPIs, transform, limit
 * and ESN, from src into dst. */
static void take_keys(struct tunnel_config *dst, const struct tunnel_config *src) {
  dst->transform = src->transform;
  dst->spi_out = src->spi_out;
  dst->spi_in = src->spi_in;
  memcpy(dst->key_out, src->key_out, sizeof dst->key_out);
  memcpy(dst->key_in, src->key_in, sizeof dst->key_in);
  dst->limit = src->limit;
  dst->esn_off = src->esn_off;
}

/* Whether next differs from cur only in what a reload may change. */
static int only_keys_differ(const struct tunnel_config *cur, const struct tunnel_config *next) {
  struct tunnel_config c = *cur;
  take_keys(&c, next);
  return !memcmp(&c, next, sizeof c); /* both zeroed whole by tunnel_config_read */
}

int tunnel_pair_load(struct tunnel *t, const struct tunnel_config *cfg, struct tunnel_sa **out,
                     struct tunnel_sa **in) {
  gostx_esp_sa o = {0}, i = {0};
  int rc = tunnel_load_keys(cfg, &o, &i);
  *out = rc ? NULL : tunnel_sa_from_esp(&o, TUNNEL_SA_OUT, t->cfg.threads);
  *in = rc ? NULL : tunnel_sa_from_esp(&i, TUNNEL_SA_IN, t->cfg.threads);
  gostx_esp_sa_clear(&o);
  gostx_esp_sa_clear(&i);
  if (!rc && (!*out || !*in)) {
    cli_err("tunnel: out of memory");
    rc = CLI_EXIT_FAIL;
  }
  if (rc) {
    tunnel_sa_free(*out);
    tunnel_sa_free(*in);
    *out = *in = NULL;
  }
  return rc;
}

/* The config read again and checked against the running tunnel: 0, or
 * nonzero after one line. */
static int read_next(struct tunnel *t, struct tunnel_config *next) {
  if (t->next_out || t->old_in_live) {
    cli_err("tunnel: reload refused: the one before is still switching (try again in a few "
            "seconds)");
    return -1;
  }
  if (tunnel_config_read(t->cfg.path, next)) return -1;
  if (!only_keys_differ(&t->cfg, next)) {
    cli_err("tunnel: reload refused: %s changed more than transform, spi_out, spi_in, "
            "key_out, key_in, limit or esn (restart the tunnel for the rest)",
            t->cfg.path);
    return -1;
  }
  if (next->spi_out == t->cfg.spi_out || next->spi_in == t->cfg.spi_in) {
    cli_err("tunnel: reload refused: spi_out and spi_in must both be new (the old and the "
            "new SAs live side by side while the ends switch)");
    return -1;
  }
  return 0;
}

void tunnel_reload(struct tunnel *t) {
  struct tunnel_config next;
  struct tunnel_sa *out, *in;
  if (t->cfg.keying == TUNNEL_KEYING_IKEV2) { /* its keys are IKE's to change: its CRLs only */
    tunnel_ike_reload_crls(t);
    return;
  }
  if (read_next(t, &next) || tunnel_pair_load(t, &next, &out, &in)) return;
  uint32_t old_spi_in = t->cfg.spi_in;
  if (tunnel_state_rekey(&t->sf, out, in)) {
    tunnel_sa_free(out);
    tunnel_sa_free(in);
    return;
  }
  /* cannot be refused: the SPI is new and only the current inbound SA is live */
  if (tunnel_sa_add_in(t, in)) {
    cli_err("tunnel: reload: the new inbound SA could not be added");
    tunnel_sa_free(in);
    tunnel_sa_free(out);
    return;
  }
  t->next_out = out;
  t->old_spi_in = old_spi_in;
  t->old_in_live = 1;
  t->reload_at = now_s();
  take_keys(&t->cfg, &next); /* the rest is the same, and the workers read it */
  fprintf(stderr,
          "gostx tunnel: reload: new SAs in (spi_in 0x%08x now, spi_out 0x%08x when the peer's "
          "first packet under the new keys comes, at most %d s)\n",
          (unsigned)next.spi_in, (unsigned)next.spi_out, TUNNEL_RELOAD_SWITCH);
}

/* The outbound switch: once the peer sends under the new SAs (then it has
 * ours), or TUNNEL_RELOAD_SWITCH seconds after the reload. */
static void switch_when_due(struct tunnel *t, long long now) {
  if (!atomic_load(&t->sf.st_in->accepted) && now - t->reload_at < TUNNEL_RELOAD_SWITCH) return;
  uint32_t spi = t->next_out->esp.spi;
  (void)tunnel_sa_switch_out(t, t->next_out); /* cannot fail: an outbound SA */
  t->next_out = NULL;
  t->switched_at = t->old_in_moved_at = now;
  fprintf(stderr, "gostx tunnel: reload: sealing under spi_out 0x%08x, the old outbound SA "
                  "retired\n", (unsigned)spi);
}

/* The old inbound SA retired once quiet for TUNNEL_RELOAD_QUIET seconds
 * after the peer switched: it sends under the new SAs, or (no traffic from
 * it) its switch is due too, TUNNEL_RELOAD_SWITCH seconds after ours at
 * the latest. Whatever comes, TUNNEL_RELOAD_RETIRE_MAX seconds after the
 * switch. */
static void retire_when_quiet(struct tunnel *t, long long now) {
  uint64_t n = 0;
  if (tunnel_sa_in_accepted(t, t->old_spi_in, &n)) {
    t->old_in_live = 0;
    return;
  }
  if (n != t->old_in_accepted) {
    t->old_in_accepted = n;
    t->old_in_moved_at = now;
  }
  int peer_switched =
      atomic_load(&t->sf.st_in->accepted) || now - t->switched_at >= TUNNEL_RELOAD_SWITCH;
  int quiet = peer_switched && now - t->old_in_moved_at >= TUNNEL_RELOAD_QUIET;
  if (!quiet && now - t->switched_at < TUNNEL_RELOAD_RETIRE_MAX) return;
  (void)tunnel_sa_retire_in(t, t->old_spi_in);
  t->old_in_live = 0;
  fprintf(stderr, "gostx tunnel: reload: the old inbound SA 0x%08x retired (%llu packets)\n",
          (unsigned)t->old_spi_in, (unsigned long long)n);
}

void tunnel_reload_tick(struct tunnel *t) {
  long long now = now_s();
  if (t->next_out) switch_when_due(t, now);
  else if (t->old_in_live) retire_when_quiet(t, now);
}
