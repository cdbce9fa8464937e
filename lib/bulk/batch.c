/* Sector batches: many independent messages of one size at once
 * (include/gostx/bulk.h).
 *
 * The sectors are split into groups of up to `lanes` sectors (one pool task
 * each), and inside a group they are interleaved: block i of every sector of
 * the group is gathered into one buffer and goes through the block cipher in
 * one call, so that a chain (CBC encryption, OMAC) that allows one block per
 * call on its own gets as many blocks per call as there are sectors, and the
 * parallel modes get calls that span sectors.
 *
 * A group is either one-key (sectors that share a key pointer; with one key,
 * all of them) or multi-key (Kuznyechik sectors with different keys): then
 * the call is a multi-key call (gostx__kuz_mk_*, block k under lane k's
 * key) whose schedule is prepared once per group. The group functions see
 * both through struct lanes, so each mode is written once. Each task's
 * buffers are on its own stack and wiped before it returns. */
#include <stdint.h>
#include <stdlib.h>

#include "bulk_internal.h"
#include "gostx/batch.h"
#include "kuznyechik/impl.h"
#include "modes/modes_internal.h"

#define BATCH_LANES_MAX 256 /* sectors interleaved per group, at most */
#define BATCH_LANES_DEF 64  /* ... for ciphers whose impl names no batch */
#define BATCH_BLOCKS 512    /* blocks per gathered call (8 KiB of Kuznyechik) */
#define BATCH_MIN_LANES 16  /* smallest group made only to feed more threads */

enum { OP_CBC_ENC, OP_CBC_DEC, OP_CTR, OP_OMAC, OP_XTS_ENC, OP_XTS_DEC };

struct group {
  size_t start, count; /* sectors order[start .. start + count) */
  int mk;              /* 1: a key per sector (multi-key calls) */
};

struct batch {
  int op;
  const void *const *keys; /* gostx_cipher or gostx_xts_key pointers */
  size_t nkeys;
  const uint8_t *ivs;
  size_t iv_len;
  const uint64_t *nums;
  uint64_t first, step; /* XTS: tweak number (nums[i] or first + i) * step */
  const uint8_t *in;
  uint8_t *out;
  size_t sl, ns; /* sector length, sector count */
  uint8_t *tags;
  size_t tag_len;
  /* With one key, group g is sectors [g * lanes, ...); otherwise groups[g]. */
  size_t lanes, ngroups;
  size_t *order;
  struct group *groups;
};

/* How the g lanes of a group are encrypted: one key (c, or the Kuznyechik
 * key k) for every block of a call of any length, or a key per lane (mk):
 * calls of a multiple of g blocks, block j under lane j % g's key. */
struct lanes {
  const gostx_cipher *c;
  const gostx_kuz_key *k;
  const gostx_kuz_mk *mk;
  size_t g, n; /* lanes, block length */
};

static void lanes_crypt(const struct lanes *L, int dec, const uint8_t *in, uint8_t *out,
                        size_t m) {
  if (L->mk) {
    for (size_t o = 0; o < m; o += L->g) {
      if (dec) gostx__kuz_mk_decrypt(L->mk, in + 16 * o, out + 16 * o);
      else gostx__kuz_mk_encrypt(L->mk, in + 16 * o, out + 16 * o);
    }
  } else if (L->c) {
    if (dec) gostx_cipher_decrypt_blocks(L->c, in, m, out);
    else gostx_cipher_encrypt_blocks(L->c, in, m, out);
  } else {
    if (dec) gostx_kuz_decrypt_blocks(L->k, in, m, out);
    else gostx_kuz_encrypt_blocks(L->k, in, m, out);
  }
}

/* ---- one group; idx: the group's sector numbers ---- */

static void cbc_enc_group(const struct batch *b, const struct lanes *L, const size_t *idx) {
  const size_t n = L->n, g = L->g, z = b->iv_len / n, nb = b->sl / n;
  uint8_t x[BATCH_LANES_MAX * GOSTX_MAX_BLOCK_LEN];
  for (size_t i = 0; i < nb; i++) {
    for (size_t k = 0; k < g; k++) {
      const size_t s = idx[k];
      const uint8_t *prev =
          i < z ? b->ivs + s * b->iv_len + i * n : b->out + s * b->sl + (i - z) * n;
      gostx_xor(x + k * n, b->in + s * b->sl + i * n, prev, n);
    }
    lanes_crypt(L, 0, x, x, g);
    for (size_t k = 0; k < g; k++) memcpy(b->out + idx[k] * b->sl + i * n, x + k * n, n);
  }
  gostx_memzero(x, g * n);
}

