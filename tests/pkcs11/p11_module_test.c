/* gostx's PKCS#11 token (integrations/pkcs11) driven through its function
 * lists, as an application would: dlopen, C_GetFunctionList and
 * C_GetInterface, a token made in a fresh folder, PINs (wrong ones
 * counted and the count kept across C_Finalize), key pairs on every
 * parameter set, the standard's byte orders checked against libgostx's
 * own functions, find / get / set attributes, sensitive values refused,
 * digests, VKO, the cipher mechanisms against libgostx and the standards'
 * examples (tests/vectors), and the objects found again after a restart.
 * argv[1]: the module. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gostx.h>

#define P11_APP "p11_module_test"
#include "p11_app.h"
#include "testutil.h"

static CK_FUNCTION_LIST *F;
/* wrong PINs short of the lock (the module locks at 10, docs/PKCS11.md) */
#define P11_TRIES 9
static const char SO[] = "so-secret", PIN[] = "user-1234";

#define OK(expr) CHECK_RV((expr), CKR_OK, #expr)
#define CHECK_RV(expr, want, what)                                                             \
  do {                                                                                         \
    CK_RV rv_ = (expr);                                                                        \
    CHECK(rv_ == (want), "%s: 0x%lx, want 0x%lx", (what), (unsigned long)rv_, (unsigned long)(want)); \
  } while (0)

/* The application's own locking, for C_Initialize without
 * CKF_OS_LOCKING_OK: the module must use these (counted) mutexes. */
static int g_app_locks;
static CK_RV app_create(CK_VOID_PTR_PTR m) {
  pthread_mutex_t *p = malloc(sizeof *p);
  if (!p || pthread_mutex_init(p, NULL) != 0)
    return CKR_HOST_MEMORY;
  *m = p;
  return CKR_OK;
}
static CK_RV app_destroy(CK_VOID_PTR m) {
  pthread_mutex_destroy(m);
  free(m);
  return CKR_OK;
}
static CK_RV app_lock(CK_VOID_PTR m) {
  g_app_locks++;
  return pthread_mutex_lock(m) == 0 ? CKR_OK : CKR_MUTEX_BAD;
}
static CK_RV app_unlock(CK_VOID_PTR m) { return pthread_mutex_unlock(m) == 0 ? CKR_OK : CKR_MUTEX_BAD; }

static CK_FLAGS token_flags(CK_SLOT_ID slot) {
  CK_TOKEN_INFO ti;
  OK(F->C_GetTokenInfo(slot, &ti));
  return ti.flags;
}

static CK_SESSION_HANDLE open_rw(CK_SLOT_ID slot) {
  CK_SESSION_HANDLE s = 0;
  OK(F->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s));
  return s;
}

static void der_of(gostx_gost3410_curve c, uint8_t *der, CK_ULONG *len) {
  /* the OID's DER from its dotted text, written here independently */
  const char *t = gostx_gost3410_curve_oid(c);
  unsigned long arcs[16] = {0};
  size_t n = 0;
  while (*t) {
    arcs[n++] = strtoul(t, (char **)&t, 10);
    if (*t == '.')
      t++;
  }
  size_t k = 2;
  der[k++] = (uint8_t)(arcs[0] * 40 + arcs[1]);
  for (size_t i = 2; i < n; i++) {
    uint8_t tmp[8];
    int m = 0;
    unsigned long v = arcs[i];
    do
      tmp[m++] = v & 0x7f, v >>= 7;
    while (v);
    while (m--)
      der[k++] = (uint8_t)(tmp[m] | (m ? 0x80 : 0));
  }
  der[0] = 0x06, der[1] = (uint8_t)(k - 2);
  *len = (CK_ULONG)k;
}

static void rev(uint8_t *out, const uint8_t *in, size_t n) {
  for (size_t i = 0; i < n; i++)
    out[i] = in[n - 1 - i];
}

static CK_OBJECT_HANDLE find_one(CK_SESSION_HANDLE s, CK_OBJECT_CLASS cls, const void *id,
                                 CK_ULONG id_len, CK_ULONG *count) {
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof cls}, {CKA_ID, (void *)id, id_len}};
  CK_OBJECT_HANDLE h[4] = {0};
  *count = 0;
  OK(F->C_FindObjectsInit(s, t, 2));
  OK(F->C_FindObjects(s, h, 4, count));
  OK(F->C_FindObjectsFinal(s));
  return h[0];
}

/* One key pair on curve c: generated on the token, its values in the
 * standard's byte orders, signatures both ways, sensitive value kept. */
static void key_pair(CK_SESSION_HANDLE s, gostx_gost3410_curve c) {
  size_t n = gostx_gost3410_size(c);
  uint8_t der[32], id[2] = {0x42, (uint8_t)c};
  CK_ULONG der_len;
  der_of(c, der, &der_len);
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_MECHANISM gen = {n == 64 ? CKM_GOSTR3410_512_KEY_PAIR_GEN : CKM_GOSTR3410_KEY_PAIR_GEN, NULL, 0};
  CK_ATTRIBUTE pub_t[] = {{CKA_TOKEN, &yes, 1}, {CKA_GOSTR3410_PARAMS, der, der_len},
                          {CKA_ID, id, 2}, {CKA_VERIFY, &yes, 1}};
  CK_ATTRIBUTE priv_t[] = {{CKA_TOKEN, &yes, 1}, {CKA_ID, id, 2}, {CKA_SIGN, &yes, 1},
                           {CKA_DERIVE, &yes, 1}, {CKA_EXTRACTABLE, &no, 1}};
  CK_OBJECT_HANDLE pub, priv;
  OK(F->C_GenerateKeyPair(s, &gen, pub_t, 4, priv_t, 5, &pub, &priv));
  const char *name = gostx_gost3410_curve_short_name(c);

  uint8_t q_le[128], q[128], val[64];
  CK_KEY_TYPE kt = 0;
  CK_BBOOL local = 0, never = 0, always = 0;
  CK_ATTRIBUTE get[] = {{CKA_VALUE, q_le, sizeof q_le}, {CKA_KEY_TYPE, &kt, sizeof kt}};
  OK(F->C_GetAttributeValue(s, pub, get, 2));
  CHECK(get[0].ulValueLen == 2 * n, "%s: public value %lu bytes", name, get[0].ulValueLen);
  CHECK(kt == (n == 64 ? CKK_GOSTR3410_512 : CKK_GOSTR3410), "%s: key type", name);
  rev(q, q_le, n);
  rev(q + n, q_le + n, n);
  CHECK(gostx_gost3410_check_public_key(c, q, 2 * n) == 0, "%s: x || y little-endian on curve", name);

  CK_ATTRIBUTE pv[] = {{CKA_VALUE, val, sizeof val}, {CKA_LOCAL, &local, 1},
                       {CKA_NEVER_EXTRACTABLE, &never, 1}, {CKA_ALWAYS_SENSITIVE, &always, 1}};
  CHECK_RV(F->C_GetAttributeValue(s, priv, pv, 4), CKR_ATTRIBUTE_SENSITIVE, "private CKA_VALUE");
  CHECK(pv[0].ulValueLen == CK_UNAVAILABLE_INFORMATION, "%s: sensitive length unavailable", name);
  CHECK(local && never && always, "%s: LOCAL, NEVER_EXTRACTABLE, ALWAYS_SENSITIVE set", name);

  /* CKM_GOSTR3410(_512): the digest as Streebog writes it; s || r out. */
  uint8_t msg[100], dg[64], sig[128], rs[128];
  t_rand_bytes(msg, sizeof msg);
  gostx_streebog(n, msg, sizeof msg, dg);
  CK_MECHANISM raw = {n == 64 ? CKM_GOSTR3410_512 : CKM_GOSTR3410, NULL, 0};
  CK_ULONG sl = 0;
  OK(F->C_SignInit(s, &raw, priv));
  OK(F->C_Sign(s, dg, n, NULL, &sl));
  CHECK(sl == 2 * n, "%s: signature length query %lu", name, sl);
  sl = 1;
  CHECK_RV(F->C_Sign(s, dg, n, sig, &sl), CKR_BUFFER_TOO_SMALL, "short buffer");
  sl = sizeof sig;
  OK(F->C_Sign(s, dg, n, sig, &sl));
  memcpy(rs, sig + n, n); /* libgostx verifies r || s */
  memcpy(rs + n, sig, n);
  CHECK(gostx_gost3410_verify(c, q, 2 * n, dg, n, rs, 2 * n) == 0, "%s: s || r verifies", name);
  OK(F->C_VerifyInit(s, &raw, pub));
  OK(F->C_Verify(s, dg, n, sig, sl));
  sig[5] ^= 1;
  OK(F->C_VerifyInit(s, &raw, pub));
  CHECK_RV(F->C_Verify(s, dg, n, sig, sl), CKR_SIGNATURE_INVALID, "changed signature");

  /* With Streebog inside, single and multi-part give verifying signatures. */
  CK_MECHANISM hm = {n == 64 ? CKM_GOSTR3410_WITH_GOSTR3411_12_512
                             : CKM_GOSTR3410_WITH_GOSTR3411_12_256, NULL, 0};
  OK(F->C_SignInit(s, &hm, priv));
  OK(F->C_SignUpdate(s, msg, 37));
  OK(F->C_SignUpdate(s, msg + 37, sizeof msg - 37));
  sl = sizeof sig;
  OK(F->C_SignFinal(s, sig, &sl));
  memcpy(rs, sig + n, n);
  memcpy(rs + n, sig, n);
  CHECK(gostx_gost3410_verify(c, q, 2 * n, dg, n, rs, 2 * n) == 0, "%s: multi-part verifies", name);
  OK(F->C_VerifyInit(s, &hm, pub));
  OK(F->C_Verify(s, msg, sizeof msg, sig, sl));
  CK_MECHANISM wrong = {n == 64 ? CKM_GOSTR3410 : CKM_GOSTR3410_512, NULL, 0};
  CHECK_RV(F->C_SignInit(s, &wrong, priv), CKR_KEY_TYPE_INCONSISTENT, "mechanism of the other size");

  CK_ULONG cnt;
  CHECK(find_one(s, CKO_PRIVATE_KEY, id, 2, &cnt) == priv && cnt == 1, "%s: found by CKA_ID", name);
}

