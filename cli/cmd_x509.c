/* gostx x509 verify and show: GOST certificate chains checked as `openssl
 * verify` checks them (its options, its "CERT: OK", exit 2 on a refusal),
 * with lib/x509, and certificates printed. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "crl_file.h"
#include "cli.h"
#include "ocsp_file.h"
#include "commands.h"
#include "verify_opts.h"


enum {
  X_PURPOSE = 1, X_HOST, X_IP, X_DEPTH, X_EMAIL, X_KU, X_LAX, X_STRICT, X_HELP, X_CRLFILE,
  X_CRL_CHECK, X_CRL_CHECK_ALL, X_OCSP_RESP
};

static const cli_opt verify_opts[] = {
    CLI_VERIFY_ROWS,                         CLI_VERIFY_CAPATH_ROW,
    {"purpose", 0, CLI_ARG, X_PURPOSE},      {"verify_depth", 0, CLI_ARG, X_DEPTH},
    {"verify_hostname", 0, CLI_ARG, X_HOST}, {"verify_ip", 0, CLI_ARG, X_IP},
    {"verify_email", 0, CLI_ARG, X_EMAIL},   {"verify_key_usage", 0, CLI_ARG, X_KU},
    {"x509_lax", 0, CLI_NOARG, X_LAX},       {"x509_strict", 0, CLI_NOARG, X_STRICT},
    {"CRLfile", 0, CLI_PATH, X_CRLFILE},     {"crl_check", 0, CLI_NOARG, X_CRL_CHECK},
    {"crl_check_all", 0, CLI_NOARG, X_CRL_CHECK_ALL},
    {"ocsp_resp", 0, CLI_PATH, X_OCSP_RESP},
    {"help", 'h', CLI_NOARG, X_HELP},
    {NULL, 0, 0, 0},
};

/* The keyUsage bits by the names openssl's configuration gives them. */
static const char *const ku_names[] = {"digitalSignature", "nonRepudiation", "keyEncipherment",
                                       "dataEncipherment", "keyAgreement",   "keyCertSign",
                                       "cRLSign",          "encipherOnly",   "decipherOnly"};

/* -verify_key_usage's comma-separated names: their bits into *bits. */
static int key_usage_arg(const char *list, unsigned *bits) {
  for (const char *p = list;;) {
    size_t n = strcspn(p, ","), k = 0;
    while (k < sizeof ku_names / sizeof ku_names[0] &&
           !(strlen(ku_names[k]) == n && !strncmp(p, ku_names[k], n)))
      k++;
    if (k == sizeof ku_names / sizeof ku_names[0])
      return cli_usage("x509 verify: -verify_key_usage: '%.*s' is none of digitalSignature, "
                       "nonRepudiation, keyEncipherment, dataEncipherment, keyAgreement, "
                       "keyCertSign, cRLSign, encipherOnly, decipherOnly", (int)n, p);
    *bits |= 1u << k;
    if (!p[n]) return 0;
    p += n + 1;
  }
}

