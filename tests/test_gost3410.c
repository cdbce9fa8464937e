/* GOST R 34.10-2012 (lib/gost3410/): every parameter set checked (G on the
 * curve, q G = O), the standard's Appendix A examples 1 and 2
 * (tests/vectors/sign-3410.json: Q = dP, sign with the given k gives r, s,
 * verify accepts, flipped bits are refused), round trips on random keys on
 * every curve, VKO agreement both ways, the refusals of the API, and every
 * implementation row of the dispatcher against the portable one. */
#include <pthread.h>
#include <stdlib.h>

#include "arch.h"
#include "gost3410/ec.h"
#include "internal.h"
#include "rows.h"
#include "testutil.h"
#include "key_compat.h"

static const int all_curves[] = {GOSTX_GOST3410_256_TEST, GOSTX_GOST3410_256_A,
                                 GOSTX_GOST3410_256_B,    GOSTX_GOST3410_256_C,
                                 GOSTX_GOST3410_256_D,    GOSTX_GOST3410_512_TEST,
                                 GOSTX_GOST3410_512_A,    GOSTX_GOST3410_512_B,
                                 GOSTX_GOST3410_512_C};
#define NCURVES (sizeof all_curves / sizeof all_curves[0])

static void reverse(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n / 2; i++) {
    uint8_t t = p[i];
    p[i] = p[n - 1 - i];
    p[n - 1 - i] = t;
  }
}

/* q of a curve as big-endian bytes, from the library's table. */
static void curve_q(int curve, uint8_t *out) {
  gx_curve C;
  gostx__ec_curve_load(&C, curve);
  gostx__fe_store_be(out, C.q, C.n);
}

static void test_curves(void) {
  for (size_t i = 0; i < NCURVES; i++) {
    int c = all_curves[i];
    CHECK(gostx_gost3410_selftest_curve(c) == 0, "curve %s: G on curve, q G = O",
          gostx_gost3410_curve_name(c));
    CHECK(gostx_gost3410_curve_by_name(gostx_gost3410_curve_name(c)) == c, "name round trip %d", c);
    CHECK(gostx_gost3410_curve_by_name(gostx_gost3410_curve_oid(c)) == c, "oid round trip %d", c);
  }
  CHECK(gostx_gost3410_curve_by_name("id-GostR3410-2001-CryptoPro-XchA-ParamSet") == GOSTX_GOST3410_256_B, "XchA = B");
  CHECK(gostx_gost3410_curve_by_name("id-GostR3410-2001-CryptoPro-XchB-ParamSet") == GOSTX_GOST3410_256_D, "XchB = D");
  CHECK(gostx_gost3410_curve_by_name("id-GostR3410-2001-CryptoPro-A-ParamSet") == GOSTX_GOST3410_256_B &&
            gostx_gost3410_curve_by_name("1.2.643.2.2.35.2") == GOSTX_GOST3410_256_C &&
            gostx_gost3410_curve_by_name("1.2.643.2.2.35.3") == GOSTX_GOST3410_256_D,
        "CryptoPro A, B, C = 256 B, C, D (RFC 4357 by name and OID)");
  CHECK(gostx_gost3410_curve_by_name("nope") == GOSTX_EINVAL, "unknown name");
  CHECK(gostx_gost3410_size(0) == 0 && gostx_gost3410_size(99) == 0, "unknown id size 0");
  CHECK(gostx_gost3410_size(GOSTX_GOST3410_256_A) == 32 && gostx_gost3410_size(GOSTX_GOST3410_512_C) == 64, "sizes");
}

/* The parameter-set table the provider takes its vocabulary from: each
 * curve's own name and OID first, then the CryptoPro aliases; every name
 * and OID resolves to the set's curve, no OID twice, GOSTX_EINVAL after. */
static void test_paramsets(void) {
  const char *name, *oid, *oids[32];
  size_t n = 0;
  int id;
  while (n < 32 && (id = gostx_gost3410_paramset(n, &name, &oid)) >= 0) {
    if (n < NCURVES)
      CHECK(!strcmp(gostx_gost3410_curve_name(id), name) && !strcmp(gostx_gost3410_curve_oid(id), oid),
            "set %zu: the curve's own name first", n);
    CHECK(gostx_gost3410_curve_by_name(name) == id && gostx_gost3410_curve_by_name(oid) == id,
          "set %s (%s) resolves to its curve", name, oid);
    for (size_t j = 0; j < n; j++) CHECK(strcmp(oids[j], oid), "OID %s listed once", oid);
    oids[n++] = oid;
  }
  CHECK(n == NCURVES + 5, "%zu sets: every curve and the five CryptoPro aliases", n);
  CHECK(gostx_gost3410_paramset(n, &name, &oid) == GOSTX_EINVAL &&
            gostx_gost3410_paramset((size_t)-1, &name, &oid) == GOSTX_EINVAL,
        "past the last set: refused");
}

static void test_standard_examples(void) {
  json *f = tv_load("sign-3410.json");
  json *cases = tv_cases(f);
  for (size_t i = 0; i < json_len(cases); i++) {
    json *c = json_at(cases, i);
    size_t dl, xl, yl, el, kl, rl, sl;
    uint8_t *d = tv_hex(c, "d", &dl), *xq = tv_hex(c, "xQ", &xl), *yq = tv_hex(c, "yQ", &yl);
    uint8_t *e = tv_hex(c, "e", &el), *k = tv_hex(c, "k", &kl), *r = tv_hex(c, "r", &rl);
    uint8_t *s = tv_hex(c, "s", &sl);
    int curve = dl == 32 ? GOSTX_GOST3410_256_TEST : GOSTX_GOST3410_512_TEST;
    /* The file's curve must be the library's. */
    json *cv = json_get(c, "curve");
    size_t ql, pl;
    uint8_t *q = tv_hex(cv, "q", &ql), *p = tv_hex(cv, "p", &pl), qlib[64];
    curve_q(curve, qlib);
    CHECK(ql == dl && !memcmp(q, qlib, ql), "%s: q matches", tv_str(c, "name"));
    uint8_t pub[128], want_pub[128], sig[128], want_sig[128], digest[64];
    memcpy(want_pub, xq, xl);
    memcpy(want_pub + xl, yq, yl);
    memcpy(want_sig, r, rl);
    memcpy(want_sig + rl, s, sl);
    CHECK_RC(gostx_gost3410_public_key(curve, d, dl, pub, 2 * dl), 0, "public key");
    CHECK_BYTES(pub, want_pub, 2 * dl, "Q = d P");
    /* e < q, so the digest whose little-endian reading is e gives alpha = e. */
    memcpy(digest, e, el);
    reverse(digest, el);
    CHECK_RC(gostx_gost3410_sign_with_k(curve, d, dl, digest, el, k, kl, sig, 2 * dl), 0, "sign with k");
    CHECK_BYTES(sig, want_sig, 2 * dl, "r || s");
    CHECK_RC(gostx_gost3410_verify(curve, want_pub, 2 * dl, digest, el, want_sig, 2 * dl), 0, "verify");
    /* Every 37th bit of the signature, every bit of the first digest byte. */
    for (size_t bit = 0; bit < 16 * dl; bit += 37) {
      memcpy(sig, want_sig, 2 * dl);
      sig[bit / 8] ^= (uint8_t)(1u << (bit % 8));
      int rc = gostx_gost3410_verify(curve, want_pub, 2 * dl, digest, el, sig, 2 * dl);
      CHECK(rc == GOSTX_EAUTH || rc == GOSTX_EFORMAT, "flipped sig bit %zu refused (rc %d)", bit, rc);
    }
    for (int bit = 0; bit < 8; bit++) {
      digest[0] ^= (uint8_t)(1u << bit);
      CHECK_RC(gostx_gost3410_verify(curve, want_pub, 2 * dl, digest, el, want_sig, 2 * dl), GOSTX_EAUTH, "flipped digest bit");
      digest[0] ^= (uint8_t)(1u << bit);
    }
    /* A signature of the right length on the wrong curve size is refused. */
    CHECK_RC(gostx_gost3410_verify(curve, want_pub, 2 * dl, digest, el, want_sig, 2 * dl - 1), GOSTX_ELEN, "sig length");
    free(d); free(xq); free(yq); free(e); free(k); free(r); free(s); free(q); free(p);
  }
  json_free(f);
}

static void test_round_trips(void) {
  for (size_t i = 0; i < NCURVES; i++) {
    int c = all_curves[i];
    size_t n = gostx_gost3410_size(c);
    const char *name = gostx_gost3410_curve_name(c);
    for (int it = 0; it < 3; it++) {
      uint8_t d[64], pub[128], pub2[128], dig[64], sig[128], sig2[128];
      CHECK_RC(gostx_gost3410_keygen(c, d, n, pub, 2 * n), 0, name);
      CHECK_RC(gostx_gost3410_public_key(c, d, n, pub2, 2 * n), 0, name);
      CHECK(!memcmp(pub, pub2, 2 * n), "%s: keygen's Q = public_key(d)", name);
      CHECK_RC(gostx_gost3410_check_public_key(c, pub, 2 * n), 0, name);
      t_rand_bytes(dig, n);
      CHECK_RC(gostx_gost3410_sign(c, d, n, dig, n, sig, 2 * n), 0, name);
      CHECK_RC(gostx_gost3410_verify(c, pub, 2 * n, dig, n, sig, 2 * n), 0, name);
      CHECK_RC(gostx_gost3410_sign(c, d, n, dig, n, sig2, 2 * n), 0, name);
      CHECK(memcmp(sig, sig2, 2 * n) != 0, "%s: fresh randomness gives a fresh signature", name);
      CHECK_RC(gostx_gost3410_verify(c, pub, 2 * n, dig, n, sig2, 2 * n), 0, name);
      dig[t_rand_below(n)] ^= 0x10;
      CHECK_RC(gostx_gost3410_verify(c, pub, 2 * n, dig, n, sig, 2 * n), GOSTX_EAUTH, name);
    }
  }
}

