/* Mechanisms (p11.h): GOST R 34.10-2012 key pairs, signatures with and
 * without Streebog, Streebog digests, VKO derivation, random bytes.
 *
 * Formats, as the PKCS#11 GOST R 34.10-2001 mechanisms define them and
 * TC 26's extension keeps them for 2012: a public key's CKA_VALUE is
 * x || y, each little-endian; a private key's is d little-endian; a
 * signature is s || r, each big-endian; CKM_GOSTR3410(_512) signs the
 * digest as the hash function outputs it. libgostx takes big-endian
 * numbers and writes r || s: the conversions live here. */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

typedef struct {
  CK_MECHANISM_TYPE type;
  CK_ULONG min, max;
  CK_FLAGS flags;
} mech_row;

static const mech_row MECHS[] = {
    {CKM_GOSTR3410_KEY_PAIR_GEN, 256, 256, CKF_GENERATE_KEY_PAIR},
    {CKM_GOSTR3410_512_KEY_PAIR_GEN, 512, 512, CKF_GENERATE_KEY_PAIR},
    {CKM_GOSTR3410, 256, 256, CKF_SIGN | CKF_VERIFY},
    {CKM_GOSTR3410_512, 512, 512, CKF_SIGN | CKF_VERIFY},
    {CKM_GOSTR3410_WITH_GOSTR3411_12_256, 256, 256, CKF_SIGN | CKF_VERIFY},
    {CKM_GOSTR3410_WITH_GOSTR3411_12_512, 512, 512, CKF_SIGN | CKF_VERIFY},
    {CKM_GOSTR3411_12_256, 0, 0, CKF_DIGEST},
    {CKM_GOSTR3411_12_512, 0, 0, CKF_DIGEST},
    {CKM_GOSTR3410_12_DERIVE, 256, 512, CKF_DERIVE},
    {CKM_VKO_GOSTR3410_2012_512, 512, 512, CKF_DERIVE},
    {CKM_GOSTR3411_12_256_HMAC, 8, 4096, CKF_SIGN | CKF_VERIFY},
    {CKM_GOSTR3411_12_512_HMAC, 8, 4096, CKF_SIGN | CKF_VERIFY},
    {CKM_KUZNYECHIK_KEY_GEN, 32, 32, CKF_GENERATE},
    {CKM_MAGMA_KEY_GEN, 32, 32, CKF_GENERATE},
    {CKM_GENERIC_SECRET_KEY_GEN, 8, 4096, CKF_GENERATE},
    {CKM_KUZNYECHIK_ECB, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_MAGMA_ECB, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_KUZNYECHIK_CBC, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_MAGMA_CBC, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_KUZNYECHIK_CFB, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_MAGMA_CFB, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_KUZNYECHIK_OFB, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_MAGMA_OFB, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_KUZNYECHIK_CTR, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_MAGMA_CTR, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_KUZNYECHIK_MGM, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_MAGMA_MGM, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_KUZNYECHIK_CTR_ACPKM, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_MAGMA_CTR_ACPKM, 32, 32, CKF_ENCRYPT | CKF_DECRYPT},
    {CKM_KUZNYECHIK_MAC, 32, 32, CKF_SIGN | CKF_VERIFY},
    {CKM_MAGMA_MAC, 32, 32, CKF_SIGN | CKF_VERIFY},
    {CKM_KUZNYECHIK_KEXP_15_WRAP, 64, 64, CKF_WRAP | CKF_UNWRAP},
    {CKM_MAGMA_KEXP_15_WRAP, 64, 64, CKF_WRAP | CKF_UNWRAP},
};
enum { N_MECHS = sizeof MECHS / sizeof MECHS[0] };

CK_RV p11_mech_list(CK_MECHANISM_TYPE *out, CK_ULONG *count) {
  if (out && *count < N_MECHS) {
    *count = N_MECHS;
    return CKR_BUFFER_TOO_SMALL;
  }
  for (size_t i = 0; out && i < N_MECHS; i++)
    out[i] = MECHS[i].type;
  *count = N_MECHS;
  return CKR_OK;
}

