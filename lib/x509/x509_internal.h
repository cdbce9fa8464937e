/* lib/x509 internals shared by its files: the OIDs (their DER content
 * bytes) and the signature check (signature.c) that path.c, verify.c,
 * profile.c and the tests use. */
#ifndef GOSTX_X509_INTERNAL_H
#define GOSTX_X509_INTERNAL_H

#include "asn1/der.h"

#define OID_SIG_2012_256 "\x2a\x85\x03\x07\x01\x01\x03\x02" /* 1.2.643.7.1.1.3.2 */
#define OID_SIG_2012_512 "\x2a\x85\x03\x07\x01\x01\x03\x03" /* 1.2.643.7.1.1.3.3 */
#define OID_SIG_2001 "\x2a\x85\x03\x02\x02\x03"             /* 1.2.643.2.2.3 */
#define OID_KEY_2012_256 "\x2a\x85\x03\x07\x01\x01\x01\x01" /* 1.2.643.7.1.1.1.1 */
#define OID_KEY_2012_512 "\x2a\x85\x03\x07\x01\x01\x01\x02" /* 1.2.643.7.1.1.1.2 */
#define OID_KEY_2001 "\x2a\x85\x03\x02\x02\x13"             /* 1.2.643.2.2.19 */
#define OID_GOST94_CRYPTOPRO "\x2a\x85\x03\x02\x02\x1e\x01" /* 1.2.643.2.2.30.1 */
#define OID_EXT_KEY_USAGE "\x55\x1d\x0f"                    /* 2.5.29.15 */
#define OID_EXT_SAN "\x55\x1d\x11"                          /* 2.5.29.17 */
#define OID_EXT_BASIC "\x55\x1d\x13"                        /* 2.5.29.19 */
#define OID_EXT_EKU "\x55\x1d\x25"                          /* 2.5.29.37 */
#define OID_EKU_ANY "\x55\x1d\x25\x00"                      /* 2.5.29.37.0 */
#define OID_EXT_NAME_CONSTRAINTS "\x55\x1d\x1e"             /* 2.5.29.30 */
#define OID_EXT_POLICIES "\x55\x1d\x20"                     /* 2.5.29.32 */
#define OID_ANY_POLICY "\x55\x1d\x20\x00"                   /* 2.5.29.32.0 */
#define OID_EXT_POLICY_MAPPINGS "\x55\x1d\x21"              /* 2.5.29.33 */
#define OID_EXT_POLICY_CONSTRAINTS "\x55\x1d\x24"           /* 2.5.29.36 */
#define OID_EXT_INHIBIT_ANY "\x55\x1d\x36"                  /* 2.5.29.54 */
#define OID_EMAIL_ADDRESS "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x01" /* 1.2.840.113549.1.9.1 */
#define OID_EKU_SERVER "\x2b\x06\x01\x05\x05\x07\x03\x01"   /* 1.3.6.1.5.5.7.3.1 */
#define OID_EKU_CLIENT "\x2b\x06\x01\x05\x05\x07\x03\x02"   /* 1.3.6.1.5.5.7.3.2 */
#define OID_EKU_IPSEC_IKE "\x2b\x06\x01\x05\x05\x07\x03\x11" /* 1.3.6.1.5.5.7.3.17 */
#define OID_EKU_CODE "\x2b\x06\x01\x05\x05\x07\x03\x03"      /* 1.3.6.1.5.5.7.3.3 */
#define OID_EKU_EMAIL "\x2b\x06\x01\x05\x05\x07\x03\x04"     /* 1.3.6.1.5.5.7.3.4 */
#define OID_EKU_TIMESTAMP "\x2b\x06\x01\x05\x05\x07\x03\x08" /* 1.3.6.1.5.5.7.3.8 */

/* GeneralName tags (RFC 5280 section 4.2.1.6). */
#define SAN_EMAIL GOSTX__DER_CTX(1)
#define SAN_DNS GOSTX__DER_CTX(2)
#define SAN_DIR GOSTX__DER_CTXC(4) /* EXPLICIT: Name is a CHOICE */
#define SAN_URI GOSTX__DER_CTX(6)
#define SAN_IP GOSTX__DER_CTX(7)

/* A Name's RDNSequence content, checked: SEQUENCE OF SET OF SEQUENCE
 * { OID, one element }. */
