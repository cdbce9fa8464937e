/* Distinguished names compared as RFC 5280 section 7.1 says (RFC 4518's
 * string preparation, caseIgnoreMatch), and the name constraints of RFC
 * 5280 4.2.1.10 and 6.1.3(b)(c). Certificates are public: every branch
 * here is on public data. */
#include <arpa/inet.h>
#include <stdio.h>

#include "x509/x509_internal.h"

/* ---- RFC 4518 string preparation ---- */

/* Bytes per character of a string type: 1 for the ASCII and 8-bit ones
 * (TeletexString read as Latin-1, as openssl does), 2 BMPString, 4
 * UniversalString, 0 UTF8String; -1 for a value that is not a string. */
static int char_width(uint8_t tag) {
  switch (tag) {
    case 0x0c: return 0;                                 /* UTF8String */
    case 0x12: case 0x13: case 0x14: case 0x16: case 0x1a: return 1; /* Numeric, Printable, Teletex, IA5, Visible */
    case 0x1e: return 2;                                 /* BMPString */
    case 0x1c: return 4;                                 /* UniversalString */
    default: return -1;
  }
}

typedef struct prep {
  gostx__der s; /* bytes left */
  int width;
  int started, space, held; /* held: a character after a pending space */
  uint32_t held_cp;
} prep;

/* The next code point: 1, 0 at the end, -1 for an encoding error. */
static int decode(prep *p, uint32_t *cp) {
  if (!p->s.n) return 0;
  const uint8_t *b = p->s.p;
  size_t k = p->width ? (size_t)p->width : 1;
  uint32_t v = b[0];
  if (p->width == 0 && v >= 0x80) { /* UTF-8: shortest form, no surrogates */
    k = v >= 0xf0 ? 4 : v >= 0xe0 ? 3 : v >= 0xc2 ? 2 : 0;
    if (!k || k > 4 || p->s.n < k) return -1;
    v &= 0x3f >> (k - 1);
    for (size_t i = 1; i < k; i++) {
      if ((b[i] & 0xc0) != 0x80) return -1;
      v = v << 6 | (b[i] & 0x3f);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[k] || v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) return -1;
  } else if (p->width > 1) {
    if (p->s.n < k) return -1;
    v = 0;
    for (size_t i = 0; i < k; i++) v = v << 8 | b[i];
  }
  p->s.p += k;
  p->s.n -= k;
  *cp = v;
  return 1;
}

#define MAP_NOTHING 0xffffffffu

/* RFC 4518 2.2: controls and joiners to nothing, separators to SPACE,
 * then case folding: ASCII, Latin-1 and Cyrillic (U+0400-042F) capitals,
 * the part of RFC 3454's table B.2 that names in GOST certificates use.
 * Not done: the rest of B.2 and 2.3's NFKC normalisation. */
static uint32_t map_char(uint32_t c) {
  if ((c >= 0x09 && c <= 0x0d) || c == 0x85 || c == 0x20 || c == 0xa0 || c == 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
      c == 0x3000)
    return ' ';
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xad || c == 0x34f || c == 0x6dd ||
      c == 0x70f || c == 0x1806 || (c >= 0x180b && c <= 0x180e) || (c >= 0x200b && c <= 0x200f) ||
      (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2063) ||
      (c >= 0x206a && c <= 0x206f) || (c >= 0xfe00 && c <= 0xfe0f) || c == 0xfeff ||
      (c >= 0xfff9 && c <= 0xfffc) || (c >= 0x1d173 && c <= 0x1d17a) || c == 0xe0001 ||
      (c >= 0xe0020 && c <= 0xe007f))
    return MAP_NOTHING;
  if ((c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7) || (c >= 0x410 && c <= 0x42f))
    return c + 0x20;
  if (c >= 0x400 && c <= 0x40f) return c + 0x50;
  return c;
}

