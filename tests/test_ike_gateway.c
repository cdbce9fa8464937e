/* The IKE manager (lib/ike/manager.c) as a gateway sees it: managers hand
 * each other their datagrams in-process, no sockets. The cookie gate
 * (RFC 7296 2.6) counts half-open SAs per source address: a flood of
 * IKE_SA_INITs from one source gets COOKIEs once two of its SAs are
 * half-open, while a peer at another address is answered at once and
 * establishes with no COOKIE asked of it; once half the table is
 * half-open, every source is asked. A responder's engine lives on the
 * heap while its slot is taken, and half-open SAs give theirs back when
 * they expire. 200 remote users behind one NAT, a manager each as the
 * gateway runs them: an established idle user costs the gateway at most
 * 16 KiB (issue 81), counted by lib/ike's allocator and by the heap, a
 * retransmitted request is answered again once the exchange buffers are
 * gone, and all of it comes back when the users leave. A
 * remote-access gateway takes IDs by pattern and hands out the address its
 * caller gives (CP), which the user's manager shows; an ID of no pattern
 * is refused, its ID said; a user of a PSK of its own authenticates by it.
 * A site's TSi is narrowed to its prefixes (peer_ts). A gateway bound to
 * 0.0.0.0 hashes, for NAT detection, the address each datagram came to
 * (as its caller tells it) and answers from it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ike/engine.h"
#include "ike/manager.h"
#include "ike/mgr_int.h" /* the manager's size, printed */
#include "ike_mgr_dp.h"
#include "testutil.h"

static const uint16_t encr[] = {GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE};
static const char psk[] = "a PSK for the gateway test, 40 bytes lon";

static gostx__ike_mgr_addr ip4(uint8_t last, uint16_t port) {
  gostx__ike_mgr_addr a = {{10, 0, 0, last}, 4, port};
  return a;
}

static void side(gostx__ike_mgr_settings *s, const char *id, const char *peer_id,
                 gostx__ike_mgr_addr me, gostx__ike_mgr_addr peer, int initiate) {
  memset(s, 0, sizeof *s);
  s->encr = encr;
  s->n_encr = 1;
  s->group = 33;
  s->auth = GOSTX_IKE_MGR_AUTH_PSK;
  s->psk = (const uint8_t *)psk;
  s->psk_len = sizeof psk - 1;
  s->id_type = s->peer_id_type = GOSTX_IKE_ID_FQDN;
  s->id = (const uint8_t *)id;
  s->id_len = strlen(id);
  s->peer_id = (const uint8_t *)peer_id;
  s->peer_id_len = strlen(peer_id);
  s->peer_id_text = peer_id;
  s->peer_text = peer_id;
  s->local = s->data_local = me;
  s->peer = peer;
  s->initiate = initiate;
}

static gostx__ike_mgr_event ev;

/* What a SEND is: 1 a COOKIE asked (N(COOKIE) first, RFC 7296 2.6), 0
 * anything else. */
static int is_cookie(const uint8_t *m, size_t n) {
  return n >= 36 && m[16] == GOSTX_IKE_PT_NOTIFY && m[34] == (GOSTX_IKE_N_COOKIE >> 8) &&
         m[35] == (GOSTX_IKE_N_COOKIE & 0xff);
}

/* The gateway's answers to one datagram from `from`: counted as COOKIEs
 * and others; the others go to peer (NULL: dropped). */
static void to_gateway(gostx__ike_mgr *gw, const uint8_t *msg, size_t len,
                       gostx__ike_mgr_addr from, int64_t now, unsigned *cookies, unsigned *other,
                       gostx__ike_mgr *peer) {
  gostx__ike_mgr_to f = {.addr = from, .encap = 0};
  gostx__ike_mgr_input(gw, msg, len, &f, now);
  static uint8_t keep[GOSTX_IKE_MGR_MSG_MAX];
  while (gostx__ike_mgr_next(gw, &ev)) {
    if (ev.type != GOSTX_IKE_MGR_SEND) continue;
    CHECK(ev.to.addr.ip_len == from.ip_len && !memcmp(ev.to.addr.ip, from.ip, from.ip_len),
          "the gateway answers where the request came from");
    if (is_cookie(ev.data, ev.len)) {
      ++*cookies;
    } else {
      ++*other;
      if (peer) {
        size_t n = ev.len;
        memcpy(keep, ev.data, n);
        gostx__ike_mgr_to back = {.addr = ip4(1, 500), .encap = 0};
        gostx__ike_mgr_input(peer, keep, n, &back, now);
      }
    }
  }
}

/* y's request (its IKE_SA_INIT) into gw from y_at, and the exchanges
 * pumped between the two until y's queue runs dry; both established on
 * the same IKE SA checked. The COOKIEs gw asked of y. */
static unsigned establish(gostx__ike_mgr *gw, gostx__ike_mgr *y, const uint8_t *request,
                          size_t len, gostx__ike_mgr_addr y_at, int64_t now) {
  unsigned cookies = 0, answers = 0;
  to_gateway(gw, request, len, y_at, now, &cookies, &answers, y);
  for (int round = 0; round < 8; round++) {
    int sent = 0;
    static uint8_t m[GOSTX_IKE_MGR_MSG_MAX];
    while (gostx__ike_mgr_next(y, &ev)) {
      if (ev.type != GOSTX_IKE_MGR_SEND) continue;
      size_t n = ev.len;
      memcpy(m, ev.data, n);
      to_gateway(gw, m, n, y_at, now, &cookies, &answers, y);
      sent = 1;
    }
    if (!sent) break;
  }
  gostx__ike_mgr_shown sg, sy;
  gostx__ike_mgr_shown_get(gw, &sg);
  gostx__ike_mgr_shown_get(y, &sy);
  CHECK(sg.state == 2 && sy.state == 2 && !memcmp(sg.spi_i, sy.spi_i, 8),
        "y and the gateway established the same IKE SA (states %d, %d)", sg.state, sy.state);
  return cookies;
}

/* The first IKE_SA_INIT y sends when its clock turns. */
static size_t first_request(gostx__ike_mgr *y, int64_t now, uint8_t *out) {
  size_t len = 0;
  gostx__ike_mgr_tick(y, now);
  while (gostx__ike_mgr_next(y, &ev))
    if (ev.type == GOSTX_IKE_MGR_SEND && !len) memcpy(out, ev.data, len = ev.len);
  CHECK(len > 28, "y sends its IKE_SA_INIT");
  return len;
}

