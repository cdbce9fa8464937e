/* gostx: GOST R 34.10-2012 keys on PKCS#11 tokens, named by RFC 7512 URIs
 * (lib/pkcs11; docs/PKCS11.md). Part of the public API.
 *
 * A key on a token is used through the token: C_Sign and C_DeriveKey, the
 * private key never read out. gostx_p11_key_open finds it by a URI such as
 *   pkcs11:token=gostx;object=signer;type=private?module-path=/usr/lib/x.so
 * and gives its public key and curve (read from the token) and, after
 * gostx_p11_key_bind, a gostx_gost3410_key every signer of the library
 * takes.
 *
 * Modules: each module path is dlopen'ed and C_Initialize'd (with
 * CKF_OS_LOCKING_OK) once per process and C_Finalize'd at exit or by
 * gostx_p11_finalize. module-name= is the module p11-kit registered under
 * that name (else NAME.so / libNAME.so in the system's PKCS#11 folders); a
 * URI with neither uses p11-kit's proxy (p11-kit-proxy.so) where it is
 * installed. Sessions: a key keeps a small
 * pool, one session per thread at a time; the user logs in once per token.
 *
 * Errors: every call returns 0 or a negative GOSTX_E* code, and then this
 * thread's last error says what went wrong: gostx_p11_error() gives its
 * kind (gostx_p11_status) and a message naming the cause (the URI, the
 * module and dlerror(), the token, the PKCS#11 return value, how many
 * objects matched). A wrong PIN is reported, never retried: one call of
 * gostx_p11_key_open tries a PIN at most once. */
#ifndef GOSTX_PKCS11_H
#define GOSTX_PKCS11_H

#include "common.h"
#include "gost3410.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- RFC 7512 URIs ---- */

/* The object class of type= (RFC 7512 table 2). */
typedef enum gostx_p11_type {
  GOSTX_P11_TYPE_ANY = 0, /* no type= */
  GOSTX_P11_TYPE_PRIVATE,
  GOSTX_P11_TYPE_PUBLIC,
  GOSTX_P11_TYPE_CERT,
  GOSTX_P11_TYPE_SECRET_KEY,
  GOSTX_P11_TYPE_DATA
} gostx_p11_type;

/* Bits of gostx_p11_uri.has: the attributes the URI named (one named with
 * an empty value, "serial=", matches only an empty field, RFC 7512 2.3). */
enum {
  GOSTX_P11_HAS_TOKEN = 1u << 0,
  GOSTX_P11_HAS_MANUFACTURER = 1u << 1,
  GOSTX_P11_HAS_SERIAL = 1u << 2,
  GOSTX_P11_HAS_MODEL = 1u << 3,
  GOSTX_P11_HAS_LIB_MANUFACTURER = 1u << 4,
  GOSTX_P11_HAS_LIB_DESCRIPTION = 1u << 5,
  GOSTX_P11_HAS_LIB_VERSION = 1u << 6,
  GOSTX_P11_HAS_SLOT_ID = 1u << 7,
  GOSTX_P11_HAS_SLOT_DESCRIPTION = 1u << 8,
  GOSTX_P11_HAS_SLOT_MANUFACTURER = 1u << 9,
  GOSTX_P11_HAS_OBJECT = 1u << 10,
  GOSTX_P11_HAS_ID = 1u << 11,
  GOSTX_P11_HAS_TYPE = 1u << 12,
  GOSTX_P11_HAS_MODULE_PATH = 1u << 13,
  GOSTX_P11_HAS_MODULE_NAME = 1u << 14,
  GOSTX_P11_HAS_PIN_SOURCE = 1u << 15,
  GOSTX_P11_HAS_PIN_VALUE = 1u << 16
};

#define GOSTX_P11_LABEL_MAX 255 /* the most bytes of a path value (id= too) */
#define GOSTX_P11_PATH_MAX 4096 /* module-path, module-name, pin-source */
#define GOSTX_P11_PIN_MAX 255   /* pin-value */

/* A parsed URI: the values percent-decoded, text NUL-terminated. pin_value
 * is a secret: gostx_p11_uri_clear wipes it. */
typedef struct gostx_p11_uri {
  unsigned has;                       /* GOSTX_P11_HAS_* */
  char token[GOSTX_P11_LABEL_MAX + 1], manufacturer[GOSTX_P11_LABEL_MAX + 1];
  char serial[GOSTX_P11_LABEL_MAX + 1], model[GOSTX_P11_LABEL_MAX + 1];
  char lib_manufacturer[GOSTX_P11_LABEL_MAX + 1], lib_description[GOSTX_P11_LABEL_MAX + 1];
  unsigned lib_version_major, lib_version_minor; /* "3" is 3.0 */
  unsigned long slot_id;
  char slot_description[GOSTX_P11_LABEL_MAX + 1], slot_manufacturer[GOSTX_P11_LABEL_MAX + 1];
  char object[GOSTX_P11_LABEL_MAX + 1];
  uint8_t id[GOSTX_P11_LABEL_MAX];
  size_t id_len;
  gostx_p11_type type;
  /* A path attribute this parser does not know (a vendor's): RFC 7512 2.5
   * says it matches nothing, so gostx_p11_key_open refuses such a URI and
   * names it. "" when none. Unknown query attributes are ignored. */
  char unknown[64];
  /* The first attribute whose value is longer than the PKCS#11 field it
   * is matched against (CK_TOKEN_INFO's label holds 32 bytes, its serial
   * 16, ...): RFC 7512 2.3 says a consumer refuses such a URI, and
   * gostx_p11_key_open does, naming it; the parser keeps it (section 3's
   * own example "Name with a small A with acute: \u00e1" is 34 bytes).
   * "" when none. */
  char too_long[32];
  char module_path[GOSTX_P11_PATH_MAX + 1], module_name[GOSTX_P11_PATH_MAX + 1];
  char pin_source[GOSTX_P11_PATH_MAX + 1];
  char pin_value[GOSTX_P11_PIN_MAX + 1];
} gostx_p11_uri;

