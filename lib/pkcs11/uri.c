/* lib/pkcs11: RFC 7512 PKCS#11 URIs, parsed strictly (include/gostx/pkcs11.h).
 * The grammar of section 2.3 character by character, its "additional
 * constraints" (no duplicate path attribute, no duplicate defined query
 * attribute, library-version M or M.N), section 2.4's (pin-source and
 * pin-value not both; module-path absolute). Section 2.3's rule that a
 * value PKCS#11 itself would not take (too long for its field) makes the
 * URI invalid is noted here (too_long) and enforced where the URI is
 * matched against a token (module.c). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "p11.h"

static int refuse(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t cap, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (why && cap) snprintf(why, cap, "%s", msg);
  return gostx__p11_fail(GOSTX_EFORMAT, GOSTX_P11_BAD_URI, "bad PKCS#11 URI: %s", msg);
}

static int is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* RFC 3986's unreserved and RFC 7512's pk11-res-avail, then what each
 * component adds: "&" in the path; "/", "?" and "|" in the query. */
static int value_char(char c, int query) {
  if (is_alnum(c) || strchr("-._~:[]@!$'()*+,=", c)) return 1;
  return query ? (c == '/' || c == '?' || c == '|') : c == '&';
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* An attribute: name [name, name + name_len), value [v, v + v_len). */
typedef struct attr {
  const char *name, *v;
  size_t name_len, v_len;
} attr;

static int name_is(const attr *a, const char *s) {
  return strlen(s) == a->name_len && !memcmp(a->name, s, a->name_len);
}

/* The value percent-decoded into out[cap] (text: NUL-terminated, no NUL
 * inside, so cap counts the NUL). */
static int decode(const attr *a, int query, int text, uint8_t *out, size_t cap, size_t *len,
                  char *why, size_t why_cap) {
  size_t n = 0;
  for (size_t i = 0; i < a->v_len; i++) {
    char c = a->v[i];
    int b;
    if (c == '%') {
      int hi = i + 2 < a->v_len ? hexval(a->v[i + 1]) : -1;
      int lo = hi >= 0 ? hexval(a->v[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        return refuse(why, why_cap, "%.*s: '%%' not followed by two hex digits", (int)a->name_len,
                      a->name);
      b = hi * 16 + lo;
      i += 2;
      if (text && b == 0)
        return refuse(why, why_cap, "%.*s: %%00 in a text value", (int)a->name_len, a->name);
    } else if (value_char(c, query)) {
      b = (unsigned char)c;
    } else {
      return refuse(why, why_cap, "%.*s: character 0x%02x must be percent-encoded",
                    (int)a->name_len, a->name, (unsigned char)c);
    }
    if (n >= (text ? cap - 1 : cap))
      return refuse(why, why_cap, "%.*s: longer than %zu bytes",
                    (int)a->name_len, a->name, text ? cap - 1 : cap);
    out[n++] = (uint8_t)b;
  }
  if (text) out[n] = 0;
  if (len) *len = n;
  return 0;
}

/* A value this parser does not keep, held to the grammar all the same. */
static int check_value(const attr *a, int query, char *why, size_t cap) {
  for (size_t i = 0; i < a->v_len; i++) {
    if (a->v[i] == '%') {
      if (i + 2 >= a->v_len || hexval(a->v[i + 1]) < 0 || hexval(a->v[i + 2]) < 0)
        return refuse(why, cap, "%.*s: '%%' not followed by two hex digits",
                      (int)(a->name_len > 40 ? 40 : a->name_len), a->name);
      i += 2;
    } else if (!value_char(a->v[i], query)) {
      return refuse(why, cap, "%.*s: character 0x%02x must be percent-encoded",
                    (int)(a->name_len > 40 ? 40 : a->name_len), a->name, (unsigned char)a->v[i]);
    }
  }
  return 0;
}

/* 1*DIGIT, at most max. */
static int decimal(const char *s, size_t n, unsigned long max, unsigned long *v) {
  unsigned long x = 0;
  if (!n) return -1;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    unsigned d = (unsigned)(s[i] - '0');
    if (x > (max - d) / 10) return -1;
    x = x * 10 + d;
  }
  *v = x;
  return 0;
}

/* The text path attributes: name, where, the size of the field. */
typedef struct text_attr {
  const char *name;
  unsigned bit;
  size_t off, cap;
  size_t field; /* the PKCS#11 field's size (CK_TOKEN_INFO, CK_SLOT_INFO, CK_INFO); 0: none */
} text_attr;
#define TEXT(name, bit, member, field) \
  {name, bit, offsetof(gostx_p11_uri, member), sizeof(((gostx_p11_uri *)0)->member), field}
static const text_attr PATH_TEXT[] = {
    TEXT("token", GOSTX_P11_HAS_TOKEN, token, 32),
    TEXT("manufacturer", GOSTX_P11_HAS_MANUFACTURER, manufacturer, 32),
    TEXT("serial", GOSTX_P11_HAS_SERIAL, serial, 16),
    TEXT("model", GOSTX_P11_HAS_MODEL, model, 16),
    TEXT("library-manufacturer", GOSTX_P11_HAS_LIB_MANUFACTURER, lib_manufacturer, 32),
    TEXT("library-description", GOSTX_P11_HAS_LIB_DESCRIPTION, lib_description, 32),
    TEXT("slot-description", GOSTX_P11_HAS_SLOT_DESCRIPTION, slot_description, 64),
    TEXT("slot-manufacturer", GOSTX_P11_HAS_SLOT_MANUFACTURER, slot_manufacturer, 32),
    TEXT("object", GOSTX_P11_HAS_OBJECT, object, 0),
};
static const text_attr QUERY_TEXT[] = {
    TEXT("module-path", GOSTX_P11_HAS_MODULE_PATH, module_path, 0),
    TEXT("module-name", GOSTX_P11_HAS_MODULE_NAME, module_name, 0),
    TEXT("pin-source", GOSTX_P11_HAS_PIN_SOURCE, pin_source, 0),
    TEXT("pin-value", GOSTX_P11_HAS_PIN_VALUE, pin_value, 0),
};
#undef TEXT

static const char *const TYPES[] = {"private", "public", "cert", "secret-key", "data"};

static int path_attr(gostx_p11_uri *u, const attr *a, char *why, size_t cap) {
  for (size_t i = 0; i < sizeof PATH_TEXT / sizeof *PATH_TEXT; i++)
    if (name_is(a, PATH_TEXT[i].name)) {
      size_t n;
      u->has |= PATH_TEXT[i].bit;
      if (decode(a, 0, 1, (uint8_t *)u + PATH_TEXT[i].off, PATH_TEXT[i].cap, &n, why, cap))
        return GOSTX_EFORMAT;
      if (PATH_TEXT[i].field && n > PATH_TEXT[i].field && !u->too_long[0])
        snprintf(u->too_long, sizeof u->too_long, "%s", PATH_TEXT[i].name);
      return 0;
    }
  if (name_is(a, "id")) {
    u->has |= GOSTX_P11_HAS_ID;
    return decode(a, 0, 0, u->id, sizeof u->id, &u->id_len, why, cap);
  }
  if (name_is(a, "type")) {
    for (size_t i = 0; i < sizeof TYPES / sizeof *TYPES; i++)
      if (strlen(TYPES[i]) == a->v_len && !memcmp(a->v, TYPES[i], a->v_len)) {
        u->type = (gostx_p11_type)(i + 1);
        u->has |= GOSTX_P11_HAS_TYPE;
        return 0;
      }
    return refuse(why, cap, "type=%.*s: not private, public, cert, secret-key nor data",
                  (int)(a->v_len > 40 ? 40 : a->v_len), a->v);
  }
  if (name_is(a, "library-version")) {
    const char *dot = memchr(a->v, '.', a->v_len);
    size_t major_len = dot ? (size_t)(dot - a->v) : a->v_len;
    unsigned long major, minor = 0;
    if (decimal(a->v, major_len, 255, &major) ||
        (dot && decimal(dot + 1, a->v_len - major_len - 1, 255, &minor)))
      return refuse(why, cap, "library-version: not M or M.N with each 0..255");
    u->lib_version_major = (unsigned)major;
    u->lib_version_minor = (unsigned)minor;
    u->has |= GOSTX_P11_HAS_LIB_VERSION;
    return 0;
  }
  if (name_is(a, "slot-id")) {
    if (decimal(a->v, a->v_len, (unsigned long)-1, &u->slot_id))
      return refuse(why, cap, "slot-id: not a decimal number that fits a CK_SLOT_ID");
    u->has |= GOSTX_P11_HAS_SLOT_ID;
    return 0;
  }
  /* A vendor's attribute: well-formed, kept by name so the key lookup can
   * say it matches nothing (RFC 7512 2.5). */
  if (check_value(a, 0, why, cap)) return GOSTX_EFORMAT;
  if (!u->unknown[0])
    snprintf(u->unknown, sizeof u->unknown, "%.*s", (int)a->name_len, a->name);
  return 0;
}

static int query_attr(gostx_p11_uri *u, const attr *a, char *why, size_t cap) {
  for (size_t i = 0; i < sizeof QUERY_TEXT / sizeof *QUERY_TEXT; i++)
    if (name_is(a, QUERY_TEXT[i].name)) {
      if (u->has & QUERY_TEXT[i].bit)
        return refuse(why, cap, "%s given twice", QUERY_TEXT[i].name);
      u->has |= QUERY_TEXT[i].bit;
      return decode(a, 1, 1, (uint8_t *)u + QUERY_TEXT[i].off, QUERY_TEXT[i].cap, NULL, why, cap);
    }
  /* Unknown query attributes are ignored (RFC 7512 2.5), their values
   * still held to the grammar. */
  return check_value(a, 1, why, cap);
}

/* Splits [s, end) at sep into attributes, each checked and handed to fn. */
static int walk(gostx_p11_uri *u, const char *s, const char *end, char sep, int query,
                char *why, size_t cap) {
  if (s == end) return 0; /* an empty path or query */
  const char *start = s;
  for (;;) {
    const char *e = memchr(s, sep, (size_t)(end - s));
    if (!e) e = end;
    attr a;
    const char *eq = memchr(s, '=', (size_t)(e - s));
    if (!eq || eq == s)
      return refuse(why, cap, "%s attribute '%.*s' is not NAME=VALUE", query ? "query" : "path",
                    (int)(e - s > 40 ? 40 : e - s), s);
    a.name = s;
    a.name_len = (size_t)(eq - s);
    a.v = eq + 1;
    a.v_len = (size_t)(e - eq - 1);
    for (size_t i = 0; i < a.name_len; i++)
      if (!is_alnum(a.name[i]) && a.name[i] != '-' && a.name[i] != '_')
        return refuse(why, cap, "attribute name '%.*s' has a character other than A-Z, a-z, 0-9, "
                      "'-' and '_'", (int)(a.name_len > 40 ? 40 : a.name_len), a.name);
    if (!query) {
      /* No path attribute twice (RFC 7512 2.3), vendors' included. */
      for (const char *p = start; p < s;) {
        const char *pe = memchr(p, sep, (size_t)(s - p));
        const char *peq = memchr(p, '=', (size_t)(pe - p));
        if ((size_t)(peq - p) == a.name_len && !memcmp(p, a.name, a.name_len))
          return refuse(why, cap, "path attribute %.*s given twice",
                        (int)(a.name_len > 40 ? 40 : a.name_len), a.name);
        p = pe + 1;
      }
    }
    int rc = query ? query_attr(u, &a, why, cap) : path_attr(u, &a, why, cap);
    if (rc) return rc;
    if (e == end) return 0;
    s = e + 1;
  }
}

int gostx_p11_is_uri(const char *text) { return text && !strncasecmp(text, "pkcs11:", 7); }

int gostx_p11_uri_parse(gostx_p11_uri *uri, const char *text, char *why, size_t why_cap) {
  if (why && why_cap) why[0] = 0;
  if (!uri || !text) return gostx__p11_fail(GOSTX_EINVAL, GOSTX_P11_BAD_URI, "no URI");
  memset(uri, 0, sizeof *uri);
  if (!gostx_p11_is_uri(text)) return refuse(why, why_cap, "does not start with pkcs11:");
  const char *path = text + 7, *end = path + strlen(path);
  const char *q = memchr(path, '?', (size_t)(end - path));
  int rc = walk(uri, path, q ? q : end, ';', 0, why, why_cap);
  if (!rc && q) rc = walk(uri, q + 1, end, '&', 1, why, why_cap);
  if (!rc && (uri->has & GOSTX_P11_HAS_PIN_SOURCE) && (uri->has & GOSTX_P11_HAS_PIN_VALUE))
    rc = refuse(why, why_cap, "pin-source and pin-value both given (RFC 7512 2.4)");
  if (!rc && (uri->has & GOSTX_P11_HAS_MODULE_PATH) && uri->module_path[0] != '/')
    rc = refuse(why, why_cap, "module-path must be an absolute path (RFC 7512 2.4)");
  if (rc) gostx_p11_uri_clear(uri);
  else gostx__p11_ok();
  return rc;
}

void gostx_p11_uri_clear(gostx_p11_uri *uri) {
  if (uri) gostx_memzero(uri, sizeof *uri);
}
