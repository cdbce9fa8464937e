/* The Encrypted payload (RFC 7296 3.14) under ENCR_KUZNYECHIK_MGM_KTREE and
 * ENCR_MAGMA_MGM_KTREE as RFC 9227 defines them for IKEv2: the 64-bit IV
 * i1 | i2 | i3 | pnum names the leaf of the key tree under SK_e's root
 * (4.1, 4.2), the MGM nonce is 0 | pnum | salt (4.3), the AAD the header
 * and the SK generic header (4.7.2), no padding but the Pad Length octet
 * (4.6), the ICV 96 bits (Kuznyechik) or 64 (Magma) (4.5). The tree and the
 * nonce are lib/esp's (ktree.h): one implementation for ESP and IKE. */
#include <string.h>

#include "esp/ktree.h"
#include "ike.h"

enum {
  SK_IV_LEN = 8,
  SK_AAD_LEN = GOSTX_IKE_HDR_LEN + GOSTX_IKE_GEN_LEN,
  SKF_EXTRA = 4 /* Fragment Number, Total Fragments (RFC 7383 2.5) */
};

int gostx__ike_sk_init(gostx_ike_sk *sk, uint16_t encr_id, const uint8_t *key, size_t len) {
  const size_t want = gostx__ike_encr_key_len(encr_id);
  if (!sk || !key || !want) return GOSTX_EINVAL;
  if (len != want) return GOSTX_ELEN;
  memset(sk, 0, sizeof *sk);
  const int kuz = encr_id == GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE;
  sk->encr_id = encr_id;
  sk->alg = kuz ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA;
  sk->salt_len = len - 32;
  sk->icv_len = kuz ? 12 : 8;
  memcpy(sk->key, key, 32);
  memcpy(sk->salt, key + 32, sk->salt_len);
  return GOSTX_OK;
}

void gostx__ike_sk_clear(gostx_ike_sk *sk) {
  if (sk) gostx_memzero(sk, sizeof *sk);
}

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

/* MGM under the leaf key the IV names: encrypt (tag_out) or decrypt and
 * check (tag_in), the AAD the message up to the IV. */
static int sk_mgm(const gostx_ike_sk *sk, uint64_t iv, const uint8_t *aad, size_t aad_len,
                  const uint8_t *in,
                  size_t len, uint8_t *out, uint8_t *tag_out, const uint8_t *tag_in) {
  uint8_t k1[32], k2[32], k3[32], nonce[16];
  gostx_cipher c;
  int rc = gostx__ktree_levels(sk->key, iv >> 24, k1, k2, k3);
  if (rc == GOSTX_OK) rc = gostx_cipher_init(&c, (gostx_alg)sk->alg, k3);
  if (rc == GOSTX_OK) {
    (void)gostx__ktree_nonce(iv, sk->salt, sk->salt_len, nonce); /* one block */
    rc = tag_out ? gostx_mgm_encrypt(&c, nonce, aad, aad_len, in, len, out, tag_out,
                                     sk->icv_len)
                 : gostx__verdict(gostx_mgm_decrypt(&c, nonce, aad, aad_len, in, len,
                                                    tag_in, sk->icv_len, out));
    gostx_cipher_clear(&c);
  }
  gostx_memzero(k1, sizeof k1);
  gostx_memzero(k2, sizeof k2);
  gostx_memzero(k3, sizeof k3);
  return rc;
}

/* The protected message: header h, the Encrypted payload of type pt (SK,
 * or SKF with its Fragment Number and Total Fragments, RFC 7383 2.5), its
 * Next Payload next; the AAD all before the IV (RFC 9227 4.7.2). */
static int seal_as(const gostx_ike_sk *sk, uint64_t iv, const gostx_ike_hdr *h, uint8_t pt,
                   uint16_t num, uint16_t total, uint8_t next, const uint8_t *inner,
                   size_t inner_len, uint8_t *out, size_t cap, size_t *out_len) {
  if (!sk || !h || (!inner && inner_len) || !out || !out_len) return GOSTX_EINVAL;
  const size_t extra = pt == GOSTX_IKE_PT_SKF ? SKF_EXTRA : 0;
  const size_t aad = SK_AAD_LEN + extra;
  const size_t body = inner_len + 1; /* the inside and Pad Length 0 */
  if (inner_len > cap) return GOSTX_ELEN;
  const size_t total_len = aad + SK_IV_LEN + body + sk->icv_len;
  if (total_len > cap || total_len - GOSTX_IKE_HDR_LEN > 0xffff) return GOSTX_ELEN;
  gostx_ike_hdr hh = *h;
  hh.next = pt;
  hh.length = (uint32_t)total_len;
  gostx__ike_hdr_write(&hh, out);
  uint8_t *g = out + GOSTX_IKE_HDR_LEN;
  const size_t plen = total_len - GOSTX_IKE_HDR_LEN;
  g[0] = next;
  g[1] = 0;
  g[2] = (uint8_t)(plen >> 8);
  g[3] = (uint8_t)plen;
  if (extra) {
    g[4] = (uint8_t)(num >> 8), g[5] = (uint8_t)num;
    g[6] = (uint8_t)(total >> 8), g[7] = (uint8_t)total;
  }
  put64(out + aad, iv);
  uint8_t *ct = out + aad + SK_IV_LEN;
  if (inner_len) memmove(ct, inner, inner_len);
  ct[inner_len] = 0;
  int rc = sk_mgm(sk, iv, out, aad, ct, body, ct, ct + body, NULL);
  if (rc == GOSTX_OK) *out_len = total_len;
  return rc;
}

