/* The strict DER reader: see der.h. It reads public input (certificates,
 * key files' structure, handshake messages), so every branch here is on
 * public data; a secret's bytes are only spanned, never branched on. */
#include <stdio.h>

#include "asn1/der.h"

int gostx__der_next(gostx__der *r, uint8_t *tag, gostx__der *content, gostx__der *whole) {
  if (!r->p || r->n < 2) return GOSTX_EFORMAT;
  if ((r->p[0] & 0x1f) == 0x1f) return GOSTX_EFORMAT; /* high tag numbers: none in X.509 */
  size_t len = r->p[1], hdr = 2;
  if (len & 0x80) {
    size_t k = len & 0x7f;
    /* 0x80 is BER's indefinite length; more than 4 length bytes is more
     * than any certificate; a leading zero byte or a long form for a
     * length below 128 is not the shortest form */
    if (k == 0 || k > 4 || r->n - 2 < k || r->p[2] == 0) return GOSTX_EFORMAT;
    len = 0;
    for (size_t i = 0; i < k; i++) len = len << 8 | r->p[2 + i];
    if (len < 0x80) return GOSTX_EFORMAT;
    hdr = 2 + k;
  }
  if (len > r->n - hdr) return GOSTX_EFORMAT;
  if (tag) *tag = r->p[0];
  if (content) {
    content->p = r->p + hdr;
    content->n = len;
  }
  if (whole) {
    whole->p = r->p;
    whole->n = hdr + len;
  }
  r->p += hdr + len;
  r->n -= hdr + len;
  return 0;
}

int gostx__der_get(gostx__der *r, uint8_t tag, gostx__der *content, gostx__der *whole) {
  gostx__der save = *r;
  uint8_t t;
  if (gostx__der_next(r, &t, content, whole)) return GOSTX_EFORMAT;
  if (t != tag) {
    *r = save;
    return GOSTX_EFORMAT;
  }
  return 0;
}

int gostx__der_peek(const gostx__der *r, uint8_t tag) { return r->n > 0 && r->p[0] == tag; }

int gostx__der_oid(gostx__der *r, gostx__der *oid) {
  if (gostx__der_get(r, GOSTX__DER_OID, oid, NULL)) return GOSTX_EFORMAT;
  if (oid->n == 0 || (oid->p[oid->n - 1] & 0x80)) return GOSTX_EFORMAT;
  for (size_t i = 0; i < oid->n; i++) /* a sub-identifier never starts with 0x80 */
    if (oid->p[i] == 0x80 && (i == 0 || !(oid->p[i - 1] & 0x80))) return GOSTX_EFORMAT;
  return 0;
}

int gostx__der_oid_is(gostx__der oid, const uint8_t *enc, size_t len) {
  return oid.n == len && memcmp(oid.p, enc, len) == 0;
}

int gostx__der_u32_tagged(gostx__der *r, uint8_t tag, uint32_t *v) {
  gostx__der c;
  if (gostx__der_get(r, tag, &c, NULL) || c.n == 0) return GOSTX_EFORMAT;
  if (c.p[0] & 0x80) return GOSTX_EFORMAT;                         /* negative */
  if (c.n > 1 && c.p[0] == 0 && !(c.p[1] & 0x80)) return GOSTX_EFORMAT; /* not minimal */
  if (c.n > 5 || (c.n == 5 && c.p[0] != 0)) return GOSTX_EUNSUP;   /* well-formed, >= 2^32 */
  uint64_t acc = 0;
  for (size_t i = 0; i < c.n; i++) acc = acc << 8 | c.p[i];
  *v = (uint32_t)acc;
  return 0;
}

int gostx__der_int_minimal(gostx__der v) {
  return v.n && !(v.n > 1 && ((v.p[0] == 0 && !(v.p[1] & 0x80)) || (v.p[0] == 0xff && (v.p[1] & 0x80))));
}

int gostx__der_u32(gostx__der *r, uint32_t *v) { return gostx__der_u32_tagged(r, GOSTX__DER_INT, v); }

int gostx__der_small_uint_tagged(gostx__der *r, uint8_t tag, int *v) {
  uint32_t u;
  if (gostx__der_u32_tagged(r, tag, &u) || u > 0x7fffffffu) return GOSTX_EFORMAT; /* more than any count */
  *v = (int)u;
  return 0;
}

int gostx__der_small_uint(gostx__der *r, int *v) {
  return gostx__der_small_uint_tagged(r, GOSTX__DER_INT, v);
}

int gostx__der_bool(gostx__der *r, int *v) {
  gostx__der c;
  if (gostx__der_get(r, GOSTX__DER_BOOL, &c, NULL) || c.n != 1) return GOSTX_EFORMAT;
  if (c.p[0] != 0 && c.p[0] != 0xff) return GOSTX_EFORMAT;
  *v = c.p[0] != 0;
  return 0;
}