CK_RV p11_mech_info(CK_MECHANISM_TYPE type, CK_MECHANISM_INFO *info) {
  for (size_t i = 0; i < N_MECHS; i++) {
    if (MECHS[i].type == type) {
      info->ulMinKeySize = MECHS[i].min;
      info->ulMaxKeySize = MECHS[i].max;
      info->flags = MECHS[i].flags;
      return CKR_OK;
    }
  }
  return CKR_MECHANISM_INVALID;
}

/* The key size a signing mechanism wants (32, 64) and whether it hashes. */
static int sign_mech(CK_MECHANISM_TYPE m, size_t *len, int *hashing) {
  switch (m) {
  case CKM_GOSTR3410: *len = 32, *hashing = 0; return 0;
  case CKM_GOSTR3410_512: *len = 64, *hashing = 0; return 0;
  case CKM_GOSTR3410_WITH_GOSTR3411_12_256: *len = 32, *hashing = 1; return 0;
  case CKM_GOSTR3410_WITH_GOSTR3411_12_512: *len = 64, *hashing = 1; return 0;
  default: return -1;
  }
}

/* Sets up op for a sign (is_sign) or verify with key hKey. */
static CK_RV op_init(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE hKey,
                     int is_sign) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, m != NULL, &rv);
  if (!s)
    return rv;
  p11_op *op = is_sign ? &s->sign : &s->verify;
  if (op->active)
    return p11_leave(CKR_OPERATION_ACTIVE);
  if (p11_is_mac(m->mechanism)) {
    p11_obj *k = p11_obj_for(s, hKey);
    if (!k)
      return p11_leave(CKR_KEY_HANDLE_INVALID);
    return p11_leave(p11_mac_init(op, k, m, is_sign));
  }
  size_t want;
  int hashing;
  if (sign_mech(m->mechanism, &want, &hashing) != 0)
    return p11_leave(CKR_MECHANISM_INVALID);
  /* The hashing mechanisms may name the hash's OID; no other parameter. */
  if (m->ulParameterLen && !hashing)
    return p11_leave(CKR_MECHANISM_PARAM_INVALID);
  p11_obj *o = p11_obj_for(s, hKey);
  if (!o)
    return p11_leave(CKR_KEY_HANDLE_INVALID);
  gostx_gost3410_curve curve;
  size_t len;
  if (!p11_mech_allowed(o, m->mechanism))
    return p11_leave(CKR_MECHANISM_INVALID);
  if ((rv = p11_key_curve(o, is_sign ? CKO_PRIVATE_KEY : CKO_PUBLIC_KEY, &curve, &len)) != CKR_OK)
    return p11_leave(rv);
  if (len != want)
    return p11_leave(CKR_KEY_TYPE_INCONSISTENT);
  if (!p11_attr_bool(o, is_sign ? CKA_SIGN : CKA_VERIFY, 0))
    return p11_leave(CKR_KEY_FUNCTION_NOT_PERMITTED);
  const p11_attr *v = p11_attr_find(o, CKA_VALUE);
  if (!v || v->len != (is_sign ? len : 2 * len))
    return p11_leave(CKR_KEY_HANDLE_INVALID);
  p11_op_clear(op);
  op->mech = m->mechanism;
  op->curve = curve;
  op->len = len;
  op->hashing = hashing;
  p11_reverse(op->key, v->val, len);
  if (!is_sign)
    p11_reverse(op->key + len, v->val + len, len);
  if (hashing && gostx_streebog_init(&op->h, len) != 0) {
    p11_op_clear(op);
    return p11_leave(CKR_GENERAL_ERROR);
  }
  op->active = 1;
  return p11_leave(CKR_OK);
}

CK_RV C_SignInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey) {
  return op_init(hSession, pMechanism, hKey, 1);
}

