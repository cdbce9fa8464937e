/* gostx tunnel, keying = ikev2: the one way IKE gives the data path its
 * keys, through the SA interface (tunnel_sa.h): the Child SA's inbound SA
 * linked first, then its outbound SA switched to (make-before-break: the
 * peer may seal to us before we seal to it). lib/ike's manager calls them
 * (through ike/ike_daemon.c) for the first Child SA and for each rekey. */
#define _GNU_SOURCE
#include "ike/manager.h"
#include "tunnel.h"
#include "tunnel_sa.h"

struct tunnel_sa *tunnel_ike_child_sa(const struct tunnel *t,
                                     const struct gostx__ike_mgr_child *c,
                                     enum tunnel_sa_dir dir) {
  const int in = dir == TUNNEL_SA_IN;
  /* IKEv2's ENCR numbers are RFC 9227's transform ids */
  struct tunnel_sa_params p = {dir,
                               (gostx_esp_transform)c->encr,
                               in ? c->spi_in : c->spi_out,
                               in ? c->key_in : c->key_out,
                               c->key_len,
                               c->esn,
                               in ? 0 : t->cfg.limit};
  return tunnel_sa_new(&p, t->cfg.threads);
}

/* The Child SA's inbound SA linked; its outbound SA made, not linked (the
 * caller switches to it when the engine says so): NULL on failure. */
struct tunnel_sa *tunnel_ike_add_child(struct tunnel *t,
                                       const struct gostx__ike_mgr_child *c) {
  struct tunnel_sa *in = tunnel_ike_child_sa(t, c, TUNNEL_SA_IN),
                    *out = tunnel_ike_child_sa(t, c, TUNNEL_SA_OUT);
  if (in && out && !tunnel_sa_add_in(t, in)) return out; /* each call takes t->sa_lock */
  tunnel_sa_free(in);
  tunnel_sa_free(out);
  return NULL;
}

/* Seals with out (c's outbound SA) from now on; the one before retired.
 * out is the tunnel's either way (freed on failure). */
int tunnel_ike_switch(struct tunnel *t, struct tunnel_sa *out,
                      const struct gostx__ike_mgr_child *c) {
  if (tunnel_sa_switch_out(t, out)) {
    tunnel_sa_free(out);
    return -1;
  }
  /* what --status and the workers' messages name */
  t->cfg.transform = (gostx_esp_transform)c->encr;
  t->cfg.spi_out = c->spi_out;
  t->cfg.spi_in = c->spi_in;
  t->cfg.esn_off = !c->esn;
  return 0;
}
