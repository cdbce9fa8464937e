/* The XTS walker (lib/blockops/xts_walk.c), shared by the generic XTS loop
 * (lib/cipher.c) and the Kuznyechik kernels that implement the impl's xts
 * entry: below both, so that no kernel reaches up into the modes. Not
 * installed. */
#ifndef GOSTX_XTS_WALK_H
#define GOSTX_XTS_WALK_H

#include "internal.h"

/* Walks the full blocks of XTS data units (the contract of the impl's xts
 * entry) in runs: each run is at most max blocks under one key that lie back
 * to back in memory (within a unit, or across units whose positions are
 * adjacent and whose key pointers are equal), and comes with its tweaks. The
 * generic loop (lib/cipher.c) and the bitsliced kernels use it; wipe the
 * walker with gostx_memzero after use. */
struct gostx__xts_walk {
  /* Writes n tweaks from (*lo, *hi) on, leaves it at the next one: a
   * kernel may set its own vector form after init (NULL: the scalar
   * chain of gostx__xts_mul_alpha, ~4 cycles of latency a tweak). */
  void (*fill)(uint8_t *tw, uint64_t *lo, uint64_t *hi, size_t n);
  const gostx_kuz_key *const *keys;
  size_t nkeys;
  uint8_t *t;
  const size_t *idx;
  size_t stride, nb, count;
  size_t u, j;      /* the next block: block j of unit u */
  uint64_t lo, hi;  /* its tweak */
};
void gostx__xts_walk_init(struct gostx__xts_walk *w, const gostx_kuz_key *const *keys,
                          size_t nkeys, uint8_t *t, const size_t *idx, size_t stride, size_t nb,
                          size_t count);
/* The next run: its length (0 when done), *off its first block's byte offset
 * from in / out, *key its key, tw[i] the tweak of its block i (16 * max
 * bytes). When a unit's last block is taken its t[u] is set to the tweak
 * after it. */
size_t gostx__xts_walk_next(struct gostx__xts_walk *w, uint8_t *tw, size_t max, size_t *off,
                            const gostx_kuz_key **key);

#endif
