/* LUKS1 for Kuznyechik-XTS disks (include/gostx/luks.h, docs/DISK.md): the
 * 592-byte header, the anti-forensic split, key slots encrypted with
 * Kuznyechik-XTS under PBKDF2-HMAC-Streebog-512 of a passphrase, and the
 * master key check (mk-digest). Everything works on the header area in
 * memory; the caller does the I/O. Written from the LUKS1 on-disk format
 * specification. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gostx/bulk.h"
#include "gostx/file.h"
#include "gostx/hash.h"
#include "gostx/kdf.h"
#include "gostx/luks.h"
#include "internal.h"

/* Header field offsets (the specification's table). */
#define OFF_VERSION 6
#define OFF_CIPHER 8
#define OFF_MODE 40
#define OFF_HASH 72
#define OFF_PAYLOAD 104
#define OFF_KEY_BYTES 108
#define OFF_MK_DIGEST 112
#define OFF_MK_SALT 132
#define OFF_MK_ITER 164
#define OFF_UUID 168
#define OFF_SLOTS 208
#define SLOT_LEN 48 /* active, iterations, salt[32], key-material-offset, stripes */

#define MATERIAL_LEN ((size_t)GOSTX_LUKS_KEY_LEN * GOSTX_LUKS_STRIPES) /* 500 sectors */
/* The header occupies bytes 0..591: key material starts at sector 2 or later. */
#define PHDR_SECTORS ((GOSTX_LUKS_PHDR_LEN + GOSTX_LUKS_SECTOR - 1) / GOSTX_LUKS_SECTOR)

static const uint8_t magic[GOSTX_LUKS_MAGIC_LEN] = {'L', 'U', 'K', 'S', 0xba, 0xbe};

/* ---- header ---- */

size_t gostx_luks_area_len(const gostx_luks_header *h) {
  return h ? (size_t)h->payload_offset * GOSTX_LUKS_SECTOR : 0;
}

/* A name field holds exactly want: terminated within the field. */
static int name_is(const char *field, const char *want) {
  return memchr(field, 0, GOSTX_LUKS_NAME_LEN) && strcmp(field, want) == 0;
}

/* The checks shared by encode and parse; NULL when valid. */
static const char *header_invalid(const gostx_luks_header *h) {
  if (h->version == 2) return "LUKS2 header: only LUKS1 is supported";
  if (h->version != GOSTX_LUKS_VERSION) return "unsupported LUKS version (only 1)";
  if (!name_is(h->cipher_name, GOSTX_LUKS_CIPHER))
    return "unsupported cipher-name (only " GOSTX_LUKS_CIPHER ")";
  if (!name_is(h->cipher_mode, GOSTX_LUKS_MODE))
    return "unsupported cipher-mode (only " GOSTX_LUKS_MODE ")";
  if (!name_is(h->hash_spec, GOSTX_LUKS_HASH))
    return "unsupported hash-spec (only " GOSTX_LUKS_HASH ")";
  if (h->key_bytes != GOSTX_LUKS_KEY_LEN) return "key-bytes must be 64 for kuznyechik-xts";
  if (h->mk_digest_iter < GOSTX_LUKS_ITER_MIN || h->mk_digest_iter > GOSTX_LUKS_ITER_MAX)
    return "mk-digest-iter out of range (1 to 2^24)";
  if (!memchr(h->uuid, 0, GOSTX_LUKS_UUID_LEN)) return "UUID field not terminated";
  if (h->payload_offset > GOSTX_LUKS_PAYLOAD_MAX)
    return "payload offset beyond 32 MiB (not supported)";
  for (int i = 0; i < GOSTX_LUKS_SLOTS; i++) {
    const gostx_luks_slot *s = &h->slots[i];
    if (s->active != GOSTX_LUKS_KEY_ENABLED && s->active != GOSTX_LUKS_KEY_DISABLED)
      return "key slot state is neither enabled nor disabled";
    if (s->active == GOSTX_LUKS_KEY_ENABLED &&
        (s->iterations < GOSTX_LUKS_ITER_MIN || s->iterations > GOSTX_LUKS_ITER_MAX))
      return "key slot iterations out of range (1 to 2^24)";
    if (s->stripes != GOSTX_LUKS_STRIPES) return "key slot stripes must be 4000";
    if (s->key_offset < PHDR_SECTORS) return "key slot material overlaps the header";
    if ((uint64_t)s->key_offset + GOSTX_LUKS_SLOT_SECTORS > h->payload_offset)
      return "key slot material overlaps the payload";
    for (int j = 0; j < i; j++) {
      uint32_t o = h->slots[j].key_offset;
      if (s->key_offset < o + GOSTX_LUKS_SLOT_SECTORS &&
          o < s->key_offset + GOSTX_LUKS_SLOT_SECTORS)
        return "key slot materials overlap each other";
    }
  }
  return NULL;
}

