/* gostx tunnel: the SAs of the data path (tunnel_sa.h; docs/TUNNEL.md,
 * "SAs"). The workers reach them through atomic pointers, without a lock;
 * an SA taken out of reach is wiped and freed only after a grace period,
 * when no worker can still hold it. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "tunnel.h"


struct tunnel_sa *tunnel_sa_from_esp(const gostx_esp_sa *esp, enum tunnel_sa_dir dir,
                                     unsigned nworkers) {
  if (!nworkers || (dir != TUNNEL_SA_IN && dir != TUNNEL_SA_OUT)) return NULL;
  struct tunnel_sa *sa = calloc(1, sizeof *sa);
  struct tunnel_sa_kc *kc = aligned_alloc(64, nworkers * sizeof *kc);
  if (!sa || !kc) {
    free(sa);
    free(kc);
    return NULL;
  }
  sa->esp = *esp;
  sa->dir = dir;
  sa->nkc = nworkers;
  sa->kc = kc;
  for (unsigned i = 0; i < nworkers; i++) gostx_esp_keycache_init(&kc[i].kc);
  gostx_esp_replay_init(&sa->replay);
  pthread_mutex_init(&sa->replay_lock, NULL);
  return sa;
}

struct tunnel_sa *tunnel_sa_new(const struct tunnel_sa_params *p, unsigned nworkers) {
  gostx_esp_sa esp;
  int bad = gostx_esp_sa_init(&esp, p->transform, p->spi, p->keymat, p->keymat_len);
  /* ESN off before the limit: it caps the limit at 2^32 - 1 */
  if (!bad && !p->esn) bad = gostx_esp_sa_set_esn(&esp, 0);
  if (!bad && p->limit) bad = gostx_esp_sa_set_limit(&esp, p->limit);
  struct tunnel_sa *sa = bad ? NULL : tunnel_sa_from_esp(&esp, p->dir, nworkers);
  gostx_esp_sa_clear(&esp);
  return sa;
}

void tunnel_sa_free(struct tunnel_sa *sa) {
  if (!sa) return;
  struct tunnel_sa_kc *kc = sa->kc;
  for (unsigned i = 0; i < sa->nkc; i++) gostx_esp_keycache_clear(&kc[i].kc);
  gostx_memzero(kc, sa->nkc * sizeof *kc);
  free(kc);
  pthread_mutex_destroy(&sa->replay_lock);
  gostx_memzero(sa, sizeof *sa); /* keys, salt, window, counters */
  free(sa);
}

static gostx_esp_keycache *kc_of(struct tunnel_sa *sa, const struct tunnel_worker *w) {
  return &sa->kc[w->idx].kc;
}

/* ---- the grace period ----
 * A worker's sa_epoch is odd while it holds SA pointers. Its store on
 * entering and its loads of the pointers are sequentially consistent, as
 * are the keying side's unlinking store and its loads of the epochs: either
 * the keying side sees the odd epoch (and waits for it to move), or the
 * worker's load comes after the unlinking in the one total order and sees
 * the SA gone. */

/* Only the worker writes its epoch: a load and a store, no atomic add (on
 * x86 the entering store is one xchg, the leaving one a plain mov). */
void tunnel_sa_enter(struct tunnel_worker *w) {
  uint64_t e = atomic_load_explicit(&w->sa_epoch, memory_order_relaxed);
  atomic_store_explicit(&w->sa_epoch, e + 1, memory_order_seq_cst);
}

void tunnel_sa_leave(struct tunnel_worker *w) {
  uint64_t e = atomic_load_explicit(&w->sa_epoch, memory_order_relaxed);
  atomic_store_explicit(&w->sa_epoch, e + 1, memory_order_release);
}

/* Returns once every worker that was inside a span when this was called
 * has left it: what was unlinked before is out of every worker's reach. */
void tunnel_sa_grace(struct tunnel *t) {
  for (unsigned i = 0; i < t->nworkers; i++) {
    uint64_t e = atomic_load(&t->w[i].sa_epoch);
    if (!(e & 1)) continue; /* outside: its next span loads the pointers anew */
    while (atomic_load(&t->w[i].sa_epoch) == e) sched_yield();
  }
}

/* ---- the keying side ---- */

uint64_t tunnel_sa_take(struct tunnel_sa *sa, unsigned n, unsigned *got) {
  uint64_t limit = sa->esp.limit, cur = atomic_load(&sa->seq_used), k;
  *got = 0;
  do {
    if (cur >= limit) {
      /* the end of the SA: nothing is ever sealed again under its key */
      if (!atomic_exchange(&sa->exhausted, 1))
        cli_err("tunnel: the outbound SA reached its last sequence number (%llu): nothing more "
                "is sent; new keys and SPIs needed",
                (unsigned long long)limit);
      return 0;
    }
    k = limit - cur < n ? limit - cur : n;
  } while (!atomic_compare_exchange_weak(&sa->seq_used, &cur, cur + k));
  *got = (unsigned)k;
  return cur + 1;
}

