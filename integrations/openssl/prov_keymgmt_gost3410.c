/* Key management for GOST R 34.10-2012 keys under gost-engine's names:
 * "gost2012_256" and "gost2012_512" (the short names OpenSSL gives the
 * OIDs 1.2.643.7.1.1.1.1 and .1.2, which X.509 lookups use). gostprov has
 * no keymgmt, so the params are ours:
 *   generation: "paramset" (gost-engine's -pkeyopt paramset:VALUE, an
 *     OpenSSL short name or an OID) or "group" (the same values);
 *   import/export: "group" (the set's short name), "priv" (d, unsigned
 *     integer), "pub" (x || y, each big-endian, 2 * len bytes);
 *   get: bits, security-bits, max-size (the signature size),
 *     default-digest (md_gost12_256 / md_gost12_512), group. */
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>

#include "prov.h"

/* The parameter sets (names, OIDs, curves) are the library's
 * (gostx_gost3410_paramset); gost-engine's shortcuts for them (gost_pmeth.c)
 * are ours: for 256-bit keys "A".."C" are the CryptoPro sets, "XA"/"XB" the
 * exchange sets, "TCA".."TCD" the TC26 ones, "0" the test set; for 512-bit
 * keys "A".."C" are the TC26 sets, "0" the test set. */
static const struct {
  const char *oid, *shortcut;
} shortcuts[] = {
    {"1.2.643.2.2.35.1", "A"},       {"1.2.643.2.2.35.2", "B"},       {"1.2.643.2.2.35.3", "C"},
    {"1.2.643.2.2.36.0", "XA"},      {"1.2.643.2.2.36.1", "XB"},      {"1.2.643.2.2.35.0", "0"},
    {"1.2.643.7.1.2.1.1.1", "TCA"},  {"1.2.643.7.1.2.1.1.2", "TCB"},  {"1.2.643.7.1.2.1.1.3", "TCC"},
    {"1.2.643.7.1.2.1.1.4", "TCD"},  {"1.2.643.7.1.2.1.2.1", "A"},    {"1.2.643.7.1.2.1.2.2", "B"},
    {"1.2.643.7.1.2.1.2.3", "C"},    {"1.2.643.7.1.2.1.2.0", "0"},
};

/* The library's sets with their shortcuts, built once (keys point into it). */
static prov_paramset sets[32];
static size_t nsets;
static CRYPTO_ONCE sets_once = CRYPTO_ONCE_STATIC_INIT;

static void sets_build(void) {
  const char *name, *oid;
  for (size_t i = 0; nsets < sizeof sets / sizeof sets[0]; i++) {
    int id = gostx_gost3410_paramset(i, &name, &oid);
    if (id < 0) return;
    prov_paramset *p = &sets[nsets++];
    p->name = name;
    p->oid = oid;
    p->curve = (gostx_gost3410_curve)id;
    for (size_t j = 0; j < sizeof shortcuts / sizeof shortcuts[0]; j++)
      if (!strcmp(oid, shortcuts[j].oid)) p->shortcut = shortcuts[j].shortcut;
  }
}

/* The set of a len-byte key matching name (shortcut, name or OID; oid_only:
 * the OID alone). */
static const prov_paramset *set_lookup(size_t len, const char *name, int oid_only) {
  if (!name || !CRYPTO_THREAD_run_once(&sets_once, sets_build)) return NULL;
  for (size_t i = 0; i < nsets; i++) {
    const prov_paramset *p = &sets[i];
    if (gostx_gost3410_size(p->curve) != len) continue;
    if (!strcmp(name, p->oid) ||
        (!oid_only && ((p->shortcut && !strcasecmp(name, p->shortcut)) || !strcmp(name, p->name))))
      return p;
  }
  return NULL;
}

const prov_paramset *prov_paramset_find(size_t len, const char *name) {
  return set_lookup(len, name, 0);
}

const prov_paramset *prov_paramset_by_oid(size_t len, const char *oid) {
  return set_lookup(len, oid, 1);
}

const char *prov_gost_key_type(size_t len) { return len == 32 ? "gost2012_256" : "gost2012_512"; }
const char *prov_gost_digest_name(size_t len) {
  return len == 32 ? "md_gost12_256" : "md_gost12_512";
}

