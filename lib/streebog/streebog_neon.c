/* Streebog compression g_N on AArch64 NEON, table-free in the sense that
 * matters: no load address depends on the state (constant time, unlike the
 * 16 KiB LPS tables of streebog_portable.c).
 *
 * The state is kept byte-sliced: register b holds byte b of every 64-bit
 * word, one word per lane. The two LPS of a round (on K ^ S and on K ^ C_i)
 * are independent, so they share every instruction: words of the first in
 * lanes 0-7, of the second in lanes 8-15.
 *   S  pi on all 16 lanes: four 64-byte TBL lookups (TBL gives 0 for an index
 *      past its table, so index ^ 0x40 * q selects quarter q) ORed together.
 *   P  an 8x8 byte transpose inside each half (three TRN stages).
 *   L  linear over GF(2): output byte b of a word is the XOR, over its 16
 *      input nibbles, of a 16-entry table per (input nibble, output byte),
 *      128 TBL + 128 EOR for the 16 words. The tables (2 KiB) are derived
 *      once from the fused tables of streebog_tables.h and Kuznyechik's pi,
 *      which the two standards share: L(u at byte k) = lps[k][pi^-1(u)].
 * About 320 vector instructions per LPS pair, 13 pairs per block. */
#include "arch.h"

#ifdef GOSTX_ARCH_AARCH64
#include <arm_neon.h>
#include <pthread.h>

#include "streebog/impl.h"
#include "kuznyechik/kuz_tables.h" /* gostx__kuz_pi: Streebog's pi too */
#include "streebog_tables.h"

static struct {
  _Alignas(16) uint8_t pi[256];
  /* l[k][h][b][n]: byte b of L(n << 4h placed at byte k). */
  _Alignas(16) uint8_t l[8][2][8][16];
  /* c[i][b][w]: byte b of word w of the round constant C_i. */
  _Alignas(16) uint8_t c[12][8][8];
} tab;
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void build_tables(void) {
  uint8_t inv[256];
  memcpy(tab.pi, gostx__kuz_pi, 256);
  for (int v = 0; v < 256; v++) inv[gostx__kuz_pi[v]] = (uint8_t)v;
  for (int k = 0; k < 8; k++)
    for (int h = 0; h < 2; h++)
      for (int n = 0; n < 16; n++) {
        uint64_t w = gostx_streebog_lps[k][inv[n << (4 * h)]];
        for (int b = 0; b < 8; b++) tab.l[k][h][b][n] = (uint8_t)(w >> (8 * b));
      }
  for (int i = 0; i < 12; i++)
    for (int w = 0; w < 8; w++)
      for (int b = 0; b < 8; b++) tab.c[i][b][w] = (uint8_t)(gostx_streebog_c[i][w] >> (8 * b));
}

/* Register r <-> lane r inside each 8-lane half: x[r] lane c = old x[c] lane r. */
static inline void transpose8(uint8x16_t x[8]) {
  uint8x16_t s[8], t[8];
  for (int i = 0; i < 8; i += 2) {
    s[i] = vtrn1q_u8(x[i], x[i + 1]);
    s[i + 1] = vtrn2q_u8(x[i], x[i + 1]);
  }
#define TRN16(op, a, b) vreinterpretq_u8_u16(op(vreinterpretq_u16_u8(a), vreinterpretq_u16_u8(b)))
#define TRN32(op, a, b) vreinterpretq_u8_u32(op(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b)))
  for (int i = 0; i < 8; i += 4) {
    t[i] = TRN16(vtrn1q_u16, s[i], s[i + 2]);
    t[i + 2] = TRN16(vtrn2q_u16, s[i], s[i + 2]);
    t[i + 1] = TRN16(vtrn1q_u16, s[i + 1], s[i + 3]);
    t[i + 3] = TRN16(vtrn2q_u16, s[i + 1], s[i + 3]);
  }
  for (int i = 0; i < 4; i++) {
    x[i] = TRN32(vtrn1q_u32, t[i], t[i + 4]);
    x[i + 4] = TRN32(vtrn2q_u32, t[i], t[i + 4]);
  }
#undef TRN16
#undef TRN32
}

