/* gostx_cades_enhance (include/gostx/cades.h): a signer taken to CAdES-T,
 * -C, -X Long or -X Long Type 1, the one policy `gostx cms -enhance` and
 * gostx.cms.enhance run. Sans-IO: the timestamps, OCSP responses and CRLs
 * come through the caller's callbacks, the time from params->now; the
 * message is remade in memory after each layer (the lib/cms calls of
 * cades.h and tsa.h) and judged once, at the end, by gostx_cades_verify
 * before the caller gets it. */
#include <stdlib.h>
#include <string.h>

#include "cades_internal.h"

#define HAVE_MAX 256 /* the caller's CRLs, responses: each up to this many */
#define REV_MAX (HAVE_MAX + 4 * GOSTX_CADES_MAX) /* with those fetched */
#define PENDING 1                     /* steps' "stopped at a LATER" */

typedef struct enh {
  const gostx_cades_enhance_opts *o;
  const gostx_cms_verify_params *p;
  const gostx_cades_fetch *f;
  gostx_cades_report *r;
  uint8_t *der; /* the message as it is now */
  size_t len;
  int parsed;
  gostx_cms_signed sd;
  gostx_cades_info info;
  gostx_cms_ts_token t; /* a token worked on: a reply, or one in the message */
  gostx_cades_info tinfo;
  gostx_x509_cert given[GOSTX_CADES_MAX]; /* have->certs */
  size_t n_given;
  gostx_x509_crl crls[REV_MAX];
  size_t n_crls;
  gostx_ocsp_response ocsps[REV_MAX];
  const uint8_t *ocsp_der[REV_MAX];
  size_t ocsp_len[REV_MAX], n_ocsps;
  uint8_t *owned[3 * REV_MAX]; /* fetched bytes, and the issuers asked for a CRL */
  size_t owned_len[3 * REV_MAX], n_owned;
  size_t asked[REV_MAX], n_asked; /* owned[asked[i]]: an issuer asked */
  gostx_x509_cert *chain;
  gostx_x509_verify_result res;
  /* the validation data for a path */
  const uint8_t *vc[GOSTX_X509_MAX_DEPTH + GOSTX_CADES_MAX], *vr[REV_MAX], *vo[REV_MAX];
  size_t vc_len[GOSTX_X509_MAX_DEPTH + GOSTX_CADES_MAX], vr_len[REV_MAX], vo_len[REV_MAX];
  gostx_cades_validation v;
} enh;

static int fail(enh *e, int what, int rc) {
  e->r->what = what;
  return rc;
}

static void note(enh *e, gostx_cades_report *n) {
  if (e->f->note) e->f->note(e->f->ctx, n);
}

static void at_token(gostx_cades_report *r, int kind, size_t index) {
  r->ts_kind = kind, r->ts_index = index;
}

/* ---- the message remade ---- */

typedef int (*make_fn)(const enh *e, const void *c, uint8_t *out, size_t cap, size_t *len,
                       gostx_cades_status *st);

/* make's output, sized then made, into *out (malloc'ed): 0, or R_BUILD */
static int made(enh *e, make_fn make, const void *c, uint8_t **out, size_t *len) {
  gostx_cades_status st = GOSTX_CADES_OK;
  *out = NULL;
  int rc = make(e, c, NULL, 0, len, &st);
  if (!rc && !(*out = malloc(*len ? *len : 1))) return GOSTX_ENOMEM;
  if (!rc) rc = make(e, c, *out, *len, len, &st);
  if (!rc) return 0;
  free(*out);
  *out = NULL;
  e->r->v.status = st;
  return fail(e, GOSTX_CADES_R_BUILD, rc);
}

/* der (malloc'ed, e takes it) as the message from now on */
static int take(enh *e, uint8_t *der, size_t len) {
  gostx_cades_status st;
  free(e->der);
  e->der = der, e->len = len, e->parsed = 0;
  if (gostx_cms_signed_parse(der, len, &e->sd, &e->r->cms)) return fail(e, GOSTX_CADES_R_INPUT, GOSTX_EFORMAT);
  if (e->o->signer >= e->sd.n_signers) return GOSTX_EINVAL;
  if (gostx_cades_parse(&e->sd.signers[e->o->signer], &e->info, &st)) {
    e->r->v.status = st;
    return fail(e, GOSTX_CADES_R_INPUT, GOSTX_EFORMAT);
  }
  e->parsed = 1;
  return 0;
}