/* A remote-access gateway: no peer_id, IDs taken by pattern, addresses
 * given by the caller's assign. */
static uint8_t assigned_id[64];
static size_t assigned_len;
static int assign_calls;
static int assign(void *ctx, uint8_t type, const uint8_t *id, size_t len, uint8_t ip[4],
                  uint8_t dns[2][4], size_t *n_dns) {
  (void)ctx;
  assign_calls++;
  CHECK(type == GOSTX_IKE_ID_FQDN && len < sizeof assigned_id, "assign: the peer's FQDN ID");
  memcpy(assigned_id, id, assigned_len = len < sizeof assigned_id ? len : 0);
  static const uint8_t a[4] = {10, 200, 0, 7}, d[4] = {10, 99, 0, 53};
  memcpy(ip, a, 4);
  memcpy(dns[0], d, 4);
  *n_dns = 1;
  return 0;
}

/* One datagram pumped from one manager to the other and back until both
 * are quiet; the log lines of gw that hold `want` counted into *said. */
static void pump(gostx__ike_mgr *gw, gostx__ike_mgr *y, gostx__ike_mgr_addr y_at, int64_t now,
                 const char *want, int *said) {
  static uint8_t m[GOSTX_IKE_MGR_MSG_MAX];
  for (int round = 0; round < 16; round++) {
    int moved = 0;
    while (gostx__ike_mgr_next(y, &ev))
      if (ev.type == GOSTX_IKE_MGR_SEND) {
        size_t n = ev.len;
        memcpy(m, ev.data, n);
        gostx__ike_mgr_to f = {.addr = y_at, .encap = 0};
        gostx__ike_mgr_input(gw, m, n, &f, now);
        moved = 1;
      }
    while (gostx__ike_mgr_next(gw, &ev)) {
      if (ev.type == GOSTX_IKE_MGR_LOG && strstr((const char *)ev.data, want)) ++*said;
      if (ev.type != GOSTX_IKE_MGR_SEND) continue;
      size_t n = ev.len;
      memcpy(m, ev.data, n);
      gostx__ike_mgr_to back = {.addr = ip4(1, 500), .encap = 0};
      gostx__ike_mgr_input(y, m, n, &back, now);
      moved = 1;
    }
    if (!moved) break;
  }
}

/* a user's own PSK: the test's PSK for "kiosk.example.ru" */
static int peer_psk(void *ctx, uint8_t type, const uint8_t *id, size_t len, const uint8_t **k,
                    size_t *k_len) {
  (void)ctx;
  if (type != GOSTX_IKE_ID_FQDN || len != 16 || memcmp(id, "kiosk.example.ru", 16)) return -1;
  *k = (const uint8_t *)psk;
  *k_len = sizeof psk - 1;
  return 0;
}

static void remote_access(int64_t now) {
  static const char *const patterns[] = {"*.users.example.ru", "admin@example.ru"};
  const gostx__ike_mgr_addr gw_at = ip4(1, 500), y_at = ip4(3, 500), z_at = ip4(4, 500);
  gostx__ike_mgr_settings gs, ys, zs;
  side(&gs, "gw.example.ru", "", gw_at, y_at, 0);
  gs.peer_id = NULL, gs.peer_id_len = 0, gs.peer_id_type = 0;
  gs.peer_patterns = patterns;
  gs.n_peer_patterns = 2;
  gs.assign = assign;
  gs.any_source = 1; /* y and z from their own addresses */
  side(&ys, "anna.users.example.ru", "gw.example.ru", y_at, gw_at, 1);
  ys.cp_request = 1;
  side(&zs, "eve.example.ru", "gw.example.ru", z_at, gw_at, 1);
  zs.cp_request = 1;
  gostx__ike_mgr *gw = gostx__ike_mgr_new(&gs, &ike_null_dp),
                 *y = gostx__ike_mgr_new(&ys, &ike_null_dp);
  int said = 0;
  gostx__ike_mgr_tick(y, now);
  pump(gw, y, y_at, now, "", &said);
  gostx__ike_mgr_shown sg, sy;
  gostx__ike_mgr_shown_get(gw, &sg);
  gostx__ike_mgr_shown_get(y, &sy);
  static const uint8_t want[4] = {10, 200, 0, 7};
  CHECK(sg.state == 2 && sy.state == 2, "a user of the pattern established (%d, %d)", sg.state,
        sy.state);
  CHECK(assign_calls == 1 && assigned_len == 21 &&
            !memcmp(assigned_id, "anna.users.example.ru", 21),
        "its address asked once for its ID (%d calls)", assign_calls);
  CHECK(sy.inner_ip_len == 4 && !memcmp(sy.inner_ip, want, 4) && sg.inner_ip_len == 4 &&
            !memcmp(sg.inner_ip, want, 4),
        "the user holds the address given, the gateway shows it");
  gostx__ike_mgr_free(gw);
  gostx__ike_mgr_free(y);
  /* an ID outside the patterns: refused, said with the ID, nothing assigned */
  gw = gostx__ike_mgr_new(&gs, &ike_null_dp);
  gostx__ike_mgr *z = gostx__ike_mgr_new(&zs, &ike_null_dp);
  said = 0;
  gostx__ike_mgr_tick(z, now);
  pump(gw, z, z_at, now, "its ID eve.example.ru matches no remote_id pattern", &said);
  gostx__ike_mgr_shown_get(gw, &sg);
  gostx__ike_mgr_shown_get(z, &sy);
  CHECK(sg.state != 2 && sy.state != 2 && said == 1 && assign_calls == 1,
        "an ID of no pattern refused and said (%d, %d, said %d)", sg.state, sy.state, said);
  gostx__ike_mgr_free(gw);
  gostx__ike_mgr_free(z);
  /* a user of a PSK of its own: the gateway's conf holds another PSK, the
   * user's is found by its ID */
  static const char other[] = "not the kiosk's PSK, 40 bytes long......";
  gs.psk = (const uint8_t *)other;
  gs.psk_len = sizeof other - 1;
  gs.peer_psk = peer_psk;
  side(&zs, "kiosk.example.ru", "gw.example.ru", z_at, gw_at, 1);
  zs.cp_request = 1;
  gw = gostx__ike_mgr_new(&gs, &ike_null_dp);
  z = gostx__ike_mgr_new(&zs, &ike_null_dp);
  gostx__ike_mgr_tick(z, now);
  pump(gw, z, z_at, now, "", &said);
  gostx__ike_mgr_shown_get(gw, &sg);
  gostx__ike_mgr_shown_get(z, &sy);
  CHECK(sg.state == 2 && sy.state == 2 && assign_calls == 2,
        "a user of its own PSK established (%d, %d)", sg.state, sy.state);
  gostx__ike_mgr_free(gw);
  gostx__ike_mgr_free(z);
}

