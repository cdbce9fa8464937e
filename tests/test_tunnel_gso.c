/* The tunnel's splitter of TUN super-packets and its checksum completion
 * (cli/tunnel/tunnel_gso.c) against packets built here: TCP and UDP (USO) over
 * IPv4 and IPv6, TCP options, a last segment shorter than the rest and one
 * of full size, a sequence number that wraps, IPv4 IDs that wrap, FIN/PSH
 * on the last segment only and CWR on the first only; every segment
 * compared byte for byte with one built from scratch, its checksums
 * recomputed here byte by byte (big-endian words, RFC 1071) and verified
 * on their own; IPv6 hop-by-hop and destination options headers carried
 * into every segment; super-packets without NEEDS_CSUM (checksums complete)
 * cut the same. Checksum-partial single packets completed, packets without
 * NEEDS_CSUM left as read (a wrong checksum too); malformed
 * headers, IPv6 routing, fragment and other extension headers, and
 * segments past the MTU refused. The way back: the segments
 * joined into one GSO write and cut again give the same bytes; packets that
 * do not follow (sequence gap, other ACK, options, TTL, flags, a longer
 * one, anything after a shorter or PSH one) are not joined. UDP datagrams
 * (with USO) joined the same way, not across ports, addresses, TOS, a
 * longer one or after a shorter one, nor without USO; without DF, only
 * IPv4 IDs that count up. */
#include <stdlib.h>

#include "../cli/tunnel/tunnel_gso.c"
#include "testutil.h"

/* ---- an independent reference: big-endian 16-bit words, byte by byte ---- */
static uint32_t ref_sum(uint32_t s, const uint8_t *p, size_t len) {
  for (size_t i = 0; i + 1 < len; i += 2) s += (uint32_t)p[i] << 8 | p[i + 1];
  if (len & 1) s += (uint32_t)p[len - 1] << 8;
  return s;
}
static uint16_t ref_fold(uint32_t s) {
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)s;
}
/* the pseudo-header's sum of packet ip whose L4 part is l4len bytes */
static uint32_t ref_pseudo(const uint8_t *ip, int v6, unsigned proto, size_t l4len) {
  uint32_t s = v6 ? ref_sum(0, ip + 8, 32) : ref_sum(0, ip + 12, 8);
  return s + proto + (uint32_t)(l4len >> 16) + (uint32_t)(l4len & 0xffff);
}

/* A packet built from scratch: IPv4 (ID id, DF) or IPv6, TCP (seq, flags,
 * optlen bytes of options) or UDP, the payload; its checksums right (0
 * written as 0xffff, as the kernel does for UDP). Its length. */
static size_t build(uint8_t *out, int v6, int tcp, unsigned id, uint32_t seq, uint8_t flags,
                    unsigned optlen, const uint8_t *payload, size_t plen) {
  unsigned ipl = v6 ? 40 : 20, l4h = tcp ? 20 + optlen : 8;
  size_t total = ipl + l4h + plen, l4len = l4h + plen;
  unsigned proto = tcp ? 6 : 17;
  memset(out, 0, ipl + l4h);
  if (v6) {
    out[0] = 0x60;
    out[4] = (uint8_t)(l4len >> 8);
    out[5] = (uint8_t)l4len;
    out[6] = (uint8_t)proto;
    out[7] = 64;
    for (int i = 0; i < 32; i++) out[8 + i] = (uint8_t)(0xfd + i * 7);
  } else {
    out[0] = 0x45;
    out[2] = (uint8_t)(total >> 8);
    out[3] = (uint8_t)total;
    out[4] = (uint8_t)(id >> 8);
    out[5] = (uint8_t)id;
    out[6] = 0x40; /* DF */
    out[8] = 64;
    out[9] = (uint8_t)proto;
    memcpy(out + 12, "\x0a\xe8\x00\x01\x0a\xe8\x00\x02", 8);
    uint16_t c = (uint16_t)~ref_fold(ref_sum(0, out, 20));
    out[10] = (uint8_t)(c >> 8);
    out[11] = (uint8_t)c;
  }
  uint8_t *l4 = out + ipl;
  l4[0] = 0xc3, l4[1] = 0x51, l4[2] = 0x13, l4[3] = 0x89; /* ports */
  if (tcp) {
    l4[4] = (uint8_t)(seq >> 24), l4[5] = (uint8_t)(seq >> 16), l4[6] = (uint8_t)(seq >> 8),
    l4[7] = (uint8_t)seq;
    l4[8] = 0x11, l4[11] = 0x22; /* ack */
    l4[12] = (uint8_t)((l4h / 4) << 4);
    l4[13] = flags;
    l4[14] = 0x01, l4[15] = 0xf5; /* window */
    for (unsigned i = 0; i < optlen; i++) l4[20 + i] = i ? (uint8_t)(0x30 + i) : 1; /* NOP, ... */
  } else {
    l4[4] = (uint8_t)(l4len >> 8), l4[5] = (uint8_t)l4len;
  }
  memcpy(l4 + l4h, payload, plen);
  unsigned at = tcp ? 16 : 6;
  uint16_t c = (uint16_t)~ref_fold(ref_sum(ref_pseudo(out, v6, proto, l4len), l4, l4len));
  if (!c) c = 0xffff;
  l4[at] = (uint8_t)(c >> 8);
  l4[at + 1] = (uint8_t)c;
  return total;
}

/* Whether packet p's checksums verify (the sums come to 0xffff) */
static int verifies(const uint8_t *p, size_t len) {
  int v6 = p[0] >> 4 == 6;
  unsigned ipl = v6 ? 40 : (p[0] & 15u) * 4, proto = v6 ? p[6] : p[9];
  while (v6 && (proto == 0 || proto == 60)) { /* past the options headers */
    proto = p[ipl];
    ipl += (p[ipl + 1] + 1u) * 8;
  }
  if (!v6 && ref_fold(ref_sum(0, p, ipl)) != 0xffff) return 0;
  return ref_fold(ref_sum(ref_pseudo(p, v6, proto, len - ipl), p + ipl, len - ipl)) == 0xffff;
}

static void vnet_hdr(uint8_t *h, uint8_t flags, uint8_t type, unsigned hdr_len, unsigned gso,
                     unsigned cstart, unsigned coff) {
  uint16_t v[4] = {(uint16_t)hdr_len, (uint16_t)gso, (uint16_t)cstart, (uint16_t)coff};
  h[0] = flags;
  h[1] = type;
  memcpy(h + 2, v, 8); /* the host's order, as the TUN device writes it */
}

/* where the ACK number is in a packet built here (IPv4 or IPv6) */
static unsigned l4ack(int v6) { return (v6 ? 40u : 20u) + 8; }

static uint8_t payload[65536], super[65536 + 64], seg[2048], want[2048];

/* An IPv6 extension header of type nh and elen bytes (a multiple of 8,
 * PadN options) put in front of packet p's upper-layer header: its
 * checksums stay right (the pseudo-header does not count it). Its length. */
static size_t add_ext(uint8_t *p, size_t len, uint8_t nh, unsigned elen) {
  memmove(p + 40 + elen, p + 40, len - 40);
  memset(p + 40, 0, elen);
  p[40] = p[6];
  p[41] = (uint8_t)(elen / 8 - 1);
  p[42] = 1; /* PadN */
  p[43] = (uint8_t)(elen - 4);
  p[6] = nh;
  unsigned pl = ((unsigned)p[4] << 8 | p[5]) + elen;
  p[4] = (uint8_t)(pl >> 8);
  p[5] = (uint8_t)pl;
  return len + elen;
}

/* The IPv6 extension headers exts[0..n) (types; 8 and 16 bytes in turn)
 * in front of p's upper-layer header, exts[0] first. Its length. */
static size_t add_exts(uint8_t *p, size_t len, const uint8_t *exts, unsigned n) {
  for (unsigned i = n; i-- > 0;) len = add_ext(p, len, exts[i], 8 + 8 * (i & 1));
  return len;
}

/* The virtio flags of split_case's super-packets: NEEDS_CSUM, as a device
 * with checksum offload hands them over, or 0 (checksums complete, as a
 * virtio peer may send them): the segments are the same. */
static uint8_t split_flags = VNET_F_NEEDS_CSUM;

/* One super-packet of plen payload bytes cut at gso: each segment against
 * one built here; with nexts, IPv6 extension headers exts (add_exts) in
 * the super-packet and in each segment. */
