/* The tunnel's SAs (cli/tunnel/tunnel_sa.c) under rekeying: one thread
 * seals through tunnel_sa_seal as worker 0 does, another opens what it
 * sealed through tunnel_sa_open as worker 1 does (a FIFO stands in for the
 * network), while the main thread rekeys make-before-break thousands of
 * times: adds the new inbound SA, switches the outbound one, waits until
 * the old one is quiet and retires it; and meanwhile adds and retires a
 * decoy inbound SA, which the opener's lookup by SPI walks over. Checked:
 * every packet opens, in order, each SA's numbers run 1, 2, 3, ... from
 * its first packet, no burst is sealed under an SA retired before it began,
 * each retired inbound SA accepted exactly its packets (its window's top is
 * its last number), and every block the SA code frees was wiped first. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Every block tunnel_sa.c allocates is tracked; freeing one that is not
 * all zero (keys, salt, keycaches, window left behind) is counted. */
static void *test_calloc(size_t n, size_t size);
static void *test_aligned_alloc(size_t align, size_t size);
static void test_free(void *p);
#define calloc(n, s) test_calloc(n, s)
#define aligned_alloc(a, s) test_aligned_alloc(a, s)
#define free(p) test_free(p)
#include "../cli/tunnel/tunnel_sa.c"
#undef calloc
#undef aligned_alloc
#undef free

#include "testutil.h"

#define ROUNDS 2000
#define RING 1024    /* packets in flight between the two threads */
#define PKT_MAX 128  /* a sealed packet of PAYLOAD bytes fits */
#define PAYLOAD 40
#define SPI_BASE 0x1000u

/* ---- allocation tracking (the main thread allocates and frees only) ---- */
static struct {
  void *p;
  size_t len;
} blocks[64];
static unsigned freed_blocks, unwiped_blocks;

static void *track(void *p, size_t len) {
  for (unsigned i = 0; p && i < sizeof blocks / sizeof *blocks; i++)
    if (!blocks[i].p) {
      blocks[i].p = p, blocks[i].len = len;
      return p;
    }
  fprintf(stderr, "FAIL: more SA blocks live at once than the SAs kept (one not freed?)\n");
  abort();
}
static void *test_calloc(size_t n, size_t size) { return track(calloc(n, size), n * size); }
static void *test_aligned_alloc(size_t align, size_t size) {
  return track(aligned_alloc(align, size), size);
}
static void test_free(void *p) {
  if (!p) return;
  for (unsigned i = 0; i < sizeof blocks / sizeof *blocks; i++) {
    if (blocks[i].p != p) continue;
    const uint8_t *b = p;
    size_t nz = 0;
    for (size_t k = 0; k < blocks[i].len; k++) nz |= b[k];
    unwiped_blocks += nz != 0;
    freed_blocks++;
    blocks[i].p = NULL;
    free(p);
    return;
  }
  abort(); /* not ours */
}

/* The tunnel's other files, which no SA of this test reaches (none is the
 * static keys', whose numbers the state file reserves). */
#include "tunnel_sa_stubs.h"

static struct tunnel t;
static struct {
  uint8_t pkt[PKT_MAX];
  size_t len;
} ring[RING];
static _Atomic uint64_t ring_head, ring_tail; /* written by the sealer, the opener */
static atomic_int stop;
/* the highest SPI whose outbound SA has been switched away (retired) */
static _Atomic uint32_t retired_out;
/* the opener's progress: the SPI it now opens, the packets it opened
 * under the one before */
static _Atomic uint32_t opening_spi;
static _Atomic uint64_t opened_under_prev;
static _Atomic uint64_t sealed, opened, bad_seal, bad_open, bad_order, bad_retired;

