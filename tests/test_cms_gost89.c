/* RFC 4490 / RFC 4357 in lib/cms without a peer: GOST 28147-89 CFB
 * content (CryptoPro key meshing), its KeyTransRecipientInfo (VKO with
 * an 8-byte ukm + the CryptoPro key wrap) and KeyAgreeRecipientInfo (VKO
 * with the originator's key + the GOST 28147-89 key wrap). Known answers:
 * the four EnvelopedData examples of TK26's "Использование алгоритмов ГОСТ
 * 28147-89, ГОСТ Р 34.11 и ГОСТ Р 34.10 в криптографических сообщениях
 * формата CMS" as PyGOST's tests carry them (values only: the messages in
 * tests/vectors/tc26_cms/tk26cms_*, the recipients' private keys here),
 * decrypted byte for byte, the KARIs also by the key alone and streamed;
 * each change that matters refused by name with nothing written; messages
 * made here to 256- and 512-bit recipients at the meshing edges,
 * decrypted again. */
#include "cms_mem_stream.h"
#include "tc26_cms_files.h"

/* The examples' recipients: d (big-endian, as PyGOST's prv_unmarshal reads
 * the reversed hex it gives), curve, and what each decrypts to. */
static const char d256_hex[] = "BFCF1D623E5CDD3032A7C6EABB4A923C46E43D640FFEAAF2C3ED39A8FA399924";
static const char d512_hex[] =
    "3FC01CDCD4EC5F972EB482774C41E66DB7F380528DFE9E67992BA05AEE462435"
    "757530E641077CE587B976C8EEB48C48FD33FD175F0C7DE6A44E014E6BCB074B";

typedef struct example89 {
  const char *file, *d_hex;
  gostx_gost3410_curve curve;
  uint8_t *der;
  size_t len;
  gostx_gost3410_key key;
  gostx_x509_cert cert; /* only what decryption reads: the rid and the key */
} example89;

static void key_from_hex(const char *hex, gostx_gost3410_curve curve, gostx_gost3410_key *key) {
  uint8_t d[64];
  long n = hex_decode(hex, d, sizeof d);
  CHECK(n > 0 && gostx_gost3410_key_set_private(key, curve, d, (size_t)n, NULL) == 0, "key %.8s...", hex);
}

/* No certificate comes with the examples: one is made up of the
 * recipient's identifier in the message and the key's public half. */
static void cert_for(const gostx_cms_recipient *ri, const gostx_gost3410_key *key, gostx_x509_cert *c) {
  memset(c, 0, sizeof *c);
  c->issuer = ri->rid_issuer, c->issuer_len = ri->rid_issuer_len;
  c->serial = ri->rid_serial, c->serial_len = ri->rid_serial_len;
  c->curve = key->curve;
  c->pub_len = 2 * key->len;
  memcpy(c->pub, key->q, c->pub_len);
}

static void load(example89 *ex) {
  gostx_cms_enveloped env;
  ex->der = example(ex->file, &ex->len);
  key_from_hex(ex->d_hex, ex->curve, &ex->key);
  CHECK(gostx_cms_enveloped_parse(ex->der, ex->len, &env, NULL) == 0 && env.n_recipients == 1, "%s parses",
        ex->file);
  cert_for(&env.recipients[0], &ex->key, &ex->cert);
}

/* Decrypts der for (cert, key) into out (filled with 0x55 first); the
 * status, the content's length in *len. */
static gostx_cms_status decrypt89(const uint8_t *der, size_t len, const gostx_x509_cert *cert,
                                  const gostx_gost3410_key *key, uint8_t *out, size_t cap, size_t *out_len) {
  gostx_cms_enveloped env;
  gostx_cms_status st = GOSTX_CMS_OK;
  memset(out, 0x55, cap);
  *out_len = 0;
  if (gostx_cms_enveloped_parse(der, len, &env, &st)) return st;
  int rc = gostx_cms_enveloped_decrypt(&env, cert, key, NULL, out, cap, out_len, &st);
  if (rc && st == GOSTX_CMS_OK) st = GOSTX_CMS_MALFORMED;
  return st;
}

static int untouched(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != 0x55) return 0;
  return 1;
}

static size_t find(const uint8_t *der, size_t len, const uint8_t *needle, size_t n) {
  for (size_t i = 0; i + n <= len; i++)
    if (!memcmp(der + i, needle, n)) return i;
  return 0;
}

static uint8_t out[200000];

