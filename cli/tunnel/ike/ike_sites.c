/* gostx tunnel as a gateway: its IKEv2 sites ([peer NAME] sections of
 * keying = ikev2, docs/TUNNEL.md "An IKEv2 site"), as the main thread
 * makes them: each site's material read and its manager's settings made
 * (IDi its remote_id exactly, authenticated by its own psk or
 * certificates, its TSi narrowed to its remote_ts, which route to it
 * whether it is up or not), at the start into the first nsites slots, at
 * SIGHUP into a plan (sites added, removed, changed by name) that the IKE
 * thread (ike_gateway.c) carries out with the managers. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tunnel_gw.h"
#include "ike_gateway.h"

void ra_site_free(struct ra_site *st) {
  if (!st) return;
  ike_material_free(&st->k);
  free(st->crl);
  gostx_memzero(st, sizeof *st);
  free(st);
}

/* Section c's digest, of what site_differs compares: its bytes but where
 * the reader stood (its lines, its config's address, what its name's
 * buffer holds past the NUL) and its IKE settings' config whole. A site
 * keeps it instead of that config (46 KiB of paths and pool fields, most
 * of them empty). */
static void site_digest(const struct tunnel_peer_config *c, uint8_t out[32]) {
  struct tunnel_peer_config p;
  memcpy(&p, c, sizeof p);
  p.line = p.ts_line = 0;
  p.ike = NULL;
  memset(p.name, 0, sizeof p.name);
  memcpy(p.name, c->name, strnlen(c->name, sizeof p.name));
  gostx_streebog_ctx h;
  (void)gostx_streebog_init(&h, 32);
  (void)gostx_streebog_update(&h, &p, sizeof p);
  (void)gostx_streebog_update(&h, c->ike, sizeof *c->ike);
  (void)gostx_streebog_final(&h, out);
}

/* Site c (an IKEv2 [peer] section) into a new *out: its material read and
 * its manager's settings made. 0, or CLI_EXIT_* after a line (*out, when
 * not NULL, for site_free). */
static int site_new(struct tunnel *t, const struct tunnel_peer_config *c, struct ra_site **out) {
  struct ra_site *st = *out = calloc(1, sizeof *st);
  if (!st) return cli_usage("tunnel: out of memory");
  const struct tunnel_config *ike = c->ike;
  memcpy(&st->p, c, sizeof st->p);
  st->p.ike = NULL;
  site_digest(c, st->digest);
  st->remote_id = ike->remote_id;
  memcpy(st->encr, ike->encr, sizeof st->encr);
  st->ike_auth = ike->ike_auth;
  st->k.t = t;
  st->k.fd = -1;
  if (ike->n_crl) {
    if (!(st->crl = malloc(ike->n_crl * sizeof *st->crl))) return cli_usage("tunnel: out of memory");
    memcpy(st->crl, ike->crl, ike->n_crl * sizeof *st->crl);
    st->n_crl = ike->n_crl;
  }
  int rc = ike_material_load(&st->k, ike);
  if (rc) return rc;
  ike_settings(&st->k, ike);
  gostx__ike_mgr_settings *s = &st->k.set;
  /* what the settings took of ike, pointed at the site's own */
  s->encr = st->encr;
  s->peer_id = st->remote_id.data;
  s->peer_id_text = st->remote_id.text;
  ike_addr_of(&t->cfg.local, &s->local);
  s->data_local = s->local;
  s->on_data_port = 1; /* as the users': IKE behind the marker from IKE_SA_INIT on */
  s->any_source = 1;   /* its NAT may move it */
  /* s->initiate: ike_initiate's (ike_settings), with the gateway's IKE to
   * its peer address and port, behind the marker (the site's ike_port is
   * its data port) */
  s->peer_text = st->p.peer_s;
  for (size_t j = 0; j < c->nts; j++) {
    st->ts[j].ip_len = c->ts[j].family == 4 ? 4 : 16;
    st->ts[j].len = (uint8_t)c->ts[j].len;
    memcpy(st->ts[j].ip, c->ts[j].addr, st->ts[j].ip_len);
  }
  s->peer_ts = st->ts;
  s->n_peer_ts = c->nts;
  ike_addr_of(&c->peer, &st->at);
  return 0;
}

void ra_site_say(const struct ra_site *st, const char *how) {
  ike_say("[peer %s]: %sIKEv2 %s %s on the data port, its ID %s, by %s", st->p.name, how,
          st->k.set.initiate ? "started here to" : "from", st->p.peer_s, st->remote_id.text,
          st->ike_auth == TUNNEL_IKE_PSK ? "PSK" : "certificate");
}

/* The IKEv2 sites of the config (t->cfg.peers after the static ones): the
 * first site slots, routed from the next table on. */
int ra_sites_prepare(struct tunnel_ra *ra) {
  struct tunnel *t = ra->t;
  ra->sites = calloc(t->gw->nsites ? t->gw->nsites : 1, sizeof *ra->sites);
  if (!ra->sites) return cli_usage("tunnel: out of memory");
  for (size_t i = 0; i < t->cfg.nsites; i++) {
    int rc = site_new(t, tunnel_site_cfg(&t->cfg, i), &ra->sites[i]);
    if (rc) return rc;
    tunnel_gw_site_set(t, i, &ra->sites[i]->p, ra->sites[i]->remote_id.text);
  }
  tunnel_config_sites_shed(&t->cfg);
  return 0;
}

/* ---- SIGHUP: the sites' changes ---- */

