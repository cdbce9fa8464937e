/* GOST R 34.10-2012 signatures per second through gostx's PKCS#11 token
 * (C_SignInit + C_Sign with CKM_GOSTR3410 / CKM_GOSTR3410_512, one
 * process, the session kept open) against libgostx's own
 * gostx_gost3410_sign on the same key and digest, runs interleaved, the
 * median of each and the token/library cost ratio (issue 80's target: at
 * most 1.2). With SOFTHSM (a SoftHSMv2 built with GOST:
 * scripts/build_softhsm_gost.sh), SoftHSM's GOST R 34.10-2001 signature
 * (CKM_GOSTR3410, the same key on CryptoPro A, the same curve as 256B) in
 * the same loop and rounds, and gostx's token against it (issue 80's
 * target: at least 3x SoftHSM's signatures per second). bench/p11_speed.sh
 * runs it.
 *   usage: p11_speed MODULE [SECONDS_PER_RUN [RUNS [SOFTHSM]]]  (default 1 s, 5 runs) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gostx.h>

#include "harness.h"
#define P11_APP "p11_speed"
#include "../tests/pkcs11/p11_app.h"

typedef struct {
  gostx_gost3410_curve curve;
  size_t n;
  uint8_t d[64], digest[64], sig[128];
  CK_FUNCTION_LIST *f;
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
  if (j->f->C_SignInit(j->s, &j->mech, j->key) != CKR_OK)
    return -1;
  return j->f->C_Sign(j->s, j->digest, j->n, j->sig, &sl) == CKR_OK ? 0 : -1;
}

static void rev(uint8_t *out, const uint8_t *in, size_t n) {
  for (size_t i = 0; i < n; i++)
    out[i] = in[n - 1 - i];
}

/* A new token in the module's first slot, its user PIN set and logged in on
 * the session returned. */
static CK_SESSION_HANDLE token_ready(CK_FUNCTION_LIST *f) {
  CK_SESSION_HANDLE s = p11_token_init(f, "p11_speed", "user-pin");
  p11_must(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)"user-pin", 8), "C_Login");
  return s;
}

/* The private key d (CKA_VALUE's bytes) as a session object on j's token, on the parameter set params (DER OID), hash_params (a DER OID, or
 * NULL) as CKA_GOSTR3411_PARAMS. */
static void key_import(job *j, const uint8_t *d, const uint8_t *params, size_t params_len,
                       const uint8_t *hash_params, size_t hash_len) {
  CK_OBJECT_CLASS pc = CKO_PRIVATE_KEY;
  CK_KEY_TYPE kt = j->n == 64 ? CKK_GOSTR3410_512 : CKK_GOSTR3410;
  CK_BBOOL yes = CK_TRUE;
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &pc, sizeof pc}, {CKA_KEY_TYPE, &kt, sizeof kt},
                      {CKA_GOSTR3410_PARAMS, (void *)params, params_len},
                      {CKA_VALUE, (void *)d, j->n}, {CKA_SIGN, &yes, 1},
                      {CKA_GOSTR3411_PARAMS, (void *)hash_params, hash_len}};
  p11_must(j->f->C_CreateObject(j->s, t, hash_params ? 6 : 5, &j->key), "C_CreateObject");
  j->mech.mechanism = j->n == 64 ? CKM_GOSTR3410_512 : CKM_GOSTR3410;
}

