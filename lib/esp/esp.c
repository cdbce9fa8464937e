/* ESP with the four RFC 9227 transforms: ENCR_KUZNYECHIK_MGM_KTREE and
 * ENCR_MAGMA_MGM_KTREE (MGM encrypts and authenticates) and their
 * integrity-only twins ENCR_KUZNYECHIK_MGM_MAC_KTREE and
 * ENCR_MAGMA_MGM_MAC_KTREE (the body in clear, authenticated as AAD). The
 * key tree, the nonce and the packet layout are described in
 * include/gostx/esp.h; the AEAD is the library's MGM (RFC 9058), so every
 * SIMD path it has serves ESP unchanged. */
#include <string.h>

#include "esp_internal.h"
#include "ktree.h"

static const uint8_t label1[] = {'l', 'e', 'v', 'e', 'l', '1'};
static const uint8_t label2[] = {'l', 'e', 'v', 'e', 'l', '2'};
static const uint8_t label3[] = {'l', 'e', 'v', 'e', 'l', '3'};

#define MAX_PAYLOAD 65535u

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

size_t gostx_esp_salt_len(gostx_esp_transform transform) {
  switch (transform) {
  case GOSTX_ESP_KUZNYECHIK_MGM_KTREE:
  case GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE: return 12;
  case GOSTX_ESP_MAGMA_MGM_KTREE:
  case GOSTX_ESP_MAGMA_MGM_MAC_KTREE: return 4;
  }
  return 0;
}

/* The MGM tag's leftmost 96 bits for Kuznyechik, the whole 64-bit tag for
 * Magma (RFC 9227 4.5: the same for the integrity-only transforms). */
size_t gostx_esp_icv_len(gostx_esp_transform transform) {
  const size_t salt = gostx_esp_salt_len(transform);
  return salt == 12 ? 12 : salt == 4 ? 8 : 0;
}

int gostx__esp_mac_only(const gostx_esp_sa *sa) {
  return sa->transform == GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE ||
         sa->transform == GOSTX_ESP_MAGMA_MGM_MAC_KTREE;
}

int gostx_esp_sa_init(gostx_esp_sa *sa, gostx_esp_transform transform, uint32_t spi,
                      const uint8_t *keymat, size_t keymat_len) {
  if (!sa || !keymat) return GOSTX_EINVAL;
  size_t salt_len = gostx_esp_salt_len(transform);
  if (!salt_len || spi < 256) return GOSTX_EINVAL;
  if (keymat_len != GOSTX_ESP_KEY_LEN + salt_len) return GOSTX_ELEN;
  memset(sa, 0, sizeof *sa);
  sa->transform = (int)transform;
  sa->alg = salt_len == 12 ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA;
  sa->spi = spi;
  sa->salt_len = salt_len;
  sa->icv_len = gostx_esp_icv_len(transform);
  sa->limit = UINT64_MAX;
  sa->esn = 1;
  memcpy(sa->key, keymat, GOSTX_ESP_KEY_LEN);
  memcpy(sa->salt, keymat + GOSTX_ESP_KEY_LEN, salt_len);
  return GOSTX_OK;
}

int gostx_esp_sa_set_limit(gostx_esp_sa *sa, uint64_t limit) {
  if (!sa || limit == 0) return GOSTX_EINVAL;
  sa->limit = limit;
  if (!sa->esn && sa->limit > UINT32_MAX) sa->limit = UINT32_MAX;
  return GOSTX_OK;
}

int gostx_esp_sa_set_esn(gostx_esp_sa *sa, int on) {
  if (!sa || (on != 0 && on != 1)) return GOSTX_EINVAL;
  sa->esn = on;
  if (!on && sa->limit > UINT32_MAX) sa->limit = UINT32_MAX;
  return GOSTX_OK;
}

void gostx_esp_sa_clear(gostx_esp_sa *sa) {
  if (sa) gostx_memzero(sa, sizeof *sa);
}

void gostx_esp_keycache_init(gostx_esp_keycache *cache) {
  if (cache) memset(cache, 0, sizeof *cache);
}

void gostx_esp_keycache_clear(gostx_esp_keycache *cache) {
  if (cache) gostx_memzero(cache, sizeof *cache);
}

