/* SignedData verification (RFC 5652 section 5.6, RFC 5035 section 5.4):
 * per signer, the algorithms, the signed attributes, the content's
 * digest, the signature, signingCertificateV2, the certificate's keyUsage
 * and its chain (lib/x509). All of it is public data. */
#include <stdio.h>

#include "cms/cms_internal.h"
#include "kdf/sha256.h"
#include "sha1/sha1.h"
#include "x509/x509_internal.h"

/* Chains are built from the signer's certificate, the message's
 * certificates and at most this many of the caller's untrusted ones. */
#define UNTRUSTED_MAX 32

int gostx__cms_attrs_digest(const uint8_t *attrs, size_t len, size_t digest_len, uint8_t *digest) {
  static const uint8_t set_tag = GOSTX__DER_SET;
  gostx_streebog_ctx c;
  if (len < 2 || gostx_streebog_init(&c, digest_len)) return GOSTX_EINVAL;
  gostx_streebog_update(&c, &set_tag, 1); /* [0] IMPLICIT read as the SET OF it stands for */
  gostx_streebog_update(&c, attrs + 1, len - 1);
  return gostx_streebog_final(&c, digest);
}

/* Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE,
 * extnValue OCTET STRING }; subjectKeyIdentifier's value is an OCTET
 * STRING (RFC 5280 section 4.2.1.2). */
static int key_id_ext(gostx__der ext, const uint8_t **id, size_t *len) {
  static const uint8_t ski[] = {0x55, 0x1d, 0x0e}; /* 2.5.29.14 */
  gostx__der oid, value, kid;
  int crit;
  if (gostx__der_oid(&ext, &oid) || !gostx__der_oid_is(oid, ski, sizeof ski)) return 0;
  if (gostx__der_peek(&ext, GOSTX__DER_BOOL) && gostx__der_bool(&ext, &crit)) return 0;
  if (gostx__der_get(&ext, GOSTX__DER_OCTETS, &value, NULL) ||
      gostx__der_get(&value, GOSTX__DER_OCTETS, &kid, NULL) || value.n)
    return 0;
  *id = kid.p, *len = kid.n;
  return 1;
}

int gostx__cms_cert_key_id(const gostx_x509_cert *cert, const uint8_t **id, size_t *len) {
  gostx__der r = {cert->tbs, cert->tbs_len}, tbs, exts, ext;
  uint8_t tag;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &tbs, NULL)) return 0;
  while (tbs.n) { /* the fields before extensions [3] are passed over */
    if (gostx__der_next(&tbs, &tag, &exts, NULL)) return 0;
    if (tag != GOSTX__DER_CTXC(3)) continue;
    if (gostx__der_get(&exts, GOSTX__DER_SEQ, &r, NULL)) return 0;
    while (!gostx__der_get(&r, GOSTX__DER_SEQ, &ext, NULL))
      if (key_id_ext(ext, id, len)) return 1;
  }
  return 0;
}

static int same(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  return an == bn && memcmp(a, b, an) == 0;
}

int gostx__cms_cert_is(const gostx_x509_cert *c, const gostx__cms_id *id) {
  const uint8_t *kid;
  size_t len;
  if (id->kind == GOSTX_CMS_SID_KEY_ID)
    return gostx__cms_cert_key_id(c, &kid, &len) && same(kid, len, id->key_id.p, id->key_id.n);
  /* the issuer compared as lib/x509 compares names (RFC 5280 7.1): a
   * sender may have written it in other string types than the certificate */
  return gostx__x509_name_equal(c->issuer, c->issuer_len, id->issuer.p, id->issuer.n) &&
         same(c->serial, c->serial_len, id->serial.p, id->serial.n);
}

static int cert_is_signer(const gostx_x509_cert *c, const gostx_cms_signer_info *si) {
  gostx__cms_id id = {si->sid_kind,
                      {si->sid_issuer, si->sid_issuer_len},
                      {si->sid_serial, si->sid_serial_len},
                      {si->sid_key_id, si->sid_key_id_len}};
  return gostx__cms_cert_is(c, &id);
}

static const gostx_x509_cert *find_signer(const gostx_cms_signed *sd, const gostx_cms_signer_info *si,
                                          const gostx_cms_verify_params *p) {
  for (size_t i = 0; i < sd->n_certs; i++)
    if (cert_is_signer(&sd->certs[i], si)) return &sd->certs[i];
  for (size_t i = 0; p && i < p->n_untrusted; i++)
    if (cert_is_signer(&p->untrusted[i], si)) return &p->untrusted[i];
  return NULL;
}

static gostx_cms_status unknown_alg(gostx_cms_verdict *v, const uint8_t *oid, size_t len) {
  gostx__der o = {oid, len};
  gostx__der_oid_text(o, v->oid, sizeof v->oid);
  return GOSTX_CMS_UNKNOWN_ALGORITHM;
}

