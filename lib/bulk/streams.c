/* Stream batches (include/gostx/batch.h): many messages, each with its own
 * key, IV and length, one stream per vector lane.
 *
 * The streams are sorted by class (cipher, S-box set: what one multi-key
 * schedule can hold) and then by length, longest first, and cut into groups
 * of up to `lanes` streams, one pool task each. Inside a group, step i of
 * every stream's chain goes through the cipher in one multi-key call (block
 * k under stream k's key): the streams still running at step i are a
 * prefix of the group (they are the longest), so a call covers just them
 * (Magma: exactly; Kuznyechik: its schedule is rebuilt for the prefix when
 * that halves). Each mode is written once over struct lanes. Which streams
 * share a key, their lengths and their ciphers are public; key and data
 * values only ever go through the constant-time multi-key cores.
 *
 * Kuznyechik where the implementation has no multi-key kernel (the opt-in
 * lstable) runs the one-stream call per stream, still spread over the pool. */
#include <stdlib.h>

#include "bulk_internal.h"
#include "gostx/batch.h"
#include "kuznyechik/impl.h"
#include "magma/impl.h"
#include "mgm/impl.h"
#include "modes/modes_internal.h"

/* Kept whole under their own names: tests/ct/declassified.supp names them
 * (GCC would otherwise clone them, e.g. as open_result.constprop.0; clang,
 * which has no noclone, builds only the pedantic and fuzz gates, not the CT
 * check). */
#if defined(__clang__)
#define NAMED_FN __attribute__((noinline))
#else
#define NAMED_FN __attribute__((noinline, noclone))
#endif

#define LANES_MAX GOSTX_KUZ_MK_MAX /* streams per group, at most */
#define LANES_MIN 16               /* smallest group made only to feed more threads */

/* ---- the lanes of a group: a key per lane, calls on the first `active` ---- */

struct lanes {
  int magma;  /* 1: Magma / GOST 28147-89 (mm), 0: Kuznyechik (km) */
  size_t n;   /* block length */
  size_t g;   /* lanes */
  size_t kg;  /* Kuznyechik: lanes in the current schedule */
  unsigned dirs;
  const void **keys; /* g key pointers (gostx_kuz_key / gostx_magma_key) */
  gostx_kuz_mk *km;
  gostx_magma_mk *mm;
};

static void lanes_setup(struct lanes *L) {
  if (L->magma) {
    gostx__magma_mk_init(L->mm, NULL, (const gostx_magma_key *const *)L->keys, L->g);
  } else {
    L->kg = L->g;
    gostx__kuz_mk_init(L->km, NULL, (const gostx_kuz_key *const *)L->keys, L->g, L->dirs);
  }
}

static void lanes_clear(struct lanes *L) {
  if (L->magma) gostx__magma_mk_clear(L->mm);
  else gostx__kuz_mk_clear(L->km);
}

/* buf: g blocks; the first `active` are processed in place (the others may
 * be processed too and are then garbage). op: GOSTX__MAGMA_ENC / _DEC / _IMIT. */
