#define _GNU_SOURCE /* memmem */
/* CRLs (include/gostx/x509_crl.h): a CRL written, read back field by
 * field, checked against its issuer (and refused against another CA, one
 * of the same name and another key, once altered); each certificate's
 * status at a time: revoked (reason, date), revoked only after the time
 * (good then), stale, no CRL, the wrong issuer, an unknown critical
 * extension, out of the issuingDistributionPoint's scope, partial reasons;
 * the same through path validation (leaf only, whole chain); hostile DER:
 * delta and indirect CRLs refused by name, every truncation, every byte
 * changed. The command line and openssl interop: tests/test_ca_cli.sh. */
#include <stdlib.h>

#include "testutil.h"
#include "x509/write_internal.h"

static char err[256];

typedef t_sign_key key;

typedef struct ident {
  key k;
  gostx_x509_name name;
  uint8_t der[4096], id[64];
  size_t len, id_len;
  gostx_x509_cert cert;
} ident;

#define T0 1800000000 /* 2027-01-15: the certificates' start */
#define DAY 86400

/* A certificate for subj, issued by issuer (NULL: self-signed), a CA or
 * not, with extra extension lines (NULL-terminated) and DER extensions. */
static void issue(ident *who, const char *subj, ident *issuer, int ca, uint8_t serial,
                  gostx_gost3410_curve curve, const char *const *lines) {
  gostx_x509_exts e;
  t_make_sign_key(curve, &who->k);
  CHECK_RC(gostx_x509_name_parse(subj, &who->name, err, sizeof err), 0, subj);
  gostx_x509_exts_init(&e);
  if (ca) {
    CHECK_RC(gostx_x509_exts_add_line(&e, "basicConstraints=critical,CA:TRUE", err, sizeof err), 0, "bc");
    CHECK_RC(gostx_x509_exts_add_line(&e, "keyUsage=critical,keyCertSign,cRLSign", err, sizeof err), 0, "ku");
  } else {
    CHECK_RC(gostx_x509_exts_add_line(&e, "keyUsage=digitalSignature", err, sizeof err), 0, "ku");
  }
  for (size_t i = 0; lines && lines[i]; i++)
    CHECK_RC(gostx_x509_exts_add_line(&e, lines[i], err, sizeof err), 0, lines[i]);
  ident *is = issuer ? issuer : who;
  gostx_x509_cert_spec s = {&serial, 1, is->name.der, who->name.der, is->name.len, who->name.len,
                            T0, T0 + 3650 * DAY, who->k.spki, who->k.spki_len, &e,
                            issuer ? issuer->id : NULL, issuer ? issuer->id_len : 0};
  CHECK_RC(gostx_x509_cert_write(&s, &is->k.xk, who->der, sizeof who->der, &who->len), 0, subj);
  CHECK_RC(gostx_x509_parse(who->der, who->len, &who->cert, NULL), 0, subj);
  CHECK_RC(gostx_x509_cert_key_id(&who->cert, who->id, sizeof who->id, &who->id_len), 0, "key id");
}

/* root (512) -> inter (256) -> leaf, leaf2 (256); "evil" has root's name
 * and another key. */
static ident root, inter, leaf, leaf2, evil, leaf_dp;

/* a CRL by `by` at this_update .. next_update with the given entries */
static size_t write_crl(const ident *by, int64_t this_update, int64_t next_update,
                        const gostx_x509_crl_revoked *e, size_t n, uint8_t *out, size_t cap) {
  const uint8_t number[] = {0x05};
  gostx_x509_crl_spec s = {by->name.der, by->name.len, this_update, next_update, number, 1,
                           by->id, by->id_len, e, n};
  size_t len = 0;
  CHECK_RC(gostx_x509_crl_write(&s, &by->k.xk, out, cap, &len), 0, "CRL written");
  return len;
}

static void reasons(void) {
  CHECK(!strcmp(gostx_x509_crl_reason_name(1), "keyCompromise") &&
            !strcmp(gostx_x509_crl_reason_name(2), "CACompromise") &&
            !strcmp(gostx_x509_crl_reason_name(8), "removeFromCRL") &&
            !strcmp(gostx_x509_crl_reason_name(-1), "none") && !gostx_x509_crl_reason_name(7) &&
            !gostx_x509_crl_reason_name(11),
        "reason names");
  for (int r = 0; r <= 10; r++)
    if (r != 7) CHECK(gostx_x509_crl_reason_by_name(gostx_x509_crl_reason_name(r)) == r, "reason %d", r);
  CHECK(gostx_x509_crl_reason_by_name("keycompromise") == 1 && gostx_x509_crl_reason_by_name("x") == -2,
        "reason by name");
}

