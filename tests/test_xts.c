/* Kuznyechik-XTS: VeraCrypt's published self-test values for Kuznyechik, and
 * a textbook XTS (IEEE 1619) written here from single-block cipher calls and
 * a GF(2^128) multiplication of the test's own (bit by bit, and a byte-wise
 * times-alpha step checked against it), with ciphertext stealing. Against it:
 * the one-unit calls for unit lengths 16..65536, every implementation row's
 * XTS kernel (gostx_kuz_impl.xts) on many units, keys, layouts and
 * alignments, and the disk calls under both dm-crypt tweak conventions and
 * on runs of sectors of every length kind. */
#include <stdlib.h>

#include "kuznyechik/impl.h"
#include "sector_batch.h"
#include "testutil.h"
#include "dispatch.h"

/* ---- textbook reference ---- */

/* r = a * b mod x^128 + x^7 + x^2 + x + 1, IEEE 1619 convention: 16-byte
 * little-endian numbers, bit k of the number is coefficient of x^k. */
static int le_bit(const uint8_t *p, unsigned k) { return (p[k / 8] >> (k % 8)) & 1; }
static void le_flip(uint8_t *p, unsigned k) { p[k / 8] ^= (uint8_t)(1u << (k % 8)); }

static void ref_gf_mul_le(uint8_t r[16], const uint8_t a[16], const uint8_t b[16]) {
  uint8_t prod[32] = {0};
  for (unsigned i = 0; i < 128; i++)
    for (unsigned j = 0; j < 128; j++)
      if (le_bit(a, i) && le_bit(b, j)) le_flip(prod, i + j);
  for (unsigned k = 254; k >= 128; k--) {
    if (!le_bit(prod, k)) continue;
    le_flip(prod, k);
    le_flip(prod, k - 128 + 7);
    le_flip(prod, k - 128 + 2);
    le_flip(prod, k - 128 + 1);
    le_flip(prod, k - 128);
  }
  memcpy(r, prod, 16);
}

static const uint8_t ALPHA[16] = {2}; /* the polynomial x */

/* t *= alpha, byte by byte (the library works on 64-bit halves). */
static void ref_mul_alpha(uint8_t t[16]) {
  const unsigned carry = t[15] >> 7;
  for (int i = 15; i > 0; i--) t[i] = (uint8_t)((t[i] << 1) | (t[i - 1] >> 7));
  t[0] = (uint8_t)((t[0] << 1) ^ (carry ? 0x87 : 0));
}

/* One block: F(in xor t) xor t with F = E_K1 or D_K1, the portable core's
 * (whatever level GOSTX_IMPL chooses for the library under test). */
static void ref_block(const gostx_kuz_key *k1, int dec, const uint8_t t[16], const uint8_t *in,
                      uint8_t *out) {
  uint8_t b[16];
  for (int i = 0; i < 16; i++) b[i] = in[i] ^ t[i];
  if (dec) gostx__kuz_portable_decrypt(k1, b, b, 1);
  else gostx__kuz_portable_encrypt(k1, b, b, 1);
  for (int i = 0; i < 16; i++) out[i] = b[i] ^ t[i];
}

/* IEEE 1619 section 5.3 / 5.4 with stealing, written straight from the text.
 * key = K1 || K2, len >= 16, in and out distinct. */
static void ref_xts(const uint8_t key[64], int dec, const uint8_t tweak[16], const uint8_t *in,
                    uint8_t *out, size_t len) {
  gostx_kuz_key k1, k2;
  size_t m = len / 16, b = len % 16, nt = m + (b ? 1 : 0);
  uint8_t (*t)[16] = malloc(nt * 16); /* the tweaks of the blocks, in order */
  gostx_kuz_set_key(&k1, key);
  gostx_kuz_set_key(&k2, key + 32);
  gostx__kuz_portable_encrypt(&k2, tweak, t[0], 1);
  for (size_t j = 1; j < nt; j++) {
    memcpy(t[j], t[j - 1], 16);
    ref_mul_alpha(t[j]); /* = ref_gf_mul_le(t[j], t[j - 1], ALPHA), test_gf_reference */
  }
  size_t plain = b ? m - 1 : m;
  for (size_t j = 0; j < plain; j++) ref_block(&k1, dec, t[j], in + 16 * j, out + 16 * j);
  if (b) {
    uint8_t cc[16], pp[16];
    const uint8_t *last_full = in + 16 * (m - 1), *partial = in + 16 * m;
    /* Encryption: CC = X(P_{m-1}, T_{m-1}); C_m = head of CC; C_{m-1} = X(P_m || tail of CC, T_m).
     * Decryption swaps the two tweaks. */
    ref_block(&k1, dec, dec ? t[m] : t[m - 1], last_full, cc);
    memcpy(pp, partial, b);
    memcpy(pp + b, cc + b, 16 - b);
    memcpy(out + 16 * m, cc, b);
    ref_block(&k1, dec, dec ? t[m - 1] : t[m], pp, out + 16 * (m - 1));
  }
  free(t);
  gostx_kuz_clear(&k1);
  gostx_kuz_clear(&k2);
}

