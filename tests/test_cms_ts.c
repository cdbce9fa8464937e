/* lib/cms's CAdES-T (RFC 3161 over a signature value: gostx/tsa.h, the
 * token added by gostx/cades.h) without a peer, on a real TSA's
 * replies kept in tests/vectors/cms_ts (openssl ts -engine gost; see its
 * make.sh): the request's exact DER; the reply read (genTime with
 * milliseconds and without) and checked against the signature it is for,
 * with the TSA's chain; a reply for another request, a TSA certificate
 * without timeStamping, a TSA under an unknown root, each named; every
 * byte of the TSTInfo, the token's signed attributes and its signature
 * changed, one at a time, refused; the token embedded, found again, the
 * signature still verifying; misuse. */
#include <stdlib.h>

#include "testutil.h"

/* reply.tsr's and other.tsr's genTime (openssl ts -reply -text) */
#define REPLY_TIME 1795808466

static uint8_t *slurp(const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "cms_ts/%s", name);
  return tv_file(path, len);
}

typedef struct fixture {
  uint8_t *signed_der, *reply, *other, *noeku, *content;
  size_t signed_len, reply_len, other_len, noeku_len, content_len;
  gostx_cms_signed sd;
  gostx_x509_store *store, *wrong_store;
  gostx_cms_verify_params params;
} fixture;

static gostx_x509_store *store_of(const char *name) {
  size_t len, pos = 0, der_len;
  uint8_t *pem = slurp(name, &len), der[4096];
  gostx_x509_store *s = gostx_x509_store_new();
  CHECK(gostx_x509_pem_next((const char *)pem, len, &pos, der, sizeof der, &der_len) == 1 &&
            gostx_x509_store_add_der(s, der, der_len) == 0,
        "%s into a store", name);
  free(pem);
  return s;
}

/* The query for a signature value, as a CAdES-T client asks it. */
static int query(const gostx_cms_signer_info *si, size_t digest_len, uint8_t *out, size_t cap, size_t *len) {
  uint8_t h[64];
  gostx_tsa_query_params q = {digest_len, h, NULL, NULL, 0, 1};
  gostx_streebog(digest_len == 64 ? 64 : 32, si->signature, si->signature_len, h);
  return gostx_tsa_query_write(&q, out, cap, len);
}

/* The data's digests of both sizes, as gostx_tsa_verify takes them. */
static gostx_tsa_expect digests_of(const uint8_t *data, size_t len, gostx_cms_hash *h) {
  CHECK(gostx_cms_hash_init(h, GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512) == 0 &&
            gostx_cms_hash_update(h, data, len) == 0 && gostx_cms_hash_final(h) == 0,
        "the digests of %zu bytes", len);
  return (gostx_tsa_expect){h, NULL, 0, NULL, 0, NULL, 0};
}

static void request(const fixture *f) {
  const gostx_cms_signer_info *si = &f->sd.signers[0];
  uint8_t req[128], want[128], h[64];
  size_t len, need = 0;
  static const uint8_t head256[] = {0x30, 0x38, 0x02, 0x01, 0x01, 0x30, 0x30, 0x30, 0x0c, 0x06, 0x08,
                                    0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x02, 0x05, 0x00, 0x04, 0x20};
  gostx_streebog(32, si->signature, si->signature_len, h);
  memcpy(want, head256, sizeof head256);
  memcpy(want + sizeof head256, h, 32);
  memcpy(want + sizeof head256 + 32, "\x01\x01\xff", 3); /* certReq TRUE */
  CHECK(query(si, 32, req, sizeof req, &len) == 0 && len == sizeof head256 + 35,
        "request: Streebog-256, %zu bytes", len);
  CHECK_BYTES(req, want, sizeof head256 + 35, "request: version 1, imprint, certReq");
  CHECK(query(si, 64, NULL, 0, &need) == 0 && need == 2 + 0x58, "request: Streebog-512's size, counted");
  CHECK(query(si, 64, req, 10, &len) == GOSTX_ELEN, "request: a short buffer is ELEN");
  CHECK(query(si, 48, req, sizeof req, &len) == GOSTX_EINVAL, "request: only Streebog-256 and -512");
}

