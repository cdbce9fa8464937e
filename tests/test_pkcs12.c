#define _GNU_SOURCE /* memmem */
/* PKCS#12 (lib/pkcs12): known answers from files gostx did not write
 * (tests/vectors/pkcs12/, made by gost-engine and certtool: the key and
 * certificates each holds compared with the PEM they were made from), our
 * own files read back for every cipher, and the refusals: wrong password,
 * altered MAC or ciphertext, truncated and trailing bytes, iteration counts
 * over the limit (refused before any work), unknown MAC and PBE algorithms
 * named by OID. */
#include <stdlib.h>
#include <time.h>

#include "pkcs12/pkcs12_internal.h"
#include "testutil.h"
#include "key_compat.h"

static char *slurp(const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "pkcs12/%s", name);
  return (char *)tv_file(path, len);
}

typedef struct material {
  uint8_t keyder[512], d[64], certs[12][1024];
  size_t keyder_len, len, cert_lens[12], ncerts;
  gostx_gost3410_curve curve;
} material;

/* A PEM key and PEM certificates, as DER and d. */
static void load(material *m, const char *key_pem, const char *certs_pem) {
  size_t n, pos = 0;
  char *k = slurp(key_pem, &n), *c;
  gostx_gost3410_key_kind kind;
  CHECK(!tk_key_from_pem(k, n, &kind, &m->curve, &m->len, m->d, sizeof m->d, NULL, 0),
        "%s", key_pem);
  CHECK(!tk_priv_to_der(m->curve, m->d, m->len, m->keyder, sizeof m->keyder,
                                    &m->keyder_len),
        "%s to DER", key_pem);
  free(k);
  c = slurp(certs_pem, &n);
  for (m->ncerts = 0; m->ncerts < 12 && gostx_x509_pem_next(c, n, &pos, m->certs[m->ncerts], 1024,
                                                           &m->cert_lens[m->ncerts]) == 1;)
    m->ncerts++;
  free(c);
}

/* p holds m's key and certificates (in order), the key's certificate
 * tagged like the key (localKeyId, and friendlyName name when not NULL). */
static void check_holds(const gostx_pkcs12 *p, const material *m, const char *name,
                        const char *what) {
  gostx_gost3410_curve curve;
  size_t len, cert_bag = 0, ncert = 0;
  uint8_t d[64];
  CHECK_RC(tk_pkcs12_key(p, &curve, &len, d, sizeof d, NULL, 0, NULL, 0, &cert_bag), 0, what);
  CHECK(curve == m->curve && len == m->len && !memcmp(d, m->d, len), "%s: the key", what);
  gostx_pkcs12_bag key = {0}, bag;
  for (size_t i = 0; i < gostx_pkcs12_bag_count(p); i++) {
    CHECK(!gostx_pkcs12_bag_get(p, i, &bag), "bag_get");
    if (bag.type == GOSTX_PKCS12_BAG_SHROUDED_KEY || bag.type == GOSTX_PKCS12_BAG_KEY) key = bag;
    if (bag.type != GOSTX_PKCS12_BAG_CERT) continue;
    CHECK(ncert < m->ncerts && bag.der_len == m->cert_lens[ncert] &&
              !memcmp(bag.der, m->certs[ncert], bag.der_len),
          "%s: certificate %zu", what, ncert);
    ncert++;
  }
  CHECK(ncert == m->ncerts, "%s: %zu certificates, want %zu", what, ncert, m->ncerts);
  CHECK(cert_bag != SIZE_MAX && !gostx_pkcs12_bag_get(p, cert_bag, &bag) &&
            bag.der_len == m->cert_lens[0] && !memcmp(bag.der, m->certs[0], bag.der_len),
        "%s: the key's certificate is the first", what);
  CHECK(key.key_id && bag.key_id && key.key_id_len == bag.key_id_len &&
            !memcmp(key.key_id, bag.key_id, key.key_id_len),
        "%s: localKeyId ties the key to its certificate", what);
  if (name) CHECK(!strcmp(key.name, name) && !strcmp(bag.name, name), "%s: friendlyName '%s'", what, key.name);
}

static int read_file(const char *name, const char *pass, gostx_pkcs12 **p, char *why) {
  size_t n;
  char *pfx = slurp(name, &n);
  int rc = gostx_pkcs12_read((uint8_t *)pfx, n, (const uint8_t *)pass, strlen(pass), 0, p, why, 256);
  free(pfx);
  return rc;
}

