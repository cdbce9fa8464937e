/* gostx tunnel: IP packets from a TUN device carried in ESP (RFC 4303, the
 * RFC 9227 transforms of lib/esp) inside UDP (RFC 3948), one worker thread
 * per queue. docs/TUNNEL.md describes the configuration and the counters. */
#ifndef GOSTX_CLI_TUNNEL_H
#define GOSTX_CLI_TUNNEL_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "tunnel_gso.h"
#include "tunnel_routes.h"
#include "tunnel_sa.h"

#define TUNNEL_PATH_MAX 512
#define TUNNEL_MAX_THREADS 64
/* packets sealed or opened per call: a 64 KiB super-packet's segments
 * (48 at MTU 1400) in one burst, so one sendmmsg carries it and the far
 * end joins it into one TUN write again */
#define TUNNEL_BURST 64
#define TUNNEL_RX_BUFS 32 /* buffers per recvmmsg (with GRO, each a train) */
#define TUNNEL_SLOT 2048 /* one packet buffer: the MTU plus the ESP overhead fit */
/* the largest IKE message (GOSTX_IKE_MSG_MAX) and its non-ESP marker: a
 * receive buffer's size without GRO, with IKE (IKE_AUTH with certificates
 * comes on the data port too) */
#define TUNNEL_IKE_MSG_MAX 8192
#define TUNNEL_IKE_SLOT (4 + TUNNEL_IKE_MSG_MAX)
#define TUNNEL_MTU_MAX (TUNNEL_SLOT - GOSTX_ESP_OVERHEAD_MAX - 64)
/* Sender sequence numbers are reserved on disk in steps of this many, so a
 * restart never reuses one (a reused number would reuse an MGM nonce). */
#define TUNNEL_SEQ_STEP ((uint64_t)1 << 20)
/* The inbound window's top is reserved on disk ahead of what is accepted by
 * a margin that follows the rate: the packets accepted in about a second
 * (counted, not the span of their numbers: a peer's restart jumps 2^20), at
 * least this many, at most TUNNEL_SEQ_STEP. After a crash everything up to
 * the reservation counts as seen, so the margin is what a crash can cost. */
#define TUNNEL_IN_MARGIN_MIN 16
/* The reservations are renewed by the main thread this often, ahead of the
 * workers: they write the state file themselves only when a peer's rate
 * doubles within a tick (tunnel_state.c, tunnel_state_tick). */
#define TUNNEL_STATE_TICK_MS 250
#define TUNNEL_FP_LEN 32 /* a key fingerprint in the state file */
/* UDP offloads (docs/TUNNEL.md, "UDP offloads"): a received buffer holds a
 * whole GRO-coalesced datagram train, at most 64 KiB; one GSO send carries
 * at most this many bytes of datagrams (IP's 64 KiB less the headers). */
#define TUNNEL_GRO_BUF 65536
#define TUNNEL_GSO_MAX 65000
/* TUN offloads: a super-packet read is at most an IPv6 packet of the
 * largest payload length (the kernel's own limit, 64 KiB, is below) */
#define TUNNEL_SUPER_MAX (65535 + 40)
/* the joined packets written back: a virtio header and at most 64 KiB */
#define TUNNEL_GRO_OUT (TUNNEL_VNET_HDR_LEN + 65535)

/* keying = static | ikev2; ike_auth = psk | cert */
enum { TUNNEL_KEYING_STATIC = 0, TUNNEL_KEYING_IKEV2 = 1 };
enum { TUNNEL_IKE_PSK = 1, TUNNEL_IKE_CERT = 2 };
/* revocation = off | warn | require (docs/TUNNEL.md): the peer's path
 * looked up in the CRLs of the crl lines (at most TUNNEL_CRL_PATHS) */
enum { TUNNEL_REVOCATION_OFF = 0, TUNNEL_REVOCATION_WARN, TUNNEL_REVOCATION_REQUIRE };
#define TUNNEL_CRL_PATHS 8
#define TUNNEL_IKE_PORT 500
#define TUNNEL_REKEY_SECONDS 3600 /* the Child SA's (strongSwan's rekey_time) */
/* ike_rekey_seconds unset: this many rekey_seconds (4 h, strongSwan's IKE SA rekey_time) */
#define TUNNEL_IKE_REKEY_EVERY 4
#define TUNNEL_DPD_SECONDS 30
#define TUNNEL_NAT_KEEPALIVE_SECONDS 20 /* strongSwan's keep_alive */
#define TUNNEL_FRAGMENT_SIZE 1280       /* strongSwan's fragment_size: an IP datagram's octets */
/* ID types (RFC 7296 3.5) */
enum { TUNNEL_ID_IPV4 = 1, TUNNEL_ID_FQDN = 2, TUNNEL_ID_RFC822 = 3, TUNNEL_ID_IPV6 = 5,
       TUNNEL_ID_DN = 9 };
/* KE methods (RFC 9385 6) */
enum { TUNNEL_KE_256 = 33, TUNNEL_KE_512 = 34 };
#define TUNNEL_ID_MAX 512 /* an ID's data: a DER DN of a config line fits */
/* An IKE identity (RFC 7296 3.5) as the config wrote it (text) and as the
 * ID payload carries it (type, data). */
struct tunnel_ike_id {
  uint8_t type; /* GOSTX_IKE_ID_*; 0: not given */
  uint8_t data[TUNNEL_ID_MAX];
  size_t len;
  char text[256];
};

/* A gateway's peer: a [peer NAME] section of the config (docs/TUNNEL.md,
 * "Gateway (many peers)"): where it is, its static SA pair, and the inner
 * prefixes it owns (its traffic selectors, RFC 7296 2.9: what it may send
 * from and what is sent to it). */
#define TUNNEL_PEER_NAME_MAX 32
#define TUNNEL_POOL_IDS 8   /* a [pool]'s remote_id patterns */
#define TUNNEL_POOL_PSKS 16 /* a [pool]'s psk lines: users of a PSK each */
#define TUNNEL_TS_MAX 16
struct tunnel_peer_config {
  char name[TUNNEL_PEER_NAME_MAX];
  unsigned line, ts_line; /* its section's first line, its remote_ts line */
  struct sockaddr_storage peer;
  socklen_t peer_len;
  char peer_s[128];
  gostx_esp_transform transform;
  uint32_t spi_out, spi_in;
  char key_out[TUNNEL_PATH_MAX], key_in[TUNNEL_PATH_MAX];
  struct tunnel_prefix ts[TUNNEL_TS_MAX];
  size_t nts;
  /* keying = ikev2 in the section (docs/TUNNEL.md, "An IKEv2 site"): its
   * IKE settings as a config of their own (allocated: tunnel_config_free),
   * no SPIs or keys above; NULL: a static peer */
  struct tunnel_config *ike;
};

struct tunnel_config {
  char path[TUNNEL_PATH_MAX]; /* the config file, for messages */
  int keying;                 /* TUNNEL_KEYING_* */
  struct sockaddr_storage local, peer;
  socklen_t local_len, peer_len;
  char local_s[128], peer_s[128];
  char tun[16];
  unsigned mtu, threads;
  gostx_esp_transform transform;
  uint32_t spi_out, spi_in;
  char key_out[TUNNEL_PATH_MAX], key_in[TUNNEL_PATH_MAX];
  char state[TUNNEL_PATH_MAX], status[TUNNEL_PATH_MAX];
  uint64_t limit; /* 0: the transform's own */
  int esn_off;    /* esn = off: 32-bit sequence numbers, AAD SPI | SN */
  int insecure_key_file; /* key files that group or others can access: used */
  int udp_offload_off;   /* udp_offload = off: no UDP GSO or GRO */
  int tun_offload_off;   /* tun_offload = off: no virtio headers, no TUN offloads */
  int timing;            /* timing = yes: the workers time their phases (--status) */
  /* keying = ikev2 (docs/TUNNEL.md, "Keying with IKEv2") */
  int ike_auth; /* TUNNEL_IKE_* */
  char psk[TUNNEL_PATH_MAX], cert[TUNNEL_PATH_MAX], key[TUNNEL_PATH_MAX], ca[TUNNEL_PATH_MAX];
  char key_pass[TUNNEL_PATH_MAX]; /* as -passin: pass:, env:, file:, fd: */
  char crl[TUNNEL_CRL_PATHS][TUNNEL_PATH_MAX]; /* CRL files or folders of them, in order */
  size_t n_crl;
  int revocation; /* TUNNEL_REVOCATION_*; unset: require with crl lines, else off */
  struct tunnel_ike_id local_id, remote_id;
  uint16_t encr[2]; /* the ENCRs offered, in order; the responder takes encr[0] only */
  size_t n_encr;
  uint16_t group; /* the KE method sent first (33 or 34; both are offered) */
  int ike_initiate; /* 1: this side starts the exchange (both may) */
  unsigned ike_port;
  /* the Child SA's lifetimes (time, bytes either way), the IKE SA's, the
   * liveness check's interval; 0: never */
  uint64_t rekey_seconds, rekey_bytes, ike_rekey_seconds, dpd_seconds;
  int encap; /* encap = yes: IKE on the data port from IKE_AUTH on, NAT or not (strongSwan's) */
  uint64_t nat_keepalive_seconds; /* behind a NAT: a keepalive this often (0: never) */
  /* fragmentation = yes: IKE messages larger than fragment_size (the IP
   * datagram) go as RFC 7383 fragments when the peer supports them */
  int fragmentation;
  unsigned fragment_size;
  /* a [peer] section's remote_ts while it is read (then its peer's) */
  struct tunnel_prefix ts[TUNNEL_TS_MAX];
  size_t nts;
  /* the [peer] sections, in order (none: the point-to-point tunnel);
   * allocated: tunnel_config_free */
  struct tunnel_peer_config *peers;
  size_t npeers;
  size_t nsites; /* of them the IKEv2 ones, last (the static ones first, in order) */
  /* A [pool NAME] section (docs/TUNNEL.md, "Remote users"): IKEv2 users
   * who authenticate by certificate, their ID matching one of ids (one
   * remote_id line each), each given an inner address of pool_net by CP,
   * and the dns servers. Its settings as a config of keying = ikev2 of
   * their own (allocated: tunnel_config_free); these fields are the
   * section's while it is read, then pool's. */
  struct tunnel_config *pool;
  char pool_name[TUNNEL_PEER_NAME_MAX];
  unsigned pool_line;
  struct tunnel_prefix pool_net;
  uint8_t dns[2][4];
  size_t n_dns;
  char ids[TUNNEL_POOL_IDS][256];
  size_t n_ids;
  /* its psk lines, "ID FILE": a user of that ID exactly, by that PSK */
  struct tunnel_user_psk {
    struct tunnel_ike_id id;
    char path[TUNNEL_PATH_MAX];
  } user_psk[TUNNEL_POOL_PSKS];
  size_t n_user_psk;
  /* its address lines, "ID ADDRESS": that user's inner address always
   * (outside the pool, routed as the pool is) */
  struct tunnel_user_addr {
    struct tunnel_ike_id id;
    uint8_t ip[4];
    unsigned line;
  } user_addr[TUNNEL_POOL_PSKS];
  size_t n_user_addr;
  /* keying = ikev2, a remote user: an inner address asked of the gateway
   * (request_address = yes: a CFG_REQUEST) */
  int request_address;
  /* with it: the IPv4 prefixes routed into the device once the address is
   * on it (inner_routes = 10.0.0.0/8, ...) */
  struct tunnel_prefix inner_routes[TUNNEL_TS_MAX];
  size_t n_inner_routes;
};

