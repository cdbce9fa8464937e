/* gostx tunnel: the UDP sockets (one per worker on the local port,
 * SO_REUSEPORT, spread by the sender's source port; worker k > 0 sends from
 * the local port + k) and the TUN queues (IFF_MULTI_QUEUE), on a device no
 * other tunnel or program holds. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <net/route.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tunnel.h"

/* A UDP socket on cfg->local's address and port `port`. */
static int udp_socket(const struct tunnel_config *cfg, int reuse, unsigned port) {
  int fd = socket(cfg->local.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  struct sockaddr_storage a = cfg->local;
  if (a.ss_family == AF_INET6)
    ((struct sockaddr_in6 *)&a)->sin6_port = htons((uint16_t)port);
  else
    ((struct sockaddr_in *)&a)->sin_port = htons((uint16_t)port);
  int one = 1, buf = 4 << 20;
  if (reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) goto fail;
  /* Best effort. Plain SO_RCVBUF is capped by net.core.rmem_max (208 KiB by
   * default: ~300 small packets, 15 ms of a busy link); the tunnel holds
   * CAP_NET_ADMIN for its TUN device anyway, which lets the FORCE forms
   * pass the cap. */
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf) < 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof buf) < 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
  if (bind(fd, (const struct sockaddr *)&a, cfg->local_len) < 0) goto fail;
  return fd;
fail:;
  int e = errno;
  close(fd);
  errno = e;
  return -1;
}

static unsigned local_port(const struct tunnel_config *cfg) {
  if (cfg->local.ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)&cfg->local)->sin6_port);
  return ntohs(((const struct sockaddr_in *)&cfg->local)->sin_port);
}

/* Which receiving socket a datagram goes to: its UDP source port mod n.
 * The peer's worker k sends from its port + k, so each of its workers (and
 * the flows its TUN queue carries) lands on one of our workers, and the
 * spread holds wherever the datagrams were received: a NIC's receive-side
 * scaling hashes those ports too. (Spreading by the receiving CPU worked
 * between namespaces, where the sender's CPU receives, and not behind a
 * NIC, which puts one peer's datagrams on one queue and one CPU.) The
 * program sees the datagram from its UDP payload on; the header is read
 * relative to the network header. */
static void spread_by_source_port(int fd, int family, unsigned n) {
  struct sock_filter v4[] = {
      {BPF_LDX | BPF_B | BPF_MSH, 0, 0, (uint32_t)SKF_NET_OFF}, /* X = IPv4 header length */
      {BPF_LD | BPF_H | BPF_IND, 0, 0, (uint32_t)SKF_NET_OFF},  /* A = UDP source port */
      {BPF_ALU | BPF_MOD | BPF_K, 0, 0, n},
      {BPF_RET | BPF_A, 0, 0, 0},
  };
  struct sock_filter v6[] = {
      {BPF_LD | BPF_H | BPF_ABS, 0, 0, (uint32_t)(SKF_NET_OFF + 40)},
      {BPF_ALU | BPF_MOD | BPF_K, 0, 0, n},
      {BPF_RET | BPF_A, 0, 0, 0},
  };
  struct sock_fprog prog = family == AF_INET6 ? (struct sock_fprog){.len = 3, .filter = v6}
                                              : (struct sock_fprog){.len = 4, .filter = v4};
  /* without it the kernel hashes the addresses and ports: one peer, one socket */
  setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof prog);
}

