/* Keys on PKCS#11 tokens wherever a command takes a key or its certificate
 * (cli_load_key*, cli_certs_read): an argument that starts "pkcs11:" is an
 * RFC 7512 URI, opened through lib/pkcs11 (docs/PKCS11.md). Each URI is
 * opened once per process, so a command that takes a key and its
 * certificate from one token asks for the PIN once.
 *
 * The PIN, first found: the URI's pin-source (read by the library), the
 * command's password option (-passin env:VAR, file:PATH, fd:N, ...), the
 * environment variable GOSTX_PKCS11_PIN, a prompt on the terminal. Never
 * the URI's pin-value: a command line is visible to every user (ps). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* How the PIN is asked for, for the callback. */
typedef struct pin_ask {
  const char *pass_opt, *pass_spec;
  const uint8_t *pw;
  size_t pw_len;
} pin_ask;

/* Whether this process has a terminal to ask on (a daemon, a pipeline under
 * cron have none). */
static int have_tty(void) {
  int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return 0;
  close(fd);
  return 1;
}

static int pin_cb(void *arg, const char *label, unsigned long flags, uint8_t *pin, size_t cap,
                  size_t *len) {
  const pin_ask *a = arg;
  uint8_t buf[CLI_PASS_MAX + 2];
  size_t n = 0;
  int rc;
  const char *env = getenv("GOSTX_PKCS11_PIN");
  if (a->pw) {
    n = a->pw_len <= sizeof buf ? a->pw_len : sizeof buf;
    memcpy(buf, a->pw, n);
    rc = 0;
  } else if (a->pass_spec) {
    rc = cli_read_pass_arg(a->pass_opt, a->pass_spec, buf, &n);
  } else if (env && env[0]) {
    n = strlen(env);
    rc = n < sizeof buf ? (memcpy(buf, env, n), 0) : 1;
  } else if (!have_tty()) {
    rc = 1; /* no terminal: the library says a PIN was needed */
  } else {
    char prompt[96];
    /* The token's own warning before the last tries (CK_TOKEN_INFO flags). */
    if (flags & GOSTX_P11_USER_PIN_FINAL_TRY)
      cli_err("warning: token '%s': one more wrong PIN locks it", label);
    else if (flags & GOSTX_P11_USER_PIN_COUNT_LOW)
      cli_err("warning: token '%s' has counted wrong PINs: few tries are left", label);
    snprintf(prompt, sizeof prompt, "PIN for token '%.40s': ", label);
    rc = cli_read_pass(NULL, prompt, 0, buf, &n);
  }
  if (!rc && (n == 0 || n > cap)) rc = 1;
  if (!rc) {
    memcpy(pin, buf, n);
    *len = n;
  }
  gostx_memzero(buf, sizeof buf);
  return rc;
}

/* The URIs opened so far, for the life of the command (their keys are
 * used through callbacks until it ends: never freed). */
typedef struct opened {
  char *uri;
  gostx_p11_key *key;
  struct opened *next;
} opened;
static opened *open_list;

