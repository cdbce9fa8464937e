/* A reader of BER over a read callback, for the outer structures of a CMS
 * message of any size (streaming): definite and indefinite lengths, an
 * OCTET STRING content primitive or constructed of primitive segments
 * (what openssl cms -stream writes), nesting bounded by
 * GOSTX_CMS_STREAM_DEPTH. Strict elsewhere: definite lengths in their
 * shortest form, one-byte tags, an indefinite length only on a
 * constructed element, each element inside its parent; the elements read
 * whole (gostx__ber_element) are definite and then read as DER. A refusal
 * is GOSTX_EFORMAT with r->st naming it (TRUNCATED, TRAILING_DATA,
 * BAD_EOC, TOO_DEEP, TOO_LARGE, MALFORMED); the callback's own error is
 * returned as it is. */
#ifndef GOSTX_CMS_BER_IN_H
#define GOSTX_CMS_BER_IN_H

#include "asn1/der.h"
#include "gostx/cms.h"

typedef struct gostx__ber_in {
  gostx_cms_read_fn read;
  void *ctx;
  uint8_t *buf; /* the input's window: buf[pos..len) not yet consumed */
  size_t cap, pos, len;
  int eof;
  size_t depth; /* open elements */
  struct {
    uint64_t left; /* definite: content bytes not yet consumed */
    int indef;
  } f[GOSTX_CMS_STREAM_DEPTH];
  uint64_t seg_left; /* an OCTET STRING being streamed: bytes left in its segment */
  int octets;        /* 0 none; 1 primitive; 2 constructed (its frame open) */
  gostx_cms_status st;
} gostx__ber_in;

void gostx__ber_in_init(gostx__ber_in *r, gostx_cms_read_fn read, void *ctx, uint8_t *buf, size_t cap);
/* 1 when the innermost open element (the input, at depth 0) has another
 * element, 0 at its end, else an error (< 0 or the callback's). */
int gostx__ber_more(gostx__ber_in *r, uint8_t *tag);
/* Opens the constructed element tag (definite or indefinite). */
int gostx__ber_open(gostx__ber_in *r, uint8_t tag);
/* Closes the innermost: all its content consumed, or its end-of-contents. */
int gostx__ber_close(gostx__ber_in *r);
/* The next element, which must be tag and definite, whole as DER into
 * out[cap] (*whole: a view of it there); TOO_LARGE when it does not fit. */
int gostx__ber_element(gostx__ber_in *r, uint8_t tag, uint8_t *out, size_t cap, gostx__der *whole);
/* An OCTET STRING (or [n] IMPLICIT one) of primitive tag prim: primitive,
 * or constructed of primitive OCTET STRING segments. */
int gostx__ber_octets_open(gostx__ber_in *r, uint8_t prim);
/* Its next bytes in place in the reader's window (*p, *n; the caller may
 * change them: they are consumed); *n 0 at its end. */
int gostx__ber_octets_read(gostx__ber_in *r, uint8_t **p, size_t *n);
/* After the outermost element closed: the input must end there. */
int gostx__ber_end(gostx__ber_in *r);

#endif
