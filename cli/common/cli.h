/* gostx command-line tool: shared helpers (option parsing, strict hex and
 * number parsing, input streams, crash-safe output files, error printing).
 *
 * Exit codes used everywhere:
 *   0  success
 *   1  I/O error, authentication failure, verification failure
 *   2  usage error (bad option, bad hex, wrong key/IV length, ...) */
#ifndef GOSTX_CLI_H
#define GOSTX_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "gostx.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* Size of the chunks in which streams are read and written. */
#define CLI_CHUNK (64 * 1024)

/* ---- errors ---- */
/* "gostx: <message>\n" on stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the message and returns CLI_EXIT_USAGE, for `return cli_usage(...)`. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Until called again with NULL, this thread's messages name where: "gostx:
 * WHERE: <message>" (one that begins "WHERE:" already is left as it is),
 * so the helpers' own lines (a file missing, a wrong password) say which
 * service of a config file they are about. */
void cli_err_scope(const char *where);
/* Why GOSTX_IMPL was not honoured as asked (an unknown name, a level the CPU
 * lacks) and what runs instead, with *value the value as printable text; NULL
 * (and *value NULL) when it was honoured or is unset. Makes the library's
 * choice: call after any setenv of GOSTX_IMPL. */
const char *cli_impl_note(const char **value);
/* Prints cli_impl_note() on stderr as a warning, at most once per process. */
void cli_impl_warn(void);

/* ---- option parsing ----
 * Long options (--name, --name=value, --name value), short options (-k value,
 * -kvalue), "--" ends options, "-" alone is a positional argument. */
enum { CLI_NOARG = 0, CLI_ARG = 1, CLI_PATH = 2 /* a file name: never empty */ };

typedef struct cli_opt {
  const char *long_name; /* without "--"; NULL ends the table */
  char short_name;       /* 0 = none */
  int has_arg;           /* CLI_NOARG / CLI_ARG / CLI_PATH */
  int id;                /* returned by cli_next */
} cli_opt;

typedef struct cli_parser {
  int argc;
  char **argv;
  int idx;            /* next argv element */
  const char *sub;    /* subcommand name, for messages */
  const char *pending; /* rest of a short-option cluster */
  int only_pos;       /* after "--" */
  const char *arg;    /* argument of the last option */
  const char *pos;    /* the positional argument when cli_next returns CLI_POS */
  const cli_opt *opt; /* the row of the option cli_next returned last */
} cli_parser;

#define CLI_END (-1)   /* no more arguments */
#define CLI_POS (-2)   /* positional argument in p->pos */
#define CLI_BAD (-3)   /* error already printed */

void cli_parser_init(cli_parser *p, const char *sub, int argc, char **argv);
int cli_next(cli_parser *p, const cli_opt *opts);

/* An option table that says where each value goes, so that a command's
 * parser is the table and its checks: cli_next_into stores an option's
 * argument (CLI_TO_STR: a const char *, as given) or its row's value
 * (CLI_TO_FLAG: an int) at offset off of the caller's struct, and returns
 * only the options without a place (CLI_TO_RET: help, one that needs work
 * at once), positional arguments, CLI_END and CLI_BAD. */
enum { CLI_TO_RET = 0, CLI_TO_STR, CLI_TO_FLAG };
typedef struct cli_field {
  cli_opt opt; /* its id matters only for CLI_TO_RET rows */
  int to;
  size_t off;
  int value;
} cli_field;
#define CLI_STR(type, member) CLI_TO_STR, offsetof(type, member), 0
#define CLI_FLAG(type, member, v) CLI_TO_FLAG, offsetof(type, member), (v)
#define CLI_RET CLI_TO_RET, 0, 0
int cli_next_into(cli_parser *p, const cli_field *fields, void *dst);
/* cli_parser_init that also takes openssl's single-dash long options
 * (-pubout, -out, -peer): each argv word "-NAME" where NAME is a long option
 * of opts with more than one letter is rewritten to "--NAME" (up to 16 of
 * them; static storage, one command per process). */
void cli_parser_init_openssl(cli_parser *p, const char *sub, int argc, char **argv,
                             const cli_opt *opts);