/* A gateway's IKEv2 site (peer_ts: its remote_ts): the site proposes
 * every IPv4 address both ways, the gateway narrows TSi to the site's
 * prefixes and takes TSr as asked; both sides install the same. */
static void site(int64_t now) {
  static const gostx__ike_mgr_prefix ts[2] = {{{10, 4, 0, 0}, 4, 16},
                                              {{192, 168, 7, 128}, 4, 25}};
  const gostx__ike_mgr_addr gw_at = ip4(1, 500), s_at = ip4(5, 500);
  gostx__ike_mgr_settings gs, ss;
  side(&gs, "gw.example.ru", "s4.example.ru", gw_at, s_at, 0);
  gs.peer_ts = ts;
  gs.n_peer_ts = 2;
  side(&ss, "s4.example.ru", "gw.example.ru", s_at, gw_at, 1);
  gostx__ike_mgr *gw = gostx__ike_mgr_new(&gs, &ike_null_dp),
                 *y = gostx__ike_mgr_new(&ss, &ike_null_dp);
  int said = 0;
  gostx__ike_mgr_tick(y, now);
  pump(gw, y, s_at, now, "", &said);
  CHECK(gw->sa && y->sa, "the site established");
  static const uint8_t start[2][4] = {{10, 4, 0, 0}, {192, 168, 7, 128}},
                       end[2][4] = {{10, 4, 255, 255}, {192, 168, 7, 255}};
  for (int k = 0; gw->sa && y->sa && k < 2; k++) {
    const gostx_ike_ts_set *tsi = k ? &y->sa->ts_i : &gw->sa->ts_i;
    const gostx_ike_ts_set *tsr = k ? &y->sa->ts_r : &gw->sa->ts_r;
    CHECK(tsi->n == 2 && !memcmp(tsi->ts[0].start, start[0], 4) &&
              !memcmp(tsi->ts[0].end, end[0], 4) && !memcmp(tsi->ts[1].start, start[1], 4) &&
              !memcmp(tsi->ts[1].end, end[1], 4) && tsi->ts[0].end_port == 65535,
          "%s: TSi narrowed to the site's prefixes (%zu)", k ? "the site" : "the gateway",
          tsi->n);
    CHECK(tsr->n >= 1 && tsr->ts[0].type == GOSTX_IKE_TS_IPV4 && tsr->ts[0].start[0] == 0 &&
              tsr->ts[0].end[0] == 255,
          "%s: TSr as the site asked", k ? "the site" : "the gateway");
  }
  gostx__ike_mgr_free(gw);
  gostx__ike_mgr_free(y);
}

/* ---- many remote users, a manager each (cli/tunnel/ike/ike_gateway.c's
 * way): what an established idle user costs the gateway ---- */

enum { USERS = 200, PEER_BUDGET = 16 * 1024 }; /* issue 81: 16 KiB per established peer */

/* user i's inner address: 10.200.i/256.i%256 */
static int assign_many(void *ctx, uint8_t type, const uint8_t *id, size_t len, uint8_t ip[4],
                       uint8_t dns[2][4], size_t *n_dns) {
  const size_t i = (size_t)(uintptr_t)ctx;
  (void)type, (void)id, (void)len, (void)dns;
  ip[0] = 10, ip[1] = 200, ip[2] = (uint8_t)(i >> 8), ip[3] = (uint8_t)i;
  *n_dns = 0;
  return 0;
}

/* All of y's datagrams into gw, gw's answers (each copied: several may
 * be one request's retransmissions) into out: their count. */
static size_t answers(gostx__ike_mgr *gw, gostx__ike_mgr *y, gostx__ike_mgr_addr y_at, int64_t now,
                      uint8_t out[][GOSTX_IKE_MGR_MSG_MAX], size_t *out_len, size_t max) {
  static uint8_t m[GOSTX_IKE_MGR_MSG_MAX];
  size_t n = 0;
  while (gostx__ike_mgr_next(y, &ev))
    if (ev.type == GOSTX_IKE_MGR_SEND) {
      memcpy(m, ev.data, ev.len);
      const size_t len = ev.len;
      for (int copy = 0; copy < 2; copy++) { /* the request, then its retransmission */
        gostx__ike_mgr_to f = {.addr = y_at, .encap = 0};
        gostx__ike_mgr_input(gw, m, len, &f, now);
        while (gostx__ike_mgr_next(gw, &ev))
          if (ev.type == GOSTX_IKE_MGR_SEND && n < max) {
            memcpy(out[n], ev.data, ev.len);
            out_len[n++] = ev.len;
          }
      }
    }
  return n;
}

/* Once established and idle (its exchange buffers given back), a user's
 * liveness check sent twice (a lost answer's retransmission) is answered
 * both times, the same octets (RFC 7296 2.1: the answer kept for it),
 * and y takes the answer. */
static void retransmitted(gostx__ike_mgr *gw, gostx__ike_mgr *y, gostx__ike_mgr_addr y_at,
                          int64_t now) {
  static uint8_t got[4][GOSTX_IKE_MGR_MSG_MAX];
  size_t len[4];
  gostx__ike_mgr_tick(y, now); /* past its dpd_seconds: an empty INFORMATIONAL */
  const size_t n = answers(gw, y, y_at, now, got, len, 4);
  CHECK(n == 2 && len[0] == len[1] && !memcmp(got[0], got[1], len[0]),
        "a retransmitted request answered again, the same answer (%zu answers)", n);
  gostx__ike_mgr_to back = {.addr = ip4(1, 500), .encap = 0};
  gostx__ike_mgr_input(y, got[0], len[0], &back, now);
  gostx__ike_mgr_shown sy;
  gostx__ike_mgr_shown_get(y, &sy);
  CHECK(sy.state == 2, "the user took the answer, its IKE SA up");
}

