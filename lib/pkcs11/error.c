/* lib/pkcs11: this thread's last error (include/gostx/pkcs11.h, "errors"). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "p11.h"

static _Thread_local gostx_p11_status last_kind;
static _Thread_local char last_msg[512];

int gostx__p11_fail(int rc, gostx_p11_status kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_msg, sizeof last_msg, fmt, ap);
  va_end(ap);
  last_kind = kind;
  return rc;
}

void gostx__p11_ok(void) {
  last_kind = GOSTX_P11_OK;
  last_msg[0] = 0;
}

void gostx_p11_error_clear(void) { gostx__p11_ok(); }

gostx_p11_status gostx_p11_error(char *buf, size_t cap) {
  if (buf && cap) snprintf(buf, cap, "%s", last_kind ? last_msg : "no error");
  return last_kind;
}