/* The next prepared character: 2.2's mapping, then 2.6.1's insignificant
 * spaces (none at the ends, one for each inner run). */
static int prep_next(prep *p, uint32_t *out) {
  if (p->held) {
    p->held = 0;
    *out = p->held_cp;
    return 1;
  }
  for (;;) {
    uint32_t c;
    int r = decode(p, &c);
    if (r <= 0) return r;
    c = map_char(c);
    if (c == MAP_NOTHING) continue;
    if (c == ' ') {
      p->space = p->started;
      continue;
    }
    p->started = 1;
    if (p->space) {
      p->space = 0;
      p->held = 1;
      p->held_cp = c;
      c = ' ';
    }
    *out = c;
    return 1;
  }
}

/* Two attribute values (tag, content): the same bytes, or both strings
 * that are equal after preparation. */
static int value_equal(uint8_t at, gostx__der a, uint8_t bt, gostx__der b) {
  if (at == bt && a.n == b.n && !memcmp(a.p, b.p, a.n)) return 1;
  int aw = char_width(at), bw = char_width(bt);
  if (aw < 0 || bw < 0) return 0;
  prep pa = {a, aw, 0, 0, 0, 0}, pb = {b, bw, 0, 0, 0, 0};
  for (;;) {
    uint32_t ca = 0, cb = 0;
    int ra = prep_next(&pa, &ca), rb = prep_next(&pb, &cb);
    if (ra < 0 || rb < 0 || ra != rb || ca != cb) return 0;
    if (ra == 0) return 1;
  }
}

static int ava_equal(gostx__der a, gostx__der b) {
  gostx__der ao, bo, av, bv;
  uint8_t at, bt;
  (void)gostx__der_oid(&a, &ao); /* checked by gostx__x509_check_name */
  (void)gostx__der_oid(&b, &bo);
  (void)gostx__der_next(&a, &at, &av, NULL);
  (void)gostx__der_next(&b, &bt, &bv, NULL);
  return gostx__der_oid_is(ao, bo.p, bo.n) && value_equal(at, av, bt, bv);
}

static size_t count_elements(gostx__der r) {
  size_t n = 0;
  while (!gostx__der_next(&r, NULL, NULL, NULL)) n++;
  return n;
}

/* Two RDNs (SET contents): the same number of AVAs, each of a in b. */
static int rdn_equal(gostx__der a, gostx__der b) {
  if (count_elements(a) != count_elements(b)) return 0;
  gostx__der ava;
  while (!gostx__der_get(&a, GOSTX__DER_SEQ, &ava, NULL)) {
    gostx__der rest = b, other;
    int found = 0;
    while (!found && !gostx__der_get(&rest, GOSTX__DER_SEQ, &other, NULL))
      found = ava_equal(ava, other);
    if (!found) return 0;
  }
  return 1;
}

int gostx__x509_name_within(gostx__der name, gostx__der subtree) {
  gostx__der a, b;
  while (!gostx__der_get(&subtree, GOSTX__DER_SET, &b, NULL))
    if (gostx__der_get(&name, GOSTX__DER_SET, &a, NULL) || !rdn_equal(a, b)) return 0;
  return 1;
}

/* A Name element's RDNSequence content. */
static gostx__der rdns(const uint8_t *p, size_t n) {
  gostx__der r = {p, n}, body = {NULL, 0};
  (void)gostx__der_get(&r, GOSTX__DER_SEQ, &body, NULL);
  return body;
}

/* A certificate's names were checked when it was parsed; a name from
 * elsewhere (CMS's issuerAndSerialNumber, ESS's IssuerSerial) is checked
 * here before the comparison walks it: 1 when p is one Name element. */
static int is_name(const uint8_t *p, size_t n) {
  gostx__der r = {p, n}, body;
  return !gostx__der_get(&r, GOSTX__DER_SEQ, &body, NULL) && !r.n && !gostx__x509_check_name(body);
}

