/* LD_PRELOAD library for the tunnel's offload tests
 * (tests/net/test_tunnel_offload.sh, test_tunnel_tunoffload.sh): the
 * kernel's refusals that the test hosts cannot produce, each made as the
 * kernel makes it, each only when its variable is set:
 *   GOSTX_REFUSE_GSO=EIO|EINVAL|EMSGSIZE  sendmmsg refuses a UDP GSO message
 *     (a SOL_UDP / UDP_SEGMENT cmsg) with that errno, as udp_send_skb does
 *     (EIO: a route through IPsec, and before Linux 6.10 a device without
 *     checksum offload): the messages before it are sent and counted, -1
 *     when it is the first;
 *   GOSTX_REFUSE_TUN=uso|tso|all  TUNSETOFFLOAD refuses (EINVAL, as a
 *     kernel that lacks a flag) any set with USO (a kernel before 6.2), with
 *     TSO or USO, or any set but none;
 *   GOSTX_REFUSE_UDP_OPT=1  setsockopt(SOL_UDP, UDP_SEGMENT or UDP_GRO)
 *     fails with ENOPROTOOPT (a kernel before 4.18 / 5.0).
 * Each refusal appends a line (what was refused) to $GOSTX_REFUSE_LOG when
 * set. Linux/glibc (dlsym RTLD_NEXT); built only for the tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif

static void log_refusal(const char *what) {
  const char *path = getenv("GOSTX_REFUSE_LOG");
  if (!path) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  size_t n = strlen(what);
  char line[64];
  if (n > sizeof line - 1) n = sizeof line - 1;
  memcpy(line, what, n);
  line[n] = '\n';
  if (write(fd, line, n + 1) < 0) { /* a test log: nothing to do */
  }
  close(fd);
}

static int is_gso(struct msghdr *h) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
    if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_SEGMENT) return 1;
  return 0;
}

int sendmmsg(int fd, struct mmsghdr *msgs, unsigned int n, int flags) {
  int (*real)(int, struct mmsghdr *, unsigned int, int) =
      (int (*)(int, struct mmsghdr *, unsigned int, int))dlsym(RTLD_NEXT, "sendmmsg");
  const char *e = getenv("GOSTX_REFUSE_GSO");
  unsigned k = 0;
  while (e && k < n && !is_gso(&msgs[k].msg_hdr)) k++;
  if (!e || k == n) return real(fd, msgs, n, flags);
  if (k) return real(fd, msgs, k, flags); /* the kernel stops at the refused one */
  log_refusal("gso");
  errno = !strcmp(e, "EINVAL") ? EINVAL : !strcmp(e, "EMSGSIZE") ? EMSGSIZE : EIO;
  return -1;
}

int ioctl(int fd, unsigned long req, ...) {
  int (*real)(int, unsigned long, ...) = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
  va_list ap;
  va_start(ap, req);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  const char *e = getenv("GOSTX_REFUSE_TUN");
  if (e && req == TUNSETOFFLOAD) {
    unsigned long f = (unsigned long)arg, refused = TUN_F_USO4 | TUN_F_USO6;
    if (!strcmp(e, "tso")) refused |= TUN_F_TSO4 | TUN_F_TSO6;
    if (!strcmp(e, "all")) refused = ~0UL;
    if (f & refused) {
      log_refusal("tun");
      errno = EINVAL;
      return -1;
    }
  }
  return real(fd, req, arg);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len) {
  int (*real)(int, int, int, const void *, socklen_t) =
      (int (*)(int, int, int, const void *, socklen_t))dlsym(RTLD_NEXT, "setsockopt");
  if (getenv("GOSTX_REFUSE_UDP_OPT") && level == SOL_UDP && (name == UDP_SEGMENT || name == UDP_GRO)) {
    log_refusal(name == UDP_GRO ? "udp_gro" : "udp_gso");
    errno = ENOPROTOOPT;
    return -1;
  }
  return real(fd, level, name, val, len);
}