/* USERS users behind one NAT (one address, a port each), each brought to
 * established with its own manager on the gateway, then gone without a
 * word: the gateway's memory per established idle user, as lib/ike's
 * allocator counts it (the managers, engines and buffers) and as the
 * process's heap does (glibc: everything, the allocator's overhead
 * included), at most PEER_BUDGET; the gateway's liveness checks find them
 * gone, and once their managers are freed the memory is back where it was. */
static void many_users(int64_t now) {
  static const char *const patterns[] = {"*.users.example.ru"};
  static gostx__ike_mgr_settings gs[USERS];
  static gostx__ike_mgr *gw[USERS];
  static char name[USERS][40];
  const gostx__ike_mgr_addr gw_at = ip4(1, 500);
  const int counted = t_heap_counted();
  const size_t lib0 = gostx__ike_heap_bytes(), heap0 = t_heap_used();
  size_t up = 0;
  for (size_t i = 0; i < USERS; i++) {
    const gostx__ike_mgr_addr y_at = ip4(200, (uint16_t)(10000 + i));
    snprintf(name[i], sizeof name[i], "u%zu.users.example.ru", i);
    side(&gs[i], "gw.example.ru", "", gw_at, y_at, 0);
    gs[i].peer_id = NULL, gs[i].peer_id_len = 0, gs[i].peer_id_type = 0;
    gs[i].peer_patterns = patterns;
    gs[i].n_peer_patterns = 1;
    gs[i].assign = assign_many;
    gs[i].assign_ctx = (void *)(uintptr_t)i;
    gs[i].any_source = 1;
    gs[i].dpd_seconds = 10;
    gostx__ike_mgr_settings ys;
    side(&ys, name[i], "gw.example.ru", y_at, gw_at, 1);
    ys.cp_request = 1;
    ys.dpd_seconds = 10;
    gw[i] = gostx__ike_mgr_new(&gs[i], &ike_null_dp);
    gostx__ike_mgr *y = gostx__ike_mgr_new(&ys, &ike_null_dp);
    if (!gw[i] || !y) abort();
    int said = 0;
    gostx__ike_mgr_tick(y, now);
    pump(gw[i], y, y_at, now, "", &said);
    gostx__ike_mgr_shown sg, sy;
    gostx__ike_mgr_shown_get(gw[i], &sg);
    gostx__ike_mgr_shown_get(y, &sy);
    up += sg.state == 2 && sy.state == 2 && sy.inner_ip_len == 4 && sy.inner_ip[3] == (uint8_t)i;
    if (i == 0) retransmitted(gw[i], y, y_at, now + 11000);
    gostx__ike_mgr_free(y);
  }
  CHECK(up == USERS, "%zu of %d users established, each with its own address", up, USERS);
  const size_t lib = (gostx__ike_heap_bytes() - lib0) / USERS;
  const size_t heap = counted ? (t_heap_used() - heap0) / USERS : 0;
  printf("# an established idle user: %zu octets held by lib/ike, %zu by the heap%s "
         "(manager %zu, engine %zu)\n",
         lib, heap, counted ? "" : " (not counted here)", sizeof(struct gostx__ike_mgr),
         sizeof(gostx_ike_engine));
  CHECK(lib >= sizeof(struct gostx__ike_mgr) + sizeof(gostx_ike_engine) && lib <= PEER_BUDGET,
        "lib/ike holds %zu octets per established user (its manager and engine at least), at "
        "most %d", lib, PEER_BUDGET);
  if (counted)
    CHECK(heap >= lib && heap <= PEER_BUDGET, "the heap holds %zu octets per established user, "
          "at most %d", heap, PEER_BUDGET);
  /* the users are gone: each IKE SA's liveness check unanswered gives up */
  size_t gone = 0;
  for (int64_t t = now + 1000; t < now + 60000 && gone < USERS; t += 1000)
    for (size_t i = 0; i < USERS; i++) {
      if (!gw[i]) continue;
      gostx__ike_mgr_tick(gw[i], t);
      while (gostx__ike_mgr_next(gw[i], &ev)) {
      }
      gostx__ike_mgr_shown sg;
      gostx__ike_mgr_shown_get(gw[i], &sg);
      if (sg.state != 2) { /* out of the tables (ike_gateway.c's user_free) */
        gostx__ike_mgr_free(gw[i]);
        gw[i] = NULL;
        gone++;
      }
    }
  CHECK(gone == USERS, "%zu of %d users found gone by the liveness checks", gone, USERS);
  for (size_t i = 0; i < USERS; i++) gostx__ike_mgr_free(gw[i]);
  CHECK(gostx__ike_heap_bytes() == lib0, "lib/ike holds nothing of them once they left");
  /* glibc's per-thread cache keeps some freed small chunks, counted as
   * in use: one user's worth of slack, against USERS users' memory */
  const size_t slack = PEER_BUDGET;
  if (counted)
    CHECK(t_heap_used() <= heap0 + slack, "the heap back to where it was (%zu octets over)",
          t_heap_used() > heap0 ? t_heap_used() - heap0 : 0);
}

/* ---- the cookie gate over all users (gostx__ike_mgr_gate), as
 * ike_gateway.c's receive puts it in front of the users' managers ---- */

enum { GATE_SLOTS = 8 }; /* COOKIEs for all once 4 are half-open */
static gostx__ike_mgr *slot[GATE_SLOTS];
static gostx__ike_mgr_addr slot_at[GATE_SLOTS];
static gostx__ike_mgr_settings slot_set[GATE_SLOTS];

/* An IKE_SA_INIT request of a new IKE SA from `from`: 1 a COOKIE answered
 * (into *cookie), 0 a user's manager made for it (its answers drained,
 * into peer when not NULL). The half-open users counted as the gateway's
 * slots stand. */
