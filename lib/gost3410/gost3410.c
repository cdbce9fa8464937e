/* GOST R 34.10-2012: keys, signatures (hedged nonces, docs/GOST3410.md) and
 * VKO_GOSTR3410_2012_256/512. Byte orders: include/gostx/gost3410.h. */
#include <string.h>

#include "gost3410/ec.h"
#include "internal.h"

size_t gostx_gost3410_size(gostx_gost3410_curve curve) {
  const gx_curve_def *d = gostx__ec_curve_def_by_id(curve);
  return d ? (size_t)d->n * 8 : 0;
}
const char *gostx_gost3410_curve_name(gostx_gost3410_curve curve) {
  const gx_curve_def *d = gostx__ec_curve_def_by_id(curve);
  return d ? d->name : NULL;
}
const char *gostx_gost3410_curve_oid(gostx_gost3410_curve curve) {
  const gx_curve_def *d = gostx__ec_curve_def_by_id(curve);
  return d ? d->oid : NULL;
}
int gostx_gost3410_curve_by_name(const char *name) {
  const gx_curve_def *d = gostx__ec_curve_def_by_name(name);
  return d ? d->id : GOSTX_EINVAL;
}

static void wipe(void *p, size_t n) {
  volatile uint8_t *v = p;
  while (n--) *v++ = 0;
}

/* d from big-endian bytes; GOSTX_EINVAL unless 0 < d < q. */
static int load_priv(const gx_curve *C, uint64_t *d, const uint8_t *priv, size_t priv_len) {
  if (!priv) return GOSTX_EINVAL;
  if (priv_len != (size_t)C->len) return GOSTX_ELEN;
  memset(d, 0, sizeof(gx_fe));
  gostx__fe_load_be(d, priv, C->n);
  uint64_t ok = ~gostx__fe_is_zero(d, C->n) & gostx__fe_lt(d, C->q, C->n);
  return ok ? 0 : GOSTX_EINVAL; /* the verdict is the caller's error code: not secret */
}

/* Q from x || y big-endian; GOSTX_EINVAL off the curve (coordinates >= p
 * included; infinity has no affine form, so it is refused too) or outside
 * the order-q subgroup. Every public key the library takes comes through
 * here: verify, VKO, KEG, gostx_gost3410_check_public_key and so the key
 * readers, the CLI, the provider and Python. On the cofactor-1 sets every
 * point of the curve has order q; on the two cofactor-4 sets a key of order
 * 2, 4, 2q or 4q would let anyone forge signatures under it, so q Q = O is
 * checked (Q is public: variable time). */
/* The last public keys of the cofactor-4 sets that passed q Q = O, per
 * thread: many verifications or VKOs under one key (a CA's, a peer's) pay
 * that multiplication once, not every call (it costs about what a
 * verification does). Only keys that passed are kept, compared whole with
 * the curve: a key is in the subgroup or not once and for all. Public data. */
#define CHECKED_KEYS 4
static _Thread_local struct {
  int curve;
  uint8_t pub[128];
} checked_keys[CHECKED_KEYS];
static _Thread_local unsigned checked_next;

static int in_subgroup(const gx_curve *C, const gx_point *Q, const uint8_t *pub, size_t pub_len) {
  for (int i = 0; i < CHECKED_KEYS; i++)
    if (checked_keys[i].curve == C->def->id && !memcmp(checked_keys[i].pub, pub, pub_len)) return 1;
  if (!gostx__ec_ed_in_subgroup_vartime(C, Q)) return 0;
  unsigned slot = checked_next++ % CHECKED_KEYS;
  checked_keys[slot].curve = C->def->id;
  memcpy(checked_keys[slot].pub, pub, pub_len);
  return 1;
}

static int load_pub(const gx_curve *C, gx_point *Q, const uint8_t *pub, size_t pub_len) {
  if (!pub) return GOSTX_EINVAL;
  if (pub_len != 2 * (size_t)C->len) return GOSTX_ELEN;
  gx_fe x = {0}, y = {0};
  gostx__fe_load_be(x, pub, C->n);
  gostx__fe_load_be(y, pub + C->len, C->n);
  if (!gostx__ec_on_curve(C, x, y)) return GOSTX_EINVAL;
  gostx__ec_point_from_affine(C, Q, x, y);
  if (C->def->cofactor > 1 && !in_subgroup(C, Q, pub, pub_len)) return GOSTX_EINVAL;
  return 0;
}

