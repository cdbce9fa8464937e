/* The PEM (RFC 7468) reader of keys_pem.c, for the other PEM files lib/
 * reads (certificates: lib/x509). Not installed. */
#ifndef GOSTX_GOST3410_PEM_H
#define GOSTX_GOST3410_PEM_H

#include "internal.h"

/* The next block labelled `label` in s[*pos..n): a line "-----BEGIN
 * label-----" (after spaces or tabs; text and blocks of other labels
 * before it skipped), strict base64 lines, "-----END label-----". Its DER
 * into der[cap], *der_len, *pos past its END line: 1. No such block left:
 * 0 (*pos = n). A malformed block, or one larger than cap: GOSTX_EFORMAT. */
int gostx__pem_block(const char *s, size_t n, size_t *pos, const char *label, uint8_t *der,
                     size_t cap, size_t *der_len);

#endif
