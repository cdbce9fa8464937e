/* The gostx encrypted file format (docs/FORMAT.md): header encode/parse,
 * key derivation and chunk seal/open. The streaming engines that run chunks
 * in batches on a pool are in stream.c and stream_flow.c.
 *
 * Keys: master M (raw key file, or PBKDF2-HMAC-Streebog-512 of a passphrase
 * over the salt), check = KDF_256(M, "gostx header check", header[0..52)),
 * file key K = KDF_256(M, "gostx file key", salt). Kuznyechik chunks use K;
 * Magma chunk i uses KDF_256(K, "gostx magma chunk", be64(i)), so no Magma key
 * ever sees more than one chunk (64-bit block: birthday bound). */
#include <string.h>

#include "gostx/aead.h"
#include "gostx/file.h"
#include "gostx/kdf.h"
#include "internal.h"

/* Header field offsets (docs/FORMAT.md). */
#define OFF_VERSION 6
#define OFF_ALG 7
#define OFF_KDF 8
#define OFF_RESERVED 9 /* 3 bytes, zero */
#define OFF_CHUNK 12
#define OFF_ITER 16
#define OFF_SALT 20
#define OFF_CHECK 52

static const uint8_t magic[GOSTX_FILE_MAGIC_LEN] = {'G', 'O', 'S', 'T', 'X', 0};
static const char label_check[] = "gostx header check";
static const char label_file[] = "gostx file key";
static const char label_magma[] = "gostx magma chunk";

/* ---- header ---- */

size_t gostx_file_tag_len(gostx_alg alg) {
  if (alg == GOSTX_ALG_KUZNYECHIK) return GOSTX_KUZ_BLOCK_LEN;
  if (alg == GOSTX_ALG_MAGMA) return GOSTX_MAGMA_BLOCK_LEN;
  return 0;
}

/* The shared field checks; NULL when valid. */
static const char *header_fields_invalid(const gostx_file_header *h) {
  if (h->version != GOSTX_FILE_VERSION) return "unsupported format version";
  if (h->alg != GOSTX_ALG_KUZNYECHIK && h->alg != GOSTX_ALG_MAGMA)
    return "unknown algorithm";
  if (h->kdf != GOSTX_FILE_KDF_RAW && h->kdf != GOSTX_FILE_KDF_PBKDF2)
    return "unknown key derivation function";
  if (h->chunk_size < GOSTX_FILE_CHUNK_MIN || h->chunk_size > GOSTX_FILE_CHUNK_MAX)
    return "chunk size out of range (1 KiB to 64 MiB)";
  if (h->kdf == GOSTX_FILE_KDF_RAW && h->iterations != 0)
    return "iteration count must be 0 with a key file";
  if (h->kdf == GOSTX_FILE_KDF_PBKDF2 &&
      (h->iterations < GOSTX_FILE_ITER_MIN || h->iterations > GOSTX_FILE_ITER_MAX))
    return "PBKDF2 iteration count out of range (1 to 2^24)";
  return NULL;
}

int gostx_file_header_encode(const gostx_file_header *h, uint8_t out[GOSTX_FILE_HEADER_LEN]) {
  if (!h || !out) return GOSTX_EINVAL;
  if (header_fields_invalid(h)) return GOSTX_EINVAL;
  memcpy(out, magic, GOSTX_FILE_MAGIC_LEN);
  out[OFF_VERSION] = (uint8_t)h->version;
  out[OFF_ALG] = (uint8_t)h->alg;
  out[OFF_KDF] = (uint8_t)h->kdf;
  out[OFF_RESERVED] = out[OFF_RESERVED + 1] = out[OFF_RESERVED + 2] = 0;
  gostx_store32_be(out + OFF_CHUNK, h->chunk_size);
  gostx_store32_be(out + OFF_ITER, h->iterations);
  memcpy(out + OFF_SALT, h->salt, GOSTX_FILE_SALT_LEN);
  memcpy(out + OFF_CHECK, h->check, GOSTX_FILE_CHECK_LEN);
  return GOSTX_OK;
}