/* The algorithms are ours and agree with each other and the key. */
static gostx_cms_status check_algs(const gostx_cms_signer_info *si, const gostx_x509_cert *cert,
                                   gostx_cms_verdict *v) {
  if (!si->digest_len) return unknown_alg(v, si->digest_oid, si->digest_oid_len);
  if (!si->sig_size) return unknown_alg(v, si->sig_oid, si->sig_oid_len);
  if (si->digest_len != si->sig_size) return GOSTX_CMS_ALGORITHM_MISMATCH;
  if (cert && (cert->key_alg == GOSTX_X509_KEY_2001 || gostx_gost3410_size(cert->curve) != si->sig_size))
    return GOSTX_CMS_ALGORITHM_MISMATCH;
  return GOSTX_CMS_OK;
}

/* The content's digest for this signer: from the caller's hash, or the
 * attached content digested now. */
static gostx_cms_status content_digest(const gostx_cms_signed *sd, const gostx_cms_hash *hash,
                                       size_t len, uint8_t *digest) {
  if (hash) {
    unsigned bit = len == 32 ? GOSTX_CMS_HASH_256 : GOSTX_CMS_HASH_512;
    if (!hash->done || !(hash->want & bit)) return GOSTX_CMS_NO_CONTENT;
    memcpy(digest, len == 32 ? hash->d256 : hash->d512, len);
    return GOSTX_CMS_OK;
  }
  if (!sd->content) return GOSTX_CMS_NO_CONTENT;
  gostx_streebog(len, sd->content, sd->content_len, digest);
  return GOSTX_CMS_OK;
}

/* What the signature covers: the signed attributes, after their
 * contentType and messageDigest are checked; or, without attributes, the
 * content itself (id-data only: RFC 5652 section 5.3). */
static gostx_cms_status signed_digest(const gostx_cms_signed *sd, const gostx_cms_signer_info *si,
                                      const uint8_t *content_md, uint8_t *digest) {
  size_t len = si->digest_len;
  if (!si->signed_attrs) {
    if (!same(sd->content_type, sd->content_type_len, (const uint8_t *)OID_DATA, sizeof OID_DATA - 1))
      return GOSTX_CMS_MISSING_ATTRIBUTE;
    memcpy(digest, content_md, len);
    return GOSTX_CMS_OK;
  }
  if (si->attr_status != GOSTX_CMS_OK) return si->attr_status;
  if (!same(si->attr_content_type, si->attr_content_type_len, sd->content_type, sd->content_type_len))
    return GOSTX_CMS_CONTENT_TYPE_MISMATCH;
  if (!same(si->attr_digest, si->attr_digest_len, content_md, len)) return GOSTX_CMS_DIGEST_MISMATCH;
  gostx__cms_attrs_digest(si->signed_attrs, si->signed_attrs_len, len, digest);
  return GOSTX_CMS_OK;
}

/* The signature value is s || r (RFC 4490 section 3.2, as X.509's). */
static gostx_cms_status check_signature(const gostx_cms_signer_info *si, const gostx_x509_cert *cert,
                                        const uint8_t *digest, gostx_x509_sig_memo *memo) {
  uint8_t sig[128];
  size_t len = si->sig_size;
  if (si->signature_len != 2 * len ||
      gostx_gost3410_sig_swap(si->signature, 2 * len, sig, 2 * len) ||
      gostx__x509_verify_digest(memo, cert, digest, len, sig, 2 * len))
    return GOSTX_CMS_BAD_SIGNATURE;
  return GOSTX_CMS_OK;
}

/* signingCertificateV2 (RFC 5035 section 5.4), or v1 (RFC 2634 5.4,
 * SHA-1): its first ESSCertID(v2) must be the hash (and, when given, the
 * issuer and serial) of the certificate the signer was found by. */
static gostx_cms_status check_ess(const gostx_cms_signer_info *si, const gostx_x509_cert *cert,
                                  gostx_cms_verdict *v) {
  uint8_t h[64];
  size_t hl = si->ess_hash_alg;
  if (!si->ess_hash) return GOSTX_CMS_OK;
  if (si->ess_hash_alg == GOSTX_CMS_ESS_UNKNOWN)
    return snprintf(v->oid, sizeof v->oid, "(signingCertificateV2 hash)"), GOSTX_CMS_UNKNOWN_ALGORITHM;
  if (si->ess_hash_alg == GOSTX_CMS_ESS_SHA256) {
    gostx__sha256(cert->der, cert->der_len, h);
    hl = 32;
  } else if (si->ess_hash_alg == GOSTX_CMS_ESS_SHA1_V1) {
    gostx__sha1(cert->der, cert->der_len, h);
  } else {
    gostx_streebog(hl, cert->der, cert->der_len, h);
  }
  if (!same(si->ess_hash, si->ess_hash_len, h, hl)) return GOSTX_CMS_SIGNING_CERT_MISMATCH;
  if (si->ess_issuer && (!gostx__x509_name_equal(cert->issuer, cert->issuer_len, si->ess_issuer,
                                                 si->ess_issuer_len) ||
                         !same(si->ess_serial, si->ess_serial_len, cert->serial, cert->serial_len)))
    return GOSTX_CMS_SIGNING_CERT_MISMATCH;
  return GOSTX_CMS_OK;
}