static int gate_in(gostx__ike_mgr_gate *g, const uint8_t *msg, size_t len,
                   gostx__ike_mgr_addr from, int64_t now, gostx__ike_mgr *peer) {
  size_t open = 0, mine = 0;
  for (int i = 0; i < GATE_SLOTS; i++) {
    gostx__ike_mgr_shown sh;
    if (!slot[i]) continue;
    gostx__ike_mgr_shown_get(slot[i], &sh);
    if (sh.state == 2) continue;
    open++;
    mine += slot_at[i].ip_len == from.ip_len && !memcmp(slot_at[i].ip, from.ip, from.ip_len);
  }
  const gostx__ike_mgr_to f = {.addr = from, .encap = 0};
  const int rc = gostx__ike_mgr_gate_check(g, msg, len, &f, open, mine, &ev);
  if (rc == GOSTX_IKE_MGR_GATE_COOKIE) {
    CHECK(is_cookie(ev.data, ev.len) && ev.to.addr.port == from.port, "a COOKIE, back to it");
    if (peer) {
      static uint8_t m[GOSTX_IKE_MGR_MSG_MAX];
      const size_t n = ev.len;
      memcpy(m, ev.data, n);
      gostx__ike_mgr_to back = {.addr = ip4(1, 500), .encap = 0};
      gostx__ike_mgr_input(peer, m, n, &back, now);
    }
    return 1;
  }
  CHECK(rc == GOSTX_IKE_MGR_GATE_GO, "a readable request goes on (%d)", rc);
  int i = 0;
  while (i < GATE_SLOTS && slot[i]) i++;
  if (i == GATE_SLOTS) abort();
  side(&slot_set[i], "gw.example.ru", "y.example.ru", ip4(1, 500), from, 0);
  slot_set[i].any_source = 1;
  slot[i] = gostx__ike_mgr_new(&slot_set[i], &ike_null_dp);
  slot_at[i] = from;
  unsigned c = 0, o = 0;
  to_gateway(slot[i], msg, len, from, now, &c, &o, peer);
  CHECK(c == 0 && o == 1, "the user's own manager answers it (%u COOKIEs, %u answers)", c, o);
  return 0;
}

/* A flood of IKE_SA_INITs from forged sources: each manager's own gate sees
 * one source and would let every one in; the gateway's asks a COOKIE of
 * a source's third (two half-open from it) and of every source once half
 * the slots are half-open, nothing kept for them. y, a real user, is then
 * asked one too, comes back with it and establishes. */
static void gateway_gate(int64_t now) {
  gostx__ike_mgr_gate *g = gostx__ike_mgr_gate_new(GATE_SLOTS / 2);
  CHECK(g != NULL, "a gate");
  if (!g) return;
  gostx__ike_mgr_settings cs;
  const gostx__ike_mgr_addr y_at = ip4(77, 500);
  side(&cs, "y.example.ru", "gw.example.ru", y_at, ip4(1, 500), 1);
  gostx__ike_mgr *y = gostx__ike_mgr_new(&cs, &ike_null_dp);
  static uint8_t init[GOSTX_IKE_MGR_MSG_MAX], copy[GOSTX_IKE_MGR_MSG_MAX];
  const size_t len = first_request(y, now, init);
  int cookies = 0;
  for (uint8_t i = 0; i < 3; i++) { /* one source, three IKE SAs (ports apart) */
    memcpy(copy, init, len);
    copy[0] ^= (uint8_t)(0x40 | i); /* a new SPIi */
    cookies += gate_in(g, copy, len, ip4(60, (uint16_t)(1000 + i)), now, NULL);
  }
  CHECK(cookies == 1, "one source: 2 users kept, then a COOKIE (%d COOKIEs)", cookies);
  cookies = 0;
  for (uint8_t i = 0; i < 6; i++) { /* forged sources, one each */
    memcpy(copy, init, len);
    copy[1] ^= (uint8_t)(0x40 | i);
    cookies += gate_in(g, copy, len, ip4((uint8_t)(100 + i), 500), now, NULL);
  }
  CHECK(cookies == 4, "6 sources: 2 kept (4 half-open in all), then COOKIEs (%d)", cookies);
  CHECK(gate_in(g, init, len, y_at, now, y) == 1, "y asked a COOKIE too");
  /* y's IKE_SA_INIT again, its COOKIE first: past the gate, then the rest */
  static uint8_t again[GOSTX_IKE_MGR_MSG_MAX];
  size_t again_len = 0;
  while (gostx__ike_mgr_next(y, &ev))
    if (ev.type == GOSTX_IKE_MGR_SEND && !again_len) memcpy(again, ev.data, again_len = ev.len);
  CHECK(again_len > 0 && again[16] == GOSTX_IKE_PT_NOTIFY, "y came back with its COOKIE");
  CHECK(gate_in(g, again, again_len, y_at, now, y) == 0, "y's COOKIE taken by the gate");
  int i = 0;
  while (i < GATE_SLOTS && !(slot[i] && slot_at[i].ip[3] == 77)) i++;
  if (i < GATE_SLOTS) {
    int said = 0;
    pump(slot[i], y, y_at, now, "", &said);
    gostx__ike_mgr_shown sg, sy;
    gostx__ike_mgr_shown_get(slot[i], &sg);
    gostx__ike_mgr_shown_get(y, &sy);
    CHECK(sg.state == 2 && sy.state == 2, "y established past the flood (%d, %d)", sg.state,
          sy.state);
  }
  CHECK(i < GATE_SLOTS, "y has a manager");
  static const uint8_t junk[40];
  const gostx__ike_mgr_to f = {.addr = y_at, .encap = 0};
  CHECK(gostx__ike_mgr_gate_check(g, junk, sizeof junk, &f, 0, 0, &ev) == GOSTX_IKE_MGR_GATE_DROP,
        "no IKE_SA_INIT request: dropped");
  for (int k = 0; k < GATE_SLOTS; k++) {
    gostx__ike_mgr_free(slot[k]);
    slot[k] = NULL;
  }
  gostx__ike_mgr_free(y);
  gostx__ike_mgr_gate_free(g);
}

/* ---- the keys a gateway's table holds of a manager, and who moves them ---- */

static gostx__ike_mgr_addr peer_said; /* the last dp.peer_set */
static int peer_sets;
static void note_peer(void *ctx, const gostx__ike_mgr_addr *to) {
  (void)ctx;
  peer_said = *to;
  peer_sets++;
}

/* datagrams from y (at y_at, on the data port) into gw and back until
 * both are quiet; y's IKE requests kept in req (the last) */
