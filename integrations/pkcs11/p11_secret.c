/* Secret-key mechanisms (p11.h): Kuznyechik, Magma and generic secret
 * keys made on the token (C_GenerateKey), HMAC-Streebog and OMAC
 * (C_Sign/C_Verify: the op machinery of p11_mech.c with the MAC in place
 * of the signature), encryption: ECB, CBC, CFB, OFB and CTR (GOST R
 * 34.13-2015), CTR-ACPKM
 * (R 1323565.1.017-2018), MGM (RFC 9058; parameters as PKCS#11 3.0's
 * CK_GCM_PARAMS: the nonce, the additional data, the tag length in bits;
 * the output is ciphertext || tag), and KExp15/KImp15 (C_WrapKey,
 * C_UnwrapKey). docs/PKCS11.md says where each parameter format is from. */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

int p11_is_mac(CK_MECHANISM_TYPE m) {
  return m == CKM_GOSTR3411_12_256_HMAC || m == CKM_GOSTR3411_12_512_HMAC ||
         m == CKM_KUZNYECHIK_MAC || m == CKM_MAGMA_MAC;
}

/* The secret key o for a use: its value, else why not. */
static CK_RV secret_value(const p11_obj *o, CK_ATTRIBUTE_TYPE use, const p11_attr **v) {
  if (p11_attr_ulong(o, CKA_CLASS, ~0UL) != CKO_SECRET_KEY)
    return CKR_KEY_TYPE_INCONSISTENT;
  if (!p11_attr_bool(o, use, 0))
    return CKR_KEY_FUNCTION_NOT_PERMITTED;
  *v = p11_attr_find(o, CKA_VALUE);
  return *v ? CKR_OK : CKR_KEY_HANDLE_INVALID;
}

/* A Kuznyechik or Magma key o of type kt as a cipher. */
static CK_RV cipher_key(const p11_obj *o, CK_ATTRIBUTE_TYPE use, CK_KEY_TYPE kt, gostx_cipher *c) {
  const p11_attr *v;
  CK_RV rv = secret_value(o, use, &v);
  if (rv != CKR_OK)
    return rv;
  if (p11_attr_ulong(o, CKA_KEY_TYPE, ~0UL) != kt || v->len != GOSTX_KEY_LEN)
    return CKR_KEY_TYPE_INCONSISTENT;
  gostx_alg alg = kt == CKK_MAGMA ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK;
  return gostx_cipher_init(c, alg, v->val) == 0 ? CKR_OK : CKR_GENERAL_ERROR;
}

/* HMAC-Streebog takes a generic secret; OMAC (GOST R 34.13-2015 5.6, the
 * full block: 16 bytes Kuznyechik, 8 Magma) a Kuznyechik or Magma key.
 * Neither has a parameter (as Rutoken's SDK samples call them). */
CK_RV p11_mac_init(p11_op *op, const p11_obj *o, const CK_MECHANISM *m, int is_sign) {
  const p11_attr *v;
  if (op->active)
    return CKR_OPERATION_ACTIVE;
  if (m->ulParameterLen)
    return CKR_MECHANISM_PARAM_INVALID;
  if (!p11_mech_allowed(o, m->mechanism))
    return CKR_MECHANISM_INVALID;
  CK_ATTRIBUTE_TYPE use = is_sign ? CKA_SIGN : CKA_VERIFY;
  CK_RV rv = secret_value(o, use, &v);
  if (rv != CKR_OK)
    return rv;
  p11_op_clear(op);
  if (m->mechanism == CKM_KUZNYECHIK_MAC || m->mechanism == CKM_MAGMA_MAC) {
    gostx_cipher c;
    rv = cipher_key(o, use, m->mechanism == CKM_MAGMA_MAC ? CKK_MAGMA : CKK_KUZNYECHIK, &c);
    if (rv == CKR_OK && gostx_omac_init(&op->omac_ctx, &c) != 0)
      rv = CKR_GENERAL_ERROR;
    op->len = gostx_cipher_block_len(&c);
    gostx_memzero(&c, sizeof c);
    if (rv != CKR_OK) {
      p11_op_clear(op);
      return rv;
    }
    op->omac = 1;
  } else {
    if (p11_attr_ulong(o, CKA_KEY_TYPE, ~0UL) != CKK_GENERIC_SECRET)
      return CKR_KEY_TYPE_INCONSISTENT;
    size_t len = m->mechanism == CKM_GOSTR3411_12_512_HMAC ? 64 : 32;
    if (gostx_hmac_init(&op->mac, len, v->val, v->len) != 0)
      return CKR_KEY_SIZE_RANGE;
    op->len = len;
  }
  op->mech = m->mechanism;
  op->hashing = 1; /* multi-part, like the hashing signatures */
  op->hmac = 1;
  op->active = 1;
  return CKR_OK;
}

