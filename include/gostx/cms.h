/* gostx: CMS (RFC 5652) with GOST algorithms (RFC 4490, RFC 9215,
 * R 1323565.1.025-2019) and CAdES-BES (RFC 5035 signingCertificateV2).
 * Part of the public API; docs/CMS.md.
 *
 * Built so far: SignedData, attached or detached, one or several signers,
 * Streebog-256/512 digests and GOST R 34.10-2012 256/512 signatures, the
 * signed attributes contentType, messageDigest, signingTime and
 * signingCertificateV2; verification down to the signer's chain through
 * lib/x509 (gostx/x509.h); EnvelopedData with KeyTransRecipientInfo
 * (KeyTransport2019: KEG + KExp15; KeyAgreeRecipientInfo read),
 * EncryptedData and DigestedData, the
 * content in Kuznyechik/Magma CTR-ACPKM or CTR-ACPKM-OMAC; and RFC 4490's
 * GOST 28147-89 CFB content with its KeyTransRecipientInfo (VKO + CryptoPro
 * key wrap, 2012 keys) or KeyAgreeRecipientInfo (read: VKO + the GOST 28147-89
 * or CryptoPro key wrap, as TK26's examples, PyGOST and BouncyCastle write it).
 *
 * Nothing here allocates. A parsed message (gostx_cms_signed) is views
 * into the caller's DER, which must outlive it. A detached signature of a
 * big file never needs the file in memory: the content goes through a
 * gostx_cms_hash in the caller's chunks, and signing and verification take
 * the finished hash instead of the content. */
#ifndef GOSTX_CMS_H
#define GOSTX_CMS_H

#include <stdint.h>

#include "base64.h"
#include "common.h"
#include "gost3410.h"
#include "hash.h"
#include "x509.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the content's digests, in chunks ----
 * Streebog-256 and/or Streebog-512 of one content at once (a message may
 * have signers of both sizes). */
#define GOSTX_CMS_HASH_256 1u
#define GOSTX_CMS_HASH_512 2u
typedef struct gostx_cms_hash {
  gostx_streebog_ctx s256, s512;
  unsigned want;     /* GOSTX_CMS_HASH_* being computed */
  int done;          /* final called: d256 / d512 set */
  uint8_t d256[32], d512[64];
} gostx_cms_hash;

/* want: GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512 (at least one). */
GOSTX_API int gostx_cms_hash_init(gostx_cms_hash *h, unsigned want);
GOSTX_API int gostx_cms_hash_update(gostx_cms_hash *h, const void *data, size_t len);
/* Ends both digests; GOSTX_ESTATE when called twice. */
GOSTX_API int gostx_cms_hash_final(gostx_cms_hash *h);

