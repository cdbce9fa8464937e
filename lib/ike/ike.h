/* IKEv2 (RFC 7296) with the GOST transforms (RFC 9385 over RFC 9227): the
 * protocol core under the future daemon. codec.c reads and writes the
 * header and the payloads of IKE_SA_INIT, IKE_AUTH, CREATE_CHILD_SA and
 * INFORMATIONAL; keys.c the PRF, SKEYSEED, SK_*, KEYMAT and AUTH; kex.c the
 * RFC 9385 key exchange; sk.c the Encrypted payload under
 * ENCR_*_MGM_KTREE. cp.c (the Configuration payload), pool.c (inner
 * addresses) and ts.c (traffic selector narrowing) are the foundations of
 * a many-peer gateway (issue 81): the engine carries CP in IKE_AUTH
 * (engine.h: cp_request, cp_assign); pool.c gives a gateway's remote users
 * their addresses (through mgr_pool.c); ts.c is not used by the engine or
 * the tunnel daemon yet. Internal: nothing here is exported yet. */
#ifndef GOSTX_IKE_H
#define GOSTX_IKE_H

#include "internal.h"
#include "gostx/gost3410.h"
#include "gostx/x509.h"
#include "gostx/x509_crl.h"

/* ---- numbers (RFC 7296 3.x and the IANA registries) ---- */
enum {
  GOSTX_IKE_HDR_LEN = 28,
  GOSTX_IKE_GEN_LEN = 4, /* the generic payload header */
  GOSTX_IKE_VERSION = 0x20,
  GOSTX_IKE_FLAG_I = 0x08, /* sent by the original initiator */
  GOSTX_IKE_FLAG_V = 0x10,
  GOSTX_IKE_FLAG_R = 0x20 /* a response */
};

enum gostx_ike_exchange {
  GOSTX_IKE_SA_INIT = 34,
  GOSTX_IKE_AUTH = 35,
  GOSTX_IKE_CREATE_CHILD_SA = 36,
  GOSTX_IKE_INFORMATIONAL = 37
};

enum gostx_ike_payload_type {
  GOSTX_IKE_PT_NONE = 0,
  GOSTX_IKE_PT_SA = 33,
  GOSTX_IKE_PT_KE = 34,
  GOSTX_IKE_PT_IDI = 35,
  GOSTX_IKE_PT_IDR = 36,
  GOSTX_IKE_PT_CERT = 37,
  GOSTX_IKE_PT_CERTREQ = 38,
  GOSTX_IKE_PT_AUTH = 39,
  GOSTX_IKE_PT_NONCE = 40,
  GOSTX_IKE_PT_NOTIFY = 41,
  GOSTX_IKE_PT_DELETE = 42,
  GOSTX_IKE_PT_VID = 43,
  GOSTX_IKE_PT_TSI = 44,
  GOSTX_IKE_PT_TSR = 45,
  GOSTX_IKE_PT_SK = 46,
  GOSTX_IKE_PT_CP = 47,
  GOSTX_IKE_PT_EAP = 48,
  GOSTX_IKE_PT_SKF = 53 /* RFC 7383 */
};

/* Transform types and the ids this module implements. */
enum {
  GOSTX_IKE_TT_ENCR = 1,
  GOSTX_IKE_TT_PRF = 2,
  GOSTX_IKE_TT_INTEG = 3,
  GOSTX_IKE_TT_KE = 4,
  GOSTX_IKE_TT_ESN = 5,
  GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE = 32,
  GOSTX_IKE_ENCR_MAGMA_MGM_KTREE = 33,
  GOSTX_IKE_PRF_HMAC_STREEBOG_512 = 9,
  GOSTX_IKE_KE_GOST3410_2012_256 = 33,
  GOSTX_IKE_KE_GOST3410_2012_512 = 34,
  GOSTX_IKE_ATTR_KEY_LENGTH = 14,
  GOSTX_IKE_PROTO_IKE = 1,
  GOSTX_IKE_PROTO_AH = 2,
  GOSTX_IKE_PROTO_ESP = 3,
  GOSTX_IKE_AUTH_PSK = 2,
  GOSTX_IKE_AUTH_DIGITAL_SIGNATURE = 14, /* RFC 7427 */
  GOSTX_IKE_TS_IPV4 = 7,
  GOSTX_IKE_TS_IPV6 = 8,
  GOSTX_IKE_PRF_LEN = 64 /* HMAC-Streebog-512: key and output */
};

/* ---- the header and the payload chain (codec.c) ---- */
typedef struct gostx_ike_hdr {
  uint8_t spi_i[8], spi_r[8];
  uint8_t next;     /* the first payload's type */
  uint8_t version;  /* major << 4 | minor */
  uint8_t exchange;
  uint8_t flags;
  uint32_t msg_id;
  uint32_t length;  /* the whole message */
} gostx_ike_hdr;

/* One payload as it stands in the chain: its body points into the message. */
typedef struct gostx_ike_payload {
  uint8_t type;
  uint8_t critical;
  const uint8_t *body;
  size_t len;
} gostx_ike_payload;

#define GOSTX_IKE_MAX_PAYLOADS 48

typedef struct gostx_ike_chain {
  size_t n;
  gostx_ike_payload p[GOSTX_IKE_MAX_PAYLOADS];
  size_t skipped;        /* unknown payloads without the critical bit (RFC 7296 2.5) */
  uint8_t unsupported;   /* the type of an unknown critical payload, 0 if none */
} gostx_ike_chain;

/* The header of msg (len bytes): GOSTX_ELEN when shorter than a header or
 * when the header's length is not len, GOSTX_EUNSUP for a major version
 * other than 2 (RFC 7296 2.5: INVALID_MAJOR_VERSION). */
int gostx__ike_hdr_read(const uint8_t *msg, size_t len, gostx_ike_hdr *h);
void gostx__ike_hdr_write(const gostx_ike_hdr *h, uint8_t out[GOSTX_IKE_HDR_LEN]);

