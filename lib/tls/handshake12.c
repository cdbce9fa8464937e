/* The TLS 1.2 handshake (RFC 5246 section 7) with the RFC 9189 profile, on
 * the connection and record layer of TLS 1.3 (conn.c, io.c): the messages
 * built and parsed, and the state machine of both sides. handshake.c reads
 * the hellos and hands over here when TLS 1.2 is the version in common.
 *
 * Full handshakes only (no resumption: our server sends an empty
 * session_id), extended_master_secret required (RFC 7627), renegotiation
 * refused (RFC 5746: the initial renegotiation_info is empty; a
 * HelloRequest or a second ClientHello ends the connection with
 * no_renegotiation). Key exchange by key transport (RFC 9189 section
 * 4.2.4): the client exports a random PMS under the server's certificate
 * key (KEG + KExp15 for CTR_OMAC, VKO + KExp28147 for CNT_IMIT); the
 * server signs nothing. A client certificate proves its key by a
 * CertificateVerify over the handshake messages (section 4.2.5). The PMS,
 * the master secret, the key block and the ephemeral scalar are secret
 * and wiped once used. */
#include "hs.h"

#define fail gostx__tls_hs_fail

#include <stdio.h>

/* RFC 8446 section 4.1.3: the last 8 bytes of a TLS 1.2 ServerHello.random
 * from a server that also speaks TLS 1.3. */
static const uint8_t downgrade12[8] = {'D', 'O', 'W', 'N', 'G', 'R', 'D', 1};

/* RFC 9189 section 7: the ClientCertificateType of a key size. */
enum { CERT_GOST_SIGN256 = 67, CERT_GOST_SIGN512 = 68 };

static unsigned sig_alg(gostx_gost3410_curve curve) {
  return gostx_gost3410_size(curve) == 64 ? GOSTX__TLS12_SIG_512 : GOSTX__TLS12_SIG_256;
}

/* The transcript's hash for a signature by a key of cl bytes: Streebog of
 * the same size (the hash is intrinsic to the algorithm). */
static void transcript(const gostx_tls *c, size_t cl, uint8_t *out) {
  gostx_streebog_ctx t = cl == 64 ? c->hs->th512 : c->hs->th;
  gostx_streebog_final(&t, out);
}

/* ---------------- the key schedule ---------------- */

static void keylog12(gostx_tls *c) {
  if (!c->cfg->keylog) return;
  char line[16 + 2 * 32 + 1 + 2 * GOSTX__TLS12_MS_LEN + 1];
  int at = snprintf(line, sizeof line, "CLIENT_RANDOM ");
  for (int i = 0; i < 32; i++)
    at += snprintf(line + at, sizeof line - (size_t)at, "%02x", c->client_random[i]);
  line[at++] = ' ';
  for (int i = 0; i < GOSTX__TLS12_MS_LEN; i++)
    at += snprintf(line + at, sizeof line - (size_t)at, "%02x", c->hs->ms12[i]);
  c->cfg->keylog(c->cfg->keylog_user, line);
  gostx_memzero(line, sizeof line);
}

/* The extended master secret (the transcript ends with ClientKeyExchange)
 * and the key block, from the PMS. */
static int master_secret(gostx_tls *c, const uint8_t pms[GOSTX__TLS12_PMS_LEN]) {
  uint8_t session_hash[GOSTX__TLS_HASH_LEN];
  gostx__tls_th_hash(c, session_hash);
  int rc = GOSTX__TLS_HOOKS(c->cfg)->no_ems
               ? gostx__tls12_master_secret(pms, GOSTX__TLS12_PMS_LEN, c->client_random,
                                            c->server_random, c->hs->ms12)
               : gostx__tls12_extended_master_secret(pms, GOSTX__TLS12_PMS_LEN, session_hash,
                                                     c->hs->ms12);
  if (rc == GOSTX_OK)
    rc = gostx__tls12_key_block(c->suite12, c->hs->ms12, c->client_random, c->server_random,
                                &c->hs->keys12);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "key schedule");
  keylog12(c);
  return GOSTX_OK;
}

/* This side's write keys (write) or the peer's read keys: the client's
 * half of the key block for what the client sends. */
