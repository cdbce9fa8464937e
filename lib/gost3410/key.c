/* The key object (include/gostx/gost3410.h): one reader for every key file
 * (DER or PEM; PKCS#8, SubjectPublicKeyInfo, PBES2) and one writer. */
#include <string.h>

#include "gost3410/ec.h"
#include "gost3410/key_internal.h"
#include "gost3410/keys_der.h"

void gostx_gost3410_key_clear(gostx_gost3410_key *key) {
  if (key) gostx_memzero(key, sizeof *key);
}

/* The curve's size and oid kept (checked to name the curve). */
static int key_start(gostx_gost3410_key *k, gostx_gost3410_curve curve, const char *oid) {
  const char *ps;
  memset(k, 0, sizeof *k);
  k->curve = curve;
  k->len = gostx_gost3410_size(curve);
  if (!k->len || gostx__key_paramset_oid(curve, oid, &ps)) return GOSTX_EINVAL;
  if (oid) memcpy(k->oid, oid, strlen(oid) + 1); /* paramset_oid checked its length */
  return 0;
}

int gostx_gost3410_key_set_private(gostx_gost3410_key *key, gostx_gost3410_curve curve,
                                   const uint8_t *d, size_t d_len, const char *oid) {
  gostx_gost3410_key k;
  if (!key || !d) return GOSTX_EINVAL;
  int rc = key_start(&k, curve, oid);
  /* 0 < d < q and the length, the library's way; Q with it */
  if (!rc) rc = gostx_gost3410_public_key(curve, d, d_len, k.q, 2 * k.len);
  if (!rc) {
    memcpy(k.d, d, k.len);
    k.has_private = 1;
    *key = k;
  }
  gostx_memzero(&k, sizeof k);
  return rc;
}

int gostx_gost3410_key_set_public(gostx_gost3410_key *key, gostx_gost3410_curve curve,
                                  const uint8_t *q, size_t q_len, const char *oid) {
  gostx_gost3410_key k;
  if (!key || !q) return GOSTX_EINVAL;
  int rc = key_start(&k, curve, oid);
  if (!rc) rc = gostx_gost3410_check_public_key(curve, q, q_len);
  if (!rc) {
    memcpy(k.q, q, 2 * k.len);
    *key = k;
  }
  return rc;
}

int gostx_gost3410_key_set_external(gostx_gost3410_key *key, gostx_gost3410_curve curve,
                                    const uint8_t *q, size_t q_len, const char *oid,
                                    const gostx_gost3410_key_ops *ops, void *ctx) {
  gostx_gost3410_key k;
  if (!ops || !ops->sign) return GOSTX_EINVAL;
  int rc = gostx_gost3410_key_set_public(&k, curve, q, q_len, oid);
  if (!rc) {
    k.ops = ops;
    k.ops_ctx = ctx;
    *key = k;
  }
  return rc;
}

int gostx__key_from_d(gostx_gost3410_key *key, gostx_gost3410_curve curve, const uint8_t *d,
                      size_t d_len) {
  size_t len = gostx_gost3410_size(curve);
  memset(key, 0, sizeof *key);
  if (!len || !d) return GOSTX_EINVAL;
  if (d_len != len) return GOSTX_ELEN;
  key->curve = curve;
  key->len = len;
  key->has_private = 1;
  memcpy(key->d, d, len);
  return 0;
}

int gostx_gost3410_key_is_private(const gostx_gost3410_key *key) {
  /* ops without sign is no key set_external made: never called */
  return key && (key->ops ? key->ops->sign != NULL : key->has_private);
}

/* The key's own length matches its curve: the struct is the caller's. */
static int key_usable(const gostx_gost3410_key *key) {
  return gostx_gost3410_key_is_private(key) && key->len && key->len == gostx_gost3410_size(key->curve);
}

