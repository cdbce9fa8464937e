/* ESP bursts: the checks and trailers of lib/esp/esp.c per packet, the MGM
 * of the packets under one message key in one gostx__mgm_many call. The
 * integrity-only transforms go packet by packet through the one-packet
 * calls: their AAD (SPI | ESN | IV | body) is not one piece of the packet,
 * which the batch needs. */
#include <string.h>

#include "esp_internal.h"
#include "mgm/mgm_internal.h"

/* The message ciphers of one burst: one per distinct index (IV >> 24). A
 * sealed burst has at most two; an opened one as many as its packets claim. */
struct keyset {
  size_t n;
  uint64_t index[GOSTX_ESP_BURST_MAX];
  int fresh[GOSTX_ESP_BURST_MAX], used[GOSTX_ESP_BURST_MAX];
  gostx_cipher c[GOSTX_ESP_BURST_MAX];
};

static const gostx_cipher *key_for(struct keyset *ks, const gostx_esp_sa *sa,
                                   const gostx_esp_keycache *cache, uint64_t index, size_t *slot,
                                   int *rc) {
  for (size_t i = 0; i < ks->n; i++)
    if (ks->index[i] == index) return *slot = i, &ks->c[i];
  size_t i = ks->n;
  *rc = gostx__esp_msg_cipher(sa, cache, index, &ks->c[i], &ks->fresh[i]);
  if (*rc != GOSTX_OK) return NULL;
  ks->index[i] = index;
  ks->used[i] = 0;
  ks->n++;
  return *slot = i, &ks->c[i];
}

/* Keeps the newest fresh key that served a good packet, then wipes all. */
static void keys_done(struct keyset *ks, gostx_esp_keycache *cache) {
  for (size_t i = ks->n; i-- > 0;)
    if (ks->fresh[i] && ks->used[i]) {
      gostx__esp_keep(cache, ks->index[i], &ks->c[i]);
      break;
    }
  gostx_memzero(ks->c, ks->n * sizeof ks->c[0]);
}

/* What both directions share: each b[i] with status 0 has its key slot,
 * nonce, aad and body set. */
struct work {
  size_t slot[GOSTX_ESP_BURST_MAX], body[GOSTX_ESP_BURST_MAX];
  uint8_t nonce[GOSTX_ESP_BURST_MAX][16], aad[GOSTX_ESP_BURST_MAX][12];
  size_t aad_len;
  struct gostx__mgm_msg m[GOSTX_ESP_BURST_MAX];
  size_t map[GOSTX_ESP_BURST_MAX];
};

/* The packets of each message key in one gostx__mgm_many call: its cipher
 * calls serve the whole burst (Y1 and Z1 of every packet in one, their H
 * values and gamma in as few as its buffer allows, the tags in one). */
static void run_mgm(const gostx_esp_sa *sa, struct keyset *ks, struct work *w,
                    gostx_esp_packet *b, size_t n, int open) {
  for (size_t s = 0; s < ks->n; s++) {
    size_t nm = 0;
    for (size_t i = 0; i < n; i++) {
      if (b[i].status || w->slot[i] != s) continue;
      const size_t body = w->body[i];
      const uint8_t *in = open ? b[i].in + GOSTX_ESP_HDR_LEN : b[i].out + GOSTX_ESP_HDR_LEN;
      uint8_t *out = open ? b[i].out : b[i].out + GOSTX_ESP_HDR_LEN;
      w->m[nm] = (struct gostx__mgm_msg){.nonce = w->nonce[i], .aad = w->aad[i],
                                         .aad_len = w->aad_len, .in = in, .len = body,
                                         .out = out, .tag = (uint8_t *)(uintptr_t)(in + body)};
      if (!open) w->m[nm].tag = out + body;
      w->map[nm++] = i;
    }
    gostx__mgm_many(&ks->c[s], open, w->m, nm, sa->icv_len);
    for (size_t k = 0; k < nm; k++)
      b[w->map[k]].status = open ? gostx__verdict(w->m[k].status) : w->m[k].status;
  }
}

static int first_error(const gostx_esp_packet *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (b[i].status) return b[i].status;
  return GOSTX_OK;
}

/* A failed packet's out: zeroed as far as it would have been written. */
static void wipe_failed(const gostx_esp_sa *sa, gostx_esp_packet *b) {
  if (!b->status || !b->out || !b->cap) return;
  size_t wrote = gostx_esp_sealed_len(sa, b->len);
  gostx_memzero(b->out, wrote < b->cap ? wrote : b->cap);
}

