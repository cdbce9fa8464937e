/* gostx tunnel: super-packets and checksum-partial packets from the TUN
 * device cut and completed into ordinary IP packets (tunnel_gso.h). The
 * rules are the kernel's (tcp_gso_segment, __udp_gso_segment,
 * inet_gso_segment): every segment repeats the headers (IPv6 hop-by-hop
 * and destination options included); IPv4 total length,
 * ID (one more per segment) and header checksum, IPv6 payload length, TCP
 * sequence number, UDP length fixed; FIN and PSH kept on the last segment
 * only, CWR on the first only; TCP and UDP checksums computed in full. */
#include <string.h>

#include "tunnel_gso.h"

/* struct virtio_net_hdr (linux/virtio_net.h), read by hand so the layout
 * stays visible: flags, gso_type, then 16-bit hdr_len, gso_size,
 * csum_start, csum_offset in the host's order (the TUN device's order
 * unless TUNSETVNETLE/BE, which the tunnel does not set). */
#define VNET_F_NEEDS_CSUM 1
#define VNET_GSO_NONE 0
#define VNET_GSO_TCPV4 1
#define VNET_GSO_TCPV6 4
#define VNET_GSO_UDP_L4 5
#define VNET_GSO_ECN 0x80

static unsigned vnet16(const uint8_t *vnet, unsigned off) {
  uint16_t v;
  memcpy(&v, vnet + off, 2);
  return v;
}
static unsigned be16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }
static void put_be16(uint8_t *p, unsigned v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

/* The ones'-complement sum of p[0..len) in 16-bit words of the host's
 * order, added to sum (RFC 1071: the sum is the same in either order once
 * stored back the same way). p[0] must be at an even offset of what is
 * summed. */
static uint64_t csum_add(uint64_t sum, const uint8_t *p, size_t len) {
  for (; len >= 4; p += 4, len -= 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    sum += v; /* 2^32 bytes would be needed to carry out of 64 bits */
  }
  if (len >= 2) {
    uint16_t v;
    memcpy(&v, p, 2);
    sum += v;
    p += 2;
    len -= 2;
  }
  if (len) {
    uint8_t last[2] = {p[0], 0};
    uint16_t v;
    memcpy(&v, last, 2);
    sum += v;
  }
  return sum;
}

/* The checksum of a sum, in the host's order: store it with memcpy. 0
 * becomes 0xffff (the same in ones' complement; 0 in UDP means none). */
static uint16_t csum_final(uint64_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  uint16_t c = (uint16_t)~sum;
  return c ? c : 0xffff;
}

static void put_csum(uint8_t *p, uint64_t sum) {
  uint16_t c = csum_final(sum);
  memcpy(p, &c, 2);
}

/* The IPv4 header checksum of h (ihl words) */
static void ipv4_csum(uint8_t *h) {
  unsigned ihl = (h[0] & 15u) * 4;
  h[10] = h[11] = 0;
  put_csum(h + 10, csum_add(0, h, ihl));
}

/* The sum of the pseudo-header of packet ip (IPv4 or IPv6) whose TCP/UDP
 * (proto) part is l4len bytes: addresses, protocol, length. */
static uint64_t pseudo_sum(const uint8_t *ip, int v6, unsigned proto, size_t l4len) {
  uint8_t tail[4] = {0, 0, 0, (uint8_t)proto}; /* zero, protocol */
  uint8_t len[4] = {(uint8_t)(l4len >> 24), (uint8_t)(l4len >> 16), (uint8_t)(l4len >> 8),
                    (uint8_t)l4len};
  uint64_t sum = v6 ? csum_add(0, ip + 8, 32) : csum_add(0, ip + 12, 8);
  return csum_add(csum_add(sum, len, 4), tail, 4);
}

/* The TCP/UDP checksum of l4[0..l4len) in packet ip (IPv4 or IPv6) into
 * l4 + at: the pseudo-header's addresses, protocol and length, then the
 * segment with its checksum field zero. */
static void l4_csum(const uint8_t *ip, int v6, unsigned proto, uint8_t *l4, size_t l4len,
                    unsigned at) {
  l4[at] = l4[at + 1] = 0;
  put_csum(l4 + at, csum_add(pseudo_sum(ip, v6, proto, l4len), l4, l4len));
}

/* Where IPv6 packet pkt[0..len)'s upper-layer header starts, past a
 * hop-by-hop (first only) and destination options headers, up to four
 * extension headers in all: the offset, with *proto its protocol; 0 when
 * they run past len or there are more. Whatever comes after them (a
 * routing, fragment or AH header too) is *proto. */
static unsigned ipv6_upper(const uint8_t *pkt, size_t len, unsigned *proto) {
  unsigned nh = pkt[6], off = 40;
  for (unsigned i = 0; nh == 60 || (nh == 0 && i == 0); i++) {
    if (i == 4 || off + 8 > len) return 0;
    nh = pkt[off];
    off += (pkt[off + 1] + 1u) * 8;
  }
  *proto = nh;
  return off > len ? 0 : off;
}

/* A super-packet's headers: 0 with g filled, or -1. */
static int gso_parse(unsigned type, const uint8_t *pkt, size_t len, size_t mtu, unsigned gso_size,
                     struct tunnel_gso *g) {
  memset(g, 0, sizeof *g);
  g->pkt = pkt;
  g->len = len;
  g->tcp = type != VNET_GSO_UDP_L4;
  unsigned proto = g->tcp ? 6 : 17;
  if (len < 20 || len > 65535 + 40) return -1;
  if (pkt[0] >> 4 == 4) {
    unsigned ihl = (pkt[0] & 15u) * 4;
    /* no fragment of anything; the total length is what was read (a
     * shorter read would be a packet cut short) */
    if (type == VNET_GSO_TCPV6 || ihl < 20 || ihl > len || pkt[9] != proto ||
        (be16(pkt + 6) & 0x3fff) || be16(pkt + 2) != len)
      return -1;
    g->l4 = ihl;
  } else if (pkt[0] >> 4 == 6) {
    if (type == VNET_GSO_TCPV4 || len < 40 || be16(pkt + 4) + 40u != len) return -1;
    /* hop-by-hop (first only) and destination options headers go into
     * every segment as they are; a routing header (the checksum would need
     * its last address), a fragment header or any other is not cut */
    unsigned upper = 0;
    g->l4 = ipv6_upper(pkt, len, &upper);
    if (!g->l4 || upper != proto) return -1;
    g->v6 = 1;
  } else {
    return -1;
  }
  if (g->tcp) {
    if (g->l4 + 20 > len || (pkt[g->l4 + 12] >> 4) < 5) return -1;
    g->hdr = g->l4 + (pkt[g->l4 + 12] >> 4) * 4u;
  } else {
    g->hdr = g->l4 + 8;
  }
  if (g->hdr > len || gso_size == 0 || g->hdr + gso_size > mtu) return -1;
  g->seg = gso_size;
  size_t payload = len - g->hdr;
  g->count = payload ? (unsigned)((payload + gso_size - 1) / gso_size) : 1;
  return 0;
}

int tunnel_vnet_prepare(const uint8_t *vnet, uint8_t *pkt, size_t len, size_t mtu,
                        struct tunnel_gso *g, int *csum_done) {
  unsigned type = vnet[1] & (0xffu & ~(unsigned)VNET_GSO_ECN);
  *csum_done = 0;
  if (type != VNET_GSO_NONE) {
    if (type != VNET_GSO_TCPV4 && type != VNET_GSO_TCPV6 && type != VNET_GSO_UDP_L4) return -1;
    if (gso_parse(type, pkt, len, mtu, vnet16(vnet, 4), g)) return -1;
    return (int)g->count;
  }
  if (len > mtu) return -1;
  if (vnet[0] & VNET_F_NEEDS_CSUM) {
    /* the field holds the pseudo-header's sum: the sum from csum_start to
     * the end, complemented, is the checksum (what a device does) */
    size_t start = vnet16(vnet, 6), at = start + vnet16(vnet, 8);
    if (start >= len || at + 2 > len || (start & 1)) return -1;
    put_csum(pkt + at, csum_add(0, pkt + start, len - start));
    *csum_done = 1;
  }
  return 0;
}

size_t tunnel_gso_segment(const struct tunnel_gso *g, unsigned k, uint8_t *out) {
  size_t off = g->hdr + (size_t)k * g->seg, n = g->len - off < g->seg ? g->len - off : g->seg;
  int last = k + 1 == g->count;
  memcpy(out, g->pkt, g->hdr);
  memcpy(out + g->hdr, g->pkt + off, n);
  size_t total = g->hdr + n, l4len = total - g->l4;
  if (g->v6) {
    put_be16(out + 4, (unsigned)(total - 40));
  } else {
    put_be16(out + 2, (unsigned)total);
    put_be16(out + 4, (be16(g->pkt + 4) + k) & 0xffff);
    ipv4_csum(out);
  }
  uint8_t *l4 = out + g->l4;
  if (g->tcp) {
    uint32_t seq = (uint32_t)l4[4] << 24 | (uint32_t)l4[5] << 16 | (uint32_t)l4[6] << 8 | l4[7];
    seq += (uint32_t)((size_t)k * g->seg);
    l4[4] = (uint8_t)(seq >> 24);
    l4[5] = (uint8_t)(seq >> 16);
    l4[6] = (uint8_t)(seq >> 8);
    l4[7] = (uint8_t)seq;
    if (!last) l4[13] &= (uint8_t)~0x09; /* FIN, PSH */
    if (k) l4[13] &= (uint8_t)~0x80;     /* CWR */
    l4_csum(out, g->v6, 6, l4, l4len, 16);
  } else {
    put_be16(l4 + 4, (unsigned)l4len);
    l4_csum(out, g->v6, 17, l4, l4len, 6);
  }
  return total;
}

/* Where pkt's TCP or UDP header starts, its headers' length and payload,
 * when pkt is a segment that GRO could join (no IPv4 options or fragment,
 * IPv6 extension headers only those that tunnel_vnet_prepare cuts with,
 * lengths as read, payload; TCP: flags ACK or ACK|PSH; UDP only with
 * udp_ok): the payload length, or 0. */
static size_t gro_parse(const uint8_t *pkt, size_t len, int udp_ok, unsigned *l4, unsigned *hdr,
                        int *v6, int *udp) {
  unsigned proto;
  if (len >= 28 && pkt[0] == 0x45 && !(be16(pkt + 6) & 0x3fff) && be16(pkt + 2) == len) {
    *l4 = 20;
    *v6 = 0;
    proto = pkt[9];
  } else if (len >= 48 && pkt[0] >> 4 == 6 && be16(pkt + 4) + 40u == len) {
    *l4 = ipv6_upper(pkt, len, &proto);
    *v6 = 1;
    if (!*l4) return 0;
  } else {
    return 0;
  }
  const uint8_t *th = pkt + *l4;
  *udp = proto == 17;
  if (*udp) {
    /* its own length field agrees with the IP length */
    *hdr = *l4 + 8;
    if (!udp_ok || *hdr >= len || be16(th + 4) != len - *l4) return 0;
    return len - *hdr;
  }
  if (proto != 6 || *l4 + 20 > len) return 0;
  *hdr = *l4 + (th[12] >> 4) * 4u;
  if ((th[12] >> 4) < 5 || *hdr >= len || (th[13] & ~0x08) != 0x10) return 0;
  return len - *hdr;
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int tunnel_gro_start(struct tunnel_gro *g, const uint8_t *pkt, size_t len) {
  g->len = g->bytes = 0;
  g->count = 0;
  size_t n = gro_parse(pkt, len, g->udp_ok, &g->l4, &g->hdr, &g->v6, &g->udp);
  if (!n) return 0;
  memcpy(g->buf + TUNNEL_VNET_HDR_LEN, pkt, len);
  g->len = g->bytes = len;
  g->seg = (unsigned)n;
  g->count = 1;
  g->next_seq = g->udp ? 0 : be32(pkt + g->l4 + 4) + (uint32_t)n;
  g->closed = !g->udp && (pkt[g->l4 + 13] & 0x08); /* PSH ends it */
  return 1;
}

int tunnel_gro_add(struct tunnel_gro *g, const uint8_t *pkt, size_t len) {
  unsigned l4 = 0, hdr = 0;
  int v6 = 0, udp = 0;
  size_t n = g->closed || (g->udp && g->count >= TUNNEL_GRO_SEGS)
                 ? 0
                 : gro_parse(pkt, len, g->udp_ok, &l4, &hdr, &v6, &udp);
  /* at most 64 KiB, as the kernel's own GSO packets */
  if (!n || v6 != g->v6 || udp != g->udp || l4 != g->l4 || hdr != g->hdr || n > g->seg ||
      g->len + n > 65535)
    return 0;
  const uint8_t *p0 = g->buf + TUNNEL_VNET_HDR_LEN, *th = pkt + l4, *th0 = p0 + g->l4;
  /* the same flow and the same IP fields but lengths, ID and checksum;
   * IPv6 extension headers byte for byte (as the kernel's GRO wants) */
  if (v6 ? memcmp(pkt, p0, 4) || memcmp(pkt + 6, p0 + 6, l4 - 6)
         : memcmp(pkt, p0, 2) || pkt[6] != p0[6] || memcmp(pkt + 8, p0 + 8, 2) ||
               memcmp(pkt + 12, p0 + 12, 8))
    return 0;
  /* an IPv4 packet that may be fragmented further on keeps its ID: the
   * kernel cuts the joined one with IDs counting up from the first, so
   * only IDs that already do are joined (as the kernel's GRO requires) */
  if (!v6 && !(pkt[6] & 0x40) && be16(pkt + 4) != ((be16(p0 + 4) + g->count) & 0xffff)) return 0;
  if (udp) { /* the same ports; a shorter datagram is the last */
    if (memcmp(pkt + l4, p0 + g->l4, 4)) return 0;
    memcpy(g->buf + TUNNEL_VNET_HDR_LEN + g->len, pkt + hdr, n);
    g->len += n;
    g->bytes += len;
    g->count++;
    g->closed = n < g->seg;
    return 1;
  }
  /* ports; the next sequence number; ACK number, data offset, window;
   * options (timestamps included) as they were */
  if (memcmp(th, th0, 4) || be32(th + 4) != g->next_seq || memcmp(th + 8, th0 + 8, 5) ||
      memcmp(th + 14, th0 + 14, 2) || memcmp(th + 20, th0 + 20, hdr - l4 - 20))
    return 0;
  memcpy(g->buf + TUNNEL_VNET_HDR_LEN + g->len, pkt + hdr, n);
  g->len += n;
  g->bytes += len;
  g->count++;
  g->next_seq += (uint32_t)n;
  if (th[13] & 0x08) g->buf[TUNNEL_VNET_HDR_LEN + g->l4 + 13] |= 0x08;
  g->closed = n < g->seg || (th[13] & 0x08);
  return 1;
}

size_t tunnel_gro_finish(struct tunnel_gro *g) {
  uint8_t *vnet = g->buf, *p = g->buf + TUNNEL_VNET_HDR_LEN;
  size_t len = g->len;
  memset(vnet, 0, TUNNEL_VNET_HDR_LEN);
  if (g->count > 1) {
    if (g->v6) {
      put_be16(p + 4, (unsigned)(len - 40));
    } else {
      put_be16(p + 2, (unsigned)len);
      ipv4_csum(p);
    }
    /* UDP: the length covers them all, as in the kernel's own USO packets */
    if (g->udp) put_be16(p + g->l4 + 4, (unsigned)(len - g->l4));
    /* a partial checksum: the pseudo-header's sum, folded, not
     * complemented (the kernel takes the packets as checked: each was
     * authenticated) */
    unsigned at = g->udp ? 6 : 16;
    uint64_t sum = pseudo_sum(p, g->v6, g->udp ? 17 : 6, len - g->l4);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    uint16_t seed = (uint16_t)sum;
    memcpy(p + g->l4 + at, &seed, 2);
    uint16_t v[4] = {(uint16_t)g->hdr, (uint16_t)g->seg, (uint16_t)g->l4, (uint16_t)at};
    vnet[0] = VNET_F_NEEDS_CSUM;
    vnet[1] = g->udp ? VNET_GSO_UDP_L4 : g->v6 ? VNET_GSO_TCPV6 : VNET_GSO_TCPV4;
    memcpy(vnet + 2, v, 8);
  }
  g->len = 0;
  g->count = 0;
  return TUNNEL_VNET_HDR_LEN + len;
}
