/* Stream batches (gostx_batch_streams): every op equals the one-stream call
 * for each stream, for random stream counts 1..300, random lengths (mostly
 * 40 B..1 KiB, a quarter up to 9 KiB, so GOST 28147-89 meshing happens at
 * several points), random keys (Kuznyechik and Magma mixed, GOST 28147-89
 * S-box sets mixed, some streams sharing a key), in place and out of place,
 * pools of 1..4 threads and none. MGM open: forged streams (tag, ciphertext
 * or AAD changed) report GOSTX_EAUTH each, their out is untouched, the rest
 * open. A bad stream fails the whole call before anything is written.
 * Streams of one length (the sector engine) in every layout. MGM streams
 * that all name one key (the engine's many-message route, lib/bulk/
 * streams.c), Kuznyechik and Magma, sealed, opened and forged. Run at
 * every implementation level by ctest. */
#include <stdlib.h>

#include "sector_batch.h"
#include "testutil.h"

#define MAXS 300
#define MAXLEN 9216

static gostx_pool *pools[4]; /* NULL, 1, 2, 4 threads */
static const unsigned pool_sizes[4] = {0, 1, 2, 4};

static gostx_cipher ciphers[64];
static gostx_gost89_key keys89[64];
static gostx_xts_key xkeys[16];

static uint8_t *src[MAXS], *want[MAXS], *got[MAXS], *aad[MAXS];
static uint8_t ivs[MAXS][64], wtag[MAXS][17], gtag[MAXS][17];
static gostx_stream st[MAXS];
static int wrc[MAXS];
static int one_key = -1; /* >= 0: every stream under ciphers[one_key] */

static const char *op_name(gostx_batch_op op) {
  static const char *const names[] = {
      "?", "cbc-enc", "cbc-dec", "cfb-enc", "cfb-dec", "ofb", "ctr", "omac", "omac-acpkm",
      "mgm-seal", "mgm-open", "xts-enc", "xts-dec", "gost89-cfb-enc", "gost89-cfb-dec",
      "gost89-cnt", "gost89-imit"};
  return names[op];
}

static int is89(gostx_batch_op op) { return op >= GOSTX_BATCH_GOST89_CFB_ENCRYPT; }
static int is_xts(gostx_batch_op op) {
  return op == GOSTX_BATCH_XTS_ENCRYPT || op == GOSTX_BATCH_XTS_DECRYPT;
}
static int is_mac(gostx_batch_op op) {
  return op == GOSTX_BATCH_OMAC || op == GOSTX_BATCH_OMAC_ACPKM || op == GOSTX_BATCH_GOST89_IMIT;
}

/* The one-stream call the op names, for stream s (out: o, tag: t). */
static int one(gostx_batch_op op, const gostx_batch_params *p, const gostx_stream *s, uint8_t *o,
               uint8_t *t) {
  const size_t n = is89(op) ? 8 : is_xts(op) ? 16 : ((const gostx_cipher *)s->key)->block_len;
  const size_t m = p->iv_len ? p->iv_len : n;
  const size_t tl = p->tag_len ? p->tag_len : op == GOSTX_BATCH_GOST89_IMIT ? 4 : n;
  switch (op) {
    case GOSTX_BATCH_CBC_ENCRYPT: return gostx_cbc_encrypt(s->key, s->iv, m, s->in, s->len, o);
    case GOSTX_BATCH_CBC_DECRYPT: return gostx_cbc_decrypt(s->key, s->iv, m, s->in, s->len, o);
    case GOSTX_BATCH_CFB_ENCRYPT: return gostx_cfb_encrypt(s->key, s->iv, m, n, s->in, s->len, o);
    case GOSTX_BATCH_CFB_DECRYPT: return gostx_cfb_decrypt(s->key, s->iv, m, n, s->in, s->len, o);
    case GOSTX_BATCH_OFB: return gostx_ofb_crypt(s->key, s->iv, m, n, s->in, s->len, o);
    case GOSTX_BATCH_CTR: return gostx_ctr_crypt(s->key, s->iv, n / 2, n, s->in, s->len, o);
    case GOSTX_BATCH_OMAC: return gostx_omac(s->key, s->in, s->len, t, tl);
    case GOSTX_BATCH_OMAC_ACPKM:
      return gostx_omac_acpkm(s->key, p->section_len, p->master_section_len, s->in, s->len, t, tl);
    case GOSTX_BATCH_MGM_SEAL:
      return gostx_mgm_encrypt(s->key, s->iv, s->aad, s->aad_len, s->in, s->len, o, t, tl);
    case GOSTX_BATCH_MGM_OPEN:
      return gostx_mgm_decrypt(s->key, s->iv, s->aad, s->aad_len, s->in, s->len, s->tag, tl, o);
    case GOSTX_BATCH_XTS_ENCRYPT: return gostx_xts_encrypt(s->key, s->iv, s->in, s->len, o);
    case GOSTX_BATCH_XTS_DECRYPT: return gostx_xts_decrypt(s->key, s->iv, s->in, s->len, o);
    case GOSTX_BATCH_GOST89_CFB_ENCRYPT:
      return gostx_gost89_cfb(s->key, s->iv, p->meshing, 0, s->in, s->len, o);
    case GOSTX_BATCH_GOST89_CFB_DECRYPT:
      return gostx_gost89_cfb(s->key, s->iv, p->meshing, 1, s->in, s->len, o);
    case GOSTX_BATCH_GOST89_CNT: return gostx_gost89_cnt(s->key, s->iv, p->meshing, s->in, s->len, o);
    case GOSTX_BATCH_GOST89_IMIT:
      return gostx_gost89_imit(s->key, s->iv, p->meshing, s->in, s->len, t, tl);
  }
  return -100;
}

