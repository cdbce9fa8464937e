/* CMS streaming input: lib/cms's BER reader (cms/ber_in.h) on hand-made
 * BER fed a byte at a time and whole (indefinite lengths, a chunked OCTET
 * STRING, every prefix TRUNCATED, a trailing byte, a broken end-of-contents,
 * non-shortest lengths, an element longer than its parent, nesting past the
 * limit); and gostx_cms_decrypt_stream on EnvelopedData and EncryptedData
 * made here for each content cipher and sizes past an ACPKM section, as DER
 * and rewritten as openssl cms -stream writes them (BER, the content in
 * segments), and on R 1323565.1.025-2019's KTRI and KARI examples:
 * the same bytes as the one-shot calls, the same named refusals. */
#include "cms/ber_in.h"
#include "testutil.h"

/* ---- a read callback over memory, `step` bytes a call at most ---- */
typedef struct feed {
  const uint8_t *p;
  size_t n, pos, step;
} feed;

static int feed_read(void *ctx, uint8_t *buf, size_t cap, size_t *got) {
  feed *f = ctx;
  size_t n = f->n - f->pos;
  if (n > cap) n = cap;
  if (f->step && n > f->step) n = f->step;
  memcpy(buf, f->p + f->pos, n);
  f->pos += n, *got = n;
  return 0;
}

/* ---- the reader ---- */

/* SEQ(indef) { OCTETS "abc", OCTETS(constructed, indef) "d" "" "ef",
 * SEQ { INTEGER 5 } } */
static const uint8_t ber[] = {0x30, 0x80, 0x04, 0x03, 'a',  'b',  'c',  0x24, 0x80, 0x04, 0x01,
                              'd',  0x04, 0x00, 0x04, 0x02, 'e',  'f',  0x00, 0x00, 0x30, 0x03,
                              0x02, 0x01, 0x05, 0x00, 0x00};

/* Reads `ber`'s shape from in[n]: 0 and the strings and element right, or
 * the reader's refusal (*st). */
static int read_shape(const uint8_t *in, size_t n, size_t step, gostx_cms_status *st) {
  uint8_t window[64], el[16], *p, tag = 0, text[8];
  size_t got, len = 0;
  feed f = {in, n, 0, step};
  gostx__ber_in r;
  gostx__der whole;
  gostx__ber_in_init(&r, feed_read, &f, window, sizeof window);
  int rc = gostx__ber_open(&r, GOSTX__DER_SEQ);
  for (int s = 0; s < 2 && !rc; s++) {
    if (gostx__ber_more(&r, &tag) != 1 || tag != (s ? 0x24 : 0x04)) break;
    rc = gostx__ber_octets_open(&r, GOSTX__DER_OCTETS);
    while (!rc && !(rc = gostx__ber_octets_read(&r, &p, &got)) && got && len + got <= sizeof text)
      memcpy(text + len, p, got), len += got;
  }
  if (!rc) rc = gostx__ber_element(&r, GOSTX__DER_SEQ, el, sizeof el, &whole);
  int more = rc ? 0 : gostx__ber_more(&r, NULL);
  if (more) rc = more == 1 ? -1 : more;
  if (!rc) rc = gostx__ber_close(&r);
  if (!rc) rc = gostx__ber_end(&r);
  *st = rc ? r.st : GOSTX_CMS_OK;
  if (!rc && (len != 6 || memcmp(text, "abcdef", 6) || whole.n != 5 || memcmp(whole.p, ber + 20, 5)))
    return -2;
  return rc;
}

/* SEQ { SEQ } read by open, element, close, end: the reader's status. */
static gostx_cms_status one_element(const uint8_t *in, size_t n) {
  uint8_t window[32], el[16];
  feed f = {in, n, 0, 0};
  gostx__ber_in r;
  gostx__der whole;
  gostx__ber_in_init(&r, feed_read, &f, window, sizeof window);
  int rc = gostx__ber_open(&r, GOSTX__DER_SEQ);
  if (!rc) rc = gostx__ber_element(&r, GOSTX__DER_SEQ, el, sizeof el, &whole);
  if (!rc) rc = gostx__ber_close(&r);
  if (!rc) rc = gostx__ber_end(&r);
  return rc ? r.st : GOSTX_CMS_OK;
}

