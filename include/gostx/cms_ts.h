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
 * (gostx_cms_ts_tokens), and the 0.x names of those steps.
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

/* ---- 0.x names, each one call to the API above ---- */

/* Kept for 0.x compatibility; use gostx_tsa_query_write with the
 * Streebog-digest_len hash of sig[sig_len] and cert_req 1 (no nonce, no
 * policy): the same bytes. digest_len 32 or 64, else GOSTX_EINVAL. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_request(const uint8_t *sig, size_t sig_len,
                                                     size_t digest_len, uint8_t *out, size_t cap,
                                                     size_t *out_len);

/* Kept for 0.x compatibility; use gostx_tsa_verify with e.hash the
 * finished Streebog-256 and -512 digests of sig[sig_len] (no nonce, no
 * policy): the same checks and verdict. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_verify(const gostx_cms_ts_token *t, const uint8_t *sig,
                                                    size_t sig_len,
                                                    const gostx_cms_verify_params *params,
                                                    gostx_cms_ts_verdict *v);

/* Kept for 0.x compatibility; use gostx_cades_add_timestamp(sd, signer,
 * GOSTX_CADES_TS_SIGNATURE, token, ...): the same bytes. GOSTX_EFORMAT
 * when token is no TimeStampToken (or TimeStampResp, whose token is
 * taken); GOSTX_EINVAL (no such signer). */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_embed(const gostx_cms_signed *sd, size_t signer,
                                                   const uint8_t *token, size_t token_len,
                                                   uint8_t *out, size_t cap, size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif
