/* gostx ocsp (cli/ocsp/): what its files share. cmd_ocsp.c is the command
 * (client and options), ocsp_serve.c the responder, ocsp_http.c HTTP/1.1
 * both ways; openssl ca's index.txt is read by cli/ca/index.c. */
#ifndef GOSTX_CLI_OCSP_H
#define GOSTX_CLI_OCSP_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

/* ---- HTTP (ocsp_http.c) ---- */
/* POSTs req to url (http://host[:port][/path]) as application/ocsp-request
 * and returns the body of a 200 reply (malloc'ed) in *resp; timeout in
 * seconds for the connect and each read and write. 0 or CLI_EXIT_FAIL
 * after printing why. */
int ocsp_http_post(const char *url, const uint8_t *req, size_t len, int timeout, uint8_t **resp,
                   size_t *resp_len);
/* The same with another Content-Type (a TSA's application/timestamp-query:
 * gostx cms -enhance -tsa URL). */
int ocsp_http_post_as(const char *url, const char *ctype, const uint8_t *req, size_t len,
                      int timeout, uint8_t **resp, size_t *resp_len);
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
