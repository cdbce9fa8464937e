/* gostx's PKCS#11 software token (libgostx-pkcs11.so): what its files
 * share. docs/PKCS11.md describes the token for users.
 *
 *   p11_module.c   the function lists, C_Initialize/Finalize, the lock
 *   p11_store.c    token directories: files, the lock file, PIN slots,
 *                  the master key, objects on disk
 *   p11_slot.c     slots and tokens: C_GetSlotList .. C_InitToken, PINs
 *   p11_session.c  sessions and login
 *   p11_object.c   objects and attributes, C_FindObjects*
 *   p11_mech.c     mechanisms: sign/verify, digest, derive, keygen, random
 *   p11_secret.c   secret keys: C_GenerateKey, HMAC-Streebog, OMAC, the
 *                  GOST R 34.13 modes, CTR-ACPKM, MGM, KExp15
 *   p11_unsupported.c  a "not supported" body for every other function
 *
 * Locking: one module lock (g_p11.lock) guards every table (slots, tokens,
 * sessions, objects). Long work runs without it on copies: PBKDF2 in
 * C_Login, the curve arithmetic in C_Sign/C_Verify/C_GenerateKeyPair.
 * Across processes the token directory's lock file (flock) orders the
 * writers; every file is replaced whole by rename. */
#ifndef GOSTX_P11_H
#define GOSTX_P11_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gostx.h>

#include "../../lib/pkcs11/cryptoki.h"

#define P11_EXPORT __attribute__((visibility("default")))

/* The wrong PIN count at which a PIN locks (persistent, per token). */
#define P11_MAX_PIN_TRIES 10
#define P11_MIN_PIN 4
#define P11_MAX_PIN 255
#define P11_MK_LEN 32

/* ---- the module lock (p11_module.c) ---- */
void p11_lock(void);
void p11_unlock(void);
int p11_initialized(void); /* under the lock */
/* Takes the lock; returns CKR_CRYPTOKI_NOT_INITIALIZED (lock released)
 * when C_Initialize was not called. */
CK_RV p11_enter(void);
/* Releases the lock and returns rv. */
CK_RV p11_leave(CK_RV rv);

/* Every function of the standard's table, exported under its own name
 * too (as other modules do); p11_module.c gives the ones no file defines
 * a weak "not supported" body. */
#define P11_DECLARE(name, args) P11_EXPORT CK_RV name args;
GOSTX_CK_FUNCTIONS_2_40(P11_DECLARE)
GOSTX_CK_FUNCTIONS_3_0(P11_DECLARE)
#undef P11_DECLARE

/* ---- a growable byte string ---- */
typedef struct p11_attr {
  CK_ATTRIBUTE_TYPE type;
  CK_ULONG len;
  uint8_t *val; /* NULL when len is 0 */
} p11_attr;

/* ---- tokens (p11_store.c, p11_slot.c) ---- */
typedef struct p11_token {
  char serial[17]; /* 16 hex digits: the folder's name */
  char dir[4096];
  char label[32];  /* blank padded */
  int user_pin_set;
  unsigned user_fails, so_fails;
  int user_in, so_in;      /* this process is logged in as */
  uint8_t mk[P11_MK_LEN];  /* while logged in */
  int removed;             /* its folder went away */
  uint64_t dir_id[2];      /* the folder's device and inode when found */
  uint64_t looked_ns;      /* when p11_token_moved last looked (monotonic) */
} p11_token;

typedef struct p11_slot {
  CK_SLOT_ID id;
  p11_token *tok; /* NULL: the free slot, where C_InitToken makes one */
} p11_slot;

/* The slot table: every token under the directory, one free slot last. */
p11_slot *p11_slot_get(CK_SLOT_ID id); /* NULL when invalid */
/* p11_enter, then the slot, then CKR_ARGUMENTS_BAD unless args_ok: NULL
 * with the lock released and *rv saying why. */
p11_slot *p11_slot_begin(CK_SLOT_ID id, int args_ok, CK_RV *rv);
CK_RV p11_slots_scan(void);
void p11_slots_free(void);

/* The folder holding the tokens: $GOSTX_PKCS11_DIR, else the default. */
CK_RV p11_base_dir(char *out, size_t cap);

/* On-disk state. The meta file holds the label, the counters and the two
 * PIN slots (the master key wrapped under each PIN). */
CK_RV p11_token_create(const char *base, const char *label, const uint8_t *so_pin, size_t so_len,
                       char serial[17]);
CK_RV p11_token_reinit(p11_token *t, const char *label, const uint8_t *so_pin, size_t so_len);
/* user: 1 CKU_USER, 0 CKU_SO. Checks the PIN, counts a wrong one, and on
 * success fills mk. Runs without the module lock. */
