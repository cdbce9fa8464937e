/* The inner address pool (lib/ike/pool.c): no two leases alike, the
 * network and broadcast addresses never given, an identity's address held
 * for it after release until the pool needs it, the cap and exhaustion
 * refused, a requested address honoured when free. */
#include <stdio.h>
#include <string.h>

#include "ike/ike.h"
#include "testutil.h"

static gostx_ike_lease slots[1024];

/* p over a.b.c.0/prefix with n slots, at most cap held */
static void pool4(gostx_ike_pool *p, uint8_t a, uint8_t b, uint8_t c, unsigned prefix, size_t n,
                  size_t cap) {
  const uint8_t net[4] = {a, b, c, 0};
  CHECK_RC(gostx__ike_pool_init(p, net, 4, prefix, slots, n, cap), GOSTX_OK, "init");
}

static size_t id_of(char *buf, unsigned i) { return (size_t)sprintf(buf, "CN=user%u", i); }

static uint32_t v4(const uint8_t a[4]) {
  return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
}

/* A /24: 254 hosts, each once, none the network's or the broadcast. */
static void whole_range(void) {
  gostx_ike_pool p;
  pool4(&p, 10, 9, 8, 24, 1024, 0);
  CHECK(p.size == 254 && p.cap == 254, "254 hosts in a /24");
  static uint8_t seen[256];
  memset(seen, 0, sizeof seen);
  char id[32];
  uint8_t a[4];
  for (unsigned i = 0; i < 254; i++) {
    CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, i), NULL, a), GOSTX_OK, "lease");
    CHECK(a[0] == 10 && a[1] == 9 && a[2] == 8, "inside 10.9.8.0/24");
    CHECK(a[3] != 0 && a[3] != 255, "not the network or broadcast address (.%u)", a[3]);
    CHECK(!seen[a[3]], "no two leases alike (.%u twice)", a[3]);
    seen[a[3]] = 1;
  }
  CHECK(p.held == 254, "254 held");
  CHECK_RC(gostx__ike_pool_lease(&p, (const uint8_t *)"CN=late", 7, NULL, a), GOSTX_ELEN,
           "exhausted: refused");
  /* the same identity asking again while held: the same address, no new lease */
  uint8_t b[4];
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 7), NULL, a), GOSTX_OK, "again");
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 7), NULL, b), GOSTX_OK, "again");
  CHECK(!memcmp(a, b, 4) && p.held == 254, "held: the same address, counted once");
  /* released, someone new takes it (the only one free) */
  CHECK_RC(gostx__ike_pool_release(&p, (uint8_t *)id, id_of(id, 7)), GOSTX_OK, "release");
  CHECK_RC(gostx__ike_pool_release(&p, (uint8_t *)id, id_of(id, 7)), GOSTX_ESTATE,
           "released twice: refused");
  CHECK_RC(gostx__ike_pool_lease(&p, (const uint8_t *)"CN=late", 7, NULL, b), GOSTX_OK,
           "a freed address reused");
  CHECK(!memcmp(a, b, 4), "the freed one");
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 7), NULL, b), GOSTX_ELEN,
           "its old holder refused: none left");
}

/* Stickiness: released addresses stay their holders' while never-used ones
 * remain; then the one released longest ago goes first. */
static void sticky(void) {
  gostx_ike_pool p;
  pool4(&p, 192, 168, 50, 28, 1024, 0);
  CHECK(p.size == 14, "14 hosts in a /28");
  uint8_t got[14][4], a[4];
  char id[32];
  for (unsigned i = 0; i < 10; i++)
    CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, i), NULL, got[i]), GOSTX_OK,
             "lease");
  for (unsigned i = 0; i < 10; i += 2)
    CHECK_RC(gostx__ike_pool_release(&p, (uint8_t *)id, id_of(id, i)), GOSTX_OK, "release");
  /* four newcomers: the four never used, not the released ones */
  for (unsigned i = 100; i < 104; i++) {
    CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, i), NULL, a), GOSTX_OK, "new");
    for (unsigned j = 0; j < 10; j++) CHECK(memcmp(a, got[j], 4), "a released one kept");
  }
  /* a user back: its own address */
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 4), NULL, a), GOSTX_OK, "back");
  CHECK(!memcmp(a, got[4], 4), "the same address after release");
  /* newcomers now take the released ones, the oldest release first: 0, 2, 6, 8 */
  const unsigned order[] = {0, 2, 6, 8};
  for (unsigned k = 0; k < 4; k++) {
    CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 200 + k), NULL, a), GOSTX_OK,
             "reuse");
    CHECK(!memcmp(a, got[order[k]], 4), "the oldest release reused first (%u)", order[k]);
  }
  CHECK(p.held == 14, "all 14 held");
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 0), NULL, a), GOSTX_ELEN,
           "user 0 comes back to a full pool: refused");
}

