/* The ClientKeyExchange bodies of RFC 9189 section 4.2.4 in DER: the
 * GostKeyTransport of the CTR_OMAC suites and the TLSGostKeyTransportBlob
 * (RFC 4490's GostR3410-KeyTransport) of CNT_IMIT, written and read for
 * exactly these fields. The reader takes bytes from the network: every
 * length is checked against what is left, only minimal definite lengths
 * pass, and nothing may follow. The key inside is an ordinary
 * SubjectPublicKeyInfo, left to lib/gost3410's strict reader. */
#include "tls12_internal.h"

/* id-tc26-gost-28147-param-Z, 1.2.643.7.1.2.5.1.1: the blob's encryptionParamSet. */
static const uint8_t param_z[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x05, 0x01, 0x01};

static size_t hdr_len(size_t len) { return len < 0x80 ? 2 : len < 0x100 ? 3 : 4; }

static uint8_t *put_hdr(uint8_t *p, uint8_t tag, size_t len) {
  *p++ = tag;
  if (len >= 0x100) *p++ = 0x82, *p++ = (uint8_t)(len >> 8);
  else if (len >= 0x80) *p++ = 0x81;
  *p++ = (uint8_t)len;
  return p;
}

/* One TLV of tag at *p (before end): *val, *len its contents; *p past it. */
static int get_tlv(const uint8_t **p, const uint8_t *end, uint8_t tag, const uint8_t **val,
                   size_t *len) {
  const uint8_t *q = *p;
  if (end - q < 2 || q[0] != tag) return GOSTX_EFORMAT;
  size_t n = q[1];
  q += 2;
  if (n == 0x81) {
    if (end - q < 1 || q[0] < 0x80) return GOSTX_EFORMAT;
    n = *q++;
  } else if (n == 0x82) {
    if (end - q < 2 || q[0] == 0 || (q[0] << 8 | q[1]) < 0x100) return GOSTX_EFORMAT;
    n = (size_t)q[0] << 8 | q[1];
    q += 2;
  } else if (n >= 0x80) {
    return GOSTX_EFORMAT;
  }
  if ((size_t)(end - q) < n) return GOSTX_EFORMAT;
  *val = q;
  *len = n;
  *p = q + n;
  return GOSTX_OK;
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
  static const uint8_t digest[2][10] = {
      {0x06, 0x08, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x02},  /* Streebog-256 */
      {0x06, 0x08, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x03}}; /* Streebog-512 */
  if (!q) return GOSTX_EINVAL;
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  size_t n;
  int rc = gostx_gost3410_pub_to_der(curve, q, q_len, der, sizeof der, &n);
  if (rc != GOSTX_OK) return rc;
  const uint8_t *p = der, *end = der + n, *spk, *alg, *oid, *params, *bits;
  size_t sl, al, ol, pl, bl;
  if (get_tlv(&p, end, 0x30, &spk, &sl) != GOSTX_OK) return GOSTX_EFORMAT;
  p = spk, end = spk + sl;
  if (get_tlv(&p, end, 0x30, &alg, &al) != GOSTX_OK) return GOSTX_EFORMAT;
  const uint8_t *bits_tlv = p;
  if (get_tlv(&p, end, 0x03, &bits, &bl) != GOSTX_OK) return GOSTX_EFORMAT;
  size_t bits_len = (size_t)(p - bits_tlv);
  p = alg, end = alg + al;
  if (get_tlv(&p, end, 0x06, &oid, &ol) != GOSTX_OK) return GOSTX_EFORMAT;
  const uint8_t *oid_tlv = alg;
  size_t oid_len = (size_t)(p - alg);
  if (get_tlv(&p, end, 0x30, &params, &pl) != GOSTX_OK) return GOSTX_EFORMAT;
  const uint8_t *pp = params, *cv;
  size_t cl;
  if (get_tlv(&pp, params + pl, 0x06, &cv, &cl) != GOSTX_OK) return GOSTX_EFORMAT;
  if (pp != params + pl) { /* the digest is there already */
    if (cap < n) return GOSTX_EINVAL;
    memcpy(spki, der, n);
    *spki_len = n;
    return GOSTX_OK;
  }
  const uint8_t *dg = digest[gostx_gost3410_size(curve) == 64];
  size_t npl = pl + 10, nal = oid_len + hdr_len(npl) + npl, nsl = hdr_len(nal) + nal + bits_len;
  size_t total = hdr_len(nsl) + nsl;
  if (cap < total) return GOSTX_EINVAL;
  uint8_t *w = put_hdr(spki, 0x30, nsl);
  w = put_hdr(w, 0x30, nal);
  memcpy(w, oid_tlv, oid_len), w += oid_len;
  w = put_hdr(w, 0x30, npl);
  memcpy(w, params, pl), w += pl;
  memcpy(w, dg, 10), w += 10;
  memcpy(w, bits_tlv, bits_len);
  *spki_len = total;
  return GOSTX_OK;
}

