/* The gostx provider's GOST R 34.10-2012 keys through EVP, checked against
 * libgostx's own calls: keygen and import/export, s || r signatures
 * (digest-sign and raw), VKO, the PKCS#8 / SPKI DER; and every refusal
 * (bad params, wrong keys, truncated or out-of-range signatures, off-curve
 * points, points outside the order-q subgroup, empty input) leaves an error
 * on OpenSSL's queue.
 * argv[1]: the folder holding gostx.so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/ec.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/provider.h>
#include <openssl/x509.h>

#include <gostx.h>

#include "ossl_check.h"
#include "ossl_digest_sign.h"

/* A failed call: 0 returned and a reason on the queue, which is cleared. */
static void refused(int ok, const char *what) {
  int queued = ERR_peek_error() != 0;
  check(!ok && queued, "%s refused with an error (ok=%d, queued=%d)", what, ok, queued);
  ERR_clear_error();
}

static void reverse(uint8_t *dst, const uint8_t *src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = src[n - 1 - i];
}

static EVP_PKEY *keygen(const char *type, const char *paramset) {
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
  EVP_PKEY *k = NULL;
  OSSL_PARAM p[2] = {OSSL_PARAM_construct_utf8_string("paramset", (char *)paramset, 0),
                     OSSL_PARAM_END};
  if (c && EVP_PKEY_keygen_init(c) > 0 && (!paramset || EVP_PKEY_CTX_set_params(c, p)))
    EVP_PKEY_keygen(c, &k);
  EVP_PKEY_CTX_free(c);
  return k;
}

/* A key from group, d (big-endian, NULL: none) and Q (NULL: none). */
static EVP_PKEY *fromdata(const char *type, const char *group, const uint8_t *d, size_t n,
                          const uint8_t *q, size_t qlen) {
  OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
  BIGNUM *bn = d ? BN_bin2bn(d, (int)n, NULL) : NULL;
  OSSL_PARAM *p = NULL;
  EVP_PKEY *k = NULL;
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
  int ok = b && c && OSSL_PARAM_BLD_push_utf8_string(b, "group", group, 0) &&
           (!bn || OSSL_PARAM_BLD_push_BN(b, "priv", bn)) &&
           (!q || OSSL_PARAM_BLD_push_octet_string(b, "pub", q, qlen)) &&
           (p = OSSL_PARAM_BLD_to_param(b)) && EVP_PKEY_fromdata_init(c) > 0;
  if (ok) EVP_PKEY_fromdata(c, &k, d ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, p);
  OSSL_PARAM_free(p);
  OSSL_PARAM_BLD_free(b);
  BN_free(bn);
  EVP_PKEY_CTX_free(c);
  return k;
}

typedef struct key_bytes {
  size_t n;
  gostx_gost3410_curve curve;
  uint8_t d[64], q[128];
  char group[80];
} key_bytes;

static int export_key(EVP_PKEY *k, key_bytes *kb) {
  BIGNUM *bn = NULL;
  size_t ql = 0;
  int bits = EVP_PKEY_get_bits(k);
  kb->n = (size_t)bits / 8;
  int ok = (bits == 256 || bits == 512) && EVP_PKEY_get_bn_param(k, "priv", &bn) &&
           BN_bn2binpad(bn, kb->d, (int)kb->n) == (int)kb->n &&
           EVP_PKEY_get_octet_string_param(k, "pub", kb->q, sizeof kb->q, &ql) &&
           ql == 2 * kb->n &&
           EVP_PKEY_get_utf8_string_param(k, "group", kb->group, sizeof kb->group, NULL);
  int c = ok ? gostx_gost3410_curve_by_name(kb->group) : GOSTX_EINVAL;
  kb->curve = (gostx_gost3410_curve)c;
  BN_free(bn);
  return ok && c > 0;
}

