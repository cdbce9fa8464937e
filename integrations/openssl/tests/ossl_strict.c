/* The gostx provider refuses what it cannot honour (issue 32): each check
 * names the item it covers. References are libgostx's own calls and the
 * DER laid out by hand from gost-engine's facts (GOST2015 cipher params:
 * SEQUENCE { OCTET STRING iv || kdf seed }). The provider is loaded into
 * the default library context, where its reason strings are registered.
 * argv[1]: the folder holding gostx.so. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <gostx.h>

#include "ossl_check.h"

static void fill(uint8_t *p, size_t n, uint8_t seed) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(seed + 7 * i + (i >> 3));
}

/* ---- item 5: OMAC-ACPKM section params after EVP_MAC_init ---- */
static int lib_omac_acpkm(int id, const uint8_t *key, size_t section, size_t master,
                          const uint8_t *msg, size_t len, uint8_t *mac, size_t n) {
  gostx_cipher c;
  gostx_omac_ctx o;
  int rc = gostx_cipher_init(&c, id, key);
  if (rc == GOSTX_OK) rc = gostx_omac_acpkm_init(&o, &c, section, master);
  if (rc == GOSTX_OK) rc = gostx_omac_update(&o, msg, len);
  if (rc == GOSTX_OK) rc = gostx_omac_final(&o, mac, n);
  gostx_cipher_clear(&c);
  return rc == GOSTX_OK;
}

/* EVP MAC with name's params set after init (before any data) when late. */
static int evp_omac_acpkm(const char *name, const uint8_t *key, const char *param, size_t value,
                          int late, const uint8_t *msg, size_t len, uint8_t *mac) {
  EVP_MAC *m = EVP_MAC_fetch(NULL, name, NULL);
  EVP_MAC_CTX *ctx = m ? EVP_MAC_CTX_new(m) : NULL;
  OSSL_PARAM p[2] = {OSSL_PARAM_size_t(param, &value), OSSL_PARAM_END};
  size_t outl = 0;
  int ok = ctx && EVP_MAC_init(ctx, key, 32, late ? NULL : p) &&
           (!late || EVP_MAC_CTX_set_params(ctx, p)) && EVP_MAC_update(ctx, msg, len) &&
           EVP_MAC_final(ctx, mac, &outl, 16);
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(m);
  return ok;
}

static void test_mac_mesh_after_init(void) {
  static const struct {
    const char *name;
    int id;
    size_t n, section, master; /* the provider's defaults */
  } macs[] = {{"kuznyechik-ctr-acpkm-omac", GOSTX_ALG_KUZNYECHIK, 16, 4096, 4096},
              {"magma-ctr-acpkm-omac", GOSTX_ALG_MAGMA, 8, 4096, 1024}};
  uint8_t key[32], msg[700], want[16], got[16];
  fill(key, sizeof key, 1);
  fill(msg, sizeof msg, 2);
  for (size_t i = 0; i < 2; i++) {
    const size_t n = macs[i].n;
    /* key-mesh 2n and cipher-key-mesh 2*32: the 700 bytes span many sections */
    lib_omac_acpkm(macs[i].id, key, 2 * n, macs[i].master, msg, sizeof msg, want, n);
    memset(got, 0, sizeof got);
    check(evp_omac_acpkm(macs[i].name, key, "key-mesh", 2 * n, 1, msg, sizeof msg, got) &&
              !memcmp(got, want, n),
          "item 5: %s key-mesh set after EVP_MAC_init = libgostx", macs[i].name);
    lib_omac_acpkm(macs[i].id, key, 2 * n, 64, msg, sizeof msg, want, n);
    uint8_t tmp[16];
    EVP_MAC *m = EVP_MAC_fetch(NULL, macs[i].name, NULL);
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(m);
    size_t a = 2 * n, b = 64, outl = 0;
    OSSL_PARAM p[3] = {OSSL_PARAM_size_t("key-mesh", &a), OSSL_PARAM_size_t("cipher-key-mesh", &b),
                       OSSL_PARAM_END};
    int ok = EVP_MAC_init(ctx, key, 32, NULL) && EVP_MAC_CTX_set_params(ctx, p) &&
             EVP_MAC_update(ctx, msg, sizeof msg) && EVP_MAC_final(ctx, tmp, &outl, 16);
    check(ok && outl == n && !memcmp(tmp, want, n),
          "item 5: %s key-mesh and cipher-key-mesh after EVP_MAC_init = libgostx", macs[i].name);
    /* once data went in, the sections can no longer change: refused */
    ok = EVP_MAC_init(ctx, key, 32, NULL) && EVP_MAC_update(ctx, msg, 10);
    ERR_clear_error();
    check(ok && !EVP_MAC_CTX_set_params(ctx, p) && ERR_peek_error() != 0,
          "item 5: %s key-mesh after the first update refused", macs[i].name);
    ERR_clear_error();
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(m);
  }
}

