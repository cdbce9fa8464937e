/* gostx tunnel: one worker = one TUN queue + one UDP socket. Packets move
 * in bursts: up to TUNNEL_BURST read from the TUN queue, sealed, sent with
 * one sendmmsg; up to TUNNEL_BURST received with one recvmmsg, opened, and
 * only the authenticated, in-window ones written to the TUN queue. Buffers
 * are allocated once per worker: nothing is allocated per packet. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tunnel.h"

#define ADD(ctr, n) atomic_fetch_add_explicit(&(ctr), (n), memory_order_relaxed)

/* The ESP next header for an IP packet from the TUN device, or 0. */
static uint8_t next_header_of(const uint8_t *p, size_t len) {
  if (len >= 20 && p[0] >> 4 == 4) return 4;
  if (len >= 40 && p[0] >> 4 == 6) return 41;
  return 0;
}

static void tun_to_udp(struct tunnel_worker *w) {
  struct tunnel *t = w->t;
  struct mmsghdr msgs[TUNNEL_BURST];
  struct iovec iov[TUNNEL_BURST];
  gostx_esp_burst b[TUNNEL_BURST];
  unsigned n = 0;
  /* the payload lands right after the ESP header, so sealing is in place */
  while (n < TUNNEL_BURST) {
    uint8_t *slot = w->buf + (size_t)n * TUNNEL_SLOT;
    ssize_t r = read(w->tun_fd, slot + GOSTX_ESP_HDR_LEN, t->cfg.mtu);
    if (r < 0) {
      if (errno != EAGAIN && errno != EINTR) ADD(w->c.tun_errors, 1);
      break;
    }
    uint8_t nh = next_header_of(slot + GOSTX_ESP_HDR_LEN, (size_t)r);
    if (!nh) {
      ADD(w->c.tx_dropped, 1);
      continue;
    }
    b[n++] = (gostx_esp_burst){.in = slot + GOSTX_ESP_HDR_LEN, .len = (size_t)r, .out = slot,
                               .cap = TUNNEL_SLOT, .next_header = nh};
  }
  if (!n) return;
  /* numbers for as many as the SA has left (none past its end, ever) */
  unsigned got;
  uint64_t seq = tunnel_seq_reserve(t, n, &got);
  if (got) (void)gostx_esp_seal_burst(&t->sa_out, &w->kc_out, seq, b, got); /* statuses below */
  if (got < n) ADD(w->c.tx_dropped, n - got);
  unsigned ready = 0;
  for (unsigned i = 0; i < got; i++) {
    if (b[i].status) {
      ADD(w->c.tx_dropped, 1);
      continue;
    }
    iov[ready].iov_base = b[i].out;
    iov[ready].iov_len = b[i].out_len;
    memset(&msgs[ready], 0, sizeof msgs[ready]);
    msgs[ready].msg_hdr.msg_name = &t->cfg.peer;
    msgs[ready].msg_hdr.msg_namelen = t->cfg.peer_len;
    msgs[ready].msg_hdr.msg_iov = &iov[ready];
    msgs[ready].msg_hdr.msg_iovlen = 1;
    ready++;
    ADD(w->c.tx_bytes, b[i].len);
  }
  unsigned sent = 0;
  while (sent < ready) {
    int r = sendmmsg(w->send_fd, msgs + sent, ready - sent, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == ENOBUFS) {
        struct pollfd p = {.fd = w->send_fd, .events = POLLOUT};
        if (poll(&p, 1, 100) > 0) continue;
      }
      ADD(w->c.tx_errors, ready - sent); /* the peer unreachable, the queue full */
      break;
    }
    sent += (unsigned)r;
  }
  ADD(w->c.tx_packets, sent);
}

/* Whether a datagram can be an ESP packet at all; counts it when not. */
static int plausible(struct tunnel_worker *w, const uint8_t *pkt, size_t len, int truncated) {
  if (len == 1 && pkt[0] == 0xff) { /* RFC 3948 NAT-keepalive */
    ADD(w->c.rx_keepalive, 1);
    return 0;
  }
  /* too short for ESP, or the non-ESP marker (SPI 0: IKE on port 4500) */
  if (truncated || len < 8 || !(pkt[0] | pkt[1] | pkt[2] | pkt[3])) {
    ADD(w->c.rx_malformed, 1);
    return 0;
  }
  return 1;
}

/* Datagrams from the peer: delivered to the TUN queue only when they are
 * ESP packets of our inbound SA, authentic, and new. */