static void split_case(int v6, int tcp, unsigned optlen, size_t plen, unsigned gso, unsigned id,
                       uint32_t seq, uint8_t flags, uint8_t ecn, const uint8_t *exts,
                       unsigned nexts) {
  char what[160];
  snprintf(what, sizeof what, "%s/%s opt %u payload %zu gso %u flags %02x ext %u",
           v6 ? "IPv6" : "IPv4", tcp ? "TCP" : "UDP", optlen, plen, gso, flags, nexts);
  size_t len = build(super, v6, tcp, id, seq, flags, optlen, payload, plen), blen = len;
  len = add_exts(super, len, exts, nexts);
  unsigned l4 = (v6 ? 40 : 20) + (unsigned)(len - blen), hdr = l4 + (tcp ? 20 + optlen : 8);
  uint8_t h[TUNNEL_VNET_HDR_LEN];
  uint8_t type = (uint8_t)((tcp ? (v6 ? VNET_GSO_TCPV6 : VNET_GSO_TCPV4) : VNET_GSO_UDP_L4) | ecn);
  vnet_hdr(h, split_flags, type, hdr, gso, l4, tcp ? 16 : 6);
  struct tunnel_gso g;
  int csum, n = tunnel_vnet_prepare(h, super, len, hdr + gso, &g, &csum);
  unsigned want_n = (unsigned)((plen + gso - 1) / gso);
  CHECK(n == (int)want_n, "%s: %d segments, want %u", what, n, want_n);
  for (int k = 0; k < n && n == (int)want_n; k++) {
    size_t off = (size_t)k * gso, pl = plen - off < gso ? plen - off : gso;
    uint8_t f = flags;
    if (k + 1 < n) f &= (uint8_t)~0x09;
    if (k) f &= (uint8_t)~0x80;
    size_t wl = build(want, v6, tcp, (id + (unsigned)k) & 0xffff, seq + (uint32_t)off, f, optlen,
                      payload + off, pl);
    wl = add_exts(want, wl, exts, nexts);
    memset(seg, 0xee, sizeof seg);
    size_t gl = tunnel_gso_segment(&g, (unsigned)k, seg);
    char w2[200];
    snprintf(w2, sizeof w2, "%s: segment %d", what, k);
    CHECK(gl == wl, "%s: %zu bytes, want %zu", w2, gl, wl);
    if (gl == wl) CHECK_BYTES(seg, want, wl, w2);
    CHECK(verifies(seg, gl), "%s: checksums do not verify", w2);
  }
}

/* A checksum-partial packet (the pseudo-header's sum in the field, as the
 * kernel leaves it) completed in place. */
static void csum_case(int v6, int tcp, size_t plen) {
  uint8_t pkt[1600], h[TUNNEL_VNET_HDR_LEN];
  size_t len = build(pkt, v6, tcp, 7, 1000, 0x18, 0, payload, plen);
  unsigned l4 = v6 ? 40 : 20, at = l4 + (tcp ? 16 : 6);
  uint16_t seed = ref_fold(ref_pseudo(pkt, v6, tcp ? 6 : 17, len - l4));
  pkt[at] = (uint8_t)(seed >> 8);
  pkt[at + 1] = (uint8_t)seed;
  CHECK(!verifies(pkt, len) || plen == 0, "csum %s/%s: the partial packet verifies already",
        v6 ? "IPv6" : "IPv4", tcp ? "TCP" : "UDP");
  vnet_hdr(h, VNET_F_NEEDS_CSUM, VNET_GSO_NONE, 0, 0, l4, tcp ? 16 : 6);
  struct tunnel_gso g;
  int done, n = tunnel_vnet_prepare(h, pkt, len, 1500, &g, &done);
  CHECK(n == 0 && done == 1, "csum %s/%s %zu: prepare %d, done %d", v6 ? "IPv6" : "IPv4",
        tcp ? "TCP" : "UDP", plen, n, done);
  build(want, v6, tcp, 7, 1000, 0x18, 0, payload, plen);
  CHECK_BYTES(pkt, want, len, "a completed checksum-partial packet");
  CHECK(verifies(pkt, len), "completed checksum verifies");
}

/* A packet without NEEDS_CSUM (a device without checksum offload) goes as
 * it was read, a wrong checksum included: the receiving kernel checks it,
 * and the tunnel must not make a corrupted packet look whole. */
static void plain_case(int v6, int tcp, size_t plen) {
  uint8_t pkt[1600], h[TUNNEL_VNET_HDR_LEN];
  size_t len = build(pkt, v6, tcp, 7, 1000, 0x18, 0, payload, plen);
  unsigned at = (v6 ? 40 : 20) + (tcp ? 16 : 6);
  pkt[at] ^= 0x5a; /* the checksum wrong */
  memcpy(want, pkt, len);
  vnet_hdr(h, 0, VNET_GSO_NONE, 0, 0, 0, 0);
  struct tunnel_gso g;
  int done = -1, n = tunnel_vnet_prepare(h, pkt, len, 1500, &g, &done);
  CHECK(n == 0 && done == 0, "plain %s/%s: prepare %d, done %d", v6 ? "IPv6" : "IPv4",
        tcp ? "TCP" : "UDP", n, done);
  CHECK_BYTES(pkt, want, len, "a packet without NEEDS_CSUM changed");
}

static uint8_t segs[128][2048], joined[TUNNEL_VNET_HDR_LEN + 65536];

