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
#include "cms/cms_internal.h"
#include "cms_mem_stream.h"
#include "tc26_cms_files.h"

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

/* ---- DER rewritten as openssl cms -stream writes it ---- */

static size_t put_len(uint8_t *o, size_t len) {
  if (len < 0x80) return o[0] = (uint8_t)len, 1;
  size_t k = 0;
  for (size_t v = len; v; v >>= 8) k++;
  o[0] = (uint8_t)(0x80 | k);
  for (size_t i = 0; i < k; i++) o[1 + i] = (uint8_t)(len >> (8 * (k - 1 - i)));
  return 1 + k;
}

/* ContentInfo, its [0] and the content's SEQUENCE opened indefinite into
 * o: the bytes written; *inner the content's fields in der. */
static size_t open_outer(const uint8_t *der, size_t len, uint8_t *o, gostx__der *inner) {
  gostx__der r = {der, len}, ci, ex, w;
  size_t n = 0;
  gostx__der_get(&r, GOSTX__DER_SEQ, &ci, NULL);
  gostx__der_get(&ci, GOSTX__DER_OID, NULL, &w);
  o[n++] = 0x30, o[n++] = 0x80;
  memcpy(o + n, w.p, w.n), n += w.n;
  gostx__der_get(&ci, GOSTX__DER_CTXC(0), &ex, NULL);
  gostx__der_get(&ex, GOSTX__DER_SEQ, inner, NULL);
  o[n++] = 0xa0, o[n++] = 0x80, o[n++] = 0x30, o[n++] = 0x80;
  return n;
}

/* ContentInfo, its [0], the content's SEQUENCE and EncryptedContentInfo
 * indefinite; encryptedContent constructed of `seg`-byte OCTET STRINGs. */
static size_t to_ber(const uint8_t *der, size_t len, size_t seg, uint8_t *o) {
  gostx__der inner, c, w, eci;
  uint8_t tag;
  size_t n = open_outer(der, len, o, &inner);
  while (inner.n && !gostx__der_next(&inner, &tag, &c, &w)) {
    if (tag != GOSTX__DER_SEQ) {
      memcpy(o + n, w.p, w.n), n += w.n;
      continue;
    }
    o[n++] = 0x30, o[n++] = 0x80;
    eci = c;
    while (eci.n && !gostx__der_next(&eci, &tag, &c, &w)) {
      if (tag != GOSTX__DER_CTX(0)) {
        memcpy(o + n, w.p, w.n), n += w.n;
        continue;
      }
      o[n++] = 0xa0, o[n++] = 0x80;
      for (size_t at = 0; at < c.n; at += seg) {
        size_t k = c.n - at < seg ? c.n - at : seg;
        o[n++] = 0x04;
        n += put_len(o + n, k);
        memcpy(o + n, c.p + at, k), n += k;
      }
      o[n++] = 0, o[n++] = 0;
    }
    o[n++] = 0, o[n++] = 0;
  }
  memset(o + n, 0, 6);
  return n + 6;
}

/* ---- gostx_cms_decrypt_stream ---- */

static signer_files r256, r512;
static uint8_t work[GOSTX_CMS_STREAM_WORK];

static gostx_cms_status stream_decrypt_with(gostx_cms_decrypt_params *p, const uint8_t *in, size_t n,
                                            size_t step, sink *out) {
  gostx_cms_stream_result res;
  feed f = {in, n, 0, step};
  out->n = 0;
  int rc = gostx_cms_decrypt_stream(p, feed_read, &f, sink_write, out, &res);
  if (rc && res.status == GOSTX_CMS_OK) return (gostx_cms_status)-1;
  return !rc && res.content_len != out->n ? (gostx_cms_status)-2 : res.status;
}

static gostx_cms_status stream_decrypt(const uint8_t *in, size_t n, size_t step, const signer_files *s,
                                       const uint8_t *secret, const gostx_x509_cert *orig, sink *out) {
  gostx_cms_decrypt_params p = {s ? &s->cert : NULL, orig, s ? &s->key : NULL, secret, work, sizeof work};
  return stream_decrypt_with(&p, in, n, step, out);
}

