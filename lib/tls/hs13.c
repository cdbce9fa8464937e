/* TLS 1.3's handshake (RFC 8446 section 4, the RFC 9367 profile): what
 * both sides use. The ephemeral key and its shares (x || y little-endian,
 * RFC 9367 6.1.1.3), ECDHE (the peer's point checked on the curve and in
 * the order-q subgroup, 6.1.1), the key schedule's stages, the transcript's
 * restart after a HelloRetryRequest, CertificateVerify (schemes
 * 0x0709-0x070F over Streebog-256 or -512 of RFC 8446 4.4.3's content),
 * Finished, the PSK binders, Certificate, the handshake's end and a
 * KeyUpdate taken. */
#include "hs13.h"

#define fail gostx__tls_hs_fail

#include <stdio.h>

#include "gost3410/ec.h"
#include "gost3410/ecdh.h"

/* SHA-256("HelloRetryRequest"): the ServerHello random of a HelloRetryRequest. */
const uint8_t gostx__tls13_hrr_random[32] = {
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

/* A fresh ephemeral key for c->group (c->hs->eph_priv, c->hs->eph_pub). */
int gostx__tls13_new_ephemeral(gostx_tls *c) {
  gostx_gost3410_curve curve = gostx__tls_group_curve(c->group);
  size_t cl = gostx_gost3410_size(curve);
  int rc;
  if (GOSTX__TLS_HOOKS(c->cfg)->eph_priv) {
    memcpy(c->hs->eph_priv, GOSTX__TLS_HOOKS(c->cfg)->eph_priv, cl);
    rc = gostx_gost3410_public_key(curve, c->hs->eph_priv, cl, c->hs->eph_pub, 2 * cl);
  } else {
    rc = gostx_gost3410_keygen(curve, c->hs->eph_priv, cl, c->hs->eph_pub, 2 * cl);
  }
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "ephemeral key");
  return GOSTX_OK;
}

/* The ephemeral key's share (wire order) into w. */
void gostx__tls13_put_share(gostx_tls *c, wr *w) {
  size_t cl = gostx_gost3410_size(gostx__tls_group_curve(c->group));
  uint8_t le[128];
  gostx__tls_swap_point(le, c->hs->eph_pub, cl);
  put(w, 2 * cl, 2);
  put_bytes(w, le, 2 * cl);
}

/* The ECDHE shared secret (cl bytes) of our ephemeral key and the peer's
 * share (wire order), checked on the curve and in the order-q subgroup
 * (RFC 9367 6.1.1.1 step 5, 6.1.1.2 step 2: handshake_failure); our
 * private key is wiped. */
int gostx__tls13_ecdhe(gostx_tls *c, const uint8_t *share, size_t len, uint8_t shared[64]) {
  gostx_gost3410_curve curve = gostx__tls_group_curve(c->group);
  size_t cl = gostx_gost3410_size(curve);
  if (len != 2 * cl) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "key share of the wrong length");
  uint8_t be[128];
  gostx__tls_swap_point(be, share, cl);
  int rc = gostx__gost3410_ecdh(curve, c->hs->eph_priv, cl, be, 2 * cl, shared, cl);
  gostx_memzero(c->hs->eph_priv, sizeof c->hs->eph_priv);
  if (rc != GOSTX_OK)
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE,
                "the peer's key share is not a point of the group's order-q subgroup");
  return GOSTX_OK;
}

/* The handshake secret and both handshake traffic secrets from the ECDHE
 * shared secret (wiped); the transcript holds both hellos. */
int gostx__tls13_handshake_secrets(gostx_tls *c, uint8_t shared[64]) {
  size_t cl = gostx_gost3410_size(gostx__tls_group_curve(c->group));
  uint8_t early[32], th[32];
  gostx__tls_th_hash(c, th);
  int rc = c->psk ? gostx__tls_next_secret(NULL, c->hs->psk_key, 32, early)
                  : gostx__tls_next_secret(NULL, NULL, 0, early);
  if (rc == GOSTX_OK) rc = gostx__tls_next_secret(early, shared, cl, c->hs->hs_secret);
  if (rc == GOSTX_OK)
    rc = gostx__tls_derive_secret(c->hs->hs_secret, GOSTX__TLS_LABEL_C_HS_TRAFFIC, th, c->hs->c_hs);
  if (rc == GOSTX_OK)
    rc = gostx__tls_derive_secret(c->hs->hs_secret, GOSTX__TLS_LABEL_S_HS_TRAFFIC, th, c->hs->s_hs);
  gostx_memzero(shared, 64);
  gostx_memzero(early, sizeof early);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "key schedule");
  gostx__tls_keylog(c, "CLIENT_HANDSHAKE_TRAFFIC_SECRET", c->hs->c_hs);
  gostx__tls_keylog(c, "SERVER_HANDSHAKE_TRAFFIC_SECRET", c->hs->s_hs);
  return GOSTX_OK;
}

