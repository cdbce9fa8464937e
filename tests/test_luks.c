/* LUKS1 (lib/luks, include/gostx/luks.h): the anti-forensic split against a
 * composition written here from the specification; format and the header
 * bytes checked field by field at the specification's offsets (mk-digest
 * recomputed, slot 0's material decrypted sector by sector and merged here);
 * open with the right and a wrong passphrase; adding keys up to 8 slots and
 * killing them; every kind of damaged header refused with its reason; the
 * area changed only on success. */
#include <stdlib.h>

#include "testutil.h"

#define SECTOR 512
#define AREA_LEN ((size_t)4096 * SECTOR)
#define MATERIAL ((size_t)64 * 4000)
#define ITER 1000u

static const uint8_t pass_a[] = "correct horse", pass_b[] = "battery staple",
                     pass_c[] = "wrong";
#define PA pass_a, sizeof pass_a - 1
#define PB pass_b, sizeof pass_b - 1
#define PC pass_c, sizeof pass_c - 1

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}
static int all_zero(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}

/* The specification's diffuse and merge, spelled out again. */
static void ref_diffuse(uint8_t *buf, size_t len) {
  for (size_t j = 0; j * 64 < len; j++) {
    uint8_t in[4 + 64], h[64];
    size_t n = len - j * 64 < 64 ? len - j * 64 : 64;
    put_be32(in, (uint32_t)j);
    memcpy(in + 4, buf + j * 64, n);
    gostx_streebog(64, in, 4 + n, h);
    memcpy(buf + j * 64, h, n);
  }
}
static void ref_merge(const uint8_t *in, size_t len, uint32_t stripes, uint8_t *key) {
  uint8_t d[256] = {0};
  for (uint32_t k = 0; k + 1 < stripes; k++) {
    for (size_t i = 0; i < len; i++) d[i] ^= in[k * len + i];
    ref_diffuse(d, len);
  }
  for (size_t i = 0; i < len; i++) key[i] = d[i] ^ in[(stripes - 1) * len + i];
}

static void test_af(void) {
  static const size_t lens[] = {1, 16, 63, 64, 65, 100, 128, 200};
  static const uint32_t stripes[] = {1, 2, 3, 17, 4000};
  for (size_t a = 0; a < sizeof lens / sizeof *lens; a++)
    for (size_t b = 0; b < sizeof stripes / sizeof *stripes; b++) {
      size_t len = lens[a], total = len * stripes[b];
      uint8_t key[256], got[256], ref[256], *buf = malloc(total);
      t_rand_bytes(key, len);
      CHECK_RC(gostx_luks_af_split(key, len, stripes[b], buf), 0, "af_split");
      CHECK_RC(gostx_luks_af_merge(buf, len, stripes[b], got), 0, "af_merge");
      CHECK(memcmp(got, key, len) == 0, "merge(split(key)) = key: len %zu, stripes %u", len,
            stripes[b]);
      ref_merge(buf, len, stripes[b], ref);
      CHECK(memcmp(ref, key, len) == 0, "split = the specification's: len %zu, stripes %u", len,
            stripes[b]);
      if (stripes[b] > 1 && len >= 16) { /* any stripe changed changes the key */
        size_t at = t_rand_below(total);
        buf[at] ^= 1;
        gostx_luks_af_merge(buf, len, stripes[b], got);
        CHECK(memcmp(got, key, len) != 0, "a flipped bit at %zu changes the merged key", at);
      }
      free(buf);
    }
  uint8_t k[64], out[64];
  CHECK_RC(gostx_luks_af_split(k, 0, 4, out), GOSTX_EINVAL, "af_split key_len 0");
  CHECK_RC(gostx_luks_af_split(k, 16, 0, out), GOSTX_EINVAL, "af_split 0 stripes");
  CHECK_RC(gostx_luks_af_merge(NULL, 16, 4, out), GOSTX_EINVAL, "af_merge NULL");
}

