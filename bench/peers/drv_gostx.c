/* bench/peers driver for gostx itself (the library API, like the peers). */
#include <gostx.h>

#include "common.h"

const char *const driver_ops[] = {
    "kuznyechik-ecb", "kuznyechik-ctr", "kuznyechik-cbc", "kuznyechik-omac", "kuznyechik-mgm", "magma-omac",
    "magma-ecb", "magma-ctr", "magma-cbc", "gost89-ecb-cpa", "gost89-ecb-test",
    "gost89-cnt-mesh-cpa", "gost89-cfb-mesh-cpa", "gost89-cfb-test", "streebog256",
    "streebog512", "hmac-streebog256", NULL};

static int cipher_op(const char *m, int id, const uint8_t *in, size_t len, uint8_t *out,
                     size_t *out_len) {
  gostx_cipher c;
  if (gostx_cipher_init(&c, id, KEY)) return -1;
  size_t n = c.block_len;
  int rc = 1;
  *out_len = len;
  if (!strcmp(m, "ecb")) rc = gostx_ecb_encrypt(&c, in, len, out);
  else if (!strcmp(m, "ctr")) rc = gostx_ctr_crypt(&c, IV, n / 2, n, in, len, out);
  else if (!strcmp(m, "cbc")) rc = gostx_cbc_encrypt(&c, IV, n, in, len, out);
  else if (!strcmp(m, "omac")) {
    rc = gostx_omac(&c, in, len, out, n);
    *out_len = n;
  } else if (!strcmp(m, "mgm")) {
    uint8_t nonce[16];
    memcpy(nonce, IV, n);
    nonce[0] &= 0x7f;
    rc = gostx_mgm_encrypt(&c, nonce, NULL, 0, in, len, out, out + len, n);
    *out_len = len + n;
  }
  gostx_cipher_clear(&c);
  return rc > 0 ? 1 : rc ? -1 : 0;
}

int driver_op(const char *op, const uint8_t *in, size_t len, uint8_t *out, size_t *out_len) {
  int rc;
  if (!strncmp(op, "kuznyechik-", 11)) return cipher_op(op + 11, GOSTX_ALG_KUZNYECHIK, in, len, out, out_len);
  if (!strncmp(op, "magma-", 6)) return cipher_op(op + 6, GOSTX_ALG_MAGMA, in, len, out, out_len);
  *out_len = len;
  if (!strncmp(op, "gost89-ecb-", 11)) {
    gostx_gost89_key k;
    int sbox = !strcmp(op + 11, "cpa") ? GOSTX_SBOX_CRYPTOPRO_A : GOSTX_SBOX_TEST_3411_94;
    if (gostx_gost89_set_key(&k, KEY, sbox)) return -1;
    rc = gostx_gost89_ecb_encrypt(&k, in, len, out);
    gostx_gost89_clear(&k);
  } else if (!strncmp(op, "gost89-", 7)) {
    /* gost89-cnt-mesh-cpa, gost89-cfb-mesh-cpa, gost89-cfb-test */
    int mesh = strstr(op, "-mesh-") != NULL;
    int sbox = mesh ? GOSTX_SBOX_CRYPTOPRO_A : GOSTX_SBOX_TEST_3411_94;
    gostx_gost89_key k;
    if (gostx_gost89_set_key(&k, KEY, sbox)) return -1;
    if (!strcmp(op, "gost89-cnt-mesh-cpa")) rc = gostx_gost89_cnt(&k, IV, 1, in, len, out);
    else if (!strcmp(op, "gost89-cfb-mesh-cpa") || !strcmp(op, "gost89-cfb-test"))
      rc = gostx_gost89_cfb(&k, IV, mesh, 0, in, len, out);
    else rc = -1;
    gostx_gost89_clear(&k);
  } else if (!strcmp(op, "streebog256") || !strcmp(op, "streebog512")) {
    size_t d = !strcmp(op, "streebog256") ? 32 : 64;
    rc = gostx_streebog(d, in, len, out);
    *out_len = d;
  } else if (!strcmp(op, "hmac-streebog256")) {
    rc = gostx_hmac(32, KEY, 32, in, len, out);
    *out_len = 32;
  } else {
    return 1;
  }
  return rc ? -1 : 0;
}

int main(int argc, char **argv) { return driver_main(argc, argv); }
