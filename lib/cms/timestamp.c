/* RFC 3161's TimeStampResp and TimeStampToken read (gostx/tsa.h's
 * gostx_cms_ts_parse: the PKIStatus, the token's SignedData and its
 * TSTInfo), the status names, and a signer's signature-time-stamps found
 * in its unsigned attributes (gostx/cms_ts.h). The token is checked by
 * tsa_verify.c, added to a signer by cades_write.c. All public data. */
#include "cms/cms_internal.h"
#include "gostx/cms_ts.h"

#define OID_CT_TSTINFO "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x10\x01\x04" /* 1.2.840.113549.1.9.16.1.4 */
#define OID_ATTR_TS_TOKEN "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x10\x02\x0e" /* 1.2.840.113549.1.9.16.2.14 */

const char *gostx_cms_ts_status_name(gostx_cms_ts_status st) {
  switch (st) {
    case GOSTX_CMS_TS_OK: return "ok";
    case GOSTX_CMS_TS_MALFORMED: return "timestamp: not a DER TimeStampResp or TimeStampToken";
    case GOSTX_CMS_TS_REFUSED: return "timestamp: the TSA refused the request (PKIStatus)";
    case GOSTX_CMS_TS_NOT_TSTINFO:
      return "timestamp: the token is not a TSTInfo signed by one signer";
    case GOSTX_CMS_TS_UNKNOWN_ALGORITHM: return "timestamp: the imprint's hash is not Streebog";
    case GOSTX_CMS_TS_IMPRINT_MISMATCH:
      return "timestamp: imprint mismatch (the token is for another signature or request)";
    case GOSTX_CMS_TS_TOKEN: return "timestamp: the token's signature does not verify";
    case GOSTX_CMS_TS_NOT_TSA:
      return "timestamp: the TSA certificate has no critical extendedKeyUsage timeStamping";
    case GOSTX_CMS_TS_NONCE_MISMATCH:
      return "timestamp: nonce mismatch (the token does not answer this query)";
    case GOSTX_CMS_TS_POLICY_MISMATCH: return "timestamp: the token's policy is not the one asked";
    case GOSTX_CMS_TS_NO_SIGNING_CERT:
      return "timestamp: the token has no signingCertificateV2 (ESSCertIDv2) or signingCertificate "
             "(ESSCertID) naming the TSA";
  }
  return "unknown status";
}

/* ---- the reply ---- */

/* GeneralizedTime YYYYMMDDhhmmss[.f...]Z (RFC 3161 section 2.4.2 allows
 * fractions): the fraction dropped, the rest read as RFC 5280 time. */
static int gen_time(gostx__der *r, int64_t *t, uint32_t *millis) {
  gostx__der c;
  uint8_t whole[17] = {GOSTX__DER_GENTIME, 15};
  if (gostx__der_get(r, GOSTX__DER_GENTIME, &c, NULL) || c.n < 15 || c.p[c.n - 1] != 'Z')
    return GOSTX_EFORMAT;
  if (c.n > 15) { /* ".d...d" before the Z, no trailing zero (X.690 11.7.3) */
    if (c.n < 17 || c.p[14] != '.' || c.p[c.n - 2] == '0') return GOSTX_EFORMAT;
    for (size_t i = 15; i + 1 < c.n; i++)
      if (c.p[i] < '0' || c.p[i] > '9') return GOSTX_EFORMAT;
  }
  *millis = 0;
  for (size_t i = 15, scale = 100; i + 1 < c.n && scale; i++, scale /= 10)
    *millis += (uint32_t)(c.p[i] - '0') * (uint32_t)scale;
  memcpy(whole + 2, c.p, 14);
  whole[16] = 'Z';
  gostx__der w = {whole, sizeof whole};
  return gostx__der_time(&w, t);
}

/* Accuracy ::= SEQUENCE { seconds INTEGER OPTIONAL, millis [0] 1..999
 * OPTIONAL, micros [1] 1..999 OPTIONAL } */