/* A public key from its SubjectPublicKeyInfo (tag already 0x30). */
static int key_of(const uint8_t *spki, size_t len, gostx_gost3410_curve *curve, uint8_t *q,
                  size_t q_cap, size_t *q_len) {
  gostx_gost3410_key_kind kind;
  size_t n;
  int rc = gostx_gost3410_key_from_der(spki, len, &kind, curve, &n, NULL, 0, q, q_cap);
  if (rc == GOSTX_OK && kind != GOSTX_GOST3410_KEY_PUBLIC) rc = GOSTX_EFORMAT;
  if (rc == GOSTX_OK) *q_len = 2 * n;
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
  size_t inner = 2 + key_exp_len + spki_len, total = hdr_len(inner) + inner;
  if (cap < total) return GOSTX_EINVAL;
  uint8_t *p = put_hdr(out, 0x30, inner);
  p = put_hdr(p, 0x04, key_exp_len);
  memcpy(p, key_exp, key_exp_len);
  memcpy(p + key_exp_len, spki, spki_len);
  *out_len = total;
  return GOSTX_OK;
}

int gostx__tls12_gkt_read(const uint8_t *der, size_t der_len, const uint8_t **key_exp,
                          size_t *key_exp_len, gostx_gost3410_curve *curve, uint8_t *q_eph,
                          size_t q_cap, size_t *q_len) {
  if (!der || !key_exp || !key_exp_len || !curve || !q_eph || !q_len) return GOSTX_EINVAL;
  const uint8_t *p = der, *end = der + der_len, *seq, *v, *spki;
  size_t n, kn, sn;
  int rc = get_tlv(&p, end, 0x30, &seq, &n);
  if (rc != GOSTX_OK || p != end) return GOSTX_EFORMAT;
  p = seq;
  end = seq + n;
  if (get_tlv(&p, end, 0x04, &v, &kn) != GOSTX_OK || kn == 0) return GOSTX_EFORMAT;
  spki = p;
  if (get_tlv(&p, end, 0x30, &seq, &sn) != GOSTX_OK) return GOSTX_EFORMAT;
  sn = (size_t)(p - spki);
  if (p != end) { /* the optional ukm, ignored, and then nothing */
    const uint8_t *ukm;
    size_t un;
    if (get_tlv(&p, end, 0x04, &ukm, &un) != GOSTX_OK || p != end) return GOSTX_EFORMAT;
  }
  rc = key_of(spki, sn, curve, q_eph, q_cap, q_len);
  if (rc != GOSTX_OK) return rc;
  *key_exp = v;
  *key_exp_len = kn;
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
  /* encryptedKey (32) and macKey (4); the params: OID, [0] SPKI, ukm (8). */
  size_t ek = 2 + 32 + 2 + 4, params = sizeof param_z + spki_len + 2 + 8;
  size_t kt = hdr_len(ek) + ek + hdr_len(params) + params, blob = hdr_len(kt) + kt;
  size_t total = hdr_len(blob) + blob;
  if (cap < total) return GOSTX_EINVAL;
  uint8_t *p = put_hdr(out, 0x30, blob);
  p = put_hdr(p, 0x30, kt);
  p = put_hdr(p, 0x30, ek);
  p = put_hdr(p, 0x04, 32);
  memcpy(p, kexp + 8, 32), p += 32;
  p = put_hdr(p, 0x04, 4);
  memcpy(p, kexp + 40, 4), p += 4;
  p = put_hdr(p, 0xa0, params);
  memcpy(p, param_z, sizeof param_z), p += sizeof param_z;
  memcpy(p, spki, spki_len);
  *p = 0xa0; /* [0] IMPLICIT SubjectPublicKeyInfo */
  p += spki_len;
  p = put_hdr(p, 0x04, 8);
  memcpy(p, kexp, 8);
  *out_len = total;
  return GOSTX_OK;
}

