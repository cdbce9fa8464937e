/* IKE_AUTH (RFC 7296 1.2, 2.15, 2.17) of the exchange engine: the IDs,
 * AUTH by shared key (method 2) or by GOST signature with certificates
 * (method 14, sig.c), the first Child SA's proposal (ESP with the RFC 9227
 * transforms), its traffic selectors and KEYMAT. Nothing comes out of an
 * exchange whose AUTH did not check. */
#include <string.h>

#include "engine_int.h"

enum { ID_BODY_MAX = 4 + 256, AUTH_MAX = 256 };

/* Our ID payload's body: type | RESERVED(3) | data. */
static size_t id_body(const gostx_ike_conf *cf, uint8_t *b) {
  if (cf->id_len > ID_BODY_MAX - 4) return 0;
  memset(b, 0, 4);
  b[0] = cf->id_type;
  memcpy(b + 4, cf->id, cf->id_len);
  return 4 + cf->id_len;
}

/* The octets AUTH covers (2.15): the sender's IKE_SA_INIT message, the
 * peer's nonce, prf(SK_p of the sender, its ID body). */
typedef struct signed_octets {
  const uint8_t *msg, *nonce;
  size_t msg_len, nonce_len;
  uint8_t id_mac[GOSTX_IKE_PRF_LEN];
} signed_octets;

static int octets(const gostx_ike_engine *e, int ours, const uint8_t *idb, size_t idb_len,
                  signed_octets *s) {
  const int sender_init = (e->cf->role == GOSTX_IKE_INITIATOR) == ours;
  s->msg = sender_init ? e->m1 : e->m2;
  s->msg_len = sender_init ? e->m1_len : e->m2_len;
  s->nonce = sender_init ? e->nr : e->ni;
  s->nonce_len = sender_init ? e->nr_len : e->ni_len;
  return gostx__ike_id_mac(sender_init ? e->k.sk_pi : e->k.sk_pr, idb, idb_len, s->id_mac);
}

static int own_auth(const gostx_ike_engine *e, const uint8_t *idb, size_t idb_len,
                    uint8_t *auth, size_t *auth_len) {
  signed_octets s;
  int rc = octets(e, 1, idb, idb_len, &s);
  if (rc != GOSTX_OK) return rc;
  if (e->cf->auth == GOSTX_IKE_AUTH_PSK) {
    *auth_len = GOSTX_IKE_PRF_LEN;
    rc = gostx__ike_auth_psk(e->cf->psk, e->cf->psk_len, s.msg, s.msg_len, s.nonce,
                             s.nonce_len, s.id_mac, auth);
  } else {
    rc = gostx__ike_auth_sig_sign(e->cf->key, s.msg, s.msg_len, s.nonce, s.nonce_len,
                                  s.id_mac, auth, AUTH_MAX, auth_len);
  }
  gostx_memzero(&s, sizeof s);
  return rc;
}

/* With signatures, when the peer announced the hashes it verifies with
 * (RFC 7427 4): NULL if it takes the one our key signs with (RFC 9385 7:
 * the key's size fixes it), else why we cannot authenticate to it. */
static const char *no_usable_hash(const gostx_ike_engine *e) {
  if (e->cf->auth != GOSTX_IKE_AUTH_DIGITAL_SIGNATURE || !e->peer_hashes_sent) return NULL;
  const uint16_t h = gostx__ike_sig_hash_of(e->cf->key->len);
  if (h && (e->peer_hashes >> h & 1)) return NULL;
  return h == GOSTX_IKE_HASH_STREEBOG_256
             ? "the peer's SIGNATURE_HASH_ALGORITHMS lacks Streebog-256 (6), the hash our "
               "256-bit key signs with"
             : "the peer's SIGNATURE_HASH_ALGORITHMS lacks Streebog-512 (7), the hash our "
               "512-bit key signs with";
}

/* ID (type), [CERT...], [CERTREQ], AUTH: who we are and the proof; the
 * initiator asks for a chain to its CAs (RFC 7296 1.2, RFC 9385 A.2.1's
 * place: after CERT). */
