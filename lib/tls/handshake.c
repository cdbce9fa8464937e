/* The TLS 1.3 handshake (RFC 8446 section 4) with the RFC 9367 profile:
 * the messages, built and parsed, and the state machine of both sides.
 * Each state accepts only its messages; every length is checked against
 * its container; every refusal sends the alert RFC 8446 names for it.
 *
 * Key exchange: ECDHE on GC256A-D / GC512A-C (groups 0x22-0x28), the key
 * share x || y little-endian (RFC 9367 section 6.1.1.3), the shared secret
 * x((h d) Q) little-endian (section 6.1.1), the peer's point checked on
 * the curve and in the order-q subgroup (handshake_failure otherwise, as
 * section 6.1.1 says). Signatures: schemes 0x0709-0x070F, the signature
 * str_l(r) | str_l(s) little-endian over Streebog-256 (256-bit curves) or
 * Streebog-512 of RFC 8446's CertificateVerify content (section 5.3). */
#include "hs.h"

#define fail gostx__tls_hs_fail

#include <stdio.h>

#include "gost3410/ec.h"
#include "gost3410/ecdh.h"

/* SHA-256("HelloRetryRequest"): the ServerHello random of a HelloRetryRequest. */
static const uint8_t hrr_random[32] = {
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

/* A fresh ephemeral key for c->group (c->eph_priv, c->eph_pub). */
static int new_ephemeral(gostx_tls *c) {
  gostx_gost3410_curve curve = gostx__tls_group_curve(c->group);
  size_t cl = gostx_gost3410_size(curve);
  int rc;
  if (c->cfg->test.eph_priv) {
    memcpy(c->eph_priv, c->cfg->test.eph_priv, cl);
    rc = gostx_gost3410_public_key(curve, c->eph_priv, cl, c->eph_pub, 2 * cl);
  } else {
    rc = gostx_gost3410_keygen(curve, c->eph_priv, cl, c->eph_pub, 2 * cl);
  }
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "ephemeral key");
  return GOSTX_OK;
}

/* The ephemeral key's share (wire order) into w. */
static void put_share(gostx_tls *c, wr *w) {
  size_t cl = gostx_gost3410_size(gostx__tls_group_curve(c->group));
  uint8_t le[128];
  gostx__tls_swap_point(le, c->eph_pub, cl);
  put(w, 2 * cl, 2);
  put_bytes(w, le, 2 * cl);
}

/* The ECDHE shared secret (cl bytes) of our ephemeral key and the peer's
 * share (wire order), checked on the curve and in the order-q subgroup
 * (RFC 9367 6.1.1.1 step 5, 6.1.1.2 step 2: handshake_failure); our
 * private key is wiped. */
static int ecdhe(gostx_tls *c, const uint8_t *share, size_t len, uint8_t shared[64]) {
  gostx_gost3410_curve curve = gostx__tls_group_curve(c->group);
  size_t cl = gostx_gost3410_size(curve);
  if (len != 2 * cl) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "key share of the wrong length");
  uint8_t be[128];
  gostx__tls_swap_point(be, share, cl);
  int rc = gostx__gost3410_ecdh(curve, c->eph_priv, cl, be, 2 * cl, shared, cl);
  gostx_memzero(c->eph_priv, sizeof c->eph_priv);
  if (rc != GOSTX_OK)
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE,
                "the peer's key share is not a point of the group's order-q subgroup");
  return GOSTX_OK;
}

/* The handshake secret and both handshake traffic secrets from the ECDHE
 * shared secret (wiped); the transcript holds both hellos. */
static int handshake_secrets(gostx_tls *c, uint8_t shared[64]) {
  size_t cl = gostx_gost3410_size(gostx__tls_group_curve(c->group));
  uint8_t early[32], th[32];
  gostx__tls_th_hash(c, th);
  int rc = c->psk ? gostx__tls_next_secret(NULL, c->psk_key, 32, early)
                  : gostx__tls_next_secret(NULL, NULL, 0, early);
  if (rc == GOSTX_OK) rc = gostx__tls_next_secret(early, shared, cl, c->hs_secret);
  if (rc == GOSTX_OK)
    rc = gostx__tls_derive_secret(c->hs_secret, GOSTX__TLS_LABEL_C_HS_TRAFFIC, th, c->c_hs);
  if (rc == GOSTX_OK)
    rc = gostx__tls_derive_secret(c->hs_secret, GOSTX__TLS_LABEL_S_HS_TRAFFIC, th, c->s_hs);
  gostx_memzero(shared, 64);
  gostx_memzero(early, sizeof early);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "key schedule");
  gostx__tls_keylog(c, "CLIENT_HANDSHAKE_TRAFFIC_SECRET", c->c_hs);
  gostx__tls_keylog(c, "SERVER_HANDSHAKE_TRAFFIC_SECRET", c->s_hs);
  return GOSTX_OK;
}

/* The main secret and both application traffic secrets (the transcript
 * ends with the server's Finished). */
static int app_secrets(gostx_tls *c) {
  uint8_t th[32];
  gostx__tls_th_hash(c, th);
  int rc = gostx__tls_next_secret(c->hs_secret, NULL, 0, c->master);
  if (rc == GOSTX_OK)
    rc = gostx__tls_derive_secret(c->master, GOSTX__TLS_LABEL_C_AP_TRAFFIC, th, c->c_ap);
  if (rc == GOSTX_OK)
    rc = gostx__tls_derive_secret(c->master, GOSTX__TLS_LABEL_S_AP_TRAFFIC, th, c->s_ap);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "key schedule");
  gostx__tls_keylog(c, "CLIENT_TRAFFIC_SECRET_0", c->c_ap);
  gostx__tls_keylog(c, "SERVER_TRAFFIC_SECRET_0", c->s_ap);
  return GOSTX_OK;
}

/* Replaces the transcript by message_hash(Hash(ClientHello1)) (RFC 8446
 * section 4.4.1) before the HelloRetryRequest is added. */
