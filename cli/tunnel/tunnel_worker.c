/* gostx tunnel: one worker = one TUN queue + one UDP socket. Packets move
 * in bursts: up to TUNNEL_BURST read from the TUN queue (with TUN offloads
 * each may be a super-packet, cut here into segments that fill the burst's
 * slots: tunnel_gso.c), sealed, sent with
 * one sendmmsg (runs of one size as one UDP GSO message each); up to
 * TUNNEL_BURST buffers received with one recvmmsg (each a GRO train of
 * datagrams, or one), every datagram opened on its own, and only the
 * authenticated, in-window ones written to the TUN queue (with TUN
 * offloads, a TCP flow's packets joined into one GSO write). Buffers are
 * allocated once per worker: nothing is allocated per packet. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tunnel.h"

#define ADD(ctr, n) atomic_fetch_add_explicit(&(ctr), (n), memory_order_relaxed)

/* The ESP next header for an IP packet from the TUN device, or 0. */
static uint8_t next_header_of(const uint8_t *p, size_t len) {
  if (len >= 20 && p[0] >> 4 == 4) return 4;
  if (len >= 40 && p[0] >> 4 == 6) return 41;
  return 0;
}

/* A UDP_SEGMENT cmsg: the segment size of a GSO send. */
/* (aligned as a cmsghdr without holding one: its flexible array member
 * would make arrays of these non-ISO) */
union gso_cmsg {
  _Alignas(struct cmsghdr) char buf[CMSG_SPACE(sizeof(uint16_t))];
};

/* The messages that send the datagrams iov[0..n) to the peer: with gso,
 * each run of datagrams of one size (its last one may be shorter, as UDP
 * GSO allows) in one message whose UDP_SEGMENT cmsg has the kernel cut it
 * into those datagrams again; without, one datagram per message. cnt[k]:
 * the datagrams of message k. The count of messages. */
static unsigned tx_messages(struct tunnel *t, struct iovec *iov, unsigned n, int gso,
                            struct mmsghdr *msgs, unsigned *cnt, union gso_cmsg *ctl) {
  unsigned m = 0;
  for (unsigned i = 0; i < n; m++) {
    size_t seg = iov[i].iov_len, total = seg;
    unsigned j = i + 1;
    while (gso && j < n && iov[j].iov_len <= seg && total + iov[j].iov_len <= TUNNEL_GSO_MAX) {
      total += iov[j].iov_len;
      if (iov[j++].iov_len < seg) break; /* a shorter one ends the run */
    }
    memset(&msgs[m], 0, sizeof msgs[m]);
    struct msghdr *h = &msgs[m].msg_hdr;
    h->msg_name = &t->cfg.peer;
    h->msg_namelen = t->cfg.peer_len;
    h->msg_iov = &iov[i];
    h->msg_iovlen = j - i;
    if (j - i > 1) {
      h->msg_control = ctl[m].buf;
      h->msg_controllen = sizeof ctl[m].buf;
      struct cmsghdr *c = CMSG_FIRSTHDR(h);
      c->cmsg_level = SOL_UDP;
      c->cmsg_type = UDP_SEGMENT;
      c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
      uint16_t s = (uint16_t)seg;
      memcpy(CMSG_DATA(c), &s, sizeof s);
    }
    cnt[m] = j - i;
    i = j;
  }
  return m;
}

/* The kernel or the device refused a GSO send: none from now on, said once. */
static void gso_refused(struct tunnel *t, int err) {
  int on = 1;
  if (!atomic_compare_exchange_strong(&t->udp_gso, &on, 0)) return;
  atomic_store(&t->gso_errno, err);
  fprintf(stderr, "gostx tunnel: UDP GSO refused (%s): each datagram sent on its own from now on\n",
          strerror(err));
}

/* One read from the TUN queue into slot n's payload (right after the ESP
 * header, so sealing is in place) and, when it is longer (a super-packet,
 * with the virtio header), on into w->super, where it is then moved whole.
 * The packet's start, and its length (-1: nothing more to read). */