/* Parses text, which starts "pkcs11:" (the scheme in any case), into *uri.
 * Strict: every character of the grammar of RFC 7512 section 2.3 or
 * percent-encoded; a path attribute or a defined query attribute given
 * twice, "%" not followed by two hex digits, %00 in a text value, type=
 * other than the five, library-version other than M or M.N (each 0..255),
 * slot-id not a decimal CK_ULONG, a value longer than
 * GOSTX_P11_LABEL_MAX bytes (or a query value than its field), pin-source and pin-value both given, or a relative module-path: all
 * refused with GOSTX_EFORMAT and a line saying which in why[why_cap] (may
 * be NULL). Whitespace is not skipped (RFC 7512 section 3: the one who
 * extracts a URI from text drops it). 0 on success. */
GOSTX_API GOSTX_MUST_CHECK int gostx_p11_uri_parse(gostx_p11_uri *uri, const char *text,
                                                   char *why, size_t why_cap);
/* 1 when text starts with "pkcs11:" (any case), else 0. */
GOSTX_API int gostx_p11_is_uri(const char *text);
/* Wipes the URI (the PIN with it). */
GOSTX_API void gostx_p11_uri_clear(gostx_p11_uri *uri);

/* ---- errors ---- */

/* What the last failed call of this thread ran into. */
typedef enum gostx_p11_status {
  GOSTX_P11_OK = 0,
  GOSTX_P11_BAD_URI,         /* the URI was refused (GOSTX_EFORMAT) */
  GOSTX_P11_MODULE,          /* the module could not be loaded or initialised (GOSTX_EIO) */
  GOSTX_P11_NO_TOKEN,        /* no token matches the URI, or its slot is empty (GOSTX_EINVAL) */
  GOSTX_P11_NO_OBJECT,       /* no private key matches, or more than one (GOSTX_EINVAL) */
  GOSTX_P11_PIN_NEEDED,      /* login needed and no PIN given (GOSTX_EAUTH) */
  GOSTX_P11_PIN_INCORRECT,   /* CKR_PIN_INCORRECT (GOSTX_EAUTH), not retried */
  GOSTX_P11_PIN_LOCKED,      /* CKR_PIN_LOCKED, or the token says the user PIN is locked (GOSTX_EAUTH) */
  GOSTX_P11_REMOVED,         /* token removed or gone mid-use (GOSTX_EIO) */
  GOSTX_P11_UNSUPPORTED,     /* not a GOST R 34.10 key of a known curve (GOSTX_EUNSUP) */
  GOSTX_P11_BAD_ANSWER,      /* the token's signature does not verify under its public key (GOSTX_EAUTH) */
  GOSTX_P11_TOKEN_ERROR      /* any other PKCS#11 failure, its CKR_ named (GOSTX_EIO) */
} gostx_p11_status;

/* This thread's last error: its kind, and its message in buf[cap] (may be
 * NULL; cut short to fit). GOSTX_P11_OK and "no error" after a success. */
GOSTX_API gostx_p11_status gostx_p11_error(char *buf, size_t cap);
/* Sets this thread's last error to GOSTX_P11_OK: a caller that runs a call
 * of the library with a bound token key (a CMS signature, a TLS handshake)
 * clears it first, and after a failure asks gostx_p11_error whether the
 * token caused it (the signers return the callback's GOSTX_E* code, which
 * does not say which token failure it was). */
GOSTX_API void gostx_p11_error_clear(void);

/* ---- keys on a token ---- */

typedef struct gostx_p11_key gostx_p11_key;

/* Asked for the user PIN when the token needs a login and the URI gives
 * none (pin-source or pin-value): at most once per gostx_p11_key_open.
 * token_label: the token's label (trailing blanks dropped); flags: its
 * CK_TOKEN_INFO flags (GOSTX_P11_USER_PIN_COUNT_LOW / _FINAL_TRY, below:
 * a failure may lock it). Writes 1..cap bytes to pin, *pin_len; returns 0, or
 * nonzero to give up (then GOSTX_P11_PIN_NEEDED). */
