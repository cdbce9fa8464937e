/* gostx: the encrypted file format of `gostx enc` / `gostx dec` (gostx_file_*).
 * docs/FORMAT.md describes the bytes; this header is the library side: header
 * encode/parse with strict validation, key derivation, sealing and opening of
 * single chunks, and streaming encryption/decryption over a FILE* with many
 * chunks in flight on a gostx_pool. Part of the public API.
 *
 * In short: header (84 bytes) || chunk 0 || chunk 1 || ... || final chunk.
 * Every chunk is MGM(file key, nonce(index, final), AAD = header) of exactly
 * chunk_size plaintext bytes, except the final one (0..chunk_size bytes),
 * stored as ciphertext || tag. */
#ifndef GOSTX_FILE_H
#define GOSTX_FILE_H

#include <stdio.h>

#include "bulk.h"
#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GOSTX_FILE_MAGIC "GOSTX" /* followed by one zero byte: 6 bytes */
#define GOSTX_FILE_MAGIC_LEN 6
#define GOSTX_FILE_VERSION 1
#define GOSTX_FILE_HEADER_LEN 84
#define GOSTX_FILE_SALT_LEN 32
#define GOSTX_FILE_CHECK_LEN 32

/* Key derivation functions (header byte 8). The cipher (header byte 7) is a
 * gostx_alg: GOSTX_ALG_KUZNYECHIK or GOSTX_ALG_MAGMA. */
typedef enum gostx_file_kdf {
  GOSTX_FILE_KDF_RAW = 1,    /* the master key is a 32-byte key file */
  GOSTX_FILE_KDF_PBKDF2 = 2, /* PBKDF2-HMAC-Streebog-512(passphrase, salt, iterations) */
} gostx_file_kdf;

/* Limits enforced on write and on read. */
#define GOSTX_FILE_CHUNK_MIN 1024u
#define GOSTX_FILE_CHUNK_MAX (64u << 20)
#define GOSTX_FILE_CHUNK_DEFAULT (1u << 20)
#define GOSTX_FILE_ITER_MIN 1u
#define GOSTX_FILE_ITER_MAX (1u << 24)
#define GOSTX_FILE_ITER_DEFAULT 200000u
/* Chunk indices are 62 bits in the nonce (both ciphers). */
#define GOSTX_FILE_MAX_CHUNKS ((uint64_t)1 << 62)

/* The decoded header. */
typedef struct gostx_file_header {
  unsigned version;     /* GOSTX_FILE_VERSION */
  gostx_alg alg;        /* GOSTX_ALG_KUZNYECHIK or GOSTX_ALG_MAGMA */
  gostx_file_kdf kdf;   /* GOSTX_FILE_KDF_* */
  uint32_t chunk_size;  /* plaintext bytes per chunk, CHUNK_MIN..CHUNK_MAX */
  uint32_t iterations;  /* PBKDF2 iterations; 0 for KDF_RAW */
  uint8_t salt[GOSTX_FILE_SALT_LEN];
  uint8_t check[GOSTX_FILE_CHECK_LEN]; /* key check value over bytes 0..51 */
} gostx_file_header;

/* Writes the 84 header bytes. GOSTX_EINVAL if a field is out of range. */
GOSTX_API int gostx_file_header_encode(const gostx_file_header *h,
                                       uint8_t out[GOSTX_FILE_HEADER_LEN]);
/* Parses and validates every field. GOSTX_EFORMAT with *reason (static text,
 * e.g. "not a gostx file", "unsupported version 7", "chunk size 0 out of
 * range") when anything is wrong; len < GOSTX_FILE_HEADER_LEN is "truncated
 * header" (or "not a gostx file" when the magic already differs). reason may
 * be NULL. */
GOSTX_API GOSTX_MUST_CHECK int gostx_file_header_parse(gostx_file_header *h, const uint8_t *in,
                                                       size_t len, const char **reason);
/* Tag length of a cipher in this format: the block length (16 or 8). */
GOSTX_API size_t gostx_file_tag_len(gostx_alg alg);

/* A keyed container: the header bytes (the AAD of every chunk) and the keys.
 * Read-only after init, so seal/open may run on many threads at once.
 * Wipe with gostx_file_clear. */
typedef struct gostx_file {
  gostx_file_header h;
  uint8_t header[GOSTX_FILE_HEADER_LEN];
  size_t tag_len;
  uint8_t file_key[GOSTX_KEY_LEN];
  gostx_cipher c; /* Kuznyechik: keyed with file_key; Magma: unused (per-chunk keys) */
} gostx_file;

/* For encryption. secret: the 32-byte raw key (KDF_RAW) or the passphrase
 * (KDF_PBKDF2, 1..1024 bytes). iterations: ignored for KDF_RAW (stored as 0).
 * salt: NULL = 32 fresh random bytes (pass one only for reproducible tests).
 * GOSTX_EINVAL for bad parameters, GOSTX_EIO if no randomness. */
GOSTX_API int gostx_file_init_encrypt(gostx_file *file, gostx_alg alg, gostx_file_kdf kdf,
                                      uint32_t chunk_size, uint32_t iterations,
                                      const uint8_t *secret, size_t secret_len,
                                      const uint8_t *salt);
/* For decryption: parses header (first GOSTX_FILE_HEADER_LEN bytes of the
 * file), derives the keys, verifies the key check value. GOSTX_EFORMAT (with
 * *reason) for a malformed header; GOSTX_EAUTH when the check value does not
 * match: wrong key or passphrase, or a modified header. */