static void reader(void) {
  gostx_cms_status st;
  uint8_t copy[sizeof ber + 1];
  for (size_t step = 0; step < 3; step++)
    CHECK(read_shape(ber, sizeof ber, step, &st) == 0, "BER read (%zu bytes a call): %s", step,
          gostx_cms_status_name(st));
  for (size_t cut = 0; cut < sizeof ber; cut++)
    CHECK(read_shape(ber, cut, 1, &st) == GOSTX_EFORMAT && st == GOSTX_CMS_TRUNCATED,
          "a prefix of %zu bytes: TRUNCATED (%s)", cut, gostx_cms_status_name(st));
  memcpy(copy, ber, sizeof ber);
  copy[sizeof ber] = 0;
  CHECK(read_shape(copy, sizeof ber + 1, 0, &st) && st == GOSTX_CMS_TRAILING_DATA,
        "a byte after the end: TRAILING_DATA (%s)", gostx_cms_status_name(st));
  copy[sizeof ber - 1] = 1;
  CHECK(read_shape(copy, sizeof ber, 0, &st) && st == GOSTX_CMS_BAD_EOC, "00 01 as end-of-contents: %s",
        gostx_cms_status_name(st));
  copy[sizeof ber - 1] = 0, copy[19] = 1; /* the constructed string's end */
  CHECK(read_shape(copy, sizeof ber, 0, &st) && st == GOSTX_CMS_BAD_EOC, "the string's end 00 01: %s",
        gostx_cms_status_name(st));
  static const struct {
    uint8_t b[6];
    const char *what;
  } bad[] = {{{0x30, 0x81, 0x03, 0x04, 0x01, 'a'}, "a length not in its shortest form"},
             {{0x30, 0x80, 0x04, 0x80, 0x00, 0x00}, "an indefinite primitive"},
             {{0x30, 0x80, 0x1f, 0x01, 0x00, 0x00}, "a high tag number"},
             {{0x30, 0x89, 0x01, 0x00, 0x00, 0x00}, "a nine-byte length"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK(read_shape(bad[i].b, sizeof bad[i].b, 0, &st) && st == GOSTX_CMS_MALFORMED, "%s: MALFORMED (%s)",
          bad[i].what, gostx_cms_status_name(st));
  /* SEQ(3) { OCTETS(5) ... }: the child longer than its parent */
  static const uint8_t over[] = {0x30, 0x03, 0x04, 0x05, 'a', 'b', 'c', 'd', 'e'};
  CHECK(read_shape(over, sizeof over, 0, &st) && st == GOSTX_CMS_MALFORMED, "a child past its parent: %s",
        gostx_cms_status_name(st));
  /* an element read whole: its end-of-contents checked by close alone;
   * a length past its parent refused before its bytes are read */
  static const uint8_t eoc[] = {0x30, 0x80, 0x30, 0x01, 0x05, 0x00, 0x01};
  static const uint8_t big[] = {0x30, 0x03, 0x30, 0x7f, 0x05};
  CHECK(one_element(eoc, sizeof eoc) == GOSTX_CMS_BAD_EOC, "close: 00 01 is no end-of-contents");
  CHECK(one_element(big, sizeof big) == GOSTX_CMS_MALFORMED, "an element longer than its parent");
  /* GOSTX_CMS_STREAM_DEPTH + 1 indefinite SEQUENCEs */
  uint8_t deep[2 * (GOSTX_CMS_STREAM_DEPTH + 1)], window[32];
  for (size_t i = 0; i < sizeof deep; i += 2) deep[i] = 0x30, deep[i + 1] = 0x80;
  feed f = {deep, sizeof deep, 0, 0};
  gostx__ber_in r;
  gostx__ber_in_init(&r, feed_read, &f, window, sizeof window);
  int rc = 0;
  size_t opened = 0;
  while (!rc && opened <= GOSTX_CMS_STREAM_DEPTH) rc = gostx__ber_open(&r, GOSTX__DER_SEQ), opened += !rc;
  CHECK(rc && opened == GOSTX_CMS_STREAM_DEPTH && r.st == GOSTX_CMS_TOO_DEEP, "nesting past %d: TOO_DEEP",
        GOSTX_CMS_STREAM_DEPTH);
}

int main(void) {
  reader();
  return t_done();
}
