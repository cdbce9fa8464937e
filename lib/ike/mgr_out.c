/* The IKE manager's way out (manager.h): the events its caller drains
 * (datagrams, keepalives, log lines) in the order made, the status it
 * reads, and the names and addresses the log lines and the status show. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine_int.h"
#include "mgr_int.h"

_Static_assert((int)GOSTX_IKE_MGR_MSG_MAX == (int)GOSTX_IKE_MSG_MAX, "the caller's buffers");
_Static_assert((int)GOSTX_IKE_MGR_INITIATOR == (int)GOSTX_IKE_INITIATOR &&
                   (int)GOSTX_IKE_MGR_RESPONDER == (int)GOSTX_IKE_RESPONDER,
               "the roles shown");
_Static_assert((int)GOSTX_IKE_MGR_AUTH_PSK == (int)GOSTX_IKE_AUTH_PSK &&
                   (int)GOSTX_IKE_MGR_AUTH_SIGNATURE == (int)GOSTX_IKE_AUTH_DIGITAL_SIGNATURE,
               "the settings' auth");

enum { QENT = sizeof(struct gostx__ike_mgr_qent) }; /* a multiple of its alignment */

/* n octets rounded up to the heads' alignment */
static size_t q_pad(size_t n) {
  const size_t al = _Alignof(struct gostx__ike_mgr_qent);
  return (n + al - 1) / al * al;
}

/* Room for need more octets of events (the queue's bound kept): 0, or -1. */
static int q_room(gostx__ike_mgr *k, size_t need) {
  enum { CAP_MAX = GOSTX_IKE_MGR_QUEUE_BYTES + GOSTX_IKE_MGR_QUEUE * (QENT + 16) };
  if (k->q_used + need <= k->q_cap) return 0;
  if (k->q_used + need > CAP_MAX) return -1;
  size_t cap = k->q_cap ? 2 * k->q_cap : 2048; /* one IKE_AUTH's answer and a few lines */
  while (cap < k->q_used + need) cap *= 2;
  if (cap > CAP_MAX) cap = CAP_MAX;
  uint8_t *q = gostx__ike_alloc(cap);
  if (!q) return -1;
  if (k->q_used) memcpy(q, k->q, k->q_used);
  gostx__ike_free(k->q, k->q_cap); /* wiped: a queued line may name a peer */
  k->q = q;
  k->q_cap = cap;
  return 0;
}

void gostx__ike_mgr_queue_free(gostx__ike_mgr *k) {
  gostx__ike_free(k->q, k->q_cap);
  k->q = NULL;
  k->q_head = k->q_n = k->q_used = k->q_cap = 0;
}

/* An event with len octets of data; dropped when the queue is full (the
 * caller drains it after each call: only a flood of fragments fills it)
 * or no memory is left for it. */
static void push(gostx__ike_mgr *k, int type, const gostx__ike_mgr_to *to, const void *data,
                 size_t len) {
  const size_t need = QENT + q_pad(len);
  if (k->q_n == GOSTX_IKE_MGR_QUEUE || q_room(k, need)) return;
  struct gostx__ike_mgr_qent h;
  memset(&h, 0, sizeof h);
  h.type = type;
  if (to) h.to = *to;
  h.len = len;
  memcpy(k->q + k->q_used, &h, QENT);
  memcpy(k->q + k->q_used + QENT, data, len);
  k->q_used += need;
  k->q_n++;
}

int gostx__ike_mgr_next(gostx__ike_mgr *k, gostx__ike_mgr_event *ev) {
  if (!k->q_n) return 0;
  struct gostx__ike_mgr_qent h;
  memcpy(&h, k->q + k->q_head, QENT);
  ev->type = h.type;
  ev->to = h.to;
  ev->len = h.len;
  memcpy(ev->data, k->q + k->q_head + QENT, ev->len);
  if (ev->type == GOSTX_IKE_MGR_LOG) ev->data[ev->len] = 0;
  k->q_head += QENT + q_pad(h.len);
  if (!--k->q_n) gostx__ike_mgr_queue_free(k); /* drained: an idle manager holds no queue */
  return 1;
}

