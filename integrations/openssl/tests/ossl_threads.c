/* The gostx provider's GOST R 34.10-2012 keys used from many threads at
 * once: 8 threads share the same EVP_PKEY objects (a key pair and its
 * public-key-only copy on 256 paramSetA, 256 paramSetB = CryptoPro-A and
 * 512 paramSetC, and a peer key pair for each) and each runs rounds of
 * digest-sign with the shared private key, digest-verify with the shared
 * public key, VKO derive with the shared keys (a UKM of its own), and a
 * tampered signature that must be refused. Every result is checked with
 * libgostx's own calls in the same thread: the signature verifies under
 * gostx_gost3410_verify (r || s of the provider's s || r), the derived key
 * equals gostx_gost3410_vko's, two signatures of one message differ (hedged
 * nonces do not collide across threads). Errors are counted per thread and
 * reported by the main thread; OpenSSL's error queue is per thread.
 * argv[1]: the folder holding gostx.so; argv[2] (optional): rounds per
 * thread (default 25). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/provider.h>

#include <gostx.h>

#include "ossl_check.h"
#include "ossl_digest_sign.h"

#define NTHREADS 8
#define NKEYS 3

typedef struct shared_key {
  const char *type, *paramset;
  EVP_PKEY *key, *pub, *peer; /* key pair, its public key alone, another key pair */
  gostx_gost3410_curve curve;
  size_t n;
  uint8_t d[64], q[128], peer_q[128];
} shared_key;

static shared_key keys[NKEYS] = {
    {"gost2012_256", "TCA", NULL, NULL, NULL, 0, 0, {0}, {0}, {0}},
    {"gost2012_256", "A", NULL, NULL, NULL, 0, 0, {0}, {0}, {0}},
    {"gost2012_512", "C", NULL, NULL, NULL, 0, 0, {0}, {0}, {0}},
};
static unsigned rounds = 25;

static EVP_PKEY *keygen(const char *type, const char *paramset) {
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
  EVP_PKEY *k = NULL;
  OSSL_PARAM p[2] = {OSSL_PARAM_construct_utf8_string("paramset", (char *)paramset, 0),
                     OSSL_PARAM_END};
  if (c && EVP_PKEY_keygen_init(c) > 0 && EVP_PKEY_CTX_set_params(c, p)) EVP_PKEY_keygen(c, &k);
  EVP_PKEY_CTX_free(c);
  return k;
}

/* d (big-endian), Q and the curve of k, as libgostx names them. */
static int export_key(EVP_PKEY *k, gostx_gost3410_curve *curve, size_t *n, uint8_t *d,
                      uint8_t *q) {
  BIGNUM *bn = NULL;
  size_t ql = 0;
  char group[80];
  int bits = EVP_PKEY_get_bits(k);
  *n = (size_t)bits / 8;
  int ok = (bits == 256 || bits == 512) && EVP_PKEY_get_bn_param(k, "priv", &bn) &&
           BN_bn2binpad(bn, d, (int)*n) == (int)*n &&
           EVP_PKEY_get_octet_string_param(k, "pub", q, 128, &ql) && ql == 2 * *n &&
           EVP_PKEY_get_utf8_string_param(k, "group", group, sizeof group, NULL);
  int c = ok ? gostx_gost3410_curve_by_name(group) : GOSTX_EINVAL;
  *curve = (gostx_gost3410_curve)c;
  BN_free(bn);
  return ok && c > 0;
}

/* The public half of k as a key of its own (group and pub only). */
static EVP_PKEY *public_only(const char *type, EVP_PKEY *k) {
  char group[80];
  uint8_t q[128];
  size_t ql = 0;
  OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
  OSSL_PARAM *p = NULL;
  EVP_PKEY *out = NULL;
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
  if (b && c && EVP_PKEY_get_utf8_string_param(k, "group", group, sizeof group, NULL) &&
      EVP_PKEY_get_octet_string_param(k, "pub", q, sizeof q, &ql) &&
      OSSL_PARAM_BLD_push_utf8_string(b, "group", group, 0) &&
      OSSL_PARAM_BLD_push_octet_string(b, "pub", q, ql) && (p = OSSL_PARAM_BLD_to_param(b)) &&
      EVP_PKEY_fromdata_init(c) > 0)
    EVP_PKEY_fromdata(c, &out, EVP_PKEY_PUBLIC_KEY, p);
  OSSL_PARAM_free(p);
  OSSL_PARAM_BLD_free(b);
  EVP_PKEY_CTX_free(c);
  return out;
}

static int derive(EVP_PKEY *k, EVP_PKEY *peer, uint8_t *ukm, size_t ukm_len, uint8_t *out,
                  size_t *outl) {
  OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string("ukm", ukm, ukm_len), OSSL_PARAM_END};
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, k, NULL);
  int ok = c && EVP_PKEY_derive_init_ex(c, p) > 0 && EVP_PKEY_derive_set_peer(c, peer) > 0 &&
           EVP_PKEY_derive(c, out, outl) > 0;
  EVP_PKEY_CTX_free(c);
  return ok;
}

typedef struct worker {
  pthread_t tid;
  unsigned id;
  unsigned long ops, errors;
  char first_error[200];
} worker;

static void fail_at(worker *w, const char *what, const shared_key *k, unsigned r) {
  if (!w->errors++)
    snprintf(w->first_error, sizeof w->first_error, "thread %u, %s/%s, round %u: %s", w->id,
             k->type, k->paramset, r, what);
  ERR_clear_error();
}

