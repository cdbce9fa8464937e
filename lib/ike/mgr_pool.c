/* What a gateway's IKE daemon takes of lib/ike beside the manager
 * (manager.h): its remote users' IDs as text and against the remote_id
 * patterns, and the inner address pool their CFG_REQUESTs draw from. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

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
