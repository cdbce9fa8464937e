/* KeyTransRecipientInfo of RFC 4490 (section 4.2) for GOST 28147-89
 * content, with GOST R 34.10-2012 keys as gost-engine writes it:
 * keyEncryptionAlgorithm is the recipient key's own AlgorithmIdentifier,
 * and encryptedKey holds
 *   GostR3410-KeyTransport ::= SEQUENCE {
 *     sessionEncryptedKey Gost28147-89-EncryptedKey ::= SEQUENCE {
 *       encryptedKey OCTET STRING (32), maskKey [0] OPTIONAL, macKey OCTET STRING (4) },
 *     transportParameters [0] IMPLICIT SEQUENCE {
 *       encryptionParamSet OBJECT IDENTIFIER,
 *       ephemeralPublicKey [0] IMPLICIT SubjectPublicKeyInfo OPTIONAL,
 *       ukm OCTET STRING (8) } }
 * KEK = VKO_GOSTR3410_2012_256(ephemeral d, recipient Q, ukm) (Streebog-256
 * for 512-bit keys too, as gost-engine and PyGOST compute it), and the CEK
 * wrapped by the CryptoPro key wrap (RFC 4357 6.3: the KEK diversified by
 * the ukm, then ECB and a 4-byte IMIT). gostx writes the wrap's S-boxes as
 * TC26 Z, what gost-engine uses for 2012 keys; any 28147-89 set is read.
 * The recipient's VKO and unwrap are on secrets; the parsing is public. */
#include "cms/cms_internal.h"
#include "gostx/keywrap.h"

#define UKM_LEN 8

int gostx__cms89_key_alg(gostx__der oid, gostx_cms_recipient *ri) {
  int is256 = GOSTX__DER_OID_IS(oid, OID_KEY_2012_256);
  if (!is256 && !GOSTX__DER_OID_IS(oid, OID_KEY_2012_512)) return 0;
  ri->rfc4490 = 1;
  ri->wrap_alg = GOSTX_ALG_MAGMA; /* the 28147-89 core */
  ri->key_len = is256 ? 32 : 64;
  return 1;
}

/* The SubjectPublicKeyInfo under the [0] IMPLICIT tag, read as a key. */
static int ephemeral_key(gostx__der content, gostx_gost3410_key *eph) {
  uint8_t spki[GOSTX_GOST3410_DER_MAX];
  size_t len = 0;
  gostx__der_w w;
  gostx__der_w_init(&w, spki, sizeof spki);
  gostx__der_w_tlv(&w, GOSTX__DER_SEQ, content.p, content.n);
  if (gostx__der_w_finish(&w, &len) || gostx_gost3410_key_read(eph, spki, len, NULL, 0) ||
      eph->has_private)
    return GOSTX_EFORMAT;
  return 0;
}

/* GostR3410-KeyTransport read into wrapped = ukm || encryptedKey || macKey
 * (the CryptoPro unwrap's input), the wrap's S-boxes and the ephemeral key. */
static int read_transport(const gostx_cms_recipient *ri, uint8_t wrapped[GOSTX_GOST89_WRAP_LEN],
                          int *sbox, gostx_gost3410_key *eph) {
  gostx__der r = {ri->encrypted_key, ri->encrypted_key_len}, kt, sek, ek, mac, tp, set, pub, ukm;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &kt, NULL) || r.n ||
      gostx__der_get(&kt, GOSTX__DER_SEQ, &sek, NULL) ||
      gostx__der_get(&sek, GOSTX__DER_OCTETS, &ek, NULL) || ek.n != 32 ||
      gostx__der_get(&sek, GOSTX__DER_OCTETS, &mac, NULL) || mac.n != 4 || sek.n ||
      /* without transportParameters the sender's static key agrees: not built */
      gostx__der_get(&kt, GOSTX__DER_CTXC(0), &tp, NULL) || kt.n || gostx__der_oid(&tp, &set) ||
      gostx__der_get(&tp, GOSTX__DER_CTXC(0), &pub, NULL) ||
      gostx__der_get(&tp, GOSTX__DER_OCTETS, &ukm, NULL) || ukm.n != UKM_LEN || tp.n ||
      ephemeral_key(pub, eph))
    return GOSTX_EFORMAT;
  memcpy(wrapped, ukm.p, UKM_LEN);
  memcpy(wrapped + UKM_LEN, ek.p, 32);
  memcpy(wrapped + UKM_LEN + 32, mac.p, 4);
  *sbox = gostx__cms89_sbox(set);
  return 0;
}