static int remake(enh *e, make_fn make, const void *c) {
  uint8_t *out;
  size_t len;
  int rc = made(e, make, c, &out, &len);
  return rc ? rc : take(e, out, len);
}

/* a copy of bytes a callback handed, kept until the call returns */
static const uint8_t *keep(enh *e, const uint8_t *p, size_t n) {
  if (e->n_owned == 3 * REV_MAX || !(e->owned[e->n_owned] = malloc(n ? n : 1))) return NULL;
  memcpy(e->owned[e->n_owned], p, n);
  e->owned_len[e->n_owned] = n;
  return e->owned[e->n_owned++];
}

static int fetched(enh *e, int which, int rc) {
  if (!rc) return 0;
  e->r->fetch = which, e->r->rc = rc;
  return fail(e, GOSTX_CADES_R_FETCH, GOSTX_EIO);
}

/* ---- timestamps ---- */

/* What a make_fn adds: a certificate's validation data (what), or a
 * token (at: where it goes) */
typedef struct make_ctx {
  const gostx_x509_cert *cert;
  unsigned what;
  gostx_cades_ts_at at;
  const uint8_t *token;
  size_t token_len;
} make_ctx;

static int embed(const enh *e, const void *c, uint8_t *out, size_t cap, size_t *len, gostx_cades_status *st) {
  const make_ctx *s = c;
  return gostx_cades_add_timestamp(&e->sd, e->o->signer, s->at.kind, s->token, s->token_len, out, cap, len, st);
}

/* A timestamp of kind over data[len] asked of the TSA, checked, added. */
static int stamp(enh *e, int kind, const uint8_t *data, size_t len) {
  uint8_t q[160];
  size_t qn, reply_len = 0;
  const uint8_t *reply = NULL;
  gostx_cms_ts_status tst;
  gostx_cades_report n;
  uint8_t h[64];
  gostx_cms_hash hs;
  size_t dl = e->sd.signers[e->o->signer].digest_len == 64 ? 64 : 32;
  at_token(e->r, kind, 0);
  gostx_streebog(dl, data, len, h);
  gostx_tsa_query_params qp = {dl, h, NULL, NULL, 0, 1}; /* certReq, no nonce or policy */
  if (gostx_tsa_query_write(&qp, q, sizeof q, &qn)) return fail(e, GOSTX_CADES_R_BUILD, GOSTX_ELEN);
  int rc = e->f->tsa(e->f->ctx, kind, q, qn, &reply, &reply_len);
  if (rc == GOSTX_CADES_LATER) return e->r->what = GOSTX_CADES_R_PENDING, PENDING;
  if (rc || (rc = reply ? 0 : GOSTX_EINVAL)) return fetched(e, GOSTX_CADES_FETCH_TSA, rc);
  if (gostx_cms_ts_parse(reply, reply_len, &e->t, &tst)) {
    e->r->v.ts.status = tst, e->r->pki_status = e->t.pki_status;
    return fail(e, GOSTX_CADES_R_STAMP, GOSTX_EAUTH);
  }
  gostx_tsa_expect want = gostx__cades_digests(data, len, &hs);
  if (gostx_tsa_verify(&e->t, &want, e->p, &e->r->v.ts)) return fail(e, GOSTX_CADES_R_STAMP, GOSTX_EAUTH);
  memset(&n, 0, sizeof n);
  n.what = GOSTX_CADES_R_STAMPED, n.ts_kind = kind, n.gen_time = e->t.gen_time;
  n.serial_len = e->t.serial_len < sizeof n.serial ? e->t.serial_len : sizeof n.serial;
  memcpy(n.serial, e->t.serial, n.serial_len);
  note(e, &n);
  make_ctx c = {NULL, 0, {e->o->signer, kind, 0}, e->t.token, e->t.token_len};
  return remake(e, embed, &c);
}

/* ---- revocation data: the caller's, fetched ---- */

static int add_crl(enh *e, const uint8_t *der, size_t len, size_t index) {
  if (e->n_crls == REV_MAX) return e->r->v.status = GOSTX_CADES_TOO_MANY, fail(e, GOSTX_CADES_R_BUILD, GOSTX_EFORMAT);
  if (gostx_x509_crl_parse(der, len, &e->crls[e->n_crls], &e->r->v.x509)) {
    e->r->v.status = GOSTX_CADES_BAD_CRL, e->r->v.index = index;
    return fail(e, GOSTX_CADES_R_BUILD, GOSTX_EFORMAT);
  }
  e->n_crls++;
  return 0;
}