static void written_and_read(void) {
  static uint8_t der[8192];
  const uint8_t s2[] = {0x42}, s3[] = {0x43};
  gostx_x509_crl_revoked e[2] = {{leaf.cert.serial, leaf.cert.serial_len, T0 + 10 * DAY,
                                  GOSTX_X509_REASON_KEY_COMPROMISE, T0 + 9 * DAY},
                                 {s2, 1, T0 + 11 * DAY, GOSTX_X509_REASON_UNSPECIFIED, -1}};
  size_t len = write_crl(&inter, T0 + 12 * DAY, T0 + 19 * DAY, e, 2, der, sizeof der);
  gostx_x509_crl crl;
  gostx_x509_status st;
  CHECK_RC(gostx_x509_crl_parse(der, len, &crl, &st), 0, "CRL parsed");
  CHECK(st == GOSTX_X509_OK && crl.version == 2 && crl.this_update == T0 + 12 * DAY &&
            crl.next_update == T0 + 19 * DAY && crl.n_revoked == 2 && crl.crl_number_len == 1 &&
            crl.crl_number[0] == 5 && !crl.crl_number_critical && crl.aki_key_id_len == inter.id_len &&
            !memcmp(crl.aki_key_id, inter.id, inter.id_len) && !crl.idp && !crl.unknown_critical &&
            crl.sig_alg == GOSTX_X509_SIG_2012_256 && crl.reasons == GOSTX_X509_CRL_ALL_REASONS &&
            crl.issuer_len == inter.name.len && !memcmp(crl.issuer, inter.name.der, inter.name.len),
        "CRL fields");
  gostx_x509_crl_entry x;
  size_t pos = 0;
  CHECK(gostx_x509_crl_next(&crl, &pos, &x) == 1 && x.serial_len == leaf.cert.serial_len &&
            !memcmp(x.serial, leaf.cert.serial, x.serial_len) && x.revocation_date == T0 + 10 * DAY &&
            x.reason == 1 && x.invalidity_date == T0 + 9 * DAY,
        "entry 1");
  CHECK(gostx_x509_crl_next(&crl, &pos, &x) == 1 && x.serial_len == 1 && x.serial[0] == 0x42 &&
            x.reason == GOSTX_X509_REASON_NONE && x.invalidity_date == -1,
        "entry 2: unspecified written as no reasonCode");
  CHECK(gostx_x509_crl_next(&crl, &pos, &x) == 0, "two entries");
  CHECK(gostx_x509_crl_find(&crl, s2, 1, &x) == 1 && !gostx_x509_crl_find(&crl, s3, 1, &x), "find");
  /* invalidityDate is GeneralizedTime even before 2050 (5.3.2) */
  CHECK(memmem(der, len, "\x18\x0f", 2) != NULL, "invalidityDate GeneralizedTime");

  /* checked against the issuer */
  CHECK(gostx_x509_crl_verify(&crl, &inter.cert) == GOSTX_X509_OK, "verifies under its issuer");
  CHECK(gostx_x509_crl_verify(&crl, &root.cert) == GOSTX_X509_CRL_WRONG_ISSUER, "another CA's name");
  CHECK(gostx_x509_crl_verify(&crl, &leaf.cert) == GOSTX_X509_CRL_WRONG_ISSUER, "not the issuer");
  uint8_t bad[8192];
  memcpy(bad, der, len);
  uint8_t *at = memmem(bad, len, "\x17\x0d", 2); /* thisUpdate's first digit */
  at[2] ^= 1;
  gostx_x509_crl tampered;
  CHECK_RC(gostx_x509_crl_parse(bad, len, &tampered, &st), 0, "altered, still DER");
  CHECK(gostx_x509_crl_verify(&tampered, &inter.cert) == GOSTX_X509_CRL_BAD_SIGNATURE, "altered");

  /* PEM */
  static char pem[12000];
  size_t pem_len, dlen, ppos = 0;
  static uint8_t back[8192];
  CHECK_RC(gostx_x509_to_pem("X509 CRL", der, len, pem, sizeof pem, &pem_len), 0, "PEM");
  CHECK(gostx_x509_crl_pem_next(pem, pem_len, &ppos, back, sizeof back, &dlen) == 1 && dlen == len &&
            !memcmp(back, der, len),
        "PEM read back");
  CHECK(gostx_x509_crl_pem_next(pem, pem_len, &ppos, back, sizeof back, &dlen) == 0, "one block");

  /* short buffer, bad specs */
  size_t need = 0;
  const uint8_t number[] = {0x01};
  gostx_x509_crl_spec s = {inter.name.der, inter.name.len, T0, T0 + DAY, NULL, 0, NULL, 0, e, 2};
  CHECK_RC(gostx_x509_crl_write(&s, &inter.k.xk, bad, sizeof bad, &need), GOSTX_EINVAL,
           "no cRLNumber: not written (5.2.3)");
  s.crl_number = number, s.crl_number_len = 1;
  CHECK_RC(gostx_x509_crl_write(&s, &inter.k.xk, bad, 10, &need), GOSTX_ELEN, "short");
  CHECK_RC(gostx_x509_crl_write(&s, &inter.k.xk, bad, need, &need), 0, "the length needed");
  s.next_update = T0 - 1;
  CHECK_RC(gostx_x509_crl_write(&s, &inter.k.xk, bad, sizeof bad, &need), GOSTX_EINVAL, "next < this");
  s.next_update = T0 + DAY;
  e[1].reason = 7;
  CHECK_RC(gostx_x509_crl_write(&s, &inter.k.xk, bad, sizeof bad, &need), GOSTX_EINVAL, "reason 7");
}

/* gostx_x509_crl_status of leaf (issued by inter) at now, from crls */
static gostx_x509_status status_of(const ident *who, const ident *issuer, const gostx_x509_crl *crls,
                                   size_t n, int64_t now, gostx_x509_revocation *r) {
  return gostx_x509_crl_status(crls, n, &who->cert, &issuer->cert, now, r);
}

static void statuses(void) {
  static uint8_t d1[4096], d2[4096], d3[4096], d4[4096];
  gostx_x509_crl_revoked e = {leaf.cert.serial, leaf.cert.serial_len, T0 + 10 * DAY,
                              GOSTX_X509_REASON_SUPERSEDED, -1};
  gostx_x509_crl c[4];
  gostx_x509_revocation r;
  size_t n1 = write_crl(&inter, T0 + 12 * DAY, T0 + 19 * DAY, &e, 1, d1, sizeof d1);
  CHECK_RC(gostx_x509_crl_parse(d1, n1, &c[0], NULL), 0, "crl");
  CHECK(status_of(&leaf, &inter, c, 1, T0 + 15 * DAY, &r) == GOSTX_X509_REVOKED &&
            r.reason == GOSTX_X509_REASON_SUPERSEDED && r.revocation_date == T0 + 10 * DAY && r.crl == 0,
        "revoked, with reason and date");
  CHECK(status_of(&leaf2, &inter, c, 1, T0 + 15 * DAY, &r) == GOSTX_X509_OK, "another serial: good");
  /* a past time: the CRL issued later says it was revoked only after */
  CHECK(status_of(&leaf, &inter, c, 1, T0 + 5 * DAY, &r) == GOSTX_X509_OK, "revoked after the time: good then");
  CHECK(status_of(&leaf, &inter, c, 1, T0 + 10 * DAY, &r) == GOSTX_X509_REVOKED, "revoked at the very second");
  CHECK(status_of(&leaf, &inter, c, 1, T0 + 20 * DAY, &r) == GOSTX_X509_CRL_EXPIRED, "stale: nextUpdate passed");
  CHECK(status_of(&leaf, &inter, c, 0, T0 + 15 * DAY, &r) == GOSTX_X509_CRL_UNAVAILABLE, "no CRL");
  CHECK(status_of(&inter, &root, c, 1, T0 + 15 * DAY, &r) == GOSTX_X509_CRL_UNAVAILABLE,
        "the inter's CRL says nothing of the inter itself");
  /* a fresh CRL beside the stale one decides */
  size_t n2 = write_crl(&inter, T0 + 20 * DAY, T0 + 27 * DAY, NULL, 0, d2, sizeof d2);
  CHECK_RC(gostx_x509_crl_parse(d2, n2, &c[1], NULL), 0, "crl 2");
  CHECK(status_of(&leaf2, &inter, c, 2, T0 + 21 * DAY, &r) == GOSTX_X509_OK && r.crl == 1,
        "a stale and a fresh CRL: the fresh one decides");
  /* the wrong issuer: root's name, another key; with its AKI, then without */
  size_t n3 = write_crl(&evil, T0 + 12 * DAY, T0 + 19 * DAY, NULL, 0, d3, sizeof d3);
  CHECK_RC(gostx_x509_crl_parse(d3, n3, &c[2], NULL), 0, "evil crl");
  CHECK(status_of(&inter, &root, &c[2], 1, T0 + 15 * DAY, &r) == GOSTX_X509_CRL_WRONG_ISSUER,
        "a CRL of the issuer's name and another key");
  const uint8_t number[] = {0x01};
  gostx_x509_crl_spec s = {evil.name.der, evil.name.len, T0, T0 + 9 * DAY, number, 1, NULL, 0, NULL, 0};
  size_t n4;
  CHECK_RC(gostx_x509_crl_write(&s, &evil.k.xk, d4, sizeof d4, &n4), 0, "evil, no AKI");
  CHECK_RC(gostx_x509_crl_parse(d4, n4, &c[3], NULL), 0, "evil crl 2");
  CHECK(status_of(&inter, &root, &c[3], 1, T0 + 5 * DAY, &r) == GOSTX_X509_CRL_BAD_SIGNATURE,
        "without an AKI: its signature fails");
  CHECK(status_of(&leaf, &inter, &c[3], 1, T0 + 5 * DAY, &r) == GOSTX_X509_CRL_UNAVAILABLE,
        "a CRL of another issuer's name: none for this one");
  CHECK(gostx_x509_crl_verify(&c[0], &leaf.cert) == GOSTX_X509_CRL_WRONG_ISSUER, "another's name");
  gostx_x509_cert renamed = leaf.cert; /* inter's name, a 256-bit key of another CA */
  renamed.subject = inter.cert.subject, renamed.subject_len = inter.cert.subject_len;
  CHECK(gostx_x509_crl_verify(&c[0], &renamed) == GOSTX_X509_CRL_WRONG_ISSUER, "another key (AKI)");
  renamed.subject = root.cert.subject, renamed.subject_len = root.cert.subject_len;
  CHECK(gostx_x509_crl_verify(&c[3], &renamed) == GOSTX_X509_CRL_WRONG_ISSUER,
        "a 512-bit signature under a 256-bit key");
  /* the issuer's key must be allowed to sign CRLs */
  CHECK(gostx_x509_crl_verify(&c[0], &inter.cert) == GOSTX_X509_OK, "inter has cRLSign");
  gostx_x509_cert no_crl_sign = inter.cert;
  no_crl_sign.key_usage = GOSTX_X509_KU_KEY_CERT_SIGN;
  CHECK(gostx_x509_crl_verify(&c[0], &no_crl_sign) == GOSTX_X509_KEY_USAGE, "no cRLSign");
}

