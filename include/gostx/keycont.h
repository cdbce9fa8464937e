/* gostx: private keys read out of other vendors' key containers
 * (docs/KEYS.md): CryptoPro CSP's and ViPNet CSP's. Part of the public API.
 *
 * CryptoPro CSP file containers: a folder (xxxxxxxx.000) of header.key,
 * name.key, primary.key, masks.key and, when the container keeps a reserve
 * copy, primary2.key and masks2.key. The caller reads the files (lib/ does
 * no file I/O here) and hands their bytes over; nothing is written back.
 * The steps (lib/keycont/cryptopro.c says where each fact was checked):
 *   header.key  SEQUENCE { content SEQUENCE { ..., the key's parameters
 *               (algorithm, curve, digest, flags), [5] the certificate
 *               (optional), [10] the first bytes of Q's x, little-endian },
 *               a 4-byte IMIT of content }
 *   masks.key   SEQUENCE { mask OCTET STRING, salt OCTET STRING, IMIT of
 *               salt under the mask }
 *   primary.key SEQUENCE { the masked key OCTET STRING }, encrypted (GOST
 *               28147-89 ECB) under a key derived from the PIN and the salt
 * d = k / mask mod q, k the decrypted key read little-endian. A secondary
 * key (gostx_cpro_read_key) is primary.key's second OCTET STRING, with its
 * parameters, certificate and fingerprint in header.key's [4], [6], [11]. The PIN is
 * right when Q's x begins with header.key's [10] bytes; then, when the
 * container holds a certificate, Q must be the certificate's key. */
#ifndef GOSTX_KEYCONT_H
#define GOSTX_KEYCONT_H

