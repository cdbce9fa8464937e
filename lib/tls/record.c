/* TLS 1.3 record protection with the RFC 9367 suites: the record key of
 * sequence number seq is TLSTREE(write_key, seq), the MGM nonce is
 * write_iv XOR STR_n(seq) (RFC 8446 section 5.3) with its top bit cleared
 * (MGM's ICN has n - 1 bits, RFC 9058), the additional data is the record
 * header and the tag is the full block (RFC 9367 section 4.1.1). MGM's
 * one-shot decrypt checks the tag before it writes a byte, so nothing of a
 * forged record is released. */
#include "rec.h"

#include "dispatch.h"
#include "mgm/mgm_internal.h"
#include "tls/pad_scan.h"

int gostx__tls_record_init(gostx__tls_record *r, unsigned suite_id,
                           const uint8_t secret[GOSTX__TLS_HASH_LEN]) {
  if (!r || !secret) return GOSTX_EINVAL;
  const gostx__tls_suite *s = gostx__tls_suite_by_id(suite_id);
  if (!s) return GOSTX_EINVAL;
  memset(r, 0, sizeof *r);
  r->suite = s;
  int rc = gostx__tls_traffic_keys(s, secret, r->key, r->iv);
  if (rc != GOSTX_OK) gostx__tls_record_clear(r);
  return rc;
}

void gostx__tls_record_clear(gostx__tls_record *r) {
  if (r) gostx_memzero(r, sizeof *r);
}

size_t gostx__tls_sealed_len(const gostx__tls_record *r, size_t len, size_t pad) {
  return GOSTX__TLS_HDR_LEN + len + 1 + pad + (r && r->suite ? r->suite->tag_len : 16);
}

/* r->c for seq: each TLSTREE level derived again only when its masked
 * sequence number moved (seq is public, so are these branches). Level l's
 * key is r->level[l - 1] (the cipher for level 3, derived from r->level3,
 * HMAC keyed once with level 2's key). */
static int record_cipher(gostx__tls_record *r, uint64_t seq) {
  const gostx__tls_suite *s = r->suite;
  const uint64_t masked[3] = {seq & s->c1, seq & s->c2, seq & s->c3};
  uint8_t k3[GOSTX__TLS_KEY_LEN];
  int rc = GOSTX_OK;
  for (int l = 0; l < 3 && rc == GOSTX_OK; l++) {
    if (r->have > l && r->masked[l] == masked[l]) continue;
    r->have = l;
    if (l < 2) {
      rc = gostx__tls_tree_level(l ? r->level[0] : r->key, l + 1, masked[l], r->level[l]);
      if (rc == GOSTX_OK && l == 1)
        rc = gostx_hmac_init(&r->level3, GOSTX__TLS_HASH_LEN, r->level[1], GOSTX__TLS_KEY_LEN);
    } else {
      rc = gostx__tls_tree_level_keyed(&r->level3, 3, masked[2], k3);
      if (rc == GOSTX_OK) rc = gostx_cipher_init(&r->c, s->alg, k3);
    }
    if (rc == GOSTX_OK) {
      r->masked[l] = masked[l];
      r->have = l + 1;
    }
  }
  gostx_memzero(k3, sizeof k3);
  return rc;
}

static void record_nonce(const gostx__tls_record *r, uint64_t seq, uint8_t *nonce) {
  size_t n = r->suite->iv_len;
  memcpy(nonce, r->iv, n);
  for (size_t i = 0; i < 8; i++) nonce[n - 1 - i] ^= (uint8_t)(seq >> (8 * i));
  nonce[0] &= 0x7f;
}

/* The checks and the key both directions share before MGM. */
static int record_start(gostx__tls_record *r, uint8_t *nonce) {
  if (r->spent || r->seq > r->suite->snmax) return GOSTX_ESTATE;
  int rc = record_cipher(r, r->seq);
  if (rc == GOSTX_OK) record_nonce(r, r->seq, nonce);
  return rc;
}

static void record_done(gostx__tls_record *r) {
  if (r->seq == r->suite->snmax)
    r->spent = 1; /* the last record this key may protect: a KeyUpdate is due */
  else
    r->seq++;
}

