/* PSK configurations for two test engines (ike_pair.h). */
#include "ike_pair.h"

#include <string.h>

static uint8_t pair_psk[32] = "a shared key of 32 octets here!";
static const uint8_t id_i[] = "IKE-Initiator", id_r[] = "IKE-Responder";

void ike_psk_pair(gostx_ike_conf *ci, gostx_ike_conf *cr, uint16_t encr, uint16_t group) {
  static const gostx_ike_ts_set any = {
      1, {{GOSTX_IKE_TS_IPV4, 0, 0, 65535, {0}, {255, 255, 255, 255}}}};
  memset(ci, 0, sizeof *ci);
  ci->role = GOSTX_IKE_INITIATOR;
  ci->encr = encr;
  ci->group = group;
  ci->auth = GOSTX_IKE_AUTH_PSK;
  ci->psk = pair_psk;
  ci->psk_len = sizeof pair_psk;
  ci->id_type = ci->peer_id_type = GOSTX_IKE_ID_FQDN;
  ci->id = id_i;
  ci->id_len = sizeof id_i - 1;
  ci->peer_id = id_r;
  ci->peer_id_len = sizeof id_r - 1;
  ci->tsi = ci->tsr = any;
  *cr = *ci;
  cr->role = GOSTX_IKE_RESPONDER;
  cr->id = id_r;
  cr->peer_id = id_i;
}

int ike_engine_fresh(gostx_ike_engine *e, const gostx_ike_conf *cf) {
  gostx__ike_engine_clear(e);
  return gostx__ike_engine_init(e, cf);
}
