/* gostx: ESP packets (RFC 4303) with the four RFC 9227 transforms:
 * ENCR_KUZNYECHIK_MGM_KTREE (32) and ENCR_MAGMA_MGM_KTREE (33), MGM
 * encrypting and authenticating, and ENCR_KUZNYECHIK_MGM_MAC_KTREE (34) and
 * ENCR_MAGMA_MGM_MAC_KTREE (35), integrity only: the body goes in clear and
 * MGM authenticates it. A key per packet group is taken from the SA key
 * through the ESP key tree; 64-bit extended sequence numbers and an
 * anti-replay window. Part of the public API.
 *
 * Packet (after the outer IP/UDP headers):
 *   SPI (4) | SN, low 32 bits of the ESN (4) | IV (8) | body | ICV
 * body = payload | padding 1, 2, 3, ... | pad length | next header, padded
 * to a multiple of 4 bytes (RFC 4303 2.4), MGM ciphertext for 32 and 33,
 * as it stands for 34 and 35.
 * IV = i1 (1) | i2 (2) | i3 (2) | pnum (3) (RFC 9227 4.2). gostx_esp_seal
 * puts ESN - 1 there: i1 = i2 = i3 = pnum = 0 for the SA's first packet
 * (sequence number 1), as RFC 9227 4.8 and its Appendix A's first examples
 * have it, pnum counting up and the message key changing every 2^24
 * packets; gostx_esp_seal_iv takes any IV (RFC 9227 leaves the sender's
 * choice open). Message key = ESPTREE(K, i1, i2, i3) = KDF_256 three times
 * with labels "level1" (seed 0x00 | i1), "level2" (seed i2), "level3"
 * (seed i3). MGM nonce = 0x00 | pnum | salt (16 bytes Kuznyechik: 12-byte
 * salt; 8 bytes Magma: 4-byte salt). A receiver takes the message key and
 * pnum from the IV, as RFC 9227 4.8 has it, whatever the sender put there;
 * the SN only for replay and the AAD.
 * AAD (RFC 9227 4.7.1): 32 and 33: SPI | ESN (64 bits, big-endian: high
 * half first), or SPI | SN on an SA without ESN (gostx_esp_sa_set_esn); 34
 * and 35: the same followed by IV | body, with nothing encrypted (as RFC
 * 4543 does for GMAC). ICV = the MGM tag's leftmost 12 bytes (Kuznyechik,
 * 96 bits), the whole 8-byte tag (Magma). RFC 9227 Appendix A's eight
 * examples (two of each transform, without ESN) are replayed byte for byte
 * by tests/test_esp.c.
 *
 * Three objects, so that threads can share what must be shared:
 *   gostx_esp_sa        the keys (SA key, salt, SPI): read-only after init;
 *   gostx_esp_keycache  the last message key derived: one per thread;
 *   gostx_esp_replay    the inbound window: one per inbound SA, callers lock
 *                       it when threads share it.
 * The outbound sequence number is the caller's (one atomic counter), so
 * sealing threads need no lock; gostx_esp_seal refuses 0 and numbers past
 * the SA's limit. */
#ifndef GOSTX_ESP_H
#define GOSTX_ESP_H

#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gostx_esp_transform {
  GOSTX_ESP_KUZNYECHIK_MGM_KTREE = 32, /* IKEv2 transform id, RFC 9227 */
  GOSTX_ESP_MAGMA_MGM_KTREE = 33,
  GOSTX_ESP_KUZNYECHIK_MGM_MAC_KTREE = 34, /* integrity only: no confidentiality */
  GOSTX_ESP_MAGMA_MGM_MAC_KTREE = 35,
} gostx_esp_transform;

#define GOSTX_ESP_KEY_LEN 32   /* the SA key K (the key tree's root) */
#define GOSTX_ESP_SALT_MAX 12  /* 12 bytes Kuznyechik (32, 34), 4 bytes Magma (33, 35) */
#define GOSTX_ESP_HDR_LEN 16   /* SPI, SN, IV */
#define GOSTX_ESP_ICV_MAX 12
/* Bytes a packet grows by, at most: header + IV, 3 padding bytes, pad
 * length, next header, ICV. */
#define GOSTX_ESP_OVERHEAD_MAX (GOSTX_ESP_HDR_LEN + 3 + 2 + GOSTX_ESP_ICV_MAX)
/* The anti-replay window, in packets (a bitmap of this many bits). */
#define GOSTX_ESP_WINDOW 2048
/* Next header 59 ("no next header"): a dummy packet (RFC 4303 2.6). */
#define GOSTX_ESP_NH_NONE 59

typedef struct gostx_esp_sa {
  gostx_esp_transform transform;
  gostx_alg alg;   /* GOSTX_ALG_KUZNYECHIK (32, 34) or GOSTX_ALG_MAGMA (33, 35) */
  uint32_t spi;
  size_t salt_len, icv_len;
  uint64_t limit;  /* the highest sequence number this SA protects */
  uint8_t key[GOSTX_ESP_KEY_LEN];
  uint8_t salt[GOSTX_ESP_SALT_MAX];
  int esn;         /* 1 (default): 64-bit extended sequence numbers */
} gostx_esp_sa;