static void transcript_restart(gostx_tls *c) {
  uint8_t mh[4 + 32] = {GOSTX__HS_MESSAGE_HASH, 0, 0, 32};
  gostx__tls_th_hash(c, mh + 4);
  gostx_streebog_init(&c->th, GOSTX__TLS_HASH_LEN);
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

static int send_cv(gostx_tls *c) {
  uint8_t digest[64];
  cv_digest(c, c->role, gostx_gost3410_size(c->cfg->key_curve), digest);
  return gostx__tls_send_signature(c, gostx__tls_curve_scheme(c->cfg->key_curve), digest);
}

static int on_cv(gostx_tls *c, const uint8_t *body, size_t len) {
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

static int send_finished(gostx_tls *c) {
  uint8_t mac[32];
  int rc = finished_mac(c, c->role == GOSTX_TLS_CLIENT ? c->c_hs : c->s_hs, mac);
  if (rc != GOSTX_OK) return rc;
  wr w = msg_start(c, GOSTX__HS_FINISHED);
  put_bytes(&w, mac, 32);
  return msg_send(c, &w);
}

static int check_finished(gostx_tls *c, const uint8_t *body, size_t len) {
  uint8_t mac[32];
  if (len != 32) return fail(c, GOSTX__ALERT_DECODE_ERROR, "Finished of the wrong length");
  int rc = finished_mac(c, c->role == GOSTX_TLS_CLIENT ? c->s_hs : c->c_hs, mac);
  if (rc != GOSTX_OK) return rc;
  if (gostx__verdict(gostx_memeq_ct(mac, body, 32)) != GOSTX_OK) /* public once decided */
    return fail(c, GOSTX__ALERT_DECRYPT_ERROR, "the peer's Finished does not verify");
  return GOSTX_OK;
}

/* The PSK binder (RFC 8446 section 4.2.11.2) of c->psk_key: HMAC, under the
 * finished key of Derive-Secret(Early Secret, "ext binder" for an external
 * PSK or "res binder" for a ticket's, ""), of the transcript so far and the
 * ClientHello msg up to its binders (trunc bytes, header included). */
static int psk_binder(gostx_tls *c, int ticket, const uint8_t *msg, size_t trunc,
                      uint8_t binder[32]) {
  uint8_t early[32], bkey[32], fkey[32], empty[32], th[32];
  gostx_streebog_ctx t = c->th;
  gostx_streebog_update(&t, msg, trunc);
  gostx_streebog_final(&t, th);
  int rc = gostx_streebog(GOSTX__TLS_HASH_LEN, th, 0, empty);
  if (rc == GOSTX_OK) rc = gostx__tls_next_secret(NULL, c->psk_key, 32, early);
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

static int send_certificate(gostx_tls *c, int with_chain) {
  return gostx__tls_send_chain(c, with_chain, 1);
}

static int on_certificate(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  rd ctx = vec(&r, 1, 0);
  rd list = vec(&r, 3, 0);
  if (r.bad || r.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed Certificate");
  if (ctx.n) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "Certificate with a request context");
  return gostx__tls_read_chain(c, list, 1, GOSTX__ALERT_CERTIFICATE_REQUIRED);
}

/* ---------------- ClientHello ---------------- */

static int build_client_hello(gostx_tls *c) {
  const gostx_tls_config *cfg = c->cfg;
  wr w = msg_start(c, GOSTX__HS_CLIENT_HELLO);
  put(&w, 0x0303, 2);
  put_bytes(&w, c->client_random, 32);
  put(&w, (unsigned)c->session_id_len, 1);
  put_bytes(&w, c->session_id, c->session_id_len);
  size_t list = open_vec(&w, 2);
  for (size_t i = 0; i < cfg->nsuites; i++)
    if (gostx__tls_suite_by_id(cfg->suites[i]) ? c->offered13 : c->offered12)
      put(&w, cfg->suites[i], 2);
  close_vec(&w, list, 2);
  put(&w, 0x0100, 2); /* compression_methods: null only */
  size_t exts = open_vec(&w, 2);
  if (c->servername[0] && !gostx__tls_is_ip_literal(c->servername)) {
    size_t n = strlen(c->servername);
    put(&w, EXT_SERVER_NAME, 2);
    put(&w, (unsigned)n + 5, 2);
    put(&w, (unsigned)n + 3, 2);
    put(&w, 0, 1); /* host_name */
    put(&w, (unsigned)n, 2);
    put_bytes(&w, (const uint8_t *)c->servername, n);
  }
  if (c->offered13) {
    put(&w, EXT_SUPPORTED_GROUPS, 2);
    put(&w, (unsigned)(2 * cfg->ngroups + 2), 2);
    put(&w, (unsigned)(2 * cfg->ngroups), 2);
    for (size_t i = 0; i < cfg->ngroups; i++) put(&w, cfg->groups[i], 2);
  }
  /* RFC 9367 A.2's first ClientHello (a test hook) offers the PSK alone */
  if (!(cfg->test.psk_only_hello && cfg->psk_id_len)) {
    put(&w, EXT_SIGNATURE_ALGORITHMS, 2);
    size_t sigs = open_vec(&w, 2);
    size_t sig_list = open_vec(&w, 2);
    for (unsigned s = 0x0709; c->offered13 && s <= 0x070F; s++) put(&w, s, 2);
    if (c->offered12) { /* RFC 9189 section 5: (8, 64) and (8, 65) */
      put(&w, cfg->test.sig512_first ? GOSTX__TLS12_SIG_512 : GOSTX__TLS12_SIG_256, 2);
      put(&w, cfg->test.sig512_first ? GOSTX__TLS12_SIG_256 : GOSTX__TLS12_SIG_512, 2);
    }
    close_vec(&w, sig_list, 2);
    close_vec(&w, sigs, 2);
  }
  if (c->offered12) { /* RFC 5746 and RFC 7627, in RFC 9189's examples' order */
    put(&w, EXT_RENEGOTIATION_INFO, 2);
    put(&w, 1, 2);
    put(&w, 0, 1);
    if (!cfg->test.no_ems) {
      put(&w, EXT_EXTENDED_MASTER_SECRET, 2);
      put(&w, 0, 2);
    }
  }
  if (cfg->alpn_len) {
    put(&w, EXT_ALPN, 2);
    put(&w, (unsigned)cfg->alpn_len + 2, 2);
    put(&w, (unsigned)cfg->alpn_len, 2);
    put_bytes(&w, cfg->alpn, cfg->alpn_len);
  }
  if (!c->offered13) {
    close_vec(&w, exts, 2);
    return msg_send(c, &w);
  }
  put(&w, EXT_SUPPORTED_VERSIONS, 2);
  put(&w, c->offered12 ? 5 : 3, 2);
  put(&w, c->offered12 ? 4 : 2, 1);
  put(&w, 0x0304, 2);
  if (c->offered12) put(&w, 0x0303, 2);
  /* psk_key_exchange_modes: psk_dhe_ke, for a PSK offered now or tickets
   * to come (psk_ke, as RFC 9367's first example sends it, with the test
   * hook that replays it) */
  put(&w, EXT_PSK_MODES, 2);
  put(&w, 2, 2);
  put(&w, cfg->test.psk_ke_hello && !cfg->psk_id_len ? 0x0100 : 0x0101, 2);
  put(&w, EXT_KEY_SHARE, 2);
  size_t ks = open_vec(&w, 2);
  size_t shares = open_vec(&w, 2);
  if (c->group) { /* none (the test hook): the server asks for one */
    put(&w, c->group, 2);
    int rc = new_ephemeral(c);
    if (rc != GOSTX_OK) return rc;
    put_share(c, &w);
  }
  close_vec(&w, shares, 2);
  close_vec(&w, ks, 2);
  if (cfg->test.early_data_hello > c->hrr) {
    put(&w, EXT_EARLY_DATA, 2);
    put(&w, 0, 2);
  }
  if (c->cookie_len) {
    put(&w, EXT_COOKIE, 2);
    put(&w, (unsigned)c->cookie_len + 2, 2);
    put(&w, (unsigned)c->cookie_len, 2);
    put_bytes(&w, c->cookie, c->cookie_len);
  }
  /* pre_shared_key, last (RFC 8446 section 4.2.11): the external PSK, or
   * the session's ticket */
  int ticket = !cfg->psk_id_len && c->offer.ticket_len;
  if (cfg->psk_id_len || ticket) {
    const uint8_t *id = ticket ? c->offer.ticket : cfg->psk_id;
    size_t id_len = ticket ? c->offer.ticket_len : cfg->psk_id_len;
    /* the ticket's age as we count it, plus age_add (mod 2^32); 0 for an external PSK */
    uint32_t age = ticket ? (uint32_t)(gostx__tls_now_ms(c) - c->offer.received_ms) + c->offer.age_add : 0;
    put(&w, EXT_PRE_SHARED_KEY, 2);
    put(&w, (unsigned)(2 + 2 + id_len + 4 + 2 + 1 + 32), 2);
    put(&w, (unsigned)(2 + id_len + 4), 2);
    put(&w, (unsigned)id_len, 2);
    put_bytes(&w, id, id_len);
    put(&w, age, 4);
    put(&w, 33, 2);
    put(&w, 32, 1);
    uint8_t binder[32] = {0};
    put_bytes(&w, binder, 32);
    close_vec(&w, exts, 2);
    if (w.over) return msg_send(c, &w);
    uint8_t *m = c->hsb->msg + c->pend; /* the header's length, as send_msg will write it */
    m[1] = (uint8_t)(w.n >> 16);
    m[2] = (uint8_t)(w.n >> 8);
    m[3] = (uint8_t)w.n;
    int brc = psk_binder(c, ticket, m, 4 + w.n - 35, m + 4 + w.n - 32);
    if (brc != GOSTX_OK) return brc;
    return msg_send(c, &w);
  }
  close_vec(&w, exts, 2);
  return msg_send(c, &w);
}

int gostx__tls_client_hello(gostx_tls *c) {
  const gostx_tls_config *cfg = c->cfg;
  if (cfg->verify != GOSTX_TLS_VERIFY_NONE && !cfg->store && !cfg->test.pin_curve &&
      !cfg->psk_id_len)
    return gostx__tls_fail(c, -1, GOSTX_EINVAL, "no trust store to verify the server");
  /* The versions offered: those of the range with a suite in the list. */
  for (size_t i = 0; i < cfg->nsuites; i++) {
    if (gostx__tls_suite_by_id(cfg->suites[i])) c->offered13 = cfg->vmax >= GOSTX_TLS_VERSION_1_3;
    else c->offered12 = cfg->vmin <= GOSTX_TLS_VERSION_1_2;
  }
  if (!c->offered13 && !c->offered12)
    return gostx__tls_fail(c, -1, GOSTX_EINVAL, "no cipher suite of the versions allowed");
  int rc = gostx__tls_fill_random(c, c->client_random, 32);
  if (rc != GOSTX_OK) return rc;
  c->session_id_len = 0;
  if (!cfg->test.no_compat && c->offered13) {
    /* Middlebox compatibility (RFC 8446 appendix D.4): a session id to echo. */
    c->session_id_len = 32;
    if (gostx_random_bytes(c->session_id, 32) != GOSTX_OK)
      return gostx__tls_fail(c, -1, GOSTX_EIO, "no randomness");
  }
  c->group = cfg->test.psk_only_hello && cfg->psk_id_len ? 0 : cfg->groups[0];
  /* The PSK offered: the external one, else the session's ticket, when it
   * is for this server name and not past its lifetime (RFC 8446 section
   * 4.6.1; any TLS 1.3 suite of ours may resume it: all hash with
   * Streebog-256); a session not offered is dropped. */
  if (cfg->psk_id_len) {
    memcpy(c->psk_key, cfg->psk, 32);
  } else if (c->offer.ticket_len) {
    uint64_t now = gostx__tls_now_ms(c), at = c->offer.received_ms;
    if (c->offered13 && !strcmp(c->offer.servername, c->servername) && now >= at &&
        now - at < (uint64_t)c->offer.lifetime * 1000)
      memcpy(c->psk_key, c->offer.psk, 32);
    else
      gostx_memzero(&c->offer, sizeof c->offer);
  }
  rc = build_client_hello(c);
  if (rc == GOSTX_OK) c->state = GOSTX__ST_WAIT_SH;
  return rc;
}

/* ---------------- ServerHello and HelloRetryRequest (client) ---------------- */

static int on_server_hello(gostx_tls *c, const uint8_t *msg, size_t len) {
  server_hello sh;
  int rc0 = gostx__tls_parse_server_hello(c, msg, len, &sh);
  if (rc0 != GOSTX_OK) return rc0;
  unsigned legacy = sh.legacy, suite = sh.suite, comp = sh.comp;
  const uint8_t *random = sh.random;
  rd sid = sh.sid, exts = sh.exts;
  /* Without supported_versions: a TLS 1.2 (or older) answer. The downgrade
   * sentinels first (RFC 8446 section 4.1.3), then TLS 1.2 if offered. */
  int has_versions = 0;
  for (rd e = exts; e.n && !e.bad;) {
    if (get(&e, 2) == EXT_SUPPORTED_VERSIONS) has_versions = 1;
    (void)vec(&e, 2, 0);
  }
  if (!has_versions) {
    static const uint8_t downgrd[7] = {'D', 'O', 'W', 'N', 'G', 'R', 'D'};
    if (c->offered13 && !memcmp(random + 24, downgrd, 7) && random[31] <= 1)
      return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "downgrade sentinel in the ServerHello");
    if (c->offered12 && !c->hrr) return gostx__tls12_on_server_hello(c, msg, len, &sh);
    return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, "the server does not speak TLS 1.3");
  }
  int is_hrr = !memcmp(random, hrr_random, 32);
  rd share = {NULL, 0, 1}, cookie = {NULL, 0, 1}, psk = {NULL, 0, 1};
  unsigned version = 0;
  uint32_t seen = 0;
  while (exts.n) {
    unsigned type = get(&exts, 2);
    rd data = vec(&exts, 2, 0);
    if (exts.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ServerHello extensions");
    uint32_t bit = type == EXT_SUPPORTED_VERSIONS ? 1u : type == EXT_KEY_SHARE ? 2u
                   : type == EXT_COOKIE && is_hrr ? 4u
                   : type == EXT_PRE_SHARED_KEY && !is_hrr && (c->cfg->psk_id_len || c->offer.ticket_len) ? 8u
                                                                                            : 0u;
    if (!bit) return fail(c, GOSTX__ALERT_UNSUPPORTED_EXTENSION, "ServerHello extension not offered");
    if (seen & bit) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "ServerHello extension twice");
    seen |= bit;
    if (type == EXT_SUPPORTED_VERSIONS) {
      version = get(&data, 2);
      if (data.bad || data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed supported_versions");
    } else if (type == EXT_KEY_SHARE) {
      share = data;
    } else if (type == EXT_PRE_SHARED_KEY) {
      psk = data;
    } else {
      cookie = vec(&data, 2, 1);
      if (data.bad || data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed cookie");
    }
  }
  if (legacy != 0x0303) return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, "ServerHello legacy_version");
  if (version != 0x0304 || !c->offered13) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "selected_version not offered");
  if (sid.n != c->session_id_len || (sid.n && memcmp(sid.p, c->session_id, sid.n)))
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "legacy_session_id_echo differs");
  if (!gostx__tls_has16(c->cfg->suites, c->cfg->nsuites, suite) || !gostx__tls_suite_by_id(suite))
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "cipher suite not offered");
  if (c->suite && c->suite->id != suite)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "cipher suite differs from the HelloRetryRequest's");
  if (comp != 0) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "compression method not null");
  if (share.bad) return fail(c, GOSTX__ALERT_MISSING_EXTENSION, "ServerHello without key_share");
  c->suite = gostx__tls_suite_by_id(suite);
  if (is_hrr) {
    if (c->hrr) return fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, "a second HelloRetryRequest");
    unsigned group = get(&share, 2);
    if (share.bad || share.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed HelloRetryRequest key_share");
    if (!gostx__tls_has16(c->cfg->groups, c->cfg->ngroups, group) || group == c->group)
      return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "HelloRetryRequest names a group not asked for");
    c->hrr = 1;
    c->group = (uint16_t)group;
    c->cookie_len = 0;
    if (!cookie.bad) {
      if (cookie.n > sizeof c->cookie) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "cookie too long");
      memcpy(c->cookie, cookie.p, cookie.n);
      c->cookie_len = cookie.n;
    }
    transcript_restart(c);
    gostx__tls_th_add(c, msg, len);
    int rc = GOSTX_OK;
    if (c->session_id_len) rc = gostx__tls_send_ccs(c);
    if (rc == GOSTX_OK) rc = build_client_hello(c);
    return rc;
  }
  unsigned group = get(&share, 2);
  rd key = vec(&share, 2, 1);
  if (share.bad || share.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed key_share");
  if (group != c->group) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "key_share of a group not offered");
  if (!psk.bad) {
    unsigned selected = get(&psk, 2);
    if (psk.bad || psk.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed pre_shared_key");
    if (selected != 0) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "selected_identity not offered");
    c->psk = 1;
    c->resumed = !c->cfg->psk_id_len;
  } else if (c->cfg->verify != GOSTX_TLS_VERIFY_NONE && !c->cfg->store && !c->cfg->test.pin_curve) {
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE,
                "the server did not take the PSK and there is no trust store to verify it");
  }
  memcpy(c->server_random, random, 32);
  gostx__tls_th_add(c, msg, len);
  uint8_t shared[64];
  int rc = ecdhe(c, key.p, key.n, shared);
  if (rc == GOSTX_OK) rc = handshake_secrets(c, shared);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 0, c->s_hs);
  /* The write key too: the server reads under it from now on, so an alert
   * about its flight (a refused chain) must go under it (RFC 8446 5.1). */
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 1, c->c_hs);
  if (rc == GOSTX_OK) c->state = GOSTX__ST_WAIT_EE;
  return rc;
}