/* ---- CRLs built by hand (signed by inter), for what the writer never makes ---- */

/* the non-critical cRLNumber 1 every CRL in use needs (5.2.3) */
#define CRL_NUMBER "\x30\x0a\x06\x03\x55\x1d\x14\x04\x03\x02\x01\x01"

/* A CRL of inter's whose TBSCertList content after the issuer is body[len]
 * (thisUpdate on), version v2 unless v1 (then no version at all) or
 * explicit (the INTEGER's value); with number, CRL_NUMBER is added to the
 * body's crlExtensions (made when it has none). */
static size_t craft(const uint8_t *body, size_t len, int version, int number, uint8_t *out, size_t cap) {
  gostx__der_w w;
  size_t n = 0, head = len;
  gostx__der exts = {NULL, 0};
  for (gostx__der r = {body, len}, el, seq; number && r.n;) {
    uint8_t tag;
    size_t at = len - r.n;
    CHECK_RC(gostx__der_next(&r, &tag, &el, NULL), 0, "crafted body");
    if (tag == GOSTX__DER_CTXC(0)) {
      CHECK_RC(gostx__der_get(&el, GOSTX__DER_SEQ, &seq, NULL), 0, "crafted crlExtensions");
      head = at, exts = seq;
    }
  }
  size_t start = gostx__x509_sign_open(&w, out, cap);
  if (version >= 0) gostx__der_w_u32(&w, (uint32_t)version);
  gostx__x509_put_sig_alg(&w, 32);
  gostx__der_w_raw(&w, inter.name.der, inter.name.len);
  gostx__der_w_raw(&w, body, head);
  if (number) {
    gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
    gostx__der_w_begin(&w, GOSTX__DER_SEQ);
    if (exts.n) gostx__der_w_raw(&w, exts.p, exts.n);
    gostx__der_w_raw(&w, (const uint8_t *)CRL_NUMBER, sizeof CRL_NUMBER - 1);
    gostx__der_w_end(&w);
    gostx__der_w_end(&w);
  }
  CHECK_RC(gostx__x509_sign_finish(&w, start, &inter.k.xk, &n), 0, "crafted");
  return n;
}

#define TIMES "\x17\x0d" "270201000000Z" "\x17\x0d" "270301000000Z"  /* T0 + ~17 days .. + ~45 */
#define AT (T0 + 20 * DAY)
#define SOME_REASONS "\xa0\x11\x30\x0f\x30\x0d\x06\x03\x55\x1d\x1c\x04\x06\x30\x04\x83\x02\x06\x40"
#define OTHER_REASONS "\xa0\x12\x30\x10\x30\x0e\x06\x03\x55\x1d\x1c\x04\x07\x30\x05\x83\x03\x07\x3f\x80"

typedef struct crafted {
  const char *what;
  const char *body;
  size_t len;
  int version;
  int parses;                 /* 0: refused with want */
  gostx_x509_status want;     /* the parse's status, or gostx_x509_crl_status's of leaf_dp */
  int number;                 /* a CRL that parses: how its cRLNumber is tried */
} crafted;
#define NUMBER_ADDED 0 /* want with CRL_NUMBER added; without it, CRL_NO_NUMBER */
#define AS_IS 1        /* the body as written: no cRLNumber added */
#define NUMBER_LATER 2 /* not used for a reason judged before the cRLNumber: want either way */
#define B(s) s, sizeof s - 1