static void test_known_files(void) {
  static const struct {
    const char *file, *pass, *key, *certs, *name, *scheme, *mac;
  } files[] = {
      {"engine-gost89-256.pfx", "secret", "key256.pem", "cert256.pem", "my key",
       "PBES2: PBKDF2 with HMAC-Streebog-512, GOST 28147-89 CFB 1.2.643.7.1.2.5.1.1", NULL},
      {"engine-gost89-512.pfx", "пароль", "key512.pem", "chain512.pem", "ключ",
       "PBES2: PBKDF2 with HMAC-Streebog-512, GOST 28147-89 CFB 1.2.643.7.1.2.5.1.1", NULL},
      /* over 4096 and 1024 bytes: CTR-ACPKM's sections as gost-engine cuts them */
      {"engine-kuznyechik-512.pfx", "secret", "key512.pem", "chain512x9.pem", NULL,
       "PBES2: PBKDF2 with hmacWithSHA256, kuznyechik-ctr-acpkm", NULL},
      {"engine-magma-512.pfx", "secret", "key512.pem", "chain512.pem", NULL,
       "PBES2: PBKDF2 with hmacWithSHA256, magma-ctr-acpkm", NULL},
      {"certtool-gost89-256.pfx", "secret", "key256.pem", "cert256.pem", "my key",
       "PBES2: PBKDF2 with HMAC-Streebog-512, GOST 28147-89 CFB 1.2.643.7.1.2.5.1.1", NULL},
      /* -macalg md_gost12_256: R 50.1.112-2016's MAC key rule over Streebog-256 */
      {"engine-gost89-256-mac256.pfx", "secret", "key256.pem", "cert256.pem", "my key",
       "PBES2: PBKDF2 with HMAC-Streebog-512, GOST 28147-89 CFB 1.2.643.7.1.2.5.1.1",
       "streebog256"},
      /* -keypbe/-certpbe DES-EDE3-CBC: the shape of certtool --pkcs-cipher 3des
       * (whose own file, 600,000 iterations, test_pkcs12_interop.sh reads) */
      {"engine-des3-256.pfx", "secret", "key256.pem", "cert256.pem", "my key",
       "PBES2: PBKDF2 with hmacWithSHA256, des-ede3-cbc", NULL},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    material m;
    gostx_pkcs12 *p = NULL;
    char why[256];
    load(&m, files[i].key, files[i].certs);
    int rc = read_file(files[i].file, files[i].pass, &p, why);
    CHECK(rc == 0, "%s: rc %d (%s)", files[i].file, rc, why);
    if (rc) continue;
    check_holds(p, &m, files[i].name, files[i].file);
    gostx_pkcs12_safe safe;
    CHECK(gostx_pkcs12_safe_count(p) == 2 && !gostx_pkcs12_safe_get(p, 0, &safe) &&
              safe.encrypted && !strcmp(safe.scheme, files[i].scheme),
          "%s: the certificates' part is encrypted with %s", files[i].file, safe.scheme);
    gostx_pkcs12_mac mac;
    gostx_pkcs12_mac_get(p, &mac);
    CHECK(!strcmp(mac.alg, files[i].mac ? files[i].mac : "streebog512"), "%s: MAC %s",
          files[i].file, mac.alg);
    gostx_pkcs12_free(p);
    if (!strncmp(files[i].file, "certtool", 8)) continue; /* 600,000 iterations: once is enough */
    CHECK_RC(read_file(files[i].file, "Secret", &p, why), GOSTX_EAUTH, files[i].file);
    CHECK(p == NULL && strstr(why, "wrong password"), "%s: why '%s'", files[i].file, why);
  }
}

/* PBES2 with HMAC-GOST R 34.11-94 as its PRF (1.2.643.2.2.10), what
 * certtool --pkcs-cipher gost28147-cpa puts around both bags (its own file,
 * 600,000 iterations, test_pkcs12_interop.sh reads): the same code as the
 * bags', here on a key gost-engine encrypted (`openssl pkcs8 -topk8 -v2
 * gost89 -v2prf id-HMACGostR3411-94`, 2048 iterations) to key256.pem's. */
static void test_gost94_prf(void) {
  material m;
  size_t n;
  char *pem = slurp("pkcs8-gost94prf-256.pem", &n), scheme[160];
  gostx_gost3410_key k;
  load(&m, "key256.pem", "cert256.pem");
  CHECK(!tk_encrypted_scheme_pem(pem, n, scheme, sizeof scheme) &&
            strstr(scheme, "with HMAC-GOST R 34.11-94, GOST 28147-89 CFB"),
        "the scheme named: %s", scheme);
  CHECK_RC(gostx_gost3410_key_read(&k, pem, n, (const uint8_t *)"secret", 6), 0, "HMAC-GOST94 PRF");
  CHECK(k.curve == m.curve && k.len == m.len && !memcmp(k.d, m.d, m.len), "the key");
  CHECK_RC(gostx_gost3410_key_read(&k, pem, n, (const uint8_t *)"Secret", 6), GOSTX_EAUTH, "wrong password");
  gostx_gost3410_key_clear(&k);
  free(pem);
}

