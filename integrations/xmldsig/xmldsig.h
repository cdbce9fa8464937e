/* libgostx-xmldsig: XML signatures (XMLDSig) with GOST R 34.10-2012 and
 * Streebog, over libxml2 (parsing and C14N). A library of its own beside
 * libgostx, which never depends on libxml2; built when libxml2's headers are
 * present (integrations/xmldsig/xmldsig.cmake). docs/XMLDSIG.md. */
#ifndef GOSTX_XMLDSIG_H
#define GOSTX_XMLDSIG_H

#include <stddef.h>
#include <stdint.h>

#include <gostx/gost3410.h>
#include <gostx/x509.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest document read (bytes), and what a document may hold, checked
 * by a linear scan of its bytes before libxml2 parses them (streamed
 * documents too, but for the nodes): libxml2 2.9's parser and C14N spend
 * time quadratic in the attributes of one element, so those are few (more
 * than real documents carry; Santuario's limit is 10,000), as are the
 * namespace declarations in scope (inclusive c14n writes them all on the
 * element it starts at); the nesting is libxml2's own limit; a document
 * read whole holds at most MAX_NODES elements, attributes, text nodes,
 * comments and PIs. */
#define GOSTX_XMLDSIG_MAX_SIZE (64u << 20)
#define GOSTX_XMLDSIG_MAX_ATTRS 256 /* on one element, namespace declarations included */
#define GOSTX_XMLDSIG_MAX_NS 256    /* namespace declarations in scope at once */
#define GOSTX_XMLDSIG_MAX_DEPTH 256 /* elements nested */
#define GOSTX_XMLDSIG_MAX_NAME 1024 /* bytes of an element's or attribute's name */
#define GOSTX_XMLDSIG_MAX_NODES (8u << 20)
/* The most References in one SignedInfo, and Transforms in one Reference. */
#define GOSTX_XMLDSIG_MAX_REFS 16
#define GOSTX_XMLDSIG_MAX_TRANSFORMS 4
/* The most ds:Signature elements of one document (SMEV 3's responses
 * carry two: the sender's inside SMEV's). */
#define GOSTX_XMLDSIG_MAX_SIGNATURES 8

typedef enum gostx_xmldsig_status {
  GOSTX_XMLDSIG_OK = 0,
  GOSTX_XMLDSIG_MALFORMED,        /* not well-formed XML, or not XMLDSig's structure */
  GOSTX_XMLDSIG_TOO_LARGE,        /* over GOSTX_XMLDSIG_MAX_SIZE, or past a limit above */
  GOSTX_XMLDSIG_DTD,              /* a DOCTYPE (DTDs, entities): refused, never read */
  GOSTX_XMLDSIG_NO_SIGNATURE,     /* no ds:Signature */
  /* two Signatures that overlap: one a copy of another (the same
   * SignatureValue), or a Reference that names another Signature or a node
   * of its own (its SignedInfo, KeyInfo, ...; its ds:Object's content is
   * fine); streamed, any second ds:Signature */
  GOSTX_XMLDSIG_SECOND_SIGNATURE,
  GOSTX_XMLDSIG_DUPLICATE_ID,     /* two elements with the same Id (wrapping) */
  GOSTX_XMLDSIG_BAD_REFERENCE,    /* a Reference URI that names no element, or not "" / "#id" */
  GOSTX_XMLDSIG_UNSUPPORTED,      /* an algorithm or transform not taken (XPath, XSLT, ...) */
  GOSTX_XMLDSIG_DIGEST_MISMATCH,  /* a Reference's DigestValue is not the digest */
  GOSTX_XMLDSIG_BAD_SIGNATURE,    /* SignatureValue does not verify under the certificate */
  GOSTX_XMLDSIG_NO_CERT,          /* KeyInfo gives no certificate */
  GOSTX_XMLDSIG_KEY_MISMATCH,     /* the certificate's key is not of the SignatureMethod */
  GOSTX_XMLDSIG_CHAIN,            /* the certificate's chain does not verify: x509 says why */
  /* signing: the key's own operation failed (an external key's callback,
   * gostx_gost3410_key_set_external: a token removed, ...); err names the
   * GOSTX_E* code it returned */
  GOSTX_XMLDSIG_KEY_FAILED
} gostx_xmldsig_status;
const char *gostx_xmldsig_status_name(gostx_xmldsig_status st);

/* Where gostx_xmldsig_sign puts the Signature. */
typedef enum gostx_xmldsig_form {
  /* inside what it signs: the referenced element's (or the root's) last
   * child, with the enveloped-signature transform */
  GOSTX_XMLDSIG_ENVELOPED = 0,
  /* the Signature the new root, the document inside its ds:Object whose
   * Id is ref ("object" when ref is ""): URI="#ref" */
  GOSTX_XMLDSIG_ENVELOPING,
  /* beside the element of ref (never the root): its next sibling, or
   * inside that sibling when it is an empty element whose name ends in
   * "Signature" (SMEV 3's CallerInformationSystemSignature) */
  GOSTX_XMLDSIG_DETACHED
} gostx_xmldsig_form;

/* How gostx_xmldsig_sign signs. */
typedef struct gostx_xmldsig_sign_opts {
  /* "" or NULL: the whole document (Reference URI=""), the Signature the
   * root's last child; else the element whose Id (Id, ID, id or wsu:Id) is
   * ref (URI="#ref"). Where the Signature goes: form. */
  const char *ref;
  gostx_xmldsig_form form;
  int inclusive; /* 1: Canonical XML 1.0 instead of exclusive c14n */
  int smev;      /* 1: the SMEV 3 transform after the canonicalization */
  /* 1: WS-Security's form: the Signature in the SOAP Header's
   * wsse:Security beside a BinarySecurityToken of the certificate, KeyInfo
   * a SecurityTokenReference to it; ref "" signs the Body. form must not be
   * enveloping (the Signature is detached). */
  int wsse;
  /* the signer's certificate (DER; put in KeyInfo/X509Data): the key's */
  const uint8_t *cert_der;
  size_t cert_len;
  /* further certificates for X509Data after the signer's (intermediates
   * for the verifier's chain); none with wsse */
  const gostx_x509_cert *chain;
  size_t chain_n;
} gostx_xmldsig_sign_opts;

/* Signs xml[len] with key (the library's key object, its private part)
 * whose certificate is opts->cert_der: *out (malloc'd,
 * *out_len bytes) the signed document. GOSTX_XMLDSIG_OK, or the status
 * that refused the input, with a line in err[err_cap]. */
gostx_xmldsig_status gostx_xmldsig_sign(const uint8_t *xml, size_t len,
                                        const gostx_xmldsig_sign_opts *opts,
                                        const gostx_gost3410_key *key, uint8_t **out,
                                        size_t *out_len, char *err, size_t err_cap);

/* One Signature of a verified document: where it is, what it covered, who
 * signed it. */
typedef struct gostx_xmldsig_signature {
  char where[128];   /* the name of the element it sits in ("" when it is the root) */
  /* each Reference's URI and the element it names ("the document" for
   * ""), then ", holding Signature N" for each other Signature in what it
   * signed (numbers 1-based, in document order), "; " between References */
  char covers[384];
  char subject[256]; /* its signer's certificate's subject, as text */
  size_t refs;       /* its References */
  size_t offset, len; /* what they signed: signed_data[offset, offset + len) */
  /* its signer's certificate (KeyInfo's first), DER: malloc'd, freed by
   * gostx_xmldsig_result_free; NULL from the streaming verifier */
  uint8_t *cert;
  size_t cert_len;
} gostx_xmldsig_signature;

/* One Reference verified: the number of its Signature (1-based), its URI
 * (as the document writes it, its first 255 bytes; "" the whole document)
 * and what it signed: signed_data[offset, offset + len). */
typedef struct gostx_xmldsig_reference {
  size_t signature;
  char uri[256];
  size_t offset, len;
} gostx_xmldsig_reference;

/* What gostx_xmldsig_verify found. signed_data: what each Reference of
 * each Signature (in document order) signed, after its transforms (the
 * canonical octets that were digested), one after another: the only data
 * an application may take as signed. */
typedef struct gostx_xmldsig_result {
  uint8_t *signed_data; /* malloc'd; free with gostx_xmldsig_result_free */
  size_t signed_len;
  size_t refs;                 /* References verified */
  /* those References in order, refs of them (malloc'd; NULL from the
   * streaming verifier, whose signed data is never held) */
  gostx_xmldsig_reference *ref;
  gostx_x509_status x509;      /* with GOSTX_XMLDSIG_CHAIN: the chain's status */
  char why[512];               /* one line: what was refused and where */
  /* with GOSTX_XMLDSIG_CHAIN: the depth in the path built of the
   * certificate that failed (0 the signer's) and its subject as text ("" when
   * unknown), as gostx x509 verify names them */
  size_t depth;
  char subject[256];
  /* the document's Signatures: nsig of them (at most
   * GOSTX_XMLDSIG_MAX_SIGNATURES); sig[i] filled for those verified, and
   * sig[i].where for the one refused; failed: the number (1-based) of the
   * Signature refused, 0 when none or the document itself was */
  size_t nsig, failed;
  gostx_xmldsig_signature sig[GOSTX_XMLDSIG_MAX_SIGNATURES];
} gostx_xmldsig_result;
void gostx_xmldsig_result_free(gostx_xmldsig_result *r);

/* Verifies every Signature of xml[len], in document order, each on its
 * own: every Reference's digest, the SignatureValue under the leaf
 * certificate of its KeyInfo, and that certificate's chain through
 * lib/x509 (gostx_x509_verify_with: store and opts; the other certificates
 * of KeyInfo as intermediates). A Signature may lie inside what another
 * signs (SMEV 3's sender signature inside the Response SMEV signs); one that
 * copies another, or a Reference into another Signature's own nodes, is
 * GOSTX_XMLDSIG_SECOND_SIGNATURE. The first refusal stops: res->failed
 * names the Signature. */
gostx_xmldsig_status gostx_xmldsig_verify(const uint8_t *xml, size_t len,
                                          const gostx_x509_store *store,
                                          const gostx_x509_verify_opts *opts,
                                          gostx_xmldsig_result *res);
/* The same with untrusted[n_untrusted] (any order) as intermediates too,
 * after those of KeyInfo: -untrusted's file. */
gostx_xmldsig_status gostx_xmldsig_verify_untrusted(const uint8_t *xml, size_t len,
                                                    const gostx_x509_store *store,
                                                    const gostx_x509_verify_opts *opts,
                                                    const gostx_x509_cert *untrusted,
                                                    size_t n_untrusted,
                                                    gostx_xmldsig_result *res);

/* Big documents (docs/XMLDSIG.md, "Big documents"): the document read and
 * the output written through callbacks as they stream, in memory bounded
 * by the document's depth, its largest node and its Signature's
 * SignedInfo and KeyInfo, never by its size (no GOSTX_XMLDSIG_MAX_SIZE). */
typedef struct gostx_xmldsig_io {
  /* up to cap bytes of the document into buf: their number, 0 at its end,
   * -1 when reading failed */
  long (*read)(void *ctx, uint8_t *buf, size_t cap);
  void *read_ctx;
  /* p[n] appended to the output: 0, or nonzero when writing failed */
  int (*write)(void *ctx, const uint8_t *p, size_t n);
  /* sign only: p[n] written again over the output's first n bytes (the
   * Signature's head, whose digest is known only at the end) */
  int (*rewrite)(void *ctx, const uint8_t *p, size_t n);
  void *write_ctx;
} gostx_xmldsig_io;

/* An enveloping signature (opts->form GOSTX_XMLDSIG_ENVELOPING; exclusive
 * c14n, no SMEV transform, no WS-Security) of the document io->read gives,
 * written through io->write and io->rewrite: the Signature the root, the
 * document's element inside its ds:Object, its content written again from
 * the parser's events (comments kept; what lies outside the document's
 * element is left out). Only the Object's Id is checked for duplicates.
 * On a refusal what was written must be discarded. */
gostx_xmldsig_status gostx_xmldsig_sign_stream(const gostx_xmldsig_io *io,
                                               const gostx_xmldsig_sign_opts *opts,
                                               const gostx_gost3410_key *key, char *err,
                                               size_t err_cap);

/* gostx_xmldsig_verify_untrusted of an enveloping signature (the
 * document's root a ds:Signature), streamed: SignedInfo, KeyInfo and the
 * Signature's other children but its ds:Objects read into a small tree,
 * the Objects streamed through exclusive c14n into the digests. Every
 * Reference must name by Id an element inside an Object, with exclusive
 * c14n without comments or PrefixList (enveloped-signature allowed), one
 * Reference per element, in document order, none inside another (else
 * GOSTX_XMLDSIG_UNSUPPORTED); Ids are checked unique for the ones the
 * References name. What was signed is written through io->write as it is
 * digested (res->signed_len counts it, res->signed_data stays NULL): the
 * caller must discard it unless GOSTX_XMLDSIG_OK comes back. */
gostx_xmldsig_status gostx_xmldsig_verify_stream(const gostx_xmldsig_io *io,
                                                 const gostx_x509_store *store,
                                                 const gostx_x509_verify_opts *opts,
                                                 const gostx_x509_cert *untrusted,
                                                 size_t n_untrusted, gostx_xmldsig_result *res);

#ifdef __cplusplus
}
#endif
#endif
