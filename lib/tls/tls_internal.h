/* lib/tls internals: the cryptographic core of GOST TLS 1.3 (RFC 8446 with
 * the RFC 9367 suites) that the handshake is built on. Internal for now
 * (gostx__ names, hidden in libgostx.so): the public include/gostx/tls.h
 * will be the connection API, whose shape the handshake decides; these
 * calls are its parts and stay free to change until then.
 *
 *  - HKDF (RFC 5869) over HMAC-Streebog-256, HKDF-Expand-Label and
 *    Derive-Secret (RFC 8446 section 7.1), the stage secrets, traffic
 *    keys/IVs, finished keys and KeyUpdate's next secret;
 *  - TLSTREE (RFC 9367 section 4.1.2): the record key of each sequence
 *    number from the traffic key, with each suite's C1, C2, C3;
 *  - record protection (RFC 8446 section 5.2, RFC 9367 section 4.1.1):
 *    TLSInnerPlaintext sealed and opened with MGM, the sizes and the
 *    suite's SNMAX enforced, no allocation, secrets wiped.
 *
 * Sequence numbers, lengths and suite choices are public: the branches on
 * them are not secret-dependent. The plaintext's padding is scanned in
 * constant time. */
#ifndef GOSTX_TLS_INTERNAL_H
#define GOSTX_TLS_INTERNAL_H

#include "internal.h"

#define GOSTX__TLS_HASH_LEN 32 /* Streebog-256: every RFC 9367 suite's hash */
#define GOSTX__TLS_KEY_LEN 32
#define GOSTX__TLS_MAX_IV_LEN 16
#define GOSTX__TLS_HDR_LEN 5
/* RFC 8446 section 5.1/5.2: TLSPlaintext.length <= 2^14, TLSInnerPlaintext
 * (content, type, padding) <= 2^14 + 1, TLSCiphertext.length <= 2^14 + 256. */
#define GOSTX__TLS_MAX_PLAINTEXT 16384u
#define GOSTX__TLS_MAX_CIPHERTEXT (16384u + 256u)

/* The cipher suites of RFC 9367 section 4.1 (and their IANA values). */
#define GOSTX__TLS_KUZNYECHIK_MGM_L 0xC103
#define GOSTX__TLS_MAGMA_MGM_L 0xC104
#define GOSTX__TLS_KUZNYECHIK_MGM_S 0xC105
#define GOSTX__TLS_MAGMA_MGM_S 0xC106

/* One suite: its cipher, n/8 (the IV, nonce and tag length: MGM with the
 * full-block tag), TLSTREE's constants and SNMAX, the largest sequence
 * number one traffic key may protect (RFC 9367 sections 4.1.2 and 4.1.3). */
typedef struct gostx__tls_suite {
  uint16_t id;
  const char *name;
  gostx_alg alg;
  size_t iv_len, tag_len;
  uint64_t c1, c2, c3;
  uint64_t snmax;
} gostx__tls_suite;

/* NULL for an id that is not one of the four. */
const gostx__tls_suite *gostx__tls_suite_by_id(unsigned id);

/* ---- HKDF over HMAC-Streebog-256 ---- */
/* PRK = HMAC(salt, ikm); a NULL salt is 32 zero bytes (RFC 5869 2.2). */
int gostx__tls_hkdf_extract(const uint8_t *salt, size_t salt_len, const uint8_t *ikm,
                            size_t ikm_len, uint8_t prk[GOSTX__TLS_HASH_LEN]);
/* out_len 1..255*32 (GOSTX_ELEN otherwise). */
int gostx__tls_hkdf_expand(const uint8_t *prk, size_t prk_len, const uint8_t *info,
                           size_t info_len, uint8_t *out, size_t out_len);
/* HKDF-Expand(secret, HkdfLabel(out_len, "tls13 " | label, context), out_len):
 * label 1..249 bytes, context 0..255 (GOSTX_ELEN otherwise). */
