/* lib/cms's EnvelopedData (KeyTransport2019), EncryptedData and
 * DigestedData without a peer: R 1323565.1.025-2019's examples A.2.3,
 * A.2.4 (KeyTransRecipientInfo, 256 and 512), A.4.1, A.4.2
 * (EncryptedData) and A.3.1, A.3.2 (DigestedData) decrypted or verified
 * byte for byte (tests/vectors/tc26_cms); each changed byte that matters
 * refused with its name; messages made here for each content cipher,
 * one and two recipients, 256 and 512, sizes past an ACPKM section,
 * decrypted again; the size query; every prefix refused. */
#include "tc26_cms_files.h"
#include "cms/cms_internal.h"

/* "Контрольный пример для структуры " in CP1251, which each example's
 * content starts with, then the structure's name. */
#define TC26_PREFIX                                                                          \
  "\xca\xee\xed\xf2\xf0\xee\xeb\xfc\xed\xfb\xe9 \xef\xf0\xe8\xec\xe5\xf0 \xe4\xeb\xff "     \
  "\xf1\xf2\xf0\xf3\xea\xf2\xf3\xf0\xfb "
static const char enveloped_text[] = TC26_PREFIX "EnvelopedData.";
static const char encrypted_text[] = TC26_PREFIX "EncryptedData.";
static const char digested_text[] = TC26_PREFIX "DigestData.";

static signer_files r256, r512;

/* Decrypts env for s (a KARI's static originator: orig); returns the
 * status, the content in out[*len]. */
static gostx_cms_status decrypt_from(const uint8_t *der, size_t der_len, const signer_files *s,
                                     const gostx_x509_cert *orig, uint8_t *out, size_t *len) {
  gostx_cms_enveloped env;
  gostx_cms_status st = GOSTX_CMS_OK;
  if (gostx_cms_enveloped_parse(der, der_len, &env, &st)) return st;
  size_t need = 0;
  if (gostx_cms_enveloped_decrypt(&env, &s->cert, &s->key, orig, NULL, 0, &need, &st)) return st;
  memset(out, 0x55, need);
  int rc = gostx_cms_enveloped_decrypt(&env, &s->cert, &s->key, orig, out, need, len, &st);
  if (rc && st == GOSTX_CMS_OK) st = GOSTX_CMS_MALFORMED;
  return st;
}

static gostx_cms_status decrypt_env(const uint8_t *der, size_t der_len, const signer_files *s,
                                    uint8_t *out, size_t *len) {
  return decrypt_from(der, der_len, s, NULL, out, len);
}

static int all_zero(const uint8_t *p, size_t n) {
  uint8_t acc = 0;
  for (size_t i = 0; i < n; i++) acc |= p[i];
  return acc == 0;
}

/* The byte at the offset of needle's first occurrence (after from). */
static size_t find(const uint8_t *der, size_t len, const uint8_t *needle, size_t n) {
  for (size_t i = 0; i + n <= len; i++)
    if (!memcmp(der + i, needle, n)) return i;
  return 0;
}