static void hostile(void) {
  static const crafted cases[] = {
      {"plain v2, no entries", B(TIMES), 1, 1, GOSTX_X509_OK, NUMBER_ADDED},
      {"v1, no version field (so no cRLNumber)", B(TIMES), -1, 1, GOSTX_X509_CRL_NO_NUMBER, AS_IS},
      {"cRLNumber marked critical", B(TIMES "\x30\x22\x30\x20\x02\x01\x11\x17\x0d\x32\x37\x30\x31\x32\x30\x30\x30\x30\x30\x30\x30\x5a\x30\x0c\x30\x0a\x06\x03\x55\x1d\x15\x04\x03\x0a\x01\x01" "\xa0\x11\x30\x0f\x30\x0d\x06\x03\x55\x1d\x14\x01\x01\xff\x04\x03\x02\x01\x01"), 1, 1, GOSTX_X509_CRL_NUMBER_CRITICAL, AS_IS},
      {"explicit v1 version", B(TIMES), 0, 0, GOSTX_X509_BAD_VERSION, AS_IS},
      {"version v3", B(TIMES), 2, 0, GOSTX_X509_BAD_VERSION, AS_IS},
      {"v1 with crlExtensions", B(TIMES "\xa0\x0e\x30\x0c\x30\x0a\x06\x03\x55\x1d\x14\x04\x03\x02\x01\x01"), -1, 0, GOSTX_X509_BAD_VERSION, AS_IS},
      {"v1 with an entry extension", B(TIMES "\x30\x22\x30\x20\x02\x01\x11\x17\x0d\x32\x37\x30\x31\x32\x30\x30\x30\x30\x30\x30\x30\x5a\x30\x0c\x30\x0a\x06\x03\x55\x1d\x15\x04\x03\x0a\x01\x01"), -1, 0, GOSTX_X509_BAD_VERSION, AS_IS},
      {"deltaCRLIndicator", B(TIMES "\xa0\x11\x30\x0f\x30\x0d\x06\x03\x55\x1d\x1b\x01\x01\xff\x04\x03\x02\x01\x01"), 1, 0, GOSTX_X509_CRL_DELTA, AS_IS},
      {"indirectCRL", B(TIMES "\xa0\x10\x30\x0e\x30\x0c\x06\x03\x55\x1d\x1c\x04\x05\x30\x03\x84\x01\xff"), 1, 0, GOSTX_X509_CRL_INDIRECT, AS_IS},
      {"certificateIssuer entry", B(TIMES "\x30\x2c\x30\x2a\x02\x01\x11\x17\x0d\x32\x37\x30\x31\x32\x30\x30\x30\x30\x30\x30\x30\x5a\x30\x16\x30\x14\x06\x03\x55\x1d\x1d\x04\x0d\x30\x0b\x82\x09\x61\x2e\x65\x78\x61\x6d\x70\x6c\x65"), 1, 0, GOSTX_X509_CRL_INDIRECT, AS_IS},
      {"reasonCode 7", B(TIMES "\x30\x22\x30\x20\x02\x01\x11\x17\x0d\x32\x37\x30\x31\x32\x30\x30\x30\x30\x30\x30\x30\x5a\x30\x0c\x30\x0a\x06\x03\x55\x1d\x15\x04\x03\x0a\x01\x07"), 1, 0, GOSTX_X509_BAD_EXTENSION, AS_IS},
      {"reasonCode not an ENUMERATED", B(TIMES "\x30\x20\x30\x1e\x02\x01\x11\x17\x0d\x32\x37\x30\x31\x32\x30\x30\x30\x30\x30\x30\x30\x5a\x30\x0a\x30\x08\x06\x03\x55\x1d\x15\x04\x01\x0a"), 1, 0, GOSTX_X509_BAD_EXTENSION, AS_IS},
      {"cRLNumber twice", B(TIMES "\xa0\x1a\x30\x18\x30\x0a\x06\x03\x55\x1d\x14\x04\x03\x02\x01\x05\x30\x0a\x06\x03\x55\x1d\x14\x04\x03\x02\x01\x01"), 1, 0, GOSTX_X509_BAD_EXTENSION, AS_IS},
      {"empty issuingDistributionPoint", B(TIMES "\xa0\x0d\x30\x0b\x30\x09\x06\x03\x55\x1d\x1c\x04\x02\x30\x00"), 1, 0, GOSTX_X509_BAD_EXTENSION, AS_IS},
      {"critical FALSE written", B(TIMES "\xa0\x11\x30\x0f\x30\x0d\x06\x03\x55\x1d\x14\x01\x01\x00\x04\x03\x02\x01\x01"), 1, 0, GOSTX_X509_CRL_MALFORMED, AS_IS},
      {"trailing bytes in the TBS", B(TIMES "\x05\x00"), 1, 0, GOSTX_X509_CRL_MALFORMED, AS_IS},
      {"an unknown critical CRL extension", B(TIMES "\xa0\x11\x30\x0f\x30\x0d\x06\x04\x2a\x03\x04\x05\x01\x01\xff\x04\x02\x05\x00"), 1, 1, GOSTX_X509_CRL_CRITICAL_EXT, NUMBER_LATER},
      {"an unknown critical entry extension", B(TIMES "\x30\x26\x30\x24\x02\x01\x11\x17\x0d\x32\x37\x30\x31\x32\x30\x30\x30\x30\x30\x30\x30\x5a\x30\x10\x30\x0e\x06\x04\x2a\x03\x04\x05\x01\x01\xff\x04\x03\x02\x01\x01"), 1, 1, GOSTX_X509_CRL_CRITICAL_EXT, NUMBER_LATER},
      {"an unknown non-critical extension", B(TIMES "\xa0\x0e\x30\x0c\x30\x0a\x06\x04\x2a\x03\x04\x05\x04\x02\x05\x00"), 1, 1, GOSTX_X509_OK, NUMBER_ADDED},
      {"revoked, keyCompromise", B(TIMES "\x30\x22\x30\x20\x02\x01\x11\x17\x0d\x32\x37\x30\x31\x32\x30\x30\x30\x30\x30\x30\x30\x5a\x30\x0c\x30\x0a\x06\x03\x55\x1d\x15\x04\x03\x0a\x01\x01"), 1, 1, GOSTX_X509_REVOKED, NUMBER_ADDED},
      {"removeFromCRL revokes nothing", B(TIMES "\x30\x22\x30\x20\x02\x01\x11\x17\x0d\x32\x37\x30\x31\x32\x30\x30\x30\x30\x30\x30\x30\x5a\x30\x0c\x30\x0a\x06\x03\x55\x1d\x15\x04\x03\x0a\x01\x08"), 1, 1, GOSTX_X509_OK, NUMBER_ADDED},
      {"IDP onlyContainsCACerts: a leaf out of scope", B(TIMES "\xa0\x10\x30\x0e\x30\x0c\x06\x03\x55\x1d\x1c\x04\x05\x30\x03\x82\x01\xff"), 1, 1, GOSTX_X509_CRL_SCOPE, NUMBER_LATER},
      {"IDP onlyContainsUserCerts: a leaf in scope", B(TIMES "\xa0\x13\x30\x11\x30\x0f\x06\x03\x55\x1d\x1c\x01\x01\xff\x04\x05\x30\x03\x81\x01\xff"), 1, 1, GOSTX_X509_OK, NUMBER_ADDED},
      {"IDP onlySomeReasons keyCompromise: status unknown", B(TIMES "\xa0\x11\x30\x0f\x30\x0d\x06\x03\x55\x1d\x1c\x04\x06\x30\x04\x83\x02\x06\x40"), 1, 1, GOSTX_X509_CRL_SCOPE, NUMBER_ADDED},
      {"IDP distributionPoint the leaf names", B(TIMES "\xa0\x26\x30\x24\x30\x22\x06\x03\x55\x1d\x1c\x04\x1b\x30\x19\xa0\x17\xa0\x15\x86\x13\x68\x74\x74\x70\x3a\x2f\x2f\x61\x2e\x65\x78\x61\x6d\x70\x6c\x65\x2f\x63\x31"), 1, 1, GOSTX_X509_OK, NUMBER_ADDED},
      {"IDP distributionPoint the leaf does not name", B(TIMES "\xa0\x26\x30\x24\x30\x22\x06\x03\x55\x1d\x1c\x04\x1b\x30\x19\xa0\x17\xa0\x15\x86\x13\x68\x74\x74\x70\x3a\x2f\x2f\x61\x2e\x65\x78\x61\x6d\x70\x6c\x65\x2f\x63\x32"), 1, 1, GOSTX_X509_CRL_SCOPE, NUMBER_LATER},
  };
  static uint8_t der[4096];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const crafted *k = &cases[i];
    /* each CRL that parses twice: with a cRLNumber (want), then without,
     * where a CRL that got past the checks before 5.2.3's decides nothing */
    for (int number = k->parses && k->number != AS_IS; number >= 0; number--) {
      size_t len = craft((const uint8_t *)k->body, k->len, k->version, number, der, sizeof der);
      gostx_x509_crl crl;
      gostx_x509_status st = GOSTX_X509_OK;
      int rc = gostx_x509_crl_parse(der, len, &crl, &st);
      if (!k->parses) {
        CHECK(rc == GOSTX_EFORMAT && st == k->want, "%s: refused as %d (%s), want %d", k->what, st,
              gostx_x509_status_name(st), k->want);
        continue;
      }
      CHECK(rc == 0, "%s: parsed (%s)", k->what, gostx_x509_status_name(st));
      if (rc) continue;
      gostx_x509_status want = k->want;
      if (!number && k->number == NUMBER_ADDED) want = GOSTX_X509_CRL_NO_NUMBER;
      st = gostx_x509_crl_status(&crl, 1, &leaf_dp.cert, &inter.cert, AT, NULL);
      CHECK(st == want, "%s%s: status %s, want %s", k->what, number || k->number == AS_IS ? "" : " (no cRLNumber)",
            gostx_x509_status_name(st), gostx_x509_status_name(want));
    }
  }
  CHECK(!strcmp(gostx_x509_status_name(GOSTX_X509_CRL_DELTA), "crl: delta CRLs are not supported"),
        "the delta refusal's name");

  /* two CRLs of partial reasons that together cover every one */
  static uint8_t d2[4096];
  size_t l1 = craft((const uint8_t *)TIMES SOME_REASONS, sizeof TIMES SOME_REASONS - 1, 1, 1, der, sizeof der);
  size_t l2 = craft((const uint8_t *)TIMES OTHER_REASONS, sizeof TIMES OTHER_REASONS - 1, 1, 1, d2, sizeof d2);
  gostx_x509_crl two[2];
  CHECK_RC(gostx_x509_crl_parse(der, l1, &two[0], NULL), 0, "keyCompromise CRL");
  CHECK_RC(gostx_x509_crl_parse(d2, l2, &two[1], NULL), 0, "the other reasons' CRL");
  CHECK(two[1].reasons == (GOSTX_X509_CRL_ALL_REASONS & ~2u), "reasons 2..8 (0x%x)", two[1].reasons);
  CHECK(gostx_x509_crl_status(two, 2, &leaf_dp.cert, &inter.cert, AT, NULL) == GOSTX_X509_OK,
        "two partial CRLs cover every reason");
}

