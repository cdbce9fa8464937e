/* gostx: base64 (RFC 4648 section 4: the standard alphabet, '=' padding),
 * the one codec every part of gostx uses (PEM, gostx cms's streamed PEM,
 * the OCSP GET form, XMLDSig's values). Part of the public API.
 *
 * The characters go through arithmetic on masks, never a table indexed by
 * them or a branch on them: base64 may carry a private key (a PEM key
 * file). Only where '=' stands (public layout) steers control flow.
 * Nothing allocates. */
#ifndef GOSTX_BASE64_H
#define GOSTX_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* in[n] as 4 * ceil(n / 3) characters into out (no NUL, no line end),
 * padded with '=': their count. 0 when in or out is NULL. */
GOSTX_API size_t gostx_base64_encode(const uint8_t *in, size_t n, char *out);

/* An incremental decoder: zero it, then hand it the text in pieces of any
 * size (a line at a time). bits: the characters' values so far, the newest
 * in the low 6 bits; nbits: how many of them are not yet a whole byte;
 * pad: a '=' has been seen. */
typedef struct gostx_base64 {
  uint32_t bits;
  unsigned nbits;
  int pad;
} gostx_base64;

/* s[n] (base64 characters and '=' only: no white space, no line end) into
 * out (room for n * 3 / 4 + 1 bytes; exactly (6 * characters other than
 * '=' + d->nbits) / 8 are written), *out_len bytes. A group cut by the
 * piece's end carries in d to the next piece. GOSTX_EFORMAT for another
 * character or a character after '=' (in this piece or an earlier one);
 * GOSTX_EINVAL for a NULL argument. The count of '=' and the unused bits
 * of the last group are not checked here; d->nbits nonzero after the last
 * piece (no '=' seen): the base64 ended mid-byte. */
GOSTX_API GOSTX_MUST_CHECK int gostx_base64_decode(gostx_base64 *d, const char *s, size_t n,
                                                    uint8_t *out, size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif
