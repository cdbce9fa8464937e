/* Kuznyechik (GOST R 34.12-2015, RFC 7801): every case of
 * tests/vectors/kuznyechik.json (S, R, L and their inverses, C1..C8, K1..K10,
 * encryption/decryption), and random comparisons against a slow reference
 * written here from RFC 7801 section 4 (table S-box, bytewise GF(2^8)
 * multiplication, R iterated 16 times; no code shared with lib/). */
#include <stdlib.h>

#include "kuznyechik/impl.h"
#include "kuznyechik/kuz_tables.h"
#include "testutil.h"
#include "dispatch.h"

/* ---- Independent reference ---- */
static const uint8_t ref_pi[256] = {
    252, 238, 221, 17, 207, 110, 49, 22, 251, 196, 250, 218, 35, 197, 4, 77,
    233, 119, 240, 219, 147, 46, 153, 186, 23, 54, 241, 187, 20, 205, 95, 193,
    249, 24, 101, 90, 226, 92, 239, 33, 129, 28, 60, 66, 139, 1, 142, 79,
    5, 132, 2, 174, 227, 106, 143, 160, 6, 11, 237, 152, 127, 212, 211, 31,
    235, 52, 44, 81, 234, 200, 72, 171, 242, 42, 104, 162, 253, 58, 206, 204,
    181, 112, 14, 86, 8, 12, 118, 18, 191, 114, 19, 71, 156, 183, 93, 135,
    21, 161, 150, 41, 16, 123, 154, 199, 243, 145, 120, 111, 157, 158, 178, 177,
    50, 117, 25, 61, 255, 53, 138, 126, 109, 84, 198, 128, 195, 189, 13, 87,
    223, 245, 36, 169, 62, 168, 67, 201, 215, 121, 214, 246, 124, 34, 185, 3,
    224, 15, 236, 222, 122, 148, 176, 188, 220, 232, 40, 80, 78, 51, 10, 74,
    167, 151, 96, 115, 30, 0, 98, 68, 26, 184, 56, 130, 100, 159, 38, 65,
    173, 69, 70, 146, 39, 94, 85, 47, 140, 163, 165, 125, 105, 213, 149, 59,
    7, 88, 179, 64, 134, 172, 29, 247, 48, 55, 107, 228, 136, 217, 231, 137,
    225, 27, 131, 73, 76, 63, 248, 254, 141, 83, 170, 144, 202, 216, 133, 97,
    32, 113, 103, 164, 45, 43, 9, 91, 203, 155, 37, 208, 190, 229, 108, 82,
    89, 166, 116, 210, 230, 244, 180, 192, 209, 102, 175, 194, 57, 75, 99, 182,
};
static uint8_t ref_pi_inv[256];

/* l's coefficients for a_15..a_0, i.e. for bytes 0..15 of the string. */
static const uint8_t ref_lc[16] = {148, 32, 133, 16, 194, 192, 1, 251,
                                   1,   192, 194, 16, 133, 32, 148, 1};

/* GF(2^8) modulo p(x) = x^8 + x^7 + x^6 + x + 1, schoolbook. */
static uint8_t ref_mul(uint8_t a, uint8_t b) {
  unsigned r = 0;
  for (int i = 0; i < 8; i++)
    if (b & (1u << i)) r ^= (unsigned)a << i;
  for (int i = 14; i >= 8; i--)
    if (r & (1u << i)) r ^= 0x1c3u << (i - 8);
  return (uint8_t)r;
}

static uint8_t ref_l(const uint8_t a[16]) {
  uint8_t s = 0;
  for (int j = 0; j < 16; j++) s ^= ref_mul(ref_lc[j], a[j]);
  return s;
}

static void ref_S(uint8_t a[16]) { for (int i = 0; i < 16; i++) a[i] = ref_pi[a[i]]; }
static void ref_S_inv(uint8_t a[16]) { for (int i = 0; i < 16; i++) a[i] = ref_pi_inv[a[i]]; }

