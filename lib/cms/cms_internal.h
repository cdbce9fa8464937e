/* lib/cms internals shared by its files: the OIDs (their DER content
 * bytes, as lib/x509 keeps its own) and the helpers that parsing, signing
 * and verifying share. */
#ifndef GOSTX_CMS_INTERNAL_H
#define GOSTX_CMS_INTERNAL_H

#include "asn1/der.h"
#include "gostx/cms.h"
#include "gostx/cms_ts.h"
#include "gostx/gost89.h"

/* content types (RFC 5652 section 4, 5.1) */
#define OID_DATA "\x2a\x86\x48\x86\xf7\x0d\x01\x07\x01"        /* 1.2.840.113549.1.7.1 */
#define OID_DATA_TEXT "1.2.840.113549.1.7.1" /* the same, for the DER writer's dotted form */
#define OID_SIGNED_DATA "\x2a\x86\x48\x86\xf7\x0d\x01\x07\x02" /* 1.2.840.113549.1.7.2 */
#define OID_DIGESTED_DATA "\x2a\x86\x48\x86\xf7\x0d\x01\x07\x05" /* 1.2.840.113549.1.7.5 */
#define OID_ENCRYPTED_DATA "\x2a\x86\x48\x86\xf7\x0d\x01\x07\x06" /* 1.2.840.113549.1.7.6 */
#define OID_ENVELOPED_DATA "\x2a\x86\x48\x86\xf7\x0d\x01\x07\x03" /* 1.2.840.113549.1.7.3 */
/* R 1323565.1.025-2019: content encryption, its MAC attribute, KExp15
 * key wrap and the KEG agreement it names */
#define OID_KUZ_CTR_ACPKM "\x2a\x85\x03\x07\x01\x01\x05\x02\x01"      /* 1.2.643.7.1.1.5.2.1 */
#define OID_KUZ_CTR_ACPKM_OMAC "\x2a\x85\x03\x07\x01\x01\x05\x02\x02" /* 1.2.643.7.1.1.5.2.2 */
#define OID_MAGMA_CTR_ACPKM "\x2a\x85\x03\x07\x01\x01\x05\x01\x01"    /* 1.2.643.7.1.1.5.1.1 */
#define OID_MAGMA_CTR_ACPKM_OMAC "\x2a\x85\x03\x07\x01\x01\x05\x01\x02" /* 1.2.643.7.1.1.5.1.2 */
#define OID_ATTR_CMS_MAC "\x2a\x85\x03\x07\x01\x00\x06\x01\x01"       /* 1.2.643.7.1.0.6.1.1 */
#define OID_KUZ_KEXP15 "\x2a\x85\x03\x07\x01\x01\x07\x02\x01"         /* 1.2.643.7.1.1.7.2.1 */
#define OID_MAGMA_KEXP15 "\x2a\x85\x03\x07\x01\x01\x07\x01\x01"       /* 1.2.643.7.1.1.7.1.1 */
#define OID_AGREEMENT_256 "\x2a\x85\x03\x07\x01\x01\x06\x01"           /* 1.2.643.7.1.1.6.1 */
#define OID_GOST89 "\x2a\x85\x03\x02\x02\x15"                       /* 1.2.643.2.2.21 */
#define OID_AGREEMENT_512 "\x2a\x85\x03\x07\x01\x01\x06\x02"           /* 1.2.643.7.1.1.6.2 */
/* attributes (RFC 5652 section 11, RFC 5035 section 5.4) */
#define OID_ATTR_CONTENT_TYPE "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x03"   /* 1.2.840.113549.1.9.3 */
#define OID_ATTR_DIGEST "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x04"         /* 1.2.840.113549.1.9.4 */
#define OID_ATTR_SIGNING_TIME "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x05"   /* 1.2.840.113549.1.9.5 */
#define OID_ATTR_SIGNING_CERT "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x10\x02\x0c" /* 1.2.840.113549.1.9.16.2.12 */
#define OID_ATTR_SIGNING_CERT_V2 "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x10\x02\x2f" /* 1.2.840.113549.1.9.16.2.47 */
/* Streebog (RFC 6986 in CMS: R 1323565.1.024-2019) */
#define OID_STREEBOG_256 "\x2a\x85\x03\x07\x01\x01\x02\x02" /* 1.2.643.7.1.1.2.2 */
#define OID_STREEBOG_512 "\x2a\x85\x03\x07\x01\x01\x02\x03" /* 1.2.643.7.1.1.2.3 */
#define OID_SHA256 "\x60\x86\x48\x01\x65\x03\x04\x02\x01" /* 2.16.840.1.101.3.4.2.1 */
/* signatures: the key's OID (what gost-engine writes in a SignerInfo) or
 * signwithdigest (what GnuTLS writes) */