CK_RV C_VerifyInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                   CK_OBJECT_HANDLE hKey) {
  return op_init(hSession, pMechanism, hKey, 0);
}

/* p11_begin, then the session's active op (0 sign, 1 verify, 2 digest):
 * NULL with the lock released and *rv saying why. */
static p11_op *op_begin(CK_SESSION_HANDLE hSession, int which, CK_RV *rv) {
  p11_session *s = p11_begin(hSession, rv);
  if (!s)
    return NULL;
  p11_op *op = which == 0 ? &s->sign : which == 1 ? &s->verify : &s->digest;
  if (!op->active) {
    *rv = p11_leave(CKR_OPERATION_NOT_INITIALIZED);
    return NULL;
  }
  return op;
}

/* Feeds data to a hashing op (multi-part), under the lock. */
static CK_RV op_update(CK_SESSION_HANDLE hSession, int which, const uint8_t *data, CK_ULONG len) {
  CK_RV rv;
  p11_op *op = op_begin(hSession, which, &rv);
  if (!op)
    return rv;
  if (len && !data) {
    p11_op_clear(op);
    return p11_leave(CKR_ARGUMENTS_BAD);
  }
  if (!op->hashing) { /* the raw mechanisms are single-part */
    p11_op_clear(op);
    return p11_leave(CKR_FUNCTION_NOT_SUPPORTED);
  }
  op->multi = 1;
  if (op->hmac)
    p11_mac_update(op, data, len);
  else
    gostx_streebog_update(&op->h, data, len);
  return p11_leave(CKR_OK);
}

/* What opens a single-part call or a Final of a sign (0) or digest (2):
 * the checks and the length query. The op to finish, or NULL with the
 * lock released and *rv the answer (the op ends, except after a length
 * query or a short buffer, as the standard says). */
static p11_op *finish_begin(CK_SESSION_HANDLE hSession, int which, const uint8_t *data,
                            CK_ULONG data_len, int single, const uint8_t *out,
                            CK_ULONG_PTR out_len, CK_RV *rv) {
  p11_op *op = op_begin(hSession, which, rv);
  if (!op)
    return NULL;
  CK_RV bad = CKR_OK;
  if (!out_len || (single && data_len && !data))
    bad = CKR_ARGUMENTS_BAD;
  else if (single && op->multi)
    bad = CKR_OPERATION_ACTIVE;
  else if (!single && !op->hashing)
    bad = CKR_FUNCTION_NOT_SUPPORTED;
  else if (single && !op->hashing && data_len != op->len)
    bad = CKR_DATA_LEN_RANGE;
  if (bad != CKR_OK) {
    p11_op_clear(op);
    *rv = p11_leave(bad);
    return NULL;
  }
  CK_ULONG need = which == 0 && !op->hmac ? 2 * op->len : op->len;
  if (!out || *out_len < need) {
    *out_len = need;
    *rv = p11_leave(out ? CKR_BUFFER_TOO_SMALL : CKR_OK);
    return NULL;
  }
  return op;
}

/* Ends a sign: the digest of the data given here (single-part) or so far
 * (final). The curve arithmetic runs unlocked on a copy of the op. */
static CK_RV sign_end(CK_SESSION_HANDLE hSession, const uint8_t *data, CK_ULONG data_len,
                      int single, CK_BYTE_PTR sig, CK_ULONG_PTR sig_len) {
  CK_RV rv;
  p11_op *op = finish_begin(hSession, 0, data, data_len, single, sig, sig_len, &rv);
  if (!op)
    return rv;
  size_t n = op->len;
  p11_op local = *op;
  p11_op_clear(op);
  p11_unlock();
  uint8_t digest[64], rs[128];
  if (local.hmac) {
    if (single)
      p11_mac_update(&local, data, data_len);
    p11_mac_final(&local, sig);
    p11_op_clear(&local);
    *sig_len = n;
    return CKR_OK;
  }
  if (local.hashing) {
    if (single)
      gostx_streebog_update(&local.h, data, data_len);
    gostx_streebog_final(&local.h, digest);
  } else {
    memcpy(digest, data, n);
  }
  int r = gostx_gost3410_sign(local.curve, local.key, n, digest, n, rs, 2 * n);
  p11_op_clear(&local);
  if (r != 0)
    return r == GOSTX_EIO ? CKR_DEVICE_ERROR : CKR_FUNCTION_FAILED;
  memcpy(sig, rs + n, n); /* s || r */
  memcpy(sig + n, rs, n);
  *sig_len = 2 * n;
  return CKR_OK;
}

