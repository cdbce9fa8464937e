/* lib/pkcs11: what uri.c, error.c and module.c share (internal). */
#ifndef GOSTX_PKCS11_P11_H
#define GOSTX_PKCS11_P11_H

#include "gostx/pkcs11.h"
#include "internal.h"

/* Sets this thread's last error (gostx_p11_error) and returns rc, for
 * `return gostx__p11_fail(rc, kind, "...", ...)`. */
int gostx__p11_fail(int rc, gostx_p11_status kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clears it (a call that succeeds). */
void gostx__p11_ok(void);

#endif
