/* Sector batches: many independent messages of one size at once
 * (include/gostx/bulk.h).
 *
 * The sectors are grouped by key (equal key pointers; with one key, all of
 * them), and each group of up to BATCH_LANES sectors is one pool task. Inside
 * a group the sectors are interleaved: block i of every sector of the group is
 * gathered into one buffer and goes through the block cipher in one call, so
 * that a chain (CBC encryption, OMAC) that allows one block per call on its
 * own gets as many blocks per call as there are sectors, and the parallel
 * modes (CBC decryption, CTR, XTS) get calls that span sectors. Each task's
 * buffers are on its own stack and wiped before it returns. */
#include <stdint.h>
#include <stdlib.h>

#include "bulk_internal.h"
#include "modes/modes_internal.h"

#define BATCH_LANES 64     /* sectors interleaved per group */
#define BATCH_BLOCKS 512   /* blocks per gathered call (8 KiB of Kuznyechik) */
#define BATCH_MIN_LANES 16 /* smallest group made only to feed more threads */

enum { OP_CBC_ENC, OP_CBC_DEC, OP_CTR, OP_OMAC, OP_XTS_ENC, OP_XTS_DEC };

struct batch {
  int op;
  const void *const *keys; /* gostx_cipher or gostx_xts_key pointers */
  size_t nkeys;
  const uint8_t *ivs;
  size_t iv_len;
  const uint64_t *nums;
  uint64_t first;
  const uint8_t *in;
  uint8_t *out;
  size_t sl, ns; /* sector length, sector count */
  uint8_t *tags;
  size_t tag_len;
  /* Groups: with one key, group g is sectors [g * lanes, ...); otherwise the
   * sectors order[gstart[g] .. gstart[g + 1]) share one key. */
  size_t lanes, ngroups;
  size_t *order, *gstart;
};

/* ---- one group under one key; idx: the group's sector numbers ---- */

static void cbc_enc_group(const struct batch *b, const gostx_cipher *c, const size_t *idx,
                          size_t g) {
  const size_t n = c->block_len, z = b->iv_len / n, nb = b->sl / n;
  uint8_t x[BATCH_LANES * GOSTX_MAX_BLOCK_LEN];
  for (size_t i = 0; i < nb; i++) {
    for (size_t k = 0; k < g; k++) {
      const size_t s = idx[k];
      const uint8_t *prev =
          i < z ? b->ivs + s * b->iv_len + i * n : b->out + s * b->sl + (i - z) * n;
      gostx_xor(x + k * n, b->in + s * b->sl + i * n, prev, n);
    }
    gostx_cipher_encrypt_blocks(c, x, x, g);
    for (size_t k = 0; k < g; k++) memcpy(b->out + idx[k] * b->sl + i * n, x + k * n, n);
  }
  gostx_memzero(x, g * n);
}

