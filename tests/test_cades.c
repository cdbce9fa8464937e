/* lib/cms's CAdES-C / X Long Type 1 (gostx/cades.h) on the files of
 * tests/vectors/cades (a GOST PKI, CRLs, an OCSP response and an RFC 3161
 * TSA of openssl + gost-engine; see its make.sh): CAdES-T made from the
 * BES and the TSA's reply, enhanced to X Long (the references' fields and
 * hashes checked one by one), the CAdES-C-time-stamp's exact bytes, the
 * TSA's token over them embedded: X Long Type 1, the signed bytes and the
 * signature unchanged. Then each refusal, named: validation data on a BES,
 * twice, bad inputs; a reference without a value, a value whose hash
 * differs (certificate, CRL), an unknown reference hash, a timestamp over other bytes, a
 * signature-time-stamp gone, a TSA nobody trusts.
 * `test_cades --esc-query FILE` writes the TimeStampReq for the X Long's
 * CAdES-C-time-stamp (make.sh asks the TSA with it); `--seeds DIR`
 * fuzz_cades's seed corpus. */
#include <stdlib.h>
#include <time.h>

#include "gostx/cades.h"
#include "testutil.h"

static uint8_t *slurp(const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "cades/%s", name);
  return tv_file(path, len);
}

/* a PEM certificate file's DER (a static buffer per slot) */
static uint8_t pem_der[4][4096];
static size_t pem_der_len[4];
static const uint8_t *cert_der(int slot, const char *name) {
  size_t len, pos = 0;
  uint8_t *pem = slurp(name, &len);
  CHECK(gostx_x509_pem_next((const char *)pem, len, &pos, pem_der[slot], sizeof pem_der[slot],
                            &pem_der_len[slot]) == 1,
        "%s: a PEM certificate", name);
  free(pem);
  return pem_der[slot];
}

typedef struct fixture {
  uint8_t *bes, *t_reply, *ca_crl, *int_crl, *ocsp, *content;
  size_t bes_len, t_reply_len, ca_crl_len, int_crl_len, ocsp_len, content_len;
  gostx_x509_cert signer, int_cert, ca_cert;
  gostx_x509_store *store;
  gostx_cms_verify_params params;
  const uint8_t *chain[2], *crls[2], *ocsps[1];
  size_t chain_len[2], crl_len[2], ocsp_lens[1];
  gostx_cades_validation v;
} fixture;

static void load(fixture *f) {
  memset(f, 0, sizeof *f);
  f->bes = slurp("bes.der", &f->bes_len);
  f->t_reply = slurp("t.tsr", &f->t_reply_len);
  f->ca_crl = slurp("ca.crl", &f->ca_crl_len);
  f->int_crl = slurp("int.crl", &f->int_crl_len);
  f->ocsp = slurp("signer.ocsp", &f->ocsp_len);
  f->content = slurp("content.txt", &f->content_len);
  const char *names[] = {"signer.pem", "int.pem", "ca.pem"};
  gostx_x509_cert *certs[] = {&f->signer, &f->int_cert, &f->ca_cert};
  for (int i = 0; i < 3; i++) {
    const uint8_t *der = cert_der(i, names[i]);
    CHECK(gostx_x509_parse(der, pem_der_len[i], certs[i], NULL) == 0, "%s parses", names[i]);
  }
  f->store = gostx_x509_store_new();
  CHECK(gostx_x509_store_add_der(f->store, pem_der[2], pem_der_len[2]) == 0, "ca into the store");
  f->params = (gostx_cms_verify_params){.store = f->store, .now = (int64_t)time(NULL)};
  f->chain[0] = pem_der[1], f->chain_len[0] = pem_der_len[1];
  f->chain[1] = pem_der[2], f->chain_len[1] = pem_der_len[2];
  f->crls[0] = f->ca_crl, f->crl_len[0] = f->ca_crl_len;
  f->crls[1] = f->int_crl, f->crl_len[1] = f->int_crl_len;
  f->ocsps[0] = f->ocsp, f->ocsp_lens[0] = f->ocsp_len;
  f->v = (gostx_cades_validation){.certs = f->chain, .cert_len = f->chain_len, .n_certs = 2,
                                  .crls = f->crls, .crl_len = f->crl_len, .n_crls = 2,
                                  .ocsps = f->ocsps, .ocsp_len = f->ocsp_lens, .n_ocsps = 1};
}

/* ---- building, with a buffer that fits ---- */

typedef struct msg {
  uint8_t buf[32768];
  size_t len;
  gostx_cms_signed sd;
} msg;

static int parse(msg *m) { return gostx_cms_signed_parse(m->buf, m->len, &m->sd, NULL); }

static void make_t(const fixture *f, msg *bes, msg *t) {
  gostx_cms_ts_token tok;
  memcpy(bes->buf, f->bes, f->bes_len);
  bes->len = f->bes_len;
  CHECK(parse(bes) == 0, "bes.der parses");
  CHECK(gostx_cms_ts_parse(f->t_reply, f->t_reply_len, &tok, NULL) == 0, "t.tsr parses");
  CHECK(gostx_cades_add_timestamp(&bes->sd, 0, GOSTX_CADES_TS_SIGNATURE, tok.token, tok.token_len, t->buf,
                                  sizeof t->buf, &t->len, NULL) == 0 &&
            parse(t) == 0,
        "CAdES-T made");
}

static int add_validation(const fixture *f, const msg *in, const gostx_cades_validation *v, unsigned what,
                          msg *out, gostx_cades_status *st) {
  int rc = gostx_cades_add_validation(&in->sd, 0, &f->signer, v, what, out->buf, sizeof out->buf, &out->len, st);
  return rc ? rc : parse(out);
}

/* ESC data of m's signer */
static size_t esc_data(const msg *m, uint8_t *data, size_t cap) {
  size_t len = 0;
  gostx_cades_status st;
  int rc = gostx_cades_ts_data(&m->sd.signers[0], GOSTX_CADES_TS_ESC, data, cap, &len, &st);
  CHECK(rc == 0, "ESC data: %s", gostx_cades_status_name(st));
  return len;
}

