/* ESP bursts of full-size packets (lib/esp/burst.c over gostx__mgm_many:
 * on the avx512 row their H values and gamma share the byte-sliced
 * kernel's 64-block groups across packets) against the one-packet calls,
 * byte for byte: 64 packets of 1400 bytes, mixed lengths, a burst that
 * crosses a message-key boundary, an open burst of packets under three
 * message keys interleaved, and one bad tag in the middle (refused, its
 * output untouched, the rest opened). */
#include "testutil.h"

enum { N = GOSTX_ESP_BURST_MAX, CAP = 1600 };

static const gostx_esp_transform transforms[] = {GOSTX_ESP_KUZNYECHIK_MGM_KTREE,
                                                 GOSTX_ESP_MAGMA_MGM_KTREE};

static uint8_t pay[N][1500], one[N][CAP], pk[N][CAP], got[N][CAP], want[N][CAP];
static size_t lens[N], one_len[N];
static uint64_t seqs[N];

/* Lengths of one burst: shape 0 all 1400, 1 mixed (block edges, tiny, full
 * size, random). */
static size_t burst_len(int shape, size_t i) {
  static const size_t edges[] = {1, 14, 15, 16, 17, 63, 64, 65, 1024, 1399, 1400, 1401, 1500};
  if (shape == 0) return 1400;
  if (i % 3 == 0) return 1400;
  if (i % 3 == 1) return edges[t_rand_below(sizeof edges / sizeof edges[0])];
  return 1 + t_rand_below(1500);
}

/* Seals a burst from seq first: each packet = gostx_esp_seal's. */
static void seal_burst_same(const gostx_esp_sa *sa, int shape, uint64_t first, const char *what) {
  gostx_esp_keycache kc;
  gostx_esp_packet b[N];
  gostx_esp_keycache_init(&kc);
  for (size_t i = 0; i < N; i++) {
    lens[i] = burst_len(shape, i);
    t_rand_bytes(pay[i], lens[i]);
    CHECK_RC(gostx_esp_seal(sa, NULL, first + i, 4, pay[i], lens[i], one[i], CAP, &one_len[i]), 0,
             "one-packet seal");
    b[i] = (gostx_esp_packet){.in = pay[i], .len = lens[i], .out = pk[i], .cap = CAP,
                             .next_header = 4};
  }
  const int rc = gostx_esp_seal_burst(sa, &kc, first, b, N);
  CHECK(rc == 0, "%s: seal burst: %d", what, rc);
  for (size_t i = 0; i < N; i++)
    CHECK(b[i].status == 0 && b[i].out_len == one_len[i] && !memcmp(pk[i], one[i], one_len[i]),
          "%s: packet %zu (len %zu) = one-packet seal", what, i, lens[i]);
  gostx_esp_keycache_clear(&kc);
}

/* An open burst of packets from three message keys (IV >> 24: 0, 1, 2),
 * interleaved, packet bad (when < N) with one ICV bit flipped: each result
 * = gostx_esp_open's, the bad one refused with nothing written. */
static void open_mixed_keys(const gostx_esp_sa *sa, size_t bad, const char *what) {
  static const uint64_t bases[3] = {100, (1u << 24) + 7, (2u << 24) - 20};
  gostx_esp_packet b[N];
  for (size_t i = 0; i < N; i++) {
    seqs[i] = bases[i % 3] + i / 3 + 1;
    lens[i] = burst_len(i % 2, i);
    t_rand_bytes(pay[i], lens[i]);
    CHECK_RC(gostx_esp_seal(sa, NULL, seqs[i], 4, pay[i], lens[i], pk[i], CAP, &one_len[i]), 0,
             "seal");
  }
  if (bad < N) pk[bad][one_len[bad] - 1] ^= 0x10;
  for (size_t i = 0; i < N; i++) {
    gostx_esp_packet p = {.in = pk[i], .len = one_len[i], .out = want[i], .cap = CAP};
    const int rc = gostx_esp_open(sa, NULL, NULL, &p);
    CHECK(rc == (i == bad ? GOSTX_EAUTH : 0), "%s: one-packet open %zu: %d", what, i, rc);
    memset(got[i], 0xa5, CAP);
    b[i] = (gostx_esp_packet){.in = pk[i], .len = one_len[i], .out = got[i], .cap = CAP};
  }
  gostx_esp_keycache kc;
  gostx_esp_keycache_init(&kc);
  const int rc = gostx_esp_open_burst(sa, &kc, NULL, b, N);
  CHECK(rc == (bad < N ? GOSTX_EAUTH : 0), "%s: open burst: %d", what, rc);
  for (size_t i = 0; i < N; i++) {
    if (i == bad) {
      size_t untouched = 0;
      while (untouched < CAP && got[i][untouched] == 0xa5) untouched++;
      CHECK(b[i].status == GOSTX_EAUTH && b[i].out_len == 0 && untouched == CAP,
            "%s: bad tag %zu refused, nothing released", what, i);
      continue;
    }
    CHECK(b[i].status == 0 && b[i].seq == seqs[i] && b[i].out_len == lens[i] &&
              b[i].next_header == 4 && !memcmp(got[i], want[i], lens[i]) &&
              !memcmp(got[i], pay[i], lens[i]),
          "%s: packet %zu (len %zu) = one-packet open", what, i, lens[i]);
  }
  gostx_esp_keycache_clear(&kc);
}

int main(void) {
  t_rand_init();
  for (size_t t = 0; t < sizeof transforms / sizeof transforms[0]; t++) {
    gostx_esp_sa sa;
    uint8_t km[GOSTX_ESP_KEY_LEN + GOSTX_ESP_SALT_MAX];
    for (size_t i = 0; i < sizeof km; i++) km[i] = (uint8_t)(i * 11 + 3 + t);
    CHECK_RC(gostx_esp_sa_init(&sa, transforms[t], 0x5005, km,
                               GOSTX_ESP_KEY_LEN + gostx_esp_salt_len(transforms[t])),
             0, "sa_init");
    seal_burst_same(&sa, 0, 1, "64 x 1400");
    seal_burst_same(&sa, 1, 1000, "mixed lengths");
    seal_burst_same(&sa, 1, (1u << 24) - 30, "across a key boundary");
    open_mixed_keys(&sa, N, "three keys");
    open_mixed_keys(&sa, N / 2 - 1, "three keys, a bad tag");
    open_mixed_keys(&sa, 0, "three keys, the first bad");
    gostx_esp_sa_clear(&sa);
  }
  return t_done();
}