static void test_vko_agreement(void) {
  for (size_t i = 0; i < NCURVES; i++) {
    int c = all_curves[i];
    size_t n = gostx_gost3410_size(c);
    const char *name = gostx_gost3410_curve_name(c);
    uint8_t da[64], qa[128], db[64], qb[128], ukm[8], ka[64], kb[64];
    gostx_gost3410_keygen(c, da, n, qa, 2 * n);
    gostx_gost3410_keygen(c, db, n, qb, 2 * n);
    t_rand_bytes(ukm, sizeof ukm);
    for (size_t out = 32; out <= 64; out += 32) {
      CHECK_RC(gostx_gost3410_vko(c, da, n, qb, 2 * n, ukm, 8, ka, out), 0, name);
      CHECK_RC(gostx_gost3410_vko(c, db, n, qa, 2 * n, ukm, 8, kb, out), 0, name);
      CHECK(!memcmp(ka, kb, out), "%s: VKO-%zu agrees both ways", name, out * 8);
    }
    ukm[0] ^= 1;
    CHECK_RC(gostx_gost3410_vko(c, db, n, qa, 2 * n, ukm, 8, kb, 64), 0, name);
    CHECK(memcmp(ka, kb, 64) != 0, "%s: another UKM, another key", name);
  }
}

/* RFC 7836's VKO examples: each side's key and the other's public key give
 * the published KEKs; A's Q (from B's case) is A's d times G. */
static void test_vko_examples(void) {
  json *f = tv_load("vko-3410.json");
  json *cases = tv_cases(f);
  for (size_t i = 0; i < json_len(cases); i++) {
    json *c = json_at(cases, i);
    int curve = gostx_gost3410_curve_by_name(tv_str(c, "curve"));
    size_t n = gostx_gost3410_size(curve), dl, xl, yl, ul, k2l, k5l;
    uint8_t *d = tv_hex(c, "d", &dl), *x = tv_hex(c, "x", &xl), *y = tv_hex(c, "y", &yl);
    uint8_t *ukm = tv_hex(c, "ukm", &ul), *k256 = tv_hex(c, "kek256", &k2l), *k512 = tv_hex(c, "kek512", &k5l);
    uint8_t pub[128], out[64];
    CHECK(n == dl && xl == n && yl == n, "%s: sizes", tv_str(c, "name"));
    memcpy(pub, x, n);
    memcpy(pub + n, y, n);
    CHECK_RC(gostx_gost3410_check_public_key(curve, pub, 2 * n), 0, "peer key on curve");
    CHECK_RC(gostx_gost3410_vko(curve, d, n, pub, 2 * n, ukm, ul, out, 32), 0, "VKO-256");
    CHECK_BYTES(out, k256, 32, "KEK_VKO-256");
    CHECK_RC(gostx_gost3410_vko(curve, d, n, pub, 2 * n, ukm, ul, out, 64), 0, "VKO-512");
    CHECK_BYTES(out, k512, 64, "KEK_VKO-512");
    /* The other case's peer key is this case's public key. */
    json *o = json_at(cases, 1 - i);
    size_t ox, oy;
    uint8_t *px = tv_hex(o, "x", &ox), *py = tv_hex(o, "y", &oy), mine[128];
    CHECK_RC(gostx_gost3410_public_key(curve, d, n, mine, 2 * n), 0, "public key");
    CHECK(!memcmp(mine, px, n) && !memcmp(mine + n, py, n), "%s: Q = d G", tv_str(c, "name"));
    free(d); free(x); free(y); free(ukm); free(k256); free(k512); free(px); free(py);
  }
  json_free(f);
}

/* VKO's cofactor: with d = 1, UKM = 1 and the peer key 5 G, K must be
 * (h 5) G, h = 4 on the twisted Edwards sets (256 A, 512 C), else 1; K
 * computed here through the public-key path, then hashed as VKO does. */
static void test_vko_cofactor(void) {
  for (size_t i = 0; i < NCURVES; i++) {
    int c = all_curves[i];
    size_t n = gostx_gost3410_size(c);
    int h = (c == GOSTX_GOST3410_256_A || c == GOSTX_GOST3410_512_C) ? 4 : 1;
    uint8_t one[64] = {0}, five[64] = {0}, hk[64] = {0}, peer[128], K[128], enc[128], want[64], got[64];
    uint8_t ukm[1] = {1};
    one[n - 1] = 1;
    five[n - 1] = 5;
    hk[n - 1] = (uint8_t)(5 * h);
    gostx_gost3410_public_key(c, five, n, peer, 2 * n);
    gostx_gost3410_public_key(c, hk, n, K, 2 * n);
    memcpy(enc, K, 2 * n);
    reverse(enc, n);     /* x little-endian */
    reverse(enc + n, n); /* y little-endian */
    gostx_streebog(64, enc, 2 * n, want);
    CHECK_RC(gostx_gost3410_vko(c, one, n, peer, 2 * n, ukm, 1, got, 64), 0, "vko");
    CHECK(!memcmp(got, want, 64), "%s: VKO = Streebog((h UKM d) Q), h = %d", gostx_gost3410_curve_name(c), h);
  }
}

static void test_refusals(void) {
  for (size_t i = 0; i < NCURVES; i++) {
    int c = all_curves[i];
    size_t n = gostx_gost3410_size(c);
    const char *name = gostx_gost3410_curve_name(c);
    uint8_t d[64], pub[128], bad[128], dig[64], sig[128], q[64], tmp[128], ukm[8] = {1};
    gostx_gost3410_keygen(c, d, n, pub, 2 * n);
    t_rand_bytes(dig, n);
    gostx_gost3410_sign(c, d, n, dig, n, sig, 2 * n);
    curve_q(c, q);
    /* r or s = 0 or = q. */
    for (int half = 0; half < 2; half++) {
      memcpy(bad, sig, 2 * n);
      memset(bad + half * n, 0, n);
      CHECK_RC(gostx_gost3410_verify(c, pub, 2 * n, dig, n, bad, 2 * n), GOSTX_EFORMAT, "r/s = 0");
      memcpy(bad + half * n, q, n);
      CHECK_RC(gostx_gost3410_verify(c, pub, 2 * n, dig, n, bad, 2 * n), GOSTX_EFORMAT, "r/s = q");
      memset(bad + half * n, 0xff, n);
      CHECK_RC(gostx_gost3410_verify(c, pub, 2 * n, dig, n, bad, 2 * n), GOSTX_EFORMAT, "r/s > q");
    }
    /* Public key off the curve, at "infinity" (all zero), coordinate >= p. */
    memcpy(bad, pub, 2 * n);
    bad[2 * n - 1] ^= 1;
    CHECK_RC(gostx_gost3410_verify(c, bad, 2 * n, dig, n, sig, 2 * n), GOSTX_EINVAL, "Q off curve");
    CHECK_RC(gostx_gost3410_check_public_key(c, bad, 2 * n), GOSTX_EINVAL, name);
    CHECK_RC(gostx_gost3410_vko(c, d, n, bad, 2 * n, ukm, 8, tmp, 32), GOSTX_EINVAL, "VKO Q off curve");
    memset(bad, 0, 2 * n);
    CHECK_RC(gostx_gost3410_verify(c, bad, 2 * n, dig, n, sig, 2 * n), GOSTX_EINVAL, "Q zero");
    memset(bad, 0xff, 2 * n);
    CHECK_RC(gostx_gost3410_check_public_key(c, bad, 2 * n), GOSTX_EINVAL, "Q coordinates >= p");
    /* Private key 0, q, q + 1 refused; q - 1 gives -G. */
    uint8_t z[64] = {0}, qm1[64], qp1[64];
    memcpy(qm1, q, n);
    memcpy(qp1, q, n);
    qm1[n - 1] -= 1; /* q is odd: no borrow */
    qp1[n - 1] += 1; /* q is odd: no carry */
    CHECK_RC(gostx_gost3410_public_key(c, z, n, tmp, 2 * n), GOSTX_EINVAL, "d = 0");
    CHECK_RC(gostx_gost3410_public_key(c, q, n, tmp, 2 * n), GOSTX_EINVAL, "d = q");
    CHECK_RC(gostx_gost3410_public_key(c, qp1, n, tmp, 2 * n), GOSTX_EINVAL, "d = q + 1");
    CHECK_RC(gostx_gost3410_sign(c, q, n, dig, n, tmp, 2 * n), GOSTX_EINVAL, "sign d = q");
    CHECK_RC(gostx_gost3410_vko(c, z, n, pub, 2 * n, ukm, 8, tmp, 32), GOSTX_EINVAL, "vko d = 0");
    uint8_t one[64] = {0}, g[128], mg[128];
    one[n - 1] = 1;
    CHECK_RC(gostx_gost3410_public_key(c, one, n, g, 2 * n), 0, "d = 1");
    CHECK_RC(gostx_gost3410_public_key(c, qm1, n, mg, 2 * n), 0, "d = q - 1");
    CHECK(!memcmp(g, mg, n) && memcmp(g + n, mg + n, n) != 0, "%s: (q-1) G = -G", name);
    CHECK_RC(gostx_gost3410_sign(c, qm1, n, dig, n, tmp, 2 * n), 0, "sign d = q - 1");
    CHECK_RC(gostx_gost3410_verify(c, mg, 2 * n, dig, n, tmp, 2 * n), 0, "verify d = q - 1");
    /* Lengths. */
    CHECK_RC(gostx_gost3410_sign(c, d, n - 1, dig, n, tmp, 2 * n), GOSTX_ELEN, "priv len");
    CHECK_RC(gostx_gost3410_sign(c, d, n, dig, n + 1, tmp, 2 * n), GOSTX_ELEN, "digest len");
    CHECK_RC(gostx_gost3410_sign(c, d, n, dig, n, tmp, 2 * n + 1), GOSTX_ELEN, "sig len");
    CHECK_RC(gostx_gost3410_verify(c, pub, 2 * n - 1, dig, n, sig, 2 * n), GOSTX_ELEN, "pub len");
    CHECK_RC(gostx_gost3410_public_key(c, d, n, tmp, n), GOSTX_ELEN, "pub out len");
    CHECK_RC(gostx_gost3410_vko(c, d, n, pub, 2 * n, ukm, 0, tmp, 32), GOSTX_ELEN, "ukm len 0");
    CHECK_RC(gostx_gost3410_vko(c, d, n, pub, 2 * n, ukm, 8, tmp, 48), GOSTX_ELEN, "vko out len");
    CHECK_RC(gostx_gost3410_sign(c, NULL, n, dig, n, tmp, 2 * n), GOSTX_EINVAL, "NULL priv");
  }
  uint8_t b[128] = {0};
  CHECK_RC(gostx_gost3410_keygen(0, b, 32, b, 64), GOSTX_EINVAL, "unknown curve");
  CHECK_RC(gostx_gost3410_verify(42, b, 64, b, 32, b, 64), GOSTX_EINVAL, "unknown curve");
}

