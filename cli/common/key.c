/* GOST R 34.10-2012 key files for every command that takes a key (pkey,
 * sign, verify, vko, x509, req, cms, pkcs12, tls): PEM or DER, plain or
 * encrypted (PBES2), the key of a PKCS#12 file (cli/common/pfx.c), or a
 * key on a PKCS#11 token named by a pkcs11: URI (cli/common/p11.c), read
 * into the library's key object. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* An encrypted key in buf[n] (PEM or DER): decrypted with the password of
 * pass_opt's spec; k filled. Messages name path. */
static int load_encrypted(const char *path, const uint8_t *buf, size_t n, const char *pass_opt,
                          const char *pass_spec, const uint8_t *pw, size_t pw_len,
                          gostx_gost3410_key *k) {
  char scheme[160] = "";
  int rc = gostx_gost3410_key_encryption(buf, n, scheme, sizeof scheme);
  if (rc == GOSTX_EUNSUP)
    return cli_usage("%s: unsupported encryption scheme %s (gostx reads PBES2 with PBKDF2-"
                     "HMAC-Streebog-512 or -HMAC-SHA256 and kuznyechik-ctr-acpkm, "
                     "magma-ctr-acpkm or GOST 28147-89 CFB, at most 10,000,000 iterations)",
                     path, scheme);
  if (rc) return cli_usage("%s: unsupported key: not a GOST R 34.10-2012 key of a known "
                           "parameter set, nor a well-formed encrypted one", path);
  if (!pass_spec && !pw)
    return cli_usage("%s is an encrypted private key (%s): give its password with %s", path,
                     scheme, pass_opt ? pass_opt : "gostx pkey -passin");
  uint8_t *pass = malloc(CLI_PASS_MAX + 2);
  size_t pass_len = 0;
  if (!pass) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  if (pw) {
    memcpy(pass, pw, pw_len);
    pass_len = pw_len;
    rc = 0;
  } else {
    rc = cli_read_pass_arg(pass_opt, pass_spec, pass, &pass_len);
  }
  if (!rc) {
    int lrc = gostx_gost3410_key_read(k, buf, n, pass, pass_len);
    if (lrc == GOSTX_EAUTH) {
      cli_err("%s: wrong password, or the encrypted key is damaged", path);
      rc = CLI_EXIT_FAIL;
    } else if (lrc) {
      rc = cli_usage("%s: not a GOST R 34.10-2012 encrypted key (malformed)", path);
    }
  }
  cli_free_secret(pass, CLI_PASS_MAX + 2);
  return rc;
}

static int load_key(const char *path, gostx_gost3410_key *k, const char *pass_opt, const char *pass_spec,
                    const uint8_t *pw, size_t pw_len) {
  if (pass_spec && !strcmp(path, "-") && !strcmp(pass_spec, "stdin"))
    return cli_usage("%s: the key and its password cannot both come from stdin", pass_opt);
  if (gostx_p11_is_uri(path)) return cli_p11_load_key(path, k, pass_opt, pass_spec, pw, pw_len);
  if (cli_pfx_is(path)) return cli_pfx_load(path, pass_opt, pass_spec, pw, pw_len, k, NULL);
  uint8_t *buf = malloc(CLI_KEY_FILE_MAX + 1);
  if (!buf) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  memset(k, 0, sizeof *k);
  long n = cli_read_secret_file(strcmp(path, "-") ? path : "/dev/stdin", buf, CLI_KEY_FILE_MAX + 1);
  int rc = GOSTX_EFORMAT;
  if (n < 0) {
    free(buf);
    return CLI_EXIT_FAIL;
  }
  /* The library tells DER from PEM (whose reader skips text before the
   * BEGIN line as openssl does: certtool writes a description of the key
   * there) and plain from encrypted; an encrypted key goes on to its
   * password. */
  if (n <= CLI_KEY_FILE_MAX && gostx_gost3410_key_is_encrypted(buf, (size_t)n))
    rc = GOSTX_EUNSUP;
  else if (n <= CLI_KEY_FILE_MAX)
    rc = gostx_gost3410_key_read(k, buf, (size_t)n, NULL, 0);
  if (rc == GOSTX_EUNSUP) {
    int erc = load_encrypted(path, buf, (size_t)n, pass_opt, pass_spec, pw, pw_len, k);
    cli_free_secret(buf, CLI_KEY_FILE_MAX + 1);
    return erc;
  }
  cli_free_secret(buf, CLI_KEY_FILE_MAX + 1);
  if (!rc) return 0;
  if (rc == GOSTX_EINVAL)
    cli_err("%s: invalid key: private key 0 or >= q, or public point off the curve or not of "
            "order q", path);
  else
    cli_err("%s: not a GOST R 34.10-2012 key in PEM or DER (malformed)", path);
  return CLI_EXIT_USAGE;
}

int cli_load_key_pass(const char *path, gostx_gost3410_key *k, const char *pass_opt,
                      const char *pass_spec) {
  return load_key(path, k, pass_opt, pass_spec, NULL, 0);
}

int cli_load_key_pw(const char *path, gostx_gost3410_key *k, const uint8_t *pw, size_t pw_len) {
  return load_key(path, k, "-passin", NULL, pw, pw_len);
}

int cli_load_key(const char *path, gostx_gost3410_key *k) {
  return load_key(path, k, NULL, NULL, NULL, 0);
}

int cli_key_2012(const char *what, const char *path, const gostx_gost3410_key *k) {
  if (!k->gost2001) return 0;
  return cli_usage("%s: %s is a GOST R 34.10-2001 key; %s needs GOST R 34.10-2012 (gostx makes "
                   "no 2001 signatures: they hash with GOST R 34.11-94)", what, path, what);
}

int cli_key_exportable(const char *sub, const gostx_gost3410_key *k) {
  if (!k->ops) return 0;
  cli_err("%s: the private key is on a token and cannot be exported (its public key can be)", sub);
  return CLI_EXIT_FAIL;
}
