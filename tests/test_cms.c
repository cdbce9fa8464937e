#define _GNU_SOURCE /* memmem */
/* lib/cms's API without a peer: R 1323565.1.025-2019's SignedData examples
 * verified (and their root refused as a CA, named); messages made with the
 * examples' own signers (tests/vectors/tc26_cms) in every form the signer
 * writes, parsed and verified; the size query and a short buffer; the
 * chunked content hash; DER order of the sets; signingTime's two forms;
 * misuse refused; every prefix of a message refused; an unknown (mangled)
 * OID in digestAlgorithms refused by name, as openssl refuses it; the
 * signer's issuer matched as lib/x509 matches names. */
#include <stdlib.h>

#include "testutil.h"
#include "tc26_cms_files.h"

static const uint8_t tc26_text[] = "\xca\xee\xed\xf2\xf0\xee\xeb\xfc\xed\xfb\xe9 \xef\xf0\xe8\xec\xe5\xf0 "
                                   "\xe4\xeb\xff \xf1\xf2\xf0\xf3\xea\xf2\xf3\xf0\xfb SignedData.";

static void known_answers(const gostx_x509_store *root) {
  static const char *names[] = {"signed_a111.pem", "signed_a121.pem"};
  for (int i = 0; i < 2; i++) {
    size_t len;
    uint8_t *der = example(names[i], &len);
    gostx_cms_signed *sd = malloc(sizeof *sd);
    gostx_cms_status st;
    gostx_cms_verdict v;
    CHECK(gostx_cms_signed_parse(der, len, sd, &st) == 0 && st == GOSTX_CMS_OK, "%s parses", names[i]);
    CHECK(sd->content_len == sizeof tc26_text - 1 && !memcmp(sd->content, tc26_text, sd->content_len),
          "%s: its content", names[i]);
    CHECK(sd->signers[0].digest_len == (i ? 32u : 64u) && (sd->signers[0].signed_attrs != NULL) == !i,
          "%s: digest and attributes", names[i]);
    CHECK(gostx_cms_signed_verify(sd, NULL, NULL, &v) == 0, "%s verifies: %s", names[i],
          gostx_cms_status_name(v.status));
    gostx_cms_verify_params p = {root, NULL, 0, 1700000000, GOSTX_X509_PURPOSE_ANY, NULL};
    CHECK(gostx_cms_signed_verify(sd, NULL, &p, &v) == GOSTX_EAUTH && v.status == GOSTX_CMS_CHAIN &&
              v.x509 == GOSTX_X509_NOT_CA && v.depth == 1,
          "%s: the root without basicConstraints is no CA (%s)", names[i], gostx_cms_status_name(v.status));
    free(sd);
    free(der);
  }
}

/* A.1.2 with its digestAlgorithms entry 1.2.643.7.1.1.2.2 made .2.9 (the
 * signer's own left alone): it used to verify, openssl refuses it. */
static void digest_list(void) {
  static const uint8_t streebog256[] = {0x06, 0x08, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x02};
  size_t len;
  uint8_t *der = example("signed_a121.pem", &len);
  uint8_t *at = memmem(der, len, streebog256, sizeof streebog256); /* the first: digestAlgorithms' */
  gostx_cms_signed *sd = malloc(sizeof *sd);
  gostx_cms_verdict v;
  CHECK(at != NULL, "digestAlgorithms found");
  if (at) at[sizeof streebog256 - 1] = 9;
  CHECK(gostx_cms_signed_parse(der, len, sd, NULL) == 0 && sd->signers[0].digest_len == 32,
        "parsed, the signer's digest still Streebog-256");
  CHECK(gostx_cms_signed_verify(sd, NULL, NULL, &v) == GOSTX_EAUTH && v.status == GOSTX_CMS_BAD_DIGEST_ALGORITHMS &&
            !strcmp(v.oid, "1.2.643.7.1.1.2.9"),
        "refused: %s (OID %s)", gostx_cms_status_name(v.status), v.oid);
  free(sd);
  free(der);
}

static uint8_t content[3000];

