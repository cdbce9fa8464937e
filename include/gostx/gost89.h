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

enum gostx_gost89_mode {
  GOSTX_GOST89_ECB = 1,
  GOSTX_GOST89_CNT = 2,
  GOSTX_GOST89_CFB = 3,
  GOSTX_GOST89_IMIT = 4
};

typedef struct gostx_gost89_ctx {
  gostx_gost89_key key;
  int mode, decrypt, meshing;
  uint8_t iv[8];       /* feedback register / counter state (N3,N4) / MAC state */
  uint8_t gamma[8];
  size_t gamma_pos;    /* bytes of gamma used */
  uint8_t buf[8];
  size_t buf_len;
  uint64_t processed;  /* bytes since the last key meshing */
  uint64_t total;
  int started;
} gostx_gost89_ctx;

/* ECB one-shot: len multiple of 8. */
GOSTX_API int gostx_gost89_ecb_encrypt(const gostx_gost89_key *k, const uint8_t *in,
                                       uint8_t *out, size_t len);
GOSTX_API int gostx_gost89_ecb_decrypt(const gostx_gost89_key *k, const uint8_t *in,
                                       uint8_t *out, size_t len);

/* Streaming CNT / CFB: iv 8 bytes; meshing: 1 = CryptoPro key meshing.
 * update writes exactly len bytes. CNT ignores decrypt. */
GOSTX_API int gostx_gost89_init(gostx_gost89_ctx *ctx, int mode, int decrypt,
                                const uint8_t key[GOSTX_KEY_LEN], int sbox,
                                const uint8_t iv[8], int meshing);
GOSTX_API int gostx_gost89_update(gostx_gost89_ctx *ctx, const uint8_t *in, size_t len,
                                  uint8_t *out);
GOSTX_API void gostx_gost89_ctx_clear(gostx_gost89_ctx *ctx);

/* One-shot CNT and CFB. */
GOSTX_API int gostx_gost89_cnt(const uint8_t key[GOSTX_KEY_LEN], int sbox, const uint8_t iv[8],
                               int meshing, const uint8_t *in, uint8_t *out, size_t len);
GOSTX_API int gostx_gost89_cfb(const uint8_t key[GOSTX_KEY_LEN], int sbox, const uint8_t iv[8],
                               int meshing, int decrypt, const uint8_t *in, uint8_t *out,
                               size_t len);

/* IMIT (MAC): 16-round core over 8-byte blocks, last block zero-padded;
 * iv NULL for the classic zero start (CryptoPro uses a non-zero IV for
 * meshing variants). mac_len 1..8 (4 is the classic). */
GOSTX_API int gostx_gost89_imit_init(gostx_gost89_ctx *ctx, const uint8_t key[GOSTX_KEY_LEN],
                                     int sbox, const uint8_t *iv, int meshing);
GOSTX_API int gostx_gost89_imit_update(gostx_gost89_ctx *ctx, const uint8_t *in, size_t len);
GOSTX_API int gostx_gost89_imit_final(gostx_gost89_ctx *ctx, uint8_t *mac, size_t mac_len);
GOSTX_API int gostx_gost89_imit(const uint8_t key[GOSTX_KEY_LEN], int sbox, const uint8_t *iv,
                                int meshing, const uint8_t *in, size_t len, uint8_t *mac,
                                size_t mac_len);

#ifdef __cplusplus
}
#endif
#endif
