/* bench/cades/xl1_gostx.c: CAdES-X Long Type 1 verifications per
 * CPU-second through libgostx, the checks of `gostx cms -verify -content
 * DOC -CAfile CA` in a loop, by the command's own functions (cli/cms's
 * objects are linked in: cms_cades_certs, cms_ts_check_all,
 * cms_cades_check around lib/cms's gostx_cms_signed_verify and
 * gostx_cades_verify). One iteration: the signature parsed from memory,
 * the document digested, the signature and its signer's chain, every
 * signature timestamp, every reference against its value, the
 * CAdES-C-time-stamp, the chain again at the signature timestamp's time
 * with the revocation values. The trust anchors are read once (the OpenSSL
 * side builds its X509_STORE once too); the memo of valid signatures
 * (x509.h) is the command's, one per verification, zeroed before each.
 *
 * Usage: xl1_gostx SIG.der DOC CAFILE [SECONDS] [ROUNDS]
 * Prints "gostx: N ops/CPU-s (median of R rounds)"; exit 1 when the
 * signature does not verify (what failed said, as the command says it).
 * The first verification says on stderr how many signatures it verified
 * and how many repeats the memo answered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cms_cli.h"
#include "xl1_run.h"

typedef struct job {
  const uint8_t *sig, *doc;
  size_t sig_len, doc_len;
  gostx_x509_store *store;
  gostx_cms_signed *sd;
  cli_cert_list *untrusted;
  gostx_x509_sig_memo *memo; /* cms_verify.c's, zeroed for each verification */
  int64_t now; /* -attime: the command's default, the time it starts */
} job;

/* cms_verify.c's verify_parsed for a detached signature, the message
 * parsed here from memory. */
static int verify_once(void *arg) {
  job *j = arg;
  gostx_cms_status st;
  gostx_cms_verdict v;
  gostx_cms_hash h;
  if (gostx_cms_signed_parse(j->sig, j->sig_len, j->sd, &st)) {
    cli_err("cms: %s", gostx_cms_status_name(st));
    return CMS_EXIT_VERIFY;
  }
  j->untrusted->n = 0; /* views only: cms_cades_certs keeps no copies */
  cms_cades_certs(j->sd, j->untrusted);
  if (gostx_cms_hash_init(&h, gostx_cms_signed_hashes(j->sd)) ||
      gostx_cms_hash_update(&h, j->doc, j->doc_len) || gostx_cms_hash_final(&h))
    return CLI_EXIT_FAIL;
  memset(j->memo, 0, sizeof *j->memo); /* one run's: nothing carried from the last iteration */
  gostx_cms_verify_params params = {j->store, j->untrusted->c, j->untrusted->n, j->now, GOSTX_X509_PURPOSE_ANY,
                                    j->memo};
  if (gostx_cms_signed_verify(j->sd, &h, &params, &v)) {
    if (v.status == GOSTX_CMS_CHAIN)
      cli_err("cms: %s: depth %zu: %s", gostx_cms_status_name(v.status), v.depth, gostx_x509_status_name(v.x509));
    else
      cli_err("cms: %s", gostx_cms_status_name(v.status));
    return CMS_EXIT_VERIFY;
  }
  int rc = cms_ts_check_all(j->sd, &params);
  return rc ? rc : cms_cades_check(j->sd, &params);
}

static uint8_t *slurp(const char *path, size_t *len) {
  uint8_t *buf = NULL;
  if (cli_read_file(path, NULL, &buf, len)) exit(2);
  return buf;
}

int main(int argc, char **argv) {
  xl1_args a;
  if (!xl1_args_read(argc, argv, "xl1_gostx", &a)) return 2;
  job j = {0};
  j.now = (int64_t)time(NULL);
  char err[512];
  j.sig = slurp(a.sig, &j.sig_len);
  j.doc = slurp(a.doc, &j.doc_len);
  j.sd = calloc(1, sizeof *j.sd);
  j.untrusted = calloc(1, sizeof *j.untrusted);
  j.memo = calloc(1, sizeof *j.memo);
  if (!j.sd || !j.untrusted || !j.memo || !(j.store = gostx_x509_store_new())) return 2;
  if (gostx_x509_store_add_path(j.store, a.cafile, err, sizeof err)) {
    fprintf(stderr, "xl1_gostx: %s: %s\n", a.cafile, err);
    return 2;
  }
  /* once with the command's messages on stderr: what failed is said */
  if (verify_once(&j)) {
    fprintf(stderr, "xl1_gostx: %s: CMS Verification failure\n", a.sig);
    return 1;
  }
  /* every signature the run met, each verified once (the memo, x509.h) */
  fprintf(stderr, "xl1_gostx: signatures: %zu verified, %zu repeats answered from the run's memo\n",
          j.memo->checked, j.memo->answered);
  if (a.seconds <= 0) return 0;
  /* the loop's own lines ("level: ...") buffered, not written one by one */
  static char quiet[1 << 16];
  FILE *null = freopen("/dev/null", "w", stderr);
  if (null) setvbuf(stderr, quiet, _IOFBF, sizeof quiet);
  if (xl1_time(&a, "gostx", verify_once, &j)) {
    printf("xl1_gostx: a verification failed in the loop\n");
    return 1;
  }
  return 0;
}