static ssize_t tun_read(struct tunnel_worker *w, uint8_t *slot, uint8_t *vnet, uint8_t **pkt) {
  struct tunnel *t = w->t;
  unsigned mtu = t->cfg.mtu;
  *pkt = slot + GOSTX_ESP_HDR_LEN;
  if (!t->tun_vnet) return read(w->tun_fd, *pkt, mtu);
  struct iovec v[3] = {{vnet, TUNNEL_VNET_HDR_LEN}, {*pkt, mtu}, {w->super + mtu, TUNNEL_SUPER_MAX - mtu}};
  ssize_t r = readv(w->tun_fd, v, 3);
  if (r < 0) return r;
  if (r < TUNNEL_VNET_HDR_LEN) return 0; /* dropped as no IP packet */
  r -= TUNNEL_VNET_HDR_LEN;
  if ((size_t)r > mtu) {
    memcpy(w->super, *pkt, mtu);
    *pkt = w->super;
  }
  return r;
}

static void seal_and_send(struct tunnel_worker *w, gostx_esp_burst *b, unsigned n);

/* Up to TUNNEL_BURST reads from the TUN queue, sealed and sent in bursts of
 * up to TUNNEL_BURST packets: a super-packet's segments fill the slots. */
static void tun_to_udp(struct tunnel_worker *w) {
  struct tunnel *t = w->t;
  gostx_esp_burst b[TUNNEL_BURST];
  unsigned n = 0;
  for (unsigned reads = 0; reads < TUNNEL_BURST; reads++) {
    if (n == TUNNEL_BURST) { /* the last read's segments filled the slots */
      seal_and_send(w, b, n);
      n = 0;
    }
    uint8_t *slot = w->buf + (size_t)n * TUNNEL_SLOT, *pkt, vnet[TUNNEL_VNET_HDR_LEN] = {0};
    ssize_t r = tun_read(w, slot, vnet, &pkt);
    if (r < 0) {
      if (errno != EAGAIN && errno != EINTR) ADD(w->c.tun_errors, 1);
      break;
    }
    struct tunnel_gso g;
    int csum = 0, segs = t->tun_vnet ? tunnel_vnet_prepare(vnet, pkt, (size_t)r, t->cfg.mtu, &g, &csum) : 0;
    if (segs < 0) {
      ADD(w->c.tx_dropped, 1);
      continue;
    }
    if (csum) ADD(w->c.tun_csum_in, 1);
    if (segs) ADD(w->c.tun_gso_in, 1);
    /* a plain packet is in its slot; segments go one per slot */
    for (unsigned k = 0; k < (segs ? (unsigned)segs : 1); k++) {
      if (n == TUNNEL_BURST) {
        seal_and_send(w, b, n);
        n = 0;
      }
      slot = w->buf + (size_t)n * TUNNEL_SLOT;
      size_t len = segs ? tunnel_gso_segment(&g, k, slot + GOSTX_ESP_HDR_LEN) : (size_t)r;
      uint8_t nh = next_header_of(slot + GOSTX_ESP_HDR_LEN, len);
      if (!nh) {
        ADD(w->c.tx_dropped, 1);
        continue;
      }
      b[n++] = (gostx_esp_burst){.in = slot + GOSTX_ESP_HDR_LEN, .len = len, .out = slot,
                                 .cap = TUNNEL_SLOT, .next_header = nh};
    }
  }
  if (n) seal_and_send(w, b, n);
}

/* Seals b[0..n) (their payloads in w->buf's slots) and sends them to the
 * peer. */
