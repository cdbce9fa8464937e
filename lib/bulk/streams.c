/* Stream batches (include/gostx/batch.h): many messages, each with its own
 * key, IV and length, one stream per vector lane. The entry point checks
 * every stream, then offers the call to the sector engine (sector.c: streams
 * of one length); what it leaves runs here, on the stream engine.
 *
 * The streams are sorted by class (cipher, S-box set: what one multi-key
 * schedule can hold) and then by length, longest first, and cut into groups
 * of up to `lanes` streams, one pool task each. Inside a group, step i of
 * every stream's chain goes through the cipher in one multi-key call (block
 * k under stream k's key): the streams still running at step i are a
 * prefix of the group (they are the longest), so a call covers just them
 * (Magma: exactly; Kuznyechik: its schedule is rebuilt for the prefix when
 * that halves). Each mode is written once over struct gostx__lanes (lanes.h,
 * lane_modes.c, lane_aead.c), for both engines. Which streams
 * share a key, their lengths and their ciphers are public; key and data
 * values only ever go through the constant-time multi-key cores.
 *
 * Kuznyechik where the implementation has no multi-key kernel (the opt-in
 * lstable) runs the one-stream call per stream, still spread over the pool. */
#include <stdlib.h>

#include "cipher_ops.h"
#include "lanes.h"
#include "mgm/mgm_internal.h"
#include "modes/modes_internal.h"

/* The stream engine's call: what the groups share, and the groups. */
struct job {
  struct gostx__bjob b;
  gostx_stream *s;
  size_t *order; /* stream indices, grouped */
  struct gostx__group *groups;
  size_t ngroups;
};

static int is_mgm(gostx_batch_op op) {
  return op == GOSTX_BATCH_MGM_SEAL || op == GOSTX_BATCH_MGM_OPEN;
}

/* Lane form for this group's streams? Kuznyechik needs a native multi-key
 * kernel (the generic fallback is one block call per lane and step). */
static int lane_form(gostx_batch_op op, const gostx_stream *s0) {
  if (gostx__op_gost89(op)) return 1;
  if (!gostx__op_xts(op) && ((const gostx_cipher *)s0->key)->id == GOSTX_ALG_MAGMA) return 1;
  return gostx__lanes_native();
}

/* MGM: the length (AAD + data) from which a stream's own gostx_mgm_* call,
 * its blocks side by side in the wide kernels, beats a lane of the
 * multi-key path (which steps every lane a block at a time); 0: never.
 * Lengths are public. */
static size_t mgm_solo_min(const gostx_stream *s0) {
  return gostx__cipher_mgm_solo_min(s0->key);
}

/* MGM streams of a group that all name one key (the same handle: a public
 * pointer compare) go through MGM's many-message call, long ones included
 * (it streams those itself): its cipher calls serve the whole group (Y1
 * and Z1 of every stream in one, their H values and gamma in as few as its
 * buffer allows, the tags in one), where lanes step every stream a block
 * at a time (64-byte Magma-MGM messages: 717 ns a stream in lanes, ~260
 * so) and a long stream alone pays its own calls. */
static int one_key(gostx_stream *const *S, size_t g) {
  for (size_t k = 1; k < g; k++)
    if (S[k]->key != S[0]->key) return 0;
  return 1;
}

static void mgm_one_key(const struct gostx__bjob *b, gostx_stream *const *S, size_t g) {
  const gostx_cipher *c = S[0]->key;
  const int open = b->op == GOSTX_BATCH_MGM_OPEN;
  struct gostx__mgm_msg m[GOSTX__LANES_MAX];
  for (size_t k = 0; k < g; k++)
    m[k] = (struct gostx__mgm_msg){S[k]->iv, S[k]->aad, S[k]->aad_len, S[k]->in,
                                   S[k]->len, S[k]->out, S[k]->tag, 0};
  gostx__mgm_many(c, open, m, g, gostx__tag_len_of(b, c->block_len));
  for (size_t k = 0; k < g; k++) S[k]->status = m[k].status;
}

