/* What the harnesses share when they check a parser's answer: the abort
 * that names the broken invariant (libFuzzer keeps the input that led
 * there), and the test that a view the parser hands back lies inside the
 * bytes it was given. A harness defines FUZZ_NAME (its name, the prefix of
 * the message scripts/check_fuzz.sh greps for) before including this. */
#ifndef GOSTX_FUZZ_CHECK_H
#define GOSTX_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void bug(const char *what) {
  fprintf(stderr, FUZZ_NAME ": %s\n", what);
  abort();
}

/* Whether the n bytes at p lie inside the len bytes at base. */
static inline int within(const uint8_t *p, size_t n, const uint8_t *base, size_t len) {
  return p >= base && n <= len && (size_t)(p - base) <= len - n;
}

/* A scratch file in /tmp named after the harness, made once for the
 * harnesses that hand their input to a reader of paths (the harness
 * removes it at exit); path[cap] receives its name. */
static inline void fuzz_scratch_file(char *path, size_t cap) {
  snprintf(path, cap, "/tmp/gostx-" FUZZ_NAME "-XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0) abort();
  close(fd);
}

/* For a harness whose reader takes a path: its input written to the
 * scratch file (made on the first call, removed at exit), whose path it
 * returns; *lines gets the input's line count (1 + its newlines). */
static inline char *fuzz_input_path(void) {
  static char path[64];
  return path;
}
static inline void fuzz_input_remove(void) { unlink(fuzz_input_path()); }
static inline const char *fuzz_input_file(const uint8_t *data, size_t size, size_t *lines) {
  char *path = fuzz_input_path();
  if (!path[0]) {
    fuzz_scratch_file(path, 64);
    atexit(fuzz_input_remove);
  }
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  *lines = 1;
  for (size_t i = 0; i < size; i++) *lines += data[i] == '\n';
  return path;
}

/* A view (NULL when the field is absent) outside the input is a bug. */
static inline void inside(const uint8_t *p, size_t n, const uint8_t *in, size_t in_len) {
  if (p && !within(p, n, in, in_len)) bug("a view outside the input");
}

#endif
