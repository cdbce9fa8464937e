/* The tables of the constant-time x86 Streebog (streebog_ct.h, used by
 * streebog_ssse3.c and streebog_avx2.c; the zmm form for
 * streebog_avx512bw.c), built once. Every table here is filled by public
 * loop counters and read by the vector code only whole (as
 * vpshufb operands), never at a data-dependent address. Plain C: no ISA of
 * its own.
 *
 * pi (shared by Streebog and Kuznyechik) is computed through the
 * decomposition found by Biryukov, Perrin and Udovenko ("Reverse-engineering
 * the S-box of Streebog, Kuznyechik and STRIBOBr1", Eurocrypt 2016), all of
 * whose pieces act on nibbles: with (l, r) = alpha(x) and GF(16) products
 * (modulo z^4 + z^3 + 1),
 *   l' = nu0(l) if r = 0, else nu1(l * r^-1);   r' = sigma(r * phi(l'));
 *   pi(x) = omega(l' || r')          (alpha, omega linear over GF(2)).
 * The vector code takes each product as exp(log a + log b) with the sum
 * reduced mod 15 by an unsigned minimum, and log 0 = 0xf0, which sends the
 * sum past bit 7 so that vpshufb gives 0 there. The tables are offset so
 * that a zero product needs no fix-up: nu1exp holds nu1(.) ^ nu1(0) and
 * sigmaexp sigma(.) ^ sigma(0), and the offsets are undone inside the next
 * tables (logphi, and the L o omega tables with the constant they leave).
 * omega is linear, so it is merged into L's nibble tables: L reads l' and r'
 * directly. alpha is linear too, and acts bytewise, so it commutes with the
 * XORs of the round keys and constants: the vector code keeps every value
 * alpha-mapped (L's tables and C_i include alpha; h ^ N and m are mapped on
 * the way in, the result mapped back on the way out), and S starts at
 * (l, r). streebog_ct.h documents the data flow; test_streebog_simd
 * compares the result with the portable code. */
#include "arch.h"

#ifdef GOSTX_ARCH_X86_64
#include <pthread.h>

#include "kuznyechik/kuz_tables.h" /* gostx__kuz_pi: Streebog's pi too */
#include "streebog/impl.h"
#include "streebog_tables.h"

static struct gostx__sb_ct_tables tab;
static struct gostx__sb_zmm_tables tz;
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

/* The decomposition's pieces (BPU 2016). A matrix row y is a byte whose bit
 * 7 - x is entry (y, x); input bit 7 - x is column x, output bit 7 - y row y. */
static const uint8_t nu0[16] = {2, 5, 3, 11, 6, 9, 14, 10, 0, 4, 15, 1, 8, 13, 12, 7};
static const uint8_t nu1[16] = {7, 6, 12, 9, 0, 15, 8, 1, 4, 5, 11, 14, 13, 2, 3, 10};
static const uint8_t sigma[16] = {12, 13, 0, 4, 8, 11, 10, 14, 3, 9, 5, 2, 15, 1, 6, 7};
static const uint8_t phi[16] = {11, 2, 11, 8, 12, 4, 1, 12, 6, 3, 5, 8, 14, 3, 6, 11};
static const uint8_t alpha[8] = {0x08, 0x41, 0x43, 0xef, 0x8a, 0x44, 0x1a, 0x20};
static const uint8_t omega[8] = {0x0a, 0x04, 0x20, 0x9a, 0x08, 0x44, 0x82, 0x01};

static uint8_t matmul(const uint8_t m[8], unsigned a) {
  unsigned r = 0;
  for (int y = 0; y < 8; y++) {
    unsigned v = m[y] & a, p = 0;
    while (v) {
      p ^= v & 1;
      v >>= 1;
    }
    r |= p << (7 - y);
  }
  return (uint8_t)r;
}

/* Both 128-bit halves of a 32-byte vpshufb operand. */
static void put2(uint8_t dst[32], const uint8_t lo[16], const uint8_t hi[16]) {
  memcpy(dst, lo, 16);
  memcpy(dst + 16, hi, 16);
}

