/* The lanes of a batch group and the grouping of streams (lanes.h), shared
 * by the stream engine (streams.c) and the sector engine (sector.c). */
#include <stdlib.h>

#include "dispatch.h"
#include "kuznyechik/impl.h"
#include "lanes.h"
#include "magma/impl.h"

void gostx__lanes_setup(struct gostx__lanes *L) {
  if (L->c) return;
  if (L->magma) {
    gostx__magma_mk_init(L->mm, NULL, (const gostx_magma_key *const *)L->keys, L->g);
  } else {
    L->kg = L->g;
    gostx__kuz_mk_init(L->km, NULL, (const gostx_kuz_key *const *)L->keys, L->g, L->dirs);
  }
}

void gostx__lanes_clear(struct gostx__lanes *L) {
  if (L->c) return;
  if (L->magma) gostx__magma_mk_clear(L->mm);
  else gostx__kuz_mk_clear(L->km);
}

void gostx__lanes_crypt(struct gostx__lanes *L, int op, uint8_t *buf, size_t active) {
  if (active == 0) return;
  if (L->c) {
    if (op == GOSTX__MAGMA_DEC) gostx_cipher_decrypt_blocks(L->c, buf, active, buf);
    else gostx_cipher_encrypt_blocks(L->c, buf, active, buf);
    return;
  }
  if (L->magma) {
    gostx__magma_mk_crypt(L->mm, op, buf, buf, active);
    return;
  }
  if (active > L->kg || active <= L->kg / 2) { /* a schedule for these lanes */
    gostx__kuz_mk_clear(L->km);
    gostx__kuz_mk_init(L->km, NULL, (const gostx_kuz_key *const *)L->keys, active, L->dirs);
    L->kg = active;
  }
  if (op == GOSTX__MAGMA_DEC) gostx__kuz_mk_decrypt(L->km, buf, buf);
  else gostx__kuz_mk_encrypt(L->km, buf, buf);
}

/* ---- grouping ---- */

static int sortkey_cmp(const void *pa, const void *pb) {
  const struct gostx__sortkey *a = pa, *b = pb;
  if (a->cls != b->cls) return a->cls < b->cls ? -1 : 1;
  if (a->len != b->len) return a->len > b->len ? -1 : 1; /* longest first */
  return a->i < b->i ? -1 : a->i > b->i;
}

void gostx__lanes_sort(struct gostx__sortkey *kv, size_t n) {
  /* Small batches (a tunnel's burst) by insertion, in place: glibc's qsort
   * mallocs a merge buffer past 1 KiB (43 keys). The order is total (i is
   * unique), so both give the same result; the keys are public. */
  if (n <= 64) {
    for (size_t i = 1; i < n; i++) {
      const struct gostx__sortkey x = kv[i];
      size_t k = i;
      for (; k > 0 && sortkey_cmp(&kv[k - 1], &x) > 0; k--) kv[k] = kv[k - 1];
      kv[k] = x;
    }
    return;
  }
  /* Often in order already: one key repeated, or keys in stream order. */
  for (size_t i = 1; i < n; i++)
    if (sortkey_cmp(&kv[i - 1], &kv[i]) > 0) {
      qsort(kv, n, sizeof *kv, sortkey_cmp);
      return;
    }
}

size_t gostx__lanes_fit(size_t cnt, size_t full, unsigned nth) {
  size_t lanes = full;
  if ((cnt + lanes - 1) / lanes < nth) {
    lanes = (cnt + nth - 1) / nth;
    if (lanes < GOSTX__LANES_MIN) lanes = GOSTX__LANES_MIN;
    if (lanes > full) lanes = full;
  }
  return lanes;
}

size_t gostx__kuz_lanes(void) {
  const size_t b = gostx__dispatch()->kuz->batch;
  return b == 0 ? 64 : b > GOSTX__LANES_MAX ? GOSTX__LANES_MAX : b;
}

int gostx__lanes_native(void) { return gostx__dispatch()->kuz->mk_init != NULL; }

size_t gostx__groups_cut(struct gostx__group *gr, size_t ng, size_t start, size_t cnt,
                         size_t lanes, int mk) {
  for (size_t p = 0; p < cnt; p += lanes) {
    gr[ng].start = start + p;
    gr[ng].count = cnt - p < lanes ? cnt - p : lanes;
    gr[ng++].mk = mk;
  }
  return ng;
}
