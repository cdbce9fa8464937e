/* gostx ocsp: openssl ocsp's options for GOST. The client builds a request
 * for -cert's certificates issued by -issuer (SHA-1 CertIDs by default, a
 * nonce unless -no_nonce), sends it (-url: HTTP/1.1 POST) or takes a
 * response (-respin), checks it and prints each certificate's status; the
 * responder (ocsp_serve.c) answers from an index.txt. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../commands.h"
#include "ocsp_cli.h"

#define MAX_CERTS GOSTX_OCSP_MAX_IDS

static void usage(FILE *f) {
  fprintf(f,
          "Usage: gostx ocsp -issuer FILE -cert FILE... [-url URL | -respin FILE] [OPTIONS]\n"
          "       gostx ocsp -index FILE -CA FILE -rsigner FILE -rkey FILE -port N [OPTIONS]\n"
          "Client (as openssl ocsp):\n"
          "  -issuer FILE      the CA of the certificates asked (PEM or DER)\n"
          "  -cert FILE        a certificate to ask about (repeatable)\n"
          "  -sha1 | -md_gost12_256 | -md_gost12_512   the CertID hash (default SHA-1)\n"
          "  -no_nonce         send no nonce (default: 16 random bytes, checked in the reply)\n"
          "  -reqout FILE      write the request (DER); -reqin FILE: send this one instead\n"
          "  -url URL          http://HOST[:PORT][/PATH]: POST the request (plain http)\n"
          "  -timeout N        seconds for the connect and each read and write (default 20)\n"
          "  -respin FILE      read the response from FILE instead; -respout FILE write it\n"
          "  -CAfile FILE      anchors that -issuer must chain to (else -issuer is trusted)\n"
          "  -VAfile FILE      responder certificates trusted as they are\n"
          "  -noverify         print the statuses without checking the response\n"
          "  -attime SECONDS   check at this time (seconds since 1970), not now\n"
          "  -validity_period N  clock skew allowed, seconds (default 300)\n"
          "  -status_age N     without nextUpdate: thisUpdate at most N seconds old\n"
          "  -resp_text, -req_text, -text   print the response, the request, both\n"
          "Responder:\n"
          "  -index FILE       openssl ca's index.txt (read again when it changes)\n"
          "  -CA FILE          the CA whose certificates it answers for\n"
          "  -rsigner FILE     the certificate that signs (the CA, or one it issued with\n"
          "                    extendedKeyUsage OCSPSigning); -rkey FILE its key (-passin ARG)\n"
          "  -port N           serve HTTP on port N (0: any free port, said on stderr)\n"
          "  -bind ADDR        on this address only (default: all)\n"
          "  -threads N        threads (default: one per CPU)\n"
          "  -nmin N | -ndays N  nextUpdate N minutes or days after thisUpdate (default none)\n"
          "  -nrequest N       exit after N requests\n"
          "  -resp_key_id      responderID byKey (default byName)\n"
          "  -resp_no_certs    no certificate in the response\n"
          "  -reqin FILE -respout FILE   answer one request from a file, no network\n"
          "Exit: 0 the response verified (whatever the statuses), 1 it did not (the\n"
          "check that failed named), 2 usage.\n");
}

typedef struct client_opts {
  const char *issuer, *cert[MAX_CERTS], *reqout, *reqin, *respin, *respout, *url, *cafile, *vafile;
  size_t n_cert;
  int no_nonce, noverify, resp_text, req_text, timeout;
  gostx_ocsp_hash hash;
  int64_t attime, skew, status_age;
} client_opts;

void ocsp_time_text(int64_t t, char *out, size_t cap) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (!gmtime_r(&tt, &tm) || !strftime(out, cap, "%b %e %H:%M:%S %Y GMT", &tm))
    snprintf(out, cap, "%lld", (long long)t);
}

static const char *status_text(gostx_ocsp_cert_status s) {
  return s == GOSTX_OCSP_GOOD ? "good" : s == GOSTX_OCSP_REVOKED ? "revoked" : "unknown";
}

static void print_hex(const char *label, const uint8_t *p, size_t n) {
  printf("%s", label);
  for (size_t i = 0; i < n; i++) printf("%02X", p[i]);
  printf("\n");
}

static void print_certid(const gostx_ocsp_certid *id) {
  static const char *const hn[] = {"other", "sha1", "md_gost12_256", "md_gost12_512"};
  printf("    Certificate ID:\n      Hash Algorithm: %s\n", hn[id->hash]);
  print_hex("      Issuer Name Hash: ", id->name_hash, id->hash_len);
  print_hex("      Issuer Key Hash: ", id->key_hash, id->hash_len);
  print_hex("      Serial Number: ", id->serial, id->serial_len);
}

static void print_single_times(const gostx_ocsp_single *s, const char *indent) {
  char t[64];
  ocsp_time_text(s->this_update, t, sizeof t);
  printf("%sThis Update: %s\n", indent, t);
  if (s->next_update) ocsp_time_text(s->next_update, t, sizeof t), printf("%sNext Update: %s\n", indent, t);
  if (s->status == GOSTX_OCSP_REVOKED) {
    if (s->reason >= 0) printf("%sReason: %s\n", indent, gostx_ocsp_reason_name(s->reason));
    ocsp_time_text(s->revocation_time, t, sizeof t);
    printf("%sRevocation Time: %s\n", indent, t);
  }
}

static void print_response(const gostx_ocsp_response *r) {
  char t[64], name[512];
  printf("OCSP Response Data:\n    OCSP Response Status: %d\n", r->status);
  if (r->status) return;
  if (r->by_key) print_hex("    Responder Id: ", r->responder, r->responder_len);
  else {
    if (gostx_x509_name_text(r->responder, r->responder_len, name, sizeof name)) strcpy(name, "?");
    printf("    Responder Id: %s\n", name);
  }
  ocsp_time_text(r->produced_at, t, sizeof t);
  printf("    Produced At: %s\n    Responses:\n", t);
  gostx_ocsp_single s;
  size_t pos = 0;
  while (gostx_ocsp_single_next(r, &pos, &s)) {
    print_certid(&s.id);
    printf("    Cert Status: %s\n", status_text(s.status));
    print_single_times(&s, "    ");
  }
  if (r->nonce) print_hex("    OCSP Nonce: ", r->nonce, r->nonce_len);
}

static int read_file(const char *path, uint8_t **buf, size_t *len) {
  cli_in in;
  if (cli_in_open(&in, path)) return CLI_EXIT_FAIL;
  int rc = cli_in_read_all(&in, buf, len);
  cli_in_close(&in);
  return rc;
}

/* The request: built from -issuer and -cert, or read (-reqin). */
static int make_request(const client_opts *o, const cli_cert_list *issuer, const cli_cert_list *certs,
                        gostx_ocsp_request *req, uint8_t **der, size_t *len) {
  if (o->reqin) {
    int rc = read_file(o->reqin, der, len);
    if (rc) return rc;
    if (gostx_ocsp_request_parse(*der, *len, req)) {
      cli_err("ocsp: %s: not a DER OCSP request", o->reqin);
      return CLI_EXIT_FAIL;
    }
    return 0;
  }
  memset(req, 0, sizeof *req);
  for (size_t i = 0; i < certs->n; i++)
    if (gostx_ocsp_certid_make(&issuer->c[0], certs->c[i].serial, certs->c[i].serial_len, o->hash,
                               &req->id[req->n++])) {
      cli_err("ocsp: %s: its serial or -issuer's key cannot make a CertID", o->cert[i]);
      return CLI_EXIT_FAIL;
    }
  if (!o->no_nonce) {
    req->nonce_len = 16;
    if (gostx_random_bytes(req->nonce, 16)) {
      cli_err("ocsp: no random bytes for the nonce");
      return CLI_EXIT_FAIL;
    }
  }
  size_t cap = 256 + req->n * 200;
  *der = malloc(cap);
  if (!*der || gostx_ocsp_request_write(req, *der, cap, len)) {
    cli_err("ocsp: the request cannot be written");
    return CLI_EXIT_FAIL;
  }
  return 0;
}

