/* ike_mgr_dp.h */
#include <string.h>

#include "ike_mgr_dp.h"

static int dp_token;
static void *dp_add(void *ctx, const gostx__ike_mgr_child *c) {
  (void)ctx, (void)c;
  return &dp_token;
}
static int dp_switch(void *ctx, void *out, const gostx__ike_mgr_child *c) {
  (void)ctx, (void)out, (void)c;
  return 0;
}
static void dp_free(void *ctx, void *out) { (void)ctx, (void)out; }
static void dp_retire(void *ctx, uint32_t spi) { (void)ctx, (void)spi; }
static void dp_stop(void *ctx) { (void)ctx; }
static int dp_accepted(void *ctx, uint32_t spi, uint64_t *n) {
  (void)ctx, (void)spi;
  *n = 0;
  return -1; /* no inbound SA here */
}
static void dp_usage(void *ctx, uint32_t in, uint32_t out, gostx__ike_mgr_usage *u) {
  (void)ctx, (void)in, (void)out;
  memset(u, 0, sizeof *u);
}
static void dp_peer(void *ctx, const gostx__ike_mgr_addr *to) { (void)ctx, (void)to; }
static uint64_t dp_sent(void *ctx) {
  (void)ctx;
  return 0;
}

const gostx__ike_mgr_dp ike_null_dp = {NULL,    dp_add,      dp_switch, dp_free, dp_retire,
                                       dp_stop, dp_accepted, dp_usage,  dp_peer, dp_sent};