/* ---- CRC-32 (IEEE 802.3, reflected), as VeraCrypt's GetCrc32 ---- */
static uint32_t crc32_buf(const uint8_t *p, size_t len) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < len; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

/* ---- tests ---- */

/* VeraCrypt src/Common/Tests.c, TestSectorBufEncryption(): key1 and key2 of
 * IEEE 1619 vectors 10-14, every 512-byte data unit holding bytes 00..ff
 * twice, four units starting at unit 0xFFFFFFFFFF - i (i = 0..3); the CRC-32
 * of the 2048 encrypted bytes for Kuznyechik, then EncryptBuffer (units 0..3). */
static void test_veracrypt(void) {
  static const uint8_t k1[32] = {0x27, 0x18, 0x28, 0x18, 0x28, 0x45, 0x90, 0x45, 0x23, 0x53, 0x60,
                                 0x28, 0x74, 0x71, 0x35, 0x26, 0x62, 0x49, 0x77, 0x57, 0x24, 0x70,
                                 0x93, 0x69, 0x99, 0x59, 0x57, 0x49, 0x66, 0x96, 0x76, 0x27};
  static const uint8_t k2[32] = {0x31, 0x41, 0x59, 0x26, 0x53, 0x58, 0x97, 0x93, 0x23, 0x84, 0x62,
                                 0x64, 0x33, 0x83, 0x27, 0x95, 0x02, 0x88, 0x41, 0x97, 0x16, 0x93,
                                 0x99, 0x37, 0x51, 0x05, 0x82, 0x09, 0x74, 0x94, 0x45, 0x92};
  static const uint32_t want_units[4] = {0x6b86e72e, 0xa4f8637d, 0xfd83e76d, 0xb24fc47b};
  const uint32_t want_buffer = 0xd6d39cdb, plain_crc = 0x9f5edd58;
  uint8_t key[64], buf[2048];
  gostx_xts_key x;
  memcpy(key, k1, 32);
  memcpy(key + 32, k2, 32);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)i;
  CHECK(crc32_buf(buf, sizeof buf) == plain_crc, "CRC-32 of the plaintext");
  for (int tc = 0; tc < 4; tc++) {
    uint64_t first = 0xffffffffffull - (uint64_t)tc;
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)i;
    for (int u = 0; u < 4; u++)
      CHECK_RC(gostx_xts_encrypt_sector(&x, first + (uint64_t)u, buf + 512 * u, 512, buf + 512 * u), 0,
               "sector enc");
    uint32_t crc = crc32_buf(buf, sizeof buf);
    CHECK(crc == want_units[tc], "VeraCrypt Kuznyechik XTS case %d: crc %08x want %08x", tc, crc,
          want_units[tc]);
    for (int u = 0; u < 4; u++)
      CHECK_RC(gostx_xts_decrypt_sector(&x, first + (uint64_t)u, buf + 512 * u, 512, buf + 512 * u), 0,
               "sector dec");
    CHECK(crc32_buf(buf, sizeof buf) == plain_crc, "VeraCrypt case %d decrypts back", tc);
  }
  /* The same four units in one disk call (the kernels' many-unit path:
   * 512-byte units sharing 64-block groups on the avx512 row). */
  for (int tc = 0; tc < 4; tc++) {
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)i;
    CHECK_RC(gostx_xts_encrypt_disk(NULL, &x, 0xffffffffffull - (uint64_t)tc, 512,
                                    GOSTX_XTS_TWEAK_512, buf, 4, buf), 0, "disk enc");
    CHECK(crc32_buf(buf, sizeof buf) == want_units[tc], "VeraCrypt case %d, one disk call", tc);
    CHECK_RC(gostx_xts_decrypt_disk(NULL, &x, 0xffffffffffull - (uint64_t)tc, 512,
                                    GOSTX_XTS_TWEAK_512, buf, 4, buf), 0, "disk dec");
    CHECK(crc32_buf(buf, sizeof buf) == plain_crc, "VeraCrypt case %d, disk call back", tc);
  }
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)i;
  for (int u = 0; u < 4; u++) gostx_xts_encrypt_sector(&x, (uint64_t)u, buf + 512 * u, 512, buf + 512 * u);
  CHECK(crc32_buf(buf, sizeof buf) == want_buffer, "VeraCrypt Kuznyechik EncryptBuffer: crc %08x",
        crc32_buf(buf, sizeof buf));
  gostx_xts_clear(&x);
}

