/* gostx mac: OMAC (GOST R 34.13-2015 5.6), OMAC-ACPKM (RFC 8645 6.2.3),
 * HMAC-Streebog (RFC 7836 4.1) and the GOST 28147-89 IMIT. The input is
 * streamed in chunks; the tag is printed in lowercase hex. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

/* OMAC-ACPKM defaults: the section size gost-engine's CMAC-ACPKM uses
 * (4096 bytes) and a master section T* of two key-material units (k + n),
 * the proportion of the RFC 8645 examples. */
#define OMAC_ACPKM_SECTION 4096

enum mac_alg { M_KUZ_OMAC, M_MAGMA_OMAC, M_KUZ_OMAC_ACPKM, M_MAGMA_OMAC_ACPKM, M_HMAC256,
               M_HMAC512, M_IMIT };

static const struct {
  const char *name;
  int alg;
} mac_algs[] = {
    {"kuznyechik-omac", M_KUZ_OMAC},
    {"kuznyechik-mac", M_KUZ_OMAC},
    {"magma-omac", M_MAGMA_OMAC},
    {"magma-mac", M_MAGMA_OMAC},
    {"kuznyechik-omac-acpkm", M_KUZ_OMAC_ACPKM},
    {"magma-omac-acpkm", M_MAGMA_OMAC_ACPKM},
    {"hmac-streebog256", M_HMAC256},
    {"hmac-streebog512", M_HMAC512},
    {"gost89-imit", M_IMIT},
    {"gost-mac", M_IMIT},
    {NULL, 0},
};

static void mac_usage(void) {
  printf(
      "Usage: gostx mac ALG (-k KEYHEX | --key-file FILE | --key-fd N) [--len BYTES] [-i IN]\n"
      "\n"
      "Prints the MAC of IN (default stdin) in lowercase hex.\n"
      "ALG:\n"
      "  kuznyechik-omac, magma-omac    OMAC of GOST R 34.13-2015 (CMAC); full tag\n"
      "                                 16 / 8 bytes (the standard's examples use\n"
      "                                 --len 8 / --len 4)\n"
      "  kuznyechik-omac-acpkm, magma-omac-acpkm   OMAC-ACPKM (RFC 8645 6.2.3)\n"
      "  hmac-streebog256, hmac-streebog512        HMAC (RFC 7836 4.1); any key length\n"
      "  gost89-imit                    GOST 28147-89 MAC; 4 bytes by default\n"
      "\n"
      "Options:\n"
      "  -k, --key HEX             key (32 bytes; any length for HMAC)\n"
      "      --key-file FILE       the key as raw bytes in FILE (32; HMAC: 1..65536)\n"
      "      --key-fd N            the key as raw bytes read from descriptor N to\n"
      "                            its end\n"
      "      --len BYTES           output only the first BYTES of the tag\n"
      "  -i, --in FILE             input (default stdin)\n"
      "      --section BYTES       OMAC-ACPKM section size N, a multiple of n\n"
      "                            (default 4096, gost-engine's CMAC-ACPKM value)\n"
      "      --master-section BYTES  OMAC-ACPKM T*, a multiple of n (default\n"
      "                            2(k+n): 96 for Kuznyechik, 80 for Magma, as in\n"
      "                            the RFC 8645 examples)\n"
      "      --sbox NAME           gost89-imit S-box (default cryptopro-a)\n"
      "      --iv HEX              gost89-imit start value, 8 bytes (default zero)\n"
      "      --mesh                gost89-imit: CryptoPro key meshing (RFC 4357 2.3);\n"
      "                            gost-engine's gost-mac = --mesh (cryptopro-a),\n"
      "                            gost-mac-12 = --sbox tc26-z --mesh\n"
      "  -h, --help                this help\n"
      "\n" CLI_ARGV_SECRET_NOTE("-k HEX", "--key-file and --key-fd"));
}

enum { OPT_KEY = 1, OPT_LEN, OPT_IN, OPT_SECTION, OPT_MASTER, OPT_SBOX, OPT_IV, OPT_MESH,
       OPT_KEY_FILE, OPT_KEY_FD, OPT_HELP };

static const cli_opt mac_opts[] = {
    {"key", 'k', CLI_ARG, OPT_KEY},
    {"key-file", 0, CLI_PATH, OPT_KEY_FILE},
    {"key-fd", 0, CLI_ARG, OPT_KEY_FD},
    {"len", 0, CLI_ARG, OPT_LEN},
    {"in", 'i', CLI_PATH, OPT_IN},
    {"section", 0, CLI_ARG, OPT_SECTION},
    {"master-section", 0, CLI_ARG, OPT_MASTER},
    {"sbox", 0, CLI_ARG, OPT_SBOX},
    {"iv", 0, CLI_ARG, OPT_IV},
    {"mesh", 0, CLI_NOARG, OPT_MESH},
    {"help", 'h', CLI_NOARG, OPT_HELP},
    {NULL, 0, 0, 0},
};