/* The issuer checked against -CAfile, when given. */
static int issuer_trusted(const client_opts *o, const cli_cert_list *issuer, int64_t now) {
  if (!o->cafile) return 0;
  gostx_x509_store *st = gostx_x509_store_new();
  char err[256] = "";
  if (!st || gostx_x509_store_add_path(st, o->cafile, err, sizeof err)) {
    cli_err("ocsp: -CAfile %s: %s", o->cafile, *err ? err : "no GOST certificate");
    gostx_x509_store_free(st);
    return CLI_EXIT_FAIL;
  }
  gostx_x509_status vs = gostx_x509_verify(st, issuer->c, issuer->n, now, GOSTX_X509_PURPOSE_ANY, NULL, NULL);
  gostx_x509_store_free(st);
  if (vs != GOSTX_X509_OK) {
    fprintf(stderr, "Response Verify Failure: -issuer: %s\n", gostx_x509_status_name(vs));
    return CLI_EXIT_FAIL;
  }
  return 0;
}

static int judge(const client_opts *o, const gostx_ocsp_request *req, const gostx_ocsp_response *r,
                 const cli_cert_list *issuer, const cli_cert_list *va, int64_t now) {
  gostx_ocsp_single *out = calloc(req->n ? req->n : 1, sizeof *out);
  gostx_ocsp_check_opts co;
  gostx_ocsp_signer_info info;
  size_t which = 0;
  if (!out) return CLI_EXIT_FAIL;
  gostx_ocsp_check_opts_init(&co, now);
  co.skew = o->skew, co.max_age = o->status_age;
  co.issuer = issuer->n ? &issuer->c[0] : NULL;
  co.trusted = va->c, co.n_trusted = va->n;
  if (req->nonce_len) co.nonce = req->nonce, co.nonce_len = req->nonce_len;
  gostx_ocsp_status st = gostx_ocsp_check(r, &co, req->id, req->n, out, &which, &info);
  int rc = 0;
  if (o->noverify && st != GOSTX_OCSP_OK) {
    /* the statuses still, as they are */
    for (size_t i = 0; i < req->n; i++) {
      gostx_ocsp_single s;
      size_t pos = 0;
      int found = 0;
      while (!found && gostx_ocsp_single_next(r, &pos, &s)) found = gostx_ocsp_certid_equal(&req->id[i], &s.id);
      if (found) out[i] = s;
      else out[i].status = (gostx_ocsp_cert_status)-1;
    }
  } else if (st != GOSTX_OCSP_OK) {
    if (st == GOSTX_OCSP_CERT_MISSING)
      fprintf(stderr, "%s: ERROR: No Status found.\n", o->n_cert ? o->cert[which] : "request");
    fprintf(stderr, "Response Verify Failure: %s\n", gostx_ocsp_status_name(st));
    free(out);
    return CLI_EXIT_FAIL;
  } else {
    fprintf(stderr, "Response verify OK\n");
    if (info.delegated && !info.nocheck)
      fprintf(stderr, "ocsp: note: the responder's certificate has no id-pkix-ocsp-nocheck; "
                      "its own revocation was not checked\n");
  }
  for (size_t i = 0; i < req->n; i++) {
    const char *name = i < o->n_cert ? o->cert[i] : "certificate";
    if ((int)out[i].status < 0) {
      printf("%s: ERROR: No Status found.\n", name);
      rc = CLI_EXIT_FAIL;
      continue;
    }
    printf("%s: %s\n", name, status_text(out[i].status));
    print_single_times(&out[i], "\t");
  }
  free(out);
  return rc;
}

