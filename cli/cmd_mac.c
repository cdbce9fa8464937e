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

/* The command line as given: cli_next_into fills it from mac_opts. */
struct mac_args {
  const char *alg, *key_hex, *key_file, *key_fd, *len, *in, *section, *master, *sbox, *iv;
  int mesh;
};

enum { OPT_HELP = 1 };

#define A(member) CLI_STR(struct mac_args, member)
static const cli_field mac_opts[] = {
    {{"key", 'k', CLI_ARG, 0}, A(key_hex)},
    {{"key-file", 0, CLI_PATH, 0}, A(key_file)},
    {{"key-fd", 0, CLI_ARG, 0}, A(key_fd)},
    {{"len", 0, CLI_ARG, 0}, A(len)},
    {{"in", 'i', CLI_PATH, 0}, A(in)},
    {{"section", 0, CLI_ARG, 0}, A(section)},
    {{"master-section", 0, CLI_ARG, 0}, A(master)},
    {{"sbox", 0, CLI_ARG, 0}, A(sbox)},
    {{"iv", 0, CLI_ARG, 0}, A(iv)},
    {{"mesh", 0, CLI_NOARG, 0}, CLI_FLAG(struct mac_args, mesh, 1)},
    {{"help", 'h', CLI_NOARG, OPT_HELP}, CLI_RET},
    {{NULL, 0, 0, 0}, CLI_RET},
};
#undef A

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

/* The MAC the command line asks for, checked; key malloc'ed (cli_free_secret). */
struct mac_job {
  const char *name; /* ALG as given */
  int alg, kuz, omac, acpkm, hmac;
  size_t n;             /* block length */
  size_t full, out_len; /* the tag computed, the bytes printed */
  size_t section, master;
  int sbox;
  uint8_t iv[8];
  uint8_t *key;
  size_t key_len;
};

/* ALG, and the options that apply to it only. */
static int mac_alg(struct mac_job *m, const struct mac_args *a) {
  if (!a->alg) return cli_usage("mac: missing ALG (try gostx mac --help)");
  m->name = a->alg;
  m->alg = -1;
  for (size_t i = 0; mac_algs[i].name; i++)
    if (!strcmp(mac_algs[i].name, a->alg)) m->alg = mac_algs[i].alg;
  if (m->alg < 0) return cli_usage("mac: unknown ALG '%s' (try gostx mac --help)", a->alg);
  int alg = m->alg;
  m->acpkm = alg == M_KUZ_OMAC_ACPKM || alg == M_MAGMA_OMAC_ACPKM;
  m->omac = alg == M_KUZ_OMAC || alg == M_MAGMA_OMAC || m->acpkm;
  m->hmac = alg == M_HMAC256 || alg == M_HMAC512;
  m->kuz = alg == M_KUZ_OMAC || alg == M_KUZ_OMAC_ACPKM;
  m->n = m->kuz ? GOSTX_KUZ_BLOCK_LEN : GOSTX_MAGMA_BLOCK_LEN;
  if ((a->section || a->master) && !m->acpkm)
    return cli_usage("mac: --section and --master-section apply only to *-omac-acpkm");
  if ((a->sbox || a->iv || a->mesh) && alg != M_IMIT)
    return cli_usage("mac: --sbox, --iv and --mesh apply only to gost89-imit");
  return 0;
}

/* The full tag length and --len (at most the full tag; IMIT: up to 8). */
static int mac_len(struct mac_job *m, const char *len_s) {
  m->full = m->hmac ? (m->alg == M_HMAC256 ? 32 : 64) : m->alg == M_IMIT ? 4 : m->n;
  size_t max_len = m->alg == M_IMIT ? 8 : m->full;
  m->out_len = m->full;
  int rc;
  if (len_s && (rc = cli_size("--len", len_s, 1, max_len, &m->out_len))) return rc;
  if (m->alg == M_IMIT) m->full = m->out_len; /* IMIT computes the requested length directly */
  return 0;
}

/* The key (32 bytes; HMAC: any length) from -k, --key-file or --key-fd. */
static int mac_key(struct mac_job *m, const struct mac_args *a) {
  char what[64];
  int rc;
  snprintf(what, sizeof what, "%s: key", m->name);
  if (!a->key_hex) {
    if ((rc = cli_read_secret(a->key_file, "--key-fd", a->key_fd, m->hmac ? 1 : GOSTX_KEY_LEN,
                              m->hmac ? 65536 : GOSTX_KEY_LEN, &m->key, &m->key_len)))
      return rc;
  } else if ((rc = cli_hex(what, a->key_hex, &m->key, &m->key_len))) {
    return rc;
  }
  if (!m->hmac && m->key_len != GOSTX_KEY_LEN)
    return cli_usage("%s must be 32 bytes (64 hex digits), got %zu bytes", what, m->key_len);
  return 0;
}

