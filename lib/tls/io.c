/* lib/tls's transport and record output, under the handshake (handshake.c)
 * and the connection API (conn.c): the caller's I/O, records queued in
 * the connection's output buffer (plaintext before the keys, sealed
 * after), handshake messages into the transcript and out as records,
 * record keys installed, and the end of a connection with its alert. */
#include "conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static ssize_t io_read(gostx_tls *c, uint8_t *buf, size_t len) {
  return c->rd ? c->rd(c->io_user, buf, len) : read(c->fd, buf, len);
}

int gostx__tls_transport_in(gostx_tls *c, uint8_t *buf, size_t cap, size_t *got) {
  ssize_t n = io_read(c, buf, cap);
  if (n > 0) {
    *got = (size_t)n;
    return GOSTX_OK;
  }
  if (n < 0 && gostx__tls_not_now()) {
    if (!c->in_have) gostx__tls_release(c); /* idle: the buffers go back */
    return GOSTX_TLS_WANT_READ;
  }
  if (n < 0) return gostx__tls_fail(c, -1, GOSTX_EIO, "transport read failed");
  return gostx__tls_fail(c, -1, GOSTX_EIO,
                         c->state == GOSTX__ST_CONNECTED ? "connection closed without close_notify"
                                                         : "connection closed in the handshake");
}

static ssize_t io_write(gostx_tls *c, const uint8_t *buf, size_t len) {
  return c->wr ? c->wr(c->io_user, buf, len) : write(c->fd, buf, len);
}

int gostx__tls_not_now(void) { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

/* ---- the buffers: each while it is needed ---- */

static int need(uint8_t **buf, size_t len) {
  if (!*buf) *buf = malloc(len);
  return *buf ? GOSTX_OK : GOSTX_ENOMEM;
}

/* A buffer freed; wipe bytes of it first (those that held plaintext or
 * secrets: 0 for none). */
static void drop(uint8_t **buf, size_t wipe) {
  if (!*buf) return;
  gostx_memzero(*buf, wipe);
  free(*buf);
  *buf = NULL;
}

/* Records in: wiped where one was opened in place (its plaintext there);
 * those opened straight into the caller's buffer left only ciphertext,
 * and a relay's bulk does not pay for a wipe at each idle moment. */
static void drop_in(gostx_tls *c) {
  drop(&c->in, c->in_plain ? GOSTX__TLS_IN_BUF : 0);
  c->in_plain = 0;
}

/* Records out hold what was sent as it was sent: ciphertext (sealed from
 * the caller's buffer), or plaintext records before the keys. */
static void drop_out(gostx_tls *c) { drop(&c->out, 0); }

int gostx__tls_need_in(gostx_tls *c) {
  if (need(&c->in, GOSTX__TLS_IN_BUF) == GOSTX_OK) return GOSTX_OK;
  return gostx__tls_fail(c, -1, GOSTX_ENOMEM, "out of memory");
}

int gostx__tls_need_hsb(gostx_tls *c) {
  if (need((uint8_t **)&c->hsb, sizeof *c->hsb) == GOSTX_OK) return GOSTX_OK;
  return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, GOSTX_ENOMEM, "out of memory");
}

void gostx__tls_release_hsb(gostx_tls *c) {
  int ended = c->state == GOSTX__ST_CONNECTED || c->state == GOSTX__ST_FAILED;
  if (ended && !c->hs_have && !c->pend) drop((uint8_t **)&c->hsb, sizeof *c->hsb);
}

void gostx__tls_release(gostx_tls *c) {
  if (!c->in_have && !c->app_len) {
    drop_in(c);
    c->in_off = 0;
  }
  if (c->out_off == c->out_len) {
    drop_out(c);
    c->out_off = c->out_len = 0;
  }
  gostx__tls_release_hsb(c);
}

void gostx__tls_free_buffers(gostx_tls *c) {
  drop_in(c);
  drop_out(c);
  drop((uint8_t **)&c->hsb, sizeof *c->hsb);
  gostx__tls_drop_peer_chain(c);
}

void gostx__tls_drop_peer_chain(gostx_tls *c) {
  drop(&c->peer_block, c->peer_block_len);
  c->peer_block_len = 0;
  c->peer_cert = NULL;
  c->peer_der = NULL;
}