/* ---- verdicts ---- */
typedef enum gostx_cms_status {
  GOSTX_CMS_OK = 0,
  GOSTX_CMS_MALFORMED,          /* not DER, or not the structure RFC 5652 gives */
  GOSTX_CMS_TRUNCATED,          /* the input ends inside an element */
  GOSTX_CMS_TRAILING_DATA,      /* bytes after the ContentInfo */
  GOSTX_CMS_NOT_SIGNED_DATA,    /* a ContentInfo of another content type */
  GOSTX_CMS_TOO_MANY,           /* more signers or certificates than the limits below */
  GOSTX_CMS_UNKNOWN_ALGORITHM,  /* a digest or signature algorithm not built (OID given) */
  GOSTX_CMS_ALGORITHM_MISMATCH, /* digest and signature algorithms or key of different sizes */
  GOSTX_CMS_NO_CONTENT,         /* detached: the content (or its hash) was not given */
  GOSTX_CMS_MISSING_ATTRIBUTE,  /* signed attributes without contentType or messageDigest */
  GOSTX_CMS_BAD_ATTRIBUTE,      /* an attribute twice, or not one value, or malformed */
  GOSTX_CMS_CONTENT_TYPE_MISMATCH, /* contentType attribute is not eContentType */
  GOSTX_CMS_DIGEST_MISMATCH,    /* messageDigest is not the content's digest */
  GOSTX_CMS_BAD_SIGNATURE,      /* the signature does not verify */
  GOSTX_CMS_SIGNER_NOT_FOUND,   /* no certificate matches the signer's identifier */
  GOSTX_CMS_SIGNING_CERT_MISMATCH, /* signingCertificateV2 names another certificate */
  GOSTX_CMS_KEY_USAGE,          /* the signer's keyUsage has neither digitalSignature nor nonRepudiation */
  GOSTX_CMS_CHAIN,              /* the signer's chain failed: x509 status in the verdict */
  GOSTX_CMS_WRONG_TYPE,         /* a ContentInfo of another type than the call reads */
  GOSTX_CMS_RECIPIENT_NOT_FOUND, /* no KeyTransRecipientInfo names the certificate / key */
  GOSTX_CMS_WRONG_KEY,          /* KImp15's MAC fails: another key, or encryptedKey changed */
  GOSTX_CMS_BAD_MAC,            /* the content's OMAC fails: content or attribute changed */
  GOSTX_CMS_ORIGINATOR_NOT_FOUND, /* KARI with a static originator: its certificate not given */
  /* streaming (BER) input */
  GOSTX_CMS_BAD_EOC,            /* an indefinite-length element's end-of-contents is not 00 00 */
  GOSTX_CMS_TOO_DEEP,           /* nested deeper than GOSTX_CMS_STREAM_DEPTH */
  GOSTX_CMS_TOO_LARGE,          /* a header element larger than the streaming work buffer (the
                                   stream result's too_large names it) */
  /* EnvelopedData and EncryptedData name their own parts */
  GOSTX_CMS_TOO_MANY_RECIPIENTS, /* more recipients than GOSTX_CMS_MAX_RECIPIENTS */
  GOSTX_CMS_UNKNOWN_CIPHER,     /* contentEncryptionAlgorithm not built (AES, ...: OID given) */
  GOSTX_CMS_UNKNOWN_KEY_WRAP,   /* a recipient's keyEncryptionAlgorithm not built (OID given) */
  GOSTX_CMS_RECIPIENT_KIND,     /* only recipient kinds not read (KEK, password, other) */
  GOSTX_CMS_KEY_MISMATCH,       /* the key is of another size or curve than the recipient's */
  GOSTX_CMS_BAD_MAC_ATTRIBUTE,  /* -OMAC content: id-cms-mac-attr missing, repeated or malformed */
  GOSTX_CMS_NO_ENCRYPTED_CONTENT, /* encryptedContent absent (the content travels apart) */
  GOSTX_CMS_BAD_CONTENT_TYPE,   /* encryptedContentInfo's contentType is not a CMS content type */
  /* SignedData */
  GOSTX_CMS_BAD_DIGEST_ALGORITHMS /* digestAlgorithms names a digest not built (a mangled OID);
                                     the last status: python/gostx/cms.py mirrors them all */
} gostx_cms_status;

/* The status as text that starts with what failed ("messageDigest: ..."). */
GOSTX_API const char *gostx_cms_status_name(gostx_cms_status st);

/* ---- a parsed SignedData ---- */
#define GOSTX_CMS_MAX_SIGNERS 8
#define GOSTX_CMS_MAX_CERTS 16

/* A signer's identifier (SignerIdentifier) */
#define GOSTX_CMS_SID_ISSUER_SERIAL 1
#define GOSTX_CMS_SID_KEY_ID 2

/* signingCertificateV2's hash algorithm (ess_hash_alg), or SHA1_V1 */
#define GOSTX_CMS_ESS_UNKNOWN 0
#define GOSTX_CMS_ESS_SHA256 1     /* id-sha256, also when absent (the DEFAULT) */
/* signingCertificate (v1, RFC 2634 5.4): ESSCertID, whose hash is SHA-1
 * only; read when there is no signingCertificateV2 (RFC 5816 allows it in
 * time-stamp tokens, and openssl ts writes it unless told otherwise) */
#define GOSTX_CMS_ESS_SHA1_V1 20
#define GOSTX_CMS_ESS_STREEBOG256 32
#define GOSTX_CMS_ESS_STREEBOG512 64

typedef struct gostx_cms_signer_info {
  int version;
  int sid_kind;                       /* GOSTX_CMS_SID_* */
  const uint8_t *sid_issuer, *sid_serial; /* issuer: whole Name; serial: INTEGER content */
  size_t sid_issuer_len, sid_serial_len;
  const uint8_t *sid_key_id;          /* subjectKeyIdentifier */
  size_t sid_key_id_len;
  size_t digest_len;                  /* 32 or 64; 0: unknown (digest_oid) */
  const uint8_t *digest_oid, *sig_oid; /* the OIDs' contents */
  size_t digest_oid_len, sig_oid_len;
  size_t sig_size;                    /* 32 or 64 (key size); 0: unknown (sig_oid) */
  const uint8_t *signed_attrs;        /* the whole [0] element, NULL when absent */
  size_t signed_attrs_len;
  const uint8_t *unsigned_attrs;      /* the whole [1] element, NULL when absent */
  size_t unsigned_attrs_len;
  const uint8_t *signature;           /* s || r as RFC 4490 / gost-engine write it */
  size_t signature_len;
  /* the signed attributes read (pointers NULL when absent) */
  const uint8_t *attr_content_type, *attr_digest; /* OID content; OCTET STRING content */
  size_t attr_content_type_len, attr_digest_len;
  int has_signing_time;
  int64_t signing_time;               /* seconds since 1970 */
  const uint8_t *ess_hash;            /* signingCertificateV2's (or v1's) first certHash */
  size_t ess_hash_len;
  size_t ess_hash_alg;                /* GOSTX_CMS_ESS_* */
  const uint8_t *ess_issuer, *ess_serial; /* its issuerSerial (directoryName), or NULL */
  size_t ess_issuer_len, ess_serial_len;
  gostx_cms_status attr_status;       /* a signed attribute that was malformed, else OK */
} gostx_cms_signer_info;