/* TC26 R 50.1.112-2016's example container (its appendix; the values as
 * PyGOST's tests carry them): password "Пароль для PFX", 2000 iterations,
 * the key in a data part, the certificate in an encryptedData part, both
 * tagged localKeyId 01000000. The shrouded key must decrypt to the
 * standard's PrivateKeyInfo byte for byte, the encrypted part to its
 * SafeContents (whose certificate we give). */
static void test_standard_example(void) {
  size_t n, key_len, sc_len;
  char *pfx = slurp("r50.1.112-2016-example.pfx", &n);
  char *key = slurp("r50.1.112-2016-example-key.der", &key_len);
  char *sc = slurp("r50.1.112-2016-example-certs.der", &sc_len);
  const char *pass = "Пароль для PFX";
  gostx_pkcs12 *p = NULL;
  char why[256];
  int rc = gostx_pkcs12_read((uint8_t *)pfx, n, (const uint8_t *)pass, strlen(pass), 0, &p, why,
                             sizeof why);
  CHECK(rc == 0, "R 50.1.112-2016 example: rc %d (%s)", rc, why);
  gostx_pkcs12_bag key_bag = {0}, cert_bag = {0};
  for (size_t i = 0; p && i < gostx_pkcs12_bag_count(p); i++) {
    gostx_pkcs12_bag b;
    CHECK(!gostx_pkcs12_bag_get(p, i, &b), "bag_get");
    if (b.type == GOSTX_PKCS12_BAG_SHROUDED_KEY) key_bag = b;
    if (b.type == GOSTX_PKCS12_BAG_CERT) cert_bag = b;
  }
  CHECK(p && gostx_pkcs12_bag_count(p) == 2 && key_bag.safe == 0 && cert_bag.safe == 1,
        "example: the key in part 0, the certificate in part 1");
  CHECK(key_bag.der_len == key_len && !memcmp(key_bag.der, key, key_len),
        "example: the standard's PrivateKeyInfo");
  CHECK(cert_bag.der_len == 774 && sc_len > 774 &&
            memmem(sc, sc_len, cert_bag.der, cert_bag.der_len) != NULL,
        "example: the certificate of the standard's SafeContents");
  CHECK(key_bag.key_id_len == 4 && !memcmp(key_bag.key_id, "\x01\0\0\0", 4) &&
            cert_bag.key_id_len == 4 && !memcmp(cert_bag.key_id, "\x01\0\0\0", 4),
        "example: localKeyId 01000000 on both");
  gostx_gost3410_curve curve;
  size_t len, which = SIZE_MAX;
  CHECK(p && !tk_pkcs12_key(p, &curve, &len, NULL, 0, NULL, 0, NULL, 0, &which) && which == 1 &&
            len == 32,
        "example: a 256-bit key, its certificate found by its public key");
  gostx_pkcs12_free(p);
  CHECK_RC(gostx_pkcs12_read((uint8_t *)pfx, n, (const uint8_t *)"Пароль для PFX ", strlen(pass) + 1,
                             0, &p, why, sizeof why),
           GOSTX_EAUTH, "example: another password");
  free(pfx);
  free(key);
  free(sc);
}

/* The content span of the DER element at p[*off] (its header skipped):
 * *off moves to the content, the content's length returned. */
static size_t der_in(const uint8_t *p, size_t *off) {
  size_t n = p[*off + 1], h = 2;
  if (n & 0x80) {
    h += n & 0x7f;
    n = 0;
    for (size_t i = 2; i < h; i++) n = n << 8 | p[*off + i];
  }
  *off += h;
  return n;
}

/* The MAC of pfx[n] made again under pass, the R 50.1.112-2016 way (its
 * digest the 64 bytes before the MacData's salt and iterations, whose
 * lengths the caller gives), so that a change behind the MAC is seen by
 * what lies behind it. */
static void remac(uint8_t *pfx, size_t n, const char *pass, size_t tail) {
  size_t off = 0;
  der_in(pfx, &off);                  /* PFX */
  off += 3;                           /* version */
  der_in(pfx, &off);                  /* ContentInfo */
  off += 11;                          /* contentType data */
  der_in(pfx, &off);                  /* [0] */
  size_t len = der_in(pfx, &off);     /* OCTET STRING: the AuthenticatedSafe */
  uint8_t k[96];
  CHECK(!gostx_pbkdf2_streebog512((const uint8_t *)pass, strlen(pass), pfx + n - tail + 2, tail - 6, 2048,
                                  k, 96) &&
            !gostx_hmac(64, k + 64, 32, pfx + off, len, pfx + n - tail - 64),
        "remac");
}

/* RFC 9548 Appendix A: A.2, the key under Kuznyechik-CTR-ACPKM-OMAC and the
 * certificate in the clear; A.3, the key under Magma-CTR-ACPKM and the
 * certificate under Magma-CTR-ACPKM-OMAC. Both decrypt to the RFC's
 * PrivateKeyInfo (a OneAsymmetricKey v2 with its publicKey) byte for
 * byte, whose key is A.1.2's and whose certificate A.1.1's; a ciphertext
 * byte changed behind a MAC made again fails the OMAC tag. */
