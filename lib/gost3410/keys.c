/* GOST R 34.10-2012 keys in DER: PKCS#8 PrivateKeyInfo and
 * SubjectPublicKeyInfo as RFC 4491 / RFC 9215 and gost-engine 3.x write them
 * (include/gostx/gost3410.h, docs/GOST3410.md). The reader parses untrusted
 * input: strict DER, every length checked against what is left, nothing read
 * past the buffer (tests/fuzz/fuzz_pkey.c). */
#include <stdio.h>
#include <string.h>

#include "gost3410/ec.h"
#include "internal.h"
#include "kdf/sha256.h"

#define ALG_OID_256 "1.2.643.7.1.1.1.1" /* id-tc26-gost3410-12-256 */
#define ALG_OID_512 "1.2.643.7.1.1.1.2" /* id-tc26-gost3410-12-512 */
#define DGST_OID_256 "1.2.643.7.1.1.2.2" /* id-tc26-gost3411-12-256 */
#define DGST_OID_512 "1.2.643.7.1.1.2.3" /* id-tc26-gost3411-12-512 */
#define OID_TEXT_MAX 64

enum { T_INT = 0x02, T_BITS = 0x03, T_OCTETS = 0x04, T_OID = 0x06, T_SEQ = 0x30 };

/* ---- writing ---- */

typedef struct wbuf {
  uint8_t b[GOSTX_GOST3410_DER_MAX];
  size_t n;
} wbuf;

/* Appends tag, length and content; the caller sized everything below
 * GOSTX_GOST3410_DER_MAX, so lengths stay under 65536. */
static void put_tlv(wbuf *w, uint8_t tag, const uint8_t *content, size_t len) {
  w->b[w->n++] = tag;
  if (len >= 0x100) {
    w->b[w->n++] = 0x82;
    w->b[w->n++] = (uint8_t)(len >> 8);
  } else if (len >= 0x80) {
    w->b[w->n++] = 0x81;
  }
  w->b[w->n++] = (uint8_t)len;
  memmove(w->b + w->n, content, len);
  w->n += len;
}

/* Dotted text to the DER content of an OID; 0 or -1 (not one of ours). */
static int oid_encode(const char *text, uint8_t *out, size_t *out_len) {
  uint32_t arcs[16];
  size_t n = 0;
  for (const char *s = text; *s;) {
    uint32_t v = 0;
    if (*s < '0' || *s > '9' || n == 16) return -1;
    while (*s >= '0' && *s <= '9') v = v * 10 + (uint32_t)(*s++ - '0');
    arcs[n++] = v;
    if (*s == '.') s++;
  }
  if (n < 2) return -1;
  size_t len = 0;
  for (size_t i = 1; i < n; i++) {
    uint32_t v = i == 1 ? arcs[0] * 40 + arcs[1] : arcs[i];
    uint8_t tmp[5];
    int k = 0;
    do tmp[k++] = (uint8_t)(v & 0x7f); while (v >>= 7);
    while (k--) out[len++] = (uint8_t)(tmp[k] | (k ? 0x80 : 0));
  }
  *out_len = len;
  return 0;
}

static void put_oid(wbuf *w, const char *text) {
  uint8_t c[32];
  size_t len;
  if (oid_encode(text, c, &len) == 0) put_tlv(w, T_OID, c, len);
}

/* The parameter set OID written. Several name one curve (256 B = CryptoPro-A
 * = CryptoPro-XchA, 256 C = CryptoPro-B, 256 D = CryptoPro-C =
 * CryptoPro-XchB), and gost-engine will not derive (VKO) between keys whose
 * OIDs differ even when the curve is the same: so oid, when given, is
 * written as it is (a key read and written again keeps the OID it came
 * with; the _oid readers give it), after checking that it names curve.
 * Otherwise the 256-bit sets B, C, D go out under their CryptoPro OIDs (RFC
 * 4357), as gost-engine's paramsets A, B, C and the CAs' certificates name
 * them, the commoner name. */
static int paramset_oid(gostx_gost3410_curve curve, const char *oid, const char **out) {
  uint8_t enc[32];
  size_t n;
  if (oid && *oid) {
    if (strlen(oid) >= GOSTX_GOST3410_OID_MAX || oid_encode(oid, enc, &n) ||
        gostx_gost3410_curve_by_name(oid) != (int)curve)
      return GOSTX_EINVAL;
    *out = oid;
    return 0;
  }
  switch (curve) {
    case GOSTX_GOST3410_256_B: *out = "1.2.643.2.2.35.1"; break;
    case GOSTX_GOST3410_256_C: *out = "1.2.643.2.2.35.2"; break;
    case GOSTX_GOST3410_256_D: *out = "1.2.643.2.2.35.3"; break;
    default: *out = gostx_gost3410_curve_oid(curve);
  }
  return *out ? 0 : GOSTX_EINVAL;
}

/* gost-engine writes the digest OID after the CryptoPro (2001) OIDs, the
 * test sets' and the 512-bit sets A and B, and omits it after the tc26 256
 * OIDs (A, B, C, D) and 512 C, as RFC 9215 section 3.3 asks; we write what
 * it writes. */
