/* bench/peers driver for libgcrypt (GOST 28147-89 with and without CryptoPro
 * meshing, Stribog, HMAC-Stribog). libgcrypt 1.10 has no Kuznyechik or Magma
 * by name, but Magma is GOST 28147-89 with the tc26 Z S-box in the other byte
 * order: Magma_K(P) = rev(E_K'(rev(P))), rev reversing the 8 bytes of a block
 * and K' the key with each 32-bit word byte-swapped. magma-cbc is computed
 * that way (the same bytes as gostx; the two reversal passes are < 1% of the
 * time); magma-omac is libgcrypt's CMAC over GOST 28147-89 (its default
 * S-box: the MAC takes no choice) on reversed blocks: the same work, a
 * different MAC, so peers.sh marks it "!". */
#include <gcrypt.h>

#include "common.h"

const char *const driver_ops[] = {"magma-cbc", "magma-omac", "gost89-ecb-cpa", "gost89-ecb-test", "gost89-cfb-mesh-cpa",
                                  "gost89-cfb-test", "streebog256", "streebog512",
                                  "hmac-streebog256", NULL};

#define OID_CPA "1.2.643.2.2.31.1"  /* id-Gost28147-89-CryptoPro-A-ParamSet */
#define OID_TEST "1.2.643.2.2.30.0" /* id-GostR3411-94-TestParamSet */
#define OID_Z "1.2.643.7.1.2.5.1.1"  /* id-tc26-gost-28147-param-Z */

static void rev_blocks(uint8_t *out, const uint8_t *in, size_t len) {
  for (size_t b = 0; b + 8 <= len; b += 8)
    for (int i = 0; i < 8; i++) out[b + i] = in[b + 7 - i];
}

static void swapped_key(uint8_t k[32]) {
  for (int w = 0; w < 8; w++)
    for (int i = 0; i < 4; i++) k[4 * w + i] = KEY[4 * w + 3 - i];
}

/* Magma CBC (out: the same bytes as GOST R 34.13 Magma-CBC) and a CMAC of
 * the same cost, through GOST 28147-89 with the Z S-box. */
static int magma(int mac, const uint8_t *in, size_t len, uint8_t *out, size_t *out_len) {
  uint8_t k[32], iv[8];
  uint8_t *buf = malloc(len ? len : 1);
  if (!buf) return -1;
  swapped_key(k);
  rev_blocks(iv, IV, 8);
  rev_blocks(buf, in, len);
  int bad;
  if (mac) {
    gcry_mac_hd_t h;
    size_t l = 8;
    bad = gcry_mac_open(&h, GCRY_MAC_CMAC_GOST28147, 0, NULL) != 0;
    if (!bad) {
      /* Its CMAC takes no S-box choice (libgcrypt's default set): the cost
       * per block is the same. */
      bad = gcry_mac_setkey(h, k, 32) || gcry_mac_write(h, buf, len) || gcry_mac_read(h, out, &l);
      gcry_mac_close(h);
    }
    *out_len = l;
  } else {
    gcry_cipher_hd_t h;
    bad = gcry_cipher_open(&h, GCRY_CIPHER_GOST28147, GCRY_CIPHER_MODE_CBC, 0) != 0;
    if (!bad) {
      bad = gcry_cipher_setkey(h, k, 32) || gcry_cipher_ctl(h, GCRYCTL_SET_SBOX, (void *)OID_Z, 0) ||
            gcry_cipher_setiv(h, iv, 8) || gcry_cipher_encrypt(h, buf, len, NULL, 0);
      gcry_cipher_close(h);
    }
    rev_blocks(out, buf, len);
  }
  free(buf);
  return bad ? -1 : 0;
}

static int cipher(int algo, int mode, const char *oid, int with_iv, const uint8_t *in, size_t len,
                  uint8_t *out) {
  gcry_cipher_hd_t h;
  if (gcry_cipher_open(&h, algo, mode, 0)) return -1;
  int bad = gcry_cipher_setkey(h, KEY, 32) != 0;
  if (!bad && oid) bad = gcry_cipher_ctl(h, GCRYCTL_SET_SBOX, (void *)oid, 0) != 0;
  if (!bad && with_iv) bad = gcry_cipher_setiv(h, IV, 8) != 0;
  if (!bad) bad = gcry_cipher_encrypt(h, out, len, in, len) != 0;
  gcry_cipher_close(h);
  return bad ? -1 : 0;
}

int driver_op(const char *op, const uint8_t *in, size_t len, uint8_t *out, size_t *out_len) {
  *out_len = len;
  if (!strcmp(op, "magma-cbc")) return magma(0, in, len, out, out_len);
  if (!strcmp(op, "magma-omac")) return magma(1, in, len, out, out_len);
  if (!strcmp(op, "gost89-ecb-cpa"))
    return cipher(GCRY_CIPHER_GOST28147, GCRY_CIPHER_MODE_ECB, OID_CPA, 0, in, len, out);
  if (!strcmp(op, "gost89-ecb-test"))
    return cipher(GCRY_CIPHER_GOST28147, GCRY_CIPHER_MODE_ECB, OID_TEST, 0, in, len, out);
  if (!strcmp(op, "gost89-cfb-mesh-cpa"))
    return cipher(GCRY_CIPHER_GOST28147_MESH, GCRY_CIPHER_MODE_CFB, OID_CPA, 1, in, len, out);
  if (!strcmp(op, "gost89-cfb-test"))
    return cipher(GCRY_CIPHER_GOST28147, GCRY_CIPHER_MODE_CFB, OID_TEST, 1, in, len, out);
  if (!strcmp(op, "streebog256") || !strcmp(op, "streebog512")) {
    int algo = !strcmp(op, "streebog256") ? GCRY_MD_STRIBOG256 : GCRY_MD_STRIBOG512;
    gcry_md_hash_buffer(algo, out, in, len);
    *out_len = gcry_md_get_algo_dlen(algo);
    return 0;
  }
  if (!strcmp(op, "hmac-streebog256")) {
    gcry_mac_hd_t h;
    size_t l = 32;
    if (gcry_mac_open(&h, GCRY_MAC_HMAC_STRIBOG256, 0, NULL)) return -1;
    int bad = gcry_mac_setkey(h, KEY, 32) || gcry_mac_write(h, in, len) || gcry_mac_read(h, out, &l);
    gcry_mac_close(h);
    *out_len = l;
    return bad ? -1 : 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  if (!gcry_check_version(NULL)) return 1;
  gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  return driver_main(argc, argv);
}