/* Signs content with signers[n] under flags; the DER in *der. */
static size_t sign(const gostx_cms_signer *s, size_t n, unsigned flags, int64_t t,
                   const gostx_x509_cert *certs, size_t n_certs, uint8_t **der) {
  gostx_cms_sign_params p = {flags, t, certs, n_certs};
  size_t need = 0, len = 0;
  CHECK(gostx_cms_sign(s, n, &p, NULL, content, sizeof content, NULL, 0, &need) == 0, "size query");
  *der = malloc(need);
  CHECK(gostx_cms_sign(s, n, &p, NULL, content, sizeof content, *der, need - 1, &len) == GOSTX_ELEN &&
            len == need,
        "a buffer one byte short: ELEN and the size");
  CHECK(gostx_cms_sign(s, n, &p, NULL, content, sizeof content, *der, need, &len) == 0 && len == need,
        "signed in the size asked (%zu, %zu)", len, need);
  return len;
}

static void verify_ok(const uint8_t *der, size_t len, unsigned flags, const char *what) {
  gostx_cms_signed *sd = malloc(sizeof *sd);
  gostx_cms_verdict v;
  gostx_cms_hash h;
  CHECK(gostx_cms_signed_parse(der, len, sd, NULL) == 0, "%s: parses", what);
  unsigned want = gostx_cms_signed_hashes(sd);
  CHECK(gostx_cms_hash_init(&h, want) == 0 && gostx_cms_hash_update(&h, content, 1000) == 0 &&
            gostx_cms_hash_update(&h, content + 1000, sizeof content - 1000) == 0 &&
            gostx_cms_hash_final(&h) == 0,
        "%s: hash in chunks", what);
  CHECK(gostx_cms_signed_verify(sd, &h, NULL, &v) == 0, "%s: verifies with the hash: %s", what,
        gostx_cms_status_name(v.status));
  int attached = (flags & GOSTX_CMS_ATTACHED) != 0;
  int rc = gostx_cms_signed_verify(sd, NULL, NULL, &v);
  CHECK(attached ? rc == 0 : rc == GOSTX_EAUTH && v.status == GOSTX_CMS_NO_CONTENT,
        "%s: without the hash: %s", what, gostx_cms_status_name(v.status));
  const gostx_cms_signer_info *si = &sd->signers[0];
  CHECK((si->signed_attrs == NULL) == !!(flags & GOSTX_CMS_NO_ATTRS) &&
            (si->ess_hash != NULL) == !!(flags & GOSTX_CMS_CADES) &&
            si->has_signing_time == !(flags & (GOSTX_CMS_NO_SIGNING_TIME | GOSTX_CMS_NO_ATTRS)),
        "%s: the attributes asked for", what);
  content[5] ^= 1; /* a changed content, as a detached one is given */
  gostx_cms_hash_init(&h, want);
  gostx_cms_hash_update(&h, content, sizeof content);
  gostx_cms_hash_final(&h);
  content[5] ^= 1;
  CHECK(gostx_cms_signed_verify(sd, &h, NULL, &v) == GOSTX_EAUTH &&
            v.status == (flags & GOSTX_CMS_NO_ATTRS ? GOSTX_CMS_BAD_SIGNATURE : GOSTX_CMS_DIGEST_MISMATCH),
        "%s: a changed content refused: %s", what, gostx_cms_status_name(v.status));
  free(sd);
}

static void round_trips(const signer_files *s256, const signer_files *s512) {
  static const unsigned forms[] = {0,
                                   GOSTX_CMS_ATTACHED,
                                   GOSTX_CMS_CADES,
                                   GOSTX_CMS_CADES | GOSTX_CMS_ATTACHED,
                                   GOSTX_CMS_NO_ATTRS,
                                   GOSTX_CMS_NO_SIGNING_TIME | GOSTX_CMS_NO_CERTS};
  const signer_files *sf[2] = {s256, s512};
  for (int k = 0; k < 2; k++)
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
      gostx_cms_signer s = {&sf[k]->cert, &sf[k]->key};
      uint8_t *der;
      char what[64];
      snprintf(what, sizeof what, "%d-bit, flags %u", k ? 512 : 256, forms[f]);
      /* NO_CERTS: the certificate comes back as a certificate the caller adds */
      size_t len = sign(&s, 1, forms[f], 1700000000, forms[f] & GOSTX_CMS_NO_CERTS ? &sf[k]->cert : NULL,
                        forms[f] & GOSTX_CMS_NO_CERTS ? 1 : 0, &der);
      verify_ok(der, len, forms[f], what);
      free(der);
    }
}