static int on_encrypted_extensions(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  rd exts = vec(&r, 2, 0);
  if (r.bad || r.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed EncryptedExtensions");
  uint32_t seen = 0;
  while (exts.n) {
    unsigned type = get(&exts, 2);
    rd data = vec(&exts, 2, 0);
    if (exts.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed EncryptedExtensions");
    uint32_t bit = type == EXT_SERVER_NAME ? 1u : type == EXT_SUPPORTED_GROUPS ? 2u
                   : type == EXT_ALPN ? 4u : 0u;
    if (!bit || (type == EXT_ALPN && !c->cfg->alpn_len))
      return fail(c, GOSTX__ALERT_UNSUPPORTED_EXTENSION, "EncryptedExtensions extension not offered");
    if (seen & bit) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "extension twice");
    seen |= bit;
    if (type == EXT_SERVER_NAME && data.n)
      return fail(c, GOSTX__ALERT_DECODE_ERROR, "server_name not empty in EncryptedExtensions");
    if (type == EXT_ALPN) {
      int rc = gostx__tls_alpn_answer(c, data);
      if (rc != GOSTX_OK) return rc;
    }
  }
  c->state = c->psk ? GOSTX__ST_WAIT_FINISHED : GOSTX__ST_WAIT_CERT_CR;
  return GOSTX_OK;
}

static int on_certificate_request(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  rd ctx = vec(&r, 1, 0);
  rd exts = vec(&r, 2, 0);
  if (r.bad || r.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed CertificateRequest");
  if (ctx.n) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "CertificateRequest context not empty");
  int have_sigs = 0;
  c->npeer_schemes = 0;
  while (exts.n) {
    unsigned type = get(&exts, 2);
    rd data = vec(&exts, 2, 0);
    if (exts.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed CertificateRequest");
    if (type != EXT_SIGNATURE_ALGORITHMS) continue; /* others (certificate_authorities, ...) are advice */
    if (have_sigs) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "signature_algorithms twice");
    have_sigs = 1;
    rd list = vec(&data, 2, 2);
    if (data.bad || data.n || (list.n & 1))
      return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed signature_algorithms");
    while (list.n) {
      unsigned s = get(&list, 2);
      if (c->npeer_schemes < 16) c->peer_schemes[c->npeer_schemes++] = (uint16_t)s;
    }
  }
  if (!have_sigs)
    return fail(c, GOSTX__ALERT_MISSING_EXTENSION, "CertificateRequest without signature_algorithms");
  c->cert_req = 1;
  c->state = GOSTX__ST_WAIT_CERT;
  return GOSTX_OK;
}

/* The handshake is over: what only it needed is wiped (the traffic
 * secrets of the application keys stay, for KeyUpdate). */
static void connected(gostx_tls *c) {
  gostx_memzero(c->hs_secret, sizeof c->hs_secret);
  gostx_memzero(c->master, sizeof c->master);
  gostx_memzero(c->c_hs, sizeof c->c_hs);
  gostx_memzero(c->s_hs, sizeof c->s_hs);
  gostx_streebog_clear(&c->th);
  c->state = GOSTX__ST_CONNECTED;
}

/* resumption_master_secret (the transcript ends with the client's
 * Finished): the PSKs of the tickets this connection issues or takes. */
static int res_master(gostx_tls *c) {
  uint8_t th[32];
  gostx__tls_th_hash(c, th);
  int rc = gostx__tls_derive_secret(c->master, GOSTX__TLS_LABEL_RES_MASTER, th, c->res_master);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "key schedule");
  return GOSTX_OK;
}

