/* Encoders and decoders of "gost2012_256" / "gost2012_512" keys in the
 * forms gost-engine writes: PKCS#8 PrivateKeyInfo (d little-endian in the
 * privateKey OCTET STRING), SubjectPublicKeyInfo (a BIT STRING holding an
 * OCTET STRING of x || y, each little-endian), the algorithm's parameters
 * SEQUENCE { paramset OID, digest OID for the sets gost-engine gives one },
 * in DER and PEM; and text as `openssl pkey -text` prints it. The key keeps
 * its parameter-set OID (CryptoPro-A and paramSetB are one curve under two
 * OIDs), so a key goes back out under the OID it came in with.
 * The keys are written by libgostx's writers and read by its reader; the
 * envelopes around them (PKCS#8 encryption, PEM, the reader's first look
 * at the algorithm) are libcrypto's. An SPKI is read without
 * d2i_X509_PUBKEY, which would call the decoders again. */
#include <string.h>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/core_object.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include "prov.h"

enum { KIND_PKI = 1, KIND_SPKI, KIND_TEXT };

typedef struct codec_ctx {
  size_t len; /* 32 or 64 */
  int kind, pem;
  char cipher[64], props[128]; /* PKCS#8 encryption (OSSL_ENCODER_CTX_set_cipher); "" none */
} codec_ctx;

static const char *key_oid(size_t len) {
  return len == 32 ? "1.2.643.7.1.1.1.1" : "1.2.643.7.1.1.1.2";
}
static const char *digest_oid(size_t len) {
  return len == 32 ? "1.2.643.7.1.1.2.2" : "1.2.643.7.1.1.2.3";
}

static void *codec_new(size_t len, int kind, int pem) {
  codec_ctx *c = prov_alloc(sizeof *c);
  if (c) c->len = len, c->kind = kind, c->pem = pem;
  return c;
}
static void codec_free(void *vc) { prov_free(vc, sizeof(codec_ctx)); }

/* The selections are levels: private includes public, public includes the
 * parameters; an encoder or decoder of mask serves the highest one asked. */
static int selection_fits(int selection, int mask) {
  static const int levels[] = {OSSL_KEYMGMT_SELECT_PRIVATE_KEY, OSSL_KEYMGMT_SELECT_PUBLIC_KEY,
                               OSSL_KEYMGMT_SELECT_ALL_PARAMETERS};
  if (selection == 0) return 1;
  for (size_t i = 0; i < 3; i++)
    if (selection & levels[i]) return (mask & levels[i]) != 0;
  return 0;
}
static int kind_mask(int kind) {
  return kind == KIND_PKI    ? OSSL_KEYMGMT_SELECT_PRIVATE_KEY
         : kind == KIND_SPKI ? OSSL_KEYMGMT_SELECT_PUBLIC_KEY
                             : OSSL_KEYMGMT_SELECT_ALL;
}

/* ---- writing ---- */

/* EncryptedPrivateKeyInfo of p8 (PBES2 with c's cipher, the passphrase from
 * cb) into *der; its length, or -1 with an error raised. */
static int encrypt_p8(const codec_ctx *c, PKCS8_PRIV_KEY_INFO *p8, OSSL_PASSPHRASE_CALLBACK *cb,
                      void *cbarg, unsigned char **der) {
  EVP_CIPHER *ciph = EVP_CIPHER_fetch(NULL, c->cipher, c->props[0] ? c->props : NULL);
  char pass[1024];
  size_t plen = 0;
  int n = -1;
  if (!ciph) {
    prov_err(PROV_R_BAD_PARAM, "cipher %s for PKCS#8 not found", c->cipher);
  } else if (!cb || !cb(pass, sizeof pass, &plen, NULL, cbarg)) {
    prov_err(PROV_R_BAD_PARAM, "no passphrase for the encrypted private key");
  } else {
    X509_SIG *sig = PKCS8_encrypt_ex(-1, ciph, pass, (int)plen, NULL, 0, 0, p8, NULL, NULL);
    if (sig) n = i2d_X509_SIG(sig, der);
    X509_SIG_free(sig);
  }
  OPENSSL_cleanse(pass, sizeof pass);
  EVP_CIPHER_free(ciph);
  return n;
}

