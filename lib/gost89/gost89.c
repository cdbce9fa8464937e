/* GOST 28147-89 modes of 1989 (RFC 5830): simple replacement (ECB), counter
 * gamma (CNT), gamma with feedback (CFB), IMIT; optional CryptoPro key
 * meshing (RFC 4357 section 2.3.2). Byte order: RFC 5830 little-endian words,
 * the order of gost-engine's gost89 ciphers.
 *
 * Key meshing follows CryptoPro / gost-engine: before the cipher is used on
 * the block at byte offset 1024*j (j >= 1) of the gamma (CNT, CFB) or of the
 * MAC input (IMIT), the key K is replaced by K' = ECB-decrypt_K(C), with C the
 * RFC 4357 constant; CNT then re-encrypts its counter register N3||N4 and CFB
 * its feedback block under K' (IMIT keeps its state). */
#include "gostx/gost89.h"
#include "internal.h"
#include "gost89/gost89_internal.h"
#include "cipher_ops.h"

#define MESH_PERIOD GOSTX__GOST89_MESH_PERIOD

/* RFC 4357 section 2.3.2, the key meshing constant C. */
const uint8_t gostx__gost89_mesh_c[32] = {
  0x69, 0x00, 0x72, 0x22, 0x64, 0xc9, 0x04, 0x23, 0x8d, 0x3a, 0xdb, 0x96, 0x46, 0xe9, 0x2a, 0xc4,
  0x18, 0xfe, 0xac, 0x94, 0x00, 0xed, 0x07, 0x12, 0xc0, 0x86, 0xdc, 0xc2, 0xef, 0x4c, 0xa9, 0x2b};

/* CNT constants (GOST 28147-89 section 3.1): N3 += C2 mod 2^32,
 * N4 += C1 mod 2^32 - 1. */
#define CNT_C2 0x01010101u
#define CNT_C1 0x01010104u

/* ---- ECB ---- */

static int ecb(const gostx_gost89_key *k, const uint8_t *in, uint8_t *out, size_t len, int dec) {
  if (!k || (len && (!in || !out))) return GOSTX_EINVAL;
  if (len % 8) return GOSTX_ELEN;
  if (dec) gostx_gost89_decrypt_blocks(k, in, len / 8, out);
  else gostx_gost89_encrypt_blocks(k, in, len / 8, out);
  return GOSTX_OK;
}

int gostx_gost89_ecb_encrypt(const gostx_gost89_key *k, const uint8_t *in, size_t len,
                             uint8_t *out) {
  return ecb(k, in, out, len, 0);
}

int gostx_gost89_ecb_decrypt(const gostx_gost89_key *k, const uint8_t *in, size_t len,
                             uint8_t *out) {
  return ecb(k, in, out, len, 1);
}

/* ---- shared pieces ---- */

/* CryptoPro key meshing: K <- D_K(C); `block`, if given, <- E_K'(block). */
static void mesh(gostx_gost89_ctx *ctx, uint8_t *block) {
  uint8_t newkey[GOSTX_KEY_LEN];
  gostx_gost89_decrypt_blocks(&ctx->key, gostx__gost89_mesh_c, GOSTX_KEY_LEN / 8, newkey);
  gostx_gost89_set_key(&ctx->key, newkey, (int)ctx->key.sbox_id);
  gostx_memzero(newkey, sizeof newkey);
  if (block) gostx_gost89_encrypt_blocks(&ctx->key, block, 1, block);
  ctx->processed = 0;
}

/* N3 += C2 mod 2^32; N4 += C1 mod 2^32 - 1 (end-around carry: a sum that
 * overflows 2^32 gets the carry added back, as gost-engine and RFC 5830 do).
 * Branch-free: the counter is secret. */
void gostx__gost89_cnt_step(uint8_t reg[8]) {
  uint32_t n3 = gostx_load32_le(reg) + CNT_C2;
  uint64_t s = (uint64_t)gostx_load32_le(reg + 4) + CNT_C1;
  uint32_t n4 = (uint32_t)s + (uint32_t)(s >> 32);
  gostx_store32_le(reg, n3);
  gostx_store32_le(reg + 4, n4);
}

/* n steps of cnt_step, writing each new register to ks (8 bytes per step):
 * the counter stays in registers across the batch. */
static void cnt_steps(uint8_t reg[8], uint8_t *ks, size_t n) {
  uint32_t n3 = gostx_load32_le(reg), n4 = gostx_load32_le(reg + 4);
  for (size_t i = 0; i < n; i++) {
    uint64_t s = (uint64_t)n4 + CNT_C1;
    n3 = gostx_value_barrier32(n3 + CNT_C2); /* not the loop's counter (internal.h) */
    n4 = (uint32_t)s + (uint32_t)(s >> 32);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint32_t w[2] = {n3, n4}; /* one 8-byte store; GCC does not merge the bytes */
    memcpy(ks + 8 * i, w, 8);
#else
    gostx_store32_le(ks + 8 * i, n3);
    gostx_store32_le(ks + 8 * i + 4, n4);
#endif
  }
  gostx_store32_le(reg, n3);
  gostx_store32_le(reg + 4, n4);
}

static int sbox_ok(int sbox) { return sbox >= 0 && sbox < GOSTX_SBOX_COUNT; }

/* ---- CNT / CFB streaming ---- */

/* A key made by gostx_gost89_set_key (not a Magma key: other byte order). */
static int gost89_key_ok(const gostx_gost89_key *k) {
  return k && k->le == 1 && sbox_ok((int)k->sbox_id);
}

int gostx_gost89_init(gostx_gost89_ctx *ctx, const gostx_gost89_key *k, gostx_gost89_mode mode,
                      int decrypt, const uint8_t iv[8], int meshing) {
  if (!ctx) return GOSTX_EINVAL;
  memset(ctx, 0, sizeof *ctx);
  if (!gost89_key_ok(k)) return GOSTX_EINVAL;
  if (mode != GOSTX_GOST89_ECB && mode != GOSTX_GOST89_CNT && mode != GOSTX_GOST89_CFB)
    return GOSTX_EINVAL;
  if (mode != GOSTX_GOST89_ECB && !iv) return GOSTX_EINVAL;
  ctx->key = *k;
  ctx->mode = mode;
  ctx->decrypt = decrypt ? 1 : 0;
  ctx->meshing = meshing ? 1 : 0;
  ctx->gamma_pos = 8;
  if (mode == GOSTX_GOST89_CNT) {
    /* (N3, N4) = E_K(S): the IV is encrypted once, before any gamma; this
     * encryption does not count towards the meshing period. */
    gostx_gost89_encrypt_blocks(&ctx->key, iv, 1, ctx->iv);
  } else if (mode == GOSTX_GOST89_CFB) {
    memcpy(ctx->iv, iv, 8);
  }
  ctx->started = 1;
  return GOSTX_OK;
}

/* Counter mode: whole blocks in batches (one call to the block cipher per
 * batch, never across a meshing point), the tail byte by byte. A batch is a
 * whole meshing period (1024 bytes), so the vector cores get many blocks. */
static void cnt_update(gostx_gost89_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out) {
  enum { BATCH = MESH_PERIOD / 8 };
  uint8_t ks[BATCH * 8];
  while (len && ctx->gamma_pos < 8) {
    *out++ = *in++ ^ ctx->gamma[ctx->gamma_pos++];
    len--;
  }
  while (len >= 8) {
    if (ctx->meshing && ctx->processed == MESH_PERIOD) mesh(ctx, ctx->iv);
    size_t n = len / 8;
    if (n > BATCH) n = BATCH;
    if (ctx->meshing && n > (MESH_PERIOD - ctx->processed) / 8)
      n = (MESH_PERIOD - ctx->processed) / 8;
    cnt_steps(ctx->iv, ks, n);
    gostx_gost89_encrypt_blocks(&ctx->key, ks, n, ks);
    gostx_xor(out, in, ks, 8 * n);
    ctx->processed += 8 * n;
    in += 8 * n;
    out += 8 * n;
    len -= 8 * n;
  }
  if (len) {
    if (ctx->meshing && ctx->processed == MESH_PERIOD) mesh(ctx, ctx->iv);
    gostx__gost89_cnt_step(ctx->iv);
    gostx_gost89_encrypt_blocks(&ctx->key, ctx->iv, 1, ctx->gamma);
    ctx->processed += 8;
    ctx->gamma_pos = 0;
    while (len--) *out++ = *in++ ^ ctx->gamma[ctx->gamma_pos++];
  }
  gostx_memzero(ks, sizeof ks);
}

/* CFB decryption of whole blocks when no gamma is pending: every gamma input
 * (the IV, then the previous ciphertext block) is known in advance, so a
 * batch up to the next meshing point is one call to the block cipher.
 * Returns the bytes done (a multiple of 8). */
