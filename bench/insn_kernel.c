/* One primitive over a static buffer, for instruction counting under
 * callgrind (bench/insn_per_byte.sh): no heap, no threads, no I/O, so that
 * it also runs under valgrind inside qemu-user, where large mallocs fail.
 *   usage: insn_kernel ROW BYTES   (BYTES <= 262144; ROW as in the script) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"

static uint8_t buf[262144 + 64], out[262144 + 64];

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  size_t len = strtoul(argv[2], NULL, 10);
  if (len > 262144) return 2;
  for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)(i * 131 + 7);
  static const uint8_t key[32] = {7}, iv[16] = {1, 2, 3};
  gostx_cipher c;
  gostx_gost89_key g;
  uint8_t tag[64];
  const char *row = argv[1];
  int rc = -1;
  if (!strncmp(row, "kuznyechik-", 11)) rc = gostx_cipher_init(&c, GOSTX_ALG_KUZNYECHIK, key);
  else if (!strncmp(row, "magma-", 6)) rc = gostx_cipher_init(&c, GOSTX_ALG_MAGMA, key);
  else if (!strncmp(row, "gost89-", 7)) rc = gostx_gost89_set_key(&g, key, GOSTX_SBOX_CRYPTOPRO_A);
  else if (!strcmp(row, "streebog512")) rc = 0;
  if (rc) return 2;
  if (!strcmp(row, "kuznyechik-ecb")) rc = gostx_ecb_encrypt(&c, buf, len & ~(size_t)15, out);
  else if (!strcmp(row, "kuznyechik-ctr") || !strcmp(row, "magma-ctr"))
    rc = gostx_ctr_crypt(&c, iv, c.block_len / 2, c.block_len, buf, len, out);
  else if (!strcmp(row, "kuznyechik-mgm"))
    rc = len ? gostx_mgm_encrypt(&c, iv, NULL, 0, buf, len, out, tag, 16) : 0;
  else if (!strcmp(row, "gost89-cnt")) rc = gostx_gost89_cnt(&g, iv, 1, buf, len, out);
  else if (!strcmp(row, "streebog512")) rc = gostx_streebog(64, buf, len, tag);
  else return 2;
  printf("%s %zu: rc %d, out[0] %02x\n", row, len, rc, out[0]);
  return rc ? 1 : 0;
}
