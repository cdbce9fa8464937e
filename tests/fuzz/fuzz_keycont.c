/* libFuzzer harness: the CryptoPro container reader (lib/keycont), which
 * parses untrusted files. Input: a flags byte, then for each of header,
 * name, primary, masks, primary2, masks2 whose flag bit (1 << (1 + i)) is
 * set, a 2-byte big-endian length and that many bytes (a file whose bit is
 * clear is absent). Flag bit 0: the PIN "1" (2000 KDF rounds) instead of
 * none. Flag bit 7: the harness rewrites the IMIT check values of
 * header.key and masks.key (and masks2.key) to hold, so that mutations
 * reach what lies behind them. It must never crash or read out of bounds;
 * both keys are asked for (the primary and the secondary one); a refusal
 * must say why (and name a file when it says DAMAGED); a key that is accepted must be valid, its Q its d's, the certificate's key
 * when there is one, and must write and read back as PKCS#8. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_NAME "fuzz_keycont"
#include "fuzz_keycont.h"
#include "gostx.h"

#define FILES 6

static void imit(const uint8_t key[32], const uint8_t *in, size_t n, uint8_t *mac) {
  gostx_gost89_key k;
  if (gostx_gost89_set_key(&k, key, GOSTX_SBOX_TC26_Z) || gostx_gost89_imit(&k, NULL, 0, in, n, mac, 4))
    bug("imit");
}

/* header.key: SEQUENCE { content SEQUENCE, OCTET STRING[4] }: the IMIT under
 * the zero key over content. */
static void fix_header(uint8_t *b, size_t n) {
  static const uint8_t zero[32];
  uint8_t *end, *cend, *mend, *in = elem(b, b + n, 0x30, &end), *c, *m;
  if (!in || !(c = elem(in, end, 0x30, &cend)) || !(m = elem(cend, end, 0x04, &mend)) || mend - m != 4)
    return;
  imit(zero, in, (size_t)(cend - in), m);
}

/* masks.key: SEQUENCE { mask, salt, OCTET STRING[4] }: the IMIT under the
 * mask's last 32 bytes over the salt. */
static void fix_masks(uint8_t *b, size_t n) {
  uint8_t *end, *e1, *e2, *e3, *in = elem(b, b + n, 0x30, &end), *mask, *salt, *mac;
  if (!in || !(mask = elem(in, end, 0x04, &e1)) || e1 - mask < 32 || !(salt = elem(e1, end, 0x04, &e2)) ||
      !(mac = elem(e2, end, 0x04, &e3)) || e3 - mac != 4)
    return;
  imit(e1 - 32, salt, (size_t)(e2 - salt), mac);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t flags = data[0];
  uint8_t *buf[FILES] = {0};
  size_t len[FILES] = {0}, off = 1;
  for (int i = 0; i < FILES; i++) {
    if (!(flags & (1u << (1 + i)))) continue;
    if (size - off < 2) goto done;
    size_t n = (size_t)data[off] << 8 | data[off + 1];
    off += 2;
    if (n > size - off) n = size - off;
    /* exact-size copies, so ASan sees any read past the end */
    if (!(buf[i] = malloc(n ? n : 1))) goto done;
    memcpy(buf[i], data + off, n);
    len[i] = n;
    off += n;
  }
  if (flags & 0x80) {
    if (buf[0]) fix_header(buf[0], len[0]);
    if (buf[3]) fix_masks(buf[3], len[3]);
    if (buf[5]) fix_masks(buf[5], len[5]);
  }
  gostx_cpro_files f = {buf[0], buf[1], buf[2], buf[3], buf[4], buf[5],
                        len[0], len[1], len[2], len[3], len[4], len[5]};
  /* both keys: the primary, and the secondary one (header.key [4]/[11],
   * primary.key's second key) or its refusal */
  for (int which = 0; which < 2; which++) {
    gostx_keycont c;
    int rc = gostx_cpro_read_key(&f, (const uint8_t *)"1", flags & 1, which, &c);
    if (!rc) {
      if (c.key_index != which) bug("the other key given");
      check_accepted(&c);
    } else {
      if (c.why == GOSTX_KEYCONT_OK || !c.detail[0]) bug("a refusal without its reason");
      if (c.why == GOSTX_KEYCONT_DAMAGED && !gostx_cpro_file_name(c.file)[0])
        bug("a damaged file not named");
    }
    gostx_keycont_clear(&c);
  }
done:
  for (int i = 0; i < FILES; i++) free(buf[i]);
  return 0;
}
