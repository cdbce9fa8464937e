/* The lanes of a batch group and the grouping of streams, shared by the two
 * engines behind gostx_batch_streams (include/gostx/batch.h): the stream
 * engine (streams.c: a key, IV and length per stream) and the sector engine
 * (sector.c: streams of one length, grouped by key pointer). Each mode is
 * written once, in lane_modes.c / lane_aead.c, over struct gostx__lanes and
 * an array of stream pointers. Not installed. */
#ifndef GOSTX_BULK_LANES_H
#define GOSTX_BULK_LANES_H

#include "bulk_internal.h"
#include "gostx/batch.h"
#include "blockops/multikey.h"

#define GOSTX__LANES_MAX GOSTX_KUZ_MK_MAX /* streams per group, at most */
#define GOSTX__LANES_MIN 16               /* smallest group made only to feed more threads */

/* How the g lanes of a group go through the cipher, step by step:
 *   c set: one key for every lane (a one-key call of any length);
 *   else a key per lane (keys[k]) in a multi-key schedule: Magma / GOST
 *   28147-89 (mm) or Kuznyechik (km, rebuilt for a prefix when that halves).
 * A call covers the first `active` lanes (the running streams). */
struct gostx__lanes {
  const gostx_cipher *c;
  int magma;      /* multi-key: 1 Magma / GOST 28147-89, 0 Kuznyechik */
  size_t n;       /* block length */
  size_t g;       /* lanes */
  size_t kg;      /* Kuznyechik: lanes in the current schedule */
  unsigned dirs;  /* GOSTX__MK_ENC / _DEC */
  const void **keys; /* g key pointers (gostx_kuz_key / gostx_magma_key) */
  gostx_kuz_mk *km;
  gostx_magma_mk *mm;
};

void gostx__lanes_setup(struct gostx__lanes *L);
void gostx__lanes_clear(struct gostx__lanes *L);
/* buf: g blocks; the first `active` are processed in place (the others may
 * be processed too and are then garbage). op: GOSTX__MAGMA_ENC / _DEC / _IMIT. */
void gostx__lanes_crypt(struct gostx__lanes *L, int op, uint8_t *buf, size_t active);

/* What every stream of a call shares. */
struct gostx__bjob {
  gostx_batch_op op;
  const gostx_batch_params *p;
};

static inline int gostx__op_gost89(gostx_batch_op op) {
  return op >= GOSTX_BATCH_GOST89_CFB_ENCRYPT;
}
static inline int gostx__op_xts(gostx_batch_op op) {
  return op == GOSTX_BATCH_XTS_ENCRYPT || op == GOSTX_BATCH_XTS_DECRYPT;
}
/* The p->iv_len / tag_len defaults for a stream of block length n. */
static inline size_t gostx__iv_len_of(const struct gostx__bjob *j, size_t n) {
  return j->p->iv_len ? j->p->iv_len : n;
}
static inline size_t gostx__tag_len_of(const struct gostx__bjob *j, size_t n) {
  if (j->p->tag_len) return j->p->tag_len;
  return j->op == GOSTX_BATCH_GOST89_IMIT ? 4 : n;
}

/* Runs j->op on the g streams S[0 .. g) of a group, sorted longest first
 * (MGM: by aad_len + len), through L (set up; XTS: under the tweak keys,
 * which it replaces by the data keys). keys89: the lanes' GOST 28147-89
 * key copies that key meshing replaces (GOST 28147-89 ops only). Sets every
 * stream's status (GOSTX_OK; MGM open: GOSTX_EAUTH for a wrong tag). */
void gostx__lanes_run(const struct gostx__bjob *j, struct gostx__lanes *L,
                      gostx_gost89_key *keys89, gostx_stream *const *S);
/* The one-stream call for s (the fallback where lanes do not apply). */
int gostx__batch_solo(const struct gostx__bjob *j, gostx_stream *s);

/* The modes (lane_modes.c, lane_aead.c). */
void gostx__lanes_chain(const struct gostx__bjob *j, struct gostx__lanes *L,
                        gostx_stream *const *S);
