/* gostx tunnel: the UDP socket's side of a worker with the kernel's UDP
 * offloads (docs/TUNNEL.md, "UDP offloads"). Sends: the sealed datagrams in
 * one sendmmsg, each run of one size as one GSO message that the kernel
 * cuts again, until it refuses one (then one datagram per message). Receives:
 * one recvmmsg, each buffer a GRO train of datagrams cut here at its
 * segment size, or one. The worker sees datagrams. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/udp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "tunnel.h"

/* A send's cmsgs: a UDP_SEGMENT (the segment size of a GSO send) and an
 * IP_PKTINFO or IPV6_PKTINFO (the source, tunnel_src). */
/* (aligned as a cmsghdr without holding one: its flexible array member
 * would make arrays of these non-ISO) */
union tx_cmsg {
  _Alignas(struct cmsghdr) char buf[CMSG_SPACE(sizeof(uint16_t)) +
                                    CMSG_SPACE(sizeof(struct in6_pktinfo))];
};

/* The messages that send the datagrams iov[0..n) to `to` from src: with
 * gso, each run of datagrams of one size (its last one may be shorter, as
 * UDP GSO allows) in one message whose UDP_SEGMENT cmsg has the kernel cut
 * it into those datagrams again; without, one datagram per message.
 * cnt[k]: the datagrams of message k. The count of messages. */
static unsigned tx_messages(const struct sockaddr_storage *to, socklen_t to_len,
                            const struct tunnel_src *src, struct iovec *iov, unsigned n, int gso,
                            struct mmsghdr *msgs, unsigned *cnt, union tx_cmsg *ctl) {
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
    h->msg_name = (void *)to;
    h->msg_namelen = to_len;
    h->msg_iov = &iov[i];
    h->msg_iovlen = j - i;
    h->msg_control = ctl[m].buf;
    if (j - i > 1) {
      h->msg_controllen = CMSG_SPACE(sizeof(uint16_t));
      struct cmsghdr *c = CMSG_FIRSTHDR(h);
      memset(c, 0, CMSG_SPACE(sizeof(uint16_t)));
      c->cmsg_level = SOL_UDP;
      c->cmsg_type = UDP_SEGMENT;
      c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
      uint16_t s = (uint16_t)seg;
      memcpy(CMSG_DATA(c), &s, sizeof s);
    }
    if (src) tunnel_pktinfo_append(h, src->ip, src->len);
    if (!h->msg_controllen) h->msg_control = NULL;
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

/* w->peer again when IKE moved the peer (a NAT's mapping, tunnel_peer_set) */
static void peer_refresh(struct tunnel_worker *w) {
  struct tunnel *t = w->t;
  const unsigned gen = atomic_load_explicit(&t->peer_gen, memory_order_acquire);
  if (gen == w->peer_gen) return;
  pthread_mutex_lock(&t->peer_lock);
  w->peer = t->peer_now;
  w->peer_gen = atomic_load(&t->peer_gen);
  pthread_mutex_unlock(&t->peer_lock);
}

void tunnel_peer_set(struct tunnel *t, const struct sockaddr_storage *to) {
  pthread_mutex_lock(&t->peer_lock);
  t->peer_now = *to;
  atomic_fetch_add(&t->peer_gen, 1);
  pthread_mutex_unlock(&t->peer_lock);
}

void udp_send(struct tunnel_worker *w, struct iovec *iov, unsigned n,
              const struct sockaddr_storage *to, socklen_t to_len, const struct tunnel_src *src) {
  struct tunnel *t = w->t;
  if (!to) {
    peer_refresh(w);
    to = &w->peer;
    to_len = t->cfg.peer_len;
  }
  struct mmsghdr msgs[TUNNEL_BURST];
  unsigned cnt[TUNNEL_BURST];
  union tx_cmsg ctl[TUNNEL_BURST];
  unsigned m = tx_messages(to, to_len, src, iov, n,
                           atomic_load_explicit(&t->udp_gso, memory_order_relaxed), msgs, cnt, ctl);
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
        m = done + tx_messages(to, to_len, src, iov + sent, n - sent, 0, msgs + done,
                               cnt + done, ctl + done);
        continue;
      }
      if (errno == EAGAIN || errno == ENOBUFS) {
        struct pollfd p = {.fd = w->send_fd, .events = POLLOUT};
        if (poll(&p, 1, 100) > 0) continue;
      }
      TUNNEL_ADD(w->c.tx_errors, n - sent); /* the peer unreachable, the queue full */
      break;
    }
    for (unsigned k = done; k < done + (unsigned)r; k++) {
      sent += cnt[k];
      if (cnt[k] > 1) TUNNEL_ADD(w->c.tx_gso, 1);
    }
    done += (unsigned)r;
  }
  TUNNEL_ADD(w->c.tx_packets, sent);
}