/* Every truncation and every one-byte change of a CRL: refused or read,
 * never out of bounds (ASan), the entries always walkable. */
static void mangled(void) {
  static uint8_t der[4096], m[4096];
  gostx_x509_crl_revoked e = {leaf.cert.serial, leaf.cert.serial_len, T0, 1, T0};
  size_t len = write_crl(&inter, T0, T0 + DAY, &e, 1, der, sizeof der);
  gostx_x509_crl crl;
  size_t refused = 0;
  for (size_t n = 0; n < len; n++) refused += gostx_x509_crl_parse(der, n, &crl, NULL) == GOSTX_EFORMAT;
  CHECK(refused == len, "every truncation refused (%zu of %zu)", refused, len);
  size_t read = 0;
  for (size_t i = 0; i < len; i++) {
    memcpy(m, der, len);
    m[i] ^= 0x41;
    if (gostx_x509_crl_parse(m, len, &crl, NULL)) continue;
    read++;
    gostx_x509_crl_entry x;
    size_t pos = 0, k = 0;
    while (gostx_x509_crl_next(&crl, &pos, &x) == 1) k++;
    CHECK(k == crl.n_revoked, "byte %zu: the entries walk", i);
    if (gostx_x509_crl_status(&crl, 1, &leaf.cert, &inter.cert, T0, NULL) == GOSTX_X509_REVOKED) k++;
    CHECK(k >= crl.n_revoked, "byte %zu: a status", i);
  }
  CHECK(read < len, "changed bytes: %zu of %zu still read", read, len);
}

