/* Session resumption by ticket (RFC 8446 sections 4.6.1 and 2.2), TLS 1.3:
 * the server's NewSessionTicket messages and its tickets, the client's
 * sessions (the newest ticket, kept; exported and imported as bytes).
 *
 * A ticket is ours alone to read: nonce (16 random bytes, top bit clear)
 * || Kuznyechik-MGM(ticket key, nonce, ad "gostx ticket 1", state) || tag
 * (16 bytes), the state being
 *   version 1 (1) | flags (1: bit 0 the client's certificate was verified)
 *   | suite (2) | issued, Unix s (8) | lifetime (4) | age_add (4)
 *   | PSK (32) | server name length (1) | server name,
 * all big-endian. A ticket that does not open, or names another server,
 * or is past its lifetime is passed over: the handshake goes on in full.
 * Only psk_dhe_ke is offered and taken (a fresh ECDHE every time: forward
 * secrecy holds); no early data.
 *
 * The session bytes a client exports (secret: they hold the PSK) are
 *   "GXS1" | suite (2) | lifetime (4) | age_add (4) | received, Unix ms (8)
 *   | PSK (32) | server name length (1) | name | ticket length (2) | ticket. */
#include "hs.h"

#define fail gostx__tls_hs_fail

#include <time.h>

#include "gostx/aead.h"

#define TICKET_NONCE 16
#define TICKET_TAG 16
#define TICKET_STATE_FIXED (1 + 1 + 2 + 8 + 4 + 4 + 32 + 1)
static const uint8_t ticket_ad[] = "gostx ticket 1";
static const uint8_t session_magic[4] = {'G', 'X', 'S', '1'};

uint64_t gostx__tls_now_ms(const gostx_tls *c) {
  if (GOSTX__TLS_HOOKS(c->cfg)->now) return GOSTX__TLS_HOOKS(c->cfg)->now * 1000;
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void put_be(uint8_t *p, uint64_t v, size_t k) {
  for (size_t i = 0; i < k; i++) p[i] = (uint8_t)(v >> (8 * (k - 1 - i)));
}

static uint64_t get_be(const uint8_t *p, size_t k) {
  uint64_t v = 0;
  for (size_t i = 0; i < k; i++) v = v << 8 | p[i];
  return v;
}

/* ---------------- server ---------------- */

/* The PSK of the ticket with this nonce (RFC 8446 section 4.6.1). */
static int ticket_psk(const gostx_tls *c, const uint8_t nonce[8], uint8_t psk[32]) {
  return gostx__tls_expand_label(c->res_master, "resumption", nonce, 8, psk, 32);
}

/* One NewSessionTicket: lifetime, age_add, nonce (8 bytes: the count of
 * tickets this connection sent), the sealed state, no extensions. */
static int send_ticket(gostx_tls *c) {
  const gostx_tls_config *cfg = c->cfg;
  size_t sni = strlen(c->servername);
  uint8_t state[TICKET_STATE_FIXED + 255], nonce8[8], age_add[4];
  size_t state_len = TICKET_STATE_FIXED + sni;
  uint64_t now = gostx__tls_now_ms(c) / 1000;
  put_be(nonce8, c->tickets_sent++, 8);
  int rc = gostx_random_bytes(age_add, 4);
  state[0] = 1;
  state[1] = (uint8_t)(c->client_auth ? 1 : 0);
  put_be(state + 2, c->suite->id, 2);
  put_be(state + 4, now, 8);
  put_be(state + 12, cfg->ticket_lifetime, 4);
  memcpy(state + 16, age_add, 4);
  if (rc == GOSTX_OK) rc = ticket_psk(c, nonce8, state + 20);
  state[52] = (uint8_t)sni;
  memcpy(state + 53, c->servername, sni);
  /* the message: type, length, lifetime, age_add, nonce<8>, ticket<..>, extensions<0> */
  size_t ticket_len = TICKET_NONCE + state_len + TICKET_TAG;
  size_t body = 4 + 4 + 1 + 8 + 2 + ticket_len + 2, len = 4 + body;
  uint8_t *m = c->hsb->msg;
  m[0] = GOSTX__HS_NEW_SESSION_TICKET;
  put_be(m + 1, body, 3);
  put_be(m + 4, cfg->ticket_lifetime, 4);
  memcpy(m + 8, age_add, 4);
  m[12] = 8;
  memcpy(m + 13, nonce8, 8);
  put_be(m + 21, ticket_len, 2);
  uint8_t *t = m + 23;
  gostx_cipher k;
  if (rc == GOSTX_OK) rc = gostx_random_bytes(t, TICKET_NONCE);
  t[0] &= 0x7f;
  if (rc == GOSTX_OK) rc = gostx_cipher_init(&k, GOSTX_ALG_KUZNYECHIK, cfg->ticket_key);
  if (rc == GOSTX_OK) {
    rc = gostx_mgm_encrypt(&k, t, ticket_ad, sizeof ticket_ad - 1, state, state_len,
                           t + TICKET_NONCE, t + TICKET_NONCE + state_len, TICKET_TAG);
    gostx_cipher_clear(&k);
  }
  gostx_memzero(state, sizeof state);
  put_be(m + 23 + ticket_len, 0, 2);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "session ticket");
  if (GOSTX__TLS_HOOKS(cfg)->mutate) /* the handshake fuzzer changes it as it would a handshake message */
    GOSTX__TLS_HOOKS(cfg)->mutate(GOSTX__TLS_HOOKS(cfg)->mutate_user, m, &len, GOSTX__TLS_MSG_CAP);
  rc = gostx__tls_queue_record(c, GOSTX__CT_HANDSHAKE, m, len, 0x0303);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "session ticket");
  return GOSTX_OK;
}

