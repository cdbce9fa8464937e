/* The GOST R 34.10-2012 key codec (lib/gost3410: key.c, the object; keys.c,
 * pkcs8.c, spki.c, pbes2.c, keys_pem.c; keys_compat.c, the earlier calls):
 * files gost-engine 3.0.1 wrote (read, and written back byte for byte),
 * round trips on every curve, the private key forms gost-engine reads
 * (INTEGER, nested OCTET STRING, masked), and refusals: every truncation,
 * trailing bytes, non-minimal lengths, unknown OIDs, wrong sizes, d = 0 or
 * >= q, points off the curve, bad PEM. No OpenSSL needed (the live engine
 * is test_gost3410_engine's). */
#include <stdio.h>
#include <string.h>

#include "gost3410/ec.h"
#include "testutil.h"
#include "key_compat.h"

/* `openssl genpkey -engine gost -algorithm gost2012_256 -pkeyopt paramset:TCA`
 * and `... gost2012_512 -pkeyopt paramset:A` (gost-engine 3.0.1), and their
 * `openssl pkey -pubout`. */
static const char engine_256a[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MD4CAQAwFwYIKoUDBwEBAQEwCwYJKoUDBwECAQEBBCDiakQBu72EG76IHSlgQ4e5\n"
    "07UJTEhnC/qx4I4n2kiNLw==\n"
    "-----END PRIVATE KEY-----\n";
static const char engine_512a[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MGgCAQAwIQYIKoUDBwEBAQIwFQYJKoUDBwECAQIBBggqhQMHAQECAwRAeeYM9SgZ\n"
    "MmJq/JBD4J4j82PqeWFpijDsPxLCOj0oLFfmY+tR2qm3eXqI2Jm/S267tVg009ii\n"
    "cjIQSpvrAbWC0Q==\n"
    "-----END PRIVATE KEY-----\n";

static gostx_gost3410_key_kind kind;
static gostx_gost3410_curve curve;
static size_t klen;
static uint8_t d[64], q[128];

static int read_der(const uint8_t *der, size_t n) {
  return tk_key_from_der(der, n, &kind, &curve, &klen, d, sizeof d, q, sizeof q);
}
static int read_pem(const char *pem, size_t n) {
  return tk_key_from_pem(pem, n, &kind, &curve, &klen, d, sizeof d, q, sizeof q);
}

static void engine_files(void) {
  const char *files[] = {engine_256a, engine_512a};
  const gostx_gost3410_curve want[] = {GOSTX_GOST3410_256_A, GOSTX_GOST3410_512_A};
  for (int i = 0; i < 2; i++) {
    char pem[GOSTX_GOST3410_PEM_MAX];
    size_t n;
    CHECK_RC(read_pem(files[i], strlen(files[i])), 0, "read gost-engine's key");
    CHECK(kind == GOSTX_GOST3410_KEY_PRIVATE && curve == want[i], "engine key %d: kind, curve", i);
    uint8_t pub[128];
    CHECK_RC(gostx_gost3410_public_key(curve, d, klen, pub, 2 * klen), 0, "public_key");
    CHECK_BYTES(q, pub, 2 * klen, "the reader's Q = d P");
    CHECK_RC(tk_priv_to_pem(curve, d, klen, pem, sizeof pem, &n), 0, "priv_to_pem");
    CHECK(n == strlen(files[i]) && !memcmp(pem, files[i], n) && pem[n] == 0,
          "engine key %d written back byte for byte", i);
  }
}

static void round_trips(void) {
  for (int c = GOSTX_GOST3410_256_TEST; c <= GOSTX_GOST3410_512_C; c++) {
    size_t len = gostx_gost3410_size(c), n;
    uint8_t priv[64], pub[128], der[GOSTX_GOST3410_DER_MAX];
    char pem[GOSTX_GOST3410_PEM_MAX];
    CHECK_RC(gostx_gost3410_keygen(c, priv, len, pub, 2 * len), 0, "keygen");
    CHECK_RC(tk_priv_to_der(c, priv, len, der, sizeof der, &n), 0, "priv_to_der");
    CHECK(read_der(der, n) == 0 && kind == GOSTX_GOST3410_KEY_PRIVATE && curve == (gostx_gost3410_curve)c &&
              klen == len && !memcmp(d, priv, len) && !memcmp(q, pub, 2 * len),
          "curve %d: private DER round trip", c);
    /* every truncation is refused, and a trailing byte */
    int all = 1;
    for (size_t k = 0; k < n; k++) all &= read_der(der, k) == GOSTX_EFORMAT;
    CHECK(all, "curve %d: every truncation refused", c);
    der[n] = 0;
    CHECK_RC(read_der(der, n + 1), GOSTX_EFORMAT, "trailing byte");
    CHECK_RC(tk_priv_to_der(c, priv, len, der, n - 1, &n), GOSTX_ELEN, "small cap");
    CHECK_RC(tk_pub_to_der(c, pub, 2 * len, der, sizeof der, &n), 0, "pub_to_der");
    memset(d, 0xee, sizeof d);
    CHECK(read_der(der, n) == 0 && kind == GOSTX_GOST3410_KEY_PUBLIC && !memcmp(q, pub, 2 * len) &&
              d[0] == 0xee,
          "curve %d: public DER round trip, priv untouched", c);
    all = 1;
    for (size_t k = 0; k < n; k++) all &= read_der(der, k) == GOSTX_EFORMAT;
    CHECK(all, "curve %d: every public truncation refused", c);
    CHECK_RC(tk_pub_to_pem(c, pub, 2 * len, pem, sizeof pem, &n), 0, "pub_to_pem");
    CHECK(read_pem(pem, n) == 0 && kind == GOSTX_GOST3410_KEY_PUBLIC && !memcmp(q, pub, 2 * len),
          "curve %d: public PEM round trip", c);
    CHECK_RC(tk_priv_to_pem(c, priv, len, pem, sizeof pem, &n), 0, "priv_to_pem");
    CHECK(read_pem(pem, n) == 0 && !memcmp(d, priv, len), "curve %d: private PEM round trip", c);
    CHECK_RC(tk_key_from_pem(pem, n, &kind, &curve, &klen, d, len - 1, NULL, 0),
             GOSTX_ELEN, "priv_cap too small");
  }
}

/* A 256 paramSetA PKCS#8 with privateKey content `key` (klen bytes). */
static size_t p8_with(const uint8_t *key, size_t key_len, uint8_t *out) {
  static const uint8_t head[] = {0x02, 0x01, 0x00, 0x30, 0x17, 0x06, 0x08, 0x2a, 0x85, 0x03,
                                 0x07, 0x01, 0x01, 0x01, 0x01, 0x30, 0x0b, 0x06, 0x09, 0x2a,
                                 0x85, 0x03, 0x07, 0x01, 0x02, 0x01, 0x01, 0x01};
  size_t body = sizeof head + 2 + key_len, n = 0;
  out[n++] = 0x30;
  out[n++] = (uint8_t)body; /* the callers keep it below 128 */
  memcpy(out + n, head, sizeof head);
  n += sizeof head;
  out[n++] = 0x04;
  out[n++] = (uint8_t)key_len;
  memcpy(out + n, key, key_len);
  return n + key_len;
}

static void private_forms(void) {
  uint8_t priv[32], pub[128], le[32], k[80], der[128];
  size_t n;
  CHECK_RC(gostx_gost3410_keygen(GOSTX_GOST3410_256_A, priv, 32, pub, 64), 0, "keygen");
  for (int i = 0; i < 32; i++) le[i] = priv[31 - i];
  /* nested OCTET STRING (gost-engine's LEGACY_PK_WRAP) */
  k[0] = 0x04, k[1] = 32;
  memcpy(k + 2, le, 32);
  n = p8_with(k, 34, der);
  CHECK(read_der(der, n) == 0 && !memcmp(d, priv, 32), "nested OCTET STRING");
  /* INTEGER, big-endian, minimal: leading zero bytes dropped (a 256
   * paramSetA key's top byte is 0 one time in 64), a sign byte when the top
   * bit is set; the generated key and a fixed one with a zero top byte. (With
   * two zero bytes the INTEGER is 32 bytes long, which gost-engine's rule
   * reads as a bare little-endian key: that generated key, 1 in 16384, is
   * skipped.) */
  static const uint8_t short_key[32] = {0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2,
                                        3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                                        19, 20, 21, 22, 23};
  for (int form = 0; form < 2; form++) {
    const uint8_t *key = form ? short_key : priv;
    size_t off = 0, il = 0;
    while (off < 31 && key[off] == 0) off++;
    if (off >= 2) continue;
    k[il++] = 0x02;
    k[il++] = (uint8_t)(32 - off + (key[off] >> 7));
    if (key[off] & 0x80) k[il++] = 0;
    memcpy(k + il, key + off, 32 - off);
    n = p8_with(k, il + 32 - off, der);
    CHECK(read_der(der, n) == 0 && !memcmp(d, key, 32), "INTEGER (%s key, %zu zero bytes dropped)",
          form ? "fixed" : "generated", off);
  }
  /* nested OCTET STRING without the key's top zero byte, as GnuTLS's
   * certtool writes one key in 256 (gost-engine refuses it) */
  k[0] = 0x04, k[1] = 31;
  for (int i = 0; i < 31; i++) k[2 + i] = short_key[31 - i];
  CHECK(read_der(der, p8_with(k, 33, der)) == 0 && !memcmp(d, short_key, 32),
        "nested OCTET STRING of 31 bytes (certtool's short key)");
  k[1] = 0;
  CHECK_RC(read_der(der, p8_with(k, 2, der)), GOSTX_EFORMAT, "empty nested OCTET STRING");
  k[1] = 33;
  memset(k + 2, 1, 33);
  CHECK_RC(read_der(der, p8_with(k, 35, der)), GOSTX_EFORMAT, "nested OCTET STRING of 33 bytes");
  k[0] = 0x02, k[1] = 2, k[2] = 0x00, k[3] = 0x05; /* non-minimal */
  CHECK_RC(read_der(der, p8_with(k, 4, der)), GOSTX_EFORMAT, "INTEGER with a needless 00");
  k[0] = 0x02, k[1] = 1, k[2] = 0x85; /* negative */
  CHECK_RC(read_der(der, p8_with(k, 3, der)), GOSTX_EFORMAT, "negative INTEGER");
  /* masked: k0 || m with m = 1 gives k0; m = q - 1 gives -k0, Q = (x, p - y) */
  gx_curve C;
  gostx__ec_curve_load(&C, GOSTX_GOST3410_256_A);
  uint8_t qm1[32], pb[32];
  gx_fe t;
  memcpy(t, C.q, sizeof t);
  t[0] -= 1;
  gostx__fe_store_be(qm1, t, 4);
  gostx__fe_store_be(pb, C.fp.m, 4);
  memcpy(k, le, 32);
  memset(k + 32, 0, 32);
  k[32] = 1;
  CHECK(read_der(der, p8_with(k, 64, der)) == 0 && !memcmp(d, priv, 32), "masked, m = 1");
  for (int i = 0; i < 32; i++) k[32 + i] = qm1[31 - i];
  CHECK_RC(read_der(der, p8_with(k, 64, der)), 0, "masked, m = q - 1");
  CHECK_BYTES(q, pub, 32, "masked, m = q - 1: same x");
  unsigned carry = 0, sum_ok = 1; /* y + y' = p */
  for (int i = 31; i >= 0; i--) {
    unsigned s = (unsigned)pub[32 + i] + q[32 + i] + carry;
    sum_ok &= (s & 0xff) == pb[i];
    carry = s >> 8;
  }
  CHECK(sum_ok, "masked, m = q - 1: y' = p - y");
  /* the SEQUENCE { masked OCTET STRING, public OCTET STRING } form */
  uint8_t s[80];
  size_t sl = 0;
  s[sl++] = 0x30, s[sl++] = 2 + 32 + 2;
  s[sl++] = 0x04, s[sl++] = 32;
  memcpy(s + sl, le, 32), sl += 32;
  s[sl++] = 0x04, s[sl++] = 0;
  CHECK(read_der(der, p8_with(s, sl, der)) == 0 && !memcmp(d, priv, 32), "masked SEQUENCE");
  /* d = 0 and d = q: refused as invalid */
  memset(k, 0, 32);
  CHECK_RC(read_der(der, p8_with(k, 32, der)), GOSTX_EINVAL, "d = 0");
  gostx__fe_store_be(qm1, C.q, 4);
  for (int i = 0; i < 32; i++) k[i] = qm1[31 - i];
  CHECK_RC(read_der(der, p8_with(k, 32, der)), GOSTX_EINVAL, "d = q");
  CHECK_RC(read_der(der, p8_with(k, 31, der)), GOSTX_EFORMAT, "31-byte key");
}

static void refusals(void) {
  uint8_t priv[64], pub[128], der[GOSTX_GOST3410_DER_MAX + 8], x[GOSTX_GOST3410_DER_MAX + 8];
  size_t n;
  CHECK_RC(gostx_gost3410_keygen(GOSTX_GOST3410_256_B, priv, 32, pub, 64), 0, "keygen");
  CHECK_RC(tk_priv_to_der(GOSTX_GOST3410_256_B, priv, 32, der, sizeof der, &n), 0, "der");
  /* layout: 30 L 02 01 00 30 L 06 08 <alg 8> 30 L 06 07 <paramset 7> 06 08 <digest 8> 04 20 <key> */
  CHECK(der[7] == 0x06 && der[8] == 8 && der[19] == 0x06 && der[28] == 0x06, "layout as expected");
  memcpy(x, der, n), x[16] = 0x03; /* algorithm ...1.1.1.3: unknown */
  CHECK_RC(read_der(x, n), GOSTX_EUNSUP, "unknown algorithm");
  memcpy(x, der, n), x[16] = 0x02; /* the 512 algorithm with a 256-bit curve */
  CHECK_RC(read_der(x, n), GOSTX_EFORMAT, "curve of the other size");
  memcpy(x, der, n), x[27] = 0x09; /* paramset 1.2.643.2.2.35.9 */
  CHECK_RC(read_der(x, n), GOSTX_EUNSUP, "unknown parameter set");
  memcpy(x, der, n), x[37] = 0x03; /* Streebog-512 OID on a 256-bit key */
  CHECK_RC(read_der(x, n), GOSTX_EFORMAT, "digest OID of the other size");
  memcpy(x, der, n), x[4] = 0x02; /* version 2: no such OneAsymmetricKey */
  CHECK_RC(read_der(x, n), GOSTX_EFORMAT, "version 2");
  memcpy(x, der, n), x[4] = 0x01; /* version 1 (v2) without the optional publicKey */
  CHECK_RC(read_der(x, n), 0, "version 1 (RFC 5958 v2)");
  /* v2 with [1] publicKey: 81 41 00 x||y little-endian, after the key (the
   * SEQUENCE's length grows by 67 and takes a second byte: 30 81 L) */
  uint8_t *v2 = x + 1; /* x[0..n + 68): the long header, then der's body */
  CHECK(der[1] + 67 >= 0x80 && der[1] + 67 < 0x100, "the length takes 81 L");
  x[0] = 0x30, x[1] = 0x81, x[2] = (uint8_t)(der[1] + 67);
  memcpy(x + 3, der + 2, n - 2);
  v2[4] = 0x01; /* the version, one byte further on */
  x[n + 1] = 0x81, x[n + 2] = 65, x[n + 3] = 0;
  for (size_t i = 0; i < 32; i++) x[n + 4 + i] = pub[31 - i], x[n + 36 + i] = pub[63 - i];
  CHECK_RC(read_der(x, n + 68), 0, "v2 with its publicKey");
  x[n + 40] ^= 1;
  CHECK_RC(read_der(x, n + 68), GOSTX_EINVAL, "v2 with a publicKey that is not its Q");
  x[n + 40] ^= 1, v2[4] = 0;
  CHECK_RC(read_der(x, n + 68), GOSTX_EFORMAT, "a publicKey in a version 0 key");
  /* non-minimal length: 30 81 L */
  x[0] = 0x30, x[1] = 0x81, x[2] = der[1];
  memcpy(x + 3, der + 2, n - 2);
  CHECK_RC(read_der(x, n + 1), GOSTX_EFORMAT, "non-minimal length");
  x[1] = 0x80; /* indefinite */
  CHECK_RC(read_der(x, n + 1), GOSTX_EFORMAT, "indefinite length");
  /* public key: off the curve, unused bits, wrong point length */
  CHECK_RC(tk_pub_to_der(GOSTX_GOST3410_256_B, pub, 64, der, sizeof der, &n), 0, "pub");
  memcpy(x, der, n), x[n - 1] ^= 1;
  CHECK_RC(read_der(x, n), GOSTX_EINVAL, "point off the curve");
  memcpy(x, der, n), x[n - 67] = 1;
  CHECK(der[n - 67] == 0, "unused-bits byte at n - 67");
  CHECK_RC(read_der(x, n), GOSTX_EFORMAT, "unused bits");
  CHECK_RC(tk_pub_to_der(GOSTX_GOST3410_256_B, pub, 63, der, sizeof der, &n), GOSTX_ELEN, "pub len");
  pub[63] ^= 1;
  CHECK_RC(tk_pub_to_der(GOSTX_GOST3410_256_B, pub, 64, der, sizeof der, &n), GOSTX_EINVAL,
           "writer refuses a point off the curve");
  memset(priv, 0, 32);
  CHECK_RC(tk_priv_to_der(GOSTX_GOST3410_256_B, priv, 32, der, sizeof der, &n), GOSTX_EINVAL,
           "writer refuses d = 0");
  /* signature halves */
  uint8_t sig[64], sw[64];
  for (int i = 0; i < 64; i++) sig[i] = (uint8_t)i;
  CHECK_RC(gostx_gost3410_sig_swap(sig, 64, sw, 64), 0, "sig_swap");
  CHECK(sw[0] == 32 && sw[32] == 0 && sw[63] == 31, "sig_swap swaps the halves");
  CHECK_RC(gostx_gost3410_sig_swap(sig, 63, sw, 63), GOSTX_ELEN, "sig_swap length");
}

static void pem_refusals(void) {
  char pem[GOSTX_GOST3410_PEM_MAX + 64];
  size_t n = strlen(engine_256a);
  CHECK_RC(read_pem(engine_256a, n), 0, "valid");
  memcpy(pem, engine_256a, n + 1);
  pem[40] = '*';
  CHECK_RC(read_pem(pem, n), GOSTX_EFORMAT, "bad base64 character");
  memcpy(pem, engine_256a, n + 1);
  char *eq = strstr(pem, "==");
  eq[-1] = 'x'; /* 'w' -> 'x': the unused low bits of the last group set */
  CHECK_RC(read_pem(pem, n), GOSTX_EFORMAT, "non-canonical padding bits");
  memcpy(pem, engine_256a, n + 1);
  memcpy(strstr(pem, "END PRIVATE") + 4, "PUBLIC ", 7); /* END label differs */
  CHECK_RC(read_pem(pem, n), GOSTX_EFORMAT, "END label differs");
  memcpy(pem, "junk", 4), memcpy(pem + 4, engine_256a, n + 1);
  CHECK_RC(read_pem(pem, n + 4), GOSTX_EFORMAT, "BEGIN not at a line's start");
  memcpy(pem, engine_256a, n + 1);
  memcpy(strstr(pem, "-----\n") + 5, "x\n", 2); /* "-----BEGIN PRIVATE KEY-----x" */
  CHECK_RC(read_pem(pem, n), GOSTX_EFORMAT, "text after BEGIN's dashes");
  memcpy(pem, engine_256a, n - 1), memcpy(pem + n - 1, "x\n", 3);
  CHECK_RC(read_pem(pem, n + 1), GOSTX_EFORMAT, "text after END's dashes");
  memcpy(pem, "\r\n  ", 4), memcpy(pem + 4, engine_256a, n + 1);
  CHECK_RC(read_pem(pem, n + 4), 0, "whitespace around the block");
  const char *enc = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAA=\n-----END ENCRYPTED PRIVATE KEY-----\n";
  CHECK_RC(read_pem(enc, strlen(enc)), GOSTX_EUNSUP, "encrypted key: unsupported");
  for (size_t k = 0; k + 1 < n; k++) /* all but the final newline count */
    if (read_pem(engine_256a, k) == 0) CHECK(0, "truncated PEM accepted at %zu", k);
}

/* ---- encrypted PKCS#8 (PBES2) ---- */

/* gost-engine 3.0.1 (OpenSSL 3.0.19), 2026-11-25: `openssl pkcs8 -engine gost
 * -topk8 -in K -v2 kuznyechik-ctr-acpkm (magma-ctr-acpkm) -v2prf
 * id-tc26-hmac-gost-3411-2012-512 -passout pass:pw` of one 512 paramSetB key
 * K generated by the engine, whose d is enc_d; and `openssl genpkey -engine
 * gost -algorithm gost2012_256 -pkeyopt paramset:A -aes256 -pass pass:x`
 * (OpenSSL's default scheme: PBKDF2-HMAC-SHA256, AES-256-CBC). */
static const char engine_enc_kuz[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIHHMFkGCSqGSIb3DQEFDTBMMCkGCSqGSIb3DQEFDDAcBAjpxTfQk7NfFgICCAAw\n"
    "DAYIKoUDBwEBBAIFADAfBgkqhQMHAQEFAgEwEgQQccV4YbPkIM0AAAAAAAAAAARq\n"
    "qCNVSrmzQModUSgU6KvmhJO8d0+DgrVgt/nZn3V7KBB1BjPBH/iDwGDHwH9NFy8h\n"
    "HuyBtG0wh5gtiPWzEJmw7H7xB30j8OsGeOV/CBPUKEvDeSiF+kreqLKhIo5LEkJm\n"
    "HMNAgDpAEmoHeQ==\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";
static const char engine_enc_magma[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIHDMFUGCSqGSIb3DQEFDTBIMCkGCSqGSIb3DQEFDDAcBAimsGfoQFeIYAICCAAw\n"
    "DAYIKoUDBwEBBAIFADAbBgkqhQMHAQEFAQEwDgQM6BA+1wAAAAAAAAAABGqVikVs\n"
    "MoGKc5B31F/6XWTw6KHcgnMMd91p212J/wus/JFpfPAc5w/EwKW2dH/cxUwa8j4H\n"
    "BnnRjdv8BvMmwxJ/pzrvM/FhzPgBCoUCPZYBAoaiL1f8cV56UnHDl2Ln58JQ+kH6\n"
    "WwrWOaTx\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";
/* `openssl pkcs8 -engine gost -topk8 -v2 gost89 -v2prf
 * id-tc26-hmac-gost-3411-2012-512 -passout pass:x` of a 256 paramSetA key
 * (d = enc89_d): GOST 28147-89 CFB, parameter set Z, read only. */
static const char engine_enc_gost89[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIGdMFkGCSqGSIb3DQEFDTBMMCkGCSqGSIb3DQEFDDAcBAi8QsCbLX/biAICCAAw\n"
    "DAYIKoUDBwEBBAIFADAfBgYqhQMCAhUwFQQIfI/Da6isPVEGCSqFAwcBAgUBAQRA\n"
    "9+cbiv+ajkTbcdaj4wUc+G10TrpI67IqhqpMpF9YdQCDGr+1dI5L4QHtDFWS46AS\n"
    "qOUcDBwRRt1f7oEC18ARQg==\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";
static const char enc89_d[] = "10273c75b3c79f4703bee86afb2516347e11d3f9ff65a150451a8dcb9d0aba86";
static const char openssl_enc_aes[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIGrMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAiE+lOjJAVIMAICCAAw\n"
    "DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEEzclTSl5N8rKmSJDf9LU2wEUAJk\n"
    "YWeA4PjE2C3jgqrsrofKKCA1ZPI/PUiZkVGVGZOiOcwqJcYJIUh2GOj1een7uN4o\n"
    "Ia+FSswRc/8EkZ9/hSxUQMg3tyYdC/lmOr80voOd\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";
/* gost-engine 3.0.1 (OpenSSL 3.0.19), 2026-11-26: `openssl pkcs8 -engine
 * gost -topk8 -in K -v2 kuznyechik-ctr-acpkm (magma-ctr-acpkm) -passout
 * pass:pw256` with no -v2prf: OpenSSL's default PRF, PBKDF2-HMAC-SHA256,
 * around a 512 paramSetC key K generated by the engine, whose d (`openssl
 * pkey -text`) is sha_d. */
static const char engine_sha256_kuz[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIG9MFkGCSqGSIb3DQEFDTBMMCkGCSqGSIb3DQEFDDAcBAgrP7M+UkDC0AICCAAw\n"
    "DAYIKoZIhvcNAgkFADAfBgkqhQMHAQEFAgEwEgQQgIJ49qwbil4AAAAAAAAAAARg\n"
    "xMVXHY1LUMvU1BJejS9nxcZUtMiP5QsitE9gCM14zAO6cPuDitGyNMLSh+6yzTYm\n"
    "zjDTCIUSK7aYIb22sYFqFrheivVl5PCnR5upbOnVHo7RN29RwyawGWePGNU46xZF\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";
static const char engine_sha256_magma[] =
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    "MIG5MFUGCSqGSIb3DQEFDTBIMCkGCSqGSIb3DQEFDDAcBAj3wkgrWVyDhQICCAAw\n"
    "DAYIKoZIhvcNAgkFADAbBgkqhQMHAQEFAQEwDgQMve7JvAAAAAAAAAAABGCLjJ63\n"
    "EIJwUzjE0rAXt4racEpOzpJNjhBbksrrt2sRea0psW0xKafih3OXqcREm6z1euDc\n"
    "Cw4oTEEM43eq8ejZgEsdjfdKB+gD4vPM3RcHGmGaDECEVG+zb3iJVGhVE14=\n"
    "-----END ENCRYPTED PRIVATE KEY-----\n";
static const char sha_d[] =
    "19371b0ab304e3b5f1fb95e4e37dcde078bbddfa45992bcf13f367a9ef11f507"
    "e896af9a69976f19fd8307be73700505ffa293a983d1af9a6660b5dab9fa72d8";
static const char enc_d[] =
    "444a6d6f189f2fa862106251214ae2cfd8571585eb624eda079804504bca7f3b"
    "49bbb9cf9c07913bb0fc05356fdc890f888b439196eace78a8104c8d771814f7";

static int read_enc_pem(const char *pem, const char *pass) {
  return tk_key_from_encrypted_pem(pem, strlen(pem), (const uint8_t *)pass,
                                               strlen(pass), &curve, &klen, d, sizeof d, q,
                                               sizeof q);
}

static void unhex(const char *h, uint8_t *out, size_t n) {
  for (size_t i = 0; i < n; i++) sscanf(h + 2 * i, "%2hhx", &out[i]);
}

/* Replaces the first occurrence of from[n] in buf[len] by to[n]. */
static int swap_bytes(uint8_t *buf, size_t len, const uint8_t *from, const uint8_t *to, size_t n) {
  for (size_t i = 0; i + n <= len; i++)
    if (!memcmp(buf + i, from, n)) return memcpy(buf + i, to, n), 1;
  return 0;
}

static void encrypted_keys(void) {
  uint8_t want[64];
  char text[160];
  unhex(enc_d, want, 64);
  /* gost-engine's files: both ciphers, the right key. */
  const char *files[] = {engine_enc_kuz, engine_enc_magma};
  for (int i = 0; i < 2; i++) {
    memset(d, 0, sizeof d);
    CHECK_RC(read_enc_pem(files[i], "pw"), 0, "read gost-engine's encrypted key");
    CHECK(curve == GOSTX_GOST3410_512_B && klen == 64, "engine encrypted key %d: curve", i);
    CHECK_BYTES(d, want, 64, "engine encrypted key: d");
    CHECK_RC(tk_encrypted_scheme_pem(files[i], strlen(files[i]), text, sizeof text), 0,
             "scheme supported");
    CHECK(strstr(text, i ? "magma-ctr-acpkm" : "kuznyechik-ctr-acpkm") != NULL, "scheme: %s", text);
    uint8_t before[64];
    memcpy(before, d, 64);
    CHECK_RC(read_enc_pem(files[i], "pW"), GOSTX_EAUTH, "wrong password");
    CHECK(!memcmp(before, d, 64), "outputs untouched after a wrong password");
    /* a plain reader calls it well-formed but not its kind */
    CHECK_RC(read_pem(files[i], strlen(files[i])), GOSTX_EUNSUP, "plain reader: EUNSUP");
  }
  /* gost-engine's GOST 28147-89 CFB file: read (not written). */
  unhex(enc89_d, want, 32);
  CHECK_RC(read_enc_pem(engine_enc_gost89, "x"), 0, "read gost-engine's gost89 PBES2 key");
  CHECK(curve == GOSTX_GOST3410_256_A && klen == 32 && !memcmp(d, want, 32), "gost89: d");
  CHECK_RC(read_enc_pem(engine_enc_gost89, "y"), GOSTX_EAUTH, "gost89: wrong password");
  CHECK_RC(tk_encrypted_scheme_pem(engine_enc_gost89, strlen(engine_enc_gost89), text,
                                               sizeof text), 0, "gost89 scheme supported");
  CHECK(!strcmp(text, "PBES2: PBKDF2 with HMAC-Streebog-512, GOST 28147-89 CFB 1.2.643.7.1.2.5.1.1"),
        "gost89 named: %s", text);
  /* gost-engine's default PRF (HMAC-SHA256) with either GOST cipher: read. */
  const char *sha_files[] = {engine_sha256_kuz, engine_sha256_magma};
  unhex(sha_d, want, 64);
  for (int i = 0; i < 2; i++) {
    memset(d, 0, sizeof d);
    CHECK_RC(read_enc_pem(sha_files[i], "pw256"), 0, "read gost-engine's HMAC-SHA256 PBES2 key");
    CHECK(curve == GOSTX_GOST3410_512_C && klen == 64 && !memcmp(d, want, 64),
          "HMAC-SHA256 file %d: curve, d", i);
    CHECK_RC(read_enc_pem(sha_files[i], "pw255"), GOSTX_EAUTH, "HMAC-SHA256 file: wrong password");
    CHECK_RC(tk_encrypted_scheme_pem(sha_files[i], strlen(sha_files[i]), text,
                                                 sizeof text), 0, "HMAC-SHA256 scheme supported");
    CHECK(!strcmp(text, i ? "PBES2: PBKDF2 with hmacWithSHA256, magma-ctr-acpkm"
                          : "PBES2: PBKDF2 with hmacWithSHA256, kuznyechik-ctr-acpkm"),
          "HMAC-SHA256 named: %s", text);
  }
  /* OpenSSL's default scheme: refused, and named. */
  CHECK_RC(read_enc_pem(openssl_enc_aes, "x"), GOSTX_EUNSUP, "AES-256-CBC refused");
  CHECK_RC(tk_encrypted_scheme_pem(openssl_enc_aes, strlen(openssl_enc_aes), text,
                                               sizeof text),
           GOSTX_EUNSUP, "AES scheme: EUNSUP");
  CHECK(!strcmp(text, "PBES2: PBKDF2 with hmacWithSHA256, aes-256-cbc"), "AES named: %s", text);

  /* Round trips: every curve, both ciphers, DER and PEM. */
  for (int c = GOSTX_GOST3410_256_TEST; c <= GOSTX_GOST3410_512_C; c++) {
    size_t len = gostx_gost3410_size(c), n, n2;
    uint8_t priv[64], pub[128], der[GOSTX_GOST3410_DER_MAX], der2[GOSTX_GOST3410_DER_MAX];
    char pem[GOSTX_GOST3410_PEM_MAX];
    const uint8_t pass[] = "correct horse";
    gostx_gost3410_keygen(c, priv, len, pub, 2 * len);
    for (int ci = GOSTX_GOST3410_PBE_KUZNYECHIK; ci <= GOSTX_GOST3410_PBE_MAGMA; ci++) {
      CHECK_RC(tk_priv_to_encrypted_der(c, priv, len, pass, 13, ci, 3, der, sizeof der, &n),
               0, "priv_to_encrypted_der");
      CHECK_RC(tk_key_from_encrypted_der(der, n, pass, 13, &curve, &klen, d, sizeof d, q,
                                                     sizeof q), 0, "encrypted DER round trip");
      CHECK(curve == (gostx_gost3410_curve)c && klen == len && !memcmp(d, priv, len) &&
                !memcmp(q, pub, 2 * len), "curve %d cipher %d: d, Q back", c, ci);
      CHECK_RC(tk_priv_to_encrypted_der(c, priv, len, pass, 13, ci, 3, der2, sizeof der2, &n2),
               0, "again");
      CHECK(n == n2 && memcmp(der, der2, n) != 0, "fresh salt and IV each time");
      CHECK_RC(tk_key_from_encrypted_der(der, n, pass, 12, &curve, &klen, d, sizeof d, q,
                                                     sizeof q), GOSTX_EAUTH, "wrong password (shorter)");
      CHECK_RC(tk_key_from_encrypted_der(der, n, NULL, 0, &curve, &klen, d, sizeof d, q,
                                                     sizeof q), GOSTX_EAUTH, "empty password");
      der[n - 1] ^= 0x80; /* the last ciphertext byte: d's top bits */
      int rc = tk_key_from_encrypted_der(der, n, pass, 13, &curve, &klen, d, sizeof d,
                                                     q, sizeof q);
      CHECK(rc == GOSTX_EAUTH || (rc == 0 && memcmp(d, priv, len)), "a damaged ciphertext is not the key");
      der[n - 1] ^= 0x80;
      for (size_t cut = 0; cut < n; cut++)
        CHECK_RC(tk_key_from_encrypted_der(der, cut, pass, 13, &curve, &klen, d,
                                                       sizeof d, q, sizeof q),
                 GOSTX_EFORMAT, "truncated EncryptedPrivateKeyInfo");
      CHECK_RC(tk_priv_to_encrypted_pem(c, priv, len, pass, 13, ci, 2, pem, sizeof pem, &n),
               0, "priv_to_encrypted_pem");
      CHECK(!strncmp(pem, "-----BEGIN ENCRYPTED PRIVATE KEY-----\n", 38) && pem[n] == 0, "PEM label");
      CHECK_RC(tk_key_from_encrypted_pem(pem, n, pass, 13, &curve, &klen, d, sizeof d, q,
                                                     sizeof q), 0, "encrypted PEM round trip");
      CHECK(!memcmp(d, priv, len), "PEM: d back");
    }
    CHECK_RC(tk_priv_to_encrypted_der(c, priv, len, pass, 13, 3, 3, der, sizeof der, &n),
             GOSTX_EINVAL, "unknown cipher");
    CHECK_RC(tk_priv_to_encrypted_der(c, priv, len, pass, 13, 1, 0, der, sizeof der, &n),
             GOSTX_EINVAL, "0 iterations");
    CHECK_RC(tk_priv_to_encrypted_der(c, priv, len, pass, 13, 1, 1, der, 10, &n),
             GOSTX_ELEN, "small buffer");
  }
  /* Schemes swapped in by their OIDs (same lengths): named and refused. */
  {
    static const uint8_t kuz[] = {0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x05, 0x02, 0x01};
    static const uint8_t aes[] = {0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2a};
    static const uint8_t streebog[] = {0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x04, 0x02};
    static const uint8_t sha256[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x09};
    static const uint8_t sha1[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x07};
    uint8_t priv[32], pub[64], der[GOSTX_GOST3410_DER_MAX], mod[GOSTX_GOST3410_DER_MAX];
    size_t n;
    gostx_gost3410_keygen(GOSTX_GOST3410_256_A, priv, 32, pub, 64);
    CHECK_RC(tk_priv_to_encrypted_der(GOSTX_GOST3410_256_A, priv, 32, (const uint8_t *)"p",
                                                  1, 1, 1, der, sizeof der, &n), 0, "write");
    /* AES and SHA-1: refused, named. HMAC-SHA256 is read, so the key it
     * derives (not the one the file was made with) decrypts to junk. */
    const struct { const uint8_t *from, *to; size_t n; int rc, scheme_rc; const char *name; } swaps[] = {
        {kuz, aes, sizeof kuz, GOSTX_EUNSUP, GOSTX_EUNSUP,
         "PBES2: PBKDF2 with HMAC-Streebog-512, aes-256-cbc"},
        {streebog, sha1, sizeof sha1, GOSTX_EUNSUP, GOSTX_EUNSUP,
         "PBES2: PBKDF2 with hmacWithSHA1, kuznyechik-ctr-acpkm"},
        {streebog, sha256, sizeof sha256, GOSTX_EAUTH, 0,
         "PBES2: PBKDF2 with hmacWithSHA256, kuznyechik-ctr-acpkm"},
    };
    for (size_t i = 0; i < sizeof swaps / sizeof swaps[0]; i++) {
      memcpy(mod, der, n);
      CHECK(swap_bytes(mod, n, swaps[i].from, swaps[i].to, swaps[i].n), "OID %zu found", i);
      CHECK_RC(tk_key_from_encrypted_der(mod, n, (const uint8_t *)"p", 1, &curve, &klen,
                                                     d, sizeof d, q, sizeof q),
               swaps[i].rc, swaps[i].name);
      CHECK_RC(tk_encrypted_scheme(mod, n, text, sizeof text), swaps[i].scheme_rc,
               swaps[i].name);
      CHECK(!strcmp(text, swaps[i].name), "named: %s", text);
    }
    CHECK_RC(tk_encrypted_scheme(der, n, text, sizeof text), 0, "ours");
    CHECK(!strcmp(text, "PBES2: PBKDF2 with HMAC-Streebog-512, kuznyechik-ctr-acpkm"), "named: %s", text);
    /* a plain key is no EncryptedPrivateKeyInfo */
    CHECK_RC(tk_priv_to_der(GOSTX_GOST3410_256_A, priv, 32, der, sizeof der, &n), 0, "der");
    CHECK_RC(tk_encrypted_scheme(der, n, text, sizeof text), GOSTX_EFORMAT, "plain key");
  }
}

/* `certtool --generate-privkey --key-type gost12-256` (GnuTLS 3.7.9): its
 * default output, a description of the key (d, x, y in hex, big-endian)
 * before the PEM block. */
static const char certtool_256[] =
    "Public Key Info:\n"
    "\tPublic Key Algorithm: GOST R 34.10-2012-256\n"
    "\tKey Security Level: High (256 bits)\n"
    "\n"
    "curve:\tCryptoPro-A\n"
    "digest:\tSTREEBOG-256\n"
    "paramset:\tTC26-Z\n"
    "private key:\n"
    "\t27:59:0e:5c:94:6f:c4:cb:90:d4:8e:82:ad:6d:e5:fd\n"
    "\t39:a2:f2:50:d1:e3:61:aa:80:12:b0:9d:17:03:95:dc\n"
    "\t\n"
    "\n"
    "x:\n"
    "\tc7:fc:da:98:a6:88:de:44:ed:60:61:33:78:f9:30:87\n"
    "\t70:7f:6a:58:14:e9:88:b6:06:cc:4e:5c:d8:aa:22:e8\n"
    "\t\n"
    "\n"
    "y:\n"
    "\t55:52:2b:b6:11:3e:02:de:00:93:53:29:f9:12:28:a1\n"
    "\t98:16:14:e3:9d:0f:5e:78:d8:a2:7d:7b:aa:6e:7e:bd\n"
    "\t\n"
    "\n"
    "\n"
    "Public Key PIN:\n"
    "\tpin-sha256:tmpkHSQp2XNtlEBs58xf5hODKU1YropGaiaSRzs5udo=\n"
    "Public Key ID:\n"
    "\tsha256:b66a641d2429d9736d94406ce7cc5fe61383294d58ae8a466a2692473b39b9da\n"
    "\tsha1:af3a39f7b803a29274e121a49d135df25de2fffb\n"
    "\n"
    "-----BEGIN PRIVATE KEY-----\n"
    "MEgCAQAwHwYIKoUDBwEBAQEwEwYHKoUDAgIjAQYIKoUDBwEBAgIEIgQg3JUDF52w\n"
    "EoCqYePRUPKiOf3lba2CjtSQy8RvlFwOWSc=\n"
    "-----END PRIVATE KEY-----\n";

/* Text around the block, read as openssl reads it: skipped before the first
 * BEGIN line of ours (other blocks too), ignored after the END line. */
static void pem_around(void) {
  uint8_t want[32];
  char pem[4 * GOSTX_GOST3410_PEM_MAX];
  const char *hex = strstr(certtool_256, "private key:\n") + 13;
  for (size_t i = 0; i < 32; i++) sscanf(hex + 3 * i + (i >= 16 ? 2 : 1), "%2hhx", &want[i]);
  CHECK_RC(read_pem(certtool_256, strlen(certtool_256)), 0, "certtool's key file");
  CHECK(kind == GOSTX_GOST3410_KEY_PRIVATE && curve == GOSTX_GOST3410_256_B, "certtool: kind, curve");
  CHECK_BYTES(d, want, 32, "certtool: d as its text says");
  /* a certificate block first, text after: the key; a key after ours: ignored */
  size_t n = (size_t)snprintf(pem, sizeof pem, "%s%s%s%s", "-----BEGIN CERTIFICATE-----\nMAA=\n"
                              "-----END CERTIFICATE-----\n", engine_256a, "trailing text\n", engine_512a);
  CHECK_RC(read_pem(pem, n), 0, "certificate, key, text, another key");
  CHECK(curve == GOSTX_GOST3410_256_A, "the first key of ours is read");
  n = (size_t)snprintf(pem, sizeof pem, "Key:\r\n%s", engine_enc_kuz);
  CHECK_RC(read_pem(pem, n), GOSTX_EUNSUP, "text, then an encrypted key: not the plain reader's");
  CHECK_RC(tk_key_from_encrypted_pem(pem, n, (const uint8_t *)"pw", 2, &curve, &klen,
                                                 d, sizeof d, q, sizeof q), 0,
           "text, then an encrypted key: read");
  n = (size_t)snprintf(pem, sizeof pem, "%sx%s", engine_256a, engine_enc_kuz);
  CHECK_RC(tk_key_from_encrypted_pem(pem, n, (const uint8_t *)"pw", 2, &curve, &klen,
                                                 d, sizeof d, q, sizeof q), GOSTX_EFORMAT,
           "a plain key first: not the encrypted reader's");
  const char *cert = "text\n-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n";
  CHECK_RC(read_pem(cert, strlen(cert)), GOSTX_EUNSUP, "a certificate alone: not ours");
  CHECK_RC(read_pem("no block\n", 9), GOSTX_EFORMAT, "no BEGIN line");
}

/* `openssl genpkey -engine gost -algorithm gost2012_256 -pkeyopt
 * paramset:XA` and `paramset:TCB` (gost-engine 3.0.1): one curve (256 B)
 * under the CryptoPro-XchA OID (with the digest OID) and the tc26 paramSetB
 * OID (without). */
static const char engine_xa[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MEYCAQAwHwYIKoUDBwEBAQEwEwYHKoUDAgIkAAYIKoUDBwEBAgIEIBOPBq7QQCq2\n"
    "2sNECvkOUgtTncOq2e/87ZLdQMWpgpjC\n"
    "-----END PRIVATE KEY-----\n";
static const char engine_tcb[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MD4CAQAwFwYIKoUDBwEBAQEwCwYJKoUDBwECAQECBCA9MzUs4w6u0eX+fDrFzrdb\n"
    "QmRUmZUt/kwNCiJBUAfGGQ==\n"
    "-----END PRIVATE KEY-----\n";

/* Whether der[n] holds the DER content bytes of oid. */
static int has_oid(const uint8_t *der, size_t n, const uint8_t *oid, size_t oid_len) {
  for (size_t i = 0; i + oid_len <= n; i++)
    if (!memcmp(der + i, oid, oid_len)) return 1;
  return 0;
}

/* The parameter set's OID kept: several name one curve, and gost-engine
 * derives only between keys naming the same one. */
static void paramset_oids(void) {
  static const struct {
    const char *oid;
    gostx_gost3410_curve curve;
    int digest; /* gost-engine writes the digest OID after it */
  } sets[] = {
      {"1.2.643.7.1.2.1.1.1", GOSTX_GOST3410_256_A, 0}, {"1.2.643.7.1.2.1.1.2", GOSTX_GOST3410_256_B, 0},
      {"1.2.643.7.1.2.1.1.3", GOSTX_GOST3410_256_C, 0}, {"1.2.643.7.1.2.1.1.4", GOSTX_GOST3410_256_D, 0},
      {"1.2.643.2.2.35.1", GOSTX_GOST3410_256_B, 1},    {"1.2.643.2.2.35.2", GOSTX_GOST3410_256_C, 1},
      {"1.2.643.2.2.35.3", GOSTX_GOST3410_256_D, 1},    {"1.2.643.2.2.36.0", GOSTX_GOST3410_256_B, 1},
      {"1.2.643.2.2.36.1", GOSTX_GOST3410_256_D, 1},    {"1.2.643.7.1.2.1.2.1", GOSTX_GOST3410_512_A, 1},
      {"1.2.643.7.1.2.1.2.3", GOSTX_GOST3410_512_C, 0},
  };
  static const uint8_t dgst256[] = {0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x02};
  static const uint8_t dgst512[] = {0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x03};
  char oid[GOSTX_GOST3410_OID_MAX], pem[GOSTX_GOST3410_PEM_MAX];
  uint8_t priv[64], pub[128], der[GOSTX_GOST3410_DER_MAX];
  size_t n;
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    gostx_gost3410_curve c = sets[i].curve;
    size_t len = gostx_gost3410_size(c);
    gostx_gost3410_keygen(c, priv, len, pub, 2 * len);
    CHECK_RC(tk_priv_to_der_oid(c, sets[i].oid, priv, len, der, sizeof der, &n), 0,
             sets[i].oid);
    CHECK(has_oid(der, n, len == 32 ? dgst256 : dgst512, 8) == sets[i].digest,
          "%s: the digest OID as gost-engine writes it", sets[i].oid);
    memset(oid, 'x', sizeof oid);
    CHECK_RC(tk_key_from_der_oid(der, n, &kind, &curve, &klen, d, sizeof d, q, sizeof q,
                                             oid, sizeof oid), 0, "read with its OID");
    CHECK(!strcmp(oid, sets[i].oid) && curve == c && !memcmp(d, priv, len), "%s back: %s", sets[i].oid,
          oid);
    CHECK_RC(tk_pub_to_pem_oid(c, oid, pub, 2 * len, pem, sizeof pem, &n), 0, "pub PEM");
    memset(oid, 0, sizeof oid);
    CHECK_RC(tk_key_from_pem_oid(pem, n, &kind, &curve, &klen, NULL, 0, q, sizeof q, oid,
                                             sizeof oid), 0, "public PEM read");
    CHECK(!strcmp(oid, sets[i].oid) && kind == GOSTX_GOST3410_KEY_PUBLIC, "%s: public key's OID",
          sets[i].oid);
    CHECK_RC(tk_priv_to_encrypted_pem_oid(c, oid, priv, len, (const uint8_t *)"pw", 2,
                                                      GOSTX_GOST3410_PBE_MAGMA, 1, pem, sizeof pem, &n),
             0, "encrypted PEM");
    memset(oid, 0, sizeof oid);
    CHECK_RC(tk_key_from_encrypted_pem_oid(pem, n, (const uint8_t *)"pw", 2, &curve, &klen,
                                                       d, sizeof d, q, sizeof q, oid, sizeof oid),
             0, "encrypted PEM read");
    CHECK(!strcmp(oid, sets[i].oid) && !memcmp(d, priv, len), "%s: encrypted key's OID", sets[i].oid);
  }
  /* gost-engine's files written back byte for byte under the OID read */
  const char *files[] = {engine_xa, engine_tcb};
  for (int i = 0; i < 2; i++) {
    CHECK_RC(tk_key_from_pem_oid(files[i], strlen(files[i]), &kind, &curve, &klen, d,
                                             sizeof d, q, sizeof q, oid, sizeof oid), 0, "engine key");
    CHECK(curve == GOSTX_GOST3410_256_B && !strcmp(oid, i ? "1.2.643.7.1.2.1.1.2" : "1.2.643.2.2.36.0"),
          "engine key %d: curve, OID %s", i, oid);
    CHECK_RC(tk_priv_to_pem_oid(curve, oid, d, klen, pem, sizeof pem, &n), 0, "write");
    CHECK(n == strlen(files[i]) && !memcmp(pem, files[i], n), "engine key %d back byte for byte", i);
    /* without the OID: the default, CryptoPro-A */
    CHECK_RC(tk_priv_to_der(curve, d, klen, der, sizeof der, &n), 0, "default");
    CHECK_RC(tk_key_from_der_oid(der, n, &kind, &curve, &klen, d, sizeof d, q, sizeof q,
                                             oid, sizeof oid), 0, "default read");
    CHECK(!strcmp(oid, "1.2.643.2.2.35.1"), "the default OID of 256 B: %s", oid);
  }
  /* an OID of another curve, a name, junk: refused; a small oid buffer:
   * ELEN, nothing written */
  const char *bad[] = {"1.2.643.2.2.35.2", "id-GostR3410-2001-CryptoPro-A-ParamSet", "1.2.643",
                       "1.2.643.2.2.35.1x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK_RC(tk_priv_to_der_oid(GOSTX_GOST3410_256_B, bad[i], d, 32, der, sizeof der, &n),
             GOSTX_EINVAL, bad[i]);
  CHECK_RC(tk_priv_to_der_oid(GOSTX_GOST3410_256_B, "", d, 32, der, sizeof der, &n), 0,
           "\"\": the default");
  memset(oid, 'x', sizeof oid);
  CHECK_RC(tk_key_from_der_oid(der, n, &kind, &curve, &klen, d, sizeof d, q, sizeof q,
                                           oid, 16), GOSTX_ELEN, "oid_cap 16 for a 16-character OID");
  CHECK(oid[0] == 'x', "nothing written");
}

/* The one short-name table (the CLI's CURVE, the benchmark's rows): every
 * curve has a name that leads back to it in either case, distinct from the
 * others and from every full name; unknown ids and names are refused. */
/* The key object (gostx_gost3410_key_*): one reader takes every form the
 * calls above write (DER, PEM, encrypted in both), and its writer gives the
 * same bytes as they do; its refusals. */
static void key_object(void) {
  static const uint8_t pass[] = "correct horse";
  const gostx_gost3410_pbe_params pbe = {GOSTX_GOST3410_PBE_MAGMA, 2, pass, sizeof pass - 1};
  for (int c = GOSTX_GOST3410_256_TEST; c <= GOSTX_GOST3410_512_C; c++) {
    size_t len = gostx_gost3410_size(c), n, m;
    uint8_t priv[64], pub[128], a[GOSTX_GOST3410_PEM_MAX], b[GOSTX_GOST3410_PEM_MAX];
    gostx_gost3410_key k, r;
    CHECK_RC(gostx_gost3410_keygen(c, priv, len, pub, 2 * len), 0, "keygen");
    CHECK_RC(gostx_gost3410_key_set_private(&k, c, priv, len, NULL), 0, "set_private");
    CHECK(k.has_private && k.len == len && !memcmp(k.q, pub, 2 * len), "curve %d: Q computed", c);
    /* the same bytes as the earlier calls */
    CHECK_RC(gostx_gost3410_key_write(&k, GOSTX_GOST3410_KEY_PRIVATE, GOSTX_GOST3410_DER, NULL, a,
                                      sizeof a, &n), 0, "write DER");
    CHECK_RC(tk_priv_to_der(c, priv, len, b, sizeof b, &m), 0, "priv_to_der");
    CHECK(n == m && !memcmp(a, b, n), "curve %d: PKCS#8 as priv_to_der writes it", c);
    CHECK_RC(gostx_gost3410_key_write(&k, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_PEM, NULL, a,
                                      sizeof a, &n), 0, "write PEM");
    CHECK_RC(tk_pub_to_pem(c, pub, 2 * len, (char *)b, sizeof b, &m), 0, "pub_to_pem");
    CHECK(n == m && !memcmp(a, b, n + 1), "curve %d: SPKI PEM as pub_to_pem writes it", c);
    /* one reader for every form */
    for (int form = 0; form < 6; form++) {
      gostx_gost3410_key_kind part = form & 1 ? GOSTX_GOST3410_KEY_PUBLIC : GOSTX_GOST3410_KEY_PRIVATE;
      gostx_gost3410_format fmt = form & 2 ? GOSTX_GOST3410_PEM : GOSTX_GOST3410_DER;
      const gostx_gost3410_pbe_params *e = form >= 4 ? &pbe : NULL;
      if (e) part = GOSTX_GOST3410_KEY_PRIVATE, fmt = form & 1 ? GOSTX_GOST3410_PEM : GOSTX_GOST3410_DER;
      CHECK_RC(gostx_gost3410_key_write(&k, part, fmt, e, a, sizeof a, &n), 0, "write");
      CHECK(gostx_gost3410_key_is_encrypted(a, n) == (e != NULL), "form %d: is_encrypted", form);
      memset(&r, 0xa5, sizeof r);
      CHECK_RC(gostx_gost3410_key_read(&r, a, n, pass, sizeof pass - 1), 0, "read");
      CHECK(r.curve == (gostx_gost3410_curve)c && r.len == len && !memcmp(r.q, pub, 2 * len) &&
                r.has_private == (part == GOSTX_GOST3410_KEY_PRIVATE) &&
                (!r.has_private || !memcmp(r.d, priv, len)),
            "curve %d form %d: read back", c, form);
      if (e) { /* no password, a wrong one: GOSTX_EAUTH, nothing written */
        memset(&r, 0xa5, sizeof r);
        CHECK_RC(gostx_gost3410_key_read(&r, a, n, NULL, 0), GOSTX_EAUTH, "no password");
        CHECK_RC(gostx_gost3410_key_read(&r, a, n, pass, 3), GOSTX_EAUTH, "wrong password");
        CHECK(r.d[0] == 0xa5 && r.len != len, "form %d: the key untouched on failure", form);
      }
    }
    /* the OID a file names is kept through a read and a write */
    const char *alias = c == GOSTX_GOST3410_256_B ? "1.2.643.7.1.2.1.1.2" : NULL;
    if (alias) {
      CHECK_RC(gostx_gost3410_key_set_private(&r, c, priv, len, alias), 0, "set with an OID");
      CHECK_RC(gostx_gost3410_key_write(&r, GOSTX_GOST3410_KEY_PRIVATE, GOSTX_GOST3410_DER, NULL,
                                        a, sizeof a, &n), 0, "write");
      CHECK_RC(gostx_gost3410_key_read(&k, a, n, NULL, 0), 0, "read");
      CHECK(!strcmp(k.oid, alias), "the OID kept: %s", k.oid);
    }
    /* refusals */
    CHECK_RC(gostx_gost3410_key_set_private(&r, c, priv, len, "1.2.643.7.1.2.1.2.1") ,
             len == 64 && c == GOSTX_GOST3410_512_A ? 0 : GOSTX_EINVAL, "an OID of another curve");
    CHECK_RC(gostx_gost3410_key_set_public(&r, c, pub, 2 * len, NULL), 0, "set_public");
    CHECK_RC(gostx_gost3410_key_write(&r, GOSTX_GOST3410_KEY_PRIVATE, GOSTX_GOST3410_DER, NULL, a,
                                      sizeof a, &n), GOSTX_EINVAL, "no private part");
    CHECK_RC(gostx_gost3410_key_write(&r, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, &pbe, a,
                                      sizeof a, &n), GOSTX_EINVAL, "a public key encrypted");
    CHECK_RC(gostx_gost3410_key_write(&r, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_PEM, NULL, a, 10,
                                      &n), GOSTX_ELEN, "short");
    CHECK_RC(gostx_gost3410_key_write(&r, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_PEM, NULL, a, n,
                                      &m), GOSTX_ELEN, "no room for the NUL");
    CHECK_RC(gostx_gost3410_key_write(&r, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_PEM, NULL, a,
                                      n + 1, &m), 0, "the length it asked for");
    pub[2 * len - 1] ^= 1;
    CHECK_RC(gostx_gost3410_key_set_public(&r, c, pub, 2 * len, NULL), GOSTX_EINVAL, "off the curve");
    gostx_gost3410_key_clear(&k);
    CHECK(k.len == 0 && k.d[0] == 0 && !k.has_private, "clear wipes");
  }
  /* a label that does not say what the DER is */
  uint8_t der[GOSTX_GOST3410_DER_MAX];
  char pem[GOSTX_GOST3410_PEM_MAX];
  size_t n;
  gostx_gost3410_key k;
  CHECK_RC(gostx_gost3410_key_read(&k, engine_256a, strlen(engine_256a), NULL, 0), 0, "engine file");
  CHECK_RC(gostx_gost3410_key_write(&k, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL, der,
                                    sizeof der, &n), 0, "SPKI");
  const char *head = "-----BEGIN PRIVATE KEY-----\n";
  size_t h = strlen(head), pn;
  memcpy(pem, head, h);
  CHECK_RC(gostx_gost3410_key_write(&k, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_PEM, NULL, pem + h,
                                    sizeof pem - h, &pn), 0, "PEM");
  /* keep the body and END of the PUBLIC KEY block under a PRIVATE KEY BEGIN */
  const char *body = strchr(pem + h, '\n') + 1;
  memmove(pem + h, body, strlen(body) + 1);
  char *end = strstr(pem, "-----END PUBLIC KEY-----");
  memcpy(end, "-----END PRIVATE KEY-----\n", 27);
  CHECK_RC(gostx_gost3410_key_read(&k, pem, strlen(pem), NULL, 0), GOSTX_EFORMAT, "label mismatch");
  CHECK_RC(gostx_gost3410_key_read(&k, "no key", 6, NULL, 0), GOSTX_EFORMAT, "no key");
  CHECK_RC(gostx_gost3410_key_read(NULL, der, n, NULL, 0), GOSTX_EINVAL, "NULL key");
}

static void short_names(void) {
  const gostx_gost3410_curve all[] = {
      GOSTX_GOST3410_256_TEST, GOSTX_GOST3410_256_A, GOSTX_GOST3410_256_B,
      GOSTX_GOST3410_256_C,    GOSTX_GOST3410_256_D, GOSTX_GOST3410_512_TEST,
      GOSTX_GOST3410_512_A,    GOSTX_GOST3410_512_B, GOSTX_GOST3410_512_C};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const char *s = gostx_gost3410_curve_short_name(all[i]);
    CHECK(s != NULL, "curve %d has a short name", (int)all[i]);
    if (!s) continue;
    char lower[16];
    size_t j = 0;
    for (; s[j] && j + 1 < sizeof lower; j++)
      lower[j] = (char)(s[j] >= 'A' && s[j] <= 'Z' ? s[j] + 32 : s[j]);
    lower[j] = 0;
    CHECK(gostx_gost3410_curve_by_short_name(s) == (int)all[i], "%s leads back", s);
    CHECK(gostx_gost3410_curve_by_short_name(lower) == (int)all[i], "%s leads back", lower);
    CHECK(gostx_gost3410_curve_by_name(s) == GOSTX_EINVAL, "%s is no full name", s);
    for (size_t k = 0; k < i; k++) {
      const char *o = gostx_gost3410_curve_short_name(all[k]);
      CHECK(!o || strcmp(s, o) != 0, "%s names one curve", s);
    }
  }
  CHECK(gostx_gost3410_curve_short_name((gostx_gost3410_curve)99) == NULL, "unknown id");
  CHECK(gostx_gost3410_curve_by_short_name("256E") == GOSTX_EINVAL, "unknown short name");
  CHECK(gostx_gost3410_curve_by_short_name("256") == GOSTX_EINVAL, "a prefix is no name");
  CHECK(gostx_gost3410_curve_by_short_name(NULL) == GOSTX_EINVAL, "NULL");
}

int main(void) {
  t_rand_init();
  short_names();
  key_object();
  engine_files();
  round_trips();
  private_forms();
  refusals();
  pem_refusals();
  encrypted_keys();
  pem_around();
  paramset_oids();
  return t_done();
}
