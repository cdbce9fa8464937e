/* The responder's COOKIE (RFC 7296 2.6): under load, a new IKE_SA_INIT
 * request is answered with a cookie and nothing is kept until the
 * initiator comes back with it, so a flood from forged addresses costs no
 * state and no key exchange. Cookie = version | prf(secret, Ni | IPi |
 * SPIi) cut to 32 octets: HMAC-Streebog-512 (the IKE SA's PRF) where 2.6
 * suggests a hash, the secret the caller's (and its version, so that a new
 * secret can be rolled in). */
#include <string.h>

#include "engine_int.h"

enum { COOKIE_LEN = 1 + 32 };

static int cookie_of(const uint8_t secret[32], uint8_t version, const uint8_t *ni,
                     size_t ni_len, const uint8_t *ip, size_t ip_len, const uint8_t spi_i[8],
                     uint8_t out[COOKIE_LEN]) {
  uint8_t in[256 + 16 + 8], mac[GOSTX_IKE_PRF_LEN];
  if (ni_len > 256 || ip_len > 16) return GOSTX_ELEN;
  memcpy(in, ni, ni_len);
  memcpy(in + ni_len, ip, ip_len);
  memcpy(in + ni_len + ip_len, spi_i, 8);
  int rc = gostx__ike_prf(secret, 32, in, ni_len + ip_len + 8, NULL, 0, mac);
  out[0] = version;
  memcpy(out + 1, mac, 32);
  gostx_memzero(mac, sizeof mac);
  return rc;
}

/* The request's COOKIE when it is the first payload (2.6), else NULL. */
static const gostx_ike_notify *first_cookie(const gostx_ike_chain *c, gostx_ike_notify *n) {
  if (!c->n || c->p[0].type != GOSTX_IKE_PT_NOTIFY) return NULL;
  if (gostx__ike_notify_read(c->p[0].body, c->p[0].len, n) != GOSTX_OK) return NULL;
  return n->type == GOSTX_IKE_N_COOKIE ? n : NULL;
}

static int cookie_response(const gostx_ike_hdr *req, const uint8_t cookie[COOKIE_LEN],
                           uint8_t *out, size_t cap, size_t *out_len) {
  gostx_ike_hdr h = *req;
  gostx_ike_writer w;
  h.flags = GOSTX_IKE_FLAG_R;
  gostx__ike_w_msg(&w, out, cap, &h);
  gostx__ike_w_notify_type(&w, GOSTX_IKE_N_COOKIE, cookie, COOKIE_LEN);
  int rc = gostx__ike_w_finish(&w, out_len);
  return rc == GOSTX_OK ? 1 : rc;
}

int gostx__ike_cookie_gate(const uint8_t secret[32], uint8_t version, size_t half_open,
                           size_t threshold, const uint8_t *msg, size_t len,
                           const uint8_t *peer_ip, size_t ip_len, uint8_t *out, size_t cap,
                           size_t *out_len) {
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_notify n;
  uint8_t want[COOKIE_LEN];
  if (!secret || !msg || !out || !out_len || (!peer_ip && ip_len)) return GOSTX_EINVAL;
  *out_len = 0;
  static const uint8_t zero[8];
  if (gostx__ike_hdr_read(msg, len, &h) != GOSTX_OK) return GOSTX_EFORMAT;
  /* 3.1: SPIi never zero, SPIr zero */
  if (h.exchange != GOSTX_IKE_SA_INIT || h.msg_id || h.flags != GOSTX_IKE_FLAG_I ||
      !memcmp(h.spi_i, zero, 8) || memcmp(h.spi_r, zero, 8))
    return GOSTX_EFORMAT;
  int rc =
      gostx__ike_chain_read(h.next, msg + GOSTX_IKE_HDR_LEN, len - GOSTX_IKE_HDR_LEN, &c, NULL);
  /* a critical payload we do not know: refused by the engine with no key
   * exchange (UNSUPPORTED_CRITICAL_PAYLOAD, 2.5), no cookie first */
  if (rc == GOSTX_EUNSUP) return GOSTX_OK;
  if (rc != GOSTX_OK) return GOSTX_EFORMAT;
  const gostx_ike_payload *np = gostx__ike_find(&c, GOSTX_IKE_PT_NONCE);
  if (!np || gostx__ike_nonce_read(np->body, np->len) != GOSTX_OK) return GOSTX_EFORMAT;
  if (half_open < threshold) return GOSTX_OK;
  rc = cookie_of(secret, version, np->body, np->len, peer_ip, ip_len, h.spi_i, want);
  if (rc != GOSTX_OK) return rc;
  const gostx_ike_notify *got = first_cookie(&c, &n);
  if (got && got->data_len == COOKIE_LEN && gostx_memeq_ct(got->data, want, COOKIE_LEN) == 0)
    return GOSTX_OK;
  return cookie_response(&h, want, out, cap, out_len);
}
