/* The IKE manager's installed SA (manager.h): its Child SA into the
 * caller's data path when it is established (in place of the one before,
 * make-before-break), the engine's events done there (rekeys' new SAs
 * parked until the switch, retired SAs unlinked once quiet), its clocks
 * (rekeys by time and by what the Child SA carried, liveness checks,
 * keepalives behind a NAT) and its end; NAT detection's moves; every
 * datagram fed to an engine. */
#include <stdio.h>
#include <string.h>

#include "mgr_int.h"

/* a log line of k's, k's engine output to the peer (mgr_out.c) */
#define say(...) gostx__ike_mgr_say(k, __VA_ARGS__)
#define send_to gostx__ike_mgr_send
#define notify_name gostx__ike_mgr_notify_name
#define spi_hex gostx__ike_mgr_spi_hex
#define group_name gostx__ike_mgr_group_name
#define show gostx__ike_mgr_show

/* The data path's calls: the engine's Child SA copied into what they
 * take (wiped after); a switch noted (the SPI an INVALID_SPI hint names). */
static void *add_child(gostx__ike_mgr *k, const gostx_ike_child *c) {
  gostx__ike_mgr_child d = {c->encr, c->esn, c->spi_in, c->spi_out, {0}, {0}, c->key_len};
  if (!c->valid) return NULL;
  memcpy(d.key_in, c->key_in, sizeof d.key_in);
  memcpy(d.key_out, c->key_out, sizeof d.key_out);
  void *out = k->dp.add_child(k->dp.ctx, &d);
  gostx_memzero(&d, sizeof d);
  return out;
}

static int switch_out(gostx__ike_mgr *k, void *out, const gostx_ike_child *c) {
  gostx__ike_mgr_child d = {c->encr, c->esn, c->spi_in, c->spi_out, {0}, {0}, c->key_len};
  const int rc = k->dp.switch_out(k->dp.ctx, out, &d);
  if (!rc) k->spi_out = c->spi_out;
  return rc;
}

static int install(gostx__ike_mgr *k, const gostx_ike_child *c) {
  void *out = add_child(k, c);
  return out ? switch_out(k, out, c) : -1;
}

static void free_out(gostx__ike_mgr *k, void *out) {
  if (out) k->dp.free_out(k->dp.ctx, out);
}

static void park(gostx__ike_mgr *k, void *out, uint32_t spi) {
  for (int i = 0; i < GOSTX_IKE_MGR_PARKED; i++)
    if (!k->parked[i].sa) {
      k->parked[i].sa = out;
      k->parked[i].spi = spi;
      return;
    }
  free_out(k, k->parked[0].sa); /* the oldest: its switch never came */
  memmove(k->parked, k->parked + 1, sizeof k->parked - sizeof k->parked[0]);
  k->parked[GOSTX_IKE_MGR_PARKED - 1].sa = out;
  k->parked[GOSTX_IKE_MGR_PARKED - 1].spi = spi;
}

/* The parked outbound SA of the peer's SPI, taken out (NULL: none). */
static void *unpark(gostx__ike_mgr *k, uint32_t spi) {
  for (int i = 0; i < GOSTX_IKE_MGR_PARKED; i++)
    if (k->parked[i].sa && k->parked[i].spi == spi) {
      void *sa = k->parked[i].sa;
      k->parked[i].sa = NULL;
      return sa;
    }
  return NULL;
}

void gostx__ike_mgr_unpark_all(gostx__ike_mgr *k) {
  for (int i = 0; i < GOSTX_IKE_MGR_PARKED; i++) free_out(k, k->parked[i].sa);
  memset(k->parked, 0, sizeof k->parked);
}

/* The inbound SA of spi to go once quiet (at once when no room is left). */
static void retire_later(gostx__ike_mgr *k, uint32_t spi, int64_t now) {
  uint64_t n = 0;
  if (!spi || k->dp.in_accepted(k->dp.ctx, spi, &n)) return;
  for (int i = 0; i < GOSTX_IKE_MGR_RETIRING; i++)
    if (!k->retiring[i].spi || k->retiring[i].spi == spi) {
      k->retiring[i].spi = spi;
      k->retiring[i].seen = n;
      k->retiring[i].quiet_since = k->retiring[i].since = now;
      return;
    }
  k->dp.retire_in(k->dp.ctx, spi);
}

