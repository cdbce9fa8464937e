/* GOST R 34.10-2012 private keys as PKCS#8 PrivateKeyInfo (RFC 5958, the
 * GOST profile of RFC 9215), in every form gost-engine 3.x reads: written
 * as it writes them, read on lib/asn1's strict DER reader. */
#include <string.h>

#include "gost3410/ec.h"
#include "gost3410/keys_der.h"

int gostx__pkcs8_write(const gostx_gost3410_key *k, uint8_t *out, size_t cap, size_t *out_len) {
  uint8_t q[128], le[64], der[GOSTX_GOST3410_DER_MAX];
  const char *ps;
  if (!k->has_private || gostx__key_paramset_oid(k->curve, k->oid, &ps) ||
      gostx__key_alg_check(k, ps)) return GOSTX_EINVAL;
  /* Checks 0 < d < q (and the length) the library's way. */
  int rc = gostx_gost3410_public_key(k->curve, k->d, k->len, q, 2 * k->len);
  if (rc) return rc;
  gostx__key_reverse(le, k->d, k->len);
  gostx__der_w w;
  gostx__der_w_init(&w, der, sizeof der);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_u32(&w, 0); /* version */
  gostx__key_put_algorithm(&w, ps, k->len, k->gost2001);
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, le, k->len);
  gostx__der_w_end(&w);
  rc = gostx__key_emit(&w, der, out, cap, out_len);
  gostx_memzero(le, sizeof le);
  gostx_memzero(der, sizeof der);
  return rc;
}

/* r = be (len bytes, any value below 2^(8 len)) mod q in Montgomery form. */
static void q_load(const gx_curve *C, uint64_t *r, const uint8_t *be) {
  gostx__fe_load_be(r, be, C->n);
  gostx__fe_to_mont(&C->fq, r, r); /* any value < R: to_mont reduces it */
}

/* be = a (Montgomery form) in normal form, big-endian; tmp is scratch. */
static void q_store(const gx_curve *C, uint8_t *be, const uint64_t *a, uint64_t *tmp) {
  gostx__fe_from_mont(&C->fq, tmp, a);
  gostx__fe_store_be(be, tmp, C->n);
}

int gostx__gost3410_unmask_mul(gostx_gost3410_curve curve, const uint8_t *buf, size_t total,
                               size_t len, uint8_t *d) {
  uint8_t be[64];
  gostx__key_reverse(d, buf, len);
  if (total == len) return 0;
  gx_curve C;
  gx_fe acc = {0}, m = {0};
  if (gostx__ec_curve_load(&C, curve)) return GOSTX_EINVAL;
  q_load(&C, acc, d);
  for (size_t off = len; off < total; off += len) {
    gostx__key_reverse(be, buf + off, len);
    q_load(&C, m, be);
    gostx__fe_mul(&C.fq, acc, acc, m);
  }
  q_store(&C, d, acc, m);
  gostx_memzero(be, sizeof be);
  gostx_memzero(acc, sizeof acc);
  gostx_memzero(m, sizeof m);
  return 0;
}

/* d = k / m mod q (k, m, d big-endian, the curve's size; any k, m below
 * 2^(8 len)): CryptoPro containers keep the key multiplied by a mask
 * (lib/keycont). Constant time: k and m are secrets. A mask of 0 mod q
 * gives d = 0, which the key's own checks refuse. */
int gostx__gost3410_unmask_div(gostx_gost3410_curve curve, const uint8_t *k, const uint8_t *m,
                               size_t len, uint8_t *d) {
  gx_curve C;
  gx_fe a = {0}, b = {0};
  if (gostx__ec_curve_load(&C, curve) || (size_t)C.len != len) return GOSTX_EINVAL;
  q_load(&C, a, m);
  gostx__fe_inv(&C.fq, b, a);
  q_load(&C, a, k);
  gostx__fe_mul(&C.fq, a, a, b);
  q_store(&C, d, a, b);
  gostx_memzero(a, sizeof a);
  gostx_memzero(b, sizeof b);
  return 0;
}

/* An INTEGER's content (big-endian, DER-minimal, non-negative) as len
 * bytes into d. */