static void keytrans_examples(void) {
  static const struct {
    const char *file;
    const signer_files *recipient, *other;
    int omac;
  } ex[] = {{"encrypted_keytrans_a231.pem", &r256, &r512, 0},
            {"encrypted_keytrans_a241.pem", &r512, &r256, 1}};
  for (int i = 0; i < 2; i++) {
    size_t len, out_len = 0;
    uint8_t *der = example(ex[i].file, &len), out[256];
    gostx_cms_status st = decrypt_env(der, len, ex[i].recipient, out, &out_len);
    CHECK(st == GOSTX_CMS_OK && out_len == sizeof enveloped_text - 1 &&
              !memcmp(out, enveloped_text, out_len),
          "%s decrypts to the example's text: %s", ex[i].file, gostx_cms_status_name(st));
    st = decrypt_env(der, len, ex[i].other, out, &out_len);
    CHECK(st == GOSTX_CMS_RECIPIENT_NOT_FOUND, "%s: another certificate is no recipient: %s",
          ex[i].file, gostx_cms_status_name(st));
    /* encryptedKey's KExp15 output and its ukm: the unwrap's MAC fails */
    gostx_cms_enveloped env;
    CHECK(gostx_cms_enveloped_parse(der, len, &env, NULL) == 0, "%s parses", ex[i].file);
    size_t ek = (size_t)(env.recipients[0].encrypted_key - der);
    size_t at[2] = {ek + 8, ek + env.recipients[0].encrypted_key_len - 3};
    for (int k = 0; k < 2; k++) {
      der[at[k]] ^= 0x10;
      st = decrypt_env(der, len, ex[i].recipient, out, &out_len);
      CHECK(st == GOSTX_CMS_WRONG_KEY, "%s: a changed %s: %s", ex[i].file, k ? "ukm" : "KExp15 output",
            gostx_cms_status_name(st));
      der[at[k]] ^= 0x10;
    }
    /* the ciphertext: the OMAC names it; plain CTR-ACPKM cannot tell */
    size_t ct = (size_t)(env.content.ciphertext - der);
    der[ct + 3] ^= 1;
    st = decrypt_env(der, len, ex[i].recipient, out, &out_len);
    if (ex[i].omac)
      CHECK(st == GOSTX_CMS_BAD_MAC && all_zero(out, sizeof enveloped_text - 1),
            "%s: a changed ciphertext: %s, nothing left in out", ex[i].file, gostx_cms_status_name(st));
    else
      CHECK(st == GOSTX_CMS_OK && out[3] == ((uint8_t)enveloped_text[3] ^ 1),
            "%s: a changed ciphertext decrypts changed (not authenticated)", ex[i].file);
    der[ct + 3] ^= 1;
    for (size_t cut = 0; cut < len; cut++)
      CHECK(gostx_cms_enveloped_parse(der, cut, &env, &st) == GOSTX_EFORMAT,
            "%s: a prefix of %zu bytes refused", ex[i].file, cut);
    free(der);
  }
}

/* A.2.1: KARI, ephemeral originator, 512, kuznyechik-ctr-acpkm-omac;
 * A.2.2: KARI, static originator (sender256), 256, magma-ctr-acpkm. */
static void keyagree_examples(void) {
  signer_files *sender = malloc(sizeof *sender);
  load_signer("sender256_cert.pem", "sender256_key.pem", sender);
  size_t len, out_len = 0;
  uint8_t *der = example("encrypted_keyagree_a211.pem", &len), out[256];
  gostx_cms_status st = decrypt_env(der, len, &r512, out, &out_len);
  CHECK(st == GOSTX_CMS_OK && out_len == sizeof enveloped_text - 1 && !memcmp(out, enveloped_text, out_len),
        "A.2.1 (KARI, ephemeral) decrypts to the example's text: %s", gostx_cms_status_name(st));
  gostx_cms_enveloped env;
  CHECK(gostx_cms_enveloped_parse(der, len, &env, NULL) == 0 && env.recipients[0].kari &&
            env.recipients[0].originator_kind == GOSTX_CMS_ORIGINATOR_KEY,
        "A.2.1: a KARI with the originator's key");
  uint8_t *ek = der + (env.recipients[0].encrypted_key - der);
  ek[2] ^= 1;
  st = decrypt_env(der, len, &r512, out, &out_len);
  CHECK(st == GOSTX_CMS_WRONG_KEY, "A.2.1: a changed encryptedKey: %s", gostx_cms_status_name(st));
  free(der);
  der = example("encrypted_keyagree_a221.pem", &len);
  st = decrypt_from(der, len, &r256, &sender->cert, out, &out_len);
  CHECK(st == GOSTX_CMS_OK && out_len == sizeof enveloped_text - 1 && !memcmp(out, enveloped_text, out_len),
        "A.2.2 (KARI, static originator) decrypts to the example's text: %s", gostx_cms_status_name(st));
  st = decrypt_env(der, len, &r256, out, &out_len);
  CHECK(st == GOSTX_CMS_ORIGINATOR_NOT_FOUND, "A.2.2 without the originator: %s", gostx_cms_status_name(st));
  st = decrypt_from(der, len, &r256, &r512.cert, out, &out_len);
  CHECK(st == GOSTX_CMS_ORIGINATOR_NOT_FOUND, "A.2.2 with another originator: %s", gostx_cms_status_name(st));
  free(der);
  gostx_gost3410_key_clear(&sender->key);
  free(sender);
}

