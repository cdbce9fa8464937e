/* RFC 5280's profile rules in verification (lib/x509/profile.c): for each
 * rule a root -> intermediate -> leaf chain, written with the library's
 * writer, that breaks it in one place; the default refuses it with
 * GOSTX_X509_PROFILE naming the rule and the certificate, and
 * GOSTX_X509_VERIFY_LAX takes it (path validation alone passes it). Then
 * gostx_x509_verify_opts' leaf checks: the keyUsage bits asked, with no
 * EKU, and the email address (rfc822Name, the subject's emailAddress). */
#include <stdlib.h>

#include "testutil.h"

static char err[256];
static const int64_t now = 1800000000; /* 2027 */

/* The verify options at now with flags, keyUsage bits and email set. */
static gostx_x509_verify_opts mk(unsigned flags, unsigned key_usage, const char *email) {
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, now);
  o.flags = flags;
  o.key_usage = key_usage;
  o.email = email;
  return o;
}

typedef struct key {
  gostx_gost3410_key k;
  uint8_t spki[GOSTX_GOST3410_DER_MAX];
  size_t spki_len;
} key;

typedef struct made {
  uint8_t der[4096];
  size_t len;
  gostx_x509_cert c;
} made;

static key root_key, int_key, leaf_key;

static void make_key(key *k) {
  uint8_t d[32], q[64];
  CHECK_RC(gostx_gost3410_keygen(GOSTX_GOST3410_256_A, d, 32, q, 64), 0, "keygen");
  CHECK_RC(gostx_gost3410_key_set_private(&k->k, GOSTX_GOST3410_256_A, d, 32, NULL), 0, "key");
  CHECK_RC(gostx_gost3410_key_write(&k->k, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL,
                                    k->spki, sizeof k->spki, &k->spki_len),
           0, "spki");
}

/* What one certificate is made of: its subject ("" an empty Name), its
 * extension lines (openssl's text), raw extensions ("OID-HEX:critical:VALUE-HEX"
 * for those the writer does not make), and the identifiers left out. */
typedef struct spec {
  const char *subj;
  const char *lines[6];
  const char *raw[3];
  int no_ski, no_aki;
} spec;

static void add_raw(gostx_x509_exts *e, const char *raw) {
  uint8_t oid[16], value[256];
  char o[40], v[520];
  int critical;
  CHECK(sscanf(raw, "%39[0-9a-f]:%d:%519[0-9a-f]", o, &critical, v) == 3, "raw '%s'", raw);
  long on = hex_decode(o, oid, sizeof oid), vn = hex_decode(v, value, sizeof value);
  CHECK(on > 0 && vn > 0, "raw hex '%s'", raw);
  CHECK_RC(gostx_x509_exts_add_der(e, oid, (size_t)on, critical, value, (size_t)vn), 0,
           "raw extension");
}

/* m = a certificate of s for subject_key, issued by issuer (NULL: itself). */
static void make(made *m, const spec *s, const key *subject_key, const made *issuer,
                 const key *issuer_key) {
  gostx_x509_name name;
  gostx_x509_exts e;
  uint8_t serial[] = {0x5a}, id[64]; /* one byte: serial_zero rewrites it in place */
  size_t id_len = 0;
  if (*s->subj) {
    CHECK_RC(gostx_x509_name_parse(s->subj, &name, err, sizeof err), 0, s->subj);
  } else {
    name.der[0] = 0x30, name.der[1] = 0, name.len = 2;
  }
  gostx_x509_exts_init(&e);
  for (size_t i = 0; i < 6 && s->lines[i]; i++)
    CHECK_RC(gostx_x509_exts_add_line(&e, s->lines[i], err, sizeof err), 0, s->lines[i]);
  for (size_t i = 0; i < 3 && s->raw[i]; i++) add_raw(&e, s->raw[i]);
  e.ski = !s->no_ski;
  e.aki = !s->no_aki;
  if (issuer) CHECK_RC(gostx_x509_cert_key_id(&issuer->c, id, sizeof id, &id_len), 0, "issuer id");
  gostx_x509_cert_spec cs = {serial, sizeof serial, issuer ? issuer->c.subject : name.der, name.der,
                             issuer ? issuer->c.subject_len : name.len, name.len, now - 3600,
                             now + 86400, subject_key->spki, subject_key->spki_len, &e,
                             issuer ? id : NULL, id_len};
  CHECK_RC(gostx_x509_cert_write(&cs, &issuer_key->k, m->der, sizeof m->der, &m->len), 0,
           "written");
  CHECK_RC(gostx_x509_parse(m->der, m->len, &m->c, NULL), 0, "parsed");
}