/* ---- the fast scalar multiplications against the 4-bit reference ---- */

/* A scalar below q: random, or one of the edges (1, 2, 3, q - 1, q - 2, a
 * small even, 2^k - 1 patterns folded below q). */
static void scalar_below_q(const gx_curve *C, uint64_t *k, int it) {
  static const gx_fe one = {1}, two = {2}, three = {3};
  gx_fe r = {0};
  memset(k, 0, sizeof(gx_fe));
  switch (it) {
    case 0: memcpy(k, one, sizeof one); return;
    case 1: memcpy(k, two, sizeof two); return;
    case 2: memcpy(k, three, sizeof three); return;
    case 3: gostx__fe_sub(&C->fq, k, C->q, one); return; /* q - 1 (C->q itself is not < q) */
    case 4: gostx__fe_sub(&C->fq, k, C->q, two); return;
    case 5: k[0] = 64; return;
    default:
      for (int i = 0; i < C->n; i++) r[i] = t_rand();
      if (it == 6) for (int i = 0; i < C->n; i++) r[i] = ~(uint64_t)0;
      gx_fe zero = {0};
      gostx__fe_reduce_wide(&C->fq, k, r, zero);
      if (gostx__fe_is_zero(k, C->n)) k[0] = 5;
  }
}

static int same_point(const gx_curve *C, const gx_point *A, const gx_point *B) {
  gx_fe ax, ay, bx, by;
  uint64_t ia = gostx__ec_point_to_affine(C, ax, ay, A), ib = gostx__ec_point_to_affine(C, bx, by, B);
  if (ia || ib) return ia && ib;
  return !memcmp(ax, bx, (size_t)C->n * 8) && !memcmp(ay, by, (size_t)C->n * 8) &&
         gostx__ec_on_curve(C, ax, ay);
}

/* Whether two points have the same projective coordinates, limb for limb
 * (the rows' same formulas give the same numbers). */
static int same_limbs(const gx_point *A, const gx_point *B, int n) {
  return !memcmp(A->X, B->X, (size_t)n * 8) && !memcmp(A->Y, B->Y, (size_t)n * 8) &&
         !memcmp(A->Z, B->Z, (size_t)n * 8);
}

static void test_fast_paths(void) {
  for (size_t ci = 0; ci < NCURVES; ci++) {
    const gx_curve *C = gostx__ec_curve_get(all_curves[ci]);
    const char *name = gostx_gost3410_curve_name(all_curves[ci]);
    gx_point G, P, R1, R2, T;
    gx_fe k, m;
    gostx__ec_point_generator(C, &G);
    for (int it = 0; it < 14; it++) {
      scalar_below_q(C, k, it);
      gostx__ec_point_mul_ref(C, &R1, k, &G);
      gostx__ec_mul_base(C, &R2, k);
      CHECK(same_point(C, &R1, &R2), "%s: k G from the table = reference (case %d)", name, it);
      /* a point of order q other than G */
      scalar_below_q(C, m, 7 + it % 7);
      gostx__ec_point_mul_ref(C, &P, m, &G);
      gostx__ec_point_mul_ref(C, &R1, k, &P);
      gostx__ec_mul(C, &R2, k, &P);
      CHECK(same_point(C, &R1, &R2), "%s: k P signed windows = reference (case %d)", name, it);
      /* a G + b P, variable time */
      gostx__ec_point_mul2_vartime(C, &R2, m, k, &P);
      gostx__ec_point_mul_ref(C, &T, m, &G);
      gostx__ec_point_add(C, &R1, &R1, &T);
      CHECK(same_point(C, &R1, &R2), "%s: a G + b P = reference (case %d)", name, it);
      CHECK(gostx__ec_point_mul2_jac(C, &R2, m, k, &P) == 0 && same_point(C, &R1, &R2),
            "%s: a G + b P in Jacobian = reference (case %d)", name, it);
      if (C->edwards) {
        gostx__ec_mul2_vartime(C, &R2, m, k, &P);
        CHECK(same_point(C, &R1, &R2), "%s: a G + b P in Edwards = reference (case %d)", name,
              it);
      }
      /* b = a, P = -G: infinity; b = q - a... exercised below */
      gostx__ec_point_mul2_jac(C, &R2, k, k, &G);
      gostx__ec_point_mul_ref(C, &T, k, &G);
      gostx__ec_point_add(C, &T, &T, &T);
      CHECK(same_point(C, &T, &R2), "%s: k G + k G in Jacobian (doubling case %d)", name, it);
    }
    /* the variable-time inverse against Fermat's, mod p and q */
    for (int it = 0; it < 20; it++) {
      const gx_mont *Mq = it & 1 ? &C->fq : &C->fp;
      gx_fe a, b, c, am;
      scalar_below_q(C, a, it % 14); /* < q <= p, nonzero */
      gostx__fe_inv_vartime(Mq, b, a);
      gostx__fe_to_mont(Mq, am, a);
      gostx__fe_inv(Mq, c, am);
      gostx__fe_from_mont(Mq, c, c);
      CHECK(!memcmp(b, c, (size_t)C->n * 8), "%s: binary inverse = Fermat (case %d)", name, it);
    }
    /* verify's x test without inversion: x(A) mod q = r, and not r + 1 */
    for (int it = 0; it < 8; it++) {
      gx_fe x, y, r, r1, zero = {0}, one = {1};
      scalar_below_q(C, k, 7 + it);
      gostx__ec_point_mul_ref(C, &T, k, &G);
      gostx__ec_point_to_affine(C, x, y, &T);
      gostx__fe_reduce_wide(&C->fq, r, x, zero);
      gostx__fe_add(&C->fq, r1, r, one);
      CHECK(gostx__ec_point_x_is(C, &T, r) && !gostx__ec_point_x_is(C, &T, r1), "%s: x(A) = r mod q", name);
    }
    /* a G + b P = infinity when b P = -a G. */
    scalar_below_q(C, k, 9);
    gx_fe mk;
    gostx__fe_sub(&C->fq, mk, C->q, k); /* q - k */
    gostx__ec_point_mul2_vartime(C, &R2, k, mk, &G);
    CHECK(gostx__fe_is_zero(R2.Z, C->n), "%s: k G + (q - k) G = O", name);
    CHECK(gostx__ec_point_mul2_jac(C, &R2, k, mk, &G) == 0 && gostx__fe_is_zero(R2.Z, C->n),
          "%s: k G + (q - k) G = O in Jacobian", name);
    if (C->edwards) {
      gostx__ec_mul2_vartime(C, &R2, k, mk, &G);
      CHECK(gostx__fe_is_zero(R2.Z, C->n), "%s: k G + (q - k) G = O in Edwards", name);
      gostx__ec_mul2_vartime(C, &R2, k, k, &G); /* the same point added: complete */
      gostx__ec_point_mul_ref(C, &T, k, &G);
      gostx__ec_point_add(C, &T, &T, &T);
      CHECK(same_point(C, &T, &R2), "%s: k G + k G in Edwards", name);
    }
    /* b G equal to the first G-table entry added: the doubling branch of
     * the Jacobian addition. */
    for (int it = 0; it < 4; it++) {
      gx_fe ao, b = {0}, sum;
      int8_t ad[GX_DIGITS(GX_MAXN)];
      scalar_below_q(C, k, 7 + it);
      int flip = gostx__sc_make_odd(C, ao, k) != 0;
      gostx__sc_recode_odd(ad, ao, C->n);
      int e0 = flip ? -ad[0] : ad[0];
      b[0] = (uint64_t)(e0 < 0 ? -e0 : e0);
      if (e0 < 0) gostx__fe_sub(&C->fq, b, C->q, b);
      CHECK(gostx__ec_point_mul2_jac(C, &R2, k, b, &G) == 0, "%s: mul2_jac ran", name);
      gostx__fe_add(&C->fq, sum, k, b); /* (k + b) mod q, both < q */
      gostx__ec_point_mul_ref(C, &R1, sum, &G);
      CHECK(same_point(C, &R1, &R2), "%s: a G + b G meeting an equal point (case %d)", name, it);
    }
    /* a = -3 as given, or 3 / -3 after the change of coordinates (256 A: 3,
     * 512 C: -3); the test curves keep theirs or not, either is right. */
    int want = all_curves[ci] == GOSTX_GOST3410_256_A ? 3
             : all_curves[ci] == GOSTX_GOST3410_256_TEST || all_curves[ci] == GOSTX_GOST3410_512_TEST ? C->a_small
             : -3;
    CHECK(C->a_small == want, "%s: a = %d inside (want %d)", name, C->a_small, want);
    if (C->iso) { /* u^4 a = a', u^6 b = b' */
      gx_fe u4 = {0}, t = {0}; /* only n limbs are written */
      gostx__fe_mul(&C->fp, u4, C->u2, C->u2);
      gostx__fe_mul(&C->fp, t, u4, C->a0);
      CHECK(!memcmp(t, C->a, (size_t)C->n * 8), "%s: u^4 a = a'", name);
      gostx__fe_mul(&C->fp, t, C->u3, C->u3);
      gostx__fe_mul(&C->fp, t, t, C->b0);
      CHECK(!memcmp(t, C->b, (size_t)C->n * 8), "%s: u^6 b = b'", name);
    }
  }
}