int tunnel_udp_open(const struct tunnel_config *cfg, int *fds, int *send_fds, unsigned nsock) {
  unsigned port = local_port(cfg);
  if (port + nsock - 1 > 65535) {
    cli_err("local %s: %u workers send from ports %u..%u: past 65535", cfg->local_s, nsock, port,
            port + nsock - 1);
    return CLI_EXIT_FAIL;
  }
  /* A socket without SO_REUSEPORT first: it fails when anyone holds the
   * port, including another tunnel (whose sockets would otherwise join ours). */
  int probe = udp_socket(cfg, 0, port);
  if (probe < 0) {
    cli_err("local %s: %s", cfg->local_s,
            errno == EADDRINUSE ? "address in use (another tunnel or program has the port)"
                                : strerror(errno));
    return CLI_EXIT_FAIL;
  }
  close(probe);
  unsigned made = 0, sent = 1;
  for (; made < nsock; made++) {
    fds[made] = udp_socket(cfg, 1, port);
    if (fds[made] < 0) {
      cli_err("local %s: %s", cfg->local_s, strerror(errno));
      goto fail;
    }
  }
  send_fds[0] = fds[0];
  for (; sent < nsock; sent++) {
    send_fds[sent] = udp_socket(cfg, 0, port + sent);
    if (send_fds[sent] < 0) {
      cli_err("local %s: worker %u sends from port %u: %s", cfg->local_s, sent, port + sent,
              errno == EADDRINUSE ? "address in use (threads = N sends from ports local..local+N-1)"
                                  : strerror(errno));
      goto fail;
    }
    /* nothing is sent to it: keep its receive queue from holding memory */
    int small = 0;
    setsockopt(send_fds[sent], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  }
  if (nsock > 1) spread_by_source_port(fds[0], cfg->local.ss_family, nsock);
  return 0;
fail:
  while (sent > 1) close(send_fds[--sent]);
  while (made) close(fds[--made]);
  return CLI_EXIT_FAIL;
}

void tunnel_udp_offload(struct tunnel *t, const int *fds, const int *send_fds, unsigned nsock) {
  atomic_store(&t->udp_gso, 0);
  t->udp_gro = 0;
  if (t->cfg.udp_offload_off) return;
  /* GSO: the segment size comes with each send (a cmsg); setting the
   * socket's default to 0 (none) only asks whether the kernel knows the
   * option. One that does not would ignore the cmsg and send a whole train
   * as one datagram, which the peer could not open. */
  int zero = 0, one = 1, gso = 1;
  for (unsigned i = 0; i < nsock && gso; i++)
    if (setsockopt(send_fds[i], SOL_UDP, UDP_SEGMENT, &zero, sizeof zero) < 0) {
      atomic_store(&t->gso_errno, errno);
      gso = 0;
    }
  atomic_store(&t->udp_gso, gso);
  /* GRO: on every receiving socket or on none (the workers' buffers are
   * sized for it) */
  int gro = 1;
  for (unsigned i = 0; i < nsock && gro; i++)
    if (setsockopt(fds[i], SOL_UDP, UDP_GRO, &one, sizeof one) < 0) {
      t->gro_errno = errno;
      gro = 0;
      for (unsigned k = 0; k < i; k++) setsockopt(fds[k], SOL_UDP, UDP_GRO, &zero, sizeof zero);
    }
  t->udp_gro = gro;
  if (!gso)
    fprintf(stderr, "gostx tunnel: UDP GSO not available (%s): each datagram sent on its own\n",
            strerror(atomic_load(&t->gso_errno)));
  if (!gro)
    fprintf(stderr, "gostx tunnel: UDP GRO not available (%s): datagrams received one by one\n",
            strerror(t->gro_errno));
}

/* Whether local's address is the wildcard (0.0.0.0 or ::). */
static int local_wildcard(const struct tunnel_config *cfg) {
  if (cfg->local.ss_family == AF_INET6)
    return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)&cfg->local)->sin6_addr);
  return ((const struct sockaddr_in *)&cfg->local)->sin_addr.s_addr == htonl(INADDR_ANY);
}

void tunnel_udp_pktinfo(struct tunnel *t, const int *fds, unsigned nsock, int ike) {
  t->pktinfo = 0;
  /* a fixed local is the address every datagram came to; without IKE no
   * one asks (the data path never reads it) */
  if (!ike || !local_wildcard(&t->cfg)) return;
  for (unsigned i = 0; i < nsock; i++)
    if (tunnel_pktinfo_on(fds[i], t->cfg.local.ss_family) < 0) {
      fprintf(stderr,
              "gostx tunnel: local %s: the destination of each datagram not available (%s): "
              "IKE's NAT detection hashes the wildcard address (a NAT in front of us)\n",
              t->cfg.local_s, strerror(errno));
      return;
    }
  t->pktinfo = 1;
}