/* ---- strict parsing ---- */
/* Decodes hex (no spaces, even length, [0-9a-fA-F]) into a malloc'ed buffer
 * (never NULL on success, may be length 0). what names the option for
 * messages. Returns 0, or CLI_EXIT_USAGE after printing why. */
int cli_hex(const char *what, const char *hex, uint8_t **out, size_t *len);
/* Like cli_hex, but the decoded length must be exactly want bytes. */
int cli_hex_exact(const char *what, const char *hex, uint8_t *out, size_t want);
/* Decimal unsigned integer in [min, max]. Returns 0 or CLI_EXIT_USAGE. */
int cli_uint(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* The calling thread's CPU time in ns, for the daemons' timing modes (a
 * worker preempted inside a timed call is not charged for the wait). A
 * system call each (no vDSO for this clock): timing modes only. */
uint64_t cli_thread_cpu_ns(void);
int cli_size(const char *what, const char *s, size_t min, size_t max, size_t *out);
/* A size in bytes: "1048576", or with a suffix of powers of 1024: "64K",
 * "64KiB", "1M", "1MiB", "2G", "2GiB", "1T", "1TiB"; in [min, max]. */
int cli_parse_size(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Lowercase hex of len bytes followed by a newline to stdout. */
void cli_print_hex(const uint8_t *p, size_t len);
/* Writes lowercase hex (2*len chars, NUL-terminated) into out. */
void cli_hex_str(const uint8_t *p, size_t len, char *out);
/* Frees a key buffer after wiping it. */
void cli_free_secret(uint8_t *p, size_t len);

/* ---- sockets (cli/common/util.c) ---- */
struct sockaddr;
/* A TCP socket listening on sa (non-blocking, close-on-exec, the address
 * reusable at once; defer_s > 0: accepted once the first bytes are in,
 * TCP_DEFER_ACCEPT): its descriptor, or -1 with errno, nothing left open.
 * The services' one (ocsp -port, ts serve, tls serve/connect). */
int cli_listen(const struct sockaddr *sa, unsigned len, int backlog, int defer_s);

/* ---- secrets (cli/common/secret.c) ---- */
#define CLI_PASS_MAX 1024
/* Reads up to cap bytes of a file with read(2): no stdio buffer keeps a copy
 * of the secret. Returns the count, or -1 after printing why. */
long cli_read_secret_file(const char *path, uint8_t *buf, size_t cap);
/* Whether the secret file path (named opt in messages) is kept from group
 * and others: one they can access is refused, as ssh refuses such private
 * keys and the tunnel (insecure_key_file) and the disk filter
 * (insecure-key-file) refuse their key files, unless allow (then a warning;
 * allow_opt names the option that allows it). Only regular files are
 * judged ("-" is stdin); a missing one is left to its reader to report.
 * Returns 0, or CLI_EXIT_FAIL after printing. */
int cli_secret_file_private(const char *opt, const char *path, int allow, const char *allow_opt);
/* A passphrase (1..CLI_PASS_MAX bytes) from pass_file, one trailing "\n" or
 * "\r\n" dropped, or, pass_file NULL, typed on the terminal after prompt
 * with echo off (asked twice when confirm). pass: CLI_PASS_MAX + 2 bytes.
 * Returns 0, CLI_EXIT_USAGE (empty, too long) or CLI_EXIT_FAIL. */
int cli_read_pass(const char *pass_file, const char *prompt, int confirm, uint8_t *pass,
                  size_t *len);
/* The same rules for a passphrase read from descriptor fd_s (the value of
 * option fd_opt, e.g. "--pass-fd"), to its end. */
int cli_read_pass_fd(const char *fd_opt, const char *fd_s, uint8_t *pass, size_t *len);
/* A password as openssl's -pass/-passin/-passout take it (the value spec of
 * option opt): pass:PASSWORD (visible in ps: the --help texts say so),
 * file:PATH, fd:N, env:VAR or stdin; from a file, descriptor or variable the
 * first line (without "\n" or "\r\n"). 1..CLI_PASS_MAX bytes into
 * pass[CLI_PASS_MAX + 2]. 0, CLI_EXIT_USAGE or CLI_EXIT_FAIL. */
int cli_read_pass_arg(const char *opt, const char *spec, uint8_t *pass, size_t *len);
/* openssl's rule when -passin and -passout name the same file:, fd: or
 * stdin: its first line is the input password, its second the output one.
 * in and out: CLI_PASS_MAX + 2 bytes each. */
int cli_read_pass_lines(const char *opt, const char *spec, uint8_t *in, size_t *in_len,
                        uint8_t *out, size_t *out_len);
/* Parses fd_s, the value of option opt, as an open descriptor: *fd, and
 * "OPT N" in name for messages. 0, CLI_EXIT_USAGE or CLI_EXIT_FAIL (closed). */
int cli_secret_fd(const char *opt, const char *s, int *fd, char name[32]);
/* A raw key from file (--key-file), or, file NULL, from the descriptor fd_s
 * (the value of option fd_opt), read to its end: min..max bytes (min == max:
 * exactly that many) in *out (malloc'ed; cli_free_secret it), *len.
 * Returns 0, CLI_EXIT_USAGE (bad length, bad fd number) or CLI_EXIT_FAIL. */
int cli_read_secret(const char *file, const char *fd_opt, const char *fd_s, size_t min,
                    size_t max, uint8_t **out, size_t *len);
/* The key options of a command: exactly one of -k HEX, --key-file FILE,
 * --key-fd N given, and with stdin_is_data a key file that is not stdin.
 * 0, or CLI_EXIT_USAGE after one line that starts with name. */
int cli_key_source(const char *name, const char *hex, const char *file, const char *fd,
                   int stdin_is_data);
/* For --help texts: OPT (e.g. "-k HEX") is visible to other users; ALT
 * (e.g. "--key-file and --key-fd") keep the secret off the command line. */
#define CLI_ARGV_SECRET_NOTE(opt, alt)                                           \
  "Note: " opt " on the command line is visible to other users of this\n"      \
  "machine (ps, /proc/PID/cmdline); " alt " keep it off the command line.\n"

/* ---- input ---- */
typedef struct cli_in {
  FILE *f;
  const char *name; /* for messages: file name or "stdin" */
  int is_stdin;
  const uint8_t *map; /* cli_in_map: the file mapped, or NULL */
  uint64_t map_len;
  struct timespec mtime; /* at cli_in_map, to see a change */
} cli_in;

/* path NULL or "-" = stdin. Returns 0 or CLI_EXIT_FAIL after printing. */
int cli_in_open(cli_in *in, const char *path);
/* Reads up to cap bytes, filling the buffer unless at EOF. *got = 0 at EOF.
 * Returns 0 or CLI_EXIT_FAIL after printing. */
int cli_in_read(cli_in *in, uint8_t *buf, size_t cap, size_t *got);
/* The same without a message: 0 or an errno value (EISDIR for a directory;
 * a read stops at the error, *got saying how far it came). */
int cli_in_try_open(cli_in *in, const char *path);
int cli_in_try_read(cli_in *in, uint8_t *buf, size_t cap, size_t *got);
/* Reads the rest of the input into a malloc'ed buffer. */
int cli_in_read_all(cli_in *in, uint8_t **buf, size_t *len);
/* The same with room more bytes allocated after the data (for a tag). */
int cli_in_read_all_room(cli_in *in, size_t room, uint8_t **buf, size_t *len);
void cli_in_close(cli_in *in);
/* The one reader of a whole file for every command: how it is named in
 * messages ("OPT PATH", or "PATH" without opt), its most bytes (0: no
 * limit; more is refused after max + 1 of them are read) and whether that
 * refusal is a usage error (exit 2) rather than a failure (1). */
typedef struct cli_file {
  const char *opt;
  size_t max;
  int usage;
} cli_file;
/* The whole of path ("-" = stdin) in *buf (malloc'ed; NULL on failure) and
 * *len, how NULL for no limit: 0, or a CLI_EXIT_* code after printing. */
int cli_read_file(const char *path, const cli_file *how, uint8_t **buf, size_t *len);
/* Maps a regular input file read-only (whole; the cipher then reads it where
 * it lies instead of copying it in). 1 when mapped (in->map, in->map_len),
 * 0 when not (stdin, a pipe, an empty file, GOSTX_MMAP=0, mmap refused: read
 * through in->f as before). */
int cli_in_map(cli_in *in);
/* After the work on a mapped input: 0, or CLI_EXIT_FAIL after printing that
 * the file changed meanwhile (what was made from it must be discarded). A
 * file cut short meanwhile kills the process with SIGBUS instead (the output
 * is then never put in place). */
int cli_in_check_unchanged(cli_in *in, const char *sub);

/* ---- output (cli/common/out.c) ----
 * A regular output file is written to a temporary file in the same directory
 * (unnamed where the system allows) and put in place only by cli_out_commit:
 * data fsynced, then linked or renamed over the target, then the directory
 * fsynced. A failure or an interruption never leaves a partial file or a
 * temporary file and never touches an existing one. stdout and non-regular
 * files (devices, pipes) are written directly. */
#define CLI_OUT_NEW 1     /* never replace an existing file (keygen) */
#define CLI_OUT_PRIVATE 2 /* mode 0600 whatever the umask or the old file's mode */
#define CLI_OUT_TMP_MAX 256

typedef struct cli_out {
  FILE *f;
  const char *name; /* for messages: the path given, or "stdout" */
  int direct;       /* stdout, a device or a pipe: written as it comes */
  int flags;        /* CLI_OUT_* */
  int dir_fd;       /* the target's directory; -1 when direct */
  char *base;       /* the target's name in dir_fd (symbolic links followed) */
  char tmp[CLI_OUT_TMP_MAX]; /* the temporary file's name; "" while it has none */
  int failed;
  uint8_t *stage;   /* cli_out_bulk: page-aligned staging buffer, or NULL */
  size_t staged;    /* bytes in it */
  size_t stage_hi;  /* the most it ever held (what the wipe covers) */
  int odirect;      /* the descriptor has O_DIRECT set */
} cli_out;

/* path NULL or "-" = stdout. Returns 0 or CLI_EXIT_FAIL after printing. */
int cli_out_open(cli_out *out, const char *path, int flags);
int cli_out_write(cli_out *out, const void *buf, size_t len);
/* For a big sequential output (enc, dec): writes to a temporary file then
 * bypass the page cache (O_DIRECT, in whole staging buffers; the tail goes
 * through the cache at commit), which costs the CPU a copy instead of the
 * kernel's page-cache work. No effect on stdout, devices, or where the file
 * system refuses O_DIRECT. Call before the first write. */
void cli_out_bulk(cli_out *out);
/* Flushes, syncs and puts the file in place. Returns 0 or CLI_EXIT_FAIL. */
int cli_out_commit(cli_out *out);
/* Discards: removes the temporary file. Safe to call after commit (no-op). */
void cli_out_abort(cli_out *out);
/* len bytes to path ("-"/NULL = stdout) through cli_out (CLI_OUT_* flags):
 * 0 or CLI_EXIT_FAIL after printing. */
int cli_write_file(const char *path, const void *p, size_t len, int flags);
/* Whether a write error on stdout was already printed (main prints one
 * otherwise), and the reset at the start of a command. */
int cli_stdout_error_reported(void);
void cli_stdout_error_reset(void);

/* The files a command reads, for cli_refuse_same_file: path NULL = not
 * given, "-" = stdin; what names it in the message ("key file"). */
typedef struct cli_input {
  const char *path, *what;
} cli_input;
/* Refuses (CLI_EXIT_USAGE, one line) when the output (path, or stdout when
 * NULL or "-") is a regular file that is one of the inputs: same device and
 * inode, so hard and symbolic links are seen through. Call before any work. */
int cli_refuse_same_file(const char *sub, const char *out_path, const cli_input *ins, size_t n);

/* A JSON string literal of s on stdout (quotes, backslashes, controls escaped). */
void cli_json_str(const char *s);

/* ---- digests of many files (cli/hash_files.c) ---- */
typedef struct cli_hash_job {
  const char *path;  /* "-" = stdin */
  size_t digest_len; /* GOSTX_STREEBOG256_LEN or GOSTX_STREEBOG512_LEN (Streebog), 32 (gost94) */
  int gost94;        /* 1: GOST R 34.11-94 with S-box set `sbox`; 0: Streebog */
  int sbox;
  uint8_t digest[GOSTX_STREEBOG512_LEN];
  int err;           /* 0, or the errno of the failure */
  int read_err;      /* the failure was a read (not an open) */
  int done;
} cli_hash_job;
/* Digests jobs[0..n) on up to `threads` threads (0 = one per online CPU),
 * several files at once, and calls report(arg, job) for each in array order
 * as soon as it and every job before it are done (one call at a time, from
 * whichever thread finished the last of them). stdin ("-") is read by its
 * jobs one after another in array order, so only the first sees its data. */
void cli_hash_files(cli_hash_job *jobs, size_t n, unsigned threads,
                    void (*report)(void *arg, const cli_hash_job *job), void *arg);
/* The message of a failed job, on stderr. */
void cli_hash_job_error(const cli_hash_job *job);

/* ---- gostx cipher ALG-ctr on a pool (cli/cipher_ctr.c) ----
 * CTR with whole-block segments from in to out, reads and writes overlapped
 * with the cipher; threads 0 = one per CPU. Returns 0 or CLI_EXIT_FAIL after
 * printing. */
int cli_cipher_ctr_parallel(const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                            unsigned threads, cli_in *in, cli_out *out);

/* ---- certificate files (cli/common/certs.c) ---- */
/* certificates of the files one command reads together (openssl has no
 * limit; this one only bounds memory: about 0.4 MB per x509 verification) */
#define CLI_CERTS_MAX 1024
/* The certificates of files (PEM blocks, or one DER certificate): each
 * parsed over its own copy. */
typedef struct cli_cert_list {
  gostx_x509_cert c[CLI_CERTS_MAX];
  uint8_t *der[CLI_CERTS_MAX]; /* NULL for a view into another list's copy */
  size_t n;
} cli_cert_list;
/* How one command reads a certificate file: the file (its name in
 * messages, most bytes, refusals as usage errors); the most certificates
 * (0: CLI_CERTS_MAX) counting held ones the command has already; pem_only:
 * a file without CERTIFICATE blocks adds none (pkcs12 -export's -in, which
 * holds the key too) rather than being read as one DER certificate. */
typedef struct cli_certs_how {
  cli_file file;
  size_t most, held;
  int pem_only;
} cli_certs_how;
/* Appends the certificates of path ("-" = stdin) to l: its PEM CERTIFICATE
 * blocks, or the whole file as one DER certificate (empty, or PEM of other
 * kinds only: "no certificate in it"). how NULL: no size limit, at most
 * CLI_CERTS_MAX, refusals exit 1. 0, or a CLI_EXIT_* code after naming the
 * file and the block that did not parse. */
int cli_certs_read(const char *path, const cli_certs_how *how, cli_cert_list *l);
/* The same over the file's bytes, read already (req -CA looks for a key in them too). */
int cli_certs_parse(const char *path, const cli_certs_how *how, const uint8_t *buf, size_t len,
                    cli_cert_list *l);
/* cli_certs_read for a command that keeps the DER only: the copies
 * (malloc'ed, the caller's) appended to der[] and len[] at *n, which
 * counts toward how->most (how->held is *n). */
int cli_certs_read_der(const char *path, const cli_certs_how *how, uint8_t **der, size_t *len,
                       size_t *n);
/* cli_certs_read(path, NULL, l). */
int cli_load_certs(const char *path, cli_cert_list *l);
void cli_cert_list_free(cli_cert_list *l);

/* ---- GOST R 34.10-2012 key files (cli/common/key.c) ---- */
#define CLI_KEY_FILE_MAX 4096 /* far above any key file; more is refused */
/* The commands hold keys as the library's key object (gostx_gost3410_key:
 * the parameter set OID the file named stays in .oid and is written back;
 * gostx_gost3410_key_clear when done). */
/* Reads a PEM or DER key file ("-" = stdin) with read(2) into k. 0, or
 * CLI_EXIT_USAGE (a bad key, one line said why) or CLI_EXIT_FAIL (I/O). */
int cli_load_key(const char *path, gostx_gost3410_key *k);
/* The same, an encrypted private key decrypted with the password that
 * pass_spec gives (cli_read_pass_arg; pass_opt, e.g. "-passin", names it in
 * messages). A wrong password: CLI_EXIT_FAIL after one line. */
int cli_load_key_pass(const char *path, gostx_gost3410_key *k, const char *pass_opt,
                      const char *pass_spec);
/* The same with the password given (pw, pw_len) instead of read from a spec. */
int cli_load_key_pw(const char *path, gostx_gost3410_key *k, const uint8_t *pw, size_t pw_len);
/* 0 unless k is a GOST R 34.10-2001 key (one on a token whose hash
 * parameters are GOST R 34.11-94's): then CLI_EXIT_USAGE after one line
 * "WHAT: PATH is a GOST R 34.10-2001 key; WHAT needs GOST R 34.10-2012".
 * Every command that signs asks: its signatures are 2012 ones. */
int cli_key_2012(const char *what, const char *path, const gostx_gost3410_key *k);
/* 0 when k's private part can be written to a file; else CLI_EXIT_FAIL
 * after one line saying why ("sub: the private key is on a token ...").
 * An external key (gostx_gost3410_key_set_external) cannot: its d is not
 * here. No key file loads as one yet; the PKCS#11 URI will. */
int cli_key_exportable(const char *sub, const gostx_gost3410_key *k);
/* ---- keys on PKCS#11 tokens (cli/common/p11.c, docs/PKCS11.md) ----
 * The key of a pkcs11: URI as an external key of k (signing and VKO on
 * the token). The PIN: the URI's pin-source, else pass_spec (pass_opt
 * names it) or pw, else $GOSTX_PKCS11_PIN, else a prompt on the terminal;
 * a URI with pin-value is refused (exit 2). Each URI is opened once per
 * process. 0, CLI_EXIT_USAGE (bad URI, not a GOST key) or CLI_EXIT_FAIL
 * (module, token, PIN, no such key), after one line. */
int cli_p11_load_key(const char *uri, gostx_gost3410_key *k, const char *pass_opt,
                     const char *pass_spec, const uint8_t *pw, size_t pw_len);
/* The certificate the URI names (the key's URI names its certificate too:
 * same label and id), read without a login: DER in *der (malloc'ed). */
int cli_p11_cert(const char *uri, uint8_t **der, size_t *len);
/* ---- PKCS#12 where a key is taken (cli/common/pfx.c) ---- */
/* 1 when path (not stdin) is a PKCS#12 PFX file (DER, version 3). */
int cli_pfx_is(const char *path);
/* A PKCS#12 password: as cli_read_pass_arg, and "pass:" alone the empty
 * one (CryptoPro's exports and `openssl pkcs12 -passout pass:` use it). */
int cli_pfx_pass(const char *opt, const char *spec, uint8_t *pass, size_t *len);
/* Where cli_pfx_load puts the certificates: malloc'd copies appended at
 * der[*n], len[*n] (at most cap in all); the key's own first. */
typedef struct cli_pfx_certs {
  uint8_t **der;
  size_t *len, cap, *n;
} cli_pfx_certs;
/* The private key of the PFX at path (its MAC checked first), opened with
 * the password of pass_spec (cli_read_pass_arg; pass_opt names it), or pw;
 * with certs the certificates too (one must match the key). 0, or
 * CLI_EXIT_FAIL (a wrong password, I/O), CLI_EXIT_USAGE (a refused file),
 * after one line. */
int cli_pfx_load(const char *path, const char *pass_opt, const char *pass_spec,
                 const uint8_t *pw, size_t pw_len, gostx_gost3410_key *k, cli_pfx_certs *certs);
/* The PFX p (read from path) said: a warning for each certificate bag
 * lib/x509 refused (skipped), and *own the key's certificate bag (SIZE_MAX
 * none, or no key). A key that is not its certificates' (the file has
 * some): a warning naming them, or with need_pair an error and
 * CLI_EXIT_USAGE (need_pair and no certificate at all: the same). A
 * localKeyID that ties the key to another certificate than its own: a
 * warning. 0 otherwise. */
int cli_pfx_check(const char *path, const gostx_pkcs12 *p, int need_pair, size_t *own);

#endif