static void lanes_crypt(struct lanes *L, int op, uint8_t *buf, size_t active) {
  if (active == 0) return;
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

/* ---- the job ---- */

struct group {
  size_t start, count;
};

struct job {
  gostx_batch_op op;
  const gostx_batch_params *p;
  gostx_stream *s;
  size_t *order;  /* stream indices, grouped */
  struct group *groups;
  size_t ngroups;
};

static int is_gost89(gostx_batch_op op) { return op >= GOSTX_BATCH_GOST89_CFB_ENCRYPT; }
static int is_mgm(gostx_batch_op op) {
  return op == GOSTX_BATCH_MGM_SEAL || op == GOSTX_BATCH_MGM_OPEN;
}
static int is_xts(gostx_batch_op op) {
  return op == GOSTX_BATCH_XTS_ENCRYPT || op == GOSTX_BATCH_XTS_DECRYPT;
}


static size_t blk(const gostx_stream *s, gostx_batch_op op) {
  return is_gost89(op) ? 8 : ((const gostx_cipher *)s->key)->block_len;
}

/* The p->iv_len / tag_len defaults for a stream of block length n. */
static size_t iv_len_of(const struct job *j, size_t n) { return j->p->iv_len ? j->p->iv_len : n; }
static size_t tag_len_of(const struct job *j, size_t n) {
  if (j->p->tag_len) return j->p->tag_len;
  return j->op == GOSTX_BATCH_GOST89_IMIT ? 4 : n;
}

/* ---- chain modes on a register: CBC, CFB, OFB ----
 * reg_k holds the last m bytes of the chain (IV, then ciphertext, or for OFB
 * the gamma); the cipher input of a step is its first n bytes, and the
 * step's ciphertext (gamma) is shifted in. Steps go forward; in place is
 * safe because a step reads its input block before writing its output. */
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

INLINE void chain_steps(const struct job *j, struct lanes *L, gostx_stream *const *S,
                        const size_t n, const size_t m) {
  const size_t g = L->g;
  const gostx_batch_op op = j->op;
  uint8_t x[LANES_MAX * GOSTX_MAX_BLOCK_LEN], reg[LANES_MAX * GOSTX_MAX_IV_LEN];
  uint8_t c[GOSTX_MAX_BLOCK_LEN];
  for (size_t k = 0; k < g; k++) memcpy(reg + k * m, S[k]->iv, m);
  size_t a = g;
  for (size_t i = 0;; i++) {
    while (a && (S[a - 1]->len + n - 1) / n <= i) a--; /* streams still running */
    if (!a) break;
    prefetch_lanes(S, a, i * n, n, 1);
    for (size_t k = 0; k < a; k++) {
      const uint8_t *p = S[k]->in + i * n;
      if (op == GOSTX_BATCH_CBC_ENCRYPT) xor_part(x + k * n, p, reg + k * m, n, n);
      else if (op == GOSTX_BATCH_CBC_DECRYPT) memcpy(x + k * n, p, n);
      else memcpy(x + k * n, reg + k * m, n);
    }
    lanes_crypt(L, op == GOSTX_BATCH_CBC_DECRYPT ? GOSTX__MAGMA_DEC : GOSTX__MAGMA_ENC, x, a);
    for (size_t k = 0; k < a; k++) {
      const uint8_t *p = S[k]->in + i * n;
      uint8_t *o = S[k]->out + i * n, *r = reg + k * m, *y = x + k * n;
      const size_t l = S[k]->len - i * n < n ? S[k]->len - i * n : n;
      const uint8_t *next; /* what enters the register */
      switch (op) {
        case GOSTX_BATCH_CBC_ENCRYPT: memcpy(o, y, n); next = y; break;
        case GOSTX_BATCH_CBC_DECRYPT:
          memcpy(c, p, n);
          xor_part(o, y, r, n, n);
          next = c;
          break;
        case GOSTX_BATCH_CFB_ENCRYPT: xor_part(o, p, y, l, n); next = o; break;
        case GOSTX_BATCH_CFB_DECRYPT:
          if (l == n) memcpy(c, p, n);
          xor_part(o, p, y, l, n);
          next = c;
          break;
        default: xor_part(o, p, y, l, n); next = y; break; /* OFB */
      }
      if (l < n) continue; /* a short last block ends the stream */
      if (m > n) memmove(r, r + n, m - n);
      memcpy(r + m - n, next, n);
    }
  }
  gostx_memzero(x, g * n);
  gostx_memzero(reg, g * m);
  gostx_memzero(c, sizeof c);
}

/* The usual shapes (m = n) with constant sizes; the rest generic. */
static void chain_group(const struct job *j, struct lanes *L, gostx_stream *const *S) {
  const size_t n = L->n, m = iv_len_of(j, n);
  if (n == 8 && m == 8) chain_steps(j, L, S, 8, 8);
  else if (n == 16 && m == 16) chain_steps(j, L, S, 16, 16);
  else chain_steps(j, L, S, n, m);
}

/* CTR: counter IV || 0^{n/2} per stream, stepped by one per block. */
INLINE void ctr_steps(struct lanes *L, gostx_stream *const *S, const size_t n) {
  const size_t g = L->g;
  uint8_t x[LANES_MAX * GOSTX_MAX_BLOCK_LEN], ctr[LANES_MAX * GOSTX_MAX_BLOCK_LEN];
  for (size_t k = 0; k < g; k++) {
    memcpy(ctr + k * n, S[k]->iv, n / 2);
    memset(ctr + k * n + n / 2, 0, n / 2);
  }
  size_t a = g;
  for (size_t i = 0;; i++) {
    while (a && (S[a - 1]->len + n - 1) / n <= i) a--;
    if (!a) break;
    prefetch_lanes(S, a, i * n, n, 1);
    for (size_t k = 0; k < a; k++) {
      memcpy(x + k * n, ctr + k * n, n);
      gostx__ctr_add(ctr + k * n, n, GOSTX__CTR_FULL, 1);
    }
    lanes_crypt(L, GOSTX__MAGMA_ENC, x, a);
    for (size_t k = 0; k < a; k++) {
      const size_t l = S[k]->len - i * n < n ? S[k]->len - i * n : n;
      xor_part(S[k]->out + i * n, S[k]->in + i * n, x + k * n, l, n);
    }
  }
  gostx_memzero(x, g * n);
  gostx_memzero(ctr, g * n);
}

static void ctr_group(struct lanes *L, gostx_stream *const *S) {
  if (L->n == 8) ctr_steps(L, S, 8);
  else ctr_steps(L, S, 16);
}

/* OMAC: stream k takes before_k = (len - 1) / n plain steps, then the padded
 * last block with K1 (full) or K2 (partial; the empty message is one). */
static int solo(const struct job *j, gostx_stream *s);

static size_t omac_steps(const gostx_stream *s, size_t n) {
  return (s->len ? (s->len - 1) / n : 0) + 1;
}

/* OMAC-ACPKM (RFC 8645 6.3.6): per stream the key material stream km
 * (CTR-ACPKM under the master key, IV 1^{n/2}) and the section's cipher sc;
 * every running stream opens a section at the same step (block i with
 * i n a multiple of N), when the schedule is rebuilt over the new keys. */
struct acpkm_lanes {
  gostx_mode_ctx km[LANES_MAX];
  gostx_cipher sc[LANES_MAX];
};

static void acpkm_section(const struct job *j, struct lanes *L, struct acpkm_lanes *A,
                          gostx_stream *const *S, size_t a, uint8_t *k1, size_t n) {
  uint8_t m[GOSTX_KEY_LEN + GOSTX_MAX_BLOCK_LEN];
  (void)j;
  for (size_t k = 0; k < a; k++) {
    memset(m, 0, sizeof m);
    gostx__ctr_bytes(&A->km[k], m, m, GOSTX_KEY_LEN + n); /* K^i || K1^i */
    gostx_cipher_init(&A->sc[k], (gostx_alg)((const gostx_cipher *)S[k]->key)->id, m);
    memcpy(k1 + k * n, m + GOSTX_KEY_LEN, n);
    L->keys[k] = L->magma ? (const void *)&A->sc[k].u.magma : (const void *)&A->sc[k].u.kuz;
  }
  lanes_clear(L);
  lanes_setup(L);
  gostx_memzero(m, sizeof m);
}

/* Plain OMAC (A NULL): K1 = dbl(E_k(0)) per stream; with ACPKM the
 * sections' K1^i. The last block takes K1 when full, else K2 = dbl(K1). */
INLINE void omac_run(const struct job *j, struct lanes *L, gostx_stream *const *S,
                     const size_t n, struct acpkm_lanes *A) {
  const size_t g = L->g, tl = tag_len_of(j, n), N = j->p->section_len;
  uint8_t x[LANES_MAX * GOSTX_MAX_BLOCK_LEN], st[LANES_MAX * GOSTX_MAX_BLOCK_LEN];
  uint8_t k1[LANES_MAX * GOSTX_MAX_BLOCK_LEN], pad[GOSTX_MAX_BLOCK_LEN], sub[GOSTX_MAX_BLOCK_LEN];
  if (!A) {
    memset(k1, 0, g * n);
    lanes_crypt(L, GOSTX__MAGMA_ENC, k1, g); /* E_k(0) */
    for (size_t k = 0; k < g; k++) gostx__omac_dbl(k1 + k * n, k1 + k * n, n);
  }
  memset(st, 0, g * n);
  size_t a = g;
  for (size_t i = 0;; i++) {
    while (a && omac_steps(S[a - 1], n) <= i) a--;
    if (!a) break;
    prefetch_lanes(S, a, i * n, n, 0);
    if (A && (i * n) % N == 0) acpkm_section(j, L, A, S, a, k1, n);
    for (size_t k = 0; k < a; k++) {
      const size_t before = omac_steps(S[k], n) - 1;
      if (i < before) {
        xor_part(x + k * n, st + k * n, S[k]->in + i * n, n, n);
      } else { /* the last block: padded, with its subkey */
        const size_t last = S[k]->len - before * n;
        memset(pad, 0, n);
        if (last) memcpy(pad, S[k]->in + before * n, last);
        if (last < n) pad[last] = 0x80;
        if (last == n) memcpy(sub, k1 + k * n, n);
        else gostx__omac_dbl(sub, k1 + k * n, n);
        gostx_xor(x + k * n, st + k * n, pad, n);
        gostx_xor(x + k * n, x + k * n, sub, n);
      }
    }
    lanes_crypt(L, GOSTX__MAGMA_ENC, x, a);
    for (size_t k = 0; k < a; k++) {
      memcpy(st + k * n, x + k * n, n);
      if (i == omac_steps(S[k], n) - 1) memcpy(S[k]->tag, st + k * n, tl);
    }
  }
  gostx_memzero(x, g * n);
  gostx_memzero(st, g * n);
  gostx_memzero(k1, g * n);
  gostx_memzero(pad, sizeof pad);
  gostx_memzero(sub, sizeof sub);
}

static void omac_group(const struct job *j, struct lanes *L, gostx_stream *const *S) {
  struct acpkm_lanes *A = NULL;
  if (j->op == GOSTX_BATCH_OMAC_ACPKM) {
    uint8_t iv[GOSTX_MAX_BLOCK_LEN / 2];
    memset(iv, 0xff, sizeof iv); /* ACPKM-Master: IV = 1^{n/2} */
    A = malloc(sizeof *A);
    if (!A) { /* no memory for the key streams: the one-stream calls */
      for (size_t k = 0; k < L->g; k++) S[k]->status = solo(j, S[k]);
      return;
    }
    for (size_t k = 0; k < L->g; k++)
      gostx_mode_init(&A->km[k], S[k]->key, GOSTX_MODE_CTR_ACPKM, 0, iv, L->n / 2, 0,
                      GOSTX_PAD_NONE, j->p->master_section_len);
  }
  if (L->n == 8) omac_run(j, L, S, 8, A);
  else omac_run(j, L, S, 16, A);
  if (A) {
    lanes_clear(L); /* the schedule points into A; group_task clears it again */
    for (size_t k = 0; k < L->g; k++) gostx_mode_clear(&A->km[k]);
    gostx_memzero(A->sc, L->g * sizeof A->sc[0]);
    free(A);
  }
}

/* ---- MGM (RFC 9058) ----
 * Stream k hashes T_k = na + nd + 1 blocks (AAD and data, each zero-padded
 * to whole blocks, then the lengths), H_t = E(Z_t); its data blocks take
 * the gamma E(Y_d). Per step: one multi-key call for the H of every running
 * stream, one for the gammas when a stream is in its data, and a field
 * multiply-accumulate per stream. Open hashes the ciphertext first (pass
 * 1), compares each tag in constant time, and only then (pass 2) writes
 * the plaintext of the streams that authenticated. Running streams need not
 * be a prefix here (the sort is by aad_len + len): each checks t < T_k. */

struct mgm_lane {
  size_t na, nd, T; /* blocks of AAD, of data; hash steps */
};

/* Open, pass 2: eq[k] (gostx_memeq_ct: 0 when stream k's tag was right)
 * decides its status and whether it gets its plaintext: the one place that
 * branches on a value derived from the key, the accept/reject bit that the
 * call reports anyway (tests/ct/declassified.supp names this function). */
static NAMED_FN void mgm_release(struct lanes *L, gostx_stream *const *S,
                                                  const int *eq, const struct mgm_lane *ln,
                                                  const uint8_t *y1, uint8_t *y, uint8_t *gam,
                                                  size_t n) {
  const size_t g = L->g;
  size_t nd = 0;
  for (size_t k = 0; k < g; k++) {
    S[k]->status = eq[k] == 0 ? GOSTX_OK : GOSTX_EAUTH;
    nd = ln[k].nd > nd ? ln[k].nd : nd;
  }
  memcpy(y, y1, g * n);
  for (size_t d = 0; d < nd; d++) {
    memcpy(gam, y, g * n);
    lanes_crypt(L, GOSTX__MAGMA_ENC, gam, g);
    for (size_t k = 0; k < g; k++) {
      gostx__ctr_add(y + k * n, n, GOSTX__CTR_RIGHT, 1);
      if (eq[k] != 0 || d >= ln[k].nd) continue; /* a forged stream gets nothing */
      const size_t l = S[k]->len - d * n < n ? S[k]->len - d * n : n;
      xor_part(S[k]->out + d * n, S[k]->in + d * n, gam + k * n, l, n);
    }
  }
}

INLINE void mgm_run(const struct job *j, struct lanes *L, gostx_stream *const *S, const size_t n) {
  const struct gostx_mgm_impl *f = gostx__dispatch()->mgm;
  const int open = j->op == GOSTX_BATCH_MGM_OPEN;
  const size_t g = L->g, tl = tag_len_of(j, n);
  enum { B = LANES_MAX * GOSTX_MAX_BLOCK_LEN };
  uint8_t y1[B], y[B], z[B], h[B], gam[B], sum[B], blk[GOSTX_MAX_BLOCK_LEN];
  struct mgm_lane ln[LANES_MAX];
  for (size_t k = 0; k < g; k++) { /* Y1 = E(0 || ICN), Z1 = E(1 || ICN) */
    ln[k].na = (S[k]->aad_len + n - 1) / n;
    ln[k].nd = (S[k]->len + n - 1) / n;
    ln[k].T = ln[k].na + ln[k].nd + 1;
    memcpy(y1 + k * n, S[k]->iv, n);
    memcpy(z + k * n, S[k]->iv, n);
    z[k * n] |= 0x80;
  }
  lanes_crypt(L, GOSTX__MAGMA_ENC, y1, g);
  lanes_crypt(L, GOSTX__MAGMA_ENC, z, g);
  memcpy(y, y1, g * n);
  memset(sum, 0, g * n);
  size_t a = g;
  for (size_t t = 0;; t++) {
    while (a && ln[a - 1].T <= t) a--;
    if (!a) break;
    int need_y = 0;
    for (size_t k = 0; k < a; k++) {
      memcpy(h + k * n, z + k * n, n);
      gostx__ctr_add(z + k * n, n, GOSTX__CTR_LEFT, 1);
      if (!open) {
        memcpy(gam + k * n, y + k * n, n);
        need_y |= t >= ln[k].na && t < ln[k].na + ln[k].nd;
      }
    }
    lanes_crypt(L, GOSTX__MAGMA_ENC, h, a);
    if (need_y) lanes_crypt(L, GOSTX__MAGMA_ENC, gam, a);
    for (size_t k = 0; k < a; k++) {
      const struct mgm_lane *q = &ln[k];
      const uint8_t *x = blk;
      if (t >= q->T) continue;
      memset(blk, 0, n);
      if (t < q->na) {
        const size_t l = S[k]->aad_len - t * n < n ? S[k]->aad_len - t * n : n;
        memcpy(blk, S[k]->aad + t * n, l);
      } else if (t < q->na + q->nd) {
        const size_t d = t - q->na, l = S[k]->len - d * n < n ? S[k]->len - d * n : n;
        if (open) {
          memcpy(blk, S[k]->in + d * n, l);
        } else {
          xor_part(S[k]->out + d * n, S[k]->in + d * n, gam + k * n, l, n);
          memcpy(blk, S[k]->out + d * n, l);
          gostx__ctr_add(y + k * n, n, GOSTX__CTR_RIGHT, 1);
        }
      } else if (n == 16) { /* the lengths, in bits */
        gostx_store64_be(blk, (uint64_t)S[k]->aad_len * 8);
        gostx_store64_be(blk + 8, (uint64_t)S[k]->len * 8);
      } else {
        gostx_store32_be(blk, (uint32_t)(S[k]->aad_len * 8));
        gostx_store32_be(blk + 4, (uint32_t)(S[k]->len * 8));
      }
      if (n == 16) f->mul_acc128(sum + k * n, h + k * n, x, 1);
      else f->mul_acc64(sum + k * n, h + k * n, x, 1);
    }
  }
  lanes_crypt(L, GOSTX__MAGMA_ENC, sum, g); /* the full tags */
  if (open) {
    int ok[LANES_MAX];
    for (size_t k = 0; k < g; k++) ok[k] = gostx_memeq_ct(sum + k * n, S[k]->tag, tl);
    mgm_release(L, S, ok, ln, y1, y, gam, n);
  } else {
    for (size_t k = 0; k < g; k++) memcpy(S[k]->tag, sum + k * n, tl);
  }
  gostx_memzero(y1, g * n);
  gostx_memzero(y, g * n);
  gostx_memzero(z, g * n);
  gostx_memzero(h, g * n);
  gostx_memzero(gam, g * n);
  gostx_memzero(sum, g * n);
  gostx_memzero(blk, sizeof blk);
}

static void mgm_group(const struct job *j, struct lanes *L, gostx_stream *const *S) {
  if (L->n == 8) mgm_run(j, L, S, 8);
  else mgm_run(j, L, S, 16);
}

/* ---- XTS (IEEE 1619), a key pair and a 16-byte tweak per stream ----
 * T_0 = E_K2(tweak) for every stream in one multi-key call under the tweak
 * keys; then the data keys' schedule, block j of every stream per step,
 * whitened with T_j = T_0 alpha^j. A stream of R = len % 16 > 0 bytes past
 * its F full blocks steals in its last two steps (5.3.2 / 5.4.2): block
 * m = F - 1 under the first tweak (encryption T_m, decryption T_{m+1})
 * gives CC, then P_{m+1} || CC[R..] under the second; so every stream takes
 * ceil(len / 16) steps and the running ones stay a prefix. */

static void tweak_bytes(uint8_t t[16], uint64_t lo, uint64_t hi, int times_alpha) {
  if (times_alpha) gostx__xts_mul_alpha(&lo, &hi);
  gostx_store64_le(t, lo);
  gostx_store64_le(t + 8, hi);
}

static void xts_group(const struct job *j, struct lanes *L, gostx_stream *const *S) {
  const int dec = j->op == GOSTX_BATCH_XTS_DECRYPT;
  const size_t g = L->g;
  uint8_t x[LANES_MAX * 16], cc[LANES_MAX * 16], tw[16], pp[16];
  uint64_t lo[LANES_MAX], hi[LANES_MAX];
  for (size_t k = 0; k < g; k++) memcpy(x + 16 * k, S[k]->iv, 16);
  lanes_crypt(L, GOSTX__MAGMA_ENC, x, g); /* T_0 under the tweak keys */
  for (size_t k = 0; k < g; k++) {
    lo[k] = gostx_load64_le(x + 16 * k);
    hi[k] = gostx_load64_le(x + 16 * k + 8);
    L->keys[k] = &((const gostx_xts_key *)S[k]->key)->data;
  }
  lanes_clear(L);
  L->dirs = dec ? GOSTX__MK_DEC : GOSTX__MK_ENC;
  lanes_setup(L);
  size_t a = g;
  for (size_t i = 0;; i++) {
    while (a && (S[a - 1]->len + 15) / 16 <= i) a--;
    if (!a) break;
    for (size_t k = 0; k < a; k++) {
      const size_t r = S[k]->len % 16, m = S[k]->len / 16 - (r ? 1 : 0);
      const uint8_t *p = S[k]->in + 16 * i;
      if (i < m) { /* a plain block */
        tweak_bytes(tw, lo[k], hi[k], 0);
        xor_part(x + 16 * k, p, tw, 16, 16);
      } else if (i == m) { /* stealing, first step: block m */
        tweak_bytes(tw, lo[k], hi[k], dec);
        xor_part(x + 16 * k, p, tw, 16, 16);
      } else { /* second step: the partial block and CC's tail */
        memcpy(pp, p, r);
        memcpy(pp + r, cc + 16 * k + r, 16 - r);
        memcpy(S[k]->out + 16 * i, cc + 16 * k, r);
        tweak_bytes(tw, lo[k], hi[k], !dec);
        xor_part(x + 16 * k, pp, tw, 16, 16);
      }
    }
    lanes_crypt(L, dec ? GOSTX__MAGMA_DEC : GOSTX__MAGMA_ENC, x, a);
    for (size_t k = 0; k < a; k++) {
      const size_t r = S[k]->len % 16, m = S[k]->len / 16 - (r ? 1 : 0);
      if (i < m) {
        tweak_bytes(tw, lo[k], hi[k], 0);
        xor_part(S[k]->out + 16 * i, x + 16 * k, tw, 16, 16);
        gostx__xts_mul_alpha(&lo[k], &hi[k]);
      } else if (i == m) {
        tweak_bytes(tw, lo[k], hi[k], dec);
        xor_part(cc + 16 * k, x + 16 * k, tw, 16, 16);
      } else {
        tweak_bytes(tw, lo[k], hi[k], !dec);
        xor_part(S[k]->out + 16 * m, x + 16 * k, tw, 16, 16);
      }
    }
  }
  gostx_memzero(x, 16 * g);
  gostx_memzero(cc, 16 * g);
  gostx_memzero(lo, sizeof lo[0] * g);
  gostx_memzero(hi, sizeof hi[0] * g);
  gostx_memzero(tw, sizeof tw);
  gostx_memzero(pp, sizeof pp);
}

/* ---- GOST 28147-89: CFB, CNT, IMIT with CryptoPro key meshing ----
 * The lanes' keys are copies (keys89) that meshing replaces: before gamma
 * (MAC) block 128 j, j >= 1, every running stream's key becomes D_K(C) -
 * all at the same step, since every stream starts at block 0 - and CFB / CNT
 * re-encrypt their register under the new key. */

static void mesh_lanes(struct lanes *L, gostx_gost89_key *keys89, size_t a, uint8_t *regs) {
  uint8_t x[GOSTX_MAGMA_MK_MAX * 8], nk[GOSTX_MAGMA_MK_MAX * GOSTX_KEY_LEN];
  for (size_t q = 0; q < GOSTX_KEY_LEN / 8; q++) {
    for (size_t k = 0; k < a; k++) memcpy(x + 8 * k, gostx__gost89_mesh_c + 8 * q, 8);
    lanes_crypt(L, GOSTX__MAGMA_DEC, x, a);
    for (size_t k = 0; k < a; k++) memcpy(nk + GOSTX_KEY_LEN * k + 8 * q, x + 8 * k, 8);
  }
  for (size_t k = 0; k < a; k++)
    gostx_gost89_set_key(&keys89[k], nk + GOSTX_KEY_LEN * k, (gostx_sbox)keys89[k].sbox_id);
  lanes_clear(L);
  lanes_setup(L);
  if (regs) lanes_crypt(L, GOSTX__MAGMA_ENC, regs, a);
  gostx_memzero(x, sizeof x);
  gostx_memzero(nk, sizeof nk);
}

static void gost89_group(const struct job *j, struct lanes *L, gostx_gost89_key *keys89,
                         gostx_stream *const *S) {
  enum { PERIOD = GOSTX__GOST89_MESH_PERIOD / 8 };
  const size_t g = L->g;
  const gostx_batch_op op = j->op;
  const int imit = op == GOSTX_BATCH_GOST89_IMIT, mesh = j->p->meshing != 0;
  uint8_t x[GOSTX_MAGMA_MK_MAX * 8], reg[GOSTX_MAGMA_MK_MAX * 8], c[8];
  for (size_t k = 0; k < g; k++) {
    if (S[k]->iv) memcpy(reg + 8 * k, S[k]->iv, 8);
    else memset(reg + 8 * k, 0, 8); /* IMIT's zero start */
  }
  if (op == GOSTX_BATCH_GOST89_CNT) lanes_crypt(L, GOSTX__MAGMA_ENC, reg, g); /* (N3, N4) = E(S) */
  size_t a = g;
  for (size_t i = 0;; i++) {
    /* Steps: one per block; IMIT of a one-block message appends a zero
     * block, and an empty one takes none. */
    while (a) {
      const size_t len = S[a - 1]->len, nb = (len + 7) / 8;
      if ((imit && nb == 1 ? 2 : nb) > i) break;
      a--;
    }
    if (!a) break;
    prefetch_lanes(S, a, 8 * i, 8, !imit);
    if (mesh && i && i % PERIOD == 0) mesh_lanes(L, keys89, a, imit ? NULL : reg);
    for (size_t k = 0; k < a; k++) {
      uint8_t *r = reg + 8 * k;
      if (op == GOSTX_BATCH_GOST89_CNT) gostx__gost89_cnt_step(r);
      if (imit) { /* state ^ block (zero-padded; past the end: the zero block) */
        const size_t l = S[k]->len > 8 * i ? (S[k]->len - 8 * i < 8 ? S[k]->len - 8 * i : 8) : 0;
        memcpy(x + 8 * k, r, 8);
        xor_part(x + 8 * k, r, S[k]->in + 8 * i, l, 8);
      } else {
        memcpy(x + 8 * k, r, 8);
      }
    }
    lanes_crypt(L, imit ? GOSTX__MAGMA_IMIT : GOSTX__MAGMA_ENC, x, a);
    for (size_t k = 0; k < a; k++) {
      uint8_t *r = reg + 8 * k;
      if (imit) {
        memcpy(r, x + 8 * k, 8);
        continue;
      }
      const size_t l = S[k]->len - 8 * i < 8 ? S[k]->len - 8 * i : 8;
      const uint8_t *p = S[k]->in + 8 * i;
      uint8_t *o = S[k]->out + 8 * i;
      if (op == GOSTX_BATCH_GOST89_CFB_DECRYPT) memcpy(c, p, l);
      xor_part(o, p, x + 8 * k, l, 8);
      if (op == GOSTX_BATCH_GOST89_CFB_ENCRYPT) memcpy(r, o, l); /* feedback: ciphertext */
      else if (op == GOSTX_BATCH_GOST89_CFB_DECRYPT) memcpy(r, c, l);
    }
  }
  if (imit)
    for (size_t k = 0; k < g; k++) memcpy(S[k]->tag, reg + 8 * k, tag_len_of(j, 8));
  gostx_memzero(x, sizeof x);
  gostx_memzero(reg, sizeof reg);
  gostx_memzero(c, sizeof c);
}

/* ---- one-stream calls ---- */

static int solo(const struct job *j, gostx_stream *s) {
  const gostx_batch_params *p = j->p;
  const void *k = s->key;
  const size_t n = is_xts(j->op) ? 16 : blk(s, j->op);
  switch (j->op) {
    case GOSTX_BATCH_CBC_ENCRYPT:
      return gostx_cbc_encrypt(k, s->iv, iv_len_of(j, n), s->in, s->len, s->out);
    case GOSTX_BATCH_CBC_DECRYPT:
      return gostx_cbc_decrypt(k, s->iv, iv_len_of(j, n), s->in, s->len, s->out);
    case GOSTX_BATCH_CFB_ENCRYPT:
      return gostx_cfb_encrypt(k, s->iv, iv_len_of(j, n),n, s->in, s->len, s->out);
    case GOSTX_BATCH_CFB_DECRYPT:
      return gostx_cfb_decrypt(k, s->iv, iv_len_of(j, n),n, s->in, s->len, s->out);
    case GOSTX_BATCH_OFB:
      return gostx_ofb_crypt(k, s->iv, iv_len_of(j, n),n, s->in, s->len, s->out);
    case GOSTX_BATCH_CTR:
      return gostx_ctr_crypt(k, s->iv, n / 2, n, s->in, s->len, s->out);
    case GOSTX_BATCH_OMAC:
      return gostx_omac(k, s->in, s->len, s->tag, tag_len_of(j, n));
    case GOSTX_BATCH_OMAC_ACPKM:
      return gostx_omac_acpkm(k, p->section_len, p->master_section_len, s->in, s->len, s->tag,
                              tag_len_of(j, n));
    case GOSTX_BATCH_MGM_SEAL:
      return gostx_mgm_encrypt(k, s->iv, n, s->aad, s->aad_len, s->in, s->len,
                               s->out, s->tag, tag_len_of(j, n));
    case GOSTX_BATCH_MGM_OPEN:
      return gostx_mgm_decrypt(k, s->iv, n, s->aad, s->aad_len, s->in, s->len,
                               s->tag, tag_len_of(j, n), s->out);
    case GOSTX_BATCH_XTS_ENCRYPT: return gostx_xts_encrypt(k, s->iv, s->in, s->len, s->out);
    case GOSTX_BATCH_XTS_DECRYPT: return gostx_xts_decrypt(k, s->iv, s->in, s->len, s->out);
    case GOSTX_BATCH_GOST89_CFB_ENCRYPT:
    case GOSTX_BATCH_GOST89_CFB_DECRYPT:
      return gostx_gost89_cfb(k, s->iv, p->meshing, j->op == GOSTX_BATCH_GOST89_CFB_DECRYPT,
                              s->in, s->len, s->out);
    case GOSTX_BATCH_GOST89_CNT: return gostx_gost89_cnt(k, s->iv, p->meshing, s->in, s->len, s->out);
    case GOSTX_BATCH_GOST89_IMIT:
      return gostx_gost89_imit(k, s->iv, p->meshing, s->in, s->len, s->tag, tag_len_of(j, 8));
  }
  return GOSTX_EINVAL;
}

/* Lane form for this group's streams? Kuznyechik needs a native multi-key
 * kernel (the generic fallback is one block call per lane and step). */
static int lane_form(const struct job *j, const gostx_stream *s0) {
  if (is_gost89(j->op)) return 1;
  if (!is_xts(j->op) && ((const gostx_cipher *)s0->key)->id == GOSTX_ALG_MAGMA) return 1;
  return gostx__dispatch()->kuz->mk_init != NULL;
}

static void group_task(void *arg, size_t t) {
  const struct job *j = arg;
  const struct group *gr = &j->groups[t];
  const size_t g = gr->count;
  gostx_stream *S[LANES_MAX];
  if (g == 0) return;
  for (size_t k = 0; k < g; k++) S[k] = &j->s[j->order[gr->start + k]];
  if (!lane_form(j, S[0])) {
    for (size_t k = 0; k < g; k++) S[k]->status = solo(j, S[k]);
    return;
  }
  const void *keys[LANES_MAX];
  gostx_gost89_key keys89[GOSTX_MAGMA_MK_MAX];
  struct lanes L = {0};
  L.g = g;
  L.keys = keys;
  L.dirs = j->op == GOSTX_BATCH_CBC_DECRYPT ? GOSTX__MK_DEC : GOSTX__MK_ENC;
  if (is_gost89(j->op)) {
    L.magma = 1;
    L.n = 8;
    for (size_t k = 0; k < g; k++) {
      keys89[k] = *(const gostx_gost89_key *)S[k]->key;
      keys[k] = &keys89[k];
    }
  } else if (is_xts(j->op)) { /* the tweak keys first (xts_group) */
    L.n = 16;
    for (size_t k = 0; k < g; k++) keys[k] = &((const gostx_xts_key *)S[k]->key)->tweak;
    L.dirs = GOSTX__MK_ENC;
  } else {
    const gostx_cipher *c0 = S[0]->key;
    L.magma = c0->id == GOSTX_ALG_MAGMA;
    L.n = c0->block_len;
    for (size_t k = 0; k < g; k++) {
      const gostx_cipher *c = S[k]->key;
      keys[k] = L.magma ? (const void *)&c->u.magma : (const void *)&c->u.kuz;
    }
  }
  /* The schedules are large (Kuznyechik's ~44 KiB): only the one in use. */
  union {
    gostx_kuz_mk k;
    gostx_magma_mk m;
  } u;
  L.km = &u.k;
  L.mm = &u.m;
  lanes_setup(&L);
  for (size_t k = 0; k < g; k++) S[k]->status = GOSTX_OK; /* MGM open may say otherwise */
  switch (j->op) {
    case GOSTX_BATCH_CTR: ctr_group(&L, S); break;
    case GOSTX_BATCH_MGM_SEAL:
    case GOSTX_BATCH_MGM_OPEN: mgm_group(j, &L, S); break;
    case GOSTX_BATCH_XTS_ENCRYPT:
    case GOSTX_BATCH_XTS_DECRYPT: xts_group(j, &L, S); break;
    case GOSTX_BATCH_OMAC:
    case GOSTX_BATCH_OMAC_ACPKM: omac_group(j, &L, S); break;
    case GOSTX_BATCH_GOST89_CFB_ENCRYPT:
    case GOSTX_BATCH_GOST89_CFB_DECRYPT:
    case GOSTX_BATCH_GOST89_CNT:
    case GOSTX_BATCH_GOST89_IMIT: gost89_group(j, &L, keys89, S); break;
    default: chain_group(j, &L, S); break;
  }
  lanes_clear(&L);
  if (is_gost89(j->op)) gostx_memzero(keys89, g * sizeof keys89[0]);
}

/* ---- checks ---- */

static int gost89_key_ok(const gostx_gost89_key *k) {
  return k && k->le == 1 && k->sbox_id < GOSTX_SBOX_COUNT;
}

/* The one-stream call's argument checks, made up front. */
static int check_stream(const struct job *j, const gostx_stream *s) {
  const gostx_batch_params *p = j->p;
  const gostx_batch_op op = j->op;
  const int mac = op == GOSTX_BATCH_OMAC || op == GOSTX_BATCH_OMAC_ACPKM ||
                  op == GOSTX_BATCH_GOST89_IMIT;
  if (!s->key) return GOSTX_EINVAL;
  if (s->len && (!s->in || (!mac && !s->out))) return GOSTX_EINVAL;
  if (is_gost89(op)) {
    if (!gost89_key_ok(s->key)) return GOSTX_EINVAL;
    if (op == GOSTX_BATCH_GOST89_IMIT) {
      const size_t tl = tag_len_of(j, 8);
      if (!s->tag) return GOSTX_EINVAL;
      return tl >= 1 && tl <= 8 ? GOSTX_OK : GOSTX_ELEN;
    }
    return s->iv ? GOSTX_OK : GOSTX_EINVAL;
  }
  if (is_xts(op)) {
    if (!s->iv) return GOSTX_EINVAL;
    return s->len >= 16 ? GOSTX_OK : GOSTX_ELEN;
  }
  const gostx_cipher *c = s->key;
  if (!gostx__modes_cipher_ok(c)) return GOSTX_EINVAL;
  const size_t n = c->block_len, m = iv_len_of(j, n), tl = tag_len_of(j, n);
  switch (op) {
    case GOSTX_BATCH_CBC_ENCRYPT:
    case GOSTX_BATCH_CBC_DECRYPT:
    case GOSTX_BATCH_OFB:
      if (!s->iv || m % n || m > GOSTX_MAX_IV_LEN) return GOSTX_EINVAL;
      return op != GOSTX_BATCH_OFB && s->len % n ? GOSTX_ELEN : GOSTX_OK;
    case GOSTX_BATCH_CFB_ENCRYPT:
    case GOSTX_BATCH_CFB_DECRYPT:
      return s->iv && m >= n && m <= GOSTX_MAX_IV_LEN ? GOSTX_OK : GOSTX_EINVAL;
    case GOSTX_BATCH_CTR: return s->iv ? GOSTX_OK : GOSTX_EINVAL;
    case GOSTX_BATCH_OMAC_ACPKM:
      if (!p->section_len || p->section_len % n || !p->master_section_len ||
          p->master_section_len % n)
        return GOSTX_EINVAL;
      /* fall through */
    case GOSTX_BATCH_OMAC:
      if (!s->tag) return GOSTX_EINVAL;
      return tl >= 1 && tl <= n ? GOSTX_OK : GOSTX_ELEN;
    case GOSTX_BATCH_MGM_SEAL:
    case GOSTX_BATCH_MGM_OPEN:
      if (!s->iv || !s->tag || (s->aad_len && !s->aad)) return GOSTX_EINVAL;
      if (s->iv[0] & 0x80) return GOSTX_EINVAL;
      if (tl < 4 || tl > n || s->aad_len + s->len == 0) return GOSTX_ELEN;
      /* RFC 9058: under 2^(n/2) bits of aad + data (Magma: 2^29 bytes). */
      if (n == 8 && (s->aad_len >= (1u << 29) || s->len >= (1u << 29) - s->aad_len))
        return GOSTX_ELEN;
      return GOSTX_OK;
    default: return GOSTX_EINVAL;
  }
}

/* ---- grouping ---- */

struct sortkey {
  uint64_t cls;
  size_t len, i;
};

static int sortkey_cmp(const void *pa, const void *pb) {
  const struct sortkey *a = pa, *b = pb;
  if (a->cls != b->cls) return a->cls < b->cls ? -1 : 1;
  if (a->len != b->len) return a->len > b->len ? -1 : 1; /* longest first */
  return a->i < b->i ? -1 : a->i > b->i;
}

/* What one multi-key schedule can hold: one cipher, one S-box set. */
static uint64_t class_of(const struct job *j, const gostx_stream *s) {
  if (is_xts(j->op)) return 0;
  if (is_gost89(j->op)) return ((const gostx_gost89_key *)s->key)->sbox_id;
  return (uint64_t)((const gostx_cipher *)s->key)->id;
}

static size_t class_lanes(const struct job *j, const gostx_stream *s) {
  if (is_gost89(j->op) ||
      (!is_xts(j->op) && ((const gostx_cipher *)s->key)->id == GOSTX_ALG_MAGMA))
    return GOSTX_MAGMA_MK_MAX;
  const size_t b = gostx__dispatch()->kuz->batch;
  return b == 0 ? 64 : b > LANES_MAX ? LANES_MAX : b;
}

static int make_groups(struct job *j, size_t ns, unsigned nth) {
  struct sortkey *kv = malloc(ns * sizeof *kv);
  j->order = malloc(ns * sizeof *j->order);
  j->groups = malloc(ns * sizeof *j->groups);
  if (!kv || !j->order || !j->groups) {
    free(kv);
    return GOSTX_ENOMEM;
  }
  for (size_t i = 0; i < ns; i++) {
    kv[i].cls = class_of(j, &j->s[i]);
    /* MGM hashes both; every other op ignores aad_len (the walkers rely on
     * the group being sorted by what they process). */
    kv[i].len = j->s[i].len + (is_mgm(j->op) ? j->s[i].aad_len : 0);
    kv[i].i = i;
  }
  qsort(kv, ns, sizeof *kv, sortkey_cmp);
  size_t ng = 0;
  for (size_t i = 0, e; i < ns; i = e) {
    for (e = i + 1; e < ns && kv[e].cls == kv[i].cls;) e++;
    /* Lanes per group: the class's, fewer when that leaves threads idle. */
    size_t lanes = class_lanes(j, &j->s[kv[i].i]);
    const size_t cnt = e - i, full = lanes;
    if ((cnt + lanes - 1) / lanes < nth) {
      lanes = (cnt + nth - 1) / nth;
      if (lanes < LANES_MIN) lanes = LANES_MIN;
      if (lanes > full) lanes = full;
    }
    for (size_t p = i; p < e; p += lanes) {
      j->groups[ng].start = p;
      j->groups[ng++].count = e - p < lanes ? e - p : lanes;
    }
  }
  for (size_t i = 0; i < ns; i++) j->order[i] = kv[i].i;
  j->ngroups = ng;
  free(kv);
  return GOSTX_OK;
}

/* MGM open: GOSTX_EAUTH when any stream's tag was wrong. The statuses are
 * accept/reject bits, reported anyway (tests/ct/declassified.supp). */
static NAMED_FN int open_result(const gostx_stream *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i].status) return GOSTX_EAUTH;
  return GOSTX_OK;
}