void gostx__lanes_ctr(struct gostx__lanes *L, gostx_stream *const *S);
void gostx__lanes_omac(const struct gostx__bjob *j, struct gostx__lanes *L,
                       gostx_stream *const *S);
void gostx__lanes_xts(const struct gostx__bjob *j, struct gostx__lanes *L,
                      gostx_stream *const *S);
void gostx__lanes_mgm(const struct gostx__bjob *j, struct gostx__lanes *L,
                      gostx_stream *const *S);
void gostx__lanes_gost89(const struct gostx__bjob *j, struct gostx__lanes *L,
                         gostx_gost89_key *keys89, gostx_stream *const *S);

/* ---- grouping ----
 * Streams are sorted by (cls, len longest first, index) and cut into groups
 * of consecutive sorted streams. cls is what must be equal inside a group:
 * the stream engine's class (cipher, S-box set), the sector engine's key
 * pointer. Which streams share a key, their lengths and ciphers are public. */
struct gostx__sortkey {
  uint64_t cls;
  size_t len, i;
};
struct gostx__group {
  size_t start, count; /* order[start .. start + count) */
  int mk;              /* sector engine: 1 = a key per lane */
};
/* Sorts kv[0 .. n) (nothing to do when already in order). */
void gostx__lanes_sort(struct gostx__sortkey *kv, size_t n);
/* Lanes per group for cnt streams whose cipher takes `full`: fewer when
 * full-size groups would leave some of nth threads idle. */
size_t gostx__lanes_fit(size_t cnt, size_t full, unsigned nth);
/* Kuznyechik lanes per group: the implementation's batch (the blocks per
 * call at which it reaches full speed), 64 when it names none. */
size_t gostx__kuz_lanes(void);
/* 1 when the chosen Kuznyechik implementation has multi-key kernels (without,
 * the lanes fall back to one block call per run of equal keys). */
int gostx__lanes_native(void);
/* Appends the groups of `lanes` (the last one shorter) that cover
 * [start, start + cnt); returns the new group count. */
size_t gostx__groups_cut(struct gostx__group *gr, size_t ng, size_t start, size_t cnt,
                         size_t lanes, int mk);

/* The sector engine (sector.c): runs the call when every stream has one
 * length and the op is one it has (Kuznyechik CBC, CTR, OMAC; XTS with in
 * and out back to back and tweaks under 2^64); returns 1 with *rc set, or 0
 * when the stream engine is to run it. The streams are checked already. */
int gostx__sector_try(gostx_pool *pool, const struct gostx__bjob *j, gostx_stream *s, size_t ns,
                      int *rc);

/* Inlined into the modes (lane_modes.c, lane_aead.c). */
#define INLINE static inline __attribute__((always_inline))

/* out = a ^ b over l <= n bytes: the whole block with n a constant (one or
 * two word moves after inlining), byte by byte for a short last block. */
INLINE void xor_part(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t l, size_t n) {
  if (l == n && n % 8 == 0) {
    /* 64-bit words, each loaded before it is stored: out may alias a or b
     * (which keeps the compiler from vectorising a byte loop). */
    for (size_t i = 0; i < n; i += 8) {
      uint64_t u, v;
      memcpy(&u, a + i, 8);
      memcpy(&v, b + i, 8);
      u ^= v;
      memcpy(out + i, &u, 8);
    }
  } else {
    gostx_xor(out, a, b, l);
  }
}

/* Every running stream's data two cache lines ahead, once per line of
 * steps (off: this step's byte offset): a group's streams are interleaved
 * block by block, which no hardware prefetcher follows. */
INLINE void prefetch_lanes(gostx_stream *const *S, size_t a, size_t off, size_t n, int out) {
#if defined(__GNUC__) || defined(__clang__)
  if (off % 64 >= n) return;
  for (size_t k = 0; k < a; k++) {
    if (S[k]->len <= off + 128) continue;
    __builtin_prefetch(S[k]->in + off + 128, 0, 3);
    if (out) __builtin_prefetch(S[k]->out + off + 128, 1, 3);
  }
#else
  (void)S, (void)a, (void)off, (void)n, (void)out;
#endif
}

#endif