static void rand_key(uint8_t key[64]) {
  t_rand_bytes(key, 64);
  key[32] = (uint8_t)(key[0] ^ 1); /* halves always differ */
}

/* One length: encrypt and decrypt against the reference, round trip, in
 * place, misaligned. */
static void check_len(size_t len) {
  uint8_t key[64], tweak[16];
  uint8_t pt[1024 + 3], ct[1024 + 3], ref[1024], back[1024 + 3];
  gostx_xts_key x;
  size_t off = t_rand_below(4);
  rand_key(key);
  t_rand_bytes(tweak, 16);
  t_rand_bytes(pt + off, len);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");

  ref_xts(key, 0, tweak, pt + off, ref, len);
  CHECK_RC(gostx_xts_encrypt(&x, tweak, pt + off, len, ct + 3 - off), 0, "encrypt");
  if (!CHECK_BYTES(ct + 3 - off, ref, len, "xts vs reference")) fprintf(stderr, "  len %zu\n", len);
  CHECK_RC(gostx_xts_decrypt(&x, tweak, ct + 3 - off, len, back + off), 0, "decrypt");
  CHECK_BYTES(back + off, pt + off, len, "xts round trip");
  /* Decryption against the reference's decryption of the same bytes. */
  ref_xts(key, 1, tweak, pt + off, ref, len);
  CHECK_RC(gostx_xts_decrypt(&x, tweak, pt + off, len, back), 0, "decrypt random");
  CHECK_BYTES(back, ref, len, "xts decrypt vs reference");
  /* In place. */
  memcpy(back, pt + off, len);
  CHECK_RC(gostx_xts_encrypt(&x, tweak, back, len, back), 0, "in place enc");
  CHECK_BYTES(back, ct + 3 - off, len, "in place ct");
  CHECK_RC(gostx_xts_decrypt(&x, tweak, back, len, back), 0, "in place dec");
  CHECK_BYTES(back, pt + off, len, "in place round trip");
  gostx_xts_clear(&x);
}

static void test_lengths(void) {
  for (size_t len = 16; len <= 100; len++) check_len(len);
  for (int i = 0; i < 40; i++) check_len(16 + t_rand_below(1024 - 16 + 1));
  check_len(1024);
  check_len(1023);
}

/* Unit lengths up to 65536 (whole-block and stolen), misaligned, in place. */
static void check_long_len(size_t len) {
  uint8_t key[64], tweak[16];
  const size_t oi = t_rand_below(16), oo = t_rand_below(16);
  uint8_t *pt = malloc(len + 16), *ct = malloc(len + 16), *ref = malloc(len), *back = malloc(len + 16);
  gostx_xts_key x;
  rand_key(key);
  t_rand_bytes(tweak, 16);
  t_rand_bytes(pt + oi, len);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");
  for (int dec = 0; dec < 2; dec++) {
    ref_xts(key, dec, tweak, pt + oi, ref, len);
    CHECK_RC((dec ? gostx_xts_decrypt : gostx_xts_encrypt)(&x, tweak, pt + oi, len, ct + oo), 0,
             "long enc/dec");
    if (!CHECK_BYTES(ct + oo, ref, len, dec ? "long unit dec vs reference" : "long unit vs reference"))
      fprintf(stderr, "  len %zu offsets %zu %zu\n", len, oi, oo);
    memcpy(back + oo, pt + oi, len);
    CHECK_RC((dec ? gostx_xts_decrypt : gostx_xts_encrypt)(&x, tweak, back + oo, len, back + oo), 0,
             "long in place");
    CHECK_BYTES(back + oo, ref, len, "long unit in place");
  }
  free(pt);
  free(ct);
  free(ref);
  free(back);
  gostx_xts_clear(&x);
}