static void test_rfc9548(void) {
  static const struct {
    const char *file, *key_scheme, *cert_scheme;
  } ex[] = {
      {"rfc9548-a2.pfx", "PBES2: PBKDF2 with HMAC-Streebog-512, kuznyechik-ctr-acpkm-omac", ""},
      {"rfc9548-a3.pfx", "PBES2: PBKDF2 with HMAC-Streebog-512, magma-ctr-acpkm",
       "PBES2: PBKDF2 with HMAC-Streebog-512, magma-ctr-acpkm-omac"},
  };
  const char *pass = "Пароль для PFX";
  size_t key_len, cert_len, d_len;
  char *key = slurp("rfc9548-key.der", &key_len), *cert = slurp("rfc9548-cert.der", &cert_len);
  uint8_t *d_want = hex_alloc("F95A5D44C5245F63F2E7DF8E782C1924EADCB8D06C52D91023179786154CBDB1"
                              "561B4DF759D69F67EE1FBD5B68800E134BAA12818DA4F3AC75B0E5E6F9256911",
                              &d_len);
  for (size_t e = 0; e < 2; e++) {
    size_t n;
    char *pfx = slurp(ex[e].file, &n), why[256];
    gostx_pkcs12 *p = NULL;
    int rc = gostx_pkcs12_read((uint8_t *)pfx, n, (const uint8_t *)pass, strlen(pass), 0, &p, why,
                               sizeof why);
    CHECK(rc == 0, "%s: rc %d (%s)", ex[e].file, rc, why);
    gostx_pkcs12_bag kb = {0}, cb = {0}, b;
    gostx_pkcs12_safe safe = {0};
    for (size_t i = 0; p && i < gostx_pkcs12_bag_count(p); i++)
      if (!gostx_pkcs12_bag_get(p, i, &b)) *(b.type == GOSTX_PKCS12_BAG_CERT ? &cb : &kb) = b;
    CHECK(kb.type == GOSTX_PKCS12_BAG_SHROUDED_KEY && kb.der_len == key_len &&
              !memcmp(kb.der, key, key_len) && !strcmp(kb.scheme, ex[e].key_scheme),
          "%s: the RFC's PrivateKeyInfo (%s)", ex[e].file, kb.scheme);
    CHECK(cb.der_len == cert_len && !memcmp(cb.der, cert, cert_len) &&
              !strcmp(cb.name, "p12FriendlyName"),
          "%s: the RFC's certificate, its friendlyName", ex[e].file);
    CHECK(p && !gostx_pkcs12_safe_get(p, 0, &safe) && !strcmp(safe.scheme, ex[e].cert_scheme),
          "%s: the certificate's part %s", ex[e].file, safe.scheme);
    uint8_t d[64];
    gostx_gost3410_curve curve;
    size_t len, which = SIZE_MAX;
    CHECK(p && !tk_pkcs12_key(p, &curve, &len, d, sizeof d, NULL, 0, NULL, 0, &which) &&
              len == 64 && !memcmp(d, d_want, 64) && which != SIZE_MAX,
          "%s: the test key of A.1.2, its certificate found", ex[e].file);
    gostx_pkcs12_free(p);
    /* the OMAC-protected ciphertext's last byte (the tag's) changed, the MAC made again */
    uint8_t *bad = malloc(n);
    memcpy(bad, pfx, n);
    const char *omac_ct = e == 0 ? "\x04\x81\xf5\x0c\xcb" : "\x80\x82\x02\xc1\x61";
    uint8_t *at = memmem(bad, n, omac_ct, 5);
    CHECK(at != NULL, "%s: the ciphertext found", ex[e].file);
    if (at) {
      size_t ct_len = e == 0 ? 0xf5 : 0x2c1, hdr = e == 0 ? 3 : 4;
      at[hdr + ct_len - 1] ^= 1;
      remac(bad, n, pass, 14);
      CHECK_RC(gostx_pkcs12_read(bad, n, (const uint8_t *)pass, strlen(pass), 0, &p, why, sizeof why),
               GOSTX_EAUTH, "OMAC tag changed");
      CHECK(strstr(why, "OMAC"), "%s: why: %s", ex[e].file, why);
      at[hdr + ct_len - 1] ^= 1;
      remac(bad, n, pass, 14);
      CHECK_RC(gostx_pkcs12_read(bad, n, (const uint8_t *)pass, strlen(pass), 0, &p, why, sizeof why),
               0, "the MAC made again over the file as it was");
      gostx_pkcs12_free(p);
    }
    free(bad);
    free(pfx);
  }
  free(key);
  free(cert);
  free(d_want);
}

