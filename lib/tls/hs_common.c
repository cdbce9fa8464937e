/* What both handshakes (handshake.c for TLS 1.3, handshake12.c for TLS
 * 1.2) use, below both: the groups and signature schemes, the alert of a
 * refusal, randoms, signatures in the wire's order, the peer's chain
 * through lib/x509, host names. */
#include "hs.h"

#define fail gostx__tls_hs_fail

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gost3410/ec.h"
#include "gost3410/key_internal.h"

/* ---------------- groups and schemes ---------------- */

static const gostx_gost3410_curve curve_of[7] = {
    GOSTX_GOST3410_256_A, GOSTX_GOST3410_256_B, GOSTX_GOST3410_256_C, GOSTX_GOST3410_256_D,
    GOSTX_GOST3410_512_A, GOSTX_GOST3410_512_B, GOSTX_GOST3410_512_C};

gostx_gost3410_curve gostx__tls_group_curve(unsigned group) {
  return group >= 0x22 && group <= 0x28 ? curve_of[group - 0x22] : (gostx_gost3410_curve)0;
}

gostx_gost3410_curve gostx__tls_scheme_curve(unsigned scheme) {
  return scheme >= 0x0709 && scheme <= 0x070F ? curve_of[scheme - 0x0709]
                                              : (gostx_gost3410_curve)0;
}

unsigned gostx__tls_curve_scheme(gostx_gost3410_curve curve) {
  for (unsigned i = 0; i < 7; i++)
    if (curve_of[i] == curve) return 0x0709 + i;
  return 0;
}

int gostx__tls_hs_fail(gostx_tls *c, int alert, const char *what) {
  int rc = GOSTX_EFORMAT;
  if (alert == GOSTX__ALERT_DECRYPT_ERROR || alert == GOSTX__ALERT_BAD_CERTIFICATE ||
      alert == GOSTX__ALERT_UNKNOWN_CA || alert == GOSTX__ALERT_CERTIFICATE_EXPIRED ||
      alert == GOSTX__ALERT_CERTIFICATE_REQUIRED || alert == GOSTX__ALERT_CERTIFICATE_UNKNOWN)
    rc = GOSTX_EAUTH;
  else if (alert == GOSTX__ALERT_HANDSHAKE_FAILURE || alert == GOSTX__ALERT_PROTOCOL_VERSION ||
           alert == GOSTX__ALERT_NO_APPLICATION_PROTOCOL ||
           alert == GOSTX__ALERT_UNSUPPORTED_CERTIFICATE)
    rc = GOSTX_EUNSUP;
  else if (alert == GOSTX__ALERT_UNEXPECTED_MESSAGE)
    rc = GOSTX_ESTATE;
  else if (alert == GOSTX__ALERT_INTERNAL_ERROR)
    rc = GOSTX_EINVAL;
  return gostx__tls_fail(c, alert, rc, what);
}

int gostx__tls_fill_random(gostx_tls *c, uint8_t *out, size_t n) {
  if (GOSTX__TLS_HOOKS(c->cfg)->random) {
    memcpy(out, GOSTX__TLS_HOOKS(c->cfg)->random, n);
    return GOSTX_OK;
  }
  if (gostx_random_bytes(out, n) != GOSTX_OK)
    return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, GOSTX_EIO, "no randomness");
  return GOSTX_OK;
}

/* Reverses each of the two coordinates: the API's big-endian points and the
 * wire's little-endian ones (RFC 9367 section 6.1.1.3). */
void gostx__tls_swap_point(uint8_t *out, const uint8_t *in, size_t cl) {
  for (size_t i = 0; i < cl; i++) {
    out[i] = in[cl - 1 - i];
    out[cl + i] = in[2 * cl - 1 - i];
  }
}

int gostx__tls_send_signature(gostx_tls *c, unsigned alg, const uint8_t *digest) {
  const gostx_tls_config *cfg = c->cfg;
  size_t cl = gostx_gost3410_size(cfg->key.curve);
  uint8_t sig[128], le[128];
  int rc = gostx__key_sign_k(&cfg->key, digest, cl, GOSTX__TLS_HOOKS(cfg)->sign_k, cl, sig, 2 * cl);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "signing failed");
  /* str_l(r) | str_l(s), each little-endian (RFC 9367 section 5.3, RFC
   * 9189 section 4.2.5). */
  gostx__tls_swap_point(le, sig, cl);
  wr w = msg_start(c, GOSTX__HS_CERTIFICATE_VERIFY);
  put(&w, alg, 2);
  put(&w, 2 * cl, 2);
  put_bytes(&w, le, 2 * cl);
  return msg_send(c, &w);
}

int gostx__tls_check_signature(gostx_tls *c, const uint8_t *digest, const uint8_t *sig,
                               size_t sig_len) {
  size_t cl = gostx_gost3410_size(c->peer_curve);
  uint8_t be[128];
  if (sig_len != 2 * cl) return fail(c, GOSTX__ALERT_DECODE_ERROR, "signature of the wrong length");
  gostx__tls_swap_point(be, sig, cl);
  if (gostx_gost3410_verify(c->peer_curve, c->peer_pub, 2 * cl, digest, cl, be, 2 * cl) != GOSTX_OK)
    return fail(c, GOSTX__ALERT_DECRYPT_ERROR, "CertificateVerify's signature does not verify");
  return GOSTX_OK;
}

/* The alert of RFC 8446 section 6.2 for a chain that failed a check. */
static int chain_alert(gostx_x509_status st) {
  switch (st) {
    case GOSTX_X509_EXPIRED:
    case GOSTX_X509_NOT_YET_VALID:
      return GOSTX__ALERT_CERTIFICATE_EXPIRED;
    case GOSTX_X509_UNKNOWN_CA:
      return GOSTX__ALERT_UNKNOWN_CA;
    case GOSTX_X509_UNSUPPORTED:
    case GOSTX_X509_KEY_USAGE:
    case GOSTX_X509_EXT_KEY_USAGE:
      return GOSTX__ALERT_UNSUPPORTED_CERTIFICATE;
    default:
      return GOSTX__ALERT_BAD_CERTIFICATE;
  }
}

/* The peer's chain parsed, its leaf key taken, and the chain verified to
 * the store when the config asks for it: the client always (unless
 * VERIFY_NONE), for the servername when one was set; the server when it
 * asked for a certificate. */
int gostx__tls_peer_chain(gostx_tls *c) {
  const gostx_tls_config *cfg = c->cfg;
  const gostx__tls_test_hooks *t = GOSTX__TLS_HOOKS(cfg);
  if (t->pin_curve) { /* tests: the key pinned, the chain not read */
    c->peer_curve = t->pin_curve;
    memcpy(c->peer_pub, t->pin_pub, 2 * gostx_gost3410_size(t->pin_curve));
    c->have_peer_key = 1;
    return GOSTX_OK;
  }
  char what[128];
  for (size_t i = 0; i < c->npeer; i++) {
    gostx_x509_status st = GOSTX_X509_MALFORMED;
    const uint8_t *der = c->peer_cert[i].der;
    size_t len = c->peer_cert[i].der_len;
    if (gostx_x509_parse(der, len, &c->peer_cert[i], &st) != GOSTX_OK) {
      snprintf(what, sizeof what, "the peer's certificate %zu: %s", i, gostx_x509_status_name(st));
      return fail(c, chain_alert(st), what);
    }
  }
  const gostx_x509_cert *leaf = &c->peer_cert[0];
  if (leaf->key_alg == GOSTX_X509_KEY_2001 || !gostx__tls_curve_scheme(leaf->curve))
    return fail(c, GOSTX__ALERT_UNSUPPORTED_CERTIFICATE,
                "the peer's key is not a GOST R 34.10-2012 key of a TLS 1.3 scheme");
  c->peer_curve = leaf->curve;
  memcpy(c->peer_pub, leaf->pub, leaf->pub_len);
  c->have_peer_key = 1;
  if (cfg->verify == GOSTX_TLS_VERIFY_NONE) return GOSTX_OK;
  if (!cfg->store) return fail(c, GOSTX__ALERT_UNKNOWN_CA, "no trust store to verify the chain");
  int client = c->role == GOSTX_TLS_CLIENT;
  size_t depth = 0;
  gostx_x509_status st = gostx_x509_verify(
      cfg->store, c->peer_cert, c->npeer, (int64_t)time(NULL),
      client ? (c->v12 ? GOSTX_X509_PURPOSE_SERVER_TLS12 : GOSTX_X509_PURPOSE_SERVER)
             : GOSTX_X509_PURPOSE_CLIENT,
      client && c->servername[0] ? c->servername : NULL, &depth);
  if (st != GOSTX_X509_OK) {
    snprintf(what, sizeof what, "the peer's chain: %s (certificate %zu of the path)",
             gostx_x509_status_name(st), depth);
    return fail(c, chain_alert(st), what);
  }
  return GOSTX_OK;
}