static void vko(CK_SESSION_HANDLE s, gostx_gost3410_curve c) {
  size_t n = gostx_gost3410_size(c);
  uint8_t der[32], qa[128], qb[128], ukm[8], ka[64], kb[64], d[64], want[64], qbe[128];
  CK_ULONG der_len;
  der_of(c, der, &der_len);
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_MECHANISM gen = {n == 64 ? CKM_GOSTR3410_512_KEY_PAIR_GEN : CKM_GOSTR3410_KEY_PAIR_GEN, NULL, 0};
  CK_ATTRIBUTE pub_t[] = {{CKA_GOSTR3410_PARAMS, der, der_len}};
  CK_ATTRIBUTE priv_t[] = {{CKA_DERIVE, &yes, 1}};
  CK_OBJECT_HANDLE pa, va, pb, vb;
  OK(F->C_GenerateKeyPair(s, &gen, pub_t, 1, priv_t, 1, &pa, &va));
  OK(F->C_GenerateKeyPair(s, &gen, pub_t, 1, priv_t, 1, &pb, &vb));
  CK_ATTRIBUTE g1 = {CKA_VALUE, qa, sizeof qa}, g2 = {CKA_VALUE, qb, sizeof qb};
  OK(F->C_GetAttributeValue(s, pa, &g1, 1));
  OK(F->C_GetAttributeValue(s, pb, &g2, 1));
  t_rand_bytes(ukm, sizeof ukm);
  CK_MECHANISM_TYPE mt = n == 64 ? CKM_VKO_GOSTR3410_2012_512 : CKM_GOSTR3410_12_DERIVE;
  CK_EC_KDF_TYPE kdf = n == 64 ? CKD_NULL : CKD_KDF_GOSTR3411_2012_256;
  CK_GOSTR3410_DERIVE_PARAMS pa_p = {kdf, qb, 2 * n, ukm, sizeof ukm};
  CK_GOSTR3410_DERIVE_PARAMS pb_p = {kdf, qa, 2 * n, ukm, sizeof ukm};
  CK_MECHANISM ma = {mt, &pa_p, sizeof pa_p}, mb = {mt, &pb_p, sizeof pb_p};
  CK_ATTRIBUTE kt[] = {{CKA_SENSITIVE, &no, 1}, {CKA_EXTRACTABLE, &yes, 1}};
  CK_OBJECT_HANDLE sa, sb, sc;
  OK(F->C_DeriveKey(s, &ma, va, kt, 2, &sa));
  OK(F->C_DeriveKey(s, &mb, vb, kt, 2, &sb));
  CK_ATTRIBUTE r1 = {CKA_VALUE, ka, sizeof ka}, r2 = {CKA_VALUE, kb, sizeof kb};
  OK(F->C_GetAttributeValue(s, sa, &r1, 1));
  OK(F->C_GetAttributeValue(s, sb, &r2, 1));
  CHECK(r1.ulValueLen == (n == 64 ? 64u : 32u) && r1.ulValueLen == r2.ulValueLen, "VKO length");
  CHECK_BYTES(ka, kb, r1.ulValueLen, "VKO both sides agree");
  /* and equal libgostx's VKO on a key pair it made: a known d via import */
  uint8_t d_le[64];
  CK_OBJECT_CLASS pc = CKO_PRIVATE_KEY;
  CK_KEY_TYPE ktp = n == 64 ? CKK_GOSTR3410_512 : CKK_GOSTR3410;
  CHECK(gostx_gost3410_keygen(c, d, n, qbe, 2 * n) == 0, "keygen");
  rev(d_le, d, n);
  CK_ATTRIBUTE imp[] = {{CKA_CLASS, &pc, sizeof pc}, {CKA_KEY_TYPE, &ktp, sizeof ktp},
                        {CKA_GOSTR3410_PARAMS, der, der_len}, {CKA_VALUE, d_le, n},
                        {CKA_DERIVE, &yes, 1}};
  CK_OBJECT_HANDLE vi;
  OK(F->C_CreateObject(s, imp, 5, &vi));
  OK(F->C_DeriveKey(s, &ma, vi, kt, 2, &sc));
  OK(F->C_GetAttributeValue(s, sc, &r1, 1));
  rev(qbe, qb, n);
  rev(qbe + n, qb + n, n);
  CHECK(gostx_gost3410_vko(c, d, n, qbe, 2 * n, ukm, sizeof ukm, want, n == 64 ? 64 : 32) == 0,
        "libgostx VKO");
  CHECK_BYTES(ka, want, r1.ulValueLen, "token VKO = libgostx VKO on an imported key");
  /* a derived key asked sensitive keeps its value */
  CK_OBJECT_HANDLE sd;
  OK(F->C_DeriveKey(s, &ma, va, NULL, 0, &sd));
  CHECK_RV(F->C_GetAttributeValue(s, sd, &r1, 1), CKR_ATTRIBUTE_SENSITIVE, "derived, sensitive");
  /* CKA_VALUE_LEN in the template: taken when it is the mechanism's
   * length, refused as inconsistent when not */
  CK_ULONG vl = n == 64 ? 64 : 32, bad_vl = vl - 1, got_vl = 0;
  CK_ATTRIBUTE kl[] = {{CKA_SENSITIVE, &no, 1}, {CKA_EXTRACTABLE, &yes, 1}, {CKA_VALUE_LEN, &vl, sizeof vl}};
  CK_OBJECT_HANDLE se = CK_INVALID_HANDLE;
  uint8_t kc[64];
  OK(F->C_DeriveKey(s, &ma, va, kl, 3, &se));
  CK_ATTRIBUTE r3[] = {{CKA_VALUE, kc, sizeof kc}, {CKA_VALUE_LEN, &got_vl, sizeof got_vl}};
  OK(F->C_GetAttributeValue(s, se, r3, 2));
  CHECK(got_vl == vl && r3[0].ulValueLen == vl, "CKA_VALUE_LEN %lu of the derived key", got_vl);
  CHECK_BYTES(kc, kb, vl, "derived with CKA_VALUE_LEN: the same secret");
  kl[2].pValue = &bad_vl;
  CHECK_RV(F->C_DeriveKey(s, &ma, va, kl, 3, &se), CKR_TEMPLATE_INCONSISTENT,
           "CKA_VALUE_LEN other than the mechanism's");
}

/* Secret keys: made on the token, HMAC-Streebog, ECB and MGM, each
 * against libgostx on the same key (read back: asked extractable). */
