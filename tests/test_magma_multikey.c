/* Multi-key Magma / GOST 28147-89 (gostx__magma_mk_*: block i of a call
 * under key i) against the portable core one block at a time: every
 * implementation row this CPU runs (its byte-sliced mk path, or the per-block
 * fallback) and the dispatcher's choice (so the suite's GOSTX_IMPL levels
 * cover it). n = 1..64 keys, all distinct (every lane's key differs in every
 * word), repeated or all equal; both byte conventions and every S-box set;
 * misaligned buffers, in place, several calls per schedule, both directions and the IMIT core,
 * the first c < n lanes alone. */
#include "magma/impl.h"
#include "testutil.h"
#include "dispatch.h"

#define MAXN GOSTX_MAGMA_MK_MAX
#define NKEYS 80

static gostx_magma_key pool[NKEYS];

static void make_keys(int le, int sbox) {
  for (size_t i = 0; i < NKEYS; i++) {
    uint8_t key[32];
    t_rand_bytes(key, sizeof key);
    if (le) gostx_gost89_set_key(&pool[i], key, (gostx_sbox)sbox);
    else gostx_magma_set_key(&pool[i], key);
  }
}

static void check_impl(const struct gostx_magma_impl *im, const char *what) {
  static uint8_t src[8 * MAXN + 16], want[8 * MAXN], wantd[8 * MAXN], wanti[8 * MAXN];
  static uint8_t got[8 * MAXN + 16];
  static gostx_magma_mk m;
  const gostx_magma_key *kp[MAXN];
  for (size_t n = 1; n <= MAXN; n++) {
    const int layout = (int)(n % 3); /* 0 distinct, 1 repeated, 2 all equal */
    for (size_t i = 0; i < n; i++)
      kp[i] = &pool[layout == 0 ? i : layout == 2 ? 5 : (i * 7) % 11];
    gostx__magma_mk_init(&m, im, kp, n);
    for (int call = 0; call < 2; call++) {
      const size_t off_in = t_rand_below(8), off_out = t_rand_below(8);
      t_rand_bytes(src, sizeof src);
      const uint8_t *in = src + off_in;
      uint8_t *out = got + off_out;
      for (size_t i = 0; i < n; i++) {
        gostx_magma_portable.encrypt_blocks(kp[i], in + 8 * i, want + 8 * i, 1);
        gostx_magma_portable.decrypt_blocks(kp[i], in + 8 * i, wantd + 8 * i, 1);
        uint32_t a1, a0;
        gostx__magma_load(kp[i], in + 8 * i, &a1, &a0);
        gostx__magma_imit16_words(kp[i], &a1, &a0);
        gostx__magma_store(kp[i], wanti + 8 * i, a1, a0);
      }
      memset(got, 0xa5, sizeof got);
      gostx__magma_mk_crypt(&m, GOSTX__MAGMA_ENC, in, out, n);
      CHECK(!memcmp(out, want, 8 * n), "%s mk encrypt n=%zu layout %d", what, n, layout);
      CHECK(got[off_out + 8 * n] == 0xa5 && (off_out == 0 || got[off_out - 1] == 0xa5),
            "%s mk encrypt n=%zu writes only its blocks", what, n);
      gostx__magma_mk_crypt(&m, GOSTX__MAGMA_DEC, in, out, n);
      CHECK(!memcmp(out, wantd, 8 * n), "%s mk decrypt n=%zu layout %d", what, n, layout);
      memcpy(out, in, 8 * n);
      gostx__magma_mk_crypt(&m, GOSTX__MAGMA_ENC, out, out, n);
      CHECK(!memcmp(out, want, 8 * n), "%s mk encrypt in place n=%zu", what, n);
      gostx__magma_mk_crypt(&m, GOSTX__MAGMA_DEC, out, out, n);
      CHECK(!memcmp(out, in, 8 * n), "%s mk decrypt in place n=%zu", what, n);
      gostx__magma_mk_crypt(&m, GOSTX__MAGMA_IMIT, in, out, n);
      CHECK(!memcmp(out, wanti, 8 * n), "%s mk IMIT core n=%zu layout %d", what, n, layout);
      /* The first c lanes only: the rest neither read nor written. */
      const size_t c = 1 + t_rand_below(n);
      memset(got, 0xa5, sizeof got);
      gostx__magma_mk_crypt(&m, GOSTX__MAGMA_ENC, in, out, c);
      CHECK(!memcmp(out, want, 8 * c) && got[off_out + 8 * c] == 0xa5,
            "%s mk encrypt %zu of n=%zu lanes", what, c, n);
    }
    gostx__magma_mk_clear(&m);
  }
}

int main(void) {
  t_rand_init();
  for (int conv = 0; conv <= GOSTX_SBOX_COUNT; conv++) {
    /* conv 0: Magma; then GOST 28147-89 with each S-box set. */
    make_keys(conv > 0, conv > 0 ? conv - 1 : 0);
    size_t r = 0;
    for (const struct gostx_magma_impl *im; (im = t_next_usable(GOSTX_ALG_MAGMA, &r)) != NULL;)
      check_impl(im, im->name);
    check_impl(NULL, "dispatched");
  }
  return t_done();
}