/* The way back: the segments of a super-packet (built here, then cut)
 * joined again into one write; that write's header says a TCP (or USO)
 * super-packet of their segment size, and cutting it gives the same
 * segments. */
static void join_case(int v6, int tcp, unsigned optlen, size_t plen, unsigned gso,
                      const uint8_t *exts, unsigned nexts) {
  char what[120];
  snprintf(what, sizeof what, "join %s/%s opt %u payload %zu gso %u ext %u", v6 ? "IPv6" : "IPv4",
           tcp ? "TCP" : "UDP", optlen, plen, gso, nexts);
  size_t len = build(super, v6, tcp, 0x4321, 0x7ffffff0u, 0x18, optlen, payload, plen), sl[128];
  size_t blen = len;
  len = add_exts(super, len, exts, nexts);
  unsigned l4 = (v6 ? 40 : 20) + (unsigned)(len - blen), hdr = l4 + (tcp ? 20 + optlen : 8), at = tcp ? 16 : 6;
  uint8_t type = tcp ? (v6 ? VNET_GSO_TCPV6 : VNET_GSO_TCPV4) : VNET_GSO_UDP_L4;
  uint8_t h[TUNNEL_VNET_HDR_LEN];
  vnet_hdr(h, VNET_F_NEEDS_CSUM, type, hdr, gso, l4, at);
  struct tunnel_gso g;
  int csum, n = tunnel_vnet_prepare(h, super, len, hdr + gso, &g, &csum);
  CHECK(n > 1 && n <= 128, "%s: %d segments", what, n);
  if (n <= 1 || n > 128) return;
  for (int k = 0; k < n; k++) sl[k] = tunnel_gso_segment(&g, (unsigned)k, segs[k]);
  struct tunnel_gro r = {.buf = joined, .udp_ok = !tcp};
  int all = tunnel_gro_start(&r, segs[0], sl[0]);
  for (int k = 1; k < n; k++) all &= tunnel_gro_add(&r, segs[k], sl[k]);
  CHECK(all && r.count == (unsigned)n, "%s: joined %u of %d", what, r.count, n);
  size_t jl = tunnel_gro_finish(&r);
  CHECK(jl == TUNNEL_VNET_HDR_LEN + len, "%s: %zu bytes written, want %zu", what, jl,
        TUNNEL_VNET_HDR_LEN + len);
  CHECK(joined[0] == VNET_F_NEEDS_CSUM && joined[1] == type && vnet16(joined, 2) == hdr &&
            vnet16(joined, 4) == gso && vnet16(joined, 6) == l4 && vnet16(joined, 8) == at,
        "%s: virtio header %02x %02x %u %u %u %u", what, joined[0], joined[1], vnet16(joined, 2),
        vnet16(joined, 4), vnet16(joined, 6), vnet16(joined, 8));
  uint8_t *p = joined + TUNNEL_VNET_HDR_LEN;
  CHECK(v6 || ref_fold(ref_sum(0, p, 20)) == 0xffff, "%s: IPv4 header checksum", what);
  size_t ulen = (size_t)p[l4 + 4] << 8 | p[l4 + 5];
  CHECK(tcp || ulen == len - l4, "%s: UDP length %zu", what, ulen);
  unsigned seed = (unsigned)p[l4 + at] << 8 | p[l4 + at + 1];
  CHECK(seed == ref_fold(ref_pseudo(p, v6, tcp ? 6 : 17, len - l4)), "%s: partial checksum %04x",
        what, seed);
  /* the kernel would cut it as the tunnel does: the same segments again */
  struct tunnel_gso g2;
  n = tunnel_vnet_prepare(joined, p, len, hdr + gso, &g2, &csum);
  CHECK(n == (int)g.count, "%s: cut again into %d", what, n);
  for (int k = 0; k < n && n == (int)g.count; k++) {
    size_t l = tunnel_gso_segment(&g2, (unsigned)k, seg);
    CHECK(l == sl[k] && !memcmp(seg, segs[k], l), "%s: segment %d differs after the round trip", what, k);
  }
}