/* The DER of k as c's kind into *der (OPENSSL_malloc'd, freed by the
 * caller with OPENSSL_clear_free); its length, or -1. libgostx writes the
 * key (include/gostx/gost3410.h, under the set's own OID: one PKCS#8 and
 * SPKI writer for the library, the CLI and this provider); PKCS#8
 * encryption, with any cipher libcrypto has, wraps its PrivateKeyInfo. */
static int key_to_der(const prov_gost_key *k, const codec_ctx *c, OSSL_PASSPHRASE_CALLBACK *cb,
                      void *cbarg, unsigned char **der) {
  uint8_t buf[GOSTX_GOST3410_DER_MAX];
  size_t len = 0;
  int n = -1;
  gostx_gost3410_key key;
  int rc = c->kind == KIND_PKI
               ? gostx_gost3410_key_set_private(&key, k->ps->curve, k->priv, k->len, k->ps->oid)
               : gostx_gost3410_key_set_public(&key, k->ps->curve, k->pub, 2 * k->len, k->ps->oid);
  if (rc == GOSTX_OK)
    rc = gostx_gost3410_key_write(&key,
                                  c->kind == KIND_PKI ? GOSTX_GOST3410_KEY_PRIVATE
                                                      : GOSTX_GOST3410_KEY_PUBLIC,
                                  GOSTX_GOST3410_DER, NULL, buf, sizeof buf, &len);
  gostx_gost3410_key_clear(&key);
  if (rc != GOSTX_OK) {
    prov_err(PROV_R_LIB_ERROR, "cannot encode the %s key: %s", prov_gost_key_type(k->len),
             gostx_strerror(rc));
    return -1;
  }
  if (c->kind == KIND_PKI && c->cipher[0]) {
    const unsigned char *p = buf;
    PKCS8_PRIV_KEY_INFO *p8 = d2i_PKCS8_PRIV_KEY_INFO(NULL, &p, (long)len);
    if (p8) n = encrypt_p8(c, p8, cb, cbarg, der);
    PKCS8_PRIV_KEY_INFO_free(p8);
  } else if ((*der = OPENSSL_malloc(len))) {
    memcpy(*der, buf, len);
    n = (int)len;
  }
  gostx_memzero(buf, sizeof buf);
  if (n <= 0) prov_err(PROV_R_LIB_ERROR, "cannot encode the %s key", prov_gost_key_type(k->len));
  return n;
}

static int put_hex(BIO *b, const char *label, const uint8_t *v, size_t n) {
  if (BIO_printf(b, "%s", label) <= 0) return 0;
  for (size_t i = 0; i < n; i++)
    if (BIO_printf(b, "%02X", v[i]) <= 0) return 0;
  return BIO_printf(b, "\n") > 0;
}

/* gost-engine's `pkey -text` layout. */
static int key_to_text(const prov_gost_key *k, int selection, BIO *b) {
  int ok = BIO_printf(b, "GOST R 34.10-2012 %zu-bit key\n", k->len * 8) > 0;
  if (ok && (selection & OSSL_KEYMGMT_SELECT_PRIVATE_KEY) && k->has_priv)
    ok = put_hex(b, "Private key: ", k->priv, k->len);
  if (ok && (selection & OSSL_KEYMGMT_SELECT_KEYPAIR) && k->has_pub) /* private implies public */
    ok = BIO_printf(b, "Public key:\n") > 0 && put_hex(b, "   X:", k->pub, k->len) &&
         put_hex(b, "   Y:", k->pub + k->len, k->len);
  return ok && BIO_printf(b, "Parameter set: %s\n", k->ps ? k->ps->name : "(none)") > 0;
}