static void retire_quiet(gostx__ike_mgr *k, int64_t now) {
  for (int i = 0; i < GOSTX_IKE_MGR_RETIRING; i++) {
    uint64_t n = 0;
    const uint32_t spi = k->retiring[i].spi;
    if (!spi) continue;
    if (k->dp.in_accepted(k->dp.ctx, spi, &n)) { /* gone already */
      k->retiring[i].spi = 0;
      continue;
    }
    if (n != k->retiring[i].seen) {
      k->retiring[i].seen = n;
      k->retiring[i].quiet_since = now;
    }
    if (now - k->retiring[i].quiet_since >= GOSTX_IKE_MGR_QUIET_MS ||
        now - k->retiring[i].since >= GOSTX_IKE_MGR_LINGER_MS) {
      k->dp.retire_in(k->dp.ctx, spi);
      k->retiring[i].spi = 0;
    }
  }
}

static void wipe_keys(gostx_ike_child *c) {
  gostx_memzero(c->key_in, sizeof c->key_in); /* the data path has them */
  gostx_memzero(c->key_out, sizeof c->key_out);
}

/* Every Child SA of e: its inbound SA to go (the IKE SA is gone or replaced) */
static void retire_children(gostx__ike_mgr *k, const gostx_ike_engine *e, int64_t now) {
  retire_later(k, e->child.valid ? e->child.spi_in : 0, now);
  retire_later(k, e->old.valid ? e->old.spi_in : 0, now);
  retire_later(k, e->twin.valid ? e->twin.spi_in : 0, now);
}

/* a configured interval, bounded so that its milliseconds never overflow */
static uint64_t seconds_at_most(uint64_t s) {
  const uint64_t ten_years = 315360000;
  return s > ten_years ? ten_years : s;
}

/* When a lifetime of `seconds` from now ends: up to a tenth early, drawn
 * each time, so the two sides seldom start together; 0 for never. */
static int64_t lifetime_end(uint64_t seconds, int64_t now) {
  const uint64_t s = seconds_at_most(seconds);
  uint8_t r[2] = {0, 0};
  (void)gostx_random_bytes(r, sizeof r); /* zeros will do on failure */
  const int64_t ms = (int64_t)(s * 1000) - (int64_t)(s * 100 * (uint64_t)(r[0] << 8 | r[1]) / 65536);
  return s ? now + ms : 0;
}

static void next_child_rekey(gostx__ike_mgr *k, int64_t now) {
  k->rekey_ms = lifetime_end(k->set.rekey_seconds, now);
}

static void next_ike_rekey(gostx__ike_mgr *k, int64_t now) {
  k->ike_rekey_ms = lifetime_end(k->set.ike_rekey_seconds, now);
}

void gostx__ike_mgr_let_go(gostx__ike_mgr *k, gostx_ike_engine *e) {
  gostx__ike_engine_clear(e);
  if (e == k->init) k->init_on = 0;
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++)
    if (k->resp[i].e == e) k->resp[i].used = 0;
}

/* What the data path held of e (k->sa) is dealt with: e forgotten, a new
 * IKE SA of ours due at once (unless one started on a hint goes on). */
static void forget_sa(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now) {
  gostx__ike_mgr_unpark_all(k);
  k->sa = NULL;
  k->rekey_ms = k->ike_rekey_ms = 0;
  k->asked = 0;
  gostx__ike_mgr_let_go(k, e);
  if (!k->init_on) k->init_next_ms = now; /* else ours, started on a hint, goes on */
  show(k, 0, NULL, now);
}

/* e (k->sa) is no more: its IKE SA dropped, its Child SA's inbound SA to
 * go; the outbound one seals on until a new Child SA replaces it. */
