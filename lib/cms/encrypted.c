/* Content encryption of R 1323565.1.025-2019 (section 5): the
 * EncryptedContentInfo that EnvelopedData and EncryptedData share, with
 * Kuznyechik- or Magma-CTR-ACPKM and their -OMAC forms, whose MAC travels
 * encrypted as the unprotected attribute id-cms-mac-attr (GOST 28147-89
 * CFB, RFC 4490's, by content89.c), whole or in chunks (the opener and
 * sealer, which the streaming calls use); and EncryptedData (RFC 5652
 * section 8), the key given by the caller. */
#include "cms/cms_internal.h"
#include "gostx/kdf.h"
#include "gostx/modes.h"

/* CTR-ACPKM's section in CMS: Kuznyechik 256 KiB, Magma 8 KiB (the
 * profile's values, which gost-engine's CMS parameters set too). */
#define SECTION(alg) ((alg) == GOSTX_ALG_KUZNYECHIK ? 256u * 1024u : 8192u)

int gostx_cms_cipher_has_mac(gostx_cms_cipher c) {
  return c == GOSTX_CMS_KUZNYECHIK_OMAC || c == GOSTX_CMS_MAGMA_OMAC;
}

static gostx_alg cipher_alg(gostx_cms_cipher c) {
  return c == GOSTX_CMS_KUZNYECHIK || c == GOSTX_CMS_KUZNYECHIK_OMAC ? GOSTX_ALG_KUZNYECHIK
                                                                      : GOSTX_ALG_MAGMA;
}

static size_t block_len(gostx_cms_cipher c) {
  return cipher_alg(c) == GOSTX_ALG_KUZNYECHIK ? 16 : 8;
}

/* The ukm: the CTR IV (n/2 bytes), then 8 bytes (KDF_TREE's seed for
 * -OMAC; random, unused, for the others, as gost-engine writes them). */
static size_t ukm_len(gostx_cms_cipher c) { return block_len(c) / 2 + 8; }

static const struct {
  const char *oid;
  size_t len;
  gostx_cms_cipher cipher;
  const char *dotted;
} ciphers[] = {
    {OID_KUZ_CTR_ACPKM, sizeof OID_KUZ_CTR_ACPKM - 1, GOSTX_CMS_KUZNYECHIK, "1.2.643.7.1.1.5.2.1"},
    {OID_MAGMA_CTR_ACPKM, sizeof OID_MAGMA_CTR_ACPKM - 1, GOSTX_CMS_MAGMA, "1.2.643.7.1.1.5.1.1"},
    {OID_KUZ_CTR_ACPKM_OMAC, sizeof OID_KUZ_CTR_ACPKM_OMAC - 1, GOSTX_CMS_KUZNYECHIK_OMAC,
     "1.2.643.7.1.1.5.2.2"},
    {OID_MAGMA_CTR_ACPKM_OMAC, sizeof OID_MAGMA_CTR_ACPKM_OMAC - 1, GOSTX_CMS_MAGMA_OMAC,
     "1.2.643.7.1.1.5.1.2"},
    {OID_GOST89, sizeof OID_GOST89 - 1, GOSTX_CMS_GOST89, "1.2.643.2.2.21"},
};

static gostx_cms_cipher cipher_of(gostx__der oid) {
  for (size_t i = 0; i < sizeof ciphers / sizeof ciphers[0]; i++)
    if (gostx__der_oid_is(oid, (const uint8_t *)ciphers[i].oid, ciphers[i].len)) return ciphers[i].cipher;
  return GOSTX_CMS_CIPHER_UNKNOWN;
}

/* ---- reading ---- */

/* unprotectedAttrs [1] IMPLICIT SET OF Attribute: id-cms-mac-attr's one
 * OCTET STRING (a second one, or another value, BAD_MAC_ATTRIBUTE); other
 * attributes are not ours and left alone. */
