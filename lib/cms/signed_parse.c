/* SignedData (RFC 5652 section 5) read from DER: every field checked, the
 * signers' attributes read, the certificates parsed by lib/x509. A
 * SignedData is public: branches on its bytes are fine; what matters is
 * that each byte is checked and that no count or length is trusted. */
#include "cms/cms_internal.h"

const char *gostx_cms_status_name(gostx_cms_status st) {
  switch (st) {
    case GOSTX_CMS_OK: return "ok";
    case GOSTX_CMS_MALFORMED: return "parse: not a DER CMS message of the structure RFC 5652 gives";
    case GOSTX_CMS_TRUNCATED: return "parse: truncated (the input ends inside the ContentInfo)";
    case GOSTX_CMS_TRAILING_DATA: return "parse: trailing data after the ContentInfo";
    case GOSTX_CMS_NOT_SIGNED_DATA: return "contentType: not a SignedData";
    case GOSTX_CMS_TOO_MANY: return "limits: more signers or certificates than supported";
    case GOSTX_CMS_UNKNOWN_ALGORITHM: return "algorithm: unknown digest or signature algorithm";
    case GOSTX_CMS_ALGORITHM_MISMATCH:
      return "algorithm: digest, signature algorithm and key are of different sizes";
    case GOSTX_CMS_NO_CONTENT: return "content: detached signature and no content given";
    case GOSTX_CMS_MISSING_ATTRIBUTE:
      return "signedAttrs: contentType or messageDigest attribute missing";
    case GOSTX_CMS_BAD_ATTRIBUTE:
      return "signedAttrs: an attribute is malformed, repeated or not single-valued";
    case GOSTX_CMS_CONTENT_TYPE_MISMATCH:
      return "contentType: the attribute does not match eContentType";
    case GOSTX_CMS_DIGEST_MISMATCH:
      return "messageDigest: the content does not match the signed digest (content changed?)";
    case GOSTX_CMS_BAD_SIGNATURE:
      return "signature: does not verify (signed attributes or signature changed?)";
    case GOSTX_CMS_SIGNER_NOT_FOUND: return "signer: no certificate matches the signer identifier";
    case GOSTX_CMS_SIGNING_CERT_MISMATCH:
      return "signingCertificateV2 (or v1): names another certificate than the signer's";
    case GOSTX_CMS_KEY_USAGE:
      return "keyUsage: the signer's certificate is not for digitalSignature or nonRepudiation";
    case GOSTX_CMS_CHAIN: return "chain: the signer's certificate does not verify";
    case GOSTX_CMS_WRONG_TYPE: return "contentType: not the CMS content type this operation reads";
    case GOSTX_CMS_RECIPIENT_NOT_FOUND:
      return "recipient: no recipient info names this certificate (or opens with this key)";
    case GOSTX_CMS_WRONG_KEY:
      return "recipient: the key does not unwrap the content-encryption key (wrong key or encryptedKey changed)";
    case GOSTX_CMS_ORIGINATOR_NOT_FOUND:
      return "originator: the static originator's certificate was not given (openssl's -originator)";
    case GOSTX_CMS_BAD_EOC:
      return "parse: an indefinite-length element does not end with end-of-contents (00 00)";
    case GOSTX_CMS_TOO_DEEP: return "parse: elements nested deeper than the streaming reader allows";
    case GOSTX_CMS_TOO_LARGE:
      return "limits: an element read whole (not the content) is larger than the streaming work buffer";
    case GOSTX_CMS_BAD_MAC:
      return "content: the OMAC does not verify (content or its MAC attribute changed, or wrong key)";
    case GOSTX_CMS_TOO_MANY_RECIPIENTS:
      return "recipientInfos: more recipients than the 8 read (GOSTX_CMS_MAX_RECIPIENTS)";
    case GOSTX_CMS_UNKNOWN_CIPHER: return "contentEncryptionAlgorithm: not supported";
    case GOSTX_CMS_UNKNOWN_KEY_WRAP: return "recipient: keyEncryptionAlgorithm not supported";
    case GOSTX_CMS_RECIPIENT_KIND:
      return "recipientInfos: only kinds not read (KEKRecipientInfo, PasswordRecipientInfo, other)";
    case GOSTX_CMS_KEY_MISMATCH:
      return "recipient: the key is of another size or curve than the recipient info's";
    case GOSTX_CMS_BAD_MAC_ATTRIBUTE:
      return "unprotectedAttrs: the -OMAC content's id-cms-mac-attr is missing, repeated or not one block";
    case GOSTX_CMS_NO_ENCRYPTED_CONTENT:
      return "encryptedContent: absent (a content sent apart is not supported)";
    case GOSTX_CMS_BAD_CONTENT_TYPE:
      return "encryptedContentInfo: contentType is not a CMS content type (id-data, RFC 5652's, id-ct-*)";
    case GOSTX_CMS_BAD_DIGEST_ALGORITHMS:
      return "digestAlgorithms: names a digest algorithm that is not built (Streebog-256, -512)";
  }
  return "unknown status";
}

