/* The operations of the gostx_cipher handle beyond block calls (lib/cipher.c):
 * what the modes and the batch engines use instead of the implementations'
 * tables. Not installed. */
#ifndef GOSTX_CIPHER_OPS_H
#define GOSTX_CIPHER_OPS_H

#include "internal.h"

/* Counter-mode keystream for either cipher (lib/cipher.c): out = in xor
 * E(ctr), E(ctr + 1), ... over nblocks blocks (in NULL: the keystream
 * itself; in == out allowed), ctr stepped as inc says and left at the next
 * value. The implementation's ctr kernel where it has one. */
void gostx__cipher_ctr(const gostx_cipher *c, uint8_t *ctr, unsigned inc, const uint8_t *in,
                       uint8_t *out, size_t nblocks);
/* One run of counter blocks for gostx__cipher_ctr_runs: struct
 * gostx__ctr_run (lib/internal.h, which the kernels' ctr_runs entries take). */
/* The keystreams of nruns runs back to back into out (the sum of their
 * counts, in blocks): one cipher call over them all, so that a message's
 * few short runs (MGM's H values and gamma) fill the vector kernels' wide
 * groups together; per run where the implementation has a ctr kernel. */
void gostx__cipher_ctr_runs(const gostx_cipher *c, const struct gostx__ctr_run *runs,
                            size_t nruns, uint8_t *out);
/* CTR-ACPKM over up to nsec whole sections of sec_blocks blocks (full
 * counter increment, in not NULL), the first under c's key, c re-keyed to
 * ACPKM(key) between sections: what the implementation's section kernel did
 * (0: it has none, or sec_blocks does not suit it; the caller goes on
 * generically). c is left with the last section's key. */
size_t gostx__cipher_ctr_acpkm(gostx_cipher *c, uint8_t *ctr, size_t sec_blocks, const uint8_t *in,
                               uint8_t *out, size_t nsec);

/* The operations of the cipher handle beyond block calls (lib/cipher.c):
 * what the modes use instead of the implementations' tables. */
/* nblocks blocks of a mode where each block needs the previous result, s
 * (one block) carried through: CBC s = E(s ^ in_i), out_i = s; CFB
 * s = in_i ^ E(s), out_i = s (CFB encryption, full blocks); MAC
 * s = E(s ^ in_i), out unused; OFB s = E(s), out_i = in_i ^ s. in == out
 * allowed. Magma's chain kernel where the cipher is Magma or GOST 28147-89. */
void gostx__cipher_chain(const gostx_cipher *c, int op, uint8_t *s, const uint8_t *in,
                         uint8_t *out, size_t nblocks);
/* The same on a bare Magma / GOST 28147-89 key (the 1989 modes). */
void gostx__magma_key_chain(const gostx_magma_key *k, int op, uint8_t s[8], const uint8_t *in,
                            uint8_t *out, size_t n);
/* s = the 16-round GOST 28147-89 core of s (IMIT), in the key's byte order. */
void gostx__gost89_imit16(const gostx_gost89_key *k, uint8_t s[8]);
/* Replace c's key by key, keeping its kind (Kuznyechik, Magma, or GOST
 * 28147-89 with its S-box set): ACPKM's re-keying. */
int gostx__cipher_rekey(gostx_cipher *c, const uint8_t key[GOSTX_KEY_LEN]);
/* XTS step 2 (lib/cipher.c): the first nb full blocks of each unit (stride
 * bytes apart) under keys[0] (nkeys 1) or keys[k] (nkeys = count), from the
 * T_0 in t (count * 16 bytes), left at T_nb: the implementation's xts entry,
 * or the generic loop. */
void gostx__xts_full(const gostx_kuz_key *const *keys, size_t nkeys, int decrypt, uint8_t *t,
                     const size_t *idx, const uint8_t *in, uint8_t *out, size_t stride, size_t nb,
                     size_t count);
/* The full blocks per unit from which the implementation's XTS kernel takes
 * a unit in one call at full speed (0: it has no XTS kernel): lib/bulk's
 * sector engine gives such sectors a call each. */
size_t gostx__xts_unit(void);
/* MGM messages (AAD + data bytes) of c's cipher from which one gostx_mgm_*
 * call beats the stream batch's multi-key lanes (0: never). */
size_t gostx__cipher_mgm_solo_min(const gostx_cipher *c);

#endif
