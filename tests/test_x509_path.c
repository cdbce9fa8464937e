/* Path building and name constraints (lib/x509/path.c, names.c) over
 * chains this test writes with the library's writer, no openssl needed:
 * a wildcard subjectAltName against excluded and permitted DNS subtrees
 * (x509-limbo's cve-2025-61727 and nc-forbids-dnsname-wildcard-san); two
 * intermediates of one subject where the first given leads nowhere (or is
 * refused by a constraint), in both orders (limbo's
 * nc-forbids-alternate-chain-ica); cross-certificates in a loop; the
 * max_intermediates limit (openssl's -verify_depth); the bound on the
 * signatures checked; the named refusals of a signature algorithm
 * mismatch and of a PEM certificate over GOSTX_X509_CERT_MAX. */
#include <stdarg.h>
#include <stdlib.h>

#include "testutil.h"
#include "key_compat.h"
#include "gostx/x509_write.h"

static char err[256];
static const int64_t NOW = 1800000000; /* 2027 */

typedef struct ca {
  gostx_gost3410_key key;
  uint8_t spki[GOSTX_GOST3410_DER_MAX];
  size_t spki_len;
} ca;

typedef struct cert {
  uint8_t der[4096];
  size_t len;
  gostx_x509_cert c;
} cert;

static void make_key(ca *k) {
  uint8_t priv[32], pub[64];
  CHECK_RC(gostx_gost3410_keygen(GOSTX_GOST3410_256_A, priv, 32, pub, 64), 0, "keygen");
  CHECK_RC(tk_pub_to_der(GOSTX_GOST3410_256_A, pub, 64, k->spki, sizeof k->spki,
                                     &k->spki_len),
           0, "spki");
  CHECK_RC(gostx_gost3410_key_set_private(&k->key, GOSTX_GOST3410_256_A, priv, 32, NULL), 0, "key");
}

/* A nameConstraints value with one DNS subtree, permitted or excluded. */
static size_t nc_dns(int excluded, const char *dns, uint8_t *out) {
  size_t n = strlen(dns);
  uint8_t *p = out;
  *p++ = 0x30, *p++ = (uint8_t)(n + 6);
  *p++ = excluded ? 0xa1 : 0xa0, *p++ = (uint8_t)(n + 4);
  *p++ = 0x30, *p++ = (uint8_t)(n + 2);
  *p++ = 0x82, *p++ = (uint8_t)n;
  memcpy(p, dns, n);
  return n + 8;
}

/* subject (a -subj text) with subject_key's key, issued by issuer_name
 * with issuer_key; ca_cert: a CA (certSign); san: a subjectAltName line
 * or NULL; nc: a nameConstraints value or NULL; expired: notAfter past. */
static void issue(cert *out, const char *subject, const ca *subject_key, const char *issuer_name,
                  const ca *issuer_key, int ca_cert, const char *san, const uint8_t *nc,
                  size_t nc_len, int expired) {
  static unsigned serial = 1;
  gostx_x509_name sn, in;
  gostx_x509_exts e;
  CHECK_RC(gostx_x509_name_parse(subject, &sn, err, sizeof err), 0, "subject");
  CHECK_RC(gostx_x509_name_parse(issuer_name, &in, err, sizeof err), 0, "issuer");
  gostx_x509_exts_init(&e);
  CHECK_RC(gostx_x509_exts_add_line(&e, ca_cert ? "basicConstraints=critical,CA:TRUE"
                                                : "basicConstraints=CA:FALSE",
                                    err, sizeof err),
           0, "bc");
  CHECK_RC(gostx_x509_exts_add_line(&e, ca_cert ? "keyUsage=critical,keyCertSign"
                                                : "keyUsage=digitalSignature",
                                    err, sizeof err),
           0, "ku");
  if (san) CHECK(gostx_x509_exts_add_line(&e, san, err, sizeof err) == 0, "%s: %s", san, err);
  if (nc) CHECK_RC(gostx_x509_exts_add_der(&e, (const uint8_t *)"\x55\x1d\x1e", 3, 1, nc, nc_len), 0, "nc");
  uint8_t ser[2] = {(uint8_t)(0x10 + (serial >> 8)), (uint8_t)serial};
  serial++;
  /* the key identifiers RFC 5280's profile asks (SKI by default, AKI from
   * the issuer's key), so that only what a case is about refuses it */
  uint8_t akid[20];
  CHECK_RC(gostx_x509_key_id(issuer_key->spki, issuer_key->spki_len, akid), 0, "akid");
  gostx_x509_cert_spec s = {ser, 2, in.der, sn.der, in.len, sn.len, NOW - 86400,
                            expired ? NOW - 3600 : NOW + 86400 * 365, subject_key->spki,
                            subject_key->spki_len, &e, akid, sizeof akid};
  CHECK(gostx_x509_cert_write(&s, &issuer_key->key, out->der, sizeof out->der, &out->len) == 0,
        "%s written", subject);
  CHECK(gostx_x509_parse(out->der, out->len, &out->c, NULL) == 0, "%s parsed", subject);
}

