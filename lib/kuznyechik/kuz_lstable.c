/* Kuznyechik with the classic LS tables: OPT-IN ONLY, NOT CONSTANT TIME.
 *
 * A round is y = XOR_j T[j][x_j] with T[j][v] = L(pi(v) at byte j): sixteen
 * loads whose addresses depend on key-mixed state, so the key leaks through
 * the cache (Bernstein/Osvik-Shamir-Tromer style attacks on AES tables apply).
 * The dispatcher never picks it unless GOSTX_IMPL=lstable names it; it exists
 * for machines where it is the fastest and cache timing is out of scope.
 *
 * Decryption uses the equivalent order (kuz.c fills k->dk = L^-1(K_i)):
 *   D = X[K1] S^-1 X[dk2] L^-1 S^-1 X[dk3] ... L^-1 S^-1 X[dk10] L^-1,
 * so after L^-1 of the input every round is one table pass of L^-1 S^-1
 * (IT[j][v] = L^-1(pi^-1(v) at byte j)); L^-1 of the input is IT of pi(c).
 *
 * The 2 x 64 KiB tables are computed on first use (pthread_once) from
 * kuz_tables.h (pi, pi^-1, L and L^-1 as GF(2^8) matrices), not written by
 * hand. */
#include <pthread.h>

#include "impl.h"
#include "kuz_tables.h"

static uint64_t ls_fwd[16][256][2], ls_inv[16][256][2];
static pthread_once_t ls_once = PTHREAD_ONCE_INIT;

static void build(uint64_t t[16][256][2], const uint8_t m[16][16], const uint8_t sbox[256]) {
  for (unsigned j = 0; j < 16; j++)
    for (unsigned v = 0; v < 256; v++) {
      uint8_t col[16];
      for (unsigned i = 0; i < 16; i++) col[i] = gostx__kuz_gf_mul(m[i][j], sbox[v]);
      t[j][v][0] = gostx_load64_le(col);
      t[j][v][1] = gostx_load64_le(col + 8);
    }
}

static void ls_init(void) {
  build(ls_fwd, gostx__kuz_lmatrix_fwd, gostx__kuz_pi);
  build(ls_inv, gostx__kuz_lmatrix_inv, gostx__kuz_pi_inv);
}

/* (w0, w1) = XOR_j t[j][byte j] (the leaky lookups). */
/* t is read-only here; not const-qualified because ISO C before C2X cannot
 * pass a mutable array of arrays to a const one without a cast. */
static inline void pass(uint64_t *w0, uint64_t *w1, uint64_t t[16][256][2]) {
  uint64_t a = *w0, b = *w1, y0 = 0, y1 = 0;
  for (unsigned j = 0; j < 8; j++) {
    const uint64_t *e = t[j][(a >> (8 * j)) & 0xff], *f = t[j + 8][(b >> (8 * j)) & 0xff];
    y0 ^= e[0] ^ f[0];
    y1 ^= e[1] ^ f[1];
  }
  *w0 = y0;
  *w1 = y1;
}

static void lstable_encrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  pthread_once(&ls_once, ls_init);
  for (; n; n--, in += 16, out += 16) {
    uint64_t w0 = gostx_load64_le(in), w1 = gostx_load64_le(in + 8);
    for (unsigned r = 0; r < 9; r++) {
      w0 ^= gostx_load64_le(k->ek[r]);
      w1 ^= gostx_load64_le(k->ek[r] + 8);
      pass(&w0, &w1, ls_fwd);
    }
    gostx_store64_le(out, w0 ^ gostx_load64_le(k->ek[9]));
    gostx_store64_le(out + 8, w1 ^ gostx_load64_le(k->ek[9] + 8));
  }
}

static void lstable_decrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n) {
  pthread_once(&ls_once, ls_init);
  for (; n; n--, in += 16, out += 16) {
    uint8_t c[16];
    for (unsigned i = 0; i < 16; i++) c[i] = gostx__kuz_pi[in[i]]; /* IT(pi(c)) = L^-1(c) */
    uint64_t w0 = gostx_load64_le(c), w1 = gostx_load64_le(c + 8);
    pass(&w0, &w1, ls_inv);
    for (unsigned r = 9;; r--) { /* X[dk_{r+1}], then S^-1 and L^-1 but after dk2 */
      w0 ^= gostx_load64_le(k->dk[r]);
      w1 ^= gostx_load64_le(k->dk[r] + 8);
      if (r == 1) break;
      pass(&w0, &w1, ls_inv);
    }
    gostx_store64_le(c, w0);
    gostx_store64_le(c + 8, w1);
    for (unsigned i = 0; i < 16; i++) out[i] = (uint8_t)(gostx__kuz_pi_inv[c[i]] ^ k->ek[0][i]);
  }
}

const struct gostx_kuz_impl gostx_kuz_lstable = {"lstable", lstable_encrypt, lstable_decrypt,
                                                 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL};