static void secret(CK_SESSION_HANDLE s) {
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_ULONG len = 40;
  CK_MECHANISM gen = {CKM_GENERIC_SECRET_KEY_GEN, NULL, 0};
  CK_ATTRIBUTE gt[] = {{CKA_VALUE_LEN, &len, sizeof len}, {CKA_SENSITIVE, &no, 1},
                       {CKA_EXTRACTABLE, &yes, 1}};
  CK_OBJECT_HANDLE hk;
  OK(F->C_GenerateKey(s, &gen, gt, 3, &hk));
  uint8_t key[64], data[200], mac[64], want[64];
  CK_ATTRIBUTE kv = {CKA_VALUE, key, sizeof key};
  OK(F->C_GetAttributeValue(s, hk, &kv, 1));
  CHECK(kv.ulValueLen == 40, "generic secret of CKA_VALUE_LEN bytes (%lu)", kv.ulValueLen);
  t_rand_bytes(data, sizeof data);
  for (int big = 0; big < 2; big++) {
    size_t n = big ? 64 : 32;
    CK_MECHANISM hm = {big ? CKM_GOSTR3411_12_512_HMAC : CKM_GOSTR3411_12_256_HMAC, NULL, 0};
    CK_ULONG ml = sizeof mac;
    OK(F->C_SignInit(s, &hm, hk));
    OK(F->C_SignUpdate(s, data, 77));
    OK(F->C_SignUpdate(s, data + 77, sizeof data - 77));
    OK(F->C_SignFinal(s, mac, &ml));
    CHECK(gostx_hmac(n, key, 40, data, sizeof data, want) == 0, "libgostx HMAC");
    CHECK(ml == n, "HMAC length %lu", ml);
    CHECK_BYTES(mac, want, n, "HMAC-Streebog through the token");
    OK(F->C_VerifyInit(s, &hm, hk));
    OK(F->C_Verify(s, data, sizeof data, mac, ml));
    mac[3] ^= 1;
    OK(F->C_VerifyInit(s, &hm, hk));
    CHECK_RV(F->C_Verify(s, data, sizeof data, mac, ml), CKR_SIGNATURE_INVALID, "changed MAC");
  }
  for (int magma = 0; magma < 2; magma++) {
    CK_MECHANISM kg = {magma ? CKM_MAGMA_KEY_GEN : CKM_KUZNYECHIK_KEY_GEN, NULL, 0};
    CK_ATTRIBUTE ct[] = {{CKA_ENCRYPT, &yes, 1}, {CKA_DECRYPT, &yes, 1}, {CKA_SENSITIVE, &no, 1},
                         {CKA_EXTRACTABLE, &yes, 1}};
    CK_OBJECT_HANDLE ck;
    OK(F->C_GenerateKey(s, &kg, ct, 4, &ck));
    OK(F->C_GetAttributeValue(s, ck, &kv, 1));
    CHECK(kv.ulValueLen == 32, "cipher key length");
    const gostx_cipher *c = t_cipher(magma ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK, key);
    size_t n = magma ? 8 : 16;
    uint8_t out[300], back[300], ref[300], tag[16], nonce[16];
    CK_ULONG ol = sizeof out, bl = sizeof back;
    CK_MECHANISM ecb = {magma ? CKM_MAGMA_ECB : CKM_KUZNYECHIK_ECB, NULL, 0};
    OK(F->C_EncryptInit(s, &ecb, ck));
    OK(F->C_Encrypt(s, data, 10 * n, out, &ol));
    CHECK(gostx_ecb_encrypt(c, data, 10 * n, ref) == 0 && ol == 10 * n, "libgostx ECB");
    CHECK_BYTES(out, ref, 10 * n, "ECB through the token");
    OK(F->C_DecryptInit(s, &ecb, ck));
    OK(F->C_Decrypt(s, out, ol, back, &bl));
    CHECK_BYTES(back, data, 10 * n, "ECB decrypts");
    OK(F->C_EncryptInit(s, &ecb, ck));
    CHECK_RV(F->C_Encrypt(s, data, n + 1, out, &ol), CKR_DATA_LEN_RANGE, "ECB, not whole blocks");

    t_rand_bytes(nonce, sizeof nonce);
    nonce[0] &= 0x7f;
    CK_GCM_PARAMS gp = {nonce, n, 8 * n, data + 150, 20, 8 * n};
    CK_MECHANISM mgm = {magma ? CKM_MAGMA_MGM : CKM_KUZNYECHIK_MGM, &gp, sizeof gp};
    ol = 0;
    OK(F->C_EncryptInit(s, &mgm, ck));
    OK(F->C_Encrypt(s, data, 100, NULL, &ol));
    CHECK(ol == 100 + n, "MGM length query: %lu", ol);
    OK(F->C_Encrypt(s, data, 100, out, &ol));
    CHECK(gostx_mgm_encrypt(c, nonce, data + 150, 20, data, 100, ref, tag, n) == 0, "libgostx MGM");
    CHECK_BYTES(out, ref, 100, "MGM ciphertext through the token");
    CHECK_BYTES(out + 100, tag, n, "MGM tag through the token");
    bl = sizeof back;
    OK(F->C_DecryptInit(s, &mgm, ck));
    OK(F->C_Decrypt(s, out, ol, back, &bl));
    CHECK(bl == 100, "MGM plaintext length");
    CHECK_BYTES(back, data, 100, "MGM decrypts");
    out[5] ^= 1;
    OK(F->C_DecryptInit(s, &mgm, ck));
    CHECK_RV(F->C_Decrypt(s, out, ol, back, &bl), CKR_ENCRYPTED_DATA_INVALID, "MGM, changed");
    CK_MECHANISM other = {magma ? CKM_KUZNYECHIK_ECB : CKM_MAGMA_ECB, NULL, 0};
    CHECK_RV(F->C_EncryptInit(s, &other, ck), CKR_KEY_TYPE_INCONSISTENT, "the other cipher's mechanism");
  }
}

/* A session secret key of type kt with value v (every use allowed). */
static CK_OBJECT_HANDLE secret_key(CK_SESSION_HANDLE s, CK_KEY_TYPE kt, const uint8_t *v, size_t len,
                                   int extractable) {
  CK_OBJECT_CLASS sc = CKO_SECRET_KEY;
  CK_BBOOL yes = CK_TRUE, ext = extractable ? CK_TRUE : CK_FALSE;
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &sc, sizeof sc}, {CKA_KEY_TYPE, &kt, sizeof kt},
                      {CKA_VALUE, (void *)v, len}, {CKA_ENCRYPT, &yes, 1},
                      {CKA_DECRYPT, &yes, 1},      {CKA_WRAP, &yes, 1},
                      {CKA_UNWRAP, &yes, 1},       {CKA_EXTRACTABLE, &ext, 1}};
  CK_OBJECT_HANDLE h = 0;
  OK(F->C_CreateObject(s, t, sizeof t / sizeof t[0], &h));
  return h;
}

static int is_magma(const json *c) { return strcmp(tv_str(c, "cipher"), "magma") == 0; }

/* CTR-ACPKM (R 1323565.1.017-2018 / RFC 8645 examples), single and
 * multi-part, and against libgostx on random data. */
