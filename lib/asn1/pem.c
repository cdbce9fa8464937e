/* PEM (RFC 7468): see pem.h. The base64 of a private key is secret, so both
 * directions map characters with arithmetic on masks, not with tables or
 * branches on the character; only the line layout (where the newlines are,
 * which is public) steers control flow. */
#include <stdio.h>
#include <string.h>

#include "asn1/pem.h"

/* All-ones when lo <= c <= hi, else 0 (c, lo, hi < 2^16). */
static uint32_t in_range(uint32_t c, uint32_t lo, uint32_t hi) {
  return 0u - (((lo - 1 - c) & (c - hi - 1)) >> 31);
}

/* The base64 character of v (0..63). */
static char b64_char(uint32_t v) {
  uint32_t c = v + 'A';
  c += in_range(v, 26, 63) & ('a' - 26 - 'A');
  c -= in_range(v, 52, 63) & (('a' - 26) - ('0' - 52));
  c -= in_range(v, 62, 63) & (('0' - 52) - ('+' - 62));
  c += in_range(v, 63, 63) & ('/' - 63 - ('+' - 62));
  return (char)c;
}

/* The value of a base64 character, or 0xffffffff when c is none. */
static uint32_t b64_value(uint32_t c) {
  uint32_t v = 0, ok = 0, m;
  m = in_range(c, 'A', 'Z'), v |= m & (c - 'A'), ok |= m;
  m = in_range(c, 'a', 'z'), v |= m & (c - 'a' + 26), ok |= m;
  m = in_range(c, '0', '9'), v |= m & (c - '0' + 52), ok |= m;
  m = in_range(c, '+', '+'), v |= m & 62, ok |= m;
  m = in_range(c, '/', '/'), v |= m & 63, ok |= m;
  return v | ~ok;
}

/* gostx/base64.h */
size_t gostx_base64_encode(const uint8_t *in, size_t n, char *out) {
  size_t o = 0;
  if (!in || !out) return 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t rest = (uint32_t)(n - i), w = (uint32_t)in[i] << 16;
    if (rest > 1) w |= (uint32_t)in[i + 1] << 8;
    if (rest > 2) w |= in[i + 2];
    out[o++] = b64_char(w >> 18);
    out[o++] = b64_char(w >> 12 & 63);
    out[o++] = rest > 1 ? b64_char(w >> 6 & 63) : '=';
    out[o++] = rest > 2 ? b64_char(w & 63) : '=';
  }
  return o;
}

int gostx_base64_decode(gostx_base64 *d, const char *s, size_t n, uint8_t *out, size_t *out_len) {
  uint32_t bad = 0;
  if (!d || (!s && n) || !out || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '=') { /* the padding: public layout */
      d->pad = 1;
      continue;
    }
    uint32_t v = b64_value((uint8_t)s[i]);
    bad |= (v >> 6) | (uint32_t)d->pad;
    d->bits = d->bits << 6 | (v & 63), d->nbits += 6;
    if (d->nbits >= 8) d->nbits -= 8, out[(*out_len)++] = (uint8_t)(d->bits >> d->nbits);
  }
  if (d->pad) d->nbits = 0; /* the padding's zero bits */
  return bad ? GOSTX_EFORMAT : 0;
}

int gostx__pem_write(const char *label, const uint8_t *der, size_t der_len, char *out, size_t cap,
                     size_t *out_len) {
  if (!label || !out_len || (!der && der_len)) return GOSTX_EINVAL;
  size_t chars = (der_len + 2) / 3 * 4, need = 2 * (16 + strlen(label)) + chars + chars / 64 + 1;
  *out_len = need;
  if (!out || cap < need + 1) return GOSTX_ELEN;
  size_t n = (size_t)snprintf(out, cap, "-----BEGIN %s-----\n", label);
  for (size_t i = 0; i < der_len; i += 48) { /* 64-character lines */
    n += gostx_base64_encode(der + i, der_len - i < 48 ? der_len - i : 48, out + n);
    if (i + 48 < der_len) out[n++] = '\n';
  }
  n += (size_t)snprintf(out + n, cap - n, "\n-----END %s-----\n", label);
  *out_len = n;
  return 0;
}

/* Whether s[*i..] starts with lit; advances past it. */
static int eat(const char *s, size_t n, size_t *i, const char *lit) {
  size_t l = strlen(lit);
  if (n - *i < l || memcmp(s + *i, lit, l)) return 0;
  *i += l;
  return 1;
}

static int eat_eol(const char *s, size_t n, size_t *i) {
  if (*i < n && s[*i] == '\r') ++*i;
  return *i < n && s[*i] == '\n' ? (++*i, 1) : 0;
}

/* pem.h. Text before the block is skipped, such as the description of a
 * key that certtool writes above it. What is searched is the text before our block and other blocks, never
 * our block's body: the search stops at our BEGIN line. That text can hold
 * the key too (certtool prints d in hex there); the search branches only
 * on where its lines end and whether a line starts with spaces, tabs or
 * "-----BEGIN ", which no hex digit or letter of it does. */
int gostx__pem_find(const char *s, size_t n, size_t *pos, const char *const *labels, int count,
                    int *which) {
  int other = 0;
  for (size_t line = *pos; line < n;) {
    size_t j = line;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
    if (eat(s, n, &j, "-----BEGIN ")) {
      for (int k = 0; k < count; k++) {
        size_t e = j;
        if (eat(s, n, &e, labels[k]) && eat(s, n, &e, "-----")) {
          if (!eat_eol(s, n, &e)) return GOSTX_EFORMAT;
          *pos = e, *which = k;
          return 0;
        }
      }
      other = 1;
    }
    const char *nl = memchr(s + line, '\n', n - line);
    line = nl ? (size_t)(nl - s) + 1 : n;
  }
  return other ? GOSTX_EUNSUP : GOSTX_EFORMAT;
}