/* e = alpha mod q (1 when 0), alpha = the digest read little-endian. */
static int load_e(const gx_curve *C, uint64_t *e, const uint8_t *digest, size_t digest_len) {
  if (!digest) return GOSTX_EINVAL;
  if (digest_len != (size_t)C->len) return GOSTX_ELEN;
  gx_fe a = {0}, zero = {0}, one = {1};
  for (int i = 0; i < C->n; i++) a[i] = gostx_load64_le(digest + 8 * i);
  gostx__fe_reduce_wide(&C->fq, e, a, zero);
  gostx__fe_cmov(e, one, gostx__fe_is_zero(e, C->n), C->n);
  return 0;
}

static void store_pub(const gx_curve *C, uint8_t *pub, const gx_point *P) {
  gx_fe x, y;
  gostx__ec_point_to_affine(C, x, y, P);
  gostx__fe_store_be(pub, x, C->n);
  gostx__fe_store_be(pub + C->len, y, C->n);
}

int gostx_gost3410_public_key(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                              uint8_t *pub, size_t pub_len) {
  gx_curve C;
  gx_fe d;
  gx_point Q;
  int rc = gostx__ec_curve_load(&C, curve);
  if (rc) return rc;
  if (!pub) return GOSTX_EINVAL;
  if (pub_len != 2 * (size_t)C.len) return GOSTX_ELEN;
  if ((rc = load_priv(&C, d, priv, priv_len))) return rc;
  gostx__ec_mul_base(&C, &Q, d);
  store_pub(&C, pub, &Q);
  wipe(d, sizeof d);
  return 0;
}

int gostx_gost3410_check_public_key(gostx_gost3410_curve curve, const uint8_t *pub,
                                    size_t pub_len) {
  gx_curve C;
  gx_point Q;
  int rc = gostx__ec_curve_load(&C, curve);
  return rc ? rc : load_pub(&C, &Q, pub, pub_len);
}

int gostx_gost3410_keygen(gostx_gost3410_curve curve, uint8_t *priv, size_t priv_len, uint8_t *pub,
                          size_t pub_len) {
  gx_curve C;
  gx_fe d;
  int rc = gostx__ec_curve_load(&C, curve);
  if (rc) return rc;
  if (!priv || !pub) return GOSTX_EINVAL;
  if (priv_len != (size_t)C.len || pub_len != 2 * (size_t)C.len) return GOSTX_ELEN;
  /* Rejection sampling on q's bit length: a rejected draw is thrown away,
   * so the loop count tells nothing about the key kept. */
  int bits = 64 * C.n;
  while (bits > 0 && !((C.q[(bits - 1) / 64] >> ((bits - 1) % 64)) & 1)) bits--;
  for (;;) {
    if (gostx_random_bytes(priv, priv_len)) return GOSTX_EIO;
    int drop = 8 * C.len - bits; /* top bits above q's length */
    priv[0] &= (uint8_t)(0xff >> drop);
    if (load_priv(&C, d, priv, priv_len) == 0) break;
  }
  wipe(d, sizeof d);
  return gostx_gost3410_public_key(curve, priv, priv_len, pub, pub_len);
}

/* r, s from d, e, k (normal form, 0 < d, k < q, 0 < e < q). Returns 1 when r
 * or s came out 0 (the standard then takes another k). */
static int sign_core(const gx_curve *C, uint64_t *r, uint64_t *s, const uint64_t *d,
                     const uint64_t *e, const uint64_t *k) {
  gx_point P;
  gx_fe x, y, zero = {0}, t1, t2;
  gostx__ec_mul_base(C, &P, k);
  gostx__ec_point_to_affine(C, x, y, &P);
  gostx__fe_reduce_wide(&C->fq, r, x, zero);
  gostx__fe_to_mont(&C->fq, t1, r);
  gostx__fe_mul(&C->fq, t1, t1, d); /* r d */
  gostx__fe_to_mont(&C->fq, t2, k);
  gostx__fe_mul(&C->fq, t2, t2, e); /* k e */
  gostx__fe_add(&C->fq, s, t1, t2);
  wipe(t1, sizeof t1);
  wipe(t2, sizeof t2);
  wipe(&P, sizeof P);
  return (gostx__fe_is_zero(r, C->n) | gostx__fe_is_zero(s, C->n)) ? 1 : 0;
}

