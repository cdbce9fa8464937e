/* Runs a group's op through its lanes: the one switch from the op to the
 * mode that runs it (lane_modes.c, lane_aead.c). Above the modes, below the
 * two engines (streams.c, sector.c) that call it. */
#include "lanes.h"

void gostx__lanes_run(const struct gostx__bjob *j, struct gostx__lanes *L,
                      gostx_gost89_key *keys89, gostx_stream *const *S) {
  for (size_t k = 0; k < L->g; k++) S[k]->status = GOSTX_OK; /* MGM open may say otherwise */
  switch (j->op) {
    case GOSTX_BATCH_CTR: gostx__lanes_ctr(L, S); break;
    case GOSTX_BATCH_MGM_SEAL:
    case GOSTX_BATCH_MGM_OPEN: gostx__lanes_mgm(j, L, S); break;
    case GOSTX_BATCH_XTS_ENCRYPT:
    case GOSTX_BATCH_XTS_DECRYPT: gostx__lanes_xts(j, L, S); break;
    case GOSTX_BATCH_OMAC:
    case GOSTX_BATCH_OMAC_ACPKM: gostx__lanes_omac(j, L, S); break;
    case GOSTX_BATCH_GOST89_CFB_ENCRYPT:
    case GOSTX_BATCH_GOST89_CFB_DECRYPT:
    case GOSTX_BATCH_GOST89_CNT:
    case GOSTX_BATCH_GOST89_IMIT: gostx__lanes_gost89(j, L, keys89, S); break;
    default: gostx__lanes_chain(j, L, S); break;
  }
}