/* As openssl cms -decrypt -inkey alone: no certificate, every recipient tried. */
static gostx_cms_status stream_decrypt_by_key(const uint8_t *in, size_t n, const signer_files *s,
                                              const gostx_x509_cert *orig, sink *out) {
  gostx_cms_decrypt_params p = {NULL, orig, &s->key, NULL, work, sizeof work};
  return stream_decrypt_with(&p, in, n, 5, out);
}

static uint8_t content[300000];

static void round_trips(void) {
  static const uint8_t key[32] = {9, 8, 7};
  static const size_t sizes[] = {0, 1, 4097, sizeof content};
  size_t cap = sizeof content + 4096;
  uint8_t *der = malloc(cap), *b = malloc(2 * cap);
  sink out = {malloc(cap), 0, cap};
  for (int cipher = GOSTX_CMS_KUZNYECHIK; cipher <= GOSTX_CMS_GOST89; cipher++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      for (int env = 0; env < 2; env++) {
        size_t len = 0;
        int rc = env ? gostx_cms_encrypt(&r256.cert, 1, (gostx_cms_cipher)cipher, content, sizes[i], der, cap, &len)
                     : gostx_cms_encrypted_encrypt(key, (gostx_cms_cipher)cipher, content, sizes[i], der, cap, &len);
        CHECK(rc == 0, "made: cipher %d, %zu bytes", cipher, sizes[i]);
        size_t blen = to_ber(der, len, 1000, b);
        for (int form = 0; form < 2; form++) {
          gostx_cms_status st = stream_decrypt(form ? b : der, form ? blen : len, sizes[i] < 5000 ? 7 : 0,
                                               env ? &r256 : NULL, env ? NULL : key, NULL, &out);
          CHECK(st == GOSTX_CMS_OK && out.n == sizes[i] && !memcmp(out.p, content, sizes[i]),
                "%s, cipher %d, %zu bytes, %s: streamed back (%s)", env ? "EnvelopedData" : "EncryptedData",
                cipher, sizes[i], form ? "BER" : "DER", gostx_cms_status_name(st));
        }
      }
  free(der);
  free(b);
  free(out.p);
}

/* gostx_cms_encrypt_stream of content[len] (DER when known, else BER)
 * read `step` bytes a call, into out. */
static int encrypt_to(int env, gostx_cms_cipher cipher, const uint8_t *key, size_t len, int known,
                      size_t step, sink *out) {
  gostx_cms_encrypt_stream_params p = {&r256.cert, 1, env ? NULL : key, cipher, 0, 0,
                                       known ? len : GOSTX_CMS_LEN_UNKNOWN, work, sizeof work, NULL, NULL};
  feed f = {content, len, 0, step};
  out->n = 0;
  return gostx_cms_encrypt_stream(&p, feed_read, &f, sink_write, out);
}

/* Made streaming: DER that the one-shot parser reads (its lengths exact),
 * or BER; decrypted back by both ways. */
static void encrypt_round_trips(void) {
  static const uint8_t key[32] = {4, 5, 6};
  static const size_t sizes[] = {0, 100, 70000, sizeof content};
  size_t cap = sizeof content + 8192;
  sink msg = {malloc(cap), 0, cap}, out = {malloc(cap), 0, cap};
  uint8_t *one = malloc(cap);
  for (int cipher = GOSTX_CMS_KUZNYECHIK; cipher <= GOSTX_CMS_GOST89; cipher++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      for (int env = 0; env < 2; env++)
        for (int known = 0; known < 2; known++) {
          int rc = encrypt_to(env, (gostx_cms_cipher)cipher, key, sizes[i], known, i == 2 ? 1000 : 0, &msg);
          gostx_cms_status st = rc ? GOSTX_CMS_MALFORMED
                                   : stream_decrypt(msg.p, msg.n, 0, env ? &r256 : NULL, env ? NULL : key,
                                                    NULL, &out);
          CHECK(st == GOSTX_CMS_OK && out.n == sizes[i] && !memcmp(out.p, content, sizes[i]),
                "encrypt_stream %s cipher %d, %zu bytes, %s: decrypts back (%s)",
                env ? "EnvelopedData" : "EncryptedData", cipher, sizes[i], known ? "DER" : "BER",
                gostx_cms_status_name(st));
          CHECK(known ? msg.p[1] != 0x80 : msg.p[1] == 0x80 && msg.p[msg.n - 1] == 0, "%s form",
                known ? "DER" : "BER");
          if (!known || rc) continue;
          size_t got = 0;
          gostx_cms_enveloped ev;
          gostx_cms_encrypted ed;
          rc = env ? gostx_cms_enveloped_parse(msg.p, msg.n, &ev, &st) ||
                         gostx_cms_enveloped_decrypt(&ev, &r256.cert, &r256.key, NULL, one, cap, &got, &st)
                   : gostx_cms_encrypted_parse(msg.p, msg.n, &ed, &st) ||
                         gostx_cms_encrypted_decrypt(&ed, key, one, cap, &got, &st);
          CHECK(!rc && got == sizes[i] && !memcmp(one, content, got), "the DER read by the one-shot calls: %s",
                gostx_cms_status_name(st));
        }
  /* a content not of the length said */
  gostx_cms_encrypt_stream_params p = {NULL, 0, key, GOSTX_CMS_KUZNYECHIK, 0, 0, 99, work, sizeof work, NULL, NULL};
  feed f = {content, 100, 0, 0};
  CHECK(gostx_cms_encrypt_stream(&p, feed_read, &f, sink_write, &msg) == GOSTX_ELEN, "100 bytes for 99: ELEN");
  p.content_len = 101, f.pos = 0, msg.n = 0;
  CHECK(gostx_cms_encrypt_stream(&p, feed_read, &f, sink_write, &msg) == GOSTX_ELEN, "100 bytes for 101: ELEN");
  free(msg.p);
  free(out.p);
  free(one);
}


/* Every RecipientInfo kind the one-shot encryption writes, written by the
 * stream (KTRI or KARI, by issuer and serial or key id, to both
 * recipients), and read back by each recipient's certificate, by key
 * alone, and by the one-shot calls. */
static void recipient_kinds(void) {
  static const size_t len = 5000;
  gostx_x509_cert both[2] = {r256.cert, r512.cert};
  const signer_files *who[2] = {&r256, &r512};
  size_t cap = len + 8192, got = 0;
  sink msg = {malloc(cap), 0, cap}, out = {malloc(cap), 0, cap};
  uint8_t *one = malloc(cap);
  for (int kind = 0; kind < 4; kind++)
    for (int known = 0; known < 2; known++) {
      gostx_cms_encrypt_stream_params p = {both, 2, NULL, GOSTX_CMS_MAGMA, kind & 1, kind >> 1,
                                           known ? len : GOSTX_CMS_LEN_UNKNOWN, work, sizeof work, NULL, NULL};
      feed f = {content, len, 0, 777};
      msg.n = 0;
      CHECK(gostx_cms_encrypt_stream(&p, feed_read, &f, sink_write, &msg) == 0, "kari %d keyid %d: made",
            kind & 1, kind >> 1);
      for (int r = 0; r < 2; r++) {
        gostx_cms_status st = stream_decrypt(msg.p, msg.n, 0, who[r], NULL, NULL, &out);
        CHECK(st == GOSTX_CMS_OK && out.n == len && !memcmp(out.p, content, len),
              "kari %d keyid %d, recipient %d: streamed back (%s)", kind & 1, kind >> 1, r, gostx_cms_status_name(st));
        st = stream_decrypt_by_key(msg.p, msg.n, who[r], NULL, &out);
        CHECK(st == GOSTX_CMS_OK && out.n == len && !memcmp(out.p, content, len),
              "kari %d keyid %d, recipient %d, by key alone: streamed back (%s)", kind & 1, kind >> 1, r,
              gostx_cms_status_name(st));
      }
      if (!known) continue;
      gostx_cms_enveloped ev;
      gostx_cms_status st = GOSTX_CMS_OK;
      int rc = gostx_cms_enveloped_parse(msg.p, msg.n, &ev, &st);
      CHECK(!rc && ev.n_recipients == 2 && ev.version == (kind ? 2 : 0) && ev.recipients[1].kari == (kind & 1) &&
                (ev.recipients[1].rid_kind == GOSTX_CMS_SID_KEY_ID) == (kind >> 1),
            "kari %d keyid %d: the RecipientInfos asked for (%s)", kind & 1, kind >> 1, gostx_cms_status_name(st));
      rc = rc || gostx_cms_enveloped_decrypt(&ev, NULL, &r512.key, NULL, one, cap, &got, &st);
      CHECK(!rc && got == len && !memcmp(one, content, len), "kari %d keyid %d: one-shot by key alone (%s)",
            kind & 1, kind >> 1, gostx_cms_status_name(st));
    }
  /* GOST 28147-89: RFC 4490 recipients, by issuer and serial only */
  gostx_cms_encrypt_stream_params p = {both, 2, NULL, GOSTX_CMS_GOST89, 0, 0, len, work, sizeof work, NULL, NULL};
  feed f = {content, len, 0, 0};
  msg.n = 0;
  gostx_cms_enveloped ev;
  CHECK(gostx_cms_encrypt_stream(&p, feed_read, &f, sink_write, &msg) == 0 &&
            gostx_cms_enveloped_parse(msg.p, msg.n, &ev, NULL) == 0 && ev.version == 0 &&
            ev.recipients[0].rfc4490 && ev.recipients[1].rfc4490,
        "GOST89: RFC 4490 KTRIs, version 0");
  gostx_cms_status st = stream_decrypt_by_key(msg.p, msg.n, &r512, NULL, &out);
  CHECK(st == GOSTX_CMS_OK && out.n == len && !memcmp(out.p, content, len), "GOST89 by key alone: %s",
        gostx_cms_status_name(st));
  p.kari = 1, f.pos = 0;
  CHECK(gostx_cms_encrypt_stream(&p, feed_read, &f, sink_write, &msg) == GOSTX_EINVAL, "GOST89 with kari: EINVAL");
  free(msg.p);
  free(out.p);
  free(one);
}

/* The stream's CFB with key meshing against the one-shot
 * gostx__cms89_crypt, the content in chunks that fall on and off the
 * 8-byte blocks and the 1024-byte meshing points. */
static void gost89_chunks(void) {
  static const size_t lens[] = {0, 1, 7, 8, 9, 1023, 1024, 1025, 2047, 2048, 2049, 5000};
  static const size_t steps[] = {1, 3, 7, 8, 13, 1000, 1024, 1031, 5000};
  static const uint8_t cek[32] = {1, 2, 3, 4, 5}, iv[8] = {8, 7, 6, 5, 4, 3, 2, 1};
  static uint8_t ref[5000], got[5000], back[5000];
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    gostx_cms_encrypted_content ec;
    memset(&ec, 0, sizeof ec);
    ec.cipher = GOSTX_CMS_GOST89, ec.sbox = GOSTX_SBOX_TC26_Z, ec.ukm = iv, ec.ukm_len = 8;
    ec.ciphertext_len = lens[i];
    CHECK(gostx__cms89_crypt(&ec, cek, content, ref, 0) == 0, "%zu bytes: one-shot", lens[i]);
    for (size_t j = 0; j < sizeof steps / sizeof steps[0]; j++) {
      gostx__cms_opener seal, open;
      int rc = gostx__cms_sealer_init(&seal, &ec, cek) || gostx__cms_opener_init(&open, &ec, cek);
      for (size_t at = 0, k; !rc && at < lens[i]; at += k) {
        k = lens[i] - at < steps[j] ? lens[i] - at : steps[j];
        rc = gostx__cms_sealer_update(&seal, content + at, k, got + at) ||
             gostx__cms_opener_update(&open, ref + at, k, back + at);
      }
      uint8_t mac[16];
      gostx_cms_status st = GOSTX_CMS_OK;
      rc = rc || gostx__cms_sealer_final(&seal, mac) || gostx__cms_opener_final(&open, mac, &st);
      CHECK(!rc && !memcmp(got, ref, lens[i]) && !memcmp(back, content, lens[i]),
            "%zu bytes in chunks of %zu: the one-shot's ciphertext, and back", lens[i], steps[j]);
    }
  }
}

static void examples(void) {
  static const struct {
    const char *file;
    const signer_files *recipient;
  } ex[] = {{"encrypted_keytrans_a231.pem", &r256},
            {"encrypted_keytrans_a241.pem", &r512},
            {"encrypted_keyagree_a211.pem", &r512}};
  uint8_t buf[1024];
  sink out = {buf, 0, sizeof buf};
  for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
    size_t len, want = 0;
    uint8_t *der = example(ex[i].file, &len), one[256];
    gostx_cms_enveloped env;
    CHECK(gostx_cms_enveloped_parse(der, len, &env, NULL) == 0 &&
              gostx_cms_enveloped_decrypt(&env, &ex[i].recipient->cert, &ex[i].recipient->key, NULL, one,
                                          sizeof one, &want, NULL) == 0,
          "%s: one-shot", ex[i].file);
    gostx_cms_status st = stream_decrypt(der, len, 3, ex[i].recipient, NULL, NULL, &out);
    CHECK(st == GOSTX_CMS_OK && out.n == want && !memcmp(out.p, one, want), "%s streamed: %s", ex[i].file,
          gostx_cms_status_name(st));
    st = stream_decrypt(der, len, 0, ex[i].recipient == &r256 ? &r512 : &r256, NULL, NULL, &out);
    CHECK(st == GOSTX_CMS_RECIPIENT_NOT_FOUND, "%s, another recipient: %s", ex[i].file, gostx_cms_status_name(st));
    st = stream_decrypt_by_key(der, len, ex[i].recipient, NULL, &out);
    CHECK(st == GOSTX_CMS_OK && out.n == want && !memcmp(out.p, one, want), "%s by key alone: %s", ex[i].file,
          gostx_cms_status_name(st));
    st = stream_decrypt_by_key(der, len, ex[i].recipient == &r256 ? &r512 : &r256, NULL, &out);
    CHECK(st == GOSTX_CMS_RECIPIENT_NOT_FOUND, "%s by another key alone: %s", ex[i].file, gostx_cms_status_name(st));
    free(der);
  }
  /* A.2.2: KARI with a static originator (sender256), by certificate and by key */
  signer_files sender;
  load_signer("sender256_cert.pem", "sender256_key.pem", &sender);
  size_t len, want = 0;
  uint8_t *der = example("encrypted_keyagree_a221.pem", &len), one[256];
  gostx_cms_enveloped env;
  CHECK(gostx_cms_enveloped_parse(der, len, &env, NULL) == 0 &&
            gostx_cms_enveloped_decrypt(&env, &r256.cert, &r256.key, &sender.cert, one, sizeof one, &want, NULL) == 0,
        "A.2.2: one-shot");
  gostx_cms_status st = stream_decrypt(der, len, 3, &r256, NULL, &sender.cert, &out);
  CHECK(st == GOSTX_CMS_OK && out.n == want && !memcmp(out.p, one, want), "A.2.2 streamed: %s",
        gostx_cms_status_name(st));
  st = stream_decrypt_by_key(der, len, &r256, &sender.cert, &out);
  CHECK(st == GOSTX_CMS_OK && out.n == want && !memcmp(out.p, one, want), "A.2.2 streamed by key alone: %s",
        gostx_cms_status_name(st));
  st = stream_decrypt_by_key(der, len, &r256, NULL, &out);
  CHECK(st == GOSTX_CMS_ORIGINATOR_NOT_FOUND, "A.2.2 by key alone, no originator: %s", gostx_cms_status_name(st));
  gostx_gost3410_key_clear(&sender.key);
  free(der);
}