/* ---- items 6 and 7: MGM ---- */
static void test_mgm(const char *name, size_t n) {
  EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, name, NULL);
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  uint8_t key[32], nonce[16], nonce2[16], msg[100], ct[100], tag[16];
  int outl;
  fill(key, sizeof key, 3);
  fill(nonce, n, 4);
  nonce[0] &= 0x7f;
  memcpy(nonce2, nonce, n);
  nonce2[n - 1] ^= 1;
  fill(msg, sizeof msg, 5);
  int ok = c && EVP_EncryptInit_ex(ctx, c, NULL, key, nonce) &&
           EVP_EncryptUpdate(ctx, ct, &outl, msg, sizeof msg) &&
           EVP_EncryptFinal_ex(ctx, ct, &outl) &&
           EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)n, tag) > 0;
  check(ok, "%s encrypts", name);
  /* item 7: the same key and nonce again is refused (as AES-GCM) */
  ERR_clear_error();
  int again = EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, NULL) &&
              EVP_EncryptUpdate(ctx, ct, &outl, msg, sizeof msg) &&
              EVP_EncryptFinal_ex(ctx, ct, &outl);
  check(!again && ERR_peek_error() != 0,
        "item 7: %s second encryption under the same key and nonce refused", name);
  ERR_clear_error();
  /* the same with the key given again but no new nonce */
  again = EVP_EncryptInit_ex(ctx, NULL, NULL, key, NULL) &&
          EVP_EncryptUpdate(ctx, ct, &outl, msg, sizeof msg);
  check(!again, "item 7: %s same key and nonce (key given again) refused", name);
  ERR_clear_error();
  /* decryption of what was made is allowed */
  uint8_t back[100];
  ok = EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, NULL) &&
       EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)n, tag) > 0 &&
       EVP_DecryptUpdate(ctx, back, &outl, ct, sizeof ct);
  check(ok, "item 7: %s decryption after an encryption allowed", name);
  ERR_clear_error();
  /* a new nonce makes encryption possible again */
  ok = EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, nonce2) &&
       EVP_EncryptUpdate(ctx, ct, &outl, msg, sizeof msg) && EVP_EncryptFinal_ex(ctx, ct, &outl);
  check(ok, "item 7: %s encryption with a new nonce allowed", name);
  ERR_clear_error();

  /* item 6: TLSTREE is not implemented, so the param is refused with a reason */
  uint8_t seq[8] = {0, 0, 0, 0, 0, 0, 0, 1};
  OSSL_PARAM p[2] = {OSSL_PARAM_octet_string("tlstree", seq, sizeof seq), OSSL_PARAM_END};
  EVP_CIPHER_CTX_free(ctx);
  ctx = EVP_CIPHER_CTX_new();
  ok = EVP_EncryptInit_ex(ctx, c, NULL, key, nonce);
  ERR_clear_error();
  int set = EVP_CIPHER_CTX_set_params(ctx, p);
  char buf[256] = "";
  ERR_error_string_n(ERR_peek_error(), buf, sizeof buf);
  check(ok && !set && strstr(buf, "unsupported"),
        "item 6: %s tlstree param refused (error '%s')", name, buf);
  ERR_clear_error();
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(c);
}

