/* A gateway's table of IKE SAs (manager.h, gostx__ike_table_*): the keys
 * of every manager's SAs in three chained hashes over one array of
 * entries, by SPI pair (a datagram with SPIr set), by SPIi and source
 * (an IKE_SA_INIT request, SPIr zero: RFC 7296 2.1) and by source address
 * (the half-open SAs counted per source). SPIs and addresses are chosen
 * by whoever sends, so the buckets are picked by SipHash-2-4 under a key
 * drawn for each table: a flood of keys made to collide under a plain
 * modulo spreads like any other. The arrays grow by doubling; entries are
 * indices, so growing moves nothing that a chain points to. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "mgr_int.h"

#define NONE UINT32_MAX /* no entry: a chain's end, a free list's end */

struct ent {
  gostx__ike_mgr_sa_key k;
  uint32_t value;
  uint32_t next_pair, next_init, next_val; /* next_val: the free list too */
  uint8_t used, paired;                    /* paired: in the SPI pair hash (spi_r set) */
};

/* a source address with half-open SAs, and how many */
struct src {
  uint8_t ip[16];
  uint8_t ip_len;
  uint32_t n, next; /* next: its bucket's chain, or the free list */
};

struct gostx__ike_table {
  uint64_t k0, k1; /* the hash key */
  struct ent *e;
  struct src *s;
  uint32_t cap, n, free_e, free_s;
  uint32_t mask; /* buckets - 1: as many buckets as entries */
  uint32_t *by_pair, *by_init, *by_src;
  uint32_t *of_val; /* each value's first entry */
  size_t values, half_open;
};

/* ---- SipHash-2-4 (Aumasson and Bernstein, 2012) ---- */

static uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

static void sip_round(uint64_t v[4]) {
  v[0] += v[1], v[1] = rotl(v[1], 13), v[1] ^= v[0], v[0] = rotl(v[0], 32);
  v[2] += v[3], v[3] = rotl(v[3], 16), v[3] ^= v[2];
  v[0] += v[3], v[3] = rotl(v[3], 21), v[3] ^= v[0];
  v[2] += v[1], v[1] = rotl(v[1], 17), v[1] ^= v[2], v[2] = rotl(v[2], 32);
}

static uint64_t le64(const uint8_t *p, size_t n) {
  uint64_t x = 0;
  for (size_t i = 0; i < n; i++) x |= (uint64_t)p[i] << (8 * i);
  return x;
}

uint64_t gostx__ike_siphash24(uint64_t k0, uint64_t k1, const uint8_t *m, size_t len) {
  uint64_t v[4] = {k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
                   k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL};
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const uint64_t w = le64(m + i, 8);
    v[3] ^= w, sip_round(v), sip_round(v), v[0] ^= w;
  }
  const uint64_t w = le64(m + i, len - i) | (uint64_t)(len & 0xff) << 56;
  v[3] ^= w, sip_round(v), sip_round(v), v[0] ^= w;
  v[2] ^= 0xff;
  for (int r = 0; r < 4; r++) sip_round(v);
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

static uint64_t siphash(const gostx__ike_table *t, const uint8_t *m, size_t len) {
  return gostx__ike_siphash24(t->k0, t->k1, m, len);
}

/* ---- the three hashes' buckets ---- */

static uint32_t h_pair(const gostx__ike_table *t, const uint8_t *spi_i, const uint8_t *spi_r) {
  uint8_t b[16];
  memcpy(b, spi_i, 8);
  memcpy(b + 8, spi_r, 8);
  return (uint32_t)siphash(t, b, 16) & t->mask;
}

/* an address as hashed and compared: its IP octets, their count, the port */
static size_t addr_octets(const gostx__ike_mgr_addr *a, int port, uint8_t out[19]) {
  const size_t n = a->ip_len <= 16 ? a->ip_len : 16;
  memcpy(out, a->ip, n);
  out[n] = (uint8_t)n;
  if (!port) return n + 1;
  out[n + 1] = (uint8_t)(a->port >> 8);
  out[n + 2] = (uint8_t)a->port;
  return n + 3;
}

