/* gostx tunnel: one worker = one TUN queue + one UDP socket, two paths.
 * Outbound: read -> seal -> send: up to TUNNEL_BURST reads from the TUN
 * queue, their IP packets sealed in bursts of TUNNEL_BURST and sent with one
 * sendmmsg. Inbound: recv -> open -> write: one recvmmsg, every datagram
 * opened on its own, and only the authenticated, in-window ones written to
 * the TUN queue. The offloads that make a read or a write carry many
 * packets (TUN super-packets and joins: tun_offload.c; UDP GSO and GRO:
 * udp_offload.c) are below the calls that read, send, receive and write.
 * Buffers are allocated once per worker: nothing is allocated per packet. */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "tunnel.h"
#include "tunnel_gw.h"

/* Slot n of the outbound bursts (its IP packet after the ESP header, so
 * sealing is in place). */
static uint8_t *slot_of(struct tunnel_worker *w, unsigned n) {
  return w->buf + (size_t)n * TUNNEL_SLOT;
}

/* Seals b[0..n) (their payloads in w->buf's slots) and sends them to the
 * peer (a gateway: each to the peer its inner destination picks). 0: the
 * burst is empty again. */
static unsigned seal_and_send(struct tunnel_worker *w, gostx_esp_packet *b, unsigned n) {
  if (w->t->gw) {
    tunnel_gw_seal_and_send(w, b, n);
    return 0;
  }
  unsigned got; /* statuses below */
  TUNNEL_TIMED(w, ns_seal, got = tunnel_sa_seal(w, b, n));
  tunnel_send_sealed(w, b, n, got, NULL, 0, NULL);
  return 0;
}

/* read -> seal -> send: up to TUNNEL_BURST reads from the TUN queue, their
 * packets (a super-packet's segments fill the slots) sealed and sent in
 * bursts of up to TUNNEL_BURST. */
static void tun_to_udp(struct tunnel_worker *w) {
  gostx_esp_packet b[TUNNEL_BURST];
  unsigned n = 0;
  for (unsigned reads = 0; reads < TUNNEL_BURST; reads++) {
    struct tun_read rd;
    int r;
    TUNNEL_TIMED(w, ns_tun_read, r = tun_read(w, slot_of(w, n) + GOSTX_ESP_HDR_LEN, &rd));
    if (r < 0) break;
    for (;;) {
      if (n == TUNNEL_BURST) n = seal_and_send(w, b, n);
      uint8_t *in = slot_of(w, n) + GOSTX_ESP_HDR_LEN, nh;
      size_t len;
      if (!tun_read_next(&rd, in, &len)) break;
      if (!(nh = tunnel_next_header_of(in, len))) {
        TUNNEL_ADD(w->c.tx_dropped, 1);
        continue;
      }
      b[n] = (gostx_esp_packet){.in = in, .len = len, .out = slot_of(w, n), .cap = TUNNEL_SLOT,
                               .next_header = nh};
      n++;
    }
  }
  if (n) seal_and_send(w, b, n);
}

/* An IKE message that came on the data port behind the non-ESP marker
 * (RFC 3948 2.2) to the IKE thread, with where it came from and where it
 * came to (zeros when not known: a fixed local is that): one datagram on
 * the socketpair, never waiting (a full queue drops it, counted). */
