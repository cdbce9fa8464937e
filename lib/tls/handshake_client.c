/* TLS 1.3's handshake, the client's side: the ClientHello (and the second
 * after a HelloRetryRequest), the ServerHello or HelloRetryRequest taken
 * (a TLS 1.2 ServerHello handed to handshake12.c), EncryptedExtensions,
 * CertificateRequest, and the client's last flight. */
#include "hs13.h"

#define fail gostx__tls_hs_fail

#include <stdio.h>

#include "gost3410/ec.h"
#include "gost3410/ecdh.h"

/* ---------------- ClientHello ---------------- */

/* The ClientHello's extensions either version reads, in RFC 9189's
 * examples' order: server_name, supported_groups, signature_algorithms,
 * renegotiation_info and extended_master_secret, ALPN. */
static void put_common_exts(gostx_tls *c, wr *w) {
  const gostx_tls_config *cfg = c->cfg;
  if (c->servername[0] && !gostx__tls_is_ip_literal(c->servername)) {
    size_t n = strlen(c->servername);
    put(w, EXT_SERVER_NAME, 2);
    put(w, (unsigned)n + 5, 2);
    put(w, (unsigned)n + 3, 2);
    put(w, 0, 1); /* host_name */
    put(w, (unsigned)n, 2);
    put_bytes(w, (const uint8_t *)c->servername, n);
  }
  if (c->hs->offered13) {
    put(w, EXT_SUPPORTED_GROUPS, 2);
    put(w, (unsigned)(2 * cfg->ngroups + 2), 2);
    put(w, (unsigned)(2 * cfg->ngroups), 2);
    for (size_t i = 0; i < cfg->ngroups; i++) put(w, cfg->groups[i], 2);
  }
  /* RFC 9367 A.2's first ClientHello (a test hook) offers the PSK alone */
  if (!(GOSTX__TLS_HOOKS(cfg)->psk_only_hello && cfg->psk_id_len)) {
    put(w, EXT_SIGNATURE_ALGORITHMS, 2);
    size_t sigs = open_vec(w, 2);
    size_t sig_list = open_vec(w, 2);
    for (unsigned s = 0x0709; c->hs->offered13 && s <= 0x070F; s++) put(w, s, 2);
    if (c->hs->offered12) { /* RFC 9189 section 5: (8, 64) and (8, 65) */
      put(w, GOSTX__TLS_HOOKS(cfg)->sig512_first ? GOSTX__TLS12_SIG_512 : GOSTX__TLS12_SIG_256, 2);
      put(w, GOSTX__TLS_HOOKS(cfg)->sig512_first ? GOSTX__TLS12_SIG_256 : GOSTX__TLS12_SIG_512, 2);
    }
    close_vec(w, sig_list, 2);
    close_vec(w, sigs, 2);
  }
  if (c->hs->offered12) { /* RFC 5746 and RFC 7627, in RFC 9189's examples' order */
    put(w, EXT_RENEGOTIATION_INFO, 2);
    put(w, 1, 2);
    put(w, 0, 1);
    if (!GOSTX__TLS_HOOKS(cfg)->no_ems) {
      put(w, EXT_EXTENDED_MASTER_SECRET, 2);
      put(w, 0, 2);
    }
  }
  if (cfg->alpn_len) {
    put(w, EXT_ALPN, 2);
    put(w, (unsigned)cfg->alpn_len + 2, 2);
    put(w, (unsigned)cfg->alpn_len, 2);
    put_bytes(w, cfg->alpn, cfg->alpn_len);
  }
}

/* TLS 1.3's: supported_versions, psk_key_exchange_modes, key_share (a
 * fresh ephemeral key), early_data (a test hook), cookie. */