/* UDP datagrams that must not be joined to a (1000 bytes, IPv4) */
static void join_refusals_udp(void) {
  uint8_t a[2048], b[2048];
  struct tunnel_gro r = {.buf = joined, .udp_ok = 1};
  size_t la = build(a, 0, 0, 1, 0, 0, 0, payload, 1000), lb;
#define NOT_JOINED_UDP(what)                                                                       \
  CHECK(tunnel_gro_start(&r, a, la) && !tunnel_gro_add(&r, b, lb), "UDP joined: %s", what)
  lb = build(b, 0, 0, 2, 0, 0, 0, payload, 1001);
  NOT_JOINED_UDP("a longer datagram");
  lb = build(b, 1, 0, 2, 0, 0, 0, payload, 1000);
  NOT_JOINED_UDP("another IP version");
  lb = build(b, 0, 1, 2, 0, 0x10, 0, payload, 1000);
  NOT_JOINED_UDP("TCP");
  lb = build(b, 0, 0, 2, 0, 0, 0, payload, 1000);
  b[22] ^= 1; /* another destination port */
  NOT_JOINED_UDP("another port");
  lb = build(b, 0, 0, 2, 0, 0, 0, payload, 1000);
  b[15] ^= 1; /* another source address */
  NOT_JOINED_UDP("another address");
  lb = build(b, 0, 0, 2, 0, 0, 0, payload, 1000);
  b[1] = 0x10; /* another TOS */
  NOT_JOINED_UDP("another TOS");
  lb = build(b, 0, 0, 2, 0, 0, 0, payload, 1000);
  b[25] ^= 1; /* a UDP length that is not the IP one */
  NOT_JOINED_UDP("a wrong UDP length");
  /* without DF, IDs must count up (the kernel cuts it so) */
  la = build(a, 0, 0, 0xffff, 0, 0, 0, payload, 1000);
  a[6] = 0;
  lb = build(b, 0, 0, 0, 0, 0, 0, payload, 1000);
  b[6] = 0;
  CHECK(tunnel_gro_start(&r, a, la) && tunnel_gro_add(&r, b, lb),
        "UDP without DF, the next ID (wrapping), not joined");
  lb = build(b, 0, 0, 2, 0, 0, 0, payload, 1000);
  b[6] = 0;
  NOT_JOINED_UDP("without DF, an ID that does not follow");
  la = build(a, 0, 1, 1, 1000, 0x10, 0, payload, 1000);
  a[6] = 0;
  lb = build(b, 0, 1, 7, 2000, 0x10, 0, payload, 1000);
  b[6] = 0;
  CHECK(tunnel_gro_start(&r, a, la) && !tunnel_gro_add(&r, b, lb),
        "joined: TCP without DF, an ID that does not follow");
  la = build(a, 0, 0, 1, 0, 0, 0, payload, 1000);
  /* a shorter one is the last */
  lb = build(b, 0, 0, 2, 0, 0, 0, payload, 999);
  CHECK(tunnel_gro_start(&r, a, la) && tunnel_gro_add(&r, b, lb),
        "a shorter last UDP datagram not joined");
  lb = build(b, 0, 0, 3, 0, 0, 0, payload, 10);
  CHECK(!tunnel_gro_add(&r, b, lb), "UDP joined after a shorter one");
  /* at most TUNNEL_GRO_SEGS UDP datagrams a write, however small (TCP:
   * the 66-segment round trip above) */
  la = build(a, 0, 0, 1, 0, 0, 0, payload, 64);
  int all = tunnel_gro_start(&r, a, la);
  for (unsigned k = 1; k < TUNNEL_GRO_SEGS; k++) {
    lb = build(b, 0, 0, 1 + k, 0, 0, 0, payload, 64);
    all &= tunnel_gro_add(&r, b, lb);
  }
  lb = build(b, 0, 0, 1 + TUNNEL_GRO_SEGS, 0, 0, 0, payload, 64);
  CHECK(all && r.count == TUNNEL_GRO_SEGS && !tunnel_gro_add(&r, b, lb),
        "64-byte UDP datagrams: %u joined, the next one not (joined %d)", r.count, all);
  /* not without USO on the TUN device; TCP is joined either way */
  r.udp_ok = 0;
  CHECK(!tunnel_gro_start(&r, a, la), "UDP started a join without udp_ok");
  la = build(a, 0, 1, 1, 1000, 0x10, 0, payload, 1000);
  CHECK(tunnel_gro_start(&r, a, la), "TCP not started with udp_ok 0");
#undef NOT_JOINED_UDP
}

