/* libFuzzer harness: the gostx file format reader (lib/container).
 *
 * Byte 0 bit 0 chooses the test:
 *  1: the rest of the input is a whole file, opened with a fixed raw key:
 *     header parse, key check, chunk walk. It must never crash; the header
 *     round-trips through encode when it parses; whatever is written must be
 *     a whole number of verified chunks.
 *  0: a valid file is made from the rest of the input (bytes 1..8 choose a
 *     damage: position to flip, XOR value, length to cut), damaged, and read
 *     back. An undamaged file must decrypt to exactly the plaintext; a damaged
 *     one must be refused, and what was written before the refusal must be a
 *     prefix of the plaintext (only authenticated chunks are released).
 * Byte 0 bit 1: the file is read from memory (gostx_file_stream.in_mem)
 * instead of a FILE; bit 2: on a pool of 2 threads (from memory: the
 * barrier-free flow). Both must give the same verdicts and output.
 * Headers are opened with a PBKDF2 bound of FUZZ_MAX_ITER iterations
 * (gostx_file_init_decrypt_limit): the format allows 2^24, under ASan more
 * than libFuzzer's -timeout (a crafted header took 52 s), so any run long
 * enough to find such a header (seed pbkdf2_2p24 is one) failed on time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#define FUZZ_NAME "fuzz_container"
#include "fuzz_check.h"

#define FUZZ_MAX_ITER 1000 /* ~3 ms of PBKDF2 under ASan */

static const uint8_t fixed_key[32] = {
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};

struct sink {
  uint8_t *buf;
  size_t len, cap;
};

static int sink_write(void *arg, const uint8_t *p, size_t len) {
  struct sink *s = arg;
  if (!len) return 0;
  if (s->len + len > s->cap) {
    size_t cap = (s->len + len) * 2 + 64;
    uint8_t *b = realloc(s->buf, cap);
    if (!b) return 1;
    s->buf = b;
    s->cap = cap;
  }
  memcpy(s->buf + s->len, p, len);
  s->len += len;
  return 0;
}

/* The pool of byte 0 bit 2, made on first use. */
static gostx_pool *pool_of(unsigned how) {
  static gostx_pool *pool;
  if (!(how & 4)) return NULL;
  if (!pool && !(pool = gostx_pool_new(2))) abort();
  return pool;
}

/* Opens a file image with the fixed key, read as byte 0's bits 1 and 2 say
 * (how); returns the library's code. */
static int open_image(const uint8_t *file, size_t len, struct sink *out, unsigned how) {
  gostx_file ct;
  const char *reason = NULL;
  int rc = gostx_file_init_decrypt_limit(&ct, file, len, fixed_key, sizeof fixed_key, FUZZ_MAX_ITER,
                                       &reason);
  if (rc) {
    if (rc != GOSTX_EFORMAT && rc != GOSTX_EAUTH) bug("init_decrypt: unexpected code");
    if (rc == GOSTX_EFORMAT && !reason) bug("format error without a reason");
    return rc;
  }
  gostx_file_stream s;
  memset(&s, 0, sizeof s);
  if (how & 2) {
    s.in_mem = file + GOSTX_FILE_HEADER_LEN;
    s.in_mem_len = len - GOSTX_FILE_HEADER_LEN;
  } else {
    FILE *in = fmemopen((void *)(file + GOSTX_FILE_HEADER_LEN), len - GOSTX_FILE_HEADER_LEN, "rb");
    if (!in && len > GOSTX_FILE_HEADER_LEN) abort();
    s.in = in ? in : fopen("/dev/null", "rb");
  }
  s.pool = pool_of(how);
  s.write = sink_write;
  s.write_arg = out;
  rc = gostx_file_decrypt_stream(&ct, &s);
  if (s.in) fclose(s.in);
  if (rc == 0 && s.bytes_out != out->len) bug("bytes_out disagrees with what was written");
  if (out->len % ct.h.chunk_size && rc != 0 && out->len != s.bytes_out) bug("partial chunk released");
  gostx_file_clear(&ct);
  return rc;
}

static void whole_file(const uint8_t *data, size_t len, unsigned how) {
  gostx_file_header h;
  const char *reason = NULL;
  if (gostx_file_header_parse(&h, data, len, &reason) == 0) {
    uint8_t again[GOSTX_FILE_HEADER_LEN];
    if (gostx_file_header_encode(&h, again) || memcmp(again, data, sizeof again))
      bug("a parsed header does not encode back to the same bytes");
  }
  struct sink out = {0};
  (void)open_image(data, len, &out, how);
  free(out.buf);
}

static void damaged_copy(const uint8_t *data, size_t len, unsigned how) {
  if (len < 9) return;
  size_t flip = (size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16;
  uint8_t x = data[4];
  size_t cut = (size_t)data[5] | (size_t)data[6] << 8 | (size_t)data[7] << 16;
  int alg = data[8] & 1 ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK;
  const uint8_t *pt = data + 9;
  size_t pt_len = len - 9;
  static const uint8_t salt[32] = {1, 2, 3};

  gostx_file ct;
  if (gostx_file_init_encrypt(&ct, alg, GOSTX_FILE_KDF_RAW, GOSTX_FILE_CHUNK_MIN, 0, fixed_key,
                            sizeof fixed_key, salt))
    bug("init_encrypt failed");
  struct sink file = {0}; /* encrypt_stream writes the header, then the chunks */
  FILE *in = fmemopen((void *)pt, pt_len ? pt_len : 1, "rb");
  if (!in) abort();
  gostx_file_stream s;
  memset(&s, 0, sizeof s);
  s.in = pt_len ? in : fopen("/dev/null", "rb");
  s.write = sink_write;
  s.write_arg = &file;
  if (gostx_file_encrypt_stream(&ct, &s)) bug("encrypt_stream failed");
  fclose(in);
  if (!pt_len) fclose(s.in);
  gostx_file_clear(&ct);

  int damaged = 0;
  if (x && flip < file.len) { file.buf[flip] ^= x; damaged = 1; }
  if (cut && cut < file.len) { file.len -= cut; damaged = 1; }

  struct sink out = {0};
  int rc = open_image(file.buf, file.len, &out, how);
  if (!damaged) {
    if (rc != 0) bug("an undamaged file was refused");
    if (out.len != pt_len || (pt_len && memcmp(out.buf, pt, pt_len))) bug("round trip differs");
  } else {
    if (rc == 0) bug("a damaged file was accepted");
    if (out.len > pt_len || (out.len && memcmp(out.buf, pt, out.len))) bug("released data is not a prefix");
  }
  free(out.buf);
  free(file.buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  if (len < 1 || len > (1u << 16)) return 0;
  if (data[0] & 1) whole_file(data + 1, len - 1, data[0] & 6);
  else damaged_copy(data, len, data[0] & 6);
  return 0;
}