static int sign_check_args(const gx_curve *C, uint8_t *sig, size_t sig_len) {
  if (!sig) return GOSTX_EINVAL;
  if (sig_len != 2 * (size_t)C->len) return GOSTX_ELEN;
  return 0;
}

int gostx_gost3410_sign_with_k(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                               const uint8_t *digest, size_t digest_len, const uint8_t *kb,
                               size_t k_len, uint8_t *sig, size_t sig_len) {
  gx_curve C;
  gx_fe d, e, k = {0}, r, s;
  int rc = gostx__ec_curve_load(&C, curve);
  if (rc) return rc;
  if ((rc = sign_check_args(&C, sig, sig_len))) return rc;
  if ((rc = load_priv(&C, d, priv, priv_len))) return rc;
  if ((rc = load_e(&C, e, digest, digest_len))) return rc;
  if ((rc = load_priv(&C, k, kb, k_len))) return rc; /* the same 0 < k < q */
  if (sign_core(&C, r, s, d, e, k)) return GOSTX_EINVAL;
  gostx__fe_store_be(sig, r, C.n);
  gostx__fe_store_be(sig + C.len, s, C.n);
  wipe(d, sizeof d);
  wipe(k, sizeof k);
  return 0;
}

/* The hedged nonce (docs/GOST3410.md): 2 len bytes of
 * HMAC-Streebog-512(d || rnd, label || e || i) for i = 1, 2, ..., read
 * big-endian and reduced mod q (bias below 2^-256); 0 becomes 1. The key
 * and label || e go in once and each i continues a copy: on the 512-bit
 * sets (i = 1, 2; a 128-byte key, hashed first) that spares the second
 * output 8 of its 12 compressions. */
static int make_nonce(const gx_curve *C, uint64_t *k, const uint8_t *priv, const uint64_t *e) {
  static const char label[] = "gostx GOST R 34.10-2012 nonce";
  uint8_t key[128], msg[sizeof label + 64], wide[128];
  gostx_hmac_ctx base, h;
  gx_fe lo = {0}, hi = {0}, one = {1};
  size_t len = (size_t)C->len;
  int rc;
  memcpy(key, priv, len);
  if (gostx_random_bytes(key + len, len)) return GOSTX_EIO;
  memcpy(msg, label, sizeof label);
  gostx__fe_store_be(msg + sizeof label, e, C->n);
  rc = gostx_hmac_init(&base, 64, key, 2 * len);
  if (!rc) rc = gostx_hmac_update(&base, msg, sizeof label + len);
  for (size_t off = 0, i = 1; !rc && off < 2 * len; off += 64, i++) {
    const uint8_t ib = (uint8_t)i;
    h = base;
    rc = gostx_hmac_update(&h, &ib, 1);
    if (!rc) rc = gostx_hmac_final(&h, wide + off);
  }
  if (!rc) {
    gostx__fe_load_be(hi, wide, C->n);
    gostx__fe_load_be(lo, wide + len, C->n);
    gostx__fe_reduce_wide(&C->fq, k, lo, hi);
    gostx__fe_cmov(k, one, gostx__fe_is_zero(k, C->n), C->n);
  }
  gostx_hmac_clear(&base);
  gostx_hmac_clear(&h);
  wipe(key, sizeof key);
  wipe(wide, sizeof wide);
  wipe(lo, sizeof lo);
  wipe(hi, sizeof hi);
  return rc;
}

