/* gostx cms -sign -nodetach in constant memory. A regular file is
 * digested first (cms_hash_file), the library signs that digest as a
 * detached SignedData, and the attached message is written from it with
 * the content spliced into encapContentInfo: DER, its lengths from the
 * file's size; the file read a second time and digested again on the way,
 * so that one changed between the two passes is refused and the output (a
 * temporary file) discarded. A pipe is read once: BER with indefinite
 * lengths around the content's OCTET STRING segments (as openssl cms -sign
 * -stream writes), the signature made after the content went by. */
#include <stdlib.h>
#include <string.h>

#include "cms_cli.h"

/* A DER header at p (within end): its tag, content length; its size, 0
 * when malformed (the library wrote it: a bug then). */
static size_t der_header(const uint8_t *p, const uint8_t *end, uint8_t *tag, size_t *len) {
  if (end - p < 2) return 0;
  size_t k = p[1] & 0x7f, h = 2;
  *tag = p[0], *len = p[1];
  if (p[1] & 0x80) {
    if (k == 0 || k > 4 || (size_t)(end - p) < 2 + k) return 0;
    *len = 0;
    for (size_t i = 0; i < k; i++) *len = *len << 8 | p[2 + i];
    h += k;
  }
  return (size_t)(end - p) - h < *len ? 0 : h;
}

static size_t put_header(uint8_t *o, uint8_t tag, uint64_t len) {
  size_t k = 0;
  for (uint64_t v = len; len >= 0x80 && v; v >>= 8) k++;
  o[0] = tag;
  o[1] = k ? (uint8_t)(0x80 | k) : (uint8_t)len;
  for (size_t i = 0; i < k; i++) o[2 + i] = (uint8_t)(len >> (8 * (k - 1 - i)));
  return 2 + k;
}

static uint64_t tlv_len(uint64_t len) {
  uint8_t h[10];
  return put_header(h, 0, len) + len;
}

/* The detached message's parts: the fields before encapContentInfo
 * (version, digestAlgorithms), eContentType's TLV, the fields after. */
typedef struct parts {
  const uint8_t *prefix, *type, *tail;
  size_t prefix_len, type_len, tail_len;
} parts;

static int split(const uint8_t *der, size_t len, parts *pt) {
  const uint8_t *p = der, *end = der + len;
  uint8_t tag;
  size_t n, h;
  /* ContentInfo, its OID, [0], SignedData's SEQUENCE */
  if (!(h = der_header(p, end, &tag, &n))) return -1;
  p += h;
  if (!(h = der_header(p, end, &tag, &n))) return -1;
  p += h + n;
  for (int i = 0; i < 2; i++) {
    if (!(h = der_header(p, end, &tag, &n))) return -1;
    p += h;
  }
  pt->prefix = p;
  for (int i = 0; i < 2; i++) { /* version, digestAlgorithms */
    if (!(h = der_header(p, end, &tag, &n))) return -1;
    p += h + n;
  }
  pt->prefix_len = (size_t)(p - pt->prefix);
  if (!(h = der_header(p, end, &tag, &n)) || tag != 0x30) return -1; /* encapContentInfo { type } */
  pt->type = p + h, pt->type_len = n;
  pt->tail = p + h + n, pt->tail_len = (size_t)(end - pt->tail);
  return 0;
}

/* Everything before the content's bytes, for content_len of them. */
static int write_head(cms_stream_out *out, const parts *pt, uint64_t content_len) {
  static const uint8_t oid[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02};
  uint64_t octets = tlv_len(content_len), ex = tlv_len(octets), encap = tlv_len(pt->type_len + ex);
  uint64_t fields = pt->prefix_len + encap + pt->tail_len, x = tlv_len(tlv_len(fields));
  uint8_t h[64];
  size_t n = put_header(h, 0x30, sizeof oid + x);
  memcpy(h + n, oid, sizeof oid), n += sizeof oid;
  n += put_header(h + n, 0xa0, tlv_len(fields));
  n += put_header(h + n, 0x30, fields);
  int rc = cms_stream_write(out, h, n);
  if (!rc) rc = cms_stream_write(out, pt->prefix, pt->prefix_len);
  n = put_header(h, 0x30, pt->type_len + ex);
  memcpy(h + n, pt->type, pt->type_len), n += pt->type_len;
  n += put_header(h + n, 0xa0, octets);
  n += put_header(h + n, 0x04, content_len);
  return rc ? rc : cms_stream_write(out, h, n);
}

