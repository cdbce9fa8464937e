/* The CA database of `gostx ca`, in openssl ca's index.txt format, for
 * every command that reads or writes it (gostx ca; an OCSP responder).
 * One line per certificate, six tab-separated fields:
 *   status    V (valid), R (revoked) or E (expired)
 *   expiry    YYMMDDHHMMSSZ (YYYYMMDDHHMMSSZ from 2050), the notAfter
 *   revoked   empty, or the revocation time [,reason[,detail]] (openssl's
 *             names: keyTime,TIME and CAkeyTime,TIME are keyCompromise and
 *             CACompromise with TIME the invalidityDate, GeneralizedTime;
 *             holdInstruction,OID is certificateHold)
 *   serial    hex, upper case, an even number of digits
 *   file      "unknown"
 *   subject   openssl's one-line form, /C=RU/O=Org/CN=name
 * Lines read are written back byte for byte; a line whose revocation is
 * changed keeps its other fields as they were. Writes are atomic (a temporary file renamed over the index) and a lock
 * (flock on INDEX.lock) keeps two writers apart: lock, read, change,
 * write, free. Errors are printed (cli_err) naming the file and line. */
#ifndef GOSTX_CLI_COMMON_CA_INDEX_H
#define GOSTX_CLI_COMMON_CA_INDEX_H

#include "cli.h"

typedef struct ca_entry {
  char status;        /* 'V', 'R' or 'E' */
  int64_t expiry;     /* seconds since 1970 */
  int64_t revoked_at; /* -1 unless revoked */
  int reason;         /* gostx_x509_crl_reason; GOSTX_X509_REASON_NONE when none given */
  int64_t invalid_at; /* keyTime/CAkeyTime's compromise time (invalidityDate), -1 when none */
  char *raw;          /* the line as read, owned by the index; NULL for a line made here */
  int changed;        /* revoked here: written anew around raw's other fields */
  uint8_t serial[32]; /* big-endian, as the certificate's INTEGER content */
  size_t serial_len;
  char subject[512];
} ca_entry;

typedef struct ca_index {
  ca_entry *e;
  size_t n, cap;
  int lock_fd; /* -1 when not locked */
  uint32_t *slot; /* open-addressed hash of the serials: entry index + 1, 0 empty */
  size_t slots;   /* a power of two, at least twice n (0: none yet) */
} ca_index;

/* Takes INDEX.lock (waits for another writer): 0 or CLI_EXIT_FAIL. */
int ca_index_lock(const char *path, ca_index *x);
/* Reads path into x (a missing file: no entries, when missing_ok): 0, or
 * CLI_EXIT_FAIL (unreadable, or a line that is not the format, named). */
int ca_index_read(const char *path, int missing_ok, ca_index *x);
/* Writes x to path atomically: 0 or CLI_EXIT_FAIL. */
int ca_index_write(const char *path, const ca_index *x);
/* Frees the entries and lets the lock go. */
void ca_index_free(ca_index *x);
/* The entry of serial (big-endian, leading zeros ignored), or NULL: a
 * hash lookup. Changed only through ca_entry_revoke. */
ca_entry *ca_index_find(const ca_index *x, const uint8_t *serial, size_t len);
/* Appends e (the index takes e->raw): 0 or CLI_EXIT_FAIL (out of memory). */
int ca_index_add(ca_index *x, const ca_entry *e);
/* e becomes R at time at with reason, and invalidityDate invalid_at (-1:
 * none; else reason is keyCompromise or CACompromise, written as openssl's
 * keyTime/CAkeyTime). */
void ca_entry_revoke(ca_entry *e, int64_t at, int reason, int64_t invalid_at);

/* A Name (DER) in openssl's one-line form, into out[cap]. */
void ca_subject_text(const uint8_t *name, size_t len, char *out, size_t cap);
/* Times as the index writes them (out: 16 bytes) and reads them (0 or -1). */
void ca_time_text(int64_t t, char out[16]);
int ca_time_parse(const char *s, size_t n, int64_t *t);

#endif