void p11_mac_update(p11_op *op, const uint8_t *data, size_t len) {
  if (op->omac)
    gostx_omac_update(&op->omac_ctx, data, len);
  else
    gostx_hmac_update(&op->mac, data, len);
}

void p11_mac_final(p11_op *op, uint8_t *out) {
  if (op->omac)
    gostx_omac_final(&op->omac_ctx, out, op->len);
  else
    gostx_hmac_final(&op->mac, out);
}

void p11_cop_clear(p11_cop *op) {
  if (op->aad) {
    gostx_memzero(op->aad, op->aad_len);
    free(op->aad);
  }
  gostx_memzero(op, sizeof *op);
}

/* ---- C_GenerateKey ---- */
CK_RV C_GenerateKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                    CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount, CK_OBJECT_HANDLE_PTR phKey) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, pMechanism && phKey && P11_TEMPLATE_OK(pTemplate, ulCount), &rv);
  if (!s)
    return rv;
  if (pMechanism->ulParameterLen)
    return p11_leave(CKR_MECHANISM_PARAM_INVALID);
  CK_KEY_TYPE kt;
  CK_ULONG len = 32;
  switch (pMechanism->mechanism) {
  case CKM_KUZNYECHIK_KEY_GEN: kt = CKK_KUZNYECHIK; break;
  case CKM_MAGMA_KEY_GEN: kt = CKK_MAGMA; break;
  case CKM_GENERIC_SECRET_KEY_GEN: kt = CKK_GENERIC_SECRET; break;
  default: return p11_leave(CKR_MECHANISM_INVALID);
  }
  int token = 0;
  for (CK_ULONG i = 0; i < ulCount; i++) {
    const CK_ATTRIBUTE *a = &pTemplate[i];
    if (a->type == CKA_TOKEN && a->ulValueLen == 1 && a->pValue)
      token = *(CK_BBOOL *)a->pValue != 0;
    /* The generic key's length is the template's CKA_VALUE_LEN (which
     * only the module may store, so it is taken out here). */
    if (a->type == CKA_VALUE_LEN) {
      if (kt != CKK_GENERIC_SECRET || a->ulValueLen != sizeof(CK_ULONG) || !a->pValue)
        return p11_leave(CKR_ATTRIBUTE_VALUE_INVALID);
      memcpy(&len, a->pValue, sizeof len);
      if (len < 1 || len > 512)
        return p11_leave(CKR_ATTRIBUTE_VALUE_INVALID);
    }
  }
  if (token && !(s->flags & CKF_RW_SESSION))
    return p11_leave(CKR_SESSION_READ_ONLY);
  CK_ATTRIBUTE *t = malloc((ulCount ? ulCount : 1) * sizeof *t);
  if (!t)
    return p11_leave(CKR_HOST_MEMORY);
  CK_ULONG n = 0;
  for (CK_ULONG i = 0; i < ulCount; i++)
    if (pTemplate[i].type != CKA_VALUE_LEN)
      t[n++] = pTemplate[i];
  uint8_t key[512];
  if (gostx_random_bytes(key, len) != 0) {
    free(t);
    return p11_leave(CKR_DEVICE_ERROR);
  }
  CK_OBJECT_CLASS sc = CKO_SECRET_KEY;
  CK_BBOOL yes = CK_TRUE;
  CK_MECHANISM_TYPE mt = pMechanism->mechanism;
  CK_BBOOL sens = CK_TRUE, ext = CK_FALSE;
  for (CK_ULONG i = 0; i < n; i++) {
    if (t[i].type == CKA_SENSITIVE && t[i].ulValueLen == 1 && t[i].pValue)
      sens = *(CK_BBOOL *)t[i].pValue != 0;
    if (t[i].type == CKA_EXTRACTABLE && t[i].ulValueLen == 1 && t[i].pValue)
      ext = *(CK_BBOOL *)t[i].pValue != 0;
  }
  CK_BBOOL never_ext = !ext;
  CK_ATTRIBUTE x[] = {
      {CKA_CLASS, &sc, sizeof sc},       {CKA_KEY_TYPE, &kt, sizeof kt},
      {CKA_VALUE, key, len},             {CKA_LOCAL, &yes, 1},
      {CKA_KEY_GEN_MECHANISM, &mt, sizeof mt}, {CKA_ALWAYS_SENSITIVE, &sens, 1},
      {CKA_NEVER_EXTRACTABLE, &never_ext, 1},
  };
  rv = p11_obj_create(s->tok, s->h, t, n, x, sizeof x / sizeof x[0], phKey);
  gostx_memzero(key, sizeof key);
  free(t);
  return p11_leave(rv);
}