int gostx__cms89_unwrap(const gostx_cms_recipient *ri, const gostx_gost3410_key *key, uint8_t cek[32],
                        gostx_cms_status *st) {
  uint8_t wrapped[GOSTX_GOST89_WRAP_LEN], kek[32];
  gostx_gost3410_key eph;
  int sbox = -1;
  if (read_transport(ri, wrapped, &sbox, &eph)) return *st = GOSTX_CMS_MALFORMED, GOSTX_EFORMAT;
  if (sbox < 0) return *st = GOSTX_CMS_UNKNOWN_KEY_WRAP, GOSTX_EFORMAT;
  if (eph.curve != key->curve) return *st = GOSTX_CMS_KEY_MISMATCH, GOSTX_EFORMAT;
  int rc = gostx_gost3410_key_vko(key, eph.q, 2 * key->len, wrapped, UKM_LEN, kek, sizeof kek);
  /* the unwrap's IMIT verdict comes out through gostx__verdict (keywrap.c) */
  if (!rc && gostx_cpro_key_unwrap(kek, (gostx_sbox)sbox, wrapped, cek))
    rc = GOSTX_EAUTH, *st = GOSTX_CMS_WRONG_KEY;
  gostx_memzero(kek, sizeof kek);
  return rc;
}

/* A fresh ephemeral key naming the recipient's parameter set, the KEK
 * and the wrapped CEK; count: the recipient's key stands in, zeros. */
static int wrap_for(const gostx_x509_cert *c, const uint8_t cek[32], int count, gostx_gost3410_key *eph,
                    uint8_t wrapped[GOSTX_GOST89_WRAP_LEN]) {
  size_t len = gostx_gost3410_size(c->curve);
  uint8_t d[64], q[128], kek[32], ukm[UKM_LEN];
  gostx_gost3410_key recip;
  int rc = gostx_gost3410_key_read(&recip, c->spki, c->spki_len, NULL, 0);
  memset(wrapped, 0, GOSTX_GOST89_WRAP_LEN);
  if (!rc && count) *eph = recip;
  if (!rc && !count) rc = gostx_gost3410_keygen(c->curve, d, len, q, 2 * len);
  if (!rc && !count) rc = gostx_gost3410_key_set_private(eph, c->curve, d, len, recip.oid);
  if (!rc && !count) rc = gostx_random_bytes(ukm, UKM_LEN);
  if (!rc && !count) rc = gostx_gost3410_vko(c->curve, d, len, c->pub, 2 * len, ukm, UKM_LEN, kek, 32);
  /* wrapped = ukm || encryptedKey || macKey */
  if (!rc && !count) rc = gostx_cpro_key_wrap(kek, GOSTX_SBOX_TC26_Z, ukm, cek, wrapped);
  gostx_memzero(d, sizeof d);
  gostx_memzero(kek, sizeof kek);
  return rc;
}

/* The [0] IMPLICIT SubjectPublicKeyInfo of eph's public key. */
static int write_ephemeral(gostx__der_w *w, const gostx_gost3410_key *eph) {
  uint8_t spki[GOSTX_GOST3410_DER_MAX];
  size_t len = 0;
  gostx__der r, content;
  int rc = gostx_gost3410_key_write(eph, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL, spki,
                                    sizeof spki, &len);
  r.p = spki, r.n = rc ? 0 : len;
  if (!rc && gostx__der_get(&r, GOSTX__DER_SEQ, &content, NULL)) rc = GOSTX_EINVAL;
  if (!rc) gostx__der_w_tlv(w, GOSTX__DER_CTXC(0), content.p, content.n);
  return rc;
}

/* The recipient key's AlgorithmIdentifier, from its certificate. */
static int write_key_alg(gostx__der_w *w, const gostx_x509_cert *c) {
  gostx__der r = {c->spki, c->spki_len}, spki, alg;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &spki, NULL) || gostx__der_get(&spki, GOSTX__DER_SEQ, NULL, &alg))
    return GOSTX_EINVAL;
  gostx__der_w_raw(w, alg.p, alg.n);
  return 0;
}

int gostx__cms89_write_ktri(gostx__der_w *w, const gostx_x509_cert *c, const uint8_t cek[32],
                            int count) {
  uint8_t wrapped[GOSTX_GOST89_WRAP_LEN];
  gostx_gost3410_key eph;
  memset(&eph, 0, sizeof eph);
  int rc = wrap_for(c, cek, count, &eph, wrapped);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_u32(w, 0);
  gostx__cms_write_ias(w, c);
  if (!rc) rc = write_key_alg(w, c);
  gostx__der_w_begin(w, GOSTX__DER_OCTETS);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, wrapped + UKM_LEN, 32);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, wrapped + UKM_LEN + 32, 4);
  gostx__der_w_end(w);
  gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
  gostx__der_w_oid(w, "1.2.643.7.1.2.5.1.1");
  if (!rc) rc = write_ephemeral(w, &eph);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, wrapped, UKM_LEN);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx_gost3410_key_clear(&eph);
  gostx_memzero(wrapped, sizeof wrapped);
  return rc;
}