static void test_signatures(const char *type, const char *ps) {
  EVP_PKEY *k = keygen(type, ps);
  key_bytes kb;
  check(k && export_key(k, &kb), "%s paramset %s: keygen and export", type, ps);
  if (!k || !export_key(k, &kb)) return;
  const size_t n = kb.n;
  const char *md = n == 32 ? "md_gost12_256" : "md_gost12_512";
  uint8_t q[128], msg[300], h[64], sig[128], rs[128], bad[129];
  size_t sl = sizeof sig;
  for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 7 + 1);
  check(gostx_gost3410_public_key(kb.curve, kb.d, n, q, 2 * n) == GOSTX_OK &&
            !memcmp(q, kb.q, 2 * n),
        "%s/%s: pub = d * P by libgostx (group %s)", type, ps, kb.group);
  /* ours signs: s || r, which libgostx verifies as r || s */
  gostx_streebog(n, msg, sizeof msg, h);
  int ok = digest_sign(k, md, msg, sizeof msg, sig, &sl) && sl == 2 * n;
  memcpy(rs, sig + n, n), memcpy(rs + n, sig, n);
  check(ok && gostx_gost3410_verify(kb.curve, kb.q, 2 * n, h, n, rs, 2 * n) == GOSTX_OK,
        "%s/%s: digest-sign gives s || r that libgostx verifies", type, ps);
  check(digest_verify(k, md, msg, sizeof msg, sig, sl), "%s/%s: digest-verify", type, ps);
  /* libgostx signs, ours verifies (the default digest: none named) */
  ok = gostx_gost3410_sign(kb.curve, kb.d, n, h, n, rs, 2 * n) == GOSTX_OK;
  memcpy(sig, rs + n, n), memcpy(sig + n, rs, n);
  check(ok && digest_verify(k, NULL, msg, sizeof msg, sig, 2 * n),
        "%s/%s: libgostx's signature verifies (default digest)", type, ps);
  ERR_clear_error();
  /* refusals */
  ERR_clear_error();
  digest_verify(k, md, msg, sizeof msg, sig, 2 * n - 1);
  char reason[256] = "";
  ERR_error_string_n(ERR_peek_last_error(), reason, sizeof reason);
  check(strstr(reason, "bad signature") && !strstr(reason, "reason("),
        "%s/%s: a truncated signature's error reads as text: '%s'", type, ps, reason);
  ERR_clear_error();
  refused(digest_verify(k, md, msg, sizeof msg, sig, 2 * n - 1), "truncated signature");
  memcpy(bad, sig, 2 * n), bad[2 * n] = 0;
  refused(digest_verify(k, md, msg, sizeof msg, bad, 2 * n + 1), "signature with a byte added");
  refused(digest_verify(k, md, msg, sizeof msg, sig, 0), "empty signature");
  memcpy(bad, sig, 2 * n), memset(bad + n, 0, n);
  refused(digest_verify(k, md, msg, sizeof msg, bad, 2 * n), "r = 0");
  memcpy(bad, sig, 2 * n), memset(bad, 0xff, n);
  refused(digest_verify(k, md, msg, sizeof msg, bad, 2 * n), "s >= q");
  memcpy(bad, sig, 2 * n), memset(bad + n, 0xff, n);
  refused(digest_verify(k, md, msg, sizeof msg, bad, 2 * n), "r >= q");
  memcpy(bad, sig, 2 * n), bad[n + 3] ^= 1;
  refused(digest_verify(k, md, msg, sizeof msg, bad, 2 * n), "r with one bit flipped");
  refused(digest_verify(k, md, msg, sizeof msg - 1, sig, 2 * n), "signature of other data");
  sl = sizeof sig;
  refused(digest_sign(k, n == 32 ? "md_gost12_512" : "md_gost12_256", msg, 10, sig, &sl),
          "digest of the other size");
  sl = sizeof sig;
  refused(digest_sign(k, "SHA256", msg, 10, sig, &sl), "SHA256 with a GOST key");
  /* raw sign / verify of a digest */
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, k, NULL);
  sl = sizeof sig;
  ok = c && EVP_PKEY_sign_init(c) > 0 && EVP_PKEY_sign(c, sig, &sl, h, n) > 0 && sl == 2 * n;
  memcpy(rs, sig + n, n), memcpy(rs + n, sig, n);
  check(ok && gostx_gost3410_verify(kb.curve, kb.q, 2 * n, h, n, rs, 2 * n) == GOSTX_OK,
        "%s/%s: EVP_PKEY_sign of a digest = s || r", type, ps);
  sl = sizeof sig;
  refused(EVP_PKEY_sign(c, sig, &sl, h, n - 1) > 0, "raw sign of a short digest");
  sl = 2 * n - 1;
  refused(EVP_PKEY_sign(c, sig, &sl, h, n) > 0, "raw sign into a short buffer");
  ok = EVP_PKEY_verify_init(c) > 0;
  check(ok && EVP_PKEY_verify(c, sig, 2 * n, h, n) > 0, "%s/%s: EVP_PKEY_verify", type, ps);
  refused(EVP_PKEY_verify(c, sig, 2 * n, h, n + 1) > 0, "raw verify of a long digest");
  EVP_PKEY_CTX_free(c);
  /* a public key cannot sign */
  EVP_PKEY *pub = fromdata(type, kb.group, NULL, n, kb.q, 2 * n);
  check(pub && digest_verify(pub, md, msg, sizeof msg, sig, 0) == 0, "%s/%s: public-only key",
        type, ps);
  ERR_clear_error();
  sl = sizeof sig;
  refused(pub && digest_sign(pub, md, msg, 10, sig, &sl), "signing with a public-only key");
  EVP_PKEY_free(pub);
  EVP_PKEY_free(k);
}