int gostx__cms_unprotected_attrs(gostx__der set, gostx_cms_encrypted_content *ec, gostx_cms_status *st) {
  gostx__der attr, oid, values, mac;
  while (set.n) {
    if (gostx__der_get(&set, GOSTX__DER_SEQ, &attr, NULL) || gostx__der_oid(&attr, &oid) ||
        gostx__der_get(&attr, GOSTX__DER_SET, &values, NULL) || attr.n)
      return GOSTX_EFORMAT;
    if (!GOSTX__DER_OID_IS(oid, OID_ATTR_CMS_MAC)) continue;
    if (ec->mac || gostx__der_get(&values, GOSTX__DER_OCTETS, &mac, NULL) || values.n)
      return *st = GOSTX_CMS_BAD_MAC_ATTRIBUTE, GOSTX_EFORMAT;
    ec->mac = mac.p, ec->mac_len = mac.n;
  }
  return 0;
}

/* ContentEncryptionAlgorithmIdentifier: one of ours has the parameters
 * SEQUENCE { ukm OCTET STRING } (GOST2015 parameters); another is kept as
 * its OID for the refusal to name. */
int gostx__cms_content_alg(gostx__der *r, gostx_cms_encrypted_content *ec) {
  gostx__der alg, oid, params, ukm;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &alg, NULL) || gostx__der_oid(&alg, &oid)) return GOSTX_EFORMAT;
  ec->alg_oid = oid.p, ec->alg_oid_len = oid.n;
  ec->cipher = cipher_of(oid);
  if (!ec->cipher) return 0;
  if (ec->cipher == GOSTX_CMS_GOST89) return gostx__cms89_read_params(&alg, ec);
  if (gostx__der_get(&alg, GOSTX__DER_SEQ, &params, NULL) || alg.n ||
      gostx__der_get(&params, GOSTX__DER_OCTETS, &ukm, NULL) || params.n ||
      ukm.n != ukm_len(ec->cipher))
    return GOSTX_EFORMAT;
  ec->ukm = ukm.p, ec->ukm_len = ukm.n;
  return 0;
}

/* The content types an encrypted content can be: RFC 5652's (id-data,
 * signedData, envelopedData, digestedData, encryptedData) and the S/MIME
 * arc's id-ct-* (1.2.840.113549.1.9.16.1.*: authData, TSTInfo, ...); any
 * other OID is not one (a mangled id-data, say). */
int gostx__cms_content_type_ok(gostx__der oid) {
  static const uint8_t pkcs7[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07};
  static const uint8_t id_ct[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01};
  if (oid.n == sizeof pkcs7 + 1 && !memcmp(oid.p, pkcs7, sizeof pkcs7))
    return oid.p[8] == 1 || oid.p[8] == 2 || oid.p[8] == 3 || oid.p[8] == 5 || oid.p[8] == 6;
  return oid.n > sizeof id_ct && !memcmp(oid.p, id_ct, sizeof id_ct);
}

int gostx__cms_read_encrypted_content(gostx__der *r, gostx_cms_encrypted_content *ec,
                                      gostx_cms_status *st) {
  gostx__der eci, type, ct = {NULL, 0}, attrs;
  memset(ec, 0, sizeof *ec);
  if (gostx__der_get(r, GOSTX__DER_SEQ, &eci, NULL) || gostx__der_oid(&eci, &type) ||
      gostx__cms_content_alg(&eci, ec))
    return GOSTX_EFORMAT;
  if (!gostx__cms_content_type_ok(type)) return *st = GOSTX_CMS_BAD_CONTENT_TYPE, GOSTX_EFORMAT;
  ec->content_type = type.p, ec->content_type_len = type.n;
  /* encryptedContent [0] IMPLICIT OCTET STRING, primitive (DER) */
  if (eci.n && (gostx__der_get(&eci, GOSTX__DER_CTX(0), &ct, NULL) || eci.n)) return GOSTX_EFORMAT;
  ec->ciphertext = ct.p, ec->ciphertext_len = ct.n;
  if (gostx__der_peek(r, GOSTX__DER_CTXC(1)) &&
      (gostx__der_get(r, GOSTX__DER_CTXC(1), &attrs, NULL) || gostx__cms_unprotected_attrs(attrs, ec, st)))
    return GOSTX_EFORMAT;
  if (r->n) return GOSTX_EFORMAT;
  if (!ec->ciphertext) return *st = GOSTX_CMS_NO_ENCRYPTED_CONTENT, GOSTX_EFORMAT;
  return gostx__cms_check_mac_attr(ec, st);
}

