/* KeyAgreeRecipientInfo of RFC 4490 (section 5.2) for GOST 28147-89
 * content, read: keyEncryptionAlgorithm names the agreement, with
 *   KeyWrapAlgorithm ::= AlgorithmIdentifier {
 *     id-Gost28147-89-None-KeyWrap 1.2.643.2.2.13.0 (RFC 4357 6.1) or
 *     id-Gost28147-89-CryptoPro-KeyWrap 1.2.643.2.2.13.1 (6.3),
 *     Gost28147-89-KeyWrapParameters ::= SEQUENCE {
 *       encryptionParamSet OBJECT IDENTIFIER, ukm OCTET STRING (8) OPTIONAL } }
 * as its parameters; the agreement is a GOST R 34.10-2012 key's OID (TK26's
 * CMS examples, PyGOST) or id-tc26-agreement-gost-3410-12-256/-512
 * (BouncyCastle). Each RecipientEncryptedKey's encryptedKey holds
 *   Gost28147-89-EncryptedKey ::= SEQUENCE { encryptedKey OCTET STRING (32),
 *     maskKey [0] OPTIONAL, macKey OCTET STRING (4) }.
 * KEK = VKO_GOSTR3410_2012_256(our d, the originator's Q, ukm) with the
 * KARI's 8-byte ukm (Streebog-256 for 512-bit keys too, as PyGOST and
 * BouncyCastle compute it), then the wrap named, under the ukm. GOST
 * R 34.10-2001's agreement (its VKO hashes with GOST R 34.11-94, and
 * gostx reads no 2001 keys) is recognised and refused by name.
 * The VKO and the unwrap are on secrets; the parsing is public. */
#include "cms/cms_internal.h"
#include "gostx/keywrap.h"

#define UKM_LEN 8
#define OID_NONE_KEYWRAP "\x2a\x85\x03\x02\x02\x0d\x00"      /* 1.2.643.2.2.13.0 */
#define OID_CRYPTOPRO_KEYWRAP "\x2a\x85\x03\x02\x02\x0d\x01" /* 1.2.643.2.2.13.1 */
#define OID_KEY_2001 "\x2a\x85\x03\x02\x02\x13"              /* 1.2.643.2.2.19 */
#define OID_KEY_2001_DH "\x2a\x85\x03\x02\x02\x62"           /* 1.2.643.2.2.98 */

/* The agreement's key size: 32, 64; 0 not an RFC 4490 agreement. */
static size_t agreement_size(gostx__der oid) {
  if (GOSTX__DER_OID_IS(oid, OID_KEY_2012_256) || GOSTX__DER_OID_IS(oid, OID_AGREEMENT_256)) return 32;
  if (GOSTX__DER_OID_IS(oid, OID_KEY_2012_512) || GOSTX__DER_OID_IS(oid, OID_AGREEMENT_512)) return 64;
  return 0;
}

int gostx__cms89_kari_alg(gostx__der oid, gostx__der params, gostx_cms_recipient *ri) {
  gostx__der kwa, wrap, kwp, set, ukm;
  if (GOSTX__DER_OID_IS(oid, OID_KEY_2001) || GOSTX__DER_OID_IS(oid, OID_KEY_2001_DH))
    return ri->rfc4490 = 1; /* wrap_alg left unknown: named by kea_oid */
  ri->key_len = agreement_size(oid);
  if (!ri->key_len) return 0;
  /* the KeyWrapAlgorithm after the OID: an unknown wrap is kept unknown */
  if (gostx__der_get(&params, GOSTX__DER_SEQ, &kwa, NULL) || params.n || gostx__der_oid(&kwa, &wrap))
    return -1;
  ri->rfc4490 = 1;
  int none = GOSTX__DER_OID_IS(wrap, OID_NONE_KEYWRAP);
  if (!none && !GOSTX__DER_OID_IS(wrap, OID_CRYPTOPRO_KEYWRAP)) return ri->kea_oid = wrap.p, ri->kea_oid_len = wrap.n, 1;
  if (gostx__der_get(&kwa, GOSTX__DER_SEQ, &kwp, NULL) || kwa.n || gostx__der_oid(&kwp, &set)) return -1;
  if (kwp.n && (gostx__der_get(&kwp, GOSTX__DER_OCTETS, &ukm, NULL) || ukm.n != UKM_LEN || kwp.n)) return -1;
  ri->wrap_cryptopro = !none;
  ri->wrap_sbox = gostx__cms89_sbox(set);
  if (ri->wrap_sbox < 0) return ri->kea_oid = set.p, ri->kea_oid_len = set.n, 1; /* named: the param set */
  ri->wrap_alg = GOSTX_ALG_MAGMA; /* the 28147-89 core */
  return 1;
}

/* Gost28147-89-EncryptedKey into wrapped = ukm || encryptedKey || macKey. */
static int read_encrypted_key(const gostx_cms_recipient *ri, uint8_t wrapped[GOSTX_GOST89_WRAP_LEN]) {
  gostx__der r = {ri->encrypted_key, ri->encrypted_key_len}, ek, key, mac;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &ek, NULL) || r.n ||
      gostx__der_get(&ek, GOSTX__DER_OCTETS, &key, NULL) || key.n != 32 ||
      /* maskKey [0]: a masked private key (CryptoPro's), not built */
      gostx__der_get(&ek, GOSTX__DER_OCTETS, &mac, NULL) || mac.n != 4 || ek.n)
    return GOSTX_EFORMAT;
  memcpy(wrapped, ri->ukm, UKM_LEN);
  memcpy(wrapped + UKM_LEN, key.p, 32);
  memcpy(wrapped + UKM_LEN + 32, mac.p, 4);
  return 0;
}

int gostx__cms89_kari_unwrap(const gostx_cms_recipient *ri, const gostx_gost3410_key *key,
                             const gostx_gost3410_key *peer, uint8_t cek[32], gostx_cms_status *st) {
  uint8_t wrapped[GOSTX_GOST89_WRAP_LEN], kek[32];
  /* RFC 4490 5.2: the ukm MUST be present, 8 bytes */
  if (ri->ukm_len != UKM_LEN || read_encrypted_key(ri, wrapped)) return *st = GOSTX_CMS_MALFORMED, GOSTX_EFORMAT;
  if (peer->curve != key->curve) return *st = GOSTX_CMS_KEY_MISMATCH, GOSTX_EFORMAT;
  int rc = gostx_gost3410_key_vko(key, peer->q, 2 * key->len, ri->ukm, UKM_LEN, kek, sizeof kek);
  /* the unwrap's IMIT verdict comes out through gostx__verdict (keywrap.c) */
  if (!rc && (ri->wrap_cryptopro ? gostx_cpro_key_unwrap(kek, (gostx_sbox)ri->wrap_sbox, wrapped, cek)
                                 : gostx_gost89_key_unwrap(kek, (gostx_sbox)ri->wrap_sbox, wrapped, cek)))
    rc = GOSTX_EAUTH, *st = GOSTX_CMS_WRONG_KEY;
  gostx_memzero(kek, sizeof kek);
  return rc;
}