static int put_exts13(gostx_tls *c, wr *w) {
  const gostx_tls_config *cfg = c->cfg;
  put(w, EXT_SUPPORTED_VERSIONS, 2);
  put(w, c->hs->offered12 ? 5 : 3, 2);
  put(w, c->hs->offered12 ? 4 : 2, 1);
  put(w, 0x0304, 2);
  if (c->hs->offered12) put(w, 0x0303, 2);
  /* psk_key_exchange_modes: psk_dhe_ke, for a PSK offered now or tickets
   * to come (psk_ke, as RFC 9367's first example sends it, with the test
   * hook that replays it) */
  put(w, EXT_PSK_MODES, 2);
  put(w, 2, 2);
  put(w, GOSTX__TLS_HOOKS(cfg)->psk_ke_hello && !cfg->psk_id_len ? 0x0100 : 0x0101, 2);
  put(w, EXT_KEY_SHARE, 2);
  size_t ks = open_vec(w, 2);
  size_t shares = open_vec(w, 2);
  if (c->group) { /* none (the test hook): the server asks for one */
    put(w, c->group, 2);
    int rc = gostx__tls13_new_ephemeral(c);
    if (rc != GOSTX_OK) return rc;
    gostx__tls13_put_share(c, w);
  }
  close_vec(w, shares, 2);
  close_vec(w, ks, 2);
  if (GOSTX__TLS_HOOKS(cfg)->early_data_hello > c->hrr) {
    put(w, EXT_EARLY_DATA, 2);
    put(w, 0, 2);
  }
  if (c->hs->cookie_len) {
    put(w, EXT_COOKIE, 2);
    put(w, (unsigned)c->hs->cookie_len + 2, 2);
    put(w, (unsigned)c->hs->cookie_len, 2);
    put_bytes(w, c->hs->cookie, c->hs->cookie_len);
  }
  return GOSTX_OK;
}

/* pre_shared_key, last (RFC 8446 section 4.2.11): the external PSK, or the
 * session's ticket, its binder over the message before the binders; then
 * the message out. (exts: where the extensions' length goes.) */
static int send_with_psk(gostx_tls *c, wr *w, size_t exts, int ticket) {
  const gostx_tls_config *cfg = c->cfg;
  const uint8_t *id = ticket ? c->cl->offer.ticket : cfg->psk_id;
  size_t id_len = ticket ? c->cl->offer.ticket_len : cfg->psk_id_len;
  /* the ticket's age as we count it, plus age_add (mod 2^32); 0 for an external PSK */
  uint32_t age = ticket ? (uint32_t)(gostx__tls_now_ms(c) - c->cl->offer.received_ms) + c->cl->offer.age_add : 0;
  put(w, EXT_PRE_SHARED_KEY, 2);
  put(w, (unsigned)(2 + 2 + id_len + 4 + 2 + 1 + 32), 2);
  put(w, (unsigned)(2 + id_len + 4), 2);
  put(w, (unsigned)id_len, 2);
  put_bytes(w, id, id_len);
  put(w, age, 4);
  put(w, 33, 2);
  put(w, 32, 1);
  uint8_t binder[32] = {0};
  put_bytes(w, binder, 32);
  close_vec(w, exts, 2);
  if (w->over) return msg_send(c, w);
  uint8_t *m = c->hsb->msg + c->pend; /* the header's length, as send_msg will write it */
  m[1] = (uint8_t)(w->n >> 16);
  m[2] = (uint8_t)(w->n >> 8);
  m[3] = (uint8_t)w->n;
  int brc = gostx__tls13_psk_binder(c, ticket, m, 4 + w->n - 35, m + 4 + w->n - 32);
  if (brc != GOSTX_OK) return brc;
  return msg_send(c, w);
}

static int build_client_hello(gostx_tls *c) {
  const gostx_tls_config *cfg = c->cfg;
  wr w = msg_start(c, GOSTX__HS_CLIENT_HELLO);
  put(&w, 0x0303, 2);
  put_bytes(&w, c->client_random, 32);
  put(&w, (unsigned)c->hs->session_id_len, 1);
  put_bytes(&w, c->hs->session_id, c->hs->session_id_len);
  size_t list = open_vec(&w, 2);
  for (size_t i = 0; i < cfg->nsuites; i++)
    if (gostx__tls_suite_by_id(cfg->suites[i]) ? c->hs->offered13 : c->hs->offered12)
      put(&w, cfg->suites[i], 2);
  close_vec(&w, list, 2);
  put(&w, 0x0100, 2); /* compression_methods: null only */
  size_t exts = open_vec(&w, 2);
  put_common_exts(c, &w);
  if (c->hs->offered13) {
    int rc = put_exts13(c, &w);
    if (rc != GOSTX_OK) return rc;
    int ticket = !cfg->psk_id_len && c->cl->offer.ticket_len;
    if (cfg->psk_id_len || ticket) return send_with_psk(c, &w, exts, ticket);
  }
  close_vec(&w, exts, 2);
  return msg_send(c, &w);
}