static void cbc_dec_group(const struct batch *b, const gostx_cipher *c, const size_t *idx,
                          size_t g) {
  const size_t n = c->block_len, z = b->iv_len / n, nb = b->sl / n;
  uint8_t ct[BATCH_BLOCKS * GOSTX_MAX_BLOCK_LEN], pt[BATCH_BLOCKS * GOSTX_MAX_BLOCK_LEN];
  const size_t per = sizeof ct / b->sl; /* whole sectors per call */
  if (per == 0) {
    for (size_t k = 0; k < g; k++) {
      const size_t s = idx[k];
      gostx_cbc_decrypt(c, b->ivs + s * b->iv_len, b->iv_len, b->in + s * b->sl,
                        b->out + s * b->sl, b->sl);
    }
    return;
  }
  size_t used = 0;
  for (size_t k0 = 0; k0 < g; k0 += per) {
    const size_t q = g - k0 < per ? g - k0 : per;
    for (size_t k = 0; k < q; k++) memcpy(ct + k * b->sl, b->in + idx[k0 + k] * b->sl, b->sl);
    gostx_cipher_decrypt_blocks(c, ct, pt, q * nb);
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

static void ctr_group(const struct batch *b, const gostx_cipher *c, const size_t *idx, size_t g) {
  const size_t n = c->block_len, nb = (b->sl + n - 1) / n;
  uint8_t ks[BATCH_BLOCKS * GOSTX_MAX_BLOCK_LEN], ctr[GOSTX_MAX_BLOCK_LEN];
  size_t off[BATCH_BLOCKS], m = 0, used = 0;
  for (size_t k = 0; k < g; k++) {
    const size_t s = idx[k];
    memcpy(ctr, b->ivs + s * b->iv_len, n / 2); /* CTR_1 = IV || 0^{n/2} */
    memset(ctr + n / 2, 0, n / 2);
    for (size_t i = 0; i < nb; i++) {
      memcpy(ks + m * n, ctr, n);
      gostx__ctr_inc(ctr, n);
      off[m++] = s * b->sl + i * n;
      if (m == BATCH_BLOCKS || (k + 1 == g && i + 1 == nb)) {
        gostx_cipher_encrypt_blocks(c, ks, ks, m);
        if (used < m) used = m;
        for (size_t r = 0; r < m; r++) {
          const size_t end = (off[r] / b->sl + 1) * b->sl; /* end of that sector */
          const size_t l = end - off[r] < n ? end - off[r] : n;
          gostx_xor(b->out + off[r], b->in + off[r], ks + r * n, l);
        }
        m = 0;
      }
    }
  }
  gostx_memzero(ks, used * n);
  gostx_memzero(ctr, sizeof ctr);
}

static void omac_group(const struct batch *b, const gostx_cipher *c, const size_t *idx, size_t g) {
  const size_t n = c->block_len;
  /* Every block but the last one; the last (1..n bytes, or none for an empty
   * message) is padded and takes K1 when full, K2 otherwise. */
  const size_t before = b->sl ? (b->sl - 1) / n : 0, last = b->sl - before * n;
  uint8_t st[BATCH_LANES * GOSTX_MAX_BLOCK_LEN], k1[GOSTX_MAX_BLOCK_LEN], k2[GOSTX_MAX_BLOCK_LEN];
  uint8_t pad[GOSTX_MAX_BLOCK_LEN];
  gostx__omac_subkeys(c, k1, k2);
  memset(st, 0, g * n);
  for (size_t i = 0; i < before; i++) {
    for (size_t k = 0; k < g; k++)
      gostx_xor(st + k * n, st + k * n, b->in + idx[k] * b->sl + i * n, n);
    gostx_cipher_encrypt_blocks(c, st, st, g);
  }
  for (size_t k = 0; k < g; k++) {
    memset(pad, 0, n);
    if (last) memcpy(pad, b->in + idx[k] * b->sl + before * n, last);
    if (last < n) pad[last] = 0x80;
    gostx_xor(st + k * n, st + k * n, pad, n);
    gostx_xor(st + k * n, st + k * n, last == n ? k1 : k2, n);
  }
  gostx_cipher_encrypt_blocks(c, st, st, g);
  for (size_t k = 0; k < g; k++) memcpy(b->tags + idx[k] * b->tag_len, st + k * n, b->tag_len);
  gostx_memzero(st, g * n);
  gostx_memzero(k1, sizeof k1);
  gostx_memzero(k2, sizeof k2);
  gostx_memzero(pad, sizeof pad);
}

/* ---- XTS over many sectors under one key (also used by gostx_xts_*_mt) ---- */

static inline void xts_mul_alpha(uint64_t *lo, uint64_t *hi) {
  uint64_t carry = 0 - (*hi >> 63);
  *hi = (*hi << 1) | (*lo >> 63);
  *lo = (*lo << 1) ^ (carry & 0x87);
}

static void xts_blocks(const gostx_xts_key *x, int decrypt, const uint8_t *in, uint8_t *out,
                       size_t nblocks) {
  if (decrypt) gostx_kuz_decrypt_blocks(&x->data, in, out, nblocks);
  else gostx_kuz_encrypt_blocks(&x->data, in, out, nblocks);
}

void gostx__xts_sectors(const gostx_xts_key *x, int decrypt, const uint64_t *nums, uint64_t first,
                        const size_t *idx, const uint8_t *in, uint8_t *out, size_t sl,
                        size_t count) {
  enum { L = BATCH_LANES, B = 256 };
  uint8_t ta[L * 16], tb[L * 16], tw[B * 16], buf[B * 16], cc[16];
  uint64_t lo[L], hi[L];
  size_t off[B], gmax = 0, mmax = 0; /* lanes and gathered blocks used: what to wipe */
  const size_t nb = sl / 16, rest = sl % 16, bulk = rest ? nb - 1 : nb;
  for (size_t base = 0; base < count; base += L) {
    const size_t g = count - base < L ? count - base : L;
    if (g > gmax) gmax = g;
    for (size_t k = 0; k < g; k++) {
      const size_t s = idx ? idx[base + k] : base + k;
      gostx_store64_le(ta + 16 * k, nums ? nums[s] : first + s); /* plain64 tweak */
      memset(ta + 16 * k + 8, 0, 8);
    }
    gostx_kuz_encrypt_blocks(&x->tweak, ta, ta, g); /* T_0 of every sector */
    for (size_t k = 0; k < g; k++) {
      lo[k] = gostx_load64_le(ta + 16 * k);
      hi[k] = gostx_load64_le(ta + 16 * k + 8);
    }
    /* Full blocks (the last one waits when there is stealing), gathered
     * across sectors: buf = P xor T, one call, C = buf xor T. */
    size_t m = 0;
    for (size_t k = 0; k < g; k++) {
      const size_t s = idx ? idx[base + k] : base + k;
      for (size_t i = 0; i < bulk; i++) {
        off[m] = s * sl + 16 * i;
        gostx_store64_le(tw + 16 * m, lo[k]);
        gostx_store64_le(tw + 16 * m + 8, hi[k]);
        xts_mul_alpha(&lo[k], &hi[k]);
        gostx_xor(buf + 16 * m, in + off[m], tw + 16 * m, 16);
        if (++m > mmax) mmax = m;
        if (m == B || (k + 1 == g && i + 1 == bulk)) {
          xts_blocks(x, decrypt, buf, buf, m);
          for (size_t r = 0; r < m; r++) gostx_xor(out + off[r], buf + 16 * r, tw + 16 * r, 16);
          m = 0;
        }
      }
    }
    if (rest) {
      /* Ciphertext stealing (IEEE 1619 5.3.2 / 5.4.2), both steps batched
       * across the sectors. Block m of a sector has tweak T_m, the partial
       * block T_{m+1}; decryption takes them the other way round. */
      for (size_t k = 0; k < g; k++) {
        uint8_t *a = ta + 16 * k, *bb = tb + 16 * k;
        uint64_t l2 = lo[k], h2 = hi[k];
        xts_mul_alpha(&l2, &h2);
        gostx_store64_le(decrypt ? bb : a, lo[k]);
        gostx_store64_le((decrypt ? bb : a) + 8, hi[k]);
        gostx_store64_le(decrypt ? a : bb, l2);
        gostx_store64_le((decrypt ? a : bb) + 8, h2);
        const size_t s = idx ? idx[base + k] : base + k;
        gostx_xor(buf + 16 * k, in + s * sl + 16 * bulk, a, 16);
      }
      xts_blocks(x, decrypt, buf, buf, g);
      for (size_t k = 0; k < g; k++) {
        const size_t s = idx ? idx[base + k] : base + k;
        const uint8_t *pin = in + s * sl + 16 * bulk;
        uint8_t *pout = out + s * sl + 16 * bulk;
        gostx_xor(cc, buf + 16 * k, ta + 16 * k, 16); /* CC */
        /* PP = tail || CC[rest..]; read the tail before out (maybe in) changes. */
        memcpy(buf + 16 * k, pin + 16, rest);
        memcpy(buf + 16 * k + rest, cc + rest, 16 - rest);
        memcpy(pout + 16, cc, rest);
        gostx_xor(buf + 16 * k, buf + 16 * k, tb + 16 * k, 16);
      }
      xts_blocks(x, decrypt, buf, buf, g);
      for (size_t k = 0; k < g; k++) {
        const size_t s = idx ? idx[base + k] : base + k;
        gostx_xor(out + s * sl + 16 * bulk, buf + 16 * k, tb + 16 * k, 16);
      }
    }
  }
  if (mmax < gmax) mmax = gmax; /* the stealing steps use buf per lane */
  gostx_memzero(ta, 16 * gmax);
  gostx_memzero(tb, 16 * gmax);
  gostx_memzero(tw, 16 * mmax);
  gostx_memzero(buf, 16 * mmax);
  gostx_memzero(cc, sizeof cc);
  gostx_memzero(lo, sizeof lo[0] * gmax);
  gostx_memzero(hi, sizeof hi[0] * gmax);
}

/* ---- groups and tasks ---- */

static void batch_task(void *arg, size_t t) {
  const struct batch *b = arg;
  size_t ident[BATCH_LANES];
  const size_t *idx;
  size_t g;
  const void *key;
  if (b->order) {
    idx = b->order + b->gstart[t];
    g = b->gstart[t + 1] - b->gstart[t];
    key = b->keys[idx[0]];
  } else {
    const size_t s0 = t * b->lanes;
    g = b->ns - s0 < b->lanes ? b->ns - s0 : b->lanes;
    for (size_t k = 0; k < g; k++) ident[k] = s0 + k;
    idx = ident;
    key = b->keys[0];
  }
  switch (b->op) {
    case OP_CBC_ENC: cbc_enc_group(b, key, idx, g); break;
    case OP_CBC_DEC: cbc_dec_group(b, key, idx, g); break;
    case OP_CTR: ctr_group(b, key, idx, g); break;
    case OP_OMAC: omac_group(b, key, idx, g); break;
    default:
      gostx__xts_sectors(key, b->op == OP_XTS_DEC, b->nums, b->first, idx, b->in, b->out, b->sl,
                         g);
      break;
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

static int batch_run(gostx_pool *pool, struct batch *b) {
  const unsigned nth = gostx_pool_size(pool);
  int rc = GOSTX_OK;
  if (b->ns == 0) return GOSTX_OK;
  /* Lanes per group: BATCH_LANES, fewer when that leaves threads idle. */
  size_t lanes = BATCH_LANES;
  if ((b->ns + lanes - 1) / lanes < nth) {
    lanes = (b->ns + nth - 1) / nth;
    if (lanes < BATCH_MIN_LANES) lanes = BATCH_MIN_LANES;
    if (lanes > BATCH_LANES) lanes = BATCH_LANES;
  }
  b->lanes = lanes;
  if (b->nkeys == 1) {
    b->ngroups = (b->ns + lanes - 1) / lanes;
  } else {
    /* Sort the sectors by key pointer (which sectors share a key is public). */
    struct keyed *kv = malloc(b->ns * sizeof *kv);
    b->order = malloc(b->ns * sizeof *b->order);
    b->gstart = malloc((b->ns + 1) * sizeof *b->gstart);
    if (!kv || !b->order || !b->gstart) {
      free(kv);
      rc = GOSTX_ENOMEM;
      goto out;
    }
    for (size_t i = 0; i < b->ns; i++) {
      kv[i].key = (uintptr_t)b->keys[i];
      kv[i].i = i;
    }
    qsort(kv, b->ns, sizeof *kv, keyed_cmp);
    size_t ng = 0, run = 0;
    for (size_t i = 0; i < b->ns; i++) {
      b->order[i] = kv[i].i;
      if (i == 0 || kv[i].key != kv[i - 1].key || run == lanes) {
        b->gstart[ng++] = i;
        run = 0;
      }
      run++;
    }
    b->gstart[ng] = b->ns;
    b->ngroups = ng;
    free(kv);
  }
  rc = gostx_pool_run(b->sl * b->ns >= GOSTX_BULK_MIN / 4 ? pool : NULL, b->ngroups, batch_task,
                      b);
out:
  free(b->order);
  free(b->gstart);
  b->order = b->gstart = NULL;
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
  struct batch b = {op, (const void *const *)keys, nkeys, ivs, iv_len, NULL, 0, in, out, sl, ns,
                    NULL, 0, 0, 0, NULL, NULL};
  return batch_run(pool, &b);
}

int gostx_batch_cbc_encrypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                            const uint8_t *ivs, size_t iv_len, const uint8_t *in, uint8_t *out,
                            size_t sector_len, size_t nsectors) {
  return cbc_batch(pool, OP_CBC_ENC, keys, nkeys, ivs, iv_len, in, out, sector_len, nsectors);
}

int gostx_batch_cbc_decrypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                            const uint8_t *ivs, size_t iv_len, const uint8_t *in, uint8_t *out,
                            size_t sector_len, size_t nsectors) {
  return cbc_batch(pool, OP_CBC_DEC, keys, nkeys, ivs, iv_len, in, out, sector_len, nsectors);
}

int gostx_batch_ctr_crypt(gostx_pool *pool, const gostx_cipher *const *keys, size_t nkeys,
                          const uint8_t *ivs, size_t iv_len, const uint8_t *in, uint8_t *out,
                          size_t sector_len, size_t nsectors) {
  int rc = check_common((const void *const *)keys, nkeys, in, out, sector_len, nsectors, 1);
  if (rc) return rc;
  for (size_t i = 0; i < nkeys; i++) {
    if (!gostx__modes_cipher_ok(keys[i])) return GOSTX_EINVAL;
    if (iv_len != keys[i]->block_len / 2) return GOSTX_EINVAL;
  }
  if (nsectors && !ivs) return GOSTX_EINVAL;
  if (sector_len == 0) return GOSTX_OK;
  struct batch b = {OP_CTR, (const void *const *)keys, nkeys, ivs, iv_len, NULL, 0, in, out,
                    sector_len, nsectors, NULL, 0, 0, 0, NULL, NULL};
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
  struct batch b = {OP_OMAC, (const void *const *)keys, nkeys, NULL, 0, NULL, 0, in, NULL,
                    sector_len, nsectors, tags, tag_len, 0, 0, NULL, NULL};
  return batch_run(pool, &b);
}

static int xts_batch(gostx_pool *pool, int op, const gostx_xts_key *const *keys, size_t nkeys,
                     const uint64_t *nums, uint64_t first, const uint8_t *in, uint8_t *out,
                     size_t sl, size_t ns) {
  int rc = check_common((const void *const *)keys, nkeys, in, out, sl, ns, 1);
  if (rc) return rc;
  if (sl < 16) return GOSTX_ELEN;
  struct batch b = {op, (const void *const *)keys, nkeys, NULL, 0, nums, first, in, out, sl, ns,
                    NULL, 0, 0, 0, NULL, NULL};
  return batch_run(pool, &b);
}

int gostx_batch_xts_encrypt(gostx_pool *pool, const gostx_xts_key *const *keys, size_t nkeys,
                            const uint64_t *sector_nums, uint64_t first_sector, const uint8_t *in,
                            uint8_t *out, size_t sector_len, size_t nsectors) {
  return xts_batch(pool, OP_XTS_ENC, keys, nkeys, sector_nums, first_sector, in, out, sector_len,
                   nsectors);
}

int gostx_batch_xts_decrypt(gostx_pool *pool, const gostx_xts_key *const *keys, size_t nkeys,
                            const uint64_t *sector_nums, uint64_t first_sector, const uint8_t *in,
                            uint8_t *out, size_t sector_len, size_t nsectors) {
  return xts_batch(pool, OP_XTS_DEC, keys, nkeys, sector_nums, first_sector, in, out, sector_len,
                   nsectors);
}