/* ---- encryption ----
 * ECB, CBC, CFB, OFB, CTR and CTR-ACPKM run on a libgostx mode context
 * and take any split (C_EncryptUpdate); MGM is single-part (its tag covers
 * the whole). Without padding, ECB and CBC take whole blocks only.
 * CBC, CFB, OFB, CTR: the parameter is the IV alone, as GOST R 34.13-2015
 * sizes it (libgostx's mode context checks it): CBC and OFB m bytes, a
 * multiple of the block up to 64; CFB m bytes, a block up to 64; CTR half
 * a block. Segments are whole blocks (s = n), as in the standard's examples.
 * CTR-ACPKM's parameter, as Rutoken's SDK samples lay it out: a 4-byte
 * big-endian key-change period in bits (0: the key never changes, plain
 * CTR), then the IV, half a block (8 bytes Kuznyechik, 4 Magma). */
enum { M_PLAIN, M_ACPKM, M_MGM }; /* M_PLAIN: a mode context, the IV as parameter */

typedef struct {
  CK_MECHANISM_TYPE mech;
  CK_KEY_TYPE kt;
  int kind;
  gostx_mode mode;
} cipher_row;

/* Each mode for both ciphers */
#define BOTH(kuz, magma, kind, mode)                                                             \
  {kuz, CKK_KUZNYECHIK, kind, mode}, {magma, CKK_MAGMA, kind, mode}
static const cipher_row CIPHERS[] = {
    BOTH(CKM_KUZNYECHIK_ECB, CKM_MAGMA_ECB, M_PLAIN, GOSTX_MODE_ECB),
    BOTH(CKM_KUZNYECHIK_CBC, CKM_MAGMA_CBC, M_PLAIN, GOSTX_MODE_CBC),
    BOTH(CKM_KUZNYECHIK_CFB, CKM_MAGMA_CFB, M_PLAIN, GOSTX_MODE_CFB),
    BOTH(CKM_KUZNYECHIK_OFB, CKM_MAGMA_OFB, M_PLAIN, GOSTX_MODE_OFB),
    BOTH(CKM_KUZNYECHIK_CTR, CKM_MAGMA_CTR, M_PLAIN, GOSTX_MODE_CTR),
    BOTH(CKM_KUZNYECHIK_CTR_ACPKM, CKM_MAGMA_CTR_ACPKM, M_ACPKM, GOSTX_MODE_CTR_ACPKM),
    BOTH(CKM_KUZNYECHIK_MGM, CKM_MAGMA_MGM, M_MGM, 0),
};
#undef BOTH

