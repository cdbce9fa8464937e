/* PEM (RFC 7468) around the DER keys of keys.c. The base64 of a private key
 * is secret, so both directions map characters with arithmetic on masks, not
 * with tables or branches on the character; only the line layout (where the
 * newlines are, which is public) steers control flow. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "gost3410/pem.h"

static const char *const label_of[] = {NULL, "PRIVATE KEY", "PUBLIC KEY", "ENCRYPTED PRIVATE KEY"};
enum { ENCRYPTED = 3 };

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

static int to_pem(int kind, const uint8_t *der, size_t der_len, char *out, size_t cap,
                  size_t *out_len) {
  const char *label = label_of[kind];
  size_t chars = (der_len + 2) / 3 * 4, need = 2 * (16 + strlen(label)) + chars + chars / 64 + 1;
  *out_len = need;
  if (!out || cap < need + 1) return GOSTX_ELEN;
  size_t n = (size_t)snprintf(out, cap, "-----BEGIN %s-----\n", label), col = 0;
  for (size_t i = 0; i < der_len; i += 3) {
    uint32_t rest = (uint32_t)(der_len - i), w = (uint32_t)der[i] << 16;
    if (rest > 1) w |= (uint32_t)der[i + 1] << 8;
    if (rest > 2) w |= der[i + 2];
    out[n++] = b64_char(w >> 18);
    out[n++] = b64_char(w >> 12 & 63);
    out[n++] = rest > 1 ? b64_char(w >> 6 & 63) : '=';
    out[n++] = rest > 2 ? b64_char(w & 63) : '=';
    if ((col += 4) == 64 && i + 3 < der_len) out[n++] = '\n', col = 0;
  }
  n += (size_t)snprintf(out + n, cap - n, "\n-----END %s-----\n", label);
  *out_len = n;
  return 0;
}

/* The DER of either kind of key, then its PEM. */
static int key_to_pem(int kind, gostx_gost3410_curve curve, const char *oid, const uint8_t *key,
                      size_t key_len, char *out, size_t cap, size_t *out_len) {
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t der_len;
  if (!out_len) return GOSTX_EINVAL;
  int rc = kind == GOSTX_GOST3410_KEY_PRIVATE
               ? gostx_gost3410_priv_to_der_oid(curve, oid, key, key_len, der, sizeof der, &der_len)
               : gostx_gost3410_pub_to_der_oid(curve, oid, key, key_len, der, sizeof der, &der_len);
  if (!rc) rc = to_pem(kind, der, der_len, out, cap, out_len);
  gostx_memzero(der, sizeof der);
  return rc;
}

int gostx_gost3410_priv_to_pem_oid(gostx_gost3410_curve curve, const char *oid,
                                   const uint8_t *priv, size_t priv_len, char *out, size_t cap,
                                   size_t *out_len) {
  return key_to_pem(GOSTX_GOST3410_KEY_PRIVATE, curve, oid, priv, priv_len, out, cap, out_len);
}

int gostx_gost3410_pub_to_pem_oid(gostx_gost3410_curve curve, const char *oid, const uint8_t *pub,
                                  size_t pub_len, char *out, size_t cap, size_t *out_len) {
  return key_to_pem(GOSTX_GOST3410_KEY_PUBLIC, curve, oid, pub, pub_len, out, cap, out_len);
}

int gostx_gost3410_priv_to_pem(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                               char *out, size_t cap, size_t *out_len) {
  return key_to_pem(GOSTX_GOST3410_KEY_PRIVATE, curve, NULL, priv, priv_len, out, cap, out_len);
}