int gostx__tls_send_tickets(gostx_tls *c) {
  int rc = GOSTX_OK;
  for (unsigned i = 0; i < c->cfg->tickets && rc == GOSTX_OK; i++) rc = send_ticket(c);
  gostx_memzero(c->res_master, sizeof c->res_master);
  return rc;
}

int gostx__tls_ticket_open(gostx_tls *c, const uint8_t *id, size_t id_len, const char *sni) {
  const gostx_tls_config *cfg = c->cfg;
  if (!cfg->tickets || id_len < TICKET_NONCE + TICKET_STATE_FIXED + TICKET_TAG ||
      id_len > TICKET_NONCE + TICKET_STATE_FIXED + 255 + TICKET_TAG || (id[0] & 0x80))
    return 0;
  size_t state_len = id_len - TICKET_NONCE - TICKET_TAG;
  uint8_t state[TICKET_STATE_FIXED + 255];
  gostx_cipher k;
  if (gostx_cipher_init(&k, GOSTX_ALG_KUZNYECHIK, cfg->ticket_key) != GOSTX_OK) return 0;
  int rc = gostx_mgm_decrypt(&k, id, ticket_ad, sizeof ticket_ad - 1,
                             id + TICKET_NONCE, state_len, id + TICKET_NONCE + state_len,
                             TICKET_TAG, state);
  gostx_cipher_clear(&k);
  if (rc != GOSTX_OK) return 0; /* not sealed by our key (or changed): a full handshake */
  /* Authentic from here: ours, so well formed unless the key is shared
   * with a program that writes another format. */
  uint64_t issued = get_be(state + 4, 8), lifetime = get_be(state + 12, 4),
           now = gostx__tls_now_ms(c) / 1000;
  size_t name_len = state[52];
  int ok = state[0] == 1 && name_len == state_len - TICKET_STATE_FIXED &&
           name_len == strlen(sni) && !memcmp(state + 53, sni, name_len) && now >= issued &&
           now - issued <= lifetime && lifetime <= GOSTX__TLS_TICKET_LIFETIME_MAX &&
           (cfg->verify != GOSTX_TLS_VERIFY_REQUIRE || (state[1] & 1));
  if (ok) {
    memcpy(c->hs->psk_key, state + 20, 32);
    c->client_auth = state[1] & 1;
  }
  gostx_memzero(state, sizeof state);
  return ok;
}

/* ---------------- client ---------------- */

int gostx__tls_on_ticket(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  uint32_t lifetime = (uint32_t)get(&r, 4);
  uint32_t age_add = (uint32_t)get(&r, 4);
  rd nonce = vec(&r, 1, 0);
  rd ticket = vec(&r, 2, 1);
  rd exts = vec(&r, 2, 0);
  if (r.bad || r.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed NewSessionTicket");
  while (exts.n) { /* early_data (the only one RFC 8446 defines here) or unknown: no use to us */
    (void)get(&exts, 2);
    (void)vec(&exts, 2, 0);
    if (exts.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed NewSessionTicket extensions");
  }
  if (lifetime > GOSTX__TLS_TICKET_LIFETIME_MAX)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "NewSessionTicket lifetime over 7 days");
  /* lifetime 0: use it not at all; too long to keep: taken, not kept */
  if (!lifetime || ticket.n > sizeof c->cl->got.ticket || !c->suite) return GOSTX_OK;
  gostx__tls_session *s = &c->cl->got;
  int rc = gostx__tls_expand_label(c->res_master, "resumption", nonce.p, nonce.n, s->psk, 32);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "session ticket");
  s->suite = c->suite->id;
  s->lifetime = lifetime;
  s->age_add = age_add;
  s->received_ms = gostx__tls_now_ms(c);
  memcpy(s->servername, c->servername, sizeof s->servername);
  memcpy(s->ticket, ticket.p, ticket.n);
  s->ticket_len = ticket.n;
  return GOSTX_OK;
}

