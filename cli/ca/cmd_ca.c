/* gostx ca: a small CA in openssl ca's shapes, without a configuration
 * file: certificates issued from requests and recorded in an index
 * (index.h), revoked there, and CRLs made from it (GOST R 34.10-2012
 * signed, cRLNumber from a file beside the index, nextUpdate). Every
 * change to the index holds its lock. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cert_build.h"
#include "cli.h"
#include "../commands.h"
#include "ca_index.h"

enum {
  C_IN = 1, C_CERT, C_KEYFILE, C_PASSIN, C_INDEX, C_SERIAL, C_DAYS, C_EXTFILE, C_EXTENSIONS, C_OUT,
  C_REVOKE, C_REASON, C_COMPROMISE, C_CA_COMPROMISE, C_GENCRL, C_CRLDAYS, C_CRLHOURS, C_CRLNUMBER, C_HELP
};

static const cli_opt ca_opts[] = {
    {"in", 0, CLI_PATH, C_IN},           {"cert", 0, CLI_PATH, C_CERT},
    {"keyfile", 0, CLI_PATH, C_KEYFILE}, {"passin", 0, CLI_ARG, C_PASSIN},
    {"index", 0, CLI_PATH, C_INDEX},     {"serial", 0, CLI_PATH, C_SERIAL},
    {"days", 0, CLI_ARG, C_DAYS},        {"extfile", 0, CLI_PATH, C_EXTFILE},
    {"extensions", 0, CLI_ARG, C_EXTENSIONS}, {"out", 0, CLI_PATH, C_OUT},
    {"revoke", 0, CLI_PATH, C_REVOKE},   {"crl_reason", 0, CLI_ARG, C_REASON},
    {"crl_compromise", 0, CLI_ARG, C_COMPROMISE}, {"crl_CA_compromise", 0, CLI_ARG, C_CA_COMPROMISE},
    {"gencrl", 0, CLI_NOARG, C_GENCRL},  {"crldays", 0, CLI_ARG, C_CRLDAYS},
    {"crlhours", 0, CLI_ARG, C_CRLHOURS}, {"crlnumber", 0, CLI_PATH, C_CRLNUMBER},
    {"help", 'h', CLI_NOARG, C_HELP},    {NULL, 0, 0, 0},
};

static void ca_help(void) {
  printf("Usage: gostx ca -in CSR -cert CA -keyfile KEY -index FILE [-serial FILE] [-days N]\n"
         "                [-extfile FILE [-extensions SECTION]] [-passin ARG] [-out CERT]\n"
         "       gostx ca -revoke CERT -index FILE [-cert CA] [-crl_reason REASON |\n"
         "                -crl_compromise TIME | -crl_CA_compromise TIME]\n"
         "       gostx ca -gencrl -cert CA -keyfile KEY -index FILE [-crldays N] [-crlhours N]\n"
         "                [-crlnumber FILE] [-passin ARG] [-out CRL]\n\n"
         "openssl ca's index (FILE, its format: V/R/E, expiry, revocation[,reason],\n"
         "serial, \"unknown\", /C=../CN=..) without a configuration file.\n"
         "-in: a certificate for the request CSR, issued as `gostx x509 -req` issues\n"
         "(the same -days, -extfile), with the serial of the serial file (default\n"
         "serial beside FILE; hex; made when missing) plus one, written back; a serial\n"
         "already in the index is refused; a V line is added.\n"
         "-revoke: CERT's line becomes R at now with REASON (unspecified, keyCompromise,\n"
         "CACompromise, affiliationChanged, superseded, cessationOfOperation,\n"
         "certificateHold, removeFromCRL); a certificate not in the index is added as R;\n"
         "one already revoked is refused. With -cert, CERT must be the CA's.\n"
         "-crl_compromise TIME (-crl_CA_compromise TIME): keyCompromise (CACompromise)\n"
         "with TIME (YYYYMMDDHHMMSSZ) the CRL entry's invalidityDate, written as\n"
         "openssl ca writes it (keyTime,TIME; CAkeyTime,TIME). Lines not revoked\n"
         "are written back byte for byte.\n"
         "-gencrl: a v2 CRL of the index's R lines, signed by KEY, thisUpdate now,\n"
         "nextUpdate after N days (-crldays, default 30) plus -crlhours, with\n"
         "invalidityDate for keyTime/CAkeyTime lines, authorityKeyIdentifier and\n"
         "the cRLNumber of the crlnumber file (default crlnumber beside FILE; hex;\n"
         "1 when missing), which then holds the next one.\n"
         "Output PEM. Exit status: 0 done, 1 I/O, a refusal or an index line that does\n"
         "not read, 2 usage.\n");
}

typedef struct ca_args {
  const char *in, *cert, *keyfile, *pass, *index, *serial, *days, *extfile, *section, *out;
  const char *revoke, *crlnumber;
  int reason, gencrl;
  int64_t invalid_at; /* -crl_compromise / -crl_CA_compromise's time, -1: none */
  uint64_t crldays, crlhours;
  int have_crldays;
} ca_args;

