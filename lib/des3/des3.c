/* Triple DES decryption, CBC (des3/des3.h says what for). FIPS 46-3's
 * tables, applied bit by bit at public positions. The S-boxes are never
 * indexed by data: each lookup reads all 64 entries and keeps the one
 * whose index matches under a mask, so neither timing nor the cache
 * shows the key or the text. Slow (a few KB of certificates need it). */
#include "des3/des3.h"

#include <string.h>

#include "gostx/common.h"
#include "internal.h"

static const uint8_t IP[64] = {58, 50, 42, 34, 26, 18, 10, 2,  60, 52, 44, 36, 28, 20, 12, 4,
                               62, 54, 46, 38, 30, 22, 14, 6,  64, 56, 48, 40, 32, 24, 16, 8,
                               57, 49, 41, 33, 25, 17, 9,  1,  59, 51, 43, 35, 27, 19, 11, 3,
                               61, 53, 45, 37, 29, 21, 13, 5,  63, 55, 47, 39, 31, 23, 15, 7};
static const uint8_t FP[64] = {40, 8, 48, 16, 56, 24, 64, 32, 39, 7, 47, 15, 55, 23, 63, 31,
                               38, 6, 46, 14, 54, 22, 62, 30, 37, 5, 45, 13, 53, 21, 61, 29,
                               36, 4, 44, 12, 52, 20, 60, 28, 35, 3, 43, 11, 51, 19, 59, 27,
                               34, 2, 42, 10, 50, 18, 58, 26, 33, 1, 41, 9,  49, 17, 57, 25};
static const uint8_t E[48] = {32, 1,  2,  3,  4,  5,  4,  5,  6,  7,  8,  9,  8,  9,  10, 11,
                              12, 13, 12, 13, 14, 15, 16, 17, 16, 17, 18, 19, 20, 21, 20, 21,
                              22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1};
static const uint8_t P[32] = {16, 7, 20, 21, 29, 12, 28, 17, 1,  15, 23, 26, 5,  18, 31, 10,
                              2,  8, 24, 14, 32, 27, 3,  9,  19, 13, 30, 6,  22, 11, 4,  25};
static const uint8_t PC1[56] = {57, 49, 41, 33, 25, 17, 9,  1,  58, 50, 42, 34, 26, 18,
                                10, 2,  59, 51, 43, 35, 27, 19, 11, 3,  60, 52, 44, 36,
                                63, 55, 47, 39, 31, 23, 15, 7,  62, 54, 46, 38, 30, 22,
                                14, 6,  61, 53, 45, 37, 29, 21, 13, 5,  28, 20, 12, 4};
static const uint8_t PC2[48] = {14, 17, 11, 24, 1,  5,  3,  28, 15, 6,  21, 10,
                                23, 19, 12, 4,  26, 8,  16, 7,  27, 20, 13, 2,
                                41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48,
                                44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32};
static const uint8_t SHIFTS[16] = {1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1};
/* S[box][row][column] as FIPS 46-3 prints them. */
static const uint8_t S[8][4][16] = {
    {{14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7},
     {0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8},
     {4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0},
     {15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13}},
    {{15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10},
     {3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5},
     {0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15},
     {13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9}},
    {{10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8},
     {13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1},
     {13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7},
     {1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12}},
    {{7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15},
     {13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9},
     {10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4},
     {3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14}},
    {{2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9},
     {14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6},
     {4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14},
     {11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3}},
    {{12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11},
     {10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8},
     {9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6},
     {4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13}},
    {{4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1},
     {13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6},
     {1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2},
     {6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12}},
    {{13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7},
     {1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2},
     {7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8},
     {2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11}}};

typedef struct des_keys {
  uint64_t k[16]; /* the 48-bit round keys */
} des_keys;

/* FIPS 46-3's bit numbering: bit 1 is the most significant of width. */
static uint64_t permute(uint64_t in, int width, const uint8_t *table, int n) {
  uint64_t out = 0;
  for (int i = 0; i < n; i++) out = out << 1 | (in >> (width - table[i]) & 1);
  return out;
}

/* S-box `box` at the 6-bit x, reading every entry: the one kept is chosen
 * by a mask, not by an address. */
static uint32_t sbox_ct(int box, uint32_t x) {
  uint32_t r = 0;
  for (uint32_t v = 0; v < 64; v++) {
    uint32_t hit = 0u - (((v ^ x) - 1u) >> 31); /* all ones when v == x */
    r |= hit & S[box][(v >> 4 & 2) | (v & 1)][v >> 1 & 15];
  }
  return r;
}

static uint32_t feistel(uint32_t r, uint64_t k) {
  uint64_t x = permute(r, 32, E, 48) ^ k;
  uint32_t s = 0;
  for (int box = 0; box < 8; box++) s = s << 4 | sbox_ct(box, (uint32_t)(x >> (42 - 6 * box)) & 63);
  return (uint32_t)permute(s, 32, P, 32);
}

static uint32_t rotl28(uint32_t x, int n) { return ((x << n) | (x >> (28 - n))) & 0xfffffff; }

static void schedule(const uint8_t key[8], des_keys *ks) {
  uint64_t cd = permute(gostx_load64_be(key), 64, PC1, 56);
  uint32_t c = (uint32_t)(cd >> 28), d = (uint32_t)cd & 0xfffffff;
  for (int i = 0; i < 16; i++) {
    c = rotl28(c, SHIFTS[i]), d = rotl28(d, SHIFTS[i]);
    ks->k[i] = permute((uint64_t)c << 28 | d, 56, PC2, 48);
  }
}

/* One DES pass over the block (IP and FP included); decrypt runs the
 * round keys backwards. */
static uint64_t des_block(const des_keys *ks, int decrypt, uint64_t block) {
  uint64_t x = permute(block, 64, IP, 64);
  uint32_t l = (uint32_t)(x >> 32), r = (uint32_t)x;
  for (int i = 0; i < 16; i++) {
    uint32_t t = l ^ feistel(r, ks->k[decrypt ? 15 - i : i]);
    l = r, r = t;
  }
  return permute((uint64_t)r << 32 | l, 64, FP, 64);
}

static void schedule3(const uint8_t key[GOSTX__DES3_KEY_LEN], des_keys ks[3]) {
  for (int i = 0; i < 3; i++) schedule(key + 8 * i, &ks[i]);
}

void gostx__des3_encrypt_block(const uint8_t key[GOSTX__DES3_KEY_LEN], const uint8_t in[8],
                               uint8_t out[8]) {
  des_keys ks[3];
  schedule3(key, ks);
  uint64_t x = des_block(&ks[2], 0, des_block(&ks[1], 1, des_block(&ks[0], 0, gostx_load64_be(in))));
  gostx_store64_be(out, x);
  gostx_memzero(ks, sizeof ks);
}

int gostx__des3_cbc_decrypt(const uint8_t key[GOSTX__DES3_KEY_LEN],
                            const uint8_t iv[GOSTX__DES3_BLOCK], const uint8_t *in, size_t len,
                            uint8_t *out) {
  if (len % GOSTX__DES3_BLOCK) return GOSTX_EINVAL;
  des_keys ks[3];
  schedule3(key, ks);
  uint64_t prev = gostx_load64_be(iv);
  for (size_t i = 0; i < len; i += GOSTX__DES3_BLOCK) {
    uint64_t c = gostx_load64_be(in + i);
    uint64_t p = des_block(&ks[0], 1, des_block(&ks[1], 0, des_block(&ks[2], 1, c))) ^ prev;
    gostx_store64_be(out + i, p);
    prev = c;
  }
  gostx_memzero(ks, sizeof ks);
  return 0;
}
