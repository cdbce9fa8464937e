/* libFuzzer harness: lib/cms's parsers. The first byte says how: bit 0
 * PEM; bits 2-3 which type: 0 SignedData, 1 EnvelopedData, 2
 * EncryptedData, 3 DigestedData. A SignedData (bit 1: a detached content
 * hashed in two chunks) accepted must point inside the input, must be
 * refused as TRUNCATED one byte short and as TRAILING_DATA one byte long,
 * and goes through verification without a trust store (every check but
 * the chain; the verdict must name a signer that exists). The others:
 * views inside the input, the same edges, then decryption (EnvelopedData:
 * for a fixed key under a certificate that names the first recipient, and
 * a KARI's static originator, so the key transport's or agreement's
 * parse, KEG and KImp15 run, and by that key alone, every recipient of
 * its size tried; EncryptedData: a fixed
 * key) or the digest check, whose refusals must be named. Bit 4 (with
 * EnvelopedData or EncryptedData): gostx_cms_decrypt_stream too (by
 * certificate and by key alone), the input
 * read 2^(bits 5-7) - 1 bytes a call (0: as much as fits), BER welcome;
 * where the one-shot calls accept the input, it must give the same status
 * and bytes. With SignedData, gostx_cms_signed_stream: where the one-shot
 * parser accepts an attached message, the stream must too, with the same
 * content, and its rebuilt message must parse. Nothing may crash or read out of bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#include "../support/cms_mem_stream.h"
#define FUZZ_NAME "fuzz_cms"
#include "fuzz_check.h"

static void check_views(const gostx_cms_signed *sd, const uint8_t *in, size_t n) {
  inside(sd->content, sd->content_len, in, n);
  inside(sd->content_type, sd->content_type_len, in, n);
  if (sd->n_signers == 0 || sd->n_signers > GOSTX_CMS_MAX_SIGNERS || sd->n_certs > GOSTX_CMS_MAX_CERTS)
    bug("counts");
  for (size_t i = 0; i < sd->n_signers; i++) {
    const gostx_cms_signer_info *si = &sd->signers[i];
    inside(si->signed_attrs, si->signed_attrs_len, in, n);
    inside(si->signature, si->signature_len, in, n);
    inside(si->attr_digest, si->attr_digest_len, in, n);
    inside(si->ess_hash, si->ess_hash_len, in, n);
    inside(si->sid_issuer, si->sid_issuer_len, in, n);
    if (si->digest_len != 0 && si->digest_len != 32 && si->digest_len != 64) bug("digest size");
  }
  for (size_t i = 0; i < sd->n_certs; i++) inside(sd->certs[i].der, sd->certs[i].der_len, in, n);
}

/* One byte short and one byte long: refused, and named so. */
static void check_edges(const uint8_t *der, size_t n, gostx_cms_signed *sd) {
  gostx_cms_status st;
  uint8_t *copy = malloc(n + 1);
  memcpy(copy, der, n);
  if (!gostx_cms_signed_parse(copy, n - 1, sd, &st) || st != GOSTX_CMS_TRUNCATED) bug("short not TRUNCATED");
  copy[n] = 0;
  if (!gostx_cms_signed_parse(copy, n + 1, sd, &st) || st != GOSTX_CMS_TRAILING_DATA)
    bug("long not TRAILING_DATA");
  free(copy);
}

static void verify(const gostx_cms_signed *sd, const uint8_t *content, size_t len, int detached) {
  gostx_cms_hash h;
  gostx_cms_verdict v;
  unsigned want = gostx_cms_signed_hashes(sd);
  int use = detached && want && !gostx_cms_hash_init(&h, want);
  if (use && (gostx_cms_hash_update(&h, content, len / 2) ||
              gostx_cms_hash_update(&h, content + len / 2, len - len / 2) || gostx_cms_hash_final(&h)))
    bug("hash");
  int rc = gostx_cms_signed_verify(sd, use ? &h : NULL, NULL, &v);
  if (rc && (rc != GOSTX_EAUTH || v.status == GOSTX_CMS_OK || v.signer >= sd->n_signers)) bug("verdict");
  if (!rc && v.status != GOSTX_CMS_OK) bug("verdict on success");
  if (v.status == GOSTX_CMS_CHAIN) bug("a chain checked without a store");
}