static int set_keys12(gostx_tls *c, int write) {
  int client_keys = (c->role == GOSTX_TLS_CLIENT) == write;
  const gostx__tls12_keys *k = &c->hs->keys12;
  gostx__tls_rec *r = write ? &c->wrec : &c->rrec;
  gostx__tls_rec_clear(r);
  int rc = gostx__tls12_record_init(&r->s.r12, c->suite12->id,
                                    client_keys ? k->client_mac : k->server_mac,
                                    client_keys ? k->client_key : k->server_key,
                                    client_keys ? k->client_iv : k->server_iv);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "record keys");
  r->cls = &gostx__tls12_rec_class;
  if (write) c->wenc = 1;
  else c->renc = 1;
  return GOSTX_OK;
}

/* ChangeCipherSpec then Finished, under the new write keys. */
static int send_ccs_finished(gostx_tls *c) {
  uint8_t hash[GOSTX__TLS_HASH_LEN], verify[GOSTX__TLS12_MAX_VERIFY_LEN];
  int rc = gostx__tls_send_ccs(c);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "output full");
  rc = set_keys12(c, 1);
  if (rc != GOSTX_OK) return rc;
  gostx__tls_th_hash(c, hash);
  rc = gostx__tls12_finished(c->suite12, c->hs->ms12, c->role == GOSTX_TLS_SERVER, hash, verify);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "Finished");
  wr w = msg_start(c, GOSTX__HS_FINISHED);
  put_bytes(&w, verify, c->suite12->verify_len);
  return msg_send(c, &w);
}

/* The handshake is over: the master secret and the key block go (the
 * records hold their keys). */
static void connected12(gostx_tls *c) {
  gostx__tls_hs_end(c);
  c->state = GOSTX__ST_CONNECTED;
}

/* ---------------- certificates ---------------- */

