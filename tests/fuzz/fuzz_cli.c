/* libFuzzer harness: the `gostx cipher` and `gostx mac` argument and input
 * handling, in process, through the command's real entry point (cli/main.c's
 * main, renamed gostx_cli_main in the fuzz build).
 *
 * Input: byte 0 picks the command (even: cipher, odd: mac); then the
 * arguments, one per line, up to the first NUL byte; the rest is the data,
 * written to the file "input" and given as stdin. Everything runs inside a
 * private scratch directory and an argument with a '/' is refused, so the
 * fuzzer can name files ("-i input", "-o out", "--out=x") but never leave
 * that directory; the directory is emptied after each run. stdout goes to
 * /dev/null; stderr is closed by run_fuzz.sh (-close_fd_mask=2).
 *
 * Finds: crashes, ASan/UBSan reports, leaks (libFuzzer's leak check) and
 * hangs in option parsing, hex/number parsing, the output-file logic and the
 * cipher/MAC front ends. An exit code other than 0, 1 or 2 is a bug too. */
#include <stdint.h>

#include "fuzz_scratch.h"

int gostx_cli_main(int argc, char **argv);

#define MAX_ARGS 40

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  scratch_enter("cli");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 1 << 16) return 0;
  const uint8_t *end = memchr(data + 1, 0, size - 1);
  size_t args_len = end ? (size_t)(end - data) - 1 : size - 1;
  const uint8_t *payload = end ? end + 1 : data + size;
  size_t payload_len = (size_t)(data + size - payload);

  char *text = malloc(args_len + 1);
  if (!text) return 0;
  memcpy(text, data + 1, args_len);
  text[args_len] = 0;
  if (strchr(text, '/')) { /* no paths outside the scratch directory */
    free(text);
    return 0;
  }
  char *argv[MAX_ARGS + 3];
  int argc = 0;
  argv[argc++] = "gostx";
  argv[argc++] = (data[0] & 1) ? "mac" : "cipher";
  for (char *p = text; argc < MAX_ARGS + 2;) {
    argv[argc++] = p;
    char *nl = strchr(p, '\n');
    if (!nl) break;
    *nl = 0;
    p = nl + 1;
  }
  argv[argc] = NULL;

  FILE *f = fopen("input", "wb");
  if (!f) abort();
  if (payload_len && fwrite(payload, 1, payload_len, f) != payload_len) abort();
  fclose(f);
  if (!freopen("input", "rb", stdin)) abort();

  int rc = gostx_cli_main(argc, argv);
  if (rc < 0 || rc > 2) {
    fprintf(stderr, "fuzz_cli: exit code %d\n", rc);
    abort();
  }
  fflush(stdout);
  clearerr(stdout);
  free(text);
  empty_scratch();
  return 0;
}