/* 0, or 1 when der is no OCSP response lib/x509 reads (or too many) */
static int add_ocsp(enh *e, const uint8_t *der, size_t len) {
  if (e->n_ocsps == REV_MAX || gostx_ocsp_response_parse(der, len, &e->ocsps[e->n_ocsps])) return 1;
  e->ocsp_der[e->n_ocsps] = der, e->ocsp_len[e->n_ocsps++] = len;
  return 0;
}

/* The responder asked about the path's first certificate (a SHA-1
 * CertID, a nonce), its response checked at now and kept. */
static int ask_ocsp(enh *e) {
  gostx_ocsp_request req;
  uint8_t der[512];
  size_t len, resp_len = 0;
  const uint8_t *resp = NULL;
  if (!e->f->ocsp || e->res.path_len < 2) return 0;
  const gostx_x509_cert *cert = e->res.path[0], *issuer = e->res.path[1];
  memset(&req, 0, sizeof req);
  req.n = 1, req.nonce_len = 16;
  if (gostx_ocsp_certid_make(issuer, cert->serial, cert->serial_len, GOSTX_OCSP_SHA1, &req.id[0]) ||
      gostx_random_bytes(req.nonce, req.nonce_len) || gostx_ocsp_request_write(&req, der, sizeof der, &len))
    return fail(e, GOSTX_CADES_R_BUILD, GOSTX_EINVAL);
  int rc = e->f->ocsp(e->f->ctx, der, len, &resp, &resp_len);
  if (rc || (rc = resp ? 0 : GOSTX_EINVAL)) return fetched(e, GOSTX_CADES_FETCH_OCSP, rc);
  if (!(resp = keep(e, resp, resp_len))) return GOSTX_ENOMEM;
  e->r->ocsp = GOSTX_OCSP_MALFORMED;
  if (add_ocsp(e, resp, resp_len)) return fail(e, GOSTX_CADES_R_OCSP, GOSTX_EAUTH);
  gostx_ocsp_check_opts o;
  gostx_ocsp_check_opts_init(&o, e->p->now);
  o.issuer = issuer, o.nonce = req.nonce, o.nonce_len = req.nonce_len;
  e->r->ocsp = gostx_ocsp_check(&e->ocsps[e->n_ocsps - 1], &o, req.id, 1, NULL, NULL, NULL);
  return e->r->ocsp == GOSTX_OCSP_OK ? 0 : fail(e, GOSTX_CADES_R_OCSP, GOSTX_EAUTH);
}

static int same(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  return an == bn && !memcmp(a, b, an);
}

/* The CRL callback asked for each issuer on the path (but the anchor's
 * certificate) that no CRL known and no earlier question covers. */
static int ask_crls(enh *e) {
  for (size_t i = 0; e->f->crl && i + 1 < e->res.path_len; i++) {
    const gostx_x509_cert *c = e->res.path[i];
    int known = 0;
    for (size_t k = 0; !known && k < e->n_crls; k++)
      known = same(e->crls[k].issuer, e->crls[k].issuer_len, c->issuer, c->issuer_len);
    for (size_t k = 0; !known && k < e->n_asked; k++)
      known = same(e->owned[e->asked[k]], e->owned_len[e->asked[k]], c->issuer, c->issuer_len);
    if (known || e->n_asked == REV_MAX) continue;
    /* the name kept (the certificate may go with the message remade): asked once */
    e->asked[e->n_asked] = e->n_owned;
    if (!keep(e, c->issuer, c->issuer_len)) return GOSTX_ENOMEM;
    e->n_asked++;
    const uint8_t *crl = NULL;
    size_t len = 0;
    int rc = e->f->crl(e->f->ctx, c->issuer, c->issuer_len, &crl, &len);
    if (rc) return fetched(e, GOSTX_CADES_FETCH_CRL, rc);
    if (crl && !(crl = keep(e, crl, len))) return GOSTX_ENOMEM;
    if (crl && (rc = add_crl(e, crl, len, e->n_crls))) return rc;
  }
  return 0;
}