static uint8_t req[GOSTX_IKE_MGR_MSG_MAX];
static size_t req_len;
static void pump_encap(gostx__ike_mgr *gw, gostx__ike_mgr *y, gostx__ike_mgr_addr y_at,
                       int64_t now) {
  static uint8_t m[GOSTX_IKE_MGR_MSG_MAX];
  for (int round = 0; round < 16; round++) {
    int moved = 0;
    while (gostx__ike_mgr_next(y, &ev))
      if (ev.type == GOSTX_IKE_MGR_SEND) {
        memcpy(m, ev.data, ev.len);
        if (!(m[19] & 0x20)) memcpy(req, m, req_len = ev.len);
        gostx__ike_mgr_to f = {.addr = y_at, .encap = 1};
        gostx__ike_mgr_input(gw, m, ev.len, &f, now);
        moved = 1;
      }
    while (gostx__ike_mgr_next(gw, &ev))
      if (ev.type == GOSTX_IKE_MGR_SEND) {
        memcpy(m, ev.data, ev.len);
        gostx__ike_mgr_to back = {.addr = ip4(1, 4500), .encap = 1};
        gostx__ike_mgr_input(y, m, ev.len, &back, now);
        moved = 1;
      }
    if (!moved) break;
  }
}

static int same_at(const gostx__ike_mgr_addr *a, const gostx__ike_mgr_addr *b) {
  return a->port == b->port && a->ip_len == b->ip_len && !memcmp(a->ip, b->ip, a->ip_len);
}

/* The keys gostx__ike_mgr_sas lists as a user's handshake goes (a
 * half-open SA, then the installed one under the same SPIs), and the
 * source they name: a NAT in front of y (y's encap = yes), whose mapping
 * moves. A copy of y's request from another port, changed (its ICV
 * fails) or not (a retransmission: a replay), moves nothing: not the
 * key's source, not where ESP goes (dp.peer_set), not shown.remote; y's
 * next request from the new port does. */
static void keys_and_moves(int64_t now) {
  const gostx__ike_mgr_addr gw_at = ip4(1, 4500), y_at = ip4(6, 4500), moved = ip4(6, 61000),
                            forger = ip4(6, 62000);
  gostx__ike_mgr_settings gs, ys;
  side(&gs, "gw.example.ru", "y.example.ru", gw_at, y_at, 0);
  gs.any_source = 1;
  gs.on_data_port = 1;
  side(&ys, "y.example.ru", "gw.example.ru", y_at, gw_at, 1);
  ys.on_data_port = 1;
  ys.encap = 1; /* the gateway sees a NAT in front of y */
  ys.dpd_seconds = 1;
  gostx__ike_mgr_dp dp = ike_null_dp;
  dp.peer_set = note_peer;
  gostx__ike_mgr *gw = gostx__ike_mgr_new(&gs, &dp), *y = gostx__ike_mgr_new(&ys, &ike_null_dp);
  gostx__ike_mgr_sa_key k[GOSTX_IKE_MGR_SAS_MAX];
  CHECK(gw && y && gostx__ike_mgr_sas(gw, k) == 0, "a fresh manager holds no keys");
  if (!gw || !y) return;
  /* y's IKE_SA_INIT alone: a half-open SA, SPIr chosen */
  gostx__ike_mgr_tick(y, now);
  static const uint8_t zero[8];
  while (gostx__ike_mgr_next(y, &ev))
    if (ev.type == GOSTX_IKE_MGR_SEND) {
      gostx__ike_mgr_to f = {.addr = y_at, .encap = 1};
      gostx__ike_mgr_input(gw, ev.data, ev.len, &f, now);
    }
  size_t n = gostx__ike_mgr_sas(gw, k);
  CHECK(n == 1 && k[0].half_open && same_at(&k[0].src, &y_at) && memcmp(k[0].spi_r, zero, 8),
        "after IKE_SA_INIT: one half-open key from y, its SPIr chosen (%zu keys)", n);
  /* its answer back to y, and on to the end */
  while (gostx__ike_mgr_next(gw, &ev))
    if (ev.type == GOSTX_IKE_MGR_SEND) {
      gostx__ike_mgr_to back = {.addr = gw_at, .encap = 1};
      gostx__ike_mgr_input(y, ev.data, ev.len, &back, now);
    }
  pump_encap(gw, y, y_at, now);
  gostx__ike_mgr_shown sg;
  gostx__ike_mgr_shown_get(gw, &sg);
  n = gostx__ike_mgr_sas(gw, k);
  CHECK(sg.state == 2 && n == 1 && !k[0].half_open && !memcmp(k[0].spi_i, sg.spi_i, 8) &&
            !memcmp(k[0].spi_r, sg.spi_r, 8) && same_at(&k[0].src, &y_at),
        "established: one key, the installed SA's SPIs, from y (%zu keys)", n);
  const int sets = peer_sets;
  /* y's IKE_AUTH request from another port: once changed, once as it was */
  static uint8_t copy[GOSTX_IKE_MGR_MSG_MAX];
  memcpy(copy, req, req_len);
  copy[req_len - 1] ^= 1;
  gostx__ike_mgr_to f = {.addr = forger, .encap = 1};
  gostx__ike_mgr_input(gw, copy, req_len, &f, now + 10);
  gostx__ike_mgr_input(gw, req, req_len, &f, now + 20);
  while (gostx__ike_mgr_next(gw, &ev)) {
  }
  gostx__ike_mgr_shown_get(gw, &sg);
  n = gostx__ike_mgr_sas(gw, k);
  CHECK(n == 1 && same_at(&k[0].src, &y_at) && same_at(&sg.remote, &y_at) && peer_sets == sets,
        "a forged and a replayed request from another port move nothing (%d moves)",
        peer_sets - sets);
  /* y's NAT maps it anew: its liveness check from there moves both */
  gostx__ike_mgr_tick(y, now + 3000);
  pump_encap(gw, y, moved, now + 3000);
  gostx__ike_mgr_shown_get(gw, &sg);
  n = gostx__ike_mgr_sas(gw, k);
  CHECK(n == 1 && same_at(&k[0].src, &moved) && same_at(&sg.remote, &moved) &&
            peer_sets == sets + 1 && same_at(&peer_said, &moved),
        "y's next request from its new mapping: its key, ESP and shown.remote follow (%d moves)",
        peer_sets - sets);
  gostx__ike_mgr_free(gw);
  gostx__ike_mgr_free(y);
}