int gostx_gost3410_sign(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                        const uint8_t *digest, size_t digest_len, uint8_t *sig, size_t sig_len) {
  gx_curve C;
  gx_fe d, e, k, r, s;
  int rc = gostx__ec_curve_load(&C, curve);
  if (rc) return rc;
  if ((rc = sign_check_args(&C, sig, sig_len))) return rc;
  if ((rc = load_priv(&C, d, priv, priv_len))) return rc;
  if ((rc = load_e(&C, e, digest, digest_len))) return rc;
  do {
    if ((rc = make_nonce(&C, k, priv, e))) break;
  } while (sign_core(&C, r, s, d, e, k));
  if (!rc) {
    gostx__fe_store_be(sig, r, C.n);
    gostx__fe_store_be(sig + C.len, s, C.n);
  }
  wipe(d, sizeof d);
  wipe(k, sizeof k);
  return rc;
}

int gostx_gost3410_verify(gostx_gost3410_curve curve, const uint8_t *pub, size_t pub_len,
                          const uint8_t *digest, size_t digest_len, const uint8_t *sig,
                          size_t sig_len) {
  gx_curve C;
  gx_fe e, r = {0}, s = {0}, v, z1, z2, zero = {0};
  gx_point Q, A;
  int rc = gostx__ec_curve_load(&C, curve);
  if (rc) return rc;
  if (!sig) return GOSTX_EINVAL;
  if (sig_len != 2 * (size_t)C.len) return GOSTX_ELEN;
  if ((rc = load_pub(&C, &Q, pub, pub_len))) return rc;
  if ((rc = load_e(&C, e, digest, digest_len))) return rc;
  gostx__fe_load_be(r, sig, C.n);
  gostx__fe_load_be(s, sig + C.len, C.n);
  if (gostx__fe_is_zero(r, C.n) || gostx__fe_is_zero(s, C.n) || !gostx__fe_lt(r, C.q, C.n) || !gostx__fe_lt(s, C.q, C.n))
    return GOSTX_EFORMAT;
  gostx__fe_inv_public(&C.fq, v, e); /* e is public */
  gostx__fe_to_mont(&C.fq, v, v);     /* e^-1, Montgomery form */
  gostx__fe_mul(&C.fq, z1, s, v);
  gostx__fe_mul(&C.fq, z2, r, v);
  gostx__fe_sub(&C.fq, z2, zero, z2);
  gostx__ec_mul2_vartime(&C, &A, z1, z2, &Q);
  return gostx__ec_point_x_is(&C, &A, r) ? 0 : GOSTX_EAUTH;
}

int gostx_gost3410_vko(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                       const uint8_t *peer_pub, size_t pub_len, const uint8_t *ukm,
                       size_t ukm_len, uint8_t *out, size_t out_len) {
  gx_curve C;
  gx_fe d, u[2] = {{0}, {0}}, t, one = {1}, x, y;
  gx_point Q, K;
  uint8_t buf[128];
  int rc = gostx__ec_curve_load(&C, curve);
  if (rc) return rc;
  if (!ukm || !out) return GOSTX_EINVAL;
  if (ukm_len < 1 || ukm_len > (size_t)C.len || (out_len != 32 && out_len != 64))
    return GOSTX_ELEN;
  if ((rc = load_priv(&C, d, priv, priv_len))) return rc;
  if ((rc = load_pub(&C, &Q, peer_pub, pub_len))) return rc;
  for (size_t i = 0; i < ukm_len; i++) u[0][i / 8] |= (uint64_t)ukm[i] << (8 * (i % 8));
  gostx__fe_reduce_wide(&C.fq, t, u[0], u[1]);
  gostx__fe_cmov(t, one, gostx__fe_is_zero(t, C.n), C.n);
  gostx__fe_to_mont(&C.fq, t, t);
  gostx__fe_mul(&C.fq, t, t, d); /* UKM d mod q */
  /* The cofactor goes on the public point: (h UKM d) Q = (UKM d) (h Q) for
   * keys of the order-q subgroup (load_pub refused the others), as the
   * complete formulas want; infinity is refused all the same. */
  for (int h = C.def->cofactor; h > 1; h >>= 1) gostx__ec_point_add(&C, &Q, &Q, &Q);
  if (gostx__fe_is_zero(Q.Z, C.n)) {
    rc = GOSTX_EINVAL;
    goto out;
  }
  gostx__ec_mul(&C, &K, t, &Q);
  if (gostx__ec_point_to_affine(&C, x, y, &K)) {
    rc = GOSTX_EINVAL;
    goto out;
  }
  for (int i = 0; i < C.n; i++) {
    gostx_store64_le(buf + 8 * i, x[i]);
    gostx_store64_le(buf + C.len + 8 * i, y[i]);
  }
  rc = gostx_streebog(out_len, buf, 2 * (size_t)C.len, out);
out:
  wipe(d, sizeof d);
  wipe(t, sizeof t);
  wipe(buf, sizeof buf);
  wipe(&K, sizeof K);
  return rc;
}

