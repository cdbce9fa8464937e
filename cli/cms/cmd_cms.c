/* gostx cms: CMS with GOST keys (lib/cms), with openssl cms's option
 * names so scripts carry over: -sign, -verify, -cmsout [-print],
 * -encrypt, -decrypt, -EncryptedData_encrypt/_decrypt, -digest_create/_verify.
 * A detached signature's content is read in chunks (never whole in
 * memory); outputs are put in place only when complete (cli_out), and
 * nothing is written when signing or verification fails. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cms_cli.h"
#include "../commands.h"


enum {
  C_SIGN = 1, C_VERIFY, C_CMSOUT, C_PRINT, C_IN, C_OUT, C_SIGNER, C_INKEY, C_PASSIN, C_CERTFILE,
  C_NODETACH, C_CADES, C_NOATTR, C_NOCERTS, C_NOSIGNINGTIME, C_BINARY, C_OUTFORM, C_INFORM,
  C_CONTENT, C_NOVERIFY, C_PURPOSE, C_TSA_QUERY, C_TSA_REPLY,
  C_TIMESTAMP, C_HELP,
  C_ENCRYPT, C_DECRYPT, C_ED_ENCRYPT, C_ED_DECRYPT, C_DIGEST_CREATE, C_DIGEST_VERIFY, C_RECIP,
  C_SECRETKEY, C_MD, C_ORIGINATOR, C_KUZ, C_MAGMA, C_OMAC, C_KUZ_CTR, C_KUZ_OMAC, C_MAGMA_CTR, C_MAGMA_OMAC,
  C_GOST89, C_KEYID, C_KARI, C_ORIGINATOR_KEY,
  C_ENHANCE, C_TO, C_TSA, C_OCSP, C_OCSP_RESP, C_CRLFILE
};

static const cli_opt cms_opts[] = {
    {"sign", 0, CLI_NOARG, C_SIGN},         {"verify", 0, CLI_NOARG, C_VERIFY},
    {"cmsout", 0, CLI_NOARG, C_CMSOUT},     {"print", 0, CLI_NOARG, C_PRINT},
    {"in", 0, CLI_PATH, C_IN},              {"out", 0, CLI_PATH, C_OUT},
    {"signer", 0, CLI_PATH, C_SIGNER},      {"inkey", 0, CLI_PATH, C_INKEY},
    {"passin", 0, CLI_ARG, C_PASSIN},       {"certfile", 0, CLI_PATH, C_CERTFILE},
    {"nodetach", 0, CLI_NOARG, C_NODETACH}, {"cades", 0, CLI_NOARG, C_CADES},
    {"noattr", 0, CLI_NOARG, C_NOATTR},     {"nocerts", 0, CLI_NOARG, C_NOCERTS},
    {"no_signing_time", 0, CLI_NOARG, C_NOSIGNINGTIME},
    {"binary", 0, CLI_NOARG, C_BINARY},     {"outform", 0, CLI_ARG, C_OUTFORM},
    {"inform", 0, CLI_ARG, C_INFORM},       {"content", 0, CLI_PATH, C_CONTENT},
    CLI_VERIFY_ROWS,                        CLI_VERIFY_CAPATH_ROW,
    {"noverify", 0, CLI_NOARG, C_NOVERIFY}, {"purpose", 0, CLI_ARG, C_PURPOSE},
    {"tsa-query", 0, CLI_PATH, C_TSA_QUERY}, {"tsa-reply", 0, CLI_PATH, C_TSA_REPLY},
    {"help", 'h', CLI_NOARG, C_HELP},
    {"encrypt", 0, CLI_NOARG, C_ENCRYPT},   {"decrypt", 0, CLI_NOARG, C_DECRYPT},
    {"EncryptedData_encrypt", 0, CLI_NOARG, C_ED_ENCRYPT},
    {"EncryptedData_decrypt", 0, CLI_NOARG, C_ED_DECRYPT},
    {"digest_create", 0, CLI_NOARG, C_DIGEST_CREATE},
    {"digest_verify", 0, CLI_NOARG, C_DIGEST_VERIFY},
    {"recip", 0, CLI_PATH, C_RECIP},        {"secretkey", 0, CLI_ARG, C_SECRETKEY},
    {"originator", 0, CLI_PATH, C_ORIGINATOR}, {"originator-key", 0, CLI_PATH, C_ORIGINATOR_KEY},
    {"keyid", 0, CLI_NOARG, C_KEYID},       {"kari", 0, CLI_NOARG, C_KARI},
    {"md", 0, CLI_ARG, C_MD},               {"kuznyechik", 0, CLI_NOARG, C_KUZ},
    {"magma", 0, CLI_NOARG, C_MAGMA},       {"omac", 0, CLI_NOARG, C_OMAC},
    /* openssl cms's cipher options (gost-engine's names) */
    {"kuznyechik-ctr-acpkm", 0, CLI_NOARG, C_KUZ_CTR},
    {"kuznyechik-ctr-acpkm-omac", 0, CLI_NOARG, C_KUZ_OMAC},
    {"magma-ctr-acpkm", 0, CLI_NOARG, C_MAGMA_CTR},
    {"magma-ctr-acpkm-omac", 0, CLI_NOARG, C_MAGMA_OMAC},
    {"gost89", 0, CLI_NOARG, C_GOST89},
    /* -enhance (cms_enhance.c) */
    {"enhance", 0, CLI_NOARG, C_ENHANCE},   {"to", 0, CLI_ARG, C_TO},
    {"tsa", 0, CLI_ARG, C_TSA},             {"ocsp", 0, CLI_ARG, C_OCSP},
    {"ocsp-resp", 0, CLI_PATH, C_OCSP_RESP}, {"ocsp_resp", 0, CLI_PATH, C_OCSP_RESP},
    {"CRLfile", 0, CLI_PATH, C_CRLFILE},
    {NULL, 0, 0, 0},
};

