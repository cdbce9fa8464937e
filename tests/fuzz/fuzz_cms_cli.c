/* libFuzzer harness: `gostx cms`'s read paths in process, through the
 * command's real entry point (cli/main.c's main, renamed gostx_cli_main
 * in the fuzz build, as fuzz_cli): the whole-file and streamed PEM/DER
 * readers, -inform, -cmsout [-print], -verify (streamed and -content),
 * -digest_verify, -decrypt (the TC26 A.2.3 recipient's key, so its
 * message decrypts whole), -EncryptedData_decrypt (the A.4 key),
 * -tsa-query and -tsa-reply. Issue 67: a refused PEM input was freed
 * twice, and nothing fuzzed these paths.
 *
 * Input: byte 0 the operation (mod 10), byte 1 -inform (mod 3: told
 * apart, PEM, DER), bytes 2-3 the length L of the message (big-endian,
 * cut to what is there); then the message, written to "input"; the rest
 * is the second file ("second": -content, -tsa-reply's reply). Everything
 * runs in a private scratch directory, emptied after each run but for the
 * key. An exit status other than 0, 1, 2 or 4 is a bug, as a crash, an
 * ASan/UBSan report or a leak is. */
#include <stdint.h>

#include "fuzz_scratch.h"

int gostx_cli_main(int argc, char **argv);

/* R 1323565.1.025-2019 A.2.3's recipient (tests/vectors/tc26_cms/recipient256_key.pem) */
static const char key_pem[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MEgCAQAwIQYIKoUDBwEBAQEwFQYJKoUDBwECAQEBBggqhQMHAQECAgQgzre/jOVK\n"
    "ur0vHHsZfkIQhvXkUYzK8cOrSxG88h/cyA0=\n"
    "-----END PRIVATE KEY-----\n";
/* the A.4 examples' EncryptedData key (tests/vectors/tc26_cms/encryption_key.hex) */
static const char secret_hex[] = "8F5EEF8814D228FB2BBC5612323730CFA33DB7263CC2C0A01A6C6953F33D61D5";

static void write_file(const char *name, const void *p, size_t n) {
  FILE *f = fopen(name, "wb");
  if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f)) abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  scratch_enter("cms-cli");
  scratch_keep = "key.pem";
  write_file("key.pem", key_pem, sizeof key_pem - 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const informs[] = {NULL, "PEM", "DER"};
  if (size < 4 || size > 1 << 16) return 0;
  size_t len = (size_t)data[2] << 8 | data[3];
  if (len > size - 4) len = size - 4;
  write_file("input", data + 4, len);
  write_file("second", data + 4 + len, size - 4 - len);

  char *argv[24];
  int argc = 0;
  argv[argc++] = "gostx";
  argv[argc++] = "cms";
  switch (data[0] % 10) {
    case 0: argv[argc++] = "-cmsout"; break;
    case 1: argv[argc++] = "-cmsout", argv[argc++] = "-print"; break;
    case 2: argv[argc++] = "-verify", argv[argc++] = "-noverify"; break; /* streamed */
    case 3: argv[argc++] = "-verify", argv[argc++] = "-noverify", argv[argc++] = "-content", argv[argc++] = "second"; break;
    case 4: argv[argc++] = "-digest_verify"; break;
    case 5: argv[argc++] = "-decrypt", argv[argc++] = "-inkey", argv[argc++] = "key.pem"; break;
    case 6: argv[argc++] = "-EncryptedData_decrypt", argv[argc++] = "-secretkey", argv[argc++] = (char *)secret_hex; break;
    case 7: argv[argc++] = "-tsa-query", argv[argc++] = "query"; break;
    case 8: argv[argc++] = "-tsa-reply", argv[argc++] = "second", argv[argc++] = "-noverify"; break;
    default: argv[argc++] = "-cmsout", argv[argc++] = "-outform", argv[argc++] = "DER"; break;
  }
  if (informs[data[1] % 3]) argv[argc++] = "-inform", argv[argc++] = (char *)informs[data[1] % 3];
  argv[argc++] = "-in", argv[argc++] = "input";
  if (data[0] % 10 != 7) argv[argc++] = "-out", argv[argc++] = "out";
  argv[argc] = NULL;

  int rc = gostx_cli_main(argc, argv);
  if (rc < 0 || rc == 3 || rc > 4) {
    fprintf(stderr, "fuzz_cms_cli: exit code %d\n", rc);
    abort();
  }
  fflush(stdout);
  clearerr(stdout);
  empty_scratch();
  return 0;
}