static void test_import(void) {
  EVP_PKEY *k = keygen("gost2012_256", "TCA");
  key_bytes kb;
  if (!k || !export_key(k, &kb)) {
    check(0, "keygen for the import tests");
    return;
  }
  uint8_t zero[64] = {0}, ff[64], q[128];
  memset(ff, 0xff, sizeof ff);
  EVP_PKEY *k2 = fromdata("gost2012_256", kb.group, kb.d, 32, kb.q, 64);
  check(k2 && EVP_PKEY_eq(k, k2) == 1, "import of an exported key pair = the key");
  EVP_PKEY_free(k2);
  refused(fromdata("gost2012_256", kb.group, zero, 32, NULL, 0) != NULL, "private key 0");
  refused(fromdata("gost2012_256", kb.group, ff, 32, NULL, 0) != NULL, "private key >= q");
  refused(fromdata("gost2012_256", kb.group, ff, 33, NULL, 0) != NULL, "private key of 33 bytes");
  memcpy(q, kb.q, 64), q[63] ^= 1;
  refused(fromdata("gost2012_256", kb.group, NULL, 32, q, 64) != NULL, "public key off the curve");
  refused(fromdata("gost2012_256", kb.group, NULL, 32, kb.q, 63) != NULL, "public key of 63 bytes");
  refused(fromdata("gost2012_256", kb.group, NULL, 32, zero, 64) != NULL, "public key (0, 0)");
  refused(fromdata("gost2012_256", kb.group, kb.d, 32, q, 64) != NULL, "private and other public");
  refused(fromdata("gost2012_256", "id-tc26-gost-3410-2012-512-paramSetA", kb.d, 32, NULL, 0) !=
              NULL,
          "a 512-bit set for a 256-bit key");
  refused(keygen("gost2012_256", "Z") != NULL, "keygen paramset Z");
  refused(keygen("gost2012_512", "XA") != NULL, "keygen paramset XA for 512 bits");
  refused(keygen("gost2012_256", NULL) != NULL, "keygen without a paramset");
  /* the gettable params */
  int bits = 0, sec = 0, size = 0;
  char md[32] = "";
  check(EVP_PKEY_get_int_param(k, "bits", &bits) && bits == 256 &&
            EVP_PKEY_get_int_param(k, "security-bits", &sec) && sec == 128 &&
            EVP_PKEY_get_int_param(k, "max-size", &size) && size == 64 &&
            EVP_PKEY_get_default_digest_name(k, md, sizeof md) > 0 && !strcmp(md, "md_gost12_256"),
        "params: bits %d, security-bits %d, max-size %d, default digest %s", bits, sec, size, md);
  EVP_PKEY_free(k);
}

static int derive(EVP_PKEY *k, EVP_PKEY *peer, const OSSL_PARAM *p, uint8_t *out, size_t *outl) {
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, k, NULL);
  int ok = c && EVP_PKEY_derive_init_ex(c, p) > 0 && EVP_PKEY_derive_set_peer(c, peer) > 0 &&
           EVP_PKEY_derive(c, out, outl) > 0;
  EVP_PKEY_CTX_free(c);
  return ok;
}

