/* gostx req (-new: a PKCS#10 request; -x509: a self-signed certificate;
 * -verify: a request's signature checked) and gostx x509 -req (a
 * certificate issued from a request by a CA), in openssl's shapes, with
 * lib/x509's writer (include/gostx/x509_write.h); the issuing itself is
 * cli/common/cert_issue.c's, shared with `gostx ca`. */
#include <stdlib.h>
#include <string.h>

#include "cert_build.h"
#include "commands.h"

#define ADDEXT_MAX 16

enum {
  R_NEW = 1, R_X509, R_KEY, R_PASSIN, R_SUBJ, R_ADDEXT, R_DAYS, R_CA, R_OUT, R_OUTFORM, R_SERIAL,
  R_IN, R_VERIFY, R_NOOUT, R_NEWKEY, R_HELP,
  /* x509 -req */
  R_REQ, R_CACERT, R_CAKEY, R_EXTFILE, R_EXTENSIONS, R_COPY, R_CASERIAL, R_CACREATE,
  R_NOT_BEFORE, R_NOT_AFTER
};

/* ---- gostx req ---- */

static const cli_opt req_opts[] = {
    {"new", 0, CLI_NOARG, R_NEW},         {"x509", 0, CLI_NOARG, R_X509},
    {"key", 0, CLI_PATH, R_KEY},          {"passin", 0, CLI_ARG, R_PASSIN},
    {"subj", 0, CLI_ARG, R_SUBJ},         {"addext", 0, CLI_ARG, R_ADDEXT},
    {"days", 0, CLI_ARG, R_DAYS},         {"ca", 0, CLI_NOARG, R_CA},
    {"out", 0, CLI_PATH, R_OUT},          {"outform", 0, CLI_ARG, R_OUTFORM},
    {"set_serial", 0, CLI_ARG, R_SERIAL}, {"in", 0, CLI_PATH, R_IN},
    {"verify", 0, CLI_NOARG, R_VERIFY},   {"noout", 0, CLI_NOARG, R_NOOUT},
    {"newkey", 0, CLI_ARG, R_NEWKEY},     {"help", 'h', CLI_NOARG, R_HELP},
    {NULL, 0, 0, 0},
};

static void req_help(void) {
  printf("Usage: gostx req -new -key KEY -subj /CN=.../O=... [-addext EXT]... [-passin ARG]\n"
         "                 [-out FILE] [-outform PEM|DER]\n"
         "       gostx req -x509 -key KEY -subj ... [-days N] [-ca] [-addext EXT]...\n"
         "                 [-set_serial N] [-passin ARG] [-out FILE] [-outform PEM|DER]\n"
         "       gostx req -verify -in CSR [-noout] [-out FILE]\n\n"
         "As `openssl req`, for GOST R 34.10-2012 keys (gostx genpkey makes one): -new\n"
         "writes a PKCS#10 request signed by KEY; -x509 a self-signed certificate (30\n"
         "days unless -days; a random 20-byte serial unless -set_serial, decimal or 0x\n"
         "hex). Signatures: Streebog-256 with a 256-bit key, Streebog-512 with a\n"
         "512-bit one (RFC 9215). -ca adds the CA profile: basicConstraints critical\n"
         "CA:TRUE and keyUsage critical keyCertSign, cRLSign (each unless -addext\n"
         "gives it). Certificates carry subjectKeyIdentifier.\n\n"
         "-subj: /TYPE=VALUE/... with TYPE CN, O, OU, C, ST, L, street, title, GN, SN,\n"
         "  serialNumber, emailAddress, INN, INNLE, OGRN, SNILS, OGRNIP or a dotted\n"
         "  OID; \"\\/\" is a slash in a value. UTF8String (C: two-letter\n"
         "  PrintableString; the Russian numbers: digits).\n"
         "-addext 'NAME = VALUE' (repeatable), openssl's syntax:\n"
         "  basicConstraints = [critical,]CA:TRUE|FALSE[,pathlen:N]\n"
         "  keyUsage = [critical,]digitalSignature,keyEncipherment,keyCertSign,...\n"
         "  extendedKeyUsage = serverAuth,clientAuth,codeSigning,...|OID\n"
         "  subjectAltName = DNS:name,IP:addr,email:addr,URI:uri\n"
         "  subjectKeyIdentifier = hash|none, authorityKeyIdentifier = keyid|none\n"
         "-passin: the password of an encrypted KEY (pass:, env:, file:, fd:, stdin).\n"
         "-verify -in CSR: checks the request's signature (\"verify OK\" on stderr) and\n"
         "  writes it out unless -noout.\n"
         "Output (stdout unless -out) is written whole or not at all.\n"
         "Exit status: 0 done, 1 I/O error or a signature that does not verify, 2 usage.\n");
}

