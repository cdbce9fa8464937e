/* Load on gostx's PKCS#11 token from many processes and threads, for
 * tests/pkcs11/test_p11_stress.sh:
 *   p11_stress MODULE PIN gen N      N key pairs (token objects), each
 *                                    signing once; prints "made ID" after
 *                                    each pair is stored
 *   p11_stress MODULE PIN threads T N  T threads, a session each, N
 *                                    signatures each with one shared key,
 *                                    every one verified
 *   p11_stress MODULE PIN check      every private key signs and its public
 *                                    key verifies; prints "pairs N files F"
 *                                    (F: object files in the token folder)
 *   p11_stress MODULE PIN init       makes the first slot's token (SO PIN
 *                                    "so-pin-0", label "stress") and sets
 *                                    the user PIN
 * The token is the first slot's, logged in as the user with PIN. Exit 0
 * when everything it did worked, 1 on the first failure (named). */
#include <dirent.h>
#include <pthread.h>

#define P11_APP "p11_stress"
#include "p11_app.h"

static CK_FUNCTION_LIST *F;
static const char *PIN;
static CK_SLOT_ID SLOT;

/* 1.2.643.7.1.2.1.1.1: id-tc26-gost-3410-2012-256-paramSetA */
static CK_BYTE PARAMS[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x01, 0x01, 0x01};

static void gen_pair(CK_SESSION_HANDLE s, const CK_BYTE *id, CK_ULONG id_len, int token,
                     CK_OBJECT_HANDLE *pub, CK_OBJECT_HANDLE *priv) {
  CK_BBOOL tk = token ? CK_TRUE : CK_FALSE;
  CK_MECHANISM m = {CKM_GOSTR3410_KEY_PAIR_GEN, NULL, 0};
  CK_ATTRIBUTE pt[] = {{CKA_TOKEN, &tk, 1}, {CKA_GOSTR3410_PARAMS, PARAMS, sizeof PARAMS},
                       {CKA_ID, (void *)id, id_len}};
  CK_ATTRIBUTE vt[] = {{CKA_TOKEN, &tk, 1}, {CKA_ID, (void *)id, id_len}};
  p11_must(F->C_GenerateKeyPair(s, &m, pt, 3, vt, 2, pub, priv), "C_GenerateKeyPair");
}

static void sign_verify(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE pub, CK_OBJECT_HANDLE priv,
                        const char *what) {
  CK_MECHANISM m = {CKM_GOSTR3410_WITH_GOSTR3411_12_256, NULL, 0};
  CK_BYTE data[64], sig[64];
  CK_ULONG sl = sizeof sig;
  p11_must(F->C_GenerateRandom(s, data, sizeof data), "C_GenerateRandom");
  p11_must(F->C_SignInit(s, &m, priv), what);
  p11_must(F->C_Sign(s, data, sizeof data, sig, &sl), what);
  p11_must(F->C_VerifyInit(s, &m, pub), what);
  p11_must(F->C_Verify(s, data, sizeof data, sig, sl), what);
}

static CK_SESSION_HANDLE session(void) {
  CK_SESSION_HANDLE s;
  p11_must(F->C_OpenSession(SLOT, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s), "C_OpenSession");
  CK_RV rv = F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)PIN, strlen(PIN));
  if (rv != CKR_USER_ALREADY_LOGGED_IN)
    p11_must(rv, "C_Login");
  return s;
}

static struct {
  CK_OBJECT_HANDLE pub, priv;
  int n;
} g_shared;

static void *worker(void *arg) {
  (void)arg;
  CK_SESSION_HANDLE s = session();
  for (int i = 0; i < g_shared.n; i++)
    sign_verify(s, g_shared.pub, g_shared.priv, "a thread's signature");
  p11_must(F->C_CloseSession(s), "C_CloseSession");
  return NULL;
}