static uint8_t *write_pfx(const material *m, gostx_pkcs12_pbe key_pbe, gostx_pkcs12_pbe cert_pbe,
                          uint32_t iter, const char *name, const char *pass, size_t *n) {
  const uint8_t *certs[12];
  for (size_t i = 0; i < m->ncerts; i++) certs[i] = m->certs[i];
  gostx_pkcs12_params params = {key_pbe, cert_pbe, iter, name, (const uint8_t *)pass, strlen(pass)};
  gostx_gost3410_key k, pub;
  size_t want = 0;
  CHECK_RC(gostx_gost3410_key_set_private(&k, m->curve, m->d, m->len, NULL), 0, "the key");
  /* the key object without its private part: nothing to put in the bag */
  CHECK_RC(gostx_gost3410_key_set_public(&pub, k.curve, k.q, 2 * k.len, NULL), 0, "public");
  CHECK_RC(gostx_pkcs12_write(&pub, certs, m->cert_lens, m->ncerts, &params, NULL, 0, &want),
           GOSTX_EINVAL, "write: a public key");
  CHECK_RC(gostx_pkcs12_write(&k, certs, m->cert_lens, m->ncerts, &params, NULL, 0, &want), 0,
           "write: the length");
  uint8_t *out = malloc(want + 1);
  CHECK_RC(gostx_pkcs12_write(&k, certs, m->cert_lens, m->ncerts, &params, out, want, n), 0,
           "write");
  CHECK(*n == want, "write: %zu bytes, counted %zu", *n, want);
  gostx_gost3410_key_clear(&k);
  return out;
}

static void test_round_trip(void) {
  static const gostx_pkcs12_pbe pbes[] = {GOSTX_PKCS12_PBE_GOST89, GOSTX_PKCS12_PBE_KUZNYECHIK,
                                          GOSTX_PKCS12_PBE_MAGMA, GOSTX_PKCS12_PBE_KUZNYECHIK_OMAC,
                                          GOSTX_PKCS12_PBE_MAGMA_OMAC};
  static const char *const names[] = {"gost89", "kuznyechik", "magma", "kuznyechik-omac",
                                      "magma-omac"};
  material m256, m512;
  load(&m256, "key256.pem", "cert256.pem");
  load(&m512, "key512.pem", "chain512.pem");
  for (int i = 0; i < 5; i++)
    for (int c = 0; c < 2; c++) {
      const material *m = c ? &m512 : &m256;
      char what[96];
      snprintf(what, sizeof what, "ours: %s, certificates %s", names[i], c ? "in the clear" : names[i]);
      size_t n;
      uint8_t *pfx = write_pfx(m, pbes[i], c ? GOSTX_PKCS12_PBE_NONE : pbes[i], 1000,
                               "ключ \xf0\x9f\x94\x91", "пароль", &n);
      gostx_pkcs12 *p = NULL;
      char why[256];
      int rc = gostx_pkcs12_read(pfx, n, (const uint8_t *)"пароль", strlen("пароль"), 0, &p, why,
                                 sizeof why);
      CHECK(rc == 0, "%s: rc %d (%s)", what, rc, why);
      if (!rc) check_holds(p, m, "ключ \xf0\x9f\x94\x91", what);
      gostx_pkcs12_free(p);
      free(pfx);
    }
  /* a key that is not the certificate's */
  const uint8_t *cert = m512.certs[0];
  gostx_pkcs12_params params = {GOSTX_PKCS12_PBE_GOST89, GOSTX_PKCS12_PBE_GOST89, 1000, NULL, NULL, 0};
  size_t n;
  CHECK_RC(tk_pkcs12_write(m256.keyder, m256.keyder_len, &cert, m512.cert_lens, 1,
                              (const uint8_t *)"x", 1, &params, NULL, 0, &n),
           GOSTX_EINVAL, "write: the key does not match the certificate");
}

/* pfx with its first (last when last) occurrence of from[len] replaced by to. */
static int patch(uint8_t *pfx, size_t n, const char *from_hex, const char *to_hex, int last) {
  uint8_t from[32], to[32];
  long fl = hex_decode(from_hex, from, sizeof from), tl = hex_decode(to_hex, to, sizeof to);
  uint8_t *hit = NULL, *q = pfx;
  while ((q = memmem(q, n - (size_t)(q - pfx), from, (size_t)fl))) {
    hit = q++;
    if (!last) break;
  }
  if (!hit || fl != tl) return 0;
  memcpy(hit, to, (size_t)tl);
  return 1;
}

static int read_buf(const uint8_t *pfx, size_t n, char *why) {
  gostx_pkcs12 *p = NULL;
  int rc = gostx_pkcs12_read(pfx, n, (const uint8_t *)"pw", 2, 0, &p, why, 256);
  gostx_pkcs12_free(p);
  return rc;
}