int gostx__key_sign_k(const gostx_gost3410_key *key, const uint8_t *digest, size_t digest_len,
                      const uint8_t *k, size_t k_len, uint8_t *sig, size_t sig_len) {
  if (!key_usable(key) || !digest || !sig) return GOSTX_EINVAL;
  /* Every signer here hashes with Streebog and labels GOST R 34.10-2012:
   * a 2001 key's signature would be named for an algorithm it is not. */
  if (key->gost2001) return GOSTX_EUNSUP;
  if (!key->ops)
    return k ? gostx_gost3410_sign_with_k(key->curve, key->d, key->len, digest, digest_len, k,
                                          k_len, sig, sig_len)
             : gostx_gost3410_sign(key->curve, key->d, key->len, digest, digest_len, sig, sig_len);
  if (digest_len != key->len || sig_len != 2 * key->len) return GOSTX_ELEN;
  /* the callback writes into our buffer: a failed one releases nothing */
  uint8_t tmp[128];
  int rc = key->ops->sign(key->ops_ctx, digest, digest_len, tmp, sig_len);
  if (!rc) memcpy(sig, tmp, sig_len);
  gostx_memzero(tmp, sizeof tmp);
  return rc;
}

int gostx_gost3410_key_sign(const gostx_gost3410_key *key, const uint8_t *digest,
                            size_t digest_len, uint8_t *sig, size_t sig_len) {
  return gostx__key_sign_k(key, digest, digest_len, NULL, 0, sig, sig_len);
}

int gostx_gost3410_key_vko(const gostx_gost3410_key *key, const uint8_t *peer_pub, size_t pub_len,
                           const uint8_t *ukm, size_t ukm_len, uint8_t *out, size_t out_len) {
  if (!key_usable(key)) return GOSTX_EINVAL;
  if (!key->ops)
    return gostx_gost3410_vko(key->curve, key->d, key->len, peer_pub, pub_len, ukm, ukm_len, out,
                              out_len);
  if (!key->ops->vko) return GOSTX_EUNSUP;
  /* gostx_gost3410_vko's checks of the public inputs, made before the call */
  if (!ukm || !out) return GOSTX_EINVAL;
  if (ukm_len < 1 || ukm_len > key->len || (out_len != 32 && out_len != 64)) return GOSTX_ELEN;
  int rc = gostx_gost3410_check_public_key(key->curve, peer_pub, pub_len);
  uint8_t tmp[64];
  if (!rc) rc = key->ops->vko(key->ops_ctx, peer_pub, pub_len, ukm, ukm_len, tmp, out_len);
  if (!rc) memcpy(out, tmp, out_len);
  gostx_memzero(tmp, sizeof tmp);
  return rc;
}

static int key_vko(const void *ctx, const uint8_t *peer_pub, size_t pub_len, const uint8_t *ukm,
                   size_t ukm_len, uint8_t *out, size_t out_len) {
  return gostx_gost3410_key_vko(ctx, peer_pub, pub_len, ukm, ukm_len, out, out_len);
}

int gostx_gost3410_key_keg(const gostx_gost3410_key *key, const uint8_t *peer_pub, size_t pub_len,
                           const uint8_t *h, size_t h_len, uint8_t *out, size_t out_len) {
  if (!key_usable(key)) return GOSTX_EINVAL;
  if (key->ops && !key->ops->vko) return GOSTX_EUNSUP;
  return gostx__keg(key->len, key_vko, key, peer_pub, pub_len, h, h_len, out, out_len);
}

/* PEM is text that is not DER: DER keys start with a SEQUENCE. */
static int is_pem(const uint8_t *in, size_t len) { return len && in[0] != GOSTX__DER_SEQ; }

/* The DER of in (itself, or its first key block's) and its kind when it is
 * PEM (0 for DER: the reader tells). */
static int der_of(const uint8_t *in, size_t len, uint8_t *der, size_t cap, const uint8_t **out,
                  size_t *out_len, int *pem_kind) {
  *pem_kind = 0;
  if (!is_pem(in, len)) {
    *out = in;
    *out_len = len;
    return 0;
  }
  *out = der;
  return gostx__key_pem_der((const char *)in, len, pem_kind, der, cap, out_len);
}