static void group_task(void *arg, size_t t) {
  const struct job *j = arg;
  const struct gostx__bjob *b = &j->b;
  const struct gostx__group *gr = &j->groups[t];
  size_t g = gr->count;
  gostx_stream *S[GOSTX__LANES_MAX];
  if (g == 0) return;
  for (size_t k = 0; k < g; k++) S[k] = &j->s[j->order[gr->start + k]];
  if (!lane_form(b->op, S[0])) {
    for (size_t k = 0; k < g; k++) S[k]->status = gostx__batch_solo(b, S[k]);
    return;
  }
  if (is_mgm(b->op) && one_key(S, g)) {
    mgm_one_key(b, S, g);
    return;
  }
  if (is_mgm(b->op)) { /* the long ones alone; the rest keep their order */
    const size_t min = mgm_solo_min(S[0]);
    size_t kept = 0;
    for (size_t k = 0; k < g; k++) {
      if (min && S[k]->aad_len + S[k]->len >= min) S[k]->status = gostx__batch_solo(b, S[k]);
      else S[kept++] = S[k];
    }
    if ((g = kept) == 0) return;
  }
  const void *keys[GOSTX__LANES_MAX];
  gostx_gost89_key keys89[GOSTX_MAGMA_MK_MAX];
  struct gostx__lanes L = {0};
  L.g = g;
  L.keys = keys;
  L.dirs = b->op == GOSTX_BATCH_CBC_DECRYPT ? GOSTX__MK_DEC : GOSTX__MK_ENC;
  if (gostx__op_gost89(b->op)) {
    L.magma = 1;
    L.n = 8;
    for (size_t k = 0; k < g; k++) {
      keys89[k] = *(const gostx_gost89_key *)S[k]->key;
      keys[k] = &keys89[k];
    }
  } else if (gostx__op_xts(b->op)) { /* the tweak keys first (gostx__lanes_xts) */
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
  gostx__lanes_setup(&L);
  gostx__lanes_run(b, &L, keys89, S);
  gostx__lanes_clear(&L);
  if (gostx__op_gost89(b->op)) gostx_memzero(keys89, g * sizeof keys89[0]);
}

/* ---- checks ---- */

static int gost89_key_ok(const gostx_gost89_key *k) {
  return k && k->le == 1 && k->sbox_id < GOSTX_SBOX_COUNT;
}

/* The one-stream call's argument checks, made up front. */
static int check_stream(const struct gostx__bjob *j, const gostx_stream *s) {
  const gostx_batch_params *p = j->p;
  const gostx_batch_op op = j->op;
  const int mac = op == GOSTX_BATCH_OMAC || op == GOSTX_BATCH_OMAC_ACPKM ||
                  op == GOSTX_BATCH_GOST89_IMIT;
  if (!s->key) return GOSTX_EINVAL;
  if (s->len && (!s->in || (!mac && !s->out))) return GOSTX_EINVAL;
  if (gostx__op_gost89(op)) {
    if (!gost89_key_ok(s->key)) return GOSTX_EINVAL;
    if (op == GOSTX_BATCH_GOST89_IMIT) {
      const size_t tl = gostx__tag_len_of(j, 8);
      if (!s->tag) return GOSTX_EINVAL;
      return tl >= 1 && tl <= 8 ? GOSTX_OK : GOSTX_ELEN;
    }
    return s->iv ? GOSTX_OK : GOSTX_EINVAL;
  }
  if (gostx__op_xts(op)) {
    if (!s->iv) return GOSTX_EINVAL;
    return s->len >= 16 ? GOSTX_OK : GOSTX_ELEN;
  }
  const gostx_cipher *c = s->key;
  if (!gostx__modes_cipher_ok(c)) return GOSTX_EINVAL;
  const size_t n = c->block_len, m = gostx__iv_len_of(j, n), tl = gostx__tag_len_of(j, n);
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

/* What one multi-key schedule can hold: one cipher, one S-box set. */
static uint64_t class_of(gostx_batch_op op, const gostx_stream *s) {
  if (gostx__op_xts(op)) return 0;
  if (gostx__op_gost89(op)) return ((const gostx_gost89_key *)s->key)->sbox_id;
  return (uint64_t)((const gostx_cipher *)s->key)->id;
}

static size_t class_lanes(gostx_batch_op op, const gostx_stream *s) {
  if (gostx__op_gost89(op) ||
      (!gostx__op_xts(op) && ((const gostx_cipher *)s->key)->id == GOSTX_ALG_MAGMA))
    return GOSTX_MAGMA_MK_MAX;
  return gostx__kuz_lanes();
}

/* Bursts of up to SMALL_BATCH streams (a tunnel's 32 packets) group on the
 * caller's stack: no allocation per call. */
#define SMALL_BATCH 64
struct small_index {
  struct gostx__sortkey kv[SMALL_BATCH];
  size_t order[SMALL_BATCH];
  struct gostx__group groups[SMALL_BATCH];
};

/* kv: scratch of ns entries; j->order and j->groups: ns entries each. */
static void make_groups(struct job *j, struct gostx__sortkey *kv, size_t ns, unsigned nth) {
  const gostx_batch_op op = j->b.op;
  for (size_t i = 0; i < ns; i++) {
    kv[i].cls = class_of(op, &j->s[i]);
    /* MGM hashes both; every other op ignores aad_len (the walkers rely on
     * the group being sorted by what they process). */
    kv[i].len = j->s[i].len + (is_mgm(op) ? j->s[i].aad_len : 0);
    kv[i].i = i;
  }
  gostx__lanes_sort(kv, ns);
  size_t ng = 0;
  for (size_t i = 0, e; i < ns; i = e) {
    for (e = i + 1; e < ns && kv[e].cls == kv[i].cls;) e++;
    const size_t lanes = gostx__lanes_fit(e - i, class_lanes(op, &j->s[kv[i].i]), nth);
    ng = gostx__groups_cut(j->groups, ng, i, e - i, lanes, 1);
  }
  for (size_t i = 0; i < ns; i++) j->order[i] = kv[i].i;
  j->ngroups = ng;
}

/* MGM open: GOSTX_EAUTH when any stream's tag was wrong. The statuses are
 * accept/reject bits, reported anyway (tests/ct/declassified.supp). */
static GOSTX_NAMED_FN int open_result(const gostx_stream *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i].status) return GOSTX_EAUTH;
  return GOSTX_OK;
}