/* The IKEv2 [peer] section i of cfg (i < cfg->nsites: after the static ones). */
static inline const struct tunnel_peer_config *tunnel_site_cfg(const struct tunnel_config *cfg,
                                                               size_t i) {
  return &cfg->peers[cfg->npeers - cfg->nsites + i];
}

/* Counters of one worker; the status sums them. */
struct tunnel_counters {
  _Atomic uint64_t tx_packets, tx_bytes, tx_errors, tx_dropped, tx_gso, rx_gro;
  _Atomic uint64_t rx_packets, rx_bytes, rx_auth, rx_replay, rx_malformed, rx_spi, rx_dummy,
      rx_keepalive, rx_dropped, tun_errors;
  /* IKE datagrams (the non-ESP marker) handed to the IKE thread, and those
   * dropped because its queue was full */
  _Atomic uint64_t rx_ike, rx_ike_dropped;
  /* TUN offloads: super-packets read (each cut into segments),
   * checksum-partial packets completed, writes of packets joined */
  _Atomic uint64_t tun_gso_in, tun_csum_in, tun_gso_out;
  /* timing = yes: the worker's CPU time (its thread's clock, so time
   * preempted is not counted) in each phase of the two paths: the TUN
   * reads, sealing, sendmmsg; recvmmsg, opening, the TUN writes (joins
   * included), in nanoseconds. What the worker's CPU time holds beyond
   * them is the rest: segmenting, checks, poll, bookkeeping. */
  _Atomic uint64_t ns_tun_read, ns_seal, ns_udp_send, ns_udp_recv, ns_open, ns_tun_write;
  /* a gateway's: packets to an inner address no peer owns (dropped, never
   * sent in clear), and authentic ones from a peer with an inner source
   * outside its remote_ts */
  _Atomic uint64_t tx_noroute, rx_selector;
};

struct tunnel;

struct tunnel_ike; /* ike/ike_daemon.h */
struct gostx__ike_mgr_child; /* lib/ike/manager.h */

struct tunnel_worker {
  struct tunnel *t;
  unsigned idx;
  int tun_fd, udp_fd, send_fd; /* send_fd: udp_fd for worker 0 */
  /* where the worker sends: its copy of t->peer_now as of peer_gen */
  struct sockaddr_storage peer;
  unsigned peer_gen;
  pthread_t thread;
  /* odd while the worker holds SA pointers (tunnel_sa.c's grace period) */
  _Atomic uint64_t sa_epoch;
  struct tunnel_counters c;
  /* TUNNEL_BURST slots of TUNNEL_SLOT (TUN side), TUNNEL_RX_BUFS of rx_slot
   * (UDP side: TUNNEL_GRO_BUF with GRO), then plain; buf_len in all */
  uint8_t *buf;
  size_t rx_slot, buf_len;
  uint8_t *plain; /* TUNNEL_BURST slots: the payloads of the packets being opened */
  uint8_t *super; /* with t->tun_vnet: TUNNEL_SUPER_MAX for a super-packet read */
  uint8_t *gro;   /* with t->tun_vnet: TUNNEL_GRO_OUT for the packets joined */
};

/* A static SA pair and the state file that reserves its numbers
 * (tunnel_state.c): the point-to-point tunnel's one, or a gateway peer's. */