/* After the server's Finished: the client's flight. */
static int client_finish(gostx_tls *c) {
  int rc = app_secrets(c);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 0, c->s_ap);
  if (rc == GOSTX_OK && c->session_id_len) rc = gostx__tls_send_ccs(c);
  if (rc == GOSTX_OK && c->cert_req) {
    unsigned scheme = gostx__tls_curve_scheme(c->cfg->key_curve);
    int can = c->cfg->nchain && scheme && gostx__tls_has16(c->peer_schemes, c->npeer_schemes, scheme);
    rc = send_certificate(c, can);
    if (rc == GOSTX_OK && can) rc = send_cv(c);
  }
  if (rc == GOSTX_OK) rc = send_finished(c);
  if (rc == GOSTX_OK) rc = res_master(c);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 1, c->c_ap);
  if (rc == GOSTX_OK) connected(c);
  return rc;
}

/* ---------------- ClientHello (server) ---------------- */


int gostx__tls_parse_client_hello(gostx_tls *c, const uint8_t *body, size_t len, hello *h) {
  rd r = {body, len, 0};
  memset(h, 0, sizeof *h);
  unsigned legacy = get(&r, 2);
  h->random = take(&r, 32);
  h->sid = vec(&r, 1, 0);
  h->suites = vec(&r, 2, 2);
  rd comp = vec(&r, 1, 1);
  rd exts = {NULL, 0, 0};
  if (r.n) exts = vec(&r, 2, 0);
  if (r.bad || r.n || h->sid.n > 32 || (h->suites.n & 1))
    return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ClientHello");
  if (comp.n != 1 || comp.p[0] != 0)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "compression methods other than null");
  uint64_t seen = 0;
  while (exts.n) {
    unsigned type = get(&exts, 2);
    rd data = vec(&exts, 2, 0);
    if (exts.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ClientHello extensions");
    if (type < 64) {
      if (seen >> type & 1) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "ClientHello extension twice");
      seen |= (uint64_t)1 << type;
    }
    switch (type) {
      case EXT_SERVER_NAME: {
        rd list = vec(&data, 2, 1);
        unsigned kind = get(&list, 1);
        rd name = vec(&list, 2, 1);
        if (data.bad || data.n || list.bad || list.n || kind != 0 ||
            !gostx__tls_is_host_name((const char *)name.p, name.n))
          return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed server_name");
        memcpy(h->sni, name.p, name.n);
        h->sni[name.n] = 0;
        break;
      }
      case EXT_SUPPORTED_GROUPS:
        h->groups = vec(&data, 2, 2);
        h->have_groups = 1;
        if (data.bad || data.n || (h->groups.n & 1))
          return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed supported_groups");
        break;
      case EXT_SIGNATURE_ALGORITHMS:
        h->sigs = vec(&data, 2, 2);
        h->have_sigs = 1;
        if (data.bad || data.n || (h->sigs.n & 1))
          return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed signature_algorithms");
        break;
      case EXT_ALPN: {
        h->alpn = vec(&data, 2, 2);
        h->have_alpn = 1;
        rd l = h->alpn;
        while (l.n) (void)vec(&l, 1, 1);
        if (data.bad || data.n || l.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ALPN");
        break;
      }
      case EXT_SUPPORTED_VERSIONS:
        h->versions = vec(&data, 1, 2);
        h->have_versions = 1;
        if (data.bad || data.n || (h->versions.n & 1))
          return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed supported_versions");
        break;
      case EXT_KEY_SHARE: {
        h->shares = vec(&data, 2, 0);
        h->have_shares = 1;
        rd l = h->shares;
        while (l.n) {
          (void)get(&l, 2);
          (void)vec(&l, 2, 1);
        }
        if (data.bad || data.n || l.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed key_share");
        break;
      }
      case EXT_COOKIE:
        h->have_cookie = 1;
        break;
      case EXT_EARLY_DATA:
        if (data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "early_data not empty in a ClientHello");
        h->early_data = 1;
        break;
      case EXT_EXTENDED_MASTER_SECRET:
        if (data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "extended_master_secret not empty");
        h->have_ems = 1;
        break;
      case EXT_RENEGOTIATION_INFO: {
        rd info = vec(&data, 1, 0);
        if (data.bad || data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed renegotiation_info");
        /* RFC 5746 3.6: an initial handshake's is empty. */
        if (info.n) return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "renegotiation_info not empty");
        h->have_reneg = 1;
        break;
      }
      case EXT_PRE_SHARED_KEY: {
        if (exts.n) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "pre_shared_key not last");
        h->psk_ids = vec(&data, 2, 7);
        if (!data.bad) h->psk_trunc = 4 + (size_t)(data.p - body);
        h->psk_binders = vec(&data, 2, 33);
        h->have_psk = 1;
        rd l = h->psk_ids, b = h->psk_binders;
        size_t nids = 0, nbinders = 0;
        for (; l.n && !l.bad; nids++) {
          (void)vec(&l, 2, 1);
          (void)get(&l, 4);
        }
        for (; b.n && !b.bad; nbinders++) (void)vec(&b, 1, 32);
        if (data.bad || data.n || l.bad || b.bad)
          return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed pre_shared_key");
        if (nids != nbinders)
          return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "pre_shared_key: identities and binders differ in number");
        break;
      }
      case EXT_PSK_MODES: {
        rd modes = vec(&data, 1, 1);
        if (data.bad || data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed psk_key_exchange_modes");
        h->have_modes = 1;
        while (modes.n)
          if (get(&modes, 1) == 1) h->psk_dhe_ke = 1;
        break;
      }
      default:
        break; /* unknown: ignored (RFC 8446 section 4.2) */
    }
  }
  /* legacy_version is not used for negotiation when supported_versions is
   * there (RFC 8446 4.2.1); without it, it is the client's highest version
   * (RFC 5246 E.1), and below TLS 1.2 nothing is in common. */
  if (!h->have_versions && legacy < GOSTX_TLS_VERSION_1_2)
    return fail(c, GOSTX__ALERT_PROTOCOL_VERSION,
                "ClientHello legacy_version below TLS 1.2 and no supported_versions");
  return GOSTX_OK;
}


