/* A SignedData re-encoded with attributes added to one signer's
 * unsignedAttrs, the signed bytes as they were: CAdES-T's token,
 * CAdES-C / X's references, values and timestamps (cades_write.c). */
#include "cms/cms_internal.h"

/* A SignerInfo again, its unsignedAttrs [1] (the last field) what
 * rewrite makes of the attributes it had (their content; n 0 when none):
 * unsigned attributes are not signed, so they need no DER order (RFC 5652
 * 5.3). */
static void signer_again(gostx__der_w *w, gostx__der si, gostx__cms_attrs_rewriter *rewrite,
                         const void *ctx) {
  gostx__der field = {0}, whole, old = {0};
  uint8_t tag = 0;
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  while (!gostx__der_next(&si, &tag, &field, &whole) && tag != GOSTX__DER_CTXC(1))
    gostx__der_w_raw(w, whole.p, whole.n);
  gostx__der_w_begin(w, GOSTX__DER_CTXC(1));
  if (tag == GOSTX__DER_CTXC(1)) old = field;
  rewrite(w, old, ctx);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

int gostx__cms_rewrite_unsigned(const gostx_cms_signed *sd, size_t signer, gostx__cms_attrs_rewriter *rewrite,
                                const void *ctx, uint8_t *out, size_t cap, size_t *out_len) {
  /* sd->der was parsed whole: its structure is known good */
  gostx__der r = {sd->der, sd->der_len}, ci, oid, explicit, body, field, whole, si, last = {0};
  uint8_t tag;
  gostx__der_get(&r, GOSTX__DER_SEQ, &ci, NULL);
  gostx__der_oid(&ci, &oid);
  gostx__der_get(&ci, GOSTX__DER_CTXC(0), &explicit, NULL);
  gostx__der_get(&explicit, GOSTX__DER_SEQ, &body, NULL);
  gostx__der_w w;
  gostx__cms_w_open(&w, out, cap, "1.2.840.113549.1.7.2");
  while (!gostx__der_next(&body, &tag, &field, &whole)) { /* signerInfos is the last field */
    if (last.p) gostx__der_w_raw(&w, last.p, last.n);
    last = whole;
  }
  gostx__der set = last;
  gostx__der_get(&set, GOSTX__DER_SET, &field, NULL);
  gostx__der_w_begin(&w, GOSTX__DER_SET);
  for (size_t i = 0; !gostx__der_get(&field, GOSTX__DER_SEQ, &si, &whole); i++) {
    if (i == signer) signer_again(&w, si, rewrite, ctx);
    else gostx__der_w_raw(&w, whole.p, whole.n);
  }
  gostx__der_w_end(&w);
  gostx__cms_w_close(&w);
  return gostx__der_w_finish(&w, out_len);
}

/* the attributes kept as they were, then write's */
typedef struct appended {
  gostx__cms_attr_writer *write;
  const void *ctx;
} appended;

static void append(gostx__der_w *w, gostx__der old, const void *ctx) {
  const appended *a = ctx;
  if (old.n) gostx__der_w_raw(w, old.p, old.n);
  a->write(w, a->ctx);
}

int gostx__cms_add_unsigned(const gostx_cms_signed *sd, size_t signer, gostx__cms_attr_writer *write,
                            const void *ctx, uint8_t *out, size_t cap, size_t *out_len) {
  appended a = {write, ctx};
  return gostx__cms_rewrite_unsigned(sd, signer, append, &a, out, cap, out_len);
}
