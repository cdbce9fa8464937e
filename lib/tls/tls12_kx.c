/* The ClientKeyExchange bodies of RFC 9189 section 4.2.4 in DER: the
 * GostKeyTransport of the CTR_OMAC suites and the TLSGostKeyTransportBlob
 * (RFC 4490's GostR3410-KeyTransport) of CNT_IMIT, written and read for
 * exactly these fields, on lib/asn1's DER reader and writer. The reader
 * takes bytes from the network: only minimal definite lengths pass, and
 * nothing may follow. The key inside is an ordinary
 * SubjectPublicKeyInfo, left to lib/gost3410's strict reader. */
#include "asn1/der.h"
#include "tls12_internal.h"

#define OID_PARAM_Z "1.2.643.7.1.2.5.1.1" /* id-tc26-gost-28147-param-Z: the blob's encryptionParamSet */
#define OID_STREEBOG256 "1.2.643.7.1.1.2.2"
#define OID_STREEBOG512 "1.2.643.7.1.1.2.3"

/* What w wrote into out: its length, or GOSTX_EINVAL when cap was short
 * (these bodies are sized by the caller's message buffer). */
static int written(const gostx__der_w *w, size_t *out_len) {
  int rc = gostx__der_w_finish(w, out_len);
  return rc == GOSTX_ELEN ? GOSTX_EINVAL : rc;
}

/* The SubjectPublicKeyInfo of q_eph into spki (cap bytes), its parameters
 * always SEQUENCE { curve, digest } as RFC 9189's examples send them (and
 * RFC 4491 wrote them): lib/gost3410 leaves the digest out for 512-bit
 * keys, as RFC 9215 allows, so it is put back here. */
static int spki_of(gostx_gost3410_curve curve, const uint8_t *q, size_t q_len, uint8_t *spki,
                   size_t cap, size_t *spki_len);
static int key_of(const uint8_t *spki, size_t len, gostx_gost3410_curve *curve, uint8_t *q,
                  size_t q_cap, size_t *q_len);

/* With like (the server certificate's SubjectPublicKeyInfo, on the same
 * curve): like with its point replaced by q's. openssl + gost-engine and
 * GnuTLS compare the parameter OIDs, not the curves (a 256B key named by
 * tc26-256-paramSetB is not "the same" as one named CryptoPro-A), so the
 * ephemeral key copies the server's exactly. The point is the SPKI's last
 * 2 * size bytes (BIT STRING { OCTET STRING point }). */
static int spki_for(gostx_gost3410_curve curve, const uint8_t *q, size_t q_len,
                    const uint8_t *like, size_t like_len, uint8_t *spki, size_t cap,
                    size_t *spki_len) {
  int rc = spki_of(curve, q, q_len, spki, cap, spki_len);
  if (rc != GOSTX_OK || !like) return rc;
  size_t pl = 2 * gostx_gost3410_size(curve), n = *spki_len;
  gostx_gost3410_curve like_curve;
  uint8_t like_q[128];
  size_t like_q_len;
  /* like must be a key of this curve whose encoding ends with its point. */
  if (like_len > cap || like_len < pl + 4 || n < pl ||
      key_of(like, like_len, &like_curve, like_q, sizeof like_q, &like_q_len) != GOSTX_OK ||
      like_curve != curve || like[like_len - pl - 1] != (pl == 64 ? 0x40 : 0x80))
    return GOSTX_EINVAL;
  uint8_t point[128];
  memcpy(point, spki + n - pl, pl);
  memcpy(spki, like, like_len);
  memcpy(spki + like_len - pl, point, pl);
  *spki_len = like_len;
  return GOSTX_OK;
}