/* The chain of payloads in p[0..len), the first of type first: each
 * payload's length at least its header and within what is left, the chain
 * ending (next payload 0) exactly at len. An Encrypted payload (SK, SKF)
 * ends the chain: its Next Payload names the first payload inside it
 * (*inner_first). Unknown payloads: skipped when not critical, else
 * GOSTX_EUNSUP with out->unsupported = the type (RFC 7296 2.5:
 * UNSUPPORTED_CRITICAL_PAYLOAD). GOSTX_EFORMAT for a malformed chain or
 * more than GOSTX_IKE_MAX_PAYLOADS payloads. inner_first may be NULL. */
int gostx__ike_chain_read(uint8_t first, const uint8_t *p, size_t len, gostx_ike_chain *out,
                          uint8_t *inner_first);
/* The header and the chain of a whole message. */
int gostx__ike_msg_read(const uint8_t *msg, size_t len, gostx_ike_hdr *h, gostx_ike_chain *c,
                        uint8_t *inner_first);
/* The first payload of type in c, or NULL; _next: the one after prev. */
const gostx_ike_payload *gostx__ike_find(const gostx_ike_chain *c, uint8_t type);
const gostx_ike_payload *gostx__ike_find_next(const gostx_ike_chain *c,
                                              const gostx_ike_payload *prev, uint8_t type);

/* ---- payload bodies (codec.c): each reader strict, GOSTX_EFORMAT when a
 * length or a count disagrees with what is there ---- */
typedef struct gostx_ike_transform {
  uint8_t type;
  uint16_t id;
  int32_t key_len;      /* the Key Length attribute (bits), -1 when absent */
  uint8_t unknown_attr; /* an attribute this reader does not know: the transform is
                           unusable (RFC 7296 3.3.6) */
} gostx_ike_transform;

#define GOSTX_IKE_MAX_TRANSFORMS 16
#define GOSTX_IKE_MAX_PROPOSALS 8

/* RFC 7296 sets no bound on transforms or proposals, and strongSwan's
 * default IKE proposal has 38 transforms. Past the bounds a reader checks
 * the structure all the same and keeps less: a proposal of more than
 * GOSTX_IKE_MAX_TRANSFORMS is kept with none (n 0, `more` set), so that
 * no test of "ours, and nothing else" can pass on it (none of ours has
 * that many); proposals past GOSTX_IKE_MAX_PROPOSALS are not kept (the
 * SA's `more` set). */
typedef struct gostx_ike_proposal {
  uint8_t num, proto, spi_len;
  uint8_t spi[8];
  size_t n;
  uint8_t more; /* more transforms than kept: none kept */
  gostx_ike_transform t[GOSTX_IKE_MAX_TRANSFORMS];
} gostx_ike_proposal;

typedef struct gostx_ike_sa {
  size_t n;
  uint8_t more; /* proposals past the n kept */
  gostx_ike_proposal p[GOSTX_IKE_MAX_PROPOSALS];
} gostx_ike_sa;

int gostx__ike_sa_read(const uint8_t *body, size_t len, gostx_ike_sa *sa);

/* KE: group | RESERVED | data. */
int gostx__ike_ke_read(const uint8_t *body, size_t len, uint16_t *group, const uint8_t **data,
                       size_t *data_len);
/* IDi/IDr: ID type | RESERVED(3) | data. AUTH: method | RESERVED(3) | data. */
int gostx__ike_id_read(const uint8_t *body, size_t len, uint8_t *id_type, const uint8_t **data,
                       size_t *data_len);
int gostx__ike_auth_read(const uint8_t *body, size_t len, uint8_t *method, const uint8_t **data,
                         size_t *data_len);
/* CERT/CERTREQ: encoding | data (data not empty). */
int gostx__ike_cert_read(const uint8_t *body, size_t len, uint8_t *encoding,
                         const uint8_t **data, size_t *data_len);
/* Nonce: 16 to 256 octets (RFC 7296 2.10). */
int gostx__ike_nonce_read(const uint8_t *body, size_t len);

typedef struct gostx_ike_notify {
  uint8_t proto, spi_len;
  uint16_t type;
  const uint8_t *spi;
  const uint8_t *data;
  size_t data_len;
} gostx_ike_notify;
int gostx__ike_notify_read(const uint8_t *body, size_t len, gostx_ike_notify *n);

typedef struct gostx_ike_delete {
  uint8_t proto, spi_len;
  uint16_t count;
  const uint8_t *spis; /* count * spi_len octets */
} gostx_ike_delete;
int gostx__ike_delete_read(const uint8_t *body, size_t len, gostx_ike_delete *d);

typedef struct gostx_ike_ts {
  uint8_t type, ip_proto;
  uint16_t start_port, end_port;
  uint8_t start[16], end[16]; /* 4 octets used for IPv4 */
} gostx_ike_ts;
#define GOSTX_IKE_MAX_TS 16
typedef struct gostx_ike_ts_set {
  size_t n;
  gostx_ike_ts ts[GOSTX_IKE_MAX_TS];
} gostx_ike_ts_set;
int gostx__ike_ts_read(const uint8_t *body, size_t len, gostx_ike_ts_set *set);

/* ---- the Configuration payload (cp.c, RFC 7296 3.15): IKE_AUTH's
 * CFG_REQUEST and CFG_REPLY in the engine (auth.c, for issue 81's remote
 * users' inner addresses, 2.19); the tunnel daemon does not ask yet. ---- */
