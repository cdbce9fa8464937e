/* Padding procedures 1, 2 and 3 of GOST R 34.13-2015 section 4.1, and the
 * removal of procedure 2. */
#include "modes_internal.h"

int gostx_pad(gostx_padding padding, size_t n, const uint8_t *in, size_t len, uint8_t *out,
              size_t *out_len) {
  if (!out || !out_len || (!in && len) || n == 0 || n > 64) return GOSTX_EINVAL;
  size_t r = len % n, add;
  switch (padding) {
    case GOSTX_PAD_NONE: add = 0; break;
    case GOSTX_PAD_1: add = r ? n - r : 0; break;
    case GOSTX_PAD_2: add = n - r; break;                /* always at least the 0x80 byte */
    case GOSTX_PAD_3: add = r ? n - r : 0; break;        /* procedure 2 only for a partial block */
    default: return GOSTX_EINVAL;
  }
  if (len && in != out) memmove(out, in, len);
  if (add) {
    memset(out + len, 0, add);
    if (padding != GOSTX_PAD_1) out[len] = 0x80;
  }
  *out_len = len + add;
  return GOSTX_OK;
}

/* All-ones when v == 0, else zero; no branch on v. */
static size_t mask_zero(size_t v) { return (size_t)0 - (((v | ((size_t)0 - v)) >> (sizeof(size_t) * 8 - 1)) ^ 1); }

int gostx_unpad2(size_t n, const uint8_t *buf, size_t len, size_t *msg_len) {
  if (!buf || !msg_len || n == 0 || n > 64) return GOSTX_EINVAL;
  if (len == 0 || len % n) return GOSTX_ELEN;
  const uint8_t *last = buf + len - n;
  /* Walk the last block from its end: the first non-zero byte met must be
   * 0x80, and it marks where the message ends. Every byte is visited and
   * decisions are masks, so timing does not depend on where the marker is. */
  size_t found = 0, bad = 0, pos = 0;
  for (size_t i = n; i-- > 0;) {
    size_t b = last[i];
    size_t take = ~found & ~mask_zero(b);     /* first non-zero byte from the end */
    pos |= take & i;
    bad |= take & ~mask_zero(b ^ 0x80);
    found |= take;
  }
  bad |= ~found;                              /* an all-zero block has no marker */
  *msg_len = len - n + (pos & ~bad);
  return bad ? GOSTX_EPAD : GOSTX_OK;
}