/* R(a_15..a_0) = l(a_15..a_0) || a_15..a_1 */
static void ref_R(uint8_t a[16]) {
  uint8_t t = ref_l(a);
  memmove(a + 1, a, 15);
  a[0] = t;
}
/* R^-1(a_15..a_0) = a_14..a_0 || l(a_14..a_0, a_15) */
static void ref_R_inv(uint8_t a[16]) {
  uint8_t first = a[0];
  memmove(a, a + 1, 15);
  a[15] = first;
  a[15] = ref_l(a);
}
static void ref_L(uint8_t a[16]) { for (int i = 0; i < 16; i++) ref_R(a); }
static void ref_L_inv(uint8_t a[16]) { for (int i = 0; i < 16; i++) ref_R_inv(a); }

static void ref_C(uint8_t c[16], unsigned i) {
  memset(c, 0, 16);
  c[15] = (uint8_t)i;
  ref_L(c);
}

static void ref_expand(uint8_t rk[10][16], const uint8_t key[32]) {
  uint8_t a1[16], a0[16], t[16], c[16];
  memcpy(a1, key, 16);
  memcpy(a0, key + 16, 16);
  memcpy(rk[0], a1, 16);
  memcpy(rk[1], a0, 16);
  for (unsigned i = 1; i <= 32; i++) {
    ref_C(c, i);
    for (int j = 0; j < 16; j++) t[j] = a1[j] ^ c[j];
    ref_S(t);
    ref_L(t);
    for (int j = 0; j < 16; j++) t[j] ^= a0[j];
    memcpy(a0, a1, 16);
    memcpy(a1, t, 16);
    if (i % 8 == 0) {
      memcpy(rk[i / 4], a1, 16);
      memcpy(rk[i / 4 + 1], a0, 16);
    }
  }
}

static void ref_encrypt(uint8_t rk[10][16], const uint8_t in[16], uint8_t out[16]) {
  uint8_t t[16];
  memcpy(t, in, 16);
  for (int r = 0; r < 9; r++) {
    for (int j = 0; j < 16; j++) t[j] ^= rk[r][j];
    ref_S(t);
    ref_L(t);
  }
  for (int j = 0; j < 16; j++) out[j] = t[j] ^ rk[9][j];
}

static void ref_decrypt(uint8_t rk[10][16], const uint8_t in[16], uint8_t out[16]) {
  uint8_t t[16];
  memcpy(t, in, 16);
  for (int r = 9; r > 0; r--) {
    for (int j = 0; j < 16; j++) t[j] ^= rk[r][j];
    ref_L_inv(t);
    ref_S_inv(t);
  }
  for (int j = 0; j < 16; j++) out[j] = t[j] ^ rk[0][j];
}

/* ---- The standard's examples ---- */
typedef void (*xform_fn)(uint8_t out[16], const uint8_t in[16]);

static void check_xform(const json *c, const char *name, xform_fn fwd, xform_fn inv) {
  size_t ni, no;
  uint8_t *in = tv_hex(c, "input", &ni), *want = tv_hex(c, "output", &no);
  uint8_t got[16];
  CHECK(ni == 16 && no == 16, "%s: vector lengths", name);
  fwd(got, in);
  CHECK_BYTES(got, want, 16, name);
  inv(got, want);
  CHECK_BYTES(got, in, 16, name);
  /* in place */
  memcpy(got, in, 16);
  fwd(got, got);
  CHECK_BYTES(got, want, 16, name);
  free(in);
  free(want);
}

