/* The subcommands of gostx: one function each, called by main.c's table
 * with argv[0] the subcommand's name. Every cmd_*.c includes this, so a
 * prototype and its definition cannot drift apart. Returns CLI_EXIT_*. */
#ifndef GOSTX_CLI_COMMANDS_H
#define GOSTX_CLI_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

int cmd_hash(int argc, char **argv);    /* cli/cmd_hash.c */
int cmd_cipher(int argc, char **argv);  /* cli/cmd_cipher.c */
int cmd_mac(int argc, char **argv);     /* cli/cmd_mac.c */
int cmd_kdf(int argc, char **argv);     /* cli/cmd_kdf.c */
int cmd_enc(int argc, char **argv);     /* cli/cmd_enc.c */
int cmd_dec(int argc, char **argv);     /* cli/cmd_enc.c */
int cmd_keygen(int argc, char **argv);  /* cli/cmd_enc.c */
int cmd_genpkey(int argc, char **argv); /* cli/cmd_pkey.c */
int cmd_pkey(int argc, char **argv);    /* cli/cmd_pkey.c */
int cmd_sign(int argc, char **argv);    /* cli/cmd_sign.c */
int cmd_verify(int argc, char **argv);  /* cli/cmd_sign.c */
int cmd_vko(int argc, char **argv);     /* cli/cmd_sign.c */
int cmd_x509(int argc, char **argv);    /* cli/cmd_x509.c */
int cmd_req(int argc, char **argv);     /* cli/cmd_req.c */
int cmd_cms(int argc, char **argv);     /* cli/cms/cmd_cms.c */
int cmd_pkcs12(int argc, char **argv);  /* cli/cmd_pkcs12.c */
int cmd_key(int argc, char **argv);     /* cli/cmd_key.c */
int cmd_p11(int argc, char **argv);     /* cli/cmd_p11.c */
int cmd_ocsp(int argc, char **argv);    /* cli/ocsp/cmd_ocsp.c */
int cmd_ts(int argc, char **argv);      /* cli/ts/cmd_ts.c */
int cmd_disk(int argc, char **argv);    /* cli/cmd_disk.c */
int cmd_tunnel(int argc, char **argv);  /* cli/tunnel/cmd_tunnel.c */
int cmd_tls(int argc, char **argv);     /* cli/tls/cmd_tls.c */
int cmd_bench(int argc, char **argv);   /* cli/bench/cmd_bench.c */
int cmd_info(int argc, char **argv);    /* cli/cmd_info.c */
int cmd_ca(int argc, char **argv);      /* cli/ca/cmd_ca.c */
int cmd_xml(int argc, char **argv);     /* cli/xml/cmd_xml.c: built with libxml2 only */

/* Writes k's private key (sensitive, not extractable), its public key and
 * cert (when not NULL; it must be k's, else nothing is written) into a
 * token of gostx's PKCS#11 module (cli/cmd_p11.c): module NULL finds it as
 * `gostx p11` does; token a label or a pkcs11: URI (token=, module-path=),
 * NULL the only token; pin_spec a password spec or NULL (asked); id_hex
 * NULL derives the ID. `gostx p11 import` and `gostx key import -p11`. */
struct gostx_gost3410_key;
int p11_store_key(const char *module, const char *token, const char *pin_spec, const char *label,
                  const char *id_hex, const struct gostx_gost3410_key *k, const uint8_t *cert,
                  size_t cert_len);

/* `gostx x509 -req` (cli/cmd_req.c), which cmd_x509 hands its arguments to. */
int cmd_x509_req(int argc, char **argv);

#endif