static void cms_help(void) {
  printf(
      "Usage: gostx cms -sign -in FILE -signer CERT -inkey KEY [-passin ARG]\n"
      "                 [-signer CERT -inkey KEY ...] [-certfile CHAIN] [-nodetach]\n"
      "                 [-cades] [-noattr] [-nocerts] [-no_signing_time]\n"
      "                 [-outform PEM|DER] [-out FILE.sig]\n"
      "       gostx cms -verify -in FILE.sig [-inform PEM|DER] [-content FILE]\n"
      "                 (-CAfile CA | -CApath DIR | -noverify) [-untrusted FILE]\n"
      "                 [-certfile FILE] [-attime SECONDS] [-purpose NAME] [-out FILE]\n"
      "       gostx cms [-cades] -tsa-query FILE.tsq -in FILE.sig [-inform ..]\n"
      "       gostx cms -tsa-reply FILE.tsr -in FILE.sig (-CAfile TSA-CA | -noverify)\n"
      "                 [-untrusted FILE] [-outform ..] -out FILE-T.sig\n"
      "       gostx cms -enhance -in FILE.sig -to T|XL1 (-tsa URL | -tsa-reply FILE.tsr\n"
      "                 [-tsa-query FILE.tsq]) [-ocsp URL] [-ocsp-resp FILE]... [-CRLfile FILE]...\n"
      "                 -CAfile CA [-untrusted FILE] [-noverify] [-outform ..] -out FILE\n"
      "       gostx cms -cmsout [-print] -in FILE.sig [-inform ..] [-outform ..] [-out FILE]\n"
      "       gostx cms -encrypt -recip CERT [-recip CERT ...] [-kuznyechik|-magma|-gost89]\n"
      "                 [-omac] [-kari [-originator CERT -originator-key KEY [-passin ARG]]]\n"
      "                 [-keyid] -in FILE [-outform PEM|DER] [-out FILE.p7m]\n"
      "       gostx cms -decrypt [-recip CERT] -inkey KEY [-passin ARG] [-originator CERT]\n"
      "                 -in FILE.p7m [-out FILE]\n"
      "       gostx cms -EncryptedData_encrypt -secretkey HEX [-kuznyechik|-magma|-gost89] [-omac]\n"
      "                 -in F\n"
      "       gostx cms -EncryptedData_decrypt -secretkey HEX -in F [-out F]\n"
      "       gostx cms -digest_create [-md streebog256|streebog512] -in F [-out F]\n"
      "       gostx cms -digest_verify -in F [-out CONTENT]\n\n"
      "CMS SignedData (RFC 5652) with GOST R 34.10-2012 keys, as openssl cms -engine gost\n"
      "writes and reads it: Streebog-256 or -512 by key size, the signed attributes\n"
      "contentType, messageDigest, signingTime (-no_signing_time: none; -noattr: no\n"
      "attributes at all) and, with -cades, signingCertificateV2 (CAdES-BES).\n"
      "-sign: detached unless -nodetach (the content is read in chunks; -nodetach from\n"
      "a pipe writes BER, indefinite lengths, as openssl cms -stream); the signer's\n"
      "certificate and -certfile's go into the message (-nocerts: the signers' not).\n"
      "Output PEM (\"CMS\") unless -outform DER; S/MIME is not written. The content is\n"
      "signed as its bytes (openssl's -binary; -binary is accepted).\n"
      "-verify: every signer's messageDigest, signature, signingCertificateV2, keyUsage\n"
      "(digitalSignature or nonRepudiation) and chain to -CAfile/-CApath (lib/x509,\n"
      "at -attime or now; -untrusted adds intermediates; -purpose: what the signer's\n"
      "chain must allow, openssl's names: smimesign, smimeencrypt, sslclient, sslserver,\n"
      "nssslserver, codesign, timestampsign, crlsign, ocsphelper, any; by default only\n"
      "the keyUsage above, openssl's default being smimesign). -out: the content, written\n"
      "only when all of it verified. Input PEM (\"CMS\" or \"PKCS7\") or DER, told apart.\n"
      "CAdES-T: -tsa-query writes the RFC 3161 TimeStampReq (DER, as openssl ts -query)\n"
      "for the signature's value, with -sign or for -in; -tsa-reply takes the TSA's\n"
      "TimeStampResp (or bare token; DER, \"-\" = stdin), checks its imprint, signature,\n"
      "the TSA certificate's critical extendedKeyUsage timeStamping and its chain, and\n"
      "writes -in with the token as id-aa-signatureTimeStampToken; -verify checks the\n"
      "embedded tokens so and prints their time.\n"
      "-cmsout: the message again (-outform); -print: its structure as text.\n");
  /* in parts: ISO C compilers need take no string literal above 4095 bytes */
  printf(
      "-enhance (docs/ESIGN.md): -to T adds a signature timestamp; -to XL1 CAdES-X Long\n"
      "Type 1: the signer's chain built to -CAfile at the signature timestamp's time\n"
      "and its revocation there judged with -ocsp (the responder asked for the signer),\n"
      "-ocsp-resp and -CRLfile (refused by name, exit 4; -noverify: a warning), then\n"
      "complete-certificate/-revocation-references, certificate-values,\n"
      "revocation-values and a CAdES-C timestamp. Timestamps from -tsa URL, or one a\n"
      "run from -tsa-reply; -tsa-query writes the request of the next one needed and\n"
      "-out what is made so far. -out is written only on success (may be -in).\n"
      "-verify also checks CAdES-C/X attributes (each reference against its value,\n"
      "each timestamp) and, for X Long, the chain and revocation values at the\n"
      "signature timestamp's time, offline; it says \"level: CAdES-...\".\n");
  printf(
      "-encrypt: EnvelopedData for each -recip (R 1323565.1.025-2019 KeyTransport: KEG\n"
      "with an ephemeral key + KExp15), content Kuznyechik-CTR-ACPKM (default) or Magma\n"
      "(openssl's -kuznyechik-ctr-acpkm[-omac], -magma-ctr-acpkm[-omac] too); -omac adds\n"
      "the content's OMAC. -gost89: GOST 28147-89 CFB content and RFC 4490's key\n"
      "transport (VKO + CryptoPro key wrap), as openssl cms -gost89; no OMAC.\n"
      "-kari: a KeyAgreeRecipientInfo per recipient instead (an\n"
      "ephemeral originator key in the message; a gostx option: openssl picks the kind\n"
      "by key type and gost-engine always makes KeyTransport); -keyid: recipients named\n"
      "by subjectKeyIdentifier, not issuer and serial number (openssl's -keyid).\n"
      "-kari -originator CERT -originator-key KEY: a static originator instead (gostx\n"
      "options; R 1323565.1.025-2019 A.2.2): KEG with KEY, CERT named in the message\n"
      "(by subjectKeyIdentifier with -keyid); the recipient needs CERT to decrypt.\n"
      "-decrypt without -recip tries each recipient -inkey's key can be (as openssl);\n"
      "-out (mode 0600) is written only when the content decrypted and, with OMAC,\n"
      "authenticated; without OMAC it is not authenticated (said on stderr). A\n"
      "KeyAgreeRecipientInfo's static originator: its certificate by -originator.\n"
      "-secretkey: the EncryptedData's 32-byte key in hex.\n"
      "An encrypted KEY needs -passin (pass:PASSWORD, file:PATH, fd:N, env:VAR, stdin).\n"
      "Exit status: 0 success, 4 verification failed or the message refused (openssl\n"
      "cms's), 2 usage error, 1 I/O error.\n");
}

