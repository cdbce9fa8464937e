/* lib/x509 internals: a strict DER reader (X.690 section 10) for the
 * certificates of lib/x509. Every call checks what it reads against the
 * bytes left; nothing allocates. Refused: indefinite lengths, lengths not in
 * their shortest form or longer than what is left, high tag numbers. */
#ifndef GOSTX_X509_DER_H
#define GOSTX_X509_DER_H

#include "internal.h"

/* Universal tags as their first byte (constructed bit included). */
#define GOSTX__DER_BOOL 0x01
#define GOSTX__DER_INT 0x02
#define GOSTX__DER_BITS 0x03
#define GOSTX__DER_OCTETS 0x04
#define GOSTX__DER_NULL 0x05
#define GOSTX__DER_OID 0x06
#define GOSTX__DER_UTCTIME 0x17
#define GOSTX__DER_GENTIME 0x18
#define GOSTX__DER_SEQ 0x30
#define GOSTX__DER_SET 0x31
#define GOSTX__DER_CTX(n) (0x80 | (n))  /* [n] IMPLICIT, primitive */
#define GOSTX__DER_CTXC(n) (0xa0 | (n)) /* [n], constructed (EXPLICIT) */

/* A span of bytes still to read, or one element's content. */
typedef struct gostx__der {
  const uint8_t *p;
  size_t n;
} gostx__der;

/* The next element: its tag byte, its content and (when whole is not NULL)
 * the element with its header. GOSTX_EFORMAT when nothing or no valid
 * element is left. */
int gostx__der_next(gostx__der *r, uint8_t *tag, gostx__der *content, gostx__der *whole);
/* The next element, which must have tag `tag`. */
int gostx__der_get(gostx__der *r, uint8_t tag, gostx__der *content, gostx__der *whole);
/* 1 when the next element has tag `tag` (nothing read). */
int gostx__der_peek(const gostx__der *r, uint8_t tag);
/* An OID element, checked (non-empty, minimal sub-identifiers): content. */
int gostx__der_oid(gostx__der *r, gostx__der *oid);
/* 1 when the OID's content equals the encoded bytes enc[len]. */
int gostx__der_oid_is(gostx__der oid, const uint8_t *enc, size_t len);
#define GOSTX__DER_OID_IS(oid, lit) gostx__der_oid_is(oid, (const uint8_t *)(lit), sizeof(lit) - 1)
/* An INTEGER in DER (minimal, non-negative) that fits an int >= 0. */
int gostx__der_small_uint(gostx__der *r, int *v);
/* The same under an IMPLICIT tag (RFC 5280's SkipCerts [0], [1]). */
int gostx__der_small_uint_tagged(gostx__der *r, uint8_t tag, int *v);
/* A BOOLEAN in DER (0x00 or 0xff). */
int gostx__der_bool(gostx__der *r, int *v);
/* UTCTime (YYMMDDHHMMSSZ, 1950-2049) or GeneralizedTime (YYYYMMDDHHMMSSZ),
 * as RFC 5280 section 4.1.2.5 writes them: seconds since 1970. */
int gostx__der_time(gostx__der *r, int64_t *t);
/* The OID's dotted text into text[cap] (NUL-terminated, cut short with
 * "..." when it does not fit). */
void gostx__der_oid_text(gostx__der oid, char *text, size_t cap);

#endif
