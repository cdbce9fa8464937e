/* libFuzzer harness: every streaming API against its one-shot call, with
 * fuzzer-chosen parameters and fuzzer-chosen splits of the input, and every
 * encryption against its decryption:
 *   GOST R 34.13 ECB/CBC (each padding procedure), CFB, OFB, CTR, CTR-ACPKM;
 *   OMAC, OMAC-ACPKM; MGM (AAD and data split); GOST 28147-89 CNT, CFB and
 *   IMIT (each S-box set, with and without key meshing); Streebog; HMAC.
 * A difference, or an error from one side only, aborts.
 *
 * Input: 8 parameter bytes, 32 key bytes, a split count k (low 4 bits) and
 * k split lengths, then the message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"

#define MAXMSG 8192

static void bug(const char *what, int kind) {
  fprintf(stderr, "fuzz_modes_stream: %s (kind %d)\n", what, kind);
  abort();
}
#define SAME(a, b, len, what) \
  do {                        \
    if (memcmp((a), (b), (len))) bug(what, kind); \
  } while (0)
#define SAME_RC(a, b, what) \
  do {                      \
    if ((a) != (b)) bug(what, kind); \
  } while (0)

/* Fuzzer-chosen chunking: lengths taken in turn from the split list; zero
 * lengths are allowed (empty updates) but cannot stall the loop. */
struct splitter {
  const uint8_t *lens;
  size_t k, i, zeros;
};

static size_t next_chunk(struct splitter *s, size_t left) {
  size_t c;
  if (!s->k || s->zeros > 2 * s->k) return left;
  c = s->lens[s->i++ % s->k];
  if (c == 0) s->zeros++;
  else s->zeros = 0;
  return c < left ? c : left;
}

static uint8_t ref[MAXMSG + 128], got[MAXMSG + 128], back[MAXMSG + 128], padded[MAXMSG + 128];

/* Streaming gostx_mode_* over msg, chunked; returns final's rc, *olen = bytes out. */
static int mode_stream(const gostx_cipher *c, int mode, int dec, const uint8_t *iv, size_t ivl,
                       size_t s, int pad, size_t sec, const uint8_t *msg, size_t len,
                       struct splitter sp, uint8_t *out, size_t *olen) {
  gostx_mode_ctx ctx;
  size_t pos = 0, w = 0, o;
  int rc = gostx_mode_init(&ctx, c, mode, dec, iv, ivl, s, pad, sec);
  if (rc) return rc;
  while (pos < len) {
    size_t ch = next_chunk(&sp, len - pos);
    rc = gostx_mode_update(&ctx, msg + pos, ch, out + w, &o);
    if (rc) {
      gostx_mode_clear(&ctx);
      return rc;
    }
    pos += ch;
    w += o;
  }
  rc = gostx_mode_final(&ctx, out + w, &o);
  *olen = w + o;
  return rc;
}

/* The one-shot encryption of mode (the streaming calls' reference). */
static int one_shot(const gostx_cipher *c, int mode, const uint8_t *iv, size_t ivl, size_t s,
                    size_t sec, const uint8_t *in, size_t len, uint8_t *out) {
  switch (mode) {
    case GOSTX_MODE_ECB: return gostx_ecb_encrypt(c, in, len, out);
    case GOSTX_MODE_CBC: return gostx_cbc_encrypt(c, iv, ivl, in, len, out);
    case GOSTX_MODE_CFB: return gostx_cfb_encrypt(c, iv, ivl, s, in, len, out);
    case GOSTX_MODE_OFB: return gostx_ofb_crypt(c, iv, ivl, s, in, len, out);
    case GOSTX_MODE_CTR: return gostx_ctr_crypt(c, iv, ivl, s, in, len, out);
    default: return gostx_ctr_acpkm_crypt(c, iv, ivl, sec, in, len, out);
  }
}

static void check_mode(int kind, const gostx_cipher *c, const uint8_t *p, const uint8_t *msg,
                       size_t len, struct splitter sp) {
  static const int modes[6] = {GOSTX_MODE_ECB, GOSTX_MODE_CBC, GOSTX_MODE_CFB,
                               GOSTX_MODE_OFB, GOSTX_MODE_CTR, GOSTX_MODE_CTR_ACPKM};
  const int mode = modes[kind];
  const size_t n = c->block_len;
  size_t ivl = 0, s = 0, sec = 0, olen = 0, blen = 0;
  int pad = GOSTX_PAD_NONE, rc1, rc2;
  const uint8_t *iv = p + 8; /* public bytes from the input (key area, reused) */
  switch (mode) {
    case GOSTX_MODE_CBC: ivl = n * (1 + p[2] % (64 / n)); break;
    case GOSTX_MODE_CFB: ivl = n + p[2] % (64 - n + 1); s = 1 + p[1] % n; break;
    case GOSTX_MODE_OFB: ivl = n * (1 + p[2] % (64 / n)); s = 1 + p[1] % n; break;
    case GOSTX_MODE_CTR: ivl = n / 2; s = 1 + p[1] % n; break;
    case GOSTX_MODE_CTR_ACPKM: ivl = n / 2; sec = n * (1 + p[1] % 8); break;
    default: break;
  }
  uint8_t ivbuf[64];
  for (size_t i = 0; i < sizeof ivbuf; i++) ivbuf[i] = (uint8_t)(iv[i % 32] + i);
  iv = ivbuf;
  if (mode == GOSTX_MODE_ECB || mode == GOSTX_MODE_CBC) pad = p[3] % 4;

  rc2 = mode_stream(c, mode, 0, iv, ivl, s, pad, sec, msg, len, sp, got, &olen);
  /* Reference: pad, then the one-shot call. */
  const uint8_t *src = msg;
  size_t slen = len;
  if (mode == GOSTX_MODE_ECB || mode == GOSTX_MODE_CBC) {
    if (gostx_pad(pad, n, msg, len, padded, &blen)) bug("gostx_pad", kind);
    src = padded;
    slen = blen;
  }
  rc1 = one_shot(c, mode, iv, ivl, s, sec, src, slen, ref);
  SAME_RC(rc1, rc2, "streaming and one-shot disagree on success");
  if (rc1) return;
  if (olen != slen) bug("streaming output length", kind);
  SAME(got, ref, slen, "streaming != one-shot");
  /* In place. */
  memcpy(back, src, slen);
  rc1 = one_shot(c, mode, iv, ivl, s, sec, back, slen, back);
  SAME_RC(rc1, 0, "in place failed");
  SAME(back, ref, slen, "in place != out of place");
  /* Decrypt, streaming, with the splits shifted by one. */
  sp.i = 1;
  rc2 = mode_stream(c, mode, 1, iv, ivl, s, pad, sec, ref, slen, sp, back, &olen);
  SAME_RC(rc2, 0, "streaming decryption failed");
  if (pad == GOSTX_PAD_2) {
    if (olen != len) bug("unpadded length", kind);
    SAME(back, msg, len, "decrypt(encrypt(m)) != m");
  } else {
    if (olen != slen) bug("decrypted length", kind);
    SAME(back, src, slen, "decrypt(encrypt(m)) != m");
  }
}

static void check_omac(int kind, const gostx_cipher *c, const uint8_t *p, const uint8_t *msg,
                       size_t len, struct splitter sp) {
  const size_t n = c->block_len, ml = 1 + p[1] % n;
  const size_t sec = n * (1 + p[2] % 8), master = n * (1 + p[3] % 8);
  const int acpkm = kind == 7;
  uint8_t m1[16], m2[16];
  gostx_omac_ctx ctx;
  int rc1 = acpkm ? gostx_omac_acpkm(c, sec, master, msg, len, m1, ml) : gostx_omac(c, msg, len, m1, ml);
  int rc2 = acpkm ? gostx_omac_acpkm_init(&ctx, c, sec, master) : gostx_omac_init(&ctx, c);
  for (size_t pos = 0; !rc2 && pos < len;) {
    size_t ch = next_chunk(&sp, len - pos);
    rc2 = gostx_omac_update(&ctx, msg + pos, ch);
    pos += ch;
  }
  if (!rc2) rc2 = gostx_omac_final(&ctx, m2, ml);
  SAME_RC(rc1, rc2, "omac: streaming and one-shot disagree on success");
  if (!rc1) SAME(m1, m2, ml, "omac: streaming != one-shot");
}

/* in through gostx_mgm_update in the splitter's chunks into out, while rc
 * stays 0 (the rc it ends with). */
static int mgm_update_chunks(gostx_mgm_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out,
                             struct splitter *sp, int rc) {
  for (size_t pos = 0; !rc && pos < len;) {
    size_t ch = next_chunk(sp, len - pos);
    rc = gostx_mgm_update(ctx, in + pos, ch, out + pos);
    pos += ch;
  }
  return rc;
}

static void check_mgm(int kind, const gostx_cipher *c, const uint8_t *p, const uint8_t *msg,
                      size_t len, struct splitter sp) {
  const size_t n = c->block_len, tl = 4 + p[1] % (n - 3);
  size_t alen = len ? p[2] * (size_t)p[3] % (len + 1) : 0;
  const uint8_t *aad = msg, *pt = msg + alen;
  const size_t plen = len - alen;
  uint8_t nonce[16], t1[16], t2[16];
  for (size_t i = 0; i < n; i++) nonce[i] = (uint8_t)(p[4] + 3 * i);
  nonce[0] &= 0x7f;
  int rc1 = gostx_mgm_encrypt(c, nonce, aad, alen, pt, plen, ref, t1, tl);
  gostx_mgm_ctx ctx;
  int rc2 = gostx_mgm_init(&ctx, c, 0, nonce, n);
  for (size_t pos = 0; !rc2 && pos < alen;) {
    size_t ch = next_chunk(&sp, alen - pos);
    rc2 = gostx_mgm_aad(&ctx, aad + pos, ch);
    pos += ch;
  }
  rc2 = mgm_update_chunks(&ctx, pt, plen, got, &sp, rc2);
  if (!rc2) rc2 = gostx_mgm_final_encrypt(&ctx, t2, tl);
  gostx_mgm_clear(&ctx);
  SAME_RC(rc1, rc2, "mgm: streaming and one-shot disagree on success");
  if (rc1) return;
  SAME(got, ref, plen, "mgm: streaming ciphertext != one-shot");
  SAME(t1, t2, tl, "mgm: streaming tag != one-shot");
  SAME_RC(gostx_mgm_decrypt(c, nonce, aad, alen, ref, plen, t1, tl, back), 0,
          "mgm: one-shot decrypt rejects its own output");
  SAME(back, pt, plen, "mgm: decrypt(encrypt(m)) != m");
  rc2 = gostx_mgm_init(&ctx, c, 1, nonce, n);
  if (!rc2 && alen) rc2 = gostx_mgm_aad(&ctx, aad, alen);
  sp.i = 1;
  rc2 = mgm_update_chunks(&ctx, ref, plen, got, &sp, rc2);
  if (!rc2) rc2 = gostx_mgm_final_decrypt(&ctx, t1, tl);
  gostx_mgm_clear(&ctx);
  SAME_RC(rc2, 0, "mgm: streaming decrypt rejects");
  SAME(got, pt, plen, "mgm: streaming decrypt != m");
}

static void check_gost89(int kind, const uint8_t *key, const uint8_t *p, const uint8_t *msg,
                         size_t len, struct splitter sp) {
  const int sbox = p[2] % GOSTX_SBOX_COUNT, mesh = p[3] & 1;
  uint8_t iv[8];
  for (int i = 0; i < 8; i++) iv[i] = (uint8_t)(p[4] ^ (17 * i));
  gostx_gost89_ctx ctx;
  gostx_gost89_key k;
  if (gostx_gost89_set_key(&k, key, sbox)) abort();
  int rc1, rc2;
  if (kind == 11) { /* IMIT */
    const size_t ml = 1 + p[1] % 8;
    const uint8_t *miv = (p[1] & 0x80) ? iv : NULL;
    uint8_t m1[8], m2[8];
    rc1 = gostx_gost89_imit(&k, miv, mesh, msg, len, m1, ml);
    rc2 = gostx_gost89_imit_init(&ctx, &k, miv, mesh);
    for (size_t pos = 0; !rc2 && pos < len;) {
      size_t ch = next_chunk(&sp, len - pos);
      rc2 = gostx_gost89_imit_update(&ctx, msg + pos, ch);
      pos += ch;
    }
    if (!rc2) rc2 = gostx_gost89_imit_final(&ctx, m2, ml);
    gostx_gost89_ctx_clear(&ctx);
    SAME_RC(rc1, rc2, "imit: streaming and one-shot disagree on success");
    if (!rc1) SAME(m1, m2, ml, "imit: streaming != one-shot");
    return;
  }
  const int mode = kind == 9 ? GOSTX_GOST89_CNT : GOSTX_GOST89_CFB;
  rc1 = mode == GOSTX_GOST89_CNT ? gostx_gost89_cnt(&k, iv, mesh, msg, len, ref)
                                 : gostx_gost89_cfb(&k, iv, mesh, 0, msg, len, ref);
  rc2 = gostx_gost89_init(&ctx, &k, mode, 0, iv, mesh);
  for (size_t pos = 0; !rc2 && pos < len;) {
    size_t ch = next_chunk(&sp, len - pos);
    rc2 = gostx_gost89_update(&ctx, msg + pos, ch, got + pos);
    pos += ch;
  }
  gostx_gost89_ctx_clear(&ctx);
  SAME_RC(rc1, rc2, "gost89: streaming and one-shot disagree on success");
  if (rc1) return;
  SAME(got, ref, len, "gost89: streaming != one-shot");
  rc1 = mode == GOSTX_GOST89_CNT ? gostx_gost89_cnt(&k, iv, mesh, ref, len, back)
                                 : gostx_gost89_cfb(&k, iv, mesh, 1, ref, len, back);
  SAME_RC(rc1, 0, "gost89: decrypt failed");
  SAME(back, msg, len, "gost89: decrypt(encrypt(m)) != m");
}

static void check_hash(int kind, const uint8_t *key, const uint8_t *p, const uint8_t *msg,
                       size_t len, struct splitter sp) {
  const size_t dl = (p[1] & 1) ? 64 : 32;
  uint8_t d1[64], d2[64];
  int rc1, rc2;
  if (kind == 12) {
    gostx_streebog_ctx ctx;
    rc1 = gostx_streebog(dl, msg, len, d1);
    rc2 = gostx_streebog_init(&ctx, dl);
    for (size_t pos = 0; !rc2 && pos < len;) {
      size_t ch = next_chunk(&sp, len - pos);
      rc2 = gostx_streebog_update(&ctx, msg + pos, ch);
      pos += ch;
    }
    if (!rc2) rc2 = gostx_streebog_final(&ctx, d2);
  } else {
    gostx_hmac_ctx ctx;
    const size_t kl = p[2] % 33;
    rc1 = gostx_hmac(dl, key, kl, msg, len, d1);
    rc2 = gostx_hmac_init(&ctx, dl, key, kl);
    for (size_t pos = 0; !rc2 && pos < len;) {
      size_t ch = next_chunk(&sp, len - pos);
      rc2 = gostx_hmac_update(&ctx, msg + pos, ch);
      pos += ch;
    }
    if (!rc2) rc2 = gostx_hmac_final(&ctx, d2);
    gostx_hmac_clear(&ctx);
  }
  SAME_RC(rc1, rc2, "hash: streaming and one-shot disagree on success");
  if (!rc1) SAME(d1, d2, dl, "hash: streaming != one-shot");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 41) return 0;
  const uint8_t *p = data, *key = data + 8;
  struct splitter sp = {data + 41, data[40] & 15, 0, 0};
  size_t hdr = 41 + sp.k;
  if (size < hdr) return 0;
  const uint8_t *msg = data + hdr;
  size_t len = size - hdr;
  if (len > MAXMSG) len = MAXMSG;
  const int kind = p[0] % 14;
  gostx_cipher c;
  if (kind <= 8) {
    if (gostx_cipher_init(&c, (p[0] / 14) & 1 ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK, key))
      bug("cipher_init", kind);
    if (kind <= 5) check_mode(kind, &c, p, msg, len, sp);
    else if (kind <= 7) check_omac(kind, &c, p, msg, len, sp);
    else check_mgm(kind, &c, p, msg, len, sp);
    gostx_cipher_clear(&c);
  } else if (kind <= 11) {
    check_gost89(kind, key, p, msg, len, sp);
  } else {
    check_hash(kind, key, p, msg, len, sp);
  }
  return 0;
}
