/* What a gateway's IKE daemon takes of lib/ike beside the manager
 * (manager.h): its remote users' IDs as text and against the remote_id
 * patterns, the inner address pool their CFG_REQUESTs draw from, and the
 * cookie gate in front of all their managers. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "mgr_int.h"

const char *gostx__ike_mgr_id_text(uint8_t type, const uint8_t *id, size_t len, char *out,
                                   size_t cap) {
  if (!cap) return out;
  out[0] = 0;
  if ((type == GOSTX_IKE_ID_IPV4_ADDR && len == 4) ||
      (type == GOSTX_IKE_ID_IPV6_ADDR && len == 16)) {
    char a[INET6_ADDRSTRLEN];
    if (inet_ntop(len == 4 ? AF_INET : AF_INET6, id, a, sizeof a)) snprintf(out, cap, "%s", a);
    return out;
  }
  if (type == GOSTX_IKE_ID_DER_ASN1_DN && gostx_x509_name_text(id, len, out, cap) == GOSTX_OK)
    return out;
  size_t n = 0; /* a name (or a DN that is no Name): its printable octets */
  for (size_t i = 0; i < len && n + 1 < cap; i++)
    out[n++] = id[i] >= 0x20 && id[i] < 0x7f ? (char)id[i] : '?';
  out[n] = 0;
  return out;
}

int gostx__ike_mgr_id_match(const char *pattern, uint8_t type, const uint8_t *id, size_t len) {
  return gostx__ike_id_match(pattern, type, id, len);
}

struct gostx__ike_mgr_pool {
  gostx_ike_pool p;
  gostx_ike_lease slot[]; /* one per address */
};

gostx__ike_mgr_pool *gostx__ike_mgr_pool_new(const uint8_t *net, size_t alen, unsigned prefix,
                                             size_t cap) {
  /* the table's slots: the range's hosts, at most 2^16 (a gateway's users) */
  const unsigned bits = (unsigned)alen * 8 - prefix;
  const size_t n = bits >= 16 ? 65536 : (size_t)1 << bits;
  gostx__ike_mgr_pool *p = calloc(1, sizeof *p + n * sizeof p->slot[0]);
  if (p && gostx__ike_pool_init(&p->p, net, alen, prefix, p->slot, n, cap) != GOSTX_OK) {
    free(p);
    p = NULL;
  }
  return p;
}

void gostx__ike_mgr_pool_free(gostx__ike_mgr_pool *p) { free(p); }

int gostx__ike_mgr_pool_lease(gostx__ike_mgr_pool *p, const uint8_t *id, size_t len,
                              uint8_t *out) {
  return gostx__ike_pool_lease(&p->p, id, len, NULL, out) == GOSTX_OK ? 0 : -1;
}

int gostx__ike_mgr_pool_release(gostx__ike_mgr_pool *p, const uint8_t *id, size_t len) {
  return gostx__ike_pool_release(&p->p, id, len) == GOSTX_OK ? 0 : -1;
}

struct gostx__ike_mgr_gate {
  uint8_t secret[32];
  size_t all_at;
};

gostx__ike_mgr_gate *gostx__ike_mgr_gate_new(size_t all_at) {
  gostx__ike_mgr_gate *g = calloc(1, sizeof *g);
  if (g && gostx_random_bytes(g->secret, sizeof g->secret)) {
    free(g);
    g = NULL;
  }
  if (g) g->all_at = all_at ? all_at : 1;
  return g;
}

void gostx__ike_mgr_gate_free(gostx__ike_mgr_gate *g) {
  if (!g) return;
  gostx_memzero(g, sizeof *g); /* the secret */
  free(g);
}

int gostx__ike_mgr_gate_check(gostx__ike_mgr_gate *g, const uint8_t *msg, size_t len,
                              const gostx__ike_mgr_to *from, size_t half_open, size_t from_src,
                              gostx__ike_mgr_event *ev) {
  const int loaded = from_src >= GOSTX_IKE_MGR_GATE_PER_SOURCE || half_open >= g->all_at;
  gostx_ike_addr ip;
  gostx__ike_mgr_ike_addr(&from->addr, &ip);
  size_t n = 0;
  /* version 1, as the managers' own gates: a rolled secret would be 2 */
  const int rc = gostx__ike_cookie_gate(g->secret, 1, (size_t)loaded, 1, msg, len, ip.ip,
                                        ip.ip_len, ev->data, sizeof ev->data, &n);
  if (rc == 1) {
    ev->type = GOSTX_IKE_MGR_SEND;
    ev->to = *from;
    ev->len = n;
    return GOSTX_IKE_MGR_GATE_COOKIE;
  }
  return rc == GOSTX_OK ? GOSTX_IKE_MGR_GATE_GO : GOSTX_IKE_MGR_GATE_DROP;
}
