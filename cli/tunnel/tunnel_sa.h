/* gostx tunnel: the SAs of the data path (docs/TUNNEL.md, "SAs"). Whoever
 * keys the tunnel (the static key files, an IKE daemon) hands the workers
 * their SAs through three calls: add an inbound SA, switch the outbound
 * SA, retire an SA. Several inbound SAs live at once (looked up by SPI on
 * receive: the old and the new one during a rekey); exactly one outbound SA
 * seals, switched between bursts (a burst is sealed whole under one SA).
 *
 * The workers take no lock to reach the SAs: each marks the span in which
 * it holds SA pointers (inside tunnel_sa_seal and tunnel_sa_open: an
 * atomic store at each end of a burst). A retired SA is unlinked first, then
 * the retiring thread waits until every worker that was inside such a span
 * when it was unlinked has left it (a grace period); only then are its
 * keys, keycaches and replay window wiped and its memory freed.
 *
 * The control calls (add, switch, retire) are for one thread at a time per
 * tunnel (t->sa_lock serialises them); they may wait for a grace period
 * (at most a burst's sealing or opening in each worker). */
#ifndef GOSTX_CLI_TUNNEL_SA_H
#define GOSTX_CLI_TUNNEL_SA_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <gostx/esp.h>

#define TUNNEL_SA_IN_MAX 4 /* inbound SAs at once: the current, the next, stragglers */

enum tunnel_sa_dir { TUNNEL_SA_IN = 1, TUNNEL_SA_OUT = 2 };

/* What an SA is made of. From an IKE Child SA (gostx_ike_child of
 * lib/ike/engine.h): transform = encr (the RFC 9227 transform IDs 32..35
 * are gostx_esp_transform's values), esn = esn, and per direction
 * spi = spi_in / spi_out, keymat = key_in / key_out, keymat_len = key_len
 * (K | salt, 44 or 36 bytes). */
struct tunnel_sa_params {
  enum tunnel_sa_dir dir;
  gostx_esp_transform transform;
  uint32_t spi;
  const uint8_t *keymat; /* K (32 bytes) | salt (12 Kuznyechik, 4 Magma) */
  size_t keymat_len;
  int esn;        /* 1: 64-bit extended sequence numbers; 0: 32-bit */
  uint64_t limit; /* outbound: the last sequence number sealed (0: the transform's) */
};

/* Each worker's keycache on cache lines of its own (workers seal and open
 * under one SA at once). */
struct tunnel_sa_kc {
  _Alignas(64) gostx_esp_keycache kc;
};

struct tunnel_sa {
  gostx_esp_sa esp; /* keys, SPI, transform, salt, ESN, limit: read-only once linked */
  enum tunnel_sa_dir dir;
  unsigned nkc;
  struct tunnel_sa_kc *kc; /* nkc: one per worker, its last message key under this SA */
  /* outbound: the highest sequence number handed out (never past the limit) */
  _Atomic uint64_t seq_used;
  /* the IP bytes sealed (outbound) or accepted (inbound) under it: added
   * once a burst, read by the keying side (rekey_bytes) */
  _Atomic uint64_t bytes;
  atomic_int exhausted; /* said once */
  /* inbound: the window (moved only by authentic packets) and the packets
   * accepted (the keying side tells a quiet SA by it) */
  pthread_mutex_t replay_lock;
  gostx_esp_replay replay;
  _Atomic uint64_t accepted;
};

struct tunnel;
struct tunnel_worker;

/* ---- the keying side (one thread at a time) ---- */

/* Takes up to n outbound sequence numbers of sa (no state file): the
 * first, with *got (<= n) of them; 0 when sa is used up (said once). */
uint64_t tunnel_sa_take(struct tunnel_sa *sa, unsigned n, unsigned *got);

/* A new SA of p (its keys copied: the caller may wipe p->keymat) with one
 * keycache for each of nworkers workers; NULL when p is not a valid SA or
 * there is no memory. Not linked yet. */
struct tunnel_sa *tunnel_sa_new(const struct tunnel_sa_params *p, unsigned nworkers);
/* The same from keys already set up (the static key files'). */
struct tunnel_sa *tunnel_sa_from_esp(const gostx_esp_sa *esp, enum tunnel_sa_dir dir,
                                     unsigned nworkers);
/* Wipes and frees an SA no worker can reach (never linked, or retired). */
void tunnel_sa_free(struct tunnel_sa *sa);

/* Links the inbound SA sa: packets of its SPI open from now on. 0, or
 * GOSTX_EINVAL (not inbound, or its SPI is taken by a live one),
 * GOSTX_ESTATE (TUNNEL_SA_IN_MAX live already). On success the tunnel owns
 * sa. Make-before-break: add the new inbound SA before the peer switches. */
int tunnel_sa_add_in(struct tunnel *t, struct tunnel_sa *sa);
/* Makes sa (outbound) the one every burst from now on is sealed with, then
 * retires the one before (after a grace period: no burst still seals with
 * it). 0 or GOSTX_EINVAL (not outbound); the tunnel owns sa. */
