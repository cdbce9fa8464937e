/* gostx cms's files (cli/cms/: cmd_cms.c the options, which includes this and
 * calls the rest; cms_io.c the messages read and written; cms_sign.c,
 * cms_verify.c, cms_print.c, cms_envelope.c: the operations). */
#ifndef GOSTX_CMS_CLI_H
#define GOSTX_CMS_CLI_H

#include "cli.h"
#include "gostx/cms_ts.h"
#include "verify_opts.h"

/* openssl cms's exit status for a verification failure (its ret = 4) */
#define CMS_EXIT_VERIFY 4

enum { FORM_AUTO = 0, FORM_PEM, FORM_DER };

typedef struct cms_args {
  int op; /* C_SIGN, C_VERIFY, C_CMSOUT, C_ENCRYPT, ... */
  int print, outform, inform, noverify;
  unsigned flags; /* GOSTX_CMS_* */
  const char *in, *out, *content, *passin;
  const char *tsa_query, *tsa_reply; /* CAdES-T: the request written, the reply read */
  const char *signer[GOSTX_CMS_MAX_SIGNERS], *inkey[GOSTX_CMS_MAX_SIGNERS];
  size_t n_signer, n_inkey;
  cli_verify_args v; /* -CAfile, -CApath, -untrusted (up to 8), -attime */
  const char *certfile[8];
  size_t n_certfile;
  gostx_x509_purpose purpose; /* -verify -purpose */
  /* -enhance (cms_enhance.c): the level asked (ENHANCE_T, ENHANCE_XL1),
   * the TSA and OCSP responder URLs, the revocation data given */
  int enhance_to;
  const char *tsa_url, *ocsp_url;
  const char *ocsp_resp[8], *crlfile[8];
  size_t n_ocsp_resp, n_crlfile;
  /* -encrypt, -decrypt, -EncryptedData_*, -digest_* */
  const char *recip[GOSTX_CMS_MAX_RECIPIENTS], *secretkey, *originator;
  const char *originator_key; /* -encrypt -kari: a static originator's key */
  size_t n_recip, digest_len;
  int key_id, kari;         /* -keyid, -kari: the recipients' names and kind */
  int cipher_family, omac; /* as given: 1 Kuznyechik, 2 Magma, 3 GOST 28147-89 */
  gostx_cms_cipher cipher; /* what they name (Kuznyechik by default) */
} cms_args;

/* The message of path as DER into *der (malloc'ed): PEM or DER as form
 * says, or told apart (DER starts with a SEQUENCE's tag); *der NULL on
 * failure (the caller frees *der either way). */
int cms_read_message(const char *path, int form, uint8_t **der, size_t *der_len);
/* DER as form asks (PEM unless FORM_DER), to path, atomically. */
int cms_write_message(const char *path, int form, const uint8_t *der, size_t len);
/* The content of path digested in chunks (GOSTX_CMS_HASH_* want); with
 * keep not NULL, read whole and kept in *keep (malloc'ed), *kept bytes. */
int cms_hash_file(const char *path, unsigned want, gostx_cms_hash *h, uint8_t **keep, size_t *kept);

/* -in's message as a stream (cms_stream_in.c): DER, or PEM decoded
 * as it is read; form as -inform (AUTO: DER when it starts with 0x30).
 * cms_stream_read is a gostx_cms_read_fn; its refusals are printed (the
 * returned code is then the exit status), and s->failed set. */
typedef struct cms_stream_in {
  cli_in in;
  int pem, done, failed;
  int pkcs7; /* the BEGIN line's label: PKCS7, else CMS */
  gostx_base64 b64; /* gostx/base64.h's decoder, carried from line to line */
  char line[1024];
  uint8_t dec[768];
  size_t dlen, dpos;
} cms_stream_in;
int cms_stream_open(cms_stream_in *s, const char *path, int form);
int cms_stream_read(void *ctx, uint8_t *buf, size_t cap, size_t *got);
void cms_stream_close(cms_stream_in *s);

