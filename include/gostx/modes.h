/* gostx: GOST R 34.13-2015 modes (ECB, CBC, CFB, OFB, CTR, MAC/OMAC), padding
 * procedures 1-3, and the ACPKM re-keying modes of R 1323565.1.017-2018
 * (RFC 8645): CTR-ACPKM and OMAC-ACPKM. Part of the public API.
 *
 * Parameters as the standard names them, in bytes: n = block length,
 * m = iv_len (shift-register length), s = segment length (1..n).
 * Byte strings are read left to right; counters and registers are big-endian. */
#ifndef GOSTX_MODES_H
#define GOSTX_MODES_H

#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GOSTX_MAX_IV_LEN 64 /* largest m accepted (bytes) */

/* Padding procedures of GOST R 34.13-2015 section 4.1. */
typedef enum gostx_padding {
  GOSTX_PAD_NONE = 0, /* input must be a block multiple where the mode needs one */
  GOSTX_PAD_1 = 1,    /* zeros up to a block multiple (nothing if already one); not removable */
  GOSTX_PAD_2 = 2,    /* one 0x80 byte then zeros, always; removable */
  GOSTX_PAD_3 = 3     /* procedure 2 only when len is not a block multiple; not removable */
} gostx_padding;

/* Pad len bytes of in into out (in and out may be equal; out has room for
 * len + n). *out_len receives the padded length. n: block length, 1..64. */
GOSTX_API int gostx_pad(gostx_padding padding, size_t n, const uint8_t *in, size_t len,
                        uint8_t *out, size_t *out_len);
/* Length of the message inside a procedure-2 padded buffer of len bytes (a
 * positive multiple of n, else GOSTX_ELEN). Scans the whole last block without
 * branching on its bytes. GOSTX_EPAD when the padding is malformed. */
GOSTX_API GOSTX_MUST_CHECK int gostx_unpad2(size_t n, const uint8_t *buf, size_t len,
                                            size_t *msg_len);

/* ---- One-shot calls. in and out may be equal (in place); otherwise they
 * must not overlap. Arguments are checked before anything is written. ---- */
/* ECB/CBC: len must be a multiple of n (GOSTX_ELEN otherwise; pad first with
 * gostx_pad, or use the streaming calls with a padding procedure). */
GOSTX_API int gostx_ecb_encrypt(const gostx_cipher *c, const uint8_t *in, size_t len, uint8_t *out);
GOSTX_API int gostx_ecb_decrypt(const gostx_cipher *c, const uint8_t *in, size_t len, uint8_t *out);
/* CBC: iv_len = m, a positive multiple of n, at most GOSTX_MAX_IV_LEN. */
GOSTX_API int gostx_cbc_encrypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                                const uint8_t *in, size_t len, uint8_t *out);
GOSTX_API int gostx_cbc_decrypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                                const uint8_t *in, size_t len, uint8_t *out);
/* CFB: iv_len = m with n <= m <= GOSTX_MAX_IV_LEN; s in 1..n; any len (a short
 * last segment is truncated). The register takes s bytes of ciphertext per
 * segment: R = LSB_{m-s}(R) || C_i. */
GOSTX_API int gostx_cfb_encrypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, size_t s,
                                const uint8_t *in, size_t len, uint8_t *out);
GOSTX_API int gostx_cfb_decrypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, size_t s,
                                const uint8_t *in, size_t len, uint8_t *out);
/* OFB: iv_len = m, a positive multiple of n (at most GOSTX_MAX_IV_LEN); s in
 * 1..n; any len. Encrypt = decrypt. */
GOSTX_API int gostx_ofb_crypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, size_t s,
                              const uint8_t *in, size_t len, uint8_t *out);
/* CTR: iv_len = n/2; s in 1..n; any len. Counter CTR_1 = IV || 0^{n/2},
 * incremented as an n-bit big-endian number mod 2^n. Encrypt = decrypt. */
GOSTX_API int gostx_ctr_crypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, size_t s,
                              const uint8_t *in, size_t len, uint8_t *out);
/* CTR-ACPKM (RFC 8645 section 6.2.2): section_len = N in bytes, a positive
 * multiple of n ("N MUST be divisible by n"); iv_len = n/2; s = n. The key is
 * replaced by ACPKM(key) after every N bytes of gamma; the counter keeps
 * running across sections. Encrypt = decrypt. */
GOSTX_API int gostx_ctr_acpkm_crypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                                    size_t section_len, const uint8_t *in, size_t len,
                                    uint8_t *out);
/* ACPKM key transform (RFC 8645 section 6.2.1): the next 256-bit section key,
 * MSB_256(E_K(D_1) || ... || E_K(D_J)) with D = 80 81 ... 9f (32 bytes, J =
 * 32/n blocks), under the cipher's current key. */
GOSTX_API int gostx_acpkm_next_key(const gostx_cipher *c, uint8_t next_key[GOSTX_KEY_LEN]);

/* ---- Streaming for ECB, CBC, CFB, OFB, CTR, CTR-ACPKM ---- */
typedef enum gostx_mode {
  GOSTX_MODE_ECB = 1,
  GOSTX_MODE_CBC = 2,
  GOSTX_MODE_CFB = 3,
  GOSTX_MODE_OFB = 4,
  GOSTX_MODE_CTR = 5,
  GOSTX_MODE_CTR_ACPKM = 6
} gostx_mode;