static void cbc_dec_group(const struct batch *b, const struct lanes *L, const size_t *idx) {
  const size_t n = L->n, g = L->g, z = b->iv_len / n, nb = b->sl / n;
  if (L->mk) {
    /* Block i of every lane in one call, last block first: in place, block
     * i's chain value C_{i-z} is still unwritten when block i is done. */
    uint8_t x[BATCH_LANES_MAX * GOSTX_MAX_BLOCK_LEN];
    for (size_t i = nb; i-- > 0;) {
      for (size_t k = 0; k < g; k++) memcpy(x + k * n, b->in + idx[k] * b->sl + i * n, n);
      lanes_crypt(L, 1, x, x, g);
      for (size_t k = 0; k < g; k++) {
        const size_t s = idx[k];
        const uint8_t *prev =
            i < z ? b->ivs + s * b->iv_len + i * n : b->in + s * b->sl + (i - z) * n;
        gostx_xor(b->out + s * b->sl + i * n, x + k * n, prev, n);
      }
    }
    gostx_memzero(x, g * n);
    return;
  }
  uint8_t ct[BATCH_BLOCKS * GOSTX_MAX_BLOCK_LEN], pt[BATCH_BLOCKS * GOSTX_MAX_BLOCK_LEN];
  const size_t per = sizeof ct / b->sl; /* whole sectors per call */
  if (per == 0) {
    for (size_t k = 0; k < g; k++) {
      const size_t s = idx[k];
      gostx_cbc_decrypt(L->c, b->ivs + s * b->iv_len, b->iv_len, b->in + s * b->sl, b->sl,
                        b->out + s * b->sl);
    }
    return;
  }
  size_t used = 0;
  for (size_t k0 = 0; k0 < g; k0 += per) {
    const size_t q = g - k0 < per ? g - k0 : per;
    for (size_t k = 0; k < q; k++) memcpy(ct + k * b->sl, b->in + idx[k0 + k] * b->sl, b->sl);
    lanes_crypt(L, 1, ct, pt, q * nb);
    if (used < q * b->sl) used = q * b->sl;
    for (size_t k = 0; k < q; k++) {
      const size_t s = idx[k0 + k];
      const uint8_t *sct = ct + k * b->sl, *spt = pt + k * b->sl;
      uint8_t *o = b->out + s * b->sl;
      for (size_t i = 0; i < nb; i++) {
        const uint8_t *prev = i < z ? b->ivs + s * b->iv_len + i * n : sct + (i - z) * n;
        gostx_xor(o + i * n, spt + i * n, prev, n);
      }
    }
  }
  gostx_memzero(ct, used);
  gostx_memzero(pt, used);
}

/* CTR: the counters of block i of every lane (one key: of as many whole
 * rows as fit in BATCH_BLOCKS) in one call. */
static void ctr_group(const struct batch *b, const struct lanes *L, const size_t *idx) {
  const size_t n = L->n, g = L->g, nb = (b->sl + n - 1) / n;
  const size_t rows = L->mk || g > BATCH_BLOCKS / 2 ? 1 : BATCH_BLOCKS / g;
  uint8_t ks[BATCH_BLOCKS * GOSTX_MAX_BLOCK_LEN], ctr[BATCH_LANES_MAX * GOSTX_MAX_BLOCK_LEN];
  for (size_t k = 0; k < g; k++) { /* CTR_1 = IV || 0^{n/2} */
    memcpy(ctr + k * n, b->ivs + idx[k] * b->iv_len, n / 2);
    memset(ctr + k * n + n / 2, 0, n / 2);
  }
  size_t m = 0, used = 0;
  for (size_t i0 = 0; i0 < nb; i0 += rows) {
    const size_t r = nb - i0 < rows ? nb - i0 : rows;
    m = 0;
    for (size_t i = 0; i < r; i++)
      for (size_t k = 0; k < g; k++, m++) {
        memcpy(ks + m * n, ctr + k * n, n);
        gostx__ctr_add(ctr + k * n, n, GOSTX__CTR_FULL, 1);
      }
    lanes_crypt(L, 0, ks, ks, m);
    if (used < m) used = m;
    for (size_t i = 0, j = 0; i < r; i++) {
      const size_t pos = (i0 + i) * n, l = b->sl - pos < n ? b->sl - pos : n;
      for (size_t k = 0; k < g; k++, j++)
        gostx_xor(b->out + idx[k] * b->sl + pos, b->in + idx[k] * b->sl + pos, ks + j * n, l);
    }
  }
  gostx_memzero(ks, used * n);
  gostx_memzero(ctr, g * n);
}

