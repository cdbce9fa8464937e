/* Encrypted PKCS#8 (PBES2, RFC 8018; the GOST profile of RFC 9337):
 * EncryptedPrivateKeyInfo ::= SEQUENCE { AlgorithmIdentifier, OCTET STRING }
 * with the algorithm PBES2 { keyDerivationFunc PBKDF2 { salt OCTET STRING,
 * iterationCount INTEGER, keyLength INTEGER OPTIONAL, prf { HMAC-Streebog-512,
 * NULL } }, encryptionScheme { Kuznyechik- or Magma-CTR-ACPKM, SEQUENCE { ukm
 * OCTET STRING } } }: what gost-engine writes for `openssl pkcs8 -topk8 -v2
 * kuznyechik-ctr-acpkm -v2prf id-tc26-hmac-gost-3411-2012-512` and reads
 * back. The pieces are shared with lib/pkcs12 (pbes2.h), which also writes
 * GOST 28147-89 CFB. Read only here: GOST 28147-89 CFB (`-v2 gost89`), and the PRF
 * HMAC-SHA256, OpenSSL's default, which gost-engine writes when -v2prf is
 * not given (kdf/sha256.c). The key is
 * PBKDF2's 32 bytes; the CTR IV is the ukm's first n/2
 * bytes (the rest, 8 bytes, is written zero, as gost-engine does, and not
 * used). A PrivateKeyInfo is at most ~110 bytes, shorter than any ACPKM
 * section; a PKCS#12 part can be longer (ACPKM_SECTION). */
#include <stdio.h>
#include <string.h>

#include "gost3410/pbes2.h"
#include "des3/des3.h"
#include "kdf/pbkdf2.h"
#include "kdf/sha256.h"

#define OID_PBES2 "1.2.840.113549.1.5.13"
#define OID_PBKDF2 "1.2.840.113549.1.5.12"
#define OID_HMAC_STREEBOG512 "1.2.643.7.1.1.4.2"
#define OID_HMAC_SHA256 "1.2.840.113549.2.9" /* read only: OpenSSL's default PRF */
#define OID_HMAC_GOST94 "1.2.643.2.2.10"     /* read only: certtool's with gost28147-cpa */
#define OID_DES3_CBC "1.2.840.113549.3.7"    /* read only: certtool's --pkcs-cipher 3des */
#define OID_KUZ_CTR_ACPKM "1.2.643.7.1.1.5.2.1"
#define OID_MAGMA_CTR_ACPKM "1.2.643.7.1.1.5.1.1"
/* CTR-ACPKM's section: RFC 9337 leaves it to the protocol; gost-engine's
 * ciphers use 4096 bytes for Kuznyechik and 1024 for Magma (seen on PKCS#12
 * parts longer than either: tests/test_pkcs12_interop.sh). */
#define ACPKM_SECTION(alg) ((alg) == GOSTX_ALG_KUZNYECHIK ? 4096u : 1024u)
#define OID_KUZ_CTR_ACPKM_OMAC "1.2.643.7.1.1.5.2.2"
#define OID_MAGMA_CTR_ACPKM_OMAC "1.2.643.7.1.1.5.1.2"
#define OID_GOST89_CFB "1.2.643.2.2.21" /* gost-engine's -v2 gost89; written in PKCS#12 */
#define OID_SBOX_Z "1.2.643.7.1.2.5.1.1" /* id-tc26-gost-28147-param-Z */

