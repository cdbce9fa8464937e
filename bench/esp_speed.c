/* ESP packets per second of lib/esp, per transform and packet size: one
 * gostx_esp_seal / gostx_esp_open call per packet against the burst calls
 * (32 packets a call, the tunnel's burst), on the calling thread's CPU
 * clock (a busy machine disturbs it less). Median of 5 runs. Two columns
 * give the crypto alone on the same clock, for the "tunnel's crypto against
 * the raw rate" ratio: `mgm`, one gostx_mgm_encrypt per packet (the
 * transform's cipher, one key, 12-byte AAD, tag only: no key tree, no ESP
 * framing), and `batch`, the 32 packets as one MGM stream batch
 * (gostx_batch_streams, one key: what `gostx bench --batch` runs).
 *   usage: build/bench/esp_speed [MIN_SECONDS_PER_RUN (0.2)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#include "harness.h"

enum { BURST = 32, SLOT = 2048 };

struct job {
  gostx_esp_sa sa;
  gostx_esp_keycache kc;
  size_t len;
  int burst, open, raw; /* raw: 1 = mgm, 2 = batch */
  gostx_cipher c;
  uint64_t seq;
  uint8_t pay[BURST][SLOT], pkt[BURST][SLOT], out[BURST][SLOT];
  size_t pkt_len[BURST];
};

/* The crypto alone: MGM seals of the packets under one key. */
static int run_raw(struct job *j) {
  const size_t n = j->c.block_len;
  uint8_t nonce[16] = {0}, aad[12] = {0};
  if (j->raw == 1) {
    for (int i = 0; i < BURST; i++) {
      nonce[n - 1] = (uint8_t)i;
      int rc = gostx_mgm_encrypt(&j->c, nonce, aad, sizeof aad, j->pay[i], j->len, j->pkt[i],
                                 j->pkt[i] + j->len, n);
      if (rc) return rc;
    }
    return 0;
  }
  static uint8_t nonces[BURST][16];
  gostx_stream s[BURST];
  gostx_batch_params p = {0};
  for (int i = 0; i < BURST; i++) {
    nonces[i][n - 1] = (uint8_t)i;
    s[i] = (gostx_stream){.key = &j->c, .iv = nonces[i], .aad = aad, .aad_len = sizeof aad,
                          .in = j->pay[i], .len = j->len, .out = j->pkt[i],
                          .tag = j->pkt[i] + j->len};
  }
  return gostx_batch_streams(NULL, GOSTX_BATCH_MGM_SEAL, &p, s, BURST);
}

static int run(void *arg) {
  struct job *j = arg;
  gostx_esp_packet b[BURST];
  if (j->raw) return run_raw(j);
  if (j->open) {
    if (j->burst) {
      for (int i = 0; i < BURST; i++)
        b[i] = (gostx_esp_packet){.in = j->pkt[i], .len = j->pkt_len[i], .out = j->out[i], .cap = SLOT};
      return gostx_esp_open_burst(&j->sa, &j->kc, NULL, b, BURST);
    }
    for (int i = 0; i < BURST; i++) {
      gostx_esp_packet p = {.in = j->pkt[i], .len = j->pkt_len[i], .out = j->out[i], .cap = SLOT};
      int rc = gostx_esp_open(&j->sa, &j->kc, NULL, &p);
      if (rc) return rc;
    }
    return 0;
  }
  if (j->burst) {
    for (int i = 0; i < BURST; i++)
      b[i] = (gostx_esp_packet){.in = j->pay[i], .len = j->len, .out = j->pkt[i], .cap = SLOT,
                               .next_header = 4};
    int rc = gostx_esp_seal_burst(&j->sa, &j->kc, j->seq, b, BURST);
    j->seq += BURST;
    return rc;
  }
  for (int i = 0; i < BURST; i++) {
    int rc = gostx_esp_seal(&j->sa, &j->kc, j->seq++, 4, j->pay[i], j->len, j->pkt[i], SLOT,
                            &j->pkt_len[i]);
    if (rc) return rc;
  }
  return 0;
}

int main(int argc, char **argv) {
  double min_s = argc > 1 ? atof(argv[1]) : 0.2;
  static struct job j;
  static const size_t sizes[] = {64, 576, 1400};
  printf("# lib/esp on %s (Kuznyechik %s, Magma %s, MGM %s), ns per packet, thread CPU time\n",
         gostx_cpu_features(), gostx_impl(GOSTX_ALG_KUZNYECHIK), gostx_impl(GOSTX_ALG_MAGMA),
         gostx_impl(GOSTX_ALG_MGM));
  printf("%-22s %6s %10s %10s %10s %10s %8s %8s\n", "transform", "bytes", "seal", "seal-burst",
         "open", "open-burst", "mgm", "batch");
  for (int t = GOSTX_ESP_KUZNYECHIK_MGM_KTREE; t <= GOSTX_ESP_MAGMA_MGM_KTREE; t++) {
    uint8_t km[44];
    for (int i = 0; i < 44; i++) km[i] = (uint8_t)(i * 13 + 1);
    if (gostx_esp_sa_init(&j.sa, (gostx_esp_transform)t, 0x1000, km,
                          32 + gostx_esp_salt_len((gostx_esp_transform)t)))
      return 1;
    if (gostx_cipher_init(&j.c,
                          t == GOSTX_ESP_KUZNYECHIK_MGM_KTREE ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA,
                          km))
      return 1;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      double ns[6];
      for (int mode = 0; mode < 6; mode++) {
        gostx_esp_keycache_init(&j.kc);
        j.len = sizes[s];
        j.raw = mode >= 4 ? mode - 3 : 0;
        j.burst = mode & 1;
        j.open = mode < 4 ? mode >> 1 : 0;
        j.seq = 1;
        if (j.open) { /* packets to open: sealed once, one by one */
          int b = j.burst, o = j.open;
          j.burst = j.open = 0;
          if (run(&j)) return 1;
          j.burst = b, j.open = o;
        }
        double v[5];
        for (int r = 0; r < 5; r++) {
          uint64_t calls;
          double sec;
          if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, min_s, run, &j, &calls, &sec)) return 1;
          v[r] = sec / (double)(calls * BURST) * 1e9;
        }
        ns[mode] = gostx_bench_median(v, 5);
      }
      printf("%-22s %6zu %10.0f %10.0f %10.0f %10.0f %8.0f %8.0f\n",
             t == GOSTX_ESP_KUZNYECHIK_MGM_KTREE ? "kuznyechik-mgm-ktree" : "magma-mgm-ktree",
             sizes[s], ns[0], ns[1], ns[2], ns[3], ns[4], ns[5]);
    }
  }
  return 0;
}
