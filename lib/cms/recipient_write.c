/* The sender's RecipientInfos (R 1323565.1.025-2019): KeyTransRecipientInfo
 * (KeyTransport2019) or KeyAgreeRecipientInfo with an ephemeral originator
 * key (RFC 5652 6.2.2's originatorKey) or a static one (its certificate
 * named; its key in the ephemeral's place), the recipient named by
 * issuerAndSerialNumber or subjectKeyIdentifier. Both wrap the CEK alike:
 * an ephemeral key on the recipient's curve, KEG(ephemeral d, recipient Q,
 * ukm) = K_mac || K_enc and KExp15 of the CEK with IV ukm[24..24+n/2). A
 * KTRI carries the ephemeral key and ukm inside encryptedKey
 * (GostR3410-KeyTransport), a KARI as its originator and ukm fields.
 * The secrets (CEK, ephemeral d) and Q come from the caller: gostx__cms_draw. */
#include "cms/cms_internal.h"
#include "gost3410/key_internal.h"
#include "gostx/keywrap.h"

/* K_mac || K_enc = KEG(d, Q, ukm) as the wrap cipher's two keys (the recipient's
 * KImp15 in lib/cms/enveloped.c takes its keys here too). */
int gostx__cms_kexp_keys(gostx_alg alg, const gostx_gost3410_key *key, const uint8_t *q,
                         const uint8_t ukm[GOSTX__CMS_UKM_LEN], gostx_cipher *mac,
                         gostx_cipher *enc) {
  uint8_t k[64];
  int rc = gostx_gost3410_key_keg(key, q, 2 * key->len, ukm, GOSTX__CMS_UKM_LEN, k, sizeof k);
  if (!rc) rc = gostx_cipher_init(mac, alg, k);
  if (!rc) rc = gostx_cipher_init(enc, alg, k + 32);
  gostx_memzero(k, sizeof k);
  return rc;
}

/* The ephemeral public key (drawn with its d), as the SubjectPublicKeyInfo
 * written, and KExp15's output. */
typedef struct wrapped {
  gostx_gost3410_key eph;
  uint8_t psexp[48];
  size_t psexp_len; /* 32 + the wrap cipher's block */
  uint8_t spki[GOSTX_GOST3410_DER_MAX];
  size_t spki_len;
} wrapped;

/* draw NULL (a size query): the recipient's own key stands in for the
 * ephemeral one (same length and parameter set) and zeros for KExp15's
 * output. The ephemeral key names the recipient's parameter set OID:
 * gost-engine agrees only between keys that name the same one. */
static int wrap_cek(const gostx_x509_cert *c, gostx_alg alg, const gostx__cms_sender_draw *draw,
                    size_t i, wrapped *wk) {
  size_t len = gostx_gost3410_size(c->curve), n = alg == GOSTX_ALG_KUZNYECHIK ? 16 : 8, got = 0;
  gostx_gost3410_key recip;
  gostx_cipher mac, enc;
  memset(wk, 0, sizeof *wk);
  memset(&mac, 0, sizeof mac);
  memset(&enc, 0, sizeof enc);
  wk->psexp_len = 32 + n;
  int rc = gostx_gost3410_key_read(&recip, c->spki, c->spki_len, NULL, 0);
  if (!rc && !draw) wk->eph = recip;
  if (!rc && draw)
    rc = gostx_gost3410_key_set_public(&wk->eph, c->curve, draw->eph_q[i], 2 * len, recip.oid);
  if (!rc && draw) {
    /* the drawn d as a key (Q is eph_q, not needed by KEG) */
    gostx_gost3410_key eph;
    rc = gostx__key_from_d(&eph, c->curve, draw->eph_d[i], len);
    if (!rc)
      rc = gostx__cms_kexp_keys(alg, draw->external ? draw->external : &eph, c->pub, draw->ukm[i],
                              &mac, &enc);
    gostx_gost3410_key_clear(&eph);
  }
  if (!rc && draw)
    rc = gostx_kexp15(&enc, &mac, draw->ukm[i] + 24, n / 2, draw->cek, 32, wk->psexp, &got);
  if (!rc) rc = gostx_gost3410_key_write(&wk->eph, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL,
                                         wk->spki, sizeof wk->spki, &wk->spki_len);
  gostx_cipher_clear(&mac);
  gostx_cipher_clear(&enc);
  return rc;
}

/* keyEncryptionAlgorithm: the wrap of the content's cipher family (as
 * gost-engine chooses it) with the agreement of the recipient's size. */
static void write_key_enc_alg(gostx__der_w *w, const gostx_x509_cert *c, gostx_alg alg) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, alg == GOSTX_ALG_KUZNYECHIK ? "1.2.643.7.1.1.7.2.1" : "1.2.643.7.1.1.7.1.1");
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, gostx_gost3410_size(c->curve) == 32 ? "1.2.643.7.1.1.6.1" : "1.2.643.7.1.1.6.2");
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

/* KTRI's rid: issuerAndSerialNumber or [0] IMPLICIT SubjectKeyIdentifier
 * (RFC 5652 6.2.1); KARI's: issuerAndSerialNumber or [0] IMPLICIT
 * RecipientKeyIdentifier { subjectKeyIdentifier } (6.2.2). */