static ca root_key, ica_key, other_key, leaf_key, a_key, b_key;
static cert root, other_root;
static gostx_x509_store *store;

/* Verifies leaf with the others (in that order) at NOW; *depth too. */
static gostx_x509_status verify(const gostx_x509_verify_opts *o, size_t *depth, const cert *leaf,
                                int n, ...) {
  gostx_x509_cert chain[16];
  va_list ap;
  va_start(ap, n);
  chain[0] = leaf->c;
  for (int i = 0; i < n; i++) chain[i + 1] = va_arg(ap, const cert *)->c;
  va_end(ap);
  gostx_x509_verify_opts def;
  gostx_x509_verify_opts_init(&def, NOW);
  gostx_x509_verify_result r;
  gostx_x509_status st = gostx_x509_verify_with(store, chain, (size_t)n + 1, o ? o : &def, &r);
  if (depth) *depth = r.depth;
  return st;
}

/* An intermediate "ICA" under root with nc, and a leaf under it with san:
 * the verdict, with and without the host name. */
static gostx_x509_status nc_case(int excluded, const char *base, const char *san, const char *host) {
  uint8_t nc[128];
  size_t nc_len = nc_dns(excluded, base, nc);
  cert ica, leaf;
  issue(&ica, "/CN=ICA", &ica_key, "/CN=Root", &root_key, 1, NULL, nc, nc_len, 0);
  issue(&leaf, "/CN=leaf", &leaf_key, "/CN=ICA", &ica_key, 0, san, NULL, 0, 0);
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, NOW);
  o.name = host;
  /* a base with a leading "." breaks the profile's DNS syntax (RFC 5280
   * 4.2.1.10, test_x509_profile); its reading as a constraint is tested lax */
  if (base[0] == '.') o.flags = GOSTX_X509_VERIFY_LAX;
  gostx_x509_status st = verify(&o, NULL, &leaf, 1, &ica);
  o.purpose = GOSTX_X509_PURPOSE_SERVER;
  CHECK(verify(&o, NULL, &leaf, 1, &ica) == st, "%s %s, %s: the same as sslserver", base, san,
        host ? host : "no name");
  return st;
}

