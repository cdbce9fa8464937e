/* lib/tls's handshake internals shared by the TLS 1.3 (handshake.c) and
 * TLS 1.2 (handshake12.c) state machines: the bounds-checked readers and
 * writers of the wire's vectors, the extension numbers, the parsed
 * ClientHello, and the helpers both versions use (the alert of a refusal,
 * randoms, the peer's chain). Internal. */
#ifndef GOSTX_TLS_HS_H
#define GOSTX_TLS_HS_H

#include "conn.h"

enum {
  EXT_SERVER_NAME = 0,
  EXT_SUPPORTED_GROUPS = 10,
  EXT_SIGNATURE_ALGORITHMS = 13,
  EXT_ALPN = 16,
  EXT_PRE_SHARED_KEY = 41,
  EXT_EARLY_DATA = 42,
  EXT_SUPPORTED_VERSIONS = 43,
  EXT_COOKIE = 44,
  EXT_PSK_MODES = 45,
  EXT_KEY_SHARE = 51,
  EXT_EXTENDED_MASTER_SECRET = 23, /* RFC 7627 */
  EXT_RENEGOTIATION_INFO = 0xFF01  /* RFC 5746 */
};

/* ---------------- reading and writing ---------------- */

typedef struct rd {
  const uint8_t *p;
  size_t n;
  int bad;
} rd;

static inline unsigned get(rd *r, size_t k) {
  if (r->bad || r->n < k) {
    r->bad = 1;
    r->n = 0;
    return 0;
  }
  unsigned v = 0;
  for (size_t i = 0; i < k; i++) v = v << 8 | r->p[i];
  r->p += k;
  r->n -= k;
  return v;
}

static inline const uint8_t *take(rd *r, size_t k) {
  if (r->bad || r->n < k) {
    r->bad = 1;
    r->n = 0;
    return NULL;
  }
  const uint8_t *p = r->p;
  r->p += k;
  r->n -= k;
  return p;
}

/* A vector with a k-byte length (at least min bytes). */
static inline rd vec(rd *r, size_t k, size_t min) {
  rd v = {NULL, 0, 0};
  size_t n = get(r, k);
  v.p = take(r, n);
  v.n = n;
  v.bad = r->bad || n < min;
  if (v.bad) r->bad = 1;
  return v;
}

typedef struct wr {
  uint8_t *p;
  size_t n, cap;
  int over;
} wr;

static inline void put(wr *w, unsigned v, size_t k) {
  if (w->n + k > w->cap) {
    w->over = 1;
    return;
  }
  for (size_t i = 0; i < k; i++) w->p[w->n + i] = (uint8_t)(v >> (8 * (k - 1 - i)));
  w->n += k;
}

static inline void put_bytes(wr *w, const uint8_t *b, size_t k) {
  if (w->n + k > w->cap) {
    w->over = 1;
    return;
  }
  memcpy(w->p + w->n, b, k);
  w->n += k;
}

/* Opens a vector of a k-byte length: returns where its length goes. */
static inline size_t open_vec(wr *w, size_t k) {
  size_t at = w->n;
  put(w, 0, k);
  return at;
}

static inline void close_vec(wr *w, size_t at, size_t k) {
  if (w->over) return;
  size_t len = w->n - at - k;
  for (size_t i = 0; i < k; i++) w->p[at + i] = (uint8_t)(len >> (8 * (k - 1 - i)));
}

static inline wr msg_start(gostx_tls *c, uint8_t type) {
  c->hsb->msg[c->pend] = type;
  wr w = {c->hsb->msg + c->pend + 4, 0, GOSTX__TLS_HS_MAX, 0};
  return w;
}

static inline int msg_send(gostx_tls *c, wr *w) {
  if (w->over) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, GOSTX_ELEN, "message too long");
  return gostx__tls_send_msg(c, w->n);
}

/* Ends the handshake with alert (RFC 8446 section 6's number) and the
 * gostx error that goes with it (each handshake file calls it fail). */
int gostx__tls_hs_fail(gostx_tls *c, int alert, const char *what);
/* A message handled (rc, the handler's result): when GOSTX_OK, into the
 * transcript (every message the state machines take goes in here), then
 * the next state. Returns rc. */
int gostx__tls_took(gostx_tls *c, int rc, const uint8_t *msg, size_t len, gostx__tls_state next);
/* n random bytes (the test hook's when set). */
int gostx__tls_fill_random(gostx_tls *c, uint8_t *out, size_t n);
/* Reverses each half of in (two coordinates, or r and s), cl bytes each:
 * the API's big-endian and the wire's little-endian. */
