/* lib/tls's record interface: one direction's record protection behind one
 * set of calls, whichever version protects it (as BearSSL's record classes):
 * the TLS 1.3 instance (record.c: MGM, RFC 8446 5.2 / RFC 9367) and the
 * TLS 1.2 one (tls12_record.c: MAC-then-encrypt, RFC 9189). The connection
 * (io.c, conn.c) seals, opens and sizes through it and never asks which.
 * Internal. */
#ifndef GOSTX_TLS_REC_H
#define GOSTX_TLS_REC_H

#include "tls12_internal.h"

/* Either version's state of one direction. */
typedef union gostx__tls_rec_state {
  gostx__tls_record r13;
  gostx__tls12_record r12;
} gostx__tls_rec_state;

typedef struct gostx__tls_rec_class {
  /* One record of type and len content bytes sealed into out (cap
   * bytes): header included, *got bytes. */
  int (*seal)(gostx__tls_rec_state *s, uint8_t type, const uint8_t *in, size_t len, uint8_t *out,
              size_t cap, size_t *got);
  /* One record (header included) opened into out: content and *type. The
   * refusals are each version's (record.c, tls12_record.c). */
  int (*open)(gostx__tls_rec_state *s, const uint8_t *rec, size_t rec_len, uint8_t *out,
              size_t cap, size_t *got, uint8_t *type);
  /* The bytes a sealed record of len content bytes takes. */
  size_t (*sealed_len)(const gostx__tls_rec_state *s, size_t len);
  /* The last sequence number this key protects (SNMAX), and whether that
   * one was processed. */
  uint64_t (*key_limit)(const gostx__tls_rec_state *s);
  int (*spent)(const gostx__tls_rec_state *s);
  uint64_t (*seq)(const gostx__tls_rec_state *s); /* the next record's */
  void (*clear)(gostx__tls_rec_state *s);
  /* The key changes by KeyUpdate at its limit (TLS 1.3); without (TLS
   * 1.2) seal and open refuse past it. The version's reading of records
   * (headers, what each type may be) is the connection's: conn.h's
   * gostx__tls_reader. */
  int key_update;
} gostx__tls_rec_class;

extern const gostx__tls_rec_class gostx__tls13_rec_class; /* record.c */
extern const gostx__tls_rec_class gostx__tls12_rec_class; /* tls12_record.c */

/* One direction: its class (NULL before its keys) and state. */
typedef struct gostx__tls_rec {
  const gostx__tls_rec_class *cls;
  gostx__tls_rec_state s;
} gostx__tls_rec;

/* Wipes r's state (either version's) and forgets its class. */
static inline void gostx__tls_rec_clear(gostx__tls_rec *r) {
  if (r->cls) r->cls->clear(&r->s);
  r->cls = NULL;
}

#endif
