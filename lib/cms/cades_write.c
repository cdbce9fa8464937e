/* CAdES-C / X attributes written (RFC 5126 6.2, 6.3): the references
 * (Streebog-256 OtherHashAlgAndValue, issuerSerial; CrlIdentifier and
 * OcspIdentifier), the values, a CAdES-C-time-stamp's data and its token;
 * each added to a SignerInfo's unsignedAttrs, the signed bytes unchanged. */
#include "cms/cades_internal.h"
#include "x509/write_internal.h"

#define UTC_FIRST (-631152000LL) /* 1950-01-01 */
#define UTC_END 2524608000LL     /* 2050-01-01 */

/* ---- the references and values ---- */

typedef gostx__cades_inputs inputs;

/* OtherHashAlgAndValue { Streebog-256, hash of der[len] } */
static void other_hash(gostx__der_w *w, const uint8_t *der, size_t len) {
  uint8_t h[32];
  gostx_streebog(32, der, len, h);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, "1.2.643.7.1.1.2.2");
  gostx__der_w_tlv(w, GOSTX__DER_NULL, NULL, 0);
  gostx__der_w_end(w);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, h, sizeof h);
  gostx__der_w_end(w);
}

/* CompleteCertificateRefs: an OtherCertID { otherCertHash, issuerSerial {
 * { [4] issuer }, serial } } per certificate above the signer's */
static void cert_refs(gostx__der_w *w, const inputs *in) {
  gostx__cms_attr_begin(w, "1.2.840.113549.1.9.16.2.21");
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  for (size_t i = 0; i < in->n_certs; i++) {
    const gostx_x509_cert *c = &in->certs[i];
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    other_hash(w, c->der, c->der_len);
    gostx__cms_write_issuer_serial(w, c);
    gostx__der_w_end(w);
  }
  gostx__der_w_end(w);
  gostx__cms_attr_end(w);
}

/* CrlValidatedID { crlHash, crlIdentifier { crlissuer, crlIssuedTime
 * UTCTime, crlNumber } }: the identifier left out when thisUpdate has no
 * UTCTime (1950 to 2049; gostx__x509_put_time writes UTCTime there) */
static void crl_validated_id(gostx__der_w *w, const gostx_x509_crl *crl) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  other_hash(w, crl->der, crl->der_len);
  if (crl->this_update >= UTC_FIRST && crl->this_update < UTC_END) {
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    gostx__der_w_raw(w, crl->issuer, crl->issuer_len);
    gostx__x509_put_time(w, crl->this_update);
    if (crl->crl_number) gostx__der_w_tlv(w, GOSTX__DER_INT, crl->crl_number, crl->crl_number_len);
    gostx__der_w_end(w);
  }
  gostx__der_w_end(w);
}

/* OcspResponsesID { ocspIdentifier { responderID, producedAt }, ocspRepHash
 * over the BasicOCSPResponse (what revocation-values carries) }: the
 * responder and time as DER has them (one encoding each, no fractions) */
static void ocsp_responses_id(gostx__der_w *w, const gostx__cades_ocsp *o) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_CTXC(o->r.by_key ? 2 : 1));
  if (o->r.by_key) gostx__der_w_tlv(w, GOSTX__DER_OCTETS, o->r.responder, o->r.responder_len);
  else gostx__der_w_raw(w, o->r.responder, o->r.responder_len);
  gostx__der_w_end(w);
  gostx__x509_put_time_as(w, o->r.produced_at, 1);
  gostx__der_w_end(w);
  other_hash(w, o->basic.p, o->basic.n);
  gostx__der_w_end(w);
}

/* The CrlOcspRef of cert: [0] the CRLs its issuer issued, [1] the OCSP
 * responses that answer for it (either left out when there are none). */
