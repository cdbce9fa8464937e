/* gostx: stream batches. Many independent messages ("streams": disk sectors,
 * network packets) in one call, each with its own key, IV and length, for
 * every mode that is sequential for one stream. The engine puts one stream
 * in each lane of the vector units (a Magma / GOST 28147-89 lane is a byte
 * of the byte-sliced registers, a Kuznyechik lane a block of the bitsliced
 * multi-key kernels), so a chain that gets one block per cipher call on its
 * own gets as many blocks per call as there are streams; the pool spreads
 * groups of streams over its threads. Kuznyechik streams of one length (disk
 * sectors) in CBC, CTR, OMAC and XTS run on the sector engine, which gives groups of
 * streams that share a key one-key cipher calls and XTS its kernels (XTS:
 * when in and out lie back to back, sector i at i * len, and the tweaks are
 * under 2^64). This is the library's one call for many messages. Part of the
 * public API; docs/BULK.md has the figures.
 *
 * Every stream's result is exactly the one-stream call named beside its
 * operation below, for every pool size and implementation level. Example
 * (CBC, a key per 512-byte sector):
 *
 *     gostx_stream s[NSECT];
 *     for (size_t i = 0; i < NSECT; i++)
 *       s[i] = (gostx_stream){.key = &keys[i], .iv = ivs + 8 * i,
 *                             .in = disk + 512 * i, .len = 512, .out = disk + 512 * i};
 *     gostx_batch_params p = {0};  (iv_len 0: one block)
 *     int rc = gostx_batch_streams(pool, GOSTX_BATCH_CBC_ENCRYPT, &p, s, NSECT);
 *
 * and MGM open, which says per stream whether it authenticated:
 *
 *     rc = gostx_batch_streams(pool, GOSTX_BATCH_MGM_OPEN, &p, s, n);
 *     if (rc == GOSTX_EAUTH)
 *       for (i = 0; i < n; i++) if (s[i].status) drop(i);   (its out untouched)
 */
#ifndef GOSTX_BATCH_H
#define GOSTX_BATCH_H

#include "bulk.h"
#include "gost89.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a batch does to each stream, the one-stream call it equals, and what
 * the stream's key points to. n: the cipher's block length. */
typedef enum gostx_batch_op {
  /* key: const gostx_cipher * (Kuznyechik or Magma; a batch may mix them) */
  GOSTX_BATCH_CBC_ENCRYPT = 1, /* gostx_cbc_encrypt(key, iv, iv_len, in, len, out) */
  GOSTX_BATCH_CBC_DECRYPT,     /* gostx_cbc_decrypt(...) */
  GOSTX_BATCH_CFB_ENCRYPT,     /* gostx_cfb_encrypt(key, iv, iv_len, s = n, in, len, out) */
  GOSTX_BATCH_CFB_DECRYPT,     /* gostx_cfb_decrypt(...) */
  GOSTX_BATCH_OFB,             /* gostx_ofb_crypt(key, iv, iv_len, s = n, in, len, out) */
  GOSTX_BATCH_CTR,             /* gostx_ctr_crypt(key, iv, n / 2, s = n, in, len, out) */
  GOSTX_BATCH_OMAC,            /* gostx_omac(key, in, len, tag, tag_len) */
  GOSTX_BATCH_OMAC_ACPKM,      /* gostx_omac_acpkm(key, section_len, master_section_len, ...) */
  GOSTX_BATCH_MGM_SEAL, /* gostx_mgm_encrypt(key, iv, aad, aad_len, in, len, out, tag, tag_len) */
  GOSTX_BATCH_MGM_OPEN, /* gostx_mgm_decrypt(key, iv, aad, aad_len, in, len, tag, tag_len, out) */
  /* key: const gostx_xts_key *; iv: the 16-byte tweak */
  GOSTX_BATCH_XTS_ENCRYPT, /* gostx_xts_encrypt(key, iv, in, len, out) */
  GOSTX_BATCH_XTS_DECRYPT, /* gostx_xts_decrypt(...) */
  /* key: const gostx_gost89_key * (any S-box sets; streams are grouped by set) */
  GOSTX_BATCH_GOST89_CFB_ENCRYPT, /* gostx_gost89_cfb(key, iv, meshing, 0, in, len, out) */
  GOSTX_BATCH_GOST89_CFB_DECRYPT, /* gostx_gost89_cfb(key, iv, meshing, 1, in, len, out) */
  GOSTX_BATCH_GOST89_CNT,         /* gostx_gost89_cnt(key, iv, meshing, in, len, out) */
  GOSTX_BATCH_GOST89_IMIT         /* gostx_gost89_imit(key, iv, meshing, in, len, tag, tag_len) */
} gostx_batch_op;

/* One stream. The caller fills everything but status; the engine reads the
 * keys, IVs and inputs, writes out / tag / status, and keeps no pointer.
 * Streams must not overlap each other's outputs; in == out is allowed. */
typedef struct gostx_stream {
  const void *key;    /* per the op above; streams may share a key */
  const uint8_t *iv;  /* IV, MGM nonce (n bytes) or XTS tweak; IMIT: NULL = zero */
  const uint8_t *aad; /* MGM only */
  size_t aad_len;
  const uint8_t *in;
  size_t len;        /* any length the one-stream call takes, 0 included */
  uint8_t *out;      /* len bytes; unused by the MACs */
  uint8_t *tag;      /* MACs and MGM seal: written; MGM open: read */
  int status;        /* written: GOSTX_OK or this stream's error */
} gostx_stream;

/* Parameters shared by every stream of a call; zeros are the defaults. */
typedef struct gostx_batch_params {
  size_t iv_len;  /* CBC, CFB, OFB: m, a multiple of n up to GOSTX_MAX_IV_LEN
                     (CFB, OFB: m >= n); 0 = n. Ignored by the other ops. */
  size_t tag_len; /* OMAC 1..n, MGM 4..n (0 = n); IMIT 1..8 (0 = 4) */
  size_t section_len, master_section_len; /* OMAC-ACPKM: N and T* */
  int meshing;    /* GOST 28147-89 ops: 1 = CryptoPro key meshing per stream */
} gostx_batch_params;

/* Runs op on streams[0 .. nstreams). pool may be NULL (this thread).
 * Every stream's arguments are checked before anything is written: on a bad
 * one the call returns its error (GOSTX_EINVAL, GOSTX_ELEN), sets each
 * stream's status (GOSTX_OK for the good ones) and writes nothing else.
 * Otherwise every stream is processed and the call returns GOSTX_OK, or,
 * for MGM_OPEN, GOSTX_EAUTH when at least one stream's tag was wrong: those
 * streams have status GOSTX_EAUTH and their out is left untouched (no
 * plaintext of a forged stream is released), the others are opened.
 * GOSTX_ENOMEM when the engine cannot allocate its index (nothing written).
 * Timing depends on the streams' count, lengths (and MGM AAD lengths),
 * layout, ciphers, S-box sets, XTS tweaks and which streams share a key
 * pointer, not on key or data values. */
GOSTX_API GOSTX_MUST_CHECK int gostx_batch_streams(gostx_pool *pool, gostx_batch_op op,
                                  const gostx_batch_params *params, gostx_stream *streams,
                                  size_t nstreams);

/* sizeof of the structs above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_stream(void);
GOSTX_API size_t gostx_sizeof_batch_params(void);

#ifdef __cplusplus
}
#endif

#endif