int gostx_batch_streams(gostx_pool *pool, gostx_batch_op op, const gostx_batch_params *params,
                        gostx_stream *streams, size_t nstreams) {
  if (op < GOSTX_BATCH_CBC_ENCRYPT || op > GOSTX_BATCH_GOST89_IMIT) return GOSTX_EINVAL;
  if (!params || (nstreams && !streams)) return GOSTX_EINVAL;
  struct job j = {{op, params}, streams, NULL, NULL, 0};
  int rc = GOSTX_OK;
  size_t total = 0;
  for (size_t i = 0; i < nstreams; i++) {
    streams[i].status = check_stream(&j.b, &streams[i]);
    if (streams[i].status && !rc) rc = streams[i].status;
    total += streams[i].len;
  }
  if (rc || nstreams == 0) return rc;
  if (gostx__sector_try(pool, &j.b, streams, nstreams, &rc)) return rc;
  const unsigned nth = gostx_pool_size(pool);
  struct small_index small;
  struct gostx__sortkey *kv = small.kv;
  if (nstreams <= SMALL_BATCH) {
    j.order = small.order;
    j.groups = small.groups;
  } else {
    kv = malloc(nstreams * sizeof *kv);
    j.order = malloc(nstreams * sizeof *j.order);
    j.groups = malloc(nstreams * sizeof *j.groups);
    if (!kv || !j.order || !j.groups) rc = GOSTX_ENOMEM;
  }
  if (rc == GOSTX_OK) {
    make_groups(&j, kv, nstreams, nth);
    rc = gostx_pool_run(total >= GOSTX_BULK_MIN / 4 ? pool : NULL, j.ngroups, group_task, &j);
  }
  if (nstreams > SMALL_BATCH) {
    free(kv);
    free(j.order);
    free(j.groups);
  }
  if (rc) return rc;
  return op == GOSTX_BATCH_MGM_OPEN ? open_result(streams, nstreams) : GOSTX_OK;
}