int gostx_gost3410_key_is_encrypted(const void *in, size_t in_len) {
  uint8_t buf[GOSTX_GOST3410_DER_MAX];
  const uint8_t *der;
  size_t n;
  int kind;
  char text[8];
  if (!in || der_of(in, in_len, buf, sizeof buf, &der, &n, &kind)) return 0;
  if (kind) return kind == GOSTX__KEY_PEM_ENCRYPTED;
  return gostx__pbes2_scheme(der, n, text, sizeof text) != GOSTX_EFORMAT;
}

int gostx_gost3410_key_encryption(const void *in, size_t in_len, char *text, size_t cap) {
  uint8_t buf[GOSTX_GOST3410_DER_MAX];
  const uint8_t *der;
  size_t n;
  int kind;
  if (!in || !text || !cap) return GOSTX_EINVAL;
  if (der_of(in, in_len, buf, sizeof buf, &der, &n, &kind) ||
      (kind && kind != GOSTX__KEY_PEM_ENCRYPTED))
    return GOSTX_EFORMAT;
  return gostx__pbes2_scheme(der, n, text, cap);
}

int gostx_gost3410_key_read(gostx_gost3410_key *key, const void *in, size_t in_len,
                            const uint8_t *pass, size_t pass_len) {
  uint8_t buf[GOSTX_GOST3410_DER_MAX];
  const uint8_t *der;
  size_t n = 0;
  int kind;
  if (!key || !in || (!pass && pass_len)) return GOSTX_EINVAL;
  int rc = der_of(in, in_len, buf, sizeof buf, &der, &n, &kind);
  if (!rc) {
    int encrypted = kind ? kind == GOSTX__KEY_PEM_ENCRYPTED
                         : gostx__pbes2_scheme(der, n, (char[8]){0}, 8) != GOSTX_EFORMAT;
    /* No password: refused before any work, so that a caller reading
     * untrusted keys (a peer's, a certificate's) never runs the KDF */
    if (encrypted)
      rc = pass ? gostx__pbes2_read(key, der, n, pass, pass_len) : GOSTX_EAUTH;
    else if ((rc = gostx__key_from_der(key, der, n)) == 0 && kind &&
             kind != (key->has_private ? GOSTX_GOST3410_KEY_PRIVATE : GOSTX_GOST3410_KEY_PUBLIC)) {
      gostx_gost3410_key_clear(key); /* the label must say what the DER is */
      rc = GOSTX_EFORMAT;
    }
  }
  gostx_memzero(buf, sizeof buf);
  return rc;
}

int gostx_gost3410_key_write(const gostx_gost3410_key *key, gostx_gost3410_key_kind part,
                             gostx_gost3410_format format, const gostx_gost3410_pbe_params *pbe,
                             void *out, size_t cap, size_t *out_len) {
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t n = 0;
  int rc;
  if (!key || !out_len || (format != GOSTX_GOST3410_DER && format != GOSTX_GOST3410_PEM) ||
      key->len != gostx_gost3410_size(key->curve) || !key->len)
    return GOSTX_EINVAL;
  if (part == GOSTX_GOST3410_KEY_PRIVATE && key->ops) return GOSTX_EUNSUP; /* on its token */
  if (part == GOSTX_GOST3410_KEY_PUBLIC && !pbe)
    rc = gostx__spki_write(key, der, sizeof der, &n);
  else if (part == GOSTX_GOST3410_KEY_PRIVATE)
    rc = pbe ? gostx__pbes2_write(key, pbe, der, sizeof der, &n)
             : gostx__pkcs8_write(key, der, sizeof der, &n);
  else
    rc = GOSTX_EINVAL;
  if (!rc && format == GOSTX_GOST3410_PEM) {
    int kind = pbe ? GOSTX__KEY_PEM_ENCRYPTED : (int)part;
    rc = gostx__key_pem_write(kind, der, n, out, cap, out_len);
  } else if (!rc) {
    *out_len = n;
    if (!out || cap < n)
      rc = GOSTX_ELEN;
    else
      memcpy(out, der, n);
  }
  gostx_memzero(der, sizeof der);
  return rc;
}