static void omac_group(const struct batch *b, const struct lanes *L, const size_t *idx) {
  const size_t n = L->n, g = L->g;
  /* Every block but the last one; the last (1..n bytes, or none for an empty
   * message) is padded and takes K1 when full, K2 otherwise. */
  const size_t before = b->sl ? (b->sl - 1) / n : 0, last = b->sl - before * n;
  uint8_t st[BATCH_LANES_MAX * GOSTX_MAX_BLOCK_LEN], sub[BATCH_LANES_MAX * GOSTX_MAX_BLOCK_LEN];
  uint8_t pad[GOSTX_MAX_BLOCK_LEN];
  /* Subkeys: K1 = dbl(E(0)), K2 = dbl(K1) per lane (one key: lane 0 only). */
  const size_t nsub = L->mk ? g : 1;
  memset(sub, 0, nsub * n);
  lanes_crypt(L, 0, sub, sub, L->mk ? g : 1);
  for (size_t k = 0; k < nsub; k++) {
    gostx__omac_dbl(pad, sub + k * n, n);
    if (last == n) memcpy(sub + k * n, pad, n);
    else gostx__omac_dbl(sub + k * n, pad, n);
  }
  memset(st, 0, g * n);
  for (size_t i = 0; i < before; i++) {
    for (size_t k = 0; k < g; k++)
      gostx_xor(st + k * n, st + k * n, b->in + idx[k] * b->sl + i * n, n);
    lanes_crypt(L, 0, st, st, g);
  }
  for (size_t k = 0; k < g; k++) {
    memset(pad, 0, n);
    if (last) memcpy(pad, b->in + idx[k] * b->sl + before * n, last);
    if (last < n) pad[last] = 0x80;
    gostx_xor(st + k * n, st + k * n, pad, n);
    gostx_xor(st + k * n, st + k * n, sub + (L->mk ? k : 0) * n, n);
  }
  lanes_crypt(L, 0, st, st, g);
  for (size_t k = 0; k < g; k++) memcpy(b->tags + idx[k] * b->tag_len, st + k * n, b->tag_len);
  gostx_memzero(st, g * n);
  gostx_memzero(sub, nsub * n);
  gostx_memzero(pad, sizeof pad);
}

/* ---- XTS ----
 * One-key groups: gostx__xts_units (lib/modes/xts.c), the same core as the
 * one-unit and parallel calls. Groups with a key per sector: the g tweaks
 * through E_K2 in one multi-key call, then either a call of the
 * implementation's XTS kernel per sector (when a sector's blocks alone keep
 * it at full speed: its xts_unit) or, for kernels that need many blocks per
 * key, block i of every sector gathered into one multi-key call. */

static void lanes_steal_crypt(const void *ctx, int dec, uint8_t *buf, size_t n) {
  lanes_crypt(ctx, dec, buf, buf, n);
}

/* The g sectors' tweak inputs (plain64 numbers) into t, then E_K2 (T). */
static void xts_tweaks(const struct batch *b, const struct lanes *T, const size_t *idx,
                       uint8_t *t) {
  for (size_t k = 0; k < T->g; k++) {
    gostx_store64_le(t + 16 * k, (b->nums ? b->nums[idx[k]] : b->first + idx[k]) * b->step);
    memset(t + 16 * k + 8, 0, 8);
  }
  lanes_crypt(T, 0, t, t, T->g);
}

/* Gathered: block i of the g sectors in one multi-key call (D: the data
 * keys' schedule), tweaks stepped per lane; stealing batched as well. The
 * per-block work is on 64-bit words (16-byte gostx_xor calls made ~130
 * instructions a block, half the cipher's). */