int gostx__x509_name_equal(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  if (an == bn && !memcmp(a, b, an)) return 1;
  if (!is_name(a, an) || !is_name(b, bn)) return 0;
  gostx__der ra = rdns(a, an), rb = rdns(b, bn);
  return count_elements(ra) == count_elements(rb) && gostx__x509_name_within(ra, rb);
}

int gostx__x509_self_issued(const gostx_x509_cert *c) {
  return gostx__x509_name_equal(c->issuer, c->issuer_len, c->subject, c->subject_len);
}

/* ---- name constraints (RFC 5280 4.2.1.10) ---- */

static int lower(int ch) { return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch; }

static int equal_nocase(const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (lower(a[i]) != lower(b[i])) return 0;
  return 1;
}

/* name ends with suffix (ASCII case ignored) */
static int ends_with(gostx__der name, gostx__der suffix) {
  return name.n >= suffix.n && equal_nocase(name.p + name.n - suffix.n, suffix.p, suffix.n);
}

static gostx__der without_dot(gostx__der v) {
  if (v.n && v.p[v.n - 1] == '.') v.n--;
  return v;
}

/* "host.example.com" within "example.com": zero or more labels added on
 * the left; a constraint that starts with "." (openssl's reading, as for
 * URIs) needs at least one; "" is every name. A dNSName with a "*" in a
 * label (a wildcard, *.example.com) stands for every name with any label
 * there: for a permitted subtree (any == 0) every name it can match must
 * be within, for an excluded one (any == 1) one is enough. So
 * *.example.com is within excluded bar.example.com, and not within
 * permitted *.example.com (a "*" in the base is a letter). */
static int dns_within(gostx__der name, gostx__der base, int any) {
  name = without_dot(name);
  base = without_dot(base);
  if (!base.n) return 1;
  size_t bs = base.p[0] == '.', be = base.n, ne = name.n;
  for (;;) { /* the last labels not yet compared: name[nk, ne), base[bk, be) */
    size_t bk = be, nk = ne;
    while (bk > bs && base.p[bk - 1] != '.') bk--;
    while (nk > 0 && name.p[nk - 1] != '.') nk--;
    int wild = memchr(name.p + nk, '*', ne - nk) != NULL;
    if (wild ? !any : !(ne - nk == be - bk && equal_nocase(name.p + nk, base.p + bk, be - bk)))
      return 0;
    if (bk == bs) return bs ? nk > 0 : 1; /* every label of the base matched */
    if (nk == 0) return 0;                /* the base has more labels than the name */
    be = bk - 1;
    ne = nk - 1;
  }
}


/* A mailbox within "root@example.com" (that mailbox: the local part
 * exact, the host ignoring case), ".example.com" (any host in the domain)
 * or "example.com" (that host). */
static int email_within(gostx__der name, gostx__der base) {
  const uint8_t *at = memchr(name.p, '@', name.n);
  if (!at) return 0;
  gostx__der host = {at + 1, name.n - (size_t)(at + 1 - name.p)};
  const uint8_t *bat = memchr(base.p, '@', base.n);
  if (bat) {
    size_t local = (size_t)(bat - base.p);
    return (size_t)(at - name.p) == local && !memcmp(name.p, base.p, local) &&
           host.n == base.n - local - 1 && equal_nocase(host.p, bat + 1, host.n);
  }
  if (base.n && base.p[0] == '.') return host.n > base.n && ends_with(host, base);
  return host.n == base.n && equal_nocase(host.p, base.p, base.n);
}

/* An address within address/mask (4 + 4 or 16 + 16 bytes). */
static int ip_within(gostx__der name, gostx__der base) {
  if (base.n != 2 * name.n) return 0;
  for (size_t i = 0; i < name.n; i++)
    if ((name.p[i] ^ base.p[i]) & base.p[name.n + i]) return 0;
  return 1;
}