static void verify_help(void) {
  printf("Usage: gostx x509 verify [-CAfile FILE] [-CApath DIR] [-untrusted FILE]\n"
         "                         [-purpose sslserver|sslclient|any] [-verify_hostname NAME]\n"
         "                         [-verify_ip IP] [-verify_email ADDR] [-verify_key_usage LIST]\n"
         "                         [-attime SECONDS] [-verify_depth N] [-x509_lax | -x509_strict]\n"
         "                         [-CRLfile FILE]... [-crl_check | -crl_check_all]\n"
         "                         [-ocsp_resp FILE]... CERT...\n\n"
         "Verifies each CERT (PEM or DER; its first certificate is the one checked, the\n"
         "others count as -untrusted) as `openssl verify` does, for GOST certificates: a\n"
         "chain built from the -untrusted certificates, in any order, to an anchor of\n"
         "-CAfile (one or more PEM blocks) or -CApath (every such file in DIR), each\n"
         "candidate issuer tried until a path passes (when none does, the failure of\n"
         "the most complete path is said), the GOST R 34.10-2012 (256, 512) and\n"
         "34.10-2001 signatures, validity at -attime\n"
         "(seconds since 1970; default now), basicConstraints and pathLenConstraint\n"
         "(self-issued CAs not counted), keyUsage (keyCertSign for issuers;\n"
         "digitalSignature for sslserver and sslclient leaves), extendedKeyUsage\n"
         "(serverAuth or clientAuth), nameConstraints (DNS, IP, email, dirName),\n"
         "certificate policies as RFC 5280 6.1 (initial policy set anyPolicy), unknown\n"
         "critical extensions, and the name: -verify_hostname against subjectAltName\n"
         "dNSName (RFC 6125: a left-most \"*\" label only), -verify_ip against iPAddress,\n"
         "-verify_email against rfc822Name (else the subject's emailAddress; the local\n"
         "part exact, the domain in any case). -verify_key_usage: the leaf's keyUsage,\n"
         "when it has one, must have each bit named (openssl's names, comma-separated:\n"
         "digitalSignature, keyEncipherment, ...), with no extendedKeyUsage asked.\n"
         "RFC 5280's profile rules (docs/X509.md: key identifiers, critical constraints,\n"
         "no keyCertSign in a leaf, DNS names' syntax, ...) are enforced as openssl's\n"
         "-x509_strict does (-x509_strict is taken and changes nothing); -x509_lax\n"
         "leaves them out.\n"
         "Revocation: -crl_check asks CERT's status, -crl_check_all every certificate's\n"
         "but the anchor's, from the CRLs of -CRLfile (repeatable; PEM, several to a\n"
         "file, or DER), at -attime: each CRL must be the issuer's (its name, its\n"
         "signature; cRLSign), without an unknown critical extension, cover the\n"
         "certificate (issuingDistributionPoint) and not be stale (nextUpdate passed);\n"
         "\"certificate revoked\" names the reason and date; a revocation after -attime\n"
         "is none at it. Delta and indirect CRLs are refused by name.\n"
         "-ocsp_resp: OCSP responses (DER, repeatable) for the same certificates (CERT\n"
         "alone without -crl_check_all): one naming the certificate decides first when\n"
         "its signer (the issuer or a delegated OCSPSigning responder) and times pass;\n"
         "\"revoked\" at or before -attime fails, after it passes; \"unknown\", stale and\n"
         "invalid responses fail by name when no CRL decides instead.\n"
         "Names chain after RFC 4518 preparation. Certificates of other algorithms in\n"
         "the anchor files are passed over. -verify_depth N: at most N intermediate\n"
         "certificates between CERT and the anchor (openssl's meaning). Limits: a path\n"
         "of at most %d certificates, %d signatures checked while building paths, at\n"
         "most %d certificates in a CERT file and -untrusted together.\n\n"
         "Prints \"CERT: OK\", or on stderr the failed certificate's subject, \"error at\n"
         "depth D: CHECK: reason\" (depth 0 = CERT) and \"error CERT: verification failed\".\n"
         "Exit status: 0 all verified, 2 a refusal or a usage error, 1 a file unreadable.\n",
         GOSTX_X509_MAX_DEPTH, GOSTX_X509_MAX_TRIES, CLI_CERTS_MAX);
}

