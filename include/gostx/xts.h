/* gostx: Kuznyechik-XTS (the IEEE 1619 XTS construction over the Kuznyechik
 * block, as VeraCrypt and dm-crypt "kuznyechik-xts-plain64" use it), with
 * ciphertext stealing. Part of the public API.
 *
 * Data units and tweaks. XTS encrypts one data unit (a disk sector) at a
 * time under a 16-byte tweak; the tweak is a number written as a 16-byte
 * little-endian integer ("plain64": the low 8 bytes, then zeros). Which
 * number a sector gets is the disk format's convention, not XTS's:
 *   - dm-crypt plain64 (cryptsetup's default, and LUKS1/LUKS2 always):
 *     the sector's offset in 512-byte units, whatever the sector size. A
 *     4096-byte sector s is ONE data unit with tweak 8 s (not eight
 *     512-byte units).
 *   - dm-crypt plain with --iv-large-sectors (plain mode only): the sector
 *     number itself, s.
 *   - VeraCrypt: the 512-byte unit number (its units are 512 bytes).
 * The calls below take the number as given (gostx_xts_encrypt_sector) or the
 * tweak block itself (gostx_xts_encrypt). include/gostx/bulk.h has the
 * many-sector forms: gostx_xts_encrypt_disk (sector numbers, and which of
 * the two dm-crypt conventions: GOSTX_XTS_TWEAK_512, the default, or the
 * sector size), gostx_batch_streams with GOSTX_BATCH_XTS_* (batch.h: any
 * tweak per sector, one key or a key per sector) and
 * gostx_xts_encrypt_mt (consecutive units numbered first + i, i.e. whole
 * units: what --iv-large-sectors does for sectors larger than 512 bytes).
 *
 * Speed: the full blocks run through the Kuznyechik implementation's XTS
 * kernel (the tweak XORs inside the cipher call, tweaks made many at a time
 * in registers), and the many-sector calls encrypt all the sectors' tweaks
 * in one call, so a long run of sectors goes at 0.9-1x the ECB speed of the
 * same implementation (docs/BULK.md). One call of one 512-byte unit also
 * pays one lone-block encryption of its tweak (latency-bound): prefer the
 * many-sector calls for many sectors. */
#ifndef GOSTX_XTS_H
#define GOSTX_XTS_H

#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GOSTX_XTS_KEY_LEN 64 /* key1 (data) || key2 (tweak) */

typedef struct gostx_xts_key {
  gostx_kuz_key data;  /* K1 */
  gostx_kuz_key tweak; /* K2 */
} gostx_xts_key;

/* Returns GOSTX_EINVAL when the two halves are equal (IEEE 1619 forbids it). */
GOSTX_API int gostx_xts_set_key(gostx_xts_key *x, const uint8_t key[GOSTX_XTS_KEY_LEN]);
GOSTX_API void gostx_xts_clear(gostx_xts_key *x);
/* One data unit. len >= 16 (GOSTX_ELEN otherwise); any length >= 16 via
 * ciphertext stealing (IEEE 1619 section 5.3.2). tweak: 16 bytes as given to
 * E_K2; the tweak chain T_{j+1} = T_j * alpha treats T as a little-endian
 * 128-bit number (IEEE 1619). out may equal in. The full-block results match
 * VeraCrypt's Kuznyechik XTS self-test (tests/test_xts.c). */
GOSTX_API int gostx_xts_encrypt(const gostx_xts_key *x, const uint8_t tweak[16],
                                const uint8_t *in, size_t len, uint8_t *out);
GOSTX_API int gostx_xts_decrypt(const gostx_xts_key *x, const uint8_t tweak[16],
                                const uint8_t *in, size_t len, uint8_t *out);
/* Same with tweak = sector number as a 16-byte little-endian integer
 * (plain64). The number is the tweak number: for dm-crypt plain64 / LUKS
 * with sectors larger than 512 bytes pass the offset in 512-byte units. */
GOSTX_API int gostx_xts_encrypt_sector(const gostx_xts_key *x, uint64_t sector, const uint8_t *in,
                                       size_t len, uint8_t *out);
GOSTX_API int gostx_xts_decrypt_sector(const gostx_xts_key *x, uint64_t sector, const uint8_t *in,
                                       size_t len, uint8_t *out);

/* sizeof of the structs above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_xts_key(void);

#ifdef __cplusplus
}
#endif
#endif