/* Treat as opaque; sizes and fields may change between versions. */
typedef struct gostx_mode_ctx {
  gostx_cipher c;                   /* own copy: ACPKM changes the key */
  gostx_mode mode;
  gostx_padding padding;
  int decrypt, finished;
  size_t n, m, s, section_len;
  size_t section_blocks;            /* CTR-ACPKM: gamma blocks made under the current key */
  uint8_t reg[GOSTX_MAX_IV_LEN];    /* shift register R (CBC/CFB/OFB) or counter (CTR) */
  uint8_t buf[GOSTX_MAX_BLOCK_LEN]; /* ECB/CBC: pending input; CTR/CFB: current gamma block */
  size_t buf_len;                   /* ECB/CBC: bytes pending in buf */
  size_t pos;                       /* CFB/OFB/CTR: bytes of the current segment used (s = none left) */
  size_t slot;                      /* CBC: oldest block of R; OFB: current segment within R */
} gostx_mode_ctx;

/* padding: enum gostx_padding, only for ECB/CBC (others take GOSTX_PAD_NONE).
 * Encryption pads in final. Decryption removes procedure-2 padding in final
 * (GOSTX_EPAD if malformed, nothing written); procedures 1 and 3 cannot be
 * removed unambiguously and are left in the output. With GOSTX_PAD_NONE, a
 * partial block pending at final is GOSTX_ELEN.
 * iv/iv_len: as the one-shot call of the mode (ECB: NULL, 0).
 * s: segment length for CFB/OFB/CTR (0 = n; other modes take 0 or n).
 * section_len: N for CTR-ACPKM (positive multiple of n), 0 for the others.
 * CFB/OFB/CTR/CTR-ACPKM accept any split of the input; in == out is allowed
 * in every mode. */
GOSTX_API int gostx_mode_init(gostx_mode_ctx *ctx, const gostx_cipher *c, gostx_mode mode,
                              int decrypt, const uint8_t *iv, size_t iv_len, size_t s,
                              gostx_padding padding, size_t section_len);
/* out must have room for len + n bytes; *out_len receives what was written. */
GOSTX_API int gostx_mode_update(gostx_mode_ctx *ctx, const uint8_t *in, size_t len,
                                uint8_t *out, size_t *out_len);
/* Flush (pad / unpad); out has room for 2n bytes. Ends the context (its
 * secrets are wiped, success or not); later updates return GOSTX_ESTATE. */
GOSTX_API GOSTX_MUST_CHECK int gostx_mode_final(gostx_mode_ctx *ctx, uint8_t *out, size_t *out_len);
GOSTX_API void gostx_mode_clear(gostx_mode_ctx *ctx);

/* ---- MAC: OMAC (GOST R 34.13-2015 section 5.6) and OMAC-ACPKM ---- */
/* Treat as opaque. */
typedef struct gostx_omac_ctx {
  gostx_cipher c;                  /* own copy; for ACPKM the current section key K^i */
  gostx_mode_ctx km;               /* ACPKM: key material stream (CTR-ACPKM under the master key) */
  size_t n, section_len, blocks;   /* blocks: full blocks absorbed so far */
  int acpkm, finished;
  uint8_t k1[GOSTX_MAX_BLOCK_LEN]; /* K1 (ACPKM: K1^i of the current section) */
  uint8_t state[GOSTX_MAX_BLOCK_LEN];
  uint8_t buf[GOSTX_MAX_BLOCK_LEN]; /* last (possibly full) block, held back for final */
  size_t buf_len;
} gostx_omac_ctx;

GOSTX_API int gostx_omac_init(gostx_omac_ctx *ctx, const gostx_cipher *c);
/* OMAC-ACPKM (RFC 8645 section 6.3.6, OMAC-ACPKM-Master): section_len = N,
 * master_section_len = T* (bytes, both positive multiples of n). Section i
 * uses K^i || K1^i taken in turn from ACPKM-Master(T*, K) = CTR-ACPKM under
 * the master key with IV = ff..ff (n/2 bytes) over zeros. An empty message
 * uses the first section's keys. */
GOSTX_API int gostx_omac_acpkm_init(gostx_omac_ctx *ctx, const gostx_cipher *c,
                                    size_t section_len, size_t master_section_len);
GOSTX_API int gostx_omac_update(gostx_omac_ctx *ctx, const uint8_t *in, size_t len);
/* mac_len in 1..n: the leftmost mac_len bytes of the full MAC. Ends the
 * context (wiped); later calls return GOSTX_ESTATE. */
GOSTX_API int gostx_omac_final(gostx_omac_ctx *ctx, uint8_t *mac, size_t mac_len);
GOSTX_API void gostx_omac_clear(gostx_omac_ctx *ctx);
GOSTX_API int gostx_omac(const gostx_cipher *c, const uint8_t *in, size_t len, uint8_t *mac,
                         size_t mac_len);
GOSTX_API int gostx_omac_acpkm(const gostx_cipher *c, size_t section_len,
                               size_t master_section_len, const uint8_t *in, size_t len,
                               uint8_t *mac, size_t mac_len);

/* sizeof of the structs above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_mode_ctx(void);
GOSTX_API size_t gostx_sizeof_omac_ctx(void);

#ifdef __cplusplus
}
#endif
#endif
