/* gostx cipher: encryption and decryption with the GOST R 34.13-2015 modes
 * (Kuznyechik, Magma), MGM, Kuznyechik-XTS and the GOST 28147-89 modes.
 * Stream modes run in chunks; MGM and single-unit XTS read the whole input. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"

/* Section (ACPKM N) defaults: the values gost-engine uses for its
 * kuznyechik-ctr-acpkm and magma-ctr-acpkm ciphers. */
#define ACPKM_SECTION_KUZ 4096
#define ACPKM_SECTION_MAGMA 1024

enum family { FAM_KUZ, FAM_MAGMA, FAM_GOST89 };
enum kind { K_ECB, K_CBC, K_CFB, K_OFB, K_CTR, K_CTR_ACPKM, K_MGM, K_XTS, K_G89_CNT };

struct alg_mode {
  const char *name;
  int family;
  int kind;
};

static const struct alg_mode alg_modes[] = {
    {"kuznyechik-ecb", FAM_KUZ, K_ECB},
    {"kuznyechik-cbc", FAM_KUZ, K_CBC},
    {"kuznyechik-cfb", FAM_KUZ, K_CFB},
    {"kuznyechik-ofb", FAM_KUZ, K_OFB},
    {"kuznyechik-ctr", FAM_KUZ, K_CTR},
    {"kuznyechik-ctr-acpkm", FAM_KUZ, K_CTR_ACPKM},
    {"kuznyechik-mgm", FAM_KUZ, K_MGM},
    {"kuznyechik-xts", FAM_KUZ, K_XTS},
    {"magma-ecb", FAM_MAGMA, K_ECB},
    {"magma-cbc", FAM_MAGMA, K_CBC},
    {"magma-cfb", FAM_MAGMA, K_CFB},
    {"magma-ofb", FAM_MAGMA, K_OFB},
    {"magma-ctr", FAM_MAGMA, K_CTR},
    {"magma-ctr-acpkm", FAM_MAGMA, K_CTR_ACPKM},
    {"magma-mgm", FAM_MAGMA, K_MGM},
    {"gost89-ecb", FAM_GOST89, K_ECB},
    {"gost89-cnt", FAM_GOST89, K_G89_CNT},
    {"gost89-cfb", FAM_GOST89, K_CFB},
    {NULL, 0, 0},
};

