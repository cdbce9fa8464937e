/* gostx cipher ALG-ctr on all cores: the input in 8 MiB pieces, each
 * encrypted in place on the pool at its block offset (gostx_ctr_crypt_mt_at),
 * while a helper thread writes the piece before it and reads the one after
 * it. Two buffers, allocated once; the same bytes as the one-thread stream
 * (whole-block segments only: a piece is a whole number of blocks, so only
 * the last one can end inside a block). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PIECE (8u << 20)

struct ctr_io {
  cli_in *in;
  cli_out *out;
  const uint8_t *wr; /* write wr[0, wr_len) first, when wr != NULL */
  size_t wr_len;
  uint8_t *rd;       /* then read up to PIECE bytes into rd, when rd != NULL */
  size_t rd_len;
  int wr_rc, rd_err;
};

static void *ctr_io_run(void *arg) {
  struct ctr_io *io = arg;
  io->wr_rc = io->rd_err = 0;
  if (io->wr) io->wr_rc = cli_out_write(io->out, io->wr, io->wr_len);
  if (io->rd && !io->wr_rc) io->rd_err = cli_in_try_read(io->in, io->rd, PIECE, &io->rd_len);
  return NULL;
}

int cli_cipher_ctr_parallel(const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                            unsigned threads, cli_in *in, cli_out *out) {
  uint8_t *buf[2] = {malloc(PIECE), malloc(PIECE)};
  gostx_pool *pool = threads == 1 ? NULL : gostx_pool_new(threads);
  const size_t n = gostx_cipher_block_len(c);
  struct ctr_io io = {.in = in, .out = out};
  size_t len = 0, hi[2] = {0, 0}; /* hi: bytes of each buffer ever used (the wipe) */
  uint64_t block = 0;
  int status = CLI_EXIT_FAIL, cur = 0;
  if (!buf[0] || !buf[1]) {
    cli_err("out of memory");
    goto done;
  }
  cli_out_bulk(out); /* writes happen on the helper thread: overlapped */
  int e = cli_in_try_read(in, buf[0], PIECE, &len);
  for (;;) {
    if (e) {
      cli_err("%s: read error: %s", in->name, strerror(e));
      goto done;
    }
    if (hi[cur] < len) hi[cur] = len;
    const int last = len < PIECE;
    io.rd = last ? NULL : buf[cur ^ 1];
    pthread_t th;
    int async = (io.wr || io.rd) && pthread_create(&th, NULL, ctr_io_run, &io) == 0;
    if (!async) ctr_io_run(&io);
    int rc = len ? gostx_ctr_crypt_mt_at(pool, c, iv, iv_len, block, buf[cur], len, buf[cur])
                 : GOSTX_OK;
    if (async) pthread_join(th, NULL);
    if (rc) {
      cli_err("ctr: %s", gostx_strerror(rc));
      goto done;
    }
    if (io.wr_rc) goto done; /* cli_out_write said why */
    if (last) {
      status = cli_out_write(out, buf[cur], len);
      break;
    }
    io.wr = buf[cur];
    io.wr_len = len;
    block += len / n;
    e = io.rd_err;
    len = io.rd_len;
    cur ^= 1;
  }
done:
  gostx_pool_free(pool);
  for (int k = 0; k < 2; k++) {
    if (buf[k]) gostx_memzero(buf[k], hi[k]); /* plaintext, when decrypting */
    free(buf[k]);
  }
  return status;
}