static void encrypted_examples(void) {
  size_t klen;
  uint8_t *hex = slurp("encryption_key.hex", &klen), key[32];
  /* the file has the key's bytes in reverse (PyGOST's test reverses them too) */
  for (int i = 0; i < 32; i++) sscanf((const char *)hex + 2 * i, "%2hhx", &key[31 - i]);
  free(hex);
  static const char *files[] = {"encrypted_magma_a411.pem", "encrypted_kuznyechik_a421.pem"};
  for (int i = 0; i < 2; i++) {
    size_t len, out_len = 0;
    uint8_t *der = example(files[i], &len), out[256];
    gostx_cms_encrypted ed;
    gostx_cms_status st;
    CHECK(gostx_cms_encrypted_parse(der, len, &ed, &st) == 0, "%s parses: %s", files[i],
          gostx_cms_status_name(st));
    CHECK(ed.content.cipher == (i ? GOSTX_CMS_KUZNYECHIK : GOSTX_CMS_MAGMA_OMAC), "%s: its cipher", files[i]);
    CHECK(gostx_cms_encrypted_decrypt(&ed, key, out, sizeof out, &out_len, &st) == 0 &&
              out_len == sizeof encrypted_text - 1 && !memcmp(out, encrypted_text, out_len),
          "%s decrypts to the example's text: %s", files[i], gostx_cms_status_name(st));
    key[0] ^= 1;
    int rc = gostx_cms_encrypted_decrypt(&ed, key, out, sizeof out, &out_len, &st);
    CHECK(i ? rc == 0 && memcmp(out, encrypted_text, out_len) : rc == GOSTX_EAUTH && st == GOSTX_CMS_BAD_MAC,
          "%s: another key: %s", files[i], i ? "wrong bytes (not authenticated)" : gostx_cms_status_name(st));
    key[0] ^= 1;
    if (!i) { /* the MAC attribute itself */
      uint8_t *mac = der + (ed.content.mac - der);
      mac[0] ^= 1;
      CHECK(gostx_cms_encrypted_decrypt(&ed, key, out, sizeof out, &out_len, &st) == GOSTX_EAUTH &&
                st == GOSTX_CMS_BAD_MAC,
            "%s: a changed MAC attribute: %s", files[i], gostx_cms_status_name(st));
      mac[0] ^= 1;
    }
    free(der);
  }
}

static void digested_examples(void) {
  static const char *files[] = {"hashed_a311.pem", "hashed_a321.pem"};
  for (int i = 0; i < 2; i++) {
    size_t len;
    uint8_t *der = example(files[i], &len);
    gostx_cms_digested dd;
    gostx_cms_status st;
    CHECK(gostx_cms_digested_parse(der, len, &dd, &st) == 0 && dd.digest_len == (i ? 64u : 32u) &&
              dd.content_len == sizeof digested_text - 1 && !memcmp(dd.content, digested_text, dd.content_len),
          "%s parses: %s", files[i], gostx_cms_status_name(st));
    CHECK(gostx_cms_digested_verify(&dd, &st) == 0, "%s verifies: %s", files[i], gostx_cms_status_name(st));
    der[dd.content - der + 1] ^= 1;
    CHECK(gostx_cms_digested_verify(&dd, &st) == GOSTX_EAUTH && st == GOSTX_CMS_DIGEST_MISMATCH,
          "%s: a changed content: %s", files[i], gostx_cms_status_name(st));
    der[dd.content - der + 1] ^= 1;
    size_t made_len = 0;
    uint8_t made[256];
    CHECK(gostx_cms_digest_create(dd.digest_len, dd.content, dd.content_len, made, sizeof made, &made_len) == 0 &&
              made_len == len && !memcmp(made, der, len),
          "%s: made again byte for byte", files[i]);
    free(der);
  }
}

static uint8_t content[20000];

/* gostx_cms_encrypt to recips[n] with cipher; each recipient decrypts. */
static void round_trip(const signer_files *const *recips, size_t n, gostx_cms_cipher cipher, size_t len) {
  gostx_x509_cert certs[2];
  for (size_t i = 0; i < n; i++) certs[i] = recips[i]->cert;
  size_t need = 0, got = 0;
  CHECK(gostx_cms_encrypt(certs, n, cipher, content, len, NULL, 0, &need) == 0, "size query");
  uint8_t *der = malloc(need), *out = malloc(len + 1);
  CHECK(gostx_cms_encrypt(certs, n, cipher, content, len, der, need - 1, &got) == GOSTX_ELEN && got == need,
        "one byte short: ELEN and the size");
  CHECK(gostx_cms_encrypt(certs, n, cipher, content, len, der, need, &got) == 0 && got == need,
        "cipher %d, %zu recipients, %zu bytes: written in the size asked", cipher, n, len);
  CHECK(len < 64 || !find(der, got, content, 64), "the content is not in the message in clear");
  for (size_t i = 0; i < n; i++) {
    size_t out_len = 0;
    gostx_cms_status st = decrypt_env(der, got, recips[i], out, &out_len);
    CHECK(st == GOSTX_CMS_OK && out_len == len && !memcmp(out, content, len),
          "cipher %d, recipient %zu of %zu, %zu bytes: decrypts: %s", cipher, i, n, len,
          gostx_cms_status_name(st));
  }
  free(der);
  free(out);
}

