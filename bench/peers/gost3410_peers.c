/* GOST R 34.10-2012 sign, verify and VKO: gostx against gost-engine
 * (OpenSSL 3 with the "gost" engine, Debian's libengine-gost-openssl) in
 * one process, one thread, on 256 paramSetA (Edwards), 256 paramSetB
 * (Weierstrass, = CryptoPro-A) and 512 paramSetC (Edwards). Each figure is
 * the median of RUNS runs of about 0.2 s of this thread's CPU time; the runs
 * of gostx and of the engine alternate, so a busy machine slows both alike.
 * Before timing, gost-engine's signature is verified by gostx (byte orders
 * converted), so both sides do the same work on the same curve.
 *
 * Built and run by bench/gost3410_peers.sh (not by CMake: it needs
 * libcrypto). Usage: gost3410_peers [runs] */
#define OPENSSL_SUPPRESS_DEPRECATED 1 /* the ENGINE API is how gost-engine loads */
#include <openssl/engine.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#include "bench_ec.h"
#include "harness.h"

static int runs = 5;
static ENGINE *gost;

struct side {
  gostx_bench_ec gx; /* first: the shared jobs take a struct side */
  /* gost-engine */
  EVP_PKEY *key, *peer;
  uint8_t esig[128];
  size_t esig_len;
};

/* VKO_GOSTR3410_2012_256, as ossl_vko */
static int gx_vko(void *a) {
  struct side *s = a;
  return gostx_gost3410_vko(s->gx.curve, s->gx.priv, s->gx.len, s->gx.peer, 2 * s->gx.len,
                            s->gx.ukm, sizeof s->gx.ukm, s->gx.out, 32);
}

static int ossl_sign(void *a) {
  struct side *s = a;
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(s->key, gost);
  size_t len = sizeof s->esig;
  int ok = c && EVP_PKEY_sign_init(c) > 0 && EVP_PKEY_sign(c, s->esig, &len, s->gx.digest, s->gx.len) > 0;
  EVP_PKEY_CTX_free(c);
  return ok ? 0 : 1;
}
static int ossl_verify(void *a) {
  struct side *s = a;
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(s->key, gost);
  int ok = c && EVP_PKEY_verify_init(c) > 0 &&
           EVP_PKEY_verify(c, s->esig, s->esig_len, s->gx.digest, s->gx.len) == 1;
  EVP_PKEY_CTX_free(c);
  return ok ? 0 : 1;
}
/* VKO with an 8-byte UKM: VKO_GOSTR3410_2012_256 (Streebog-256 of the point). */
static int ossl_vko(void *a) {
  struct side *s = a;
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(s->key, gost);
  uint8_t out[64];
  size_t len = sizeof out;
  int ok = c && EVP_PKEY_derive_init(c) > 0 && EVP_PKEY_derive_set_peer(c, s->peer) > 0 &&
           EVP_PKEY_CTX_ctrl(c, -1, -1, EVP_PKEY_CTRL_SET_IV, (int)sizeof s->gx.ukm, s->gx.ukm) > 0 &&
           EVP_PKEY_derive(c, out, &len) > 0;
  EVP_PKEY_CTX_free(c);
  return ok ? 0 : 1;
}

static EVP_PKEY *ossl_keygen(int nid, const char *paramset) {
  EVP_PKEY *k = NULL;
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(nid, gost);
  if (!c || EVP_PKEY_keygen_init(c) <= 0 || EVP_PKEY_CTX_ctrl_str(c, "paramset", paramset) <= 0 ||
      EVP_PKEY_keygen(c, &k) <= 0)
    k = NULL;
  EVP_PKEY_CTX_free(c);
  return k;
}

/* gost-engine's public key (x || y, each little-endian, in the DER octet
 * string of the SubjectPublicKeyInfo) as gostx's x || y big-endian. */
static int ossl_pub(EVP_PKEY *k, size_t len, uint8_t *pub) {
  uint8_t der[512], *p = der;
  int n = i2d_PUBKEY(k, NULL);
  if (n <= 0 || n > (int)sizeof der || i2d_PUBKEY(k, &p) != n) return 1;
  /* The key is the last 2 len bytes of the encoding. */
  const uint8_t *q = der + n - 2 * len;
  for (size_t i = 0; i < len; i++) {
    pub[i] = q[len - 1 - i];
    pub[len + i] = q[2 * len - 1 - i];
  }
  return 0;
}

