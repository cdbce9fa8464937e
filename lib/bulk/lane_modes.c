/* The chain modes (CBC, CFB, OFB), CTR, OMAC (and OMAC-ACPKM) and XTS over
 * the lanes of a group (lanes.h), for both batch engines. Step i of every
 * running stream goes through the cipher in one call; the running streams
 * are a prefix of the group (it is sorted longest first). */
#include <stdlib.h>

#include "lanes.h"
#include "modes/modes_internal.h"

/* ---- chain modes on a register: CBC, CFB, OFB ----
 * reg_k holds the last m bytes of the chain (IV, then ciphertext, or for OFB
 * the gamma); the cipher input of a step is its first n bytes, and the
 * step's ciphertext (gamma) is shifted in. Steps go forward; in place is
 * safe because a step reads its input block before writing its output. */

INLINE void chain_steps(struct gostx__lanes *L, gostx_stream *const *S, const gostx_batch_op op,
                        const size_t n, const size_t m) {
  const size_t g = L->g, z = m / n;
  const int cbc = op == GOSTX_BATCH_CBC_ENCRYPT || op == GOSTX_BATCH_CBC_DECRYPT;
  uint8_t x[GOSTX__LANES_MAX * GOSTX_MAX_BLOCK_LEN], reg[GOSTX__LANES_MAX * GOSTX_MAX_IV_LEN];
  uint8_t c[GOSTX_MAX_BLOCK_LEN];
  /* CBC encryption chains from its own output (C_{i-z}, or the IV): no register */
  if (op != GOSTX_BATCH_CBC_ENCRYPT)
    for (size_t k = 0; k < g; k++) memcpy(reg + k * m, S[k]->iv, m);
  size_t a = g;
  for (size_t i = 0;; i++) {
    while (a && (S[a - 1]->len + n - 1) / n <= i) a--; /* streams still running */
    if (!a) break;
    prefetch_lanes(S, a, i * n, n, 1);
    for (size_t k = 0; k < a; k++) {
      const uint8_t *p = S[k]->in + i * n;
      if (op == GOSTX_BATCH_CBC_ENCRYPT)
        xor_part(x + k * n, p, i < z ? S[k]->iv + i * n : S[k]->out + (i - z) * n, n, n);
      else if (op == GOSTX_BATCH_CBC_DECRYPT) memcpy(x + k * n, p, n);
      else memcpy(x + k * n, reg + k * m, n);
    }
    gostx__lanes_crypt(L, op == GOSTX_BATCH_CBC_DECRYPT ? GOSTX__MAGMA_DEC : GOSTX__MAGMA_ENC, x,
                       a);
    for (size_t k = 0; k < a; k++) {
      const uint8_t *p = S[k]->in + i * n;
      uint8_t *o = S[k]->out + i * n, *r = reg + k * m, *y = x + k * n;
      if (op == GOSTX_BATCH_CBC_ENCRYPT) {
        memcpy(o, y, n);
        continue;
      }
      /* CBC takes whole blocks; the others may end on a short one */
      const size_t l = cbc || S[k]->len - i * n >= n ? n : S[k]->len - i * n;
      const uint8_t *next; /* what enters the register */
      switch (op) {
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
  if (op != GOSTX_BATCH_CBC_ENCRYPT) gostx_memzero(reg, g * m);
  gostx_memzero(c, sizeof c);
}

/* Each op with constant sizes for the usual shapes (m = n); the rest generic. */
INLINE void chain_op(struct gostx__lanes *L, gostx_stream *const *S, const gostx_batch_op op,
                     size_t n, size_t m) {
  if (n == 8 && m == 8) chain_steps(L, S, op, 8, 8);
  else if (n == 16 && m == 16) chain_steps(L, S, op, 16, 16);
  else chain_steps(L, S, op, n, m);
}

void gostx__lanes_chain(const struct gostx__bjob *j, struct gostx__lanes *L,
                        gostx_stream *const *S) {
  const size_t n = L->n, m = gostx__iv_len_of(j, n);
  switch (j->op) {
    case GOSTX_BATCH_CBC_ENCRYPT: chain_op(L, S, GOSTX_BATCH_CBC_ENCRYPT, n, m); break;
    case GOSTX_BATCH_CBC_DECRYPT: chain_op(L, S, GOSTX_BATCH_CBC_DECRYPT, n, m); break;
    case GOSTX_BATCH_CFB_ENCRYPT: chain_op(L, S, GOSTX_BATCH_CFB_ENCRYPT, n, m); break;
    case GOSTX_BATCH_CFB_DECRYPT: chain_op(L, S, GOSTX_BATCH_CFB_DECRYPT, n, m); break;
    default: chain_op(L, S, GOSTX_BATCH_OFB, n, m); break;
  }
}

/* CTR: counter IV || 0^{n/2} per stream, stepped by one per block. */
INLINE void ctr_steps(struct gostx__lanes *L, gostx_stream *const *S, const size_t n) {
  const size_t g = L->g;
  uint8_t x[GOSTX__LANES_MAX * GOSTX_MAX_BLOCK_LEN], ctr[GOSTX__LANES_MAX * GOSTX_MAX_BLOCK_LEN];
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
    gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, x, a);
    for (size_t k = 0; k < a; k++) {
      const size_t l = S[k]->len - i * n < n ? S[k]->len - i * n : n;
      xor_part(S[k]->out + i * n, S[k]->in + i * n, x + k * n, l, n);
    }
  }
  gostx_memzero(x, g * n);
  gostx_memzero(ctr, g * n);
}

void gostx__lanes_ctr(struct gostx__lanes *L, gostx_stream *const *S) {
  if (L->n == 8) ctr_steps(L, S, 8);
  else ctr_steps(L, S, 16);
}

/* OMAC: stream k takes before_k = (len - 1) / n plain steps, then the padded
 * last block with K1 (full) or K2 (partial; the empty message is one). */

static size_t omac_steps(const gostx_stream *s, size_t n) {
  return (s->len ? (s->len - 1) / n : 0) + 1;
}

/* OMAC-ACPKM (RFC 8645 6.3.6): per stream the key material stream km
 * (CTR-ACPKM under the master key, IV 1^{n/2}) and the section's cipher sc;
 * every running stream opens a section at the same step (block i with
 * i n a multiple of N), when the schedule is rebuilt over the new keys. */
struct acpkm_lanes {
  gostx_mode_ctx km[GOSTX__LANES_MAX];
  gostx_cipher sc[GOSTX__LANES_MAX];
};

static void acpkm_section(const struct gostx__bjob *j, struct gostx__lanes *L,
                          struct acpkm_lanes *A, gostx_stream *const *S, size_t a, uint8_t *k1,
                          size_t n) {
  uint8_t m[GOSTX_KEY_LEN + GOSTX_MAX_BLOCK_LEN];
  (void)j;
  for (size_t k = 0; k < a; k++) {
    memset(m, 0, sizeof m);
    gostx__ctr_bytes(&A->km[k], m, m, GOSTX_KEY_LEN + n); /* K^i || K1^i */
    gostx_cipher_init(&A->sc[k], (gostx_alg)((const gostx_cipher *)S[k]->key)->id, m);
    memcpy(k1 + k * n, m + GOSTX_KEY_LEN, n);
    L->keys[k] = L->magma ? (const void *)&A->sc[k].u.magma : (const void *)&A->sc[k].u.kuz;
  }
  gostx__lanes_clear(L);
  gostx__lanes_setup(L);
  gostx_memzero(m, sizeof m);
}

/* Plain OMAC (A NULL): K1 = dbl(E_k(0)) per stream; with ACPKM the
 * sections' K1^i. The last block takes K1 when full, else K2 = dbl(K1). */
INLINE void omac_run(const struct gostx__bjob *j, struct gostx__lanes *L, gostx_stream *const *S,
                     const size_t n, struct acpkm_lanes *A) {
  const size_t g = L->g, tl = gostx__tag_len_of(j, n), N = j->p->section_len;
  uint8_t st[GOSTX__LANES_MAX * GOSTX_MAX_BLOCK_LEN], k1[GOSTX__LANES_MAX * GOSTX_MAX_BLOCK_LEN];
  uint8_t pad[GOSTX_MAX_BLOCK_LEN], sub[GOSTX_MAX_BLOCK_LEN];
  if (!A) {
    memset(k1, 0, g * n);
    gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, k1, g); /* E_k(0) */
    for (size_t k = 0; k < g; k++) gostx__omac_dbl(k1 + k * n, k1 + k * n, n);
  }
  memset(st, 0, g * n);
  size_t a = g;
  for (size_t i = 0;; i++) {
    while (a && omac_steps(S[a - 1], n) <= i) a--;
    if (!a) break;
    prefetch_lanes(S, a, i * n, n, 0);
    if (A && (i * n) % N == 0) acpkm_section(j, L, A, S, a, k1, n);
    /* Before the shortest running stream's last block: a plain step for all */
    const size_t k0 = i + 1 < omac_steps(S[a - 1], n) ? a : 0;
    for (size_t k = 0; k < k0; k++) xor_part(st + k * n, st + k * n, S[k]->in + i * n, n, n);
    for (size_t k = k0; k < a; k++) {
      const size_t before = omac_steps(S[k], n) - 1;
      if (i < before) {
        xor_part(st + k * n, st + k * n, S[k]->in + i * n, n, n);
      } else { /* the last block: padded, with its subkey */
        const size_t last = S[k]->len - before * n;
        memset(pad, 0, n);
        if (last) memcpy(pad, S[k]->in + before * n, last);
        if (last < n) pad[last] = 0x80;
        if (last == n) memcpy(sub, k1 + k * n, n);
        else gostx__omac_dbl(sub, k1 + k * n, n);
        gostx_xor(st + k * n, st + k * n, pad, n);
        gostx_xor(st + k * n, st + k * n, sub, n);
      }
    }
    gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, st, a); /* the states, in place */
    for (size_t k = 0; k < a; k++)
      if (i == omac_steps(S[k], n) - 1) memcpy(S[k]->tag, st + k * n, tl);
  }
  gostx_memzero(st, g * n);
  gostx_memzero(k1, g * n);
  gostx_memzero(pad, sizeof pad);
  gostx_memzero(sub, sizeof sub);
}

