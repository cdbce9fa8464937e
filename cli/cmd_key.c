/* gostx key import: the key of a CryptoPro CSP file container (a folder
 * xxxxxxxx.000) or of a ViPNet CSP file container (one file) written out as
 * a PKCS#8 key file, a PFX or into a token (include/gostx/keycont.h,
 * docs/KEYS.md). The container is only read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"

enum { O_OUT = 1, O_PASSIN, O_PASSOUT, O_NOCRYPT, O_PFX, O_CERTOUT, O_ITER, O_P11, O_PIN, O_LABEL,
       O_ID, O_HELP, O_KEYSPEC };

static const cli_opt opts[] = {
    {"out", 'o', CLI_PATH, O_OUT},       {"passin", 0, CLI_ARG, O_PASSIN},
    {"passout", 0, CLI_ARG, O_PASSOUT},  {"nocrypt", 0, CLI_NOARG, O_NOCRYPT},
    {"noenc", 0, CLI_NOARG, O_NOCRYPT},  {"pfx", 0, CLI_NOARG, O_PFX},
    {"certout", 0, CLI_PATH, O_CERTOUT}, {"iter", 0, CLI_ARG, O_ITER},
    {"p11", 0, CLI_ARG, O_P11},          {"pin", 0, CLI_ARG, O_PIN},
    {"label", 0, CLI_ARG, O_LABEL},      {"id", 0, CLI_ARG, O_ID},
    {"help", 'h', CLI_NOARG, O_HELP},    {"keyspec", 0, CLI_ARG, O_KEYSPEC},
    {NULL, 0, 0, 0},
};

typedef struct args {
  const char *action, *dir, *out, *passin, *passout, *certout, *p11, *pin, *label, *id, *keyspec;
  uint64_t iter;
  int nocrypt, pfx;
} args;

static void help(void) {
  printf(
      "Usage: gostx key import DIR|FILE -out FILE [-passin ARG] [-passout ARG|-nocrypt]\n"
      "                        [-pfx] [-certout CERT.pem] [-iter N]\n"
      "                        [-keyspec exchange|signature]\n"
      "       gostx key import DIR|FILE -p11 TOKEN [-passin ARG] [-pin ARG] [--label L] [--id HEX]\n\n"
      "Reads the CryptoPro CSP file container DIR (header.key, masks.key,\n"
      "primary.key; name.key, masks2.key and primary2.key when there), or the ViPNet\n"
      "CSP file container FILE (its first entry; read from a public description\n"
      "only, docs/KEYS.md), under its PIN\n"
      "(-passin; an empty PIN is pass:) and writes its key as a PKCS#8 PEM file,\n"
      "encrypted under -passout (PBES2 Kuznyechik-CTR-ACPKM, -iter N PBKDF2\n"
      "iterations, default 2048) or plain with -nocrypt; -pfx writes a PFX of the key\n"
      "and the container's certificate instead (under -passout). -certout writes the\n"
      "container's certificate (PEM). The key is written only when the public key\n"
      "derived from the container is the one the container records and, when the\n"
      "container holds a certificate, the certificate's: a mismatch is refused (a\n"
      "ViPNet entry with neither is refused).\n"
      "A container may hold two keys (an exchange and a signature key): the\n"
      "primary one is read unless -keyspec names the other; both are listed\n"
      "(CryptoPro only).\n"
      "The container is never written to; the output is 0600, written to a temporary\n"
      "file and renamed (nothing is written on failure). A GOST R 34.10-2001 key is\n"
      "written as one (algorithm id-GostR3410-2001, as gost-engine writes it); -p11\n"
      "refuses it.\n"
      "-p11 TOKEN writes the key (and the container's certificate) into a token of\n"
      "gostx's PKCS#11 module instead (TOKEN: its label or a pkcs11:token=... URI; the\n"
      "module as `gostx p11` finds it), under the token's user PIN (-pin, else asked):\n"
      "the private key sensitive and not extractable, one CKA_ID (--id, else derived)\n"
      "on the key, its public key and the certificate, labelled --label (default: the\n"
      "container's name). The same public key check gates it.\n\n"
      "Exit 1: a wrong PIN, a key that is not its certificate's, I/O; exit 2: a\n"
      "damaged file (named), an unsupported algorithm or layout, usage.\n\n"
      "PIN and passwords: pass:PASSWORD or env:VAR (the whole value), file:PATH,\n"
      "fd:N or stdin (the first line); without -passin the PIN is asked on the\n"
      "terminal, without -passout the password.\n" CLI_ARGV_SECRET_NOTE(
          "pass:PASSWORD", "file:, fd: and env:"));
}

static int parse_args(int argc, char **argv, args *a) {
  cli_parser p;
  int id, rc = 0;
  memset(a, 0, sizeof *a);
  a->iter = 2048;
  cli_parser_init_openssl(&p, "key", argc, argv, opts);
  while (!rc && (id = cli_next(&p, opts)) != CLI_END) {
    switch (id) {
      case O_OUT: a->out = p.arg; break;
      case O_PASSIN: a->passin = p.arg; break;
      case O_PASSOUT: a->passout = p.arg; break;
      case O_NOCRYPT: a->nocrypt = 1; break;
      case O_PFX: a->pfx = 1; break;
      case O_CERTOUT: a->certout = p.arg; break;
      case O_ITER: rc = cli_uint("-iter", p.arg, 1, 10000000, &a->iter); break;
      case O_P11: a->p11 = p.arg; break;
      case O_PIN: a->pin = p.arg; break;
      case O_LABEL: a->label = p.arg; break;
      case O_ID: a->id = p.arg; break;
      case O_KEYSPEC: a->keyspec = p.arg; break;
      case O_HELP: help(); return -1;
      case CLI_POS:
        if (!a->action) a->action = p.pos;
        else if (!a->dir) a->dir = p.pos;
        else return cli_usage("key: unexpected argument '%s'", p.pos);
        break;
      default: return CLI_EXIT_USAGE;
    }
  }
  if (rc) return rc;
  if (!a->action || strcmp(a->action, "import"))
    return cli_usage("key: the action must be import (try gostx key --help)");
  if (!a->dir) return cli_usage("key import: missing the container (folder DIR or file FILE)");
  if (a->p11 && (a->out || a->passout || a->nocrypt || a->pfx))
    return cli_usage("key import: -p11 writes into the token: no -out, -passout, -nocrypt or -pfx");
  if (!a->p11 && (a->pin || a->label || a->id))
    return cli_usage("key import: -pin, --label and --id go with -p11");
  if (!a->out && !a->p11) return cli_usage("key import: missing -out FILE (or -p11 TOKEN)");
  if (a->nocrypt && (a->passout || a->pfx))
    return cli_usage("key import: -nocrypt takes no -passout or -pfx");
  if (a->keyspec && strcmp(a->keyspec, "exchange") && strcmp(a->keyspec, "signature"))
    return cli_usage("key import: -keyspec takes exchange or signature");
  return 0;
}

/* The container's files: bytes and paths (for messages and the same-file check). */
#define NFILES 6
static const gostx_cpro_file WHICH[NFILES] = {GOSTX_CPRO_HEADER,  GOSTX_CPRO_NAME,
                                               GOSTX_CPRO_PRIMARY, GOSTX_CPRO_MASKS,
                                               GOSTX_CPRO_PRIMARY2, GOSTX_CPRO_MASKS2};
