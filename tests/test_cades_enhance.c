/* gostx_cades_enhance (gostx/cades.h), the one CAdES policy, driven by
 * in-process callbacks that answer from tests/vectors/cades (its TSA's
 * replies, CRLs and OCSP response; make.sh): a BES taken to X Long Type 1
 * (the X Long the same bytes esc.tsr was asked over, so without a store:
 * nothing judged, everything carried), to X Long with the path judged (the
 * CRLs given, or fetched by issuer through the callback; the TSA's data in
 * its token, said), the file mode's "later" (the message so far handed
 * over). Failing callbacks stop it with the cause and the level reached,
 * nothing handed over: a TSA down, an OCSP responder down, a reply for
 * other bytes, a put that fails; misuse refused. */
#include <stdlib.h>
#include <time.h>

#include "gostx/cades.h"
#include "testutil.h"

typedef struct world {
  uint8_t *bes, *t_reply, *esc_reply, *crl[2], *ocsp; /* crl[0] ca.crl, crl[1] int.crl */
  size_t bes_len, t_reply_len, esc_reply_len, crl_len[2], ocsp_len;
  uint8_t chain[2][4096]; /* int.pem, ca.pem as DER */
  size_t chain_len[2];
  const uint8_t *chain_p[2], *crl_p[2], *ocsp_p[1];
  gostx_x509_store *store;
  /* what the callbacks do and saw */
  int tsa_later_esc, tsa_fail, ocsp_fail, put_fail, crl_by_issuer;
  int n_tsa, n_ocsp, n_crl, n_put, n_tsa_data;
  uint8_t *out;
  size_t out_len;
} world;

static uint8_t *vec(const char *name, size_t *len) {
  char path[256];
  snprintf(path, sizeof path, "cades/%s", name);
  return tv_file(path, len);
}

static void pem_cert(world *w, int i, const char *name) {
  size_t len, pos = 0;
  uint8_t *pem = vec(name, &len);
  CHECK(gostx_x509_pem_next((const char *)pem, len, &pos, w->chain[i], sizeof w->chain[i], &w->chain_len[i]) == 1,
        "%s holds a certificate", name);
  w->chain_p[i] = w->chain[i];
  free(pem);
}

static int tsa(void *ctx, int kind, const uint8_t *q, size_t qn, const uint8_t **out, size_t *out_len) {
  world *w = ctx;
  (void)q, (void)qn;
  w->n_tsa++;
  if (w->tsa_fail) return -100;
  if (kind == GOSTX_CADES_TS_ESC && w->tsa_later_esc) return GOSTX_CADES_LATER;
  *out = kind == GOSTX_CADES_TS_ESC ? w->esc_reply : w->t_reply;
  *out_len = kind == GOSTX_CADES_TS_ESC ? w->esc_reply_len : w->t_reply_len;
  return 0;
}

static int ocsp(void *ctx, const uint8_t *req, size_t len, const uint8_t **out, size_t *out_len) {
  world *w = ctx;
  (void)req, (void)len;
  w->n_ocsp++;
  if (w->ocsp_fail) return -200;
  *out = w->ocsp, *out_len = w->ocsp_len;
  return 0;
}

/* the CRL whose issuer is the name asked about */
static int crl(void *ctx, const uint8_t *issuer, size_t issuer_len, const uint8_t **out, size_t *out_len) {
  world *w = ctx;
  gostx_x509_crl c;
  w->n_crl++;
  for (int i = 0; i < 2; i++)
    if (!gostx_x509_crl_parse(w->crl[i], w->crl_len[i], &c, NULL) && c.issuer_len == issuer_len &&
        !memcmp(c.issuer, issuer, issuer_len))
      *out = w->crl[i], *out_len = w->crl_len[i];
  return 0;
}

static void note(void *ctx, const gostx_cades_report *r) {
  world *w = ctx;
  if (r->what == GOSTX_CADES_R_TSA_DATA) w->n_tsa_data++;
}

static int put(void *ctx, const uint8_t *der, size_t len) {
  world *w = ctx;
  w->n_put++;
  if (w->put_fail) return -300;
  free(w->out);
  w->out = malloc(len);
  memcpy(w->out, der, len);
  w->out_len = len;
  return 0;
}

/* w's BES taken to `to` with its callbacks, counts reset; store NULL: none */
static int run(world *w, gostx_cades_level to, gostx_x509_store *store, const gostx_cades_validation *have,
               gostx_cades_report *r) {
  gostx_cms_verify_params p = {.store = store, .now = (int64_t)time(NULL)};
  gostx_cades_enhance_opts o = {0, to, &p, have, 0};
  gostx_cades_fetch f = {w, tsa, w->ocsp_fail ? ocsp : NULL, w->crl_by_issuer ? crl : NULL, note, put};
  w->n_tsa = w->n_ocsp = w->n_crl = w->n_put = w->n_tsa_data = 0;
  free(w->out);
  w->out = NULL;
  return gostx_cades_enhance(w->bes, w->bes_len, &o, &f, r);
}

