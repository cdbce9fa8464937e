/* The TLS 1.3 handshake (RFC 8446 section 4) with the RFC 9367 profile:
 * the state machine of both sides. Each state accepts only its messages
 * (each message's handling is the client's or the server's file, or
 * hs13.c's for what both take); every refusal sends the alert RFC 8446
 * names for it. A TLS 1.2 connection's messages go to handshake12.c. */
#include "hs13.h"

#define fail gostx__tls_hs_fail

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
      return gostx__tls13_on_client_hello(c, msg, len);
    case GOSTX__ST_WAIT_SH:
      if (type != GOSTX__HS_SERVER_HELLO) break;
      return gostx__tls13_on_server_hello(c, msg, len);
    case GOSTX__ST_WAIT_EE:
      if (type != GOSTX__HS_ENCRYPTED_EXTENSIONS) break;
      rc = gostx__tls13_on_encrypted_extensions(c, body, blen);
      return gostx__tls_took(c, rc, msg, len,
                             c->psk ? GOSTX__ST_WAIT_FINISHED : GOSTX__ST_WAIT_CERT_CR);
    case GOSTX__ST_WAIT_CERT_CR:
      if (type == GOSTX__HS_CERTIFICATE_REQUEST) {
        rc = gostx__tls13_on_certificate_request(c, body, blen);
        return gostx__tls_took(c, rc, msg, len, GOSTX__ST_WAIT_CERT);
      }
      /* fall through */
    case GOSTX__ST_WAIT_CERT:
      if (type != GOSTX__HS_CERTIFICATE) break;
      rc = gostx__tls13_on_certificate(c, body, blen);
      return gostx__tls_took(c, rc, msg, len, c->npeer ? GOSTX__ST_WAIT_CV : GOSTX__ST_WAIT_FINISHED);
    case GOSTX__ST_WAIT_CV:
      if (type != GOSTX__HS_CERTIFICATE_VERIFY) break;
      rc = gostx__tls13_on_cv(c, body, blen);
      if (rc == GOSTX_OK && !client) c->client_auth = 1; /* what its tickets will say */
      return gostx__tls_took(c, rc, msg, len, GOSTX__ST_WAIT_FINISHED);
    case GOSTX__ST_WAIT_FINISHED:
      if (type != GOSTX__HS_FINISHED) break;
      rc = gostx__tls13_check_finished(c, body, blen);
      rc = gostx__tls_took(c, rc, msg, len, GOSTX__ST_WAIT_FINISHED);
      if (rc != GOSTX_OK) return rc;
      return client ? gostx__tls13_client_finish(c) : gostx__tls13_server_finish(c);
    case GOSTX__ST_CONNECTED:
      if (type == GOSTX__HS_KEY_UPDATE) return gostx__tls13_on_key_update(c, body, blen);
      if (type == GOSTX__HS_NEW_SESSION_TICKET && client) return gostx__tls_on_ticket(c, body, blen);
      if (type == GOSTX__HS_CLIENT_HELLO)
        return fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, "renegotiation refused (a ClientHello after the handshake)");
      break;
    default:
      break;
  }
  return fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, "unexpected handshake message");
}