static int w_identity(const gostx_ike_engine *e, gostx_ike_writer *w, uint8_t id_type) {
  uint8_t idb[ID_BODY_MAX], auth[AUTH_MAX];
  size_t idb_len = id_body(e->cf, idb), auth_len = 0;
  if (!idb_len) return GOSTX_ELEN;
  gostx__ike_w_raw(w, id_type, idb, idb_len);
  if (e->cf->auth == GOSTX_IKE_AUTH_DIGITAL_SIGNATURE)
    for (size_t i = 0; i < e->cf->n_certs; i++)
      gostx__ike_w_cert(w, GOSTX_IKE_PT_CERT, GOSTX_IKE_CERT_X509_SIG, e->cf->certs[i],
                        e->cf->cert_lens[i]);
  if (e->cf->auth == GOSTX_IKE_AUTH_DIGITAL_SIGNATURE && e->cf->role == GOSTX_IKE_INITIATOR)
    gostx__ike_w_certreq(w, e->cf->store);
  int rc = own_auth(e, idb, idb_len, auth, &auth_len);
  if (rc == GOSTX_OK) gostx__ike_w_auth(w, e->cf->auth, auth, auth_len);
  if (rc == GOSTX_OK && e->cf->role == GOSTX_IKE_INITIATOR && e->cf->initial_contact)
    gostx__ike_w_notify_type(w, GOSTX_IKE_N_INITIAL_CONTACT, NULL, 0);
  gostx_memzero(auth, sizeof auth);
  return rc;
}

/* The request's INITIAL_CONTACT: 1 when there, 0 when not; GOSTX_EFORMAT
 * for a malformed notify or one with data or an SPI (RFC 7296 3.10.1:
 * protocol 0 or 1 and no SPI; it carries no data). */
static int initial_contact(const gostx_ike_chain *c) {
  int seen = 0;
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NOTIFY); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_NOTIFY)) {
    gostx_ike_notify n;
    if (gostx__ike_notify_read(p->body, p->len, &n) != GOSTX_OK) return GOSTX_EFORMAT;
    if (n.type != GOSTX_IKE_N_INITIAL_CONTACT) continue;
    if (n.proto > GOSTX_IKE_PROTO_IKE || n.spi_len || n.data_len) return GOSTX_EFORMAT;
    seen = 1;
  }
  return seen;
}

static void w_child(const gostx_ike_engine *e, gostx_ike_writer *w, uint8_t num,
                    const gostx_ike_ts_set *tsi, const gostx_ike_ts_set *tsr) {
  gostx_ike_sa sa;
  gostx__ike_esp_proposal(e, num, e->esp_spi, 0, &sa);
  gostx__ike_w_sa(w, &sa);
  gostx__ike_w_ts(w, GOSTX_IKE_PT_TSI, tsi);
  gostx__ike_w_ts(w, GOSTX_IKE_PT_TSR, tsr);
}

/* inner (its first payload's type) sealed into e->tx under our SK_e. */
static int seal_tx(gostx_ike_engine *e, int response, uint32_t msg_id, gostx_ike_writer *w) {
  gostx_ike_hdr h;
  if (w->err) return w->err;
  gostx__ike_hdr_of(e, GOSTX_IKE_AUTH, response, msg_id, &h);
  return gostx__ike_seal_out(e, &h, w->first, w->buf, w->len);
}

/* Our ESP SPI: random, above the 0-255 IANA reserves (RFC 4303 2.1). */
static int new_esp_spi(gostx_ike_engine *e) {
  uint8_t b[4];
  e->esp_spi = 0;
  while (e->esp_spi < 256) {
    int rc = gostx_random_bytes(b, 4);
    if (rc != GOSTX_OK) return rc;
    e->esp_spi = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
  }
  return GOSTX_OK;
}