static void seal_and_send(struct tunnel_worker *w, gostx_esp_burst *b, unsigned n) {
  struct tunnel *t = w->t;
  struct iovec iov[TUNNEL_BURST];
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
    ready++;
    ADD(w->c.tx_bytes, b[i].len);
  }
  struct mmsghdr msgs[TUNNEL_BURST];
  unsigned cnt[TUNNEL_BURST];
  union gso_cmsg ctl[TUNNEL_BURST];
  unsigned m = tx_messages(t, iov, ready, atomic_load_explicit(&t->udp_gso, memory_order_relaxed),
                           msgs, cnt, ctl);
  unsigned done = 0, sent = 0; /* messages, datagrams */
  while (done < m) {
    int r = sendmmsg(w->send_fd, msgs + done, m - done, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      /* a route through IPsec, or before Linux 6.10 a device without
       * checksum offload (EIO); segments past the link's MTU (EMSGSIZE;
       * EINVAL on some kernels), which plain sends fragment:
       * this message and the rest again, one datagram each */
      if ((errno == EIO || errno == EINVAL || errno == EMSGSIZE) && cnt[done] > 1) {
        gso_refused(t, errno);
        m = done + tx_messages(t, iov + sent, ready - sent, 0, msgs + done, cnt + done, ctl + done);
        continue;
      }
      if (errno == EAGAIN || errno == ENOBUFS) {
        struct pollfd p = {.fd = w->send_fd, .events = POLLOUT};
        if (poll(&p, 1, 100) > 0) continue;
      }
      ADD(w->c.tx_errors, ready - sent); /* the peer unreachable, the queue full */
      break;
    }
    for (unsigned k = done; k < done + (unsigned)r; k++) {
      sent += cnt[k];
      if (cnt[k] > 1) ADD(w->c.tx_gso, 1);
    }
    done += (unsigned)r;
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

/* One packet to the TUN queue: with virtio headers, GSO_NONE and flags 0
 * (the kernel checks its checksums, so one the peer's splitter got wrong
 * is still caught) */
static void tun_write(struct tunnel_worker *w, uint8_t *pkt, size_t len) {
  static const uint8_t plain_vnet[TUNNEL_VNET_HDR_LEN];
  struct iovec v[2] = {{(void *)plain_vnet, TUNNEL_VNET_HDR_LEN}, {pkt, len}};
  size_t hl = w->t->tun_vnet ? TUNNEL_VNET_HDR_LEN : 0;
  if (writev(w->tun_fd, v + !hl, hl ? 2 : 1) != (ssize_t)(hl + len)) {
    ADD(w->c.tun_errors, 1);
    return;
  }
  ADD(w->c.rx_packets, 1);
  ADD(w->c.rx_bytes, len);
}

/* The packets joined in g (if any) to the TUN queue in one write */
static void gro_flush(struct tunnel_worker *w, struct tunnel_gro *g) {
  unsigned count = g->count;
  size_t bytes = g->bytes;
  if (!count) return;
  size_t len = tunnel_gro_finish(g);
  if (write(w->tun_fd, g->buf, len) != (ssize_t)len) {
    ADD(w->c.tun_errors, 1);
    return;
  }
  if (count > 1) ADD(w->c.tun_gso_out, 1);
  ADD(w->c.rx_packets, count);
  ADD(w->c.rx_bytes, bytes);
}

/* Datagrams from the peer b[0..n): delivered to the TUN queue only when
 * they are ESP packets of our inbound SA, authentic, and new. gro holds
 * what is joined so far (authenticated payloads, copied) and stays open
 * for the next burst of the same receive: the caller flushes it. */
static void open_and_deliver(struct tunnel_worker *w, gostx_esp_burst *b, size_t n,
                             struct tunnel_gro *gro) {
  struct tunnel *t = w->t;
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
  uint64_t accepted = 0;
  pthread_mutex_lock(&t->replay_lock);
  for (size_t i = 0; i < n; i++) {
    if (!b[i].status) b[i].status = unsaved ? GOSTX_EIO : gostx_esp_replay_update(&t->replay, b[i].seq);
    accepted += !b[i].status;
  }
  pthread_mutex_unlock(&t->replay_lock);
  atomic_fetch_add(&t->in_accepted, accepted); /* the rate the inbound margin follows */
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
    /* with virtio headers: TCP segments (and with USO, UDP datagrams) of
     * one flow joined into one write (a GSO header); what cannot be joined
     * is written on its own */
    if (t->tun_vnet) {
      if (gro->count && tunnel_gro_add(gro, b[i].out, b[i].out_len)) continue;
      gro_flush(w, gro);
      if (tunnel_gro_start(gro, b[i].out, b[i].out_len)) continue;
    }
    tun_write(w, b[i].out, b[i].out_len);
  }
}

