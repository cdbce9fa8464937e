/* libFuzzer harness: differential test of every block implementation against
 * the portable reference. For each row of the dispatcher's tables that this
 * CPU can run (gostx__impl_row, so SIMD rows added later are covered without
 * touching this file), on fuzzer-chosen keys, data, block counts and
 * misalignments:
 *   - Kuznyechik and Magma/GOST 28147-89 (each S-box set, both byte
 *     conventions): encrypt_blocks equals portable, for the whole run and for
 *     each block on its own (the portable core itself has three layouts
 *     chosen by the block count); decrypt_blocks inverts it; in place equals
 *     out of place;
 *   - Streebog: the compression function equals portable.
 * Any difference aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kuznyechik/impl.h"
#include "magma/impl.h"
#include "streebog/impl.h"
#include "dispatch.h"

#define MAX_BLOCKS 200

static void diff(const void *a, const void *b, size_t len, const char *what, const char *impl) {
  if (memcmp(a, b, len)) {
    fprintf(stderr, "fuzz_block_diff: %s differs (implementation %s)\n", what, impl);
    abort();
  }
}

/* Buffers with room for a misalignment of up to 63 bytes. */
static uint8_t in_buf[MAX_BLOCKS * 16 + 64], ref[MAX_BLOCKS * 16 + 64], out_buf[MAX_BLOCKS * 16 + 64],
    back_buf[MAX_BLOCKS * 16 + 64], one[16];

static void check_kuz(const uint8_t *key, const uint8_t *data, size_t len, unsigned off) {
  gostx_kuz_key k;
  const size_t nb = len / 16 > MAX_BLOCKS ? MAX_BLOCKS : len / 16;
  if (!nb) return;
  gostx_kuz_set_key(&k, key);
  uint8_t *in = in_buf + (off & 63), *out = out_buf + ((off >> 6) & 63), *back = back_buf + 7;
  memcpy(in, data, nb * 16);
  gostx_kuz_portable.encrypt_blocks(&k, in, ref, nb);
  for (size_t b = 0; b < nb; b++) { /* one block at a time: the single-block layout */
    gostx_kuz_portable.encrypt_blocks(&k, in + 16 * b, one, 1);
    diff(one, ref + 16 * b, 16, "kuznyechik single block vs batch", "portable");
  }
  int usable;
  const struct gostx_kuz_impl *impl;
  for (size_t i = 0; (impl = gostx__impl_row(GOSTX_ALG_KUZNYECHIK, i, &usable)) != NULL; i++) {
    if (!usable) continue;
    impl->encrypt_blocks(&k, in, out, nb);
    diff(out, ref, nb * 16, "kuznyechik encrypt", impl->name);
    impl->decrypt_blocks(&k, out, back, nb);
    diff(back, in, nb * 16, "kuznyechik decrypt", impl->name);
    memcpy(back, in, nb * 16);
    impl->encrypt_blocks(&k, back, back, nb);
    diff(back, ref, nb * 16, "kuznyechik in place", impl->name);
  }
  gostx_kuz_clear(&k);
}

static void check_magma(const uint8_t *key, unsigned sel, const uint8_t *data, size_t len,
                        unsigned off) {
  gostx_magma_key k;
  const size_t nb = len / 8 > MAX_BLOCKS ? MAX_BLOCKS : len / 8;
  if (!nb) return;
  if (sel % (GOSTX_SBOX_COUNT + 1) == GOSTX_SBOX_COUNT) gostx_magma_set_key(&k, key);
  else gostx_gost89_set_key(&k, key, (int)(sel % (GOSTX_SBOX_COUNT + 1)));
  uint8_t *in = in_buf + (off & 63), *out = out_buf + ((off >> 6) & 63), *back = back_buf + 3;
  memcpy(in, data, nb * 8);
  gostx_magma_portable.encrypt_blocks(&k, in, ref, nb);
  for (size_t b = 0; b < nb; b++) {
    gostx_magma_portable.encrypt_blocks(&k, in + 8 * b, one, 1);
    diff(one, ref + 8 * b, 8, "magma single block vs batch", "portable");
  }
  int usable;
  const struct gostx_magma_impl *impl;
  for (size_t i = 0; (impl = gostx__impl_row(GOSTX_ALG_MAGMA, i, &usable)) != NULL; i++) {
    if (!usable) continue;
    impl->encrypt_blocks(&k, in, out, nb);
    diff(out, ref, nb * 8, "magma encrypt", impl->name);
    impl->decrypt_blocks(&k, out, back, nb);
    diff(back, in, nb * 8, "magma decrypt", impl->name);
    memcpy(back, in, nb * 8);
    impl->encrypt_blocks(&k, back, back, nb);
    diff(back, ref, nb * 8, "magma in place", impl->name);
  }
  gostx_magma_clear(&k);
}

static void check_streebog(const uint8_t *data, size_t len) {
  uint8_t h[64], n[64], m[64], hr[64];
  if (len < 192) return;
  memcpy(h, data, 64);
  memcpy(n, data + 64, 64);
  memcpy(m, data + 128, 64);
  memcpy(hr, h, 64);
  gostx_streebog_portable.compress(hr, n, m);
  int usable;
  const struct gostx_streebog_impl *impl;
  for (size_t i = 0; (impl = gostx__impl_row(GOSTX_ALG_STREEBOG, i, &usable)) != NULL; i++) {
    if (!usable) continue;
    uint8_t t[64];
    memcpy(t, h, 64);
    impl->compress(t, n, m);
    diff(t, hr, 64, "streebog compress", impl->name);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* byte 0: primitive and S-box choice; byte 1: misalignments; 32 key bytes. */
  if (size < 34) return 0;
  const unsigned sel = data[0], off = data[1] * 17u;
  const uint8_t *key = data + 2, *rest = data + 34;
  size_t len = size - 34;
  switch (sel % 3) {
    case 0: check_kuz(key, rest, len, off); break;
    case 1: check_magma(key, sel / 3, rest, len, off); break;
    default: check_streebog(data + 2, size - 2); break;
  }
  return 0;
}