static int on_certificate12(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  rd list = vec(&r, 3, 0);
  if (r.bad || r.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed Certificate");
  /* TLS 1.2 has no certificate_required: handshake_failure (RFC 5246 7.4.6). */
  return gostx__tls_read_chain(c, list, 0, GOSTX__ALERT_HANDSHAKE_FAILURE);
}

static int send_certificate_request12(gostx_tls *c) {
  wr w = msg_start(c, GOSTX__HS_CERTIFICATE_REQUEST);
  put(&w, 2, 1);
  put(&w, CERT_GOST_SIGN256, 1);
  put(&w, CERT_GOST_SIGN512, 1);
  put(&w, 4, 2);
  put(&w, GOSTX__TLS12_SIG_256, 2);
  put(&w, GOSTX__TLS12_SIG_512, 2);
  put(&w, 0, 2); /* certificate_authorities: any */
  return msg_send(c, &w);
}

/* Client: whether our key fits the request (its certificate type and its
 * algorithm both listed) is kept for the flight. */
static int on_certificate_request12(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  rd types = vec(&r, 1, 1);
  rd algs = vec(&r, 2, 2);
  rd cas = vec(&r, 2, 0);
  while (cas.n && !cas.bad) (void)vec(&cas, 2, 1);
  if (r.bad || r.n || cas.bad || (algs.n & 1))
    return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed CertificateRequest");
  gostx_gost3410_curve curve = c->cfg->key.curve;
  int type_ok = 0;
  unsigned want_type = curve && gostx_gost3410_size(curve) == 64 ? CERT_GOST_SIGN512
                                                                 : CERT_GOST_SIGN256;
  while (types.n)
    if (get(&types, 1) == want_type) type_ok = 1;
  c->hs->npeer_schemes = 0;
  if (type_ok && curve && gostx__tls_rd_has16(algs, sig_alg(curve)))
    c->hs->peer_schemes[c->hs->npeer_schemes++] = (uint16_t)sig_alg(curve);
  c->cert_req = 1;
  return GOSTX_OK;
}

/* ---------------- ClientKeyExchange ---------------- */

/* The client's: a PMS exported under the server's key by an ephemeral key
 * on its curve (RFC 9189 section 4.2.4). */
static int send_client_key_exchange(gostx_tls *c) {
  const gostx_tls_config *cfg = c->cfg;
  gostx_gost3410_curve curve = c->peer_curve;
  size_t cl = gostx_gost3410_size(curve);
  uint8_t pms[GOSTX__TLS12_PMS_LEN], h[GOSTX__TLS_HASH_LEN], seed[64];
  uint8_t kexp[GOSTX__TLS12_KX_MAX];
  size_t kexp_len = 0, body_len = 0;
  int rc;
  if (GOSTX__TLS_HOOKS(cfg)->eph_priv) {
    memcpy(c->hs->eph_priv, GOSTX__TLS_HOOKS(cfg)->eph_priv, cl);
    rc = gostx_gost3410_public_key(curve, c->hs->eph_priv, cl, c->hs->eph_pub, 2 * cl);
  } else {
    rc = gostx_gost3410_keygen(curve, c->hs->eph_priv, cl, c->hs->eph_pub, 2 * cl);
  }
  if (rc == GOSTX_OK) {
    if (GOSTX__TLS_HOOKS(cfg)->pms) memcpy(pms, GOSTX__TLS_HOOKS(cfg)->pms, sizeof pms);
    else rc = gostx_random_bytes(pms, sizeof pms);
  }
  memcpy(seed, c->client_random, 32);
  memcpy(seed + 32, c->server_random, 32);
  gostx_streebog(GOSTX__TLS_HASH_LEN, seed, sizeof seed, h);
  /* The ephemeral key named as the server's certificate names its key (a
   * pinned key in tests: as lib/gost3410 writes it). */
  const uint8_t *like = c->npeer && c->peer_cert[0].spki ? c->peer_cert[0].spki : NULL;
  size_t like_len = like ? c->peer_cert[0].spki_len : 0;
  wr w = msg_start(c, GOSTX__HS_CLIENT_KEY_EXCHANGE);
  uint8_t *out = w.p;
  if (rc == GOSTX_OK && c->suite12->tree) {
    rc = gostx__tls12_kexp15(c->suite12, curve, c->hs->eph_priv, cl, c->peer_pub, 2 * cl, h, pms, kexp,
                             &kexp_len);
    if (rc == GOSTX_OK)
      rc = gostx__tls12_gkt_write(kexp, kexp_len, curve, c->hs->eph_pub, 2 * cl, like, like_len, out,
                                  w.cap, &body_len);
  } else if (rc == GOSTX_OK) {
    rc = gostx__tls12_kexp28147(curve, c->hs->eph_priv, cl, c->peer_pub, 2 * cl, h, pms, kexp);
    if (rc == GOSTX_OK)
      rc = gostx__tls12_blob_write(kexp, curve, c->hs->eph_pub, 2 * cl, like, like_len, out, w.cap,
                                   &body_len);
  }
  gostx_memzero(c->hs->eph_priv, sizeof c->hs->eph_priv);
  gostx_memzero(kexp, sizeof kexp);
  if (rc != GOSTX_OK) {
    gostx_memzero(pms, sizeof pms);
    /* The server's key was checked at its certificate: a failure here is
     * a point off its curve (an unchecked pin) or ours. */
    return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "key export failed");
  }
  w.n = body_len;
  rc = msg_send(c, &w);
  if (rc == GOSTX_OK) rc = master_secret(c, pms);
  gostx_memzero(pms, sizeof pms);
  return rc;
}

/* The server's: the PMS imported with our key. A key on another curve than
 * ours, or not a point of the curve's order-q group, is illegal_parameter;
 * a transport MAC that fails, decrypt_error. */