static void round_trips(void) {
  const signer_files *one256[] = {&r256}, *one512[] = {&r512}, *both[] = {&r512, &r256};
  static const size_t sizes[] = {0, 47, sizeof content};
  for (int c = GOSTX_CMS_KUZNYECHIK; c <= GOSTX_CMS_MAGMA_OMAC; c++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      round_trip(one256, 1, (gostx_cms_cipher)c, sizes[s]);
      round_trip(one512, 1, (gostx_cms_cipher)c, sizes[s]);
      round_trip(both, 2, (gostx_cms_cipher)c, sizes[s]);
    }
  uint8_t key[32], *der = malloc(sizeof content + 512), *out = malloc(sizeof content);
  for (int i = 0; i < 32; i++) key[i] = (uint8_t)(i * 3);
  for (int c = GOSTX_CMS_KUZNYECHIK; c <= GOSTX_CMS_MAGMA_OMAC; c++) {
    size_t len = 0, out_len = 0;
    gostx_cms_encrypted ed;
    CHECK(gostx_cms_encrypted_encrypt(key, (gostx_cms_cipher)c, content, sizeof content, der,
                                      sizeof content + 512, &len) == 0 &&
              gostx_cms_encrypted_parse(der, len, &ed, NULL) == 0 &&
              gostx_cms_encrypted_decrypt(&ed, key, out, sizeof content, &out_len, NULL) == 0 &&
              out_len == sizeof content && !memcmp(out, content, out_len),
          "EncryptedData, cipher %d: round trip", c);
  }
  free(der);
  free(out);
}

/* Decrypts der with key alone (openssl cms -decrypt without -recip). */
static gostx_cms_status decrypt_by_key(const uint8_t *der, size_t der_len, const gostx_gost3410_key *key,
                                       const gostx_x509_cert *orig, uint8_t *out, size_t cap, size_t *len) {
  gostx_cms_enveloped env;
  gostx_cms_status st = GOSTX_CMS_OK;
  if (gostx_cms_enveloped_parse(der, der_len, &env, &st)) return st;
  int rc = gostx_cms_enveloped_decrypt(&env, NULL, key, orig, out, cap, len, &st);
  if (rc && st == GOSTX_CMS_OK) st = GOSTX_CMS_MALFORMED;
  return st;
}

/* gostx_cms_encrypt_with: KARI or KTRI, named by issuer and serial or by
 * subjectKeyIdentifier, to a 512- and a 256-bit recipient: the fields RFC
 * 5652 6.1/6.2 ask (versions, rid, the ephemeral originator, a 32-byte
 * ukm), each recipient decrypts by certificate and by key alone. */
