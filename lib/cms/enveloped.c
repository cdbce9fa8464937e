/* EnvelopedData (RFC 5652 section 6) with KeyTransRecipientInfo as
 * R 1323565.1.025-2019 gives it (KeyTransport2019), and the reading of its
 * KeyAgreeRecipientInfo (KEG(our d, the originator's Q, ukm), then KImp15
 * of encryptedKey with IV ukm[24..]; ephemeral or static originator).
 * KeyTransport2019 writes, per recipient, an
 * ephemeral key on the recipient's curve, KEG(ephemeral d, recipient Q,
 * ukm) = K_mac || K_enc, and the content-encryption key exported with
 * KExp15 under them (IV: the ukm's bytes from 24). encryptedKey holds
 *   GostR3410-KeyTransport ::= SEQUENCE { encryptedKey OCTET STRING
 *     (KExp15's output), ephemeralPublicKey SubjectPublicKeyInfo,
 *     ukm OCTET STRING (32 bytes) }.
 * The recipient's key agreement and unwrap are on secrets; the rest is
 * public. The sender's RecipientInfos (KTRI, and KARI with an ephemeral
 * originator) are written by recipient_write.c; here the message around
 * them, from the secrets drawn first (gostx__cms_draw). */
#include "cms/cms_internal.h"
#include "gostx/keywrap.h"

#define UKM_LEN GOSTX__CMS_UKM_LEN

static gostx_alg wrap_alg(gostx__der oid) {
  if (GOSTX__DER_OID_IS(oid, OID_KUZ_KEXP15)) return GOSTX_ALG_KUZNYECHIK;
  if (GOSTX__DER_OID_IS(oid, OID_MAGMA_KEXP15)) return GOSTX_ALG_MAGMA;
  return (gostx_alg)0;
}

static size_t alg_block(gostx_alg alg) { return alg == GOSTX_ALG_KUZNYECHIK ? 16 : 8; }

/* ---- reading ---- */

/* keyEncryptionAlgorithm: { kexp15 OID, SEQUENCE { agreement OID } }, or
 * RFC 4490's (keytrans89.c, keyagree89.c); an unknown wrap is kept as its
 * OID for the refusal to name. */
static int key_enc_alg(gostx__der *r, gostx_cms_recipient *ri, int kari) {
  gostx__der alg, oid, params, agr;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &alg, NULL) || gostx__der_oid(&alg, &oid)) return GOSTX_EFORMAT;
  ri->kea_oid = oid.p, ri->kea_oid_len = oid.n;
  if (kari) {
    int rc = gostx__cms89_kari_alg(oid, alg, ri);
    if (rc) return rc < 0 ? GOSTX_EFORMAT : 0;
  } else if (gostx__cms89_key_alg(oid, ri)) {
    return 0; /* RFC 4490: the key's AlgorithmIdentifier */
  }
  ri->wrap_alg = wrap_alg(oid);
  if (!ri->wrap_alg) return 0;
  if (gostx__der_get(&alg, GOSTX__DER_SEQ, &params, NULL) || alg.n || gostx__der_oid(&params, &agr) ||
      params.n)
    return GOSTX_EFORMAT;
  ri->key_len = GOSTX__DER_OID_IS(agr, OID_AGREEMENT_256)   ? 32
                : GOSTX__DER_OID_IS(agr, OID_AGREEMENT_512) ? 64
                                                            : 0;
  return 0;
}

static int key_trans(gostx__der r, gostx_cms_recipient *ri) {
  gostx__cms_id id;
  gostx__der ek;
  memset(ri, 0, sizeof *ri);
  if (gostx__der_small_uint(&r, &ri->version) || gostx__cms_read_id(&r, &id) ||
      key_enc_alg(&r, ri, 0) || gostx__der_get(&r, GOSTX__DER_OCTETS, &ek, NULL) || r.n)
    return GOSTX_EFORMAT;
  /* RFC 5652 6.2.1: version 0 with issuerAndSerialNumber, 2 with a key id */
  if (ri->version != (id.kind == GOSTX_CMS_SID_KEY_ID ? 2 : 0)) return GOSTX_EFORMAT;
  ri->rid_kind = id.kind;
  ri->rid_issuer = id.issuer.p, ri->rid_issuer_len = id.issuer.n;
  ri->rid_serial = id.serial.p, ri->rid_serial_len = id.serial.n;
  ri->rid_key_id = id.key_id.p, ri->rid_key_id_len = id.key_id.n;
  ri->encrypted_key = ek.p, ri->encrypted_key_len = ek.n;
  return 0;
}

