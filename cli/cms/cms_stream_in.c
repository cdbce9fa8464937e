/* -in's message as a stream for lib/cms's streaming calls: DER as it is,
 * or the first "CMS" / "PKCS7" PEM block's base64 decoded line by line
 * (strict: base64 lines between BEGIN and END, the END line required),
 * so that a message of any size is read in constant memory. */
#include <string.h>

#include "cms_cli.h"

static int bad_pem(cms_stream_in *s, const char *why) {
  cli_err("cms: %s: PEM: %s", s->in.name, why);
  s->failed = 1;
  return CMS_EXIT_VERIFY;
}

/* The next line (without its end) into s->line: 1, 0 at the input's end. */
static int next_line(cms_stream_in *s, size_t *len, int *rc) {
  *rc = 0;
  if (!fgets(s->line, sizeof s->line, s->in.f)) {
    if (ferror(s->in.f)) *rc = (cli_err("cms: %s: read error", s->in.name), CLI_EXIT_FAIL);
    return 0;
  }
  *len = strlen(s->line);
  if (*len == sizeof s->line - 1 && s->line[*len - 1] != '\n')
    return *rc = bad_pem(s, "a line longer than 1023 bytes"), 0;
  while (*len && (s->line[*len - 1] == '\n' || s->line[*len - 1] == '\r')) s->line[--*len] = 0;
  return 1;
}

/* One base64 line of the body decoded into s->dec; s->done at END. */
static int pem_line(cms_stream_in *s) {
  size_t len;
  int rc;
  if (!next_line(s, &len, &rc)) return rc ? rc : bad_pem(s, "no END line (truncated)");
  if (!strncmp(s->line, "-----END ", 9)) {
    /* the END line whole and of the BEGIN line's label, as the one-shot reader wants */
    if (strcmp(s->line + 9, s->pkcs7 ? "PKCS7-----" : "CMS-----")) return bad_pem(s, "a malformed END line");
    if (s->b64.nbits) return bad_pem(s, "base64 that ends mid-byte");
    s->done = 1;
    return 0;
  }
  s->dpos = 0;
  if (gostx_base64_decode(&s->b64, s->line, len, s->dec, &s->dlen)) return bad_pem(s, "not base64");
  return 0;
}

int cms_stream_open(cms_stream_in *s, const char *path, int form) {
  memset(s, 0, sizeof *s);
  int rc = cli_in_open(&s->in, path);
  if (rc) return rc;
  int c = form == FORM_DER ? 0x30 : getc(s->in.f);
  if (form != FORM_DER && c != EOF) ungetc(c, s->in.f);
  if (form == FORM_DER || (form == FORM_AUTO && c == 0x30)) return 0;
  s->pem = 1;
  for (size_t len;;) { /* up to the BEGIN line */
    if (!next_line(s, &len, &rc)) {
      cli_in_close(&s->in);
      return rc ? rc : (cli_err("cms: %s: no CMS or PKCS7 PEM block", s->in.name), CMS_EXIT_VERIFY);
    }
    s->pkcs7 = !strcmp(s->line, "-----BEGIN PKCS7-----");
    if (s->pkcs7 || !strcmp(s->line, "-----BEGIN CMS-----")) return 0;
  }
}

int cms_stream_read(void *ctx, uint8_t *buf, size_t cap, size_t *got) {
  cms_stream_in *s = ctx;
  *got = 0;
  if (s->failed) return CMS_EXIT_VERIFY;
  if (!s->pem) return cli_in_read(&s->in, buf, cap, got) ? (s->failed = 1, CLI_EXIT_FAIL) : 0;
  while (*got < cap && !s->done) {
    if (s->dpos == s->dlen) {
      int rc = pem_line(s);
      if (rc) return rc;
      continue;
    }
    size_t n = s->dlen - s->dpos < cap - *got ? s->dlen - s->dpos : cap - *got;
    memcpy(buf + *got, s->dec + s->dpos, n);
    s->dpos += n, *got += n;
  }
  return 0;
}

void cms_stream_close(cms_stream_in *s) { cli_in_close(&s->in); }
