/* gostx: command-line front end to the gostx library. Dispatches to one
 * function per subcommand (commands.h: cli/cmd_*.c, and the tunnel, tls and
 * bench folders). This table is the one list of them and their summaries. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

struct subcommand {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
};

static const struct subcommand subcommands[] = {
    {"hash", cmd_hash, "Streebog digests of files, or check a list of digests (-c)"},
    {"cipher", cmd_cipher, "encrypt or decrypt: Kuznyechik, Magma, GOST 28147-89 modes, MGM, XTS"},
    {"mac", cmd_mac, "message authentication codes: OMAC, OMAC-ACPKM, HMAC, GOST 28147-89 IMIT"},
    {"kdf", cmd_kdf, "key derivation: PBKDF2, KDF_GOSTR3411_2012_256, KDF_TREE"},
    {"enc", cmd_enc, "encrypt a file into the gostx format (chunked MGM, key file or passphrase)"},
    {"dec", cmd_dec, "decrypt and verify a gostx file; writes only authenticated data"},
    {"keygen", cmd_keygen, "write a new random 32-byte key file (mode 0600)"},
    {"genpkey", cmd_genpkey, "a new GOST R 34.10-2012 private key (PEM/DER, as gost-engine writes)"},
    {"pkey", cmd_pkey, "read a GOST R 34.10-2012 key; write it as PEM/DER, its public key, or text"},
    {"sign", cmd_sign, "GOST R 34.10-2012 signatures of files (openssl dgst -sign's format)"},
    {"verify", cmd_verify, "check a GOST R 34.10-2012 signature of a file"},
    {"vko", cmd_vko, "VKO_GOSTR3410_2012 key agreement (openssl pkeyutl -derive's result)"},
    {"x509", cmd_x509, "GOST X.509 certificates: verify chains (as openssl verify), show, issue (-req)"},
    {"req", cmd_req, "certificate requests (PKCS#10) and self-signed certificates, as openssl req"},
    {"ca", cmd_ca, "a CA with openssl ca's index: issue, revoke, CRLs (-gencrl)"},
    {"cms", cmd_cms, "CMS SignedData and CAdES-BES with GOST keys (as openssl cms): sign, verify"},
    {"ocsp", cmd_ocsp, "OCSP (RFC 6960) with GOST signatures, as openssl ocsp: client and responder"},
    {"ts", cmd_ts, "RFC 3161 time stamps (as openssl ts): -query, -reply, -verify; serve (HTTP TSA)"},
    {"pkcs12", cmd_pkcs12, "GOST PKCS#12 (.pfx): split into a PEM key and chain, -info, -export"},
    {"key", cmd_key, "import a CryptoPro CSP key container as a PKCS#8 key file or a PFX"},
    {"p11", cmd_p11, "gostx's PKCS#11 token: init, list, keygen, import a key"},
    {"disk", cmd_disk, "LUKS1 disks for the nbdkit filter: format, add-pass, remove-pass, dump"},
    {"tunnel", cmd_tunnel, "GOST network encryptor: IP over ESP/UDP (RFC 9227 transforms) via TUN"},
    {"tls", cmd_tls, "GOST TLS 1.3 (RFC 9367): serve in front of a TCP server, connect, client"},
    {"bench", cmd_bench, "throughput and cycles/byte of every algorithm and mode"},
#ifdef GOSTX_WITH_XMLDSIG
    {"xml", cmd_xml, "XML signatures (XMLDSig, SMEV 3) with GOST keys: sign, verify"},
#endif
    {"info", cmd_info, "version, CPU features and the implementation chosen per primitive"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f) {
  fprintf(f,
          "Usage: gostx COMMAND [OPTIONS] [ARGS]\n"
          "       gostx --help | --version\n"
          "\n"
          "Russian GOST cryptography (GOST R 34.12/34.13-2015, GOST 28147-89,\n"
          "GOST R 34.11-2012 Streebog, RFC 7836 HMAC/KDF, MGM, ACPKM, XTS).\n"
          "\n"
          "Commands:\n");
  for (const struct subcommand *s = subcommands; s->name; s++)
    fprintf(f, "  %-8s %s\n", s->name, s->summary);
  fprintf(f,
          "\n"
          "Run `gostx COMMAND --help` for the options of a command.\n"
          "Byte strings (keys, IVs, ...) are given in hex, first pair = first byte.\n"
          "Exit status: 0 success, 1 I/O or verification failure, 2 usage error.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    printf("gostx %s\n", gostx_version());
    return CLI_EXIT_OK;
  }
  for (const struct subcommand *s = subcommands; s->name; s++) {
    if (strcmp(cmd, s->name) == 0) {
      cli_stdout_error_reset();
      /* bench sets GOSTX_IMPL from --impl first, info prints it in its output. */
      if (s->run != cmd_bench && s->run != cmd_info) cli_impl_warn();
      int rc = s->run(argc - 1, argv + 1);
      /* Catch late stdout errors (full disk, closed pipe) for every command;
       * once: an output written through cli_out already said so. */
      int flush_failed = fflush(stdout) != 0, err = errno;
      if (flush_failed || ferror(stdout)) {
        if (!cli_stdout_error_reported())
          cli_err("stdout: write error%s%s", flush_failed ? ": " : "",
                  flush_failed ? strerror(err) : "");
        if (rc == CLI_EXIT_OK) rc = CLI_EXIT_FAIL;
      }
      return rc;
    }
  }
  return cli_usage("unknown command '%s' (try gostx --help)", cmd);
}