static void test_vectors(void) {
  json *f = tv_load("kuznyechik.json");
  json *cases = tv_cases(f);
  int seen_s = 0, seen_r = 0, seen_l = 0, seen_ks = 0, seen_enc = 0;
  for (size_t i = 0; i < json_len(cases); i++) {
    const json *c = json_at(cases, i);
    const char *kind = tv_str(c, "kind"), *name = tv_str(c, "name");
    if (!strcmp(kind, "S")) {
      check_xform(c, name, gostx__kuz_S, gostx__kuz_S_inv);
      seen_s++;
    } else if (!strcmp(kind, "R")) {
      check_xform(c, name, gostx__kuz_R, gostx__kuz_R_inv);
      seen_r++;
    } else if (!strcmp(kind, "L")) {
      check_xform(c, name, gostx__kuz_L, gostx__kuz_L_inv);
      seen_l++;
    } else if (!strcmp(kind, "key_schedule")) {
      uint8_t *key = tv_hex(c, "key", NULL);
      const json *cs = json_get(c, "iteration_constants_C1_to_C8");
      const json *ks = json_get(c, "round_keys_K1_to_K10");
      CHECK(json_len(cs) == 8 && json_len(ks) == 10, "key schedule: vector counts");
      for (size_t j = 0; j < json_len(cs); j++) {
        uint8_t want[16], got[16];
        CHECK(hex_decode(json_str(json_at(cs, j)), want, 16) == 16, "C hex");
        gostx__kuz_C(got, (unsigned)j + 1);
        CHECK_BYTES(got, want, 16, "iteration constant C_i");
      }
      gostx_kuz_key k;
      CHECK_RC(gostx_kuz_set_key(&k, key), GOSTX_OK, "set_key");
      uint8_t rk[10][16];
      gostx__kuz_expand(rk, key);
      for (size_t j = 0; j < json_len(ks); j++) {
        uint8_t want[16];
        CHECK(hex_decode(json_str(json_at(ks, j)), want, 16) == 16, "K hex");
        CHECK_BYTES(k.ek[j], want, 16, "round key K_i (set_key)");
        CHECK_BYTES(rk[j], want, 16, "round key K_i (expand)");
        uint8_t dk[16];
        memcpy(dk, want, 16);
        ref_L_inv(dk);
        CHECK_BYTES(k.dk[j], dk, 16, "dk_i = L^-1(K_i)");
      }
      gostx_kuz_clear(&k);
      free(key);
      seen_ks++;
    } else if (!strcmp(kind, "encrypt")) {
      uint8_t *key = tv_hex(c, "key", NULL), *pt = tv_hex(c, "plaintext", NULL);
      uint8_t *ct = tv_hex(c, "ciphertext", NULL);
      gostx_kuz_key k;
      uint8_t buf[16];
      CHECK_RC(gostx_kuz_set_key(&k, key), GOSTX_OK, "set_key");
      gostx_kuz_encrypt_blocks(&k, pt, 1, buf);
      CHECK_BYTES(buf, ct, 16, name);
      gostx_kuz_decrypt_blocks(&k, ct, 1, buf);
      CHECK_BYTES(buf, pt, 16, name);
      gostx__kuz_portable_encrypt(&k, pt, buf, 1);
      CHECK_BYTES(buf, ct, 16, "portable encrypt");
      gostx__kuz_portable_decrypt(&k, ct, buf, 1);
      CHECK_BYTES(buf, pt, 16, "portable decrypt");
      /* the generic handle too */
      gostx_cipher gc;
      CHECK_RC(gostx_cipher_init(&gc, GOSTX_ALG_KUZNYECHIK, key), GOSTX_OK, "cipher_init");
      gostx_cipher_encrypt_blocks(&gc, pt, 1, buf);
      CHECK_BYTES(buf, ct, 16, "gostx_cipher encrypt");
      gostx_cipher_clear(&gc);
      gostx_kuz_clear(&k);
      free(key);
      free(pt);
      free(ct);
      seen_enc++;
    } else {
      CHECK(0, "unknown vector kind %s", kind);
    }
  }
  CHECK(seen_s == 4 && seen_r == 4 && seen_l == 4 && seen_ks == 1 && seen_enc == 1,
        "all vector kinds seen (S %d R %d L %d ks %d enc %d)", seen_s, seen_r, seen_l, seen_ks,
        seen_enc);
  json_free(f);
}