static int digits(const uint8_t *p, size_t k, int *v) {
  int acc = 0;
  for (size_t i = 0; i < k; i++) {
    if (p[i] < '0' || p[i] > '9') return GOSTX_EFORMAT;
    acc = acc * 10 + (p[i] - '0');
  }
  *v = acc;
  return 0;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar: the
 * year counted from March, so the leap day ends it. */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int gostx__der_time(gostx__der *r, int64_t *t) {
  uint8_t tag;
  gostx__der c;
  if (gostx__der_next(r, &tag, &c, NULL)) return GOSTX_EFORMAT;
  int year, mon, day, hh, mm, ss;
  const uint8_t *p = c.p;
  if (tag == GOSTX__DER_UTCTIME && c.n == 13) {
    if (digits(p, 2, &year)) return GOSTX_EFORMAT;
    year += year < 50 ? 2000 : 1900;
    p += 2;
  } else if (tag == GOSTX__DER_GENTIME && c.n == 15) {
    if (digits(p, 4, &year)) return GOSTX_EFORMAT;
    p += 4;
  } else {
    return GOSTX_EFORMAT; /* another tag, fractions, offsets, no seconds */
  }
  if (digits(p, 2, &mon) || digits(p + 2, 2, &day) || digits(p + 4, 2, &hh) ||
      digits(p + 6, 2, &mm) || digits(p + 8, 2, &ss) || p[10] != 'Z')
    return GOSTX_EFORMAT;
  static const uint8_t mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (mon < 1 || mon > 12 || day < 1 || day > mdays[mon - 1] || (mon == 2 && day == 29 && !leap) ||
      hh > 23 || mm > 59 || ss > 59)
    return GOSTX_EFORMAT;
  *t = days_from_civil(year, mon, day) * 86400 + hh * 3600 + mm * 60 + ss;
  return 0;
}

int gostx__der_oid_text(gostx__der oid, char *text, size_t cap) {
  size_t out = 0;
  if (!cap) return GOSTX_ELEN;
  text[0] = 0;
  uint64_t v = 0;
  for (size_t i = 0; i < oid.n; i++) {
    v = v << 7 | (oid.p[i] & 0x7f);
    if (oid.p[i] & 0x80) {
      if (v >> 50) break; /* an arc beyond any real OID's */
      continue;
    }
    char arc[48];
    int k;
    if (out == 0) {
      unsigned first = v < 80 ? (unsigned)(v / 40) : 2;
      k = snprintf(arc, sizeof arc, "%u.%llu", first, (unsigned long long)(v - 40u * first));
    } else {
      k = snprintf(arc, sizeof arc, ".%llu", (unsigned long long)v);
    }
    if (k < 0 || out + (size_t)k + 4 > cap) break;
    memcpy(text + out, arc, (size_t)k + 1);
    out += (size_t)k;
    v = 0;
    if (i + 1 == oid.n) return 0;
  }
  if (out + 4 <= cap) memcpy(text + out, "...", 4);
  return GOSTX_ELEN;
}

int gostx__der_oid_encode(const char *text, uint8_t *out, size_t cap, size_t *len) {
  uint32_t first = 0;
  size_t arcs = 0, n = 0;
  for (const char *s = text; s && *s; arcs++) {
    uint64_t v = 0;
    if (*s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9')) return GOSTX_EINVAL;
    while (*s >= '0' && *s <= '9')
      if ((v = v * 10 + (uint64_t)(*s++ - '0')) >> 32) return GOSTX_EINVAL;
    if (*s == '.' && *++s == 0) return GOSTX_EINVAL; /* a trailing dot */
    if (*s && (s[-1] != '.')) return GOSTX_EINVAL;    /* anything but digits and dots */
    if (arcs == 0) {
      if (v > 2) return GOSTX_EINVAL;
      first = (uint32_t)v;
      continue;
    }
    if (arcs == 1) {
      if (first < 2 && v >= 40) return GOSTX_EINVAL;
      v += 40u * first;
    }
    uint8_t tmp[6]; /* 7 bits a byte: 2^32 + 80 takes 5 */
    int k = 0;
    do tmp[k++] = (uint8_t)(v & 0x7f); while (v >>= 7);
    if (cap - n < (size_t)k || n > cap) return GOSTX_ELEN;
    while (k--) out[n++] = (uint8_t)(tmp[k] | (k ? 0x80 : 0));
  }
  if (arcs < 2) return GOSTX_EINVAL;
  *len = n;
  return 0;
}
