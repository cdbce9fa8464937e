/* Traffic selectors (RFC 7296 2.9, 3.13.1): what two sets have in common,
 * the responder's narrowing, and whether a packet lies in a set. */
#include <string.h>

#include "engine.h"

static size_t alen_of(const gostx_ike_ts *t) { return t->type == GOSTX_IKE_TS_IPV4 ? 4 : 16; }

static int known(const gostx_ike_ts *t) {
  return t->type == GOSTX_IKE_TS_IPV4 || t->type == GOSTX_IKE_TS_IPV6;
}

static int opaque(const gostx_ike_ts *t) { return t->start_port == 65535 && t->end_port == 0; }
static int any_port(const gostx_ike_ts *t) { return t->start_port == 0 && t->end_port == 65535; }

int gostx__ike_ts_covers(const gostx_ike_ts *a, const gostx_ike_ts *b) {
  const size_t l = alen_of(a);
  return a->type == b->type && (a->ip_proto == 0 || a->ip_proto == b->ip_proto) &&
         a->start_port <= b->start_port && b->end_port <= a->end_port &&
         memcmp(a->start, b->start, l) <= 0 && memcmp(b->end, a->end, l) <= 0;
}

int gostx__ike_ts_intersect(const gostx_ike_ts *a, const gostx_ike_ts *b, gostx_ike_ts *out) {
  if (!known(a) || a->type != b->type) return 0;
  if (a->ip_proto && b->ip_proto && a->ip_proto != b->ip_proto) return 0;
  gostx_ike_ts r;
  memset(&r, 0, sizeof r);
  r.type = a->type;
  r.ip_proto = a->ip_proto ? a->ip_proto : b->ip_proto;
  if (opaque(a) || opaque(b)) {
    /* OPAQUE is inside ANY only (3.13.1) */
    if (!(opaque(a) || any_port(a)) || !(opaque(b) || any_port(b))) return 0;
    r.start_port = 65535;
    r.end_port = 0;
  } else {
    r.start_port = a->start_port > b->start_port ? a->start_port : b->start_port;
    r.end_port = a->end_port < b->end_port ? a->end_port : b->end_port;
    if (r.start_port > r.end_port) return 0;
  }
  const size_t l = alen_of(a);
  memcpy(r.start, memcmp(a->start, b->start, l) >= 0 ? a->start : b->start, l);
  memcpy(r.end, memcmp(a->end, b->end, l) <= 0 ? a->end : b->end, l);
  if (memcmp(r.start, r.end, l) > 0) return 0;
  *out = r;
  return 1;
}

size_t gostx__ike_ts_narrow(const gostx_ike_ts_set *ours, const gostx_ike_ts_set *peer,
                            gostx_ike_ts_set *out) {
  /* every common part first (at most 16 x 16), then the covered ones left out */
  static const size_t most = GOSTX_IKE_MAX_TS * GOSTX_IKE_MAX_TS;
  gostx_ike_ts all[GOSTX_IKE_MAX_TS * GOSTX_IKE_MAX_TS];
  size_t n = 0;
  for (size_t i = 0; i < peer->n && i < GOSTX_IKE_MAX_TS; i++)
    for (size_t j = 0; j < ours->n && j < GOSTX_IKE_MAX_TS && n < most; j++)
      n += (size_t)gostx__ike_ts_intersect(&peer->ts[i], &ours->ts[j], &all[n]);
  out->n = 0; /* only now: out may be ours or peer */
  for (size_t i = 0; i < n && out->n < GOSTX_IKE_MAX_TS; i++) {
    int covered = 0;
    for (size_t j = 0; j < n && !covered; j++) {
      if (j == i || !gostx__ike_ts_covers(&all[j], &all[i])) continue;
      /* of two equal ones the first stays */
      covered = !gostx__ike_ts_covers(&all[i], &all[j]) || j < i;
    }
    if (!covered) out->ts[out->n++] = all[i];
  }
  return out->n;
}

uint16_t gostx__ike_ts_narrow_pair(const gostx_ike_ts_set *ours_i, const gostx_ike_ts_set *ours_r,
                                   const gostx_ike_ts_set *peer_i, const gostx_ike_ts_set *peer_r,
                                   gostx_ike_ts_set *out_i, gostx_ike_ts_set *out_r) {
  const size_t ni = gostx__ike_ts_narrow(ours_i, peer_i, out_i);
  const size_t nr = gostx__ike_ts_narrow(ours_r, peer_r, out_r);
  if (ni && nr) return 0;
  out_i->n = out_r->n = 0;
  return GOSTX_IKE_N_TS_UNACCEPTABLE;
}

static int addr_in(const gostx_ike_ts *t, const uint8_t *addr, size_t alen) {
  return known(t) && alen == alen_of(t) && memcmp(t->start, addr, alen) <= 0 &&
         memcmp(addr, t->end, alen) <= 0;
}

int gostx__ike_ts_has_addr(const gostx_ike_ts_set *s, const uint8_t *addr, size_t alen) {
  for (size_t i = 0; i < s->n; i++)
    if (addr_in(&s->ts[i], addr, alen)) return 1;
  return 0;
}

int gostx__ike_ts_match(const gostx_ike_ts_set *s, const uint8_t *addr, size_t alen,
                        uint8_t proto, uint16_t port) {
  for (size_t i = 0; i < s->n; i++) {
    const gostx_ike_ts *t = &s->ts[i];
    if (!addr_in(t, addr, alen) || (t->ip_proto && t->ip_proto != proto)) continue;
    if (opaque(t) || (t->start_port <= port && port <= t->end_port)) return 1;
  }
  return 0;
}
