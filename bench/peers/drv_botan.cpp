// bench/peers driver for Botan 2 (Debian's 2.19): GOST-28147-89 (S-box
// R3411_94_TestParam or R3411_CryptoPro; no CryptoPro-A, no key meshing, no
// CNT mode), Streebog-256/512, HMAC(Streebog-256). No Kuznyechik or Magma.
#include <botan/block_cipher.h>
#include <botan/cipher_mode.h>
#include <botan/hash.h>
#include <botan/mac.h>

#include "common.h"

const char *const driver_ops[] = {"gost89-ecb-test", "gost89-cfb-test", "streebog256",
                                             "streebog512", "hmac-streebog256", nullptr};

#define GOST "GOST-28147-89(R3411_94_TestParam)"

int driver_op(const char *op, const uint8_t *in, size_t len, uint8_t *out, size_t *out_len) {
  std::string o(op);
  try {
    *out_len = len;
    if (o == "gost89-ecb-test") {
      auto bc = Botan::BlockCipher::create_or_throw(GOST);
      bc->set_key(KEY, 32);
      bc->encrypt_n(in, out, len / 8);
      return 0;
    }
    if (o == "gost89-cfb-test") {
      auto m = Botan::Cipher_Mode::create_or_throw(GOST "/CFB", Botan::ENCRYPTION);
      m->set_key(KEY, 32);
      m->start(IV, 8);
      memcpy(out, in, len);
      m->process(out, len);  // whole buffer in place; CFB takes any length
      return 0;
    }
    if (o == "streebog256" || o == "streebog512") {
      auto h = Botan::HashFunction::create_or_throw(o == "streebog256" ? "Streebog-256" : "Streebog-512");
      h->update(in, len);
      h->final(out);
      *out_len = h->output_length();
      return 0;
    }
    if (o == "hmac-streebog256") {
      auto m = Botan::MessageAuthenticationCode::create_or_throw("HMAC(Streebog-256)");
      m->set_key(KEY, 32);
      m->update(in, len);
      m->final(out);
      *out_len = m->output_length();
      return 0;
    }
  } catch (const std::exception &e) {
    fprintf(stderr, "botan: %s\n", e.what());
    return -1;
  }
  return 1;
}

int main(int argc, char **argv) { return driver_main(argc, argv); }
