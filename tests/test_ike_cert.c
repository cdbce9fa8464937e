/* Certificate AUTH in lib/ike/sig.c beyond RFC 9385 A.2.1's known answers
 * (test_ike): over a PKI written here with lib/x509 (a root, an
 * intermediate, leaves with and without subjectAltName and signing
 * keyUsage, a second root), the peer's CERT payloads checked through the
 * store with each refusal named, the ID matched against the certificate in
 * each ID type, and the RFC 7427 AUTH signed and verified at both sizes
 * with each malformed or foreign AUTH refused. */
#include "ike/ike.h"
#include "ike_pki.h"
#include "testutil.h"

/* CHECK_RC with a formatted message. */
#define RC_IS(call, want, fmt, ...)                                                        \
  do {                                                                                     \
    const int rc_ = (call);                                                                \
    CHECK(rc_ == (want), fmt " (rc %d, want %d)", __VA_ARGS__, rc_, (int)(want));          \
  } while (0)

static pki_key root_key, int_key, leaf_key, other_key, enc_key;
static pki_cert root, inter, leaf, other, enc_leaf;
/* self-signed with root's name: other_key (256-bit), enc_key (512-bit, another key) */
static pki_cert twin256, twin512;
/* leaves of leaf_key by extendedKeyUsage: serverAuth alone, id-kp-ipsecIKE,
 * anyExtendedKeyUsage, serverAuth with id-kp-ipsecIKE (RFC 4945 5.1.3.12) */
static pki_cert eku_server, eku_ike, eku_any, eku_both;
static const int64_t t0 = IKE_PKI_T0, t1 = IKE_PKI_T1;

static void pki(void) {
  static const char *const ca_ext[] = {"basicConstraints=critical,CA:TRUE",
                                       "keyUsage=critical,keyCertSign,cRLSign", NULL};
  static const char *const leaf_ext[] = {
      "keyUsage=digitalSignature",
      "subjectAltName=DNS:vpn.example.test,IP:10.0.0.1,IP:fd00::1,email:gw@example.test", NULL};
  static const char *const enc_ext[] = {"keyUsage=keyEncipherment", NULL};
  pki_make(&root, &root_key, GOSTX_GOST3410_512_C, "/CN=IKE Test Root/O=gostx/C=RU", ca_ext, NULL,
           NULL);
  pki_make(&inter, &int_key, GOSTX_GOST3410_256_A, "/CN=IKE Test Intermediate/O=gostx/C=RU", ca_ext,
           &root, &root_key);
  pki_make(&leaf, &leaf_key, GOSTX_GOST3410_256_A, "/CN=vpn.example.test/O=gostx/C=RU", leaf_ext,
           &inter, &int_key);
  pki_make(&other, &other_key, GOSTX_GOST3410_256_B, "/CN=Another Root/O=gostx/C=RU", ca_ext, NULL,
           NULL);
  pki_make_cert(&twin256, "/CN=IKE Test Root/O=gostx/C=RU", &other_key, ca_ext, NULL, NULL);
  pki_make(&twin512, &enc_key, GOSTX_GOST3410_512_A, "/CN=IKE Test Root/O=gostx/C=RU", ca_ext, NULL,
           NULL);
  pki_make_cert(&enc_leaf, "/CN=encipher only/O=gostx/C=RU", &enc_key, enc_ext, &root, &root_key);
  static const char *const server[] = {"extendedKeyUsage=serverAuth", NULL};
  static const char *const ike[] = {"extendedKeyUsage=ipsecIKE", NULL}; /* the writer's name */
  static const char *const any[] = {"extendedKeyUsage=anyExtendedKeyUsage", NULL};
  static const char *const both[] = {"extendedKeyUsage=serverAuth,1.3.6.1.5.5.7.3.17", NULL};
  pki_make_cert(&eku_server, "/CN=EKU serverAuth/O=gostx/C=RU", &leaf_key, server, &root,
                &root_key);
  pki_make_cert(&eku_ike, "/CN=EKU ipsecIKE/O=gostx/C=RU", &leaf_key, ike, &root, &root_key);
  pki_make_cert(&eku_any, "/CN=EKU any/O=gostx/C=RU", &leaf_key, any, &root, &root_key);
  pki_make_cert(&eku_both, "/CN=EKU both/O=gostx/C=RU", &leaf_key, both, &root, &root_key);
  CHECK(eku_ike.c.ext_key_usage == GOSTX_X509_EKU_IPSEC_IKE &&
            eku_both.c.ext_key_usage == (GOSTX_X509_EKU_SERVER | GOSTX_X509_EKU_IPSEC_IKE),
        "lib/x509 names id-kp-ipsecIKE (%#x %#x)", eku_ike.c.ext_key_usage,
        eku_both.c.ext_key_usage);
}

