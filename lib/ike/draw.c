/* What the engine draws at random (its IKE SPIs, nonces, ephemeral keys)
 * or, in gostx_test, takes from the test's hooks; below engine.c, auth.c
 * and the exchanges after IKE_AUTH alike. */
#include <string.h>

#include "engine_int.h"

/* Our IKE SPI, nonce (32 octets) and ephemeral private key: random, or
 * what a test fixed (GOSTX_IKE_TEST_HOOKS, gostx_test only). */
#ifdef GOSTX_IKE_TEST_HOOKS
#define TEST_FIXED(e, field) ((e)->test.field)
#else
#define TEST_FIXED(e, field) ((const uint8_t *)NULL)
#endif

/* len random octets, or the test's fixed ones when it set them. */
static int draw(const gostx_ike_engine *e, const uint8_t *fixed, uint8_t *out, size_t len) {
#ifdef GOSTX_IKE_TEST_HOOKS
  if (e->test.set) return memcpy(out, fixed, len), GOSTX_OK;
#endif
  (void)e;
  (void)fixed;
  return gostx_random_bytes(out, len);
}

static int draw_priv(gostx_ike_engine *e, int curve, size_t l) {
  uint8_t pub[128];
#ifdef GOSTX_IKE_TEST_HOOKS
  if (e->test.set) return memcpy(e->priv, e->test.priv, l), GOSTX_OK;
#endif
  return gostx_gost3410_keygen((gostx_gost3410_curve)curve, e->priv, l, pub, 2 * l);
}

int gostx__ike_new_ke(gostx_ike_engine *e, uint16_t group) {
  const int curve = gostx__ike_ke_curve(group);
  if (!curve) return GOSTX_EINVAL;
  const size_t l = gostx_gost3410_size((gostx_gost3410_curve)curve);
  int rc = draw_priv(e, curve, l);
  if (rc == GOSTX_OK) rc = gostx__ike_ke_public(group, e->priv, l, e->pub, 2 * l);
  e->group = group;
  return rc;
}

int gostx__ike_draw_nonce(const gostx_ike_engine *e, uint8_t out[32]) {
  return draw(e, TEST_FIXED(e, nonce), out, 32);
}

int gostx__ike_draw_spi(const gostx_ike_engine *e, uint8_t out[8]) {
  return draw(e, TEST_FIXED(e, spi), out, 8);
}

size_t gostx__ike_ke_len(uint16_t group) {
  const int curve = gostx__ike_ke_curve(group);
  return curve ? 2 * gostx_gost3410_size((gostx_gost3410_curve)curve) : 0;
}
