/* KExp15 / KImp15 (R 1323565.1.017-2018): the standard's examples, a
 * composition written here (CTR from single-block cipher calls, OMAC from
 * gostx_omac), round trips, tampering, argument checks. */
#include <stdlib.h>

#include "testutil.h"

/* KExp15 by hand: CTR with counter IV || 0^(n/2), big-endian increment of
 * the whole block, over K || OMAC(IV || K). */
static void ref_kexp15(int id, const uint8_t *kenc, const uint8_t *kmac, const uint8_t *iv,
                       const uint8_t *key, size_t key_len, uint8_t *out) {
  gostx_cipher enc, mac;
  uint8_t buf[128 + 16], ctr[16] = {0}, g[16];
  gostx_cipher_init(&enc, id, kenc);
  gostx_cipher_init(&mac, id, kmac);
  const size_t n = enc.block_len, total = key_len + n;
  memcpy(buf, iv, n / 2);
  memcpy(buf + n / 2, key, key_len);
  gostx_omac(&mac, buf, n / 2 + key_len, buf + key_len, n); /* MAC lands after K */
  memcpy(buf, key, key_len);
  memcpy(ctr, iv, n / 2);
  for (size_t off = 0; off < total; off += n) {
    gostx_cipher_encrypt_blocks(&enc, ctr, 1, g);
    for (size_t i = 0; i < n && off + i < total; i++) out[off + i] = buf[off + i] ^ g[i];
    for (size_t i = n; i-- > 0;)
      if (++ctr[i]) break;
  }
  gostx_cipher_clear(&enc);
  gostx_cipher_clear(&mac);
}

static void test_vectors(void) {
  json *file = tv_load("kexp15.json");
  json *cases = tv_cases(file);
  for (size_t k = 0; k < json_len(cases); k++) {
    json *tc = json_at(cases, k);
    const char *name = tv_str(tc, "name");
    size_t klen, elen, mlen, ivlen, wlen, out_len = 0, back_len = 0;
    uint8_t *key = tv_hex(tc, "key", &klen), *kenc = tv_hex(tc, "key_exp_enc", &elen);
    uint8_t *kmac = tv_hex(tc, "key_exp_mac", &mlen), *iv = tv_hex(tc, "iv", &ivlen);
    uint8_t *want = tv_hex(tc, "kexp15", &wlen);
    int id = gostx_alg_by_name(tv_str(tc, "cipher"));
    uint8_t out[64], back[64], ref[64];
    CHECK(elen == 32 && mlen == 32 && wlen == klen + 2 * ivlen, "%s: vector shape", name);

    CHECK_RC(gostx_kexp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, ivlen, key, klen, out, &out_len), 0, name);
    CHECK(out_len == wlen, "%s: out_len %zu", name, out_len);
    CHECK_BYTES(out, want, wlen, name);

    ref_kexp15(id, kenc, kmac, iv, key, klen, ref);
    CHECK_BYTES(ref, want, wlen, "hand-made KExp15 agrees with the standard");

    memset(back, 0, sizeof back);
    CHECK_RC(gostx_kimp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, ivlen, want, wlen, back, &back_len), 0, name);
    CHECK(back_len == klen, "%s: key_len %zu", name, back_len);
    CHECK_BYTES(back, key, klen, name);

    /* In place export (out == key). */
    memcpy(back, key, klen);
    CHECK_RC(gostx_kexp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, ivlen, back, klen, back, &out_len), 0, "in place");
    CHECK_BYTES(back, want, wlen, "in place export");

    free(key); free(kenc); free(kmac); free(iv); free(want);
  }
  json_free(file);
}

static int all_equal(const uint8_t *p, size_t len, uint8_t v) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != v) return 0;
  return 1;
}