/* dirname(index) + "/" + name, into out[cap]. */
static void beside(const char *index, const char *name, char *out, size_t cap) {
  const char *slash = strrchr(index, '/');
  if (!slash) snprintf(out, cap, "%s", name);
  else snprintf(out, cap, "%.*s/%s", (int)(slash - index), index, name);
}

/* The first certificate of path, parsed over l. */
static int load_first(const char *opt, const char *path, cli_cert_list *l) {
  int rc = cli_load_certs(path, l);
  if (rc) cli_err("%s %s: no certificate read", opt, path);
  return rc;
}

/* The CA's certificate and its key (which must be the certificate's). */
static int load_ca(const ca_args *a, cli_cert_list *l, gostx_gost3410_key *xk) {
  int rc = load_first("-cert", a->cert, l);
  if (!rc) rc = cert_load_signing_key("-keyfile", a->keyfile, a->pass, xk);
  if (rc) return rc;
  const gostx_x509_cert *c = &l->c[0];
  if (xk->curve != c->curve || 2 * xk->len != c->pub_len || memcmp(xk->q, c->pub, c->pub_len)) {
    cli_err("ca: -keyfile %s is not the key of -cert %s", a->keyfile, a->cert);
    return CLI_EXIT_FAIL;
  }
  return 0;
}

static int ca_issue(const ca_args *a, ca_index *x) {
  char serial_path[4096];
  if (a->serial) snprintf(serial_path, sizeof serial_path, "%s", a->serial);
  else beside(a->index, "serial", serial_path, sizeof serial_path);
  x509_req_args r;
  memset(&r, 0, sizeof r);
  r.in = a->in, r.ca = a->cert, r.cakey = a->keyfile, r.pass = a->pass, r.days = a->days;
  r.extfile = a->extfile, r.section = a->section, r.have_serial = 1;
  int rc = cert_next_serial(serial_path, 1, &r.serial);
  if (rc) return rc;
  if (ca_index_find(x, r.serial.b, r.serial.len)) {
    cli_err("ca: serial %s's number is already in the index %s: refusing to reuse it", serial_path,
            a->index);
    return CLI_EXIT_FAIL;
  }
  uint8_t *der = NULL;
  size_t len = 0;
  rc = cert_issue(&r, &der, &len);
  gostx_x509_cert c;
  ca_entry e;
  memset(&e, 0, sizeof e);
  if (!rc && gostx_x509_parse(der, len, &c, NULL)) {
    cli_err("ca: the certificate issued does not parse");
    rc = CLI_EXIT_FAIL;
  }
  if (!rc) {
    e.status = 'V';
    e.expiry = c.not_after;
    e.revoked_at = e.invalid_at = -1;
    e.reason = GOSTX_X509_REASON_NONE;
    memcpy(e.serial, r.serial.b, r.serial.len);
    e.serial_len = r.serial.len;
    ca_subject_text(c.subject, c.subject_len, e.subject, sizeof e.subject);
    rc = ca_index_add(x, &e);
  }
  if (!rc) rc = ca_index_write(a->index, x); /* recorded before it is handed out */
  if (!rc) rc = cert_write(a->out, "CERTIFICATE", der, len, 1);
  free(der);
  return rc;
}