struct tunnel_state {
  char path[TUNNEL_PATH_MAX + 48]; /* the state file (a peer's: STATE.peer.NAME) */
  /* the SAs whose numbers it reserves (changed by a reload, under lock) */
  _Atomic(struct tunnel_sa *) st_out;
  _Atomic(struct tunnel_sa *) st_in;
  uint8_t fp_out[TUNNEL_FP_LEN], fp_in[TUNNEL_FP_LEN]; /* the SAs' key fingerprints */
  int legacy; /* the file is of the one-number format (before 2026-11-26) */
  /* the outbound SA's highest sequence number reserved on disk (all up to
   * it may have been used; st_out->seq_used: handed out) */
  _Atomic uint64_t seq_saved;
  /* the inbound SA: the highest sequence number reserved on disk (all up
   * to it may have been accepted), the margin the next reservation takes,
   * and how many packets it had accepted by the last tick (main thread;
   * st_in->accepted: now) */
  _Atomic uint64_t in_saved;
  _Atomic uint64_t in_margin;
  _Atomic uint64_t in_accepted_tick;
  pthread_mutex_t lock;   /* one writer of the file at a time */
  atomic_int save_failed; /* the file could not be written (said once) */
  /* its writes: all, and those by a worker (numbers past the reservation:
   * the rate more than doubled within a tick) */
  _Atomic uint64_t writes, writes_by_worker;
};

struct tunnel {
  struct tunnel_config cfg;
  /* the data path's SAs (tunnel_sa.h): the one that seals, and the
   * inbound ones by SPI; sa_lock serialises the keying side's changes */
  _Atomic(struct tunnel_sa *) sa_out;
  _Atomic(struct tunnel_sa *) sa_in[TUNNEL_SA_IN_MAX];
  pthread_mutex_t sa_lock;
  /* the SPI of the last ESP packet of no inbound SA, 0 once read: the IKE
   * thread, holding no IKE SA, tells the peer (RFC 7296 1.5 INVALID_SPI) */
  _Atomic uint32_t spi_unknown;
  /* the static keys' SA pair and its state file */
  struct tunnel_state sf;
  /* a reload in progress (tunnel_reload.c, main thread): the new outbound
   * SA until it seals, the inbound SA it replaces until that is retired */
  struct tunnel_sa *next_out;
  uint32_t old_spi_in;
  int old_in_live;
  uint64_t old_in_accepted;
  long long reload_at, switched_at, old_in_moved_at; /* CLOCK_MONOTONIC seconds */
  int64_t state_tick_ms; /* the state files' last tick (CLOCK_MONOTONIC ms; main thread) */
  int new_keys; /* --new-keys: the keys that the state file does not know are new */
  /* keying = static with [peer] sections: the gateway's peers (tunnel_gw.h) */
  struct tunnel_gw *gw;
  int lock_fd;                /* STATE.lock, held while the tunnel runs */
  atomic_int stop;
  /* UDP offloads: GSO on the sends until the kernel refuses one (then
   * gso_errno says why, and it stays off); GRO on the receiving sockets.
   * *_errno: why the offload is off (0: udp_offload = off or on). */
  atomic_int udp_gso, gso_errno;
  int udp_gro, gro_errno;
  /* local is a wildcard and IKE runs on the data port: each datagram's
   * destination address comes with it (IP_PKTINFO, IPV6_RECVPKTINFO), for
   * IKE's NAT detection and the address its answers go from */
  int pktinfo;
  /* TUN offloads: tun_vnet, every read and write has a virtio_net_hdr in
   * front (tun_offload on); tun_csum / tun_tso / tun_uso, what
   * TUNSETOFFLOAD took; *_errno, why one is off (0: tun_offload = off). */
  int tun_vnet, tun_csum, tun_tso, tun_uso, csum_errno, tso_errno, uso_errno;
  unsigned nworkers;
  struct tunnel_ike *ike; /* keying = ikev2: the IKE daemon */
  struct tunnel_ra *ra;   /* a gateway's [pool]: its remote users' IKE daemon */
  /* keying = ikev2: the workers hand IKE datagrams (the non-ESP marker,
   * RFC 3948 2.2) to the IKE thread through this socketpair ([1] theirs,
   * [0] its; -1: none): a bounded queue, nothing allocated per packet */
  int ike_pair[2];
  /* the IKE thread runs: the workers stay after stop until it ends, to hand
   * it the answer to its Delete at shutdown when IKE is on the data port */
  atomic_int ike_on;
  /* where ESP goes: cfg.peer, or the peer's address as a NAT maps it
   * (learned by IKE, RFC 7296 2.23); the workers copy it when peer_gen
   * moves */
  pthread_mutex_t peer_lock;
  struct sockaddr_storage peer_now;
  atomic_uint peer_gen;
  struct tunnel_worker w[TUNNEL_MAX_THREADS];
};

/* cli/tunnel/tunnel_config.c: reads CONFIG; 0, or CLI_EXIT_USAGE after one
 * line (cfg then holds nothing allocated). */
int tunnel_config_read(const char *path, struct tunnel_config *cfg);
/* Frees what tunnel_config_read allocated in cfg (the peers). */
void tunnel_config_free(struct tunnel_config *cfg);
/* A gateway's running config once the IKE thread's sites are made of its
 * IKEv2 sections (ike_sites.c copies what runs): those sections' own
 * configs freed, ike NULL (about 47 KiB each), nsites kept. */