/* The share of group in the ClientHello's key_share (NULL when none). */
static rd share_of(const hello *h, unsigned group) {
  rd l = h->shares, none = {NULL, 0, 1};
  while (l.n) {
    unsigned g = get(&l, 2);
    rd key = vec(&l, 2, 1);
    if (g == group) return key;
  }
  return none;
}

static int send_server_hello(gostx_tls *c, int hrr) {
  wr w = msg_start(c, GOSTX__HS_SERVER_HELLO);
  put(&w, 0x0303, 2);
  put_bytes(&w, hrr ? hrr_random : c->server_random, 32);
  put(&w, (unsigned)c->session_id_len, 1);
  put_bytes(&w, c->session_id, c->session_id_len);
  put(&w, c->suite->id, 2);
  put(&w, 0, 1);
  size_t exts = open_vec(&w, 2);
  put(&w, EXT_SUPPORTED_VERSIONS, 2);
  put(&w, 2, 2);
  put(&w, 0x0304, 2);
  put(&w, EXT_KEY_SHARE, 2);
  size_t ks = open_vec(&w, 2);
  put(&w, c->group, 2);
  if (!hrr) put_share(c, &w);
  close_vec(&w, ks, 2);
  if (!hrr && c->psk) {
    put(&w, EXT_PRE_SHARED_KEY, 2);
    put(&w, 2, 2);
    put(&w, c->psk_index, 2);
  }
  close_vec(&w, exts, 2);
  return msg_send(c, &w);
}

