/* gostx: LUKS1 headers for Kuznyechik-XTS disks, byte for byte per the LUKS1
 * on-disk format specification (version 1.2.3): cipher-name "kuznyechik",
 * cipher-mode "xts-plain64", hash-spec "streebog512", a 64-byte master key
 * (the two Kuznyechik keys of XTS), PBKDF2-HMAC-Streebog-512, the
 * anti-forensic split into 4000 stripes, 8 key slots; every integer
 * big-endian. Part of the public API; docs/DISK.md shows the layout.
 *
 * The functions work on the disk's "header area" held in memory: its first
 * payload-offset sectors (2 MiB as gostx formats it), which hold the
 * 592-byte header and the key material of the 8 slots. The caller reads it
 * (the first GOSTX_LUKS_PHDR_LEN bytes name its length, see
 * gostx_luks_area_len) and writes it back after format / add / kill. The
 * payload begins right after it; its sector s (512 bytes, counted from the
 * payload's start) is the XTS data unit with tweak s, as dm-crypt opens a
 * LUKS1 disk.
 *
 * Cost bounds, for headers from anywhere: slot and digest iterations are
 * 1..2^24 (GOSTX_LUKS_ITER_MAX), so opening costs at most 8 slots x (2^24
 * PBKDF2 iterations + 2^24 digest iterations) plus 8 x 256000 bytes of XTS
 * and hashing; the header area is at most GOSTX_LUKS_PAYLOAD_MAX sectors. */
#ifndef GOSTX_LUKS_H
#define GOSTX_LUKS_H

#include "xts.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GOSTX_LUKS_MAGIC "LUKS\xba\xbe"
#define GOSTX_LUKS_MAGIC_LEN 6
#define GOSTX_LUKS_VERSION 1
#define GOSTX_LUKS_PHDR_LEN 592  /* the header proper, at byte 0 */
#define GOSTX_LUKS_SECTOR 512    /* LUKS1 counts offsets in 512-byte sectors */
#define GOSTX_LUKS_NAME_LEN 32   /* cipher-name, cipher-mode, hash-spec fields */
#define GOSTX_LUKS_UUID_LEN 40   /* 36 characters, NUL padded */
#define GOSTX_LUKS_DIGEST_LEN 20
#define GOSTX_LUKS_SALT_LEN 32
#define GOSTX_LUKS_SLOTS 8
#define GOSTX_LUKS_KEY_LEN 64    /* key-bytes: GOSTX_XTS_KEY_LEN */
#define GOSTX_LUKS_STRIPES 4000
#define GOSTX_LUKS_KEY_ENABLED 0x00AC71F3u
#define GOSTX_LUKS_KEY_DISABLED 0x0000DEADu
#define GOSTX_LUKS_CIPHER "kuznyechik"
#define GOSTX_LUKS_MODE "xts-plain64"
#define GOSTX_LUKS_HASH "streebog512"

/* Layout gostx writes (cryptsetup's for 64-byte keys): slot i's key
 * material (64 x 4000 bytes = 500 sectors) at sector 8 + 504 i, the payload
 * at sector 4096 (2 MiB). */
#define GOSTX_LUKS_SLOT_SECTORS 500u
#define GOSTX_LUKS_FIRST_SLOT 8u
#define GOSTX_LUKS_SLOT_STRIDE 504u
#define GOSTX_LUKS_PAYLOAD_DEFAULT 4096u
/* Accepted on reading: a payload offset up to 32 MiB (the area read), and
 * on writing at least the end of slot 7's material (4036 sectors). */
#define GOSTX_LUKS_PAYLOAD_MIN 4036u
#define GOSTX_LUKS_PAYLOAD_MAX 65536u

/* PBKDF2 iterations (key slots and mk-digest), on reading and writing.
 * Formatting uses at least GOSTX_LUKS_MK_ITER_MIN for the digest, and
 * calibrates the slots to GOSTX_LUKS_ITER_TIME_MS when given 0. */
#define GOSTX_LUKS_ITER_MIN 1u
#define GOSTX_LUKS_ITER_MAX (1u << 24)
#define GOSTX_LUKS_MK_ITER_MIN 1000u
#define GOSTX_LUKS_ITER_TIME_MS 1000u
#define GOSTX_LUKS_PASS_MAX 1024 /* passphrases: 1..1024 bytes */

typedef struct gostx_luks_slot {
  uint32_t active;     /* GOSTX_LUKS_KEY_ENABLED or GOSTX_LUKS_KEY_DISABLED */
  uint32_t iterations; /* 0 in a disabled slot */
  uint8_t salt[GOSTX_LUKS_SALT_LEN];
  uint32_t key_offset; /* key-material-offset, sectors */
  uint32_t stripes;
} gostx_luks_slot;

/* The decoded header. Strings are NUL-terminated. */
typedef struct gostx_luks_header {
  unsigned version;
  char cipher_name[GOSTX_LUKS_NAME_LEN];
  char cipher_mode[GOSTX_LUKS_NAME_LEN];
  char hash_spec[GOSTX_LUKS_NAME_LEN];
  uint32_t payload_offset; /* sectors */
  uint32_t key_bytes;
  uint8_t mk_digest[GOSTX_LUKS_DIGEST_LEN];
  uint8_t mk_digest_salt[GOSTX_LUKS_SALT_LEN];
  uint32_t mk_digest_iter;
  char uuid[GOSTX_LUKS_UUID_LEN];
  gostx_luks_slot slots[GOSTX_LUKS_SLOTS];
} gostx_luks_header;