static void wildcards(void) {
  static const struct {
    int excluded;
    const char *base, *san, *host;
    gostx_x509_status want;
  } cases[] = {
      /* cve-2025-61727: the wildcard can match the excluded name */
      {1, "bar.example.com", "subjectAltName=DNS:*.example.com", "bar.example.com",
       GOSTX_X509_NAME_CONSTRAINTS},
      {1, "bar.example.com", "subjectAltName=DNS:*.example.com", "foo.example.com",
       GOSTX_X509_NAME_CONSTRAINTS},
      {1, "bar.example.com", "subjectAltName=DNS:*.example.com", NULL, GOSTX_X509_NAME_CONSTRAINTS},
      {1, "BAR.Example.COM.", "subjectAltName=DNS:*.example.com", NULL, GOSTX_X509_NAME_CONSTRAINTS},
      {1, "bar.example.com", "subjectAltName=DNS:foo.example.com, DNS:b*.example.com", NULL,
       GOSTX_X509_NAME_CONSTRAINTS},
      /* names it cannot match: a label deeper, another domain, a subdomain base */
      {1, "a.bar.example.com", "subjectAltName=DNS:*.example.com", "foo.example.com", GOSTX_X509_OK},
      {1, ".bar.example.com", "subjectAltName=DNS:*.example.com", "foo.example.com", GOSTX_X509_OK},
      {1, "bar.example.com", "subjectAltName=DNS:*.example.org", "foo.example.org", GOSTX_X509_OK},
      {1, "example.com", "subjectAltName=DNS:*.example.com", NULL, GOSTX_X509_NAME_CONSTRAINTS},
      /* permitted: within only when every name it can match is */
      {0, "example.com", "subjectAltName=DNS:*.example.com", "foo.example.com", GOSTX_X509_OK},
      {0, ".example.com", "subjectAltName=DNS:*.example.com", "foo.example.com", GOSTX_X509_OK},
      {0, "*.example.com", "subjectAltName=DNS:*.example.com", "foo.example.com",
       GOSTX_X509_NAME_CONSTRAINTS},
      {0, "*.example.com", "subjectAltName=DNS:x.*.example.com", NULL, GOSTX_X509_NAME_CONSTRAINTS},
      {0, "bar.example.com", "subjectAltName=DNS:*.example.com", "bar.example.com",
       GOSTX_X509_NAME_CONSTRAINTS},
      {0, "foo.example.com", "subjectAltName=DNS:*.foo.example.com", "a.foo.example.com",
       GOSTX_X509_OK},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gostx_x509_status st =
        nc_case(cases[i].excluded, cases[i].base, cases[i].san, cases[i].host);
    CHECK(st == cases[i].want, "%s %s, %s, %s: %s, want %s", cases[i].excluded ? "excluded" : "permitted",
          cases[i].base, cases[i].san, cases[i].host ? cases[i].host : "no name",
          gostx_x509_status_name(st), gostx_x509_status_name(cases[i].want));
  }
}

/* Two intermediates "ICA" with the same key: the good one under root, the
 * bad one either under an untrusted root (no path) or refusing the leaf's
 * name. Either order verifies. Two bad ones: the same verdict either way. */
static void alternates(void) {
  uint8_t nc[64];
  size_t nc_len = nc_dns(1, "leaf.example.com", nc);
  cert good, dead, banned, expired, leaf;
  issue(&good, "/CN=ICA", &ica_key, "/CN=Root", &root_key, 1, NULL, NULL, 0, 0);
  issue(&dead, "/CN=ICA", &ica_key, "/CN=Other", &other_key, 1, NULL, NULL, 0, 0);
  issue(&banned, "/CN=ICA", &ica_key, "/CN=Root", &root_key, 1, NULL, nc, nc_len, 0);
  issue(&expired, "/CN=ICA", &ica_key, "/CN=Root", &root_key, 1, NULL, NULL, 0, 1);
  issue(&leaf, "/CN=leaf", &leaf_key, "/CN=ICA", &ica_key, 0,
        "subjectAltName=DNS:leaf.example.com", NULL, 0, 0);
  CHECK(verify(NULL, NULL, &leaf, 2, &dead, &good) == GOSTX_X509_OK, "dead end first: OK");
  CHECK(verify(NULL, NULL, &leaf, 2, &good, &dead) == GOSTX_X509_OK, "dead end second: OK");
  CHECK(verify(NULL, NULL, &leaf, 2, &banned, &good) == GOSTX_X509_OK, "constrained first: OK");
  CHECK(verify(NULL, NULL, &leaf, 2, &good, &banned) == GOSTX_X509_OK, "constrained second: OK");
  CHECK(verify(NULL, NULL, &leaf, 3, &expired, &banned, &good) == GOSTX_X509_OK, "third: OK");
  /* none good: the most complete failure, whatever the order */
  size_t d1 = 9, d2 = 9;
  gostx_x509_status a = verify(NULL, &d1, &leaf, 2, &expired, &banned);
  gostx_x509_status b = verify(NULL, &d2, &leaf, 2, &banned, &expired);
  CHECK(a == GOSTX_X509_NAME_CONSTRAINTS && b == a && d1 == 0 && d2 == 0,
        "expired and constrained: %s at %zu / %s at %zu", gostx_x509_status_name(a), d1,
        gostx_x509_status_name(b), d2);
  a = verify(NULL, &d1, &leaf, 2, &dead, &expired);
  b = verify(NULL, &d2, &leaf, 2, &expired, &dead);
  CHECK(a == GOSTX_X509_EXPIRED && b == a && d1 == 1 && d2 == 1,
        "dead end and expired: %s at %zu / %s at %zu", gostx_x509_status_name(a), d1,
        gostx_x509_status_name(b), d2);
}

