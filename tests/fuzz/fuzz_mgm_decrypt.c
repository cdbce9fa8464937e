/* libFuzzer harness: MGM decryption (and KImp15) of fuzzer-chosen input
 * under a fixed key. Must never crash or read/write out of bounds, must
 * reject a forgery (GOSTX_EAUTH) and then write nothing, and the streaming
 * decryption must give the same verdict as the one-shot call. Should a tag
 * ever verify, the plaintext must re-encrypt to exactly the input (so an
 * acceptance is genuine, e.g. the valid seed in the corpus).
 *
 * Input: byte 0 selects Kuznyechik/Magma (bit 0), KImp15 (bit 1), a split
 * point source; byte 1 the tag length; byte 2 the AAD length; then the
 * nonce (n bytes), then AAD || ciphertext || tag. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#define FUZZ_NAME "fuzz_mgm_decrypt"
#include "fuzz_check.h"

static const uint8_t fixed_key[32] = {
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};

static const uint8_t mac_key[32] = {
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

static void check_kimp15(int id, const uint8_t *in, size_t len) {
  const size_t n = id == GOSTX_ALG_KUZNYECHIK ? 16 : 8;
  if (len < n / 2) return;
  uint8_t *key = malloc(len + 1), *again = malloc(len + n + 1);
  size_t klen = 12345, alen = 0;
  if (!key || !again) abort();
  memset(key, 0xa5, len + 1);
  gostx_cipher enc, mac;
  if (gostx_cipher_init(&enc, (gostx_alg)id, fixed_key) || gostx_cipher_init(&mac, (gostx_alg)id, mac_key))
    abort();
  int rc = gostx_kimp15(&enc, &mac, in, n / 2, in + n / 2, len - n / 2, key, &klen);
  if (rc == GOSTX_OK) {
    if (gostx_kexp15(&enc, &mac, in, n / 2, key, klen, again, &alen) ||
        alen != len - n / 2 || memcmp(again, in + n / 2, alen))
      bug("kimp15 accepted something kexp15 does not produce");
  } else {
    if (klen != 12345) bug("kimp15 wrote key_len on failure");
    for (size_t i = 0; i <= len; i++)
      if (key[i] != 0xa5) bug("kimp15 wrote the key on failure");
  }
  free(key);
  free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  const int id = (data[0] & 1) ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK;
  const size_t n = id == GOSTX_ALG_KUZNYECHIK ? 16 : 8;
  if (data[0] & 2) {
    check_kimp15(id, data + 3, size - 3);
    return 0;
  }
  if (size < 3 + n) return 0;
  const size_t tl = 4 + data[1] % (n - 3);
  const uint8_t *nonce = data + 3, *rest = data + 3 + n;
  const size_t rlen = size - 3 - n;
  if (rlen < tl) return 0;
  const size_t body = rlen - tl;
  const size_t alen = data[2] <= body ? data[2] : body;
  const uint8_t *aad = rest, *ct = rest + alen, *tag = rest + body;
  const size_t clen = body - alen;

  gostx_cipher c;
  if (gostx_cipher_init(&c, id, fixed_key)) bug("cipher_init");
  uint8_t *out = malloc(clen + 1), *out2 = malloc(clen + 1), *again = malloc(clen + 1);
  uint8_t t2[16];
  if (!out || !out2 || !again) abort();
  memset(out, 0x5a, clen + 1);
  int rc = gostx_mgm_decrypt(&c, nonce, aad, alen, ct, clen, tag, tl, out);
  if (rc == GOSTX_OK) {
    if (gostx_mgm_encrypt(&c, nonce, aad, alen, out, clen, again, t2, tl) ||
        memcmp(again, ct, clen) || memcmp(t2, tag, tl))
      bug("accepted a ciphertext that encryption does not produce");
  } else {
    if (rc != GOSTX_EAUTH && rc != GOSTX_EINVAL && rc != GOSTX_ELEN) bug("unexpected error code");
    for (size_t i = 0; i <= clen; i++)
      if (out[i] != 0x5a) bug("wrote output on failure");
  }
  /* Streaming, split at a fuzzer-chosen point: same verdict. */
  gostx_mgm_ctx m;
  int rc2 = gostx_mgm_init(&m, &c, 1, nonce, n);
  const size_t cut = clen ? (data[1] * 7u) % (clen + 1) : 0;
  if (!rc2 && alen) rc2 = gostx_mgm_aad(&m, aad, alen);
  if (!rc2 && cut) rc2 = gostx_mgm_update(&m, ct, cut, out2);
  if (!rc2 && clen > cut) rc2 = gostx_mgm_update(&m, ct + cut, clen - cut, out2 + cut);
  if (!rc2) rc2 = gostx_mgm_final_decrypt(&m, tag, tl);
  gostx_mgm_clear(&m);
  if ((rc == GOSTX_OK) != (rc2 == GOSTX_OK)) bug("streaming and one-shot verdicts differ");
  if (rc == GOSTX_EAUTH && rc2 != GOSTX_EAUTH) bug("streaming does not report EAUTH");
  if (rc == GOSTX_OK && memcmp(out, out2, clen)) bug("streaming plaintext differs");
  gostx_cipher_clear(&c);
  free(out);
  free(out2);
  free(again);
  return 0;
}