#define OID_KEY_2012_256 "\x2a\x85\x03\x07\x01\x01\x01\x01" /* 1.2.643.7.1.1.1.1 */
#define OID_KEY_2012_512 "\x2a\x85\x03\x07\x01\x01\x01\x02" /* 1.2.643.7.1.1.1.2 */
#define OID_SIG_2012_256 "\x2a\x85\x03\x07\x01\x01\x03\x02" /* 1.2.643.7.1.1.3.2 */
#define OID_SIG_2012_512 "\x2a\x85\x03\x07\x01\x01\x03\x03" /* 1.2.643.7.1.1.3.3 */

/* The digest size an AlgorithmIdentifier's OID names: 32, 64, 0 unknown. */
size_t gostx__cms_digest_size(gostx__der oid);
/* The key size a signature AlgorithmIdentifier's OID names: 32, 64, 0. */
size_t gostx__cms_sig_size(gostx__der oid);
/* An AlgorithmIdentifier: its OID; parameters absent or NULL (RFC 9215
 * says absent, gost-engine writes NULL). */
int gostx__cms_alg_id(gostx__der *r, gostx__der *oid);

/* The signed attributes as the signature covers them: their [0] element
 * with the tag of a SET OF (RFC 5652 section 5.4), digested. */
int gostx__cms_attrs_digest(const uint8_t *attrs, size_t len, size_t digest_len, uint8_t *digest);

/* cert's subjectKeyIdentifier (the key id's bytes): 1 found, 0 none. */
int gostx__cms_cert_key_id(const gostx_x509_cert *cert, const uint8_t **id, size_t *len);

/* What every reader of a ContentInfo type shares (gostx_cms_signed_parse,
 * _enveloped_, _encrypted_, _digested_): st may be NULL; *st MALFORMED, a
 * NULL der or out refused (GOSTX_EINVAL), out's first clear bytes zeroed,
 * the ContentInfo opened around the content (GOSTX_EFORMAT with *st
 * TRUNCATED, WRONG_TYPE (or NOT_SIGNED_DATA) or MALFORMED), the content's
 * SEQUENCE for type_oid handed to read (nonzero: GOSTX_EFORMAT, *st as read
 * left it), bytes after the ContentInfo refused (TRAILING_DATA), else *st
 * OK and 0. */
typedef int (*gostx__cms_content_reader)(gostx__der *content, void *out, gostx_cms_status *st);
int gostx__cms_parse(const uint8_t *der, size_t der_len, void *out, size_t clear,
                     const char *type_oid, size_t type_len, gostx__cms_content_reader read,
                     gostx_cms_status *st);
/* A writer into out[cap] (counting when out is NULL) with a ContentInfo
 * of type (dotted) opened down to its content's SEQUENCE, and the
 * closing of those three elements. */
void gostx__cms_w_open(gostx__der_w *w, uint8_t *out, size_t cap, const char *type);
void gostx__cms_w_close(gostx__der_w *w);
/* A SignerIdentifier or RecipientIdentifier: issuerAndSerialNumber or
 * [0] subjectKeyIdentifier (RFC 5652 sections 5.3, 6.2.1). */
typedef struct gostx__cms_id {
  int kind; /* GOSTX_CMS_SID_* */
  gostx__der issuer, serial, key_id;
} gostx__cms_id;
int gostx__cms_read_id(gostx__der *r, gostx__cms_id *id);
/* 1 when cert is the one id names. */
int gostx__cms_cert_is(const gostx_x509_cert *cert, const gostx__cms_id *id);
/* issuerAndSerialNumber of cert. */
void gostx__cms_write_ias(gostx__der_w *w, const gostx_x509_cert *cert);

/* gostx_cms_sign with eContentType (and the contentType attribute) the
 * dotted OID type instead of id-data: a TSA's token signs a TSTInfo. */
int gostx__cms_sign_typed(const gostx_cms_signer *signers, size_t n_signers,
                          const gostx_cms_sign_params *params, const char *type,
                          const gostx_cms_hash *hash, const uint8_t *content, size_t content_len,
                          uint8_t *out, size_t cap, size_t *out_len);

