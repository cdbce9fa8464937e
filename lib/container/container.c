/* The gostx encrypted file format (docs/FORMAT.md): header encode/parse,
 * key derivation, chunk seal/open, and streaming over FILE* with a batch of
 * chunks sealed or opened in parallel on a gostx_pool.
 *
 * Keys: master M (raw key file, or PBKDF2-HMAC-Streebog-512 of a passphrase
 * over the salt), check = KDF_256(M, "gostx header check", header[0..52)),
 * file key K = KDF_256(M, "gostx file key", salt). Kuznyechik chunks use K;
 * Magma chunk i uses KDF_256(K, "gostx magma chunk", be64(i)), so no Magma key
 * ever sees more than one chunk (64-bit block: birthday bound). */
#define _GNU_SOURCE /* getrandom */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "gostx/aead.h"
#include "gostx/file.h"
#include "gostx/kdf.h"
#include "internal.h"

#define OFF_VERSION 6
#define OFF_ALG 7
#define OFF_KDF 8
#define OFF_RESERVED 9 /* 3 bytes, zero */
#define OFF_CHUNK 12
#define OFF_ITER 16
#define OFF_SALT 20
#define OFF_CHECK 52

#define BATCH_BYTES_MAX ((size_t)256 << 20)

/* Default chunks per batch with a pool. A batch ends at a barrier (the pool's
 * run returns when its last chunk is done): threads that finish first wait
 * there, and the I/O thread takes CPU from the workers at times, so few chunks
 * per thread lose much of the second core. 1 GiB `gostx enc` on 2 cores,
 * medians of 5 interleaved runs: 2.68 s at 2 chunks per thread, 2.48 s at 8,
 * 2.34 s at 16 (about the bound that the CPU time sets); `dec` 2.94, 2.72,
 * 2.51 s. Soft cap: 64 MiB of buffers in all, but never fewer than 2 chunks
 * per thread. */
#define BATCH_PER_THREAD 16
#define BATCH_BYTES_SOFT ((size_t)64 << 20)

/* Output writes are whole pages of this size from aligned memory (all but the
 * last), so a sink can pass them to O_DIRECT without copying them. */
#define OUT_ALIGN ((size_t)4096)

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

int gostx_file_seal_chunk(const gostx_file *file, uint64_t index, int final, const uint8_t *in,
                        size_t len, uint8_t *out) {
  if (!file || !out || (!in && len)) return GOSTX_EINVAL;
  int rc = chunk_args_ok(file, index, final, len);
  if (rc) return rc;
  uint8_t nonce[GOSTX_MAX_BLOCK_LEN];
  gostx_cipher tmp;
  const gostx_cipher *c;
  gostx_file_nonce(file->h.alg, index, final, nonce);
  rc = chunk_cipher(file, index, &tmp, &c);
  if (rc == GOSTX_OK)
    rc = gostx_mgm_encrypt(c, nonce, file->tag_len, file->header, GOSTX_FILE_HEADER_LEN, in, len, out,
                           out + len, file->tag_len);
  if (c == &tmp) gostx_cipher_clear(&tmp);
  return rc;
}

int gostx_file_open_chunk(const gostx_file *file, uint64_t index, int final, const uint8_t *in,
                        size_t rec_len, uint8_t *out) {
  if (!file || !in || !out) return GOSTX_EINVAL;
  if (rec_len < file->tag_len) return GOSTX_ELEN;
  size_t len = rec_len - file->tag_len;
  int rc = chunk_args_ok(file, index, final, len);
  if (rc) return rc;
  uint8_t nonce[GOSTX_MAX_BLOCK_LEN];
  gostx_cipher tmp;
  const gostx_cipher *c;
  gostx_file_nonce(file->h.alg, index, final, nonce);
  rc = chunk_cipher(file, index, &tmp, &c);
  if (rc == GOSTX_OK)
    rc = gostx_mgm_decrypt(c, nonce, file->tag_len, file->header, GOSTX_FILE_HEADER_LEN, in, len,
                           in + len, file->tag_len, out);
  if (c == &tmp) gostx_cipher_clear(&tmp);
  return rc;
}

/* ---- streaming ----
 * Two batch buffers. While the pool seals/opens batch k in one, a helper
 * thread writes batch k-1 from the other and then reads batch k+1 into it,
 * so I/O overlaps the cipher work. Without a pool the same steps run one
 * after another on the calling thread. The order of the output is the order
 * of the input, and decryption writes a batch only once every chunk in it
 * verified (the failing batch's verified prefix is written last).
 *
 * Where the output of a batch is contiguous (encryption: records; decryption
 * from memory: plaintext chunks), a batch's slots start at buf + pad, and the
 * pad holds the previous batch's last output bytes past its last whole page
 * (the header, before the first batch): each write but the last then is whole
 * pages from page-aligned memory, which the sink can write with O_DIRECT, and
 * copying a tail of less than a page is all that takes. Input in memory
 * (s->in_mem, e.g. a mapped file) is sealed or opened from where it lies. */

struct batch {
  uint8_t *buf;    /* OUT_ALIGN bytes of pad room, then cap slots of stride bytes */
  size_t *lens;    /* encrypt: plaintext length; decrypt: record length */
  int *rcs;
  uint64_t first;  /* chunk index of slot 0 */
  uint64_t in_off; /* in_mem: offset of slot 0's input */
  size_t pad;      /* bytes before slot 0: the previous batch's unwritten tail */
  size_t n;        /* slots in use */
  size_t touched;  /* slots ever read into: the wipe covers these, not the whole
                      (lazily mapped) buffer, so short files stay cheap */
  int last_final;  /* the last slot holds the final chunk (end of input) */
};

struct streamer {
  const gostx_file *file;
  gostx_file_stream *s;
  int decrypt;
  int contig;            /* the output is contiguous and page-aligned (above) */
  size_t rec, cap, unit; /* unit: bytes read per slot (chunk or record) */
  size_t stride;         /* slot spacing in buf */
  size_t rd_held;        /* the pad of the next batch read */
  uint64_t in_pos;       /* in_mem: input consumed */
  uint64_t in_bytes;
  struct batch b[2];
  /* the I/O job */
  struct batch *wr, *rd; /* write wr (may be NULL), then read into rd (may be NULL) */
  struct batch *wr_next; /* receives wr's unwritten tail as its pad */
  uint64_t rd_first;     /* chunk index of rd's first slot */
  int wr_rc, rd_rc;      /* 0, or GOSTX_EIO / GOSTX_EFORMAT with msg filled */
  char io_msg[160];
};

/* For gostx_pool_run: seal or open slot i of the batch in st->b[0 or 1]. */
struct task {
  struct streamer *st;
  struct batch *b;
};

static uint8_t *slot_out(const struct streamer *st, const struct batch *b, size_t i) {
  return b->buf + b->pad + i * st->stride;
}

/* All slots but the last are full, so slot i's input is unit bytes on. */
static const uint8_t *slot_in(const struct streamer *st, const struct batch *b, size_t i) {
  return st->s->in_mem ? st->s->in_mem + b->in_off + i * st->unit : slot_out(st, b, i);
}

/* Output bytes of slot i: a record, or the plaintext of one. */
static size_t slot_out_len(const struct streamer *st, const struct batch *b, size_t i) {
  return st->decrypt ? b->lens[i] - st->file->tag_len : b->lens[i] + st->file->tag_len;
}

static void batch_task(void *arg, size_t i) {
  struct task *t = arg;
  struct batch *b = t->b;
  const uint8_t *in = slot_in(t->st, b, i);
  uint8_t *out = slot_out(t->st, b, i);
  int final = b->last_final && i + 1 == b->n;
  if (t->st->decrypt)
    b->rcs[i] = gostx_file_open_chunk(t->st->file, b->first + i, final, in, b->lens[i], out);
  else
    b->rcs[i] = gostx_file_seal_chunk(t->st->file, b->first + i, final, in, b->lens[i], out);
}

