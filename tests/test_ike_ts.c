/* Traffic selector narrowing (lib/ike/ts.c, RFC 7296 2.9 and 3.13.1): the
 * common part of two selectors (addresses, ports, protocol; 0 any
 * protocol, 0-65535 any port, 65535-0 OPAQUE), the responder's narrowing
 * with the initiator's first, packet-specific choice kept, TS_UNACCEPTABLE
 * when nothing is left, and the data path's check of an inner source. */
#include <stdio.h>
#include <string.h>

#include "ike/engine.h"
#include "testutil.h"

static gostx_ike_ts v4(const char *from, const char *to, uint8_t proto, uint16_t p0,
                       uint16_t p1) {
  gostx_ike_ts t;
  memset(&t, 0, sizeof t);
  t.type = GOSTX_IKE_TS_IPV4;
  t.ip_proto = proto;
  t.start_port = p0;
  t.end_port = p1;
  unsigned a[4], b[4];
  sscanf(from, "%u.%u.%u.%u", &a[0], &a[1], &a[2], &a[3]);
  sscanf(to, "%u.%u.%u.%u", &b[0], &b[1], &b[2], &b[3]);
  for (int i = 0; i < 4; i++) {
    t.start[i] = (uint8_t)a[i];
    t.end[i] = (uint8_t)b[i];
  }
  return t;
}

static gostx_ike_ts_set set_of(size_t n, const gostx_ike_ts *ts) {
  gostx_ike_ts_set s;
  memset(&s, 0, sizeof s);
  s.n = n;
  memcpy(s.ts, ts, n * sizeof *ts);
  return s;
}

static int same(const gostx_ike_ts *a, const gostx_ike_ts *b) { return !memcmp(a, b, sizeof *a); }

static void intersections(void) {
  gostx_ike_ts r;
  /* ranges partly overlapping: the middle */
  gostx_ike_ts a = v4("10.0.0.0", "10.0.0.200", 0, 0, 65535),
               b = v4("10.0.0.100", "10.0.1.5", 0, 0, 65535);
  CHECK(gostx__ike_ts_intersect(&a, &b, &r), "overlap");
  gostx_ike_ts want = v4("10.0.0.100", "10.0.0.200", 0, 0, 65535);
  CHECK(same(&r, &want), "10.0.0.100-10.0.0.200");
  CHECK(gostx__ike_ts_intersect(&b, &a, &r) && same(&r, &want), "either order");
  /* touching at one address, then apart by one */
  b = v4("10.0.0.200", "10.0.0.250", 0, 0, 65535);
  want = v4("10.0.0.200", "10.0.0.200", 0, 0, 65535);
  CHECK(gostx__ike_ts_intersect(&a, &b, &r) && same(&r, &want), "one address in common");
  b = v4("10.0.0.201", "10.0.0.250", 0, 0, 65535);
  CHECK(!gostx__ike_ts_intersect(&a, &b, &r), "disjoint: nothing");
  /* protocol 0 takes the other's; two protocols share nothing */
  a = v4("0.0.0.0", "255.255.255.255", 0, 0, 65535);
  b = v4("10.0.0.1", "10.0.0.1", 6, 443, 443);
  CHECK(gostx__ike_ts_intersect(&a, &b, &r) && same(&r, &b), "any meets TCP 443: TCP 443");
  gostx_ike_ts c = v4("10.0.0.1", "10.0.0.1", 17, 0, 65535);
  CHECK(!gostx__ike_ts_intersect(&b, &c, &r), "TCP and UDP: nothing");
  /* ports: partial, disjoint */
  a = v4("10.0.0.1", "10.0.0.1", 6, 1000, 2000);
  b = v4("10.0.0.1", "10.0.0.1", 0, 1500, 65535);
  want = v4("10.0.0.1", "10.0.0.1", 6, 1500, 2000);
  CHECK(gostx__ike_ts_intersect(&a, &b, &r) && same(&r, &want), "ports 1500-2000, TCP");
  b.start_port = 2001;
  CHECK(!gostx__ike_ts_intersect(&a, &b, &r), "ports apart: nothing");
  /* OPAQUE within ANY only */
  gostx_ike_ts opq = v4("10.0.0.1", "10.0.0.1", 17, 65535, 0),
               any = v4("10.0.0.0", "10.0.0.255", 0, 0, 65535);
  CHECK(gostx__ike_ts_intersect(&opq, &any, &r) && same(&r, &opq), "OPAQUE and ANY: OPAQUE");
  CHECK(!gostx__ike_ts_intersect(&opq, &a, &r), "OPAQUE and 1000-2000: nothing");
  /* families differ, an unknown type */
  gostx_ike_ts six = any;
  six.type = GOSTX_IKE_TS_IPV6;
  CHECK(!gostx__ike_ts_intersect(&six, &any, &r), "IPv6 and IPv4: nothing");
  six.type = 9;
  CHECK(!gostx__ike_ts_intersect(&six, &six, &r), "an unknown type: nothing (2.9)");
}

