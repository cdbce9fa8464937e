/* gostx tunnel: what the TUN device hands over with its offloads on
 * (IFF_VNET_HDR, TUNSETOFFLOAD; docs/TUNNEL.md, "TUN offloads"): each read
 * is a struct virtio_net_hdr and a packet that may be checksum-partial or a
 * TCP/UDP super-packet of up to 64 KiB. These functions turn it into the
 * ordinary IP packets that the peer gets, as the kernel's own segmentation
 * would have. Pure functions on buffers: tests/test_tunnel_gso.c. */
#ifndef GOSTX_CLI_TUNNEL_GSO_H
#define GOSTX_CLI_TUNNEL_GSO_H

#include <stddef.h>
#include <stdint.h>

/* sizeof(struct virtio_net_hdr): the TUN device's default header size */
#define TUNNEL_VNET_HDR_LEN 10

/* A super-packet checked and ready to be cut (tunnel_vnet_prepare). */
struct tunnel_gso {
  const uint8_t *pkt;
  size_t len;
  unsigned l4;    /* offset of the TCP or UDP header */
  unsigned hdr;   /* the headers each segment repeats: IP + TCP/UDP */
  unsigned seg;   /* payload bytes of each segment but the last (gso_size) */
  unsigned count; /* segments */
  int v6, tcp;
};

/* The virtio_net_hdr vnet and the packet pkt[0..len) after it, read from
 * the TUN device. -1: not a packet to send (malformed, a kind of
 * super-packet this does not cut, or a segment past mtu). 0: one packet,
 * at most mtu bytes, its checksum completed in place when it was partial
 * (*csum_done set to 1 then). k > 0: a super-packet of k segments described
 * in *g (pkt must stay as it is while they are cut). */
int tunnel_vnet_prepare(const uint8_t *vnet, uint8_t *pkt, size_t len, size_t mtu,
                        struct tunnel_gso *g, int *csum_done);
/* Segment k < g->count of the super-packet into out (room for g->hdr +
 * g->seg bytes): headers, IPv4 ID, lengths, TCP sequence number and flags
 * fixed and every checksum computed. Its length. */
size_t tunnel_gso_segment(const struct tunnel_gso *g, unsigned k, uint8_t *out);

/* The way back: opened TCP packets of one flow, each following the last
 * (next sequence number, same addresses, ports, ACK, window and options,
 * the same IPv6 extension headers, of those tunnel_vnet_prepare cuts
 * with, ACK or ACK|PSH only, equal payloads but a shorter or PSH last one),
 * joined into one super-packet for one write, as GRO would join them; with
 * udp_ok (the TUN device takes USO: Linux 6.2+) UDP datagrams of one flow
 * too (same addresses, ports and IP fields, equal payloads but a shorter
 * last one), as one USO super-packet. */
/* The most UDP datagrams one write joins, as the kernel's own UDP GRO
 * (UDP_GRO_CNT_MAX). With joins across a receive's bursts and no cap,
 * 64-byte datagrams went out ~1000 to a write, more than the receiving
 * socket's buffer takes at once: half of them dropped (UDP 64 B through
 * the tunnel at 0.05 Gbit/s against 0.13). TCP segments are bounded by the
 * 64 KiB of a write alone, as in the kernel's TCP GRO. */
#define TUNNEL_GRO_SEGS 64

struct tunnel_gro {
  uint8_t *buf; /* room for TUNNEL_VNET_HDR_LEN + 65535 bytes */
  size_t len;   /* of the packet being built, after the header (0: none) */
  size_t bytes; /* of the packets joined */
  unsigned l4, hdr, seg, count;
  uint32_t next_seq;
  int v6, udp, closed;
  int udp_ok; /* set by the caller: UDP datagrams are joined too */
};
/* Starts g with pkt when it can be joined (a TCP segment with payload, a
 * UDP datagram with one when g->udp_ok):
 * 1, or 0 (then write it on its own). */
int tunnel_gro_start(struct tunnel_gro *g, const uint8_t *pkt, size_t len);
/* Appends pkt to g when it follows: 1, or 0. */
int tunnel_gro_add(struct tunnel_gro *g, const uint8_t *pkt, size_t len);
/* Ends g (g->count packets): its virtio header (GSO_NONE for one packet,
 * TCPV4/TCPV6 or UDP_L4 with a partial checksum for more) and lengths
 * filled in;
 * the bytes to write from g->buf. g is then empty. */
size_t tunnel_gro_finish(struct tunnel_gro *g);

#endif
