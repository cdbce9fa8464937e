/* gostx: CAdES-T, RFC 3161 signature timestamps in CMS SignedData (the
 * unsigned attribute id-aa-signatureTimeStampToken, RFC 3161 appendix A).
 * Part of the public API; docs/CMS.md.
 *
 * A signature's timestamp is RFC 3161 over its signature value, through
 * gostx/tsa.h (included here): the query (gostx_tsa_query_write for the
 * Streebog hash of the signature value, certReq set), the TSA's reply read
 * (gostx_cms_ts_parse) and checked (gostx_tsa_verify, the signature
 * value's digests as the data), then the token added as a
 * signature-time-stamp (gostx_cades_add_timestamp, GOSTX_CADES_TS_SIGNATURE,
 * gostx/cades.h). What is left here: a signer's tokens found again
 * (gostx_cms_ts_tokens); the 0.x names of those steps were removed in
 * 0.5.0 (docs/API_CHANGES.md).
 *
 * Nothing here allocates. */
#ifndef GOSTX_CMS_TS_H
#define GOSTX_CMS_TS_H

#include "cms.h"
#include "tsa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The signatureTimeStampTokens of a signer's unsigned attributes: up to
 * cap of them into tokens[]/lens[], *n how many there are (also beyond
 * cap). GOSTX_EFORMAT when the unsigned attributes are malformed. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_tokens(const gostx_cms_signer_info *si,
                                                    const uint8_t **tokens, size_t *lens,
                                                    size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif

#endif
