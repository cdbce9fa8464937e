/* TLS 1.3's handshake, the server's side: the ClientHello taken (its
 * parser is hello.c's; a TLS 1.2 one handed to handshake12.c), the PSK
 * chosen, a HelloRetryRequest when no share fits, and the server's flight
 * (ServerHello to Finished). */
#include "hs13.h"

#define fail gostx__tls_hs_fail

#include <stdio.h>

#include "gost3410/ec.h"
#include "gost3410/ecdh.h"

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
  put_bytes(&w, hrr ? gostx__tls13_hrr_random : c->server_random, 32);
  put(&w, (unsigned)c->hs->session_id_len, 1);
  put_bytes(&w, c->hs->session_id, c->hs->session_id_len);
  put(&w, c->suite->id, 2);
  put(&w, 0, 1);
  size_t exts = open_vec(&w, 2);
  put(&w, EXT_SUPPORTED_VERSIONS, 2);
  put(&w, 2, 2);
  put(&w, 0x0304, 2);
  put(&w, EXT_KEY_SHARE, 2);
  size_t ks = open_vec(&w, 2);
  put(&w, c->group, 2);
  if (!hrr) gostx__tls13_put_share(c, &w);
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
  gostx__tls_put_sni_alpn(c, &w, sni_ack);
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
  int rc = gostx__tls13_new_ephemeral(c);
  if (rc == GOSTX_OK) rc = gostx__tls13_ecdhe(c, key.p, key.n, shared);
  if (rc != GOSTX_OK) return rc;
  rc = gostx__tls_fill_random(c, c->server_random, 32);
  if (rc == GOSTX_OK) rc = send_server_hello(c, 0);
  if (rc == GOSTX_OK) rc = gostx__tls13_handshake_secrets(c, shared);
  gostx_memzero(shared, sizeof shared);
  if (rc == GOSTX_OK && c->hs->session_id_len) rc = gostx__tls_send_ccs(c);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 1, c->hs->s_hs);
  if (rc == GOSTX_OK) rc = send_encrypted_extensions(c, sni_ack);
  if (rc == GOSTX_OK && c->cert_req) rc = send_certificate_request(c);
  if (rc == GOSTX_OK && !c->psk) rc = gostx__tls13_send_certificate(c, 1);
  if (rc == GOSTX_OK && !c->psk) rc = gostx__tls13_send_cv(c);
  if (rc == GOSTX_OK) rc = gostx__tls13_send_finished(c);
  if (rc == GOSTX_OK) rc = gostx__tls13_app_secrets(c);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 1, c->s_ap);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 0, c->hs->c_hs);
  if (rc == GOSTX_OK) c->state = c->cert_req ? GOSTX__ST_WAIT_CERT : GOSTX__ST_WAIT_FINISHED;
  return rc;
}

/* Tickets tried per ClientHello (each one an MGM open). */
#define TICKETS_TRIED 4

/* A PSK among the ClientHello's identities (public): our external PSK's
 * identity, or a ticket of ours (gostx__tls_ticket_open), its binder
 * verified: 1 taken (c->hs->psk_key, c->resumed), 0 none (or no psk_dhe_ke),
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
      memcpy(c->hs->psk_key, cfg->psk, 32);
    } else if (cfg->tickets && tried++ < TICKETS_TRIED && gostx__tls_ticket_open(c, id.p, id.n, h->sni)) {
      ticket = 1;
    } else {
      continue;
    }
    uint8_t want[32];
    int rc = gostx__tls13_psk_binder(c, ticket, msg, h->psk_trunc, want);
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

/* No TLS 1.3 in common at the first ClientHello: TLS 1.2 when both take it. */
static int ch_not13(gostx_tls *c, const uint8_t *msg, size_t len, const hello *h, int offers13) {
  int offers12 = h->have_versions ? gostx__tls_rd_has16(h->versions, GOSTX_TLS_VERSION_1_2) : 1;
  if (c->cfg->vmin <= GOSTX_TLS_VERSION_1_2 && offers12)
    return gostx__tls12_on_client_hello(c, msg, len, h);
  return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, offers13 ? "the client does not offer TLS 1.2"
                                                          : "the client does not offer TLS 1.3");
}

/* Each share of a group the client supports, each group once. */
static int ch_check_shares(gostx_tls *c, const hello *h) {
  rd l = h->shares;
  uint32_t groups_seen = 0;
  while (l.n) {
    unsigned g = get(&l, 2);
    (void)vec(&l, 2, 1);
    if (!gostx__tls_rd_has16(h->groups, g))
      return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "key_share of a group not in supported_groups");
    if (g >= 0x22 && g <= 0x28) {
      if (groups_seen >> (g - 0x22) & 1)
        return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "two key shares of one group");
      groups_seen |= 1u << (g - 0x22);
    }
  }
  return GOSTX_OK;
}

/* The PSK taken (or not) and how this server will authenticate: a PSK, or
 * its certificate (which the client must let it sign for). */
static int ch_auth(gostx_tls *c, const uint8_t *msg, const hello *h) {
  const gostx_tls_config *cfg = c->cfg;
  int took = take_psk(c, msg, h);
  if (took < 0) return took;
  c->hs->tickets_ok = h->psk_dhe_ke; /* tickets it can use (RFC 8446 section 4.2.9) */
  if (c->state == GOSTX__ST_WAIT_CH2 && took != c->psk)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "the second ClientHello changed its PSK");
  c->psk = took;
  if (!c->psk && !h->have_sigs)
    return fail(c, GOSTX__ALERT_MISSING_EXTENSION, "ClientHello without signature_algorithms");
  if (!c->psk && cfg->psk_id_len && (!cfg->nchain || !cfg->key.curve))
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "no PSK in common and no certificate");
  if (!c->psk && (!cfg->nchain || !cfg->key.curve))
    return fail(c, GOSTX__ALERT_INTERNAL_ERROR, "no certificate and key configured");
  return GOSTX_OK;
}

/* The second ClientHello: the first one with the share asked for. */
static int on_client_hello2(gostx_tls *c, const uint8_t *msg, size_t len, const hello *h) {
  if (memcmp(h->random, c->client_random, 32) || h->sid.n != c->hs->session_id_len ||
      (h->sid.n && memcmp(h->sid.p, c->hs->session_id, h->sid.n)))
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "the second ClientHello changed");
  if (!gostx__tls_rd_has16(h->suites, c->suite->id))
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "the second ClientHello dropped the suite");
  if (h->early_data) /* RFC 8446 4.1.2, 4.2.10 */
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "early_data in the second ClientHello");
  c->early_skip = GOSTX__EARLY_NONE;
  rd key = share_of(h, c->group);
  if (key.bad || h->shares.n != 4 + key.n)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "the second ClientHello's key_share is not the one asked for");
  gostx__tls_th_add(c, msg, len);
  return server_flight(c, key, h->sni[0] != 0);
}

/* Our suite (and, without a PSK, our signature scheme) among the client's. */
static int ch_choose_suite(gostx_tls *c, const hello *h) {
  const gostx_tls_config *cfg = c->cfg;
  for (size_t i = 0; i < cfg->nsuites && !c->suite; i++)
    if (gostx__tls_rd_has16(h->suites, cfg->suites[i])) c->suite = gostx__tls_suite_by_id(cfg->suites[i]);
  if (!c->suite)
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE,
                offers_gost12_only(h) ? "no cipher suite in common: the client offers TLS 1.3 "
                                        "without GOST suites (its GOST suites are TLS 1.2's)"
                                      : "no cipher suite in common");
  if (!c->psk) { /* authenticated by our certificate */
    unsigned scheme = gostx__tls_curve_scheme(cfg->key.curve);
    if (!gostx__tls_rd_has16(h->sigs, scheme))
      return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "the client does not accept our key's signature scheme");
    c->scheme = (uint16_t)scheme;
  }
  return GOSTX_OK;
}

/* Our preference among the groups with a share (*group; 0: none); else
 * among those it supports, by HelloRetryRequest (*retry; 0: none). */