/* Every certificate bag is parsed: one lib/x509 refuses is listed as
 * BAD_CERT with the reason, never as a certificate, and the rest of the
 * file is read (issue 67: such bytes went out as CERTIFICATE PEM). */
static void test_bad_cert_bag(void) {
  material m;
  char why[256];
  load(&m, "key512.pem", "chain512.pem");
  size_t n;
  uint8_t *pfx = write_pfx(&m, GOSTX_PKCS12_PBE_GOST89, GOSTX_PKCS12_PBE_NONE, 2048, NULL, "pw", &n);
  uint8_t *at = memmem(pfx, n, m.certs[1], 32); /* the intermediate, in the clear */
  CHECK(at != NULL, "the second certificate in the file");
  if (!at) return;
  at[4] ^= 0x01; /* its TBSCertificate's tag: 0x30 to 0x31 */
  remac(pfx, n, "pw", 22); /* our MacData: a 16-byte salt, 2048 iterations */
  gostx_pkcs12 *p = NULL;
  CHECK_RC(gostx_pkcs12_read(pfx, n, (const uint8_t *)"pw", 2, 0, &p, why, sizeof why), 0, why);
  gostx_pkcs12_bag bag;
  size_t cert_bag = SIZE_MAX, len, certs = 0, bad = 0;
  gostx_gost3410_curve curve;
  for (size_t i = 0; p && i < gostx_pkcs12_bag_count(p); i++) {
    CHECK(!gostx_pkcs12_bag_get(p, i, &bag), "bag_get");
    if (bag.type == GOSTX_PKCS12_BAG_CERT) certs++, CHECK(!bag.problem[0], "no problem");
    if (bag.type == GOSTX_PKCS12_BAG_BAD_CERT) {
      bad++;
      CHECK(bag.der_len == m.cert_lens[1] && strstr(bag.problem, "parse"), "the reason: %s", bag.problem);
    }
  }
  CHECK(certs == 2 && bad == 1, "%zu certificates, %zu refused", certs, bad);
  CHECK_RC(tk_pkcs12_key(p, &curve, &len, NULL, 0, NULL, 0, NULL, 0, &cert_bag), 0, "the key");
  CHECK(cert_bag != SIZE_MAX && !gostx_pkcs12_bag_get(p, cert_bag, &bag) &&
            bag.der_len == m.cert_lens[0] && !memcmp(bag.der, m.certs[0], bag.der_len),
        "the key's certificate still found");
  gostx_pkcs12_free(p);
  free(pfx);
  /* nor does the writer put one in: a chain "certificate" that is none */
  static const uint8_t tiny[] = {0x30, 0x03, 0x02, 0x01, 0x00};
  const uint8_t *with_tiny[2] = {m.certs[0], tiny};
  const size_t lens[2] = {m.cert_lens[0], sizeof tiny};
  gostx_pkcs12_params params = {GOSTX_PKCS12_PBE_GOST89, GOSTX_PKCS12_PBE_NONE, 1000, NULL, NULL, 0};
  CHECK_RC(tk_pkcs12_write(m.keyder, m.keyder_len, with_tiny, lens, 2, (const uint8_t *)"pw", 2,
                              &params, NULL, 0, &n),
           GOSTX_EINVAL, "write: a chain certificate that is none");
}