/* SignedData's writer in parts (signed_write.c), for gostx_cms_sign and
 * the streaming signer: the fields before encapContentInfo (version,
 * digestAlgorithms; the version by eContentType type), those after it (certificates, signerInfos over h's
 * digests; count: their length only, nothing signed), the arguments'
 * check, the digests the signers need, the default parameters. */
void gostx__cms_signed_head(gostx__der_w *w, const gostx_cms_signer *signers, size_t ns,
                            const char *type);
int gostx__cms_signed_tail(gostx__der_w *w, const gostx_cms_signer *signers, size_t ns,
                           const gostx_cms_sign_params *p, const char *type,
                           const gostx_cms_hash *h, int count);
int gostx__cms_sign_args_ok(const gostx_cms_signer *signers, size_t n_signers,
                            const gostx_cms_sign_params *p);
unsigned gostx__cms_signers_want(const gostx_cms_signer *signers, size_t ns);
extern const gostx_cms_sign_params gostx__cms_sign_defaults;

/* EncryptedContentInfo (RFC 5652 section 6.1) and the unprotectedAttrs
 * that may follow it, read from r. */
int gostx__cms_read_encrypted_content(gostx__der *r, gostx_cms_encrypted_content *ec,
                                      gostx_cms_status *st);
/* EncryptedContentInfo for content[len] as it is (a fresh ukm unless
 * count), and the [1] id-cms-mac-attr with a zero MAC for a -OMAC
 * cipher; gostx__cms_seal then encrypts both in place in the finished
 * message out, whose parsed EncryptedContentInfo ec points into it. */
int gostx__cms_write_encrypted_content(gostx__der_w *w, gostx_cms_cipher cipher,
                                       const uint8_t *content, size_t len, int count);
void gostx__cms_write_mac_attr(gostx__der_w *w, gostx_cms_cipher cipher);
/* Streaming's pieces of the same: EncryptedContentInfo's contentType and
 * algorithm with a fresh ukm (zeros when count); the [1] attribute with
 * the encrypted MAC mac (nothing without one). */
int gostx__cms_write_content_alg(gostx__der_w *w, gostx_cms_cipher cipher, int count);
void gostx__cms_write_mac_value(gostx__der_w *w, gostx_cms_cipher cipher, const uint8_t *mac);
int gostx__cms_seal(uint8_t *out, const gostx_cms_encrypted_content *ec, const uint8_t cek[32]);
/* Parts of the reading that streaming shares: the content algorithm
 * (its parameters checked), the unprotectedAttrs SET's content, and the
 * -OMAC cipher's MAC attribute present and of the block's size. */
int gostx__cms_content_alg(gostx__der *r, gostx_cms_encrypted_content *ec);
int gostx__cms_unprotected_attrs(gostx__der set, gostx_cms_encrypted_content *ec, gostx_cms_status *st);
/* 1 when oid (an encryptedContentInfo's contentType) is a CMS content type. */
int gostx__cms_content_type_ok(gostx__der oid);
int gostx__cms_check_mac_attr(const gostx_cms_encrypted_content *ec, gostx_cms_status *st);

/* Decryption of ec's content in chunks under cek (ec's cipher known):
 * update any split of the ciphertext (in == out allowed), then final with
 * the encrypted MAC (-OMAC; else ignored): 0 or GOSTX_EAUTH, *st BAD_MAC.
 * final and clear wipe the keys. */
typedef struct gostx__cms_opener {
  gostx_cipher enc, mac;
  gostx_mode_ctx ctr;
  gostx_gost89_ctx cfb; /* GOSTX_CMS_GOST89 instead of enc and ctr */
  gostx_omac_ctx omac;
  gostx_cms_cipher cipher;
  int has_mac;
} gostx__cms_opener;
int gostx__cms_opener_init(gostx__cms_opener *o, const gostx_cms_encrypted_content *ec,
                           const uint8_t cek[32]);
int gostx__cms_opener_update(gostx__cms_opener *o, const uint8_t *in, size_t len, uint8_t *out);
int gostx__cms_opener_final(gostx__cms_opener *o, const uint8_t *mac, gostx_cms_status *st);
void gostx__cms_opener_clear(gostx__cms_opener *o);
/* The same context encrypting (init: CFB runs the other way): update (OMAC of the content, then the
 * gamma), final: the encrypted OMAC into mac (-OMAC ciphers). */
int gostx__cms_sealer_init(gostx__cms_opener *o, const gostx_cms_encrypted_content *ec,
                           const uint8_t cek[32]);
