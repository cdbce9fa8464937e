/* A gateway's table of IKE SAs (lib/ike/table.c, gostx__ike_table_*, the
 * keys gostx__ike_mgr_sas lists): 5000 IKE SAs found by their headers as
 * RFC 7296 2.1 and 3.1 say (a message with SPIr set by its SPI pair from
 * any address; an IKE_SA_INIT request by SPIi and the exact source, so
 * another port's copy of it finds nothing), an IKE SA rekey's new SPIs
 * beside the old ones until those are deleted, removals, the half-open
 * SAs counted per source address as they come, establish and go, and a
 * flood of SPIs that all collide under a plain modulo found like any
 * others. GOSTX_TABLE_BENCH=1 prints lookups per second against the
 * linear search ike_gateway.c did before (its users' addresses, then
 * their SPIi), at 500 and 5000 users. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ike/manager.h"
#include "testutil.h"

enum { N = 5000 };

static gostx__ike_mgr_sa_key keys[N];

/* a header of 28 octets naming spi_i and spi_r (exchange 34 with SPIr
 * zero: an IKE_SA_INIT request) */
static void header(uint8_t m[28], const uint8_t *spi_i, const uint8_t *spi_r, uint8_t exch) {
  memset(m, 0, 28);
  memcpy(m, spi_i, 8);
  if (spi_r) memcpy(m + 8, spi_r, 8);
  m[17] = 0x20, m[18] = exch, m[19] = 0x08;
  m[27] = 28;
}

static gostx__ike_mgr_addr addr(uint32_t host, uint16_t port) {
  gostx__ike_mgr_addr a = {{10, (uint8_t)(host >> 16), (uint8_t)(host >> 8), (uint8_t)host},
                           4, port};
  return a;
}

static long by_pair(const gostx__ike_table *t, const gostx__ike_mgr_sa_key *k,
                    const gostx__ike_mgr_addr *from) {
  uint8_t m[28];
  header(m, k->spi_i, k->spi_r, 37);
  return gostx__ike_table_checkout(t, m, sizeof m, from);
}

static long by_init(const gostx__ike_table *t, const gostx__ike_mgr_sa_key *k,
                    const gostx__ike_mgr_addr *from) {
  uint8_t m[28];
  header(m, k->spi_i, NULL, 34);
  return gostx__ike_table_checkout(t, m, sizeof m, from);
}

/* 5000 SAs, each its value's one key; all found both ways, none from
 * another port by SPIi */
static void many(gostx__ike_table *t) {
  for (size_t i = 0; i < N; i++) {
    t_rand_bytes(keys[i].spi_i, 8);
    t_rand_bytes(keys[i].spi_r, 8);
    keys[i].src = addr((uint32_t)i / 7, (uint16_t)(4500 + i % 7)); /* 7 users behind each NAT */
    keys[i].half_open = 0;
    CHECK(gostx__ike_table_set(t, i, &keys[i], 1) == 0, "value %zu's key in", i);
  }
  CHECK(gostx__ike_table_size(t) == N, "%d keys held (%zu)", N, gostx__ike_table_size(t));
  size_t pair = 0, init = 0, other = 0;
  const gostx__ike_mgr_addr elsewhere = addr(0xfffff, 4999);
  for (size_t i = 0; i < N; i++) {
    pair += by_pair(t, &keys[i], &elsewhere) == (long)i; /* a NAT moved it: found by the pair */
    init += by_init(t, &keys[i], &keys[i].src) == (long)i;
    gostx__ike_mgr_addr port = keys[i].src;
    port.port ^= 0x100;
    other += by_init(t, &keys[i], &port) != -1;
  }
  CHECK(pair == N && init == N && other == 0,
        "found by SPI pair from anywhere %zu, by SPIi and source %zu of %d; by SPIi from "
        "another port: %zu",
        pair, init, N, other);
  /* a wrong SPIr, a short datagram: nothing */
  gostx__ike_mgr_sa_key k = keys[17];
  k.spi_r[7] ^= 1;
  uint8_t m[28];
  header(m, keys[17].spi_i, keys[17].spi_r, 37);
  CHECK(by_pair(t, &k, &k.src) == -1 && gostx__ike_table_checkout(t, m, 27, &k.src) == -1,
        "a wrong SPIr or a short datagram finds nothing");
}

