/* libFuzzer harness: the ViPNet container reader (gostx_vipnet_read,
 * lib/keycont/vipnet.c), which parses an untrusted file. Input: a flags
 * byte, then the file. Flag bit 0: the PIN "1" instead of none. Flag bit 7:
 * the harness rewrites the first entry's IMIT (under the PIN's key, over
 * cek || KeyInfo) to hold, so that mutations reach what lies behind it. It
 * must never crash or read out of bounds; a refusal must say why; a key
 * that is accepted must be valid, its Q its d's, the certificate's key when
 * there is one, and must write and read back as PKCS#8 (fuzz_keycont.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_NAME "fuzz_vipnet"
#include "fuzz_keycont.h"
#include "gostx.h"

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The first entry's IMIT made to hold: K from the PIN (its two hashes
 * subtracted in 32-bit little-endian words), the IMIT under K with the
 * CryptoPro-A S-box over cek || KeyInfo. Any frame it cannot follow is left. */
static void fix_imit(uint8_t *b, size_t n, const char *pin) {
  if (n < 16 || le32(b + 8) > n - 12) return;
  size_t off = 12 + le32(b + 8);
  if (n - off < 4 || le32(b + off) > n - off - 4) return;
  uint8_t *lim = b + off + 4 + le32(b + off), *send, *vend, *kend, *ki;
  uint8_t *seq = elem(b + off + 4, lim, 0x30, &send);
  if (!seq || !elem(seq, send, 0x02, &vend)) return;
  ki = vend; /* the version's end: KeyInfo's start */
  if (!elem(ki, send, 0x30, &kend) || lim - send < 4 || le32(send) != (size_t)(lim - send - 4) ||
      le32(send) < 12)
    return;
  uint8_t *block = send + 4;
  size_t cek = le32(send) - 12, kil = (size_t)(kend - ki), pl = strlen(pin);
  uint8_t h1[32], h2[32], K[32], *m = malloc(cek + kil + 1), pinh[40];
  if (!m) return;
  memcpy(pinh, pin, pl);
  if (gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, pin, pl, h1)) bug("hash");
  memcpy(pinh + pl, h1, 32);
  if (gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, pinh, pl + 32, h2)) bug("hash");
  for (int i = 0; i < 32; i += 4) {
    uint32_t w = le32(h1 + i) - le32(h2 + i);
    for (int j = 0; j < 4; j++) K[i + j] = (uint8_t)(w >> (8 * j));
  }
  memcpy(m, block, cek);
  memcpy(m + cek, ki, kil);
  gostx_gost89_key k;
  if (gostx_gost89_set_key(&k, K, GOSTX_SBOX_CRYPTOPRO_A) ||
      gostx_gost89_imit(&k, NULL, 0, m, cek + kil, block + cek, 4))
    bug("imit");
  free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t flags = data[0];
  size_t n = size - 1;
  const char *pin = flags & 1 ? "1" : "";
  uint8_t *f = malloc(n ? n : 1); /* exact size, so ASan sees any read past the end */
  if (!f) return 0;
  memcpy(f, data + 1, n);
  if (flags & 0x80) fix_imit(f, n, pin);
  gostx_keycont c;
  int rc = gostx_vipnet_read(f, n, (const uint8_t *)pin, strlen(pin), &c);
  if (!rc) {
    check_accepted(&c);
  } else if (c.why == GOSTX_KEYCONT_OK || !c.detail[0] || c.key.has_private) {
    bug("a refusal without its reason, or with a key");
  }
  gostx_keycont_clear(&c);
  free(f);
  return 0;
}