static void write_rid(gostx__der_w *w, const gostx_x509_cert *c, int key_id, int kari) {
  const uint8_t *kid = NULL;
  size_t kid_len = 0;
  if (!key_id || !gostx__cms_cert_key_id(c, &kid, &kid_len)) {
    gostx__cms_write_ias(w, c);
    return;
  }
  if (!kari) {
    gostx__der_w_tlv(w, GOSTX__DER_CTX(0), kid, kid_len);
    return;
  }
  gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, kid, kid_len);
  gostx__der_w_end(w);
}

/* KeyTransRecipientInfo: version 0 (issuerAndSerialNumber) or 2 (key id). */
static void write_ktri(gostx__der_w *w, const gostx_x509_cert *c, int key_id, gostx_alg alg,
                       const wrapped *wk, const uint8_t ukm[GOSTX__CMS_UKM_LEN]) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_u32(w, key_id ? 2 : 0);
  write_rid(w, c, key_id, 0);
  write_key_enc_alg(w, c, alg);
  gostx__der_w_begin(w, GOSTX__DER_OCTETS);
  gostx__der_w_begin(w, GOSTX__DER_SEQ); /* GostR3410-KeyTransport */
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, wk->psexp, wk->psexp_len);
  gostx__der_w_raw(w, wk->spki, wk->spki_len);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, ukm, GOSTX__CMS_UKM_LEN);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

/* A static originator's OriginatorIdentifierOrKey (RFC 5652 6.2.2):
 * issuerAndSerialNumber, or subjectKeyIdentifier [0] IMPLICIT. */
static void write_originator_id(gostx__der_w *w, const gostx_x509_cert *c, int key_id) {
  const uint8_t *kid;
  size_t kid_len;
  if (key_id && gostx__cms_cert_key_id(c, &kid, &kid_len))
    gostx__der_w_tlv(w, GOSTX__DER_CTX(0), kid, kid_len);
  else
    gostx__cms_write_ias(w, c);
}

/* [1] KeyAgreeRecipientInfo, version 3: originator [0] { [1]
 * OriginatorPublicKey } (the ephemeral SubjectPublicKeyInfo's content
 * under the [1] tag, as the profile's example A.2.1) or, static, the
 * originator certificate's identifier (A.2.2); ukm [1] EXPLICIT, one
 * RecipientEncryptedKey holding KExp15's output. */
static int write_kari(gostx__der_w *w, const gostx_x509_cert *c, const gostx_cms_encrypt_params *p,
                      gostx_alg alg, const wrapped *wk, const uint8_t ukm[GOSTX__CMS_UKM_LEN]) {
  gostx__der r = {wk->spki, wk->spki_len}, spki;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &spki, NULL) || r.n) return GOSTX_EINVAL;
  gostx__der_w_begin(w, GOSTX__DER_CTXC(1));
  gostx__der_w_u32(w, 3);
  gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
  if (p->originator) write_originator_id(w, p->originator, p->key_id);
  else gostx__der_w_tlv(w, GOSTX__DER_CTXC(1), spki.p, spki.n);
  gostx__der_w_end(w);
  gostx__der_w_begin(w, GOSTX__DER_CTXC(1));
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, ukm, GOSTX__CMS_UKM_LEN);
  gostx__der_w_end(w);
  write_key_enc_alg(w, c, alg);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  write_rid(w, c, p->key_id, 1);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, wk->psexp, wk->psexp_len);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  return 0;
}

int gostx__cms_write_recipient(gostx__der_w *w, const gostx_x509_cert *c,
                               const gostx_cms_encrypt_params *p, gostx_alg alg,
                               const gostx__cms_sender_draw *draw, size_t i) {
  static const uint8_t zero_ukm[GOSTX__CMS_UKM_LEN];
  const uint8_t *ukm = draw ? draw->ukm[i] : zero_ukm;
  wrapped wk;
  int rc = wrap_cek(c, alg, draw, i, &wk);
  if (!rc && p->kari) rc = write_kari(w, c, p, alg, &wk, ukm);
  if (!rc && !p->kari) write_ktri(w, c, p->key_id, alg, &wk, ukm);
  gostx_memzero(wk.psexp, sizeof wk.psexp);
  return rc;
}

int gostx__cms_draw(const gostx_x509_cert *recipients, size_t n, const gostx_cms_encrypt_params *p,
                    gostx__cms_sender_draw *draw) {
  const gostx_gost3410_key *orig = p->originator_key;
  int rc = gostx_random_bytes(draw->cek, sizeof draw->cek);
  draw->external = orig && orig->ops ? orig : NULL;
  for (size_t i = 0; i < n && !rc; i++) {
    size_t len = gostx_gost3410_size(recipients[i].curve);
    if (orig) memcpy(draw->eph_d[i], orig->d, len), memcpy(draw->eph_q[i], orig->q, 2 * len);
    else rc = gostx_gost3410_keygen(recipients[i].curve, draw->eph_d[i], len, draw->eph_q[i], 2 * len);
    if (!rc) rc = gostx_random_bytes(draw->ukm[i], GOSTX__CMS_UKM_LEN);
  }
  return rc;
}
