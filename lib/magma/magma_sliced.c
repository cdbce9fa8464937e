/* Tables and round constants for the byte-sliced SIMD Magma cores
 * (sliced_core.h, included by the SSSE3, AVX2, AVX-512 and NEON files). Portable
 * code: built once from gostx__magma_sbox, indexed by the public S-box set
 * id, so no ISA file carries its own copy of the S-boxes. */
#include <pthread.h>

#include "magma/impl.h"

static struct gostx__magma_sliced tables;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static unsigned pi(int set, unsigned i, unsigned x) {
  return (unsigned)(gostx__magma_sbox[set][i] >> (4 * x)) & 0xf;
}

/* Which block byte holds byte j of half h: a1 = bytes 0..3 big-endian,
 * a0 = bytes 4..7 (Magma); a0 = bytes 0..3 little-endian, a1 = 4..7 (GOST
 * 28147-89). */
static unsigned block_byte(int le, unsigned h, unsigned j) {
  return le ? 4 * h + j : (h ? 3 - j : 7 - j);
}

static void build(void) {
  for (int set = 0; set < GOSTX_SBOX_COUNT; set++)
    for (unsigned j = 0; j < 4; j++)
      for (unsigned x = 0; x < 16; x++) {
        /* t(s) <<< 11: pi_{2j}(low nibble) lands in bits 8j+11..8j+14, i.e.
         * bits 3..6 of byte j+1; pi_{2j+1}(high nibble) in bits 8j+15..8j+18,
         * i.e. bit 7 of byte j+1 and bits 0..2 of byte j+2 (all mod 32). */
        unsigned lo = pi(set, 2 * j, x) << 3;
        unsigned hi = pi(set, 2 * j + 1, x ^ 8); /* x is the biased nibble */
        for (unsigned lane = 0; lane < 2; lane++) {
          tables.sbox[set][3 * j][16 * lane + x] = (uint8_t)lo;
          tables.sbox[set][3 * j + 1][16 * lane + x] = (uint8_t)((hi & 1) << 7);
          tables.sbox[set][3 * j + 2][16 * lane + x] = (uint8_t)(hi >> 1);
        }
      }
  for (int set = 0; set < GOSTX_SBOX_COUNT; set++)
    for (unsigned j = 0; j < 8; j++)
      for (unsigned x = 0; x < 16; x++)
        tables.vround[set][16 * j + x] = (uint8_t)(pi(set, j, x) << (j & 1 ? 0 : 4));
  for (int set = 0; set < GOSTX_SBOX_COUNT; set++)
    for (unsigned m = 0; m < 4; m++)
      for (unsigned x = 0; x < 16; x++) {
        tables.vpair[set][16 * m + x] = (uint8_t)(pi(set, 2 * m, x) << 3);
        tables.vpair[set][64 + 16 * m + x] = (uint8_t)pi(set, 2 * m + 1, x);
      }
  for (int le = 0; le < 2; le++)
    for (unsigned m = 0; m < 8; m++) {
      unsigned src = block_byte(le, m >> 2, m & 3);
      for (unsigned lane = 0; lane < 2; lane++) {
        /* pair m = (byte src of the lane's first block, of its second) */
        tables.load_shuf[le][16 * lane + 2 * m] = (uint8_t)src;
        tables.load_shuf[le][16 * lane + 2 * m + 1] = (uint8_t)(8 + src);
        tables.store_shuf[le][16 * lane + src] = (uint8_t)(2 * m);
        tables.store_shuf[le][16 * lane + 8 + src] = (uint8_t)(2 * m + 1);
      }
    }
}

const struct gostx__magma_sliced *gostx__magma_sliced_tables(void) {
  pthread_once(&tables_once, build);
  return &tables;
}

void gostx__magma_sliced_round_consts(const gostx_magma_key *k, int decrypt, uint32_t rc[32][8]) {
  uint32_t per_key[8][8];
  for (unsigned i = 0; i < 8; i++)
    for (unsigned j = 0; j < 4; j++) {
      uint32_t b = (k->rk[i] >> (8 * j)) & 0xff;
      per_key[i][j] = b * 0x01010101u;
      per_key[i][4 + j] = (b ^ 0x7f) * 0x01010101u; /* (255 - b) ^ 0x80 */
    }
  /* Encryption uses K1..K8 three times, then K8..K1; decryption the reverse. */
  for (unsigned r = 0; r < 32; r++) {
    unsigned e = decrypt ? 31 - r : r;
    memcpy(rc[r], per_key[e < 24 ? e & 7 : 31 - e], sizeof rc[r]);
  }
  gostx_memzero(per_key, sizeof per_key);
}
