/* The MGM mode's calls beyond the public ones (lib/mgm/mgm.c), for the bulk
 * engine (lib/bulk) and the tests: the counter starts, the block core and
 * the dispatched multiply-accumulate. Not installed. */
#ifndef GOSTX_MGM_MODE_INTERNAL_H
#define GOSTX_MGM_MODE_INTERNAL_H

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

#endif