static void run_batch(struct streamer *st, struct batch *b) {
  struct task t = {st, b};
  if (st->s->pool && b->n > 1 && gostx_pool_run(st->s->pool, b->n, batch_task, &t) == 0) return;
  for (size_t i = 0; i < b->n; i++) batch_task(&t, i);
}

/* fread until len bytes or EOF; -1 on a read error. */
static int read_full(FILE *f, uint8_t *p, size_t len, size_t *got) {
  size_t n = 0;
  while (n < len) {
    size_t r = fread(p + n, 1, len - n, f);
    n += r;
    if (r == 0) {
      if (ferror(f)) return -1;
      break;
    }
  }
  *got = n;
  return 0;
}

/* 1 at EOF, 0 when more data follows, -1 on a read error. */
static int at_eof(FILE *f) {
  int c = getc(f);
  if (c == EOF) return ferror(f) ? -1 : 1;
  if (ungetc(c, f) == EOF) return -1;
  return 0;
}

/* The slots of the next batch from in_mem (nothing is copied). */
static int take_batch(struct streamer *st, struct batch *b, char *msg, size_t msg_len) {
  const uint64_t len = st->s->in_mem_len;
  b->in_off = st->in_pos;
  while (b->n < st->cap) {
    const uint64_t left = len - st->in_pos;
    const size_t got = left < st->unit ? (size_t)left : st->unit;
    if (st->decrypt && got == 0) {
      snprintf(msg, msg_len, "truncated file: no chunks after the header");
      return GOSTX_EFORMAT;
    }
    if (b->n + 1 > b->touched) b->touched = b->n + 1;
    b->lens[b->n++] = got;
    st->in_pos += got;
    st->in_bytes += got;
    if (st->in_pos == len) {
      b->last_final = 1;
      break;
    }
  }
  return GOSTX_OK;
}

/* Reads the next batch (first chunk index `first`) into b. */
static int read_batch(struct streamer *st, struct batch *b, uint64_t first, char *msg,
                      size_t msg_len) {
  b->n = 0;
  b->first = first;
  b->last_final = 0;
  b->pad = st->rd_held;
  if (st->s->in_mem) {
    int rc = take_batch(st, b, msg, msg_len);
    if (rc) return rc;
  }
  while (!st->s->in_mem && b->n < st->cap) {
    size_t got;
    if (b->n + 1 > b->touched) b->touched = b->n + 1;
    if (read_full(st->s->in, slot_out(st, b, b->n), st->unit, &got) < 0) goto read_error;
    if (st->decrypt && got == 0) { /* only possible right after the header */
      snprintf(msg, msg_len, "truncated file: no chunks after the header");
      return GOSTX_EFORMAT;
    }
    b->lens[b->n++] = got;
    st->in_bytes += got;
    int eof = got < st->unit ? 1 : at_eof(st->s->in);
    if (eof < 0) goto read_error;
    if (eof) {
      b->last_final = 1;
      break;
    }
  }
  if (b->n > GOSTX_FILE_MAX_CHUNKS - first) {
    snprintf(msg, msg_len, "too many chunks (more than 2^62)");
    return st->decrypt ? GOSTX_EFORMAT : GOSTX_ELEN;
  }
  if (st->contig) {
    size_t total = b->pad;
    for (size_t i = 0; i < b->n; i++) total += slot_out_len(st, b, i);
    st->rd_held = total % OUT_ALIGN;
  }
  return GOSTX_OK;
read_error:
  snprintf(msg, msg_len, "read error: %s", strerror(errno));
  return GOSTX_EIO;
}

/* Writes slots [0, upto) of a processed batch: all of it when last (the end
 * of the output), else up to its last whole page, its tail going to the front
 * of next (the following batch, whose pad it is). */
static int write_batch(struct streamer *st, const struct batch *b, size_t upto, int last,
                       struct batch *next, char *msg, size_t msg_len) {
  if (st->contig) {
    size_t total = b->pad;
    for (size_t i = 0; i < upto; i++) total += slot_out_len(st, b, i);
    const size_t whole = last ? total : total - total % OUT_ALIGN;
    if (whole && st->s->write(st->s->write_arg, b->buf, whole)) goto write_error;
    if (!last) memcpy(next->buf, b->buf + whole, total - whole); /* next->pad bytes */
    /* Chunks whose every byte went out. */
    size_t done = upto;
    for (size_t end = total; done > 0 && end > whole; done--) end -= slot_out_len(st, b, done - 1);
    for (size_t i = 0; i < upto; i++)
      st->s->bytes_out += st->decrypt ? b->lens[i] - st->file->tag_len : b->lens[i];
    st->s->chunks = b->first + done;
    return GOSTX_OK;
  }
  for (size_t i = 0; i < upto; i++) { /* decryption from a FILE: records opened in place */
    const size_t len = slot_out_len(st, b, i);
    if (st->s->write(st->s->write_arg, slot_out(st, b, i), len)) goto write_error;
    st->s->bytes_out += len;
  }
  st->s->chunks = b->first + upto;
  return GOSTX_OK;
write_error:
  snprintf(msg, msg_len, "write error");
  return GOSTX_EIO;
}

static void io_job(struct streamer *st) {
  st->wr_rc = st->rd_rc = GOSTX_OK;
  if (st->wr)
    st->wr_rc = write_batch(st, st->wr, st->wr->n, 0, st->wr_next, st->io_msg, sizeof st->io_msg);
  if (st->rd && st->wr_rc == GOSTX_OK)
    st->rd_rc = read_batch(st, st->rd, st->rd_first, st->io_msg, sizeof st->io_msg);
}

static void *io_thread(void *arg) {
  io_job(arg);
  return NULL;
}

/* Explains why chunk i of b failed to open (decryption), in s->msg. */
static int explain_failure(struct streamer *st, struct batch *b, size_t i) {
  gostx_file_stream *s = st->s;
  const gostx_file *file = st->file;
  uint64_t ci = b->first + i;
  const uint8_t *p = slot_in(st, b, i);
  uint8_t *o = slot_out(st, b, i);
  size_t len = b->lens[i], tag = file->tag_len;
  int final = b->last_final && i + 1 == b->n;
  s->fail_chunk = ci;
  /* Second attempts only choose the message; they release nothing. */
  if (len < tag) {
    snprintf(s->msg, sizeof s->msg, "truncated file: chunk %llu is incomplete (%zu bytes)",
             (unsigned long long)ci, len);
    return GOSTX_EFORMAT;
  }
  if (final && len == st->rec && gostx_file_open_chunk(file, ci, 0, p, len, o) == 0) {
    snprintf(s->msg, sizeof s->msg,
             "truncated file: chunk %llu is not the final chunk (cut at a chunk boundary)",
             (unsigned long long)ci);
    return GOSTX_EFORMAT;
  }
  if (!final && gostx_file_open_chunk(file, ci, 1, p, len, o) == 0) {
    snprintf(s->msg, sizeof s->msg, "trailing data after final chunk %llu", (unsigned long long)ci);
    return GOSTX_EFORMAT;
  }
  if (final)
    snprintf(s->msg, sizeof s->msg,
             "authentication failed: chunk %llu (final chunk: corrupted, truncated or followed "
             "by extra data)",
             (unsigned long long)ci);
  else
    snprintf(s->msg, sizeof s->msg, "authentication failed: chunk %llu", (unsigned long long)ci);
  return GOSTX_EAUTH;
}

/* A batch buffer: the pad's room, cap slots, rounded to whole pages. */
static size_t buf_bytes(const struct streamer *st) {
  const size_t b = OUT_ALIGN + st->cap * st->stride;
  return b + (OUT_ALIGN - b % OUT_ALIGN) % OUT_ALIGN;
}