static void test_refusals(void) {
  material m;
  char why[256];
  load(&m, "key256.pem", "cert256.pem");
  size_t n;
  /* 0x012345 iterations: three-byte INTEGERs the patches below can find */
  uint8_t *pfx = write_pfx(&m, GOSTX_PKCS12_PBE_GOST89, GOSTX_PKCS12_PBE_GOST89, 0x012345, NULL, "pw", &n);
  uint8_t *bad = malloc(n + 1);
  CHECK_RC(read_buf(pfx, n, why), 0, "the file as written");
  /* the MAC's digest altered: the MAC does not verify */
  memcpy(bad, pfx, n);
  bad[n - 30] ^= 1;
  CHECK_RC(read_buf(bad, n, why), GOSTX_EAUTH, "MAC byte flipped");
  /* a byte of the encrypted certificates: the MAC catches it */
  memcpy(bad, pfx, n);
  bad[n / 3] ^= 0x80;
  CHECK_RC(read_buf(bad, n, why), GOSTX_EAUTH, "ciphertext byte flipped");
  for (size_t cut = 1; cut < n; cut += 1 + cut / 3) CHECK_RC(read_buf(pfx, n - cut, why), GOSTX_EFORMAT, "truncated");
  memcpy(bad, pfx, n);
  bad[n] = 0;
  CHECK_RC(read_buf(bad, n + 1, why), GOSTX_EFORMAT, "a trailing byte");
  CHECK(strstr(why, "trailing"), "why: %s", why);
  /* the MAC's iterations raised to 8388607: refused before any PBKDF2 runs */
  memcpy(bad, pfx, n);
  CHECK(patch(bad, n, "020301234530", "02037fffff30", 1) || patch(bad, n, "0203012345", "02037fffff", 1), "patch");
  clock_t t0 = clock();
  CHECK_RC(read_buf(bad, n, why), GOSTX_EUNSUP, "MAC iterations over the limit");
  CHECK(strstr(why, "iterations") && (double)(clock() - t0) / CLOCKS_PER_SEC < 0.05,
        "refused at once, why: %s", why);
  /* the certificates' PBKDF2 asking 8388607 */
  memcpy(bad, pfx, n);
  CHECK(patch(bad, n, "0203012345", "02037fffff", 0), "patch");
  CHECK_RC(read_buf(bad, n, why), GOSTX_EUNSUP, "PBES2 iterations over the limit");
  CHECK(strstr(why, "iterations"), "why: %s", why);
  /* ... which the caller may allow: then the (now wrong) MAC is what fails */
  /* a MAC digest not read (1.2.643.7.1.1.2.4): named by OID */
  memcpy(bad, pfx, n);
  CHECK(patch(bad, n, "06082a85030701010203", "06082a85030701010204", 1), "patch");
  CHECK_RC(read_buf(bad, n, why), GOSTX_EUNSUP, "unknown MAC digest");
  CHECK(strstr(why, "1.2.643.7.1.1.2.4"), "why: %s", why);
  /* Streebog-256 (read) with Streebog-512's 64 bytes: malformed */
  memcpy(bad, pfx, n);
  CHECK(patch(bad, n, "06082a85030701010203", "06082a85030701010202", 1), "patch");
  CHECK_RC(read_buf(bad, n, why), GOSTX_EFORMAT, "MAC digest Streebog-256 of 64 bytes");
  /* an unknown cipher in the certificates' PBES2: named by OID */
  memcpy(bad, pfx, n);
  CHECK(patch(bad, n, "06062a8503020215", "06062a8503020216", 0), "patch");
  CHECK_RC(read_buf(bad, n, why), GOSTX_EUNSUP, "unknown cipher");
  CHECK(strstr(why, "1.2.643.2.2.22"), "why: %s", why);
  free(bad);
  free(pfx);
}

/* ---- family 3: CryptoPro CSP's own exports (README.cryptopro) ---- */

/* The file's SHA-1 MacData made again under bmp (RFC 7292's MAC: its
 * digest and salt 20 bytes each, the iterations a 2-byte INTEGER, 2000),
 * so that a change behind the MAC reaches the key bag. 0 when the MAC the
 * file had already matched (a known answer for the MAC and its KDF). */
static int remac_sha1(uint8_t *pfx, size_t n, const uint8_t *bmp, size_t bmp_len) {
  size_t off = 0;
  der_in(pfx, &off), off += 3, der_in(pfx, &off), off += 11, der_in(pfx, &off);
  size_t len = der_in(pfx, &off);
  uint8_t mac[20], *digest = pfx + n - 4 - 22 - 20;
  CHECK(!gostx__pkcs12_mac_sha1(bmp, bmp_len, pfx + n - 4 - 20, 20, 2000, pfx + off, len, mac),
        "remac_sha1");
  int same = !memcmp(mac, digest, 20);
  memcpy(digest, mac, 20);
  return same;
}

/* The key of a CryptoPro file: read, and the certificate in the file whose
 * subject key it is found (its public key computed from the key). */
static void check_cryptopro(const char *name, const char *pass, size_t key_len, const char *oid) {
  gostx_pkcs12 *p = NULL;
  gostx_pkcs12_bag bag;
  gostx_pkcs12_mac mac;
  gostx_gost3410_curve curve;
  size_t len = 0, cert = SIZE_MAX;
  uint8_t d[64], q[128];
  char why[256], got_oid[64];
  int rc = read_file(name, pass, &p, why);
  CHECK(rc == 0, "%s reads: %d (%s)", name, rc, why);
  if (!p) return;
  gostx_pkcs12_mac_get(p, &mac);
  CHECK(!strcmp(mac.alg, "sha1") && mac.iterations == 2000, "%s: MacData HMAC-SHA1", name);
  CHECK(!gostx_pkcs12_bag_get(p, 0, &bag) && bag.type == GOSTX_PKCS12_BAG_SHROUDED_KEY &&
            strstr(bag.scheme, "1.2.840.113549.1.12.1.80"),
        "%s: the CryptoPro key bag named (%s)", name, bag.scheme);
  rc = tk_pkcs12_key(p, &curve, &len, d, sizeof d, q, sizeof q, got_oid, sizeof got_oid, &cert);
  CHECK(rc == 0, "%s: its key: %d", name, rc);
  CHECK(len == key_len && !strcmp(got_oid, oid), "%s: a %zu-byte key on %s", name, len, got_oid);
  CHECK(cert != SIZE_MAX, "%s: the key is its certificate's", name);
  gostx_pkcs12_free(p);
}