#define GOSTX_P11_USER_PIN_COUNT_LOW 0x00010000UL /* CKF_USER_PIN_COUNT_LOW */
#define GOSTX_P11_USER_PIN_FINAL_TRY 0x00020000UL /* CKF_USER_PIN_FINAL_TRY */
typedef int (*gostx_p11_pin_fn)(void *arg, const char *token_label, unsigned long flags,
                                uint8_t *pin, size_t cap, size_t *pin_len);

/* Opens the one private key the URI names (text as gostx_p11_uri_parse
 * takes it): the module loaded, the token found by its path attributes
 * (token, manufacturer, serial, model, slot-*, library-*), the user
 * logged in when the token needs it (the PIN from pin-value, else the
 * first line of the file that pin-source names, a path or a file: URL,
 * else pin_fn), the key found by object (CKA_LABEL), id (CKA_ID) and
 * type (private, or none). Exactly one CKO_PRIVATE_KEY must match. Its
 * curve comes from CKA_GOSTR3410_PARAMS, its public key from the public
 * key object with the same CKA_ID (else the one with the same label), else
 * the certificate with the same CKA_ID; the certificate too when there is
 * one. *out: free with gostx_p11_key_free. Errors: see gostx_p11_error. */
GOSTX_API GOSTX_MUST_CHECK int gostx_p11_key_open(gostx_p11_key **out, const char *uri,
                                                  gostx_p11_pin_fn pin_fn, void *pin_arg);
/* The one certificate the URI names (type=cert, type=private or none;
 * matched by object = CKA_LABEL and id = CKA_ID: a key and its
 * certificate share them), DER in *der (malloc'ed; free it), without a
 * login: certificates are public objects, so no PIN is asked. Errors as
 * gostx_p11_key_open. */
GOSTX_API GOSTX_MUST_CHECK int gostx_p11_cert_read(const char *uri, uint8_t **der, size_t *len);
/* The key's public half (no private part) into *pub; pub->gost2001 set
 * for a GOST R 34.10-2001 key (CKK_GOSTR3410 whose CKA_GOSTR3411_PARAMS is
 * GOST R 34.11-94's CryptoPro set, as SoftHSMv2's are), as key_bind does. */
GOSTX_API int gostx_p11_key_public(const gostx_p11_key *k, gostx_gost3410_key *pub);
/* The certificate stored with the key (CKO_CERTIFICATE, same CKA_ID), DER:
 * *der points into the key object (valid until gostx_p11_key_free).
 * GOSTX_EINVAL (and GOSTX_P11_NO_OBJECT) when the token holds none. */
GOSTX_API int gostx_p11_key_cert(const gostx_p11_key *k, const uint8_t **der, size_t *len);
/* Signs digest (digest_len = the key's size) on the token: C_Sign with
 * CKM_GOSTR3410 (256) or CKM_GOSTR3410_512; the token's s || r turned into
 * this library's r || s, then verified under the key's public key before
 * it is given out (one that does not verify: GOSTX_EAUTH,
 * GOSTX_P11_BAD_ANSWER). Safe from several threads at once. */
GOSTX_API GOSTX_MUST_CHECK int gostx_p11_key_sign(gostx_p11_key *k, const uint8_t *digest,
                                                  size_t digest_len, uint8_t *sig,
                                                  size_t sig_len);
/* VKO on the token (C_DeriveKey): out_len 32, CKM_GOSTR3410_12_DERIVE with
 * CKD_KDF_GOSTR3411_2012_256 (VKO_GOSTR3410_2012_256), or out_len 64 with a
 * 512-bit key, CKM_VKO_GOSTR3410_2012_512; peer_pub x || y big-endian, ukm
 * as gostx_gost3410_vko takes it. The derived object is made non-sensitive
 * and extractable, read and destroyed. */
GOSTX_API GOSTX_MUST_CHECK int gostx_p11_key_vko(gostx_p11_key *k, const uint8_t *peer_pub,
                                                 size_t pub_len, const uint8_t *ukm,
                                                 size_t ukm_len, uint8_t *out, size_t out_len);
/* *key made the token key's external key (gostx_gost3410_key_set_external):
 * every signer and key agreement of the library then signs and derives on
 * the token. k must outlive *key and every copy of it. */
GOSTX_API GOSTX_MUST_CHECK int gostx_p11_key_bind(gostx_p11_key *k, gostx_gost3410_key *key);
/* Whether the key's token is still there (C_GetTokenInfo, and a session
 * of the key's still valid): 0, or GOSTX_EIO with GOSTX_P11_REMOVED when
 * the token was removed. For a long-lived program before it reuses a key
 * (a server's reload); signing reports a removal by itself only when the
 * module does in C_Sign. */
GOSTX_API GOSTX_MUST_CHECK int gostx_p11_key_check(gostx_p11_key *k);
/* Closes the key's sessions (the module stays loaded). NULL is allowed. */
GOSTX_API void gostx_p11_key_free(gostx_p11_key *k);
/* C_Finalize and dlclose of every module loaded; a key opened before must
 * not be used after. Called at exit too. */
GOSTX_API void gostx_p11_finalize(void);

#ifdef __cplusplus
}
#endif
#endif