int gostx__x509_check_name(gostx__der name);

/* 1 when the two Names (whole DER elements) are the same bytes, or both
 * well formed and the same name after RFC 4518 string preparation (RFC
 * 5280 section 7.1): the one comparison of names in lib/ (lib/x509's
 * paths, lib/cms's issuerAndSerialNumber and IssuerSerial). */
int gostx__x509_name_equal(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);
/* 1 when the Name (its RDNSequence content) begins with the RDNs of the
 * constraint's (RFC 5280 4.2.1.10's directoryName subtree). */
int gostx__x509_name_within(gostx__der name, gostx__der subtree);

/* RFC 5280 6.1.3(b)(c) and 6.1.4(g) over a built path (leaf first, the
 * anchor last): GOSTX_X509_OK, or GOSTX_X509_NAME_CONSTRAINTS with the
 * failed certificate's index in *depth and why[cap] saying what. */
gostx_x509_status gostx__x509_name_constraints(const gostx_x509_cert *const *path, size_t len,
                                               size_t *depth, char *why, size_t cap);
/* RFC 5280 6.1's policy processing over the same path. */
gostx_x509_status gostx__x509_policies(const gostx_x509_cert *const *path, size_t len,
                                       size_t *depth, char *why, size_t cap);
/* 1 when c's issuer and subject are the same name (RFC 5280 6.1). */
int gostx__x509_self_issued(const gostx_x509_cert *c);
/* names.c: the most comparisons of one certificate's names against one
 * CA's subtrees (names times subtrees) before the path is refused: what
 * a hostile chain may cost, and far above what real constraints ask. */
#define GOSTX__X509_NC_WORK_MAX (1u << 20)

/* 0 when cert's signature verifies under issuer's key (the algorithm and
 * key size must fit); GOSTX_EAUTH when it does not, GOSTX_EUNSUP when the
 * issuer's key cannot make that signature. */
int gostx__x509_check_signature(const gostx_x509_cert *cert, const gostx_x509_cert *issuer,
                                gostx_x509_sig_memo *memo);
/* signature.c: gostx_gost3410_verify of sig[sig_len] over digest[len]
 * under key's public key, answered from memo when it holds exactly these
 * inputs as valid, else verified (and, valid, held); memo NULL: verified. */
int gostx__x509_verify_digest(gostx_x509_sig_memo *memo, const gostx_x509_cert *key, const uint8_t *digest,
                              size_t len, const uint8_t *sig, size_t sig_len);

/* verify.c: RFC 5280 6.1's checks of one built path (leaf first, the
 * anchor last) for o's time, purpose and name: GOSTX_X509_OK, or the
 * first that failed, the index of the certificate in *depth and, for name
 * constraints and policies, what failed in why[why_cap]. */
gostx_x509_status gostx__x509_check_path(const gostx_x509_cert *const *path, size_t len,
                                         const gostx_x509_verify_opts *o, size_t *depth,
                                         char *why, size_t why_cap);

/* path.c: gostx_x509_verify_with over an array of anchors (store.c holds
 * them). */
gostx_x509_status gostx__x509_verify_path(const gostx_x509_cert *anchors, size_t n_anchors,
                                          const gostx_x509_cert *chain, size_t n,
                                          const gostx_x509_verify_opts *o, size_t *depth,
                                          const gostx_x509_cert **path, size_t cap,
                                          size_t *path_len, char *why, size_t why_cap);

/* profile.c: RFC 5280 section 4's MUSTs over a built path (leaf first):
 * GOSTX_X509_OK, or GOSTX_X509_PROFILE with the failed certificate's
 * index in *depth and the rule in why[cap]. */
gostx_x509_status gostx__x509_profile(const gostx_x509_cert *const *path, size_t len,
                                      size_t *depth, char *why, size_t cap, gostx_x509_sig_memo *memo);
/* verify_opts.c: the leaf's keyUsage bits and email address that opts
 * (NULL: none) asks; the refusal in why[cap]. */
gostx_x509_status gostx__x509_leaf_opts(const gostx_x509_cert *leaf,
                                        const gostx_x509_verify_opts *opts, char *why,
                                        size_t cap);

/* signature.c: a signature AlgorithmIdentifier read from r (a GOST one, its
 * parameters absent or NULL): GOSTX_EFORMAT, with *st UNSUPPORTED for
 * another algorithm. */