/* The 2001 key: gostx signs with 2012 keys only, so gostx_pkcs12_key
 * refuses it, but the bag holds it (a PrivateKeyInfo for GOST R
 * 34.10-2001, the key little-endian at its end): its public key, computed
 * on the curve it names (CryptoPro-XchA, gostx's 256 B), is the
 * certificate's subject key, read from the certificate's DER. */
static void check_cryptopro_2001(void) {
  gostx_pkcs12 *p = NULL;
  gostx_pkcs12_bag key, cert;
  char why[256];
  uint8_t d[32], q[64], q_le[64];
  size_t len;
  gostx_gost3410_curve curve;
  int rc = read_file("cryptopro-2001.pfx", "", &p, why);
  CHECK(rc == 0, "2001 reads: %d (%s)", rc, why);
  if (!p) return;
  CHECK(!gostx_pkcs12_bag_get(p, 0, &key) && !gostx_pkcs12_bag_get(p, 1, &cert) &&
            key.der_len > 32 && memmem(key.der, key.der_len, "\x06\x06\x2a\x85\x03\x02\x02\x13", 8),
        "2001: a GOST R 34.10-2001 PrivateKeyInfo");
  CHECK_RC(tk_pkcs12_key(p, &curve, &len, NULL, 0, NULL, 0, NULL, 0, NULL), GOSTX_EUNSUP,
           "2001: not a key gostx signs with");
  for (int i = 0; i < 32; i++) d[i] = key.der[key.der_len - 1 - i];
  CHECK(!gostx_gost3410_public_key(GOSTX_GOST3410_256_B, d, 32, q, 64), "2001: Q = dP");
  for (int i = 0; i < 32; i++) q_le[i] = q[31 - i], q_le[32 + i] = q[63 - i];
  CHECK(memmem(cert.der, cert.der_len, q_le, 64), "2001: the key is its certificate's");
  gostx_pkcs12_free(p);
}

static void test_cryptopro(void) {
  char why[256];
  gostx_pkcs12 *p = NULL;
  check_cryptopro("cryptopro-2012-256.pfx", "", 32, "1.2.643.2.2.36.0");
  check_cryptopro("cryptopro-2012-512.pfx", "", 64, "1.2.643.7.1.2.1.2.1");
  check_cryptopro("cryptopro-2012-256-pw12345.pfx", "12345", 32, "1.2.643.2.2.36.0");
  check_cryptopro_2001();
  /* a wrong password is said as such, before anything is decrypted */
  CHECK_RC(read_file("cryptopro-2012-256-pw12345.pfx", "12346", &p, why), GOSTX_EAUTH, "wrong password");
  CHECK(strstr(why, "wrong password"), "why: %s", why);
  CHECK_RC(read_file("cryptopro-2012-512.pfx", "x", &p, why), GOSTX_EAUTH, "not the empty password");
  /* a byte of the wrapped key (CEK_ENC, 56 bytes into the decrypted bag)
   * flipped, behind a MAC made again: the key wrap's MAC refuses it */
  size_t n;
  uint8_t *pfx = (uint8_t *)slurp("cryptopro-2012-256.pfx", &n);
  static const uint8_t empty_bmp[2] = {0, 0};
  CHECK(remac_sha1(pfx, n, empty_bmp, 2), "the file's MAC is HMAC-SHA1 of RFC 7292's KDF (empty password)");
  uint8_t salt[16];
  hex_decode("1524cbe09c0aa6bf45395ffeff882724", salt, 16); /* then 020207d0 04818b */
  uint8_t *ct = memmem(pfx, n, salt, 16);
  CHECK(ct, "the key bag's salt");
  if (!ct) return;
  ct += 16 + 4 + 3;
  ct[60] ^= 0x10;
  remac_sha1(pfx, n, empty_bmp, 2);
  CHECK_RC(gostx_pkcs12_read(pfx, n, NULL, 0, 0, &p, why, sizeof why), GOSTX_EAUTH, "CEK_ENC flipped");
  CHECK(strstr(why, "CEK_MAC"), "why: %s", why);
  /* a byte of its blob header: not a blob under this password */
  ct[60] ^= 0x10, ct[25] ^= 1;
  remac_sha1(pfx, n, empty_bmp, 2);
  CHECK_RC(gostx_pkcs12_read(pfx, n, NULL, 0, 0, &p, why, sizeof why), GOSTX_EAUTH, "blob header flipped");
  CHECK(strstr(why, "does not decrypt"), "why: %s", why);
  free(pfx);
}

int main(void) {
  if (!getenv("GOSTX_VECTORS")) return 77;
  test_standard_example();
  test_rfc9548();
  test_known_files();
  test_gost94_prf();
  test_round_trip();
  test_bad_cert_bag();
  test_refusals();
  test_cryptopro();
  return t_done();
}
