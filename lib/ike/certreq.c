/* CERTREQ (RFC 7296 3.7) for X.509 signatures: the Certification Authority
 * field is a list of SHA-1 hashes, each of a trust anchor's whole
 * SubjectPublicKeyInfo, telling the peer which CAs its chain may end at.
 * SHA-1 is what 3.7 fixes; the hashes are of public keys, not secret. */
#include <string.h>

#include "ike.h"
#include "sha1/sha1.h"
#include "x509/x509_internal.h"

void gostx__ike_ca_hash(const uint8_t *spki, size_t len, uint8_t out[GOSTX_IKE_CA_HASH_LEN]) {
  gostx__sha1(spki, len, out);
}

void gostx__ike_w_certreq(gostx_ike_writer *w, const gostx_x509_store *store) {
  uint8_t cas[GOSTX_IKE_CERTREQ_MAX_CAS * GOSTX_IKE_CA_HASH_LEN];
  size_t n = 0;
  const gostx_x509_cert *a;
  while (n < GOSTX_IKE_CERTREQ_MAX_CAS && (a = gostx__x509_store_at(store, n)) != NULL) {
    gostx__ike_ca_hash(a->spki, a->spki_len, cas + n * GOSTX_IKE_CA_HASH_LEN);
    n++;
  }
  if (n) /* an empty store names no CA: no CERTREQ */
    gostx__ike_w_cert(w, GOSTX_IKE_PT_CERTREQ, GOSTX_IKE_CERT_X509_SIG, cas,
                      n * GOSTX_IKE_CA_HASH_LEN);
}

int gostx__ike_certreq_read(const uint8_t *body, size_t len, const uint8_t **cas, size_t *n) {
  uint8_t enc;
  size_t l;
  if (gostx__ike_cert_read(body, len, &enc, cas, &l) != GOSTX_OK) return GOSTX_EFORMAT;
  if (enc != GOSTX_IKE_CERT_X509_SIG) return GOSTX_EUNSUP;
  if (l % GOSTX_IKE_CA_HASH_LEN) return GOSTX_EFORMAT; /* whole hashes only */
  *n = l / GOSTX_IKE_CA_HASH_LEN;
  return GOSTX_OK;
}

int gostx__ike_certreq_scan(const gostx_ike_chain *c, size_t *n) {
  const uint8_t *cas;
  size_t k;
  *n = 0;
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_CERTREQ); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_CERTREQ)) {
    const int rc = gostx__ike_certreq_read(p->body, p->len, &cas, &k);
    if (rc == GOSTX_EFORMAT) return rc;
    if (rc == GOSTX_OK) *n += k; /* other encodings: not ours to answer (3.7) */
  }
  return GOSTX_OK;
}
