/* gostx_cms_signed_stream: a SignedData of any size, BER or DER, read in
 * constant memory. The attached content is digested (and handed on) as
 * it streams; every other field is read whole into the work buffer and
 * the message rebuilt there without its content, as DER, so that the
 * one-shot parser and verifier check it as a detached signature with the
 * digests computed here. */
#include <string.h>

#include "cms/ber_in.h"
#include "cms/cms_internal.h"

#define WINDOW (64u * 1024)
#define PREFIX 48 /* room for the rebuilt outer headers before the fields */

typedef struct sstream {
  gostx__ber_in r;
  uint8_t *start, *end, *limit; /* the rebuilt fields: start..end, room to limit */
  gostx_cms_signed_stream_result *res;
} sstream;

/* TOO_LARGE, what did not fit named in the result. */
static int too_large(sstream *s, const char *what) {
  s->res->too_large = what;
  return s->r.st = GOSTX_CMS_TOO_LARGE, GOSTX_EFORMAT;
}

/* The next element (tag) whole, appended to the rebuilt fields; what
 * names it when it does not fit. */
static int take(sstream *s, uint8_t tag, gostx__der *whole, const char *what) {
  int rc = gostx__ber_element(&s->r, tag, s->end, (size_t)(s->limit - s->end), whole);
  if (!rc) s->end += whole->n;
  else if (s->r.st == GOSTX_CMS_TOO_LARGE) s->res->too_large = what;
  return rc;
}

/* What a SignerInfo's field (RFC 5652 5.3) is called, by its place and
 * tag: version, sid, digestAlgorithm, [0] signedAttrs, signatureAlgorithm,
 * signature, [1] unsignedAttrs. */
static const char *signer_field(size_t i, uint8_t tag) {
  static const char *const first[] = {"signerInfos: a SignerInfo's version", "signerInfos: a SignerInfo's sid",
                                      "signerInfos: a SignerInfo's digestAlgorithm"};
  if (i < 3) return first[i];
  if (tag == GOSTX__DER_CTXC(0)) return "signerInfos: a SignerInfo's signedAttrs";
  if (tag == GOSTX__DER_CTXC(1)) return "signerInfos: a SignerInfo's unsignedAttrs";
  return tag == GOSTX__DER_OCTETS ? "signerInfos: a SignerInfo's signature"
                                  : "signerInfos: a SignerInfo's signatureAlgorithm";
}

/* certificates [0], crls [1] or signerInfos (and inside it each
 * SignerInfo), definite or not (BouncyCastle writes the certificates' [0]
 * with an indefinite length): its elements whole, appended under a
 * definite header, as DER writes it. A SignerInfo is taken field by field,
 * so that the one too large for the work buffer is named. */
static int take_set(sstream *s, uint8_t tag, const char *what) {
  uint8_t *at = s->end, hdr[GOSTX__DER_HEADER_MAX], t;
  gostx__der el;
  if ((size_t)(s->limit - s->end) < sizeof hdr) return too_large(s, what);
  s->end += sizeof hdr;
  int rc = gostx__ber_open(&s->r, tag);
  for (size_t i = 0; !rc && (rc = gostx__ber_more(&s->r, &t)) == 1; i++) {
    if (tag == GOSTX__DER_SET && t == GOSTX__DER_SEQ) rc = take_set(s, t, what); /* a SignerInfo */
    else if (tag == GOSTX__DER_SEQ) rc = take(s, t, &el, signer_field(i, t));
    else rc = take(s, t, &el, what);
  }
  if (!rc) rc = gostx__ber_close(&s->r);
  if (rc) return rc;
  size_t len = (size_t)(s->end - at) - sizeof hdr, h = gostx__der_header(hdr, tag, len);
  memmove(at + h, at + sizeof hdr, len);
  memcpy(at, hdr, h);
  s->end = at + h + len;
  return 0;
}

/* The digests digestAlgorithms names (those lib/cms knows). */
static unsigned wanted(gostx__der whole) {
  gostx__der set, id, oid;
  unsigned want = 0;
  if (gostx__der_get(&whole, GOSTX__DER_SET, &set, NULL)) return 0;
  while (set.n && !gostx__der_get(&set, GOSTX__DER_SEQ, NULL, &id) && !gostx__cms_alg_id(&id, &oid)) {
    size_t n = gostx__cms_digest_size(oid);
    want |= n == 32 ? GOSTX_CMS_HASH_256 : n == 64 ? GOSTX_CMS_HASH_512 : 0;
  }
  return want;
}

/* eContent [0] EXPLICIT OCTET STRING, digested and handed on. */
static int content(sstream *s, unsigned want, gostx_cms_write_fn write, void *wctx) {
  gostx_cms_signed_stream_result *res = s->res;
  uint8_t *p;
  size_t n;
  int rc = gostx__ber_open(&s->r, GOSTX__DER_CTXC(0));
  if (!rc) rc = gostx__ber_octets_open(&s->r, GOSTX__DER_OCTETS);
  if (rc) return rc;
  res->attached = 1;
  res->hashed = want && !gostx_cms_hash_init(&res->hash, want);
  for (;;) {
    if ((rc = gostx__ber_octets_read(&s->r, &p, &n))) return rc;
    if (!n) break;
    if (res->hashed && (rc = gostx_cms_hash_update(&res->hash, p, n))) return rc;
    if (write && (rc = write(wctx, p, n))) return rc;
    res->content_len += n;
  }
  if (res->hashed && (rc = gostx_cms_hash_final(&res->hash))) return rc;
  return gostx__ber_close(&s->r);
}