prov_gost_key *prov_gost_key_new(size_t len) {
  prov_gost_key *k = prov_alloc(sizeof *k);
  if (k) k->len = len;
  return k;
}

void prov_gost_key_free(prov_gost_key *k) { prov_free(k, sizeof *k); }

/* d travels as an OSSL_PARAM unsigned integer, which is native-endian. The
 * conversions below touch every byte whatever its value: a BIGNUM would
 * skip leading zero bytes of the secret. */
static size_t le_index(size_t i, size_t size) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one ? i : size - 1 - i;
}

/* d (big-endian, n bytes) from p; 0 when p is not an unsigned integer or
 * does not fit n bytes. */
static int priv_from_param(const OSSL_PARAM *p, uint8_t *d, size_t n) {
  if (p->data_type != OSSL_PARAM_UNSIGNED_INTEGER || !p->data || !p->data_size) return 0;
  const uint8_t *v = p->data;
  uint8_t high = 0;
  for (size_t i = 0; i < n; i++) d[n - 1 - i] = i < p->data_size ? v[le_index(i, p->data_size)] : 0;
  for (size_t i = n; i < p->data_size; i++) high |= v[le_index(i, p->data_size)];
  return high == 0;
}

/* p's unsigned integer from d; on a NULL data the size asked for. */
static int priv_to_param(OSSL_PARAM *p, const uint8_t *d, size_t n) {
  p->return_size = n;
  if (!p->data) return 1;
  if (p->data_type != OSSL_PARAM_UNSIGNED_INTEGER || p->data_size < n) return 0;
  uint8_t *v = p->data;
  for (size_t i = 0; i < p->data_size; i++) v[le_index(i, p->data_size)] = i < n ? d[n - 1 - i] : 0;
  return 1;
}

int prov_gost_key_set_priv(prov_gost_key *k, const uint8_t *d) {
  if (!k->ps) {
    prov_err(PROV_R_BAD_KEY, "no parameter set for the private key");
    return 0;
  }
  int rc = gostx_gost3410_public_key(k->ps->curve, d, k->len, k->pub, 2 * k->len);
  if (rc != GOSTX_OK) {
    prov_err(PROV_R_BAD_KEY, "private key is 0 or not below the group order");
    return 0;
  }
  memcpy(k->priv, d, k->len);
  k->has_priv = k->has_pub = 1;
  return 1;
}

int prov_gost_key_set_pub(prov_gost_key *k, const uint8_t *q) {
  if (!k->ps || gostx_gost3410_check_public_key(k->ps->curve, q, 2 * k->len) != GOSTX_OK) {
    prov_err(PROV_R_BAD_KEY, "public key is not a point of order q of %s",
             k->ps ? k->ps->name : "any chosen curve");
    return 0;
  }
  memcpy(k->pub, q, 2 * k->len);
  k->has_pub = 1;
  return 1;
}

int prov_gost_key_take(prov_gost_key *dst, const void *keydata, int need_priv) {
  const prov_gost_key *k = keydata;
  if (!k || !k->ps || !k->has_pub || (need_priv && !k->has_priv)) {
    prov_err(PROV_R_BAD_KEY, need_priv ? "no private key" : "no public key");
    return 0;
  }
  memcpy(dst, k, sizeof *dst);
  return 1;
}

static void *km256_new(void *provctx) {
  (void)provctx;
  return prov_gost_key_new(32);
}
static void *km512_new(void *provctx) {
  (void)provctx;
  return prov_gost_key_new(64);
}
static void km_free(void *k) { prov_gost_key_free(k); }

/* ---- generation ---- */
typedef struct gen_ctx {
  size_t len;
  const prov_paramset *ps;
} gen_ctx;

static int gen_set_params(void *vg, const OSSL_PARAM params[]) {
  gen_ctx *g = vg;
  const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, "paramset");
  if (!p) p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_GROUP_NAME);
  if (!p) return 1;
  const char *v = NULL;
  if (!OSSL_PARAM_get_utf8_string_ptr(p, &v) || !(g->ps = prov_paramset_find(g->len, v))) {
    prov_err(PROV_R_BAD_PARAM, "unknown %s parameter set '%s'", prov_gost_key_type(g->len),
             v ? v : "(not a string)");
    return 0;
  }
  return 1;
}

