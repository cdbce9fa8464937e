/* gostx ocsp (cli/ocsp/): what its files share. cmd_ocsp.c is the command
 * (client and options), ocsp_serve.c the responder, ocsp_http.c the
 * responder's HTTP (RFC 6960 A.1 over cli/common/http.c's parser); openssl
 * ca's index.txt is read by cli/common/ca_index.c. */
#ifndef GOSTX_CLI_OCSP_H
#define GOSTX_CLI_OCSP_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "http.h"

/* ---- HTTP (ocsp_http.c; the parser and the client: cli/common/http.c) ---- */
/* One HTTP request from the bytes a connection sent, in[0..have) (the
 * most a request may take: cap): 1 a request, its DER in body (a POST's
 * body in in, or a GET's base64 path decoded into dec[dec_cap]), *keep
 * whether the connection stays open, *used the bytes it took (the rest is
 * the next request's); 0 not whole yet; -1 a bad one (the HTTP status to
 * answer in *status: 400, 405, 413). */
int ocsp_http_parse(const uint8_t *in, size_t have, size_t cap, size_t *used, const uint8_t **body,
                    size_t *body_len, int *keep, int *status, uint8_t *dec, size_t dec_cap);
/* A reply's head into head[OCSP_HTTP_HEAD_MAX]: 200 with an
 * application/ocsp-response body of len bytes, or an error status without
 * one; Connection: keep-alive or close. Returns its length. */
#define OCSP_HTTP_HEAD_MAX 160
size_t ocsp_http_reply_head(char *head, int status, size_t len, int keep);

/* ---- the responder (ocsp_serve.c) ---- */
typedef struct ocsp_responder_opts {
  const char *index, *ca, *rsigner, *rkey, *passin, *port, *bind, *reqin, *respout;
  long nmin, ndays, nrequest, threads;
  int resp_key_id, resp_no_certs;
} ocsp_responder_opts;
int ocsp_responder(const ocsp_responder_opts *o);

/* "Nov 28 14:20:29 2026 GMT", as openssl prints times. */
void ocsp_time_text(int64_t t, char *out, size_t cap);

#endif
