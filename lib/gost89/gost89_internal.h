/* GOST 28147-89 internals beyond the public calls (lib/gost89/gost89.c).
 * Not installed. */
#ifndef GOSTX_GOST89_INTERNAL_H
#define GOSTX_GOST89_INTERNAL_H

#include "internal.h"

/* GOST 28147-89 pieces the stream batches share (lib/gost89/gost89.c; no
 * kernel needs them, so they are not in lib/magma/impl.h): the
 * CryptoPro key meshing constant C (RFC 4357 2.3.2: K' = D_K(C)) and one
 * CNT counter step (N3 += C2, N4 += C1 mod 2^32 - 1). */
#define GOSTX__GOST89_MESH_PERIOD 1024
extern const uint8_t gostx__gost89_mesh_c[32];
void gostx__gost89_cnt_step(uint8_t reg[8]);

#endif
