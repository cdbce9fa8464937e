/* gostx xml sign / verify: XML signatures (XMLDSig) with GOST keys through
 * libgostx-xmldsig (integrations/xmldsig/, over libxml2). Built into the
 * command only when libxml2 is found. verify writes what was signed (each
 * Reference's canonical octets) and nothing else: an application consumes
 * that output, never the document it came in. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "../commands.h"
#include "verify_opts.h"
#include "xml_stream.h"

enum { O_IN = 1, O_OUT, O_REF, O_KEY, O_CERT, O_PASSIN, O_C14N, O_SIGNED, O_SMEV, O_LAX, O_ENVELOPING, O_DETACHED, O_WSSE, O_CERTFILE, O_STREAM, O_HELP };

static const cli_opt opts[] = {
    {"in", 0, CLI_PATH, O_IN},        {"out", 0, CLI_PATH, O_OUT},
    {"ref", 0, CLI_ARG, O_REF},       {"key", 0, CLI_PATH, O_KEY},
    {"cert", 0, CLI_PATH, O_CERT},    {"passin", 0, CLI_ARG, O_PASSIN},
    {"c14n", 0, CLI_NOARG, O_C14N},   CLI_VERIFY_ROWS,
    {"out-signed", 0, CLI_PATH, O_SIGNED},
    {"smev", 0, CLI_NOARG, O_SMEV},   {"x509_lax", 0, CLI_NOARG, O_LAX},
    {"enveloping", 0, CLI_NOARG, O_ENVELOPING}, {"detached", 0, CLI_NOARG, O_DETACHED},
    {"wsse", 0, CLI_NOARG, O_WSSE},
    {"certfile", 0, CLI_PATH, O_CERTFILE},     {"stream", 0, CLI_NOARG, O_STREAM},
    {"help", 'h', CLI_NOARG, O_HELP}, {NULL, 0, 0, 0},
};

static void help(void) {
  printf("Usage: gostx xml sign -in F.xml -ref ID|'' -key KEY [-passin SPEC] -cert CERT\n"
         "                      [-certfile F] [-enveloping | -detached | -wsse] [-c14n] [-smev]\n"
         "                      [-stream] -out F.xml\n"
         "       gostx xml verify -in F.xml -CAfile CA [-untrusted F] [-attime SECONDS]\n"
         "                        [-x509_lax]\n"
         "                        [-stream] [-out-signed F]\n\n"
         "sign: an enveloped XMLDSig signature of the whole document (-ref '') or of the\n"
         "element whose Id is ID, as that element's last child; -enveloping: the document\n"
         "inside the Signature's ds:Object (Id ID, or \"object\"); -detached: beside the\n"
         "element of ID (inside an empty *Signature element that follows it, as SMEV 3's\n"
         "CallerInformationSystemSignature); -wsse: WS-Security's form, the Signature in\n"
         "the SOAP Header's wsse:Security beside a BinarySecurityToken of CERT, KeyInfo a\n"
         "SecurityTokenReference to it (-ref '': the Body). Exclusive c14n (-c14n:\n"
         "Canonical XML 1.0), Streebog-256/512 and GOST R 34.10-2012 by the key's size\n"
         "(urn:ietf:params:xml:ns:cpxmlsec:algorithms:*), CERT in KeyInfo/X509Data; -smev\n"
         "adds SMEV 3's transform (urn://smev-gov-ru/xmldsig/transform) after the c14n.\n"
         "-certfile: intermediates put in X509Data after CERT.\n"
         "verify: every Signature (SMEV 3's responses carry two), each with every\n"
         "Reference, the SignatureValue, and the certificate's chain to an anchor of\n"
         "-CAfile through the other certificates of its KeyInfo and -untrusted's (as gostx\n"
         "x509 verify: the same statuses, \"error at depth D: ...\"; -attime, -x509_lax as\n"
         "there). Writes what was signed (each Reference's octets after its transforms)\n"
         "to -out-signed or stdout, a line per Signature (where it is, its signer, what\n"
         "it covered) and \"Verified OK\" to stderr; refusals are named, with the\n"
         "Signature's number when there are more. DOCTYPEs, XPath and XSLT transforms,\n"
         "duplicated Ids, copied signatures and References into another Signature are\n"
         "refused.\n"
         "-stream: an enveloping signature (exclusive c14n, no -smev) signed or verified\n"
         "in memory bounded whatever the document's size, as documents over 64 MiB\n"
         "always are. docs/XMLDSIG.md.\n");
}

typedef struct {
  const char *in, *out, *ref, *key, *cert, *passin, *signed_out, *certfile;
  cli_verify_args v; /* -CAfile, -untrusted (one); its -attime unused: */
  const char *attime; /* read only when verifying (sign takes and ignores it) */
  int c14n, smev, lax, wsse, stream;
  gostx_xmldsig_form form;
} xml_args;