/* The main secret and both application traffic secrets (the transcript
 * ends with the server's Finished). */
int gostx__tls13_app_secrets(gostx_tls *c) {
  uint8_t th[32];
  gostx__tls_th_hash(c, th);
  int rc = gostx__tls_next_secret(c->hs->hs_secret, NULL, 0, c->hs->master);
  if (rc == GOSTX_OK)
    rc = gostx__tls_derive_secret(c->hs->master, GOSTX__TLS_LABEL_C_AP_TRAFFIC, th, c->c_ap);
  if (rc == GOSTX_OK)
    rc = gostx__tls_derive_secret(c->hs->master, GOSTX__TLS_LABEL_S_AP_TRAFFIC, th, c->s_ap);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "key schedule");
  gostx__tls_keylog(c, "CLIENT_TRAFFIC_SECRET_0", c->c_ap);
  gostx__tls_keylog(c, "SERVER_TRAFFIC_SECRET_0", c->s_ap);
  return GOSTX_OK;
}

/* Replaces the transcript by message_hash(Hash(ClientHello1)) (RFC 8446
 * section 4.4.1) before the HelloRetryRequest is added. */
void gostx__tls13_transcript_restart(gostx_tls *c) {
  uint8_t mh[4 + 32] = {GOSTX__HS_MESSAGE_HASH, 0, 0, 32};
  gostx__tls_th_hash(c, mh + 4);
  gostx_streebog_init(&c->hs->th, GOSTX__TLS_HASH_LEN);
  gostx__tls_th_add(c, mh, sizeof mh);
}

/* ---------------- CertificateVerify and Finished ---------------- */

static const char cv_server[] = "TLS 1.3, server CertificateVerify";
static const char cv_client[] = "TLS 1.3, client CertificateVerify";

/* The digest of RFC 8446 section 4.4.3's content for a signer of role. */
static void cv_digest(const gostx_tls *c, gostx_tls_role signer, size_t cl, uint8_t *digest) {
  uint8_t content[64 + sizeof cv_server + 32];
  memset(content, 0x20, 64);
  memcpy(content + 64, signer == GOSTX_TLS_SERVER ? cv_server : cv_client, sizeof cv_server);
  gostx__tls_th_hash(c, content + 64 + sizeof cv_server);
  gostx_streebog(cl, content, sizeof content, digest);
}

int gostx__tls13_send_cv(gostx_tls *c) {
  uint8_t digest[64];
  cv_digest(c, c->role, gostx_gost3410_size(c->cfg->key.curve), digest);
  return gostx__tls_send_signature(c, gostx__tls_curve_scheme(c->cfg->key.curve), digest);
}

int gostx__tls13_on_cv(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  unsigned scheme = get(&r, 2);
  rd sig = vec(&r, 2, 1);
  if (r.bad || r.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed CertificateVerify");
  gostx_gost3410_curve curve = gostx__tls_scheme_curve(scheme);
  if (!c->have_peer_key) return fail(c, GOSTX__ALERT_INTERNAL_ERROR, "no peer key");
  if (!curve || curve != c->peer_curve)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER,
                "CertificateVerify's scheme is not the one of the certificate's key");
  uint8_t digest[64];
  cv_digest(c, c->role == GOSTX_TLS_CLIENT ? GOSTX_TLS_SERVER : GOSTX_TLS_CLIENT,
            gostx_gost3410_size(curve), digest);
  int rc = gostx__tls_check_signature(c, digest, sig.p, sig.n);
  if (rc != GOSTX_OK) return rc;
  c->scheme = (uint16_t)scheme;
  return GOSTX_OK;
}

static int finished_mac(gostx_tls *c, const uint8_t secret[32], uint8_t mac[32]) {
  uint8_t key[32], th[32];
  gostx__tls_th_hash(c, th);
  int rc = gostx__tls_finished_key(secret, key);
  if (rc == GOSTX_OK) rc = gostx__tls_finished_mac(key, th, mac);
  gostx_memzero(key, sizeof key);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "Finished");
  return GOSTX_OK;
}

int gostx__tls13_send_finished(gostx_tls *c) {
  uint8_t mac[32];
  int rc = finished_mac(c, c->role == GOSTX_TLS_CLIENT ? c->hs->c_hs : c->hs->s_hs, mac);
  if (rc != GOSTX_OK) return rc;
  wr w = msg_start(c, GOSTX__HS_FINISHED);
  put_bytes(&w, mac, 32);
  return msg_send(c, &w);
}