static int spki_of(gostx_gost3410_curve curve, const uint8_t *q, size_t q_len, uint8_t *spki,
                   size_t cap, size_t *spki_len) {
  if (!q) return GOSTX_EINVAL;
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t n;
  gostx_gost3410_key key;
  int rc = gostx_gost3410_key_set_public(&key, curve, q, q_len, NULL);
  if (rc == GOSTX_OK)
    rc = gostx_gost3410_key_write(&key, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL, der,
                                  sizeof der, &n);
  if (rc != GOSTX_OK) return rc;
  gostx__der all = {der, n}, spk, alg, params, alg_oid, curve_oid, bits;
  if (gostx__der_get(&all, GOSTX__DER_SEQ, &spk, NULL) ||
      gostx__der_get(&spk, GOSTX__DER_SEQ, &alg, NULL) ||
      gostx__der_get(&spk, GOSTX__DER_BITS, NULL, &bits) ||
      gostx__der_get(&alg, GOSTX__DER_OID, NULL, &alg_oid) ||
      gostx__der_get(&alg, GOSTX__DER_SEQ, &params, NULL) ||
      gostx__der_get(&params, GOSTX__DER_OID, NULL, &curve_oid))
    return GOSTX_EFORMAT;
  if (!gostx__der_done(&params)) { /* the digest is there already */
    if (cap < n) return GOSTX_EINVAL;
    memcpy(spki, der, n);
    *spki_len = n;
    return GOSTX_OK;
  }
  gostx__der_w w;
  gostx__der_w_init(&w, spki, cap);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_raw(&w, alg_oid.p, alg_oid.n);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_raw(&w, curve_oid.p, curve_oid.n);
  gostx__der_w_oid(&w, gostx_gost3410_size(curve) == 64 ? OID_STREEBOG512 : OID_STREEBOG256);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  gostx__der_w_raw(&w, bits.p, bits.n);
  gostx__der_w_end(&w);
  return written(&w, spki_len);
}

/* A public key from its SubjectPublicKeyInfo (tag already 0x30). */
static int key_of(const uint8_t *spki, size_t len, gostx_gost3410_curve *curve, uint8_t *q,
                  size_t q_cap, size_t *q_len) {
  gostx_gost3410_key key;
  int rc = gostx_gost3410_key_read(&key, spki, len, NULL, 0); /* no password: nothing decrypted */
  /* a private key, or an encrypted one (GOSTX_EAUTH), is no public key */
  if (rc == GOSTX_EAUTH || (rc == GOSTX_OK && (key.has_private || q_cap < 2 * key.len)))
    rc = GOSTX_EFORMAT;
  if (rc == GOSTX_OK) {
    *curve = key.curve;
    *q_len = 2 * key.len;
    memcpy(q, key.q, *q_len);
  }
  gostx_gost3410_key_clear(&key);
  return rc;
}

int gostx__tls12_gkt_write(const uint8_t *key_exp, size_t key_exp_len, gostx_gost3410_curve curve,
                           const uint8_t *q_eph, size_t q_len, const uint8_t *like,
                           size_t like_len, uint8_t *out, size_t cap, size_t *out_len) {
  if (!key_exp || !out || !out_len) return GOSTX_EINVAL;
  if (key_exp_len == 0 || key_exp_len > 64) return GOSTX_ELEN;
  uint8_t spki[GOSTX_GOST3410_DER_MAX];
  size_t spki_len;
  int rc = spki_for(curve, q_eph, q_len, like, like_len, spki, sizeof spki, &spki_len);
  if (rc != GOSTX_OK) return rc;
  gostx__der_w w;
  gostx__der_w_init(&w, out, cap);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, key_exp, key_exp_len);
  gostx__der_w_raw(&w, spki, spki_len);
  gostx__der_w_end(&w);
  return written(&w, out_len);
}

int gostx__tls12_gkt_read(const uint8_t *der, size_t der_len, const uint8_t **key_exp,
                          size_t *key_exp_len, gostx_gost3410_curve *curve, uint8_t *q_eph,
                          size_t q_cap, size_t *q_len) {
  if (!der || !key_exp || !key_exp_len || !curve || !q_eph || !q_len) return GOSTX_EINVAL;
  gostx__der all = {der, der_len}, body, key, spki, ukm;
  if (gostx__der_get(&all, GOSTX__DER_SEQ, &body, NULL) || !gostx__der_done(&all) ||
      gostx__der_get(&body, GOSTX__DER_OCTETS, &key, NULL) || key.n == 0 ||
      gostx__der_get(&body, GOSTX__DER_SEQ, NULL, &spki))
    return GOSTX_EFORMAT;
  /* the optional ukm, ignored, and then nothing */
  if (!gostx__der_done(&body) &&
      (gostx__der_get(&body, GOSTX__DER_OCTETS, &ukm, NULL) || !gostx__der_done(&body)))
    return GOSTX_EFORMAT;
  int rc = key_of(spki.p, spki.n, curve, q_eph, q_cap, q_len);
  if (rc != GOSTX_OK) return rc;
  *key_exp = key.p;
  *key_exp_len = key.n;
  return GOSTX_OK;
}

