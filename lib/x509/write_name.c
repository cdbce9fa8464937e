/* Names from openssl's -subj text (include/gostx/x509_write.h): each
 * attribute with the string type and bounds RFC 5280 Appendix A gives it
 * (and, for the Russian registration numbers, the NumericString of the
 * FNS/Roskomnadzor profiles that openssl also applies). */
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

#include "x509/write_internal.h"

#define STR_UTF8 0x0c
#define STR_PRINTABLE 0x13
#define STR_IA5 0x16
#define STR_NUMERIC 0x12

static const struct attr {
  const char *name, *long_name, *oid;
  uint8_t type;
  unsigned min, max; /* characters */
} attrs[] = {
    {"CN", "commonName", "2.5.4.3", STR_UTF8, 1, 64},
    {"C", "countryName", "2.5.4.6", STR_PRINTABLE, 2, 2},
    {"L", "localityName", "2.5.4.7", STR_UTF8, 1, 128},
    {"ST", "stateOrProvinceName", "2.5.4.8", STR_UTF8, 1, 128},
    {"O", "organizationName", "2.5.4.10", STR_UTF8, 1, 64},
    {"OU", "organizationalUnitName", "2.5.4.11", STR_UTF8, 1, 64},
    {"title", "title", "2.5.4.12", STR_UTF8, 1, 64},
    {"GN", "givenName", "2.5.4.42", STR_UTF8, 1, 32768},
    {"SN", "surname", "2.5.4.4", STR_UTF8, 1, 32768},
    {"street", "streetAddress", "2.5.4.9", STR_UTF8, 1, 128},
    {"serialNumber", "serialNumber", "2.5.4.5", STR_PRINTABLE, 1, 64},
    {"emailAddress", "emailAddress", "1.2.840.113549.1.9.1", STR_IA5, 1, 255},
    {"INN", "INN", "1.2.643.3.131.1.1", STR_NUMERIC, 1, 12},
    {"INNLE", "INNLE", "1.2.643.100.4", STR_NUMERIC, 1, 12},
    {"OGRN", "OGRN", "1.2.643.100.1", STR_NUMERIC, 1, 13},
    {"SNILS", "SNILS", "1.2.643.100.3", STR_NUMERIC, 1, 11},
    {"OGRNIP", "OGRNIP", "1.2.643.100.5", STR_NUMERIC, 1, 15},
};

int gostx__x509_fail(char *err, size_t cap, const char *fmt, ...) {
  if (err && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
  }
  return GOSTX_EINVAL;
}

/* The characters of well-formed UTF-8 (no overlong forms, no surrogates,
 * nothing above U+10FFFF, no NUL), or -1. */