static int on_client_key_exchange(gostx_tls *c, const uint8_t *msg, size_t len) {
  const gostx_tls_config *cfg = c->cfg;
  const uint8_t *body = msg + 4;
  size_t blen = len - 4;
  gostx_gost3410_curve curve = 0;
  uint8_t q[128], pms[GOSTX__TLS12_PMS_LEN], h[GOSTX__TLS_HASH_LEN], seed[64];
  uint8_t kexp[GOSTX__TLS12_KEXP28147_LEN];
  const uint8_t *key_exp = NULL;
  size_t q_len = 0, key_exp_len = 0;
  int rc = c->suite12->tree
               ? gostx__tls12_gkt_read(body, blen, &key_exp, &key_exp_len, &curve, q, sizeof q,
                                       &q_len)
               : gostx__tls12_blob_read(body, blen, kexp, &curve, q, sizeof q, &q_len);
  if (rc == GOSTX_EUNSUP)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "ClientKeyExchange: a key of an unknown curve");
  if (rc == GOSTX_EINVAL)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER,
                "ClientKeyExchange: the ephemeral key is not a point of its curve");
  if (rc != GOSTX_OK) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ClientKeyExchange");
  if (curve != cfg->key.curve)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER,
                "ClientKeyExchange: the ephemeral key is not on the server key's curve");
  memcpy(seed, c->client_random, 32);
  memcpy(seed + 32, c->server_random, 32);
  gostx_streebog(GOSTX__TLS_HASH_LEN, seed, sizeof seed, h);
  rc = c->suite12->tree ? gostx__tls12_kimp15(c->suite12, &cfg->key, q, q_len, h, key_exp,
                                              key_exp_len, pms)
                        : gostx__tls12_kimp28147(&cfg->key, q, q_len, h, kexp, pms);
  if (rc == GOSTX_EAUTH)
    return fail(c, GOSTX__ALERT_DECRYPT_ERROR, "ClientKeyExchange: the key transport does not verify");
  if (rc == GOSTX_ELEN) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ClientKeyExchange");
  if (rc != GOSTX_OK && rc != GOSTX_EINVAL) /* our key's own failure (an external key's token) */
    return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "the server key's agreement failed");
  if (rc != GOSTX_OK)
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER,
                "ClientKeyExchange: the ephemeral key is not a point of the curve's order-q group");
  gostx__tls_th_add(c, msg, len);
  rc = master_secret(c, pms);
  gostx_memzero(pms, sizeof pms);
  return rc;
}

/* ---------------- the client ---------------- */

int gostx__tls12_on_server_hello(gostx_tls *c, const uint8_t *msg, size_t len,
                                 const server_hello *sh) {
  const gostx_tls_config *cfg = c->cfg;
  unsigned legacy = sh->legacy, suite = sh->suite, comp = sh->comp;
  const uint8_t *random = sh->random;
  rd sid = sh->sid, exts = sh->exts;
  if (legacy != GOSTX_TLS_VERSION_1_2)
    return fail(c, GOSTX__ALERT_PROTOCOL_VERSION, "ServerHello version not TLS 1.2");
  if (!gostx__tls12_suite_by_id(suite) || !gostx__tls_has16(cfg->suites, cfg->nsuites, suite))
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "cipher suite not offered");
  if (comp != 0) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "compression method not null");
  /* Our session id is a TLS 1.3 compatibility one that no server holds. */
  if (sid.n && sid.n == c->hs->session_id_len && !memcmp(sid.p, c->hs->session_id, sid.n))
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "the server resumes a session never held");
  uint32_t seen = 0;
  while (exts.n) {
    unsigned type = get(&exts, 2);
    rd data = vec(&exts, 2, 0);
    if (exts.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed ServerHello extensions");
    uint32_t bit = type == EXT_RENEGOTIATION_INFO         ? 1u
                   : type == EXT_EXTENDED_MASTER_SECRET && !GOSTX__TLS_HOOKS(cfg)->no_ems ? 2u
                   : type == EXT_SERVER_NAME && c->servername[0] &&
                           !gostx__tls_is_ip_literal(c->servername)
                       ? 4u
                   : type == EXT_ALPN && cfg->alpn_len ? 8u
                                                       : 0u;
    if (!bit) return fail(c, GOSTX__ALERT_UNSUPPORTED_EXTENSION, "ServerHello extension not offered");
    if (seen & bit) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "ServerHello extension twice");
    seen |= bit;
    if (type == EXT_RENEGOTIATION_INFO) {
      rd info = vec(&data, 1, 0);
      if (data.bad || data.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed renegotiation_info");
      if (info.n) return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "renegotiation_info not empty");
    } else if (type == EXT_ALPN) {
      int rc = gostx__tls_alpn_answer(c, data);
      if (rc != GOSTX_OK) return rc;
    } else if (data.n) {
      return fail(c, GOSTX__ALERT_DECODE_ERROR, "ServerHello extension not empty");
    }
  }
  if (!(seen & 2u) && !GOSTX__TLS_HOOKS(cfg)->no_ems)
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "the server does not use extended_master_secret");
  gostx__tls12_take(c);
  c->suite12 = gostx__tls12_suite_by_id(suite);
  memcpy(c->server_random, random, 32);
  gostx__tls_th_add(c, msg, len);
  c->state = GOSTX__ST12_WAIT_CERT;
  return GOSTX_OK;
}