static int client(const client_opts *o) {
  static cli_cert_list issuer, certs, va;
  static gostx_ocsp_request req;
  uint8_t *der = NULL, *resp = NULL;
  size_t der_len = 0, resp_len = 0;
  int rc = 0;
  int64_t now = o->attime ? o->attime : (int64_t)time(NULL);
  if (!o->reqin && (!o->issuer || !o->n_cert))
    return cli_usage("ocsp: -issuer and -cert are needed (or -reqin)");
  if (o->issuer && (rc = cli_load_certs(o->issuer, &issuer))) goto done;
  for (size_t i = 0; i < o->n_cert; i++) {
    size_t before = certs.n;
    if ((rc = cli_load_certs(o->cert[i], &certs))) goto done;
    while (certs.n > before + 1) free(certs.der[--certs.n]); /* the first of each file */
  }
  if (o->vafile && (rc = cli_load_certs(o->vafile, &va))) goto done;
  if ((rc = make_request(o, &issuer, &certs, &req, &der, &der_len))) goto done;
  if (o->req_text) {
    printf("OCSP Request Data:\n    Requestor List:\n");
    for (size_t i = 0; i < req.n; i++) print_certid(&req.id[i]);
    if (req.nonce_len) print_hex("    OCSP Nonce: ", req.nonce, req.nonce_len);
  }
  if (o->reqout && (rc = cli_write_file(o->reqout, der, der_len, 0))) goto done;
  if (o->respin) rc = read_file(o->respin, &resp, &resp_len);
  else if (o->url)
    rc = http_post("ocsp: -url", o->url, "application/ocsp-request", der, der_len, o->timeout, &resp, &resp_len);
  else goto done; /* a request written, nothing more asked */
  if (rc) goto done;
  if (o->respout && (rc = cli_write_file(o->respout, resp, resp_len, 0))) goto done;
  gostx_ocsp_response r;
  if (gostx_ocsp_response_parse(resp, resp_len, &r)) {
    fprintf(stderr, "Response Verify Failure: %s\n", gostx_ocsp_status_name(GOSTX_OCSP_MALFORMED));
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  if (o->resp_text) print_response(&r);
  if (r.status) {
    static const char *const st[] = {"successful", "malformedrequest", "internalerror", "trylater",
                                     "?", "sigrequired", "unauthorized"};
    fprintf(stderr, "Responder Error: %s (%d)\n", r.status <= 6 ? st[r.status] : "?", r.status);
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  if (!issuer.n && !o->noverify) {
    rc = cli_usage("ocsp: -issuer is needed to check the response (or -noverify)");
    goto done;
  }
  if (!o->noverify && (rc = issuer_trusted(o, &issuer, now))) goto done;
  rc = judge(o, &req, &r, &issuer, &va, now);
done:
  free(der), free(resp);
  cli_cert_list_free(&issuer), cli_cert_list_free(&certs), cli_cert_list_free(&va);
  return rc;
}

static int num(const char *opt, const char *v, long max, long *out) {
  uint64_t u;
  if (cli_uint(opt, v, 0, (uint64_t)max, &u)) return CLI_EXIT_USAGE;
  *out = (long)u;
  return 0;
}

int cmd_ocsp(int argc, char **argv) {
  client_opts c = {0};
  ocsp_responder_opts s = {0};
  long v;
  c.hash = GOSTX_OCSP_SHA1, c.timeout = 20, c.skew = GOSTX_OCSP_SKEW_DEFAULT, c.status_age = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (a[0] == '-' && a[1] == '-' && a[2]) a++; /* --opt as -opt */
#define ARG(name) (!strcmp(a, name) && (val ? (i++, 1) : (cli_usage("ocsp: %s needs a value", name), 0)))
#define NEEDV(name) if (!strcmp(a, name) && !val) return cli_usage("ocsp: %s needs a value", name)
    NEEDV("-issuer"); NEEDV("-cert"); NEEDV("-reqout"); NEEDV("-reqin"); NEEDV("-respin");
    NEEDV("-respout"); NEEDV("-url"); NEEDV("-CAfile"); NEEDV("-VAfile"); NEEDV("-timeout");
    NEEDV("-attime"); NEEDV("-validity_period"); NEEDV("-status_age"); NEEDV("-index"); NEEDV("-CA");
    NEEDV("-rsigner"); NEEDV("-rkey"); NEEDV("-passin"); NEEDV("-port"); NEEDV("-bind");
    NEEDV("-threads"); NEEDV("-nmin"); NEEDV("-ndays"); NEEDV("-nrequest");
    if (!strcmp(a, "-h") || !strcmp(a, "-help")) {
      usage(stdout);
      return CLI_EXIT_OK;
    } else if (ARG("-issuer")) c.issuer = val;
    else if (ARG("-cert")) {
      if (c.n_cert == MAX_CERTS) return cli_usage("ocsp: at most %d -cert", MAX_CERTS);
      c.cert[c.n_cert++] = val;
    } else if (ARG("-reqout")) c.reqout = val;
    else if (ARG("-reqin")) c.reqin = s.reqin = val;
    else if (ARG("-respin")) c.respin = val;
    else if (ARG("-respout")) c.respout = s.respout = val;
    else if (ARG("-url")) c.url = val;
    else if (ARG("-CAfile")) c.cafile = val;
    else if (ARG("-VAfile")) c.vafile = val;
    else if (ARG("-timeout")) { if (num(a, val, 3600, &v)) return CLI_EXIT_USAGE; c.timeout = v ? (int)v : 1; }
    else if (ARG("-attime")) { if (num(a, val, 253402300799L, &v)) return CLI_EXIT_USAGE; c.attime = v; }
    else if (ARG("-validity_period")) { if (num(a, val, 1L << 30, &v)) return CLI_EXIT_USAGE; c.skew = v; }
    else if (ARG("-status_age")) { if (num(a, val, 1L << 30, &v)) return CLI_EXIT_USAGE; c.status_age = v; }
    else if (ARG("-index")) s.index = val;
    else if (ARG("-CA")) s.ca = val;
    else if (ARG("-rsigner")) s.rsigner = val;
    else if (ARG("-rkey")) s.rkey = val;
    else if (ARG("-passin")) s.passin = val;
    else if (ARG("-port")) s.port = val;
    else if (ARG("-bind")) s.bind = val;
    else if (ARG("-threads")) { if (num(a, val, 256, &s.threads)) return CLI_EXIT_USAGE; }
    else if (ARG("-nmin")) { if (num(a, val, 1L << 20, &s.nmin)) return CLI_EXIT_USAGE; }
    else if (ARG("-ndays")) { if (num(a, val, 36500, &s.ndays)) return CLI_EXIT_USAGE; }
    else if (ARG("-nrequest")) { if (num(a, val, 1L << 30, &s.nrequest)) return CLI_EXIT_USAGE; }
    else if (!strcmp(a, "-no_nonce")) c.no_nonce = 1;
    else if (!strcmp(a, "-noverify")) c.noverify = 1;
    else if (!strcmp(a, "-resp_text")) c.resp_text = 1;
    else if (!strcmp(a, "-req_text")) c.req_text = 1;
    else if (!strcmp(a, "-text")) c.resp_text = c.req_text = 1;
    else if (!strcmp(a, "-sha1")) c.hash = GOSTX_OCSP_SHA1;
    else if (!strcmp(a, "-md_gost12_256") || !strcmp(a, "-streebog256")) c.hash = GOSTX_OCSP_STREEBOG256;
    else if (!strcmp(a, "-md_gost12_512") || !strcmp(a, "-streebog512")) c.hash = GOSTX_OCSP_STREEBOG512;
    else if (!strcmp(a, "-resp_key_id")) s.resp_key_id = 1;
    else if (!strcmp(a, "-resp_no_certs")) s.resp_no_certs = 1;
    else {
      usage(stderr);
      return cli_usage("ocsp: unknown option '%s'", argv[i]);
    }
#undef ARG
#undef NEEDV
  }
  if (s.index || s.port || s.rsigner) return ocsp_responder(&s);
  return client(&c);
}
