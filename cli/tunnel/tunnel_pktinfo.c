/* gostx tunnel: where a datagram came to, and the address an answer goes
 * from, on a socket bound to a wildcard local (0.0.0.0, ::): IP_PKTINFO
 * and IPV6_PKTINFO (RFC 3542) both ways. IKE needs them: its NAT
 * detection hashes the address the peer sent to (RFC 7296 2.23), and the
 * peer takes its answers from that address only. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "tunnel.h"

int tunnel_pktinfo_on(int fd, int family) {
  int one = 1;
  return family == AF_INET6 ? setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof one)
                            : setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof one);
}

int tunnel_pktinfo_dest(struct msghdr *h, unsigned port, struct sockaddr_storage *to) {
  memset(to, 0, sizeof *to);
  for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
    if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
      struct in_pktinfo pi;
      struct sockaddr_in *s = (struct sockaddr_in *)to;
      memcpy(&pi, CMSG_DATA(c), sizeof pi);
      s->sin_family = AF_INET;
      s->sin_addr = pi.ipi_addr; /* the header's destination: what the peer hashed */
      s->sin_port = htons((uint16_t)port);
      return 1;
    }
    if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
      struct in6_pktinfo pi;
      struct sockaddr_in6 *s = (struct sockaddr_in6 *)to;
      memcpy(&pi, CMSG_DATA(c), sizeof pi);
      s->sin6_family = AF_INET6;
      s->sin6_addr = pi.ipi6_addr;
      s->sin6_port = htons((uint16_t)port);
      return 1;
    }
  }
  return 0;
}

void tunnel_pktinfo_source(struct msghdr *h, union tunnel_pktinfo_cmsg *c, const uint8_t *ip,
                           size_t ip_len) {
  if (ip_len != 4 && ip_len != 16) return;
  h->msg_control = c->buf;
  h->msg_controllen = 0;
  tunnel_pktinfo_append(h, ip, ip_len);
}

void tunnel_pktinfo_append(struct msghdr *h, const uint8_t *ip, size_t ip_len) {
  if (ip_len != 4 && ip_len != 16) return;
  /* ifindex 0 in both: the route to the peer picks the device */
  struct in_pktinfo p4;
  struct in6_pktinfo p6;
  memset(&p4, 0, sizeof p4);
  memset(&p6, 0, sizeof p6);
  memcpy(ip_len == 4 ? (void *)&p4.ipi_spec_dst : (void *)&p6.ipi6_addr, ip, ip_len);
  const void *pi = ip_len == 4 ? (const void *)&p4 : (const void *)&p6;
  const size_t n = ip_len == 4 ? sizeof p4 : sizeof p6;
  /* msg_controllen stays a sum of CMSG_SPACEs: the next header aligned */
  struct cmsghdr *m = (struct cmsghdr *)(void *)((char *)h->msg_control + h->msg_controllen);
  memset(m, 0, CMSG_SPACE(n));
  h->msg_controllen += CMSG_SPACE(n);
  m->cmsg_level = ip_len == 4 ? IPPROTO_IP : IPPROTO_IPV6;
  m->cmsg_type = ip_len == 4 ? IP_PKTINFO : IPV6_PKTINFO;
  m->cmsg_len = CMSG_LEN(n);
  memcpy(CMSG_DATA(m), pi, n);
}
