/* The connection API of include/gostx/tls.h (its config in config.c): the transport
 * (an fd or the caller's callbacks, blocking or not), the record layer over
 * record.c (plaintext before the keys, protected after; the sizes and
 * content types RFC 8446 section 5 allows), application data, KeyUpdate,
 * alerts and close_notify. The handshake's messages are handshake.c's.
 *
 * The connection's state is one allocation (gostx_tls_new); its buffers
 * (records in, records out, the handshake's) are allocated when first
 * needed and given back when they hold nothing and the transport is idle
 * (io.c): records are opened in place, nothing is allocated per record.
 * Secrets are wiped at gostx_tls_free and when a key is replaced. */
#include "conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---------------- connection ---------------- */

gostx_tls *gostx_tls_new(const gostx_tls_config *cfg) {
  if (!cfg) return NULL;
  /* a client's sessions after the connection, in the same allocation: a
   * server's connection (of which serve holds thousands) does without */
  const int client = cfg->role == GOSTX_TLS_CLIENT;
  gostx_tls *c = calloc(1, sizeof *c + (client ? sizeof *c->cl : 0));
  if (!c) return NULL;
  if (client) c->cl = (struct gostx__tls_client_part *)(c + 1);
  c->cfg = cfg;
  c->role = cfg->role;
  c->fd = -1;
  c->alert = -1;
  c->rl = &gostx__tls13_reader;
  if (gostx__tls_hs_begin(c) != GOSTX_OK) {
    free(c);
    return NULL;
  }
  return c;
}

void gostx_tls_free(gostx_tls *c) {
  if (!c) return;
  gostx__tls_rec_clear(&c->rrec);
  gostx__tls_rec_clear(&c->wrec);
  gostx__tls_free_buffers(c);
  gostx__tls_hs_end(c);
  if (c->cl) gostx_memzero(c->cl, sizeof *c->cl);
  gostx_memzero(c, sizeof *c);
  free(c);
}

int gostx_tls_set_servername(gostx_tls *c, const char *name) {
  if (!c || !name) return GOSTX_EINVAL;
  size_t n = strlen(name);
  if (n == 0 || n >= sizeof c->servername) return GOSTX_ELEN;
  if (!gostx__tls_is_ip_literal(name) && !gostx__tls_is_host_name(name, n)) return GOSTX_EINVAL;
  if (c->state != GOSTX__ST_START) return GOSTX_ESTATE;
  memcpy(c->servername, name, n + 1);
  return GOSTX_OK;
}

void gostx_tls_set_io(gostx_tls *c, gostx_tls_read_fn rd, gostx_tls_write_fn wr, void *user) {
  if (!c) return;
  c->rd = rd;
  c->wr = wr;
  c->io_user = user;
  c->fd = -1;
}

void gostx_tls_set_fd(gostx_tls *c, int fd) {
  if (!c) return;
  c->rd = NULL;
  c->wr = NULL;
  c->fd = fd;
}

/* A KeyUpdate (update_requested or not) under the current key, then the
 * next write key. */
static int send_key_update(gostx_tls *c, int request) {
  uint8_t *secret = c->role == GOSTX_TLS_CLIENT ? c->c_ap : c->s_ap;
  const uint8_t msg[5] = {GOSTX__HS_KEY_UPDATE, 0, 0, 1, (uint8_t)(request ? 1 : 0)};
  int rc = gostx__tls_queue_record(c, GOSTX__CT_HANDSHAKE, msg, sizeof msg, 0x0303);
  if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "KeyUpdate");
  rc = gostx__tls_update_secret(secret, secret);
  if (rc == GOSTX_OK) rc = gostx__tls_set_keys(c, 1, secret);
  c->ku_due = 0;
  return rc;
}

/* The sequence number after which this direction's key must change. */
static uint64_t key_limit(const gostx_tls *c, const gostx__tls_rec *r) {
  uint64_t lim = r->cls->key_limit(&r->s);
  if (GOSTX__TLS_HOOKS(c->cfg)->snmax && GOSTX__TLS_HOOKS(c->cfg)->snmax < lim) lim = GOSTX__TLS_HOOKS(c->cfg)->snmax;
  return lim;
}

