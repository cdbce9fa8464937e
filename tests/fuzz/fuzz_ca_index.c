/* libFuzzer harness: the CA index reader and writer (cli/common/ca_index.c), what
 * `gostx ca` and `gostx ocsp -index` read, in process: the input is the
 * index file.
 *
 * Asserts (abort on the first violation), besides what ASan/UBSan and the
 * leak check find:
 *  - a read returns 0 or CLI_EXIT_FAIL;
 *  - an index read and written again is the file's lines byte for byte
 *    (empty lines left out, each line ended by a newline), when the file
 *    holds no NUL (a C string line ends there);
 *  - its first entry revoked (keyTime, an invalidityDate) and written, the
 *    file read back holds that entry revoked at that time, for that reason,
 *    with that invalidityDate, and every other line as it was. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ca_index.h"
#include "gostx/x509_crl.h"
#define FUZZ_NAME "fuzz_ca_index"
#include "fuzz_check.h"

static char in_path[64], out_path[72];

static void cleanup(void) {
  unlink(in_path);
  unlink(out_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_scratch_file(in_path, sizeof in_path);
  snprintf(out_path, sizeof out_path, "%s.out", in_path);
  atexit(cleanup);
  return 0;
}

static void check(int ok) {
  if (!ok) abort();
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  check(f != NULL);
  char *buf = malloc(1 << 20);
  check(buf != NULL);
  *len = fread(buf, 1, 1 << 20, f);
  fclose(f);
  return buf;
}

/* data's non-empty lines, each with a newline: what a write gives back */
static size_t expected(const uint8_t *data, size_t size, char *out) {
  size_t n = 0, start = 0;
  for (size_t i = 0; i <= size; i++) {
    if (i < size && data[i] != '\n') continue;
    if (i > start) {
      memcpy(out + n, data + start, i - start);
      n += i - start;
      out[n++] = '\n';
    }
    start = i + 1;
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  FILE *f = fopen(in_path, "wb");
  check(f && fwrite(data, 1, size, f) == size);
  fclose(f);
  ca_index x = {.lock_fd = -1};
  int rc = ca_index_read(in_path, 0, &x);
  check(rc == 0 || rc == CLI_EXIT_FAIL);
  if (rc || !x.n) {
    ca_index_free(&x);
    return 0;
  }
  size_t got_len, want_len;
  char *want = malloc(size + size / 2 + 2);
  check(want != NULL);
  want_len = expected(data, size, want);
  check(ca_index_write(out_path, &x) == 0);
  char *got = slurp(out_path, &got_len);
  if (!memchr(data, 0, size)) check(got_len == want_len && memcmp(got, want, got_len) == 0);
  free(got);

  /* the first entry revoked: its line rewritten, the others as they were */
  const int64_t at = 1700000000, compromised = 1690000000;
  uint8_t serial[32];
  size_t serial_len = x.e[0].serial_len;
  memcpy(serial, x.e[0].serial, serial_len);
  ca_entry_revoke(&x.e[0], at, GOSTX_X509_REASON_KEY_COMPROMISE, compromised);
  check(ca_index_write(out_path, &x) == 0);
  ca_index_free(&x);
  ca_index y = {.lock_fd = -1};
  check(ca_index_read(out_path, 0, &y) == 0);
  const ca_entry *e = ca_index_find(&y, serial, serial_len);
  check(e && e->status == 'R' && e->revoked_at == at && e->reason == GOSTX_X509_REASON_KEY_COMPROMISE &&
        e->invalid_at == compromised);
  got = slurp(out_path, &got_len);
  const char *second = memchr(got, '\n', got_len), *want_second = memchr(want, '\n', want_len);
  check(second && want_second);
  if (!memchr(data, 0, size))
    check((size_t)(got + got_len - second) == (size_t)(want + want_len - want_second) &&
          memcmp(second, want_second, (size_t)(want + want_len - want_second)) == 0);
  free(got);
  free(want);
  ca_index_free(&y);
  return 0;
}