int gostx__ike_sk_seal(const gostx_ike_sk *sk, uint64_t iv, const gostx_ike_hdr *h,
                       uint8_t inner_first, const uint8_t *inner, size_t inner_len,
                       uint8_t *out, size_t cap, size_t *out_len) {
  return seal_as(sk, iv, h, GOSTX_IKE_PT_SK, 0, 0, inner_first, inner, inner_len, out, cap,
                 out_len);
}

int gostx__ike_skf_seal(const gostx_ike_sk *sk, uint64_t iv, const gostx_ike_hdr *h,
                        uint8_t inner_first, uint16_t num, uint16_t total,
                        const uint8_t *chunk, size_t chunk_len, uint8_t *out, size_t cap,
                        size_t *out_len) {
  if (num == 0 || num > total) return GOSTX_EINVAL;
  /* RFC 7383 2.5: the inside's first type in fragment 1 only */
  return seal_as(sk, iv, h, GOSTX_IKE_PT_SKF, num, total, num == 1 ? inner_first : 0, chunk,
                 chunk_len, out, cap, out_len);
}

/* Authenticates and decrypts the body of the Encrypted payload at p (its
 * fields after the generic header and the SKF numbers: IV, content, ICV)
 * into plain and drops the padding; the AAD is msg up to the IV. */
static int open_body(const gostx_ike_sk *sk, const uint8_t *msg, const uint8_t *p, size_t len,
                     uint8_t *plain, size_t cap, size_t *plain_len, uint64_t *iv) {
  if (len < SK_IV_LEN + 1 + sk->icv_len) return GOSTX_EFORMAT;
  const size_t body = len - SK_IV_LEN - sk->icv_len;
  if (body > cap) return GOSTX_ELEN;
  uint64_t v = 0;
  for (int i = 0; i < SK_IV_LEN; i++) v = v << 8 | p[i];
  int rc = sk_mgm(sk, v, msg, (size_t)(p - msg), p + SK_IV_LEN, body, plain, NULL,
                  p + SK_IV_LEN + body);
  if (rc != GOSTX_OK) return rc;
  /* Authenticated: the Pad Length is the peer's word, but it was decrypted
   * under SK_e: checked without a branch on it, only the verdict branched on
   * (as ESP's trailer; tests/ct/ct_check.c's ike group). pad > room: room -
   * pad wraps (room < 2^16). */
  const size_t room = body - 1, pad = plain[room];
  const size_t over = (room - pad) >> (sizeof room * 8 - 1);
  rc = gostx__verdict((int)over * GOSTX_EFORMAT);
  if (rc != GOSTX_OK) return rc;
  *plain_len = room - pad;
  /* Authenticated, the inside is the peer's message, which the engine
   * parses: public to it from here (the gate's door, CT builds only). */
  GOSTX_CT_DECLASSIFY(plain, body);
  GOSTX_CT_DECLASSIFY(plain_len, sizeof *plain_len);
  if (iv) *iv = v;
  return GOSTX_OK;
}

int gostx__ike_sk_open(const gostx_ike_sk *sk, const uint8_t *msg, size_t len,
                       gostx_ike_hdr *h, uint8_t *inner_first, uint8_t *plain, size_t cap,
                       size_t *plain_len, uint64_t *iv) {
  if (!sk || !msg || !h || !inner_first || !plain || !plain_len) return GOSTX_EINVAL;
  gostx_ike_chain c;
  int rc = gostx__ike_msg_read(msg, len, h, &c, inner_first);
  if (rc != GOSTX_OK) return rc;
  /* the chain ends with it (codec.c): the AAD is all before its IV (4.7.2) */
  const gostx_ike_payload *p = gostx__ike_find(&c, GOSTX_IKE_PT_SK);
  if (!p) return GOSTX_EFORMAT;
  return open_body(sk, msg, p->body, p->len, plain, cap, plain_len, iv);
}

int gostx__ike_skf_read(const uint8_t *msg, size_t len, gostx_ike_hdr *h, gostx_ike_skf *f) {
  if (!msg || !h || !f) return GOSTX_EINVAL;
  gostx_ike_chain c;
  uint8_t next;
  int rc = gostx__ike_msg_read(msg, len, h, &c, &next);
  if (rc != GOSTX_OK) return rc;
  /* RFC 7383 2.5.3: no exchange puts payloads before it; this reader
   * takes the SKF payload alone */
  if (c.n != 1 || c.skipped || c.p[0].type != GOSTX_IKE_PT_SKF) return GOSTX_EFORMAT;
  const gostx_ike_payload *p = &c.p[0];
  if (p->len < SKF_EXTRA) return GOSTX_EFORMAT;
  f->next = next;
  f->num = (uint16_t)(p->body[0] << 8 | p->body[1]);
  f->total = (uint16_t)(p->body[2] << 8 | p->body[3]);
  f->body = p->body + SKF_EXTRA;
  f->len = p->len - SKF_EXTRA;
  /* 2.6: numbers from 1 to Total Fragments; 2.5: Next Payload 0 after the first */
  if (f->num == 0 || f->total == 0 || f->num > f->total) return GOSTX_EFORMAT;
  if (f->num > 1 && f->next != GOSTX_IKE_PT_NONE) return GOSTX_EFORMAT;
  return GOSTX_OK;
}

int gostx__ike_skf_open(const gostx_ike_sk *sk, const uint8_t *msg, const gostx_ike_skf *f,
                        uint8_t *plain, size_t cap, size_t *plain_len, uint64_t *iv) {
  if (!sk || !msg || !f || !f->body || !plain || !plain_len) return GOSTX_EINVAL;
  return open_body(sk, msg, f->body, f->len, plain, cap, plain_len, iv);
}
