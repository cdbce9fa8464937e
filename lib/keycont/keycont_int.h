/* What lib/keycont's readers (cryptopro.c, vipnet.c) share. Internal. */
#ifndef GOSTX_KEYCONT_INT_H
#define GOSTX_KEYCONT_INT_H

#include "gostx/keycont.h"

/* The key an algorithm OID and a parameter set OID name: GOST R 34.10-2001
 * (its DH OID too) or -2012 (256 or 512, their DH OIDs too), the curve, d's
 * size. GOSTX_EUNSUP, with why[128] said, for anything else. */
int gostx__keycont_alg(const char *alg, const char *ps, gostx_gost3410_curve *curve, size_t *len,
                       int *gost2001, char *why);

/* 1 when a[n] = b[n], compared in constant time: the answer on secret
 * bytes (an IMIT, a key's fingerprint) is public by design and leaves
 * through gostx__verdict, the one door for such answers. */
int gostx__keycont_same_ct(const uint8_t *a, const uint8_t *b, size_t n);

#endif
