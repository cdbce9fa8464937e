/* gostx xml's big documents (xml_stream.c): the input read up to the
 * library's in-memory cap, and the streaming sign and verify over the rest. */
#ifndef GOSTX_CLI_XML_STREAM_H
#define GOSTX_CLI_XML_STREAM_H

#include "cli.h"
#include "xmldsig.h"

typedef struct xml_input {
  cli_in in;
  uint8_t *head; /* what was read (malloc'd), served first when streaming */
  size_t len, off;
  int big;       /* over GOSTX_XMLDSIG_MAX_SIZE (or -stream): the rest is still in in */
} xml_input;

/* path's first GOSTX_XMLDSIG_MAX_SIZE + 1 bytes (none of a regular file
 * known to be bigger, none with stream): 0, or a CLI_EXIT_* code after
 * printing. */
int xml_input_open(xml_input *x, const char *path, int stream);
void xml_input_close(xml_input *x);

/* gostx_xmldsig_sign_stream of x into out (a temporary file renamed over
 * it on success only; stdout or a pipe get a spooled copy). */
int xml_sign_stream(xml_input *x, const char *in_name, const char *out,
                    const gostx_xmldsig_sign_opts *o, const gostx_gost3410_key *key);
/* gostx_xmldsig_verify_stream of x; what was signed to signed_out (or
 * stdout) only when it verifies. *res for the caller's messages. */
int xml_verify_stream(xml_input *x, const char *signed_out, const gostx_x509_store *store,
                      const gostx_x509_verify_opts *opts, const cli_cert_list *untrusted,
                      gostx_xmldsig_status *st, gostx_xmldsig_result *res);

#endif