void ra_plan_free(struct ra_plan *pl, size_t ns) {
  if (!pl) return;
  for (size_t i = 0; pl->next && i < ns; i++) ra_site_free(pl->next[i]);
  free(pl->next);
  free(pl->end);
  free(pl);
}

/* The site slot of the running site named name, or nsites. */
static size_t site_named(const struct tunnel_ra *ra, const char *name) {
  size_t i = 0;
  while (i < ra->t->gw->nsites && !(ra->sites[i] && !strcmp(ra->sites[i]->p.name, name))) i++;
  return i;
}

/* Whether running site st differs from section c: in a setting (the
 * paths of its files too) or, by PSK, in the PSK its file holds now. 0
 * with *differs, or CLI_EXIT_* after a line (its PSK file unreadable). */
static int site_differs(const struct ra_site *st, const struct tunnel_peer_config *c,
                        int *differs) {
  uint8_t d[sizeof st->digest];
  site_digest(c, d);
  *differs = memcmp(d, st->digest, sizeof d) != 0;
  if (*differs || st->ike_auth != TUNNEL_IKE_PSK) return 0;
  uint8_t psk[sizeof st->k.psk];
  size_t len;
  int rc = ike_psk_read(c->ike, c->ike->psk, psk, sizeof psk, &len);
  if (!rc) *differs = len != st->k.psk_len || gostx_memeq_ct(psk, st->k.psk, len);
  gostx_memzero(psk, sizeof psk);
  return rc;
}

int tunnel_ra_sites_stage(struct tunnel *t, const struct tunnel_config *next, size_t counts[3]) {
  struct tunnel_ra *ra = t->ra;
  const size_t ns = t->gw->nsites;
  const char *pre = "tunnel: reload refused: ";
  struct ra_plan *pl = calloc(1, sizeof *pl);
  unsigned char *kept = calloc(ns ? ns : 1, 1);
  if (pl) pl->next = calloc(ns ? ns : 1, sizeof *pl->next), pl->end = calloc(ns ? ns : 1, 1);
  int rc = !pl || !pl->next || !pl->end || !kept ? cli_usage("%sout of memory", pre) : 0;
  /* the running sites named again: as they are, or changed (ended, then
   * taken anew: their SAs are of the settings before) */
  for (size_t j = 0; !rc && j < next->nsites; j++) {
    const struct tunnel_peer_config *c = tunnel_site_cfg(next, j);
    const size_t i = site_named(ra, c->name);
    int differs = 0;
    if (i == ns) continue; /* added: below */
    kept[i] = 1;
    rc = site_differs(ra->sites[i], c, &differs);
    if (!rc && differs) {
      counts[1]++;
      pl->end[i] = PLAN_CHANGED;
      rc = site_new(t, c, &pl->next[i]);
    }
    if (rc)
      cli_err("%s%s:%u: [peer %s]: its files (above) could not be read", pre, t->cfg.path,
              c->line, c->name);
  }
  for (size_t i = 0; !rc && i < ns; i++)
    if (ra->sites[i] && !kept[i]) counts[2]++, pl->end[i] = PLAN_REMOVED;
  /* the new ones: a free slot each (a removed site's too) */
  size_t f = 0;
  for (size_t j = 0; !rc && j < next->nsites; j++) {
    const struct tunnel_peer_config *c = tunnel_site_cfg(next, j);
    if (site_named(ra, c->name) != ns) continue;
    while (f < ns && (pl->next[f] || (ra->sites[f] && !pl->end[f]))) f++;
    if (f == ns) {
      cli_err("%s%s:%u: [peer %s]: no free slot for an IKEv2 peer (a gateway has those it "
              "started with and %d more: a restart makes room)",
              pre, t->cfg.path, c->line, c->name, TUNNEL_GW_SITES_SPARE);
      rc = CLI_EXIT_USAGE;
      break;
    }
    counts[0]++;
    if ((rc = site_new(t, c, &pl->next[f])))
      cli_err("%s%s:%u: [peer %s]: its files (above) could not be read", pre, t->cfg.path,
              c->line, c->name);
  }
  free(kept);
  if (rc) ra_plan_free(pl, ns);
  else ra->staged = pl;
  return rc;
}

void tunnel_ra_sites_unstage(struct tunnel *t) {
  ra_plan_free(t->ra->staged, t->gw->nsites);
  t->ra->staged = NULL;
}

/* How long the main thread waits for the IKE thread to take a plan (it
 * looks at each turn: 200 ms at most) */
#define RA_PLAN_TAKE_MS 5000

int tunnel_ra_sites_commit(struct tunnel *t) {
  struct tunnel_ra *ra = t->ra;
  struct ra_plan *pl = ra->staged;
  const size_t ns = t->gw->nsites;
  ra->staged = NULL;
  int any = 0, rc = 0;
  for (size_t i = 0; i < ns; i++) any |= pl->end[i] || pl->next[i];
  if (any) atomic_store(&ra->plan, pl);
  const struct timespec ms10 = {0, 10000000};
  for (int waited = 0; any && !atomic_load(&pl->done); waited += 10) {
    struct ra_plan *mine = pl;
    if (waited >= RA_PLAN_TAKE_MS && atomic_compare_exchange_strong(&ra->plan, &mine, NULL)) {
      cli_err("tunnel: reload: the IKE thread did not take the IKEv2 [peer] changes in %d ms: "
              "the running sites kept (send SIGHUP again)",
              RA_PLAN_TAKE_MS);
      rc = -1;
      break;
    }
    nanosleep(&ms10, NULL); /* taken: carried out at once */
  }
  ra_plan_free(pl, ns);
  return rc;
}
