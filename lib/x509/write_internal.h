/* lib/x509's writing side (write_*.c), shared by its files: the public
 * declarations and the error text helper. */
#ifndef GOSTX_X509_WRITE_INTERNAL_H
#define GOSTX_X509_WRITE_INTERNAL_H

#include "gostx/x509_write.h"
#include "x509/x509_internal.h"

/* fmt into err[cap] (when err is not NULL); GOSTX_EINVAL. */
int gostx__x509_fail(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* write_cert.c's pieces that write_crl.c uses too. */
/* 1 when k can sign: a GOST R 34.10-2012 key with its private part. */
int gostx__x509_key_ok(const gostx_gost3410_key *k);
/* The signature AlgorithmIdentifier of a len-byte (32, 64) key. */
void gostx__x509_put_sig_alg(gostx__der_w *w, size_t len);
/* A signed object (X.509's SIGNED{}: a certificate, a CRL, a PKCS#10
 * request) written once for all three: sign_open starts w on out[cap]
 * with the outer SEQUENCE and the tbs SEQUENCE open, and gives the tbs's
 * offset; the caller writes the tbs's fields; sign_finish closes the tbs,
 * puts the signatureAlgorithm and the signature by k, closes the outer
 * SEQUENCE and hands out the length (or the signer's or writer's error). */
size_t gostx__x509_sign_open(gostx__der_w *w, uint8_t *out, size_t cap);
int gostx__x509_sign_finish(gostx__der_w *w, size_t start, const gostx_gost3410_key *k, size_t *out_len);
/* After the signed part (from w->buf + start): the algorithm and the
 * signature by k, the outer SEQUENCE left open (what follows the
 * signature: a BasicOCSPResponse's certs; ocsp_response.c). */
int gostx__x509_sign_put(gostx__der_w *w, size_t start, const gostx_gost3410_key *k);
/* A Time (RFC 5280 4.1.2.5: UTCTime through 2049, then GeneralizedTime). */
int gostx__x509_put_time(gostx__der_w *w, int64_t t);
/* The same, GeneralizedTime always when gen (invalidityDate's form). */
int gostx__x509_put_time_as(gostx__der_w *w, int64_t t, int gen);
/* One Extension { OID, critical when TRUE, OCTET STRING value }. */
void gostx__x509_put_ext(gostx__der_w *w, const uint8_t *oid, size_t oid_len, int critical,
                         const uint8_t *value, size_t len);
/* A serial number as 4.1.2.2 has it: 1..20 bytes, positive, not 0. */
int gostx__x509_serial_ok(const uint8_t *p, size_t n);

#endif