static void test_long_lengths(void) {
  static const size_t fixed[] = {256, 511, 512, 513, 527, 1040, 2047, 4095, 4096, 4097,
                                 4111, 8192, 16383, 32768, 65535, 65536};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_long_len(fixed[i]);
  for (int i = 0; i < 12; i++) check_long_len(16 + t_rand_below(65536 - 16 + 1));
}

/* A long data unit: many internal runs of blocks, and a stolen tail. */
static void test_long(void) {
  const size_t len = 16 * 1024 + 7;
  uint8_t key[64], tweak[16];
  uint8_t *pt = malloc(len), *ct = malloc(len), *back = malloc(len), *ref = malloc(len);
  gostx_xts_key x;
  rand_key(key);
  t_rand_bytes(tweak, 16);
  t_rand_bytes(pt, len);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, pt, len, ct), 0, "long enc");
  ref_xts(key, 0, tweak, pt, ref, len);
  CHECK_BYTES(ct, ref, len, "long unit vs reference");
  CHECK_RC(gostx_xts_decrypt(&x, tweak, ct, len, back), 0, "long dec");
  CHECK_BYTES(back, pt, len, "long round trip");
  free(pt);
  free(ct);
  free(back);
  free(ref);
  gostx_xts_clear(&x);
}

static void test_sector_and_errors(void) {
  uint8_t key[64], tweak[16] = {0}, buf[64] = {0}, a[64], b[64];
  gostx_xts_key x;
  rand_key(key);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");
  /* plain64: the sector number as a 16-byte little-endian tweak. */
  const uint64_t sector = 0x0123456789abcdefull;
  for (int i = 0; i < 8; i++) tweak[i] = (uint8_t)(sector >> (8 * i));
  t_rand_bytes(buf, sizeof buf);
  CHECK_RC(gostx_xts_encrypt_sector(&x, sector, buf, 50, a), 0, "sector");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, 50, b), 0, "tweak");
  CHECK_BYTES(a, b, 50, "sector = LE tweak");
  CHECK_RC(gostx_xts_decrypt_sector(&x, sector, a, 50, b), 0, "sector dec");
  CHECK_BYTES(b, buf, 50, "sector round trip");

  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, 0, a), GOSTX_ELEN, "len 0");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, 1, a), GOSTX_ELEN, "len 1");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, 15, a), GOSTX_ELEN, "len 15");
  CHECK_RC(gostx_xts_decrypt(&x, tweak, buf, 15, a), GOSTX_ELEN, "dec len 15");
  CHECK_RC(gostx_xts_encrypt_sector(&x, 1, buf, 15, a), GOSTX_ELEN, "sector len 15");
  CHECK_RC(gostx_xts_encrypt(NULL, tweak, buf, 16, a), GOSTX_EINVAL, "NULL key");
  CHECK_RC(gostx_xts_encrypt(&x, NULL, buf, 16, a), GOSTX_EINVAL, "NULL tweak");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, NULL, 16, a), GOSTX_EINVAL, "NULL in");
  CHECK_RC(gostx_xts_encrypt(&x, tweak, buf, 16, NULL), GOSTX_EINVAL, "NULL out");
  gostx_xts_clear(&x);

  memcpy(key + 32, key, 32);
  CHECK_RC(gostx_xts_set_key(&x, key), GOSTX_EINVAL, "key1 == key2");
  CHECK_RC(gostx_xts_set_key(NULL, key), GOSTX_EINVAL, "NULL ctx");
  CHECK_RC(gostx_xts_set_key(&x, NULL), GOSTX_EINVAL, "NULL key bytes");
}

/* ---- the implementations' XTS kernels (gostx_kuz_impl.xts) ----
 * Each row this CPU runs that has one, against the portable core one block
 * at a time with the byte-wise tweak step: count units of nb blocks at a
 * stride (gaps between units must stay untouched), in unit order or
 * permuted (idx), one key or a key per unit (some repeated, adjacent or
 * not), in place or not, misaligned, both directions; t must come back as
 * T_0 * alpha^nb. */