/* OMAC-ACPKM's sections, IMIT's S-box and start value. */
static int mac_params(struct mac_job *m, const struct mac_args *a) {
  size_t n = m->n;
  int rc = 0;
  m->section = OMAC_ACPKM_SECTION;
  m->master = 2 * (GOSTX_KEY_LEN + n);
  m->sbox = GOSTX_SBOX_CRYPTOPRO_A;
  if (a->section) rc = cli_size("--section", a->section, n, SIZE_MAX, &m->section);
  if (!rc && a->master) rc = cli_size("--master-section", a->master, n, SIZE_MAX, &m->master);
  if (!rc && m->acpkm && (m->section % n || m->master % n))
    rc = cli_usage("%s: --section and --master-section must be multiples of %zu", m->name, n);
  if (!rc && a->sbox && (m->sbox = gostx_sbox_by_name(a->sbox)) < 0)
    rc = cli_usage("%s: unknown S-box '%s'", m->name, a->sbox);
  if (!rc && a->iv) {
    char what[64];
    snprintf(what, sizeof what, "%s: IV", m->name);
    rc = cli_hex_exact(what, a->iv, m->iv, sizeof m->iv);
  }
  return rc;
}

/* The MAC's context from the job: 0, or the library's error. */
static int mac_init(struct mac_state *st, const struct mac_job *m, int have_iv, int mesh) {
  int rc;
  memset(st, 0, sizeof *st);
  st->alg = m->alg;
  if (m->omac) {
    gostx_cipher c;
    rc = gostx_cipher_init(&c, m->kuz ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA, m->key);
    if (!rc) rc = m->acpkm ? gostx_omac_acpkm_init(&st->u.omac, &c, m->section, m->master)
                           : gostx_omac_init(&st->u.omac, &c);
    gostx_cipher_clear(&c);
  } else if (m->hmac) {
    rc = gostx_hmac_init(&st->u.hmac, m->full, m->key, m->key_len);
  } else {
    gostx_gost89_key k;
    rc = gostx_gost89_set_key(&k, m->key, m->sbox);
    if (!rc) rc = gostx_gost89_imit_init(&st->u.imit, &k, have_iv ? m->iv : NULL, mesh);
    gostx_gost89_clear(&k);
  }
  return rc;
}

/* The input through the MAC, and the tag printed. */
static int mac_stream(struct mac_state *st, const struct mac_job *m, const char *in_path) {
  cli_in in;
  int rc, status = cli_in_open(&in, in_path);
  uint8_t *buf = status ? NULL : malloc(CLI_CHUNK);
  if (!status && !buf) {
    cli_err("out of memory");
    status = CLI_EXIT_FAIL;
  }
  while (!status) {
    size_t got;
    status = cli_in_read(&in, buf, CLI_CHUNK, &got);
    if (status || got == 0) break;
    if ((rc = mac_update(st, buf, got))) {
      cli_err("%s: %s", m->name, gostx_strerror(rc));
      status = CLI_EXIT_FAIL;
    }
  }
  if (!status) {
    uint8_t tag[64];
    if ((rc = mac_final(st, tag, m->full))) {
      cli_err("%s: %s", m->name, gostx_strerror(rc));
      status = CLI_EXIT_FAIL;
    } else {
      cli_print_hex(tag, m->out_len);
    }
    gostx_memzero(tag, sizeof tag);
  }
  free(buf);
  if (in.f) cli_in_close(&in);
  return status;
}

int cmd_mac(int argc, char **argv) {
  cli_parser p;
  cli_parser_init(&p, "mac", argc, argv);
  struct mac_args a = {0};
  int id, rc;
  while ((id = cli_next_into(&p, mac_opts, &a)) != CLI_END) {
    if (id == OPT_HELP) {
      mac_usage();
      return CLI_EXIT_OK;
    }
    if (id != CLI_POS) return CLI_EXIT_USAGE;
    if (a.alg) return cli_usage("mac: unexpected argument '%s'", p.pos);
    a.alg = p.pos;
  }
  struct mac_job m = {0};
  if ((rc = mac_alg(&m, &a)) || (rc = cli_key_source(m.name, a.key_hex, a.key_file, a.key_fd, 1)) ||
      (rc = mac_len(&m, a.len)))
    return rc;
  if ((rc = mac_key(&m, &a)) || (rc = mac_params(&m, &a))) {
    cli_free_secret(m.key, m.key_len);
    return rc;
  }
  struct mac_state st;
  rc = mac_init(&st, &m, a.iv != NULL, a.mesh);
  cli_free_secret(m.key, m.key_len);
  if (rc) {
    mac_clear(&st);
    cli_err("%s: %s", m.name, gostx_strerror(rc));
    return rc == GOSTX_EINVAL || rc == GOSTX_ELEN ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
  }
  int status = mac_stream(&st, &m, a.in);
  mac_clear(&st);
  return status;
}