/* A and B cross-certify each other (twice over, two serials each); the
 * leaf is under A. Without B's certificate from root there is no path,
 * found quickly, the path named holding no subject and key twice; with it
 * (given last) the path leaf, A, B, root. */
static void loops(void) {
  cert ab1, ab2, ba1, ba2, b_root, leaf;
  issue(&ab1, "/CN=A", &a_key, "/CN=B", &b_key, 1, NULL, NULL, 0, 0);
  issue(&ab2, "/CN=A", &a_key, "/CN=B", &b_key, 1, NULL, NULL, 0, 0);
  issue(&ba1, "/CN=B", &b_key, "/CN=A", &a_key, 1, NULL, NULL, 0, 0);
  issue(&ba2, "/CN=B", &b_key, "/CN=A", &a_key, 1, NULL, NULL, 0, 0);
  issue(&b_root, "/CN=B", &b_key, "/CN=Root", &root_key, 1, NULL, NULL, 0, 0);
  issue(&leaf, "/CN=leaf", &leaf_key, "/CN=A", &a_key, 0, NULL, NULL, 0, 0);
  gostx_x509_cert chain[6] = {leaf.c, ab1.c, ba1.c, ab2.c, ba2.c, b_root.c};
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, NOW);
  gostx_x509_verify_result r;
  gostx_x509_status st = gostx_x509_verify_with(store, chain, 5, &o, &r);
  CHECK(st == GOSTX_X509_UNKNOWN_CA && r.path_len == 3 && r.depth == 2,
        "a loop: %s, path of %zu at %zu", r.why, r.path_len, r.depth);
  st = gostx_x509_verify_with(store, chain, 6, &o, &r);
  CHECK(st == GOSTX_X509_OK && r.path_len == 4 && r.path[2] == &chain[5],
        "out of the loop: %s, %zu", r.why, r.path_len);
}

/* Many intermediates of one subject and key, none under an anchor: the
 * search stops at GOSTX_X509_MAX_TRIES signatures and says so. */
static void bounded(void) {
  enum { N = 40 };
  static cert x[N], y[N];
  cert leaf;
  gostx_x509_cert chain[2 * N + 1];
  issue(&leaf, "/CN=leaf", &leaf_key, "/CN=X", &a_key, 0, NULL, NULL, 0, 0);
  chain[0] = leaf.c;
  for (int i = 0; i < N; i++) { /* X by Y and Y by X, each N times: N^2 edges */
    issue(&x[i], "/CN=X", &a_key, "/CN=Y", &b_key, 1, NULL, NULL, 0, 0);
    issue(&y[i], "/CN=Y", &b_key, "/CN=X", &a_key, 1, NULL, NULL, 0, 0);
    chain[1 + 2 * i] = x[i].c, chain[2 + 2 * i] = y[i].c;
  }
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, NOW);
  gostx_x509_verify_result r;
  gostx_x509_status st = gostx_x509_verify_with(store, chain, 2 * N + 1, &o, &r);
  CHECK(st == GOSTX_X509_UNKNOWN_CA &&
            !strcmp(r.why, "issuer: no trusted issuer found (unknown CA) (path building stopped at "
                         "128 signature checks, gostx's limit)"),
        "the bound said: %s", r.why);
}

/* root -> I1 -> I2 -> leaf, and I2' (I2's subject and key) under root:
 * max_intermediates as openssl's -verify_depth. */
