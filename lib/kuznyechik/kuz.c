/* Kuznyechik public API: key setup, block calls through the dispatcher, clear. */
#include "impl.h"
#include "dispatch.h"

int gostx_kuz_set_key(gostx_kuz_key *k, const uint8_t key[GOSTX_KEY_LEN]) {
  if (!k || !key) return GOSTX_EINVAL;
  void (*expand)(gostx_kuz_key *, const uint8_t[32]) = gostx__dispatch()->kuz_expand;
  if (expand) {
    expand(k, key);
    return GOSTX_OK;
  }
  gostx__kuz_expand(k->ek, key);
  /* dk[i] = L^-1(K_{i+1}): the round keys of the equivalent decryption order
   * (S^-1 L^-1 X[K] = S^-1 X[L^-1 K] L^-1) that table-driven fast paths use.
   * The portable core decrypts with ek and ignores dk. */
  for (unsigned i = 0; i < 10; i++) gostx__kuz_L_inv(k->dk[i], k->ek[i]);
  return GOSTX_OK;
}

void gostx_kuz_encrypt_blocks(const gostx_kuz_key *k, const uint8_t *in, size_t nblocks,
                              uint8_t *out) {
  if (!k || !in || !out || nblocks == 0) return;
  gostx__dispatch()->kuz->encrypt_blocks(k, in, out, nblocks);
}

void gostx_kuz_decrypt_blocks(const gostx_kuz_key *k, const uint8_t *in, size_t nblocks,
                              uint8_t *out) {
  if (!k || !in || !out || nblocks == 0) return;
  gostx__dispatch()->kuz->decrypt_blocks(k, in, out, nblocks);
}

/* ---- multi-key calls (internal.h) ---- */

void gostx__kuz_mk_init(gostx_kuz_mk *m, const struct gostx_kuz_impl *impl,
                        const gostx_kuz_key *const *keys, size_t n, unsigned dirs) {
  if (!impl) impl = gostx__dispatch()->kuz;
  m->impl = impl;
  m->n = n;
  m->used = 0;
  m->native = impl->mk_init && n <= impl->mk_max && impl->mk_size <= sizeof m->sched;
  for (size_t i = 0; i < n; i++) m->keys[i] = keys[i];
  if (m->native) m->used = impl->mk_init(m->sched, keys, n, dirs);
}

/* Without an mk path: one block call per run of equal key pointers (which
 * keys repeat is public; the bytes are the same as the mk path's). */
static void mk_fallback(const gostx_kuz_mk *m, const uint8_t *in, uint8_t *out,
                        gostx_kuz_blocks_fn fn) {
  for (size_t i = 0, j; i < m->n; i = j) {
    for (j = i + 1; j < m->n && m->keys[j] == m->keys[i];) j++;
    fn(m->keys[i], in + 16 * i, out + 16 * i, j - i);
  }
}

void gostx__kuz_mk_encrypt(const gostx_kuz_mk *m, const uint8_t *in, uint8_t *out) {
  if (m->native) m->impl->mk_encrypt(m->sched, in, out);
  else mk_fallback(m, in, out, m->impl->encrypt_blocks);
}

void gostx__kuz_mk_decrypt(const gostx_kuz_mk *m, const uint8_t *in, uint8_t *out) {
  if (m->native) m->impl->mk_decrypt(m->sched, in, out);
  else mk_fallback(m, in, out, m->impl->decrypt_blocks);
}

void gostx__kuz_mk_clear(gostx_kuz_mk *m) {
  if (m->native) gostx_memzero(m->sched, m->used);
  gostx_memzero(m->keys, m->n * sizeof m->keys[0]);
  m->n = 0;
}

void gostx_kuz_clear(gostx_kuz_key *k) {
  if (k) gostx_memzero(k, sizeof *k);
}

