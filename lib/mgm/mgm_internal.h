/* The MGM mode's calls beyond the public ones (lib/mgm/mgm.c), for the bulk
 * engine (lib/bulk) and the tests: the counter starts, the block core and
 * the dispatched multiply-accumulate. Not installed. */
#ifndef GOSTX_MGM_INTERNAL_H
#define GOSTX_MGM_INTERNAL_H

#include "internal.h"

/* Y1 = E(0 || nonce) and Z1 = E(1 || nonce) (n = block length bytes each).
 * Same argument checks as gostx_mgm_init. */
int gostx__mgm_y1z1(const gostx_cipher *c, const uint8_t *nonce, size_t nonce_len, uint8_t *y1,
                    uint8_t *z1);

/* For the bulk engine (lib/bulk/mgm_mt.c): nblocks full blocks starting at
 * the counters y and z (both advanced past them). crypt: out = in xor E(Y_i);
 * hash: sum ^= H_i (x) ciphertext block (out when encrypting, in when
 * decrypting or hashing only). The same core as the one-shot and streaming
 * calls; in and out may be equal; out unused when !crypt. */
void gostx__mgm_blocks(const gostx_cipher *c, int decrypt, uint8_t *y, uint8_t *z, uint8_t *sum,
                       const uint8_t *in, uint8_t *out, size_t nblocks, int crypt, int hash);
/* The chosen implementation's acc ^= sum_{i<nblocks} H_i (x) X_i for n-byte
 * blocks (n = 16: GF(2^128), 8: GF(2^64)), fetched once by a caller that
 * makes many one-block calls (lib/bulk/lane_aead.c). */
typedef void (*gostx__mgm_mul_acc_fn)(uint8_t *acc, const uint8_t *h, const uint8_t *x,
                                      size_t nblocks);
gostx__mgm_mul_acc_fn gostx__mgm_mul_acc_of(size_t n);

/* One message of gostx__mgm_many: the one-shot calls' arguments, the nonce
 * n bytes. tag: written when sealing, checked when opening (then read
 * only). status: set by the call, GOSTX_OK, GOSTX_EAUTH (open: nothing
 * written to out) or an argument error as the one-shot calls return. */
struct gostx__mgm_msg {
  const uint8_t *nonce, *aad;
  size_t aad_len;
  const uint8_t *in;
  size_t len;
  uint8_t *out, *tag;
  int status;
};
/* gostx_mgm_encrypt (decrypt 0) or gostx_mgm_decrypt (1) of count messages
 * under c, all with tags of tag_len bytes: what one call per message
 * computes, with the cipher calls of the short messages shared (lib/esp's
 * bursts: a packet costs its blocks, not a call's set-up). */
void gostx__mgm_many(const gostx_cipher *c, int decrypt, struct gostx__mgm_msg *m, size_t count,
                     size_t tag_len);

/* gostx_mgm_encrypt of len bytes whose first len1 come from in and the
 * rest are already in out, where they follow (lib/tls: a record's content
 * where the caller has it, its type and padding in the record): one call,
 * no copy of the body. in and out equal or disjoint; out gets all len. */
int gostx__mgm_encrypt_split(const gostx_cipher *c, const uint8_t *nonce, const uint8_t *aad,
                             size_t aad_len, const uint8_t *in, size_t len1,
                             uint8_t *out, size_t len, uint8_t *tag, size_t tag_len);

#endif
