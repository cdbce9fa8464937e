/* HMAC-Streebog (RFC 7836 4.1), KDF_256 and KDF_TREE_256 (RFC 7836 4.4/4.5),
 * PBKDF2-HMAC-Streebog-512 (R 50.1.111-2016), and the internal SHA-256,
 * HMAC-SHA256 and PBKDF2-HMAC-SHA256 (for OpenSSL's default PBES2 files):
 * the standards' examples (FIPS 180-4, RFC 4231, RFC 7914),
 * HMACs from an independent implementation (gost-engine), and each function
 * against a direct composition written here from the layer below it. */
#include <stdlib.h>

#include "kdf/sha256.h"
#include "md_kat.h"
#include "testutil.h"

static void fill_pattern(uint8_t *p, size_t n, unsigned mul, unsigned add) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * mul + add);
}

static void hexbuf(const char *hex, uint8_t *out, size_t len) {
  if (hex_decode(hex, out, len) != (long)len) {
    fprintf(stderr, "bad hex constant %s\n", hex);
    exit(1);
  }
}

/* ---- independent compositions ---- */

/* RFC 2104 directly from the Streebog one-shot API: H((K0^opad) || H((K0^ipad) || m)). */
static void ref_hmac(size_t dlen, const uint8_t *key, size_t klen, const uint8_t *msg, size_t mlen,
                     uint8_t *out) {
  uint8_t k0[64] = {0}, inner_digest[64];
  if (klen > 64)
    gostx_streebog(dlen, key, klen, k0);
  else if (klen)
    memcpy(k0, key, klen);
  uint8_t *buf = malloc(64 + mlen + 64);
  if (!buf) exit(1);
  for (int i = 0; i < 64; i++) buf[i] = (uint8_t)(k0[i] ^ 0x36);
  if (mlen) memcpy(buf + 64, msg, mlen);
  gostx_streebog(dlen, buf, 64 + mlen, inner_digest);
  for (int i = 0; i < 64; i++) buf[i] = (uint8_t)(k0[i] ^ 0x5c);
  memcpy(buf + 64, inner_digest, dlen);
  gostx_streebog(dlen, buf, 64 + dlen, out);
  free(buf);
}

/* KDF_TREE_256 written out: K(i) = HMAC_256(K, [i]_R | label | 0x00 | seed | [L]_b). */
static void ref_kdf_tree(const uint8_t *key, size_t klen, const uint8_t *label, size_t llen,
                         const uint8_t *seed, size_t slen, size_t r, uint8_t *out, size_t outlen) {
  uint8_t *data = malloc(4 + llen + 1 + slen + 8);
  if (!data) exit(1);
  uint64_t bits = (uint64_t)outlen * 8;
  uint8_t lb[8];
  size_t lb_len = 0;
  /* minimal big-endian bytes of L */
  int top = 7;
  while (top > 0 && ((bits >> (8 * top)) & 0xff) == 0) top--;
  for (int j = top; j >= 0; j--) lb[lb_len++] = (uint8_t)(bits >> (8 * j));
  for (size_t i = 1, done = 0; done < outlen; i++) {
    size_t n = 0;
    for (size_t j = r; j-- > 0;) data[n++] = (uint8_t)(i >> (8 * j));
    if (llen) memcpy(data + n, label, llen), n += llen;
    data[n++] = 0x00;
    if (slen) memcpy(data + n, seed, slen), n += slen;
    memcpy(data + n, lb, lb_len), n += lb_len;
    uint8_t k[32];
    gostx_hmac(32, key, klen, data, n, k);
    size_t take = outlen - done < 32 ? outlen - done : 32;
    memcpy(out + done, k, take);
    done += take;
  }
  free(data);
}

