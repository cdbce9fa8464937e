/* Interop with gost-engine (Debian's libengine-gost-openssl), in process
 * through libcrypto's EVP API, on every curve both know:
 *  - keys: gostx's PEM (private and public) read by the engine, the engine's
 *    written back and read by gostx, the same numbers both ways;
 *  - signatures: N random messages per curve signed by gostx and verified by
 *    the engine, N signed by the engine and verified by gostx (N = 1000 at the
 *    default level; 100 at the forced GOSTX_IMPL levels, where only Streebog's
 *    implementation changes), plus one flipped-bit refusal each way per curve;
 *  - VKO: the engine's EVP_PKEY_derive (8-byte UKM: VKO_GOSTR3410_2012_256)
 *    against gostx_gost3410_vko both ways, and the masked private key form.
 * Skips (77) without OpenSSL's headers (CMake links libcrypto when found) or
 * without the engine. tests/test_gost3410_engine.cmake builds it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "key_compat.h"

#if !defined(GOSTX_HAVE_LIBCRYPTO)
int main(void) {
  printf("SKIP: built without libcrypto (libssl-dev)\n");
  return 77;
}
#else
#define OPENSSL_SUPPRESS_DEPRECATED /* the ENGINE API is what gost-engine offers */
#include <openssl/bio.h>
#include <openssl/engine.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

static ENGINE *eng;

static const struct {
  gostx_gost3410_curve curve;
  const char *alg, *paramset; /* gost-engine's genpkey -algorithm / -pkeyopt paramset: */
  /* 1: the engine's key has the parameter set OID gostx writes for the
   * curve. The engine derives (VKO) only between keys of one OID, so only
   * these rows try VKO; the others are the aliases gostx reads. */
  int same_oid;
} curves[] = {
    {GOSTX_GOST3410_256_A, "gost2012_256", "TCA", 1}, {GOSTX_GOST3410_256_B, "gost2012_256", "A", 1},
    {GOSTX_GOST3410_256_B, "gost2012_256", "TCB", 0}, {GOSTX_GOST3410_256_B, "gost2012_256", "XA", 0},
    {GOSTX_GOST3410_256_C, "gost2012_256", "B", 1},   {GOSTX_GOST3410_256_C, "gost2012_256", "TCC", 0},
    {GOSTX_GOST3410_256_D, "gost2012_256", "C", 1},   {GOSTX_GOST3410_256_D, "gost2012_256", "TCD", 0},
    {GOSTX_GOST3410_256_D, "gost2012_256", "XB", 0},  {GOSTX_GOST3410_512_A, "gost2012_512", "A", 1},
    {GOSTX_GOST3410_512_B, "gost2012_512", "B", 1},   {GOSTX_GOST3410_512_C, "gost2012_512", "C", 1},
};

static EVP_PKEY *engine_read(const char *pem, size_t len, int priv) {
  BIO *b = BIO_new_mem_buf(pem, (int)len);
  EVP_PKEY *k = priv ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL)
                     : PEM_read_bio_PUBKEY(b, NULL, NULL, NULL);
  BIO_free(b);
  return k;
}

/* The engine's PEM of k into buf (NUL-terminated), its length. */
static size_t engine_write(EVP_PKEY *k, int priv, char *buf, size_t cap) {
  BIO *b = BIO_new(BIO_s_mem());
  int ok = priv ? PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL)
                : PEM_write_bio_PUBKEY(b, k);
  char *p;
  long n = BIO_get_mem_data(b, &p);
  size_t len = ok && n > 0 && (size_t)n < cap ? (size_t)n : 0;
  memcpy(buf, p, len);
  buf[len] = 0;
  BIO_free(b);
  return len;
}

static EVP_PKEY *engine_keygen(const char *alg, const char *paramset) {
  EVP_PKEY *k = NULL;
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(OBJ_sn2nid(alg), eng);
  if (c && EVP_PKEY_keygen_init(c) > 0 && EVP_PKEY_CTX_ctrl_str(c, "paramset", paramset) > 0)
    EVP_PKEY_keygen(c, &k);
  EVP_PKEY_CTX_free(c);
  return k;
}

static const EVP_MD *md_for(size_t len) {
  return EVP_get_digestbyname(len == 32 ? "md_gost12_256" : "md_gost12_512");
}

