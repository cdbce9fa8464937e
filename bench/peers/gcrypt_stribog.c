/* Streebog-512 (libgcrypt's GCRY_MD_STRIBOG512) of a file, digest in hex:
 * the libgcrypt peer for bench/streebog_peers.sh.
 * Build: cc -O2 bench/peers/gcrypt_stribog.c -lgcrypt -o gcrypt_stribog */
#include <gcrypt.h>
#include <stdio.h>

int main(int argc, char **argv) {
  static unsigned char buf[1 << 20];
  gcry_md_hd_t md;
  size_t n;
  FILE *f;
  if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
    fprintf(stderr, "usage: gcrypt_stribog FILE\n");
    return 2;
  }
  if (!gcry_check_version(NULL) || gcry_md_open(&md, GCRY_MD_STRIBOG512, 0)) return 1;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) gcry_md_write(md, buf, n);
  fclose(f);
  const unsigned char *d = gcry_md_read(md, 0);
  for (int i = 0; i < 64; i++) printf("%02x", d[i]);
  printf("\n");
  gcry_md_close(md);
  return 0;
}
