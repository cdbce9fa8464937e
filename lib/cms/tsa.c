/* The RFC 3161 time-stamp protocol's messages (gostx/tsa.h): the
 * client's TimeStampReq written, the TSA's side (the request read and
 * judged, the TSTInfo written and signed as a SignedData of
 * id-ct-TSTInfo through signed_write.c, a refusal with its
 * PKIFailureInfo). Everything here is public data but the TSA's key,
 * which only gostx__cms_sign_typed sees. */
#include <time.h>

#include "cms/cms_internal.h"
#include "gostx/tsa.h"

#define TSTINFO_MAX 4096 /* the TSTInfo before it is signed: a few hundred bytes and a Name */
#define NONCE_MAX 32     /* openssl sends 8 bytes; more than 256 bits is no nonce */
#define SERIAL_MAX 20    /* RFC 3161 2.4.2: up to 160 bits */

const char *gostx_tsa_fail_name(uint32_t fail) {
  if (fail & GOSTX_TSA_FAIL_BAD_ALG) return "badAlg: the imprint's hash algorithm is not accepted";
  if (fail & GOSTX_TSA_FAIL_BAD_REQUEST) return "badRequest: the request's version or a field is not allowed";
  if (fail & GOSTX_TSA_FAIL_BAD_DATA_FORMAT) return "badDataFormat: not a DER TimeStampReq";
  if (fail & GOSTX_TSA_FAIL_TIME_NOT_AVAILABLE) return "timeNotAvailable: the TSA has no time";
  if (fail & GOSTX_TSA_FAIL_UNACCEPTED_POLICY) return "unacceptedPolicy: the policy asked is not the TSA's";
  if (fail & GOSTX_TSA_FAIL_UNACCEPTED_EXTENSION) return "unacceptedExtension: the request has extensions";
  if (fail & GOSTX_TSA_FAIL_SYSTEM_FAILURE) return "systemFailure: the TSA failed";
  return fail ? "an unknown failure" : "";
}

static const char *digest_oid(size_t len) { return len == 32 ? "1.2.643.7.1.1.2.2" : "1.2.643.7.1.1.2.3"; }

/* ---- the client's request ---- */

int gostx_tsa_query_write(const gostx_tsa_query_params *p, uint8_t *out, size_t cap, size_t *out_len) {
  if (!p || !out_len || !p->digest || (p->digest_len != 32 && p->digest_len != 64) ||
      (p->nonce && (p->nonce_len == 0 || p->nonce_len > NONCE_MAX)))
    return GOSTX_EINVAL;
  if (p->nonce) { /* a nonce of 0 would be written as no nonce at all */
    uint8_t any = 0;
    for (size_t i = 0; i < p->nonce_len; i++) any |= p->nonce[i];
    if (!any) return GOSTX_EINVAL;
  }
  gostx__der_w w;
  gostx__der_w_init(&w, out, out ? cap : 0);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_u32(&w, 1);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ); /* MessageImprint */
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_oid(&w, digest_oid(p->digest_len));
  gostx__der_w_tlv(&w, GOSTX__DER_NULL, NULL, 0);
  gostx__der_w_end(&w);
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, p->digest, p->digest_len);
  gostx__der_w_end(&w);
  if (p->policy) gostx__der_w_oid(&w, p->policy);
  if (p->nonce) gostx__der_w_uint(&w, p->nonce, p->nonce_len);
  if (p->cert_req) gostx__der_w_tlv(&w, GOSTX__DER_BOOL, "\xff", 1); /* FALSE is the default: left out */
  gostx__der_w_end(&w);
  return gostx__der_w_finish(&w, out_len);
}

/* ---- the TSA's side: the request ---- */