/* Names for the schemes users meet, in refusals (gostx_gost3410_key_encryption). */
static const struct {
  const char *oid, *name;
} scheme_names[] = {
    {OID_PBES2, "PBES2"},
    {OID_PBKDF2, "PBKDF2"},
    {"1.2.840.113549.2.7", "hmacWithSHA1"},
    {"1.2.840.113549.2.8", "hmacWithSHA224"},
    {OID_HMAC_SHA256, "hmacWithSHA256"},
    {"1.2.840.113549.2.10", "hmacWithSHA384"},
    {"1.2.840.113549.2.11", "hmacWithSHA512"},
    {"1.2.643.7.1.1.4.1", "HMAC-Streebog-256"},
    {OID_HMAC_STREEBOG512, "HMAC-Streebog-512"},
    {"2.16.840.1.101.3.4.1.2", "aes-128-cbc"},
    {"2.16.840.1.101.3.4.1.22", "aes-192-cbc"},
    {"2.16.840.1.101.3.4.1.42", "aes-256-cbc"},
    {OID_DES3_CBC, "des-ede3-cbc"},
    {OID_HMAC_GOST94, "HMAC-GOST R 34.11-94"},
    {OID_GOST89_CFB, "GOST 28147-89 CFB"},
    {OID_KUZ_CTR_ACPKM, "kuznyechik-ctr-acpkm"},
    {OID_KUZ_CTR_ACPKM_OMAC, "kuznyechik-ctr-acpkm-omac"},
    {OID_MAGMA_CTR_ACPKM, "magma-ctr-acpkm"},
    {OID_MAGMA_CTR_ACPKM_OMAC, "magma-ctr-acpkm-omac"},
    {"1.2.840.113549.1.12.1.3", "PKCS#12 pbeWithSHAAnd3-KeyTripleDES-CBC"},
    {"1.2.840.113549.1.12.1.6", "PKCS#12 pbeWithSHAAnd40BitRC2-CBC"},
    {"1.2.840.113549.1.5.3", "PBES1 pbeWithMD5AndDES-CBC"},
    {"1.2.840.113549.1.5.10", "PBES1 pbeWithSHA1AndDES-CBC"},
};

static const char *scheme_name(const char *oid) {
  for (size_t i = 0; i < sizeof scheme_names / sizeof scheme_names[0]; i++)
    if (!strcmp(oid, scheme_names[i].oid)) return scheme_names[i].name;
  return NULL;
}

/* Appends sep and the OID's name (its dotted text when unnamed) to
 * text[cap] at *n, truncating at cap - 1. */
static void name_oid(char *text, size_t cap, size_t *n, const char *sep, const char *oid) {
  const char *name = scheme_name(oid);
  int k = name ? snprintf(text + *n, cap - *n, "%s%s", sep, name)
               : snprintf(text + *n, cap - *n, "%s%s", sep, oid);
  if (k > 0) *n = *n + (size_t)k < cap ? *n + (size_t)k : cap - 1;
}