/* ---- SignedData streamed (gostx_cms_signed_stream) ---- */

/* A SignedData's DER rewritten as openssl cms -sign -stream writes it:
 * the outer three and encapContentInfo indefinite, eContent [0]
 * indefinite around a constructed OCTET STRING of `seg`-byte segments;
 * sets: certificates, crls and signerInfos indefinite too (as
 * BouncyCastle writes the certificates). */
static size_t signed_to_ber(const uint8_t *der, size_t len, size_t seg, int sets, uint8_t *o) {
  gostx__der inner, c, w, eci, x, octets;
  uint8_t tag;
  size_t n = open_outer(der, len, o, &inner);
  for (int i = 0; inner.n && !gostx__der_next(&inner, &tag, &c, &w); i++) {
    if (i > 2 && sets) {
      o[n++] = tag, o[n++] = 0x80;
      memcpy(o + n, c.p, c.n), n += c.n;
      o[n++] = 0, o[n++] = 0;
      continue;
    }
    if (i != 2) { /* encapContentInfo is the third */
      memcpy(o + n, w.p, w.n), n += w.n;
      continue;
    }
    eci = c;
    o[n++] = 0x30, o[n++] = 0x80;
    gostx__der_get(&eci, GOSTX__DER_OID, NULL, &w);
    memcpy(o + n, w.p, w.n), n += w.n;
    gostx__der_get(&eci, GOSTX__DER_CTXC(0), &x, NULL);
    gostx__der_get(&x, GOSTX__DER_OCTETS, &octets, NULL);
    o[n++] = 0xa0, o[n++] = 0x80, o[n++] = 0x24, o[n++] = 0x80;
    for (size_t at = 0; at < octets.n; at += seg) {
      size_t k = octets.n - at < seg ? octets.n - at : seg;
      o[n++] = 0x04;
      n += put_len(o + n, k);
      memcpy(o + n, octets.p + at, k), n += k;
    }
    memset(o + n, 0, 6), n += 6; /* the string's, [0]'s, encapContentInfo's */
  }
  memset(o + n, 0, 6);
  return n + 6;
}