static int writes_digest_oid(const char *oid) {
  return strncmp(oid, "1.2.643.7.1.2.1.1.", 18) && strcmp(oid, "1.2.643.7.1.2.1.2.3");
}

/* AlgorithmIdentifier { algorithm, SEQUENCE { paramSet, digest OPTIONAL } }
 * for the parameter set OID oid (paramset_oid's). */
static void put_algorithm(wbuf *w, const char *oid, size_t len) {
  wbuf params = {.n = 0}, alg = {.n = 0};
  put_oid(&params, oid);
  if (writes_digest_oid(oid)) put_oid(&params, len == 32 ? DGST_OID_256 : DGST_OID_512);
  put_oid(&alg, len == 32 ? ALG_OID_256 : ALG_OID_512);
  put_tlv(&alg, T_SEQ, params.b, params.n);
  put_tlv(w, T_SEQ, alg.b, alg.n);
}

static void reverse(uint8_t *out, const uint8_t *in, size_t len) {
  for (size_t i = 0; i < len; i++) out[i] = in[len - 1 - i];
}

static int emit(const wbuf *w, uint8_t *out, size_t cap, size_t *out_len) {
  *out_len = w->n;
  if (!out || cap < w->n) return GOSTX_ELEN;
  memcpy(out, w->b, w->n);
  return 0;
}

int gostx_gost3410_priv_to_der_oid(gostx_gost3410_curve curve, const char *oid,
                                   const uint8_t *priv, size_t priv_len, uint8_t *out, size_t cap,
                                   size_t *out_len) {
  size_t len = gostx_gost3410_size(curve);
  uint8_t pub[128], le[64];
  const char *ps;
  if (!len || !priv || !out_len || paramset_oid(curve, oid, &ps)) return GOSTX_EINVAL;
  /* Checks 0 < d < q (and the length) the library's way. */
  int rc = gostx_gost3410_public_key(curve, priv, priv_len, pub, 2 * len);
  if (rc) return rc;
  wbuf body = {.n = 0}, all = {.n = 0};
  const uint8_t version = 0;
  put_tlv(&body, T_INT, &version, 1);
  put_algorithm(&body, ps, len);
  reverse(le, priv, len);
  put_tlv(&body, T_OCTETS, le, len);
  put_tlv(&all, T_SEQ, body.b, body.n);
  rc = emit(&all, out, cap, out_len);
  gostx_memzero(le, sizeof le);
  gostx_memzero(&body, sizeof body);
  gostx_memzero(&all, sizeof all);
  return rc;
}

int gostx_gost3410_priv_to_der(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                               uint8_t *out, size_t cap, size_t *out_len) {
  return gostx_gost3410_priv_to_der_oid(curve, NULL, priv, priv_len, out, cap, out_len);
}

int gostx_gost3410_pub_to_der_oid(gostx_gost3410_curve curve, const char *oid, const uint8_t *pub,
                                  size_t pub_len, uint8_t *out, size_t cap, size_t *out_len) {
  size_t len = gostx_gost3410_size(curve);
  const char *ps;
  if (!len || !pub || !out_len || paramset_oid(curve, oid, &ps)) return GOSTX_EINVAL;
  int rc = gostx_gost3410_check_public_key(curve, pub, pub_len);
  if (rc) return rc;
  uint8_t xy[128];
  reverse(xy, pub, len);
  reverse(xy + len, pub + len, len);
  wbuf point = {.n = 0}, bits = {.n = 0}, body = {.n = 0}, all = {.n = 0};
  put_tlv(&point, T_OCTETS, xy, 2 * len);
  bits.b[bits.n++] = 0; /* no unused bits */
  memcpy(bits.b + bits.n, point.b, point.n);
  bits.n += point.n;
  put_algorithm(&body, ps, len);
  put_tlv(&body, T_BITS, bits.b, bits.n);
  put_tlv(&all, T_SEQ, body.b, body.n);
  return emit(&all, out, cap, out_len);
}

int gostx_gost3410_pub_to_der(gostx_gost3410_curve curve, const uint8_t *pub, size_t pub_len,
                              uint8_t *out, size_t cap, size_t *out_len) {
  return gostx_gost3410_pub_to_der_oid(curve, NULL, pub, pub_len, out, cap, out_len);
}

int gostx_gost3410_sig_swap(const uint8_t *sig, size_t sig_len, uint8_t *out, size_t out_len) {
  if (!sig || !out) return GOSTX_EINVAL;
  if ((sig_len != 64 && sig_len != 128) || out_len != sig_len) return GOSTX_ELEN;
  size_t h = sig_len / 2;
  for (size_t i = 0; i < h; i++) {
    uint8_t t = sig[i];
    out[i] = sig[h + i];
    out[h + i] = t;
  }
  return 0;
}

/* ---- reading ---- */

typedef struct rd {
  const uint8_t *p;
  size_t n;
} rd;

/* The next element, which must have tag `tag`: its content in *c. Definite
 * minimal lengths only (DER), at most two length bytes (keys are small). */