int gostx__cms_sealer_update(gostx__cms_opener *o, const uint8_t *in, size_t len, uint8_t *out);
int gostx__cms_sealer_final(gostx__cms_opener *o, uint8_t mac[16]);

/* EnvelopedData's fields before its EncryptedContentInfo (version,
 * originatorInfo, recipientInfos), read from ed; and the CEK that key
 * unwraps from env: from the recipient cert names, or (cert NULL) from
 * whichever recipient opens, all tried (gostx_cms_enveloped_decrypt's
 * first half, its checks made the same way). */
int gostx__cms_enveloped_head(gostx__der *ed, gostx_cms_enveloped *env, gostx_cms_status *st);
int gostx__cms_enveloped_cek(const gostx_cms_enveloped *env, const gostx_x509_cert *cert,
                             const gostx_gost3410_key *key, const gostx_x509_cert *originator,
                             uint8_t cek[32], gostx_cms_status *st);

/* Decrypts ec under cek into out[cap] (size query when out is NULL). */
int gostx__cms_open(const gostx_cms_encrypted_content *ec, const uint8_t cek[32], uint8_t *out,
                    size_t cap, size_t *out_len, gostx_cms_status *st);

/* RFC 4490 / RFC 4357: GOST 28147-89 CFB content (content89.c), its
 * KeyTransRecipientInfo (keytrans89.c) and KeyAgreeRecipientInfo (read:
 * keyagree89.c). */
/* The gostx_sbox of a 28147-89 encryptionParamSet OID, -1 unknown. */
int gostx__cms89_sbox(gostx__der oid);
/* Gost28147-89-Parameters after id-Gost28147-89 in alg, into ec. */
int gostx__cms89_read_params(gostx__der *alg, gostx_cms_encrypted_content *ec);
/* id-Gost28147-89's AlgorithmIdentifier with a fresh IV (zero if count). */
int gostx__cms89_write_alg(gostx__der_w *w, int count);
/* ctx set for CFB with key meshing under cek and ec's IV and S-box, for
 * content in chunks of any size (the ctx carries the partial block). */
int gostx__cms89_init(gostx_gost89_ctx *ctx, const gostx_cms_encrypted_content *ec,
                      const uint8_t cek[32], int decrypt);
/* CFB with key meshing of ec's ciphertext_len bytes in into out. */
int gostx__cms89_crypt(const gostx_cms_encrypted_content *ec, const uint8_t cek[32],
                       const uint8_t *in, uint8_t *out, int decrypt);
/* 1 when keyEncryptionAlgorithm's OID is a 2012 key's (RFC 4490's
 * transport), ri marked so; 0 otherwise. */
int gostx__cms89_key_alg(gostx__der oid, gostx_cms_recipient *ri);
/* The CEK of an RFC 4490 KTRI for our key; *st names a refusal. */
int gostx__cms89_unwrap(const gostx_cms_recipient *ri, const gostx_gost3410_key *key, uint8_t cek[32],
                        gostx_cms_status *st);
/* A KARI's keyEncryptionAlgorithm (keyagree89.c): oid and the parameters
 * after it (params); 0 not RFC 4490's, 1 read into ri (wrap_alg unknown
 * where the agreement, wrap or param set is not built, kea_oid then naming
 * it), -1 malformed. */
int gostx__cms89_kari_alg(gostx__der oid, gostx__der params, gostx_cms_recipient *ri);
/* The CEK of such a KARI's recipient ri for our key and the originator's
 * public key peer; *st names a refusal. */
int gostx__cms89_kari_unwrap(const gostx_cms_recipient *ri, const gostx_gost3410_key *key,
                             const gostx_gost3410_key *peer, uint8_t cek[32], gostx_cms_status *st);
/* An RFC 4490 KTRI for c carrying cek (count: sizes only). */
int gostx__cms89_write_ktri(gostx__der_w *w, const gostx_x509_cert *c, const uint8_t cek[32],
                            int count);

/* ---- EnvelopedData's sender (lib/cms/recipient_write.c) ---- */
#define GOSTX__CMS_UKM_LEN 32
/* K_mac || K_enc = KEG(d, Q, ukm) as the KExp15 wrap cipher's two keys. */
int gostx__cms_kexp_keys(gostx_alg alg, const gostx_gost3410_key *key, const uint8_t *q,
                         const uint8_t ukm[GOSTX__CMS_UKM_LEN], gostx_cipher *mac,
                         gostx_cipher *enc);