static size_t rand_len(void) {
  return 40 + t_rand_below(t_rand_below(4) == 0 ? MAXLEN - 40 + 1 : 1024 - 40 + 1);
}

/* Fills streams 0..ns-1 for op with random keys, IVs, data; the MGM open
 * streams are sealed first (so that they open). */
static void make_streams(gostx_batch_op op, const gostx_batch_params *p, size_t ns) {
  const int share = t_rand_below(3) == 0; /* a few keys for all streams */
  for (size_t i = 0; i < ns; i++) {
    gostx_stream *s = &st[i];
    memset(s, 0, sizeof *s);
    const size_t ki = one_key >= 0 ? (size_t)one_key : share ? t_rand_below(3) : t_rand_below(64);
    size_t n;
    if (is89(op)) {
      s->key = &keys89[ki];
      n = 8;
    } else if (is_xts(op)) {
      s->key = &xkeys[ki % 16];
      n = 16;
    } else {
      s->key = &ciphers[ki];
      n = ciphers[ki].block_len;
    }
    size_t len = rand_len();
    if (op == GOSTX_BATCH_CBC_ENCRYPT || op == GOSTX_BATCH_CBC_DECRYPT) len -= len % n;
    if (t_rand_below(16) == 0 && !is_xts(op) && op != GOSTX_BATCH_MGM_SEAL &&
        op != GOSTX_BATCH_MGM_OPEN)
      len = t_rand_below(3) * n / 2; /* 0, n/2 or n bytes: the short ends */
    if (op == GOSTX_BATCH_CBC_ENCRYPT || op == GOSTX_BATCH_CBC_DECRYPT) len -= len % n;
    /* MGM: some streams with AAD + data right at the lengths where the
     * engine gives a stream its own MGM call instead of a lane (the
     * implementations' mgm_solo_min: 512, 1024, 4096), one byte either side */
    size_t edge_aad = SIZE_MAX;
    if ((op == GOSTX_BATCH_MGM_SEAL || op == GOSTX_BATCH_MGM_OPEN) && t_rand_below(6) == 0) {
      static const size_t edge[] = {511, 512, 513, 1023, 1024, 1025, 4095, 4096, 4097};
      edge_aad = t_rand_below(3) ? t_rand_below(100) : 0;
      len = edge[t_rand_below(sizeof edge / sizeof edge[0])] - edge_aad;
    }
    s->len = len;
    t_rand_bytes(src[i], len);
    s->in = src[i];
    t_rand_bytes(ivs[i], sizeof ivs[i]);
    ivs[i][0] &= 0x7f; /* MGM nonces */
    s->iv = op == GOSTX_BATCH_GOST89_IMIT && t_rand_below(2) ? NULL : ivs[i];
    if (op == GOSTX_BATCH_MGM_SEAL || op == GOSTX_BATCH_MGM_OPEN) {
      s->aad_len = edge_aad != SIZE_MAX ? edge_aad : t_rand_below(3) ? t_rand_below(100) : 0;
      t_rand_bytes(aad[i], s->aad_len);
      s->aad = aad[i];
    } else if (t_rand_below(2)) { /* ignored outside MGM: must change nothing */
      s->aad_len = t_rand_below(100);
      s->aad = aad[i];
    }
    if (op == GOSTX_BATCH_MGM_OPEN) { /* seal into src in place, keep the tag */
      const size_t tl = p->tag_len ? p->tag_len : n;
      gostx_mgm_encrypt(s->key, s->iv, s->aad, s->aad_len, src[i], len, src[i], wtag[i], tl);
      memcpy(gtag[i], wtag[i], 16);
      s->tag = gtag[i];
    }
  }
}