static void ctr_acpkm(CK_SESSION_HANDLE s) {
  tv_iter it = tv_open("acpkm.json");
  int seen = 0;
  for (const json *c; (c = tv_next_where(&it, "kind", "ctr_acpkm")) != NULL; seen++) {
    int magma = is_magma(c);
    size_t kl, ivl, pl, cl, n = magma ? 8 : 16;
    uint8_t *key = tv_hex(c, "key", &kl), *iv = tv_hex(c, "iv", &ivl);
    uint8_t *pt = tv_hex(c, "plaintext", &pl), *ct = tv_hex(c, "ciphertext", &cl);
    unsigned long bits = (unsigned long)tv_int(c, "section_size_bits");
    uint8_t prm[4 + 8] = {(uint8_t)(bits >> 24), (uint8_t)(bits >> 16), (uint8_t)(bits >> 8),
                          (uint8_t)bits};
    memcpy(prm + 4, iv, ivl);
    CK_OBJECT_HANDLE k = secret_key(s, magma ? CKK_MAGMA : CKK_KUZNYECHIK, key, kl, 0);
    CK_MECHANISM m = {magma ? CKM_MAGMA_CTR_ACPKM : CKM_KUZNYECHIK_CTR_ACPKM, prm, 4 + ivl};
    uint8_t out[1024], back[1024], ref[1024];
    CK_ULONG ol = sizeof out, l1, l2, l3;
    OK(F->C_EncryptInit(s, &m, k));
    OK(F->C_Encrypt(s, pt, pl, out, &ol));
    CHECK(ol == cl, "CTR-ACPKM length %lu", ol);
    CHECK_BYTES(out, ct, cl, tv_str(c, "name"));
    /* multi-part, split inside a block and inside a section */
    OK(F->C_DecryptInit(s, &m, k));
    l1 = sizeof back;
    OK(F->C_DecryptUpdate(s, ct, 5, back, &l1));
    l2 = sizeof back - l1;
    OK(F->C_DecryptUpdate(s, ct + 5, cl - 5 - 3, back + l1, &l2));
    l3 = sizeof back - l1 - l2;
    OK(F->C_DecryptUpdate(s, ct + cl - 3, 3, back + l1 + l2, &l3));
    CK_ULONG lf = 0;
    OK(F->C_DecryptFinal(s, NULL, &lf));
    CHECK(lf == 0, "CTR-ACPKM final length query: %lu", lf);
    OK(F->C_DecryptFinal(s, back, &lf));
    CHECK(l1 + l2 + l3 == pl, "CTR-ACPKM multi-part length");
    CHECK_BYTES(back, pt, pl, "CTR-ACPKM multi-part decrypts the example");
    /* random data, sections of 4 blocks, against libgostx */
    uint8_t data[1000];
    t_rand_bytes(data, sizeof data);
    t_rand_bytes(prm + 4, ivl);
    bits = 4 * 8 * n;
    prm[0] = 0, prm[1] = 0, prm[2] = (uint8_t)(bits >> 8), prm[3] = (uint8_t)bits;
    const gostx_cipher *gc = t_cipher(magma ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK, key);
    CHECK(gostx_ctr_acpkm_crypt(gc, prm + 4, ivl, 4 * n, data, sizeof data, ref) == 0, "libgostx");
    OK(F->C_EncryptInit(s, &m, k));
    ol = sizeof out;
    OK(F->C_Encrypt(s, data, sizeof data, out, &ol));
    CHECK_BYTES(out, ref, sizeof data, "CTR-ACPKM equals libgostx's");
    /* multi-part ending inside a block (1000 is no multiple of a block) */
    OK(F->C_EncryptInit(s, &m, k));
    l1 = sizeof out;
    OK(F->C_EncryptUpdate(s, data, 333, out, &l1));
    l2 = sizeof out - l1;
    OK(F->C_EncryptUpdate(s, data + 333, sizeof data - 333, out + l1, &l2));
    lf = sizeof out;
    OK(F->C_EncryptFinal(s, out + l1 + l2, &lf));
    CHECK(l1 + l2 == sizeof data && lf == 0, "CTR-ACPKM multi-part, a partial block last");
    CHECK_BYTES(out, ref, sizeof data, "CTR-ACPKM multi-part equals libgostx's");
    /* period 0: plain CTR (GOST R 34.13-2015) */
    memset(prm, 0, 4);
    CHECK(gostx_ctr_crypt(gc, prm + 4, ivl, n, data, 100, ref) == 0, "libgostx CTR");
    OK(F->C_EncryptInit(s, &m, k));
    ol = sizeof out;
    OK(F->C_Encrypt(s, data, 100, out, &ol));
    CHECK_BYTES(out, ref, 100, "CTR-ACPKM with period 0 is CTR");
    /* refused: a section that is not whole blocks, a parameter without the period */
    prm[3] = 12;
    CHECK_RV(F->C_EncryptInit(s, &m, k), CKR_MECHANISM_PARAM_INVALID, "a period of 12 bits");
    prm[3] = 0;
    m.ulParameterLen = ivl;
    CHECK_RV(F->C_EncryptInit(s, &m, k), CKR_MECHANISM_PARAM_INVALID, "no period");
    free(key), free(iv), free(pt), free(ct);
  }
  CHECK(seen == 2, "two CTR-ACPKM examples (%d)", seen);
  tv_close(&it);
}

/* The mechanism of a GOST R 34.13-2015 mode ("CBC", "CFB", "OFB", "CTR"). */
static CK_MECHANISM_TYPE mode_mech(const char *mode, int magma) {
  if (strcmp(mode, "CBC") == 0)
    return magma ? CKM_MAGMA_CBC : CKM_KUZNYECHIK_CBC;
  if (strcmp(mode, "CFB") == 0)
    return magma ? CKM_MAGMA_CFB : CKM_KUZNYECHIK_CFB;
  if (strcmp(mode, "OFB") == 0)
    return magma ? CKM_MAGMA_OFB : CKM_KUZNYECHIK_OFB;
  if (strcmp(mode, "CTR") == 0)
    return magma ? CKM_MAGMA_CTR : CKM_KUZNYECHIK_CTR;
  return 0;
}

/* in through op (C_EncryptUpdate/C_DecryptUpdate at the splits, then
 * Final) into out: the total written. */
static CK_ULONG crypt_parts(CK_SESSION_HANDLE s, int enc, const uint8_t *in, size_t len,
                            const size_t *cuts, size_t ncuts, uint8_t *out, size_t room) {
  size_t at = 0, done = 0;
  for (size_t i = 0; i <= ncuts; i++) {
    size_t to = i < ncuts ? cuts[i] : len;
    CK_ULONG l = room - done;
    OK(enc ? F->C_EncryptUpdate(s, (CK_BYTE_PTR)in + at, to - at, out + done, &l)
           : F->C_DecryptUpdate(s, (CK_BYTE_PTR)in + at, to - at, out + done, &l));
    done += l, at = to;
  }
  CK_ULONG l = room - done;
  OK(enc ? F->C_EncryptFinal(s, out + done, &l) : F->C_DecryptFinal(s, out + done, &l));
  return done + l;
}

/* CBC, CFB, OFB and CTR (GOST R 34.13-2015 A.1.2-A.1.5, A.2.2-A.2.5): the
 * examples single-part and split inside blocks, decrypted back; CBC's
 * wrong lengths and every mode's wrong IV lengths refused; the other IV
 * lengths the standard allows against libgostx. */
static void r3413_modes(CK_SESSION_HANDLE s) {
  json *f = tv_load("modes-3413.json"), *cases = tv_cases(f);
  int seen = 0;
  for (size_t i = 0; i < json_len(cases); i++) {
    const json *c = json_at(cases, i);
    const char *mode = tv_str(c, "mode");
    int magma = is_magma(c);
    CK_MECHANISM_TYPE mt = mode_mech(mode, magma);
    if (!mt)
      continue;
    seen++;
    int cbc = strcmp(mode, "CBC") == 0;
    size_t kl, ivl, pl, cl, n = magma ? 8 : 16;
    uint8_t *key = tv_hex(c, "key", &kl), *iv = tv_hex(c, "iv", &ivl);
    uint8_t *pt = tv_hex(c, "plaintext", &pl), *ct = tv_hex(c, "ciphertext", &cl);
    const char *name = tv_str(c, "name");
    CK_MECHANISM_INFO mi;
    CK_SESSION_INFO si;
    OK(F->C_GetSessionInfo(s, &si));
    OK(F->C_GetMechanismInfo(si.slotID, mt, &mi));
    CHECK(mi.flags == (CKF_ENCRYPT | CKF_DECRYPT) && mi.ulMinKeySize == 32 && mi.ulMaxKeySize == 32,
          "%s: mechanism info", name);
    CK_OBJECT_HANDLE k = secret_key(s, magma ? CKK_MAGMA : CKK_KUZNYECHIK, key, kl, 0);
    CK_MECHANISM m = {mt, iv, ivl};
    uint8_t out[256], back[256], ref[256], big[80] = {0};
    CK_ULONG ol = 0;
    OK(F->C_EncryptInit(s, &m, k));
    OK(F->C_Encrypt(s, pt, pl, NULL, &ol));
    CHECK(ol == cl, "%s: length query %lu", name, ol);
    OK(F->C_Encrypt(s, pt, pl, out, &ol));
    CHECK(ol == cl, "%s: length %lu", name, ol);
    CHECK_BYTES(out, ct, cl, name);
    /* split inside the first block, across the second, at the third's end */
    size_t cuts[] = {5, n + 3, 3 * n};
    memset(out, 0, sizeof out);
    OK(F->C_EncryptInit(s, &m, k));
    CHECK(crypt_parts(s, 1, pt, pl, cuts, 3, out, sizeof out) == cl, "%s: multi-part length", name);
    CHECK_BYTES(out, ct, cl, "multi-part encryption is the example's");
    CK_ULONG bl = sizeof back;
    OK(F->C_DecryptInit(s, &m, k));
    OK(F->C_Decrypt(s, ct, cl, back, &bl));
    CHECK(bl == pl, "%s: decrypted length", name);
    CHECK_BYTES(back, pt, pl, "decrypts the example");
    size_t dcuts[] = {1, 2 * n - 1};
    memset(back, 0, sizeof back);
    OK(F->C_DecryptInit(s, &m, k));
    CHECK(crypt_parts(s, 0, ct, cl, dcuts, 2, back, sizeof back) == pl, "%s: multi-part", name);
    CHECK_BYTES(back, pt, pl, "multi-part decryption");
    if (cbc) { /* no padding: whole blocks only */
      OK(F->C_EncryptInit(s, &m, k));
      ol = sizeof out;
      CHECK_RV(F->C_Encrypt(s, pt, pl - 1, out, &ol), CKR_DATA_LEN_RANGE, "CBC, a partial block");
      OK(F->C_DecryptInit(s, &m, k));
      bl = sizeof back;
      CHECK_RV(F->C_Decrypt(s, ct, n + 1, back, &bl), CKR_ENCRYPTED_DATA_LEN_RANGE,
               "CBC decryption, a partial block");
      OK(F->C_EncryptInit(s, &m, k));
      ol = sizeof out;
      OK(F->C_EncryptUpdate(s, pt, n + 5, out, &ol));
      CHECK(ol == n, "CBC update: the whole block out (%lu)", ol);
      ol = sizeof out;
      CHECK_RV(F->C_EncryptFinal(s, out, &ol), CKR_DATA_LEN_RANGE, "CBC final, 5 bytes held");
      OK(F->C_DecryptInit(s, &m, k));
      bl = sizeof back;
      OK(F->C_DecryptUpdate(s, ct, 3, back, &bl));
      CHECK(bl == 0, "CBC decryption holds a partial block (%lu)", bl);
      bl = sizeof back;
      CHECK_RV(F->C_DecryptFinal(s, back, &bl), CKR_ENCRYPTED_DATA_LEN_RANGE,
               "CBC decryption final, 3 bytes held");
    } else { /* the stream modes: any length, the example's prefix */
      OK(F->C_EncryptInit(s, &m, k));
      ol = sizeof out;
      OK(F->C_Encrypt(s, pt, pl - 3, out, &ol));
      CHECK(ol == pl - 3, "%s: a partial block out", name);
      CHECK_BYTES(out, ct, pl - 3, "a partial last block");
    }
    /* IV lengths: the standard's others against libgostx, wrong ones refused */
    const gostx_cipher *gc = t_cipher(magma ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK, key);
    uint8_t miv[64];
    t_rand_bytes(miv, sizeof miv);
    size_t good = cbc || !strcmp(mode, "OFB") || !strcmp(mode, "CFB") ? 64 : n / 2;
    int r = 0;
    if (cbc)
      r = gostx_cbc_encrypt(gc, miv, good, pt, pl, ref);
    else if (!strcmp(mode, "OFB"))
      r = gostx_ofb_crypt(gc, miv, good, n, pt, pl, ref);
    else if (!strcmp(mode, "CFB"))
      r = gostx_cfb_encrypt(gc, miv, good, n, pt, pl, ref);
    else
      r = gostx_ctr_crypt(gc, miv, good, n, pt, pl, ref);
    CHECK(r == 0, "libgostx %s", name);
    CK_MECHANISM mm = {mt, miv, good};
    OK(F->C_EncryptInit(s, &mm, k));
    ol = sizeof out;
    OK(F->C_Encrypt(s, pt, pl, out, &ol));
    CHECK_BYTES(out, ref, pl, "an IV of another allowed length equals libgostx's");
    /* none; short of a block (CTR: over half a block); over 64 bytes (CTR:
     * a block); not whole blocks (CFB takes any length from a block to 64
     * bytes, so not this one) */
    size_t bad[] = {0, n / 2 + 1, good == 64 ? 64 + n : n, n + 1};
    memcpy(big, miv, sizeof miv);
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
      if (!strcmp(mode, "CFB") && bad[j] == n + 1)
        continue;
      CK_MECHANISM w = {mt, big, bad[j]};
      CHECK_RV(F->C_EncryptInit(s, &w, k), CKR_MECHANISM_PARAM_INVALID, "a wrong IV length");
      CHECK_RV(F->C_DecryptInit(s, &w, k), CKR_MECHANISM_PARAM_INVALID, "a wrong IV length");
    }
    CK_MECHANISM none = {mt, NULL, ivl};
    CHECK_RV(F->C_EncryptInit(s, &none, k), CKR_MECHANISM_PARAM_INVALID, "a NULL IV");
    OK(F->C_DestroyObject(s, k));
    free(key), free(iv), free(pt), free(ct);
  }
  CHECK(seen == 8, "CBC, CFB, OFB, CTR examples for both ciphers (%d)", seen);
  json_free(f);
}

/* OMAC (GOST R 34.13-2015 A.1.6, A.2.6): the full block, multi-part. */
static void omac(CK_SESSION_HANDLE s) {
  tv_iter it = tv_open("modes-3413.json");
  int seen = 0;
  for (const json *c; (c = tv_next_where(&it, "mode", "MAC")) != NULL; seen++) {
    int magma = is_magma(c);
    size_t kl, pl, ml;
    uint8_t *key = tv_hex(c, "key", &kl), *pt = tv_hex(c, "plaintext", &pl);
    uint8_t *want = tv_hex(c, "mac_full_block", &ml);
    CK_OBJECT_HANDLE k = secret_key(s, magma ? CKK_MAGMA : CKK_KUZNYECHIK, key, kl, 0);
    CK_MECHANISM m = {magma ? CKM_MAGMA_MAC : CKM_KUZNYECHIK_MAC, NULL, 0};
    uint8_t mac[32], ref[16];
    CK_ULONG l = 0;
    OK(F->C_SignInit(s, &m, k));
    OK(F->C_Sign(s, pt, pl, NULL, &l));
    CHECK(l == ml, "OMAC length %lu", l);
    OK(F->C_Sign(s, pt, pl, mac, &l));
    CHECK_BYTES(mac, want, ml, tv_str(c, "name"));
    OK(F->C_SignInit(s, &m, k));
    OK(F->C_SignUpdate(s, pt, 3));
    OK(F->C_SignUpdate(s, pt + 3, pl - 3));
    l = sizeof mac;
    OK(F->C_SignFinal(s, mac, &l));
    CHECK_BYTES(mac, want, ml, "OMAC multi-part");
    const gostx_cipher *gc = t_cipher(magma ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK, key);
    CHECK(gostx_omac(gc, pt, 7, ref, ml) == 0, "libgostx OMAC");
    OK(F->C_SignInit(s, &m, k));
    OK(F->C_Sign(s, pt, 7, mac, &l));
    CHECK_BYTES(mac, ref, ml, "OMAC of a partial block equals libgostx's");
    OK(F->C_VerifyInit(s, &m, k));
    OK(F->C_Verify(s, pt, pl, want, ml));
    want[0] ^= 1;
    OK(F->C_VerifyInit(s, &m, k));
    CHECK_RV(F->C_Verify(s, pt, pl, want, ml), CKR_SIGNATURE_INVALID, "changed OMAC");
    CK_MECHANISM other = {magma ? CKM_KUZNYECHIK_MAC : CKM_MAGMA_MAC, NULL, 0};
    CHECK_RV(F->C_SignInit(s, &other, k), CKR_KEY_TYPE_INCONSISTENT, "OMAC of the other cipher");
    free(key), free(pt), free(want);
  }
  CHECK(seen == 2, "two OMAC examples (%d)", seen);
  tv_close(&it);
}

/* KExp15 / KImp15 (R 1323565.1.017-2018 example): C_WrapKey with a twin
 * key K_exp_mac || K_exp_enc gives the example's output; C_UnwrapKey gets
 * the key back; a changed byte, a non-extractable key are refused. */