static int send_encrypted_extensions(gostx_tls *c, int sni_ack) {
  wr w = msg_start(c, GOSTX__HS_ENCRYPTED_EXTENSIONS);
  size_t exts = open_vec(&w, 2);
  if (sni_ack) {
    put(&w, EXT_SERVER_NAME, 2);
    put(&w, 0, 2);
  }
  gostx__tls_put_alpn(c, &w);
  close_vec(&w, exts, 2);
  return msg_send(c, &w);
}

static int send_certificate_request(gostx_tls *c) {
  wr w = msg_start(c, GOSTX__HS_CERTIFICATE_REQUEST);
  put(&w, 0, 1);
  put(&w, 20, 2);
  put(&w, EXT_SIGNATURE_ALGORITHMS, 2);
  put(&w, 16, 2);
  put(&w, 14, 2);
  for (unsigned s = 0x0709; s <= 0x070F; s++) put(&w, s, 2);
  return msg_send(c, &w);
}

static int server_flight(gostx_tls *c, rd key, int sni_ack) {
  /* The client's share is checked before anything is sent (RFC 9367
   * 6.1.1.2: step 2 before the ServerHello of step 4). */
  uint8_t shared[64];
  int rc = new_ephemeral(c);
  if (rc == GOSTX_OK) rc = ecdhe(c, key.p, key.n, shared);
  if (rc != GOSTX_OK) return rc;
  rc = gostx__tls_fill_random(c, c->server_random, 32);
  if (rc == GOSTX_OK) rc = send_server_hello(c, 0);
  if (rc == GOSTX_OK) rc = handshake_secrets(c, shared);
  gostx_memzero(shared, sizeof shared);
  if (rc == GOSTX_OK && c->session_id_len) rc = gostx__tls_send_ccs(c);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 1, c->s_hs);
  if (rc == GOSTX_OK) rc = send_encrypted_extensions(c, sni_ack);
  if (rc == GOSTX_OK && c->cert_req) rc = send_certificate_request(c);
  if (rc == GOSTX_OK && !c->psk) rc = send_certificate(c, 1);
  if (rc == GOSTX_OK && !c->psk) rc = send_cv(c);
  if (rc == GOSTX_OK) rc = send_finished(c);
  if (rc == GOSTX_OK) rc = app_secrets(c);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 1, c->s_ap);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 0, c->c_hs);
  if (rc == GOSTX_OK) c->state = c->cert_req ? GOSTX__ST_WAIT_CERT : GOSTX__ST_WAIT_FINISHED;
  return rc;
}