/* Writes the 592 header bytes (names and UUID NUL padded).
 * GOSTX_EINVAL when a field fails the checks of gostx_luks_header_parse. */
GOSTX_API int gostx_luks_header_encode(const gostx_luks_header *h,
                                       uint8_t out[GOSTX_LUKS_PHDR_LEN]);
/* Parses and checks every field. GOSTX_EFORMAT with *reason (static text:
 * "not a LUKS disk (bad magic)", "LUKS2 header: only LUKS1 is supported",
 * "unsupported cipher-name ...", "key slot material overlaps the payload",
 * ...) when anything is wrong or unsupported; reason may be NULL. Checked:
 * magic, version 1, the three names (terminated, and the ones above),
 * key-bytes 64, iteration ranges, the slot states, stripes 4000, every
 * slot's material after the header, before the payload and apart from the
 * others, payload offset <= GOSTX_LUKS_PAYLOAD_MAX, a terminated UUID. */
GOSTX_API GOSTX_MUST_CHECK int gostx_luks_header_parse(gostx_luks_header *h, const uint8_t *in,
                                                       size_t len, const char **reason);
/* Bytes of the header area: payload_offset x 512. */
GOSTX_API size_t gostx_luks_area_len(const gostx_luks_header *h);

/* An opened (or just formatted) disk. Wipe with gostx_luks_clear. */
typedef struct gostx_luks {
  gostx_luks_header h;
  uint8_t master_key[GOSTX_LUKS_KEY_LEN];
  int slot; /* the key slot the passphrase opened (0 after format) */
} gostx_luks;

/* New disk: area (area_len bytes, a multiple of 512, PAYLOAD_MIN..
 * PAYLOAD_MAX sectors: the payload offset) is overwritten with the header,
 * slot 0 holding pass and the other slots' material zero. The master key,
 * the salts and the UUID (version 4) are fresh random. iterations: slot 0's
 * PBKDF2 count, 0 = calibrated (gostx_luks_calibrate, ITER_TIME_MS);
 * mk-digest-iter = max(MK_ITER_MIN, iterations / 8). GOSTX_EINVAL for bad
 * arguments, GOSTX_EIO without randomness. */
GOSTX_API int gostx_luks_format(gostx_luks *l, uint8_t *area, size_t area_len,
                                const uint8_t *pass, size_t pass_len, uint32_t iterations);
/* Parses the header at the start of area and tries pass on every enabled
 * slot in order; the master key is the one whose mk-digest matches.
 * GOSTX_EFORMAT (*reason) for a damaged or unsupported header, or when
 * area_len is less than the header area ("the disk is smaller than its LUKS
 * header area"); GOSTX_EAUTH when no slot opens ("no key slot opens with
 * this passphrase", "no key slot is enabled"). */
GOSTX_API GOSTX_MUST_CHECK int gostx_luks_open(gostx_luks *l, const uint8_t *area, size_t area_len,
                              const uint8_t *pass, size_t pass_len, const char **reason);
/* Puts pass into a disabled slot of the disk in area: slot -1 takes the
 * first; *used (may be NULL) says which. l: the disk opened (or formatted)
 * with another passphrase; its master key is checked against area's
 * mk-digest first (GOSTX_EAUTH when it does not match). GOSTX_ESTATE when
 * the slot asked for is enabled or all 8 are. iterations as for format.
 * area is changed only on success. */
GOSTX_API GOSTX_MUST_CHECK int gostx_luks_add_key(const gostx_luks *l, uint8_t *area,
                                                  size_t area_len, const uint8_t *pass,
                                                  size_t pass_len, uint32_t iterations, int slot,
                                                  int *used);
/* Disables slot (0..7) of the disk in area and overwrites its key material
 * with random bytes (in area; on flash storage the old sectors may survive
 * the rewrite). GOSTX_ESTATE when the slot is not enabled. Takes no key:
 * the caller decides who may (the CLI asks for a passphrase). */
GOSTX_API int gostx_luks_kill_slot(uint8_t *area, size_t area_len, int slot);
GOSTX_API void gostx_luks_clear(gostx_luks *l);

/* PBKDF2-HMAC-Streebog-512 iterations that take about ms milliseconds on
 * this machine, clamped to [MK_ITER_MIN, ITER_MAX]. */
GOSTX_API int gostx_luks_calibrate(unsigned ms, uint32_t *iterations);

/* The anti-forensic split (H = Streebog-512): out (key_len x stripes bytes)
 * = stripes - 1 random stripes s_1.., then d XOR key, where d_0 = 0 and
 * d_k = diffuse(d_(k-1) XOR s_k); diffuse cuts its input into 64-byte
 * blocks and replaces block j by H(be32(j) || block j), truncated for a
 * last partial block. Merge undoes it. key_len >= 1, stripes >= 1. */
GOSTX_API int gostx_luks_af_split(const uint8_t *key, size_t key_len, uint32_t stripes,
                                  uint8_t *out);
GOSTX_API int gostx_luks_af_merge(const uint8_t *in, size_t key_len, uint32_t stripes,
                                  uint8_t *key);

/* sizeof of the structs above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_luks(void);
GOSTX_API size_t gostx_sizeof_luks_header(void);

#ifdef __cplusplus
}
#endif
#endif