static double median_ops(gostx_bench_job job, struct side *s, double *v, int r) {
  uint64_t calls;
  double secs;
  if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, 0.2, job, s, &calls, &secs)) return -1;
  v[r] = (double)calls / secs;
  return v[r];
}

static int bench_curve(gostx_gost3410_curve curve, int nid, const char *paramset) {
  struct side s;
  memset(&s, 0, sizeof s);
  const char *name = gostx_gost3410_curve_name(curve);
  s.key = ossl_keygen(nid, paramset);
  s.peer = ossl_keygen(nid, paramset);
  if (!s.key || !s.peer) {
    fprintf(stderr, "gost3410_peers: gost-engine has no %s\n", name);
    return 1;
  }
  if (gostx_bench_ec_setup(&s.gx, curve) || gostx_bench_ec_verify(&s) || gx_vko(&s) ||
      ossl_sign(&s) || ossl_vko(&s)) {
    fprintf(stderr, "gost3410_peers: %s: setup failed\n", name);
    return 1;
  }
  s.esig_len = 2 * s.gx.len;
  if (ossl_verify(&s)) {
    fprintf(stderr, "gost3410_peers: %s: gost-engine refuses its own signature\n", name);
    return 1;
  }
  /* Same curve, same work: gostx verifies the engine's signature (s || r
   * -> r || s, the key's coordinates reversed). */
  uint8_t epub[128], rs[128];
  const size_t n = s.gx.len;
  memcpy(rs, s.esig + n, n);
  memcpy(rs + n, s.esig, n);
  if (ossl_pub(s.key, n, epub) || gostx_gost3410_verify(curve, epub, 2 * n, s.gx.digest, n, rs, 2 * n)) {
    fprintf(stderr, "gost3410_peers: %s: gostx does not accept gost-engine's signature\n", name);
    return 1;
  }
  static const char *ops[] = {"sign", "verify", "vko"};
  gostx_bench_job gjob[] = {gostx_bench_ec_sign, gostx_bench_ec_verify, gx_vko};
  gostx_bench_job ojob[] = {ossl_sign, ossl_verify, ossl_vko};
  for (int o = 0; o < 3; o++) {
    double g[64], e[64];
    for (int r = 0; r < runs; r++)
      if (median_ops(gjob[o], &s, g, r) < 0 || median_ops(ojob[o], &s, e, r) < 0) {
        fprintf(stderr, "gost3410_peers: %s %s failed\n", name, ops[o]);
        return 1;
      }
    double gm = gostx_bench_median(g, runs), em = gostx_bench_median(e, runs);
    printf("%-38s %-6s %10.0f %12.0f %7.2fx\n", name, ops[o], gm, em, gm / em);
    fflush(stdout);
  }
  EVP_PKEY_free(s.key);
  EVP_PKEY_free(s.peer);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) runs = atoi(argv[1]);
  if (runs < 1 || runs > 64) {
    fprintf(stderr, "usage: gost3410_peers [runs: 1..64]\n");
    return 2;
  }
  ENGINE_load_builtin_engines();
  gost = ENGINE_by_id("gost");
  if (!gost || !ENGINE_init(gost)) {
    fprintf(stderr, "gost3410_peers: cannot load gost-engine (apt-get install libengine-gost-openssl)\n");
    return 1;
  }
  ENGINE_set_default(gost, ENGINE_METHOD_ALL);
  printf("GOST R 34.10-2012, one thread, ops/s (median of %d runs, thread CPU time)\n", runs);
  printf("%-38s %-6s %10s %12s %8s\n", "curve", "op", "gostx", "gost-engine", "ratio");
  int rc = 0;
  rc |= bench_curve(GOSTX_GOST3410_256_A, NID_id_GostR3410_2012_256, "TCA");
  rc |= bench_curve(GOSTX_GOST3410_256_B, NID_id_GostR3410_2012_256, "TCB");
  rc |= bench_curve(GOSTX_GOST3410_512_C, NID_id_GostR3410_2012_512, "C");
  ENGINE_finish(gost);
  ENGINE_free(gost);
  return rc;
}