/* ---- paths ---- */

/* chain[0..n)'s path at when, without revocation data (rev 0) or with all of it */
static gostx_x509_status path_at(enh *e, size_t n, int64_t when, int rev) {
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, when);
  if (rev) {
    o.crls = e->crls, o.n_crls = e->n_crls;
    o.ocsps = e->ocsps, o.n_ocsps = e->n_ocsps;
    o.crl_check = GOSTX_X509_CRL_CHECK_ALL;
  }
  return gostx_x509_verify_with(e->p->store, e->chain, n, &o, &e->res);
}

/* e->res's refusal at when into n */
static void refusal(const enh *e, gostx_cades_report *n, int what, int rev, int64_t when) {
  n->what = what, n->revocation = rev;
  n->v.x509 = e->res.status, n->v.depth = e->res.depth, n->v.at = when;
  memcpy(n->v.why, e->res.why, sizeof n->v.why);
}

/* The path from chain[0..n) at when: built, the responder and the CRL
 * source asked, judged with the revocation data. A revocation refusal is
 * a note when forcing (tsa: no data for a TSA is one, never a failure). */
static int judge(enh *e, size_t n, int64_t when, int tsa) {
  if (path_at(e, n, when, 0) != GOSTX_X509_OK) return refusal(e, e->r, GOSTX_CADES_R_CHAIN, 0, when), GOSTX_EAUTH;
  int rc = ask_ocsp(e);
  if (!rc) rc = ask_crls(e);
  if (rc) return rc;
  gostx_x509_status xs = path_at(e, n, when, 1);
  if (xs == GOSTX_X509_OK) return 0;
  gostx_cades_report w;
  memset(&w, 0, sizeof w);
  at_token(&w, e->r->ts_kind, e->r->ts_index);
  if (tsa && (xs == GOSTX_X509_NO_REVOCATION_DATA || xs == GOSTX_X509_CRL_UNAVAILABLE)) {
    refusal(e, &w, GOSTX_CADES_R_NO_DATA, 1, when);
    return note(e, &w), 0;
  }
  if (!e->o->force) return refusal(e, e->r, GOSTX_CADES_R_CHAIN, 1, when), GOSTX_EAUTH;
  refusal(e, &w, GOSTX_CADES_R_CHAIN, 1, when);
  return note(e, &w), 0;
}

/* 1 when crl is by the issuer of one of the path's certificates but the anchor */
static int crl_for(const gostx_x509_crl *crl, const gostx_x509_verify_result *res) {
  for (size_t i = 0; i + 1 < res->path_len; i++)
    if (same(crl->issuer, crl->issuer_len, res->path[i]->issuer, res->path[i]->issuer_len)) return 1;
  return 0;
}

/* 1 when a SingleResponse of r names one of the path's certificates (its
 * CertID remade under the response's hash with the next one as issuer) */
static int ocsp_for(const gostx_ocsp_response *r, const gostx_x509_verify_result *res) {
  gostx_ocsp_single s;
  gostx_ocsp_certid id;
  size_t pos = 0;
  while (gostx_ocsp_single_next(r, &pos, &s))
    for (size_t i = 0; i + 1 < res->path_len; i++)
      if (s.id.hash != GOSTX_OCSP_HASH_OTHER &&
          !gostx_ocsp_certid_make(res->path[i + 1], res->path[i]->serial, res->path[i]->serial_len, s.id.hash, &id) &&
          gostx_ocsp_certid_equal(&id, &s.id))
        return 1;
  return 0;
}

/* e->v: the certificates above the path's first (given: have->certs) and
 * the CRLs and responses for the path; res NULL (no store): all of them. */
static void values_for(enh *e, const gostx_x509_verify_result *res, int given) {
  size_t nc = 0, nr = 0, no = 0;
  if (given)
    for (size_t i = 0; i < e->n_given; i++) e->vc[nc] = e->given[i].der, e->vc_len[nc++] = e->given[i].der_len;
  else
    for (size_t i = 1; res && i < res->path_len; i++) e->vc[nc] = res->path[i]->der, e->vc_len[nc++] = res->path[i]->der_len;
  for (size_t i = 0; i < e->n_crls; i++)
    if (!res || crl_for(&e->crls[i], res)) e->vr[nr] = e->crls[i].der, e->vr_len[nr++] = e->crls[i].der_len;
  for (size_t i = 0; i < e->n_ocsps; i++)
    if (!res || ocsp_for(&e->ocsps[i], res)) e->vo[no] = e->ocsp_der[i], e->vo_len[no++] = e->ocsp_len[i];
  gostx_cades_validation v = {e->vc, e->vr, e->vo, e->vc_len, e->vr_len, e->vo_len, nc, nr, no};
  e->v = v;
}