static void recipient_kinds(void) {
  const signer_files *recips[] = {&r512, &r256};
  gostx_x509_cert certs[] = {r512.cert, r256.cert};
  uint8_t der[2048], out[100];
  for (int kind = 0; kind < 4; kind++) {
    gostx_cms_encrypt_params p = {kind & 1 ? GOSTX_CMS_MAGMA : GOSTX_CMS_KUZNYECHIK, kind & 1, kind >> 1, NULL, NULL};
    size_t len = 0, need = 0;
    gostx_cms_enveloped env;
    CHECK(gostx_cms_encrypt_with(certs, 2, &p, content, sizeof out, NULL, 0, &need) == 0 &&
              gostx_cms_encrypt_with(certs, 2, &p, content, sizeof out, der, sizeof der, &len) == 0 &&
              len == need && gostx_cms_enveloped_parse(der, len, &env, NULL) == 0 &&
              env.n_recipients == 2,
          "kari %d, keyid %d: written in the size asked, parsed", p.kari, p.key_id);
    CHECK(env.version == (p.kari || p.key_id ? 2 : 0), "kari %d, keyid %d: EnvelopedData version %d",
          p.kari, p.key_id, env.version);
    for (size_t i = 0; i < 2; i++) {
      const gostx_cms_recipient *ri = &env.recipients[i];
      CHECK(ri->kari == p.kari && ri->version == (p.kari ? 3 : 2 * p.key_id) &&
                ri->rid_kind == (p.key_id ? GOSTX_CMS_SID_KEY_ID : GOSTX_CMS_SID_ISSUER_SERIAL) &&
                (!p.kari || (ri->originator_kind == GOSTX_CMS_ORIGINATOR_KEY && ri->ukm_len == 32 &&
                             ri->encrypted_key_len == 32 + (p.cipher == GOSTX_CMS_MAGMA ? 8u : 16u))),
            "kari %d, keyid %d, recipient %zu: its kind, version, rid and originator", p.kari, p.key_id, i);
      size_t out_len = 0;
      gostx_cms_status st = decrypt_env(der, len, recips[i], out, &out_len);
      CHECK(st == GOSTX_CMS_OK && out_len == sizeof out && !memcmp(out, content, out_len),
            "kari %d, keyid %d, recipient %zu decrypts: %s", p.kari, p.key_id, i, gostx_cms_status_name(st));
      memset(out, 0, sizeof out);
      st = decrypt_by_key(der, len, &recips[i]->key, NULL, out, sizeof out, &out_len);
      CHECK(st == GOSTX_CMS_OK && !memcmp(out, content, sizeof out),
            "kari %d, keyid %d, recipient %zu decrypts by its key alone: %s", p.kari, p.key_id, i,
            gostx_cms_status_name(st));
    }
  }
  gostx_cms_encrypt_params bad = {GOSTX_CMS_KUZNYECHIK, 1, 0, NULL, NULL};
  size_t len = 0;
  bad.cipher = (gostx_cms_cipher)9;
  CHECK(gostx_cms_encrypt_with(certs, 2, &bad, content, 10, der, sizeof der, &len) == GOSTX_EINVAL &&
            gostx_cms_encrypt_with(certs, 2, NULL, content, 10, der, sizeof der, &len) == GOSTX_EINVAL,
        "an unknown cipher, no parameters: EINVAL");
}

/* Decryption by key alone: every recipient of the key's size is tried,
 * another's key opens none (RECIPIENT_NOT_FOUND), a changed encryptedKey
 * opens none, the second of two 256-bit recipients is found, a static
 * originator's KARI needs its certificate (A.2.2). */
static void by_key_alone(void) {
  signer_files *sender = malloc(sizeof *sender);
  load_signer("sender256_cert.pem", "sender256_key.pem", sender);
  gostx_x509_cert certs[] = {r256.cert, sender->cert};
  gostx_cms_encrypt_params p = {GOSTX_CMS_KUZNYECHIK_OMAC, 1, 0, NULL, NULL};
  uint8_t der[2048], out[100];
  size_t len = 0, out_len = 0;
  CHECK(gostx_cms_encrypt_with(certs, 2, &p, content, sizeof out, der, sizeof der, &len) == 0, "to two 256s");
  gostx_cms_status st = decrypt_by_key(der, len, &sender->key, NULL, out, sizeof out, &out_len);
  CHECK(st == GOSTX_CMS_OK && !memcmp(out, content, sizeof out), "the second of two: %s", gostx_cms_status_name(st));
  CHECK(gostx_cms_encrypt_with(certs, 1, &p, content, sizeof out, der, sizeof der, &len) == 0, "to one");
  memset(out, 0x55, sizeof out);
  st = decrypt_by_key(der, len, &sender->key, NULL, out, sizeof out, &out_len);
  CHECK(st == GOSTX_CMS_RECIPIENT_NOT_FOUND, "another's key: %s", gostx_cms_status_name(st));
  st = decrypt_by_key(der, len, &r512.key, NULL, out, sizeof out, &out_len);
  CHECK(st == GOSTX_CMS_RECIPIENT_NOT_FOUND, "a key of another size: %s", gostx_cms_status_name(st));
  gostx_cms_enveloped env;
  CHECK(gostx_cms_enveloped_parse(der, len, &env, NULL) == 0, "parses");
  der[env.recipients[0].encrypted_key - der] ^= 1;
  st = decrypt_by_key(der, len, &r256.key, NULL, out, sizeof out, &out_len);
  CHECK(st == GOSTX_CMS_RECIPIENT_NOT_FOUND && out[0] == 0x55, "a changed encryptedKey opens none: %s",
        gostx_cms_status_name(st));
  size_t elen;
  uint8_t *ex = example("encrypted_keyagree_a221.pem", &elen);
  st = decrypt_by_key(ex, elen, &r256.key, NULL, out, sizeof out, &out_len);
  CHECK(st == GOSTX_CMS_ORIGINATOR_NOT_FOUND, "A.2.2 by key, no originator: %s", gostx_cms_status_name(st));
  st = decrypt_by_key(ex, elen, &r256.key, &sender->cert, out, sizeof out, &out_len);
  CHECK(st == GOSTX_CMS_OK && out_len == sizeof enveloped_text - 1 && !memcmp(out, enveloped_text, out_len),
        "A.2.2 by key with its originator: %s", gostx_cms_status_name(st));
  free(ex);
  gostx_gost3410_key_clear(&sender->key);
  free(sender);
}