/* Our write key has reached its limit: a KeyUpdate before the next record
 * (where the version has them: TLS 1.2's seal refuses past SNMAX). */
static int rekey_due(const gostx_tls *c) {
  return c->wrec.cls->key_update && c->wrec.cls->seq(&c->wrec.s) >= key_limit(c, &c->wrec);
}

/* Before a record of application data: the KeyUpdate the peer asked for,
 * or the one SNMAX makes due (sent as the last record of this key). */
static int before_app_record(gostx_tls *c) {
  return c->ku_due || rekey_due(c) ? send_key_update(c, 0) : GOSTX_OK;
}

/* ---------------- reading ---------------- */

/* Reads until the record at c->in + c->in_off is whole, asking the
 * transport for as much as the buffer holds: the records after it wait
 * there (gostx_tls_pending says so), one read for many small records. */
static int read_record(gostx_tls *c) {
  if (!c->rd && c->fd < 0) return GOSTX_EINVAL;
  size_t got;
  int rc;
  if (!c->in && !c->in_seen) {
    /* nothing came yet: the buffer only once bytes do (a connection that
     * stays silent, or closes, costs none) */
    uint8_t first[GOSTX__TLS_HDR_LEN];
    rc = gostx__tls_transport_in(c, first, sizeof first, &got);
    if (rc != GOSTX_OK) return rc;
    if (gostx__tls_need_in(c) != GOSTX_OK) return c->rc;
    memcpy(c->in, first, got);
    c->in_have = got;
    c->in_seen = 1;
  }
  if (!c->in && gostx__tls_need_in(c) != GOSTX_OK) return c->rc;
  for (;;) {
    const uint8_t *rec = c->in + c->in_off;
    size_t need = GOSTX__TLS_HDR_LEN;
    if (c->in_have >= GOSTX__TLS_HDR_LEN) {
      size_t len = (size_t)rec[3] << 8 | rec[4];
      uint8_t t = rec[0];
      if (t != GOSTX__CT_CCS && t != GOSTX__CT_ALERT && t != GOSTX__CT_HANDSHAKE &&
          t != GOSTX__CT_APP)
        return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                               "unknown record type");
      /* legacy_record_version is ignored (RFC 8446 5.1: a ClientHello's
       * may be anything); TLS 1.2, once taken, has its own (RFC 5246 6.2.1) */
      if (c->rl->fixed_version && (rec[1] != 3 || rec[2] != 3))
        return gostx__tls_fail(c, GOSTX__ALERT_PROTOCOL_VERSION, GOSTX_EFORMAT,
                               "record version not 0x0303");
      int sealed = c->renc || c->early_skip; /* early data is sealed too */
      size_t max = sealed && (t == GOSTX__CT_APP || c->rl->all_types_sealed) ? GOSTX__TLS_MAX_CIPHERTEXT
                                                            : GOSTX__TLS_MAX_PLAINTEXT;
      if (len > max)
        return gostx__tls_fail(c, GOSTX__ALERT_RECORD_OVERFLOW, GOSTX_ELEN, "record too long");
      need = GOSTX__TLS_HDR_LEN + len;
      if (c->in_have >= need) return GOSTX_OK;
    }
    if (c->in_off + need > GOSTX__TLS_IN_BUF) { /* the record's start moves down */
      memmove(c->in, rec, c->in_have);
      c->in_off = 0;
    }
    size_t at = c->in_off + c->in_have;
    rc = gostx__tls_transport_in(c, c->in + at, GOSTX__TLS_IN_BUF - at, &got);
    if (rc != GOSTX_OK) return rc;
    c->in_have += got;
  }
}