static void build(void) {
  uint8_t exp[15], log[16], t[10][16], ainv[256];
  for (int v = 0; v < 256; v++) ainv[matmul(alpha, (unsigned)v)] = (uint8_t)v;
  exp[0] = 1;
  for (int i = 1; i < 15; i++) { /* powers of z modulo z^4 + z^3 + 1 */
    unsigned v = exp[i - 1] << 1;
    exp[i] = (uint8_t)(v & 16 ? v ^ 0x19 : v);
  }
  log[0] = 0xf0;
  for (int i = 0; i < 15; i++) log[exp[i]] = (uint8_t)i;
  const uint8_t c1 = nu1[0], s0 = sigma[0]; /* the offsets of l' and r' */
  for (int n = 0; n < 16; n++) {
    t[0][n] = matmul(alpha, (unsigned)n);
    t[1][n] = matmul(alpha, (unsigned)n << 4);
    t[2][n] = log[n];
    t[3][n] = n ? (uint8_t)((15 - log[n]) % 15) : 0xf0; /* log of the inverse */
    t[4][n] = n < 15 ? nu1[exp[n]] ^ c1 : 0;
    t[5][n] = nu0[n] ^ c1;
    t[6][n] = log[phi[n ^ c1]]; /* phi is never 0 */
    t[7][n] = n < 15 ? sigma[exp[n]] ^ s0 : 0;
    t[8][n] = ainv[n]; /* alpha^-1 is linear: by nibbles */
    t[9][n] = ainv[n << 4];
  }
  put2(tab.alpha[0], t[0], t[0]);
  put2(tab.alpha[1], t[1], t[1]);
  put2(tab.alphainv[0], t[8], t[8]);
  put2(tab.alphainv[1], t[9], t[9]);
  put2(tab.log, t[2], t[2]);
  put2(tab.nlog, t[3], t[3]);
  put2(tab.nu1exp, t[4], t[4]);
  put2(tab.nu0, t[5], t[5]);
  put2(tab.logphi, t[6], t[6]);
  put2(tab.sigmaexp, t[7], t[7]);
  for (int o = 0; o < 64; o += 16) { /* the same 16 entries in every lane */
    memcpy(tz.alpha[0] + o, t[0], 16);
    memcpy(tz.alpha[1] + o, t[1], 16);
    memcpy(tz.alphainv[0] + o, t[8], 16);
    memcpy(tz.alphainv[1] + o, t[9], 16);
    memcpy(tz.log + o, t[2], 16);
    memcpy(tz.nlog + o, t[3], 16);
    memcpy(tz.nu1exp + o, t[4], 16);
    memcpy(tz.nu0 + o, t[5], 16);
    memcpy(tz.logphi + o, t[6], 16);
    memcpy(tz.sigmaexp + o, t[7], 16);
  }

  /* L o omega: lt[k][h][b][n] = byte b of L(omega(n << 4h) at byte k), h = 0
   * for r', 1 for l'. L(v at byte k) = lps[k][pi^-1(v)]. The offsets add
   * omega(c1 || s0) to every byte of L's input: its image q is added once,
   * through the l' table of input byte 0 (and 4, for the high half). */
  static uint8_t lt[8][2][8][16];
  uint8_t inv[256];
  uint64_t q = 0;
  for (int v = 0; v < 256; v++) inv[gostx__kuz_pi[v]] = (uint8_t)v;
  for (int k = 0; k < 8; k++) {
    q ^= gostx_streebog_lps[k][inv[matmul(omega, (unsigned)(c1 << 4 | s0))]];
    for (int h = 0; h < 2; h++)
      for (int n = 0; n < 16; n++) {
        uint64_t w = gostx_streebog_lps[k][inv[matmul(omega, (unsigned)n << (4 * h))]];
        for (int b = 0; b < 8; b++) lt[k][h][b][n] = matmul(alpha, (uint8_t)(w >> (8 * b)));
      }
  }
  for (int b = 0; b < 8; b++)
    for (int n = 0; n < 16; n++) lt[b < 4 ? 0 : 4][1][b][n] ^= matmul(alpha, (uint8_t)(q >> (8 * b)));
  for (int k = 0; k < 4; k++)
    for (int b = 0; b < 4; b++)
      for (int h = 0; h < 2; h++) {
        put2(tab.l[k][b][h], lt[k][h][b], lt[k + 4][h][b + 4]);     /* halves as they are */
        put2(tab.l[k][b][2 + h], lt[k + 4][h][b], lt[k][h][b + 4]); /* halves swapped */
      }
  for (int kk = 0; kk < 2; kk++)
    for (int d = 0; d < 4; d++)
      for (int j = 0; j < 2; j++)
        for (int h = 0; h < 2; h++)
          for (int lane = 0; lane < 4; lane++)
            memcpy(tz.l[kk][d][j][h] + 16 * lane, lt[kk + 2 * lane][h][j + 2 * ((lane + d) % 4)], 16);
  static const int order[2][4] = {{0, 1, 4, 5}, {2, 3, 6, 7}};
  for (int r = 0; r < 12; r++)
    for (int p = 0; p < 2; p++)
      for (int w = 0; w < 4; w++) {
        uint64_t c = gostx_streebog_c[r][order[p][w]], a = 0;
        for (int b = 0; b < 8; b++) a |= (uint64_t)matmul(alpha, (uint8_t)(c >> (8 * b))) << (8 * b);
        tab.c[r][p][w] = a;
      }
  for (int r = 0; r < 12; r++)
    for (int kk = 0; kk < 2; kk++)
      for (int lane = 0; lane < 4; lane++) {
        uint64_t c = gostx_streebog_c[r][kk + 2 * lane], a = 0;
        for (int b = 0; b < 8; b++) a |= (uint64_t)matmul(alpha, (uint8_t)(c >> (8 * b))) << (8 * b);
        tz.c[r][kk][2 * lane] = 0;
        tz.c[r][kk][2 * lane + 1] = a;
      }
}

const struct gostx__sb_ct_tables *gostx__sb_ct_tables(void) {
  pthread_once(&tab_once, build);
  return &tab;
}

const struct gostx__sb_zmm_tables *gostx__sb_zmm_tables(void) {
  pthread_once(&tab_once, build);
  return &tz;
}

#endif