static void cipher_usage(void) {
  printf(
      "Usage: gostx cipher ALG-MODE (-k KEYHEX | --key-file FILE | --key-fd N) [OPTIONS]\n"
      "\n"
      "Encrypts (default) or decrypts (-d) stdin to stdout, or -i IN to -o OUT.\n"
      "ALG-MODE:\n"
      "  kuznyechik-{ecb,cbc,cfb,ofb,ctr,ctr-acpkm,mgm,xts}\n"
      "  magma-{ecb,cbc,cfb,ofb,ctr,ctr-acpkm,mgm}     (GOST R 34.12/34.13-2015)\n"
      "  gost89-{ecb,cnt,cfb}                          (GOST 28147-89, RFC 5830)\n"
      "\n"
      "Options:\n"
      "  -k, --key HEX        32-byte key (64 bytes for XTS: data key || tweak key)\n"
      "      --key-file FILE  the key as raw bytes in FILE (32, or 64 for XTS;\n"
      "                       `gostx keygen` makes one)\n"
      "      --key-fd N       the key as raw bytes read from descriptor N to its end\n"
      "      --iv HEX         IV; its length sets m (GOST R 34.13-2015):\n"
      "                         CBC, OFB: a multiple of n (n = 16 Kuznyechik, 8 Magma)\n"
      "                         CFB: at least n bytes;  CTR, CTR-ACPKM: n/2 bytes\n"
      "                         MGM: the n-byte nonce (top bit 0);  XTS: 16-byte tweak\n"
      "                         gost89-cnt/cfb: 8 bytes\n"
      "  -d, --decrypt        decrypt\n"
      "  -e, --encrypt        encrypt (default)\n"
      "  -i, --in FILE        input (default stdin)\n"
      "  -o, --out FILE       output (default stdout); appears only on success,\n"
      "                       complete and synced to disk (an existing FILE stays\n"
      "                       as it was until then); must not be an input file\n"
      "      --pad none|1|2|3 ECB/CBC padding procedure of GOST R 34.13-2015 4.1\n"
      "                       (default none: the input must be a block multiple).\n"
      "                       Decryption removes procedure 2; 1 and 3 stay.\n"
      "      --segment BYTES  s for CFB/OFB/CTR, 1..n (default n)\n"
      "      --section BYTES  CTR-ACPKM section size N, a multiple of n (default\n"
      "                       4096 for Kuznyechik, 1024 for Magma: gost-engine's\n"
      "                       kuznyechik-ctr-acpkm / magma-ctr-acpkm values)\n"
      "      --aad HEX        MGM associated data\n"
      "      --aad-file FILE  MGM associated data: the bytes of FILE (any size;\n"
      "                       --aad is limited by the command line to ~64 KiB)\n"
      "      --tag-len BYTES  MGM tag length, 4..n (default n); the output of\n"
      "                       encryption is ciphertext || tag\n"
      "      --sector N       XTS: tweak = sector number N, 16-byte little-endian\n"
      "                       (plain64), instead of --iv\n"
      "      --sector-size BYTES  XTS: split the input into sectors of this size\n"
      "                       (>= 16), numbered N, N+1, ... (default: the whole\n"
      "                       input is one data unit)\n"
      "      --sbox NAME      gost89 S-box: cryptopro-a (default), cryptopro-b,\n"
      "                       cryptopro-c, cryptopro-d, tc26-z, test-28147,\n"
      "                       test-3411-94, cryptopro-3411-94, or the set's OID\n"
      "                       (1.2.643.2.2.31.1) or ASN.1 name\n"
      "      --mesh           gost89-cnt/cfb: CryptoPro key meshing every 1024\n"
      "                       bytes (RFC 4357 2.3). Off by default.\n"
      "  -j, --threads N      kuznyechik-ctr / magma-ctr with whole-block segments:\n"
      "                       N threads, 0 = one per core (default 0); reading and\n"
      "                       writing overlap the cipher. MGM: N threads for the\n"
      "                       whole input (the same bytes). Other modes: one thread\n"
      "  -h, --help           this help\n"
      "\n"
      "openssl + gost-engine equivalents (it always meshes keys): its 'gost89'\n"
      "cipher is gost89-cfb --sbox tc26-z --mesh (its default CRYPT_PARAMS is\n"
      "TC26-Z); 'gost89-cnt' is gost89-cnt --mesh (CryptoPro-A); 'gost89-cnt-12'\n"
      "is gost89-cnt --sbox tc26-z --mesh. Its kuznyechik-/magma-ctr take the\n"
      "n/2-byte IV as here; its cbc/cfb/ofb use m = n (an n-byte IV).\n"
      "MGM decryption checks the tag before writing anything: on a wrong tag it\n"
      "prints 'authentication failed', writes no output and exits 1.\n"
      CLI_ARGV_SECRET_NOTE("-k HEX", "--key-file and --key-fd"));
}

/* The command line as given: cli_next_into fills it from cipher_opts. */
struct cipher_args {
  const char *alg, *key_hex, *key_file, *key_fd, *iv, *aad, *aad_file, *tag_len, *pad, *segment,
      *section, *sbox, *sector, *sector_size, *in, *out;
  int decrypt, mesh;
};

enum { OPT_THREADS = 1, OPT_HELP };

#define A(member) CLI_STR(struct cipher_args, member)
static const cli_field cipher_opts[] = {
    {{"key", 'k', CLI_ARG, 0}, A(key_hex)},
    {{"key-file", 0, CLI_PATH, 0}, A(key_file)},
    {{"key-fd", 0, CLI_ARG, 0}, A(key_fd)},
    {{"iv", 0, CLI_ARG, 0}, A(iv)},
    {{"nonce", 0, CLI_ARG, 0}, A(iv)},
    {{"aad", 0, CLI_ARG, 0}, A(aad)},
    {{"aad-file", 0, CLI_PATH, 0}, A(aad_file)},
    {{"tag-len", 0, CLI_ARG, 0}, A(tag_len)},
    {{"pad", 0, CLI_ARG, 0}, A(pad)},
    {{"decrypt", 'd', CLI_NOARG, 0}, CLI_FLAG(struct cipher_args, decrypt, 1)},
    {{"encrypt", 'e', CLI_NOARG, 0}, CLI_FLAG(struct cipher_args, decrypt, 0)},
    {{"in", 'i', CLI_PATH, 0}, A(in)},
    {{"out", 'o', CLI_PATH, 0}, A(out)},
    {{"segment", 0, CLI_ARG, 0}, A(segment)},
    {{"section", 0, CLI_ARG, 0}, A(section)},
    {{"sbox", 0, CLI_ARG, 0}, A(sbox)},
    {{"mesh", 0, CLI_NOARG, 0}, CLI_FLAG(struct cipher_args, mesh, 1)},
    {{"sector", 0, CLI_ARG, 0}, A(sector)},
    {{"sector-size", 0, CLI_ARG, 0}, A(sector_size)},
    {{"threads", 'j', CLI_ARG, OPT_THREADS}, CLI_RET}, /* checked at once, as given */
    {{"help", 'h', CLI_NOARG, OPT_HELP}, CLI_RET},
    {{NULL, 0, 0, 0}, CLI_RET},
};
#undef A

/* Everything the command line said, validated. */
struct job {
  const struct alg_mode *am;
  size_t n; /* block length */
  uint8_t key[GOSTX_XTS_KEY_LEN];
  size_t key_len;
  uint8_t iv[GOSTX_MAX_IV_LEN];
  size_t iv_len;
  int have_iv;
  uint8_t *aad;
  size_t aad_len;
  size_t tag_len, segment, section, sector_size;
  uint64_t sector, threads;
  int have_sector, decrypt, padding, sbox, mesh;
  const char *in_path, *out_path, *aad_path, *key_path;
};

static int not_a_multiple(const struct job *j, unsigned long long total) {
  return cli_usage("%s: input length %llu is not a multiple of the block size %zu%s",
                   j->am->name, total, j->n,
                   j->decrypt ? "" : " (use --pad to pad it)");
}

/* The library's refusal rc, said for the job's algorithm: CLI_EXIT_FAIL. */
static int alg_failed(const struct job *j, int rc) {
  cli_err("%s: %s", j->am->name, gostx_strerror(rc));
  return CLI_EXIT_FAIL;
}

/* ---- GOST R 34.13-2015 stream modes through gostx_mode_* ---- */

static int run_mode(const struct job *j, cli_in *in, cli_out *out) {
  static const int mode_of_kind[] = {
      [K_ECB] = GOSTX_MODE_ECB, [K_CBC] = GOSTX_MODE_CBC, [K_CFB] = GOSTX_MODE_CFB,
      [K_OFB] = GOSTX_MODE_OFB, [K_CTR] = GOSTX_MODE_CTR, [K_CTR_ACPKM] = GOSTX_MODE_CTR_ACPKM,
  };
  int id = j->am->family == FAM_KUZ ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA;
  gostx_cipher c;
  gostx_mode_ctx ctx;
  int rc = gostx_cipher_init(&c, id, j->key);
  if (rc) {
    return alg_failed(j, rc);
  }
  rc = gostx_mode_init(&ctx, &c, mode_of_kind[j->am->kind], j->decrypt,
                       j->have_iv ? j->iv : NULL, j->iv_len, j->segment, j->padding,
                       j->section);
  gostx_cipher_clear(&c);
  if (rc) {
    cli_err("%s: %s", j->am->name, gostx_strerror(rc));
    return rc == GOSTX_ELEN || rc == GOSTX_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
  }
  uint8_t *ibuf = malloc(CLI_CHUNK), *obuf = malloc(CLI_CHUNK + 2 * GOSTX_MAX_BLOCK_LEN);
  unsigned long long total = 0;
  int status = 0;
  if (!ibuf || !obuf) {
    cli_err("out of memory");
    status = CLI_EXIT_FAIL;
  }
  while (!status) {
    size_t got, olen = 0;
    status = cli_in_read(in, ibuf, CLI_CHUNK, &got);
    if (status) break;
    if (got == 0) { /* end of input */
      int needs_blocks = j->am->kind == K_ECB || j->am->kind == K_CBC;
      if (needs_blocks && (j->padding == GOSTX_PAD_NONE || j->decrypt) && total % j->n) {
        status = not_a_multiple(j, total);
        break;
      }
      rc = gostx_mode_final(&ctx, obuf, &olen);
      if (rc) {
        if (rc == GOSTX_EPAD) cli_err("%s: bad padding (wrong key or not --pad 2 data?)",
                                      j->am->name);
        else cli_err("%s: %s", j->am->name, gostx_strerror(rc));
        status = CLI_EXIT_FAIL;
        break;
      }
      status = cli_out_write(out, obuf, olen);
      break;
    }
    total += got;
    rc = gostx_mode_update(&ctx, ibuf, got, obuf, &olen);
    if (rc) {
      status = alg_failed(j, rc);
      break;
    }
    status = cli_out_write(out, obuf, olen);
  }
  gostx_mode_clear(&ctx);
  if (ibuf) gostx_memzero(ibuf, CLI_CHUNK);
  if (obuf) gostx_memzero(obuf, CLI_CHUNK + 2 * GOSTX_MAX_BLOCK_LEN);
  free(ibuf);
  free(obuf);
  return status;
}