int gostx__tls_expand_label(const uint8_t secret[GOSTX__TLS_HASH_LEN], const char *label,
                            const uint8_t *context, size_t context_len, uint8_t *out,
                            size_t out_len);
/* Derive-Secret(secret, label, messages), given Transcript-Hash(messages):
 * the handshake keeps the running Streebog-256 of its transcript. */
int gostx__tls_derive_secret(const uint8_t secret[GOSTX__TLS_HASH_LEN], const char *label,
                             const uint8_t hash[GOSTX__TLS_HASH_LEN],
                             uint8_t out[GOSTX__TLS_HASH_LEN]);

/* ---- the key schedule (RFC 8446 section 7.1) ---- */
/* The labels of Derive-Secret and HKDF-Expand-Label, once. */
#define GOSTX__TLS_LABEL_EXT_BINDER "ext binder"
#define GOSTX__TLS_LABEL_RES_BINDER "res binder"
#define GOSTX__TLS_LABEL_C_E_TRAFFIC "c e traffic"
#define GOSTX__TLS_LABEL_E_EXP_MASTER "e exp master"
#define GOSTX__TLS_LABEL_C_HS_TRAFFIC "c hs traffic"
#define GOSTX__TLS_LABEL_S_HS_TRAFFIC "s hs traffic"
#define GOSTX__TLS_LABEL_C_AP_TRAFFIC "c ap traffic"
#define GOSTX__TLS_LABEL_S_AP_TRAFFIC "s ap traffic"
#define GOSTX__TLS_LABEL_EXP_MASTER "exp master"
#define GOSTX__TLS_LABEL_RES_MASTER "res master"

/* The next stage secret: HKDF-Extract(Derive-Secret(prev, "derived", ""), ikm).
 * prev NULL: the early secret (salt 0). ikm NULL: 32 zero bytes (no PSK, or
 * the master secret's input). So early = (NULL, psk), handshake = (early,
 * shared secret), master = (handshake, NULL). */
int gostx__tls_next_secret(const uint8_t *prev, const uint8_t *ikm, size_t ikm_len,
                           uint8_t out[GOSTX__TLS_HASH_LEN]);
/* [sender]_write_key (32 bytes) and _iv (suite->iv_len bytes) of a traffic secret. */
int gostx__tls_traffic_keys(const gostx__tls_suite *suite,
                            const uint8_t secret[GOSTX__TLS_HASH_LEN],
                            uint8_t key[GOSTX__TLS_KEY_LEN], uint8_t *iv);
/* finished_key = HKDF-Expand-Label(secret, "finished", "", 32). */
int gostx__tls_finished_key(const uint8_t secret[GOSTX__TLS_HASH_LEN],
                            uint8_t out[GOSTX__TLS_HASH_LEN]);
/* verify_data = HMAC(finished_key, Transcript-Hash). */
int gostx__tls_finished_mac(const uint8_t finished_key[GOSTX__TLS_HASH_LEN],
                            const uint8_t hash[GOSTX__TLS_HASH_LEN],
                            uint8_t out[GOSTX__TLS_HASH_LEN]);
/* KeyUpdate: secret_N+1 = HKDF-Expand-Label(secret_N, "traffic upd", "", 32). */
int gostx__tls_update_secret(const uint8_t secret[GOSTX__TLS_HASH_LEN],
                             uint8_t out[GOSTX__TLS_HASH_LEN]);

/* ---- TLSTREE ---- */
/* TLSTREE(root, seq) = KDF_3(KDF_2(KDF_1(root, STR_8(seq & c1)), STR_8(seq & c2)),
 * STR_8(seq & c3)), KDF_j = KDF_256 with label "levelj". level1/level2 (may
 * be NULL) receive the intermediate keys. */
int gostx__tls_tree(const uint8_t root[GOSTX__TLS_KEY_LEN], uint64_t seq, uint64_t c1,
                    uint64_t c2, uint64_t c3, uint8_t *level1, uint8_t *level2,
                    uint8_t out[GOSTX__TLS_KEY_LEN]);
/* One level: KDF_256(key, "level" | level, STR_8(masked)), level 1..3. */
int gostx__tls_tree_level(const uint8_t key[GOSTX__TLS_KEY_LEN], int level, uint64_t masked,
                          uint8_t out[GOSTX__TLS_KEY_LEN]);

/* The same from keyed, HMAC-Streebog-256 already keyed with the parent key
 * (gostx_hmac_init): two compressions of eight fewer, for the level that
 * changes every record or every few (the _S suites' level 3). */
int gostx__tls_tree_level_keyed(const gostx_hmac_ctx *keyed, int level, uint64_t masked,
                                uint8_t out[GOSTX__TLS_KEY_LEN]);

/* ---- record protection ---- */
/* One direction of one traffic secret: the write key (TLSTREE's root), the
 * write IV, the next sequence number, and TLSTREE's levels cached by their
 * masked sequence numbers (each level is derived again only when its mask
 * moves: every record for MAGMA_MGM_S, every 8192 for KUZNYECHIK_MGM_L;
 * level 3 starts from HMAC already keyed with level 2's key).
 * Wipe with gostx__tls_record_clear. */
typedef struct gostx__tls_record {
  const gostx__tls_suite *suite;
  uint8_t key[GOSTX__TLS_KEY_LEN], iv[GOSTX__TLS_MAX_IV_LEN];
  uint64_t seq;
  int spent; /* the record of sequence number SNMAX was processed */
  int have;  /* levels held: 0 none, 1 level 1, 2 levels 1-2, 3 all and c */
  uint64_t masked[3]; /* seq & C1, C2, C3 of the levels held */
  uint8_t level[2][GOSTX__TLS_KEY_LEN];
  gostx_hmac_ctx level3; /* HMAC keyed with level 2's key: KDF_3's start */
  gostx_cipher c; /* the record cipher: level 3's key */
} gostx__tls_record;

/* From a traffic secret; sequence number 0. GOSTX_EINVAL for an unknown suite. */
int gostx__tls_record_init(gostx__tls_record *r, unsigned suite_id,
                           const uint8_t secret[GOSTX__TLS_HASH_LEN]);
void gostx__tls_record_clear(gostx__tls_record *r);
/* The bytes a sealed record of len content bytes and pad zero bytes takes. */
size_t gostx__tls_sealed_len(const gostx__tls_record *r, size_t len, size_t pad);

/* Seals TLSInnerPlaintext {in, type, pad zeros} as one TLSCiphertext
 * (header 0x17 0x03 0x03 length, then MGM ciphertext and tag) into out
 * (cap bytes; in may be out + 5). type 1..255; len + pad <= 2^14
 * (GOSTX_ELEN); cap too small: GOSTX_EINVAL; past SNMAX: GOSTX_ESTATE (a
 * KeyUpdate is due). Advances the sequence number. */
int gostx__tls_record_seal(gostx__tls_record *r, uint8_t type, const uint8_t *in, size_t len,
                           size_t pad, uint8_t *out, size_t cap, size_t *out_len);
/* Opens one TLSCiphertext rec (rec_len bytes, header included) into out
 * (cap >= rec_len - 5 - tag; out may be rec + 5): *type and the content
 * (*out_len bytes, padding removed). Refusals, each with nothing released
 * and the sequence number unchanged:
 *   GOSTX_EFORMAT  header not 0x17 0x03 0x03 or its length not rec_len - 5,
 *                  shorter than a tag and a type (decode_error), or no
 *                  non-zero type byte (unexpected_message);
 *   GOSTX_ELEN     TLSInnerPlaintext over 2^14 + 1 (record_overflow; so
 *                  also every record over RFC 8446's 2^14 + 256);
 *   GOSTX_EAUTH    the tag does not verify (bad_record_mac);
 *   GOSTX_ESTATE   past SNMAX;  GOSTX_EINVAL  cap too small, NULL. */
int gostx__tls_record_open(gostx__tls_record *r, const uint8_t *rec, size_t rec_len,
                           uint8_t *out, size_t cap, size_t *out_len, uint8_t *type);

#endif