size_t gostx_esp_sealed_len(const gostx_esp_sa *sa, size_t len) {
  size_t body = (len + 2 + 3) & ~(size_t)3;
  return GOSTX_ESP_HDR_LEN + body + (sa ? sa->icv_len : GOSTX_ESP_ICV_MAX);
}

int gostx__ktree_levels(const uint8_t root[32], uint64_t index, uint8_t k1[32], uint8_t k2[32],
                        uint8_t k3[32]) {
  if (index >> 40) return GOSTX_EINVAL;
  uint8_t s1[2] = {0, (uint8_t)(index >> 32)};
  uint8_t s2[2] = {(uint8_t)(index >> 24), (uint8_t)(index >> 16)};
  uint8_t s3[2] = {(uint8_t)(index >> 8), (uint8_t)index};
  int rc = gostx_kdf256(root, 32, label1, sizeof label1, s1, 2, k1);
  if (rc == GOSTX_OK) rc = gostx_kdf256(k1, 32, label2, sizeof label2, s2, 2, k2);
  if (rc == GOSTX_OK) rc = gostx_kdf256(k2, 32, label3, sizeof label3, s3, 2, k3);
  return rc;
}

int gostx_esp_tree_key(const gostx_esp_sa *sa, uint64_t index, uint8_t out[32]) {
  if (!sa || !out) return GOSTX_EINVAL;
  uint8_t k1[32], k2[32];
  int rc = gostx__ktree_levels(sa->key, index, k1, k2, out);
  gostx_memzero(k1, sizeof k1);
  gostx_memzero(k2, sizeof k2);
  return rc;
}

/* The message cipher of index (the IV's i1 | i2 | i3) into *c: the cache's when it holds that index,
 * else derived. *fresh = 1 when derived (the caller decides whether to keep
 * it: open keeps only keys that authenticated a packet, so forged IVs cannot
 * evict the key in use). */
int gostx__esp_msg_cipher(const gostx_esp_sa *sa, const gostx_esp_keycache *cache, uint64_t index,
                          gostx_cipher *c, int *fresh) {
  if (cache && cache->valid && cache->index == index) {
    *fresh = 0;
    *c = cache->c;
    return GOSTX_OK;
  }
  uint8_t k[32];
  int rc = gostx_esp_tree_key(sa, index, k);
  if (rc == GOSTX_OK) rc = gostx_cipher_init(c, (gostx_alg)sa->alg, k);
  gostx_memzero(k, sizeof k);
  *fresh = 1;
  return rc;
}

void gostx__esp_keep(gostx_esp_keycache *cache, uint64_t index, const gostx_cipher *c) {
  if (!cache) return;
  cache->c = *c;
  cache->index = index;
  cache->valid = 1;
}

/* nonce = 0x00 | pnum | salt, pnum the IV's low 24 bits; aad = SPI | ESN
 * high | ESN low, or SPI | SN without ESN. */
size_t gostx__esp_nonce(const gostx_esp_sa *sa, uint64_t iv, uint8_t *nonce) {
  return gostx__ktree_nonce(iv, sa->salt, sa->salt_len, nonce);
}

size_t gostx__esp_aad(const gostx_esp_sa *sa, uint64_t seq, uint8_t aad[12]) {
  put32(aad, sa->spi);
  if (!sa->esn) {
    put32(aad + 4, (uint32_t)seq);
    return 8;
  }
  put32(aad + 4, (uint32_t)(seq >> 32));
  put32(aad + 8, (uint32_t)seq);
  return 12;
}

/* The integrity-only transforms' ICV (RFC 9227 4.7.1, laid out as RFC 4543
 * does for GMAC): MGM with nothing to encrypt over AAD = SPI | (E)SN | IV |
 * the body in clear. The packet carries the SN's low half only, so the AAD
 * comes in two pieces: aad (SPI | (E)SN) and rest (IV | body, as sent). */
