/* gostx ts: the RFC 3161 time-stamp protocol (lib/cms/tsa.c, gostx/tsa.h)
 * with openssl ts's option names: -query (a TimeStampReq for a file or a
 * digest), -reply (a TSA in file mode: the query answered with a token
 * signed by a GOST key, serial numbers kept in a file), -verify (a reply
 * or token against the data, a digest or the query), and `gostx ts
 * serve` (ts_serve.c: the TSA over HTTP, RFC 3161 section 3.4). No
 * configuration file: gostx's own flags say what openssl's [tsa] section
 * says. Exit 0, 1 (a refusal, a failed verification, I/O), 2 (usage). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../commands.h"
#include "ts_cli.h"

enum {
  T_QUERY = 1, T_REPLY, T_VERIFY, T_DATA, T_DIGEST, T_S256, T_S512, T_NO_NONCE, T_CERT,
  T_TSPOLICY, T_IN, T_OUT, T_TEXT, T_QUERYFILE, T_INKEY, T_PASSIN, T_SIGNER, T_CHAIN,
  T_SERIAL, T_POLICY, T_ACCURACY, T_TOKEN_IN, T_TOKEN_OUT, T_TSA_NAME, T_HELP
};

static const cli_opt ts_opts[] = {
    {"query", 0, CLI_NOARG, T_QUERY},         {"reply", 0, CLI_NOARG, T_REPLY},
    {"verify", 0, CLI_NOARG, T_VERIFY},       {"data", 0, CLI_PATH, T_DATA},
    {"digest", 0, CLI_ARG, T_DIGEST},         {"streebog256", 0, CLI_NOARG, T_S256},
    {"streebog512", 0, CLI_NOARG, T_S512},    {"md_gost12_256", 0, CLI_NOARG, T_S256},
    {"md_gost12_512", 0, CLI_NOARG, T_S512},  {"no_nonce", 0, CLI_NOARG, T_NO_NONCE},
    {"cert", 0, CLI_NOARG, T_CERT},           {"tspolicy", 0, CLI_ARG, T_TSPOLICY},
    {"in", 0, CLI_PATH, T_IN},                {"out", 0, CLI_PATH, T_OUT},
    {"text", 0, CLI_NOARG, T_TEXT},           {"queryfile", 0, CLI_PATH, T_QUERYFILE},
    {"inkey", 0, CLI_PATH, T_INKEY},          {"passin", 0, CLI_ARG, T_PASSIN},
    {"signer", 0, CLI_PATH, T_SIGNER},        {"chain", 0, CLI_PATH, T_CHAIN},
    {"serial", 0, CLI_PATH, T_SERIAL},        {"policy", 0, CLI_ARG, T_POLICY},
    {"accuracy", 0, CLI_ARG, T_ACCURACY},     {"token_in", 0, CLI_NOARG, T_TOKEN_IN},
    {"token_out", 0, CLI_NOARG, T_TOKEN_OUT}, {"tsa_name", 0, CLI_NOARG, T_TSA_NAME},
    CLI_VERIFY_ROWS,                          {"help", 'h', CLI_NOARG, T_HELP},
    {NULL, 0, 0, 0},
};

static void ts_help(void) {
  printf(
      "Usage: gostx ts -query (-data FILE | -digest HEX) [-streebog256|-streebog512]\n"
      "                [-tspolicy OID] [-no_nonce] [-cert] [-text] [-out FILE.tsq]\n"
      "       gostx ts -query -in FILE.tsq -text\n"
      "       gostx ts -reply -queryfile FILE.tsq -signer CERT -inkey KEY [-passin ARG]\n"
      "                [-chain CERTS] -serial FILE [-policy OID] [-accuracy SPEC]\n"
      "                [-tsa_name] [-token_out] [-text] [-out FILE.tsr]\n"
      "       gostx ts -reply -in FILE.tsr [-token_in] [-token_out] [-text] [-out FILE]\n"
      "       gostx ts -verify (-data FILE | -digest HEX | -queryfile FILE.tsq)\n"
      "                -in FILE.tsr [-token_in] -CAfile CA [-untrusted CERTS] [-attime SECONDS]\n"
      "       gostx ts serve -port N -signer CERT -inkey KEY -serial FILE [...] (serve --help)\n"
      "\n"
      "RFC 3161 time stamps with GOST: Streebog imprints (-streebog256, the default,\n"
      "or -streebog512; -md_gost12_256/-md_gost12_512 as openssl names them), tokens\n"
      "signed with GOST R 34.10-2012 carrying signingCertificateV2 (RFC 5816).\n"
      "-query: a random 64-bit nonce unless -no_nonce; -cert asks for the TSA's\n"
      "certificate in the token. -reply answers in file mode as openssl ts -reply:\n"
      "-serial FILE holds the last serial number given (hex; made when missing),\n"
      "locked while it is taken; -policy is the TSA's policy (default 1.2.643.100.1;\n"
      "-tspolicy the same), -accuracy \"secs:1,millis:500\" or SECONDS (default 1). A\n"
      "query the TSA refuses gets a rejection reply (written) and exit status 1.\n"
      "-verify prints \"Verification: OK\" or \"Verification: FAILED\" and why.\n");
}

static int set_op(ts_args *a, int op) {
  if (a->op && a->op != op) return cli_usage("ts: one of -query, -reply, -verify");
  a->op = op;
  return 0;
}

static int parse_one(ts_args *a, cli_parser *p, int id) {
  switch (id) {
    case T_QUERY: case T_REPLY: case T_VERIFY: return set_op(a, id);
    case T_DATA: a->data = p->arg; return 0;
    case T_DIGEST: a->digest = p->arg; return 0;
    case T_S256: a->digest_len = 32; return 0;
    case T_S512: a->digest_len = 64; return 0;
    case T_NO_NONCE: a->no_nonce = 1; return 0;
    case T_CERT: a->cert = 1; return 0;
    case T_TSPOLICY: a->tspolicy = p->arg; return 0;
    case T_IN: a->in = p->arg; return 0;
    case T_OUT: a->out = p->arg; return 0;
    case T_TEXT: a->text = 1; return 0;
    case T_QUERYFILE: a->queryfile = p->arg; return 0;
    case T_INKEY: a->inkey = p->arg; return 0;
    case T_PASSIN: a->passin = p->arg; return 0;
    case T_SIGNER: a->signer = p->arg; return 0;
    case T_CHAIN: a->chain = p->arg; return 0;
    case T_SERIAL: a->serial = p->arg; return 0;
    case T_POLICY: a->policy = p->arg; return 0;
    case T_ACCURACY: a->accuracy = p->arg; return 0;
    case T_TOKEN_IN: a->token_in = 1; return 0;
    case T_TOKEN_OUT: a->token_out = 1; return 0;
    case T_TSA_NAME: a->tsa_name = 1; return 0;
    CLI_VERIFY_CASES: return cli_verify_opt(&a->v, id, p->arg);
    case CLI_POS: return cli_usage("ts: unexpected argument '%s' (see --help)", p->pos);
    default: return CLI_EXIT_USAGE;
  }
}

/* ---- -query ---- */

/* The data's Streebog hash (file read in chunks) or -digest's bytes. */
static int query_digest(const ts_args *a, uint8_t h[64], size_t *len) {
  if (a->digest) {
    uint8_t *d;
    size_t n;
    if (cli_hex("-digest", a->digest, &d, &n)) return CLI_EXIT_USAGE;
    int ok = (n == 32 || n == 64) && (!a->digest_len || a->digest_len == n);
    if (ok) memcpy(h, d, n), *len = n;
    free(d);
    return ok ? 0 : cli_usage("ts: -digest: %zu bytes: a Streebog-256 (32) or -512 (64) digest is needed", n);
  }
  *len = a->digest_len ? a->digest_len : 32;
  gostx_streebog_ctx c;
  cli_in in;
  uint8_t *buf = malloc(CLI_CHUNK);
  size_t got;
  int rc = buf ? cli_in_open(&in, a->data) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (rc) return free(buf), rc;
  gostx_streebog_init(&c, *len);
  while (!(rc = cli_in_read(&in, buf, CLI_CHUNK, &got)) && got) gostx_streebog_update(&c, buf, got);
  gostx_streebog_final(&c, h);
  cli_in_close(&in);
  free(buf);
  return rc;
}

static int ts_query_text(const ts_args *a) {
  uint8_t *der;
  size_t len;
  gostx_tsa_query q;
  uint32_t fail;
  int rc = cli_read_file(a->in, &(cli_file){NULL, TS_QUERY_MAX, 0}, &der, &len);
  if (rc) return rc;
  if (gostx_tsa_query_parse(der, len, &q, &fail)) {
    cli_err("ts: %s: not a TimeStampReq the TSA would take: %s", a->in, gostx_tsa_fail_name(fail));
    rc = CLI_EXIT_FAIL;
  } else {
    ts_print_query(stdout, &q);
  }
  free(der);
  return rc;
}

static int ts_query(const ts_args *a) {
  if (a->in) return a->text ? ts_query_text(a) : cli_usage("ts: -query -in reads a query for -text");
  if (!a->data == !a->digest) return cli_usage("ts: -query needs -data FILE or -digest HEX");
  uint8_t h[64], nonce[8], req[512];
  size_t dlen = 0, len;
  int rc = query_digest(a, h, &dlen);
  if (rc) return rc;
  if (!a->no_nonce) {
    do {
      if (gostx_random_bytes(nonce, sizeof nonce)) return cli_err("ts: no random nonce"), CLI_EXIT_FAIL;
    } while (!(nonce[0] | nonce[1] | nonce[2] | nonce[3] | nonce[4] | nonce[5] | nonce[6] | nonce[7]));
  }
  gostx_tsa_query_params qp = {dlen, h, a->tspolicy, a->no_nonce ? NULL : nonce, sizeof nonce, a->cert};
  rc = gostx_tsa_query_write(&qp, req, sizeof req, &len);
  if (rc) return cli_usage("ts: -tspolicy '%s' is no OID", a->tspolicy ? a->tspolicy : "");
  if (a->text) {
    gostx_tsa_query q;
    if (gostx_tsa_query_parse(req, len, &q, NULL)) return CLI_EXIT_FAIL;
    ts_print_query(stdout, &q);
    return 0;
  }
  return cli_write_file(a->out, req, len, 0);
}

static int check_args(const ts_args *a) {
  if (!a->op) return cli_usage("ts: -query, -reply, -verify or serve is needed (see --help)");
  if (a->op == T_VERIFY) {
    if (!a->in) return cli_usage("ts: -verify needs -in (the reply, or the token with -token_in)");
    if (!!a->data + !!a->digest + !!a->queryfile != 1)
      return cli_usage("ts: -verify needs one of -data, -digest, -queryfile");
    if (!a->v.cafile) return cli_usage("ts: -verify needs -CAfile (the TSA's trust anchors)");
  }
  if (a->op == T_REPLY && !a->in) {
    if (!a->queryfile) return cli_usage("ts: -reply needs -queryfile (or -in a reply to print)");
    if (!a->signer || !a->inkey) return cli_usage("ts: -reply needs -signer and -inkey (the TSA's)");
    if (!a->serial) return cli_usage("ts: -reply needs -serial FILE (the serial numbers given)");
  }
  return 0;
}

int cmd_ts(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "serve")) return ts_serve(argc - 1, argv + 1);
  cli_parser p;
  cli_parser_init_openssl(&p, "ts", argc, argv, ts_opts);
  ts_args a;
  memset(&a, 0, sizeof a);
  cli_verify_args_init(&a.v, "ts", 1);
  int id, rc = 0;
  while (!rc && (id = cli_next(&p, ts_opts)) != CLI_END) {
    if (id == T_HELP) {
      ts_help();
      return CLI_EXIT_OK;
    }
    rc = parse_one(&a, &p, id);
  }
  if (!rc) rc = check_args(&a);
  if (rc) return rc;
  switch (a.op) {
    case T_QUERY: return ts_query(&a);
    case T_REPLY: return ts_reply(&a);
    default: return ts_verify(&a);
  }
}