/* ---- streaming ---- */

static uint8_t stream_work[GOSTX_CMS_STREAM_WORK];
static size_t stream_step;

/* The streaming call on der[n] with p's key; when want (the one-shot
 * call's status, or -1 when it did not parse) is not -1, the same status
 * and, on success, want_out's bytes. */
static void stream_same(const uint8_t *der, size_t n, gostx_cms_decrypt_params *p, int want,
                        const uint8_t *want_out, size_t want_len) {
  feed f = {der, n, 0, stream_step};
  sink s = {malloc(n ? n : 1), 0, n};
  gostx_cms_stream_result res;
  p->work = stream_work, p->work_len = sizeof stream_work;
  int rc = gostx_cms_decrypt_stream(p, feed_read, &f, sink_write, &s, &res);
  if (rc == GOSTX_ELEN) bug("stream: more content than input");
  if (rc && res.status == GOSTX_CMS_OK) bug("stream: a refusal without its name");
  if (!rc && res.content_len != s.n) bug("stream: content_len");
  if (want != -1 && (int)res.status != want) bug("stream: another status than the one-shot call");
  if (want == GOSTX_CMS_OK && (s.n != want_len || memcmp(s.p, want_out, want_len)))
    bug("stream: other bytes than the one-shot call");
  free(s.p);
}

static void signed_stream_same(const uint8_t *der, size_t n, const gostx_cms_signed *sd) {
  feed f = {der, n, 0, stream_step};
  sink s = {malloc(n ? n : 1), 0, n};
  gostx_cms_signed_stream_result res;
  gostx_cms_signed *rebuilt = malloc(sizeof *rebuilt);
  int rc = gostx_cms_signed_stream(stream_work, sizeof stream_work, feed_read, &f, sink_write, &s, &res);
  if (rc == GOSTX_ELEN) bug("signed stream: more content than input");
  if (rc && res.status == GOSTX_CMS_OK) bug("signed stream: a refusal without its name");
  if (!rc && gostx_cms_signed_parse(res.der, res.der_len, rebuilt, NULL) && sd)
    bug("signed stream: the rebuilt message does not parse");
  if (sd && sd->content && (rc || s.n != sd->content_len || memcmp(s.p, sd->content, s.n)))
    bug("signed stream: not the one-shot parser's content");
  free(rebuilt);
  free(s.p);
}

/* ---- EnvelopedData, EncryptedData, DigestedData ---- */

typedef int (*parse_fn)(const uint8_t *der, size_t n, void *out, gostx_cms_status *st);
static int parse_env(const uint8_t *d, size_t n, void *o, gostx_cms_status *st) {
  return gostx_cms_enveloped_parse(d, n, o, st);
}
static int parse_enc(const uint8_t *d, size_t n, void *o, gostx_cms_status *st) {
  return gostx_cms_encrypted_parse(d, n, o, st);
}
static int parse_dig(const uint8_t *d, size_t n, void *o, gostx_cms_status *st) {
  return gostx_cms_digested_parse(d, n, o, st);
}

static void edges(parse_fn parse, const uint8_t *der, size_t n, void *scratch) {
  gostx_cms_status st;
  uint8_t *copy = malloc(n + 1);
  memcpy(copy, der, n);
  if (!parse(copy, n - 1, scratch, &st) || st != GOSTX_CMS_TRUNCATED) bug("short not TRUNCATED");
  copy[n] = 0;
  if (!parse(copy, n + 1, scratch, &st) || st != GOSTX_CMS_TRAILING_DATA) bug("long not TRAILING_DATA");
  free(copy);
}