/* ---- Transforms against the reference ---- */
/* fn(in) against ref on a copy of in */
static void like_ref(void (*fn)(uint8_t *, const uint8_t *), void (*ref)(uint8_t *),
                     const uint8_t in[16], const char *what) {
  uint8_t got[16], want[16];
  memcpy(want, in, 16);
  ref(want);
  fn(got, in);
  CHECK_BYTES(got, want, 16, what);
}

static void test_transforms(void) {
  uint8_t in[16], got[16], want[16];
  /* every S-box entry, each byte position */
  for (int v = 0; v < 256; v += 16) {
    for (int j = 0; j < 16; j++) in[j] = (uint8_t)(v + ((j * 7 + v / 16) & 15));
    like_ref(gostx__kuz_S, ref_S, in, "S, all 256 inputs");
    like_ref(gostx__kuz_S_inv, ref_S_inv, in, "S^-1, all 256 inputs");
  }
  /* L on every unit byte value at every position (columns of the matrix) */
  for (int j = 0; j < 16; j++)
    for (int b = 0; b < 8; b++) {
      memset(in, 0, 16);
      in[j] = (uint8_t)(1u << b);
      like_ref(gostx__kuz_L, ref_L, in, "L on a unit vector");
      like_ref(gostx__kuz_L_inv, ref_L_inv, in, "L^-1 on a unit vector");
    }
  for (int it = 0; it < 200; it++) {
    t_rand_bytes(in, 16);
    like_ref(gostx__kuz_R, ref_R, in, "R random");
    like_ref(gostx__kuz_R_inv, ref_R_inv, in, "R^-1 random");
    like_ref(gostx__kuz_L, ref_L, in, "L random");
    like_ref(gostx__kuz_L_inv, ref_L_inv, in, "L^-1 random");
    like_ref(gostx__kuz_S, ref_S, in, "S random");
  }
  for (unsigned i = 1; i <= 32; i++) {
    ref_C(want, i);
    gostx__kuz_C(got, i);
    CHECK_BYTES(got, want, 16, "C_i, i = 1..32");
  }
  gostx__kuz_C(got, 0);
  memset(want, 0, 16);
  CHECK_BYTES(got, want, 16, "C_0 is zero");
}

/* The generated tables kept for fast paths (pi, pi^-1, GF(2^8) matrices). */
static void test_tables(void) {
  CHECK(!memcmp(gostx__kuz_pi, ref_pi, 256), "generated pi");
  CHECK(!memcmp(gostx__kuz_pi_inv, ref_pi_inv, 256), "generated pi^-1");
  int ok_f = 1, ok_i = 1;
  for (int j = 0; j < 16; j++) {
    uint8_t e[16] = {0}, f[16];
    e[j] = 1;
    memcpy(f, e, 16);
    ref_L(e);
    ref_L_inv(f);
    for (int i = 0; i < 16; i++) {
      ok_f &= gostx__kuz_lmatrix_fwd[i][j] == e[i];
      ok_i &= gostx__kuz_lmatrix_inv[i][j] == f[i];
    }
  }
  CHECK(ok_f && ok_i, "generated L and L^-1 matrices");
}

/* ---- Block functions against the reference ---- */
enum { MAXB = 70 };