GOSTX_API GOSTX_MUST_CHECK int gostx_file_init_decrypt(gostx_file *file, const uint8_t *header,
                                                       size_t len, const uint8_t *secret,
                                                       size_t secret_len, const char **reason);
/* The same with a caller's bound on the work a header may ask for: a
 * passphrase file whose PBKDF2 iteration count exceeds max_iterations is
 * refused before any key is derived (GOSTX_EFORMAT, *reason "PBKDF2
 * iteration count above this reader's limit"). 0 = GOSTX_FILE_ITER_MAX, the
 * format's own bound (tens of seconds); a fuzzer or a server facing untrusted
 * files sets it lower. gostx_file_init_decrypt(...) is this with 0. */
GOSTX_API GOSTX_MUST_CHECK int gostx_file_init_decrypt_limit(gostx_file *file,
                                                             const uint8_t *header, size_t len,
                                                             const uint8_t *secret,
                                                             size_t secret_len,
                                                             uint32_t max_iterations,
                                                             const char **reason);
GOSTX_API void gostx_file_clear(gostx_file *file);

/* MGM nonce of chunk index with the final flag (n = 16 or 8 bytes):
 * big-endian integer final * 2^(8n-2) + index; index < 2^62. */
GOSTX_API int gostx_file_nonce(gostx_alg alg, uint64_t index, int final, uint8_t *nonce);

/* Seals one chunk: len plaintext bytes (== chunk_size unless final; <=
 * chunk_size when final) -> out: len ciphertext bytes then tag_len tag bytes.
 * out may equal in. Thread-safe on one file. */
GOSTX_API int gostx_file_seal_chunk(const gostx_file *file, uint64_t index, int final,
                                  const uint8_t *in, size_t len, uint8_t *out);
/* Opens one chunk record of rec_len = len + tag_len bytes. GOSTX_EAUTH (out
 * untouched) on a wrong tag; out (rec_len - tag_len bytes) may equal in. */
GOSTX_API GOSTX_MUST_CHECK int gostx_file_open_chunk(const gostx_file *file, uint64_t index,
                                                     int final, const uint8_t *in, size_t rec_len,
                                                     uint8_t *out);

/* ---- streaming over FILE* ---- */
/* Output sink: returns 0, or non-zero to stop with GOSTX_EIO. With a pool,
 * reads of s->in and calls of write run on a helper thread (one at a time, in
 * order, never concurrently with each other or with the progress callback,
 * which runs on the calling thread), overlapping the cipher work; from in_mem
 * on a pool of 2 or more threads, write and progress both run on the calling
 * thread while the pool works on the chunks after. Encryption,
 * and decryption from in_mem, call write with whole 4096-byte pages from
 * 4096-aligned memory except in the last call, so that a sink may pass them to
 * O_DIRECT as they are (up to 4095 bytes wait for the next call). */
typedef int (*gostx_file_write_fn)(void *arg, const uint8_t *buf, size_t len);
/* Called after every batch with the input bytes consumed so far. */
typedef void (*gostx_file_progress_fn)(void *arg, uint64_t bytes_in);

typedef struct gostx_file_stream {
  /* in: */
  FILE *in;                /* encrypt: plaintext; decrypt: positioned after the header */
  const uint8_t *in_mem;   /* or, when set, the same input in memory (e.g. a mapped
                              file; in is then unused): sealed or opened where it
                              lies, never copied; it must not change until return */
  uint64_t in_mem_len;
  gostx_file_write_fn write; /* required */
  void *write_arg;
  gostx_file_progress_fn progress; /* optional */
  void *progress_arg;
  gostx_pool *pool;        /* NULL = seal/open on the calling thread */
  size_t batch;            /* chunks in flight; 0 = 16 per pool thread while the
                              two batch buffers stay <= 64 MiB, but at least 2 per
                              thread, a multiple of the threads (2 without a
                              pool). Capped so that the
                              buffers stay <= 256 MiB; on return, the number used. */
  /* out: */
  uint64_t chunks;         /* chunks written whole (verified, when decrypting) */
  uint64_t bytes_out;      /* plaintext bytes (of chunks written) */
  uint64_t fail_chunk;     /* index of the chunk that failed, if any */
  char msg[160];           /* why it failed: "authentication failed: chunk 17", ... */
} gostx_file_stream;

/* Reads plaintext until EOF and writes header + chunks. Returns 0 or a
 * negative code with s->msg set (GOSTX_EIO read/write error, GOSTX_ELEN too
 * many chunks, GOSTX_ENOMEM). */
GOSTX_API int gostx_file_encrypt_stream(const gostx_file *file, gostx_file_stream *s);
/* Reads chunk records until EOF, opens them (a batch in parallel) and writes
 * only verified plaintext, in order, stopping at the first failure:
 * GOSTX_EAUTH ("authentication failed: chunk i"), GOSTX_EFORMAT ("truncated
 * file ...", "trailing data after final chunk ...", "missing final chunk"),
 * GOSTX_EIO, GOSTX_ENOMEM; s->msg says which. The caller must discard what
 * was written when this fails. */
GOSTX_API GOSTX_MUST_CHECK int gostx_file_decrypt_stream(const gostx_file *file,
                                                         gostx_file_stream *s);

/* sizeof of the structs above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_file(void);
GOSTX_API size_t gostx_sizeof_file_header(void);
GOSTX_API size_t gostx_sizeof_file_stream(void);

#ifdef __cplusplus
}
#endif
#endif