int gostx__tls13_check_finished(gostx_tls *c, const uint8_t *body, size_t len) {
  uint8_t mac[32];
  if (len != 32) return fail(c, GOSTX__ALERT_DECODE_ERROR, "Finished of the wrong length");
  int rc = finished_mac(c, c->role == GOSTX_TLS_CLIENT ? c->hs->s_hs : c->hs->c_hs, mac);
  if (rc != GOSTX_OK) return rc;
  if (gostx__verdict(gostx_memeq_ct(mac, body, 32)) != GOSTX_OK) /* public once decided */
    return fail(c, GOSTX__ALERT_DECRYPT_ERROR, "the peer's Finished does not verify");
  return GOSTX_OK;
}

/* The PSK binder (RFC 8446 section 4.2.11.2) of c->hs->psk_key: HMAC, under the
 * finished key of Derive-Secret(Early Secret, "ext binder" for an external
 * PSK or "res binder" for a ticket's, ""), of the transcript so far and the
 * ClientHello msg up to its binders (trunc bytes, header included). */
int gostx__tls13_psk_binder(gostx_tls *c, int ticket, const uint8_t *msg, size_t trunc,
                      uint8_t binder[32]) {
  uint8_t early[32], bkey[32], fkey[32], empty[32], th[32];
  gostx_streebog_ctx t = c->hs->th;
  gostx_streebog_update(&t, msg, trunc);
  gostx_streebog_final(&t, th);
  int rc = gostx_streebog(GOSTX__TLS_HASH_LEN, th, 0, empty);
  if (rc == GOSTX_OK) rc = gostx__tls_next_secret(NULL, c->hs->psk_key, 32, early);
  if (rc == GOSTX_OK)
    rc = gostx__tls_derive_secret(
        early, ticket ? GOSTX__TLS_LABEL_RES_BINDER : GOSTX__TLS_LABEL_EXT_BINDER, empty, bkey);
  if (rc == GOSTX_OK) rc = gostx__tls_finished_key(bkey, fkey);
  if (rc == GOSTX_OK) rc = gostx__tls_finished_mac(fkey, th, binder);
  gostx_memzero(early, sizeof early);
  gostx_memzero(bkey, sizeof bkey);
  gostx_memzero(fkey, sizeof fkey);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "PSK binder");
  return GOSTX_OK;
}

/* ---------------- certificates ---------------- */

int gostx__tls13_send_certificate(gostx_tls *c, int with_chain) {
  return gostx__tls_send_chain(c, with_chain, 1);
}

int gostx__tls13_on_certificate(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  rd ctx = vec(&r, 1, 0);
  rd list = vec(&r, 3, 0);
  if (r.bad || r.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed Certificate");
  if (ctx.n) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "Certificate with a request context");
  return gostx__tls_read_chain(c, list, 1, GOSTX__ALERT_CERTIFICATE_REQUIRED);
}


/* The handshake is over: what only it needed is wiped (the traffic
 * secrets of the application keys stay, for KeyUpdate). */
void gostx__tls13_connected(gostx_tls *c) {
  gostx__tls_hs_end(c);
  c->state = GOSTX__ST_CONNECTED;
}

/* resumption_master_secret (the transcript ends with the client's
 * Finished): the PSKs of the tickets this connection issues or takes. */
int gostx__tls13_res_master(gostx_tls *c) {
  uint8_t th[32];
  gostx__tls_th_hash(c, th);
  int rc = gostx__tls_derive_secret(c->hs->master, GOSTX__TLS_LABEL_RES_MASTER, th, c->res_master);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "key schedule");
  return GOSTX_OK;
}

/* ---------------- after the handshake ---------------- */

int gostx__tls13_on_key_update(gostx_tls *c, const uint8_t *body, size_t len) {
  if (len != 1) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed KeyUpdate");
  if (body[0] > 1) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "KeyUpdate request not 0 or 1");
  uint8_t *secret = c->role == GOSTX_TLS_CLIENT ? c->s_ap : c->c_ap;
  int rc = gostx__tls_update_secret(secret, secret);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "KeyUpdate");
  rc = gostx__tls_set_keys(c, 0, secret);
  /* After our close_notify nothing more may be sent (RFC 8446 6.1): the
   * request is taken (the read key above) and not answered; 4.6.3 asks
   * for the answer only before our next application data, which cannot
   * come. */
  int close_sent = c->alert == 0 && c->alert_sent;
  if (rc == GOSTX_OK && body[0] == 1 && !close_sent) c->ku_due = 1;
  return rc;
}