/* The certificate of si among sd's and params' */
static const gostx_x509_cert *cert_of(const enh *e, const gostx_cms_signed *sd, const gostx_cms_signer_info *si) {
  gostx__cms_id id = {si->sid_kind,
                      {si->sid_issuer, si->sid_issuer_len},
                      {si->sid_serial, si->sid_serial_len},
                      {si->sid_key_id, si->sid_key_id_len}};
  for (size_t i = 0; i < sd->n_certs + e->p->n_untrusted; i++) {
    const gostx_x509_cert *c = i < sd->n_certs ? &sd->certs[i] : &e->p->untrusted[i - sd->n_certs];
    if (gostx__cms_cert_is(c, &id)) return c;
  }
  return NULL;
}

/* chain[]: leaf, then more[0..n_more), sd's certificates, params'; its count */
static size_t chain_of(enh *e, const gostx_x509_cert *leaf, const gostx_x509_cert *more, size_t n_more,
                       const gostx_cms_signed *sd) {
  size_t n = 0;
  e->chain[n++] = *leaf;
  for (size_t i = 0; i < n_more; i++) e->chain[n++] = more[i];
  for (size_t i = 0; i < sd->n_certs; i++) e->chain[n++] = sd->certs[i];
  for (size_t i = 0; i < e->p->n_untrusted; i++) e->chain[n++] = e->p->untrusted[i];
  return n;
}

/* ---- the layers ---- */

static int add_values(const enh *e, const void *c, uint8_t *out, size_t cap, size_t *len, gostx_cades_status *st) {
  const make_ctx *x = c;
  return gostx_cades_add_validation(&e->sd, e->o->signer, x->cert, &e->v, x->what, out, cap, len, st);
}

static int token_again(const enh *e, const void *c, uint8_t *out, size_t cap, size_t *len, gostx_cades_status *st) {
  const make_ctx *x = c;
  return gostx_cades_add_tsa_validation(&e->t, x->cert, &e->v, out, cap, len, st);
}

static int put_back(const enh *e, const void *c, uint8_t *out, size_t cap, size_t *len, gostx_cades_status *st) {
  const make_ctx *x = c;
  return gostx_cades_replace_timestamp(&e->sd, &x->at, x->token, x->token_len, out, cap, len, st);
}

static int esc_data(const enh *e, const void *c, uint8_t *out, size_t cap, size_t *len, gostx_cades_status *st) {
  (void)c;
  return gostx_cades_ts_data(&e->sd.signers[e->o->signer], GOSTX_CADES_TS_ESC, out, cap, len, st);
}

/* The earliest signature-time-stamp's genTime: when the signature is
 * known to have existed, the time its path is judged at. */
static int64_t signature_time(enh *e) {
  int64_t t = e->p->now;
  for (size_t i = 0; i < e->info.n_sig_ts && i < GOSTX_CADES_MAX; i++)
    if (!gostx_cms_ts_parse(e->info.sig_ts[i], e->info.sig_ts_len[i], &e->t, NULL) && (!i || e->t.gen_time < t))
      t = e->t.gen_time;
  return t;
}

/* The signer's references (C) and values (X Long): the path at the
 * signature's time, judged with the revocation data, what is for it. */
static int signer_values(enh *e) {
  const gostx_cms_signer_info *si = &e->sd.signers[e->o->signer];
  const gostx_x509_cert *c = cert_of(e, &e->sd, si);
  at_token(e->r, 0, 0);
  if (!c) return fail(e, GOSTX_CADES_R_NO_CERT, GOSTX_EAUTH);
  gostx_x509_cert signer = *c; /* into the message remake replaces */
  int rc = 0;
  if (e->p->store) {
    size_t n = chain_of(e, &signer, e->given, e->n_given, &e->sd);
    if ((rc = judge(e, n, signature_time(e), 0))) return rc;
  }
  values_for(e, e->p->store ? &e->res : NULL, e->n_given || !e->p->store);
  make_ctx x = {&signer, GOSTX_CADES_REFS | (e->o->to >= GOSTX_CADES_X_LONG ? GOSTX_CADES_VALUES : 0), {0, 0, 0}, NULL, 0};
  return remake(e, add_values, &x);
}

