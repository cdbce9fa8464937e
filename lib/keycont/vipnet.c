/* ViPNet CSP file key containers (include/gostx/keycont.h). No standard
 * describes them and no container ViPNet CSP wrote was at hand. The facts
 * below are those of one public description, kmvi/vipnet-extract-data
 * (VipNetExtract2/VipNetContainer.cs, VipNetContainerEntry.cs,
 * VipNetKeyInfo.cs @46a0787d; the primitives it names are BouncyCastle's
 * defaults: GOST R 34.11-94 with CryptoPro's parameters, the IMIT with the
 * CryptoPro-A S-box), checked only on containers built from it
 * (tests/test_vipnet.c with gostx's primitives, tests/test_keycont_cli.sh
 * with openssl + gost-engine's). So the key is handed out only when its
 * public key is the one the entry records ([1]) and its certificate's
 * ([0]), whichever are there, and an entry with neither is refused: a
 * reading that went wrong anywhere gives another key, and is refused.
 *  - The file: a 4-byte type tag (ITCS, PKEY, _CCK, _LCK), a version (low
 *    16 bits at most 0xff, high 16 at most 2), the header's size and the
 *    header (not used), then entries to the end of the file, each: its
 *    size, a DER SEQUENCE, the key block's size, the key block (the entry's
 *    size counts the last three). Sizes and version 32-bit little-endian.
 *  - The SEQUENCE: { version INTEGER, KeyInfo, DefenceKeyInfo, ..., [0]
 *    certificate, [1] public key OCTET STRING (x || y, each little-endian)
 *    }, KeyInfo { keyClass INTEGER, keyType INTEGER, ..., [0]
 *    AlgorithmIdentifier (a GOST R 34.10 algorithm, { curve, digest, ... }),
 *    ... }. The tags are explicit, as the description's own encoder writes
 *    them; [1] is taken implicit too (its reader takes both).
 *  - The key block: cek (twice the key's size) || IMIT (4) || IV (8). The
 *    PIN's key: H1 = H(PIN), H2 = H(PIN || H1), K = H1 - H2 word by word
 *    (32-bit little-endian words, mod 2^32); no PIN hashes the empty one.
 *  - The PIN is right when the IMIT (zero start) under K over cek ||
 *    KeyInfo's DER holds; cek decrypts (GOST 28147-89 CFB, CryptoPro-A, the
 *    IV) to two halves a || b: d = a * b mod q, both read little-endian;
 *    for keyClass & 3 == 0 instead d = a decrypted again (CFB, zero IV)
 *    under the key b, read big-endian (a 256-bit key: b is a 32-byte key).
 * The first entry is read; further entries are framed, counted, not read. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "asn1/der.h"
#include "gost3410/keys_der.h"
#include "gostx/gost89.h"
#include "gostx/gost94.h"
#include "gostx/keycont.h"
#include "gostx/x509.h"
#include "keycont/keycont_int.h"

#define MAC_LEN 4
#define IV_LEN 8
#define PIN_MAX 1024

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int say(gostx_keycont *o, int rc, gostx_keycont_why why, const char *fmt, ...) {
  va_list ap;
  o->why = why;
  o->file = GOSTX_CPRO_NONE;
  va_start(ap, fmt);
  vsnprintf(o->detail, sizeof o->detail, fmt, ap);
  va_end(ap);
  return rc;
}
#define DAMAGED(o, ...) say(o, GOSTX_EFORMAT, GOSTX_KEYCONT_DAMAGED, __VA_ARGS__)
#define UNSUP(o, ...) say(o, GOSTX_EUNSUP, GOSTX_KEYCONT_UNSUPPORTED, __VA_ARGS__)

/* What the first entry holds. */
typedef struct entry {
  gostx__der keyinfo;     /* KeyInfo's whole DER: the IMIT covers it */
  unsigned key_class;     /* keyClass & 3 */
  gostx_gost3410_curve curve;
  size_t len;             /* d's size */
  int gost2001;
  char ps_oid[GOSTX__KEY_OID_TEXT_MAX];
  gostx__der cert, pub;   /* the certificate's whole DER; the public key's octets */
  int has_cert, has_pub;
  const uint8_t *block;   /* the key block */
  size_t block_len;
} entry;