static void paths(void) {
  static uint8_t d_root[4096], d_inter[4096];
  gostx_x509_crl_revoked ri = {inter.cert.serial, inter.cert.serial_len, T0 + DAY,
                               GOSTX_X509_REASON_CA_COMPROMISE, -1};
  gostx_x509_crl_revoked rl = {leaf.cert.serial, leaf.cert.serial_len, T0 + DAY,
                               GOSTX_X509_REASON_KEY_COMPROMISE, -1};
  gostx_x509_crl crls[2];
  size_t a = write_crl(&root, T0 + 2 * DAY, T0 + 30 * DAY, &ri, 1, d_root, sizeof d_root);
  size_t b = write_crl(&inter, T0 + 2 * DAY, T0 + 30 * DAY, &rl, 1, d_inter, sizeof d_inter);
  CHECK_RC(gostx_x509_crl_parse(d_root, a, &crls[0], NULL), 0, "root crl");
  CHECK_RC(gostx_x509_crl_parse(d_inter, b, &crls[1], NULL), 0, "inter crl");
  gostx_x509_store *store = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(store, root.der, root.len), 0, "anchor");
  gostx_x509_cert chain[2] = {leaf2.cert, inter.cert};
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, T0 + 5 * DAY);
  o.crls = &crls[1];
  o.n_crls = 1;
  o.crl_check = GOSTX_X509_CRL_CHECK_LEAF;
  gostx_x509_verify_result r;
  gostx_x509_status st = gostx_x509_verify_with(store, chain, 2, &o, &r);
  CHECK(st == GOSTX_X509_OK, "leaf2, -crl_check: good (%s)", r.why);
  chain[0] = leaf.cert;
  st = gostx_x509_verify_with(store, chain, 2, &o, &r);
  CHECK(st == GOSTX_X509_REVOKED && r.depth == 0 && strstr(r.why, "keyCompromise") && strstr(r.why, "2027-01-16"),
        "leaf revoked: %s", r.why);
  o.now = T0 + DAY / 2;
  st = gostx_x509_verify_with(store, chain, 2, &o, &r);
  CHECK(st == GOSTX_X509_OK, "leaf at a time before its revocation: good (%s)", r.why);
  o.now = T0 + 5 * DAY;
  chain[0] = leaf2.cert;
  o.crl_check = GOSTX_X509_CRL_CHECK_ALL;
  st = gostx_x509_verify_with(store, chain, 2, &o, &r);
  CHECK(st == GOSTX_X509_CRL_UNAVAILABLE && r.depth == 1, "-crl_check_all without the root's CRL: %s", r.why);
  o.crls = crls;
  o.n_crls = 2;
  st = gostx_x509_verify_with(store, chain, 2, &o, &r);
  CHECK(st == GOSTX_X509_REVOKED && r.depth == 1 && strstr(r.why, "CACompromise"), "inter revoked: %s", r.why);
  o.crl_check = GOSTX_X509_CRL_CHECK_LEAF;
  st = gostx_x509_verify_with(store, chain, 2, &o, &r);
  CHECK(st == GOSTX_X509_OK, "-crl_check asks only the leaf: %s", r.why);
  o.crl_check = GOSTX_X509_CRL_CHECK_NONE;
  o.n_crls = 0;
  chain[0] = leaf.cert;
  st = gostx_x509_verify_with(store, chain, 2, &o, &r);
  CHECK(st == GOSTX_X509_OK, "no check asked: the revoked leaf passes");
  gostx_x509_store_free(store);
}

