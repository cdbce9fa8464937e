#include "md_kat.h"

#include "testutil.h"

void t_md_check(const t_md *md, const t_md_vector *v, size_t n, const char *million) {
  uint8_t want[64], got[64];
  for (size_t i = 0; i < n; i++) {
    CHECK(hex_decode(v[i].digest, want, md->len) == (long)md->len, "hex constant %s", v[i].digest);
    md->oneshot(v[i].msg, strlen(v[i].msg), got);
    CHECK_BYTES(got, want, md->len, v[i].digest);
  }
  char a[1000];
  memset(a, 'a', sizeof a);
  md->init(md->ctx);
  for (int i = 0; i < 1000; i++) md->update(md->ctx, a, sizeof a);
  md->final(md->ctx, got);
  CHECK(hex_decode(million, want, md->len) == (long)md->len, "hex constant %s", million);
  CHECK(!memcmp(got, want, md->len), "%s of a million 'a'", md->name);
  /* lengths across the 55/56/64-byte padding edges; the odd address
   * catches a block read assuming alignment */
  uint8_t msg[301];
  t_rand_bytes(msg, sizeof msg);
  for (size_t len = 0; len < sizeof msg; len++) {
    md->oneshot(msg + 1, len, want);
    size_t cut = t_rand_below(len + 1);
    md->init(md->ctx);
    md->update(md->ctx, msg + 1, cut);
    md->update(md->ctx, msg + 1 + cut, len - cut);
    md->final(md->ctx, got);
    if (memcmp(got, want, md->len)) CHECK(0, "%s split at %zu of %zu", md->name, cut, len);
  }
}