static void content_views(const gostx_cms_encrypted_content *ec, const uint8_t *in, size_t n) {
  inside(ec->ciphertext, ec->ciphertext_len, in, n);
  inside(ec->ukm, ec->ukm_len, in, n);
  inside(ec->mac, ec->mac_len, in, n);
  if (!ec->ciphertext) bug("no ciphertext accepted");
}

/* The decryption's result: 0, or a named refusal and out wiped. */
static void opened(int rc, gostx_cms_status st, const uint8_t *out, size_t len) {
  if (!rc) return;
  if (st == GOSTX_CMS_OK) bug("a refusal without its name");
  for (size_t i = 0; st == GOSTX_CMS_BAD_MAC && i < len; i++)
    if (out[i]) bug("content left after a bad MAC");
}

static void fuzz_enveloped(const uint8_t *der, size_t n) {
  static gostx_gost3410_key keys[2];
  static int have;
  if (!have) { /* d = 7 on 256-A and 512-A */
    uint8_t d[64] = {0};
    d[31] = 7;
    if (gostx_gost3410_key_set_private(&keys[0], GOSTX_GOST3410_256_A, d, 32, NULL)) bug("key");
    d[31] = 0, d[63] = 7;
    if (gostx_gost3410_key_set_private(&keys[1], GOSTX_GOST3410_512_A, d, 64, NULL)) bug("key");
    have = 1;
  }
  gostx_cms_enveloped *env = malloc(sizeof *env);
  gostx_cms_status st;
  if (stream_step != (size_t)-1 && gostx_cms_enveloped_parse(der, n, env, &st)) {
    /* BER or refused: a certificate of no recipient, the reader walks on */
    gostx_x509_cert cert;
    memset(&cert, 0, sizeof cert);
    cert.curve = keys[0].curve, cert.pub_len = 2 * keys[0].len;
    memcpy(cert.pub, keys[0].q, cert.pub_len);
    gostx_cms_decrypt_params p = {&cert, NULL, &keys[0], NULL, NULL, 0};
    stream_same(der, n, &p, -1, NULL, 0);
  }
  if (!gostx_cms_enveloped_parse(der, n, env, &st)) {
    content_views(&env->content, der, n);
    for (size_t i = 0; i < env->n_recipients; i++) {
      const gostx_cms_recipient *r = &env->recipients[i];
      inside(r->encrypted_key, r->encrypted_key_len, der, n);
      inside(r->ukm, r->ukm_len, der, n);
      inside(r->orig_key, r->orig_key_len, der, n);
      inside(r->orig_issuer, r->orig_issuer_len, der, n);
    }
    const gostx_cms_recipient *ri = &env->recipients[0];
    const gostx_gost3410_key *k = &keys[ri->key_len == 64];
    if (env->n_recipients) { /* by the key alone: each recipient of its size tried */
      size_t len = env->content.ciphertext_len, got = 0;
      uint8_t *out = malloc(len ? len : 1);
      opened(gostx_cms_enveloped_decrypt(env, NULL, k, NULL, out, len, &got, &st), st, out, len);
      if (stream_step != (size_t)-1) {
        gostx_cms_decrypt_params p = {NULL, NULL, k, NULL, NULL, 0};
        stream_same(der, n, &p, (int)st, out, got);
      }
      free(out);
    }
    if (env->n_recipients && ri->rid_kind == GOSTX_CMS_SID_ISSUER_SERIAL) {
      gostx_x509_cert cert;
      memset(&cert, 0, sizeof cert);
      cert.issuer = ri->rid_issuer, cert.issuer_len = ri->rid_issuer_len;
      cert.serial = ri->rid_serial, cert.serial_len = ri->rid_serial_len;
      cert.curve = k->curve, cert.pub_len = 2 * k->len;
      memcpy(cert.pub, k->q, cert.pub_len);
      size_t len = env->content.ciphertext_len, got = 0;
      uint8_t *out = malloc(len ? len : 1);
      /* a KARI's static originator: a certificate naming it, with our key */
      gostx_x509_cert orig = cert;
      orig.issuer = ri->orig_issuer, orig.issuer_len = ri->orig_issuer_len;
      orig.serial = ri->orig_serial, orig.serial_len = ri->orig_serial_len;
      opened(gostx_cms_enveloped_decrypt(env, &cert, k, &orig, out, len, &got, &st), st, out, len);
      if (stream_step != (size_t)-1) {
        gostx_cms_decrypt_params p = {&cert, &orig, k, NULL, NULL, 0};
        stream_same(der, n, &p, (int)st, out, got);
      }
      free(out);
    }
    edges(parse_env, der, n, env);
  }
  free(env);
}