static int integer_key(gostx__der v, size_t len, uint8_t *d) {
  if (v.n == 0 || (v.p[0] & 0x80)) return GOSTX_EFORMAT;                 /* negative */
  if (v.n > 1 && v.p[0] == 0 && !(v.p[1] & 0x80)) return GOSTX_EFORMAT; /* not minimal */
  if (v.p[0] == 0 && v.n > 1) v.p++, v.n--;                             /* the sign byte */
  if (v.n > len) return GOSTX_EINVAL;                                   /* >= q */
  memset(d, 0, len - v.n);
  memcpy(d + len - v.n, v.p, v.n);
  return 0;
}

/* The privateKey OCTET STRING's content in every form gost-engine reads, in
 * its order: a multiple of len bytes is the key (and masks) little-endian;
 * else an OCTET STRING (little-endian, up to len bytes), an INTEGER (big-endian) or
 * SEQUENCE { masked key OCTET STRING, public key OCTET STRING }. */
static int get_private_value(gostx__der key, gostx_gost3410_curve curve, size_t len, uint8_t *d) {
  gostx__der inner, pubkey, seq, r = key;
  uint8_t tag;
  if (key.n && key.n % len == 0) return gostx__gost3410_unmask_mul(curve, key.p, key.n, len, d);
  if (gostx__der_next(&r, &tag, &inner, NULL) || !gostx__der_done(&r)) return GOSTX_EFORMAT;
  switch (tag) {
    case GOSTX__DER_OCTETS:
      /* little-endian; GnuTLS's certtool leaves out the zero bytes at the
       * top (one key in 256 is 31 bytes): put back */
      if (inner.n == 0 || inner.n > len) return GOSTX_EFORMAT;
      memset(d, 0, len - inner.n);
      gostx__key_reverse(d + len - inner.n, inner.p, inner.n);
      return 0;
    case GOSTX__DER_INT: return integer_key(inner, len, d);
    case GOSTX__DER_SEQ:
      seq = inner;
      if (gostx__der_get(&seq, GOSTX__DER_OCTETS, &inner, NULL) ||
          gostx__der_get(&seq, GOSTX__DER_OCTETS, &pubkey, NULL) || !gostx__der_done(&seq) ||
          !inner.n || inner.n % len)
        return GOSTX_EFORMAT;
      return gostx__gost3410_unmask_mul(curve, inner.p, inner.n, len, d);
    default: return GOSTX_EFORMAT;
  }
}

/* OneAsymmetricKey v2's [1] publicKey (RFC 5958), as RFC 9548 writes it:
 * a BIT STRING's content, its first byte the unused-bits count (RFC 9548's
 * own example has 01 there, so it is not judged), then x || y, each
 * little-endian. It must be the key's own Q. */
static int check_public_value(gostx__der pub, const uint8_t *q, size_t len) {
  uint8_t le[128];
  if (pub.n != 2 * len + 1) return GOSTX_EFORMAT;
  gostx__key_reverse(le, q, len);
  gostx__key_reverse(le + len, q + len, len);
  return memcmp(pub.p + 1, le, 2 * len) ? GOSTX_EINVAL : 0;
}

int gostx__pkcs8_parse(gostx__der body, gostx_gost3410_curve *curve, size_t *len, uint8_t *d,
                       uint8_t *q, char *ps_oid) {
  gostx__der key, pub = {NULL, 0};
  uint32_t version;
  int rc;
  /* version 0, or 1 (RFC 5958 v2: RFC 9548's keys, with a publicKey) */
  if (gostx__der_u32(&body, &version) || version > 1) return GOSTX_EFORMAT;
  if ((rc = gostx__key_get_algorithm(&body, curve, len, ps_oid))) return rc;
  if (gostx__der_get(&body, GOSTX__DER_OCTETS, &key, NULL)) return GOSTX_EFORMAT;
  if (version == 1 && gostx__der_peek(&body, GOSTX__DER_CTX(1)) &&
      gostx__der_get(&body, GOSTX__DER_CTX(1), &pub, NULL))
    return GOSTX_EFORMAT;
  if (!gostx__der_done(&body)) return GOSTX_EFORMAT; /* no attributes */
  if ((rc = get_private_value(key, *curve, *len, d))) return rc;
  /* 0 < d < q, and Q for the caller */
  rc = gostx_gost3410_public_key(*curve, d, *len, q, 2 * *len);
  if (!rc && pub.p) rc = check_public_value(pub, q, *len);
  return rc;
}
