/* A gateway's ESP bursts: 64 packets spread over S SAs (runs of 64 / S
 * packets each, as trains of one peer arrive), sealed and opened SA by SA
 * (gostx_esp_seal_burst / open_burst per run: the gateway before
 * 2026-11-30) against one call across the SAs (gostx_esp_seal_mixed /
 * open_mixed). ns per packet on the thread's CPU clock, the best of 3.
 *   usage: build/bench/esp_mixed_speed [ITERATIONS (2000)]
 * Rows: both AEAD transforms, 52-byte packets (a TCP ACK) and 1400-byte
 * ones, over 1, 8 and 64 SAs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gostx.h"

enum { N = GOSTX_ESP_BURST_MAX, CAP = 1600 };

static uint8_t pay[N][CAP], pkt[N][CAP], out[N][CAP];
static gostx_esp_sa sa[N];
static gostx_esp_keycache kc[N];

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One pass of iters bursts: mode 0 seal SA by SA, 1 seal mixed, 2 open SA
 * by SA, 3 open mixed (the packets sealed by the last seal pass). */
static int pass(int mode, size_t len, int nsa, int iters) {
  const int per = N / nsa;
  const size_t plen = gostx_esp_sealed_len(&sa[0], len);
  const gostx_esp_sa *sp[N];
  gostx_esp_keycache *kp[N];
  gostx_esp_packet b[N];
  for (int i = 0; i < N; i++) sp[i] = &sa[i / per], kp[i] = &kc[i / per];
  for (int it = 0; it < iters; it++) {
    const uint64_t seq = 1 + (uint64_t)it * (uint64_t)per;
    for (int i = 0; i < N; i++)
      b[i] = mode < 2 ? (gostx_esp_packet){.in = pay[i], .len = len, .out = pkt[i], .cap = CAP,
                                           .next_header = 4, .seq = seq + (uint64_t)(i % per)}
                      : (gostx_esp_packet){.in = pkt[i], .len = plen, .out = out[i], .cap = CAP};
    int rc = 0;
    if (mode == 1) rc = gostx_esp_seal_mixed(sp, kp, b, N);
    if (mode == 3) rc = gostx_esp_open_mixed(sp, kp, NULL, b, N);
    for (int s = 0; s < nsa && (mode == 0 || mode == 2); s++)
      rc |= mode == 0 ? gostx_esp_seal_burst(&sa[s], &kc[s], seq, b + s * per, (size_t)per)
                      : gostx_esp_open_burst(&sa[s], &kc[s], NULL, b + s * per, (size_t)per);
    if (rc) return rc;
  }
  return 0;
}

int main(int argc, char **argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 2000;
  static const gostx_esp_transform tf[2] = {GOSTX_ESP_KUZNYECHIK_MGM_KTREE,
                                            GOSTX_ESP_MAGMA_MGM_KTREE};
  static const size_t lens[2] = {52, 1400};
  static const int sas[3] = {1, 8, 64};
  if (iters < 1) return 2;
  printf("%-22s %5s %4s %10s %10s %10s %10s\n", "transform", "bytes", "SAs", "seal/SA", "seal mix",
         "open/SA", "open mix");
  for (int t = 0; t < 2; t++) {
    uint8_t km[GOSTX_ESP_KEY_LEN + GOSTX_ESP_SALT_MAX];
    for (int s = 0; s < N; s++) {
      for (size_t i = 0; i < sizeof km; i++) km[i] = (uint8_t)(s * 31 + i);
      if (gostx_esp_sa_init(&sa[s], tf[t], 0x1000 + (uint32_t)s, km,
                            GOSTX_ESP_KEY_LEN + gostx_esp_salt_len(tf[t])))
        return 1;
      gostx_esp_keycache_init(&kc[s]);
    }
    for (int l = 0; l < 2; l++)
      for (int k = 0; k < 3; k++) {
        double best[4] = {1e9, 1e9, 1e9, 1e9};
        for (int rep = 0; rep < 3; rep++)
          for (int mode = 0; mode < 4; mode++) {
            const double t0 = cpu_now();
            if (pass(mode, lens[l], sas[k], iters)) {
              fprintf(stderr, "esp_mixed_speed: a call failed\n");
              return 1;
            }
            const double ns = (cpu_now() - t0) / iters / N * 1e9;
            if (ns < best[mode]) best[mode] = ns;
          }
        printf("%-22s %5zu %4d %10.0f %10.0f %10.0f %10.0f\n",
               tf[t] == GOSTX_ESP_MAGMA_MGM_KTREE ? "magma-mgm-ktree" : "kuznyechik-mgm-ktree",
               lens[l], sas[k], best[0], best[1], best[2], best[3]);
      }
  }
  return 0;
}