void tunnel_config_sites_shed(struct tunnel_config *cfg);
/* The config of peer p's SA pair as a point-to-point config: cfg's
 * settings with p's address, transform, SPIs and key files (for
 * tunnel_load_keys). */
void tunnel_config_of_peer(const struct tunnel_config *cfg, const struct tunnel_peer_config *p,
                           struct tunnel_config *out);
/* The config name of a transform ("kuznyechik-mgm-ktree", ...). */
const char *tunnel_transform_name(gostx_esp_transform t);
/* The SAs from the key files (32 bytes, or 32 + salt: raw or hex). 0, or
 * CLI_EXIT_USAGE / CLI_EXIT_FAIL after one line. */
int tunnel_load_keys(const struct tunnel_config *cfg, gostx_esp_sa *out, gostx_esp_sa *in);
/* A secret file (key, PSK) into raw (cap bytes), refused as key files are
 * (not regular, or open to group and others without insecure_key_file):
 * its length, or -1 after one line. */
long tunnel_read_key_file(const struct tunnel_config *cfg, const char *path, uint8_t *raw,
                          size_t cap);
/* Opens path read-only without blocking (a FIFO does not hang) and refuses
 * anything but a regular file: the fd with *st filled, or -1 with errno
 * set (EINVAL: not a regular file; *st then says what it is). */
int tunnel_open_regular(const char *path, struct stat *st);
/* Reads fd to its end, up to cap bytes, with read(2) (no stdio copy of a
 * secret): the count, or -1 with errno set. */
long tunnel_read_all(int fd, void *buf, size_t cap);

/* cli/tunnel/ike/ike_daemon.c: keying = ikev2. prepare: the PSK, or the key,
 * certificates and CA, read and checked (--check stops here); 0, or
 * CLI_EXIT_USAGE / CLI_EXIT_FAIL after one line. start: the IKE socket
 * (ike_port), t->ike_pair and the thread, which initiates (ike_initiate =
 * yes) and answers until t->stop (also on data_fd, the data port's
 * socket, behind the non-ESP marker); installed: the first Child SA is in
 * the data path (the workers read the TUN device from then on); status:
 * its "ike_..." and "child_..." lines. */
int tunnel_ike_prepare(struct tunnel *t);
int tunnel_ike_start(struct tunnel *t, int data_fd);
int tunnel_ike_installed(struct tunnel *t);
void tunnel_ike_stop(struct tunnel *t);
void tunnel_ike_status(struct tunnel *t, FILE *f);
void tunnel_ike_free(struct tunnel *t);
/* cli/tunnel/ike/ike_gateway.c: a gateway's [pool] section, its remote
 * users' IKE (docs/TUNNEL.md, "Remote users"): prepare reads the pool's
 * certificate, key and CA (0, or CLI_EXIT_* after one line); start, on
 * the data port (data_fd, IKE behind the non-ESP marker), t->ike_pair and
 * the thread; stop, free. Nothing without a [pool]. */
int tunnel_ra_prepare(struct tunnel *t);
int tunnel_ra_start(struct tunnel *t, int data_fd);
void tunnel_ra_stop(struct tunnel *t);
void tunnel_ra_free(struct tunnel *t);
/* SIGHUP (main thread): the [pool]'s crl lines read again, for every
 * remote user's IKE_AUTHs from then on (none: nothing). */
void tunnel_ra_reload_crls(struct tunnel *t);
/* SIGHUP (main thread), a gateway's IKEv2 [peer] sections of next against
 * the running sites, by name: stage makes the plan (an added or changed
 * site's material read, its slot picked; counts: added, changed, removed)
 * and returns 0, or nonzero after a line (nothing kept); then commit hands
 * it to the IKE thread, which ends the removed and changed sites' IKE SAs
 * (a Delete sent), frees their slots and fills the added and changed
 * ones, and returns 0 once it has (-1: not taken in 5 s, said, nothing
 * done); or unstage drops it. */
int tunnel_ra_sites_stage(struct tunnel *t, const struct tunnel_config *next, size_t counts[3]);
int tunnel_ra_sites_commit(struct tunnel *t);
void tunnel_ra_sites_unstage(struct tunnel *t);
/* SIGHUP (main thread): the CRLs of the crl lines read again; the IKE
 * thread takes them for the IKE_AUTHs from then on. The old ones stay, and
 * a line says why, when one cannot be read. */
void tunnel_ike_reload_crls(struct tunnel *t);
/* Where ESP goes from now on (the workers pick it up at their next send). */
void tunnel_peer_set(struct tunnel *t, const struct sockaddr_storage *to);
/* cli/tunnel/tunnel_install.c: a Child SA's keys into t's data path,
 * make-before-break, in two halves: the new inbound SA linked, its
 * outbound SA returned unlinked (NULL on failure); later the switch to it
 * (0, or -1 with out freed). */
