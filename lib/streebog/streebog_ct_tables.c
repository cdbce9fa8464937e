/* The tables of the constant-time x86 Streebog (streebog_ct.h, used by
 * streebog_ssse3.c and streebog_avx2.c), built once from the standard's
 * pi (Kuznyechik's, which the two standards share) and the fused LPS
 * tables. Every table here is indexed only by public loop counters while it
 * is built, and read by the vector code only whole (as vpshufb operands),
 * never at a data-dependent address. Plain C: no ISA of its own. */
#include "arch.h"

#ifdef GOSTX_ARCH_X86_64
#include <pthread.h>

#include "kuznyechik/kuz_tables.h" /* gostx__kuz_pi: Streebog's pi too */
#include "streebog/impl.h"
#include "streebog_tables.h"

static struct gostx__sb_ct_tables tab;
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

/* Both 128-bit halves of a 32-byte vpshufb operand. */
static void put2(uint8_t dst[32], const uint8_t lo[16], const uint8_t hi[16]) {
  memcpy(dst, lo, 16);
  memcpy(dst + 16, hi, 16);
}

static void build(void) {
  const uint8_t *pi = gostx__kuz_pi;
  uint8_t inv[256], d[16];
  for (int v = 0; v < 256; v++) inv[pi[v]] = (uint8_t)v;
  /* S: lane x looks up table i of a half when its high nibble is <= i, so
   * table i holds row i ^ row i+1 and the XOR over i >= row is the row. */
  for (int half = 0; half < 2; half++)
    for (int i = 0; i < 8; i++) {
      const uint8_t *row = pi + 16 * (8 * half + i);
      for (int l = 0; l < 16; l++) d[l] = (uint8_t)(row[l] ^ (i < 7 ? row[16 + l] : 0));
      put2(tab.s[8 * half + i], d, d);
      put2(tab.row[8 * half + i], row, row);
    }
  for (int i = 0; i < 7; i++) memset(tab.gate[i], 0x70 - 16 * i, 32);
  /* L: lt[k][h][b][n] = byte b of L(nibble n at nibble h of byte k). */
  static uint8_t lt[8][2][8][16];
  for (int k = 0; k < 8; k++)
    for (int h = 0; h < 2; h++)
      for (int n = 0; n < 16; n++) {
        uint64_t w = gostx_streebog_lps[k][inv[n << (4 * h)]];
        for (int b = 0; b < 8; b++) lt[k][h][b][n] = (uint8_t)(w >> (8 * b));
      }
  for (int k = 0; k < 4; k++)
    for (int b = 0; b < 4; b++)
      for (int h = 0; h < 2; h++) {
        put2(tab.l[k][b][h], lt[k][h][b], lt[k + 4][h][b + 4]);         /* halves as they are */
        put2(tab.l[k][b][2 + h], lt[k + 4][h][b], lt[k][h][b + 4]); /* halves swapped */
      }
  static const int order[2][4] = {{0, 1, 4, 5}, {2, 3, 6, 7}};
  for (int r = 0; r < 12; r++)
    for (int p = 0; p < 2; p++)
      for (int q = 0; q < 4; q++) tab.c[r][p][q] = gostx_streebog_c[r][order[p][q]];
}

const struct gostx__sb_ct_tables *gostx__sb_ct_tables(void) {
  pthread_once(&tab_once, build);
  return &tab;
}

#endif