static int enc_encode(void *vc, OSSL_CORE_BIO *out, const void *obj_raw,
                      const OSSL_PARAM obj_abstract[], int selection,
                      OSSL_PASSPHRASE_CALLBACK *cb, void *cbarg) {
  codec_ctx *c = vc;
  prov_gost_key *own = NULL;
  const prov_gost_key *k = obj_raw;
  if (!k && obj_abstract) k = own = prov_gost_key_import_new(c->len, selection, obj_abstract);
  int ok = 0;
  if (!k || k->len != c->len || !k->ps) {
    prov_err(PROV_R_BAD_KEY, "no %s key to encode", prov_gost_key_type(c->len));
    goto done;
  }
  if (!selection_fits(selection, kind_mask(c->kind)) ||
      (c->kind == KIND_PKI && !k->has_priv) || (c->kind == KIND_SPKI && !k->has_pub)) {
    prov_err(PROV_R_BAD_KEY, "the key lacks what this encoding holds");
    goto done;
  }
  BIO *b = BIO_new(BIO_s_mem());
  unsigned char *der = NULL;
  int n = 0;
  if (!b) goto done;
  if (c->kind == KIND_TEXT) {
    ok = key_to_text(k, selection, b);
  } else if ((n = key_to_der(k, c, cb, cbarg, &der)) > 0) {
    const char *label = c->kind == KIND_SPKI ? "PUBLIC KEY"
                        : c->cipher[0]       ? "ENCRYPTED PRIVATE KEY"
                                             : "PRIVATE KEY";
    ok = c->pem ? PEM_write_bio(b, label, "", der, n) > 0 : BIO_write(b, der, n) == n;
  }
  char *data = NULL;
  long dlen = BIO_get_mem_data(b, &data);
  ok = ok && dlen >= 0 && prov_bio_write(out, data, (size_t)dlen);
  OPENSSL_clear_free(der, n > 0 ? (size_t)n : 0);
  BIO_free(b); /* a memory BIO: a key's bytes do not outlive it long */
done:
  prov_gost_key_free(own);
  return ok;
}

/* The cipher asked for a private key must be honoured: a key written in
 * the clear when encryption was asked for would be a silent leak. */
static int enc_set_ctx_params(void *vc, const OSSL_PARAM params[]) {
  codec_ctx *c = vc;
  const OSSL_PARAM *p;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_ENCODER_PARAM_CIPHER))) {
    c->cipher[0] = 0; /* NULL: no encryption */
    if (p->data && !OSSL_PARAM_get_utf8_string(p, &(char *){c->cipher}, sizeof c->cipher)) {
      prov_err(PROV_R_BAD_PARAM, "cipher name too long");
      return 0;
    }
  }
  /* OSSL_ENCODER_CTX_set_cipher passes NULL properties as a NULL string */
  c->props[0] = 0;
  if ((p = OSSL_PARAM_locate_const(params, OSSL_ENCODER_PARAM_PROPERTIES)) && p->data &&
      !OSSL_PARAM_get_utf8_string(p, &(char *){c->props}, sizeof c->props))
    return 0;
  return 1;
}

static const OSSL_PARAM *enc_settable_ctx_params(void *provctx) {
  (void)provctx;
  static const OSSL_PARAM t[] = {OSSL_PARAM_utf8_string(OSSL_ENCODER_PARAM_CIPHER, NULL, 0),
                                 OSSL_PARAM_utf8_string(OSSL_ENCODER_PARAM_PROPERTIES, NULL, 0),
                                 OSSL_PARAM_END};
  return t;
}

static int enc_does_selection(void *provctx, int selection) {
  (void)provctx, (void)selection;
  return 1; /* narrowed per encoding in encode; the text one takes all */
}

static void *enc_import_object(void *vc, int selection, const OSSL_PARAM params[]) {
  return prov_gost_key_import_new(((codec_ctx *)vc)->len, selection, params);
}
static void enc_free_object(void *k) { prov_gost_key_free(k); }

/* ---- reading ---- */

static unsigned char *read_all(OSSL_CORE_BIO *in, size_t *n) {
  size_t cap = 4096, len = 0, got = 0;
  unsigned char *buf = OPENSSL_malloc(cap);
  while (buf && prov_bio_read(in, buf + len, cap - len, &got) && got > 0) {
    len += got;
    if (len == cap) {
      if (cap >= 1 << 20) break; /* no key is that large */
      unsigned char *b2 = OPENSSL_clear_realloc(buf, cap, cap * 2);
      if (!b2) OPENSSL_clear_free(buf, cap);
      buf = b2, cap *= 2;
    }
  }
  *n = len;
  return buf;
}

/* The parameter set of an AlgorithmIdentifier of our key OID; NULL when the
 * OID is another's (quietly: another decoder's turn) or with an error raised
 * when the parameters are malformed. */
