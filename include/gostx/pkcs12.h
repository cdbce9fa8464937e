/* gostx: PKCS#12 (PFX, RFC 7292) with the GOST algorithms: the key and
 * certificates a CA or CryptoPro CSP hands out as a .pfx, read and written.
 * Part of the public API; docs/PKCS12.md.
 *
 * Families read: TC26 R 50.1.112-2016 (PBES2 with PBKDF2-HMAC-Streebog-512
 * and GOST 28147-89 CFB, any of its parameter sets), what gost-engine
 * (`openssl pkcs12 -engine gost`) and GnuTLS certtool write; and RFC 9337 /
 * RFC 9548 (PBES2 with Kuznyechik- or Magma-CTR-ACPKM, and CTR-ACPKM-OMAC
 * with KDF_TREE's key split, whose tag is checked). Both with MacData over
 * Streebog-512 the R 50.1.112-2016 way: HMAC keyed by the last 32
 * bytes of a 96-byte PBKDF2-HMAC-Streebog output (password, macSalt,
 * iterations), not RFC 7292's PKCS#12 KDF. The password is taken as its
 * bytes (UTF-8), as gost-engine and certtool use it in both places.
 * Read only: CryptoPro CSP's export, the key bag under CryptoPro's PBE
 * 1.2.840.113549.1.12.1.80 (GOST R 34.11-94 rounds, GOST 28147-89 CFB, the
 * CryptoPro key blob and key wrap), with what it writes around it: RFC
 * 7292's own MacData over SHA-1 and pbeWithSHAAnd3-KeyTripleDES-CBC (and
 * its RC2 PBEs, as openssl -legacy writes), their password a BMPString
 * (UTF-16), CryptoPro's UTF-16LE.
 *
 * Reading: gostx_pkcs12_read checks the MAC under the password before it
 * decrypts anything, then decrypts every part into an object the caller
 * frees (it wipes the keys). Bags are listed in file order with their
 * attributes; keys and X.509 certificates are given as DER. Every
 * certificate is parsed with gostx_x509_parse: one it refuses is listed as
 * GOSTX_PKCS12_BAG_BAD_CERT with the reason, not as a certificate (the
 * file is still read: its key and other certificates may be fine). */
#ifndef GOSTX_PKCS12_H
#define GOSTX_PKCS12_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "gost3410.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The work a file may cost unless the caller allows more: PBKDF2
 * iterations summed over the MAC (whose 96-byte output counts twice) and
 * every encrypted part. certtool's defaults (600,000 each) come to
 * 2,400,000; a few seconds at most. */
#define GOSTX_PKCS12_WORK_DEFAULT 4000000u
/* Bags a file may hold; more is GOSTX_EUNSUP. */
#define GOSTX_PKCS12_BAGS_MAX 64

typedef struct gostx_pkcs12 gostx_pkcs12;

typedef enum gostx_pkcs12_bag_type {
  GOSTX_PKCS12_BAG_KEY = 1,          /* keyBag: a PrivateKeyInfo in the clear */
  GOSTX_PKCS12_BAG_SHROUDED_KEY = 2, /* pkcs8ShroudedKeyBag, decrypted by read */
  GOSTX_PKCS12_BAG_CERT = 3,         /* certBag holding an X.509 certificate */
  GOSTX_PKCS12_BAG_OTHER = 4,        /* CRL, secret, nested contents, other certificate
                                        types: listed, not read */
  GOSTX_PKCS12_BAG_BAD_CERT = 5      /* a certBag whose X.509 certificate lib/x509 refuses
                                        (malformed, not GOST, a bad key): problem says why;
                                        der is its bytes, never to be used as a certificate */
} gostx_pkcs12_bag_type;

/* One bag, as gostx_pkcs12_bag_get gives it; pointers into the object. */
typedef struct gostx_pkcs12_bag {
  gostx_pkcs12_bag_type type;
  const uint8_t *der; /* KEY/SHROUDED_KEY: the PrivateKeyInfo (plaintext: secret);
                         CERT: the certificate; OTHER: the bagValue element */
  size_t der_len;
  const uint8_t *key_id; /* localKeyId's bytes, NULL when absent */
  size_t key_id_len;
  char name[256];     /* friendlyName as UTF-8 ("" when absent; cut at a character) */
  char bag_oid[64];   /* the bagId, dotted */
  unsigned safe;      /* which part of the AuthenticatedSafe holds it (0, 1, ...) */
  char scheme[160];   /* SHROUDED_KEY: its encryption ("PBES2: PBKDF2 with ...",
                         "CryptoPro 1.2.840.113549.1.12.1.80 (...)"); else "" */
  uint32_t iterations; /* SHROUDED_KEY: its iterations (PBKDF2's, or the scheme's); else 0 */
  char problem[96];    /* BAD_CERT: gostx_x509_status_name of the refusal; else "" */
} gostx_pkcs12_bag;

/* One part of the AuthenticatedSafe. */
typedef struct gostx_pkcs12_safe {
  int encrypted;       /* 1: encryptedData, 0: data */
  char scheme[160];    /* encrypted: its PBES2, or "pbeWithSHAAnd3-KeyTripleDES-CBC ..."; else "" */
  uint32_t iterations; /* encrypted: its PBKDF2 iterations; else 0 */
  size_t bags;         /* how many bags it holds */
} gostx_pkcs12_safe;

/* The MacData. */
typedef struct gostx_pkcs12_mac {
  char alg[32];        /* "streebog512" (R 50.1.112-2016), "streebog256" (the same rule, as
                          openssl -macalg md_gost12_256 writes it), or "sha1" (RFC 7292's own) */
  uint32_t iterations;
  size_t salt_len;
} gostx_pkcs12_mac;

/* Reads pfx[len] (DER) under pass[pass_len] (any bytes; NULL when 0).
 * max_work: the most PBKDF2 iterations the file may cost in all (see
 * GOSTX_PKCS12_WORK_DEFAULT; 0 means that default); a file that asks more
 * is refused before any is spent. On success *out is the object
 * (gostx_pkcs12_free). Errors, with why[why_cap] (when not NULL) saying
 * what in words (unknown algorithms named by OID):
 *   GOSTX_EAUTH   the MAC does not verify under this password: a wrong
 *                 password (or a MAC altered after the fact); nothing
 *                 was decrypted. Also a shrouded key that does not decrypt
 *                 under the password that verified the MAC, or a CryptoPro
 *                 key blob whose key wrap MAC (CEK_MAC) does not verify.
 *   GOSTX_EFORMAT not a PFX: malformed DER, truncated, trailing bytes.
 *   GOSTX_EUNSUP  a well-formed PFX we do not read: an unknown PBE, cipher,
 *                 PRF or MAC (named by OID), no MacData, public-key
 *                 integrity or privacy, more work than max_work, more than
 *                 GOSTX_PKCS12_BAGS_MAX bags.
 *   GOSTX_ENOMEM, GOSTX_EINVAL (NULL arguments). */
GOSTX_API GOSTX_MUST_CHECK int gostx_pkcs12_read(const uint8_t *pfx, size_t len,
                                                  const uint8_t *pass, size_t pass_len,
                                                  uint64_t max_work, gostx_pkcs12 **out,
                                                  char *why, size_t why_cap);
/* Wipes and frees (NULL is fine). */
GOSTX_API void gostx_pkcs12_free(gostx_pkcs12 *p);
GOSTX_API size_t gostx_pkcs12_bag_count(const gostx_pkcs12 *p);
/* Bag i (0..count-1) into *bag: 0, or GOSTX_EINVAL for no such bag. */
GOSTX_API int gostx_pkcs12_bag_get(const gostx_pkcs12 *p, size_t i, gostx_pkcs12_bag *bag);
GOSTX_API size_t gostx_pkcs12_safe_count(const gostx_pkcs12 *p);
GOSTX_API int gostx_pkcs12_safe_get(const gostx_pkcs12 *p, size_t i, gostx_pkcs12_safe *safe);
GOSTX_API void gostx_pkcs12_mac_get(const gostx_pkcs12 *p, gostx_pkcs12_mac *mac);
/* The GOST key of the first key bag (plain or shrouded) into *key (its
 * private part, Q and the parameter set OID the bag names; key may be NULL
 * to ask only whether there is one), and in *cert_bag (NULL: not wanted)
 * the index of the certificate bag
 * whose subject key is this key's public key (SIZE_MAX when none is: a
 * file whose certificates are not its key's, which a caller that needs
 * the pair must refuse; the localKeyId attributes are not trusted for it).
 * GOSTX_EINVAL when the file holds no key bag; GOSTX_EUNSUP a key that is
 * not GOST R 34.10-2012 (a CryptoPro export of a GOST R 34.10-2001 key is
 * read, its bag holding the 2001 PrivateKeyInfo, but not given here).
 * *key is written only on success (gostx_gost3410_key_clear when done). */
