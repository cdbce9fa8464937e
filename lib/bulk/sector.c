/* The sector engine behind gostx_batch_streams (lanes.h), and the disk
 * calls gostx_xts_*_disk (include/gostx/bulk.h).
 *
 * It runs a call whose streams all have one length ("sectors"), for
 * Kuznyechik CBC, CTR, OMAC and XTS. Sectors are grouped by key pointer (which sectors share
 * a key is public): runs of one key make one-key groups, where the cipher
 * gets one-key calls (the fastest form: no schedule per lane), and what is
 * left of the runs, when the implementation has multi-key kernels, makes
 * groups with a key per lane. The modes are the shared ones
 * (lane_modes.c); XTS takes the XTS cores of lib/modes/xts.c: one key,
 * gostx__xts_units; a key per sector, the tweaks in one multi-key call and
 * then the implementation's XTS kernel per sector where that runs at full
 * speed, otherwise the shared gathered XTS. */
#include <stdlib.h>

#include "cipher_ops.h"
#include "lanes.h"
#include "modes/modes_internal.h"

struct sector {
  const struct gostx__bjob *j;
  gostx_stream *s;      /* NULL: the disk calls (XTS, one key) */
  const void *key;      /* one key for every sector; NULL: the streams' keys */
  const uint64_t *nums; /* XTS one-key groups: tweak numbers; NULL: first + i */
  uint64_t first, step; /* ... tweak (nums[i] or first + i) * step */
  const uint8_t *in;    /* XTS: sector i at i * sl */
  uint8_t *out;
  size_t sl, ns;
  /* One key: group g is sectors [g * lanes, ...); otherwise groups[g]. */
  size_t lanes, ngroups;
  size_t *order;
  struct gostx__group *groups;
};

/* ---- XTS with a key per sector ---- */

/* Sectors of sl bytes take one kernel call each when their full blocks
 * reach the implementation's xts_unit. */
static int xts_per_unit(size_t sl) {
  const size_t unit = gostx__xts_unit(), nb = sl / 16 - (sl % 16 ? 1 : 0);
  return unit && nb >= unit;
}

static void steal_crypt(const void *ctx, int dec, uint8_t *buf, size_t n) {
  /* ctx: this task's own lanes (a call may rebuild their schedule) */
  struct gostx__lanes *L = (struct gostx__lanes *)(uintptr_t)ctx;
  gostx__lanes_crypt(L, dec ? GOSTX__MAGMA_DEC : GOSTX__MAGMA_ENC, buf, n);
}

/* The g tweaks through E_K2 in one multi-key call, then each sector through
 * the XTS kernel under its own data key; stealing in one multi-key call. */
static void xts_unit_group(const struct sector *b, struct gostx__lanes *L, const size_t *idx,
                           gostx_stream *const *S) {
  const size_t g = L->g, sl = b->sl, nb = sl / 16 - (sl % 16 ? 1 : 0);
  const int dec = b->j->op == GOSTX_BATCH_XTS_DECRYPT;
  const gostx_kuz_key *dk[GOSTX__LANES_MAX];
  uint8_t t[GOSTX__LANES_MAX * 16];
  for (size_t k = 0; k < g; k++) {
    memcpy(t + 16 * k, S[k]->iv, 16);
    dk[k] = &((const gostx_xts_key *)S[k]->key)->data;
  }
  gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, t, g);
  gostx__xts_full(dk, g, dec, t, idx, b->in, b->out, sl, nb, g);
  if (sl % 16) {
    for (size_t k = 0; k < g; k++) L->keys[k] = dk[k];
    gostx__lanes_clear(L);
    L->dirs = dec ? GOSTX__MK_DEC : GOSTX__MK_ENC;
    gostx__lanes_setup(L);
    gostx__xts_steal(steal_crypt, L, dec, t, idx, b->in, b->out, sl, g);
  }
  gostx_memzero(t, 16 * g);
}

/* ---- one group ---- */