static int write_esc_query(const char *path) {
  fixture f;
  msg bes, t, xl;
  uint8_t data[16384], req[256], digest[32];
  size_t req_len;
  gostx_tsa_query_params q = {32, digest, NULL, NULL, 0, 1};
  gostx_cades_status st;
  load(&f);
  make_t(&f, &bes, &t);
  CHECK(add_validation(&f, &t, &f.v, GOSTX_CADES_REFS | GOSTX_CADES_VALUES, &xl, &st) == 0, "X Long");
  size_t len = esc_data(&xl, data, sizeof data);
  FILE *fp = fopen(path, "wb");
  gostx_streebog(32, data, len, digest);
  CHECK(fp && gostx_tsa_query_write(&q, req, sizeof req, &req_len) == 0 &&
            fwrite(req, 1, req_len, fp) == req_len && fclose(fp) == 0,
        "request written to %s", path);
  return t_done();
}

static void attr_content(const msg *m, uint8_t arc, const uint8_t **p, size_t *n, size_t *head);

/* fuzz_cades's seeds: 0 || a signature, 1 || a CRL or OCSP response, 2 ||
 * unsigned attributes alone (the references: small enough for -max_len) */
static void seed(const char *dir, int i, uint8_t kind, const uint8_t *der, size_t len) {
  char path[512];
  snprintf(path, sizeof path, "%s/seed-%02d", dir, i);
  FILE *fp = fopen(path, "wb");
  CHECK(fp && fwrite(&kind, 1, 1, fp) == 1 && fwrite(der, 1, len, fp) == len && fclose(fp) == 0, "%s", path);
}

static int write_seeds(const char *dir) {
  fixture f;
  msg bes, t, xl, xl1;
  gostx_cades_status st;
  size_t esc_len;
  load(&f);
  make_t(&f, &bes, &t);
  uint8_t *esc = slurp("esc.tsr", &esc_len);
  CHECK(add_validation(&f, &t, &f.v, GOSTX_CADES_REFS | GOSTX_CADES_VALUES, &xl, &st) == 0 &&
            gostx_cades_add_timestamp(&xl.sd, 0, GOSTX_CADES_TS_ESC, esc, esc_len, xl1.buf, sizeof xl1.buf,
                                      &xl1.len, &st) == 0,
        "X Long Type 1");
  seed(dir, 0, 0, bes.buf, bes.len);
  seed(dir, 1, 0, t.buf, t.len);
  seed(dir, 2, 0, xl.buf, xl.len);
  seed(dir, 3, 0, xl1.buf, xl1.len);
  seed(dir, 4, 1, f.ca_crl, f.ca_crl_len);
  seed(dir, 5, 1, f.ocsp, f.ocsp_len);
  uint8_t refs[4096] = {0xa1, 0x82};
  size_t n = 4;
  for (uint8_t arc = 21; arc <= 22; arc++) {
    const uint8_t *p;
    size_t k, h;
    attr_content(&xl, arc, &p, &k, &h);
    CHECK(p && n + k + h <= sizeof refs, "reference attribute 2.%u", arc);
    if (p) memcpy(refs + n, p - h, k + h), n += k + h;
  }
  refs[2] = (uint8_t)((n - 4) >> 8), refs[3] = (uint8_t)(n - 4);
  seed(dir, 6, 2, refs, n);
  free(esc);
  return t_done();
}

/* ---- checks ---- */

static gostx_cades_status verify(const fixture *f, const msg *m, gostx_cades_info *info,
                                 gostx_cades_verdict *v) {
  int rc = gostx_cades_verify(&m->sd, 0, &f->params, info, v);
  CHECK((rc == 0) == (v->status == GOSTX_CADES_OK), "verify's rc %d agrees with status %d", rc, v->status);
  return v->status;
}

static const uint8_t *find(const uint8_t *hay, size_t n, const uint8_t *needle, size_t k) {
  for (size_t i = 0; k && i + k <= n; i++)
    if (memcmp(hay + i, needle, k) == 0) return hay + i;
  return NULL;
}

/* the length of a DER header at p */
static size_t hdr(const uint8_t *p) { return p[1] < 0x80 ? 2 : 2 + (p[1] & 0x7f); }

/* An attribute's content (what the ESC timestamp covers) found by its OID
 * in the unsigned attributes: the SEQUENCE header just before the OID. */
static void attr_content(const msg *m, uint8_t arc, const uint8_t **p, size_t *n, size_t *head) {
  const gostx_cms_signer_info *si = &m->sd.signers[0];
  uint8_t oid[] = {0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x02, arc};
  const uint8_t *o = find(si->unsigned_attrs, si->unsigned_attrs_len, oid, sizeof oid);
  *p = NULL, *n = 0;
  /* the Attribute's header: 30 len, 30 81 len or 30 82 len len */
  for (size_t h = 2; o && h <= 4; h++) {
    const uint8_t *s = o - h;
    if (s[0] != 0x30 || hdr(s) != h) continue;
    size_t len = h == 2 ? s[1] : h == 3 ? s[2] : (size_t)s[2] << 8 | s[3];
    *p = o, *n = len;
    if (head) *head = h;
    return;
  }
}