static void check_op(gostx_batch_op op, size_t pi, int in_place) {
  gostx_batch_params p = {0};
  if (op <= GOSTX_BATCH_OFB && t_rand_below(2)) /* a multiple of both block lengths */
    p.iv_len = op == GOSTX_BATCH_CFB_ENCRYPT || op == GOSTX_BATCH_CFB_DECRYPT ? 40 : 32;
  if (t_rand_below(2)) p.tag_len = op == GOSTX_BATCH_MGM_SEAL || op == GOSTX_BATCH_MGM_OPEN ? 4 + t_rand_below(5) : 1 + t_rand_below(8);
  p.section_len = 32;
  p.master_section_len = 96;
  p.meshing = (int)t_rand_below(2);
  const size_t ns = 1 + t_rand_below(MAXS);
  make_streams(op, &p, ns);
  for (size_t i = 0; i < ns; i++) {
    memset(want[i], 0x5a, MAXLEN);
    memset(wtag[i], 0x5a, 17);
    wrc[i] = one(op, &p, &st[i], want[i], wtag[i]);
    memset(gtag[i], 0xc3, op == GOSTX_BATCH_MGM_OPEN ? 0 : 17);
    if (in_place) {
      memcpy(got[i], src[i], st[i].len);
      memset(got[i] + st[i].len, 0x5a, MAXLEN - st[i].len);
      st[i].in = got[i];
    } else {
      memset(got[i], 0x5a, MAXLEN);
    }
    st[i].out = is_mac(op) ? NULL : got[i];
    if (op != GOSTX_BATCH_MGM_OPEN) st[i].tag = gtag[i];
  }
  const int rc = gostx_batch_streams(pools[pi], op, &p, st, ns);
  CHECK(rc == GOSTX_OK, "%s: rc %d, %zu streams, pool %u%s", op_name(op), rc, ns,
        pool_sizes[pi], in_place ? " in place" : "");
  size_t bad = 0;
  for (size_t i = 0; i < ns; i++) {
    /* The tag length (MACs and MGM seal; the 1989 ops' keys are no gostx_cipher). */
    const size_t tl = p.tag_len ? p.tag_len : op == GOSTX_BATCH_GOST89_IMIT ? 4
                      : is_xts(op) || is89(op)
                          ? 0
                          : ((const gostx_cipher *)st[i].key)->block_len;
    int ok = st[i].status == wrc[i] && wrc[i] == GOSTX_OK;
    if (is_mac(op)) ok = ok && !memcmp(gtag[i], wtag[i], tl) && gtag[i][tl] == 0xc3;
    else ok = ok && !memcmp(got[i], want[i], MAXLEN); /* the bytes past len untouched too */
    if (op == GOSTX_BATCH_MGM_SEAL) ok = ok && !memcmp(gtag[i], wtag[i], tl);
    if (!ok && bad++ < 3)
      CHECK(0, "%s stream %zu of %zu (len %zu) differs from the one-stream call (pool %u%s)",
            op_name(op), i, ns, st[i].len, pool_sizes[pi], in_place ? ", in place" : "");
  }
  CHECK(bad == 0, "%s: %zu of %zu streams equal the one-stream call, pool %u%s", op_name(op),
        ns - bad, ns, pool_sizes[pi], in_place ? ", in place" : "");
}