typedef struct gostx_cms_signed {
  const uint8_t *der;               /* the whole ContentInfo parsed */
  size_t der_len;
  int version;
  const uint8_t *content_type;      /* eContentType's OID content */
  size_t content_type_len;
  const uint8_t *content;           /* eContent, NULL when detached */
  size_t content_len;
  size_t n_signers, n_certs;
  size_t n_certs_skipped;           /* in the set but not GOST X.509 (kept out of certs) */
  const uint8_t *digest_algs;       /* digestAlgorithms' SET content (AlgorithmIdentifiers) */
  size_t digest_algs_len;
  gostx_cms_signer_info signers[GOSTX_CMS_MAX_SIGNERS];
  gostx_x509_cert certs[GOSTX_CMS_MAX_CERTS];
} gostx_cms_signed;

/* Parses a DER ContentInfo holding a SignedData. 0, or GOSTX_EFORMAT with
 * *st (when st is not NULL) naming why. Strict DER: indefinite lengths,
 * BER-constructed strings and trailing bytes are refused. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_signed_parse(const uint8_t *der, size_t der_len,
                                                       gostx_cms_signed *out,
                                                       gostx_cms_status *st);

/* An OID's content bytes (the *_oid fields above) as dotted text into
 * text[cap], cut short with "..." when it does not fit (GOSTX_ELEN). */
GOSTX_API int gostx_cms_oid_text(const uint8_t *oid, size_t len, char *text, size_t cap);

/* The digests the signers need (GOSTX_CMS_HASH_*), for gostx_cms_hash_init. */
GOSTX_API unsigned gostx_cms_signed_hashes(const gostx_cms_signed *sd);

/* The verdict on one message: the first failure, which signer, and the
 * lib/x509 status of a chain that failed. */
typedef struct gostx_cms_verdict {
  gostx_cms_status status;
  size_t signer;                 /* index of the signer it is about */
  gostx_x509_status x509;        /* status CHAIN: what lib/x509 said */
  size_t depth;                  /* status CHAIN: where in the path */
  char oid[64];                  /* status UNKNOWN_ALGORITHM: the OID's dotted text */
  const gostx_x509_cert *signer_cert; /* the last signer's certificate found, or NULL */
} gostx_cms_verdict;

/* Verification options. */
typedef struct gostx_cms_verify_params {
  const gostx_x509_store *store;   /* the trust anchors; NULL: no chain check (NOVERIFY) */
  const gostx_x509_cert *untrusted; /* more certificates to build chains with */
  size_t n_untrusted;
  int64_t now;                     /* the time chains are checked at */
  /* what the signer's chain must allow (openssl cms -purpose); 0, ANY:
   * only the keyUsage check above. Timestamp tokens are checked for
   * their own purpose whatever this says. */
  gostx_x509_purpose purpose;
  /* x509.h's memo of valid signatures, for every signature the checks
   * meet (the signers', the chains', timestamp tokens'); NULL: none */
  gostx_x509_sig_memo *memo;
} gostx_cms_verify_params;

/* Verifies every signer of sd: the content's digest (hash, finished and
 * holding the digests gostx_cms_signed_hashes names; NULL for an attached
 * content, which is then digested here) against messageDigest, the
 * signature over the signed attributes (or over the content when there are
 * none), signingCertificateV2 when present, the signer's certificate
 * (found in sd's certificates or untrusted by issuerAndSerialNumber or
 * subjectKeyIdentifier), its keyUsage and its chain; first, that every
 * digestAlgorithms entry is a digest built (an unknown or mangled OID there:
 * BAD_DIGEST_ALGORITHMS, its dotted text in v->oid, as openssl refuses
 * it). 0 when all pass;
 * GOSTX_EAUTH with *v saying the first failure. GOSTX_EINVAL for misuse. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_signed_verify(const gostx_cms_signed *sd,
                                                        const gostx_cms_hash *hash,
                                                        const gostx_cms_verify_params *params,
                                                        gostx_cms_verdict *v);

/* ---- signing ---- */
typedef struct gostx_cms_signer {
  const gostx_x509_cert *cert;     /* the signer's certificate (its key = key's) */
  const gostx_gost3410_key *key;   /* the private key; its size picks Streebog-256/512 */
} gostx_cms_signer;

