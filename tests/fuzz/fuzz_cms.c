/* libFuzzer harness: lib/cms's SignedData parser and verifier. The input
 * (the first byte says how: bit 0 PEM, bit 1 a detached content hashed in
 * two chunks) is parsed; what is accepted must point inside the input,
 * must be refused as TRUNCATED one byte short and as TRAILING_DATA one
 * byte long, and goes through verification without a trust store (every
 * check but the chain; the verdict must name a signer that exists).
 * Nothing may crash or read out of bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"

static void bug(const char *what) {
  fprintf(stderr, "fuzz_cms: %s\n", what);
  abort();
}

static void inside(const uint8_t *p, size_t n, const uint8_t *in, size_t in_len) {
  if (p && (p < in || n > in_len || p - in > (ptrdiff_t)(in_len - n))) bug("a view outside the input");
}

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int pem = data[0] & 1, detached = (data[0] >> 1) & 1;
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
  gostx_cms_signed *sd = malloc(sizeof *sd);
  gostx_cms_status st;
  if (n && !gostx_cms_signed_parse(der, n, sd, &st)) {
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
