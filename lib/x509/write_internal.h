/* lib/x509's writing side (write_*.c), shared by its files: the public
 * declarations and the error text helper. */
#ifndef GOSTX_X509_WRITE_INTERNAL_H
#define GOSTX_X509_WRITE_INTERNAL_H

#include "gostx/x509_write.h"
#include "x509/x509_internal.h"

/* fmt into err[cap] (when err is not NULL); GOSTX_EINVAL. */
int gostx__x509_fail(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* write_cert.c, for the other signed structures (ocsp_response.c): a key
 * that can sign (private part, 32 or 64 bytes); after the signed part at
 * w->buf + start, the algorithm and the signature written and the outer
 * SEQUENCE closed; a time as UTCTime for 1950..2049 (RFC 5280 4.1.2.5),
 * GeneralizedTime after or when generalized (RFC 6960 has only that). */
int gostx__x509_key_ok(const gostx_gost3410_key *k);
int gostx__x509_sign_close(gostx__der_w *w, size_t start, const gostx_gost3410_key *k);
/* The same with the outer SEQUENCE left open (what follows the signature:
 * a BasicOCSPResponse's certs). */
int gostx__x509_sign_put(gostx__der_w *w, size_t start, const gostx_gost3410_key *k);
int gostx__x509_put_time(gostx__der_w *w, int64_t t, int generalized);

#endif
