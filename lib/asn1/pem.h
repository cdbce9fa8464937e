/* lib/asn1: PEM (RFC 7468) around DER, for every file lib/ reads or writes
 * (keys, certificates, and what comes next). The base64 may carry a private
 * key, so characters are mapped with arithmetic on masks, not tables or
 * branches on the character; only the line layout (public) steers control
 * flow. Not installed; the base64 alone is public (gostx/base64.h, defined
 * in pem.c beside the mapping). */
#ifndef GOSTX_ASN1_PEM_H
#define GOSTX_ASN1_PEM_H

#include "internal.h"

/* The first line that starts (after spaces or tabs) with "-----BEGIN
 * L-----" for a label L of labels[0..count) in s[*pos..n); any text before
 * it and blocks of other labels are skipped, as openssl does. *pos: just
 * past that line's end; *which: L's index. GOSTX_EUNSUP when there is a
 * BEGIN line but none with our labels, GOSTX_EFORMAT when there is none or
 * ours is not followed by a line end. The search never reads a block's body
 * (see pem.c). */
int gostx__pem_find(const char *s, size_t n, size_t *pos, const char *const *labels, int count,
                    int *which);
/* After gostx__pem_find: the base64 body into der[cap] (strict: base64
 * characters and line ends only, canonical padding) and the "-----END
 * label-----" line; *pos past it. GOSTX_EFORMAT for anything else or a body
 * larger than cap. */
int gostx__pem_body(const char *s, size_t n, size_t *pos, const char *label, uint8_t *der,
                    size_t cap, size_t *der_len);
/* The next block labelled `label` in s[*pos..n) (the two calls above for one
 * label): its DER into der[cap], *der_len, *pos past its END line: 1. No such
 * block left: 0 (*pos = n). A malformed block: GOSTX_EFORMAT; one larger
 * than cap: GOSTX_ELEN (certificates and requests are public: their
 * readers say which). A NULL s, pos, der or der_len, or *pos past n:
 * GOSTX_EINVAL (the public gostx_x509_*pem_next take it from here). */
int gostx__pem_block(const char *s, size_t n, size_t *pos, const char *label, uint8_t *der,
                     size_t cap, size_t *der_len);
/* der[der_len] as a PEM block labelled `label`: lines of 64 characters, a
 * final newline, NUL-terminated. *out_len: its length (without the NUL),
 * also when out is NULL or cap too small (GOSTX_ELEN then). */
int gostx__pem_write(const char *label, const uint8_t *der, size_t der_len, char *out, size_t cap,
                     size_t *out_len);

#endif