static void crl_ocsp_ref(gostx__der_w *w, const inputs *in, const gostx_x509_cert *cert) {
  int any = 0;
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  for (size_t i = 0; i < in->n_crls; i++) {
    const gostx_x509_crl *crl = &in->crls[i];
    if (!gostx__x509_name_equal(crl->issuer, crl->issuer_len, cert->issuer, cert->issuer_len)) continue;
    if (!any++) {
      gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
      gostx__der_w_begin(w, GOSTX__DER_SEQ);
      gostx__der_w_begin(w, GOSTX__DER_SEQ);
    }
    crl_validated_id(w, crl);
  }
  for (int i = 0; any && i < 3; i++) gostx__der_w_end(w);
  any = 0;
  for (size_t i = 0; i < in->n_ocsps; i++) {
    if (!gostx__cades_ocsp_covers(&in->ocsps[i], cert)) continue;
    if (!any++) {
      gostx__der_w_begin(w, GOSTX__DER_CTXC(1));
      gostx__der_w_begin(w, GOSTX__DER_SEQ);
      gostx__der_w_begin(w, GOSTX__DER_SEQ);
    }
    ocsp_responses_id(w, &in->ocsps[i]);
  }
  for (int i = 0; any && i < 3; i++) gostx__der_w_end(w);
  gostx__der_w_end(w);
}

/* CompleteRevocationRefs: the signer's CrlOcspRef, then one per
 * certificate reference in the same order (RFC 5126 6.2.2) */
static void rev_refs(gostx__der_w *w, const inputs *in) {
  gostx__cms_attr_begin(w, "1.2.840.113549.1.9.16.2.22");
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  crl_ocsp_ref(w, in, in->signer);
  for (size_t i = 0; i < in->n_certs; i++) crl_ocsp_ref(w, in, &in->certs[i]);
  gostx__der_w_end(w);
  gostx__cms_attr_end(w);
}

/* CertificateValues ::= SEQUENCE OF Certificate; RevocationValues {
 * crlVals [0], ocspVals [1] (BasicOCSPResponses) } */
static void values(gostx__der_w *w, const inputs *in) {
  gostx__cms_attr_begin(w, "1.2.840.113549.1.9.16.2.23");
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  for (size_t i = 0; i < in->n_certs; i++) gostx__der_w_raw(w, in->certs[i].der, in->certs[i].der_len);
  gostx__der_w_end(w);
  gostx__cms_attr_end(w);
  gostx__cms_attr_begin(w, "1.2.840.113549.1.9.16.2.24");
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  if (in->n_crls) {
    gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    for (size_t i = 0; i < in->n_crls; i++) gostx__der_w_raw(w, in->crls[i].der, in->crls[i].der_len);
    gostx__der_w_end(w);
    gostx__der_w_end(w);
  }
  if (in->n_ocsps) {
    gostx__der_w_begin(w, GOSTX__DER_CTXC(1));
    gostx__der_w_begin(w, GOSTX__DER_SEQ);
    for (size_t i = 0; i < in->n_ocsps; i++)
      gostx__der_w_raw(w, in->ocsps[i].basic.p, in->ocsps[i].basic.n);
    gostx__der_w_end(w);
    gostx__der_w_end(w);
  }
  gostx__der_w_end(w);
  gostx__cms_attr_end(w);
}

void gostx__cades_write_validation(gostx__der_w *w, const void *ctx) {
  const inputs *in = ctx;
  if (in->what & GOSTX_CADES_REFS) {
    cert_refs(w, in);
    rev_refs(w, in);
  }
  if (in->what & GOSTX_CADES_VALUES) values(w, in);
}