/* ---- input in memory, on a pool: no barrier between batches ----
 * With the whole input at hand, every chunk's place is known in advance: the
 * pool's threads claim chunks in order across the whole file (an atomic
 * counter) and seal or open each into the buffer of its group (cap chunks,
 * the batches above), waiting only when that buffer still holds the group
 * two before; the calling thread writes each group once all its chunks are
 * done (and calls progress), then hands the buffer to the group two on. Where
 * batches end at a barrier, a thread would idle while the last chunk of a
 * batch finishes; here it goes on with the next group. */

struct flow {
  struct streamer *st;
  uint64_t nchunks, ngroups;
  uint64_t host[2]; /* the group buffer k holds now */
  size_t done[2];   /* its chunks finished */
  atomic_ullong next;
  atomic_int stop;
  pthread_mutex_t mu;
  pthread_cond_t to_workers, to_writer;
};

/* Sets st->b[k] up for group g: its chunks, their input, its pad. */
static void flow_group(struct flow *f, int k, uint64_t g) {
  struct streamer *st = f->st;
  struct batch *b = &st->b[k];
  const uint64_t first = g * st->cap, len = st->s->in_mem_len;
  const uint64_t start = (st->decrypt ? 0 : GOSTX_FILE_HEADER_LEN) +
                         first * (st->decrypt ? st->stride : st->rec); /* output offset */
  b->first = first;
  b->n = (size_t)(f->nchunks - first < st->cap ? f->nchunks - first : st->cap);
  b->in_off = first * st->unit;
  b->pad = (size_t)(start % OUT_ALIGN);
  b->last_final = g + 1 == f->ngroups;
  for (size_t i = 0; i < b->n; i++) b->lens[i] = st->unit;
  if (b->last_final) b->lens[b->n - 1] = (size_t)(len - (f->nchunks - 1) * st->unit);
  if (b->n > b->touched) b->touched = b->n;
  f->done[k] = 0;
  f->host[k] = g;
}

static void flow_worker(void *arg, size_t unused) {
  struct flow *f = arg;
  (void)unused;
  for (;;) {
    const uint64_t i = atomic_fetch_add(&f->next, 1);
    if (i >= f->nchunks || atomic_load(&f->stop)) return;
    const uint64_t g = i / f->st->cap;
    const int k = (int)(g & 1);
    pthread_mutex_lock(&f->mu);
    while (f->host[k] != g && !atomic_load(&f->stop)) pthread_cond_wait(&f->to_workers, &f->mu);
    pthread_mutex_unlock(&f->mu);
    if (atomic_load(&f->stop)) return;
    struct task t = {f->st, &f->st->b[k]};
    batch_task(&t, (size_t)(i - g * f->st->cap));
    pthread_mutex_lock(&f->mu);
    if (++f->done[k] == f->st->b[k].n) pthread_cond_signal(&f->to_writer);
    pthread_mutex_unlock(&f->mu);
  }
}

static void *flow_runner(void *arg) {
  struct flow *f = arg;
  const unsigned t = gostx_pool_size(f->st->s->pool);
  gostx_pool_run(f->st->s->pool, t, flow_worker, f);
  return NULL;
}

static void flow_stop(struct flow *f) {
  pthread_mutex_lock(&f->mu);
  atomic_store(&f->stop, 1);
  pthread_cond_broadcast(&f->to_workers);
  pthread_mutex_unlock(&f->mu);
}

/* The stream when the flow applies (input in memory, a pool of 2 or more):
 * 1 = not started (run the batches instead), else the stream's result. */
