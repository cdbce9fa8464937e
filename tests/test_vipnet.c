/* lib/keycont: ViPNet CSP file containers (gostx_vipnet_read). No container
 * ViPNet CSP wrote is public, so the containers here are built, in this
 * file only, from the public description lib/keycont/vipnet.c names, from a
 * known key and PIN: 2012-256, 2012-512 and 2001 keys, with and without a
 * PIN, both key classes, the public key recorded ([1], explicit and
 * implicit) and a certificate ([0]: the one of tests/vectors/cryptopro/'s
 * container, whose key gostx_cpro_read gives). The reader must give back
 * the key; then every refusal: a wrong PIN, a public key or certificate of
 * another key, neither of them, another type tag or version, each length
 * cut and each byte changed (never a wrong key: refused, or the same key). */
#include <stdlib.h>
#include <string.h>

#include "asn1/der.h"
#include "gost3410/keys_der.h"
#include "gostx.h"
#include "testutil.h"

typedef struct spec {
  gostx_gost3410_curve curve;
  const char *alg, *ps, *digest; /* KeyInfo's algorithm: OIDs */
  const uint8_t *d;              /* big-endian */
  size_t len;
  const char *pin;
  unsigned key_class;
  const uint8_t *cert;           /* [0], or NULL */
  size_t cert_len;
  int pub;                       /* [1]: 0 none, 1 explicit, 2 implicit */
  const uint8_t *pub_of;         /* [1] is this d's public key instead (NULL: d's) */
  const char *type;              /* the type tag */
  uint32_t version;
  int entries;                   /* the entry again after the first */
} spec;

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The PIN's key as the description says, computed here on its own:
 * K = H(PIN) - H(PIN || H(PIN)) in 32-bit little-endian words. */
static void pin_key(const char *pin, uint8_t K[32]) {
  size_t n = strlen(pin);
  uint8_t h1[32], h2[32], buf[300];
  CHECK(n + 32 <= sizeof buf && !gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, pin, n, h1), "H1");
  memcpy(buf, pin, n);
  memcpy(buf + n, h1, 32);
  CHECK(!gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, buf, n + 32, h2), "H2");
  unsigned borrow = 0;
  for (int i = 0; i < 32; i++) { /* byte-wise subtraction, the borrow kept within each word */
    if (i % 4 == 0) borrow = 0;
    unsigned v = (unsigned)h1[i] - h2[i] - borrow;
    K[i] = (uint8_t)v;
    borrow = (v >> 8) & 1;
  }
}