int gostx__tls_client_hello(gostx_tls *c) {
  const gostx_tls_config *cfg = c->cfg;
  if (cfg->verify != GOSTX_TLS_VERIFY_NONE && !cfg->store && !GOSTX__TLS_HOOKS(cfg)->pin_curve &&
      !cfg->psk_id_len)
    return gostx__tls_fail(c, -1, GOSTX_EINVAL, "no trust store to verify the server");
  /* The versions offered: those of the range with a suite in the list. */
  for (size_t i = 0; i < cfg->nsuites; i++) {
    if (gostx__tls_suite_by_id(cfg->suites[i])) c->hs->offered13 = cfg->vmax >= GOSTX_TLS_VERSION_1_3;
    else c->hs->offered12 = cfg->vmin <= GOSTX_TLS_VERSION_1_2;
  }
  if (!c->hs->offered13 && !c->hs->offered12)
    return gostx__tls_fail(c, -1, GOSTX_EINVAL, "no cipher suite of the versions allowed");
  int rc = gostx__tls_fill_random(c, c->client_random, 32);
  if (rc != GOSTX_OK) return rc;
  c->hs->session_id_len = 0;
  if (!GOSTX__TLS_HOOKS(cfg)->no_compat && c->hs->offered13) {
    /* Middlebox compatibility (RFC 8446 appendix D.4): a session id to echo. */
    c->hs->session_id_len = 32;
    if (gostx_random_bytes(c->hs->session_id, 32) != GOSTX_OK)
      return gostx__tls_fail(c, -1, GOSTX_EIO, "no randomness");
  }
  c->group = GOSTX__TLS_HOOKS(cfg)->psk_only_hello && cfg->psk_id_len ? 0 : cfg->groups[0];
  /* The PSK offered: the external one, else the session's ticket, when it
   * is for this server name and not past its lifetime (RFC 8446 section
   * 4.6.1; any TLS 1.3 suite of ours may resume it: all hash with
   * Streebog-256); a session not offered is dropped. */
  if (cfg->psk_id_len) {
    memcpy(c->hs->psk_key, cfg->psk, 32);
  } else if (c->cl->offer.ticket_len) {
    uint64_t now = gostx__tls_now_ms(c), at = c->cl->offer.received_ms;
    if (c->hs->offered13 && !strcmp(c->cl->offer.servername, c->servername) && now >= at &&
        now - at < (uint64_t)c->cl->offer.lifetime * 1000)
      memcpy(c->hs->psk_key, c->cl->offer.psk, 32);
    else
      gostx_memzero(&c->cl->offer, sizeof c->cl->offer);
  }
  rc = build_client_hello(c);
  if (rc == GOSTX_OK) c->state = GOSTX__ST_WAIT_SH;
  return rc;
}

/* ---------------- ServerHello and HelloRetryRequest (client) ---------------- */

/* The extensions of a ServerHello that has supported_versions. */
typedef struct sh_exts {
  unsigned version;
  rd share, cookie, psk; /* bad: absent */
} sh_exts;