static void fuzz_encrypted(const uint8_t *der, size_t n) {
  static const uint8_t key[32] = {1, 2, 3};
  gostx_cms_encrypted ed;
  gostx_cms_status st;
  gostx_cms_decrypt_params p = {NULL, NULL, NULL, key, NULL, 0};
  if (gostx_cms_encrypted_parse(der, n, &ed, &st)) {
    if (stream_step != (size_t)-1) stream_same(der, n, &p, -1, NULL, 0);
    return;
  }
  content_views(&ed.content, der, n);
  size_t len = ed.content.ciphertext_len, got = 0;
  uint8_t *out = malloc(len ? len : 1);
  opened(gostx_cms_encrypted_decrypt(&ed, key, out, len, &got, &st), st, out, len);
  if (stream_step != (size_t)-1) stream_same(der, n, &p, (int)st, out, got);
  free(out);
  edges(parse_enc, der, n, &ed);
}

static void fuzz_digested(const uint8_t *der, size_t n) {
  gostx_cms_digested dd;
  gostx_cms_status st;
  if (gostx_cms_digested_parse(der, n, &dd, &st)) return;
  inside(dd.content, dd.content_len, der, n);
  inside(dd.digest, dd.stored_digest_len, der, n);
  if (gostx_cms_digested_verify(&dd, &st) && st == GOSTX_CMS_OK) bug("a refusal without its name");
  edges(parse_dig, der, n, &dd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int pem = data[0] & 1, detached = (data[0] >> 1) & 1, type = (data[0] >> 2) & 3;
  stream_step = data[0] >> 4 & 1 ? ((size_t)1 << (data[0] >> 5)) - 1 : (size_t)-1;
  /* an exact-size copy: ASan sees any read past the end */
  size_t n = size - 1;
  uint8_t *in = malloc(n ? n : 1), *der = in;
  memcpy(in, data + 1, n);
  if (pem) {
    der = malloc(n ? n : 1);
    size_t der_len = 0;
    if (gostx_cms_pem_read((const char *)in, n, der, n, &der_len)) der_len = 0;
    if (der_len > n) bug("PEM longer than its text");
    uint8_t *exact = malloc(der_len ? der_len : 1);
    memcpy(exact, der, der_len);
    free(der);
    der = exact;
    n = der_len;
  }
  if (n && type) {
    (type == 1 ? fuzz_enveloped : type == 2 ? fuzz_encrypted : fuzz_digested)(der, n);
    if (der != in) free(der);
    free(in);
    return 0;
  }
  gostx_cms_signed *sd = malloc(sizeof *sd);
  gostx_cms_status st;
  int parsed = n && !gostx_cms_signed_parse(der, n, sd, &st);
  if (stream_step != (size_t)-1) signed_stream_same(der, n, parsed ? sd : NULL);
  if (parsed) {
    if (st != GOSTX_CMS_OK) bug("status on success");
    check_views(sd, der, n);
    verify(sd, der, n, detached);
    gostx_cms_signed *other = malloc(sizeof *other);
    check_edges(der, n, other);
    free(other);
  }
  free(sd);
  if (der != in) free(der);
  free(in);
  return 0;
}