/* A container of spec s into out[cap]; its length. */
static size_t build(const spec *s, uint8_t *out, size_t cap) {
  size_t len = s->len;
  uint8_t q[128], qle[128], ab[128], be[64], K[32], iv[8], block[140];
  CHECK(!gostx_gost3410_public_key(s->curve, s->pub_of ? s->pub_of : s->d, len, q, 2 * len), "Q");
  gostx__key_reverse(qle, q, len);
  gostx__key_reverse(qle + len, q + len, len);
  /* KeyInfo, with fields the reader skips around the algorithm */
  uint8_t ki[300], entry[4096];
  gostx__der_w w;
  gostx__der_w_init(&w, ki, sizeof ki);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_u32(&w, s->key_class);
  gostx__der_w_u32(&w, 7); /* keyType */
  gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_oid(&w, s->alg);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_oid(&w, s->ps);
  gostx__der_w_oid(&w, s->digest);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  gostx__der_w_begin(&w, GOSTX__DER_CTXC(1));
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, "serial", 6);
  gostx__der_w_end(&w);
  gostx__der_w_begin(&w, GOSTX__DER_CTXC(10));
  gostx__der_w_u32(&w, 3);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  size_t ki_len;
  CHECK(!gostx__der_w_finish(&w, &ki_len), "KeyInfo");
  /* the key's halves a || b (little-endian): d = a * b mod q, or for
   * class 0 a = d encrypted (CFB, zero IV) under the 32-byte key b */
  t_rand_bytes(ab + len, len);
  gostx_gost89_key k;
  if (s->key_class % 4 == 0) {
    static const uint8_t zero[8];
    CHECK(len == 32 && !gostx_gost89_set_key(&k, ab + 32, GOSTX_SBOX_CRYPTOPRO_A) &&
              !gostx_gost89_cfb(&k, zero, 0, 0, s->d, 32, ab),
          "class 0: a");
  } else {
    uint8_t bbe[64];
    ab[2 * len - 1] &= 0x3f; /* b below q, not 0 */
    ab[len] |= 1;
    gostx__key_reverse(bbe, ab + len, len);
    CHECK(!gostx__gost3410_unmask_div(s->curve, s->d, bbe, len, be), "a = d / b");
    gostx__key_reverse(ab, be, len);
  }
  /* the key block: cek || IMIT(cek || KeyInfo) || IV */
  pin_key(s->pin, K);
  t_rand_bytes(iv, 8);
  uint8_t macd[512];
  CHECK(!gostx_gost89_set_key(&k, K, GOSTX_SBOX_CRYPTOPRO_A) &&
            !gostx_gost89_cfb(&k, iv, 0, 0, ab, 2 * len, block),
        "cek");
  memcpy(macd, block, 2 * len);
  memcpy(macd + 2 * len, ki, ki_len);
  CHECK(!gostx_gost89_imit(&k, NULL, 0, macd, 2 * len + ki_len, block + 2 * len, 4), "IMIT");
  memcpy(block + 2 * len + 4, iv, 8);
  size_t block_len = 2 * len + 12;
  /* the entry */
  gostx__der_w_init(&w, entry, sizeof entry);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_u32(&w, 1);
  gostx__der_w_raw(&w, ki, ki_len);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ); /* DefenceKeyInfo */
  gostx__der_w_u32(&w, 2);
  gostx__der_w_u32(&w, 0);
  gostx__der_w_end(&w);
  if (s->cert) {
    gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
    gostx__der_w_raw(&w, s->cert, s->cert_len);
    gostx__der_w_end(&w);
  }
  if (s->pub == 1) {
    gostx__der_w_begin(&w, GOSTX__DER_CTXC(1));
    gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, qle, 2 * len);
    gostx__der_w_end(&w);
  } else if (s->pub == 2) {
    gostx__der_w_tlv(&w, GOSTX__DER_CTX(1), qle, 2 * len);
  }
  gostx__der_w_end(&w);
  size_t e_len;
  CHECK(!gostx__der_w_finish(&w, &e_len), "the entry");
  /* the file */
  static const uint8_t header[5] = {1, 2, 3, 4, 5};
  size_t n = 12 + sizeof header, one = 8 + e_len + block_len;
  CHECK(n + (1 + (size_t)s->entries) * one <= cap, "room");
  memcpy(out, s->type, 4);
  put32(out + 4, s->version);
  put32(out + 8, sizeof header);
  memcpy(out + 12, header, sizeof header);
  for (int i = 0; i <= s->entries; i++) {
    put32(out + n, (uint32_t)(e_len + 4 + block_len));
    memcpy(out + n + 4, entry, e_len);
    put32(out + n + 4 + e_len, (uint32_t)block_len);
    memcpy(out + n + 8 + e_len, block, block_len);
    n += one;
  }
  gostx_memzero(ab, sizeof ab);
  gostx_memzero(K, sizeof K);
  gostx_memzero(&k, sizeof k);
  return n;
}

static int vread(const uint8_t *f, size_t n, const char *pin, gostx_keycont *c) {
  return gostx_vipnet_read(f, n, (const uint8_t *)pin, strlen(pin), c);
}

/* Refused as want/why, nothing given, detail containing said. */
static void refused(const uint8_t *f, size_t n, const char *pin, int want, gostx_keycont_why why,
                    const char *said, const char *what) {
  gostx_keycont c;
  int rc = vread(f, n, pin, &c);
  CHECK(rc == want && c.why == why && !c.key.has_private && strstr(c.detail, said),
        "%s: rc %d (want %d), why %d (want %d): %s", what, rc, want, c.why, why, c.detail);
  gostx_keycont_clear(&c);
}

static const spec BASE = {GOSTX_GOST3410_256_A, "1.2.643.7.1.1.1.1", "1.2.643.7.1.2.1.1.1",
                          "1.2.643.7.1.1.2.2", NULL, 32, "12345678", 1, NULL, 0, 1, NULL,
                          "ITCS", 0x00010000, 0};

/* Built, read back: the key, and what the container says. */
static void round_trip(spec s, const char *what) {
  uint8_t d[64], f[8192];
  gostx_gost3410_key key;
  if (!s.d) {
    uint8_t q[128];
    CHECK(!gostx_gost3410_keygen(s.curve, d, s.len, q, 2 * s.len), "%s: keygen", what);
    s.d = d;
  }
  size_t n = build(&s, f, sizeof f);
  gostx_keycont c;
  CHECK_RC(vread(f, n, s.pin, &c), 0, what);
  CHECK(c.key.has_private && c.key.len == s.len && !memcmp(c.key.d, s.d, s.len) &&
            c.key.curve == s.curve && !strcmp(c.key.oid, s.ps),
        "%s: the key", what);
  CHECK(gostx_gost3410_key_set_private(&key, s.curve, s.d, s.len, NULL) == 0 &&
            !memcmp(c.key.q, key.q, 2 * s.len),
        "%s: its Q", what);
  CHECK(c.gost2001 == !strcmp(s.alg, "1.2.643.2.2.19") && c.key.gost2001 == c.gost2001,
        "%s: 2001 or 2012", what);
  CHECK(c.usage == GOSTX_KEYCONT_USAGE_UNKNOWN && c.has_second_key == (s.entries ? -1 : 0),
        "%s: usage, entries", what);
  CHECK(s.cert ? c.cert && c.cert_len == s.cert_len && !memcmp(c.cert, s.cert, s.cert_len) : !c.cert,
        "%s: the certificate", what);
  gostx_keycont_clear(&c);
  gostx_gost3410_key_clear(&key);
  /* a wrong PIN: named as such, for any other PIN */
  static const char *const wrong[] = {"", "1234567", "123456789", "12345678 ", "x"};
  for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++)
    if (strcmp(wrong[i], s.pin))
      refused(f, n, wrong[i], GOSTX_EAUTH, GOSTX_KEYCONT_WRONG_PIN, "wrong PIN", what);
  gostx_memzero(d, sizeof d);
}