size_t gostx__cms_digest_size(gostx__der oid) {
  if (GOSTX__DER_OID_IS(oid, OID_STREEBOG_256)) return 32;
  if (GOSTX__DER_OID_IS(oid, OID_STREEBOG_512)) return 64;
  return 0;
}

size_t gostx__cms_sig_size(gostx__der oid) {
  if (GOSTX__DER_OID_IS(oid, OID_KEY_2012_256) || GOSTX__DER_OID_IS(oid, OID_SIG_2012_256)) return 32;
  if (GOSTX__DER_OID_IS(oid, OID_KEY_2012_512) || GOSTX__DER_OID_IS(oid, OID_SIG_2012_512)) return 64;
  return 0;
}

int gostx__cms_alg_id(gostx__der *r, gostx__der *oid) {
  gostx__der seq, null;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &seq, NULL) || gostx__der_oid(&seq, oid)) return GOSTX_EFORMAT;
  /* other parameters belong to algorithms we do not know: the OID decides */
  if (seq.n && gostx__der_peek(&seq, GOSTX__DER_NULL) &&
      (gostx__der_get(&seq, GOSTX__DER_NULL, &null, NULL) || null.n || seq.n))
    return GOSTX_EFORMAT;
  if (seq.n && (gostx__cms_digest_size(*oid) || gostx__cms_sig_size(*oid))) return GOSTX_EFORMAT;
  return 0;
}

/* ---- the content's digests ---- */

int gostx_cms_hash_init(gostx_cms_hash *h, unsigned want) {
  if (!h || !want || (want & ~(GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512))) return GOSTX_EINVAL;
  memset(h, 0, sizeof *h);
  h->want = want;
  if (want & GOSTX_CMS_HASH_256) gostx_streebog_init(&h->s256, 32);
  if (want & GOSTX_CMS_HASH_512) gostx_streebog_init(&h->s512, 64);
  return 0;
}

int gostx_cms_hash_update(gostx_cms_hash *h, const void *data, size_t len) {
  if (!h || (!data && len)) return GOSTX_EINVAL;
  if (h->done || !h->want) return GOSTX_ESTATE;
  if (h->want & GOSTX_CMS_HASH_256) gostx_streebog_update(&h->s256, data, len);
  if (h->want & GOSTX_CMS_HASH_512) gostx_streebog_update(&h->s512, data, len);
  return 0;
}

int gostx_cms_hash_final(gostx_cms_hash *h) {
  if (!h) return GOSTX_EINVAL;
  if (h->done || !h->want) return GOSTX_ESTATE;
  if (h->want & GOSTX_CMS_HASH_256) gostx_streebog_final(&h->s256, h->d256);
  if (h->want & GOSTX_CMS_HASH_512) gostx_streebog_final(&h->s512, h->d512);
  h->done = 1;
  return 0;
}

/* ---- signed attributes (RFC 5652 section 11, RFC 5035 section 5.4) ---- */

/* The one value of an attribute's SET: RFC 5652 gives contentType,
 * messageDigest and signingTime exactly one (sections 11.1 to 11.3). */
static int single_value(gostx__der values, gostx__der *value) {
  gostx__der whole;
  uint8_t tag;
  if (gostx__der_next(&values, &tag, NULL, &whole) || values.n) return GOSTX_EFORMAT;
  *value = whole;
  return 0;
}

/* IssuerSerial ::= SEQUENCE { issuer GeneralNames, serialNumber }: only a
 * single directoryName names a certificate's issuer. */