static const prov_paramset *alg_paramset(const X509_ALGOR *alg, size_t len, int *ours) {
  const ASN1_OBJECT *oid;
  int ptype;
  const void *pval;
  char txt[80];
  X509_ALGOR_get0(&oid, &ptype, &pval, alg);
  *ours = OBJ_obj2txt(txt, sizeof txt, oid, 1) > 0 && !strcmp(txt, key_oid(len));
  if (!*ours) return NULL;
  const prov_paramset *ps = NULL;
  STACK_OF(ASN1_TYPE) *sk = NULL;
  if (ptype == V_ASN1_SEQUENCE) {
    const ASN1_STRING *s = pval;
    const unsigned char *p = s->data;
    sk = d2i_ASN1_SEQUENCE_ANY(NULL, &p, s->length);
    int n = sk && p == s->data + s->length ? sk_ASN1_TYPE_num(sk) : 0;
    const ASN1_TYPE *t0 = n >= 1 ? sk_ASN1_TYPE_value(sk, 0) : NULL;
    const ASN1_TYPE *t1 = n == 2 ? sk_ASN1_TYPE_value(sk, 1) : NULL;
    if (t0 && t0->type == V_ASN1_OBJECT && n <= 2 &&
        OBJ_obj2txt(txt, sizeof txt, t0->value.object, 1) > 0)
      ps = prov_paramset_by_oid(len, txt);
    if (ps && t1 && (t1->type != V_ASN1_OBJECT ||
                     OBJ_obj2txt(txt, sizeof txt, t1->value.object, 1) <= 0 ||
                     strcmp(txt, digest_oid(len))))
      ps = NULL;
  }
  sk_ASN1_TYPE_pop_free(sk, ASN1_TYPE_free);
  if (!ps) prov_err(PROV_R_BAD_KEY, "%s key parameters: not SEQUENCE { known paramset OID, %s }",
                    prov_gost_key_type(len), digest_oid(len));
  return ps;
}

/* The key bytes by libgostx's reader (gostx_gost3410_key_read: every
 * private key form gost-engine reads, the point checked on the curve); the
 * set's OID is the one alg_paramset read, which the library's curve id
 * cannot tell apart (CryptoPro-A or XchA or TC26 256 B). */
static prov_gost_key *key_material(const unsigned char *der, size_t n, const prov_paramset *ps,
                                   size_t len, gostx_gost3410_key_kind want) {
  gostx_gost3410_key key;
  prov_gost_key *k = NULL;
  int rc = GOSTX_EFORMAT;
  /* DER only: what OpenSSL's decoder chain hands over (never PEM here) */
  if (n && der[0] == 0x30) rc = gostx_gost3410_key_read(&key, der, n, NULL, 0);
  int is_private = rc == GOSTX_OK && key.has_private;
  if (rc != GOSTX_OK || is_private != (want == GOSTX_GOST3410_KEY_PRIVATE) ||
      key.curve != ps->curve || key.len != len) {
    prov_err(PROV_R_BAD_KEY, "%s %s key: %s", prov_gost_key_type(len),
             want == GOSTX_GOST3410_KEY_PRIVATE ? "private" : "public",
             rc != GOSTX_OK ? gostx_strerror(rc) : "not the key its parameters name");
  } else if ((k = prov_gost_key_new(len))) {
    k->ps = ps;
    int ok = is_private ? prov_gost_key_set_priv(k, key.d) : prov_gost_key_set_pub(k, key.q);
    if (!ok) prov_gost_key_free(k), k = NULL;
  }
  gostx_gost3410_key_clear(&key);
  return k;
}

/* NULL and *ours = 0 when the DER is not a key of ours. */
static prov_gost_key *pki_decode(const unsigned char *der, size_t n, size_t len, int *ours) {
  const unsigned char *p = der;
  const X509_ALGOR *alg;
  prov_gost_key *k = NULL;
  PKCS8_PRIV_KEY_INFO *p8 = d2i_PKCS8_PRIV_KEY_INFO(NULL, &p, (long)n);
  *ours = 0;
  if (p8 && PKCS8_pkey_get0(NULL, NULL, NULL, &alg, p8)) {
    const prov_paramset *ps = alg_paramset(alg, len, ours);
    if (ps) k = key_material(der, n, ps, len, GOSTX_GOST3410_KEY_PRIVATE);
  }
  PKCS8_PRIV_KEY_INFO_free(p8);
  return k;
}