static uint32_t h_init(const gostx__ike_table *t, const uint8_t *spi_i,
                       const gostx__ike_mgr_addr *a) {
  uint8_t b[8 + 19];
  memcpy(b, spi_i, 8);
  return (uint32_t)siphash(t, b, 8 + addr_octets(a, 1, b + 8)) & t->mask;
}

static uint32_t h_src(const gostx__ike_table *t, const gostx__ike_mgr_addr *a) {
  uint8_t b[19];
  return (uint32_t)siphash(t, b, addr_octets(a, 0, b)) & t->mask;
}

static int same_ip(const uint8_t *ip, uint8_t len, const gostx__ike_mgr_addr *a) {
  return len == a->ip_len && len <= 16 && !memcmp(ip, a->ip, len);
}

static int same_addr(const gostx__ike_mgr_addr *a, const gostx__ike_mgr_addr *b) {
  return a->port == b->port && same_ip(a->ip, a->ip_len, b);
}

/* ---- the per-source counts of half-open SAs ---- */

static struct src *src_find(const gostx__ike_table *t, const gostx__ike_mgr_addr *a,
                            uint32_t **link) {
  uint32_t *l = &t->by_src[h_src(t, a)];
  while (*l != NONE && !same_ip(t->s[*l].ip, t->s[*l].ip_len, a)) l = &t->s[*l].next;
  if (link) *link = l;
  return *l == NONE ? NULL : &t->s[*l];
}

/* One more (d 1) or one less (d -1) half-open SA from a's address. A
 * record is free for each entry, so one is always there to take. */
static void src_count(gostx__ike_table *t, const gostx__ike_mgr_addr *a, int d) {
  uint32_t *l;
  struct src *s = src_find(t, a, &l);
  t->half_open += d > 0 ? 1 : (size_t)-1;
  if (!s) {
    const uint32_t i = t->free_s;
    s = &t->s[i];
    t->free_s = s->next;
    memset(s, 0, sizeof *s);
    memcpy(s->ip, a->ip, a->ip_len <= 16 ? a->ip_len : 16);
    s->ip_len = a->ip_len;
    s->next = NONE;
    *l = i;
  }
  s->n += d > 0 ? 1 : (uint32_t)-1;
  if (s->n) return;
  const uint32_t i = *l; /* the last one gone: the record back */
  *l = s->next;
  s->next = t->free_s;
  t->free_s = i;
}

/* ---- entries in and out of the hashes ---- */

static void link_in(gostx__ike_table *t, uint32_t i) {
  struct ent *e = &t->e[i];
  static const uint8_t zero[8];
  e->paired = memcmp(e->k.spi_r, zero, 8) != 0;
  if (e->paired) {
    uint32_t *b = &t->by_pair[h_pair(t, e->k.spi_i, e->k.spi_r)];
    e->next_pair = *b;
    *b = i;
  }
  uint32_t *b = &t->by_init[h_init(t, e->k.spi_i, &e->k.src)];
  e->next_init = *b;
  *b = i;
}

static void unlink_from(gostx__ike_table *t, uint32_t *l, uint32_t i, size_t next_off) {
  while (*l != i) l = (uint32_t *)((uint8_t *)&t->e[*l] + next_off);
  *l = *(uint32_t *)((uint8_t *)&t->e[i] + next_off);
}

static void link_out(gostx__ike_table *t, uint32_t i) {
  struct ent *e = &t->e[i];
  if (e->paired)
    unlink_from(t, &t->by_pair[h_pair(t, e->k.spi_i, e->k.spi_r)], i,
                offsetof(struct ent, next_pair));
  unlink_from(t, &t->by_init[h_init(t, e->k.spi_i, &e->k.src)], i,
              offsetof(struct ent, next_init));
}

/* Room for one more entry: the arrays doubled (and every entry hashed
 * again into buckets twice as many) when full. GOSTX_OK or ENOMEM. */