/* The writer refuses serial 0 (as it must): the one-byte serial set to
 * 0 in place and the certificate signed again. */
static void serial_zero(made *m, const key *issuer_key) {
  uint8_t digest[32], sig[64];
  CHECK(m->c.serial_len == 1, "a one-byte serial");
  m->der[m->c.serial - m->der] = 0;
  CHECK_RC(gostx_streebog(32, m->c.tbs, m->c.tbs_len, digest), 0, "tbs hash");
  CHECK_RC(gostx_gost3410_sign(GOSTX_GOST3410_256_A, issuer_key->k.d, 32, digest, 32, sig, 64), 0,
           "sign");
  CHECK_RC(gostx_gost3410_sig_swap(sig, 64, m->der + (m->c.sig_value - m->der), 64), 0, "s || r");
  CHECK_RC(gostx_x509_parse(m->der, m->len, &m->c, NULL), 0, "serial 0 parsed");
}

#define ROOT_LINES "basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"
#define LEAF_LINES "basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature"
static const spec root_ok = {"/CN=Root", {ROOT_LINES}, {NULL}, 0, 1};
static const spec int_ok = {"/CN=Int", {ROOT_LINES}, {NULL}, 0, 0};
static const spec leaf_ok = {"/CN=leaf",
                             {LEAF_LINES, "subjectAltName=DNS:host.test,DNS:*.w.test,email:Jo@Mail.Test"},
                             {NULL},
                             0,
                             0};

/* Verifies leaf <- int to root (the anchor); opts may be NULL. */
static gostx_x509_status run(const made *root, const made *in, const made *leaf,
                             const gostx_x509_verify_opts *opts, size_t *depth, char *why,
                             size_t cap) {
  gostx_x509_store *store = gostx_x509_store_new();
  gostx_x509_cert chain[2] = {leaf->c, in->c};
  CHECK_RC(gostx_x509_store_add_der(store, root->der, root->len), 0, "anchor");
  gostx_x509_verify_result r;
  gostx_x509_verify_opts o = opts ? *opts : mk(0, 0, NULL);
  gostx_x509_status st = gostx_x509_verify_with(store, chain, 2, &o, &r);
  if (depth) *depth = r.depth;
  if (why && cap) { /* cut to cap */
    const size_t k = strnlen(r.why, cap - 1);
    memcpy(why, r.why, k);
    why[k] = 0;
  }
  gostx_x509_store_free(store);
  return st;
}