/* The Edwards sets' constants (curves.c): s^2 - 3 t^2 = a and 2 t^3 - t s^2
 * = b in the standard's coordinates, and G's image u = (x - t)/y, v = (x - t
 * - s)/(x - t + s) on u^2 + v^2 = 1 + d u^2 v^2, with the u the standard
 * prints for G (13 on 256 paramSetA, 18 on 512 paramSetC). */
static void test_edwards_form(void) {
  static const struct { int curve, gu; } ed[] = {{GOSTX_GOST3410_256_A, 13},
                                                  {GOSTX_GOST3410_512_C, 18}};
  for (size_t i = 0; i < sizeof ed / sizeof ed[0]; i++) {
    const gx_curve *C = gostx__ec_curve_get(ed[i].curve);
    const gx_mont *M = &C->fp;
    const char *name = gostx_gost3410_curve_name(ed[i].curve);
    int n = C->n;
    gx_fe s2, t2, l, r, x, y, u, v, w, nb, one = {1};
    CHECK(C->edwards, "%s: Edwards arithmetic", name);
    gostx__fe_sqr(M, s2, C->ed_s);
    gostx__fe_sqr(M, t2, C->ed_t);
    gostx__fe_sub(M, l, s2, t2);
    gostx__fe_sub(M, l, l, t2);
    gostx__fe_sub(M, l, l, t2);
    CHECK(!memcmp(l, C->a0, (size_t)n * 8), "%s: s^2 - 3 t^2 = a", name);
    gostx__fe_add(M, l, t2, t2);
    gostx__fe_sub(M, l, l, s2);
    gostx__fe_mul(M, l, l, C->ed_t);
    CHECK(!memcmp(l, C->b0, (size_t)n * 8), "%s: 2 t^3 - t s^2 = b", name);
    /* G in the standard's coordinates (Montgomery form) */
    gx_point G;
    gostx__ec_point_generator(C, &G);
    gx_fe gx, gy;
    gostx__ec_point_to_affine(C, gx, gy, &G);
    gostx__fe_to_mont(M, x, gx);
    gostx__fe_to_mont(M, y, gy);
    gostx__fe_sub(M, w, x, C->ed_t); /* x - t */
    gostx__fe_inv(M, r, y);
    gostx__fe_mul(M, u, w, r);
    gostx__fe_add(M, r, w, C->ed_s);
    gostx__fe_inv(M, r, r);
    gostx__fe_sub(M, v, w, C->ed_s);
    gostx__fe_mul(M, v, v, r);
    gx_fe uu, vv, want = {0};
    gostx__fe_sqr(M, uu, u);
    gostx__fe_sqr(M, vv, v);
    gostx__fe_add(M, l, uu, vv);
    gostx__fe_mul(M, r, uu, vv);
    gostx__fe_mul(M, r, r, C->ed_d);
    gostx__fe_to_mont(M, nb, one);
    gostx__fe_add(M, r, r, nb);
    CHECK(!memcmp(l, r, (size_t)n * 8), "%s: G on u^2 + v^2 = 1 + d u^2 v^2", name);
    gostx__fe_from_mont(M, u, u);
    want[0] = (uint64_t)ed[i].gu;
    CHECK(!memcmp(u, want, (size_t)n * 8), "%s: G's u = %d", name, ed[i].gu);
  }
}

/* The AVX2 table scan (select_avx2.c) against the portable one: every
 * size the curves use, every index of 16- and 32-entry tables of random
 * limbs; and the portable scan against a plain index. */
static void test_scan(void) {
  static const int sizes[] = {8, 12, 16, 24, 32};
  uint64_t tab[32 * 32], a[32];
  int bad = 0, bad_avx2 = 0;
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) tab[i] = t_rand();
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int entries = 16; entries <= 32; entries += 16)
      for (int idx = 0; idx < entries; idx++) {
        int limbs = sizes[si];
        memset(a, 0, sizeof a);
        gostx__sc_scan_portable(a, tab, entries, limbs, (uint64_t)idx);
        bad += memcmp(a, tab + idx * limbs, (size_t)limbs * 8) != 0;
#ifdef GOSTX_ARCH_X86_64
        if (gostx__cpu()->avx2) {
          uint64_t b[32] = {0};
          gostx__sc_scan_avx2(b, tab, entries, limbs, (uint64_t)idx);
          bad_avx2 += memcmp(a, b, (size_t)limbs * 8) != 0;
        }
#endif
      }
  CHECK(!bad, "portable table scan = the entry (%d differ)", bad);
  CHECK(!bad_avx2, "AVX2 table scan = portable (%d differ)", bad_avx2);
}

/* The division-step inverse (field_inv.c) against the binary Euclid and
 * Fermat's power, modulo every p and q: random values and the edges (0, 1,
 * 2, m - 1, m - 2, 2^k, all-ones words). */
static void test_inv_divsteps(void) {
  for (size_t ci = 0; ci < NCURVES; ci++) {
    const gx_curve *C = gostx__ec_curve_get(all_curves[ci]);
    for (int w = 0; w < 2; w++) {
      const gx_mont *M = w ? &C->fq : &C->fp;
      int n = M->n, bad = 0, runs = 0;
      for (int it = 0; it < 300; it++) {
        gx_fe a = {0}, r = {0}, v = {0}, one = {1}, f, am, e = {0};
        for (int i = 0; i < n; i++) a[i] = t_rand();
        if (it == 0) memset(a, 0, sizeof a);
        if (it == 1) a[0] = 1;
        if (it == 2) a[0] = 2;
        if (it == 3) gostx__fe_sub(M, a, M->m, one);
        if (it == 4) gostx__fe_sub(M, a, M->m, one), gostx__fe_sub(M, a, a, one);
        if (it == 5) a[n - 1] = (uint64_t)1 << 40, memset(a, 0, (size_t)(n - 1) * 8);
        if (it == 6) memset(a, 0xff, sizeof a);
        if (!gostx__fe_lt(a, M->m, n)) gostx__fe_sub(M, a, a, M->m); /* below m (m > 2^(64 n - 1)) */
        if (!gostx__fe_lt(a, M->m, n)) memset(a, 0, sizeof a);
        if (gostx__fe_inv_divsteps(M, r, a)) break; /* no 128-bit product in this build */
        runs++;
        if (gostx__fe_is_zero(a, n)) {
          bad += !gostx__fe_is_zero(r, n);
          continue;
        }
        gostx__fe_inv_vartime(M, v, a);
        bad += memcmp(r, v, (size_t)n * 8) != 0;
        gostx__fe_inv_public(M, v, a); /* the early-stopping division steps */
        bad += memcmp(r, v, (size_t)n * 8) != 0;
        /* Fermat: a^(m - 2) in Montgomery form */
        memcpy(e, M->m, (size_t)n * 8);
        for (int i = 0, bw = 2; i < n && bw; i++) { /* e = m - 2 */
          uint64_t s0 = e[i];
          e[i] -= (uint64_t)bw;
          bw = e[i] > s0;
        }
        gostx__fe_to_mont(M, am, a);
        gostx__fe_pow(M, f, am, e);
        gostx__fe_from_mont(M, f, f);
        bad += memcmp(r, f, (size_t)n * 8) != 0;
      }
      CHECK(!bad, "%s %s: division-step inverse (fixed and early-stopping) = Euclid = Fermat (%d of %d differ)",
            gostx_gost3410_curve_name(all_curves[ci]), w ? "q" : "p", bad, runs);
    }
  }
}

/* The width-w NAF (verify's recoding) summed back, its digits in range
 * and zero or odd, for random and edge scalars of 4 and 8 limbs. */
