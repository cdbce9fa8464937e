/* libFuzzer harness: the HTTP request parsers of the command's services,
 * the bytes a network client sends: gostx ocsp -port's
 * (cli/ocsp/ocsp_http.c, ocsp_http_parse: POST and GET, keep-alive,
 * pipelining) and gostx ts serve's (cli/ts/ts_serve.c, ts_http_parse),
 * both over cli/common/http.c's http_req_parse.
 * Each gets the input whole and cut at a point the first byte chooses (a
 * request arriving in two reads: the first must say "not whole" or
 * answer within what it saw), and what they return is checked: a request
 * and its body lie inside what was given, what was used never exceeds
 * it, a refusal carries an HTTP status, "not whole" only below the
 * bound. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/ocsp/ocsp_cli.h"
#include "../../cli/ts/ts_cli.h"

#define OCSP_CAP (64 * 1024) /* the responder's REQ_MAX */

static uint8_t dec[OCSP_CAP];

static void check_ocsp(const uint8_t *in, size_t have) {
  const uint8_t *body = NULL;
  size_t used = 0, body_len = 0;
  int keep = -1, status = 0;
  int r = ocsp_http_parse(in, have, OCSP_CAP, &used, &body, &body_len, &keep, &status, dec, sizeof dec);
  if (r == 0 && have >= OCSP_CAP) abort(); /* at the bound it must answer */
  if (r < 0 && status != 400 && status != 405 && status != 413) abort();
  if (r < 0 && keep) abort(); /* a refusal closes */
  if (r == 1) {
    if (used == 0 || used > have || (keep != 0 && keep != 1)) abort();
    int in_input = body >= in && body + body_len <= in + used;
    int decoded = body == dec && body_len <= sizeof dec;
    if (!in_input && !decoded) abort();
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < body_len; i++) sink ^= body[i]; /* every byte readable (ASan) */
    (void)sink;
  }
}

static void check_ts(const uint8_t *in, size_t have) {
  const uint8_t *query = NULL;
  const char *why = NULL;
  size_t len = 0;
  int r = ts_http_parse(in, have, &query, &len, &why);
  if (r == 1 && (query < in || len > TS_QUERY_MAX || query + len != in + have)) abort();
  if (r > 1 && (r < 400 || r > 499 || !why)) abort();
  if (r < 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t cut = size > 1 ? data[0] % size : 0;
  const uint8_t *in = data + 1;
  size_t n = size - 1;
  /* copies, so ASan sees reads past what was given */
  uint8_t *whole = malloc(n ? n : 1), *part = malloc(cut ? cut : 1);
  if (!whole || !part) abort();
  memcpy(whole, in, n);
  if (cut > n) cut = n;
  memcpy(part, in, cut);
  check_ocsp(part, cut);
  check_ocsp(whole, n);
  check_ts(part, cut);
  check_ts(whole, n);
  free(whole);
  free(part);
  return 0;
}