/* One signature of j's, checked under q: the bench times real ones. */
static void sign_checked(job *j, const uint8_t *q, const char *who) {
  uint8_t rs[128];
  if (token_sign(j) || gostx_gost3410_sig_swap(j->sig, 2 * j->n, rs, 2 * j->n) ||
      gostx_gost3410_verify(j->curve, q, 2 * j->n, j->digest, j->n, rs, 2 * j->n)) {
    fprintf(stderr, "p11_speed: %s's signature does not verify\n", who);
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: p11_speed MODULE [SECONDS_PER_RUN [RUNS [SOFTHSM]]]\n");
    return 2;
  }
  double secs = argc > 2 ? atof(argv[2]) : 1.0;
  int runs = argc > 3 ? atoi(argv[3]) : 5;
  const char *softhsm = argc > 4 ? argv[4] : NULL;
  if (runs < 1 || runs > 50 || secs <= 0)
    return 2;
  char dir[] = "/tmp/gostx-p11-speed-XXXXXX";
  if (p11_scratch(dir))
    return 1;
  CK_FUNCTION_LIST *F = p11_load(argv[1], NULL), *H = NULL;
  CK_SESSION_HANDLE s = token_ready(F), hs = 0;
  if (softhsm) { /* its tokens and configuration in the same scratch folder */
    char conf[128], tokens[96];
    snprintf(tokens, sizeof tokens, "%s/softhsm", dir);
    snprintf(conf, sizeof conf, "%s/softhsm2.conf", dir);
    FILE *fp = fopen(conf, "w");
    if (!fp || mkdir(tokens, 0700) != 0)
      return 1;
    fprintf(fp, "directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n", tokens);
    fclose(fp);
    setenv("SOFTHSM2_CONF", conf, 1);
    H = p11_load(softhsm, NULL);
    hs = token_ready(H);
  }

  printf("%-10s %14s %14s %8s\n", "curve", "token sig/s", "library sig/s", "ratio");
  const gostx_gost3410_curve curves[] = {GOSTX_GOST3410_256_B, GOSTX_GOST3410_512_A};
  double shsm_m = 0, tok256_m = 0;
  for (size_t c = 0; c < 2; c++) {
    job j = {.curve = curves[c], .f = F, .s = s};
    j.n = gostx_gost3410_size(j.curve);
    uint8_t q[128], d_le[64];
    /* one key for all: made here, imported as a session object */
    if (gostx_gost3410_keygen(j.curve, j.d, j.n, q, 2 * j.n) != 0)
      return 1;
    rev(d_le, j.d, j.n);
    /* the parameter sets' DER OIDs: 1.2.643.7.1.2.1.1.2 and 1.2.643.7.1.2.1.2.1 */
    static const uint8_t B[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x01, 0x01, 0x02};
    static const uint8_t A512[] = {0x06, 0x09, 0x2a, 0x85, 0x03, 0x07, 0x01, 0x02, 0x01, 0x02, 0x01};
    /* SoftHSM's: 256B's curve as 2001's CryptoPro A, 1.2.643.2.2.35.1, and
     * GOST R 34.11-94's CryptoPro set 1.2.643.2.2.30.1 */
    static const uint8_t CPA[] = {0x06, 0x07, 0x2a, 0x85, 0x03, 0x02, 0x02, 0x23, 0x01};
    static const uint8_t H94[] = {0x06, 0x07, 0x2a, 0x85, 0x03, 0x02, 0x02, 0x1e, 0x01};
    key_import(&j, d_le, c == 0 ? B : A512, sizeof B, NULL, 0);
    gostx_streebog(j.n, "p11_speed", 9, j.digest);
    job h = j;
    int with_shsm = H && j.n == 32;
    if (with_shsm) {
      h.f = H, h.s = hs;
      /* SoftHSM 2.6.1 takes a GOST private CKA_VALUE big-endian (PKCS#11:
       * little-endian), as it stores its own keys: given so */
      key_import(&h, j.d, CPA, sizeof CPA, H94, sizeof H94);
      sign_checked(&h, q, "SoftHSM");
    }
    sign_checked(&j, q, "the gostx token");
    double tok[50], lib_r[50], shsm[50];
    for (int r = 0; r < runs; r++) {
      uint64_t calls;
      double sec;
      if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, secs, token_sign, &j, &calls, &sec) != 0)
        return 1;
      tok[r] = (double)calls / sec;
      if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, secs, lib_sign, &j, &calls, &sec) != 0)
        return 1;
      lib_r[r] = (double)calls / sec;
      if (with_shsm) {
        if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, secs, token_sign, &h, &calls, &sec) != 0)
          return 1;
        shsm[r] = (double)calls / sec;
      }
    }
    double tm = gostx_bench_median(tok, runs), lm = gostx_bench_median(lib_r, runs);
    /* cost ratio: time per token signature over time per library one */
    printf("%-10s %14.0f %14.0f %8.3f\n", gostx_gost3410_curve_short_name(j.curve), tm, lm, lm / tm);
    if (with_shsm) shsm_m = gostx_bench_median(shsm, runs), tok256_m = tm;
  }
  if (H) {
    printf("SoftHSMv2 GOST R 34.10-2001 (CryptoPro A = 256B's curve, CKM_GOSTR3410): %.0f sig/s\n",
           shsm_m);
    printf("gostx token / SoftHSM: %.2fx the signatures per second (target: at least 3)\n",
           tok256_m / shsm_m);
    p11_must(H->C_Finalize(NULL), "C_Finalize (SoftHSM)");
  }
  p11_must(F->C_Finalize(NULL), "C_Finalize");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : 1;
}
