/* Secret-key mechanisms (p11.h): Kuznyechik, Magma and generic secret
 * keys made on the token (C_GenerateKey), HMAC-Streebog (C_Sign/C_Verify:
 * the op machinery of p11_mech.c with the MAC in place of the signature),
 * and single-part encryption: ECB (GOST R 34.13-2015) and MGM (RFC 9058;
 * parameters as PKCS#11 3.0's CK_GCM_PARAMS: the nonce, the additional
 * data, the tag length in bits; the output is ciphertext || tag). */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

int p11_is_hmac(CK_MECHANISM_TYPE m) {
  return m == CKM_GOSTR3411_12_256_HMAC || m == CKM_GOSTR3411_12_512_HMAC;
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

CK_RV p11_hmac_init(p11_op *op, const p11_obj *o, const CK_MECHANISM *m, int is_sign) {
  const p11_attr *v;
  if (op->active)
    return CKR_OPERATION_ACTIVE;
  if (m->ulParameterLen)
    return CKR_MECHANISM_PARAM_INVALID;
  CK_RV rv = secret_value(o, is_sign ? CKA_SIGN : CKA_VERIFY, &v);
  if (rv != CKR_OK)
    return rv;
  if (p11_attr_ulong(o, CKA_KEY_TYPE, ~0UL) != CKK_GENERIC_SECRET)
    return CKR_KEY_TYPE_INCONSISTENT;
  size_t len = m->mechanism == CKM_GOSTR3411_12_512_HMAC ? 64 : 32;
  p11_op_clear(op);
  if (gostx_hmac_init(&op->mac, len, v->val, v->len) != 0)
    return CKR_KEY_SIZE_RANGE;
  op->mech = m->mechanism;
  op->len = len;
  op->hashing = 1; /* multi-part, like the hashing signatures */
  op->hmac = 1;
  op->active = 1;
  return CKR_OK;
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
  p11_session *s = p11_begin(hSession, &rv);
  if (!s)
    return rv;
  if (!pMechanism || !phKey || (ulCount && !pTemplate))
    return p11_leave(CKR_ARGUMENTS_BAD);
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

/* ---- single-part encryption ---- */
static int cipher_of(CK_MECHANISM_TYPE m, CK_KEY_TYPE *kt, gostx_alg *alg, int *mgm) {
  switch (m) {
  case CKM_KUZNYECHIK_ECB: *kt = CKK_KUZNYECHIK, *alg = GOSTX_ALG_KUZNYECHIK, *mgm = 0; return 0;
  case CKM_MAGMA_ECB: *kt = CKK_MAGMA, *alg = GOSTX_ALG_MAGMA, *mgm = 0; return 0;
  case CKM_KUZNYECHIK_MGM: *kt = CKK_KUZNYECHIK, *alg = GOSTX_ALG_KUZNYECHIK, *mgm = 1; return 0;
  case CKM_MAGMA_MGM: *kt = CKK_MAGMA, *alg = GOSTX_ALG_MAGMA, *mgm = 1; return 0;
  default: return -1;
  }
}

static CK_RV crypt_init(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE hKey,
                        int enc) {
  CK_RV rv;
  p11_session *s = p11_begin(hSession, &rv);
  if (!s)
    return rv;
  p11_cop *op = enc ? &s->enc : &s->dec;
  if (!m)
    return p11_leave(CKR_ARGUMENTS_BAD);
  if (op->active)
    return p11_leave(CKR_OPERATION_ACTIVE);
  CK_KEY_TYPE kt;
  gostx_alg alg;
  int mgm;
  if (cipher_of(m->mechanism, &kt, &alg, &mgm) != 0)
    return p11_leave(CKR_MECHANISM_INVALID);
  p11_obj *o = p11_obj_get(hKey);
  if (!o || !p11_obj_visible(o, s->tok))
    return p11_leave(CKR_KEY_HANDLE_INVALID);
  const p11_attr *v;
  if ((rv = secret_value(o, enc ? CKA_ENCRYPT : CKA_DECRYPT, &v)) != CKR_OK)
    return p11_leave(rv);
  if (p11_attr_ulong(o, CKA_KEY_TYPE, ~0UL) != kt || v->len != GOSTX_KEY_LEN)
    return p11_leave(CKR_KEY_TYPE_INCONSISTENT);
  p11_cop_clear(op);
  if (gostx_cipher_init(&op->c, alg, v->val) != 0)
    return p11_leave(CKR_GENERAL_ERROR);
  size_t n = gostx_cipher_block_len(&op->c);
  if (mgm) {
    const CK_GCM_PARAMS *p = m->pParameter;
    if (!p || m->ulParameterLen != sizeof *p || !p->pIv || p->ulIvLen != n || (p->pIv[0] & 0x80) ||
        (p->ulAADLen && !p->pAAD) || p->ulTagBits % 8 || p->ulTagBits < 32 || p->ulTagBits > 8 * n) {
      p11_cop_clear(op);
      return p11_leave(CKR_MECHANISM_PARAM_INVALID);
    }
    memcpy(op->nonce, p->pIv, n);
    op->tag_len = p->ulTagBits / 8;
    if (p->ulAADLen && !(op->aad = malloc(p->ulAADLen))) {
      p11_cop_clear(op);
      return p11_leave(CKR_HOST_MEMORY);
    }
    if (p->ulAADLen)
      memcpy(op->aad, p->pAAD, p->ulAADLen);
    op->aad_len = p->ulAADLen;
  } else if (m->ulParameterLen) {
    p11_cop_clear(op);
    return p11_leave(CKR_MECHANISM_PARAM_INVALID);
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

static CK_RV crypt(CK_SESSION_HANDLE hSession, int enc, const uint8_t *in, CK_ULONG in_len,
                   uint8_t *out, CK_ULONG_PTR out_len) {
  CK_RV rv;
  p11_session *s = p11_begin(hSession, &rv);
  if (!s)
    return rv;
  p11_cop *op = enc ? &s->enc : &s->dec;
  if (!op->active)
    return p11_leave(CKR_OPERATION_NOT_INITIALIZED);
  int mgm = op->mech == CKM_KUZNYECHIK_MGM || op->mech == CKM_MAGMA_MGM;
  size_t n = gostx_cipher_block_len(&op->c), want;
  if (!out_len || (in_len && !in))
    rv = CKR_ARGUMENTS_BAD;
  else if (!mgm && in_len % n)
    rv = enc ? CKR_DATA_LEN_RANGE : CKR_ENCRYPTED_DATA_LEN_RANGE;
  else if (mgm && !enc && in_len < op->tag_len)
    rv = CKR_ENCRYPTED_DATA_LEN_RANGE;
  if (rv != CKR_OK) {
    p11_cop_clear(op);
    return p11_leave(rv);
  }
  want = mgm ? (enc ? in_len + op->tag_len : in_len - op->tag_len) : in_len;
  if (!out || *out_len < want) { /* a length query or a short buffer keep the op */
    rv = out ? CKR_BUFFER_TOO_SMALL : CKR_OK;
    *out_len = want;
    return p11_leave(rv);
  }
  int r;
  if (!mgm)
    r = enc ? gostx_ecb_encrypt(&op->c, in, in_len, out) : gostx_ecb_decrypt(&op->c, in, in_len, out);
  else if (enc)
    r = gostx_mgm_encrypt(&op->c, op->nonce, op->aad, op->aad_len, in, in_len, out, out + in_len,
                          op->tag_len);
  else
    r = gostx_mgm_decrypt(&op->c, op->nonce, op->aad, op->aad_len, in, want, in + want,
                          op->tag_len, out);
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
  return crypt(hSession, 1, pData, ulDataLen, pEncryptedData, pulEncryptedDataLen);
}

CK_RV C_Decrypt(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedData, CK_ULONG ulEncryptedDataLen,
                CK_BYTE_PTR pData, CK_ULONG_PTR pulDataLen) {
  return crypt(hSession, 0, pEncryptedData, ulEncryptedDataLen, pData, pulDataLen);
}