static void xts_gather_group(const struct batch *b, const struct lanes *D, const struct lanes *T,
                             const size_t *idx) {
  enum { L = BATCH_LANES_MAX };
  const size_t g = D->g, sl = b->sl, nb = sl / 16, bulk = sl % 16 ? nb - 1 : nb;
  const int decrypt = b->op == OP_XTS_DEC;
  uint8_t t[L * 16], buf[L * 16];
  uint64_t lo[L], hi[L], tl[L], th[L]; /* lo/hi: the next tweak; tl/th: this row's */
  xts_tweaks(b, T, idx, t);
  for (size_t k = 0; k < g; k++) {
    lo[k] = gostx_load64_le(t + 16 * k);
    hi[k] = gostx_load64_le(t + 16 * k + 8);
  }
  for (size_t i = 0; i < bulk; i++) {
    for (size_t k = 0; k < g; k++) {
      const uint8_t *p = b->in + idx[k] * sl + 16 * i;
      tl[k] = lo[k];
      th[k] = hi[k];
      gostx__xts_mul_alpha(&lo[k], &hi[k]);
      gostx_store64_le(buf + 16 * k, gostx_load64_le(p) ^ tl[k]);
      gostx_store64_le(buf + 16 * k + 8, gostx_load64_le(p + 8) ^ th[k]);
    }
    lanes_crypt(D, decrypt, buf, buf, g);
    for (size_t k = 0; k < g; k++) {
      uint8_t *p = b->out + idx[k] * sl + 16 * i;
      gostx_store64_le(p, gostx_load64_le(buf + 16 * k) ^ tl[k]);
      gostx_store64_le(p + 8, gostx_load64_le(buf + 16 * k + 8) ^ th[k]);
    }
  }
  if (sl % 16) {
    for (size_t k = 0; k < g; k++) { /* T_m of every lane */
      gostx_store64_le(t + 16 * k, lo[k]);
      gostx_store64_le(t + 16 * k + 8, hi[k]);
    }
    gostx__xts_steal(lanes_steal_crypt, D, decrypt, t, idx, b->in, b->out, sl, g);
  }
  gostx_memzero(t, 16 * g);
  gostx_memzero(buf, 16 * g);
  gostx_memzero(lo, sizeof lo[0] * g);
  gostx_memzero(hi, sizeof hi[0] * g);
  gostx_memzero(tl, sizeof tl[0] * g);
  gostx_memzero(th, sizeof th[0] * g);
}

/* A key per sector, the g sectors' tweaks in one multi-key call, then the
 * sectors through the XTS kernel, each under its own data key (dk[k]), in
 * one call; the data keys' schedule is built only for stealing. */
static void xts_unit_group(const struct batch *b, const struct lanes *T, const size_t *idx,
                           const gostx_kuz_key *const *dk) {
  enum { L = BATCH_LANES_MAX };
  const size_t g = T->g, sl = b->sl, nb = sl / 16 - (sl % 16 ? 1 : 0);
  const int decrypt = b->op == OP_XTS_DEC;
  uint8_t t[L * 16];
  xts_tweaks(b, T, idx, t);
  gostx__xts_full(dk, g, decrypt, t, idx, b->in, b->out, sl, nb, g);
  if (sl % 16) {
    gostx_kuz_mk m;
    gostx__kuz_mk_init(&m, NULL, dk, g, decrypt ? GOSTX__MK_DEC : GOSTX__MK_ENC);
    const struct lanes D = {NULL, NULL, &m, g, 16};
    gostx__xts_steal(lanes_steal_crypt, &D, decrypt, t, idx, b->in, b->out, sl, g);
    gostx__kuz_mk_clear(&m);
  }
  gostx_memzero(t, 16 * g);
}

/* Sectors of sl bytes take one kernel call each when their full blocks
 * reach the implementation's xts_unit. */
static int xts_per_unit(size_t sl) {
  const struct gostx_kuz_impl *im = gostx__dispatch()->kuz;
  const size_t nb = sl / 16 - (sl % 16 ? 1 : 0);
  return im->xts && im->xts_unit && nb >= im->xts_unit;
}

/* ---- groups and tasks ---- */

/* Multi-key groups: the lanes' Kuznyechik keys into one schedule (two for
 * XTS), then the mode's group function. */
