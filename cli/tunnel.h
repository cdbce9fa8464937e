/* gostx tunnel: IP packets from a TUN device carried in ESP (RFC 4303, the
 * RFC 9227 transforms of lib/esp) inside UDP (RFC 3948), one worker thread
 * per queue. docs/TUNNEL.md describes the configuration and the counters. */
#ifndef GOSTX_CLI_TUNNEL_H
#define GOSTX_CLI_TUNNEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include "cli.h"

#define TUNNEL_PATH_MAX 512
#define TUNNEL_MAX_THREADS 64
#define TUNNEL_BURST 32
#define TUNNEL_SLOT 2048 /* one packet buffer: the MTU plus the ESP overhead fit */
#define TUNNEL_MTU_MAX (TUNNEL_SLOT - GOSTX_ESP_OVERHEAD_MAX - 64)
/* Sender sequence numbers are reserved on disk in steps of this many, so a
 * restart never reuses one (a reused number would reuse an MGM nonce). */
#define TUNNEL_SEQ_STEP ((uint64_t)1 << 20)

struct tunnel_config {
  char path[TUNNEL_PATH_MAX]; /* the config file, for messages */
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
};

/* Counters of one worker; the status sums them. */
struct tunnel_counters {
  _Atomic uint64_t tx_packets, tx_bytes, tx_errors, tx_dropped;
  _Atomic uint64_t rx_packets, rx_bytes, rx_auth, rx_replay, rx_malformed, rx_spi, rx_dummy,
      rx_keepalive, tun_errors;
};

struct tunnel;

struct tunnel_worker {
  struct tunnel *t;
  unsigned idx;
  int tun_fd, udp_fd, send_fd; /* send_fd: udp_fd for worker 0 */
  pthread_t thread;
  gostx_esp_keycache kc_out, kc_in;
  struct tunnel_counters c;
  uint8_t *buf; /* 2 * TUNNEL_BURST slots: TUN side then UDP side */
  uint8_t *plain; /* TUNNEL_BURST slots: the payloads of the packets being opened */
};

struct tunnel {
  struct tunnel_config cfg;
  gostx_esp_sa sa_out, sa_in;
  gostx_esp_replay replay;
  pthread_mutex_t replay_lock;
  uint64_t window_saved; /* the window's top as last saved (main thread only) */
  /* outbound sequence numbers: next to hand out, and the highest one
   * reserved on disk (all up to it may have been used) */
  _Atomic uint64_t seq_next;
  _Atomic uint64_t seq_saved;
  pthread_mutex_t seq_lock;
  atomic_int stop;
  atomic_int exhausted; /* the outbound SA is used up (said once) */
  unsigned nworkers;
  struct tunnel_worker w[TUNNEL_MAX_THREADS];
};

/* cli/tunnel_config.c: reads CONFIG; 0, or CLI_EXIT_USAGE after one line. */
int tunnel_config_read(const char *path, struct tunnel_config *cfg);
/* The SAs from the key files (32 bytes, or 32 + salt: raw or hex). 0, or
 * CLI_EXIT_USAGE / CLI_EXIT_FAIL after one line. */
int tunnel_load_keys(const struct tunnel_config *cfg, gostx_esp_sa *out, gostx_esp_sa *in);

/* cli/tunnel_net.c */
/* Binds nsock UDP sockets to cfg->local with SO_REUSEPORT (incoming
 * datagrams spread by their source port) into fds, and the sockets the
 * workers send from into send_fds: worker 0 its receiving socket, worker
 * k > 0 one of its own on the local port + k. 0 or CLI_EXIT_FAIL after one
 * line. */
int tunnel_udp_open(const struct tunnel_config *cfg, int *fds, int *send_fds, unsigned nsock);
/* Opens nq queues of the TUN device cfg->tun, sets its MTU and brings it up. */
int tunnel_tun_open(const struct tunnel_config *cfg, int *fds, unsigned nq);
/* The sequence-number file: reads it (absent: start at 1). */
int tunnel_seq_load(struct tunnel *t);
/* The inbound window's top, saved beside the state file (STATE.in) each
 * second and at exit, and restored at start with everything up to it seen. */
int tunnel_window_load(struct tunnel *t);
void tunnel_window_save(struct tunnel *t);
/* Reserves n outbound sequence numbers: the first, or 0 when they cannot be
 * saved (the tunnel then sends nothing). */
uint64_t tunnel_seq_reserve(struct tunnel *t, unsigned n);

/* cli/tunnel_worker.c: the worker loop (a pthread start routine). */
void *tunnel_worker_run(void *arg);
/* The sums of every worker's counters as "name value" lines into f. */
void tunnel_counters_print(struct tunnel *t, FILE *f);

#endif