int gostx_gost3410_pub_to_pem(gostx_gost3410_curve curve, const uint8_t *pub, size_t pub_len,
                              char *out, size_t cap, size_t *out_len) {
  return key_to_pem(GOSTX_GOST3410_KEY_PUBLIC, curve, NULL, pub, pub_len, out, cap, out_len);
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

/* The first line that starts (after spaces or tabs) with "-----BEGIN
 * L-----" for a label L of ours (1..3, label_of): as openssl does, any text
 * before it is skipped, such as the description of the key that certtool
 * writes above it, and blocks of other labels (a certificate). *i: just past
 * that line's end; *which: L. GOSTX_EUNSUP when there is a BEGIN line but
 * none of ours (ENCRYPTED to the plain reader is the caller's to say),
 * GOSTX_EFORMAT when there is none or ours is not followed by a line end.
 * What is searched is the text before our block and other blocks, never
 * our block's body: the search stops at our BEGIN line. That text can hold
 * the key too (certtool prints d in hex there); the search branches only
 * on where its lines end and whether a line starts with spaces, tabs or
 * "-----BEGIN ", which no hex digit or letter of it does. */
static int find_begin(const char *s, size_t n, size_t *i, int *which) {
  int other = 0;
  for (size_t line = 0; line < n;) {
    size_t j = line;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
    if (eat(s, n, &j, "-----BEGIN ")) {
      for (int k = 1; k <= ENCRYPTED; k++) {
        size_t e = j;
        if (eat(s, n, &e, label_of[k]) && eat(s, n, &e, "-----")) {
          if (!eat_eol(s, n, &e)) return GOSTX_EFORMAT;
          *i = e, *which = k;
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

/* The base64 body from s[*i] up to the "-----END" line into der; strict:
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
      if (out + 3 > cap) return GOSTX_EFORMAT;
      der[out++] = (uint8_t)(acc >> 16), der[out++] = (uint8_t)(acc >> 8);
      der[out++] = (uint8_t)acc;
      k = 0, acc = 0;
    }
  }
  if (pad) { /* k + pad == 4 */
    if (k + pad != 4 || out + 2 > cap) return GOSTX_EFORMAT;
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

int gostx_gost3410_key_from_pem_oid(const char *pem, size_t pem_len,
                                    gostx_gost3410_key_kind *kind, gostx_gost3410_curve *curve,
                                    size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub,
                                    size_t pub_cap, char *oid, size_t oid_cap) {
  if (!pem || !kind || !curve || !len) return GOSTX_EINVAL;
  size_t i = 0, der_len = 0;
  int which = 0, rc = find_begin(pem, pem_len, &i, &which);
  if (rc) return rc;
  if (which == ENCRYPTED) return GOSTX_EUNSUP; /* well-formed, for the encrypted reader */
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  rc = decode_body(pem, pem_len, &i, der, sizeof der, &der_len);
  if (!rc) rc = end_line(pem, pem_len, &i, label_of[which]);
  gostx_gost3410_key_kind k = 0;
  gostx_gost3410_curve c = 0;
  size_t l = 0;
  uint8_t d[64], q[128];
  char ps[GOSTX_GOST3410_OID_MAX] = "";
  if (!rc)
    rc = gostx_gost3410_key_from_der_oid(der, der_len, &k, &c, &l, d, sizeof d, q, sizeof q, ps,
                                         sizeof ps);
  if (!rc && (int)k != which) rc = GOSTX_EFORMAT; /* the label must say what the DER is */
  if (!rc && ((priv && k == GOSTX_GOST3410_KEY_PRIVATE && priv_cap < l) || (pub && pub_cap < 2 * l) ||
              (oid && oid_cap <= strlen(ps))))
    rc = GOSTX_ELEN;
  if (!rc) { /* outputs written only on success */
    *kind = k;
    *curve = c;
    *len = l;
    if (priv && k == GOSTX_GOST3410_KEY_PRIVATE) memcpy(priv, d, l);
    if (pub) memcpy(pub, q, 2 * l);
    if (oid) memcpy(oid, ps, strlen(ps) + 1);
  }
  gostx_memzero(d, sizeof d);
  gostx_memzero(der, sizeof der);
  return rc;
}

int gostx_gost3410_key_from_pem(const char *pem, size_t pem_len, gostx_gost3410_key_kind *kind,
                                gostx_gost3410_curve *curve, size_t *len, uint8_t *priv,
                                size_t priv_cap, uint8_t *pub, size_t pub_cap) {
  return gostx_gost3410_key_from_pem_oid(pem, pem_len, kind, curve, len, priv, priv_cap, pub,
                                         pub_cap, NULL, 0);
}

/* For the other PEM files of lib/ (certificates: lib/x509), pem.h. */
int gostx__pem_block(const char *s, size_t n, size_t *pos, const char *label, uint8_t *der,
                     size_t cap, size_t *der_len) {
  for (size_t line = *pos; line < n;) {
    size_t j = line;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
    if (eat(s, n, &j, "-----BEGIN ") && eat(s, n, &j, label) && eat(s, n, &j, "-----")) {
      if (!eat_eol(s, n, &j)) return GOSTX_EFORMAT;
      int rc = decode_body(s, n, &j, der, cap, der_len);
      if (!rc) rc = end_line(s, n, &j, label);
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

/* ---- encrypted private keys: PEM "ENCRYPTED PRIVATE KEY" around keys.c's DER ---- */

/* The DER inside the first key block when it is "ENCRYPTED PRIVATE KEY"
 * (layout as gostx_gost3410_key_from_pem); GOSTX_EFORMAT for anything else. */
static int encrypted_der(const char *pem, size_t pem_len, uint8_t *der, size_t cap, size_t *der_len) {
  size_t i = 0;
  int which = 0;
  if (find_begin(pem, pem_len, &i, &which) || which != ENCRYPTED) return GOSTX_EFORMAT;
  int rc = decode_body(pem, pem_len, &i, der, cap, der_len);
  return rc ? rc : end_line(pem, pem_len, &i, label_of[which]);
}

int gostx_gost3410_priv_to_encrypted_pem_oid(gostx_gost3410_curve curve, const char *oid,
                                             const uint8_t *priv, size_t priv_len,
                                             const uint8_t *pass, size_t pass_len,
                                             gostx_gost3410_pbe cipher, uint32_t iterations,
                                             char *out, size_t cap, size_t *out_len) {
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t der_len;
  if (!out_len) return GOSTX_EINVAL;
  int rc = gostx_gost3410_priv_to_encrypted_der_oid(curve, oid, priv, priv_len, pass, pass_len,
                                                    cipher, iterations, der, sizeof der, &der_len);
  if (!rc) rc = to_pem(ENCRYPTED, der, der_len, out, cap, out_len);
  return rc;
}

int gostx_gost3410_priv_to_encrypted_pem(gostx_gost3410_curve curve, const uint8_t *priv,
                                         size_t priv_len, const uint8_t *pass, size_t pass_len,
                                         gostx_gost3410_pbe cipher, uint32_t iterations,
                                         char *out, size_t cap, size_t *out_len) {
  return gostx_gost3410_priv_to_encrypted_pem_oid(curve, NULL, priv, priv_len, pass, pass_len,
                                                  cipher, iterations, out, cap, out_len);
}

int gostx_gost3410_key_from_encrypted_pem_oid(const char *pem, size_t pem_len,
                                              const uint8_t *pass, size_t pass_len,
                                              gostx_gost3410_curve *curve, size_t *len,
                                              uint8_t *priv, size_t priv_cap, uint8_t *pub,
                                              size_t pub_cap, char *oid, size_t oid_cap) {
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t der_len = 0;
  if (!pem || !curve || !len) return GOSTX_EINVAL;
  int rc = encrypted_der(pem, pem_len, der, sizeof der, &der_len);
  if (!rc)
    rc = gostx_gost3410_key_from_encrypted_der_oid(der, der_len, pass, pass_len, curve, len, priv,
                                                   priv_cap, pub, pub_cap, oid, oid_cap);
  return rc;
}

int gostx_gost3410_key_from_encrypted_pem(const char *pem, size_t pem_len, const uint8_t *pass,
                                          size_t pass_len, gostx_gost3410_curve *curve,
                                          size_t *len, uint8_t *priv, size_t priv_cap,
                                          uint8_t *pub, size_t pub_cap) {
  return gostx_gost3410_key_from_encrypted_pem_oid(pem, pem_len, pass, pass_len, curve, len, priv,
                                                   priv_cap, pub, pub_cap, NULL, 0);
}

int gostx_gost3410_encrypted_scheme_pem(const char *pem, size_t pem_len, char *text, size_t cap) {
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t der_len = 0;
  if (!pem || !text || !cap) return GOSTX_EINVAL;
  int rc = encrypted_der(pem, pem_len, der, sizeof der, &der_len);
  return rc ? rc : gostx_gost3410_encrypted_scheme(der, der_len, text, cap);
}