typedef struct files {
  char path[NFILES][4096];
  uint8_t *buf[NFILES];
  size_t len[NFILES];
} files;

/* A container file is small: more than this is not one. */
#define FILE_MAX (1u << 20)

static int read_files(const char *dir, files *f, gostx_cpro_files *cf) {
  struct stat st;
  if (stat(dir, &st) || !S_ISDIR(st.st_mode))
    return cli_usage("key import: %s is not a container folder or file", dir);
  for (int i = 0; i < NFILES; i++) {
    const char *name = gostx_cpro_file_name(WHICH[i]);
    if ((size_t)snprintf(f->path[i], sizeof f->path[i], "%s/%s", dir, name) >= sizeof f->path[i])
      return cli_usage("key import: the folder's path is too long");
    int optional = WHICH[i] == GOSTX_CPRO_NAME || WHICH[i] == GOSTX_CPRO_PRIMARY2 ||
                   WHICH[i] == GOSTX_CPRO_MASKS2;
    if (stat(f->path[i], &st) && errno == ENOENT) {
      if (optional) continue;
      cli_err("key import: %s: no %s: not a CryptoPro container folder", dir, name);
      return CLI_EXIT_USAGE;
    }
    cli_file how = {NULL, FILE_MAX, 1};
    int rc = cli_read_file(f->path[i], &how, &f->buf[i], &f->len[i]);
    if (rc) return rc;
  }
  cf->header = f->buf[0], cf->header_len = f->len[0];
  cf->name = f->buf[1], cf->name_len = f->len[1];
  cf->primary = f->buf[2], cf->primary_len = f->len[2];
  cf->masks = f->buf[3], cf->masks_len = f->len[3];
  cf->primary2 = f->buf[4], cf->primary2_len = f->len[4];
  cf->masks2 = f->buf[5], cf->masks2_len = f->len[5];
  return 0;
}

