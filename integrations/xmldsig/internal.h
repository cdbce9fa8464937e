/* What the files of libgostx-xmldsig share: the safe parser, the Id
 * index, the algorithm URIs, base64, and the Reference's octets. */
#ifndef GOSTX_XMLDSIG_INTERNAL_H
#define GOSTX_XMLDSIG_INTERNAL_H

#include <libxml/tree.h>

#include <gostx/gost94.h>
#include <gostx/hash.h>

#include "xmldsig.h"

#define XD_NS "http://www.w3.org/2000/09/xmldsig#"
#define XD_EXC_C14N "http://www.w3.org/2001/10/xml-exc-c14n#"
#define XD_EXC_C14N_COMMENTS "http://www.w3.org/2001/10/xml-exc-c14n#WithComments"
#define XD_C14N "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
#define XD_C14N_COMMENTS "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments"
#define XD_ENVELOPED "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
#define XD_SMEV "urn://smev-gov-ru/xmldsig/transform"
#define XD_WSU_NS \
  "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
#define XD_WSSE_NS \
  "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
#define XD_WSSE_X509V3 \
  "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"
#define XD_WSSE_BASE64 \
  "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"

/* A document parsed with nothing fetched (XML_PARSE_NONET), no entity
 * substituted, and any DOCTYPE refused before its content is read. NULL
 * with *st set when refused. */
xmlDocPtr xd_parse(const uint8_t *xml, size_t len, gostx_xmldsig_status *st, char *err,
                   size_t err_cap);
/* The same for canonical octets made from a document xd_parse took (the
 * SMEV transform's input): c14n may write on an element the declarations
 * in scope besides its own attributes, so twice the attributes and
 * declarations are taken. */
xmlDocPtr xd_parse_canonical(const uint8_t *xml, size_t len);

/* A namespace error of libxml2's (e's domain XML_FROM_NAMESPACE) as one
 * line naming it into out[cap]. */
struct _xmlError;
void xd_ns_error(const struct _xmlError *e, char *out, size_t cap);

/* Every element's Id (Id, ID, id, wsu:Id) checked unique:
 * GOSTX_XMLDSIG_DUPLICATE_ID naming it otherwise. *found: the element
 * whose Id is id (NULL when none, or when id is NULL). */
gostx_xmldsig_status xd_find_id(xmlNodePtr root, const char *id, xmlNodePtr *found, char *err,
                                size_t err_cap);

/* The Ids of element n (Id, ID, id, wsu:Id): their number, the values in
 * out (pointing into n). */
int xd_ids_of(xmlNodePtr n, const xmlChar *out[4]);

/* The node after n in document order within root's subtree (depth
 * first, no recursion), NULL past its end. */
xmlNodePtr xd_next(xmlNodePtr n, xmlNodePtr root);

/* A canonicalization URI: 1 known (*exclusive, *comments set), 0 not. */
int xd_c14n_alg(const char *uri, int *exclusive, int *comments);

/* A digest or signature URI: its digest length (32 or 64), 94 for GOST R
 * 34.11-94 (verification only), 0 unknown. For signatures *key_bits too. */
int xd_digest_alg(const char *uri);
int xd_sig_alg(const char *uri, size_t *key_len, int *legacy);
const char *xd_digest_uri(size_t len);
const char *xd_sig_uri(size_t len);
/* The digest of data: 32/64 Streebog, 94 GOST R 34.11-94 (CryptoPro
 * parameters); out holds 64. Its length, or 0 on failure. */
size_t xd_digest(int alg, const uint8_t *data, size_t len, uint8_t *out);

/* The same digest piece by piece (the streaming paths). */
typedef struct xd_hash {
  int alg;
  union {
    gostx_streebog_ctx s;
    gostx_gost94_ctx g;
  } u;
} xd_hash;
int xd_hash_init(xd_hash *h, int alg);
int xd_hash_update(xd_hash *h, const uint8_t *p, size_t len);
size_t xd_hash_final(xd_hash *h, uint8_t *out);

/* Base64 without line breaks (malloc'd, NUL-terminated), or NULL. */
char *xd_b64_encode(const uint8_t *p, size_t len);
/* Base64 text (whitespace skipped) into out[cap]: its length, -1 when
 * malformed or longer than cap. */
long xd_b64_decode(const char *s, uint8_t *out, size_t cap);

/* The text of an element (malloc'd by libxml2: xmlFree), or NULL. */
char *xd_text(xmlNodePtr n);
/* The first element child of n named name in XMLDSig's namespace. */
xmlNodePtr xd_child(xmlNodePtr n, const char *name);
int xd_is(xmlNodePtr n, const char *ns, const char *name);

