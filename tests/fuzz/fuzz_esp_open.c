/* libFuzzer harness: ESP open (gostx_esp_open, gostx_esp_open_burst and _mixed,
 * lib/esp) against a fixed SA, as the tunnel's receiver runs them: each
 * packet opened, the window moved only by accepted ones, one counter per
 * outcome. Packets are fuzzer bytes as they stand, or packets sealed here
 * with the SA and then mutated (bytes flipped, cut short, lengthened).
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - an accepted packet is genuine: its ICV verifies when checked again
 *    here from the public API (message key from gostx_esp_tree_key of the
 *    IV's i1 | i2 | i3, MGM with nonce 0 | the IV's pnum | salt and AAD
 *    SPI | ESN, or SPI | SN without ESN), its SPI and SN match the
 *    sequence number reported, and the payload, pad length and next header
 *    are the plaintext's; a mutated packet is accepted only when it equals
 *    the packet sealed;
 *  - a packet sealed here and left intact, to the right of the window top
 *    by less than 2^31, is accepted;
 *  - a refused packet leaves the output buffer as it was (or zeroed, for a
 *    malformed trailer), and the return value is one of the documented ones;
 *  - counters: every packet lands in exactly one; a sequence number is
 *    delivered at most once; the window's top only grows;
 *  - the burst call gives every packet the status, sequence number, length,
 *    next header and bytes of the one-packet call against the same window;
 *  - so does the call across SAs (gostx_esp_open_mixed), the odd packets
 *    under a second SA of the other cipher.
 *
 * The SA is that of the packet vector in tests/vectors/esp9227.json (its
 * KEYMAT and SPI), so that packet, ESN off, is a seed that opens.
 *
 * Input: byte 0 (bit 0: Kuznyechik / Magma; bit 1: no key cache; bit 2: ESN
 * off, sequence numbers taken mod 2^32; bit 3: the integrity-only transform
 * of that cipher, 34 or 35), bytes 1-8
 * the window's starting top (big-endian), then records, at most
 * MAX_PKTS: kind (1), length (2, big-endian), that many bytes. Kind bit 0
 * clear: the bytes are the packet. Set: bytes 0-7 the sequence number (0 is
 * taken as 1), byte 8 a mutation count m, then m mutations of 3 bytes
 * (position 2, value 1), the rest the payload; the packet is sealed with
 * next header kind >> 1, then each mutation XORs its value into the byte at
 * position mod (length + 2): length means cut to value mod length bytes,
 * length + 1 append the value. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"

#define MAX_PKTS 16
#define MAX_LEN 2048 /* -max_len=4096 bounds the input: no packet is longer */
#define SENTINEL 0xa5

static const uint8_t keymat[GOSTX_ESP_KEY_LEN + GOSTX_ESP_SALT_MAX] = {
    0xb6, 0x18, 0x0c, 0x14, 0x5c, 0x51, 0x2d, 0xbd, 0x69, 0xd9, 0xce, 0xa9, 0x2c, 0xac, 0x1b,
    0x5c, 0xe1, 0xbc, 0xfa, 0x73, 0x79, 0x2d, 0x61, 0xaf, 0x0b, 0x44, 0x0d, 0x84, 0xb5, 0x22,
    0xcc, 0x38, 0x7b, 0x67, 0xe6, 0xf2, 0x44, 0xf9, 0x7f, 0x06, 0x78, 0x95, 0x2e, 0x45};
static const uint32_t SPI = 0x5146536b;

struct pkt {
  uint8_t b[MAX_LEN + 2 * GOSTX_ESP_OVERHEAD_MAX];
  size_t len;
  int sealed, intact; /* sealed here; still the packet sealed */
  uint64_t seq;       /* sealed: its sequence number */
};
static struct pkt pkts[MAX_PKTS];
static uint8_t out1[MAX_PKTS][sizeof pkts[0].b], out2[MAX_PKTS][sizeof pkts[0].b];