int main(void) {
  static const char *const dp[] = {
      "subjectAltName=DNS:x.example", NULL};
  issue(&root, "/CN=CRL Root/O=T", NULL, 1, 1, GOSTX_GOST3410_512_A, NULL);
  issue(&evil, "/CN=CRL Root/O=T", NULL, 1, 1, GOSTX_GOST3410_512_B, NULL);
  issue(&inter, "/CN=CRL Inter/O=T", &root, 1, 2, GOSTX_GOST3410_256_B, NULL);
  issue(&leaf, "/CN=leaf one", &inter, 0, 3, GOSTX_GOST3410_256_A, NULL);
  issue(&leaf2, "/CN=leaf two", &inter, 0, 4, GOSTX_GOST3410_256_A, dp);
  /* serial 0x11 with cRLDistributionPoints { fullName URI http://a.example/c1 } */
  {
    gostx_x509_exts e;
    static const uint8_t crldp_oid[] = {0x55, 0x1d, 0x1f};
    static const uint8_t crldp[] = "\x30\x1b\x30\x19\xa0\x17\xa0\x15\x86\x13\x68\x74\x74\x70\x3a\x2f\x2f\x61\x2e\x65\x78\x61\x6d\x70\x6c\x65\x2f\x63\x31";
    t_make_sign_key(GOSTX_GOST3410_256_A, &leaf_dp.k);
    CHECK_RC(gostx_x509_name_parse("/CN=leaf dp", &leaf_dp.name, err, sizeof err), 0, "name");
    gostx_x509_exts_init(&e);
    CHECK_RC(gostx_x509_exts_add_der(&e, crldp_oid, 3, 0, crldp, sizeof crldp - 1), 0, "crldp");
    uint8_t serial = 0x11;
    gostx_x509_cert_spec s = {&serial, 1, inter.name.der, leaf_dp.name.der, inter.name.len,
                              leaf_dp.name.len, T0, T0 + 3650 * DAY, leaf_dp.k.spki,
                              leaf_dp.k.spki_len, &e, inter.id, inter.id_len};
    CHECK_RC(gostx_x509_cert_write(&s, &inter.k.xk, leaf_dp.der, sizeof leaf_dp.der, &leaf_dp.len), 0, "dp");
    CHECK_RC(gostx_x509_parse(leaf_dp.der, leaf_dp.len, &leaf_dp.cert, NULL), 0, "dp parsed");
  }
  reasons();
  written_and_read();
  statuses();
  hostile();
  mangled();
  paths();
  return t_done();
}
