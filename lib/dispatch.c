/* The only place that chooses implementations. Each primitive gets the best
 * table the CPU (and OS) supports, once per process; GOSTX_IMPL=name forces a
 * level by name ("portable", later "ssse3", "avx2", "avx512", "lstable").
 * A forced level the CPU lacks falls back to portable. */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

static struct gostx_dispatch chosen;
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;

/* Candidates per primitive, best first. A candidate is taken when the CPU has
 * what it needs and, if GOSTX_IMPL is set, when its name matches. Fast paths
 * add rows here (issue 3); the portable row is always last and always usable. */
static int forced_allows(const char *forced, const char *name) {
  return !forced || !*forced || strcmp(forced, name) == 0;
}

static void choose(void) {
  const char *forced = getenv("GOSTX_IMPL");
  (void)gostx__cpu();

  static const struct gostx_kuz_impl *const kuz[] = {&gostx_kuz_portable};
  static const struct gostx_magma_impl *const magma[] = {&gostx_magma_portable};
  static const struct gostx_streebog_impl *const streebog[] = {&gostx_streebog_portable};

  chosen.kuz = &gostx_kuz_portable;
  for (size_t i = 0; i < sizeof kuz / sizeof kuz[0]; i++)
    if (forced_allows(forced, kuz[i]->name)) { chosen.kuz = kuz[i]; break; }
  chosen.magma = &gostx_magma_portable;
  for (size_t i = 0; i < sizeof magma / sizeof magma[0]; i++)
    if (forced_allows(forced, magma[i]->name)) { chosen.magma = magma[i]; break; }
  chosen.streebog = &gostx_streebog_portable;
  for (size_t i = 0; i < sizeof streebog / sizeof streebog[0]; i++)
    if (forced_allows(forced, streebog[i]->name)) { chosen.streebog = streebog[i]; break; }
}

const struct gostx_dispatch *gostx__dispatch(void) {
  pthread_once(&chosen_once, choose);
  return &chosen;
}

const char *gostx_impl(int primitive) {
  const struct gostx_dispatch *d = gostx__dispatch();
  switch (primitive) {
    case GOSTX_PRIM_KUZNYECHIK: return d->kuz->name;
    case GOSTX_PRIM_MAGMA: return d->magma->name;
    case GOSTX_PRIM_STREEBOG: return d->streebog->name;
    default: return "unknown";
  }
}

const char *gostx_primitive_name(int primitive) {
  static const char *const names[GOSTX_PRIM_COUNT] = {"kuznyechik", "magma", "streebog"};
  return primitive >= 0 && primitive < GOSTX_PRIM_COUNT ? names[primitive] : NULL;
}