int gostx__pbes2_parse(gostx__der alg, gostx__pbes2 *p) {
  gostx__der params, kdf, kdfp, enc, encp, prf, np;
  char oid[GOSTX__KEY_OID_TEXT_MAX];
  size_t dn = 0;
  int rc;
  uint32_t key_len = GOSTX_KEY_LEN;
  int has_key_len = 0;
  p->desc[0] = 0;
  p->prf = GOSTX__PBES2_PRF_STREEBOG512;
  p->des3 = 0;
  if ((rc = gostx__key_get_oid(&alg, oid))) return rc;
  name_oid(p->desc, sizeof p->desc, &dn, "", oid);
  if (strcmp(oid, OID_PBES2)) return GOSTX_EUNSUP;
  if (gostx__der_get(&alg, GOSTX__DER_SEQ, &params, NULL) || !gostx__der_done(&alg) ||
      gostx__der_get(&params, GOSTX__DER_SEQ, &kdf, NULL) ||
      gostx__der_get(&params, GOSTX__DER_SEQ, &enc, NULL) || !gostx__der_done(&params))
    return GOSTX_EFORMAT;
  if ((rc = gostx__key_get_oid(&kdf, oid))) return rc;
  name_oid(p->desc, sizeof p->desc, &dn, ": ", oid);
  int kdf_ok = !strcmp(oid, OID_PBKDF2);
  const char *prf_oid = "1.2.840.113549.2.7"; /* PBKDF2's default PRF: hmacWithSHA1 */
  if (kdf_ok) {
    if (gostx__der_get(&kdf, GOSTX__DER_SEQ, &kdfp, NULL) || !gostx__der_done(&kdf) ||
        gostx__der_get(&kdfp, GOSTX__DER_OCTETS, &p->salt, NULL))
      return GOSTX_EFORMAT;
    if ((rc = gostx__der_u32(&kdfp, &p->iter))) return rc;
    if (gostx__der_peek(&kdfp, GOSTX__DER_INT)) { /* checked against the cipher's below */
      if ((rc = gostx__der_u32(&kdfp, &key_len))) return rc;
      has_key_len = 1;
    }
    if (!gostx__der_done(&kdfp)) {
      if (gostx__der_get(&kdfp, GOSTX__DER_SEQ, &prf, NULL) || !gostx__der_done(&kdfp) ||
          gostx__key_get_oid(&prf, oid))
        return GOSTX_EFORMAT;
      if (!gostx__der_done(&prf) &&
          (gostx__der_get(&prf, GOSTX__DER_NULL, &np, NULL) || np.n || !gostx__der_done(&prf)))
        return GOSTX_EFORMAT;
      prf_oid = oid;
    }
    name_oid(p->desc, sizeof p->desc, &dn, " with ", prf_oid);
    p->prf = !strcmp(prf_oid, OID_HMAC_SHA256)   ? GOSTX__PBES2_PRF_SHA256
             : !strcmp(prf_oid, OID_HMAC_GOST94) ? GOSTX__PBES2_PRF_GOST94
                                                 : GOSTX__PBES2_PRF_STREEBOG512;
    kdf_ok = p->prf != GOSTX__PBES2_PRF_STREEBOG512 || !strcmp(prf_oid, OID_HMAC_STREEBOG512);
  }
  if ((rc = gostx__key_get_oid(&enc, oid))) return rc;
  name_oid(p->desc, sizeof p->desc, &dn, ", ", oid);
  size_t n;
  p->sbox = -1;
  p->omac = !strcmp(oid, OID_KUZ_CTR_ACPKM_OMAC) || !strcmp(oid, OID_MAGMA_CTR_ACPKM_OMAC);
  if (!strcmp(oid, OID_KUZ_CTR_ACPKM) || !strcmp(oid, OID_KUZ_CTR_ACPKM_OMAC))
    p->alg = GOSTX_ALG_KUZNYECHIK, n = 16;
  else if (!strcmp(oid, OID_MAGMA_CTR_ACPKM) || !strcmp(oid, OID_MAGMA_CTR_ACPKM_OMAC))
    p->alg = GOSTX_ALG_MAGMA, n = 8;
  else if (!strcmp(oid, OID_GOST89_CFB))
    p->alg = GOSTX_ALG_MAGMA, n = 8, p->sbox = 0;
  else if (!strcmp(oid, OID_DES3_CBC))
    p->alg = GOSTX_ALG_MAGMA, n = 16, p->des3 = 1; /* alg unused; n/2: the IV's 8 bytes */
  else
    return GOSTX_EUNSUP;
  if (!kdf_ok) return GOSTX_EUNSUP;
  if (has_key_len && key_len != (p->des3 ? GOSTX__DES3_KEY_LEN : GOSTX_KEY_LEN)) return GOSTX_EUNSUP;
  if (p->des3) { /* des-ede3-cbc's parameters: the IV, an OCTET STRING */
    if (gostx__der_get(&enc, GOSTX__DER_OCTETS, &p->ukm, NULL) || !gostx__der_done(&enc) ||
        p->ukm.n != GOSTX__DES3_BLOCK)
      return GOSTX_EFORMAT;
    return p->iter == 0 || p->salt.n == 0 ? GOSTX_EFORMAT
           : p->iter > GOSTX__PBES2_ITER_MAX ? GOSTX_EUNSUP
                                             : 0;
  }
  if (gostx__der_get(&enc, GOSTX__DER_SEQ, &encp, NULL) || !gostx__der_done(&enc) ||
      gostx__der_get(&encp, GOSTX__DER_OCTETS, &p->ukm, NULL))
    return GOSTX_EFORMAT;
  if (p->sbox >= 0) { /* Gost28147-89-Parameters ::= SEQUENCE { iv, encryptionParamSet } */
    if (gostx__key_get_oid(&encp, oid) || !gostx__der_done(&encp) || p->ukm.n != 8)
      return GOSTX_EFORMAT;
    name_oid(p->desc, sizeof p->desc, &dn, " ", oid);
    if ((p->sbox = gostx_sbox_by_name(oid)) < 0) return GOSTX_EUNSUP;
  } else if (!gostx__der_done(&encp)) {
    return GOSTX_EFORMAT;
  }
  if (p->ukm.n < n / 2) return GOSTX_EFORMAT; /* the IV */
  if (p->omac && p->ukm.n != n / 2 + 8) return GOSTX_EFORMAT; /* the IV, KDF_TREE's seed */
  if (p->iter == 0 || p->salt.n == 0) return GOSTX_EFORMAT;
  if (p->iter > GOSTX__PBES2_ITER_MAX) return GOSTX_EUNSUP;
  return 0;
}

