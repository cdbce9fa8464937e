/* gostx xml's big documents: the input is read up to the library's cap
 * (GOSTX_XMLDSIG_MAX_SIZE); past it, or with -stream, an enveloping
 * signature is signed and verified by the streaming functions of
 * libgostx-xmldsig, the input read through as they go (what was read first
 * served first), the output written to a temporary file put in place only
 * when the whole run succeeded. docs/XMLDSIG.md, "Big documents". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xml_stream.h"

int xml_input_open(xml_input *x, const char *path, int stream) {
  memset(x, 0, sizeof *x);
  int rc = cli_in_open(&x->in, path);
  if (rc) return rc;
  if (stream) return x->big = 1, 0; /* -stream: nothing held, whatever the size */
  struct stat st;
  if (!x->in.is_stdin && !fstat(fileno(x->in.f), &st) && S_ISREG(st.st_mode) &&
      (uint64_t)st.st_size > GOSTX_XMLDSIG_MAX_SIZE)
    return x->big = 1, 0; /* streamed from its start */
  const size_t cap = (size_t)GOSTX_XMLDSIG_MAX_SIZE + 1;
  x->head = malloc(cap);
  if (!x->head) return cli_err("out of memory"), CLI_EXIT_FAIL;
  if ((rc = cli_in_read(&x->in, x->head, cap, &x->len))) return rc;
  x->big = x->len == cap;
  return 0;
}

void xml_input_close(xml_input *x) {
  free(x->head);
  x->head = NULL;
  if (x->in.f) cli_in_close(&x->in);
}

static long in_read(void *ctx, uint8_t *buf, size_t cap) {
  xml_input *x = ctx;
  if (x->off < x->len) {
    size_t n = x->len - x->off < cap ? x->len - x->off : cap;
    memcpy(buf, x->head + x->off, n);
    x->off += n;
    if (x->off == x->len) free(x->head), x->head = NULL, x->off = x->len = 0;
    return (long)n;
  }
  size_t got = 0;
  if (!x->big) return 0; /* all of it was in head */
  int e = cli_in_try_read(&x->in, buf, cap, &got);
  if (e) cli_err("%s: read error: %s", x->in.name, strerror(e));
  return e ? -1 : (long)got;
}

/* The output: the temporary file of cli_out, or for stdout and pipes a
 * spool file copied out at the end. */
typedef struct {
  cli_out out;
  FILE *f; /* where the writes go */
} sink;

static int out_write(void *ctx, const uint8_t *p, size_t n) {
  sink *s = ctx;
  return n && fwrite(p, 1, n, s->f) != n ? -1 : 0;
}

static int out_rewrite(void *ctx, const uint8_t *p, size_t n) {
  sink *s = ctx;
  return fflush(s->f) || pwrite(fileno(s->f), p, n, 0) != (ssize_t)n ? -1 : 0;
}

static int sink_open(sink *s, const char *path) {
  memset(s, 0, sizeof *s);
  int rc = cli_out_open(&s->out, path, 0);
  if (rc) return rc;
  s->f = s->out.direct ? tmpfile() : s->out.f;
  if (!s->f) cli_err("a temporary file: %s", strerror(errno)), cli_out_abort(&s->out);
  return s->f ? 0 : CLI_EXIT_FAIL;
}

/* ok: the spool copied out and the file put in place; else all discarded. */
static int sink_close(sink *s, int ok) {
  int rc = ok ? 0 : CLI_EXIT_FAIL;
  if (ok && s->f != s->out.f) {
    uint8_t b[1 << 16];
    size_t n;
    rewind(s->f);
    while (!rc && (n = fread(b, 1, sizeof b, s->f)) > 0) rc = cli_out_write(&s->out, b, n);
    if (!rc && ferror(s->f)) rc = (cli_err("a temporary file: read error"), CLI_EXIT_FAIL);
  }
  if (s->f != s->out.f) fclose(s->f);
  if (!rc) return cli_out_commit(&s->out);
  cli_out_abort(&s->out);
  return rc;
}

int xml_sign_stream(xml_input *x, const char *in_name, const char *out,
                    const gostx_xmldsig_sign_opts *o, const gostx_gost3410_key *key) {
  sink s;
  int rc = sink_open(&s, out);
  if (rc) return rc;
  gostx_xmldsig_io io = {in_read, x, out_write, out_rewrite, &s};
  char err[300];
  gostx_xmldsig_status st = gostx_xmldsig_sign_stream(&io, o, key, err, sizeof err);
  if (st) cli_err("xml sign: %s: %s: %s", in_name, gostx_xmldsig_status_name(st), err);
  return sink_close(&s, !st);
}

int xml_verify_stream(xml_input *x, const char *signed_out, const gostx_x509_store *store,
                      const gostx_x509_verify_opts *opts, const cli_cert_list *untrusted,
                      gostx_xmldsig_status *st, gostx_xmldsig_result *res) {
  sink s;
  int rc = sink_open(&s, signed_out);
  if (rc) return rc;
  gostx_xmldsig_io io = {in_read, x, out_write, NULL, &s};
  *st = gostx_xmldsig_verify_stream(&io, store, opts, untrusted->c, untrusted->n, res);
  rc = sink_close(&s, *st == GOSTX_XMLDSIG_OK);
  return *st ? 0 : rc; /* a refusal: the caller names it */
}