static void check_refs(const fixture *f, const gostx_cades_info *info) {
  uint8_t h[32];
  CHECK(info->n_sig_ts == 1 && info->has_cert_refs && info->has_rev_refs && info->has_cert_values &&
            info->has_rev_values,
        "X Long: one signature timestamp, the four attributes");
  CHECK(info->n_cert_refs == 2, "two certificate references (int, ca; not the signer's): %zu", info->n_cert_refs);
  gostx_streebog(32, f->int_cert.der, f->int_cert.der_len, h);
  const gostx_cades_cert_ref *r = &info->cert_refs[0];
  CHECK(r->hash.alg == 32 && r->hash.value_len == 32 && memcmp(r->hash.value, h, 32) == 0,
        "int's reference: its Streebog-256 hash");
  CHECK(r->issuer && r->issuer_len == f->int_cert.issuer_len &&
            memcmp(r->issuer, f->int_cert.issuer, r->issuer_len) == 0 && r->serial_len == f->int_cert.serial_len &&
            memcmp(r->serial, f->int_cert.serial, r->serial_len) == 0,
        "int's reference: its issuerSerial");
  CHECK(info->n_crl_ocsp_refs == 3, "a CrlOcspRef for the signer, int and ca: %zu", info->n_crl_ocsp_refs);
  int signer_crl = 0, signer_ocsp = 0, int_crl = 0;
  for (size_t i = 0; i < info->n_rev_refs; i++) {
    const gostx_cades_rev_ref *rr = &info->rev_refs[i];
    if (rr->owner == 0 && rr->kind == GOSTX_CADES_REF_CRL) {
      gostx_streebog(32, f->int_crl, f->int_crl_len, h);
      signer_crl = memcmp(rr->hash.value, h, 32) == 0 && rr->crl_number_len == 1 && rr->crl_number[0] == 7 &&
                   rr->name_len == f->int_cert.subject_len && rr->time > 0;
    }
    if (rr->owner == 0 && rr->kind == GOSTX_CADES_REF_OCSP) {
      gostx_streebog(32, f->ocsp, f->ocsp_len, h);
      signer_ocsp = rr->has_hash && rr->name && rr->name[0] == 0xa1 && rr->time > 0 &&
                    memcmp(rr->hash.value, h, 32) != 0; /* over the BasicOCSPResponse, not the OCSPResponse */
    }
    if (rr->owner == 1 && rr->kind == GOSTX_CADES_REF_CRL)
      int_crl = rr->crl_number_len == 1 && rr->crl_number[0] == 1;
  }
  CHECK(signer_crl, "the signer's CRL reference: int.crl's hash, issuer, crlNumber 7");
  CHECK(signer_ocsp, "the signer's OCSP reference: byName responder, producedAt, the basic response's hash");
  CHECK(int_crl, "int's CRL reference: ca.crl, crlNumber 1");
  CHECK(info->n_certs == 2 && info->n_crls == 2 && info->n_ocsps == 1 && info->cert_len[0] == f->int_cert.der_len,
        "values: 2 certificates, 2 CRLs, 1 OCSP response");
  CHECK(info->crl_len[1] == f->int_crl_len && memcmp(info->crls[1], f->int_crl, f->int_crl_len) == 0,
        "revocation-values carries int.crl as it is");
}

/* RFC 5126 6.3.5: signature || sig-ts attr || cert refs attr || rev refs
 * attr, each attribute without its SEQUENCE's header */
static void check_esc_data(const msg *xl) {
  uint8_t data[16384], want[16384];
  size_t len = esc_data(xl, data, sizeof data), n = 0, k, ts_len = 0;
  const uint8_t *p;
  const gostx_cms_signer_info *si = &xl->sd.signers[0];
  memcpy(want, si->signature, si->signature_len);
  n = si->signature_len;
  uint8_t arcs[] = {14, 21, 22};
  for (int i = 0; i < 3; i++) {
    attr_content(xl, arcs[i], &p, &k, NULL);
    CHECK(p && n + k <= sizeof want, "attribute 2.%u found", arcs[i]);
    if (!p) return;
    memcpy(want + n, p, k);
    n += k;
    if (i == 0) ts_len = k;
  }
  CHECK(len == n, "ESC data: %zu bytes, want %zu", len, n);
  CHECK_BYTES(data, want, n, "ESC data: signature, signature-time-stamp, certificate refs, revocation refs");
  size_t need = 0, small;
  CHECK(gostx_cades_ts_data(si, GOSTX_CADES_TS_ESC, NULL, 0, &need, NULL) == 0 && need == n, "size query");
  CHECK(gostx_cades_ts_data(si, GOSTX_CADES_TS_ESC, data, 10, &small, NULL) == GOSTX_ELEN, "short buffer: ELEN");
  size_t refs_at = si->signature_len + ts_len;
  CHECK(gostx_cades_ts_data(si, GOSTX_CADES_TS_CERTS_CRLS, data, sizeof data, &len, NULL) == 0 &&
            len == n - refs_at && memcmp(data, want + refs_at, len) == 0,
        "Type 2 data: the two references alone");
}

