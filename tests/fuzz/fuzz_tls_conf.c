/* libFuzzer harness: the `gostx tls serve -c FILE` reader (cli/tls/tls_file.c),
 * in process: the input is the file. Only the reading: nothing is listened
 * on or loaded (the files it names are the options' business, read by the
 * code the command line uses too).
 *
 * Finds: crashes, ASan/UBSan reports, leaks and hangs in the line splitting,
 * sections, keys and their table. Checked besides: a file taken has at
 * least one service, each with a valid name and the line of its [NAME]
 * within the file; a refusal leaves nothing allocated. stderr is closed by
 * run_fuzz.sh (-close_fd_mask=2). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tls_cli.h"
#define FUZZ_NAME "fuzz_tls_conf"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  size_t lines;
  const char *path = fuzz_input_file(data, size, &lines);
  struct tls_file tf;
  int rc = tls_file_read(path, &tf);
  if (rc != 0 && rc != CLI_EXIT_USAGE) abort();
  if (rc != 0 && (tf.text || tf.svc || tf.n)) abort();
  if (rc == 0 && !tf.n) abort();
  for (size_t i = 0; rc == 0 && i < tf.n; i++)
    if (!tf.svc[i].name[0] || !tf.svc[i].line || tf.svc[i].line > lines) abort();
  tls_file_free(&tf);
  return 0;
}