static void udp_to_tun(struct tunnel_worker *w) {
  struct tunnel *t = w->t;
  struct mmsghdr msgs[TUNNEL_BURST];
  struct iovec iov[TUNNEL_BURST];
  gostx_esp_burst b[TUNNEL_BURST];
  uint8_t *base = w->buf + (size_t)TUNNEL_BURST * TUNNEL_SLOT;
  for (unsigned i = 0; i < TUNNEL_BURST; i++) {
    iov[i].iov_base = base + (size_t)i * TUNNEL_SLOT;
    iov[i].iov_len = TUNNEL_SLOT;
    memset(&msgs[i], 0, sizeof msgs[i]);
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  int r = recvmmsg(w->udp_fd, msgs, TUNNEL_BURST, MSG_DONTWAIT, NULL);
  size_t n = 0;
  for (int i = 0; i < r; i++)
    if (plausible(w, iov[i].iov_base, msgs[i].msg_len, !!(msgs[i].msg_hdr.msg_flags & MSG_TRUNC)))
      b[n] = (gostx_esp_burst){.in = iov[i].iov_base, .len = msgs[i].msg_len,
                               .out = w->plain + n * TUNNEL_SLOT, .cap = TUNNEL_SLOT},
      n++;
  if (!n) return;
  pthread_mutex_lock(&t->replay_lock);
  gostx_esp_replay window = t->replay; /* a snapshot: ESN and replay checks outside the lock */
  pthread_mutex_unlock(&t->replay_lock);
  /* the verdicts are per packet (b[i].status); the call returns the first */
  int first = gostx_esp_open_burst(&t->sa_in, &w->kc_in, &window, b, n);
  (void)first;
  /* nothing is accepted before the state file has it reserved: after a
   * crash, everything up to the reservation counts as seen */
  uint64_t top = 0;
  for (size_t i = 0; i < n; i++)
    if (!b[i].status && b[i].seq > top) top = b[i].seq;
  int unsaved = top && tunnel_in_reserve(t, top);
  pthread_mutex_lock(&t->replay_lock);
  for (size_t i = 0; i < n; i++)
    if (!b[i].status) b[i].status = unsaved ? GOSTX_EIO : gostx_esp_replay_update(&t->replay, b[i].seq);
  pthread_mutex_unlock(&t->replay_lock);
  for (size_t i = 0; i < n; i++) {
    switch (b[i].status) {
    case 0: break;
    case GOSTX_EINVAL: ADD(w->c.rx_spi, 1); continue;
    case GOSTX_ESTATE: ADD(w->c.rx_replay, 1); continue;
    case GOSTX_EAUTH: ADD(w->c.rx_auth, 1); continue;
    case GOSTX_EIO: ADD(w->c.rx_dropped, 1); continue;
    default: ADD(w->c.rx_malformed, 1); continue;
    }
    if (b[i].next_header == GOSTX_ESP_NH_NONE) {
      ADD(w->c.rx_dummy, 1);
      continue;
    }
    if (next_header_of(b[i].out, b[i].out_len) != b[i].next_header) {
      ADD(w->c.rx_malformed, 1);
      continue;
    }
    if (write(w->tun_fd, b[i].out, b[i].out_len) != (ssize_t)b[i].out_len) {
      ADD(w->c.tun_errors, 1);
      continue;
    }
    ADD(w->c.rx_packets, 1);
    ADD(w->c.rx_bytes, b[i].out_len);
  }
}

void *tunnel_worker_run(void *arg) {
  struct tunnel_worker *w = arg;
  struct pollfd p[2] = {{.fd = w->tun_fd, .events = POLLIN}, {.fd = w->udp_fd, .events = POLLIN}};
  while (!atomic_load(&w->t->stop)) {
    int r = poll(p, 2, 200);
    if (r <= 0) continue;
    if (p[0].revents & POLLIN) tun_to_udp(w);
    if (p[1].revents & POLLIN) udp_to_tun(w);
  }
  return NULL;
}

void tunnel_counters_print(struct tunnel *t, FILE *f) {
  struct {
    const char *name;
    size_t off;
  } rows[] = {
#define ROW(x) {#x, offsetof(struct tunnel_counters, x)}
      ROW(tx_packets),  ROW(tx_bytes),  ROW(tx_dropped),   ROW(tx_errors), ROW(rx_packets),
      ROW(rx_bytes),    ROW(rx_auth),   ROW(rx_replay),    ROW(rx_malformed), ROW(rx_spi),
      ROW(rx_dummy),    ROW(rx_keepalive), ROW(rx_dropped), ROW(tun_errors),
#undef ROW
  };
  for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
    uint64_t sum = 0;
    for (unsigned i = 0; i < t->nworkers; i++)
      sum += atomic_load((_Atomic uint64_t *)((char *)&t->w[i].c + rows[r].off));
    fprintf(f, "%s %llu\n", rows[r].name, (unsigned long long)sum);
  }
  /* how the packets spread over the workers (TUN queues and sockets) */
  fputs("tx_packets_by_worker", f);
  for (unsigned i = 0; i < t->nworkers; i++)
    fprintf(f, " %llu", (unsigned long long)atomic_load(&t->w[i].c.tx_packets));
  fputs("\nrx_packets_by_worker", f);
  for (unsigned i = 0; i < t->nworkers; i++)
    fprintf(f, " %llu", (unsigned long long)atomic_load(&t->w[i].c.rx_packets));
  fputc('\n', f);
}
