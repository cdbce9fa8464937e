/* gostx tunnel, keying = ikev2: what the IKE daemon's two files share.
 * ike_material.c reads the PSK, or the key, certificates and CA, and makes
 * the manager's settings of them and the config; ike_daemon.c runs the
 * thread, the sockets and the poll around lib/ike's manager (the one
 * header of lib/ike included here: ike/manager.h), and carries its events
 * out: datagrams, keepalives, log lines, the Child SAs into the data path
 * (tunnel_install.c). */
#ifndef GOSTX_CLI_TUNNEL_IKE_DAEMON_H
#define GOSTX_CLI_TUNNEL_IKE_DAEMON_H

#include "crl_file.h"
#include "ike/manager.h"
#include "../tunnel.h"

#define IKE_CERTS 4
#define IKE_CERT_MAX 4096 /* a certificate's DER, at most */
#define IKE_BYE_MS 1000 /* at shutdown, our Delete of the IKE SA awaits its answer this long */

struct tunnel_ike {
  struct tunnel *t;
  gostx__ike_mgr *mgr;
  gostx__ike_mgr_settings set; /* points into this struct and t->cfg */
  uint8_t psk[256];
  size_t psk_len;
  gostx_gost3410_key key;
  uint8_t pub[128]; /* its public key, x | y big-endian (as certificates hold it) */
  size_t pub_len;
  uint8_t *cert_der[IKE_CERTS]; /* allocated, each its certificate's size */
  const uint8_t *certs[IKE_CERTS];
  size_t cert_lens[IKE_CERTS], n_certs;
  gostx_x509_store *store;
  /* our ID: local_id, or without it the subject of our certificate (the
   * config stays as read: a SIGHUP compares it with the file's) */
  struct tunnel_ike_id id;
  /* the CRLs of the crl lines (k->set points into it; the IKE thread's
   * once running), and a SIGHUP's new ones until the IKE thread takes them */
  cli_crl_list *crls;
  _Atomic(cli_crl_list *) crls_next;
  int fd;
  int data_fd; /* the data port's socket (worker 0's): IKE behind the marker, keepalives */
  struct sockaddr_storage bound;
  pthread_t thread;
  int thread_on;
  atomic_int installed;
  pthread_mutex_t lock; /* shown, read by the status writer */
  gostx__ike_mgr_shown shown;
  /* the single peer's thread's event and datagram (allocated: a gateway's
   * sites hold material and settings alone, their thread's are ra's) */
  struct ike_io {
    gostx__ike_mgr_event ev;
    uint8_t in[GOSTX_IKE_MGR_MSG_MAX];
  } *io;
  uint8_t inner_said[4]; /* the inner address the peer gave us, said */
};

/* ike_material.c: the PSK, or the key, certificates and CA, into k (a
 * line said on failure: CLI_EXIT_USAGE or CLI_EXIT_FAIL); then k->set of
 * them and cfg, all but the addresses (ike_daemon.c's). */
int ike_material_load(struct tunnel_ike *k, const struct tunnel_config *cfg);
void ike_settings(struct tunnel_ike *k, const struct tunnel_config *cfg);
/* What ike_material_load allocated (the certificates, the CA store, the
 * CRLs, a SIGHUP's never taken), freed; the PSK and private key zeroed. */
void ike_material_free(struct tunnel_ike *k);
/* A PSK file (as key files are refused; one trailing newline dropped)
 * into psk[cap]: 0 with *psk_len (16 to cap - 2), or CLI_EXIT_* after a line. */
int ike_psk_read(const struct tunnel_config *cfg, const char *path, uint8_t *psk, size_t cap,
                 size_t *psk_len);
/* The CRLs of n crl lines' paths (files, each file of a folder; crl: n
 * paths of TUNNEL_PATH_MAX bytes one after another, a config's crl[0])
 * into a new *out: 0; or CLI_EXIT_FAIL after a line naming the file that
 * could not be read as CRLs, nothing kept. */
int ike_crls_load(const char *crl, size_t n, cli_crl_list **out);
void ike_crls_free(cli_crl_list *l);
/* SIGHUP (main thread): n crl lines' paths (as ike_crls_load's) read again into k->crls_next
 * for k's IKE thread to take (a line said when they cannot be read: those
 * before stay). */
void ike_crls_reload(struct tunnel_ike *k, const char *crl, size_t n);
/* The IKE thread: a SIGHUP's CRLs, when one came, made k's (k->crls and
 * k->set): 1 with *old, the list before, to free once no manager points
 * at it; or 0. */
int ike_crls_take(struct tunnel_ike *k, cli_crl_list **old);

/* ike_daemon.c, for ike_gateway.c too: one log line ("gostx tunnel: ike:
 * ..."), the clock the manager takes (Unix time in ms: certificates are
 * checked at it), a socket address as the manager's, a port set in one */
void ike_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int64_t ike_now_ms(void);
void ike_addr_of(const struct sockaddr_storage *ss, gostx__ike_mgr_addr *a);
void ike_with_port(struct sockaddr_storage *ss, unsigned port);
/* The workers' queue to the IKE thread (t->ike_pair: [1] theirs, [0] the
 * thread's), a few MiB deep: 0, or CLI_EXIT_FAIL after a line. */
int ike_queue_open(int pair[2]);
/* One datagram the workers handed over on fd (t->ike_pair[0]): its IKE
 * message into buf (at most cap octets), *from where it came from and
 * where it came to (from->at, when the workers knew it), encap set: the
 * message's length, or -1. */
ssize_t ike_pair_read(int fd, uint8_t *buf, size_t cap, gostx__ike_mgr_to *from);
/* h sent on fd from to->at's address when the manager gave one (the
 * address the peer's IKE came to), else from the kernel's choice: 0, or
 * -1 with errno set. */
int ike_sendmsg(int fd, struct msghdr *h, const gostx__ike_mgr_to *to);
/* A wildcard local (t->pktinfo), as initiator: set's local and
 * data_local (their ports kept) made the address the kernel sends to
 * peer from, said: 0; or -1 (no route, said: the wildcard kept). */
int ike_local_toward(gostx__ike_mgr_settings *set, const struct sockaddr_storage *peer,
                     socklen_t peer_len, const char *local_s, const char *peer_s);
/* t->stop set, k's thread (k->thread_on) joined */
void ike_thread_join(struct tunnel *t, struct tunnel_ike *k);

#endif