/* MessageImprint ::= SEQUENCE { hashAlgorithm, hashedMessage OCTET STRING } */
static uint32_t read_imprint(gostx__der *r, gostx_tsa_query *q) {
  gostx__der imp, whole, oid, hash;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &imp, &whole) || gostx__cms_alg_id(&imp, &oid) ||
      gostx__der_get(&imp, GOSTX__DER_OCTETS, &hash, NULL) || imp.n)
    return GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
  q->message_imprint = whole.p, q->message_imprint_len = whole.n;
  q->hash_oid = oid.p, q->hash_oid_len = oid.n;
  q->imprint = hash.p, q->imprint_len = hash.n;
  q->digest_len = gostx__cms_digest_size(oid);
  if (!q->digest_len) return GOSTX_TSA_FAIL_BAD_ALG;
  return hash.n == q->digest_len ? 0 : GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
}

/* nonce INTEGER: DER (minimal), positive, at most NONCE_MAX bytes of value */
static uint32_t read_nonce(gostx__der *r, gostx_tsa_query *q) {
  gostx__der n;
  if (gostx__der_get(r, GOSTX__DER_INT, &n, NULL) || n.n == 0 ||
      (n.n > 1 && ((n.p[0] == 0 && !(n.p[1] & 0x80)) || (n.p[0] == 0xff && (n.p[1] & 0x80)))))
    return GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
  if ((n.p[0] & 0x80) || n.n - (n.p[0] == 0) > NONCE_MAX || (n.n == 1 && n.p[0] == 0))
    return GOSTX_TSA_FAIL_BAD_REQUEST;
  q->nonce = n.p, q->nonce_len = n.n;
  return 0;
}

static uint32_t read_query(gostx__der r, gostx_tsa_query *q) {
  gostx__der req, oid;
  int version, cert_req = 0;
  uint32_t fail;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &req, NULL) || r.n || gostx__der_small_uint(&req, &version))
    return GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
  if ((fail = read_imprint(&req, q)) != 0) return fail;
  if (gostx__der_peek(&req, GOSTX__DER_OID)) {
    if (gostx__der_oid(&req, &oid)) return GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
    q->policy = oid.p, q->policy_len = oid.n;
  }
  if (gostx__der_peek(&req, GOSTX__DER_INT) && (fail = read_nonce(&req, q)) != 0) return fail;
  /* certReq FALSE should be left out (its DEFAULT); what some write is taken */
  if (gostx__der_peek(&req, GOSTX__DER_BOOL) && gostx__der_bool(&req, &cert_req))
    return GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
  q->cert_req = cert_req;
  if (gostx__der_peek(&req, GOSTX__DER_CTXC(0))) {
    if (gostx__der_get(&req, GOSTX__DER_CTXC(0), NULL, NULL) || req.n)
      return GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
    return GOSTX_TSA_FAIL_UNACCEPTED_EXTENSION;
  }
  if (req.n) return GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
  return version == 1 ? 0 : GOSTX_TSA_FAIL_BAD_REQUEST;
}

int gostx_tsa_query_parse(const uint8_t *der, size_t der_len, gostx_tsa_query *q, uint32_t *fail) {
  uint32_t dummy;
  if (!fail) fail = &dummy;
  *fail = GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
  if (!q || (!der && der_len)) return GOSTX_EINVAL;
  memset(q, 0, sizeof *q);
  gostx__der r = {der, der_len};
  *fail = der ? read_query(r, q) : GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
  q->der = der, q->der_len = der_len;
  return *fail ? GOSTX_EFORMAT : 0;
}

/* 1 when the dotted policy text encodes to oid's content. */
static int policy_is(const char *text, const uint8_t *oid, size_t len) {
  uint8_t enc[64];
  size_t n;
  return text && !gostx__der_oid_encode(text, enc, sizeof enc, &n) && n == len && !memcmp(enc, oid, n);
}