/* CTR with whole-block segments: on the pool, I/O overlapped (cli/cipher_ctr.c). */
static int run_ctr_parallel(const struct job *j, cli_in *in, cli_out *out) {
  gostx_cipher c;
  int rc = gostx_cipher_init(&c, j->am->family == FAM_KUZ ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA,
                             j->key);
  if (!rc && (!j->have_iv || j->iv_len != j->n / 2)) rc = GOSTX_EINVAL;
  if (rc) {
    gostx_cipher_clear(&c);
    cli_err("%s: %s", j->am->name, gostx_strerror(rc));
    return CLI_EXIT_USAGE;
  }
  int status = cli_cipher_ctr_parallel(&c, j->iv, j->iv_len, (unsigned)j->threads, in, out);
  gostx_cipher_clear(&c);
  return status;
}

/* ---- GOST 28147-89 CNT / CFB ---- */

static int run_gost89_stream(const struct job *j, cli_in *in, cli_out *out) {
  gostx_gost89_ctx ctx;
  int mode = j->am->kind == K_G89_CNT ? GOSTX_GOST89_CNT : GOSTX_GOST89_CFB;
  gostx_gost89_key k;
  int rc = gostx_gost89_set_key(&k, j->key, j->sbox);
  if (!rc) rc = gostx_gost89_init(&ctx, &k, mode, j->decrypt, j->iv, j->mesh);
  gostx_gost89_clear(&k);
  if (rc) {
    return alg_failed(j, rc);
  }
  uint8_t *buf = malloc(CLI_CHUNK);
  int status = buf ? 0 : CLI_EXIT_FAIL;
  if (!buf) cli_err("out of memory");
  while (!status) {
    size_t got;
    status = cli_in_read(in, buf, CLI_CHUNK, &got);
    if (status || got == 0) break;
    rc = gostx_gost89_update(&ctx, buf, got, buf);
    if (rc) {
      status = alg_failed(j, rc);
      break;
    }
    status = cli_out_write(out, buf, got);
  }
  gostx_gost89_ctx_clear(&ctx);
  if (buf) gostx_memzero(buf, CLI_CHUNK);
  free(buf);
  return status;
}

/* ---- GOST 28147-89 ECB: no streaming API, so whole blocks are cut here.
 * With --pad 2 on decryption the last block is held back until EOF so that
 * the padding can be removed. ---- */

static int run_gost89_ecb(const struct job *j, cli_in *in, cli_out *out) {
  gostx_gost89_key k;
  int rc = gostx_gost89_set_key(&k, j->key, j->sbox);
  if (rc) {
    return alg_failed(j, rc);
  }
  const size_t bl = 8;
  uint8_t *buf = malloc(CLI_CHUNK + 2 * bl);
  uint8_t tail[16];
  size_t have = 0; /* bytes carried in buf from the previous round */
  unsigned long long total = 0;
  int status = buf ? 0 : CLI_EXIT_FAIL;
  if (!buf) cli_err("out of memory");
  int hold_last = j->decrypt && j->padding == GOSTX_PAD_2;
  while (!status) {
    size_t got;
    status = cli_in_read(in, buf + have, CLI_CHUNK, &got);
    if (status) break;
    total += got;
    have += got;
    if (got == 0) break;
    size_t whole = have - have % bl;
    if (hold_last && whole == have && whole) whole -= bl; /* keep a full last block */
    if (j->decrypt) gostx_gost89_ecb_decrypt(&k, buf, whole, buf);
    else gostx_gost89_ecb_encrypt(&k, buf, whole, buf);
    status = cli_out_write(out, buf, whole);
    memmove(buf, buf + whole, have - whole);
    have -= whole;
  }
  if (!status) {
    /* have < 2 blocks here. */
    if (!j->decrypt) {
      size_t plen = have;
      if (j->padding != GOSTX_PAD_NONE) {
        rc = gostx_pad(j->padding, bl, buf, have, tail, &plen);
        if (rc) {
          status = alg_failed(j, rc);
        }
      } else if (have % bl) {
        status = not_a_multiple(j, total);
      } else {
        memcpy(tail, buf, have);
      }
      if (!status) {
        gostx_gost89_ecb_encrypt(&k, tail, plen, tail);
        status = cli_out_write(out, tail, plen);
      }
    } else if (have % bl) {
      status = not_a_multiple(j, total);
    } else {
      size_t mlen = have;
      gostx_gost89_ecb_decrypt(&k, buf, have, tail);
      if (hold_last) {
        rc = have ? gostx_unpad2(bl, tail, have, &mlen) : GOSTX_EPAD;
        if (rc) {
          cli_err("%s: bad padding (wrong key or not --pad 2 data?)", j->am->name);
          status = CLI_EXIT_FAIL;
        }
      }
      if (!status) status = cli_out_write(out, tail, mlen);
    }
  }
  gostx_memzero(tail, sizeof tail);
  gostx_gost89_clear(&k);
  if (buf) gostx_memzero(buf, CLI_CHUNK + 2 * bl);
  free(buf);
  return status;
}

/* ---- MGM: whole input in memory; decryption verifies before any write ----
 * On the pool (-j): keystream and tag sum are split across the threads, the
 * same bytes as one thread; decryption still writes nothing before the whole
 * ciphertext authenticated. */

static int run_mgm(const struct job *j, cli_in *in, cli_out *out) {
  int id = j->am->family == FAM_KUZ ? GOSTX_ALG_KUZNYECHIK : GOSTX_ALG_MAGMA;
  uint8_t *data; /* in place: the input, then the output (|| the tag) */
  size_t len;
  int status = cli_in_read_all_room(in, j->tag_len, &data, &len);
  if (status) return status;
  gostx_cipher c;
  int rc = gostx_cipher_init(&c, id, j->key);
  /* Without threads (pool_new failed) the _mt calls run on this one. */
  gostx_pool *pool = j->threads == 1 || rc ? NULL : gostx_pool_new((unsigned)j->threads);
  size_t res_len = 0;
  const gostx_mgm_params mp = {j->iv, j->aad, j->aad_len, j->tag_len};
  if (rc) {
    status = alg_failed(j, rc);
  } else if (!j->decrypt) {
    rc = gostx_mgm_encrypt_mt(pool, &c, &mp, data, len, data, data + len);
    res_len = len + j->tag_len;
  } else if (len < j->tag_len) {
    rc = GOSTX_EAUTH; /* too short to even hold a tag */
  } else {
    /* Authenticates the whole ciphertext before it decrypts any of it. */
    size_t clen = len - j->tag_len;
    rc = gostx_mgm_decrypt_mt(pool, &c, &mp, data, clen, data + clen, data);
    res_len = clen;
  }
  gostx_cipher_clear(&c);
  gostx_pool_free(pool);
  if (!status && rc) {
    if (rc == GOSTX_EAUTH) cli_err("%s: authentication failed", j->am->name);
    else cli_err("%s: %s", j->am->name, gostx_strerror(rc));
    status = CLI_EXIT_FAIL;
  }
  /* Nothing is written before the tag verified. */
  if (!status) {
    cli_out_bulk(out); /* one big write: past the page cache (cli/common/out.c) */
    status = cli_out_write(out, data, res_len);
  }
  gostx_memzero(data, len > res_len ? len : res_len);
  free(data);
  return status;
}

/* ---- XTS ---- */

static int xts_unit(const struct job *j, const gostx_xts_key *x, uint64_t sector,
                    const uint8_t *tweak, uint8_t *buf, size_t len) {
  int rc;
  if (tweak) rc = j->decrypt ? gostx_xts_decrypt(x, tweak, buf, len, buf)
                             : gostx_xts_encrypt(x, tweak, buf, len, buf);
  else rc = j->decrypt ? gostx_xts_decrypt_sector(x, sector, buf, len, buf)
                       : gostx_xts_encrypt_sector(x, sector, buf, len, buf);
  if (rc == GOSTX_ELEN)
    return cli_usage("%s: a data unit must be at least 16 bytes, got %zu", j->am->name, len);
  if (rc) {
    return alg_failed(j, rc);
  }
  return 0;
}

static int run_xts(const struct job *j, cli_in *in, cli_out *out) {
  gostx_xts_key x;
  int rc = gostx_xts_set_key(&x, j->key);
  if (rc) {
    gostx_xts_clear(&x);
    if (rc == GOSTX_EINVAL) return cli_usage("%s: the two key halves must differ", j->am->name);
    return alg_failed(j, rc);
  }
  int status = 0;
  if (!j->sector_size) {
    /* One data unit: ciphertext stealing needs the end, so read it all. */
    uint8_t *data;
    size_t len;
    status = cli_in_read_all(in, &data, &len);
    if (!status) {
      status = xts_unit(j, &x, j->sector, j->have_iv ? j->iv : NULL, data, len);
      if (!status) status = cli_out_write(out, data, len);
      gostx_memzero(data, len);
      free(data);
    }
  } else {
    uint8_t *buf = malloc(j->sector_size);
    uint64_t sector = j->sector;
    if (!buf) {
      cli_err("out of memory");
      status = CLI_EXIT_FAIL;
    }
    while (!status) {
      size_t got;
      status = cli_in_read(in, buf, j->sector_size, &got);
      if (status || got == 0) break;
      status = xts_unit(j, &x, sector++, NULL, buf, got);
      if (!status) status = cli_out_write(out, buf, got);
      if (got < j->sector_size) break;
    }
    if (buf) gostx_memzero(buf, j->sector_size);
    free(buf);
  }
  gostx_xts_clear(&x);
  return status;
}