/* After ServerHelloDone: [Certificate] ClientKeyExchange [CertificateVerify]
 * ChangeCipherSpec Finished. */
static int client_flight12(gostx_tls *c) {
  const gostx_tls_config *cfg = c->cfg;
  int with_cert = c->cert_req && cfg->nchain && c->hs->npeer_schemes;
  int rc = GOSTX_OK;
  if (c->cert_req) rc = gostx__tls_send_chain(c, with_cert, 0);
  if (rc == GOSTX_OK) rc = send_client_key_exchange(c);
  if (rc == GOSTX_OK && with_cert) {
    size_t cl = gostx_gost3410_size(cfg->key.curve);
    uint8_t digest[64];
    transcript(c, cl, digest);
    rc = gostx__tls_send_signature(c, sig_alg(cfg->key.curve), digest);
  }
  if (rc == GOSTX_OK) rc = send_ccs_finished(c);
  if (rc == GOSTX_OK) c->state = GOSTX__ST12_WAIT_CCS;
  return rc;
}

/* ---------------- the server ---------------- */

static int send_server_hello12(gostx_tls *c, int reneg, int sni_ack) {
  wr w = msg_start(c, GOSTX__HS_SERVER_HELLO);
  put(&w, GOSTX_TLS_VERSION_1_2, 2);
  put_bytes(&w, c->server_random, 32);
  /* session_id: empty, the session is not kept (the test hook: RFC 9189's) */
  const gostx__tls_test_hooks *t = GOSTX__TLS_HOOKS(c->cfg);
  put(&w, t->sid12 ? (unsigned)t->sid12_len : 0, 1);
  if (t->sid12) put_bytes(&w, t->sid12, t->sid12_len);
  put(&w, c->suite12->id, 2);
  put(&w, 0, 1);
  size_t exts = open_vec(&w, 2);
  if (reneg) {
    put(&w, EXT_RENEGOTIATION_INFO, 2);
    put(&w, 1, 2);
    put(&w, 0, 1);
  }
  if (!t->no_ems) {
    put(&w, EXT_EXTENDED_MASTER_SECRET, 2);
    put(&w, 0, 2);
  }
  gostx__tls_put_sni_alpn(c, &w, sni_ack);
  close_vec(&w, exts, 2);
  return msg_send(c, &w);
}