static void test_vko(const char *type, const char *ps, const char *other_ps) {
  EVP_PKEY *a = keygen(type, ps), *b = keygen(type, ps), *o = keygen(type, other_ps);
  key_bytes ka, kb;
  if (!a || !b || !o || !export_key(a, &ka) || !export_key(b, &kb)) {
    check(0, "%s/%s: keys for VKO", type, ps);
    return;
  }
  const size_t n = ka.n;
  uint8_t ukm[8] = {1, 2, 3, 4, 5, 6, 7, 8}, x[64], y[64], want[64], big[65] = {0};
  size_t xl = sizeof x, yl = sizeof y, out64 = 64, small = 31;
  OSSL_PARAM p[3] = {OSSL_PARAM_construct_octet_string("ukm", ukm, sizeof ukm), OSSL_PARAM_END,
                     OSSL_PARAM_END};
  int ok = derive(a, b, p, x, &xl) && derive(b, a, p, y, &yl);
  check(ok && xl == 32 && yl == 32 && !memcmp(x, y, 32) &&
            gostx_gost3410_vko(ka.curve, ka.d, n, kb.q, 2 * n, ukm, 8, want, 32) == GOSTX_OK &&
            !memcmp(x, want, 32),
        "%s/%s: VKO both ways = libgostx (32 bytes)", type, ps);
  p[1] = OSSL_PARAM_construct_size_t("kdf-outlen", &out64);
  xl = sizeof x;
  check(derive(a, b, p, x, &xl) && xl == 64 &&
            gostx_gost3410_vko(ka.curve, ka.d, n, kb.q, 2 * n, ukm, 8, want, 64) == GOSTX_OK &&
            !memcmp(x, want, 64),
        "%s/%s: VKO kdf-outlen 64 = libgostx", type, ps);
  /* the UKM as hex text, as -pkeyopt ukm:HEX gives it */
  OSSL_PARAM t[2] = {OSSL_PARAM_construct_utf8_string("ukm", (char *)"0102030405060708", 0),
                     OSSL_PARAM_END};
  xl = sizeof x;
  check(derive(a, b, t, x, &xl) && xl == 32 && !memcmp(x, y, 32), "%s/%s: ukm as hex text", type,
        ps);
  xl = sizeof x;
  refused(derive(a, b, NULL, x, &xl), "VKO without a UKM");
  p[0] = OSSL_PARAM_construct_octet_string("ukm", ukm, 0), p[1] = OSSL_PARAM_construct_end();
  refused(derive(a, b, p, x, &xl), "VKO with an empty UKM");
  p[0] = OSSL_PARAM_construct_octet_string("ukm", big, sizeof big);
  refused(derive(a, b, p, x, &xl), "VKO with a 65-byte UKM");
  t[0] = OSSL_PARAM_construct_utf8_string("ukm", (char *)"01zz", 0);
  refused(derive(a, b, t, x, &xl), "VKO with a UKM that is not hex");
  p[0] = OSSL_PARAM_construct_octet_string("ukm", ukm, sizeof ukm);
  p[1] = OSSL_PARAM_construct_size_t("kdf-outlen", &small);
  refused(derive(a, b, p, x, &xl), "VKO kdf-outlen 31");
  p[1] = OSSL_PARAM_construct_end();
  xl = 31;
  refused(derive(a, b, p, x, &xl), "VKO into a 31-byte buffer");
  xl = sizeof x;
  refused(derive(a, o, p, x, &xl), "VKO with a peer on another curve");
  EVP_PKEY *w = keygen(n == 32 ? "gost2012_512" : "gost2012_256", "A");
  refused(w && derive(a, w, p, x, &xl), "VKO with a peer of the other size");
  refused(w && digest_verify(w, n == 32 ? "md_gost12_256" : "md_gost12_512", ukm, 8, x, 2 * n),
          "a digest of the other key size");
  EVP_PKEY_free(w);
  EVP_PKEY *pub = fromdata(type, ka.group, NULL, n, ka.q, 2 * n);
  refused(pub && derive(pub, b, p, x, &xl), "VKO with a public-only key of ours");
  EVP_PKEY_free(pub);
  EVP_PKEY_free(a), EVP_PKEY_free(b), EVP_PKEY_free(o);
}