int gostx_file_header_parse(gostx_file_header *h, const uint8_t *in, size_t len, const char **reason) {
  const char *why = NULL;
  if (!h || (!in && len)) return GOSTX_EINVAL;
  memset(h, 0, sizeof *h);
  size_t m = len < GOSTX_FILE_MAGIC_LEN ? len : GOSTX_FILE_MAGIC_LEN;
  if (len == 0) {
    why = "empty input: not a gostx file";
  } else if (memcmp(in, magic, m) != 0) {
    why = "not a gostx file (bad magic)";
  } else if (len < GOSTX_FILE_HEADER_LEN) {
    why = "truncated file: incomplete header";
  } else {
    h->version = in[OFF_VERSION];
    h->alg = in[OFF_ALG];
    h->kdf = in[OFF_KDF];
    h->chunk_size = gostx_load32_be(in + OFF_CHUNK);
    h->iterations = gostx_load32_be(in + OFF_ITER);
    memcpy(h->salt, in + OFF_SALT, GOSTX_FILE_SALT_LEN);
    memcpy(h->check, in + OFF_CHECK, GOSTX_FILE_CHECK_LEN);
    why = header_fields_invalid(h);
    if (!why && (in[OFF_RESERVED] | in[OFF_RESERVED + 1] | in[OFF_RESERVED + 2]))
      why = "reserved header bytes are not zero";
  }
  if (reason) *reason = why;
  if (why) {
    memset(h, 0, sizeof *h);
    return GOSTX_EFORMAT;
  }
  return GOSTX_OK;
}

/* ---- keys ---- */

/* Derives master -> check value and file key from the header bytes already in
 * file->header (check bytes excluded), and sets up the cipher. */
static int derive(gostx_file *file, const uint8_t *secret, size_t secret_len, uint8_t check[32]) {
  uint8_t master[GOSTX_KEY_LEN];
  int rc;
  if (file->h.kdf == GOSTX_FILE_KDF_RAW) {
    if (!secret || secret_len != GOSTX_KEY_LEN) return GOSTX_EINVAL;
    memcpy(master, secret, GOSTX_KEY_LEN);
    rc = GOSTX_OK;
  } else {
    if (!secret || secret_len == 0 || secret_len > 1024) return GOSTX_EINVAL;
    rc = gostx_pbkdf2_streebog512(secret, secret_len, file->h.salt, GOSTX_FILE_SALT_LEN,
                                  file->h.iterations, master, sizeof master);
  }
  if (rc == GOSTX_OK)
    rc = gostx_kdf256(master, sizeof master, (const uint8_t *)label_check, sizeof label_check - 1,
                      file->header, OFF_CHECK, check);
  if (rc == GOSTX_OK)
    rc = gostx_kdf256(master, sizeof master, (const uint8_t *)label_file, sizeof label_file - 1,
                      file->h.salt, GOSTX_FILE_SALT_LEN, file->file_key);
  if (rc == GOSTX_OK && file->h.alg == GOSTX_ALG_KUZNYECHIK)
    rc = gostx_cipher_init(&file->c, GOSTX_ALG_KUZNYECHIK, file->file_key);
  file->tag_len = gostx_file_tag_len(file->h.alg);
  gostx_memzero(master, sizeof master);
  return rc;
}

void gostx_file_clear(gostx_file *file) {
  if (file) gostx_memzero(file, sizeof *file);
}

int gostx_file_init_encrypt(gostx_file *file, gostx_alg alg, gostx_file_kdf kdf, uint32_t chunk_size,
                          uint32_t iterations, const uint8_t *secret, size_t secret_len,
                          const uint8_t *salt) {
  if (!file) return GOSTX_EINVAL;
  memset(file, 0, sizeof *file);
  file->h.version = GOSTX_FILE_VERSION;
  file->h.alg = alg;
  file->h.kdf = kdf;
  file->h.chunk_size = chunk_size;
  file->h.iterations = kdf == GOSTX_FILE_KDF_RAW ? 0 : iterations;
  int rc;
  if (salt) {
    memcpy(file->h.salt, salt, GOSTX_FILE_SALT_LEN);
    rc = GOSTX_OK;
  } else {
    rc = gostx_random_bytes(file->h.salt, GOSTX_FILE_SALT_LEN);
  }
  if (rc == GOSTX_OK) rc = gostx_file_header_encode(&file->h, file->header);
  if (rc == GOSTX_OK) rc = derive(file, secret, secret_len, file->h.check);
  if (rc == GOSTX_OK) memcpy(file->header + OFF_CHECK, file->h.check, GOSTX_FILE_CHECK_LEN);
  if (rc != GOSTX_OK) gostx_file_clear(file);
  return rc;
}