/* The cap, a table smaller than the range, a requested address. */
static void cap_and_want(void) {
  gostx_ike_pool p;
  const uint8_t net[4] = {172, 16, 0, 0};
  pool4(&p, 172, 16, 0, 16, 8, 3);
  CHECK(p.size == 8 && p.cap == 3, "the table bounds the range, the cap the leases");
  char id[32];
  uint8_t a[4];
  const uint8_t want[4] = {172, 16, 0, 6}, outside[4] = {172, 16, 0, 9};
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 1), want, a), GOSTX_OK, "want");
  CHECK(!memcmp(a, want, 4), "the requested address given");
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 2), want, a), GOSTX_OK, "want");
  CHECK(memcmp(a, want, 4) && v4(a) == v4(net) + 1, "taken: the first free instead");
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 3), outside, a), GOSTX_OK, "out");
  CHECK(v4(a) == v4(net) + 2, "outside the table: ignored");
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 4), NULL, a), GOSTX_ELEN,
           "past the cap: refused");
  CHECK_RC(gostx__ike_pool_release(&p, (uint8_t *)id, id_of(id, 2)), GOSTX_OK, "release");
  CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, 4), NULL, a), GOSTX_OK,
           "under the cap again");
  CHECK_RC(gostx__ike_pool_release(&p, (uint8_t *)id, id_of(id, 9)), GOSTX_ESTATE,
           "a stranger's release refused");
}

static void ipv6_and_refusals(void) {
  gostx_ike_pool p;
  uint8_t net6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 7}, a[16];
  CHECK_RC(gostx__ike_pool_init(&p, net6, 16, 120, slots, 1024, 0), GOSTX_OK, "init /120");
  CHECK(p.size == 255, "a /120: 255 hosts, no anycast address");
  CHECK_RC(gostx__ike_pool_lease(&p, (const uint8_t *)"u", 1, NULL, a), GOSTX_OK, "lease v6");
  CHECK(!memcmp(a, net6, 15) && a[15] == 1, "the first host");
  for (unsigned i = 1; i < 255; i++) {
    char id[32];
    CHECK_RC(gostx__ike_pool_lease(&p, (uint8_t *)id, id_of(id, i), NULL, a), GOSTX_OK, "v6");
  }
  CHECK(!memcmp(a, net6, 15) && a[15] == 255, "the last host: ::ff");
  CHECK_RC(gostx__ike_pool_lease(&p, (const uint8_t *)"v", 1, NULL, a), GOSTX_ELEN, "v6 full");
  CHECK_RC(gostx__ike_pool_init(&p, net6, 16, 64, slots, 16, 0), GOSTX_OK, "a /64's first 16");
  CHECK(p.size == 16, "bounded by the table");
  /* refusals */
  const uint8_t host_bits[4] = {10, 0, 0, 1}, net[4] = {10, 0, 0, 0};
  CHECK_RC(gostx__ike_pool_init(&p, host_bits, 4, 24, slots, 16, 0), GOSTX_EINVAL,
           "host bits set");
  CHECK_RC(gostx__ike_pool_init(&p, net, 4, 31, slots, 16, 0), GOSTX_EINVAL, "a /31: no hosts");
  CHECK_RC(gostx__ike_pool_init(&p, net, 4, 30, slots, 16, 0), GOSTX_OK, "a /30: two hosts");
  CHECK(p.size == 2, "two");
  CHECK_RC(gostx__ike_pool_init(&p, net6, 16, 48, slots, 16, 0), GOSTX_EINVAL, "IPv6 /48");
  CHECK_RC(gostx__ike_pool_init(&p, net, 4, 24, slots, 0, 0), GOSTX_EINVAL, "no table");
  CHECK_RC(gostx__ike_pool_lease(&p, NULL, 0, NULL, a), GOSTX_EINVAL, "no identity");
}

int main(void) {
  whole_range();
  sticky();
  cap_and_want();
  ipv6_and_refusals();
  return t_done();
}
