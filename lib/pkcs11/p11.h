/* lib/pkcs11: what uri.c, error.c, module.c and key.c share (internal). */
#ifndef GOSTX_PKCS11_P11_H
#define GOSTX_PKCS11_P11_H

#include "gostx/pkcs11.h"
#include "internal.h"
#include "pkcs11/cryptoki.h"

/* Sets this thread's last error (gostx_p11_error) and returns rc, for
 * `return gostx__p11_fail(rc, kind, "...", ...)`. */
int gostx__p11_fail(int rc, gostx_p11_status kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clears it (a call that succeeds). */
void gostx__p11_ok(void);

/* ---- modules and tokens (module.c), for the keys (key.c) ---- */
#define MODULE_PATH_MAX (GOSTX_P11_PATH_MAX + 32) /* module-name's with a folder and affixes */

typedef struct p11_module {
  char path[MODULE_PATH_MAX];
  void *dl;
  CK_FUNCTION_LIST *f;
  int finalize; /* we initialised it (another part of the process may have) */
  struct p11_module *next;
} p11_module;

/* The module the URI names (module-path, module-name or p11-kit's proxy),
 * loaded and initialised once per process; NULL with the error set. */
p11_module *gostx__p11_module_get(const gostx_p11_uri *u);
/* The one initialised token of m that the URI's path attributes match:
 * its slot, and its label for messages. */
int gostx__p11_token_find(p11_module *m, const gostx_p11_uri *u, CK_SLOT_ID *slot,
                          char label[33]);
/* 1 when rv says the session or its token is gone (removed, closed). */
int gostx__p11_gone(CK_RV rv);
/* Sets the error for a failed call (wrong PIN, locked, removed, ... named
 * by rv) and returns the library's code. */
int gostx__p11_ck_fail(CK_RV rv, const char *call, const char *token);

#endif