static const OSSL_PARAM *gen_settable_params(void *vg, void *provctx) {
  (void)vg, (void)provctx;
  static const OSSL_PARAM t[] = {OSSL_PARAM_utf8_string("paramset", NULL, 0),
                                 OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
                                 OSSL_PARAM_END};
  return t;
}

static void *gen_init(size_t len, int selection, const OSSL_PARAM params[]) {
  if (!(selection & OSSL_KEYMGMT_SELECT_KEYPAIR)) {
    prov_err(PROV_R_UNSUPPORTED, "only key pairs are generated");
    return NULL;
  }
  gen_ctx *g = prov_alloc(sizeof *g);
  if (!g) return NULL;
  g->len = len;
  if (!gen_set_params(g, params)) {
    prov_free(g, sizeof *g);
    return NULL;
  }
  return g;
}
static void *gen256_init(void *provctx, int selection, const OSSL_PARAM params[]) {
  (void)provctx;
  return gen_init(32, selection, params);
}
static void *gen512_init(void *provctx, int selection, const OSSL_PARAM params[]) {
  (void)provctx;
  return gen_init(64, selection, params);
}

static void *gen(void *vg, OSSL_CALLBACK *cb, void *cbarg) {
  (void)cb, (void)cbarg;
  gen_ctx *g = vg;
  if (!g->ps) { /* gost-engine refuses too: the set is part of the key */
    prov_err(PROV_R_BAD_PARAM, "no parameter set: give one (-pkeyopt paramset:A)");
    return NULL;
  }
  prov_gost_key *k = prov_gost_key_new(g->len);
  if (!k) return NULL;
  k->ps = g->ps;
  int rc = gostx_gost3410_keygen(g->ps->curve, k->priv, k->len, k->pub, 2 * k->len);
  if (rc != GOSTX_OK) {
    prov_lib_err(rc, "key generation");
    prov_gost_key_free(k);
    return NULL;
  }
  k->has_priv = k->has_pub = 1;
  return k;
}

static void gen_cleanup(void *vg) { prov_free(vg, sizeof(gen_ctx)); }

/* A decoder hands its key over by reference (provider-decoder(7)). */
static void *km_load(const void *reference, size_t reference_sz) {
  if (!reference || reference_sz != sizeof(prov_gost_key *)) return NULL;
  prov_gost_key *k = *(prov_gost_key *const *)reference;
  *(prov_gost_key **)reference = NULL;
  return k;
}

/* ---- inspection ---- */
static int km_has(const void *vk, int selection) {
  const prov_gost_key *k = vk;
  if (!k) return 0;
  int ok = 1;
  if (selection & OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS) ok &= k->ps != NULL;
  if (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) ok &= k->has_pub;
  if (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) ok &= k->has_priv;
  return ok;
}

static int km_match(const void *va, const void *vb, int selection) {
  const prov_gost_key *a = va, *b = vb;
  if (a->len != b->len || !a->ps || !b->ps || a->ps->curve != b->ps->curve) return 0;
  if (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
    return a->has_pub && b->has_pub && !memcmp(a->pub, b->pub, 2 * a->len);
  if (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
    return a->has_priv && b->has_priv && !CRYPTO_memcmp(a->priv, b->priv, a->len);
  return 1;
}

static int km_validate(const void *vk, int selection, int checktype) {
  (void)checktype;
  const prov_gost_key *k = vk;
  if (!k->ps) return 0;
  if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) &&
      (!k->has_pub ||
       gostx_gost3410_check_public_key(k->ps->curve, k->pub, 2 * k->len) != GOSTX_OK))
    return 0;
  if (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) {
    uint8_t q[128];
    int ok = k->has_priv &&
             gostx_gost3410_public_key(k->ps->curve, k->priv, k->len, q, 2 * k->len) == GOSTX_OK &&
             !memcmp(q, k->pub, 2 * k->len);
    if (!ok) return 0;
  }
  return 1;
}