static int engine_verify(EVP_PKEY *k, size_t len, const uint8_t *msg, size_t mlen,
                         const uint8_t *sig) {
  EVP_MD_CTX *m = EVP_MD_CTX_new();
  int ok = EVP_DigestVerifyInit(m, NULL, md_for(len), eng, k) > 0 &&
           EVP_DigestVerify(m, sig, 2 * len, msg, mlen) == 1;
  EVP_MD_CTX_free(m);
  ERR_clear_error();
  return ok;
}

static int engine_sign(EVP_PKEY *k, size_t len, const uint8_t *msg, size_t mlen, uint8_t *sig) {
  EVP_MD_CTX *m = EVP_MD_CTX_new();
  size_t sl = 2 * len;
  int ok = EVP_DigestSignInit(m, NULL, md_for(len), eng, k) > 0 &&
           EVP_DigestSign(m, sig, &sl, msg, mlen) > 0 && sl == 2 * len;
  EVP_MD_CTX_free(m);
  return ok;
}

static size_t engine_derive(EVP_PKEY *mine, EVP_PKEY *peer, const char *ukm_hex, uint8_t *out) {
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(mine, eng);
  size_t n = 64;
  int ok = c && EVP_PKEY_derive_init(c) > 0 && EVP_PKEY_derive_set_peer(c, peer) > 0 &&
           EVP_PKEY_CTX_ctrl_str(c, "ukmhex", ukm_hex) > 0 && EVP_PKEY_derive(c, out, &n) > 0;
  EVP_PKEY_CTX_free(c);
  return ok ? n : 0;
}

static void digest(size_t len, const uint8_t *msg, size_t mlen, uint8_t *d) {
  gostx_streebog(len, msg, mlen, d);
}

/* A gostx key pair and the engine's view of it. */
struct pair {
  uint8_t priv[64], pub[128];
  EVP_PKEY *eng_priv, *eng_pub;
};

static int keys_both_ways(int ci, struct pair *g, EVP_PKEY **ek, uint8_t *ek_pub) {
  gostx_gost3410_curve cv = curves[ci].curve;
  size_t len = gostx_gost3410_size(cv), n;
  char pem[GOSTX_GOST3410_PEM_MAX], back[4096];
  gostx_gost3410_key_kind kind;
  gostx_gost3410_curve c2;
  size_t l2;
  uint8_t d2[64], q2[128];
  CHECK_RC(gostx_gost3410_keygen(cv, g->priv, len, g->pub, 2 * len), 0, "keygen");
  /* gostx -> engine: private and public PEM; the engine's own re-encoding
   * of each must read back to the same numbers. */
  CHECK_RC(tk_priv_to_pem(cv, g->priv, len, pem, sizeof pem, &n), 0, "priv_to_pem");
  g->eng_priv = engine_read(pem, n, 1);
  CHECK(g->eng_priv != NULL, "%s: engine reads gostx's private key", curves[ci].paramset);
  CHECK_RC(tk_pub_to_pem(cv, g->pub, 2 * len, pem, sizeof pem, &n), 0, "pub_to_pem");
  g->eng_pub = engine_read(pem, n, 0);
  CHECK(g->eng_pub != NULL, "%s: engine reads gostx's public key", curves[ci].paramset);
  if (!g->eng_priv || !g->eng_pub) return -1;
  n = engine_write(g->eng_priv, 1, back, sizeof back);
  CHECK(tk_key_from_pem(back, n, &kind, &c2, &l2, d2, sizeof d2, q2, sizeof q2) == 0 &&
            kind == GOSTX_GOST3410_KEY_PRIVATE && c2 == cv && !memcmp(d2, g->priv, len) &&
            !memcmp(q2, g->pub, 2 * len),
        "%s: engine's PEM of gostx's private key reads back", curves[ci].paramset);
  n = engine_write(g->eng_priv, 0, back, sizeof back); /* the public key the engine derived */
  CHECK(tk_key_from_pem(back, n, &kind, &c2, &l2, NULL, 0, q2, sizeof q2) == 0 &&
            kind == GOSTX_GOST3410_KEY_PUBLIC && !memcmp(q2, g->pub, 2 * len),
        "%s: engine's Q = d P equals gostx's", curves[ci].paramset);
  /* engine -> gostx */
  *ek = engine_keygen(curves[ci].alg, curves[ci].paramset);
  CHECK(*ek != NULL, "%s: engine keygen", curves[ci].paramset);
  if (!*ek) return -1;
  n = engine_write(*ek, 1, back, sizeof back);
  CHECK(tk_key_from_pem(back, n, &kind, &c2, &l2, d2, sizeof d2, q2, sizeof q2) == 0 &&
            c2 == cv && l2 == len && kind == GOSTX_GOST3410_KEY_PRIVATE,
        "%s: gostx reads the engine's private key", curves[ci].paramset);
  n = engine_write(*ek, 0, back, sizeof back);
  CHECK(tk_key_from_pem(back, n, &kind, &c2, &l2, NULL, 0, ek_pub, 128) == 0 &&
            kind == GOSTX_GOST3410_KEY_PUBLIC && c2 == cv && !memcmp(ek_pub, q2, 2 * len),
        "%s: gostx reads the engine's public key, = d P of its private key", curves[ci].paramset);
  gostx_memzero(d2, sizeof d2);
  return 0;
}

static void signatures(int ci, const struct pair *g, EVP_PKEY *ek, const uint8_t *ek_pub,
                       int count, long *to_engine, long *from_engine) {
  gostx_gost3410_curve cv = curves[ci].curve;
  size_t len = gostx_gost3410_size(cv);
  uint8_t msg[300], d[64], sig[128];
  for (int i = 0; i < count; i++) {
    size_t mlen = t_rand_below(sizeof msg + 1);
    t_rand_bytes(msg, mlen);
    digest(len, msg, mlen, d);
    int ok = gostx_gost3410_sign(cv, g->priv, len, d, len, sig, 2 * len) == 0 &&
             gostx_gost3410_sig_swap(sig, 2 * len, sig, 2 * len) == 0 &&
             engine_verify(g->eng_pub, len, msg, mlen, sig);
    CHECK(ok, "%s: engine verifies gostx's signature %d", curves[ci].paramset, i);
    *to_engine += ok;
    if (i == 0) {
      sig[t_rand_below(2 * len)] ^= (uint8_t)(1u << t_rand_below(8));
      CHECK(!engine_verify(g->eng_pub, len, msg, mlen, sig), "%s: engine refuses a flipped bit",
            curves[ci].paramset);
    }
    ok = engine_sign(ek, len, msg, mlen, sig) &&
         gostx_gost3410_sig_swap(sig, 2 * len, sig, 2 * len) == 0 &&
         gostx_gost3410_verify(cv, ek_pub, 2 * len, d, len, sig, 2 * len) == 0;
    CHECK(ok, "%s: gostx verifies the engine's signature %d", curves[ci].paramset, i);
    *from_engine += ok;
    if (i == 0) {
      sig[t_rand_below(2 * len)] ^= (uint8_t)(1u << t_rand_below(8));
      CHECK(gostx_gost3410_verify(cv, ek_pub, 2 * len, d, len, sig, 2 * len) != 0,
            "%s: gostx refuses a flipped bit", curves[ci].paramset);
    }
  }
}

static void vko(int ci, const struct pair *g, EVP_PKEY *ek, const uint8_t *ek_pub) {
  gostx_gost3410_curve cv = curves[ci].curve;
  size_t len = gostx_gost3410_size(cv);
  uint8_t ukm[8], a[64], b[64];
  char hex[17];
  t_rand_bytes(ukm, sizeof ukm);
  for (int i = 0; i < 8; i++) snprintf(hex + 2 * i, 3, "%02x", ukm[i]);
  /* the engine with its key and our public key, gostx with ours and its */
  size_t n = engine_derive(ek, g->eng_pub, hex, a);
  CHECK(n == 32, "%s: engine derive gives 32 bytes (got %zu)", curves[ci].paramset, n);
  CHECK_RC(gostx_gost3410_vko(cv, g->priv, len, ek_pub, 2 * len, ukm, 8, b, 32), 0, "vko");
  CHECK(n == 32 && !memcmp(a, b, 32), "%s: VKO engine(its d, our Q) = gostx(our d, its Q)",
        curves[ci].paramset);
  n = engine_derive(g->eng_priv, ek, hex, a); /* our key inside the engine */
  CHECK(n == 32 && !memcmp(a, b, 32), "%s: VKO with gostx's key in the engine agrees",
        curves[ci].paramset);
}