/* The header as the specification lays it out, checked byte by byte. */
static void check_layout(const uint8_t *area, const gostx_luks *l, const uint8_t *pass,
                         size_t pass_len) {
  CHECK(memcmp(area, "LUKS\xba\xbe", 6) == 0, "magic at 0");
  CHECK(area[6] == 0 && area[7] == 1, "version 1 at 6, big-endian");
  static const struct { size_t off; const char *s; } names[] = {
      {8, "kuznyechik"}, {40, "xts-plain64"}, {72, "streebog512"}};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(names[i].s);
    CHECK(memcmp(area + names[i].off, names[i].s, n) == 0 &&
              all_zero(area + names[i].off + n, 32 - n),
          "%s at %zu, NUL padded to 32", names[i].s, names[i].off);
  }
  CHECK(be32(area + 104) == 4096, "payload-offset 4096 at 104");
  CHECK(be32(area + 108) == 64, "key-bytes 64 at 108");
  uint32_t mk_iter = be32(area + 164);
  CHECK(mk_iter == 1000, "mk-digest-iter at 164: %u", mk_iter);
  uint8_t digest[20];
  gostx_pbkdf2_streebog512(l->master_key, 64, area + 132, 32, mk_iter, digest, 20);
  CHECK_BYTES(area + 112, digest, 20, "mk-digest at 112 = PBKDF2(mk, salt at 132, iter at 164)");
  CHECK(!all_zero(area + 132, 32), "mk-digest-salt at 132 is random");
  const char *u = (const char *)area + 168;
  int uuid_ok = strlen(u) == 36 && all_zero(area + 168 + 36, 4) && u[14] == '4' &&
                strchr("89ab", u[19]) != NULL;
  for (int i = 0; i < 36; i++)
    uuid_ok &= (i == 8 || i == 13 || i == 18 || i == 23)
                   ? u[i] == '-'
                   : strchr("0123456789abcdef", u[i]) != NULL;
  CHECK(uuid_ok, "UUID at 168: version 4, 36 characters, NUL padded to 40: %.40s", u);
  CHECK(strcmp(u, l->h.uuid) == 0, "UUID as returned");
  for (int i = 0; i < 8; i++) {
    const uint8_t *s = area + 208 + 48 * i;
    CHECK(be32(s + 40) == 8 + 504u * (uint32_t)i, "slot %d key-material-offset %u", i,
          be32(s + 40));
    CHECK(be32(s + 44) == 4000, "slot %d stripes 4000", i);
    if (i == 0) {
      CHECK(be32(s) == 0x00AC71F3, "slot 0 enabled");
      CHECK(be32(s + 4) == ITER, "slot 0 iterations");
      CHECK(!all_zero(s + 8, 32), "slot 0 salt random");
    } else {
      CHECK(be32(s) == 0x0000DEAD && be32(s + 4) == 0 && all_zero(s + 8, 32),
            "slot %d disabled, no iterations, zero salt", i);
      CHECK(all_zero(area + (size_t)be32(s + 40) * SECTOR, MATERIAL), "slot %d material zero", i);
    }
  }
  CHECK(all_zero(area + 592, 8 * SECTOR - 592), "zeros from 592 to the first key material");
  /* slot 0: PBKDF2 -> XTS key, one call per sector with tweak = sector
   * number within the material, then the specification's merge */
  const uint8_t *s0 = area + 208;
  uint8_t k[64], mk[64], *m = malloc(MATERIAL);
  gostx_pbkdf2_streebog512(pass, pass_len, s0 + 8, 32, be32(s0 + 4), k, 64);
  gostx_xts_key x;
  CHECK_RC(gostx_xts_set_key(&x, k), 0, "slot key");
  for (uint32_t s = 0; s < 500; s++)
    gostx_xts_decrypt_sector(&x, s, area + (size_t)(8 + s) * SECTOR, SECTOR,
                             m + (size_t)s * SECTOR);
  ref_merge(m, 64, 4000, mk);
  CHECK_BYTES(mk, l->master_key, 64, "slot 0 material = XTS(PBKDF2 key) of the AF split of mk");
  gostx_xts_clear(&x);
  free(m);
}

static void test_format_open(uint8_t *area) {
  gostx_luks l, o;
  const char *why = "unset";
  CHECK_RC(gostx_luks_format(&l, area, AREA_LEN, PA, ITER), 0, "format");
  CHECK(l.slot == 0 && l.h.payload_offset == 4096, "formatted: slot 0, payload 4096");
  check_layout(area, &l, PA);
  gostx_luks_header h;
  uint8_t again[592];
  CHECK_RC(gostx_luks_header_parse(&h, area, AREA_LEN, &why), 0, "parse");
  CHECK(memcmp(&h, &l.h, sizeof h) == 0, "parsed header = formatted header");
  CHECK_RC(gostx_luks_header_encode(&h, again), 0, "encode");
  CHECK_BYTES(again, area, 592, "encode(parse(header)) = header");
  CHECK(gostx_luks_area_len(&h) == AREA_LEN, "area length");

  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PA, &why), 0, "open with the passphrase");
  CHECK(o.slot == 0 && memcmp(o.master_key, l.master_key, 64) == 0, "open: slot 0, master key");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PC, &why), GOSTX_EAUTH, "open, wrong passphrase");
  CHECK(why && strstr(why, "no key slot opens"), "wrong passphrase reason: %s", why ? why : "");
  CHECK(all_zero(o.master_key, 64), "nothing left after a failed open");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, pass_a, sizeof pass_a - 2, &why), GOSTX_EAUTH,
           "open, passphrase one byte short");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN - SECTOR, PA, &why), GOSTX_EFORMAT,
           "open, area shorter than the payload offset");
  CHECK(why && strstr(why, "smaller than its LUKS header area"), "short disk reason: %s",
        why ? why : "");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, pass_a, 0, &why), GOSTX_EINVAL, "empty passphrase");

  /* a changed mk-digest: no slot's key can be confirmed */
  area[112] ^= 1;
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PA, &why), GOSTX_EAUTH, "open, mk-digest changed");
  area[112] ^= 1;
  /* a changed bit in slot 0's material */
  area[8 * SECTOR + 1000] ^= 0x80;
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PA, &why), GOSTX_EAUTH, "open, material changed");
  area[8 * SECTOR + 1000] ^= 0x80;

  /* bad arguments */
  CHECK_RC(gostx_luks_format(&o, area, AREA_LEN - 1, PA, ITER), GOSTX_EINVAL, "format, odd length");
  CHECK_RC(gostx_luks_format(&o, area, 4035 * SECTOR, PA, ITER), GOSTX_EINVAL,
           "format, area too small for 8 slots");
  CHECK_RC(gostx_luks_format(&o, area, AREA_LEN, PA, GOSTX_LUKS_ITER_MAX + 1), GOSTX_EINVAL,
           "format, iterations > 2^24");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PA, &why), 0, "refused formats left the disk");
  gostx_luks_clear(&l);
  gostx_luks_clear(&o);
}