/* PBKDF2 (RFC 8018 5.2) from the HMAC one-shot API. */
static void ref_pbkdf2(const uint8_t *p, size_t plen, const uint8_t *s, size_t slen, uint32_t c,
                       uint8_t *out, size_t outlen) {
  uint8_t *first = malloc(slen + 4);
  if (!first) exit(1);
  if (slen) memcpy(first, s, slen);
  for (uint32_t blk = 1, done = 0; done < outlen; blk++) {
    first[slen] = (uint8_t)(blk >> 24);
    first[slen + 1] = (uint8_t)(blk >> 16);
    first[slen + 2] = (uint8_t)(blk >> 8);
    first[slen + 3] = (uint8_t)blk;
    uint8_t u[64], t[64];
    gostx_hmac(64, p, plen, first, slen + 4, u);
    memcpy(t, u, 64);
    for (uint32_t j = 1; j < c; j++) {
      uint8_t next[64];
      gostx_hmac(64, p, plen, u, 64, next);
      memcpy(u, next, 64);
      for (int b = 0; b < 64; b++) t[b] ^= u[b];
    }
    size_t take = outlen - done < 64 ? outlen - done : 64;
    memcpy(out + done, t, take);
    done += (uint32_t)take;
  }
  free(first);
}

/* ---- the standards' examples ---- */

static void test_hmac_kdf_vectors(void) {
  json *f = tv_load("hmac-kdf.json");
  json *cases = tv_cases(f);
  int seen_hmac = 0, seen_kdf = 0, seen_tree = 0;
  for (size_t i = 0; i < json_len(cases); i++) {
    json *c = json_at(cases, i);
    const char *kind = tv_str(c, "kind"), *name = tv_str(c, "name");
    size_t klen, olen;
    uint8_t *key = tv_hex(c, "key", &klen);
    uint8_t *want = tv_hex(c, "output", &olen);
    uint8_t got[256];
    if (strcmp(kind, "hmac") == 0) {
      size_t dlen;
      uint8_t *data = tv_hex(c, "data", &dlen);
      size_t mlen = strcmp(tv_str(c, "hash"), "streebog256") == 0 ? 32 : 64;
      CHECK(mlen == olen, "%s: output length", name);
      CHECK_RC(gostx_hmac(mlen, key, klen, data, dlen, got), GOSTX_OK, name);
      CHECK_BYTES(got, want, olen, name);
      ref_hmac(mlen, key, klen, data, dlen, got);
      CHECK_BYTES(got, want, olen, "reference HMAC composition");
      free(data);
      seen_hmac++;
    } else if (strcmp(kind, "kdf_256") == 0) {
      size_t llen, slen;
      uint8_t *label = tv_hex(c, "label", &llen), *seed = tv_hex(c, "seed", &slen);
      CHECK_RC(gostx_kdf256(key, klen, label, llen, seed, slen, got), GOSTX_OK, name);
      CHECK_BYTES(got, want, 32, name);
      /* KDF_256 is KDF_TREE with R = 1 and L = 256. */
      CHECK_RC(gostx_kdf_tree256(key, klen, label, llen, seed, slen, 1, got, 32), GOSTX_OK, name);
      CHECK_BYTES(got, want, 32, "KDF_TREE R=1 L=256 equals KDF_256");
      free(label);
      free(seed);
      seen_kdf++;
    } else if (strcmp(kind, "kdf_tree_256") == 0) {
      size_t llen, slen;
      uint8_t *label = tv_hex(c, "label", &llen), *seed = tv_hex(c, "seed", &slen);
      size_t r = (size_t)tv_int(c, "R_bytes"), lbits = (size_t)tv_int(c, "L_bits");
      CHECK(lbits / 8 == olen, "%s: L matches output", name);
      CHECK_RC(gostx_kdf_tree256(key, klen, label, llen, seed, slen, r, got, olen), GOSTX_OK, name);
      CHECK_BYTES(got, want, olen, name);
      ref_kdf_tree(key, klen, label, llen, seed, slen, r, got, olen);
      CHECK_BYTES(got, want, olen, "reference KDF_TREE composition");
      free(label);
      free(seed);
      seen_tree++;
    } else {
      CHECK(0, "unknown kind %s", kind);
    }
    free(key);
    free(want);
  }
  CHECK(seen_hmac == 2 && seen_kdf == 1 && seen_tree == 1, "all hmac-kdf.json kinds seen");
  json_free(f);
}