int gostx_luks_header_encode(const gostx_luks_header *h, uint8_t out[GOSTX_LUKS_PHDR_LEN]) {
  if (!h || !out || header_invalid(h)) return GOSTX_EINVAL;
  memset(out, 0, GOSTX_LUKS_PHDR_LEN);
  memcpy(out, magic, GOSTX_LUKS_MAGIC_LEN);
  out[OFF_VERSION] = 0;
  out[OFF_VERSION + 1] = (uint8_t)h->version;
  strcpy((char *)out + OFF_CIPHER, h->cipher_name); /* lengths checked above */
  strcpy((char *)out + OFF_MODE, h->cipher_mode);
  strcpy((char *)out + OFF_HASH, h->hash_spec);
  gostx_store32_be(out + OFF_PAYLOAD, h->payload_offset);
  gostx_store32_be(out + OFF_KEY_BYTES, h->key_bytes);
  memcpy(out + OFF_MK_DIGEST, h->mk_digest, GOSTX_LUKS_DIGEST_LEN);
  memcpy(out + OFF_MK_SALT, h->mk_digest_salt, GOSTX_LUKS_SALT_LEN);
  gostx_store32_be(out + OFF_MK_ITER, h->mk_digest_iter);
  strcpy((char *)out + OFF_UUID, h->uuid);
  for (int i = 0; i < GOSTX_LUKS_SLOTS; i++) {
    uint8_t *p = out + OFF_SLOTS + i * SLOT_LEN;
    const gostx_luks_slot *s = &h->slots[i];
    gostx_store32_be(p, s->active);
    gostx_store32_be(p + 4, s->iterations);
    memcpy(p + 8, s->salt, GOSTX_LUKS_SALT_LEN);
    gostx_store32_be(p + 40, s->key_offset);
    gostx_store32_be(p + 44, s->stripes);
  }
  return GOSTX_OK;
}

