/* The parameter sets of GOST R 34.10-2012 (R 50.1.114-2016, RFC 7836
 * appendix, RFC 4357 for the CryptoPro sets; the test curves are the
 * standard's Appendix A examples). The twisted Edwards sets (256 paramSetA,
 * 512 paramSetC) are given in their Weierstrass form, as the standard's
 * parameter a, b are, plus their Edwards d (e = 1): keys, signatures and
 * the curve equation are Weierstrass; their scalar multiplications run in
 * Edwards coordinates (mul_edwards.h), with s and t of the map between the
 * forms found here.
 * tests/test_gost3410.c checks every set: G on the curve and q G = O. */
#include "gost3410/ec.h"

#include <pthread.h>
#include <string.h>

#include "dispatch.h"
#include "internal.h"

static const gx_curve_def curves[] = {
  {GOSTX_GOST3410_256_TEST, "id-GostR3410-2001-TestParamSet", "1.2.643.2.2.35.0", 4, 1,
   "8000000000000000000000000000000000000000000000000000000000000431",
   "0000000000000000000000000000000000000000000000000000000000000007",
   "5fbff498aa938ce739b8e022fbafef40563f6e6a3472fc2a514c0ce9dae23b7e",
   "8000000000000000000000000000000150fe8a1892976154c59cfc193accf5b3",
   "0000000000000000000000000000000000000000000000000000000000000002",
   "08e2a8a0e65147d4bd6316030e16d19c85c97f0a9ca267122b96abbcea7e8fc8", NULL},
  {GOSTX_GOST3410_256_A, "id-tc26-gost-3410-2012-256-paramSetA", "1.2.643.7.1.2.1.1.1", 4, 4,
   "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd97",
   "c2173f1513981673af4892c23035a27ce25e2013bf95aa33b22c656f277e7335",
   "295f9bae7428ed9ccc20e7c359a9d41a22fccd9108e17bf7ba9337a6f8ae9513",
   "400000000000000000000000000000000fd8cddfc87b6635c115af556c360c67",
   "91e38443a5e82c0d880923425712b2bb658b9196932e02c78b2582fe742daa28",
   "32879423ab1a0375895786c4bb46e9565fde0b5344766740af268adb32322e5c",
   "0605f6b7c183fa81578bc39cfad518132b9df62897009af7e522c32d6dc7bffb"},
  {GOSTX_GOST3410_256_B, "id-tc26-gost-3410-2012-256-paramSetB", "1.2.643.7.1.2.1.1.2", 4, 1,
   "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd97",
   "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd94",
   "00000000000000000000000000000000000000000000000000000000000000a6",
   "ffffffffffffffffffffffffffffffff6c611070995ad10045841b09b761b893",
   "0000000000000000000000000000000000000000000000000000000000000001",
   "8d91e471e0989cda27df505a453f2b7635294f2ddf23e3b122acc99c9e9f1e14", NULL},
  {GOSTX_GOST3410_256_C, "id-tc26-gost-3410-2012-256-paramSetC", "1.2.643.7.1.2.1.1.3", 4, 1,
   "8000000000000000000000000000000000000000000000000000000000000c99",
   "8000000000000000000000000000000000000000000000000000000000000c96",
   "3e1af419a269a5f866a7d3c25c3df80ae979259373ff2b182f49d4ce7e1bbc8b",
   "800000000000000000000000000000015f700cfff1a624e5e497161bcc8a198f",
   "0000000000000000000000000000000000000000000000000000000000000001",
   "3fa8124359f96680b83d1c3eb2c070e5c545c9858d03ecfb744bf8d717717efc", NULL},
  {GOSTX_GOST3410_256_D, "id-tc26-gost-3410-2012-256-paramSetD", "1.2.643.7.1.2.1.1.4", 4, 1,
   "9b9f605f5a858107ab1ec85e6b41c8aacf846e86789051d37998f7b9022d759b",
   "9b9f605f5a858107ab1ec85e6b41c8aacf846e86789051d37998f7b9022d7598",
   "000000000000000000000000000000000000000000000000000000000000805a",
   "9b9f605f5a858107ab1ec85e6b41c8aa582ca3511eddfb74f02f3a6598980bb9",
   "0000000000000000000000000000000000000000000000000000000000000000",
   "41ece55743711a8c3cbf3783cd08c0ee4d4dc440d4641a8f366e550dfdb3bb67", NULL},
  {GOSTX_GOST3410_512_TEST, "id-tc26-gost-3410-2012-512-paramSetTest", "1.2.643.7.1.2.1.2.0", 8, 1,
   "4531acd1fe0023c7550d267b6b2fee80922b14b2ffb90f04d4eb7c09b5d2d15df1d852741af4704a0458047e80e4546d35b8336fac224dd81664bbf528be6373",
   "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007",
   "1cff0806a31116da29d8cfa54e57eb748bc5f377e49400fdd788b649eca1ac4361834013b2ad7322480a89ca58e0cf74bc9e540c2add6897fad0a3084f302adc",
   "4531acd1fe0023c7550d267b6b2fee80922b14b2ffb90f04d4eb7c09b5d2d15da82f2d7ecb1dbac719905c5eecc423f1d86e25edbe23c595d644aaf187e6e6df",
   "24d19cc64572ee30f396bf6ebbfd7a6c5213b3b3d7057cc825f91093a68cd762fd60611262cd838dc6b60aa7eee804e28bc849977fac33b4b530f1b120248a9a",
   "2bb312a43bd2ce6e0d020613c857acddcfbf061e91e5f2c3f32447c259f39b2c83ab156d77f1496bf7eb3351e1ee4e43dc1a18b91b24640b6dbb92cb1add371e", NULL},
  {GOSTX_GOST3410_512_A, "id-tc26-gost-3410-2012-512-paramSetA", "1.2.643.7.1.2.1.2.1", 8, 1,
   "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffdc7",
   "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffdc4",
   "e8c2505dedfc86ddc1bd0b2b6667f1da34b82574761cb0e879bd081cfd0b6265ee3cb090f30d27614cb4574010da90dd862ef9d4ebee4761503190785a71c760",
   "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff27e69532f48d89116ff22b8d4e0560609b4b38abfad2b85dcacdb1411f10b275",
   "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003",
   "7503cfe87a836ae3a61b8816e25450e6ce5e1c93acf1abc1778064fdcbefa921df1626be4fd036e93d75e6a50e3a41e98028fe5fc235f5b889a589cb5215f2a4", NULL},
  {GOSTX_GOST3410_512_B, "id-tc26-gost-3410-2012-512-paramSetB", "1.2.643.7.1.2.1.2.2", 8, 1,
   "8000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000006f",
   "8000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000006c",
   "687d1b459dc841457e3e06cf6f5e2517b97c7d614af138bcbf85dc806c4b289f3e965d2db1416d217f8b276fad1ab69c50f78bee1fa3106efb8ccbc7c5140116",
   "800000000000000000000000000000000000000000000000000000000000000149a1ec142565a545acfdb77bd9d40cfa8b996712101bea0ec6346c54374f25bd",
   "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002",
   "1a8f7eda389b094c2c071e3647a8940f3c123b697578c213be6dd9e6c8ec7335dcb228fd1edf4a39152cbcaaf8c0398828041055f94ceeec7e21340780fe41bd", NULL},
  {GOSTX_GOST3410_512_C, "id-tc26-gost-3410-2012-512-paramSetC", "1.2.643.7.1.2.1.2.3", 8, 4,
   "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffdc7",
   "dc9203e514a721875485a529d2c722fb187bc8980eb866644de41c68e143064546e861c0e2c9edd92ade71f46fcf50ff2ad97f951fda9f2a2eb6546f39689bd3",
   "b4c4ee28cebc6c2c8ac12952cf37f16ac7efb6a9f69f4b57ffda2e4f0de5ade038cbc2fff719d2c18de0284b8bfef3b52b8cc7a5f5bf0a3c8d2319a5312557e1",
   "3fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc98cdba46506ab004c33a9ff5147502cc8eda9e7a769a12694623cef47f023ed",
   "e2e31edfc23de7bdebe241ce593ef5de2295b7a9cbaef021d385f7074cea043aa27272a7ae602bf2a7b9033db9ed3610c6fb85487eae97aac5bc7928c1950148",
   "f5ce40d95b5eb899abbccff5911cb8577939804d6527378b8c108c3d2090ff9be18e2d33e3021ed2ef32d85822423b6304f726aa854bae07d0396e9a9addc40f",
   "9e4f5d8c017d8d9f13a5cf3cdf5bfe4dab402d54198e31ebde28a0621050439ca6b39e0a515c06b304e2ce43e79e369e91a0cfc2bc2a22b4ca302dbb33ee7550"},
};