/* ---- command line ---- */

/* The key: one of -k, --key-file, --key-fd, of the mode's length. */
static int take_key(struct job *j, const struct cipher_args *a) {
  const char *name = j->am->name;
  int rc = cli_key_source(name, a->key_hex, a->key_file, a->key_fd, 1);
  if (rc) return rc;
  j->key_len = j->am->kind == K_XTS ? GOSTX_XTS_KEY_LEN : GOSTX_KEY_LEN;
  if (a->key_hex) {
    char what[64];
    snprintf(what, sizeof what, "%s: key", name);
    return cli_hex_exact(what, a->key_hex, j->key, j->key_len);
  }
  uint8_t *k;
  size_t klen;
  if ((rc = cli_read_secret(a->key_file, "--key-fd", a->key_fd, j->key_len, j->key_len, &k, &klen)))
    return rc;
  memcpy(j->key, k, klen);
  cli_free_secret(k, klen);
  return 0;
}

/* Options that only some modes take: refused for the others. */
static int mode_applies(const struct job *j, const struct cipher_args *a) {
  const char *name = j->am->name;
  int kind = j->am->kind, fam = j->am->family;
  if (a->pad && kind != K_ECB && kind != K_CBC)
    return cli_usage("%s: --pad applies only to ECB and CBC", name);
  if (a->segment && kind != K_CFB && kind != K_OFB && kind != K_CTR)
    return cli_usage("%s: --segment applies only to CFB, OFB and CTR", name);
  if (a->segment && fam == FAM_GOST89)
    return cli_usage("%s: --segment is not supported for GOST 28147-89", name);
  if (a->section && kind != K_CTR_ACPKM)
    return cli_usage("%s: --section applies only to CTR-ACPKM", name);
  if ((a->aad || a->aad_file || a->tag_len) && kind != K_MGM)
    return cli_usage("%s: --aad, --aad-file and --tag-len apply only to MGM", name);
  if (a->aad && a->aad_file) return cli_usage("%s: give --aad or --aad-file, not both", name);
  if (a->aad_file && !strcmp(a->aad_file, "-"))
    return cli_usage("%s: --aad-file needs a file (stdin is the data)", name);
  if ((a->sector || a->sector_size) && kind != K_XTS)
    return cli_usage("%s: --sector and --sector-size apply only to XTS", name);
  if ((a->sbox || a->mesh) && fam != FAM_GOST89)
    return cli_usage("%s: --sbox and --mesh apply only to gost89-*", name);
  if (a->mesh && kind == K_ECB)
    return cli_usage("%s: --mesh applies only to gost89-cnt and gost89-cfb", name);
  return 0;
}

/* --pad, --segment, --section and --sbox, or their defaults. */
static int mode_params(struct job *j, const struct cipher_args *a) {
  const char *name = j->am->name;
  int rc;
  if (a->pad) {
    if (!strcmp(a->pad, "none") || !strcmp(a->pad, "0")) j->padding = GOSTX_PAD_NONE;
    else if (!strcmp(a->pad, "1")) j->padding = GOSTX_PAD_1;
    else if (!strcmp(a->pad, "2")) j->padding = GOSTX_PAD_2;
    else if (!strcmp(a->pad, "3")) j->padding = GOSTX_PAD_3;
    else return cli_usage("%s: --pad must be none, 1, 2 or 3, got '%s'", name, a->pad);
  }
  j->segment = j->n;
  if (a->segment && (rc = cli_size("--segment", a->segment, 1, j->n, &j->segment))) return rc;
  if (j->am->kind == K_CTR_ACPKM) {
    j->section = j->am->family == FAM_KUZ ? ACPKM_SECTION_KUZ : ACPKM_SECTION_MAGMA;
    if (a->section && (rc = cli_size("--section", a->section, j->n, SIZE_MAX, &j->section)))
      return rc;
    if (j->section % j->n)
      return cli_usage("%s: --section must be a multiple of the block size %zu", name, j->n);
  }
  j->sbox = GOSTX_SBOX_CRYPTOPRO_A;
  if (a->sbox && (j->sbox = gostx_sbox_by_name(a->sbox)) < 0)
    return cli_usage("%s: unknown S-box '%s' (cryptopro-a..d, tc26-z, test-28147, test-3411-94, "
                     "cryptopro-3411-94, or an OID)", name,
                     a->sbox);
  return 0;
}

/* --iv as hex, at most GOSTX_MAX_IV_LEN bytes (its length is the mode's). */
static int take_iv(struct job *j, const char *hex) {
  if (!hex) return 0;
  uint8_t *iv;
  size_t len;
  char what[64];
  snprintf(what, sizeof what, "%s: IV", j->am->name);
  int rc = cli_hex(what, hex, &iv, &len);
  if (rc) return rc;
  if (len > GOSTX_MAX_IV_LEN) {
    free(iv);
    return cli_usage("%s: IV too long (%zu bytes, at most %d)", j->am->name, len, GOSTX_MAX_IV_LEN);
  }
  memcpy(j->iv, iv, len);
  j->iv_len = len;
  j->have_iv = 1;
  free(iv);
  return 0;
}

/* MGM: the nonce, --tag-len and --aad (--aad-file is read in cmd_cipher,
 * after the output check). */
static int mgm_params(struct job *j, const struct cipher_args *a) {
  const char *name = j->am->name;
  size_t n = j->n;
  int rc;
  if (!j->have_iv || j->iv_len != n)
    return cli_usage("%s: --iv (nonce) must be %zu bytes%s", name, n, j->have_iv ? "" : ", missing");
  if (j->iv[0] & 0x80) return cli_usage("%s: the nonce's most significant bit must be 0", name);
  j->tag_len = n;
  if (a->tag_len && (rc = cli_size("--tag-len", a->tag_len, 4, n, &j->tag_len))) return rc;
  if (a->aad) {
    char what[64];
    snprintf(what, sizeof what, "%s: AAD", name);
    if ((rc = cli_hex(what, a->aad, &j->aad, &j->aad_len))) return rc;
  }
  return 0;
}

/* XTS: the tweak, as --iv or as --sector (and --sector-size) numbers. */
static int xts_params(struct job *j, const struct cipher_args *a) {
  const char *name = j->am->name;
  int rc;
  if (j->have_iv && a->sector) return cli_usage("%s: give --iv or --sector, not both", name);
  if (j->have_iv && j->iv_len != 16) return cli_usage("%s: the tweak (--iv) must be 16 bytes", name);
  if (j->have_iv && a->sector_size)
    return cli_usage("%s: --sector-size numbers sectors: use --sector, not --iv", name);
  if (!j->have_iv && !a->sector)
    return cli_usage("%s: missing tweak: --iv HEX (16 bytes) or --sector N", name);
  if (a->sector && (rc = cli_uint("--sector", a->sector, 0, UINT64_MAX, &j->sector))) return rc;
  if (a->sector_size &&
      (rc = cli_size("--sector-size", a->sector_size, 16, 1u << 30, &j->sector_size)))
    return rc;
  return 0;
}

/* The IV each mode needs, and the parameters of MGM and XTS. */
static int iv_params(struct job *j, const struct cipher_args *a) {
  const char *name = j->am->name;
  size_t n = j->n, l = j->iv_len;
  int gost89 = j->am->family == FAM_GOST89;
  switch (j->am->kind) {
    case K_ECB:
      if (j->have_iv) return cli_usage("%s: ECB takes no IV", name);
      return 0;
    case K_CBC:
    case K_OFB:
      if (!j->have_iv) return cli_usage("%s: missing --iv (a multiple of %zu bytes)", name, n);
      if (l == 0 || l % n)
        return cli_usage("%s: IV must be a positive multiple of %zu bytes, got %zu", name, n, l);
      return 0;
    case K_CFB:
      if (gost89 && (!j->have_iv || l != 8)) return cli_usage("%s: --iv must be 8 bytes", name);
      if (gost89) return 0;
      if (!j->have_iv) return cli_usage("%s: missing --iv (at least %zu bytes)", name, n);
      if (l < n) return cli_usage("%s: IV must be at least %zu bytes, got %zu", name, n, l);
      return 0;
    case K_CTR:
    case K_CTR_ACPKM:
      if (!j->have_iv || l != n / 2)
        return cli_usage("%s: --iv must be %zu bytes (n/2)%s", name, n / 2,
                         j->have_iv ? "" : ", missing");
      return 0;
    case K_G89_CNT:
      if (!j->have_iv || l != 8) return cli_usage("%s: --iv must be 8 bytes", name);
      return 0;
    case K_MGM: return mgm_params(j, a);
    case K_XTS: return xts_params(j, a);
  }
  return 0;
}