/* After the body: "-----END L-----" and a line end (or the end of the
 * text); whatever follows is ignored, as openssl ignores it. */
static int end_line(const char *s, size_t n, size_t *i, const char *label) {
  if (!eat(s, n, i, "-----END ") || !eat(s, n, i, label) || !eat(s, n, i, "-----"))
    return GOSTX_EFORMAT;
  return *i == n || eat_eol(s, n, i) ? 0 : GOSTX_EFORMAT;
}

/* What a character of the body is to the layout. A base64 character is
 * always C_DATA (as is any other byte, refused later by its value), so the
 * class of each character is the file's line layout and padding, public
 * even where the characters carry a private key. */
enum { C_DATA, C_LF, C_CR, C_PAD, C_DASH };

/* v (< 256) made a value memcheck sees as defined: rebuilt bit by bit with
 * a branch on each into a volatile (which the compiler may neither read nor
 * write speculatively, so the branches stay). The one place that branches on
 * a class or a verdict computed from key characters; both are public (see
 * above and decode_body). tests/ct/declassified.supp names it;
 * GOSTX_NAMED_FN keeps that name. */
GOSTX_NAMED_FN
static uint32_t declassify(uint32_t v) {
  volatile uint32_t out = 0;
  for (int b = 0; b < 8; b++)
    if ((v >> b) & 1) out |= 1u << b;
  return out;
}

static uint32_t char_class(uint8_t c) {
  uint32_t cls = in_range(c, '\n', '\n') & C_LF;
  cls |= in_range(c, '\r', '\r') & C_CR;
  cls |= in_range(c, '=', '=') & C_PAD;
  cls |= in_range(c, '-', '-') & C_DASH;
  return declassify(cls);
}

/* The base64 body from s[*i] up to the "-----END" line into der (GOSTX_ELEN
 * when it is larger than cap; the length is layout, public); strict:
 * only base64 characters and line ends, '=' only as the final padding,
 * the unused bits of the last group zero. Branches only on the layout;
 * the validity of the characters and of the last group's unused bits
 * becomes one verdict, the caller's error code. */
static int decode_body(const char *s, size_t n, size_t *i, uint8_t *der, size_t cap,
                       size_t *der_len) {
  uint32_t acc = 0, bad = 0, cls;
  size_t k = 0, out = 0, pad = 0;
  while (*i < n && (cls = char_class((uint8_t)s[*i])) != C_DASH) {
    ++*i;
    if (cls == C_CR) { /* only as part of "\r\n" */
      if (*i == n || char_class((uint8_t)s[*i]) != C_LF) return GOSTX_EFORMAT;
      continue;
    }
    if (cls == C_LF) continue;
    if (cls == C_PAD) {
      if (k < 2 || ++pad + k > 4) return GOSTX_EFORMAT;
      continue;
    }
    if (pad) return GOSTX_EFORMAT;
    uint32_t v = b64_value((uint8_t)s[*i - 1]);
    bad |= v >> 6;
    acc = acc << 6 | (v & 63);
    if (++k == 4) {
      if (out + 3 > cap) return GOSTX_ELEN;
      der[out++] = (uint8_t)(acc >> 16), der[out++] = (uint8_t)(acc >> 8);
      der[out++] = (uint8_t)acc;
      k = 0, acc = 0;
    }
  }
  if (pad) { /* k + pad == 4 */
    if (k + pad != 4) return GOSTX_EFORMAT;
    if (out + 2 > cap) return GOSTX_ELEN;
    if (k == 2) {
      bad |= acc & 0xf;
      der[out++] = (uint8_t)(acc >> 4);
    } else {
      bad |= acc & 0x3;
      der[out++] = (uint8_t)(acc >> 10), der[out++] = (uint8_t)(acc >> 2);
    }
  } else if (k) {
    return GOSTX_EFORMAT;
  }
  if (declassify(bad != 0)) return GOSTX_EFORMAT;
  *der_len = out;
  return out ? 0 : GOSTX_EFORMAT;
}

/* The body and the END line: decode_body's verdict (GOSTX_ELEN: larger
 * than cap), or end_line's. */
static int body_and_end(const char *s, size_t n, size_t *pos, const char *label, uint8_t *der,
                        size_t cap, size_t *der_len) {
  int rc = decode_body(s, n, pos, der, cap, der_len);
  return rc ? rc : end_line(s, n, pos, label);
}

int gostx__pem_body(const char *s, size_t n, size_t *pos, const char *label, uint8_t *der,
                    size_t cap, size_t *der_len) {
  return body_and_end(s, n, pos, label, der, cap, der_len) ? GOSTX_EFORMAT : 0;
}

int gostx__pem_block(const char *s, size_t n, size_t *pos, const char *label, uint8_t *der,
                     size_t cap, size_t *der_len) {
  if (!s || !pos || !der || !der_len || *pos > n) return GOSTX_EINVAL; /* public arguments */
  for (size_t line = *pos; line < n;) {
    size_t j = line;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
    if (eat(s, n, &j, "-----BEGIN ") && eat(s, n, &j, label) && eat(s, n, &j, "-----")) {
      if (!eat_eol(s, n, &j)) return GOSTX_EFORMAT;
      int rc = body_and_end(s, n, &j, label, der, cap, der_len);
      if (rc) return rc;
      *pos = j;
      return 1;
    }
    const char *nl = memchr(s + line, '\n', n - line);
    line = nl ? (size_t)(nl - s) + 1 : n;
  }
  *pos = n;
  return 0;
}