static void *sealer(void *arg) {
  struct tunnel_worker *w = arg;
  uint8_t payload[GOSTX_ESP_BURST_MAX][PAYLOAD], out[GOSTX_ESP_BURST_MAX][PKT_MAX];
  gostx_esp_packet b[GOSTX_ESP_BURST_MAX];
  uint64_t counter = 0;
  unsigned n = 1;
  while (!atomic_load(&stop)) {
    n = n % GOSTX_ESP_BURST_MAX + 1; /* every burst size */
    while (atomic_load(&ring_head) + n - atomic_load(&ring_tail) > RING)
      if (atomic_load(&stop)) return NULL;
      else sched_yield();
    for (unsigned i = 0; i < n; i++) {
      memset(payload[i], 0, PAYLOAD);
      payload[i][0] = 0x45;
      memcpy(payload[i] + 8, &(uint64_t){counter + i}, 8);
      b[i] = (gostx_esp_packet){.in = payload[i], .len = PAYLOAD, .out = out[i], .cap = PKT_MAX,
                               .next_header = 4};
    }
    uint32_t retired_before = atomic_load(&retired_out);
    unsigned got = tunnel_sa_seal(w, b, n);
    for (unsigned i = 0; i < got; i++) {
      if (b[i].status || b[i].out_len > PKT_MAX) {
        atomic_fetch_add(&bad_seal, 1);
        continue;
      }
      if (tunnel_spi_of(b[i].out) <= retired_before) atomic_fetch_add(&bad_retired, 1);
      uint64_t h = atomic_load(&ring_head);
      memcpy(ring[h % RING].pkt, b[i].out, b[i].out_len);
      ring[h % RING].len = b[i].out_len;
      atomic_store(&ring_head, h + 1);
      counter++;
    }
    if (got != n) atomic_fetch_add(&bad_seal, n - got);
    atomic_fetch_add(&sealed, got);
  }
  return NULL;
}

/* Checks one opened packet against what the sealer sent: the next counter,
 * the next number of its SA (1 for an SA's first). */
static void check_opened(const gostx_esp_packet *b, uint64_t *counter, uint32_t *spi,
                         uint64_t *seq) {
  uint32_t s = tunnel_spi_of(b->in);
  uint64_t c;
  memcpy(&c, b->out + 8, 8);
  if (b->status) {
    atomic_fetch_add(&bad_open, 1);
    return;
  }
  if (s != *spi) { /* the next SA's packets begin: the old one's are all in */
    if (s != *spi + 1) atomic_fetch_add(&bad_order, 1);
    atomic_store(&opened_under_prev, *seq);
    atomic_store(&opening_spi, s);
    *spi = s, *seq = 0;
  }
  if (c != *counter || b->seq != *seq + 1) atomic_fetch_add(&bad_order, 1);
  *counter = c + 1, *seq = b->seq;
}

static void *opener(void *arg) {
  struct tunnel_worker *w = arg;
  static uint8_t plain[GOSTX_ESP_BURST_MAX][PKT_MAX];
  gostx_esp_packet b[GOSTX_ESP_BURST_MAX];
  uint64_t counter = 0, seq = 0;
  uint32_t spi = SPI_BASE;
  while (!atomic_load(&stop)) {
    uint64_t tail = atomic_load(&ring_tail), head = atomic_load(&ring_head);
    if (tail == head) {
      sched_yield();
      continue;
    }
    /* one burst: consecutive packets of one SPI, as the worker makes them */
    size_t n = 0;
    while (tail + n < head && n < GOSTX_ESP_BURST_MAX &&
           (!n || !memcmp(ring[(tail + n) % RING].pkt, b[0].in, 4))) {
      b[n] = (gostx_esp_packet){.in = ring[(tail + n) % RING].pkt,
                               .len = ring[(tail + n) % RING].len, .out = plain[n],
                               .cap = PKT_MAX};
      n++;
    }
    tunnel_sa_open(w, b, n);
    for (size_t i = 0; i < n; i++) check_opened(&b[i], &counter, &spi, &seq);
    atomic_fetch_add(&opened, n);
    atomic_store(&ring_tail, tail + n);
  }
  return NULL;
}

/* The SA of spi in direction dir, its keys made from spi (both ends of the
 * FIFO are ours: the outbound and the inbound SA of an SPI are the same). */
static struct tunnel_sa *sa_of(uint32_t spi, enum tunnel_sa_dir dir) {
  uint8_t km[GOSTX_ESP_KEY_LEN + 12];
  for (size_t i = 0; i < sizeof km; i++) km[i] = (uint8_t)(spi * 131 + i * 7);
  struct tunnel_sa_params p = {.dir = dir, .transform = GOSTX_ESP_KUZNYECHIK_MGM_KTREE,
                               .spi = spi, .keymat = km, .keymat_len = sizeof km, .esn = 1};
  struct tunnel_sa *sa = tunnel_sa_new(&p, 2);
  gostx_memzero(km, sizeof km);
  return sa;
}