/* The inside of an IKE_AUTH: IDi (id_type, id) and a CERT payload
 * (encoding enc) for each of certs, read back into c. */
static void auth_inside(uint8_t *buf, size_t cap, gostx_ike_chain *c, uint8_t id_type,
                        const void *id, size_t id_len, const pki_cert *const *certs, size_t n,
                        uint8_t enc) {
  gostx_ike_writer w;
  gostx__ike_w_inner(&w, buf, cap);
  if (id) gostx__ike_w_id(&w, GOSTX_IKE_PT_IDI, id_type, id, id_len);
  for (size_t i = 0; i < n; i++)
    gostx__ike_w_cert(&w, GOSTX_IKE_PT_CERT, enc, certs[i]->der, certs[i]->len);
  CHECK(w.err == GOSTX_OK, "the inside written");
  CHECK_RC(gostx__ike_chain_read(w.first, buf, w.len, c, NULL), GOSTX_OK, "the inside reads");
}

/* the log's text for the last check_peer: its why, else the status's */
static const char *peer_why;

static gostx_x509_status check_peer(const gostx_x509_store *st, uint8_t id_type, const void *id,
                                    size_t id_len, const pki_cert *const *certs, size_t n,
                                    uint8_t enc, int64_t now) {
  static uint8_t buf[16384];
  gostx_ike_chain c;
  gostx_x509_cert got;
  auth_inside(buf, sizeof buf, &c, id_type, id, id_len, certs, n, enc);
  gostx_x509_status s = gostx__ike_peer_cert(st, &c, GOSTX_IKE_PT_IDI, now, &got, &peer_why);
  if (!peer_why) peer_why = gostx_x509_status_name(s);
  if (s == GOSTX_X509_OK)
    CHECK(got.der_len == certs[0]->len && !memcmp(got.der, certs[0]->der, got.der_len),
          "the signer is the first CERT");
  return s;
}

#define PEER(want, st, type, id, len, certs, n, enc, now, what)                                 \
  do {                                                                                         \
    gostx_x509_status s_ = check_peer(st, type, id, len, certs, n, enc, now);                  \
    CHECK(s_ == (want), "%s: %s, want %s", what, gostx_x509_status_name(s_),                  \
          gostx_x509_status_name(want));                                                       \
  } while (0)
/* PEER, and the log's text says says */
#define PEER_SAYS(want, says, st, type, id, len, certs, n, enc, now, what)                        \
  do {                                                                                         \
    PEER(want, st, type, id, len, certs, n, enc, now, what);                                   \
    CHECK(strstr(peer_why, says), "%s: the log says '%s', want '%s'", what, peer_why, says);   \
  } while (0)