/* 2.9's example: the initiator's first selector the packet's
 * (198.51.100.43, TCP, its port), then the whole /24. */
static void narrowing(void) {
  const gostx_ike_ts peer_i[2] = {v4("198.51.100.43", "198.51.100.43", 6, 5000, 5000),
                                  v4("198.51.100.0", "198.51.100.255", 0, 0, 65535)},
                     peer_r[2] = {v4("192.0.2.10", "192.0.2.10", 6, 80, 80),
                                  v4("192.0.2.0", "192.0.2.255", 0, 0, 65535)};
  const gostx_ike_ts_set pi = set_of(2, peer_i), pr = set_of(2, peer_r);
  gostx_ike_ts_set oi, orr;
  /* our policy allows all of it: the same traffic back (the wide ones) */
  gostx_ike_ts all = v4("0.0.0.0", "255.255.255.255", 0, 0, 65535);
  gostx_ike_ts_set every = set_of(1, &all);
  CHECK(gostx__ike_ts_narrow_pair(&every, &every, &pi, &pr, &oi, &orr) == 0, "all allowed");
  CHECK(oi.n == 1 && same(&oi.ts[0], &peer_i[1]) && orr.n == 1 && same(&orr.ts[0], &peer_r[1]),
        "no narrowing: the /24s back, the first choices within them");
  /* ours a /26 holding .43: narrowed to it, the first choice inside */
  gostx_ike_ts q = v4("198.51.100.0", "198.51.100.63", 0, 0, 65535);
  gostx_ike_ts_set quarter = set_of(1, &q);
  CHECK(gostx__ike_ts_narrow_pair(&quarter, &every, &pi, &pr, &oi, &orr) == 0, "narrowed");
  CHECK(oi.n == 1 && same(&oi.ts[0], &q), "TSi: 198.51.100.0-63");
  CHECK(gostx__ike_ts_covers(&oi.ts[0], &peer_i[0]), "the first choice within the narrowed set");
  /* ours the other half: the first choice outside, still a subset of TSi */
  q = v4("198.51.100.128", "198.51.100.255", 0, 0, 65535);
  quarter = set_of(1, &q);
  CHECK(gostx__ike_ts_narrow_pair(&quarter, &every, &pi, &pr, &oi, &orr) == 0, "narrowed");
  CHECK(oi.n == 1 && same(&oi.ts[0], &q), "TSi: 198.51.100.128-255");
  /* ours only UDP: the TCP-specific first selector drops, the /24 narrows */
  gostx_ike_ts udp = v4("198.51.100.0", "198.51.100.255", 17, 0, 65535);
  gostx_ike_ts_set u = set_of(1, &udp);
  CHECK(gostx__ike_ts_narrow(&u, &pi, &oi) == 1 && same(&oi.ts[0], &udp), "UDP only");
  /* ours two pieces, both within the /24: both kept, in order */
  const gostx_ike_ts two[2] = {v4("198.51.100.10", "198.51.100.20", 0, 0, 65535),
                               v4("198.51.100.40", "198.51.100.50", 0, 0, 65535)};
  gostx_ike_ts_set t = set_of(2, two);
  CHECK(gostx__ike_ts_narrow(&t, &pi, &oi) == 2 && same(&oi.ts[0], &two[0]) &&
            same(&oi.ts[1], &two[1]),
        "two pieces, the first choice's own piece (within the second) left out");
  CHECK(gostx__ike_ts_covers(&oi.ts[1], &peer_i[0]), "the first choice still within the set");
  /* nothing in common on one side: TS_UNACCEPTABLE, nothing out */
  gostx_ike_ts far = v4("203.0.113.0", "203.0.113.255", 0, 0, 65535);
  gostx_ike_ts_set f = set_of(1, &far);
  CHECK(gostx__ike_ts_narrow_pair(&every, &f, &pi, &pr, &oi, &orr) == GOSTX_IKE_N_TS_UNACCEPTABLE,
        "TSr outside ours: TS_UNACCEPTABLE");
  CHECK(oi.n == 0 && orr.n == 0, "nothing narrowed");
  gostx_ike_ts_set none = set_of(0, &far);
  CHECK(gostx__ike_ts_narrow_pair(&none, &every, &pi, &pr, &oi, &orr) ==
            GOSTX_IKE_N_TS_UNACCEPTABLE,
        "no policy: TS_UNACCEPTABLE");
  /* 16 x 16 pieces: at most 16 kept */
  gostx_ike_ts many[GOSTX_IKE_MAX_TS], pm[GOSTX_IKE_MAX_TS];
  for (unsigned i = 0; i < GOSTX_IKE_MAX_TS; i++) {
    many[i] = v4("10.0.0.0", "10.0.0.255", 0, (uint16_t)(100 * i), (uint16_t)(100 * i + 9));
    pm[i] = v4("10.0.0.0", "10.0.0.255", 0, 0, 65535);
    pm[i].start[3] = (uint8_t)(16 * i);
    pm[i].end[3] = (uint8_t)(16 * i + 15);
  }
  gostx_ike_ts_set sm = set_of(GOSTX_IKE_MAX_TS, many), sp = set_of(GOSTX_IKE_MAX_TS, pm);
  CHECK(gostx__ike_ts_narrow(&sm, &sp, &oi) == GOSTX_IKE_MAX_TS, "256 pieces: 16 kept");
  for (size_t i = 0; i < oi.n; i++)
    CHECK(gostx__ike_ts_covers(&pm[0], &oi.ts[i]), "the peer's first selector's pieces first");
}