static int flow_stream(struct streamer *st) {
  gostx_file_stream *s = st->s;
  const uint64_t len = s->in_mem_len;
  if (!s->in_mem || !s->pool || gostx_pool_size(s->pool) < 2 || (st->decrypt && len == 0))
    return 1;
  struct flow f;
  memset(&f, 0, sizeof f);
  f.st = st;
  f.nchunks = len == 0 ? 1 : (len - 1) / st->unit + 1;
  if (f.nchunks > GOSTX_FILE_MAX_CHUNKS) return 1; /* the batches say why */
  f.ngroups = (f.nchunks - 1) / st->cap + 1;
  atomic_init(&f.next, 0);
  atomic_init(&f.stop, 0);
  if (pthread_mutex_init(&f.mu, NULL)) return 1;
  if (pthread_cond_init(&f.to_workers, NULL)) {
    pthread_mutex_destroy(&f.mu);
    return 1;
  }
  if (pthread_cond_init(&f.to_writer, NULL)) {
    pthread_cond_destroy(&f.to_workers);
    pthread_mutex_destroy(&f.mu);
    return 1;
  }
  flow_group(&f, 0, 0);
  if (f.ngroups > 1) flow_group(&f, 1, 1);
  int rc = 1;
  pthread_t th;
  if (pthread_create(&th, NULL, flow_runner, &f) != 0) goto out;
  rc = GOSTX_OK;
  for (uint64_t g = 0; g < f.ngroups && rc == GOSTX_OK; g++) {
    const int k = (int)(g & 1);
    struct batch *b = &st->b[k];
    pthread_mutex_lock(&f.mu);
    while (f.done[k] < b->n) pthread_cond_wait(&f.to_writer, &f.mu);
    pthread_mutex_unlock(&f.mu);
    size_t ok = 0;
    while (ok < b->n && b->rcs[ok] == GOSTX_OK) ok++;
    if (ok < b->n) {
      if (st->decrypt) { /* the verified prefix, then why */
        rc = write_batch(st, b, ok, 1, NULL, s->msg, sizeof s->msg);
        if (rc == GOSTX_OK) rc = explain_failure(st, b, ok);
      } else {
        s->fail_chunk = b->first + ok;
        snprintf(s->msg, sizeof s->msg, "chunk %llu: %s", (unsigned long long)s->fail_chunk,
                 gostx_strerror(b->rcs[ok]));
        rc = b->rcs[ok];
      }
      break;
    }
    rc = write_batch(st, b, b->n, b->last_final, &st->b[k ^ 1], s->msg, sizeof s->msg);
    if (rc) break;
    st->in_bytes = (st->decrypt ? GOSTX_FILE_HEADER_LEN : 0) + b->in_off;
    for (size_t i = 0; i < b->n; i++) st->in_bytes += b->lens[i];
    if (s->progress) s->progress(s->progress_arg, st->in_bytes);
    if (g + 2 < f.ngroups) {
      pthread_mutex_lock(&f.mu);
      flow_group(&f, k, g + 2);
      pthread_cond_broadcast(&f.to_workers);
      pthread_mutex_unlock(&f.mu);
    }
  }
  flow_stop(&f);
  pthread_join(th, NULL);
out:
  pthread_cond_destroy(&f.to_writer);
  pthread_cond_destroy(&f.to_workers);
  pthread_mutex_destroy(&f.mu);
  return rc;
}

