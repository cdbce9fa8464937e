/* gostx tunnel: the UDP sockets (one per worker on the local port,
 * SO_REUSEPORT, spread by the sender's source port; worker k > 0 sends from
 * the local port + k), the TUN queues (IFF_MULTI_QUEUE) and the file that
 * keeps outbound sequence numbers from ever being used twice. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
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

int tunnel_tun_open(const struct tunnel_config *cfg, int *fds, unsigned nq) {
  for (unsigned i = 0; i < nq; i++) {
    fds[i] = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_MULTI_QUEUE;
    memcpy(ifr.ifr_name, cfg->tun, strlen(cfg->tun));
    if (fds[i] < 0 || ioctl(fds[i], TUNSETIFF, &ifr) < 0) {
      cli_err("TUN %s: %s%s", cfg->tun, fds[i] < 0 ? "/dev/net/tun: " : "", strerror(errno));
      if (fds[i] >= 0) close(fds[i]);
      while (i--) close(fds[i]);
      return CLI_EXIT_FAIL;
    }
  }
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr;
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
  }
  if (s >= 0) close(s);
  return rc ? CLI_EXIT_FAIL : 0;
}

/* ---- outbound sequence numbers on disk ---- */

static int seq_save(const char *path, uint64_t v) {
  char tmp[TUNNEL_PATH_MAX + 8];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  char line[32];
  int n = snprintf(line, sizeof line, "%llu\n", (unsigned long long)v);
  int bad = write(fd, line, (size_t)n) != n || fsync(fd) < 0;
  bad |= close(fd) < 0;
  if (bad || rename(tmp, path) < 0) {
    unlink(tmp);
    return -1;
  }
  /* the rename itself durable: the directory synced */
  char dir[TUNNEL_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = 0;
  else if (slash) *slash = 0;
  else strcpy(dir, ".");
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return 0;
}

/* One decimal number from path into *v: 1 read, 0 absent, -1 after a message. */
static int read_number(const char *path, uint64_t *v) {
  FILE *f = fopen(path, "r");
  if (!f) {
    if (errno == ENOENT) return 0;
    cli_err("%s: %s", path, strerror(errno));
    return -1;
  }
  unsigned long long x;
  int ok = fscanf(f, "%llu", &x) == 1;
  fclose(f);
  if (!ok) {
    cli_err("%s: not a sequence-number file (one decimal number)", path);
    return -1;
  }
  *v = x;
  return 1;
}

static void window_path(const struct tunnel *t, char *out, size_t cap) {
  snprintf(out, cap, "%s.in", t->cfg.state);
}

int tunnel_window_load(struct tunnel *t) {
  char path[TUNNEL_PATH_MAX + 8];
  window_path(t, path, sizeof path);
  uint64_t top = 0;
  int r = read_number(path, &top);
  if (r < 0) return CLI_EXIT_FAIL;
  if (r > 0 && top) {
    /* everything up to the saved top counts as seen: packets captured before
     * a restart cannot be replayed after it */
    t->replay.top = top;
    memset(t->replay.bits, 0xff, sizeof t->replay.bits);
  }
  t->window_saved = top;
  return 0;
}

void tunnel_window_save(struct tunnel *t) {
  pthread_mutex_lock(&t->replay_lock);
  uint64_t top = t->replay.top;
  pthread_mutex_unlock(&t->replay_lock);
  if (top == t->window_saved) return;
  char path[TUNNEL_PATH_MAX + 8];
  window_path(t, path, sizeof path);
  if (seq_save(path, top) == 0) t->window_saved = top;
}

int tunnel_seq_load(struct tunnel *t) {
  const char *path = t->cfg.state;
  uint64_t saved = 0;
  if (read_number(path, &saved) < 0) return CLI_EXIT_FAIL;
  if (saved >= UINT64_MAX - TUNNEL_SEQ_STEP) {
    cli_err("%s: the outbound SA's sequence numbers are used up: new keys needed", path);
    return CLI_EXIT_FAIL;
  }
  /* everything up to saved may have gone out before: start after it, and
   * reserve the first step now so a broken disk shows at start */
  atomic_store(&t->seq_next, saved + 1);
  atomic_store(&t->seq_saved, saved);
  if (seq_save(path, saved + TUNNEL_SEQ_STEP) < 0) {
    cli_err("%s: %s", path, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  atomic_store(&t->seq_saved, saved + TUNNEL_SEQ_STEP);
  return 0;
}

uint64_t tunnel_seq_reserve(struct tunnel *t, unsigned n) {
  uint64_t first = atomic_fetch_add(&t->seq_next, n), last = first + n - 1;
  if (last < first) return 0; /* wrapped: never */
  if (last <= atomic_load(&t->seq_saved)) return first;
  pthread_mutex_lock(&t->seq_lock);
  int ok = 1;
  while (ok && last > atomic_load(&t->seq_saved)) {
    uint64_t next = atomic_load(&t->seq_saved) + TUNNEL_SEQ_STEP;
    if (next < last) next = last;
    ok = seq_save(t->cfg.state, next) == 0;
    if (ok) atomic_store(&t->seq_saved, next);
  }
  pthread_mutex_unlock(&t->seq_lock);
  return ok ? first : 0;
}
