/* gostx tunnel: the TUN queue's side of a worker with the device's offloads
 * (docs/TUNNEL.md, "TUN offloads"). With virtio headers a read may be a
 * super-packet, handed on as the segments tunnel_gso.c cuts it into, or a
 * checksum-partial packet, completed; what is written back may be several
 * opened packets of one flow joined into one write. Without them, one read
 * is one packet and one write is one packet. The worker sees IP packets. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tunnel.h"

/* One read into payload (right after a slot's ESP header, so sealing is in
 * place) and, when it is longer (a super-packet, after its virtio header),
 * on into w->super, where it is then moved whole. The packet's start, and
 * its length (-1: nothing more to read). */
static ssize_t read_one(struct tunnel_worker *w, uint8_t *payload, uint8_t *vnet, uint8_t **pkt) {
  struct tunnel *t = w->t;
  unsigned mtu = t->cfg.mtu;
  *pkt = payload;
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

int tun_read(struct tunnel_worker *w, uint8_t *payload, struct tun_read *rd) {
  struct tunnel *t = w->t;
  uint8_t vnet[TUNNEL_VNET_HDR_LEN] = {0};
  ssize_t r = read_one(w, payload, vnet, &rd->pkt);
  if (r < 0) {
    if (errno != EAGAIN && errno != EINTR) TUNNEL_ADD(w->c.tun_errors, 1);
    return -1;
  }
  rd->len = (size_t)r;
  rd->next = 0;
  int csum = 0, segs = 0;
  if (t->tun_vnet) segs = tunnel_vnet_prepare(vnet, rd->pkt, rd->len, t->cfg.mtu, &rd->g, &csum);
  if (segs < 0) {
    TUNNEL_ADD(w->c.tx_dropped, 1);
    rd->count = 0;
    return 0;
  }
  if (segs && rd->pkt != w->super) {
    /* a super-packet that fit in the slot (a small gso_size): its segments
     * are cut into the slots from this one on, so it is cut from w->super,
     * not from under segment 0 (whose cut clears FIN and PSH) */
    memcpy(w->super, rd->pkt, rd->len);
    rd->pkt = w->super;
    rd->g.pkt = w->super;
  }
  if (csum) TUNNEL_ADD(w->c.tun_csum_in, 1);
  if (segs) TUNNEL_ADD(w->c.tun_gso_in, 1);
  rd->cut = segs > 0;
  rd->count = segs ? (unsigned)segs : 1;
  return 0;
}

int tun_read_next(struct tun_read *rd, uint8_t *out, size_t *len) {
  if (rd->next == rd->count) return 0;
  unsigned k = rd->next++;
  if (rd->cut) {
    *len = tunnel_gso_segment(&rd->g, k, out);
  } else {
    if (out != rd->pkt) memmove(out, rd->pkt, rd->len); /* not so in the worker: read in place */
    *len = rd->len;
  }
  return 1;
}

/* One packet to the TUN queue: with virtio headers, GSO_NONE and flags 0
 * (the kernel checks its checksums, so one the peer's splitter got wrong
 * is still caught) */
static void write_one(struct tunnel_worker *w, uint8_t *pkt, size_t len) {
  static const uint8_t plain_vnet[TUNNEL_VNET_HDR_LEN];
  struct iovec v[2] = {{(void *)plain_vnet, TUNNEL_VNET_HDR_LEN}, {pkt, len}};
  size_t hl = w->t->tun_vnet ? TUNNEL_VNET_HDR_LEN : 0;
  if (writev(w->tun_fd, v + !hl, hl ? 2 : 1) != (ssize_t)(hl + len)) {
    TUNNEL_ADD(w->c.tun_errors, 1);
    return;
  }
  TUNNEL_ADD(w->c.rx_packets, 1);
  TUNNEL_ADD(w->c.rx_bytes, len);
}

void tun_gro_init(struct tunnel_worker *w, struct tunnel_gro *gro) {
  *gro = (struct tunnel_gro){.buf = w->gro, .udp_ok = w->t->tun_uso};
}

void tun_flush(struct tunnel_worker *w, struct tunnel_gro *gro) {
  unsigned count = gro->count;
  size_t bytes = gro->bytes;
  if (!count) return;
  size_t len = tunnel_gro_finish(gro);
  if (write(w->tun_fd, gro->buf, len) != (ssize_t)len) {
    TUNNEL_ADD(w->c.tun_errors, 1);
    return;
  }
  if (count > 1) TUNNEL_ADD(w->c.tun_gso_out, 1);
  TUNNEL_ADD(w->c.rx_packets, count);
  TUNNEL_ADD(w->c.rx_bytes, bytes);
}

void tun_write(struct tunnel_worker *w, struct tunnel_gro *gro, uint8_t *pkt, size_t len) {
  /* with virtio headers: TCP segments (and with USO, UDP datagrams) of
   * one flow joined into one write (a GSO header); what cannot be joined
   * is written on its own */
  if (w->t->tun_vnet) {
    if (gro->count && tunnel_gro_add(gro, pkt, len)) return;
    tun_flush(w, gro);
    if (tunnel_gro_start(gro, pkt, len)) return;
  }
  write_one(w, pkt, len);
}