int gostx__cms_check_mac_attr(const gostx_cms_encrypted_content *ec, gostx_cms_status *st) {
  if (gostx_cms_cipher_has_mac(ec->cipher) && ec->mac_len != block_len(ec->cipher))
    return *st = GOSTX_CMS_BAD_MAC_ATTRIBUTE, GOSTX_EFORMAT;
  return 0;
}

/* ---- the cipher ---- */

/* K_enc and (for -OMAC) K_mac from the CEK: RFC 9337's KDF_TREE split,
 * which R 1323565.1.025-2019 uses for CMS too. */
static int content_keys(gostx_cms_cipher cipher, const uint8_t cek[32], const uint8_t *ukm,
                        gostx_cipher *enc, gostx_cipher *mac) {
  gostx_alg alg = cipher_alg(cipher);
  if (!gostx_cms_cipher_has_mac(cipher)) return gostx_cipher_init(enc, alg, cek);
  uint8_t keys[64];
  int rc = gostx_kdf_tree256(cek, 32, (const uint8_t *)"kdf tree", 8, ukm + block_len(cipher) / 2,
                             8, 1, keys, sizeof keys);
  if (!rc) rc = gostx_cipher_init(enc, alg, keys);
  if (!rc) rc = gostx_cipher_init(mac, alg, keys + 32);
  gostx_memzero(keys, sizeof keys);
  return rc;
}

/* { CTR-ACPKM OID, SEQUENCE { ukm } } with a fresh ukm (zeros if count). */
static int write_acpkm_alg(gostx__der_w *w, gostx_cms_cipher cipher, int count) {
  uint8_t ukm[16] = {0};
  int rc = count ? 0 : gostx_random_bytes(ukm, ukm_len(cipher));
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, ciphers[cipher - 1].dotted);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, ukm, ukm_len(cipher));
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  return rc;
}

/* EncryptedContentInfo's contentType (id-data) and algorithm with a fresh
 * IV or ukm (zeros if count). */
int gostx__cms_write_content_alg(gostx__der_w *w, gostx_cms_cipher cipher, int count) {
  gostx__der_w_oid(w, "1.2.840.113549.1.7.1");
  return cipher == GOSTX_CMS_GOST89 ? gostx__cms89_write_alg(w, count) : write_acpkm_alg(w, cipher, count);
}

/* Written with the content as it is and a zero MAC: gostx__cms_seal
 * encrypts both in place once the whole message is written (the writer
 * moves what it has written while it closes elements). */
int gostx__cms_write_encrypted_content(gostx__der_w *w, gostx_cms_cipher cipher,
                                       const uint8_t *content, size_t len, int count) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  int rc = gostx__cms_write_content_alg(w, cipher, count);
  gostx__der_w_tlv(w, GOSTX__DER_CTX(0), content, len);
  gostx__der_w_end(w);
  return rc;
}

void gostx__cms_write_mac_value(gostx__der_w *w, gostx_cms_cipher cipher, const uint8_t *mac) {
  if (!gostx_cms_cipher_has_mac(cipher)) return;
  gostx__der_w_begin(w, GOSTX__DER_CTXC(1));
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, "1.2.643.7.1.0.6.1.1");
  gostx__der_w_begin(w, GOSTX__DER_SET);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, mac, block_len(cipher));
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

void gostx__cms_write_mac_attr(gostx__der_w *w, gostx_cms_cipher cipher) {
  static const uint8_t zero[16];
  gostx__cms_write_mac_value(w, cipher, zero);
}

int gostx__cms_seal(uint8_t *out, const gostx_cms_encrypted_content *ec, const uint8_t cek[32]) {
  uint8_t *p = out + (ec->ciphertext - out), tag[16];
  gostx__cms_opener o;
  if (ec->cipher == GOSTX_CMS_GOST89) return gostx__cms89_crypt(ec, cek, p, p, 0);
  int rc = gostx__cms_sealer_init(&o, ec, cek);
  if (!rc) rc = gostx__cms_sealer_update(&o, p, ec->ciphertext_len, p);
  if (!rc) rc = gostx__cms_sealer_final(&o, tag);
  else gostx__cms_opener_clear(&o);
  if (!rc && o.has_mac) memcpy(out + (ec->mac - out), tag, block_len(ec->cipher));
  gostx_memzero(tag, sizeof tag);
  return rc;
}