GOSTX_API GOSTX_MUST_CHECK int gostx_pkcs12_key(const gostx_pkcs12 *p, gostx_gost3410_key *key,
                                                 size_t *cert_bag);
/* A CERT bag's certificate as PEM: gostx_x509_to_pem("CERTIFICATE", ...)
 * (include/gostx/x509_write.h). */

/* ---- writing ---- */
typedef enum gostx_pkcs12_pbe {
  GOSTX_PKCS12_PBE_GOST89 = 1,     /* GOST 28147-89 CFB, parameter set Z (R 50.1.112-2016,
                                      what gost-engine writes with -keypbe gost89) */
  GOSTX_PKCS12_PBE_KUZNYECHIK = 2, /* kuznyechik-ctr-acpkm (RFC 9337) */
  GOSTX_PKCS12_PBE_MAGMA = 3,      /* magma-ctr-acpkm (RFC 9337) */
  GOSTX_PKCS12_PBE_NONE = 4,       /* certificates only: in the clear (openssl -certpbe NONE) */
  GOSTX_PKCS12_PBE_KUZNYECHIK_OMAC = 5, /* kuznyechik-ctr-acpkm-omac (RFC 9337, RFC 9548) */
  GOSTX_PKCS12_PBE_MAGMA_OMAC = 6       /* magma-ctr-acpkm-omac */
} gostx_pkcs12_pbe;

typedef struct gostx_pkcs12_params {
  gostx_pkcs12_pbe key_pbe;  /* the key bag's PBES2 cipher (NONE is refused) */
  gostx_pkcs12_pbe cert_pbe; /* the certificates' encryptedData cipher, or NONE */
  uint32_t iterations;       /* PBKDF2 iterations for both and the MAC: 1..10,000,000 */
  const char *name;          /* friendlyName (UTF-8) of the key and its certificate, or NULL */
  const uint8_t *pass;       /* the password: any bytes (NULL when pass_len is 0) */
  size_t pass_len;
} gostx_pkcs12_params;

/* A PFX holding key (a private key: its PrivateKeyInfo, under the
 * parameter set OID the key holds) and certs[0..ncerts) (DER; certs[0] the
 * key's own, whose subject key must be the key's public key; the rest a
 * chain), under params->pass: the key in a
 * shrouded key bag in a data part, the certificates in an encryptedData
 * part (or data with NONE), both bags of the key's certificate tagged
 * with localKeyId (its Streebog-256) and friendlyName, MacData
 * HMAC-Streebog-512 the R 50.1.112-2016 way. Salts and IVs are fresh from
 * the OS generator. out NULL: *out_len is the length the file will have
 * (nothing else is done); GOSTX_ELEN with *out_len when cap is short.
 * GOSTX_EINVAL: bad parameters, a key without its private part or that
 * does not match certs[0], or a certificate gostx_x509_parse refuses (the
 * reader would skip it). GOSTX_EUNSUP: an external key
 * (gostx_gost3410_key_set_external): its private part is not here to
 * export. */
GOSTX_API GOSTX_MUST_CHECK int gostx_pkcs12_write(const gostx_gost3410_key *key,
                                                   const uint8_t *const *certs,
                                                   const size_t *cert_lens, size_t ncerts,
                                                   const gostx_pkcs12_params *params,
                                                   uint8_t *out, size_t cap, size_t *out_len);

#ifdef __cplusplus
}
#endif
#endif