static void round_trip(const fixture *f) {
  msg bes, t, xl, xl1;
  gostx_cades_info info;
  gostx_cades_verdict v;
  gostx_cades_status st;
  make_t(f, &bes, &t);
  CHECK(verify(f, &bes, &info, &v) == GOSTX_CADES_OK && v.level == GOSTX_CADES_BES, "BES: level BES");
  CHECK(verify(f, &t, &info, &v) == GOSTX_CADES_OK && v.level == GOSTX_CADES_T, "T: level T");
  int ok = add_validation(f, &t, &f->v, GOSTX_CADES_REFS | GOSTX_CADES_VALUES, &xl, &st) == 0;
  CHECK(ok, "T to X Long: %s", gostx_cades_status_name(st));
  ok = verify(f, &xl, &info, &v) == GOSTX_CADES_OK && v.level == GOSTX_CADES_X_LONG;
  CHECK(ok, "X Long: %s, level %s", gostx_cades_status_name(v.status), gostx_cades_level_name(v.level));
  check_refs(f, &info);
  check_esc_data(&xl);
  size_t esc_len;
  uint8_t *esc = slurp("esc.tsr", &esc_len);
  CHECK(gostx_cades_add_timestamp(&xl.sd, 0, GOSTX_CADES_TS_ESC, esc, esc_len, xl1.buf, sizeof xl1.buf, &xl1.len,
                                  &st) == 0 &&
            parse(&xl1) == 0,
        "the CAdES-C-time-stamp embedded");
  ok = verify(f, &xl1, &info, &v) == GOSTX_CADES_OK && v.level == GOSTX_CADES_X_LONG_TYPE1;
  CHECK(ok, "X Long Type 1: %s, level %s", gostx_cades_status_name(v.status), gostx_cades_level_name(v.level));
  CHECK(info.n_esc_ts == 1 && info.esc_ts_time[0] >= info.sig_ts_time[0] && info.sig_ts_time[0] > 1700000000,
        "the timestamps' times handed out");
  /* the signed bytes as they were */
  const gostx_cms_signer_info *a = &bes.sd.signers[0], *b = &xl1.sd.signers[0];
  CHECK(a->signed_attrs_len == b->signed_attrs_len && memcmp(a->signed_attrs, b->signed_attrs, a->signed_attrs_len) == 0 &&
            a->signature_len == b->signature_len && memcmp(a->signature, b->signature, a->signature_len) == 0,
        "signed attributes and signature unchanged");
  gostx_cms_hash h;
  gostx_cms_verdict cv;
  ok = gostx_cms_hash_init(&h, gostx_cms_signed_hashes(&xl1.sd)) == 0 &&
       gostx_cms_hash_update(&h, f->content, f->content_len) == 0 && gostx_cms_hash_final(&h) == 0 &&
       gostx_cms_signed_verify(&xl1.sd, &h, &f->params, &cv) == 0;
  CHECK(ok, "the X Long Type 1 signature still verifies: %s", gostx_cms_status_name(cv.status));
  /* a second signature-time-stamp after the CAdES-C-time-stamp would change
   * what that one stamped: refused, nothing written */
  {
    gostx_cms_ts_token tok;
    msg more;
    more.len = 0;
    CHECK(gostx_cms_ts_parse(f->t_reply, f->t_reply_len, &tok, NULL) == 0 &&
              gostx_cades_add_timestamp(&xl1.sd, 0, GOSTX_CADES_TS_SIGNATURE, tok.token, tok.token_len,
                                        more.buf, sizeof more.buf, &more.len, &st) == GOSTX_EFORMAT &&
              st == GOSTX_CADES_TIMESTAMPED && more.len == 0,
          "a signature-time-stamp after the CAdES-C-time-stamp refused: %s", gostx_cades_status_name(st));
    CHECK(gostx_cades_add_timestamp(&xl.sd, 0, GOSTX_CADES_TS_SIGNATURE, tok.token, tok.token_len, more.buf,
                                    sizeof more.buf, &more.len, &st) == 0 && st == GOSTX_CADES_OK,
          "a second signature-time-stamp before it: taken");
  }

  /* ---- refusals ---- */
  msg bad, tmp;
  CHECK(add_validation(f, &bes, &f->v, GOSTX_CADES_REFS, &bad, &st) == GOSTX_EFORMAT &&
            st == GOSTX_CADES_NO_SIGNATURE_TIMESTAMP,
        "validation data on a BES: NO_SIGNATURE_TIMESTAMP");
  CHECK(add_validation(f, &xl, &f->v, GOSTX_CADES_VALUES, &bad, &st) == GOSTX_EFORMAT && st == GOSTX_CADES_DUPLICATE,
        "values twice: DUPLICATE");
  CHECK(add_validation(f, &t, &f->v, GOSTX_CADES_VALUES, &bad, &st) == GOSTX_EFORMAT &&
            st == GOSTX_CADES_NO_REFERENCES,
        "values without references: NO_REFERENCES");
  gostx_cades_validation w = f->v;
  w.ocsps = f->crls;
  CHECK(add_validation(f, &t, &w, GOSTX_CADES_REFS, &bad, &st) == GOSTX_EFORMAT && st == GOSTX_CADES_BAD_OCSP,
        "a CRL as OCSP response: BAD_OCSP");
  w = f->v, w.crls = f->chain;
  CHECK(add_validation(f, &t, &w, GOSTX_CADES_REFS, &bad, &st) == GOSTX_EFORMAT && st == GOSTX_CADES_BAD_CRL,
        "a certificate as CRL: BAD_CRL");
  CHECK(gostx_cades_add_timestamp(&t.sd, 0, GOSTX_CADES_TS_ESC, esc, esc_len, bad.buf, sizeof bad.buf, &bad.len,
                                  &st) == GOSTX_EFORMAT &&
            st == GOSTX_CADES_NO_REFERENCES,
        "an ESC timestamp on a T: NO_REFERENCES");

  /* a reference without a value: refs of int and ca, values of int only */
  w = f->v, w.n_certs = 1;
  CHECK(add_validation(f, &t, &f->v, GOSTX_CADES_REFS, &tmp, &st) == 0 &&
            add_validation(f, &tmp, &w, GOSTX_CADES_VALUES, &bad, &st) == 0,
        "C, then values without ca");
  CHECK(verify(f, &tmp, &info, &v) == GOSTX_CADES_OK && v.level == GOSTX_CADES_C, "C alone: level C");
  CHECK(verify(f, &bad, &info, &v) == GOSTX_CADES_CERT_WITHOUT_VALUE && v.index == 1 && v.level == GOSTX_CADES_C,
        "ca's reference without a value: CERT_WITHOUT_VALUE, ref 1, level C");

  /* values whose bytes changed: the last byte (the signature's) of ca's
   * certificate and of int.crl inside the X Long Type 1 */
  struct {
    const uint8_t *der;
    size_t len;
    gostx_cades_status want;
  } flips[] = {{f->ca_cert.der, f->ca_cert.der_len, GOSTX_CADES_CERT_HASH_MISMATCH},
               {f->int_crl, f->int_crl_len, GOSTX_CADES_REV_HASH_MISMATCH}};
  for (int i = 0; i < 2; i++) {
    bad = xl1;
    const uint8_t *at = find(bad.buf + (xl1.sd.signers[0].unsigned_attrs - xl1.buf),
                             xl1.sd.signers[0].unsigned_attrs_len, flips[i].der, flips[i].len);
    CHECK(at != NULL, "value %d found in the attributes", i);
    if (!at) continue;
    bad.buf[at - bad.buf + flips[i].len - 1] ^= 1;
    ok = parse(&bad) == 0 && verify(f, &bad, &info, &v) == flips[i].want && v.level == GOSTX_CADES_C;
    CHECK(ok, "value %d changed: %s", i, gostx_cades_status_name(v.status));
  }

  /* a reference's hash algorithm unknown: int's OtherCertID's Streebog-256
   * OID turned into 1.2.643.7.1.1.2.9 */
  static const uint8_t streebog256[] = {0x06, 0x08, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x02};
  const uint8_t *refs_at;
  size_t refs_len;
  attr_content(&xl, 21, &refs_at, &refs_len, NULL);
  const uint8_t *alg = refs_at ? find(refs_at, refs_len, streebog256, sizeof streebog256) : NULL;
  CHECK(alg != NULL, "the certificate reference's hash algorithm found");
  bad = xl;
  if (alg) bad.buf[alg - xl.buf + sizeof streebog256 - 1] = 0x09;
  ok = parse(&bad) == 0 && verify(f, &bad, &info, &v) == GOSTX_CADES_UNKNOWN_HASH && v.index == 0 &&
       v.level == GOSTX_CADES_C && info.cert_refs[0].hash.alg == 0;
  CHECK(ok, "an unknown reference hash: %s", gostx_cades_status_name(v.status));

  /* a timestamp over other bytes: the signature's token as the ESC one */
  size_t tl;
  const uint8_t *tok;
  gostx_cms_ts_token tt;
  CHECK(gostx_cms_ts_parse(f->t_reply, f->t_reply_len, &tt, NULL) == 0, "t.tsr again");
  tok = tt.token, tl = tt.token_len;
  CHECK(gostx_cades_add_timestamp(&xl.sd, 0, GOSTX_CADES_TS_ESC, tok, tl, bad.buf, sizeof bad.buf, &bad.len, &st) ==
                0 &&
            parse(&bad) == 0,
        "the signature's token embedded as CAdES-C-time-stamp");
  CHECK(verify(f, &bad, &info, &v) == GOSTX_CADES_ESC_TIMESTAMP && v.ts.status == GOSTX_CMS_TS_IMPRINT_MISMATCH &&
            v.level == GOSTX_CADES_X_LONG,
        "a CAdES-C-time-stamp over other bytes: ESC_TIMESTAMP, IMPRINT_MISMATCH");

  /* the signature-time-stamp gone: its attribute's OID changed (2.14 to 2.15) */
  bad = xl1;
  const gostx_cms_signer_info *si = &xl1.sd.signers[0];
  static const uint8_t sig_ts_oid[] = {0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x02, 0x0e};
  const uint8_t *at = find(si->unsigned_attrs, si->unsigned_attrs_len, sig_ts_oid, sizeof sig_ts_oid);
  CHECK(at != NULL, "the signature-time-stamp's OID found");
  if (at) bad.buf[at - xl1.buf + sizeof sig_ts_oid - 1] = 0x0f;
  CHECK(parse(&bad) == 0 && verify(f, &bad, &info, &v) == GOSTX_CADES_NO_SIGNATURE_TIMESTAMP &&
            v.level == GOSTX_CADES_BES,
        "no signature-time-stamp: NO_SIGNATURE_TIMESTAMP");

  /* a TSA nobody trusts */
  gostx_x509_store *other = gostx_x509_store_new();
  fixture g = *f;
  g.params.store = other;
  CHECK(gostx_x509_store_add_der(other, pem_der[0], pem_der_len[0]) == 0 && verify(&g, &xl1, &info, &v) ==
                                                                              GOSTX_CADES_SIGNATURE_TIMESTAMP &&
            v.ts.status == GOSTX_CMS_TS_TOKEN,
        "a TSA under an untrusted root: SIGNATURE_TIMESTAMP (token)");
  gostx_x509_store_free(other);
  free(esc);
}