/* KeyAgreeRecipientIdentifier: issuerAndSerialNumber, or [0]
 * RecipientKeyIdentifier { subjectKeyIdentifier, date, other } */
static int kari_rid(gostx__der *r, gostx_cms_recipient *ri) {
  gostx__cms_id id;
  gostx__der rkid, kid;
  if (gostx__der_peek(r, GOSTX__DER_CTXC(0))) {
    if (gostx__der_get(r, GOSTX__DER_CTXC(0), &rkid, NULL) ||
        gostx__der_get(&rkid, GOSTX__DER_OCTETS, &kid, NULL) || kid.n == 0)
      return GOSTX_EFORMAT;
    ri->rid_kind = GOSTX_CMS_SID_KEY_ID, ri->rid_key_id = kid.p, ri->rid_key_id_len = kid.n;
    return 0;
  }
  if (gostx__cms_read_id(r, &id) || id.kind != GOSTX_CMS_SID_ISSUER_SERIAL) return GOSTX_EFORMAT;
  ri->rid_kind = id.kind;
  ri->rid_issuer = id.issuer.p, ri->rid_issuer_len = id.issuer.n;
  ri->rid_serial = id.serial.p, ri->rid_serial_len = id.serial.n;
  return 0;
}

/* originator [0] EXPLICIT OriginatorIdentifierOrKey: a static
 * originator's identifier, or [1] OriginatorPublicKey (ephemeral). */
static int originator(gostx__der *r, gostx_cms_recipient *ri) {
  gostx__der orig, key;
  gostx__cms_id id;
  if (gostx__der_get(r, GOSTX__DER_CTXC(0), &orig, NULL)) return GOSTX_EFORMAT;
  if (gostx__der_peek(&orig, GOSTX__DER_CTXC(1))) {
    if (gostx__der_get(&orig, GOSTX__DER_CTXC(1), &key, NULL) || orig.n) return GOSTX_EFORMAT;
    ri->originator_kind = GOSTX_CMS_ORIGINATOR_KEY, ri->orig_key = key.p, ri->orig_key_len = key.n;
    return 0;
  }
  if (gostx__cms_read_id(&orig, &id) || orig.n) return GOSTX_EFORMAT;
  ri->originator_kind = id.kind;
  ri->orig_issuer = id.issuer.p, ri->orig_issuer_len = id.issuer.n;
  ri->orig_serial = id.serial.p, ri->orig_serial_len = id.serial.n;
  ri->orig_key_id = id.key_id.p, ri->orig_key_id_len = id.key_id.n;
  return 0;
}

/* KeyAgreeRecipientInfo (RFC 5652 6.2.2): one recipient per
 * RecipientEncryptedKey, each with the originator, ukm and algorithm. */
static int key_agree(gostx__der r, gostx_cms_enveloped *env, gostx_cms_status *st) {
  gostx_cms_recipient common;
  gostx__der ukm, octets, reks, rek, ek;
  memset(&common, 0, sizeof common);
  common.kari = 1;
  if (gostx__der_small_uint(&r, &common.version) || common.version != 3 || originator(&r, &common))
    return GOSTX_EFORMAT;
  if (gostx__der_peek(&r, GOSTX__DER_CTXC(1))) { /* ukm [1] EXPLICIT */
    if (gostx__der_get(&r, GOSTX__DER_CTXC(1), &ukm, NULL) ||
        gostx__der_get(&ukm, GOSTX__DER_OCTETS, &octets, NULL) || ukm.n)
      return GOSTX_EFORMAT;
    common.ukm = octets.p, common.ukm_len = octets.n;
  }
  if (key_enc_alg(&r, &common, 1) || gostx__der_get(&r, GOSTX__DER_SEQ, &reks, NULL) || r.n || !reks.n)
    return GOSTX_EFORMAT;
  while (reks.n) {
    if (env->n_recipients == GOSTX_CMS_MAX_RECIPIENTS) return *st = GOSTX_CMS_TOO_MANY_RECIPIENTS, GOSTX_EFORMAT;
    gostx_cms_recipient *ri = &env->recipients[env->n_recipients++];
    *ri = common;
    if (gostx__der_get(&reks, GOSTX__DER_SEQ, &rek, NULL) || kari_rid(&rek, ri) ||
        gostx__der_get(&rek, GOSTX__DER_OCTETS, &ek, NULL) || rek.n)
      return GOSTX_EFORMAT;
    ri->encrypted_key = ek.p, ri->encrypted_key_len = ek.n;
  }
  return 0;
}