static int verify_one(const char *path, const gostx_x509_store *store, const cli_cert_list *untrusted,
                      gostx_x509_verify_opts *o, const char *host, const char *ip) {
  cli_cert_list *l = calloc(1, sizeof *l);
  if (!l) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  int rc = cli_load_certs(path, l);
  for (size_t i = 0; !rc && i < untrusted->n; i++) {
    if (l->n == CLI_CERTS_MAX) {
      cli_err("%s: with -untrusted, more than %d certificates (gostx x509 verify's limit)", path,
              CLI_CERTS_MAX);
      rc = CLI_EXIT_FAIL;
      break;
    }
    l->c[l->n] = untrusted->c[i]; /* views into untrusted's copies; not freed here */
    l->der[l->n++] = NULL;
  }
  if (rc) {
    for (size_t i = 0; i < l->n; i++) free(l->der[i]);
    free(l);
    return rc;
  }
  gostx_x509_verify_result r;
  o->name = host;
  gostx_x509_status st = gostx_x509_verify_with(store, l->c, l->n, o, &r);
  o->name = ip;
  if (st == GOSTX_X509_OK && ip) st = gostx_x509_verify_with(store, l->c, l->n, o, &r);
  if (st == GOSTX_X509_OK) {
    printf("%s: OK\n", path);
  } else {
    char subject[512]; /* the failed certificate's, as openssl prints it */
    const size_t depth = r.depth;
    if (depth < r.path_len &&
        !gostx_x509_name_text(r.path[depth]->subject, r.path[depth]->subject_len, subject,
                              sizeof subject))
      fprintf(stderr, "%s\n", subject);
    fprintf(stderr, "error at depth %zu: %s\nerror %s: verification failed\n", depth, r.why,
            path);
    rc = CLI_EXIT_USAGE; /* openssl verify's 2 */
  }
  for (size_t i = 0; i < l->n; i++) free(l->der[i]);
  free(l);
  return rc;
}

static int cmd_x509_verify(int argc, char **argv) {
  cli_parser p;
  cli_parser_init_openssl(&p, "x509 verify", argc, argv, verify_opts);
  const char *host = NULL, *ip = NULL;
  cli_verify_args va;
  cli_verify_args_init(&va, "x509 verify", 1);
  const char *paths[256];
  size_t npaths = 0;
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, (int64_t)time(NULL));
  int id, rc = 0;
  uint64_t v;
  cli_crl_list *crls = calloc(1, sizeof *crls);
  cli_ocsp_list *ocsps = calloc(1, sizeof *ocsps);
  if (!crls || !ocsps) {
    free(crls);
    free(ocsps);
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  while (!rc && (id = cli_next(&p, verify_opts)) != CLI_END) {
    switch (id) {
      case X_CRLFILE: rc = cli_load_crls(p.arg, crls); break;
      case X_OCSP_RESP: rc = cli_load_ocsp(p.arg, ocsps); break;
      case X_CRL_CHECK: o.crl_check = GOSTX_X509_CRL_CHECK_LEAF; break;
      case X_CRL_CHECK_ALL: o.crl_check = GOSTX_X509_CRL_CHECK_ALL; break;
      CLI_VERIFY_CASES: rc = cli_verify_opt(&va, id, p.arg); break;
      case X_PURPOSE:
        if (!strcmp(p.arg, "sslserver"))
          o.purpose = GOSTX_X509_PURPOSE_SERVER;
        else if (!strcmp(p.arg, "sslclient"))
          o.purpose = GOSTX_X509_PURPOSE_CLIENT;
        else if (!strcmp(p.arg, "any"))
          o.purpose = GOSTX_X509_PURPOSE_ANY;
        else
          rc = cli_usage("x509 verify: -purpose: sslserver, sslclient or any, not '%s'", p.arg);
        break;
      case X_HOST: host = p.arg; break;
      case X_IP: {
        uint8_t a[16];
        if (inet_pton(AF_INET, p.arg, a) != 1 && inet_pton(AF_INET6, p.arg, a) != 1)
          rc = cli_usage("x509 verify: -verify_ip: '%s' is no IPv4 or IPv6 address", p.arg);
        ip = p.arg;
        break;
      }
      case X_DEPTH: /* openssl's range; past GOSTX_X509_MAX_DEPTH - 2 the path limit decides */
        rc = cli_uint("-verify_depth", p.arg, 0, INT32_MAX, &v);
        o.max_intermediates = (int)v;
        break;
      case X_EMAIL:
        if (!strchr(p.arg, '@') || p.arg[0] == '@' || p.arg[strlen(p.arg) - 1] == '@')
          rc = cli_usage("x509 verify: -verify_email: '%s' is no local@domain address", p.arg);
        o.email = p.arg;
        break;
      case X_KU: rc = key_usage_arg(p.arg, &o.key_usage); break;
      case X_LAX: o.flags |= GOSTX_X509_VERIFY_LAX; break;
      case X_STRICT: break; /* openssl's; gostx is strict unless -x509_lax */
      case X_HELP: verify_help(); rc = -1; break;
      case CLI_POS:
        if (npaths == sizeof paths / sizeof paths[0])
          rc = cli_usage("x509 verify: too many certificates");
        else
          paths[npaths++] = p.pos;
        break;
      default: rc = CLI_EXIT_USAGE;
    }
  }
  if (!rc && !npaths) rc = cli_usage("x509 verify: no certificate given (see --help)");
  if (!rc && !va.cafile && !va.capath) rc = cli_usage("x509 verify: -CAfile or -CApath is needed");
  if (!rc && host && !*host) rc = cli_usage("x509 verify: -verify_hostname: empty name");
  if (!rc && crls->n && !o.crl_check)
    cli_err("warning: x509 verify: -CRLfile without -crl_check or -crl_check_all is not used");
  o.now = va.attime;
  o.crls = crls->c;
  o.n_crls = crls->n;
  o.ocsps = ocsps->r;
  o.n_ocsps = ocsps->n;
  if (rc) {
    cli_crl_list_free(crls);
    free(crls);
    cli_ocsp_list_free(ocsps);
    free(ocsps);
    return rc < 0 ? CLI_EXIT_OK : rc;
  }
  gostx_x509_store *store = NULL;
  cli_cert_list *untrusted = calloc(1, sizeof *untrusted);
  rc = untrusted ? cli_verify_store(&va, &store) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = cli_verify_untrusted(&va, untrusted);
  int worst = 0;
  for (size_t i = 0; !rc && i < npaths; i++) {
    int r = verify_one(paths[i], store, untrusted, &o, host, ip);
    if (r == CLI_EXIT_FAIL) worst = CLI_EXIT_FAIL;
    if (r == CLI_EXIT_USAGE && worst != CLI_EXIT_FAIL) worst = CLI_EXIT_USAGE;
  }
  if (untrusted) cli_cert_list_free(untrusted);
  free(untrusted);
  gostx_x509_store_free(store);
  cli_crl_list_free(crls);
  free(crls);
  cli_ocsp_list_free(ocsps);
  free(ocsps);
  return rc ? rc : worst;
}