static const cipher_row *cipher_of(CK_MECHANISM_TYPE m) {
  for (size_t i = 0; i < sizeof CIPHERS / sizeof CIPHERS[0]; i++)
    if (CIPHERS[i].mech == m)
      return &CIPHERS[i];
  return NULL;
}

static int is_mgm(CK_MECHANISM_TYPE m) { return cipher_of(m)->kind == M_MGM; }

/* MGM's CK_GCM_PARAMS into op (n: the block length). */
static CK_RV mgm_params(p11_cop *op, const CK_MECHANISM *m, size_t n) {
  const CK_GCM_PARAMS *p = m->pParameter;
  if (!p || m->ulParameterLen != sizeof *p || !p->pIv || p->ulIvLen != n || (p->pIv[0] & 0x80) ||
      (p->ulAADLen && !p->pAAD) || p->ulTagBits % 8 || p->ulTagBits < 32 || p->ulTagBits > 8 * n)
    return CKR_MECHANISM_PARAM_INVALID;
  memcpy(op->nonce, p->pIv, n);
  op->tag_len = p->ulTagBits / 8;
  if (p->ulAADLen && !(op->aad = malloc(p->ulAADLen)))
    return CKR_HOST_MEMORY;
  if (p->ulAADLen)
    memcpy(op->aad, p->pAAD, p->ulAADLen);
  op->aad_len = p->ulAADLen;
  return CKR_OK;
}

/* CTR-ACPKM's parameter into op's mode context. */
static CK_RV ctr_params(p11_cop *op, const CK_MECHANISM *m, size_t n, int dec) {
  const uint8_t *p = m->pParameter;
  if (!p || m->ulParameterLen != 4 + n / 2)
    return CKR_MECHANISM_PARAM_INVALID;
  unsigned long bits = (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | p[2] << 8 | p[3];
  if (bits % (8 * n))
    return CKR_MECHANISM_PARAM_INVALID; /* a section is whole blocks (RFC 8645 6.2.2) */
  gostx_mode mode = bits ? GOSTX_MODE_CTR_ACPKM : GOSTX_MODE_CTR;
  if (gostx_mode_init(&op->m, &op->c, mode, dec, p + 4, n / 2, 0, GOSTX_PAD_NONE, bits / 8) != 0)
    return CKR_MECHANISM_PARAM_INVALID;
  return CKR_OK;
}

static CK_RV crypt_init(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE hKey,
                        int enc) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, m != NULL, &rv);
  if (!s)
    return rv;
  p11_cop *op = enc ? &s->enc : &s->dec;
  if (op->active)
    return p11_leave(CKR_OPERATION_ACTIVE);
  const cipher_row *r = cipher_of(m->mechanism);
  if (!r)
    return p11_leave(CKR_MECHANISM_INVALID);
  p11_obj *o = p11_obj_for(s, hKey);
  if (!o)
    return p11_leave(CKR_KEY_HANDLE_INVALID);
  if (!p11_mech_allowed(o, m->mechanism))
    return p11_leave(CKR_MECHANISM_INVALID);
  p11_cop_clear(op);
  if ((rv = cipher_key(o, enc ? CKA_ENCRYPT : CKA_DECRYPT, r->kt, &op->c)) != CKR_OK)
    return p11_leave(rv);
  size_t n = gostx_cipher_block_len(&op->c);
  if (r->kind == M_MGM)
    rv = mgm_params(op, m, n);
  else if (r->kind == M_ACPKM)
    rv = ctr_params(op, m, n, !enc);
  /* the key is sound: the context refuses only an IV of the wrong length
   * (or one for ECB) */
  else if (gostx_mode_init(&op->m, &op->c, r->mode, !enc, m->pParameter, m->ulParameterLen, 0,
                           GOSTX_PAD_NONE, 0) != 0)
    rv = CKR_MECHANISM_PARAM_INVALID;
  if (rv != CKR_OK) {
    p11_cop_clear(op);
    return p11_leave(rv);
  }
  op->mech = m->mechanism;
  op->active = 1;
  return p11_leave(CKR_OK);
}

