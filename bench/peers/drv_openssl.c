/* bench/peers driver for OpenSSL 3 + gost-engine (Debian's libengine-gost-openssl
 * 3.0.1), through the EVP API with the engine loaded explicitly. That engine has
 * no magma-ecb, no gost89 ECB and no MGM. kuznyechik-omac goes through
 * EVP_DigestSign with an EVP_PKEY MAC key (the `openssl dgst -mac kuznyechik-mac`
 * path of this engine version returns Magma's MAC); the check shows whether
 * this path agrees. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/engine.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>

#include "common.h"

const char *const driver_ops[] = {"kuznyechik-ecb", "kuznyechik-ctr", "kuznyechik-cbc",
                                  "kuznyechik-omac", "magma-ctr", "magma-cbc",
                                  "gost89-cnt-mesh-cpa", "gost89-cfb-mesh-cpa", "streebog256",
                                  "streebog512", "hmac-streebog256", NULL};

static ENGINE *eng;

static const EVP_CIPHER *cipher_by_name(const char *name) {
  int nid = OBJ_sn2nid(name);
  if (nid == NID_undef) nid = OBJ_ln2nid(name);
  return nid == NID_undef ? NULL : ENGINE_get_cipher(eng, nid);
}
static const EVP_MD *md_by_name(const char *name) {
  int nid = OBJ_sn2nid(name);
  if (nid == NID_undef) nid = OBJ_ln2nid(name);
  return nid == NID_undef ? NULL : ENGINE_get_digest(eng, nid);
}

static int cipher(const char *name, size_t iv_len, const uint8_t *in, size_t len, uint8_t *out) {
  const EVP_CIPHER *c = cipher_by_name(name);
  if (!c) return 1;
  EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
  int ol = 0, fl = 0;
  int ok = x && EVP_EncryptInit_ex(x, c, eng, KEY, iv_len ? IV : NULL) &&
           EVP_CIPHER_CTX_set_padding(x, 0);
  /* EVP_EncryptUpdate takes an int length: feed 1 GiB-safe pieces. */
  size_t done = 0;
  while (ok && done < len) {
    size_t piece = len - done > (1u << 30) ? (1u << 30) : len - done;
    ok = EVP_EncryptUpdate(x, out + done, &ol, in + done, (int)piece);
    done += (size_t)ol;
    if ((size_t)ol != piece) break;
  }
  ok = ok && EVP_EncryptFinal_ex(x, out + done, &fl);
  EVP_CIPHER_CTX_free(x);
  return ok && done + (size_t)fl == len ? 0 : -1;
}

static int digest(const char *name, const uint8_t *in, size_t len, uint8_t *out, size_t *out_len) {
  const EVP_MD *md = md_by_name(name);
  if (!md) return 1;
  unsigned l = 0;
  EVP_MD_CTX *x = EVP_MD_CTX_new();
  int ok = x && EVP_DigestInit_ex(x, md, eng) && EVP_DigestUpdate(x, in, len) &&
           EVP_DigestFinal_ex(x, out, &l);
  EVP_MD_CTX_free(x);
  *out_len = l;
  return ok ? 0 : -1;
}

static int omac(const uint8_t *in, size_t len, uint8_t *out, size_t *out_len) {
  const EVP_MD *md = md_by_name("kuznyechik-mac");
  int nid = OBJ_sn2nid("kuznyechik-mac");
  if (!md || nid == NID_undef) return 1;
  EVP_PKEY *k = EVP_PKEY_new_mac_key(nid, eng, KEY, 32);
  EVP_MD_CTX *x = EVP_MD_CTX_new();
  size_t l = 16;
  int ok = k && x && EVP_DigestSignInit(x, NULL, md, eng, k) &&
           EVP_MD_CTX_ctrl(x, EVP_MD_CTRL_XOF_LEN, 16, NULL) >= 0 &&
           EVP_DigestSignUpdate(x, in, len) && EVP_DigestSignFinal(x, out, &l);
  if (!ok) ERR_print_errors_fp(stderr);
  EVP_MD_CTX_free(x);
  EVP_PKEY_free(k);
  *out_len = l;
  return ok ? 0 : -1;
}

int driver_op(const char *op, const uint8_t *in, size_t len, uint8_t *out, size_t *out_len) {
  *out_len = len;
  if (!strcmp(op, "kuznyechik-ecb")) return cipher("kuznyechik-ecb", 0, in, len, out);
  if (!strcmp(op, "kuznyechik-ctr")) return cipher("kuznyechik-ctr", 8, in, len, out);
  if (!strcmp(op, "kuznyechik-cbc")) return cipher("kuznyechik-cbc", 16, in, len, out);
  if (!strcmp(op, "magma-ctr")) return cipher("magma-ctr", 4, in, len, out);
  if (!strcmp(op, "magma-cbc")) return cipher("magma-cbc", 8, in, len, out);
  if (!strcmp(op, "gost89-cnt-mesh-cpa")) return cipher("gost89-cnt", 8, in, len, out);
  if (!strcmp(op, "gost89-cfb-mesh-cpa")) return cipher("gost89", 8, in, len, out);
  if (!strcmp(op, "kuznyechik-omac")) return omac(in, len, out, out_len);
  if (!strcmp(op, "streebog256")) return digest("md_gost12_256", in, len, out, out_len);
  if (!strcmp(op, "streebog512")) return digest("md_gost12_512", in, len, out, out_len);
  if (!strcmp(op, "hmac-streebog256")) {
    const EVP_MD *md = md_by_name("md_gost12_256");
    if (!md) return 1;
    unsigned l = 0;
    HMAC_CTX *h = HMAC_CTX_new();
    int ok = h && HMAC_Init_ex(h, KEY, 32, md, eng) && HMAC_Update(h, in, len) &&
             HMAC_Final(h, out, &l);
    HMAC_CTX_free(h);
    *out_len = l;
    return ok ? 0 : -1;
  }
  return 1;
}

int main(int argc, char **argv) {
  /* The engine's gost89 ciphers take their S-box from CRYPT_PARAMS; pin it. */
  setenv("CRYPT_PARAMS", "id-Gost28147-89-CryptoPro-A-ParamSet", 1);
  ENGINE_load_builtin_engines();
  eng = ENGINE_by_id("gost");
  if (!eng || !ENGINE_init(eng)) {
    fprintf(stderr, "openssl: cannot load the gost engine\n");
    return 1;
  }
  /* The MAC key types resolve only through the default-engine tables. */
  ENGINE_set_default(eng, ENGINE_METHOD_ALL);
  return driver_main(argc, argv);
}