/* Writes the queued records; 0 when all are out. */
int gostx__tls_flush(gostx_tls *c) {
  while (c->out_off < c->out_len) {
    if (!c->wr && c->fd < 0) return GOSTX_EINVAL;
    ssize_t n = io_write(c, c->out + c->out_off, c->out_len - c->out_off);
    if (n < 0 && gostx__tls_not_now()) return GOSTX_TLS_WANT_WRITE;
    if (n <= 0) return GOSTX_EIO;
    c->out_off += (size_t)n;
  }
  c->out_off = c->out_len = 0;
  /* all out and the read side idle (its buffer went back): so does this */
  if (!c->in) drop_out(c);
  return GOSTX_OK;
}

/* One record of type into out: protected when the write keys are set. */
int gostx__tls_queue_record(gostx_tls *c, uint8_t type, const uint8_t *data, size_t len,
                        unsigned legacy_version) {
  if (need(&c->out, GOSTX__TLS_OUT_CAP) != GOSTX_OK) return GOSTX_ENOMEM;
  if (!c->wenc) {
    if (c->out_len + GOSTX__TLS_HDR_LEN + len > GOSTX__TLS_OUT_CAP) return GOSTX_ELEN;
    uint8_t *h = c->out + c->out_len;
    h[0] = type;
    h[1] = (uint8_t)(legacy_version >> 8);
    h[2] = (uint8_t)legacy_version;
    h[3] = (uint8_t)(len >> 8);
    h[4] = (uint8_t)len;
    memcpy(h + GOSTX__TLS_HDR_LEN, data, len);
    c->out_len += GOSTX__TLS_HDR_LEN + len;
    return GOSTX_OK;
  }
  size_t got;
  int rc = c->wrec.cls->seal(&c->wrec.s, type, data, len, c->out + c->out_len,
                             GOSTX__TLS_OUT_CAP - c->out_len, &got);
  if (rc == GOSTX_OK) c->out_len += got;
  return rc;
}

void gostx__tls_th_add(gostx_tls *c, const uint8_t *msg, size_t len) {
  if (!c->hs) return;
  gostx_streebog_update(&c->hs->th, msg, len);
  /* TLS 1.2's CertificateVerify under a 512-bit key signs Streebog-512 of
   * the messages (the version is not known at the ClientHello). */
  gostx_streebog_update(&c->hs->th512, msg, len);
}

void gostx__tls_th_hash(const gostx_tls *c, uint8_t out[32]) {
  gostx_streebog_ctx t = c->hs->th;
  gostx_streebog_final(&t, out);
}

/* The pending handshake messages (c->hsb->msg[0..pend)) out as records of at
 * most 2^14 bytes (the test hook's frag, when set, splits them smaller). */
int gostx__tls_hs_flush(gostx_tls *c) {
  size_t max = GOSTX__TLS_HOOKS(c->cfg)->frag ? GOSTX__TLS_HOOKS(c->cfg)->frag : GOSTX__TLS_MAX_PLAINTEXT;
  for (size_t at = 0; at < c->pend;) {
    size_t n = c->pend - at > max ? max : c->pend - at;
    int rc = gostx__tls_queue_record(c, GOSTX__CT_HANDSHAKE, c->hsb->msg + at, n, c->pend_version);
    if (rc != GOSTX_OK) {
      c->pend = 0;
      return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "output full");
    }
    at += n;
  }
  c->pend = 0;
  return GOSTX_OK;
}

int gostx__tls_send_msg(gostx_tls *c, size_t body_len) {
  uint8_t *m = c->hsb->msg + c->pend;
  size_t len = 4 + body_len;
  m[1] = (uint8_t)(body_len >> 16);
  m[2] = (uint8_t)(body_len >> 8);
  m[3] = (uint8_t)body_len;
  if (GOSTX__TLS_HOOKS(c->cfg)->mutate) /* the handshake fuzzer: the message changed before it is sent */
    GOSTX__TLS_HOOKS(c->cfg)->mutate(GOSTX__TLS_HOOKS(c->cfg)->mutate_user, m, &len, GOSTX__TLS_MSG_CAP - c->pend);
  gostx__tls_th_add(c, m, len);
  /* The initial ClientHello's record says 0x0301 (RFC 8446 section 5.1);
   * a TLS 1.2-only client's 0x0303, as RFC 9189's examples write it. */
  c->pend_version = m[0] == GOSTX__HS_CLIENT_HELLO && !c->hrr && c->hs->offered13 ? 0x0301 : 0x0303;
  c->pend += len;
  /* One message a record (as RFC 9367's examples send them), or, with the
   * test hook, as many as fit: the peer must take both. */
  if (!GOSTX__TLS_HOOKS(c->cfg)->coalesce || c->pend >= GOSTX__TLS_MAX_PLAINTEXT) return gostx__tls_hs_flush(c);
  return GOSTX_OK;
}