static int u32_le(const uint8_t *p, size_t end, size_t *off, uint32_t *v) {
  if (end - *off < 4) return -1;
  p += *off;
  *v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  *off += 4;
  return 0;
}

/* KeyInfo: its class and its algorithm ([0], explicit). */
static int parse_keyinfo(gostx__der ki, entry *e, gostx_keycont *o) {
  gostx__der cls, type, el, alg = {NULL, 0}, a, params;
  char aoid[GOSTX__KEY_OID_TEXT_MAX], other[GOSTX__KEY_OID_TEXT_MAX], why[128];
  uint8_t tag;
  int has_alg = 0;
  if (gostx__der_get(&ki, GOSTX__DER_INT, &cls, NULL) || cls.n == 0 ||
      gostx__der_get(&ki, GOSTX__DER_INT, &type, NULL))
    return DAMAGED(o, "entry 1: its KeyInfo is malformed");
  e->key_class = cls.p[cls.n - 1] & 3u; /* two's complement: the low bits whatever the sign */
  while (!gostx__der_done(&ki)) {
    if (gostx__der_next(&ki, &tag, &el, NULL)) return DAMAGED(o, "entry 1: its KeyInfo is malformed");
    if (tag != GOSTX__DER_CTXC(0)) continue; /* serial numbers, validity, flags: not used */
    if (has_alg) return DAMAGED(o, "entry 1: its KeyInfo names two algorithms");
    alg = el, has_alg = 1;
  }
  if (!has_alg) return UNSUP(o, "entry 1: its KeyInfo names no algorithm ([0])");
  if (gostx__der_get(&alg, GOSTX__DER_SEQ, &a, NULL) || !gostx__der_done(&alg) ||
      gostx__key_get_oid(&a, aoid) || gostx__der_get(&a, GOSTX__DER_SEQ, &params, NULL) ||
      !gostx__der_done(&a) || gostx__key_get_oid(&params, e->ps_oid))
    return DAMAGED(o, "entry 1: its KeyInfo's algorithm is malformed");
  while (!gostx__der_done(&params)) /* digest, cipher parameters */
    if (gostx__key_get_oid(&params, other))
      return DAMAGED(o, "entry 1: its KeyInfo's algorithm is malformed");
  if (gostx__keycont_alg(aoid, e->ps_oid, &e->curve, &e->len, &e->gost2001, why))
    return UNSUP(o, "entry 1: %s", why);
  return 0;
}

/* The entry's SEQUENCE's content. */
static int parse_entry(gostx__der seq, entry *e, gostx_keycont *o) {
  gostx__der v, ki, dki, el, inner, whole;
  uint8_t tag;
  if (gostx__der_get(&seq, GOSTX__DER_INT, &v, NULL) ||
      gostx__der_get(&seq, GOSTX__DER_SEQ, &ki, &e->keyinfo) ||
      gostx__der_get(&seq, GOSTX__DER_SEQ, &dki, NULL))
    return DAMAGED(o, "entry 1: not a key entry (version, KeyInfo, DefenceKeyInfo)");
  while (!gostx__der_done(&seq)) {
    if (gostx__der_next(&seq, &tag, &el, NULL)) return DAMAGED(o, "entry 1: malformed");
    switch (tag) {
      case GOSTX__DER_CTXC(0):
        if (e->has_cert || gostx__der_get(&el, GOSTX__DER_SEQ, &inner, &whole) ||
            !gostx__der_done(&el))
          return DAMAGED(o, "entry 1: its certificate ([0]) is malformed");
        e->cert = whole, e->has_cert = 1;
        break;
      case GOSTX__DER_CTXC(1):
        if (e->has_pub || gostx__der_get(&el, GOSTX__DER_OCTETS, &inner, NULL) ||
            !gostx__der_done(&el))
          return DAMAGED(o, "entry 1: its public key ([1]) is malformed");
        e->pub = inner, e->has_pub = 1;
        break;
      case GOSTX__DER_CTX(1):
        if (e->has_pub) return DAMAGED(o, "entry 1: its public key ([1]) is malformed");
        e->pub = el, e->has_pub = 1;
        break;
      default: break; /* not used by the description */
    }
  }
  return parse_keyinfo(ki, e, o);
}

/* The file's frame; the first entry into e, the number of entries into *count. */
static int parse_file(const uint8_t *f, size_t n, entry *e, int *count, gostx_keycont *o) {
  static const char *const TYPES[] = {"ITCS", "PKEY", "_CCK", "_LCK"};
  size_t off = 4;
  uint32_t version, hsize;
  int known = 0;
  if (n < 4) return DAMAGED(o, "the container file is truncated (%zu bytes)", n);
  for (size_t i = 0; i < sizeof TYPES / sizeof *TYPES; i++) known |= !memcmp(f, TYPES[i], 4);
  if (!known) {
    char t[16];
    int text = 1;
    for (int i = 0; i < 4; i++) text &= f[i] >= 0x20 && f[i] < 0x7f;
    if (text) snprintf(t, sizeof t, "\"%c%c%c%c\"", f[0], f[1], f[2], f[3]);
    else snprintf(t, sizeof t, "%02x%02x%02x%02x", f[0], f[1], f[2], f[3]);
    return UNSUP(o, "not a ViPNet container: its type tag is %s (ViPNet's: ITCS, PKEY, _CCK, "
                    "_LCK)", t);
  }
  if (u32_le(f, n, &off, &version) || u32_le(f, n, &off, &hsize))
    return DAMAGED(o, "the container file is truncated in its header");
  if ((version & 0xffff) > 0xff || version >> 16 > 2)
    return UNSUP(o, "a ViPNet container of version 0x%08x (read: high word 0..2, low 0..0xff)",
                 (unsigned)version);
  if (hsize > n - off)
    return DAMAGED(o, "the container file is truncated: its header's %u bytes run past its end",
                   (unsigned)hsize);
  off += hsize;
  *count = 0;
  while (off < n) {
    uint32_t esize, ksize;
    int i = ++*count;
    if (u32_le(f, n, &off, &esize)) return DAMAGED(o, "entry %d is truncated (its size)", i);
    if (esize > n - off)
      return DAMAGED(o, "entry %d is truncated: %u bytes said, %zu left", i, (unsigned)esize, n - off);
    size_t end = off + esize;
    gostx__der r = {f + off, esize}, seq, whole;
    if (gostx__der_get(&r, GOSTX__DER_SEQ, &seq, &whole))
      return DAMAGED(o, "entry %d: its SEQUENCE is malformed or truncated", i);
    size_t k = off + whole.n;
    if (u32_le(f, end, &k, &ksize)) return DAMAGED(o, "entry %d: its key block's size is missing", i);
    if (ksize != end - k)
      return DAMAGED(o, "entry %d: its key block's size (%u) is not what the entry's size leaves (%zu)",
                     i, (unsigned)ksize, end - k);
    if (i == 1) {
      int rc = parse_entry(seq, e, o);
      if (rc) return rc;
      e->block = f + k, e->block_len = ksize;
    }
    off = end;
  }
  if (!*count) return DAMAGED(o, "the container holds no entry");
  return 0;
}

/* K from the PIN (the top of the file). */
static void pin_key(const uint8_t *pin, size_t pin_len, uint8_t K[32]) {
  uint8_t h1[GOSTX_GOST94_LEN], h2[GOSTX_GOST94_LEN];
  gostx_gost94_ctx g;
  (void)gostx_gost94_init(&g, GOSTX_SBOX_CRYPTOPRO_3411_94);
  (void)gostx_gost94_update(&g, pin, pin_len);
  (void)gostx_gost94_final(&g, h1);
  (void)gostx_gost94_init(&g, GOSTX_SBOX_CRYPTOPRO_3411_94);
  (void)gostx_gost94_update(&g, pin, pin_len);
  (void)gostx_gost94_update(&g, h1, sizeof h1);
  (void)gostx_gost94_final(&g, h2);
  for (size_t i = 0; i < 32; i += 4) {
    uint32_t a = (uint32_t)h1[i] | (uint32_t)h1[i + 1] << 8 | (uint32_t)h1[i + 2] << 16 |
                 (uint32_t)h1[i + 3] << 24;
    uint32_t b = (uint32_t)h2[i] | (uint32_t)h2[i + 1] << 8 | (uint32_t)h2[i + 2] << 16 |
                 (uint32_t)h2[i + 3] << 24;
    uint32_t w = a - b;
    for (int j = 0; j < 4; j++) K[i + j] = (uint8_t)(w >> (8 * j));
  }
  gostx_gost94_clear(&g);
  gostx_memzero(h1, sizeof h1);
  gostx_memzero(h2, sizeof h2);
}

/* 1 when the IMIT under K over cek || KeyInfo is the block's. */
static int imit_holds(const uint8_t K[32], const entry *e) {
  gostx_gost89_key k;
  gostx_gost89_ctx c;
  uint8_t m[MAC_LEN];
  size_t cek = 2 * e->len;
  int ok = !gostx_gost89_set_key(&k, K, GOSTX_SBOX_CRYPTOPRO_A) &&
           !gostx_gost89_imit_init(&c, &k, NULL, 0) &&
           !gostx_gost89_imit_update(&c, e->block, cek) &&
           !gostx_gost89_imit_update(&c, e->keyinfo.p, e->keyinfo.n) &&
           !gostx_gost89_imit_final(&c, m, MAC_LEN);
  ok = ok && gostx__keycont_same_ct(m, e->block + cek, MAC_LEN);
  gostx_gost89_ctx_clear(&c);
  gostx_memzero(&k, sizeof k);
  gostx_memzero(m, sizeof m);
  return ok;
}

/* d (big-endian, e->len bytes) from the key block under K. */
static int decode(const uint8_t K[32], const entry *e, uint8_t *d) {
  static const uint8_t zero_iv[IV_LEN];
  gostx_gost89_key k;
  uint8_t ab[128];
  size_t cek = 2 * e->len;
  int rc = gostx_gost89_set_key(&k, K, GOSTX_SBOX_CRYPTOPRO_A);
  if (!rc) rc = gostx_gost89_cfb(&k, e->block + cek + MAC_LEN, 0, 1, e->block, cek, ab);
  if (!rc && e->key_class == 0) { /* a under the key b (len 32) */
    rc = gostx_gost89_set_key(&k, ab + 32, GOSTX_SBOX_CRYPTOPRO_A);
    if (!rc) rc = gostx_gost89_cfb(&k, zero_iv, 0, 1, ab, 32, d);
  } else if (!rc) {
    rc = gostx__gost3410_unmask_mul(e->curve, ab, cek, e->len, d);
  }
  gostx_memzero(&k, sizeof k);
  gostx_memzero(ab, sizeof ab);
  return rc;
}

/* Refuses (o cleared, o->why set) unless Q is the public key the entry
 * records and its certificate's. Q came from the secret d and is public by
 * design; this is where it is first branched on. */
static GOSTX_NAMED_FN void pub_check(const entry *e, const gostx_x509_cert *c, gostx_keycont *o) {
  uint8_t le[128];
  size_t n = o->key.len;
  gostx__key_reverse(le, o->key.q, n);
  gostx__key_reverse(le + n, o->key.q + n, n);
  if (e->has_pub && memcmp(le, e->pub.p, 2 * n)) {
    gostx_keycont_clear(o);
    (void)say(o, GOSTX_EINVAL, GOSTX_KEYCONT_KEY_MISMATCH,
              "public key mismatch: the key decoded is not the public key entry 1 records ([1])");
  } else if (c && (c->pub_len != 2 * n || memcmp(c->pub, o->key.q, 2 * n))) {
    gostx_keycont_clear(o);
    (void)say(o, GOSTX_EINVAL, GOSTX_KEYCONT_CERT_MISMATCH,
              "the container's key is not the key of its certificate");
  }
}

int gostx_vipnet_read(const uint8_t *file, size_t len, const uint8_t *pin, size_t pin_len,
                      gostx_keycont *o) {
  if (!o) return GOSTX_EINVAL;
  memset(o, 0, sizeof *o);
  if (!file || (pin_len && !pin))
    return say(o, GOSTX_EINVAL, GOSTX_KEYCONT_UNSUPPORTED, "invalid arguments");
  if (pin_len > PIN_MAX) return UNSUP(o, "a PIN longer than %d bytes", PIN_MAX);
  entry e;
  int count = 0;
  memset(&e, 0, sizeof e);
  int rc = parse_file(file, len, &e, &count, o);
  if (rc) return rc;
  if (e.block_len != 2 * e.len + MAC_LEN + IV_LEN)
    return DAMAGED(o, "entry 1: its key block is %zu bytes, a %zu-bit key's is %zu", e.block_len,
                   8 * e.len, 2 * e.len + MAC_LEN + IV_LEN);
  if (e.key_class == 0 && e.len != 32)
    return UNSUP(o, "entry 1: a key of class 0 mod 4 (wrapped twice) that is not 256-bit");
  if (!e.has_pub && !e.has_cert)
    return UNSUP(o, "entry 1 records neither a public key ([1]) nor a certificate ([0]): its key "
                    "could not be checked, so it is not read");
  if (e.has_pub && e.pub.n != 2 * e.len)
    return DAMAGED(o, "entry 1: its public key ([1]) is %zu bytes, not %zu", e.pub.n, 2 * e.len);
  gostx_x509_cert c;
  if (e.has_cert && gostx_x509_parse(e.cert.p, e.cert.n, &c, NULL))
    return DAMAGED(o, "entry 1: its certificate ([0]) cannot be read");
  uint8_t K[32], d[64];
  pin_key(pin, pin_len, K);
  int ok = imit_holds(K, &e);
  rc = ok ? decode(K, &e, d) : 0;
  if (ok && !rc) rc = gostx_gost3410_key_set_private(&o->key, e.curve, d, e.len, e.ps_oid);
  gostx_memzero(K, sizeof K);
  gostx_memzero(d, sizeof d);
  if (!ok)
    return say(o, GOSTX_EAUTH, GOSTX_KEYCONT_WRONG_PIN,
               "wrong PIN (or the key block or KeyInfo damaged): the key block's check value "
               "does not hold under it");
  if (rc) {
    gostx_keycont_clear(o);
    return say(o, GOSTX_EINVAL, GOSTX_KEYCONT_KEY_MISMATCH,
               "entry 1: the key block decodes to no valid key (0 or not below q)");
  }
  pub_check(&e, e.has_cert ? &c : NULL, o);
  if (o->why) return GOSTX_EINVAL;
  o->gost2001 = o->key.gost2001 = e.gost2001;
  o->usage = GOSTX_KEYCONT_USAGE_UNKNOWN;
  o->has_second_key = count > 1 ? -1 : 0;
  if (e.has_cert) o->cert = e.cert.p, o->cert_len = e.cert.n;
  return 0;
}
