/* A TSA's own validation data in its timestamp token (RFC 5126 Annex B.2;
 * the TSU notes of 6.2.1, 6.2.2, 6.3.3, 6.3.4): the complete references
 * and values for the TSA's certificate written into the token's SignerInfo
 * (its signature and TSTInfo unchanged), the token put back in the
 * signer's attribute (read back and checked: cades_tsa_verify.c). */
#include "cms/cades_internal.h"

int gostx_cades_add_tsa_validation(const gostx_cms_ts_token *t, const gostx_x509_cert *tsa_cert,
                                   const gostx_cades_validation *v, uint8_t *out, size_t cap, size_t *out_len,
                                   gostx_cades_status *st) {
  gostx_cades_status dummy;
  gostx_cades_info info;
  gostx__cades_inputs in;
  if (!st) st = &dummy;
  *st = GOSTX_CADES_MALFORMED;
  if (!t || !t->sd.der || !tsa_cert || !out_len || !gostx__cades_validation_ok(v)) return GOSTX_EINVAL;
  if (t->sd.n_signers != 1 || gostx_cades_parse(&t->sd.signers[0], &info, st)) return GOSTX_EFORMAT;
  if (info.has_cert_refs || info.has_rev_refs || info.has_cert_values || info.has_rev_values)
    *st = GOSTX_CADES_DUPLICATE;
  else *st = gostx__cades_read_inputs(v, &in);
  if (*st) return GOSTX_EFORMAT;
  in.signer = tsa_cert, in.what = GOSTX_CADES_REFS | GOSTX_CADES_VALUES;
  return gostx__cms_add_unsigned(&t->sd, 0, gostx__cades_write_validation, &in, out, cap, out_len);
}

/* ---- the token put back ---- */

typedef struct replacing {
  gostx__der oid; /* the attribute's type */
  const char *oid_text;
  size_t index;   /* which of them */
  gostx__der token;
} replacing;

/* every attribute as it was but the index-th of the type, which holds the token */
static void replace_attr(gostx__der_w *w, gostx__der old, const void *ctx) {
  const replacing *r = ctx;
  gostx__der oid, values, content;
  size_t seen = 0;
  while (old.n && !gostx__cades_next_attr(&old, &oid, &values, &content)) {
    int it = oid.n == r->oid.n && !memcmp(oid.p, r->oid.p, oid.n) && seen++ == r->index;
    if (it) gostx__cms_attr_begin(w, r->oid_text);
    else gostx__der_w_begin(w, GOSTX__DER_SEQ);
    gostx__der_w_raw(w, it ? r->token.p : content.p, it ? r->token.n : content.n);
    if (it) gostx__cms_attr_end(w);
    else gostx__der_w_end(w);
  }
}

/* 1 when b is a with only its SignerInfo's unsigned attributes changed:
 * the same TSTInfo, the same signed attributes and signature */
static int same_token(const gostx_cms_ts_token *a, const gostx_cms_ts_token *b) {
  const gostx_cms_signer_info *x = &a->sd.signers[0], *y = &b->sd.signers[0];
  return a->sd.n_signers == 1 && b->sd.n_signers == 1 && a->sd.content_len == b->sd.content_len &&
         !memcmp(a->sd.content, b->sd.content, a->sd.content_len) && x->signature_len == y->signature_len &&
         !memcmp(x->signature, y->signature, x->signature_len) && x->signed_attrs_len == y->signed_attrs_len &&
         (!x->signed_attrs_len || !memcmp(x->signed_attrs, y->signed_attrs, x->signed_attrs_len));
}

int gostx_cades_replace_timestamp(const gostx_cms_signed *sd, const gostx_cades_ts_at *at,
                                  const uint8_t *token, size_t token_len, uint8_t *out, size_t cap,
                                  size_t *out_len, gostx_cades_status *st) {
  gostx_cades_status dummy;
  gostx_cades_info info;
  gostx_cms_ts_token old, now;
  if (!st) st = &dummy;
  *st = GOSTX_CADES_MALFORMED;
  if (!sd || !sd->der || !at || !token || !out_len) return GOSTX_EINVAL;
  const size_t signer = at->signer, index = at->index;
  const int kind = at->kind;
  if (signer >= sd->n_signers ||
      (kind != GOSTX_CADES_TS_SIGNATURE && kind != GOSTX_CADES_TS_ESC))
    return GOSTX_EINVAL;
  if (gostx_cades_parse(&sd->signers[signer], &info, st)) return GOSTX_EFORMAT;
  int sig = kind == GOSTX_CADES_TS_SIGNATURE;
  size_t n = sig ? info.n_sig_ts : info.n_esc_ts;
  if (index >= n || index >= GOSTX_CADES_MAX) return GOSTX_EINVAL;
  if (sig && info.n_esc_ts) *st = GOSTX_CADES_TIMESTAMPED;
  else if (gostx_cms_ts_parse(sig ? info.sig_ts[index] : info.esc_ts[index],
                              sig ? info.sig_ts_len[index] : info.esc_ts_len[index], &old, NULL) ||
           gostx_cms_ts_parse(token, token_len, &now, NULL))
    *st = GOSTX_CADES_MALFORMED;
  else if (!same_token(&old, &now)) *st = GOSTX_CADES_OTHER_TOKEN;
  else *st = GOSTX_CADES_OK;
  if (*st) return GOSTX_EFORMAT;
  replacing r = {{(const uint8_t *)(sig ? OID_AA_SIG_TS : OID_AA_ESC_TS), sizeof OID_AA_SIG_TS - 1},
                 sig ? "1.2.840.113549.1.9.16.2.14" : "1.2.840.113549.1.9.16.2.25", index,
                 {now.token, now.token_len}};
  return gostx__cms_rewrite_unsigned(sd, signer, replace_attr, &r, out, cap, out_len);
}