static int grow(gostx__ike_table *t) {
  if (t->free_e != NONE) return GOSTX_OK;
  const uint32_t cap = t->cap ? 2 * t->cap : 64;
  if (cap <= t->cap || cap > (1u << 30)) return GOSTX_ENOMEM;
  struct ent *e = realloc(t->e, cap * sizeof *e);
  if (e) t->e = e;
  struct src *s = e ? realloc(t->s, cap * sizeof *s) : NULL;
  if (s) t->s = s;
  uint32_t *b = s ? malloc(3 * (size_t)cap * sizeof *b) : NULL;
  if (!b) return GOSTX_ENOMEM;
  free(t->by_pair); /* the three share one allocation */
  t->by_pair = b, t->by_init = b + cap, t->by_src = b + 2 * (size_t)cap;
  memset(b, 0xff, 3 * (size_t)cap * sizeof *b);
  t->mask = cap - 1;
  memset(t->e + t->cap, 0, (cap - t->cap) * sizeof *e); /* the new ones free */
  memset(t->s + t->cap, 0, (cap - t->cap) * sizeof *s);
  for (uint32_t i = t->cap; i < cap; i++) t->e[i].next_val = i + 1 < cap ? i + 1 : NONE;
  t->free_e = t->cap;
  /* the records in use keep their places; the free ones chained anew */
  uint32_t free_s = NONE;
  for (uint32_t i = cap; i-- > 0;)
    if (i >= t->cap || !t->s[i].n) t->s[i].next = free_s, free_s = i;
  t->free_s = free_s;
  const uint32_t old = t->cap;
  t->cap = cap;
  for (uint32_t i = 0; i < old; i++) {
    if (t->e[i].used) link_in(t, i);
    if (t->s[i].n) {
      uint32_t *l;
      gostx__ike_mgr_addr a = {{0}, t->s[i].ip_len, 0};
      memcpy(a.ip, t->s[i].ip, sizeof a.ip);
      (void)src_find(t, &a, &l);
      t->s[i].next = NONE;
      *l = i;
    }
  }
  return GOSTX_OK;
}

/* An empty table gives back what it grew to: a gateway whose users have
 * all left holds what it held at the start. Kept as it is when the small
 * arrays cannot be had (it works either way). */
static void shrink_if_empty(gostx__ike_table *t) {
  if (t->n || t->cap <= 64) return;
  const gostx__ike_table big = *t;
  t->e = NULL, t->s = NULL, t->by_pair = NULL;
  t->cap = 0, t->free_e = t->free_s = NONE;
  if (grow(t)) {
    free(t->e);
    free(t->s);
    free(t->by_pair);
    *t = big;
    return;
  }
  free(big.e);
  free(big.s);
  free(big.by_pair);
}

static void remove_ent(gostx__ike_table *t, uint32_t i) {
  struct ent *e = &t->e[i];
  link_out(t, i);
  if (e->k.half_open) src_count(t, &e->k.src, -1);
  e->used = 0;
  e->next_val = t->free_e;
  t->free_e = i;
  t->n--;
}

static int add_ent(gostx__ike_table *t, size_t value, const gostx__ike_mgr_sa_key *k) {
  if (grow(t)) return GOSTX_ENOMEM;
  const uint32_t i = t->free_e;
  struct ent *e = &t->e[i];
  t->free_e = e->next_val;
  e->k = *k;
  e->k.half_open = k->half_open != 0;
  e->used = 1;
  e->value = (uint32_t)value;
  e->next_val = t->of_val[value];
  t->of_val[value] = i;
  link_in(t, i);
  if (e->k.half_open) src_count(t, &e->k.src, 1);
  t->n++;
  return GOSTX_OK;
}

static int same_key(const gostx__ike_mgr_sa_key *a, const gostx__ike_mgr_sa_key *b) {
  return !memcmp(a->spi_i, b->spi_i, 8) && !memcmp(a->spi_r, b->spi_r, 8) &&
         same_addr(&a->src, &b->src) && !a->half_open == !b->half_open;
}