CK_RV C_Sign(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
             CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen) {
  return sign_end(hSession, pData, ulDataLen, 1, pSignature, pulSignatureLen);
}

CK_RV C_SignUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen) {
  return op_update(hSession, 0, pPart, ulPartLen);
}

CK_RV C_SignFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature,
                  CK_ULONG_PTR pulSignatureLen) {
  return sign_end(hSession, NULL, 0, 0, pSignature, pulSignatureLen);
}

static CK_RV verify_end(CK_SESSION_HANDLE hSession, const uint8_t *data, CK_ULONG data_len,
                        int single, const uint8_t *sig, CK_ULONG sig_len) {
  CK_RV rv;
  p11_op *op = op_begin(hSession, 1, &rv);
  if (!op)
    return rv;
  p11_op local = *op;
  p11_op_clear(op); /* a verify ends whatever its outcome */
  size_t n = local.len;
  if (!sig || (single && data_len && !data))
    rv = CKR_ARGUMENTS_BAD;
  else if (single && local.multi)
    rv = CKR_OPERATION_ACTIVE;
  else if (!single && !local.hashing)
    rv = CKR_FUNCTION_NOT_SUPPORTED;
  else if (single && !local.hashing && data_len != n)
    rv = CKR_DATA_LEN_RANGE;
  else if (sig_len != (local.hmac ? n : 2 * n))
    rv = CKR_SIGNATURE_LEN_RANGE;
  p11_unlock();
  if (rv != CKR_OK) {
    p11_op_clear(&local);
    return rv;
  }
  uint8_t digest[64], rs[128];
  if (local.hmac) { /* the MAC again, compared in constant time */
    if (single)
      p11_mac_update(&local, data, data_len);
    p11_mac_final(&local, digest);
    p11_op_clear(&local);
    int same = gostx_memeq_ct(digest, sig, n) == 0;
    gostx_memzero(digest, sizeof digest);
    return same ? CKR_OK : CKR_SIGNATURE_INVALID;
  }
  if (local.hashing) {
    if (single)
      gostx_streebog_update(&local.h, data, data_len);
    gostx_streebog_final(&local.h, digest);
  } else {
    memcpy(digest, data, n);
  }
  memcpy(rs, sig + n, n); /* s || r to libgostx's r || s */
  memcpy(rs + n, sig, n);
  int r = gostx_gost3410_verify(local.curve, local.key, 2 * n, digest, n, rs, 2 * n);
  p11_op_clear(&local);
  return r == 0 ? CKR_OK : CKR_SIGNATURE_INVALID;
}

CK_RV C_Verify(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
               CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen) {
  return verify_end(hSession, pData, ulDataLen, 1, pSignature, ulSignatureLen);
}

CK_RV C_VerifyUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen) {
  return op_update(hSession, 1, pPart, ulPartLen);
}

CK_RV C_VerifyFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen) {
  return verify_end(hSession, NULL, 0, 0, pSignature, ulSignatureLen);
}