/* The live inbound SA of spi (in *slot), or NULL (*slot -1). */
static struct tunnel_sa *in_lookup(struct tunnel *t, uint32_t spi, int *slot) {
  for (int i = 0; i < TUNNEL_SA_IN_MAX; i++) {
    struct tunnel_sa *sa = atomic_load(&t->sa_in[i]);
    if (sa && sa->esp.spi == spi) {
      *slot = i;
      return sa;
    }
  }
  *slot = -1;
  return NULL;
}

int tunnel_sa_add_in(struct tunnel *t, struct tunnel_sa *sa) {
  if (!sa || sa->dir != TUNNEL_SA_IN || sa->nkc < t->nworkers) return GOSTX_EINVAL;
  pthread_mutex_lock(&t->sa_lock);
  int slot;
  int rc = in_lookup(t, sa->esp.spi, &slot) ? GOSTX_EINVAL : GOSTX_ESTATE;
  for (int i = 0; rc == GOSTX_ESTATE && i < TUNNEL_SA_IN_MAX; i++) {
    if (atomic_load(&t->sa_in[i])) continue;
    atomic_store(&t->sa_in[i], sa); /* the workers see it whole: the store publishes */
    rc = 0;
  }
  pthread_mutex_unlock(&t->sa_lock);
  return rc;
}

/* sa (NULL: none) the outbound SA, the one before retired */
static void out_to(struct tunnel *t, struct tunnel_sa *sa) {
  pthread_mutex_lock(&t->sa_lock);
  struct tunnel_sa *old = atomic_exchange(&t->sa_out, sa);
  tunnel_sa_grace(t); /* no burst seals with old any more */
  if (old == t->sf.st_out) t->sf.st_out = NULL;
  tunnel_sa_free(old);
  pthread_mutex_unlock(&t->sa_lock);
}

int tunnel_sa_switch_out(struct tunnel *t, struct tunnel_sa *sa) {
  if (!sa || sa->dir != TUNNEL_SA_OUT || sa->nkc < t->nworkers) return GOSTX_EINVAL;
  out_to(t, sa);
  return 0;
}

void tunnel_sa_stop_out(struct tunnel *t) { out_to(t, NULL); }

int tunnel_sa_retire_in(struct tunnel *t, uint32_t spi) {
  pthread_mutex_lock(&t->sa_lock);
  int i;
  struct tunnel_sa *old = in_lookup(t, spi, &i) ? atomic_exchange(&t->sa_in[i], NULL) : NULL;
  if (old) {
    tunnel_sa_grace(t);
    if (old == t->sf.st_in) t->sf.st_in = NULL;
    tunnel_sa_free(old);
  }
  pthread_mutex_unlock(&t->sa_lock);
  return old ? 0 : GOSTX_EINVAL;
}

int tunnel_sa_in_accepted(struct tunnel *t, uint32_t spi, uint64_t *n) {
  pthread_mutex_lock(&t->sa_lock); /* no retire frees it meanwhile */
  int i;
  struct tunnel_sa *sa = in_lookup(t, spi, &i);
  if (sa) *n = atomic_load(&sa->accepted);
  pthread_mutex_unlock(&t->sa_lock);
  return sa ? 0 : GOSTX_EINVAL;
}

void tunnel_sa_usage(struct tunnel *t, uint32_t spi_in, uint32_t spi_out,
                     struct tunnel_sa_usage *u) {
  pthread_mutex_lock(&t->sa_lock); /* none freed meanwhile */
  int i;
  tunnel_sa_usage_of(in_lookup(t, spi_in, &i), atomic_load(&t->sa_out), spi_out, u);
  pthread_mutex_unlock(&t->sa_lock);
}

void tunnel_sa_usage_of(const struct tunnel_sa *in, const struct tunnel_sa *out,
                        uint32_t spi_out, struct tunnel_sa_usage *u) {
  memset(u, 0, sizeof *u);
  if (in) {
    u->has_in = 1;
    u->bytes_in = atomic_load(&in->bytes);
    u->packets_in = atomic_load(&in->accepted);
    u->limit_in = in->esp.limit;
  }
  if (out && out->esp.spi == spi_out) {
    u->has_out = 1;
    u->bytes_out = atomic_load(&out->bytes);
    u->packets_out = atomic_load(&out->seq_used);
    u->limit_out = out->esp.limit;
  }
}

void tunnel_sa_print(struct tunnel *t, FILE *f) {
  pthread_mutex_lock(&t->sa_lock); /* none freed meanwhile */
  struct tunnel_sa *out = atomic_load(&t->sa_out);
  fprintf(f, "sa_out 0x%08x\nsa_in", out ? (unsigned)out->esp.spi : 0u);
  for (int i = 0; i < TUNNEL_SA_IN_MAX; i++) {
    struct tunnel_sa *in = atomic_load(&t->sa_in[i]);
    if (in) fprintf(f, " 0x%08x", (unsigned)in->esp.spi);
  }
  fputc('\n', f);
  pthread_mutex_unlock(&t->sa_lock);
}