/* A ViPNet container: the file's bytes into f->buf[0]; its name (the
 * container's, as ViPNet names the file) into c->name when it is plain. */
static int read_vipnet(const char *path, files *f) {
  if (strlen(path) >= sizeof f->path[0]) return cli_usage("key import: the file's path is too long");
  strcpy(f->path[0], path);
  cli_file how = {NULL, FILE_MAX, 1};
  return cli_read_file(path, &how, &f->buf[0], &f->len[0]);
}

static void vipnet_name(const char *path, gostx_keycont *c) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  size_t n = strlen(b);
  for (size_t i = 0; i < n; i++)
    if (b[i] < 0x20 || b[i] > 0x7e) return;
  if (n < sizeof c->name) memcpy(c->name, b, n + 1);
}

/* The library's refusal as one line and an exit status. */
static int read_error(const char *dir, int rc, const gostx_keycont *c) {
  cli_err("key import: %s: %s", dir, c->detail[0] ? c->detail : gostx_strerror(rc));
  switch (c->why) {
    case GOSTX_KEYCONT_WRONG_PIN:
    case GOSTX_KEYCONT_CERT_MISMATCH:
    case GOSTX_KEYCONT_KEY_MISMATCH: return CLI_EXIT_FAIL;
    default: return CLI_EXIT_USAGE;
  }
}

static const char *usage_name(gostx_keycont_usage u) {
  return u == GOSTX_KEYCONT_EXCHANGE ? "exchange" : "signature";
}

/* The key -keyspec asks for (the primary key without it): the other key
 * read when the primary is not the one asked for. */
static int read_chosen(const args *a, const gostx_cpro_files *cf, const uint8_t *pin,
                       size_t pin_len, gostx_keycont *c) {
  int lrc = gostx_cpro_read(cf, pin, pin_len, c);
  if (lrc) return read_error(a->dir, lrc, c);
  if (!a->keyspec || !strcmp(a->keyspec, usage_name(c->usage))) return 0;
  if (c->has_second_key == 1 && !strcmp(a->keyspec, usage_name(c->other_usage))) {
    gostx_keycont_clear(c);
    lrc = gostx_cpro_read_key(cf, pin, pin_len, 1, c);
    return lrc ? read_error(a->dir, lrc, c) : 0;
  }
  cli_err("key import: %s: the container holds no %s key (its key is a%s %s key)", a->dir,
          a->keyspec, c->usage == GOSTX_KEYCONT_EXCHANGE ? "n" : "", usage_name(c->usage));
  gostx_keycont_clear(c);
  return CLI_EXIT_USAGE;
}