void gostx__lanes_omac(const struct gostx__bjob *j, struct gostx__lanes *L,
                       gostx_stream *const *S) {
  struct acpkm_lanes *A = NULL;
  if (j->op == GOSTX_BATCH_OMAC_ACPKM) {
    uint8_t iv[GOSTX_MAX_BLOCK_LEN / 2];
    memset(iv, 0xff, sizeof iv); /* ACPKM-Master: IV = 1^{n/2} */
    A = malloc(sizeof *A);
    if (!A) { /* no memory for the key streams: the one-stream calls */
      for (size_t k = 0; k < L->g; k++) S[k]->status = gostx__batch_solo(j, S[k]);
      return;
    }
    for (size_t k = 0; k < L->g; k++)
      gostx_mode_init(&A->km[k], S[k]->key, GOSTX_MODE_CTR_ACPKM, 0, iv, L->n / 2, 0,
                      GOSTX_PAD_NONE, j->p->master_section_len);
  }
  if (L->n == 8) omac_run(j, L, S, 8, A);
  else omac_run(j, L, S, 16, A);
  if (A) {
    gostx__lanes_clear(L); /* the schedule points into A; group_task clears it again */
    for (size_t k = 0; k < L->g; k++) gostx_mode_clear(&A->km[k]);
    gostx_memzero(A->sc, L->g * sizeof A->sc[0]);
    free(A);
  }
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

void gostx__lanes_xts(const struct gostx__bjob *j, struct gostx__lanes *L, gostx_stream *const *S) {
  const int dec = j->op == GOSTX_BATCH_XTS_DECRYPT;
  const size_t g = L->g;
  uint8_t x[GOSTX__LANES_MAX * 16], cc[GOSTX__LANES_MAX * 16], tw[16], pp[16];
  uint64_t lo[GOSTX__LANES_MAX], hi[GOSTX__LANES_MAX];
  for (size_t k = 0; k < g; k++) memcpy(x + 16 * k, S[k]->iv, 16);
  gostx__lanes_crypt(L, GOSTX__MAGMA_ENC, x, g); /* T_0 under the tweak keys */
  for (size_t k = 0; k < g; k++) {
    lo[k] = gostx_load64_le(x + 16 * k);
    hi[k] = gostx_load64_le(x + 16 * k + 8);
    L->keys[k] = &((const gostx_xts_key *)S[k]->key)->data;
  }
  gostx__lanes_clear(L);
  L->dirs = dec ? GOSTX__MK_DEC : GOSTX__MK_ENC;
  gostx__lanes_setup(L);
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
    gostx__lanes_crypt(L, dec ? GOSTX__MAGMA_DEC : GOSTX__MAGMA_ENC, x, a);
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
