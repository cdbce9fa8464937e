/* GOST 28147-89 content encryption in CMS (RFC 4490 section 5.1): CFB
 * with CryptoPro key meshing (RFC 4357 section 2.3.2: a new key every
 * 1024 bytes, as gost-engine's gost89 cipher does), algorithm
 * id-Gost28147-89 with Gost28147-89-Parameters { iv OCTET STRING (8),
 * encryptionParamSet OBJECT IDENTIFIER }. CFB has no MAC: a changed
 * ciphertext decrypts to changed bytes, and nothing here can tell. */
#include "cms/cms_internal.h"
#include "gostx/gost89.h"

#define IV_LEN 8

int gostx__cms89_sbox(gostx__der oid) {
  char text[32];
  if (gostx__der_oid_text(oid, text, sizeof text)) return -1;
  /* the 28147-89 parameter sets (RFC 4357 10.3, TC26's Z); the
   * GOST R 34.11-94 sets share the S-box table but are not these */
  if (strncmp(text, "1.2.643.2.2.31.", 15) && strcmp(text, "1.2.643.7.1.2.5.1.1")) return -1;
  return gostx_sbox_by_name(text);
}

/* The parameters after id-Gost28147-89 in alg; an unknown parameter set
 * leaves the cipher unknown, named by that set's OID. */
int gostx__cms89_read_params(gostx__der *alg, gostx_cms_encrypted_content *ec) {
  gostx__der params, iv, set;
  if (gostx__der_get(alg, GOSTX__DER_SEQ, &params, NULL) || alg->n ||
      gostx__der_get(&params, GOSTX__DER_OCTETS, &iv, NULL) || iv.n != IV_LEN ||
      gostx__der_oid(&params, &set) || params.n)
    return GOSTX_EFORMAT;
  ec->ukm = iv.p, ec->ukm_len = iv.n;
  ec->sbox = gostx__cms89_sbox(set);
  if (ec->sbox < 0) ec->cipher = GOSTX_CMS_CIPHER_UNKNOWN, ec->alg_oid = set.p, ec->alg_oid_len = set.n;
  return 0;
}

/* id-Gost28147-89 with a fresh IV (zeros when count) and TC26 Z: what
 * gost-engine 3.0 writes for GOST R 34.10-2012 recipients (`openssl cms
 * -gost89 -cmsout -print` shows it) and what TK26's CMS examples use. */
int gostx__cms89_write_alg(gostx__der_w *w, int count) {
  uint8_t iv[IV_LEN] = {0};
  int rc = count ? 0 : gostx_random_bytes(iv, sizeof iv);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, "1.2.643.2.2.21");
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, iv, sizeof iv);
  gostx__der_w_oid(w, "1.2.643.7.1.2.5.1.1");
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  return rc;
}

int gostx__cms89_init(gostx_gost89_ctx *ctx, const gostx_cms_encrypted_content *ec,
                      const uint8_t cek[32], int decrypt) {
  gostx_gost89_key k;
  int rc = gostx_gost89_set_key(&k, cek, (gostx_sbox)ec->sbox);
  if (!rc) rc = gostx_gost89_init(ctx, &k, GOSTX_GOST89_CFB, decrypt, ec->ukm, 1);
  gostx_gost89_clear(&k);
  return rc;
}

int gostx__cms89_crypt(const gostx_cms_encrypted_content *ec, const uint8_t cek[32],
                       const uint8_t *in, uint8_t *out, int decrypt) {
  gostx_gost89_key k;
  int rc = gostx_gost89_set_key(&k, cek, (gostx_sbox)ec->sbox);
  if (!rc) rc = gostx_gost89_cfb(&k, ec->ukm, 1, decrypt, in, ec->ciphertext_len, out);
  gostx_gost89_clear(&k);
  return rc;
}