void udp_recv(struct tunnel_worker *w, struct udp_rx *rx) {
  uint8_t *base = w->buf + (size_t)TUNNEL_BURST * TUNNEL_SLOT;
  for (unsigned i = 0; i < TUNNEL_RX_BUFS; i++) {
    rx->iov[i].iov_base = base + i * w->rx_slot;
    rx->iov[i].iov_len = w->rx_slot;
    memset(&rx->msgs[i], 0, sizeof rx->msgs[i]);
    rx->msgs[i].msg_hdr.msg_iov = &rx->iov[i];
    rx->msgs[i].msg_hdr.msg_iovlen = 1;
    rx->msgs[i].msg_hdr.msg_name = &rx->from[i];
    rx->msgs[i].msg_hdr.msg_namelen = sizeof rx->from[i];
    if (w->t->udp_gro || w->t->pktinfo) {
      rx->msgs[i].msg_hdr.msg_control = rx->ctl[i].buf;
      rx->msgs[i].msg_hdr.msg_controllen = sizeof rx->ctl[i].buf;
    }
  }
  int r = recvmmsg(w->udp_fd, rx->msgs, TUNNEL_RX_BUFS, MSG_DONTWAIT, NULL);
  rx->got = r > 0 ? (unsigned)r : 0;
  rx->i = 0;
  rx->off = 0;
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

int udp_rx_next(struct tunnel_worker *w, struct udp_rx *rx, uint8_t **p, size_t *len, int *cut,
                const struct sockaddr_storage **from) {
  if (rx->i == rx->got) return 0;
  struct mmsghdr *m = &rx->msgs[rx->i];
  size_t all = m->msg_len;
  if (rx->off == 0) { /* a buffer's first datagram: how the buffer is cut */
    size_t seg = w->t->udp_gro ? gro_segment(&m->msg_hdr) : 0;
    if (seg && seg < all)
      TUNNEL_ADD(w->c.rx_gro, 1);
    else
      seg = all;
    rx->seg = seg;
  }
  size_t l = all - rx->off < rx->seg ? all - rx->off : rx->seg;
  *p = (uint8_t *)rx->iov[rx->i].iov_base + rx->off;
  *from = &rx->from[rx->i];
  rx->last = rx->i;
  *len = l;
  /* a buffer the kernel cut cuts its last datagram only */
  *cut = (m->msg_hdr.msg_flags & MSG_TRUNC) && rx->off + l == all;
  rx->off += l;
  if (rx->off >= all) { /* on to the next buffer (an empty one gives one empty datagram) */
    rx->i++;
    rx->off = 0;
  }
  return 1;
}

int udp_rx_dest(struct tunnel_worker *w, struct udp_rx *rx, struct sockaddr_storage *to) {
  memset(to, 0, sizeof *to);
  if (!w->t->pktinfo) return 0;
  const struct sockaddr_storage *l = &w->t->cfg.local;
  const unsigned port = ntohs(l->ss_family == AF_INET6
                                  ? ((const struct sockaddr_in6 *)l)->sin6_port
                                  : ((const struct sockaddr_in *)l)->sin_port);
  /* a GRO train's datagrams share their buffer's cmsgs: one flow, one destination */
  return tunnel_pktinfo_dest(&rx->msgs[rx->last].msg_hdr, port, to);
}

void tunnel_send_sealed(struct tunnel_worker *w, gostx_esp_packet *b, unsigned n, unsigned got,
                        const struct sockaddr_storage *to, socklen_t to_len,
                        const struct tunnel_src *src) {
  struct iovec iov[TUNNEL_BURST];
  if (got < n) TUNNEL_ADD(w->c.tx_dropped, n - got);
  unsigned ready = 0;
  for (unsigned i = 0; i < got; i++) {
    if (b[i].status) {
      TUNNEL_ADD(w->c.tx_dropped, 1);
      continue;
    }
    iov[ready].iov_base = b[i].out;
    iov[ready].iov_len = b[i].out_len;
    ready++;
    TUNNEL_ADD(w->c.tx_bytes, b[i].len);
  }
  TUNNEL_TIMED(w, ns_udp_send, udp_send(w, iov, ready, to, to_len, src));
}