int gostx__ike_auth_request(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                            size_t *out_len) {
  uint8_t inner[GOSTX_IKE_MSG_MAX - 64];
  gostx_ike_writer w;
  int rc = new_esp_spi(e);
  if (rc != GOSTX_OK) return rc;
  if ((e->why = no_usable_hash(e)) != NULL) { /* nothing it could verify: nothing sent */
    e->state = GOSTX_IKE_S_FAILED;
    return GOSTX_OK;
  }
  gostx__ike_w_inner(&w, inner, sizeof inner);
  rc = w_identity(e, &w, GOSTX_IKE_PT_IDI);
  if (rc == GOSTX_OK && e->cf->cp_request) { /* before SAi2 (RFC 7296 1.2's order) */
    gostx_ike_cp cp = {.cfg_type = GOSTX_IKE_CFG_REQUEST};
    rc = gostx__ike_cp_add(&cp, GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, NULL, 0);
    gostx__ike_w_cp(&w, &cp);
  }
  if (rc == GOSTX_OK) w_child(e, &w, 1, &e->cf->tsi, &e->cf->tsr);
  if (rc == GOSTX_OK) rc = seal_tx(e, 0, 1, &w);
  if (rc != GOSTX_OK) return rc;
  e->state = GOSTX_IKE_S_AUTH_SENT;
  e->msg_id = 1;
  return gostx__ike_send(e, now_ms, out, cap, out_len);
}

/* ---- checking the peer ---- */

static int id_is_configured(const gostx_ike_conf *cf, const gostx_ike_payload *id) {
  uint8_t type;
  const uint8_t *d;
  size_t l;
  if (gostx__ike_id_read(id->body, id->len, &type, &d, &l) != GOSTX_OK) return 0;
  return type == cf->peer_id_type && l == cf->peer_id_len && !memcmp(d, cf->peer_id, l);
}

/* The peer's ID (payload id_type) is the one configured, its AUTH checks
 * (by the method configured) over its signed octets. GOSTX_EAUTH otherwise,
 * with e->why saying which check refused it (for the daemon's log) and
 * e->peer_cert lib/x509's verdict on its certificate. */
static int check_peer(gostx_ike_engine *e, const gostx_ike_chain *c, uint8_t id_type,
                      int64_t now_ms) {
  uint8_t method;
  const uint8_t *auth;
  size_t auth_len;
  signed_octets s;
  const gostx_ike_payload *id = gostx__ike_find(c, id_type);
  const gostx_ike_payload *ap = gostx__ike_find(c, GOSTX_IKE_PT_AUTH);
  e->why = !id || !ap ? "no ID or AUTH payload" : "the peer's ID is not the one configured";
  /* a conf picked without a peer_id took the ID as it stands (a template's pattern) */
  const int id_ok = id && ((e->picked && !e->cf->peer_id) || id_is_configured(e->cf, id));
  if (!id_ok || !ap) return GOSTX_EAUTH;
  e->why = "the peer's AUTH method is not the one configured";
  if (gostx__ike_auth_read(ap->body, ap->len, &method, &auth, &auth_len) != GOSTX_OK ||
      method != e->cf->auth || octets(e, 0, id->body, id->len, &s) != GOSTX_OK)
    return GOSTX_EAUTH;
  int rc;
  if (method == GOSTX_IKE_AUTH_PSK) {
    rc = gostx__ike_auth_psk_check(e->cf->psk, e->cf->psk_len, s.msg, s.msg_len, s.nonce,
                                   s.nonce_len, s.id_mac, auth, auth_len);
    e->why = "the peer's AUTH does not verify (another PSK)";
  } else {
    gostx_x509_cert leaf;
    const char *cert_why;
    e->peer_cert = gostx__ike_peer_cert_rev(e->cf->store, &e->cf->revocation, e->cert_note, c,
                                            id_type, now_ms / 1000, &leaf, &cert_why);
    rc = e->peer_cert == GOSTX_X509_OK
             ? gostx__ike_auth_sig_verify(&leaf, s.msg, s.msg_len, s.nonce, s.nonce_len,
                                          s.id_mac, auth, auth_len)
             : GOSTX_EAUTH;
    e->why = e->peer_cert != GOSTX_X509_OK ? cert_why ? cert_why : gostx_x509_status_name(e->peer_cert)
                                           : gostx__ike_sig_why(rc);
  }
  gostx_memzero(&s, sizeof s);
  /* kept for the CRLs that come after (gostx__ike_peer_recheck) */
  if (rc == GOSTX_OK && method != GOSTX_IKE_AUTH_PSK) gostx__ike_peer_keep(e, c, now_ms / 1000);
  if (rc == GOSTX_OK) e->why = NULL;
  return rc == GOSTX_OK ? GOSTX_OK : GOSTX_EAUTH;
}

/* ---- the Child SA ---- */