/* LPS on 16 words, byte-sliced in place. */
static inline void lps16(uint8x16_t x[8]) {
  const uint8x16x4_t p0 = vld1q_u8_x4(tab.pi), p1 = vld1q_u8_x4(tab.pi + 64);
  const uint8x16x4_t p2 = vld1q_u8_x4(tab.pi + 128), p3 = vld1q_u8_x4(tab.pi + 192);
  const uint8x16_t q1 = vdupq_n_u8(0x40), q2 = vdupq_n_u8(0x80), q3 = vdupq_n_u8(0xc0);
  for (int b = 0; b < 8; b++) {
    uint8x16_t v = x[b];
    x[b] = vorrq_u8(vorrq_u8(vqtbl4q_u8(p0, v), vqtbl4q_u8(p1, veorq_u8(v, q1))),
                    vorrq_u8(vqtbl4q_u8(p2, veorq_u8(v, q2)), vqtbl4q_u8(p3, veorq_u8(v, q3))));
  }
  transpose8(x);
  const uint8x16_t m0f = vdupq_n_u8(0x0f);
  uint8x16_t o[8];
  for (int b = 0; b < 8; b++) o[b] = vdupq_n_u8(0);
  for (int k = 0; k < 8; k++) {
    const uint8x16_t lo = vandq_u8(x[k], m0f), hi = vshrq_n_u8(x[k], 4);
    for (int b = 0; b < 8; b++)
      o[b] = veorq_u8(o[b], veorq_u8(vqtbl1q_u8(vld1q_u8(tab.l[k][0][b]), lo),
                                     vqtbl1q_u8(vld1q_u8(tab.l[k][1][b]), hi)));
  }
  for (int b = 0; b < 8; b++) x[b] = o[b];
}

/* Two 64-byte states (eight little-endian words each) <-> byte-sliced
 * registers: a in lanes 0-7, b in lanes 8-15. */
static inline void slice(uint8x16_t x[8], const uint8_t a[64], const uint8_t b[64]) {
  for (int w = 0; w < 8; w++) x[w] = vcombine_u8(vld1_u8(a + 8 * w), vld1_u8(b + 8 * w));
  transpose8(x);
}

static void compress(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]) {
  static const uint8_t zero[64];
  pthread_once(&tab_once, build_tables);
  uint8x16_t hm[8], st[8], nz[8];
  slice(hm, h, m); /* h | m */
  slice(nz, n, zero);
  for (int b = 0; b < 8; b++) st[b] = veorq_u8(hm[b], nz[b]); /* h ^ N (low half) */
  lps16(st);                                                   /* K_1 (low half) */
  uint8x8_t k[8], s[8];
  for (int b = 0; b < 8; b++) {
    k[b] = vget_low_u8(st[b]);
    s[b] = vget_high_u8(hm[b]); /* the state starts as m */
  }
  for (int i = 0; i < 12; i++) {
    for (int b = 0; b < 8; b++)
      st[b] = vcombine_u8(veor_u8(k[b], s[b]), veor_u8(k[b], vld1_u8(tab.c[i][b])));
    lps16(st);
    for (int b = 0; b < 8; b++) {
      s[b] = vget_low_u8(st[b]);
      k[b] = vget_high_u8(st[b]);
    }
  }
  /* h' = K_13 ^ state ^ h ^ m, back to words. */
  for (int b = 0; b < 8; b++) {
    uint8x8_t r = veor_u8(veor_u8(k[b], s[b]), veor_u8(vget_low_u8(hm[b]), vget_high_u8(hm[b])));
    st[b] = vcombine_u8(r, r);
  }
  transpose8(st);
  for (int w = 0; w < 8; w++) vst1_u8(h + 8 * w, vget_low_u8(st[w]));
  gostx_memzero(hm, sizeof hm); /* what spilled of the (keyed, for HMAC) state */
  gostx_memzero(st, sizeof st);
  gostx_memzero(k, sizeof k);
  gostx_memzero(s, sizeof s);
}

const struct gostx_streebog_impl gostx_streebog_neon = {"neon", compress};

#endif