static int mac_only_icv(const gostx_esp_sa *sa, const gostx_cipher *c, const uint8_t *nonce,
                        size_t nl, const uint8_t *aad, size_t al, const uint8_t *rest, size_t rl,
                        uint8_t *tag_out, const uint8_t *tag_in) {
  gostx_mgm_ctx m;
  int rc = gostx_mgm_init(&m, c, tag_in != NULL, nonce, nl);
  if (rc == GOSTX_OK) rc = gostx_mgm_aad(&m, aad, al);
  if (rc == GOSTX_OK) rc = gostx_mgm_aad(&m, rest, rl);
  if (rc == GOSTX_OK)
    rc = tag_out ? gostx_mgm_final_encrypt(&m, tag_out, sa->icv_len)
                 : gostx__verdict(gostx_mgm_final_decrypt(&m, tag_in, sa->icv_len));
  gostx_mgm_clear(&m);
  return rc;
}

/* MGM over one packet (hdr: SPI | SN | IV, then the body) under its message
 * key: sealing when tag_out is given (the ICV written there), opening when
 * tag_in is (checked; out untouched on mismatch). The AEAD transforms
 * encrypt the body from in to out; the integrity-only ones authenticate hdr's
 * IV and the body in (hdr + GOSTX_ESP_HDR_LEN when sealing) as AAD, and
 * opening copies the body to out only once it authenticated. */
static int packet_mgm(const gostx_esp_sa *sa, gostx_esp_keycache *cache, uint64_t seq,
                      uint64_t iv, const uint8_t *hdr, const uint8_t *in, size_t body,
                      uint8_t *out, uint8_t *tag_out, const uint8_t *tag_in) {
  gostx_cipher c;
  int fresh;
  uint64_t index = iv >> 24;
  int rc = gostx__esp_msg_cipher(sa, cache, index, &c, &fresh);
  if (rc == GOSTX_OK) {
    uint8_t nonce[16], aad[12];
    size_t nl = gostx__esp_nonce(sa, iv, nonce);
    size_t al = gostx__esp_aad(sa, seq, aad);
    if (gostx__esp_mac_only(sa)) {
      rc = mac_only_icv(sa, &c, nonce, nl, aad, al, hdr + 8, 8 + body, tag_out, tag_in);
      if (rc == GOSTX_OK && tag_in) memcpy(out, in, body);
    } else {
      rc = tag_out ? gostx_mgm_encrypt(&c, nonce, aad, al, in, body, out, tag_out, sa->icv_len)
                   : gostx__verdict(gostx_mgm_decrypt(&c, nonce, aad, al, in, body, tag_in,
                                                          sa->icv_len, out));
    }
    if (rc == GOSTX_OK && fresh) gostx__esp_keep(cache, index, &c);
  }
  gostx_cipher_clear(&c);
  return rc;
}

int gostx__esp_seal_layout(const gostx_esp_sa *sa, uint64_t seq, uint64_t iv,
                           uint8_t next_header, const uint8_t *payload, size_t len, uint8_t *out,
                           size_t cap, size_t *body_len) {
  if (!sa || !payload || !out) return GOSTX_EINVAL;
  if (seq == 0 || seq > sa->limit) return GOSTX_ESTATE;
  if (len == 0 || len > MAX_PAYLOAD) return GOSTX_ELEN;
  size_t total = gostx_esp_sealed_len(sa, len);
  if (cap < total) return GOSTX_ELEN;
  size_t body = total - GOSTX_ESP_HDR_LEN - sa->icv_len, pad = body - len - 2;
  uint8_t *pt = out + GOSTX_ESP_HDR_LEN;
  memmove(pt, payload, len);
  for (size_t i = 0; i < pad; i++) pt[len + i] = (uint8_t)(i + 1);
  pt[body - 2] = (uint8_t)pad;
  pt[body - 1] = next_header;
  put32(out, sa->spi);
  put32(out + 4, (uint32_t)seq);
  put32(out + 8, (uint32_t)(iv >> 32));
  put32(out + 12, (uint32_t)iv);
  *body_len = body;
  return GOSTX_OK;
}