static void known_answers(example89 *ex, const uint8_t *text, size_t text_len) {
  gostx_cms_enveloped env;
  size_t len = 0;
  CHECK(gostx_cms_enveloped_parse(ex->der, ex->len, &env, NULL) == 0 &&
            env.content.cipher == GOSTX_CMS_GOST89 && env.content.sbox == GOSTX_SBOX_TC26_Z &&
            env.recipients[0].rfc4490 && env.recipients[0].key_len == ex->key.len,
        "%s: GOST 28147-89 content (param set Z), an RFC 4490 recipient", ex->file);
  gostx_cms_status st = decrypt89(ex->der, ex->len, &ex->cert, &ex->key, out, sizeof out, &len);
  CHECK(st == GOSTX_CMS_OK && len == text_len && !memcmp(out, text, len), "%s decrypts to its text: %s",
        ex->file, gostx_cms_status_name(st));
}

/* A byte of der at `at` changed: st expected, nothing written. */
static void refused(example89 *ex, size_t at, gostx_cms_status want, const char *what) {
  size_t len = 0;
  ex->der[at] ^= 0x01;
  gostx_cms_status st = decrypt89(ex->der, ex->len, &ex->cert, &ex->key, out, 4096, &len);
  ex->der[at] ^= 0x01;
  CHECK(at && st == want && untouched(out, 4096), "%s: %s: %s (want %s), nothing written", ex->file, what,
        gostx_cms_status_name(st), gostx_cms_status_name(want));
}

static void refusals(example89 *ex) {
  gostx_cms_enveloped env;
  CHECK(gostx_cms_enveloped_parse(ex->der, ex->len, &env, NULL) == 0, "%s parses", ex->file);
  const gostx_cms_recipient *ri = &env.recipients[0];
  size_t ek = (size_t)(ri->encrypted_key - ex->der);
  /* Gost28147-89-EncryptedKey: 30 28 04 20 <32> 04 04 <mac> */
  refused(ex, ek + 2 + 4 + 5, GOSTX_CMS_WRONG_KEY, "encryptedKey changed");
  refused(ex, ek + 2 + 4 + 32 + 2 + 1, GOSTX_CMS_WRONG_KEY, "macKey changed");
  refused(ex, ek + ri->encrypted_key_len - 1, GOSTX_CMS_WRONG_KEY, "ukm changed");
  /* the wrap's parameter set: Z's last arc, 1.2.643.7.1.2.5.1.1 -> .5.1.0 */
  static const uint8_t z[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x05, 0x01, 0x01};
  size_t wrap_set = find(ex->der + ek, ri->encrypted_key_len, z, sizeof z);
  refused(ex, wrap_set ? ek + wrap_set + sizeof z - 1 : 0, GOSTX_CMS_UNKNOWN_KEY_WRAP, "an unknown wrap param set");
  size_t content_set = find(ex->der + ek + ri->encrypted_key_len, ex->len - ek - ri->encrypted_key_len, z, sizeof z);
  refused(ex, content_set ? ek + ri->encrypted_key_len + content_set + sizeof z - 1 : 0,
          GOSTX_CMS_UNKNOWN_CIPHER, "an unknown content param set");
  /* another key of the same curve, its certificate naming this recipient */
  gostx_gost3410_key other;
  gostx_x509_cert cert;
  uint8_t d[64] = {0};
  size_t len = 0;
  d[ex->key.len - 1] = 7;
  CHECK(gostx_gost3410_key_set_private(&other, ex->curve, d, ex->key.len, NULL) == 0, "another key");
  cert_for(ri, &other, &cert);
  gostx_cms_status st = decrypt89(ex->der, ex->len, &cert, &other, out, 4096, &len);
  CHECK(st == GOSTX_CMS_WRONG_KEY && untouched(out, 4096), "%s: another key: %s, nothing written", ex->file,
        gostx_cms_status_name(st));
}

/* The KARI examples (RFC 4490 5.2): the originator's ephemeral key in the
 * message, the GOST 28147-89 key wrap (id-Gost28147-89-None-KeyWrap) with
 * param set Z; decrypted with the certificate named, by the key alone
 * (openssl's -inkey) and streamed 7 bytes a read. */
