/* MGM (seal, open) and the GOST 28147-89 modes with CryptoPro key meshing
 * over the lanes of a group (lanes.h): the stream engine's AEAD and legacy
 * modes. */
#include "gost89/gost89_internal.h"
#include "lanes.h"
#include "mgm/mgm_internal.h"
#include "modes/modes_internal.h"

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
static GOSTX_NAMED_FN void mgm_release(struct gostx__lanes *L, gostx_stream *const *S, const int *eq,
                                 const struct mgm_lane *ln, const uint8_t *y1, uint8_t *y,
                                 uint8_t *gam, size_t n) {
  const size_t g = L->g;
  size_t nd = 0;
  for (size_t k = 0; k < g; k++) {
    S[k]->status = eq[k] == 0 ? GOSTX_OK : GOSTX_EAUTH;
    nd = ln[k].nd > nd ? ln[k].nd : nd;
  }
  memcpy(y, y1, g * n);
  for (size_t d = 0; d < nd; d++) {
    memcpy(gam, y, g * n);
    gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, gam, g);
    for (size_t k = 0; k < g; k++) {
      gostx__ctr_add(y + k * n, n, GOSTX__CTR_RIGHT, 1);
      if (eq[k] != 0 || d >= ln[k].nd) continue; /* a forged stream gets nothing */
      const size_t l = S[k]->len - d * n < n ? S[k]->len - d * n : n;
      xor_part(S[k]->out + d * n, S[k]->in + d * n, gam + k * n, l, n);
    }
  }
}

INLINE void mgm_run(const struct gostx__bjob *j, struct gostx__lanes *L, gostx_stream *const *S,
                    const size_t n) {
  const gostx__mgm_mul_acc_fn mul_acc = gostx__mgm_mul_acc_of(n);
  const int open = j->op == GOSTX_BATCH_MGM_OPEN;
  const size_t g = L->g, tl = gostx__tag_len_of(j, n);
  enum { B = GOSTX__LANES_MAX * GOSTX_MAX_BLOCK_LEN };
  uint8_t y1[B], y[B], z[B], h[B], gam[B], sum[B], blk[GOSTX_MAX_BLOCK_LEN];
  struct mgm_lane ln[GOSTX__LANES_MAX];
  for (size_t k = 0; k < g; k++) { /* Y1 = E(0 || ICN), Z1 = E(1 || ICN) */
    ln[k].na = (S[k]->aad_len + n - 1) / n;
    ln[k].nd = (S[k]->len + n - 1) / n;
    ln[k].T = ln[k].na + ln[k].nd + 1;
    memcpy(y1 + k * n, S[k]->iv, n);
    memcpy(z + k * n, S[k]->iv, n);
    z[k * n] |= 0x80;
  }
  gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, y1, g);
  gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, z, g);
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
    gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, h, a);
    if (need_y) gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, gam, a);
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
      mul_acc(sum + k * n, h + k * n, x, 1);
    }
  }
  gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, sum, g); /* the full tags */
  if (open) {
    int ok[GOSTX__LANES_MAX];
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

void gostx__lanes_mgm(const struct gostx__bjob *j, struct gostx__lanes *L, gostx_stream *const *S) {
  if (L->n == 8) mgm_run(j, L, S, 8);
  else mgm_run(j, L, S, 16);
}

/* ---- GOST 28147-89: CFB, CNT, IMIT with CryptoPro key meshing ----
 * The lanes' keys are copies (keys89) that meshing replaces: before gamma
 * (MAC) block 128 j, j >= 1, every running stream's key becomes D_K(C) -
 * all at the same step, since every stream starts at block 0 - and CFB / CNT
 * re-encrypt their register under the new key. */

static void mesh_lanes(struct gostx__lanes *L, gostx_gost89_key *keys89, size_t a, uint8_t *regs) {
  uint8_t x[GOSTX_MAGMA_MK_MAX * 8], nk[GOSTX_MAGMA_MK_MAX * GOSTX_KEY_LEN];
  for (size_t q = 0; q < GOSTX_KEY_LEN / 8; q++) {
    for (size_t k = 0; k < a; k++) memcpy(x + 8 * k, gostx__gost89_mesh_c + 8 * q, 8);
    gostx__lanes_crypt(L, GOSTX__MAGMA_DEC, x, a);
    for (size_t k = 0; k < a; k++) memcpy(nk + GOSTX_KEY_LEN * k + 8 * q, x + 8 * k, 8);
  }
  for (size_t k = 0; k < a; k++)
    gostx_gost89_set_key(&keys89[k], nk + GOSTX_KEY_LEN * k, (gostx_sbox)keys89[k].sbox_id);
  gostx__lanes_clear(L);
  gostx__lanes_setup(L);
  if (regs) gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, regs, a);
  gostx_memzero(x, sizeof x);
  gostx_memzero(nk, sizeof nk);
}

void gostx__lanes_gost89(const struct gostx__bjob *j, struct gostx__lanes *L,
                         gostx_gost89_key *keys89, gostx_stream *const *S) {
  enum { PERIOD = GOSTX__GOST89_MESH_PERIOD / 8 };
  const size_t g = L->g;
  const gostx_batch_op op = j->op;
  const int imit = op == GOSTX_BATCH_GOST89_IMIT, mesh = j->p->meshing != 0;
  uint8_t x[GOSTX_MAGMA_MK_MAX * 8], reg[GOSTX_MAGMA_MK_MAX * 8], c[8];
  for (size_t k = 0; k < g; k++) {
    if (S[k]->iv) memcpy(reg + 8 * k, S[k]->iv, 8);
    else memset(reg + 8 * k, 0, 8); /* IMIT's zero start */
  }
  if (op == GOSTX_BATCH_GOST89_CNT) /* (N3, N4) = E(S) */
    gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, reg, g);
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
    gostx__lanes_crypt(L, imit ? GOSTX__MAGMA_IMIT : GOSTX__MAGMA_ENC, x, a);
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
    for (size_t k = 0; k < g; k++) memcpy(S[k]->tag, reg + 8 * k, gostx__tag_len_of(j, 8));
  gostx_memzero(x, sizeof x);
  gostx_memzero(reg, sizeof reg);
  gostx_memzero(c, sizeof c);
}