static void sector_task(void *arg, size_t t) {
  const struct sector *b = arg;
  const gostx_batch_op op = b->j->op;
  size_t ident[GOSTX__LANES_MAX];
  const size_t *idx = ident;
  size_t g;
  int mk = 0;
  if (b->groups) {
    idx = b->order + b->groups[t].start;
    g = b->groups[t].count;
    mk = b->groups[t].mk;
  } else {
    const size_t s0 = t * b->lanes;
    g = b->ns - s0 < b->lanes ? b->ns - s0 : b->lanes;
    for (size_t k = 0; k < g; k++) ident[k] = s0 + k;
  }
  const void *key = b->key ? b->key : b->s[idx[0]].key; /* one-key groups */
  if (gostx__op_xts(op) && !mk) {
    gostx__xts_units(key, op == GOSTX_BATCH_XTS_DECRYPT, b->nums, b->first, b->step, idx, b->in,
                     b->out, b->sl, g);
    return;
  }
  gostx_stream *S[GOSTX__LANES_MAX];
  const void *keys[GOSTX__LANES_MAX];
  gostx_kuz_mk km;
  struct gostx__lanes L = {0};
  L.g = g;
  L.keys = keys;
  L.km = &km;
  L.dirs = op == GOSTX_BATCH_CBC_DECRYPT ? GOSTX__MK_DEC : GOSTX__MK_ENC;
  for (size_t k = 0; k < g; k++) S[k] = &b->s[idx[k]];
  if (gostx__op_xts(op)) { /* the tweak keys first */
    L.n = 16;
    for (size_t k = 0; k < g; k++) keys[k] = &((const gostx_xts_key *)S[k]->key)->tweak;
    gostx__lanes_setup(&L);
    if (xts_per_unit(b->sl)) xts_unit_group(b, &L, idx, S);
    else gostx__lanes_run(b->j, &L, NULL, S);
    gostx__lanes_clear(&L);
    return;
  }
  const gostx_cipher *c = key;
  L.n = c->block_len;
  /* One Kuznyechik key in the chain modes (calls of exactly g blocks, 32
   * per 512-byte sector): the multi-key schedule with the key repeated,
   * built once per group, beats the one-key call's key set-up on every
   * call. The same bytes. */
  if (mk || (c->id == GOSTX_ALG_KUZNYECHIK &&
             (op == GOSTX_BATCH_CBC_ENCRYPT || op == GOSTX_BATCH_OMAC))) {
    for (size_t k = 0; k < g; k++) keys[k] = &((const gostx_cipher *)S[k]->key)->u.kuz;
  } else {
    L.c = c;
  }
  gostx__lanes_setup(&L);
  gostx__lanes_run(b->j, &L, NULL, S);
  gostx__lanes_clear(&L);
}

/* ---- grouping ---- */

/* A key per sector: sorted by key pointer, runs of one key make one-key
 * groups of up to `lanes` sectors; what is left of a run below lanes / 2,
 * when the implementation has a multi-key path, joins the multi-key groups (cut
 * from the left-overs in key order, so repeated keys stay adjacent). */
static int make_groups(struct sector *b) {
  const size_t ns = b->ns, lanes = b->lanes;
  struct gostx__sortkey *kv = malloc(ns * sizeof *kv);
  size_t *mixed = malloc(ns * sizeof *mixed);
  b->order = malloc(ns * sizeof *b->order);
  b->groups = malloc((ns + 1) * sizeof *b->groups);
  if (!kv || !mixed || !b->order || !b->groups) {
    free(kv);
    free(mixed);
    return GOSTX_ENOMEM;
  }
  for (size_t i = 0; i < ns; i++) {
    kv[i].cls = (uintptr_t)b->s[i].key;
    kv[i].len = b->sl;
    kv[i].i = i;
  }
  gostx__lanes_sort(kv, ns);
  /* Without a native mk path the fallback would make one block call per
   * key and block index: slower than a one-key group's call per sector. */
  const int mk_ok = gostx__lanes_native();
  size_t ng = 0, no = 0, nm = 0;
  for (size_t i = 0, e; i < ns; i = e) {
    for (e = i + 1; e < ns && kv[e].cls == kv[i].cls;) e++;
    for (size_t p = i; p < e; p += lanes) {
      const size_t q = e - p < lanes ? e - p : lanes;
      if (mk_ok && q < lanes / 2) {
        for (size_t r = 0; r < q; r++) mixed[nm++] = kv[p + r].i;
        continue;
      }
      ng = gostx__groups_cut(b->groups, ng, no, q, q, 0);
      for (size_t r = 0; r < q; r++) b->order[no++] = kv[p + r].i;
    }
  }
  ng = gostx__groups_cut(b->groups, ng, no, nm, lanes, 1);
  memcpy(b->order + no, mixed, nm * sizeof *mixed);
  b->ngroups = ng;
  free(kv);
  free(mixed);
  return GOSTX_OK;
}

static int sector_run(gostx_pool *pool, struct sector *b) {
  int rc = GOSTX_OK;
  if (b->ns == 0) return GOSTX_OK;
  b->lanes = gostx__lanes_fit(b->ns, gostx__kuz_lanes(), gostx_pool_size(pool));
  if (b->key) {
    b->ngroups = (b->ns + b->lanes - 1) / b->lanes;
  } else {
    rc = make_groups(b);
    if (rc) goto out;
  }
  rc = gostx_pool_run(b->sl * b->ns >= GOSTX_BULK_MIN / 4 ? pool : NULL, b->ngroups, sector_task,
                      b);
out:
  free(b->order);
  free(b->groups);
  b->order = NULL;
  b->groups = NULL;
  return rc;
}