static void kari_known_answer(example89 *ex, const char *text) {
  gostx_cms_enveloped env;
  const gostx_cms_recipient *ri = &env.recipients[0];
  size_t len = 0, text_len = strlen(text);
  gostx_cms_status st = GOSTX_CMS_OK;
  CHECK(gostx_cms_enveloped_parse(ex->der, ex->len, &env, NULL) == 0 && env.n_recipients == 1 && ri->kari &&
            ri->rfc4490 && ri->originator_kind == GOSTX_CMS_ORIGINATOR_KEY && !ri->wrap_cryptopro &&
            ri->wrap_sbox == GOSTX_SBOX_TC26_Z && ri->key_len == ex->key.len && ri->ukm_len == 8,
        "%s: an RFC 4490 KARI, ephemeral originator, the GOST 28147-89 key wrap with Z", ex->file);
  st = decrypt89(ex->der, ex->len, &ex->cert, &ex->key, out, sizeof out, &len);
  CHECK(st == GOSTX_CMS_OK && len == text_len && !memcmp(out, text, len), "%s decrypts to its text: %s",
        ex->file, gostx_cms_status_name(st));
  memset(out, 0x55, text_len);
  CHECK(gostx_cms_enveloped_decrypt(&env, NULL, &ex->key, NULL, out, sizeof out, &len, &st) == 0 &&
            len == text_len && !memcmp(out, text, len),
        "%s: by the key alone: %s", ex->file, gostx_cms_status_name(st));
  uint8_t *work = malloc(GOSTX_CMS_STREAM_WORK);
  gostx_cms_decrypt_params p = {0};
  p.key = &ex->key, p.work = work, p.work_len = GOSTX_CMS_STREAM_WORK;
  feed f = {ex->der, ex->len, 0, 7};
  sink s = {out, 0, sizeof out};
  gostx_cms_stream_result res;
  CHECK(work && gostx_cms_decrypt_stream(&p, feed_read, &f, sink_write, &s, &res) == 0 && s.n == text_len &&
            !memcmp(out, text, text_len) && res.cipher == GOSTX_CMS_GOST89,
        "%s: streamed: %s", ex->file, gostx_cms_status_name(res.status));
  free(work);
}

/* A byte of the KARI at `at` changed, decrypted by the key alone (the
 * recipient not named): st expected, never "no recipient opens". */
static void kari_refused_any(example89 *ex, size_t at, gostx_cms_status want, const char *what) {
  gostx_cms_enveloped env;
  gostx_cms_status st = GOSTX_CMS_OK;
  size_t len = 0;
  ex->der[at] ^= 0x01;
  memset(out, 0x55, 4096);
  if (!gostx_cms_enveloped_parse(ex->der, ex->len, &env, &st))
    if (gostx_cms_enveloped_decrypt(&env, NULL, &ex->key, NULL, out, 4096, &len, &st) == 0) st = GOSTX_CMS_OK;
  ex->der[at] ^= 0x01;
  CHECK(at && st == want && untouched(out, 4096), "%s: %s, by the key alone: %s (want %s)", ex->file, what,
        gostx_cms_status_name(st), gostx_cms_status_name(want));
}

static void kari_refusals(example89 *ex) {
  gostx_cms_enveloped env;
  CHECK(gostx_cms_enveloped_parse(ex->der, ex->len, &env, NULL) == 0, "%s parses", ex->file);
  const gostx_cms_recipient *ri = &env.recipients[0];
  size_t ek = (size_t)(ri->encrypted_key - ex->der), ukm = (size_t)(ri->ukm - ex->der);
  /* Gost28147-89-EncryptedKey: 30 28 04 20 <32> 04 04 <mac> */
  refused(ex, ek + 4 + 5, GOSTX_CMS_WRONG_KEY, "encryptedKey changed");
  refused(ex, ek + 4 + 32 + 2 + 1, GOSTX_CMS_WRONG_KEY, "macKey changed");
  refused(ex, ukm + 3, GOSTX_CMS_WRONG_KEY, "ukm changed");
  /* the KeyWrapAlgorithm between the ukm and the keys: None-KeyWrap read
   * as CryptoPro-KeyWrap (.13.0 -> .13.1) unwraps nothing; Z's last arc */
  static const uint8_t none_wrap[] = {0x06, 0x07, 0x2a, 0x85, 0x03, 0x02, 0x02, 0x0d, 0x00};
  static const uint8_t z[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x05, 0x01, 0x01};
  size_t wrap = find(ex->der + ukm, ek - ukm, none_wrap, sizeof none_wrap);
  size_t set = find(ex->der + ukm, ek - ukm, z, sizeof z);
  refused(ex, wrap ? ukm + wrap + sizeof none_wrap - 1 : 0, GOSTX_CMS_WRONG_KEY, "the CryptoPro key wrap");
  refused(ex, set ? ukm + set + sizeof z - 1 : 0, GOSTX_CMS_UNKNOWN_KEY_WRAP, "an unknown wrap param set");
  /* the agreement's OID (a 2012 key's, right after the ukm): its last arc */
  refused(ex, ukm + 8 + 2 + 2 + 7, GOSTX_CMS_UNKNOWN_KEY_WRAP, "an unknown agreement");
  kari_refused_any(ex, ukm + 8 + 2 + 2 + 7, GOSTX_CMS_UNKNOWN_KEY_WRAP, "an unknown agreement");
  kari_refused_any(ex, set ? ukm + set + sizeof z - 1 : 0, GOSTX_CMS_UNKNOWN_KEY_WRAP, "an unknown wrap param set");
  kari_refused_any(ex, ek + 4 + 5, GOSTX_CMS_RECIPIENT_NOT_FOUND, "encryptedKey changed");
}