static void sa_gone(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now, const char *why) {
  say("IKE SA with %s %s: dropped%s", k->set.peer_id_text, why,
      k->bye            ? " (shutdown)"
      : k->set.initiate ? ", a new one started"
                        : ", waiting for the peer");
  retire_children(k, e, now);
  forget_sa(k, e, now);
}

static void child_new(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now) {
  const gostx_ike_child *c = &e->ev.added;
  void *out = add_child(k, c);
  if (!out) {
    say("the new Child SA in 0x%08x could not be installed", c->spi_in);
    return;
  }
  park(k, out, c->spi_out);
  say("Child SA rekeyed (%s): in 0x%08x out 0x%08x, replacing in 0x%08x", c->ours ? "ours" :
      "the peer's", c->spi_in, c->spi_out, e->ev.replaces);
  if (!c->ours) next_child_rekey(k, now); /* the peer rekeyed: ours waits a full period */
}

static void child_out(gostx__ike_mgr *k, gostx_ike_engine *e) {
  void *out = unpark(k, e->child.spi_out);
  if (out && switch_out(k, out, &e->child))
    say("cannot seal with the Child SA out 0x%08x", e->child.spi_out);
}

/* The responder of a replacing SA (replace_sa) seals with it once the
 * initiator does (its first packet under it) or after GOSTX_IKE_MGR_SWITCH_MS:
 * before, the initiator may not have the inbound SA yet, our IKE_AUTH
 * answer still on its way, and the old SAs still work both ways. Not when
 * the initiator said INITIAL_CONTACT: it holds no old SA (it restarted),
 * and the new one is the only one it may open. */
static void switch_due(gostx__ike_mgr *k, int64_t now) {
  gostx_ike_engine *e = k->sa;
  uint64_t n = 0;
  if (!k->switch_spi) return;
  if (!e || e->child.spi_out != k->switch_spi) { /* gone, or rekeyed meanwhile */
    k->switch_spi = 0;
    return;
  }
  const int used = !k->dp.in_accepted(k->dp.ctx, e->child.spi_in, &n) && n;
  if (!used && now < k->switch_by_ms) return;
  k->switch_spi = 0;
  child_out(k, e);
}

/* What the last call on k->sa changed, done in the data path. */
void gostx__ike_mgr_live_events(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now) {
  const unsigned f = e->ev.flags;
  if (f & GOSTX_IKE_EV_CHILD_NEW) child_new(k, e, now);
  if (f & GOSTX_IKE_EV_CHILD_OUT) child_out(k, e);
  for (size_t i = 0; (f & GOSTX_IKE_EV_CHILD_RETIRE) && i < e->ev.n_retired; i++) {
    free_out(k, unpark(k, e->ev.retired[i].spi_out)); /* a redundant SA never sealed with */
    retire_later(k, e->ev.retired[i].spi_in, now);
  }
  if (f & GOSTX_IKE_EV_IKE_REKEYED) {
    char si[17], sr[17];
    spi_hex(e->spi_i, si);
    spi_hex(e->spi_r, sr);
    say("IKE SA rekeyed: SPIs %s %s", si, sr);
    next_ike_rekey(k, now); /* a full period from either side's rekey */
    /* no new AUTH (RFC 7296 2.18): the CRLs of now looked at instead, once
     * this call's answer is out */
    k->recheck |= GOSTX_IKE_MGR_RECHECK_REKEY;
  }
  wipe_keys(&e->ev.added);
  for (size_t i = 0; i < e->ev.n_retired; i++) wipe_keys(&e->ev.retired[i]);
  wipe_keys(&e->child);
  wipe_keys(&e->old);
  wipe_keys(&e->twin);
  if (f & GOSTX_IKE_EV_PEER_GONE) sa_gone(k, e, now, "did not answer");
  else if (f & GOSTX_IKE_EV_IKE_DELETED) /* at shutdown: ours answered, or the peer's crossed it */
    sa_gone(k, e, now, k->bye ? "deleted" : "deleted by the peer");
  else if (f) show(k, 2, e, now);
}