/* A directoryName's content ([4] holds one Name element): its RDNs. */
static gostx__der dir_rdns(gostx__der v) { return rdns(v.p, v.n); }

/* 1 within, 0 not, -1 a form gostx does not check; any: an excluded
 * subtree, which a wildcard is within when one name it matches is. */
static int within(uint8_t tag, gostx__der name, gostx__der base, int any) {
  switch (tag) {
    case SAN_DNS: return dns_within(name, base, any);
    case SAN_EMAIL: return email_within(name, base);
    case SAN_IP: return ip_within(name, base);
    case SAN_DIR: return gostx__x509_name_within(dir_rdns(name), dir_rdns(base));
    default: return -1;
  }
}

/* One name as text for a refusal: "DNS:x", "email:x", "IP:x", "DirName:x". */
static void name_text(uint8_t tag, gostx__der v, char *out, size_t cap) {
  char text[256];
  const char *form = "othername";
  text[0] = 0;
  if (tag == SAN_DNS || tag == SAN_EMAIL || tag == SAN_URI) {
    form = tag == SAN_DNS ? "DNS" : tag == SAN_EMAIL ? "email" : "URI";
    snprintf(text, sizeof text, "%.*s", (int)(v.n < 200 ? v.n : 200), (const char *)v.p);
    for (char *c = text; *c; c++)
      if (*c < 0x20 || *c > 0x7e) *c = '?';
  } else if (tag == SAN_IP) {
    form = "IP";
    if (!inet_ntop(v.n == 4 ? AF_INET : AF_INET6, v.p, text, sizeof text)) text[0] = 0;
  } else if (tag == SAN_DIR) {
    form = "DirName";
    if (gostx_x509_name_text(v.p, v.n, text, sizeof text)) text[0] = 0;
  }
  snprintf(out, cap, "%s:%s", form, text);
}

/* One name against one CA's NameConstraints content: 0, or a refusal in
 * why. Excluded first: a name in an excluded subtree is refused whatever
 * the permitted ones say (6.1.3(b)(c)). */
static int check_one_name(uint8_t tag, gostx__der name, const gostx_x509_cert *ca, char *why,
                          size_t cap) {
  gostx__der nc = {ca->name_constraints, ca->name_constraints_len}, permitted = {NULL, 0},
             excluded = {NULL, 0};
  if (gostx__der_peek(&nc, GOSTX__DER_CTXC(0))) (void)gostx__der_get(&nc, GOSTX__DER_CTXC(0), &permitted, NULL);
  if (nc.n) (void)gostx__der_get(&nc, GOSTX__DER_CTXC(1), &excluded, NULL);
  const char *verdict = NULL;
  int constrained = 0, permitted_any = 0, unchecked = 0;
  for (int list = 1; list >= 0 && !verdict; list--) { /* excluded, then permitted */
    gostx__der trees = list ? excluded : permitted, tree, base;
    uint8_t btag;
    while (!verdict && !gostx__der_get(&trees, GOSTX__DER_SEQ, &tree, NULL) &&
           !gostx__der_next(&tree, &btag, &base, NULL)) {
      if (btag != tag) continue;
      int in = within(tag, name, base, list);
      if (in < 0) unchecked = 1;
      if (list && in > 0) verdict = "within excluded subtrees of";
      if (!list) constrained = 1, permitted_any |= in > 0;
    }
  }
  if (!verdict && unchecked) verdict = "is of a constrained name form that gostx does not check (RFC 5280 4.2.1.10), refused: constrained by";
  if (!verdict && constrained && !permitted_any) verdict = "not within permitted subtrees of";
  if (!verdict) return 0;
  char name_t[300], ca_t[256];
  name_text(tag, name, name_t, sizeof name_t);
  if (gostx_x509_name_text(ca->subject, ca->subject_len, ca_t, sizeof ca_t)) ca_t[0] = 0;
  snprintf(why, cap, "name constraints: %s %s %s", name_t, verdict, ca_t);
  return GOSTX_EFORMAT;
}

