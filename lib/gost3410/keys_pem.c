/* PEM (RFC 7468, through lib/asn1/pem.c) around the DER keys of keys.c. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "asn1/pem.h"

/* The labels by key kind (gostx_gost3410_key_kind, then ENCRYPTED). */
static const char *const label_of[] = {NULL, "PRIVATE KEY", "PUBLIC KEY", "ENCRYPTED PRIVATE KEY"};
enum { ENCRYPTED = 3 };

/* The first block of one of our labels (pem.h's search): its kind. */
static int find_key_block(const char *pem, size_t pem_len, size_t *i, int *kind) {
  int which = 0, rc = gostx__pem_find(pem, pem_len, i, label_of + 1, ENCRYPTED, &which);
  *kind = which + 1;
  return rc;
}

/* The DER of either kind of key, then its PEM. */
static int key_to_pem(int kind, gostx_gost3410_curve curve, const char *oid, const uint8_t *key,
                      size_t key_len, char *out, size_t cap, size_t *out_len) {
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t der_len;
  if (!out_len) return GOSTX_EINVAL;
  int rc = kind == GOSTX_GOST3410_KEY_PRIVATE
               ? gostx_gost3410_priv_to_der_oid(curve, oid, key, key_len, der, sizeof der, &der_len)
               : gostx_gost3410_pub_to_der_oid(curve, oid, key, key_len, der, sizeof der, &der_len);
  if (!rc) rc = gostx__pem_write(label_of[kind], der, der_len, out, cap, out_len);
  gostx_memzero(der, sizeof der);
  return rc;
}

int gostx_gost3410_priv_to_pem_oid(gostx_gost3410_curve curve, const char *oid,
                                   const uint8_t *priv, size_t priv_len, char *out, size_t cap,
                                   size_t *out_len) {
  return key_to_pem(GOSTX_GOST3410_KEY_PRIVATE, curve, oid, priv, priv_len, out, cap, out_len);
}

int gostx_gost3410_pub_to_pem_oid(gostx_gost3410_curve curve, const char *oid, const uint8_t *pub,
                                  size_t pub_len, char *out, size_t cap, size_t *out_len) {
  return key_to_pem(GOSTX_GOST3410_KEY_PUBLIC, curve, oid, pub, pub_len, out, cap, out_len);
}

int gostx_gost3410_priv_to_pem(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                               char *out, size_t cap, size_t *out_len) {
  return key_to_pem(GOSTX_GOST3410_KEY_PRIVATE, curve, NULL, priv, priv_len, out, cap, out_len);
}

int gostx_gost3410_pub_to_pem(gostx_gost3410_curve curve, const uint8_t *pub, size_t pub_len,
                              char *out, size_t cap, size_t *out_len) {
  return key_to_pem(GOSTX_GOST3410_KEY_PUBLIC, curve, NULL, pub, pub_len, out, cap, out_len);
}

int gostx_gost3410_key_from_pem_oid(const char *pem, size_t pem_len,
                                    gostx_gost3410_key_kind *kind, gostx_gost3410_curve *curve,
                                    size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub,
                                    size_t pub_cap, char *oid, size_t oid_cap) {
  if (!pem || !kind || !curve || !len) return GOSTX_EINVAL;
  size_t i = 0, der_len = 0;
  int which = 0, rc = find_key_block(pem, pem_len, &i, &which);
  if (rc) return rc;
  if (which == ENCRYPTED) return GOSTX_EUNSUP; /* well-formed, for the encrypted reader */
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  rc = gostx__pem_body(pem, pem_len, &i, label_of[which], der, sizeof der, &der_len);
  gostx_gost3410_key_kind k = 0;
  gostx_gost3410_curve c = 0;
  size_t l = 0;
  uint8_t d[64], q[128];
  char ps[GOSTX_GOST3410_OID_MAX] = "";
  if (!rc)
    rc = gostx_gost3410_key_from_der_oid(der, der_len, &k, &c, &l, d, sizeof d, q, sizeof q, ps,
                                         sizeof ps);
  if (!rc && (int)k != which) rc = GOSTX_EFORMAT; /* the label must say what the DER is */
  if (!rc && ((priv && k == GOSTX_GOST3410_KEY_PRIVATE && priv_cap < l) || (pub && pub_cap < 2 * l) ||
              (oid && oid_cap <= strlen(ps))))
    rc = GOSTX_ELEN;
  if (!rc) { /* outputs written only on success */
    *kind = k;
    *curve = c;
    *len = l;
    if (priv && k == GOSTX_GOST3410_KEY_PRIVATE) memcpy(priv, d, l);
    if (pub) memcpy(pub, q, 2 * l);
    if (oid) memcpy(oid, ps, strlen(ps) + 1);
  }
  gostx_memzero(d, sizeof d);
  gostx_memzero(der, sizeof der);
  return rc;
}