uint32_t gostx_tsa_check(const gostx_tsa_params *p, const gostx_tsa_query *q) {
  if (!p || !q || !q->imprint) return GOSTX_TSA_FAIL_BAD_REQUEST;
  unsigned digests = p->digests ? p->digests : GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512;
  unsigned want = q->digest_len == 32 ? GOSTX_CMS_HASH_256 : q->digest_len == 64 ? GOSTX_CMS_HASH_512 : 0;
  if (!(digests & want)) return GOSTX_TSA_FAIL_BAD_ALG;
  if (!q->policy || policy_is(p->policy, q->policy, q->policy_len)) return 0;
  for (size_t i = 0; i < p->n_policies; i++)
    if (p->policies && policy_is(p->policies[i], q->policy, q->policy_len)) return 0;
  return GOSTX_TSA_FAIL_UNACCEPTED_POLICY;
}

/* ---- the TSA's side: the token ---- */

/* genTime as GeneralizedTime YYYYMMDDhhmmss[.fff]Z, the fraction's
 * trailing zeros dropped (X.690 11.7.3). */
static void write_gen_time(gostx__der_w *w, int64_t t, uint32_t millis) {
  time_t tt = (time_t)t;
  struct tm tm;
  char text[32];
  if ((int64_t)tt != t || !gmtime_r(&tt, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999 ||
      millis > 999) {
    w->err = w->err ? w->err : GOSTX_EINVAL;
    return;
  }
  size_t n = strftime(text, sizeof text, "%Y%m%d%H%M%S", &tm);
  if (millis) {
    n += (size_t)snprintf(text + n, sizeof text - n, ".%03u", (unsigned)millis);
    while (text[n - 1] == '0') n--;
  }
  text[n++] = 'Z';
  gostx__der_w_tlv(w, GOSTX__DER_GENTIME, text, n);
}

/* An INTEGER 0..65535 under an IMPLICIT tag, minimal. */
static void tagged_small(gostx__der_w *w, uint8_t tag, uint32_t v) {
  uint8_t be[3] = {0, (uint8_t)(v >> 8), (uint8_t)v};
  size_t i = 0;
  while (i < 2 && be[i] == 0 && !(be[i + 1] & 0x80)) i++;
  gostx__der_w_tlv(w, tag, be + i, 3 - i);
}

static void write_accuracy(gostx__der_w *w, const gostx_tsa_params *p) {
  if (!p->accuracy_secs && !p->accuracy_millis && !p->accuracy_micros) return;
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  if (p->accuracy_secs) gostx__der_w_u32(w, p->accuracy_secs);
  if (p->accuracy_millis) tagged_small(w, GOSTX__DER_CTX(0), p->accuracy_millis);
  if (p->accuracy_micros) tagged_small(w, GOSTX__DER_CTX(1), p->accuracy_micros);
  gostx__der_w_end(w);
}

static int write_tst_info(const gostx_tsa_params *p, const gostx_tsa_query *q, const uint8_t *serial,
                          size_t serial_len, int64_t gen_time, uint32_t millis, uint8_t *out,
                          size_t *len) {
  gostx__der_w w;
  gostx__der_w_init(&w, out, TSTINFO_MAX);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_u32(&w, 1);
  if (q->policy) gostx__der_w_tlv(&w, GOSTX__DER_OID, q->policy, q->policy_len);
  else gostx__der_w_oid(&w, p->policy);
  gostx__der_w_raw(&w, q->message_imprint, q->message_imprint_len);
  gostx__der_w_uint(&w, serial, serial_len);
  write_gen_time(&w, gen_time, millis);
  write_accuracy(&w, p);
  if (q->nonce) gostx__der_w_tlv(&w, GOSTX__DER_INT, q->nonce, q->nonce_len); /* ordering: FALSE, left out */
  if (p->tsa_name) { /* tsa [0] EXPLICIT GeneralName: directoryName [4] EXPLICIT Name */
    gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
    gostx__der_w_begin(&w, GOSTX__DER_CTXC(4));
    gostx__der_w_raw(&w, p->cert->subject, p->cert->subject_len);
    gostx__der_w_end(&w);
    gostx__der_w_end(&w);
  }
  gostx__der_w_end(&w);
  int rc = gostx__der_w_finish(&w, len);
  return rc == GOSTX_ELEN ? GOSTX_EUNSUP : rc;
}

int gostx_tsa_reply(const gostx_tsa_params *p, const gostx_tsa_query *q, const uint8_t *serial,
                    size_t serial_len, int64_t gen_time, uint32_t millis, uint8_t *out, size_t cap,
                    size_t *out_len) {
  static const uint8_t granted[] = {0x30, 0x03, 0x02, 0x01, 0x00}; /* PKIStatusInfo { granted } */
  uint8_t info[TSTINFO_MAX], head[GOSTX__DER_HEADER_MAX];
  size_t info_len, tok_len;
  if (!p || !q || !out_len || !p->cert || !p->key || !q->message_imprint || !serial ||
      serial_len == 0 || serial_len > SERIAL_MAX || (p->n_chain && !p->chain) ||
      (!q->policy && !p->policy) || p->accuracy_millis > 999 || p->accuracy_micros > 999 ||
      gostx_tsa_check(p, q))
    return GOSTX_EINVAL;
  int rc = write_tst_info(p, q, serial, serial_len, gen_time, millis, info, &info_len);
  if (rc) return rc;
  gostx_cms_signer signer = {p->cert, p->key};
  gostx_cms_sign_params sp = {GOSTX_CMS_ATTACHED | GOSTX_CMS_CADES | GOSTX_CMS_NO_SIGNING_TIME, 0,
                              q->cert_req ? p->chain : NULL, q->cert_req ? p->n_chain : 0};
  if (!q->cert_req) sp.flags |= GOSTX_CMS_NO_CERTS;
  const char *tst = "1.2.840.113549.1.9.16.1.4"; /* id-ct-TSTInfo */
  rc = gostx__cms_sign_typed(&signer, 1, &sp, tst, NULL, info, info_len, NULL, 0, &tok_len);
  if (rc) return rc;
  /* TimeStampResp ::= SEQUENCE { status, timeStampToken }: the token is
   * signed into its place after the header */
  size_t body = sizeof granted + tok_len, hdr = gostx__der_header(head, GOSTX__DER_SEQ, body);
  if (!out || cap < hdr + body) {
    *out_len = hdr + body;
    return out ? GOSTX_ELEN : 0;
  }
  rc = gostx__cms_sign_typed(&signer, 1, &sp, tst, NULL, info, info_len, out + hdr + sizeof granted,
                             cap - hdr - sizeof granted, &tok_len);
  if (rc) return rc; /* the key's failure (an external key's): no length handed back */
  memcpy(out, head, hdr);
  memcpy(out + hdr, granted, sizeof granted);
  *out_len = hdr + body;
  return 0;
}

/* PKIStatusInfo { rejection, statusString, failInfo } alone */
int gostx_tsa_refusal(uint32_t fail, const char *text, uint8_t *out, size_t cap, size_t *out_len) {
  uint8_t bits[5];
  if (!fail || !out_len) return GOSTX_EINVAL;
  unsigned top = 31;
  while (!(fail >> top & 1u)) top--;
  size_t n = top / 8 + 1; /* a named-bit BIT STRING: trailing zero bits left out (X.690 11.2.2) */
  memset(bits, 0, sizeof bits);
  bits[0] = (uint8_t)(7 - top % 8);
  for (unsigned i = 0; i <= top; i++)
    if (fail >> i & 1u) bits[1 + i / 8] |= (uint8_t)(0x80 >> (i % 8));
  gostx__der_w w;
  gostx__der_w_init(&w, out, out ? cap : 0);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_u32(&w, 2); /* rejection */
  if (text) {
    gostx__der_w_begin(&w, GOSTX__DER_SEQ); /* PKIFreeText: SEQUENCE OF UTF8String */
    gostx__der_w_tlv(&w, 0x0c, text, strlen(text));
    gostx__der_w_end(&w);
  }
  gostx__der_w_tlv(&w, GOSTX__DER_BITS, bits, 1 + n);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  return gostx__der_w_finish(&w, out_len);
}
