/* libFuzzer harness: the RFC 7512 PKCS#11 URI parser (lib/pkcs11/uri.c),
 * which reads whatever a user or a config file gives as a key name. The
 * input is the URI text (cut at its first NUL).
 *
 * Asserts (abort on the first violation), besides what ASan/UBSan find:
 *  - the parser answers 0 or GOSTX_EFORMAT, and a refusal says why;
 *  - a URI accepted and written again with every value percent-encoded
 *    byte by byte parses to the same values (a parse that lost, kept or
 *    made up a byte would show here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx/pkcs11.h"
#define FUZZ_NAME "fuzz_p11_uri"
#include "fuzz_check.h"

/* name=VALUE with each byte of v as %XX, after sep. */
static size_t put(char *out, size_t at, size_t cap, char sep, const char *name,
                  const uint8_t *v, size_t n) {
  at += (size_t)snprintf(out + at, cap - at, "%s%s=", at && sep ? (char[]){sep, 0} : "", name);
  for (size_t i = 0; i < n && at + 4 < cap; i++) at += (size_t)snprintf(out + at, cap - at, "%%%02X", v[i]);
  return at;
}

#define PUT_TEXT(bit, name, field)                                                          \
  if (u->has & (bit)) {                                                                     \
    at = put(out, at, cap, first ? 0 : ';', name, (const uint8_t *)u->field, strlen(u->field)); \
    first = 0;                                                                              \
  }

static void write_uri(const gostx_p11_uri *u, char *out, size_t cap) {
  static const char *const types[] = {"", "private", "public", "cert", "secret-key", "data"};
  size_t at = (size_t)snprintf(out, cap, "pkcs11:");
  int first = 1;
  PUT_TEXT(GOSTX_P11_HAS_TOKEN, "token", token)
  PUT_TEXT(GOSTX_P11_HAS_MANUFACTURER, "manufacturer", manufacturer)
  PUT_TEXT(GOSTX_P11_HAS_SERIAL, "serial", serial)
  PUT_TEXT(GOSTX_P11_HAS_MODEL, "model", model)
  PUT_TEXT(GOSTX_P11_HAS_LIB_MANUFACTURER, "library-manufacturer", lib_manufacturer)
  PUT_TEXT(GOSTX_P11_HAS_LIB_DESCRIPTION, "library-description", lib_description)
  PUT_TEXT(GOSTX_P11_HAS_SLOT_DESCRIPTION, "slot-description", slot_description)
  PUT_TEXT(GOSTX_P11_HAS_SLOT_MANUFACTURER, "slot-manufacturer", slot_manufacturer)
  PUT_TEXT(GOSTX_P11_HAS_OBJECT, "object", object)
  if (u->has & GOSTX_P11_HAS_ID) {
    at = put(out, at, cap, first ? 0 : ';', "id", u->id, u->id_len);
    first = 0;
  }
  if (u->has & GOSTX_P11_HAS_TYPE) {
    at += (size_t)snprintf(out + at, cap - at, "%stype=%s", first ? "" : ";", types[u->type]);
    first = 0;
  }
  if (u->has & GOSTX_P11_HAS_LIB_VERSION) {
    at += (size_t)snprintf(out + at, cap - at, "%slibrary-version=%u.%u", first ? "" : ";",
                           u->lib_version_major, u->lib_version_minor);
    first = 0;
  }
  if (u->has & GOSTX_P11_HAS_SLOT_ID) {
    at += (size_t)snprintf(out + at, cap - at, "%sslot-id=%lu", first ? "" : ";", u->slot_id);
    first = 0;
  }
  at += (size_t)snprintf(out + at, cap - at, "?");
  first = 1;
  PUT_TEXT(GOSTX_P11_HAS_MODULE_PATH, "module-path", module_path)
  PUT_TEXT(GOSTX_P11_HAS_MODULE_NAME, "module-name", module_name)
  PUT_TEXT(GOSTX_P11_HAS_PIN_SOURCE, "pin-source", pin_source)
  PUT_TEXT(GOSTX_P11_HAS_PIN_VALUE, "pin-value", pin_value)
  /* the query's separator is '&', not ';' */
  for (char *q = strchr(out, '?'); q && *q; q++)
    if (*q == ';') *q = '&';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gostx_p11_uri u, v;
  static char text[8192], again[65536];
  char why[256];
  if (size >= sizeof text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  int rc = gostx_p11_uri_parse(&u, text, why, sizeof why);
  if (rc != 0 && rc != GOSTX_EFORMAT) bug("an answer other than 0 or GOSTX_EFORMAT");
  if (rc) {
    if (!why[0]) bug("a refusal that does not say why");
    return 0;
  }
  write_uri(&u, again, sizeof again);
  if (gostx_p11_uri_parse(&v, again, why, sizeof why)) {
    fprintf(stderr, "%s\n%s\n", again, why);
    bug("an accepted URI written again is refused");
  }
  /* the vendor's attribute is not written back: compare the rest */
  memset(u.unknown, 0, sizeof u.unknown);
  memset(v.unknown, 0, sizeof v.unknown);
  /* which one is named first follows the order written: only whether */
  if (!u.too_long[0] != !v.too_long[0]) bug("too_long changed in the round trip");
  memset(u.too_long, 0, sizeof u.too_long);
  memset(v.too_long, 0, sizeof v.too_long);
  if (memcmp(&u, &v, sizeof u)) bug("a round trip changed the URI's values");
  return 0;
}