/* The data path: an inner source within a peer's narrowed TSi or not. */
static void data_path(void) {
  const gostx_ike_ts ts[2] = {v4("10.1.0.0", "10.1.0.255", 0, 0, 65535),
                              v4("10.2.0.5", "10.2.0.5", 6, 22, 22)};
  const gostx_ike_ts_set s = set_of(2, ts);
  const uint8_t in[4] = {10, 1, 0, 77}, edge[4] = {10, 1, 0, 255}, out[4] = {10, 1, 1, 0},
                ssh[4] = {10, 2, 0, 5}, spoof[4] = {10, 3, 0, 1};
  CHECK(gostx__ike_ts_has_addr(&s, in, 4) && gostx__ike_ts_has_addr(&s, edge, 4), "inside");
  CHECK(!gostx__ike_ts_has_addr(&s, out, 4) && !gostx__ike_ts_has_addr(&s, spoof, 4),
        "a source outside the selectors");
  CHECK(gostx__ike_ts_has_addr(&s, ssh, 4), "address only: the TCP one counts");
  uint8_t six[16] = {10, 1, 0, 77};
  CHECK(!gostx__ike_ts_has_addr(&s, six, 16), "an IPv6 source against IPv4 selectors");
  CHECK(gostx__ike_ts_match(&s, in, 4, 17, 53), "any protocol, any port");
  CHECK(gostx__ike_ts_match(&s, ssh, 4, 6, 22), "TCP 22");
  CHECK(!gostx__ike_ts_match(&s, ssh, 4, 6, 23), "TCP 23: no");
  CHECK(!gostx__ike_ts_match(&s, ssh, 4, 17, 22), "UDP 22: no");
}

int main(void) {
  intersections();
  narrowing();
  data_path();
  return t_done();
}
