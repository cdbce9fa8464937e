/* PBES2 (RFC 8018) with the GOST algorithms, inside: the
 * AlgorithmIdentifier read and written, and the encryption it names, for
 * the encrypted PKCS#8 (pbes2.c) and for the PKCS#12 bags and
 * encryptedData (lib/pkcs12), one code for both. */
#ifndef GOSTX_GOST3410_PBES2_H
#define GOSTX_GOST3410_PBES2_H

#include "gost3410/keys_der.h"

/* More PBKDF2 iterations than this are refused by the reader (a file must
 * not stall us) and by the writer. */
#define GOSTX__PBES2_ITER_MAX 10000000u

/* The ciphers the writer uses. */
typedef enum gostx__pbes2_cipher {
  GOSTX__PBES2_KUZNYECHIK = 1, /* kuznyechik-ctr-acpkm */
  GOSTX__PBES2_MAGMA = 2,      /* magma-ctr-acpkm */
  GOSTX__PBES2_GOST89 = 3,     /* GOST 28147-89 CFB, parameter set Z (R 50.1.112-2016) */
  GOSTX__PBES2_KUZNYECHIK_OMAC = 4, /* kuznyechik-ctr-acpkm-omac (RFC 9337) */
  GOSTX__PBES2_MAGMA_OMAC = 5       /* magma-ctr-acpkm-omac */
} gostx__pbes2_cipher;

/* The PBKDF2 PRFs read; only the first is written. */
typedef enum gostx__pbes2_prf {
  GOSTX__PBES2_PRF_STREEBOG512 = 0, /* HMAC-Streebog-512, 1.2.643.7.1.1.4.2 */
  GOSTX__PBES2_PRF_SHA256 = 1,      /* hmacWithSHA256: OpenSSL's default */
  GOSTX__PBES2_PRF_GOST94 = 2       /* HMAC-GOST R 34.11-94, 1.2.643.2.2.10: certtool's */
} gostx__pbes2_prf;

typedef struct gostx__pbes2 {
  gostx__der salt, ukm; /* ukm: the CTR-ACPKM ukm, or the GOST 28147-89 IV */
  uint32_t iter;
  gostx_alg alg;
  int sbox;       /* GOST 28147-89 CFB: its parameter set (enum gostx_sbox); -1 otherwise */
  int prf;        /* PBKDF2's PRF: enum gostx__pbes2_prf */
  int des3;       /* des-ede3-cbc (read only; GnuTLS certtool --pkcs-cipher 3des): ukm the IV */
  int omac;       /* CTR-ACPKM-OMAC: a tag of a block after the message */
  char desc[160]; /* what the file uses, for refusals and listings */
} gostx__pbes2;

/* The content of a PBES2 AlgorithmIdentifier (after its SEQUENCE header):
 * 0, GOSTX_EFORMAT, or GOSTX_EUNSUP (another scheme, a cipher or PRF we do
 * not read, more than GOSTX__PBES2_ITER_MAX iterations) with p->desc
 * naming what the file uses (unknown OIDs dotted). p points into alg. */
int gostx__pbes2_parse(gostx__der alg, gostx__pbes2 *p);
/* PBKDF2 to a 32-byte key (24 for 3DES), then the cipher over in[len]
 * into out (in == out allowed). CTR-ACPKM-OMAC adds a tag
 * (gostx__pbes2_tag_len bytes): encrypting writes len + tag bytes,
 * decrypting takes them and leaves the message in out[0..len - tag],
 * GOSTX_EAUTH when the tag does not match. 3DES only decrypts (the padding
 * left in out: gostx__pbes2_plain_len); GOSTX_EFORMAT a length not of
 * whole blocks. */
int gostx__pbes2_crypt(const gostx__pbes2 *p, const uint8_t *pass, size_t pass_len, int decrypt,
                       const uint8_t *in, size_t len, uint8_t *out);
size_t gostx__pbes2_tag_len(const gostx__pbes2 *p);
/* The message's length in a decryption out[len] (len the ciphertext's):
 * without the tag, or 3DES's padding (GOSTX_EAUTH when that is wrong: a
 * wrong password). */
int gostx__pbes2_plain_len(const gostx__pbes2 *p, const uint8_t *out, size_t len, size_t *n);
/* Fresh parameters for the writer: salt[16] and ukm[16] filled from the OS
 * generator (the CTR IV's n/2 bytes; the rest of the ukm zero, as
 * gost-engine writes it, but for -OMAC, whose KDF_TREE seed it is) and
 * pointed at by p. */
int gostx__pbes2_new(gostx__pbes2 *p, gostx__pbes2_cipher cipher, uint32_t iter,
                     uint8_t salt[16], uint8_t ukm[16]);
/* The AlgorithmIdentifier for p, as gost-engine writes it. */
void gostx__pbes2_put(gostx__der_w *w, const gostx__pbes2 *p);

#endif