static int seal_iv(const gostx_esp_sa *sa, gostx_esp_keycache *cache, uint64_t seq, uint64_t iv,
                   uint8_t next_header, const uint8_t *payload, size_t len, uint8_t *out,
                   size_t cap, size_t *out_len) {
  if (!out_len) return GOSTX_EINVAL;
  size_t body = 0;
  int rc = gostx__esp_seal_layout(sa, seq, iv, next_header, payload, len, out, cap, &body);
  if (rc != GOSTX_OK) return rc;
  uint8_t *pt = out + GOSTX_ESP_HDR_LEN;
  rc = packet_mgm(sa, cache, seq, iv, out, pt, body, pt, pt + body, NULL);
  size_t total = GOSTX_ESP_HDR_LEN + body + sa->icv_len;
  if (rc != GOSTX_OK) {
    gostx_memzero(out, total);
    return rc;
  }
  *out_len = total;
  return GOSTX_OK;
}

int gostx_esp_seal(const gostx_esp_sa *sa, gostx_esp_keycache *cache, uint64_t seq,
                   uint8_t next_header, const uint8_t *payload, size_t len, uint8_t *out,
                   size_t cap, size_t *out_len) {
  /* seq 0 (refused by the layout) would wrap to IV 2^64 - 1 */
  return seal_iv(sa, cache, seq, gostx__esp_iv_of(seq), next_header, payload, len, out, cap,
                 out_len);
}

int gostx_esp_seal_iv(const gostx_esp_sa *sa, gostx_esp_keycache *cache, uint64_t seq,
                      uint64_t iv, gostx_esp_packet *p) {
  if (!p) return GOSTX_EINVAL;
  p->out_len = 0;
  p->seq = seq;
  p->status = seal_iv(sa, cache, seq, iv, p->next_header, p->in, p->len, p->out, p->cap,
                      &p->out_len);
  return p->status;
}

int gostx__esp_open_check(const gostx_esp_sa *sa, const gostx_esp_replay *replay,
                          const uint8_t *pkt, size_t len, size_t cap, uint64_t *seq_out,
                          uint64_t *iv_out, size_t *body_len) {
  if (!sa || !pkt) return GOSTX_EINVAL;
  if (len < GOSTX_ESP_HDR_LEN + 4 + sa->icv_len) return GOSTX_EFORMAT;
  size_t body = len - GOSTX_ESP_HDR_LEN - sa->icv_len;
  if (body % 4) return GOSTX_EFORMAT;
  if (get32(pkt) != sa->spi) return GOSTX_EINVAL;
  if (cap < body) return GOSTX_ELEN;
  uint64_t seq = sa->esn ? gostx_esp_replay_esn(replay, get32(pkt + 4)) : get32(pkt + 4);
  if (seq == 0) return GOSTX_ESTATE;
  if (replay && gostx_esp_replay_check(replay, seq)) return GOSTX_ESTATE;
  /* The IV names the message key (i1 | i2 | i3) and the nonce's pnum (RFC
   * 9227 4.2), whatever the sender chose (gostx's senders put ESN - 1
   * there): the AEAD transforms do not authenticate it as such, but another
   * IV is another key and nonce, so the ICV fails. */
  const uint64_t iv = (uint64_t)get32(pkt + 8) << 32 | get32(pkt + 12);
  /* Left of the window the SN's low half reads as the next 2^32 span (RFC
   * 4303 A2.2), and the ICV would fail. gostx's senders put ESN - 1 in the
   * IV: an IV that says so of this SN one span lower, left of the window,
   * is such an old packet, refused as a replay without MGM. (Another
   * sender's IV that happened to match would name a key and nonce its
   * packet was not sealed under: refused either way.) */
  const uint64_t older = seq - ((uint64_t)1 << 32);
  if (sa->esn && replay && seq >> 32 && iv == gostx__esp_iv_of(older) && older <= replay->top &&
      replay->top - older >= GOSTX_ESP_WINDOW)
    return GOSTX_ESTATE;
  *iv_out = iv;
  *seq_out = seq;
  *body_len = body;
  return GOSTX_OK;
}

/* The trailer check proper, on the decrypted body (secret): nonzero when
 * the pad length does not fit or a padding byte is not 1, 2, ... (RFC 4303
 * 2.4); *plen the payload length it implies. No branch and no index depends
 * on the bytes: the last min(255, body - 2) bytes before the pad length are
 * all read and masked by the pad length (tests/ct/ct_check.c's esp case runs
 * this under the constant-time gate). Not inlined, so that the gate's
 * suppression of the verdict's branch in the caller cannot cover it. */
