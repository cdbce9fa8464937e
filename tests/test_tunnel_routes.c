/* The gateway's longest-prefix-match table (cli/tunnel/tunnel_routes.c)
 * against a brute-force reference: random IPv4 and IPv6 prefixes (nested
 * ones among them: they are drawn from a few common roots, at every
 * length and at a few favoured ones), random addresses and addresses
 * inside the prefixes; every lookup must name the value of the longest
 * prefix holding the address (the later of equal ones), or none. Also
 * the prefix text: what is taken, what is refused, and overlap. */
#include "../cli/tunnel/tunnel_routes.c"

#include "testutil.h"

#define ROUNDS 40
#define PREFIXES_MAX 600
#define LOOKUPS 4000

/* The reference: the last of the longest prefixes of p[0..n) holding addr. */
static uint32_t brute(const struct tunnel_prefix *p, const uint32_t *v, size_t n, int fam,
                      const uint8_t *addr) {
  int best = -1;
  uint32_t val = TUNNEL_ROUTE_NONE;
  for (size_t i = 0; i < n; i++) {
    if (p[i].family != fam) continue;
    struct tunnel_prefix host = {(uint8_t)fam, (uint8_t)(fam == 4 ? 32 : 128), {0}};
    memcpy(host.addr, addr, fam == 4 ? 4 : 16);
    if (p[i].len >= best && tunnel_prefix_overlap(&p[i], &host)) {
      best = p[i].len;
      val = v[i];
    }
  }
  return val;
}

/* A random address of family fam: near one of a few roots, so that
 * prefixes nest and addresses fall inside them. */
static void rand_addr(int fam, uint8_t *a) {
  static const uint8_t roots[3][16] = {{10, 1, 0, 0}, {192, 168, 7, 0}, {0xfd, 0, 0, 1}};
  size_t nb = fam == 4 ? 4 : 16;
  memset(a, 0, 16);
  t_rand_bytes(a, nb);
  size_t keep = t_rand_below(nb + 1); /* bytes of a root kept */
  memcpy(a, roots[t_rand_below(3)], keep);
}

static void rand_prefix(int fam, struct tunnel_prefix *p) {
  static const uint8_t favoured4[] = {8, 16, 24, 32}, favoured6[] = {32, 48, 64, 128};
  unsigned max = fam == 4 ? 32 : 128;
  memset(p, 0, sizeof *p);
  p->family = (uint8_t)fam;
  p->len = (uint8_t)(t_rand_below(2) ? t_rand_below(max + 1)
                                     : (fam == 4 ? favoured4 : favoured6)[t_rand_below(4)]);
  uint8_t a[16];
  rand_addr(fam, a);
  mask_to(a, addr_bytes(fam), p->len, p->addr);
}

static void round_against_brute(void) {
  static struct tunnel_prefix p[PREFIXES_MAX];
  static uint32_t v[PREFIXES_MAX];
  size_t n = t_rand_below(PREFIXES_MAX + 1);
  for (size_t i = 0; i < n; i++) {
    rand_prefix(t_rand_below(2) ? 4 : 6, &p[i]);
    v[i] = (uint32_t)t_rand_below(1000);
  }
  struct tunnel_routes *r = tunnel_routes_build(p, v, n);
  CHECK(r != NULL, "build %zu", n);
  if (!r) return;
  size_t hits = 0;
  for (int k = 0; k < LOOKUPS; k++) {
    int fam = t_rand_below(2) ? 4 : 6;
    uint8_t a[16];
    rand_addr(fam, a);
    if (n && t_rand_below(2)) { /* inside a prefix, the rest random */
      const struct tunnel_prefix *q = &p[t_rand_below(n)];
      fam = q->family;
      rand_addr(fam, a);
      for (unsigned b = 0; b < q->len; b++) {
        uint8_t bit = (uint8_t)(0x80u >> (b % 8));
        a[b / 8] = (uint8_t)((a[b / 8] & ~bit) | (q->addr[b / 8] & bit));
      }
    }
    uint32_t want = brute(p, v, n, fam, a), got = tunnel_routes_find(r, fam, a);
    hits += want != TUNNEL_ROUTE_NONE;
    if (got != want) {
      char t[64];
      inet_ntop(fam == 4 ? AF_INET : AF_INET6, a, t, sizeof t);
      CHECK(0, "%zu prefixes, %s: got %u, want %u", n, t, (unsigned)got, (unsigned)want);
      break;
    }
  }
  CHECK(!n || hits > 0, "some lookups hit a prefix (%zu prefixes)", n);
  tunnel_routes_free(r);
}

static void prefix_text(void) {
  struct tunnel_prefix p, q;
  char buf[64];
  static const char *good[] = {"10.1.0.0/16", "0.0.0.0/0", "10.9.8.7", "fd00:1::/48", "::/0",
                               "fd00::1", "192.168.7.128/25"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    CHECK(!tunnel_prefix_parse(good[i], &p), "taken: %s", good[i]);
  tunnel_prefix_parse("10.9.8.7", &p);
  tunnel_prefix_format(&p, buf, sizeof buf);
  CHECK(!strcmp(buf, "10.9.8.7/32"), "a bare address is its host prefix: %s", buf);
  static const char *bad[] = {"10.1.2.3/16", "10.1.0.0/33", "fd00::1/48", "fd00::/129",
                              "10.1.0.0/", "10.1.0.0/016", "10.1.0.0/1x", "nowhere/8", "",
                              "/8", "10.1.0.0/16/1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK(tunnel_prefix_parse(bad[i], &p), "refused: '%s'", bad[i]);
  tunnel_prefix_parse("10.0.0.0/8", &p);
  tunnel_prefix_parse("10.1.0.0/16", &q);
  CHECK(tunnel_prefix_overlap(&p, &q) && tunnel_prefix_overlap(&q, &p), "nested overlap");
  tunnel_prefix_parse("11.0.0.0/8", &q);
  CHECK(!tunnel_prefix_overlap(&p, &q), "disjoint");
  tunnel_prefix_parse("::/0", &q);
  CHECK(!tunnel_prefix_overlap(&p, &q), "families never overlap");
}

int main(void) {
  t_rand_init();
  prefix_text();
  for (int i = 0; i < ROUNDS; i++) round_against_brute();
  /* an empty table finds nothing */
  struct tunnel_routes *r = tunnel_routes_build(NULL, NULL, 0);
  uint8_t a[16] = {10, 1, 2, 3};
  CHECK(r && tunnel_routes_find(r, 4, a) == TUNNEL_ROUTE_NONE &&
            tunnel_routes_find(r, 6, a) == TUNNEL_ROUTE_NONE,
        "empty table");
  tunnel_routes_free(r);
  return t_done();
}