static long utf8_chars(const uint8_t *s, size_t n) {
  long count = 0;
  for (size_t i = 0; i < n; count++) {
    uint8_t c = s[i];
    size_t more = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2
                : c >= 0xf0 && c < 0xf5 ? 3 : 9;
    if (c == 0 || more == 9 || i + more >= n) return -1;
    uint32_t cp = more ? c & (0x3f >> more) : c;
    for (size_t k = 1; k <= more; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return -1;
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    if ((more == 2 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
        (more == 3 && (cp < 0x10000 || cp > 0x10ffff)))
      return -1;
    i += more + 1;
  }
  return count;
}

static int printable_char(uint8_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         strchr(" '()+,-./:=?", c) != NULL;
}

/* The value's characters in the attribute's string type, or -1. */
static long value_chars(uint8_t type, const uint8_t *v, size_t n) {
  if (type == STR_UTF8) return utf8_chars(v, n);
  for (size_t i = 0; i < n; i++) {
    int fits = type == STR_PRINTABLE ? printable_char(v[i])
               : type == STR_NUMERIC ? v[i] >= '0' && v[i] <= '9'
                                     : v[i] > 0 && v[i] < 0x80;
    if (!fits) return -1;
  }
  return (long)n;
}

static const char *type_name(uint8_t type) {
  return type == STR_UTF8 ? "UTF-8" : type == STR_PRINTABLE ? "PrintableString characters"
                                    : type == STR_NUMERIC   ? "digits"
                                                            : "ASCII";
}

/* One "TYPE=VALUE" (the escapes already removed) as an RDN. */
static int put_rdn(gostx__der_w *w, const char *type, const uint8_t *v, size_t n, char *err,
                   size_t cap) {
  struct attr dotted = {type, type, type, STR_UTF8, 1, 32768};
  const struct attr *a = NULL;
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0] && !a; i++)
    if (!strcmp(type, attrs[i].name) || !strcasecmp(type, attrs[i].long_name)) a = &attrs[i];
  uint8_t oid[64];
  size_t oid_len;
  if (!a && gostx__der_oid_encode(type, oid, sizeof oid, &oid_len) == 0) a = &dotted;
  if (!a) return gostx__x509_fail(err, cap, "unknown attribute type '%s'", type);
  long chars = value_chars(a->type, v, n);
  if (chars < 0) return gostx__x509_fail(err, cap, "%s: the value must be %s", type, type_name(a->type));
  if ((unsigned long)chars < a->min || (unsigned long)chars > a->max)
    return gostx__x509_fail(err, cap, a->min == a->max ? "%s: the value must be %u characters"
                                                       : "%s: the value must be %u to %u characters",
                            type, a->min, a->max);
  gostx__der_w_begin(w, GOSTX__DER_SET);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, a->oid);
  gostx__der_w_tlv(w, a->type, v, n);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  return 0;
}

/* The next "TYPE=VALUE" of subj at *p (just past a '/'): the type into
 * type[cap_t], the unescaped value into val (*n bytes); *p at the next '/'
 * or the end. */
static int next_attr(const char **p, char *type, size_t cap_t, uint8_t *val, size_t cap_v,
                     size_t *n, char *err, size_t cap) {
  const char *s = *p, *eq = s;
  while (*eq && *eq != '=' && *eq != '/') eq++;
  if (*eq != '=')
    return gostx__x509_fail(err, cap, "'%.*s' has no '=' (the form is /TYPE=VALUE/...)",
                            (int)(eq - s), s);
  if (eq == s || (size_t)(eq - s) >= cap_t) return gostx__x509_fail(err, cap, "empty or overlong attribute type");
  memcpy(type, s, (size_t)(eq - s));
  type[eq - s] = 0;
  *n = 0;
  for (s = eq + 1; *s && *s != '/'; s++) {
    if (*s == '\\' && !*++s) return gostx__x509_fail(err, cap, "%s: '\\' at the end", type);
    if (*n == cap_v) return gostx__x509_fail(err, cap, "%s: value too long", type);
    val[(*n)++] = (uint8_t)*s;
  }
  if (!*n) return gostx__x509_fail(err, cap, "%s: empty value", type);
  *p = s;
  return 0;
}

int gostx_x509_name_parse(const char *subj, gostx_x509_name *name, char *err, size_t err_cap) {
  if (!subj || !name) return GOSTX_EINVAL;
  if (subj[0] != '/') return gostx__x509_fail(err, err_cap, "the subject must start with '/' (/CN=...)");
  gostx__der_w w;
  gostx__der_w_init(&w, name->der, sizeof name->der);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  const char *p = subj;
  int count = 0;
  uint8_t value[1024];
  while (*p == '/' && p[1]) {
    char type[64];
    size_t n = 0;
    p++;
    int rc = next_attr(&p, type, sizeof type, value, sizeof value, &n, err, err_cap);
    if (!rc) rc = put_rdn(&w, type, value, n, err, err_cap);
    if (rc) return rc;
    count++;
  }
  if (*p == '/' && count) p++; /* a trailing '/' as openssl takes it */
  if (*p || !count) return gostx__x509_fail(err, err_cap, count ? "empty attribute ('//')" : "no attribute in the subject");
  gostx__der_w_end(&w);
  if (gostx__der_w_finish(&w, &name->len))
    return gostx__x509_fail(err, err_cap, "the subject is longer than %d bytes of DER", GOSTX_X509_NAME_MAX);
  return 0;
}