static prov_gost_key *spki_decode(const unsigned char *der, size_t n, size_t len, int *ours) {
  const unsigned char *p = der;
  prov_gost_key *k = NULL;
  X509_ALGOR *alg = NULL;
  *ours = 0;
  /* SEQUENCE { AlgorithmIdentifier, BIT STRING }: its AlgorithmIdentifier */
  STACK_OF(ASN1_TYPE) *sk = d2i_ASN1_SEQUENCE_ANY(NULL, &p, (long)n);
  const ASN1_TYPE *t0 = sk && sk_ASN1_TYPE_num(sk) == 2 ? sk_ASN1_TYPE_value(sk, 0) : NULL;
  if (t0 && t0->type == V_ASN1_SEQUENCE) {
    const unsigned char *a = t0->value.sequence->data;
    alg = d2i_X509_ALGOR(NULL, &a, t0->value.sequence->length);
    const prov_paramset *ps = alg ? alg_paramset(alg, len, ours) : NULL;
    if (ps) k = key_material(der, n, ps, len, GOSTX_GOST3410_KEY_PUBLIC);
  }
  X509_ALGOR_free(alg);
  sk_ASN1_TYPE_pop_free(sk, ASN1_TYPE_free);
  return k;
}

static int dec_decode(void *vc, OSSL_CORE_BIO *in, int selection, OSSL_CALLBACK *data_cb,
                      void *data_cbarg, OSSL_PASSPHRASE_CALLBACK *pw_cb, void *pw_cbarg) {
  (void)pw_cb, (void)pw_cbarg;
  codec_ctx *c = vc;
  if (!selection_fits(selection, kind_mask(c->kind))) return 1; /* not ours to try */
  size_t n = 0;
  unsigned char *der = read_all(in, &n);
  if (!der) return 0;
  int ours = 0;
  ERR_set_mark(); /* libcrypto's complaints about another's DER are not errors */
  prov_gost_key *k = c->kind == KIND_PKI ? pki_decode(der, n, c->len, &ours)
                                         : spki_decode(der, n, c->len, &ours);
  if (ours)
    ERR_clear_last_mark();
  else
    ERR_pop_to_mark();
  OPENSSL_clear_free(der, n);
  if (!k) return 1; /* another decoder may read it; our error, if any, stays queued */
  int type = OSSL_OBJECT_PKEY;
  OSSL_PARAM params[4] = {
      OSSL_PARAM_construct_int(OSSL_OBJECT_PARAM_TYPE, &type),
      OSSL_PARAM_construct_utf8_string(OSSL_OBJECT_PARAM_DATA_TYPE,
                                       (char *)prov_gost_key_type(c->len), 0),
      OSSL_PARAM_construct_octet_string(OSSL_OBJECT_PARAM_REFERENCE, &k, sizeof k),
      OSSL_PARAM_construct_end()};
  int ok = data_cb(params, data_cbarg);
  prov_gost_key_free(k); /* NULL when the keymgmt's load took it */
  return ok;
}

static int dec_does_selection(void *provctx, int selection) {
  (void)provctx, (void)selection;
  return 1;
}

static int dec_export_object(void *vc, const void *ref, size_t ref_sz, OSSL_CALLBACK *cb,
                             void *cbarg) {
  (void)vc;
  if (!ref || ref_sz != sizeof(prov_gost_key *)) return 0;
  return prov_gost_key_export(*(prov_gost_key *const *)ref, OSSL_KEYMGMT_SELECT_ALL, cb, cbarg);
}

#define CODEC_NEW(name, len, kind, pem)                                                        \
  static void *name(void *provctx) {                                                           \
    (void)provctx;                                                                             \
    return codec_new(len, kind, pem);                                                          \
  }