/* What a sender draws at random: the CEK and, per recipient, the
 * ephemeral key pair (d and Q = d P, the recipient's curve's sizes) and
 * the ukm. Drawn apart from their use so that the constant-time gate
 * (tests/ct) can hand the secrets in marked and Q as the public value it
 * is (it is written in the message). */
typedef struct gostx__cms_sender_draw {
  uint8_t cek[32];
  uint8_t eph_d[GOSTX_CMS_MAX_RECIPIENTS][64];
  uint8_t eph_q[GOSTX_CMS_MAX_RECIPIENTS][128];
  uint8_t ukm[GOSTX_CMS_MAX_RECIPIENTS][GOSTX__CMS_UKM_LEN];
  /* a static originator that is an external key (its d is on a token):
   * its callbacks agree in eph_d's place, eph_q still its Q */
  const gostx_gost3410_key *external;
} gostx__cms_sender_draw;
/* With a static originator (p->originator_key) its d and Q stand in for
 * every recipient's ephemeral pair: one code path, one secret to mark. */
int gostx__cms_draw(const gostx_x509_cert *recipients, size_t n, const gostx_cms_encrypt_params *p,
                    gostx__cms_sender_draw *draw);
/* gostx_cms_encrypt_with on drawn secrets (draw: unused when out is NULL). */
int gostx__cms_encrypt_drawn(const gostx_x509_cert *recipients, size_t n,
                             const gostx_cms_encrypt_params *p, const gostx__cms_sender_draw *draw,
                             const uint8_t *content, size_t len, uint8_t *out, size_t cap,
                             size_t *out_len);
/* recipients[n] and p fit for EnvelopedData (2012 keys, n in
 * 1..GOSTX_CMS_MAX_RECIPIENTS, a key id where p->key_id, GOST89 only by
 * issuer and serial); EnvelopedData's version for p (RFC 5652 6.1). */
int gostx__cms_encrypt_params_ok(const gostx_x509_cert *recipients, size_t n,
                                 const gostx_cms_encrypt_params *p);
uint32_t gostx__cms_enveloped_version(const gostx_cms_encrypt_params *p);
/* The recipientInfos SET, one RecipientInfo per recipient as p asks (RFC
 * 4490 KTRIs for GOST89) in the caller's order, wrapping draw's CEK (draw
 * NULL: a size query). One-shot and streaming encryption both write it. */
int gostx__cms_write_recipient_infos(gostx__der_w *w, const gostx_x509_cert *recipients, size_t n,
                                     const gostx_cms_encrypt_params *p,
                                     const gostx__cms_sender_draw *draw);
/* One RecipientInfo for c as p asks, the CEK wrapped under the wrap
 * cipher alg with recipient i's draw (draw NULL: a size query, nothing
 * computed). */
int gostx__cms_write_recipient(gostx__der_w *w, const gostx_x509_cert *c,
                               const gostx_cms_encrypt_params *p, gostx_alg alg,
                               const gostx__cms_sender_draw *draw, size_t i);

/* ---- unsigned attributes (signed_write.c, unsigned_attrs.c) ---- */
/* An Attribute opened: SEQUENCE { type, SET { (the values) } }; and closed. */
void gostx__cms_attr_begin(gostx__der_w *w, const char *oid);
void gostx__cms_attr_end(gostx__der_w *w);
/* sd (parsed, its der still there) re-encoded into out[cap] (NULL:
 * counted), signer's unsignedAttrs holding what they held and then what
 * write adds (called inside the [1]); the rest copied as it was. */
/* IssuerSerial { GeneralNames { [4] issuer }, serial } of cert (RFC 5035,
 * RFC 5126's OtherCertID). */
void gostx__cms_write_issuer_serial(gostx__der_w *w, const gostx_x509_cert *cert);
typedef void gostx__cms_attr_writer(gostx__der_w *w, const void *ctx);
int gostx__cms_add_unsigned(const gostx_cms_signed *sd, size_t signer, gostx__cms_attr_writer *write,
                            const void *ctx, uint8_t *out, size_t cap, size_t *out_len);
/* The same with signer's unsignedAttrs all rewrite writes: it is given the
 * attributes there were (the [1]'s content; n 0 when none). */
typedef void gostx__cms_attrs_rewriter(gostx__der_w *w, gostx__der old, const void *ctx);
int gostx__cms_rewrite_unsigned(const gostx_cms_signed *sd, size_t signer, gostx__cms_attrs_rewriter *rewrite,
                                const void *ctx, uint8_t *out, size_t cap, size_t *out_len);

#endif