/* gostx_cms_encrypt with GOST89 to the TC26 recipients, at the meshing
 * edges (1024) and past several; each recipient decrypts; the message
 * names the recipient's own key algorithm and the param set Z. */
static void round_trips(void) {
  signer_files *r[2];
  r[0] = malloc(sizeof *r[0]), r[1] = malloc(sizeof *r[1]);
  load_signer("recipient256_cert.pem", "recipient256_key.pem", r[0]);
  load_signer("recipient512_cert.pem", "recipient512_key.pem", r[1]);
  gostx_x509_cert certs[2] = {r[0]->cert, r[1]->cert};
  static uint8_t content[100000];
  static const size_t sizes[] = {0, 1, 1023, 1024, 1025, sizeof content};
  for (size_t i = 0; i < sizeof content; i++) content[i] = (uint8_t)(i * 13 + 5);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t need = 0, got = 0, len = 0;
    CHECK(gostx_cms_encrypt(certs, 2, GOSTX_CMS_GOST89, content, sizes[s], NULL, 0, &need) == 0, "size query");
    uint8_t *der = malloc(need);
    CHECK(gostx_cms_encrypt(certs, 2, GOSTX_CMS_GOST89, content, sizes[s], der, need, &got) == 0 && got == need,
          "%zu bytes: written in the size asked", sizes[s]);
    CHECK(sizes[s] < 64 || !find(der, got, content, 64), "%zu bytes: not in clear", sizes[s]);
    gostx_cms_enveloped env;
    CHECK(gostx_cms_enveloped_parse(der, got, &env, NULL) == 0 && env.content.cipher == GOSTX_CMS_GOST89 &&
              env.content.sbox == GOSTX_SBOX_TC26_Z && env.recipients[0].rfc4490 && env.recipients[1].rfc4490,
          "%zu bytes: GOST 28147-89 content (Z), RFC 4490 recipients", sizes[s]);
    for (int k = 0; k < 2; k++) {
      gostx_cms_status st = decrypt89(der, got, &r[k]->cert, &r[k]->key, out, sizeof out, &len);
      CHECK(st == GOSTX_CMS_OK && len == sizes[s] && !memcmp(out, content, len), "%zu bytes, %s recipient: %s",
            sizes[s], k ? "512" : "256", gostx_cms_status_name(st));
    }
    free(der);
  }
  gostx_gost3410_key_clear(&r[0]->key);
  gostx_gost3410_key_clear(&r[1]->key);
  free(r[0]);
  free(r[1]);
}

int main(void) {
  static char text256[2200];
  for (int i = 0; i < 100; i++) memcpy(text256 + 22 * i, "Test data to encrypt.\n", 22);
  static example89 ex[2];
  ex[0].file = "tk26cms_ktri256_gost89.pem", ex[0].d_hex = d256_hex, ex[0].curve = GOSTX_GOST3410_256_B;
  ex[1].file = "tk26cms_ktri512_gost89.pem", ex[1].d_hex = d512_hex, ex[1].curve = GOSTX_GOST3410_512_B;
  for (int i = 0; i < 2; i++) load(&ex[i]);
  known_answers(&ex[0], (const uint8_t *)text256, sizeof text256);
  known_answers(&ex[1], (const uint8_t *)"Test message", 12);
  for (int i = 0; i < 2; i++) refusals(&ex[i]);
  static example89 kari[2];
  kari[0].file = "tk26cms_kari256_gost89.pem", kari[0].d_hex = d256_hex, kari[0].curve = GOSTX_GOST3410_256_B;
  kari[1].file = "tk26cms_kari512_gost89.pem", kari[1].d_hex = d512_hex, kari[1].curve = GOSTX_GOST3410_512_B;
  for (int i = 0; i < 2; i++) {
    load(&kari[i]);
    kari_known_answer(&kari[i], "Test message");
    kari_refusals(&kari[i]);
    gostx_gost3410_key_clear(&kari[i].key);
    free(kari[i].der);
  }
  round_trips();
  for (int i = 0; i < 2; i++) {
    gostx_gost3410_key_clear(&ex[i].key);
    free(ex[i].der);
  }
  return t_done();
}