enum {
  GOSTX_IKE_CFG_REQUEST = 1,
  GOSTX_IKE_CFG_REPLY = 2,
  GOSTX_IKE_CFG_SET = 3,
  GOSTX_IKE_CFG_ACK = 4,
  /* the attributes of 3.15.1 (the Value's length: 0, or the one given) */
  GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS = 1, /* 4 */
  GOSTX_IKE_CA_INTERNAL_IP4_NETMASK = 2, /* 4 */
  GOSTX_IKE_CA_INTERNAL_IP4_DNS = 3,     /* 4 */
  GOSTX_IKE_CA_INTERNAL_IP4_NBNS = 4,    /* 4 */
  GOSTX_IKE_CA_INTERNAL_IP4_DHCP = 6,    /* 4 */
  GOSTX_IKE_CA_APPLICATION_VERSION = 7,  /* any */
  GOSTX_IKE_CA_INTERNAL_IP6_ADDRESS = 8, /* 16 + prefix length */
  GOSTX_IKE_CA_INTERNAL_IP6_DNS = 10,    /* 16 */
  GOSTX_IKE_CA_INTERNAL_IP6_DHCP = 12,   /* 16 */
  GOSTX_IKE_CA_INTERNAL_IP4_SUBNET = 13, /* 8: address, netmask */
  GOSTX_IKE_CA_SUPPORTED_ATTRIBUTES = 14, /* a multiple of 2 */
  GOSTX_IKE_CA_INTERNAL_IP6_SUBNET = 15, /* 17, never empty */
  GOSTX_IKE_CP_MAX_ATTRS = 16 /* the attributes of the five kinds kept from one payload */
};

/* One attribute of the kinds kept (IP4_ADDRESS, IP4_NETMASK, IP4_DNS,
 * IP6_ADDRESS, IP6_DNS): len 0 (a request for one) or its length above;
 * an IPv6 address's prefix length is v[16]. */
typedef struct gostx_ike_cp_attr {
  uint16_t type;
  uint8_t len;
  uint8_t v[17];
} gostx_ike_cp_attr;

typedef struct gostx_ike_cp {
  uint8_t cfg_type;
  size_t n;
  gostx_ike_cp_attr a[GOSTX_IKE_CP_MAX_ATTRS];
  size_t skipped; /* other attributes: ignored (3.15.1), each one's length checked */
} gostx_ike_cp;

/* A CP body, strict: CFG Type 1 to 4 (GOSTX_EUNSUP for another, so that
 * the payload can be ignored; GOSTX_EFORMAT for 0), every attribute whole
 * within the body, the attributes 3.15.1 lists with the lengths it gives
 * (an IPv6 prefix length at most 128), at most one INTERNAL_IP4_NETMASK,
 * empty in a CFG_REQUEST, and only beside an INTERNAL_IP4_ADDRESS; the R
 * bit ignored, as 3.15.1 says. GOSTX_EFORMAT for anything else, and for
 * more than GOSTX_IKE_CP_MAX_ATTRS of the kinds kept. */
int gostx__ike_cp_read(const uint8_t *body, size_t len, gostx_ike_cp *cp);
/* 0 when an attribute of type with len octets of Value is one 3.15.1
 * allows (types it does not list: any length), GOSTX_EFORMAT otherwise. */
int gostx__ike_cp_attr_check(uint16_t type, size_t len, const uint8_t *v);
/* Appends an attribute of a kind kept to cp: GOSTX_ELEN when full,
 * GOSTX_EFORMAT for a length gostx__ike_cp_attr_check refuses or a kind
 * not kept. */
int gostx__ike_cp_add(gostx_ike_cp *cp, uint16_t type, const uint8_t *v, size_t len);
/* The rules the reader holds a whole payload to (CFG Type, each kept
 * attribute's length, the netmask's): GOSTX_OK or GOSTX_EFORMAT. The
 * writer checks with it too, so that it writes only what reads back. */
int gostx__ike_cp_valid(const gostx_ike_cp *cp);

/* ---- traffic selectors (ts.c, RFC 7296 2.9 and 3.13.1). Narrowing and the
 * data path's check are not yet used by the engine or the tunnel daemon
 * (the engine accepts only selectors within its configured ones, auth.c);
 * the gateway of issue 81 will take them. ---- */
/* a covers b: the same type, b's addresses, ports and protocol within a's
 * (protocol 0 covers every protocol). */
int gostx__ike_ts_covers(const gostx_ike_ts *a, const gostx_ike_ts *b);
/* a and b's common part into *out: 1, or 0 when they share nothing (other
 * types, protocols, disjoint ranges). Protocol 0 is any; ports 0-65535
 * any, and 65535-0 OPAQUE (3.13.1), which meets only ANY and OPAQUE. */
int gostx__ike_ts_intersect(const gostx_ike_ts *a, const gostx_ike_ts *b, gostx_ike_ts *out);
/* One side's narrowing (2.9): what of peer's selectors ours allow, each of
 * peer's met with each of ours, in peer's order (so that the part of the
 * peer's first choice, the packet's own selector, comes first), a
 * selector another one covers left out, at most GOSTX_IKE_MAX_TS kept
 * (a subset is still a narrowing). Returns out->n: 0, nothing allowed. */
size_t gostx__ike_ts_narrow(const gostx_ike_ts_set *ours, const gostx_ike_ts_set *peer,
                            gostx_ike_ts_set *out);
/* Both sides: 0 with *out_i and *out_r narrowed, or TS_UNACCEPTABLE (38,
 * the notify the responder answers with) when either side is left empty. */
uint16_t gostx__ike_ts_narrow_pair(const gostx_ike_ts_set *ours_i, const gostx_ike_ts_set *ours_r,
                                   const gostx_ike_ts_set *peer_i, const gostx_ike_ts_set *peer_r,
                                   gostx_ike_ts_set *out_i, gostx_ike_ts_set *out_r);
/* The data path's check: 1 when addr (alen 4 or 16 octets) lies in some
 * selector of s, whatever its ports and protocol (an inner source held to
 * a peer's narrowed TSi); 0 otherwise. */
int gostx__ike_ts_has_addr(const gostx_ike_ts_set *s, const uint8_t *addr, size_t alen);
/* The same for a whole packet: addr, its protocol and its port (the source
 * port for TSi, 0 when the protocol has none); a selector of protocol 0
 * takes every protocol, one of ports ANY or OPAQUE every port. */
