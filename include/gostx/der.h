/* gostx: a DER element's header (tag and length), the one length encoder
 * every part of gostx uses; the CLI and integrations reach it here (lib/
 * itself through lib/asn1/der.h). Part of the public API. */
#ifndef GOSTX_DER_H
#define GOSTX_DER_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most bytes gostx_der_header writes: a tag and a 9-byte length. */
#define GOSTX_DER_HEADER_MAX 10

/* The one-byte tag and len in DER's shortest definite form (UINT64_MAX:
 * the indefinite form, 0x80, for BER output) into out[GOSTX_DER_HEADER_MAX]:
 * the header's size, 2 to 10. 0 when out is NULL. */
GOSTX_API size_t gostx_der_header(uint8_t *out, uint8_t tag, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif
