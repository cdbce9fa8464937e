/* The R 1323565.1.025-2019 example files (tests/vectors/tc26_cms) as
 * test_cms and test_cms_envelope read them: a file whole, a certificate
 * with its private key, a PEM "CMS" example as DER. */
#ifndef GOSTX_TESTS_TC26_CMS_FILES_H
#define GOSTX_TESTS_TC26_CMS_FILES_H

#include <stdlib.h>

#include "testutil.h"

static uint8_t *slurp(const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "tc26_cms/%s", name);
  return tv_file(path, len);
}

typedef struct signer_files {
  uint8_t cert_der[4096];
  gostx_x509_cert cert;
  gostx_gost3410_key key;
} signer_files;

static void load_signer(const char *cert_name, const char *key_name, signer_files *s) {
  size_t len, pos = 0, der_len;
  uint8_t *pem = slurp(cert_name, &len);
  CHECK(gostx_x509_pem_next((const char *)pem, len, &pos, s->cert_der, sizeof s->cert_der, &der_len) == 1 &&
            gostx_x509_parse(s->cert_der, der_len, &s->cert, NULL) == 0,
        "%s parses", cert_name);
  free(pem);
  pem = slurp(key_name, &len);
  CHECK(gostx_gost3410_key_read(&s->key, pem, len, NULL, 0) == 0, "%s reads", key_name);
  free(pem);
}

/* The PEM example as DER into a malloc'ed buffer. */
static uint8_t *example(const char *name, size_t *der_len) {
  size_t len;
  uint8_t *pem = slurp(name, &len), *der = malloc(len);
  CHECK(gostx_cms_pem_read((const char *)pem, len, der, len, der_len) == 0, "%s: PEM", name);
  free(pem);
  return der;
}

#endif