int gostx__ike_ts_match(const gostx_ike_ts_set *s, const uint8_t *addr, size_t alen,
                        uint8_t proto, uint16_t port);

/* ---- the inner address pool (pool.c): the addresses a gateway gives its
 * remote users by CP (2.19). Sans-IO, no clock, nothing allocated: one slot
 * per address in a table the caller gives. Not yet used by the tunnel
 * daemon (issue 81's gateway will be). Addresses and identities are
 * public: nothing here is constant time. ---- */
typedef struct gostx_ike_lease {
  uint8_t id[32]; /* Streebog-256 of the identity that holds or held it */
  uint8_t state;  /* 0 never leased, 1 held, 2 released (still its holder's) */
  uint64_t at;    /* the pool's count at release: the oldest is reused first */
} gostx_ike_lease;

typedef struct gostx_ike_pool {
  uint8_t alen; /* 4 or 16 */
  uint8_t net[16];
  uint32_t size; /* addresses: the range's hosts, at most the table's slots */
  uint32_t cap;  /* the most held at once */
  uint32_t held;
  uint64_t tick;
  gostx_ike_lease *slot;
} gostx_ike_pool;

/* A pool over net/prefix (alen 4: IPv4, prefix at most 30, the network and
 * broadcast addresses never given; alen 16: IPv6, prefix 64 to 127, the
 * all-zero Subnet-Router anycast address never given), with the first
 * n_slots hosts of the range, at most cap held at once (0: n_slots).
 * GOSTX_EINVAL for a net with host bits set or a prefix outside those. */
int gostx__ike_pool_init(gostx_ike_pool *p, const uint8_t *net, size_t alen, unsigned prefix,
                         gostx_ike_lease *slots, size_t n_slots, size_t cap);
/* An address for the identity id (its ID type and data, as authenticated)
 * into out (p->alen octets): the one it holds, or held last if no one took
 * it since; else want (may be NULL: the address a CFG_REQUEST asked for)
 * when in the range and never leased; else one never leased; else the one
 * released longest ago. GOSTX_ELEN when cap are held or none is left. */
int gostx__ike_pool_lease(gostx_ike_pool *p, const uint8_t *id, size_t id_len,
                          const uint8_t *want, uint8_t *out);
/* The identity's lease given back (kept for it until reused):
 * GOSTX_ESTATE when it holds none. */
int gostx__ike_pool_release(gostx_ike_pool *p, const uint8_t *id, size_t id_len);

/* ---- the writer (codec.c): payloads appended to a header or to the inside
 * of an Encrypted payload, each chained into the previous one's Next
 * Payload. The first error sticks (w->err) and later calls do nothing. ---- */
typedef struct gostx_ike_writer {
  uint8_t *buf;
  size_t cap, len;
  size_t np_at;  /* where the last Next Payload field is */
  uint8_t first; /* the first payload's type (what an SK payload names) */
  int err;
} gostx_ike_writer;

/* A message: the header (its next and length filled in as payloads come). */
void gostx__ike_w_msg(gostx_ike_writer *w, uint8_t *buf, size_t cap, const gostx_ike_hdr *h);
/* The inside of an Encrypted payload: payloads only. */
void gostx__ike_w_inner(gostx_ike_writer *w, uint8_t *buf, size_t cap);
/* A payload of type with body (critical bit clear, as RFC 7296 sends the
 * payloads it defines). */
void gostx__ike_w_raw(gostx_ike_writer *w, uint8_t type, const uint8_t *body, size_t len);
void gostx__ike_w_sa(gostx_ike_writer *w, const gostx_ike_sa *sa);
void gostx__ike_w_ke(gostx_ike_writer *w, uint16_t group, const uint8_t *data, size_t len);
/* IDi/IDr (type), AUTH and the other "octet | RESERVED(3) | data" payloads. */
void gostx__ike_w_id(gostx_ike_writer *w, uint8_t type, uint8_t id_type, const uint8_t *data,
                     size_t len);
void gostx__ike_w_auth(gostx_ike_writer *w, uint8_t method, const uint8_t *data, size_t len);
void gostx__ike_w_cert(gostx_ike_writer *w, uint8_t type, uint8_t encoding, const uint8_t *data,
                       size_t len);
void gostx__ike_w_notify(gostx_ike_writer *w, const gostx_ike_notify *n);
void gostx__ike_w_delete(gostx_ike_writer *w, const gostx_ike_delete *d);
void gostx__ike_w_ts(gostx_ike_writer *w, uint8_t type, const gostx_ike_ts_set *set);
/* A CP payload of cp (its attributes in order, R bit clear); w->err =
 * GOSTX_EFORMAT for what gostx__ike_cp_read would refuse. */
void gostx__ike_w_cp(gostx_ike_writer *w, const gostx_ike_cp *cp);
/* A whole message's length: patches the header; returns w->len, or the error. */
int gostx__ike_w_finish(gostx_ike_writer *w, size_t *len);

/* ---- PRF and keys (keys.c): PRF_HMAC_STREEBOG_512 ---- */
/* out = prf(key, a | b) (64 octets); b may be NULL. */
int gostx__ike_prf(const uint8_t *key, size_t key_len, const uint8_t *a, size_t a_len,
                   const uint8_t *b, size_t b_len, uint8_t out[GOSTX_IKE_PRF_LEN]);
/* prf+(key, seed) (RFC 7296 2.13), out_len <= 255 * 64. */
int gostx__ike_prf_plus(const uint8_t *key, size_t key_len, const uint8_t *seed, size_t seed_len,
                        uint8_t *out, size_t out_len);

