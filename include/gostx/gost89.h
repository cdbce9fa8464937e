/* gostx: the GOST 28147-89 modes of 1989: simple replacement (ECB), counter
 * "gamma" with constants C1/C2 (CNT), gamma with feedback (CFB), and the IMIT
 * MAC; optional CryptoPro key meshing (RFC 4357 section 2.3) every 1024 bytes.
 * Little-endian conventions of RFC 5830. Part of the public API. */
#ifndef GOSTX_GOST89_H
#define GOSTX_GOST89_H

#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gostx_gost89_mode {
  GOSTX_GOST89_ECB = 1,
  GOSTX_GOST89_CNT = 2,
  GOSTX_GOST89_CFB = 3,
  GOSTX_GOST89_IMIT = 4
} gostx_gost89_mode;

typedef struct gostx_gost89_ctx {
  gostx_gost89_key key; /* replaced by each key meshing */
  gostx_gost89_mode mode;
  int decrypt, meshing;
  uint8_t iv[8];        /* CNT: counter N3||N4; CFB: feedback block; IMIT: MAC state */
  uint8_t gamma[8];     /* CNT/CFB: current gamma block */
  size_t gamma_pos;     /* gamma bytes used (8 = none left) */
  uint8_t buf[8];       /* IMIT: input not yet MACed */
  size_t buf_len;
  uint64_t processed;   /* bytes of gamma / MAC input under the current key */
  uint64_t total;       /* IMIT: blocks MACed so far */
  int started;          /* 1 after init, 2 after IMIT final; 0 = unusable */
} gostx_gost89_ctx;

/* ECB one-shot: len multiple of 8. */
GOSTX_API int gostx_gost89_ecb_encrypt(const gostx_gost89_key *k, const uint8_t *in, size_t len,
                                       uint8_t *out);
GOSTX_API int gostx_gost89_ecb_decrypt(const gostx_gost89_key *k, const uint8_t *in, size_t len,
                                       uint8_t *out);

/* Streaming CNT / CFB (and ECB, whose update takes multiples of 8 and no iv):
 * k: a key from gostx_gost89_set_key (copied: the ctx meshes its own copy;
 * a Magma key is GOSTX_EINVAL); iv 8 bytes; meshing: 1 = CryptoPro key meshing, as gost-engine does it:
 * before the gamma block at byte 1024*j (j >= 1) the key becomes
 * D_K(C) (RFC 4357 2.3.2) and the CNT counter / CFB feedback block is
 * re-encrypted under the new key. CNT: (N3,N4) = E(iv), then per block
 * N3 += 0x01010101 mod 2^32, N4 += 0x01010104 mod 2^32-1 (end-around carry).
 * update writes exactly len bytes; in == out is allowed. CNT ignores
 * decrypt. The ctx stays valid after an update error other than ESTATE. */
GOSTX_API int gostx_gost89_init(gostx_gost89_ctx *ctx, const gostx_gost89_key *k,
                                gostx_gost89_mode mode, int decrypt, const uint8_t iv[8],
                                int meshing);
GOSTX_API int gostx_gost89_update(gostx_gost89_ctx *ctx, const uint8_t *in, size_t len,
                                  uint8_t *out);
GOSTX_API void gostx_gost89_ctx_clear(gostx_gost89_ctx *ctx);

/* One-shot CNT and CFB. */
GOSTX_API int gostx_gost89_cnt(const gostx_gost89_key *k, const uint8_t iv[8], int meshing,
                               const uint8_t *in, size_t len, uint8_t *out);
GOSTX_API int gostx_gost89_cfb(const gostx_gost89_key *k, const uint8_t iv[8], int meshing,
                               int decrypt, const uint8_t *in, size_t len, uint8_t *out);

/* IMIT (MAC): 16-round core over 8-byte blocks, last block zero-padded;
 * iv NULL for the classic zero start (CryptoPro uses a non-zero IV for
 * meshing variants). mac_len 1..8 (4 is the classic): the first mac_len
 * bytes of the final state. As in CryptoPro and gost-engine (gost-mac,
 * gost-mac-12), a message of 1..8 bytes is MACed with a zero block appended
 * (the standard needs two blocks; libgcl3/pygost do not append it), an empty
 * message gives the IV; with meshing the key changes before the block at
 * byte 1024*j, the state is kept. final ends the ctx (then ESTATE). */
GOSTX_API int gostx_gost89_imit_init(gostx_gost89_ctx *ctx, const gostx_gost89_key *k,
                                     const uint8_t *iv, int meshing);
GOSTX_API int gostx_gost89_imit_update(gostx_gost89_ctx *ctx, const uint8_t *in, size_t len);
GOSTX_API int gostx_gost89_imit_final(gostx_gost89_ctx *ctx, uint8_t *mac, size_t mac_len);
GOSTX_API int gostx_gost89_imit(const gostx_gost89_key *k, const uint8_t *iv, int meshing,
                                const uint8_t *in, size_t len, uint8_t *mac, size_t mac_len);

/* sizeof of the structs above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_gost89_ctx(void);

#ifdef __cplusplus
}
#endif
#endif