static void test_wnaf(void) {
  int bad = 0, runs = 0;
  for (int n = 4; n <= 8; n += 4)
    for (int w = 2; w <= 8; w++)
      for (int it = 0; it < 100; it++, runs++) {
        uint64_t k[GX_MAXN] = {0}, acc[GX_MAXN + 1] = {0};
        int8_t dig[64 * GX_MAXN + 1];
        for (int i = 0; i < n; i++) k[i] = t_rand();
        if (it == 0) memset(k, 0, sizeof k);
        if (it == 1) k[0] = 1;
        if (it == 2) memset(k, 0xff, (size_t)n * 8);
        if (it == 3) memset(k, 0, sizeof k), k[n - 1] = (uint64_t)1 << 63;
        if (it == 4) k[n - 1] = ~(uint64_t)0, k[0] |= 1;
        int len = gostx__sc_wnaf(dig, k, n, w);
        bad += len < 0 || len > 64 * n + 1;
        for (int i = len - 1; i >= 0; i--) { /* acc = 2 acc + dig[i], n + 1 limbs */
          int d = dig[i];
          bad += d && (!(d & 1) || d >= 1 << (w - 1) || d <= -(1 << (w - 1)));
          uint64_t c = 0, v = (uint64_t)(int64_t)d, ext = d < 0 ? ~(uint64_t)0 : 0;
          for (int j = n; j > 0; j--) acc[j] = acc[j] << 1 | acc[j - 1] >> 63;
          acc[0] <<= 1;
          for (int j = 0; j <= n; j++) {
            uint64_t x = j ? ext : v, t = acc[j] + x, c2 = t < x;
            acc[j] = t + c;
            c = c2 | (acc[j] < t);
          }
        }
        bad += acc[n] != 0 || memcmp(acc, k, (size_t)n * 8) != 0;
      }
  CHECK(!bad, "width-w NAF: digits odd and in range, summed back (%d of %d wrong)", bad, runs);
}

/* The squaring against the product, modulo every p and q (edges included). */
static void test_sqr(void) {
  for (size_t ci = 0; ci < NCURVES; ci++) {
    const gx_curve *C = gostx__ec_curve_get(all_curves[ci]);
    for (int w = 0; w < 2; w++) {
      const gx_mont *M = w ? &C->fq : &C->fp;
      for (int it = 0; it < 50; it++) {
        gx_fe a = {0}, one = {1}, s, m;
        for (int i = 0; i < C->n; i++) a[i] = t_rand();
        if (it == 0) gostx__fe_sub(M, a, M->m, one);    /* m - 1 */
        if (it == 1) memcpy(a, one, sizeof one);
        if (it > 1) gostx__fe_to_mont(M, a, a);         /* a < m */
        gostx__fe_sqr(M, s, a);
        gostx__fe_mul(M, m, a, a);
        CHECK(!memcmp(s, m, (size_t)C->n * 8), "%s %s: a^2 = a a (case %d)",
              gostx_gost3410_curve_name(all_curves[ci]), w ? "q" : "p", it);
      }
    }
  }
}

/* Copies of curve ci on the implementation row impl and on the portable
 * row, whatever the dispatcher chose. */
static void on_row(size_t ci, const struct gostx_gx_impl *impl, gx_curve *on, gx_curve *off) {
  *on = *off = *gostx__ec_curve_get(all_curves[ci]);
  gostx__ec_curve_use(on, impl);
  gostx__ec_curve_use(off, &gostx_gx_portable);
}

/* The rows' field operations, test-only tables beside the rows
 * (impl.h's struct gostx_gx_field): one for each row of the dispatcher's,
 * a row without one is a failure. */
static const struct gostx_gx_field *const gx_fields[] = {
    &gostx_gx_portable_field,
#ifdef GOSTX_ARCH_X86_64
    &gostx_gx_mulx_field,
    &gostx_gx_avx512ifma_field,
#endif
};

static const struct gostx_gx_field *field_of(const struct gostx_gx_impl *impl) {
  for (size_t i = 0; i < sizeof gx_fields / sizeof gx_fields[0]; i++)
    if (gx_fields[i]->row == impl) return gx_fields[i];
  return NULL;
}

/* A row's field operations (field_of(row)->fe_mul, ...: on the MULX rows
 * field_x86_64.c's bodies) against field.c's, modulo every p and q: random residues and the edges (0, 1,
 * m - 1, m - 2, m - 2^63, and all-ones limbs reduced): products, squares,
 * sums and differences. */
static void test_field_row(const struct gostx_gx_impl *impl) {
  const struct gostx_gx_field *fe = field_of(impl);
  CHECK(fe != NULL, "%s: a field table", impl->name);
  if (!fe) return;
  for (size_t ci = 0; ci < NCURVES; ci++) {
    gx_curve on, off;
    on_row(ci, impl, &on, &off);
    for (int w = 0; w < 2; w++) {
      gx_mont P = w ? off.fq : off.fp;
      int n = P.n, bad = 0;
      for (int it = 0; it < 400; it++) {
        gx_fe v[2] = {{0}, {0}}, one = {1}, low = {(uint64_t)1 << 63};
        for (int k = 0; k < 2; k++) {
          int e = (it + 3 * k) % 12;
          for (int i = 0; i < n; i++) v[k][i] = t_rand();
          if (e == 0) memset(v[k], 0, sizeof v[k]);
          if (e == 1) memcpy(v[k], one, sizeof one);
          if (e == 2) gostx__fe_sub(&P, v[k], P.m, one);     /* m - 1 */
          if (e == 3) gostx__fe_sub(&P, v[k], P.m, low);      /* m - 2^63 */
          if (e == 4) {                                /* m - 2 */
            gostx__fe_sub(&P, v[k], P.m, one);
            gostx__fe_sub(&P, v[k], v[k], one);
          }
          if (e == 5) { /* all ones but the lowest limb, reduced */
            memset(v[k], 0xff, sizeof v[k]);
            v[k][0] = t_rand();
          }
          if (e >= 5) gostx__fe_to_mont(&P, v[k], v[k]); /* < m: the field's inputs */
        }
        gx_fe rp[4], rx[4];
        gostx__fe_mul(&P, rp[0], v[0], v[1]);
        fe->fe_mul(&P, rx[0], v[0], v[1]);
        gostx__fe_sqr(&P, rp[1], v[0]);
        fe->fe_sqr(&P, rx[1], v[0]);
        gostx__fe_add(&P, rp[2], v[0], v[1]);
        fe->fe_add(&P, rx[2], v[0], v[1]);
        gostx__fe_sub(&P, rp[3], v[0], v[1]);
        fe->fe_sub(&P, rx[3], v[0], v[1]);
        for (int o = 0; o < 4; o++) bad += memcmp(rp[o], rx[o], (size_t)n * 8) != 0;
      }
      CHECK(!bad, "%s %s: %s field = portable (%d of 1600 differ)",
            gostx_gost3410_curve_name(all_curves[ci]), w ? "q" : "p", impl->name, bad);
    }
  }
}

/* k G, k P and verification's m G + k P through the front (ec_front.c) on
 * a row (its scans; on the Edwards sets its lane code, AVX-512 IFMA:
 * lib/gost3410/ec_edwards_ifma.c) against the portable row, and against
 * the 4-bit reference: scalar edges (1, 2, 3, q - 1, q - 2, all-ones
 * folded) and random ones, on G and on other points of order q. 60 cases
 * on the Edwards sets, 20 on the others. k G also limb for limb against
 * the portable row: the same digits through the same formulas (k = 1:
 * every digit -63, the rows' last entry negated). */
static void test_mul_row(const struct gostx_gx_impl *impl) {
  for (size_t ci = 0; ci < NCURVES; ci++) {
    gx_curve on, off;
    on_row(ci, impl, &on, &off);
    const char *name = gostx_gost3410_curve_name(all_curves[ci]);
    int bad_ref = 0, bad_off = 0, bad_two = 0, bad_base = 0, bad_base_off = 0;
    int cases = on.edwards ? 60 : 20;
    gx_point G, P, R0, R1, R2, T;
    gx_fe k, m;
    gostx__ec_point_generator(&off, &G);
    for (int it = 0; it < cases; it++) { /* references on `off`: the portable row */
      scalar_below_q(&on, k, it % 20);
      scalar_below_q(&on, m, 6 + it % 9);
      if (it % 3)
        gostx__ec_point_mul_ref(&off, &P, m, &G);
      else
        P = G;
      gostx__ec_point_mul_ref(&off, &R0, k, &G);
      gostx__ec_mul_base(&on, &R1, k);
      gostx__ec_mul_base(&off, &R2, k);
      bad_base += !same_point(&on, &R0, &R1);
      bad_base_off += !same_limbs(&R1, &R2, on.n);
      gostx__ec_point_mul_ref(&off, &R0, k, &P);
      gostx__ec_mul(&on, &R1, k, &P);
      gostx__ec_mul(&off, &R2, k, &P);
      bad_ref += !same_point(&on, &R0, &R1);
      bad_off += !same_point(&on, &R1, &R2);
      /* verification's m G + k P, variable time (m = k: the same point added) */
      if (it % 7 == 0) memcpy(m, k, sizeof m);
      gostx__ec_point_mul_ref(&off, &T, m, &G);
      gostx__ec_point_add(&off, &R0, &R0, &T);
      gostx__ec_mul2_vartime(&on, &R1, m, k, &P);
      gostx__ec_mul2_vartime(&off, &R2, m, k, &P);
      bad_two += !same_point(&on, &R0, &R1) + !same_point(&on, &R1, &R2);
    }
    CHECK(!bad_base, "%s: k G on %s = reference (%d of %d differ)", name, impl->name, bad_base,
          cases);
    CHECK(!bad_base_off, "%s: k G on %s = portable, limb for limb (%d of %d differ)", name,
          impl->name, bad_base_off, cases);
    CHECK(!bad_ref, "%s: k P on %s = reference (%d of %d differ)", name, impl->name, bad_ref, cases);
    CHECK(!bad_off, "%s: k P on %s = portable (%d of %d differ)", name, impl->name, bad_off, cases);
    CHECK(!bad_two, "%s: m G + k P on %s = reference and portable (%d of %d differ)", name,
          impl->name, bad_two, 2 * cases);
  }
}