#define GOSTX_CMS_ATTACHED 1u        /* the content inside (openssl's -nodetach) */
#define GOSTX_CMS_CADES 2u           /* signingCertificateV2 (CAdES-BES) */
#define GOSTX_CMS_NO_ATTRS 4u        /* no signed attributes: the content signed itself */
#define GOSTX_CMS_NO_SIGNING_TIME 8u /* no signingTime attribute */
#define GOSTX_CMS_NO_CERTS 16u       /* the signers' certificates left out */

typedef struct gostx_cms_sign_params {
  unsigned flags;                  /* GOSTX_CMS_* above */
  int64_t signing_time;            /* seconds since 1970, written as signingTime */
  const gostx_x509_cert *certs;    /* more certificates for the set (a chain), or NULL */
  size_t n_certs;
} gostx_cms_sign_params;

/* A DER ContentInfo with a SignedData into out[cap], *out_len its length.
 * hash: the content's digests (finished, with the sizes the signers' keys
 * need); NULL to digest content here. content: needed when attached or
 * hash is NULL. out NULL: only *out_len is computed (nothing signed).
 * GOSTX_ELEN when cap is short (*out_len what it needs); GOSTX_EINVAL for
 * a key that is not the certificate's, or more than GOSTX_CMS_MAX_SIGNERS. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_sign(const gostx_cms_signer *signers, size_t n_signers,
                                               const gostx_cms_sign_params *params,
                                               const gostx_cms_hash *hash, const uint8_t *content,
                                               size_t content_len, uint8_t *out, size_t cap,
                                               size_t *out_len);

/* ---- content encryption (R 1323565.1.025-2019 section 5) ----
 * CTR-ACPKM with the profile's sections (Kuznyechik 256 KiB, Magma 8 KiB);
 * -OMAC: K_enc || K_mac = KDF_TREE(CEK, "kdf tree", the ukm's last 8
 * bytes), the OMAC of the content under K_mac encrypted by the gamma that
 * follows the content's and carried as the unprotected attribute
 * id-cms-mac-attr (1.2.643.7.1.0.6.1.1). Plain CTR-ACPKM is not
 * authenticated: a changed ciphertext decrypts to changed bytes. */
typedef enum gostx_cms_cipher {
  GOSTX_CMS_CIPHER_UNKNOWN = 0,
  GOSTX_CMS_KUZNYECHIK = 1,      /* kuznyechik-ctr-acpkm, 1.2.643.7.1.1.5.2.1 */
  GOSTX_CMS_MAGMA = 2,           /* magma-ctr-acpkm, 1.2.643.7.1.1.5.1.1 */
  GOSTX_CMS_KUZNYECHIK_OMAC = 3, /* kuznyechik-ctr-acpkm-omac, .5.2.2 */
  GOSTX_CMS_MAGMA_OMAC = 4,      /* magma-ctr-acpkm-omac, .5.1.2 */
  GOSTX_CMS_GOST89 = 5           /* GOST 28147-89 CFB with CryptoPro key meshing,
                                    id-Gost28147-89 1.2.643.2.2.21 (RFC 4490 5.1,
                                    RFC 4357 2.3): not authenticated either */
} gostx_cms_cipher;

/* 1 for the -OMAC ciphers (the content is authenticated), else 0. */
GOSTX_API int gostx_cms_cipher_has_mac(gostx_cms_cipher c);

/* EncryptedContentInfo and the unprotected attribute it may need. */
typedef struct gostx_cms_encrypted_content {
  const uint8_t *content_type, *alg_oid; /* OID contents */
  size_t content_type_len, alg_oid_len;
  gostx_cms_cipher cipher;         /* UNKNOWN: alg_oid names it */
  const uint8_t *ukm;              /* the IV's n/2 bytes || KDF_TREE's 8-byte seed;
                                      GOST89: the 8-byte IV */
  size_t ukm_len;
  const uint8_t *ciphertext;       /* encryptedContent */
  size_t ciphertext_len;
  const uint8_t *mac;              /* the encrypted OMAC (id-cms-mac-attr), NULL when absent */
  size_t mac_len;
  int sbox;                        /* GOST89: the encryptionParamSet's S-boxes (gostx_sbox) */
} gostx_cms_encrypted_content;