/* msg streamed, its content into out, then verified as the detached
 * message it was rebuilt as: the verdict's status (or the stream's). */
static gostx_cms_status stream_verify(const uint8_t *msg, size_t len, size_t step, sink *out) {
  gostx_cms_signed_stream_result res;
  gostx_cms_signed sd;
  gostx_cms_verdict v;
  gostx_cms_status st;
  feed f = {msg, len, 0, step};
  out->n = 0;
  if (gostx_cms_signed_stream(work, sizeof work, feed_read, &f, sink_write, out, &res))
    return res.status == GOSTX_CMS_OK ? (gostx_cms_status)-1 : res.status;
  if (!res.attached || res.content_len != out->n) return (gostx_cms_status)-2;
  if (gostx_cms_signed_parse(res.der, res.der_len, &sd, &st)) return st;
  if (gostx_cms_signed_verify(&sd, res.hashed ? &res.hash : NULL, NULL, &v)) return v.status;
  return GOSTX_CMS_OK;
}

static void signed_streams(void) {
  static const char *names[] = {"signed_a111.pem", "signed_a121.pem"};
  uint8_t buf[1024], *b = malloc(8192);
  sink out = {buf, 0, sizeof buf};
  for (int i = 0; i < 2; i++) {
    size_t len;
    uint8_t *der = example(names[i], &len);
    gostx_cms_signed sd;
    CHECK(gostx_cms_signed_parse(der, len, &sd, NULL) == 0 && sd.content, "%s: attached", names[i]);
    for (int form = 2; form >= 0; form--) { /* DER, BER, BER with indefinite sets */
      size_t blen = form ? signed_to_ber(der, len, 7, form == 2, b) : 0;
      gostx_cms_status st = stream_verify(form ? b : der, form ? blen : len, form ? 3 : 0, &out);
      CHECK(st == GOSTX_CMS_OK && out.n == sd.content_len && !memcmp(out.p, sd.content, out.n),
            "%s as %s streamed: verifies, the same content (%s)", names[i],
            form == 2 ? "BER with indefinite sets" : form ? "BER" : "DER", gostx_cms_status_name(st));
    }
    size_t blen = signed_to_ber(der, len, 7, 0, b);
    /* a content byte (in a BER segment) changed: the digest names it */
    size_t at = (size_t)(sd.content - der) + 3;
    der[at] ^= 1;
    gostx_cms_status want = i ? GOSTX_CMS_BAD_SIGNATURE /* A.1.2 signs the content itself */
                              : GOSTX_CMS_DIGEST_MISMATCH;
    CHECK(stream_verify(der, len, 0, &out) == want, "%s: a changed content", names[i]);
    der[at] ^= 1;
    for (size_t cut = 0; cut < blen; cut += 11)
      CHECK(stream_verify(b, cut, 0, &out) == GOSTX_CMS_TRUNCATED, "%s: a BER prefix of %zu", names[i], cut);
    b[blen] = 0;
    CHECK(stream_verify(b, blen + 1, 0, &out) == GOSTX_CMS_TRAILING_DATA, "%s: a byte after it", names[i]);
    free(der);
  }
  free(b);
}

