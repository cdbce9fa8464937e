/* SignedInfo as read by refs.c (verification's view of it). */
#ifndef GOSTX_XMLDSIG_REFS_H
#define GOSTX_XMLDSIG_REFS_H

#include "internal.h"

typedef struct xd_ref {
  char uri[256];
  xmlNodePtr target;
  xd_transforms t;
  int alg;            /* xd_digest_alg */
  uint8_t digest[64]; /* the DigestValue claimed */
} xd_ref;

typedef struct xd_signed {
  xmlNodePtr node;   /* SignedInfo */
  xd_transforms c14n; /* its CanonicalizationMethod (c14n = 1) */
  int alg;            /* the digest of xd_sig_alg */
  size_t key_len;     /* 32 or 64 */
  int legacy;         /* GOST R 34.10-2001 */
  xd_ref refs[GOSTX_XMLDSIG_MAX_REFS];
  size_t nrefs;
} xd_signed;

/* SignedInfo, the first element of sig, read and checked: every algorithm
 * known, every Reference's target found (Ids unique in root's document).
 * root NULL: targets left NULL, found as the document streams
 * (verify_stream.c), and URI="" refused. */
gostx_xmldsig_status xd_signed_info(xmlNodePtr root, xmlNodePtr sig, xd_signed *s, char *err,
                                    size_t cap);
void xd_signed_free(xd_signed *s);

/* verify.c's checks, shared with verify_stream.c. KeyInfo's certificates,
 * the leaf first: */
#define XD_MAX_CERTS 8
typedef struct xd_certs {
  uint8_t *der[XD_MAX_CERTS];
  gostx_x509_cert c[XD_MAX_CERTS];
  size_t n;
} xd_certs;
void xd_certs_free(xd_certs *l);
/* X509Data/X509Certificate, or WS-Security's SecurityTokenReference to a
 * BinarySecurityToken of root's document by Id. */
gostx_xmldsig_status xd_key_info(xmlNodePtr root, xmlNodePtr sig, xd_certs *l, char *err,
                                 size_t cap);
/* SignatureValue over the canonical SignedInfo under leaf's key. */
gostx_xmldsig_status xd_check_value(xmlDocPtr doc, xmlNodePtr sig, const xd_signed *s,
                                    const gostx_x509_cert *leaf, char *err, size_t cap);
/* KeyInfo's certificates then untrusted as intermediates, to store's anchors. */
gostx_xmldsig_status xd_check_chain(const xd_certs *l, const gostx_x509_store *store,
                                    const gostx_x509_verify_opts *opts,
                                    const gostx_x509_cert *untrusted, size_t n_untrusted,
                                    gostx_xmldsig_result *res);

#endif