static int ca_revoke(const ca_args *a, ca_index *x) {
  cli_cert_list *l = calloc(1, sizeof *l), *cal = NULL;
  int rc = l ? load_first("-revoke", a->revoke, l) : CLI_EXIT_FAIL;
  if (!rc && a->cert) {
    cal = calloc(1, sizeof *cal);
    rc = cal ? load_first("-cert", a->cert, cal) : CLI_EXIT_FAIL;
    if (!rc && (l->c[0].issuer_len != cal->c[0].subject_len ||
                memcmp(l->c[0].issuer, cal->c[0].subject, cal->c[0].subject_len))) {
      cli_err("ca: -revoke %s was not issued by -cert %s (another issuer name)", a->revoke, a->cert);
      rc = CLI_EXIT_FAIL;
    }
  }
  if (!rc) {
    const gostx_x509_cert *c = &l->c[0];
    ca_entry *e = ca_index_find(x, c->serial, c->serial_len), fresh;
    if (e && e->status == 'R') {
      cli_err("ca: %s is already revoked (serial in %s)", a->revoke, a->index);
      rc = CLI_EXIT_FAIL;
    } else if (!e && c->serial_len <= sizeof fresh.serial) {
      memset(&fresh, 0, sizeof fresh);
      fresh.revoked_at = fresh.invalid_at = -1;
      fresh.expiry = c->not_after;
      memcpy(fresh.serial, c->serial, c->serial_len);
      fresh.serial_len = c->serial_len;
      ca_subject_text(c->subject, c->subject_len, fresh.subject, sizeof fresh.subject);
      rc = ca_index_add(x, &fresh);
      if (!rc) e = &x->e[x->n - 1];
    } else if (!e) {
      cli_err("ca: %s: a serial too long for the index", a->revoke);
      rc = CLI_EXIT_FAIL;
    }
    if (!rc) {
      ca_entry_revoke(e, (int64_t)time(NULL), a->reason, a->invalid_at);
      rc = ca_index_write(a->index, x);
    }
  }
  if (l) cli_cert_list_free(l);
  if (cal) cli_cert_list_free(cal);
  free(l);
  free(cal);
  return rc;
}

/* The crlnumber file's number (1 when missing), the next written back
 * (openssl's crlnumber: the file holds the number the next CRL takes). */
static int next_crl_number(const char *path, cert_serial *n) {
  cli_in in;
  if (cli_in_try_open(&in, path) != 0) {
    n->b[0] = 1, n->len = 1;
    return cli_write_file(path, "02\n", 3, 0);
  }
  cli_in_close(&in);
  int rc = cert_next_serial(path, 0, n); /* the file's number plus one, written back */
  for (size_t i = n->len; !rc && i-- > 0;) /* minus one: the number itself */
    if (n->b[i]-- != 0) break;
  return rc;
}

static int ca_gencrl(const ca_args *a, ca_index *x) {
  cli_cert_list *l = calloc(1, sizeof *l);
  gostx_gost3410_key xk;
  memset(&xk, 0, sizeof xk);
  int rc = l ? load_ca(a, l, &xk) : CLI_EXIT_FAIL;
  char num_path[4096];
  if (a->crlnumber) snprintf(num_path, sizeof num_path, "%s", a->crlnumber);
  else beside(a->index, "crlnumber", num_path, sizeof num_path);
  cert_serial number;
  if (!rc) rc = next_crl_number(num_path, &number);
  gostx_x509_crl_revoked *rev = calloc(x->n ? x->n : 1, sizeof *rev);
  uint8_t(*sbuf)[sizeof x->e[0].serial + 1] = calloc(x->n ? x->n : 1, sizeof *sbuf);
  size_t n = 0, cap = 1u << 20, len = 0;
  uint8_t *der = malloc(cap), id[64];
  size_t id_len = 0;
  if (!rc && (!rev || !sbuf || !der)) {
    cli_err("out of memory");
    rc = CLI_EXIT_FAIL;
  }
  for (size_t i = 0; !rc && i < x->n; i++) {
    const ca_entry *e = &x->e[i];
    if (e->status != 'R') continue;
    /* the index's hex (openssl's: no sign byte) as a positive serial */
    const uint8_t *s = e->serial;
    size_t sl = e->serial_len;
    while (sl > 1 && !s[0]) s++, sl--;
    sbuf[n][0] = 0;
    memcpy(sbuf[n] + 1, s, sl);
    int sign = (s[0] & 0x80) != 0;
    rev[n] = (gostx_x509_crl_revoked){sbuf[n] + !sign, sl + sign, e->revoked_at, e->reason,
                                      e->invalid_at};
    n++;
  }
  if (!rc && gostx_x509_cert_key_id(&l->c[0], id, sizeof id, &id_len)) {
    cli_err("ca: -cert %s: its key identifier cannot be made", a->cert);
    rc = CLI_EXIT_FAIL;
  }
  int64_t now = (int64_t)time(NULL);
  uint64_t days = a->have_crldays || a->crlhours ? a->crldays : 30;
  gostx_x509_crl_spec s = {l ? l->c[0].subject : NULL, l ? l->c[0].subject_len : 0, now,
                           now + (int64_t)days * 86400 + (int64_t)a->crlhours * 3600,
                           number.b, number.len, id, id_len, rev, n};
  int w = rc ? 0 : gostx_x509_crl_write(&s, &xk, der, cap, &len);
  if (!rc && w) {
    cli_err("ca: the CRL could not be written (%s)", w == GOSTX_ELEN ? "over 1 MiB" : "a bad entry");
    rc = CLI_EXIT_FAIL;
  }
  if (!rc) rc = cert_write(a->out, "X509 CRL", der, len, 1);
  gostx_gost3410_key_clear(&xk);
  if (l) cli_cert_list_free(l);
  free(l);
  free(rev);
  free(sbuf);
  free(der);
  return rc;
}