/* An EncryptedPrivateKeyInfo ::= SEQUENCE { AlgorithmIdentifier, OCTET
 * STRING }: its PBES2 parameters and *data, the ciphertext. */
static int parse_epki(const uint8_t *der, size_t der_len, gostx__pbes2 *p, gostx__der *data) {
  gostx__der all = {der, der_len}, body, alg;
  p->desc[0] = 0;
  if (gostx__der_get(&all, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&all) ||
      gostx__der_get(&body, GOSTX__DER_SEQ, &alg, NULL) ||
      gostx__der_get(&body, GOSTX__DER_OCTETS, data, NULL) || !gostx__der_done(&body))
    return GOSTX_EFORMAT;
  int rc = gostx__pbes2_parse(alg, p);
  if (!rc && (data->n == 0 || data->n > GOSTX_GOST3410_DER_MAX)) rc = GOSTX_EFORMAT;
  return rc;
}

int gostx__pbes2_scheme(const uint8_t *der, size_t der_len, char *text, size_t cap) {
  gostx__pbes2 p;
  gostx__der data;
  if (!der || !text || !cap) return GOSTX_EINVAL;
  int rc = parse_epki(der, der_len, &p, &data);
  if (rc == GOSTX_EFORMAT) return rc;
  snprintf(text, cap, "%s", p.desc);
  return rc;
}

size_t gostx__pbes2_tag_len(const gostx__pbes2 *p) {
  return p->omac ? (p->alg == GOSTX_ALG_KUZNYECHIK ? 16 : 8) : 0;
}

int gostx__pbes2_plain_len(const gostx__pbes2 *p, const uint8_t *out, size_t len, size_t *n) {
  if (p->des3) return gostx__cbc_unpad8(out, len, n);
  if (len < gostx__pbes2_tag_len(p)) return GOSTX_EFORMAT;
  *n = len - gostx__pbes2_tag_len(p);
  return 0;
}

/* CTR-ACPKM-OMAC (RFC 9337 5.1.1 step 8, 5.1.2 step 5): K(1) || K(2) =
 * KDF_TREE(key, "kdf tree", the ukm's last 8 bytes, R = 1); the OMAC of
 * the message under K(2) is appended, and the whole encrypted under K(1).
 * Decrypting, len counts the tag: the message is out[0..len - n], and a
 * tag that does not match is GOSTX_EAUTH. */
static int ctr_omac(const gostx__pbes2 *p, const uint8_t *key, int decrypt, const uint8_t *in,
                    size_t len, uint8_t *out) {
  size_t n = gostx__pbes2_tag_len(p), iv = n / 2;
  uint8_t keys[64], tag[16];
  gostx_cipher enc, mac;
  memset(&enc, 0, sizeof enc);
  memset(&mac, 0, sizeof mac);
  if (decrypt && len < n) return GOSTX_EFORMAT;
  size_t msg = decrypt ? len - n : len;
  int rc = gostx_kdf_tree256(key, GOSTX_KEY_LEN, (const uint8_t *)"kdf tree", 8, p->ukm.p + iv, 8,
                             1, keys, sizeof keys);
  if (!rc) rc = gostx_cipher_init(&enc, p->alg, keys);
  if (!rc) rc = gostx_cipher_init(&mac, p->alg, keys + 32);
  if (!rc && !decrypt) { /* M || OMAC(M), then encrypted (in == out allowed) */
    rc = gostx_omac(&mac, in, len, tag, n);
    if (!rc && out != in) memmove(out, in, len);
    if (!rc) memcpy(out + len, tag, n);
    if (!rc) rc = gostx_ctr_acpkm_crypt(&enc, p->ukm.p, iv, ACPKM_SECTION(p->alg), out, len + n, out);
  } else if (!rc) {
    rc = gostx_ctr_acpkm_crypt(&enc, p->ukm.p, iv, ACPKM_SECTION(p->alg), in, len, out);
    if (!rc) rc = gostx_omac(&mac, out, msg, tag, n);
    if (!rc && gostx_memeq_ct(tag, out + msg, n)) rc = GOSTX_EAUTH;
  }
  gostx_cipher_clear(&enc);
  gostx_cipher_clear(&mac);
  gostx_memzero(keys, sizeof keys);
  return rc;
}