static int km_get_params(void *vk, OSSL_PARAM params[]) {
  prov_gost_key *k = vk;
  OSSL_PARAM *p;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_BITS)) &&
      !OSSL_PARAM_set_int(p, (int)k->len * 8))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_SECURITY_BITS)) &&
      !OSSL_PARAM_set_int(p, (int)k->len * 4))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_MAX_SIZE)) &&
      !OSSL_PARAM_set_int(p, (int)k->len * 2))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_DEFAULT_DIGEST)) &&
      !OSSL_PARAM_set_utf8_string(p, prov_gost_digest_name(k->len)))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_GROUP_NAME)) &&
      (!k->ps || !OSSL_PARAM_set_utf8_string(p, k->ps->name)))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PUB_KEY)) &&
      (!k->has_pub || !OSSL_PARAM_set_octet_string(p, k->pub, 2 * k->len)))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PKEY_PARAM_PRIV_KEY)) && /* as EC keys give theirs */
      (!k->has_priv || !priv_to_param(p, k->priv, k->len)))
    return 0;
  return 1;
}

static const OSSL_PARAM *km_gettable_params(void *provctx) {
  (void)provctx;
  static const OSSL_PARAM t[] = {OSSL_PARAM_int(OSSL_PKEY_PARAM_BITS, NULL),
                                 OSSL_PARAM_int(OSSL_PKEY_PARAM_SECURITY_BITS, NULL),
                                 OSSL_PARAM_int(OSSL_PKEY_PARAM_MAX_SIZE, NULL),
                                 OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_DEFAULT_DIGEST, NULL, 0),
                                 OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
                                 OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0),
                                 OSSL_PARAM_BN(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0),
                                 OSSL_PARAM_END};
  return t;
}

/* ---- import / export ---- */
static int km_import(void *vk, int selection, const OSSL_PARAM params[]) {
  prov_gost_key *k = vk;
  const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_GROUP_NAME);
  const char *name = NULL;
  if (p) {
    if (!OSSL_PARAM_get_utf8_string_ptr(p, &name) || !(k->ps = prov_paramset_find(k->len, name))) {
      prov_err(PROV_R_BAD_PARAM, "unknown %s parameter set '%s'", prov_gost_key_type(k->len),
               name ? name : "(not a string)");
      return 0;
    }
  }
  if (!k->ps) {
    prov_err(PROV_R_BAD_PARAM, "no parameter set (param \"group\")");
    return 0;
  }
  const OSSL_PARAM *pp = (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
                             ? OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PRIV_KEY)
                             : NULL;
  const OSSL_PARAM *pq = (selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
                             ? OSSL_PARAM_locate_const(params, OSSL_PKEY_PARAM_PUB_KEY)
                             : NULL;
  if (pp) {
    uint8_t d[64];
    int ok = priv_from_param(pp, d, k->len);
    if (!ok) {
      prov_err(PROV_R_BAD_KEY, "private key does not fit %zu bytes", k->len);
      return 0;
    }
    ok = prov_gost_key_set_priv(k, d);
    gostx_memzero(d, sizeof d);
    if (!ok) return 0;
  }
  if (pq) {
    const void *q = NULL;
    size_t qlen = 0;
    if (!OSSL_PARAM_get_octet_string_ptr(pq, &q, &qlen) || qlen != 2 * k->len) {
      prov_err(PROV_R_BAD_KEY, "public key is %zu bytes, not %zu (x || y)", qlen, 2 * k->len);
      return 0;
    }
    if (pp) { /* both given: they must belong together */
      if (memcmp(q, k->pub, qlen)) {
        prov_err(PROV_R_BAD_KEY, "public key does not belong to the private key");
        return 0;
      }
    } else if (!prov_gost_key_set_pub(k, q)) {
      return 0;
    }
  }
  if ((selection & OSSL_KEYMGMT_SELECT_KEYPAIR) && !pp && !pq) {
    prov_err(PROV_R_BAD_KEY, "no key in the params (\"priv\" or \"pub\")");
    return 0;
  }
  return 1;
}

