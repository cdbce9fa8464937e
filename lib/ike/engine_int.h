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
/* The refusal of an authenticated request whose inside did not read (rc
 * of gostx__ike_chain_read over c) into w: UNSUPPORTED_CRITICAL_PAYLOAD
 * naming the payload's type (RFC 7296 2.5), else INVALID_SYNTAX; its type. */
uint16_t gostx__ike_w_unreadable(gostx_ike_writer *w, int rc, const gostx_ike_chain *c);
/* The engine's heap buffers (exchange.c): n octets (GOSTX_IKE_MSG_MAX
 * at most), NULL when out of memory; p (n octets) wiped and freed (NULL:
 * nothing). */
uint8_t *gostx__ike_alloc(size_t n);
void gostx__ike_free(uint8_t *p, size_t n);
/* *p (*len octets) replaced by a copy of src (n octets, which may be *p's
 * own), sized to fit; GOSTX_ENOMEM leaves *p as it was. */
int gostx__ike_keep(uint8_t **p, size_t *len, const uint8_t *src, size_t n);
/* *p wiped and freed, *len 0. */
void gostx__ike_drop(uint8_t **p, size_t *len);
/* What only the handshake needs (the IKE_SA_INIT messages, a set of
 * fragments being gathered; the initiator's IKE_AUTH request) freed at
 * IKE_AUTH's end. */
void gostx__ike_handshake_done(gostx_ike_engine *e);
/* Our outstanding request is answered or given up: e->pend none, e->req freed. */
void gostx__ike_pend_done(gostx_ike_engine *e);
/* The set of fragments and its buffer dropped (fragio.c). */
void gostx__ike_reasm_free(gostx_ike_engine *e);
/* e->tx out (and the initiator's retransmission timer started). */
int gostx__ike_send(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                    size_t *out_len);
/* Initiator: the IKE_AUTH request once the SA keys exist. */
int gostx__ike_auth_request(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                            size_t *out_len);
/* An IKE_AUTH message whose header engine.c has found expected. */
int gostx__ike_auth_input(gostx_ike_engine *e, const uint8_t *msg, size_t len, int64_t now_ms,
                          uint8_t *out, size_t cap, size_t *out_len);
/* fragio.c (RFC 7383). The inside (its first payload first) sealed into
 * e->tx under SK_e: one SK message, or fragments of at most
 * cf->frag_size when the peer announced them and it is larger. */
int gostx__ike_seal_out(gostx_ike_engine *e, const gostx_ike_hdr *h, uint8_t first,
                        const uint8_t *inner, size_t inner_len);
/* A received encrypted message of the Message ID expected (e->msg_id):
 * SK opened, or an SKF fragment added to the set. GOSTX_OK: the whole
 * inside in plain (*h the message's header); GOSTX_IKE_PARTIAL: a
 * fragment held, the message not yet whole; else the drop codes of
 * gostx__ike_sk_open and gostx__ike_reasm_add. A set not whole within
 * gostx__ike_reasm_timeout_ms of its first fragment is dropped first. */
enum { GOSTX_IKE_PARTIAL = 1 };
int gostx__ike_open_in(gostx_ike_engine *e, const uint8_t *msg, size_t len, int64_t now_ms,
                       gostx_ike_hdr *h, uint8_t *first, uint8_t *plain, size_t cap,
                       size_t *plain_len);
/* RFC 7383 2.6: fragments of a message not whole in this time are
 * discarded; as RECOMMENDED there, the time an initiator waits before it
 * gives up on an exchange (every retransmission's timeout summed). */
int64_t gostx__ike_reasm_timeout_ms(const gostx_ike_conf *cf);
/* The set wiped once its timeout has passed (gostx__ike_timer). */
void gostx__ike_reasm_expire(gostx_ike_engine *e, int64_t now_ms);
/* 1 for a fragment message other than fragment 1 (or one that does not
 * read): a retransmitted request's later fragments bring no answer (2.6.1). */
int gostx__ike_later_fragment(const uint8_t *msg, size_t len);
/* nat.c: 1 for an IPv4 or IPv6 address. */
int gostx__ike_addr_ok(const gostx_ike_addr *a);
/* SHA-1(SPIi | SPIr | IP | port) (RFC 7296 2.23). */
void gostx__ike_nat_hash(const uint8_t spi_i[8], const uint8_t spi_r[8],
                         const gostx_ike_addr *a, uint8_t out[GOSTX_IKE_NAT_HASH_LEN]);
/* N(NAT_DETECTION_SOURCE_IP), N(NAT_DETECTION_DESTINATION_IP) of e's
 * addresses and SPIs (nothing without addresses). */
void gostx__ike_w_nat(gostx_ike_writer *w, const gostx_ike_engine *e);
/* The peer's NAT notifies in its IKE_SA_INIT c, against e's addresses and
 * SPIs as they stood in that message: e->nat_*. GOSTX_EFORMAT for one
 * whose data is not a 20-octet hash. */
int gostx__ike_nat_check(gostx_ike_engine *e, const gostx_ike_chain *c);

/* engine.c: our ephemeral key for group into e->priv/e->pub (e->group);
 * our nonce (32 octets) and IKE SPI: random, or the test's fixed ones. */
int gostx__ike_new_ke(gostx_ike_engine *e, uint16_t group);
int gostx__ike_draw_nonce(const gostx_ike_engine *e, uint8_t out[32]);
int gostx__ike_draw_spi(const gostx_ike_engine *e, uint8_t out[8]);