static int ess_issuer_serial(gostx__der r, gostx_cms_signer_info *si) {
  gostx__der seq, names, dn, name, serial;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &seq, NULL) || r.n ||
      gostx__der_get(&seq, GOSTX__DER_SEQ, &names, NULL) ||
      gostx__der_get(&names, GOSTX__DER_CTXC(4), &dn, NULL) || names.n ||
      gostx__der_get(&dn, GOSTX__DER_SEQ, NULL, &name) || dn.n ||
      gostx__der_get(&seq, GOSTX__DER_INT, &serial, NULL) || seq.n || serial.n == 0)
    return GOSTX_EFORMAT;
  si->ess_issuer = name.p, si->ess_issuer_len = name.n;
  si->ess_serial = serial.p, si->ess_serial_len = serial.n;
  return 0;
}

/* SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2,
 * policies OPTIONAL }; the first ESSCertIDv2 is the signer's (RFC 5035
 * section 5.4). hashAlgorithm DEFAULT id-sha256. SigningCertificate (v1,
 * RFC 2634 5.4) is the same with ESSCertID, which has no hashAlgorithm:
 * SHA-1. */
static int signing_cert(gostx__der value, int v2, gostx_cms_signer_info *si) {
  gostx__der sc, certs, id, oid, hash;
  if (gostx__der_get(&value, GOSTX__DER_SEQ, &sc, NULL) ||
      gostx__der_get(&sc, GOSTX__DER_SEQ, &certs, NULL) ||
      gostx__der_get(&certs, GOSTX__DER_SEQ, &id, NULL))
    return GOSTX_EFORMAT;
  si->ess_issuer = si->ess_serial = NULL; /* a v2 after a v1: the v2's alone */
  si->ess_issuer_len = si->ess_serial_len = 0;
  si->ess_hash_alg = v2 ? GOSTX_CMS_ESS_SHA256 : GOSTX_CMS_ESS_SHA1_V1;
  if (v2 && gostx__der_peek(&id, GOSTX__DER_SEQ)) {
    if (gostx__cms_alg_id(&id, &oid)) return GOSTX_EFORMAT;
    si->ess_hash_alg = GOSTX__DER_OID_IS(oid, OID_SHA256) ? GOSTX_CMS_ESS_SHA256
                                                          : gostx__cms_digest_size(oid);
  }
  if (gostx__der_get(&id, GOSTX__DER_OCTETS, &hash, NULL) || (!v2 && hash.n != 20)) return GOSTX_EFORMAT;
  si->ess_hash = hash.p, si->ess_hash_len = hash.n;
  if (id.n && ess_issuer_serial(id, si)) return GOSTX_EFORMAT;
  return 0;
}

/* One Attribute ::= SEQUENCE { attrType OID, attrValues SET OF }. Those
 * of ours are read (each may appear once); others are left alone. */
static int one_attr(gostx__der attr, gostx_cms_signer_info *si, unsigned *seen) {
  gostx__der oid, values, v, c;
  int64_t t;
  if (gostx__der_oid(&attr, &oid) || gostx__der_get(&attr, GOSTX__DER_SET, &values, NULL) || attr.n)
    return GOSTX_EFORMAT;
  unsigned bit = GOSTX__DER_OID_IS(oid, OID_ATTR_CONTENT_TYPE)     ? 1u
                 : GOSTX__DER_OID_IS(oid, OID_ATTR_DIGEST)         ? 2u
                 : GOSTX__DER_OID_IS(oid, OID_ATTR_SIGNING_TIME)   ? 4u
                 : GOSTX__DER_OID_IS(oid, OID_ATTR_SIGNING_CERT_V2) ? 8u
                 : GOSTX__DER_OID_IS(oid, OID_ATTR_SIGNING_CERT)    ? 16u
                                                                    : 0u;
  if (!bit) return 0;
  if ((*seen & bit) || single_value(values, &v)) return GOSTX_EFORMAT;
  *seen |= bit;
  if (bit == 1) {
    if (gostx__der_oid(&v, &c)) return GOSTX_EFORMAT;
    si->attr_content_type = c.p, si->attr_content_type_len = c.n;
  } else if (bit == 2) {
    if (gostx__der_get(&v, GOSTX__DER_OCTETS, &c, NULL)) return GOSTX_EFORMAT;
    si->attr_digest = c.p, si->attr_digest_len = c.n;
  } else if (bit == 4) {
    if (gostx__der_time(&v, &t)) return GOSTX_EFORMAT;
    si->has_signing_time = 1, si->signing_time = t;
  } else if (bit == 16 && (*seen & 8u)) { /* v1 beside v2: v2 names the signer (RFC 5035 5.4) */
    gostx_cms_signer_info spare;
    if (signing_cert(v, 0, &spare)) return GOSTX_EFORMAT;
  } else if (signing_cert(v, bit == 8u, si)) {
    return GOSTX_EFORMAT;
  }
  return 0;
}

