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
 * known, every Reference's target found (Ids unique in root's document). */
gostx_xmldsig_status xd_signed_info(xmlNodePtr root, xmlNodePtr sig, xd_signed *s, char *err,
                                    size_t cap);
void xd_signed_free(xd_signed *s);

#endif