struct tunnel_sa;
struct tunnel_sa *tunnel_ike_add_child(struct tunnel *t, const struct gostx__ike_mgr_child *c);
/* One SA of the Child SA c, not linked (NULL on failure). */
struct tunnel_sa *tunnel_ike_child_sa(const struct tunnel *t,
                                     const struct gostx__ike_mgr_child *c,
                                     enum tunnel_sa_dir dir);
int tunnel_ike_switch(struct tunnel *t, struct tunnel_sa *out,
                      const struct gostx__ike_mgr_child *c);

/* cli/tunnel/tunnel_net.c */
/* Binds nsock UDP sockets to cfg->local with SO_REUSEPORT (incoming
 * datagrams spread by their source port) into fds, and the sockets the
 * workers send from into send_fds: worker 0 its receiving socket, worker
 * k > 0 one of its own on the local port + k. 0 or CLI_EXIT_FAIL after one
 * line. */
int tunnel_udp_open(const struct tunnel_config *cfg, int *fds, int *send_fds, unsigned nsock);
/* Turns on UDP GSO for the send_fds and UDP GRO for the fds unless the
 * config says udp_offload = off: t->udp_gso / t->udp_gro. A kernel without
 * them (UDP_SEGMENT: 4.18, UDP_GRO: 5.0) leaves them off, said in one line. */
void tunnel_udp_offload(struct tunnel *t, const int *fds, const int *send_fds, unsigned nsock);
/* With a wildcard local and IKE on the data port (ike: the tunnel runs
 * it), the receiving fds told to give each datagram's destination address
 * (t->pktinfo; a kernel that refuses is said in one line, and IKE then
 * hashes the wildcard as before). */
void tunnel_udp_pktinfo(struct tunnel *t, const int *fds, unsigned nsock, int ike);
/* cli/tunnel/tunnel_pktinfo.c: fd (of family AF_INET or AF_INET6) told to give each datagram's
 * destination address: 0, or -1 with errno set. */
int tunnel_pktinfo_on(int fd, int family);
/* The destination of a datagram received with h (its IP_PKTINFO or
 * IPV6_PKTINFO cmsg) into *to with port `port` (the socket's): 1, or 0
 * when h has none. */
int tunnel_pktinfo_dest(struct msghdr *h, unsigned port, struct sockaddr_storage *to);
/* A cmsg that has a sendmsg go from the local address ip (4 or 16
 * octets: IP_PKTINFO's ipi_spec_dst, IPV6_PKTINFO's ipi6_addr), put on h
 * in c; ip_len 0: h left to the kernel's choice. */
union tunnel_pktinfo_cmsg {
  _Alignas(struct cmsghdr) char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
};
void tunnel_pktinfo_source(struct msghdr *h, union tunnel_pktinfo_cmsg *c, const uint8_t *ip,
                           size_t ip_len);
/* The same cmsg appended after h's (h->msg_control has CMSG_SPACE of an
 * in6_pktinfo free past msg_controllen); ip_len 0: nothing. */
void tunnel_pktinfo_append(struct msghdr *h, const uint8_t *ip, size_t ip_len);
/* "udp_gso on" / "udp_gro off (why)" / "tun_tso on" ... lines into f. */
void tunnel_offloads_print(struct tunnel *t, FILE *f);
/* Opens nq queues of the TUN device cfg->tun, sets its MTU and brings it
 * up; refuses a device that another tunnel or program holds. *lock: the
 * device lock (/run/gostx, root's), held while the tunnel runs: given back
 * with tunnel_tun_unlock when the fds are closed. */
int tunnel_tun_open(const struct tunnel_config *cfg, int *fds, unsigned nq, int *lock);
/* A remote user's inner address (request_address = yes: the one the
 * gateway gave) as the device's own, a /32, and cfg->inner_routes into the
 * device: 0, or -1 with what failed in err. */
int tunnel_inner_address_set(const struct tunnel_config *cfg, const uint8_t ip[4], char *err,
                             size_t cap);
/* Removes the device lock's file and closes it. */
void tunnel_tun_unlock(const struct tunnel_config *cfg, int lock);
/* With tun_offload on (the queues opened with IFF_VNET_HDR: t->tun_vnet):
 * asks the device (fd: one of its queues) for checksum offload, TSO and,
 * where the kernel has it (6.2), USO; what it takes into t->tun_csum,
 * tun_tso, tun_uso. A refusal leaves that one off, said in one line. */
void tunnel_tun_offload(struct tunnel *t, int fd);

/* cli/tunnel/tunnel_state.c: the state files (docs/TUNNEL.md, "The state
 * file"): an SA pair's key fingerprints, its outbound sequence numbers and
 * its inbound window's top, each reserved ahead of use. The point-to-point
 * tunnel has one (t->sf), a gateway one per peer (STATE.peer.NAME); the
 * calls on t cover them all. */
/* The key fingerprints of sf's SAs into sf->fp_out / sf->fp_in. */
int tunnel_fingerprints(struct tunnel_state *sf);
/* Reads the state files and checks them against the keys, the limit and
 * t->new_keys: 0, or CLI_EXIT_FAIL after one line. With run, first takes
 * STATE.lock (held until exit); without (--check), changes nothing. */