/* an IKE SA rekey: the new SPIs in beside the old (the old SA stays
 * until its Delete), then the old ones out */
static void rekey(gostx__ike_table *t) {
  gostx__ike_mgr_sa_key two[2] = {keys[42], keys[42]};
  t_rand_bytes(two[0].spi_i, 8);
  t_rand_bytes(two[0].spi_r, 8);
  CHECK(gostx__ike_table_set(t, 42, two, 2) == 0 && by_pair(t, &two[0], &two[0].src) == 42 &&
            by_pair(t, &two[1], &two[1].src) == 42 && gostx__ike_table_size(t) == N + 1,
        "a rekey's new SPIs found beside the old");
  CHECK(gostx__ike_table_set(t, 42, two, 1) == 0 && by_pair(t, &two[0], &two[0].src) == 42 &&
            by_pair(t, &keys[42], &keys[42].src) == -1 && gostx__ike_table_size(t) == N,
        "the old SPIs gone once the old SA is deleted");
  keys[42] = two[0];
  /* the same key twice in one list: held once */
  CHECK(gostx__ike_table_set(t, 42, (gostx__ike_mgr_sa_key[]){two[0], two[0]}, 2) == 0 &&
            gostx__ike_table_size(t) == N,
        "a key listed twice held once");
  CHECK(gostx__ike_table_set(t, N, keys, 1) == -1, "a value out of range refused");
}

/* half the values emptied: theirs gone, the rest still found */
static void removal(gostx__ike_table *t, size_t fresh_bytes) {
  for (size_t i = 0; i < N; i += 2) CHECK(gostx__ike_table_set(t, i, NULL, 0) == 0, "out");
  size_t found = 0, gone = 0;
  for (size_t i = 0; i < N; i++) {
    const long v = by_pair(t, &keys[i], &keys[i].src);
    found += i % 2 && v == (long)i;
    gone += !(i % 2) && v == -1;
  }
  CHECK(found == N / 2 && gone == N / 2 && gostx__ike_table_size(t) == N / 2,
        "half removed: %zu still found, %zu gone, %zu held", found, gone,
        gostx__ike_table_size(t));
  CHECK(gostx__ike_table_bytes(t) > fresh_bytes, "grown: %zu B against %zu new",
        gostx__ike_table_bytes(t), fresh_bytes);
  for (size_t i = 1; i < N; i += 2) (void)gostx__ike_table_set(t, i, NULL, 0);
  CHECK(gostx__ike_table_size(t) == 0, "all removed");
  /* empty: what it grew to given back (a gateway's users all gone) */
  CHECK(gostx__ike_table_bytes(t) == fresh_bytes, "empty: %zu B held against %zu new",
        gostx__ike_table_bytes(t), fresh_bytes);
}

/* the half-open SAs counted per source address (any port), as they come,
 * establish and go */