static const OSSL_PARAM key_types[] = {
    OSSL_PARAM_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, NULL, 0),
    OSSL_PARAM_BN(OSSL_PKEY_PARAM_PRIV_KEY, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_PKEY_PARAM_PUB_KEY, NULL, 0), OSSL_PARAM_END};

static const OSSL_PARAM *km_types(int selection) {
  (void)selection;
  return key_types;
}

int prov_gost_key_export(void *vk, int selection, OSSL_CALLBACK *cb, void *cbarg) {
  prov_gost_key *k = vk;
  uint8_t d[64];
  OSSL_PARAM params[4], *p = params;
  if (!k->ps) return 0;
  *p++ = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)k->ps->name, 0);
  if ((selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && k->has_priv) {
    *p = OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_PRIV_KEY, d, k->len);
    priv_to_param(p++, k->priv, k->len);
  }
  if ((selection & OSSL_KEYMGMT_SELECT_PUBLIC_KEY) && k->has_pub)
    *p++ = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, k->pub, 2 * k->len);
  *p = OSSL_PARAM_construct_end();
  int ok = cb(params, cbarg);
  gostx_memzero(d, sizeof d);
  return ok;
}

void *prov_gost_key_import_new(size_t len, int selection, const OSSL_PARAM params[]) {
  prov_gost_key *k = prov_gost_key_new(len);
  if (k && !km_import(k, selection, params)) {
    prov_gost_key_free(k);
    return NULL;
  }
  return k;
}

static void *km_dup(const void *vk, int selection) {
  (void)selection;
  const prov_gost_key *k = vk;
  prov_gost_key *c = prov_gost_key_new(k->len);
  if (c) memcpy(c, k, sizeof *c);
  return c;
}

#define KEYMGMT_TABLE(sym, bits)                                                               \
  const OSSL_DISPATCH sym[] = {                                                                \
      {OSSL_FUNC_KEYMGMT_NEW, (prov_fn)km##bits##_new},                                        \
      {OSSL_FUNC_KEYMGMT_FREE, (prov_fn)km_free},                                              \
      {OSSL_FUNC_KEYMGMT_GEN_INIT, (prov_fn)gen##bits##_init},                                 \
      {OSSL_FUNC_KEYMGMT_GEN_SET_PARAMS, (prov_fn)gen_set_params},                             \
      {OSSL_FUNC_KEYMGMT_GEN_SETTABLE_PARAMS, (prov_fn)gen_settable_params},                   \
      {OSSL_FUNC_KEYMGMT_GEN, (prov_fn)gen},                                                   \
      {OSSL_FUNC_KEYMGMT_GEN_CLEANUP, (prov_fn)gen_cleanup},                                   \
      {OSSL_FUNC_KEYMGMT_LOAD, (prov_fn)km_load},                                              \
      {OSSL_FUNC_KEYMGMT_HAS, (prov_fn)km_has},                                                \
      {OSSL_FUNC_KEYMGMT_MATCH, (prov_fn)km_match},                                            \
      {OSSL_FUNC_KEYMGMT_VALIDATE, (prov_fn)km_validate},                                      \
      {OSSL_FUNC_KEYMGMT_GET_PARAMS, (prov_fn)km_get_params},                                  \
      {OSSL_FUNC_KEYMGMT_GETTABLE_PARAMS, (prov_fn)km_gettable_params},                        \
      {OSSL_FUNC_KEYMGMT_IMPORT, (prov_fn)km_import},                                          \
      {OSSL_FUNC_KEYMGMT_IMPORT_TYPES, (prov_fn)km_types},                                     \
      {OSSL_FUNC_KEYMGMT_EXPORT, (prov_fn)prov_gost_key_export},                               \
      {OSSL_FUNC_KEYMGMT_EXPORT_TYPES, (prov_fn)km_types},                                     \
      {OSSL_FUNC_KEYMGMT_DUP, (prov_fn)km_dup},                                                \
      {0, NULL}}
KEYMGMT_TABLE(prov_gost256_keymgmt_fns, 256);
KEYMGMT_TABLE(prov_gost512_keymgmt_fns, 512);