static void mk_task(const struct batch *b, const size_t *idx, size_t g) {
  const gostx_kuz_key *kp[BATCH_LANES_MAX] = {NULL};
  const int xts = b->op == OP_XTS_ENC || b->op == OP_XTS_DEC;
  const void *const *keys = b->keys;
  const size_t kstep = b->nkeys > 1; /* one key: lane k's key is keys[0] */
  gostx_kuz_mk m;
  if (xts) {
    const gostx_kuz_key *dk[BATCH_LANES_MAX];
    for (size_t k = 0; k < g; k++) {
      const gostx_xts_key *x = keys[idx[k] * kstep];
      kp[k] = &x->tweak;
      dk[k] = &x->data;
    }
    gostx__kuz_mk_init(&m, NULL, kp, g, GOSTX__MK_ENC); /* tweaks: E_K2 only */
    const struct lanes T = {NULL, NULL, &m, g, 16};
    if (xts_per_unit(b->sl)) {
      xts_unit_group(b, &T, idx, dk);
    } else {
      gostx_kuz_mk md;
      gostx__kuz_mk_init(&md, NULL, dk, g, b->op == OP_XTS_DEC ? GOSTX__MK_DEC : GOSTX__MK_ENC);
      const struct lanes D = {NULL, NULL, &md, g, 16};
      xts_gather_group(b, &D, &T, idx);
      gostx__kuz_mk_clear(&md);
    }
    gostx__kuz_mk_clear(&m);
    return;
  }
  for (size_t k = 0; k < g; k++) kp[k] = &((const gostx_cipher *)keys[idx[k] * kstep])->u.kuz;
  gostx__kuz_mk_init(&m, NULL, kp, g, b->op == OP_CBC_DEC ? GOSTX__MK_DEC : GOSTX__MK_ENC);
  const struct lanes L = {NULL, NULL, &m, g, 16};
  switch (b->op) {
    case OP_CBC_ENC: cbc_enc_group(b, &L, idx); break;
    case OP_CBC_DEC: cbc_dec_group(b, &L, idx); break;
    case OP_CTR: ctr_group(b, &L, idx); break;
    default: omac_group(b, &L, idx); break;
  }
  gostx__kuz_mk_clear(&m);
}

static void batch_task(void *arg, size_t t) {
  const struct batch *b = arg;
  size_t ident[BATCH_LANES_MAX];
  const size_t *idx;
  size_t g;
  const void *key;
  if (b->groups) {
    idx = b->order + b->groups[t].start;
    g = b->groups[t].count;
    if (b->groups[t].mk) {
      mk_task(b, idx, g);
      return;
    }
    key = b->keys[idx[0]];
  } else {
    const size_t s0 = t * b->lanes;
    g = b->ns - s0 < b->lanes ? b->ns - s0 : b->lanes;
    for (size_t k = 0; k < g; k++) ident[k] = s0 + k;
    idx = ident;
    key = b->keys[0];
  }
  if (b->op == OP_XTS_ENC || b->op == OP_XTS_DEC) { /* one key: the XTS core */
    gostx__xts_units(key, b->op == OP_XTS_DEC, b->nums, b->first, b->step, idx, b->in, b->out,
                     b->sl, g);
    return;
  }
  /* One Kuznyechik key in the chain modes (calls of exactly g blocks, 32
   * per 512-byte sector): the multi-key schedule with the key repeated,
   * built once per group, rather than the one-key call's key set-up on
   * every call. The same bytes; for implementations without an mk path,
   * the same calls. */
  if ((b->op == OP_CBC_ENC || b->op == OP_OMAC) &&
      ((const gostx_cipher *)key)->id == GOSTX_ALG_KUZNYECHIK) {
    mk_task(b, idx, g);
    return;
  }
  const gostx_cipher *c = key;
  const struct lanes L = {c, NULL, NULL, g, c->block_len};
  switch (b->op) {
    case OP_CBC_ENC: cbc_enc_group(b, &L, idx); break;
    case OP_CBC_DEC: cbc_dec_group(b, &L, idx); break;
    case OP_CTR: ctr_group(b, &L, idx); break;
    default: omac_group(b, &L, idx); break;
  }
}

struct keyed {
  uintptr_t key;
  size_t i;
};