static void half_open(gostx__ike_table *t) {
  const gostx__ike_mgr_addr nat = addr(0x90909, 1), lone = addr(0x90908, 1),
                            none = addr(0x90907, 1);
  for (size_t i = 0; i < 400; i++) {
    gostx__ike_mgr_sa_key k = {{0}, {0}, i < 300 ? nat : lone, 1};
    k.src.port = (uint16_t)(1024 + i);
    t_rand_bytes(k.spi_i, 8); /* SPIr zero: its IKE_SA_INIT not yet answered */
    keys[i] = k;
    (void)gostx__ike_table_set(t, i, &k, 1);
  }
  size_t mine, all = gostx__ike_table_half_open(t, &nat, &mine), lone_n, none_n;
  (void)gostx__ike_table_half_open(t, &lone, &lone_n);
  (void)gostx__ike_table_half_open(t, &none, &none_n);
  CHECK(all == 400 && mine == 300 && lone_n == 100 && none_n == 0,
        "half-open: %zu in all, %zu from the NAT, %zu from the other, %zu from a third", all,
        mine, lone_n, none_n);
  CHECK(by_init(t, &keys[5], &keys[5].src) == 5, "a half-open SA found by its IKE_SA_INIT");
  for (size_t i = 0; i < 200; i++) { /* 200 of the NAT's established (SPIr chosen) */
    t_rand_bytes(keys[i].spi_r, 8);
    keys[i].half_open = 0;
    (void)gostx__ike_table_set(t, i, &keys[i], 1);
  }
  all = gostx__ike_table_half_open(t, &nat, &mine);
  CHECK(all == 200 && mine == 100 && by_pair(t, &keys[7], &none) == 7,
        "200 established: %zu half-open in all, %zu from the NAT", all, mine);
  for (size_t i = 200; i < 400; i++) (void)gostx__ike_table_set(t, i, NULL, 0);
  all = gostx__ike_table_half_open(t, &nat, &mine);
  (void)gostx__ike_table_half_open(t, &lone, &lone_n);
  CHECK(all == 0 && mine == 0 && lone_n == 0, "the half-open ones gone: %zu, %zu, %zu", all, mine,
        lone_n);
  for (size_t i = 0; i < 200; i++) (void)gostx__ike_table_set(t, i, NULL, 0);
}

/* the counts through the table's growth (from 64 entries, doubling):
 * half-open SAs from three sources added one by one into a fresh table */
static void growth(void) {
  gostx__ike_table *t = gostx__ike_table_new(1000);
  if (!t) return;
  for (size_t i = 0; i < 1000; i++) {
    gostx__ike_mgr_sa_key k = {{0}, {0}, addr((uint32_t)(i % 3), (uint16_t)i), 1};
    t_rand_bytes(k.spi_i, 8);
    (void)gostx__ike_table_set(t, i, &k, 1);
  }
  size_t n[3], all = 0;
  for (uint32_t s = 0; s < 3; s++) {
    const gostx__ike_mgr_addr a = addr(s, 0);
    all = gostx__ike_table_half_open(t, &a, &n[s]);
  }
  CHECK(all == 1000 && n[0] == 334 && n[1] == 333 && n[2] == 333,
        "grown to 1000 half-open SAs: %zu, %zu, %zu of %zu from the three sources", n[0], n[1],
        n[2], all);
  for (size_t i = 0; i < 1000; i++) (void)gostx__ike_table_set(t, i, NULL, 0);
  const gostx__ike_mgr_addr a = addr(0, 0);
  all = gostx__ike_table_half_open(t, &a, &n[0]);
  CHECK(all == 0 && n[0] == 0 && gostx__ike_table_size(t) == 0, "and all gone");
  gostx__ike_table_free(t);
}

/* SPIs a plain "low bits modulo the buckets" would put in one bucket (all
 * equal but their top octets, SPIr the same): every one found */
static void flood(gostx__ike_table *t) {
  for (size_t i = 0; i < 4096; i++) {
    gostx__ike_mgr_sa_key *k = &keys[i];
    memset(k, 0, sizeof *k);
    k->spi_i[0] = (uint8_t)(i >> 8), k->spi_i[1] = (uint8_t)i; /* the high octets (big-endian) */
    k->spi_r[7] = 1;
    k->src = addr(1, 500);
    CHECK(gostx__ike_table_set(t, i, k, 1) == 0, "a colliding key in");
  }
  size_t found = 0;
  for (size_t i = 0; i < 4096; i++)
    found += by_pair(t, &keys[i], &keys[i].src) == (long)i &&
             by_init(t, &keys[i], &keys[i].src) == (long)i;
  CHECK(found == 4096, "4096 SPIs equal in their low octets all found (%zu)", found);
  for (size_t i = 0; i < 4096; i++) (void)gostx__ike_table_set(t, i, NULL, 0);
}

