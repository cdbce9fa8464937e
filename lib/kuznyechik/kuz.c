/* Kuznyechik public API: key setup, block calls through the dispatcher, clear. */
#include "impl.h"

int gostx_kuz_set_key(gostx_kuz_key *k, const uint8_t key[GOSTX_KEY_LEN]) {
  if (!k || !key) return GOSTX_EINVAL;
  gostx__kuz_expand(k->ek, key);
  /* dk[i] = L^-1(K_{i+1}): the round keys of the equivalent decryption order
   * (S^-1 L^-1 X[K] = S^-1 X[L^-1 K] L^-1) that table-driven fast paths use.
   * The portable core decrypts with ek and ignores dk. */
  for (unsigned i = 0; i < 10; i++) gostx__kuz_L_inv(k->dk[i], k->ek[i]);
  return GOSTX_OK;
}

void gostx_kuz_encrypt_blocks(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                              size_t nblocks) {
  if (!k || !in || !out || nblocks == 0) return;
  gostx__dispatch()->kuz->encrypt_blocks(k, in, out, nblocks);
}

void gostx_kuz_decrypt_blocks(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                              size_t nblocks) {
  if (!k || !in || !out || nblocks == 0) return;
  gostx__dispatch()->kuz->decrypt_blocks(k, in, out, nblocks);
}

void gostx_kuz_clear(gostx_kuz_key *k) {
  if (k) gostx_memzero(k, sizeof *k);
}

uint8_t gostx__kuz_gf_mul(uint8_t a, uint8_t b) {
  unsigned p = 0, x = a;
  for (unsigned i = 0; i < 8; i++) {
    if (b >> i & 1) p ^= x;
    x = ((x << 1) ^ (x & 0x80 ? 0x1c3u : 0)) & 0xff;
  }
  return (uint8_t)p;
}
