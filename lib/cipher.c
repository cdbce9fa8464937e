/* The generic cipher handle: lets every GOST R 34.13 mode take Kuznyechik or
 * Magma without knowing which. */
#include "internal.h"

int gostx_cipher_init(gostx_cipher *c, int id, const uint8_t key[GOSTX_KEY_LEN]) {
  if (!c || !key) return GOSTX_EINVAL;
  memset(c, 0, sizeof *c);
  switch (id) {
    case GOSTX_CIPHER_KUZNYECHIK:
      c->id = id;
      c->block_len = GOSTX_KUZ_BLOCK_LEN;
      return gostx_kuz_set_key(&c->u.kuz, key);
    case GOSTX_CIPHER_MAGMA:
      c->id = id;
      c->block_len = GOSTX_MAGMA_BLOCK_LEN;
      return gostx_magma_set_key(&c->u.magma, key);
    default:
      return GOSTX_EINVAL;
  }
}

size_t gostx_cipher_block_len(const gostx_cipher *c) { return c ? c->block_len : 0; }

void gostx_cipher_encrypt_blocks(const gostx_cipher *c, const uint8_t *in, uint8_t *out,
                                 size_t nblocks) {
  if (c->id == GOSTX_CIPHER_KUZNYECHIK) gostx_kuz_encrypt_blocks(&c->u.kuz, in, out, nblocks);
  else gostx_magma_encrypt_blocks(&c->u.magma, in, out, nblocks);
}

void gostx_cipher_decrypt_blocks(const gostx_cipher *c, const uint8_t *in, uint8_t *out,
                                 size_t nblocks) {
  if (c->id == GOSTX_CIPHER_KUZNYECHIK) gostx_kuz_decrypt_blocks(&c->u.kuz, in, out, nblocks);
  else gostx_magma_decrypt_blocks(&c->u.magma, in, out, nblocks);
}

void gostx_cipher_clear(gostx_cipher *c) {
  if (c) gostx_memzero(c, sizeof *c);
}

int gostx_cipher_by_name(const char *name) {
  if (!name) return -1;
  if (!strcmp(name, "kuznyechik") || !strcmp(name, "grasshopper")) return GOSTX_CIPHER_KUZNYECHIK;
  if (!strcmp(name, "magma")) return GOSTX_CIPHER_MAGMA;
  return -1;
}

const char *gostx_cipher_name(int id) {
  return id == GOSTX_CIPHER_KUZNYECHIK ? "kuznyechik" : id == GOSTX_CIPHER_MAGMA ? "magma" : NULL;
}

size_t gostx_sizeof_cipher(void) { return sizeof(gostx_cipher); }
size_t gostx_sizeof_kuz_key(void) { return sizeof(gostx_kuz_key); }
size_t gostx_sizeof_magma_key(void) { return sizeof(gostx_magma_key); }