/* One Reference's transforms, as parsed. */
typedef struct xd_transforms {
  int enveloped;            /* enveloped-signature present */
  int c14n, exclusive, comments; /* the canonicalization (c14n 0: the default) */
  xmlChar **prefixes;       /* exc-c14n InclusiveNamespaces PrefixList, NULL-ended */
  int smev;                 /* the SMEV transform last (smev.c) */
} xd_transforms;
void xd_transforms_free(xd_transforms *t);
/* The node set of target's subtree (less sig's subtree when enveloped and
 * less comments unless asked), canonicalized as t says: *out malloc'd
 * (free), NUL-terminated past *out_len. 0, or -1 when libxml2 failed. */
int xd_canonical(xmlDocPtr doc, xmlNodePtr target, xmlNodePtr sig, const xd_transforms *t,
                 uint8_t **out, size_t *out_len);

/* The SMEV 3 transform of in[len] (octets of XML): *out (free) as smev.c's
 * rules write it. 0, or -1 when in does not parse or is too deep. */
int xd_smev(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len);

/* Where libxml2 writes output: one malloc'd buffer grown in place, so a
 * big document's octets are never copied whole (c14n.c). */
typedef struct xd_sink {
  uint8_t *p;
  size_t n, cap;
  int failed;
} xd_sink;
xmlOutputBufferPtr xd_sink_open(xd_sink *s);
/* Closes buf: 0 with s->p NUL-terminated at s->n, -1 when writing failed
 * (s->p is the caller's to free either way). */
int xd_sink_close(xd_sink *s, xmlOutputBufferPtr buf);

/* WS-Security (wsse.c). The element -wsse signs: the element of ref, or
 * for "" the Envelope's Body (given wsu:Id="body" when it has no Id); *id
 * its Id (pointing into the document). */
gostx_xmldsig_status xd_wsse_target(xmlNodePtr root, const char *ref, xmlNodePtr *target,
                                    const char **id, char *err, size_t cap);
/* sig into a new wsse:Security of the Header (made when missing) beside a
 * BinarySecurityToken of cert[len]; KeyInfo ki a SecurityTokenReference
 * to it. Refused when target holds the Header. */
gostx_xmldsig_status xd_wsse_place(xmlNodePtr root, xmlNodePtr target, xmlNodePtr sig,
                                   xmlNodePtr ki, const uint8_t *cert, size_t len, char *err,
                                   size_t cap);
/* A BinarySecurityToken's ValueType and EncodingType, when present, are
 * X.509v3 and base64 (else GOSTX_XMLDSIG_NO_CERT). */
gostx_xmldsig_status xd_wsse_token(xmlNodePtr tok, char *err, size_t cap);

/* Exclusive c14n 1.0 without comments over a reader's events
 * (c14n_stream.c): whole 1, the document from the reader's start; whole
 * 0, the subtree of the element the reader is on (read to its end). The
 * octets go to write (nonzero: stop). 0, or -1 when reading or writing
 * failed. */
struct _xmlTextReader;
typedef int (*xd_c14s_write)(void *ctx, const uint8_t *p, size_t n);
int xd_c14s_run(struct _xmlTextReader *r, int whole, xd_c14s_write write, void *ctx);
/* The same one event at a time, for a caller that drives the reader
 * (enveloping_stream.c, verify_stream.c): init, then xd_c14s_node for each
 * node of the subtree (its first the element itself; nothing outside the
 * document element), then free. copy 1 writes the events as ordinary XML
 * instead: every tag with its own attributes and declarations in the
 * document's order, comments kept, text escaped as c14n escapes it. */
typedef struct xd_c14s {
  xd_c14s_write write;
  void *ctx;
  int failed, copy;
  struct xd_c14s_ns *ns; /* what output ancestors rendered */
  size_t n_ns, cap_ns;
} xd_c14s;
void xd_c14s_init(xd_c14s *s, int copy, xd_c14s_write write, void *ctx);
/* prefix bound to uri by an output ancestor outside the events (the
 * ds:Object the streaming signer writes around the document) */
int xd_c14s_rendered(xd_c14s *s, const char *prefix, const char *uri);
/* 0, or -1 once writing or memory failed */
int xd_c14s_node(xd_c14s *s, struct _xmlTextReader *r);
/* p as it is, or t escaped as c14n escapes text (attr 0) or an attribute's value (1) */
void xd_c14s_put(xd_c14s *s, const char *p);
void xd_c14s_escaped(xd_c14s *s, const char *t, int attr);
void xd_c14s_free(xd_c14s *s);

