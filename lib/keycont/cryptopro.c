/* CryptoPro CSP file key containers (include/gostx/keycont.h). No standard
 * describes them; the layout and the steps below are those open converters
 * describe (docs/KEYS.md lists them), each checked here on a container
 * CryptoPro CSP wrote (tests/vectors/cryptopro/): the IMITs of header.key
 * and masks.key hold, and the key found is the key of the certificate the
 * container carries.
 *  - header.key's and masks.key's check values: GOST 28147-89 IMIT (4
 *    bytes, zero IV, S-box Z): header.key's over its content SEQUENCE under
 *    the all-zero key; masks.key's over the salt under the mask (its last
 *    32 bytes for a 64-byte mask).
 *  - The key of primary.key (KDF below, H the key's hash: Streebog-256 for
 *    2012 keys, GOST R 34.11-94 with CryptoPro's S-boxes for 2001 keys;
 *    P = the PIN's bytes each followed by three zero bytes; L = 64 for 2012
 *    keys, 32 for 2001 keys; C = "DENEFH028.760246785.IUEFHWUIO.EF" zero
 *    padded to L):
 *      h = H(salt | P); n = 2000 with a PIN, 2 without;
 *      n times: C = H((C ^ 0x36) | h | (C ^ 0x5c) | h), zero padded to L;
 *      C = H((C ^ 0x36)[0..32) | salt | (C ^ 0x5c)[0..32) | P); K = H(C[0..32)).
 *  - primary.key decrypts under K with GOST 28147-89 ECB (S-box Z for 2012
 *    keys, CryptoPro-A for 2001 keys) to k; d = k / mask mod q, k and the
 *    mask read little-endian.
 *  - A secondary key (rudonick/crypto's description; no such container was
 *    at hand): header.key [4] its parameters, [6] its certificate, [11] its
 *    fingerprint; primary.key's second OCTET STRING, decrypted under the
 *    same K (the primary key's KDF) and divided by the same mask.
 * The 2001 path (its S-boxes, its L, accepting CryptoPro-A S-boxes for the
 * IMITs too) follows the converters alone: no 2001 container was at hand
 * to check it; the [10] fingerprint and the certificate still guard it. */
#include <stdio.h>
#include <string.h>

#include "asn1/der.h"
#include "gost3410/keys_der.h"
#include "gostx/gost89.h"
#include "gostx/gost94.h"
#include "gostx/hash.h"
#include "gostx/keycont.h"
#include "gostx/x509.h"
#include "keycont/keycont_int.h"

#define MAC_LEN 4
#define PIN_MAX 256 /* P is 4 bytes a PIN byte */

static const char SEED[] = "DENEFH028.760246785.IUEFHWUIO.EF";

const char *gostx_cpro_file_name(gostx_cpro_file f) {
  switch (f) {
    case GOSTX_CPRO_HEADER: return "header.key";
    case GOSTX_CPRO_NAME: return "name.key";
    case GOSTX_CPRO_PRIMARY: return "primary.key";
    case GOSTX_CPRO_MASKS: return "masks.key";
    case GOSTX_CPRO_PRIMARY2: return "primary2.key";
    case GOSTX_CPRO_MASKS2: return "masks2.key";
    default: return "";
  }
}

/* Records why; returns rc. */
static int refuse(gostx_keycont *o, int rc, gostx_keycont_why why, gostx_cpro_file f,
                  const char *what) {
  o->why = why;
  o->file = f;
  if (f != GOSTX_CPRO_NONE)
    snprintf(o->detail, sizeof o->detail, "%s: %s", gostx_cpro_file_name(f), what);
  else
    snprintf(o->detail, sizeof o->detail, "%s", what);
  return rc;
}
#define DAMAGED(o, f, what) refuse(o, GOSTX_EFORMAT, GOSTX_KEYCONT_DAMAGED, f, what)
#define UNSUP(o, what) refuse(o, GOSTX_EUNSUP, GOSTX_KEYCONT_UNSUPPORTED, GOSTX_CPRO_NONE, what)