CK_RV p11_pin_check(const char *dir, int user, const uint8_t *pin, size_t pin_len,
                    uint8_t mk[P11_MK_LEN]);
/* Wraps mk under a new PIN for user (1) or SO (0). */
CK_RV p11_pin_set(const char *dir, int user, const uint8_t *pin, size_t pin_len,
                  const uint8_t mk[P11_MK_LEN]);
CK_RV p11_token_refresh(p11_token *t); /* re-reads label, flags, counters */
/* rv from the store as a session function answers it: a token folder
 * found gone marks the token removed and is CKR_DEVICE_REMOVED. */
CK_RV p11_gone(p11_token *t, CK_RV rv);
/* 0 when t's folder is still the one it was found as; else marks t
 * removed. It looks (one stat) at most once per P11_LOOK_NS: a stat costs
 * about 7% of a 256-bit signature, the clock read well under 1%. */
#define P11_LOOK_NS 1000000u
int p11_token_moved(p11_token *t);

/* Objects on disk: o-<16 hex>.obj, each written whole. */
CK_RV p11_obj_write(const p11_token *t, const char *name, int encrypt, const p11_attr *a, size_t n,
                    uint64_t stamp[3]);
CK_RV p11_obj_read(const p11_token *t, const char *name, int *encrypted, p11_attr **a, size_t *n,
                   uint64_t stamp[3]);
/* An object's body: the count, then (type: 8 bytes, length: 4, value)
 * per attribute, big-endian. encode with out NULL gives the length;
 * decode takes exactly that form (CKR_DEVICE_ERROR otherwise). */
size_t p11_attrs_encode(const p11_attr *a, size_t n, uint8_t *out);
CK_RV p11_attrs_decode(const uint8_t *p, size_t len, p11_attr **out, size_t *out_n);
CK_RV p11_obj_unlink(const p11_token *t, const char *name);
/* The object files of t: names[] (each 24 bytes), their stamps (inode,
 * mtime ns, size), under the lock file's shared lock. */
CK_RV p11_obj_list(const p11_token *t, char (**names)[24], uint64_t (**stamps)[3], size_t *n);

/* ---- objects (p11_object.c) ---- */
typedef struct p11_obj {
  CK_OBJECT_HANDLE h;
  p11_token *tok;
  CK_SESSION_HANDLE owner; /* session objects: the session; 0 for token objects */
  int token, priv;
  char name[24];        /* token objects: the file */
  uint64_t stamp[3];
  int seen;
  size_t n;
  p11_attr *a;
} p11_obj;

p11_obj *p11_obj_get(CK_OBJECT_HANDLE h);
p11_attr *p11_attr_find(const p11_obj *o, CK_ATTRIBUTE_TYPE type);
int p11_attr_bool(const p11_obj *o, CK_ATTRIBUTE_TYPE type, int dflt);
CK_ULONG p11_attr_ulong(const p11_obj *o, CK_ATTRIBUTE_TYPE type, CK_ULONG dflt);
void p11_attrs_free(p11_attr *a, size_t n);
/* Makes an object from a template plus what the module sets (extra, which
 * wins): checks the class's rules, stores a token object's file. */
CK_RV p11_obj_create(p11_token *t, CK_SESSION_HANDLE owner, const CK_ATTRIBUTE *tmpl, CK_ULONG n,
                     const CK_ATTRIBUTE *extra, CK_ULONG n_extra, CK_OBJECT_HANDLE *h);
/* Destroys h (its file too): undoes half of a failed key pair. */
void p11_obj_discard(CK_OBJECT_HANDLE h);
/* Drops objects: a session's (owner), a token's private ones (logout), all. */
void p11_objs_drop_session(CK_SESSION_HANDLE owner);
void p11_objs_drop_private(p11_token *t);
void p11_objs_free(void);
/* Loads token objects from disk (after login, at C_FindObjectsInit). */
CK_RV p11_objs_sync(p11_token *t);
/* Whether a session may see/use o: private objects need a logged-in user. */
int p11_obj_visible(const p11_obj *o, const p11_token *t);

/* ---- sessions (p11_session.c) ---- */
typedef struct p11_op {
  int active;
  CK_MECHANISM_TYPE mech;
  gostx_gost3410_curve curve;
  size_t len;        /* 32 or 64 */
  uint8_t key[128];  /* sign: d big-endian; verify: Q big-endian */
  int hashing;       /* the mechanism hashes the data with Streebog (or HMACs it) */
  gostx_streebog_ctx h;
  int hmac;          /* a MAC (len: its length), not a signature */
  int omac;          /* the MAC is OMAC (omac_ctx), else HMAC-Streebog (mac) */
  gostx_hmac_ctx mac;
  gostx_omac_ctx omac_ctx;
  int multi;         /* an Update was called */
} p11_op;