static int do_sign(const xml_args *a) {
  if (!a->in || !a->ref || !a->key || !a->cert || !a->out)
    return cli_usage("xml sign: -in, -ref, -key, -cert and -out are needed (see --help)");
  gostx_gost3410_key k;
  memset(&k, 0, sizeof k);
  cli_cert_list *certs = calloc(1, sizeof *certs);
  if (!certs) return cli_err("out of memory"), CLI_EXIT_FAIL;
  int rc = a->passin ? cli_load_key_pass(a->key, &k, "-passin", a->passin) : cli_load_key(a->key, &k);
  if (!rc && !gostx_gost3410_key_is_private(&k)) rc = cli_usage("xml sign: %s is no private key", a->key);
  if (!rc) rc = cli_key_2012("xml sign", a->key, &k);
  if (!rc) rc = cli_load_certs(a->cert, certs);
  cli_cert_list *chain = calloc(1, sizeof *chain);
  if (!rc && !chain) rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc && a->certfile) rc = cli_load_certs(a->certfile, chain);
  uint8_t *out = NULL;
  size_t out_len = 0;
  xml_input x = {0};
  if (!rc) rc = xml_input_open(&x, a->in, a->stream);
  gostx_xmldsig_sign_opts o = {.ref = a->ref, .form = a->form, .inclusive = a->c14n, .smev = a->smev, .wsse = a->wsse,
                               .cert_der = certs->c[0].der, .cert_len = certs->c[0].der_len,
                               .chain = chain ? chain->c : NULL, .chain_n = chain ? chain->n : 0};
  int stream = !rc && (a->stream || x.big);
  if (stream && (a->form != GOSTX_XMLDSIG_ENVELOPING || a->c14n || a->smev)) {
    cli_err("xml sign: %s: %s", a->in, a->stream ? "-stream: -enveloping only, without -c14n or -smev"
            : "too large: a document over 64 MiB is signed only -enveloping, without -c14n "
              "or -smev (streamed)");
    rc = a->stream ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
  } else if (stream) {
    rc = xml_sign_stream(&x, a->in, a->out, &o, &k);
  } else if (!rc) {
    char err[300];
    gostx_xmldsig_status st = gostx_xmldsig_sign(x.head, x.len, &o, &k, &out, &out_len, err, sizeof err);
    if (st) {
      cli_err("xml sign: %s: %s: %s", a->in, gostx_xmldsig_status_name(st), err);
      rc = CLI_EXIT_FAIL;
    }
  }
  if (!rc && !stream) rc = cli_write_file(a->out, out, out_len, 0);
  xml_input_close(&x);
  free(out);
  cli_cert_list_free(certs);
  free(certs);
  if (chain) cli_cert_list_free(chain);
  free(chain);
  gostx_gost3410_key_clear(&k);
  return rc;
}

