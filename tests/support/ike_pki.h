/* A test PKI written with lib/x509 (test_ike_cert, test_ike_engine): keys
 * and certificates valid from IKE_PKI_T0 to IKE_PKI_T1. */
#ifndef GOSTX_TEST_IKE_PKI_H
#define GOSTX_TEST_IKE_PKI_H

#include "gostx/gost3410.h"
#include "gostx/x509.h"
#include "gostx/x509_crl.h"
#include "gostx/x509_write.h"

#define IKE_PKI_T0 ((int64_t)1800000000)
#define IKE_PKI_T1 ((int64_t)1900000000)

typedef struct pki_key {
  gostx_gost3410_key k;
  uint8_t spki[GOSTX_GOST3410_DER_MAX];
  size_t spki_len;
} pki_key;

typedef struct pki_cert {
  uint8_t der[4096];
  size_t len;
  gostx_x509_cert c;
  gostx_x509_name name;
} pki_cert;

/* A new key on curve (a failed CHECK otherwise). */
void pki_make_key(gostx_gost3410_curve curve, pki_key *k);
/* A certificate for subj and key, its extension lines ext (NULL-ended),
 * issued by issuer (NULL: self-signed by key). */
void pki_make_cert(pki_cert *out, const char *subj, const pki_key *key, const char *const *ext,
                   const pki_cert *issuer, const pki_key *issuer_key);
/* A new key on curve into key, and its certificate (pki_make_cert's). */
void pki_make(pki_cert *out, pki_key *key, gostx_gost3410_curve curve, const char *subj,
              const char *const *ext, const pki_cert *issuer, const pki_key *issuer_key);
/* A CRL of issuer's from IKE_PKI_T0 to next_update listing revoked[n] (at
 * most 2; keyCompromise, at IKE_PKI_T0) into der (cap), parsed into *crl
 * (which points into der). */
void pki_make_crl(const pki_cert *issuer, const pki_key *issuer_key,
                  const pki_cert *const *revoked, size_t n, int64_t next_update, uint8_t *der,
                  size_t cap, gostx_x509_crl *crl);

#endif
