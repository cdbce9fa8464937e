/* ESP bursts: the checks and trailers of lib/esp/esp.c per packet, the MGM
 * of the short packets in one stream batch (gostx_batch_streams,
 * lib/bulk/streams.c) with a key per lane, the long ones one MGM call each. */
#include <string.h>

#include "esp_impl.h"

/* The message ciphers of one burst: one per distinct index (ESN >> 24). A
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

/* What both directions share: a batch of short packets, or the per-packet
 * calls. Each b[i] with status 0 has its key slot, nonce, aad, body set. */
struct work {
  size_t slot[GOSTX_ESP_BURST_MAX], body[GOSTX_ESP_BURST_MAX];
  uint8_t nonce[GOSTX_ESP_BURST_MAX][16], aad[GOSTX_ESP_BURST_MAX][12];
  size_t aad_len;
  gostx_stream s[GOSTX_ESP_BURST_MAX];
  size_t map[GOSTX_ESP_BURST_MAX];
};

static void run_mgm(const gostx_esp_sa *sa, struct keyset *ks, struct work *w,
                    gostx_esp_burst *b, size_t n, int open) {
  size_t ns = 0, nl = 4 + sa->salt_len;
  for (size_t i = 0; i < n; i++) {
    if (b[i].status) continue;
    const gostx_cipher *c = &ks->c[w->slot[i]];
    size_t body = w->body[i];
    const uint8_t *in = open ? b[i].in + GOSTX_ESP_HDR_LEN : b[i].out + GOSTX_ESP_HDR_LEN;
    uint8_t *out = open ? b[i].out : b[i].out + GOSTX_ESP_HDR_LEN;
    if (body <= GOSTX__ESP_BATCH_MAX_LEN + 4) {
      w->s[ns] = (gostx_stream){.key = c, .iv = w->nonce[i], .aad = w->aad[i], .aad_len = w->aad_len,
                                .in = in, .len = body, .out = out,
                                .tag = (uint8_t *)(uintptr_t)(in + body)};
      w->map[ns++] = i;
    } else if (open) {
      b[i].status = gostx__verdict(gostx_mgm_decrypt(c, w->nonce[i], nl, w->aad[i],
                                                         w->aad_len, in, body, in + body,
                                                         sa->icv_len, out));
    } else {
      b[i].status = gostx_mgm_encrypt(c, w->nonce[i], nl, w->aad[i], w->aad_len, in, body, out,
                                      out + body, sa->icv_len);
    }
  }
  if (!ns) return;
  gostx_batch_params p;
  memset(&p, 0, sizeof p);
  p.tag_len = sa->icv_len;
  int rc = gostx_batch_streams(NULL, open ? GOSTX_BATCH_MGM_OPEN : GOSTX_BATCH_MGM_SEAL, &p, w->s,
                               ns);
  /* EAUTH: each stream says; another error: nothing was processed */
  for (size_t k = 0; k < ns; k++) {
    int st = open ? gostx__verdict(w->s[k].status) : w->s[k].status;
    if (open) rc = gostx__verdict(rc);
    b[w->map[k]].status = rc == GOSTX_OK ? GOSTX_OK : rc == GOSTX_EAUTH ? st : st ? st : rc;
  }
}

static int first_error(const gostx_esp_burst *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (b[i].status) return b[i].status;
  return GOSTX_OK;
}

int gostx_esp_seal_burst(const gostx_esp_sa *sa, gostx_esp_keycache *cache, uint64_t seq_first,
                         gostx_esp_burst *b, size_t n) {
  if (!sa || (!b && n) || n > GOSTX_ESP_BURST_MAX) return GOSTX_EINVAL;
  struct keyset ks;
  struct work w;
  ks.n = 0;
  w.aad_len = sa->esn ? 12 : 8;
  for (size_t i = 0; i < n; i++) {
    uint64_t seq = seq_first + i;
    b[i].seq = seq;
    b[i].out_len = 0;
    b[i].status = seq < seq_first ? GOSTX_ESTATE
                                  : gostx__esp_seal_layout(sa, seq, b[i].next_header, b[i].in,
                                                           b[i].len, b[i].out, b[i].cap,
                                                           &w.body[i]);
    if (b[i].status) continue;
    if (!key_for(&ks, sa, cache, seq >> 24, &w.slot[i], &b[i].status)) continue;
    gostx__esp_nonce(sa, seq, w.nonce[i]); /* IV = ESN */
    gostx__esp_aad(sa, seq, w.aad[i]);
  }
  run_mgm(sa, &ks, &w, b, n, 0);
  for (size_t i = 0; i < n; i++) {
    size_t total = b[i].status ? 0 : GOSTX_ESP_HDR_LEN + w.body[i] + sa->icv_len;
    if (b[i].status && b[i].out && b[i].cap) {
      size_t wrote = gostx_esp_sealed_len(sa, b[i].len);
      gostx_memzero(b[i].out, wrote < b[i].cap ? wrote : b[i].cap);
    }
    if (!b[i].status) ks.used[w.slot[i]] = 1;
    b[i].out_len = total;
  }
  keys_done(&ks, cache);
  return first_error(b, n);
}

int gostx_esp_open_burst(const gostx_esp_sa *sa, gostx_esp_keycache *cache,
                         const gostx_esp_replay *replay, gostx_esp_burst *b, size_t n) {
  if (!sa || (!b && n) || n > GOSTX_ESP_BURST_MAX) return GOSTX_EINVAL;
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
