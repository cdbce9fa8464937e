/* LD_PRELOAD library for tests/net/test_tunnel_offload.sh: sendmmsg refuses
 * a UDP GSO message (one with a SOL_UDP / UDP_SEGMENT cmsg) with the errno
 * named by $GOSTX_REFUSE_GSO (EIO, EINVAL or EMSGSIZE; EIO when unset), as
 * the kernel's udp_send_skb does for a route through IPsec (and, before
 * Linux 6.10, a device without checksum offload): the messages before it
 * are sent and counted in the return value, or -1 when it is the first.
 * Each refusal appends a line to the file $GOSTX_REFUSE_LOG when set.
 * Plain messages pass to the real call. Linux/glibc (dlsym RTLD_NEXT);
 * built only for the tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

static int is_gso(struct msghdr *h) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
    if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_SEGMENT) return 1;
  return 0;
}

static int refusal(void) {
  const char *e = getenv("GOSTX_REFUSE_GSO");
  if (e && !strcmp(e, "EINVAL")) return EINVAL;
  if (e && !strcmp(e, "EMSGSIZE")) return EMSGSIZE;
  return EIO;
}

static void log_refusal(void) {
  const char *path = getenv("GOSTX_REFUSE_LOG");
  if (!path) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  if (write(fd, "refused\n", 8) < 0) { /* a test log: nothing to do */
  }
  close(fd);
}

int sendmmsg(int fd, struct mmsghdr *msgs, unsigned int n, int flags) {
  int (*real)(int, struct mmsghdr *, unsigned int, int) =
      (int (*)(int, struct mmsghdr *, unsigned int, int))dlsym(RTLD_NEXT, "sendmmsg");
  unsigned k = 0;
  while (k < n && !is_gso(&msgs[k].msg_hdr)) k++;
  if (k == n) return real(fd, msgs, n, flags);
  if (k) return real(fd, msgs, k, flags); /* the kernel stops at the refused one */
  log_refusal();
  errno = refusal();
  return -1;
}