/* Packets that must not be joined to segs[0] (a TCP segment of 1000 bytes) */
static void join_refusals(void) {
  uint8_t a[2048], b[2048];
  struct tunnel_gro r = {.buf = joined};
  size_t la = build(a, 0, 1, 1, 1000, 0x10, 12, payload, 1000), lb;
#define NOT_JOINED(what, ...)                                                                      \
  do {                                                                                            \
    lb = build(b, __VA_ARGS__);                                                                   \
    CHECK(tunnel_gro_start(&r, a, la) && !tunnel_gro_add(&r, b, lb), "joined: %s", what);          \
  } while (0)
  NOT_JOINED("a gap in the sequence", 0, 1, 2, 2001, 0x10, 12, payload, 1000);
  NOT_JOINED("a longer segment", 0, 1, 2, 2000, 0x10, 12, payload, 1001);
  NOT_JOINED("FIN", 0, 1, 2, 2000, 0x11, 12, payload, 1000);
  NOT_JOINED("another IP version", 1, 1, 2, 2000, 0x10, 12, payload, 1000);
  NOT_JOINED("other options", 0, 1, 2, 2000, 0x10, 8, payload, 1000);
  NOT_JOINED("UDP", 0, 0, 2, 2000, 0, 0, payload, 1000);
  lb = build(b, 0, 1, 2, 2000, 0x10, 12, payload, 1000);
  b[l4ack(0)] ^= 1; /* another ACK number */
  CHECK(tunnel_gro_start(&r, a, la) && !tunnel_gro_add(&r, b, lb), "joined: another ACK number");
  lb = build(b, 0, 1, 2, 2000, 0x10, 12, payload, 1000);
  b[20 + 20 + 5] ^= 1; /* other option bytes (a timestamp) */
  CHECK(tunnel_gro_start(&r, a, la) && !tunnel_gro_add(&r, b, lb), "joined: other option bytes");
  lb = build(b, 0, 1, 2, 2000, 0x10, 12, payload, 1000);
  b[8] = 1; /* another TTL */
  CHECK(tunnel_gro_start(&r, a, la) && !tunnel_gro_add(&r, b, lb), "joined: another TTL");
  /* a shorter one is the last; PSH too */
  lb = build(b, 0, 1, 2, 2000, 0x10, 12, payload, 999);
  CHECK(tunnel_gro_start(&r, a, la) && tunnel_gro_add(&r, b, lb), "a shorter last not joined");
  lb = build(b, 0, 1, 2, 2999, 0x10, 12, payload, 10);
  CHECK(!tunnel_gro_add(&r, b, lb), "joined after a shorter one");
  lb = build(b, 0, 1, 2, 2000, 0x18, 12, payload, 1000);
  CHECK(tunnel_gro_start(&r, a, la) && tunnel_gro_add(&r, b, lb), "a PSH last not joined");
  CHECK(joined[TUNNEL_VNET_HDR_LEN + 20 + 13] == 0x18, "PSH not carried to the joined header");
  lb = build(b, 0, 1, 2, 3000, 0x10, 12, payload, 1000);
  CHECK(!tunnel_gro_add(&r, b, lb), "joined after PSH");
  la = build(a, 0, 1, 1, 1000, 0x12, 12, payload, 10); /* SYN|ACK */
  CHECK(!tunnel_gro_start(&r, a, la), "a SYN started a join");
  la = build(a, 0, 1, 1, 1000, 0x10, 0, payload, 0); /* a bare ACK */
  CHECK(!tunnel_gro_start(&r, a, la), "a bare ACK started a join");
#undef NOT_JOINED
}

/* IPv6 packets with extension headers that must not be joined to a (TCP,
 * a destination options header), and ones that must not start a join */
static void join_refusals_ext(void) {
  uint8_t a[2048], b[2048];
  struct tunnel_gro r = {.buf = joined, .udp_ok = 1};
  size_t la = add_ext(a, build(a, 1, 1, 0, 1000, 0x10, 0, payload, 1000), 60, 8), lb;
#define NOT_JOINED_EXT(what)                                                                       \
  CHECK(tunnel_gro_start(&r, a, la) && !tunnel_gro_add(&r, b, lb), "joined: %s", what)
  lb = add_ext(b, build(b, 1, 1, 0, 2000, 0x10, 0, payload, 1000), 60, 8);
  CHECK(tunnel_gro_start(&r, a, la) && tunnel_gro_add(&r, b, lb),
        "the next TCP segment with the same destination options not joined");
  b[44] ^= 1; /* a padding byte of its options */
  NOT_JOINED_EXT("other destination option bytes");
  lb = add_ext(b, build(b, 1, 1, 0, 2000, 0x10, 0, payload, 1000), 0, 8);
  NOT_JOINED_EXT("a hop-by-hop header for a destination options one");
  lb = build(b, 1, 1, 0, 2000, 0x10, 0, payload, 1000);
  NOT_JOINED_EXT("no extension header");
  lb = add_ext(b, build(b, 1, 1, 0, 2000, 0x10, 0, payload, 1000), 60, 16);
  NOT_JOINED_EXT("a longer destination options header");
  /* UDP the same */
  la = add_ext(a, build(a, 1, 0, 0, 0, 0, 0, payload, 1000), 60, 8);
  lb = add_ext(b, build(b, 1, 0, 0, 0, 0, 0, payload, 1000), 60, 8);
  CHECK(tunnel_gro_start(&r, a, la) && tunnel_gro_add(&r, b, lb),
        "UDP with the same destination options not joined");
  b[45] ^= 1;
  NOT_JOINED_EXT("UDP, other destination option bytes");
  /* what tunnel_vnet_prepare would not cut starts nothing */
  static const uint8_t no_start[] = {43, 44, 51};
  for (unsigned i = 0; i < sizeof no_start; i++) {
    la = add_ext(a, build(a, 1, 1, 0, 1000, 0x10, 0, payload, 1000), no_start[i], 8);
    CHECK(!tunnel_gro_start(&r, a, la), "a join started with extension header %u", no_start[i]);
  }
  la = build(a, 1, 1, 0, 1000, 0x10, 0, payload, 1000);
  for (int j = 0; j < 5; j++) la = add_ext(a, la, 60, 8);
  CHECK(!tunnel_gro_start(&r, a, la), "a join started with five extension headers");
  la = add_ext(a, build(a, 1, 1, 0, 1000, 0x10, 0, payload, 1000), 60, 8);
  a[41] = 200; /* past the end */
  CHECK(!tunnel_gro_start(&r, a, la), "a join started with a header past the end");
#undef NOT_JOINED_EXT
}