int gostx_gost3410_key_from_pem(const char *pem, size_t pem_len, gostx_gost3410_key_kind *kind,
                                gostx_gost3410_curve *curve, size_t *len, uint8_t *priv,
                                size_t priv_cap, uint8_t *pub, size_t pub_cap) {
  return gostx_gost3410_key_from_pem_oid(pem, pem_len, kind, curve, len, priv, priv_cap, pub,
                                         pub_cap, NULL, 0);
}

/* ---- encrypted private keys: PEM "ENCRYPTED PRIVATE KEY" around keys.c's DER ---- */

/* The DER inside the first key block when it is "ENCRYPTED PRIVATE KEY"
 * (layout as gostx_gost3410_key_from_pem); GOSTX_EFORMAT for anything else. */
static int encrypted_der(const char *pem, size_t pem_len, uint8_t *der, size_t cap, size_t *der_len) {
  size_t i = 0;
  int which = 0;
  if (find_key_block(pem, pem_len, &i, &which) || which != ENCRYPTED) return GOSTX_EFORMAT;
  return gostx__pem_body(pem, pem_len, &i, label_of[which], der, cap, der_len);
}

int gostx_gost3410_priv_to_encrypted_pem_oid(gostx_gost3410_curve curve, const char *oid,
                                             const uint8_t *priv, size_t priv_len,
                                             const uint8_t *pass, size_t pass_len,
                                             gostx_gost3410_pbe cipher, uint32_t iterations,
                                             char *out, size_t cap, size_t *out_len) {
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t der_len;
  if (!out_len) return GOSTX_EINVAL;
  int rc = gostx_gost3410_priv_to_encrypted_der_oid(curve, oid, priv, priv_len, pass, pass_len,
                                                    cipher, iterations, der, sizeof der, &der_len);
  if (!rc) rc = gostx__pem_write(label_of[ENCRYPTED], der, der_len, out, cap, out_len);
  return rc;
}

int gostx_gost3410_priv_to_encrypted_pem(gostx_gost3410_curve curve, const uint8_t *priv,
                                         size_t priv_len, const uint8_t *pass, size_t pass_len,
                                         gostx_gost3410_pbe cipher, uint32_t iterations,
                                         char *out, size_t cap, size_t *out_len) {
  return gostx_gost3410_priv_to_encrypted_pem_oid(curve, NULL, priv, priv_len, pass, pass_len,
                                                  cipher, iterations, out, cap, out_len);
}

int gostx_gost3410_key_from_encrypted_pem_oid(const char *pem, size_t pem_len,
                                              const uint8_t *pass, size_t pass_len,
                                              gostx_gost3410_curve *curve, size_t *len,
                                              uint8_t *priv, size_t priv_cap, uint8_t *pub,
                                              size_t pub_cap, char *oid, size_t oid_cap) {
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t der_len = 0;
  if (!pem || !curve || !len) return GOSTX_EINVAL;
  int rc = encrypted_der(pem, pem_len, der, sizeof der, &der_len);
  if (!rc)
    rc = gostx_gost3410_key_from_encrypted_der_oid(der, der_len, pass, pass_len, curve, len, priv,
                                                   priv_cap, pub, pub_cap, oid, oid_cap);
  return rc;
}

int gostx_gost3410_key_from_encrypted_pem(const char *pem, size_t pem_len, const uint8_t *pass,
                                          size_t pass_len, gostx_gost3410_curve *curve,
                                          size_t *len, uint8_t *priv, size_t priv_cap,
                                          uint8_t *pub, size_t pub_cap) {
  return gostx_gost3410_key_from_encrypted_pem_oid(pem, pem_len, pass, pass_len, curve, len, priv,
                                                   priv_cap, pub, pub_cap, NULL, 0);
}

int gostx_gost3410_encrypted_scheme_pem(const char *pem, size_t pem_len, char *text, size_t cap) {
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t der_len = 0;
  if (!pem || !text || !cap) return GOSTX_EINVAL;
  int rc = encrypted_der(pem, pem_len, der, sizeof der, &der_len);
  return rc ? rc : gostx_gost3410_encrypted_scheme(der, der_len, text, cap);
}