static size_t cfb_decrypt_blocks(gostx_gost89_ctx *ctx, const uint8_t *in, size_t len,
                                 uint8_t *out) {
  enum { BATCH = MESH_PERIOD / 8 };
  uint8_t ks[BATCH * 8];
  size_t done = 0;
  while (len - done >= 8) {
    if (ctx->meshing && ctx->processed == MESH_PERIOD) mesh(ctx, ctx->iv);
    size_t n = (len - done) / 8;
    if (n > BATCH) n = BATCH;
    if (ctx->meshing && n > (MESH_PERIOD - ctx->processed) / 8)
      n = (MESH_PERIOD - ctx->processed) / 8;
    /* Gamma inputs: the register, then ciphertext blocks 0..n-2 (copied
     * before any output is written: in may equal out). */
    memcpy(ks, ctx->iv, 8);
    memcpy(ks + 8, in + done, 8 * (n - 1));
    memcpy(ctx->iv, in + done + 8 * (n - 1), 8);
    gostx_gost89_encrypt_blocks(&ctx->key, ks, n, ks);
    gostx_xor(out + done, in + done, ks, 8 * n);
    ctx->processed += 8 * n;
    done += 8 * n;
  }
  gostx_memzero(ks, sizeof ks);
  return done;
}

/* Gamma with feedback: gamma = E_K(previous ciphertext block); the feedback
 * register fills with ciphertext bytes as they are produced or consumed.
 * Encryption is sequential; decryption batches whole blocks. */
static void cfb_update(gostx_gost89_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out) {
  for (size_t i = 0; i < len; i++) {
    if (ctx->decrypt && ctx->gamma_pos == 8 && len - i >= 16) {
      size_t d = cfb_decrypt_blocks(ctx, in + i, len - i, out + i);
      i += d;
      if (i == len) break;
    }
    if (!ctx->decrypt && ctx->gamma_pos == 8 && len - i >= 8) {
      /* Whole blocks up to the next meshing point in one chain: the
       * register is the ciphertext block, the gamma needs no copy. */
      if (ctx->meshing && ctx->processed == MESH_PERIOD) mesh(ctx, ctx->iv);
      size_t n = (len - i) / 8;
      if (ctx->meshing && n > (MESH_PERIOD - ctx->processed) / 8)
        n = (MESH_PERIOD - ctx->processed) / 8;
      gostx__magma_key_chain(&ctx->key, GOSTX__CHAIN_CFB, ctx->iv, in + i, out + i, n);
      ctx->processed += 8 * n;
      i += 8 * n - 1; /* the loop's i++ */
      continue;
    }
    if (ctx->gamma_pos == 8) {
      if (ctx->meshing && ctx->processed == MESH_PERIOD) mesh(ctx, ctx->iv);
      gostx_gost89_encrypt_blocks(&ctx->key, ctx->iv, 1, ctx->gamma);
      ctx->processed += 8;
      ctx->gamma_pos = 0;
    }
    uint8_t x = in[i]; /* read before writing: in may equal out */
    uint8_t y = (uint8_t)(x ^ ctx->gamma[ctx->gamma_pos]);
    ctx->iv[ctx->gamma_pos++] = ctx->decrypt ? x : y;
    out[i] = y;
  }
}

int gostx_gost89_update(gostx_gost89_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out) {
  if (!ctx || (len && (!in || !out))) return GOSTX_EINVAL;
  if (ctx->started != 1) return GOSTX_ESTATE;
  switch (ctx->mode) {
    case GOSTX_GOST89_ECB:
      return ecb(&ctx->key, in, out, len, ctx->decrypt);
    case GOSTX_GOST89_CNT:
      cnt_update(ctx, in, len, out);
      return GOSTX_OK;
    case GOSTX_GOST89_CFB:
      cfb_update(ctx, in, len, out);
      return GOSTX_OK;
    default:
      return GOSTX_EINVAL; /* IMIT contexts take gostx_gost89_imit_update */
  }
}

void gostx_gost89_ctx_clear(gostx_gost89_ctx *ctx) {
  if (ctx) gostx_memzero(ctx, sizeof *ctx);
}

int gostx_gost89_cnt(const gostx_gost89_key *k, const uint8_t iv[8], int meshing,
                     const uint8_t *in, size_t len, uint8_t *out) {
  gostx_gost89_ctx ctx;
  int rc = gostx_gost89_init(&ctx, k, GOSTX_GOST89_CNT, 0, iv, meshing);
  if (rc == GOSTX_OK) rc = gostx_gost89_update(&ctx, in, len, out);
  gostx_gost89_ctx_clear(&ctx);
  return rc;
}