static void peer_certificates(void) {
  gostx_x509_store *st = gostx_x509_store_new(), *st2 = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(st, root.der, root.len), GOSTX_OK, "root anchored");
  CHECK_RC(gostx_x509_store_add_der(st2, other.der, other.len), GOSTX_OK, "other root anchored");
  gostx_x509_store *st3 = gostx_x509_store_new(), *st4 = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(st3, twin256.der, twin256.len), GOSTX_OK, "256-bit twin anchored");
  CHECK_RC(gostx_x509_store_add_der(st4, twin512.der, twin512.len), GOSTX_OK, "512-bit twin anchored");
  const pki_cert *chain[] = {&leaf, &inter}, *alone[] = {&leaf}, *enc[] = {&enc_leaf};
  const pki_cert *many[] = {&leaf, &inter, &inter, &inter, &inter};
  const int64_t now = t0 + 3600;
  const uint8_t *dn = leaf.c.subject;
  const size_t dn_len = leaf.c.subject_len;
  static const uint8_t v4[4] = {10, 0, 0, 1}, v4_other[4] = {10, 0, 0, 2};
  static const uint8_t v6[16] = {0xfd, [15] = 1};
  /* each ID type that names the certificate (RFC 4945 3.1) */
  PEER(GOSTX_X509_OK, st, GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, chain, 2, 4, now, "DN");
  PEER(GOSTX_X509_OK, st, GOSTX_IKE_ID_FQDN, "VPN.example.TEST", 16, chain, 2, 4, now, "FQDN");
  PEER(GOSTX_X509_OK, st, GOSTX_IKE_ID_IPV4_ADDR, v4, 4, chain, 2, 4, now, "IPv4");
  PEER(GOSTX_X509_OK, st, GOSTX_IKE_ID_IPV6_ADDR, v6, 16, chain, 2, 4, now, "IPv6");
  PEER(GOSTX_X509_OK, st, GOSTX_IKE_ID_RFC822_ADDR, "gw@example.test", 15, chain, 2, 4, now,
       "RFC822");
  /* and those that do not: no SA (RFC 4945 3.1.5) */
  PEER(GOSTX_X509_NAME_MISMATCH, st, GOSTX_IKE_ID_DER_ASN1_DN, inter.c.subject,
       inter.c.subject_len, chain, 2, 4, now, "another DN");
  PEER(GOSTX_X509_NAME_MISMATCH, st, GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len - 1, chain, 2, 4, now,
       "a DN cut short");
  PEER(GOSTX_X509_NAME_MISMATCH, st, GOSTX_IKE_ID_FQDN, "vpn.example.tes", 15, chain, 2, 4, now,
       "an FQDN not in subjectAltName");
  PEER(GOSTX_X509_NAME_MISMATCH, st, GOSTX_IKE_ID_FQDN, "gw@example.test", 15, chain, 2, 4, now,
       "an FQDN that is the rfc822Name");
  PEER(GOSTX_X509_NAME_MISMATCH, st, GOSTX_IKE_ID_IPV4_ADDR, v4_other, 4, chain, 2, 4, now,
       "another address");
  PEER(GOSTX_X509_NAME_MISMATCH, st, GOSTX_IKE_ID_IPV4_ADDR, v6, 16, chain, 2, 4, now,
       "ID_IPV4_ADDR holding the IPv6 address");
  PEER(GOSTX_X509_NAME_MISMATCH, st, GOSTX_IKE_ID_IPV6_ADDR, v4, 4, chain, 2, 4, now,
       "ID_IPV6_ADDR holding the IPv4 address");
  PEER(GOSTX_X509_NAME_MISMATCH, st, GOSTX_IKE_ID_RFC822_ADDR, "GW@example.test", 15, chain, 2,
       4, now, "an RFC822 address in another case");
  PEER(GOSTX_X509_NAME_MISMATCH, st, 11 /* ID_KEY_ID */, "key", 3, chain, 2, 4, now, "ID_KEY_ID");
  /* the chain: through the store's anchor only, in its validity */
  PEER(GOSTX_X509_UNKNOWN_CA, st, GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, alone, 1, 4, now,
       "without the intermediate");
  PEER(GOSTX_X509_UNKNOWN_CA, st2, GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, chain, 2, 4, now,
       "another CA's store");
  /* a root of the trusted one's name with a key of another size: not the
   * issuer (no unknown algorithm); the same size, another key: the same */
  PEER_SAYS(GOSTX_X509_UNKNOWN_CA, "no trusted issuer found (unknown CA)", st3,
            GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, chain, 2, 4, now, "a 256-bit root of root's name");
  PEER_SAYS(GOSTX_X509_UNKNOWN_CA, "no trusted issuer found (unknown CA)", st4,
            GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, chain, 2, 4, now, "a 512-bit root of root's name");
  PEER(GOSTX_X509_EXPIRED, st, GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, chain, 2, 4, t1 + 1,
       "after notAfter");
  PEER(GOSTX_X509_NOT_YET_VALID, st, GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, chain, 2, 4, t0 - 1,
       "before notBefore");
  PEER(GOSTX_X509_KEY_USAGE, st, GOSTX_IKE_ID_DER_ASN1_DN, enc_leaf.c.subject,
       enc_leaf.c.subject_len, enc, 1, 4, now, "keyUsage keyEncipherment only (RFC 4945 5.1.3.2)");
  /* extendedKeyUsage (RFC 4945 5.1.3.12): none (leaf), id-kp-ipsecIKE or
   * anyExtendedKeyUsage among them, or refused */
  const pki_cert *const eku[4] = {&eku_server, &eku_ike, &eku_any, &eku_both};
  const char *const eku_what[4] = {"EKU serverAuth alone", "EKU ipsecIKE", "EKU any",
                                   "EKU serverAuth and ipsecIKE"};
  for (int k = 0; k < 4; k++)
    PEER(k ? GOSTX_X509_OK : GOSTX_X509_EXT_KEY_USAGE, st, GOSTX_IKE_ID_DER_ASN1_DN,
         eku[k]->c.subject, eku[k]->c.subject_len, &eku[k], 1, 4, now, eku_what[k]);
  /* the payloads */
  PEER_SAYS(GOSTX_X509_UNSUPPORTED, "encoding is not 4, X.509 Certificate - Signature", st,
            GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, chain, 2, 12, now, "CERT encoding 12 (Hash and URL)");
  PEER_SAYS(GOSTX_X509_UNSUPPORTED, "encoding is not 4, X.509 Certificate - Signature", st,
            GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, chain, 2, 1, now, "CERT encoding 1 (PKCS #7)");
  PEER_SAYS(GOSTX_X509_MALFORMED, "no CERT payload", st, GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len,
            chain, 0, 4, now, "no CERT");
  PEER_SAYS(GOSTX_X509_MALFORMED, "no ID payload", st, GOSTX_IKE_ID_DER_ASN1_DN, NULL, 0, chain,
            2, 4, now, "no ID");
  PEER_SAYS(GOSTX_X509_PATH_TOO_LONG, "more CERT payloads than the 4 read", st,
            GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, many, 5, 4, now,
            "more CERT payloads than GOSTX_IKE_MAX_CERTS");
  PEER(GOSTX_X509_OK, st, GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, many, 4, 4, now,
       "GOSTX_IKE_MAX_CERTS CERT payloads");
  /* a certificate altered in its signature */
  pki_cert bad = leaf;
  bad.der[bad.len - 1] ^= 1;
  const pki_cert *badc[] = {&bad, &inter};
  PEER(GOSTX_X509_BAD_SIGNATURE, st, GOSTX_IKE_ID_DER_ASN1_DN, dn, dn_len, badc, 2, 4, now,
       "a leaf's signature altered");
  gostx_x509_store_free(st);
  gostx_x509_store_free(st2);
  gostx_x509_store_free(st3);
  gostx_x509_store_free(st4);
}

