/* lib/esp internals shared by the one-packet calls (esp.c) and the burst
 * calls (burst.c): the steps before and after MGM, and the message keys. */
#ifndef GOSTX_ESP_INTERNAL_H
#define GOSTX_ESP_INTERNAL_H

#include "internal.h"

/* 1 for the integrity-only transforms (34, 35): the body goes in clear. */
int gostx__esp_mac_only(const gostx_esp_sa *sa);
/* The IV gostx's senders give sequence number seq: ESN - 1, so that i1, i2,
 * i3 and pnum all start at 0 with the SA's first packet (RFC 9227 4.8, and
 * its Appendix A's first examples: SN 1, IV 0) and the message key changes
 * every 2^24 packets. */
static inline uint64_t gostx__esp_iv_of(uint64_t seq) { return seq - 1; }
/* The message cipher of index (the IV's i1 | i2 | i3): the cache's, or derived (*fresh). */
int gostx__esp_msg_cipher(const gostx_esp_sa *sa, const gostx_esp_keycache *cache, uint64_t index,
                          gostx_cipher *c, int *fresh);
void gostx__esp_keep(gostx_esp_keycache *cache, uint64_t index, const gostx_cipher *c);
/* nonce = 0x00 | pnum (iv's low 24 bits) | salt (returns its length);
 * aad = SPI | ESN, or SPI | SN without ESN (returns its length, 12 or 8). */
size_t gostx__esp_nonce(const gostx_esp_sa *sa, uint64_t iv, uint8_t *nonce);
size_t gostx__esp_aad(const gostx_esp_sa *sa, uint64_t seq, uint8_t aad[12]);
/* Header, IV and plaintext with its trailer into out; *body_len: the
 * length MGM then encrypts (or authenticates) at out + GOSTX_ESP_HDR_LEN. */
int gostx__esp_seal_layout(const gostx_esp_sa *sa, uint64_t seq, uint64_t iv,
                           uint8_t next_header, const uint8_t *payload, size_t len, uint8_t *out,
                           size_t cap, size_t *body_len);
/* Every check before MGM (see gostx_esp_open); *seq_out, *iv_out (the
 * packet's IV: key index and pnum), *body_len. */
int gostx__esp_open_check(const gostx_esp_sa *sa, const gostx_esp_replay *replay,
                          const uint8_t *pkt, size_t len, size_t cap, uint64_t *seq_out,
                          uint64_t *iv_out, size_t *body_len);
/* The trailer of an authenticated plaintext: payload length, next header. */
int gostx__esp_open_trailer(uint8_t *out, size_t body, size_t *out_len, uint8_t *next_header);

#endif