/* The notify of type `type` in a protected message's inside (plain, pl
 * octets, its first payload `first`): its offset, or 0 when none. */
static size_t notify_at(uint8_t first, const uint8_t *plain, size_t pl, uint16_t type) {
  size_t at = 0;
  for (uint8_t t = first; t && at + 8 <= pl;) {
    const size_t len = (size_t)plain[at + 2] << 8 | plain[at + 3];
    if (len < 4 || at + len > pl) return 0;
    if (t == GOSTX_IKE_PT_NOTIFY && (plain[at + 6] << 8 | plain[at + 7]) == type) return at + 6;
    t = plain[at];
    at += len;
  }
  return 0;
}

/* A Child SA asked beside the installed one (y's rekey request without
 * its REKEY_SA: RFC 7296 1.3.1's new Child SA): the gateway keeps one
 * pair per IKE SA, answers NO_ADDITIONAL_SAS (protected), says so in its
 * log, and its SA and Child SA stand. */
static void child_beside(int64_t now) {
  const gostx__ike_mgr_addr gw_at = ip4(1, 500), y_at = ip4(7, 500);
  gostx__ike_mgr_settings gs, ys;
  side(&gs, "gw.example.ru", "y.example.ru", gw_at, y_at, 0);
  gs.any_source = 1;
  side(&ys, "y.example.ru", "gw.example.ru", y_at, gw_at, 1);
  ys.rekey_seconds = 1;
  gostx__ike_mgr *gw = gostx__ike_mgr_new(&gs, &ike_null_dp),
                 *y = gostx__ike_mgr_new(&ys, &ike_null_dp);
  if (!gw || !y) return;
  int said = 0;
  gostx__ike_mgr_tick(y, now);
  pump(gw, y, y_at, now, "", &said);
  gostx__ike_mgr_shown before, after;
  gostx__ike_mgr_shown_get(gw, &before);
  /* y's rekey request, its REKEY_SA made another status notify */
  gostx__ike_mgr_tick(y, now + 2000);
  static uint8_t m[GOSTX_IKE_MGR_MSG_MAX], plain[GOSTX_IKE_MGR_MSG_MAX];
  size_t len = 0, pl = 0;
  while (gostx__ike_mgr_next(y, &ev))
    if (ev.type == GOSTX_IKE_MGR_SEND && !len) memcpy(m, ev.data, len = ev.len);
  const gostx_ike_engine *e = gw->sa;
  gostx_ike_hdr h;
  uint8_t first;
  uint64_t iv;
  gostx_ike_sk sk;
  size_t at = 0;
  if (before.state == 2 && e && len && m[18] == GOSTX_IKE_CREATE_CHILD_SA &&
      gostx__ike_sk_init(&sk, e->encr, e->k.sk_ei, e->k.enc_len) == GOSTX_OK) {
    if (gostx__ike_sk_open(&sk, m, len, &h, &first, plain, sizeof plain, &pl, &iv) == GOSTX_OK &&
        (at = notify_at(first, plain, pl, GOSTX_IKE_N_REKEY_SA))) {
      plain[at] = 16394 >> 8; /* ESP_TFC_PADDING_NOT_SUPPORTED: a status, not read here */
      plain[at + 1] = 16394 & 0xff;
      (void)gostx__ike_sk_seal(&sk, iv, &h, first, plain, pl, m, sizeof m, &len);
    }
    gostx__ike_sk_clear(&sk);
  }
  CHECK(at, "y's rekey request opened, its REKEY_SA changed");
  gostx__ike_mgr_to f = {.addr = y_at, .encap = 0};
  gostx__ike_mgr_input(gw, m, len, &f, now + 2000);
  size_t refused = 0;
  said = 0;
  while (gostx__ike_mgr_next(gw, &ev)) {
    if (ev.type == GOSTX_IKE_MGR_LOG &&
        strstr((const char *)ev.data, "y.example.ru, refused: NO_ADDITIONAL_SAS"))
      said++;
    if (ev.type != GOSTX_IKE_MGR_SEND || !e) continue;
    if (gostx__ike_sk_init(&sk, e->encr, e->k.sk_er, e->k.enc_len) == GOSTX_OK &&
        gostx__ike_sk_open(&sk, ev.data, ev.len, &h, &first, plain, sizeof plain, &pl, &iv) ==
            GOSTX_OK)
      refused += notify_at(first, plain, pl, GOSTX_IKE_N_NO_ADDITIONAL_SAS) != 0;
    gostx__ike_sk_clear(&sk);
  }
  gostx__ike_mgr_shown_get(gw, &after);
  CHECK(refused == 1 && said == 1 && after.state == 2 && after.child_in == before.child_in &&
            after.child_out == before.child_out,
        "a Child SA beside the installed one: NO_ADDITIONAL_SAS %zu, said %d, the SAs stand",
        refused, said);
  gostx__ike_mgr_free(gw);
  gostx__ike_mgr_free(y);
}

/* A gateway bound to the wildcard (local 0.0.0.0), told where each of
 * y's datagrams came to (from.at: its socket's IP_PKTINFO): its NAT
 * detection hashes that address, so neither side sees a NAT, and every
 * answer goes from it. Told nothing (at unknown), it hashes 0.0.0.0 and
 * takes itself for being behind a NAT, as it did until 2026-11-30. */
