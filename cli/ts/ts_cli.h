/* gostx ts's files (cli/ts/cmd_ts.c: options, -query, the texts;
 * ts_reply.c: the TSA loaded, the serial file, a query answered;
 * ts_verify.c: -verify; ts_serve.c: the TSA over HTTP). */
#ifndef GOSTX_TS_CLI_H
#define GOSTX_TS_CLI_H

#include "cert_build.h" /* cert_load_signing_key */
#include "cli.h"
#include "http.h"
#include "verify_opts.h"
#include "gostx/tsa.h"

/* The bytes a query may have (a TimeStampReq is about a hundred). */
#define TS_QUERY_MAX (16 * 1024)
/* The bytes a reply may have (a token with a chain of certificates). */
#define TS_REPLY_MAX (64 * 1024)
/* serve's HTTP request (ts_serve.c, over cli/common/http.c's parser):
 * in[0..have) holds what a connection sent. 1: a whole POST of an
 * application/timestamp-query, the query at *query, *len bytes; 0: not
 * whole yet; else the HTTP status to refuse with (400, 405, 411, 413, 415,
 * 431) and *why its text. A request is at most TS_REQUEST_MAX bytes. */
#define TS_REQUEST_MAX (HTTP_HEAD_MAX + TS_QUERY_MAX)
int ts_http_parse(const uint8_t *in, size_t have, const uint8_t **query, size_t *len, const char **why);

typedef struct ts_args {
  int op;                                   /* T_QUERY, T_REPLY, T_VERIFY */
  const char *data, *digest, *in, *out, *queryfile, *tspolicy, *policy;
  const char *inkey, *passin, *signer, *chain, *serial, *accuracy;
  cli_verify_args v;                        /* -verify: -CAfile, -untrusted (one), -attime */
  size_t digest_len;                        /* -streebog256/-streebog512; 0: not given */
  int no_nonce, cert, text, token_in, token_out, tsa_name;
  const char *port, *bind, *threads;        /* serve */
} ts_args;

/* A TSA ready to answer (ts_reply.c). */
typedef struct ts_tsa {
  gostx_gost3410_key k;
  cli_cert_list *certs;  /* [0] the signer's, then -chain's */
  gostx_tsa_params p;
  const char *serial;    /* the serial file */
} ts_tsa;

int ts_tsa_load(const ts_args *a, ts_tsa *t);
void ts_tsa_free(ts_tsa *t);
/* The next serial number from the file path (hex, the last one given, as
 * openssl ts keeps it), under an exclusive lock on path.lock, written
 * back (fsynced, renamed) before it is used: monotonic, never reused,
 * across processes and threads. 0 or CLI_EXIT_FAIL after printing. */
int ts_serial_next(const char *path, uint8_t serial[20], size_t *len);
/* The reply to query[len] into out[cap] (TS_REPLY_MAX): granted, or a
 * refusal whose PKIFailureInfo is in *fail (0 when granted). 0, or
 * CLI_EXIT_FAIL (the serial file, the signing) after printing. */
int ts_answer(const ts_tsa *t, const uint8_t *query, size_t len, uint8_t *out, size_t cap,
              size_t *out_len, uint32_t *fail);

/* Texts as openssl ts -text writes them (cmd_ts.c). */
void ts_print_query(FILE *f, const gostx_tsa_query *q);
void ts_print_reply(FILE *f, const uint8_t *der, size_t len, int token);

int ts_reply(const ts_args *a);
int ts_verify(const ts_args *a);
int ts_serve(int argc, char **argv);


#endif