int gostx__tls12_on_client_hello(gostx_tls *c, const uint8_t *msg, size_t len, const hello *h) {
  const gostx_tls_config *cfg = c->cfg;
  for (size_t i = 0; i < cfg->nsuites && !c->suite12; i++)
    if (gostx__tls_rd_has16(h->suites, cfg->suites[i]))
      c->suite12 = gostx__tls12_suite_by_id(cfg->suites[i]);
  if (!c->suite12) return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "no TLS 1.2 cipher suite in common");
  if (!cfg->nchain || !cfg->key.curve)
    return fail(c, GOSTX__ALERT_INTERNAL_ERROR, "no certificate and key configured");
  if (!h->have_ems && !GOSTX__TLS_HOOKS(cfg)->no_ems)
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE, "the client does not offer extended_master_secret");
  /* RFC 9189 4.2.1: the algorithm of our key must be among the client's. */
  if (!h->have_sigs || !gostx__tls_rd_has16(h->sigs, sig_alg(cfg->key.curve)))
    return fail(c, GOSTX__ALERT_HANDSHAKE_FAILURE,
                "the client does not accept our key's signature algorithm");
  int rc = gostx__tls_alpn_select(c, h);
  if (rc != GOSTX_OK) return rc;
  gostx__tls12_take(c);
  memcpy(c->client_random, h->random, 32);
  memcpy(c->servername, h->sni, sizeof h->sni);
  int reneg = h->have_reneg || gostx__tls_rd_has16(h->suites, 0x00FF); /* RFC 5746's SCSV */
  rc = gostx__tls_fill_random(c, c->server_random, 32);
  if (rc != GOSTX_OK) return rc;
  /* RFC 8446 4.1.3: we could have spoken TLS 1.3 and did not. */
  if (gostx__tls_speaks13(cfg)) memcpy(c->server_random + 24, downgrade12, 8);
  c->cert_req = cfg->verify != GOSTX_TLS_VERIFY_NONE;
  gostx__tls_th_add(c, msg, len);
  rc = send_server_hello12(c, reneg, h->sni[0] != 0);
  if (rc == GOSTX_OK) rc = gostx__tls_send_chain(c, 1, 0);
  if (rc == GOSTX_OK && c->cert_req) rc = send_certificate_request12(c);
  if (rc == GOSTX_OK) {
    wr w = msg_start(c, GOSTX__HS_SERVER_HELLO_DONE);
    rc = msg_send(c, &w);
  }
  if (rc == GOSTX_OK) c->state = c->cert_req ? GOSTX__ST12_WAIT_CERT : GOSTX__ST12_WAIT_CKE;
  return rc;
}

static int on_cv12(gostx_tls *c, const uint8_t *body, size_t len) {
  rd r = {body, len, 0};
  unsigned alg = get(&r, 2);
  rd sig = vec(&r, 2, 1);
  if (r.bad || r.n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed CertificateVerify");
  if (alg != sig_alg(c->peer_curve))
    return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER,
                "CertificateVerify's algorithm is not the one of the certificate's key");
  uint8_t digest[64];
  transcript(c, gostx_gost3410_size(c->peer_curve), digest);
  return gostx__tls_check_signature(c, digest, sig.p, sig.n);
}

/* ---------------- ChangeCipherSpec, Finished, the state machine ---------------- */

/* The peer's ChangeCipherSpec (its record checked): its keys from now on. */
static int on_ccs12(gostx_tls *c) {
  int rc = set_keys12(c, 0);
  if (rc == GOSTX_OK) c->state = GOSTX__ST12_WAIT_FINISHED;
  return rc;
}

/* A TLS 1.2 record (its header at rec, len bytes after it): opened by
 * tls12_record once the peer's ChangeCipherSpec switched the read keys
 * (MAC-then-encrypt: a refused record leaves nothing); a CCS only where
 * the handshake waits for it, in the clear, between whole messages. The
 * content (*out) is for conn.c to deliver (TLS 1.2's reader, c->rl's once
 * TLS 1.2 is taken). */
static int record12(gostx_tls *c, uint8_t *rec, size_t len, uint8_t *dst, size_t dst_cap,
                    size_t *dst_got, gostx__tls_content *out) {
  (void)dst, (void)dst_cap, (void)dst_got; /* opened in place (MAC-then-encrypt) */
  uint8_t type = rec[0];
  uint8_t *body = rec + GOSTX__TLS_HDR_LEN;
  if (c->renc) {
    size_t got;
    int rc = c->rrec.cls->open(&c->rrec.s, rec, GOSTX__TLS_HDR_LEN + len, body, len, &got, &type);
    c->in_plain = 1; /* opened in place */
    if (rc == GOSTX_EAUTH)
      return gostx__tls_fail(c, GOSTX__ALERT_BAD_RECORD_MAC, rc, "record authentication failed");
    if (rc == GOSTX_ELEN)
      return gostx__tls_fail(c, GOSTX__ALERT_RECORD_OVERFLOW, rc, "record too long");
    if (rc == GOSTX_EFORMAT) /* shorter than its MAC: RFC 5246 7.2.2 says bad_record_mac */
      return gostx__tls_fail(c, GOSTX__ALERT_BAD_RECORD_MAC, rc, "protected record too short");
    if (rc != GOSTX_OK)
      return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, rc, "record refused");
    len = got;
  }
  if (type == GOSTX__CT_CCS) {
    if (c->renc || len != 1 || body[0] != 1 || c->hs_have || c->state != GOSTX__ST12_WAIT_CCS)
      return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                             "unexpected change_cipher_spec");
    return on_ccs12(c);
  }
  *out = (gostx__tls_content){type, body, len};
  return GOSTX_OK;
}