#define KMAX 40
static gostx_kuz_key kpool[4];

static void check_kernel(const struct gostx_kuz_impl *im, size_t nb, size_t count, size_t gap,
                         int permute, int keyed, int inplace, int dec) {
  const size_t stride = 16 * nb + gap, len = stride * count, oi = t_rand_below(16),
               oo = t_rand_below(16);
  uint8_t *src = malloc(len + 16), *got = malloc(len + 16), *want = malloc(len);
  uint8_t *t = malloc(16 * count), *t0 = malloc(16 * count), *twant = malloc(16 * count);
  size_t *idx = malloc(sizeof *idx * count);
  const gostx_kuz_key **keys = malloc(sizeof *keys * count);
  t_rand_bytes(src, len + 16);
  t_rand_bytes(t0, 16 * count);
  for (size_t u = 0; u < count; u++) {
    idx[u] = permute ? count - 1 - u : u;
    /* keyed: runs of equal keys (u / 2) and returns to an earlier key */
    keys[u] = &kpool[keyed ? (u / 2) % 4 : 0];
  }
  if (permute == 2) /* a shuffle rather than a reversal */
    for (size_t u = count; u > 1; u--) {
      size_t v = t_rand_below(u), tmp = idx[u - 1];
      idx[u - 1] = idx[v];
      idx[v] = tmp;
    }
  const uint8_t *in = src + oi;
  uint8_t *out = inplace ? got + oi : got + oo;
  memcpy(got, src, len + 16);
  memcpy(want, inplace ? src + oi : got + oo, len); /* the gaps as they are */
  for (size_t u = 0; u < count; u++) {
    uint8_t tw[16], b[16];
    memcpy(tw, t0 + 16 * u, 16);
    for (size_t j = 0; j < nb; j++) {
      const size_t o = idx[u] * stride + 16 * j;
      for (int i = 0; i < 16; i++) b[i] = in[o + i] ^ tw[i];
      if (dec) gostx__kuz_portable_decrypt(keys[u], b, b, 1);
      else gostx__kuz_portable_encrypt(keys[u], b, b, 1);
      for (int i = 0; i < 16; i++) want[o + i] = b[i] ^ tw[i];
      ref_mul_alpha(tw);
    }
    memcpy(twant + 16 * u, tw, 16);
  }
  memcpy(t, t0, 16 * count);
  im->xts(keys, keyed ? count : 1, t, permute ? idx : NULL, inplace ? got + oi : in, out, stride,
          nb, count, dec);
  int ok = !memcmp(out, want, len) && !memcmp(t, twant, 16 * count);
  CHECK(ok, "%s xts kernel nb %zu count %zu gap %zu perm %d keyed %d inplace %d dec %d", im->name,
        nb, count, gap, permute, keyed, inplace, dec);
  free(src);
  free(got);
  free(want);
  free(t);
  free(t0);
  free(twant);
  free(idx);
  free(keys);
}

static void test_kernels(void) {
  for (int i = 0; i < 4; i++) {
    uint8_t k[32];
    t_rand_bytes(k, sizeof k);
    gostx_kuz_set_key(&kpool[i], k);
  }
  int usable, tested = 0;
  const void *row;
  for (size_t r = 0; (row = gostx__impl_row(GOSTX_ALG_KUZNYECHIK, r, &usable)) != NULL; r++) {
    const struct gostx_kuz_impl *im = row;
    if (!usable || !im->xts) continue;
    tested++;
    /* Block counts around every kernel boundary: 16-block passes and their
     * tails (AVX-512), the narrow/xmm/ymm crossovers at 72, 128 and 256
     * blocks (AVX2), runs that cross units; and a 65536-byte unit. */
    static const size_t nbs[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                 71, 72, 73, 127, 128, 129, 200, 255, 256, 257, 300, 513};
    for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; i++) {
      const size_t nb = nbs[i];
      const size_t count = 1 + t_rand_below(nb > 100 ? 4 : 12);
      const int dec = (int)(i & 1);
      check_kernel(im, nb, count, 0, 0, 0, 0, dec);
      check_kernel(im, nb, count, 0, 0, 0, 1, !dec);
      check_kernel(im, nb, count, 16 * t_rand_below(3) + t_rand_below(16), 0, 0, 0, dec);
      check_kernel(im, nb, count + 1, 0, 1 + (int)(i % 2), 0, 1, dec);
      check_kernel(im, nb, count + 2, t_rand_below(40), 2, 1, 0, !dec);
      check_kernel(im, nb, count + 1, 0, 0, 1, (int)(i % 2), dec);
    }
    check_kernel(im, 4096, 1, 0, 0, 0, 0, 0); /* a 65536-byte unit */
    check_kernel(im, 4096, 2, 0, 0, 1, 1, 1);
    check_kernel(im, 32, KMAX, 0, 0, 1, 0, 0); /* 512-byte sectors, a key each */
    check_kernel(im, 256, 9, 0, 2, 0, 1, 1);   /* 4096-byte sectors, shuffled */
  }
  printf("xts kernels tested: %d\n", tested);
}