static void test_slots(uint8_t *area) {
  gostx_luks l, o;
  const char *why;
  int used = -1;
  CHECK_RC(gostx_luks_format(&l, area, AREA_LEN, PA, ITER), 0, "format");
  uint8_t mk[64];
  memcpy(mk, l.master_key, 64);
  CHECK_RC(gostx_luks_add_key(&l, area, AREA_LEN, PB, ITER, -1, &used), 0, "add B");
  CHECK(used == 1, "B in slot 1 (got %d)", used);
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PB, &why), 0, "open with B");
  CHECK(o.slot == 1 && memcmp(o.master_key, mk, 64) == 0, "B opens slot 1, same master key");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PA, &why), 0, "A still opens");
  CHECK(o.slot == 0, "A opens slot 0");

  /* refusals leave the area as it was */
  uint8_t *copy = malloc(AREA_LEN);
  memcpy(copy, area, AREA_LEN);
  gostx_luks bad = l;
  bad.master_key[5] ^= 1;
  CHECK_RC(gostx_luks_add_key(&bad, area, AREA_LEN, PC, ITER, -1, &used), GOSTX_EAUTH,
           "add with a master key that does not match");
  CHECK_RC(gostx_luks_add_key(&l, area, AREA_LEN, PC, ITER, 1, &used), GOSTX_ESTATE,
           "add into an enabled slot");
  CHECK_RC(gostx_luks_add_key(&l, area, AREA_LEN, PC, ITER, 8, &used), GOSTX_EINVAL, "slot 8");
  CHECK_RC(gostx_luks_kill_slot(area, AREA_LEN, 5), GOSTX_ESTATE, "kill a disabled slot");
  CHECK_RC(gostx_luks_kill_slot(area, AREA_LEN, -1), GOSTX_EINVAL, "kill slot -1");
  CHECK(memcmp(copy, area, AREA_LEN) == 0, "refused calls changed nothing");
  gostx_luks_clear(&bad);

  /* an explicit slot, then fill the rest */
  CHECK_RC(gostx_luks_add_key(&l, area, AREA_LEN, PC, ITER, 6, &used), 0, "add C into slot 6");
  CHECK(used == 6, "C in slot 6");
  for (int i = 2; i < 8; i++) {
    if (i == 6) continue;
    uint8_t p[8] = "pass-0";
    p[5] = (uint8_t)('0' + i);
    CHECK_RC(gostx_luks_add_key(&l, area, AREA_LEN, p, 6, ITER, -1, &used), 0, "fill slot");
    CHECK(used == i, "filled slot %d (got %d)", i, used);
  }
  CHECK_RC(gostx_luks_add_key(&l, area, AREA_LEN, PC, ITER, -1, &used), GOSTX_ESTATE, "9th key");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, (const uint8_t *)"pass-7", 6, &why), 0, "open 7");
  CHECK(o.slot == 7 && memcmp(o.master_key, mk, 64) == 0, "slot 7, same master key");

  /* kill slot 0: A no longer opens, B does; its material is rewritten */
  memcpy(copy, area + 8 * SECTOR, MATERIAL);
  CHECK_RC(gostx_luks_kill_slot(area, AREA_LEN, 0), 0, "kill slot 0");
  CHECK(memcmp(copy, area + 8 * SECTOR, MATERIAL) != 0, "slot 0 material overwritten");
  CHECK(be32(area + 208) == 0x0000DEAD && be32(area + 212) == 0 && all_zero(area + 216, 32),
        "slot 0 disabled, iterations and salt cleared");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PA, &why), GOSTX_EAUTH, "A after its kill");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PB, &why), 0, "B after A's kill");
  CHECK_RC(gostx_luks_add_key(&o, area, AREA_LEN, PA, ITER, -1, &used), 0, "A again");
  CHECK(used == 0, "A back in slot 0");
  for (int i = 0; i < 8; i++) CHECK_RC(gostx_luks_kill_slot(area, AREA_LEN, i), 0, "kill all");
  CHECK_RC(gostx_luks_open(&o, area, AREA_LEN, PB, &why), GOSTX_EAUTH, "no slot left");
  CHECK(why && strstr(why, "no key slot is enabled"), "reason: %s", why ? why : "");
  free(copy);
  gostx_luks_clear(&l);
  gostx_luks_clear(&o);
}

/* One damage: bytes at off set to val (len bytes), or the header cut. */
struct damage {
  const char *what;
  size_t off;
  const char *bytes; /* NULL: val as a big-endian 32-bit value */
  size_t len;
  uint32_t val;
  const char *reason;
};