static void test_random_blocks(void) {
  static uint8_t key[32], pt[MAXB * 16 + 16], ct[MAXB * 16], buf[MAXB * 16 + 16];
  static uint8_t rk[10][16];
  gostx_kuz_key k;
  for (int it = 0; it < 24; it++) {
    t_rand_bytes(key, 32);
    ref_expand(rk, key);
    CHECK_RC(gostx_kuz_set_key(&k, key), GOSTX_OK, "set_key random");
    int ok = 1;
    for (int r = 0; r < 10; r++) ok &= !memcmp(k.ek[r], rk[r], 16);
    CHECK(ok, "random key schedule matches the reference");

    size_t n = it < 8 ? (size_t)it : t_rand_below(MAXB + 1);
    if (it == 8) n = MAXB;
    t_rand_bytes(pt, n * 16);
    for (size_t b = 0; b < n; b++) ref_encrypt(rk, pt + 16 * b, ct + 16 * b);

    memset(buf, 0xa5, sizeof buf);
    gostx_kuz_encrypt_blocks(&k, pt, n, buf);
    CHECK(!memcmp(buf, ct, n * 16), "encrypt %zu blocks vs reference", n);
    CHECK(buf[n * 16] == 0xa5, "encrypt %zu blocks writes nothing past the end", n);
    gostx_kuz_decrypt_blocks(&k, ct, n, buf);
    CHECK(!memcmp(buf, pt, n * 16), "decrypt %zu blocks", n);

    /* portable core directly (the dispatcher may have chosen another) */
    gostx__kuz_portable_encrypt(&k, pt, buf, n);
    CHECK(!memcmp(buf, ct, n * 16), "portable encrypt %zu blocks", n);
    gostx__kuz_portable_decrypt(&k, buf, buf, n);
    CHECK(!memcmp(buf, pt, n * 16), "portable decrypt in place %zu blocks", n);

    /* in place */
    memcpy(buf, pt, n * 16);
    gostx_kuz_encrypt_blocks(&k, buf, n, buf);
    CHECK(!memcmp(buf, ct, n * 16), "encrypt in place %zu blocks", n);
    gostx_kuz_decrypt_blocks(&k, buf, n, buf);
    CHECK(!memcmp(buf, pt, n * 16), "decrypt in place %zu blocks", n);

    /* a reference decrypt of random data, too */
    if (n) {
      uint8_t want[16];
      ref_decrypt(rk, pt, want);
      gostx_kuz_decrypt_blocks(&k, pt, 1, buf);
      CHECK_BYTES(buf, want, 16, "decrypt random block vs reference");
    }
  }

  /* every path (one block, 4-block planes, 64-lane bitsliced) and the
   * boundaries between them */
  static const size_t big[] = {2,  3,  5,  13, 14, 15,  19,  33,  40,  63,  64, 65,
                               66, 67, 68, 77, 78, 127, 128, 129, 131, 195, 256};
  size_t maxn = 256;
  uint8_t *bp = malloc(maxn * 16), *bc = malloc(maxn * 16), *bb = malloc(maxn * 16 + 1);
  CHECK(bp && bc && bb, "malloc");
  for (size_t i = 0; bp && bc && bb && i < sizeof big / sizeof big[0]; i++) {
    size_t n = big[i];
    t_rand_bytes(key, 32);
    ref_expand(rk, key);
    gostx_kuz_set_key(&k, key);
    t_rand_bytes(bp, n * 16);
    for (size_t b = 0; b < n; b++) ref_encrypt(rk, bp + 16 * b, bc + 16 * b);
    bb[n * 16] = 0x5a;
    gostx_kuz_encrypt_blocks(&k, bp, n, bb);
    CHECK(!memcmp(bb, bc, n * 16), "encrypt %zu blocks vs reference", n);
    CHECK(bb[n * 16] == 0x5a, "encrypt %zu blocks stays in bounds", n);
    gostx__kuz_portable_decrypt(&k, bb, bb, n);
    CHECK(!memcmp(bb, bp, n * 16), "portable decrypt %zu blocks in place", n);
    uint8_t want[16];
    size_t last = n - 1;
    ref_decrypt(rk, bc + 16 * last, want);
    CHECK_BYTES(want, bp + 16 * last, 16, "reference round trip");
    gostx_kuz_decrypt_blocks(&k, bc, n, bb);
    CHECK(!memcmp(bb, bp, n * 16), "decrypt %zu blocks", n);
    /* decryption of random data against the reference, every block */
    gostx_kuz_decrypt_blocks(&k, bp, n, bb);
    int ok = 1;
    for (size_t b = 0; b < n; b++) {
      ref_decrypt(rk, bp + 16 * b, want);
      ok &= !memcmp(bb + 16 * b, want, 16);
    }
    CHECK(ok, "decrypt %zu random blocks vs reference", n);
  }
  /* misaligned bulk */
  if (bp && bc && bb) {
    size_t n = 100;
    t_rand_bytes(bp, n * 16);
    for (size_t b = 0; b < n; b++) ref_encrypt(rk, bp + 16 * b, bc + 16 * b);
    memcpy(bb + 1, bp, (n - 1) * 16);
    gostx_kuz_encrypt_blocks(&k, bb + 1, n - 1, bb + 1);
    CHECK(!memcmp(bb + 1, bc, (n - 1) * 16), "encrypt 99 blocks misaligned in place");
  }
  free(bp);
  free(bc);
  free(bb);

  /* misaligned input and output, offsets 1..15 (independently) */
  static uint8_t inbuf[MAXB * 16 + 32], outbuf[MAXB * 16 + 32];
  t_rand_bytes(key, 32);
  ref_expand(rk, key);
  gostx_kuz_set_key(&k, key);
  for (int off = 1; off < 16; off++) {
    size_t n = 1 + t_rand_below(9);
    int ooff = (off * 7) % 16;
    t_rand_bytes(pt, n * 16);
    for (size_t b = 0; b < n; b++) ref_encrypt(rk, pt + 16 * b, ct + 16 * b);
    memcpy(inbuf + off, pt, n * 16);
    gostx_kuz_encrypt_blocks(&k, inbuf + off, n, outbuf + ooff);
    CHECK(!memcmp(outbuf + ooff, ct, n * 16), "encrypt misaligned in+%d out+%d", off, ooff);
    gostx_kuz_decrypt_blocks(&k, outbuf + ooff, n, inbuf + off);
    CHECK(!memcmp(inbuf + off, pt, n * 16), "decrypt misaligned");
    memcpy(inbuf + off, pt, n * 16);
    gostx_kuz_encrypt_blocks(&k, inbuf + off, n, inbuf + off);
    CHECK(!memcmp(inbuf + off, ct, n * 16), "encrypt misaligned in place +%d", off);
  }
  gostx_kuz_clear(&k);
}