static void describe(const char *dir, const gostx_keycont *c) {
  if (c->usage == GOSTX_KEYCONT_USAGE_UNKNOWN) /* ViPNet */
    fprintf(stderr, "key import: %s: ViPNet container \"%s\", GOST R 34.10-%s key (%zu bits, %s), "
                    "it matches the public key or certificate the container records\n",
            dir, c->name, c->gost2001 ? "2001" : "2012", 8 * c->key.len, c->key.oid);
  else
    fprintf(stderr, "key import: %s: container \"%s\", %s %s key, GOST R 34.10-%s (%zu bits, %s)%s\n",
          dir, c->name, c->key_index ? "secondary" : "primary", usage_name(c->usage),
          c->gost2001 ? "2001" : "2012", 8 * c->key.len, c->key.oid,
          c->exportable ? "" : ", marked not exportable");
  gostx_x509_cert x;
  char subject[256];
  if (c->cert && !gostx_x509_parse(c->cert, c->cert_len, &x, NULL) &&
      !gostx_x509_name_text(x.subject, x.subject_len, subject, sizeof subject))
    fprintf(stderr, "key import: the certificate's subject: %s (its key matches)\n", subject);
  if (c->reserve_checked < 0)
    fprintf(stderr, "key import: warning: the reserve copy (primary2.key, masks2.key) is "
                    "damaged; the key was read from primary.key\n");
  if (c->has_second_key == 1)
    fprintf(stderr, "key import: the container's %s key too: %s (-keyspec %s reads it)\n",
            c->key_index ? "primary" : "secondary", usage_name(c->other_usage),
            usage_name(c->other_usage));
  else if (c->has_second_key)
    fprintf(stderr, "key import: warning: the container holds a second %s, which is not "
                    "read (docs/KEYS.md)\n", c->usage ? "key" : "entry");
}

static int write_cert(const char *path, const gostx_keycont *c) {
  size_t n = 0;
  (void)gostx_x509_to_pem("CERTIFICATE", c->cert, c->cert_len, NULL, 0, &n);
  char *pem = malloc(n + 1);
  int rc = pem ? 0 : CLI_EXIT_FAIL;
  if (!rc && gostx_x509_to_pem("CERTIFICATE", c->cert, c->cert_len, pem, n + 1, &n)) rc = CLI_EXIT_FAIL;
  if (rc) cli_err("key import: writing the certificate failed");
  if (!rc) rc = cli_write_file(path, pem, n, 0);
  free(pem);
  return rc;
}

static int write_out(const args *a, const gostx_keycont *c) {
  uint8_t pass[CLI_PASS_MAX + 2], *out = NULL;
  size_t pass_len = 0, need = 0, n = 0;
  int rc = 0;
  if (!a->nocrypt)
    rc = a->passout ? cli_pfx_pass("-passout", a->passout, pass, &pass_len)
                    : cli_read_pass(NULL, "Enter the new password: ", 1, pass, &pass_len);
  if (!rc && a->pfx) {
    const uint8_t *certs[1] = {c->cert};
    gostx_pkcs12_params p = {GOSTX_PKCS12_PBE_GOST89, GOSTX_PKCS12_PBE_GOST89, (uint32_t)a->iter,
                             c->name[0] ? c->name : NULL, pass, pass_len};
    if (gostx_pkcs12_write(&c->key, certs, &c->cert_len, 1, &p, NULL, 0, &need) ||
        !(out = malloc(need)) || gostx_pkcs12_write(&c->key, certs, &c->cert_len, 1, &p, out, need, &n)) {
      cli_err("key import: cannot make the PFX");
      rc = CLI_EXIT_FAIL;
    }
  } else if (!rc) {
    const gostx_gost3410_pbe_params pbe = {GOSTX_GOST3410_PBE_KUZNYECHIK, (uint32_t)a->iter, pass,
                                           pass_len};
    need = GOSTX_GOST3410_PEM_MAX;
    if (!(out = malloc(need)) ||
        gostx_gost3410_key_write(&c->key, GOSTX_GOST3410_KEY_PRIVATE, GOSTX_GOST3410_PEM,
                                 a->nocrypt ? NULL : &pbe, out, need, &n)) {
      cli_err("key import: writing the key failed");
      rc = CLI_EXIT_FAIL;
    }
  }
  if (!rc) rc = cli_write_file(a->out, out, n, CLI_OUT_PRIVATE);
  gostx_memzero(pass, sizeof pass);
  if (out) cli_free_secret(out, need);
  return rc;
}