static int form_arg(const char *opt, const char *v, int *form) {
  if (!strcasecmp(v, "PEM"))
    *form = FORM_PEM;
  else if (!strcasecmp(v, "DER"))
    *form = FORM_DER;
  else
    return cli_usage("cms: %s: PEM or DER, not '%s' (S/MIME is not supported)", opt, v);
  return 0;
}

static int add_path(const char **list, size_t *n, size_t cap, const char *opt, const char *v) {
  if (*n == cap) return cli_usage("cms: %s: at most %zu", opt, cap);
  list[(*n)++] = v;
  return 0;
}

/* The cipher options: a family (-kuznyechik, -magma, -gost89) and -omac,
 * or openssl's whole names; two families are a usage error. */
/* openssl's X509 purpose names (openssl-verification-options). sslserver
 * is SERVER_TLS12: openssl's keyUsage rule (digitalSignature,
 * keyEncipherment or keyAgreement), not TLS 1.3's. */
static int purpose_arg(const char *name, gostx_x509_purpose *out) {
  static const struct {
    const char *name;
    gostx_x509_purpose purpose;
  } names[] = {
      {"any", GOSTX_X509_PURPOSE_ANY},
      {"sslclient", GOSTX_X509_PURPOSE_CLIENT},
      {"sslserver", GOSTX_X509_PURPOSE_SERVER_TLS12},
      {"nssslserver", GOSTX_X509_PURPOSE_NS_SERVER},
      {"smimesign", GOSTX_X509_PURPOSE_SMIME_SIGN},
      {"smimeencrypt", GOSTX_X509_PURPOSE_SMIME_ENCRYPT},
      {"crlsign", GOSTX_X509_PURPOSE_CRL_SIGN},
      {"ocsphelper", GOSTX_X509_PURPOSE_OCSP_HELPER},
      {"timestampsign", GOSTX_X509_PURPOSE_TIMESTAMP_SIGN},
      {"codesign", GOSTX_X509_PURPOSE_CODE_SIGN},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(name, names[i].name)) return *out = names[i].purpose, 0;
  return cli_usage("cms: -purpose: any, sslclient, sslserver, nssslserver, smimesign, smimeencrypt, crlsign,"
                   " ocsphelper, timestampsign or codesign, not '%s'", name);
}

