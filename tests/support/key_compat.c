/* The key codec's calls of 0.3 (gostx_gost3410_priv_to_der, ...), removed
 * from the library in 0.4.0, kept here as the tests' helpers over the key
 * object: the format tests written against them still run, each a check of
 * gostx_gost3410_key_read / _key_write (key_compat.h). */
#include <string.h>

#include "key_compat.h"
#include "gostx/pkcs12.h"
#include "gostx/tls.h"
#include "gost3410/key_internal.h"
#include "gost3410/keys_der.h"
#include "tls/tls12_internal.h"

/* ---- writers ---- */

static int write_key(gostx_gost3410_curve curve, const char *oid, const uint8_t *key,
                     size_t key_len, gostx_gost3410_key_kind part, gostx_gost3410_format format,
                     const gostx_gost3410_pbe_params *pbe, void *out, size_t cap,
                     size_t *out_len) {
  gostx_gost3410_key k;
  if (!key || !out_len) return GOSTX_EINVAL;
  int rc = part == GOSTX_GOST3410_KEY_PRIVATE
               ? gostx_gost3410_key_set_private(&k, curve, key, key_len, oid)
               : gostx_gost3410_key_set_public(&k, curve, key, key_len, oid);
  if (!rc) rc = gostx_gost3410_key_write(&k, part, format, pbe, out, cap, out_len);
  gostx_gost3410_key_clear(&k);
  return rc;
}

/* tk_PART_to_FMT_oid (the key under oid; NULL: the curve's own) and
 * tk_PART_to_FMT (the curve's own), PART priv or pub, FMT der or pem. */
#define TK_WRITER(part, fmt, PART, FMT, out_t)                                                     \
  int tk_##part##_to_##fmt##_oid(gostx_gost3410_curve curve, const char *oid, const uint8_t *key,  \
                                 size_t key_len, out_t *out, size_t cap, size_t *out_len) {        \
    return write_key(curve, oid, key, key_len, GOSTX_GOST3410_KEY_##PART, GOSTX_GOST3410_##FMT,    \
                     NULL, out, cap, out_len);                                                     \
  }                                                                                                \
  int tk_##part##_to_##fmt(gostx_gost3410_curve curve, const uint8_t *key, size_t key_len,         \
                           out_t *out, size_t cap, size_t *out_len) {                              \
    return tk_##part##_to_##fmt##_oid(curve, NULL, key, key_len, out, cap, out_len);               \
  }
TK_WRITER(priv, der, PRIVATE, DER, uint8_t)
TK_WRITER(pub, der, PUBLIC, DER, uint8_t)
TK_WRITER(priv, pem, PRIVATE, PEM, char)
TK_WRITER(pub, pem, PUBLIC, PEM, char)

/* tk_priv_to_encrypted_FMT_oid and tk_priv_to_encrypted_FMT (the curve's
 * OID): the private key under a password (PKCS#8 EncryptedPrivateKeyInfo). */
#define TK_ENCRYPTED_WRITER(fmt, FMT, out_t)                                                       \
  int tk_priv_to_encrypted_##fmt##_oid(gostx_gost3410_curve curve, const char *oid,                \
                                       const uint8_t *priv, size_t priv_len, const uint8_t *pass,  \
                                       size_t pass_len, gostx_gost3410_pbe cipher,                 \
                                       uint32_t iterations, out_t *out, size_t cap,                \
                                       size_t *out_len) {                                          \
    const gostx_gost3410_pbe_params pbe = {cipher, iterations, pass, pass_len};                    \
    return write_key(curve, oid, priv, priv_len, GOSTX_GOST3410_KEY_PRIVATE, GOSTX_GOST3410_##FMT, \
                     &pbe, out, cap, out_len);                                                     \
  }                                                                                                \
  int tk_priv_to_encrypted_##fmt(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len, \
                                 const uint8_t *pass, size_t pass_len, gostx_gost3410_pbe cipher,  \
                                 uint32_t iterations, out_t *out, size_t cap, size_t *out_len) {   \
    return tk_priv_to_encrypted_##fmt##_oid(curve, NULL, priv, priv_len, pass, pass_len, cipher,   \
                                            iterations, out, cap, out_len);                        \
  }
TK_ENCRYPTED_WRITER(der, DER, uint8_t)
TK_ENCRYPTED_WRITER(pem, PEM, char)

/* ---- readers ---- */

/* The key's parts into the caller's buffers (any may be NULL): GOSTX_ELEN
 * when one is too small, and then nothing is written. */