/* The IKE SA's keys; SK_ai/SK_ar are empty under the AEAD transforms (RFC 9227 4.4). */
typedef struct gostx_ike_keys {
  uint8_t sk_d[GOSTX_IKE_PRF_LEN];
  uint8_t sk_ei[44], sk_er[44];
  uint8_t sk_pi[GOSTX_IKE_PRF_LEN], sk_pr[GOSTX_IKE_PRF_LEN];
  size_t enc_len; /* 44 (Kuznyechik) or 36 (Magma): key | salt */
} gostx_ike_keys;

/* The encryption transform's key length (key | salt), 0 for an unknown id. */
size_t gostx__ike_encr_key_len(uint16_t encr_id);
/* SKEYSEED = prf(Ni | Nr, g^ir) (IKE_SA_INIT), or, rekeying an IKE SA,
 * prf(SK_d (old), g^ir (new) | Ni | Nr) when sk_d_old is not NULL. */
int gostx__ike_skeyseed(const uint8_t *sk_d_old, const uint8_t *ni, size_t ni_len,
                        const uint8_t *nr, size_t nr_len, const uint8_t *gir, size_t gir_len,
                        uint8_t out[GOSTX_IKE_PRF_LEN]);
/* {SK_d | SK_ai | SK_ar | SK_ei | SK_er | SK_pi | SK_pr} =
 * prf+(SKEYSEED, Ni | Nr | SPIi | SPIr). */
int gostx__ike_sa_keys(const uint8_t skeyseed[GOSTX_IKE_PRF_LEN], uint16_t encr_id,
                       const uint8_t *ni, size_t ni_len, const uint8_t *nr, size_t nr_len,
                       const uint8_t spi_i[8], const uint8_t spi_r[8], gostx_ike_keys *k);
/* KEYMAT = prf+(SK_d, [g^ir (new) |] Ni | Nr) (RFC 7296 2.17); gir NULL
 * without PFS. */
int gostx__ike_keymat(const uint8_t sk_d[GOSTX_IKE_PRF_LEN], const uint8_t *gir, size_t gir_len,
                      const uint8_t *ni, size_t ni_len, const uint8_t *nr, size_t nr_len,
                      uint8_t *out, size_t out_len);
/* prf(SK_p, RestOfIDPayload): the last part of the signed octets (2.15). */
int gostx__ike_id_mac(const uint8_t sk_p[GOSTX_IKE_PRF_LEN], const uint8_t *id_body, size_t len,
                      uint8_t out[GOSTX_IKE_PRF_LEN]);
/* AUTH for the shared key (method 2): prf(prf(PSK, "Key Pad for IKEv2"),
 * RealMessage | Nonce (the peer's) | prf(SK_p, ID body)). */
int gostx__ike_auth_psk(const uint8_t *psk, size_t psk_len, const uint8_t *msg, size_t msg_len,
                        const uint8_t *nonce, size_t nonce_len,
                        const uint8_t id_mac[GOSTX_IKE_PRF_LEN], uint8_t out[GOSTX_IKE_PRF_LEN]);
/* The AUTH check: 0 when auth (auth_len) is the expected 64 octets, in
 * constant time; GOSTX_EAUTH otherwise. */
int gostx__ike_auth_psk_check(const uint8_t *psk, size_t psk_len, const uint8_t *msg,
                              size_t msg_len, const uint8_t *nonce, size_t nonce_len,
                              const uint8_t id_mac[GOSTX_IKE_PRF_LEN], const uint8_t *auth,
                              size_t auth_len);

/* ---- the key exchange of RFC 9385 section 6 (kex.c) ---- */
/* The curve of KE method 33 (256 paramSetA) or 34 (512 paramSetC), 0 otherwise. */
int gostx__ike_ke_curve(uint16_t group);
/* Key Exchange Data of d (big-endian, 0 < d < q): x | y, each
 * little-endian (2 * 32 or 2 * 64 octets). */
int gostx__ike_ke_public(uint16_t group, const uint8_t *priv, size_t priv_len, uint8_t *out,
                         size_t out_len);
/* The shared secret K: x of ((m / q) d) Q_peer, little-endian. The peer's
 * data is checked first (RFC 9385 6.1: its length, on the curve, in the
 * order-q subgroup) and the result is not the identity: GOSTX_EINVAL
 * otherwise, GOSTX_ELEN for a wrong length. Constant time in d. */
int gostx__ike_ke_shared(uint16_t group, const uint8_t *priv, size_t priv_len,
                         const uint8_t *peer, size_t peer_len, uint8_t *out, size_t out_len);

/* ---- the Encrypted payload under ENCR_*_MGM_KTREE (sk.c) ---- */
typedef struct gostx_ike_sk {
  uint16_t encr_id;
  int alg; /* gostx_alg */
  uint8_t key[32], salt[12];
  size_t salt_len, icv_len;
} gostx_ike_sk;

int gostx__ike_sk_init(gostx_ike_sk *sk, uint16_t encr_id, const uint8_t *key, size_t len);
void gostx__ike_sk_clear(gostx_ike_sk *sk);
/* A whole protected message into out: header h (next and length set
 * here), SK generic header naming inner_first, IV (the 64-bit i1 | i2 | i3 |
 * pnum), the inside encrypted with Pad Length 0 (RFC 9227 4.6), ICV. AAD:
 * the header and the SK generic header (RFC 9227 4.7.2). */
int gostx__ike_sk_seal(const gostx_ike_sk *sk, uint64_t iv, const gostx_ike_hdr *h,
                       uint8_t inner_first, const uint8_t *inner, size_t inner_len,
                       uint8_t *out, size_t cap, size_t *out_len);
/* Opens a protected message: checks the header and the chain (the SK
 * payload last), authenticates and decrypts the inside into plain (cap
 * bytes), drops the padding; *inner_first and *plain_len say what is
 * there, *iv the message's IV. GOSTX_EAUTH when the ICV fails (nothing
 * written). */
int gostx__ike_sk_open(const gostx_ike_sk *sk, const uint8_t *msg, size_t len,
                       gostx_ike_hdr *h, uint8_t *inner_first, uint8_t *plain, size_t cap,
                       size_t *plain_len, uint64_t *iv);

