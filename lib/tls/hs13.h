/* TLS 1.3's handshake, shared by its files: hs13.c (what both sides
 * use), handshake_client.c, handshake_server.c, and the state machine
 * (handshake.c). Internal. */
#ifndef GOSTX_TLS_HS13_H
#define GOSTX_TLS_HS13_H

#include "hs.h"

/* SHA-256("HelloRetryRequest"): the ServerHello random of a HelloRetryRequest. */
extern const uint8_t gostx__tls13_hrr_random[32];

/* hs13.c: the ephemeral key (c->group's), its share put in a message,
 * ECDHE with the peer's share (checked on the curve, in the subgroup) */
int gostx__tls13_new_ephemeral(gostx_tls *c);
void gostx__tls13_put_share(gostx_tls *c, wr *w);
int gostx__tls13_ecdhe(gostx_tls *c, const uint8_t *share, size_t len, uint8_t shared[64]);
/* the key schedule: handshake secrets and keys, application secrets,
 * resumption_master_secret; the transcript after a HelloRetryRequest */
int gostx__tls13_handshake_secrets(gostx_tls *c, uint8_t shared[64]);
int gostx__tls13_app_secrets(gostx_tls *c);
int gostx__tls13_res_master(gostx_tls *c);
void gostx__tls13_transcript_restart(gostx_tls *c);
/* a PSK binder (ticket: a resumption PSK, else the external one) over
 * msg's first trunc bytes */
int gostx__tls13_psk_binder(gostx_tls *c, int ticket, const uint8_t *msg, size_t trunc,
                            uint8_t binder[32]);
/* the messages both sides send and take */
int gostx__tls13_send_certificate(gostx_tls *c, int with_chain);
int gostx__tls13_on_certificate(gostx_tls *c, const uint8_t *body, size_t len);
int gostx__tls13_send_cv(gostx_tls *c);
int gostx__tls13_on_cv(gostx_tls *c, const uint8_t *body, size_t len);
int gostx__tls13_send_finished(gostx_tls *c);
int gostx__tls13_check_finished(gostx_tls *c, const uint8_t *body, size_t len);
int gostx__tls13_on_key_update(gostx_tls *c, const uint8_t *body, size_t len);
/* the handshake is over: its secrets wiped, CONNECTED */
void gostx__tls13_connected(gostx_tls *c);

/* handshake_client.c */
int gostx__tls13_on_server_hello(gostx_tls *c, const uint8_t *msg, size_t len);
int gostx__tls13_on_encrypted_extensions(gostx_tls *c, const uint8_t *body, size_t len);
int gostx__tls13_on_certificate_request(gostx_tls *c, const uint8_t *body, size_t len);
/* after the server's Finished: the client's last flight */
int gostx__tls13_client_finish(gostx_tls *c);

/* handshake_server.c */
int gostx__tls13_on_client_hello(gostx_tls *c, const uint8_t *msg, size_t len);
/* after the client's Finished: the read key, the tickets */
int gostx__tls13_server_finish(gostx_tls *c);

#endif