static int do_verify(const xml_args *a) {
  if (!a->in || !a->v.cafile) return cli_usage("xml verify: -in and -CAfile are needed (see --help)");
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, (int64_t)time(NULL));
  if (a->attime && cli_attime(a->attime, &o.now)) return CLI_EXIT_USAGE;
  if (a->lax) o.flags |= GOSTX_X509_VERIFY_LAX;
  gostx_x509_store *store = NULL;
  cli_cert_list *untrusted = calloc(1, sizeof *untrusted);
  int rc = untrusted ? cli_verify_store(&a->v, &store) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = cli_verify_untrusted(&a->v, untrusted);
  xml_input x = {0};
  if (!rc) rc = xml_input_open(&x, a->in, a->stream);
  gostx_xmldsig_result r;
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  int stream = a->stream || x.big;
  if (!rc && stream) /* what was signed is written as it comes, kept only when verified */
    rc = xml_verify_stream(&x, a->signed_out, store, &o, untrusted, &st, &r);
  else if (!rc)
    st = gostx_xmldsig_verify_untrusted(x.head, x.len, store, &o, untrusted->c, untrusted->n, &r);
  if (!rc) {
    if (st) {
      /* which Signature, when the document has more than one */
      char which[200] = "";
      if (r.failed && r.nsig > 1)
        snprintf(which, sizeof which, "Signature %zu of %zu%s%s: ", r.failed, r.nsig,
                 r.sig[r.failed - 1].where[0] ? " in " : "", r.sig[r.failed - 1].where);
      if (st == GOSTX_XMLDSIG_CHAIN && r.subject[0]) fprintf(stderr, "%s\n", r.subject);
      if (st == GOSTX_XMLDSIG_CHAIN) /* as gostx x509 verify names the check */
        cli_err("xml verify: %s: %scertificate chain: error at depth %zu: %s", a->in, which,
                r.depth, r.why);
      else
        cli_err("xml verify: %s: %s%s: %s", a->in, which, gostx_xmldsig_status_name(st), r.why);
      rc = CLI_EXIT_FAIL;
    } else {
      if (!stream) rc = cli_write_file(a->signed_out, r.signed_data, r.signed_len, 0);
      for (size_t i = 0; !rc && i < r.nsig; i++) /* what each Signature covered, and whose */
        fprintf(stderr, "Signature %zu of %zu%s%s by %s: %s\n", i + 1, r.nsig,
                r.sig[i].where[0] ? " in " : "", r.sig[i].where,
                r.sig[i].subject[0] ? r.sig[i].subject : "(no subject)", r.sig[i].covers);
      if (!rc && r.nsig > 1)
        fprintf(stderr, "Verified OK (%zu signatures, %zu references)\n", r.nsig, r.refs);
      else if (!rc)
        fprintf(stderr, "Verified OK (%zu reference%s)\n", r.refs, r.refs == 1 ? "" : "s");
      gostx_xmldsig_result_free(&r);
    }
  }
  xml_input_close(&x);
  if (untrusted) cli_cert_list_free(untrusted);
  free(untrusted);
  gostx_x509_store_free(store);
  return rc;
}

int cmd_xml(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "sign") && strcmp(argv[1], "verify"))) {
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) return help(), 0;
    return cli_usage("xml: sign or verify (see gostx xml --help)");
  }
  int sign = !strcmp(argv[1], "sign");
  cli_parser p;
  cli_parser_init_openssl(&p, sign ? "xml sign" : "xml verify", argc - 1, argv + 1, opts);
  xml_args a = {0};
  cli_verify_args_init(&a.v, "xml verify", 1);
  int id;
  while ((id = cli_next(&p, opts)) != CLI_END) {
    switch (id) {
      case O_IN: a.in = p.arg; break;
      case O_OUT: a.out = p.arg; break;
      case O_REF: a.ref = p.arg; break;
      case O_KEY: a.key = p.arg; break;
      case O_CERT: a.cert = p.arg; break;
      case O_PASSIN: a.passin = p.arg; break;
      case O_C14N: a.c14n = 1; break;
      case O_SMEV: a.smev = 1; break;
      case O_LAX: a.lax = 1; break;
      case O_WSSE: a.wsse = 1; break;
      case O_CERTFILE: a.certfile = p.arg; break;
      case O_STREAM: a.stream = 1; break;
      case O_ENVELOPING:
      case O_DETACHED:
        if (a.form) return cli_usage("xml sign: -enveloping and -detached are two forms: one");
        a.form = id == O_ENVELOPING ? GOSTX_XMLDSIG_ENVELOPING : GOSTX_XMLDSIG_DETACHED;
        break;
      case CLI_V_ATTIME: a.attime = p.arg; break;
      case CLI_V_CAFILE:
      case CLI_V_UNTRUSTED: cli_verify_opt(&a.v, id, p.arg); break; /* no refusal: one file */
      case O_SIGNED: a.signed_out = p.arg; break;
      case O_HELP: help(); return CLI_EXIT_OK;
      case CLI_POS: return cli_usage("xml: unexpected argument '%s'", p.pos);
      default: return CLI_EXIT_USAGE;
    }
  }
  return sign ? do_sign(&a) : do_verify(&a);
}