static int get(rd *r, uint8_t tag, rd *c) {
  if (r->n < 2 || r->p[0] != tag) return GOSTX_EFORMAT;
  size_t len = r->p[1], hdr = 2;
  if (len == 0x81) {
    if (r->n < 3 || r->p[2] < 0x80) return GOSTX_EFORMAT;
    len = r->p[2];
    hdr = 3;
  } else if (len == 0x82) {
    if (r->n < 4 || r->p[2] == 0) return GOSTX_EFORMAT;
    len = (size_t)r->p[2] << 8 | r->p[3];
    hdr = 4;
  } else if (len >= 0x80) {
    return GOSTX_EFORMAT;
  }
  if (len > r->n - hdr) return GOSTX_EFORMAT;
  c->p = r->p + hdr;
  c->n = len;
  r->p += hdr + len;
  r->n -= hdr + len;
  return 0;
}

/* An OID's content as dotted text; GOSTX_EFORMAT when not minimal DER. */
static int get_oid(rd *r, char *text, size_t cap) {
  rd c;
  int rc = get(r, T_OID, &c);
  if (rc) return rc;
  if (c.n == 0 || (c.p[c.n - 1] & 0x80)) return GOSTX_EFORMAT;
  size_t out = 0;
  for (size_t i = 0; i < c.n;) {
    if (c.p[i] == 0x80) return GOSTX_EFORMAT; /* a leading zero digit */
    uint32_t v = 0;
    do {
      if (v >> 25) return GOSTX_EFORMAT;
      v = v << 7 | (c.p[i] & 0x7f);
    } while (c.p[i++] & 0x80);
    char arc[24];
    int k;
    if (out == 0) {
      uint32_t first = v < 80 ? v / 40 : 2;
      k = snprintf(arc, sizeof arc, "%u.%u", (unsigned)first, (unsigned)(v - 40 * first));
    } else {
      k = snprintf(arc, sizeof arc, ".%u", (unsigned)v);
    }
    if (k < 0 || out + (size_t)k >= cap) return GOSTX_EUNSUP; /* longer than any of ours */
    memcpy(text + out, arc, (size_t)k + 1);
    out += (size_t)k;
  }
  return 0;
}

/* AlgorithmIdentifier: the curve, checked against the algorithm's size, and
 * the parameter set's OID as the file names it (ps_oid[OID_TEXT_MAX]). */
static int get_algorithm(rd *r, gostx_gost3410_curve *curve, size_t *len, char *ps_oid) {
  rd alg, params;
  char oid[OID_TEXT_MAX];
  int rc = get(r, T_SEQ, &alg);
  if (!rc) rc = get_oid(&alg, oid, sizeof oid);
  if (rc) return rc;
  if (!strcmp(oid, ALG_OID_256))
    *len = 32;
  else if (!strcmp(oid, ALG_OID_512))
    *len = 64;
  else
    return GOSTX_EUNSUP; /* RSA, EC, GOST R 34.10-2001, ... */
  if ((rc = get(&alg, T_SEQ, &params)) || alg.n) return GOSTX_EFORMAT;
  if ((rc = get_oid(&params, oid, sizeof oid))) return rc;
  int id = gostx_gost3410_curve_by_name(oid);
  if (id < 0) return GOSTX_EUNSUP;
  if (gostx_gost3410_size((gostx_gost3410_curve)id) != *len) return GOSTX_EFORMAT;
  memcpy(ps_oid, oid, sizeof oid);
  if (params.n) { /* digestParamSet: Streebog of the key's size */
    if ((rc = get_oid(&params, oid, sizeof oid))) return rc;
    if (strcmp(oid, *len == 32 ? DGST_OID_256 : DGST_OID_512) || params.n) return GOSTX_EFORMAT;
  }
  *curve = (gostx_gost3410_curve)id;
  return 0;
}

/* d = k0 * m1 * ... * mk mod q from k+1 little-endian len-byte numbers (the
 * CryptoPro masked form as gost-engine unmasks it); d = k0 as it is when
 * there is no mask. d big-endian. */
static int unmask(gostx_gost3410_curve curve, const uint8_t *buf, size_t total, size_t len,
                  uint8_t *d) {
  uint8_t be[64];
  reverse(d, buf, len);
  if (total == len) return 0;
  gx_curve C;
  gx_fe acc = {0}, m = {0};
  if (gostx__ec_curve_load(&C, curve)) return GOSTX_EINVAL;
  gostx__fe_load_be(m, d, C.n);
  gostx__fe_to_mont(&C.fq, acc, m); /* any value < R: to_mont reduces it */
  for (size_t off = len; off < total; off += len) {
    reverse(be, buf + off, len);
    gostx__fe_load_be(m, be, C.n);
    gostx__fe_to_mont(&C.fq, m, m);
    gostx__fe_mul(&C.fq, acc, acc, m);
  }
  gostx__fe_from_mont(&C.fq, m, acc);
  gostx__fe_store_be(d, m, C.n);
  gostx_memzero(be, sizeof be);
  gostx_memzero(acc, sizeof acc);
  gostx_memzero(m, sizeof m);
  return 0;
}

/* The privateKey OCTET STRING's content in every form gost-engine reads, in
 * its order: a multiple of len bytes is the key (and masks) little-endian;
 * else an OCTET STRING (little-endian), an INTEGER (big-endian) or
 * SEQUENCE { masked key OCTET STRING, public key OCTET STRING }. */