typedef struct gostx_esp_keycache {
  int valid;
  uint64_t index; /* i1 | i2 | i3 of c (IV >> 24) */
  gostx_cipher c;
} gostx_esp_keycache;

typedef struct gostx_esp_replay {
  uint64_t top; /* highest sequence number accepted; 0: none yet */
  uint64_t bits[GOSTX_ESP_WINDOW / 64]; /* bit (seq mod WINDOW): seen */
} gostx_esp_replay;

/* keymat = K (32 bytes) | salt (12 bytes Kuznyechik, 4 Magma): the KEYMAT
 * of RFC 9227; keymat_len must be 32 + salt length (GOSTX_ELEN otherwise).
 * spi: 256 and up (0..255 are reserved, RFC 4303; GOSTX_EINVAL). The limit
 * starts at the most the key tree allows, 2^64 - 1. */
GOSTX_API int gostx_esp_sa_init(gostx_esp_sa *sa, gostx_esp_transform transform, uint32_t spi,
                                const uint8_t *keymat, size_t keymat_len);
/* Lowers the SA's limit (tests, or a policy: rekey sooner). 0 < limit. */
GOSTX_API int gostx_esp_sa_set_limit(gostx_esp_sa *sa, uint64_t limit);
/* Extended sequence numbers on (1, the default) or off (0): off, the SA's
 * sequence numbers are the 32 bits the packet carries (the limit drops to
 * 2^32 - 1 when higher) and the AAD is SPI | SN, 8 bytes (RFC 4303 2.2,
 * RFC 4106 5). Both ends must agree (IKEv2 would negotiate it). */
GOSTX_API int gostx_esp_sa_set_esn(gostx_esp_sa *sa, int on);
/* The salt length (12 or 4) and ICV length (12 or 8) of a transform; 0 for
 * an unknown one. */
GOSTX_API size_t gostx_esp_salt_len(gostx_esp_transform transform);
GOSTX_API size_t gostx_esp_icv_len(gostx_esp_transform transform);
/* The ESP packet length for a payload of len bytes. */
GOSTX_API size_t gostx_esp_sealed_len(const gostx_esp_sa *sa, size_t len);
/* The message key ESPTREE(K, i1, i2, i3) for index = i1 << 32 | i2 << 16 | i3. */
GOSTX_API int gostx_esp_tree_key(const gostx_esp_sa *sa, uint64_t index, uint8_t out[32]);

/* Seals payload (len bytes, 1..65535) as the packet with sequence number
 * seq and IV seq - 1 into out (cap bytes, at least gostx_esp_sealed_len).
 * payload may lie anywhere in out (the tunnel reads it at out +
 * GOSTX_ESP_HDR_LEN). GOSTX_ESTATE: seq is 0 or past the SA's limit (the SA
 * is used up: rekey); GOSTX_ELEN: cap too small or len out of range. */
GOSTX_API int gostx_esp_seal(const gostx_esp_sa *sa, gostx_esp_keycache *cache, uint64_t seq,
                             uint8_t next_header, const uint8_t *payload, size_t len, uint8_t *out,
                             size_t cap, size_t *out_len);
/* One packet's parts, for gostx_esp_seal_iv, gostx_esp_open and the
 * bursts (an array of them). */
typedef struct gostx_esp_packet {
  const uint8_t *in;   /* seal: the payload; open: the packet */
  size_t len;
  uint8_t *out;        /* seal: the packet; open: the payload */
  size_t cap;
  uint8_t next_header; /* seal: read; open: written */
  size_t out_len;      /* written */
  uint64_t seq;        /* written: seal the seq given (a burst seq_first + i), open the ESN */
  int status;          /* written: what the call returns */
} gostx_esp_packet;
/* gostx_esp_seal with the IV given, of p->in (p->len bytes, next header
 * p->next_header) into p->out (p->cap bytes): iv = i1 << 56 | i2 << 40 |
 * i3 << 24 | pnum, for a sender that manages the key tree itself (RFC 9227
 * 4.8 leaves when to move to the next key to it). An IV must never be used
 * twice under one SA (with gostx_esp_seal's IVs neither): that is the
 * caller's to keep. */
GOSTX_API int gostx_esp_seal_iv(const gostx_esp_sa *sa, gostx_esp_keycache *cache, uint64_t seq,
                                uint64_t iv, gostx_esp_packet *p);
/* Opens one packet, p->in (p->len bytes): SPI check, ESN from the window
 * (RFC 4303 appendix A2; without ESN the SN itself), replay check, ICV
 * under the message key and pnum that the IV names, trailer. Writes the
 * payload to p->out (p->cap bytes; the packet length suffices) only when
 * everything holds, its length, next header and full sequence number to
 * p->out_len, p->next_header, p->seq; the window is NOT updated: call
 * gostx_esp_replay_update with p->seq after accepting it. Returns (and
 * writes to p->status) 0, GOSTX_EINVAL (another SPI), GOSTX_EFORMAT
 * (malformed: too short, not 4-byte aligned, bad padding), GOSTX_ESTATE
 * (replayed or left of the window), GOSTX_EAUTH (ICV mismatch). replay may
 * be NULL (no check; the ESN's high half is then 0). */
