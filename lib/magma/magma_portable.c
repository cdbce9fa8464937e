/* Portable Magma / GOST 28147-89 block core: one Feistel network serving both
 * byte conventions (the key's `le` flag picks the load/store order) and every
 * S-box set. Constant time: the S-box layer uses packed-word shifts
 * (gostx__magma_t), the only data-dependent operations are add, xor, shift. */
#include "magma/impl.h"

uint32_t gostx__magma_round_key(const gostx_magma_key *k, unsigned i) {
  /* K1..K24 cycle through K1..K8; K25..K32 run K8..K1. */
  return i <= 24 ? k->rk[(i - 1) & 7] : k->rk[32 - i];
}

/* The rounds below are written in the alternating form: n1 = a0 and n2 = a1
 * at the start, each round updates one half in place (no swaps), and after
 * 32 rounds (a1, a0) = (n1, n2), which already accounts for the unswapped
 * final round G*. */
#define G(k, x) gostx__magma_g(sb, (k), (x))
#define EIGHT_UP(n1, n2)                                                      \
  do {                                                                        \
    n2 ^= G(k0, n1); n1 ^= G(k1, n2); n2 ^= G(k2, n1); n1 ^= G(k3, n2);       \
    n2 ^= G(k4, n1); n1 ^= G(k5, n2); n2 ^= G(k6, n1); n1 ^= G(k7, n2);       \
  } while (0)
#define EIGHT_DOWN(n1, n2)                                                    \
  do {                                                                        \
    n2 ^= G(k7, n1); n1 ^= G(k6, n2); n2 ^= G(k5, n1); n1 ^= G(k4, n2);       \
    n2 ^= G(k3, n1); n1 ^= G(k2, n2); n2 ^= G(k1, n1); n1 ^= G(k0, n2);       \
  } while (0)

void gostx__magma_encrypt_words(const gostx_magma_key *k, uint32_t *a1p, uint32_t *a0p,
                                uint64_t *trace) {
  const uint64_t *sb = gostx__magma_sbox[k->sbox_id];
  if (trace) {
    /* Textbook form, keeping the standard's intermediate states. */
    uint32_t a1 = *a1p, a0 = *a0p;
    for (unsigned i = 1; i < 32; i++) {
      uint32_t t = a1 ^ G(gostx__magma_round_key(k, i), a0);
      a1 = a0;
      a0 = t;
      trace[i - 1] = ((uint64_t)a1 << 32) | a0;
    }
    *a1p = a1 ^ G(k->rk[0], a0); /* G*: the last round does not swap */
    *a0p = a0;
    return;
  }
  const uint32_t k0 = k->rk[0], k1 = k->rk[1], k2 = k->rk[2], k3 = k->rk[3];
  const uint32_t k4 = k->rk[4], k5 = k->rk[5], k6 = k->rk[6], k7 = k->rk[7];
  uint32_t n1 = *a0p, n2 = *a1p;
  EIGHT_UP(n1, n2); /* K1..K24 */
  EIGHT_UP(n1, n2);
  EIGHT_UP(n1, n2);
  EIGHT_DOWN(n1, n2); /* K25..K32 = K8..K1 */
  *a1p = n1;
  *a0p = n2;
}

void gostx__magma_decrypt_words(const gostx_magma_key *k, uint32_t *a1p, uint32_t *a0p) {
  const uint64_t *sb = gostx__magma_sbox[k->sbox_id];
  const uint32_t k0 = k->rk[0], k1 = k->rk[1], k2 = k->rk[2], k3 = k->rk[3];
  const uint32_t k4 = k->rk[4], k5 = k->rk[5], k6 = k->rk[6], k7 = k->rk[7];
  uint32_t n1 = *a0p, n2 = *a1p;
  /* Round keys reversed: K32..K25 = K1..K8, then K24..K1. */
  EIGHT_UP(n1, n2);
  EIGHT_DOWN(n1, n2);
  EIGHT_DOWN(n1, n2);
  EIGHT_DOWN(n1, n2);
  *a1p = n1;
  *a0p = n2;
}

void gostx__magma_imit16_words(const gostx_magma_key *k, uint32_t *a1p, uint32_t *a0p) {
  const uint64_t *sb = gostx__magma_sbox[k->sbox_id];
  const uint32_t k0 = k->rk[0], k1 = k->rk[1], k2 = k->rk[2], k3 = k->rk[3];
  const uint32_t k4 = k->rk[4], k5 = k->rk[5], k6 = k->rk[6], k7 = k->rk[7];
  uint32_t n1 = *a0p, n2 = *a1p;
  EIGHT_UP(n1, n2);
  EIGHT_UP(n1, n2);
  /* After an even number of plain rounds the halves sit where they started. */
  *a1p = n2;
  *a0p = n1;
}

static void portable_encrypt(const gostx_magma_key *k, const uint8_t *in, uint8_t *out,
                             size_t nblocks) {
  for (size_t b = 0; b < nblocks; b++, in += 8, out += 8) {
    uint32_t a1, a0;
    gostx__magma_load(k, in, &a1, &a0);
    gostx__magma_encrypt_words(k, &a1, &a0, NULL);
    gostx__magma_store(k, out, a1, a0);
  }
}

static void portable_decrypt(const gostx_magma_key *k, const uint8_t *in, uint8_t *out,
                             size_t nblocks) {
  for (size_t b = 0; b < nblocks; b++, in += 8, out += 8) {
    uint32_t a1, a0;
    gostx__magma_load(k, in, &a1, &a0);
    gostx__magma_decrypt_words(k, &a1, &a0);
    gostx__magma_store(k, out, a1, a0);
  }
}

/* No mk path: gostx__magma_mk_crypt's per-block loop over these functions
 * is the portable multi-key reference. */
const struct gostx_magma_impl gostx_magma_portable = {"portable", portable_encrypt,
                                                      portable_decrypt, NULL, NULL,
                                                      gostx__magma_imit16_words, gostx__magma_chain, 0,
                                                      NULL};