/* ---- EnvelopedData with KeyTransRecipientInfo (KeyTransport2019) ----
 * Per recipient: an ephemeral key on the recipient's curve, KEG(ephemeral
 * d, recipient Q, a random 32-byte ukm) = K_mac || K_enc, and the
 * content-encryption key exported by KExp15 (IV: ukm[24..24+n/2)) with
 * the wrap cipher of keyEncryptionAlgorithm (kuznyechik-kexp15
 * 1.2.643.7.1.1.7.2.1 or magma-kexp15 .7.1.1). */
#define GOSTX_CMS_MAX_RECIPIENTS 8

/* originator_kind of a KeyAgreeRecipientInfo: GOSTX_CMS_SID_* (a static
 * originator's certificate named) or its public key in the message */
#define GOSTX_CMS_ORIGINATOR_KEY 3

typedef struct gostx_cms_recipient {
  int kari;                           /* 0: KeyTransRecipientInfo; 1: KeyAgreeRecipientInfo */
  int version;
  int rid_kind;                       /* GOSTX_CMS_SID_* */
  const uint8_t *rid_issuer, *rid_serial, *rid_key_id;
  size_t rid_issuer_len, rid_serial_len, rid_key_id_len;
  const uint8_t *kea_oid;             /* keyEncryptionAlgorithm's OID content (an RFC 4490
                                         KARI's unknown key wrap or param set: that OID) */
  size_t kea_oid_len;
  gostx_alg wrap_alg;                 /* KExp15's cipher (MAGMA for RFC 4490's GOST
                                         28147-89 wrap); 0: unknown (kea_oid) */
  int rfc4490;                        /* RFC 4490's: a KTRI's GostR3410-KeyTransport (VKO
                                         with an 8-byte ukm + CryptoPro key wrap), a KARI's
                                         VKO + Gost28147-89-EncryptedKey (section 5.2) */
  size_t key_len;                     /* 32 or 64 (the agreement's key size); 0 unknown */
  const uint8_t *encrypted_key;       /* KTRI: GostR3410-KeyTransport; KARI: KExp15's output */
  size_t encrypted_key_len;
  /* KARI: the originator (static: its identifier; ephemeral: the
   * OriginatorPublicKey's content, algorithm and BIT STRING) and the ukm */
  int originator_kind;                /* GOSTX_CMS_SID_* or GOSTX_CMS_ORIGINATOR_KEY */
  const uint8_t *orig_issuer, *orig_serial, *orig_key_id, *orig_key;
  size_t orig_issuer_len, orig_serial_len, orig_key_id_len, orig_key_len;
  const uint8_t *ukm;
  size_t ukm_len;
  /* KARI of RFC 4490 (rfc4490 set): keyEncryptionAlgorithm's KeyWrapAlgorithm */
  int wrap_cryptopro;                 /* 1: CryptoPro key wrap (1.2.643.2.2.13.1); 0: the
                                         GOST 28147-89 key wrap (.13.0) */
  int wrap_sbox;                      /* its encryptionParamSet's S-boxes (gostx_sbox) */
} gostx_cms_recipient;

typedef struct gostx_cms_enveloped {
  const uint8_t *der;
  size_t der_len;
  int version;
  size_t n_recipients;                /* KTRIs, and one per RecipientEncryptedKey of a KARI */
  size_t n_other_recipients;          /* other kinds (KEK, password, other): counted, not read */
  gostx_cms_recipient recipients[GOSTX_CMS_MAX_RECIPIENTS];
  gostx_cms_encrypted_content content;
} gostx_cms_enveloped;

/* Parses a DER ContentInfo holding an EnvelopedData: 0, or GOSTX_EFORMAT
 * with *st saying why (strict DER, as gostx_cms_signed_parse). */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_enveloped_parse(const uint8_t *der, size_t der_len,
                                                          gostx_cms_enveloped *out,
                                                          gostx_cms_status *st);

/* Decrypts env's content for the recipient cert names (by
 * issuerAndSerialNumber or subjectKeyIdentifier), whose private key is key,
 * into out[cap] (the content is exactly ciphertext_len bytes; out NULL:
 * only *out_len). A KeyAgreeRecipientInfo (R 1323565.1.025-2019: KEG(our
 * d, the originator's Q, ukm), then KImp15) with a static originator needs
 * its certificate (originator; NULL otherwise). 0; GOSTX_EAUTH with *st
 * RECIPIENT_NOT_FOUND, ORIGINATOR_NOT_FOUND, WRONG_KEY or BAD_MAC (out
 * wiped); GOSTX_EFORMAT with *st UNKNOWN_ALGORITHM or ALGORITHM_MISMATCH;
 * GOSTX_ELEN when cap is short; GOSTX_EINVAL misuse. cert NULL (openssl cms
 * -decrypt with -inkey alone): every recipient of key's size is tried, all
 * of them, the first that opens decrypting; none: RECIPIENT_NOT_FOUND (or
 * ORIGINATOR_NOT_FOUND when a static originator's certificate was needed). */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_enveloped_decrypt(const gostx_cms_enveloped *env,
                                                            const gostx_x509_cert *cert,
                                                            const gostx_gost3410_key *key,
                                                            const gostx_x509_cert *originator,
                                                            uint8_t *out, size_t cap,
                                                            size_t *out_len, gostx_cms_status *st);