static int keyed_cmp(const void *pa, const void *pb) {
  const struct keyed *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* Sectors per group for this batch's cipher: the implementation's batch
 * (the blocks per call at which it reaches full speed; 256 for AVX2
 * Kuznyechik), BATCH_LANES_DEF for the others. */
static size_t batch_lanes(const struct batch *b) {
  const int xts = b->op == OP_XTS_ENC || b->op == OP_XTS_DEC;
  if (xts || ((const gostx_cipher *)b->keys[0])->id == GOSTX_ALG_KUZNYECHIK) {
    size_t l = gostx__dispatch()->kuz->batch;
    if (l == 0) l = BATCH_LANES_DEF;
    return l > BATCH_LANES_MAX ? BATCH_LANES_MAX : l;
  }
  return BATCH_LANES_DEF;
}

/* Per-sector keys: sort the sectors by key pointer (which sectors share a
 * key is public). Runs of one key make one-key groups of up to `lanes`
 * sectors; what is left of a run below lanes / 2 sectors, when it is
 * Kuznyechik and the implementation has a multi-key path, joins the
 * multi-key groups (cut from the left-overs in key order, so repeated keys
 * stay adjacent); the others keep their one-key groups. */
static int make_groups(struct batch *b) {
  const int xts = b->op == OP_XTS_ENC || b->op == OP_XTS_DEC;
  const size_t ns = b->ns, lanes = b->lanes;
  struct keyed *kv = malloc(ns * sizeof *kv);
  size_t *mixed = malloc(ns * sizeof *mixed);
  b->order = malloc(ns * sizeof *b->order);
  b->groups = malloc((ns + 1) * sizeof *b->groups);
  if (!kv || !mixed || !b->order || !b->groups) {
    free(kv);
    free(mixed);
    return GOSTX_ENOMEM;
  }
  for (size_t i = 0; i < ns; i++) {
    kv[i].key = (uintptr_t)b->keys[i];
    kv[i].i = i;
  }
  /* Key pointers that already ascend (an array of keys in sector order,
   * or one key repeated) are already in (key, index) order. */
  int sorted = 1;
  for (size_t i = 1; i < ns && sorted; i++) sorted = kv[i - 1].key <= kv[i].key;
  if (!sorted) qsort(kv, ns, sizeof *kv, keyed_cmp);
  size_t ng = 0, no = 0, nm = 0;
  /* Without a native mk path the fallback would make one block call per
   * key and block index: slower than a one-key group's call per sector. */
  const int mk_ok = gostx__dispatch()->kuz->mk_init != NULL;
  for (size_t i = 0, j; i < ns; i = j) {
    for (j = i + 1; j < ns && kv[j].key == kv[i].key;) j++;
    const int kuz = mk_ok && (xts || ((const gostx_cipher *)b->keys[kv[i].i])->id ==
                                         GOSTX_ALG_KUZNYECHIK);
    for (size_t p = i; p < j; p += lanes) {
      const size_t q = j - p < lanes ? j - p : lanes;
      if (kuz && q < lanes / 2) {
        for (size_t r = 0; r < q; r++) mixed[nm++] = kv[p + r].i;
        continue;
      }
      b->groups[ng].start = no;
      b->groups[ng].count = q;
      b->groups[ng++].mk = 0;
      for (size_t r = 0; r < q; r++) b->order[no++] = kv[p + r].i;
    }
  }
  for (size_t p = 0; p < nm; p += lanes) {
    const size_t q = nm - p < lanes ? nm - p : lanes;
    b->groups[ng].start = no;
    b->groups[ng].count = q;
    b->groups[ng++].mk = 1;
    for (size_t r = 0; r < q; r++) b->order[no++] = mixed[p + r];
  }
  b->ngroups = ng;
  free(kv);
  free(mixed);
  return GOSTX_OK;
}

static int batch_run(gostx_pool *pool, struct batch *b) {
  const unsigned nth = gostx_pool_size(pool);
  int rc = GOSTX_OK;
  if (b->ns == 0) return GOSTX_OK;
  /* Lanes per group: the cipher's, fewer when that leaves threads idle. */
  const size_t full = batch_lanes(b);
  size_t lanes = full;
  if ((b->ns + lanes - 1) / lanes < nth) {
    lanes = (b->ns + nth - 1) / nth;
    if (lanes < BATCH_MIN_LANES) lanes = BATCH_MIN_LANES;
    if (lanes > full) lanes = full;
  }
  b->lanes = lanes;
  if (b->nkeys == 1) {
    b->ngroups = (b->ns + lanes - 1) / lanes;
  } else {
    rc = make_groups(b);
    if (rc) goto out;
  }
  rc = gostx_pool_run(b->sl * b->ns >= GOSTX_BULK_MIN / 4 ? pool : NULL, b->ngroups, batch_task,
                      b);
out:
  free(b->order);
  free(b->groups);
  b->order = NULL;
  b->groups = NULL;
  return rc;
}

/* ---- argument checks and entry points ---- */

static int check_common(const void *const *keys, size_t nkeys, const uint8_t *in,
                        const uint8_t *out, size_t sl, size_t ns, int need_out) {
  if (!keys || (nkeys != 1 && nkeys != ns)) return GOSTX_EINVAL;
  for (size_t i = 0; i < nkeys; i++)
    if (!keys[i]) return GOSTX_EINVAL;
  if (ns && sl > SIZE_MAX / ns) return GOSTX_ELEN;
  if (ns && sl && (!in || (need_out && !out))) return GOSTX_EINVAL;
  return GOSTX_OK;
}

/* A key per sector, every key Magma: the stream batches' multi-key Magma
 * core (lib/bulk/streams.c) instead of a one-key group per sector. The
 * arguments are checked already; the bytes are the same. */
static int all_magma(const gostx_cipher *const *keys, size_t nkeys) {
  for (size_t i = 0; i < nkeys; i++)
    if (keys[i]->id != GOSTX_ALG_MAGMA) return 0;
  return nkeys > 1;
}

static int via_streams(gostx_pool *pool, gostx_batch_op op, const gostx_cipher *const *keys,
                       const uint8_t *ivs, size_t iv_len, const uint8_t *in, uint8_t *out,
                       size_t sl, size_t ns, uint8_t *tags, size_t tag_len) {
  gostx_stream *st = calloc(ns, sizeof *st);
  if (!st) return GOSTX_ENOMEM;
  for (size_t i = 0; i < ns; i++) {
    st[i].key = keys[i];
    st[i].iv = ivs ? ivs + i * iv_len : NULL;
    st[i].in = in ? in + i * sl : NULL;
    st[i].len = sl;
    st[i].out = out ? out + i * sl : NULL;
    st[i].tag = tags ? tags + i * tag_len : NULL;
  }
  const gostx_batch_params p = {op == GOSTX_BATCH_CTR ? 0 : iv_len, tag_len, 0, 0, 0};
  int rc = gostx_batch_streams(pool, op, &p, st, ns);
  free(st);
  return rc;
}

static int cbc_batch(gostx_pool *pool, int op, const gostx_cipher *const *keys, size_t nkeys,
                     const uint8_t *ivs, size_t iv_len, const uint8_t *in, uint8_t *out,
                     size_t sl, size_t ns) {
  int rc = check_common((const void *const *)keys, nkeys, in, out, sl, ns, 1);
  if (rc) return rc;
  for (size_t i = 0; i < nkeys; i++) {
    if (!gostx__modes_cipher_ok(keys[i])) return GOSTX_EINVAL;
    const size_t n = keys[i]->block_len;
    if (iv_len == 0 || iv_len % n || iv_len > GOSTX_MAX_IV_LEN) return GOSTX_EINVAL;
    if (sl % n) return GOSTX_ELEN;
  }
  if (ns && !ivs) return GOSTX_EINVAL;
  if (sl == 0) return GOSTX_OK;
  if (all_magma(keys, nkeys))
    return via_streams(pool, op == OP_CBC_ENC ? GOSTX_BATCH_CBC_ENCRYPT : GOSTX_BATCH_CBC_DECRYPT,
                       keys, ivs, iv_len, in, out, sl, ns, NULL, 0);
  struct batch b = {op, (const void *const *)keys, nkeys, ivs, iv_len, NULL, 0, 1, in, out, sl,
                    ns, NULL, 0, 0, 0, NULL, NULL};
  return batch_run(pool, &b);
}

int gostx_batch_cbc_encrypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                            const uint8_t *ivs, size_t iv_len, const uint8_t *in,
                            size_t sector_len, size_t nsectors, uint8_t *out) {
  return cbc_batch(pool, OP_CBC_ENC, keys, nkeys, ivs, iv_len, in, out, sector_len, nsectors);
}

