/* ESP bursts across SAs (gostx_esp_seal_mixed / gostx_esp_open_mixed: a
 * gateway's packets for many peers in one call) against the one-packet
 * calls, byte for byte: random mixes of SAs of all four transforms (ESN on
 * and off, some near a message-key boundary), payload lengths 0..1500 at
 * every alignment, each SA numbering its own packets; then opened under
 * each SA's window with some packets tampered (each refused on its own,
 * nothing released, the others opened), and the same packets again
 * (replays, per SA); a packet under an SA of another key and an SA of
 * NULL refused. A batch that handed a packet another packet's key or
 * nonce would differ from the one-packet calls. */
#include "testutil.h"

enum { N = GOSTX_ESP_BURST_MAX, NSA = 24, CAP = 1600 + 16, ROUNDS = 16 };

static const gostx_esp_transform transforms[] = {
    GOSTX_ESP_KUZNYECHIK_MGM_KTREE, GOSTX_ESP_MAGMA_MGM_KTREE,
    GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE, GOSTX_ESP_MAGMA_MGM_MAC_KTREE};

static gostx_esp_sa sas[NSA];
static gostx_esp_keycache kc_out[NSA], kc_in[NSA];
static gostx_esp_replay win[NSA];
static uint64_t next_seq[NSA];

static uint8_t pay[N][CAP], one[N][CAP], pk[N][CAP], got[N][CAP], want[N][CAP];
static size_t lens[N], one_len[N], which[N];
static const uint8_t *src[N]; /* each packet's payload (at its alignment) */
static int one_rc[N];

static void make_sas(void) {
  for (size_t s = 0; s < NSA; s++) {
    /* mostly the AEAD transforms (the gateway's), some integrity-only */
    const gostx_esp_transform tf = transforms[s % 8 == 7 ? 2 + s / 8 % 2 : s % 2];
    uint8_t km[GOSTX_ESP_KEY_LEN + GOSTX_ESP_SALT_MAX];
    t_rand_bytes(km, sizeof km);
    CHECK_RC(gostx_esp_sa_init(&sas[s], tf, 0x1000 + (uint32_t)s, km,
                               GOSTX_ESP_KEY_LEN + gostx_esp_salt_len(tf)),
             0, "sa_init");
    if (s % 3 == 2) CHECK_RC(gostx_esp_sa_set_esn(&sas[s], 0), 0, "esn off");
    gostx_esp_keycache_init(&kc_out[s]);
    gostx_esp_keycache_init(&kc_in[s]);
    gostx_esp_replay_init(&win[s]);
    /* SA 3 crosses a message key within the rounds; SA 5 is near its limit */
    next_seq[s] = s == 3 ? (1u << 24) - 40 : 1;
  }
  CHECK_RC(gostx_esp_sa_set_limit(&sas[5], 30), 0, "limit");
}

/* Payload length of a packet: block edges, tiny, full size, 0 (refused). */
static size_t pick_len(void) {
  static const size_t edges[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 40, 52, 64, 65, 1399, 1400, 1500};
  return t_rand_below(3) ? edges[t_rand_below(sizeof edges / sizeof edges[0])]
                         : t_rand_below(1501);
}

/* One round: a burst of packets of random SAs sealed in one call and one
 * by one; then opened in one call, bad ones tampered. */