/* recipientInfos: KTRIs and KARIs read; the other choices ([2] KEK, [3]
 * password, [4] other) counted. */
static int recipient_infos(gostx__der set, gostx_cms_enveloped *env, gostx_cms_status *st) {
  while (set.n) {
    uint8_t tag;
    gostx__der ri;
    if (gostx__der_next(&set, &tag, &ri, NULL)) return GOSTX_EFORMAT;
    if (tag == GOSTX__DER_CTXC(1)) {
      if (key_agree(ri, env, st)) return GOSTX_EFORMAT;
      continue;
    }
    if (tag != GOSTX__DER_SEQ) {
      if (tag < GOSTX__DER_CTXC(2) || tag > GOSTX__DER_CTXC(4)) return GOSTX_EFORMAT;
      env->n_other_recipients++;
      continue;
    }
    if (env->n_recipients == GOSTX_CMS_MAX_RECIPIENTS) return *st = GOSTX_CMS_TOO_MANY_RECIPIENTS, GOSTX_EFORMAT;
    if (key_trans(ri, &env->recipients[env->n_recipients++])) return GOSTX_EFORMAT;
  }
  return env->n_recipients + env->n_other_recipients ? 0 : GOSTX_EFORMAT;
}

int gostx__cms_enveloped_head(gostx__der *ed, gostx_cms_enveloped *env, gostx_cms_status *st) {
  gostx__der set;
  if (gostx__der_small_uint(ed, &env->version) || env->version > 4) return GOSTX_EFORMAT;
  if (gostx__der_peek(ed, GOSTX__DER_CTXC(0)) && gostx__der_get(ed, GOSTX__DER_CTXC(0), NULL, NULL))
    return GOSTX_EFORMAT; /* originatorInfo: certificates a KARI may need, not read yet */
  if (gostx__der_get(ed, GOSTX__DER_SET, &set, NULL) || recipient_infos(set, env, st))
    return GOSTX_EFORMAT;
  return 0;
}

static int enveloped_content(gostx__der *ed, void *out, gostx_cms_status *st) {
  gostx_cms_enveloped *env = out;
  return gostx__cms_enveloped_head(ed, env, st) ||
         gostx__cms_read_encrypted_content(ed, &env->content, st);
}

int gostx_cms_enveloped_parse(const uint8_t *der, size_t der_len, gostx_cms_enveloped *out,
                              gostx_cms_status *st) {
  int rc = gostx__cms_parse(der, der_len, out, sizeof *out, OID_ENVELOPED_DATA,
                            sizeof OID_ENVELOPED_DATA - 1, enveloped_content, st);
  if (!rc) out->der = der, out->der_len = der_len;
  return rc;
}

/* ---- the recipient's side ---- */

static const gostx_cms_recipient *find_recipient(const gostx_cms_enveloped *env,
                                                 const gostx_x509_cert *cert) {
  for (size_t i = 0; i < env->n_recipients; i++) {
    const gostx_cms_recipient *ri = &env->recipients[i];
    gostx__cms_id id = {ri->rid_kind,
                        {ri->rid_issuer, ri->rid_issuer_len},
                        {ri->rid_serial, ri->rid_serial_len},
                        {ri->rid_key_id, ri->rid_key_id_len}};
    if (gostx__cms_cert_is(cert, &id)) return ri;
  }
  return NULL;
}