static CK_OBJECT_HANDLE find_pub(CK_SESSION_HANDLE s, const CK_BYTE *id, CK_ULONG id_len) {
  CK_OBJECT_CLASS c = CKO_PUBLIC_KEY;
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &c, sizeof c}, {CKA_ID, (void *)id, id_len}};
  CK_OBJECT_HANDLE h = 0;
  CK_ULONG n = 0;
  p11_must(F->C_FindObjectsInit(s, t, 2), "C_FindObjectsInit");
  p11_must(F->C_FindObjects(s, &h, 1, &n), "C_FindObjects");
  p11_must(F->C_FindObjectsFinal(s), "C_FindObjectsFinal");
  if (n != 1) {
    fprintf(stderr, "p11_stress: a private key without its public key\n");
    exit(1);
  }
  return h;
}

static int count_files(void) {
  CK_TOKEN_INFO ti;
  char path[4200], serial[17];
  p11_must(F->C_GetTokenInfo(SLOT, &ti), "C_GetTokenInfo");
  memcpy(serial, ti.serialNumber, 16);
  serial[16] = 0;
  snprintf(path, sizeof path, "%s/%s", getenv("GOSTX_PKCS11_DIR"), serial);
  DIR *d = opendir(path);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL)
    n += strncmp(e->d_name, "o-", 2) == 0;
  if (d)
    closedir(d);
  return n;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: p11_stress MODULE PIN gen N | threads T N | check\n");
    return 2;
  }
  CK_C_INITIALIZE_ARGS ia = {NULL, NULL, NULL, NULL, CKF_OS_LOCKING_OK, NULL};
  F = p11_load(argv[1], &ia);
  PIN = argv[2];
  SLOT = 0;
  if (strcmp(argv[3], "init") == 0) {
    p11_token_init(F, "stress", PIN);
    p11_must(F->C_Finalize(NULL), "C_Finalize");
    return 0;
  }
  CK_SESSION_HANDLE s = session();
  if (strcmp(argv[3], "gen") == 0 && argc == 5) {
    int n = atoi(argv[4]);
    for (int i = 0; i < n; i++) {
      CK_BYTE id[16];
      CK_OBJECT_HANDLE pub, priv;
      p11_must(F->C_GenerateRandom(s, id, sizeof id), "C_GenerateRandom");
      gen_pair(s, id, sizeof id, 1, &pub, &priv);
      sign_verify(s, pub, priv, "a new key's signature");
      printf("made ");
      for (size_t k = 0; k < sizeof id; k++)
        printf("%02x", id[k]);
      printf("\n");
      fflush(stdout);
    }
  } else if (strcmp(argv[3], "threads") == 0 && argc == 6) {
    int t = atoi(argv[4]);
    pthread_t th[64];
    if (t < 1 || t > 64)
      return 2;
    gen_pair(s, (const CK_BYTE *)"shared", 6, 0, &g_shared.pub, &g_shared.priv);
    g_shared.n = atoi(argv[5]);
    for (int i = 0; i < t; i++)
      if (pthread_create(&th[i], NULL, worker, NULL) != 0)
        return 1;
    for (int i = 0; i < t; i++)
      pthread_join(th[i], NULL);
    printf("threads %d signatures %d\n", t, t * g_shared.n);
  } else if (strcmp(argv[3], "check") == 0) {
    CK_OBJECT_CLASS c = CKO_PRIVATE_KEY;
    CK_ATTRIBUTE t = {CKA_CLASS, &c, sizeof c};
    CK_OBJECT_HANDLE h[4096];
    CK_ULONG n = 0;
    p11_must(F->C_FindObjectsInit(s, &t, 1), "C_FindObjectsInit");
    p11_must(F->C_FindObjects(s, h, 4096, &n), "C_FindObjects");
    p11_must(F->C_FindObjectsFinal(s), "C_FindObjectsFinal");
    for (CK_ULONG i = 0; i < n; i++) {
      CK_BYTE id[64];
      CK_ATTRIBUTE a = {CKA_ID, id, sizeof id};
      p11_must(F->C_GetAttributeValue(s, h[i], &a, 1), "C_GetAttributeValue");
      sign_verify(s, find_pub(s, id, a.ulValueLen), h[i], "a stored key's signature");
      printf("ok ");
      for (CK_ULONG k = 0; k < a.ulValueLen; k++)
        printf("%02x", id[k]);
      printf("\n");
    }
    printf("pairs %lu files %d\n", n, count_files());
  } else {
    return 2;
  }
  p11_must(F->C_Finalize(NULL), "C_Finalize");
  return 0;
}