int gostx__tls12_blob_write(const uint8_t kexp[GOSTX__TLS12_KEXP28147_LEN],
                            gostx_gost3410_curve curve, const uint8_t *q_eph, size_t q_len,
                            const uint8_t *like, size_t like_len, uint8_t *out, size_t cap,
                            size_t *out_len) {
  if (!kexp || !out || !out_len) return GOSTX_EINVAL;
  uint8_t spki[GOSTX_GOST3410_DER_MAX];
  size_t spki_len;
  int rc = spki_for(curve, q_eph, q_len, like, like_len, spki, sizeof spki, &spki_len);
  if (rc != GOSTX_OK) return rc;
  gostx__der r = {spki, spki_len}, spki_body;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &spki_body, NULL)) return GOSTX_EINVAL;
  gostx__der_w w;
  gostx__der_w_init(&w, out, cap);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ); /* TLSGostKeyTransportBlob */
  gostx__der_w_begin(&w, GOSTX__DER_SEQ); /* GostR3410-KeyTransport */
  gostx__der_w_begin(&w, GOSTX__DER_SEQ); /* Gost28147-89-EncryptedKey */
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, kexp + 8, 32);
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, kexp + 40, 4);
  gostx__der_w_end(&w);
  gostx__der_w_begin(&w, GOSTX__DER_CTXC(0)); /* GostR3410-TransportParameters */
  gostx__der_w_oid(&w, OID_PARAM_Z);
  /* [0] IMPLICIT SubjectPublicKeyInfo */
  gostx__der_w_tlv(&w, GOSTX__DER_CTXC(0), spki_body.p, spki_body.n);
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, kexp, 8); /* ukm */
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  return written(&w, out_len);
}

int gostx__tls12_blob_read(const uint8_t *der, size_t der_len,
                           uint8_t kexp[GOSTX__TLS12_KEXP28147_LEN], gostx_gost3410_curve *curve,
                           uint8_t *q_eph, size_t q_cap, size_t *q_len) {
  if (!der || !kexp || !curve || !q_eph || !q_len) return GOSTX_EINVAL;
  gostx__der all = {der, der_len}, blob, kt, ek, params, enc, mac, oid, spki, ukm;
  if (gostx__der_get(&all, GOSTX__DER_SEQ, &blob, NULL) || !gostx__der_done(&all) ||
      gostx__der_get(&blob, GOSTX__DER_SEQ, &kt, NULL) || !gostx__der_done(&blob) ||
      gostx__der_get(&kt, GOSTX__DER_SEQ, &ek, NULL) ||
      gostx__der_get(&kt, GOSTX__DER_CTXC(0), &params, NULL) || !gostx__der_done(&kt))
    return GOSTX_EFORMAT;
  /* Gost28147-89-EncryptedKey: no maskKey */
  if (gostx__der_get(&ek, GOSTX__DER_OCTETS, &enc, NULL) || enc.n != 32 ||
      gostx__der_get(&ek, GOSTX__DER_OCTETS, &mac, NULL) || mac.n != 4 || !gostx__der_done(&ek))
    return GOSTX_EFORMAT;
  if (gostx__der_oid(&params, &oid)) return GOSTX_EFORMAT;
  if (!GOSTX__DER_OID_IS(oid, "\x2a\x85\x03\x07\x01\x02\x05\x01\x01")) return GOSTX_EUNSUP;
  if (gostx__der_get(&params, GOSTX__DER_CTXC(0), &spki, NULL) ||
      gostx__der_get(&params, GOSTX__DER_OCTETS, &ukm, NULL) || ukm.n != 8 ||
      !gostx__der_done(&params))
    return GOSTX_EFORMAT;
  /* the [0] IMPLICIT key as the SubjectPublicKeyInfo it is */
  uint8_t buf[GOSTX_GOST3410_DER_MAX];
  gostx__der_w w;
  size_t sn;
  gostx__der_w_init(&w, buf, sizeof buf);
  gostx__der_w_tlv(&w, GOSTX__DER_SEQ, spki.p, spki.n);
  if (gostx__der_w_finish(&w, &sn)) return GOSTX_EFORMAT;
  int rc = key_of(buf, sn, curve, q_eph, q_cap, q_len);
  if (rc != GOSTX_OK) return rc;
  memcpy(kexp, ukm.p, 8);
  memcpy(kexp + 8, enc.p, 32);
  memcpy(kexp + 40, mac.p, 4);
  return GOSTX_OK;
}