#include "gost3410.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The container's files, as bytes. primary2/masks2 may be NULL: they are
 * read as the reserve copy of the keys when header.key says the container
 * keeps one (kccaReservePrimary), else they are taken to hold a key that is
 * not read (has_second_key -1). name may be NULL (it only carries the
 * container's name). */
typedef struct gostx_cpro_files {
  const uint8_t *header, *name, *primary, *masks, *primary2, *masks2;
  size_t header_len, name_len, primary_len, masks_len, primary2_len, masks2_len;
} gostx_cpro_files;

/* Which file a refusal is about (gostx_keycont.file), and its name. */
typedef enum gostx_cpro_file {
  GOSTX_CPRO_NONE = 0,
  GOSTX_CPRO_HEADER,
  GOSTX_CPRO_NAME,
  GOSTX_CPRO_PRIMARY,
  GOSTX_CPRO_MASKS,
  GOSTX_CPRO_PRIMARY2,
  GOSTX_CPRO_MASKS2
} gostx_cpro_file;
GOSTX_API const char *gostx_cpro_file_name(gostx_cpro_file f); /* "header.key", ... */

/* Why a read was refused (beside the return code). */
typedef enum gostx_keycont_why {
  GOSTX_KEYCONT_OK = 0,
  GOSTX_KEYCONT_DAMAGED,       /* a file is malformed or fails its check value: .file */
  GOSTX_KEYCONT_WRONG_PIN,     /* the key decrypted under the PIN does not match the container */
  GOSTX_KEYCONT_UNSUPPORTED,   /* an algorithm, parameter set or layout not read here */
  GOSTX_KEYCONT_CERT_MISMATCH, /* the key is not the key of the container's certificate */
  GOSTX_KEYCONT_KEY_MISMATCH   /* the key is not the public key the container records (ViPNet's [1]) */
} gostx_keycont_why;

typedef enum gostx_keycont_usage {
  GOSTX_KEYCONT_USAGE_UNKNOWN = 0, /* the container does not say (ViPNet) */
  GOSTX_KEYCONT_EXCHANGE = 1, /* AT_KEYEXCHANGE: the key agreement and encryption key */
  GOSTX_KEYCONT_SIGNATURE = 2 /* AT_SIGNATURE */
} gostx_keycont_usage;

/* What a container held. key.d is secret: gostx_keycont_clear wipes it. */
typedef struct gostx_keycont {
  gostx_gost3410_key key;      /* d and Q; the curve's parameter set OID as the container names it */
  int gost2001;                /* the key is a GOST R 34.10-2001 key (same curve math as
                                * 2012-256; its key files and signatures name 2001's OIDs) */
  gostx_keycont_usage usage;   /* from the key's own flags */
  int exportable;              /* the container's "exportable" flag (informative: gostx reads
                                * the key either way; 0 for ViPNet, whose flag is not known) */
  int reserve_checked;         /* 1: primary2/masks2 give the same key; 0: not given;
                                * -1: the reserve copy is damaged or half of it missing
                                * (the key came from primary/masks, checked as always) */
  int key_index;               /* 0 the container's primary key, 1 its secondary key */
  int has_second_key;          /* 1: the container holds another key too (its usage in
                                * other_usage; gostx_cpro_read_key reads either);
                                * -1: it holds one in a form not read ([3], or
                                * primary2/masks2 without the reserve flag) */
  gostx_keycont_usage other_usage;
  const uint8_t *cert;         /* the certificate in header.key (points into it), or NULL */
  size_t cert_len;
  char name[128];              /* name.key's container name ("" when absent or unreadable) */
  /* on failure: */
  gostx_keycont_why why;
  gostx_cpro_file file;        /* the file a DAMAGED refusal is about */
  char detail[160];            /* one line for a person: what was wrong */
} gostx_keycont;

/* Reads a CryptoPro file container under the PIN (pin_len 0: no PIN; the
 * PIN's bytes as given: ASCII PINs are what CryptoPro's files are known to
 * take). 0 with *out filled; else the code and out->why, out->file,
 * out->detail: GOSTX_EFORMAT a damaged or malformed file (out->file),
 * GOSTX_EAUTH a wrong PIN (no check value exists apart from the key itself:
 * a primary.key damaged inside its ciphertext reads the same unless the
 * reserve copy tells them apart, which is tried), GOSTX_EUNSUP an algorithm
 * or layout not read here, GOSTX_EINVAL a key that is not the key of the
 * container's certificate (or invalid arguments). The work is the
 * container's KDF: 2000 hash iterations with a PIN, 2 without, per copy. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cpro_read(const gostx_cpro_files *files, const uint8_t *pin,
                                               size_t pin_len, gostx_keycont *out);
/* The same for the container's primary key (which 0) or secondary key
 * (which 1: header.key's [4] parameters, [6] certificate, [11] fingerprint,
 * primary.key's second OCTET STRING, under the same PIN-derived key and
 * mask; GOSTX_EINVAL, why UNSUPPORTED, when there is none).
 * gostx_cpro_read is which 0. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cpro_read_key(const gostx_cpro_files *files,
                                                   const uint8_t *pin, size_t pin_len, int which,
                                                   gostx_keycont *out);
/* ViPNet CSP file containers: one file (Infotecs\Containers\NAME), its
 * bytes handed over; nothing is written back. No standard describes them
 * and no container ViPNet CSP wrote was at hand: the layout and the steps
 * are those of one public description (lib/keycont/vipnet.c names it and
 * lists them; docs/KEYS.md), checked on containers built from it. What
 * makes that acceptable: the key is given only when its public key is the
 * one the entry records ([1]) and its certificate's ([0]), whichever are
 * there; an entry with neither is refused.
 *   file   type tag (ITCS, PKEY, _CCK, _LCK), version, header, entries
 *   entry  SEQUENCE { version, KeyInfo, DefenceKeyInfo, [0] certificate,
 *          [1] public key }, then the key block: the encrypted key (GOST
 *          28147-89 CFB under a key hashed from the PIN), its IMIT, the IV
 * The first entry's key is read (has_second_key -1 when there are more);
 * usage is GOSTX_KEYCONT_USAGE_UNKNOWN, name "" (the file's name is the
 * container's). 0 with *out filled; else GOSTX_EFORMAT a damaged file
 * (out->detail says where; file GOSTX_CPRO_NONE), GOSTX_EAUTH a wrong PIN
 * (the IMIT over the encrypted key and KeyInfo does not hold: damage there
 * reads the same), GOSTX_EUNSUP another type tag, version, algorithm, or an
 * entry with no public key or certificate, GOSTX_EINVAL a key that is not
 * the recorded public key (why KEY_MISMATCH) or its certificate's (why
 * CERT_MISMATCH), or invalid arguments. pin_len 0: no PIN; the PIN's bytes
 * are hashed as given, at most 1024 (the description's tool takes ASCII
 * PINs; how ViPNet encodes others is not known here). */
GOSTX_API GOSTX_MUST_CHECK int gostx_vipnet_read(const uint8_t *file, size_t len,
                                                 const uint8_t *pin, size_t pin_len,
                                                 gostx_keycont *out);
/* Wipes it (the private key included). */
GOSTX_API void gostx_keycont_clear(gostx_keycont *c);

#ifdef __cplusplus
}
#endif
#endif
