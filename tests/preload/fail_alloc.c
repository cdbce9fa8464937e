/* LD_PRELOAD library for the servers' out-of-memory tests
 * (tests/test_ocsp_cli.sh): malloc and realloc of exactly
 * $GOSTX_FAIL_ALLOC_SIZE bytes return NULL with ENOMEM while the file
 * $GOSTX_FAIL_ALLOC_FLAG exists, so that a test arms the failure once the
 * server is up and aims it at one allocation size. Everything else goes to
 * the next malloc (glibc's, or the sanitizer runtime's). Linux/glibc
 * (dlsym RTLD_NEXT); built only for the tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static void *(*next_malloc)(size_t);
static void *(*next_realloc)(void *, size_t);

static int armed(size_t n) {
  static size_t size;
  static const char *flag;
  static int read_env;
  if (!read_env) { /* getenv does not allocate */
    const char *s = getenv("GOSTX_FAIL_ALLOC_SIZE");
    size = s ? strtoul(s, NULL, 10) : 0;
    flag = getenv("GOSTX_FAIL_ALLOC_FLAG");
    read_env = 1;
  }
  return size && n == size && flag && access(flag, F_OK) == 0;
}

void *malloc(size_t n) {
  if (!next_malloc) next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
  if (armed(n)) {
    errno = ENOMEM;
    return NULL;
  }
  return next_malloc(n);
}

void *realloc(void *p, size_t n) {
  if (!next_realloc) next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
  if (armed(n)) {
    errno = ENOMEM;
    return NULL;
  }
  return next_realloc(p, n);
}