static int cipher_arg(cms_args *a, int id) {
  int magma = id == C_MAGMA || id == C_MAGMA_CTR || id == C_MAGMA_OMAC;
  int family = id == C_OMAC ? 0 : id == C_GOST89 ? 3 : magma ? 2 : 1;
  if (family && a->cipher_family && a->cipher_family != family)
    return cli_usage("cms: one of -kuznyechik, -magma and -gost89");
  if (family) a->cipher_family = family;
  if (id == C_OMAC || id == C_KUZ_OMAC || id == C_MAGMA_OMAC) a->omac = 1;
  return 0;
}

static int md_arg(cms_args *a, const char *v) {
  if (!strcasecmp(v, "streebog256") || !strcasecmp(v, "md_gost12_256"))
    a->digest_len = 32;
  else if (!strcasecmp(v, "streebog512") || !strcasecmp(v, "md_gost12_512"))
    a->digest_len = 64;
  else
    return cli_usage("cms: -md: streebog256 or streebog512, not '%s'", v);
  return 0;
}

static int set_op(cms_args *a, int op) {
  if (a->op && a->op != op)
    return cli_usage("cms: one of -sign, -verify, -cmsout, -encrypt, -decrypt, -EncryptedData_encrypt, "
                     "-EncryptedData_decrypt, -digest_create, -digest_verify");
  a->op = op;
  return 0;
}