static int parse_args(struct job *j, int argc, char **argv, int *help) {
  cli_parser p;
  cli_parser_init(&p, "cipher", argc, argv);
  struct cipher_args a = {0};
  int id, rc;
  while ((id = cli_next_into(&p, cipher_opts, &a)) != CLI_END) {
    if (id == OPT_HELP) return *help = 1, 0;
    if (id == OPT_THREADS) {
      if ((rc = cli_uint("-j", p.arg, 0, 1024, &j->threads))) return rc;
    } else if (id != CLI_POS) {
      return CLI_EXIT_USAGE;
    } else if (a.alg) {
      return cli_usage("cipher: unexpected argument '%s'", p.pos);
    } else {
      a.alg = p.pos;
    }
  }
  if (!a.alg) return cli_usage("cipher: missing ALG-MODE (try gostx cipher --help)");
  for (const struct alg_mode *m = alg_modes; m->name; m++)
    if (!strcmp(m->name, a.alg)) j->am = m;
  if (!j->am) return cli_usage("cipher: unknown ALG-MODE '%s' (try gostx cipher --help)", a.alg);
  j->n = j->am->family == FAM_KUZ ? GOSTX_KUZ_BLOCK_LEN : GOSTX_MAGMA_BLOCK_LEN;
  j->key_path = a.key_file;
  j->aad_path = a.aad_file;
  j->in_path = a.in;
  j->out_path = a.out;
  j->decrypt = a.decrypt;
  j->mesh = a.mesh;
  if ((rc = take_key(j, &a)) || (rc = mode_applies(j, &a)) || (rc = mode_params(j, &a)) ||
      (rc = take_iv(j, a.iv)))
    return rc;
  return iv_params(j, &a);
}

int cmd_cipher(int argc, char **argv) {
  struct job j;
  memset(&j, 0, sizeof j);
  int help = 0;
  int status = parse_args(&j, argc, argv, &help);
  if (help) {
    cipher_usage();
    status = CLI_EXIT_OK;
    goto done;
  }
  if (status) goto done;
  const cli_input ins[] = {{j.in_path ? j.in_path : "-", "input"},
                           {j.aad_path, "AAD file"},
                           {j.key_path, "key file"}};
  if ((status = cli_refuse_same_file("cipher", j.out_path, ins, sizeof ins / sizeof ins[0])))
    goto done;
  if (j.aad_path) {
    cli_in a;
    if ((status = cli_in_open(&a, j.aad_path))) goto done;
    status = cli_in_read_all(&a, &j.aad, &j.aad_len);
    cli_in_close(&a);
    if (status) goto done;
  }

  cli_in in;
  if ((status = cli_in_open(&in, j.in_path))) goto done;
  /* A block-only mode on a regular file: reject a bad length before any
   * output is written (for pipes it is found at the end of the input). */
  struct stat st;
  int block_only = j.am->kind == K_ECB || j.am->kind == K_CBC;
  if (block_only && (j.padding == GOSTX_PAD_NONE || j.decrypt) &&
      fstat(fileno(in.f), &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size % j.n) {
    status = not_a_multiple(&j, (unsigned long long)st.st_size);
    cli_in_close(&in);
    goto done;
  }
  /* The output before any work; it appears only on success (cli/common/out.c). */
  cli_out out;
  status = cli_out_open(&out, j.out_path, 0);
  if (!status) {
    if (j.am->kind == K_MGM) status = run_mgm(&j, &in, &out);
    else if (j.am->kind == K_XTS) status = run_xts(&j, &in, &out);
    else if (j.am->kind == K_CTR && j.segment == j.n && j.threads != 1)
      status = run_ctr_parallel(&j, &in, &out);
    else if (j.am->family != FAM_GOST89) status = run_mode(&j, &in, &out);
    else if (j.am->kind == K_ECB) status = run_gost89_ecb(&j, &in, &out);
    else status = run_gost89_stream(&j, &in, &out);
    if (!status) status = cli_out_commit(&out);
    else cli_out_abort(&out);
  }
  cli_in_close(&in);
done:
  gostx_memzero(j.key, sizeof j.key);
  gostx_memzero(j.iv, sizeof j.iv);
  free(j.aad);
  return status;
}