static void *work(void *arg) {
  worker *w = arg;
  uint64_t x = 0x9e3779b97f4a7c15u * (w->id + 1); /* a message generator per thread */
  for (unsigned r = 0; r < rounds; r++) {
    for (size_t i = 0; i < NKEYS; i++) {
      const shared_key *k = &keys[i];
      const size_t n = k->n;
      const char *md = n == 32 ? "md_gost12_256" : "md_gost12_512";
      uint8_t msg[97], h[64], sig[128], sig2[128], rs[128], ukm[8], got[64], want[64];
      size_t ml = 1 + (size_t)(x % sizeof msg), sl = sizeof sig, sl2 = sizeof sig2, gl = sizeof got;
      for (size_t j = 0; j < ml; j++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        msg[j] = (uint8_t)x;
      }
      /* sign with the shared key pair; libgostx verifies */
      if (!digest_sign(k->key, md, msg, ml, sig, &sl) || sl != 2 * n) {
        fail_at(w, "digest-sign", k, r);
        continue;
      }
      gostx_streebog(n, msg, ml, h);
      if (gostx_gost3410_sig_swap(sig, sl, rs, sl) ||
          gostx_gost3410_verify(k->curve, k->q, 2 * n, h, n, rs, 2 * n) != GOSTX_OK)
        fail_at(w, "libgostx does not verify the provider's signature", k, r);
      /* a second signature of the same message: another nonce */
      if (!digest_sign(k->key, md, msg, ml, sig2, &sl2) || sl2 != sl || !memcmp(sig, sig2, sl))
        fail_at(w, "second signature missing or equal to the first", k, r);
      /* verify with the shared public key and the shared key pair */
      if (!digest_verify(k->pub, md, msg, ml, sig, sl)) fail_at(w, "verify (public key)", k, r);
      if (!digest_verify(k->key, md, msg, ml, sig2, sl2)) fail_at(w, "verify (key pair)", k, r);
      /* a tampered signature is refused */
      sig[x % sl] ^= (uint8_t)(1u << (x % 8));
      if (digest_verify(k->pub, md, msg, ml, sig, sl)) fail_at(w, "tampered signature accepted", k, r);
      ERR_clear_error();
      /* VKO: our key with the shared peer's public key, a UKM of this thread */
      for (size_t j = 0; j < sizeof ukm; j++) ukm[j] = (uint8_t)(w->id * 16 + r + j + 1);
      if (!derive(k->key, k->peer, ukm, sizeof ukm, got, &gl) || gl != 32 ||
          gostx_gost3410_vko(k->curve, k->d, n, k->peer_q, 2 * n, ukm, sizeof ukm, want, 32) ||
          memcmp(got, want, 32))
        fail_at(w, "VKO differs from libgostx's", k, r);
      gl = sizeof got;
      if (!derive(k->peer, k->pub, ukm, sizeof ukm, got, &gl) || gl != 32 || memcmp(got, want, 32))
        fail_at(w, "VKO from the peer's side differs", k, r);
      w->ops += 7;
    }
  }
  ERR_clear_error();
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s GOSTX_MODULE_DIR [ROUNDS]\n", argv[0]);
    return 2;
  }
  if (argc > 2) rounds = (unsigned)strtoul(argv[2], NULL, 10);
  OSSL_PROVIDER *gx = NULL, *def = NULL;
  if (!load_gostx_and_default(argv[1], &gx, &def)) return 1;
  for (size_t i = 0; i < NKEYS; i++) {
    shared_key *k = &keys[i];
    size_t pn = 0;
    gostx_gost3410_curve pc = 0;
    uint8_t pd[64];
    k->key = keygen(k->type, k->paramset);
    k->peer = keygen(k->type, k->paramset);
    k->pub = k->key ? public_only(k->type, k->key) : NULL;
    check(k->key && k->peer && k->pub && export_key(k->key, &k->curve, &k->n, k->d, k->q) &&
              export_key(k->peer, &pc, &pn, pd, k->peer_q) && pc == k->curve && pn == k->n,
          "%s/%s: shared keys made and exported", k->type, k->paramset);
  }
  if (fail) return 1;
  worker w[NTHREADS];
  memset(w, 0, sizeof w);
  for (unsigned t = 0; t < NTHREADS; t++) {
    w[t].id = t;
    check(pthread_create(&w[t].tid, NULL, work, &w[t]) == 0, "pthread_create %u", t);
  }
  unsigned long ops = 0;
  for (unsigned t = 0; t < NTHREADS; t++) {
    pthread_join(w[t].tid, NULL);
    ops += w[t].ops;
    check(w[t].errors == 0, "thread %u: %lu errors; first: %s", t, w[t].errors, w[t].first_error);
  }
  check(ops == (unsigned long)NTHREADS * rounds * NKEYS * 7, "every operation ran (%lu)", ops);
  /* the shared keys still work after the threads (no state damaged) */
  for (size_t i = 0; i < NKEYS; i++) {
    uint8_t sig[128], m[3] = {1, 2, 3};
    size_t sl = sizeof sig;
    const char *md = keys[i].n == 32 ? "md_gost12_256" : "md_gost12_512";
    check(digest_sign(keys[i].key, md, m, 3, sig, &sl) && digest_verify(keys[i].pub, md, m, 3, sig, sl),
          "%s/%s: the shared key still signs and verifies", keys[i].type, keys[i].paramset);
    EVP_PKEY_free(keys[i].key);
    EVP_PKEY_free(keys[i].pub);
    EVP_PKEY_free(keys[i].peer);
  }
  OSSL_PROVIDER_unload(gx);
  OSSL_PROVIDER_unload(def);
  printf("%u threads x %u rounds x %d keys: %lu operations; %lu passed, %lu failed\n", NTHREADS,
         rounds, NKEYS, ops, pass, fail);
  return fail ? 1 : 0;
}