/* A host name as SNI carries it (RFC 6066 3: no trailing dot, no IP):
 * letters, digits, hyphens and underscores in dot-separated labels of 1 to
 * 63 bytes, none starting or ending with a hyphen. */
int gostx__tls_is_host_name(const char *name, size_t len) {
  size_t label = 0;
  if (len > 253) return 0;
  for (size_t i = 0;; i++) {
    char ch = i < len ? name[i] : 0;
    if (ch == '.' || i == len) {
      if (label == 0 || label > 63 || name[i - 1] == '-') return 0;
      if (i == len) return 1;
      label = 0;
    } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               ch == '_' || (ch == '-' && label > 0)) {
      label++;
    } else {
      return 0;
    }
  }
}

int gostx__tls_is_ip_literal(const char *name) {
  uint8_t a[16];
  return inet_pton(AF_INET, name, a) == 1 || inet_pton(AF_INET6, name, a) == 1;
}

int gostx__tls_has16(const uint16_t *list, size_t n, unsigned v) {
  for (size_t i = 0; i < n; i++)
    if (list[i] == v) return 1;
  return 0;
}

int gostx__tls_rd_has16(rd l, unsigned v) {
  while (l.n)
    if (get(&l, 2) == v) return 1;
  return 0;
}

static int add_peer_cert(gostx_tls *c, const uint8_t *der, size_t len, size_t *at) {
  /* the room counted in gostx__tls_read_chain: GOSTX__TLS_MAX_CHAIN, or
   * all the list holds */
  if (c->npeer == GOSTX__TLS_MAX_CHAIN || (char *)(c->peer_cert + c->npeer + 1) > (char *)c->peer_der)
    return fail(c, GOSTX__ALERT_BAD_CERTIFICATE, "certificate chain too long");
  memcpy(c->peer_der + *at, der, len); /* peer_der holds the whole list */
  c->peer_cert[c->npeer].der = c->peer_der + *at;
  c->peer_cert[c->npeer].der_len = len;
  c->npeer++;
  *at += len;
  return GOSTX_OK;
}

int gostx__tls_read_chain(gostx_tls *c, rd list, int entry_exts, int required_alert) {
  size_t at = 0;
  c->npeer = 0;
  /* the certificates kept for gostx_tls_peer_chain, as long as they are:
   * room for the parsed ones (as many as the list can hold, up to the
   * most taken), then the DER; none when the list is empty */
  gostx__tls_drop_peer_chain(c);
  size_t most = 0;
  for (rd count = list; count.n && most < GOSTX__TLS_MAX_CHAIN && !count.bad; most++) {
    (void)vec(&count, 3, 1);
    if (entry_exts) (void)vec(&count, 2, 0);
  }
  if (list.n) {
    const size_t certs = most * sizeof *c->peer_cert;
    c->peer_block = calloc(1, certs + list.n); /* the certificates zeroed, as parse expects */
    if (!c->peer_block)
      return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, GOSTX_ENOMEM, "out of memory");
    c->peer_block_len = certs + list.n;
    c->peer_cert = (gostx_x509_cert *)(void *)c->peer_block;
    c->peer_der = c->peer_block + certs;
  }
  while (list.n) {
    rd cert = vec(&list, 3, 1);
    rd ext = entry_exts ? vec(&list, 2, 0) : (rd){NULL, 0, 0};
    if (list.bad) return fail(c, GOSTX__ALERT_DECODE_ERROR, "malformed certificate list");
    if (ext.n) return fail(c, GOSTX__ALERT_UNSUPPORTED_EXTENSION, "CertificateEntry extensions");
    int rc = add_peer_cert(c, cert.p, cert.n, &at);
    if (rc != GOSTX_OK) return rc;
  }
  if (c->npeer == 0) {
    if (c->role == GOSTX_TLS_CLIENT)
      return fail(c, GOSTX__ALERT_DECODE_ERROR, "the server sent no certificate");
    if (c->cfg->verify == GOSTX_TLS_VERIFY_REQUIRE)
      return fail(c, required_alert, "the client sent no certificate");
    return GOSTX_OK;
  }
  return gostx__tls_peer_chain(c);
}