int gostx_luks_header_parse(gostx_luks_header *h, const uint8_t *in, size_t len,
                            const char **reason) {
  const char *why = NULL;
  if (!h || (!in && len)) return GOSTX_EINVAL;
  memset(h, 0, sizeof *h);
  size_t m = len < GOSTX_LUKS_MAGIC_LEN ? len : GOSTX_LUKS_MAGIC_LEN;
  if (len == 0 || memcmp(in, magic, m) != 0) {
    why = "not a LUKS disk (bad magic)";
  } else if (len < GOSTX_LUKS_PHDR_LEN) {
    why = "truncated: shorter than the 592-byte LUKS header";
  } else {
    h->version = (unsigned)in[OFF_VERSION] << 8 | in[OFF_VERSION + 1];
    memcpy(h->cipher_name, in + OFF_CIPHER, GOSTX_LUKS_NAME_LEN);
    memcpy(h->cipher_mode, in + OFF_MODE, GOSTX_LUKS_NAME_LEN);
    memcpy(h->hash_spec, in + OFF_HASH, GOSTX_LUKS_NAME_LEN);
    h->payload_offset = gostx_load32_be(in + OFF_PAYLOAD);
    h->key_bytes = gostx_load32_be(in + OFF_KEY_BYTES);
    memcpy(h->mk_digest, in + OFF_MK_DIGEST, GOSTX_LUKS_DIGEST_LEN);
    memcpy(h->mk_digest_salt, in + OFF_MK_SALT, GOSTX_LUKS_SALT_LEN);
    h->mk_digest_iter = gostx_load32_be(in + OFF_MK_ITER);
    memcpy(h->uuid, in + OFF_UUID, GOSTX_LUKS_UUID_LEN);
    for (int i = 0; i < GOSTX_LUKS_SLOTS; i++) {
      const uint8_t *p = in + OFF_SLOTS + i * SLOT_LEN;
      gostx_luks_slot *s = &h->slots[i];
      s->active = gostx_load32_be(p);
      s->iterations = gostx_load32_be(p + 4);
      memcpy(s->salt, p + 8, GOSTX_LUKS_SALT_LEN);
      s->key_offset = gostx_load32_be(p + 40);
      s->stripes = gostx_load32_be(p + 44);
    }
    why = header_invalid(h);
  }
  if (reason) *reason = why;
  if (why) {
    memset(h, 0, sizeof *h);
    return GOSTX_EFORMAT;
  }
  return GOSTX_OK;
}

/* ---- anti-forensic split ---- */

/* Block j of buf (64 bytes, or what is left) becomes H(be32(j) || block j). */
static int diffuse(uint8_t *buf, size_t len) {
  gostx_streebog_ctx ctx;
  uint8_t idx[4], h[GOSTX_STREEBOG512_LEN];
  int rc = GOSTX_OK;
  for (size_t j = 0, off = 0; rc == GOSTX_OK && off < len; j++, off += sizeof h) {
    size_t n = len - off < sizeof h ? len - off : sizeof h;
    gostx_store32_be(idx, (uint32_t)j);
    rc = gostx_streebog_init(&ctx, GOSTX_STREEBOG512_LEN);
    if (rc == GOSTX_OK) rc = gostx_streebog_update(&ctx, idx, sizeof idx);
    if (rc == GOSTX_OK) rc = gostx_streebog_update(&ctx, buf + off, n);
    if (rc == GOSTX_OK) rc = gostx_streebog_final(&ctx, h);
    memcpy(buf + off, h, n);
  }
  gostx_streebog_clear(&ctx);
  gostx_memzero(h, sizeof h);
  return rc;
}

static int af_args_ok(const void *a, const void *b, size_t key_len, uint32_t stripes) {
  return a && b && key_len && stripes && key_len <= SIZE_MAX / stripes &&
         (uint64_t)key_len <= (uint64_t)64 * 0xffffffffu; /* block indices: 32 bits */
}

/* d = the running diffused XOR of the first stripes - 1 stripes of in. */
static int af_fold(const uint8_t *in, size_t key_len, uint32_t stripes, uint8_t *d) {
  int rc = GOSTX_OK;
  memset(d, 0, key_len);
  for (uint32_t k = 0; rc == GOSTX_OK && k + 1 < stripes; k++) {
    gostx_xor(d, d, in + (size_t)k * key_len, key_len);
    rc = diffuse(d, key_len);
  }
  return rc;
}

int gostx_luks_af_split(const uint8_t *key, size_t key_len, uint32_t stripes, uint8_t *out) {
  if (!af_args_ok(key, out, key_len, stripes)) return GOSTX_EINVAL;
  uint8_t *d = malloc(key_len);
  if (!d) return GOSTX_ENOMEM;
  uint8_t *last = out + (size_t)(stripes - 1) * key_len;
  int rc = gostx_random_bytes(out, (size_t)(stripes - 1) * key_len);
  if (rc == GOSTX_OK) rc = af_fold(out, key_len, stripes, d);
  if (rc == GOSTX_OK) gostx_xor(last, d, key, key_len);
  gostx_memzero(d, key_len);
  free(d);
  if (rc != GOSTX_OK) gostx_memzero(out, key_len * stripes);
  return rc;
}