/* The key of uri, opened once: 0, or a CLI exit code after one line. */
static int p11_open(const char *uri, const pin_ask *ask, gostx_p11_key **out) {
  for (opened *o = open_list; o; o = o->next)
    if (!strcmp(o->uri, uri)) { /* again (a server's reload): still there? */
      if (gostx_p11_key_check(o->key)) {
        char msg[512];
        gostx_p11_error(msg, sizeof msg);
        cli_err("%s", msg);
        return CLI_EXIT_FAIL;
      }
      *out = o->key;
      return 0;
    }
  gostx_p11_uri *u = malloc(sizeof *u);
  char why[256];
  if (!u) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  int rc = gostx_p11_uri_parse(u, uri, why, sizeof why);
  unsigned has = u->has;
  gostx_p11_uri_clear(u);
  free(u);
  if (rc) return cli_usage("%s: bad PKCS#11 URI: %s", uri, why);
  if (has & GOSTX_P11_HAS_PIN_VALUE)
    return cli_usage("the PKCS#11 URI has pin-value=: a command line is visible to other users "
                     "(ps, /proc/PID/cmdline), so gostx does not take a PIN there; use "
                     "pin-source=/path/to/pin-file in the URI, the command's -passin "
                     "(file:, env:, fd:), GOSTX_PKCS11_PIN, or type it at the prompt");
  opened *o = calloc(1, sizeof *o);
  if (!o || !(o->uri = strdup(uri))) {
    free(o);
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  rc = gostx_p11_key_open(&o->key, uri, pin_cb, (void *)ask);
  if (rc) {
    char msg[512];
    gostx_p11_status st = gostx_p11_error(msg, sizeof msg);
    free(o->uri);
    free(o);
    cli_err("%s%s", msg, st == GOSTX_P11_PIN_NEEDED ? " (give it with pin-source= in the URI, "
                                                     "the command's -passin, or GOSTX_PKCS11_PIN)"
                                                   : "");
    return st == GOSTX_P11_BAD_URI || st == GOSTX_P11_UNSUPPORTED ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
  }
  o->next = open_list;
  open_list = o;
  *out = o->key;
  return 0;
}

/* The token's own error, said once where it happens: the command's message
 * after it ("signing failed") cannot know it. */
static int said(int rc) {
  if (rc) {
    char msg[512];
    gostx_p11_error(msg, sizeof msg);
    cli_err("%s", msg);
  }
  return rc;
}
static int ops_sign(void *ctx, const uint8_t *digest, size_t digest_len, uint8_t *sig,
                    size_t sig_len) {
  return said(gostx_p11_key_sign(ctx, digest, digest_len, sig, sig_len));
}
static int ops_vko(void *ctx, const uint8_t *peer_pub, size_t pub_len, const uint8_t *ukm,
                   size_t ukm_len, uint8_t *out, size_t out_len) {
  return said(gostx_p11_key_vko(ctx, peer_pub, pub_len, ukm, ukm_len, out, out_len));
}
static const gostx_gost3410_key_ops cli_p11_ops = {ops_sign, ops_vko};

int cli_p11_load_key(const char *uri, gostx_gost3410_key *k, const char *pass_opt,
                     const char *pass_spec, const uint8_t *pw, size_t pw_len) {
  pin_ask ask = {pass_opt ? pass_opt : "-passin", pass_spec, pw, pw_len};
  gostx_p11_key *pk = NULL;
  int rc = p11_open(uri, &ask, &pk);
  if (rc) return rc;
  gostx_gost3410_key pub;
  memset(k, 0, sizeof *k);
  if (gostx_p11_key_public(pk, &pub) ||
      gostx_gost3410_key_set_external(k, pub.curve, pub.q, 2 * pub.len, pub.oid, &cli_p11_ops, pk)) {
    cli_err("%s: the token's public key is not a valid point", uri);
    return CLI_EXIT_FAIL;
  }
  k->gost2001 = pub.gost2001; /* pkey -pubout writes it as one; signers refuse it */
  return 0;
}

int cli_p11_cert(const char *uri, uint8_t **der, size_t *len) {
  char why[256];
  gostx_p11_uri *u = malloc(sizeof *u);
  if (!u) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  int rc = gostx_p11_uri_parse(u, uri, why, sizeof why);
  gostx_p11_uri_clear(u);
  free(u);
  if (rc) return cli_usage("%s: bad PKCS#11 URI: %s", uri, why);
  /* A certificate is read without a login: no PIN is asked for it. */
  if (gostx_p11_cert_read(uri, der, len)) {
    char msg[512];
    gostx_p11_status st = gostx_p11_error(msg, sizeof msg);
    cli_err("%s", msg);
    return st == GOSTX_P11_BAD_URI ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
  }
  return 0;
}