/* The DER laid out by hand from gost-engine's output for a CryptoPro-A key. */
static void test_der(void) {
  EVP_PKEY *k = keygen("gost2012_256", "A");
  key_bytes kb;
  if (!k || !export_key(k, &kb)) {
    check(0, "key for the DER tests");
    return;
  }
  static const uint8_t head[] = {0x30, 0x46, 0x02, 0x01, 0x00, 0x30, 0x1f, 0x06, 0x08, 0x2a,
                                 0x85, 0x03, 0x07, 0x01, 0x01, 0x01, 0x01, 0x30, 0x13, 0x06,
                                 0x07, 0x2a, 0x85, 0x03, 0x02, 0x02, 0x23, 0x01, 0x06, 0x08,
                                 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x02, 0x04, 0x20};
  static const uint8_t spki_head[] = {0x30, 0x66, 0x30, 0x1f};
  uint8_t *der = NULL, d_le[32], xy_le[64];
  size_t len = 0;
  OSSL_ENCODER_CTX *e = OSSL_ENCODER_CTX_new_for_pkey(k, EVP_PKEY_KEYPAIR, "DER",
                                                      "PrivateKeyInfo", NULL);
  int ok = e && OSSL_ENCODER_to_data(e, &der, &len);
  reverse(d_le, kb.d, 32);
  check(ok && len == 72 && !memcmp(der, head, sizeof head) && !memcmp(der + 40, d_le, 32),
        "PKCS#8 DER as gost-engine: CryptoPro-A, the digest OID, d little-endian");
  OSSL_ENCODER_CTX_free(e);
  /* read back; then truncated and with a byte added */
  EVP_PKEY *back = NULL;
  const uint8_t *p = der;
  size_t left = len;
  OSSL_DECODER_CTX *dc = OSSL_DECODER_CTX_new_for_pkey(&back, "DER", NULL, "gost2012_256",
                                                       EVP_PKEY_KEYPAIR, NULL, NULL);
  check(dc && OSSL_DECODER_from_data(dc, &p, &left) && back && EVP_PKEY_eq(k, back) == 1,
        "PKCS#8 DER read back");
  EVP_PKEY_free(back), back = NULL;
  /* the CryptoPro masked form, d || mask with mask 1 (read by libgostx's codec) */
  uint8_t masked[104] = {0x30, 0x66};
  memcpy(masked + 2, der + 2, 36);
  masked[38] = 0x04, masked[39] = 0x40;
  memcpy(masked + 40, d_le, 32);
  masked[72] = 1;
  p = masked, left = sizeof masked;
  check(OSSL_DECODER_from_data(dc, &p, &left) && back && EVP_PKEY_eq(k, back) == 1,
        "masked PKCS#8 (mask 1) read as the key");
  EVP_PKEY_free(back), back = NULL;
  masked[72] = 0; /* mask 0: no key */
  p = masked, left = sizeof masked;
  refused(OSSL_DECODER_from_data(dc, &p, &left) && back, "masked PKCS#8 with mask 0");
  EVP_PKEY_free(back), back = NULL;
  p = der, left = len - 1;
  refused(OSSL_DECODER_from_data(dc, &p, &left) && back, "PKCS#8 DER one byte short");
  OSSL_DECODER_CTX_free(dc);
  OPENSSL_clear_free(der, len), der = NULL;
  /* encryption asked for: an EncryptedPrivateKeyInfo, never the key in the clear */
  e = OSSL_ENCODER_CTX_new_for_pkey(k, EVP_PKEY_KEYPAIR, "DER", "PrivateKeyInfo", NULL);
  ok = e && OSSL_ENCODER_CTX_set_cipher(e, "AES-256-CBC", NULL) &&
       OSSL_ENCODER_CTX_set_passphrase(e, (const unsigned char *)"pw", 2) &&
       OSSL_ENCODER_to_data(e, &der, &len);
  int clear = 0;
  for (size_t i = 0; ok && i + 32 <= len; i++) clear |= !memcmp(der + i, d_le, 32);
  check(ok && !clear && len > 100, "PKCS#8 with a cipher is encrypted (%zu bytes)", len);
  OSSL_ENCODER_CTX_free(e);
  p = der, left = len;
  dc = OSSL_DECODER_CTX_new_for_pkey(&back, "DER", NULL, "gost2012_256", EVP_PKEY_KEYPAIR, NULL,
                                     NULL);
  check(dc && OSSL_DECODER_CTX_set_passphrase(dc, (const unsigned char *)"pw", 2) &&
            OSSL_DECODER_from_data(dc, &p, &left) && back && EVP_PKEY_eq(k, back) == 1,
        "encrypted PKCS#8 read back with the passphrase");
  EVP_PKEY_free(back), back = NULL;
  OSSL_DECODER_CTX_free(dc);
  OPENSSL_free(der), der = NULL;
  /* the public key */
  e = OSSL_ENCODER_CTX_new_for_pkey(k, EVP_PKEY_PUBLIC_KEY, "DER", "SubjectPublicKeyInfo", NULL);
  ok = e && OSSL_ENCODER_to_data(e, &der, &len);
  reverse(xy_le, kb.q, 32), reverse(xy_le + 32, kb.q + 32, 32);
  check(ok && len == 104 && !memcmp(der, spki_head, 4) && !memcmp(der + 4, head + 7, 31) &&
            der[35] == 0x03 && der[36] == 0x43 && der[37] == 0 && der[38] == 0x04 &&
            der[39] == 0x40 && !memcmp(der + 40, xy_le, 64),
        "SPKI DER as gost-engine: BIT STRING { OCTET STRING x LE || y LE }");
  OSSL_ENCODER_CTX_free(e);
  p = der, left = len;
  EVP_PKEY *pub = d2i_PUBKEY(NULL, &p, (long)left);
  check(pub && EVP_PKEY_eq(k, pub) == 1, "SPKI DER read back (d2i_PUBKEY)");
  EVP_PKEY_free(pub);
  der[len - 1] ^= 1; /* y's top byte: off the curve */
  p = der;
  refused((pub = d2i_PUBKEY(NULL, &p, (long)len)) != NULL, "SPKI with a point off the curve");
  EVP_PKEY_free(pub);
  der[len - 1] ^= 1, der[21] ^= 0x10; /* the paramset OID: 1.2.643.2.18.35.1, unknown */
  p = der;
  refused((pub = d2i_PUBKEY(NULL, &p, (long)len)) != NULL, "SPKI with an unknown paramset");
  EVP_PKEY_free(pub);
  OPENSSL_free(der);
  EVP_PKEY_free(k);
}

