/* gostx bench --batch SIZE: the stream batches (gostx_batch_streams) against
 * the one-stream calls, the table of the GOST 28147-89 multi-stream article:
 * NSTREAMS streams of SIZE bytes per call, each row run as
 *   single   the one-stream call for each stream in turn (1 thread)
 *   1key     one batch call, one key for every stream (1 thread)
 *   keyed    one batch call, a key per stream (1 thread): MB/s and cycles/B
 *   keyed-all  the same on a pool of every online CPU (MB/s, and per core)
 * and the ratios keyed/1key and keyed/single. MB/s = 10^6 B/s of stream
 * data; cycles: cmd_bench.c's source (perf core cycles or the TSC). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define NSTREAMS 1024

struct brow {
  const char *alg, *mode;
  gostx_batch_op op;
  int cipher; /* GOSTX_ALG_KUZNYECHIK, GOSTX_ALG_MAGMA, 0: GOST 28147-89, -1: XTS */
};

static const struct brow brows[] = {
    {"magma", "cbc-enc", GOSTX_BATCH_CBC_ENCRYPT, GOSTX_ALG_MAGMA},
    {"magma", "cfb-enc", GOSTX_BATCH_CFB_ENCRYPT, GOSTX_ALG_MAGMA},
    {"magma", "ofb", GOSTX_BATCH_OFB, GOSTX_ALG_MAGMA},
    {"magma", "ctr", GOSTX_BATCH_CTR, GOSTX_ALG_MAGMA},
    {"magma", "omac", GOSTX_BATCH_OMAC, GOSTX_ALG_MAGMA},
    {"magma", "mgm-seal", GOSTX_BATCH_MGM_SEAL, GOSTX_ALG_MAGMA}, /* the tunnel's Magma-MGM */
    {"gost89", "cnt", GOSTX_BATCH_GOST89_CNT, 0},
    {"gost89", "cfb-enc", GOSTX_BATCH_GOST89_CFB_ENCRYPT, 0},
    {"gost89", "imit", GOSTX_BATCH_GOST89_IMIT, 0},
    {"kuznyechik", "cbc-enc", GOSTX_BATCH_CBC_ENCRYPT, GOSTX_ALG_KUZNYECHIK},
    {"kuznyechik", "cbc-dec", GOSTX_BATCH_CBC_DECRYPT, GOSTX_ALG_KUZNYECHIK},
    {"kuznyechik", "cfb-enc", GOSTX_BATCH_CFB_ENCRYPT, GOSTX_ALG_KUZNYECHIK},
    {"kuznyechik", "ctr", GOSTX_BATCH_CTR, GOSTX_ALG_KUZNYECHIK},
    {"kuznyechik", "omac", GOSTX_BATCH_OMAC, GOSTX_ALG_KUZNYECHIK},
    {"kuznyechik", "mgm-seal", GOSTX_BATCH_MGM_SEAL, GOSTX_ALG_KUZNYECHIK},
    {"kuznyechik", "xts-enc", GOSTX_BATCH_XTS_ENCRYPT, -1},
};

struct bset {
  gostx_stream s[NSTREAMS], s1[NSTREAMS]; /* a key per stream; one key for all */
  gostx_cipher c[NSTREAMS];
  gostx_gost89_key g[NSTREAMS];
  gostx_xts_key x[NSTREAMS];
  uint8_t *buf, *tags, *ivs;
};

/* keyed: a key per stream (b->s); else every stream uses key 0 (b->s1). */
static void bset_keys(struct bset *b, const struct brow *r, size_t len, int keyed) {
  gostx_stream *ss = keyed ? b->s : b->s1;
  for (size_t i = 0; i < NSTREAMS; i++) {
    const size_t k = keyed ? i : 0;
    gostx_stream *s = &ss[i];
    memset(s, 0, sizeof *s);
    s->key = r->cipher > 0 ? (const void *)&b->c[k]
             : r->cipher == 0 ? (const void *)&b->g[k] : (const void *)&b->x[k];
    s->iv = b->ivs + 16 * i;
    s->in = s->out = b->buf + len * i;
    s->len = len;
    s->tag = b->tags + 16 * i;
  }
}

static int run_batch(gostx_pool *pool, const struct brow *r, gostx_stream *s) {
  gostx_batch_params p = {0};
  p.meshing = 1;
  return gostx_batch_streams(pool, r->op, &p, s, NSTREAMS);
}

