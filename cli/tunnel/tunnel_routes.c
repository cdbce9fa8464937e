/* gostx tunnel: the gateway's longest-prefix-match table (tunnel_routes.h). */
#include "tunnel_routes.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct route_slot {
  uint8_t addr[16]; /* masked to len */
  uint8_t len, used;
  uint32_t value;
};

/* One family's prefixes: the lengths present, longest first, and the hash
 * (a power of two of slots, at most half of them used). */
struct route_family {
  uint8_t lens[129];
  unsigned nlens;
  struct route_slot *slot;
  size_t mask;
};

struct tunnel_routes {
  struct route_family f4, f6;
};

static size_t addr_bytes(int family) { return family == 4 ? 4 : 16; }

/* addr cut to its first len bits into out (16 bytes, zero past them) */
static void mask_to(const uint8_t *addr, size_t nbytes, unsigned len, uint8_t out[16]) {
  memset(out, 0, 16);
  unsigned full = len / 8;
  memcpy(out, addr, full);
  if (len % 8 && full < nbytes) out[full] = (uint8_t)(addr[full] & (0xff00u >> (len % 8)));
}

static size_t slot_hash(const uint8_t a[16], unsigned len) {
  uint64_t x, y;
  memcpy(&x, a, 8);
  memcpy(&y, a + 8, 8);
  uint64_t h = (x * 0x9e3779b97f4a7c15u) ^ (y * 0xc2b2ae3d27d4eb4fu) ^ (len * 0x165667b19e3779f9u);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9u;
  return (size_t)(h ^ (h >> 29));
}

/* The slot of (a, len): the one holding it, or the empty one it goes in. */
static struct route_slot *slot_at(const struct route_family *f, const uint8_t a[16],
                                  unsigned len) {
  for (size_t i = slot_hash(a, len) & f->mask;; i = (i + 1) & f->mask) {
    struct route_slot *s = &f->slot[i];
    if (!s->used || (s->len == len && !memcmp(s->addr, a, 16))) return s;
  }
}

int tunnel_prefix_parse(const char *s, struct tunnel_prefix *p) {
  char host[64];
  const char *slash = strchr(s, '/');
  size_t hl = slash ? (size_t)(slash - s) : strlen(s);
  if (!hl || hl >= sizeof host) return -1;
  memcpy(host, s, hl);
  host[hl] = 0;
  memset(p, 0, sizeof *p);
  if (inet_pton(AF_INET, host, p->addr) == 1) p->family = 4;
  else if (inet_pton(AF_INET6, host, p->addr) == 1) p->family = 6;
  else return -1;
  unsigned max = p->family == 4 ? 32 : 128, len = max;
  if (slash) {
    const char *d = slash + 1;
    if (!*d || strlen(d) > 3) return -1;
    len = 0;
    for (; *d; d++) {
      if (*d < '0' || *d > '9') return -1;
      len = len * 10 + (unsigned)(*d - '0');
    }
    if (len > max || (slash[1] == '0' && slash[2])) return -1; /* no "/016" */
  }
  p->len = (uint8_t)len;
  uint8_t m[16];
  mask_to(p->addr, addr_bytes(p->family), len, m);
  return memcmp(m, p->addr, 16) ? -1 : 0; /* "10.1.2.3/16": host bits set */
}

void tunnel_prefix_format(const struct tunnel_prefix *p, char *buf, size_t cap) {
  char a[INET6_ADDRSTRLEN] = "?";
  inet_ntop(p->family == 4 ? AF_INET : AF_INET6, p->addr, a, sizeof a);
  snprintf(buf, cap, "%s/%u", a, (unsigned)p->len);
}

int tunnel_prefix_overlap(const struct tunnel_prefix *a, const struct tunnel_prefix *b) {
  if (a->family != b->family) return 0;
  unsigned len = a->len < b->len ? a->len : b->len;
  uint8_t x[16], y[16];
  mask_to(a->addr, addr_bytes(a->family), len, x);
  mask_to(b->addr, addr_bytes(b->family), len, y);
  return !memcmp(x, y, 16);
}

/* f's hash for n prefixes of family fam among p[0..total) */
static int family_build(struct route_family *f, int fam, const struct tunnel_prefix *p,
                        const uint32_t *v, size_t total) {
  size_t n = 0;
  int seen[129] = {0};
  for (size_t i = 0; i < total; i++)
    if (p[i].family == fam) n++, seen[p[i].len] = 1;
  for (int len = 128; len >= 0; len--)
    if (seen[len]) f->lens[f->nlens++] = (uint8_t)len;
  size_t cap = 8;
  while (cap < 2 * n) cap *= 2;
  f->slot = calloc(cap, sizeof *f->slot);
  if (!f->slot) return -1;
  f->mask = cap - 1;
  for (size_t i = 0; i < total; i++) {
    if (p[i].family != fam) continue;
    uint8_t a[16];
    mask_to(p[i].addr, addr_bytes(fam), p[i].len, a);
    struct route_slot *s = slot_at(f, a, p[i].len);
    memcpy(s->addr, a, 16);
    s->len = p[i].len;
    s->used = 1;
    s->value = v[i];
  }
  return 0;
}

struct tunnel_routes *tunnel_routes_build(const struct tunnel_prefix *p, const uint32_t *v,
                                          size_t n) {
  struct tunnel_routes *r = calloc(1, sizeof *r);
  if (r && (family_build(&r->f4, 4, p, v, n) || family_build(&r->f6, 6, p, v, n))) {
    tunnel_routes_free(r);
    r = NULL;
  }
  return r;
}

void tunnel_routes_free(struct tunnel_routes *r) {
  if (!r) return;
  free(r->f4.slot);
  free(r->f6.slot);
  free(r);
}

uint32_t tunnel_routes_find(const struct tunnel_routes *r, int family, const uint8_t *addr) {
  const struct route_family *f = family == 4 ? &r->f4 : &r->f6;
  const size_t nbytes = addr_bytes(family);
  for (unsigned i = 0; i < f->nlens; i++) {
    uint8_t a[16];
    mask_to(addr, nbytes, f->lens[i], a);
    const struct route_slot *s = slot_at(f, a, f->lens[i]);
    if (s->used) return s->value;
  }
  return TUNNEL_ROUTE_NONE;
}