/* ---- public keys outside the order-q subgroup (the cofactor-4 sets) ----
 * R 50.1.114-2016 gives 256 paramSetA and 512 paramSetC as the Edwards
 * curves u^2 + v^2 = 1 + d u^2 v^2 too: (+-1, 0) there has order 4, and the
 * map x = s (1 + v) / (1 - v) + t, y = s (1 + v) / ((1 - v) u), s = (1 - d)
 * / 4, t = (1 + d) / 6 takes it to (s + t, +-s). OpenSSL's own arithmetic
 * checks the point: on y^2 = x^3 + a x + b, and twice it has y = 0 (order
 * 2). p, a, b, q, d: the published parameters. */
static const struct {
  const char *type, *group, *md, *p, *a, *b, *q, *d;
  gostx_gost3410_curve curve;
} cofactor4[] = {
    {"gost2012_256", "id-tc26-gost-3410-2012-256-paramSetA", "md_gost12_256",
     "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd97",
     "c2173f1513981673af4892c23035a27ce25e2013bf95aa33b22c656f277e7335",
     "295f9bae7428ed9ccc20e7c359a9d41a22fccd9108e17bf7ba9337a6f8ae9513",
     "400000000000000000000000000000000fd8cddfc87b6635c115af556c360c67",
     "0605f6b7c183fa81578bc39cfad518132b9df62897009af7e522c32d6dc7bffb", GOSTX_GOST3410_256_A},
    {"gost2012_512", "id-tc26-gost-3410-2012-512-paramSetC", "md_gost12_512",
     "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
     "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffdc7",
     "dc9203e514a721875485a529d2c722fb187bc8980eb866644de41c68e1430645"
     "46e861c0e2c9edd92ade71f46fcf50ff2ad97f951fda9f2a2eb6546f39689bd3",
     "b4c4ee28cebc6c2c8ac12952cf37f16ac7efb6a9f69f4b57ffda2e4f0de5ade0"
     "38cbc2fff719d2c18de0284b8bfef3b52b8cc7a5f5bf0a3c8d2319a5312557e1",
     "3fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
     "c98cdba46506ab004c33a9ff5147502cc8eda9e7a769a12694623cef47f023ed",
     "9e4f5d8c017d8d9f13a5cf3cdf5bfe4dab402d54198e31ebde28a0621050439c"
     "a6b39e0a515c06b304e2ce43e79e369e91a0cfc2bc2a22b4ca302dbb33ee7550",
     GOSTX_GOST3410_512_C},
};

