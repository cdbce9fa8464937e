/* What engine.c (IKE_SA_INIT, dispatch) and auth.c (IKE_AUTH) share. */
#ifndef GOSTX_IKE_ENGINE_INT_H
#define GOSTX_IKE_ENGINE_INT_H

#include "engine.h"

/* Key Exchange Data length of group (2 x the curve's size), 0 if unknown. */
size_t gostx__ike_ke_len(uint16_t group);
/* A header for e's SA: our role's I flag, R for a response. */
void gostx__ike_hdr_of(const gostx_ike_engine *e, uint8_t exchange, int response,
                       uint32_t msg_id, gostx_ike_hdr *h);
/* A notify without protocol or SPI. */
void gostx__ike_w_notify_type(gostx_ike_writer *w, uint16_t type, const uint8_t *data,
                              size_t len);
/* e->tx out (and the initiator's retransmission timer started). */
int gostx__ike_send(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                    size_t *out_len);
/* Initiator: the IKE_AUTH request once the SA keys exist. */
int gostx__ike_auth_request(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                            size_t *out_len);
/* An IKE_AUTH message whose header engine.c has found expected. */
int gostx__ike_auth_input(gostx_ike_engine *e, const uint8_t *msg, size_t len, int64_t now_ms,
                          uint8_t *out, size_t cap, size_t *out_len);

#endif