/* ---- decryption in chunks (gostx__cms_opener) ---- */

static int crypter_init(gostx__cms_opener *o, const gostx_cms_encrypted_content *ec,
                        const uint8_t cek[32], int decrypt) {
  memset(o, 0, sizeof *o);
  o->cipher = ec->cipher;
  o->has_mac = gostx_cms_cipher_has_mac(ec->cipher);
  if (ec->cipher == GOSTX_CMS_GOST89) return gostx__cms89_init(&o->cfb, ec, cek, decrypt);
  size_t n = block_len(ec->cipher);
  int rc = content_keys(ec->cipher, cek, ec->ukm, &o->enc, &o->mac);
  if (!rc) rc = gostx_mode_init(&o->ctr, &o->enc, GOSTX_MODE_CTR_ACPKM, 0, ec->ukm, n / 2, 0,
                                GOSTX_PAD_NONE, SECTION(cipher_alg(ec->cipher)));
  if (!rc && o->has_mac) rc = gostx_omac_init(&o->omac, &o->mac);
  if (rc) gostx__cms_opener_clear(o);
  return rc;
}

int gostx__cms_opener_init(gostx__cms_opener *o, const gostx_cms_encrypted_content *ec,
                           const uint8_t cek[32]) {
  return crypter_init(o, ec, cek, 1);
}

int gostx__cms_sealer_init(gostx__cms_opener *o, const gostx_cms_encrypted_content *ec,
                           const uint8_t cek[32]) {
  return crypter_init(o, ec, cek, 0);
}

int gostx__cms_opener_update(gostx__cms_opener *o, const uint8_t *in, size_t len, uint8_t *out) {
  size_t done = 0;
  if (o->cipher == GOSTX_CMS_GOST89) return gostx_gost89_update(&o->cfb, in, len, out);
  int rc = len ? gostx_mode_update(&o->ctr, in, len, out, &done) : 0;
  if (!rc && o->has_mac) rc = gostx_omac_update(&o->omac, out, len);
  return rc;
}

/* Encryption: the OMAC over the content as it is, then the gamma. */
int gostx__cms_sealer_update(gostx__cms_opener *o, const uint8_t *in, size_t len, uint8_t *out) {
  size_t done = 0;
  if (o->cipher == GOSTX_CMS_GOST89) return gostx_gost89_update(&o->cfb, in, len, out);
  int rc = o->has_mac ? gostx_omac_update(&o->omac, in, len) : 0;
  if (!rc && len) rc = gostx_mode_update(&o->ctr, in, len, out, &done);
  return rc;
}

/* The content's OMAC encrypted by the gamma that follows the content's
 * (as gost-engine's final call does) into mac (the block's size). */
int gostx__cms_sealer_final(gostx__cms_opener *o, uint8_t mac[16]) {
  uint8_t tag[16];
  size_t n = block_len(o->cipher), done = 0;
  int rc = o->has_mac ? gostx_omac_final(&o->omac, tag, n) : 0;
  if (!rc && o->has_mac) rc = gostx_mode_update(&o->ctr, tag, n, mac, &done);
  gostx_memzero(tag, sizeof tag);
  gostx__cms_opener_clear(o);
  return rc;
}

/* The encrypted MAC decrypted by the gamma that follows the content's and
 * compared in constant time with the content's OMAC. */
int gostx__cms_opener_final(gostx__cms_opener *o, const uint8_t *mac, gostx_cms_status *st) {
  uint8_t tag[16], expected[16];
  size_t n = block_len(o->cipher), done = 0;
  int rc = 0;
  if (o->has_mac) {
    rc = gostx_mode_update(&o->ctr, mac, n, expected, &done);
    if (!rc) rc = gostx_omac_final(&o->omac, tag, n);
    if (!rc && gostx__verdict(gostx_memeq_ct(tag, expected, n) & GOSTX_EAUTH)) /* public once decided */
      *st = GOSTX_CMS_BAD_MAC, rc = GOSTX_EAUTH;
  }
  gostx_memzero(tag, sizeof tag);
  gostx_memzero(expected, sizeof expected);
  gostx__cms_opener_clear(o);
  return rc;
}

