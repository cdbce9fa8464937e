/* The XTS walker (xts_walk.h): the runs of full blocks that the generic
 * XTS loop (lib/cipher.c) and the Kuznyechik kernels' xts entries share. */
#include "xts_walk.h"

void gostx__xts_walk_init(struct gostx__xts_walk *w, const gostx_kuz_key *const *keys,
                          size_t nkeys, uint8_t *t, const size_t *idx, size_t stride, size_t nb,
                          size_t count) {
  w->fill = NULL;
  w->keys = keys;
  w->nkeys = nkeys;
  w->t = t;
  w->idx = idx;
  w->stride = stride;
  w->nb = nb;
  w->count = count;
  w->u = w->j = 0;
  w->lo = count ? gostx_load64_le(t) : 0;
  w->hi = count ? gostx_load64_le(t + 8) : 0;
}

static size_t walk_pos(const struct gostx__xts_walk *w, size_t u) {
  return (w->idx ? w->idx[u] : u) * w->stride;
}

static const gostx_kuz_key *walk_key(const struct gostx__xts_walk *w, size_t u) {
  return w->keys[w->nkeys == 1 ? 0 : u];
}

size_t gostx__xts_walk_next(struct gostx__xts_walk *w, uint8_t *tw, size_t max, size_t *off,
                            const gostx_kuz_key **key) {
  size_t m = 0;
  if (w->u == w->count) return 0;
  *off = walk_pos(w, w->u) + 16 * w->j;
  *key = walk_key(w, w->u);
  while (m < max) {
    size_t b = w->nb - w->j < max - m ? w->nb - w->j : max - m;
    if (w->fill) {
      w->fill(tw + 16 * m, &w->lo, &w->hi, b);
      m += b;
    } else {
      for (size_t i = 0; i < b; i++, m++) {
        gostx_store64_le(tw + 16 * m, w->lo);
        gostx_store64_le(tw + 16 * m + 8, w->hi);
        gostx__xts_mul_alpha(&w->lo, &w->hi);
      }
    }
    w->j += b;
    if (w->j < w->nb) break; /* the run is full */
    /* Unit done: its next tweak back to t, the next unit's T_0 in. */
    uint8_t *tu = w->t + 16 * w->u;
    gostx_store64_le(tu, w->lo);
    gostx_store64_le(tu + 8, w->hi);
    const size_t end = walk_pos(w, w->u) + 16 * w->nb;
    w->j = 0;
    if (++w->u == w->count) break;
    w->lo = gostx_load64_le(tu + 16);
    w->hi = gostx_load64_le(tu + 24);
    /* The run ends at a unit that is not adjacent or has another key. */
    if (walk_pos(w, w->u) != end || walk_key(w, w->u) != *key) break;
  }
  return m;
}