static void test_pbkdf2_vectors(void) {
  const char *slow_env = getenv("GOSTX_SLOW_TESTS");
  int slow = slow_env && strcmp(slow_env, "1") == 0;
  json *f = tv_load("pbkdf2.json");
  json *cases = tv_cases(f);
  for (size_t i = 0; i < json_len(cases); i++) {
    json *c = json_at(cases, i);
    json *s = json_get(c, "slow");
    if (s && json_num(s) != 0 && !slow) {
      printf("skipping %s (set GOSTX_SLOW_TESTS=1)\n", tv_str(c, "name"));
      continue;
    }
    size_t plen, slen, dklen;
    uint8_t *p = tv_hex(c, "P", &plen), *salt = tv_hex(c, "S", &slen);
    uint8_t *want = tv_hex(c, "DK", &dklen);
    CHECK(dklen == (size_t)tv_int(c, "dkLen"), "dkLen");
    uint8_t *got = malloc(dklen);
    if (!got) exit(1);
    CHECK_RC(gostx_pbkdf2_streebog512(p, plen, salt, slen, (uint32_t)tv_int(c, "c"), got, dklen),
             GOSTX_OK, tv_str(c, "name"));
    CHECK_BYTES(got, want, dklen, tv_str(c, "name"));
    free(p);
    free(salt);
    free(want);
    free(got);
  }
  json_free(f);
}

/* ---- HMAC ---- */

/* HMACs of fill_pattern(150, 167, 13) under key fill_pattern(klen, 29, 5),
 * computed by gost-engine (an independent implementation):
 *   openssl dgst -engine gost -md_gost12_256 -mac hmac -macopt hexkey:KEY
 * Keys longer than 64 bytes are hashed first. */
static const struct { size_t klen; const char *h256, *h512; } engine_hmac[] = {
    {64, "7f86b8b4b95ac645411704336852570081375cff57b6bd9cc448e9ac4ef82917",
     "d4632aa1564db70242e5c9b7c43f7b4c63615c5ebc95eeff5ea08d733eef85bb"
     "339b434d59b3940196d9a0731a1f1be47d23d420cc54473a30d798bb162f1f77"},
    {65, "a9bc9fb28d40060fd7b4c026a850a00279f123e7160fc5a92324306af1a43b5b",
     "c931f2fbdf6f5961dbc895b2ed113f8a179d741f63567f69a0282ebe337beb81"
     "3cd485ea17a138cafd565339ecd0bd35f19c6774653ab0370846abc1bf007b49"},
    {100, "00af2cdbf7b4e44616717fce9a5aecf6eff06dc27e705b0e1dea00dc527eb5cc",
     "2e05708a424de976c2fbb4894d654c428c4f09c2a59412ec32581af9191a92b2"
     "73a524ad0d598ea05bd9e278a46878d2e8f8737d4f3c53e3f67d0c81f9b51c7e"},
    {200, "73740d278ef68ab947c5d369f66ce231dc777ad842a6c08048111d15f5d19785",
     "89d063277cc6b2699d434a34686f40d0548caa328e6201ba3da53e74fcae1957"
     "199348b8471dd670cf0e63392d0dd5152b02d1b464f4721db413400c09d1cda7"},
};

static void test_hmac_engine(void) {
  uint8_t key[200], msg[150], want[64], got[64];
  fill_pattern(msg, sizeof msg, 167, 13);
  for (size_t i = 0; i < sizeof engine_hmac / sizeof engine_hmac[0]; i++) {
    fill_pattern(key, engine_hmac[i].klen, 29, 5);
    char what[64];
    snprintf(what, sizeof what, "gost-engine HMAC-256, key %zu bytes", engine_hmac[i].klen);
    hexbuf(engine_hmac[i].h256, want, 32);
    CHECK_RC(gostx_hmac(32, key, engine_hmac[i].klen, msg, sizeof msg, got), GOSTX_OK, what);
    CHECK_BYTES(got, want, 32, what);
    snprintf(what, sizeof what, "gost-engine HMAC-512, key %zu bytes", engine_hmac[i].klen);
    hexbuf(engine_hmac[i].h512, want, 64);
    CHECK_RC(gostx_hmac(64, key, engine_hmac[i].klen, msg, sizeof msg, got), GOSTX_OK, what);
    CHECK_BYTES(got, want, 64, what);
  }
}

