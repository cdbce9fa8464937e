/* SHA-1 (FIPS 180-4) and HMAC-SHA1, internal: a legacy hash, not a GOST
 * primitive and not in the public API. Only for what files made by others
 * carry: RFC 7292's own PKCS#12 integrity and privacy (MacData over SHA-1,
 * pbeWithSHAAnd3-KeyTripleDES-CBC and the RC2 PBEs), as CryptoPro CSP
 * writes around its GOST key bag (lib/pkcs12/legacy.c); and where IKEv2
 * fixes SHA-1 whatever the transforms: the NAT detection hashes (RFC 7296
 * 2.23, lib/ike/nat.c) and CERTREQ's CA hashes (3.7, lib/ike/certreq.c).
 * Read, never written: CAdES's sha1Hash references and OCSP CertIDs'
 * SHA-1 name hashes (lib/cms/cades_read.c).
 * Nothing else gostx writes uses it. */
#ifndef GOSTX_SHA1_H
#define GOSTX_SHA1_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#define GOSTX__SHA1_LEN 20
#define GOSTX__SHA1_BLOCK 64

typedef struct gostx__sha1_ctx {
  uint32_t h[5];
  gostx_md32 m; /* the block buffer, the byte count */
} gostx__sha1_ctx;

void gostx__sha1_init(gostx__sha1_ctx *ctx);
void gostx__sha1_update(gostx__sha1_ctx *ctx, const void *data, size_t len);
void gostx__sha1_final(gostx__sha1_ctx *ctx, uint8_t out[GOSTX__SHA1_LEN]);
void gostx__sha1(const void *data, size_t len, uint8_t out[GOSTX__SHA1_LEN]);
/* HMAC-SHA1 (RFC 2104) in one call. */
void gostx__hmac_sha1(const uint8_t *key, size_t key_len, const void *data, size_t len,
                      uint8_t out[GOSTX__SHA1_LEN]);

#endif
