#define _GNU_SOURCE /* memmem */
/* The certificate and request writer (include/gostx/x509_write.h): names
 * from -subj text and extensions from openssl's text, each refusal said;
 * a CA (512-bit key) and a leaf it issues (256-bit key) written and read
 * back through lib/x509's parser with every field compared, the chain
 * verified; the time forms at 2049/2050; requests written, read back with
 * their signature checked, and refused once altered; short buffers. The
 * interop with openssl and GnuTLS is tests/test_req_cli.sh's. */
#include <stdlib.h>

#include "testutil.h"

static char err[256];

static void names(void) {
  gostx_x509_name n;
  char text[256];
  CHECK_RC(gostx_x509_name_parse("/CN=host a/O=Org\\/Unit/C=RU/INN=7700000000/"
                                 "emailAddress=a@b.ru/CN=\xd0\xa2\xd0\xb5\xd1\x81\xd1\x82/1.2.3.4=x",
                                 &n, err, sizeof err),
           0, "a name");
  CHECK_RC(gostx_x509_name_text(n.der, n.len, text, sizeof text), 0, "its text");
  CHECK(!strcmp(text, "CN=host a, O=Org/Unit, C=RU, INN=7700000000, emailAddress=a@b.ru, "
                      "CN=\xd0\xa2\xd0\xb5\xd1\x81\xd1\x82, 1.2.3.4=x"),
        "name text: %s", text);
  /* C is a PrintableString (0x13), CN a UTF8String (0x0c), INN a NumericString (0x12) */
  CHECK(memmem(n.der, n.len, "\x13\x02RU", 4) && memmem(n.der, n.len, "\x0c\x06host a", 8) &&
            memmem(n.der, n.len, "\x12\x0a" "7700000000", 12),
        "string types");
  static const struct {
    const char *subj, *says;
  } bad[] = {
      {"CN=x", "must start with '/'"},
      {"/XX=y", "unknown attribute type 'XX'"},
      {"/C=RUS", "C: the value must be 2 characters"},
      {"/C=R*", "C: the value must be PrintableString"},
      {"/CN=", "CN: empty value"},
      {"/CN", "has no '='"},
      {"/INN=77a", "INN: the value must be digits"},
      {"/CN=\xc0\xaf", "CN: the value must be UTF-8"},
      {"/CN=\xed\xa0\x80", "CN: the value must be UTF-8"},
      {"/CN=a\\", "'\\' at the end"},
      {"/", "no attribute"},
      {"/CN=a//O=b", "has no '='"},
      {"/CN=12345678901234567890123456789012345678901234567890123456789012345", "1 to 64"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    CHECK(gostx_x509_name_parse(bad[i].subj, &n, err, sizeof err) == GOSTX_EINVAL &&
              strstr(err, bad[i].says),
          "-subj '%s' refused saying '%s': '%s'", bad[i].subj, bad[i].says, err);
  }
}

static void extensions(void) {
  gostx_x509_exts e;
  gostx_x509_exts_init(&e);
  CHECK_RC(gostx_x509_exts_add_line(&e, "basicConstraints = critical, CA:TRUE, pathlen:1", err,
                                    sizeof err), 0, "basicConstraints");
  /* SEQUENCE { BOOLEAN TRUE, INTEGER 1 } */
  CHECK(e.n == 1 && e.ext[0].critical && e.ext[0].len == 8 &&
            !memcmp(e.data + e.ext[0].off, "\x30\x06\x01\x01\xff\x02\x01\x01", 8),
        "basicConstraints DER");
  CHECK_RC(gostx_x509_exts_add(&e, "keyUsage", "digitalSignature,keyCertSign", err, sizeof err), 0,
           "keyUsage");
  /* bits 0 and 5: 10000100, two unused bits */
  CHECK(e.ext[1].len == 4 && !memcmp(e.data + e.ext[1].off, "\x03\x02\x02\x84", 4), "keyUsage DER");
  CHECK_RC(gostx_x509_exts_add(&e, "keyUsage", "cRLSign", err, sizeof err), GOSTX_EINVAL, "twice");
  CHECK(strstr(err, "given twice") != NULL, "twice said: %s", err);
  static const struct {
    const char *line, *says;
  } bad[] = {
      {"subjectAltName = DNS:a, IP:1.2.3", "'1.2.3' is no IPv4 or IPv6 address"},
      {"subjectAltName = RID:1.2", "none of DNS:, IP:, email:, URI:"},
      {"subjectAltName = DNS:a b", "printable ASCII"},
      {"subjectAltName = DNS:a,,DNS:b", "empty item"},
      {"basicConstraints = CA:FALSE, pathlen:0", "pathlen only with CA:TRUE"},
      {"basicConstraints = pathlen:2", "CA:TRUE or CA:FALSE is needed"},
      {"extendedKeyUsage = webAuth", "unknown purpose 'webAuth'"},
      {"nameConstraints = permitted;DNS:a", "unknown extension 'nameConstraints'"},
      {"subjectKeyIdentifier = critical, hash", "never critical"},
      {"authorityKeyIdentifier = issuer:always", "not supported"},
      {"subjectAltName", "not NAME=VALUE"},
      {"subjectAltName = critical", "nothing after 'critical'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    gostx_x509_exts_init(&e);
    CHECK(gostx_x509_exts_add_line(&e, bad[i].line, err, sizeof err) == GOSTX_EINVAL &&
              strstr(err, bad[i].says),
          "'%s' refused saying '%s': '%s'", bad[i].line, bad[i].says, err);
  }
}

typedef t_sign_key key;

static uint8_t ca_der[4096], leaf_der[4096];
static size_t ca_len, leaf_len;
static key ca_key, leaf_key;

static void certificates(void) {
  gostx_x509_name ca_name, leaf_name;
  gostx_x509_exts ca_ext, leaf_ext;
  gostx_x509_cert ca, leaf;
  uint8_t ca_id[64], id[20];
  size_t ca_id_len;
  t_make_sign_key(GOSTX_GOST3410_512_A, &ca_key);
  t_make_sign_key(GOSTX_GOST3410_256_A, &leaf_key);
  CHECK_RC(gostx_x509_name_parse("/CN=Root/O=T", &ca_name, err, sizeof err), 0, "CA name");
  CHECK_RC(gostx_x509_name_parse("/CN=localhost", &leaf_name, err, sizeof err), 0, "leaf name");
  gostx_x509_exts_init(&ca_ext);
  gostx_x509_exts_init(&leaf_ext);
  CHECK_RC(gostx_x509_exts_add_line(&ca_ext, "basicConstraints=critical,CA:TRUE,pathlen:0", err, sizeof err), 0, "bc");
  CHECK_RC(gostx_x509_exts_add_line(&ca_ext, "keyUsage=critical,keyCertSign,cRLSign", err, sizeof err), 0, "ku");
  CHECK_RC(gostx_x509_exts_add_line(&leaf_ext, "keyUsage=digitalSignature", err, sizeof err), 0, "ku");
  CHECK_RC(gostx_x509_exts_add_line(&leaf_ext, "extendedKeyUsage=serverAuth", err, sizeof err), 0, "eku");
  CHECK_RC(gostx_x509_exts_add_line(&leaf_ext, "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1,email:a@b.c",
                                    err, sizeof err), 0, "san");
  const uint8_t serial[] = {0x01, 0x02, 0x03};
  int64_t now = 1800000000; /* 2027 */
  gostx_x509_cert_spec s = {serial, sizeof serial, ca_name.der, ca_name.der, ca_name.len,
                            ca_name.len, now, 2524607999 /* 2049-12-31 23:59:59 */,
                            ca_key.spki, ca_key.spki_len, &ca_ext, NULL, 0};
  CHECK_RC(gostx_x509_cert_write(&s, &ca_key.xk, ca_der, sizeof ca_der, &ca_len), 0, "CA written");
  CHECK(memmem(ca_der, ca_len, "\x17\x0d" "491231235959Z", 15) != NULL, "2049 is UTCTime");
  CHECK_RC(gostx_x509_parse(ca_der, ca_len, &ca, NULL), 0, "CA parsed");
  CHECK(ca.version == 3 && ca.is_ca && ca.path_len == 0 && ca.key_usage == ((1u << 5) | (1u << 6)) &&
            ca.ext_key_usage == ~0u && ca.sig_alg == GOSTX_X509_SIG_2012_512 &&
            ca.key_alg == GOSTX_X509_KEY_2012_512 && ca.not_before == now &&
            ca.not_after == 2524607999 && ca.serial_len == 3 && !memcmp(ca.serial, serial, 3) &&
            ca.subject_len == ca_name.len && !memcmp(ca.subject, ca_name.der, ca_name.len) &&
            ca.pub_len == 128 && !memcmp(ca.pub, ca_key.pub, 128) && !ca.unknown_critical,
        "CA fields");
  CHECK_RC(gostx_x509_cert_key_id(&ca, ca_id, sizeof ca_id, &ca_id_len), 0, "CA key id");
  CHECK_RC(gostx_x509_key_id(ca_key.spki, ca_key.spki_len, id), 0, "key id");
  CHECK(ca_id_len == 20 && !memcmp(ca_id, id, 20), "the SKI is the key's identifier");

  const uint8_t serial2[20] = {0x7f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  s = (gostx_x509_cert_spec){serial2, sizeof serial2, ca.subject, leaf_name.der, ca.subject_len,
                             leaf_name.len, now, 2524608000 /* 2050-01-01 */, leaf_key.spki,
                             leaf_key.spki_len, &leaf_ext, ca_id, ca_id_len};
  CHECK_RC(gostx_x509_cert_write(&s, &ca_key.xk, leaf_der, sizeof leaf_der, &leaf_len), 0, "leaf written");
  CHECK(memmem(leaf_der, leaf_len, "\x18\x0f" "20500101000000Z", 17) != NULL, "2050 is GeneralizedTime");
  CHECK_RC(gostx_x509_parse(leaf_der, leaf_len, &leaf, NULL), 0, "leaf parsed");
  CHECK(!leaf.is_ca && leaf.key_usage == 1u && leaf.ext_key_usage == GOSTX_X509_EKU_SERVER &&
            leaf.not_after == 2524608000 && leaf.serial_len == 20 &&
            !memcmp(leaf.serial, serial2, 20) && leaf.key_alg == GOSTX_X509_KEY_2012_256 &&
            leaf.sig_alg == GOSTX_X509_SIG_2012_512 && leaf.issuer_len == ca.subject_len &&
            !memcmp(leaf.issuer, ca.subject, ca.subject_len) && !memcmp(leaf.pub, leaf_key.pub, 64),
        "leaf fields");
  /* authorityKeyIdentifier: SEQUENCE { [0] the CA's identifier } */
  uint8_t aki[24] = {0x30, 22, 0x80, 20};
  memcpy(aki + 4, ca_id, 20);
  CHECK(memmem(leaf_der, leaf_len, aki, sizeof aki) != NULL, "AKI names the CA's key id");
  size_t pos = 0, len;
  int type, seen = 0;
  const uint8_t *v;
  while (gostx_x509_san_next(&leaf, &pos, &type, &v, &len) == 1) {
    seen |= type == 2 && len == 9 && !memcmp(v, "localhost", 9) ? 1 : 0;
    seen |= type == 7 && len == 4 && !memcmp(v, "\x7f\0\0\1", 4) ? 2 : 0;
    seen |= type == 7 && len == 16 && v[15] == 1 ? 4 : 0;
    seen |= type == 1 && len == 5 && !memcmp(v, "a@b.c", 5) ? 8 : 0;
  }
  CHECK(seen == 15, "SAN entries read back (%d)", seen);
  gostx_x509_store *store = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(store, ca_der, ca_len), 0, "anchor");
  CHECK(gostx_x509_verify(store, &leaf, 1, now + 60, GOSTX_X509_PURPOSE_SERVER, "localhost", NULL) ==
            GOSTX_X509_OK,
        "the chain verifies");
  gostx_x509_store_free(store);

  /* short buffers say the length needed; bad specs are refused */
  uint8_t small[100];
  size_t need = 0;
  CHECK_RC(gostx_x509_cert_write(&s, &ca_key.xk, small, sizeof small, &need), GOSTX_ELEN, "short");
  CHECK(need == leaf_len, "the length needed: %zu, want %zu", need, leaf_len);
  const uint8_t neg[] = {0x80}, zero[] = {0, 0};
  s.serial = neg, s.serial_len = 1;
  CHECK_RC(gostx_x509_cert_write(&s, &ca_key.xk, small, sizeof small, &need), GOSTX_EINVAL, "negative serial");
  s.serial = zero, s.serial_len = 2;
  CHECK_RC(gostx_x509_cert_write(&s, &ca_key.xk, small, sizeof small, &need), GOSTX_EINVAL, "serial 0");
  s.serial = serial, s.serial_len = 3, s.not_before = -700000000; /* 1947 */
  CHECK_RC(gostx_x509_cert_write(&s, &ca_key.xk, small, sizeof small, &need), GOSTX_EINVAL, "1947");
}

static void requests(void) {
  gostx_x509_name name;
  gostx_x509_exts e;
  gostx_x509_csr csr;
  uint8_t der[2048];
  size_t len;
  memset(&csr, 0, sizeof csr); /* read below even when a parse failed */
  CHECK_RC(gostx_x509_name_parse("/CN=req/OGRN=1027700000000", &name, err, sizeof err), 0, "name");
  gostx_x509_exts_init(&e);
  CHECK_RC(gostx_x509_exts_add_line(&e, "subjectAltName=DNS:req.example", err, sizeof err), 0, "san");
  CHECK_RC(gostx_x509_csr_write(&name, &e, &leaf_key.xk, der, sizeof der, &len), 0, "CSR written");
  CHECK_RC(gostx_x509_csr_parse(der, len, &csr), 0, "CSR read, signature checked");
  CHECK(csr.subject_len == name.len && !memcmp(csr.subject, name.der, name.len) &&
            csr.spki_len == leaf_key.spki_len && !memcmp(csr.spki, leaf_key.spki, csr.spki_len) &&
            csr.len == 32 && csr.curve == GOSTX_GOST3410_256_A && csr.sig_alg == GOSTX_X509_SIG_2012_256,
        "CSR fields");
  size_t pos = 0, oid_len, vlen, count = 0;
  const uint8_t *oid, *v;
  int critical;
  while (gostx_x509_csr_ext_next(&csr, &pos, &oid, &oid_len, &critical, &v, &vlen) == 1) {
    count++;
    CHECK(oid_len == 3 && !memcmp(oid, "\x55\x1d\x11", 3) && !critical &&
              vlen == e.ext[0].len && !memcmp(v, e.data + e.ext[0].off, vlen),
          "the requested SAN");
  }
  CHECK(count == 1, "one requested extension");
  /* one byte of the signed subject, then of the signature, changed */
  uint8_t *p = memmem(der, len, "req", 3);
  p[0] ^= 1;
  CHECK_RC(gostx_x509_csr_parse(der, len, &csr), GOSTX_EAUTH, "altered subject");
  p[0] ^= 1;
  der[len - 1] ^= 1;
  CHECK_RC(gostx_x509_csr_parse(der, len, &csr), GOSTX_EAUTH, "altered signature");
  der[len - 1] ^= 1;
  CHECK_RC(gostx_x509_csr_parse(der, len - 1, &csr), GOSTX_EFORMAT, "truncated");
  /* a request without extensions: an empty attribute set */
  CHECK_RC(gostx_x509_csr_write(&name, NULL, &ca_key.xk, der, sizeof der, &len), 0, "no extensions");
  CHECK_RC(gostx_x509_csr_parse(der, len, &csr), 0, "read");
  CHECK(csr.exts == NULL && csr.sig_alg == GOSTX_X509_SIG_2012_512, "512-bit, no extensions");
  char pem[4096];
  size_t pem_len, der_len;
  uint8_t back[2048];
  CHECK_RC(gostx_x509_to_pem("CERTIFICATE REQUEST", der, len, pem, sizeof pem, &pem_len), 0, "PEM");
  pos = 0;
  CHECK(gostx_x509_csr_pem_next(pem, pem_len, &pos, back, sizeof back, &der_len) == 1 &&
            der_len == len && !memcmp(back, der, len),
        "PEM read back");
}

int main(void) {
  names();
  extensions();
  certificates();
  requests();
  return t_done();
}