static int parse_one(cms_args *a, cli_parser *p, int id) {
  switch (id) {
    case C_SIGN: case C_VERIFY: case C_CMSOUT: case C_ENCRYPT: case C_DECRYPT: case C_ED_ENCRYPT:
    case C_ED_DECRYPT: case C_DIGEST_CREATE: case C_DIGEST_VERIFY: case C_ENHANCE: return set_op(a, id);
    case C_TO:
      if (!strcasecmp(p->arg, "T")) a->enhance_to = ENHANCE_T;
      else if (!strcasecmp(p->arg, "XL1")) a->enhance_to = ENHANCE_XL1;
      else return cli_usage("cms: -to: T (CAdES-T) or XL1 (CAdES-X Long Type 1), not '%s'", p->arg);
      return 0;
    case C_TSA: a->tsa_url = p->arg; return 0;
    case C_OCSP: a->ocsp_url = p->arg; return 0;
    case C_OCSP_RESP: return add_path(a->ocsp_resp, &a->n_ocsp_resp, 8, "-ocsp-resp", p->arg);
    case C_CRLFILE: return add_path(a->crlfile, &a->n_crlfile, 8, "-CRLfile", p->arg);
    case C_RECIP: return add_path(a->recip, &a->n_recip, GOSTX_CMS_MAX_RECIPIENTS, "-recip", p->arg);
    case C_SECRETKEY: a->secretkey = p->arg; return 0;
    case C_ORIGINATOR: a->originator = p->arg; return 0;
    case C_ORIGINATOR_KEY: a->originator_key = p->arg; return 0;
    case C_KEYID: a->key_id = 1; return 0;
    case C_KARI: a->kari = 1; return 0;
    case C_MD: return md_arg(a, p->arg);
    case C_KUZ: case C_MAGMA: case C_OMAC: case C_KUZ_CTR: case C_KUZ_OMAC: case C_MAGMA_CTR:
    case C_MAGMA_OMAC: case C_GOST89: return cipher_arg(a, id);
    case C_PRINT: a->print = 1; return 0;
    case C_IN: a->in = p->arg; return 0;
    case C_OUT: a->out = p->arg; return 0;
    case C_SIGNER: return add_path(a->signer, &a->n_signer, GOSTX_CMS_MAX_SIGNERS, "-signer", p->arg);
    case C_INKEY: return add_path(a->inkey, &a->n_inkey, GOSTX_CMS_MAX_SIGNERS, "-inkey", p->arg);
    case C_PASSIN: a->passin = p->arg; return 0;
    case C_CERTFILE: return add_path(a->certfile, &a->n_certfile, 8, "-certfile", p->arg);
    case C_NODETACH: a->flags |= GOSTX_CMS_ATTACHED; return 0;
    case C_CADES: a->flags |= GOSTX_CMS_CADES; return 0;
    case C_NOATTR: a->flags |= GOSTX_CMS_NO_ATTRS; return 0;
    case C_NOCERTS: a->flags |= GOSTX_CMS_NO_CERTS; return 0;
    case C_NOSIGNINGTIME: a->flags |= GOSTX_CMS_NO_SIGNING_TIME; return 0;
    case C_BINARY: return 0; /* content is always signed as its bytes */
    case C_OUTFORM: return form_arg("-outform", p->arg, &a->outform);
    case C_INFORM: return form_arg("-inform", p->arg, &a->inform);
    case C_CONTENT: a->content = p->arg; return 0;
    case C_TSA_QUERY: a->tsa_query = p->arg; return 0;
    case C_TSA_REPLY: a->tsa_reply = p->arg; return 0;
    CLI_VERIFY_CASES: return cli_verify_opt(&a->v, id, p->arg);
    case C_NOVERIFY: a->noverify = 1; return 0;
    case C_PURPOSE: return purpose_arg(p->arg, &a->purpose);
    case CLI_POS: /* openssl cms -encrypt: the recipients' certificates after the options */
      if (a->op == C_ENCRYPT)
        return add_path(a->recip, &a->n_recip, GOSTX_CMS_MAX_RECIPIENTS, "-recip", p->pos);
      return cli_usage("cms: unexpected argument '%s' (see --help)", p->pos);
    default: return CLI_EXIT_USAGE;
  }
}