/* The one-stream calls, stream by stream. */
static int run_single(const struct brow *r, struct bset *b) {
  gostx_batch_params p = {0};
  p.meshing = 1;
  int rc = 0;
  for (size_t i = 0; i < NSTREAMS && !rc; i++) {
    gostx_stream *s = &b->s[i];
    const gostx_cipher *c = s->key;
    switch (r->op) {
      case GOSTX_BATCH_CBC_ENCRYPT: rc = gostx_cbc_encrypt(c, s->iv, c->block_len, s->in, s->len, s->out); break;
      case GOSTX_BATCH_CBC_DECRYPT: rc = gostx_cbc_decrypt(c, s->iv, c->block_len, s->in, s->len, s->out); break;
      case GOSTX_BATCH_CFB_ENCRYPT:
        rc = gostx_cfb_encrypt(c, s->iv, c->block_len, c->block_len, s->in, s->len, s->out);
        break;
      case GOSTX_BATCH_OFB: rc = gostx_ofb_crypt(c, s->iv, c->block_len, c->block_len, s->in, s->len, s->out); break;
      case GOSTX_BATCH_CTR: rc = gostx_ctr_crypt(c, s->iv, c->block_len / 2, c->block_len, s->in, s->len, s->out); break;
      case GOSTX_BATCH_OMAC: rc = gostx_omac(c, s->in, s->len, s->tag, c->block_len); break;
      case GOSTX_BATCH_MGM_SEAL:
        rc = gostx_mgm_encrypt(c, s->iv, NULL, 0, s->in, s->len, s->out, s->tag,
                               c->block_len);
        break;
      case GOSTX_BATCH_XTS_ENCRYPT: rc = gostx_xts_encrypt(s->key, s->iv, s->in, s->len, s->out); break;
      case GOSTX_BATCH_GOST89_CNT: rc = gostx_gost89_cnt(s->key, s->iv, 1, s->in, s->len, s->out); break;
      case GOSTX_BATCH_GOST89_CFB_ENCRYPT:
        rc = gostx_gost89_cfb(s->key, s->iv, 1, 0, s->in, s->len, s->out);
        break;
      case GOSTX_BATCH_GOST89_IMIT: rc = gostx_gost89_imit(s->key, s->iv, 1, s->in, s->len, s->tag, 4); break;
      default: rc = gostx_batch_streams(NULL, r->op, &p, s, 1); break;
    }
  }
  return rc;
}

/* The four variants of a row, repetition by repetition in turn (so that
 * their ratios are taken under the same load): 0 single, 1 one key, 2 a key
 * per stream, 3 a key per stream on the pool of every CPU. */
enum { V_SINGLE, V_ONEKEY, V_KEYED, V_ALL, NVAR };

static int run_var(int v, gostx_pool *all, const struct brow *r, struct bset *b) {
  switch (v) {
    case V_SINGLE: return run_single(r, b);
    case V_ONEKEY: return run_batch(NULL, r, b->s1);
    case V_KEYED: return run_batch(NULL, r, b->s);
    default: return run_batch(all, r, b->s);
  }
}

/* One pass of a variant, its cycles added up (a bench/harness job). */
struct var_job {
  int v;
  gostx_pool *all;
  const struct brow *r;
  struct bset *b;
  double cyc;
};

static int var_pass(void *arg) {
  struct var_job *j = arg;
  bench_cycles_start();
  int rc = run_var(j->v, j->all, j->r, j->b);
  j->cyc += bench_cycles_stop();
  return rc;
}

/* One repetition of variant v: >= min_time s; MB/s and cycles/B (or -1). */
static int rep_var(int v, gostx_pool *all, const struct brow *r, struct bset *b, size_t len,
                   double min_time, double *mbps, double *cpb) {
  struct var_job j = {v, all, r, b, 0};
  uint64_t passes;
  double t;
  /* a pool's work is not this thread's CPU time: V_ALL on the wall clock */
  int rc = gostx_bench_run_for(bench_clock(v == V_ALL), min_time, var_pass, &j, &passes, &t);
  const double bytes = (double)passes * NSTREAMS * len;
  *mbps = gostx_bench_mbps(bytes, t);
  *cpb = j.cyc > 0 ? j.cyc / bytes : -1;
  return rc;
}

/* Medians of every variant's MB/s (mb[v]), of the keyed cycles/B, and of
 * the per-repetition ratios keyed/one key and keyed/single. */
static int measure_row(gostx_pool *all, const struct brow *r, struct bset *b, size_t len,
                       int repeat, double min_time, double mb[NVAR], double *cpb,
                       double *r_one, double *r_single) {
  double v[NVAR][64], c[64], q1[64], qs[64], unused;
  if (repeat > 64) repeat = 64;
  for (int k = 0; k < NVAR; k++) { /* warm-up */
    int rc = run_var(k, all, r, b);
    if (rc) return rc;
  }
  for (int i = 0; i < repeat; i++) {
    for (int k = 0; k < NVAR; k++) {
      int rc = rep_var(k, all, r, b, len, min_time, &v[k][i], k == V_KEYED ? &c[i] : &unused);
      if (rc) return rc;
    }
    q1[i] = v[V_KEYED][i] / v[V_ONEKEY][i];
    qs[i] = v[V_KEYED][i] / v[V_SINGLE][i];
  }
  for (int k = 0; k < NVAR; k++) mb[k] = gostx_bench_median(v[k], repeat);
  *cpb = gostx_bench_median(c, repeat);
  *r_one = gostx_bench_median(q1, repeat);
  *r_single = gostx_bench_median(qs, repeat);
  return 0;
}

