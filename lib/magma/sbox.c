/* GOST 28147-89 S-box parameter sets: the library's table, from the one
 * list in sbox_sets.h (values and sources there). Each row is packed into a
 * uint64_t, entry j in bits 4j..4j+3, so the round function looks entries up
 * with a shift instead of a secret-indexed memory load (see gostx__magma_t in
 * impl.h). */
#include "magma/impl.h"
#include "magma/sbox_sets.h"

_Static_assert(GOSTX_SBOX_TC26_Z == 0 && GOSTX_SBOX_CRYPTOPRO_A == 1 &&
                   GOSTX_SBOX_CRYPTOPRO_B == 2 && GOSTX_SBOX_CRYPTOPRO_C == 3 &&
                   GOSTX_SBOX_CRYPTOPRO_D == 4 && GOSTX_SBOX_TEST_3411_94 == 5 &&
                   GOSTX_SBOX_TEST_28147 == 6 && GOSTX_SBOX_CRYPTOPRO_3411_94 == 7 &&
                   GOSTX_SBOX_COUNT == 8,
               "sbox_sets.h numbers the sets as cipher.h does");

#define ROW(id, r0, r1, r2, r3, r4, r5, r6, r7) [id] = {r0, r1, r2, r3, r4, r5, r6, r7},
const uint64_t gostx__magma_sbox[GOSTX_SBOX_COUNT][8] = {GOSTX_MAGMA_SBOX_SETS(ROW)};
#undef ROW