/* A KARI with a static originator (A.2.2's shape) written: sender256's
 * certificate named (issuer and serial, or key id with -keyid), KEG with
 * its key; the recipient decrypts by certificate and by key alone given
 * that originator, and is refused (ORIGINATOR_NOT_FOUND) without it or
 * with another. The sender's key must be its certificate's, on the
 * recipient's curve, and only for a KARI. */
static void static_originator(void) {
  signer_files *sender = malloc(sizeof *sender);
  load_signer("sender256_cert.pem", "sender256_key.pem", sender);
  uint8_t der[2048], out[100];
  size_t len = 0, out_len = 0;
  const uint8_t *kid;
  size_t kid_len;
  int has_kid = gostx__cms_cert_key_id(&sender->cert, &kid, &kid_len);
  for (int key_id = 0; key_id <= has_kid; key_id++) {
    gostx_cms_encrypt_params p = {GOSTX_CMS_MAGMA, 1, key_id, &sender->cert, &sender->key};
    gostx_cms_enveloped env;
    CHECK(gostx_cms_encrypt_with(&r256.cert, 1, &p, content, sizeof out, der, sizeof der, &len) == 0 &&
              gostx_cms_enveloped_parse(der, len, &env, NULL) == 0 &&
              env.recipients[0].originator_kind == (key_id ? GOSTX_CMS_SID_KEY_ID : GOSTX_CMS_SID_ISSUER_SERIAL),
          "keyid %d: a static originator named", key_id);
    gostx_cms_status st = decrypt_from(der, len, &r256, &sender->cert, out, &out_len);
    CHECK(st == GOSTX_CMS_OK && out_len == sizeof out && !memcmp(out, content, sizeof out),
          "keyid %d: decrypts with its originator: %s", key_id, gostx_cms_status_name(st));
    memset(out, 0, sizeof out);
    st = decrypt_by_key(der, len, &r256.key, &sender->cert, out, sizeof out, &out_len);
    CHECK(st == GOSTX_CMS_OK && !memcmp(out, content, sizeof out), "keyid %d: by key alone: %s", key_id,
          gostx_cms_status_name(st));
    st = decrypt_from(der, len, &r256, NULL, out, &out_len);
    CHECK(st == GOSTX_CMS_ORIGINATOR_NOT_FOUND, "keyid %d: no originator: %s", key_id, gostx_cms_status_name(st));
    st = decrypt_from(der, len, &r256, &r512.cert, out, &out_len);
    CHECK(st == GOSTX_CMS_ORIGINATOR_NOT_FOUND, "keyid %d: another originator: %s", key_id,
          gostx_cms_status_name(st));
  }
  gostx_cms_encrypt_params p = {GOSTX_CMS_MAGMA, 1, 0, &sender->cert, &r256.key};
  CHECK(gostx_cms_encrypt_with(&r256.cert, 1, &p, content, 10, der, sizeof der, &len) == GOSTX_EINVAL,
        "a key not the originator certificate's: EINVAL");
  p.originator_key = &sender->key;
  CHECK(gostx_cms_encrypt_with(&r512.cert, 1, &p, content, 10, der, sizeof der, &len) == GOSTX_EINVAL,
        "a recipient on another curve: EINVAL");
  p.kari = 0;
  CHECK(gostx_cms_encrypt_with(&r256.cert, 1, &p, content, 10, der, sizeof der, &len) == GOSTX_EINVAL,
        "a static originator for key transport: EINVAL");
  gostx_gost3410_key_clear(&sender->key);
  free(sender);
}