void tunnel_sa_clear_all(struct tunnel *t) {
  tunnel_sa_free(atomic_exchange(&t->sa_out, NULL));
  for (int i = 0; i < TUNNEL_SA_IN_MAX; i++) tunnel_sa_free(atomic_exchange(&t->sa_in[i], NULL));
  t->sf.st_out = t->sf.st_in = NULL;
}

/* ---- the workers ---- */

gostx_esp_keycache *tunnel_sa_kc(struct tunnel_sa *sa, const struct tunnel_worker *w) {
  return kc_of(sa, w);
}

uint64_t tunnel_sa_number(struct tunnel_sa *sa, struct tunnel_state *sf, unsigned n,
                          unsigned *got) {
  uint64_t first = tunnel_sa_take(sa, n, got);
  /* the static keys' numbers are reserved in the state file before use */
  if (*got && sa == sf->st_out && tunnel_out_reserve(sf, sa, first + *got - 1)) *got = 0;
  return first;
}

void tunnel_sa_sealed(struct tunnel_sa *sa, const gostx_esp_packet *b, unsigned got) {
  uint64_t bytes = 0;
  for (unsigned i = 0; i < got; i++) bytes += b[i].status ? 0 : b[i].len;
  atomic_fetch_add_explicit(&sa->bytes, bytes, memory_order_relaxed); /* one add a burst */
}

unsigned tunnel_sa_seal_under(struct tunnel_worker *w, struct tunnel_sa *sa,
                              struct tunnel_state *sf, gostx_esp_packet *b, unsigned n) {
  unsigned got = 0;
  uint64_t first = tunnel_sa_number(sa, sf, n, &got);
  if (got) (void)gostx_esp_seal_burst(&sa->esp, kc_of(sa, w), first, b, got); /* b[i].status */
  tunnel_sa_sealed(sa, b, got);
  return got;
}

unsigned tunnel_sa_seal(struct tunnel_worker *w, gostx_esp_packet *b, unsigned n) {
  struct tunnel *t = w->t;
  unsigned got = 0;
  tunnel_sa_enter(w);
  struct tunnel_sa *sa = atomic_load(&t->sa_out);
  if (sa) got = tunnel_sa_seal_under(w, sa, &t->sf, b, n);
  tunnel_sa_leave(w);
  return got;
}

uint32_t tunnel_spi_of(const uint8_t *pkt) {
  return (uint32_t)pkt[0] << 24 | (uint32_t)pkt[1] << 16 | (uint32_t)pkt[2] << 8 | pkt[3];
}

void tunnel_sa_window(struct tunnel_sa *sa, gostx_esp_replay *window) {
  pthread_mutex_lock(&sa->replay_lock);
  *window = sa->replay; /* a snapshot: ESN and replay checks outside the lock */
  pthread_mutex_unlock(&sa->replay_lock);
}

void tunnel_sa_accept(struct tunnel_sa *sa, struct tunnel_state *sf, gostx_esp_packet *b,
                      size_t n) {
  /* the static keys': nothing is accepted before the state file has it
   * reserved: after a crash, everything up to the reservation counts as seen */
  uint64_t top = 0;
  for (size_t i = 0; i < n; i++)
    if (!b[i].status && b[i].seq > top) top = b[i].seq;
  int unsaved = sa == sf->st_in && top && tunnel_in_reserve(sf, sa, top);
  uint64_t accepted = 0, bytes = 0;
  pthread_mutex_lock(&sa->replay_lock);
  for (size_t i = 0; i < n; i++) {
    if (!b[i].status)
      b[i].status = unsaved ? GOSTX_EIO : gostx_esp_replay_update(&sa->replay, b[i].seq);
    accepted += !b[i].status;
    bytes += b[i].status ? 0 : b[i].out_len;
  }
  pthread_mutex_unlock(&sa->replay_lock);
  atomic_fetch_add(&sa->accepted, accepted); /* the static one's: the rate the margin follows */
  atomic_fetch_add_explicit(&sa->bytes, bytes, memory_order_relaxed);
}

void tunnel_sa_open_under(struct tunnel_worker *w, struct tunnel_sa *sa,
                          struct tunnel_state *sf, gostx_esp_packet *b, size_t n) {
  gostx_esp_replay window;
  tunnel_sa_window(sa, &window);
  /* the verdicts are per packet (b[i].status); the call returns the first */
  int first = gostx_esp_open_burst(&sa->esp, kc_of(sa, w), &window, b, n);
  (void)first;
  tunnel_sa_accept(sa, sf, b, n);
}

void tunnel_sa_open(struct tunnel_worker *w, gostx_esp_packet *b, size_t n) {
  if (!n) return;
  tunnel_sa_enter(w);
  int slot;
  struct tunnel_sa *sa = in_lookup(w->t, tunnel_spi_of(b[0].in), &slot);
  if (sa) tunnel_sa_open_under(w, sa, &w->t->sf, b, n);
  else
    for (size_t i = 0; i < n; i++) b[i].status = GOSTX_EINVAL;
  tunnel_sa_leave(w);
}