static void to_ike(struct tunnel_worker *w, const uint8_t *pkt, size_t len,
                   const struct sockaddr_storage *from, struct udp_rx *rx) {
  struct sockaddr_storage to;
  (void)udp_rx_dest(w, rx, &to);
  struct iovec iov[3] = {
      {(void *)from, sizeof *from}, {&to, sizeof to}, {(void *)(pkt + 4), len - 4}};
  struct msghdr h = {.msg_iov = iov, .msg_iovlen = 3};
  if (sendmsg(w->t->ike_pair[1], &h, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
    TUNNEL_ADD(w->c.rx_ike_dropped, 1);
  else
    TUNNEL_ADD(w->c.rx_ike, 1);
}

/* Whether a datagram can be an ESP packet at all; counts it when not (an
 * IKE message handed over). cut: the kernel cut it short. */
static int plausible(struct tunnel_worker *w, const uint8_t *pkt, size_t len, int cut,
                     const struct sockaddr_storage *from, struct udp_rx *rx) {
  if (len == 1 && pkt[0] == 0xff) { /* RFC 3948 NAT-keepalive */
    TUNNEL_ADD(w->c.rx_keepalive, 1);
    return 0;
  }
  const int marker = len >= 4 && !(pkt[0] | pkt[1] | pkt[2] | pkt[3]);
  /* an IKE header at least; IKE_AUTH with certificates may be longer than
   * a packet slot (the receive buffers are larger with IKE) */
  if (marker && !cut && len >= 4 + 28 && w->t->ike_pair[1] >= 0) { /* IKE runs */
    to_ike(w, pkt, len, from, rx);
    return 0;
  }
  /* too short for ESP, longer than a slot (which the buffers without GRO
   * cut) and no packet of ours, or the non-ESP marker without IKE (static
   * keys) */
  if (cut || len < 8 || len > TUNNEL_SLOT || marker) {
    TUNNEL_ADD(w->c.rx_malformed, 1);
    return 0;
  }
  return 1;
}

/* An ESP packet under no inbound SA: counted, its SPI left for the IKE
 * thread (a restarted end, the peer still sealing under the SA it lost) */
static void unknown_spi(struct tunnel_worker *w, const uint8_t *esp) {
  TUNNEL_ADD(w->c.rx_spi, 1);
  atomic_store_explicit(&w->t->spi_unknown, tunnel_spi_of(esp), memory_order_relaxed);
}

/* The checks and TUN writes of a burst opened (open_and_deliver). */
static void deliver(struct tunnel_worker *w, gostx_esp_packet *b, size_t n, struct tunnel_gro *gro) {
  for (size_t i = 0; i < n; i++) {
    switch (b[i].status) {
    case 0: break;
    case GOSTX_EINVAL: unknown_spi(w, b[i].in); continue;
    case GOSTX_ESTATE: TUNNEL_ADD(w->c.rx_replay, 1); continue;
    case GOSTX_EAUTH: TUNNEL_ADD(w->c.rx_auth, 1); continue;
    case GOSTX_EIO: TUNNEL_ADD(w->c.rx_dropped, 1); continue;
    case TUNNEL_ESP_SELECTOR: TUNNEL_ADD(w->c.rx_selector, 1); continue;
    default: TUNNEL_ADD(w->c.rx_malformed, 1); continue;
    }
    if (b[i].next_header == GOSTX_ESP_NH_NONE) {
      TUNNEL_ADD(w->c.rx_dummy, 1);
      continue;
    }
    if (tunnel_next_header_of(b[i].out, b[i].out_len) != b[i].next_header) {
      TUNNEL_ADD(w->c.rx_malformed, 1);
      continue;
    }
    tun_write(w, gro, b[i].out, b[i].out_len);
  }
}

/* Datagrams from the peer b[0..n), all of one SPI (a gateway's: from
 * its peers, of any SPIs): delivered to the TUN
 * queue only when they are ESP packets of an inbound SA, authentic, and
 * new. gro holds what is joined so far (authenticated payloads, copied)
 * and stays open for the next burst of the same receive: the caller
 * flushes it. */
static void open_and_deliver(struct tunnel_worker *w, gostx_esp_packet *b, size_t n,
                             struct tunnel_gro *gro) {
  if (w->t->gw)
    TUNNEL_TIMED(w, ns_open, tunnel_gw_open(w, b, n));
  else
    TUNNEL_TIMED(w, ns_open, tunnel_sa_open(w, b, n));
  /* timed by the burst, as the other phases are (a clock read is a system
   * call: by the packet it would weigh on what it measures) */
  TUNNEL_TIMED(w, ns_tun_write, deliver(w, b, n, gro));
}

/* recv -> open -> write: one receive's datagrams, each checked, opened and
 * replay-checked on its own as if it came alone, in bursts of up to
 * TUNNEL_BURST; the payloads of one flow joined across the bursts (a train
 * longer than a burst is still one TUN write). */
static void udp_to_tun(struct tunnel_worker *w) {
  struct udp_rx rx;
  gostx_esp_packet b[TUNNEL_BURST];
  struct tunnel_gro gro;
  tun_gro_init(w, &gro);
  TUNNEL_TIMED(w, ns_udp_recv, udp_recv(w, &rx));
  size_t n = 0, len;
  uint8_t *p;
  int cut;
  const struct sockaddr_storage *from;
  while (udp_rx_next(w, &rx, &p, &len, &cut, &from)) {
    if (!plausible(w, p, len, cut, from, &rx)) continue;
    /* a burst opens under one SA: another SPI (a rekey's old and new
     * packets mixed) starts the next; a gateway's opens its peers' SAs
     * together (tunnel_gw_open) */
    if (n && !w->t->gw && memcmp(p, b[0].in, 4)) {
      open_and_deliver(w, b, n, &gro);
      n = 0;
    }
    b[n] = (gostx_esp_packet){.in = p, .len = len, .out = w->plain + n * TUNNEL_SLOT,
                             .cap = TUNNEL_SLOT};
    if (++n == TUNNEL_BURST) {
      open_and_deliver(w, b, n, &gro);
      n = 0;
    }
  }
  if (n) open_and_deliver(w, b, n, &gro);
  TUNNEL_TIMED(w, ns_tun_write, tun_flush(w, &gro));
}


void *tunnel_worker_run(void *arg) {
  struct tunnel_worker *w = arg;
  struct pollfd p[2] = {{.fd = w->udp_fd, .events = POLLIN}, {.fd = w->tun_fd, .events = POLLIN}};
  while (!atomic_load(&w->t->stop) || atomic_load(&w->t->ike_on)) {
    /* nothing to seal with yet (IKE before its first Child SA): what is
     * sent waits in the TUN queue; the UDP socket is read all along (ESP
     * of no SA for the IKE thread's notice, IKE_AUTH on the data port) */
    const int sealing = atomic_load(&w->t->sa_out) != NULL || w->t->gw;
    p[1].fd = sealing ? w->tun_fd : -1;
    int r = poll(p, 2, sealing ? 200 : 20);
    if (r <= 0) continue;
    if (p[1].revents & POLLIN) tun_to_udp(w);
    if (p[0].revents & POLLIN) udp_to_tun(w);
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
      ROW(rx_dummy),    ROW(rx_keepalive), ROW(rx_ike), ROW(rx_ike_dropped), ROW(rx_dropped),
      ROW(tun_errors),  ROW(rx_gro),
      ROW(tun_gso_in),  ROW(tun_csum_in), ROW(tun_gso_out),
      /* the phases' times last: printed only when taken (timing = yes) */
      ROW(ns_tun_read), ROW(ns_seal), ROW(ns_udp_send), ROW(ns_udp_recv), ROW(ns_open),
      ROW(ns_tun_write),
#undef ROW
  };
  const size_t n_timed = 6, n_rows = sizeof rows / sizeof *rows - (t->cfg.timing ? 0 : n_timed);
  for (size_t r = 0; r < n_rows; r++) {
    uint64_t sum = 0;
    for (unsigned i = 0; i < t->nworkers; i++)
      sum += atomic_load((_Atomic uint64_t *)((char *)&t->w[i].c + rows[r].off));
    fprintf(f, "%s %llu\n", rows[r].name, (unsigned long long)sum);
  }
  if (t->gw) { /* a gateway's drops */
    uint64_t noroute = 0, selector = 0;
    for (unsigned i = 0; i < t->nworkers; i++) {
      noroute += atomic_load(&t->w[i].c.tx_noroute);
      selector += atomic_load(&t->w[i].c.rx_selector);
    }
    fprintf(f, "tx_noroute %llu\nrx_selector %llu\n", (unsigned long long)noroute,
            (unsigned long long)selector);
  }
  /* the workers' CPU time (user + system), against which the phases are
   * read: what it holds beyond them is the rest */
  if (t->cfg.timing) {
    uint64_t cpu = 0;
    for (unsigned i = 0; i < t->nworkers; i++) {
      clockid_t id;
      struct timespec ts;
      if (!pthread_getcpuclockid(t->w[i].thread, &id) && !clock_gettime(id, &ts))
        cpu += (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    }
    fprintf(f, "ns_worker_cpu %llu\n", (unsigned long long)cpu);
  }
  uint64_t writes, by_worker;
  tunnel_state_writes(t, &writes, &by_worker);
  fprintf(f, "state_writes %llu\nstate_writes_by_worker %llu\n", (unsigned long long)writes,
          (unsigned long long)by_worker);
  /* how the packets spread over the workers (TUN queues and sockets) */
  fputs("tx_packets_by_worker", f);
  for (unsigned i = 0; i < t->nworkers; i++)
    fprintf(f, " %llu", (unsigned long long)atomic_load(&t->w[i].c.tx_packets));
  fputs("\nrx_packets_by_worker", f);
  for (unsigned i = 0; i < t->nworkers; i++)
    fprintf(f, " %llu", (unsigned long long)atomic_load(&t->w[i].c.rx_packets));
  fputc('\n', f);
}
