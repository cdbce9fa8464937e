/* libFuzzer harness: lib/cms's CAdES-T (timestamp.c). The input is read
 * as a TSA's reply or token: what is accepted must point inside the input
 * and is checked as a timestamp of the input's first bytes without a trust
 * store (no crash, a verdict named). The input is also read as a
 * SignedData: its signers' timestamp tokens are listed, and a token
 * embedded in signer 0 must give a SignedData that parses again with one
 * token more. Nothing may crash or read out of bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"

static void bug(const char *what) {
  fprintf(stderr, "fuzz_cms_ts: %s\n", what);
  abort();
}

static void inside(const uint8_t *p, size_t n, const uint8_t *in, size_t in_len) {
  if (p && (p < in || n > in_len || p - in > (ptrdiff_t)(in_len - n))) bug("a view outside the input");
}

static void as_reply(const uint8_t *in, size_t n) {
  static gostx_cms_ts_token t;
  gostx_cms_ts_status st;
  gostx_cms_ts_verdict v;
  if (gostx_cms_ts_parse(in, n, &t, &st)) {
    if (st == GOSTX_CMS_TS_OK) bug("refused without a status");
    return;
  }
  inside(t.token, t.token_len, in, n);
  inside(t.imprint, t.imprint_len, in, n);
  inside(t.serial, t.serial_len, in, n);
  inside(t.policy, t.policy_len, in, n);
  if (gostx_cms_ts_verify(&t, in, n < 64 ? n : 64, NULL, &v) && v.status == GOSTX_CMS_TS_OK)
    bug("refused without a verdict");
}

/* A token (a minimal ContentInfo-shaped element) into signer 0. */
static void as_signed(const uint8_t *in, size_t n) {
  static const uint8_t token[] = {0x30, 0x03, 0x02, 0x01, 0x05};
  static gostx_cms_signed sd, again;
  const uint8_t *toks[4];
  size_t lens[4], before, after, len;
  if (gostx_cms_signed_parse(in, n, &sd, NULL)) return;
  if (gostx_cms_ts_tokens(&sd.signers[0], toks, lens, 4, &before)) return;
  if (gostx_cms_ts_embed(&sd, 0, token, sizeof token, NULL, 0, &len)) bug("embed: no length");
  uint8_t *out = malloc(len);
  if (gostx_cms_ts_embed(&sd, 0, token, sizeof token, out, len, &len)) bug("embed");
  if (gostx_cms_signed_parse(out, len, &again, NULL)) bug("embedded: does not parse");
  if (gostx_cms_ts_tokens(&again.signers[0], toks, lens, 4, &after) || after != before + 1)
    bug("embedded: token count");
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  as_reply(data, size);
  as_signed(data, size);
  return 0;
}