static uint32_t spi_of(const gostx_ike_proposal *p) {
  return (uint32_t)p->spi[0] << 24 | (uint32_t)p->spi[1] << 16 | (uint32_t)p->spi[2] << 8 |
         p->spi[3];
}

static int esp_acceptable(uint16_t encr_id, const gostx_ike_proposal *p) {
  /* SPIs 0-255 are reserved (RFC 4303 2.1): none is ever on a packet */
  if (p->proto != GOSTX_IKE_PROTO_ESP || p->spi_len != 4 || spi_of(p) < 256) return 0;
  int encr = 0, esn = 0;
  for (size_t i = 0; i < p->n; i++) {
    const gostx_ike_transform *t = &p->t[i];
    const int usable = !t->unknown_attr && t->key_len < 0;
    if (t->type == GOSTX_IKE_TT_ENCR) encr |= usable && t->id == encr_id;
    else if (t->type == GOSTX_IKE_TT_ESN) esn |= usable && t->id == GOSTX_IKE_ESN_NO;
    else return 0; /* integrity beside an AEAD, or a KE in IKE_AUTH */
  }
  return encr && esn;
}

/* Every selector of inner within some selector of outer. */
static int ts_within(const gostx_ike_ts_set *outer, const gostx_ike_ts_set *inner) {
  if (!inner->n) return 0;
  for (size_t i = 0; i < inner->n; i++) {
    int found = 0;
    for (size_t j = 0; j < outer->n && !found; j++)
      found = gostx__ike_ts_covers(&outer->ts[j], &inner->ts[i]);
    if (!found) return 0;
  }
  return 1;
}

static int read_ts(const gostx_ike_chain *c, uint8_t type, gostx_ike_ts_set *s) {
  const gostx_ike_payload *p = gostx__ike_find(c, type);
  return p ? gostx__ike_ts_read(p->body, p->len, s) : GOSTX_EFORMAT;
}

/* KEYMAT (2.17) split into the Child SA: the initiator-to-responder keys first. */
static int child_keys(gostx_ike_engine *e, uint32_t peer_spi) {
  uint8_t km[2 * 44];
  gostx_ike_child *ch = &e->child;
  const size_t kl = e->k.enc_len;
  int rc = gostx__ike_keymat(e->k.sk_d, NULL, 0, e->ni, e->ni_len, e->nr, e->nr_len, km, 2 * kl);
  if (rc != GOSTX_OK) return rc;
  const int init = e->cf->role == GOSTX_IKE_INITIATOR;
  memcpy(init ? ch->key_out : ch->key_in, km, kl);
  memcpy(init ? ch->key_in : ch->key_out, km + kl, kl);
  gostx_memzero(km, sizeof km);
  ch->key_len = kl;
  ch->encr = e->encr;
  ch->esn = 0;
  ch->spi_in = e->esp_spi;
  ch->spi_out = peer_spi;
  ch->valid = 1;
  return GOSTX_OK;
}

/* ---- responder ---- */

/* The Child SA the request asks for: its proposal number and SPI, or the
 * notify that refuses it (NO_PROPOSAL_CHOSEN, TS_UNACCEPTABLE). */
static uint16_t responder_child(const gostx_ike_engine *e, const gostx_ike_chain *c,
                                uint8_t *num, uint32_t *peer_spi, gostx_ike_ts_set *tsi,
                                gostx_ike_ts_set *tsr) {
  gostx_ike_sa sa;
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  if (!p || gostx__ike_sa_read(p->body, p->len, &sa) != GOSTX_OK)
    return GOSTX_IKE_N_INVALID_SYNTAX;
  size_t i = 0;
  while (i < sa.n && !esp_acceptable(e->encr, &sa.p[i])) i++;
  if (i == sa.n) return GOSTX_IKE_N_NO_PROPOSAL_CHOSEN;
  *num = sa.p[i].num;
  *peer_spi = spi_of(&sa.p[i]);
  if (read_ts(c, GOSTX_IKE_PT_TSI, tsi) != GOSTX_OK ||
      read_ts(c, GOSTX_IKE_PT_TSR, tsr) != GOSTX_OK)
    return GOSTX_IKE_N_INVALID_SYNTAX;
  /* ours, each side where set, must lie within what was asked (narrowed
   * to ours); a side of none is taken as asked */
  if ((e->cf->tsi.n && !ts_within(tsi, &e->cf->tsi)) ||
      (e->cf->tsr.n && !ts_within(tsr, &e->cf->tsr)))
    return GOSTX_IKE_N_TS_UNACCEPTABLE;
  if (e->cf->tsi.n) *tsi = e->cf->tsi;
  if (e->cf->tsr.n) *tsr = e->cf->tsr;
  return 0;
}