/* Keys of every interesting length against the composition from the
 * Streebog API, and streaming (every split) against one-shot. */
static void test_hmac_compose_and_stream(void) {
  static const size_t klens[] = {0, 1, 31, 32, 63, 64, 65, 127, 128, 129, 300};
  uint8_t key[300], msg[160], want[64], got[64];
  int bad_ref = 0, bad_stream = 0;
  for (size_t ki = 0; ki < sizeof klens / sizeof klens[0]; ki++) {
    size_t klen = klens[ki], mlen = t_rand_below(sizeof msg + 1);
    t_rand_bytes(key, klen);
    t_rand_bytes(msg, mlen);
    for (size_t dlen = 32; dlen <= 64; dlen += 32) {
      ref_hmac(dlen, key, klen, msg, mlen, want);
      gostx_hmac(dlen, key, klen, msg, mlen, got);
      if (memcmp(got, want, dlen) != 0) bad_ref++;
      for (size_t cut = 0; cut <= mlen; cut++) {
        gostx_hmac_ctx ctx;
        gostx_hmac_init(&ctx, dlen, key, klen);
        gostx_hmac_update(&ctx, msg, cut);
        gostx_hmac_update(&ctx, msg + cut, mlen - cut);
        gostx_hmac_final(&ctx, got);
        if (memcmp(got, want, dlen) != 0) bad_stream++;
      }
    }
  }
  CHECK(bad_ref == 0, "HMAC vs Streebog composition: %d mismatches", bad_ref);
  CHECK(bad_stream == 0, "HMAC streaming vs one-shot: %d mismatches", bad_stream);
  /* A key longer than a block acts as its digest. */
  uint8_t hk[64];
  t_rand_bytes(key, 100);
  for (size_t dlen = 32; dlen <= 64; dlen += 32) {
    gostx_streebog(dlen, key, 100, hk);
    gostx_hmac(dlen, key, 100, msg, 10, want);
    gostx_hmac(dlen, hk, dlen, msg, 10, got);
    CHECK_BYTES(got, want, dlen, "long key == its digest as key");
  }
}

static void test_hmac_errors(void) {
  gostx_hmac_ctx ctx;
  uint8_t mac[64], key[8] = {1, 2, 3, 4, 5, 6, 7, 8}, zero[sizeof(gostx_hmac_ctx)];
  memset(zero, 0, sizeof zero);
  CHECK_RC(gostx_hmac_init(NULL, 32, key, 8), GOSTX_EINVAL, "hmac init NULL ctx");
  CHECK_RC(gostx_hmac_init(&ctx, 48, key, 8), GOSTX_EINVAL, "hmac init digest 48");
  CHECK_RC(gostx_hmac_update(&ctx, "x", 1), GOSTX_ESTATE, "hmac update after failed init");
  CHECK_RC(gostx_hmac_final(&ctx, mac), GOSTX_ESTATE, "hmac final after failed init");
  CHECK_RC(gostx_hmac_init(&ctx, 32, NULL, 8), GOSTX_EINVAL, "hmac init NULL key, len 8");
  CHECK_RC(gostx_hmac_init(&ctx, 32, NULL, 0), GOSTX_OK, "hmac init empty key");
  CHECK_RC(gostx_hmac_update(&ctx, NULL, 1), GOSTX_EINVAL, "hmac update NULL data");
  CHECK_RC(gostx_hmac_update(NULL, "x", 1), GOSTX_EINVAL, "hmac update NULL ctx");
  CHECK_RC(gostx_hmac_final(&ctx, NULL), GOSTX_EINVAL, "hmac final NULL mac");
  CHECK_RC(gostx_hmac_final(&ctx, mac), GOSTX_OK, "hmac final");
  CHECK(memcmp(&ctx, zero, sizeof ctx) == 0, "hmac final wipes the context");
  CHECK_RC(gostx_hmac_update(&ctx, "x", 1), GOSTX_ESTATE, "hmac update after final");
  CHECK_RC(gostx_hmac_final(&ctx, mac), GOSTX_ESTATE, "hmac final after final");
  CHECK_RC(gostx_hmac(64, key, 8, NULL, 1, mac), GOSTX_EINVAL, "hmac one-shot NULL data");
  CHECK_RC(gostx_hmac(64, key, 8, "x", 1, NULL), GOSTX_EINVAL, "hmac one-shot NULL mac");
  CHECK_RC(gostx_hmac(0, key, 8, "x", 1, mac), GOSTX_EINVAL, "hmac one-shot digest 0");
  CHECK(gostx_sizeof_hmac_ctx() == sizeof(gostx_hmac_ctx), "sizeof hmac ctx");
  gostx_hmac_clear(NULL);
}

