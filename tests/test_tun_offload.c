/* The tunnel worker's TUN read side (cli/tunnel/tun_offload.c) over a pipe
 * standing in for the TUN queue: a super-packet whose whole read fits in
 * the slot it was read into (a small gso_size: MSS 536 at MTU 1400) is cut
 * into segments written from that same slot onwards, as the worker hands
 * them out. Each segment must be the one tunnel_gso_segment cuts from an
 * untouched copy: FIN and PSH on the last only (segment 0 cut in place
 * once cleared them in the packet the later ones were cut from). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#include "../cli/tunnel/tun_offload.c"
#include "../cli/tunnel/tunnel_gso.c"
#include "testutil.h"

#define MTU 1400
#define GSO 536

static uint8_t slots[4][TUNNEL_SLOT], super_buf[TUNNEL_SUPER_MAX], copy[MTU], want[2048];

/* An IPv4/TCP super-packet of plen payload bytes, flags FIN|PSH|ACK, its
 * checksums left partial as the kernel hands them over with NEEDS_CSUM
 * (cutting completes them). Its length. */
static size_t build(uint8_t *p, size_t plen) {
  size_t total = 40 + plen;
  memset(p, 0, 40);
  p[0] = 0x45, p[2] = (uint8_t)(total >> 8), p[3] = (uint8_t)total, p[6] = 0x40, p[8] = 64;
  p[9] = 6;
  memcpy(p + 12, "\x0a\xe8\x00\x01\x0a\xe8\x00\x02", 8);
  p[20] = 0xc3, p[21] = 0x51, p[22] = 0x13, p[23] = 0x89, p[27] = 1;
  p[32] = 5 << 4, p[33] = 0x19, p[34] = 1;
  for (size_t i = 0; i < plen; i++) p[40 + i] = (uint8_t)(i * 7 + 3);
  return total;
}

int main(void) {
  struct tunnel t;
  struct tunnel_worker w;
  memset(&t, 0, sizeof t);
  memset(&w, 0, sizeof w);
  t.cfg.mtu = MTU;
  t.tun_vnet = 1;
  w.t = &t;
  w.super = super_buf;
  int fds[2];
  CHECK(pipe(fds) == 0, "pipe");
  w.tun_fd = fds[0];

  size_t len = build(copy, 2 * GSO + 100); /* 3 segments, the whole read under MTU */
  uint8_t msg[TUNNEL_VNET_HDR_LEN + MTU] = {0};
  uint16_t v[4] = {40, GSO, 20, 16}; /* hdr_len, gso_size, csum_start, csum_offset */
  msg[0] = VNET_F_NEEDS_CSUM;
  msg[1] = VNET_GSO_TCPV4;
  memcpy(msg + 2, v, 8);
  memcpy(msg + TUNNEL_VNET_HDR_LEN, copy, len);
  CHECK(write(fds[1], msg, TUNNEL_VNET_HDR_LEN + len) == (ssize_t)(TUNNEL_VNET_HDR_LEN + len),
        "write");

  /* what the segments must be: cut from an untouched copy */
  struct tunnel_gso g;
  int csum;
  int n = tunnel_vnet_prepare((const uint8_t *)msg, copy, len, MTU, &g, &csum);
  CHECK(n == 3, "%d segments, want 3", n);

  struct tun_read rd = {0};
  uint8_t *payload = slots[0] + GOSTX_ESP_HDR_LEN;
  CHECK(tun_read(&w, payload, &rd) == 0 && rd.count == 3, "the read: %u packets", rd.count);
  for (unsigned k = 0; k < rd.count && k < 4; k++) {
    size_t got_len = 0;
    CHECK(tun_read_next(&rd, slots[k] + GOSTX_ESP_HDR_LEN, &got_len) == 1, "segment %u", k);
    size_t want_len = tunnel_gso_segment(&g, k, want);
    char what[48];
    snprintf(what, sizeof what, "segment %u of a super-packet read in place", k);
    CHECK(got_len == want_len, "%s: %zu bytes, want %zu", what, got_len, want_len);
    if (got_len == want_len) CHECK_BYTES(slots[k] + GOSTX_ESP_HDR_LEN, want, want_len, what);
  }
  CHECK((slots[2][GOSTX_ESP_HDR_LEN + 33] & 0x09) == 0x09, "the last segment lost FIN/PSH");
  close(fds[0]);
  close(fds[1]);
  return t_done();
}