static int get_private_value(rd key, gostx_gost3410_curve curve, size_t len, uint8_t *d) {
  rd inner, r = key;
  if (key.n && key.n % len == 0) return unmask(curve, key.p, key.n, len, d);
  if (!key.n) return GOSTX_EFORMAT;
  switch (key.p[0]) {
    case T_OCTETS:
      if (get(&r, T_OCTETS, &inner) || r.n || inner.n != len) return GOSTX_EFORMAT;
      reverse(d, inner.p, len);
      return 0;
    case T_INT:
      if (get(&r, T_INT, &inner) || r.n || inner.n == 0) return GOSTX_EFORMAT;
      if (inner.p[0] & 0x80) return GOSTX_EFORMAT;                  /* negative */
      if (inner.n > 1 && inner.p[0] == 0 && !(inner.p[1] & 0x80)) return GOSTX_EFORMAT;
      if (inner.p[0] == 0 && inner.n > 1) inner.p++, inner.n--;      /* the sign byte */
      if (inner.n > len) return GOSTX_EINVAL;                        /* >= q */
      memset(d, 0, len - inner.n);
      memcpy(d + len - inner.n, inner.p, inner.n);
      return 0;
    case T_SEQ: {
      rd seq, pubkey;
      if (get(&r, T_SEQ, &seq) || r.n || get(&seq, T_OCTETS, &inner) ||
          get(&seq, T_OCTETS, &pubkey) || seq.n || !inner.n || inner.n % len)
        return GOSTX_EFORMAT;
      return unmask(curve, inner.p, inner.n, len, d);
    }
    default: return GOSTX_EFORMAT;
  }
}

/* Public key: BIT STRING (no unused bits) of OCTET STRING x || y, each
 * little-endian; out big-endian. */
static int get_public_value(rd bits, size_t len, uint8_t *pub) {
  rd point;
  if (bits.n < 1 || bits.p[0] != 0) return GOSTX_EFORMAT;
  bits.p++, bits.n--;
  if (get(&bits, T_OCTETS, &point) || bits.n || point.n != 2 * len) return GOSTX_EFORMAT;
  reverse(pub, point.p, len);
  reverse(pub + len, point.p + len, len);
  return 0;
}

static int parse(const uint8_t *der, size_t der_len, gostx_gost3410_key_kind *kind,
                 gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, uint8_t *pub,
                 char *ps_oid) {
  rd all = {der, der_len}, body, first, r;
  if (get(&all, T_SEQ, &body) || all.n) return GOSTX_EFORMAT;
  if (body.n && body.p[0] == T_INT) { /* PrivateKeyInfo: version 0 */
    rd key;
    int rc;
    if (get(&body, T_INT, &first) || first.n != 1 || first.p[0] != 0) return GOSTX_EFORMAT;
    if ((rc = get_algorithm(&body, curve, len, ps_oid))) return rc;
    if (get(&body, T_OCTETS, &key) || body.n) return GOSTX_EFORMAT; /* no attributes */
    *kind = GOSTX_GOST3410_KEY_PRIVATE;
    if ((rc = get_private_value(key, *curve, *len, priv))) return rc;
    /* 0 < d < q, and Q for the caller */
    return gostx_gost3410_public_key(*curve, priv, *len, pub, 2 * *len);
  }
  r = body; /* SubjectPublicKeyInfo */
  int rc = get_algorithm(&r, curve, len, ps_oid);
  if (rc) return rc;
  if (get(&r, T_BITS, &first) || r.n) return GOSTX_EFORMAT;
  *kind = GOSTX_GOST3410_KEY_PUBLIC;
  if ((rc = get_public_value(first, *len, pub))) return rc;
  return gostx_gost3410_check_public_key(*curve, pub, 2 * *len);
}

int gostx_gost3410_key_from_der_oid(const uint8_t *der, size_t der_len,
                                    gostx_gost3410_key_kind *kind, gostx_gost3410_curve *curve,
                                    size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub,
                                    size_t pub_cap, char *oid, size_t oid_cap) {
  if (!der || !kind || !curve || !len) return GOSTX_EINVAL;
  if (der_len > GOSTX_GOST3410_DER_MAX) return GOSTX_EFORMAT;
  gostx_gost3410_key_kind k = 0;
  gostx_gost3410_curve c = 0;
  size_t l = 0;
  uint8_t d[64], q[128];
  char ps[OID_TEXT_MAX] = "";
  int rc = parse(der, der_len, &k, &c, &l, d, q, ps);
  if (!rc && ((priv && k == GOSTX_GOST3410_KEY_PRIVATE && priv_cap < l) || (pub && pub_cap < 2 * l) ||
              (oid && oid_cap <= strlen(ps))))
    rc = GOSTX_ELEN;
  if (!rc) {
    *kind = k;
    *curve = c;
    *len = l;
    if (priv && k == GOSTX_GOST3410_KEY_PRIVATE) memcpy(priv, d, l);
    if (pub) memcpy(pub, q, 2 * l);
    if (oid) memcpy(oid, ps, strlen(ps) + 1);
  }
  gostx_memzero(d, sizeof d);
  return rc;
}

int gostx_gost3410_key_from_der(const uint8_t *der, size_t der_len, gostx_gost3410_key_kind *kind,
                                gostx_gost3410_curve *curve, size_t *len, uint8_t *priv,
                                size_t priv_cap, uint8_t *pub, size_t pub_cap) {
  return gostx_gost3410_key_from_der_oid(der, der_len, kind, curve, len, priv, priv_cap, pub,
                                         pub_cap, NULL, 0);
}

/* ---- encrypted PKCS#8 (PBES2, RFC 8018; the GOST profile of RFC 9337) ----
 * EncryptedPrivateKeyInfo ::= SEQUENCE { AlgorithmIdentifier, OCTET STRING }
 * with the algorithm PBES2 { keyDerivationFunc PBKDF2 { salt OCTET STRING,
 * iterationCount INTEGER, keyLength INTEGER OPTIONAL, prf { HMAC-Streebog-512,
 * NULL } }, encryptionScheme { Kuznyechik- or Magma-CTR-ACPKM, SEQUENCE { ukm
 * OCTET STRING } } }: what gost-engine writes for `openssl pkcs8 -topk8 -v2
 * kuznyechik-ctr-acpkm -v2prf id-tc26-hmac-gost-3411-2012-512` and reads
 * back. Read only: GOST 28147-89 CFB (`-v2 gost89`), and the PRF
 * HMAC-SHA256, OpenSSL's default, which gost-engine writes when -v2prf is
 * not given (kdf/sha256.c). The key is
 * PBKDF2's 32 bytes; the CTR IV is the ukm's first n/2
 * bytes (the rest, 8 bytes, is written zero, as gost-engine does, and not
 * used). A PrivateKeyInfo is at most ~110 bytes, shorter than any ACPKM
 * section, so the section size never comes into play (the N passed below is
 * only what the mode call needs). */

#define OID_PBES2 "1.2.840.113549.1.5.13"
#define OID_PBKDF2 "1.2.840.113549.1.5.12"
#define OID_HMAC_STREEBOG512 "1.2.643.7.1.1.4.2"
#define OID_HMAC_SHA256 "1.2.840.113549.2.9" /* read only: OpenSSL's default PRF */
#define OID_KUZ_CTR_ACPKM "1.2.643.7.1.1.5.2.1"
#define OID_MAGMA_CTR_ACPKM "1.2.643.7.1.1.5.1.1"
#define OID_GOST89_CFB "1.2.643.2.2.21" /* read only: gost-engine's -v2 gost89 */
#define PBES2_ITER_MAX 10000000u /* reading: more is refused (a file must not stall us) */

/* Names for the schemes users meet, in refusals (gostx_gost3410_encrypted_scheme). */
static const struct {
  const char *oid, *name;
} scheme_names[] = {
    {OID_PBES2, "PBES2"},
    {OID_PBKDF2, "PBKDF2"},
    {"1.2.840.113549.2.7", "hmacWithSHA1"},
    {"1.2.840.113549.2.8", "hmacWithSHA224"},
    {OID_HMAC_SHA256, "hmacWithSHA256"},
    {"1.2.840.113549.2.10", "hmacWithSHA384"},
    {"1.2.840.113549.2.11", "hmacWithSHA512"},
    {"1.2.643.7.1.1.4.1", "HMAC-Streebog-256"},
    {OID_HMAC_STREEBOG512, "HMAC-Streebog-512"},
    {"2.16.840.1.101.3.4.1.2", "aes-128-cbc"},
    {"2.16.840.1.101.3.4.1.22", "aes-192-cbc"},
    {"2.16.840.1.101.3.4.1.42", "aes-256-cbc"},
    {"1.2.840.113549.3.7", "des-ede3-cbc"},
    {OID_GOST89_CFB, "GOST 28147-89 CFB"},
    {OID_KUZ_CTR_ACPKM, "kuznyechik-ctr-acpkm"},
    {"1.2.643.7.1.1.5.2.2", "kuznyechik-ctr-acpkm-omac"},
    {OID_MAGMA_CTR_ACPKM, "magma-ctr-acpkm"},
    {"1.2.643.7.1.1.5.1.2", "magma-ctr-acpkm-omac"},
    {"1.2.840.113549.1.12.1.3", "PKCS#12 pbeWithSHAAnd3-KeyTripleDES-CBC"},
    {"1.2.840.113549.1.12.1.6", "PKCS#12 pbeWithSHAAnd40BitRC2-CBC"},
    {"1.2.840.113549.1.5.3", "PBES1 pbeWithMD5AndDES-CBC"},
    {"1.2.840.113549.1.5.10", "PBES1 pbeWithSHA1AndDES-CBC"},
};

static const char *scheme_name(const char *oid) {
  for (size_t i = 0; i < sizeof scheme_names / sizeof scheme_names[0]; i++)
    if (!strcmp(oid, scheme_names[i].oid)) return scheme_names[i].name;
  return NULL;
}

/* Appends sep and the OID's name (its dotted text when unnamed) to
 * text[cap] at *n, truncating at cap - 1. */
static void name_oid(char *text, size_t cap, size_t *n, const char *sep, const char *oid) {
  const char *name = scheme_name(oid);
  int k = name ? snprintf(text + *n, cap - *n, "%s%s", sep, name)
               : snprintf(text + *n, cap - *n, "%s%s", sep, oid);
  if (k > 0) *n = *n + (size_t)k < cap ? *n + (size_t)k : cap - 1;
}