/* ---- once established (live.c: shared; xchg.c: the dispatch) ---- */
/* At IKE_AUTH's end: the Message ID windows and the I flag from its roles. */
void gostx__ike_live(gostx_ike_engine *e);
/* A datagram for an established engine (its current or old IKE SA). */
int gostx__ike_live_input(gostx_ike_engine *e, const uint8_t *msg, size_t len,
                          const gostx_ike_hdr *h, int64_t now_ms, uint8_t *out, size_t cap,
                          size_t *out_len);
int gostx__ike_live_timer(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                          size_t *out_len);
/* e->ev emptied (left alone when empty: a dropped datagram changes nothing). */
void gostx__ike_ev_clear(gostx_ike_engine *e);
/* w's inside sealed over the current IKE SA (old 0) or old_sa[old - 1]. */
int gostx__ike_seal_sa(gostx_ike_engine *e, int old, uint8_t exchange, int response,
                       uint32_t msg_id, const gostx_ike_writer *w, uint8_t *dst, size_t cap,
                       size_t *len);
/* m (len) into out (cap): GOSTX_ELEN when it does not fit. */
int gostx__ike_copy_out(const uint8_t *m, size_t len, uint8_t *out, size_t cap, size_t *out_len);
/* GOSTX_OK when a request of ours may start now (ESTABLISHED, none out). */
int gostx__ike_may_request(gostx_ike_engine *e);
/* Our request (the inside in w) sealed over the current IKE SA (old 0) or
 * old_sa[old - 1] into e->req, sent and timed; e->pend = kind. */
int gostx__ike_request(gostx_ike_engine *e, uint8_t exchange, uint8_t kind, int old,
                       gostx_ike_writer *w, int64_t now_ms, uint8_t *out, size_t cap,
                       size_t *out_len);
/* A notify with protocol and SPI. */
void gostx__ike_w_notify_spi(gostx_ike_writer *w, uint16_t type, uint8_t proto,
                             const uint8_t *spi, size_t spi_len);
/* An ESP proposal: spi, e->encr, a KE of group when not 0, no ESN (RFC
 * 9227's transforms carry no integrity). */
/* One proposal (number num, protocol proto, the SPI given) with ENCR encr
 * as its first transform, the only one in sa: the caller adds the rest. */
gostx_ike_proposal *gostx__ike_proposal_one(gostx_ike_sa *sa, uint8_t num, uint8_t proto,
                                            const uint8_t *spi, uint8_t spi_len, uint16_t encr);
void gostx__ike_esp_proposal(const gostx_ike_engine *e, uint8_t num, uint32_t spi,
                             uint16_t group, gostx_ike_sa *sa);
/* The first error notify (type below 16384) in c, 0 when none. */
uint16_t gostx__ike_error_of(const gostx_ike_chain *c);
/* g^ir of e->priv and the KE payload of c, which must be of group. */
int gostx__ike_peer_shared(gostx_ike_engine *e, const gostx_ike_chain *c, uint16_t group,
                           uint8_t *gir, size_t *gir_len);
/* The Nonce payload of c when it reads (16-256 octets), else NULL. */
const gostx_ike_payload *gostx__ike_nonce_of(const gostx_ike_chain *c);
/* The new SA of the exchange: e->ev.added. */
void gostx__ike_ev_added(gostx_ike_engine *e, const gostx_ike_child *ch, uint32_t replaces);
void gostx__ike_ev_retired(gostx_ike_engine *e, gostx_ike_child *ch);

/* ---- the exchanges (child.c, ikesa.c, info.c): requests read into the
 * response's inside w; responses read into e (the request's kind given) ---- */
int gostx__ike_child_request(gostx_ike_engine *e, const gostx_ike_chain *c, gostx_ike_writer *w);
int gostx__ike_child_response(gostx_ike_engine *e, const gostx_ike_chain *c, int64_t now_ms,
                              uint8_t *out, size_t cap, size_t *out_len);
/* 1 when c's SA payload proposes an IKE SA (a rekey of it), not a Child SA. */
int gostx__ike_is_ike_rekey(const gostx_ike_chain *c);
int gostx__ike_ikesa_request(gostx_ike_engine *e, const gostx_ike_chain *c, gostx_ike_writer *w,
                             gostx_ike_new_sa *ns);
/* ns becomes the current IKE SA (its initiator the original initiator,
 * 2.18), the current one e->old_sa[0] until its Delete. */
int gostx__ike_ikesa_switch(gostx_ike_engine *e, const gostx_ike_new_sa *ns);
/* A Delete of the IKE SA while a simultaneous rekey's new SA waits: the
 * peer did not see the collision (2.8.2); ns takes that SA, our own rekey
 * is forgotten. 0 when none waits. */
int gostx__ike_ikesa_deleted_in_rekey(gostx_ike_engine *e, gostx_ike_new_sa *ns);
int gostx__ike_ikesa_response(gostx_ike_engine *e, const gostx_ike_chain *c, int64_t now_ms,
                              uint8_t *out, size_t cap, size_t *out_len);
int gostx__ike_info_request(gostx_ike_engine *e, const gostx_ike_chain *c, gostx_ike_writer *w,
                            gostx_ike_new_sa *ns);
void gostx__ike_info_response(gostx_ike_engine *e, uint8_t kind, const gostx_ike_chain *c);

#endif