/* A TSA's own validation data in its token (RFC 5126 Annex B.2): added to
 * the signature-time-stamp's token (the CA above the TSA, ca.crl), read
 * back and checked, the token put back into the T (which still verifies);
 * refused: twice, another token, a covered signature-time-stamp, a changed
 * CRL value in the token. */
static void tsa_data(const fixture *f) {
  static msg bes, t, t2, xl1;
  static uint8_t tok2[16384];
  const gostx_cades_ts_at sig0 = {0, GOSTX_CADES_TS_SIGNATURE, 0}, esc0 = {0, GOSTX_CADES_TS_ESC, 0};
  gostx_cms_ts_token tok, got;
  gostx_cades_info info;
  gostx_cades_verdict v;
  gostx_cades_status st;
  gostx_x509_cert tsa;
  size_t len, index;
  make_t(f, &bes, &t);
  const uint8_t *tsa_der = cert_der(3, "tsa.pem");
  CHECK(gostx_x509_parse(tsa_der, pem_der_len[3], &tsa, NULL) == 0, "tsa.pem parses");
  CHECK(gostx_cades_parse(&t.sd.signers[0], &info, &st) == 0 &&
            gostx_cms_ts_parse(info.sig_ts[0], info.sig_ts_len[0], &tok, NULL) == 0,
        "the T's token");
  gostx_cades_validation w = f->v;
  w.certs = &f->chain[1], w.cert_len = &f->chain_len[1], w.n_certs = 1; /* ca */
  w.n_crls = 1, w.n_ocsps = 0;                                           /* ca.crl */
  CHECK(gostx_cades_add_tsa_validation(&tok, &tsa, &w, tok2, sizeof tok2, &len, &st) == 0 &&
            gostx_cms_ts_parse(tok2, len, &got, NULL) == 0,
        "the TSA's data added to its token: %s", gostx_cades_status_name(st));
  CHECK(gostx_cades_tsa_values(&got, &info, &st, &index) == 0 && info.n_certs == 1 && info.n_crls == 1 &&
            info.n_cert_refs == 1 && info.n_crl_ocsp_refs == 2 && info.crl_len[0] == f->ca_crl_len,
        "read back: the CA and its CRL, referenced: %s", gostx_cades_status_name(st));
  CHECK(gostx_cades_tsa_values(&tok, &info, &st, &index) == 0 && !info.n_certs && !info.n_crls,
        "a token without data: none");
  CHECK(gostx_cades_add_tsa_validation(&got, &tsa, &w, NULL, 0, &len, &st) == GOSTX_EFORMAT &&
            st == GOSTX_CADES_DUPLICATE,
        "twice: DUPLICATE");
  CHECK(gostx_cades_replace_timestamp(&t.sd, &sig0, got.token, got.token_len, t2.buf,
                                      sizeof t2.buf, &t2.len, &st) == 0 &&
            parse(&t2) == 0,
        "the token put back: %s", gostx_cades_status_name(st));
  CHECK(verify(f, &t2, &info, &v) == GOSTX_CADES_OK && v.level == GOSTX_CADES_T && info.n_sig_ts == 1 &&
            info.sig_ts_len[0] == got.token_len && !memcmp(info.sig_ts[0], got.token, got.token_len),
        "the T with it verifies: %s", gostx_cades_status_name(v.status));
  CHECK(info.sig_ts_tsa[0].outcome == GOSTX_CADES_TSA_OK &&
            info.sig_ts_tsa[0].at == (info.sig_ts_tsa[0].stale ? info.sig_ts_time[0] : f->params.now),
        "its TSA's path judged with the token's CRL: OK (outcome %d)", info.sig_ts_tsa[0].outcome);
  CHECK(gostx_cades_replace_timestamp(&t.sd, &esc0, got.token, got.token_len, t2.buf,
                                      sizeof t2.buf, &t2.len, &st) == GOSTX_EINVAL,
        "no CAdES-C-time-stamp to replace: EINVAL");
  /* another token: the CAdES-C one of the vectors */
  size_t esc_len;
  uint8_t *esc = slurp("esc.tsr", &esc_len);
  gostx_cms_ts_token other;
  CHECK(gostx_cms_ts_parse(esc, esc_len, &other, NULL) == 0 &&
            gostx_cades_replace_timestamp(&t.sd, &sig0, other.token, other.token_len,
                                          t2.buf, sizeof t2.buf, &t2.len, &st) == GOSTX_EFORMAT &&
            st == GOSTX_CADES_OTHER_TOKEN,
        "another token: OTHER_TOKEN");
  CHECK(add_validation(f, &t, &f->v, GOSTX_CADES_REFS | GOSTX_CADES_VALUES, &t2, &st) == 0 &&
            gostx_cades_add_timestamp(&t2.sd, 0, GOSTX_CADES_TS_ESC, esc, esc_len, xl1.buf, sizeof xl1.buf,
                                      &xl1.len, &st) == 0 &&
            parse(&xl1) == 0,
        "an X Long Type 1");
  CHECK(gostx_cades_replace_timestamp(&xl1.sd, &sig0, got.token, got.token_len, NULL, 0,
                                      &len, &st) == GOSTX_EFORMAT &&
            st == GOSTX_CADES_TIMESTAMPED,
        "a signature-time-stamp a CAdES-C-time-stamp covers: TIMESTAMPED");
  /* ca.crl's last byte changed inside the token: its reference's hash no longer meets it */
  const uint8_t *at = find(tok2, got.token_len, f->ca_crl, f->ca_crl_len);
  CHECK(at != NULL, "the CRL in the token");
  if (at) tok2[at - tok2 + f->ca_crl_len - 1] ^= 1;
  CHECK(gostx_cms_ts_parse(tok2, got.token_len, &got, NULL) == 0 &&
            gostx_cades_tsa_values(&got, &info, &st, &index) == GOSTX_EAUTH && st == GOSTX_CADES_REV_HASH_MISMATCH,
        "a changed CRL value in the token: REV_HASH_MISMATCH (%s)", gostx_cades_status_name(st));
  /* that token in the T: gostx_cades_verify judges the token's own data itself */
  CHECK(gostx_cades_replace_timestamp(&t.sd, &sig0, got.token, got.token_len, t2.buf, sizeof t2.buf, &t2.len,
                                      &st) == 0 &&
            parse(&t2) == 0,
        "the changed token put back");
  CHECK(verify(f, &t2, &info, &v) == GOSTX_CADES_REV_HASH_MISMATCH && v.ts_kind == GOSTX_CADES_TS_SIGNATURE &&
            v.ts_index == 0 && v.index == 0 && v.level == GOSTX_CADES_T,
        "gostx_cades_verify: the token's REV_HASH_MISMATCH, named in the signature timestamp (%s, kind %d)",
        gostx_cades_status_name(v.status), v.ts_kind);
  free(esc);
}