/* An encrypted response of the one notify in w (of type): the IKE SA is
 * not made (2.21.2). */
static int refuse_sealed(gostx_ike_engine *e, gostx_ike_writer *w, uint16_t type,
                         int64_t now_ms, uint8_t *out, size_t cap, size_t *out_len) {
  int rc = seal_tx(e, 1, e->msg_id, w);
  if (rc != GOSTX_OK) return rc;
  e->msg_id++;
  e->state = GOSTX_IKE_S_FAILED;
  e->error = type;
  return gostx__ike_send(e, now_ms, out, cap, out_len);
}

/* AUTHENTICATION_FAILED or INVALID_SYNTAX so. */
static int refuse_auth(gostx_ike_engine *e, uint16_t type, int64_t now_ms, uint8_t *out,
                       size_t cap, size_t *out_len) {
  uint8_t inner[64];
  gostx_ike_writer w;
  gostx__ike_w_inner(&w, inner, sizeof inner);
  gostx__ike_w_notify_type(&w, type, NULL, 0);
  return refuse_sealed(e, &w, type, now_ms, out, cap, out_len);
}

/* A gateway's conf for the peer's IDi (cf->pick): e->cf from now on.
 * GOSTX_EAUTH when none is the peer's. */
static int pick_conf(gostx_ike_engine *e, const gostx_ike_chain *c) {
  const gostx_ike_payload *id = gostx__ike_find(c, GOSTX_IKE_PT_IDI);
  uint8_t type;
  const uint8_t *d;
  size_t l;
  if (!e->cf->pick) return GOSTX_OK;
  e->why = "no peer is configured for the peer's ID";
  if (!id || gostx__ike_id_read(id->body, id->len, &type, &d, &l) != GOSTX_OK)
    return GOSTX_EAUTH;
  const gostx_ike_conf *cf = e->cf->pick(e->cf->ctx, type, d, l);
  if (!cf || cf->role != GOSTX_IKE_RESPONDER) return GOSTX_EAUTH;
  e->cf = cf;
  e->picked = 1;
  e->why = NULL;
  return GOSTX_OK;
}

/* The peer's CFG_REQUEST (RFC 7296 3.15) answered by cf->cp_assign into
 * reply, TSi narrowed to the address given. 0 when there is none to
 * answer (*reply then not written: cfg_type 0), else the refusal's notify. */
static uint16_t assign(gostx_ike_engine *e, const gostx_ike_chain *c, gostx_ike_cp *reply,
                       gostx_ike_ts_set *tsi) {
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_CP), *id;
  gostx_ike_cp req;
  uint8_t type;
  const uint8_t *d;
  size_t l;
  memset(reply, 0, sizeof *reply);
  if (!p || !e->cf->cp_assign) return 0;
  if (gostx__ike_cp_read(p->body, p->len, &req) != GOSTX_OK)
    return GOSTX_IKE_N_INVALID_SYNTAX;
  if (req.cfg_type != GOSTX_IKE_CFG_REQUEST) return 0;
  id = gostx__ike_find(c, GOSTX_IKE_PT_IDI); /* read by check_peer already */
  if (!id || gostx__ike_id_read(id->body, id->len, &type, &d, &l) != GOSTX_OK)
    return GOSTX_IKE_N_INVALID_SYNTAX;
  reply->cfg_type = GOSTX_IKE_CFG_REPLY;
  if (e->cf->cp_assign(e->cf->ctx, type, d, l, &req, reply) != GOSTX_OK ||
      gostx__ike_cp_valid(reply) != GOSTX_OK) {
    memset(reply, 0, sizeof *reply);
    e->why = "no inner address for the peer (its CFG_REQUEST)";
    return GOSTX_IKE_N_INTERNAL_ADDRESS_FAILURE;
  }
  for (size_t i = 0; i < reply->n; i++)
    if (reply->a[i].type == GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS && reply->a[i].len == 4) {
      gostx_ike_ts_set one;
      memset(&one, 0, sizeof one);
      one.n = 1;
      one.ts[0].type = GOSTX_IKE_TS_IPV4;
      one.ts[0].end_port = 65535;
      memcpy(one.ts[0].start, reply->a[i].v, 4);
      memcpy(one.ts[0].end, reply->a[i].v, 4);
      if (!ts_within(tsi, &one)) return GOSTX_IKE_N_TS_UNACCEPTABLE; /* not what it asked */
      *tsi = one; /* its packets come from that address only (2.9) */
      memcpy(e->inner_ip, reply->a[i].v, 4);
      e->inner_ip_len = 4;
      break;
    }
  return 0;
}