/* The answer to our rekey was a refusal. TEMPORARY_FAILURE (the peer had
 * an exchange of its own out, RFC 7296 2.25): again, not at once, the RFC
 * says, but not a full period later either: in 0.5-1 s. Any other (say
 * CHILD_SA_NOT_FOUND after the peer's simultaneous rekey won): the
 * schedule stands. */
static void rekey_refused(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now) {
  const char *what = k->asked == GOSTX_IKE_MGR_ASKED_IKE ? "IKE SA" : "Child SA";
  if (e->error != GOSTX_IKE_N_TEMPORARY_FAILURE) {
    say("the peer refused our %s rekey (%s)", what, notify_name(e->error));
    /* not every tick while the usage stands */
    k->usage_after_ms = now + GOSTX_IKE_MGR_USAGE_HOLD_MS;
    return;
  }
  uint8_t r = 0;
  (void)gostx_random_bytes(&r, 1);
  const int64_t again = now + 500 + 2 * (int64_t)r;
  say("the peer refused our %s rekey (%s): again in %d ms", what, notify_name(e->error),
      (int)(again - now));
  if (k->asked == GOSTX_IKE_MGR_ASKED_IKE) k->ike_rekey_ms = again;
  else k->rekey_ms = again;
  k->usage_after_ms = again;
}

/* Whether the current Child SA is to be rekeyed for what it carried (why
 * into why): rekey_bytes either way (strongSwan's rekey_bytes), or half
 * of its sequence numbers either way, whatever the settings: without ESN
 * at 2^31 packets, far before the data path's hard stop at the last. */
static int usage_due(gostx__ike_mgr *k, const gostx_ike_engine *e, int64_t now, char *why,
                     size_t cap) {
  if (now < k->usage_after_ms) return 0;
  gostx__ike_mgr_usage u;
  memset(&u, 0, sizeof u);
  k->dp.usage(k->dp.ctx, e->child.spi_in, e->child.spi_out, &u);
  const uint64_t rb = k->set.rekey_bytes;
  const uint64_t bytes = u.bytes_in > u.bytes_out ? u.bytes_in : u.bytes_out;
  if (rb && bytes >= rb)
    snprintf(why, cap, "%llu bytes under it (rekey_bytes %llu)", (unsigned long long)bytes,
             (unsigned long long)rb);
  else if (u.has_out && u.packets_out >= u.limit_out / 2)
    snprintf(why, cap, "%llu packets sealed under it (half of its last sequence number %llu)",
             (unsigned long long)u.packets_out, (unsigned long long)u.limit_out);
  else if (u.has_in && u.packets_in >= u.limit_in / 2)
    snprintf(why, cap, "%llu packets opened under it (half of its last sequence number %llu)",
             (unsigned long long)u.packets_in, (unsigned long long)u.limit_in);
  else
    return 0;
  return 1;
}

/* Our own request on k->sa when one is due: the IKE SA's rekey, the Child
 * SA's (its time, or what it carried), or a liveness check after
 * dpd_seconds of silence. A rekey the
 * engine cannot start yet (GOSTX_ESTATE: the last one's old SA not yet
 * deleted) stays due and is tried again on the next tick. */
static void live_request(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now) {
  const uint64_t dpd = seconds_at_most(k->set.dpd_seconds);
  const int64_t heard = e->last_heard_ms > k->sa_since_ms ? e->last_heard_ms : k->sa_since_ms;
  char why[128] = "";
  size_t n = 0;
  int rc = GOSTX_ESTATE;
  if (e->pend != GOSTX_IKE_X_NONE) return;
  if (k->asked) { /* the answer to our rekey is in */
    if (e->error) rekey_refused(k, e, now);
    k->asked = 0;
  }
  e->error = 0;
  if (k->ike_rekey_ms && now >= k->ike_rekey_ms) {
    rc = gostx__ike_rekey_ike(e, now, k->out, GOSTX_IKE_MSG_MAX, &n);
    if (rc != GOSTX_ESTATE) {
      k->asked = rc == GOSTX_OK ? GOSTX_IKE_MGR_ASKED_IKE : 0;
      next_ike_rekey(k, now);
    }
  }
  const int child_due = k->rekey_ms && now >= k->rekey_ms;
  if (rc != GOSTX_OK && (child_due || usage_due(k, e, now, why, sizeof why))) {
    rc = gostx__ike_rekey_child(e, 1, now, k->out, GOSTX_IKE_MSG_MAX, &n);
    if (rc != GOSTX_ESTATE) {
      k->asked = rc == GOSTX_OK ? GOSTX_IKE_MGR_ASKED_CHILD : 0;
      next_child_rekey(k, now);
    }
    if (rc == GOSTX_OK && why[0]) say("Child SA rekey started: %s", why);
  }
  if (rc != GOSTX_OK && dpd && now - heard >= (int64_t)dpd * 1000)
    rc = gostx__ike_dpd(e, now, k->out, GOSTX_IKE_MSG_MAX, &n);
  if (rc == GOSTX_OK) send_to(k, &k->sa_to, n);
}

