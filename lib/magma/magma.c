/* Magma (GOST R 34.12-2015, RFC 8891) and GOST 28147-89 (RFC 5830): key
 * schedule, S-box set names, and the public block functions, which hand the
 * work to the implementation the dispatcher chose. */
#include <strings.h>

#include "magma/impl.h"
#include "dispatch.h"

static void expand(gostx_magma_key *k, const uint8_t key[GOSTX_KEY_LEN], int le, int sbox) {
  /* K1 is the first 4 key bytes, read in the convention's word order. */
  for (unsigned i = 0; i < 8; i++)
    k->rk[i] = le ? gostx_load32_le(key + 4 * i) : gostx_load32_be(key + 4 * i);
  k->sbox_id = (uint32_t)sbox;
  k->le = (uint32_t)le;
}

int gostx_magma_set_key(gostx_magma_key *k, const uint8_t key[GOSTX_KEY_LEN]) {
  if (!k) return GOSTX_EINVAL;
  if (!key) { gostx_memzero(k, sizeof *k); return GOSTX_EINVAL; }
  expand(k, key, 0, GOSTX_SBOX_TC26_Z);
  return GOSTX_OK;
}

int gostx_gost89_set_key(gostx_gost89_key *k, const uint8_t key[GOSTX_KEY_LEN], gostx_sbox set) {
  const int sbox = (int)set; /* an out-of-range value from a caller stays negative or large */
  if (!k) return GOSTX_EINVAL;
  if (!key || sbox < 0 || sbox >= GOSTX_SBOX_COUNT) {
    gostx_memzero(k, sizeof *k);
    return GOSTX_EINVAL;
  }
  expand(k, key, 1, sbox);
  return GOSTX_OK;
}

void gostx_magma_encrypt_blocks(const gostx_magma_key *k, const uint8_t *in, size_t nblocks,
                                uint8_t *out) {
  if (nblocks) gostx__dispatch()->magma->encrypt_blocks(k, in, out, nblocks);
}

void gostx_magma_decrypt_blocks(const gostx_magma_key *k, const uint8_t *in, size_t nblocks,
                                uint8_t *out) {
  if (nblocks) gostx__dispatch()->magma->decrypt_blocks(k, in, out, nblocks);
}

/* The same core; the key carries the S-box and byte convention. */
void gostx_gost89_encrypt_blocks(const gostx_gost89_key *k, const uint8_t *in, size_t nblocks,
                                 uint8_t *out) {
  gostx_magma_encrypt_blocks(k, in, nblocks, out);
}

void gostx_gost89_decrypt_blocks(const gostx_gost89_key *k, const uint8_t *in, size_t nblocks,
                                 uint8_t *out) {
  gostx_magma_decrypt_blocks(k, in, nblocks, out);
}

/* The chained modes one block call at a time (impl.h: chain), for the
 * implementations without a chain of their own. */
void gostx__magma_chain(const gostx_magma_key *k, int op, uint8_t s[8], const uint8_t *in,
                        uint8_t *out, size_t n) {
  const struct gostx_magma_impl *im = gostx__dispatch()->magma;
  uint8_t p[8];
  for (size_t i = 0; i < n; i++) {
    memcpy(p, in + 8 * i, 8); /* in may equal out */
    if (op == GOSTX__MAGMA_CHAIN_CBC || op == GOSTX__MAGMA_CHAIN_MAC) gostx_xor(s, s, p, 8);
    im->encrypt_blocks(k, s, s, 1);
    if (op == GOSTX__MAGMA_CHAIN_CFB) gostx_xor(s, s, p, 8);
    if (op == GOSTX__MAGMA_CHAIN_OFB) gostx_xor(out + 8 * i, s, p, 8);
    else if (op != GOSTX__MAGMA_CHAIN_MAC) memcpy(out + 8 * i, s, 8);
  }
  gostx_memzero(p, sizeof p);
}

/* ---- multi-key calls (internal.h) ---- */

void gostx__magma_mk_init(gostx_magma_mk *m, const struct gostx_magma_impl *impl,
                          const gostx_magma_key *const *keys, size_t n) {
  m->impl = impl ? impl : gostx__dispatch()->magma;
  m->n = n;
  memcpy(m->keys, keys, n * sizeof keys[0]);
  if (m->impl->mk_init) m->impl->mk_init(m->sched, keys, n);
}

void gostx__magma_mk_crypt(const gostx_magma_mk *m, int op, const uint8_t *in, uint8_t *out,
                           size_t count) {
  const struct gostx_magma_impl *im = m->impl;
  if (count == 0) return;
  if (im->mk_blocks) {
    im->mk_blocks(m->sched, m->keys[0], in, out, count, op);
    return;
  }
  /* Without an mk path: one block at a time (constant time still). */
  for (size_t i = 0; i < count; i++) {
    const gostx_magma_key *k = m->keys[i];
    if (op == GOSTX__MAGMA_IMIT) {
      uint32_t a1, a0;
      gostx__magma_load(k, in + 8 * i, &a1, &a0);
      gostx__magma_imit16_words(k, &a1, &a0);
      gostx__magma_store(k, out + 8 * i, a1, a0);
    } else {
      (op ? im->decrypt_blocks : im->encrypt_blocks)(k, in + 8 * i, out + 8 * i, 1);
    }
  }
}