/* key = PBKDF2-HMAC-Streebog-512(pass, salt, iter), 32 bytes (or with
 * the PRF the file names; 3DES: 24 bytes, then CBC); then CTR-ACPKM over in[len] (encrypt =
 * decrypt), CTR-ACPKM-OMAC, or with sbox >= 0 GOST 28147-89 CFB with that
 * parameter set and CryptoPro key meshing every 1024 bytes, as
 * gost-engine's gost89 cipher does (a PKCS#12 certificate bag can be that
 * long). */
int gostx__pbes2_crypt(const gostx__pbes2 *p, const uint8_t *pass, size_t pass_len, int decrypt,
                       const uint8_t *in, size_t len, uint8_t *out) {
  uint8_t key[GOSTX_KEY_LEN];
  gostx_cipher c;
  gostx_gost89_key g;
  memset(&c, 0, sizeof c);
  memset(&g, 0, sizeof g);
  size_t n = p->alg == GOSTX_ALG_KUZNYECHIK ? 16 : 8;
  if (p->des3 && (!decrypt || !len || len % GOSTX__DES3_BLOCK))
    return decrypt ? GOSTX_EFORMAT : GOSTX_EINVAL; /* read only */
  int rc = (p->prf == GOSTX__PBES2_PRF_SHA256   ? gostx__pbkdf2_sha256
            : p->prf == GOSTX__PBES2_PRF_GOST94 ? gostx__pbkdf2_gost94
                                                : gostx_pbkdf2_streebog512)(
      pass, pass_len, p->salt.p, p->salt.n, p->iter, key, p->des3 ? GOSTX__DES3_KEY_LEN : sizeof key);
  if (!rc && p->des3) {
    rc = gostx__des3_cbc_decrypt(key, p->ukm.p, in, len, out);
  } else if (!rc && p->omac) {
    rc = ctr_omac(p, key, decrypt, in, len, out);
  } else if (!rc && p->sbox >= 0) {
    rc = gostx_gost89_set_key(&g, key, (gostx_sbox)p->sbox);
    if (!rc) rc = gostx_gost89_cfb(&g, p->ukm.p, 1, decrypt, in, len, out);
  } else if (!rc) {
    rc = gostx_cipher_init(&c, p->alg, key);
    if (!rc) rc = gostx_ctr_acpkm_crypt(&c, p->ukm.p, n / 2, ACPKM_SECTION(p->alg), in, len, out);
  }
  gostx_cipher_clear(&c);
  gostx_memzero(&g, sizeof g);
  gostx_memzero(key, sizeof key);
  return rc;
}

int gostx__pbes2_new(gostx__pbes2 *p, gostx__pbes2_cipher cipher, uint32_t iter,
                     uint8_t salt[16], uint8_t ukm[16]) {
  if (iter == 0 || iter > GOSTX__PBES2_ITER_MAX) return GOSTX_EINVAL;
  memset(p, 0, sizeof *p);
  memset(ukm, 0, 16);
  p->iter = iter;
  p->sbox = -1;
  size_t iv_len;
  switch (cipher) {
    case GOSTX__PBES2_KUZNYECHIK: p->alg = GOSTX_ALG_KUZNYECHIK, iv_len = 8; break;
    case GOSTX__PBES2_MAGMA: p->alg = GOSTX_ALG_MAGMA, iv_len = 4; break;
    case GOSTX__PBES2_GOST89: p->alg = GOSTX_ALG_MAGMA, iv_len = 8, p->sbox = GOSTX_SBOX_TC26_Z; break;
    case GOSTX__PBES2_KUZNYECHIK_OMAC: p->alg = GOSTX_ALG_KUZNYECHIK, iv_len = 8, p->omac = 1; break;
    case GOSTX__PBES2_MAGMA_OMAC: p->alg = GOSTX_ALG_MAGMA, iv_len = 4, p->omac = 1; break;
    default: return GOSTX_EINVAL;
  }
  p->salt = (gostx__der){salt, 16};
  /* CTR-ACPKM: the IV, then 8 zero bytes; GOST 28147-89: the 8-byte IV */
  p->ukm = (gostx__der){ukm, p->sbox >= 0 ? 8 : iv_len + 8};
  int rc = gostx_random_bytes(salt, 16);
  if (!rc) rc = gostx_random_bytes(ukm, p->omac ? iv_len + 8 : iv_len);
  return rc;
}