static void rules(void) {
  static const struct {
    const char *what;
    int which; /* the certificate changed: 0 leaf, 1 intermediate, 2 root */
    spec s;
    int zero_serial;
    const char *says; /* in the refusal; NULL: a control that passes */
  } cases[] = {
      {"the chain as it should be", 0, leaf_ok, 0, NULL},
      {"serial 0", 0, leaf_ok, 1, "serialNumber is not a positive integer (RFC 5280 4.1.2.2)"},
      {"a CA with an empty subject", 1, {"", {ROOT_LINES}, {NULL}, 0, 0}, 0,
       "a CA (cA or cRLSign) with an empty subject name (RFC 5280 4.1.2.6)"},
      {"an empty subject, SAN not critical", 0,
       {"", {LEAF_LINES, "subjectAltName=email:a@b.test"}, {NULL}, 0, 0}, 0,
       "an empty subject name without a critical subjectAltName"},
      {"an empty subject, SAN critical", 0,
       {"", {LEAF_LINES, "subjectAltName=critical,email:a@b.test"}, {NULL}, 0, 0}, 0, NULL},
      {"a leaf without AKI", 0, {"/CN=leaf", {LEAF_LINES}, {NULL}, 0, 1}, 0,
       "no authorityKeyIdentifier keyIdentifier in a certificate that is not self-signed"},
      {"an intermediate without AKI", 1, {"/CN=Int", {ROOT_LINES}, {NULL}, 0, 1}, 0,
       "(RFC 5280 4.2.1.1)"},
      /* 30 03 82 01 07: an AuthorityKeyIdentifier with only authorityCertSerialNumber */
      {"an AKI without keyIdentifier", 0,
       {"/CN=leaf", {LEAF_LINES}, {"551d23:0:3003820107"}, 0, 1}, 0, "(RFC 5280 4.2.1.1)"},
      {"an intermediate without SKI", 1, {"/CN=Int", {ROOT_LINES}, {NULL}, 1, 0}, 0,
       "a CA certificate without subjectKeyIdentifier (RFC 5280 4.2.1.2)"},
      {"a root without SKI", 2, {"/CN=Root", {ROOT_LINES}, {NULL}, 1, 1}, 0,
       "a CA certificate without subjectKeyIdentifier"},
      /* 03 01 00: a keyUsage BIT STRING with no bit */
      {"keyUsage with no bit", 0,
       {"/CN=leaf", {"basicConstraints=CA:FALSE"}, {"551d0f:1:030100"}, 0, 0}, 0,
       "keyUsage with no bit set (RFC 5280 4.2.1.3)"},
      {"a CA without keyUsage", 1, {"/CN=Int", {"basicConstraints=critical,CA:TRUE"}, {NULL}, 0, 0},
       0, "a CA certificate without keyUsage (RFC 5280 4.2.1.3)"},
      /* the anchor is an input (6.1.1(d)): an absent keyUsage is every use (6.1.4(n)) */
      {"a root without keyUsage", 2, {"/CN=Root", {"basicConstraints=critical,CA:TRUE"}, {NULL}, 0, 1},
       0, NULL},
      {"a leaf with keyCertSign", 0,
       {"/CN=leaf", {"basicConstraints=CA:FALSE", "keyUsage=digitalSignature,keyCertSign"}, {NULL},
        0, 0},
       0, "keyCertSign in a certificate that is not a CA"},
      {"a SAN dNSName with a leading dot", 0,
       {"/CN=leaf", {LEAF_LINES, "subjectAltName=DNS:.example.com"}, {NULL}, 0, 0}, 0,
       "a subjectAltName dNSName not in the preferred name syntax (RFC 5280 4.2.1.6)"},
      {"a SAN dNSName with '_'", 0,
       {"/CN=leaf", {LEAF_LINES, "subjectAltName=DNS:a_b.example.com"}, {NULL}, 0, 0}, 0,
       "dNSName not in the preferred name syntax"},
      {"a SAN dNSName ending in '-'", 0,
       {"/CN=leaf", {LEAF_LINES, "subjectAltName=DNS:a-.example.com"}, {NULL}, 0, 0}, 0,
       "dNSName not in the preferred name syntax"},
      {"a SAN dNSName with an inner '*'", 0,
       {"/CN=leaf", {LEAF_LINES, "subjectAltName=DNS:a.*.example.com"}, {NULL}, 0, 0}, 0,
       "dNSName not in the preferred name syntax"},
      {"a CA's basicConstraints not critical", 1,
       {"/CN=Int", {"basicConstraints=CA:TRUE", "keyUsage=critical,keyCertSign"}, {NULL}, 0, 0}, 0,
       "basicConstraints of a CA not marked critical (RFC 5280 4.2.1.9)"},
      /* 30 03 02 01 00: cA FALSE, pathLenConstraint 0 */
      {"pathLenConstraint without cA", 0,
       {"/CN=leaf", {"keyUsage=critical,digitalSignature"}, {"551d13:1:3003020100"}, 0, 0}, 0,
       "pathLenConstraint in a certificate that is not a CA"},
      /* 30 0d a0 0b 30 09 82 07 "ok.test": permitted DNS:ok.test */
      {"nameConstraints in a leaf (critical)", 0,
       {"/CN=leaf", {LEAF_LINES}, {"551d1e:1:300da00b300982076f6b2e74657374"}, 0, 0}, 0,
       "nameConstraints in a certificate that is not a CA (RFC 5280 4.2.1.10)"},
      {"nameConstraints in a leaf (not critical)", 0,
       {"/CN=leaf", {LEAF_LINES}, {"551d1e:0:300da00b300982076f6b2e74657374"}, 0, 0}, 0,
       "nameConstraints in a certificate that is not a CA"},
      /* excluded DNS:other.test: the leaf's names are outside it */
      {"nameConstraints not critical", 1,
       {"/CN=Int", {ROOT_LINES}, {"551d1e:0:3010a10e300c820a6f746865722e74657374"}, 0, 0}, 0,
       "nameConstraints not marked critical (RFC 5280 4.2.1.10)"},
      {"nameConstraints critical", 1,
       {"/CN=Int", {ROOT_LINES}, {"551d1e:1:3010a10e300c820a6f746865722e74657374"}, 0, 0}, 0, NULL},
      /* excluded DNS:.example.com */
      {"a dNSName constraint with a leading dot", 1,
       {"/CN=Int", {ROOT_LINES}, {"551d1e:1:3012a110300e820c2e6578616d706c652e636f6d"}, 0, 0}, 0,
       "a dNSName constraint not in the preferred name syntax (RFC 5280 4.2.1.10, 4.2.1.6)"},
      /* 30 03 81 01 00: inhibitPolicyMapping 0 */
      {"policyConstraints not critical", 1, {"/CN=Int", {ROOT_LINES}, {"551d24:0:3003810100"}, 0, 0},
       0, "policyConstraints not marked critical (RFC 5280 4.2.1.11)"},
      {"policyConstraints critical", 1, {"/CN=Int", {ROOT_LINES}, {"551d24:1:3003810100"}, 0, 0}, 0,
       NULL},
  };
  made root, in, leaf, *m;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const spec *s = &cases[i].s;
    int w = cases[i].which;
    make(&root, w == 2 ? s : &root_ok, &root_key, NULL, &root_key);
    make(&in, w == 1 ? s : &int_ok, &int_key, &root, &root_key);
    make(&leaf, w == 0 ? s : &leaf_ok, &leaf_key, &in, &int_key);
    m = w == 2 ? &root : w == 1 ? &in : &leaf;
    if (cases[i].zero_serial) serial_zero(m, w == 0 ? &int_key : &root_key);
    char why[512] = "";
    size_t depth = 99;
    gostx_x509_status st = run(&root, &in, &leaf, NULL, &depth, why, sizeof why);
    if (!cases[i].says) {
      CHECK(st == GOSTX_X509_OK, "%s: accepted (%s)", cases[i].what, why);
      continue;
    }
    CHECK(st == GOSTX_X509_PROFILE && depth == (size_t)w && strstr(why, cases[i].says) &&
              !strncmp(why, "profile: ", 9),
          "%s: refused at %d saying '%s': %s at %zu: %s", cases[i].what, w, cases[i].says,
          gostx_x509_status_name(st), depth, why);
    gostx_x509_verify_opts lax = mk(GOSTX_X509_VERIFY_LAX, 0, NULL);
    st = run(&root, &in, &leaf, &lax, &depth, why, sizeof why);
    CHECK(st == GOSTX_X509_OK, "%s: accepted when lax: %s", cases[i].what, why);
  }
  CHECK(!strncmp(gostx_x509_status_name(GOSTX_X509_PROFILE), "profile: ", 9), "the status's text");
  /* what is taken from the anchor is still checked: a keyUsage it carries
   * must allow keyCertSign (6.1.4(n)) */
  const spec crl_only = {"/CN=Root", {"basicConstraints=critical,CA:TRUE", "keyUsage=critical,cRLSign"},
                         {NULL}, 0, 1};
  make(&root, &crl_only, &root_key, NULL, &root_key);
  make(&in, &int_ok, &int_key, &root, &root_key);
  make(&leaf, &leaf_ok, &leaf_key, &in, &int_key);
  size_t depth = 99;
  gostx_x509_status st = run(&root, &in, &leaf, NULL, &depth, NULL, 0);
  CHECK(st == GOSTX_X509_KEY_USAGE && depth == 2, "a root whose keyUsage lacks keyCertSign: %s at %zu",
        gostx_x509_status_name(st), depth);
}

