/* libFuzzer harness: lib/cms's CAdES-T (timestamp.c, tsa_verify.c, the
 * signature-time-stamp of cades_write.c). The input is read as a TSA's
 * reply or token: what is accepted must point inside the input and is
 * checked as a timestamp of the input's first bytes without a trust store
 * (no crash, a verdict named). The input is also read as a SignedData:
 * its signers' timestamp tokens are listed, and the input itself added to
 * signer 0 as a signature-time-stamp: a token (a TimeStampToken is a
 * SignedData too) must give a SignedData that parses again with one token
 * more, anything else must be refused. Nothing may crash or read out of
 * bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#define FUZZ_NAME "fuzz_cms_ts"
#include "fuzz_check.h"

/* 1 when the input is a bare token */
static int as_reply(const uint8_t *in, size_t n) {
  static gostx_cms_ts_token t;
  gostx_cms_ts_status st;
  gostx_cms_ts_verdict v;
  if (gostx_cms_ts_parse(in, n, &t, &st)) {
    if (st == GOSTX_CMS_TS_OK) bug("refused without a status");
    return 0;
  }
  inside(t.token, t.token_len, in, n);
  inside(t.imprint, t.imprint_len, in, n);
  inside(t.serial, t.serial_len, in, n);
  inside(t.policy, t.policy_len, in, n);
  gostx_cms_hash h;
  gostx_tsa_expect e = {&h, NULL, 0, NULL, 0, NULL, 0};
  if (gostx_cms_hash_init(&h, GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512) ||
      gostx_cms_hash_update(&h, in, n < 64 ? n : 64) || gostx_cms_hash_final(&h))
    bug("the digests");
  if (gostx_tsa_verify(&t, &e, NULL, &v) && v.status == GOSTX_CMS_TS_OK) bug("refused without a verdict");
  return t.token == in && t.token_len == n; /* a bare token, not a reply */
}

static int add_ts(const gostx_cms_signed *sd, const uint8_t *in, size_t n, uint8_t *out, size_t *len) {
  return gostx_cades_add_timestamp(sd, 0, GOSTX_CADES_TS_SIGNATURE, in, n, out, out ? *len : 0, len, NULL);
}

/* The input into its own signer 0 as a signature-time-stamp. */
static void as_signed(const uint8_t *in, size_t n, int is_token) {
  static gostx_cms_signed sd, again;
  const uint8_t *toks[4];
  size_t lens[4], before, after, len;
  if (gostx_cms_signed_parse(in, n, &sd, NULL)) return;
  if (gostx_cms_ts_tokens(&sd.signers[0], toks, lens, 4, &before)) return;
  int rc = add_ts(&sd, in, n, NULL, &len);
  if (!is_token) {
    if (rc != GOSTX_EFORMAT) bug("no token, yet embedded");
    return;
  }
  if (rc) bug("embed: no length");
  uint8_t *out = malloc(len);
  if (add_ts(&sd, in, n, out, &len)) bug("embed");
  if (gostx_cms_signed_parse(out, len, &again, NULL)) bug("embedded: does not parse");
  if (gostx_cms_ts_tokens(&again.signers[0], toks, lens, 4, &after) || after != before + 1)
    bug("embedded: token count");
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  as_signed(data, size, as_reply(data, size));
  return 0;
}