void gostx__ike_mgr_live_tick(gostx__ike_mgr *k, int64_t now) {
  retire_quiet(k, now);
  switch_due(k, now);
  gostx_ike_engine *e = k->sa;
  if (!e) return;
  size_t n = 0;
  if (gostx__ike_timer(e, now, k->out, GOSTX_IKE_MSG_MAX, &n) == GOSTX_OK) send_to(k, &k->sa_to, n);
  gostx__ike_mgr_live_events(k, e, now);
  if (k->sa) live_request(k, e, now);
}

/* e, established while k->sa was up (the peer restarted, or lost ours):
 * its Child SA in place of the old one, the old IKE SA forgotten. */
static int replace_sa(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now) {
  gostx_ike_engine *old = k->sa;
  const int responder = e->cf->role == GOSTX_IKE_RESPONDER;
  void *out = add_child(k, &e->child);
  if (!out || (!responder && switch_out(k, out, &e->child))) return -1;
  say("a new IKE SA with %s replaces the one installed (the peer restarted?)",
      k->set.peer_id_text);
  retire_children(k, old, now);
  gostx__ike_mgr_unpark_all(k);
  if (responder && e->peer_initial_contact && !switch_out(k, out, &e->child)) {
    /* the peer restarted: the old SAs are dead to it */
    say("INITIAL_CONTACT: the peer holds no older SA; sealing with the new one at once");
  } else if (responder) { /* make-before-break: switched once the initiator seals with it */
    park(k, out, e->child.spi_out);
    k->switch_spi = e->child.spi_out;
    k->switch_by_ms = now + GOSTX_IKE_MGR_SWITCH_MS;
  }
  gostx__ike_mgr_let_go(k, old);
  return 0;
}

/* e established: where ESP goes (with a NAT in front of the peer only,
 * where its IKE_AUTH came from on the data port: the NAT's mapping of its
 * port, RFC 7296 2.23), and our keepalives when a NAT is in front of us */
static void nat_settle(gostx__ike_mgr *k, const gostx_ike_engine *e, const gostx__ike_mgr_to *from,
                       int64_t now) {
  const uint64_t s = seconds_at_most(k->set.nat_keepalive_seconds);
  if (e->cf->role == GOSTX_IKE_RESPONDER && (e->nat_local || e->nat_peer))
    say("NAT detection: %s%s%s", e->nat_local ? "a NAT in front of us" : "",
        e->nat_local && e->nat_peer ? ", " : "", e->nat_peer ? "a NAT in front of the peer" : "");
  const int follow = from->encap && e->nat_peer && (!e->nat_local || k->set.any_source);
  k->dp.peer_set(k->dp.ctx, follow ? &from->addr : &k->set.peer);
  if (follow) gostx__ike_mgr_say_mapping(k, "ESP goes to the peer's NAT mapping", &from->addr);
  k->keepalive_ms = e->nat_local && s ? now + (int64_t)s * 1000 : 0;
  k->keepalive_tx = k->dp.data_sent(k->dp.ctx);
}