/* The parameter sets that name a curve above under another name and OID
 * (RFC 4357's CryptoPro sets): with curves[], the one table of GOST R
 * 34.10 parameter-set names and OIDs (gostx_gost3410_paramset walks both;
 * the OpenSSL provider takes its vocabulary from it). */
static const struct {
  const char *name, *oid;
  int id;
} aliases[] = {
  {"id-GostR3410-2001-CryptoPro-A-ParamSet", "1.2.643.2.2.35.1", GOSTX_GOST3410_256_B},
  {"id-GostR3410-2001-CryptoPro-B-ParamSet", "1.2.643.2.2.35.2", GOSTX_GOST3410_256_C},
  {"id-GostR3410-2001-CryptoPro-C-ParamSet", "1.2.643.2.2.35.3", GOSTX_GOST3410_256_D},
  {"id-GostR3410-2001-CryptoPro-XchA-ParamSet", "1.2.643.2.2.36.0", GOSTX_GOST3410_256_B},
  {"id-GostR3410-2001-CryptoPro-XchB-ParamSet", "1.2.643.2.2.36.1", GOSTX_GOST3410_256_D},
};
#define NCURVES (sizeof curves / sizeof curves[0])
#define NALIASES (sizeof aliases / sizeof aliases[0])

const gx_curve_def *gostx__ec_curve_def_by_id(int id) {
  for (size_t i = 0; i < NCURVES; i++)
    if (curves[i].id == id) return &curves[i];
  return NULL;
}