static int holds(const world *w, const uint8_t *needle, size_t n) {
  for (size_t i = 0; w->out && i + n <= w->out_len; i++)
    if (!memcmp(w->out + i, needle, n)) return 1;
  return 0;
}

/* the result as gostx_cades_verify judges it, with the store */
static gostx_cades_level level_of(const world *w) {
  gostx_cms_signed *sd = malloc(sizeof *sd);
  gostx_cades_verdict v = {.level = GOSTX_CADES_BES};
  gostx_cms_verify_params p = {.store = w->store, .now = (int64_t)time(NULL)};
  CHECK(gostx_cms_signed_parse(w->out, w->out_len, sd, NULL) == 0, "the result parses");
  int rc = gostx_cades_verify(sd, 0, &p, NULL, &v);
  CHECK(rc == 0, "the result verifies: %s", gostx_cades_status_name(v.status));
  free(sd);
  return v.level;
}

static void reached(world *w) {
  gostx_cades_report r;
  gostx_cades_validation all = {w->chain_p, w->crl_p, w->ocsp_p, w->chain_len, w->crl_len, &w->ocsp_len, 2, 2, 1};
  /* no store: the X Long is the one esc.tsr covers (the caller's chain, every CRL and response) */
  int rc = run(w, GOSTX_CADES_X_LONG_TYPE1, NULL, &all, &r);
  CHECK(rc == 0 && r.what == GOSTX_CADES_R_OK && r.level == GOSTX_CADES_X_LONG_TYPE1,
        "BES to X Long Type 1 in one call: rc %d, report %d, %s", rc, r.what, gostx_cades_level_name(r.level));
  CHECK(w->n_tsa == 2 && w->n_put == 1, "two timestamps asked, one message handed over");
  CHECK(level_of(w) == GOSTX_CADES_X_LONG_TYPE1, "judged X Long Type 1 again, with the anchors");
  CHECK(holds(w, w->crl[1], w->crl_len[1]) && holds(w, w->ocsp + w->ocsp_len - 64, 64), "int.crl and the response carried");

  /* the path judged: the CRLs given, the TSA's own data put in its token */
  gostx_cades_validation rev = {NULL, w->crl_p, w->ocsp_p, NULL, w->crl_len, &w->ocsp_len, 0, 2, 1};
  rc = run(w, GOSTX_CADES_X_LONG, w->store, &rev, &r);
  CHECK(rc == 0 && r.what == GOSTX_CADES_R_OK && r.level == GOSTX_CADES_X_LONG,
        "BES to X Long, the path judged: rc %d, report %d (%s), %s", rc, r.what, r.v.why, gostx_cades_level_name(r.level));
  CHECK(w->n_tsa == 1 && w->n_tsa_data == 1, "one timestamp, its TSA's data added (said)");
  CHECK(holds(w, w->chain[1], w->chain_len[1]), "the root carried, from the path built");

  /* the CRLs fetched by issuer instead: int's and the root's, each asked once */
  gostx_cades_validation resp = {NULL, NULL, w->ocsp_p, NULL, NULL, &w->ocsp_len, 0, 0, 1};
  w->crl_by_issuer = 1;
  rc = run(w, GOSTX_CADES_X_LONG, w->store, &resp, &r);
  w->crl_by_issuer = 0;
  CHECK(rc == 0 && r.level == GOSTX_CADES_X_LONG, "X Long with the CRLs fetched: rc %d, report %d (%s)", rc, r.what,
        r.v.why);
  CHECK(w->n_crl == 2 && holds(w, w->crl[0], w->crl_len[0]) && holds(w, w->crl[1], w->crl_len[1]),
        "each issuer asked once (%d), both CRLs carried", w->n_crl);
  CHECK(level_of(w) == GOSTX_CADES_X_LONG, "judged X Long again");

  /* file mode: the CAdES-C timestamp later: the X Long handed over */
  w->tsa_later_esc = 1;
  rc = run(w, GOSTX_CADES_X_LONG_TYPE1, NULL, &all, &r);
  w->tsa_later_esc = 0;
  CHECK(rc == 0 && r.what == GOSTX_CADES_R_PENDING && r.ts_kind == GOSTX_CADES_TS_ESC && r.level == GOSTX_CADES_X_LONG &&
            w->n_put == 1,
        "a TSA's 'later': the X Long handed over, pending (rc %d, report %d)", rc, r.what);
}