typedef struct req_args {
  int new_req, x509, ca, pem, verify, noout, have_serial;
  const char *key, *pass, *subj, *out, *in, *days;
  const char *addext[ADDEXT_MAX];
  size_t n_addext;
  cert_serial serial;
} req_args;

static int req_parse(int argc, char **argv, req_args *a) {
  cli_parser p;
  cli_parser_init_openssl(&p, "req", argc, argv, req_opts);
  int id, rc = 0;
  a->pem = 1;
  while (!rc && (id = cli_next(&p, req_opts)) != CLI_END) {
    switch (id) {
      case R_NEW: a->new_req = 1; break;
      case R_X509: a->x509 = 1; break;
      case R_KEY: a->key = p.arg; break;
      case R_PASSIN: a->pass = p.arg; break;
      case R_SUBJ: a->subj = p.arg; break;
      case R_ADDEXT:
        if (a->n_addext == ADDEXT_MAX) rc = cli_usage("req: more than %d -addext", ADDEXT_MAX);
        else a->addext[a->n_addext++] = p.arg;
        break;
      case R_DAYS: a->days = p.arg; break;
      case R_CA: a->ca = 1; break;
      case R_OUT: a->out = p.arg; break;
      case R_OUTFORM: rc = cert_outform(p.arg, &a->pem); break;
      case R_SERIAL: rc = cert_parse_serial("-set_serial", p.arg, 0, &a->serial), a->have_serial = 1; break;
      case R_IN: a->in = p.arg; break;
      case R_VERIFY: a->verify = 1; break;
      case R_NOOUT: a->noout = 1; break;
      case R_NEWKEY: rc = cli_usage("req: -newkey: make the key first with gostx genpkey, then -key"); break;
      case R_HELP: req_help(); return -1;
      case CLI_POS: rc = cli_usage("req: unexpected argument '%s'", p.pos); break;
      default: rc = CLI_EXIT_USAGE;
    }
  }
  if (rc) return rc;
  if (a->verify) {
    if (!a->in) return cli_usage("req -verify: -in CSR is needed");
    return a->new_req || a->x509 ? cli_usage("req: -verify goes with -in, not -new or -x509") : 0;
  }
  if (a->in) return cli_usage("req: -in goes with -verify (to issue from a request: gostx x509 -req)");
  if (!a->new_req && !a->x509) return cli_usage("req: -new, -x509 or -verify (see gostx req --help)");
  if (!a->key) return cli_usage("req: -key KEY is needed (gostx genpkey makes one)");
  if (!a->subj) return cli_usage("req: -subj /CN=... is needed");
  if (!a->x509 && (a->days || a->ca || a->have_serial))
    return cli_usage("req: -days, -ca and -set_serial are for -x509 certificates");
  return 0;
}

/* The extensions of -addext (and -ca's profile where -addext does not
 * give those two). */
static int req_exts(const req_args *a, gostx_x509_exts *e) {
  char err[256];
  int has_basic = 0, has_ku = 0;
  gostx_x509_exts_init(e);
  for (size_t i = 0; i < a->n_addext; i++) {
    if (gostx_x509_exts_add_line(e, a->addext[i], err, sizeof err))
      return cli_usage("req: -addext: %s", err);
    const char *s = a->addext[i] + strspn(a->addext[i], " \t");
    has_basic |= !strncmp(s, "basicConstraints", 16);
    has_ku |= !strncmp(s, "keyUsage", 8);
  }
  if (a->ca && !has_basic) (void)gostx_x509_exts_add(e, "basicConstraints", "critical,CA:TRUE", NULL, 0);
  if (a->ca && !has_ku) (void)gostx_x509_exts_add(e, "keyUsage", "critical,keyCertSign,cRLSign", NULL, 0);
  return 0;
}