/* ---- certificate AUTH (sig.c): RFC 7427 Digital Signature (method 14)
 * with the GOST signatures of RFC 9385 section 7 ---- */
enum {
  GOSTX_IKE_ID_IPV4_ADDR = 1,
  GOSTX_IKE_ID_FQDN = 2,
  GOSTX_IKE_ID_RFC822_ADDR = 3,
  GOSTX_IKE_ID_IPV6_ADDR = 5,
  GOSTX_IKE_ID_DER_ASN1_DN = 9,
  GOSTX_IKE_CERT_X509_SIG = 4, /* CERT encoding: X.509 Certificate - Signature */
  GOSTX_IKE_N_SIGNATURE_HASH_ALGORITHMS = 16431, /* RFC 7427 4 */
  GOSTX_IKE_HASH_STREEBOG_256 = 6,               /* RFC 9385 7.1 */
  GOSTX_IKE_HASH_STREEBOG_512 = 7,
  GOSTX_IKE_MAX_CERTS = 4 /* CERT payloads taken from one message */
};

/* A remote-access template's pattern (issue 81) against a peer's ID (its
 * type and data as IKE_AUTH carries them): 1 when it matches, else 0.
 * FQDN and RFC822_ADDR IDs: printable ASCII without spaces. The pattern
 * is a name compared in either case (RFC 4343), or one led by '*': "*"
 * matches any name, "*.branch.example.ru" (or "*@example.ru") any that
 * ends so after at least one character; a '*' elsewhere matches nothing.
 * A pattern with '=' is a DN pattern and matches DER_ASN1_DN IDs only:
 * "ATTR=VALUE" terms split at ',' (spaces after it skipped; no ',' in a
 * value), ATTR one of CN, C, L, ST, O, OU in either case, VALUE as a
 * name above (spaces allowed); the ID is walked as a DER Name, and each
 * term needs its attribute present and every AVA of that type matching
 * (a second CN cannot smuggle a match), its value a UTF8String,
 * PrintableString or IA5String of printable ASCII. Other attributes and
 * the RDNs' order are not looked at. (idmatch.c) */
int gostx__ike_id_match(const char *pattern, uint8_t type, const uint8_t *id, size_t len);

/* The AUTH data of method 14 for key: the AlgorithmIdentifier's length
 * (12), id-tc26-signwithdigest-gost3410-12-256 or -512 without parameters,
 * then s | r, each big-endian: the signature by key of Streebog-256/512 of
 * msg | nonce | id_mac (RFC 7296 2.15: the sender's first message, the
 * peer's nonce, prf(SK_p, ID)). 13 + 64 or 13 + 128 octets. */
int gostx__ike_auth_sig_sign(const gostx_gost3410_key *key, const uint8_t *msg, size_t msg_len,
                             const uint8_t *nonce, size_t nonce_len,
                             const uint8_t id_mac[GOSTX_IKE_PRF_LEN], uint8_t *auth, size_t cap,
                             size_t *auth_len);
/* The same with the nonce k (big-endian) given: known answers only. */
int gostx__ike_auth_sig_sign_k(const gostx_gost3410_key *key, const uint8_t *msg,
                               size_t msg_len, const uint8_t *nonce, size_t nonce_len,
                               const uint8_t id_mac[GOSTX_IKE_PRF_LEN], const uint8_t *k,
                               size_t k_len, uint8_t *auth, size_t cap, size_t *auth_len);
/* Checks the AUTH data of method 14 against cert's key: GOSTX_OK;
 * GOSTX_EFORMAT when malformed (lengths); GOSTX_EUNSUP for an
 * AlgorithmIdentifier other than the GOST one of the key's size (another
 * algorithm, parameters present, the other size); GOSTX_EAUTH when the
 * signature does not verify. */
int gostx__ike_auth_sig_verify(const gostx_x509_cert *cert, const uint8_t *msg, size_t msg_len,
                               const uint8_t *nonce, size_t nonce_len,
                               const uint8_t id_mac[GOSTX_IKE_PRF_LEN], const uint8_t *auth,
                               size_t auth_len);
/* 1 when an ID payload's identity (type, data) names cert (RFC 4945 3.1):
 * ID_DER_ASN1_DN the Subject byte for byte, ID_FQDN a subjectAltName
 * dNSName (ASCII case aside), ID_RFC822_ADDR an rfc822Name, ID_IPV4_ADDR /
 * ID_IPV6_ADDR an iPAddress; 0 otherwise (other types name no certificate). */
int gostx__ike_id_matches_cert(const gostx_x509_cert *cert, uint8_t id_type, const uint8_t *id,
                               size_t len);
/* The peer's certificate from the chain c of its IKE_AUTH (the inside of
 * SK): the CERT payloads (encoding 4; the first the signer's, RFC 7296
 * 3.6; at most GOSTX_IKE_MAX_CERTS) verified through store at now
 * (gostx_x509_verify), the end-entity's keyUsage allowing signatures
 * (RFC 4945 5.1.3.2), and the ID payload of type id_payload (IDi or IDr)
 * naming it. GOSTX_X509_OK with *leaf the end-entity certificate (its views
 * point into c's message), or the check that failed: lib/x509's statuses;
 * MALFORMED too for no CERT, no ID or an unreadable one; UNSUPPORTED for
 * another CERT encoding; PATH_TOO_LONG for too many CERT payloads;
 * KEY_USAGE; NAME_MISMATCH for an ID that does not name the certificate.
 * *why (why may be NULL): for a refusal of the payloads themselves (no
 * CERT, another encoding, too many, no ID) the text that names it, which
 * the status's text does not; NULL otherwise. */
gostx_x509_status gostx__ike_peer_cert(const gostx_x509_store *store,
                                       const gostx_ike_chain *c, uint8_t id_payload,
                                       int64_t now, gostx_x509_cert *leaf, const char **why);