/* The comparisons check_cert_names would make of c's names against ca's
 * subtrees, at most: the subject, its attributes (a bound on its
 * emailAddress ones) and its subjectAltNames, times the subtrees. */
static uint64_t nc_work(const gostx_x509_cert *c, const gostx_x509_cert *ca) {
  gostx__der nc = {ca->name_constraints, ca->name_constraints_len}, trees;
  uint8_t tag;
  size_t subtrees = 0;
  while (!gostx__der_next(&nc, &tag, &trees, NULL)) subtrees += count_elements(trees);
  gostx__der subject = rdns(c->subject, c->subject_len), rdn, san = {c->san, c->san_len};
  size_t names = 1 + (c->san ? count_elements(san) : 0);
  while (!gostx__der_get(&subject, GOSTX__DER_SET, &rdn, NULL)) names += count_elements(rdn);
  return (uint64_t)names * subtrees;
}

/* Every name of c: the subject (when not empty) as a directoryName, its
 * emailAddress attributes as rfc822Names (RFC 5280 says when there is no
 * subjectAltName; gostx, as openssl, always), and each subjectAltName. */
static int check_cert_names(const gostx_x509_cert *c, const gostx_x509_cert *ca, char *why,
                            size_t cap) {
  gostx__der subject = rdns(c->subject, c->subject_len), rdn, ava, oid, value;
  gostx__der whole = {c->subject, c->subject_len};
  uint8_t tag;
  if (subject.n && check_one_name(SAN_DIR, whole, ca, why, cap)) return GOSTX_EFORMAT;
  while (!gostx__der_get(&subject, GOSTX__DER_SET, &rdn, NULL))
    while (!gostx__der_get(&rdn, GOSTX__DER_SEQ, &ava, NULL)) {
      (void)gostx__der_oid(&ava, &oid);
      (void)gostx__der_next(&ava, &tag, &value, NULL);
      if (GOSTX__DER_OID_IS(oid, OID_EMAIL_ADDRESS) && check_one_name(SAN_EMAIL, value, ca, why, cap))
        return GOSTX_EFORMAT;
    }
  gostx__der san = {c->san, c->san_len}, v;
  while (c->san && !gostx__der_next(&san, &tag, &v, NULL))
    if (check_one_name(tag, v, ca, why, cap)) return GOSTX_EFORMAT;
  return 0;
}

gostx_x509_status gostx__x509_name_constraints(const gostx_x509_cert *const *path, size_t len,
                                               size_t *depth, char *why, size_t cap) {
  /* from the top down, as the path is processed; the anchor's own
   * constraints apply too (as in openssl; RFC 5937 lets an anchor carry
   * them). A self-issued CA is not checked, the leaf always (6.1.3(b)). */
  for (size_t i = len - 1; i-- > 0;) {
    if (i > 0 && gostx__x509_self_issued(path[i])) continue;
    for (size_t j = len; j-- > i + 1;) {
      if (!path[j]->name_constraints) continue;
      /* a bound on the quadratic work a hostile chain can ask (x509-limbo's
       * pathological::nc-dos-*: 2048 names against 4097 subtrees) */
      if (nc_work(path[i], path[j]) > GOSTX__X509_NC_WORK_MAX) {
        snprintf(why, cap,
                 "name constraints: %llu name-against-subtree comparisons asked, over gostx's "
                 "bound of %u",
                 (unsigned long long)nc_work(path[i], path[j]), GOSTX__X509_NC_WORK_MAX);
        *depth = i;
        return GOSTX_X509_NAME_CONSTRAINTS;
      }
      if (check_cert_names(path[i], path[j], why, cap)) {
        *depth = i;
        return GOSTX_X509_NAME_CONSTRAINTS;
      }
    }
  }
  return GOSTX_X509_OK;
}