/* m's revocation value val[len] (found in m) with its byte at changed to
 * to, every reference's Streebog-256 of it made again: what only a full
 * parser refuses. */
static void change_value(msg *m, const uint8_t *val, size_t len, size_t at, uint8_t to) {
  uint8_t was[32], now[32];
  const uint8_t *p = find(m->buf, m->len, val, len);
  CHECK(p != NULL, "the value in the message");
  if (!p) return;
  uint8_t *q = m->buf + (p - m->buf);
  gostx_streebog(32, q, len, was);
  q[at] = to;
  gostx_streebog(32, q, len, now);
  int refs = 0;
  for (const uint8_t *h; (h = find(m->buf, m->len, was, sizeof was)) != NULL; refs++)
    memcpy(m->buf + (h - m->buf), now, sizeof now);
  CHECK(refs > 0 && parse(m) == 0, "its references' hash made again (%d)", refs);
}

/* bes, t and an X Long xl of f's signature, which verifies */
static void make_xl(const fixture *f, msg *bes, msg *t, msg *xl) {
  gostx_cades_info info;
  gostx_cades_verdict v;
  gostx_cades_status st;
  make_t(f, bes, t);
  CHECK(add_validation(f, t, &f->v, GOSTX_CADES_REFS | GOSTX_CADES_VALUES, xl, &st) == 0 &&
            verify(f, xl, &info, &v) == GOSTX_CADES_OK && v.level == GOSTX_CADES_X_LONG,
        "an X Long: %s", gostx_cades_status_name(v.status));
}