/* Elements of a SET OF in DER order (X.690 11.6). */
static int set_sorted(const uint8_t *p, size_t n) {
  const uint8_t *prev = NULL;
  size_t prev_len = 0;
  while (n) {
    size_t len = p[1], hdr = 2;
    if (len & 0x80) {
      hdr += len & 0x7f;
      len = 0;
      for (size_t i = 2; i < hdr; i++) len = len << 8 | p[i];
    }
    size_t m = prev_len < hdr + len ? prev_len : hdr + len;
    if (prev && (memcmp(prev, p, m) > 0 || (memcmp(prev, p, m) == 0 && prev_len > hdr + len))) return 0;
    prev = p, prev_len = hdr + len;
    p += hdr + len, n -= hdr + len;
  }
  return 1;
}

static void two_signers(const signer_files *s256, const signer_files *s512) {
  /* 512 first: the certificates must still come out in DER order, and
   * the 256 one passed again once only */
  gostx_cms_signer s[2] = {{&s512->cert, &s512->key}, {&s256->cert, &s256->key}};
  uint8_t *der;
  size_t len = sign(s, 2, GOSTX_CMS_CADES, 1700000000, &s256->cert, 1, &der);
  gostx_cms_signed *sd = malloc(sizeof *sd);
  gostx_cms_verdict v;
  CHECK(gostx_cms_signed_parse(der, len, sd, NULL) == 0 && sd->n_signers == 2 && sd->n_certs == 2,
        "two signers, two certificates");
  CHECK(gostx_cms_signed_hashes(sd) == (GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512), "both digests");
  CHECK(sd->certs[0].der_len < sd->certs[1].der_len && set_sorted(sd->certs[0].der, sd->certs[0].der_len + sd->certs[1].der_len),
        "certificates in DER order");
  for (int i = 0; i < 2; i++) {
    const gostx_cms_signer_info *si = &sd->signers[i];
    size_t hl = si->signed_attrs[1] & 0x80 ? 2 + (si->signed_attrs[1] & 0x7f) : 2;
    CHECK(set_sorted(si->signed_attrs + hl, si->signed_attrs_len - hl), "signer %d: attributes in DER order", i);
  }
  gostx_cms_hash h;
  gostx_cms_hash_init(&h, GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512);
  gostx_cms_hash_update(&h, content, sizeof content);
  gostx_cms_hash_final(&h);
  CHECK(gostx_cms_signed_verify(sd, &h, NULL, &v) == 0, "two signers verify");
  gostx_cms_hash_init(&h, GOSTX_CMS_HASH_512);
  gostx_cms_hash_update(&h, content, sizeof content);
  gostx_cms_hash_final(&h);
  CHECK(gostx_cms_signed_verify(sd, &h, NULL, &v) == GOSTX_EAUTH && v.signer == 1 &&
            v.status == GOSTX_CMS_NO_CONTENT,
        "a hash without the 256-bit digest: the second signer named");
  /* every prefix refused, the whole but one byte as truncated */
  gostx_cms_status st;
  int all = 1;
  for (size_t n = 0; n < len; n++) all &= gostx_cms_signed_parse(der, n, sd, &st) == GOSTX_EFORMAT;
  CHECK(all, "every prefix refused");
  CHECK(gostx_cms_signed_parse(der, len - 1, sd, &st) && st == GOSTX_CMS_TRUNCATED, "truncated named");
  free(sd);
  free(der);
}

