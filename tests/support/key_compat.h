/* The key codec's calls of 0.3 (gostx_gost3410_priv_to_der, ...; removed
 * from include/gostx/gost3410.h in 0.4.0) as the tests' helpers, each a thin
 * call of the key object (gostx_gost3410_key_read, _key_write,
 * _key_encryption) with the 0.3 call's arguments and results: the key
 * format tests written against them keep running (key_compat.c). The _der
 * readers take DER only, the _pem ones PEM only, as those calls did. */
#ifndef GOSTX_TEST_KEY_COMPAT_H
#define GOSTX_TEST_KEY_COMPAT_H

#include "gostx/gost3410.h"

int tk_priv_to_der(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len, uint8_t *out, size_t cap, size_t *out_len);
int tk_pub_to_der(gostx_gost3410_curve curve, const uint8_t *pub, size_t pub_len, uint8_t *out, size_t cap, size_t *out_len);
int tk_key_from_der(const uint8_t *der, size_t der_len, gostx_gost3410_key_kind *kind, gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap);
int tk_priv_to_pem(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len, char *out, size_t cap, size_t *out_len);
int tk_pub_to_pem(gostx_gost3410_curve curve, const uint8_t *pub, size_t pub_len, char *out, size_t cap, size_t *out_len);
int tk_key_from_pem(const char *pem, size_t pem_len, gostx_gost3410_key_kind *kind, gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap);
int tk_priv_to_encrypted_der(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len, const uint8_t *pass, size_t pass_len, gostx_gost3410_pbe cipher, uint32_t iterations, uint8_t *out, size_t cap, size_t *out_len);
int tk_priv_to_encrypted_pem(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len, const uint8_t *pass, size_t pass_len, gostx_gost3410_pbe cipher, uint32_t iterations, char *out, size_t cap, size_t *out_len);
int tk_key_from_encrypted_der( const uint8_t *der, size_t der_len, const uint8_t *pass, size_t pass_len, gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap);
int tk_key_from_encrypted_pem( const char *pem, size_t pem_len, const uint8_t *pass, size_t pass_len, gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap);
int tk_encrypted_scheme(const uint8_t *der, size_t der_len, char *text, size_t cap);
int tk_encrypted_scheme_pem(const char *pem, size_t pem_len, char *text, size_t cap);
int tk_key_from_der_oid( const uint8_t *der, size_t der_len, gostx_gost3410_key_kind *kind, gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap, char *oid, size_t oid_cap);
int tk_key_from_pem_oid( const char *pem, size_t pem_len, gostx_gost3410_key_kind *kind, gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap, char *oid, size_t oid_cap);
int tk_key_from_encrypted_der_oid( const uint8_t *der, size_t der_len, const uint8_t *pass, size_t pass_len, gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap, char *oid, size_t oid_cap);
int tk_key_from_encrypted_pem_oid( const char *pem, size_t pem_len, const uint8_t *pass, size_t pass_len, gostx_gost3410_curve *curve, size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap, char *oid, size_t oid_cap);
int tk_priv_to_der_oid(gostx_gost3410_curve curve, const char *oid, const uint8_t *priv, size_t priv_len, uint8_t *out, size_t cap, size_t *out_len);
int tk_pub_to_der_oid(gostx_gost3410_curve curve, const char *oid, const uint8_t *pub, size_t pub_len, uint8_t *out, size_t cap, size_t *out_len);
int tk_priv_to_pem_oid(gostx_gost3410_curve curve, const char *oid, const uint8_t *priv, size_t priv_len, char *out, size_t cap, size_t *out_len);
int tk_pub_to_pem_oid(gostx_gost3410_curve curve, const char *oid, const uint8_t *pub, size_t pub_len, char *out, size_t cap, size_t *out_len);
int tk_priv_to_encrypted_der_oid( gostx_gost3410_curve curve, const char *oid, const uint8_t *priv, size_t priv_len, const uint8_t *pass, size_t pass_len, gostx_gost3410_pbe cipher, uint32_t iterations, uint8_t *out, size_t cap, size_t *out_len);
int tk_priv_to_encrypted_pem_oid( gostx_gost3410_curve curve, const char *oid, const uint8_t *priv, size_t priv_len, const uint8_t *pass, size_t pass_len, gostx_gost3410_pbe cipher, uint32_t iterations, char *out, size_t cap, size_t *out_len);
/* gostx_tls_config_set_key with the key as d (0.3's arguments): the key
 * object made from them (GOSTX_EINVAL when d is no key of curve). */
struct gostx_tls_config;
struct gostx_pkcs12;
struct gostx_pkcs12_params;
int tk_tls_set_key(struct gostx_tls_config *cfg, gostx_gost3410_curve curve, const uint8_t *d,
                   size_t d_len);
/* gostx_pkcs12_key and gostx_pkcs12_write with 0.3's arguments (the key
 * as its parts, or as PrivateKeyInfo DER; the password beside params). */
int tk_pkcs12_key(const struct gostx_pkcs12 *p, gostx_gost3410_curve *curve, size_t *len,
                  uint8_t *priv, size_t priv_cap, uint8_t *pub, size_t pub_cap, char *oid,
                  size_t oid_cap, size_t *cert_bag);
int tk_pkcs12_write(const uint8_t *key, size_t key_len, const uint8_t *const *certs,
                    const size_t *cert_lens, size_t ncerts, const uint8_t *pass, size_t pass_len,
                    const struct gostx_pkcs12_params *params, uint8_t *out, size_t cap,
                    size_t *out_len);
/* The TLS 1.2 server's key imports (lib/tls/tls12_keys.c) with the key
 * as d, as they took it before they took the key object. */
struct gostx__tls12_suite;
int tk_tls12_kimp15(const struct gostx__tls12_suite *suite, gostx_gost3410_curve curve,
                    const uint8_t *d, size_t d_len, const uint8_t *q, size_t q_len,
                    const uint8_t *h, const uint8_t *in, size_t in_len, uint8_t *pms);
int tk_tls12_kimp28147(gostx_gost3410_curve curve, const uint8_t *d, size_t d_len,
                       const uint8_t *q, size_t q_len, const uint8_t *h, const uint8_t *in,
                       uint8_t *pms);

#endif