/* Signing's pieces (sign.c), shared with the streaming signer. */
typedef struct xd_parts {
  xmlNodePtr sig, si, dv, sv, ki;
  xmlNsPtr ns;
} xd_parts;
/* A child of parent named name in ns, with Algorithm alg unless NULL. */
xmlNodePtr xd_add(xmlNodePtr parent, xmlNsPtr ns, const char *name, const char *alg);
/* The Signature element of a Reference to uri, its DigestValue and
 * SignatureValue empty, not yet in the document; key_len picks the URIs. */
int xd_skeleton(xmlDocPtr doc, const char *uri, const gostx_xmldsig_sign_opts *o, size_t key_len,
                xd_parts *p);
/* KeyInfo/X509Data: the signer's certificate, then o->chain's. */
int xd_x509_data(const xd_parts *p, const gostx_xmldsig_sign_opts *o);
/* DigestValue set to digest, then SignatureValue over the canonical
 * SignedInfo; digest NULL: both zeros of their lengths, nothing signed (the
 * streamed signer's placeholder). 0, the key's own error (negative: the
 * signature itself failed, nothing set), or 1 (anything else). */
int xd_sign_info(xmlDocPtr doc, const xd_parts *p, const gostx_xmldsig_sign_opts *o,
                 const gostx_gost3410_key *key, const uint8_t *digest);
/* The status and err line of xd_sign_info's rc != 0, what the caller says
 * for anything else than the key (rc > 0). */
gostx_xmldsig_status xd_sign_failed(int rc, const char *what, char *err, size_t cap);
/* The key's private half is the certificate's (GOSTX_XMLDSIG_KEY_MISMATCH). */
gostx_xmldsig_status xd_check_key(const gostx_xmldsig_sign_opts *o, const gostx_gost3410_key *key,
                                  char *err, size_t cap);

/* The scan of a document's bytes ahead of libxml2 (scan.c): the limits of
 * xmldsig.h (attributes and declarations in scope times scale, depth,
 * names; max_nodes nodes, 0 none), DOCTYPEs and encodings that are not
 * ASCII-compatible refused before libxml2 reads a byte of them. Fed in
 * any pieces. */
typedef struct xd_scan {
  int state, quote, prev1, prev2, text, root, match;
  const char *want; /* the <! construct being matched */
  size_t pos, nodes, max_nodes;
  unsigned depth, attrs, name_len, ns_scope, max_attrs, max_ns;
  unsigned short ns_open[GOSTX_XMLDSIG_MAX_DEPTH + 1]; /* declarations per open element */
  char elem[65]; /* the element's name (its first 64 bytes) */
  char attr[7];  /* the attribute's (its first 6) */
  int decl_len;  /* the XML declaration's bytes in decl; -1 past it */
  char decl[256];
  gostx_xmldsig_status st; /* nonzero: refused, why says why */
  char why[200];
} xd_scan;
void xd_scan_init(xd_scan *s, size_t max_nodes, unsigned scale);
/* 0, or -1 refused (xd_scan_status) */
int xd_scan_feed(xd_scan *s, const uint8_t *p, size_t n);
gostx_xmldsig_status xd_scan_status(const xd_scan *s, char *err, size_t cap);

/* The streaming paths' document (stream_in.c): a reader over io->read
 * with nothing fetched, no entity substituted and a DOCTYPE refused before
 * the parser reads it (the bytes before the root are scanned as they
 * pass; UTF-16 and other encodings that are not ASCII-compatible are
 * refused, as the scan could not see a DOCTYPE in them); output buffered
 * in front of a write callback. */
typedef struct xd_stream {
  const gostx_xmldsig_io *io;
  struct _xmlTextReader *r;
  xd_scan scan; /* every byte, before the reader has it */
  int dtd, io_err, xml_err;
  char ns_err[160]; /* a namespace error met, named (xd_ns_error) */
} xd_stream;
int xd_stream_open(xd_stream *s, const gostx_xmldsig_io *io);
/* The next node (skip 1: past the current one's subtree): 1, 0 at the
 * end, -1 refused (xd_stream_status says why). */
int xd_stream_next(xd_stream *s, int skip);
gostx_xmldsig_status xd_stream_status(const xd_stream *s, char *err, size_t cap);
void xd_stream_close(xd_stream *s);
/* The reader's node is an element ns:name. */
int xd_stream_is(struct _xmlTextReader *r, const char *ns, const char *name);

typedef struct xd_obuf {
  int (*flush)(void *ctx, const uint8_t *p, size_t n); /* nonzero: failed */
  void *ctx;
  size_t n;
  int failed;
  uint8_t b[1 << 16];
} xd_obuf;
/* An xd_c14s_write appending to an xd_obuf; its flush. */
int xd_obuf_write(void *o, const uint8_t *p, size_t n);
int xd_obuf_flush(xd_obuf *o);

void xd_err(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
