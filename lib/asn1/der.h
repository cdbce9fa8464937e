/* lib/asn1: the one strict DER reader and writer (X.690 section 10) under
 * every file lib/ reads or writes: keys, certificates, TLS 1.2's key
 * exchange, and what comes next. Nothing allocates.
 * Reading: every call checks what it reads against the bytes left. Refused:
 * indefinite lengths, lengths not in their shortest form or longer than what
 * is left, high tag numbers.
 * Writing (gostx__der_w): every write checks what it writes against the
 * buffer; an error is sticky and gostx__der_w_finish reports it, with the
 * length a larger buffer would need when the buffer was short. */
#ifndef GOSTX_ASN1_DER_H
#define GOSTX_ASN1_DER_H

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
/* 1 when an INTEGER's content is DER's: not empty, no redundant leading
 * 0x00 or 0xff octet (X.690 8.3.2). */
int gostx__der_int_minimal(gostx__der v);
/* An INTEGER in DER (minimal, non-negative) that fits an int >= 0. */
int gostx__der_small_uint(gostx__der *r, int *v);
/* The same under an IMPLICIT tag (RFC 5280's SkipCerts [0], [1]). */
int gostx__der_small_uint_tagged(gostx__der *r, uint8_t tag, int *v);
/* An INTEGER in DER (minimal, non-negative) below 2^32. GOSTX_EUNSUP for a
 * well-formed one that is larger (a count no file of ours needs). */
int gostx__der_u32(gostx__der *r, uint32_t *v);
int gostx__der_u32_tagged(gostx__der *r, uint8_t tag, uint32_t *v);
/* 1 when nothing is left to read. */
static inline int gostx__der_done(const gostx__der *r) { return r->n == 0; }
/* A BOOLEAN in DER (0x00 or 0xff). */
int gostx__der_bool(gostx__der *r, int *v);
/* UTCTime (YYMMDDHHMMSSZ, 1950-2049) or GeneralizedTime (YYYYMMDDHHMMSSZ),
 * as RFC 5280 section 4.1.2.5 writes them: seconds since 1970. */
int gostx__der_time(gostx__der *r, int64_t *t);
/* The OID's dotted text into text[cap] (NUL-terminated). When it does not
 * fit, or an arc is beyond 2^50, it is cut short with "..." and the call
 * says GOSTX_ELEN; else 0. */
int gostx__der_oid_text(gostx__der oid, char *text, size_t cap);
/* Dotted text (at least two arcs, each below 2^32, the first 0..2, the
 * second below 40 under 0 and 1) to an OID's content bytes in out[cap]:
 * 0, GOSTX_EINVAL for text that is no OID, GOSTX_ELEN when cap is short. */
int gostx__der_oid_encode(const char *text, uint8_t *out, size_t cap, size_t *len);

/* ---- writing ---- */

/* How deep elements may nest while being written (CAdES's revocation
 * references inside a SignedData reach 17). */
#define GOSTX__DER_W_DEPTH 20

/* A writer into buf[cap]; with buf NULL it only counts. Past the end of the
 * buffer it goes on counting, so finish says GOSTX_ELEN with the length the
 * whole needs (what the buffer holds is then no DER). An element opened
 * with begin gets its length when end closes it: its content is moved up
 * when the length takes more than one byte. */
typedef struct gostx__der_w {
  uint8_t *buf;
  size_t cap, n;
  size_t open[GOSTX__DER_W_DEPTH]; /* where each open element's content starts */
  unsigned depth;
  int err; /* the first error: GOSTX_ELEN (no room), GOSTX_EINVAL (misuse) */
} gostx__der_w;

void gostx__der_w_init(gostx__der_w *w, uint8_t *buf, size_t cap);
/* Opens an element with tag `tag` (constructed or not: a BIT STRING or an
 * OCTET STRING that wraps DER is written this way too). */
void gostx__der_w_begin(gostx__der_w *w, uint8_t tag);
/* Closes the innermost open element. */
void gostx__der_w_end(gostx__der_w *w);
/* Bytes as they are: content of the open element, or encoded elements. */
void gostx__der_w_raw(gostx__der_w *w, const void *p, size_t len);
/* A whole element: tag, length, content[len]. */
void gostx__der_w_tlv(gostx__der_w *w, uint8_t tag, const void *content, size_t len);
/* An OID from its dotted text (GOSTX_EINVAL, sticky, for text that is none). */
void gostx__der_w_oid(gostx__der_w *w, const char *text);
/* A non-negative INTEGER from big-endian bytes: leading zero bytes dropped,
 * a zero byte put before a first byte >= 0x80; no bytes is 0. */
void gostx__der_w_uint(gostx__der_w *w, const uint8_t *be, size_t len);
void gostx__der_w_u32(gostx__der_w *w, uint32_t v);
/* *len: the length written, 0; or the length needed, GOSTX_ELEN; or
 * GOSTX_EINVAL for a misuse (elements left open, closed twice, nested too
 * deep, an OID that is none). */
int gostx__der_w_finish(const gostx__der_w *w, size_t *len);

/* ---- headers alone, for streamed content (BER) ---- */
/* The length a header's length field is told for an indefinite length. */
#define GOSTX__DER_INDEFINITE UINT64_MAX
#define GOSTX__DER_HEADER_MAX GOSTX_DER_HEADER_MAX /* gostx/der.h */
/* A tag and its length, DER's shortest form (or 0x80 for
 * GOSTX__DER_INDEFINITE), into out[GOSTX__DER_HEADER_MAX]: its size. */
size_t gostx__der_header(uint8_t *out, uint8_t tag, uint64_t len);
/* A whole element's size: its header's and its content's len bytes. */
uint64_t gostx__der_tlv_size(uint64_t len);
/* n end-of-contents markers (00 00 each, n <= 8). */
extern const uint8_t gostx__der_eocs[16];

#endif