static void point_bytes(const EC_GROUP *g, const EC_POINT *P, uint8_t *out, int n, BN_CTX *bc) {
  BIGNUM *x = BN_new(), *y = BN_new();
  EC_POINT_get_affine_coordinates(g, P, x, y, bc);
  BN_bn2binpad(x, out, n);
  BN_bn2binpad(y, out + n, n);
  BN_free(x), BN_free(y);
}

/* A signature (s || r) of msg that verifies under T of order 4 with no
 * private key: k G = R, r = x(R) mod q, s = k e, so that verify's z1 G + z2
 * T = k G when 4 divides z2 = -r / e mod q (k is redrawn until it does). */
static void forge_order4(size_t i, const BIGNUM *q, const uint8_t *msg, size_t ml, uint8_t *sig,
                         BN_CTX *bc) {
  int n = (int)gostx_gost3410_size(cofactor4[i].curve);
  uint8_t h[64], hbe[64], k[64], R[128];
  BIGNUM *e = BN_new(), *kb = BN_new(), *r = BN_new(), *s = BN_new(), *z = BN_new();
  gostx_streebog((size_t)n, msg, ml, h);
  reverse(hbe, h, (size_t)n); /* e is the digest read little-endian */
  BN_bin2bn(hbe, n, e);
  BN_nnmod(e, e, q, bc);
  if (BN_is_zero(e)) BN_one(e);
  for (int tries = 0; tries < 200; tries++) {
    gostx_gost3410_keygen(cofactor4[i].curve, k, (size_t)n, R, 2 * (size_t)n);
    BN_bin2bn(k, n, kb);
    BN_bin2bn(R, n, r);
    BN_nnmod(r, r, q, bc);
    BN_mod_mul(s, kb, e, q, bc);
    BN_mod_inverse(z, e, q, bc);
    BN_mod_mul(z, z, r, q, bc);
    BN_sub(z, q, z); /* -r / e */
    if (BN_mod_word(z, 4) == 0) break;
  }
  BN_bn2binpad(s, sig, n);
  BN_bn2binpad(r, sig + n, n);
  BN_free(e), BN_free(kb), BN_free(r), BN_free(s), BN_free(z);
}