/* The log's text for gostx__ike_auth_sig_verify's result rc (not 0). */
const char *gostx__ike_sig_why(int rc);

/* ---- revocation of the peer's path (revoke.c) ---- */
/* What a certificate of the peer's path without a status from the CRLs
 * (none of its issuer's, stale, unusable) meets: OFF, the CRLs are not
 * consulted; WARN, accepted with a note; REQUIRE, refused. A certificate a
 * CRL lists as revoked is refused under WARN and REQUIRE. */
enum { GOSTX_IKE_REVOCATION_OFF = 0, GOSTX_IKE_REVOCATION_WARN, GOSTX_IKE_REVOCATION_REQUIRE };
typedef struct gostx_ike_revocation {
  const gostx_x509_crl *crls; /* parsed, any issuers', any order */
  size_t n_crls;
  int policy; /* GOSTX_IKE_REVOCATION_* */
} gostx_ike_revocation;
#define GOSTX_IKE_NOTE_MAX 256
/* chain (the leaf first) verified through store at now as
 * gostx_x509_verify does, then each certificate of the path built but the
 * anchor checked against rev's CRLs (RFC 5280 6.3; rev NULL: OFF). The
 * status: lib/x509's for the path, GOSTX_X509_REVOKED, or under REQUIRE the
 * CRLs' reason for having no status (GOSTX_X509_CRL_UNAVAILABLE, ..._EXPIRED,
 * ...). note (GOSTX_IKE_NOTE_MAX octets, may be NULL): for a refusal by
 * revocation, which certificate and why ("depth 0, serial 0x0A1B,
 * reason keyCompromise"); for a path accepted under WARN, the certificate
 * without a status and why; "" otherwise. */
gostx_x509_status gostx__ike_path_verify(const gostx_x509_store *store,
                                         const gostx_ike_revocation *rev,
                                         const gostx_x509_cert *chain, size_t n, int64_t now,
                                         char *note);
/* gostx__ike_peer_cert with its path checked by gostx__ike_path_verify
 * under rev, note as there, why as gostx__ike_peer_cert's. */
gostx_x509_status gostx__ike_peer_cert_rev(const gostx_x509_store *store,
                                           const gostx_ike_revocation *rev, char *note,
                                           const gostx_ike_chain *c, uint8_t id_payload,
                                           int64_t now, gostx_x509_cert *leaf, const char **why);
/* The peer's SIGNATURE_HASH_ALGORITHMS in chain c (RFC 7427 4): 1 with
 * *mask the identifiers below 32 it lists (bit id), 0 when it sent none,
 * GOSTX_EFORMAT for one with a protocol, an SPI, or a list empty or not of
 * whole 16-bit identifiers. */
int gostx__ike_sig_hashes(const gostx_ike_chain *c, uint32_t *mask);
/* The hash identifier a GOST key of len octets signs with (RFC 9385 7):
 * Streebog-256 for 32, -512 for 64; 0 for another size. */
uint16_t gostx__ike_sig_hash_of(size_t key_len);

/* ---- CERTREQ (certreq.c, RFC 7296 3.7) for X.509 signatures ---- */
enum {
  GOSTX_IKE_CA_HASH_LEN = 20,      /* SHA-1 */
  GOSTX_IKE_CERTREQ_MAX_CAS = 16   /* the anchors one CERTREQ names */
};
/* SHA-1 of a CA's SubjectPublicKeyInfo (the whole DER element). */
void gostx__ike_ca_hash(const uint8_t *spki, size_t len, uint8_t out[GOSTX_IKE_CA_HASH_LEN]);
/* A CERTREQ of encoding 4 naming store's anchors (the first 16); none for
 * a NULL or empty store. */
void gostx__ike_w_certreq(gostx_ike_writer *w, const gostx_x509_store *store);
/* A CERTREQ body: encoding 4 with a list of whole 20-octet hashes (*cas,
 * *n of them). GOSTX_EUNSUP for another encoding (a request the receiver
 * need not answer), GOSTX_EFORMAT for an empty list or a partial hash. */
int gostx__ike_certreq_read(const uint8_t *body, size_t len, const uint8_t **cas, size_t *n);
/* Every CERTREQ of chain c read: *n the CA hashes of encoding 4 listed,
 * GOSTX_EFORMAT for a malformed one. */
int gostx__ike_certreq_scan(const gostx_ike_chain *c, size_t *n);

/* ---- IKE fragmentation (RFC 7383) over the same transforms ---- */
enum {
  GOSTX_IKE_N_FRAGMENTATION_SUPPORTED = 16430, /* 2.3: empty, protocol 0, no SPI */
  /* the most fragments one message is taken in: a larger Total Fragments
   * is dropped before anything is decrypted or stored (memory bounded) */
  GOSTX_IKE_FRAG_MAX = 64
};

/* IKEV2_FRAGMENTATION_SUPPORTED in an IKE_SA_INIT's chain c (RFC 7383 2.3):
 * 1 when there, 0 when not, GOSTX_EFORMAT for a Notify that does not read
 * or this one with a protocol, an SPI or data. _w_: appends it. */
int gostx__ike_frag_supported(const gostx_ike_chain *c);
void gostx__ike_w_frag_supported(gostx_ike_writer *w);

/* An Encrypted Fragment payload as read from a message (sk.c). */
typedef struct gostx_ike_skf {
  uint8_t next; /* fragment 1: the inside's first payload type; 0 after */
  uint16_t num, total;
  const uint8_t *body; /* IV | content | ICV, inside the message */
  size_t len;
} gostx_ike_skf;

/* One fragment (num of total, 1 <= num <= total) of chunk, as a whole
 * message: header h (next and length set here), SKF naming inner_first
 * in fragment 1 and 0 in the others, Pad Length 0. The AAD covers the
 * header and the SKF header with its Fragment Number and Total Fragments. */