/* KImp15 of psexp under KEG(our d, the peer's Q, ukm): the CEK. */
static int kimp(const gostx_cms_recipient *ri, const gostx_gost3410_key *key,
                const gostx_gost3410_key *peer, const uint8_t *ukm, size_t ukm_len,
                const uint8_t *psexp, size_t psexp_len, uint8_t cek[32], gostx_cms_status *st) {
  gostx_cipher mac, enc;
  size_t n = alg_block(ri->wrap_alg), cek_len = 0;
  if (ukm_len != UKM_LEN) return *st = GOSTX_CMS_MALFORMED, GOSTX_EFORMAT;
  if (peer->curve != key->curve) return *st = GOSTX_CMS_KEY_MISMATCH, GOSTX_EFORMAT;
  memset(&mac, 0, sizeof mac);
  memset(&enc, 0, sizeof enc);
  int rc = gostx__cms_kexp_keys(ri->wrap_alg, key, peer->q, ukm, &mac, &enc);
  /* KImp15's MAC verdict is secret-derived: branched on only through
   * gostx__verdict (the constant-time gate's one door, lib/common.c). */
  if (!rc && (psexp_len != 32 + n ||
              gostx__verdict(gostx_kimp15(&enc, &mac, ukm + 24, n / 2, psexp, psexp_len, cek,
                                          &cek_len))))
    rc = GOSTX_EAUTH, *st = GOSTX_CMS_WRONG_KEY;
  gostx_cipher_clear(&mac);
  gostx_cipher_clear(&enc);
  return rc;
}

/* GostR3410-KeyTransport unwrapped with the recipient's key: the CEK. */
static int unwrap_ktri(const gostx_cms_recipient *ri, const gostx_gost3410_key *key, uint8_t cek[32],
                       gostx_cms_status *st) {
  gostx__der r = {ri->encrypted_key, ri->encrypted_key_len}, kt, psexp, spki, ukm;
  gostx_gost3410_key eph;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &kt, NULL) || r.n ||
      gostx__der_get(&kt, GOSTX__DER_OCTETS, &psexp, NULL) ||
      gostx__der_get(&kt, GOSTX__DER_SEQ, NULL, &spki) ||
      gostx__der_get(&kt, GOSTX__DER_OCTETS, &ukm, NULL) || kt.n ||
      gostx_gost3410_key_read(&eph, spki.p, spki.n, NULL, 0) || eph.has_private)
    return *st = GOSTX_CMS_MALFORMED, GOSTX_EFORMAT;
  return kimp(ri, key, &eph, ukm.p, ukm.n, psexp.p, psexp.n, cek, st);
}

/* The KARI's originator key: its OriginatorPublicKey read as the
 * SubjectPublicKeyInfo it is under its [1] tag, or the static
 * originator's certificate, which must be the one named. */
static int originator_key(const gostx_cms_recipient *ri, const gostx_x509_cert *originator,
                          gostx_gost3410_key *peer, gostx_cms_status *st) {
  if (ri->originator_kind == GOSTX_CMS_ORIGINATOR_KEY) {
    uint8_t spki[GOSTX_GOST3410_DER_MAX];
    size_t len = 0;
    gostx__der_w w;
    gostx__der_w_init(&w, spki, sizeof spki);
    gostx__der_w_tlv(&w, GOSTX__DER_SEQ, ri->orig_key, ri->orig_key_len);
    if (gostx__der_w_finish(&w, &len) || gostx_gost3410_key_read(peer, spki, len, NULL, 0) ||
        peer->has_private)
      return *st = GOSTX_CMS_MALFORMED, GOSTX_EFORMAT;
    return 0;
  }
  gostx__cms_id id = {ri->originator_kind,
                      {ri->orig_issuer, ri->orig_issuer_len},
                      {ri->orig_serial, ri->orig_serial_len},
                      {ri->orig_key_id, ri->orig_key_id_len}};
  if (!originator || !gostx__cms_cert_is(originator, &id))
    return *st = GOSTX_CMS_ORIGINATOR_NOT_FOUND, GOSTX_EAUTH;
  if (gostx_gost3410_key_set_public(peer, originator->curve, originator->pub, originator->pub_len, NULL))
    return *st = GOSTX_CMS_KEY_MISMATCH, GOSTX_EFORMAT;
  return 0;
}