/* A DER ContentInfo with an EnvelopedData of content[len] for each of
 * recipients[n] (GOST R 34.10-2012 256 or 512 keys; issuerAndSerialNumber)
 * into out[cap]; out NULL: only *out_len (nothing random drawn).
 * GOSTX_ELEN when cap is short; GOSTX_EINVAL for a certificate of another
 * key, n out of 1..GOSTX_CMS_MAX_RECIPIENTS or an unknown cipher. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_encrypt(const gostx_x509_cert *recipients, size_t n,
                                                  gostx_cms_cipher cipher, const uint8_t *content,
                                                  size_t len, uint8_t *out, size_t cap,
                                                  size_t *out_len);

/* The recipients' kind and names (gostx_cms_encrypt_with). */
typedef struct gostx_cms_encrypt_params {
  gostx_cms_cipher cipher;
  int kari;   /* 1: a KeyAgreeRecipientInfo per recipient (an ephemeral originator key
                 in the message, R 1323565.1.025-2019's KEG + KExp15) instead of a
                 KeyTransRecipientInfo */
  int key_id; /* 1: recipients named by subjectKeyIdentifier (openssl cms -keyid);
                 0: by issuerAndSerialNumber */
  /* With kari: a STATIC originator (R 1323565.1.025-2019 A.2.2) instead of
   * the ephemeral key: KEG with this private key, its certificate named in
   * originator [0] (by subjectKeyIdentifier where key_id, else issuer and
   * serial). Both or neither; the key the certificate's, on every
   * recipient's curve. */
  const gostx_x509_cert *originator;
  const gostx_gost3410_key *originator_key;
} gostx_cms_encrypt_params;

/* gostx_cms_encrypt with the recipients' kind and names chosen. GOSTX_EINVAL
 * also for key_id with a certificate that has no subjectKeyIdentifier. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_encrypt_with(const gostx_x509_cert *recipients, size_t n,
                                                       const gostx_cms_encrypt_params *params,
                                                       const uint8_t *content, size_t len,
                                                       uint8_t *out, size_t cap, size_t *out_len);

/* ---- EncryptedData (RFC 5652 section 8): the key is the caller's ---- */
typedef struct gostx_cms_encrypted {
  const uint8_t *der;
  size_t der_len;
  int version;
  gostx_cms_encrypted_content content;
} gostx_cms_encrypted;

GOSTX_API GOSTX_MUST_CHECK int gostx_cms_encrypted_parse(const uint8_t *der, size_t der_len,
                                                          gostx_cms_encrypted *out,
                                                          gostx_cms_status *st);
/* key: the 32-byte content-encryption key. Results as
 * gostx_cms_enveloped_decrypt (a wrong key of an -OMAC content: BAD_MAC;
 * of a plain one: wrong bytes, as nothing authenticates them). */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_encrypted_decrypt(const gostx_cms_encrypted *ed,
                                                            const uint8_t key[32], uint8_t *out,
                                                            size_t cap, size_t *out_len,
                                                            gostx_cms_status *st);
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_encrypted_encrypt(const uint8_t key[32],
                                                            gostx_cms_cipher cipher,
                                                            const uint8_t *content, size_t len,
                                                            uint8_t *out, size_t cap,
                                                            size_t *out_len);

/* ---- DigestedData (RFC 5652 section 7), Streebog-256 or -512 ---- */
typedef struct gostx_cms_digested {
  const uint8_t *der;
  size_t der_len;
  int version;
  const uint8_t *digest_oid, *content_type; /* OID contents */
  size_t digest_oid_len, content_type_len;
  size_t digest_len;                  /* 32 or 64; 0: unknown (digest_oid) */
  const uint8_t *content, *digest;
  size_t content_len, stored_digest_len;
} gostx_cms_digested;

GOSTX_API GOSTX_MUST_CHECK int gostx_cms_digested_parse(const uint8_t *der, size_t der_len,
                                                         gostx_cms_digested *out,
                                                         gostx_cms_status *st);