/* MGM open with forgeries: each forged stream fails alone, out untouched. */
static void check_forged(size_t pi, int in_place) {
  gostx_batch_params p = {0};
  const size_t ns = 1 + t_rand_below(MAXS);
  make_streams(GOSTX_BATCH_MGM_OPEN, &p, ns);
  int forged[MAXS];
  size_t nf = 0;
  for (size_t i = 0; i < ns; i++) {
    gostx_stream *s = &st[i];
    const size_t n = ((const gostx_cipher *)s->key)->block_len;
    wrc[i] = gostx_mgm_decrypt(s->key, s->iv, s->aad, s->aad_len, s->in, s->len, s->tag, n,
                               want[i]);
    CHECK(wrc[i] == GOSTX_OK, "MGM sealed stream opens alone");
    forged[i] = t_rand_below(3) == 0;
    if (forged[i]) {
      nf++;
      switch (t_rand_below(3)) {
        case 0: gtag[i][t_rand_below(n)] ^= (uint8_t)(1 + t_rand_below(255)); break;
        case 1:
          if (s->len) {
            src[i][t_rand_below(s->len)] ^= 0x01;
            break;
          }
          __attribute__((fallthrough)); /* no data to change */
        default:
          if (s->aad_len) aad[i][t_rand_below(s->aad_len)] ^= 0x80;
          else gtag[i][0] ^= 0x40;
      }
    }
    if (in_place) {
      memcpy(got[i], src[i], s->len);
      s->in = got[i];
    } else {
      memset(got[i], 0xa5, s->len);
    }
    s->out = got[i];
  }
  const int rc = gostx_batch_streams(pools[pi], GOSTX_BATCH_MGM_OPEN, &p, st, ns);
  CHECK(rc == (nf ? GOSTX_EAUTH : GOSTX_OK), "MGM open: rc %d with %zu forged of %zu", rc, nf,
        ns);
  size_t bad = 0;
  for (size_t i = 0; i < ns; i++) {
    const size_t len = st[i].len;
    int ok;
    if (forged[i]) {
      ok = st[i].status == GOSTX_EAUTH;
      if (in_place) ok = ok && !memcmp(got[i], src[i], len); /* the ciphertext stays */
      else for (size_t b = 0; b < len; b++) ok = ok && got[i][b] == 0xa5;
    } else {
      ok = st[i].status == GOSTX_OK && !memcmp(got[i], want[i], len);
    }
    if (!ok && bad++ < 3) CHECK(0, "MGM open stream %zu (forged %d)", i, forged[i]);
  }
  CHECK(bad == 0, "MGM open: every stream as expected (%zu forged of %zu, pool %u%s)", nf, ns,
        pool_sizes[pi], in_place ? ", in place" : "");
}

/* A bad stream: the call fails with its error and writes nothing. */
static void check_refused(void) {
  gostx_batch_params p = {0};
  const size_t ns = 40;
  make_streams(GOSTX_BATCH_CBC_ENCRYPT, &p, ns);
  for (size_t i = 0; i < ns; i++) {
    memset(got[i], 0x77, MAXLEN);
    st[i].out = got[i];
  }
  st[17].len += 3; /* not a multiple of the block */
  CHECK(gostx_batch_streams(pools[3], GOSTX_BATCH_CBC_ENCRYPT, &p, st, ns) == GOSTX_ELEN,
        "a stream of a bad length fails the call");
  int untouched = 1;
  for (size_t i = 0; i < ns; i++)
    for (size_t b = 0; b < MAXLEN; b++) untouched &= got[i][b] == 0x77;
  CHECK(untouched && st[17].status == GOSTX_ELEN && st[16].status == GOSTX_OK,
        "nothing written, the bad stream named");
  st[17].len -= 3;
  st[5].key = NULL;
  CHECK(gostx_batch_streams(NULL, GOSTX_BATCH_CBC_ENCRYPT, &p, st, ns) == GOSTX_EINVAL,
        "a NULL key fails the call");
  CHECK(gostx_batch_streams(NULL, (gostx_batch_op)99, &p, st, ns) == GOSTX_EINVAL, "unknown op");
  CHECK(gostx_batch_streams(NULL, GOSTX_BATCH_CTR, NULL, st, ns) == GOSTX_EINVAL, "no params");
  CHECK(gostx_batch_streams(NULL, GOSTX_BATCH_CTR, &p, NULL, 0) == GOSTX_OK, "no streams");
}