int tunnel_state_load(struct tunnel *t, int run);
/* Once the sockets and the TUN device are open: writes the state files
 * with the first reservations (a disk that cannot take them shows at start). */
int tunnel_state_begin(struct tunnel *t);
/* A gateway peer added by a SIGHUP (its SAs and fingerprints in sf): its
 * state file read as at a start with --new-keys where it is missing (the
 * peer starts at 1), refused when it holds other keys' state, then its
 * first reservation written. 0, or CLI_EXIT_FAIL after one line. */
int tunnel_state_add(struct tunnel *t, struct tunnel_state *sf);
/* A gateway peer removed by a SIGHUP (no worker reaches it any more): its
 * exact numbers written, as at a clean stop, so that a peer of these keys
 * added again goes on from them. */
void tunnel_state_stop(struct tunnel_state *sf);
/* The first outbound number after the state file's skipped (see
 * tunnel_state.c: why a start skips one). */
void tunnel_state_skip_one(struct tunnel_state *sf);
/* Whether the tunnel of this state file runs (STATE.lock held): 1, 0, or
 * -1 after a message. */
int tunnel_state_running(const struct tunnel_config *cfg);
/* Before sa (sf->st_out) seals outbound sequence numbers up to last (taken
 * by tunnel_sa_take): reserves them on disk, unless a reload moved the
 * state file on meanwhile. 0, or -1 when the state file could not be
 * written (the numbers taken are then left unused). */
int tunnel_out_reserve(struct tunnel_state *sf, struct tunnel_sa *sa, uint64_t last);
/* Before sa (sf->st_in) accepts inbound sequence numbers up to top:
 * reserves them on disk. 0, or -1 when the state file could not be written
 * (the packets are then dropped). */
int tunnel_in_reserve(struct tunnel_state *sf, struct tunnel_sa *sa, uint64_t top);
/* A reload's new keys: the state file moves to the SA pair out, in (new
 * keys: numbered from 1, reserved from now on); the pair before goes on
 * uncounted until retired (its keys left the config: no restart uses them
 * again). Refused (CLI_EXIT_FAIL after one line) when a new key is one of
 * the current pair's, or the file cannot be written. */
int tunnel_state_rekey(struct tunnel_state *sf, struct tunnel_sa *out, struct tunnel_sa *in);

/* cli/tunnel/tunnel_reload.c: SIGHUP. The config read again; new key
 * files and SPIs become a new SA pair, make-before-break: the inbound SA
 * at once, the outbound switch when the peer's first packet under the new
 * SAs comes or TUNNEL_RELOAD_SWITCH seconds later, the old inbound SA
 * retired once quiet. Anything refused leaves the tunnel as it was (one
 * line says why). */
#define TUNNEL_RELOAD_SWITCH 5
#define TUNNEL_RELOAD_QUIET 2 /* seconds without a packet: the old inbound SA retired */
#define TUNNEL_RELOAD_RETIRE_MAX 60 /* after the switch, retired whatever comes */
void tunnel_reload(struct tunnel *t);
/* The SA pair of cfg's key files (not linked, one keycache per worker): 0
 * with *out and *in, or CLI_EXIT_* after one line. */
int tunnel_pair_load(struct tunnel *t, const struct tunnel_config *cfg, struct tunnel_sa **out,
                     struct tunnel_sa **in);
/* Each second (main thread): the switch and the retirement when due. */
void tunnel_reload_tick(struct tunnel *t);
/* Each second (main thread): the inbound margins follow the rates, and the
 * reservations are renewed before the workers reach them. */
void tunnel_state_tick(struct tunnel *t);
/* The state files' writes since the start: all, and by the workers. */
void tunnel_state_writes(struct tunnel *t, uint64_t *all, uint64_t *by_worker);
/* At a clean stop: the exact numbers, so a restart skips none. */
void tunnel_state_close(struct tunnel *t);

/* cli/tunnel/tunnel_status_json.c: the status file in as one JSON object
 * out (--status --json): 0, or -1 on a read error. */
int tunnel_status_json(FILE *in, FILE *out);

/* Adds n to one of a worker's counters (only the status reads them). */
#define TUNNEL_ADD(ctr, n) atomic_fetch_add_explicit(&(ctr), (n), memory_order_relaxed)

/* cli/tunnel/tun_offload.c: the TUN queue as IP packets, whatever its
 * offloads. One read: rd->count packets (0: it was dropped, counted), a
 * plain one where it was read or a super-packet's segments. */
struct tun_read {
  uint8_t *pkt; /* what was read: in the payload given, or in w->super */
  size_t len;
  struct tunnel_gso g;
  int cut;                /* g's segments, else pkt as it is */
  unsigned count, next;   /* packets, and the next one to hand out */
};
/* Reads once into payload (a slot's, after its ESP header): 0 with rd set,
 * or -1 when there is nothing more to read (an error counted). */
int tun_read(struct tunnel_worker *w, uint8_t *payload, struct tun_read *rd);
/* rd's next packet into out (a plain one stays in the payload read into,
 * which out is then): 1 with *len, or 0 when all are handed out. */
