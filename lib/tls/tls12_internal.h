/* lib/tls internals: the cryptographic core of GOST TLS 1.2 (RFC 5246 with
 * the RFC 9189 suites), beside TLS 1.3's in tls_internal.h, that the TLS 1.2
 * handshake is built on. Internal (gostx__tls12_ names, hidden in
 * libgostx.so) until the connection API decides its shape.
 *
 *  - the PRF of RFC 5246 section 5 over HMAC-Streebog-256
 *    (PRF_TLS_GOSTR3411_2012_256, RFC 7836), the master secret and the
 *    extended master secret (RFC 7627), the key block (RFC 5246 section 6.3
 *    with RFC 9189's lengths) and Finished's verify_data (32 or 12 bytes);
 *  - the key exchange of RFC 9189 section 4.2.4: the preliminary secret
 *    exported under KEG + KExp15 (CTR_OMAC) or KEG_28147 + KExp28147
 *    (CNT_IMIT), and the DER of the two ClientKeyExchange bodies
 *    (GostKeyTransport, TLSGostKeyTransportBlob) written and read strictly;
 *  - record protection (RFC 9189 section 4.1): MAC-then-encrypt, OMAC and
 *    CTR-ACPKM under TLSTREE record keys (CTR_OMAC), or IMIT and CNT with
 *    CryptoPro key meshing running over the whole connection (CNT_IMIT).
 *
 * Sequence numbers, lengths and suite choices are public; the MAC is
 * compared in constant time and a refused record releases nothing. */
#ifndef GOSTX_TLS12_INTERNAL_H
#define GOSTX_TLS12_INTERNAL_H

#include "internal.h"
#include "tls_internal.h"

#define GOSTX__TLS12_KUZNYECHIK_CTR_OMAC 0xC100
#define GOSTX__TLS12_MAGMA_CTR_OMAC 0xC101
#define GOSTX__TLS12_28147_CNT_IMIT 0xC102

#define GOSTX__TLS12_RANDOM_LEN 32
#define GOSTX__TLS12_MS_LEN 48
#define GOSTX__TLS12_PMS_LEN 32 /* RFC 9189: PS in B_32 */
#define GOSTX__TLS12_MAX_MAC_LEN 16
#define GOSTX__TLS12_MAX_IV_LEN 8
#define GOSTX__TLS12_MAX_VERIFY_LEN 32
/* RFC 5246 section 6.2.3: the plaintext fragment <= 2^14 bytes. */
#define GOSTX__TLS12_MAX_PLAINTEXT 16384u
/* KExp28147's output: IV (8) | CEK_ENC (32) | CEK_MAC (4). */
#define GOSTX__TLS12_KEXP28147_LEN 44

/* One suite: CTR_OMAC (tree = 1: Kuznyechik or Magma, TLSTREE's C1..C3,
 * CTR-ACPKM with section N) or CNT_IMIT (tree = 0: GOST 28147-89 with the
 * S-box id-tc26-gost-28147-param-Z). iv_len is the key block's IV length
 * (n/2, or 8 for CNT_IMIT), mac_len the record MAC (n, or 4), verify_len
 * Finished's (32, or 12); SNMAX per RFC 9189 section 4.3.5. */
typedef struct gostx__tls12_suite {
  uint16_t id;
  const char *name;
  int tree;
  gostx_alg alg;
  size_t block_len, iv_len, mac_len, verify_len, section_len;
  uint64_t c1, c2, c3;
  uint64_t snmax;
} gostx__tls12_suite;

/* NULL for an id that is not one of the three. */
const gostx__tls12_suite *gostx__tls12_suite_by_id(unsigned id);

/* ---- PRF and the key schedule ---- */
/* PRF(secret, label, seed1 | seed2) = P_HMAC-Streebog-256(secret, label |
 * seed1 | seed2), out_len bytes (1..65535; GOSTX_ELEN otherwise). The seed
 * in two parts: the randoms are passed as they stand. */
