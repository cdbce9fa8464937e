/* The shapes of the multi-key handles: what the kernels fill (their
 * schedule limits) and what the batch lanes (lib/bulk) hold on their stacks,
 * without the implementation tables. The calls on them are in
 * lib/kuznyechik/impl.h and lib/magma/impl.h, which only lib/bulk/lanes.c
 * of the layers above uses. Not installed. */
#ifndef GOSTX_BLOCKOPS_MULTIKEY_H
#define GOSTX_BLOCKOPS_MULTIKEY_H

#include "internal.h"

struct gostx_kuz_impl;
struct gostx_magma_impl;

/* Multi-key Kuznyechik (lib/kuznyechik/kuz.c): n <= GOSTX_KUZ_MK_MAX keys
 * prepared once, then calls of exactly n blocks, block i under keys[i]
 * (keys may repeat). Uses the implementation's mk path when it has one, and
 * otherwise its block function once per run of equal key pointers: the same
 * bytes either way. The keys must stay valid while the handle is used (the
 * fallback reads them). About 44 KiB: meant for a task's stack; wipe with
 * gostx__kuz_mk_clear. */
#define GOSTX_KUZ_MK_MAX 256
#define GOSTX_KUZ_MK_BYTES (41 * 1024)
typedef struct gostx_kuz_mk {
  _Alignas(64) unsigned char sched[GOSTX_KUZ_MK_BYTES];
  const struct gostx_kuz_impl *impl;
  int native; /* 1: impl->mk_* with sched; 0: the per-run fallback */
  size_t n, used; /* used: bytes of sched to wipe */
  const gostx_kuz_key *keys[GOSTX_KUZ_MK_MAX];
} gostx_kuz_mk;
/* Directions a schedule serves: mk_encrypt (ENC), mk_decrypt (DEC). */
enum { GOSTX__MK_ENC = 1, GOSTX__MK_DEC = 2, GOSTX__MK_BOTH = 3 };

/* A multi-key call's op (and that of lib/bulk's lanes): encrypt, decrypt,
 * or the 16-round IMIT core. */
enum { GOSTX__MAGMA_ENC = 0, GOSTX__MAGMA_DEC = 1, GOSTX__MAGMA_IMIT = 2 };

/* Multi-key Magma / GOST 28147-89 (lib/magma/magma.c), as gostx_kuz_mk:
 * n <= GOSTX_MAGMA_MK_MAX keys with one S-box set and byte convention, then
 * calls of exactly n blocks, block i under keys[i]. The keys must stay valid
 * while the handle is used (the fallback reads them). Wipe with
 * gostx__magma_mk_clear. */
#define GOSTX_MAGMA_MK_MAX 64
#define GOSTX_MAGMA_MK_BYTES (GOSTX_MAGMA_MK_MAX * 64)
typedef struct gostx_magma_mk {
  _Alignas(64) unsigned char sched[GOSTX_MAGMA_MK_BYTES];
  const struct gostx_magma_impl *impl;
  size_t n;
  const gostx_magma_key *keys[GOSTX_MAGMA_MK_MAX];
} gostx_magma_mk;

#endif