/* ---- runs of sectors in one disk call against the reference ----
 * Issue 69: consecutive short sectors share the avx512 row's 64-block
 * groups (a group holding the end of one sector and the start of the next,
 * each block under its own sector's tweak); every sector length 16..4096
 * kind (whole blocks, stolen tails, 64 % nb != 0), 1..9 sectors (crossing
 * group boundaries, padded last groups), numbers wrapping past 2^64 - 1,
 * in place or not, misaligned, with and without the pool. */
static void check_disk_run(gostx_pool *pool, const uint8_t key[64], const gostx_xts_key *x,
                           size_t S, size_t n, uint64_t first, int dec) {
  const size_t len = S * n, oi = t_rand_below(16), oo = t_rand_below(16);
  const size_t unit = S % 512 ? S : GOSTX_XTS_TWEAK_512;
  const int inplace = (int)t_rand_below(2);
  uint8_t *pt = malloc(len + 16), *got = malloc(len + 16), *want = malloc(len);
  t_rand_bytes(pt, len + 16);
  for (size_t i = 0; i < n; i++) {
    uint8_t tweak[16] = {0};
    const uint64_t num = (first + i) * (S / unit); /* plain64, mod 2^64 */
    for (int b = 0; b < 8; b++) tweak[b] = (uint8_t)(num >> (8 * b));
    ref_xts(key, dec, tweak, pt + oi + i * S, want + i * S, S);
  }
  uint8_t *out = inplace ? pt + oi : got + oo;
  int (*fn)(gostx_pool *, const gostx_xts_key *, uint64_t, size_t, size_t, const uint8_t *,
            size_t, uint8_t *) = dec ? gostx_xts_decrypt_disk : gostx_xts_encrypt_disk;
  CHECK_RC(fn(pool, x, first, S, unit, pt + oi, n, out), 0, "disk run");
  CHECK(!memcmp(out, want, len), "disk run S %zu n %zu first %llx dec %d inplace %d pool %d", S,
        n, (unsigned long long)first, dec, inplace, pool != NULL);
  free(pt);
  free(got);
  free(want);
}

static void disk_runs(gostx_pool *pool, const uint8_t key[64], const gostx_xts_key *x) {
  static const size_t sizes[] = {16,  17,  31,  48,  64,  100, 256, 272,  496,  512,
                                 520, 527, 544, 768, 1008, 1024, 1040, 2048, 4095, 4096};
  static const uint64_t firsts[] = {0, 5, UINT64_MAX, UINT64_MAX - 3};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0] + 4; si++) {
    const size_t S = si < sizeof sizes / sizeof sizes[0] ? sizes[si] : 16 + t_rand_below(4081);
    for (size_t n = 1; n <= 9; n++) {
      const uint64_t first = n % 3 ? firsts[t_rand_below(4)] : t_rand();
      check_disk_run(n == 9 ? pool : NULL, key, x, S, n, first, (int)(n & 1));
      if (S <= 1024 || n < 3) check_disk_run(NULL, key, x, S, n, first, !(n & 1));
    }
  }
}