/* Behind a NAT: one 0xFF octet (RFC 3948 2.3) to the peer's data port
 * when nothing else went from it for nat_keepalive_seconds (RFC 3948 4:
 * only then), so the NAT keeps our mapping. Worker 0 sends from the data
 * port; the other workers' ports are other mappings. */
void gostx__ike_mgr_keepalive_tick(gostx__ike_mgr *k, int64_t now) {
  if (!k->sa || !k->keepalive_ms || now < k->keepalive_ms) return;
  const uint64_t tx = k->dp.data_sent(k->dp.ctx);
  if (tx == k->keepalive_tx)
    gostx__ike_mgr_keepalive(k, k->sa_to.encap ? &k->sa_to.addr : &k->set.peer);
  k->keepalive_tx = tx;
  k->keepalive_ms = now + (int64_t)seconds_at_most(k->set.nat_keepalive_seconds) * 1000;
}

/* e reached ESTABLISHED: its Child SA into the data path, in place of the
 * one before if any */
static void established(gostx__ike_mgr *k, gostx_ike_engine *e,
                        const gostx__ike_mgr_to *from, int64_t now) {
  const char *role = e->cf->role == GOSTX_IKE_INITIATOR ? "initiator" : "responder";
  char si[17], sr[17];
  spi_hex(e->spi_i, si);
  spi_hex(e->spi_r, sr);
  if (e->cert_note[0]) /* accepted under revocation = warn */
    say("IKE SA with %s (%s): warning: the peer's certificate path: %s", k->set.peer_id_text,
        role, e->cert_note);
  if (!e->child.valid) {
    say("IKE SA with %s (%s) established without a Child SA (%s): nothing installed",
        k->set.peer_id_text, role, notify_name(e->error));
    return;
  }
  if (k->sa ? replace_sa(k, e, now) : install(k, &e->child)) {
    say("IKE SA with %s established but its Child SA could not be installed",
        k->set.peer_id_text);
    gostx_memzero(&e->child, sizeof e->child);
    return;
  }
  k->sa = e;
  k->sa_to = *from;
  k->sa_since_ms = now;
  nat_settle(k, e, from, now);
  k->usage_after_ms = 0;
  next_child_rekey(k, now);
  next_ike_rekey(k, now);
  say("IKE SA with %s established (%s): %s, prf-hmac-streebog-512, %s, SPIs %s %s; Child SA "
      "ESP in 0x%08x out 0x%08x installed",
      k->set.peer_id_text, role, gostx__ike_mgr_encr_name(e->encr),
      group_name(e->group), si, sr, e->child.spi_in, e->child.spi_out);
  show(k, 2, e, now);
  wipe_keys(&e->child);
  if (k->init_on && e != k->init) { /* ours is not needed now */
    gostx__ike_engine_clear(k->init);
    k->init_on = 0;
  }
  k->installed = 1;
}

void gostx__ike_mgr_refused(gostx__ike_mgr *k, const gostx_ike_engine *e) {
  say("IKE SA with %s failed (%s): %s%s%s%s%s: nothing installed", k->set.peer_id_text,
      e->cf->role == GOSTX_IKE_INITIATOR ? "initiator" : "responder", notify_name(e->error),
      e->why ? ": " : "", e->why ? e->why : "", e->cert_note[0] ? ": " : "", e->cert_note);
}

/* Our IKE_SA_INIT answered: what NAT detection found, said once; with a
 * NAT either side (or encap = yes) ours moves to the peer's data port
 * behind the non-ESP marker for IKE_AUTH and after (RFC 7296 2.23). */
static void init_answered(gostx__ike_mgr *k, const gostx_ike_engine *e) {
  const int encap = e->nat_local || e->nat_peer || k->set.encap;
  say("NAT detection: %s%s%s", e->nat_local ? "a NAT in front of us" : "",
      e->nat_local && e->nat_peer ? ", " : "",
      e->nat_peer ? "a NAT in front of the peer" : !e->nat_local ? "no NAT" : "");
  if (!encap || k->init_to.encap) return; /* or there from the start (ike_port) */
  k->init_to.addr = k->set.peer;
  k->init_to.encap = 1;
  say("IKE moves to %s (UDP encapsulation%s)", k->set.peer_text,
      e->nat_local || e->nat_peer ? "" : ", encap = yes");
}

