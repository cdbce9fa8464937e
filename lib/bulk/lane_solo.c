/* The one-stream call for a stream of a batch: where lanes do not apply
 * (a Kuznyechik implementation without multi-key kernels, OMAC's odd
 * cases), both engines and the modes fall back to it. Below the lane modes,
 * which call it; it calls only the public one-message API. */
#include "lanes.h"
#include "modes/modes_internal.h"

static size_t blk(const gostx_stream *s, gostx_batch_op op) {
  return gostx__op_gost89(op) ? 8 : ((const gostx_cipher *)s->key)->block_len;
}

int gostx__batch_solo(const struct gostx__bjob *j, gostx_stream *s) {
  const gostx_batch_params *p = j->p;
  const void *k = s->key;
  const size_t n = gostx__op_xts(j->op) ? 16 : blk(s, j->op);
  switch (j->op) {
    case GOSTX_BATCH_CBC_ENCRYPT:
      return gostx_cbc_encrypt(k, s->iv, gostx__iv_len_of(j, n), s->in, s->len, s->out);
    case GOSTX_BATCH_CBC_DECRYPT:
      return gostx_cbc_decrypt(k, s->iv, gostx__iv_len_of(j, n), s->in, s->len, s->out);
    case GOSTX_BATCH_CFB_ENCRYPT:
      return gostx_cfb_encrypt(k, s->iv, gostx__iv_len_of(j, n),n, s->in, s->len, s->out);
    case GOSTX_BATCH_CFB_DECRYPT:
      return gostx_cfb_decrypt(k, s->iv, gostx__iv_len_of(j, n),n, s->in, s->len, s->out);
    case GOSTX_BATCH_OFB:
      return gostx_ofb_crypt(k, s->iv, gostx__iv_len_of(j, n),n, s->in, s->len, s->out);
    case GOSTX_BATCH_CTR:
      return gostx_ctr_crypt(k, s->iv, n / 2, n, s->in, s->len, s->out);
    case GOSTX_BATCH_OMAC:
      return gostx_omac(k, s->in, s->len, s->tag, gostx__tag_len_of(j, n));
    case GOSTX_BATCH_OMAC_ACPKM:
      return gostx_omac_acpkm(k, p->section_len, p->master_section_len, s->in, s->len, s->tag,
                              gostx__tag_len_of(j, n));
    case GOSTX_BATCH_MGM_SEAL:
      return gostx_mgm_encrypt(k, s->iv, s->aad, s->aad_len, s->in, s->len,
                               s->out, s->tag, gostx__tag_len_of(j, n));
    case GOSTX_BATCH_MGM_OPEN:
      return gostx_mgm_decrypt(k, s->iv, s->aad, s->aad_len, s->in, s->len,
                               s->tag, gostx__tag_len_of(j, n), s->out);
    case GOSTX_BATCH_XTS_ENCRYPT: return gostx_xts_encrypt(k, s->iv, s->in, s->len, s->out);
    case GOSTX_BATCH_XTS_DECRYPT: return gostx_xts_decrypt(k, s->iv, s->in, s->len, s->out);
    case GOSTX_BATCH_GOST89_CFB_ENCRYPT:
    case GOSTX_BATCH_GOST89_CFB_DECRYPT:
      return gostx_gost89_cfb(k, s->iv, p->meshing, j->op == GOSTX_BATCH_GOST89_CFB_DECRYPT,
                              s->in, s->len, s->out);
    case GOSTX_BATCH_GOST89_CNT: return gostx_gost89_cnt(k, s->iv, p->meshing, s->in, s->len, s->out);
    case GOSTX_BATCH_GOST89_IMIT:
      return gostx_gost89_imit(k, s->iv, p->meshing, s->in, s->len, s->tag, gostx__tag_len_of(j, 8));
  }
  return GOSTX_EINVAL;
}