int gostx_batch_cbc_decrypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                            const uint8_t *ivs, size_t iv_len, const uint8_t *in,
                            size_t sector_len, size_t nsectors, uint8_t *out) {
  return cbc_batch(pool, OP_CBC_DEC, keys, nkeys, ivs, iv_len, in, out, sector_len, nsectors);
}

int gostx_batch_ctr_crypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                          const uint8_t *ivs, size_t iv_len, const uint8_t *in, size_t sector_len,
                          size_t nsectors, uint8_t *out) {
  int rc = check_common((const void *const *)keys, nkeys, in, out, sector_len, nsectors, 1);
  if (rc) return rc;
  for (size_t i = 0; i < nkeys; i++) {
    if (!gostx__modes_cipher_ok(keys[i])) return GOSTX_EINVAL;
    if (iv_len != keys[i]->block_len / 2) return GOSTX_EINVAL;
  }
  if (nsectors && !ivs) return GOSTX_EINVAL;
  if (sector_len == 0) return GOSTX_OK;
  if (all_magma(keys, nkeys))
    return via_streams(pool, GOSTX_BATCH_CTR, keys, ivs, iv_len, in, out, sector_len, nsectors,
                       NULL, 0);
  struct batch b = {OP_CTR, (const void *const *)keys, nkeys, ivs, iv_len, NULL, 0, 1, in,
                    out, sector_len, nsectors, NULL, 0, 0, 0, NULL, NULL};
  return batch_run(pool, &b);
}

