/* gostx tunnel, keying = ikev2: the one way IKE gives the data path its
 * keys. For now it sets what static keying sets (the transform, the SPIs,
 * the two SAs) before the workers start; the tunnel's SA interface (add
 * inbound, switch outbound, retire) replaces its body. */
#define _GNU_SOURCE
#include "ike/engine.h"
#include "tunnel.h"

int tunnel_ike_install(struct tunnel *t, const struct gostx_ike_child *c) {
  /* the workers read the SAs without a lock: only before they start */
  if (t->nworkers || !c->valid) return -1;
  /* IKEv2's ENCR numbers are RFC 9227's transform ids */
  const gostx_esp_transform tr = (gostx_esp_transform)c->encr;
  gostx_esp_sa_clear(&t->sa_out);
  gostx_esp_sa_clear(&t->sa_in);
  int rc = gostx_esp_sa_init(&t->sa_out, tr, c->spi_out, c->key_out, c->key_len);
  if (!rc) rc = gostx_esp_sa_init(&t->sa_in, tr, c->spi_in, c->key_in, c->key_len);
  /* ESN off before the limit: it caps the limit at 2^32 - 1 */
  if (!rc && !c->esn)
    rc = gostx_esp_sa_set_esn(&t->sa_out, 0) || gostx_esp_sa_set_esn(&t->sa_in, 0);
  if (!rc && t->cfg.limit) rc = gostx_esp_sa_set_limit(&t->sa_out, t->cfg.limit);
  if (rc) {
    gostx_esp_sa_clear(&t->sa_out);
    gostx_esp_sa_clear(&t->sa_in);
    return -1;
  }
  t->cfg.transform = tr;
  t->cfg.spi_out = c->spi_out;
  t->cfg.spi_in = c->spi_in;
  t->cfg.esn_off = !c->esn;
  /* fresh keys: their sequence numbers and window start over */
  atomic_store(&t->seq_used, 0);
  gostx_esp_replay_init(&t->replay);
  return 0;
}
