/* KExp15 / KImp15 key export and import (R 1323565.1.017-2018; RFC 9189
 * section 8.2.1):
 *
 *   KExp15(K) = CTR_{K_enc, IV}(K || OMAC_{K_mac}(IV || K)),   |IV| = n/2
 *
 * with the same block cipher for CTR and OMAC and a full n-bit MAC. Built on
 * the GOST R 34.13-2015 modes (gostx_ctr_crypt, gostx_omac_*). */
#include <stdlib.h>

#include "internal.h"

/* Both keys of one cipher, and the IV length n/2. */
static int kexp_check(const gostx_cipher *enc, const gostx_cipher *mac, const uint8_t *iv,
                      size_t iv_len) {
  if (!enc || !mac || !iv || enc->id != mac->id) return GOSTX_EINVAL;
  if (enc->id != GOSTX_ALG_KUZNYECHIK && enc->id != GOSTX_ALG_MAGMA) return GOSTX_EINVAL;
  return iv_len == enc->block_len / 2 ? GOSTX_OK : GOSTX_ELEN;
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

int gostx_kexp15(const gostx_cipher *enc, const gostx_cipher *mac, const uint8_t *iv,
                 size_t iv_len, const uint8_t *key, size_t key_len, uint8_t *out,
                 size_t *out_len) {
  if (!key || !out || !out_len) return GOSTX_EINVAL;
  if (key_len == 0) return GOSTX_ELEN;
  int rc = kexp_check(enc, mac, iv, iv_len);
  if (rc) return rc;
  size_t n = enc->block_len;
  if (key_len > SIZE_MAX - n) return GOSTX_ELEN;
  /* Build K || MAC in out, then encrypt it in place. */
  rc = kexp_mac(mac, iv, iv_len, key, key_len, out + key_len);
  if (!rc) {
    memmove(out, key, key_len);
    rc = gostx_ctr_crypt(enc, iv, iv_len, n, out, key_len + n, out);
  }
  if (rc) gostx_memzero(out, key_len + n);
  else *out_len = key_len + n;
  return rc;
}

int gostx_kimp15(const gostx_cipher *enc, const gostx_cipher *mac, const uint8_t *iv,
                 size_t iv_len, const uint8_t *in, size_t in_len, uint8_t *key,
                 size_t *key_len) {
  if (!in || !key || !key_len) return GOSTX_EINVAL;
  int rc = kexp_check(enc, mac, iv, iv_len);
  if (rc) return rc;
  size_t n = enc->block_len;
  if (in_len <= n) return GOSTX_ELEN;
  size_t klen = in_len - n;
  /* Decrypt into scratch: nothing reaches key before the MAC checks out. */
  uint8_t *tmp = malloc(in_len);
  if (!tmp) return GOSTX_ENOMEM;
  uint8_t want[GOSTX_MAX_BLOCK_LEN];
  rc = gostx_ctr_crypt(enc, iv, iv_len, n, in, in_len, tmp);
  if (!rc) rc = kexp_mac(mac, iv, iv_len, tmp, klen, want);
  if (!rc && gostx_memeq_ct(want, tmp + klen, n) != 0) rc = GOSTX_EAUTH;
  if (!rc) {
    memcpy(key, tmp, klen);
    *key_len = klen;
  }
  gostx_memzero(tmp, in_len);
  free(tmp);
  gostx_memzero(want, sizeof want);
  return rc;
}
