/* What the cipher files share: OpenSSL's buffering of partial blocks with
 * PKCS#7 padding in front of a whole-block function (ECB/CBC), the length
 * checks of init, and the params every non-AEAD cipher context takes. */
#include <limits.h>
#include <string.h>

#include "prov.h"

int prov_block_update(prov_blockbuf *b, size_t n, int enc, int padding, prov_blocks_fn fn,
                      void *ctx, unsigned char *out, size_t *outl, size_t outsize,
                      const unsigned char *in, size_t inl) {
  /* decryption with padding keeps the last block back for final */
  const int hold = !enc && padding;
  size_t written = 0, need = (b->len + inl) / n * n;
  if (!prov_check_room(outsize, need)) return 0;
  *outl = 0;
  if (b->len) {
    size_t take = n - b->len < inl ? n - b->len : inl;
    memcpy(b->buf + b->len, in, take);
    b->len += take;
    in += take;
    inl -= take;
    if (b->len < n || (hold && inl == 0)) return 1;
    if (!fn(ctx, b->buf, out, n)) return 0;
    out += n;
    written = n;
    b->len = 0;
  }
  size_t full = inl / n * n;
  if (hold && full && full == inl) full -= n;
  if (full && !fn(ctx, in, out, full)) return 0;
  written += full;
  memcpy(b->buf, in + full, inl - full);
  b->len = inl - full;
  *outl = written;
  return 1;
}

int prov_block_final(prov_blockbuf *b, size_t n, int enc, int padding, prov_blocks_fn fn,
                     void *ctx, unsigned char *out, size_t *outl, size_t outsize) {
  *outl = 0;
  if (!padding) {
    if (b->len) {
      prov_err(PROV_R_BAD_LEN, "%zu bytes left over: not a whole block (padding off)", b->len);
      return 0;
    }
    return 1;
  }
  if (enc) {
    if (outsize < n) {
      prov_err(PROV_R_BUFFER_TOO_SMALL, "final needs %zu bytes", n);
      return 0;
    }
    memset(b->buf + b->len, (int)(n - b->len), n - b->len);
    if (!fn(ctx, b->buf, out, n)) return 0;
    b->len = 0;
    *outl = n;
    return 1;
  }
  if (b->len != n) {
    prov_err(PROV_R_BAD_LEN, "ciphertext is not a whole number of blocks");
    return 0;
  }
  uint8_t blk[GOSTX_MAX_BLOCK_LEN];
  if (!fn(ctx, b->buf, blk, n)) return 0;
  /* PKCS#7 check without a branch on the secret bytes */
  unsigned pad = blk[n - 1], bad = (unsigned)(pad == 0) | (unsigned)(pad > n);
  for (size_t i = 0; i < n; i++) bad |= (unsigned)(n - i <= pad) & (unsigned)(blk[i] != pad);
  size_t len = bad ? 0 : n - pad;
  int ok = !bad && outsize >= len;
  if (ok) memcpy(out, blk, len);
  else prov_err(bad ? PROV_R_BAD_PADDING : PROV_R_BUFFER_TOO_SMALL, "bad decrypt");
  gostx_memzero(blk, sizeof blk);
  b->len = 0;
  *outl = ok ? len : 0;
  return ok;
}

int prov_check_inl(size_t inl) {
  if (inl <= INT_MAX) return 1;
  prov_err(PROV_R_BAD_LEN, "input length %zu: a negative length given to EVP_CipherUpdate?", inl);
  return 0;
}

int prov_check_room(size_t outsize, size_t need) {
  if (outsize >= need) return 1;
  prov_err(PROV_R_BUFFER_TOO_SMALL, "need %zu bytes, have %zu", need, outsize);
  return 0;
}

int prov_section_param(const OSSL_PARAM *p, const char *name, size_t n, int allowed,
                       const char *when, size_t *out) {
  size_t s;
  if (!p) return 1;
  if (!OSSL_PARAM_get_size_t(p, &s)) return 0;
  if (!allowed || s == 0 || s % n) {
    prov_err(PROV_R_BAD_PARAM, "%s: a positive multiple of %zu%s", name, n, when);
    return 0;
  }
  *out = s;
  return 1;
}

int prov_not_started(int key_set) {
  prov_err(PROV_R_NO_KEY, key_set ? "no iv set" : "no key set");
  return 0;
}

int prov_check_key_iv(const unsigned char *key, size_t keylen, size_t want_keylen,
                      const unsigned char *iv, size_t ivlen, size_t want_ivlen, uint8_t *iv_dst,
                      int *iv_set) {
  if (key && keylen != want_keylen) {
    prov_err(PROV_R_BAD_KEY_LEN, "key is %zu bytes, must be %zu", keylen, want_keylen);
    return 0;
  }
  if (iv && want_ivlen) {
    if (ivlen != want_ivlen) {
      prov_err(PROV_R_BAD_IV_LEN, "iv is %zu bytes, must be %zu", ivlen, want_ivlen);
      return 0;
    }
    memcpy(iv_dst, iv, want_ivlen);
    *iv_set = 1;
  }
  return 1;
}

int prov_cipher_set_common(const OSSL_PARAM params[], size_t keylen, size_t ivlen,
                           int *padding) {
  const OSSL_PARAM *p;
  if (!params) return 1;
  if (padding && (p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_PADDING))) {
    unsigned pad;
    if (!OSSL_PARAM_get_uint(p, &pad)) return 0;
    *padding = pad != 0;
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN))) {
    size_t kl;
    if (!OSSL_PARAM_get_size_t(p, &kl) || kl != keylen) {
      prov_err(PROV_R_BAD_KEY_LEN, "key length is fixed at %zu bytes", keylen);
      return 0;
    }
  }
  if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_IVLEN))) {
    size_t il;
    if (!OSSL_PARAM_get_size_t(p, &il) || il != ivlen) {
      prov_err(PROV_R_BAD_IV_LEN, "iv length is fixed at %zu bytes", ivlen);
      return 0;
    }
  }
  return 1;
}

PROV_CTX_PARAMS(prov_cipher_gettable_ctx_params, PROV_CIPHER_CTX_GETTABLE)
