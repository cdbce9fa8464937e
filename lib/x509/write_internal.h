/* lib/x509's writing side (write_*.c), shared by its files: the public
 * declarations and the error text helper. */
#ifndef GOSTX_X509_WRITE_INTERNAL_H
#define GOSTX_X509_WRITE_INTERNAL_H

#include "gostx/x509_write.h"
#include "x509/x509_internal.h"

/* fmt into err[cap] (when err is not NULL); GOSTX_EINVAL. */
int gostx__x509_fail(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