/* 0 when the digest is the content's; GOSTX_EAUTH with *st
 * DIGEST_MISMATCH, or UNKNOWN_ALGORITHM for a digest not built. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_digested_verify(const gostx_cms_digested *dd,
                                                          gostx_cms_status *st);
/* digest_len 32 or 64; out NULL: only *out_len. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_digest_create(size_t digest_len, const uint8_t *content,
                                                        size_t len, uint8_t *out, size_t cap,
                                                        size_t *out_len);

/* ---- streaming: a message of any size in constant memory ----
 * The input is read through read (*got 0 at its end) as BER or DER:
 * definite or indefinite lengths on the outer structures (ContentInfo, the
 * content type's SEQUENCE, EncryptedContentInfo) and the content's OCTET
 * STRING primitive or constructed of primitive segments, as openssl cms
 * -stream writes; every element inside (recipientInfos, algorithm
 * identifiers, attributes) DER and read whole into the work buffer. */
typedef int (*gostx_cms_read_fn)(void *ctx, uint8_t *buf, size_t cap, size_t *got);
typedef int (*gostx_cms_write_fn)(void *ctx, const uint8_t *buf, size_t len);
#define GOSTX_CMS_STREAM_DEPTH 16 /* open elements at once */
#define GOSTX_CMS_STREAM_WORK (160u * 1024) /* the work buffer a call needs at least */

typedef struct gostx_cms_decrypt_params {
  /* EnvelopedData: the recipient (as gostx_cms_enveloped_decrypt; cert
   * NULL: by key alone, every recipient of key's size tried) */
  const gostx_x509_cert *cert, *originator;
  const gostx_gost3410_key *key;
  /* EncryptedData instead: its 32-byte key (cert, key unused) */
  const uint8_t *secret_key;
  uint8_t *work; /* GOSTX_CMS_STREAM_WORK bytes or more: input window and header */
  size_t work_len;
} gostx_cms_decrypt_params;

typedef struct gostx_cms_stream_result {
  gostx_cms_status status;
  gostx_cms_cipher cipher;  /* the content's; gostx_cms_cipher_has_mac: authenticated */
  const uint8_t *oid;       /* UNKNOWN_CIPHER, UNKNOWN_KEY_WRAP: the OID's content (in work) */
  size_t oid_len;
  uint64_t content_len;     /* bytes given to write */
  size_t n_recipients;      /* EnvelopedData: its RecipientInfos, of every kind */
  const char *too_large;    /* GOSTX_CMS_TOO_LARGE: the element that did not fit in the work
                               buffer ("recipientInfos", "originatorInfo", ...); NULL otherwise */
} gostx_cms_stream_result;

/* Decrypts the EnvelopedData (or, with secret_key, EncryptedData) read
 * through read, giving the content to write in chunks AS IT IS DECRYPTED:
 * before the message's end has been read and, for -OMAC content, before
 * its MAC is checked. Only a return of 0 says the content is whole and
 * (with a MAC) authentic; otherwise what write was given must be
 * discarded (gostx cms -decrypt writes a temporary file, renamed only
 * then). 0; GOSTX_EFORMAT / GOSTX_EAUTH with res->status as the one-shot
 * calls name it, or TRUNCATED, TRAILING_DATA, BAD_EOC, TOO_DEEP,
 * TOO_LARGE; read's or write's own error as it is; GOSTX_EINVAL misuse. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_decrypt_stream(const gostx_cms_decrypt_params *p,
                                                         gostx_cms_read_fn read, void *read_ctx,
                                                         gostx_cms_write_fn write,
                                                         void *write_ctx,
                                                         gostx_cms_stream_result *res);

/* Encrypts the content read through read into an EnvelopedData for
 * recipients[n] (the RecipientInfos of gostx_cms_encrypt_with: KTRI or
 * KARI, by issuer and serial or key id; RFC 4490's for GOSTX_CMS_GOST89)
 * or, with secret_key, an EncryptedData, given to write as it is made.
 * content_len known: DER (the content must then be exactly that long, else
 * GOSTX_ELEN); or GOSTX_CMS_LEN_UNKNOWN (a pipe): BER as openssl cms
 * -stream writes it, indefinite lengths and the content in OCTET STRING
 * segments of the work buffer's window. 0; read's or write's error;
 * GOSTX_EINVAL misuse (and what gostx_cms_encrypt_with refuses). */
#define GOSTX_CMS_LEN_UNKNOWN UINT64_MAX
typedef struct gostx_cms_encrypt_stream_params {
  const gostx_x509_cert *recipients; /* EnvelopedData */
  size_t n_recipients;
  const uint8_t *secret_key;         /* EncryptedData instead (32 bytes) */
  gostx_cms_cipher cipher;
  int kari, key_id;                  /* as gostx_cms_encrypt_params' (EnvelopedData) */
  uint64_t content_len;              /* or GOSTX_CMS_LEN_UNKNOWN */
  uint8_t *work;                     /* GOSTX_CMS_STREAM_WORK bytes or more */
  size_t work_len;
  /* a static originator, as gostx_cms_encrypt_params' */
  const gostx_x509_cert *originator;
  const gostx_gost3410_key *originator_key;
} gostx_cms_encrypt_stream_params;
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_encrypt_stream(const gostx_cms_encrypt_stream_params *p,
                                                         gostx_cms_read_fn read, void *read_ctx,
                                                         gostx_cms_write_fn write,
                                                         void *write_ctx);