/* ---- KDF_TREE ---- */

static void test_kdf_tree(void) {
  static const size_t lens[] = {1, 16, 31, 32, 33, 64, 65, 100, 256, 1000};
  uint8_t key[40], label[10], seed[20], got[1000], want[1000];
  t_rand_bytes(key, sizeof key);
  t_rand_bytes(label, sizeof label);
  t_rand_bytes(seed, sizeof seed);
  int bad = 0;
  for (size_t r = 1; r <= 4; r++)
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
      size_t n = lens[li];
      ref_kdf_tree(key, sizeof key, label, sizeof label, seed, sizeof seed, r, want, n);
      int rc = gostx_kdf_tree256(key, sizeof key, label, sizeof label, seed, sizeof seed, r, got, n);
      if (rc != GOSTX_OK || memcmp(got, want, n) != 0) {
        bad++;
        printf("  KDF_TREE mismatch R=%zu len=%zu rc=%d\n", r, n, rc);
      }
    }
  CHECK(bad == 0, "KDF_TREE vs HMAC composition, R=1..4, 10 lengths");

  /* Empty label and seed are allowed. */
  ref_kdf_tree(key, sizeof key, NULL, 0, NULL, 0, 2, want, 48);
  CHECK_RC(gostx_kdf_tree256(key, sizeof key, NULL, 0, NULL, 0, 2, got, 48), GOSTX_OK,
           "KDF_TREE empty label/seed");
  CHECK_BYTES(got, want, 48, "KDF_TREE empty label/seed");

  /* With R = 1 the counter allows 255 blocks. */
  uint8_t *big = malloc(255 * 32 + 1);
  if (!big) exit(1);
  CHECK_RC(gostx_kdf_tree256(key, 8, label, 1, seed, 1, 1, big, 255 * 32), GOSTX_OK,
           "KDF_TREE R=1, 255 blocks");
  CHECK_RC(gostx_kdf_tree256(key, 8, label, 1, seed, 1, 1, big, 255 * 32 + 1), GOSTX_ELEN,
           "KDF_TREE R=1, 256 blocks");
  free(big);

  CHECK_RC(gostx_kdf_tree256(key, 8, label, 1, seed, 1, 0, got, 32), GOSTX_EINVAL, "R=0");
  CHECK_RC(gostx_kdf_tree256(key, 8, label, 1, seed, 1, 5, got, 32), GOSTX_EINVAL, "R=5");
  CHECK_RC(gostx_kdf_tree256(key, 8, label, 1, seed, 1, 1, got, 0), GOSTX_ELEN, "out_len 0");
  CHECK_RC(gostx_kdf_tree256(key, 8, label, 1, seed, 1, 1, NULL, 32), GOSTX_EINVAL, "NULL out");
  CHECK_RC(gostx_kdf_tree256(NULL, 8, label, 1, seed, 1, 1, got, 32), GOSTX_EINVAL, "NULL key");
  CHECK_RC(gostx_kdf_tree256(key, 8, NULL, 1, seed, 1, 1, got, 32), GOSTX_EINVAL, "NULL label");
  CHECK_RC(gostx_kdf_tree256(key, 8, label, 1, NULL, 1, 1, got, 32), GOSTX_EINVAL, "NULL seed");
  CHECK_RC(gostx_kdf256(key, 8, label, 1, seed, 1, NULL), GOSTX_EINVAL, "kdf256 NULL out");
  CHECK_RC(gostx_kdf256(NULL, 8, label, 1, seed, 1, got), GOSTX_EINVAL, "kdf256 NULL key");
  CHECK_RC(gostx_kdf256(key, 8, NULL, 2, seed, 1, got), GOSTX_EINVAL, "kdf256 NULL label");
}

