/* gostx_cms_decrypt_stream: EnvelopedData or EncryptedData of any size,
 * BER or DER, in constant memory. The outer structures are walked with the
 * BER reader (cms/ber_in.h); the fields before the content and the
 * attributes after it are read whole into the work buffer and parsed by
 * the same code as the one-shot calls; the content is decrypted in place
 * in the reader's window and handed to the caller chunk by chunk. */
#include <string.h>

#include "cms/ber_in.h"
#include "cms/cms_internal.h"

/* The work buffer: the reader's window, then the header's elements. */
#define WINDOW (64u * 1024)

typedef struct dstream {
  const gostx_cms_decrypt_params *p;
  gostx__ber_in r;
  uint8_t *head, *head_end; /* the header area and its free part */
  gostx_cms_enveloped env;  /* EncryptedData: only .content used */
  gostx_cms_stream_result *res;
} dstream;

/* The next element (tag) whole into the header area; *whole its DER;
 * what names it when it does not fit. */
static int take(dstream *d, uint8_t tag, gostx__der *whole, const char *what) {
  size_t cap = (size_t)(d->p->work + d->p->work_len - d->head_end);
  int rc = gostx__ber_element(&d->r, tag, d->head_end, cap, whole);
  if (!rc) d->head_end += whole->n;
  else if (d->r.st == GOSTX_CMS_TOO_LARGE) d->res->too_large = what;
  return rc;
}

static int fail(dstream *d, gostx_cms_status st) {
  d->res->status = st;
  return GOSTX_EFORMAT;
}

/* ContentInfo { contentType, [0] EXPLICIT content }, opened down to the
 * content's SEQUENCE, the type the parameters ask for. */
static int content_info(dstream *d, int enveloped) {
  gostx__der whole, oid;
  int rc = gostx__ber_open(&d->r, GOSTX__DER_SEQ);
  if (!rc) rc = take(d, GOSTX__DER_OID, &whole, "contentType");
  if (rc) return rc;
  if (gostx__der_oid(&whole, &oid)) return GOSTX_EFORMAT;
  if (enveloped ? !GOSTX__DER_OID_IS(oid, OID_ENVELOPED_DATA) : !GOSTX__DER_OID_IS(oid, OID_ENCRYPTED_DATA))
    return fail(d, GOSTX_CMS_WRONG_TYPE);
  rc = gostx__ber_open(&d->r, GOSTX__DER_CTXC(0));
  if (!rc) rc = gostx__ber_open(&d->r, GOSTX__DER_SEQ);
  return rc;
}

/* The fields before EncryptedContentInfo, gathered in the header area
 * and read as the one-shot parse reads them. */
static int head(dstream *d, int enveloped) {
  uint8_t *start = d->head_end, tag = 0;
  gostx__der el, fields;
  int version, rc = take(d, GOSTX__DER_INT, &el, "version");
  if (!rc && enveloped && gostx__ber_more(&d->r, &tag) == 1 && tag == GOSTX__DER_CTXC(0))
    rc = take(d, tag, &el, "originatorInfo");
  if (!rc && enveloped) rc = take(d, GOSTX__DER_SET, &el, "recipientInfos");
  if (rc) return rc;
  fields.p = start, fields.n = (size_t)(d->head_end - start);
  if (enveloped) {
    rc = gostx__cms_enveloped_head(&fields, &d->env, &d->res->status) || fields.n ? GOSTX_EFORMAT : 0;
    d->res->n_recipients = d->env.n_recipients + d->env.n_other_recipients;
    return rc;
  }
  if (gostx__der_small_uint(&fields, &version) || (version != 0 && version != 2)) return GOSTX_EFORMAT;
  return 0;
}

/* EncryptedContentInfo's contentType and algorithm, read whole. */
static int content_alg(dstream *d, gostx_cms_encrypted_content *ec) {
  gostx__der whole, type, alg;
  int rc = gostx__ber_open(&d->r, GOSTX__DER_SEQ);
  if (!rc) rc = take(d, GOSTX__DER_OID, &whole, "encryptedContentInfo: contentType");
  if (!rc) rc = take(d, GOSTX__DER_SEQ, &alg, "encryptedContentInfo: contentEncryptionAlgorithm");
  if (rc) return rc;
  if (gostx__der_oid(&whole, &type) || gostx__cms_content_alg(&alg, ec) || alg.n) return GOSTX_EFORMAT;
  if (!gostx__cms_content_type_ok(type)) return fail(d, GOSTX_CMS_BAD_CONTENT_TYPE);
  ec->content_type = type.p, ec->content_type_len = type.n;
  d->res->cipher = ec->cipher;
  return 0;
}

/* The content-encryption key: the recipient's unwrap, or the caller's.
 * The checks in the one-shot calls' order (the recipient, then the
 * algorithms); an unknown algorithm named: the content's, or the first
 * recipient's whose key wrap is not built. */