/* A message to path as the streaming calls make it (cms_stream_out.c):
 * DER, or PEM (form not FORM_DER) encoded on the way; cms_stream_write is a
 * gostx_cms_write_fn; commit puts the file in place, close discards it. */
typedef struct cms_stream_out {
  cli_out out;
  int pem;
  uint8_t hold[48]; /* a PEM line's bytes */
  size_t held;
} cms_stream_out;
int cms_stream_out_open(cms_stream_out *s, const char *path, int form);
int cms_stream_write(void *ctx, const uint8_t *p, size_t len);
int cms_stream_out_commit(cms_stream_out *s);
void cms_stream_out_close(cms_stream_out *s);

/* -in's message read and parsed: *der and *sd malloc'ed (free both); a
 * message refused is named on stderr: CMS_EXIT_VERIFY. */
int cms_load_signed(const cms_args *a, uint8_t **der, gostx_cms_signed **sd);

/* -CAfile/-CApath as a store (NULL with -noverify); -untrusted and
 * -certfile's certificates appended to l. */
int cms_load_store(const cms_args *a, gostx_x509_store **store);
int cms_load_untrusted(const cms_args *a, cli_cert_list *l);

/* CAdES-T (cms_timestamp.c): the TimeStampReq for si's signature to path;
 * every signer's embedded timestamps checked, each one's time said. */
int cms_ts_write_query(const char *path, const gostx_cms_signer_info *si);
int cms_ts_check_all(const gostx_cms_signed *sd, const gostx_cms_verify_params *params);
/* One token (a TimeStampResp or bare token, der[len]) checked as a
 * timestamp of data[data_len] into *t, its time said after label; what
 * names it in an error (CMS_EXIT_VERIFY). */
int cms_ts_check_token(const char *what, const char *label, const uint8_t *der, size_t len,
                       const uint8_t *data, size_t data_len, const gostx_cms_verify_params *params,
                       gostx_cms_ts_token *t);
/* A token refused, named after what (pki_status: v->status REFUSED's):
 * CMS_EXIT_VERIFY. */
int cms_ts_refuse(const char *what, const gostx_cms_ts_verdict *v, int pki_status);
/* "label: TIME (TSA serial HEX)" on stderr: a token checked. */
void cms_ts_said(const char *label, int64_t gen_time, const uint8_t *serial, size_t serial_len);
/* "2026-11-28 17:50:00 UTC" */
void cms_time_text(int64_t t, char *text, size_t cap);
/* -print: each embedded timestamp's fields, as read (not verified). */
void cms_ts_print(FILE *f, const gostx_cms_signer_info *si);

enum { ENHANCE_T = 1, ENHANCE_XL1 };
int cms_enhance(const cms_args *a);
/* -verify's CAdES part (cms_cades.c): every signer's CAdES-C/X layers
 * (gostx_cades_verify) and, where it carries references and values, its
 * chain and revocation values at its signature timestamp's time; the level
 * reached said ("level: CAdES-X Long Type 1"). 0 or CMS_EXIT_VERIFY. */
int cms_cades_check(const gostx_cms_signed *sd, const gostx_cms_verify_params *params);
/* certificate-values' certificates of every signer, as views, appended
 * to l (for the chains -verify builds). */
void cms_cades_certs(const gostx_cms_signed *sd, cli_cert_list *l);
/* The certificate of sd's signer si: among sd's certificates and more[n]
 * (by issuer and serial, or subjectKeyIdentifier); NULL when none. */
const gostx_x509_cert *cms_signer_cert(const gostx_cms_signed *sd, const gostx_cms_signer_info *si,
                                       const gostx_x509_cert *more, size_t n);
int cms_sign(const cms_args *a);
int cms_timestamp(const cms_args *a);
int cms_verify(const cms_args *a);
int cms_cmsout(const cms_args *a);
/* cms_envelope.c */
int cms_encrypt(const cms_args *a);
int cms_decrypt(const cms_args *a);
int cms_encdata_encrypt(const cms_args *a);
int cms_encdata_decrypt(const cms_args *a);
int cms_digest_create(const cms_args *a);
int cms_digest_verify(const cms_args *a);

#endif