/* ---- item 9: negative lengths, reason strings ---- */
static void test_negative_len(void) {
  static const char *const names[] = {
      "kuznyechik-ecb",    "kuznyechik-cbc", "kuznyechik-cfb",       "kuznyechik-ofb",
      "kuznyechik-ctr",    "kuznyechik-ctr-acpkm", "magma-ecb",      "magma-cbc",
      "magma-ctr",         "magma-ctr-acpkm",      "gost89",         "gost89-cnt",
      "gost89-cnt-12",     "gost89-cbc",           "kuznyechik-mgm", "magma-mgm",
      "kuznyechik-xts",    "kuznyechik-ctr-acpkm-omac", "magma-ctr-acpkm-omac"};
  static uint8_t key[64], iv[32], in[64], out[64];
  fill(key, sizeof key, 13); /* XTS refuses equal halves */
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, names[i], NULL);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl = 0;
    int ok = c && EVP_EncryptInit_ex(ctx, c, NULL, key, iv);
    check(ok, "%s init", names[i]);
    ERR_clear_error();
    if (ok) {
      int r = EVP_EncryptUpdate(ctx, out, &outl, in, -1);
      check(!r && ERR_peek_error() != 0, "item 9: %s update with length -1 refused", names[i]);
      if (strstr(names[i], "mgm")) { /* AAD (out NULL) too */
        r = EVP_EncryptUpdate(ctx, NULL, &outl, in, -16);
        check(!r, "item 9: %s AAD with length -16 refused", names[i]);
      }
    }
    ERR_clear_error();
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
  }
}

/* An update before the key or the IV: refused, the error naming which is
 * missing (the cipher families share it, prov_not_started). */
static void test_not_started(void) {
  static const char *const names[] = {"kuznyechik-cbc", "kuznyechik-ctr", "magma-ctr",
                                      "gost89",         "gost89-cnt",     "gost89-cbc",
                                      "kuznyechik-ctr-acpkm-omac"};
  static uint8_t key[32], in[16], out[64];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    for (int with_key = 0; with_key < 2; with_key++) {
      EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, names[i], NULL);
      EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
      int outl = 0;
      ERR_clear_error();
      int ok = c && EVP_EncryptInit_ex(ctx, c, NULL, with_key ? key : NULL, NULL);
      check(ok, "%s init", names[i]);
      int r = ok && EVP_EncryptUpdate(ctx, out, &outl, in, sizeof in);
      const char *data = NULL; /* the detail the provider adds to its reason */
      int flags = 0;
      ERR_peek_last_error_data(&data, &flags);
      const char *want = with_key ? "no iv set" : "no key set";
      check(ok && !r && data && strstr(data, want), "%s: update without %s refused: '%s'",
            names[i], with_key ? "an IV" : "a key", data ? data : "");
      ERR_clear_error();
      EVP_CIPHER_CTX_free(ctx);
      EVP_CIPHER_free(c);
    }
  }
}

static void test_reason_text(void) {
  EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, "kuznyechik-ctr", NULL);
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  ERR_clear_error();
  int ok = EVP_EncryptInit_ex(ctx, c, NULL, NULL, NULL) &&
           EVP_CIPHER_CTX_set_key_length(ctx, 16); /* the length is fixed at 32 */
  char buf[512] = "";
  ERR_error_string_n(ERR_peek_last_error(), buf, sizeof buf);
  check(!ok && strstr(buf, "bad key length") && !strstr(buf, "reason("),
        "item 9: the error reads as text, got '%s'", buf);
  ERR_clear_error();
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(c);
}

/* ---- item 14: alg_id_param on the CTR ciphers ---- */
static int crypt_once(EVP_CIPHER_CTX *ctx, const uint8_t *in, size_t len, uint8_t *out) {
  int outl = 0;
  return EVP_EncryptUpdate(ctx, out, &outl, in, (int)len) && (size_t)outl == len;
}