/* The file again into out, digested: 0 when it is what was signed. */
static int copy_same(const cms_args *a, cms_stream_out *out, const gostx_cms_hash *first,
                     uint64_t content_len) {
  static uint8_t buf[CLI_CHUNK];
  gostx_cms_hash again;
  cli_in in;
  size_t got;
  uint64_t total = 0;
  int rc = cli_in_open(&in, a->in);
  if (rc) return rc;
  (void)gostx_cms_hash_init(&again, first->want);
  while (!(rc = cli_in_read(&in, buf, sizeof buf, &got)) && got) {
    (void)gostx_cms_hash_update(&again, buf, got);
    total += got;
    if ((rc = cms_stream_write(out, buf, got))) break;
  }
  cli_in_close(&in);
  if (rc) return rc;
  (void)gostx_cms_hash_final(&again);
  if (total != content_len || memcmp(again.d256, first->d256, sizeof again.d256) ||
      memcmp(again.d512, first->d512, sizeof again.d512)) {
    cli_err("cms: %s changed while it was signed: nothing written", a->in);
    return CLI_EXIT_FAIL;
  }
  return 0;
}

int cms_write_attached(const cms_args *a, const uint8_t *detached, size_t len, const gostx_cms_hash *h,
                       uint64_t content_len) {
  parts pt;
  cms_stream_out out;
  if (split(detached, len, &pt)) {
    cli_err("cms: sign: the detached message could not be read back");
    return CLI_EXIT_FAIL;
  }
  int rc = cms_stream_out_open(&out, a->out, a->outform);
  if (rc) return rc;
  rc = write_head(&out, &pt, content_len);
  if (!rc) rc = copy_same(a, &out, h, content_len);
  if (!rc) rc = cms_stream_write(&out, pt.tail, pt.tail_len);
  if (!rc) rc = cms_stream_out_commit(&out);
  cms_stream_out_close(&out);
  return rc;
}

/* The BER message's opening up to the content's first segment: every
 * length indefinite; the content a constructed OCTET STRING. */
static int write_ber_head(cms_stream_out *out, const parts *pt) {
  static const uint8_t open[] = {0x30, 0x80, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d,
                                 0x01, 0x07, 0x02, 0xa0, 0x80, 0x30, 0x80};
  static const uint8_t seq[] = {0x30, 0x80}, content[] = {0xa0, 0x80, 0x24, 0x80};
  int rc = cms_stream_write(out, open, sizeof open);
  if (!rc) rc = cms_stream_write(out, pt->prefix, pt->prefix_len);
  if (!rc) rc = cms_stream_write(out, seq, sizeof seq);
  if (!rc) rc = cms_stream_write(out, pt->type, pt->type_len);
  return rc ? rc : cms_stream_write(out, content, sizeof content);
}

/* -in's bytes as OCTET STRING segments, digested on the way into h. */
static int stream_segments(const cms_args *a, cms_stream_out *out, gostx_cms_hash *h) {
  static uint8_t buf[CLI_CHUNK];
  uint8_t hdr[8];
  cli_in in;
  size_t got;
  int rc = cli_in_open(&in, a->in);
  if (rc) return rc;
  while (!(rc = cli_in_read(&in, buf, sizeof buf, &got)) && got) {
    (void)gostx_cms_hash_update(h, buf, got);
    if ((rc = cms_stream_write(out, hdr, put_header(hdr, 0x04, got))) || (rc = cms_stream_write(out, buf, got)))
      break;
  }
  cli_in_close(&in);
  (void)gostx_cms_hash_final(h);
  return rc;
}

int cms_write_attached_pipe(const cms_args *a, unsigned want, cms_sign_fn sign, void *ctx, uint8_t **der,
                            size_t *len) {
  static const uint8_t eocs[6];
  gostx_cms_hash h;
  uint8_t *first = NULL;
  size_t first_len = 0;
  parts head, pt;
  cms_stream_out out;
  /* version and digestAlgorithms go before the content and do not depend
   * on its digest: taken from a message signed over an empty one, which
   * is discarded (the real one must agree) */
  (void)gostx_cms_hash_init(&h, want);
  (void)gostx_cms_hash_final(&h);
  int rc = sign(ctx, &h, &first, &first_len);
  if (!rc && split(first, first_len, &head))
    rc = (cli_err("cms: sign: the message could not be read back"), CLI_EXIT_FAIL);
  if (!rc) rc = cms_stream_out_open(&out, a->out, a->outform);
  if (rc) return free(first), rc;
  (void)gostx_cms_hash_init(&h, want);
  rc = write_ber_head(&out, &head);
  if (!rc) rc = stream_segments(a, &out, &h);
  if (!rc) rc = cms_stream_write(&out, eocs, 6); /* the content's, [0]'s, encapContentInfo's */
  if (!rc) rc = sign(ctx, &h, der, len);
  if (!rc && (split(*der, *len, &pt) || pt.prefix_len != head.prefix_len ||
              memcmp(pt.prefix, head.prefix, pt.prefix_len)))
    rc = (cli_err("cms: sign: the message could not be read back"), CLI_EXIT_FAIL);
  if (!rc) rc = cms_stream_write(&out, pt.tail, pt.tail_len);
  if (!rc) rc = cms_stream_write(&out, eocs, 6); /* SignedData's, [0]'s, ContentInfo's */
  if (!rc) rc = cms_stream_out_commit(&out);
  cms_stream_out_close(&out);
  free(first);
  return rc;
}
