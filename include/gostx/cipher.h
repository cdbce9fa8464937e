/* gostx: block ciphers Kuznyechik and Magma (GOST R 34.12-2015), GOST 28147-89,
 * and the generic cipher handle that the modes take. Part of the public API.
 *
 * Byte order: blocks and keys are the byte strings of the standard's examples,
 * read left to right (RFC 7801, RFC 8891). GOST 28147-89 uses its own
 * little-endian convention (RFC 5830, CryptoPro, gost-engine's gost89). */
#ifndef GOSTX_CIPHER_H
#define GOSTX_CIPHER_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GOSTX_KEY_LEN 32
#define GOSTX_KUZ_BLOCK_LEN 16
#define GOSTX_MAGMA_BLOCK_LEN 8
#define GOSTX_MAX_BLOCK_LEN 16

/* ---- Kuznyechik (128-bit block, 256-bit key) ---- */

/* Expanded key. ek: the ten round keys K1..K10 as byte strings.
 * dk: decryption helper keys (implementation-defined; L^-1 applied where a
 * fast path wants it). Treat as opaque; wipe with gostx_kuz_clear. */
typedef struct gostx_kuz_key {
  GOSTX_ALIGNAS(64) uint8_t ek[10][16];
  GOSTX_ALIGNAS(64) uint8_t dk[10][16];
} gostx_kuz_key;

GOSTX_API int gostx_kuz_set_key(gostx_kuz_key *k, const uint8_t key[GOSTX_KEY_LEN]);
/* nblocks blocks of 16 bytes; in and out may be equal (in place) or unaligned. */
GOSTX_API void gostx_kuz_encrypt_blocks(const gostx_kuz_key *k, const uint8_t *in, size_t nblocks,
                                        uint8_t *out);
GOSTX_API void gostx_kuz_decrypt_blocks(const gostx_kuz_key *k, const uint8_t *in, size_t nblocks,
                                        uint8_t *out);
GOSTX_API void gostx_kuz_clear(gostx_kuz_key *k);

/* ---- GOST 28147-89 S-box parameter sets ---- */
typedef enum gostx_sbox {
  GOSTX_SBOX_TC26_Z = 0,        /* id-tc26-gost-28147-param-Z (Magma's S-box) */
  GOSTX_SBOX_CRYPTOPRO_A = 1,   /* id-Gost28147-89-CryptoPro-A-ParamSet */
  GOSTX_SBOX_CRYPTOPRO_B = 2,   /* id-Gost28147-89-CryptoPro-B-ParamSet */
  GOSTX_SBOX_CRYPTOPRO_C = 3,   /* id-Gost28147-89-CryptoPro-C-ParamSet */
  GOSTX_SBOX_CRYPTOPRO_D = 4,   /* id-Gost28147-89-CryptoPro-D-ParamSet */
  GOSTX_SBOX_TEST_3411_94 = 5,  /* id-GostR3411-94-TestParamSet */
  GOSTX_SBOX_TEST_28147 = 6,    /* id-Gost28147-89-TestParamSet */
  GOSTX_SBOX_CRYPTOPRO_3411_94 = 7, /* id-GostR3411-94-CryptoProParamSet */
  GOSTX_SBOX_COUNT
} gostx_sbox;
/* Look up by name ("Z", "tc26-z", "cryptopro-a", "A", "test", ...), ASN.1 name
 * ("id-Gost28147-89-CryptoPro-A-ParamSet") or dotted OID ("1.2.643.2.2.31.1"),
 * case-insensitive; -1 if unknown. */
GOSTX_API int gostx_sbox_by_name(const char *name);
/* Canonical name of a parameter set ("tc26-z", "cryptopro-a", ..., "test-3411-94"). */
GOSTX_API const char *gostx_sbox_name(gostx_sbox sbox);

/* ---- Magma (64-bit block, 256-bit key) and GOST 28147-89 ----
 * One Feistel core. gostx_magma_* is GOST R 34.12-2015 (S-box Z, big-endian
 * words). gostx_gost89_* is GOST 28147-89 with a chosen S-box and the
 * little-endian conventions of RFC 5830. */
typedef struct gostx_magma_key {
  uint32_t rk[8];     /* K1..K8 as 32-bit words */
  gostx_sbox sbox_id; /* public, not secret */
  uint32_t le;        /* 1 = GOST 28147-89 little-endian byte convention */
} gostx_magma_key;

GOSTX_API int gostx_magma_set_key(gostx_magma_key *k, const uint8_t key[GOSTX_KEY_LEN]);
GOSTX_API void gostx_magma_encrypt_blocks(const gostx_magma_key *k, const uint8_t *in,
                                          size_t nblocks, uint8_t *out);
GOSTX_API void gostx_magma_decrypt_blocks(const gostx_magma_key *k, const uint8_t *in,
                                          size_t nblocks, uint8_t *out);
GOSTX_API void gostx_magma_clear(gostx_magma_key *k);

typedef gostx_magma_key gostx_gost89_key;
/* sbox: enum gostx_sbox. Blocks/keys in the RFC 5830 little-endian convention. */
GOSTX_API int gostx_gost89_set_key(gostx_gost89_key *k, const uint8_t key[GOSTX_KEY_LEN],
                                   gostx_sbox sbox);
GOSTX_API void gostx_gost89_encrypt_blocks(const gostx_gost89_key *k, const uint8_t *in,
                                           size_t nblocks, uint8_t *out);
GOSTX_API void gostx_gost89_decrypt_blocks(const gostx_gost89_key *k, const uint8_t *in,
                                           size_t nblocks, uint8_t *out);
#define gostx_gost89_clear gostx_magma_clear

/* ---- Generic cipher handle: what the GOST R 34.13-2015 modes take ---- */
typedef struct gostx_cipher {
  gostx_alg id;     /* GOSTX_ALG_KUZNYECHIK or GOSTX_ALG_MAGMA (also GOST 28147-89) */
  size_t block_len; /* n/8: 16 or 8 */
  union {
    gostx_kuz_key kuz;
    gostx_magma_key magma;
  } u;
} gostx_cipher;

GOSTX_API int gostx_cipher_init(gostx_cipher *c, gostx_alg id, const uint8_t key[GOSTX_KEY_LEN]);
/* GOST 28147-89 as a cipher handle: the Magma core with the S-box set sbox
 * and the RFC 5830 byte convention (as gostx_gost89_set_key), id
 * GOSTX_ALG_MAGMA, 8-byte blocks; the GOST R 34.13 modes (ECB, CBC, ...) then
 * run on it. CryptoPro key meshing stays with the 1989 modes (gost89.h). */
GOSTX_API int gostx_cipher_init_gost89(gostx_cipher *c, const uint8_t key[GOSTX_KEY_LEN],
                                       gostx_sbox sbox);
GOSTX_API size_t gostx_cipher_block_len(const gostx_cipher *c);
GOSTX_API void gostx_cipher_encrypt_blocks(const gostx_cipher *c, const uint8_t *in,
                                           size_t nblocks, uint8_t *out);
GOSTX_API void gostx_cipher_decrypt_blocks(const gostx_cipher *c, const uint8_t *in,
                                           size_t nblocks, uint8_t *out);
GOSTX_API void gostx_cipher_clear(gostx_cipher *c);

/* sizeof of the structs above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_kuz_key(void);
GOSTX_API size_t gostx_sizeof_magma_key(void);
GOSTX_API size_t gostx_sizeof_cipher(void);

#ifdef __cplusplus
}
#endif
#endif