int gostx__tls12_blob_read(const uint8_t *der, size_t der_len,
                           uint8_t kexp[GOSTX__TLS12_KEXP28147_LEN], gostx_gost3410_curve *curve,
                           uint8_t *q_eph, size_t q_cap, size_t *q_len) {
  if (!der || !kexp || !curve || !q_eph || !q_len) return GOSTX_EINVAL;
  const uint8_t *p = der, *end = der + der_len, *v, *enc, *mac, *oid, *ukm, *spki;
  size_t n, en, mn, on, un;
  if (get_tlv(&p, end, 0x30, &v, &n) != GOSTX_OK || p != end) return GOSTX_EFORMAT;
  p = v, end = v + n; /* TLSGostKeyTransportBlob: the key transport alone */
  if (get_tlv(&p, end, 0x30, &v, &n) != GOSTX_OK || p != end) return GOSTX_EFORMAT;
  p = v, end = v + n; /* GostR3410-KeyTransport */
  const uint8_t *kt_end = end;
  if (get_tlv(&p, end, 0x30, &v, &n) != GOSTX_OK) return GOSTX_EFORMAT;
  const uint8_t *q = v, *qe = v + n; /* Gost28147-89-EncryptedKey: no maskKey */
  if (get_tlv(&q, qe, 0x04, &enc, &en) != GOSTX_OK || en != 32) return GOSTX_EFORMAT;
  if (get_tlv(&q, qe, 0x04, &mac, &mn) != GOSTX_OK || mn != 4 || q != qe) return GOSTX_EFORMAT;
  if (get_tlv(&p, kt_end, 0xa0, &v, &n) != GOSTX_OK || p != kt_end) return GOSTX_EFORMAT;
  q = v, qe = v + n; /* GostR3410-TransportParameters */
  if (get_tlv(&q, qe, 0x06, &oid, &on) != GOSTX_OK) return GOSTX_EFORMAT;
  if (on + 2 != sizeof param_z || memcmp(oid, param_z + 2, on) != 0) return GOSTX_EUNSUP;
  spki = q;
  if (get_tlv(&q, qe, 0xa0, &v, &n) != GOSTX_OK) return GOSTX_EFORMAT;
  size_t sn = (size_t)(q - spki);
  if (get_tlv(&q, qe, 0x04, &ukm, &un) != GOSTX_OK || un != 8 || q != qe) return GOSTX_EFORMAT;
  uint8_t buf[GOSTX_GOST3410_DER_MAX];
  if (sn > sizeof buf) return GOSTX_EFORMAT;
  memcpy(buf, spki, sn);
  buf[0] = 0x30;
  int rc = key_of(buf, sn, curve, q_eph, q_cap, q_len);
  if (rc != GOSTX_OK) return rc;
  memcpy(kexp, ukm, 8);
  memcpy(kexp + 8, enc, 32);
  memcpy(kexp + 40, mac, 4);
  return GOSTX_OK;
}