/* ---- digests ---- */
CK_RV C_DigestInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, pMechanism != NULL, &rv);
  if (!s)
    return rv;
  if (s->digest.active)
    return p11_leave(CKR_OPERATION_ACTIVE);
  size_t len = pMechanism->mechanism == CKM_GOSTR3411_12_256   ? 32
               : pMechanism->mechanism == CKM_GOSTR3411_12_512 ? 64
                                                               : 0;
  if (!len)
    return p11_leave(CKR_MECHANISM_INVALID);
  if (pMechanism->ulParameterLen)
    return p11_leave(CKR_MECHANISM_PARAM_INVALID);
  p11_op_clear(&s->digest);
  s->digest.len = len;
  s->digest.hashing = 1;
  gostx_streebog_init(&s->digest.h, len);
  s->digest.active = 1;
  return p11_leave(CKR_OK);
}

static CK_RV digest_end(CK_SESSION_HANDLE hSession, const uint8_t *data, CK_ULONG data_len,
                        int single, CK_BYTE_PTR out, CK_ULONG_PTR out_len) {
  CK_RV rv;
  p11_op *op = finish_begin(hSession, 2, data, data_len, single, out, out_len, &rv);
  if (!op)
    return rv;
  if (single)
    gostx_streebog_update(&op->h, data, data_len);
  uint8_t d[64];
  gostx_streebog_final(&op->h, d);
  memcpy(out, d, op->len);
  *out_len = op->len;
  p11_op_clear(op);
  return p11_leave(CKR_OK);
}

CK_RV C_Digest(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
               CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen) {
  return digest_end(hSession, pData, ulDataLen, 1, pDigest, pulDigestLen);
}

CK_RV C_DigestUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen) {
  return op_update(hSession, 2, pPart, ulPartLen);
}

CK_RV C_DigestFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen) {
  return digest_end(hSession, NULL, 0, 0, pDigest, pulDigestLen);
}

/* ---- key pairs ---- */
static const CK_ATTRIBUTE *tmpl_find(const CK_ATTRIBUTE *t, CK_ULONG n, CK_ATTRIBUTE_TYPE type) {
  for (CK_ULONG i = 0; t && i < n; i++)
    if (t[i].type == type && t[i].pValue)
      return &t[i];
  return NULL;
}

static int tmpl_bool(const CK_ATTRIBUTE *t, CK_ULONG n, CK_ATTRIBUTE_TYPE type, int dflt) {
  const CK_ATTRIBUTE *a = tmpl_find(t, n, type);
  return a && a->ulValueLen == 1 ? *(CK_BBOOL *)a->pValue != 0 : dflt;
}

static int token_wanted(p11_session *s, const CK_ATTRIBUTE *t, CK_ULONG n) {
  return tmpl_bool(t, n, CKA_TOKEN, 0) && !(s->flags & CKF_RW_SESSION);
}

CK_RV C_GenerateKeyPair(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
                        CK_ATTRIBUTE_PTR pPublicKeyTemplate, CK_ULONG ulPublicKeyAttributeCount,
                        CK_ATTRIBUTE_PTR pPrivateKeyTemplate, CK_ULONG ulPrivateKeyAttributeCount,
                        CK_OBJECT_HANDLE_PTR phPublicKey, CK_OBJECT_HANDLE_PTR phPrivateKey) {
  CK_RV rv;
  p11_session *s = p11_begin(hSession, &rv);
  if (!s)
    return rv;
  const CK_ATTRIBUTE *pt = pPublicKeyTemplate, *vt = pPrivateKeyTemplate;
  CK_ULONG pn = ulPublicKeyAttributeCount, vn = ulPrivateKeyAttributeCount;
  if (!pMechanism || !phPublicKey || !phPrivateKey || (pn && !pt) || (vn && !vt))
    return p11_leave(CKR_ARGUMENTS_BAD);
  CK_MECHANISM_TYPE mt = pMechanism->mechanism;
  if (mt != CKM_GOSTR3410_KEY_PAIR_GEN && mt != CKM_GOSTR3410_512_KEY_PAIR_GEN)
    return p11_leave(CKR_MECHANISM_INVALID);
  if (pMechanism->ulParameterLen)
    return p11_leave(CKR_MECHANISM_PARAM_INVALID);
  if (token_wanted(s, pt, pn) || token_wanted(s, vt, vn))
    return p11_leave(CKR_SESSION_READ_ONLY);
  /* The parameter set: the public template's, else the private one's. */
  const CK_ATTRIBUTE *ps = tmpl_find(pt, pn, CKA_GOSTR3410_PARAMS);
  if (!ps)
    ps = tmpl_find(vt, vn, CKA_GOSTR3410_PARAMS);
  gostx_gost3410_curve curve;
  if (!ps)
    return p11_leave(CKR_TEMPLATE_INCOMPLETE);
  if (p11_curve_from_der(ps->pValue, ps->ulValueLen, &curve) != 0)
    return p11_leave(CKR_ATTRIBUTE_VALUE_INVALID);
  size_t len = gostx_gost3410_size(curve);
  if ((len == 64) != (mt == CKM_GOSTR3410_512_KEY_PAIR_GEN))
    return p11_leave(CKR_TEMPLATE_INCONSISTENT);
  const CK_ATTRIBUTE *hs = tmpl_find(pt, pn, CKA_GOSTR3411_PARAMS);
  if (!hs)
    hs = tmpl_find(vt, vn, CKA_GOSTR3411_PARAMS);
  uint8_t d[64], q[128], d_le[64], q_le[128];
  if (gostx_gost3410_keygen(curve, d, len, q, 2 * len) != 0)
    return p11_leave(CKR_DEVICE_ERROR);
  p11_reverse(d_le, d, len);
  p11_reverse(q_le, q, len);
  p11_reverse(q_le + len, q + len, len);
  gostx_memzero(d, sizeof d);
  CK_OBJECT_CLASS pub_c = CKO_PUBLIC_KEY, priv_c = CKO_PRIVATE_KEY;
  CK_KEY_TYPE kt = len == 64 ? CKK_GOSTR3410_512 : CKK_GOSTR3410;
  CK_BBOOL yes = CK_TRUE;
  CK_BBOOL always_sens = (CK_BBOOL)tmpl_bool(vt, vn, CKA_SENSITIVE, 1);
  CK_BBOOL never_ext = (CK_BBOOL)!tmpl_bool(vt, vn, CKA_EXTRACTABLE, 0);
  CK_ATTRIBUTE pub_x[] = {
      {CKA_CLASS, &pub_c, sizeof pub_c},
      {CKA_KEY_TYPE, &kt, sizeof kt},
      {CKA_VALUE, q_le, 2 * len},
      {CKA_LOCAL, &yes, 1},
      {CKA_KEY_GEN_MECHANISM, &mt, sizeof mt},
      {CKA_GOSTR3410_PARAMS, ps->pValue, ps->ulValueLen},
      {CKA_GOSTR3411_PARAMS, hs ? hs->pValue : NULL, hs ? hs->ulValueLen : 0},
  };
  CK_ATTRIBUTE priv_x[] = {
      {CKA_CLASS, &priv_c, sizeof priv_c},
      {CKA_KEY_TYPE, &kt, sizeof kt},
      {CKA_VALUE, d_le, len},
      {CKA_LOCAL, &yes, 1},
      {CKA_KEY_GEN_MECHANISM, &mt, sizeof mt},
      {CKA_ALWAYS_SENSITIVE, &always_sens, 1},
      {CKA_NEVER_EXTRACTABLE, &never_ext, 1},
      {CKA_GOSTR3410_PARAMS, ps->pValue, ps->ulValueLen},
      {CKA_GOSTR3411_PARAMS, hs ? hs->pValue : NULL, hs ? hs->ulValueLen : 0},
  };
  /* Without a hash parameter the last entry is left out: the object's
   * default (the curve size's Streebog) applies. */
  CK_ULONG npx = sizeof pub_x / sizeof pub_x[0] - (hs ? 0 : 1);
  CK_ULONG nvx = sizeof priv_x / sizeof priv_x[0] - (hs ? 0 : 1);
  rv = p11_obj_create(s->tok, s->h, pt, pn, pub_x, npx, phPublicKey);
  if (rv == CKR_OK) {
    rv = p11_obj_create(s->tok, s->h, vt, vn, priv_x, nvx, phPrivateKey);
    if (rv != CKR_OK)
      p11_obj_discard(*phPublicKey); /* no half pair left behind */
  }
  gostx_memzero(d_le, sizeof d_le);
  return p11_leave(rv);
}