/* Both header rules (a fixed version; every type sealed alike) */
const gostx__tls_reader gostx__tls12_reader = {1, 1, record12};

void gostx__tls12_take(gostx_tls *c) {
  c->v12 = 1;
  c->rl = &gostx__tls12_reader;
}

static int on_finished12(gostx_tls *c, const uint8_t *msg, size_t len) {
  uint8_t hash[GOSTX__TLS_HASH_LEN], want[GOSTX__TLS12_MAX_VERIFY_LEN];
  size_t n = c->suite12->verify_len;
  if (len - 4 != n) return fail(c, GOSTX__ALERT_DECODE_ERROR, "Finished of the wrong length");
  gostx__tls_th_hash(c, hash);
  int rc = gostx__tls12_finished(c->suite12, c->hs->ms12, c->role == GOSTX_TLS_CLIENT, hash, want);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "Finished");
  if (gostx__verdict(gostx_memeq_ct(want, msg + 4, n)) != GOSTX_OK) /* public once decided */
    return fail(c, GOSTX__ALERT_DECRYPT_ERROR, "the peer's Finished does not verify");
  gostx__tls_th_add(c, msg, len);
  if (c->role == GOSTX_TLS_SERVER) {
    rc = send_ccs_finished(c);
    if (rc != GOSTX_OK) return rc;
  }
  connected12(c);
  return GOSTX_OK;
}

int gostx__tls12_on_message(gostx_tls *c, const uint8_t *msg, size_t len) {
  unsigned type = msg[0];
  const uint8_t *body = msg + 4;
  size_t blen = len - 4;
  int client = c->role == GOSTX_TLS_CLIENT;
  int rc;
  switch (c->state) {
    case GOSTX__ST12_WAIT_CERT:
      if (type != GOSTX__HS_CERTIFICATE) break;
      return gostx__tls_took(c, on_certificate12(c, body, blen), msg, len,
                  client ? GOSTX__ST12_WAIT_CR_SHD : GOSTX__ST12_WAIT_CKE);
    case GOSTX__ST12_WAIT_CR_SHD:
      if (type == GOSTX__HS_CERTIFICATE_REQUEST)
        return gostx__tls_took(c, on_certificate_request12(c, body, blen), msg, len, GOSTX__ST12_WAIT_SHD);
      /* fall through */
    case GOSTX__ST12_WAIT_SHD:
      if (type != GOSTX__HS_SERVER_HELLO_DONE) break;
      if (blen) return fail(c, GOSTX__ALERT_DECODE_ERROR, "ServerHelloDone not empty");
      gostx__tls_th_add(c, msg, len);
      return client_flight12(c);
    case GOSTX__ST12_WAIT_CKE:
      if (type != GOSTX__HS_CLIENT_KEY_EXCHANGE) break;
      rc = on_client_key_exchange(c, msg, len);
      if (rc == GOSTX_OK) c->state = c->npeer ? GOSTX__ST12_WAIT_CV : GOSTX__ST12_WAIT_CCS;
      return rc;
    case GOSTX__ST12_WAIT_CV:
      if (type != GOSTX__HS_CERTIFICATE_VERIFY) break;
      return gostx__tls_took(c, on_cv12(c, body, blen), msg, len, GOSTX__ST12_WAIT_CCS);
    case GOSTX__ST12_WAIT_FINISHED:
      if (type != GOSTX__HS_FINISHED) break;
      return on_finished12(c, msg, len);
    case GOSTX__ST_CONNECTED:
      /* RFC 5746: no renegotiation, asked for by either side. */
      if ((client && type == GOSTX__HS_HELLO_REQUEST) || (!client && type == GOSTX__HS_CLIENT_HELLO))
        return fail(c, GOSTX__ALERT_NO_RENEGOTIATION, "renegotiation refused");
      break;
    default:
      break;
  }
  return fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, "unexpected handshake message");
}