static void round_trip(size_t r) {
  const gostx_esp_sa *sa[N];
  gostx_esp_keycache *kc[N];
  const gostx_esp_replay *rp[N];
  gostx_esp_packet b[N];
  /* rounds of one SA, of two, of any, and of a packet per SA (every key
   * serving one packet: the stream batch's lanes; a key of many packets
   * goes through gostx__mgm_many) */
  const size_t n = 1 + t_rand_below(r % 4 == 3 ? NSA : N);
  const size_t spread = r % 4 == 0 ? 1 : r % 4 == 1 ? 2 : NSA;
  for (size_t i = 0; i < n; i++) {
    const size_t s = which[i] = r % 4 == 3 ? (r + i) % NSA : (r + t_rand_below(spread)) % NSA;
    const size_t align = t_rand_below(16);
    lens[i] = pick_len();
    uint8_t *in = pay[i] + align;
    t_rand_bytes(in, lens[i]);
    const uint64_t seq = next_seq[s]++;
    one_len[i] = 0;
    one_rc[i] = gostx_esp_seal(&sas[s], NULL, seq, 4, in, lens[i], one[i], CAP, &one_len[i]);
    memset(pk[i], 0x5a, CAP);
    sa[i] = &sas[s];
    kc[i] = &kc_out[s];
    b[i] = (gostx_esp_packet){.in = in, .len = lens[i], .out = pk[i], .cap = CAP,
                             .next_header = 4, .seq = seq};
  }
  int first = 0;
  for (size_t i = 0; i < n && !first; i++) first = one_rc[i];
  CHECK_RC(gostx_esp_seal_mixed(sa, kc, b, n), first, "seal_mixed: the first failure");
  for (size_t i = 0; i < n; i++) {
    CHECK(b[i].status == one_rc[i], "round %zu packet %zu (SA %zu, len %zu): status %d, alone %d",
          r, i, which[i], lens[i], b[i].status, one_rc[i]);
    if (one_rc[i]) continue;
    CHECK(b[i].out_len == one_len[i] && !memcmp(pk[i], one[i], one_len[i]),
          "round %zu packet %zu (SA %zu, transform %d, len %zu) = gostx_esp_seal's", r, i,
          which[i], (int)sas[which[i]].transform, lens[i]);
  }
  /* open: the sealed ones, some tampered (header, body or ICV) */
  size_t m = 0;
  int bad[N];
  for (size_t i = 0; i < n; i++) {
    if (one_rc[i]) continue;
    src[m] = b[i].in;
    if (i != m) {
      memcpy(pk[m], pk[i], one_len[i]);
      lens[m] = lens[i], one_len[m] = one_len[i], which[m] = which[i];
      memcpy(pay[m], b[i].in, lens[i]);
      src[m] = pay[m];
    }
    bad[m] = t_rand_below(5) == 0;
    if (bad[m]) pk[m][4 + t_rand_below(one_len[m] - 4)] ^= (uint8_t)(1u << t_rand_below(8));
    m++;
  }
  for (size_t i = 0; i < m; i++) {
    const size_t s = which[i];
    gostx_esp_packet p = {.in = pk[i], .len = one_len[i], .out = want[i], .cap = CAP};
    one_rc[i] = gostx_esp_open(&sas[s], NULL, &win[s], &p);
    CHECK(!bad[i] ? one_rc[i] == 0 : one_rc[i] != 0, "one-packet open %zu: %d", i, one_rc[i]);
    memset(got[i], 0xa5, CAP);
    sa[i] = &sas[s];
    kc[i] = &kc_in[s];
    rp[i] = &win[s];
    b[i] = (gostx_esp_packet){.in = pk[i], .len = one_len[i], .out = got[i], .cap = CAP};
  }
  first = 0;
  for (size_t i = 0; i < m && !first; i++) first = one_rc[i];
  CHECK_RC(gostx_esp_open_mixed(sa, kc, rp, b, m), first, "open_mixed: the first failure");
  for (size_t i = 0; i < m; i++) {
    CHECK(b[i].status == one_rc[i], "round %zu open %zu (SA %zu): status %d, alone %d", r, i,
          which[i], b[i].status, one_rc[i]);
    if (b[i].status) {
      size_t untouched = 0;
      while (untouched < CAP && got[i][untouched] == 0xa5) untouched++;
      CHECK(b[i].out_len == 0 && untouched == CAP,
            "round %zu open %zu refused, nothing released", r, i);
      continue;
    }
    CHECK(b[i].out_len == lens[i] && b[i].next_header == 4 && !memcmp(got[i], src[i], lens[i]) &&
              !memcmp(got[i], want[i], lens[i]),
          "round %zu open %zu (SA %zu, len %zu) = the payload sealed", r, i, which[i], lens[i]);
    CHECK_RC(gostx_esp_replay_update(&win[which[i]], b[i].seq), 0, "window update");
  }
  /* the same packets again: every authentic one a replay under its SA */
  for (size_t i = 0; i < m; i++)
    b[i] = (gostx_esp_packet){.in = pk[i], .len = one_len[i], .out = got[i], .cap = CAP};
  const int again = gostx_esp_open_mixed(sa, kc, rp, b, m);
  CHECK(m == 0 || again != 0, "round %zu: the replayed burst refused", r);
  for (size_t i = 0; i < m; i++)
    CHECK(one_rc[i] ? b[i].status != 0 : b[i].status == GOSTX_ESTATE, "round %zu replay %zu: %d",
          r, i, b[i].status);
}

/* A packet under another SA's keys (its SPI rewritten to match) and a NULL
 * SA: refused, the packet beside them opened. */
static void wrong_sa(void) {
  const gostx_esp_sa *sa[3] = {&sas[0], &sas[2], NULL};
  gostx_esp_packet b[3];
  uint8_t in[3][64];
  for (int i = 0; i < 3; i++) {
    t_rand_bytes(in[i], 64);
    b[i] = (gostx_esp_packet){.in = in[i], .len = 64, .out = pk[i], .cap = CAP,
                             .next_header = 4, .seq = 1000 + (uint64_t)i};
  }
  CHECK_RC(gostx_esp_seal_mixed(sa, NULL, b, 3), GOSTX_EINVAL, "NULL SA refused");
  CHECK(b[0].status == 0 && b[1].status == 0 && b[2].status == GOSTX_EINVAL, "the others sealed");
  /* packet 1 was sealed under SA 2 (same transform as SA 0): claim SA 0 */
  memcpy(pk[1], pk[0], 4);
  const gostx_esp_sa *as[2] = {&sas[0], &sas[0]};
  gostx_esp_packet o[2] = {{.in = pk[0], .len = b[0].out_len, .out = got[0], .cap = CAP},
                           {.in = pk[1], .len = b[1].out_len, .out = got[1], .cap = CAP}};
  CHECK_RC(gostx_esp_open_mixed(as, NULL, NULL, o, 2), GOSTX_EAUTH, "another SA's key refused");
  CHECK(o[0].status == 0 && !memcmp(got[0], in[0], 64) && o[1].status == GOSTX_EAUTH,
        "the right one opened, the wrong key's refused");
  CHECK_RC(gostx_esp_seal_mixed(NULL, NULL, b, 1), GOSTX_EINVAL, "no SAs");
  CHECK_RC(gostx_esp_seal_mixed(sa, NULL, b, N + 1), GOSTX_EINVAL, "too many");
  CHECK_RC(gostx_esp_seal_mixed(NULL, NULL, NULL, 0), 0, "none");
}

int main(void) {
  t_rand_init();
  make_sas();
  for (size_t r = 0; r < ROUNDS; r++) round_trip(r);
  wrong_sa();
  for (size_t s = 0; s < NSA; s++) {
    gostx_esp_keycache_clear(&kc_out[s]);
    gostx_esp_keycache_clear(&kc_in[s]);
    gostx_esp_sa_clear(&sas[s]);
  }
  return t_done();
}
