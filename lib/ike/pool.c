/* The inner address pool a gateway leases its remote users' addresses from
 * (RFC 7296 2.19): slot i of the caller's table is host i + 1 of the range,
 * so nothing is allocated per lease, and a released slot keeps its holder's
 * identity until the pool runs out of never-used ones, so that a user who
 * comes back soon gets the same address. A lease is a linear walk of the
 * table: a gateway's hundreds of users, not millions. */
#include <string.h>

#include "gostx/hash.h"
#include "ike.h"

/* The low 64 bits of an address (all of IPv4's) as a number. */
static uint64_t low64(const uint8_t *a, size_t alen) {
  uint64_t v = 0;
  for (size_t i = alen > 8 ? alen - 8 : 0; i < alen; i++) v = v << 8 | a[i];
  return v;
}

static void host(const gostx_ike_pool *p, uint32_t i, uint8_t *out) {
  memcpy(out, p->net, p->alen);
  uint64_t v = low64(p->net, p->alen) + i + 1; /* host bits start clear: no carry out */
  for (size_t k = p->alen; k-- > (p->alen > 8 ? p->alen - 8u : 0u); v >>= 8) out[k] = (uint8_t)v;
}

/* The slot of addr, or -1 when it is outside what the pool hands out. */
static int64_t slot_of(const gostx_ike_pool *p, const uint8_t *addr) {
  if (p->alen == 16 && memcmp(addr, p->net, 8)) return -1; /* prefix >= 64 */
  const uint64_t a = low64(addr, p->alen), n = low64(p->net, p->alen);
  if (a <= n || a - n - 1 >= p->size) return -1;
  return (int64_t)(a - n - 1);
}

int gostx__ike_pool_init(gostx_ike_pool *p, const uint8_t *net, size_t alen, unsigned prefix,
                         gostx_ike_lease *slots, size_t n_slots, size_t cap) {
  if (!p || !net || !slots || !n_slots) return GOSTX_EINVAL;
  memset(p, 0, sizeof *p);
  uint64_t hosts;
  if (alen == 4 && prefix <= 30) {
    hosts = ((uint64_t)1 << (32 - prefix)) - 2; /* no network, no broadcast */
  } else if (alen == 16 && prefix >= 64 && prefix <= 127) {
    const unsigned bits = 128 - prefix; /* no Subnet-Router anycast (RFC 4291 2.6.1) */
    hosts = bits >= 32 ? UINT32_MAX : ((uint64_t)1 << bits) - 1;
  } else {
    return GOSTX_EINVAL;
  }
  const unsigned bits = (unsigned)alen * 8 - prefix;
  const uint64_t host_mask = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  if (low64(net, alen) & host_mask) return GOSTX_EINVAL; /* not a network's address */
  p->alen = (uint8_t)alen;
  memcpy(p->net, net, alen);
  p->size = (uint32_t)(hosts < n_slots ? hosts : n_slots < UINT32_MAX ? n_slots : UINT32_MAX);
  p->cap = cap && cap < p->size ? (uint32_t)cap : p->size;
  p->slot = slots;
  memset(slots, 0, (size_t)p->size * sizeof *slots);
  return GOSTX_OK;
}

static int take(gostx_ike_pool *p, uint32_t i, const uint8_t id[32], uint8_t *out) {
  memcpy(p->slot[i].id, id, 32);
  p->slot[i].state = 1;
  p->held++;
  host(p, i, out);
  return GOSTX_OK;
}

static int64_t find(const gostx_ike_pool *p, const uint8_t id[32]) {
  for (uint32_t i = 0; i < p->size; i++)
    if (p->slot[i].state && !memcmp(p->slot[i].id, id, 32)) return i;
  return -1;
}

static int digest(const uint8_t *id, size_t id_len, uint8_t out[32]) {
  return id && id_len ? gostx_streebog(32, id, id_len, out) : GOSTX_EINVAL;
}

int gostx__ike_pool_lease(gostx_ike_pool *p, const uint8_t *id, size_t id_len,
                          const uint8_t *want, uint8_t *out) {
  uint8_t h[32];
  if (!p || !out || digest(id, id_len, h) != GOSTX_OK) return GOSTX_EINVAL;
  const int64_t mine = find(p, h);
  if (mine >= 0 && p->slot[mine].state == 1) { /* asked again: the same one */
    host(p, (uint32_t)mine, out);
    return GOSTX_OK;
  }
  if (p->held >= p->cap) return GOSTX_ELEN;
  if (mine >= 0) return take(p, (uint32_t)mine, h, out);
  const int64_t w = want ? slot_of(p, want) : -1;
  if (w >= 0 && p->slot[w].state == 0) return take(p, (uint32_t)w, h, out);
  int64_t oldest = -1;
  for (uint32_t i = 0; i < p->size; i++) {
    if (p->slot[i].state == 0) return take(p, i, h, out);
    if (p->slot[i].state == 2 && (oldest < 0 || p->slot[i].at < p->slot[oldest].at)) oldest = i;
  }
  return oldest >= 0 ? take(p, (uint32_t)oldest, h, out) : GOSTX_ELEN;
}

int gostx__ike_pool_release(gostx_ike_pool *p, const uint8_t *id, size_t id_len) {
  uint8_t h[32];
  if (!p || digest(id, id_len, h) != GOSTX_OK) return GOSTX_EINVAL;
  const int64_t i = find(p, h);
  if (i < 0 || p->slot[i].state != 1) return GOSTX_ESTATE;
  p->slot[i].state = 2;
  p->slot[i].at = ++p->tick;
  p->held--;
  return GOSTX_OK;
}