void gostx__tls_swap_point(uint8_t *out, const uint8_t *in, size_t cl);
int gostx__tls_has16(const uint16_t *list, size_t n, unsigned v);
int gostx__tls_rd_has16(rd l, unsigned v);
/* c->peer_cert[0..npeer) parsed, the leaf's key taken, the chain verified
 * as the config says (the alert of RFC 8446 6.2 for the check that failed). */
int gostx__tls_peer_chain(gostx_tls *c);

typedef struct hello {
  const uint8_t *random;
  rd sid, suites, groups, sigs, shares, alpn, versions;
  rd psk_ids, psk_binders; /* pre_shared_key's lists */
  size_t psk_trunc;        /* the ClientHello's bytes before the binders (header included) */
  char sni[256];
  int have_groups, have_sigs, have_shares, have_versions, have_alpn, have_cookie;
  int have_psk, have_modes, psk_dhe_ke;
  int early_data; /* early_data offered (never accepted: RFC 8446 4.2.10) */
  int have_ems, have_reneg, scsv; /* TLS 1.2: RFC 7627, RFC 5746 */
} hello;
/* A ServerHello's fields (either version's: the extensions may be absent
 * in TLS 1.2). */
typedef struct server_hello {
  unsigned legacy, suite, comp;
  const uint8_t *random;
  rd sid, exts;
} server_hello;
/* msg (header included) parsed: decode_error for a malformed one. */
int gostx__tls_parse_server_hello(gostx_tls *c, const uint8_t *msg, size_t len, server_hello *sh);

/* The ClientHello body parsed strictly (decode_error and the like). */
int gostx__tls_parse_client_hello(gostx_tls *c, const uint8_t *body, size_t len, hello *h);

/* The peer's certificate list (its body: ASN.1Cert<1..2^24-1> each, with
 * TLS 1.3's extensions<0..2^16-1> when entry_exts) into c->peer_cert, then
 * gostx__tls_peer_chain. An empty list: decode_error from a server,
 * required_alert when the server requires one, else accepted. */
int gostx__tls_read_chain(gostx_tls *c, rd list, int entry_exts, int required_alert);
/* Our Certificate message: the config's chain (or none), in TLS 1.3's
 * shape (a context and each entry's extensions) or TLS 1.2's. */
int gostx__tls_send_chain(gostx_tls *c, int with_chain, int tls13);
/* A CertificateVerify of algorithm alg (its code point) over digest (the
 * key's size), signed by the config's key. */
int gostx__tls_send_signature(gostx_tls *c, unsigned alg, const uint8_t *digest);
/* The peer's signature sig (wire order) over digest, by c->peer_pub:
 * decode_error for the wrong length, decrypt_error when it does not verify. */
int gostx__tls_check_signature(gostx_tls *c, const uint8_t *digest, const uint8_t *sig,
                               size_t sig_len);

/* 1 when cfg takes TLS 1.3: the range has it and the list a 1.3 suite. */
int gostx__tls_speaks13(const gostx_tls_config *cfg);

/* RFC 9189 section 5's SignatureAndHashAlgorithm values. */
#define GOSTX__TLS12_SIG_256 0x0840
#define GOSTX__TLS12_SIG_512 0x0841

/* ALPN (RFC 7301), both versions: the server's choice (its preference
 * among the client's names; no_application_protocol when none), written
 * as the answer extension (nothing when none), after the empty server_name
 * that acknowledges the client's name when sni_ack (RFC 6066 3); the
 * client's check of an answer's data (one name it offered). */
int gostx__tls_alpn_select(gostx_tls *c, const hello *h);
void gostx__tls_put_sni_alpn(gostx_tls *c, wr *w, int sni_ack);
int gostx__tls_alpn_answer(gostx_tls *c, rd data);

/* handshake12.c: TLS 1.2 (RFC 5246 with RFC 9189's suites). */
/* The server's answer to a ClientHello (msg, whole) that gets TLS 1.2. */
int gostx__tls12_on_client_hello(gostx_tls *c, const uint8_t *msg, size_t len, const hello *h);
/* The client's handling of a TLS 1.2 ServerHello (msg, parsed in sh). */
int gostx__tls12_on_server_hello(gostx_tls *c, const uint8_t *msg, size_t len,
                                 const server_hello *sh);
/* One whole handshake message once TLS 1.2 is taken. */
int gostx__tls12_on_message(gostx_tls *c, const uint8_t *msg, size_t len);

#endif