void gostx__pbes2_put(gostx__der_w *w, const gostx__pbes2 *p) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, OID_PBES2);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ); /* keyDerivationFunc */
  gostx__der_w_oid(w, OID_PBKDF2);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, p->salt.p, p->salt.n);
  gostx__der_w_u32(w, p->iter);
  gostx__der_w_begin(w, GOSTX__DER_SEQ); /* prf */
  gostx__der_w_oid(w, OID_HMAC_STREEBOG512);
  gostx__der_w_tlv(w, GOSTX__DER_NULL, NULL, 0);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_begin(w, GOSTX__DER_SEQ); /* encryptionScheme */
  if (p->sbox >= 0) { /* Gost28147-89-Parameters ::= SEQUENCE { iv, encryptionParamSet } */
    gostx__der_w_oid(w, OID_GOST89_CFB);
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    gostx__der_w_tlv(w, GOSTX__DER_OCTETS, p->ukm.p, p->ukm.n);
    gostx__der_w_oid(w, OID_SBOX_Z);
  } else {
    gostx__der_w_oid(w, p->alg == GOSTX_ALG_KUZNYECHIK
                            ? (p->omac ? OID_KUZ_CTR_ACPKM_OMAC : OID_KUZ_CTR_ACPKM)
                            : (p->omac ? OID_MAGMA_CTR_ACPKM_OMAC : OID_MAGMA_CTR_ACPKM));
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    gostx__der_w_tlv(w, GOSTX__DER_OCTETS, p->ukm.p, p->ukm.n);
  }
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

int gostx__pbes2_write(const gostx_gost3410_key *k, const gostx_gost3410_pbe_params *pbe,
                       uint8_t *out, size_t cap, size_t *out_len) {
  if (!pbe || (!pbe->pass && pbe->pass_len)) return GOSTX_EINVAL;
  if (pbe->cipher != GOSTX_GOST3410_PBE_KUZNYECHIK && pbe->cipher != GOSTX_GOST3410_PBE_MAGMA)
    return GOSTX_EINVAL;
  size_t ct_len;
  uint8_t ct[GOSTX_GOST3410_DER_MAX], salt[16], ukm[16];
  gostx__pbes2 p;
  int rc = gostx__pkcs8_write(k, ct, sizeof ct, &ct_len);
  if (!rc)
    rc = gostx__pbes2_new(&p,
                          pbe->cipher == GOSTX_GOST3410_PBE_KUZNYECHIK ? GOSTX__PBES2_KUZNYECHIK
                                                                       : GOSTX__PBES2_MAGMA,
                          pbe->iterations, salt, ukm);
  /* in place: the ciphertext replaces the PrivateKeyInfo */
  if (!rc) rc = gostx__pbes2_crypt(&p, pbe->pass, pbe->pass_len, 0, ct, ct_len, ct);
  if (rc) {
    gostx_memzero(ct, sizeof ct);
    return rc;
  }
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  gostx__der_w w;
  gostx__der_w_init(&w, der, sizeof der);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__pbes2_put(&w, &p);
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, ct, ct_len); /* encryptedData */
  gostx__der_w_end(&w);
  rc = gostx__key_emit(&w, der, out, cap, out_len);
  gostx_memzero(ct, sizeof ct);
  return rc;
}

int gostx__pbes2_read(gostx_gost3410_key *k, const uint8_t *der, size_t der_len,
                      const uint8_t *pass, size_t pass_len) {
  if (!pass && pass_len) return GOSTX_EINVAL;
  if (der_len > GOSTX_GOST3410_DER_MAX) return GOSTX_EFORMAT;
  gostx__pbes2 p;
  gostx__der data;
  int rc = parse_epki(der, der_len, &p, &data);
  if (rc) return rc;
  uint8_t plain[GOSTX_GOST3410_DER_MAX];
  gostx_gost3410_key got;
  rc = gostx__pbes2_crypt(&p, pass, pass_len, 1, data.p, data.n, plain);
  /* CTR has no integrity check: a wrong password shows as a decryption
   * that is not a valid private key of ours. Any such failure is GOSTX_EAUTH
   * (wrong password, or a damaged file). */
  size_t n = 0;
  if (!rc) rc = gostx__pbes2_plain_len(&p, plain, data.n, &n);
  if (!rc) {
    rc = gostx__key_from_der(&got, plain, n);
    if (rc || !got.has_private) rc = GOSTX_EAUTH;
  }
  if (!rc) *k = got; /* written only on success */
  gostx_memzero(plain, sizeof plain);
  gostx_memzero(&got, sizeof got);
  return rc;
}