int gostx_luks_af_merge(const uint8_t *in, size_t key_len, uint32_t stripes, uint8_t *key) {
  if (!af_args_ok(in, key, key_len, stripes)) return GOSTX_EINVAL;
  uint8_t *d = malloc(key_len);
  if (!d) return GOSTX_ENOMEM;
  int rc = af_fold(in, key_len, stripes, d);
  if (rc == GOSTX_OK) gostx_xor(key, d, in + (size_t)(stripes - 1) * key_len, key_len);
  gostx_memzero(d, key_len);
  free(d);
  return rc;
}

/* ---- keys ---- */

static int pass_ok(const uint8_t *pass, size_t pass_len) {
  return pass && pass_len >= 1 && pass_len <= GOSTX_LUKS_PASS_MAX;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int gostx_luks_calibrate(unsigned ms, uint32_t *iterations) {
  if (!iterations || ms == 0) return GOSTX_EINVAL;
  static const uint8_t pass[8] = "gostx", salt[GOSTX_LUKS_SALT_LEN] = {0};
  uint8_t out[GOSTX_LUKS_KEY_LEN];
  uint32_t n = 1000;
  double t;
  for (;;) { /* double the count until a run takes 50 ms (or the cap) */
    double t0 = now_ms();
    int rc = gostx_pbkdf2_streebog512(pass, sizeof pass, salt, sizeof salt, n, out, sizeof out);
    t = now_ms() - t0;
    if (rc != GOSTX_OK) return rc;
    if (t >= 50 || n >= GOSTX_LUKS_ITER_MAX) break;
    n *= 2;
  }
  double want = (double)n * ms / (t > 0 ? t : 1e-3);
  *iterations = want >= GOSTX_LUKS_ITER_MAX   ? GOSTX_LUKS_ITER_MAX
                : want <= GOSTX_LUKS_MK_ITER_MIN ? GOSTX_LUKS_MK_ITER_MIN
                                                 : (uint32_t)want;
  return GOSTX_OK;
}

/* The slot key: PBKDF2(pass, salt, iterations) -> XTS key. */
static int slot_key(const gostx_luks_slot *s, const uint8_t *pass, size_t pass_len,
                    gostx_xts_key *x) {
  uint8_t k[GOSTX_LUKS_KEY_LEN];
  int rc = gostx_pbkdf2_streebog512(pass, pass_len, s->salt, GOSTX_LUKS_SALT_LEN, s->iterations,
                                    k, sizeof k);
  if (rc == GOSTX_OK) rc = gostx_xts_set_key(x, k);
  gostx_memzero(k, sizeof k);
  return rc;
}

static int mk_digest(const gostx_luks_header *h, const uint8_t *mk,
                     uint8_t out[GOSTX_LUKS_DIGEST_LEN]) {
  return gostx_pbkdf2_streebog512(mk, GOSTX_LUKS_KEY_LEN, h->mk_digest_salt, GOSTX_LUKS_SALT_LEN,
                                  h->mk_digest_iter, out, GOSTX_LUKS_DIGEST_LEN);
}

/* 0 when mk matches h's mk-digest, GOSTX_EAUTH when not. */
static int mk_check(const gostx_luks_header *h, const uint8_t *mk) {
  uint8_t d[GOSTX_LUKS_DIGEST_LEN];
  int rc = mk_digest(h, mk, d);
  if (rc == GOSTX_OK && gostx_memeq_ct(d, h->mk_digest, sizeof d) != 0) rc = GOSTX_EAUTH;
  gostx_memzero(d, sizeof d);
  return rc;
}

/* The key material of a slot: AF split of mk, encrypted into out
 * (MATERIAL_LEN bytes) with tweaks counted from the material's first sector. */
static int slot_seal(const gostx_luks_slot *s, const uint8_t *pass, size_t pass_len,
                     const uint8_t *mk, uint8_t *out) {
  gostx_xts_key x;
  int rc = gostx_luks_af_split(mk, GOSTX_LUKS_KEY_LEN, GOSTX_LUKS_STRIPES, out);
  if (rc == GOSTX_OK) rc = slot_key(s, pass, pass_len, &x);
  if (rc == GOSTX_OK)
    rc = gostx_xts_encrypt_mt(NULL, &x, 0, GOSTX_LUKS_SECTOR, out, MATERIAL_LEN, out);
  gostx_xts_clear(&x);
  return rc;
}

/* Decrypts and merges a slot's material (tmp: MATERIAL_LEN bytes of work space). */
static int slot_unseal(const gostx_luks_slot *s, const uint8_t *area, const uint8_t *pass,
                       size_t pass_len, uint8_t *tmp, uint8_t *mk) {
  gostx_xts_key x;
  int rc = slot_key(s, pass, pass_len, &x);
  if (rc == GOSTX_OK)
    rc = gostx_xts_decrypt_mt(NULL, &x, 0, GOSTX_LUKS_SECTOR,
                              area + (size_t)s->key_offset * GOSTX_LUKS_SECTOR, MATERIAL_LEN, tmp);
  if (rc == GOSTX_OK) rc = gostx_luks_af_merge(tmp, GOSTX_LUKS_KEY_LEN, GOSTX_LUKS_STRIPES, mk);
  gostx_xts_clear(&x);
  gostx_memzero(tmp, MATERIAL_LEN);
  return rc;
}

/* A version 4 UUID: 36 characters and a NUL. */
static int new_uuid(char out[GOSTX_LUKS_UUID_LEN]) {
  static const char hex[] = "0123456789abcdef";
  uint8_t b[16];
  int rc = gostx_random_bytes(b, sizeof b);
  if (rc != GOSTX_OK) return rc;
  b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
  b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* variant 10 */
  memset(out, 0, GOSTX_LUKS_UUID_LEN);
  for (int i = 0, o = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out[o++] = '-';
    out[o++] = hex[b[i] >> 4];
    out[o++] = hex[b[i] & 15];
  }
  return GOSTX_OK;
}

/* The header at the start of area, which must hold the whole header area. */
static int load_area(gostx_luks_header *h, const uint8_t *area, size_t area_len,
                     const char **reason) {
  int rc = gostx_luks_header_parse(h, area, area_len, reason);
  if (rc == GOSTX_OK && area_len < gostx_luks_area_len(h)) {
    if (reason) *reason = "the disk is smaller than its LUKS header area";
    rc = GOSTX_EFORMAT;
  }
  return rc;
}

static uint32_t mk_iterations(uint32_t iterations) {
  uint32_t n = iterations / 8;
  return n < GOSTX_LUKS_MK_ITER_MIN ? GOSTX_LUKS_MK_ITER_MIN : n;
}

/* Fills slot s for pass (random salt, iterations or calibrated) and seals
 * mk into material. */
static int slot_fill(gostx_luks_slot *s, const uint8_t *pass, size_t pass_len, uint32_t iterations,
                     const uint8_t *mk, uint8_t *material) {
  int rc = GOSTX_OK;
  if (iterations == 0) rc = gostx_luks_calibrate(GOSTX_LUKS_ITER_TIME_MS, &iterations);
  if (rc == GOSTX_OK && iterations > GOSTX_LUKS_ITER_MAX) rc = GOSTX_EINVAL;
  if (rc == GOSTX_OK) rc = gostx_random_bytes(s->salt, GOSTX_LUKS_SALT_LEN);
  s->iterations = iterations;
  s->active = GOSTX_LUKS_KEY_ENABLED;
  if (rc == GOSTX_OK) rc = slot_seal(s, pass, pass_len, mk, material);
  return rc;
}

void gostx_luks_clear(gostx_luks *l) {
  if (l) gostx_memzero(l, sizeof *l);
}

int gostx_luks_format(gostx_luks *l, uint8_t *area, size_t area_len, const uint8_t *pass,
                      size_t pass_len, uint32_t iterations) {
  if (!l || !area || !pass_ok(pass, pass_len) || iterations > GOSTX_LUKS_ITER_MAX ||
      area_len % GOSTX_LUKS_SECTOR ||
      area_len < (size_t)GOSTX_LUKS_PAYLOAD_MIN * GOSTX_LUKS_SECTOR ||
      area_len > (size_t)GOSTX_LUKS_PAYLOAD_MAX * GOSTX_LUKS_SECTOR)
    return GOSTX_EINVAL;
  memset(l, 0, sizeof *l);
  gostx_luks_header *h = &l->h;
  h->version = GOSTX_LUKS_VERSION;
  strcpy(h->cipher_name, GOSTX_LUKS_CIPHER);
  strcpy(h->cipher_mode, GOSTX_LUKS_MODE);
  strcpy(h->hash_spec, GOSTX_LUKS_HASH);
  h->payload_offset = (uint32_t)(area_len / GOSTX_LUKS_SECTOR);
  h->key_bytes = GOSTX_LUKS_KEY_LEN;
  for (int i = 0; i < GOSTX_LUKS_SLOTS; i++) {
    h->slots[i].active = GOSTX_LUKS_KEY_DISABLED;
    h->slots[i].key_offset = GOSTX_LUKS_FIRST_SLOT + (uint32_t)i * GOSTX_LUKS_SLOT_STRIDE;
    h->slots[i].stripes = GOSTX_LUKS_STRIPES;
  }
  uint8_t *material = malloc(MATERIAL_LEN);
  if (!material) return GOSTX_ENOMEM;
  gostx_xts_key x;
  int rc;
  do { /* IEEE 1619: the two halves of the XTS key must differ */
    rc = gostx_random_bytes(l->master_key, GOSTX_LUKS_KEY_LEN);
  } while (rc == GOSTX_OK && gostx_xts_set_key(&x, l->master_key) != GOSTX_OK);
  gostx_xts_clear(&x);
  if (rc == GOSTX_OK && iterations == 0)
    rc = gostx_luks_calibrate(GOSTX_LUKS_ITER_TIME_MS, &iterations);
  h->mk_digest_iter = mk_iterations(iterations);
  if (rc == GOSTX_OK) rc = gostx_random_bytes(h->mk_digest_salt, GOSTX_LUKS_SALT_LEN);
  if (rc == GOSTX_OK) rc = mk_digest(h, l->master_key, h->mk_digest);
  if (rc == GOSTX_OK) rc = new_uuid(h->uuid);
  if (rc == GOSTX_OK)
    rc = slot_fill(&h->slots[0], pass, pass_len, iterations, l->master_key, material);
  if (rc == GOSTX_OK) {
    memset(area, 0, area_len);
    rc = gostx_luks_header_encode(h, area);
    memcpy(area + (size_t)h->slots[0].key_offset * GOSTX_LUKS_SECTOR, material, MATERIAL_LEN);
  }
  gostx_memzero(material, MATERIAL_LEN);
  free(material);
  if (rc != GOSTX_OK) gostx_luks_clear(l);
  return rc;
}

int gostx_luks_open(gostx_luks *l, const uint8_t *area, size_t area_len, const uint8_t *pass,
                    size_t pass_len, const char **reason) {
  if (reason) *reason = NULL;
  if (!l || !area || !pass_ok(pass, pass_len)) return GOSTX_EINVAL;
  memset(l, 0, sizeof *l);
  int rc = load_area(&l->h, area, area_len, reason);
  if (rc != GOSTX_OK) return rc;
  uint8_t *tmp = malloc(MATERIAL_LEN);
  if (!tmp) return GOSTX_ENOMEM;
  int enabled = 0;
  rc = GOSTX_EAUTH;
  for (int i = 0; i < GOSTX_LUKS_SLOTS && rc == GOSTX_EAUTH; i++) {
    const gostx_luks_slot *s = &l->h.slots[i];
    if (s->active != GOSTX_LUKS_KEY_ENABLED) continue;
    enabled++;
    int r = slot_unseal(s, area, pass, pass_len, tmp, l->master_key);
    if (r == GOSTX_OK) r = mk_check(&l->h, l->master_key);
    if (r == GOSTX_OK) l->slot = i;
    /* equal XTS key halves from PBKDF2: this slot does not open */
    rc = r == GOSTX_EINVAL ? GOSTX_EAUTH : r;
  }
  free(tmp);
  if (rc == GOSTX_EAUTH && reason)
    *reason = enabled ? "no key slot opens with this passphrase" : "no key slot is enabled";
  if (rc != GOSTX_OK) gostx_luks_clear(l);
  return rc;
}

int gostx_luks_add_key(const gostx_luks *l, uint8_t *area, size_t area_len, const uint8_t *pass,
                       size_t pass_len, uint32_t iterations, int slot, int *used) {
  if (!l || !area || !pass_ok(pass, pass_len) || iterations > GOSTX_LUKS_ITER_MAX || slot < -1 ||
      slot >= GOSTX_LUKS_SLOTS)
    return GOSTX_EINVAL;
  gostx_luks_header h;
  int rc = load_area(&h, area, area_len, NULL);
  if (rc != GOSTX_OK) return rc;
  if (slot < 0)
    for (int i = 0; i < GOSTX_LUKS_SLOTS && slot < 0; i++)
      if (h.slots[i].active == GOSTX_LUKS_KEY_DISABLED) slot = i;
  if (slot < 0 || h.slots[slot].active != GOSTX_LUKS_KEY_DISABLED) return GOSTX_ESTATE;
  rc = mk_check(&h, l->master_key); /* never seal a key that does not open the disk */
  if (rc != GOSTX_OK) return rc;
  uint8_t *material = malloc(MATERIAL_LEN);
  if (!material) return GOSTX_ENOMEM;
  uint8_t phdr[GOSTX_LUKS_PHDR_LEN];
  rc = slot_fill(&h.slots[slot], pass, pass_len, iterations, l->master_key, material);
  if (rc == GOSTX_OK) rc = gostx_luks_header_encode(&h, phdr);
  if (rc == GOSTX_OK) {
    memcpy(area + (size_t)h.slots[slot].key_offset * GOSTX_LUKS_SECTOR, material, MATERIAL_LEN);
    memcpy(area, phdr, sizeof phdr);
    if (used) *used = slot;
  }
  gostx_memzero(material, MATERIAL_LEN);
  free(material);
  return rc;
}

int gostx_luks_kill_slot(uint8_t *area, size_t area_len, int slot) {
  if (!area || slot < 0 || slot >= GOSTX_LUKS_SLOTS) return GOSTX_EINVAL;
  gostx_luks_header h;
  int rc = load_area(&h, area, area_len, NULL);
  if (rc != GOSTX_OK) return rc;
  gostx_luks_slot *s = &h.slots[slot];
  if (s->active != GOSTX_LUKS_KEY_ENABLED) return GOSTX_ESTATE;
  s->active = GOSTX_LUKS_KEY_DISABLED;
  s->iterations = 0;
  memset(s->salt, 0, sizeof s->salt);
  uint8_t phdr[GOSTX_LUKS_PHDR_LEN], *noise = malloc(MATERIAL_LEN);
  if (!noise) return GOSTX_ENOMEM;
  rc = gostx_luks_header_encode(&h, phdr);
  if (rc == GOSTX_OK) rc = gostx_random_bytes(noise, MATERIAL_LEN);
  if (rc == GOSTX_OK) {
    memcpy(area + (size_t)s->key_offset * GOSTX_LUKS_SECTOR, noise, MATERIAL_LEN);
    memcpy(area, phdr, sizeof phdr);
  }
  free(noise);
  return rc;
}