/* The signed attributes' [0] content. Attributes that break their own
 * rules are kept as attr_status, for the verdict to name. */
static void signed_attrs(gostx__der attrs, gostx_cms_signer_info *si) {
  unsigned seen = 0;
  gostx__der attr;
  while (attrs.n) {
    if (gostx__der_get(&attrs, GOSTX__DER_SEQ, &attr, NULL) || one_attr(attr, si, &seen)) {
      si->attr_status = GOSTX_CMS_BAD_ATTRIBUTE;
      return;
    }
  }
  if ((seen & 3u) != 3u) si->attr_status = GOSTX_CMS_MISSING_ATTRIBUTE;
}

/* ---- SignerInfo ---- */

int gostx__cms_read_id(gostx__der *r, gostx__cms_id *id) {
  gostx__der ias;
  memset(id, 0, sizeof *id);
  if (gostx__der_peek(r, GOSTX__DER_CTX(0))) { /* [0] SubjectKeyIdentifier */
    if (gostx__der_get(r, GOSTX__DER_CTX(0), &id->key_id, NULL) || id->key_id.n == 0)
      return GOSTX_EFORMAT;
    id->kind = GOSTX_CMS_SID_KEY_ID;
    return 0;
  }
  if (gostx__der_get(r, GOSTX__DER_SEQ, &ias, NULL) ||
      gostx__der_get(&ias, GOSTX__DER_SEQ, NULL, &id->issuer) ||
      gostx__der_get(&ias, GOSTX__DER_INT, &id->serial, NULL) || ias.n || id->serial.n == 0)
    return GOSTX_EFORMAT;
  id->kind = GOSTX_CMS_SID_ISSUER_SERIAL;
  return 0;
}

static int signer_id(gostx__der *r, gostx_cms_signer_info *si) {
  gostx__cms_id id;
  if (gostx__cms_read_id(r, &id)) return GOSTX_EFORMAT;
  si->sid_kind = id.kind;
  si->sid_key_id = id.key_id.p, si->sid_key_id_len = id.key_id.n;
  si->sid_issuer = id.issuer.p, si->sid_issuer_len = id.issuer.n;
  si->sid_serial = id.serial.p, si->sid_serial_len = id.serial.n;
  return 0;
}

static int signer_info(gostx__der r, gostx_cms_signer_info *si) {
  gostx__der oid, attrs, whole, sig;
  memset(si, 0, sizeof *si);
  if (gostx__der_small_uint(&r, &si->version) || signer_id(&r, si) || gostx__cms_alg_id(&r, &oid))
    return GOSTX_EFORMAT;
  /* RFC 5652 5.3: version 1 with issuerAndSerialNumber, 3 with a key id */
  if (si->version != (si->sid_kind == GOSTX_CMS_SID_KEY_ID ? 3 : 1)) return GOSTX_EFORMAT;
  si->digest_oid = oid.p, si->digest_oid_len = oid.n;
  si->digest_len = gostx__cms_digest_size(oid);
  if (gostx__der_peek(&r, GOSTX__DER_CTXC(0))) {
    if (gostx__der_get(&r, GOSTX__DER_CTXC(0), &attrs, &whole) || attrs.n == 0) return GOSTX_EFORMAT;
    si->signed_attrs = whole.p, si->signed_attrs_len = whole.n;
    signed_attrs(attrs, si);
  }
  if (gostx__cms_alg_id(&r, &oid) || gostx__der_get(&r, GOSTX__DER_OCTETS, &sig, NULL))
    return GOSTX_EFORMAT;
  si->sig_oid = oid.p, si->sig_oid_len = oid.n;
  si->sig_size = gostx__cms_sig_size(oid);
  si->signature = sig.p, si->signature_len = sig.n;
  if (gostx__der_peek(&r, GOSTX__DER_CTXC(1))) {
    if (gostx__der_get(&r, GOSTX__DER_CTXC(1), &attrs, &whole) || attrs.n == 0) return GOSTX_EFORMAT;
    si->unsigned_attrs = whole.p, si->unsigned_attrs_len = whole.n;
  }
  return r.n ? GOSTX_EFORMAT : 0;
}