static void test_small_order(void) {
  for (size_t i = 0; i < sizeof cofactor4 / sizeof cofactor4[0]; i++) {
    const char *set = cofactor4[i].group;
    int n = (int)gostx_gost3410_size(cofactor4[i].curve);
    BN_CTX *bc = BN_CTX_new();
    BIGNUM *p = NULL, *a = NULL, *b = NULL, *q = NULL, *d = NULL;
    BN_hex2bn(&p, cofactor4[i].p), BN_hex2bn(&a, cofactor4[i].a), BN_hex2bn(&b, cofactor4[i].b);
    BN_hex2bn(&q, cofactor4[i].q), BN_hex2bn(&d, cofactor4[i].d);
    BIGNUM *s = BN_new(), *t = BN_new(), *u = BN_new(), *x = BN_new();
    BN_set_word(u, 4);
    BN_mod_inverse(u, u, p, bc);
    BN_one(s);
    BN_mod_sub(s, s, d, p, bc);
    BN_mod_mul(s, s, u, p, bc); /* (1 - d) / 4 */
    BN_set_word(u, 6);
    BN_mod_inverse(u, u, p, bc);
    BN_one(t);
    BN_mod_add(t, t, d, p, bc);
    BN_mod_mul(t, t, u, p, bc); /* (1 + d) / 6 */
    BN_mod_add(x, s, t, p, bc);
    EC_GROUP *g = EC_GROUP_new_curve_GFp(p, a, b, bc);
    EC_POINT *T = EC_POINT_new(g), *T2 = EC_POINT_new(g), *RT = EC_POINT_new(g);
    check(g && EC_POINT_set_affine_coordinates(g, T, x, s, bc) && EC_POINT_is_on_curve(g, T, bc) == 1,
          "%s: (s + t, s) on the curve", set);
    EC_POINT_dbl(g, T2, T, bc);
    EC_POINT_get_affine_coordinates(g, T2, x, u, bc);
    check(BN_is_zero(u) && !BN_cmp(x, t), "%s: twice (s + t, s) is (t, 0): order 4", set);
    uint8_t k[64], kq[128], bad[3][128];
    gostx_gost3410_keygen(cofactor4[i].curve, k, (size_t)n, kq, 2 * (size_t)n);
    BN_bin2bn(kq, n, x), BN_bin2bn(kq + n, n, u);
    EC_POINT_set_affine_coordinates(g, RT, x, u, bc);
    EC_POINT_add(g, RT, RT, T, bc); /* k G + T: order 4q */
    point_bytes(g, T, bad[0], n, bc);
    point_bytes(g, T2, bad[1], n, bc);
    point_bytes(g, RT, bad[2], n, bc);
    static const char *what[] = {"a public key of order 4", "a public key of order 2",
                                 "a public key of order 4q"};
    /* the SubjectPublicKeyInfo of a good key, to carry the bad points */
    EVP_PKEY *good = fromdata(cofactor4[i].type, set, NULL, (size_t)n, kq, 2 * (size_t)n);
    uint8_t *der = NULL;
    int len = good ? i2d_PUBKEY(good, &der) : 0;
    check(len > 2 * n, "%s: SPKI of a good key", set);
    for (int j = 0; j < 3; j++) {
      EVP_PKEY *k2 = fromdata(cofactor4[i].type, set, NULL, (size_t)n, bad[j], 2 * (size_t)n);
      refused(k2 != NULL, what[j]);
      EVP_PKEY_free(k2);
      if (len <= 2 * n) continue;
      reverse(der + len - 2 * n, bad[j], (size_t)n); /* x, y little-endian */
      reverse(der + len - n, bad[j] + n, (size_t)n);
      const uint8_t *dp = der;
      k2 = d2i_PUBKEY(NULL, &dp, len);
      refused(k2 != NULL, what[j]);
      EVP_PKEY_free(k2);
    }
    /* a forged signature: had the key of order 4 been taken, it verified */
    uint8_t msg[] = "signed by nobody", sig[128];
    forge_order4(i, q, msg, sizeof msg, sig, bc);
    EVP_PKEY *weak = fromdata(cofactor4[i].type, set, NULL, (size_t)n, bad[0], 2 * (size_t)n);
    check(!weak || !digest_verify(weak, cofactor4[i].md, msg, sizeof msg, sig, 2 * (size_t)n),
          "%s: no signature forged under a key of order 4 verifies (key %s)", set,
          weak ? "imported" : "refused");
    ERR_clear_error();
    EVP_PKEY_free(weak);
    EVP_PKEY_free(good);
    OPENSSL_free(der);
    EC_POINT_free(T), EC_POINT_free(T2), EC_POINT_free(RT);
    EC_GROUP_free(g);
    BN_free(p), BN_free(a), BN_free(b), BN_free(q), BN_free(d);
    BN_free(s), BN_free(t), BN_free(u), BN_free(x);
    BN_CTX_free(bc);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s GOSTX_MODULE_DIR\n", argv[0]);
    return 2;
  }
  OSSL_PROVIDER *gx = NULL, *def = NULL;
  if (!load_gostx_and_default(argv[1], &gx, &def)) return 1;
  static const char *const sets[][2] = {{"gost2012_256", "A"},   {"gost2012_256", "XB"},
                                        {"gost2012_256", "TCA"}, {"gost2012_256", "0"},
                                        {"gost2012_512", "A"},   {"gost2012_512", "C"}};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) test_signatures(sets[i][0], sets[i][1]);
  test_import();
  test_vko("gost2012_256", "A", "TCA");
  test_vko("gost2012_256", "TCA", "B");
  test_vko("gost2012_512", "C", "A");
  test_der();
  test_small_order();
  OSSL_PROVIDER_unload(gx);
  OSSL_PROVIDER_unload(def);
  printf("%lu passed, %lu failed\n", pass, fail);
  return fail ? 1 : 0;
}