/* ---- derivation ---- */
/* The VKO of C_DeriveKey on checked inputs, its secret stored as a new
 * object made from tmpl (without CKA_VALUE_LEN). */
static CK_RV derive_vko(p11_session *s, const p11_obj *base, gostx_gost3410_curve curve, size_t len,
                        const CK_GOSTR3410_DERIVE_PARAMS *prm, const CK_ATTRIBUTE *pTemplate,
                        CK_ULONG ulAttributeCount, size_t out_len, CK_OBJECT_HANDLE_PTR phKey) {
  CK_RV rv;
  const p11_attr *v = p11_attr_find(base, CKA_VALUE);
  uint8_t d[64], peer[128], out[64];
  p11_reverse(d, v->val, len);
  p11_reverse(peer, prm->pPublicData, len);
  p11_reverse(peer + len, prm->pPublicData + len, len);
  int r = gostx_gost3410_vko(curve, d, len, peer, 2 * len, prm->pUKM, prm->ulUKMLen, out, out_len);
  gostx_memzero(d, sizeof d);
  if (r != 0)
    return r == GOSTX_EINVAL ? CKR_MECHANISM_PARAM_INVALID : CKR_FUNCTION_FAILED;
  CK_OBJECT_CLASS sc = CKO_SECRET_KEY;
  CK_KEY_TYPE kt = CKK_GENERIC_SECRET;
  CK_BBOOL no = CK_FALSE;
  CK_BBOOL always_sens = (CK_BBOOL)(tmpl_bool(pTemplate, ulAttributeCount, CKA_SENSITIVE, 1) &&
                                    p11_attr_bool(base, CKA_ALWAYS_SENSITIVE, 0));
  CK_BBOOL never_ext = (CK_BBOOL)(!tmpl_bool(pTemplate, ulAttributeCount, CKA_EXTRACTABLE, 0) &&
                                  p11_attr_bool(base, CKA_NEVER_EXTRACTABLE, 0));
  CK_ATTRIBUTE x[] = {
      {CKA_CLASS, &sc, sizeof sc},
      {CKA_VALUE, out, out_len},
      {CKA_LOCAL, &no, 1},
      {CKA_ALWAYS_SENSITIVE, &always_sens, 1},
      {CKA_NEVER_EXTRACTABLE, &never_ext, 1},
      {CKA_KEY_TYPE, &kt, sizeof kt}, /* last: left out when the template names a type */
  };
  CK_ULONG nx = sizeof x / sizeof x[0];
  if (tmpl_find(pTemplate, ulAttributeCount, CKA_KEY_TYPE))
    nx--;
  rv = p11_obj_create(s->tok, s->h, pTemplate, ulAttributeCount, x, nx, phKey);
  gostx_memzero(out, sizeof out);
  return rv;
}