/* ---- tweak conventions: the disk calls against the direct composition ---- */
static void test_disk(void) {
  uint8_t key[64];
  gostx_xts_key x;
  gostx_pool *pool = gostx_pool_new(2);
  rand_key(key);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");
  static const size_t sizes[] = {512, 1024, 4096, 520};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    const size_t S = sizes[si], n = 5 + t_rand_below(40), len = S * n;
    uint8_t *pt = malloc(len), *got = malloc(len), *want = malloc(len), *alt = malloc(len);
    t_rand_bytes(pt, len);
    const uint64_t first = t_rand() >> 24;
    /* 512-byte units (dm-crypt plain64, LUKS) and whole sectors
     * (--iv-large-sectors); 520-byte sectors take only the latter. */
    for (int conv = S % 512 ? 1 : 0; conv < 2; conv++) {
      const size_t unit = conv ? S : GOSTX_XTS_TWEAK_512;
      for (int dec = 0; dec < 2; dec++) {
        for (size_t i = 0; i < n; i++) {
          uint8_t tweak[16] = {0};
          const uint64_t num = (first + i) * (S / unit); /* plain64: LE, 8 zero bytes above */
          for (int b = 0; b < 8; b++) tweak[b] = (uint8_t)(num >> (8 * b));
          ref_xts(key, dec, tweak, pt + i * S, want + i * S, S);
        }
        for (int p = 0; p < 2; p++) {
          int (*fn)(gostx_pool *, const gostx_xts_key *, uint64_t, size_t, size_t,
                    const uint8_t *, size_t, uint8_t *) =
              dec ? gostx_xts_decrypt_disk : gostx_xts_encrypt_disk;
          memset(got, 0, len);
          CHECK_RC(fn(p ? pool : NULL, &x, first, S, unit, pt, n, got), 0, "disk call");
          CHECK(!memcmp(got, want, len), "disk S %zu tweak unit %zu dec %d pool %d", S, unit, dec, p);
          memcpy(got, pt, len);
          CHECK_RC(fn(p ? pool : NULL, &x, first, S, unit, got, n, got), 0, "disk in place");
          CHECK(!memcmp(got, want, len), "disk in place S %zu unit %zu dec %d", S, unit, dec);
        }
        /* The same bytes through the calls that take the numbers: the
         * batch with explicit tweak numbers, and (whole sectors) _mt. */
        uint64_t *nums = malloc(sizeof *nums * n);
        const gostx_xts_key *kp[1] = {&x};
        for (size_t i = 0; i < n; i++) nums[i] = (first + i) * (S / unit);
        CHECK_RC((dec ? sectors_xts_decrypt : sectors_xts_encrypt)(pool, kp, 1, nums, 0, S, pt, n, alt),
                 0, "batch with numbers");
        CHECK(!memcmp(alt, want, len), "batch with tweak numbers = disk S %zu unit %zu", S, unit);
        if (conv) {
          CHECK_RC((dec ? gostx_xts_decrypt_mt : gostx_xts_encrypt_mt)(pool, &x, first, S, pt, len, alt),
                   0, "_mt");
          CHECK(!memcmp(alt, want, len), "_mt = disk with whole-sector tweaks, S %zu", S);
        }
        free(nums);
      }
    }
    if (S == 4096) { /* the two conventions differ for large sectors */
      gostx_xts_encrypt_disk(NULL, &x, first, S, GOSTX_XTS_TWEAK_512, pt, n, got);
      gostx_xts_encrypt_disk(NULL, &x, first, S, S, pt, n, alt);
      CHECK(memcmp(got, alt, len) != 0, "4096-byte sectors: 512-byte units != whole sectors");
    } else if (S == 512) {
      gostx_xts_encrypt_disk(NULL, &x, first, S, GOSTX_XTS_TWEAK_512, pt, n, got);
      gostx_xts_encrypt_disk(NULL, &x, first, S, S, pt, n, alt);
      CHECK(!memcmp(got, alt, len), "512-byte sectors: both conventions agree");
    }
    free(pt);
    free(got);
    free(want);
    free(alt);
  }
  uint8_t b[4096];
  memset(b, 0, sizeof b);
  CHECK_RC(gostx_xts_encrypt_disk(NULL, &x, 0, 4096, 0, b, 1, b), GOSTX_EINVAL, "tweak unit 0");
  CHECK_RC(gostx_xts_encrypt_disk(NULL, &x, 0, 4096, 1000, b, 1, b), GOSTX_EINVAL,
           "tweak unit not dividing the sector");
  CHECK_RC(gostx_xts_encrypt_disk(NULL, &x, 0, 520, 512, b, 1, b), GOSTX_EINVAL,
           "520-byte sectors in 512-byte units");
  CHECK_RC(gostx_xts_encrypt_disk(NULL, &x, 0, 8, 8, b, 1, b), GOSTX_ELEN, "sector 8");
  CHECK_RC(gostx_xts_encrypt_disk(NULL, NULL, 0, 512, 512, b, 1, b), GOSTX_EINVAL, "NULL key");
  CHECK_RC(gostx_xts_decrypt_disk(NULL, &x, 0, 512, 512, NULL, 1, b), GOSTX_EINVAL, "NULL in");
  CHECK_RC(gostx_xts_encrypt_disk(NULL, &x, 0, 512, 512, b, 0, b), GOSTX_OK, "no sectors");
  disk_runs(pool, key, &x);
  gostx_xts_clear(&x);
  gostx_pool_free(pool);
}