/* RFC 5652 11.3: UTCTime through 2049, GeneralizedTime from 2050. */
static void signing_times(const signer_files *s256) {
  static const int64_t times[] = {946684799, 2524607999, 2524608000, 4102444800};
  static const uint8_t tags[] = {0x17, 0x17, 0x18, 0x18};
  gostx_cms_signer s = {&s256->cert, &s256->key};
  for (int i = 0; i < 4; i++) {
    uint8_t *der;
    size_t len = sign(&s, 1, GOSTX_CMS_NO_CERTS, times[i], NULL, 0, &der);
    gostx_cms_signed *sd = malloc(sizeof *sd);
    static const uint8_t st_oid[] = "\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x09\x05\x31";
    const uint8_t *at = memmem(der, len, st_oid, sizeof st_oid - 1);
    CHECK(gostx_cms_signed_parse(der, len, sd, NULL) == 0 && sd->signers[0].has_signing_time &&
              sd->signers[0].signing_time == times[i],
          "signingTime %lld read back", (long long)times[i]);
    CHECK(at && at[sizeof st_oid] == tags[i], "signingTime %lld: tag %02x", (long long)times[i], tags[i]);
    free(sd);
    free(der);
  }
}

/* A Name's strings (short DER lengths, as the examples' names have) made
 * UTF8Strings with their ASCII letters' case swapped: the same name to
 * RFC 5280 7.1 in other bytes. */
static void respell_name(uint8_t *p, size_t n) {
  for (size_t i = 0; i + 2 <= n;) {
    uint8_t tag = p[i], len = p[i + 1];
    CHECK(len < 0x80, "a short length");
    if (tag & 0x20) { /* constructed: its elements next */
      i += 2;
      continue;
    }
    if (tag == 0x13 || tag == 0x0c) {
      p[i] = 0x0c;
      for (size_t k = i + 2; k < i + 2u + len && k < n; k++)
        if ((p[k] | 0x20) >= 'a' && (p[k] | 0x20) <= 'z') p[k] ^= 0x20;
    }
    i += 2u + len;
  }
}

/* The signed attributes of der's first signer signed again with key
 * (after one was changed). */
static void sign_again(uint8_t *der, size_t len, const gostx_gost3410_key *key) {
  gostx_cms_signed *sd = malloc(sizeof *sd);
  CHECK(gostx_cms_signed_parse(der, len, sd, NULL) == 0, "parses to be signed again");
  const gostx_cms_signer_info *si = &sd->signers[0];
  uint8_t digest[64], *sig = der + (si->signature - der);
  gostx_streebog_ctx h;
  gostx_streebog_init(&h, key->len);
  gostx_streebog_update(&h, "\x31", 1); /* [0] IMPLICIT signed as the SET it stands for */
  gostx_streebog_update(&h, si->signed_attrs + 1, si->signed_attrs_len - 1);
  gostx_streebog_final(&h, digest);
  CHECK(gostx_gost3410_sign(key->curve, key->d, key->len, digest, key->len, sig, 2 * key->len) == 0 &&
            gostx_gost3410_sig_swap(sig, 2 * key->len, sig, 2 * key->len) == 0,
        "signed again");
  free(sd);
}

/* The issuer of a signer's issuerAndSerialNumber (flags 0), or of its
 * signingCertificateV2's IssuerSerial (CADES), matches the certificate's
 * as lib/x509 compares names: in UTF8String and other case it still names
 * it (byte equality said SIGNER_NOT_FOUND, SIGNING_CERT_MISMATCH);
 * another name, or no Name, does not. */