static int on_alert(gostx_tls *c, const uint8_t *p, size_t len) {
  if (len != 2)
    return gostx__tls_fail(c, GOSTX__ALERT_DECODE_ERROR, GOSTX_EFORMAT, "alert not 2 bytes");
  if (p[1] == GOSTX__ALERT_CLOSE_NOTIFY) {
    c->closed = 1;
    c->alert = 0;
    c->alert_sent = 0;
    return GOSTX_TLS_CLOSED;
  }
  if (p[1] == GOSTX__ALERT_USER_CANCELED) return GOSTX_OK; /* a close_notify follows */
  int rc = gostx__tls_fail(c, -1, GOSTX_EIO, "the peer sent a fatal alert");
  c->alert = p[1];
  c->alert_sent = 0;
  snprintf(c->err, sizeof c->err, "the peer sent alert %u", p[1]);
  return rc;
}

/* Handshake bytes of one record: whole messages go to the state machine. */
static int on_handshake_data(gostx_tls *c, const uint8_t *p, size_t len) {
  if (len == 0)
    return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                           "empty handshake record");
  if (gostx__tls_need_hsb(c) != GOSTX_OK) return c->rc;
  while (len) {
    if (c->hs_have < 4) {
      size_t take = 4 - c->hs_have < len ? 4 - c->hs_have : len;
      memcpy(c->hsb->in + c->hs_have, p, take);
      c->hs_have += take;
      p += take;
      len -= take;
      if (c->hs_have < 4) break;
    }
    size_t body = (size_t)c->hsb->in[1] << 16 | (size_t)c->hsb->in[2] << 8 | c->hsb->in[3];
    if (body > GOSTX__TLS_HS_MAX)
      return gostx__tls_fail(c, GOSTX__ALERT_DECODE_ERROR, GOSTX_ELEN,
                             "handshake message too long");
    size_t take = 4 + body - c->hs_have < len ? 4 + body - c->hs_have : len;
    memcpy(c->hsb->in + c->hs_have, p, take);
    c->hs_have += take;
    p += take;
    len -= take;
    if (c->hs_have < 4 + body) break;
    c->hs_have = 0;
    c->rkey_changed = 0;
    int was_connected = c->state == GOSTX__ST_CONNECTED;
    int rc = gostx__tls_on_message(c, c->hsb->in, 4 + body);
    if (rc != GOSTX_OK) return rc;
    if (c->state == GOSTX__ST_FAILED) return c->rc;
    /* A message that changed the read key must end its record (RFC 8446
     * section 5.1); so must TLS 1.2's last Finished: no handshake message
     * may follow it here (renegotiation is refused), and bytes after it in
     * its record are outside what the Finished covered. */
    int ended12 = c->v12 && !was_connected && c->state == GOSTX__ST_CONNECTED;
    if ((c->rkey_changed || ended12) && len)
      return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                             c->rkey_changed ? "handshake data across a key change"
                                             : "handshake data after the Finished");
  }
  gostx__tls_release_hsb(c); /* after the handshake: a post-handshake message's time */
  return GOSTX_OK;
}

/* The content of a record (opened): alerts, handshake messages,
 * application data (left at in + app_off, app_len). */
static int deliver(gostx_tls *c, uint8_t type, uint8_t *body, size_t len) {
  if (c->hs_have && type != GOSTX__CT_HANDSHAKE)
    return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                           "a record inside a fragmented handshake message");
  switch (type) {
    case GOSTX__CT_ALERT:
      return on_alert(c, body, len);
    case GOSTX__CT_HANDSHAKE:
      return on_handshake_data(c, body, len);
    case GOSTX__CT_APP:
      if (c->state != GOSTX__ST_CONNECTED)
        return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                               "application data in the handshake");
      c->app_off = (size_t)(body - c->in);
      c->app_len = len;
      return GOSTX_OK;
    default:
      return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                             "unexpected record type");
  }
}

/* A record of the client's refused early data (len bytes after its
 * header), passed over; past GOSTX__TLS_EARLY_SKIP_MAX bytes of content
 * (its length less tag and type: padding cannot be told apart without the
 * key) the connection ends (RFC 8446 4.2.10, 4.6.1). */