/* A self-signed certificate: issuer = subject, the key signs its own. */
static int req_self_signed(const req_args *a, const gostx_x509_name *name, const gostx_x509_exts *e,
                           const gostx_gost3410_key *k, uint8_t *der, size_t *len) {
  uint8_t spki[GOSTX_GOST3410_DER_MAX], id[20];
  size_t spki_len;
  cert_serial serial = a->serial;
  int64_t now = (int64_t)time(NULL), not_after = now + 30 * 86400;
  int rc = a->days ? cert_days(a->days, now, &not_after) : 0;
  if (!rc && !a->have_serial) rc = cert_random_serial(&serial);
  if (rc) return rc;
  if (gostx_gost3410_key_write(k, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL, spki,
                               sizeof spki, &spki_len) ||
      gostx_x509_key_id(spki, spki_len, id)) {
    cli_err("req: cannot encode the public key");
    return CLI_EXIT_FAIL;
  }
  gostx_x509_cert_spec s = {serial.b, serial.len, name->der, name->der, name->len, name->len, now,
                            not_after, spki, spki_len, e, e->aki == 2 ? id : NULL, sizeof id};
  if (gostx_x509_cert_write(&s, k, der, CERT_DER_MAX, len)) {
    cli_err("req: the certificate could not be written (too large?)");
    return CLI_EXIT_FAIL;
  }
  return 0;
}

static int req_verify(const req_args *a) {
  uint8_t *der = NULL;
  gostx_x509_csr csr;
  int rc = cert_load_csr(a->in, &der, &csr);
  if (!rc) fprintf(stderr, "Certificate request self-signature verify OK\n");
  /* the signature is the request's last element: its end is the DER's */
  if (!rc && !a->noout)
    rc = cert_write(a->out, "CERTIFICATE REQUEST", der,
                    (size_t)(csr.sig_value + csr.sig_value_len - der), a->pem);
  free(der);
  return rc;
}