static int key_out(const gostx_gost3410_key *k, gostx_gost3410_key_kind *kind,
                   gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap,
                   uint8_t *pub, size_t pub_cap, char *oid, size_t oid_cap) {
  size_t l = k->len;
  if ((priv && k->has_private && priv_cap < l) || (pub && pub_cap < 2 * l) ||
      (oid && oid_cap <= strlen(k->oid)))
    return GOSTX_ELEN;
  if (kind) *kind = k->has_private ? GOSTX_GOST3410_KEY_PRIVATE : GOSTX_GOST3410_KEY_PUBLIC;
  *curve = k->curve;
  *len = l;
  if (priv && k->has_private) memcpy(priv, k->d, l);
  if (pub) memcpy(pub, k->q, 2 * l);
  if (oid) memcpy(oid, k->oid, strlen(k->oid) + 1);
  return 0;
}

/* A plain key (DER, or PEM's first key block: "ENCRYPTED PRIVATE KEY" is
 * GOSTX_EUNSUP here), or with pass an encrypted one (and only that). */
static int read_key(const void *in, size_t in_len, gostx_gost3410_format format, int encrypted,
                    const uint8_t *pass, size_t pass_len, gostx_gost3410_key *k) {
  uint8_t buf[GOSTX_GOST3410_DER_MAX];
  const uint8_t *der = in;
  size_t n = in_len;
  int kind = 0, rc = 0;
  if (format == GOSTX_GOST3410_PEM) {
    der = buf;
    rc = gostx__key_pem_der(in, in_len, &kind, buf, sizeof buf, &n);
    if (!rc && (kind == GOSTX__KEY_PEM_ENCRYPTED) != encrypted)
      rc = encrypted ? GOSTX_EFORMAT : GOSTX_EUNSUP;
  }
  if (!rc && encrypted) rc = gostx__pbes2_read(k, der, n, pass, pass_len);
  if (!rc && !encrypted) {
    rc = gostx__key_from_der(k, der, n);
    if (!rc && kind &&
        kind != (k->has_private ? GOSTX_GOST3410_KEY_PRIVATE : GOSTX_GOST3410_KEY_PUBLIC))
      rc = GOSTX_EFORMAT; /* the label must say what the DER is */
  }
  gostx_memzero(buf, sizeof buf);
  return rc;
}

static int read_plain(const void *in, size_t in_len, gostx_gost3410_format format,
                      gostx_gost3410_key_kind *kind, gostx_gost3410_curve *curve, size_t *len,
                      uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap, char *oid,
                      size_t oid_cap) {
  gostx_gost3410_key k;
  if (!in || !kind || !curve || !len) return GOSTX_EINVAL;
  int rc = read_key(in, in_len, format, 0, NULL, 0, &k);
  if (!rc) rc = key_out(&k, kind, curve, len, priv, priv_cap, pub, pub_cap, oid, oid_cap);
  gostx_gost3410_key_clear(&k);
  return rc;
}

static int read_encrypted(const void *in, size_t in_len, gostx_gost3410_format format,
                          const uint8_t *pass, size_t pass_len, gostx_gost3410_curve *curve,
                          size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub,
                          size_t pub_cap, char *oid, size_t oid_cap) {
  gostx_gost3410_key k;
  if (!in || !curve || !len || (!pass && pass_len)) return GOSTX_EINVAL;
  int rc = read_key(in, in_len, format, 1, pass, pass_len, &k);
  if (!rc) rc = key_out(&k, NULL, curve, len, priv, priv_cap, pub, pub_cap, oid, oid_cap);
  gostx_gost3410_key_clear(&k);
  return rc;
}

/* tk_key_from_FMT_oid (also the key's OID) and tk_key_from_FMT, FMT der or pem. */
#define TK_READER(fmt, FMT, in_t)                                                                  \
  int tk_key_from_##fmt##_oid(const in_t *in, size_t in_len, gostx_gost3410_key_kind *kind,        \
                              gostx_gost3410_curve *curve, size_t *len, uint8_t *priv,             \
                              size_t priv_cap, uint8_t *pub, size_t pub_cap, char *oid,            \
                              size_t oid_cap) {                                                    \
    return read_plain(in, in_len, GOSTX_GOST3410_##FMT, kind, curve, len, priv, priv_cap, pub,     \
                      pub_cap, oid, oid_cap);                                                      \
  }                                                                                                \
  int tk_key_from_##fmt(const in_t *in, size_t in_len, gostx_gost3410_key_kind *kind,              \
                        gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap,  \
                        uint8_t *pub, size_t pub_cap) {                                            \
    return tk_key_from_##fmt##_oid(in, in_len, kind, curve, len, priv, priv_cap, pub, pub_cap,     \
                                   NULL, 0);                                                       \
  }
TK_READER(der, DER, uint8_t)
TK_READER(pem, PEM, char)