/* gostx_x509_verify_opts' key usage and email address. */
static void leaf_options(void) {
  made root, in, leaf, plain;
  make(&root, &root_ok, &root_key, NULL, &root_key);
  make(&in, &int_ok, &int_key, &root, &root_key);
  make(&leaf, &leaf_ok, &leaf_key, &in, &int_key);
  /* no keyUsage, no SAN: the subject's emailAddress counts */
  const spec legacy = {"/CN=old/emailAddress=Ann.Lee@Old.Test", {"basicConstraints=CA:FALSE"}, {NULL}, 0, 0};
  make(&plain, &legacy, &leaf_key, &in, &int_key);
  static const struct {
    int plain; /* the leaf without keyUsage and SAN */
    unsigned ku;
    const char *email;
    gostx_x509_status want;
  } cases[] = {
      {0, GOSTX_X509_KU_DIGITAL_SIGNATURE, NULL, GOSTX_X509_OK},
      {0, GOSTX_X509_KU_KEY_ENCIPHERMENT, NULL, GOSTX_X509_KEY_USAGE},
      {0, GOSTX_X509_KU_DIGITAL_SIGNATURE | GOSTX_X509_KU_NON_REPUDIATION, NULL, GOSTX_X509_KEY_USAGE},
      {1, GOSTX_X509_KU_KEY_ENCIPHERMENT, NULL, GOSTX_X509_OK}, /* no keyUsage: any use */
      {0, 0, "Jo@Mail.Test", GOSTX_X509_OK},
      {0, 0, "Jo@mail.TEST", GOSTX_X509_OK},      /* the domain: any case */
      {0, 0, "jo@Mail.Test", GOSTX_X509_EMAIL_MISMATCH}, /* the local part: exact */
      {0, 0, "Jo@Mail.Test.", GOSTX_X509_EMAIL_MISMATCH},
      {0, 0, "Jo@Other.Test", GOSTX_X509_EMAIL_MISMATCH},
      {0, 0, "Jo", GOSTX_X509_EMAIL_MISMATCH},
      {0, 0, "@Mail.Test", GOSTX_X509_EMAIL_MISMATCH},
      {0, 0, "host.test", GOSTX_X509_EMAIL_MISMATCH}, /* a dNSName is no mailbox */
      {1, 0, "Ann.Lee@old.test", GOSTX_X509_OK},
      {1, 0, "ann.lee@old.test", GOSTX_X509_EMAIL_MISMATCH},
      {1, GOSTX_X509_KU_DIGITAL_SIGNATURE, "Ann.Lee@OLD.test", GOSTX_X509_OK},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gostx_x509_verify_opts o = mk(0, cases[i].ku, cases[i].email);
    char why[512] = "";
    size_t depth = 99;
    gostx_x509_status st = run(&root, &in, cases[i].plain ? &plain : &leaf, &o, &depth, why, sizeof why);
    CHECK(st == cases[i].want && (st == GOSTX_X509_OK || depth == 0), "case %zu (ku 0x%x, %s): %s",
          i, cases[i].ku, cases[i].email ? cases[i].email : "-", why);
  }
  /* a subjectAltName with an rfc822Name: the subject's emailAddress is not looked at */
  const spec both = {"/CN=x/emailAddress=b@old.test", {"subjectAltName=email:a@new.test"}, {NULL}, 0, 0};
  make(&plain, &both, &leaf_key, &in, &int_key);
  gostx_x509_verify_opts o = mk(0, 0, "b@old.test");
  size_t depth;
  CHECK(run(&root, &in, &plain, &o, &depth, err, sizeof err) == GOSTX_X509_EMAIL_MISMATCH,
        "SAN email present: the subject's not used: %s", err);
  CHECK(!strcmp(gostx_x509_status_name(GOSTX_X509_EMAIL_MISMATCH), "subjectAltName: email address mismatch"),
        "the email status's text");
}

int main(void) {
  make_key(&root_key);
  make_key(&int_key);
  make_key(&leaf_key);
  rules();
  leaf_options();
  return t_done();
}