gostx_cades_status gostx__cades_read_inputs(const gostx_cades_validation *v, inputs *in) {
  if (v->n_certs > GOSTX_CADES_MAX || v->n_crls > GOSTX_CADES_MAX || v->n_ocsps > GOSTX_CADES_MAX)
    return GOSTX_CADES_TOO_MANY;
  for (size_t i = 0; i < v->n_certs; i++)
    if (gostx_x509_parse(v->certs[i], v->cert_len[i], &in->certs[i], NULL)) return GOSTX_CADES_BAD_CERT;
  for (size_t i = 0; i < v->n_crls; i++)
    if (gostx_x509_crl_parse(v->crls[i], v->crl_len[i], &in->crls[i], NULL)) return GOSTX_CADES_BAD_CRL;
  for (size_t i = 0; i < v->n_ocsps; i++)
    if (gostx__cades_read_ocsp(v->ocsps[i], v->ocsp_len[i], &in->ocsps[i])) return GOSTX_CADES_BAD_OCSP;
  in->n_certs = v->n_certs, in->n_crls = v->n_crls, in->n_ocsps = v->n_ocsps;
  return GOSTX_CADES_OK;
}

static int lists_ok(const uint8_t *const *p, const size_t *len, size_t n) {
  return !n || (p && len);
}

int gostx__cades_validation_ok(const gostx_cades_validation *v) {
  return v && lists_ok(v->certs, v->cert_len, v->n_certs) && lists_ok(v->crls, v->crl_len, v->n_crls) &&
         lists_ok(v->ocsps, v->ocsp_len, v->n_ocsps);
}

int gostx_cades_add_validation(const gostx_cms_signed *sd, size_t signer, const gostx_x509_cert *signer_cert,
                               const gostx_cades_validation *v, unsigned what, uint8_t *out, size_t cap,
                               size_t *out_len, gostx_cades_status *st) {
  gostx_cades_status dummy;
  gostx_cades_info info;
  inputs in;
  if (!st) st = &dummy;
  *st = GOSTX_CADES_OK;
  if (!sd || !sd->der || !signer_cert || !out_len || signer >= sd->n_signers || !what ||
      (what & ~(GOSTX_CADES_REFS | GOSTX_CADES_VALUES)) || !gostx__cades_validation_ok(v))
    return GOSTX_EINVAL;
  if (gostx_cades_parse(&sd->signers[signer], &info, st)) return GOSTX_EFORMAT;
  if (!info.n_sig_ts) *st = GOSTX_CADES_NO_SIGNATURE_TIMESTAMP;
  else if (((what & GOSTX_CADES_REFS) && (info.has_cert_refs || info.has_rev_refs)) ||
           ((what & GOSTX_CADES_VALUES) && (info.has_cert_values || info.has_rev_values)))
    *st = GOSTX_CADES_DUPLICATE;
  else if ((what & GOSTX_CADES_VALUES) && !(what & GOSTX_CADES_REFS) && !info.has_cert_refs)
    *st = GOSTX_CADES_NO_REFERENCES; /* X Long is C plus values */
  else *st = gostx__cades_read_inputs(v, &in);
  if (*st) return GOSTX_EFORMAT;
  in.signer = signer_cert, in.what = what;
  return gostx__cms_add_unsigned(sd, signer, gostx__cades_write_validation, &in, out, cap, out_len);
}

/* ---- the X timestamps ---- */

/* The attributes a timestamp of kind covers, each as attrType || attrValues
 * (the Attribute's content), in RFC 5126 6.3.5's order, after the
 * signature value for ESC. */