int tunnel_sa_switch_out(struct tunnel *t, struct tunnel_sa *sa);
/* Retires the outbound SA (as a switch does) with none in its place:
 * nothing is sealed until the next switch (the IKE peer was revoked). */
void tunnel_sa_stop_out(struct tunnel *t);
/* Unlinks the inbound SA of spi, waits for the grace period, wipes and
 * frees it: 0, or GOSTX_EINVAL (no such SA). */
int tunnel_sa_retire_in(struct tunnel *t, uint32_t spi);
/* Packets accepted so far under the inbound SA of spi (the keying side
 * retires the old SA once this stops moving): 0, or GOSTX_EINVAL. */
int tunnel_sa_in_accepted(struct tunnel *t, uint32_t spi, uint64_t *n);
/* What a Child SA has carried so far, for its rekey (rekey_bytes, the
 * sequence number guard) and --status: the inbound SA of spi_in, the
 * outbound SA when the one sealing now is of spi_out (has_in / has_out:
 * found). limit_*: their last sequence number. */
struct tunnel_sa_usage {
  int has_in, has_out;
  uint64_t bytes_in, bytes_out, packets_in, packets_out, limit_in, limit_out;
};
void tunnel_sa_usage(struct tunnel *t, uint32_t spi_in, uint32_t spi_out,
                     struct tunnel_sa_usage *u);
/* The same of in (NULL: none) and out (counted when its SPI is spi_out). */
void tunnel_sa_usage_of(const struct tunnel_sa *in, const struct tunnel_sa *out,
                        uint32_t spi_out, struct tunnel_sa_usage *u);
/* "sa_out SPI" and "sa_in SPI..." lines (the live SAs, hex) into f. */
void tunnel_sa_print(struct tunnel *t, FILE *f);
/* At the end (workers stopped): every SA wiped and freed. */
void tunnel_sa_clear_all(struct tunnel *t);

/* ---- the workers ---- */

/* The span in which a worker holds SA pointers (w->sa_epoch odd), and the
 * keying side's wait until every worker inside one when it was called has
 * left it: whatever was unlinked before is then out of reach. Not nested:
 * tunnel_sa_seal and tunnel_sa_open enter and leave one themselves. */
void tunnel_sa_enter(struct tunnel_worker *w);
void tunnel_sa_leave(struct tunnel_worker *w);
void tunnel_sa_grace(struct tunnel *t);
struct tunnel_state;
/* Inside a span: seals b[0..n) under sa with consecutive numbers, reserved
 * in sf's state file first when sa is its outbound SA (as tunnel_sa_seal:
 * how many were given numbers); opens b[0..n) under sa, sf's reservation
 * taken before its inbound SA accepts (as tunnel_sa_open). */
unsigned tunnel_sa_seal_under(struct tunnel_worker *w, struct tunnel_sa *sa,
                              struct tunnel_state *sf, gostx_esp_packet *b, unsigned n);
void tunnel_sa_open_under(struct tunnel_worker *w, struct tunnel_sa *sa,
                          struct tunnel_state *sf, gostx_esp_packet *b, size_t n);
/* The pieces of those two, for a gateway's burst across SAs: this
 * worker's keycache of sa; up to n numbers of sa (reserved as
 * tunnel_sa_seal_under does: the first, *got of them) and, once sealed,
 * the bytes of b[0..got) counted; a snapshot of sa's window, and b[0..n)
 * opened under sa accepted against sf's reservation and the window. */
gostx_esp_keycache *tunnel_sa_kc(struct tunnel_sa *sa, const struct tunnel_worker *w);
uint64_t tunnel_sa_number(struct tunnel_sa *sa, struct tunnel_state *sf, unsigned n,
                          unsigned *got);
void tunnel_sa_sealed(struct tunnel_sa *sa, const gostx_esp_packet *b, unsigned got);
void tunnel_sa_window(struct tunnel_sa *sa, gostx_esp_replay *window);
void tunnel_sa_accept(struct tunnel_sa *sa, struct tunnel_state *sf, gostx_esp_packet *b,
                      size_t n);
/* The SPI of an ESP packet (its first four bytes). */
uint32_t tunnel_spi_of(const uint8_t *pkt);

/* Each marks the span in which it holds SA pointers itself (w->sa_epoch
 * odd), so a worker never holds one between calls. */
/* Seals b[0..n) under the current outbound SA with consecutive sequence
 * numbers: how many were given numbers (the rest could not be: the SA is
 * used up, or the state file could not be written). */
unsigned tunnel_sa_seal(struct tunnel_worker *w, gostx_esp_packet *b, unsigned n);
/* Opens b[0..n), all of one SPI, with the inbound SA of that SPI (none:
 * every status GOSTX_EINVAL): authentic, new packets are accepted (the
 * window moved), each b[i].status says (GOSTX_EIO: the state file could
 * not reserve it, dropped). */
void tunnel_sa_open(struct tunnel_worker *w, gostx_esp_packet *b, size_t n);

#endif
