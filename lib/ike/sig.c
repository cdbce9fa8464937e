/* Certificate authentication for IKEv2 with the GOST signatures: the
 * Digital Signature AUTH method of RFC 7427 as RFC 9385 section 7 fills it
 * (AlgorithmIdentifier without parameters, signature s | r big-endian,
 * Streebog-256 or -512 by the key's size) over the signed octets of RFC
 * 7296 2.15, and the peer's CERT payloads checked through lib/x509 with its
 * ID matched to the end-entity certificate (RFC 4945 3.1, 5.1.3.2). */
#include <string.h>

#include "gost3410/key_internal.h"
#include "ike.h"

/* RFC 9385 7.2.1 and 7.2.2: SEQUENCE { OID 1.2.643.7.1.1.3.2 / .3 } */
static const uint8_t alg_256[12] = {0x30, 0x0a, 0x06, 0x08, 0x2a, 0x85,
                                    0x03, 0x07, 0x01, 0x01, 0x03, 0x02};
static const uint8_t alg_512[12] = {0x30, 0x0a, 0x06, 0x08, 0x2a, 0x85,
                                    0x03, 0x07, 0x01, 0x01, 0x03, 0x03};

enum { ALG_ID_LEN = sizeof alg_256, SIG_HEAD = 1 + ALG_ID_LEN };

/* Streebog of the signed octets: RealMessage | Nonce | prf(SK_p, ID). */
static int signed_digest(size_t len, const uint8_t *msg, size_t msg_len, const uint8_t *nonce,
                         size_t nonce_len, const uint8_t id_mac[GOSTX_IKE_PRF_LEN],
                         uint8_t *digest) {
  gostx_streebog_ctx h;
  int rc = gostx_streebog_init(&h, len);
  if (rc == GOSTX_OK) rc = gostx_streebog_update(&h, msg, msg_len);
  if (rc == GOSTX_OK) rc = gostx_streebog_update(&h, nonce, nonce_len);
  if (rc == GOSTX_OK) rc = gostx_streebog_update(&h, id_mac, GOSTX_IKE_PRF_LEN);
  if (rc == GOSTX_OK) rc = gostx_streebog_final(&h, digest);
  gostx_streebog_clear(&h);
  return rc;
}

/* r | s (lib/gost3410) and s | r (RFC 9385 7) are each other's halves swapped. */
static void swap_halves(const uint8_t *in, uint8_t *out, size_t half) {
  memcpy(out, in + half, half);
  memcpy(out + half, in, half);
}

int gostx__ike_auth_sig_sign_k(const gostx_gost3410_key *key, const uint8_t *msg,
                               size_t msg_len, const uint8_t *nonce, size_t nonce_len,
                               const uint8_t id_mac[GOSTX_IKE_PRF_LEN], const uint8_t *k,
                               size_t k_len, uint8_t *auth, size_t cap, size_t *auth_len) {
  if (!gostx_gost3410_key_is_private(key) || (!msg && msg_len) || (!nonce && nonce_len) || !id_mac ||
      !auth || !auth_len)
    return GOSTX_EINVAL;
  const size_t n = key->len, total = SIG_HEAD + 2 * n;
  if (n != 32 && n != 64) return GOSTX_EINVAL;
  if (cap < total) return GOSTX_ELEN;
  uint8_t digest[64], rs[128];
  int rc = signed_digest(n, msg, msg_len, nonce, nonce_len, id_mac, digest);
  if (rc == GOSTX_OK)
    rc = gostx__key_sign_k(key, digest, n, k, k_len, rs, 2 * n);
  if (rc == GOSTX_OK) {
    auth[0] = ALG_ID_LEN;
    memcpy(auth + 1, n == 32 ? alg_256 : alg_512, ALG_ID_LEN);
    swap_halves(rs, auth + SIG_HEAD, n);
    *auth_len = total;
  }
  gostx_memzero(rs, sizeof rs);
  return rc;
}

int gostx__ike_auth_sig_sign(const gostx_gost3410_key *key, const uint8_t *msg, size_t msg_len,
                             const uint8_t *nonce, size_t nonce_len,
                             const uint8_t id_mac[GOSTX_IKE_PRF_LEN], uint8_t *auth, size_t cap,
                             size_t *auth_len) {
  return gostx__ike_auth_sig_sign_k(key, msg, msg_len, nonce, nonce_len, id_mac, NULL, 0, auth,
                                    cap, auth_len);
}