static int import(const args *a) {
  files f;
  gostx_cpro_files cf;
  gostx_keycont c;
  uint8_t pin[CLI_PASS_MAX + 2];
  size_t pin_len = 0;
  memset(&f, 0, sizeof f);
  memset(&cf, 0, sizeof cf);
  memset(&c, 0, sizeof c);
  struct stat st;
  int vipnet = !stat(a->dir, &st) && S_ISREG(st.st_mode); /* CryptoPro's is a folder */
  int rc = vipnet ? read_vipnet(a->dir, &f) : read_files(a->dir, &f, &cf);
  if (!rc && vipnet && a->keyspec) {
    cli_err("key import: %s: -keyspec is for CryptoPro containers (a ViPNet entry says no usage)",
            a->dir);
    rc = CLI_EXIT_USAGE;
  }
  if (!rc) {
    cli_input ins[NFILES];
    size_t n = 0;
    for (int i = 0; i < NFILES; i++)
      if (f.buf[i]) {
        ins[n].path = f.path[i];
        ins[n++].what = vipnet ? "the container" : gostx_cpro_file_name(WHICH[i]);
      }
    if (a->out) rc = cli_refuse_same_file("key import", a->out, ins, n);
    if (!rc && a->certout) rc = cli_refuse_same_file("key import", a->certout, ins, n);
  }
  if (!rc)
    rc = a->passin ? cli_pfx_pass("-passin", a->passin, pin, &pin_len)
                   : cli_read_pass(NULL, "Enter the container's PIN: ", 0, pin, &pin_len);
  if (!rc && vipnet) {
    int lrc = gostx_vipnet_read(f.buf[0], f.len[0], pin, pin_len, &c);
    if (lrc) rc = read_error(a->dir, lrc, &c);
    else vipnet_name(a->dir, &c);
  } else if (!rc) {
    rc = read_chosen(a, &cf, pin, pin_len, &c);
  }
  gostx_memzero(pin, sizeof pin);
  if (!rc) describe(a->dir, &c);
  /* key files and PFX name 2001's algorithm (c.key.gost2001); the token
   * has no 2001 key type of its own (docs/KEYS.md) */
  if (!rc && c.gost2001 && a->p11) {
    cli_err("key import: %s: a GOST R 34.10-2001 key: gostx's token holds GOST R 34.10-2012 "
            "keys only; write it to a file (-out) instead (docs/KEYS.md)", a->dir);
    rc = CLI_EXIT_USAGE;
  }
  if (!rc && (a->pfx || a->certout) && !c.cert) {
    cli_err("key import: %s: the container holds no certificate (needed for %s)", a->dir,
            a->pfx ? "-pfx" : "-certout");
    rc = CLI_EXIT_USAGE;
  }
  if (!rc && a->p11)
    rc = p11_store_key(NULL, a->p11, a->pin, a->label ? a->label : c.name[0] ? c.name : "container",
                       a->id, &c.key, c.cert, c.cert_len);
  else if (!rc)
    rc = write_out(a, &c);
  if (!rc && a->certout) rc = write_cert(a->certout, &c);
  gostx_keycont_clear(&c);
  for (int i = 0; i < NFILES; i++) free(f.buf[i]);
  return rc;
}

int cmd_key(int argc, char **argv) {
  args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  return import(&a);
}