/* One context for whichever MAC runs. */
struct mac_state {
  int alg;
  union {
    gostx_omac_ctx omac;
    gostx_hmac_ctx hmac;
    gostx_gost89_ctx imit;
  } u;
};

static int mac_update(struct mac_state *s, const uint8_t *p, size_t len) {
  switch (s->alg) {
    case M_HMAC256:
    case M_HMAC512: return gostx_hmac_update(&s->u.hmac, p, len);
    case M_IMIT: return gostx_gost89_imit_update(&s->u.imit, p, len);
    default: return gostx_omac_update(&s->u.omac, p, len);
  }
}

static int mac_final(struct mac_state *s, uint8_t *tag, size_t full_len) {
  switch (s->alg) {
    case M_HMAC256:
    case M_HMAC512: return gostx_hmac_final(&s->u.hmac, tag);
    case M_IMIT: return gostx_gost89_imit_final(&s->u.imit, tag, full_len);
    default: return gostx_omac_final(&s->u.omac, tag, full_len);
  }
}

static void mac_clear(struct mac_state *s) {
  switch (s->alg) {
    case M_HMAC256:
    case M_HMAC512: gostx_hmac_clear(&s->u.hmac); break;
    case M_IMIT: gostx_gost89_ctx_clear(&s->u.imit); break;
    default: gostx_omac_clear(&s->u.omac); break;
  }
  gostx_memzero(s, sizeof *s);
}