/* -enhance's usage rules. -out may be -in (written atomically). */
static int check_enhance(const cms_args *a) {
  if (!a->in) return cli_usage("cms: -enhance: -in is needed");
  if (!a->enhance_to) return cli_usage("cms: -enhance: -to T or -to XL1 is needed");
  if (!a->v.cafile && !a->v.capath)
    return cli_usage("cms: -enhance needs -CAfile or -CApath (the signer's and the TSA's anchors)");
  if (a->enhance_to == ENHANCE_T && (a->ocsp_url || a->n_ocsp_resp || a->n_crlfile))
    return cli_usage("cms: -enhance -to T: -ocsp, -ocsp-resp and -CRLfile are for -to XL1");
  if (a->n_signer || a->print) return cli_usage("cms: -enhance takes no -signer, -print");
  cli_input ins[3] = {{a->content, "content"}, {a->tsa_reply, "TSA reply"}, {a->in, "input"}};
  int rc = cli_refuse_same_file("cms", a->out, ins, 2);
  return rc ? rc : cli_refuse_same_file("cms", a->tsa_query, ins, 3);
}

/* The usage rules of each operation, before any work. */
static int check_args(const cms_args *a) {
  if (!a->op) return cli_usage("cms: an operation (-sign, -verify, -encrypt, -decrypt, -cmsout, -tsa-query, ...) is needed (see --help)");
  if (a->op == C_ENHANCE) return check_enhance(a);
  if (a->enhance_to || a->tsa_url || a->ocsp_url || a->n_ocsp_resp || a->n_crlfile)
    return cli_usage("cms: -to, -tsa, -ocsp, -ocsp-resp and -CRLfile are for -enhance");
  if (a->tsa_reply && (a->op != C_TIMESTAMP || a->tsa_query))
    return cli_usage("cms: -tsa-reply embeds a reply in an existing signature: no -sign, -verify, -cmsout or -tsa-query");
  if (a->tsa_query && a->op != C_SIGN && a->op != C_TIMESTAMP)
    return cli_usage("cms: -tsa-query goes with -sign or alone (for an existing signature)");
  if (a->tsa_query && a->op == C_SIGN && a->n_signer != 1)
    return cli_usage("cms: -tsa-query: a timestamp is for a single signer's signature");
  if (a->tsa_reply && !a->v.cafile && !a->v.capath && !a->noverify)
    return cli_usage("cms: -tsa-reply needs -CAfile or -CApath (the TSA's chain; or -noverify)");
  if (!a->in) return cli_usage("cms: -in is needed");
  if (a->op == C_SIGN) {
    if (!a->n_signer) return cli_usage("cms: -sign needs -signer");
    if (a->n_inkey != a->n_signer) return cli_usage("cms: -sign: one -inkey for each -signer");
    if ((a->flags & GOSTX_CMS_NO_ATTRS) && (a->flags & GOSTX_CMS_CADES))
      return cli_usage("cms: -cades needs signed attributes (not -noattr)");
  }
  if (a->op == C_ENCRYPT && !a->n_recip) return cli_usage("cms: -encrypt needs -recip");
  if (a->kari && a->op != C_ENCRYPT) return cli_usage("cms: -kari is for -encrypt");
  if (a->op == C_ENCRYPT && !a->originator != !a->originator_key)
    return cli_usage("cms: -encrypt: -originator CERT and -originator-key KEY go together");
  if (a->originator_key && !(a->op == C_ENCRYPT && a->kari))
    return cli_usage("cms: -originator-key is for -encrypt -kari (a static originator)");
  if (a->key_id && a->op != C_ENCRYPT)
    return cli_usage("cms: -keyid is for -encrypt (signers by key id are read, not written)");
  if (a->op == C_DECRYPT && (a->n_recip > 1 || a->n_inkey != 1))
    return cli_usage("cms: -decrypt: one -inkey, and at most one -recip (its certificate)");
  if ((a->op == C_ED_ENCRYPT || a->op == C_ED_DECRYPT) && !a->secretkey)
    return cli_usage("cms: -EncryptedData_encrypt/_decrypt need -secretkey");
  if (a->op == C_VERIFY && !a->v.cafile && !a->v.capath && !a->noverify)
    return cli_usage("cms: -verify needs -CAfile or -CApath (or -noverify)");
  cli_input ins[4] = {{a->in, "input"},
                      {a->content, "content"},
                      {a->op == C_SIGN ? a->signer[0] : NULL, "signer"},
                      {a->tsa_reply, "TSA reply"}};
  int rc = cli_refuse_same_file("cms", a->out, ins, 4);
  return rc ? rc : cli_refuse_same_file("cms", a->tsa_query, ins, 4);
}