static void test_damage(uint8_t *area) {
  gostx_luks l;
  CHECK_RC(gostx_luks_format(&l, area, AREA_LEN, PA, ITER), 0, "format");
#define B(lit) lit, sizeof lit - 1
  static const struct damage d[] = {
      {"magic", 0, B("LUKZ"), 0, "bad magic"},
      {"version 2", 6, B("\0\2"), 0, "LUKS2 header"},
      {"version 0", 6, B("\0\0"), 0, "unsupported LUKS version"},
      {"cipher aes", 8, B("aes\0\0\0\0\0\0\0"), 0, "unsupported cipher-name"},
      {"cipher unterminated", 8, B("kuznyechikkuznyechikkuznyechik!!"), 0,
       "unsupported cipher-name"},
      {"mode cbc-essiv", 40, B("cbc-essiv:sha256"), 0, "unsupported cipher-mode"},
      {"mode xts-plain", 40, B("xts-plain\0\0"), 0, "unsupported cipher-mode"},
      {"hash sha256", 72, B("sha256\0\0\0\0\0"), 0, "unsupported hash-spec"},
      {"payload past 32 MiB", 104, NULL, 0, 65537, "payload offset beyond"},
      {"payload inside slot 7", 104, NULL, 0, 4000, "overlaps the payload"},
      {"key-bytes 32", 108, NULL, 0, 32, "key-bytes must be 64"},
      {"mk-digest-iter 0", 164, NULL, 0, 0, "mk-digest-iter out of range"},
      {"mk-digest-iter 2^24+1", 164, NULL, 0, (1u << 24) + 1, "mk-digest-iter out of range"},
      {"UUID unterminated", 168, B("0123456789012345678901234567890123456789"), 0,
       "UUID field not terminated"},
      {"slot 3 state", 208 + 3 * 48, NULL, 0, 0x12345678, "neither enabled nor disabled"},
      {"slot 0 iterations 0", 208 + 4, NULL, 0, 0, "iterations out of range"},
      {"slot 0 iterations 2^24+1", 208 + 4, NULL, 0, (1u << 24) + 1, "iterations out of range"},
      {"slot 2 stripes 3999", 208 + 2 * 48 + 44, NULL, 0, 3999, "stripes must be 4000"},
      {"slot 0 over the header", 208 + 40, NULL, 0, 1, "overlaps the header"},
      {"slot 7 past the payload", 208 + 7 * 48 + 40, NULL, 0, 3597, "overlaps the payload"},
      {"slot 1 over slot 0", 208 + 48 + 40, NULL, 0, 507, "overlap each other"},
      {"slot 5 over slot 4", 208 + 5 * 48 + 40, NULL, 0, 2024 + 499, "overlap each other"},
  };
  uint8_t *work = malloc(AREA_LEN);
  for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
    memcpy(work, area, AREA_LEN);
    if (d[i].bytes) memcpy(work + d[i].off, d[i].bytes, d[i].len);
    else put_be32(work + d[i].off, d[i].val);
    gostx_luks_header h;
    gostx_luks o;
    const char *why = NULL;
    int rc = gostx_luks_header_parse(&h, work, AREA_LEN, &why);
    CHECK(rc == GOSTX_EFORMAT && why && strstr(why, d[i].reason), "%s: parse rc %d, reason %s",
          d[i].what, rc, why ? why : "(none)");
    why = NULL;
    rc = gostx_luks_open(&o, work, AREA_LEN, PA, &why);
    CHECK(rc == GOSTX_EFORMAT && why && strstr(why, d[i].reason), "%s: open rc %d, reason %s",
          d[i].what, rc, why ? why : "(none)");
    int used;
    CHECK_RC(gostx_luks_add_key(&l, work, AREA_LEN, PB, ITER, -1, &used), GOSTX_EFORMAT, d[i].what);
    CHECK_RC(gostx_luks_kill_slot(work, AREA_LEN, 0), GOSTX_EFORMAT, d[i].what);
  }
  /* too short */
  const char *why = NULL;
  gostx_luks_header h;
  CHECK_RC(gostx_luks_header_parse(&h, area, 591, &why), GOSTX_EFORMAT, "591 bytes");
  CHECK(why && strstr(why, "truncated"), "591 bytes: %s", why ? why : "");
  CHECK_RC(gostx_luks_header_parse(&h, area, 0, &why), GOSTX_EFORMAT, "0 bytes");
  CHECK(why && strstr(why, "bad magic"), "0 bytes: %s", why ? why : "");
  /* encode refuses what parse refuses */
  CHECK_RC(gostx_luks_header_parse(&h, area, AREA_LEN, &why), 0, "parse");
  uint8_t out[592];
  h.key_bytes = 32;
  CHECK_RC(gostx_luks_header_encode(&h, out), GOSTX_EINVAL, "encode key-bytes 32");
  free(work);
  gostx_luks_clear(&l);
}

static void test_calibrate(void) {
  uint32_t n = 0;
  CHECK_RC(gostx_luks_calibrate(20, &n), 0, "calibrate 20 ms");
  CHECK(n >= GOSTX_LUKS_MK_ITER_MIN && n <= GOSTX_LUKS_ITER_MAX, "calibrated: %u", n);
  CHECK_RC(gostx_luks_calibrate(0, &n), GOSTX_EINVAL, "calibrate 0 ms");
}

int main(void) {
  t_rand_init();
  uint8_t *area = malloc(AREA_LEN);
  test_af();
  test_format_open(area);
  test_slots(area);
  test_damage(area);
  test_calibrate();
  free(area);
  return t_done();
}