static void bug(const char *what, size_t i) {
  fprintf(stderr, "fuzz_esp_open: packet %zu: %s\n", i, what);
  abort();
}

static uint64_t be64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | p[i];
  return v;
}
static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int integrity_only(const gostx_esp_sa *sa) {
  return sa->transform == GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE ||
         sa->transform == GOSTX_ESP_MAGMA_MGM_MAC_KTREE;
}

/* gostx_esp_open of packet p (number i) into out, its parts in *one. */
static int open_one(const gostx_esp_sa *sa, gostx_esp_keycache *kc, const gostx_esp_replay *w,
                    const struct pkt *p, uint8_t *out, gostx_esp_packet *one, size_t i) {
  *one = (gostx_esp_packet){.in = p->b, .len = p->len, .out = out, .cap = p->len};
  int rc = gostx_esp_open(sa, kc, w, one);
  if (rc != one->status) bug("open: status differs from its return", i);
  if (rc && one->out_len) bug("open: a length written on refusal", i);
  return rc;
}

/* An accepted packet checked again from the public API alone. */
static void verify_accepted(const gostx_esp_sa *sa, const struct pkt *p, const uint8_t *out,
                            size_t out_len, uint8_t nh, uint64_t seq, size_t i) {
  const size_t icv = sa->icv_len;
  if (p->len < GOSTX_ESP_HDR_LEN + 4 + icv) bug("accepted a packet too short to hold one", i);
  const size_t body = p->len - GOSTX_ESP_HDR_LEN - icv;
  if (body % 4) bug("accepted a body not 4-byte aligned", i);
  if (be32(p->b) != sa->spi) bug("accepted another SPI", i);
  if (be32(p->b + 4) != (uint32_t)seq) bug("SN is not the low half of the reported ESN", i);
  if (!sa->esn && seq >> 32) bug("a number past 2^32 - 1 without ESN", i);
  const uint64_t iv = be64(p->b + 8);
  uint8_t k[32], nonce[16], aad[12];
  if (gostx_esp_tree_key(sa, iv >> 24, k)) bug("tree_key", i);
  gostx_cipher c;
  if (gostx_cipher_init(&c, (gostx_alg)sa->alg, k)) bug("cipher_init", i);
  nonce[0] = 0;
  nonce[1] = (uint8_t)(iv >> 16), nonce[2] = (uint8_t)(iv >> 8), nonce[3] = (uint8_t)iv;
  memcpy(nonce + 4, sa->salt, sa->salt_len);
  memcpy(aad, p->b, 4);
  for (int j = 0; j < 8; j++) aad[4 + j] = (uint8_t)(seq >> (56 - 8 * j));
  const size_t al = sa->esn ? 12 : 8;
  if (!sa->esn) memcpy(aad + 4, p->b + 4, 4);
  static uint8_t pt[sizeof pkts[0].b], whole[12 + sizeof pkts[0].b];
  const uint8_t *tag = p->b + GOSTX_ESP_HDR_LEN + body;
  int verified;
  if (integrity_only(sa)) { /* AAD = SPI | (E)SN | IV | body, in one piece here */
    memcpy(whole, aad, al);
    memcpy(whole + al, p->b + 8, 8 + body);
    verified = gostx_mgm_decrypt(&c, nonce, whole, al + 8 + body, NULL, 0, tag,
                                 icv, NULL) == GOSTX_OK;
    memcpy(pt, p->b + GOSTX_ESP_HDR_LEN, body);
  } else {
    verified = gostx_mgm_decrypt(&c, nonce, aad, al, p->b + GOSTX_ESP_HDR_LEN,
                                 body, tag, icv, pt) == GOSTX_OK;
  }
  if (!verified) bug("accepted a packet whose ICV does not verify", i);
  gostx_cipher_clear(&c);
  const size_t pad = pt[body - 2];
  if (pad + 2 > body || out_len != body - 2 - pad) bug("payload length is not the trailer's", i);
  for (size_t j = 0; j < pad; j++)
    if (pt[out_len + j] != (uint8_t)(j + 1)) bug("accepted bad padding", i);
  if (nh != pt[body - 1]) bug("next header is not the trailer's", i);
  if (memcmp(out, pt, out_len)) bug("payload is not the plaintext", i);
  if (p->sealed && !p->intact) bug("accepted a mutated packet", i);
}