int cmd_cms(int argc, char **argv) {
  cli_parser p;
  cli_parser_init_openssl(&p, "cms", argc, argv, cms_opts);
  cms_args a;
  memset(&a, 0, sizeof a);
  cli_verify_args_init(&a.v, "cms", CLI_UNTRUSTED_MAX);
  int id, rc = 0;
  while (!rc && (id = cli_next(&p, cms_opts)) != CLI_END) {
    if (id == C_HELP) {
      cms_help();
      return CLI_EXIT_OK;
    }
    rc = parse_one(&a, &p, id);
  }
  if (!rc && !a.op && (a.tsa_query || a.tsa_reply)) a.op = C_TIMESTAMP;
  if (!rc) rc = check_args(&a);
  if (rc) return rc;
  if (a.cipher_family == 3 && a.omac) return cli_usage("cms: -gost89 has no -omac (CFB, unauthenticated)");
  if (a.cipher_family == 3 && (a.kari || a.key_id))
    return cli_usage("cms: -gost89 recipients are RFC 4490 key transport by issuer and serial "
                     "(no -kari, no -keyid)");
  a.cipher = a.cipher_family == 3   ? GOSTX_CMS_GOST89
             : a.cipher_family == 2 ? (a.omac ? GOSTX_CMS_MAGMA_OMAC : GOSTX_CMS_MAGMA)
                                    : (a.omac ? GOSTX_CMS_KUZNYECHIK_OMAC : GOSTX_CMS_KUZNYECHIK);
  switch (a.op) {
    case C_SIGN: return cms_sign(&a);
    case C_VERIFY: return cms_verify(&a);
    case C_TIMESTAMP: return cms_timestamp(&a);
    case C_ENHANCE: return cms_enhance(&a);
    case C_ENCRYPT: return cms_encrypt(&a);
    case C_DECRYPT: return cms_decrypt(&a);
    case C_ED_ENCRYPT: return cms_encdata_encrypt(&a);
    case C_ED_DECRYPT: return cms_encdata_decrypt(&a);
    case C_DIGEST_CREATE: return cms_digest_create(&a);
    case C_DIGEST_VERIFY: return cms_digest_verify(&a);
    default: return cms_cmsout(&a);
  }
}