/* A new authenticated message on the installed SA from elsewhere than its
 * peer was: with a NAT in front of the peer and none in front of us (or
 * we are a gateway: any_source), the NAT's mapping changed, and IKE and
 * ESP follow it (RFC 7296 2.23's dynamic update; never from a
 * retransmission, which could be a replay) */
static void peer_moved(gostx__ike_mgr *k, const gostx_ike_engine *e, const gostx__ike_mgr_to *from,
                       int fresh) {
  if (!fresh || !from->encap || !e->nat_peer || (e->nat_local && !k->set.any_source)) return;
  const gostx__ike_mgr_addr *was = &k->sa_to.addr;
  if (gostx__ike_mgr_same_host(&from->addr, was) && from->addr.port == was->port) return;
  gostx__ike_mgr_say_mapping(k, "the peer's NAT mapping moved: IKE and ESP follow to", &from->addr);
  k->sa_to = *from;
  k->dp.peer_set(k->dp.ctx, &from->addr);
  k->shown.remote = k->sa_to.addr;
  k->shown.encap = k->sa_to.encap;
}

/* A datagram into e, its answer out to `from` (ours: to k->init_to). 1
 * when e has FAILED (the caller drops it), else 0. */
int gostx__ike_mgr_feed(gostx__ike_mgr *k, gostx_ike_engine *e, size_t len,
                const gostx__ike_mgr_to *from, int64_t now) {
  const gostx_ike_state before = e->state;
  const uint16_t error = e->error;
  const size_t cookie_len = e->cookie_len;
  const uint32_t peer_req = e->peer_req;
  const uint8_t pend = e->pend;
  size_t n = 0;
  int rc = gostx__ike_input(e, k->in, len, now, k->out, GOSTX_IKE_MSG_MAX, &n);
  if (rc != GOSTX_OK) return 0; /* dropped by the engine: not ours, forged or malformed */
  /* the data path first, then the answer: the peer may seal with the new
   * Child SA as soon as it reads it (a rekey's or IKE_AUTH's responder) */
  if (e == k->sa) {
    peer_moved(k, e, from, e->peer_req != peer_req || e->pend != pend);
    if (e->refused_child) /* the notify is the answer; the log says it here */
      say("a Child SA beside the one installed, asked by %s, refused: NO_ADDITIONAL_SAS (one "
          "Child SA per IKE SA, rekeyed in place)",
          k->set.peer_id_text);
    e->refused_child = 0;
    gostx__ike_mgr_live_events(k, e, now);
    send_to(k, from, n);
    return 0;
  }
  if (e == k->init && before == GOSTX_IKE_S_INIT_SENT && e->state == GOSTX_IKE_S_AUTH_SENT)
    init_answered(k, e);
  if (e == k->init && e->state == GOSTX_IKE_S_INIT_SENT && e->cookie_len != cookie_len)
    say("the peer asks for a COOKIE: IKE_SA_INIT again with it (RFC 7296 2.6)");
  if (e == k->init && e->state == GOSTX_IKE_S_INIT_SENT && e->error && e->error != error)
    say("IKE_SA_INIT answered %s (unprotected: noted, the request goes on until its tries "
        "run out, RFC 7296 2.21.1)", notify_name(e->error));
  const int up = e->state == GOSTX_IKE_S_ESTABLISHED && before != GOSTX_IKE_S_ESTABLISHED;
  /* a responder's inbound SA in before its IKE_AUTH answer goes: the
   * initiator seals with the new SA as soon as it has the answer */
  if (up && e->cf->role == GOSTX_IKE_RESPONDER) established(k, e, from, now);
  send_to(k, e == k->init ? &k->init_to : from, n);
  if (up && e->cf->role == GOSTX_IKE_INITIATOR) established(k, e, from, now);
  if (e->state != GOSTX_IKE_S_FAILED) return 0;
  gostx__ike_mgr_refused(k, e);
  return 1;
}