int gostx__ike_skf_seal(const gostx_ike_sk *sk, uint64_t iv, const gostx_ike_hdr *h,
                        uint8_t inner_first, uint16_t num, uint16_t total,
                        const uint8_t *chunk, size_t chunk_len, uint8_t *out, size_t cap,
                        size_t *out_len);
/* The header of a fragment message and its SKF payload, the only one in it
 * (RFC 7383 2.5.3). GOSTX_EFORMAT for a malformed message or the numbers
 * 2.6 and 2.5 refuse: Fragment Number or Total Fragments 0, Fragment
 * Number above Total Fragments, a Next Payload other than 0 after the first. */
int gostx__ike_skf_read(const uint8_t *msg, size_t len, gostx_ike_hdr *h, gostx_ike_skf *f);
/* Authenticates and decrypts f (read from msg) into plain: GOSTX_EAUTH
 * when the ICV fails. */
int gostx__ike_skf_open(const gostx_ike_sk *sk, const uint8_t *msg, const gostx_ike_skf *f,
                        uint8_t *plain, size_t cap, size_t *plain_len, uint64_t *iv);

/* Splitting (frag.c): the inside of an Encrypted payload (inner_len octets)
 * cut into chunks so that each fragment message is at most max_len octets
 * (the IKE message: the caller takes off IP, UDP and a non-ESP marker).
 * The number of fragments into *total; GOSTX_ELEN when max_len leaves no
 * room for content or more than GOSTX_IKE_FRAG_MAX fragments are needed. */
int gostx__ike_frag_total(const gostx_ike_sk *sk, size_t inner_len, size_t max_len,
                          uint16_t *total);
/* Fragment num (1..total) of inner as a whole message, sealed with IV iv
 * (each fragment takes its own IV: the caller's counter). */
int gostx__ike_frag_seal(const gostx_ike_sk *sk, uint64_t iv, const gostx_ike_hdr *h,
                         uint8_t inner_first, const uint8_t *inner, size_t inner_len,
                         size_t max_len, uint16_t num, uint8_t *out, size_t cap,
                         size_t *out_len);

/* Reassembly (frag.c, RFC 7383 2.6) of one message (one Message ID) into a
 * buffer the caller gives: nothing allocated, at most GOSTX_IKE_FRAG_MAX
 * fragments and cap octets of content held. */
typedef struct gostx_ike_reasm {
  uint8_t *buf;
  size_t cap, used;
  uint32_t msg_id;
  gostx_ike_hdr h; /* the header the set came with (length aside) */
  uint8_t first;   /* the inside's first payload type (from fragment 1) */
  uint16_t total, have;
  size_t icv_len;
  struct {
    uint32_t off, len;
    uint8_t got;
  } f[GOSTX_IKE_FRAG_MAX];
} gostx_ike_reasm;

/* A set for the message msg_id (the caller's window picks it). */
void gostx__ike_reasm_init(gostx_ike_reasm *r, uint8_t *buf, size_t cap, uint32_t msg_id);
/* Wipes what is held (a timeout, or after take): RFC 7383 2.6. */
void gostx__ike_reasm_reset(gostx_ike_reasm *r);
/* Offers a received fragment message. GOSTX_OK: stored (*complete set when
 * all are there). Else it is dropped and the set goes on as before:
 * GOSTX_EFORMAT (malformed, numbers refused by gostx__ike_skf_read,
 * another Message ID, exchange or flags, Total Fragments below the set's),
 * GOSTX_ESTATE (this Fragment Number and Total Fragments already held: a
 * replay or a retransmission, 2.6),
 * GOSTX_ELEN (Total Fragments above GOSTX_IKE_FRAG_MAX, or no room left),
 * GOSTX_EAUTH (the ICV). A valid fragment with a larger Total Fragments
 * (a sender's smaller threshold, 2.5.2) starts the set over with it. */
int gostx__ike_reasm_add(gostx_ike_reasm *r, const gostx_ike_sk *sk, const uint8_t *msg,
                         size_t len, int *complete);
/* The whole message once complete: the header (next SK, length of the
 * unfragmented message), the inside's first type and the inside in order
 * into out (cap). GOSTX_ESTATE while incomplete. The set is reset after. */
int gostx__ike_reasm_take(gostx_ike_reasm *r, gostx_ike_hdr *h, uint8_t *inner_first,
                          uint8_t *out, size_t cap, size_t *out_len);


/* ---- outside an IKE SA (outside.c, RFC 7296 1.5 and 2.21.4) ---- */
enum { GOSTX_IKE_HINT_IKE_SPI = 1, GOSTX_IKE_HINT_ESP_SPI = 2 };
/* msg came for an IKE SA not known here: when it is an encrypted request
 * (IKE_AUTH, CREATE_CHILD_SA, INFORMATIONAL), its unprotected answer, an
 * INVALID_IKE_SPI notify under the same SPIs, exchange and Message ID with
 * the Response flag, into out: returns 1. 0: not to be answered (a
 * response, IKE_SA_INIT, unprotected or unreadable). The caller limits
 * how many it sends (2.21.4). */
int gostx__ike_invalid_ike_spi(const uint8_t *msg, size_t len, uint8_t *out, size_t cap,
                               size_t *out_len);
/* The unprotected INFORMATIONAL that tells the peer its ESP under spi
 * came to no SA here (1.5: zero IKE SPIs, never answered). */
int gostx__ike_invalid_spi(uint32_t spi, uint8_t *out, size_t cap, size_t *out_len);
/* An unprotected message from the peer read as a hint (2.21.4: it must
 * change no SA; it may start a check): GOSTX_IKE_HINT_IKE_SPI for a
 * response with N(INVALID_IKE_SPI) (*h its SPIs), GOSTX_IKE_HINT_ESP_SPI
 * for an INFORMATIONAL request with N(INVALID_SPI) (*esp_spi the SPI it
 * names); 0 for anything else. */
int gostx__ike_outside_hint(const uint8_t *msg, size_t len, gostx_ike_hdr *h, uint32_t *esp_spi);

#endif