int gostx__x509_sig_alg(gostx__der *r, gostx_x509_sig_alg *alg, gostx_x509_status *st);
/* x509.c: the extnValue content of c's extension oid[len]: 1, or 0 when
 * it has none. */
int gostx__x509_cert_ext(const gostx_x509_cert *c, const uint8_t *oid, size_t oid_len,
                         gostx__der *value);
/* signature.c: a signature over tbs[tbs_len] (the algorithm alg, the value
 * s || r) checked under issuer's key, as gostx__x509_check_signature. */
int gostx__x509_check_sig(gostx_x509_sig_alg alg, const uint8_t *tbs, size_t tbs_len,
                          const uint8_t *sig_value, size_t sig_len, const gostx_x509_cert *issuer,
                          gostx_x509_sig_memo *memo);
/* A signed object's ToBeSigned content read into obj (a certificate's,
 * a CRL's): its own signature field's AlgorithmIdentifier element into
 * *alg_inner. 0; GOSTX_EFORMAT with *st when it names the failure. */
typedef int (*gostx__x509_tbs_reader)(gostx__der tbs, void *obj, gostx__der *alg_inner,
                                      gostx_x509_status *st);
/* A signed object's public struct being parsed: obj (size bytes, zeroed
 * and set up by the caller), its reader, the fields its views go to (the
 * whole DER, the whole tbs element: what is signed, the signature value
 * s || r) and the status that names it malformed. */
typedef struct gostx__x509_signed {
  gostx__x509_tbs_reader read_tbs;
  void *obj;
  size_t size;
  const uint8_t **der, **tbs, **sig;
  size_t *der_len, *tbs_len, *sig_len;
  gostx_x509_status malformed;
} gostx__x509_signed;
/* The gostx__x509_signed of o, a gostx_x509_cert or a gostx_x509_crl: both
 * name their views der, tbs and sig_value alike. */
#define GOSTX__X509_SIGNED(o, reader, bad)                                                  \
  {.read_tbs = (reader), .obj = &(o), .size = sizeof(o), .malformed = (bad), .der = &(o).der, \
   .der_len = &(o).der_len, .tbs = &(o).tbs, .tbs_len = &(o).tbs_len, .sig = &(o).sig_value,   \
   .sig_len = &(o).sig_value_len}
/* signature.c: der[len] read as X.509's SIGNED{} (a certificate, RFC 5280
 * 4.1; a CRL, 5.1): SEQUENCE { tbs SEQUENCE, signatureAlgorithm, signature
 * BIT STRING }, all of der. d->read_tbs reads the tbs's content; the outer
 * signatureAlgorithm must be its alg_inner's bytes (4.1.1.2, 5.1.1.2), the
 * value as long as the algorithm's. 0 with d's object copied whole to out
 * (padding too: two parses compare equal), *st (NULL: none) OK;
 * GOSTX_EINVAL; GOSTX_EFORMAT with *st d->malformed, as read_tbs left it,
 * SIG_ALG_MISMATCH or the algorithm's status. */
int gostx__x509_signed_parse(const uint8_t *der, size_t len, const gostx__x509_signed *d, void *out,
                             gostx_x509_status *st);
/* crl_status.c: the revocation checks opts asks of a built path (leaf
 * first, the anchor last): GOSTX_X509_OK, or the first certificate's
 * status that is not, its index in *depth and why[cap]. */
gostx_x509_status gostx__x509_revocation(const gostx_x509_cert *const *path, size_t len,
                                         const gostx_x509_verify_opts *o, size_t *depth,
                                         char *why, size_t cap);

/* crl_status.c: gostx_x509_crl_status with the CRLs' signatures through
 * the run's memo (NULL: none) */
gostx_x509_status gostx__x509_crl_status(const gostx_x509_crl *crls, size_t n, const gostx_x509_cert *cert,
                                         const gostx_x509_cert *issuer, int64_t now, gostx_x509_revocation *out,
                                         gostx_x509_sig_memo *memo);

/* store.c: anchor i of store (its views into the store's copy), NULL
 * past the last: what an IKEv2 CERTREQ names (lib/ike/certreq.c). */
const gostx_x509_cert *gostx__x509_store_at(const gostx_x509_store *store, size_t i);

#endif