/* KEG (RFC 9189, the GOST TLS cipher suites): the key export
 * key from d, the peer's Q and the handshake hash H (32 bytes; only H[1..24]
 * are used). r = H[1..16] read big-endian (UKM = 1 when r = 0; r < 2^128 < q,
 * so the VKO's own "0 mod q counts as 1" gives exactly that).
 *   256-bit keys: KDF_TREE_GOSTR3411_2012_256(VKO_256(d, Q, r), "kdf tree",
 *                 H[17..24], R = 1 byte), 64 bytes;
 *   512-bit keys: VKO_512(d, Q, r), 64 bytes.
 * VKO takes UKM bytes little-endian: r's bytes go in reversed. H and Q are
 * public (a transcript hash and a peer key), d goes only to the constant-time
 * VKO; nothing here branches on d or on the VKO output. */
int gostx__keg(size_t len, gostx__vko_fn vko, const void *ctx, const uint8_t *peer_pub,
               size_t pub_len, const uint8_t *h, size_t h_len, uint8_t *out, size_t out_len) {
  static const uint8_t label[] = "kdf tree";
  uint8_t ukm[16], kexp[32];
  if (!len || !h || !out) return GOSTX_EINVAL;
  if (h_len != 32 || out_len != 64) return GOSTX_ELEN;
  /* Step 1 of KEG, q Q = O, is VKO's load_pub check. */
  int rc;
  for (size_t i = 0; i < 16; i++) ukm[i] = h[15 - i];
  if (len == 64) return vko(ctx, peer_pub, pub_len, ukm, 16, out, 64);
  rc = vko(ctx, peer_pub, pub_len, ukm, 16, kexp, 32);
  if (!rc) rc = gostx_kdf_tree256(kexp, 32, label, sizeof label - 1, h + 16, 8, 1, out, 64);
  wipe(kexp, sizeof kexp);
  return rc;
}

/* gostx_gost3410_vko on a raw d, as gostx__keg calls it. */
typedef struct raw_key {
  gostx_gost3410_curve curve;
  const uint8_t *priv;
  size_t priv_len;
} raw_key;
static int raw_vko(const void *ctx, const uint8_t *peer_pub, size_t pub_len, const uint8_t *ukm,
                   size_t ukm_len, uint8_t *out, size_t out_len) {
  const raw_key *k = ctx;
  return gostx_gost3410_vko(k->curve, k->priv, k->priv_len, peer_pub, pub_len, ukm, ukm_len, out,
                            out_len);
}

int gostx_gost3410_keg(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                       const uint8_t *peer_pub, size_t pub_len, const uint8_t *h, size_t h_len,
                       uint8_t *out, size_t out_len) {
  raw_key k = {curve, priv, priv_len};
  return gostx__keg(gostx_gost3410_size(curve), raw_vko, &k, peer_pub, pub_len, h, h_len, out,
                    out_len);
}

int gostx_gost3410_selftest_curve(gostx_gost3410_curve curve) {
  gx_curve C;
  gx_point G, O;
  gx_fe x, y;
  int rc = gostx__ec_curve_load(&C, curve);
  if (rc) return rc;
  gostx__ec_point_generator(&C, &G);
  gostx__ec_point_to_affine(&C, x, y, &G); /* the standard's coordinates */
  if (!gostx__ec_on_curve(&C, x, y)) return 1;
  gostx__ec_point_mul_ref(&C, &O, C.q, &G);
  return gostx__fe_is_zero(O.Z, C.n) ? 0 : 2;
}