static void kexp15(CK_SESSION_HANDLE s) {
  json *f = tv_load("kexp15.json"), *cases = tv_cases(f);
  for (size_t i = 0; i < json_len(cases); i++) {
    const json *c = json_at(cases, i);
    int magma = is_magma(c);
    size_t kl, el, ml, ivl, wl;
    uint8_t *key = tv_hex(c, "key", &kl), *enc = tv_hex(c, "key_exp_enc", &el);
    uint8_t *mac = tv_hex(c, "key_exp_mac", &ml), *iv = tv_hex(c, "iv", &ivl);
    uint8_t *want = tv_hex(c, "kexp15", &wl), twin[64];
    memcpy(twin, mac, 32);
    memcpy(twin + 32, enc, 32);
    CK_KEY_TYPE kt = magma ? CKK_MAGMA : CKK_KUZNYECHIK;
    CK_OBJECT_HANDLE w =
        secret_key(s, magma ? CKK_MAGMA_TWIN_KEY : CKK_KUZNYECHIK_TWIN_KEY, twin, 64, 0);
    CK_OBJECT_HANDLE k = secret_key(s, kt, key, kl, 1);
    CK_MECHANISM m = {magma ? CKM_MAGMA_KEXP_15_WRAP : CKM_KUZNYECHIK_KEXP_15_WRAP, iv, ivl};
    uint8_t out[128], back[64];
    CK_ULONG ol = 0;
    OK(F->C_WrapKey(s, &m, w, k, NULL, &ol));
    CHECK(ol == wl, "KExp15 length query %lu", ol);
    OK(F->C_WrapKey(s, &m, w, k, out, &ol));
    CHECK_BYTES(out, want, wl, tv_str(c, "name"));
    /* libgostx on the same keys */
    size_t rl = 0;
    uint8_t ref[128];
    gostx_cipher ce, cm;
    gostx_alg alg = magma ? GOSTX_ALG_MAGMA : GOSTX_ALG_KUZNYECHIK;
    CHECK(gostx_cipher_init(&ce, alg, enc) == 0 && gostx_cipher_init(&cm, alg, mac) == 0, "ciphers");
    CHECK(gostx_kexp15(&ce, &cm, iv, ivl, key, kl, ref, &rl) == 0 && rl == ol, "libgostx KExp15");
    CHECK_BYTES(out, ref, rl, "KExp15 equals libgostx's");
    CK_OBJECT_CLASS sc = CKO_SECRET_KEY;
    CK_BBOOL no = CK_FALSE, yes = CK_TRUE;
    CK_ATTRIBUTE ut[] = {{CKA_CLASS, &sc, sizeof sc}, {CKA_KEY_TYPE, &kt, sizeof kt},
                         {CKA_SENSITIVE, &no, 1}, {CKA_EXTRACTABLE, &yes, 1}};
    CK_OBJECT_HANDLE u;
    OK(F->C_UnwrapKey(s, &m, w, want, wl, ut, 4, &u));
    CK_ATTRIBUTE v = {CKA_VALUE, back, sizeof back};
    OK(F->C_GetAttributeValue(s, u, &v, 1));
    CHECK(v.ulValueLen == kl, "KImp15 key length");
    CHECK_BYTES(back, key, kl, "KImp15 gets the key back");
    want[wl - 1] ^= 1;
    CHECK_RV(F->C_UnwrapKey(s, &m, w, want, wl, ut, 4, &u), CKR_WRAPPED_KEY_INVALID,
             "KImp15, changed");
    CK_OBJECT_HANDLE locked = secret_key(s, kt, key, kl, 0);
    ol = sizeof out;
    CHECK_RV(F->C_WrapKey(s, &m, w, locked, out, &ol), CKR_KEY_UNEXTRACTABLE, "a non-extractable key");
    CHECK_RV(F->C_WrapKey(s, &m, k, k, out, &ol), CKR_WRAPPING_KEY_TYPE_INCONSISTENT,
             "a single key as the wrapping key");
    m.ulParameterLen = ivl + 1;
    CHECK_RV(F->C_WrapKey(s, &m, w, k, out, &ol), CKR_MECHANISM_PARAM_INVALID, "IV length");
    free(key), free(enc), free(mac), free(iv), free(want);
  }
  json_free(f);
}

/* Multi-part ECB against single-part; CKA_ALLOWED_MECHANISMS; C_CopyObject. */
static void objects_and_parts(CK_SESSION_HANDLE s) {
  uint8_t key[32], data[160], a[200], b[200];
  t_rand_bytes(key, sizeof key);
  t_rand_bytes(data, sizeof data);
  CK_OBJECT_HANDLE k = secret_key(s, CKK_KUZNYECHIK, key, 32, 0);
  CK_MECHANISM ecb = {CKM_KUZNYECHIK_ECB, NULL, 0};
  CK_ULONG al = sizeof a, l1 = sizeof b, l2, l3;
  OK(F->C_EncryptInit(s, &ecb, k));
  OK(F->C_Encrypt(s, data, sizeof data, a, &al));
  OK(F->C_EncryptInit(s, &ecb, k));
  OK(F->C_EncryptUpdate(s, data, 20, b, &l1));
  CHECK(l1 == 16, "ECB update gives whole blocks (%lu)", l1);
  l2 = 0;
  OK(F->C_EncryptUpdate(s, data + 20, 100, NULL, &l2));
  CHECK(l2 == 96, "ECB update length query: the whole blocks of 4 held + 100 (%lu)", l2);
  OK(F->C_EncryptUpdate(s, data + 20, 100, b + l1, &l2));
  l3 = sizeof b - l1 - l2;
  OK(F->C_EncryptUpdate(s, data + 120, 40, b + l1 + l2, &l3));
  CK_ULONG lf = sizeof b;
  OK(F->C_EncryptFinal(s, b + l1 + l2 + l3, &lf));
  CHECK(l1 + l2 + l3 == al && lf == 0, "ECB multi-part length");
  CHECK_BYTES(b, a, al, "ECB multi-part equals single-part");
  OK(F->C_EncryptInit(s, &ecb, k));
  l1 = sizeof b;
  OK(F->C_EncryptUpdate(s, data, 20, b, &l1));
  lf = sizeof b;
  CHECK_RV(F->C_EncryptFinal(s, b, &lf), CKR_DATA_LEN_RANGE, "ECB final with a partial block");
  uint8_t nonce[16] = {0};
  CK_GCM_PARAMS gp = {nonce, 16, 128, NULL, 0, 128};
  CK_MECHANISM mgm = {CKM_KUZNYECHIK_MGM, &gp, sizeof gp};
  OK(F->C_EncryptInit(s, &mgm, k));
  l1 = sizeof b;
  CHECK_RV(F->C_EncryptUpdate(s, data, 16, b, &l1), CKR_FUNCTION_NOT_SUPPORTED, "MGM is single-part");

  /* a key allowed only ECB */
  CK_OBJECT_CLASS sc = CKO_SECRET_KEY;
  CK_KEY_TYPE kt = CKK_KUZNYECHIK;
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_MECHANISM_TYPE allowed[] = {CKM_KUZNYECHIK_ECB};
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &sc, sizeof sc},
                      {CKA_KEY_TYPE, &kt, sizeof kt},
                      {CKA_VALUE, key, 32},
                      {CKA_ENCRYPT, &yes, 1},
                      {CKA_ALLOWED_MECHANISMS, allowed, sizeof allowed},
                      {CKA_LABEL, "orig", 4}};
  CK_OBJECT_HANDLE only;
  OK(F->C_CreateObject(s, t, 6, &only));
  OK(F->C_EncryptInit(s, &ecb, only));
  al = sizeof a;
  OK(F->C_Encrypt(s, data, 16, a, &al));
  CK_MECHANISM mac = {CKM_KUZNYECHIK_MAC, NULL, 0};
  CHECK_RV(F->C_SignInit(s, &mac, only), CKR_MECHANISM_INVALID,
           "a mechanism CKA_ALLOWED_MECHANISMS lacks");
  uint8_t got[64];
  CK_ATTRIBUTE ga = {CKA_ALLOWED_MECHANISMS, got, sizeof got};
  OK(F->C_GetAttributeValue(s, only, &ga, 1));
  CHECK(ga.ulValueLen == sizeof allowed && memcmp(got, allowed, sizeof allowed) == 0,
        "CKA_ALLOWED_MECHANISMS read back");
  t[4].ulValueLen = 3;
  CHECK_RV(F->C_CreateObject(s, t, 6, &only), CKR_ATTRIBUTE_VALUE_INVALID, "a ragged mechanism list");

  /* C_CopyObject: a new label, the value kept, still sensitive */
  CK_ATTRIBUTE ct[] = {{CKA_LABEL, "copy", 4}, {CKA_COPYABLE, &no, 1}};
  CK_OBJECT_HANDLE cp = 0, cp2;
  OK(F->C_CopyObject(s, k, ct, 2, &cp));
  CHECK(cp != k, "a new handle");
  char lab[8];
  CK_ATTRIBUTE lq[] = {{CKA_LABEL, lab, sizeof lab}, {CKA_VALUE, got, sizeof got}};
  CHECK_RV(F->C_GetAttributeValue(s, cp, lq, 2), CKR_ATTRIBUTE_SENSITIVE, "the copy stays sensitive");
  CHECK(lq[0].ulValueLen == 4 && memcmp(lab, "copy", 4) == 0, "the copy's label");
  OK(F->C_EncryptInit(s, &ecb, cp));
  al = sizeof a;
  OK(F->C_Encrypt(s, data, 16, a, &al));
  OK(F->C_EncryptInit(s, &ecb, k));
  l1 = sizeof b;
  OK(F->C_Encrypt(s, data, 16, b, &l1));
  CHECK_BYTES(a, b, 16, "the copy encrypts as the original");
  CHECK_RV(F->C_CopyObject(s, cp, NULL, 0, &cp2), CKR_ACTION_PROHIBITED, "CKA_COPYABLE false");
  CK_ATTRIBUTE vt[] = {{CKA_VALUE, key, 32}};
  CHECK_RV(F->C_CopyObject(s, k, vt, 1, &cp2), CKR_ATTRIBUTE_READ_ONLY, "a copy's new value");
  CK_ATTRIBUTE et[] = {{CKA_EXTRACTABLE, &yes, 1}};
  CHECK_RV(F->C_CopyObject(s, k, et, 1, &cp2), CKR_ATTRIBUTE_READ_ONLY, "a copy made extractable");
}

int main(int argc, char **argv) {
  t_rand_init();
  if (argc < 2) {
    fprintf(stderr, "usage: p11_module_test MODULE\n");
    return 2;
  }
  char dir[] = "/tmp/gostx-p11-test-XXXXXX";
  if (p11_scratch(dir))
    return 2;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  /* POSIX's way to take a function from dlsym without an ISO C cast */
  CK_C_GetFunctionList gfl;
  CK_C_GetInterface gi;
  *(void **)&gfl = dlsym(lib, "C_GetFunctionList");
  *(void **)&gi = dlsym(lib, "C_GetInterface");
  CHECK(gfl && gi, "C_GetFunctionList and C_GetInterface exported");
  if (!gfl || !gi)
    return t_done();
  OK(gfl(&F));
  CHECK(F->version.major == 2 && F->version.minor == 40, "2.40 list");
  CK_INTERFACE *ifc = NULL;
  OK(gi((CK_UTF8CHAR *)"PKCS 11", NULL, &ifc, 0));
  CK_FUNCTION_LIST_3_0 *F3 = ifc ? ifc->pFunctionList : NULL;
  CHECK(F3 && F3->version.major == 3 && F3->C_Sign == F->C_Sign &&
            F3->C_GetInterface == (CK_C_GetInterface)gi,
        "3.0 list: same functions, in the standard's places");
  CK_VERSION v240 = {2, 40};
  OK(gi(NULL, &v240, &ifc, 0));
  CHECK(ifc && ifc->pFunctionList == (void *)F, "C_GetInterface 2.40 = C_GetFunctionList's");

  CK_C_INITIALIZE_ARGS ia = {NULL, NULL, NULL, NULL, CKF_OS_LOCKING_OK, NULL};
  CHECK_RV(F->C_GetInfo(&(CK_INFO){0}), CKR_CRYPTOKI_NOT_INITIALIZED, "before C_Initialize");
  OK(F->C_Initialize(&ia));
  CHECK_RV(F->C_Initialize(&ia), CKR_CRYPTOKI_ALREADY_INITIALIZED, "twice");

  CK_ULONG n = 0;
  CK_SLOT_ID slots[8];
  OK(F->C_GetSlotList(CK_TRUE, NULL, &n));
  CHECK(n == 1, "an empty folder: one free slot (%lu)", n);
  CHECK(!(token_flags(0) & CKF_TOKEN_INITIALIZED), "the free slot's token is not initialised");
  CK_UTF8CHAR label[32];
  memset(label, ' ', 32);
  memcpy(label, "test token", 10);
  CHECK_RV(F->C_InitToken(0, (CK_UTF8CHAR *)"abc", 3, label), CKR_PIN_LEN_RANGE, "short SO PIN");
  OK(F->C_InitToken(0, (CK_UTF8CHAR *)SO, strlen(SO), label));
  n = 8;
  OK(F->C_GetSlotList(CK_TRUE, NULL, &n));
  OK(F->C_GetSlotList(CK_TRUE, slots, &n));
  CHECK(n == 2, "a token and a new free slot (%lu)", n);
  CK_SLOT_ID slot = slots[0];
  CK_FLAGS fl = token_flags(slot);
  CHECK((fl & CKF_TOKEN_INITIALIZED) && !(fl & CKF_USER_PIN_INITIALIZED) && (fl & CKF_RNG) &&
            (fl & CKF_LOGIN_REQUIRED),
        "flags after C_InitToken: 0x%lx", fl);

  CK_SESSION_HANDLE s = open_rw(slot);
  CHECK_RV(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN)), CKR_USER_PIN_NOT_INITIALIZED,
           "user before C_InitPIN");
  OK(F->C_Login(s, CKU_SO, (CK_UTF8CHAR *)SO, strlen(SO)));
  OK(F->C_InitPIN(s, (CK_UTF8CHAR *)PIN, strlen(PIN)));
  OK(F->C_Logout(s));
  CHECK(token_flags(slot) & CKF_USER_PIN_INITIALIZED, "user PIN initialised");

  /* Wrong PINs: refused by the MGM tag, counted, flags say so. */
  CHECK_RV(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"wrong-pin", 9), CKR_PIN_INCORRECT, "wrong PIN");
  CHECK(token_flags(slot) & CKF_USER_PIN_COUNT_LOW, "a wrong PIN sets COUNT_LOW");
  OK(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN)));
  CHECK(!(token_flags(slot) & CKF_USER_PIN_COUNT_LOW), "a right PIN resets the count");
  CK_SESSION_INFO si;
  OK(F->C_GetSessionInfo(s, &si));
  CHECK(si.state == CKS_RW_USER_FUNCTIONS, "session state %lu", si.state);

  for (int c = GOSTX_GOST3410_256_A; c <= GOSTX_GOST3410_512_C; c++) {
    if (c == GOSTX_GOST3410_512_TEST)
      continue;
    key_pair(s, (gostx_gost3410_curve)c);
  }
  vko(s, GOSTX_GOST3410_256_A);
  vko(s, GOSTX_GOST3410_512_A);
  secret(s);
  ctr_acpkm(s);
  r3413_modes(s);
  omac(s);
  kexp15(s);
  objects_and_parts(s);

  /* Digests equal libgostx's. */
  CK_MECHANISM dm = {CKM_GOSTR3411_12_256, NULL, 0};
  uint8_t data[300], dg[64], want[64];
  CK_ULONG dl = sizeof dg;
  t_rand_bytes(data, sizeof data);
  OK(F->C_DigestInit(s, &dm));
  OK(F->C_DigestUpdate(s, data, 100));
  OK(F->C_DigestUpdate(s, data + 100, 200));
  OK(F->C_DigestFinal(s, dg, &dl));
  gostx_streebog(32, data, sizeof data, want);
  CHECK(dl == 32, "digest length");
  CHECK_BYTES(dg, want, 32, "Streebog-256 through the token");
  dm.mechanism = CKM_GOSTR3411_12_512;
  dl = sizeof dg;
  OK(F->C_DigestInit(s, &dm));
  OK(F->C_Digest(s, data, sizeof data, dg, &dl));
  gostx_streebog(64, data, sizeof data, want);
  CHECK_BYTES(dg, want, 64, "Streebog-512 through the token");

  /* A certificate object, its attributes, a change to its label. */
  CK_OBJECT_CLASS cc = CKO_CERTIFICATE;
  CK_CERTIFICATE_TYPE ct = CKC_X_509;
  CK_BBOOL yes = CK_TRUE;
  uint8_t subj[] = {0x30, 0x00}, cval[] = {0x30, 0x03, 0x02, 0x01, 0x01}, cid[] = {7};
  CK_ATTRIBUTE ca[] = {{CKA_CLASS, &cc, sizeof cc}, {CKA_CERTIFICATE_TYPE, &ct, sizeof ct},
                       {CKA_TOKEN, &yes, 1}, {CKA_SUBJECT, subj, 2}, {CKA_VALUE, cval, 5},
                       {CKA_ID, cid, 1}, {CKA_LABEL, "cert", 4}};
  CK_OBJECT_HANDLE ch;
  CK_ULONG cnt;
  OK(F->C_CreateObject(s, ca, 7, &ch));
  CK_ATTRIBUTE q1[] = {{CKA_VALUE, NULL, 0}, {CKA_KEY_TYPE, NULL, 0}};
  CHECK_RV(F->C_GetAttributeValue(s, ch, q1, 2), CKR_ATTRIBUTE_TYPE_INVALID, "no key type on a cert");
  CHECK(q1[0].ulValueLen == 5 && q1[1].ulValueLen == CK_UNAVAILABLE_INFORMATION,
        "length query: %lu, unavailable: %lx", q1[0].ulValueLen, q1[1].ulValueLen);
  uint8_t other_id[] = {9};
  find_one(s, CKO_CERTIFICATE, other_id, 1, &cnt);
  CHECK(cnt == 0, "a one-byte CKA_ID matches only itself (%lu found)", cnt);
  CK_ATTRIBUTE lab = {CKA_LABEL, "renamed", 7};
  OK(F->C_SetAttributeValue(s, ch, &lab, 1));
  CK_ATTRIBUTE cls_change = {CKA_CLASS, &cc, sizeof cc};
  CHECK_RV(F->C_SetAttributeValue(s, ch, &cls_change, 1), CKR_ATTRIBUTE_READ_ONLY, "class fixed");
  CK_OBJECT_HANDLE ss;
  {
    CK_OBJECT_CLASS dc = CKO_DATA;
    CK_ATTRIBUTE da[] = {{CKA_CLASS, &dc, sizeof dc}, {CKA_LABEL, "session", 7}};
    OK(F->C_CreateObject(s, da, 2, &ss));
  }

  /* A restart: the token objects are there again, the session one gone,
   * private ones only after login. */
  OK(F->C_Finalize(NULL));
  OK(F->C_Initialize(NULL));
  s = open_rw(slot);
  CHECK(find_one(s, CKO_CERTIFICATE, cid, 1, &cnt) && cnt == 1, "certificate after restart");
  uint8_t kid[2] = {0x42, GOSTX_GOST3410_256_B};
  find_one(s, CKO_PRIVATE_KEY, kid, 2, &cnt);
  CHECK(cnt == 0, "private key hidden before login");
  find_one(s, CKO_PUBLIC_KEY, kid, 2, &cnt);
  CHECK(cnt == 1, "public key seen before login");
  char lb[16];
  CK_ATTRIBUTE lq = {CKA_LABEL, lb, sizeof lb};
  OK(F->C_GetAttributeValue(s, find_one(s, CKO_CERTIFICATE, cid, 1, &cnt), &lq, 1));
  CHECK(lq.ulValueLen == 7 && memcmp(lb, "renamed", 7) == 0, "the new label was stored");
  OK(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN)));
  CK_OBJECT_HANDLE k = find_one(s, CKO_PRIVATE_KEY, kid, 2, &cnt);
  CHECK(cnt == 1, "private key after login");
  CK_MECHANISM hm = {CKM_GOSTR3410_WITH_GOSTR3411_12_256, NULL, 0};
  uint8_t sig[64];
  CK_ULONG sl = sizeof sig;
  OK(F->C_SignInit(s, &hm, k));
  OK(F->C_Sign(s, data, 10, sig, &sl));
  OK(F->C_VerifyInit(s, &hm, find_one(s, CKO_PUBLIC_KEY, kid, 2, &cnt)));
  OK(F->C_Verify(s, data, 10, sig, sl));
  CHECK_RV(F->C_DestroyObject(s, k), CKR_OK, "destroy");
  find_one(s, CKO_PRIVATE_KEY, kid, 2, &cnt);
  CHECK(cnt == 0, "destroyed");

  /* The wrong PIN count survives a restart; ten lock the PIN. */
  OK(F->C_Logout(s));
  for (int i = 0; i < P11_TRIES; i++)
    CHECK_RV(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"bad-pin!", 8), CKR_PIN_INCORRECT, "wrong PIN");
  fl = token_flags(slot);
  CHECK((fl & CKF_USER_PIN_FINAL_TRY) && (fl & CKF_USER_PIN_COUNT_LOW), "final try: 0x%lx", fl);
  OK(F->C_Finalize(NULL));
  OK(F->C_Initialize(NULL));
  s = open_rw(slot);
  CHECK_RV(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"bad-pin!", 8), CKR_PIN_INCORRECT, "last try");
  CHECK(token_flags(slot) & CKF_USER_PIN_LOCKED, "locked after ten");
  CHECK_RV(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN)), CKR_PIN_LOCKED,
           "locked: even the right PIN refused");
  /* The SO unlocks it by setting a new user PIN. */
  OK(F->C_Login(s, CKU_SO, (CK_UTF8CHAR *)SO, strlen(SO)));
  OK(F->C_InitPIN(s, (CK_UTF8CHAR *)"new-pin-1", 9));
  OK(F->C_Logout(s));
  OK(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"new-pin-1", 9));
  OK(F->C_SetPIN(s, (CK_UTF8CHAR *)"new-pin-1", 9, (CK_UTF8CHAR *)PIN, strlen(PIN)));
  OK(F->C_Logout(s));
  OK(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN)));
  uint8_t rnd[32] = {0}, zero[32] = {0};
  OK(F->C_GenerateRandom(s, rnd, sizeof rnd));
  CHECK(memcmp(rnd, zero, 32) != 0, "random bytes");
  OK(F->C_Finalize(NULL));

  /* A token whose folder goes away under an open session: named as
   * removed, not as some other failure. */
  OK(F->C_Initialize(NULL));
  n = 8;
  OK(F->C_GetSlotList(CK_TRUE, NULL, &n));
  OK(F->C_InitToken(n - 1, (CK_UTF8CHAR *)SO, strlen(SO), label));
  CK_TOKEN_INFO gti;
  OK(F->C_GetTokenInfo(n - 1, &gti));
  s = open_rw(n - 1);
  /* A key in the session, signing before; then the folder moved away
   * (renamed, as a user takes a token's folder elsewhere) between a
   * C_SignInit and its C_Sign: every call on the session says removed. */
  OK(F->C_Login(s, CKU_SO, (CK_UTF8CHAR *)SO, strlen(SO)));
  OK(F->C_InitPIN(s, (CK_UTF8CHAR *)PIN, strlen(PIN)));
  OK(F->C_Logout(s));
  OK(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN)));
  uint8_t rder[32], rsig[64], rmsg[3] = {1, 2, 3};
  CK_ULONG rder_len, rsl = sizeof rsig;
  der_of(GOSTX_GOST3410_256_A, rder, &rder_len);
  CK_BBOOL ryes = CK_TRUE;
  CK_MECHANISM rgen = {CKM_GOSTR3410_KEY_PAIR_GEN, NULL, 0};
  CK_MECHANISM rsm = {CKM_GOSTR3410_WITH_GOSTR3411_12_256, NULL, 0};
  CK_ATTRIBUTE rpub[] = {{CKA_GOSTR3410_PARAMS, rder, rder_len}};
  CK_ATTRIBUTE rpriv[] = {{CKA_SIGN, &ryes, 1}};
  CK_OBJECT_HANDLE rpk, rvk;
  OK(F->C_GenerateKeyPair(s, &rgen, rpub, 1, rpriv, 1, &rpk, &rvk));
  OK(F->C_SignInit(s, &rsm, rvk));
  OK(F->C_Sign(s, rmsg, sizeof rmsg, rsig, &rsl));
  OK(F->C_SignInit(s, &rsm, rvk));
  char gone[256];
  snprintf(gone, sizeof gone, "mv '%s/%.16s' '%s/away'", dir, (const char *)gti.serialNumber, dir);
  CHECK(system(gone) == 0, "%s", gone);
  /* The module looks at the folder at most once per P11_LOOK_NS (1 ms):
   * 2 ms on from the move it has looked again (a lower bound, which load
   * only lengthens). */
  struct timespec past = {0, 2000000};
  nanosleep(&past, NULL);
  rsl = sizeof rsig;
  CHECK_RV(F->C_Sign(s, rmsg, sizeof rmsg, rsig, &rsl), CKR_DEVICE_REMOVED, "folder moved: sign");
  CHECK_RV(F->C_SignInit(s, &rsm, rvk), CKR_DEVICE_REMOVED, "folder moved: sign init");
  CK_SESSION_INFO rsi;
  CHECK_RV(F->C_GetSessionInfo(s, &rsi), CKR_DEVICE_REMOVED, "folder moved: session info");
  CHECK_RV(F->C_GenerateRandom(s, rsig, 8), CKR_DEVICE_REMOVED, "folder moved: random");
  CK_SESSION_HANDLE rs2;
  CHECK_RV(F->C_OpenSession(n - 1, CKF_SERIAL_SESSION, NULL, NULL, &rs2), CKR_TOKEN_NOT_PRESENT,
           "folder moved: open session");
  CK_SLOT_INFO rsl_info;
  OK(F->C_GetSlotInfo(n - 1, &rsl_info));
  CHECK(!(rsl_info.flags & CKF_TOKEN_PRESENT), "folder moved: the slot shows no token");
  snprintf(gone, sizeof gone, "rm -rf '%s/away'", dir);
  CHECK(system(gone) == 0, "%s", gone);
  CK_OBJECT_CLASS any = CKO_DATA;
  CK_ATTRIBUTE ft = {CKA_CLASS, &any, sizeof any};
  CHECK_RV(F->C_FindObjectsInit(s, &ft, 1), CKR_DEVICE_REMOVED, "folder gone: find");
  CHECK_RV(F->C_Login(s, CKU_SO, (CK_UTF8CHAR *)SO, strlen(SO)), CKR_DEVICE_REMOVED,
           "folder gone: login");
  CHECK_RV(F->C_GetTokenInfo(n - 1, &gti), CKR_TOKEN_NOT_PRESENT, "folder gone: token info");
  OK(F->C_Finalize(NULL));

  /* The application's mutexes, as C_Initialize's arguments allow. */
  CK_C_INITIALIZE_ARGS half = {app_create, NULL, NULL, NULL, 0, NULL};
  CHECK_RV(F->C_Initialize(&half), CKR_ARGUMENTS_BAD, "some mutex callbacks but not all");
  CK_C_INITIALIZE_ARGS app = {app_create, app_destroy, app_lock, app_unlock, 0, NULL};
  OK(F->C_Initialize(&app));
  n = 8;
  OK(F->C_GetSlotList(CK_TRUE, slots, &n));
  CHECK(g_app_locks > 0, "the application's mutex used (%d locks)", g_app_locks);
  OK(F->C_Finalize(NULL));
  dlclose(lib);

  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", dir);
  return t_done();
}
