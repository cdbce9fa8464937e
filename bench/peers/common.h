/* Shared by the peer drivers of bench/peers.sh (C and C++): the fixed key,
 * IV and data every driver uses, the command line, and the timing.
 *
 * Each driver implements
 *   const char *const driver_ops[];   (NULL-terminated)
 *   int driver_op(const char *op, const uint8_t *in, size_t len,
 *                 uint8_t *out, size_t *out_len);  (0 ok, 1 unsupported, -1 error)
 * which does the whole operation (key set-up included) on len bytes; out
 * receives the ciphertext, or the digest/MAC, and has room for len + 64.
 *
 *   DRIVER ops            the ops it supports, one per line
 *   DRIVER check OP       hex of OP's output on the 4096-byte check input
 *   DRIVER run OP BYTES   seconds of one OP over BYTES bytes in memory, after a
 *                         warm-up pass of the same OP over the same buffers
 *                         (a first pass over fresh pages ran fast code up to
 *                         ~1.4x slower: 32 MiB of gostx Magma-CTR 663 vs 915
 *                         MB/s, gost-engine unchanged): wall clock (CLOCK_MONOTONIC), then
 *                         the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), which
 *                         a shared, busy machine disturbs less
 *
 * Ops: kuznyechik-{ecb,ctr,cbc,omac,mgm}, magma-{ecb,ctr,cbc,omac},
 * gost89-ecb-{cpa,test}, gost89-cnt-mesh-cpa, gost89-cfb-mesh-cpa,
 * gost89-cfb-test, streebog256, streebog512, hmac-streebog256.
 * Parameters: key = KEY below; CTR IV = first n/2 bytes of IV; CBC IV and the
 * GOST 28147-89 IV = first n bytes; MGM nonce = IV (16 bytes, top bit 0), no
 * AAD, output ciphertext || 16-byte tag; OMAC: the full 16-byte MAC; cpa =
 * CryptoPro-A S-box, test = GOST R 34.11-94 test S-box; mesh = CryptoPro key
 * meshing every 1024 bytes. */
#ifndef PEERS_COMMON_H
#define PEERS_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const uint8_t KEY[32] = {
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
static const uint8_t IV[16] = {0x12, 0x34, 0x56, 0x78, 0x90, 0xab, 0xce, 0xf0,
                               0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf0, 0x01, 0x12};

extern const char *const driver_ops[];
int driver_op(const char *op, const uint8_t *in, size_t len, uint8_t *out, size_t *out_len);

static void fill(uint8_t *p, size_t len) {
  uint32_t x = 0x2545f491u;
  for (size_t i = 0; i < len; i++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    p[i] = (uint8_t)x;
  }
}

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int driver_main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "ops")) {
    for (const char *const *o = driver_ops; *o; o++) puts(*o);
    return 0;
  }
  int check = argc == 3 && !strcmp(argv[1], "check");
  int run = argc == 4 && !strcmp(argv[1], "run");
  if (!check && !run) {
    fprintf(stderr, "usage: %s ops | check OP | run OP BYTES\n", argv[0]);
    return 2;
  }
  size_t len = check ? 4096 : (size_t)strtoull(argv[3], NULL, 10);
  uint8_t *in = (uint8_t *)malloc(len + 64), *out = (uint8_t *)malloc(len + 64);
  if (!in || !out || len == 0) return 1;
  fill(in, len);
  memset(out, 0, len + 64);
  size_t out_len = 0;
  if (check) {
    int rc = driver_op(argv[2], in, len, out, &out_len);
    if (rc) {
      fprintf(stderr, "%s: %s %s\n", argv[0], argv[2], rc > 0 ? "unsupported" : "failed");
      return 1;
    }
    for (size_t i = 0; i < out_len; i++) printf("%02x", out[i]);
    putchar('\n');
    return 0;
  }
  size_t warm = len;
  if (driver_op(argv[2], in, warm, out, &out_len)) {
    fprintf(stderr, "%s: %s unsupported or failed\n", argv[0], argv[2]);
    return 1;
  }
  double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), t0 = clock_s(CLOCK_MONOTONIC);
  int rc = driver_op(argv[2], in, len, out, &out_len);
  double t = clock_s(CLOCK_MONOTONIC) - t0, c = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
  if (rc) return 1;
  printf("%.6f %.6f\n", t, c);
  return 0;
}

#endif