/* ---- the peers looked up again in the CRLs (k->recheck) ---- */

/* e (k->sa), whose peer's path the CRLs now refuse (why): deleted
 * by INFORMATIONAL (RFC 7296 1.4.1) so the peer learns it, and nothing of
 * it left in the data path at once, not even a quiet spell's stragglers:
 * whatever the peer seals is dropped, nothing is sealed to it. The Delete
 * goes once and its answer is not awaited (the peer is not trusted now);
 * with a request of ours out (window 1) none can go: the peer learns at
 * its next request (INVALID_IKE_SPI) or by its liveness check. */
static void cut_off(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now, const char *why,
                    const char *when) {
  size_t n = 0;
  const int told = gostx__ike_delete(e, GOSTX_IKE_DEL_IKE, now, k->out, GOSTX_IKE_MSG_MAX, &n) ==
                   GOSTX_OK;
  if (told) send_to(k, &k->sa_to, n);
  say("IKE SA with %s deleted: %s (%s); %s, its Child SAs removed", k->set.peer_id_text, why,
      when, told ? "INFORMATIONAL Delete sent" : "no Delete sent (a request of ours is out)");
  k->dp.stop_out(k->dp.ctx);
  const gostx_ike_child *c[3] = {&e->child, &e->old, &e->twin};
  for (int i = 0; i < 3; i++)
    if (c[i]->valid) k->dp.retire_in(k->dp.ctx, c[i]->spi_in);
  for (int i = 0; i < GOSTX_IKE_MGR_RETIRING; i++)
    if (k->retiring[i].spi) k->dp.retire_in(k->dp.ctx, k->retiring[i].spi);
  memset(k->retiring, 0, sizeof k->retiring);
  k->switch_spi = 0;
  forget_sa(k, e, now);
}

/* e's peer looked up again: kept (a warning when without a status under
 * WARN), or deleted: the installed SA cut off, another (established
 * without a Child SA, nothing in the data path) forgotten. */
static void recheck_one(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now, const char *when) {
  char note[GOSTX_IKE_NOTE_MAX], why[GOSTX_IKE_NOTE_MAX + 96];
  const gostx_x509_status st = gostx__ike_peer_recheck(e, now / 1000, note);
  if (st == GOSTX_X509_OK) {
    if (note[0])
      say("IKE SA with %s: warning: the peer's certificate path (%s): %s", k->set.peer_id_text,
          when, note);
    return;
  }
  /* as a refusal says it: "revocation: certificate revoked: depth 0, ...";
   * a note without a status names the status itself */
  const char *name = gostx_x509_status_name(st);
  if (!note[0]) snprintf(why, sizeof why, "%s", name);
  else if (strstr(note, name)) snprintf(why, sizeof why, "%s", note);
  else snprintf(why, sizeof why, "%s: %s", name, note);
  if (e == k->sa) {
    cut_off(k, e, now, why, when);
    return;
  }
  say("IKE SA with %s (no Child SA installed) dropped: %s (%s)", k->set.peer_id_text, why, when);
  gostx__ike_mgr_let_go(k, e);
}

void gostx__ike_mgr_recheck(gostx__ike_mgr *k, int64_t now) {
  const char *when = k->recheck & GOSTX_IKE_MGR_RECHECK_CRLS ? "new CRLs" : "the IKE SA rekeyed";
  k->recheck = 0;
  if (k->set.auth != GOSTX_IKE_MGR_AUTH_SIGNATURE ||
      k->set.revocation == GOSTX_IKE_MGR_REVOCATION_OFF)
    return;
  gostx_ike_engine *const installed = k->sa; /* looked at once, first */
  if (installed) recheck_one(k, installed, now, when);
  if (k->init_on && k->init != installed && k->init->state == GOSTX_IKE_S_ESTABLISHED)
    recheck_one(k, k->init, now, when);
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++)
    if (k->resp[i].used && k->resp[i].e != installed &&
        k->resp[i].e->state == GOSTX_IKE_S_ESTABLISHED)
      recheck_one(k, k->resp[i].e, now, when);
}
