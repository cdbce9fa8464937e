/* RFC 9227's key tree and MGM nonce, shared by ESP (lib/esp) and the IKE
 * SA's own Encrypted payload (lib/ike): the same transforms protect both
 * (RFC 9227 4.1-4.4). Internal. */
#ifndef GOSTX_ESP_KTREE_H
#define GOSTX_ESP_KTREE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The three levels under root K for index = i1 (8 bits) | i2 | i3 (16 bits
 * each): k1 = KDF(K, "level1", 0x00 | i1), k2 = KDF(k1, "level2", i2),
 * k3 = KDF(k2, "level3", i3) (k3: K_msg). GOSTX_EINVAL for an index past
 * 40 bits. */
int gostx__ktree_levels(const uint8_t root[32], uint64_t index, uint8_t k1[32], uint8_t k2[32],
                        uint8_t k3[32]);

/* nonce = 0x00 | pnum (iv's low 24 bits) | salt; returns its length (4 + salt_len). */
static inline size_t gostx__ktree_nonce(uint64_t iv, const uint8_t *salt, size_t salt_len,
                                        uint8_t *nonce) {
  nonce[0] = 0;
  nonce[1] = (uint8_t)(iv >> 16);
  nonce[2] = (uint8_t)(iv >> 8);
  nonce[3] = (uint8_t)iv;
  memcpy(nonce + 4, salt, salt_len);
  return 4 + salt_len;
}

#endif