CK_RV C_EncryptInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey) {
  return crypt_init(hSession, pMechanism, hKey, 1);
}

CK_RV C_DecryptInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey) {
  return crypt_init(hSession, pMechanism, hKey, 0);
}

/* ECB and CBC: whole blocks; the other modes take any length. */
static int whole_blocks(CK_MECHANISM_TYPE m) {
  gostx_mode gm = cipher_of(m)->mode;
  return gm == GOSTX_MODE_ECB || gm == GOSTX_MODE_CBC;
}

/* The bytes an update of len (or, len = 0 and final, the final) gives:
 * ECB and CBC the whole blocks of what they hold and len, the others
 * every byte. */
static size_t stream_out_len(const p11_cop *op, size_t len) {
  if (!whole_blocks(op->mech))
    return len;
  size_t n = gostx_cipher_block_len(&op->c);
  return (op->pending + len) / n * n;
}

/* Runs len bytes through op's mode context into out. Without padding
 * the context writes exactly stream_out_len(op, len) bytes: ECB and CBC
 * the whole blocks they have, the others every byte. */
static int stream_run(p11_cop *op, const uint8_t *in, size_t len, uint8_t *out, size_t *done) {
  if (gostx_mode_update(&op->m, in, len, out, done) != 0)
    return -1;
  if (whole_blocks(op->mech)) /* ECB and CBC hold back a partial block */
    op->pending = (op->pending + len) % gostx_cipher_block_len(&op->c);
  return 0;
}

/* p11_begin, then the session's active encryption (enc) or decryption:
 * NULL with the lock released and *rv saying why. */
static p11_cop *cop_begin(CK_SESSION_HANDLE hSession, int enc, CK_RV *rv) {
  p11_session *s = p11_begin(hSession, rv);
  if (!s)
    return NULL;
  p11_cop *op = enc ? &s->enc : &s->dec;
  if (!op->active) {
    *rv = p11_leave(CKR_OPERATION_NOT_INITIALIZED);
    return NULL;
  }
  return op;
}

/* Single-part (single) or the Final (no input) of an operation. */
static CK_RV crypt(CK_SESSION_HANDLE hSession, int enc, int single, const uint8_t *in,
                   CK_ULONG in_len, uint8_t *out, CK_ULONG_PTR out_len) {
  CK_RV rv;
  p11_cop *op = cop_begin(hSession, enc, &rv);
  if (!op)
    return rv;
  int mgm = is_mgm(op->mech);
  size_t want;
  if (!out_len || (in_len && !in))
    rv = CKR_ARGUMENTS_BAD;
  else if (single && op->multi)
    rv = CKR_OPERATION_ACTIVE;
  else if (!single && mgm)
    rv = CKR_FUNCTION_NOT_SUPPORTED;
  else if (whole_blocks(op->mech) && stream_out_len(op, in_len) != op->pending + in_len)
    rv = enc ? CKR_DATA_LEN_RANGE : CKR_ENCRYPTED_DATA_LEN_RANGE;
  else if (mgm && !enc && in_len < op->tag_len)
    rv = CKR_ENCRYPTED_DATA_LEN_RANGE;
  if (rv != CKR_OK) {
    p11_cop_clear(op);
    return p11_leave(rv);
  }
  /* ECB's and CBC's final has nothing pending (checked above): in_len bytes out */
  want = mgm ? (enc ? in_len + op->tag_len : in_len - op->tag_len) : in_len;
  if (!out || *out_len < want) { /* a length query or a short buffer keep the op */
    rv = out ? CKR_BUFFER_TOO_SMALL : CKR_OK;
    *out_len = want;
    return p11_leave(rv);
  }
  int r;
  size_t done = 0, fin = 0;
  uint8_t tail[GOSTX_MAX_BLOCK_LEN * 2];
  if (!mgm) {
    r = in_len ? stream_run(op, in, in_len, out, &done) : 0;
    if (r == 0)
      r = gostx_mode_final(&op->m, tail, &fin); /* nothing is pending: fin is 0 */
    gostx_memzero(tail, sizeof tail);
  } else if (enc) {
    r = gostx_mgm_encrypt(&op->c, op->nonce, op->aad, op->aad_len, in, in_len, out, out + in_len,
                          op->tag_len);
  } else {
    r = gostx_mgm_decrypt(&op->c, op->nonce, op->aad, op->aad_len, in, want, in + want,
                          op->tag_len, out);
  }
  p11_cop_clear(op);
  if (r != 0)
    return p11_leave(r == GOSTX_EAUTH ? CKR_ENCRYPTED_DATA_INVALID
                     : r == GOSTX_ELEN ? (enc ? CKR_DATA_LEN_RANGE : CKR_ENCRYPTED_DATA_LEN_RANGE)
                                       : CKR_FUNCTION_FAILED);
  *out_len = want;
  return p11_leave(CKR_OK);
}

CK_RV C_Encrypt(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
                CK_BYTE_PTR pEncryptedData, CK_ULONG_PTR pulEncryptedDataLen) {
  return crypt(hSession, 1, 1, pData, ulDataLen, pEncryptedData, pulEncryptedDataLen);
}

CK_RV C_Decrypt(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedData, CK_ULONG ulEncryptedDataLen,
                CK_BYTE_PTR pData, CK_ULONG_PTR pulDataLen) {
  return crypt(hSession, 0, 1, pEncryptedData, ulEncryptedDataLen, pData, pulDataLen);
}

static CK_RV crypt_update(CK_SESSION_HANDLE hSession, int enc, const uint8_t *in, CK_ULONG in_len,
                          uint8_t *out, CK_ULONG_PTR out_len) {
  CK_RV rv;
  p11_cop *op = cop_begin(hSession, enc, &rv);
  if (!op)
    return rv;
  if (!out_len || (in_len && !in))
    rv = CKR_ARGUMENTS_BAD;
  else if (is_mgm(op->mech)) /* the tag covers the whole message: single-part */
    rv = CKR_FUNCTION_NOT_SUPPORTED;
  if (rv != CKR_OK) {
    p11_cop_clear(op);
    return p11_leave(rv);
  }
  size_t want = stream_out_len(op, in_len), done = 0;
  if (!out || *out_len < want) {
    *out_len = want;
    return p11_leave(out ? CKR_BUFFER_TOO_SMALL : CKR_OK);
  }
  op->multi = 1;
  if (in_len && stream_run(op, in, in_len, out, &done) != 0) {
    p11_cop_clear(op);
    return p11_leave(CKR_FUNCTION_FAILED);
  }
  *out_len = done;
  return p11_leave(CKR_OK);
}

CK_RV C_EncryptUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen,
                      CK_BYTE_PTR pEncryptedPart, CK_ULONG_PTR pulEncryptedPartLen) {
  return crypt_update(hSession, 1, pPart, ulPartLen, pEncryptedPart, pulEncryptedPartLen);
}

CK_RV C_EncryptFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastEncryptedPart,
                     CK_ULONG_PTR pulLastEncryptedPartLen) {
  return crypt(hSession, 1, 0, NULL, 0, pLastEncryptedPart, pulLastEncryptedPartLen);
}

CK_RV C_DecryptUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedPart,
                      CK_ULONG ulEncryptedPartLen, CK_BYTE_PTR pPart, CK_ULONG_PTR pulPartLen) {
  return crypt_update(hSession, 0, pEncryptedPart, ulEncryptedPartLen, pPart, pulPartLen);
}