int gostx_batch_omac(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                     const uint8_t *in, size_t sector_len, size_t nsectors, uint8_t *tags,
                     size_t tag_len) {
  int rc = check_common((const void *const *)keys, nkeys, in, NULL, sector_len, nsectors, 0);
  if (rc) return rc;
  for (size_t i = 0; i < nkeys; i++) {
    if (!gostx__modes_cipher_ok(keys[i])) return GOSTX_EINVAL;
    if (tag_len == 0 || tag_len > keys[i]->block_len) return GOSTX_ELEN;
  }
  if (nsectors && !tags) return GOSTX_EINVAL;
  if (all_magma(keys, nkeys))
    return via_streams(pool, GOSTX_BATCH_OMAC, keys, NULL, 0, in, NULL, sector_len, nsectors,
                       tags, tag_len);
  struct batch b = {OP_OMAC, (const void *const *)keys, nkeys, NULL, 0, NULL, 0, 1, in,
                    NULL, sector_len, nsectors, tags, tag_len, 0, 0, NULL, NULL};
  return batch_run(pool, &b);
}

static int xts_batch(gostx_pool *pool, int op, const gostx_xts_key *const *keys, size_t nkeys,
                     const uint64_t *nums, uint64_t first, uint64_t step, const uint8_t *in,
                     uint8_t *out, size_t sl, size_t ns) {
  int rc = check_common((const void *const *)keys, nkeys, in, out, sl, ns, 1);
  if (rc) return rc;
  if (sl < 16) return GOSTX_ELEN;
  struct batch b = {op, (const void *const *)keys, nkeys, NULL, 0, nums, first, step, in, out,
                    sl, ns, NULL, 0, 0, 0, NULL, NULL};
  return batch_run(pool, &b);
}

int gostx_batch_xts_encrypt(gostx_pool *pool, const gostx_xts_key *const *keys, size_t nkeys,
                            const uint64_t *sector_nums, uint64_t first_sector, size_t sector_len,
                            const uint8_t *in, size_t nsectors, uint8_t *out) {
  return xts_batch(pool, OP_XTS_ENC, keys, nkeys, sector_nums, first_sector, 1, in, out,
                   sector_len, nsectors);
}

int gostx_batch_xts_decrypt(gostx_pool *pool, const gostx_xts_key *const *keys, size_t nkeys,
                            const uint64_t *sector_nums, uint64_t first_sector, size_t sector_len,
                            const uint8_t *in, size_t nsectors, uint8_t *out) {
  return xts_batch(pool, OP_XTS_DEC, keys, nkeys, sector_nums, first_sector, 1, in, out,
                   sector_len, nsectors);
}

/* Disks: one key, tweak (first_sector + i) * (sector_size / tweak_unit). */
static int xts_disk(gostx_pool *pool, int op, const gostx_xts_key *key, size_t sector_size,
                    size_t tweak_unit, uint64_t first_sector, const uint8_t *in, uint8_t *out,
                    size_t nsectors) {
  if (!key || tweak_unit == 0 || sector_size % tweak_unit) return GOSTX_EINVAL;
  const gostx_xts_key *const keys[1] = {key};
  return xts_batch(pool, op, keys, 1, NULL, first_sector, sector_size / tweak_unit, in, out,
                   sector_size, nsectors);
}

int gostx_xts_encrypt_disk(gostx_pool *pool, const gostx_xts_key *key, uint64_t first_sector,
                           size_t sector_size, size_t tweak_unit, const uint8_t *in,
                           size_t nsectors, uint8_t *out) {
  return xts_disk(pool, OP_XTS_ENC, key, sector_size, tweak_unit, first_sector, in, out,
                  nsectors);
}

int gostx_xts_decrypt_disk(gostx_pool *pool, const gostx_xts_key *key, uint64_t first_sector,
                           size_t sector_size, size_t tweak_unit, const uint8_t *in,
                           size_t nsectors, uint8_t *out) {
  return xts_disk(pool, OP_XTS_DEC, key, sector_size, tweak_unit, first_sector, in, out,
                  nsectors);
}