static int skip_early(gostx_tls *c, size_t len) {
  size_t overhead = c->suite->tag_len + 1;
  c->early_skipped += len > overhead ? len - overhead : 0;
  if (c->early_skipped > GOSTX__TLS_EARLY_SKIP_MAX)
    return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                           "more early data than this server skips");
  return GOSTX_OK;
}

/* TLS 1.3's middlebox compatibility: one CCS of 0x01, in the clear,
 * between the first hellos and the peer's Finished; anything else is
 * refused. */
static int ccs13(gostx_tls *c, const uint8_t *body, size_t len) {
  if (len != 1 || body[0] != 1 || c->ccs_seen_ok || c->hs_have ||
      !(c->state == GOSTX__ST_WAIT_EE || c->state == GOSTX__ST_WAIT_CH2 ||
        c->state == GOSTX__ST_WAIT_CERT || c->state == GOSTX__ST_WAIT_FINISHED ||
        (c->role == GOSTX_TLS_CLIENT && c->state == GOSTX__ST_WAIT_SH && c->hrr)) ||
      (c->role == GOSTX_TLS_SERVER && c->state == GOSTX__ST_START))
    return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                           "unexpected change_cipher_spec");
  c->ccs_seen_ok = 1;
  return GOSTX_OK;
}

/* The refusal of a protected TLS 1.3 record (len bytes after its header),
 * as its alert. */
static int open13_refused(gostx_tls *c, int rc, size_t len) {
  if (rc == GOSTX_EAUTH && c->early_skip == GOSTX__EARLY_TRIAL) return skip_early(c, len);
  if (rc == GOSTX_EAUTH)
    return gostx__tls_fail(c, GOSTX__ALERT_BAD_RECORD_MAC, rc, "record authentication failed");
  if (rc == GOSTX_ELEN)
    return gostx__tls_fail(c, GOSTX__ALERT_RECORD_OVERFLOW, rc, "record too long");
  if (rc == GOSTX_EFORMAT)
    return gostx__tls_fail(c, len < c->suite->tag_len + 1 ? GOSTX__ALERT_DECODE_ERROR
                                                          : GOSTX__ALERT_UNEXPECTED_MESSAGE,
                           rc, "malformed protected record");
  return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, rc, "record refused");
}

/* A protected TLS 1.3 record (header at rec, len bytes after): opened into
 * dst when it has room for the whole content (*dst_got), else in place,
 * its content then delivered. */
static int open13(gostx_tls *c, uint8_t *rec, size_t len, uint8_t *dst, size_t dst_cap,
                  size_t *dst_got, gostx__tls_content *out) {
  uint8_t type = rec[0], *body = rec + GOSTX__TLS_HDR_LEN;
  if (type != GOSTX__CT_APP)
    return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                           "plaintext record after the keys");
  if (c->rrec.cls->seq(&c->rrec.s) > key_limit(c, &c->rrec) || c->rrec.cls->spent(&c->rrec.s))
    return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_ESTATE,
                           "the peer went past its key's record limit");
  size_t got;
  /* MGM checks the tag before it writes a byte: a forged record leaves
   * dst as it was, as it leaves body */
  int direct = dst && c->state == GOSTX__ST_CONNECTED && len >= c->suite->tag_len &&
               dst_cap >= len - c->suite->tag_len;
  int rc = c->rrec.cls->open(&c->rrec.s, rec, GOSTX__TLS_HDR_LEN + len, direct ? dst : body,
                             direct ? dst_cap : len, &got, &type);
  if (rc != GOSTX_OK) return open13_refused(c, rc, len);
  c->early_skip = GOSTX__EARLY_NONE; /* the client's second flight has begun */
  if (direct && type == GOSTX__CT_APP && !c->hs_have) {
    *dst_got = got;
    return GOSTX_OK;
  }
  if (direct) { /* not application data (rare): handled from the record's place */
    memcpy(body, dst, got);
    gostx_memzero(dst, len - c->suite->tag_len);
  }
  c->in_plain = 1;
  *out = (gostx__tls_content){type, body, got};
  return GOSTX_OK;
}