/* The complete addition and the runs of doublings on a row (AVX-512 IFMA:
 * lib/gost3410/ec_ifma.c, the sets with p = 2^(64 n) - c and a = -3)
 * against the portable row's: the same formulas, so the same projective
 * coordinates, limb for limb, on random points and on the edges: P + P,
 * P + (-P), infinity on either side and both, a point with Z scaled (not
 * 1); runs of 0 to 7 doublings of each P and Q, infinity among them,
 * projective (gostx__ec_point_dbl_n) and Jacobian (gostx__ec_jac_dbl_n in place). */
static void test_point_add_row(const struct gostx_gx_impl *impl) {
  for (size_t ci = 0; ci < NCURVES; ci++) {
    gx_curve on, off;
    on_row(ci, impl, &on, &off);
    if (!on.fp.c || on.a_small != -3) continue;
    const char *name = gostx_gost3410_curve_name(all_curves[ci]);
    int bad = 0, bad_dbl = 0, n = on.n;
    gx_point G, P, Q, R1, R2, inf;
    gx_fe k, z;
    memset(&inf, 0, sizeof inf);
    memcpy(inf.Y, on.fp.one, sizeof inf.Y); /* (0 : 1 : 0) */
    gostx__ec_point_generator(&off, &G);
    for (int it = 0; it < 80; it++) {
      scalar_below_q(&off, k, it % 20);
      gostx__ec_point_mul_ref(&off, &P, k, &G);
      scalar_below_q(&off, k, 7 + it % 13);
      gostx__ec_point_mul_ref(&off, &Q, k, &G);
      switch (it % 8) {
        case 1: Q = P; break;                            /* doubling */
        case 2: Q = P; gostx__fe_sub(&off.fp, Q.Y, off.fp.m, P.Y); break; /* P + (-P) */
        case 3: Q = inf; break;
        case 4: P = inf; break;
        case 5: P = Q = inf; break;
        case 6: /* Z scaled: (X z : Y z : Z z) */
          for (int i = 0; i < n; i++) z[i] = t_rand();
          z[n - 1] >>= 1;
          gostx__fe_mul(&off.fp, Q.X, Q.X, z);
          gostx__fe_mul(&off.fp, Q.Y, Q.Y, z);
          gostx__fe_mul(&off.fp, Q.Z, Q.Z, z);
          break;
        default: break;
      }
      gostx__ec_point_add(&on, &R1, &P, &Q);
      gostx__ec_point_add(&off, &R2, &P, &Q);
      bad += !same_limbs(&R1, &R2, n);
      for (int side = 0; side < 2; side++) {
        const gx_point *D = side ? &Q : &P;
        gostx__ec_point_dbl_n(&on, &R1, D, it % 8);
        gostx__ec_point_dbl_n(&off, &R2, D, it % 8);
        bad_dbl += !same_limbs(&R1, &R2, n);
        /* the same coordinates taken as Jacobian, doubled in place */
        R1 = R2 = *D;
        gostx__ec_jac_dbl_n(&on, R1.X, R1.Y, R1.Z, 1 + it % 7);
        gostx__ec_jac_dbl_n(&off, R2.X, R2.Y, R2.Z, 1 + it % 7);
        bad_dbl += !same_limbs(&R1, &R2, n);
      }
    }
    CHECK(!bad, "%s: complete addition on %s = portable, limb for limb (%d of 80 differ)", name,
          impl->name, bad);
    CHECK(!bad_dbl, "%s: doublings on %s = portable, limb for limb (%d of 320 differ)", name,
          impl->name, bad_dbl);
  }
}

/* The odd-digit recoding: digits odd and bounded, and they sum back to k. */
static void test_recode(void) {
  for (int it = 0; it < 400; it++) {
    int n = it & 1 ? 8 : 4, w = it & 2 ? 5 : GX_W; /* the G table's digits, and k P's on Edwards */
    gx_fe k = {0}, acc = {0};
    for (int i = 0; i < n; i++) k[i] = t_rand();
    if (it < 4) memset(k, 0xff, sizeof k);
    k[0] |= 1;
    int8_t dig[GX_DIGITS_W(GX_MAXN, 5)];
    gostx__sc_recode_odd_w(dig, k, n, w);
    int ok = 1;
    /* acc = sum dig[i] 2^(w i), from the top: acc = acc 2^w + d. */
    for (int i = GX_DIGITS_W(n, w) - 1; i >= 0; i--) {
      int d = dig[i];
      ok &= (d & 1) && d <= (1 << w) - 1 && d >= -((1 << w) - 1);
      for (int j = n - 1; j > 0; j--) acc[j] = (acc[j] << w) | (acc[j - 1] >> (64 - w));
      acc[0] <<= w;
      uint64_t v = (uint64_t)(int64_t)d, ext = d < 0 ? ~(uint64_t)0 : 0, c = 0;
      for (int j = 0; j < n; j++) {
        uint64_t x = j == 0 ? v : ext, s = acc[j] + x;
        uint64_t c1 = s < x;
        s += c;
        c1 |= s < c;
        acc[j] = s;
        c = c1;
      }
    }
    CHECK(ok && !memcmp(acc, k, (size_t)n * 8), "odd-digit recoding sums back (n %d, w %d, case %d)",
          n, w, it);
  }
}

/* First use of a curve from several threads at once: the curve constants
 * (pthread_once) and the G table (built under a lock) must come out whole
 * for every thread. Runs before any other test touches these curves. */
struct first_use {
  int curve, ok;
  uint8_t d[64];
};

static void *first_use_thread(void *arg) {
  struct first_use *f = arg;
  size_t n = gostx_gost3410_size(f->curve);
  uint8_t pub[128], dig[64], sig[128];
  memset(dig, 0x5a, sizeof dig);
  f->ok = gostx_gost3410_public_key(f->curve, f->d, n, pub, 2 * n) == 0 &&
          gostx_gost3410_sign(f->curve, f->d, n, dig, n, sig, 2 * n) == 0 &&
          gostx_gost3410_verify(f->curve, pub, 2 * n, dig, n, sig, 2 * n) == 0;
  return NULL;
}

