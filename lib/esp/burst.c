/* ESP bursts: the checks and trailers of lib/esp/esp.c per packet, the MGM
 * of many packets at once. One SA's burst (gostx_esp_seal_burst /
 * open_burst): the packets under one message key in one gostx__mgm_many
 * call. A burst across SAs (gostx_esp_seal_mixed / open_mixed: a gateway's
 * packets for many peers): each key's packets the same way, and the
 * packets whose key serves only them in one stream batch per cipher
 * (include/gostx/batch.h: a short one a vector lane each, a long one a
 * call each). The
 * integrity-only transforms go packet by packet through the one-packet
 * calls: their AAD (SPI | ESN | IV | body) is not one piece of the packet,
 * which the batches need. */
#include <string.h>

#include "esp_internal.h"
#include "gostx/batch.h"
#include "mgm/mgm_internal.h"

/* The message ciphers of one burst: one per distinct (SA, index = IV >> 24).
 * A sealed burst of one SA has at most two; an opened one, or one across
 * SAs, as many as its packets name. */
struct keyset {
  size_t n;
  const gostx_esp_sa *sa[GOSTX_ESP_BURST_MAX];
  gostx_esp_keycache *cache[GOSTX_ESP_BURST_MAX];
  uint64_t index[GOSTX_ESP_BURST_MAX];
  int fresh[GOSTX_ESP_BURST_MAX], used[GOSTX_ESP_BURST_MAX];
  gostx_cipher c[GOSTX_ESP_BURST_MAX];
};

static const gostx_cipher *key_for(struct keyset *ks, const gostx_esp_sa *sa,
                                   gostx_esp_keycache *cache, uint64_t index, size_t *slot,
                                   int *rc) {
  for (size_t i = 0; i < ks->n; i++)
    if (ks->index[i] == index && ks->sa[i] == sa) return *slot = i, &ks->c[i];
  size_t i = ks->n;
  *rc = gostx__esp_msg_cipher(sa, cache, index, &ks->c[i], &ks->fresh[i]);
  if (*rc != GOSTX_OK) return NULL;
  ks->sa[i] = sa;
  ks->cache[i] = cache;
  ks->index[i] = index;
  ks->used[i] = 0;
  ks->n++;
  return *slot = i, &ks->c[i];
}

/* Keeps in each cache the newest fresh key that served a good packet, then
 * wipes all. */
static void keys_done(struct keyset *ks) {
  for (size_t i = ks->n; i-- > 0;) {
    if (!ks->fresh[i] || !ks->used[i]) continue;
    size_t later = i + 1; /* a newer one kept in this cache already? */
    while (later < ks->n && !(ks->cache[later] == ks->cache[i] && ks->fresh[later] &&
                              ks->used[later]))
      later++;
    if (later == ks->n) gostx__esp_keep(ks->cache[i], ks->index[i], &ks->c[i]);
  }
  gostx_memzero(ks->c, ks->n * sizeof ks->c[0]);
}

/* What both directions share: each b[i] with status 0 has its key slot,
 * nonce, aad and body set. */
struct work {
  size_t slot[GOSTX_ESP_BURST_MAX], body[GOSTX_ESP_BURST_MAX], aad_len[GOSTX_ESP_BURST_MAX];
  size_t count[GOSTX_ESP_BURST_MAX]; /* across SAs: the packets of each key slot */
  uint8_t nonce[GOSTX_ESP_BURST_MAX][16], aad[GOSTX_ESP_BURST_MAX][12];
  struct gostx__mgm_msg m[GOSTX_ESP_BURST_MAX];
  size_t map[GOSTX_ESP_BURST_MAX];
};

/* Where packet i's MGM reads, writes and puts (or finds) its tag. */
static void mgm_parts(const gostx_esp_packet *p, int open, size_t body, const uint8_t **in,
                      uint8_t **out, uint8_t **tag) {
  *in = open ? p->in + GOSTX_ESP_HDR_LEN : p->out + GOSTX_ESP_HDR_LEN;
  *out = open ? p->out : p->out + GOSTX_ESP_HDR_LEN;
  *tag = open ? (uint8_t *)(uintptr_t)(*in + body) : *out + body;
}

/* The packets of each message key (of at least min packets: a burst
 * across SAs leaves the keys of one packet to the stream batch) in one
 * gostx__mgm_many call: its cipher calls serve all of them (Y1 and Z1 of
 * every packet in one, their H values and gamma in as few as its buffer
 * allows, the tags in one). alone (NULL: none) marks the packets done
 * elsewhere. */