static int unwrap(const gostx_cms_recipient *ri, const gostx_gost3410_key *key,
                  const gostx_x509_cert *originator, uint8_t cek[32], gostx_cms_status *st) {
  gostx_gost3410_key peer;
  if (!ri->kari) return ri->rfc4490 ? gostx__cms89_unwrap(ri, key, cek, st) : unwrap_ktri(ri, key, cek, st);
  int rc = originator_key(ri, originator, &peer, st);
  if (!rc && ri->rfc4490) return gostx__cms89_kari_unwrap(ri, key, &peer, cek, st);
  if (!rc) rc = kimp(ri, key, &peer, ri->ukm, ri->ukm_len, ri->encrypted_key, ri->encrypted_key_len, cek, st);
  return rc;
}

static int key_is_cert(const gostx_gost3410_key *k, const gostx_x509_cert *c) {
  return gostx_gost3410_key_is_private(k) && c->curve == k->curve && c->pub_len == 2 * k->len &&
         memcmp(c->pub, k->q, 2 * k->len) == 0;
}

/* Without the recipient's certificate (openssl cms -decrypt with -inkey
 * alone): every recipient of key's size is tried, all of them even after
 * one opens, so the time says how many could be ours (the message's
 * public shape), not which one opened. Each try's refusal is KImp15's MAC
 * (a wrong key is told from a changed encryptedKey by no one, and neither
 * says anything of d: the KEG and unwrap run in constant time); the CEK
 * is the first that opened. */
static int cek_any(const gostx_cms_enveloped *env, const gostx_gost3410_key *key,
                   const gostx_x509_cert *originator, uint8_t cek[32], gostx_cms_status *st) {
  uint8_t tried[32];
  int opened = 0;
  /* nothing opened: the key is blamed only when every recipient could be tried */
  gostx_cms_status why = env->n_recipients ? GOSTX_CMS_RECIPIENT_NOT_FOUND : GOSTX_CMS_RECIPIENT_KIND;
  gostx_cms_status s = GOSTX_CMS_OK;
  int failed = 0;
  for (size_t i = 0; i < env->n_recipients && !failed; i++) {
    const gostx_cms_recipient *ri = &env->recipients[i];
    if (!ri->wrap_alg && why != GOSTX_CMS_ORIGINATOR_NOT_FOUND) why = GOSTX_CMS_UNKNOWN_KEY_WRAP;
    if (!ri->wrap_alg || ri->key_len != key->len) continue;
    int rc = unwrap(ri, key, originator, tried, &s);
    if (!rc) {
      if (!opened) memcpy(cek, tried, 32);
      opened = 1;
    } else if (s == GOSTX_CMS_ORIGINATOR_NOT_FOUND) {
      why = s; /* a static originator's certificate might have opened it */
    } else if (rc != GOSTX_EAUTH && rc != GOSTX_EFORMAT && rc != GOSTX_EINVAL) {
      failed = rc; /* the key itself failed (an external key's token): no recipient is "wrong" */
    }
  }
  gostx_memzero(tried, sizeof tried);
  if (failed) {
    gostx_memzero(cek, 32);
    return failed;
  }
  if (opened) return 0;
  *st = why;
  return why == GOSTX_CMS_UNKNOWN_KEY_WRAP ? GOSTX_EFORMAT : GOSTX_EAUTH;
}

static int decrypt_args_ok(const gostx_cms_enveloped *env, const gostx_x509_cert *cert,
                           const gostx_gost3410_key *key) {
  return env && gostx_gost3410_key_is_private(key) && (!cert || key_is_cert(key, cert));
}

/* The checks before any unwrap, which a size query makes too: the
 * recipient named by cert present, the algorithms known and of key's size. */
static int decrypt_checks(const gostx_cms_enveloped *env, const gostx_x509_cert *cert,
                          const gostx_gost3410_key *key, gostx_cms_status *st) {
  if (!cert) return env->content.cipher ? 0 : (*st = GOSTX_CMS_UNKNOWN_CIPHER, GOSTX_EFORMAT);
  const gostx_cms_recipient *ri = find_recipient(env, cert);
  if (!ri)
    return *st = env->n_recipients ? GOSTX_CMS_RECIPIENT_NOT_FOUND : GOSTX_CMS_RECIPIENT_KIND, GOSTX_EAUTH;
  if (!ri->wrap_alg) return *st = GOSTX_CMS_UNKNOWN_KEY_WRAP, GOSTX_EFORMAT;
  if (!env->content.cipher) return *st = GOSTX_CMS_UNKNOWN_CIPHER, GOSTX_EFORMAT;
  if (ri->key_len != key->len) return *st = GOSTX_CMS_KEY_MISMATCH, GOSTX_EFORMAT;
  return 0;
}