static void refusals(void) {
  static const uint8_t key[32] = {1};
  uint8_t der[2048], buf[2048], *b = malloc(4096);
  sink out = {buf, 0, sizeof buf};
  size_t len = 0;
  CHECK(gostx_cms_encrypt(&r256.cert, 1, GOSTX_CMS_KUZNYECHIK_OMAC, content, 500, der, sizeof der, &len) == 0,
        "made");
  size_t blen = to_ber(der, len, 100, b);
  CHECK(blen < 4096, "the BER form fits");
  for (size_t cut = 0; cut < blen; cut++) {
    gostx_cms_status st = stream_decrypt(b, cut, 0, &r256, NULL, NULL, &out);
    CHECK(st == GOSTX_CMS_TRUNCATED, "a BER prefix of %zu bytes: %s", cut, gostx_cms_status_name(st));
  }
  b[blen] = 0;
  CHECK(stream_decrypt(b, blen + 1, 0, &r256, NULL, NULL, &out) == GOSTX_CMS_TRAILING_DATA, "a byte after it");
  b[blen - 1] = 5;
  CHECK(stream_decrypt(b, blen, 0, &r256, NULL, NULL, &out) == GOSTX_CMS_BAD_EOC, "its last end-of-contents 00 05");
  b[blen - 1] = 0;
  /* the third segment's first byte: the OMAC fails */
  size_t at = 0;
  for (size_t i = 0; i + 1 < blen && !at; i++)
    if (b[i] == 0xa0 && b[i + 1] == 0x80 && b[i + 2] == 0x04) at = i + 2 + 2 * (2 + 100) + 2;
  b[at] ^= 1;
  CHECK(stream_decrypt(b, blen, 0, &r256, NULL, NULL, &out) == GOSTX_CMS_BAD_MAC, "a changed segment: BAD_MAC");
  b[at] ^= 1;
  CHECK(stream_decrypt(b, blen, 0, NULL, key, NULL, &out) == GOSTX_CMS_WRONG_TYPE,
        "an EnvelopedData read as EncryptedData: WRONG_TYPE");
  CHECK(stream_decrypt(b, blen, 0, &r256, NULL, NULL, &out) == GOSTX_CMS_OK, "and unchanged, it decrypts");
  free(b);
}

int main(void) {
  for (size_t i = 0; i < sizeof content; i++) content[i] = (uint8_t)(i * 13 + 5);
  load_signer("recipient256_cert.pem", "recipient256_key.pem", &r256);
  load_signer("recipient512_cert.pem", "recipient512_key.pem", &r512);
  reader();
  round_trips();
  encrypt_round_trips();
  recipient_kinds();
  gost89_chunks();
  examples();
  signed_streams();
  refusals();
  gostx_gost3410_key_clear(&r256.key);
  gostx_gost3410_key_clear(&r512.key);
  return t_done();
}