/* What header.key says about one key. */
typedef struct keyinfo {
  gostx_gost3410_curve curve;
  size_t len;
  int gost2001;
  char ps_oid[GOSTX__KEY_OID_TEXT_MAX];
  int exchange, exportable;
  gostx__der fp, cert;
} keyinfo;

/* ... and about the container: k[0] the primary key, k[1] the secondary
 * key when the header gives its parameters ([4]) and fingerprint ([11]). */
typedef struct header {
  keyinfo k[2];
  int reserve, second, other; /* other: a second key in a form not read ([3]) */
} header;

/* BIT STRING bit i (bit 0 the first) of a DER BIT STRING's content. */
static int bit(gostx__der bits, unsigned i) {
  return bits.n > 1 + i / 8 && (bits.p[1 + i / 8] & (0x80u >> (i % 8)));
}

static int bits_get(gostx__der *r, gostx__der *bits) {
  return gostx__der_get(r, GOSTX__DER_BITS, bits, NULL) || bits->n == 0 || bits->p[0] > 7 ||
         (bits->n == 1 && bits->p[0]);
}

static int oid_text(gostx__der *r, char *text) {
  gostx__der oid;
  return gostx__der_get(r, GOSTX__DER_OID, &oid, NULL) ||
         gostx__der_oid_text(oid, text, GOSTX__KEY_OID_TEXT_MAX);
}

/* The key's parameters: SEQUENCE { attributes BIT STRING, [0] { algorithm
 * OID, SEQUENCE { curve OID, digest OID, ... } }, ... }. */
static int key_params(gostx__der seq, keyinfo *h, gostx_keycont *o) {
  gostx__der bits, alg, params, e;
  char a[GOSTX__KEY_OID_TEXT_MAX], ignored[GOSTX__KEY_OID_TEXT_MAX];
  uint8_t tag;
  if (bits_get(&seq, &bits) || gostx__der_get(&seq, GOSTX__DER_CTXC(0), &alg, NULL) ||
      oid_text(&alg, a) || gostx__der_get(&alg, GOSTX__DER_SEQ, &params, NULL) ||
      !gostx__der_done(&alg) || oid_text(&params, h->ps_oid))
    return DAMAGED(o, GOSTX_CPRO_HEADER, "the key's parameters are malformed");
  while (!gostx__der_done(&params))
    if (oid_text(&params, ignored)) return DAMAGED(o, GOSTX_CPRO_HEADER, "the key's parameters are malformed");
  while (!gostx__der_done(&seq))
    if (gostx__der_next(&seq, &tag, &e, NULL)) return DAMAGED(o, GOSTX_CPRO_HEADER, "the key's parameters are malformed");
  h->exportable = bit(bits, 0);
  h->exchange = bit(bits, 2);
  char why[128];
  return gostx__keycont_alg(a, h->ps_oid, &h->curve, &h->len, &h->gost2001, why) ? UNSUP(o, why) : 0;
}

int gostx__keycont_alg(const char *a, const char *ps, gostx_gost3410_curve *curve, size_t *len,
                       int *gost2001, char *why) {
  size_t want;
  *gost2001 = 0;
  if (!strcmp(a, "1.2.643.2.2.98") || !strcmp(a, "1.2.643.2.2.19"))
    *gost2001 = 1, want = 32;
  else if (!strcmp(a, "1.2.643.7.1.1.6.1") || !strcmp(a, "1.2.643.7.1.1.1.1"))
    want = 32;
  else if (!strcmp(a, "1.2.643.7.1.1.6.2") || !strcmp(a, "1.2.643.7.1.1.1.2"))
    want = 64;
  else {
    snprintf(why, 128, "the key's algorithm %s is not GOST R 34.10-2001 or -2012", a);
    return GOSTX_EUNSUP;
  }
  int c = gostx_gost3410_curve_by_name(ps);
  if (c < 0 || gostx_gost3410_size((gostx_gost3410_curve)c) != want) {
    snprintf(why, 128, "the key's parameter set %s is not one of its algorithm's", ps);
    return GOSTX_EUNSUP;
  }
  *curve = (gostx_gost3410_curve)c;
  *len = want;
  return 0;
}