/* A small non-negative INTEGER (DER, minimal) as uint32_t. */
static int get_u32(rd *r, uint32_t *v) {
  rd c;
  if (get(r, T_INT, &c) || c.n == 0 || (c.p[0] & 0x80)) return GOSTX_EFORMAT;
  if (c.n > 1 && c.p[0] == 0 && !(c.p[1] & 0x80)) return GOSTX_EFORMAT;
  if (c.n > 5 || (c.n == 5 && c.p[0] != 0)) return GOSTX_EUNSUP; /* >= 2^32: well-formed, too big */
  uint64_t x = 0;
  for (size_t i = 0; i < c.n; i++) x = x << 8 | c.p[i];
  *v = (uint32_t)x;
  return 0;
}

static void put_u32(wbuf *w, uint32_t v) {
  uint8_t b[5];
  size_t n = 0;
  b[n++] = 0;
  for (int s = 24; s >= 0; s -= 8) b[n++] = (uint8_t)(v >> s);
  size_t i = 0;
  while (i < 4 && b[i] == 0 && !(b[i + 1] & 0x80)) i++;
  put_tlv(w, T_INT, b + i, n - i);
}

typedef struct pbes2 {
  rd salt, ukm, data; /* ukm: the CTR-ACPKM ukm, or the GOST 28147-89 IV */
  uint32_t iter;
  gostx_alg alg;
  int sbox; /* GOST 28147-89 CFB: its parameter set (enum gostx_sbox); -1 otherwise */
  int prf_sha256; /* PBKDF2's PRF: HMAC-SHA256 (else HMAC-Streebog-512) */
  char desc[160]; /* what the file uses, for refusals */
} pbes2;

/* Parses EncryptedPrivateKeyInfo; GOSTX_EUNSUP (with p->desc naming the
 * scheme) for anything but the GOST PBES2 above. */
static int parse_pbes2(const uint8_t *der, size_t der_len, pbes2 *p) {
  rd all = {der, der_len}, body, alg, params, kdf, kdfp, enc, encp, prf;
  char oid[OID_TEXT_MAX];
  size_t dn = 0;
  int rc;
  p->desc[0] = 0;
  p->prf_sha256 = 0;
  if (get(&all, T_SEQ, &body) || all.n) return GOSTX_EFORMAT;
  if (get(&body, T_SEQ, &alg) || get(&body, T_OCTETS, &p->data) || body.n) return GOSTX_EFORMAT;
  if ((rc = get_oid(&alg, oid, sizeof oid))) return rc;
  name_oid(p->desc, sizeof p->desc, &dn, "", oid);
  if (strcmp(oid, OID_PBES2)) return GOSTX_EUNSUP;
  if (get(&alg, T_SEQ, &params) || alg.n) return GOSTX_EFORMAT;
  if (get(&params, T_SEQ, &kdf) || get(&params, T_SEQ, &enc) || params.n) return GOSTX_EFORMAT;
  if ((rc = get_oid(&kdf, oid, sizeof oid))) return rc;
  name_oid(p->desc, sizeof p->desc, &dn, ": ", oid);
  int kdf_ok = !strcmp(oid, OID_PBKDF2);
  const char *prf_oid = "1.2.840.113549.2.7"; /* PBKDF2's default PRF: hmacWithSHA1 */
  if (kdf_ok) {
    if (get(&kdf, T_SEQ, &kdfp) || kdf.n || get(&kdfp, T_OCTETS, &p->salt)) return GOSTX_EFORMAT;
    if ((rc = get_u32(&kdfp, &p->iter))) return rc;
    if (kdfp.n && kdfp.p[0] == T_INT) {
      uint32_t key_len;
      if ((rc = get_u32(&kdfp, &key_len))) return rc;
      if (key_len != GOSTX_KEY_LEN) return GOSTX_EUNSUP;
    }
    if (kdfp.n) {
      rd np;
      if (get(&kdfp, T_SEQ, &prf) || kdfp.n || get_oid(&prf, oid, sizeof oid)) return GOSTX_EFORMAT;
      if (prf.n && (get(&prf, 0x05, &np) || np.n || prf.n)) return GOSTX_EFORMAT; /* NULL */
      prf_oid = oid;
    }
    name_oid(p->desc, sizeof p->desc, &dn, " with ", prf_oid);
    p->prf_sha256 = !strcmp(prf_oid, OID_HMAC_SHA256);
    kdf_ok = p->prf_sha256 || !strcmp(prf_oid, OID_HMAC_STREEBOG512);
  }
  if ((rc = get_oid(&enc, oid, sizeof oid))) return rc;
  name_oid(p->desc, sizeof p->desc, &dn, ", ", oid);
  size_t n;
  p->sbox = -1;
  if (!strcmp(oid, OID_KUZ_CTR_ACPKM))
    p->alg = GOSTX_ALG_KUZNYECHIK, n = 16;
  else if (!strcmp(oid, OID_MAGMA_CTR_ACPKM))
    p->alg = GOSTX_ALG_MAGMA, n = 8;
  else if (!strcmp(oid, OID_GOST89_CFB))
    p->alg = GOSTX_ALG_MAGMA, n = 8, p->sbox = 0;
  else
    return GOSTX_EUNSUP;
  if (!kdf_ok) return GOSTX_EUNSUP;
  if (get(&enc, T_SEQ, &encp) || enc.n || get(&encp, T_OCTETS, &p->ukm)) return GOSTX_EFORMAT;
  if (p->sbox >= 0) { /* Gost28147-89-Parameters ::= SEQUENCE { iv, encryptionParamSet } */
    if (get_oid(&encp, oid, sizeof oid) || encp.n || p->ukm.n != 8) return GOSTX_EFORMAT;
    name_oid(p->desc, sizeof p->desc, &dn, " ", oid);
    if ((p->sbox = gostx_sbox_by_name(oid)) < 0) return GOSTX_EUNSUP;
  } else if (encp.n) {
    return GOSTX_EFORMAT;
  }
  if (p->ukm.n < n / 2) return GOSTX_EFORMAT; /* the IV */
  if (p->iter == 0 || p->salt.n == 0) return GOSTX_EFORMAT;
  if (p->iter > PBES2_ITER_MAX) return GOSTX_EUNSUP;
  if (p->data.n == 0 || p->data.n > GOSTX_GOST3410_DER_MAX) return GOSTX_EFORMAT;
  return 0;
}

int gostx_gost3410_encrypted_scheme(const uint8_t *der, size_t der_len, char *text, size_t cap) {
  pbes2 p;
  if (!der || !text || !cap) return GOSTX_EINVAL;
  int rc = parse_pbes2(der, der_len, &p);
  if (rc == GOSTX_EFORMAT) return rc;
  snprintf(text, cap, "%s", p.desc);
  return rc;
}

/* key = PBKDF2-HMAC-Streebog-512(pass, salt, iter), 32 bytes (with
 * prf_sha256 PBKDF2-HMAC-SHA256); then CTR-ACPKM over in[len] (encrypt =
 * decrypt), or with sbox >= 0 GOST 28147-89 CFB decryption with that
 * parameter set (CryptoPro key meshing, which a key this short never
 * reaches). */
static int pbes2_crypt(gostx_alg alg, int sbox, int prf_sha256, const uint8_t *pass,
                       size_t pass_len, const uint8_t *salt, size_t salt_len, uint32_t iter, const uint8_t *iv,
                       const uint8_t *in, size_t len, uint8_t *out) {
  uint8_t key[GOSTX_KEY_LEN];
  gostx_cipher c;
  gostx_gost89_key g;
  memset(&c, 0, sizeof c);
  memset(&g, 0, sizeof g);
  size_t n = alg == GOSTX_ALG_KUZNYECHIK ? 16 : 8;
  int rc = (prf_sha256 ? gostx__pbkdf2_sha256 : gostx_pbkdf2_streebog512)(
      pass, pass_len, salt, salt_len, iter, key, sizeof key);
  if (!rc && sbox >= 0) {
    rc = gostx_gost89_set_key(&g, key, (gostx_sbox)sbox);
    if (!rc) rc = gostx_gost89_cfb(&g, iv, 1, 1, in, len, out);
  } else if (!rc) {
    rc = gostx_cipher_init(&c, alg, key);
    if (!rc) rc = gostx_ctr_acpkm_crypt(&c, iv, n / 2, 256 * n, in, len, out);
  }
  gostx_cipher_clear(&c);
  gostx_memzero(&g, sizeof g);
  gostx_memzero(key, sizeof key);
  return rc;
}

int gostx_gost3410_priv_to_encrypted_der_oid(gostx_gost3410_curve curve, const char *oid,
                                             const uint8_t *priv, size_t priv_len,
                                             const uint8_t *pass, size_t pass_len,
                                             gostx_gost3410_pbe cipher, uint32_t iterations,
                                             uint8_t *out, size_t cap, size_t *out_len) {
  if (!out_len || (!pass && pass_len)) return GOSTX_EINVAL;
  if (cipher != GOSTX_GOST3410_PBE_KUZNYECHIK && cipher != GOSTX_GOST3410_PBE_MAGMA)
    return GOSTX_EINVAL;
  if (iterations == 0 || iterations > PBES2_ITER_MAX) return GOSTX_EINVAL;
  gostx_alg alg = cipher == GOSTX_GOST3410_PBE_KUZNYECHIK ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA;
  size_t n = alg == GOSTX_ALG_KUZNYECHIK ? 16 : 8, ct_len;
  uint8_t ct[GOSTX_GOST3410_DER_MAX], salt[16], ukm[16] = {0};
  int rc = gostx_gost3410_priv_to_der_oid(curve, oid, priv, priv_len, ct, sizeof ct, &ct_len);
  if (!rc) rc = gostx_random_bytes(salt, sizeof salt);
  if (!rc) rc = gostx_random_bytes(ukm, n / 2); /* the IV; the other 8 bytes stay 0 */
  /* in place: the ciphertext replaces the PrivateKeyInfo */
  if (!rc)
    rc = pbes2_crypt(alg, -1, 0, pass, pass_len, salt, sizeof salt, iterations, ukm, ct, ct_len, ct);
  if (rc) {
    gostx_memzero(ct, sizeof ct);
    return rc;
  }
  /* Inside out: PBKDF2-params, PBES2-params, AlgorithmIdentifier, the whole. */
  wbuf a = {.n = 0}, b = {.n = 0}, c = {.n = 0};
  put_oid(&a, OID_HMAC_STREEBOG512);
  put_tlv(&a, 0x05, (const uint8_t *)"", 0);  /* prf params: NULL */
  put_tlv(&b, T_OCTETS, salt, sizeof salt);    /* salt */
  put_u32(&b, iterations);                     /* iterationCount */
  put_tlv(&b, T_SEQ, a.b, a.n);                /* prf */
  a.n = 0;
  put_oid(&a, OID_PBKDF2);
  put_tlv(&a, T_SEQ, b.b, b.n);                /* a = PBKDF2 oid, params */
  b.n = 0;
  put_tlv(&b, T_SEQ, a.b, a.n);                /* b = keyDerivationFunc */
  a.n = 0;
  put_tlv(&a, T_OCTETS, ukm, n / 2 + 8);
  put_oid(&c, alg == GOSTX_ALG_KUZNYECHIK ? OID_KUZ_CTR_ACPKM : OID_MAGMA_CTR_ACPKM);
  put_tlv(&c, T_SEQ, a.b, a.n);                /* c = encryption oid, params */
  put_tlv(&b, T_SEQ, c.b, c.n);                /* b += encryptionScheme */
  a.n = 0;
  put_oid(&a, OID_PBES2);
  put_tlv(&a, T_SEQ, b.b, b.n);                /* a = PBES2 oid, params */
  c.n = 0;
  put_tlv(&c, T_SEQ, a.b, a.n);                /* c = encryptionAlgorithm */
  put_tlv(&c, T_OCTETS, ct, ct_len);           /* encryptedData */
  a.n = 0;
  put_tlv(&a, T_SEQ, c.b, c.n);
  rc = emit(&a, out, cap, out_len);
  gostx_memzero(ct, sizeof ct);
  return rc;
}

int gostx_gost3410_priv_to_encrypted_der(gostx_gost3410_curve curve, const uint8_t *priv,
                                         size_t priv_len, const uint8_t *pass, size_t pass_len,
                                         gostx_gost3410_pbe cipher, uint32_t iterations,
                                         uint8_t *out, size_t cap, size_t *out_len) {
  return gostx_gost3410_priv_to_encrypted_der_oid(curve, NULL, priv, priv_len, pass, pass_len,
                                                  cipher, iterations, out, cap, out_len);
}

int gostx_gost3410_key_from_encrypted_der_oid(const uint8_t *der, size_t der_len,
                                              const uint8_t *pass, size_t pass_len,
                                              gostx_gost3410_curve *curve, size_t *len,
                                              uint8_t *priv, size_t priv_cap, uint8_t *pub,
                                              size_t pub_cap, char *oid, size_t oid_cap) {
  if (!der || !curve || !len || (!pass && pass_len)) return GOSTX_EINVAL;
  if (der_len > GOSTX_GOST3410_DER_MAX) return GOSTX_EFORMAT;
  pbes2 p;
  int rc = parse_pbes2(der, der_len, &p);
  if (rc) return rc;
  uint8_t plain[GOSTX_GOST3410_DER_MAX], d[64], q[128];
  char ps[GOSTX_GOST3410_OID_MAX] = "";
  gostx_gost3410_key_kind kind = 0;
  gostx_gost3410_curve c = 0;
  size_t l = 0;
  rc = pbes2_crypt(p.alg, p.sbox, p.prf_sha256, pass, pass_len, p.salt.p, p.salt.n, p.iter,
                   p.ukm.p, p.data.p, p.data.n, plain);
  /* CTR has no integrity check: a wrong password shows as a decryption
   * that is not a valid private key of ours. Any such failure is GOSTX_EAUTH
   * (wrong password, or a damaged file); only a caller buffer too small
   * stays GOSTX_ELEN. */
  if (!rc) {
    rc = gostx_gost3410_key_from_der_oid(plain, p.data.n, &kind, &c, &l, d, sizeof d, q, sizeof q,
                                         ps, sizeof ps);
    if (rc || kind != GOSTX_GOST3410_KEY_PRIVATE) rc = GOSTX_EAUTH;
  }
  if (!rc && ((priv && priv_cap < l) || (pub && pub_cap < 2 * l) || (oid && oid_cap <= strlen(ps))))
    rc = GOSTX_ELEN;
  if (!rc) { /* outputs written only on success */
    *curve = c;
    *len = l;
    if (priv) memcpy(priv, d, l);
    if (pub) memcpy(pub, q, 2 * l);
    if (oid) memcpy(oid, ps, strlen(ps) + 1);
  }
  gostx_memzero(plain, sizeof plain);
  gostx_memzero(d, sizeof d);
  return rc;
}

int gostx_gost3410_key_from_encrypted_der(const uint8_t *der, size_t der_len, const uint8_t *pass,
                                          size_t pass_len, gostx_gost3410_curve *curve,
                                          size_t *len, uint8_t *priv, size_t priv_cap,
                                          uint8_t *pub, size_t pub_cap) {
  return gostx_gost3410_key_from_encrypted_der_oid(der, der_len, pass, pass_len, curve, len, priv,
                                                   priv_cap, pub, pub_cap, NULL, 0);
}