/* TLS 1.3's reader of one record (c->rl's until TLS 1.2 is taken). */
static int record13(gostx_tls *c, uint8_t *rec, size_t len, uint8_t *dst, size_t dst_cap,
                    size_t *dst_got, gostx__tls_content *out) {
  uint8_t type = rec[0];
  if (type == GOSTX__CT_CCS) return ccs13(c, rec + GOSTX__TLS_HDR_LEN, len);
  if (c->renc) return open13(c, rec, len, dst, dst_cap, dst_got, out);
  if (type == GOSTX__CT_APP && c->early_skip == GOSTX__EARLY_AFTER_HRR) return skip_early(c, len);
  if (type == GOSTX__CT_APP)
    return gostx__tls_fail(c, GOSTX__ALERT_UNEXPECTED_MESSAGE, GOSTX_EFORMAT,
                           "application data before the keys");
  *out = (gostx__tls_content){type, rec + GOSTX__TLS_HDR_LEN, len};
  return GOSTX_OK;
}

/* Any record version; only application_data sealed at full length */
const gostx__tls_reader gostx__tls13_reader = {0, 0, record13};

/* Reads and handles one record (the version's reader, c->rl).
 * Application data is left at in + 5 (app_off, app_len), or, when dst has
 * room for the whole record's content, opened straight into dst
 * (*dst_got; no copy after); the rest goes where it belongs. */
static int next_record_into(gostx_tls *c, uint8_t *dst, size_t dst_cap, size_t *dst_got) {
  int rc = read_record(c);
  if (rc != GOSTX_OK) return rc;
  uint8_t *rec = c->in + c->in_off;
  size_t len = (size_t)rec[3] << 8 | rec[4];
  /* The record leaves the queue; its bytes stay where they are until the
   * next read_record, which runs only when its data has been taken. */
  c->in_have -= GOSTX__TLS_HDR_LEN + len;
  c->in_off = c->in_have ? c->in_off + GOSTX__TLS_HDR_LEN + len : 0;
  gostx__tls_content got = {0, NULL, 0};
  rc = c->rl->read(c, rec, len, dst, dst_cap, dst_got, &got);
  return rc != GOSTX_OK || !got.p ? rc : deliver(c, got.type, got.p, got.n);
}

static int next_record(gostx_tls *c) { return next_record_into(c, NULL, 0, NULL); }

/* ---------------- the public calls ---------------- */

int gostx_tls_handshake(gostx_tls *c) {
  if (!c) return GOSTX_EINVAL;
  for (;;) {
    if (c->state == GOSTX__ST_FAILED) return c->rc;
    int rc = c->pend ? gostx__tls_hs_flush(c) : GOSTX_OK;
    if (rc == GOSTX_OK) rc = gostx__tls_flush(c);
    if (rc == GOSTX_EIO) return gostx__tls_fail(c, -1, rc, "transport write failed");
    if (rc != GOSTX_OK) return rc;
    if (c->state == GOSTX__ST_CONNECTED) {
      c->flight_out = 1;
      gostx__tls_release_hsb(c);
      return GOSTX_OK;
    }
    if (c->closed) return gostx__tls_fail(c, -1, GOSTX_EIO, "close_notify in the handshake");
    if (c->role == GOSTX_TLS_CLIENT && c->state == GOSTX__ST_START) {
      /* a server's comes with the first handshake bytes (on_handshake_data) */
      if (gostx__tls_need_hsb(c) != GOSTX_OK) return c->rc;
      rc = gostx__tls_client_hello(c);
      if (rc != GOSTX_OK) return rc;
      continue;
    }
    rc = next_record(c);
    if (rc == GOSTX_TLS_CLOSED) return gostx__tls_fail(c, -1, GOSTX_EIO, "close_notify in the handshake");
    if (rc != GOSTX_OK) return rc;
    if (c->app_len) /* cannot happen: refused before CONNECTED */
      return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, GOSTX_ESTATE, "data in handshake");
  }
}

/* Reading's part of the output: what is queued goes out as far as the
 * transport takes it now, the rest waits in order (gostx_tls_unsent) for
 * the next call: a read that waited for it could wait for a peer that
 * waits for us to read. The KeyUpdate the peer asked for is queued only
 * once nothing else waits: however many requests come while we cannot
 * write, one answer (before our next application data, RFC 8446 4.6.3:
 * before_app_record sends it if this did not). */
static int send_what_goes(gostx_tls *c) {
  int rc = gostx__tls_flush(c);
  if (rc == GOSTX_OK && c->ku_due) {
    rc = send_key_update(c, 0);
    if (rc == GOSTX_OK) rc = gostx__tls_flush(c);
  }
  if (rc == GOSTX_EIO) return gostx__tls_fail(c, -1, rc, "transport write failed");
  return rc == GOSTX_TLS_WANT_WRITE ? GOSTX_OK : rc;
}

int gostx_tls_read(gostx_tls *c, void *buf, size_t cap, size_t *got) {
  if (!c || (!buf && cap) || !got) return GOSTX_EINVAL;
  *got = 0;
  /* The handshake's last flight (our Finished) waits for writing: the
   * peer waits for it. After it, gostx_tls_handshake's flush would. */
  int rc = c->flight_out && c->state == GOSTX__ST_CONNECTED ? GOSTX_OK : gostx_tls_handshake(c);
  if (rc != GOSTX_OK) return rc;
  for (;;) {
    if (c->app_len) {
      size_t n = cap < c->app_len ? cap : c->app_len;
      memcpy(buf, c->in + c->app_off, n);
      c->app_off += n;
      c->app_len -= n;
      *got = n;
      return GOSTX_OK;
    }
    if (c->closed) return GOSTX_TLS_CLOSED;
    if (c->state == GOSTX__ST_FAILED) return c->rc;
    rc = send_what_goes(c);
    if (rc != GOSTX_OK) return rc;
    rc = next_record_into(c, buf, cap, got);
    if (rc != GOSTX_OK || *got) return rc;
  }
}

size_t gostx_tls_pending(const gostx_tls *c) {
  if (!c || c->state == GOSTX__ST_FAILED) return 0;
  if (c->app_len) return c->app_len;
  if (c->in_have < GOSTX__TLS_HDR_LEN) return 0;
  const uint8_t *rec = c->in + c->in_off;
  size_t whole = GOSTX__TLS_HDR_LEN + ((size_t)rec[3] << 8 | rec[4]);
  return c->in_have >= whole ? whole : 0;
}

size_t gostx_tls_unsent(const gostx_tls *c) {
  return c && c->state != GOSTX__ST_FAILED ? c->out_len - c->out_off : 0;
}

int gostx_tls_write(gostx_tls *c, const void *buf, size_t len, size_t *put) {
  if (!c || (!buf && len) || !put) return GOSTX_EINVAL;
  *put = 0;
  int rc = gostx_tls_handshake(c);
  if (rc != GOSTX_OK) return rc;
  const uint8_t *p = buf;
  for (;;) {
    size_t n = len - *put > GOSTX__TLS_MAX_PLAINTEXT ? GOSTX__TLS_MAX_PLAINTEXT : len - *put;
    /* Records of 2^14 (the last shorter) gather until the next one (and
     * room for a KeyUpdate and an alert) would not fit: then one write. */
    if (*put == len ||
        c->out_len + c->wrec.cls->sealed_len(&c->wrec.s, n) + 128 > GOSTX__TLS_OUT_CAP) {
      rc = gostx__tls_flush(c);
      if (rc == GOSTX_EIO) return gostx__tls_fail(c, -1, rc, "transport write failed");
      if (rc != GOSTX_OK) return rc;
      if (*put == len) return GOSTX_OK;
    }
    rc = before_app_record(c);
    if (rc == GOSTX_OK) rc = gostx__tls_queue_record(c, GOSTX__CT_APP, p + *put, n, 0x0303);
    if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "seal failed");
    *put += n;
  }
}