static void stopped(world *w) {
  gostx_cades_report r;
  gostx_cades_validation rev = {NULL, w->crl_p, w->ocsp_p, NULL, w->crl_len, &w->ocsp_len, 0, 2, 1};
  w->tsa_fail = 1;
  int rc = run(w, GOSTX_CADES_T, w->store, NULL, &r);
  w->tsa_fail = 0;
  CHECK(rc == GOSTX_EIO && r.what == GOSTX_CADES_R_FETCH && r.fetch == GOSTX_CADES_FETCH_TSA && r.rc == -100 &&
            r.level == GOSTX_CADES_BES && w->n_put == 0,
        "the TSA down: its callback's error, level BES, nothing handed over (rc %d, report %d)", rc, r.what);

  w->ocsp_fail = 1;
  rc = run(w, GOSTX_CADES_X_LONG, w->store, &rev, &r);
  w->ocsp_fail = 0;
  CHECK(rc == GOSTX_EIO && r.what == GOSTX_CADES_R_FETCH && r.fetch == GOSTX_CADES_FETCH_OCSP && r.rc == -200 &&
            w->n_ocsp == 1 && w->n_put == 0,
        "the OCSP responder down: named (rc %d, report %d, fetch %d)", rc, r.what, r.fetch);
  CHECK(r.level == GOSTX_CADES_T, "and the level reached before it said: %s", gostx_cades_level_name(r.level));

  /* a reply over other bytes: the signature-time-stamp asked, the ESC's reply given */
  uint8_t *t = w->t_reply;
  size_t t_len = w->t_reply_len;
  w->t_reply = w->esc_reply, w->t_reply_len = w->esc_reply_len;
  rc = run(w, GOSTX_CADES_T, w->store, NULL, &r);
  w->t_reply = t, w->t_reply_len = t_len;
  CHECK(rc == GOSTX_EAUTH && r.what == GOSTX_CADES_R_STAMP && r.ts_kind == GOSTX_CADES_TS_SIGNATURE &&
            r.v.ts.status == GOSTX_CMS_TS_IMPRINT_MISMATCH && w->n_put == 0,
        "a reply for other bytes: IMPRINT_MISMATCH, nothing handed over (report %d, ts %d)", r.what, r.v.ts.status);

  w->put_fail = 1;
  rc = run(w, GOSTX_CADES_T, w->store, NULL, &r);
  w->put_fail = 0;
  CHECK(rc == GOSTX_EIO && r.what == GOSTX_CADES_R_FETCH && r.fetch == GOSTX_CADES_FETCH_PUT && r.rc == -300,
        "a put that fails: said");

  /* X Type 1 is not a level asked for; no signer 2 */
  gostx_cms_verify_params p = {.store = w->store, .now = (int64_t)time(NULL)};
  gostx_cades_enhance_opts o = {0, GOSTX_CADES_X_TYPE1, &p, NULL, 0};
  gostx_cades_fetch f = {w, tsa, NULL, NULL, NULL, put};
  CHECK(gostx_cades_enhance(w->bes, w->bes_len, &o, &f, &r) == GOSTX_EINVAL, "-to X Type 1: EINVAL");
  o.to = GOSTX_CADES_T, o.signer = 1;
  CHECK(gostx_cades_enhance(w->bes, w->bes_len, &o, &f, &r) == GOSTX_EINVAL, "signer 2 of 1: EINVAL");
  o.signer = 0, f.put = NULL;
  CHECK(gostx_cades_enhance(w->bes, w->bes_len, &o, &f, &r) == GOSTX_EINVAL, "no put: EINVAL");
  o.have = &rev, f.put = put;
  uint8_t junk[] = {0x30, 0x03, 0x02, 0x01, 0x01};
  const uint8_t *junk_p[] = {junk};
  size_t junk_len[] = {sizeof junk};
  gostx_cades_validation bad = {NULL, junk_p, NULL, NULL, junk_len, NULL, 0, 1, 0};
  o.have = &bad;
  CHECK(gostx_cades_enhance(w->bes, w->bes_len, &o, &f, &r) == GOSTX_EFORMAT && r.what == GOSTX_CADES_R_BUILD &&
            r.v.status == GOSTX_CADES_BAD_CRL && r.v.index == 0,
        "a CRL that is none: BAD_CRL, its index");
}

int main(void) {
  world w;
  memset(&w, 0, sizeof w);
  w.bes = vec("bes.der", &w.bes_len);
  w.t_reply = vec("t.tsr", &w.t_reply_len);
  w.esc_reply = vec("esc.tsr", &w.esc_reply_len);
  w.crl[0] = vec("ca.crl", &w.crl_len[0]);
  w.crl[1] = vec("int.crl", &w.crl_len[1]);
  w.crl_p[0] = w.crl[0], w.crl_p[1] = w.crl[1];
  w.ocsp = vec("signer.ocsp", &w.ocsp_len);
  w.ocsp_p[0] = w.ocsp;
  pem_cert(&w, 0, "int.pem");
  pem_cert(&w, 1, "ca.pem");
  w.store = gostx_x509_store_new();
  CHECK(gostx_x509_store_add_der(w.store, w.chain[1], w.chain_len[1]) == 0, "the root as the anchor");
  reached(&w);
  stopped(&w);
  gostx_x509_store_free(w.store);
  free(w.bes), free(w.t_reply), free(w.esc_reply), free(w.crl[0]), free(w.crl[1]), free(w.ocsp), free(w.out);
  return t_done();
}