void gostx__magma_mk_clear(gostx_magma_mk *m) {
  if (m->impl && m->impl->mk_init) gostx_memzero(m->sched, sizeof m->sched);
}

void gostx_magma_clear(gostx_magma_key *k) {
  if (k) gostx_memzero(k, sizeof *k);
}

/* ---- S-box set names ---- */

static const char *const canonical[GOSTX_SBOX_COUNT] = {
  [GOSTX_SBOX_TC26_Z] = "tc26-z",
  [GOSTX_SBOX_CRYPTOPRO_A] = "cryptopro-a",
  [GOSTX_SBOX_CRYPTOPRO_B] = "cryptopro-b",
  [GOSTX_SBOX_CRYPTOPRO_C] = "cryptopro-c",
  [GOSTX_SBOX_CRYPTOPRO_D] = "cryptopro-d",
  [GOSTX_SBOX_TEST_3411_94] = "test-3411-94",
  [GOSTX_SBOX_TEST_28147] = "test-28147",
  [GOSTX_SBOX_CRYPTOPRO_3411_94] = "cryptopro-3411-94",
};

/* Short names, the ASN.1 names and dotted OIDs (RFC 4357, RFC 7836): the
 * forms gost-engine's CRYPT_PARAMS takes. */

static const struct { const char *name; int id; } aliases[] = {
  {"z", GOSTX_SBOX_TC26_Z},
  {"tc26-z", GOSTX_SBOX_TC26_Z},
  {"param-z", GOSTX_SBOX_TC26_Z},
  {"id-tc26-gost-28147-param-Z", GOSTX_SBOX_TC26_Z},
  {"a", GOSTX_SBOX_CRYPTOPRO_A},
  {"cryptopro-a", GOSTX_SBOX_CRYPTOPRO_A},
  {"id-Gost28147-89-CryptoPro-A-ParamSet", GOSTX_SBOX_CRYPTOPRO_A},
  {"b", GOSTX_SBOX_CRYPTOPRO_B},
  {"cryptopro-b", GOSTX_SBOX_CRYPTOPRO_B},
  {"id-Gost28147-89-CryptoPro-B-ParamSet", GOSTX_SBOX_CRYPTOPRO_B},
  {"c", GOSTX_SBOX_CRYPTOPRO_C},
  {"cryptopro-c", GOSTX_SBOX_CRYPTOPRO_C},
  {"id-Gost28147-89-CryptoPro-C-ParamSet", GOSTX_SBOX_CRYPTOPRO_C},
  {"d", GOSTX_SBOX_CRYPTOPRO_D},
  {"cryptopro-d", GOSTX_SBOX_CRYPTOPRO_D},
  {"id-Gost28147-89-CryptoPro-D-ParamSet", GOSTX_SBOX_CRYPTOPRO_D},
  {"test", GOSTX_SBOX_TEST_3411_94},
  {"test-3411-94", GOSTX_SBOX_TEST_3411_94},
  {"id-GostR3411-94-TestParamSet", GOSTX_SBOX_TEST_3411_94},
  {"test-28147", GOSTX_SBOX_TEST_28147},
  {"id-Gost28147-89-TestParamSet", GOSTX_SBOX_TEST_28147},
  {"cryptopro-3411-94", GOSTX_SBOX_CRYPTOPRO_3411_94},
  {"id-GostR3411-94-CryptoProParamSet", GOSTX_SBOX_CRYPTOPRO_3411_94},
  {"1.2.643.7.1.2.5.1.1", GOSTX_SBOX_TC26_Z},
  {"1.2.643.2.2.31.1", GOSTX_SBOX_CRYPTOPRO_A},
  {"1.2.643.2.2.31.2", GOSTX_SBOX_CRYPTOPRO_B},
  {"1.2.643.2.2.31.3", GOSTX_SBOX_CRYPTOPRO_C},
  {"1.2.643.2.2.31.4", GOSTX_SBOX_CRYPTOPRO_D},
  {"1.2.643.2.2.31.0", GOSTX_SBOX_TEST_28147},
  {"1.2.643.2.2.30.0", GOSTX_SBOX_TEST_3411_94},
  {"1.2.643.2.2.30.1", GOSTX_SBOX_CRYPTOPRO_3411_94},
};

int gostx_sbox_by_name(const char *name) {
  if (!name) return -1;
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcasecmp(name, aliases[i].name) == 0) return aliases[i].id;
  return -1;
}

const char *gostx_sbox_name(gostx_sbox set) {
  const int sbox = (int)set;
  return sbox >= 0 && sbox < GOSTX_SBOX_COUNT ? canonical[sbox] : NULL;
}