/* The segment size of a GRO-coalesced buffer (its UDP_GRO cmsg), or 0 for
 * a single datagram. */
static size_t gro_segment(struct msghdr *h) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
    if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
      int s;
      memcpy(&s, CMSG_DATA(c), sizeof s);
      return s > 0 ? (size_t)s : 0;
    }
  return 0;
}

/* Up to TUNNEL_RX_BUFS buffers with one recvmmsg; a GRO buffer is cut at
 * its segment size into the datagrams the peer sent (the last may be
 * shorter), and each is checked, opened and replay-checked on its own, as
 * if it came alone; opened in bursts of up to TUNNEL_BURST, the payloads
 * of one flow joined across the bursts (a train longer than a burst is
 * still one TUN write). */
static void udp_to_tun(struct tunnel_worker *w) {
  struct tunnel *t = w->t;
  struct mmsghdr msgs[TUNNEL_RX_BUFS];
  struct iovec iov[TUNNEL_RX_BUFS];
  union {
    _Alignas(struct cmsghdr) char buf[CMSG_SPACE(sizeof(int))];
  } ctl[TUNNEL_RX_BUFS];
  gostx_esp_burst b[TUNNEL_BURST];
  struct tunnel_gro gro = {.buf = w->gro, .udp_ok = t->tun_uso};
  uint8_t *base = w->buf + (size_t)TUNNEL_BURST * TUNNEL_SLOT;
  for (unsigned i = 0; i < TUNNEL_RX_BUFS; i++) {
    iov[i].iov_base = base + i * w->rx_slot;
    iov[i].iov_len = w->rx_slot;
    memset(&msgs[i], 0, sizeof msgs[i]);
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
    if (t->udp_gro) {
      msgs[i].msg_hdr.msg_control = ctl[i].buf;
      msgs[i].msg_hdr.msg_controllen = sizeof ctl[i].buf;
    }
  }
  int r = recvmmsg(w->udp_fd, msgs, TUNNEL_RX_BUFS, MSG_DONTWAIT, NULL);
  size_t n = 0;
  for (int i = 0; i < r; i++) {
    uint8_t *p = iov[i].iov_base;
    size_t len = msgs[i].msg_len, seg = t->udp_gro ? gro_segment(&msgs[i].msg_hdr) : 0;
    int truncated = !!(msgs[i].msg_hdr.msg_flags & MSG_TRUNC);
    if (seg && seg < len)
      ADD(w->c.rx_gro, 1);
    else
      seg = len;
    for (size_t off = 0;;) {
      size_t l = len - off < seg ? len - off : seg;
      /* a cut buffer cuts its last datagram only; one longer than a slot
       * (which the buffers without GRO cut) is no packet of ours */
      if (plausible(w, p + off, l, (truncated && off + l == len) || l > TUNNEL_SLOT)) {
        b[n] = (gostx_esp_burst){.in = p + off, .len = l, .out = w->plain + n * TUNNEL_SLOT,
                                 .cap = TUNNEL_SLOT};
        if (++n == TUNNEL_BURST) {
          open_and_deliver(w, b, n, &gro);
          n = 0;
        }
      }
      off += l;
      if (off >= len) break;
    }
  }
  if (n) open_and_deliver(w, b, n, &gro);
  gro_flush(w, &gro);
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
      ROW(tx_packets),  ROW(tx_bytes),  ROW(tx_dropped),   ROW(tx_errors), ROW(tx_gso), ROW(rx_packets),
      ROW(rx_bytes),    ROW(rx_auth),   ROW(rx_replay),    ROW(rx_malformed), ROW(rx_spi),
      ROW(rx_dummy),    ROW(rx_keepalive), ROW(rx_dropped), ROW(tun_errors), ROW(rx_gro),
      ROW(tun_gso_in),  ROW(tun_csum_in), ROW(tun_gso_out),
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