static void test_first_use_threads(void) {
  static const int curves[] = {GOSTX_GOST3410_256_D, GOSTX_GOST3410_512_B};
  for (size_t c = 0; c < 2; c++) {
    struct first_use f[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
      f[i].curve = curves[c];
      f[i].ok = 0;
      t_rand_bytes(f[i].d, sizeof f[i].d);
      f[i].d[0] = 0x1f; /* below q */
      CHECK(pthread_create(&th[i], NULL, first_use_thread, &f[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < 4; i++) {
      pthread_join(th[i], NULL);
      CHECK(f[i].ok, "%s: thread %d's key, signature and verification on first use",
            gostx_gost3410_curve_name(curves[c]), i);
    }
  }
}

/* KEG (RFC 9189) against gost-engine's (tests/vectors/keg-9189.json:
 * computed by `openssl pkeyutl -derive` with a 32-byte UKM; the file says
 * how): both sides of each case give the recorded 64 bytes. */
static void test_keg_vectors(void) {
  tv_iter it = tv_open("keg-9189.json");
  CHECK(it.n >= 14, "keg-9189.json: every production curve");
  for (json *c; (c = tv_next(&it)) != NULL;) {
    const char *name = tv_str(c, "name");
    int curve = gostx_gost3410_curve_by_name(tv_str(c, "curve"));
    size_t n = gostx_gost3410_size(curve), l[9];
    const char *keys[] = {"d_a", "x_a", "y_a", "d_b", "x_b", "y_b", "h", "k"};
    uint8_t *v[8];
    for (int j = 0; j < 8; j++) v[j] = tv_hex(c, keys[j], &l[j]);
    CHECK(l[0] == n && l[1] == n && l[3] == n && l[6] == 32 && l[7] == 64, "%s: sizes", name);
    uint8_t qa[128], qb[128], out[64];
    memcpy(qa, v[1], n), memcpy(qa + n, v[2], n);
    memcpy(qb, v[4], n), memcpy(qb + n, v[5], n);
    CHECK_RC(gostx_gost3410_keg(curve, v[0], n, qb, 2 * n, v[6], 32, out, 64), 0, name);
    CHECK_BYTES(out, v[7], 64, name);
    CHECK_RC(gostx_gost3410_keg(curve, v[3], n, qa, 2 * n, v[6], 32, out, 64), 0, name);
    CHECK_BYTES(out, v[7], 64, name);
    v[6][31] ^= 1; /* H[32] is not used */
    CHECK_RC(gostx_gost3410_keg(curve, v[0], n, qb, 2 * n, v[6], 32, out, 64), 0, name);
    CHECK_BYTES(out, v[7], 64, "H[32] does not count");
    v[6][23] ^= 1; /* the seed (256) or nothing (512) */
    CHECK_RC(gostx_gost3410_keg(curve, v[0], n, qb, 2 * n, v[6], 32, out, 64), 0, name);
    CHECK((memcmp(out, v[7], 64) != 0) == (n == 32), "%s: H[24] is the seed's, 256-bit only", name);
    v[6][0] ^= 1; /* the UKM */
    CHECK_RC(gostx_gost3410_keg(curve, v[0], n, qb, 2 * n, v[6], 32, out, 64), 0, name);
    CHECK(memcmp(out, v[7], 64) != 0, "%s: H[1] changes the key", name);
    for (int j = 0; j < 8; j++) free(v[j]);
  }
  tv_close(&it);
}

/* KEG's definition on every curve (the test curves too), from the library's
 * own VKO and KDF_TREE, whose published examples are checked elsewhere:
 * both sides agree; UKM = H[1..16] read big-endian, and 1 when it is zero
 * (RFC 9189; gost-engine differs there, see keg-9189.json); lengths. Peer
 * keys outside the order-q subgroup: test_small_order_keys. */
static void test_keg_properties(void) {
  static const uint8_t label[] = "kdf tree";
  for (size_t i = 0; i < NCURVES; i++) {
    int c = all_curves[i];
    size_t n = gostx_gost3410_size(c);
    const char *name = gostx_gost3410_curve_name(c);
    uint8_t da[64], qa[128], db[64], qb[128], h[32], ka[64], kb[64], ukm[16], v[64], want[64];
    gostx_gost3410_keygen(c, da, n, qa, 2 * n);
    gostx_gost3410_keygen(c, db, n, qb, 2 * n);
    for (int zero = 0; zero < 2; zero++) {
      t_rand_bytes(h, sizeof h);
      if (zero) memset(h, 0, 16);
      CHECK_RC(gostx_gost3410_keg(c, da, n, qb, 2 * n, h, 32, ka, 64), 0, name);
      CHECK_RC(gostx_gost3410_keg(c, db, n, qa, 2 * n, h, 32, kb, 64), 0, name);
      CHECK(!memcmp(ka, kb, 64), "%s: KEG agrees both ways", name);
      for (int j = 0; j < 16; j++) ukm[j] = h[15 - j]; /* VKO reads UKM little-endian */
      size_t ul = 16;
      if (zero) ukm[0] = 1, ul = 1;
      if (n == 64) {
        CHECK_RC(gostx_gost3410_vko(c, da, n, qb, 2 * n, ukm, ul, want, 64), 0, name);
      } else {
        CHECK_RC(gostx_gost3410_vko(c, da, n, qb, 2 * n, ukm, ul, v, 32), 0, name);
        CHECK_RC(gostx_kdf_tree256(v, 32, label, 8, h + 16, 8, 1, want, 64), 0, name);
      }
      CHECK(!memcmp(ka, want, 64), "%s: KEG = %s (UKM %s)", name,
            n == 64 ? "VKO_512" : "KDF_TREE(VKO_256)", zero ? "1 for H[1..16] = 0" : "H[1..16]");
    }
    CHECK_RC(gostx_gost3410_keg(c, da, n, qb, 2 * n, h, 31, ka, 64), GOSTX_ELEN, "h_len 31");
    CHECK_RC(gostx_gost3410_keg(c, da, n, qb, 2 * n, h, 64, ka, 64), GOSTX_ELEN, "h_len 64");
    CHECK_RC(gostx_gost3410_keg(c, da, n, qb, 2 * n, h, 32, ka, 32), GOSTX_ELEN, "out_len 32");
    CHECK_RC(gostx_gost3410_keg(c, da, n, qb, 2 * n - 1, h, 32, ka, 64), GOSTX_ELEN, "pub_len");
    CHECK_RC(gostx_gost3410_keg(c, da, n, qb, 2 * n, NULL, 32, ka, 64), GOSTX_EINVAL, "h NULL");
    memset(ka, 0, n);
    CHECK_RC(gostx_gost3410_keg(c, ka, n, qb, 2 * n, h, 32, kb, 64), GOSTX_EINVAL, "d = 0");
    qb[2 * n - 1] ^= 1;
    CHECK_RC(gostx_gost3410_keg(c, da, n, qb, 2 * n, h, 32, ka, 64), GOSTX_EINVAL, "Q off the curve");
  }
}

/* ---- public keys outside the order-q subgroup (the cofactor-4 sets) ---- */

/* Affine points of the standard's Weierstrass form y^2 = x^3 + a x + b,
 * coordinates in Montgomery form mod p; the test's own chord-and-tangent
 * formulas, not the library's. Neither input is infinity, and a doubling
 * is never of a point with y = 0. */
typedef struct { gx_fe x, y; } aff_pt;

static void aff_add(const gx_mont *M, const uint64_t *a, aff_pt *r, const aff_pt *P,
                    const aff_pt *Q) {
  gx_fe num, den, l, t;
  if (!memcmp(P->x, Q->x, (size_t)M->n * 8)) { /* P = Q: lambda = (3 x^2 + a) / (2 y) */
    gostx__fe_sqr(M, t, P->x);
    gostx__fe_add(M, num, t, t);
    gostx__fe_add(M, num, num, t);
    gostx__fe_add(M, num, num, a);
    gostx__fe_add(M, den, P->y, P->y);
  } else {
    gostx__fe_sub(M, num, Q->y, P->y);
    gostx__fe_sub(M, den, Q->x, P->x);
  }
  gostx__fe_inv(M, t, den);
  gostx__fe_mul(M, l, num, t);
  gostx__fe_sqr(M, t, l);
  gostx__fe_sub(M, t, t, P->x);
  gostx__fe_sub(M, t, t, Q->x); /* x3 = l^2 - x1 - x2 */
  gostx__fe_sub(M, num, P->x, t);
  gostx__fe_mul(M, num, num, l);
  gostx__fe_sub(M, r->y, num, P->y); /* y3 = l (x1 - x3) - y1 */
  memcpy(r->x, t, sizeof t);
}

/* x || y big-endian, as the API takes a public key. */
static void aff_bytes(const gx_curve *C, uint8_t *out, const aff_pt *P) {
  gx_fe v;
  gostx__fe_from_mont(&C->fp, v, P->x);
  gostx__fe_store_be(out, v, C->n);
  gostx__fe_from_mont(&C->fp, v, P->y);
  gostx__fe_store_be(out + C->len, v, C->n);
}

static void aff_from_bytes(const gx_curve *C, aff_pt *P, const uint8_t *in) {
  gx_fe v = {0};
  gostx__fe_load_be(v, in, C->n);
  gostx__fe_to_mont(&C->fp, P->x, v);
  gostx__fe_load_be(v, in + C->len, C->n);
  gostx__fe_to_mont(&C->fp, P->y, v);
}

/* A curve parameter (big-endian hex of the standard's table) in Montgomery form. */
static void hex_mont(const gx_curve *C, uint64_t *r, const char *hex) {
  uint8_t b[64];
  gx_fe v = {0};
  CHECK(hex_decode(hex, b, sizeof b) == C->len, "parameter length");
  gostx__fe_load_be(v, b, C->n);
  gostx__fe_to_mont(&C->fp, r, v);
}

/* The points of order 4 from the Edwards form u^2 + v^2 = 1 + d u^2 v^2
 * (R 50.1.114-2016, e = 1): (+-1, 0), whose images under the standard's map
 * x = s (1 + v) / (1 - v) + t, y = s (1 + v) / ((1 - v) u), with
 * s = (1 - d) / 4, t = (1 + d) / 6, are (s + t, +-s). Checked here: on the
 * Weierstrass curve, and twice (s + t, s) = (t, 0), which has y = 0 and so
 * order 2: (s + t, s) has order 4. d, a and b are the published
 * parameters. */
static void order4_point(const gx_curve *C, const uint64_t *a, aff_pt *t4, aff_pt *t2) {
  const gx_mont *M = &C->fp;
  gx_fe d, s, t, k, one = {1}, x, y, zero = {0};
  hex_mont(C, d, C->def->ed_d);
  gostx__fe_to_mont(M, one, one);
  gostx__fe_add(M, k, one, one);
  gostx__fe_add(M, k, k, k); /* 4 */
  gostx__fe_inv(M, k, k);
  gostx__fe_sub(M, s, one, d);
  gostx__fe_mul(M, s, s, k);
  gostx__fe_add(M, k, one, one);
  gostx__fe_add(M, t, k, one);
  gostx__fe_add(M, k, t, t); /* 6 */
  gostx__fe_inv(M, k, k);
  gostx__fe_add(M, t, one, d);
  gostx__fe_mul(M, t, t, k);
  gostx__fe_add(M, t4->x, s, t);
  memcpy(t4->y, s, sizeof s);
  aff_add(M, a, t2, t4, t4);
  const char *name = C->def->name;
  gostx__fe_from_mont(M, x, t4->x);
  gostx__fe_from_mont(M, y, t4->y);
  CHECK(gostx__ec_on_curve(C, x, y), "%s: (s + t, s) on the curve", name);
  CHECK(!memcmp(t2->x, t, (size_t)C->n * 8) && gostx__fe_is_zero(t2->y, C->n),
        "%s: 2 (s + t, s) = (t, 0): order 4", name);
  gostx__fe_from_mont(M, x, t2->x);
  CHECK(gostx__ec_on_curve(C, x, zero), "%s: (t, 0) on the curve", name);
}

/* A signature that verifies under Q = T of order 4 with no private key:
 * k G = R, r = x(R) mod q, s = k e, so that verify's z1 G + z2 Q =
 * k G + z2 T, which is R when 4 divides z2 = -r / e mod q (k is tried
 * until it does: one in four). What an attacker sends with T as the key. */
static void forge_order4(const gx_curve *C, const uint8_t *digest, uint8_t *sig) {
  const gx_mont *F = &C->fq;
  int n = C->n;
  gx_fe a = {0}, e, k = {0}, r, s, z2, zero = {0}, one = {1};
  for (int i = 0; i < n; i++) a[i] = gostx_load64_le(digest + 8 * i);
  gostx__fe_reduce_wide(F, e, a, zero);
  if (gostx__fe_is_zero(e, n)) memcpy(e, one, sizeof one);
  for (int tries = 0; tries < 200; tries++) {
    uint8_t kb[64], R[128];
    scalar_below_q(C, k, 10);
    gostx__fe_store_be(kb, k, n);
    CHECK_RC(gostx_gost3410_public_key(C->def->id, kb, C->len, R, 2 * C->len), 0, "k G");
    gx_fe x = {0};
    gostx__fe_load_be(x, R, n);
    gostx__fe_reduce_wide(F, r, x, zero);
    gx_fe km;
    gostx__fe_to_mont(F, km, k);
    gostx__fe_mul(F, s, km, e); /* k e, normal form */
    gostx__fe_inv_vartime(F, z2, e);
    gostx__fe_to_mont(F, z2, z2);
    gostx__fe_mul(F, z2, z2, r);
    gostx__fe_sub(F, z2, zero, z2); /* -r / e */
    if (!gostx__fe_is_zero(r, n) && !gostx__fe_is_zero(s, n) && (z2[0] & 3) == 0) break;
  }
  gostx__fe_store_be(sig, r, n);
  gostx__fe_store_be(sig + C->len, s, n);
}

/* Every door that takes a public key refuses the points outside the
 * order-q subgroup on 256 paramSetA and 512 paramSetC: T of order 4, -T,
 * 2 T of order 2, G + 2 T (order 2q) and G + T (order 4q). Before the
 * check, check_public_key took them all, and the signature forged under T
 * verified. */
static void test_small_order_keys(void) {
  static const int sets[] = {GOSTX_GOST3410_256_A, GOSTX_GOST3410_512_C};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    const gx_curve *C = gostx__ec_curve_get(sets[i]);
    const gx_mont *M = &C->fp;
    const char *name = C->def->name;
    size_t n = (size_t)C->len;
    gx_fe a, zero = {0};
    aff_pt t4, t2, bad[5], G;
    uint8_t one[64] = {0}, g[128], d[64], pub[128], dig[64], sig[128], out[64], ukm[8] = {1};
    hex_mont(C, a, C->def->a);
    order4_point(C, a, &t4, &t2);
    one[n - 1] = 1;
    CHECK_RC(gostx_gost3410_public_key(sets[i], one, n, g, 2 * n), 0, "G");
    aff_from_bytes(C, &G, g);
    bad[0] = t4;
    bad[1] = t4;
    gostx__fe_sub(M, bad[1].y, zero, t4.y); /* -T = 3 T */
    bad[2] = t2;
    aff_add(M, a, &bad[3], &G, &t2);
    aff_add(M, a, &bad[4], &G, &t4);
    static const char *what[] = {"T (order 4)", "-T (order 4)", "2 T (order 2)",
                                 "G + 2 T (order 2q)", "G + T (order 4q)"};
    gostx_gost3410_keygen(sets[i], d, n, pub, 2 * n);
    t_rand_bytes(dig, n);
    CHECK_RC(gostx_gost3410_sign(sets[i], d, n, dig, n, sig, 2 * n), 0, "sign");
    for (int b = 0; b < 5; b++) {
      uint8_t q[128], der[GOSTX_GOST3410_DER_MAX], got[128];
      size_t der_len = 0, len = 0;
      gx_fe x, y;
      aff_bytes(C, q, &bad[b]);
      gostx__fe_load_be(x, q, C->n);
      gostx__fe_load_be(y, q + n, C->n);
      CHECK(gostx__ec_on_curve(C, x, y), "%s: %s on the curve", name, what[b]);
      CHECK_RC(gostx_gost3410_check_public_key(sets[i], q, 2 * n), GOSTX_EINVAL, what[b]);
      CHECK_RC(gostx_gost3410_verify(sets[i], q, 2 * n, dig, n, sig, 2 * n), GOSTX_EINVAL, what[b]);
      CHECK_RC(gostx_gost3410_vko(sets[i], d, n, q, 2 * n, ukm, 8, out, 32), GOSTX_EINVAL, what[b]);
      CHECK_RC(gostx_gost3410_keg(sets[i], d, n, q, 2 * n, dig, 32, out, 64), GOSTX_EINVAL, what[b]);
      CHECK_RC(tk_pub_to_der(sets[i], q, 2 * n, der, sizeof der, &der_len),
               GOSTX_EINVAL, what[b]);
      /* A SubjectPublicKeyInfo holding the point: a good key's encoding
       * with its last 2 n bytes (x || y, each little-endian) replaced. */
      CHECK_RC(tk_pub_to_der(sets[i], pub, 2 * n, der, sizeof der, &der_len), 0, "DER");
      for (size_t j = 0; j < n; j++) {
        der[der_len - 2 * n + j] = q[n - 1 - j];
        der[der_len - n + j] = q[2 * n - 1 - j];
      }
      gostx_gost3410_key_kind kind;
      gostx_gost3410_curve curve;
      CHECK_RC(tk_key_from_der(der, der_len, &kind, &curve, &len, NULL, 0, got,
                                           sizeof got),
               GOSTX_EINVAL, what[b]);
    }
    /* The forgery: verifies (by construction) under T, refused. */
    uint8_t t4b[128], forged[128];
    aff_bytes(C, t4b, &t4);
    forge_order4(C, dig, forged);
    CHECK_RC(gostx_gost3410_verify(sets[i], t4b, 2 * n, dig, n, forged, 2 * n), GOSTX_EINVAL,
             "signature forged under a key of order 4");
    /* The memo of checked keys (gost3410.c, per thread) keeps only keys
     * that passed: after more good keys than it holds went through it, in
     * two rounds, each point is still refused and each good key verifies. */
    for (int round = 0; round < 2; round++) {
      for (int j = 0; j < 6; j++) {
        uint8_t d2[64], q2[128], s2[128];
        gostx_gost3410_keygen(sets[i], d2, n, q2, 2 * n);
        CHECK_RC(gostx_gost3410_sign(sets[i], d2, n, dig, n, s2, 2 * n), 0, "sign");
        CHECK_RC(gostx_gost3410_verify(sets[i], q2, 2 * n, dig, n, s2, 2 * n), 0, "good key");
        CHECK_RC(gostx_gost3410_verify(sets[i], q2, 2 * n, dig, n, s2, 2 * n), 0, "again");
      }
      for (int b = 0; b < 5; b++) {
        uint8_t q[128];
        aff_bytes(C, q, &bad[b]);
        CHECK_RC(gostx_gost3410_check_public_key(sets[i], q, 2 * n), GOSTX_EINVAL, what[b]);
      }
    }
    /* The subgroup check itself on every row this CPU runs: G and k G
     * pass, the five points do not. */
    struct t_row rows[T_MAX_ROWS];
    const size_t nrows = t_rows(GOSTX_ALG_GOST3410, NULL, rows);
    for (size_t row = 0; row < nrows; row++) {
      gx_curve Cc = *C;
      gostx__ec_curve_use(&Cc, rows[row].impl);
      gx_point P;
      gx_fe x, y;
      gostx__ec_point_generator(&Cc, &P);
      CHECK(gostx__ec_ed_in_subgroup_vartime(&Cc, &P), "%s (%s): G", name, rows[row].info.name);
      gostx__fe_load_be(x, pub, C->n);
      gostx__fe_load_be(y, pub + n, C->n);
      gostx__ec_point_from_affine(&Cc, &P, x, y);
      CHECK(gostx__ec_ed_in_subgroup_vartime(&Cc, &P), "%s (%s): d G", name, rows[row].info.name);
      for (int b = 0; b < 5; b++) {
        uint8_t q[128];
        aff_bytes(C, q, &bad[b]);
        gostx__fe_load_be(x, q, C->n);
        gostx__fe_load_be(y, q + n, C->n);
        gostx__ec_point_from_affine(&Cc, &P, x, y);
        CHECK(!gostx__ec_ed_in_subgroup_vartime(&Cc, &P), "%s (%s): %s", name,
              rows[row].info.name, what[b]);
      }
    }
  }
}

/* One row of lib/dispatch.c's GOST R 34.10 table against the portable row. */
static void test_row(const struct gostx_gx_impl *impl) {
  test_field_row(impl);
  test_mul_row(impl);
  test_point_add_row(impl);
}

int main(void) {
  t_rand_init();
  test_first_use_threads();
  test_curves();
  test_paramsets();
  test_standard_examples();
  test_round_trips();
  test_vko_agreement();
  test_vko_examples();
  test_vko_cofactor();
  test_keg_vectors();
  test_keg_properties();
  test_small_order_keys();
  test_refusals();
  test_recode();
  test_sqr();
  test_wnaf();
  test_edwards_form();
  test_scan();
  test_inv_divsteps();
  test_fast_paths();
  /* Every row of the dispatcher's GOST R 34.10 table this CPU runs, against
   * the portable row (tests/support/rows.h): a row added there is checked
   * here with no change to this test. */
  struct t_row rows[T_MAX_ROWS];
  const size_t nrows = t_rows(GOSTX_ALG_GOST3410, &gostx_gx_portable, rows);
  CHECK(!strcmp(gostx_impl(GOSTX_ALG_GOST3410), gostx__dispatch()->gx->name),
        "gostx_impl names the running row");
  for (size_t i = 0; i < nrows; i++) {
    test_row(rows[i].impl);
    t_row_checked(GOSTX_ALG_GOST3410, rows[i].impl);
  }
  t_rows_all_checked(GOSTX_ALG_GOST3410, &gostx_gx_portable);
  return t_done();
}