CK_RV C_DeriveKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hBaseKey,
                  CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulAttributeCount, CK_OBJECT_HANDLE_PTR phKey) {
  CK_RV rv;
  p11_session *s = p11_begin_args(hSession, pMechanism && phKey && P11_TEMPLATE_OK(pTemplate, ulAttributeCount), &rv);
  if (!s)
    return rv;
  CK_MECHANISM_TYPE mt = pMechanism->mechanism;
  if (mt != CKM_GOSTR3410_12_DERIVE && mt != CKM_VKO_GOSTR3410_2012_512)
    return p11_leave(CKR_MECHANISM_INVALID);
  const CK_GOSTR3410_DERIVE_PARAMS *prm = pMechanism->pParameter;
  if (!prm || pMechanism->ulParameterLen != sizeof *prm || !prm->pPublicData ||
      !prm->pUKM || prm->ulUKMLen == 0 || prm->ulUKMLen > 64)
    return p11_leave(CKR_MECHANISM_PARAM_INVALID);
  /* CKM_GOSTR3410_12_DERIVE with KDF_GOSTR3411_2012_256 is
   * VKO_GOSTR3410_2012_256 (32 bytes); CKM_VKO_GOSTR3410_2012_512 takes no
   * further KDF and gives the 64-byte VKO_GOSTR3410_2012_512. */
  size_t out_len = mt == CKM_VKO_GOSTR3410_2012_512 ? 64 : 32;
  if (prm->kdf != (mt == CKM_VKO_GOSTR3410_2012_512 ? CKD_NULL : CKD_KDF_GOSTR3411_2012_256))
    return p11_leave(CKR_MECHANISM_PARAM_INVALID);
  p11_obj *base = p11_obj_for(s, hBaseKey);
  if (!base)
    return p11_leave(CKR_KEY_HANDLE_INVALID);
  if (!p11_mech_allowed(base, mt))
    return p11_leave(CKR_MECHANISM_INVALID);
  gostx_gost3410_curve curve;
  size_t len;
  if ((rv = p11_key_curve(base, CKO_PRIVATE_KEY, &curve, &len)) != CKR_OK)
    return p11_leave(rv);
  if (!p11_attr_bool(base, CKA_DERIVE, 0))
    return p11_leave(CKR_KEY_FUNCTION_NOT_PERMITTED);
  if (prm->ulPublicDataLen != 2 * len)
    return p11_leave(CKR_MECHANISM_PARAM_INVALID);
  if (tmpl_bool(pTemplate, ulAttributeCount, CKA_TOKEN, 0) && !(s->flags & CKF_RW_SESSION))
    return p11_leave(CKR_SESSION_READ_ONLY);
  /* A consumer may state the derived key's CKA_VALUE_LEN; the mechanism
   * fixes it, so it must say the same, and is then left to the module
   * (which alone stores the attribute). */
  CK_ATTRIBUTE *tmpl = malloc((ulAttributeCount ? ulAttributeCount : 1) * sizeof *tmpl);
  if (!tmpl)
    return p11_leave(CKR_HOST_MEMORY);
  CK_ULONG nt = 0;
  for (CK_ULONG i = 0; i < ulAttributeCount; i++) {
    if (pTemplate[i].type != CKA_VALUE_LEN) {
      tmpl[nt++] = pTemplate[i];
      continue;
    }
    CK_ULONG want;
    if (pTemplate[i].ulValueLen != sizeof want || !pTemplate[i].pValue) {
      free(tmpl);
      return p11_leave(CKR_ATTRIBUTE_VALUE_INVALID);
    }
    memcpy(&want, pTemplate[i].pValue, sizeof want);
    if (want != out_len) {
      free(tmpl);
      return p11_leave(CKR_TEMPLATE_INCONSISTENT);
    }
  }
  rv = derive_vko(s, base, curve, len, prm, tmpl, nt, out_len, phKey);
  free(tmpl);
  return p11_leave(rv);
}

/* ---- random ---- */
CK_RV C_GenerateRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR RandomData, CK_ULONG ulRandomLen) {
  CK_RV rv;
  if (!p11_begin(hSession, &rv))
    return rv;
  p11_unlock();
  if (ulRandomLen && !RandomData)
    return CKR_ARGUMENTS_BAD;
  return gostx_random_bytes(RandomData, ulRandomLen) == 0 ? CKR_OK : CKR_DEVICE_ERROR;
}

CK_RV C_SeedRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSeed, CK_ULONG ulSeedLen) {
  (void)pSeed, (void)ulSeedLen;
  CK_RV rv;
  if (!p11_begin(hSession, &rv))
    return rv;
  /* The OS generator is the only source; it takes no seed from here. */
  return p11_leave(CKR_RANDOM_SEED_NOT_SUPPORTED);
}
