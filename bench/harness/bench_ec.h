/* GOST R 34.10-2012 material and operations as bench jobs, for the three
 * programs that time them: bench/gost3410_speed.c, gostx bench --gost3410
 * (cli/bench/bench_gost3410.c) and bench/peers/gost3410_peers.c. Header
 * only: the harness library itself needs no libgostx. VKO stays with each
 * program (their output lengths differ). */
#ifndef GOSTX_BENCH_EC_H
#define GOSTX_BENCH_EC_H

#include <string.h>

#include "gostx.h"

typedef struct gostx_bench_ec {
  gostx_gost3410_curve curve;
  size_t len;                 /* the private key's bytes */
  uint8_t priv[64], pub[128]; /* a key pair */
  uint8_t peer[128];          /* another public key, for VKO */
  uint8_t digest[64], sig[128], ukm[8], out[64];
} gostx_bench_ec;

/* A new key pair, thrown away (a, a gostx_bench_ec, gives the curve). */
static inline int gostx_bench_ec_keygen(void *a) {
  gostx_bench_ec *e = a;
  uint8_t d[64], q[128];
  int rc = gostx_gost3410_keygen(e->curve, d, e->len, q, 2 * e->len);
  gostx_memzero(d, sizeof d);
  return rc;
}
/* The digest signed into sig. */
static inline int gostx_bench_ec_sign(void *a) {
  gostx_bench_ec *e = a;
  return gostx_gost3410_sign(e->curve, e->priv, e->len, e->digest, e->len, e->sig, 2 * e->len);
}
/* sig checked. */
static inline int gostx_bench_ec_verify(void *a) {
  gostx_bench_ec *e = a;
  return gostx_gost3410_verify(e->curve, e->pub, 2 * e->len, e->digest, e->len, e->sig,
                               2 * e->len);
}

/* e on curve: a key pair, a peer's public key, a random digest and UKM,
 * and the digest signed. */
static inline int gostx_bench_ec_setup(gostx_bench_ec *e, gostx_gost3410_curve curve) {
  uint8_t peer_priv[64];
  memset(e, 0, sizeof *e);
  e->curve = curve;
  e->len = gostx_gost3410_size(curve);
  int rc = gostx_gost3410_keygen(curve, e->priv, e->len, e->pub, 2 * e->len);
  if (!rc) rc = gostx_gost3410_keygen(curve, peer_priv, e->len, e->peer, 2 * e->len);
  if (!rc) rc = gostx_random_bytes(e->digest, e->len);
  if (!rc) rc = gostx_random_bytes(e->ukm, sizeof e->ukm);
  if (!rc) rc = gostx_bench_ec_sign(e);
  gostx_memzero(peer_priv, sizeof peer_priv);
  return rc;
}

#endif