static void run_mgm(struct keyset *ks, struct work *w, gostx_esp_packet *b, size_t n, int open,
                    const int *alone, size_t min) {
  for (size_t s = 0; s < ks->n; s++) {
    if (min && w->count[s] < min) continue;
    size_t nm = 0;
    for (size_t i = 0; i < n; i++) {
      if ((alone && alone[i]) || b[i].status || w->slot[i] != s) continue;
      const uint8_t *in;
      uint8_t *out, *tag;
      mgm_parts(&b[i], open, w->body[i], &in, &out, &tag);
      w->m[nm] = (struct gostx__mgm_msg){.nonce = w->nonce[i], .aad = w->aad[i],
                                         .aad_len = w->aad_len[i], .in = in, .len = w->body[i],
                                         .out = out, .tag = tag};
      w->map[nm++] = i;
    }
    gostx__mgm_many(&ks->c[s], open, w->m, nm, ks->sa[s]->icv_len);
    for (size_t k = 0; k < nm; k++)
      b[w->map[k]].status = open ? gostx__verdict(w->m[k].status) : w->m[k].status;
  }
}

/* A burst across SAs, the packets whose key serves no other packet of it
 * (run_mgm took the rest): those of each cipher (their ICV length is the
 * cipher's: 12 bytes Kuznyechik, 8 Magma) in one stream batch, a stream
 * per packet under its message key: the short ones a vector lane each,
 * the long ones a call each (the batch's choice, by length). A key's
 * packets together in gostx__mgm_many beat lanes (its cipher calls span
 * packets, where lanes step every stream a block at a time). */
static void run_streams(const gostx_esp_sa *const *sa, struct keyset *ks, struct work *w,
                        gostx_esp_packet *b, size_t n, int open, const int *alone) {
  static const gostx_alg algs[2] = {GOSTX_ALG_KUZNYECHIK, GOSTX_ALG_MAGMA};
  gostx_stream s[GOSTX_ESP_BURST_MAX];
  for (int a = 0; a < 2; a++) {
    size_t k = 0, icv = 0;
    for (size_t i = 0; i < n; i++) {
      if (alone[i] || b[i].status || w->count[w->slot[i]] > 1 || sa[i]->alg != algs[a]) continue;
      const uint8_t *in;
      uint8_t *out, *tag;
      mgm_parts(&b[i], open, w->body[i], &in, &out, &tag);
      s[k] = (gostx_stream){.key = &ks->c[w->slot[i]], .iv = w->nonce[i], .aad = w->aad[i],
                            .aad_len = w->aad_len[i], .in = in, .len = w->body[i], .out = out,
                            .tag = tag};
      icv = sa[i]->icv_len;
      w->map[k++] = i;
    }
    if (!k) continue;
    const gostx_batch_params p = {.tag_len = icv};
    const int rc = gostx_batch_streams(NULL, open ? GOSTX_BATCH_MGM_OPEN : GOSTX_BATCH_MGM_SEAL,
                                       &p, s, k);
    /* another error refused the whole call: nothing was written */
    const int all = rc == GOSTX_OK || rc == GOSTX_EAUTH ? 0 : rc;
    for (size_t j = 0; j < k; j++)
      b[w->map[j]].status = all ? all : open ? gostx__verdict(s[j].status) : s[j].status;
  }
  gostx_memzero(s, sizeof s); /* no key pointers left about */
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

/* ---- each packet's steps before and after MGM ---- */

/* Lays out b (sequence number b->seq, read) and finds its key (b->status
 * 0: it goes on to MGM). */
static void seal_prep(const gostx_esp_sa *sa, gostx_esp_keycache *cache, struct keyset *ks,
                     struct work *w, gostx_esp_packet *b, size_t i) {
  const uint64_t seq = b->seq, iv = gostx__esp_iv_of(seq);
  b->out_len = 0;
  if (b->status) return;
  b->status = gostx__esp_seal_layout(sa, seq, iv, b->next_header, b->in, b->len, b->out, b->cap,
                                     &w->body[i]);
  if (b->status || !key_for(ks, sa, cache, iv >> 24, &w->slot[i], &b->status)) return;
  gostx__esp_nonce(sa, iv, w->nonce[i]);
  w->aad_len[i] = gostx__esp_aad(sa, seq, w->aad[i]);
}

static void seal_finish(const gostx_esp_sa *sa, struct keyset *ks, const struct work *w,
                        gostx_esp_packet *b, size_t i) {
  b->out_len = b->status ? 0 : GOSTX_ESP_HDR_LEN + w->body[i] + sa->icv_len;
  wipe_failed(sa, b);
  if (!b->status) ks->used[w->slot[i]] = 1;
}

/* The checks before MGM and b's key. */
static void open_prep(const gostx_esp_sa *sa, gostx_esp_keycache *cache,
                      const gostx_esp_replay *replay, struct keyset *ks, struct work *w,
                      gostx_esp_packet *b, size_t i) {
  uint64_t iv = 0;
  b->out_len = 0;
  b->seq = 0;
  b->status = b->out ? gostx__esp_open_check(sa, replay, b->in, b->len, b->cap, &b->seq, &iv,
                                             &w->body[i])
                     : GOSTX_EINVAL;
  if (b->status || !key_for(ks, sa, cache, iv >> 24, &w->slot[i], &b->status)) return;
  gostx__esp_nonce(sa, iv, w->nonce[i]);
  w->aad_len[i] = gostx__esp_aad(sa, b->seq, w->aad[i]);
}

static void open_finish(struct keyset *ks, const struct work *w, gostx_esp_packet *b, size_t i) {
  if (!b->status)
    b->status = gostx__esp_open_trailer(b->out, w->body[i], &b->out_len, &b->next_header);
  if (!b->status) ks->used[w->slot[i]] = 1;
}

/* ---- one SA ---- */

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
  for (size_t i = 0; i < n; i++) {
    b[i].seq = seq_first + i;
    b[i].status = b[i].seq < seq_first ? GOSTX_ESTATE : 0; /* wrapped */
    seal_prep(sa, cache, &ks, &w, &b[i], i);
  }
  run_mgm(&ks, &w, b, n, 0, NULL, 0);
  for (size_t i = 0; i < n; i++) seal_finish(sa, &ks, &w, &b[i], i);
  keys_done(&ks);
  return first_error(b, n);
}