int gostx_file_init_decrypt_limit(gostx_file *file, const uint8_t *header, size_t len,
                                const uint8_t *secret, size_t secret_len, uint32_t max_iterations,
                                const char **reason) {
  if (reason) *reason = NULL;
  if (!file) return GOSTX_EINVAL;
  memset(file, 0, sizeof *file);
  int rc = gostx_file_header_parse(&file->h, header, len, reason);
  if (rc != GOSTX_OK) return rc;
  if (max_iterations && file->h.iterations > max_iterations) {
    gostx_file_clear(file);
    if (reason) *reason = "PBKDF2 iteration count above this reader's limit";
    return GOSTX_EFORMAT;
  }
  memcpy(file->header, header, GOSTX_FILE_HEADER_LEN);
  uint8_t check[GOSTX_FILE_CHECK_LEN];
  rc = derive(file, secret, secret_len, check);
  if (rc == GOSTX_OK && gostx_memeq_ct(check, file->h.check, GOSTX_FILE_CHECK_LEN) != 0) {
    rc = GOSTX_EAUTH;
    if (reason) *reason = "wrong key or passphrase (or the header was modified)";
  }
  gostx_memzero(check, sizeof check);
  if (rc != GOSTX_OK) gostx_file_clear(file);
  return rc;
}

int gostx_file_init_decrypt(gostx_file *file, const uint8_t *header, size_t len, const uint8_t *secret,
                          size_t secret_len, const char **reason) {
  return gostx_file_init_decrypt_limit(file, header, len, secret, secret_len, 0, reason);
}

/* ---- chunks ---- */

int gostx_file_nonce(gostx_alg alg, uint64_t index, int final, uint8_t *nonce) {
  size_t n = gostx_file_tag_len(alg);
  if (!n || !nonce || index >= GOSTX_FILE_MAX_CHUNKS) return GOSTX_EINVAL;
  memset(nonce, 0, n);
  gostx_store64_be(nonce + n - 8, index | (final ? (uint64_t)1 << 62 : 0));
  return GOSTX_OK;
}

/* The cipher for chunk index: file->c, or a per-chunk Magma key in *tmp. */
static int chunk_cipher(const gostx_file *file, uint64_t index, gostx_cipher *tmp,
                        const gostx_cipher **c) {
  if (file->h.alg == GOSTX_ALG_KUZNYECHIK) {
    *c = &file->c;
    return GOSTX_OK;
  }
  uint8_t seed[8], key[GOSTX_KEY_LEN];
  gostx_store64_be(seed, index);
  int rc = gostx_kdf256(file->file_key, GOSTX_KEY_LEN, (const uint8_t *)label_magma,
                        sizeof label_magma - 1, seed, sizeof seed, key);
  if (rc == GOSTX_OK) rc = gostx_cipher_init(tmp, GOSTX_ALG_MAGMA, key);
  gostx_memzero(key, sizeof key);
  *c = tmp;
  return rc;
}

static int chunk_args_ok(const gostx_file *file, uint64_t index, int final, size_t len) {
  if (!file->tag_len || index >= GOSTX_FILE_MAX_CHUNKS) return GOSTX_EINVAL;
  if (len > file->h.chunk_size || (!final && len != file->h.chunk_size)) return GOSTX_ELEN;
  return GOSTX_OK;
}

/* One chunk of len content bytes through MGM under its nonce and key,
 * the header authenticated: sealed (out gets the ciphertext, then the
 * tag) or opened (in holds the ciphertext, then the tag; out gets the
 * plaintext, nothing where the tag does not verify). */
static int chunk_mgm(const gostx_file *file, uint64_t index, int final, int seal,
                     const uint8_t *in, size_t len, uint8_t *out) {
  int rc = chunk_args_ok(file, index, final, len);
  if (rc) return rc;
  uint8_t nonce[GOSTX_MAX_BLOCK_LEN];
  gostx_cipher tmp;
  const gostx_cipher *c;
  gostx_file_nonce(file->h.alg, index, final, nonce);
  rc = chunk_cipher(file, index, &tmp, &c);
  if (rc == GOSTX_OK)
    rc = seal ? gostx_mgm_encrypt(c, nonce, file->header, GOSTX_FILE_HEADER_LEN, in,
                                  len, out, out + len, file->tag_len)
              : gostx_mgm_decrypt(c, nonce, file->header, GOSTX_FILE_HEADER_LEN, in,
                                  len, in + len, file->tag_len, out);
  if (c == &tmp) gostx_cipher_clear(&tmp);
  return rc;
}

int gostx_file_seal_chunk(const gostx_file *file, uint64_t index, int final, const uint8_t *in,
                        size_t len, uint8_t *out) {
  if (!file || !out || (!in && len)) return GOSTX_EINVAL;
  return chunk_mgm(file, index, final, 1, in, len, out);
}

int gostx_file_open_chunk(const gostx_file *file, uint64_t index, int final, const uint8_t *in,
                        size_t rec_len, uint8_t *out) {
  if (!file || !in || !out) return GOSTX_EINVAL;
  if (rec_len < file->tag_len) return GOSTX_ELEN;
  return chunk_mgm(file, index, final, 0, in, rec_len - file->tag_len, out);
}