static __attribute__((noinline)) uint32_t trailer_bad(const uint8_t *out, size_t body,
                                                      size_t *plen) {
  const size_t room = body - 2; /* body >= 4: gostx__esp_open_check */
  const uint32_t pad = out[body - 2];
  GOSTX_CT_PLANT(GOSTX_PLANT_ESP_PAD, &out[body - 2], 1);
  const size_t span = room < 255 ? room : 255;
  /* pad > room: room - pad wraps (both below 2^31) */
  const uint32_t over = ((uint32_t)room - pad) >> 31;
  uint32_t bad = over;
  /* Position q (room - span <= q < room) is padding byte j = room - q when
   * j <= pad, and must then hold pad - j + 1: with u = 256 + pad - j (1..510),
   * bit 8 of u says j <= pad and (u + 1) & 0xff is the byte wanted. Shifts
   * and masks only, no compare for a compiler to make a branch of; the
   * loop runs forward over the bytes, so it vectorises (with a barrier per
   * byte it was an eighth of a 1400-byte Magma-MGM packet's open). u is
   * its own 16-bit counter: derived from the 64-bit q, the vector loop
   * widened every lane to 64 bits and narrowed it back (3x the work). */
  const uint8_t *tail = out + (room - span);
  uint16_t u = (uint16_t)(256u + pad - span); /* at q = room - span */
  uint16_t acc = 0; /* 16-bit lanes: twice as many a vector as 32-bit ones */
  for (size_t i = 0; i < span; i++, u++)
    acc |= (uint16_t)((tail[i] ^ (u + 1u)) & 0xffu & (0u - ((u >> 8) & 1u)));
  bad |= acc;
  *plen = room - (pad & (over - 1u)); /* in range even when the pad does not fit */
  return bad;
}

int gostx__esp_open_trailer(uint8_t *out, size_t body, size_t *out_len, uint8_t *next_header) {
  /* Authenticated: the trailer is the sender's. Only the check's verdict
   * is branched on (public by design: the packet is delivered or dropped). */
  size_t plen = 0;
  const uint32_t bad = trailer_bad(out, body, &plen);
  const int rc = gostx__verdict((int)((bad | (0u - bad)) >> 31) * GOSTX_EFORMAT);
  if (rc) {
    gostx_memzero(out, body);
    return rc;
  }
  *next_header = out[body - 1];
  *out_len = plen;
  return GOSTX_OK;
}

/* One packet's open (gostx_esp_open's checks and writes). */
static int open_packet(const gostx_esp_sa *sa, gostx_esp_keycache *cache,
                       const gostx_esp_replay *replay, const uint8_t *pkt, size_t len,
                       uint8_t *out, size_t cap, size_t *out_len, uint8_t *next_header,
                       uint64_t *seq_out) {
  if (!out || !out_len || !next_header || !seq_out) return GOSTX_EINVAL;
  uint64_t seq = 0, iv = 0;
  size_t body = 0;
  int rc = gostx__esp_open_check(sa, replay, pkt, len, cap, &seq, &iv, &body);
  if (rc == GOSTX_OK)
    rc = packet_mgm(sa, cache, seq, iv, pkt, pkt + GOSTX_ESP_HDR_LEN, body, out, NULL,
                    pkt + GOSTX_ESP_HDR_LEN + body);
  if (rc == GOSTX_OK) rc = gostx__esp_open_trailer(out, body, out_len, next_header);
  if (rc == GOSTX_OK) *seq_out = seq;
  return rc;
}

int gostx_esp_open(const gostx_esp_sa *sa, gostx_esp_keycache *cache,
                   const gostx_esp_replay *replay, gostx_esp_packet *p) {
  if (!p) return GOSTX_EINVAL;
  p->out_len = 0;
  p->seq = 0;
  p->status = open_packet(sa, cache, replay, p->in, p->len, p->out, p->cap, &p->out_len,
                          &p->next_header, &p->seq);
  return p->status;
}

size_t gostx_sizeof_esp_sa(void) { return sizeof(gostx_esp_sa); }
size_t gostx_sizeof_esp_keycache(void) { return sizeof(gostx_esp_keycache); }
size_t gostx_sizeof_esp_replay(void) { return sizeof(gostx_esp_replay); }