/* config_off: the setting that turned it off, or NULL */
static void offload_line(FILE *f, const char *name, int on, int err, const char *config_off) {
  if (on)
    fprintf(f, "%s on\n", name);
  else
    fprintf(f, "%s off (%s)\n", name, config_off ? config_off : strerror(err));
}

void tunnel_offloads_print(struct tunnel *t, FILE *f) {
  const char *udp_off = t->cfg.udp_offload_off ? "udp_offload = off" : NULL;
  const char *tun_off = t->cfg.tun_offload_off ? "tun_offload = off" : NULL;
  offload_line(f, "udp_gso", atomic_load(&t->udp_gso), atomic_load(&t->gso_errno), udp_off);
  offload_line(f, "udp_gro", t->udp_gro, t->gro_errno, udp_off);
  offload_line(f, "tun_csum", t->tun_csum, t->csum_errno, tun_off);
  offload_line(f, "tun_tso", t->tun_tso, t->tso_errno, tun_off);
  offload_line(f, "tun_uso", t->tun_uso, t->uso_errno,
               tun_off || t->uso_errno != EINVAL ? tun_off : "not in this kernel: Linux 6.2+");
}

/* USO on TUN devices came with Linux 6.2; older headers lack the flags */
#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif

void tunnel_tun_offload(struct tunnel *t, int fd) {
  if (!t->tun_vnet) return;
  /* the most first: a kernel that lacks a flag refuses the whole set
   * (EINVAL), so each refusal drops the newest offloads */
  static const unsigned sets[] = {TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_USO4 | TUN_F_USO6,
                                  TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6, TUN_F_CSUM, 0};
  int err[3] = {0, 0, 0};
  unsigned i = 0;
  for (; i < 3; i++) {
    if (ioctl(fd, TUNSETOFFLOAD, (unsigned long)sets[i]) == 0) break;
    err[i] = errno;
  }
  if (i == 3) ioctl(fd, TUNSETOFFLOAD, 0UL); /* nothing offloaded; the headers stay */
  t->tun_uso = i == 0;
  t->tun_tso = i <= 1;
  t->tun_csum = i <= 2;
  t->uso_errno = err[0];
  t->tso_errno = err[1];
  t->csum_errno = err[2];
  if (i == 1 && err[0] != EINVAL)
    fprintf(stderr, "gostx tunnel: TUN USO refused (%s)\n", strerror(err[0]));
  if (i >= 2)
    fprintf(stderr, "gostx tunnel: TUN offloads refused (%s): %s\n", strerror(err[i - 1]),
            i == 2 ? "checksums only, no TSO" : "packets read one by one, checksums complete");
}

/* The device lock: a file under a directory only root can write, locked
 * with fcntl (the kernel frees it when its holder exits, however it exits;
 * F_GETLK names the holder). Device names live in a network namespace:
 * its inode is in the file's name. (An abstract unix socket was the lock
 * until 2026-11-28: any user could bind its name and keep the tunnel from
 * starting.) */
#define TUN_LOCK_DIR "/run/gostx"

/* Without /proc the inode is 0: one lock for every namespace, which errs
 * on the safe side. */
static void tun_lock_name(const struct tunnel_config *cfg, char *name, size_t cap) {
  struct stat ns;
  unsigned long long ino = stat("/proc/self/ns/net", &ns) == 0 ? (unsigned long long)ns.st_ino : 0;
  snprintf(name, cap, "tunnel-net%llu-%s.lock", ino, cfg->tun);
}

/* TUN_LOCK_DIR, made if absent: the fd, or -1 after a message. Refused
 * unless root owns it and only root can write it: another user's file
 * there could hold the lock. */