/* The index-th token of kind, with no data of its own, given its TSA's. */
static int one_token(enh *e, int kind, size_t index) {
  const uint8_t *tok = kind == GOSTX_CADES_TS_ESC ? e->info.esc_ts[index] : e->info.sig_ts[index];
  size_t tok_len = kind == GOSTX_CADES_TS_ESC ? e->info.esc_ts_len[index] : e->info.sig_ts_len[index];
  gostx_cades_info *ti = &e->tinfo;
  at_token(e->r, kind, index);
  if (gostx_cms_ts_parse(tok, tok_len, &e->t, NULL) || e->t.sd.n_signers != 1 ||
      gostx_cades_parse(&e->t.sd.signers[0], ti, NULL))
    return 0; /* gostx_cades_verify names it at the end */
  if (ti->has_cert_refs || ti->has_rev_refs || ti->has_cert_values || ti->has_rev_values) return 0;
  const gostx_x509_cert *c = cert_of(e, &e->t.sd, &e->t.sd.signers[0]);
  if (!c) return fail(e, GOSTX_CADES_R_NO_CERT, GOSTX_EAUTH);
  gostx_x509_cert tsa = *c;
  int rc = judge(e, chain_of(e, &tsa, NULL, 0, &e->t.sd), e->p->now, 1);
  if (rc) return rc;
  values_for(e, &e->res, 0);
  if (!e->v.n_crls && !e->v.n_ocsps) return 0; /* nothing to carry: a note said so */
  make_ctx x = {&tsa, 0, {e->o->signer, kind, index}, NULL, 0};
  uint8_t *again;
  if ((rc = made(e, token_again, &x, &again, &x.token_len))) return rc;
  x.token = again;
  rc = remake(e, put_back, &x);
  free(again);
  if (rc) return rc;
  gostx_cades_report n;
  memset(&n, 0, sizeof n);
  n.what = GOSTX_CADES_R_TSA_DATA;
  at_token(&n, kind, index);
  note(e, &n);
  return 0;
}

/* Each timestamp of kind whose token has no data of its own gets its
 * TSA's: the chain above its certificate, the revocation data for it. */
static int tsa_values(enh *e, int kind) {
  if (!e->p->store) return 0;
  for (size_t i = 0;; i++) {
    size_t n = kind == GOSTX_CADES_TS_ESC ? e->info.n_esc_ts : e->info.n_sig_ts;
    if (i >= n || i >= GOSTX_CADES_MAX) return 0;
    int rc = one_token(e, kind, i); /* the message is remade: e->info read afresh */
    if (rc) return rc;
  }
}

static int steps(enh *e) {
  gostx_cades_level to = e->o->to;
  int rc;
  if (!e->info.n_sig_ts) {
    const gostx_cms_signer_info *si = &e->sd.signers[e->o->signer];
    if ((rc = stamp(e, GOSTX_CADES_TS_SIGNATURE, si->signature, si->signature_len))) return rc;
  }
  if (to == GOSTX_CADES_T) return 0;
  /* with the signer's, the signature-time-stamp's TSA's data: its token
   * changes now or never (a CAdES-C-time-stamp covers it) */
  if (!e->info.has_cert_refs && !e->info.has_rev_refs &&
      ((rc = signer_values(e)) || (to != GOSTX_CADES_C && (rc = tsa_values(e, GOSTX_CADES_TS_SIGNATURE)))))
    return rc;
  if (to != GOSTX_CADES_X_LONG_TYPE1) return 0;
  if (!e->info.n_esc_ts) {
    uint8_t *data;
    size_t len;
    at_token(e->r, GOSTX_CADES_TS_ESC, 0);
    if ((rc = made(e, esc_data, NULL, &data, &len))) return rc;
    rc = stamp(e, GOSTX_CADES_TS_ESC, data, len);
    free(data);
    if (rc) return rc;
  }
  return tsa_values(e, GOSTX_CADES_TS_ESC);
}

/* ---- the call ---- */