/* Waits (bounded) until the opener opens packets of spi. */
static int wait_opening(uint32_t spi) {
  for (long i = 0; i < 20000000; i++) {
    if (atomic_load(&opening_spi) == spi) return 1;
    sched_yield();
  }
  return 0;
}

/* One rekey: the new inbound SA first, then the outbound switch; once the
 * old SA's packets are all in, its count and window are checked and it is
 * retired. A decoy added and retired meanwhile. */
static int rekey(uint32_t spi, int *failures) {
  int bad = 0;
  bad |= tunnel_sa_add_in(&t, sa_of(spi, TUNNEL_SA_IN)) != 0;
  bad |= tunnel_sa_add_in(&t, sa_of(spi | 0x40000000u, TUNNEL_SA_IN)) != 0; /* decoy */
  bad |= tunnel_sa_switch_out(&t, sa_of(spi, TUNNEL_SA_OUT)) != 0;
  atomic_store(&retired_out, spi - 1);
  bad |= tunnel_sa_retire_in(&t, spi | 0x40000000u) != 0;
  if (bad || !wait_opening(spi)) {
    CHECK(0, "rekey to SPI %x: not installed, or its packets never came", spi);
    (*failures)++;
    return -1;
  }
  uint64_t accepted = 0, want = atomic_load(&opened_under_prev);
  int slot;
  struct tunnel_sa *old = in_lookup(&t, spi - 1, &slot);
  if (tunnel_sa_in_accepted(&t, spi - 1, &accepted) || !old || accepted != want ||
      old->replay.top != want) {
    CHECK(0, "SPI %x: accepted %llu, window top %llu, packets %llu", spi - 1,
              (unsigned long long)accepted, old ? (unsigned long long)old->replay.top : 0ULL,
              (unsigned long long)want);
    (*failures)++;
  }
  return tunnel_sa_retire_in(&t, spi - 1);
}

int main(void) {
  int failures = 0;
  t.nworkers = 2;
  pthread_mutex_init(&t.sa_lock, NULL);
  for (unsigned i = 0; i < 2; i++) t.w[i].t = &t, t.w[i].idx = i;
  CHECK(!tunnel_sa_add_in(&t, sa_of(SPI_BASE, TUNNEL_SA_IN)), "first inbound SA added");
  CHECK(!tunnel_sa_switch_out(&t, sa_of(SPI_BASE, TUNNEL_SA_OUT)), "first outbound SA");
  /* the interface's refusals */
  struct tunnel_sa *dup = sa_of(SPI_BASE, TUNNEL_SA_IN);
  CHECK(tunnel_sa_add_in(&t, dup) == GOSTX_EINVAL, "an SPI in use refused");
  tunnel_sa_free(dup);
  CHECK(tunnel_sa_retire_in(&t, 0x777) == GOSTX_EINVAL, "retiring an unknown SPI refused");
  pthread_t ts, to;
  pthread_create(&ts, NULL, sealer, &t.w[0]);
  pthread_create(&to, NULL, opener, &t.w[1]);
  int r = 1;
  for (; r <= ROUNDS && !failures; r++)
    if (rekey(SPI_BASE + (uint32_t)r, &failures)) break;
  atomic_store(&stop, 1);
  pthread_join(ts, NULL);
  pthread_join(to, NULL);
  CHECK(r > ROUNDS, "%d rekeys of %d done", r - 1, ROUNDS);
  CHECK(!bad_seal && !bad_open && !bad_order && !bad_retired,
             "%llu sealed, %llu opened: %llu not sealed, %llu not opened, %llu out of order, "
             "%llu under a retired SA",
             (unsigned long long)sealed, (unsigned long long)opened,
             (unsigned long long)bad_seal, (unsigned long long)bad_open,
             (unsigned long long)bad_order, (unsigned long long)bad_retired);
  tunnel_sa_clear_all(&t);
  /* per round: an inbound, an outbound and a decoy, each SA two blocks */
  CHECK(freed_blocks == 2u * (3u * ROUNDS + 3u) && !unwiped_blocks,
             "%u blocks freed, %u of them not wiped", freed_blocks, unwiped_blocks);
  return t_done();
}