static int tun_lock_dir(const struct tunnel_config *cfg) {
  struct stat st;
  if (mkdir(TUN_LOCK_DIR, 0755) < 0 && errno != EEXIST) {
    cli_err("TUN %s: device lock: cannot make %s: %s", cfg->tun, TUN_LOCK_DIR, strerror(errno));
    return -1;
  }
  int fd = open(TUN_LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st) < 0) {
    cli_err("TUN %s: device lock: %s: %s", cfg->tun, TUN_LOCK_DIR, strerror(errno));
  } else if (st.st_uid != 0 || (st.st_mode & 022)) {
    cli_err("TUN %s: device lock: %s belongs to uid %u, mode %04o: only root may write it "
            "(others could hold the lock)",
            cfg->tun, TUN_LOCK_DIR, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
  } else {
    return fd;
  }
  if (fd >= 0) close(fd);
  return -1;
}

/* The refusal of a device whose lock (fd) another tunnel holds: its pid
 * said (unknown when it runs in another pid namespace). */
static void say_locked(const struct tunnel_config *cfg, int fd) {
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  char pid[32] = "pid unknown";
  if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK && fl.l_pid > 0)
    snprintf(pid, sizeof pid, "pid %ld", (long)fl.l_pid);
  cli_err("TUN %s: another gostx tunnel runs on this device (%s, in this network namespace): "
          "give each tunnel its own tun name",
          cfg->tun, pid);
}

/* The lock file `name` in dir locked: its fd; -1 after a message (held by
 * another: its pid said). A file its holder unlinked as it stopped, after
 * we opened it, is left for the new one. */
static int tun_lock_take(const struct tunnel_config *cfg, int dir, const char *name) {
  for (int tries = 0; tries < 8; tries++) {
    int fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fd < 0) {
      cli_err("TUN %s: device lock %s/%s: %s", cfg->tun, TUN_LOCK_DIR, name, strerror(errno));
      return -1;
    }
    if (fcntl(fd, F_SETLK, &fl) < 0) {
      if (errno == EACCES || errno == EAGAIN)
        say_locked(cfg, fd);
      else
        cli_err("TUN %s: device lock %s/%s: %s", cfg->tun, TUN_LOCK_DIR, name, strerror(errno));
      close(fd);
      return -1;
    }
    struct stat held, now;
    if (fstat(fd, &held) == 0 && fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
        held.st_ino == now.st_ino && held.st_dev == now.st_dev)
      return fd;
    close(fd);
  }
  cli_err("TUN %s: device lock %s/%s: keeps changing", cfg->tun, TUN_LOCK_DIR, name);
  return -1;
}

/* The lock on the device's name in this network namespace: the fd, or -1
 * after a message. */
static int tun_name_lock(const struct tunnel_config *cfg) {
  char name[64];
  tun_lock_name(cfg, name, sizeof name);
  int dir = tun_lock_dir(cfg);
  if (dir < 0) return -1;
  int fd = tun_lock_take(cfg, dir, name);
  close(dir);
  return fd;
}

void tunnel_tun_unlock(const struct tunnel_config *cfg, int lock) {
  char name[64], path[96];
  tun_lock_name(cfg, name, sizeof name);
  snprintf(path, sizeof path, "%s/%s", TUN_LOCK_DIR, name);
  unlink(path); /* still held: a tunnel that opened it meanwhile sees it gone, and retries */
  close(lock);
}