CK_RV C_DecryptFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastPart, CK_ULONG_PTR pulLastPartLen) {
  return crypt(hSession, 0, 0, NULL, 0, pLastPart, pulLastPartLen);
}

/* ---- KExp15 / KImp15 (R 1323565.1.017-2018 8.2.1/8.2.2) ----
 * The wrapping key is a twin key (CKK_KUZNYECHIK_TWIN_KEY or
 * CKK_MAGMA_TWIN_KEY), 64 bytes: K_exp_mac || K_exp_enc, the order in
 * which a public PKCS#11 test of the recommendation's example lays out its
 * key (its output is the example's). The parameter is the IV, half a block
 * (8 bytes Kuznyechik, 4 Magma). The wrapped key: key || OMAC, encrypted,
 * its length + one block. */
static CK_RV kexp_init(p11_session *s, const CK_MECHANISM *m, CK_OBJECT_HANDLE hk,
                       CK_ATTRIBUTE_TYPE use, gostx_cipher *enc, gostx_cipher *mac) {
  CK_KEY_TYPE twin;
  gostx_alg alg;
  if (!m)
    return CKR_ARGUMENTS_BAD;
  if (m->mechanism == CKM_KUZNYECHIK_KEXP_15_WRAP)
    twin = CKK_KUZNYECHIK_TWIN_KEY, alg = GOSTX_ALG_KUZNYECHIK;
  else if (m->mechanism == CKM_MAGMA_KEXP_15_WRAP)
    twin = CKK_MAGMA_TWIN_KEY, alg = GOSTX_ALG_MAGMA;
  else
    return CKR_MECHANISM_INVALID;
  p11_obj *w = p11_obj_for(s, hk);
  if (!w)
    return use == CKA_WRAP ? CKR_WRAPPING_KEY_HANDLE_INVALID : CKR_UNWRAPPING_KEY_HANDLE_INVALID;
  if (!p11_mech_allowed(w, m->mechanism))
    return CKR_MECHANISM_INVALID;
  const p11_attr *v;
  CK_RV rv = secret_value(w, use, &v);
  if (rv == CKR_KEY_TYPE_INCONSISTENT || p11_attr_ulong(w, CKA_KEY_TYPE, ~0UL) != twin ||
      (rv == CKR_OK && v->len != 2 * GOSTX_KEY_LEN))
    return use == CKA_WRAP ? CKR_WRAPPING_KEY_TYPE_INCONSISTENT
                           : CKR_UNWRAPPING_KEY_TYPE_INCONSISTENT;
  if (rv != CKR_OK)
    return rv;
  if (gostx_cipher_init(mac, alg, v->val) != 0 ||
      gostx_cipher_init(enc, alg, v->val + GOSTX_KEY_LEN) != 0)
    return CKR_GENERAL_ERROR;
  if (!m->pParameter || m->ulParameterLen != gostx_cipher_block_len(enc) / 2)
    return CKR_MECHANISM_PARAM_INVALID;
  return CKR_OK;
}