/* A refused packet: a documented status, and out as it was (EFORMAT after
 * decryption, a bad trailer, zeroes what it wrote). */
static void check_refused(int rc, const uint8_t *out, size_t cap, size_t i) {
  if (rc != GOSTX_EINVAL && rc != GOSTX_EFORMAT && rc != GOSTX_ESTATE && rc != GOSTX_EAUTH)
    bug("undocumented status", i);
  for (size_t j = 0; j < cap; j++)
    if (out[j] != SENTINEL && !(rc == GOSTX_EFORMAT && out[j] == 0))
      bug("a refused packet wrote its output", i);
}

/* Parses the records into pkts; returns their count. */
static size_t parse(const gostx_esp_sa *sa, gostx_esp_keycache *kc, const uint8_t *d,
                    size_t n) {
  size_t np = 0;
  while (np < MAX_PKTS && n >= 3) {
    const uint8_t kind = d[0];
    size_t len = (size_t)d[1] << 8 | d[2];
    d += 3, n -= 3;
    if (len > n) len = n;
    if (len > MAX_LEN) len = MAX_LEN;
    struct pkt *p = &pkts[np];
    p->sealed = p->intact = 0;
    if (!(kind & 1)) {
      memcpy(p->b, d, len);
      p->len = len;
    } else {
      uint8_t rec[MAX_LEN];
      memset(rec, 0, sizeof rec);
      memcpy(rec, d, len);
      uint64_t seq = len >= 8 ? be64(rec) : 1;
      if (!sa->esn) seq &= 0xffffffffu;
      if (seq == 0) seq = 1;
      const size_t m = len > 8 ? rec[8] : 0;
      const size_t mut_end = 9 + 3 * m;
      const uint8_t *pay = len > mut_end ? rec + mut_end : (const uint8_t *)"\x45";
      const size_t plen = len > mut_end ? len - mut_end : 1;
      size_t sl = 0;
      if (gostx_esp_seal(sa, kc, seq, (uint8_t)(kind >> 1), pay, plen, p->b, sizeof p->b, &sl))
        bug("seal of a valid payload failed", np);
      uint8_t orig[sizeof p->b];
      memcpy(orig, p->b, sl);
      p->len = sl;
      p->sealed = 1;
      p->seq = seq;
      for (size_t k = 0; k < m && 9 + 3 * k + 2 < len; k++) {
        const uint8_t *mu = rec + 9 + 3 * k;
        const size_t pos = ((size_t)mu[0] << 8 | mu[1]) % (p->len + 2);
        if (pos < p->len)
          p->b[pos] ^= mu[2];
        else if (pos == p->len && p->len)
          p->len = mu[2] % p->len;
        else if (p->len < sizeof p->b)
          p->b[p->len++] = mu[2];
      }
      p->intact = p->len == sl && !memcmp(p->b, orig, sl);
    }
    d += len, n -= len;
    np++;
  }
  return np;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 9) return 0;
  static const gostx_esp_transform ts[4] = {
      GOSTX_ESP_KUZNYECHIK_MGM_KTREE, GOSTX_ESP_MAGMA_MGM_KTREE,
      GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE, GOSTX_ESP_MAGMA_MGM_MAC_KTREE};
  const gostx_esp_transform t = ts[(data[0] & 1) | (data[0] >> 2 & 2)]; /* bits 0 and 3 */
  const int use_cache = !(data[0] & 2);
  const uint64_t top0 = be64(data + 1);
  gostx_esp_sa sa;
  if (gostx_esp_sa_init(&sa, t, SPI, keymat, GOSTX_ESP_KEY_LEN + gostx_esp_salt_len(t)) ||
      gostx_esp_sa_set_esn(&sa, !(data[0] & 4)))
    bug("sa_init", 0);
  gostx_esp_keycache kseal, k1, k2;
  gostx_esp_keycache_init(&kseal);
  gostx_esp_keycache_init(&k1);
  gostx_esp_keycache_init(&k2);
  const size_t np = parse(&sa, &kseal, data + 9, size - 9);
  if (!np) return 0;

  /* 1. The receiver's loop, one packet at a time, with its counters. */
  gostx_esp_replay w;
  gostx_esp_replay_init(&w);
  w.top = top0;
  unsigned long delivered = 0, replay = 0, auth = 0, malformed = 0, spi = 0;
  uint64_t seen[MAX_PKTS];
  for (size_t i = 0; i < np; i++) {
    const struct pkt *p = &pkts[i];
    const uint64_t top_before = w.top;
    memset(out1[i], SENTINEL, sizeof out1[i]);
    gostx_esp_packet one;
    int rc = open_one(&sa, use_cache ? &k1 : NULL, &w, p, out1[i], &one, i);
    const uint64_t seq = one.seq;
    if (rc == GOSTX_OK) {
      verify_accepted(&sa, p, out1[i], one.out_len, one.next_header, seq, i);
      rc = gostx_esp_replay_update(&w, seq);
      if (rc == GOSTX_OK) {
        for (size_t j = 0; j < delivered; j++)
          if (seen[j] == seq) bug("a sequence number delivered twice", i);
        seen[delivered++] = seq;
        if (w.top < seq) bug("window top below an accepted number", i);
      } else if (rc == GOSTX_ESTATE) {
        replay++;
      } else {
        bug("replay_update: undocumented status", i);
      }
    } else {
      check_refused(rc, out1[i], p->len, i);
      if (rc == GOSTX_ESTATE) replay++;
      else if (rc == GOSTX_EAUTH) auth++;
      else if (rc == GOSTX_EFORMAT) malformed++;
      else spi++;
      if (p->sealed && p->intact && p->seq > top_before && p->seq - top_before < (1ULL << 31))
        bug("refused an intact packet right of the window", i);
    }
    if (w.top < top_before) bug("the window moved left", i);
  }
  if (delivered + replay + auth + malformed + spi != np) bug("counters do not add up", np);

  /* 2. Burst against the starting window = one-packet calls against it. */
  gostx_esp_replay w0;
  gostx_esp_replay_init(&w0);
  w0.top = top0;
  gostx_esp_packet b[MAX_PKTS];
  for (size_t i = 0; i < np; i++) {
    memset(out2[i], SENTINEL, sizeof out2[i]);
    b[i] = (gostx_esp_packet){.in = pkts[i].b, .len = pkts[i].len, .out = out2[i],
                             .cap = pkts[i].len};
  }
  const int brc = gostx_esp_open_burst(&sa, use_cache ? &k2 : NULL, &w0, b, np);
  int first = GOSTX_OK;
  gostx_esp_keycache_init(&k1);
  for (size_t i = 0; i < np; i++) {
    const struct pkt *p = &pkts[i];
    memset(out1[i], SENTINEL, sizeof out1[i]);
    gostx_esp_packet one;
    int rc = open_one(&sa, use_cache ? &k1 : NULL, &w0, p, out1[i], &one, i);
    if (rc != b[i].status) bug("burst status differs from the one-packet call", i);
    if (rc == GOSTX_OK) {
      verify_accepted(&sa, p, out2[i], b[i].out_len, b[i].next_header, b[i].seq, i);
      if (b[i].seq != one.seq || b[i].out_len != one.out_len ||
          b[i].next_header != one.next_header || memcmp(out1[i], out2[i], one.out_len))
        bug("burst result differs from the one-packet call", i);
    } else {
      check_refused(rc, out2[i], p->len, i);
      if (first == GOSTX_OK) first = rc;
    }
  }
  if (brc != first) bug("burst return is not the first failing status", np);
  /* The window taken forward by the burst's accepted packets, in order:
   * duplicates inside the burst are refused by the update. */
  unsigned long bdelivered = 0;
  for (size_t i = 0; i < np; i++) {
    if (b[i].status) continue;
    if (gostx_esp_replay_update(&w0, b[i].seq) == GOSTX_OK) {
      for (size_t j = 0; j < bdelivered; j++)
        if (seen[j] == b[i].seq) bug("burst: a sequence number delivered twice", i);
      seen[bdelivered++] = b[i].seq;
    }
  }
  /* 3. Across SAs (gostx_esp_open_mixed, a gateway's receive): the odd
   * packets under a second SA of the same key and SPI but the other
   * cipher's AEAD transform (what they were sealed under or not), each
   * packet the one-packet call under its own SA and window. */
  gostx_esp_sa sa2;
  const gostx_esp_transform t2 = t == GOSTX_ESP_KUZNYECHIK_MGM_KTREE ? GOSTX_ESP_MAGMA_MGM_KTREE
                                                                      : GOSTX_ESP_KUZNYECHIK_MGM_KTREE;
  if (gostx_esp_sa_init(&sa2, t2, SPI, keymat, GOSTX_ESP_KEY_LEN + gostx_esp_salt_len(t2)))
    bug("the second SA refused", 0);
  const gostx_esp_sa *sas[MAX_PKTS];
  gostx_esp_keycache k3, k4, *caches[MAX_PKTS];
  const gostx_esp_replay *wins[MAX_PKTS];
  gostx_esp_keycache_init(&k3);
  gostx_esp_keycache_init(&k4);
  gostx_esp_replay_init(&w0);
  w0.top = top0;
  for (size_t i = 0; i < np; i++) {
    sas[i] = i & 1 ? &sa2 : &sa;
    caches[i] = !use_cache ? NULL : i & 1 ? &k4 : &k3;
    wins[i] = &w0;
    memset(out2[i], SENTINEL, sizeof out2[i]);
    b[i] = (gostx_esp_packet){.in = pkts[i].b, .len = pkts[i].len, .out = out2[i],
                             .cap = pkts[i].len};
  }
  const int mrc = gostx_esp_open_mixed(sas, caches, wins, b, np);
  first = GOSTX_OK;
  for (size_t i = 0; i < np; i++) {
    memset(out1[i], SENTINEL, sizeof out1[i]);
    gostx_esp_packet one = {.in = pkts[i].b, .len = pkts[i].len, .out = out1[i],
                            .cap = pkts[i].len};
    const int rc = gostx_esp_open(sas[i], NULL, &w0, &one);
    if (rc != b[i].status) bug("mixed status differs from the one-packet call", i);
    if (rc == GOSTX_OK) {
      verify_accepted(sas[i], &pkts[i], out2[i], b[i].out_len, b[i].next_header, b[i].seq, i);
      if (b[i].seq != one.seq || b[i].out_len != one.out_len ||
          b[i].next_header != one.next_header || memcmp(out1[i], out2[i], one.out_len))
        bug("mixed result differs from the one-packet call", i);
    } else {
      check_refused(rc, out2[i], pkts[i].len, i);
      if (first == GOSTX_OK) first = rc;
    }
  }
  if (mrc != first) bug("mixed return is not the first failing status", np);
  gostx_esp_keycache_clear(&k3);
  gostx_esp_keycache_clear(&k4);
  gostx_esp_sa_clear(&sa2);

  gostx_esp_keycache_clear(&kseal);
  gostx_esp_keycache_clear(&k1);
  gostx_esp_keycache_clear(&k2);
  gostx_esp_sa_clear(&sa);
  return 0;
}