static int responder_auth(gostx_ike_engine *e, const gostx_ike_chain *c, int64_t now_ms,
                          uint8_t *out, size_t cap, size_t *out_len) {
  const int contact = initial_contact(c);
  if (gostx__ike_certreq_scan(c, &e->peer_cas) != GOSTX_OK || contact < 0)
    return refuse_auth(e, GOSTX_IKE_N_INVALID_SYNTAX, now_ms, out, cap, out_len);
  if (pick_conf(e, c) != GOSTX_OK) {
    const char *why = e->why;
    int rc = refuse_auth(e, GOSTX_IKE_N_AUTHENTICATION_FAILED, now_ms, out, cap, out_len);
    e->why = why;
    return rc;
  }
  if (check_peer(e, c, GOSTX_IKE_PT_IDI, now_ms) != GOSTX_OK)
    return refuse_auth(e, GOSTX_IKE_N_AUTHENTICATION_FAILED, now_ms, out, cap, out_len);
  const char *why = no_usable_hash(e);
  if (why) { /* we cannot prove ourselves to it */
    int rc = refuse_auth(e, GOSTX_IKE_N_AUTHENTICATION_FAILED, now_ms, out, cap, out_len);
    e->why = why;
    return rc;
  }
  gostx_ike_ts_set tsi, tsr;
  uint8_t num = 0, inner[GOSTX_IKE_MSG_MAX - 64];
  uint32_t peer_spi = 0;
  gostx_ike_cp reply;
  uint16_t refused = responder_child(e, c, &num, &peer_spi, &tsi, &tsr);
  if (!refused) refused = assign(e, c, &reply, &tsi);
  int rc = new_esp_spi(e);
  if (rc != GOSTX_OK) return rc;
  gostx_ike_writer w;
  gostx__ike_w_inner(&w, inner, sizeof inner);
  rc = w_identity(e, &w, GOSTX_IKE_PT_IDR);
  if (rc != GOSTX_OK) return rc;
  if (refused) { /* the IKE SA stands without a Child SA (2.21.2) */
    gostx__ike_w_notify_type(&w, refused, NULL, 0);
  } else {
    if (reply.cfg_type) gostx__ike_w_cp(&w, &reply); /* before SAr2 (1.2's order) */
    w_child(e, &w, num, &tsi, &tsr);
  }
  rc = seal_tx(e, 1, e->msg_id, &w);
  if (rc == GOSTX_OK && !refused) rc = child_keys(e, peer_spi);
  e->ts_i = tsi; /* what a rekey of the Child SA asks for again (2.8) */
  e->ts_r = tsr;
  if (rc != GOSTX_OK) return rc;
  e->msg_id++;
  e->state = GOSTX_IKE_S_ESTABLISHED;
  e->peer_initial_contact = (uint8_t)contact; /* authenticated now: the caller may act on it */
  gostx__ike_live(e); /* either side's requests from now on (xchg.c) */
  return gostx__ike_send(e, now_ms, out, cap, out_len);
}

/* ---- initiator ---- */

/* The response's Child SA: our proposal taken (one, our ENCR, no ESN) and
 * selectors within ours. */