/* ---- the API ---- */

gostx__ike_table *gostx__ike_table_new(size_t values) {
  if (values >= NONE) return NULL;
  gostx__ike_table *t = calloc(1, sizeof *t);
  uint8_t key[16];
  if (!t || gostx_random_bytes(key, sizeof key)) {
    free(t);
    return NULL;
  }
  t->k0 = le64(key, 8), t->k1 = le64(key + 8, 8);
  gostx_memzero(key, sizeof key);
  t->values = values;
  t->free_e = t->free_s = NONE;
  t->of_val = malloc((values ? values : 1) * sizeof *t->of_val);
  if (!t->of_val || grow(t)) {
    gostx__ike_table_free(t);
    return NULL;
  }
  memset(t->of_val, 0xff, (values ? values : 1) * sizeof *t->of_val);
  return t;
}

void gostx__ike_table_free(gostx__ike_table *t) {
  if (!t) return;
  free(t->e);
  free(t->s);
  free(t->by_pair);
  free(t->of_val);
  gostx_memzero(t, sizeof *t); /* the hash key */
  free(t);
}

int gostx__ike_table_set(gostx__ike_table *t, size_t value, const gostx__ike_mgr_sa_key *keys,
                         size_t n) {
  if (value >= t->values) return -1;
  /* those no longer listed out; then the new ones in (a manager lists a
   * dozen at most: the pairs compared directly) */
  uint32_t *l = &t->of_val[value];
  while (*l != NONE) {
    const uint32_t i = *l;
    size_t j = 0;
    while (j < n && !same_key(&t->e[i].k, &keys[j])) j++;
    if (j < n) {
      l = &t->e[i].next_val;
      continue;
    }
    *l = t->e[i].next_val;
    remove_ent(t, i);
  }
  if (!n) shrink_if_empty(t);
  for (size_t j = 0; j < n; j++) {
    uint32_t i = t->of_val[value];
    while (i != NONE && !same_key(&t->e[i].k, &keys[j])) i = t->e[i].next_val;
    if (i == NONE && add_ent(t, value, &keys[j])) { /* (one listed twice: kept once) */
      (void)gostx__ike_table_set(t, value, NULL, 0);
      return -1;
    }
  }
  return 0;
}

long gostx__ike_table_checkout(const gostx__ike_table *t, const uint8_t *msg, size_t len,
                               const gostx__ike_mgr_addr *src) {
  static const uint8_t zero[8];
  if (len < 28) return -1; /* no IKE header */
  if (!memcmp(msg + 8, zero, 8)) {
    for (uint32_t i = t->by_init[h_init(t, msg, src)]; i != NONE; i = t->e[i].next_init)
      if (!memcmp(t->e[i].k.spi_i, msg, 8) && same_addr(&t->e[i].k.src, src))
        return (long)t->e[i].value;
    return -1;
  }
  for (uint32_t i = t->by_pair[h_pair(t, msg, msg + 8)]; i != NONE; i = t->e[i].next_pair)
    if (!memcmp(t->e[i].k.spi_i, msg, 8) && !memcmp(t->e[i].k.spi_r, msg + 8, 8))
      return (long)t->e[i].value;
  return -1;
}

size_t gostx__ike_table_half_open(const gostx__ike_table *t, const gostx__ike_mgr_addr *src,
                                  size_t *from_src) {
  const struct src *s = src_find(t, src, NULL);
  *from_src = s ? s->n : 0;
  return t->half_open;
}

size_t gostx__ike_table_size(const gostx__ike_table *t) { return t->n; }

size_t gostx__ike_table_bytes(const gostx__ike_table *t) {
  return sizeof *t + (size_t)t->cap * (sizeof *t->e + sizeof *t->s + 3 * sizeof *t->by_pair) +
         (t->values ? t->values : 1) * sizeof *t->of_val;
}