/* AUTH signed by key, verified with cert: the round trip and each refusal. */
static void signatures(const pki_key *key, const gostx_x509_cert *cert, const char *what) {
  uint8_t msg[300], nonce[32], mac[64], auth[160], auth2[160], bad[160];
  size_t al = 0, al2 = 0;
  for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 7);
  memset(nonce, 0x5a, sizeof nonce);
  memset(mac, 0xc3, sizeof mac);
  const size_t n = key->k.len;
  RC_IS(gostx__ike_auth_sig_sign(&key->k, msg, sizeof msg, nonce, 32, mac, auth, sizeof auth,
                                    &al),
           GOSTX_OK, "%s: signed", what);
  CHECK(al == 13 + 2 * n, "%s: AUTH of %zu octets", what, al);
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, auth, al), GOSTX_OK,
           "%s: verifies", what);
  RC_IS(gostx__ike_auth_sig_sign(&key->k, msg, sizeof msg, nonce, 32, mac, auth2, sizeof auth2,
                                    &al2),
           GOSTX_OK, "%s: signed again", what);
  CHECK(al2 == al && memcmp(auth, auth2, al) &&
            gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, auth2, al2) ==
                GOSTX_OK,
        "%s: a fresh nonce each time, both verify", what);
  RC_IS(gostx__ike_auth_sig_sign(&key->k, msg, sizeof msg, nonce, 32, mac, auth2, al - 1, &al2),
           GOSTX_ELEN, "%s: no room", what);
  /* the signed octets: each part counts */
  msg[17] ^= 1;
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, auth, al), GOSTX_EAUTH,
           "%s: another message", what);
  msg[17] ^= 1;
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 31, mac, auth, al), GOSTX_EAUTH,
           "%s: another nonce", what);
  mac[63] ^= 1;
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, auth, al), GOSTX_EAUTH,
           "%s: another ID", what);
  mac[63] ^= 1;
  /* the AUTH data */
  memcpy(bad, auth, al);
  bad[al - 1] ^= 1;
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, bad, al), GOSTX_EAUTH,
           "%s: r altered", what);
  memcpy(bad, auth, al);
  memset(bad + 13, 0, n); /* s = 0 */
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, bad, al), GOSTX_EAUTH,
           "%s: s = 0", what);
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, auth, al - 1),
           GOSTX_EFORMAT, "%s: one octet short", what);
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, auth, 5),
           GOSTX_EFORMAT, "%s: shorter than its AlgorithmIdentifier", what);
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, auth, 0),
           GOSTX_EFORMAT, "%s: empty", what);
  memcpy(bad, auth, al);
  bad[12] ^= 1; /* ...3.2 <-> ...3.3: the other size's algorithm */
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, bad, al), GOSTX_EUNSUP,
           "%s: the other size's AlgorithmIdentifier", what);
  /* with parameters (NULL): RFC 9385 7.2 says they are omitted */
  static const uint8_t with_null[15] = {14, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x85, 0x03,
                                        0x07, 0x01, 0x01, 0x03, 0x02, 0x05, 0x00};
  memcpy(bad, with_null, sizeof with_null);
  bad[13] = n == 64 ? 0x03 : 0x02;
  memcpy(bad + 15, auth + 13, 2 * n);
  const int with_params = gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, bad, al + 2);
  RC_IS(with_params, GOSTX_EUNSUP, "%s: parameters present", what);
  CHECK(strstr(gostx__ike_sig_why(with_params), "signature algorithm is not supported"),
        "%s: parameters present: the log says '%s'", what, gostx__ike_sig_why(with_params));
  /* the GOST identifier followed by an octet inside the stated length */
  bad[0] = 13;
  memcpy(bad + 1, auth + 1, 12);
  bad[13] = 0;
  memcpy(bad + 14, auth + 13, 2 * n);
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, bad, al + 1),
        GOSTX_EUNSUP, "%s: an AlgorithmIdentifier with an octet more", what);
  /* sha256WithRSAEncryption's identifier (RFC 7427 A.4.2) */
  static const uint8_t rsa[16] = {15, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48,
                                  0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00};
  memcpy(bad, rsa, sizeof rsa);
  RC_IS(gostx__ike_auth_sig_verify(cert, msg, sizeof msg, nonce, 32, mac, bad, 16 + 2 * n),
           GOSTX_EUNSUP, "%s: an RSA AlgorithmIdentifier", what);
  gostx_gost3410_key pub = key->k;
  pub.has_private = 0;
  RC_IS(gostx__ike_auth_sig_sign(&pub, msg, sizeof msg, nonce, 32, mac, auth2, sizeof auth2,
                                    &al2),
           GOSTX_EINVAL, "%s: a key without its private part", what);
}

int main(void) {
  pki();
  peer_certificates();
  signatures(&leaf_key, &leaf.c, "256");
  signatures(&root_key, &root.c, "512");
  gostx_gost3410_key_clear(&root_key.k);
  gostx_gost3410_key_clear(&int_key.k);
  gostx_gost3410_key_clear(&leaf_key.k);
  gostx_gost3410_key_clear(&other_key.k);
  gostx_gost3410_key_clear(&enc_key.k);
  return t_done();
}