/* prepare refuses h + the packet (what, for the message) */
static void refused(const char *what, uint8_t *pkt, size_t len, uint8_t flags, uint8_t type,
                    unsigned gso, unsigned cstart, unsigned coff, size_t mtu) {
  uint8_t h[TUNNEL_VNET_HDR_LEN];
  vnet_hdr(h, flags, type, 0, gso, cstart, coff);
  struct tunnel_gso g;
  int done;
  CHECK(tunnel_vnet_prepare(h, pkt, len, mtu, &g, &done) == -1, "%s: not refused", what);
}

int main(void) {
  t_rand_init();
  t_rand_bytes(payload, sizeof payload);
  /* TCP: a shorter last segment, options, seq and ID wrapping, FIN/PSH/CWR */
  split_case(0, 1, 12, 3 * 1348 + 437, 1348, 0xfffe, 0xfffff000u, 0x80 | 0x10 | 0x08 | 0x01, 0,
             NULL, 0);
  split_case(1, 1, 12, 4 * 1328, 1328, 0, 0x12345678, 0x10 | 0x08, VNET_GSO_ECN, NULL, 0);
  /* the biggest: 49 segments; then 123 segments; one segment */
  split_case(0, 1, 0, 65535 - 40, 1360, 0x1234, 1, 0x10 | 0x08, 0, NULL, 0);
  split_case(1, 1, 0, 65535 - 20, 536, 9, 77, 0x10, 0, NULL, 0);
  split_case(0, 1, 40, 1, 1000, 5, 5, 0x19, 0, NULL, 0);
  /* UDP (USO), an odd segment size */
  split_case(0, 0, 0, 10 * 1001 + 1, 1001, 0x8000, 0, 0, 0, NULL, 0);
  split_case(1, 0, 0, 3 * 1352, 1352, 0, 0, 0, 0, NULL, 0);
  split_case(1, 0, 0, 2 * 1300 + 17, 1300, 0, 0, 0, 0, NULL, 0);
  /* IPv6 extension headers: hop-by-hop, destination options, both */
  static const uint8_t hbh[] = {0}, dst[] = {60}, three[] = {0, 60, 60};
  split_case(1, 1, 0, 3 * 1300 + 77, 1300, 0, 1000, 0x18, 0, hbh, 1);
  split_case(1, 1, 12, 5 * 1200, 1200, 0, 1000, 0x10, 0, dst, 1);
  split_case(1, 1, 0, 2 * 1000 + 1, 1000, 0, 1000, 0x19, 0, three, 3);
  split_case(1, 0, 0, 4 * 1000 + 123, 1000, 0, 0, 0, 0, dst, 1);
  /* without checksum offload: super-packets with their checksums complete
   * (flags 0) cut the same; plain packets left as read */
  split_flags = 0;
  split_case(0, 1, 12, 3 * 1348 + 437, 1348, 0xfffe, 0xfffff000u, 0x10 | 0x08, 0, NULL, 0);
  split_case(1, 0, 0, 2 * 1300 + 17, 1300, 0, 0, 0, 0, NULL, 0);
  split_flags = VNET_F_NEEDS_CSUM;
  plain_case(0, 1, 1000);
  plain_case(1, 0, 777);
  /* checksum-partial single packets, an odd length among them */
  csum_case(0, 1, 1000);
  csum_case(1, 1, 777);
  csum_case(0, 0, 1371);
  csum_case(1, 0, 64);

  /* the way back */
  join_case(0, 1, 12, 20 * 1348 + 500, 1348, NULL, 0);
  join_case(1, 1, 0, 8 * 1328, 1328, NULL, 0);
  join_case(0, 1, 0, 65535 - 40, 1360, NULL, 0);
  join_case(0, 0, 0, 10 * 1372 + 123, 1372, NULL, 0); /* UDP: a shorter last one */
  join_case(1, 0, 0, 6 * 1000, 1000, NULL, 0);
  join_case(1, 0, 0, 65535 - 48, 1352, NULL, 0);
  /* IPv6 extension headers (the same in every packet) */
  join_case(1, 1, 12, 7 * 1300 + 99, 1300, dst, 1);
  join_case(1, 1, 0, 4 * 1200, 1200, hbh, 1);
  join_case(1, 1, 0, 65535 - 40 - 32 - 20, 1000, three, 3);
  join_case(1, 0, 0, 5 * 1000 + 123, 1000, dst, 1);
  join_case(1, 0, 0, 3 * 1000, 1000, three, 3);
  join_refusals_ext();
  join_refusals();
  join_refusals_udp();

  /* refusals */
  uint8_t pkt[4096];
  size_t len = build(pkt, 0, 1, 1, 1, 0x10, 0, payload, 3000);
  refused("segments past the MTU", pkt, len, 1, VNET_GSO_TCPV4, 1400, 20, 16, 1400);
  refused("gso_size 0", pkt, len, 1, VNET_GSO_TCPV4, 0, 20, 16, 1400);
  refused("UFO (gso_type 3)", pkt, len, 1, 3, 1000, 20, 16, 1400);
  refused("TCPv6 on an IPv4 packet", pkt, len, 1, VNET_GSO_TCPV6, 1000, 20, 16, 1400);
  refused("USO on a TCP packet", pkt, len, 1, VNET_GSO_UDP_L4, 1000, 20, 8, 1400);
  refused("a read shorter than the IPv4 total length", pkt, len - 1, 1, VNET_GSO_TCPV4, 1000, 20,
          16, 1400);
  pkt[6] |= 0x20; /* MF */
  refused("an IPv4 fragment", pkt, len, 1, VNET_GSO_TCPV4, 1000, 20, 16, 1400);
  pkt[6] &= 0xdf;
  pkt[32] = 0x40; /* TCP data offset 4 */
  refused("a TCP data offset below 5", pkt, len, 1, VNET_GSO_TCPV4, 1000, 20, 16, 1400);
  refused("a plain packet past the MTU", pkt, len, 0, VNET_GSO_NONE, 0, 0, 0, 1400);
  len = build(pkt, 0, 0, 1, 1, 0, 0, payload, 100);
  refused("csum_offset past the end", pkt, len, 1, VNET_GSO_NONE, 0, 20, (unsigned)len - 21, 1400);
  refused("csum_start past the end", pkt, len, 1, VNET_GSO_NONE, 0, (unsigned)len, 0, 1400);
  /* IPv6 extension headers a super-packet is not cut with */
  static const struct {
    const char *what;
    uint8_t types[3];
    unsigned n;
  } ext_refused[] = {
      {"a routing header", {43}, 1},
      {"a fragment header", {44}, 1},
      {"a hop-by-hop header after another", {60, 0}, 2},
      {"an AH header", {51}, 1},
      {"five extension headers", {0, 60, 60}, 3}, /* with two more below */
  };
  for (size_t i = 0; i < sizeof ext_refused / sizeof ext_refused[0]; i++) {
    len = build(pkt, 1, 1, 1, 1, 0x10, 0, payload, 2000);
    unsigned el = 0;
    if (ext_refused[i].n == 3) /* innermost, after the three */
      for (int j = 0; j < 2; j++, el += 8) len = add_ext(pkt, len, 60, 8);
    for (unsigned j = ext_refused[i].n; j-- > 0; el += 8)
      len = add_ext(pkt, len, ext_refused[i].types[j], 8);
    refused(ext_refused[i].what, pkt, len, 1, VNET_GSO_TCPV6, 1000, 40 + el, 16, 1400 + el);
  }
  /* one that says it runs past the packet */
  len = build(pkt, 1, 1, 1, 1, 0x10, 0, payload, 2000);
  len = add_ext(pkt, len, 60, 8);
  pkt[41] = 255;
  refused("an extension header past the end", pkt, len, 1, VNET_GSO_TCPV6, 1000, 48, 16, 1400);
  return t_done();
}