static void test_alg_id(const char *name, const char *plain, size_t ivlen) {
  enum { LEN = 9000 }; /* more than two 4096-byte sections, less than 256 KiB */
  EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, name, NULL), *p = EVP_CIPHER_fetch(NULL, plain, NULL);
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *ref = EVP_CIPHER_CTX_new();
  static uint8_t msg[LEN], got[LEN], want[LEN];
  uint8_t key[32], iv[8], der[64], want_der[64];
  fill(key, sizeof key, 9);
  fill(iv, sizeof iv, 10);
  fill(msg, sizeof msg, 11);
  /* SEQUENCE { OCTET STRING iv || 8 zero seed bytes } */
  size_t ukm = ivlen + 8;
  want_der[0] = 0x30, want_der[1] = (uint8_t)(ukm + 2), want_der[2] = 0x04,
  want_der[3] = (uint8_t)ukm;
  memcpy(want_der + 4, iv, ivlen);
  memset(want_der + 4 + ivlen, 0, 8);
  OSSL_PARAM q[2] = {
      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_ALGORITHM_ID_PARAMS, der, sizeof der),
      OSSL_PARAM_END};
  int ok = c && p && EVP_EncryptInit_ex(ctx, c, NULL, key, iv) && EVP_CIPHER_CTX_get_params(ctx, q);
  check(ok && OSSL_PARAM_modified(q) && q[0].return_size == ukm + 4 &&
            !memcmp(der, want_der, ukm + 4),
        "item 14: %s alg_id_param = SEQUENCE { OCTET STRING iv || seed }", name);
  /* CMS implies 256 KiB sections: CTR-ACPKM then equals plain CTR over 9000 bytes */
  ok = ok && crypt_once(ctx, msg, LEN, got) && EVP_EncryptInit_ex(ref, p, NULL, key, iv) &&
       crypt_once(ref, msg, LEN, want);
  check(ok && !memcmp(got, want, LEN), "item 14: %s after alg_id_param: 256 KiB sections", name);
  /* setting it: the IV (and seed) come from the DER */
  uint8_t iv2[8];
  fill(iv2, sizeof iv2, 12);
  memcpy(der, want_der, ukm + 4);
  memcpy(der + 4, iv2, ivlen);
  OSSL_PARAM s[2] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_ALGORITHM_ID_PARAMS, der, ukm + 4),
                     OSSL_PARAM_END};
  ok = EVP_EncryptInit_ex(ctx, c, NULL, key, NULL) && EVP_CIPHER_CTX_set_params(ctx, s) &&
       crypt_once(ctx, msg, LEN, got) && EVP_EncryptInit_ex(ref, p, NULL, key, iv2) &&
       crypt_once(ref, msg, LEN, want);
  check(ok && !memcmp(got, want, LEN), "item 14: %s set alg_id_param: its IV, 256 KiB sections",
        name);
  ERR_clear_error();
  /* a DER of the wrong shape is refused */
  der[3] ^= 1;
  ok = EVP_EncryptInit_ex(ctx, c, NULL, key, iv) && EVP_CIPHER_CTX_set_params(ctx, s);
  check(!ok && ERR_peek_error() != 0, "item 14: %s malformed alg_id_param refused", name);
  ERR_clear_error();
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_CTX_free(ref);
  EVP_CIPHER_free(c);
  EVP_CIPHER_free(p);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s GOSTX_MODULE_DIR\n", argv[0]);
    return 2;
  }
  if (!OSSL_PROVIDER_set_default_search_path(NULL, argv[1]) || !OSSL_PROVIDER_load(NULL, "gostx")) {
    fprintf(stderr, "cannot load gostx from %s\n", argv[1]);
    ERR_print_errors_fp(stderr);
    return 1;
  }
  test_mac_mesh_after_init();
  test_mgm("kuznyechik-mgm", 16);
  test_mgm("magma-mgm", 8);
  test_reason_text();
  test_not_started();
  test_alg_id("kuznyechik-ctr", "kuznyechik-ctr", 8);
  test_alg_id("kuznyechik-ctr-acpkm", "kuznyechik-ctr", 8);
  test_alg_id("magma-ctr", "magma-ctr", 4);
  test_alg_id("magma-ctr-acpkm", "magma-ctr", 4);
  test_negative_len();
  printf("%lu passed, %lu failed\n", pass, fail);
  return fail ? 1 : 0;
}