int gostx_tls_key_update(gostx_tls *c, int request_peer) {
  if (!c) return GOSTX_EINVAL;
  if (c->state != GOSTX__ST_CONNECTED || !c->wrec.cls->key_update) return GOSTX_ESTATE;
  int rc = send_key_update(c, request_peer);
  if (rc != GOSTX_OK) return rc;
  rc = gostx__tls_flush(c);
  return rc == GOSTX_EIO ? gostx__tls_fail(c, -1, rc, "transport write failed") : rc;
}

int gostx_tls_close(gostx_tls *c) {
  if (!c) return GOSTX_EINVAL;
  if (c->state == GOSTX__ST_FAILED) return c->rc;
  if (c->alert != 0 || !c->alert_sent) {
    static const uint8_t a[2] = {1, 0};
    if (c->wenc && rekey_due(c)) {
      int rc = send_key_update(c, 0);
      if (rc != GOSTX_OK) return rc;
    }
    int rc = gostx__tls_queue_record(c, GOSTX__CT_ALERT, a, 2, 0x0303);
    if (rc != GOSTX_OK) return gostx__tls_fail(c, GOSTX__ALERT_INTERNAL_ERROR, rc, "close");
    c->alert = 0;
    c->alert_sent = 1;
  }
  int rc = gostx__tls_flush(c);
  return rc == GOSTX_EIO ? gostx__tls_fail(c, -1, rc, "transport write failed") : rc;
}

const char *gostx_tls_version(const gostx_tls *c) {
  unsigned v = gostx_tls_version_id(c);
  return v == GOSTX_TLS_VERSION_1_3 ? "TLSv1.3" : v == GOSTX_TLS_VERSION_1_2 ? "TLSv1.2" : NULL;
}

unsigned gostx_tls_version_id(const gostx_tls *c) {
  if (!c || c->state != GOSTX__ST_CONNECTED) return 0;
  return c->v12 ? GOSTX_TLS_VERSION_1_2 : GOSTX_TLS_VERSION_1_3;
}

const char *gostx_tls_suite(const gostx_tls *c) {
  if (c && c->v12) return c->suite12 ? c->suite12->name : NULL;
  return c && c->suite ? c->suite->name : NULL;
}

const char *gostx_tls_group(const gostx_tls *c) {
  if (!c || c->v12) return NULL;
  return gostx__tls_group_name(c->group);
}

const char *gostx_tls_scheme(const gostx_tls *c) {
  static const char *const names[] = {"gostr34102012_256a", "gostr34102012_256b",
                                      "gostr34102012_256c", "gostr34102012_256d",
                                      "gostr34102012_512a", "gostr34102012_512b",
                                      "gostr34102012_512c"};
  if (!c || c->v12 || c->scheme < 0x0709 || c->scheme > 0x070F) return NULL;
  return names[c->scheme - 0x0709];
}

const char *gostx_tls_alpn(const gostx_tls *c) { return c && c->alpn[0] ? c->alpn : NULL; }

const char *gostx_tls_servername(const gostx_tls *c) {
  return c && c->servername[0] ? c->servername : NULL;
}

size_t gostx_tls_peer_chain(const gostx_tls *c, const gostx_x509_cert **chain) {
  if (!c) return 0;
  if (chain) *chain = c->npeer ? c->peer_cert : NULL;
  return c->npeer;
}

const char *gostx_tls_error(const gostx_tls *c) { return c && c->err[0] ? c->err : NULL; }

int gostx_tls_alert(const gostx_tls *c, int *sent) {
  if (!c) return -1;
  if (sent) *sent = c->alert_sent;
  return c->alert;
}

const uint8_t *gostx__tls_secret(const gostx_tls *c, const char *name) {
  static const uint8_t gone[32]; /* the handshake's, once it is over (wiped with it) */
  if (!strcmp(name, "c ap")) return c->c_ap;
  if (!strcmp(name, "s ap")) return c->s_ap;
  if (!c->hs) return gone;
  if (!strcmp(name, "hs")) return c->hs->hs_secret;
  if (!strcmp(name, "master")) return c->hs->master;
  if (!strcmp(name, "c hs")) return c->hs->c_hs;
  if (!strcmp(name, "s hs")) return c->hs->s_hs;
  return NULL;
}
