/* NAT detection (RFC 7296 2.23): each side's IKE_SA_INIT carries
 * NAT_DETECTION_SOURCE_IP = SHA-1(SPIi | SPIr | its IP | its port) and
 * NAT_DETECTION_DESTINATION_IP = the same over the address it sends to; the
 * receiver compares them with the addresses the datagram really came from
 * and went to. A mismatch says a NAT rewrote them: the daemon moves to port
 * 4500 (UDP encapsulation) and sends keepalives from the side behind it.
 * SHA-1 is what 2.23 fixes; the hashes are not secret. */
#include <string.h>

#include "engine_int.h"
#include "sha1/sha1.h"

int gostx__ike_addr_ok(const gostx_ike_addr *a) {
  return a && (a->ip_len == 4 || a->ip_len == 16);
}

void gostx__ike_nat_hash(const uint8_t spi_i[8], const uint8_t spi_r[8],
                         const gostx_ike_addr *a, uint8_t out[GOSTX_IKE_NAT_HASH_LEN]) {
  const uint8_t port[2] = {(uint8_t)(a->port >> 8), (uint8_t)a->port};
  gostx__sha1_ctx s;
  gostx__sha1_init(&s);
  gostx__sha1_update(&s, spi_i, 8);
  gostx__sha1_update(&s, spi_r, 8);
  gostx__sha1_update(&s, a->ip, a->ip_len);
  gostx__sha1_update(&s, port, 2);
  gostx__sha1_final(&s, out);
}

void gostx__ike_w_nat(gostx_ike_writer *w, const gostx_ike_engine *e) {
  uint8_t src[GOSTX_IKE_NAT_HASH_LEN], dst[GOSTX_IKE_NAT_HASH_LEN];
  if (!gostx__ike_addr_ok(&e->local)) return; /* the caller gave no addresses */
  if (e->cf->force_encap)
    memset(src, 0, sizeof src); /* no address hashes to zeros: a NAT for the peer */
  else
    gostx__ike_nat_hash(e->spi_i, e->spi_r, &e->local, src);
  gostx__ike_nat_hash(e->spi_i, e->spi_r, &e->remote, dst);
  gostx__ike_w_notify_type(w, GOSTX_IKE_N_NAT_DETECTION_SOURCE_IP, src, sizeof src);
  gostx__ike_w_notify_type(w, GOSTX_IKE_N_NAT_DETECTION_DESTINATION_IP, dst, sizeof dst);
}

/* One NAT notify of c: its hash into h. 0: not one, 1: one, GOSTX_EFORMAT:
 * one whose hash is not 20 octets or that names a protocol or an SPI. */
static int nat_notify(const gostx_ike_payload *p, uint16_t type, uint8_t *h) {
  gostx_ike_notify n;
  if (gostx__ike_notify_read(p->body, p->len, &n) != GOSTX_OK) return GOSTX_EFORMAT;
  if (n.type != type) return 0;
  if (n.data_len != GOSTX_IKE_NAT_HASH_LEN || n.proto || n.spi_len) return GOSTX_EFORMAT;
  memcpy(h, n.data, GOSTX_IKE_NAT_HASH_LEN);
  return 1;
}

/* Whether any notify of type in c carries want: -1 none of that type, 0 no
 * match, 1 a match (2.23 allows several SOURCE_IP, one per address). */
static int nat_match(const gostx_ike_chain *c, uint16_t type, const uint8_t *want, int *rc) {
  int seen = -1;
  uint8_t h[GOSTX_IKE_NAT_HASH_LEN];
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NOTIFY); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_NOTIFY)) {
    const int r = nat_notify(p, type, h);
    if (r < 0) *rc = r;
    if (r == 1) seen = seen == 1 || !memcmp(h, want, sizeof h);
  }
  return seen;
}

int gostx__ike_nat_check(gostx_ike_engine *e, const gostx_ike_chain *c) {
  uint8_t peer[GOSTX_IKE_NAT_HASH_LEN] = {0}, ours[GOSTX_IKE_NAT_HASH_LEN] = {0};
  int rc = GOSTX_OK;
  const int known = gostx__ike_addr_ok(&e->local);
  if (known) {
    /* the peer's SOURCE_IP against where the datagram came from; its
     * DESTINATION_IP against where it came to (us) */
    gostx__ike_nat_hash(e->spi_i, e->spi_r, &e->remote, peer);
    gostx__ike_nat_hash(e->spi_i, e->spi_r, &e->local, ours);
  }
  const int src = nat_match(c, GOSTX_IKE_N_NAT_DETECTION_SOURCE_IP, peer, &rc);
  const int dst = nat_match(c, GOSTX_IKE_N_NAT_DETECTION_DESTINATION_IP, ours, &rc);
  if (rc != GOSTX_OK || !known) return rc; /* malformed ones refused either way */
  e->nat_detection = src >= 0 && dst >= 0; /* 2.23: both MUST be sent */
  e->nat_peer = src == 0;
  e->nat_local = dst == 0;
  return GOSTX_OK;
}
