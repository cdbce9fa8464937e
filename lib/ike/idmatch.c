/* A gateway's remote-access template names its peers by a pattern of
 * their ID (issue 81): see gostx__ike_id_match in ike.h. IDs are public:
 * nothing here is constant time. */
#include <string.h>

#include "asn1/der.h"
#include "ike.h"

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* a (n octets) and b (n characters) equal, ASCII letters in either case */
static int same_fold(const uint8_t *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (lower(a[i]) != lower((unsigned char)b[i])) return 0;
  return 1;
}

/* pattern[0..n) against v[0..len): a name, or '*' leading (see ike.h) */
static int value_match(const char *pattern, size_t n, const uint8_t *v, size_t len) {
  const int wild = n && pattern[0] == '*';
  const char *rest = pattern + wild;
  n -= (size_t)wild;
  if (memchr(rest, '*', n)) return 0; /* a '*' only leads */
  if (!wild) return n == len && same_fold(v, rest, n);
  /* "*" alone: any; "*.x" or "*@x": at least one character before the rest */
  return len > n && same_fold(v + len - n, rest, n);
}

/* The attribute types a DN pattern names (X.520, under 2.5.4): their
 * last arc. */
static const struct {
  const char *name;
  uint8_t arc;
} dn_attrs[] = {{"CN", 3}, {"C", 6}, {"L", 7}, {"ST", 8}, {"O", 10}, {"OU", 11}};

/* Every AVA of type 2.5.4.arc in the Name (name: its content, walked
 * whole: an RDN not a non-empty SET of {OID, value} matches nothing)
 * matches pattern[0..n), and there is one: 1. Such a value not a
 * UTF8String, PrintableString or IA5String of printable ASCII: 0. */
static int dn_attr_match(gostx__der name, uint8_t arc, const char *pattern, size_t n) {
  const uint8_t oid[3] = {0x55, 0x04, arc}; /* 2.5.4.arc */
  gostx__der rdn, ava, type, value;
  uint8_t tag;
  int seen = 0;
  while (name.n) {
    if (gostx__der_get(&name, GOSTX__DER_SET, &rdn, NULL) != GOSTX_OK || !rdn.n) return 0;
    while (rdn.n) {
      if (gostx__der_get(&rdn, GOSTX__DER_SEQ, &ava, NULL) != GOSTX_OK ||
          gostx__der_oid(&ava, &type) != GOSTX_OK ||
          gostx__der_next(&ava, &tag, &value, NULL) != GOSTX_OK || ava.n)
        return 0;
      if (!gostx__der_oid_is(type, oid, sizeof oid)) continue;
      if (tag != 0x0c && tag != 0x13 && tag != 0x16) return 0;
      for (size_t i = 0; i < value.n; i++)
        if (value.p[i] < 0x20 || value.p[i] > 0x7e) return 0;
      if (!value_match(pattern, n, value.p, value.n)) return 0;
      seen = 1;
    }
  }
  return seen;
}

/* "ATTR=VALUE, ATTR=VALUE": each against the DER Name id[0..len) (its
 * RDNs' order not looked at; a malformed Name matches nothing). */
static int dn_match(const char *pattern, const uint8_t *id, size_t len) {
  gostx__der all = {id, len}, name;
  if (gostx__der_get(&all, GOSTX__DER_SEQ, &name, NULL) != GOSTX_OK || all.n) return 0;
  int terms = 0;
  for (const char *p = pattern; *p;) {
    const char *eq = strchr(p, '='), *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    if (!eq || eq > end || eq == p || eq + 1 == end) return 0;
    size_t k = 0, n = sizeof dn_attrs / sizeof dn_attrs[0];
    while (k < n && !(strlen(dn_attrs[k].name) == (size_t)(eq - p) &&
                      same_fold((const uint8_t *)p, dn_attrs[k].name, (size_t)(eq - p))))
      k++;
    if (k == n || !dn_attr_match(name, dn_attrs[k].arc, eq + 1, (size_t)(end - eq - 1)))
      return 0;
    terms++;
    p = *end ? end + 1 : end;
    while (*p == ' ') p++;
  }
  return terms > 0;
}

int gostx__ike_id_match(const char *pattern, uint8_t type, const uint8_t *id, size_t len) {
  if (!pattern || !id || !len) return 0;
  if (strchr(pattern, '=')) return type == GOSTX_IKE_ID_DER_ASN1_DN && dn_match(pattern, id, len);
  if (type != GOSTX_IKE_ID_FQDN && type != GOSTX_IKE_ID_RFC822_ADDR) return 0;
  for (size_t i = 0; i < len; i++)
    if (id[i] < 0x21 || id[i] > 0x7e) return 0; /* names are printable ASCII, no spaces */
  return value_match(pattern, strlen(pattern), id, len);
}