void gostx__cms_opener_clear(gostx__cms_opener *o) {
  gostx_mode_clear(&o->ctr);
  gostx_omac_clear(&o->omac);
  gostx_cipher_clear(&o->enc);
  gostx_cipher_clear(&o->mac);
  gostx_gost89_ctx_clear(&o->cfb);
}

/* out NULL: the size only. On a failed MAC out is wiped. */
int gostx__cms_open(const gostx_cms_encrypted_content *ec, const uint8_t cek[32], uint8_t *out,
                    size_t cap, size_t *out_len, gostx_cms_status *st) {
  *out_len = ec->ciphertext_len;
  if (!ec->cipher) return *st = GOSTX_CMS_UNKNOWN_CIPHER, GOSTX_EFORMAT;
  if (!out) return 0;
  if (cap < ec->ciphertext_len) return GOSTX_ELEN;
  if (ec->cipher == GOSTX_CMS_GOST89) return gostx__cms89_crypt(ec, cek, ec->ciphertext, out, 1);
  gostx__cms_opener o;
  int rc = gostx__cms_opener_init(&o, ec, cek);
  if (!rc) rc = gostx__cms_opener_update(&o, ec->ciphertext, ec->ciphertext_len, out);
  if (!rc) rc = gostx__cms_opener_final(&o, ec->mac, st);
  else gostx__cms_opener_clear(&o);
  if (rc) gostx_memzero(out, ec->ciphertext_len);
  return rc;
}

/* ---- EncryptedData (RFC 5652 section 8) ---- */

static int encrypted_content(gostx__der *ed, void *out, gostx_cms_status *st) {
  gostx_cms_encrypted *e = out;
  return gostx__der_small_uint(ed, &e->version) || (e->version != 0 && e->version != 2) ||
         gostx__cms_read_encrypted_content(ed, &e->content, st);
}

int gostx_cms_encrypted_parse(const uint8_t *der, size_t der_len, gostx_cms_encrypted *out,
                              gostx_cms_status *st) {
  int rc = gostx__cms_parse(der, der_len, out, sizeof *out, OID_ENCRYPTED_DATA,
                            sizeof OID_ENCRYPTED_DATA - 1, encrypted_content, st);
  if (!rc) out->der = der, out->der_len = der_len;
  return rc;
}

int gostx_cms_encrypted_decrypt(const gostx_cms_encrypted *ed, const uint8_t key[32], uint8_t *out,
                                size_t cap, size_t *out_len, gostx_cms_status *st) {
  gostx_cms_status dummy;
  if (!st) st = &dummy;
  *st = GOSTX_CMS_OK;
  if (!ed || !key || !out_len) return GOSTX_EINVAL;
  return gostx__cms_open(&ed->content, key, out, cap, out_len, st);
}

int gostx_cms_encrypted_encrypt(const uint8_t key[32], gostx_cms_cipher cipher,
                                const uint8_t *content, size_t len, uint8_t *out, size_t cap,
                                size_t *out_len) {
  if (!key || !out_len || (!content && len) || cipher < GOSTX_CMS_KUZNYECHIK ||
      cipher > GOSTX_CMS_GOST89)
    return GOSTX_EINVAL;
  gostx__der_w w;
  gostx__cms_w_open(&w, out, cap, "1.2.840.113549.1.7.6");
  /* RFC 5652 8: version 2 with unprotectedAttrs */
  gostx__der_w_u32(&w, gostx_cms_cipher_has_mac(cipher) ? 2 : 0);
  int rc = gostx__cms_write_encrypted_content(&w, cipher, content, len, out == NULL);
  gostx__cms_write_mac_attr(&w, cipher);
  gostx__cms_w_close(&w);
  if (!rc) rc = gostx__der_w_finish(&w, out_len);
  if (rc || !out) return rc;
  gostx_cms_encrypted ed;
  rc = gostx_cms_encrypted_parse(out, *out_len, &ed, NULL) ? GOSTX_EINVAL
                                                           : gostx__cms_seal(out, &ed.content, key);
  if (rc) gostx_memzero(out, cap); /* no plaintext left behind */
  return rc;
}