/* The same for an encrypted private key under a password. */
#define TK_ENCRYPTED_READER(fmt, FMT, in_t)                                                        \
  int tk_key_from_encrypted_##fmt##_oid(const in_t *in, size_t in_len, const uint8_t *pass,        \
                                        size_t pass_len, gostx_gost3410_curve *curve, size_t *len, \
                                        uint8_t *priv, size_t priv_cap, uint8_t *pub,              \
                                        size_t pub_cap, char *oid, size_t oid_cap) {               \
    return read_encrypted(in, in_len, GOSTX_GOST3410_##FMT, pass, pass_len, curve, len, priv,      \
                          priv_cap, pub, pub_cap, oid, oid_cap);                                   \
  }                                                                                                \
  int tk_key_from_encrypted_##fmt(const in_t *in, size_t in_len, const uint8_t *pass,              \
                                  size_t pass_len, gostx_gost3410_curve *curve, size_t *len,       \
                                  uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap) {  \
    return tk_key_from_encrypted_##fmt##_oid(in, in_len, pass, pass_len, curve, len, priv,         \
                                             priv_cap, pub, pub_cap, NULL, 0);                     \
  }
TK_ENCRYPTED_READER(der, DER, uint8_t)
TK_ENCRYPTED_READER(pem, PEM, char)

int tk_encrypted_scheme(const uint8_t *der, size_t der_len, char *text, size_t cap) {
  if (!der || !der_len || der[0] != 0x30) return GOSTX_EFORMAT; /* DER only */
  return gostx_gost3410_key_encryption(der, der_len, text, cap);
}

int tk_encrypted_scheme_pem(const char *pem, size_t pem_len, char *text, size_t cap) {
  if (!pem || !pem_len || pem[0] == 0x30) return GOSTX_EFORMAT; /* PEM only */
  return gostx_gost3410_key_encryption(pem, pem_len, text, cap);
}

int tk_tls_set_key(gostx_tls_config *cfg, gostx_gost3410_curve curve, const uint8_t *d,
                   size_t d_len) {
  gostx_gost3410_key k;
  int rc = gostx_gost3410_key_set_private(&k, curve, d, d_len, NULL);
  if (!rc) rc = gostx_tls_config_set_key(cfg, &k);
  gostx_gost3410_key_clear(&k);
  return rc;
}

int tk_pkcs12_key(const gostx_pkcs12 *p, gostx_gost3410_curve *curve, size_t *len, uint8_t *priv,
                  size_t priv_cap, uint8_t *pub, size_t pub_cap, char *oid, size_t oid_cap,
                  size_t *cert_bag) {
  gostx_gost3410_key k;
  if (!curve || !len) return GOSTX_EINVAL;
  int rc = gostx_pkcs12_key(p, &k, cert_bag);
  if (!rc) rc = key_out(&k, NULL, curve, len, priv, priv_cap, pub, pub_cap, oid, oid_cap);
  gostx_gost3410_key_clear(&k);
  return rc;
}

int tk_pkcs12_write(const uint8_t *key, size_t key_len, const uint8_t *const *certs,
                    const size_t *cert_lens, size_t ncerts, const uint8_t *pass, size_t pass_len,
                    const gostx_pkcs12_params *params, uint8_t *out, size_t cap,
                    size_t *out_len) {
  gostx_gost3410_key k;
  if (!key || !params) return GOSTX_EINVAL;
  gostx_pkcs12_params with_pass = *params;
  with_pass.pass = pass, with_pass.pass_len = pass_len;
  int rc = gostx__key_from_der(&k, key, key_len) ? GOSTX_EINVAL : 0;
  if (!rc) rc = gostx_pkcs12_write(&k, certs, cert_lens, ncerts, &with_pass, out, cap, out_len);
  gostx_gost3410_key_clear(&k);
  return rc;
}

int tk_tls12_kimp15(const gostx__tls12_suite *suite, gostx_gost3410_curve curve, const uint8_t *d,
                    size_t d_len, const uint8_t *q, size_t q_len, const uint8_t *h,
                    const uint8_t *in, size_t in_len, uint8_t *pms) {
  gostx_gost3410_key k;
  int rc = gostx__key_from_d(&k, curve, d, d_len);
  if (!rc) rc = gostx__tls12_kimp15(suite, &k, q, q_len, h, in, in_len, pms);
  gostx_gost3410_key_clear(&k);
  return rc;
}

int tk_tls12_kimp28147(gostx_gost3410_curve curve, const uint8_t *d, size_t d_len,
                       const uint8_t *q, size_t q_len, const uint8_t *h, const uint8_t *in,
                       uint8_t *pms) {
  gostx_gost3410_key k;
  int rc = gostx__key_from_d(&k, curve, d, d_len);
  if (!rc) rc = gostx__tls12_kimp28147(&k, q, q_len, h, in, pms);
  gostx_gost3410_key_clear(&k);
  return rc;
}