static int sh_extensions(gostx_tls *c, rd exts, int is_hrr, sh_exts *x) {
  *x = (sh_exts){0, {NULL, 0, 1}, {NULL, 0, 1}, {NULL, 0, 1}};
  uint32_t seen = 0;
  while (exts.n) {
    unsigned type = get(&exts, 2);
    rd data = vec(&exts, 2, 0);
    if (exts.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ServerHello extensions");
    uint32_t bit = type == EXT_SUPPORTED_VERSIONS ? 1u : type == EXT_KEY_SHARE ? 2u
                   : type == EXT_COOKIE && is_hrr ? 4u
                   : type == EXT_PRE_SHARED_KEY && !is_hrr && (c->cfg->psk_id_len || c->cl->offer.ticket_len) ? 8u
                                                                                            : 0u;
    if (!bit) return fail(c, GOSTX__ALERT_UNSUPPORTED_EXTENSION, "ServerHello extension not offered");
    if (seen & bit) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "ServerHello extension twice");
    seen |= bit;
    if (type == EXT_SUPPORTED_VERSIONS) {
      x->version = get(&data, 2);
      if (data.bad || data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed supported_versions");
    } else if (type == EXT_KEY_SHARE) {
      x->share = data;
    } else if (type == EXT_PRE_SHARED_KEY) {
      x->psk = data;
    } else {
      x->cookie = vec(&data, 2, 1);
      if (data.bad || data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed cookie");
    }
  }
  return GOSTX_OK;
}

/* A ServerHello without supported_versions: a TLS 1.2 (or older) answer.
 * The downgrade sentinels first (RFC 8446 section 4.1.3), then TLS 1.2 if
 * offered. */
static int sh_not13(gostx_tls *c, const uint8_t *msg, size_t len, const server_hello *sh) {
  static const uint8_t downgrd[7] = {'D', 'O', 'W', 'N', 'G', 'R', 'D'};
  if (c->hs->offered13 && !memcmp(sh->random + 24, downgrd, 7) && sh->random[31] <= 1)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "downgrade sentinel in the ServerHello");
  if (c->hs->offered12 && !c->hrr) return gostx__tls12_on_server_hello(c, msg, len, sh);
  return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, "the server does not speak TLS 1.3");
}

/* What a TLS 1.3 ServerHello or HelloRetryRequest must echo of ours. */
static int sh_check(gostx_tls *c, const server_hello *sh, const sh_exts *x) {
  if (sh->legacy != 0x0303) return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, "ServerHello legacy_version");
  if (x->version != 0x0304 || !c->hs->offered13) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "selected_version not offered");
  if (sh->sid.n != c->hs->session_id_len || (sh->sid.n && memcmp(sh->sid.p, c->hs->session_id, sh->sid.n)))
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "legacy_session_id_echo differs");
  if (!gostx__tls_has16(c->cfg->suites, c->cfg->nsuites, sh->suite) || !gostx__tls_suite_by_id(sh->suite))
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "cipher suite not offered");
  if (c->suite && c->suite->id != sh->suite)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "cipher suite differs from the HelloRetryRequest's");
  if (sh->comp != 0) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "compression method not null");
  if (x->share.bad) return fail(c, GOSTX__ALERT_MISSING_EXTENSION, "ServerHello without key_share");
  return GOSTX_OK;
}

/* A HelloRetryRequest: the group it names, its cookie, the transcript
 * restarted, then the second ClientHello. */
static int on_hrr(gostx_tls *c, const uint8_t *msg, size_t len, sh_exts *x) {
  if (c->hrr) return fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, "a second HelloRetryRequest");
  unsigned group = get(&x->share, 2);
  if (x->share.bad || x->share.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed HelloRetryRequest key_share");
  if (!gostx__tls_has16(c->cfg->groups, c->cfg->ngroups, group) || group == c->group)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "HelloRetryRequest names a group not asked for");
  c->hrr = 1;
  c->group = (uint16_t)group;
  c->hs->cookie_len = 0;
  if (!x->cookie.bad) {
    if (x->cookie.n > sizeof c->hs->cookie) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "cookie too long");
    memcpy(c->hs->cookie, x->cookie.p, x->cookie.n);
    c->hs->cookie_len = x->cookie.n;
  }
  gostx__tls13_transcript_restart(c);
  gostx__tls_th_add(c, msg, len);
  int rc = GOSTX_OK;
  if (c->hs->session_id_len) rc = gostx__tls_send_ccs(c);
  if (rc == GOSTX_OK) rc = build_client_hello(c);
  return rc;
}

/* The server's pre_shared_key (psk, bad: none): the one identity we
 * offered taken; without it, a full handshake that we must be able to
 * verify. */
static int sh_psk(gostx_tls *c, rd psk) {
  if (!psk.bad) {
    unsigned selected = get(&psk, 2);
    if (psk.bad || psk.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed pre_shared_key");
    if (selected != 0) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "selected_identity not offered");
    c->psk = 1;
    c->resumed = !c->cfg->psk_id_len;
  } else if (c->cfg->verify != GOSTX_TLS_VERIFY_NONE && !c->cfg->store && !GOSTX__TLS_HOOKS(c->cfg)->pin_curve) {
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE,
                "the server did not take the PSK and there is no trust store to verify it");
  }
  return GOSTX_OK;
}

