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
/* fragio.c (RFC 7383). The inside (its first payload first) sealed into
 * e->tx under SK_e: one SK message, or fragments of at most
 * cf->frag_size when the peer announced them and it is larger. */
int gostx__ike_seal_out(gostx_ike_engine *e, const gostx_ike_hdr *h, uint8_t first,
                        const uint8_t *inner, size_t inner_len);
/* A received encrypted message of the Message ID expected (e->msg_id):
 * SK opened, or an SKF fragment added to the set. GOSTX_OK: the whole
 * inside in plain (*h the message's header); GOSTX_IKE_PARTIAL: a
 * fragment held, the message not yet whole; else the drop codes of
 * gostx__ike_sk_open and gostx__ike_reasm_add. */
enum { GOSTX_IKE_PARTIAL = 1 };
int gostx__ike_open_in(gostx_ike_engine *e, const uint8_t *msg, size_t len, gostx_ike_hdr *h,
                       uint8_t *first, uint8_t *plain, size_t cap, size_t *plain_len);
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

#endif