static int stream(const gostx_file *file, gostx_file_stream *s, int decrypt) {
  if (!s) return GOSTX_EINVAL;
  s->chunks = s->bytes_out = s->fail_chunk = 0;
  s->msg[0] = 0;
  if (!file || !file->tag_len || (!s->in && !s->in_mem) || !s->write) {
    snprintf(s->msg, sizeof s->msg, "invalid arguments");
    return GOSTX_EINVAL;
  }
  struct streamer st;
  memset(&st, 0, sizeof st);
  st.file = file;
  st.s = s;
  st.decrypt = decrypt;
  st.rec = (size_t)file->h.chunk_size + file->tag_len;
  st.unit = decrypt ? st.rec : file->h.chunk_size;
  st.contig = !decrypt || s->in_mem;
  st.stride = decrypt && s->in_mem ? file->h.chunk_size : st.rec;
  st.in_bytes = decrypt ? GOSTX_FILE_HEADER_LEN : 0;
  size_t n = s->batch;
  if (!n && !s->pool) n = 2; /* no overlap without a pool: more buys nothing */
  if (!n) {
    const size_t t = gostx_pool_size(s->pool);
    n = BATCH_PER_THREAD * t;
    if (n > BATCH_BYTES_SOFT / 2 / st.rec) n = BATCH_BYTES_SOFT / 2 / st.rec;
    if (n < 2 * t) n = 2 * t;
    n -= n % t; /* every thread the same share: no thread idles at the barrier */
  }
  if (n > BATCH_BYTES_MAX / 2 / st.rec) n = BATCH_BYTES_MAX / 2 / st.rec;
  if (n < 1) n = 1;
  st.cap = s->batch = n;
  int rc = GOSTX_OK;
  for (int k = 0; k < 2; k++) {
    st.b[k].buf = aligned_alloc(OUT_ALIGN, buf_bytes(&st));
    st.b[k].lens = calloc(n, sizeof *st.b[k].lens);
    st.b[k].rcs = calloc(n, sizeof *st.b[k].rcs);
    if (!st.b[k].buf || !st.b[k].lens || !st.b[k].rcs) rc = GOSTX_ENOMEM;
  }
  if (rc) {
    snprintf(s->msg, sizeof s->msg, "out of memory");
    goto out;
  }
  if (!decrypt) { /* the header goes out in front of the first batch */
    memcpy(st.b[0].buf, file->header, GOSTX_FILE_HEADER_LEN);
    st.rd_held = GOSTX_FILE_HEADER_LEN;
  }
  if ((rc = flow_stream(&st)) != 1) goto out;
  rc = read_batch(&st, &st.b[0], 0, s->msg, sizeof s->msg);
  if (rc) goto out;
  struct batch *cur = &st.b[0], *other = &st.b[1], *prev = NULL;
  for (;;) {
    /* I/O for the neighbours of cur: write prev, read the batch after cur. */
    st.wr = prev;
    st.wr_next = cur;
    st.rd = cur->last_final ? NULL : other;
    st.rd_first = cur->first + cur->n;
    pthread_t th;
    int async = s->pool && (st.wr || st.rd) && pthread_create(&th, NULL, io_thread, &st) == 0;
    if (!async) io_job(&st);
    run_batch(&st, cur);
    if (async) pthread_join(th, NULL);
    if (st.wr_rc) { /* prev could not be written: stop there */
      memcpy(s->msg, st.io_msg, sizeof s->msg);
      rc = st.wr_rc;
      goto out;
    }
    size_t ok = 0;
    while (ok < cur->n && cur->rcs[ok] == GOSTX_OK) ok++;
    if (ok < cur->n) {
      if (decrypt) {
        /* Release the verified prefix, then report the first failure. */
        rc = write_batch(&st, cur, ok, 1, NULL, s->msg, sizeof s->msg);
        if (rc == GOSTX_OK) rc = explain_failure(&st, cur, ok);
      } else {
        s->fail_chunk = cur->first + ok;
        snprintf(s->msg, sizeof s->msg, "chunk %llu: %s", (unsigned long long)s->fail_chunk,
                 gostx_strerror(cur->rcs[ok]));
        rc = cur->rcs[ok];
      }
      goto out;
    }
    if (st.rd_rc) { /* cur is fine; the input after it is not */
      memcpy(s->msg, st.io_msg, sizeof s->msg);
      rc = st.rd_rc;
      goto out;
    }
    if (s->progress) s->progress(s->progress_arg, st.in_bytes);
    if (cur->last_final) {
      rc = write_batch(&st, cur, cur->n, 1, NULL, s->msg, sizeof s->msg);
      goto out;
    }
    prev = cur;
    cur = other;
    other = prev;
  }
out:
  for (int k = 0; k < 2; k++) {
    if (st.b[k].buf) /* plaintext */
      gostx_memzero(st.b[k].buf, OUT_ALIGN + st.b[k].touched * st.stride);
    free(st.b[k].buf);
    free(st.b[k].lens);
    free(st.b[k].rcs);
  }
  return rc;
}

int gostx_file_encrypt_stream(const gostx_file *file, gostx_file_stream *s) { return stream(file, s, 0); }

int gostx_file_decrypt_stream(const gostx_file *file, gostx_file_stream *s) { return stream(file, s, 1); }
