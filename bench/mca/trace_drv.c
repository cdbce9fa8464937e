/* The calls bench/kuz_trace_mca.sh traces under gdb: one mode of
 * Kuznyechik through the public API on buffers of several 64-block groups
 * (argv[1]: ecb, ecbd, ctr or mgm). Not a benchmark: it runs each call once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"

int main(int argc, char **argv) {
  enum { LEN = 32 * 1024 };
  static _Alignas(64) uint8_t in[LEN], out[LEN];
  uint8_t key[32] = {1}, iv[16] = {0}, tag[16];
  gostx_cipher c;
  int rc = 2;
  if (argc != 2 || gostx_cipher_init(&c, GOSTX_ALG_KUZNYECHIK, key)) return 2;
  memset(in, 3, sizeof in);
  if (!strcmp(argv[1], "ecb")) rc = gostx_ecb_encrypt(&c, in, 8 * 1024, out);
  else if (!strcmp(argv[1], "ecbd")) rc = gostx_ecb_decrypt(&c, in, 8 * 1024, out);
  else if (!strcmp(argv[1], "ctr")) rc = gostx_ctr_crypt(&c, iv, 8, 16, in, 8 * 1024, out);
  else if (!strcmp(argv[1], "mgm")) rc = gostx_mgm_encrypt(&c, iv, NULL, 0, in, LEN, out, tag, 16);
  printf("%s %d %02x\n", argv[1], rc, out[0]);
  return rc != 0;
}
