/* KExp15 / KImp15 key export and import (R 1323565.1.017-2018; RFC 9189
 * section 8.2.1):
 *
 *   KExp15(K) = CTR_{K_enc, IV}(K || OMAC_{K_mac}(IV || K)),   |IV| = n/2
 *
 * with the same block cipher for CTR and OMAC and a full n-bit MAC. Built on
 * the GOST R 34.13-2015 modes (gostx_ctr_crypt, gostx_omac_*). */
#include <stdlib.h>

#include "internal.h"

/* Sets up both ciphers and checks the IV length. */
static int kexp_setup(int cipher_id, const uint8_t *key_enc, const uint8_t *key_mac,
                      const uint8_t *iv, size_t iv_len, gostx_cipher *enc, gostx_cipher *mac) {
  int rc;
  if (!key_enc || !key_mac || !iv) return GOSTX_EINVAL;
  if (cipher_id != GOSTX_CIPHER_KUZNYECHIK && cipher_id != GOSTX_CIPHER_MAGMA)
    return GOSTX_EINVAL;
  rc = gostx_cipher_init(enc, cipher_id, key_enc);
  if (!rc) rc = gostx_cipher_init(mac, cipher_id, key_mac);
  if (!rc && iv_len != enc->block_len / 2) rc = GOSTX_ELEN;
  return rc;
}

/* mac = OMAC_{mac_cipher}(iv || key), n bytes. */
static int kexp_mac(const gostx_cipher *mac_cipher, const uint8_t *iv, size_t iv_len,
                    const uint8_t *key, size_t key_len, uint8_t *mac) {
  gostx_omac_ctx omac;
  int rc = gostx_omac_init(&omac, mac_cipher);
  if (!rc) rc = gostx_omac_update(&omac, iv, iv_len);
  if (!rc) rc = gostx_omac_update(&omac, key, key_len);
  if (!rc) rc = gostx_omac_final(&omac, mac, mac_cipher->block_len);
  gostx_omac_clear(&omac);
  return rc;
}

int gostx_kexp15(int cipher_id, const uint8_t key_enc[GOSTX_KEY_LEN],
                 const uint8_t key_mac[GOSTX_KEY_LEN], const uint8_t *iv, size_t iv_len,
                 const uint8_t *key, size_t key_len, uint8_t *out, size_t *out_len) {
  gostx_cipher enc, mac;
  size_t n;
  int rc;
  if (!key || !out || !out_len) return GOSTX_EINVAL;
  if (key_len == 0) return GOSTX_ELEN;
  rc = kexp_setup(cipher_id, key_enc, key_mac, iv, iv_len, &enc, &mac);
  if (rc) goto done;
  n = enc.block_len;
  if (key_len > SIZE_MAX - n) {
    rc = GOSTX_ELEN;
    goto done;
  }
  /* Build K || MAC in out, then encrypt it in place. */
  rc = kexp_mac(&mac, iv, iv_len, key, key_len, out + key_len);
  if (!rc) {
    memmove(out, key, key_len);
    rc = gostx_ctr_crypt(&enc, iv, iv_len, n, out, out, key_len + n);
  }
  if (rc) gostx_memzero(out, key_len + n);
  else *out_len = key_len + n;
done:
  gostx_cipher_clear(&enc);
  gostx_cipher_clear(&mac);
  return rc;
}

int gostx_kimp15(int cipher_id, const uint8_t key_enc[GOSTX_KEY_LEN],
                 const uint8_t key_mac[GOSTX_KEY_LEN], const uint8_t *iv, size_t iv_len,
                 const uint8_t *in, size_t in_len, uint8_t *key, size_t *key_len) {
  gostx_cipher enc, mac;
  uint8_t want[GOSTX_MAX_BLOCK_LEN];
  uint8_t *tmp = NULL;
  size_t n, klen = 0;
  int rc;
  if (!in || !key || !key_len) return GOSTX_EINVAL;
  rc = kexp_setup(cipher_id, key_enc, key_mac, iv, iv_len, &enc, &mac);
  if (rc) goto done;
  n = enc.block_len;
  if (in_len <= n) {
    rc = GOSTX_ELEN;
    goto done;
  }
  klen = in_len - n;
  /* Decrypt into scratch: nothing reaches key before the MAC checks out. */
  tmp = malloc(in_len);
  if (!tmp) {
    rc = GOSTX_ENOMEM;
    goto done;
  }
  rc = gostx_ctr_crypt(&enc, iv, iv_len, n, in, tmp, in_len);
  if (!rc) rc = kexp_mac(&mac, iv, iv_len, tmp, klen, want);
  if (!rc && gostx_memeq_ct(want, tmp + klen, n) != 0) rc = GOSTX_EAUTH;
  if (!rc) {
    memcpy(key, tmp, klen);
    *key_len = klen;
  }
done:
  if (tmp) {
    gostx_memzero(tmp, in_len);
    free(tmp);
  }
  gostx_memzero(want, sizeof want);
  gostx_cipher_clear(&enc);
  gostx_cipher_clear(&mac);
  return rc;
}