static int reached(gostx_cades_level l, gostx_cades_level to) {
  if (to == GOSTX_CADES_X_LONG) return l == GOSTX_CADES_X_LONG || l == GOSTX_CADES_X_LONG_TYPE1;
  if (to == GOSTX_CADES_X_LONG_TYPE1) return l == GOSTX_CADES_X_LONG_TYPE1;
  return l >= to;
}

/* The caller's data read: the chain above the signer, CRLs, responses. */
static int load(enh *e, const gostx_cades_validation *h) {
  if (!h) return 0;
  if (h->n_certs > GOSTX_CADES_MAX || h->n_crls > HAVE_MAX || h->n_ocsps > HAVE_MAX) {
    e->r->v.status = GOSTX_CADES_TOO_MANY;
    return fail(e, GOSTX_CADES_R_BUILD, GOSTX_EFORMAT);
  }
  for (size_t i = 0; i < h->n_certs; i++, e->n_given++)
    if (gostx_x509_parse(h->certs[i], h->cert_len[i], &e->given[i], NULL)) {
      e->r->v.status = GOSTX_CADES_BAD_CERT, e->r->v.index = i;
      return fail(e, GOSTX_CADES_R_BUILD, GOSTX_EFORMAT);
    }
  int rc = 0;
  for (size_t i = 0; !rc && i < h->n_crls; i++) rc = add_crl(e, h->crls[i], h->crl_len[i], i);
  for (size_t i = 0; !rc && i < h->n_ocsps; i++)
    if (add_ocsp(e, h->ocsps[i], h->ocsp_len[i])) {
      e->r->v.status = GOSTX_CADES_BAD_OCSP, e->r->v.index = i;
      rc = fail(e, GOSTX_CADES_R_BUILD, GOSTX_EFORMAT);
    }
  return rc;
}

/* The message as it is now judged: r->level; what was reached handed to
 * put, or (rc) not. */
static int finish(enh *e, int rc) {
  gostx_cades_verdict v;
  gostx_cades_report *r = e->r;
  if (!e->parsed) return rc;
  int bad = gostx_cades_verify(&e->sd, e->o->signer, e->p, &e->info, &v) && v.status != GOSTX_CADES_TSA_PATH;
  r->level = v.level;
  if (rc < 0 || rc > PENDING) return rc;
  if (bad) return r->v = v, fail(e, GOSTX_CADES_R_JUDGED, GOSTX_EAUTH);
  r->v = v;
  if (!rc && !reached(v.level, e->o->to)) return fail(e, GOSTX_CADES_R_LEVEL, GOSTX_EAUTH);
  r->what = rc ? GOSTX_CADES_R_PENDING : GOSTX_CADES_R_OK;
  int put = e->f->put(e->f->ctx, e->der, e->len);
  return put ? fetched(e, GOSTX_CADES_FETCH_PUT, put) : 0;
}

int gostx_cades_enhance(const uint8_t *der, size_t der_len, const gostx_cades_enhance_opts *o,
                        const gostx_cades_fetch *f, gostx_cades_report *r) {
  if (!r) return GOSTX_EINVAL;
  memset(r, 0, sizeof *r);
  if (!der || !o || !o->params || !f || !f->tsa || !f->put ||
      (o->to != GOSTX_CADES_T && o->to != GOSTX_CADES_C && o->to != GOSTX_CADES_X_LONG &&
       o->to != GOSTX_CADES_X_LONG_TYPE1))
    return GOSTX_EINVAL;
  enh *e = calloc(1, sizeof *e);
  uint8_t *copy = malloc(der_len ? der_len : 1);
  size_t cap = 1 + GOSTX_CADES_MAX + GOSTX_CMS_MAX_CERTS + o->params->n_untrusted;
  gostx_x509_cert *chain = e && copy ? malloc(cap * sizeof *chain) : NULL;
  if (!chain) return free(copy), free(e), GOSTX_ENOMEM;
  e->o = o, e->p = o->params, e->f = f, e->r = r, e->chain = chain;
  memcpy(copy, der, der_len);
  int rc = take(e, copy, der_len);
  if (!rc) rc = load(e, o->have);
  if (!rc) rc = steps(e);
  rc = finish(e, rc);
  for (size_t i = 0; i < e->n_owned; i++) free(e->owned[i]);
  free(e->der), free(e->chain), free(e);
  return rc;
}
