/* libFuzzer harness: the tunnel's handling of what a TUN read with virtio
 * headers holds (cli/tunnel/tunnel_gso.c: tunnel_vnet_prepare, tunnel_gso_segment)
 * and its joining of opened packets (tunnel_gro_*, UDP included), on
 * arbitrary bytes: a super-packet's headers are the local kernel's, but
 * the tunnel must not trust them to be well formed, and the packets it
 * joins are whatever the peer sealed.
 *
 * Input: byte 0 picks the MTU (68 + 16 * byte 0), bytes 1-10 are the
 * virtio header, the rest the packet.
 *
 * Asserts (abort on the first violation):
 *  - nothing reads or writes out of bounds (ASan) or is undefined (UBSan);
 *  - prepare returns -1, 0 (one packet of at most the MTU) or the number of
 *    segments of a super-packet;
 *  - every segment is at most the MTU and its IP length field says its
 *    length;
 *  - segments that are all joined again into one write (up to 64 of them)
 *    give that write's length, and cutting that write gives the same
 *    segments byte for byte. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/tunnel/tunnel_gso.c"

#define MAX_MTU (68 + 16 * 255)
#define MAX_JOIN 64

static uint8_t segs[MAX_JOIN][MAX_MTU], seg[MAX_MTU];
static uint8_t joined[TUNNEL_VNET_HDR_LEN + 65536 + 64];
static size_t seg_len[MAX_JOIN];

static void check(int ok) {
  if (!ok) abort();
}

/* its IP length field agrees with len */
static int ip_len_ok(const uint8_t *p, size_t len) {
  if (p[0] >> 4 == 4) return be16(p + 2) == len;
  return be16(p + 4) + 40u == len;
}

/* Super-packet g of n segments cut, then joined and cut again */
static void one_super(const struct tunnel_gso *gp, int n, size_t mtu) {
  struct tunnel_gso g = *gp;
  int csum_done;
  check((unsigned)n == g.count && g.hdr + g.seg <= mtu);
  for (int k = 0; k < n; k++) {
    uint8_t *out = k < MAX_JOIN ? segs[k] : seg;
    size_t l = tunnel_gso_segment(&g, (unsigned)k, out);
    check(l <= mtu && l >= g.hdr && ip_len_ok(out, l));
    if (k < MAX_JOIN) seg_len[k] = l;
  }
  if (n < 2 || n > MAX_JOIN) return;
  /* the way back: joined into one write, then cut again */
  struct tunnel_gro r = {.buf = joined, .udp_ok = 1};
  int all = tunnel_gro_start(&r, segs[0], seg_len[0]);
  for (int k = 1; k < n && all; k++) all = tunnel_gro_add(&r, segs[k], seg_len[k]);
  size_t sum = 0;
  for (int k = 0; k < n; k++) sum += seg_len[k];
  check(!all || r.bytes == sum);
  size_t jl = r.count ? tunnel_gro_finish(&r) : 0;
  if (!all) return;
  size_t plen = jl - TUNNEL_VNET_HDR_LEN;
  check(jl >= TUNNEL_VNET_HDR_LEN && ip_len_ok(joined + TUNNEL_VNET_HDR_LEN, plen));
  struct tunnel_gso g2;
  int n2 = tunnel_vnet_prepare(joined, joined + TUNNEL_VNET_HDR_LEN, plen, mtu, &g2, &csum_done);
  check(n2 == n);
  for (int k = 0; k < n; k++) {
    size_t l = tunnel_gso_segment(&g2, (unsigned)k, seg);
    check(l == seg_len[k] && !memcmp(seg, segs[k], l));
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 + TUNNEL_VNET_HDR_LEN) return 0;
  size_t mtu = 68 + 16u * data[0], len = size - 1 - TUNNEL_VNET_HDR_LEN;
  uint8_t vnet[TUNNEL_VNET_HDR_LEN];
  memcpy(vnet, data + 1, sizeof vnet);
  /* a buffer of the packet's size, so that ASan sees a read past it */
  uint8_t *pkt = malloc(len ? len : 1);
  check(pkt != NULL);
  memcpy(pkt, data + 1 + TUNNEL_VNET_HDR_LEN, len);
  struct tunnel_gso g;
  int csum_done;
  int n = tunnel_vnet_prepare(vnet, pkt, len, mtu, &g, &csum_done);
  check(n >= -1);
  if (n == 0) check(len <= mtu);
  if (n > 0) one_super(&g, n, mtu);
  free(pkt);
  return 0;
}