static int accuracy(gostx__der *r, gostx_cms_ts_token *t) {
  gostx__der acc;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &acc, NULL)) return GOSTX_EFORMAT;
  t->has_accuracy = 1;
  if (gostx__der_peek(&acc, GOSTX__DER_INT) && gostx__der_u32(&acc, &t->accuracy_secs))
    return GOSTX_EFORMAT;
  if (gostx__der_peek(&acc, GOSTX__DER_CTX(0)) &&
      (gostx__der_u32_tagged(&acc, GOSTX__DER_CTX(0), &t->accuracy_millis) ||
       !t->accuracy_millis || t->accuracy_millis > 999))
    return GOSTX_EFORMAT;
  if (gostx__der_peek(&acc, GOSTX__DER_CTX(1)) &&
      (gostx__der_u32_tagged(&acc, GOSTX__DER_CTX(1), &t->accuracy_micros) ||
       !t->accuracy_micros || t->accuracy_micros > 999))
    return GOSTX_EFORMAT;
  return acc.n ? GOSTX_EFORMAT : 0;
}

/* The optional fields after genTime: accuracy, ordering, nonce, tsa [0],
 * extensions [1] (passed over: none is known), in that order. */
static int tst_tail(gostx__der *info, gostx_cms_ts_token *t) {
  gostx__der nonce, tsa;
  if (gostx__der_peek(info, GOSTX__DER_SEQ) && accuracy(info, t)) return GOSTX_EFORMAT;
  if (gostx__der_peek(info, GOSTX__DER_BOOL) && gostx__der_bool(info, &t->ordering))
    return GOSTX_EFORMAT;
  if (gostx__der_peek(info, GOSTX__DER_INT)) {
    if (gostx__der_get(info, GOSTX__DER_INT, &nonce, NULL) || nonce.n == 0 || (nonce.p[0] & 0x80))
      return GOSTX_EFORMAT;
    t->nonce = nonce.p, t->nonce_len = nonce.n;
  }
  if (gostx__der_peek(info, GOSTX__DER_CTXC(0))) {
    if (gostx__der_get(info, GOSTX__DER_CTXC(0), &tsa, NULL) || !tsa.n) return GOSTX_EFORMAT;
    t->tsa = tsa.p, t->tsa_len = tsa.n;
  }
  if (gostx__der_peek(info, GOSTX__DER_CTXC(1)) && gostx__der_get(info, GOSTX__DER_CTXC(1), NULL, NULL))
    return GOSTX_EFORMAT;
  return info->n ? GOSTX_EFORMAT : 0;
}

/* TSTInfo ::= SEQUENCE { version 1, policy, messageImprint, serialNumber,
 * genTime, accuracy, ordering, nonce, tsa, extensions } (section 2.4.2). */
static int tst_info(gostx__der r, gostx_cms_ts_token *t) {
  gostx__der info, oid, imprint, hash, serial;
  int version;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &info, NULL) || r.n ||
      gostx__der_small_uint(&info, &version) || version != 1 || gostx__der_oid(&info, &oid) ||
      gostx__der_get(&info, GOSTX__DER_SEQ, &imprint, NULL))
    return GOSTX_EFORMAT;
  t->policy = oid.p, t->policy_len = oid.n;
  if (gostx__cms_alg_id(&imprint, &oid) || gostx__der_get(&imprint, GOSTX__DER_OCTETS, &hash, NULL) ||
      imprint.n || gostx__der_get(&info, GOSTX__DER_INT, &serial, NULL) || serial.n == 0 ||
      gen_time(&info, &t->gen_time, &t->gen_millis) || tst_tail(&info, t))
    return GOSTX_EFORMAT;
  t->imprint_oid = oid.p, t->imprint_oid_len = oid.n;
  t->imprint = hash.p, t->imprint_len = hash.n;
  t->serial = serial.p, t->serial_len = serial.n;
  return 0;
}