const gx_curve_def *gostx__ec_curve_def_by_name(const char *name) {
  const char *set_name, *oid;
  if (!name) return NULL;
  for (size_t i = 0;; i++) {
    int id = gostx_gost3410_paramset(i, &set_name, &oid);
    if (id < 0) return NULL;
    if (!strcmp(set_name, name) || !strcmp(oid, name)) return gostx__ec_curve_def_by_id(id);
  }
}

int gostx_gost3410_paramset(size_t i, const char **name, const char **oid) {
  if (i < NCURVES) {
    *name = curves[i].name;
    *oid = curves[i].oid;
    return curves[i].id;
  }
  if (i - NCURVES < NALIASES) {
    *name = aliases[i - NCURVES].name;
    *oid = aliases[i - NCURVES].oid;
    return aliases[i - NCURVES].id;
  }
  return GOSTX_EINVAL;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

static void load_hex(uint64_t *r, const char *hex, int n) {
  uint8_t buf[8 * GX_MAXN];
  for (int i = 0; i < 8 * n; i++) buf[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
  memset(r, 0, sizeof(gx_fe));
  gostx__fe_load_be(r, buf, n);
}

/* r = a >> k for a public n-limb number, 0 < k < 64. */
static void shr(uint64_t *r, const uint64_t *a, int k, int n) {
  for (int i = 0; i < n; i++) r[i] = (a[i] >> k) | (i + 1 < n ? a[i + 1] << (64 - k) : 0);
}

/* Whether a (Montgomery form) is a square mod p: a^((p - 1) / 2) = 1. */
static int is_square(const gx_mont *M, const uint64_t *a) {
  gx_fe e, t;
  shr(e, M->m, 1, M->n);
  gostx__fe_pow(M, t, a, e);
  return !memcmp(t, M->one, (size_t)M->n * 8);
}

/* A change of coordinates (x, y) -> (u^2 x, u^3 y) turns a into a u^4 and b
 * into b u^6. For p = 3 mod 4 every square is a fourth power, so a general
 * a (the Edwards sets' Weierstrass forms) becomes -3 or 3 whenever that over
 * a is a square: then products by a are additions, and doubling takes the
 * a = -3 shortcut. Public constants, found once per process. */
static void small_a(gx_curve *C, const uint64_t *m3, const uint64_t *p3) {
  const gx_mont *M = &C->fp;
  int n = C->n;
  if (!memcmp(C->a, m3, (size_t)n * 8)) C->a_small = -3;
  if (!memcmp(C->a, p3, (size_t)n * 8)) C->a_small = 3;
  if (C->a_small || (M->m[0] & 3) != 3 || gostx__fe_is_zero(C->a, n)) return;
  static const gx_fe zero = {0};
  gx_fe ai, w, e, u, t;
  gostx__fe_inv(M, ai, C->a);
  for (int s = -3; s <= 3; s += 6) {
    const uint64_t *target = s < 0 ? m3 : p3;
    gostx__fe_mul(M, w, target, ai); /* u^4 */
    if (!is_square(M, w)) continue;
    memcpy(e, M->m, sizeof e);
    e[0] += 1;               /* p = 3 mod 4: no carry out of limb 0 */
    shr(e, e, 2, n);         /* (p + 1) / 4: square roots */
    gostx__fe_pow(M, C->u2, w, e);
    if (!is_square(M, C->u2)) gostx__fe_sub(M, C->u2, zero, C->u2); /* the root that has a root */
    gostx__fe_pow(M, u, C->u2, e);
    gostx__fe_mul(M, C->u3, C->u2, u);
    gostx__fe_inv(M, C->u2i, C->u2);
    gostx__fe_inv(M, C->u3i, C->u3);
    memcpy(C->a, target, sizeof C->a);
    gostx__fe_mul(M, t, C->u3, C->u3); /* u^6 */
    gostx__fe_mul(M, C->b, C->b, t);
    gostx__fe_mul(M, C->gx, C->gx, C->u2);
    gostx__fe_mul(M, C->gy, C->gy, C->u3);
    C->a_small = s;
    C->iso = 1;
    return;
  }
}

/* The Edwards form e u^2 + v^2 = 1 + d u^2 v^2 (e = 1) of a curve whose
 * Weierstrass a, b are s^2 - 3 t^2 and 2 t^3 - t s^2 for s = (e - d)/4,
 * t = (e + d)/6 (R 50.1.114-2016; tests/test_gost3410.c checks that a and b
 * come back, and G's image on the Edwards curve). mul_edwards.h leaves to the
 * internal coordinates (u^2 x, u^3 y) directly: s u^2, t u^2 and s u^3. */
/* r = a / k mod p for a small public k (Montgomery form). */
static void div_small(const gx_mont *M, uint64_t *r, const uint64_t *a, uint64_t k) {
  gx_fe t = {0};
  t[0] = k;
  gostx__fe_to_mont(M, t, t);
  gostx__fe_inv(M, t, t);
  gostx__fe_mul(M, r, a, t);
}

static void edwards_consts(gx_curve *C) {
  const gx_mont *M = &C->fp;
  gx_fe t;
  load_hex(t, C->def->ed_d, C->n);
  gostx__fe_to_mont(M, C->ed_d, t);
  gostx__fe_sub(M, t, M->one, C->ed_d);
  div_small(M, C->ed_s, t, 4);
  gostx__fe_add(M, t, M->one, C->ed_d);
  div_small(M, C->ed_t, t, 6);
  memcpy(C->ed_sx, C->ed_s, sizeof t);
  memcpy(C->ed_tx, C->ed_t, sizeof t);
  memcpy(C->ed_sy, C->ed_s, sizeof t);
  if (C->iso) {
    gostx__fe_mul(M, C->ed_sx, C->ed_s, C->u2);
    gostx__fe_mul(M, C->ed_tx, C->ed_t, C->u2);
    gostx__fe_mul(M, C->ed_sy, C->ed_s, C->u3);
  }
  C->edwards = 1;
}

static void curve_build(gx_curve *C, const gx_curve_def *d) {
  gx_fe p, q, t, three = {3}, m3;
  memset(C, 0, sizeof *C);
  C->def = d;
  C->n = d->n;
  C->len = 8 * d->n;
  load_hex(p, d->p, d->n);
  load_hex(q, d->q, d->n);
  gostx__fe_mont_init(&C->fp, p, d->n);
  gostx__fe_mont_init(&C->fq, q, d->n);
  memcpy(C->q, q, sizeof q);
  load_hex(t, d->a, d->n);
  gostx__fe_to_mont(&C->fp, C->a, t);
  load_hex(t, d->b, d->n);
  gostx__fe_to_mont(&C->fp, C->b, t);
  memcpy(C->a0, C->a, sizeof C->a0);
  memcpy(C->b0, C->b, sizeof C->b0);
  load_hex(t, d->x, d->n);
  gostx__fe_to_mont(&C->fp, C->gx, t);
  load_hex(t, d->y, d->n);
  gostx__fe_to_mont(&C->fp, C->gy, t);
  gostx__fe_to_mont(&C->fp, three, three);
  memset(m3, 0, sizeof m3);
  gostx__fe_sub(&C->fp, m3, m3, three);
  small_a(C, m3, three);
  gostx__fe_mul(&C->fp, C->b3, C->b, three);
  C->index = (int)(d - curves);
  if (d->ed_d) edwards_consts(C);
}

/* Every curve's Montgomery constants, built once per process (the doubling
 * chains of gostx__fe_mont_init cost more than a signature's arithmetic). */
static gx_curve built[NCURVES];
static pthread_once_t built_once = PTHREAD_ONCE_INIT;

static void build_all(void) {
  for (size_t i = 0; i < NCURVES; i++) {
    curve_build(&built[i], &curves[i]);
    built[i].impl = gostx__dispatch()->gx;
  }
}

void gostx__ec_curve_use(gx_curve *C, const struct gostx_gx_impl *impl) { C->impl = impl; }

const gx_curve *gostx__ec_curve_get(int id) {
  const gx_curve_def *d = gostx__ec_curve_def_by_id(id);
  if (!d) return NULL;
  pthread_once(&built_once, build_all);
  return &built[d - curves];
}

int gostx__ec_curve_load(gx_curve *C, int id) {
  const gx_curve *c = gostx__ec_curve_get(id);
  if (!c) return GOSTX_EINVAL;
  *C = *c;
  C->impl = gostx__dispatch()->gx; /* the dispatcher's row, asked per operation */
  return 0;
}

/* The curves' short names: one table for the CLI's arguments, the
 * benchmark's row names and the docs (gostx_gost3410_curve_short_name). */
static const struct {
  gostx_gost3410_curve id;
  const char *name;
} short_names[] = {
    {GOSTX_GOST3410_256_A, "256A"}, {GOSTX_GOST3410_256_B, "256B"},
    {GOSTX_GOST3410_256_C, "256C"}, {GOSTX_GOST3410_256_D, "256D"},
    {GOSTX_GOST3410_512_A, "512A"}, {GOSTX_GOST3410_512_B, "512B"},
    {GOSTX_GOST3410_512_C, "512C"}, {GOSTX_GOST3410_256_TEST, "256TEST"},
    {GOSTX_GOST3410_512_TEST, "512TEST"},
};

const char *gostx_gost3410_curve_short_name(gostx_gost3410_curve curve) {
  for (size_t i = 0; i < sizeof short_names / sizeof short_names[0]; i++)
    if (short_names[i].id == curve) return short_names[i].name;
  return NULL;
}

/* ASCII letters in either case (the names are public; no locale). */
static int same_name(const char *a, const char *b) {
  for (;; a++, b++) {
    int x = *a >= 'a' && *a <= 'z' ? *a - 32 : *a, y = *b >= 'a' && *b <= 'z' ? *b - 32 : *b;
    if (x != y) return 0;
    if (!x) return 1;
  }
}

int gostx_gost3410_curve_by_short_name(const char *name) {
  for (size_t i = 0; name && i < sizeof short_names / sizeof short_names[0]; i++)
    if (same_name(name, short_names[i].name)) return (int)short_names[i].id;
  return GOSTX_EINVAL;
}