/* The reply parsed and checked: 0, or the status it was refused with
 * (the parse's, or the verdict's + 100). */
static int judge(const fixture *f, const uint8_t *der, size_t len, const gostx_cms_verify_params *p,
                 gostx_cms_ts_token *t, gostx_cms_ts_verdict *v) {
  gostx_cms_ts_status st;
  gostx_cms_hash h;
  const gostx_cms_signer_info *si = &f->sd.signers[0];
  gostx_tsa_expect e = digests_of(si->signature, si->signature_len, &h);
  if (gostx_cms_ts_parse(der, len, t, &st)) return (int)st;
  if (gostx_tsa_verify(t, &e, p, v)) return 100 + (int)v->status;
  return 0;
}

static void replies(fixture *f, gostx_cms_ts_token *t) {
  gostx_cms_ts_verdict v;
  CHECK(judge(f, f->reply, f->reply_len, &f->params, t, &v) == 0, "reply.tsr verifies");
  CHECK(t->pki_status == 0 && t->gen_time == REPLY_TIME && t->serial_len == 1 && t->serial[0] == 2,
        "reply.tsr: granted, genTime with milliseconds %lld, serial 2", (long long)t->gen_time);
  CHECK(judge(f, f->other, f->other_len, &f->params, t, &v) == 100 + GOSTX_CMS_TS_IMPRINT_MISMATCH,
        "other.tsr: another request's imprint");
  CHECK(t->gen_time == REPLY_TIME, "other.tsr: genTime in whole seconds");
  CHECK(judge(f, f->noeku, f->noeku_len, &f->params, t, &v) == 100 + GOSTX_CMS_TS_NOT_TSA,
        "noeku.tsr: the signer is no TSA (extendedKeyUsage clientAuth)");
  gostx_cms_verify_params wrong = f->params;
  wrong.store = f->wrong_store;
  CHECK(judge(f, f->reply, f->reply_len, &wrong, t, &v) == 100 + GOSTX_CMS_TS_TOKEN &&
            v.cms.status == GOSTX_CMS_CHAIN && v.cms.x509 == GOSTX_X509_UNKNOWN_CA,
        "a TSA under another root: the chain, UNKNOWN_CA");
  wrong.store = NULL;
  CHECK(judge(f, f->reply, f->reply_len, &wrong, t, &v) == 0, "no store: no chain check");
  CHECK(judge(f, f->signed_der, f->signed_len, &f->params, t, &v) == GOSTX_CMS_TS_NOT_TSTINFO,
        "a SignedData of id-data is no token");
  CHECK(judge(f, f->reply, f->reply_len - 1, &f->params, t, &v) == GOSTX_CMS_TS_MALFORMED,
        "a cut reply");
}

/* Each byte of [from, to) of a copy of the reply changed: never accepted. */
static size_t flips(const fixture *f, const uint8_t *from, const uint8_t *to, const char *what) {
  static gostx_cms_ts_token t;
  gostx_cms_ts_verdict v;
  uint8_t *copy = malloc(f->reply_len);
  size_t start = (size_t)(from - f->reply), accepted = 0;
  for (size_t i = start; i < start + (size_t)(to - from); i++) {
    memcpy(copy, f->reply, f->reply_len);
    copy[i] ^= 0x01;
    if (judge(f, copy, f->reply_len, &f->params, &t, &v) == 0) accepted++;
  }
  free(copy);
  CHECK(accepted == 0, "%s: %zu of %zu changed bytes accepted", what, accepted, (size_t)(to - from));
  return (size_t)(to - from);
}

static void tampering(fixture *f, const gostx_cms_ts_token *t) {
  const gostx_cms_signer_info *si = &t->sd.signers[0];
  size_t n = flips(f, t->sd.content, t->sd.content + t->sd.content_len, "TSTInfo");
  n += flips(f, si->signed_attrs, si->signed_attrs + si->signed_attrs_len, "signed attributes");
  n += flips(f, si->signature, si->signature + si->signature_len, "signature");
  CHECK(n > 300, "%zu bytes tried", n);
}

/* t added to sd's signer as a signature-time-stamp */
static int add_ts(const gostx_cms_signed *sd, size_t signer, const gostx_cms_ts_token *t, uint8_t *out,
                  size_t cap, size_t *len) {
  return gostx_cades_add_timestamp(sd, signer, GOSTX_CADES_TS_SIGNATURE, t->token, t->token_len, out, cap,
                                   len, NULL);
}