int gostx_esp_open_burst(const gostx_esp_sa *sa, gostx_esp_keycache *cache,
                         const gostx_esp_replay *replay, gostx_esp_packet *b, size_t n) {
  if (!sa || (!b && n) || n > GOSTX_ESP_BURST_MAX) return GOSTX_EINVAL;
  if (gostx__esp_mac_only(sa)) return open_each(sa, cache, replay, b, n);
  struct keyset ks;
  struct work w;
  ks.n = 0;
  for (size_t i = 0; i < n; i++) open_prep(sa, cache, replay, &ks, &w, &b[i], i);
  run_mgm(&ks, &w, b, n, 1, NULL, 0);
  for (size_t i = 0; i < n; i++) open_finish(&ks, &w, &b[i], i);
  keys_done(&ks);
  return first_error(b, n);
}

/* ---- across SAs ---- */

/* One packet alone (the integrity-only transforms'), as gostx_esp_seal. */
static void seal_one(const gostx_esp_sa *sa, gostx_esp_keycache *cache, gostx_esp_packet *b) {
  b->status = gostx_esp_seal(sa, cache, b->seq, b->next_header, b->in, b->len, b->out, b->cap,
                             &b->out_len);
  wipe_failed(sa, b);
}

/* Both directions: each packet's checks and key, the AEAD transforms'
 * packets in the stream batches, the rest alone. */
static int mixed(const gostx_esp_sa *const *sa, gostx_esp_keycache *const *cache,
                 const gostx_esp_replay *const *replay, gostx_esp_packet *b, size_t n, int open) {
  if (((!sa || !b) && n) || n > GOSTX_ESP_BURST_MAX) return GOSTX_EINVAL;
  if (!n) return GOSTX_OK;
  struct keyset ks;
  struct work w;
  int alone[GOSTX_ESP_BURST_MAX];
  ks.n = 0;
  for (size_t i = 0; i < n; i++) {
    const gostx_esp_sa *s = sa[i];
    gostx_esp_keycache *kc = cache ? cache[i] : NULL;
    const gostx_esp_replay *r = replay ? replay[i] : NULL;
    alone[i] = !s || gostx__esp_mac_only(s);
    b[i].out_len = 0;
    if (!s) {
      b[i].seq = open ? 0 : b[i].seq;
      b[i].status = GOSTX_EINVAL;
    } else if (alone[i]) {
      if (open) b[i].status = gostx_esp_open(s, kc, r, &b[i]);
      else seal_one(s, kc, &b[i]);
    } else if (open) {
      open_prep(s, kc, r, &ks, &w, &b[i], i);
    } else {
      b[i].status = 0;
      seal_prep(s, kc, &ks, &w, &b[i], i);
    }
  }
  memset(w.count, 0, ks.n * sizeof w.count[0]);
  for (size_t i = 0; i < n; i++)
    if (!alone[i] && !b[i].status) w.count[w.slot[i]]++;
  run_mgm(&ks, &w, b, n, open, alone, 2);
  run_streams(sa, &ks, &w, b, n, open, alone);
  for (size_t i = 0; i < n; i++) {
    if (alone[i]) continue;
    if (open) open_finish(&ks, &w, &b[i], i);
    else seal_finish(sa[i], &ks, &w, &b[i], i);
  }
  keys_done(&ks);
  return first_error(b, n);
}

int gostx_esp_seal_mixed(const gostx_esp_sa *const *sa, gostx_esp_keycache *const *cache,
                         gostx_esp_packet *b, size_t n) {
  return mixed(sa, cache, NULL, b, n, 0);
}

int gostx_esp_open_mixed(const gostx_esp_sa *const *sa, gostx_esp_keycache *const *cache,
                         const gostx_esp_replay *const *replay, gostx_esp_packet *b, size_t n) {
  return mixed(sa, cache, replay, b, n, 1);
}