/* Revocation values that lib/x509 refuses, their references' hashes met:
 * a CRL whose outer signatureAlgorithm is not its tbsCertList's, an OCSP
 * response whose certStatus is no CHOICE RFC 6960 has (the field readers
 * cades_read.c had before read neither). */
static void values_x509_reads(const fixture *f) {
  static msg bes, t, xl, bad;
  gostx_cades_info info;
  gostx_cades_verdict v;
  make_xl(f, &bes, &t, &xl);
  /* ca.crl: the outer signatureAlgorithm's last OID byte (3.2, 256-bit) made 3.3 (512) */
  const uint8_t *alg = f->ca_crl + f->ca_crl_len - 1;
  while (alg > f->ca_crl && !(alg[0] == 0x03 && alg[1] == 0x02 && alg[2] == 0x05 && alg[3] == 0x00)) alg--;
  CHECK(alg > f->ca_crl, "ca.crl's signatureAlgorithm");
  bad = xl;
  change_value(&bad, f->ca_crl, f->ca_crl_len, (size_t)(alg - f->ca_crl) + 1, 0x03);
  CHECK(verify(f, &bad, &info, &v) == GOSTX_CADES_BAD_CRL && v.index == 0 &&
            v.x509 == GOSTX_X509_SIG_ALG_MISMATCH && v.level == GOSTX_CADES_C,
        "a CRL value lib/x509 refuses: BAD_CRL (%s, %s)", gostx_cades_status_name(v.status),
        gostx_x509_status_name(v.x509));
  /* the BasicOCSPResponse (the OCTET STRING's content in signer.ocsp): good [0] made [3] */
  static const uint8_t good[] = {0x80, 0x00, 0x18, 0x0f};
  const uint8_t *basic = f->ocsp + 30, *g = find(basic, f->ocsp_len - 30, good, sizeof good);
  CHECK(f->ocsp_len > 30 && basic[-4] == 0x04 && g != NULL, "signer.ocsp's certStatus");
  bad = xl;
  if (g) change_value(&bad, basic, f->ocsp_len - 30, (size_t)(g - basic), 0x83);
  CHECK(verify(f, &bad, &info, &v) == GOSTX_CADES_BAD_OCSP && v.index == 0 && v.level == GOSTX_CADES_C,
        "an OCSP value lib/x509 refuses: BAD_OCSP (%s)", gostx_cades_status_name(v.status));
}

/* In buf[len], the first pat[k] after attribute 2.<arc>'s OID: its byte
 * at `at` changed (a digit made another, any other byte flipped). 1 when found. */
static int change_in_attr(uint8_t *buf, size_t len, uint8_t arc, const uint8_t *pat, size_t k, size_t at) {
  const uint8_t oid[] = {0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x02, arc};
  const uint8_t *o = find(buf, len, oid, sizeof oid), *p = o ? find(o, len - (size_t)(o - buf), pat, k) : NULL;
  if (!p) return 0;
  uint8_t *q = buf + (p - buf) + at;
  *q = *q >= '0' && *q <= '9' ? (uint8_t)(*q == '9' ? '0' : *q + 1) : (uint8_t)(*q ^ 1);
  return 1;
}

/* RFC 5126 6.2.1, 6.2.2: a reference's every field names its value, not
 * its hash alone. Each field changed in an X Long's references (the
 * values, so the hashes, as they were): int's issuerSerial serial, the
 * signer's CRL reference's crlNumber and crlIssuedTime, its OCSP
 * reference's producedAt; and in a TSA's token, its CRL reference's
 * crlIssuedTime. */