static void put_header(uint8_t *h, size_t len) {
  h[0] = 0x17; /* application_data: the outer type of every protected record */
  h[1] = 0x03;
  h[2] = 0x03;
  h[3] = (uint8_t)(len >> 8);
  h[4] = (uint8_t)len;
}

int gostx__tls_record_seal(gostx__tls_record *r, uint8_t type, const uint8_t *in, size_t len,
                           size_t pad, uint8_t *out, size_t cap, size_t *out_len) {
  if (!r || !r->suite || !out || !out_len || (!in && len) || type == 0) return GOSTX_EINVAL;
  if (len > GOSTX__TLS_MAX_PLAINTEXT || pad > GOSTX__TLS_MAX_PLAINTEXT - len) return GOSTX_ELEN;
  size_t tag = r->suite->tag_len, inner = len + 1 + pad;
  size_t total = GOSTX__TLS_HDR_LEN + inner + tag;
  if (cap < total) return GOSTX_EINVAL;
  uint8_t nonce[GOSTX__TLS_MAX_IV_LEN];
  int rc = record_start(r, nonce);
  if (rc != GOSTX_OK) return rc;
  uint8_t *body = out + GOSTX__TLS_HDR_LEN;
  /* The content is encrypted from where it is into the record (no copy
   * first), then the type and padding after it; content that overlaps the
   * record other than exactly in place moves there first. */
  const uint8_t *src = in;
  if (len && in != body && in < body + inner && body < in + len) {
    memmove(body, in, len);
    src = body;
  }
  body[len] = type;
  memset(body + len + 1, 0, pad);
  put_header(out, inner + tag);
  /* one MGM call over the content (from src) and the type and padding
   * (already in the record after it) */
  rc = gostx__mgm_encrypt_split(&r->c, nonce, out, GOSTX__TLS_HDR_LEN, src, len,
                                body, inner, body + inner, tag);
  if (rc != GOSTX_OK) {
    gostx_memzero(out, total);
    return rc;
  }
  record_done(r);
  *out_len = total;
  return GOSTX_OK;
}

/* The content type (the last non-zero byte) and the content's length, found
 * in constant time: how much padding a record has is the sender's secret.
 * First the last 64-byte block with a non-zero byte, copied out by masks
 * (the dispatched step, lib/tls/pad_scan.h); then the words of that copy
 * and those after the last whole block, in order: the last non-zero word
 * and where it is; then the bytes of that word and of the tail. Every byte
 * is read, the same way, whatever the values. The copy goes back to bytes
 * before the words' order matters. */
static uint8_t inner_type(const uint8_t *p, size_t n, size_t *content_len) {
  uint64_t sel[8];
  uint8_t block[64];
  const size_t nb = n / 64, nw = n / 8;
  const size_t block_at = gostx__dispatch()->tls_scan->last_block(p, nb, sel);
  memcpy(block, sel, sizeof block);
  /* The loops keep which word and which byte (public loop indexes), not
   * where they are: an address and a secret position that both step by 8
   * were made one induction variable by gcc (the load's address then
   * computed from block_at, if only to cancel it out). The places come
   * after, by masks. */
  uint64_t word = 0;
  size_t word_i = 0; /* 0..7: of the block copy; 8..: after the last whole block */
  for (size_t i = 0; i < 8 + nw - 8 * nb; i++) { /* i is public */
    uint64_t w = gostx_load64_le(i < 8 ? block + 8 * i : p + 64 * nb + 8 * (i - 8));
    uint64_t m = 0 - gostx__nonzero64(w);
    word = (word & ~m) | (w & m);
    word_i = (word_i & ~(size_t)m) | (i & (size_t)m);
  }
  size_t in_copy = 0 - (size_t)gostx__nonzero64((uint64_t)(word_i - 8) >> 63); /* word_i < 8 */
  size_t word_at = 8 * word_i + ((block_at & in_copy) | ((64 * nb - 64) & ~in_copy));
  uint64_t type = 0;
  size_t byte_j = 0; /* 0..7: of word; 8..: of the tail after the last whole word */
  for (size_t j = 0; j < 8 + n % 8; j++) {
    uint64_t b = j < 8 ? (word >> (8 * j)) & 0xff : p[8 * nw + j - 8];
    uint64_t m = 0 - gostx__nonzero64(b);
    type = (type & ~m) | (b & m);
    byte_j = (byte_j & ~(size_t)m) | (j & (size_t)m);
  }
  size_t in_word = 0 - (size_t)gostx__nonzero64((uint64_t)(byte_j - 8) >> 63); /* byte_j < 8 */
  size_t at = byte_j + ((word_at & in_word) | ((8 * nw - 8) & ~in_word));
  gostx_memzero(sel, sizeof sel);
  gostx_memzero(block, sizeof block);
  *content_len = at;
  return (uint8_t)type;
}