int gostx__cms_enveloped_cek(const gostx_cms_enveloped *env, const gostx_x509_cert *cert,
                             const gostx_gost3410_key *key, const gostx_x509_cert *originator,
                             uint8_t cek[32], gostx_cms_status *st) {
  if (!decrypt_args_ok(env, cert, key)) return GOSTX_EINVAL;
  int rc = decrypt_checks(env, cert, key, st);
  if (rc) return rc;
  return cert ? unwrap(find_recipient(env, cert), key, originator, cek, st)
              : cek_any(env, key, originator, cek, st);
}

int gostx_cms_enveloped_decrypt(const gostx_cms_enveloped *env, const gostx_x509_cert *cert,
                                const gostx_gost3410_key *key, const gostx_x509_cert *originator,
                                uint8_t *out, size_t cap,
                                size_t *out_len, gostx_cms_status *st) {
  gostx_cms_status dummy;
  if (!st) st = &dummy;
  *st = GOSTX_CMS_OK;
  if (!out_len || !decrypt_args_ok(env, cert, key)) return GOSTX_EINVAL;
  int rc = decrypt_checks(env, cert, key, st);
  if (rc) return rc;
  if (!out) return *out_len = env->content.ciphertext_len, 0;
  uint8_t cek[32];
  rc = gostx__cms_enveloped_cek(env, cert, key, originator, cek, st);
  if (!rc) rc = gostx__cms_open(&env->content, cek, out, cap, out_len, st);
  gostx_memzero(cek, sizeof cek);
  return rc;
}

/* ---- the sender's side ---- */

static int recipient_ok(const gostx_x509_cert *c) {
  size_t len = c->key_alg == GOSTX_X509_KEY_2001 ? 0 : gostx_gost3410_size(c->curve);
  return (len == 32 || len == 64) && c->pub_len == 2 * len;
}

static gostx_alg wrap_family(gostx_cms_cipher cipher) {
  return cipher == GOSTX_CMS_KUZNYECHIK || cipher == GOSTX_CMS_KUZNYECHIK_OMAC ? GOSTX_ALG_KUZNYECHIK
                                                                               : GOSTX_ALG_MAGMA;
}

/* A static originator: KARI only, its key the certificate's (private
 * part set), named as p->key_id asks, on each recipient's curve (KEG
 * agrees only on one curve). */
static int static_originator_ok(const gostx_x509_cert *recipients, size_t n,
                                const gostx_cms_encrypt_params *p) {
  const gostx_x509_cert *c = p->originator;
  const gostx_gost3410_key *k = p->originator_key;
  const uint8_t *kid;
  size_t kid_len;
  if (!p->kari || !c || !gostx_gost3410_key_is_private(k) || !recipient_ok(c) || k->curve != c->curve ||
      c->pub_len != 2 * k->len || memcmp(c->pub, k->q, c->pub_len) ||
      (p->key_id && !gostx__cms_cert_key_id(c, &kid, &kid_len)))
    return 0;
  for (size_t i = 0; i < n; i++)
    if (recipients[i].curve != c->curve) return 0;
  return 1;
}

int gostx__cms_encrypt_params_ok(const gostx_x509_cert *recipients, size_t n,
                                 const gostx_cms_encrypt_params *p) {
  const uint8_t *kid;
  size_t kid_len;
  if (!recipients || !p || n == 0 || n > GOSTX_CMS_MAX_RECIPIENTS ||
      p->cipher < GOSTX_CMS_KUZNYECHIK || p->cipher > GOSTX_CMS_GOST89)
    return 0;
  /* RFC 4490's recipients are written as key transport by issuer and serial */
  if (p->cipher == GOSTX_CMS_GOST89 && (p->kari || p->key_id)) return 0;
  for (size_t i = 0; i < n; i++)
    if (!recipient_ok(&recipients[i]) ||
        (p->key_id && !gostx__cms_cert_key_id(&recipients[i], &kid, &kid_len)))
      return 0;
  return !p->originator && !p->originator_key ? 1 : static_originator_ok(recipients, n, p);
}