int gostx_cades_ts_data(const gostx_cms_signer_info *si, int kind, uint8_t *out, size_t cap, size_t *out_len,
                        gostx_cades_status *st) {
  gostx_cades_status dummy;
  gostx__der attrs, oid, values, content, refs[2] = {{0}};
  if (!st) st = &dummy;
  *st = GOSTX_CADES_MALFORMED;
  if (!si || !out_len || (kind != GOSTX_CADES_TS_ESC && kind != GOSTX_CADES_TS_CERTS_CRLS)) return GOSTX_EINVAL;
  if (gostx__cades_unsigned(si, &attrs)) return GOSTX_EFORMAT;
  gostx__der_w w;
  gostx__der_w_init(&w, out, out ? cap : 0);
  if (kind == GOSTX_CADES_TS_ESC) gostx__der_w_raw(&w, si->signature, si->signature_len);
  size_t n_ts = 0;
  while (attrs.n) {
    if (gostx__cades_next_attr(&attrs, &oid, &values, &content)) return GOSTX_EFORMAT;
    if (GOSTX__DER_OID_IS(oid, OID_AA_SIG_TS) && kind == GOSTX_CADES_TS_ESC) {
      gostx__der_w_raw(&w, content.p, content.n); /* every one, as they come */
      n_ts++;
    }
    int i = GOSTX__DER_OID_IS(oid, OID_AA_CERT_REFS) ? 0 : GOSTX__DER_OID_IS(oid, OID_AA_REV_REFS) ? 1 : -1;
    if (i < 0) continue;
    if (refs[i].p) {
      *st = GOSTX_CADES_DUPLICATE;
      return GOSTX_EFORMAT;
    }
    refs[i] = content;
  }
  *st = kind == GOSTX_CADES_TS_ESC && !n_ts ? GOSTX_CADES_NO_SIGNATURE_TIMESTAMP
        : !refs[0].p || !refs[1].p          ? GOSTX_CADES_NO_REFERENCES
                                            : GOSTX_CADES_OK;
  if (*st) return GOSTX_EFORMAT;
  gostx__der_w_raw(&w, refs[0].p, refs[0].n);
  gostx__der_w_raw(&w, refs[1].p, refs[1].n);
  return gostx__der_w_finish(&w, out_len);
}

typedef struct ts_attr {
  const char *oid;
  gostx__der token;
} ts_attr;

static void write_ts(gostx__der_w *w, const void *ctx) {
  const ts_attr *a = ctx;
  gostx__cms_attr_begin(w, a->oid);
  gostx__der_w_raw(w, a->token.p, a->token.n);
  gostx__cms_attr_end(w);
}

int gostx_cades_add_timestamp(const gostx_cms_signed *sd, size_t signer, int kind, const uint8_t *token,
                              size_t token_len, uint8_t *out, size_t cap, size_t *out_len,
                              gostx_cades_status *st) {
  gostx_cades_status dummy;
  gostx_cms_ts_token t;
  gostx_cades_info info;
  if (!st) st = &dummy;
  *st = GOSTX_CADES_MALFORMED;
  if (!sd || !sd->der || !token || !out_len || signer >= sd->n_signers ||
      (kind != GOSTX_CADES_TS_ESC && kind != GOSTX_CADES_TS_CERTS_CRLS && kind != GOSTX_CADES_TS_SIGNATURE))
    return GOSTX_EINVAL;
  if (gostx_cms_ts_parse(token, token_len, &t, NULL)) return GOSTX_EFORMAT;
  /* a signature-time-stamp stamps the signature value alone: any signer may
   * have one (CAdES-T), but not once a CAdES-C-time-stamp covers the
   * signature-time-stamps there are (RFC 5126 6.3.5: a new one would change
   * what it stamped, and it would no longer verify); the X timestamps stamp
   * the references too */
  if (gostx_cades_parse(&sd->signers[signer], &info, st)) return GOSTX_EFORMAT;
  if (kind == GOSTX_CADES_TS_SIGNATURE) {
    *st = info.n_esc_ts ? GOSTX_CADES_TIMESTAMPED : GOSTX_CADES_OK;
  } else {
    *st = info.has_cert_refs && info.has_rev_refs ? GOSTX_CADES_OK : GOSTX_CADES_NO_REFERENCES;
  }
  if (*st) return GOSTX_EFORMAT;
  ts_attr a = {kind == GOSTX_CADES_TS_SIGNATURE ? "1.2.840.113549.1.9.16.2.14"
               : kind == GOSTX_CADES_TS_ESC     ? "1.2.840.113549.1.9.16.2.25"
                                                : "1.2.840.113549.1.9.16.2.26",
               {t.token, t.token_len}};
  return gostx__cms_add_unsigned(sd, signer, write_ts, &a, out, cap, out_len);
}