/* An encryption or decryption (p11_secret.c). MGM is single-part; ECB,
 * CBC, CFB, OFB and CTR(-ACPKM) run on a mode context (m) and may be
 * multi-part. */
typedef struct p11_cop {
  int active;
  int multi; /* an Update was called */
  CK_MECHANISM_TYPE mech;
  gostx_cipher c;
  gostx_mode_ctx m;
  size_t pending; /* ECB, CBC: bytes held back in m for a whole block */
  uint8_t nonce[16];
  uint8_t *aad; /* MGM's additional data, a copy */
  size_t aad_len, tag_len;
} p11_cop;

typedef struct p11_session {
  CK_SESSION_HANDLE h;
  CK_SLOT_ID slot;
  p11_token *tok;
  CK_FLAGS flags;
  CK_OBJECT_HANDLE *found;
  size_t n_found, pos;
  int finding;
  p11_op sign, verify, digest;
  p11_cop enc, dec;
} p11_session;

/* Under the lock: the session, or NULL (then *rv says why). */
p11_session *p11_session_get(CK_SESSION_HANDLE h, CK_RV *rv);
/* p11_enter, then the session: NULL with the lock released and *rv
 * saying why, else the session with the lock held. */
p11_session *p11_begin(CK_SESSION_HANDLE h, CK_RV *rv);
/* p11_begin, then CKR_ARGUMENTS_BAD (the lock released) unless args_ok:
 * a bad session is reported before bad arguments. */
p11_session *p11_begin_args(CK_SESSION_HANDLE h, int args_ok, CK_RV *rv);
/* A template of n attributes may be NULL only when n is 0. */
#define P11_TEMPLATE_OK(t, n) ((n) == 0 || (t) != NULL)
/* The object h if the session's token may use it, else NULL. */
p11_obj *p11_obj_for(const p11_session *s, CK_OBJECT_HANDLE h);
void p11_sessions_free(void);
/* The session count and read/write count on t. */
void p11_session_count(const p11_token *t, CK_ULONG *all, CK_ULONG *rw);
int p11_token_has_sessions(const p11_token *t);
void p11_op_clear(p11_op *op);

/* ---- secret keys (p11_secret.c) ---- */
/* Whether m is a MAC mechanism (HMAC-Streebog, Kuznyechik/Magma OMAC);
 * p11_mac_init sets op up for it with the secret key o (CKA_SIGN or
 * CKA_VERIFY as is_sign): 0 or a CKR. update/final feed and end it (out:
 * op->len bytes). */
int p11_is_mac(CK_MECHANISM_TYPE m);
CK_RV p11_mac_init(p11_op *op, const p11_obj *o, const CK_MECHANISM *m, int is_sign);
void p11_mac_update(p11_op *op, const uint8_t *data, size_t len);
void p11_mac_final(p11_op *op, uint8_t *out);
/* Whether CKA_ALLOWED_MECHANISMS of o, when it has one, lists m. */
int p11_mech_allowed(const p11_obj *o, CK_MECHANISM_TYPE m);
void p11_cop_clear(p11_cop *op);

/* ---- mechanisms (p11_mech.c) ---- */
CK_RV p11_mech_list(CK_MECHANISM_TYPE *out, CK_ULONG *count);
CK_RV p11_mech_info(CK_MECHANISM_TYPE type, CK_MECHANISM_INFO *info);

/* ---- GOST key helpers (p11_object.c) ---- */
/* The curve named by a DER OID (CKA_GOSTR3410_PARAMS), with its size. */
int p11_curve_from_der(const uint8_t *der, size_t len, gostx_gost3410_curve *curve);
/* The DER OID of a curve, of Streebog-256/512. */
CK_RV p11_curve_der(gostx_gost3410_curve curve, uint8_t *out, size_t cap, size_t *len);
size_t p11_streebog_der(size_t digest_len, const uint8_t **der);
/* Reverses n bytes (the standard's little-endian <-> libgostx's big-endian). */
void p11_reverse(uint8_t *out, const uint8_t *in, size_t n);
/* The curve of a GOST key object, and whether its type matches: 0 or a CKR. */
CK_RV p11_key_curve(const p11_obj *o, CK_OBJECT_CLASS want, gostx_gost3410_curve *curve,
                    size_t *len);

/* Copies a padded string into a PKCS#11 blank-padded field. */
void p11_pad(CK_UTF8CHAR *dst, size_t cap, const char *src);

#endif