int gostx__tls_send_ccs(gostx_tls *c) {
  static const uint8_t one = 1;
  if (c->ccs_sent) return GOSTX_OK;
  c->ccs_sent = 1;
  int rc0 = gostx__tls_hs_flush(c);
  if (rc0 != GOSTX_OK) return rc0;
  int saved = c->wenc;
  c->wenc = 0; /* CCS goes in the clear even after the keys */
  int rc = gostx__tls_queue_record(c, GOSTX__CT_CCS, &one, 1, 0x0303);
  c->wenc = saved;
  return rc;
}

int gostx__tls_set_keys(gostx_tls *c, int write, const uint8_t secret[32]) {
  gostx__tls_rec *r = write ? &c->wrec : &c->rrec;
  if (write && c->pend) { /* the messages of the old key go under it */
    int rc = gostx__tls_hs_flush(c);
    if (rc != GOSTX_OK) return rc;
  }
  gostx__tls_rec_clear(r);
  int rc = gostx__tls_record_init(&r->s.r13, c->suite->id, secret);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "record keys");
  r->cls = &gostx__tls13_rec_class;
  if (write) {
    c->wenc = 1;
  } else {
    c->renc = 1;
    c->rkey_changed = 1;
  }
  return GOSTX_OK;
}

void gostx__tls_keylog(gostx_tls *c, const char *label, const uint8_t secret[32]) {
  if (!c->cfg->keylog) return;
  char line[200];
  int at = snprintf(line, sizeof line, "%s ", label);
  for (int i = 0; i < 32; i++) at += snprintf(line + at, sizeof line - (size_t)at, "%02x", c->client_random[i]);
  line[at++] = ' ';
  for (int i = 0; i < 32; i++) at += snprintf(line + at, sizeof line - (size_t)at, "%02x", secret[i]);
  c->cfg->keylog(c->cfg->keylog_user, line);
  gostx_memzero(line, sizeof line);
}

int gostx__tls_hs_begin(gostx_tls *c) {
  c->hs = calloc(1, sizeof *c->hs);
  if (!c->hs) return GOSTX_ENOMEM;
  gostx_streebog_init(&c->hs->th, GOSTX__TLS_HASH_LEN);
  gostx_streebog_init(&c->hs->th512, 64);
  return GOSTX_OK;
}

void gostx__tls_hs_wipe(gostx_tls *c) {
  if (!c->hs) return;
  gostx__tls_hs *h = c->hs;
  gostx_memzero(h->eph_priv, sizeof h->eph_priv);
  gostx_memzero(h->hs_secret, sizeof h->hs_secret);
  gostx_memzero(h->master, sizeof h->master);
  gostx_memzero(h->c_hs, sizeof h->c_hs);
  gostx_memzero(h->s_hs, sizeof h->s_hs);
  gostx_memzero(h->psk_key, sizeof h->psk_key);
  gostx_memzero(h->ms12, sizeof h->ms12);
  gostx_memzero(&h->keys12, sizeof h->keys12);
}

void gostx__tls_hs_end(gostx_tls *c) {
  if (!c->hs) return;
  gostx_memzero(c->hs, sizeof *c->hs); /* the transcript's states too */
  free(c->hs);
  c->hs = NULL;
}

int gostx__tls_fail(gostx_tls *c, int alert, int rc, const char *what) {
  if (c->state == GOSTX__ST_FAILED) return c->rc;
  snprintf(c->err, sizeof c->err, "%s", what);
  c->state = GOSTX__ST_FAILED;
  c->pend = 0;
  c->rc = rc < 0 ? rc : GOSTX_EINVAL;
  c->app_len = 0;
  if (alert >= 0) {
    c->alert = alert;
    c->alert_sent = 1;
    /* Best effort: what is queued goes out, then the alert. */
    uint8_t a[2] = {2, (uint8_t)alert};
    int spent = c->wenc && c->wrec.cls->spent(&c->wrec.s);
    if (!spent && gostx__tls_queue_record(c, GOSTX__CT_ALERT, a, 2, 0x0303) == GOSTX_OK)
      (void)gostx__tls_flush(c);
  }
  gostx__tls_hs_wipe(c);
  gostx_memzero(c->c_ap, sizeof c->c_ap);
  gostx_memzero(c->s_ap, sizeof c->s_ap);
  gostx__tls_rec_clear(&c->rrec);
  gostx__tls_rec_clear(&c->wrec);
  c->renc = c->wenc = 0;
  return c->rc;
}