/* encapContentInfo: its type kept (rebuilt as SEQUENCE { type }), its
 * content streamed. */
static int encap(sstream *s, unsigned want, gostx_cms_write_fn write, void *wctx) {
  gostx__der type;
  uint8_t tag = 0;
  uint8_t *at = s->end;
  if (s->limit - s->end < 2) return too_large(s, "encapContentInfo");
  s->end += 2; /* SEQUENCE's header, its length known after */
  int rc = gostx__ber_open(&s->r, GOSTX__DER_SEQ);
  if (!rc) rc = take(s, GOSTX__DER_OID, &type, "encapContentInfo: eContentType");
  if (rc) return rc;
  if (type.n > 127) return GOSTX_EFORMAT;
  (void)gostx__der_header(at, GOSTX__DER_SEQ, type.n); /* two bytes, as reserved */
  int more = gostx__ber_more(&s->r, &tag);
  if (more == 1 && tag == GOSTX__DER_CTXC(0)) rc = content(s, want, write, wctx);
  else if (more < 0 || more > 1) rc = more;
  return rc ? rc : gostx__ber_close(&s->r);
}

/* The outer headers written just before the fields: the rebuilt DER. */
static void rebuild(sstream *s) {
  static const uint8_t oid[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02};
  uint8_t h[3][GOSTX__DER_HEADER_MAX];
  size_t len = (size_t)(s->end - s->start), hl[3];
  for (int i = 0; i < 3; i++) {
    static const uint8_t tags[3] = {GOSTX__DER_SEQ, GOSTX__DER_CTXC(0), GOSTX__DER_SEQ};
    hl[i] = gostx__der_header(h[i], tags[2 - i], len);
    len += hl[i] + (i == 1 ? sizeof oid : 0);
  }
  uint8_t *p = s->start;
  memcpy(p -= hl[0], h[0], hl[0]);
  memcpy(p -= hl[1], h[1], hl[1]);
  memcpy(p -= sizeof oid, oid, sizeof oid);
  memcpy(p -= hl[2], h[2], hl[2]);
  s->res->der = p, s->res->der_len = (size_t)(s->end - p);
}

static int run(sstream *s, gostx_cms_write_fn write, void *wctx) {
  gostx__der el, oid;
  uint8_t tag = 0;
  int rc = gostx__ber_open(&s->r, GOSTX__DER_SEQ);
  if (!rc) rc = take(s, GOSTX__DER_OID, &el, "contentType");
  if (rc) return rc;
  s->end = s->start; /* the type is not a field */
  if (gostx__der_oid(&el, &oid) || !GOSTX__DER_OID_IS(oid, OID_SIGNED_DATA))
    return s->res->status = GOSTX_CMS_NOT_SIGNED_DATA, GOSTX_EFORMAT;
  if ((rc = gostx__ber_open(&s->r, GOSTX__DER_CTXC(0))) || (rc = gostx__ber_open(&s->r, GOSTX__DER_SEQ)) ||
      (rc = take(s, GOSTX__DER_INT, &el, "version")) ||
      (rc = take(s, GOSTX__DER_SET, &el, "digestAlgorithms")) ||
      (rc = encap(s, wanted(el), write, wctx)))
    return rc;
  /* certificates [0], crls [1], signerInfos: their order checked by the parser */
  while ((rc = gostx__ber_more(&s->r, &tag)) == 1) {
    if (tag != GOSTX__DER_CTXC(0) && tag != GOSTX__DER_CTXC(1) && tag != GOSTX__DER_SET)
      return GOSTX_EFORMAT;
    if ((rc = take_set(s, tag, tag == GOSTX__DER_SET ? "signerInfos"
                               : tag == GOSTX__DER_CTXC(0) ? "certificates" : "crls")))
      return rc;
  }
  if (rc) return rc;
  for (int i = 0; i < 3 && !rc; i++) rc = gostx__ber_close(&s->r);
  if (!rc) rc = gostx__ber_end(&s->r);
  if (!rc) rebuild(s);
  return rc;
}

int gostx_cms_signed_stream(uint8_t *work, size_t work_len, gostx_cms_read_fn read, void *read_ctx,
                            gostx_cms_write_fn write, void *write_ctx,
                            gostx_cms_signed_stream_result *res) {
  if (!res) return GOSTX_EINVAL;
  memset(res, 0, sizeof *res);
  res->status = GOSTX_CMS_MALFORMED;
  if (!work || work_len < GOSTX_CMS_STREAM_WORK || !read) return GOSTX_EINVAL;
  sstream s;
  memset(&s, 0, sizeof s);
  s.res = res;
  s.start = s.end = work + WINDOW + PREFIX, s.limit = work + work_len;
  gostx__ber_in_init(&s.r, read, read_ctx, work, WINDOW);
  int rc = run(&s, write, write_ctx);
  if (rc == GOSTX_EFORMAT && s.r.st != GOSTX_CMS_MALFORMED && res->status == GOSTX_CMS_MALFORMED)
    res->status = s.r.st;
  if (!rc) res->status = GOSTX_CMS_OK;
  return rc;
}