/* Tickets tried per ClientHello (each one an MGM open). */
#define TICKETS_TRIED 4

/* A PSK among the ClientHello's identities (public): our external PSK's
 * identity, or a ticket of ours (gostx__tls_ticket_open), its binder
 * verified: 1 taken (c->psk_key, c->resumed), 0 none (or no psk_dhe_ke),
 * else the alert. */
static int take_psk(gostx_tls *c, const uint8_t *msg, const hello *h) {
  const gostx_tls_config *cfg = c->cfg;
  if (!h->have_psk) return 0;
  if (!h->have_modes)
    return fail(c, GOSTX__ALERT_MISSING_EXTENSION, "pre_shared_key without psk_key_exchange_modes");
  if ((!cfg->psk_id_len && !cfg->tickets) || !h->psk_dhe_ke) return 0;
  rd ids = h->psk_ids, binders = h->psk_binders;
  unsigned tried = 0;
  for (unsigned index = 0; ids.n; index++) {
    rd id = vec(&ids, 2, 1);
    (void)get(&ids, 4); /* obfuscated_ticket_age: no early data, so no use for it */
    rd binder = vec(&binders, 1, 32);
    int ticket = 0;
    if (cfg->psk_id_len && id.n == cfg->psk_id_len && !memcmp(id.p, cfg->psk_id, id.n)) {
      memcpy(c->psk_key, cfg->psk, 32);
    } else if (cfg->tickets && tried++ < TICKETS_TRIED && gostx__tls_ticket_open(c, id.p, id.n, h->sni)) {
      ticket = 1;
    } else {
      continue;
    }
    uint8_t want[32];
    int rc = psk_binder(c, ticket, msg, h->psk_trunc, want);
    if (rc != GOSTX_OK) return rc;
    int ok = binder.n == 32 && gostx__verdict(gostx_memeq_ct(want, binder.p, 32)) == GOSTX_OK;
    gostx_memzero(want, sizeof want);
    if (!ok) return fail(c, GOSTX__ALERT_DECRYPT_ERROR, "the PSK binder does not verify");
    c->psk_index = (uint16_t)index;
    c->resumed = ticket;
    return 1;
  }
  return 0;
}

/* Whether the ClientHello offers RFC 9189 (TLS 1.2) suites and no RFC 9367
 * (TLS 1.3) one, as openssl with gost-engine (curl, s_client) does while
 * offering TLS 1.3: a server that speaks 1.3 must not answer it with 1.2
 * (RFC 8446 4.1.3: the client refuses the downgrade), so the error says
 * why, not just "no cipher suite in common". */
static int offers_gost12_only(const hello *h) {
  rd l = h->suites;
  int gost12 = 0;
  while (l.n >= 2) {
    unsigned id = get(&l, 2);
    if (gostx__tls_suite_by_id(id)) return 0;
    gost12 |= gostx__tls12_suite_by_id(id) != NULL;
  }
  return gost12;
}

static int on_client_hello(gostx_tls *c, const uint8_t *msg, size_t len) {
  const gostx_tls_config *cfg = c->cfg;
  hello h;
  int rc = gostx__tls_parse_client_hello(c, msg + 4, len - 4, &h);
  if (rc != GOSTX_OK) return rc;
  int offers13 = h.have_versions && gostx__tls_rd_has16(h.versions, GOSTX_TLS_VERSION_1_3);
  if (c->state == GOSTX__ST_START && (!offers13 || !gostx__tls_speaks13(cfg))) {
    /* No TLS 1.3 in common: TLS 1.2 when both take it. */
    int offers12 = h.have_versions ? gostx__tls_rd_has16(h.versions, GOSTX_TLS_VERSION_1_2) : 1;
    if (cfg->vmin <= GOSTX_TLS_VERSION_1_2 && offers12)
      return gostx__tls12_on_client_hello(c, msg, len, &h);
    return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, offers13 ? "the client does not offer TLS 1.2"
                                                            : "the client does not offer TLS 1.3");
  }
  if (!offers13) return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, "the client does not offer TLS 1.3");
  if (!h.have_groups || !h.have_shares)
    return fail(c, GOSTX__ALERT_MISSING_EXTENSION, "ClientHello without supported_groups or key_share");
  /* Each share of a group the client supports, each group once. */
  {
    rd l = h.shares;
    uint32_t groups_seen = 0;
    while (l.n) {
      unsigned g = get(&l, 2);
      (void)vec(&l, 2, 1);
      if (!gostx__tls_rd_has16(h.groups, g))
        return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "key_share of a group not in supported_groups");
      if (g >= 0x22 && g <= 0x28) {
        if (groups_seen >> (g - 0x22) & 1)
          return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "two key shares of one group");
        groups_seen |= 1u << (g - 0x22);
      }
    }
  }
  int took = take_psk(c, msg, &h);
  if (took < 0) return took;
  c->tickets_ok = h.psk_dhe_ke; /* tickets it can use (RFC 8446 section 4.2.9) */
  if (c->state == GOSTX__ST_WAIT_CH2 && took != c->psk)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "the second ClientHello changed its PSK");
  c->psk = took;
  if (!c->psk && !h.have_sigs)
    return fail(c, GOSTX__ALERT_MISSING_EXTENSION, "ClientHello without signature_algorithms");
  if (!c->psk && cfg->psk_id_len && (!cfg->nchain || !cfg->key_curve))
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "no PSK in common and no certificate");
  if (!c->psk && (!cfg->nchain || !cfg->key_curve))
    return fail(c, GOSTX__ALERT_INTERNAL_ERROR, "no certificate and key configured");
  if (c->state == GOSTX__ST_WAIT_CH2) {
    /* The second ClientHello: the first one with the share asked for. */
    if (memcmp(h.random, c->client_random, 32) || h.sid.n != c->session_id_len ||
        (h.sid.n && memcmp(h.sid.p, c->session_id, h.sid.n)))
      return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "the second ClientHello changed");
    if (!gostx__tls_rd_has16(h.suites, c->suite->id))
      return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "the second ClientHello dropped the suite");
    if (h.early_data) /* RFC 8446 4.1.2, 4.2.10 */
      return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "early_data in the second ClientHello");
    c->early_skip = GOSTX__EARLY_NONE;
    rd key = share_of(&h, c->group);
    if (key.bad || h.shares.n != 4 + key.n)
      return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "the second ClientHello's key_share is not the one asked for");
    gostx__tls_th_add(c, msg, len);
    return server_flight(c, key, h.sni[0] != 0);
  }
  memcpy(c->client_random, h.random, 32);
  c->session_id_len = h.sid.n;
  memcpy(c->session_id, h.sid.p, h.sid.n);
  for (size_t i = 0; i < cfg->nsuites && !c->suite; i++)
    if (gostx__tls_rd_has16(h.suites, cfg->suites[i])) c->suite = gostx__tls_suite_by_id(cfg->suites[i]);
  if (!c->suite)
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE,
                offers_gost12_only(&h) ? "no cipher suite in common: the client offers TLS 1.3 "
                                         "without GOST suites (its GOST suites are TLS 1.2's)"
                                       : "no cipher suite in common");
  if (!c->psk) { /* authenticated by our certificate */
    unsigned scheme = gostx__tls_curve_scheme(cfg->key_curve);
    if (!gostx__tls_rd_has16(h.sigs, scheme))
      return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "the client does not accept our key's signature scheme");
    c->scheme = (uint16_t)scheme;
  }
  /* Our preference among the groups with a share; else among those it
   * supports, by HelloRetryRequest. */
  unsigned group = 0, retry = 0;
  for (size_t i = 0; i < cfg->ngroups; i++) {
    if (!gostx__tls_rd_has16(h.groups, cfg->groups[i])) continue;
    if (!retry) retry = cfg->groups[i];
    if (!share_of(&h, cfg->groups[i]).bad) {
      group = cfg->groups[i];
      break;
    }
  }
  if (!retry) return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "no group in common");
  rc = gostx__tls_alpn_select(c, &h);
  if (rc != GOSTX_OK) return rc;
  memcpy(c->servername, h.sni, sizeof h.sni);
  /* No CertificateRequest under a PSK (RFC 8446 section 4.3.2). */
  c->cert_req = !c->psk && cfg->verify != GOSTX_TLS_VERIFY_NONE;
  gostx__tls_th_add(c, msg, len);
  /* Early data is never accepted: it is skipped (RFC 8446 4.2.10). */
  if (h.early_data) c->early_skip = group ? GOSTX__EARLY_TRIAL : GOSTX__EARLY_AFTER_HRR;
  if (!group) {
    c->group = (uint16_t)retry;
    c->hrr = 1;
    transcript_restart(c);
    rc = send_server_hello(c, 1);
    if (rc == GOSTX_OK && c->session_id_len) rc = gostx__tls_send_ccs(c);
    if (rc == GOSTX_OK) c->state = GOSTX__ST_WAIT_CH2;
    return rc;
  }
  c->group = (uint16_t)group;
  return server_flight(c, share_of(&h, group), h.sni[0] != 0);
}

