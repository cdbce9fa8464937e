/* Test support: a small JSON reader for tests/vectors, hex helpers,
 * check macros and a seeded random generator. Every test program ends with
 * `return t_done();`, which prints "N passed, N failed". */
#ifndef GOSTX_TESTUTIL_H
#define GOSTX_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch.h" /* lib/: GOSTX_ARCH_* */
#include "gostx.h"

/* ---- JSON (objects, arrays, strings, numbers, true/false/null) ---- */
typedef struct json json;
enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

json *json_parse(const char *text);        /* NULL on syntax error */
json *json_load(const char *path);          /* exits the test on failure */
void json_free(json *j);
enum json_type json_type_of(const json *j);
size_t json_len(const json *j);             /* array/object element count */
json *json_at(const json *j, size_t i);     /* array element / object value */
const char *json_key_at(const json *j, size_t i);
json *json_get(const json *obj, const char *key); /* NULL if absent */
const char *json_str(const json *j);        /* NULL if not a string */
double json_num(const json *j);             /* 0 if not a number; true = 1 */

/* Loads $GOSTX_VECTORS/<name> (default: tests/vectors relative to cwd). */
json *tv_load(const char *name);
/* The bytes of $GOSTX_VECTORS/<name> (malloc'ed, NUL after them, at most
 * 1 MiB); exits the test when it cannot be read. */
uint8_t *tv_file(const char *name, size_t *len);
/* The same for any path (a scratch PKI's files). */
uint8_t *t_read_file(const char *path, size_t *len);
/* The "cases" array of a vectors file. */
json *tv_cases(json *file);
/* The cases of a vectors file in turn (it.i: the index of the case, it.n:
 * how many there are):
 *   tv_iter it = tv_open("x.json");
 *   for (json *c; (c = tv_next(&it)) != NULL;) ...
 *   tv_close(&it); */
typedef struct tv_iter {
  json *file, *cases;
  size_t i, n;
} tv_iter;
tv_iter tv_open(const char *name);
json *tv_next(tv_iter *it); /* NULL after the last */
/* The next case whose string field key is value (NULL after the last). */
json *tv_next_where(tv_iter *it, const char *key, const char *value);
void tv_close(tv_iter *it);
/* Field accessors that exit the test with a message when the field is missing. */
const char *tv_str(const json *c, const char *key);
/* Decodes hex field `key` into a malloc'ed buffer (never NULL; may be length 0). */
uint8_t *tv_hex(const json *c, const char *key, size_t *len);
long long tv_int(const json *c, const char *key);

/* ---- hex ---- */
/* Decodes hex (no spaces) into out; returns length or -1 on bad input/capacity. */
long hex_decode(const char *hex, uint8_t *out, size_t cap);
uint8_t *hex_alloc(const char *hex, size_t *len);     /* exits on bad hex */
void hex_print(FILE *f, const uint8_t *p, size_t len);

/* ---- checks ---- */
extern int t_pass, t_fail;
void t_check(int ok, const char *file, int line, const char *fmt, ...);
#define CHECK(cond, ...) t_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
/* Compares buffers; on mismatch prints both in hex. */
int t_check_bytes(const uint8_t *got, const uint8_t *want, size_t len, const char *file, int line,
                  const char *what);
#define CHECK_BYTES(got, want, len, what) t_check_bytes((got), (want), (len), __FILE__, __LINE__, (what))
#define CHECK_RC(expr, want, what) \
  do { int rc_ = (expr); CHECK(rc_ == (want), "%s: rc %d (%s), want %d", (what), rc_, gostx_strerror(rc_), (want)); } while (0)
int t_done(void); /* prints the summary; returns the process exit code */

/* The next implementation row of alg (gostx__impl_row) from *i on that this
 * CPU can run, *i moved past it; NULL after the last. */
const void *t_next_usable(int alg, size_t *i);

/* ---- random (xoshiro-style; seed from GOSTX_TEST_SEED or a fixed default) ---- */
void t_rand_init(void);
uint64_t t_rand(void);
size_t t_rand_below(size_t n);
void t_rand_bytes(uint8_t *p, size_t len);
/* A random key and IV, and c under the key for alg (GOSTX_ALG_*): the
 * start of a test of one cipher's paths against each other. */
void t_rand_cipher(gostx_cipher *c, gostx_alg alg, uint8_t key[GOSTX_KEY_LEN], uint8_t iv[8]);
/* The next piece of a stream with left bytes to go, for a mode of n-byte
 * blocks: 1, up to 3 blocks (0 included), up to 700, or all that is left,
 * each a quarter of the time; never more than left. */
size_t t_rand_piece(size_t left, size_t n);
/* msg through an OMAC context made ready (gostx_omac_init or
 * gostx_omac_acpkm_init) in t_rand_piece's pieces, then its mac_len-byte
 * MAC: the streaming side of an OMAC test. */
void t_omac_pieces(gostx_omac_ctx *ctx, const uint8_t *msg, size_t len, size_t n, uint8_t *mac,
                   size_t mac_len);

/* What a test's waits and alarms are multiplied by on a busy or slow
 * machine (time_scale.c; never what it checks): GOSTX_TEST_TIME_SCALE, else
 * GOSTX_TEST_TIME_FACTOR (default 1) times the load per core, 1 to 8. */
unsigned t_time_scale(void);

/* The heap in use (bytes) as glibc counts it (mallinfo2: in the arenas
 * and mapped alone), and whether it is counted at all (0 under an
 * allocator that keeps no count, a sanitizer's: a memory check is then
 * skipped). */
size_t t_heap_used(void);
int t_heap_counted(void);

/* Whether name is one of gostx_levels() (the dispatcher's list). */
int t_is_level(const char *name);

/* ---- key objects from raw keys, for calls written inline ----
 * Each call expands into the next of 8 slots (so a few may appear in one
 * expression) and returns it, or NULL when the key is NULL or set_key fails
 * (bad S-box, bad id): the NULL then reaches the call under test. */
const gostx_gost89_key *t_gost89_key(const uint8_t *key, int sbox);
const gostx_cipher *t_cipher(int id, const uint8_t *key);

/* ---- a signing key made fresh, for the certificate, CRL and OCSP
 * writers' tests: its raw parts, its object and its public key as
 * SubjectPublicKeyInfo DER ---- */
typedef struct t_sign_key {
  gostx_gost3410_curve curve;
  uint8_t priv[64], pub[128], spki[GOSTX_GOST3410_DER_MAX];
  size_t spki_len;
  gostx_gost3410_key xk;
} t_sign_key;
void t_make_sign_key(gostx_gost3410_curve curve, t_sign_key *k);

#endif