/* CTR-ACPKM's section in CMS is the profile's (Kuznyechik 256 KiB, Magma
 * 8 KiB, as PyGOST's test of the examples uses them): a plain EncryptedData
 * past a Magma section and through a Kuznyechik one, decrypted with
 * gostx_ctr_acpkm_crypt under those sections. */
static void sections(void) {
  static uint8_t big[300 * 1024];
  size_t der_cap = sizeof big + 256, len = 0;
  uint8_t key[32], *der = malloc(der_cap), *out = malloc(sizeof big);
  for (int i = 0; i < 32; i++) key[i] = (uint8_t)(0x40 + i);
  for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i >> 3);
  static const struct {
    gostx_cms_cipher c;
    gostx_alg alg;
    size_t section, n;
  } ex[] = {{GOSTX_CMS_MAGMA, GOSTX_ALG_MAGMA, 8192, 8}, {GOSTX_CMS_KUZNYECHIK, GOSTX_ALG_KUZNYECHIK, 256 * 1024, 16}};
  for (int i = 0; i < 2; i++) {
    gostx_cms_encrypted ed;
    gostx_cipher c;
    CHECK(gostx_cms_encrypted_encrypt(key, ex[i].c, big, sizeof big, der, der_cap, &len) == 0 &&
              gostx_cms_encrypted_parse(der, len, &ed, NULL) == 0 && gostx_cipher_init(&c, ex[i].alg, key) == 0 &&
              gostx_ctr_acpkm_crypt(&c, ed.content.ukm, ex[i].n / 2, ex[i].section, ed.content.ciphertext,
                                    sizeof big, out) == 0 &&
              !memcmp(out, big, sizeof big),
          "cipher %d: CTR-ACPKM with the profile's %zu-byte section", ex[i].c, ex[i].section);
    gostx_cipher_clear(&c);
  }
  free(der);
  free(out);
}

static void refusals(void) {
  size_t len;
  gostx_cms_status st;
  gostx_cms_enveloped env;
  gostx_cms_encrypted ed;
  uint8_t *der = example("signed_a121.pem", &len);
  CHECK(gostx_cms_enveloped_parse(der, len, &env, &st) == GOSTX_EFORMAT && st == GOSTX_CMS_WRONG_TYPE,
        "a SignedData is no EnvelopedData: %s", gostx_cms_status_name(st));
  free(der);
  der = example("encrypted_magma_a411.pem", &len);
  uint8_t *longer = malloc(len + 1);
  memcpy(longer, der, len);
  longer[len] = 0;
  CHECK(gostx_cms_encrypted_parse(longer, len + 1, &ed, &st) == GOSTX_EFORMAT &&
            st == GOSTX_CMS_TRAILING_DATA,
        "trailing data: %s", gostx_cms_status_name(st));
  /* the MAC attribute taken away: its OID's last arc changed */
  static const uint8_t mac_oid[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x00, 0x06, 0x01, 0x01};
  size_t at = find(der, len, mac_oid, sizeof mac_oid);
  der[at + sizeof mac_oid - 1] = 2;
  CHECK(at && gostx_cms_encrypted_parse(der, len, &ed, &st) == GOSTX_EFORMAT &&
            st == GOSTX_CMS_BAD_MAC_ATTRIBUTE,
        "an -OMAC content without its MAC attribute: %s", gostx_cms_status_name(st));
  free(longer);
  free(der);
}

int main(void) {
  for (size_t i = 0; i < sizeof content; i++) content[i] = (uint8_t)(i * 7 + 1);
  load_signer("recipient256_cert.pem", "recipient256_key.pem", &r256);
  load_signer("recipient512_cert.pem", "recipient512_key.pem", &r512);
  keytrans_examples();
  keyagree_examples();
  encrypted_examples();
  digested_examples();
  round_trips();
  recipient_kinds();
  by_key_alone();
  static_originator();
  sections();
  refusals();
  gostx_gost3410_key_clear(&r256.key);
  gostx_gost3410_key_clear(&r512.key);
  return t_done();
}