/* Every cut and every changed byte of f: never a wrong key. */
static void damaged(uint8_t *f, size_t n, const char *pin, const uint8_t *d, size_t len) {
  gostx_keycont c;
  for (size_t cut = 0; cut < n; cut++) {
    int rc = vread(f, cut, pin, &c);
    CHECK(rc == GOSTX_EFORMAT && c.why == GOSTX_KEYCONT_DAMAGED && c.detail[0] && !c.key.has_private,
          "cut at %zu: rc %d, why %d (%s)", cut, rc, c.why, c.detail);
    gostx_keycont_clear(&c);
  }
  for (size_t at = 0; at < n; at++) {
    f[at] ^= 0x5a;
    int rc = vread(f, n, pin, &c);
    CHECK(rc == 0 ? !memcmp(c.key.d, d, len) : c.why != GOSTX_KEYCONT_OK && c.detail[0] && !c.key.has_private,
          "byte %zu changed: rc %d, why %d (%s)", at, rc, c.why, c.detail);
    gostx_keycont_clear(&c);
    f[at] ^= 0x5a;
  }
}

int main(void) {
  t_rand_init();
  spec s = BASE;
  round_trip(s, "2012-256 paramSetA, PIN");
  s.pin = "";
  round_trip(s, "2012-256, no PIN");
  s = BASE, s.curve = GOSTX_GOST3410_256_B, s.ps = "1.2.643.2.2.35.1", s.pin = "пин";
  round_trip(s, "2012-256 CryptoPro-A, a UTF-8 PIN");
  s.key_class = 4;
  round_trip(s, "2012-256, key class 0 (wrapped twice)");
  s = BASE, s.curve = GOSTX_GOST3410_512_A, s.len = 64, s.alg = "1.2.643.7.1.1.1.2",
  s.ps = "1.2.643.7.1.2.1.2.1", s.digest = "1.2.643.7.1.1.2.3";
  round_trip(s, "2012-512, PIN");
  s.pin = "", s.pub = 2;
  round_trip(s, "2012-512, no PIN, [1] implicit");
  s = BASE, s.curve = GOSTX_GOST3410_256_B, s.alg = "1.2.643.2.2.19", s.ps = "1.2.643.2.2.35.1",
  s.digest = "1.2.643.2.2.30.1";
  round_trip(s, "2001 CryptoPro-A, PIN");
  s.pin = "", s.key_class = 0;
  round_trip(s, "2001, no PIN, key class 0");
  s = BASE, s.entries = 1, s.type = "_LCK", s.version = 0x000200ff;
  round_trip(s, "two entries, _LCK, version 2.255");

  /* a certificate: the CryptoPro container's, whose key gostx_cpro_read gives */
  const char *names[4] = {"header", "masks", "primary", "name"};
  uint8_t *cf[4];
  size_t cn[4];
  for (int i = 0; i < 4; i++) {
    char path[128];
    snprintf(path, sizeof path, "cryptopro/91team-srv/%s.key", names[i]);
    cf[i] = tv_file(path, &cn[i]);
  }
  gostx_cpro_files files = {cf[0], cf[3], cf[2], cf[1], NULL, NULL, cn[0], cn[3], cn[2], cn[1], 0, 0};
  gostx_keycont cp;
  CHECK_RC(gostx_cpro_read(&files, NULL, 0, &cp), 0, "the CryptoPro container");
  CHECK(cp.cert != NULL, "its certificate");
  s = BASE, s.curve = cp.key.curve, s.ps = cp.key.oid, s.d = cp.key.d, s.cert = cp.cert,
  s.cert_len = cp.cert_len;
  round_trip(s, "a certificate and [1]");
  s.pub = 0;
  round_trip(s, "a certificate alone");

  uint8_t f[8192], other[32], oq[64];
  size_t n;
  CHECK(!gostx_gost3410_keygen(cp.key.curve, other, 32, oq, 64), "another key");
  /* the certificate of another key ([1] the key's own) */
  s.pub = 1, s.d = other;
  n = build(&s, f, sizeof f);
  refused(f, n, s.pin, GOSTX_EINVAL, GOSTX_KEYCONT_CERT_MISMATCH, "not the key of its certificate",
          "another key's certificate");
  /* [1] another key's */
  s = BASE, s.curve = cp.key.curve, s.ps = cp.key.oid, s.d = cp.key.d, s.pub_of = other;
  n = build(&s, f, sizeof f);
  refused(f, n, s.pin, GOSTX_EINVAL, GOSTX_KEYCONT_KEY_MISMATCH, "public key mismatch",
          "another key's [1]");
  s.cert = cp.cert, s.cert_len = cp.cert_len;
  n = build(&s, f, sizeof f);
  refused(f, n, s.pin, GOSTX_EINVAL, GOSTX_KEYCONT_KEY_MISMATCH, "public key mismatch",
          "another key's [1], the right certificate");
  /* neither [1] nor a certificate */
  s = BASE, s.d = NULL, s.pub = 0;
  s.d = other, s.curve = cp.key.curve, s.ps = cp.key.oid;
  n = build(&s, f, sizeof f);
  refused(f, n, s.pin, GOSTX_EUNSUP, GOSTX_KEYCONT_UNSUPPORTED, "neither a public key",
          "no [1], no certificate");
  /* another type tag, another version, a 512-bit key of class 0 */
  s.pub = 1, s.type = "ITCX";
  n = build(&s, f, sizeof f);
  refused(f, n, s.pin, GOSTX_EUNSUP, GOSTX_KEYCONT_UNSUPPORTED, "type tag is \"ITCX\"", "ITCX");
  s.type = "\x01\x02\x03\x04";
  n = build(&s, f, sizeof f);
  refused(f, n, s.pin, GOSTX_EUNSUP, GOSTX_KEYCONT_UNSUPPORTED, "type tag is 01020304", "binary tag");
  s.type = "PKEY", s.version = 0x00030000;
  n = build(&s, f, sizeof f);
  refused(f, n, s.pin, GOSTX_EUNSUP, GOSTX_KEYCONT_UNSUPPORTED, "version 0x00030000", "version 3");
  s.version = 0x00000100;
  n = build(&s, f, sizeof f);
  refused(f, n, s.pin, GOSTX_EUNSUP, GOSTX_KEYCONT_UNSUPPORTED, "version", "version 0.256");
  s.version = 0, s.alg = "1.2.643.2.2.20", s.digest = "1.2.643.2.2.30.1";
  n = build(&s, f, sizeof f);
  refused(f, n, s.pin, GOSTX_EUNSUP, GOSTX_KEYCONT_UNSUPPORTED, "is not GOST R 34.10-2001 or -2012",
          "GOST R 34.10-94");

  /* framing: an entry cut, a key block's size that does not fit */
  s = BASE, s.d = other, s.curve = cp.key.curve, s.ps = cp.key.oid, s.cert = cp.cert,
  s.cert_len = cp.cert_len;
  n = build(&s, f, sizeof f);
  refused(f, n - 1, s.pin, GOSTX_EFORMAT, GOSTX_KEYCONT_DAMAGED, "entry 1 is truncated",
          "the entry cut");
  f[n - 12 - 64 - 4] ^= 1; /* the key block's size */
  refused(f, n, s.pin, GOSTX_EFORMAT, GOSTX_KEYCONT_DAMAGED, "key block's size", "key block size");
  f[n - 12 - 64 - 4] ^= 1;
  f[n - 12 - 64] ^= 1; /* cek */
  refused(f, n, s.pin, GOSTX_EAUTH, GOSTX_KEYCONT_WRONG_PIN, "wrong PIN", "cek changed");
  f[n - 12 - 64] ^= 1;
  f[n - 1] ^= 1; /* the IV: the IMIT holds, the key differs */
  refused(f, n, s.pin, GOSTX_EINVAL, GOSTX_KEYCONT_KEY_MISMATCH, "public key mismatch", "IV changed");
  f[n - 1] ^= 1;
  damaged(f, n, s.pin, other, 32);

  gostx_keycont c;
  CHECK_RC(gostx_vipnet_read(NULL, 0, NULL, 0, &c), GOSTX_EINVAL, "no file");
  CHECK_RC(gostx_vipnet_read(f, n, NULL, 3, &c), GOSTX_EINVAL, "a PIN length without a PIN");
  gostx_keycont_clear(&cp);
  for (int i = 0; i < 4; i++) free(cf[i]);
  gostx_memzero(other, sizeof other);
  return t_done();
}