/* ---- SignedData ---- */

/* digestAlgorithms: a SET OF AlgorithmIdentifier, each checked, kept for
 * the verification (which wants each a digest it knows). */
static int digest_algorithms(gostx__der *r, gostx_cms_signed *sd) {
  gostx__der set, oid;
  if (gostx__der_get(r, GOSTX__DER_SET, &set, NULL)) return GOSTX_EFORMAT;
  sd->digest_algs = set.p, sd->digest_algs_len = set.n;
  while (set.n)
    if (gostx__cms_alg_id(&set, &oid)) return GOSTX_EFORMAT;
  return 0;
}

/* encapContentInfo: eContentType and the content, a primitive OCTET
 * STRING when attached (BER's constructed form is refused). */
static int encap_content(gostx__der *r, gostx_cms_signed *sd) {
  gostx__der eci, oid, explicit, octets;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &eci, NULL) || gostx__der_oid(&eci, &oid)) return GOSTX_EFORMAT;
  sd->content_type = oid.p, sd->content_type_len = oid.n;
  if (!eci.n) return 0;
  if (gostx__der_get(&eci, GOSTX__DER_CTXC(0), &explicit, NULL) || eci.n ||
      gostx__der_get(&explicit, GOSTX__DER_OCTETS, &octets, NULL) || explicit.n)
    return GOSTX_EFORMAT;
  sd->content = octets.p ? octets.p : (const uint8_t *)"";
  sd->content_len = octets.n;
  return 0;
}

/* certificates [0] IMPLICIT CertificateSet: the GOST X.509 ones parsed;
 * other choices (attribute certificates, other formats) and certificates
 * lib/x509 cannot use (RSA, ...) counted as skipped. */
static int certificates(gostx__der set, gostx_cms_signed *sd, gostx_cms_status *st) {
  while (set.n) {
    uint8_t tag;
    gostx__der whole;
    if (gostx__der_next(&set, &tag, NULL, &whole)) return GOSTX_EFORMAT;
    gostx_x509_status xst;
    if (tag != GOSTX__DER_SEQ) {
      sd->n_certs_skipped++;
      continue;
    }
    if (sd->n_certs == GOSTX_CMS_MAX_CERTS) return *st = GOSTX_CMS_TOO_MANY, GOSTX_EFORMAT;
    if (gostx_x509_parse(whole.p, whole.n, &sd->certs[sd->n_certs], &xst))
      sd->n_certs_skipped++;
    else
      sd->n_certs++;
  }
  return 0;
}

static int signed_data(gostx__der r, gostx_cms_signed *sd, gostx_cms_status *st) {
  gostx__der set, si;
  if (gostx__der_small_uint(&r, &sd->version) || sd->version < 1 || sd->version > 5 ||
      digest_algorithms(&r, sd) || encap_content(&r, sd))
    return GOSTX_EFORMAT;
  if (gostx__der_peek(&r, GOSTX__DER_CTXC(0))) {
    if (gostx__der_get(&r, GOSTX__DER_CTXC(0), &set, NULL) || certificates(set, sd, st))
      return GOSTX_EFORMAT;
  }
  if (gostx__der_peek(&r, GOSTX__DER_CTXC(1)) && gostx__der_get(&r, GOSTX__DER_CTXC(1), NULL, NULL))
    return GOSTX_EFORMAT; /* crls: not used for verification yet */
  if (gostx__der_get(&r, GOSTX__DER_SET, &set, NULL) || r.n) return GOSTX_EFORMAT;
  while (set.n) {
    if (sd->n_signers == GOSTX_CMS_MAX_SIGNERS) return *st = GOSTX_CMS_TOO_MANY, GOSTX_EFORMAT;
    if (gostx__der_get(&set, GOSTX__DER_SEQ, &si, NULL) ||
        signer_info(si, &sd->signers[sd->n_signers]))
      return GOSTX_EFORMAT;
    sd->n_signers++;
  }
  return 0;
}

