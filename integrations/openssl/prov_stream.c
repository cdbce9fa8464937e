/* Keystream ahead for the modes whose keystream does not depend on the data
 * (CTR, CTR-ACPKM, OFB, GOST 28147-89 CNT): a short update takes its bytes
 * from a block of keystream made in one bulk call, so openssl's 16-byte
 * updates cost an XOR instead of a one-block cipher call each (the
 * constant-time one-block path is the slow one). Long updates go straight
 * through; the stream position stays the same either way. */
#include <string.h>

#include "prov.h"

int prov_stream_update(prov_keystream *ks, prov_stream_fn fn, void *ctx, const uint8_t *in,
                       uint8_t *out, size_t len) {
  size_t avail = ks->len - ks->pos;
  size_t take = avail < len ? avail : len;
  for (size_t i = 0; i < take; i++) out[i] = in[i] ^ ks->buf[ks->pos + i];
  ks->pos += take;
  in += take;
  out += take;
  len -= take;
  if (len == 0) return 1;
  if (len >= sizeof ks->buf) return fn(ctx, in, out, len);
  /* the keystream is the encryption of zeros */
  memset(ks->buf, 0, sizeof ks->buf);
  if (!fn(ctx, ks->buf, ks->buf, sizeof ks->buf)) {
    prov_stream_reset(ks);
    return 0;
  }
  for (size_t i = 0; i < len; i++) out[i] = in[i] ^ ks->buf[i];
  ks->pos = len;
  ks->len = sizeof ks->buf;
  return 1;
}

void prov_stream_reset(prov_keystream *ks) {
  gostx_memzero(ks->buf, sizeof ks->buf);
  ks->pos = ks->len = 0;
}