int gostx_batch_streams(gostx_pool *pool, gostx_batch_op op, const gostx_batch_params *params,
                        gostx_stream *streams, size_t nstreams) {
  if (op < GOSTX_BATCH_CBC_ENCRYPT || op > GOSTX_BATCH_GOST89_IMIT) return GOSTX_EINVAL;
  if (!params || (nstreams && !streams)) return GOSTX_EINVAL;
  struct job j = {op, params, streams, NULL, NULL, 0};
  int rc = GOSTX_OK;
  size_t total = 0;
  for (size_t i = 0; i < nstreams; i++) {
    streams[i].status = check_stream(&j, &streams[i]);
    if (streams[i].status && !rc) rc = streams[i].status;
    total += streams[i].len;
  }
  if (rc || nstreams == 0) return rc;
  const unsigned nth = gostx_pool_size(pool);
  rc = make_groups(&j, nstreams, nth);
  if (rc == GOSTX_OK)
    rc = gostx_pool_run(total >= GOSTX_BULK_MIN / 4 ? pool : NULL, j.ngroups, group_task, &j);
  free(j.order);
  free(j.groups);
  if (rc) return rc;
  return op == GOSTX_BATCH_MGM_OPEN ? open_result(streams, nstreams) : GOSTX_OK;
}
