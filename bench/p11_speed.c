/* GOST R 34.10-2012 signatures per second through gostx's PKCS#11 token
 * (C_SignInit + C_Sign with CKM_GOSTR3410 / CKM_GOSTR3410_512, one
 * process, the session kept open) against libgostx's own
 * gostx_gost3410_sign on the same key and digest, runs interleaved, the
 * median of each and the token/library cost ratio (issue 80's target: at
 * most 1.2). bench/p11_speed.sh runs it.
 *   usage: p11_speed MODULE [SECONDS_PER_RUN [RUNS]]  (default 1 s, 5 runs) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gostx.h>

#include "harness.h"
#include "pkcs11/cryptoki.h"

static CK_FUNCTION_LIST *F;

typedef struct {
  gostx_gost3410_curve curve;
  size_t n;
  uint8_t d[64], digest[64], sig[128];
  CK_SESSION_HANDLE s;
  CK_OBJECT_HANDLE key;
  CK_MECHANISM mech;
} job;

static int lib_sign(void *arg) {
  job *j = arg;
  return gostx_gost3410_sign(j->curve, j->d, j->n, j->digest, j->n, j->sig, 2 * j->n);
}

static int token_sign(void *arg) {
  job *j = arg;
  CK_ULONG sl = sizeof j->sig;
  if (F->C_SignInit(j->s, &j->mech, j->key) != CKR_OK)
    return -1;
  return F->C_Sign(j->s, j->digest, j->n, j->sig, &sl) == CKR_OK ? 0 : -1;
}

static void rev(uint8_t *out, const uint8_t *in, size_t n) {
  for (size_t i = 0; i < n; i++)
    out[i] = in[n - 1 - i];
}

static int must(CK_RV rv, const char *what) {
  if (rv != CKR_OK) {
    fprintf(stderr, "p11_speed: %s: 0x%lx\n", what, (unsigned long)rv);
    exit(1);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: p11_speed MODULE [SECONDS_PER_RUN [RUNS]]\n");
    return 2;
  }
  double secs = argc > 2 ? atof(argv[2]) : 1.0;
  int runs = argc > 3 ? atoi(argv[3]) : 5;
  if (runs < 1 || runs > 50 || secs <= 0)
    return 2;
  char dir[] = "/tmp/gostx-p11-speed-XXXXXX";
  if (!mkdtemp(dir))
    return 1;
  setenv("GOSTX_PKCS11_DIR", dir, 1);
  setenv("GOSTX_PKCS11_KDF_ITER", "2000", 1); /* a fast token: many logins below */
  void *lib = dlopen(argv[1], RTLD_NOW);
  CK_C_GetFunctionList gfl = NULL;
  if (lib) /* POSIX's way to take a function from dlsym without an ISO C cast */
    *(void **)&gfl = dlsym(lib, "C_GetFunctionList");
  if (!gfl) {
    fprintf(stderr, "p11_speed: %s\n", dlerror());
    return 1;
  }
  must(gfl(&F), "C_GetFunctionList");
  must(F->C_Initialize(NULL), "C_Initialize");
  CK_UTF8CHAR label[32];
  memset(label, ' ', 32);
  must(F->C_InitToken(0, (CK_UTF8CHAR *)"so-pin-0", 8, label), "C_InitToken");
  CK_SESSION_HANDLE s;
  must(F->C_OpenSession(0, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s), "C_OpenSession");
  must(F->C_Login(s, CKU_SO, (CK_UTF8CHAR *)"so-pin-0", 8), "C_Login SO");
  must(F->C_InitPIN(s, (CK_UTF8CHAR *)"user-pin", 8), "C_InitPIN");
  must(F->C_Logout(s), "C_Logout");
  must(F->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"user-pin", 8), "C_Login");

  printf("%-10s %14s %14s %8s\n", "curve", "token sig/s", "library sig/s", "ratio");
  const gostx_gost3410_curve curves[] = {GOSTX_GOST3410_256_B, GOSTX_GOST3410_512_A};
  for (size_t c = 0; c < 2; c++) {
    job j = {.curve = curves[c], .s = s};
    j.n = gostx_gost3410_size(j.curve);
    uint8_t q[128], d_le[64];
    /* one key for both: made here, imported as a session object */
    if (gostx_gost3410_keygen(j.curve, j.d, j.n, q, 2 * j.n) != 0)
      return 1;
    rev(d_le, j.d, j.n);
    /* the parameter sets' DER OIDs: 1.2.643.7.1.2.1.1.2 and 1.2.643.7.1.2.1.2.1 */
    static const uint8_t B[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x01, 0x01, 0x02};
    static const uint8_t A512[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x01, 0x02, 0x01};
    const uint8_t *der = c == 0 ? B : A512;
    CK_OBJECT_CLASS pc = CKO_PRIVATE_KEY;
    CK_KEY_TYPE kt = j.n == 64 ? CKK_GOSTR3410_512 : CKK_GOSTR3410;
    CK_BBOOL yes = CK_TRUE;
    CK_ATTRIBUTE t[] = {{CKA_CLASS, &pc, sizeof pc}, {CKA_KEY_TYPE, &kt, sizeof kt},
                        {CKA_GOSTR3410_PARAMS, (void *)der, sizeof B}, {CKA_VALUE, d_le, j.n},
                        {CKA_SIGN, &yes, 1}};
    must(F->C_CreateObject(s, t, 5, &j.key), "C_CreateObject");
    j.mech.mechanism = j.n == 64 ? CKM_GOSTR3410_512 : CKM_GOSTR3410;
    gostx_streebog(j.n, "p11_speed", 9, j.digest);
    double tok[50], lib_r[50];
    for (int r = 0; r < runs; r++) {
      uint64_t calls;
      double sec;
      if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, secs, token_sign, &j, &calls, &sec) != 0)
        return 1;
      tok[r] = (double)calls / sec;
      if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, secs, lib_sign, &j, &calls, &sec) != 0)
        return 1;
      lib_r[r] = (double)calls / sec;
    }
    double tm = gostx_bench_median(tok, runs), lm = gostx_bench_median(lib_r, runs);
    /* cost ratio: time per token signature over time per library one */
    printf("%-10s %14.0f %14.0f %8.3f\n", gostx_gost3410_curve_short_name(j.curve), tm, lm, lm / tm);
  }
  must(F->C_Finalize(NULL), "C_Finalize");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : 1;
}