static void wildcard_local(int64_t t0, int told) {
  gostx__ike_mgr_settings gs, cs;
  const gostx__ike_mgr_addr any = {{0}, 4, 4500}, gw_at = ip4(1, 4500), y_at = ip4(2, 4500);
  side(&gs, "gw.example.ru", "y.example.ru", any, y_at, 0);
  gs.any_source = gs.on_data_port = 1;
  gs.nat_keepalive_seconds = 1;
  side(&cs, "y.example.ru", "gw.example.ru", y_at, gw_at, 1);
  cs.on_data_port = 1;
  gostx__ike_mgr *gw = gostx__ike_mgr_new(&gs, &ike_null_dp),
                 *y = gostx__ike_mgr_new(&cs, &ike_null_dp);
  CHECK(gw && y, "two managers");
  if (!gw || !y) return;
  static uint8_t m[GOSTX_IKE_MGR_MSG_MAX];
  size_t n = first_request(y, t0, m);
  unsigned sends = 0, from_at = 0, keepalives = 0;
  for (int round = 0; round < 8 && n; round++) {
    gostx__ike_mgr_to f = {.addr = y_at, .encap = 1};
    if (told) f.at = gw_at;
    gostx__ike_mgr_input(gw, m, n, &f, t0);
    n = 0;
    while (gostx__ike_mgr_next(gw, &ev)) {
      if (ev.type != GOSTX_IKE_MGR_SEND) continue;
      sends++;
      from_at += ev.to.at.ip_len == 4 && !memcmp(ev.to.at.ip, gw_at.ip, 4);
      gostx__ike_mgr_to back = {.addr = gw_at, .encap = 1};
      memcpy(m, ev.data, ev.len);
      gostx__ike_mgr_input(y, m, ev.len, &back, t0);
    }
    while (gostx__ike_mgr_next(y, &ev))
      if (ev.type == GOSTX_IKE_MGR_SEND && !n) memcpy(m, ev.data, n = ev.len);
  }
  /* the gateway's clock past two keepalive intervals of a quiet data port */
  for (int64_t t = t0 + 1000; t <= t0 + 3000; t += 1000) {
    gostx__ike_mgr_tick(gw, t);
    while (gostx__ike_mgr_next(gw, &ev)) {
      keepalives += ev.type == GOSTX_IKE_MGR_KEEPALIVE;
      if (ev.type == GOSTX_IKE_MGR_KEEPALIVE)
        from_at += ev.to.at.ip_len == 4 && !memcmp(ev.to.at.ip, gw_at.ip, 4);
    }
  }
  gostx__ike_mgr_shown sg, sy;
  gostx__ike_mgr_shown_get(gw, &sg);
  gostx__ike_mgr_shown_get(y, &sy);
  CHECK(sg.state == 2 && sy.state == 2, "local 0.0.0.0, at %s: established (%d, %d)",
        told ? "told" : "unknown", sg.state, sy.state);
  if (told)
    CHECK(!sg.nat_local && !sg.nat_peer && !sy.nat_local && !sy.nat_peer && !keepalives &&
              sends >= 2 && from_at == sends,
          "local 0.0.0.0, each datagram's destination told: no NAT seen (gateway %d%d, y "
          "%d%d), no keepalive (%u), %u of %u answers from it",
          sg.nat_local, sg.nat_peer, sy.nat_local, sy.nat_peer, keepalives, from_at, sends);
  else
    CHECK(sg.nat_local && sy.nat_peer && keepalives && !from_at,
          "local 0.0.0.0, destination unknown: the wildcard hashed, a NAT taken to be in "
          "front of the gateway (%d), %u keepalives",
          sg.nat_local, keepalives);
  gostx__ike_mgr_free(gw);
  gostx__ike_mgr_free(y);
}

int main(void) {
  const int64_t t0 = 1800000000000; /* Unix ms */
  gostx__ike_mgr_settings gs, cs;
  const gostx__ike_mgr_addr gw_at = ip4(1, 500), y_at = ip4(2, 500), x_at = ip4(9, 500);
  side(&gs, "gw.example.ru", "y.example.ru", gw_at, y_at, 0);
  gs.any_source = 1;
  side(&cs, "y.example.ru", "gw.example.ru", y_at, gw_at, 1);
  gostx__ike_mgr *gw = gostx__ike_mgr_new(&gs, &ike_null_dp),
                 *y = gostx__ike_mgr_new(&cs, &ike_null_dp);
  CHECK(gw && y, "two managers");
  if (!gw || !y) return t_done();

  /* y's IKE_SA_INIT, held back while x floods the gateway with copies of
   * it under new SPIs from x's address */
  static uint8_t init[GOSTX_IKE_MGR_MSG_MAX];
  const size_t init_len = first_request(y, t0, init);
  const size_t idle = gostx__ike_heap_bytes();
  unsigned x_cookies = 0, x_kept = 0;
  for (unsigned i = 0; i < 6; i++) {
    static uint8_t copy[GOSTX_IKE_MGR_MSG_MAX];
    memcpy(copy, init, init_len);
    copy[0] ^= (uint8_t)(0x80 | (i + 1)); /* a new SPIi: a new SA, not a resend */
    to_gateway(gw, copy, init_len, x_at, t0, &x_cookies, &x_kept, NULL);
  }
  CHECK(x_kept == 2 && x_cookies == 4,
        "x's flood: 2 SAs kept, then COOKIEs (%u kept, %u COOKIEs)", x_kept, x_cookies);

  /* y, at another address, is answered at once and establishes */
  CHECK(establish(gw, y, init, init_len, y_at, t0) == 0,
        "no COOKIE asked of y beside x's flood");

  /* the global bound: x's 2 and two more sources' make 4 half-open (half
   * the table); a fifth source is asked for a COOKIE on its first try */
  for (uint8_t z = 20; z < 23; z++) {
    static uint8_t copy[GOSTX_IKE_MGR_MSG_MAX];
    memcpy(copy, init, init_len);
    copy[1] ^= z; /* a new SPIi */
    unsigned c = 0, o = 0;
    to_gateway(gw, copy, init_len, ip4(z, 500), t0, &c, &o, NULL);
    CHECK(z < 22 ? o == 1 && c == 0 : o == 0 && c == 1, "source %u: %s", z,
          z < 22 ? "answered (under half the table half-open)" : "a COOKIE (half the table)");
  }
  /* the half-open SAs dropped after their 30 s, their engines freed at
   * the next turn: what is left is y's SA and y's own engine */
  const size_t busy = gostx__ike_heap_bytes();
  gostx__ike_mgr_tick(gw, t0 + 31000);
  gostx__ike_mgr_tick(gw, t0 + 31001);
  const size_t after = gostx__ike_heap_bytes();
  while (gostx__ike_mgr_next(gw, &ev)) {
  }
  CHECK(after < busy && after <= idle + PEER_BUDGET,
        "the half-open SAs' engines freed (%zu octets held, %zu before they expired)", after,
        busy);
  gostx__ike_mgr_free(gw);
  gostx__ike_mgr_free(y);
  remote_access(t0);
  site(t0);
  many_users(t0);
  gateway_gate(t0);
  keys_and_moves(t0);
  child_beside(t0);
  wildcard_local(t0, 1);
  wildcard_local(t0, 0);
  return t_done();
}