GOSTX_API GOSTX_MUST_CHECK int gostx_esp_open(const gostx_esp_sa *sa, gostx_esp_keycache *cache,
                                              const gostx_esp_replay *replay,
                                              gostx_esp_packet *p);

/* ---- bursts: many packets in one call ----
 * The same packets as gostx_esp_seal / gostx_esp_open one by one (tests
 * compare them byte for byte), but the short ones (TCP ACKs, pings) go
 * through one stream batch (include/gostx/batch.h: a packet per vector lane,
 * each with its own message key and nonce), which takes about half the time
 * per packet that one MGM call does; long ones keep one call each, which is
 * faster for them. The integrity-only transforms (34, 35) go one packet at
 * a time. */
#define GOSTX_ESP_BURST_MAX 64
/* Seals b[i] with sequence number seq_first + i, n <= GOSTX_ESP_BURST_MAX.
 * Returns 0 when every packet was sealed, else the first failing status
 * (a failed packet's out is zeroed). */
GOSTX_API int gostx_esp_seal_burst(const gostx_esp_sa *sa, gostx_esp_keycache *cache,
                                   uint64_t seq_first, gostx_esp_packet *b, size_t n);
/* Opens b[0..n) against the window as it is (duplicates inside one burst
 * both pass: gostx_esp_replay_update on each accepted seq refuses the
 * second). Returns 0 when all opened, else the first failing status; each
 * b[i].status says (out written only for status 0). */
GOSTX_API GOSTX_MUST_CHECK int gostx_esp_open_burst(const gostx_esp_sa *sa,
                                                    gostx_esp_keycache *cache,
                                                    const gostx_esp_replay *replay,
                                                    gostx_esp_packet *b, size_t n);

/* ---- bursts across SAs: a gateway's packets for many peers ----
 * b[i] under SA sa[i] with keycache cache[i] (the calling thread's for that
 * SA; cache itself or an entry NULL: none), and for open the window
 * replay[i] (replay or an entry NULL: no check), n <= GOSTX_ESP_BURST_MAX;
 * SAs of any of the four transforms mixed, one SA as often as it comes.
 * Each packet is exactly what gostx_esp_seal / gostx_esp_open gives it
 * alone (tests compare them byte for byte). The AEAD transforms' packets
 * under one message key share their cipher calls, as in a one-SA burst;
 * those whose key serves no other packet of the burst go, per cipher,
 * through one stream batch (include/gostx/batch.h): a short one a vector
 * lane each under its own key, a long one a call each. Per packet statuses as the one-SA bursts, GOSTX_EINVAL for a NULL
 * sa[i]; the call returns the first. Seal reads b[i].seq: the caller takes
 * each packet's sequence number from its SA's counter (in the order the
 * packets are to be sent); a failed packet's out is zeroed. Open leaves
 * each window to the caller (gostx_esp_replay_update on each accepted
 * seq), as gostx_esp_open_burst does. */
GOSTX_API int gostx_esp_seal_mixed(const gostx_esp_sa *const *sa,
                                   gostx_esp_keycache *const *cache, gostx_esp_packet *b,
                                   size_t n);
GOSTX_API GOSTX_MUST_CHECK int gostx_esp_open_mixed(const gostx_esp_sa *const *sa,
                                                    gostx_esp_keycache *const *cache,
                                                    const gostx_esp_replay *const *replay,
                                                    gostx_esp_packet *b, size_t n);

GOSTX_API void gostx_esp_replay_init(gostx_esp_replay *r);
/* The full sequence number that a packet's low 32 bits stand for, given the
 * window (RFC 4303 A2.2); 0 when it would be below 1. */
GOSTX_API uint64_t gostx_esp_replay_esn(const gostx_esp_replay *r, uint32_t seq_low);
/* 0 when seq is new and inside or right of the window; GOSTX_ESTATE when
 * seen, 0, or left of the window. */
GOSTX_API GOSTX_MUST_CHECK int gostx_esp_replay_check(const gostx_esp_replay *r, uint64_t seq);
/* Checks again and marks seq seen (moving the window right); GOSTX_ESTATE
 * when it was seen meanwhile. */
GOSTX_API GOSTX_MUST_CHECK int gostx_esp_replay_update(gostx_esp_replay *r, uint64_t seq);

GOSTX_API void gostx_esp_keycache_init(gostx_esp_keycache *cache);
GOSTX_API void gostx_esp_keycache_clear(gostx_esp_keycache *cache);
GOSTX_API void gostx_esp_sa_clear(gostx_esp_sa *sa);

GOSTX_API size_t gostx_sizeof_esp_sa(void);
GOSTX_API size_t gostx_sizeof_esp_keycache(void);
GOSTX_API size_t gostx_sizeof_esp_replay(void);

#ifdef __cplusplus
}
#endif
#endif
