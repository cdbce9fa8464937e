/* The checks the legacy hashes' tests share (SHA-1 in test_pkcs12_legacy.c,
 * SHA-256 in test_kdf.c): their standard's examples, a million 'a' hashed
 * in pieces, and any split of a message against the one-shot digest. */
#ifndef GOSTX_MD_KAT_H
#define GOSTX_MD_KAT_H

#include <stddef.h>
#include <stdint.h>

/* A message and its digest in hex. */
typedef struct t_md_vector {
  const char *msg, *digest;
} t_md_vector;

/* A hash under test: its one-shot call, and its streaming calls on ctx (a
 * context the test holds, of the hash's own type). */
typedef struct t_md {
  const char *name; /* for the failures: "SHA-256" */
  size_t len;       /* digest bytes, at most 64 */
  void (*oneshot)(const void *data, size_t n, uint8_t *out);
  void (*init)(void *ctx);
  void (*update)(void *ctx, const void *data, size_t n);
  void (*final)(void *ctx, uint8_t *out);
  void *ctx;
} t_md;

/* v[n] each hashed at once; a million 'a' (1000 updates of 1000) against
 * million (hex); then every length 0..300 of random bytes from an odd
 * address, split at a random point, against the one-shot digest. */
void t_md_check(const t_md *md, const t_md_vector *v, size_t n, const char *million);

#endif