static void test_random(int id) {
  const size_t n = id == GOSTX_ALG_KUZNYECHIK ? 16 : 8;
  for (int t = 0; t < 40; t++) {
    uint8_t kenc[32], kmac[32], iv[8], key[64], out[80], ref[80], back[64];
    size_t key_len = t < 4 ? (size_t)(t == 0 ? 1 : t == 1 ? 32 : t == 2 ? 64 : n) : 1 + t_rand_below(64);
    size_t out_len = 0, back_len = 0;
    t_rand_bytes(kenc, 32);
    t_rand_bytes(kmac, 32);
    t_rand_bytes(iv, n / 2);
    t_rand_bytes(key, key_len);
    CHECK_RC(gostx_kexp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, n / 2, key, key_len, out, &out_len), 0, "kexp15");
    CHECK(out_len == key_len + n, "out_len");
    ref_kexp15(id, kenc, kmac, iv, key, key_len, ref);
    CHECK_BYTES(out, ref, out_len, "kexp15 vs composition");
    CHECK_RC(gostx_kimp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, n / 2, out, out_len, back, &back_len), 0, "kimp15");
    CHECK(back_len == key_len, "key_len");
    CHECK_BYTES(back, key, key_len, "round trip");

    if (t < 3) { /* every byte and every flipped bit position class */
      for (size_t i = 0; i < out_len; i++) {
        uint8_t flip = (uint8_t)(1u << t_rand_below(8));
        out[i] ^= flip;
        memset(back, 0x5a, sizeof back);
        back_len = 12345;
        CHECK_RC(gostx_kimp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, n / 2, out, out_len, back, &back_len), GOSTX_EAUTH,
                 "tampered");
        CHECK(all_equal(back, sizeof back, 0x5a) && back_len == 12345, "nothing written on EAUTH");
        out[i] ^= flip;
      }
      /* Wrong IV, wrong keys, truncated input. */
      iv[0] ^= 1;
      CHECK_RC(gostx_kimp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, n / 2, out, out_len, back, &back_len), GOSTX_EAUTH, "wrong iv");
      iv[0] ^= 1;
      kmac[5] ^= 1;
      CHECK_RC(gostx_kimp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, n / 2, out, out_len, back, &back_len), GOSTX_EAUTH, "wrong mac key");
      kmac[5] ^= 1;
      kenc[7] ^= 1;
      CHECK_RC(gostx_kimp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, n / 2, out, out_len, back, &back_len), GOSTX_EAUTH, "wrong enc key");
      kenc[7] ^= 1;
      if (out_len > n + 1)
        CHECK_RC(gostx_kimp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, n / 2, out, out_len - 1, back, &back_len), GOSTX_EAUTH,
                 "truncated");
      CHECK_RC(gostx_kimp15(t_cipher(id, kenc), t_cipher(id, kmac), iv, n / 2, out, out_len, back, &back_len), 0, "restored");
    }
  }
}

static void test_errors(void) {
  uint8_t k[32] = {1}, k2[32] = {2}, iv[8] = {0}, key[32] = {3}, out[64];
  size_t ol;
  CHECK_RC(gostx_kexp15(t_cipher(GOSTX_ALG_KUZNYECHIK, k), t_cipher(GOSTX_ALG_KUZNYECHIK, k2), iv, 4, key, 32, out, &ol), GOSTX_ELEN, "kuz iv 4");
  CHECK_RC(gostx_kexp15(t_cipher(GOSTX_ALG_MAGMA, k), t_cipher(GOSTX_ALG_MAGMA, k2), iv, 8, key, 32, out, &ol), GOSTX_ELEN, "magma iv 8");
  CHECK_RC(gostx_kexp15(t_cipher(99, k), t_cipher(99, k2), iv, 8, key, 32, out, &ol), GOSTX_EINVAL, "bad cipher");
  CHECK_RC(gostx_kexp15(t_cipher(GOSTX_ALG_KUZNYECHIK, k), t_cipher(GOSTX_ALG_KUZNYECHIK, k2), iv, 8, key, 0, out, &ol), GOSTX_ELEN, "empty key");
  CHECK_RC(gostx_kexp15(t_cipher(GOSTX_ALG_KUZNYECHIK, NULL), t_cipher(GOSTX_ALG_KUZNYECHIK, k2), iv, 8, key, 32, out, &ol), GOSTX_EINVAL, "NULL kenc");
  CHECK_RC(gostx_kexp15(t_cipher(GOSTX_ALG_KUZNYECHIK, k), t_cipher(GOSTX_ALG_KUZNYECHIK, k2), iv, 8, key, 32, NULL, &ol), GOSTX_EINVAL, "NULL out");
  CHECK_RC(gostx_kexp15(t_cipher(GOSTX_ALG_KUZNYECHIK, k), t_cipher(GOSTX_ALG_KUZNYECHIK, k2), iv, 8, key, 32, out, NULL), GOSTX_EINVAL, "NULL out_len");
  CHECK_RC(gostx_kimp15(t_cipher(GOSTX_ALG_KUZNYECHIK, k), t_cipher(GOSTX_ALG_KUZNYECHIK, k2), iv, 8, out, 16, key, &ol), GOSTX_ELEN, "kimp in_len n");
  CHECK_RC(gostx_kimp15(t_cipher(GOSTX_ALG_MAGMA, k), t_cipher(GOSTX_ALG_MAGMA, k2), iv, 4, out, 8, key, &ol), GOSTX_ELEN, "kimp magma in_len n");
  CHECK_RC(gostx_kimp15(t_cipher(GOSTX_ALG_MAGMA, k), t_cipher(GOSTX_ALG_MAGMA, k2), iv, 8, out, 40, key, &ol), GOSTX_ELEN, "kimp iv len");
  CHECK_RC(gostx_kimp15(t_cipher(GOSTX_ALG_MAGMA, k), t_cipher(GOSTX_ALG_MAGMA, k2), iv, 4, NULL, 40, key, &ol), GOSTX_EINVAL, "kimp NULL in");
  CHECK_RC(gostx_kimp15(t_cipher(0, k), t_cipher(0, k2), iv, 4, out, 40, key, &ol), GOSTX_EINVAL, "kimp bad cipher");
}

int main(void) {
  t_rand_init();
  test_vectors();
  test_random(GOSTX_ALG_KUZNYECHIK);
  test_random(GOSTX_ALG_MAGMA);
  test_errors();
  return t_done();
}