static void ref_fields(const fixture *f) {
  static msg bes, t, xl, bad;
  static uint8_t tok2[16384];
  gostx_cades_info info;
  gostx_cades_verdict v;
  gostx_cades_status st;
  make_xl(f, &bes, &t, &xl);
  static const uint8_t number7[] = {0x5a, 0x02, 0x01, 0x07}, utc[] = {0x17, 0x0d}, gen[] = {0x18, 0x0f};
  struct {
    const char *what;
    uint8_t arc;
    const uint8_t *pat;
    size_t k, at;
    gostx_cades_status want;
  } cases[] = {
      {"int's issuerSerial serial", 21, f->int_cert.serial, f->int_cert.serial_len, f->int_cert.serial_len - 1,
       GOSTX_CADES_CERT_REF_MISMATCH},
      {"the CRL reference's crlNumber", 22, number7, sizeof number7, 3, GOSTX_CADES_REV_REF_MISMATCH},
      {"the CRL reference's crlIssuedTime", 22, utc, sizeof utc, 13, GOSTX_CADES_REV_REF_MISMATCH},
      {"the OCSP reference's producedAt", 22, gen, sizeof gen, 15, GOSTX_CADES_REV_REF_MISMATCH},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bad = xl;
    int found = change_in_attr(bad.buf, bad.len, cases[i].arc, cases[i].pat, cases[i].k, cases[i].at);
    gostx_cades_status got = found && parse(&bad) == 0 ? verify(f, &bad, &info, &v) : GOSTX_CADES_OK;
    CHECK(found && got == cases[i].want && v.level == GOSTX_CADES_C, "%s changed: %s", cases[i].what,
          gostx_cades_status_name(got));
  }
  /* a TSA's token with its own data (the CA and ca.crl) */
  gostx_cms_ts_token tok, got;
  gostx_x509_cert tsa;
  size_t len, index;
  CHECK(gostx_cades_parse(&t.sd.signers[0], &info, &st) == 0 &&
            gostx_cms_ts_parse(info.sig_ts[0], info.sig_ts_len[0], &tok, NULL) == 0 &&
            gostx_x509_parse(pem_der[3], pem_der_len[3], &tsa, NULL) == 0,
        "the T's token and tsa.pem");
  gostx_cades_validation w = f->v;
  w.certs = &f->chain[1], w.cert_len = &f->chain_len[1], w.n_certs = 1;
  w.n_crls = 1, w.n_ocsps = 0;
  CHECK(gostx_cades_add_tsa_validation(&tok, &tsa, &w, tok2, sizeof tok2, &len, &st) == 0 &&
            change_in_attr(tok2, len, 22, utc, sizeof utc, 13) && gostx_cms_ts_parse(tok2, len, &got, NULL) == 0 &&
            gostx_cades_tsa_values(&got, &info, &st, &index) == GOSTX_EAUTH && st == GOSTX_CADES_REV_REF_MISMATCH,
        "the token's CRL reference's crlIssuedTime changed: %s", gostx_cades_status_name(st));
  /* issuerSerial's serial not DER: INTEGER 00 01 (a redundant leading octet) */
  static const uint8_t padded[] = {
      0xa1, 0x37, 0x30, 0x35, 0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x02, 0x15,
      0x31, 0x26, 0x30, 0x24, 0x30, 0x22, 0x04, 0x14, /* SET { SEQ { OtherCertID { sha1Hash, */
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
      0x30, 0x0a, 0x30, 0x04, 0xa4, 0x02, 0x30, 0x00, 0x02, 0x02, 0x00, 0x01}; /* issuerSerial } } } */
  gostx_cms_signer_info si = {.unsigned_attrs = padded, .unsigned_attrs_len = sizeof padded};
  CHECK(gostx_cades_parse(&si, &info, &st) == GOSTX_EFORMAT && st == GOSTX_CADES_MALFORMED,
        "issuerSerial's serial 00 01: MALFORMED");
  uint8_t minimal[sizeof padded - 1];
  memcpy(minimal, padded, sizeof minimal);
  minimal[sizeof minimal - 2] = 1, minimal[sizeof minimal - 1] = 1; /* INTEGER 01 */
  minimal[1]--, minimal[3]--, minimal[18]--, minimal[20]--, minimal[22]--, minimal[46]--;
  si.unsigned_attrs = minimal, si.unsigned_attrs_len = sizeof minimal;
  CHECK(gostx_cades_parse(&si, &info, &st) == 0 && info.cert_refs[0].serial_len == 1,
        "issuerSerial's serial 01: read (%s)", gostx_cades_status_name(st));
}

/* RFC 5126's OtherHash CHOICE read both ways: a bare sha1Hash OCTET
 * STRING (20 bytes) and an OtherHashAlgAndValue of an algorithm not built
 * (SHA-256: alg 0, its OID kept); a sha1Hash of another size refused. */
static void other_hash_forms(void) {
  static const uint8_t sha1[] = {
      0xa1, 0x2a, 0x30, 0x28, 0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x02, 0x15, /* certRefs */
      0x31, 0x19, 0x30, 0x17, 0x30, 0x15, 0x04, 0x13, /* SET { SEQ { OtherCertID { OCTET STRING[19] } } } */
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  uint8_t buf[sizeof sha1 + 1];
  gostx_cades_info info;
  gostx_cades_status st;
  gostx_cms_signer_info si = {.unsigned_attrs = sha1, .unsigned_attrs_len = sizeof sha1};
  CHECK(gostx_cades_parse(&si, &info, &st) == GOSTX_EFORMAT && st == GOSTX_CADES_MALFORMED,
        "a 19-byte sha1Hash: MALFORMED");
  /* the same with 20 bytes: every length one more */
  memcpy(buf, sha1, sizeof sha1);
  buf[sizeof sha1] = 20;
  buf[1]++, buf[3]++, buf[18]++, buf[20]++, buf[22]++, buf[24]++;
  si.unsigned_attrs = buf, si.unsigned_attrs_len = sizeof buf;
  CHECK(gostx_cades_parse(&si, &info, &st) == 0 && info.n_cert_refs == 1 && info.cert_refs[0].hash.alg == 20 &&
            info.cert_refs[0].hash.value_len == 20 && !info.cert_refs[0].issuer,
        "a sha1Hash reference read (SHA-1, no issuerSerial)");
  static const uint8_t sha256[] = {
      0xa1, 0x46, 0x30, 0x44, 0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x02, 0x15,
      0x31, 0x35, 0x30, 0x33, 0x30, 0x31, 0x30, 0x2f, /* OtherCertID { OtherHashAlgAndValue { */
      0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, /* sha256 */
      0x04, 0x20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
      27, 28, 29, 30, 31, 32};
  si.unsigned_attrs = sha256, si.unsigned_attrs_len = sizeof sha256;
  CHECK(gostx_cades_parse(&si, &info, &st) == 0 && info.cert_refs[0].hash.alg == 0 &&
            info.cert_refs[0].hash.oid_len == 9,
        "an OtherHashAlgAndValue of SHA-256: read, the algorithm unknown (0)");
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--esc-query") == 0) return write_esc_query(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--seeds") == 0) return write_seeds(argv[2]);
  fixture f;
  load(&f);
  round_trip(&f);
  tsa_data(&f);
  values_x509_reads(&f);
  ref_fields(&f);
  other_hash_forms();
  gostx_x509_store_free(f.store);
  free(f.bes), free(f.t_reply), free(f.ca_crl), free(f.int_crl), free(f.ocsp), free(f.content);
  return t_done();
}