/* Issue 30: every XTS many-sector call takes (first_sector, sector size) in
 * that order, before the data. Both are integers, so a call written in
 * another order compiles; this checks each call with values that only one
 * order accepts (sector 3 of 4096-byte sectors: 3 is no sector size). */
static void test_sector_order(void) {
  uint8_t key[64];
  gostx_xts_key x;
  rand_key(key);
  CHECK_RC(gostx_xts_set_key(&x, key), 0, "set_key");
  enum { S = 4096, N = 2 };
  const uint64_t first = 3;
  static uint8_t pt[S * N], want[S * N], want512[S * N], got[S * N];
  t_rand_bytes(pt, sizeof pt);
  for (size_t i = 0; i < N; i++) {
    CHECK_RC(gostx_xts_encrypt_sector(&x, first + i, pt + i * S, S, want + i * S), 0, "sector");
    CHECK_RC(gostx_xts_encrypt_sector(&x, (first + i) * (S / 512), pt + i * S, S,
                                      want512 + i * S), 0, "sector in 512-byte units");
  }
  memset(got, 0, sizeof got);
  CHECK_RC(gostx_xts_encrypt_mt(NULL, &x, first, S, pt, sizeof pt, got), 0, "mt order");
  CHECK(!memcmp(got, want, sizeof got), "gostx_xts_encrypt_mt(first_sector, sector_size)");
  memset(got, 0, sizeof got);
  CHECK_RC(gostx_xts_encrypt_disk(NULL, &x, first, S, GOSTX_XTS_TWEAK_512, pt, N, got), 0,
           "disk order");
  CHECK(!memcmp(got, want512, sizeof got), "gostx_xts_encrypt_disk(first_sector, sector_size)");
  memset(got, 0, sizeof got);
  CHECK_RC(gostx_xts_decrypt_disk(NULL, &x, first, S, S, want, N, got), 0, "disk dec order");
  CHECK(!memcmp(got, pt, sizeof got), "gostx_xts_decrypt_disk(first_sector, sector_size, unit)");
  gostx_xts_clear(&x);
}

static void test_gf_reference(void) {
  /* The reference multiply itself: x^127 * x folds to 0x87, and x * stays a shift. */
  uint8_t a[16] = {0}, r[16], want[16] = {0x87};
  a[15] = 0x80;
  ref_gf_mul_le(r, a, ALPHA);
  CHECK_BYTES(r, want, 16, "x^127 * alpha");
  memset(a, 0, 16);
  a[0] = 0x81;
  memset(want, 0, 16);
  want[0] = 0x02;
  want[1] = 0x01;
  ref_gf_mul_le(r, a, ALPHA);
  CHECK_BYTES(r, want, 16, "0x81 * alpha");
  /* The byte-wise step the references use equals the multiplication. */
  for (int i = 0; i < 64; i++) {
    t_rand_bytes(a, 16);
    if (i < 2) a[15] = (uint8_t)(i ? 0x80 : 0x7f); /* both values of the folded bit */
    ref_gf_mul_le(r, a, ALPHA);
    ref_mul_alpha(a);
    CHECK_BYTES(a, r, 16, "byte-wise alpha step = GF(2^128) product");
  }
}

int main(void) {
  t_rand_init();
  test_gf_reference();
  test_veracrypt();
  test_lengths();
  test_long_lengths();
  test_long();
  test_kernels();
  test_disk();
  test_sector_order();
  test_sector_and_errors();
  return t_done();
}