/* The length the outermost header declares when the input is shorter:
 * to tell a truncated file from a malformed one. */
static int declares_more(const uint8_t *p, size_t n) {
  if (n < 2 || p[0] != GOSTX__DER_SEQ) return 0;
  size_t len = p[1], hdr = 2;
  if (len & 0x80) {
    size_t k = len & 0x7f;
    if (k == 0 || k > 4) return 0;
    if (n < 2 + k) return 1;
    len = 0;
    for (size_t i = 0; i < k; i++) len = len << 8 | p[2 + i];
    hdr += k;
  }
  return len > n - hdr;
}

static int content_info(const uint8_t *der, size_t der_len, const uint8_t *type_oid, size_t type_len,
                        gostx__der *inner, size_t *rest, gostx_cms_status *st) {
  gostx__der r = {der, der_len}, ci, oid, explicit;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &ci, NULL)) {
    if (declares_more(der, der_len)) *st = GOSTX_CMS_TRUNCATED;
    return GOSTX_EFORMAT;
  }
  if (gostx__der_oid(&ci, &oid)) return GOSTX_EFORMAT;
  if (!gostx__der_oid_is(oid, type_oid, type_len)) {
    int signed_asked = type_len == sizeof OID_SIGNED_DATA - 1 && !memcmp(type_oid, OID_SIGNED_DATA, type_len);
    *st = signed_asked ? GOSTX_CMS_NOT_SIGNED_DATA : GOSTX_CMS_WRONG_TYPE;
    return GOSTX_EFORMAT;
  }
  if (gostx__der_get(&ci, GOSTX__DER_CTXC(0), &explicit, NULL) || ci.n ||
      gostx__der_get(&explicit, GOSTX__DER_SEQ, inner, NULL) || explicit.n)
    return GOSTX_EFORMAT;
  *rest = r.n;
  return 0;
}

int gostx__cms_parse(const uint8_t *der, size_t der_len, void *out, size_t clear,
                     const char *type_oid, size_t type_len, gostx__cms_content_reader read,
                     gostx_cms_status *st) {
  gostx_cms_status dummy;
  gostx__der content;
  size_t rest;
  if (!st) st = &dummy;
  *st = GOSTX_CMS_MALFORMED;
  if (!der || !out) return GOSTX_EINVAL;
  memset(out, 0, clear);
  if (content_info(der, der_len, (const uint8_t *)type_oid, type_len, &content, &rest, st) ||
      read(&content, out, st))
    return GOSTX_EFORMAT;
  if (rest) return *st = GOSTX_CMS_TRAILING_DATA, GOSTX_EFORMAT;
  *st = GOSTX_CMS_OK;
  return 0;
}

static int signed_content(gostx__der *content, void *out, gostx_cms_status *st) {
  gostx_cms_signed *sd = out;
  if (signed_data(*content, sd, st)) return GOSTX_EFORMAT;
  return sd->n_signers == 0 ? GOSTX_EFORMAT : 0; /* a bare certificate bag signs nothing */
}

int gostx_cms_signed_parse(const uint8_t *der, size_t der_len, gostx_cms_signed *out,
                           gostx_cms_status *st) {
  int rc = gostx__cms_parse(der, der_len, out, offsetof(gostx_cms_signed, signers),
                            OID_SIGNED_DATA, sizeof OID_SIGNED_DATA - 1, signed_content, st);
  if (!rc) out->der = der, out->der_len = der_len;
  return rc;
}

int gostx_cms_oid_text(const uint8_t *oid, size_t len, char *text, size_t cap) {
  gostx__der o = {oid, len};
  if (!oid || !text) return GOSTX_EINVAL;
  return gostx__der_oid_text(o, text, cap);
}

unsigned gostx_cms_signed_hashes(const gostx_cms_signed *sd) {
  unsigned want = 0;
  for (size_t i = 0; sd && i < sd->n_signers; i++)
    want |= sd->signers[i].digest_len == 32   ? GOSTX_CMS_HASH_256
            : sd->signers[i].digest_len == 64 ? GOSTX_CMS_HASH_512
                                              : 0u;
  return want;
}