/* ---- from gostx_batch_streams ---- */

/* XTS: sector i's in and out at i * sl, and tweaks under 2^64 (the XTS
 * cores take tweak numbers). Tweak values are public. */
static int xts_layout(const gostx_stream *s, size_t ns, size_t sl) {
  for (size_t i = 0; i < ns; i++)
    if (s[i].in != s[0].in + i * sl || s[i].out != s[0].out + i * sl ||
        gostx_load64_le(s[i].iv + 8) != 0)
      return 0;
  return 1;
}

int gostx__sector_try(gostx_pool *pool, const struct gostx__bjob *j, gostx_stream *s, size_t ns,
                      int *rc) {
  const gostx_batch_op op = j->op;
  const int xts = gostx__op_xts(op);
  if (!xts && op != GOSTX_BATCH_CBC_ENCRYPT && op != GOSTX_BATCH_CBC_DECRYPT &&
      op != GOSTX_BATCH_CTR && op != GOSTX_BATCH_OMAC)
    return 0;
  const size_t sl = s[0].len;
  int onekey = 1;
  for (size_t i = 0; i < ns; i++) {
    if (s[i].len != sl) return 0;
    onekey &= s[i].key == s[0].key;
    /* Magma: the stream engine's multi-key Magma core beats one-key calls
     * of 64 blocks (~5 %, one key or many: docs/BULK.md 3.1). */
    if (!xts && ((const gostx_cipher *)s[i].key)->id != GOSTX_ALG_KUZNYECHIK) return 0;
  }
  if (xts && !xts_layout(s, ns, sl)) return 0;
  struct sector b = {j, s, onekey ? s[0].key : NULL, NULL, 0, 1, s[0].in, s[0].out, sl, ns,
                     0, 0, NULL, NULL};
  uint64_t *nums = NULL;
  if (xts) { /* the one-key groups' tweak numbers */
    b.first = gostx_load64_le(s[0].iv);
    for (size_t i = 0; i < ns && !nums; i++)
      if (gostx_load64_le(s[i].iv) != b.first + i) { /* not consecutive: a list */
        nums = malloc(ns * sizeof *nums);
        if (!nums) return 0;
        for (size_t k = 0; k < ns; k++) nums[k] = gostx_load64_le(s[k].iv);
      }
    b.nums = nums;
  }
  *rc = op == GOSTX_BATCH_OMAC || sl ? sector_run(pool, &b) : GOSTX_OK;
  free(nums);
  return 1;
}

/* ---- disks: one key, tweak (first_sector + i) * (sector_size / tweak_unit) ---- */

static int xts_disk(gostx_pool *pool, gostx_batch_op op, const gostx_xts_key *key,
                    size_t sector_size, size_t tweak_unit, uint64_t first_sector,
                    const uint8_t *in, uint8_t *out, size_t nsectors) {
  static const gostx_batch_params none;
  const struct gostx__bjob j = {op, &none};
  if (!key || tweak_unit == 0 || sector_size % tweak_unit) return GOSTX_EINVAL;
  if (nsectors && sector_size > SIZE_MAX / nsectors) return GOSTX_ELEN;
  if (nsectors && sector_size && (!in || !out)) return GOSTX_EINVAL;
  if (sector_size < 16) return GOSTX_ELEN;
  struct sector b = {&j, NULL, key, NULL, first_sector, sector_size / tweak_unit, in, out,
                     sector_size, nsectors, 0, 0, NULL, NULL};
  return sector_run(pool, &b);
}

int gostx_xts_encrypt_disk(gostx_pool *pool, const gostx_xts_key *key, uint64_t first_sector,
                           size_t sector_size, size_t tweak_unit, const uint8_t *in,
                           size_t nsectors, uint8_t *out) {
  return xts_disk(pool, GOSTX_BATCH_XTS_ENCRYPT, key, sector_size, tweak_unit, first_sector, in,
                  out, nsectors);
}

int gostx_xts_decrypt_disk(gostx_pool *pool, const gostx_xts_key *key, uint64_t first_sector,
                           size_t sector_size, size_t tweak_unit, const uint8_t *in,
                           size_t nsectors, uint8_t *out) {
  return xts_disk(pool, GOSTX_BATCH_XTS_DECRYPT, key, sector_size, tweak_unit, first_sector, in,
                  out, nsectors);
}