/* Magma streams of one length, a key per stream: the sector engine leaves
 * them to the stream engine (lib/bulk/sector.c): the same bytes as one call
 * per sector. */
static void check_sector_calls(size_t pi) {
  enum { NS = 150, SL = 512 };
  static uint8_t in[NS * SL], sw[NS * SL], sg[NS * SL], iv[NS * 16], tw[NS * 8], tg[NS * 8];
  const gostx_cipher *kp[NS];
  for (size_t i = 0; i < NS; i++) kp[i] = &ciphers[2 * (i % 32) + 1]; /* the Magma keys */
  t_rand_bytes(in, sizeof in);
  t_rand_bytes(iv, sizeof iv);
  for (int op = 0; op < 4; op++) {
    for (size_t i = 0; i < NS; i++) {
      const uint8_t *x = in + i * SL;
      uint8_t *w = sw + i * SL;
      if (op == 0) gostx_cbc_encrypt(kp[i], iv + 16 * i, 16, x, SL, w);
      if (op == 1) gostx_cbc_decrypt(kp[i], iv + 16 * i, 16, x, SL, w);
      if (op == 2) gostx_ctr_crypt(kp[i], iv + 4 * i, 4, 8, x, SL, w);
      if (op == 3) gostx_omac(kp[i], x, SL, tw + 8 * i, 8);
    }
    int rc = -100;
    memcpy(sg, in, sizeof sg); /* in place */
    if (op == 0) rc = sectors_cbc_encrypt(pools[pi], kp, NS, iv, 16, sg, SL, NS, sg);
    if (op == 1) rc = sectors_cbc_decrypt(pools[pi], kp, NS, iv, 16, sg, SL, NS, sg);
    if (op == 2) rc = sectors_ctr_crypt(pools[pi], kp, NS, iv, 4, sg, SL, NS, sg);
    if (op == 3) rc = sectors_omac(pools[pi], kp, NS, in, SL, NS, tg, 8);
    CHECK(rc == GOSTX_OK && (op == 3 ? !memcmp(tg, tw, sizeof tg) : !memcmp(sg, sw, sizeof sg)),
          "sector call %d with a Magma key per sector, pool %u", op, pool_sizes[pi]);
  }
}

/* Kuznyechik streams of one length run on the sector engine
 * (lib/bulk/sector.c) in CBC, CTR, OMAC and XTS, whatever their layout: the first three read each
 * stream's pointers; XTS takes it only with in and out back to back and
 * tweaks under 2^64, and leaves the rest to the stream engine. Every layout
 * gives the one-stream calls' bytes: back to back, back to back in place,
 * in reverse order, one buffer per stream at odd offsets; one Kuznyechik
 * key, or a key per stream with repeats; XTS tweaks consecutive, scattered,
 * and one stream's above 2^64. */
