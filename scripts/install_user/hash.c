/* The installed library's first user (scripts/check_install.sh,
 * scripts/check_debs.sh): hashes argv[1] with Streebog-512, prints the hex
 * digest for the script to compare with the standard's. */
#include <gostx.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  uint8_t d[64];
  if (argc != 2) return 2;
  int rc = gostx_streebog(64, argv[1], strlen(argv[1]), d);
  if (rc != GOSTX_OK) {
    fprintf(stderr, "gostx_streebog: %s\n", gostx_strerror(rc));
    return 1;
  }
  for (size_t i = 0; i < sizeof d; i++) printf("%02x", d[i]);
  printf("\n");
  return 0;
}