static void depth_limit(void) {
  ca i1_key, i2_key;
  make_key(&i1_key);
  make_key(&i2_key);
  cert i1, i2, i2_short, leaf, direct;
  issue(&i1, "/CN=I1", &i1_key, "/CN=Root", &root_key, 1, NULL, NULL, 0, 0);
  issue(&i2, "/CN=I2", &i2_key, "/CN=I1", &i1_key, 1, NULL, NULL, 0, 0);
  issue(&i2_short, "/CN=I2", &i2_key, "/CN=Root", &root_key, 1, NULL, NULL, 0, 0);
  issue(&leaf, "/CN=leaf", &leaf_key, "/CN=I2", &i2_key, 0, NULL, NULL, 0, 0);
  issue(&direct, "/CN=direct", &leaf_key, "/CN=Root", &root_key, 0, NULL, NULL, 0, 0);
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, NOW);
  CHECK(o.max_intermediates == -1 && o.purpose == GOSTX_X509_PURPOSE_ANY && !o.name, "defaults");
  size_t depth = 9;
  for (int d = -1; d <= 3; d++) {
    o.max_intermediates = d;
    gostx_x509_status st = verify(&o, &depth, &leaf, 2, &i2, &i1);
    gostx_x509_status want = d == -1 || d >= 2 ? GOSTX_X509_OK : GOSTX_X509_PATH_TOO_LONG;
    CHECK(st == want, "two intermediates, depth %d: %s", d, gostx_x509_status_name(st));
    if (want != GOSTX_X509_OK) CHECK(depth == (size_t)d, "depth %d: refused at %zu", d, depth);
  }
  gostx_x509_cert chain[3] = {leaf.c, i2.c, i1.c};
  gostx_x509_verify_result r;
  o.max_intermediates = 1;
  CHECK(gostx_x509_verify_with(store, chain, 3, &o, &r) == GOSTX_X509_PATH_TOO_LONG &&
            !strcmp(r.why, "path length limit: no path within 1 intermediate certificates (the "
                           "verify depth)"),
        "named: %s", r.why);
  /* the longer path given first; the short one within the limit is found */
  CHECK(verify(&o, NULL, &leaf, 3, &i2, &i1, &i2_short) == GOSTX_X509_OK, "the short path");
  o.max_intermediates = 0;
  CHECK(verify(&o, NULL, &direct, 2, &i2, &i1) == GOSTX_X509_OK, "no intermediate, depth 0");
  CHECK(verify(&o, NULL, &leaf, 2, &i2_short, &i1) == GOSTX_X509_PATH_TOO_LONG, "one, depth 0");
}

static void messages(void) {
  cert c;
  issue(&c, "/CN=leaf", &leaf_key, "/CN=Root", &root_key, 0, NULL, NULL, 0, 0);
  /* the outer signatureAlgorithm's OID ...03 02 (Streebog-256) made 03 03,
   * before the 67 bytes of the signature's BIT STRING */
  CHECK(c.der[c.len - 68] == 0x02 && c.der[c.len - 69] == 0x03, "outer algorithm where expected");
  c.der[c.len - 68] = 0x03;
  gostx_x509_status st;
  gostx_x509_cert out;
  CHECK(gostx_x509_parse(c.der, c.len, &out, &st) == GOSTX_EFORMAT &&
            st == GOSTX_X509_SIG_ALG_MISMATCH &&
            strstr(gostx_x509_status_name(st), "tbsCertificate.signature"),
        "algorithms differ: %s", gostx_x509_status_name(st));
  /* a PEM block of 78 KB of DER: the size limit, not a malformed block */
  size_t der_len = 78000, pem_cap = der_len * 2;
  uint8_t *der = calloc(1, der_len), *back = malloc(GOSTX_X509_CERT_MAX);
  char *pem = malloc(pem_cap);
  size_t pem_len = 0, pos = 0, got = 0;
  CHECK_RC(gostx_x509_to_pem("CERTIFICATE", der, der_len, pem, pem_cap, &pem_len), 0, "big PEM");
  CHECK_RC(gostx_x509_pem_next(pem, pem_len, &pos, back, GOSTX_X509_CERT_MAX, &got), GOSTX_ELEN,
           "78 KB: too large, said");
  free(der);
  free(back);
  free(pem);
}

int main(void) {
  make_key(&root_key);
  make_key(&ica_key);
  make_key(&other_key);
  make_key(&leaf_key);
  make_key(&a_key);
  make_key(&b_key);
  issue(&root, "/CN=Root", &root_key, "/CN=Root", &root_key, 1, NULL, NULL, 0, 0);
  issue(&other_root, "/CN=Other", &other_key, "/CN=Other", &other_key, 1, NULL, NULL, 0, 0);
  store = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(store, root.der, root.len), 0, "anchor");
  wildcards();
  alternates();
  loops();
  bounded();
  depth_limit();
  messages();
  gostx_x509_store_free(store);
  return t_done();
}