static void check_sector_layouts(size_t pi) {
  enum { NS = 97, CAP = 528 };
  static uint8_t buf[NS * CAP], outb[NS * CAP], tw[NS * 16];
  static const gostx_batch_op ops[] = {GOSTX_BATCH_CBC_ENCRYPT, GOSTX_BATCH_CBC_DECRYPT,
                                       GOSTX_BATCH_CTR,         GOSTX_BATCH_OMAC,
                                       GOSTX_BATCH_XTS_ENCRYPT, GOSTX_BATCH_XTS_DECRYPT};
  const gostx_batch_params p = {0};
  t_rand_bytes(buf, sizeof buf);
  for (int layout = 0; layout < 4; layout++)
    for (int keyed = 0; keyed < 2; keyed++)
      for (size_t q = 0; q < sizeof ops / sizeof ops[0]; q++) {
        const gostx_batch_op op = ops[q];
        const size_t len = op <= GOSTX_BATCH_CBC_DECRYPT ? 528 : 520; /* XTS steals */
        for (int tk = 0; tk < (is_xts(op) ? 3 : 1); tk++) {
          for (size_t i = 0; i < NS; i++) {
            const size_t pos = layout == 2 ? NS - 1 - i : i;
            gostx_stream *s = &st[i];
            memset(s, 0, sizeof *s);
            if (layout == 3) {
              memcpy(src[i] + 1, buf + pos * len, len);
              s->in = src[i] + 1;
              s->out = got[i] + 3;
            } else {
              s->in = buf + pos * len;
              s->out = (layout == 1 ? buf : outb) + pos * len;
            }
            s->len = len;
            s->key = is_xts(op) ? (const void *)&xkeys[keyed ? i % 16 : 0]
                                : (const void *)&ciphers[keyed ? 2 * (i % 32) : 0];
            memset(tw + 16 * i, 0, 16);
            const uint64_t num = tk == 1 ? t_rand() : 5 + i;
            for (int b = 0; b < 8; b++) tw[16 * i + b] = (uint8_t)(num >> (8 * b));
            if (tk == 2 && i == NS / 2) tw[16 * i + 8] = 1;
            s->iv = is_xts(op) ? tw + 16 * i : ivs[i];
            s->tag = gtag[i];
            CHECK_RC(one(op, &p, s, want[i], wtag[i]), GOSTX_OK, "sector layout reference");
          }
          CHECK_RC(gostx_batch_streams(pools[pi], op, &p, st, NS), GOSTX_OK, "sector layout");
          int ok = 1;
          for (size_t i = 0; i < NS; i++)
            ok &= op == GOSTX_BATCH_OMAC ? !memcmp(gtag[i], wtag[i], 16)
                                         : !memcmp(st[i].out, want[i], len);
          CHECK(ok, "%s layout %d keyed %d tweaks %d pool %u", op_name(op), layout, keyed, tk,
                pool_sizes[pi]);
          if (layout == 1) t_rand_bytes(buf, sizeof buf); /* in place: fresh input */
        }
      }
}

int main(void) {
  t_rand_init();
  for (size_t i = 0; i < 4; i++) pools[i] = pool_sizes[i] ? gostx_pool_new(pool_sizes[i]) : NULL;
  for (size_t i = 0; i < MAXS; i++) {
    src[i] = malloc(MAXLEN);
    want[i] = malloc(MAXLEN);
    got[i] = malloc(MAXLEN);
    aad[i] = malloc(128);
  }
  uint8_t key[64];
  for (size_t i = 0; i < 64; i++) {
    t_rand_bytes(key, sizeof key);
    gostx_cipher_init(&ciphers[i], i % 2 ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK, key);
    gostx_gost89_set_key(&keys89[i], key, (gostx_sbox)(i % GOSTX_SBOX_COUNT));
    if (i < 16) gostx_xts_set_key(&xkeys[i], key);
  }
  for (int op = GOSTX_BATCH_CBC_ENCRYPT; op <= GOSTX_BATCH_GOST89_IMIT; op++)
    for (size_t pi = 0; pi < 4; pi++) check_op((gostx_batch_op)op, pi, (int)((op + pi) % 2));
  for (size_t pi = 0; pi < 4; pi += 3) {
    check_forged(pi, 0);
    check_forged(pi, 1);
  }
  for (one_key = 0; one_key < 2; one_key++) /* ciphers[0] Kuznyechik, [1] Magma */
    for (size_t pi = 0; pi < 4; pi++) {
      check_op(GOSTX_BATCH_MGM_SEAL, pi, (int)(pi % 2));
      check_op(GOSTX_BATCH_MGM_OPEN, pi, (int)((pi + 1) % 2));
      check_forged(pi, (int)(pi % 2));
    }
  one_key = -1;
  check_refused();
  for (size_t pi = 0; pi < 4; pi++) check_sector_calls(pi);
  for (size_t pi = 0; pi < 4; pi += 2) check_sector_layouts(pi);
  for (size_t i = 0; i < MAXS; i++) {
    free(src[i]);
    free(want[i]);
    free(got[i]);
    free(aad[i]);
  }
  for (size_t i = 0; i < 4; i++) gostx_pool_free(pools[i]);
  return t_done();
}