/* ---- show ---- */

static void print_time(const char *what, int64_t t) {
  time_t tt = (time_t)t;
  struct tm tm;
  char buf[64];
  if (gmtime_r(&tt, &tm) && strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm))
    printf("%s%s\n", what, buf);
  else
    printf("%s%lld\n", what, (long long)t);
}

static void print_name(const char *what, const uint8_t *name, size_t len) {
  char text[1024];
  if (gostx_x509_name_text(name, len, text, sizeof text)) snprintf(text, sizeof text, "(malformed)");
  printf("%s%s\n", what, text);
}

static void show_one(const gostx_x509_cert *c) {
  static const char *const sig_names[] = {"", "GOST R 34.10-2012 with Streebog-256",
                                          "GOST R 34.10-2012 with Streebog-512",
                                          "GOST R 34.10-2001 with GOST R 34.11-94"};
  static const char *const key_names[] = {"", "GOST R 34.10-2012 256-bit", "GOST R 34.10-2012 512-bit",
                                          "GOST R 34.10-2001"};
  char hex[2 * 21 + 1];
  print_name("subject:    ", c->subject, c->subject_len);
  print_name("issuer:     ", c->issuer, c->issuer_len);
  cli_hex_str(c->serial, c->serial_len, hex);
  printf("serial:     %s\nversion:    %d\n", hex, c->version);
  print_time("notBefore:  ", c->not_before);
  print_time("notAfter:   ", c->not_after);
  printf("key:        %s, %s (%s)\n", key_names[c->key_alg], gostx_gost3410_curve_short_name(c->curve),
         gostx_gost3410_curve_name(c->curve));
  printf("signature:  %s\n", sig_names[c->sig_alg]);
  if (c->is_ca || c->path_len >= 0) {
    printf("basicConstraints: CA:%s", c->is_ca ? "TRUE" : "FALSE");
    if (c->path_len >= 0) printf(", pathlen:%d", c->path_len);
    printf("\n");
  }
  if (c->key_usage != ~0u) {
    printf("keyUsage:  ");
    for (unsigned b = 0; b < 9; b++)
      if (c->key_usage & (1u << b)) printf(" %s", ku_names[b]);
    printf("\n");
  }
  if (c->ext_key_usage != ~0u)
    printf("extendedKeyUsage:%s%s%s%s\n", c->ext_key_usage & GOSTX_X509_EKU_SERVER ? " serverAuth" : "",
           c->ext_key_usage & GOSTX_X509_EKU_CLIENT ? " clientAuth" : "",
           c->ext_key_usage & GOSTX_X509_EKU_IPSEC_IKE ? " ipsecIKE" : "",
           c->ext_key_usage & GOSTX_X509_EKU_ANY ? " anyExtendedKeyUsage" : "");
  if (c->san) {
    size_t pos = 0, len;
    int type;
    const uint8_t *v;
    printf("subjectAltName:");
    while (gostx_x509_san_next(c, &pos, &type, &v, &len) == 1) {
      char addr[INET6_ADDRSTRLEN];
      if (type == GOSTX_X509_SAN_DNS)
        printf(" DNS:%.*s", (int)len, (const char *)v); /* printable: the parser checked */
      else if (type == GOSTX_X509_SAN_IP && inet_ntop(len == 4 ? AF_INET : AF_INET6, v, addr, sizeof addr))
        printf(" IP:%s", addr);
      else
        printf(" [%d]", type);
    }
    printf("\n");
  }
  if (c->name_constraints) printf("nameConstraints: present\n");
  if (c->policies) printf("certificatePolicies: present\n");
  if (c->policy_mappings) printf("policyMappings: present\n");
  if (c->require_explicit_policy >= 0) printf("requireExplicitPolicy: %d\n", c->require_explicit_policy);
  if (c->inhibit_policy_mapping >= 0) printf("inhibitPolicyMapping: %d\n", c->inhibit_policy_mapping);
  if (c->inhibit_any_policy >= 0) printf("inhibitAnyPolicy: %d\n", c->inhibit_any_policy);
  if (c->unknown_critical) printf("unknown critical extension: yes\n");
}