int tun_read_next(struct tun_read *rd, uint8_t *out, size_t *len);
/* An opened packet to the TUN queue: with virtio headers joined to the ones
 * of its flow before it in gro (written at tun_flush or when one does not
 * follow), else written alone. */
void tun_gro_init(struct tunnel_worker *w, struct tunnel_gro *gro);
void tun_write(struct tunnel_worker *w, struct tunnel_gro *gro, uint8_t *pkt, size_t len);
void tun_flush(struct tunnel_worker *w, struct tunnel_gro *gro);

/* The local address a datagram leaves from on a wildcard-bound socket:
 * a gateway's user's, the one its IKE came to (len 4 or 16), so that its
 * NAT sees the answers come from where it sent; len 0: the kernel's
 * choice (the route's address). */
struct tunnel_src {
  uint8_t ip[16];
  uint8_t len;
};
/* cli/tunnel/udp_offload.c: the UDP socket as datagrams, whatever its
 * offloads. Sends iov[0..n) (at most TUNNEL_BURST) to `to` (NULL: the
 * peer of the point-to-point tunnel) from src (NULL: the kernel's
 * choice), counted. */
void udp_send(struct tunnel_worker *w, struct iovec *iov, unsigned n,
              const struct sockaddr_storage *to, socklen_t to_len, const struct tunnel_src *src);
/* b[0..n) after sealing, of which got were given numbers: the good ones
 * sent to `to` (NULL: the point-to-point peer) from src, the rest counted
 * dropped. */
void tunnel_send_sealed(struct tunnel_worker *w, gostx_esp_packet *b, unsigned n, unsigned got,
                        const struct sockaddr_storage *to, socklen_t to_len,
                        const struct tunnel_src *src);
/* One receive: up to TUNNEL_RX_BUFS buffers, each one datagram or a GRO
 * train of them. */
struct udp_rx {
  struct mmsghdr msgs[TUNNEL_RX_BUFS];
  struct iovec iov[TUNNEL_RX_BUFS];
  union { /* UDP_GRO's segment size, the destination (t->pktinfo) */
    _Alignas(struct cmsghdr) char buf[CMSG_SPACE(sizeof(int)) +
                                      CMSG_SPACE(sizeof(struct in6_pktinfo))];
  } ctl[TUNNEL_RX_BUFS];
  struct sockaddr_storage from[TUNNEL_RX_BUFS];
  unsigned got, i; /* buffers received; the one udp_rx_next is in */
  unsigned last;   /* the buffer of the datagram udp_rx_next gave last */
  size_t off, seg; /* where in it, and the size it is cut at */
};
/* One recvmmsg (not waiting) into w->buf's receive buffers. */
void udp_recv(struct tunnel_worker *w, struct udp_rx *rx);
/* The next datagram of rx: 1 with *p, *len and *cut (the kernel cut it
 * short: MSG_TRUNC), *from where it came from, or 0 when none is left. */
int udp_rx_next(struct tunnel_worker *w, struct udp_rx *rx, uint8_t **p, size_t *len, int *cut,
                const struct sockaddr_storage **from);
/* Where the datagram udp_rx_next gave last came to (address and local
 * port) into *to: 1, or 0 when not known (t->pktinfo off: *to zeroed). */
int udp_rx_dest(struct tunnel_worker *w, struct udp_rx *rx, struct sockaddr_storage *to);

/* cli/tunnel/tunnel_worker.c: the worker loop (a pthread start routine). */
void *tunnel_worker_run(void *arg);
/* The ESP next header for an IP packet from the TUN device (4: IPv4, 41:
 * IPv6), or 0 when it is neither. */
static inline uint8_t tunnel_next_header_of(const uint8_t *p, size_t len) {
  if (len >= 20 && p[0] >> 4 == 4) return 4;
  if (len >= 40 && p[0] >> 4 == 6) return 41;
  return 0;
}
/* An authentic packet whose inner source is outside its gateway peer's
 * remote_ts (b[i].status, beside lib/esp's GOSTX_E* codes) */
#define TUNNEL_ESP_SELECTOR (-100)

/* With timing = yes, the CPU time a call took (its thread's clock: both
 * tunnel ends, iperf3 and the stack share few cores) added to a worker's
 * ns_ counter:
 * TUNNEL_TIMED(w, ns_seal, got = tunnel_sa_seal(...)). Without it, the call
 * alone (one predictable branch). */
#define TUNNEL_TIMED(w, ctr, call)                                                                 \
  do {                                                                                             \
    if (!(w)->t->cfg.timing) {                                                                     \
      call;                                                                                        \
      break;                                                                                       \
    }                                                                                              \
    const uint64_t t0_ = cli_thread_cpu_ns();                                                      \
    call;                                                                                          \
    TUNNEL_ADD((w)->c.ctr, cli_thread_cpu_ns() - t0_);                                             \
  } while (0)
/* The sums of every worker's counters as "name value" lines into f. */
void tunnel_counters_print(struct tunnel *t, FILE *f);

#endif