/* ---- GOSTX_TABLE_BENCH: against the linear search of before ---- */

struct old_user {
  int used, up;
  gostx__ike_mgr_addr src;
  uint8_t spi_i[8];
  uint8_t pad[1024]; /* an ra_user is about 1 KiB: the search walks them */
};

static long old_search(const struct old_user *u, size_t n, const gostx__ike_mgr_addr *src,
                       const uint8_t *spi_i) {
  for (size_t i = 0; i < n; i++)
    if (u[i].used && u[i].src.port == src->port && u[i].src.ip_len == src->ip_len &&
        !memcmp(u[i].src.ip, src->ip, src->ip_len))
      return (long)i;
  for (size_t i = 0; i < n; i++)
    if (u[i].used && u[i].up && !memcmp(u[i].spi_i, spi_i, 8)) return (long)i;
  return -1;
}

static double secs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bench(size_t n) {
  gostx__ike_table *t = gostx__ike_table_new(n);
  struct old_user *u = calloc(n, sizeof *u);
  if (!t || !u) return;
  for (size_t i = 0; i < n; i++) {
    t_rand_bytes(keys[i].spi_i, 8);
    t_rand_bytes(keys[i].spi_r, 8);
    keys[i].src = addr((uint32_t)i, 4500);
    keys[i].half_open = 0;
    (void)gostx__ike_table_set(t, i, &keys[i], 1);
    u[i] = (struct old_user){1, 1, keys[i].src, {0}, {0}};
    memcpy(u[i].spi_i, keys[i].spi_i, 8);
  }
  const size_t rounds = 2000000 / n + 20;
  volatile long sink = 0;
  double t0 = secs();
  for (size_t r = 0; r < rounds; r++)
    for (size_t i = 0; i < n; i += 7) sink += by_pair(t, &keys[i], &keys[i].src);
  const double tab = (double)(rounds * ((n + 6) / 7)) / (secs() - t0);
  t0 = secs();
  const size_t old_rounds = rounds / 20 + 1;
  for (size_t r = 0; r < old_rounds; r++)
    for (size_t i = 0; i < n; i += 7) sink += old_search(u, n, &keys[i].src, keys[i].spi_i);
  const double old = (double)(old_rounds * ((n + 6) / 7)) / (secs() - t0);
  printf("# %zu users: the table %.3g lookups/s, the linear search %.3g (%.0fx)\n", n, tab, old,
         tab / old);
  (void)sink;
  free(u);
  gostx__ike_table_free(t);
}

/* The bucket hash is SipHash-2-4: the known answer of its paper (Aumasson
 * and Bernstein 2012, appendix A: key 00..0f, message 00..0e). */
static void siphash_known(void) {
  uint8_t m[15];
  for (int i = 0; i < 15; i++) m[i] = (uint8_t)i;
  CHECK(gostx__ike_siphash24(0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL, m, 15) ==
            0xa129ca6149be45e5ULL,
        "SipHash-2-4: the paper's known answer");
}

int main(void) {
  t_rand_init();
  siphash_known();
  gostx__ike_table *t = gostx__ike_table_new(N);
  CHECK(t != NULL, "a table");
  if (!t) return t_done();
  const size_t fresh_bytes = gostx__ike_table_bytes(t);
  many(t);
  rekey(t);
  removal(t, fresh_bytes);
  half_open(t);
  flood(t);
  gostx__ike_table_free(t);
  growth();
  if (getenv("GOSTX_TABLE_BENCH")) {
    bench(500);
    bench(5000);
  }
  return t_done();
}