int bench_batch(size_t len, int repeat, double min_time, const char *filter, int json) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 1) cpus = 1;
  struct bset *b = calloc(1, sizeof *b);
  gostx_pool *all = gostx_pool_new((unsigned)cpus);
  if (b) {
    b->buf = malloc(NSTREAMS * len);
    b->tags = malloc(16 * NSTREAMS);
    b->ivs = malloc(16 * NSTREAMS);
  }
  if (!b || !b->buf || !b->tags || !b->ivs || !all) {
    cli_err("bench: out of memory");
    return CLI_EXIT_FAIL;
  }
  gostx_random_bytes(b->buf, NSTREAMS * len);
  gostx_random_bytes(b->ivs, 16 * NSTREAMS);
  for (size_t i = 0; i < NSTREAMS; i++) {
    uint8_t key[64];
    b->ivs[16 * i] &= 0x7f; /* MGM nonces */
    gostx_random_bytes(key, sizeof key);
    gostx_gost89_set_key(&b->g[i], key, GOSTX_SBOX_CRYPTOPRO_A);
    gostx_xts_set_key(&b->x[i], key);
    gostx_memzero(key, sizeof key);
  }
  if (json)
    printf("\"batch\": {\"stream_bytes\": %zu, \"streams_per_call\": %d, \"cpus\": %ld, \"rows\": [",
           len, NSTREAMS, cpus);
  else
    printf("\nstream batches: %d streams of %zu bytes per call (gostx_batch_streams), GOST 28147-89\n"
           "with CryptoPro-A S-box and key meshing; MB/s of stream data; cycles/B on 1 thread;\n"
           "keyed = a key per stream, 1key = one key for all, single = the one-stream call per\n"
           "stream; all = a pool of %ld threads (per core = all / %ld); the variants run\n"
           "repetition by repetition in turn, ratios are medians of per-repetition ratios\n\n"
           "%-11s %-9s %9s %9s %9s %8s %10s %9s %8s %8s\n",
           NSTREAMS, len, cpus, cpus, "algorithm", "mode", "single", "1key", "keyed", "cyc/B",
           "keyed-all", "per-core", "k/1key", "k/single");
  int first = 1, rc = 0;
  for (size_t i = 0; i < sizeof brows / sizeof brows[0] && !rc; i++) {
    const struct brow *r = &brows[i];
    char name[64];
    snprintf(name, sizeof name, "%s-%s", r->alg, r->mode);
    if (filter && !strstr(name, filter)) continue;
    const size_t ulen = r->op == GOSTX_BATCH_XTS_ENCRYPT && len < 16 ? 16 : len;
    if (ulen > len) continue;
    for (size_t k = 0; k < NSTREAMS; k++) {
      uint8_t key[32];
      gostx_random_bytes(key, sizeof key);
      gostx_cipher_init(&b->c[k], r->cipher > 0 ? (gostx_alg)r->cipher : GOSTX_ALG_MAGMA, key);
    }
    double mb[NVAR] = {0}, cpb_k = 0, r_one = 0, r_single = 0;
    bset_keys(b, r, len, 1);
    bset_keys(b, r, len, 0);
    rc = measure_row(all, r, b, len, repeat, min_time, mb, &cpb_k, &r_one, &r_single);
    if (rc) {
      cli_err("bench: batch %s failed: %s", name, gostx_strerror(rc));
      break;
    }
    if (json) {
      printf("%s\n  {\"algorithm\": \"%s\", \"mode\": \"%s\", \"single_mbps\": %.2f, "
             "\"onekey_mbps\": %.2f, \"keyed_mbps\": %.2f, \"keyed_cycles_per_byte\": %.3f, "
             "\"keyed_all_mbps\": %.2f, \"keyed_per_core_mbps\": %.2f, \"keyed_vs_onekey\": %.3f, "
             "\"keyed_vs_single\": %.3f}",
             first ? "" : ",", r->alg, r->mode, mb[V_SINGLE], mb[V_ONEKEY], mb[V_KEYED], cpb_k,
             mb[V_ALL], mb[V_ALL] / cpus, r_one, r_single);
    } else {
      printf("%-11s %-9s %9.1f %9.1f %9.1f %8.2f %10.1f %9.1f %7.2fx %7.1fx\n", r->alg, r->mode,
             mb[V_SINGLE], mb[V_ONEKEY], mb[V_KEYED], cpb_k, mb[V_ALL], mb[V_ALL] / cpus, r_one,
             r_single);
    }
    first = 0;
    fflush(stdout);
  }
  if (json) printf("\n]}");
  gostx_pool_free(all);
  gostx_memzero(b, offsetof(struct bset, buf)); /* the keys */
  free(b->buf);
  free(b->tags);
  free(b->ivs);
  free(b);
  return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