int gostx__keycont_same_ct(const uint8_t *a, const uint8_t *b, size_t n) {
  return gostx__verdict(gostx_memeq_ct(a, b, n) & GOSTX_EAUTH) == 0;
}

/* IMIT (4 bytes, zero IV) of in under key with S-box sbox, compared with mac. */
static int imit_is(const uint8_t key[32], gostx_sbox sbox, const uint8_t *in, size_t len,
                   const uint8_t *mac) {
  gostx_gost89_key k;
  uint8_t m[MAC_LEN];
  int ok = !gostx_gost89_set_key(&k, key, sbox) && !gostx_gost89_imit(&k, NULL, 0, in, len, m, MAC_LEN);
  ok = ok && gostx__keycont_same_ct(m, mac, MAC_LEN);
  gostx_memzero(&k, sizeof k);
  gostx_memzero(m, sizeof m);
  return ok;
}

/* The IMIT under S-box Z, or for 2001 keys under CryptoPro-A as well (see
 * the top: unchecked for 2001). */
static int imit_holds(const uint8_t key[32], int gost2001, const uint8_t *in, size_t len,
                      const uint8_t *mac) {
  return imit_is(key, GOSTX_SBOX_TC26_Z, in, len, mac) ||
         (gost2001 && imit_is(key, GOSTX_SBOX_CRYPTOPRO_A, in, len, mac));
}

/* Tags of the content's elements after the key's parameters, in the order
 * they must come (each at most once); the certificate comes as [5] or [5]
 * constructed. */
static const uint8_t LATER[] = {
    GOSTX__DER_CTX(2),  GOSTX__DER_CTXC(3),  GOSTX__DER_CTXC(4), GOSTX__DER_CTX(5),
    GOSTX__DER_CTXC(5), GOSTX__DER_CTX(6),   GOSTX__DER_CTXC(6), GOSTX__DER_CTX(7),
    GOSTX__DER_CTXC(8), GOSTX__DER_CTXC(9),  GOSTX__DER_CTX(10), GOSTX__DER_CTX(11),
    GOSTX__DER_OID,     GOSTX__DER_INT,      GOSTX__DER_CTXC(12), GOSTX__DER_CTX(13)};