int tunnel_tun_open(const struct tunnel_config *cfg, int *fds, unsigned nq, int *lock) {
  *lock = tun_name_lock(cfg);
  if (*lock < 0) return CLI_EXIT_FAIL;
  /* A device that exists already was made persistent beforehand (ip tuntap
   * add ... multi_queue): taken. The lock above keeps other gostx tunnels
   * off it; a device another program holds without multi_queue refuses our
   * queues (EINVAL). */
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  memcpy(ifr.ifr_name, cfg->tun, strlen(cfg->tun));
  int exists = s >= 0 && ioctl(s, SIOCGIFFLAGS, &ifr) == 0;
  for (unsigned i = 0; i < nq; i++) {
    fds[i] = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    memset(&ifr, 0, sizeof ifr);
    /* the first queue makes the device unless it existed: IFF_TUN_EXCL
     * refuses one that another program made meanwhile */
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_MULTI_QUEUE | (i == 0 && !exists ? IFF_TUN_EXCL : 0) |
                    (cfg->tun_offload_off ? 0 : IFF_VNET_HDR);
    memcpy(ifr.ifr_name, cfg->tun, strlen(cfg->tun));
    if (fds[i] < 0 || ioctl(fds[i], TUNSETIFF, &ifr) < 0) {
      int e = errno;
      cli_err("TUN %s: %s%s", cfg->tun, fds[i] < 0 ? "/dev/net/tun: " : "",
              e == EBUSY              ? "made by another program meanwhile"
              : e == EINVAL && exists ? "the device exists without multi_queue (ip tuntap add "
                                        "DEV mode tun multi_queue makes one that can be used)"
                                      : strerror(e));
      if (fds[i] >= 0) close(fds[i]);
      while (i--) close(fds[i]);
      if (s >= 0) close(s);
      tunnel_tun_unlock(cfg, *lock);
      return CLI_EXIT_FAIL;
    }
  }
  memset(&ifr, 0, sizeof ifr);
  memcpy(ifr.ifr_name, cfg->tun, strlen(cfg->tun));
  ifr.ifr_mtu = (int)cfg->mtu;
  int rc = s < 0 || ioctl(s, SIOCSIFMTU, &ifr) < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0;
  if (!rc) {
    ifr.ifr_flags |= IFF_UP;
    rc = ioctl(s, SIOCSIFFLAGS, &ifr) < 0;
  }
  if (rc) {
    cli_err("TUN %s: MTU %u / up: %s", cfg->tun, cfg->mtu, strerror(errno));
    for (unsigned i = 0; i < nq; i++) close(fds[i]);
    tunnel_tun_unlock(cfg, *lock);
  }
  if (s >= 0) close(s);
  return rc ? CLI_EXIT_FAIL : 0;
}

/* sin for an IPv4 address (4 octets, network order) */
static void ipv4_sockaddr(struct sockaddr *sa, const uint8_t ip[4]) {
  struct sockaddr_in sin = {.sin_family = AF_INET};
  memcpy(&sin.sin_addr, ip, 4);
  memcpy(sa, &sin, sizeof sin);
}

int tunnel_inner_address_set(const struct tunnel_config *cfg, const uint8_t ip[4], char *err,
                             size_t cap) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  memcpy(ifr.ifr_name, cfg->tun, strlen(cfg->tun));
  static const uint8_t host[4] = {255, 255, 255, 255};
  const char *what = "socket";
  int rc = s < 0;
  /* SIOCSIFADDR replaces the device's (primary) IPv4 address: a new lease
   * takes the old one's place; the /32 keeps the pool's other hosts off
   * the device */
  if (!rc) ipv4_sockaddr(&ifr.ifr_addr, ip), what = "address";
  if (!rc) rc = ioctl(s, SIOCSIFADDR, &ifr) < 0;
  if (!rc) ipv4_sockaddr(&ifr.ifr_netmask, host), what = "netmask";
  if (!rc) rc = ioctl(s, SIOCSIFNETMASK, &ifr) < 0;
  for (size_t i = 0; !rc && i < cfg->n_inner_routes; i++) {
    const struct tunnel_prefix *p = &cfg->inner_routes[i];
    uint8_t mask[4] = {0};
    for (unsigned b = 0; b < p->len; b++) mask[b / 8] |= (uint8_t)(0x80 >> (b % 8));
    struct rtentry rt;
    memset(&rt, 0, sizeof rt);
    ipv4_sockaddr(&rt.rt_dst, p->addr);
    ipv4_sockaddr(&rt.rt_genmask, mask);
    rt.rt_flags = RTF_UP;
    rt.rt_dev = (char *)cfg->tun;
    what = "route";
    /* one already there (the admin's, or ours before a restart) serves */
    rc = ioctl(s, SIOCADDRT, &rt) < 0 && errno != EEXIST;
  }
  if (rc) snprintf(err, cap, "%s: %s", what, strerror(errno));
  if (s >= 0) close(s);
  return rc ? -1 : 0;
}