/* The token: a SignedData of one signer over an attached TSTInfo. */
static gostx_cms_ts_status token(const uint8_t *der, size_t len, gostx_cms_ts_token *t) {
  gostx_cms_status cst;
  t->token = der, t->token_len = len;
  if (gostx_cms_signed_parse(der, len, &t->sd, &cst))
    return cst == GOSTX_CMS_NOT_SIGNED_DATA ? GOSTX_CMS_TS_NOT_TSTINFO : GOSTX_CMS_TS_MALFORMED;
  gostx__der ct = {t->sd.content_type, t->sd.content_type_len};
  if (!GOSTX__DER_OID_IS(ct, OID_CT_TSTINFO) || !t->sd.content || t->sd.n_signers != 1)
    return GOSTX_CMS_TS_NOT_TSTINFO;
  gostx__der c = {t->sd.content, t->sd.content_len};
  return tst_info(c, t) ? GOSTX_CMS_TS_NOT_TSTINFO : GOSTX_CMS_TS_OK;
}

/* TimeStampResp ::= SEQUENCE { status PKIStatusInfo, timeStampToken
 * OPTIONAL }; PKIStatusInfo ::= SEQUENCE { status INTEGER, statusString
 * OPTIONAL, failInfo OPTIONAL }. 0 granted, 1 grantedWithMods. */
static gostx_cms_ts_status response(gostx__der resp, gostx_cms_ts_token *t) {
  gostx__der info, tok;
  if (gostx__der_get(&resp, GOSTX__DER_SEQ, &info, NULL) ||
      gostx__der_small_uint(&info, &t->pki_status))
    return GOSTX_CMS_TS_MALFORMED;
  if (t->pki_status > 1) return GOSTX_CMS_TS_REFUSED;
  if (gostx__der_get(&resp, GOSTX__DER_SEQ, NULL, &tok) || resp.n) return GOSTX_CMS_TS_MALFORMED;
  return token(tok.p, tok.n, t);
}

int gostx_cms_ts_parse(const uint8_t *der, size_t der_len, gostx_cms_ts_token *t,
                       gostx_cms_ts_status *st) {
  gostx_cms_ts_status dummy;
  if (!st) st = &dummy;
  *st = GOSTX_CMS_TS_MALFORMED;
  if (!der || !t) return GOSTX_EINVAL;
  memset(t, 0, offsetof(gostx_cms_ts_token, sd));
  memset((uint8_t *)t + offsetof(gostx_cms_ts_token, policy), 0,
         sizeof *t - offsetof(gostx_cms_ts_token, policy));
  gostx__der r = {der, der_len}, outer, probe;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &outer, NULL) || r.n) return GOSTX_EFORMAT;
  probe = outer; /* a token starts with its content type's OID, a reply with its status */
  *st = gostx__der_peek(&probe, GOSTX__DER_OID) ? token(der, der_len, t) : response(outer, t);
  return *st == GOSTX_CMS_TS_OK ? 0 : GOSTX_EFORMAT;
}

/* ---- the tokens in a signature ---- */

int gostx_cms_ts_tokens(const gostx_cms_signer_info *si, const uint8_t **tokens, size_t *lens,
                        size_t cap, size_t *n) {
  gostx__der r, attrs, attr, oid, values, tok;
  if (!si || !n || (cap && (!tokens || !lens))) return GOSTX_EINVAL;
  *n = 0;
  if (!si->unsigned_attrs) return 0;
  r.p = si->unsigned_attrs, r.n = si->unsigned_attrs_len;
  if (gostx__der_get(&r, GOSTX__DER_CTXC(1), &attrs, NULL)) return GOSTX_EFORMAT;
  while (attrs.n) {
    if (gostx__der_get(&attrs, GOSTX__DER_SEQ, &attr, NULL) || gostx__der_oid(&attr, &oid) ||
        gostx__der_get(&attr, GOSTX__DER_SET, &values, NULL) || attr.n)
      return GOSTX_EFORMAT;
    if (!GOSTX__DER_OID_IS(oid, OID_ATTR_TS_TOKEN)) continue;
    /* one token per attribute: a second value would be a second timestamp */
    if (gostx__der_get(&values, GOSTX__DER_SEQ, NULL, &tok) || values.n) return GOSTX_EFORMAT;
    if (*n < cap) tokens[*n] = tok.p, lens[*n] = tok.n;
    (*n)++;
  }
  return 0;
}
