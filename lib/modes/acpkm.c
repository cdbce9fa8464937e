/* ACPKM key transform (RFC 8645 section 6.2.1 = R 1323565.1.017-2018):
 * K^{i+1} = MSB_256(E_{K^i}(D_1) || ... || E_{K^i}(D_J)), D = 80 81 .. 9f,
 * J = 256/n. CTR-ACPKM itself lives in ctr.c, OMAC-ACPKM in omac.c. */
#include "modes_internal.h"
#include "cipher_ops.h"

static const uint8_t acpkm_d[GOSTX_KEY_LEN] = {
    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
    0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f};

int gostx_acpkm_next_key(const gostx_cipher *c, uint8_t next_key[GOSTX_KEY_LEN]) {
  if (!gostx__modes_cipher_ok(c) || !next_key) return GOSTX_EINVAL;
  /* 32 bytes is a whole number of blocks for both ciphers: one call. */
  gostx_cipher_encrypt_blocks(c, acpkm_d, GOSTX_KEY_LEN / c->block_len, next_key);
  return GOSTX_OK;
}

int gostx__acpkm_rekey(gostx_cipher *c) {
  uint8_t k[GOSTX_KEY_LEN];
  int rc = gostx_acpkm_next_key(c, k);
  if (rc == GOSTX_OK) rc = gostx__cipher_rekey(c, k);
  gostx_memzero(k, sizeof k);
  return rc;
}