void gostx__ike_mgr_say(gostx__ike_mgr *k, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  push(k, GOSTX_IKE_MGR_LOG, NULL, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static const char *exchange_name(uint8_t type) {
  switch (type) {
  case GOSTX_IKE_SA_INIT: return "IKE_SA_INIT";
  case GOSTX_IKE_AUTH: return "IKE_AUTH";
  case GOSTX_IKE_CREATE_CHILD_SA: return "CREATE_CHILD_SA";
  default: return "INFORMATIONAL";
  }
}

void gostx__ike_mgr_send(gostx__ike_mgr *k, const gostx__ike_mgr_to *to, size_t n) {
  size_t at = 0, len, count = 0;
  while ((len = gostx__ike_out_next(k->out, n, &at)) != 0) {
    push(k, GOSTX_IKE_MGR_SEND, to, k->out + at - len, len);
    count++;
  }
  if (count > 1)
    gostx__ike_mgr_say(k, "%s sent in %zu fragments", exchange_name(k->out[18]), count);
}

void gostx__ike_mgr_keepalive(gostx__ike_mgr *k, const gostx__ike_mgr_addr *to) {
  static const uint8_t ff = 0xff;
  /* from where the peer's IKE last came to, as the SA's requests go */
  gostx__ike_mgr_to t = {*to, 1, k->sa_to.at};
  push(k, GOSTX_IKE_MGR_KEEPALIVE, &t, &ff, 1);
}

void gostx__ike_mgr_ike_addr(const gostx__ike_mgr_addr *a, gostx_ike_addr *out) {
  memset(out, 0, sizeof *out);
  memcpy(out->ip, a->ip, sizeof out->ip);
  out->ip_len = a->ip_len;
  out->port = a->port;
}

int gostx__ike_mgr_same_host(const gostx__ike_mgr_addr *a, const gostx__ike_mgr_addr *b) {
  return a->ip_len == b->ip_len && !memcmp(a->ip, b->ip, a->ip_len);
}

static const char *ip_text(const gostx__ike_mgr_addr *a, char out[INET6_ADDRSTRLEN]) {
  snprintf(out, INET6_ADDRSTRLEN, "?");
  inet_ntop(a->ip_len == 16 ? AF_INET6 : AF_INET, a->ip, out, INET6_ADDRSTRLEN);
  return out;
}

/* where a datagram came from, which behind a NAT or from another
 * implementation (charon-cmd sends from a port of its own) is not `peer` */
const char *gostx__ike_mgr_addr_text(const gostx__ike_mgr_addr *a, char out[56]) {
  char ip[INET6_ADDRSTRLEN];
  snprintf(out, 56, "%s%s%s:%u", a->ip_len == 16 ? "[" : "", ip_text(a, ip),
           a->ip_len == 16 ? "]" : "", a->port);
  return out;
}

void gostx__ike_mgr_say_mapping(gostx__ike_mgr *k, const char *what,
                                const gostx__ike_mgr_addr *a) {
  char ip[INET6_ADDRSTRLEN];
  gostx__ike_mgr_say(k, "%s %s port %u", what, ip_text(a, ip), a->port);
}

const char *gostx__ike_mgr_notify_name(uint16_t n) {
  switch (n) {
  case 0: return "no answer";
  case GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD: return "UNSUPPORTED_CRITICAL_PAYLOAD";
  case GOSTX_IKE_N_INVALID_SYNTAX: return "INVALID_SYNTAX";
  case GOSTX_IKE_N_NO_PROPOSAL_CHOSEN: return "NO_PROPOSAL_CHOSEN";
  case GOSTX_IKE_N_INVALID_KE_PAYLOAD: return "INVALID_KE_PAYLOAD";
  case GOSTX_IKE_N_AUTHENTICATION_FAILED: return "AUTHENTICATION_FAILED";
  case GOSTX_IKE_N_TS_UNACCEPTABLE: return "TS_UNACCEPTABLE";
  case GOSTX_IKE_N_NO_ADDITIONAL_SAS: return "NO_ADDITIONAL_SAS";
  case GOSTX_IKE_N_TEMPORARY_FAILURE: return "TEMPORARY_FAILURE";
  case GOSTX_IKE_N_CHILD_SA_NOT_FOUND: return "CHILD_SA_NOT_FOUND";
  default: return "an error notify";
  }
}

const char *gostx__ike_mgr_group_name(uint16_t g) {
  return g == GOSTX_IKE_KE_GOST3410_2012_512   ? "gost3410-2012-512"
         : g == GOSTX_IKE_KE_GOST3410_2012_256 ? "gost3410-2012-256"
                                      : "?";
}

/* the transforms' config names (the tunnel's) */
const char *gostx__ike_mgr_encr_name(uint16_t encr) {
  return encr == GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE ? "kuznyechik-mgm-ktree"
         : encr == GOSTX_IKE_ENCR_MAGMA_MGM_KTREE    ? "magma-mgm-ktree"
                                                     : "?";
}

void gostx__ike_mgr_spi_hex(const uint8_t spi[8], char out[17]) {
  for (int i = 0; i < 8; i++) snprintf(out + 2 * i, 3, "%02x", spi[i]);
}

void gostx__ike_mgr_show(gostx__ike_mgr *k, int state, const gostx_ike_engine *e, int64_t now) {
  k->shown.state = state;
  if (!e) return;
  /* the ages count from the SPIs' change (new keys) */
  gostx__ike_mgr_shown *s = &k->shown;
  if (memcmp(s->spi_i, e->spi_i, 8) || memcmp(s->spi_r, e->spi_r, 8)) s->since_ms = now;
  if (s->child_in != e->child.spi_in) s->child_since_ms = now;
  s->role = e->cf->role;
  s->encr = e->encr;
  s->group = e->group;
  memcpy(s->spi_i, e->spi_i, 8);
  memcpy(s->spi_r, e->spi_r, 8);
  s->child_in = e->child.spi_in;
  s->child_out = e->child.spi_out;
  s->nat_local = e->nat_local;
  s->nat_peer = e->nat_peer;
  s->remote = k->sa_to.addr;
  s->encap = k->sa_to.encap;
  if (e->inner_ip_len == 4) { /* an IKE SA rekey's engine keeps the address given before */
    memcpy(s->inner_ip, e->inner_ip, 4);
    s->inner_ip_len = 4;
  }
}

void gostx__ike_mgr_shown_get(const gostx__ike_mgr *k, gostx__ike_mgr_shown *s) {
  *s = k->shown;
  s->rekey_ms = k->rekey_ms;
  s->ike_rekey_ms = k->ike_rekey_ms;
}

int gostx__ike_mgr_installed(const gostx__ike_mgr *k) { return k->installed; }
