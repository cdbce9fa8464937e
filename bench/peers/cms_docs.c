/* CMS sign + verify of small documents through the library against
 * OpenSSL's CMS API with gost-engine, in one process, one thread, the same
 * key and certificate: per document, a detached SignedData with signed
 * attributes (contentType, messageDigest, signingTime) made and written as
 * DER, then read back and verified with the signer's chain to the CA.
 * gostx: gostx_cms_sign, gostx_cms_signed_parse, gostx_cms_signed_verify.
 * OpenSSL: CMS_sign (CMS_DETACHED | CMS_BINARY), i2d_CMS_bio, d2i_CMS_bio,
 * CMS_verify with an X509_STORE. Documents per second of this thread's CPU
 * time, medians of RUNS interleaved runs, and the ratio.
 *
 * Built and run by bench/cms_speed.sh (not by CMake: it needs libcrypto).
 * Usage: cms_docs CA.pem CERT.pem KEY.pem [doc bytes] [runs] */
#define OPENSSL_SUPPRESS_DEPRECATED /* gost-engine is an ENGINE */
#include <openssl/cms.h>
#include <openssl/engine.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gostx.h"
#include "harness.h"

struct bench {
  uint8_t *doc;
  size_t doc_len;
  /* gostx */
  gostx_x509_cert cert;
  gostx_gost3410_key key;
  gostx_x509_store *store;
  uint8_t *der_cert, der[16384];
  gostx_cms_signed sd;
  /* OpenSSL */
  X509 *x509;
  EVP_PKEY *pkey;
  X509_STORE *ossl_store;
};

static int gostx_doc(void *a) {
  struct bench *b = a;
  gostx_cms_signer signer = {&b->cert, &b->key};
  gostx_cms_sign_params p = {0, (int64_t)time(NULL), NULL, 0};
  gostx_cms_hash h;
  gostx_cms_verdict v;
  size_t len;
  unsigned want = b->key.len == 32 ? GOSTX_CMS_HASH_256 : GOSTX_CMS_HASH_512;
  int rc = gostx_cms_sign(&signer, 1, &p, NULL, b->doc, b->doc_len, b->der, sizeof b->der, &len);
  if (rc || (rc = gostx_cms_signed_parse(b->der, len, &b->sd, NULL))) return rc ? rc : 1;
  /* the verifier digests the detached content as a caller does */
  if (gostx_cms_hash_init(&h, want) || gostx_cms_hash_update(&h, b->doc, b->doc_len) ||
      gostx_cms_hash_final(&h))
    return 1;
  gostx_cms_verify_params vp = {b->store, NULL, 0, (int64_t)time(NULL), GOSTX_X509_PURPOSE_ANY, NULL};
  return gostx_cms_signed_verify(&b->sd, &h, &vp, &v);
}

static int openssl_doc(void *a) {
  struct bench *b = a;
  BIO *in = BIO_new_mem_buf(b->doc, (int)b->doc_len), *out = BIO_new(BIO_s_mem());
  CMS_ContentInfo *cms = in && out ? CMS_sign(b->x509, b->pkey, NULL, in, CMS_DETACHED | CMS_BINARY) : NULL;
  int ok = cms && i2d_CMS_bio(out, cms) > 0;
  CMS_ContentInfo_free(cms);
  cms = ok ? d2i_CMS_bio(out, NULL) : NULL;
  BIO_free(in);
  in = BIO_new_mem_buf(b->doc, (int)b->doc_len);
  ok = cms && in && CMS_verify(cms, NULL, b->ossl_store, in, NULL, CMS_BINARY) > 0;
  CMS_ContentInfo_free(cms);
  BIO_free(in);
  BIO_free(out);
  return ok ? 0 : 1;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = malloc(1 << 16);
  *len = f && buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
  if (f) fclose(f);
  if (buf) buf[*len] = 0;
  return buf;
}

static int setup_gostx(struct bench *b, const char *ca, const char *cert, const char *key) {
  size_t len, pos = 0, der_len;
  char *pem = slurp(cert, &len), *k = NULL;
  char err[256];
  b->der_cert = malloc(len + 1);
  int rc = !pem || gostx_x509_pem_next(pem, len, &pos, b->der_cert, len, &der_len) != 1 ||
           gostx_x509_parse(b->der_cert, der_len, &b->cert, NULL);
  if (!rc) rc = !(k = slurp(key, &len)) || gostx_gost3410_key_read(&b->key, k, len, NULL, 0);
  if (!rc) rc = !(b->store = gostx_x509_store_new()) ||
                gostx_x509_store_add_path(b->store, ca, err, sizeof err);
  free(pem);
  free(k);
  return rc;
}

static int setup_openssl(struct bench *b, const char *ca, const char *cert, const char *key) {
  ENGINE_load_builtin_engines();
  ENGINE *e = ENGINE_by_id("gost");
  if (!e || !ENGINE_init(e) || !ENGINE_set_default(e, ENGINE_METHOD_ALL)) return 1;
  FILE *f = fopen(cert, "r");
  b->x509 = f ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;
  if (f) fclose(f);
  f = fopen(key, "r");
  b->pkey = f ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : NULL;
  if (f) fclose(f);
  b->ossl_store = X509_STORE_new();
  return !b->x509 || !b->pkey || !b->ossl_store || X509_STORE_load_file(b->ossl_store, ca) != 1;
}

int main(int argc, char **argv) {
  size_t doc_len = argc > 4 ? (size_t)atol(argv[4]) : 4096;
  int runs = argc > 5 ? atoi(argv[5]) : 5;
  if (argc < 4 || runs < 1 || runs > 64 || doc_len < 1 || doc_len > (1u << 26)) {
    fprintf(stderr, "usage: cms_docs CA.pem CERT.pem KEY.pem [doc bytes] [runs: 1..64]\n");
    return 2;
  }
  static struct bench b;
  b.doc_len = doc_len;
  b.doc = malloc(doc_len);
  if (!b.doc || gostx_random_bytes(b.doc, doc_len) || setup_gostx(&b, argv[1], argv[2], argv[3])) {
    fprintf(stderr, "cms_docs: gostx setup failed\n");
    return 1;
  }
  if (setup_openssl(&b, argv[1], argv[2], argv[3])) {
    fprintf(stderr, "cms_docs: OpenSSL/gost-engine setup failed\n");
    ERR_print_errors_fp(stderr);
    return 1;
  }
  if (gostx_doc(&b) || openssl_doc(&b)) {
    fprintf(stderr, "cms_docs: a first sign + verify failed\n");
    ERR_print_errors_fp(stderr);
    return 1;
  }
  gostx_bench_job jobs[2] = {gostx_doc, openssl_doc};
  double v[2][64];
  for (int r = 0; r < runs; r++)
    for (int j = 0; j < 2; j++) {
      uint64_t calls;
      double secs;
      if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, 0.3, jobs[j], &b, &calls, &secs)) {
        fprintf(stderr, "cms_docs: %s failed\n", j ? "openssl" : "gostx");
        return 1;
      }
      v[j][r] = (double)calls / secs;
    }
  double g = gostx_bench_median(v[0], runs), o = gostx_bench_median(v[1], runs);
  printf("%zu-byte documents, sign + verify (detached, signed attributes, chain), one thread,\n"
         "documents per CPU-second (median of %d interleaved runs):\n"
         "  gostx library            %9.0f\n"
         "  OpenSSL CMS + gost-engine %8.0f\n"
         "  ratio gostx/openssl       %8.2fx\n",
         doc_len, runs, g, o, g / o);
  return 0;
}
