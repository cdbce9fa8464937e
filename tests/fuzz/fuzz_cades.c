/* libFuzzer harness: lib/cms's CAdES-C / X layer (cades_read.c,
 * cades_write.c, cades_verify.c, cades_refs.c, cades_tsa.c,
 * cades_tsa_verify.c). The first byte picks how the rest is read: even, as
 * a SignedData whose signers' CAdES attributes are parsed (every view
 * inside the input), their timestamp data counted and written, and
 * verified without a trust store (a failure always named; each token's own
 * data checked, its revocation values read by lib/x509); odd, as an OCSP
 * response (lib/x509's parser, the BasicOCSPResponse found within);
 * 2 or 6 (mod 4 == 2), as a signer's unsignedAttrs [1] alone, parsed and
 * its timestamp data written (small inputs reach the references). Each
 * signature-time-stamp's token's own TSA data is read (cades_tsa.c) and
 * the token put back in its place.
 * Nothing may crash or read out of bounds. The seeds (BES, T, X Long, X
 * Long Type 1, the CRLs and the OCSP response of tests/vectors/cades) are
 * written by `test_cades --seeds DIR`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cms/cades_internal.h"
#include "gostx.h"
#define FUZZ_NAME "fuzz_cades"
#include "fuzz_check.h"

static void check_info(const gostx_cades_info *info, const uint8_t *in, size_t n) {
  for (size_t i = 0; i < info->n_cert_refs; i++) {
    inside(info->cert_refs[i].hash.value, info->cert_refs[i].hash.value_len, in, n);
    inside(info->cert_refs[i].issuer, info->cert_refs[i].issuer_len, in, n);
    inside(info->cert_refs[i].serial, info->cert_refs[i].serial_len, in, n);
  }
  for (size_t i = 0; i < info->n_rev_refs; i++) {
    inside(info->rev_refs[i].name, info->rev_refs[i].name_len, in, n);
    inside(info->rev_refs[i].crl_number, info->rev_refs[i].crl_number_len, in, n);
    if (info->rev_refs[i].owner >= info->n_crl_ocsp_refs) bug("a reference's owner out of range");
  }
  for (size_t i = 0; i < info->n_certs; i++) inside(info->certs[i], info->cert_len[i], in, n);
  for (size_t i = 0; i < info->n_crls; i++) inside(info->crls[i], info->crl_len[i], in, n);
  for (size_t i = 0; i < info->n_ocsps; i++) inside(info->ocsps[i], info->ocsp_len[i], in, n);
  for (size_t i = 0; i < info->n_esc_ts; i++) inside(info->esc_ts[i], info->esc_ts_len[i], in, n);
}

/* each signature-time-stamp's token: its TSA's own data read back
 * (cades_tsa.c) and the token put back in place of itself */
static void tokens(const gostx_cms_signed *sd, size_t s, const uint8_t *in, size_t n) {
  static gostx_cades_info info, tinfo;
  static gostx_cms_ts_token t;
  gostx_cades_status st;
  size_t index, len, len2;
  if (gostx_cades_parse(&sd->signers[s], &info, &st)) return;
  for (size_t i = 0; i < info.n_sig_ts && i < GOSTX_CADES_MAX; i++) {
    if (gostx_cms_ts_parse(info.sig_ts[i], info.sig_ts_len[i], &t, NULL)) continue;
    if (!gostx_cades_tsa_values(&t, &tinfo, &st, &index)) check_info(&tinfo, in, n);
    else if (st == GOSTX_CADES_OK) bug("a token's data refused without a status");
    const gostx_cades_ts_at at = {s, GOSTX_CADES_TS_SIGNATURE, i};
    if (gostx_cades_replace_timestamp(sd, &at, t.token, t.token_len, NULL, 0, &len, &st))
      continue;
    uint8_t *out = malloc(len ? len : 1);
    if (gostx_cades_replace_timestamp(sd, &at, t.token, t.token_len, out, len, &len2,
                                      &st) ||
        len2 != len)
      bug("a token put back: counted and written differ");
    free(out);
  }
}

static void as_signed(const uint8_t *in, size_t n) {
  static gostx_cms_signed sd;
  static gostx_cades_info info;
  gostx_cades_status st;
  gostx_cades_verdict v;
  if (gostx_cms_signed_parse(in, n, &sd, NULL)) return;
  for (size_t s = 0; s < sd.n_signers; s++) {
    if (gostx_cades_parse(&sd.signers[s], &info, &st)) {
      if (st == GOSTX_CADES_OK) bug("parse refused without a status");
    } else {
      check_info(&info, in, n);
    }
    size_t len, len2;
    if (!gostx_cades_ts_data(&sd.signers[s], GOSTX_CADES_TS_ESC, NULL, 0, &len, &st)) {
      uint8_t *data = malloc(len ? len : 1);
      if (gostx_cades_ts_data(&sd.signers[s], GOSTX_CADES_TS_ESC, data, len, &len2, &st) || len2 != len)
        bug("ESC data: counted and written differ");
      free(data);
    }
    if (gostx_cades_verify(&sd, s, NULL, &info, &v) && v.status == GOSTX_CADES_OK)
      bug("verify refused without a status");
    tokens(&sd, s, in, n);
  }
}

/* the rest as an OCSP response: lib/x509 reads it, cades_read.c finds
 * its BasicOCSPResponse and the SingleResponses one names (CRLs are
 * lib/x509's alone now: fuzz_crl) */
static void as_revocation(const uint8_t *in, size_t n) {
  gostx__cades_ocsp o;
  if (gostx__cades_read_ocsp(in, n, &o)) return;
  inside(o.basic.p, o.basic.n, in, n);
  inside(o.r.responder, o.r.responder_len, in, n);
  gostx_x509_cert c;
  memset(&c, 0, sizeof c);
  c.issuer = in, c.issuer_len = n < 40 ? n : 40;
  c.serial = in + n - (n < 4 ? n : 4), c.serial_len = n < 4 ? n : 4;
  (void)gostx__cades_ocsp_covers(&o, &c);
}

/* the rest as a SignerInfo's unsigned attributes */
static void as_attrs(const uint8_t *in, size_t n) {
  static gostx_cades_info info;
  static const uint8_t sig[64] = {1};
  gostx_cms_signer_info si = {.unsigned_attrs = in, .unsigned_attrs_len = n, .signature = sig,
                              .signature_len = sizeof sig};
  gostx_cades_status st;
  size_t len, len2;
  if (!gostx_cades_parse(&si, &info, &st)) check_info(&info, in, n);
  else if (st == GOSTX_CADES_OK) bug("parse refused without a status");
  for (int kind = GOSTX_CADES_TS_ESC; kind <= GOSTX_CADES_TS_CERTS_CRLS; kind++) {
    if (gostx_cades_ts_data(&si, kind, NULL, 0, &len, &st)) continue;
    uint8_t *data = malloc(len ? len : 1);
    if (gostx_cades_ts_data(&si, kind, data, len, &len2, &st) || len2 != len) bug("data: counted and written differ");
    free(data);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  if (data[0] & 1) as_revocation(data + 1, size - 1);
  else if (data[0] & 2) as_attrs(data + 1, size - 1);
  else as_signed(data + 1, size - 1);
  return 0;
}