static int initiator_child(gostx_ike_engine *e, const gostx_ike_chain *c) {
  gostx_ike_sa sa;
  gostx_ike_ts_set tsi, tsr;
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  if (!p || gostx__ike_sa_read(p->body, p->len, &sa) != GOSTX_OK || sa.n != 1 ||
      sa.p[0].num != 1 || sa.p[0].n != 2 || !esp_acceptable(e->encr, &sa.p[0]))
    return GOSTX_EFORMAT;
  if (read_ts(c, GOSTX_IKE_PT_TSI, &tsi) != GOSTX_OK ||
      read_ts(c, GOSTX_IKE_PT_TSR, &tsr) != GOSTX_OK || !ts_within(&e->cf->tsi, &tsi) ||
      !ts_within(&e->cf->tsr, &tsr))
    return GOSTX_EFORMAT;
  e->ts_i = tsi; /* what a rekey of the Child SA asks for again (2.8) */
  e->ts_r = tsr;
  return child_keys(e, spi_of(&sa.p[0]));
}

/* The CFG_REPLY's INTERNAL_IP4_ADDRESS into e->inner_ip (none: left 0;
 * a reply that does not read is as none: the Child SA's TSi says the rest). */
static void take_inner(gostx_ike_engine *e, const gostx_ike_chain *c) {
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_CP);
  gostx_ike_cp cp;
  if (!p || gostx__ike_cp_read(p->body, p->len, &cp) != GOSTX_OK ||
      cp.cfg_type != GOSTX_IKE_CFG_REPLY)
    return;
  for (size_t i = 0; i < cp.n; i++)
    if (cp.a[i].type == GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS && cp.a[i].len == 4) {
      memcpy(e->inner_ip, cp.a[i].v, 4);
      e->inner_ip_len = 4;
      return;
    }
}

static int initiator_auth(gostx_ike_engine *e, const gostx_ike_chain *c, int64_t now_ms) {
  const uint16_t err = gostx__ike_error_of(c);
  e->msg_id++;
  if (!gostx__ike_find(c, GOSTX_IKE_PT_AUTH) || check_peer(e, c, GOSTX_IKE_PT_IDR, now_ms)) {
    e->state = GOSTX_IKE_S_FAILED;
    e->error = err ? err : GOSTX_IKE_N_AUTHENTICATION_FAILED;
    return GOSTX_OK;
  }
  e->state = GOSTX_IKE_S_ESTABLISHED;
  gostx__ike_live(e); /* either side's requests from now on (xchg.c) */
  if (!err && e->cf->cp_request) take_inner(e, c);
  if (!err && initiator_child(e, c) != GOSTX_OK) e->error = GOSTX_IKE_N_INVALID_SYNTAX;
  if (err) e->error = err; /* the IKE SA stands, no Child SA (2.21.2) */
  return GOSTX_OK;
}

int gostx__ike_auth_input(gostx_ike_engine *e, const uint8_t *msg, size_t len, int64_t now_ms,
                          uint8_t *out, size_t cap, size_t *out_len) {
  gostx_ike_hdr h;
  gostx_ike_chain c;
  uint8_t first, plain[GOSTX_IKE_MSG_MAX];
  size_t plain_len;
  int rc = gostx__ike_open_in(e, msg, len, now_ms, &h, &first, plain, sizeof plain, &plain_len);
  if (rc == GOSTX_IKE_PARTIAL) return GOSTX_OK; /* a fragment held: nothing to say yet */
  if (rc != GOSTX_OK) return rc == GOSTX_EAUTH || rc == GOSTX_ESTATE ? rc : GOSTX_EFORMAT;
  rc = gostx__ike_chain_read(first, plain, plain_len, &c, NULL);
  if (rc != GOSTX_OK) { /* authenticated but malformed, or a critical payload unknown */
    gostx_memzero(plain, sizeof plain);
    if (e->cf->role == GOSTX_IKE_INITIATOR) return GOSTX_EFORMAT;
    uint8_t inner[64];
    gostx_ike_writer w;
    gostx__ike_w_inner(&w, inner, sizeof inner);
    const uint16_t type = gostx__ike_w_unreadable(&w, rc, &c);
    return refuse_sealed(e, &w, type, now_ms, out, cap, out_len);
  }
  rc = e->cf->role == GOSTX_IKE_RESPONDER ? responder_auth(e, &c, now_ms, out, cap, out_len)
                                          : initiator_auth(e, &c, now_ms);
  gostx_memzero(plain, sizeof plain);
  return rc;
}