static int seal_each(const gostx_esp_sa *sa, gostx_esp_keycache *cache, uint64_t seq_first,
                     gostx_esp_packet *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    b[i].seq = seq_first + i;
    b[i].out_len = 0;
    b[i].status = b[i].seq < seq_first ? GOSTX_ESTATE
                                       : gostx_esp_seal(sa, cache, b[i].seq, b[i].next_header,
                                                        b[i].in, b[i].len, b[i].out, b[i].cap,
                                                        &b[i].out_len);
    wipe_failed(sa, &b[i]);
  }
  return first_error(b, n);
}

static int open_each(const gostx_esp_sa *sa, gostx_esp_keycache *cache,
                     const gostx_esp_replay *replay, gostx_esp_packet *b, size_t n) {
  for (size_t i = 0; i < n; i++) b[i].status = gostx_esp_open(sa, cache, replay, &b[i]);
  return first_error(b, n);
}

int gostx_esp_seal_burst(const gostx_esp_sa *sa, gostx_esp_keycache *cache, uint64_t seq_first,
                         gostx_esp_packet *b, size_t n) {
  if (!sa || (!b && n) || n > GOSTX_ESP_BURST_MAX) return GOSTX_EINVAL;
  if (gostx__esp_mac_only(sa)) return seal_each(sa, cache, seq_first, b, n);
  struct keyset ks;
  struct work w;
  ks.n = 0;
  w.aad_len = sa->esn ? 12 : 8;
  for (size_t i = 0; i < n; i++) {
    uint64_t seq = seq_first + i;
    b[i].seq = seq;
    b[i].out_len = 0;
    b[i].status = seq < seq_first ? GOSTX_ESTATE
                                  : gostx__esp_seal_layout(sa, seq, gostx__esp_iv_of(seq),
                                                           b[i].next_header, b[i].in, b[i].len,
                                                           b[i].out, b[i].cap, &w.body[i]);
    if (b[i].status) continue;
    const uint64_t iv = gostx__esp_iv_of(seq);
    if (!key_for(&ks, sa, cache, iv >> 24, &w.slot[i], &b[i].status)) continue;
    gostx__esp_nonce(sa, iv, w.nonce[i]);
    gostx__esp_aad(sa, seq, w.aad[i]);
  }
  run_mgm(sa, &ks, &w, b, n, 0);
  for (size_t i = 0; i < n; i++) {
    size_t total = b[i].status ? 0 : GOSTX_ESP_HDR_LEN + w.body[i] + sa->icv_len;
    wipe_failed(sa, &b[i]);
    if (!b[i].status) ks.used[w.slot[i]] = 1;
    b[i].out_len = total;
  }
  keys_done(&ks, cache);
  return first_error(b, n);
}

int gostx_esp_open_burst(const gostx_esp_sa *sa, gostx_esp_keycache *cache,
                         const gostx_esp_replay *replay, gostx_esp_packet *b, size_t n) {
  if (!sa || (!b && n) || n > GOSTX_ESP_BURST_MAX) return GOSTX_EINVAL;
  if (gostx__esp_mac_only(sa)) return open_each(sa, cache, replay, b, n);
  struct keyset ks;
  struct work w;
  ks.n = 0;
  w.aad_len = sa->esn ? 12 : 8;
  for (size_t i = 0; i < n; i++) {
    b[i].out_len = 0;
    b[i].seq = 0;
    uint64_t iv = 0;
    b[i].status = b[i].out ? gostx__esp_open_check(sa, replay, b[i].in, b[i].len, b[i].cap,
                                                   &b[i].seq, &iv, &w.body[i])
                           : GOSTX_EINVAL;
    if (b[i].status) continue;
    if (!key_for(&ks, sa, cache, iv >> 24, &w.slot[i], &b[i].status)) continue;
    gostx__esp_nonce(sa, iv, w.nonce[i]);
    gostx__esp_aad(sa, b[i].seq, w.aad[i]);
  }
  run_mgm(sa, &ks, &w, b, n, 1);
  for (size_t i = 0; i < n; i++) {
    if (!b[i].status)
      b[i].status = gostx__esp_open_trailer(b[i].out, w.body[i], &b[i].out_len, &b[i].next_header);
    if (!b[i].status) ks.used[w.slot[i]] = 1;
  }
  keys_done(&ks, cache);
  return first_error(b, n);
}
