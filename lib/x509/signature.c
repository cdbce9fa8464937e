/* A certificate's (or a CRL's) GOST R 34.10 signature checked against an
 * issuer's key (x509_internal.h): below path building (path.c), the path
 * checks (verify.c), the profile (profile.c), CRLs (crl_status.c), OCSP
 * (ocsp_check.c) and lib/cms's signers, through a run's memo of valid
 * signatures when the caller gave one (x509.h); and the signature fields
 * read for the parsers (x509.c, crl.c). */
#include "x509/x509_internal.h"

static int same(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  return an == bn && memcmp(a, b, an) == 0;
}

/* A valid signature of exactly these inputs already held. */
static int held(const gostx_x509_sig_memo *m, const gostx_x509_cert *key, const uint8_t *digest,
                size_t len, const uint8_t *sig, size_t sig_len) {
  for (size_t i = 0; i < m->n; i++)
    if (m->held[i].curve == key->curve && same(m->held[i].pub, m->held[i].pub_len, key->pub, key->pub_len) &&
        same(m->held[i].digest, m->held[i].digest_len, digest, len) &&
        same(m->held[i].sig, m->held[i].sig_len, sig, sig_len))
      return 1;
  return 0;
}

int gostx__x509_verify_digest(gostx_x509_sig_memo *m, const gostx_x509_cert *key, const uint8_t *digest,
                              size_t len, const uint8_t *sig, size_t sig_len) {
  if (m && held(m, key, digest, len, sig, sig_len)) return m->answered++, 0;
  int rc = gostx_gost3410_verify(key->curve, key->pub, key->pub_len, digest, len, sig, sig_len);
  if (!m) return rc;
  m->checked++;
  if (rc || m->n == GOSTX_X509_SIG_MEMO_MAX || key->pub_len > sizeof m->held[0].pub ||
      len > sizeof m->held[0].digest || sig_len > sizeof m->held[0].sig)
    return rc;
  m->held[m->n].curve = key->curve;
  m->held[m->n].pub_len = key->pub_len, m->held[m->n].digest_len = len, m->held[m->n].sig_len = sig_len;
  memcpy(m->held[m->n].pub, key->pub, key->pub_len);
  memcpy(m->held[m->n].digest, digest, len);
  memcpy(m->held[m->n].sig, sig, sig_len);
  m->n++;
  return 0;
}

int gostx__x509_check_signature(const gostx_x509_cert *cert, const gostx_x509_cert *issuer,
                                gostx_x509_sig_memo *memo) {
  return gostx__x509_check_sig(cert->sig_alg, cert->tbs, cert->tbs_len, cert->sig_value,
                               cert->sig_value_len, issuer, memo);
}

int gostx__x509_check_sig(gostx_x509_sig_alg alg, const uint8_t *tbs, size_t tbs_len,
                          const uint8_t *sig_value, size_t sig_len, const gostx_x509_cert *issuer,
                          gostx_x509_sig_memo *memo) {
  uint8_t digest[64], sig[128];
  size_t len;
  gostx_x509_key_alg need_key;
  switch (alg) {
    case GOSTX_X509_SIG_2012_256: need_key = GOSTX_X509_KEY_2012_256, len = 32; break;
    case GOSTX_X509_SIG_2012_512: need_key = GOSTX_X509_KEY_2012_512, len = 64; break;
    case GOSTX_X509_SIG_2001: need_key = GOSTX_X509_KEY_2001, len = 32; break;
    default: return GOSTX_EUNSUP;
  }
  if (issuer->key_alg != need_key || sig_len != 2 * len) return GOSTX_EUNSUP;
  int rc = alg == GOSTX_X509_SIG_2001
               ? gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, tbs, tbs_len, digest)
               : gostx_streebog(len, tbs, tbs_len, digest);
  /* X.509 writes s || r; the signature API takes r || s (the 2001 and the
   * 2012-256 signature are the same arithmetic on the same curves) */
  if (!rc) rc = gostx_gost3410_sig_swap(sig_value, 2 * len, sig, 2 * len);
  if (!rc) rc = gostx__x509_verify_digest(memo, issuer, digest, len, sig, 2 * len);
  return rc ? GOSTX_EAUTH : 0;
}

/* AlgorithmIdentifier of a signature: the algorithm; parameters absent or
 * NULL (RFC 9215 says absent; gost-engine writes NULL). */
int gostx__x509_sig_alg(gostx__der *r, gostx_x509_sig_alg *alg, gostx_x509_status *st) {
  gostx__der seq, oid, null;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &seq, NULL) || gostx__der_oid(&seq, &oid)) return GOSTX_EFORMAT;
  if (seq.n && (gostx__der_get(&seq, GOSTX__DER_NULL, &null, NULL) || null.n || seq.n))
    return GOSTX_EFORMAT;
  if (GOSTX__DER_OID_IS(oid, OID_SIG_2012_256))
    *alg = GOSTX_X509_SIG_2012_256;
  else if (GOSTX__DER_OID_IS(oid, OID_SIG_2012_512))
    *alg = GOSTX_X509_SIG_2012_512;
  else if (GOSTX__DER_OID_IS(oid, OID_SIG_2001))
    *alg = GOSTX_X509_SIG_2001;
  else
    return *st = GOSTX_X509_UNSUPPORTED, GOSTX_EFORMAT;
  return 0;
}

/* What follows the tbs: the signatureAlgorithm, which must be
 * alg_inner's bytes, and the signature BIT STRING, the last of r. */
static int signed_tail(gostx__der *r, gostx__der alg_inner, gostx__der *sig, gostx_x509_status *st) {
  gostx_x509_sig_alg alg;
  gostx__der probe = *r, alg_outer, bits;
  if (gostx__der_get(&probe, GOSTX__DER_SEQ, NULL, &alg_outer) || gostx__x509_sig_alg(r, &alg, st) ||
      gostx__der_get(r, GOSTX__DER_BITS, &bits, NULL) || r->n)
    return GOSTX_EFORMAT;
  /* the signed and the unsigned algorithm must be the same (RFC 5280 4.1.1.2, 5.1.1.2) */
  if (alg_outer.n != alg_inner.n || memcmp(alg_outer.p, alg_inner.p, alg_inner.n))
    return *st = GOSTX_X509_SIG_ALG_MISMATCH, GOSTX_EFORMAT;
  size_t sig_len = alg == GOSTX_X509_SIG_2012_512 ? 128 : 64;
  if (bits.n != sig_len + 1 || bits.p[0] != 0) return GOSTX_EFORMAT;
  sig->p = bits.p + 1;
  sig->n = sig_len;
  return 0;
}

int gostx__x509_signed_parse(const uint8_t *der, size_t len, const gostx__x509_signed *d, void *out,
                             gostx_x509_status *st) {
  gostx_x509_status dummy;
  if (!st) st = &dummy;
  *st = d->malformed;
  if (!der || !out) return GOSTX_EINVAL;
  gostx__der all = {der, len}, outer, tbs, whole, alg_inner, sig;
  if (gostx__der_get(&all, GOSTX__DER_SEQ, &outer, NULL) || all.n ||
      gostx__der_get(&outer, GOSTX__DER_SEQ, &tbs, &whole) || d->read_tbs(tbs, d->obj, &alg_inner, st) ||
      signed_tail(&outer, alg_inner, &sig, st))
    return GOSTX_EFORMAT;
  *d->der = der, *d->der_len = len;
  *d->tbs = whole.p, *d->tbs_len = whole.n;
  *d->sig = sig.p, *d->sig_len = sig.n;
  memcpy(out, d->obj, d->size);
  *st = GOSTX_X509_OK;
  return 0;
}
