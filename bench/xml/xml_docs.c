/* bench/xml_speed.sh's driver: SMEV 3 envelopes signed (detached by Id,
 * exc-c14n + the SMEV transform, into CallerInformationSystemSignature) and
 * verified (References, SignatureValue, the chain) per CPU-second of this
 * process, one thread, through libgostx-xmldsig.
 *   xml_docs KEY.pem CERT.pem CA.pem DOC.xml ID SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gostx/gost3410.h>
#include <gostx/x509.h>

#include "xmldsig.h"

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  uint8_t *b = f ? malloc(1 << 20) : NULL;
  *len = b ? fread(b, 1, 1 << 20, f) : 0;
  if (f) fclose(f);
  return b;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: xml_docs KEY.pem CERT.pem CA.pem DOC.xml ID SECONDS\n");
    return 2;
  }
  size_t klen, clen, dlen, pos = 0, der_len = 0;
  uint8_t *kpem = slurp(argv[1], &klen), *cpem = slurp(argv[2], &clen), *doc = slurp(argv[4], &dlen);
  static uint8_t der[GOSTX_X509_CERT_MAX];
  gostx_gost3410_key key;
  gostx_x509_store *store = gostx_x509_store_new();
  char err[512];
  if (!kpem || !cpem || !doc || !store || gostx_gost3410_key_read(&key, kpem, klen, NULL, 0) ||
      gostx_x509_pem_next((const char *)cpem, clen, &pos, der, sizeof der, &der_len) != 1 ||
      gostx_x509_store_add_path(store, argv[3], err, sizeof err)) {
    fprintf(stderr, "xml_docs: the key, certificate, CA or document does not load\n");
    return 1;
  }
  gostx_xmldsig_sign_opts o = {.ref = argv[5], .form = GOSTX_XMLDSIG_DETACHED, .smev = 1,
                               .cert_der = der, .cert_len = der_len};
  const double limit = atof(argv[6]), t0 = cpu_now();
  unsigned long n = 0;
  double t;
  do {
    uint8_t *out;
    size_t out_len;
    gostx_xmldsig_result r;
    if (gostx_xmldsig_sign(doc, dlen, &o, &key, &out, &out_len, err, sizeof err) ||
        gostx_xmldsig_verify(out, out_len, store, NULL, &r)) {
      fprintf(stderr, "xml_docs: sign or verify failed: %s\n", err);
      return 1;
    }
    gostx_xmldsig_result_free(&r);
    free(out);
    n++;
    t = cpu_now() - t0;
  } while (t < limit);
  printf("%zu-byte envelope: %lu signed + verified in %.2f CPU-s: %.1f per CPU-second\n", dlen, n,
         t, (double)n / t);
  gostx_gost3410_key_clear(&key);
  gostx_x509_store_free(store);
  free(kpem), free(cpem), free(doc);
  return 0;
}
