/* A gateway's remote-access template names its peers by a pattern of
 * their ID (issue 81): see gostx__ike_id_match in ike.h. IDs are public:
 * nothing here is constant time. */
#include <string.h>

#include "ike.h"

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* a (n octets) and b (n characters) equal, ASCII letters in either case */
static int same_fold(const uint8_t *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (lower(a[i]) != lower((unsigned char)b[i])) return 0;
  return 1;
}

int gostx__ike_id_match(const char *pattern, uint8_t type, const uint8_t *id, size_t len) {
  if (!pattern || !id || !len) return 0;
  if (type != GOSTX_IKE_ID_FQDN && type != GOSTX_IKE_ID_RFC822_ADDR) return 0;
  for (size_t i = 0; i < len; i++)
    if (id[i] < 0x21 || id[i] > 0x7e) return 0; /* names are printable ASCII, no spaces */
  const int wild = pattern[0] == '*';
  const char *rest = pattern + wild;
  const size_t n = strlen(rest);
  if (strchr(rest, '*')) return 0; /* a '*' only leads */
  if (!wild) return n == len && same_fold(id, rest, n);
  /* "*" alone: any name; "*.x" or "*@x": at least one character before the rest */
  return len > n && same_fold(id + len - n, rest, n);
}