int gostx__tls_record_open(gostx__tls_record *r, const uint8_t *rec, size_t rec_len,
                           uint8_t *out, size_t cap, size_t *out_len, uint8_t *type) {
  if (!r || !r->suite || !rec || !out || !out_len || !type) return GOSTX_EINVAL;
  /* legacy_record_version: only in the additional data (RFC 8446 5.2), so
   * another than the sealer's fails the tag */
  if (rec_len < GOSTX__TLS_HDR_LEN || rec[0] != 0x17) return GOSTX_EFORMAT;
  size_t len = (size_t)rec[3] << 8 | rec[4], tag = r->suite->tag_len;
  if (len != rec_len - GOSTX__TLS_HDR_LEN) return GOSTX_EFORMAT;
  if (len < tag + 1) return GOSTX_EFORMAT;
  /* Stricter than RFC 8446's 2^14 + 256 for the whole: a tag is n/8 bytes. */
  size_t inner = len - tag;
  if (inner > GOSTX__TLS_MAX_PLAINTEXT + 1) return GOSTX_ELEN;
  if (cap < inner) return GOSTX_EINVAL;
  uint8_t nonce[GOSTX__TLS_MAX_IV_LEN];
  int rc = record_start(r, nonce);
  if (rc != GOSTX_OK) return rc;
  const uint8_t *body = rec + GOSTX__TLS_HDR_LEN;
  rc = gostx__verdict(gostx_mgm_decrypt(&r->c, nonce, rec,
                                            GOSTX__TLS_HDR_LEN, body, inner, body + inner, tag,
                                            out));
  if (rc != GOSTX_OK) return rc;
  size_t content_len;
  uint8_t t = inner_type(out, inner, &content_len);
  uint32_t none = ((uint32_t)t - 1u) >> 31; /* 1 when t == 0: padding alone, out all zeros */
  rc = gostx__verdict((int)none * GOSTX_EFORMAT);
  if (rc != GOSTX_OK) return rc;
  record_done(r);
  *type = t;
  *out_len = content_len;
  return GOSTX_OK;
}

/* ---- the TLS 1.3 instance of the record interface (rec.h) ---- */

static int seal13(gostx__tls_rec_state *s, uint8_t type, const uint8_t *in, size_t len,
                  uint8_t *out, size_t cap, size_t *got) {
  return gostx__tls_record_seal(&s->r13, type, in, len, 0, out, cap, got);
}

static int open13(gostx__tls_rec_state *s, const uint8_t *rec, size_t rec_len, uint8_t *out,
                  size_t cap, size_t *got, uint8_t *type) {
  return gostx__tls_record_open(&s->r13, rec, rec_len, out, cap, got, type);
}

static size_t sealed_len13(const gostx__tls_rec_state *s, size_t len) {
  return gostx__tls_sealed_len(&s->r13, len, 0);
}

static uint64_t key_limit13(const gostx__tls_rec_state *s) { return s->r13.suite->snmax; }
static int spent13(const gostx__tls_rec_state *s) { return s->r13.spent; }
static uint64_t seq13(const gostx__tls_rec_state *s) { return s->r13.seq; }
static void clear13(gostx__tls_rec_state *s) { gostx__tls_record_clear(&s->r13); }

const gostx__tls_rec_class gostx__tls13_rec_class = {
    seal13, open13, sealed_len13, key_limit13, spent13, seq13, clear13, 1};
