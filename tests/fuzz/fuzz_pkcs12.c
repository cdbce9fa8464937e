/* libFuzzer harness: the PKCS#12 reader (lib/pkcs12/read.c), which parses
 * untrusted files. The first byte picks how the rest is used: bit 0 clear,
 * as a PFX as it is (the structure up to the MAC; past it only when the
 * MAC holds, as in the seeds); bit 0 set, as the AuthenticatedSafe of a PFX
 * the harness wraps and MACs itself under the password, so what lies behind
 * the MAC (the bags, their attributes, decryption) is reached by every
 * mutation. Password "pw"; at most 64 PBKDF2 iterations a file (seeds are
 * written with -iter 1). It must never crash or read out of bounds; what is
 * accepted must be listed sanely, and an accepted key with its certificate
 * must write into a PFX that reads back to the same key. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#define FUZZ_NAME "fuzz_pkcs12"
#include "fuzz_check.h"

static const uint8_t PASS[] = "pw";

/* tag, DER length of n, at o; the header's length */
static size_t header(uint8_t *o, uint8_t tag, size_t n) {
  size_t k = 0;
  o[k++] = tag;
  if (n < 0x80) {
    o[k++] = (uint8_t)n;
  } else {
    size_t bytes = n > 0xffff ? 3 : n > 0xff ? 2 : 1;
    o[k++] = (uint8_t)(0x80 | bytes);
    while (bytes--) o[k++] = (uint8_t)(n >> (8 * bytes));
  }
  return k;
}

/* A PFX around as[n] with a MAC that holds: malloc'd, *len. */
static uint8_t *wrap(const uint8_t *as, size_t n, size_t *len) {
  static const uint8_t data_oid[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01};
  static const uint8_t alg[] = {0x30, 0x0a, 0x06, 0x08, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x01, 0x02, 0x03};
  static const uint8_t salt[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint8_t k[96], mac[64], h[3][8];
  if (gostx_pbkdf2_streebog512(PASS, 2, salt, 8, 1, k, 96) || gostx_hmac(64, k + 64, 32, as, n, mac))
    bug("MAC");
  uint8_t macdata[2 + 2 + sizeof alg + 2 + 64 + 2 + 8 + 3], *m = macdata;
  size_t inner = sizeof alg + 2 + 64;
  m += header(m, 0x30, inner + 2 + 8 + 3);
  m += header(m, 0x30, inner);
  memcpy(m, alg, sizeof alg), m += sizeof alg;
  m += header(m, 0x04, 64);
  memcpy(m, mac, 64), m += 64;
  m += header(m, 0x04, 8);
  memcpy(m, salt, 8), m += 8;
  *m++ = 0x02, *m++ = 0x01, *m++ = 0x01;
  size_t md_len = (size_t)(m - macdata);
  size_t h0 = header(h[0], 0x04, n), h1 = header(h[1], 0xa0, h0 + n);
  size_t ci = sizeof data_oid + h1 + h0 + n, h2 = header(h[2], 0x30, ci);
  size_t body = 3 + h2 + ci + md_len;
  uint8_t top[8];
  size_t ht = header(top, 0x30, body);
  uint8_t *out = malloc(ht + body), *o = out;
  if (!out) bug("malloc");
  memcpy(o, top, ht), o += ht;
  *o++ = 0x02, *o++ = 0x01, *o++ = 0x03;
  memcpy(o, h[2], h2), o += h2;
  memcpy(o, data_oid, sizeof data_oid), o += sizeof data_oid;
  memcpy(o, h[1], h1), o += h1;
  memcpy(o, h[0], h0), o += h0;
  memcpy(o, as, n), o += n;
  memcpy(o, macdata, md_len), o += md_len;
  *len = (size_t)(o - out);
  return out;
}

/* The accepted key and its certificate written again and read back. */
static void round_trip(const gostx_pkcs12 *p) {
  gostx_gost3410_key k, k2;
  size_t cert_bag, n = 0;
  gostx_pkcs12_bag cert;
  if (gostx_pkcs12_key(p, &k, &cert_bag)) return;
  if (cert_bag == SIZE_MAX || gostx_pkcs12_bag_get(p, cert_bag, &cert)) return;
  gostx_pkcs12_params params = {GOSTX_PKCS12_PBE_MAGMA, GOSTX_PKCS12_PBE_GOST89, 1, "x", PASS, 2};
  if (gostx_pkcs12_write(&k, &cert.der, &cert.der_len, 1, &params, NULL, 0, &n))
    bug("write: length");
  uint8_t *pfx = malloc(n);
  gostx_pkcs12 *q = NULL;
  if (!pfx || gostx_pkcs12_write(&k, &cert.der, &cert.der_len, 1, &params, pfx, n, &n))
    bug("write");
  if (gostx_pkcs12_read(pfx, n, PASS, 2, 0, &q, NULL, 0) || gostx_pkcs12_key(q, &k2, &cert_bag) ||
      k2.curve != k.curve || k2.len != k.len || memcmp(k.d, k2.d, k.len) ||
      strcmp(k.oid, k2.oid) || cert_bag == SIZE_MAX)
    bug("round trip");
  gostx_pkcs12_free(q);
  free(pfx);
}

/* Every bag's bytes touched (ASan sees any that lie outside the object). */
static void list(const gostx_pkcs12 *p) {
  unsigned sum = 0;
  for (size_t i = 0; i < gostx_pkcs12_bag_count(p); i++) {
    gostx_pkcs12_bag b;
    if (gostx_pkcs12_bag_get(p, i, &b)) bug("bag_get");
    if (b.safe >= gostx_pkcs12_safe_count(p) || !b.der) bug("bag's part");
    for (size_t j = 0; j < b.der_len; j++) sum += b.der[j];
    for (size_t j = 0; j < b.key_id_len; j++) sum += b.key_id[j];
    if (strlen(b.name) >= sizeof b.name) bug("name");
    char pem[8192];
    size_t n;
    if (b.type == GOSTX_PKCS12_BAG_CERT && b.der_len < 4096 &&
        gostx_x509_to_pem("CERTIFICATE", b.der, b.der_len, pem, sizeof pem, &n))
      bug("cert_pem");
  }
  if (sum == 0xffffffffu) fprintf(stderr, "%u\n", sum);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t n = size - 1, len;
  uint8_t *in = data[0] & 1 ? wrap(data + 1, n, &len) : malloc(n ? n : 1);
  if (!in) return 0;
  if (!(data[0] & 1)) memcpy(in, data + 1, n), len = n; /* exact size for ASan */
  gostx_pkcs12 *p = NULL;
  char why[256];
  int rc = gostx_pkcs12_read(in, len, PASS, 2, 64, &p, why, sizeof why);
  if (rc && p) bug("object on failure");
  if (!rc) {
    list(p);
    round_trip(p);
  }
  gostx_pkcs12_free(p);
  free(in);
  return 0;
}