static void test_api(void) {
  uint8_t key[32] = {0};
  gostx_kuz_key k;
  CHECK_RC(gostx_kuz_set_key(NULL, key), GOSTX_EINVAL, "set_key NULL key struct");
  CHECK_RC(gostx_kuz_set_key(&k, NULL), GOSTX_EINVAL, "set_key NULL key");
  t_rand_bytes(key, 32);
  gostx_kuz_set_key(&k, key);
  gostx_kuz_clear(&k);
  const uint8_t *p = (const uint8_t *)&k;
  int zero = 1;
  for (size_t i = 0; i < sizeof k; i++) zero &= p[i] == 0;
  CHECK(zero, "gostx_kuz_clear wipes the whole key");
  gostx_kuz_clear(NULL);
  CHECK(((uintptr_t)&k) % 64 == 0 || _Alignof(gostx_kuz_key) == 64, "key struct 64-aligned");

  const char *impl = gostx_impl(GOSTX_ALG_KUZNYECHIK);
  int found = 0; /* one of the dispatcher's rows */
  struct gostx__row_info info;
  for (size_t i = 0; gostx__impl_row_info(GOSTX_ALG_KUZNYECHIK, i, &info); i++)
    found |= impl && !strcmp(impl, info.name);
  CHECK(found, "gostx_impl(KUZNYECHIK) names a real implementation: %s", impl ? impl : "NULL");
  const char *forced = getenv("GOSTX_IMPL");
  if (forced && !strcmp(forced, "portable"))
    CHECK(impl && !strcmp(impl, "portable"), "GOSTX_IMPL=portable is honoured");
}

int main(void) {
  t_rand_init();
  for (int i = 0; i < 256; i++) ref_pi_inv[ref_pi[i]] = (uint8_t)i;
  test_vectors();
  test_transforms();
  test_tables();
  test_random_blocks();
  test_api();
  return t_done();
}