int gostx__tls_send_chain(gostx_tls *c, int with_chain, int tls13) {
  const gostx_tls_config *cfg = c->cfg;
  wr w = msg_start(c, GOSTX__HS_CERTIFICATE);
  if (tls13) put(&w, 0, 1); /* certificate_request_context: empty (ours and our CertificateRequest's) */
  size_t list = open_vec(&w, 3);
  size_t at = 0;
  for (size_t i = 0; with_chain && i < cfg->nchain; i++) {
    put(&w, (unsigned)cfg->chain_len[i], 3);
    put_bytes(&w, cfg->chain + at, cfg->chain_len[i]);
    if (tls13) put(&w, 0, 2); /* the entry's extensions: none */
    at += cfg->chain_len[i];
  }
  close_vec(&w, list, 3);
  return msg_send(c, &w);
}

int gostx__tls_took(gostx_tls *c, int rc, const uint8_t *msg, size_t len, gostx__tls_state next) {
  if (rc != GOSTX_OK) return rc;
  gostx__tls_th_add(c, msg, len);
  c->state = next;
  return GOSTX_OK;
}

int gostx__tls_speaks13(const gostx_tls_config *cfg) {
  for (size_t i = 0; cfg->vmax >= GOSTX_TLS_VERSION_1_3 && i < cfg->nsuites; i++)
    if (gostx__tls_suite_by_id(cfg->suites[i])) return 1;
  return 0;
}

int gostx__tls_alpn_select(gostx_tls *c, const hello *h) {
  const gostx_tls_config *cfg = c->cfg;
  if (!cfg->alpn_len || !h->have_alpn) return GOSTX_OK;
  for (size_t i = 0; i < cfg->alpn_len && !c->alpn[0]; i += 1 + cfg->alpn[i]) {
    rd l = h->alpn;
    while (l.n) {
      rd name = vec(&l, 1, 1);
      if (name.n == cfg->alpn[i] && !memcmp(name.p, cfg->alpn + i + 1, name.n)) {
        memcpy(c->alpn, name.p, name.n);
        c->alpn[name.n] = 0;
        break;
      }
    }
  }
  if (!c->alpn[0]) return fail(c, GOSTX__ALERT_NO_APPLICATION_PROTOCOL, "no ALPN protocol in common");
  return GOSTX_OK;
}

void gostx__tls_put_sni_alpn(gostx_tls *c, wr *w, int sni_ack) {
  if (sni_ack) {
    put(w, EXT_SERVER_NAME, 2);
    put(w, 0, 2);
  }
  if (!c->alpn[0]) return;
  size_t n = strlen(c->alpn);
  put(w, EXT_ALPN, 2);
  put(w, (unsigned)n + 3, 2);
  put(w, (unsigned)n + 1, 2);
  put(w, (unsigned)n, 1);
  put_bytes(w, (const uint8_t *)c->alpn, n);
}

int gostx__tls_alpn_answer(gostx_tls *c, rd data) {
  rd list = vec(&data, 2, 1);
  rd name = vec(&list, 1, 1);
  if (data.bad || data.n || list.bad || list.n)
    return fail(c, GOSTX__ALERT_DECODE_ERROR, "ALPN answer not one name");
  int offered = 0;
  for (size_t i = 0; i < c->cfg->alpn_len; i += 1 + c->cfg->alpn[i])
    if (c->cfg->alpn[i] == name.n && !memcmp(c->cfg->alpn + i + 1, name.p, name.n)) offered = 1;
  if (!offered) return fail(c, GOSTX__ALERT_ILLEGAL_PARAMETER, "ALPN protocol not offered");
  memcpy(c->alpn, name.p, name.n);
  c->alpn[name.n] = 0;
  return GOSTX_OK;
}