static int ca_parse(int argc, char **argv, ca_args *a) {
  cli_parser p;
  cli_parser_init_openssl(&p, "ca", argc, argv, ca_opts);
  int id, rc = 0;
  a->reason = GOSTX_X509_REASON_NONE;
  a->invalid_at = -1;
  int reasons = 0; /* -crl_reason, -crl_compromise, -crl_CA_compromise: one of them */
  while (!rc && (id = cli_next(&p, ca_opts)) != CLI_END) {
    switch (id) {
      case C_IN: a->in = p.arg; break;
      case C_CERT: a->cert = p.arg; break;
      case C_KEYFILE: a->keyfile = p.arg; break;
      case C_PASSIN: a->pass = p.arg; break;
      case C_INDEX: a->index = p.arg; break;
      case C_SERIAL: a->serial = p.arg; break;
      case C_DAYS: a->days = p.arg; break;
      case C_EXTFILE: a->extfile = p.arg; break;
      case C_EXTENSIONS: a->section = p.arg; break;
      case C_OUT: a->out = p.arg; break;
      case C_REVOKE: a->revoke = p.arg; break;
      case C_COMPROMISE:
      case C_CA_COMPROMISE:
        reasons++;
        a->reason = id == C_COMPROMISE ? GOSTX_X509_REASON_KEY_COMPROMISE : GOSTX_X509_REASON_CA_COMPROMISE;
        if (strlen(p.arg) != 15 || ca_time_parse(p.arg, 15, &a->invalid_at))
          rc = cli_usage("ca: -%s: '%s' is not a time YYYYMMDDHHMMSSZ",
                         id == C_COMPROMISE ? "crl_compromise" : "crl_CA_compromise", p.arg);
        break;
      case C_REASON:
        reasons++;
        a->reason = gostx_x509_crl_reason_by_name(p.arg);
        if (a->reason < 0 || a->reason > GOSTX_X509_REASON_REMOVE_FROM_CRL)
          rc = cli_usage("ca: -crl_reason: '%s' is none of unspecified, keyCompromise, CACompromise, "
                         "affiliationChanged, superseded, cessationOfOperation, certificateHold, "
                         "removeFromCRL", p.arg);
        break;
      case C_GENCRL: a->gencrl = 1; break;
      case C_CRLDAYS: rc = cli_uint("-crldays", p.arg, 0, 365000, &a->crldays), a->have_crldays = 1; break;
      case C_CRLHOURS: rc = cli_uint("-crlhours", p.arg, 0, 24 * 365000, &a->crlhours); break;
      case C_CRLNUMBER: a->crlnumber = p.arg; break;
      case C_HELP: ca_help(); return -1;
      case CLI_POS: rc = cli_usage("ca: unexpected argument '%s'", p.pos); break;
      default: rc = CLI_EXIT_USAGE;
    }
  }
  if (rc) return rc;
  if (!!a->in + !!a->revoke + a->gencrl != 1)
    return cli_usage("ca: one of -in CSR, -revoke CERT or -gencrl (see gostx ca --help)");
  if (!a->index) return cli_usage("ca: -index FILE is needed");
  if ((a->in || a->gencrl) && (!a->cert || !a->keyfile))
    return cli_usage("ca: -cert CA and -keyfile KEY are needed to sign");
  if (reasons > 1)
    return cli_usage("ca: one of -crl_reason, -crl_compromise, -crl_CA_compromise");
  if (reasons && !a->revoke)
    return cli_usage("ca: -crl_reason, -crl_compromise and -crl_CA_compromise go with -revoke");
  return 0;
}

int cmd_ca(int argc, char **argv) {
  ca_args a;
  memset(&a, 0, sizeof a);
  int rc = ca_parse(argc, argv, &a);
  if (rc) return rc < 0 ? CLI_EXIT_OK : rc;
  ca_index x = {NULL, 0, 0, -1, NULL, 0};
  rc = ca_index_lock(a.index, &x);
  if (!rc) rc = ca_index_read(a.index, 1, &x);
  if (!rc) rc = a.in ? ca_issue(&a, &x) : a.revoke ? ca_revoke(&a, &x) : ca_gencrl(&a, &x);
  ca_index_free(&x);
  return rc;
}