int cmd_mac(int argc, char **argv) {
  cli_parser p;
  cli_parser_init(&p, "mac", argc, argv);
  const char *alg_s = NULL, *key_hex = NULL, *len_s = NULL, *in_path = NULL, *sec_s = NULL,
             *master_s = NULL, *sbox_s = NULL, *iv_hex = NULL, *key_path = NULL, *key_fd = NULL;
  int mesh = 0, id;
  while ((id = cli_next(&p, mac_opts)) != CLI_END) {
    switch (id) {
      case OPT_KEY: key_hex = p.arg; break;
      case OPT_KEY_FILE: key_path = p.arg; break;
      case OPT_KEY_FD: key_fd = p.arg; break;
      case OPT_LEN: len_s = p.arg; break;
      case OPT_IN: in_path = p.arg; break;
      case OPT_SECTION: sec_s = p.arg; break;
      case OPT_MASTER: master_s = p.arg; break;
      case OPT_SBOX: sbox_s = p.arg; break;
      case OPT_IV: iv_hex = p.arg; break;
      case OPT_MESH: mesh = 1; break;
      case OPT_HELP: mac_usage(); return CLI_EXIT_OK;
      case CLI_POS:
        if (alg_s) return cli_usage("mac: unexpected argument '%s'", p.pos);
        alg_s = p.pos;
        break;
      default: return CLI_EXIT_USAGE;
    }
  }
  if (!alg_s) return cli_usage("mac: missing ALG (try gostx mac --help)");
  int alg = -1;
  for (size_t i = 0; mac_algs[i].name; i++)
    if (!strcmp(mac_algs[i].name, alg_s)) alg = mac_algs[i].alg;
  if (alg < 0) return cli_usage("mac: unknown ALG '%s' (try gostx mac --help)", alg_s);
  int is_omac = alg == M_KUZ_OMAC || alg == M_MAGMA_OMAC || alg == M_KUZ_OMAC_ACPKM ||
                alg == M_MAGMA_OMAC_ACPKM;
  int is_acpkm = alg == M_KUZ_OMAC_ACPKM || alg == M_MAGMA_OMAC_ACPKM;
  int is_hmac = alg == M_HMAC256 || alg == M_HMAC512;
  int kuz = alg == M_KUZ_OMAC || alg == M_KUZ_OMAC_ACPKM;
  size_t n = kuz ? GOSTX_KUZ_BLOCK_LEN : GOSTX_MAGMA_BLOCK_LEN;

  if ((sec_s || master_s) && !is_acpkm)
    return cli_usage("mac: --section and --master-section apply only to *-omac-acpkm");
  if ((sbox_s || iv_hex || mesh) && alg != M_IMIT)
    return cli_usage("mac: --sbox, --iv and --mesh apply only to gost89-imit");
  int sources = !!key_hex + !!key_path + !!key_fd;
  if (!sources) return cli_usage("%s: missing key (-k KEYHEX, --key-file FILE or --key-fd N)", alg_s);
  if (sources > 1) return cli_usage("%s: give only one of -k, --key-file and --key-fd", alg_s);
  if (key_path && !strcmp(key_path, "-"))
    return cli_usage("%s: --key-file needs a file (stdin is the data; --key-fd N reads a descriptor)",
                     alg_s);

  /* Full tag length and the accepted --len range. */
  size_t full = is_hmac ? (alg == M_HMAC256 ? 32 : 64) : alg == M_IMIT ? 4 : n;
  size_t max_len = alg == M_IMIT ? 8 : full, out_len = full;
  int rc;
  if (len_s && (rc = cli_size("--len", len_s, 1, max_len, &out_len))) return rc;
  if (alg == M_IMIT) full = out_len; /* IMIT computes the requested length directly */

  uint8_t *key;
  size_t key_len;
  char what[64];
  snprintf(what, sizeof what, "%s: key", alg_s);
  if (!key_hex) {
    if ((rc = cli_read_secret(key_path, "--key-fd", key_fd, is_hmac ? 1 : GOSTX_KEY_LEN,
                              is_hmac ? 65536 : GOSTX_KEY_LEN, &key, &key_len)))
      return rc;
  } else if ((rc = cli_hex(what, key_hex, &key, &key_len))) {
    return rc;
  }
  if (!is_hmac && key_len != GOSTX_KEY_LEN) {
    cli_free_secret(key, key_len);
    return cli_usage("%s must be 32 bytes (64 hex digits), got %zu bytes", what, key_len);
  }

  size_t section = OMAC_ACPKM_SECTION, master = 2 * (GOSTX_KEY_LEN + n);
  int sbox = GOSTX_SBOX_CRYPTOPRO_A;
  uint8_t iv[8];
  rc = 0;
  if (sec_s) rc = cli_size("--section", sec_s, n, SIZE_MAX, &section);
  if (!rc && master_s) rc = cli_size("--master-section", master_s, n, SIZE_MAX, &master);
  if (!rc && is_acpkm && (section % n || master % n))
    rc = cli_usage("%s: --section and --master-section must be multiples of %zu", alg_s, n);
  if (!rc && sbox_s && (sbox = gostx_sbox_by_name(sbox_s)) < 0)
    rc = cli_usage("%s: unknown S-box '%s'", alg_s, sbox_s);
  if (!rc && iv_hex) {
    snprintf(what, sizeof what, "%s: IV", alg_s);
    rc = cli_hex_exact(what, iv_hex, iv, sizeof iv);
  }
  if (rc) {
    cli_free_secret(key, key_len);
    return rc;
  }

  struct mac_state st;
  memset(&st, 0, sizeof st);
  st.alg = alg;
  if (is_omac) {
    gostx_cipher c;
    rc = gostx_cipher_init(&c, kuz ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA, key);
    if (!rc) rc = is_acpkm ? gostx_omac_acpkm_init(&st.u.omac, &c, section, master)
                           : gostx_omac_init(&st.u.omac, &c);
    gostx_cipher_clear(&c);
  } else if (is_hmac) {
    rc = gostx_hmac_init(&st.u.hmac, full, key, key_len);
  } else {
    gostx_gost89_key k;
    rc = gostx_gost89_set_key(&k, key, sbox);
    if (!rc) rc = gostx_gost89_imit_init(&st.u.imit, &k, iv_hex ? iv : NULL, mesh);
    gostx_gost89_clear(&k);
  }
  cli_free_secret(key, key_len);
  if (rc) {
    mac_clear(&st);
    cli_err("%s: %s", alg_s, gostx_strerror(rc));
    return rc == GOSTX_EINVAL || rc == GOSTX_ELEN ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
  }

  cli_in in;
  int status = cli_in_open(&in, in_path);
  uint8_t *buf = status ? NULL : malloc(CLI_CHUNK);
  if (!status && !buf) {
    cli_err("out of memory");
    status = CLI_EXIT_FAIL;
  }
  while (!status) {
    size_t got;
    status = cli_in_read(&in, buf, CLI_CHUNK, &got);
    if (status || got == 0) break;
    if ((rc = mac_update(&st, buf, got))) {
      cli_err("%s: %s", alg_s, gostx_strerror(rc));
      status = CLI_EXIT_FAIL;
    }
  }
  if (!status) {
    uint8_t tag[64];
    if ((rc = mac_final(&st, tag, full))) {
      cli_err("%s: %s", alg_s, gostx_strerror(rc));
      status = CLI_EXIT_FAIL;
    } else {
      cli_print_hex(tag, out_len);
    }
    gostx_memzero(tag, sizeof tag);
  }
  mac_clear(&st);
  free(buf);
  if (in.f) cli_in_close(&in);
  return status;
}