static void ch_choose_group(const gostx_tls *c, const hello *h, unsigned *group, unsigned *retry) {
  const gostx_tls_config *cfg = c->cfg;
  *group = *retry = 0;
  for (size_t i = 0; i < cfg->ngroups; i++) {
    if (!gostx__tls_rd_has16(h->groups, cfg->groups[i])) continue;
    if (!*retry) *retry = cfg->groups[i];
    if (!share_of(h, cfg->groups[i]).bad) {
      *group = cfg->groups[i];
      return;
    }
  }
}

/* A HelloRetryRequest for group (the transcript restarted). */
static int send_hrr(gostx_tls *c, unsigned group) {
  c->group = (uint16_t)group;
  c->hrr = 1;
  gostx__tls13_transcript_restart(c);
  int rc = send_server_hello(c, 1);
  if (rc == GOSTX_OK && c->hs->session_id_len) rc = gostx__tls_send_ccs(c);
  if (rc == GOSTX_OK) c->state = GOSTX__ST_WAIT_CH2;
  return rc;
}

int gostx__tls13_on_client_hello(gostx_tls *c, const uint8_t *msg, size_t len) {
  const gostx_tls_config *cfg = c->cfg;
  hello h;
  int rc = gostx__tls_parse_client_hello(c, msg + 4, len - 4, &h);
  if (rc != GOSTX_OK) return rc;
  int offers13 = h.have_versions && gostx__tls_rd_has16(h.versions, GOSTX_TLS_VERSION_1_3);
  if (c->state == GOSTX__ST_START && (!offers13 || !gostx__tls_speaks13(cfg)))
    return ch_not13(c, msg, len, &h, offers13);
  if (!offers13) return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, "the client does not offer TLS 1.3");
  if (!h.have_groups || !h.have_shares)
    return fail(c, GOSTX__ALERT_MISSING_EXTENSION, "ClientHello without supported_groups or key_share");
  rc = ch_check_shares(c, &h);
  if (rc == GOSTX_OK) rc = ch_auth(c, msg, &h);
  if (rc != GOSTX_OK) return rc;
  if (c->state == GOSTX__ST_WAIT_CH2) return on_client_hello2(c, msg, len, &h);
  memcpy(c->client_random, h.random, 32);
  c->hs->session_id_len = h.sid.n;
  memcpy(c->hs->session_id, h.sid.p, h.sid.n);
  rc = ch_choose_suite(c, &h);
  if (rc != GOSTX_OK) return rc;
  unsigned group, retry;
  ch_choose_group(c, &h, &group, &retry);
  if (!retry) return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "no group in common");
  rc = gostx__tls_alpn_select(c, &h);
  if (rc != GOSTX_OK) return rc;
  memcpy(c->servername, h.sni, sizeof h.sni);
  /* No CertificateRequest under a PSK (RFC 8446 section 4.3.2). */
  c->cert_req = !c->psk && cfg->verify != GOSTX_TLS_VERIFY_NONE;
  gostx__tls_th_add(c, msg, len);
  /* Early data is never accepted: it is skipped (RFC 8446 4.2.10). */
  if (h.early_data) c->early_skip = group ? GOSTX__EARLY_TRIAL : GOSTX__EARLY_AFTER_HRR;
  if (!group) return send_hrr(c, retry);
  c->group = (uint16_t)group;
  return server_flight(c, share_of(&h, group), h.sni[0] != 0);
}

/* After the client's Finished: the server's read key, then its tickets. */
int gostx__tls13_server_finish(gostx_tls *c) {
  int rc = gostx__tls_set_keys(c, 0, c->c_ap);
  int tickets = c->cfg->tickets && c->hs->tickets_ok;
  if (rc == GOSTX_OK && tickets) rc = gostx__tls13_res_master(c);
  if (rc == GOSTX_OK) gostx__tls13_connected(c);
  if (rc == GOSTX_OK && tickets) rc = gostx__tls_send_tickets(c);
  return rc;
}