/* Reads a SignedData through read, BER or DER, its attached content given
 * to write (NULL: dropped) while it is digested with the digests its
 * digestAlgorithms name (RFC 5652 5.1: listed for one-pass processing),
 * and the message without its content rebuilt in work as DER (res->der),
 * for gostx_cms_signed_parse and gostx_cms_signed_verify with res->hash
 * (when res->hashed) as for a detached signature. Nothing is verified
 * here: what write was given must be discarded unless the verification
 * then passes. 0 (res->attached says whether there was a content);
 * GOSTX_EFORMAT with res->status; read's or write's error. */
typedef struct gostx_cms_signed_stream_result {
  gostx_cms_status status;
  int attached, hashed;
  gostx_cms_hash hash;
  uint64_t content_len;
  const uint8_t *der; /* in work */
  size_t der_len;
  /* GOSTX_CMS_TOO_LARGE: the element that did not fit in the work buffer
   * ("certificates", "signerInfos: a SignerInfo's signedAttrs", ...);
   * NULL otherwise */
  const char *too_large;
} gostx_cms_signed_stream_result;
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_signed_stream(uint8_t *work, size_t work_len,
                                                        gostx_cms_read_fn read, void *read_ctx,
                                                        gostx_cms_write_fn write, void *write_ctx,
                                                        gostx_cms_signed_stream_result *res);

/* Signs the content read through read (once, in the caller's chunks of
 * up to 64 KiB, digested on the way) as gostx_cms_sign would, the message
 * given to write: detached, written whole at the end; attached
 * (GOSTX_CMS_ATTACHED in sign's flags), written as the content goes by:
 * content_len known, DER (the content must then be exactly that long,
 * else GOSTX_ELEN); GOSTX_CMS_LEN_UNKNOWN (a pipe), BER with indefinite
 * lengths around the content's OCTET STRING segments, one per read (as
 * openssl cms -sign -stream writes). work: 64 KiB more than the detached
 * message takes (gostx_cms_sign with out NULL); when short, GOSTX_ELEN
 * before anything is read, res->work_needed saying what it takes.
 * res->der: the message as a detached one, in work (its SignerInfos for a
 * timestamp request). 0; read's or write's error; GOSTX_EINVAL misuse (and
 * what gostx_cms_sign refuses). On an error what write was given must be
 * discarded. */
typedef struct gostx_cms_sign_stream_params {
  const gostx_cms_signer *signers;
  size_t n_signers;
  const gostx_cms_sign_params *sign; /* NULL: defaults (detached) */
  uint64_t content_len;              /* attached: or GOSTX_CMS_LEN_UNKNOWN */
  uint8_t *work;
  size_t work_len;
} gostx_cms_sign_stream_params;
typedef struct gostx_cms_sign_stream_result {
  uint64_t content_len; /* bytes read */
  const uint8_t *der;   /* in work */
  size_t der_len, work_needed;
} gostx_cms_sign_stream_result;
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_sign_stream(const gostx_cms_sign_stream_params *p,
                                                      gostx_cms_read_fn read, void *read_ctx,
                                                      gostx_cms_write_fn write, void *write_ctx,
                                                      gostx_cms_sign_stream_result *res);

/* ---- PEM ----
 * The first "CMS" or "PKCS7" block (openssl cms writes the first, GnuTLS
 * and openssl smime the second) of text[len] as DER into der[cap]:
 * 0, GOSTX_EFORMAT (no such block, malformed, larger than cap). */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_pem_read(const char *text, size_t len, uint8_t *der,
                                                   size_t cap, size_t *der_len);
/* DER as a "CMS" PEM block, NUL-terminated; *out_len (without the NUL)
 * also when out is NULL or cap short (GOSTX_ELEN). */
GOSTX_API int gostx_cms_pem_write(const uint8_t *der, size_t der_len, char *out, size_t cap,
                                  size_t *out_len);

/* The earlier names of gostx/base64.h's calls and decoder, kept as
 * aliases: each call is the same call there, one line. */
typedef gostx_base64 gostx_cms_base64;
GOSTX_API size_t gostx_cms_base64_encode(const uint8_t *in, size_t n, char *out);
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_base64_decode(gostx_cms_base64 *d, const char *s, size_t n,
                                                        uint8_t *out, size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif
