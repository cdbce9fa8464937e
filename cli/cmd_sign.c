/* gostx sign, verify and vko: GOST R 34.10-2012 signatures of files and the
 * VKO_GOSTR3410_2012 key agreement, in the formats of openssl with
 * gost-engine: a signature file is s || r, each half big-endian (what
 * `openssl dgst -sign` writes), the digest Streebog-256 or -512 by key size
 * (GOST R 34.11-94 for a token's 2001 key);
 * vko writes the raw key `openssl pkeyutl -derive` prints. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

#define SIG_SUFFIX ".sig"

enum { S_KEY = 1, S_PUB, S_OUT, S_SIG, S_PEER, S_UKM, S_256, S_512, S_THREADS, S_PASSIN, S_HELP };

static const cli_opt sign_opts[] = {
    {"key", 'k', CLI_PATH, S_KEY},           {"out", 'o', CLI_PATH, S_OUT},
    {"threads", 0, CLI_ARG, S_THREADS},      {"passin", 0, CLI_ARG, S_PASSIN},
    {"help", 'h', CLI_NOARG, S_HELP},
    {NULL, 0, 0, 0},
};

struct sign_run {
  const gostx_gost3410_key *key;
  const char *out_path; /* -o, for a single file */
  int status;
};

static void sign_report(void *arg, const cli_hash_job *j) {
  struct sign_run *run = arg;
  if (j->err) {
    cli_hash_job_error(j);
    run->status = CLI_EXIT_FAIL;
    return;
  }
  const gostx_gost3410_key *k = run->key;
  uint8_t sig[128];
  int rc = gostx_gost3410_key_sign(k, j->digest, k->len, sig, 2 * k->len);
  if (!rc) rc = gostx_gost3410_sig_swap(sig, 2 * k->len, sig, 2 * k->len);
  if (rc) {
    cli_err("sign: %s: %s", j->path, gostx_strerror(rc));
    run->status = CLI_EXIT_FAIL;
    return;
  }
  char *name = NULL;
  const char *path = run->out_path;
  if (!path) {
    size_t n = strlen(j->path) + sizeof SIG_SUFFIX;
    if (!(name = malloc(n))) {
      cli_err("out of memory");
      run->status = CLI_EXIT_FAIL;
      return;
    }
    snprintf(name, n, "%s" SIG_SUFFIX, j->path);
    path = name;
  }
  if (cli_write_file(path, sig, 2 * k->len, 0)) run->status = CLI_EXIT_FAIL;
  free(name);
}

int cmd_sign(int argc, char **argv) {
  cli_parser p;
  cli_parser_init_openssl(&p, "sign", argc, argv, sign_opts);
  const char *key_path = NULL, *out_path = NULL, *threads_s = NULL, *passin = NULL;
  size_t nfiles = 0;
  cli_hash_job *jobs = calloc((size_t)(argc > 0 ? argc : 1), sizeof *jobs);
  int id, rc = 0;
  if (!jobs) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  while (!rc && (id = cli_next(&p, sign_opts)) != CLI_END) {
    switch (id) {
      case S_KEY: key_path = p.arg; break;
      case S_OUT: out_path = p.arg; break;
      case S_THREADS: threads_s = p.arg; break;
      case S_PASSIN: passin = p.arg; break;
      case S_HELP:
        printf("Usage: gostx sign -k KEY [-passin ARG] [-o SIG] FILE...\n\n"
               "Signs each FILE with the GOST R 34.10-2012 private key KEY (PEM or DER), the\n"
               "digest Streebog-256 for 256-bit keys and Streebog-512 for 512-bit ones. The\n"
               "signature is s || r, 64 or 128 bytes, as `openssl dgst -sign` with gost-engine\n"
               "writes it; it goes to FILE.sig, or with one FILE to -o SIG (\"-\" = stdout).\n"
               "FILE \"-\" is stdin (then -o is needed). --threads N: files digested at once\n"
               "(default: one per CPU). An encrypted KEY needs -passin (pass:PASSWORD,\n"
               "file:PATH, fd:N, env:VAR, stdin; see gostx pkey --help). KEY may be a key\n"
               "on a token, a pkcs11: URI (RFC 7512; its PIN from the URI's pin-source,\n"
               "-passin, GOSTX_PKCS11_PIN or the terminal; docs/PKCS11.md); a token's GOST\n"
               "R 34.10-2001 key signs a GOST R 34.11-94 digest (openssl's -md_gost94).\n");
        free(jobs);
        return CLI_EXIT_OK;
      case CLI_POS: jobs[nfiles++].path = p.pos; break;
      default: rc = CLI_EXIT_USAGE;
    }
  }
  size_t threads = 0;
  if (!rc && !key_path) rc = cli_usage("sign: missing -k KEY (try gostx sign --help)");
  if (!rc && !nfiles) rc = cli_usage("sign: missing FILE");
  if (!rc && out_path && nfiles > 1) rc = cli_usage("sign: -o takes one FILE; without it each FILE gets FILE.sig");
  for (size_t i = 0; !rc && !out_path && i < nfiles; i++)
    if (!strcmp(jobs[i].path, "-")) rc = cli_usage("sign: stdin (\"-\") needs -o SIG");
  if (!rc && threads_s) rc = cli_size("--threads", threads_s, 1, 1024, &threads);
  gostx_gost3410_key k;
  if (!rc) rc = cli_load_key_pass(key_path, &k, "-passin", passin);
  if (rc) {
    free(jobs);
    return rc;
  }
  if (!gostx_gost3410_key_is_private(&k)) {
    gostx_gost3410_key_clear(&k);
    free(jobs);
    return cli_usage("sign: %s is a public key; signing needs the private key", key_path);
  }
  /* A 2001 key (a token's or a container's) makes a GOST R 34.10-2001
   * signature: the same equation over a GOST R 34.11-94 digest, as
   * gost-engine's md_gost94 does with such a key. The library's signers
   * refuse the flag (they write 2012 OIDs); the output here is the bare
   * signature, so the flag is taken off once the digest is chosen. */
  const int gost2001 = k.gost2001;
  k.gost2001 = 0;
  for (size_t i = 0; i < nfiles; i++) {
    jobs[i].digest_len = k.len;
    jobs[i].gost94 = gost2001;
    jobs[i].sbox = GOSTX_SBOX_CRYPTOPRO_3411_94;
  }
  struct sign_run run = {&k, out_path, 0};
  cli_hash_files(jobs, nfiles, (unsigned)threads, sign_report, &run);
  gostx_gost3410_key_clear(&k);
  free(jobs);
  return run.status;
}

static void keep_job(void *arg, const cli_hash_job *j) { (void)arg, (void)j; }

static const cli_opt verify_opts[] = {
    {"pub", 'p', CLI_PATH, S_PUB},  {"key", 'k', CLI_PATH, S_KEY}, {"signature", 's', CLI_PATH, S_SIG},
    {"help", 'h', CLI_NOARG, S_HELP}, {NULL, 0, 0, 0},
};

int cmd_verify(int argc, char **argv) {
  cli_parser p;
  cli_parser_init_openssl(&p, "verify", argc, argv, verify_opts);
  const char *pub_path = NULL, *key_path = NULL, *sig_path = NULL, *file = NULL;
  int id, rc;
  while ((id = cli_next(&p, verify_opts)) != CLI_END) {
    switch (id) {
      case S_PUB: pub_path = p.arg; break;
      case S_KEY: key_path = p.arg; break;
      case S_SIG: sig_path = p.arg; break;
      case S_HELP:
        printf("Usage: gostx verify (-p PUBKEY | -k KEY) -s SIG FILE\n\n"
               "Checks SIG (s || r, as `openssl dgst -sign` with gost-engine and gostx sign\n"
               "write it) on FILE (\"-\" = stdin) with a GOST R 34.10-2012 public key, or the\n"
               "public half of a private key (PEM or DER). Prints \"Verified OK\" and exits 0,\n"
               "or prints \"Verification failure\" and exits 1; 2 for bad usage or input.\n");
        return CLI_EXIT_OK;
      case CLI_POS:
        if (file) return cli_usage("verify: one FILE only ('%s')", p.pos);
        file = p.pos;
        break;
      default: return CLI_EXIT_USAGE;
    }
  }
  if (!!pub_path + !!key_path != 1) return cli_usage("verify: give one of -p PUBKEY and -k KEY");
  if (!sig_path) return cli_usage("verify: missing -s SIG");
  if (!file) return cli_usage("verify: missing FILE");
  gostx_gost3410_key k;
  if ((rc = cli_load_key(pub_path ? pub_path : key_path, &k))) return rc;
  size_t want = 2 * k.len;
  uint8_t sig[129];
  cli_in in;
  size_t got = 0;
  int status = cli_in_open(&in, sig_path);
  if (!status) {
    status = cli_in_read(&in, sig, sizeof sig, &got);
    cli_in_close(&in);
  }
  if (!status && got != want)
    status = cli_usage("verify: %s: a signature for this key is %zu bytes, not %s%zu", sig_path,
                       want, got > want ? "at least " : "", got);
  cli_hash_job job = {.path = file, .digest_len = k.len};
  if (!status) {
    cli_hash_files(&job, 1, 1, keep_job, NULL);
    if (job.err) cli_hash_job_error(&job), status = CLI_EXIT_FAIL;
  }
  if (!status) {
    rc = gostx_gost3410_sig_swap(sig, want, sig, want);
    if (!rc) rc = gostx_gost3410_verify(k.curve, k.q, want, job.digest, k.len, sig, want);
    if (rc == 0) {
      printf("Verified OK\n");
    } else if (rc == GOSTX_EAUTH || rc == GOSTX_EFORMAT) {
      printf("Verification failure\n");
      status = CLI_EXIT_FAIL;
    } else {
      cli_err("verify: %s", gostx_strerror(rc));
      status = CLI_EXIT_FAIL;
    }
  }
  gostx_gost3410_key_clear(&k);
  return status;
}

static const cli_opt vko_opts[] = {
    {"key", 'k', CLI_PATH, S_KEY}, {"peer", 0, CLI_PATH, S_PEER}, {"ukm", 0, CLI_ARG, S_UKM},
    {"out", 'o', CLI_PATH, S_OUT}, {"256", 0, CLI_NOARG, S_256},  {"512", 0, CLI_NOARG, S_512},
    {"passin", 0, CLI_ARG, S_PASSIN}, {"help", 'h', CLI_NOARG, S_HELP}, {NULL, 0, 0, 0},
};

int cmd_vko(int argc, char **argv) {
  cli_parser p;
  cli_parser_init_openssl(&p, "vko", argc, argv, vko_opts);
  const char *key_path = NULL, *peer_path = NULL, *ukm_hex = NULL, *out_path = NULL;
  const char *passin = NULL;
  size_t out_len = 32;
  int id, rc;
  while ((id = cli_next(&p, vko_opts)) != CLI_END) {
    switch (id) {
      case S_KEY: key_path = p.arg; break;
      case S_PEER: peer_path = p.arg; break;
      case S_UKM: ukm_hex = p.arg; break;
      case S_PASSIN: passin = p.arg; break;
      case S_OUT: out_path = p.arg; break;
      case S_256: out_len = 32; break;
      case S_512: out_len = 64; break;
      case S_HELP:
        printf("Usage: gostx vko -k KEY [-passin ARG] --peer PEERPUB [--ukm HEX] [-o FILE]\n"
               "                 [--256 | --512]\n\n"
               "VKO_GOSTR3410_2012_256 (default, 32 bytes) or _512 (64 bytes) of the private\n"
               "key KEY and the peer's public key (PEM or DER, same curve), written raw to\n"
               "FILE (created 0600) or stdout. UKM: 1..8 bytes in hex as `openssl pkeyutl\n"
               "-derive -pkeyopt ukmhex:HEX` takes it (read little-endian; default 01).\n"
               "A 32-byte UKM runs KEG instead (RFC 9189, the TLS key export key; the\n"
               "UKM is the 32-byte hash H): 64 bytes out, --256/--512 ignored, as\n"
               "pkeyutl -derive does with gost-engine. An encrypted KEY needs -passin\n"
               "(see gostx pkey --help).\n"
               "openssl spellings work too: -peer, -ukm, -out, -256, -512.\n");
        return CLI_EXIT_OK;
      case CLI_POS: return cli_usage("vko: unexpected argument '%s'", p.pos);
      default: return CLI_EXIT_USAGE;
    }
  }
  if (!key_path || !peer_path) return cli_usage("vko: needs -k KEY and --peer PEERPUB");
  uint8_t ukm[32] = {1};
  size_t ukm_len = 1;
  if (ukm_hex) {
    uint8_t *u;
    if ((rc = cli_hex("vko: --ukm", ukm_hex, &u, &ukm_len))) return rc;
    if (ukm_len < 1 || (ukm_len > 8 && ukm_len != 32)) {
      free(u);
      return cli_usage("vko: --ukm must be 1 to 8 bytes (VKO) or 32 (KEG), got %zu", ukm_len);
    }
    memcpy(ukm, u, ukm_len);
    free(u);
  }
  gostx_gost3410_key k, peer;
  if ((rc = cli_load_key_pass(key_path, &k, "-passin", passin))) return rc;
  if ((rc = cli_load_key(peer_path, &peer))) {
    gostx_gost3410_key_clear(&k);
    return rc;
  }
  int status = 0;
  if (!gostx_gost3410_key_is_private(&k))
    status = cli_usage("vko: %s is a public key; -k needs the private key", key_path);
  else if (peer.curve != k.curve)
    status = cli_usage("vko: the peer key is on %s, ours on %s: they must be the same curve",
                       gostx_gost3410_curve_name(peer.curve), gostx_gost3410_curve_name(k.curve));
  uint8_t out[64];
  if (!status) {
    if (ukm_len == 32) {
      out_len = 64;
      rc = gostx_gost3410_key_keg(&k, peer.q, 2 * k.len, ukm, 32, out, 64);
    } else {
      rc = gostx_gost3410_key_vko(&k, peer.q, 2 * k.len, ukm, ukm_len, out, out_len);
    }
    if (rc) {
      cli_err("vko: %s", rc == GOSTX_EINVAL ? "the peer key is of small order" : gostx_strerror(rc));
      status = rc == GOSTX_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
    }
  }
  if (!status) status = cli_write_file(out_path, out, out_len, CLI_OUT_PRIVATE);
  gostx_memzero(out, sizeof out);
  gostx_gost3410_key_clear(&k);
  gostx_gost3410_key_clear(&peer);
  return status;
}