int gostx__tls12_prf(const uint8_t *secret, size_t secret_len, const char *label,
                     const uint8_t *seed1, size_t seed1_len, const uint8_t *seed2,
                     size_t seed2_len, uint8_t *out, size_t out_len);
/* master_secret = PRF(pms, "master secret", client_random | server_random). */
int gostx__tls12_master_secret(const uint8_t *pms, size_t pms_len,
                               const uint8_t client_random[GOSTX__TLS12_RANDOM_LEN],
                               const uint8_t server_random[GOSTX__TLS12_RANDOM_LEN],
                               uint8_t ms[GOSTX__TLS12_MS_LEN]);
/* RFC 7627: PRF(pms, "extended master secret", session_hash), session_hash
 * the Streebog-256 of the handshake through ClientKeyExchange. */
int gostx__tls12_extended_master_secret(const uint8_t *pms, size_t pms_len,
                                        const uint8_t session_hash[GOSTX__TLS_HASH_LEN],
                                        uint8_t ms[GOSTX__TLS12_MS_LEN]);

/* The connection key material of RFC 5246 section 6.3 in its order; the IVs
 * take suite->iv_len bytes. */
typedef struct gostx__tls12_keys {
  uint8_t client_mac[GOSTX__TLS_KEY_LEN], server_mac[GOSTX__TLS_KEY_LEN];
  uint8_t client_key[GOSTX__TLS_KEY_LEN], server_key[GOSTX__TLS_KEY_LEN];
  uint8_t client_iv[GOSTX__TLS12_MAX_IV_LEN], server_iv[GOSTX__TLS12_MAX_IV_LEN];
} gostx__tls12_keys;
/* key_block = PRF(ms, "key expansion", server_random | client_random). */
int gostx__tls12_key_block(const gostx__tls12_suite *suite, const uint8_t ms[GOSTX__TLS12_MS_LEN],
                           const uint8_t client_random[GOSTX__TLS12_RANDOM_LEN],
                           const uint8_t server_random[GOSTX__TLS12_RANDOM_LEN],
                           gostx__tls12_keys *keys);
/* verify_data = PRF(ms, "client finished" / "server finished", hash),
 * suite->verify_len bytes; hash the Streebog-256 of the handshake messages. */
int gostx__tls12_finished(const gostx__tls12_suite *suite, const uint8_t ms[GOSTX__TLS12_MS_LEN],
                          int server, const uint8_t hash[GOSTX__TLS_HASH_LEN], uint8_t *out);

/* ---- key exchange (RFC 9189 section 4.2.4) ----
 * h = HASH(r_c | r_s). d/q: our private key and the peer's public key on
 * curve (big-endian, as gostx_gost3410_*); the peer's key is checked there
 * (on the curve, order q). The client calls export with d_eph and Q_s, the
 * server import with its key object (d_s, or an external key's callbacks)
 * and Q_eph. */
/* CTR_OMAC: K_EXP_MAC | K_EXP_ENC = KEG(d, Q, h); out = KExp15(pms,
 * K_EXP_MAC, K_EXP_ENC, h[24..24 + n/2)), 32 + n bytes. */
int gostx__tls12_kexp15(const gostx__tls12_suite *suite, gostx_gost3410_curve curve,
                        const uint8_t *d, size_t d_len, const uint8_t *q, size_t q_len,
                        const uint8_t h[GOSTX__TLS_HASH_LEN],
                        const uint8_t pms[GOSTX__TLS12_PMS_LEN], uint8_t *out, size_t *out_len);
/* Inverse; GOSTX_EAUTH (pms untouched) when KImp15's MAC is wrong,
 * GOSTX_ELEN when in_len is not 32 + n. */
int gostx__tls12_kimp15(const gostx__tls12_suite *suite, const gostx_gost3410_key *key,
                        const uint8_t *q, size_t q_len,
                        const uint8_t h[GOSTX__TLS_HASH_LEN], const uint8_t *in, size_t in_len,
                        uint8_t pms[GOSTX__TLS12_PMS_LEN]);
/* CNT_IMIT: K_EXP = KEG_28147(d, Q, h) = CPDivers(h[0..8), VKO_256(d, Q,
 * h[0..8))); out = KExp28147(pms, K_EXP, h[0..8)) = h[0..8) | ECB(pms) |
 * IMIT, 44 bytes (RFC 4357's GOST 28147-89 key wrap, S-box param-Z). */
int gostx__tls12_kexp28147(gostx_gost3410_curve curve, const uint8_t *d, size_t d_len,
                           const uint8_t *q, size_t q_len, const uint8_t h[GOSTX__TLS_HASH_LEN],
                           const uint8_t pms[GOSTX__TLS12_PMS_LEN],
                           uint8_t out[GOSTX__TLS12_KEXP28147_LEN]);
/* Inverse: GOSTX_EAUTH (pms untouched) when the IV is not h[0..8) or the
 * IMIT is wrong. */
int gostx__tls12_kimp28147(const gostx_gost3410_key *key, const uint8_t *q, size_t q_len,
                           const uint8_t h[GOSTX__TLS_HASH_LEN],
                           const uint8_t in[GOSTX__TLS12_KEXP28147_LEN],
                           uint8_t pms[GOSTX__TLS12_PMS_LEN]);

/* ---- ClientKeyExchange bodies (DER) ----
 * CTR_OMAC: GostKeyTransport ::= SEQUENCE { keyExp OCTET STRING,
 *   ephemeralPublicKey SubjectPublicKeyInfo, ukm OCTET STRING OPTIONAL }.
 * CNT_IMIT: TLSGostKeyTransportBlob ::= SEQUENCE { GostR3410-KeyTransport }
 *   = SEQUENCE { SEQUENCE { encryptedKey OCTET STRING (32), macKey OCTET
 *   STRING (4) }, [0] IMPLICIT SEQUENCE { encryptionParamSet OID (param-Z),
 *   [0] IMPLICIT SubjectPublicKeyInfo, ukm OCTET STRING (8) } }.
 * The SubjectPublicKeyInfo is the one gostx_gost3410_key_write writes and
 * key_from_der reads. Readers: strict DER (definite minimal lengths, no
 * trailing bytes, exactly these fields); GOSTX_EFORMAT for anything else,
 * GOSTX_EUNSUP for a well-formed key of an unknown curve or another
 * S-box set, GOSTX_EINVAL for a key that is not a point of its curve
 * (illegal_parameter, not decode_error). RFC 9189 4.2.4: Q_eph must lie on the server key's curve; the
 * readers give the curve the body names, and the caller refuses any other
 * (the import calls then check the point on it). */
#define GOSTX__TLS12_KX_MAX 512
/* key_exp: 32 + n bytes (KExp15's output). like (when not NULL): the
 * server certificate's SubjectPublicKeyInfo, whose encoding (parameter
 * OIDs as they stand) the ephemeral key's copies, its point replaced
 * (peers compare the OIDs); GOSTX_EINVAL when it is not a key of curve. */
int gostx__tls12_gkt_write(const uint8_t *key_exp, size_t key_exp_len, gostx_gost3410_curve curve,
                           const uint8_t *q_eph, size_t q_len, const uint8_t *like,
                           size_t like_len, uint8_t *out, size_t cap, size_t *out_len);
/* *key_exp points into der (*key_exp_len bytes); q_eph receives 2 * len
 * bytes (q_cap >= 128 is enough), *curve the key's curve. A ukm is read and
 * ignored (RFC 9189: "MUST be ignored by the server"). */
int gostx__tls12_gkt_read(const uint8_t *der, size_t der_len, const uint8_t **key_exp,
                          size_t *key_exp_len, gostx_gost3410_curve *curve, uint8_t *q_eph,
                          size_t q_cap, size_t *q_len);
/* kexp: KExp28147's 44 bytes (IV | CEK_ENC | CEK_MAC). */
int gostx__tls12_blob_write(const uint8_t kexp[GOSTX__TLS12_KEXP28147_LEN],
                            gostx_gost3410_curve curve, const uint8_t *q_eph, size_t q_len,
                            const uint8_t *like, size_t like_len, uint8_t *out, size_t cap,
                            size_t *out_len);
int gostx__tls12_blob_read(const uint8_t *der, size_t der_len,
                           uint8_t kexp[GOSTX__TLS12_KEXP28147_LEN], gostx_gost3410_curve *curve,
                           uint8_t *q_eph, size_t q_cap, size_t *q_len);

/* ---- record protection ---- */
/* One direction's record state: the connection keys, the next sequence
 * number; CTR_OMAC: TLSTREE of both keys cached by C3's mask (the record
 * keys change every 64 or 4096 records); CNT_IMIT: the CNT keystream and
 * the IMIT state, each carried from record to record. */
typedef struct gostx__tls12_record {
  const gostx__tls12_suite *suite;
  uint8_t mac_key[GOSTX__TLS_KEY_LEN], key[GOSTX__TLS_KEY_LEN], iv[GOSTX__TLS12_MAX_IV_LEN];
  uint64_t seq;
  int spent; /* the record of sequence number SNMAX was processed */
  int have;  /* CTR_OMAC: enc and mac hold the record keys of masked */
  uint64_t masked;
  gostx_cipher enc, mac;
  gostx_gost89_ctx cnt, imit; /* CNT_IMIT */
} gostx__tls12_record;

/* From one side's keys (mac_key, key, iv: suite->iv_len bytes); sequence
 * number 0. GOSTX_EINVAL for an unknown suite. */
int gostx__tls12_record_init(gostx__tls12_record *r, unsigned suite_id,
                             const uint8_t mac_key[GOSTX__TLS_KEY_LEN],
                             const uint8_t key[GOSTX__TLS_KEY_LEN], const uint8_t *iv);
void gostx__tls12_record_clear(gostx__tls12_record *r);
/* The bytes a sealed record of len bytes takes: 5 + len + mac_len. */
size_t gostx__tls12_sealed_len(const gostx__tls12_record *r, size_t len);
/* Seals one record of type (1..255) and len <= 2^14 bytes (GOSTX_ELEN)
 * into out (cap bytes, GOSTX_EINVAL when short; in may be out + 5): header
 * type 0x03 0x03 length, then ENC(fragment | MAC). Past SNMAX:
 * GOSTX_ESTATE. Advances the sequence number. */
int gostx__tls12_record_seal(gostx__tls12_record *r, uint8_t type, const uint8_t *in, size_t len,
                             uint8_t *out, size_t cap, size_t *out_len);
/* Opens one record rec (rec_len bytes, header included) into out (cap >=
 * rec_len - 5 - mac_len; out may be rec + 5): *type and *out_len content
 * bytes. MAC-then-encrypt decrypts before it can check: a refusal after
 * decrypting wipes what it wrote (zeros), so nothing is released. Refusals,
 * each with the state (the sequence number, CNT_IMIT's streams) unchanged:
 *   GOSTX_EFORMAT  version not 0x03 0x03, the length not rec_len - 5,
 *                  shorter than a MAC, type 0;
 *   GOSTX_ELEN     a fragment over 2^14 bytes (record_overflow);
 *   GOSTX_EAUTH    the MAC does not verify (bad_record_mac);
 *   GOSTX_ESTATE   past SNMAX;  GOSTX_EINVAL  cap too small, NULL. */
int gostx__tls12_record_open(gostx__tls12_record *r, const uint8_t *rec, size_t rec_len,
                             uint8_t *out, size_t cap, size_t *out_len, uint8_t *type);

#endif