int gostx_gost89_cfb(const gostx_gost89_key *k, const uint8_t iv[8], int meshing, int decrypt,
                     const uint8_t *in, size_t len, uint8_t *out) {
  gostx_gost89_ctx ctx;
  int rc = gostx_gost89_init(&ctx, k, GOSTX_GOST89_CFB, decrypt, iv, meshing);
  if (rc == GOSTX_OK) rc = gostx_gost89_update(&ctx, in, len, out);
  gostx_gost89_ctx_clear(&ctx);
  return rc;
}

/* ---- IMIT ---- */

/* state = 16-round core(state xor block), meshing the key first when due. */
static void imit_block(gostx_gost89_ctx *ctx, const uint8_t block[8]) {
  if (ctx->meshing && ctx->processed == MESH_PERIOD) mesh(ctx, NULL);
  gostx_xor(ctx->iv, ctx->iv, block, 8);
  gostx__gost89_imit16(&ctx->key, ctx->iv);
  ctx->processed += 8;
  ctx->total++;
}

int gostx_gost89_imit_init(gostx_gost89_ctx *ctx, const gostx_gost89_key *k, const uint8_t *iv,
                           int meshing) {
  if (!ctx) return GOSTX_EINVAL;
  memset(ctx, 0, sizeof *ctx);
  if (!gost89_key_ok(k)) return GOSTX_EINVAL;
  ctx->key = *k;
  ctx->mode = GOSTX_GOST89_IMIT;
  ctx->meshing = meshing ? 1 : 0;
  if (iv) memcpy(ctx->iv, iv, 8);
  ctx->started = 1;
  return GOSTX_OK;
}

int gostx_gost89_imit_update(gostx_gost89_ctx *ctx, const uint8_t *in, size_t len) {
  if (!ctx || (len && !in)) return GOSTX_EINVAL;
  if (ctx->mode != GOSTX_GOST89_IMIT) return GOSTX_EINVAL;
  if (ctx->started != 1) return GOSTX_ESTATE;
  /* A full buffered block is MACed only once more input arrives: final must
   * know whether the message had more than one block. */
  while (len) {
    if (ctx->buf_len == 8) {
      imit_block(ctx, ctx->buf);
      ctx->buf_len = 0;
    }
    if (ctx->buf_len == 0 && len > 8) {
      imit_block(ctx, in);
      in += 8;
      len -= 8;
      continue;
    }
    gostx_buffer_fill(ctx->buf, &ctx->buf_len, 8, &in, &len);
  }
  return GOSTX_OK;
}

int gostx_gost89_imit_final(gostx_gost89_ctx *ctx, uint8_t *mac, size_t mac_len) {
  if (!ctx || !mac) return GOSTX_EINVAL;
  if (ctx->mode != GOSTX_GOST89_IMIT) return GOSTX_EINVAL;
  if (mac_len < 1 || mac_len > 8) return GOSTX_ELEN;
  if (ctx->started != 1) return GOSTX_ESTATE;
  if (ctx->buf_len) {
    /* Last block zero-padded. GOST 28147-89 needs at least two blocks, so a
     * message of one block (or less) gets a zero block appended, as
     * CryptoPro and gost-engine do. An empty message leaves the IV. */
    int only_block = ctx->total == 0;
    memset(ctx->buf + ctx->buf_len, 0, 8 - ctx->buf_len);
    imit_block(ctx, ctx->buf);
    if (only_block) {
      static const uint8_t zero[8];
      imit_block(ctx, zero);
    }
    ctx->buf_len = 0;
  }
  /* The MAC is the first mac_len bytes of the state (low bits of N1). */
  memcpy(mac, ctx->iv, mac_len);
  ctx->started = 2;
  return GOSTX_OK;
}

int gostx_gost89_imit(const gostx_gost89_key *k, const uint8_t *iv, int meshing,
                      const uint8_t *in, size_t len, uint8_t *mac, size_t mac_len) {
  gostx_gost89_ctx ctx;
  int rc = gostx_gost89_imit_init(&ctx, k, iv, meshing);
  if (rc == GOSTX_OK) rc = gostx_gost89_imit_update(&ctx, in, len);
  if (rc == GOSTX_OK) rc = gostx_gost89_imit_final(&ctx, mac, mac_len);
  gostx_gost89_ctx_clear(&ctx);
  return rc;
}