static int cmd_x509_show(int argc, char **argv) {
  static const cli_opt opts[] = {{"help", 'h', CLI_NOARG, X_HELP}, {NULL, 0, 0, 0}};
  cli_parser p;
  cli_parser_init(&p, "x509 show", argc, argv);
  int id, rc = 0, any = 0;
  while (!rc && (id = cli_next(&p, opts)) != CLI_END) {
    if (id == X_HELP) {
      printf("Usage: gostx x509 show CERT...\n\n"
             "Prints each certificate of each CERT file (PEM blocks or one DER certificate):\n"
             "subject, issuer, serial, validity, key algorithm and curve, signature\n"
             "algorithm, basicConstraints, keyUsage, extendedKeyUsage, subjectAltName.\n");
      return CLI_EXIT_OK;
    }
    if (id != CLI_POS) return CLI_EXIT_USAGE;
    cli_cert_list *l = calloc(1, sizeof *l);
    if (!l) return CLI_EXIT_FAIL;
    rc = cli_load_certs(p.pos, l);
    for (size_t i = 0; !rc && i < l->n; i++) {
      if (any++) printf("\n");
      show_one(&l->c[i]);
    }
    cli_cert_list_free(l);
    free(l);
  }
  if (!rc && !any) return cli_usage("x509 show: no certificate given");
  return rc;
}

int cmd_x509(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "-req")) return cmd_x509_req(argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "verify")) return cmd_x509_verify(argc - 1, argv + 1);
  if (argc >= 2 && !strcmp(argv[1], "show")) return cmd_x509_show(argc - 1, argv + 1);
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("Usage: gostx x509 verify [OPTIONS] CERT...   check GOST certificate chains\n"
           "       gostx x509 show CERT...               print certificates\n"
           "       gostx x509 -req -in CSR -CA C [...]   issue a certificate from a request\n"
           "Run `gostx x509 verify --help` (or -req --help) for the options.\n");
    return CLI_EXIT_OK;
  }
  return cli_usage("x509: verify, show or -req (see gostx x509 --help)");
}