/* ---- PBKDF2 ---- */

static void test_pbkdf2_compose(void) {
  static const size_t dklens[] = {1, 20, 63, 64, 65, 129};
  uint8_t pass[100], salt[40], got[129], want[129];
  int bad = 0;
  for (size_t i = 0; i < sizeof dklens / sizeof dklens[0]; i++) {
    size_t plen = (i * 37) % sizeof pass, slen = (i * 11) % sizeof salt;
    uint32_t c = 1 + (uint32_t)(i % 3);
    t_rand_bytes(pass, plen);
    t_rand_bytes(salt, slen);
    ref_pbkdf2(pass, plen, salt, slen, c, want, dklens[i]);
    int rc = gostx_pbkdf2_streebog512(pass, plen, salt, slen, c, got, dklens[i]);
    if (rc != GOSTX_OK || memcmp(got, want, dklens[i]) != 0) bad++;
  }
  CHECK(bad == 0, "PBKDF2 vs HMAC composition: %d mismatches", bad);
  /* A prefix of a longer output is the shorter output. */
  gostx_pbkdf2_streebog512((const uint8_t *)"pw", 2, (const uint8_t *)"salt", 4, 3, want, 129);
  gostx_pbkdf2_streebog512((const uint8_t *)"pw", 2, (const uint8_t *)"salt", 4, 3, got, 70);
  CHECK_BYTES(got, want, 70, "PBKDF2 prefix property");

  CHECK_RC(gostx_pbkdf2_streebog512(pass, 1, salt, 1, 0, got, 64), GOSTX_EINVAL, "c = 0");
  CHECK_RC(gostx_pbkdf2_streebog512(pass, 1, salt, 1, 1, got, 0), GOSTX_ELEN, "dkLen 0");
  CHECK_RC(gostx_pbkdf2_streebog512(pass, 1, salt, 1, 1, NULL, 64), GOSTX_EINVAL, "NULL out");
  CHECK_RC(gostx_pbkdf2_streebog512(NULL, 1, salt, 1, 1, got, 64), GOSTX_EINVAL, "NULL pass");
  CHECK_RC(gostx_pbkdf2_streebog512(pass, 1, NULL, 1, 1, got, 64), GOSTX_EINVAL, "NULL salt");
  CHECK_RC(gostx_pbkdf2_streebog512(NULL, 0, NULL, 0, 1, got, 64), GOSTX_OK, "empty pass/salt");
}

/* ---- SHA-256, HMAC-SHA256, PBKDF2-HMAC-SHA256 (lib/kdf/sha256.c) ---- */

static void sha256_init(void *c) { gostx__sha256_init(c); }
static void sha256_update(void *c, const void *p, size_t n) { gostx__sha256_update(c, p, n); }
static void sha256_final(void *c, uint8_t *out) { gostx__sha256_final(c, out); }

/* FIPS 180-4's examples (NIST's SHA256.pdf, SHA256_2.pdf) and the empty
 * message; a million 'a' and splits (md_kat.h). */