int gostx__tls13_on_server_hello(gostx_tls *c, const uint8_t *msg, size_t len) {
  server_hello sh;
  int rc = gostx__tls_parse_server_hello(c, msg, len, &sh);
  if (rc != GOSTX_OK) return rc;
  int has_versions = 0;
  for (rd e = sh.exts; e.n && !e.bad;) {
    if (get(&e, 2) == EXT_SUPPORTED_VERSIONS) has_versions = 1;
    (void)vec(&e, 2, 0);
  }
  if (!has_versions) return sh_not13(c, msg, len, &sh);
  int is_hrr = !memcmp(sh.random, gostx__tls13_hrr_random, 32);
  sh_exts x;
  rc = sh_extensions(c, sh.exts, is_hrr, &x);
  if (rc == GOSTX_OK) rc = sh_check(c, &sh, &x);
  if (rc != GOSTX_OK) return rc;
  c->suite = gostx__tls_suite_by_id(sh.suite);
  if (is_hrr) return on_hrr(c, msg, len, &x);
  unsigned group = get(&x.share, 2);
  rd key = vec(&x.share, 2, 1);
  if (x.share.bad || x.share.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed key_share");
  if (group != c->group) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "key_share of a group not offered");
  rc = sh_psk(c, x.psk);
  if (rc != GOSTX_OK) return rc;
  memcpy(c->server_random, sh.random, 32);
  gostx__tls_th_add(c, msg, len);
  uint8_t shared[64];
  rc = gostx__tls13_ecdhe(c, key.p, key.n, shared);
  if (rc == GOSTX_OK) rc = gostx__tls13_handshake_secrets(c, shared);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 0, c->hs->s_hs);
  /* The write key too: the server reads under it from now on, so an alert
   * about its flight (a refused chain) must go under it (RFC 8446 5.1). */
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 1, c->hs->c_hs);
  if (rc == GOSTX_OK) c->state = GOSTX__ST_WAIT_EE;
  return rc;
}

int gostx__tls13_on_encrypted_extensions(gostx_tls *c, const uint8_t *body, size_t len) {
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
  return GOSTX_OK;
}

int gostx__tls13_on_certificate_request(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  rd ctx = vec(&r, 1, 0);
  rd exts = vec(&r, 2, 0);
  if (r.bad || r.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed CertificateRequest");
  if (ctx.n) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "CertificateRequest context not empty");
  int have_sigs = 0;
  c->hs->npeer_schemes = 0;
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
      if (c->hs->npeer_schemes < 16) c->hs->peer_schemes[c->hs->npeer_schemes++] = (uint16_t)s;
    }
  }
  if (!have_sigs)
    return fail(c, GOSTX__ALERT_MISSING_EXTENSION, "CertificateRequest without signature_algorithms");
  c->cert_req = 1;
  return GOSTX_OK;
}


/* After the server's Finished: the client's flight. */
int gostx__tls13_client_finish(gostx_tls *c) {
  int rc = gostx__tls13_app_secrets(c);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 0, c->s_ap);
  if (rc == GOSTX_OK && c->hs->session_id_len) rc = gostx__tls_send_ccs(c);
  if (rc == GOSTX_OK && c->cert_req) {
    unsigned scheme = gostx__tls_curve_scheme(c->cfg->key.curve);
    int can = c->cfg->nchain && scheme && gostx__tls_has16(c->hs->peer_schemes, c->hs->npeer_schemes, scheme);
    rc = gostx__tls13_send_certificate(c, can);
    if (rc == GOSTX_OK && can) rc = gostx__tls13_send_cv(c);
  }
  if (rc == GOSTX_OK) rc = gostx__tls13_send_finished(c);
  if (rc == GOSTX_OK) rc = gostx__tls13_res_master(c);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 1, c->c_ap);
  if (rc == GOSTX_OK) gostx__tls13_connected(c);
  return rc;
}