CK_RV C_WrapKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                CK_OBJECT_HANDLE hWrappingKey, CK_OBJECT_HANDLE hKey, CK_BYTE_PTR pWrappedKey,
                CK_ULONG_PTR pulWrappedKeyLen) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, pulWrappedKeyLen != NULL, &rv);
  if (!s)
    return rv;
  gostx_cipher enc, mac;
  rv = kexp_init(s, pMechanism, hWrappingKey, CKA_WRAP, &enc, &mac);
  p11_obj *k = rv == CKR_OK ? p11_obj_for(s, hKey) : NULL;
  const p11_attr *v = k ? p11_attr_find(k, CKA_VALUE) : NULL;
  if (rv == CKR_OK && (!v || p11_attr_ulong(k, CKA_CLASS, ~0UL) != CKO_SECRET_KEY))
    rv = CKR_KEY_HANDLE_INVALID;
  /* Wrapping takes the value out of the token: the key must allow it. */
  else if (rv == CKR_OK && !p11_attr_bool(k, CKA_EXTRACTABLE, 0))
    rv = CKR_KEY_UNEXTRACTABLE;
  size_t want = v ? v->len + gostx_cipher_block_len(&enc) : 0, got = 0;
  if (rv == CKR_OK && (!pWrappedKey || *pulWrappedKeyLen < want)) {
    *pulWrappedKeyLen = want;
    rv = pWrappedKey ? CKR_BUFFER_TOO_SMALL : CKR_OK;
  } else if (rv == CKR_OK) {
    if (gostx_kexp15(&enc, &mac, pMechanism->pParameter, pMechanism->ulParameterLen, v->val,
                     v->len, pWrappedKey, &got) != 0)
      rv = CKR_FUNCTION_FAILED;
    else
      *pulWrappedKeyLen = got;
  }
  gostx_memzero(&enc, sizeof enc);
  gostx_memzero(&mac, sizeof mac);
  return p11_leave(rv);
}

CK_RV C_UnwrapKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                  CK_OBJECT_HANDLE hUnwrappingKey, CK_BYTE_PTR pWrappedKey,
                  CK_ULONG ulWrappedKeyLen, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulAttributeCount,
                  CK_OBJECT_HANDLE_PTR phKey) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, phKey && pWrappedKey && P11_TEMPLATE_OK(pTemplate, ulAttributeCount), &rv);
  if (!s)
    return rv;
  gostx_cipher enc, mac;
  uint8_t key[512];
  size_t klen = 0;
  rv = kexp_init(s, pMechanism, hUnwrappingKey, CKA_UNWRAP, &enc, &mac);
  size_t n = rv == CKR_OK ? gostx_cipher_block_len(&enc) : 0;
  if (rv == CKR_OK && (ulWrappedKeyLen <= n || ulWrappedKeyLen - n > sizeof key))
    rv = CKR_WRAPPED_KEY_LEN_RANGE;
  if (rv == CKR_OK) {
    int r = gostx_kimp15(&enc, &mac, pMechanism->pParameter, pMechanism->ulParameterLen,
                         pWrappedKey, ulWrappedKeyLen, key, &klen);
    if (r != 0) /* the OMAC does not match: a changed key or the wrong twin key */
      rv = r == GOSTX_EAUTH ? CKR_WRAPPED_KEY_INVALID : CKR_FUNCTION_FAILED;
  }
  if (rv == CKR_OK) {
    /* The template names the class and type; the value is the module's. */
    int token = 0;
    for (CK_ULONG i = 0; i < ulAttributeCount; i++) {
      if (pTemplate[i].type == CKA_VALUE || pTemplate[i].type == CKA_VALUE_LEN)
        rv = CKR_ATTRIBUTE_READ_ONLY;
      if (pTemplate[i].type == CKA_TOKEN && pTemplate[i].ulValueLen == 1 && pTemplate[i].pValue)
        token = *(CK_BBOOL *)pTemplate[i].pValue != 0;
    }
    if (rv == CKR_OK && token && !(s->flags & CKF_RW_SESSION))
      rv = CKR_SESSION_READ_ONLY;
    CK_BBOOL no = CK_FALSE;
    CK_ATTRIBUTE x[] = {{CKA_VALUE, key, klen}, {CKA_LOCAL, &no, 1},
                        {CKA_ALWAYS_SENSITIVE, &no, 1}, {CKA_NEVER_EXTRACTABLE, &no, 1}};
    if (rv == CKR_OK)
      rv = p11_obj_create(s->tok, s->h, pTemplate, ulAttributeCount, x, sizeof x / sizeof x[0],
                          phKey);
  }
  gostx_memzero(key, sizeof key);
  gostx_memzero(&enc, sizeof enc);
  gostx_memzero(&mac, sizeof mac);
  return p11_leave(rv);
}
