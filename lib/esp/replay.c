/* ESP anti-replay window (RFC 4303 3.4.3) with 64-bit extended sequence
 * numbers (appendix A2): a ring bitmap of GOSTX_ESP_WINDOW bits indexed by
 * seq mod WINDOW, so memory is constant and moving right clears only the
 * bits that the move uncovers. Sequence numbers are public: the branches
 * here depend on nothing secret. */
#include <string.h>

#include "internal.h"

#define W ((uint64_t)GOSTX_ESP_WINDOW)

static int bit_get(const gostx_esp_replay *r, uint64_t seq) {
  uint64_t i = seq % W;
  return (int)((r->bits[i / 64] >> (i % 64)) & 1);
}

static void bit_set(gostx_esp_replay *r, uint64_t seq, int on) {
  uint64_t i = seq % W, m = (uint64_t)1 << (i % 64);
  if (on)
    r->bits[i / 64] |= m;
  else
    r->bits[i / 64] &= ~m;
}

void gostx_esp_replay_init(gostx_esp_replay *r) {
  if (r) memset(r, 0, sizeof *r);
}

uint64_t gostx_esp_replay_esn(const gostx_esp_replay *r, uint32_t seq_low) {
  uint64_t top = r ? r->top : 0;
  uint32_t th = (uint32_t)(top >> 32), tl = (uint32_t)top;
  uint32_t bottom = tl - (uint32_t)(W - 1); /* mod 2^32 */
  uint64_t high;
  if (tl >= W - 1) {
    /* the window lies inside one 2^32 span: below it means the next span */
    high = seq_low >= bottom ? th : (uint64_t)th + 1;
  } else {
    /* the window straddles a span boundary */
    if (seq_low >= bottom) {
      if (th == 0) return 0;
      high = (uint64_t)th - 1;
    } else {
      high = th;
    }
  }
  if (high > 0xffffffffu) return 0; /* past 2^64 - 1: no such number */
  return high << 32 | seq_low;
}

int gostx_esp_replay_check(const gostx_esp_replay *r, uint64_t seq) {
  if (!r) return GOSTX_EINVAL;
  if (seq == 0) return GOSTX_ESTATE;
  if (seq > r->top) return GOSTX_OK;
  if (r->top - seq >= W) return GOSTX_ESTATE;
  return bit_get(r, seq) ? GOSTX_ESTATE : GOSTX_OK;
}

int gostx_esp_replay_update(gostx_esp_replay *r, uint64_t seq) {
  int rc = gostx_esp_replay_check(r, seq);
  if (rc) return rc;
  if (seq > r->top) {
    uint64_t gap = seq - r->top;
    if (gap >= W) {
      memset(r->bits, 0, sizeof r->bits);
    } else {
      for (uint64_t s = r->top + 1; s < seq; s++) bit_set(r, s, 0);
    }
    r->top = seq;
  }
  bit_set(r, seq, 1);
  return GOSTX_OK;
}
