/* lib/gost3410's key files in DER, inside: what PKCS#8 (pkcs8.c),
 * SubjectPublicKeyInfo (spki.c) and PBES2 (pbes2.c) share (keys.c), all on
 * lib/asn1's reader and writer. */
#ifndef GOSTX_GOST3410_KEYS_DER_H
#define GOSTX_GOST3410_KEYS_DER_H

#include "asn1/der.h"
#include "internal.h"

#define GOSTX__KEY_ALG_OID_256 "1.2.643.7.1.1.1.1" /* id-tc26-gost3410-12-256 */
#define GOSTX__KEY_ALG_OID_512 "1.2.643.7.1.1.1.2" /* id-tc26-gost3410-12-512 */
#define GOSTX__KEY_ALG_OID_2001 "1.2.643.2.2.19"   /* id-GostR3410-2001 (written only) */
/* Dotted OIDs of ours are shorter than this (the parameter sets, the PBES2
 * algorithms); a longer one in a file is not ours. */
#define GOSTX__KEY_OID_TEXT_MAX 64

/* The parameter set OID to write for curve (oid when given, checked). */
int gostx__key_paramset_oid(gostx_gost3410_curve curve, const char *oid, const char **out);
/* 0 unless k is a GOST R 34.10-2001 key (k->gost2001) that cannot be
 * written as one: not 256 bits, or paramset_oid not a CryptoPro set. */
int gostx__key_alg_check(const gostx_gost3410_key *k, const char *paramset_oid);
/* AlgorithmIdentifier { algorithm, SEQUENCE { paramSet, digest OPTIONAL } }:
 * the 2012 algorithm of len's size, or id-GostR3410-2001 when gost2001. */
void gostx__key_put_algorithm(gostx__der_w *w, const char *paramset_oid, size_t len,
                              int gost2001);
/* Reads it: the curve, checked against the algorithm's size, and the
 * parameter set's OID as the file names it (ps_oid[GOSTX__KEY_OID_TEXT_MAX]). */
int gostx__key_get_algorithm(gostx__der *r, gostx_gost3410_curve *curve, size_t *len,
                             char *ps_oid);
/* An OID as dotted text into text[GOSTX__KEY_OID_TEXT_MAX]; GOSTX_EUNSUP for
 * one longer than any of ours. */
int gostx__key_get_oid(gostx__der *r, char *text);
void gostx__key_reverse(uint8_t *out, const uint8_t *in, size_t len);
/* What the writer w made in der (its buffer): copied to out[cap] with
 * *out_len, or GOSTX_ELEN with the length out needs; out is written only
 * when it all fits. */
int gostx__key_emit(const gostx__der_w *w, const uint8_t *der, uint8_t *out, size_t cap,
                    size_t *out_len);

/* d = k0 * m1 * ... * mk mod q from total / len little-endian len-byte
 * numbers (the CryptoPro masked form as gost-engine unmasks it; ViPNet's
 * masked key, lib/keycont); d = k0 as it is when there is no mask. d
 * big-endian. Constant time in the numbers. */
int gostx__gost3410_unmask_mul(gostx_gost3410_curve curve, const uint8_t *buf, size_t total,
                               size_t len, uint8_t *d);
/* d = k / m mod q, big-endian, len bytes each (pkcs8.c; lib/keycont's
 * CryptoPro containers). */
int gostx__gost3410_unmask_div(gostx_gost3410_curve curve, const uint8_t *k, const uint8_t *m,
                               size_t len, uint8_t *d);

/* The body of a PrivateKeyInfo (after its SEQUENCE header; pkcs8.c) and of a
 * SubjectPublicKeyInfo (spki.c): d (private only) and Q, big-endian. */
int gostx__pkcs8_parse(gostx__der body, gostx_gost3410_curve *curve, size_t *len, uint8_t *d,
                       uint8_t *q, char *ps_oid);
int gostx__spki_parse(gostx__der body, gostx_gost3410_curve *curve, size_t *len, uint8_t *q,
                      char *ps_oid);

/* The writers of the key object (key.c): DER into out[cap]; GOSTX_ELEN with
 * the length needed; out written only when it all fits. PKCS#8 and PBES2
 * need the private part. */
int gostx__pkcs8_write(const gostx_gost3410_key *k, uint8_t *out, size_t cap, size_t *out_len);
int gostx__spki_write(const gostx_gost3410_key *k, uint8_t *out, size_t cap, size_t *out_len);
int gostx__pbes2_write(const gostx_gost3410_key *k, const gostx_gost3410_pbe_params *pbe,
                       uint8_t *out, size_t cap, size_t *out_len);
/* The readers: a plain DER key (PKCS#8 or SPKI; keys.c) and an encrypted
 * one (pbes2.c); *k written only on success. */
int gostx__key_from_der(gostx_gost3410_key *k, const uint8_t *der, size_t der_len);
int gostx__pbes2_read(gostx_gost3410_key *k, const uint8_t *der, size_t der_len,
                      const uint8_t *pass, size_t pass_len);
/* The scheme of an EncryptedPrivateKeyInfo (DER) as text, as
 * gostx_gost3410_key_encryption says (pbes2.c). */
int gostx__pbes2_scheme(const uint8_t *der, size_t der_len, char *text, size_t cap);
/* PEM around them (keys_pem.c): the first key block's DER and which it is
 * (GOSTX_GOST3410_KEY_PRIVATE, _PUBLIC, or GOSTX__KEY_PEM_ENCRYPTED); and
 * a block of that kind written. */
#define GOSTX__KEY_PEM_ENCRYPTED 3
int gostx__key_pem_der(const char *pem, size_t pem_len, int *kind, uint8_t *der, size_t cap,
                       size_t *der_len);
int gostx__key_pem_write(int kind, const uint8_t *der, size_t der_len, char *out, size_t cap,
                         size_t *out_len);

#endif