/* The CryptoPro masked form: key k0 and mask m, d = k0 m mod q, read by
 * both; the engine's public key must equal gostx's. */
static void masked(int ci) {
  gostx_gost3410_curve cv = curves[ci].curve;
  size_t len = gostx_gost3410_size(cv), n;
  char pem[GOSTX_GOST3410_PEM_MAX];
  uint8_t der[GOSTX_GOST3410_DER_MAX], d[64], q[128], q2[128];
  gostx_gost3410_key_kind kind;
  gostx_gost3410_curve c2;
  size_t l2;
  CHECK_RC(gostx_gost3410_keygen(cv, d, len, q, 2 * len), 0, "keygen");
  CHECK_RC(tk_priv_to_der(cv, d, len, der, sizeof der, &n), 0, "priv_to_der");
  /* Rebuild SEQUENCE { version, algorithm, OCTET STRING k0 || mask }: the
   * version and algorithm are der[hdr .. n - len - 2), k0 = our key. */
  uint8_t m[GOSTX_GOST3410_DER_MAX + 64], inner[GOSTX_GOST3410_DER_MAX + 64];
  size_t hdr = der[1] < 0x80 ? 2 : 3, in = n - len - 2 - hdr, mlen = 0;
  memcpy(inner, der + hdr, in);
  inner[in++] = 0x04;
  if (2 * len >= 0x80) inner[in++] = 0x81;
  inner[in++] = (uint8_t)(2 * len);
  memcpy(inner + in, der + n - len, len);
  t_rand_bytes(inner + in + len, len);
  in += 2 * len;
  m[mlen++] = 0x30;
  if (in >= 0x80) m[mlen++] = 0x81;
  m[mlen++] = (uint8_t)in;
  memcpy(m + mlen, inner, in);
  n = mlen + in;
  len = gostx_gost3410_size(cv);
  if (tk_key_from_der(m, n, &kind, &c2, &l2, d, sizeof d, q, sizeof q)) {
    CHECK(0, "%s: gostx reads the masked key", curves[ci].paramset);
    return;
  }
  BIO *b = BIO_new_mem_buf(m, (int)n);
  EVP_PKEY *k = d2i_PrivateKey_bio(b, NULL);
  BIO_free(b);
  CHECK(k != NULL, "%s: engine reads the masked key", curves[ci].paramset);
  if (!k) return;
  n = engine_write(k, 0, pem, sizeof pem);
  CHECK(tk_key_from_pem(pem, n, &kind, &c2, &l2, NULL, 0, q2, sizeof q2) == 0 &&
            !memcmp(q, q2, 2 * len),
        "%s: masked key: same public key in gostx and the engine", curves[ci].paramset);
  EVP_PKEY_free(k);
}

int main(void) {
  t_rand_init();
  ENGINE_load_builtin_engines();
  eng = ENGINE_by_id("gost");
  if (!eng || !ENGINE_init(eng)) {
    printf("SKIP: gost-engine not available (apt-get install libengine-gost-openssl)\n");
    return 77;
  }
  ENGINE_set_default(eng, ENGINE_METHOD_ALL);
  const char *impl = getenv("GOSTX_IMPL");
  int count = impl && *impl ? 100 : 1000;
  for (size_t ci = 0; ci < sizeof curves / sizeof curves[0]; ci++) {
    struct pair g = {0};
    EVP_PKEY *ek = NULL;
    uint8_t ek_pub[128];
    long to = 0, from = 0;
    if (keys_both_ways((int)ci, &g, &ek, ek_pub) == 0) {
      signatures((int)ci, &g, ek, ek_pub, count, &to, &from);
      if (curves[ci].same_oid) vko((int)ci, &g, ek, ek_pub);
      masked((int)ci);
    }
    printf("%-40s paramset %-3s: %ld gostx->engine, %ld engine->gostx signatures verified\n",
           gostx_gost3410_curve_name(curves[ci].curve), curves[ci].paramset, to, from);
    EVP_PKEY_free(g.eng_priv);
    EVP_PKEY_free(g.eng_pub);
    EVP_PKEY_free(ek);
  }
  ENGINE_finish(eng);
  ENGINE_free(eng);
  return t_done();
}
#endif