int cmd_req(int argc, char **argv) {
  req_args a;
  memset(&a, 0, sizeof a);
  int rc = req_parse(argc, argv, &a);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  if (a.verify) return req_verify(&a);
  cli_input ins[] = {{a.key, "key file"}};
  if ((rc = cli_refuse_same_file("req", a.out, ins, 1))) return rc;
  gostx_x509_name name;
  gostx_x509_exts *e = malloc(sizeof *e);
  uint8_t *der = malloc(CERT_DER_MAX);
  char err[256];
  gostx_gost3410_key xk;
  size_t len = 0;
  if (!e || !der) {
    free(e), free(der);
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  if (gostx_x509_name_parse(a.subj, &name, err, sizeof err)) rc = cli_usage("req: -subj: %s", err);
  if (!rc) rc = req_exts(&a, e);
  if (!rc) rc = cert_load_signing_key("-key", a.key, a.pass, &xk);
  if (!rc) {
    if (a.x509) rc = req_self_signed(&a, &name, e, &xk, der, &len);
    else if (gostx_x509_csr_write(&name, e, &xk, der, CERT_DER_MAX, &len))
      cli_err("req: the request could not be written (too large?)"), rc = CLI_EXIT_FAIL;
    gostx_gost3410_key_clear(&xk);
  }
  if (!rc) rc = cert_write(a.out, a.x509 ? "CERTIFICATE" : "CERTIFICATE REQUEST", der, len, a.pem);
  free(e);
  free(der);
  return rc;
}

/* ---- gostx x509 -req ---- */

static const cli_opt x509_req_opts[] = {
    {"req", 0, CLI_NOARG, R_REQ},           {"in", 0, CLI_PATH, R_IN},
    {"CA", 0, CLI_PATH, R_CACERT},          {"CAkey", 0, CLI_PATH, R_CAKEY},
    {"passin", 0, CLI_ARG, R_PASSIN},       {"days", 0, CLI_ARG, R_DAYS},
    {"extfile", 0, CLI_PATH, R_EXTFILE},    {"extensions", 0, CLI_ARG, R_EXTENSIONS},
    {"copy_extensions", 0, CLI_ARG, R_COPY}, {"set_serial", 0, CLI_ARG, R_SERIAL},
    {"CAserial", 0, CLI_PATH, R_CASERIAL},  {"CAcreateserial", 0, CLI_NOARG, R_CACREATE},
    {"out", 0, CLI_PATH, R_OUT},            {"outform", 0, CLI_ARG, R_OUTFORM},
    {"not_before", 0, CLI_ARG, R_NOT_BEFORE}, {"not_after", 0, CLI_ARG, R_NOT_AFTER},
    {"help", 'h', CLI_NOARG, R_HELP},       {NULL, 0, 0, 0},
};

static void x509_req_help(void) {
  printf("Usage: gostx x509 -req -in CSR -CA CACERT [-CAkey CAKEY] [-passin ARG] [-days N]\n"
         "                  [-not_before DATE] [-not_after DATE]\n"
         "                  [-extfile FILE [-extensions SECTION]] [-copy_extensions none|copy]\n"
         "                  [-set_serial N | -CAserial FILE [-CAcreateserial]]\n"
         "                  [-out FILE] [-outform PEM|DER]\n\n"
         "As `openssl x509 -req`: a certificate for the subject and key of the request\n"
         "CSR (PEM or DER; its signature is checked first), issued by CACERT with its\n"
         "key CAKEY (default: a key in the CACERT file; it must match the certificate),\n"
         "valid for N days from now (30; or from -not_before to -not_after, each a UTC\n"
         "DATE YYMMDDHHMMSSZ or YYYYMMDDHHMMSSZ or today, as openssl 3.4 takes them:\n"
         "-not_after not with -days), with a random 20-byte serial number (or\n"
         "-set_serial N, decimal or 0x hex; or -CAserial FILE's hex number plus one,\n"
         "written back). Extensions: those of -extfile (openssl's configuration syntax,\n"
         "the lines of SECTION or of the top of the file; see gostx req --help for the\n"
         "ones taken; subjectAltName = @section too); with -copy_extensions copy also\n"
         "the request's own, where FILE does not give them (openssl's default: none).\n"
         "Always subjectKeyIdentifier and authorityKeyIdentifier (the CA's key\n"
         "identifier), unless FILE says none.\n"
         "Exit status: 0 done, 1 I/O error, a request whose signature does not verify or\n"
         "a CA key that does not match, 2 usage.\n");
}

static int x509_req_parse(int argc, char **argv, x509_req_args *a) {
  cli_parser p;
  cli_parser_init_openssl(&p, "x509 -req", argc, argv, x509_req_opts);
  int id, rc = 0;
  a->pem = 1;
  while (!rc && (id = cli_next(&p, x509_req_opts)) != CLI_END) {
    switch (id) {
      case R_REQ: break;
      case R_IN: a->in = p.arg; break;
      case R_CACERT: a->ca = p.arg; break;
      case R_CAKEY: a->cakey = p.arg; break;
      case R_PASSIN: a->pass = p.arg; break;
      case R_DAYS: a->days = p.arg; break;
      case R_NOT_BEFORE: a->not_before = p.arg; break;
      case R_NOT_AFTER: a->not_after = p.arg; break;
      case R_EXTFILE: a->extfile = p.arg; break;
      case R_EXTENSIONS: a->section = p.arg; break;
      case R_COPY:
        if (!strcmp(p.arg, "copy") || !strcmp(p.arg, "none")) a->copy = !strcmp(p.arg, "copy");
        else rc = cli_usage("x509 -req: -copy_extensions: none or copy, not '%s'", p.arg);
        break;
      case R_SERIAL: rc = cert_parse_serial("-set_serial", p.arg, 0, &a->serial), a->have_serial = 1; break;
      case R_CASERIAL: a->caserial = p.arg; break;
      case R_CACREATE: a->create = 1; break;
      case R_OUT: a->out = p.arg; break;
      case R_OUTFORM: rc = cert_outform(p.arg, &a->pem); break;
      case R_HELP: x509_req_help(); return -1;
      case CLI_POS: rc = cli_usage("x509 -req: unexpected argument '%s'", p.pos); break;
      default: rc = CLI_EXIT_USAGE;
    }
  }
  if (rc) return rc;
  if (!a->in) return cli_usage("x509 -req: -in CSR is needed");
  if (!a->ca) return cli_usage("x509 -req: -CA CACERT is needed (a self-signed certificate: gostx req -x509)");
  if (a->section && !a->extfile) return cli_usage("x509 -req: -extensions goes with -extfile");
  if (a->have_serial && a->caserial) return cli_usage("x509 -req: -set_serial or -CAserial, not both");
  if (a->create && !a->caserial) return cli_usage("x509 -req: -CAcreateserial goes with -CAserial");
  if (a->days && a->not_after) return cli_usage("x509 -req: -days or -not_after, not both");
  if (!a->cakey) a->cakey = a->ca, a->cakey_in_ca = 1; /* openssl's default too */
  return 0;
}

int cmd_x509_req(int argc, char **argv) {
  x509_req_args a;
  memset(&a, 0, sizeof a);
  int rc = x509_req_parse(argc, argv, &a);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  cli_input ins[] = {{a.in, "request"}, {a.ca, "CA certificate"}, {a.cakey, "CA key"},
                     {a.extfile, "extension file"}, {a.caserial, "serial file"}};
  if ((rc = cli_refuse_same_file("x509 -req", a.out, ins, 5))) return rc;
  uint8_t *der = NULL;
  size_t len = 0;
  rc = cert_issue(&a, &der, &len);
  if (!rc) rc = cert_write(a.out, "CERTIFICATE", der, len, a.pem);
  free(der);
  return rc;
}