_Static_assert(GOSTX_TLS_SESSION_MAX == 4 + 2 + 4 + 4 + 8 + 32 + 1 + 255 + 2 + GOSTX__TLS_TICKET_MAX,
               "GOSTX_TLS_SESSION_MAX: the longest session bytes");

int gostx_tls_get_session(const gostx_tls *c, uint8_t *out, size_t cap, size_t *len) {
  if (!c || !len || (!out && cap)) return GOSTX_EINVAL;
  /* Only a session whose server was verified (its chain, or its key pinned
   * by a test) is given out: resumed, a session is taken as verified, and
   * one from an unverified (--insecure) handshake would let a verifying
   * client trust a server it never checked. */
  int verified = c->cfg->verify != GOSTX_TLS_VERIFY_NONE || GOSTX__TLS_HOOKS(c->cfg)->pin_curve;
  if (c->role != GOSTX_TLS_CLIENT || !c->cl->got.ticket_len || !verified) return GOSTX_ESTATE;
  const gostx__tls_session *s = &c->cl->got;
  size_t name = strlen(s->servername), need = 4 + 2 + 4 + 4 + 8 + 32 + 1 + name + 2 + s->ticket_len;
  *len = need;
  if (cap < need) return GOSTX_ELEN;
  uint8_t *p = out;
  memcpy(p, session_magic, 4);
  put_be(p + 4, s->suite, 2);
  put_be(p + 6, s->lifetime, 4);
  put_be(p + 10, s->age_add, 4);
  put_be(p + 14, s->received_ms, 8);
  memcpy(p + 22, s->psk, 32);
  p[54] = (uint8_t)name;
  memcpy(p + 55, s->servername, name);
  p += 55 + name;
  put_be(p, s->ticket_len, 2);
  memcpy(p + 2, s->ticket, s->ticket_len);
  return GOSTX_OK;
}

int gostx_tls_set_session(gostx_tls *c, const uint8_t *in, size_t len) {
  if (!c || !in) return GOSTX_EINVAL;
  if (c->role != GOSTX_TLS_CLIENT || c->state != GOSTX__ST_START) return GOSTX_ESTATE;
  gostx__tls_session s;
  memset(&s, 0, sizeof s);
  rd r = {in, len, 0};
  const uint8_t *magic = take(&r, 4);
  s.suite = (uint16_t)get(&r, 2);
  s.lifetime = (uint32_t)get(&r, 4);
  s.age_add = (uint32_t)get(&r, 4);
  uint64_t hi = get(&r, 4);
  s.received_ms = hi << 32 | get(&r, 4);
  const uint8_t *psk = take(&r, 32);
  rd name = vec(&r, 1, 0);
  rd ticket = vec(&r, 2, 1);
  int rc = GOSTX_OK;
  if (r.bad || r.n || memcmp(magic, session_magic, 4) || !gostx__tls_suite_by_id(s.suite) ||
      !s.lifetime || s.lifetime > GOSTX__TLS_TICKET_LIFETIME_MAX || ticket.n > sizeof s.ticket ||
      name.n >= sizeof s.servername)
    rc = GOSTX_EFORMAT;
  if (rc == GOSTX_OK) { /* the name as gostx_tls_set_servername takes it, or none */
    memcpy(s.servername, name.p, name.n);
    s.servername[name.n] = 0;
    if (name.n && !gostx__tls_is_host_name(s.servername, name.n) &&
        !gostx__tls_is_ip_literal(s.servername))
      rc = GOSTX_EFORMAT;
  }
  if (rc == GOSTX_OK) {
    memcpy(s.psk, psk, 32);
    memcpy(s.ticket, ticket.p, ticket.n);
    s.ticket_len = ticket.n;
    c->cl->offer = s;
  }
  gostx_memzero(&s, sizeof s);
  return rc;
}

int gostx_tls_session_reused(const gostx_tls *c) { return c && c->resumed; }