#define ENCODER_FNS(name, len, kind, pem)                                                      \
  CODEC_NEW(name##_new, len, kind, pem)                                                        \
  static const OSSL_DISPATCH name[] = {                                                        \
      {OSSL_FUNC_ENCODER_NEWCTX, (prov_fn)name##_new},                                         \
      {OSSL_FUNC_ENCODER_FREECTX, (prov_fn)codec_free},                                        \
      {OSSL_FUNC_ENCODER_DOES_SELECTION, (prov_fn)enc_does_selection},                         \
      {OSSL_FUNC_ENCODER_ENCODE, (prov_fn)enc_encode},                                         \
      {OSSL_FUNC_ENCODER_SET_CTX_PARAMS, (prov_fn)enc_set_ctx_params},                         \
      {OSSL_FUNC_ENCODER_SETTABLE_CTX_PARAMS, (prov_fn)enc_settable_ctx_params},               \
      {OSSL_FUNC_ENCODER_IMPORT_OBJECT, (prov_fn)enc_import_object},                           \
      {OSSL_FUNC_ENCODER_FREE_OBJECT, (prov_fn)enc_free_object},                               \
      {0, NULL}};
#define DECODER_FNS(name, len, kind)                                                           \
  CODEC_NEW(name##_new, len, kind, 0)                                                          \
  static const OSSL_DISPATCH name[] = {                                                        \
      {OSSL_FUNC_DECODER_NEWCTX, (prov_fn)name##_new},                                         \
      {OSSL_FUNC_DECODER_FREECTX, (prov_fn)codec_free},                                        \
      {OSSL_FUNC_DECODER_DOES_SELECTION, (prov_fn)dec_does_selection},                         \
      {OSSL_FUNC_DECODER_DECODE, (prov_fn)dec_decode},                                         \
      {OSSL_FUNC_DECODER_EXPORT_OBJECT, (prov_fn)dec_export_object},                           \
      {0, NULL}};

ENCODER_FNS(enc256_pki_der, 32, KIND_PKI, 0)
ENCODER_FNS(enc256_pki_pem, 32, KIND_PKI, 1)
ENCODER_FNS(enc256_spki_der, 32, KIND_SPKI, 0)
ENCODER_FNS(enc256_spki_pem, 32, KIND_SPKI, 1)
ENCODER_FNS(enc256_text, 32, KIND_TEXT, 0)
ENCODER_FNS(enc512_pki_der, 64, KIND_PKI, 0)
ENCODER_FNS(enc512_pki_pem, 64, KIND_PKI, 1)
ENCODER_FNS(enc512_spki_der, 64, KIND_SPKI, 0)
ENCODER_FNS(enc512_spki_pem, 64, KIND_SPKI, 1)
ENCODER_FNS(enc512_text, 64, KIND_TEXT, 0)
DECODER_FNS(dec256_pki, 32, KIND_PKI)
DECODER_FNS(dec256_spki, 32, KIND_SPKI)
DECODER_FNS(dec512_pki, 64, KIND_PKI)
DECODER_FNS(dec512_spki, 64, KIND_SPKI)

/* The names as the keymgmt's: the SPKI reader of libcrypto looks decoders
 * up by the OID's long name. */
#define N256 "gost2012_256:GOST R 34.10-2012 with 256 bit modulus:1.2.643.7.1.1.1.1"
#define N512 "gost2012_512:GOST R 34.10-2012 with 512 bit modulus:1.2.643.7.1.1.1.2"
#define P(x) PROV_PROPS "," x

const OSSL_ALGORITHM prov_encoders[] = {
    {N256, P("output=der,structure=PrivateKeyInfo"), enc256_pki_der, "gostx"},
    {N256, P("output=pem,structure=PrivateKeyInfo"), enc256_pki_pem, "gostx"},
    {N256, P("output=der,structure=SubjectPublicKeyInfo"), enc256_spki_der, "gostx"},
    {N256, P("output=pem,structure=SubjectPublicKeyInfo"), enc256_spki_pem, "gostx"},
    {N256, P("output=text"), enc256_text, "gostx"},
    {N512, P("output=der,structure=PrivateKeyInfo"), enc512_pki_der, "gostx"},
    {N512, P("output=pem,structure=PrivateKeyInfo"), enc512_pki_pem, "gostx"},
    {N512, P("output=der,structure=SubjectPublicKeyInfo"), enc512_spki_der, "gostx"},
    {N512, P("output=pem,structure=SubjectPublicKeyInfo"), enc512_spki_pem, "gostx"},
    {N512, P("output=text"), enc512_text, "gostx"},
    {NULL, NULL, NULL, NULL}};

const OSSL_ALGORITHM prov_decoders[] = {
    {N256, P("input=der,structure=PrivateKeyInfo"), dec256_pki, "gostx"},
    {N256, P("input=der,structure=SubjectPublicKeyInfo"), dec256_spki, "gostx"},
    {N512, P("input=der,structure=PrivateKeyInfo"), dec512_pki, "gostx"},
    {N512, P("input=der,structure=SubjectPublicKeyInfo"), dec512_spki, "gostx"},
    {NULL, NULL, NULL, NULL}};
