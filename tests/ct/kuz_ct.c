/* Constant-time check for the Kuznyechik block functions, run under valgrind
 * by tests/test_kuz_ct.sh: the key and the data are marked undefined
 * (memcheck client requests), so any branch or memory address that depends on
 * them is reported as a use of an uninitialised value.
 *   kuz_ct IMPL   (portable, ssse3, avx2, lstable)
 * Exits 77 when IMPL does not run on this CPU or memcheck.h was missing at
 * build time. lstable must be reported: that shows the check can fail. */
#include <stdio.h>
#include <string.h>

#include "kuznyechik/impl.h"

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define HAVE_MEMCHECK 1
#endif
#endif

int main(int argc, char **argv) {
#ifndef HAVE_MEMCHECK
  (void)argc;
  (void)argv;
  return 77;
#else
  if (argc != 2) return 2;
  const struct gostx_kuz_impl *im = NULL;
  const char *level = "portable";
  if (!strcmp(argv[1], "portable")) im = &gostx_kuz_portable;
  if (!strcmp(argv[1], "lstable")) im = &gostx_kuz_lstable;
#ifdef GOSTX_ARCH_X86_64
  if (!strcmp(argv[1], "ssse3")) im = &gostx_kuz_ssse3, level = "ssse3";
  if (!strcmp(argv[1], "avx2")) im = &gostx_kuz_avx2, level = "avx2";
#endif
  if (!im) return 2;
  if (!gostx__level_supported(level)) return 77;
  static uint8_t buf[16 * 300 + 1];
  uint8_t key[32];
  for (int i = 0; i < 32; i++) key[i] = (uint8_t)(i * 29 + 7);
  gostx_kuz_key k;
  VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof key);
  gostx_kuz_set_key(&k, key);
  /* every path: one block (1), a pair and a lone block (3), a padded 128-block batch (80),
   * a padded 256-block batch (200), a full one and a narrow tail (300) */
  static const size_t counts[] = {1, 3, 80, 200, 300};
  for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
    VALGRIND_MAKE_MEM_UNDEFINED(buf, sizeof buf);
    im->encrypt_blocks(&k, buf + 1, buf + 1, counts[t]);
    im->decrypt_blocks(&k, buf + 1, buf + 1, counts[t]);
  }
  VALGRIND_MAKE_MEM_DEFINED(buf, sizeof buf);
  printf("%s: ran\n", im->name);
  return 0;
#endif
}
