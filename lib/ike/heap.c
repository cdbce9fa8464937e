/* The engines' message buffers on the heap (engine_int.h): each sized to
 * what it holds, wiped when let go; below every other file of lib/ike, so
 * that the exchange code and the fragment reassembly both take them. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_int.h"

#ifdef GOSTX_IKE_TEST_HOOKS
#include <stdatomic.h>
static atomic_size_t heap_bytes; /* what the engines hold (the daemon's tests run threads) */
size_t gostx__ike_heap_bytes(void) { return atomic_load(&heap_bytes); }
#define HEAP_COUNT(op, n) atomic_fetch_##op(&heap_bytes, (n))
#else
#define HEAP_COUNT(op, n) ((void)0)
#endif

uint8_t *gostx__ike_alloc(size_t n) {
  uint8_t *p = n ? malloc(n) : NULL;
  if (p) HEAP_COUNT(add, n);
  return p;
}

void gostx__ike_free(uint8_t *p, size_t n) {
  if (!p) return;
  gostx_memzero(p, n); /* messages: keys never, but the peer's and ours in plain */
  free(p);
  HEAP_COUNT(sub, n);
}

int gostx__ike_keep(uint8_t **p, size_t *len, const uint8_t *src, size_t n) {
  uint8_t *b = gostx__ike_alloc(n);
  if (n && !b) return GOSTX_ENOMEM;
  if (n) memcpy(b, src, n);
  gostx__ike_drop(p, len); /* after the copy: src may be *p */
  *p = b;
  *len = n;
  return GOSTX_OK;
}

void gostx__ike_drop(uint8_t **p, size_t *len) {
  gostx__ike_free(*p, *len);
  *p = NULL;
  *len = 0;
}