/* ---------------- after the handshake ---------------- */

static int on_key_update(gostx_tls *c, const uint8_t *body, size_t len) {
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

/* ---------------- the state machine ---------------- */

int gostx__tls_on_message(gostx_tls *c, const uint8_t *msg, size_t len) {
  unsigned type = msg[0];
  const uint8_t *body = msg + 4;
  size_t blen = len - 4;
  int client = c->role == GOSTX_TLS_CLIENT;
  int rc;
  if (c->v12) return gostx__tls12_on_message(c, msg, len);
  switch (c->state) {
    case GOSTX__ST_START:
    case GOSTX__ST_WAIT_CH2:
      if (client || type != GOSTX__HS_CLIENT_HELLO) break;
      return on_client_hello(c, msg, len);
    case GOSTX__ST_WAIT_SH:
      if (type != GOSTX__HS_SERVER_HELLO) break;
      return on_server_hello(c, msg, len);
    case GOSTX__ST_WAIT_EE:
      if (type != GOSTX__HS_ENCRYPTED_EXTENSIONS) break;
      rc = on_encrypted_extensions(c, body, blen);
      if (rc == GOSTX_OK) gostx__tls_th_add(c, msg, len);
      return rc;
    case GOSTX__ST_WAIT_CERT_CR:
      if (type == GOSTX__HS_CERTIFICATE_REQUEST) {
        rc = on_certificate_request(c, body, blen);
        if (rc == GOSTX_OK) gostx__tls_th_add(c, msg, len);
        return rc;
      }
      /* fall through */
    case GOSTX__ST_WAIT_CERT:
      if (type != GOSTX__HS_CERTIFICATE) break;
      rc = on_certificate(c, body, blen);
      if (rc != GOSTX_OK) return rc;
      gostx__tls_th_add(c, msg, len);
      c->state = c->npeer ? GOSTX__ST_WAIT_CV : GOSTX__ST_WAIT_FINISHED;
      return GOSTX_OK;
    case GOSTX__ST_WAIT_CV:
      if (type != GOSTX__HS_CERTIFICATE_VERIFY) break;
      rc = on_cv(c, body, blen);
      if (rc != GOSTX_OK) return rc;
      if (!client) c->client_auth = 1; /* what its tickets will say */
      gostx__tls_th_add(c, msg, len);
      c->state = GOSTX__ST_WAIT_FINISHED;
      return GOSTX_OK;
    case GOSTX__ST_WAIT_FINISHED:
      if (type != GOSTX__HS_FINISHED) break;
      rc = check_finished(c, body, blen);
      if (rc != GOSTX_OK) return rc;
      gostx__tls_th_add(c, msg, len);
      if (client) return client_finish(c);
      rc = gostx__tls_set_keys(c, 0, c->c_ap);
      int tickets = c->cfg->tickets && c->tickets_ok;
      if (rc == GOSTX_OK && tickets) rc = res_master(c);
      if (rc == GOSTX_OK) connected(c);
      if (rc == GOSTX_OK && tickets) rc = gostx__tls_send_tickets(c);
      return rc;
    case GOSTX__ST_CONNECTED:
      if (type == GOSTX__HS_KEY_UPDATE) return on_key_update(c, body, blen);
      if (type == GOSTX__HS_NEW_SESSION_TICKET && client) return gostx__tls_on_ticket(c, body, blen);
      if (type == GOSTX__HS_CLIENT_HELLO)
        return fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, "renegotiation refused (a ClientHello after the handshake)");
      break;
    default:
      break;
  }
  return fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, "unexpected handshake message");
}
