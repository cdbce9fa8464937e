/* GOST R 34.10-2012 signing through the gostx OpenSSL provider against the
 * library's own call, in one process, one thread: gostx_gost3410_sign of a
 * digest; EVP_PKEY_sign with a new EVP_PKEY_CTX per signature (new, sign_init,
 * sign, free: what gost3410_peers.c times for gost-engine, and what most
 * callers do); EVP_PKEY_sign on one context initialised once; and the
 * context's new + sign_init + free alone, signing nothing (OpenSSL's
 * per-context work: fetching the signature and key management by name, the
 * provider's newctx, sign_init and freectx); then a 100-byte message hashed
 * and signed: Streebog and gostx_gost3410_sign against EVP_DigestSign with a
 * new EVP_MD_CTX per message. Medians of RUNS interleaved runs of about
 * 0.2 s of this thread's CPU time; ratios to the library's call.
 *
 * Built and run by bench/gost3410_peers.sh (not by CMake: it needs
 * libcrypto). Usage: gost3410_evp MODULE_DIR [runs] */
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <stdio.h>
#include <stdlib.h>

#include "gostx.h"
#include "harness.h"

struct side {
  EVP_PKEY *key;
  EVP_PKEY_CTX *ready; /* sign_init done once */
  gostx_gost3410_curve curve;
  size_t len;
  uint8_t priv[64], digest[64], sig[128], msg[100];
};

static int lib_sign(void *a) {
  struct side *s = a;
  return gostx_gost3410_sign(s->curve, s->priv, s->len, s->digest, s->len, s->sig, 2 * s->len);
}
static int evp_new_ctx(void *a) {
  struct side *s = a;
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, s->key, NULL);
  size_t len = sizeof s->sig;
  int ok = c && EVP_PKEY_sign_init(c) > 0 && EVP_PKEY_sign(c, s->sig, &len, s->digest, s->len) > 0;
  EVP_PKEY_CTX_free(c);
  return ok ? 0 : 1;
}
static int evp_one_ctx(void *a) {
  struct side *s = a;
  size_t len = sizeof s->sig;
  return EVP_PKEY_sign(s->ready, s->sig, &len, s->digest, s->len) > 0 ? 0 : 1;
}
static int ctx_only(void *a) {
  struct side *s = a;
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, s->key, NULL);
  int ok = c && EVP_PKEY_sign_init(c) > 0;
  EVP_PKEY_CTX_free(c);
  return ok ? 0 : 1;
}

static int lib_hash_sign(void *a) {
  struct side *s = a;
  int rc = gostx_streebog(s->len, s->msg, sizeof s->msg, s->digest);
  return rc ? rc : lib_sign(s);
}
static int evp_digest_sign(void *a) {
  struct side *s = a;
  EVP_MD_CTX *m = EVP_MD_CTX_new();
  size_t len = sizeof s->sig;
  int ok = m &&
           EVP_DigestSignInit_ex(m, NULL, s->len == 32 ? "md_gost12_256" : "md_gost12_512", NULL,
                                 NULL, s->key, NULL) > 0 &&
           EVP_DigestSign(m, s->sig, &len, s->msg, sizeof s->msg) > 0;
  EVP_MD_CTX_free(m);
  return ok ? 0 : 1;
}

static int setup(struct side *s, const char *type, const char *paramset) {
  OSSL_PARAM p[2] = {OSSL_PARAM_construct_utf8_string("paramset", (char *)paramset, 0),
                     OSSL_PARAM_END};
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, type, "provider=gostx");
  BIGNUM *d = NULL;
  char group[80];
  s->key = NULL;
  if (!c || EVP_PKEY_keygen_init(c) <= 0 || !EVP_PKEY_CTX_set_params(c, p) ||
      EVP_PKEY_keygen(c, &s->key) <= 0)
    s->key = NULL;
  EVP_PKEY_CTX_free(c);
  if (!s->key || !EVP_PKEY_get_bn_param(s->key, OSSL_PKEY_PARAM_PRIV_KEY, &d) ||
      !EVP_PKEY_get_utf8_string_param(s->key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                      NULL))
    return 1;
  s->len = (size_t)EVP_PKEY_get_bits(s->key) / 8;
  s->curve = (gostx_gost3410_curve)gostx_gost3410_curve_by_name(group);
  int bad = BN_bn2binpad(d, s->priv, (int)s->len) != (int)s->len || (int)s->curve <= 0;
  BN_clear_free(d);
  s->ready = EVP_PKEY_CTX_new_from_pkey(NULL, s->key, NULL);
  return bad || !s->ready || EVP_PKEY_sign_init(s->ready) <= 0 ||
         gostx_random_bytes(s->digest, s->len) || gostx_random_bytes(s->msg, sizeof s->msg) ||
         lib_sign(s) || evp_new_ctx(s) || evp_digest_sign(s);
}

int main(int argc, char **argv) {
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (argc < 2 || runs < 1 || runs > 64) {
    fprintf(stderr, "usage: gost3410_evp MODULE_DIR [runs: 1..64]\n");
    return 2;
  }
  if (!OSSL_PROVIDER_set_default_search_path(NULL, argv[1]) || !OSSL_PROVIDER_load(NULL, "gostx") ||
      !OSSL_PROVIDER_load(NULL, "default")) {
    fprintf(stderr, "gost3410_evp: cannot load the gostx provider from %s\n", argv[1]);
    ERR_print_errors_fp(stderr);
    return 1;
  }
  static const char *const sets[][3] = {{"gost2012_256", "TCA", "256 paramSetA"},
                                        {"gost2012_256", "A", "256 paramSetB"},
                                        {"gost2012_512", "C", "512 paramSetC"}};
  enum { NROWS = 6 };
  static const char *const rows[NROWS] = {"library",
                                          "EVP, new ctx per sign",
                                          "EVP, one ctx",
                                          "ctx new+init+free only",
                                          "library, hash + sign",
                                          "EVP_DigestSign, new ctx"};
  gostx_bench_job jobs[NROWS] = {lib_sign,   evp_new_ctx,   evp_one_ctx,
                                 ctx_only,   lib_hash_sign, evp_digest_sign};
  printf("GOST R 34.10-2012 sign through the gostx provider, one thread, ops/s and us/op\n"
         "(median of %d interleaved runs, thread CPU time); ratio: ops/s over the library's\n",
         runs);
  int rc = 0;
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    struct side s;
    if (setup(&s, sets[i][0], sets[i][1])) {
      fprintf(stderr, "gost3410_evp: %s: setup failed\n", sets[i][2]);
      ERR_print_errors_fp(stderr);
      rc = 1;
      continue;
    }
    double v[NROWS][64], med[NROWS];
    for (int r = 0; r < runs && !rc; r++)
      for (int j = 0; j < NROWS; j++) {
        uint64_t calls;
        double secs;
        if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, 0.2, jobs[j], &s, &calls, &secs)) {
          fprintf(stderr, "gost3410_evp: %s: %s failed\n", sets[i][2], rows[j]);
          rc = 1;
          break;
        }
        v[j][r] = (double)calls / secs;
      }
    for (int j = 0; j < NROWS && !rc; j++) {
      med[j] = gostx_bench_median(v[j], runs);
      printf("%-14s %-24s %10.0f %9.2f", sets[i][2], rows[j], med[j], 1e6 / med[j]);
      if (j == 1 || j == 2) printf("  %.3fx", med[j] / med[0]);
      if (j == 5) printf("  %.3fx", med[j] / med[4]);
      printf("\n");
    }
    EVP_PKEY_CTX_free(s.ready);
    EVP_PKEY_free(s.key);
  }
  return rc;
}