static void issuer_respelled(const signer_files *s256, unsigned flags, gostx_cms_status other) {
  gostx_cms_signer s = {&s256->cert, &s256->key};
  const gostx_x509_cert *c = &s256->cert;
  uint8_t *der, *at = NULL;
  size_t len = sign(&s, 1, GOSTX_CMS_ATTACHED | flags, 1700000000, NULL, 0, &der);
  const char *what = flags ? "IssuerSerial" : "issuerAndSerialNumber";
  /* the last copy of the issuer: the SignerInfo's (the certificate's come
   * first), its signed attributes' when CADES */
  for (uint8_t *p = der; (p = memmem(p, len - (size_t)(p - der), c->issuer, c->issuer_len)); p++)
    at = p;
  CHECK(at != NULL, "%s: the issuer found", what);
  if (!at) return free(der);
  respell_name(at, c->issuer_len);
  uint8_t *tk = memmem(at, c->issuer_len, "tk26", 4);
  CHECK(tk != NULL && at[11] == 0x0c, "%s: the issuer respelled (O=tk26 a UTF8String)", what);
  gostx_cms_signed *sd = malloc(sizeof *sd);
  gostx_cms_verdict v;
  for (int k = 0; tk && k < 3; k++) {
    if (k == 1) tk[1] = 'q'; /* tq26: another name */
    if (k == 2) tk[1] = 'k', at[2] = 0x30; /* its first RDN a SEQUENCE, not a SET: no Name */
    if (flags) sign_again(der, len, &s256->key);
    int rc = gostx_cms_signed_parse(der, len, sd, NULL) || gostx_cms_signed_verify(sd, NULL, NULL, &v);
    CHECK(k ? rc && v.status == other : rc == 0, "%s: %s: %s", what,
          k == 0 ? "respelled, the same name" : k == 1 ? "another name" : "no Name",
          gostx_cms_status_name(v.status));
  }
  free(sd);
  free(der);
}

static void misuse(const signer_files *s256, const signer_files *s512) {
  gostx_cms_signer wrong = {&s256->cert, &s512->key}, good = {&s512->cert, &s512->key};
  gostx_cms_sign_params p = {GOSTX_CMS_CADES | GOSTX_CMS_NO_ATTRS, 0, NULL, 0};
  size_t len;
  gostx_cms_hash h256;
  gostx_cms_hash_init(&h256, GOSTX_CMS_HASH_256);
  gostx_cms_hash_final(&h256);
  CHECK(gostx_cms_sign(&wrong, 1, NULL, NULL, content, 10, NULL, 0, &len) == GOSTX_EINVAL,
        "a key that is not the certificate's");
  CHECK(gostx_cms_sign(&good, 1, &p, NULL, content, 10, NULL, 0, &len) == GOSTX_EINVAL, "CADES without attributes");
  CHECK(gostx_cms_sign(&good, 0, NULL, NULL, content, 10, NULL, 0, &len) == GOSTX_EINVAL, "no signer");
  uint8_t out[8192];
  CHECK(gostx_cms_sign(&good, 1, NULL, &h256, NULL, 0, out, sizeof out, &len) == GOSTX_EINVAL,
        "a hash without the signer's digest");
  CHECK(gostx_cms_hash_final(&h256) == GOSTX_ESTATE && gostx_cms_hash_update(&h256, "x", 1) == GOSTX_ESTATE,
        "a finished hash takes no more");
  CHECK(gostx_cms_hash_init(&h256, 4) == GOSTX_EINVAL && gostx_cms_hash_init(&h256, 0) == GOSTX_EINVAL,
        "hash_init: no such digest");
}

int main(void) {
  signer_files *s256 = malloc(sizeof *s256), *s512 = malloc(sizeof *s512);
  for (size_t i = 0; i < sizeof content; i++) content[i] = (uint8_t)(i * 7 + 1);
  load_signer("sender256_cert.pem", "sender256_key.pem", s256);
  load_signer("sender512_cert.pem", "sender512_key.pem", s512);
  size_t len;
  uint8_t *root_pem = slurp("root256_cert.pem", &len), root_der[2048];
  size_t pos = 0, root_len;
  gostx_x509_store *root = gostx_x509_store_new();
  CHECK(gostx_x509_pem_next((const char *)root_pem, len, &pos, root_der, sizeof root_der, &root_len) == 1 &&
            gostx_x509_store_add_der(root, root_der, root_len) == 0,
        "the examples' root");
  free(root_pem);
  known_answers(root);
  digest_list();
  round_trips(s256, s512);
  two_signers(s256, s512);
  signing_times(s256);
  issuer_respelled(s256, 0, GOSTX_CMS_SIGNER_NOT_FOUND);
  issuer_respelled(s256, GOSTX_CMS_CADES, GOSTX_CMS_SIGNING_CERT_MISMATCH);
  misuse(s256, s512);
  gostx_x509_store_free(root);
  gostx_gost3410_key_clear(&s256->key);
  gostx_gost3410_key_clear(&s512->key);
  free(s256);
  free(s512);
  return t_done();
}