/* RFC 5280 4.2.1.3: a signature on content is digitalSignature's, or
 * nonRepudiation's (contentCommitment), what qualified signatures carry. */
static gostx_cms_status check_key_usage(const gostx_x509_cert *cert) {
  return cert->key_usage == ~0u || (cert->key_usage & 3u) ? GOSTX_CMS_OK : GOSTX_CMS_KEY_USAGE;
}

static gostx_cms_status check_chain(const gostx_cms_signed *sd, const gostx_x509_cert *cert,
                                    const gostx_cms_verify_params *p, gostx_cms_verdict *v) {
  gostx_x509_cert chain[1 + GOSTX_CMS_MAX_CERTS + UNTRUSTED_MAX];
  size_t n = 0;
  chain[n++] = *cert;
  for (size_t i = 0; i < sd->n_certs; i++) chain[n++] = sd->certs[i];
  for (size_t i = 0; i < p->n_untrusted && i < UNTRUSTED_MAX; i++) chain[n++] = p->untrusted[i];
  gostx_x509_verify_opts o; /* gostx_x509_verify's, with the run's memo */
  gostx_x509_verify_opts_init(&o, p->now);
  o.purpose = p->purpose;
  o.memo = p->memo;
  gostx_x509_verify_result res;
  v->x509 = gostx_x509_verify_with(p->store, chain, n, &o, &res);
  v->depth = res.depth;
  return v->x509 == GOSTX_X509_OK ? GOSTX_CMS_OK : GOSTX_CMS_CHAIN;
}

static gostx_cms_status verify_signer(const gostx_cms_signed *sd, const gostx_cms_signer_info *si,
                                      const gostx_cms_hash *hash, const gostx_cms_verify_params *p,
                                      gostx_cms_verdict *v) {
  uint8_t content_md[64], digest[64];
  gostx_cms_status st = check_algs(si, NULL, v);
  if (st) return st;
  const gostx_x509_cert *cert = find_signer(sd, si, p);
  if (!cert) return GOSTX_CMS_SIGNER_NOT_FOUND;
  v->signer_cert = cert;
  if ((st = check_algs(si, cert, v)) || (st = content_digest(sd, hash, si->digest_len, content_md)) ||
      (st = signed_digest(sd, si, content_md, digest)) ||
      (st = check_signature(si, cert, digest, p ? p->memo : NULL)) ||
      (st = check_ess(si, cert, v)) || (st = check_key_usage(cert)))
    return st;
  return p && p->store ? check_chain(sd, cert, p, v) : GOSTX_CMS_OK;
}

/* Every digestAlgorithms entry a digest lib/cms computes: one it does not
 * (a mangled Streebog OID, say) is refused before any signer, as openssl
 * refuses it, and named. */
static gostx_cms_status check_digest_list(const gostx_cms_signed *sd, gostx_cms_verdict *v) {
  gostx__der set = {sd->digest_algs, sd->digest_algs_len}, oid;
  while (set.n) {
    if (gostx__cms_alg_id(&set, &oid)) return GOSTX_CMS_MALFORMED;
    if (!gostx__cms_digest_size(oid)) {
      gostx__der_oid_text(oid, v->oid, sizeof v->oid);
      return GOSTX_CMS_BAD_DIGEST_ALGORITHMS;
    }
  }
  return GOSTX_CMS_OK;
}

int gostx_cms_signed_verify(const gostx_cms_signed *sd, const gostx_cms_hash *hash,
                            const gostx_cms_verify_params *params, gostx_cms_verdict *v) {
  if (!sd || !v || sd->n_signers == 0 || sd->n_signers > GOSTX_CMS_MAX_SIGNERS) return GOSTX_EINVAL;
  memset(v, 0, sizeof *v);
  if ((v->status = check_digest_list(sd, v)) != GOSTX_CMS_OK) return GOSTX_EAUTH;
  for (size_t i = 0; i < sd->n_signers; i++) {
    v->signer = i;
    v->status = verify_signer(sd, &sd->signers[i], hash, params, v);
    if (v->status != GOSTX_CMS_OK) return GOSTX_EAUTH;
  }
  return 0;
}