int gostx__ike_auth_sig_verify(const gostx_x509_cert *cert, const uint8_t *msg, size_t msg_len,
                               const uint8_t *nonce, size_t nonce_len,
                               const uint8_t id_mac[GOSTX_IKE_PRF_LEN], const uint8_t *auth,
                               size_t auth_len) {
  if (!cert || (!msg && msg_len) || (!nonce && nonce_len) || !id_mac || (!auth && auth_len))
    return GOSTX_EINVAL;
  const size_t n = gostx_gost3410_size(cert->curve);
  /* RFC 7427 3: the AlgorithmIdentifier's length, it, the signature */
  if (auth_len < 1 || auth[0] == 0 || auth_len < 1 + (size_t)auth[0]) return GOSTX_EFORMAT;
  const uint8_t *want = n == 32 ? alg_256 : n == 64 ? alg_512 : NULL;
  if (!want || auth[0] != ALG_ID_LEN || memcmp(auth + 1, want, ALG_ID_LEN))
    return GOSTX_EUNSUP; /* another algorithm, or one the key cannot make */
  if (auth_len != SIG_HEAD + 2 * n) return GOSTX_EFORMAT;
  uint8_t digest[64], rs[128];
  int rc = signed_digest(n, msg, msg_len, nonce, nonce_len, id_mac, digest);
  if (rc != GOSTX_OK) return rc;
  swap_halves(auth + SIG_HEAD, rs, n);
  rc = gostx_gost3410_verify(cert->curve, cert->pub, cert->pub_len, digest, n, rs, 2 * n);
  return rc == GOSTX_EFORMAT ? GOSTX_EAUTH : rc; /* r or s out of range: no signature */
}

const char *gostx__ike_sig_why(int rc) {
  switch (rc) {
    case GOSTX_EUNSUP:
      return "the peer's AUTH signature algorithm is not supported (RFC 9385 7.2: "
             "id-tc26-signwithdigest-gost3410-12-256 or -512 of its certificate's key size, "
             "parameters absent)";
    case GOSTX_EFORMAT:
      return "the peer's signature AUTH is malformed (its lengths are not the key's)";
    default: return "the peer's signature AUTH does not verify";
  }
}

int gostx__ike_sig_hashes(const gostx_ike_chain *c, uint32_t *mask) {
  if (!c || !mask) return GOSTX_EINVAL;
  int seen = 0;
  *mask = 0;
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NOTIFY); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_NOTIFY)) {
    gostx_ike_notify n;
    if (gostx__ike_notify_read(p->body, p->len, &n) != GOSTX_OK) return GOSTX_EFORMAT;
    if (n.type != GOSTX_IKE_N_SIGNATURE_HASH_ALGORITHMS) continue;
    if (n.proto || n.spi_len || !n.data_len || n.data_len % 2) return GOSTX_EFORMAT;
    for (size_t i = 0; i < n.data_len; i += 2) {
      const unsigned id = (unsigned)n.data[i] << 8 | n.data[i + 1];
      if (id < 32) *mask |= 1u << id; /* the others name no hash we have */
    }
    seen = 1;
  }
  return seen;
}

uint16_t gostx__ike_sig_hash_of(size_t key_len) {
  return key_len == 32   ? GOSTX_IKE_HASH_STREEBOG_256
         : key_len == 64 ? GOSTX_IKE_HASH_STREEBOG_512
                         : 0;
}

/* RFC 4945 5.1.3.2: a keyUsage, when there is one, that allows signing. */
enum { KU_DIGITAL_SIGNATURE = 1u << 0, KU_NON_REPUDIATION = 1u << 1 };

/* Lower-case ASCII comparison (DNS names, RFC 4945 3.1.2). */
static int same_text_nocase(const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = (uint8_t)(x + 32);
    if (y >= 'A' && y <= 'Z') y = (uint8_t)(y + 32);
    if (x != y) return 0;
  }
  return 1;
}

/* An entry of the certificate's subjectAltName of type equal to id. */
static int san_has(const gostx_x509_cert *c, int type, const uint8_t *id, size_t len, int nocase) {
  size_t pos = 0, vl;
  int t;
  const uint8_t *v;
  while (gostx_x509_san_next(c, &pos, &t, &v, &vl) == 1)
    if (t == type && vl == len && (nocase ? same_text_nocase(v, id, len) : !memcmp(v, id, len)))
      return 1;
  return 0;
}