/* RFC 5652 6.1: version 0 only when every RecipientInfo is version 0 and
 * unprotectedAttrs is absent, else 2 (a KARI is version 3, a KTRI by key
 * id 2; -OMAC content carries its MAC attribute). */
uint32_t gostx__cms_enveloped_version(const gostx_cms_encrypt_params *p) {
  return gostx_cms_cipher_has_mac(p->cipher) || p->kari || p->key_id ? 2 : 0;
}

int gostx__cms_write_recipient_infos(gostx__der_w *w, const gostx_x509_cert *recipients, size_t n,
                                     const gostx_cms_encrypt_params *p,
                                     const gostx__cms_sender_draw *draw) {
  static const uint8_t zero_cek[32];
  gostx_alg alg = wrap_family(p->cipher);
  int rc = 0;
  gostx__der_w_begin(w, GOSTX__DER_SET); /* in the caller's order, as signerInfos */
  for (size_t i = 0; i < n && !rc; i++)
    rc = p->cipher == GOSTX_CMS_GOST89
             ? gostx__cms89_write_ktri(w, &recipients[i], draw ? draw->cek : zero_cek, !draw)
             : gostx__cms_write_recipient(w, &recipients[i], p, alg, draw, i);
  gostx__der_w_end(w);
  return rc;
}

int gostx__cms_encrypt_drawn(const gostx_x509_cert *recipients, size_t n,
                             const gostx_cms_encrypt_params *p, const gostx__cms_sender_draw *draw,
                             const uint8_t *content, size_t len, uint8_t *out, size_t cap,
                             size_t *out_len) {
  int count = out == NULL;
  if (!out_len || (!content && len) || (!count && !draw) ||
      !gostx__cms_encrypt_params_ok(recipients, n, p))
    return GOSTX_EINVAL;
  gostx__der_w w;
  gostx__cms_w_open(&w, out, cap, "1.2.840.113549.1.7.3");
  gostx__der_w_u32(&w, gostx__cms_enveloped_version(p));
  int rc = gostx__cms_write_recipient_infos(&w, recipients, n, p, count ? NULL : draw);
  if (!rc) rc = gostx__cms_write_encrypted_content(&w, p->cipher, content, len, count);
  gostx__cms_write_mac_attr(&w, p->cipher);
  gostx__cms_w_close(&w);
  if (!rc) rc = gostx__der_w_finish(&w, out_len);
  gostx_cms_enveloped env;
  if (!rc && !count && gostx_cms_enveloped_parse(out, *out_len, &env, NULL)) rc = GOSTX_EINVAL;
  if (!rc && !count) rc = gostx__cms_seal(out, &env.content, draw->cek);
  if (rc && out) gostx_memzero(out, cap); /* no plaintext left behind */
  return rc;
}

int gostx_cms_encrypt_with(const gostx_x509_cert *recipients, size_t n,
                           const gostx_cms_encrypt_params *p, const uint8_t *content, size_t len,
                           uint8_t *out, size_t cap, size_t *out_len) {
  if (!out || !gostx__cms_encrypt_params_ok(recipients, n, p))
    return gostx__cms_encrypt_drawn(recipients, n, p, NULL, content, len, out, cap, out_len);
  gostx__cms_sender_draw draw;
  int rc = gostx__cms_draw(recipients, n, p, &draw);
  if (!rc) rc = gostx__cms_encrypt_drawn(recipients, n, p, &draw, content, len, out, cap, out_len);
  gostx_memzero(&draw, sizeof draw);
  return rc;
}

int gostx_cms_encrypt(const gostx_x509_cert *recipients, size_t n, gostx_cms_cipher cipher,
                      const uint8_t *content, size_t len, uint8_t *out, size_t cap,
                      size_t *out_len) {
  gostx_cms_encrypt_params p = {cipher, 0, 0, NULL, NULL};
  return gostx_cms_encrypt_with(recipients, n, &p, content, len, out, cap, out_len);
}