static void test_sha256_vectors(void) {
  static const t_md_vector v[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
       "lmnopqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
  };
  gostx__sha256_ctx ctx;
  t_md md = {"SHA-256", 32, gostx__sha256, sha256_init, sha256_update, sha256_final, &ctx};
  t_md_check(&md, v, sizeof v / sizeof v[0],
             "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* RFC 4231 test cases 1-4, 6 and 7 (5 is a truncated MAC). */
static void test_hmac_sha256_vectors(void) {
  static const char tc6[] = "Test Using Larger Than Block-Size Key - Hash Key First";
  static const char tc7[] = "This is a test using a larger than block-size key and a larger than "
                            "block-size data. The key needs to be hashed before being used by the "
                            "HMAC algorithm.";
  uint8_t k20b[20], k20a[20], k25[25], k131[131], d50d[50], d50c[50];
  memset(k20b, 0x0b, 20), memset(k20a, 0xaa, 20), memset(k131, 0xaa, 131);
  memset(d50d, 0xdd, 50), memset(d50c, 0xcd, 50);
  for (int i = 0; i < 25; i++) k25[i] = (uint8_t)(i + 1);
  const struct { const uint8_t *key; size_t klen; const void *data; size_t dlen; const char *mac; } v[] = {
      {k20b, 20, "Hi There", 8, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {(const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28,
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {k20a, 20, d50d, 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {k25, 25, d50c, 50, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {k131, 131, tc6, sizeof tc6 - 1, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {k131, 131, tc7, sizeof tc7 - 1, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    uint8_t want[32], got[32];
    gostx__hmac_sha256_ctx h;
    hexbuf(v[i].mac, want, 32);
    gostx__hmac_sha256_init(&h, v[i].key, v[i].klen);
    gostx__hmac_sha256_update(&h, v[i].data, v[i].dlen);
    gostx__hmac_sha256_final(&h, got);
    CHECK_BYTES(got, want, 32, v[i].mac); /* RFC 4231's value names the case */
  }
}

/* RFC 7914 section 11's PBKDF2-HMAC-SHA256 examples, and two iterations
 * against a composition of the HMAC by hand. */
static void test_pbkdf2_sha256(void) {
  uint8_t want[64], got[64];
  hexbuf("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
         "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783", want, 64);
  CHECK_RC(gostx__pbkdf2_sha256((const uint8_t *)"passwd", 6, (const uint8_t *)"salt", 4, 1, got, 64),
           GOSTX_OK, "pbkdf2_sha256");
  CHECK_BYTES(got, want, 64, "RFC 7914: passwd, salt, c = 1");
  hexbuf("4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
         "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d", want, 64);
  CHECK_RC(gostx__pbkdf2_sha256((const uint8_t *)"Password", 8, (const uint8_t *)"NaCl", 4, 80000,
                                got, 64), GOSTX_OK, "pbkdf2_sha256");
  CHECK_BYTES(got, want, 64, "RFC 7914: Password, NaCl, c = 80000");
  /* T_1 = U_1 ^ U_2, U_1 = HMAC(P, S || 00000001), U_2 = HMAC(P, U_1) */
  uint8_t u1[32], u2[32], salt[20];
  fill_pattern(salt, 16, 7, 3);
  memcpy(salt + 16, "\0\0\0\1", 4);
  gostx__hmac_sha256_ctx h;
  gostx__hmac_sha256_init(&h, (const uint8_t *)"pw", 2);
  gostx__hmac_sha256_update(&h, salt, 20);
  gostx__hmac_sha256_final(&h, u1);
  gostx__hmac_sha256_init(&h, (const uint8_t *)"pw", 2);
  gostx__hmac_sha256_update(&h, u1, 32);
  gostx__hmac_sha256_final(&h, u2);
  for (int i = 0; i < 32; i++) want[i] = u1[i] ^ u2[i];
  CHECK_RC(gostx__pbkdf2_sha256((const uint8_t *)"pw", 2, salt, 16, 2, got, 32), GOSTX_OK, "c = 2");
  CHECK_BYTES(got, want, 32, "PBKDF2-HMAC-SHA256 = the HMAC composed");
  CHECK_RC(gostx__pbkdf2_sha256((const uint8_t *)"pw", 2, salt, 16, 0, got, 32), GOSTX_EINVAL,
           "0 iterations");
  CHECK_RC(gostx__pbkdf2_sha256((const uint8_t *)"pw", 2, salt, 16, 1, got, 0), GOSTX_ELEN,
           "empty output");
}

int main(void) {
  t_rand_init();
  test_hmac_kdf_vectors();
  test_pbkdf2_vectors();
  test_hmac_engine();
  test_hmac_compose_and_stream();
  test_hmac_errors();
  test_kdf_tree();
  test_pbkdf2_compose();
  test_sha256_vectors();
  test_hmac_sha256_vectors();
  test_pbkdf2_sha256();
  return t_done();
}