int gostx__ike_id_matches_cert(const gostx_x509_cert *c, uint8_t id_type, const uint8_t *id,
                               size_t len) {
  if (!c || (!id && len) || !len) return 0;
  switch (id_type) {
  case GOSTX_IKE_ID_DER_ASN1_DN: /* RFC 4945 3.1.5 asks a binary comparison with Subject,
                                   * not lib/x509's name comparison */
    return len == c->subject_len && !memcmp(id, c->subject, len);
  case GOSTX_IKE_ID_FQDN:
    return san_has(c, 2, id, len, 1); /* dNSName */
  case GOSTX_IKE_ID_RFC822_ADDR:
    return san_has(c, 1, id, len, 0); /* rfc822Name */
  case GOSTX_IKE_ID_IPV4_ADDR:
    return len == 4 && san_has(c, 7, id, len, 0); /* iPAddress */
  case GOSTX_IKE_ID_IPV6_ADDR:
    return len == 16 && san_has(c, 7, id, len, 0);
  default: /* ID_KEY_ID and the others name no certificate */
    return 0;
  }
}

/* The CERT payloads of c parsed into chain (RFC 7296 3.6: the first holds
 * the key that signed AUTH; the others may help build the path); a
 * refusal of the payloads themselves named in *why. */
static gostx_x509_status read_certs(const gostx_ike_chain *c, gostx_x509_cert *chain,
                                    size_t *n, const char **why) {
  gostx_x509_status st = GOSTX_X509_OK;
  *n = 0;
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_CERT); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_CERT)) {
    uint8_t enc;
    const uint8_t *der;
    size_t len;
    if (gostx__ike_cert_read(p->body, p->len, &enc, &der, &len) != GOSTX_OK)
      return *why = "a CERT payload is malformed (RFC 7296 3.6)", GOSTX_X509_MALFORMED;
    if (enc != GOSTX_IKE_CERT_X509_SIG)
      return *why = "a CERT payload's encoding is not 4, X.509 Certificate - Signature (RFC 7296 "
                    "3.6), the only one read",
             GOSTX_X509_UNSUPPORTED;
    if (*n == GOSTX_IKE_MAX_CERTS)
      return *why = "more CERT payloads than the 4 read (GOSTX_IKE_MAX_CERTS)", GOSTX_X509_PATH_TOO_LONG;
    if (gostx_x509_parse(der, len, &chain[*n], &st) != GOSTX_OK) return st;
    (*n)++;
  }
  if (!*n) *why = "no CERT payload: certificate authentication needs the peer's certificate";
  return *n ? GOSTX_X509_OK : GOSTX_X509_MALFORMED;
}

gostx_x509_status gostx__ike_peer_cert(const gostx_x509_store *store,
                                       const gostx_ike_chain *c, uint8_t id_payload,
                                       int64_t now, gostx_x509_cert *leaf, const char **why) {
  return gostx__ike_peer_cert_rev(store, NULL, NULL, c, id_payload, now, leaf, why);
}

gostx_x509_status gostx__ike_peer_cert_rev(const gostx_x509_store *store,
                                           const gostx_ike_revocation *rev, char *note,
                                           const gostx_ike_chain *c, uint8_t id_payload,
                                           int64_t now, gostx_x509_cert *leaf, const char **why) {
  static const gostx_x509_cert none;
  gostx_x509_cert chain[GOSTX_IKE_MAX_CERTS];
  size_t n;
  const char *dummy;
  if (!why) why = &dummy;
  *why = NULL;
  if (note) note[0] = 0;
  if (!store || !c || !leaf) return GOSTX_X509_MALFORMED;
  *leaf = none;
  gostx_x509_status st = read_certs(c, chain, &n, why);
  if (st == GOSTX_X509_OK)
    st = gostx__ike_path_verify(store, rev, chain, n, now, note);
  if (st != GOSTX_X509_OK) return st;
  if (chain[0].key_usage != ~0u &&
      !(chain[0].key_usage & (KU_DIGITAL_SIGNATURE | KU_NON_REPUDIATION)))
    return GOSTX_X509_KEY_USAGE;
  /* RFC 4945 5.1.3.12: no EKU, or one naming IKE or any purpose */
  if (chain[0].ext_key_usage != ~0u &&
      !(chain[0].ext_key_usage & (GOSTX_X509_EKU_IPSEC_IKE | GOSTX_X509_EKU_ANY)))
    return GOSTX_X509_EXT_KEY_USAGE;
  const gostx_ike_payload *idp = gostx__ike_find(c, id_payload);
  uint8_t id_type;
  const uint8_t *id;
  size_t id_len;
  if (!idp || gostx__ike_id_read(idp->body, idp->len, &id_type, &id, &id_len) != GOSTX_OK)
    return *why = idp ? "the ID payload is malformed" : "no ID payload", GOSTX_X509_MALFORMED;
  /* RFC 4945 3.1.5: no match, no SA */
  if (!gostx__ike_id_matches_cert(&chain[0], id_type, id, id_len))
    return GOSTX_X509_NAME_MISMATCH;
  *leaf = chain[0];
  return GOSTX_X509_OK;
}
