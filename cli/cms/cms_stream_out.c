/* A message made by lib/cms's streaming calls written to -out as it comes:
 * DER as it is, or PEM ("CMS", 64-column base64) encoded on the way, both
 * through cli_out (a temporary file renamed at the end). */
#include <string.h>

#include "cms_cli.h"

/* One line of up to 48 bytes as base64 (gostx/base64.h) and "\n". */
static int pem_line(cms_stream_out *s) {
  char line[66];
  size_t n = gostx_base64_encode(s->hold, s->held, line);
  line[n++] = '\n';
  s->held = 0;
  return cli_out_write(&s->out, line, n);
}

int cms_stream_out_open(cms_stream_out *s, const char *path, int form) {
  memset(s, 0, sizeof *s);
  s->pem = form != FORM_DER;
  int rc = cli_out_open(&s->out, path, 0);
  if (!rc && s->pem) rc = cli_out_write(&s->out, "-----BEGIN CMS-----\n", 20);
  return rc;
}

int cms_stream_write(void *ctx, const uint8_t *p, size_t len) {
  cms_stream_out *s = ctx;
  if (!s->pem) return cli_out_write(&s->out, p, len);
  for (size_t i = 0; i < len;) {
    size_t n = sizeof s->hold - s->held < len - i ? sizeof s->hold - s->held : len - i;
    memcpy(s->hold + s->held, p + i, n);
    s->held += n, i += n;
    if (s->held == sizeof s->hold && pem_line(s)) return CLI_EXIT_FAIL;
  }
  return 0;
}

int cms_stream_out_commit(cms_stream_out *s) {
  int rc = s->pem && s->held ? pem_line(s) : 0;
  if (!rc && s->pem) rc = cli_out_write(&s->out, "-----END CMS-----\n", 18);
  return rc ? rc : cli_out_commit(&s->out);
}

void cms_stream_out_close(cms_stream_out *s) { cli_out_abort(&s->out); }
