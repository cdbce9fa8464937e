/* Multi-key Kuznyechik (gostx__kuz_mk_*: block i of a call under key i)
 * against the portable core one block at a time: every implementation row
 * this CPU runs (through its own mk path, or the generic fallback where it
 * has none) and the dispatcher's choice (so that the suite's GOSTX_IMPL
 * levels cover it), n = 1..300 keys (clamped to GOSTX_KUZ_MK_MAX) with all
 * keys distinct, some repeated and all equal, misaligned buffers, in place,
 * several calls per schedule (as the CBC chains make), both directions. */
#include <stdlib.h>

#include "kuznyechik/impl.h"
#include "testutil.h"
#include "dispatch.h"

#define NKEYS 300
#define MAXN GOSTX_KUZ_MK_MAX

static gostx_kuz_key pool[NKEYS];

/* layout 0: all distinct, 1: repeated (runs and scattered), 2: all equal */
static void pick_keys(const gostx_kuz_key **kp, size_t n, int layout) {
  for (size_t i = 0; i < n; i++) {
    size_t j = layout == 0 ? i : layout == 2 ? 7 : (i % 5 == 3 ? i / 3 : (i * 7) % 11);
    kp[i] = &pool[j % NKEYS];
  }
}

static void check_impl(const struct gostx_kuz_impl *im, const char *what) {
  static uint8_t src[16 * MAXN + 32], want[16 * MAXN], wantd[16 * MAXN], got[16 * MAXN + 32];
  static gostx_kuz_mk m;
  const gostx_kuz_key *kp[MAXN];
  for (size_t nn = 1; nn <= NKEYS; nn += (nn < 8 || (nn >= 62 && nn <= 76) ||
                                          (nn >= 124 && nn <= 132) || nn >= 250) ? 1 : 7) {
    const size_t n = nn > MAXN ? MAXN : nn;
    const int layout = (int)(nn % 3);
    pick_keys(kp, n, layout);
    gostx__kuz_mk_init(&m, im, kp, n, GOSTX__MK_BOTH);
    for (int call = 0; call < 3; call++) {
      size_t off_in = t_rand_below(16), off_out = t_rand_below(16);
      t_rand_bytes(src, sizeof src);
      const uint8_t *in = src + off_in;
      uint8_t *out = got + off_out;
      for (size_t i = 0; i < n; i++) {
        gostx__kuz_portable_encrypt(kp[i], in + 16 * i, want + 16 * i, 1);
        gostx__kuz_portable_decrypt(kp[i], in + 16 * i, wantd + 16 * i, 1);
      }
      memset(got, 0xa5, sizeof got);
      gostx__kuz_mk_encrypt(&m, in, out);
      CHECK(!memcmp(out, want, 16 * n), "%s mk encrypt n=%zu layout %d call %d", what, n, layout,
            call);
      CHECK(got[off_out + 16 * n] == 0xa5 && (off_out == 0 || got[off_out - 1] == 0xa5),
            "%s mk encrypt n=%zu writes only its blocks", what, n);
      gostx__kuz_mk_decrypt(&m, in, out);
      CHECK(!memcmp(out, wantd, 16 * n), "%s mk decrypt n=%zu layout %d", what, n, layout);
      /* in place, round trip */
      memcpy(out, in, 16 * n);
      gostx__kuz_mk_encrypt(&m, out, out);
      CHECK(!memcmp(out, want, 16 * n), "%s mk encrypt in place n=%zu", what, n);
      gostx__kuz_mk_decrypt(&m, out, out);
      CHECK(!memcmp(out, in, 16 * n), "%s mk decrypt in place n=%zu", what, n);
    }
    gostx__kuz_mk_clear(&m);
  }
}

int main(void) {
  t_rand_init();
  for (size_t i = 0; i < NKEYS; i++) {
    uint8_t key[32];
    t_rand_bytes(key, sizeof key);
    gostx_kuz_set_key(&pool[i], key);
  }
  size_t r = 0;
  for (const struct gostx_kuz_impl *im; (im = t_next_usable(GOSTX_ALG_KUZNYECHIK, &r)) != NULL;)
    check_impl(im, im->name);
  check_impl(NULL, "dispatched");
  return t_done();
}