static void embedding(fixture *f, const gostx_cms_ts_token *t) {
  size_t need = 0, len, n, lens[4];
  const uint8_t *toks[4];
  gostx_cms_signed *again = malloc(sizeof *again), *twice = malloc(sizeof *twice);
  gostx_cms_hash h;
  gostx_cms_verdict v;
  CHECK(add_ts(&f->sd, 0, t, NULL, 0, &need) == 0 &&
            /* [1] { SEQUENCE { OID, SET { token } } }: 4 + 4 + 13 + 4 header bytes */
            need == f->signed_len + t->token_len + 25,
        "embed: the size (%zu), counted", need);
  uint8_t *out = malloc(need), *out2 = malloc(2 * need);
  CHECK(add_ts(&f->sd, 0, t, out, need - 1, &len) == GOSTX_ELEN,
        "embed: a short buffer is ELEN");
  CHECK(add_ts(&f->sd, 1, t, out, need, &len) == GOSTX_EINVAL,
        "embed: no signer 1");
  CHECK(gostx_cades_add_timestamp(&f->sd, 0, GOSTX_CADES_TS_SIGNATURE, f->content, f->content_len, out, need,
                                  &len, NULL) == GOSTX_EFORMAT,
        "embed: what is no token is not embedded");
  CHECK(add_ts(&f->sd, 0, t, out, need, &len) == 0 && len == need &&
            gostx_cms_signed_parse(out, len, again, NULL) == 0,
        "embed: parses again");
  CHECK(gostx_cms_ts_tokens(&again->signers[0], toks, lens, 4, &n) == 0 && n == 1 &&
            lens[0] == t->token_len && memcmp(toks[0], t->token, t->token_len) == 0,
        "embed: the token found again");
  CHECK(gostx_cms_hash_init(&h, GOSTX_CMS_HASH_256) == 0 &&
            gostx_cms_hash_update(&h, f->content, f->content_len) == 0 && gostx_cms_hash_final(&h) == 0 &&
            gostx_cms_signed_verify(again, &h, &f->params, &v) == 0,
        "embed: the signature still verifies");
  CHECK(add_ts(again, 0, t, out2, 2 * need, &len) == 0 &&
            gostx_cms_signed_parse(out2, len, twice, NULL) == 0 &&
            gostx_cms_ts_tokens(&twice->signers[0], toks, lens, 1, &n) == 0 && n == 2,
        "embed: a second token after the first (two counted, one room)");
  CHECK(gostx_cms_ts_tokens(&f->sd.signers[0], toks, lens, 4, &n) == 0 && n == 0,
        "no unsigned attributes: no tokens");
  free(out);
  free(out2);
  free(again);
  free(twice);
}

int main(void) {
  fixture *f = calloc(1, sizeof *f);
  gostx_cms_ts_token *t = malloc(sizeof *t);
  f->signed_der = slurp("signed.der", &f->signed_len);
  f->reply = slurp("reply.tsr", &f->reply_len);
  f->other = slurp("other.tsr", &f->other_len);
  f->noeku = slurp("noeku.tsr", &f->noeku_len);
  f->content = slurp("content.txt", &f->content_len);
  f->store = store_of("ca.pem");
  f->wrong_store = store_of("signer.pem");
  gostx_cms_verify_params p = {f->store, NULL, 0, REPLY_TIME, GOSTX_X509_PURPOSE_ANY, NULL};
  f->params = p;
  CHECK(gostx_cms_signed_parse(f->signed_der, f->signed_len, &f->sd, NULL) == 0, "signed.der parses");
  request(f);
  replies(f, t);
  CHECK(judge(f, f->reply, f->reply_len, &f->params, t, &(gostx_cms_ts_verdict){0}) == 0, "reply again");
  tampering(f, t);
  embedding(f, t);
  gostx_x509_store_free(f->store);
  gostx_x509_store_free(f->wrong_store);
  free(f->signed_der), free(f->reply), free(f->other), free(f->noeku), free(f->content);
  free(f);
  free(t);
  return t_done();
}