static int cek_of(dstream *d, int enveloped, uint8_t cek[32]) {
  const gostx_cms_encrypted_content *ec = &d->env.content;
  int rc = enveloped ? gostx__cms_enveloped_cek(&d->env, d->p->cert, d->p->key, d->p->originator, cek,
                                                &d->res->status)
           : ec->cipher ? (memcpy(cek, d->p->secret_key, 32), 0)
                        : fail(d, GOSTX_CMS_UNKNOWN_CIPHER);
  if (rc && d->res->status == GOSTX_CMS_UNKNOWN_CIPHER) d->res->oid = ec->alg_oid, d->res->oid_len = ec->alg_oid_len;
  for (size_t i = 0; rc && d->res->status == GOSTX_CMS_UNKNOWN_KEY_WRAP && !d->res->oid && i < d->env.n_recipients; i++)
    if (!d->env.recipients[i].wrap_alg)
      d->res->oid = d->env.recipients[i].kea_oid, d->res->oid_len = d->env.recipients[i].kea_oid_len;
  return rc;
}

/* encryptedContent [0], decrypted chunk by chunk to write. */
static int content(dstream *d, gostx__cms_opener *o, gostx_cms_write_fn write, void *wctx) {
  uint8_t tag = 0, *p;
  size_t n;
  int rc = gostx__ber_more(&d->r, &tag);
  if (rc < 0 || rc > 1) return rc;
  if (rc == 0) return fail(d, GOSTX_CMS_NO_ENCRYPTED_CONTENT);
  if ((tag & 0xdf) != GOSTX__DER_CTX(0)) return fail(d, GOSTX_CMS_MALFORMED);
  if ((rc = gostx__ber_octets_open(&d->r, GOSTX__DER_CTX(0)))) return rc;
  for (;;) {
    if ((rc = gostx__ber_octets_read(&d->r, &p, &n)) || n == 0) return rc;
    if ((rc = gostx__cms_opener_update(o, p, n, p)) || (rc = write(wctx, p, n))) return rc;
    d->res->content_len += n;
  }
}

/* unprotectedAttrs [1] after EncryptedContentInfo, then the three
 * closings and the input's end. */
static int tail(dstream *d, gostx_cms_encrypted_content *ec) {
  uint8_t tag = 0;
  gostx__der whole, attrs;
  int rc = gostx__ber_close(&d->r), more = rc ? 0 : gostx__ber_more(&d->r, &tag);
  if (rc || more < 0 || more > 1) return rc ? rc : more;
  if (more && tag == GOSTX__DER_CTXC(1)) {
    if ((rc = take(d, tag, &whole, "unprotectedAttrs"))) return rc;
    if (gostx__der_get(&whole, GOSTX__DER_CTXC(1), &attrs, NULL) ||
        gostx__cms_unprotected_attrs(attrs, ec, &d->res->status))
      return GOSTX_EFORMAT;
  }
  for (int i = 0; i < 3 && !rc; i++) rc = gostx__ber_close(&d->r);
  return rc ? rc : gostx__ber_end(&d->r);
}

static int run(dstream *d, int enveloped, gostx_cms_write_fn write, void *wctx) {
  gostx_cms_encrypted_content *ec = &d->env.content;
  gostx__cms_opener o;
  uint8_t cek[32];
  int rc = content_info(d, enveloped);
  if (!rc) rc = head(d, enveloped);
  if (!rc) rc = content_alg(d, ec);
  if (!rc) rc = cek_of(d, enveloped, cek);
  if (!rc) rc = gostx__cms_opener_init(&o, ec, cek);
  gostx_memzero(cek, sizeof cek);
  if (rc) return rc;
  rc = content(d, &o, write, wctx);
  if (!rc) rc = tail(d, ec);
  if (!rc) rc = gostx__cms_check_mac_attr(ec, &d->res->status);
  if (rc) {
    gostx__cms_opener_clear(&o);
    return rc;
  }
  return gostx__cms_opener_final(&o, ec->mac, &d->res->status);
}

int gostx_cms_decrypt_stream(const gostx_cms_decrypt_params *p, gostx_cms_read_fn read,
                             void *read_ctx, gostx_cms_write_fn write, void *write_ctx,
                             gostx_cms_stream_result *res) {
  if (!res) return GOSTX_EINVAL;
  memset(res, 0, sizeof *res);
  res->status = GOSTX_CMS_MALFORMED;
  int enveloped = p && !p->secret_key;
  if (!p || !read || !write || !p->work || p->work_len < GOSTX_CMS_STREAM_WORK ||
      (enveloped && !p->key))
    return GOSTX_EINVAL;
  dstream d;
  memset(&d, 0, sizeof d);
  d.p = p, d.res = res;
  d.head = d.head_end = p->work + WINDOW;
  gostx__ber_in_init(&d.r, read, read_ctx, p->work, WINDOW);
  int rc = run(&d, enveloped, write, write_ctx);
  /* the reader's refusal, where the structure did not name one */
  if (rc == GOSTX_EFORMAT && d.r.st != GOSTX_CMS_MALFORMED &&
      (res->status == GOSTX_CMS_MALFORMED || res->status == GOSTX_CMS_OK))
    res->status = d.r.st;
  if (!rc) res->status = GOSTX_CMS_OK;
  else if (res->status == GOSTX_CMS_OK) res->status = GOSTX_CMS_MALFORMED;
  gostx_memzero(p->work, WINDOW); /* decrypted content was there */
  return rc;
}