static int parse_header(const gostx_cpro_files *f, header *h, gostx_keycont *o) {
  gostx__der r = {f->header, f->header_len}, outer, content, whole, mac, e, bits;
  uint8_t tag;
  memset(h, 0, sizeof *h);
  if (!f->header || gostx__der_get(&r, GOSTX__DER_SEQ, &outer, NULL) || !gostx__der_done(&r) ||
      gostx__der_get(&outer, GOSTX__DER_SEQ, &content, &whole) ||
      gostx__der_get(&outer, GOSTX__DER_OCTETS, &mac, NULL) || !gostx__der_done(&outer) ||
      mac.n != MAC_LEN)
    return DAMAGED(o, GOSTX_CPRO_HEADER, "not a key container header");
  /* Which S-boxes the IMIT takes depends on the key's algorithm: read
   * that first, trust nothing else before the IMIT holds. */
  if (gostx__der_peek(&content, GOSTX__DER_CTXC(0)) && gostx__der_next(&content, &tag, &e, NULL))
    return DAMAGED(o, GOSTX_CPRO_HEADER, "malformed");
  if (gostx__der_peek(&content, 0x16)) {
    if (gostx__der_next(&content, &tag, &e, NULL)) return DAMAGED(o, GOSTX_CPRO_HEADER, "malformed");
  }
  gostx__der kp;
  if (bits_get(&content, &bits) || gostx__der_get(&content, GOSTX__DER_SEQ, &kp, NULL))
    return DAMAGED(o, GOSTX_CPRO_HEADER, "the container's attributes are malformed");
  int rc = key_params(kp, &h->k[0], o);
  if (rc == GOSTX_EFORMAT) return rc;
  static const uint8_t zero[32];
  if (!imit_holds(zero, h->k[0].gost2001, whole.p, whole.n, mac.p))
    return DAMAGED(o, GOSTX_CPRO_HEADER, "its check value does not hold (the file is damaged)");
  if (rc) return rc;
  if (bit(bits, 2)) return UNSUP(o, "the container holds no primary key (kccaPrimaryKeyAbsent)");
  if (bit(bits, 3)) return UNSUP(o, "a shared functional key carrier container (kccaFKCShared)");
  h->reserve = bit(bits, 1);
  size_t next = 0;
  gostx__der kp2 = {NULL, 0};
  while (!gostx__der_done(&content)) {
    if (gostx__der_next(&content, &tag, &e, NULL)) return DAMAGED(o, GOSTX_CPRO_HEADER, "malformed");
    while (next < sizeof LATER && LATER[next] != tag) next++;
    if (next == sizeof LATER) return DAMAGED(o, GOSTX_CPRO_HEADER, "an element out of place");
    next++;
    switch (tag) {
      case GOSTX__DER_CTXC(3): h->other = 1; break;
      case GOSTX__DER_CTXC(4): kp2 = e; break;
      case GOSTX__DER_CTX(5):
      case GOSTX__DER_CTXC(5): h->k[0].cert = e; break;
      case GOSTX__DER_CTX(6):
      case GOSTX__DER_CTXC(6): h->k[1].cert = e; break;
      case GOSTX__DER_CTX(10): h->k[0].fp = e; break;
      case GOSTX__DER_CTX(11): h->k[1].fp = e; break;
      default: break;
    }
  }
  if (h->k[0].fp.n == 0 || h->k[0].fp.n > h->k[0].len)
    return DAMAGED(o, GOSTX_CPRO_HEADER, "no public key fingerprint ([10])");
  /* The secondary key: [4] its parameters (the primary's form, implicitly
   * tagged), [11] its fingerprint; one without the other is damage. */
  if (!kp2.p != !h->k[1].fp.n)
    return DAMAGED(o, GOSTX_CPRO_HEADER, "the secondary key's parameters ([4]) or fingerprint ([11]) is missing");
  if (kp2.p) {
    if ((rc = key_params(kp2, &h->k[1], o))) return rc;
    if (h->k[1].fp.n > h->k[1].len)
      return DAMAGED(o, GOSTX_CPRO_HEADER, "the secondary key's fingerprint ([11]) is malformed");
    h->second = 1;
  }
  return 0;
}

/* The container's KDF (top of the file): K[32]. */
static void derive(const keyinfo *h, const uint8_t *pin, size_t pin_len, gostx__der salt,
                   uint8_t K[32]) {
  size_t L = h->gost2001 ? 32 : 64;
  uint8_t P[4 * PIN_MAX], hs[32], C[64], m36[64], m5c[64];
  gostx_streebog_ctx s;
  gostx_gost94_ctx g;
  memset(P, 0, sizeof P);
  for (size_t i = 0; i < pin_len; i++) P[4 * i] = pin[i];
  memset(C, 0, sizeof C);
  memcpy(C, SEED, 32);
#define H_BEGIN() (h->gost2001 ? (void)gostx_gost94_init(&g, GOSTX_SBOX_CRYPTOPRO_3411_94) \
                               : (void)gostx_streebog_init(&s, 32))
#define H_ADD(p, n) (h->gost2001 ? (void)gostx_gost94_update(&g, p, n) : (void)gostx_streebog_update(&s, p, n))
#define H_END(out) (h->gost2001 ? (void)gostx_gost94_final(&g, out) : (void)gostx_streebog_final(&s, out))
  H_BEGIN();
  H_ADD(salt.p, salt.n);
  H_ADD(P, 4 * pin_len);
  H_END(hs);
  unsigned rounds = pin_len ? 2000 : 2;
  for (unsigned j = 0; j < rounds; j++) {
    for (size_t i = 0; i < L; i++) m36[i] = C[i] ^ 0x36, m5c[i] = C[i] ^ 0x5c;
    H_BEGIN();
    H_ADD(m36, L);
    H_ADD(hs, 32);
    H_ADD(m5c, L);
    H_ADD(hs, 32);
    H_END(C); /* C[32..L) stays zero */
  }
  for (size_t i = 0; i < 32; i++) m36[i] = C[i] ^ 0x36, m5c[i] = C[i] ^ 0x5c;
  H_BEGIN();
  H_ADD(m36, 32);
  H_ADD(salt.p, salt.n);
  H_ADD(m5c, 32);
  H_ADD(P, 4 * pin_len);
  H_END(C);
  H_BEGIN();
  H_ADD(C, 32);
  H_END(K);
#undef H_BEGIN
#undef H_ADD
#undef H_END
  gostx_memzero(P, sizeof P);
  gostx_memzero(hs, sizeof hs);
  gostx_memzero(C, sizeof C);
  gostx_memzero(m36, sizeof m36);
  gostx_memzero(m5c, sizeof m5c);
}

/* Key `which` (0 primary, 1 secondary) of one copy (primary/masks or
 * primary2/masks2) to d[len] (big-endian): 0, or a refusal naming the file.
 * primary.key is SEQUENCE { primary key, secondary key OPTIONAL }, both
 * encrypted under the one PIN-derived key (the primary key's KDF) and
 * masked by the one mask. */
static int decode_copy(const header *h, int which, const uint8_t *prim, size_t prim_len,
                       gostx_cpro_file pf, const uint8_t *masks, size_t masks_len,
                       gostx_cpro_file mf, const uint8_t *pin, size_t pin_len, uint8_t *d,
                       gostx_keycont *o) {
  const keyinfo *k0 = &h->k[0], *kw = &h->k[which];
  gostx__der r = {masks, masks_len}, seq, mask, salt, mac, key[2] = {{NULL, 0}, {NULL, 0}};
  if (!masks || gostx__der_get(&r, GOSTX__DER_SEQ, &seq, NULL) || !gostx__der_done(&r) ||
      gostx__der_get(&seq, GOSTX__DER_OCTETS, &mask, NULL) ||
      gostx__der_get(&seq, GOSTX__DER_OCTETS, &salt, NULL) ||
      gostx__der_get(&seq, GOSTX__DER_OCTETS, &mac, NULL) || !gostx__der_done(&seq) ||
      mask.n != k0->len || salt.n == 0 || salt.n > 64 || mac.n != MAC_LEN)
    return DAMAGED(o, mf, "malformed");
  if (!imit_holds(mask.p + mask.n - 32, k0->gost2001, salt.p, salt.n, mac.p))
    return DAMAGED(o, mf, "its check value does not hold (the file is damaged)");
  r = (gostx__der){prim, prim_len};
  if (!prim || gostx__der_get(&r, GOSTX__DER_SEQ, &seq, NULL) || !gostx__der_done(&r) ||
      gostx__der_get(&seq, GOSTX__DER_OCTETS, &key[0], NULL) ||
      (!gostx__der_done(&seq) && gostx__der_get(&seq, GOSTX__DER_OCTETS, &key[1], NULL)) ||
      !gostx__der_done(&seq) || key[0].n != k0->len || (key[1].p && key[1].n != h->k[1].len))
    return DAMAGED(o, pf, "malformed");
  if (which && !key[1].p)
    return DAMAGED(o, pf, "the header names a secondary key, this file holds none");
  if (kw->len != mask.n)
    return UNSUP(o, "a secondary key of another size than the primary key's mask");
  uint8_t K[32], k[64], kb[64], mb[64];
  gostx_gost89_key ck;
  derive(k0, pin, pin_len, salt, K);
  int rc = gostx_gost89_set_key(&ck, K, kw->gost2001 ? GOSTX_SBOX_CRYPTOPRO_A : GOSTX_SBOX_TC26_Z);
  if (!rc) rc = gostx_gost89_ecb_decrypt(&ck, key[which].p, kw->len, k);
  gostx__key_reverse(kb, k, kw->len);
  gostx__key_reverse(mb, mask.p, kw->len);
  if (!rc) rc = gostx__gost3410_unmask_div(kw->curve, kb, mb, kw->len, d);
  gostx_memzero(K, sizeof K);
  gostx_memzero(k, sizeof k);
  gostx_memzero(kb, sizeof kb);
  gostx_memzero(mb, sizeof mb);
  gostx_memzero(&ck, sizeof ck);
  return rc ? refuse(o, rc, GOSTX_KEYCONT_UNSUPPORTED, GOSTX_CPRO_NONE, "internal error") : 0;
}

/* 1 when d gives a key whose x begins (little-endian) with the header's
 * fingerprint; the key into *key. */
static int key_of(const keyinfo *h, const uint8_t *d, gostx_gost3410_key *key) {
  gostx_gost3410_key k;
  uint8_t x_le[64];
  if (gostx_gost3410_key_set_private(&k, h->curve, d, h->len, h->ps_oid)) return 0;
  gostx__key_reverse(x_le, k.q, h->len);
  int ok = gostx__keycont_same_ct(x_le, h->fp.p, h->fp.n);
  if (ok) *key = k;
  gostx_gost3410_key_clear(&k);
  return ok;
}

/* Refuses (o cleared, o->why set) unless the certificate's key is o's Q.
 * Q came from the secret d and is public by design; this is where it is
 * first branched on (tests/ct/declassified.supp names this function; the
 * caller reads the answer from o->why, which only this branch writes). */
static GOSTX_NAMED_FN void cert_check(const gostx_x509_cert *c, gostx_keycont *o) {
  if (c->pub_len == 2 * o->key.len && !memcmp(c->pub, o->key.q, c->pub_len)) return;
  gostx_keycont_clear(o);
  (void)refuse(o, GOSTX_EINVAL, GOSTX_KEYCONT_CERT_MISMATCH, GOSTX_CPRO_NONE,
               "the container's key is not the key of its certificate");
}

static void read_name(const gostx_cpro_files *f, gostx_keycont *o) {
  gostx__der r = {f->name, f->name_len}, seq, s;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &seq, NULL) || gostx__der_get(&seq, 0x16, &s, NULL) ||
      s.n >= sizeof o->name)
    return;
  for (size_t i = 0; i < s.n; i++)
    if (s.p[i] < 0x20 || s.p[i] > 0x7e) return;
  memcpy(o->name, s.p, s.n);
  o->name[s.n] = 0;
}

static int name_ok(const gostx_cpro_files *f) {
  gostx__der r = {f->name, f->name_len}, seq, s;
  return !gostx__der_get(&r, GOSTX__DER_SEQ, &seq, NULL) && gostx__der_done(&r) &&
         !gostx__der_get(&seq, 0x16, &s, NULL) && gostx__der_done(&seq);
}

int gostx_cpro_read_key(const gostx_cpro_files *f, const uint8_t *pin, size_t pin_len, int which,
                        gostx_keycont *o) {
  if (!o) return GOSTX_EINVAL;
  memset(o, 0, sizeof *o);
  if (!f || (pin_len && !pin) || (which != 0 && which != 1))
    return refuse(o, GOSTX_EINVAL, GOSTX_KEYCONT_UNSUPPORTED, GOSTX_CPRO_NONE, "invalid arguments");
  if (pin_len > PIN_MAX) return UNSUP(o, "a PIN longer than 256 bytes");
  header h;
  int rc = parse_header(f, &h, o);
  if (rc) return rc;
  if (f->name && !name_ok(f)) return DAMAGED(o, GOSTX_CPRO_NAME, "malformed");
  if (which && !h.second)
    return refuse(o, GOSTX_EINVAL, GOSTX_KEYCONT_UNSUPPORTED, GOSTX_CPRO_NONE,
                  "the container holds no secondary key");
  const keyinfo *ki = &h.k[which];
  /* primary2/masks2 are a reserve copy of the keys when the container says
   * so (kccaReservePrimary); else they are taken to hold a key not read here */
  int reserve = h.reserve && f->primary2 && f->masks2;
  uint8_t d[64], d2[64];
  rc = decode_copy(&h, which, f->primary, f->primary_len, GOSTX_CPRO_PRIMARY, f->masks,
                   f->masks_len, GOSTX_CPRO_MASKS, pin, pin_len, d, o);
  int ok = !rc && key_of(ki, d, &o->key);
  if (reserve) {
    gostx_keycont o2;
    memset(&o2, 0, sizeof o2);
    int rc2 = decode_copy(&h, which, f->primary2, f->primary2_len, GOSTX_CPRO_PRIMARY2, f->masks2,
                          f->masks2_len, GOSTX_CPRO_MASKS2, pin, pin_len, d2, &o2);
    gostx_gost3410_key k2;
    int ok2 = !rc2 && key_of(ki, d2, &k2);
    if (ok && ok2) o->reserve_checked = gostx__keycont_same_ct(k2.d, o->key.d, ki->len) ? 1 : -1;
    else if (ok) o->reserve_checked = -1;
    else if (ok2 && !rc) /* the reserve copy holds: primary.key's ciphertext is what changed */
      rc = DAMAGED(o, GOSTX_CPRO_PRIMARY, "it does not decrypt to the container's key, its "
                                          "reserve copy does (the file is damaged)");
    if (ok2) gostx_gost3410_key_clear(&k2);
    gostx_memzero(&o2, sizeof o2);
  }
  gostx_memzero(d, sizeof d);
  gostx_memzero(d2, sizeof d2);
  if (rc) return rc;
  if (!ok)
    return refuse(o, GOSTX_EAUTH, GOSTX_KEYCONT_WRONG_PIN, GOSTX_CPRO_NONE,
                  reserve ? "wrong PIN: the key decrypted under it is not the container's"
                          : "wrong PIN (or primary.key damaged): the key decrypted under it is "
                            "not the container's");
  if (h.reserve && !f->primary2 != !f->masks2) o->reserve_checked = -1; /* half a reserve copy */
  o->key_index = which;
  o->gost2001 = o->key.gost2001 = ki->gost2001; /* written out as a 2001 key */
  o->usage = ki->exchange ? GOSTX_KEYCONT_EXCHANGE : GOSTX_KEYCONT_SIGNATURE;
  o->exportable = ki->exportable;
  if (h.second) {
    o->has_second_key = 1;
    o->other_usage = h.k[!which].exchange ? GOSTX_KEYCONT_EXCHANGE : GOSTX_KEYCONT_SIGNATURE;
  } else if (h.other || (!h.reserve && (f->primary2 || f->masks2))) {
    o->has_second_key = -1;
  }
  if (ki->cert.n) {
    gostx_x509_cert c;
    if (gostx_x509_parse(ki->cert.p, ki->cert.n, &c, NULL)) {
      gostx_keycont_clear(o);
      return DAMAGED(o, GOSTX_CPRO_HEADER, "its certificate cannot be read");
    }
    cert_check(&c, o);
    if (o->why) return GOSTX_EINVAL;
    o->cert = ki->cert.p;
    o->cert_len = ki->cert.n;
  }
  read_name(f, o);
  return 0;
}

int gostx_cpro_read(const gostx_cpro_files *f, const uint8_t *pin, size_t pin_len,
                    gostx_keycont *o) {
  return gostx_cpro_read_key(f, pin, pin_len, 0, o);
}

void gostx_keycont_clear(gostx_keycont *c) {
  if (!c) return;
  gostx_gost3410_key_clear(&c->key);
  gostx_memzero(c, sizeof *c);
}
