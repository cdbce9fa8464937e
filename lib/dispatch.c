/* The only place that chooses implementations. Each primitive gets the best
 * table the CPU (and OS) supports, once per process.
 *
 * Levels, lowest first: portable < ssse3 < avx2 < avx512. GOSTX_IMPL=LEVEL
 * caps the choice at that level (each primitive takes its best implementation
 * at or below it), so tests can run every path the CPU has. GOSTX_IMPL=NAME
 * with an implementation's own name picks exactly that one where it exists
 * (other primitives fall back to portable); opt-in implementations that leak
 * through the cache (e.g. "lstable") are only ever chosen that way. A forced
 * level or name the CPU cannot run falls back to portable. */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

enum level { LEVEL_PORTABLE, LEVEL_SSSE3, LEVEL_AVX2, LEVEL_AVX512, LEVEL_COUNT };
static const char *const level_names[LEVEL_COUNT] = {"portable", "ssse3", "avx2", "avx512"};

/* What each level needs from the CPU and OS. */
static int level_supported(int level, const struct gostx_cpu *f) {
  switch (level) {
    case LEVEL_PORTABLE: return 1;
    case LEVEL_SSSE3: return f->ssse3;
    case LEVEL_AVX2: return f->avx2;
    case LEVEL_AVX512: return f->avx512f && f->avx512bw && f->avx512vl;
    default: return 0;
  }
}

/* One row per implementation, best first within each primitive. `needs` is an
 * extra feature test beyond the level (e.g. GFNI); opt_in rows are never
 * chosen unless named exactly. Fast paths add rows here. */
struct row {
  const void *impl;
  int level;
  int opt_in;
  int (*needs)(const struct gostx_cpu *f);
};

#define ROW(table, lvl, optin, need) {&(table), (lvl), (optin), (need)}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The AVX-512 files are compiled for AVX512F/BW/VL + VBMI + GFNI (+ the
 * carry-less multiplies): lib/x86_avx512.h's GOSTX_TARGET_AVX512. */
static int needs_avx512_set(const struct gostx_cpu *f) {
  return f->avx512vbmi && f->gfni && f->vpclmul && f->pclmul;
}
static int needs_pclmul(const struct gostx_cpu *f) { return f->pclmul; }
static int needs_vpclmul(const struct gostx_cpu *f) { return f->vpclmul && f->pclmul; }
#endif

static const struct row kuz_rows[] = {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    ROW(gostx_kuz_avx512, LEVEL_AVX512, 0, needs_avx512_set),
    ROW(gostx_kuz_avx2, LEVEL_AVX2, 0, NULL),
    ROW(gostx_kuz_ssse3, LEVEL_SSSE3, 0, NULL),
#endif
    ROW(gostx_kuz_lstable, LEVEL_PORTABLE, 1, NULL), /* leaks through the cache: named only */
    ROW(gostx_kuz_portable, LEVEL_PORTABLE, 0, NULL),
};
static const struct row magma_rows[] = {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    ROW(gostx_magma_avx512, LEVEL_AVX512, 0, needs_avx512_set),
    ROW(gostx_magma_avx2, LEVEL_AVX2, 0, NULL),
    ROW(gostx_magma_ssse3, LEVEL_SSSE3, 0, NULL),
#endif
    ROW(gostx_magma_portable, LEVEL_PORTABLE, 0, NULL),
};
static const struct row streebog_rows[] = {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    /* Table-free and constant-time (pi by VPERMI2B, L by GF2P8AFFINEQB). */
    ROW(gostx_streebog_avx512, LEVEL_AVX512, 0, needs_avx512_set),
    /* Baseline x86-64 code, listed at the first SIMD level so that the
     * portable level still runs the C reference. */
    ROW(gostx_streebog_x86, LEVEL_SSSE3, 0, NULL),
#endif
    ROW(gostx_streebog_portable, LEVEL_PORTABLE, 0, NULL),
};

static const struct row mgm_rows[] = {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    ROW(gostx_mgm_avx512, LEVEL_AVX512, 0, needs_avx512_set),
    ROW(gostx_mgm_vpclmul, LEVEL_AVX2, 0, needs_vpclmul),
    ROW(gostx_mgm_clmul, LEVEL_SSSE3, 0, needs_pclmul),
#endif
    ROW(gostx_mgm_portable, LEVEL_PORTABLE, 0, NULL),
};

static struct gostx_dispatch chosen;
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;

static int level_by_name(const char *name) {
  for (int l = 0; l < LEVEL_COUNT; l++)
    if (!strcmp(name, level_names[l])) return l;
  return -1;
}

/* Picks from rows (best first; the last row is portable and always usable).
 * name_of reads the implementation's name from its table. */
static const void *pick(const struct row *rows, size_t n, const char *(*name_of)(const void *),
                        const char *forced, const struct gostx_cpu *f) {
  int cap = LEVEL_COUNT - 1;
  if (forced && *forced) {
    int l = level_by_name(forced);
    if (l >= 0) {
      cap = l;
    } else {
      for (size_t i = 0; i < n; i++) /* an exact implementation name */
        if (!strcmp(name_of(rows[i].impl), forced) && level_supported(rows[i].level, f) &&
            (!rows[i].needs || rows[i].needs(f)))
          return rows[i].impl;
      return rows[n - 1].impl;
    }
  }
  for (size_t i = 0; i < n; i++) {
    const struct row *r = &rows[i];
    if (r->opt_in || r->level > cap || !level_supported(r->level, f)) continue;
    if (r->needs && !r->needs(f)) continue;
    return r->impl;
  }
  return rows[n - 1].impl;
}

static const char *kuz_name(const void *p) { return ((const struct gostx_kuz_impl *)p)->name; }
static const char *magma_name(const void *p) { return ((const struct gostx_magma_impl *)p)->name; }
static const char *streebog_name(const void *p) { return ((const struct gostx_streebog_impl *)p)->name; }
static const char *mgm_name(const void *p) { return ((const struct gostx_mgm_impl *)p)->name; }

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

static void choose(void) {
  const char *forced = getenv("GOSTX_IMPL");
  const struct gostx_cpu *f = gostx__cpu();
  chosen.kuz = pick(kuz_rows, NROWS(kuz_rows), kuz_name, forced, f);
  chosen.magma = pick(magma_rows, NROWS(magma_rows), magma_name, forced, f);
  chosen.streebog = pick(streebog_rows, NROWS(streebog_rows), streebog_name, forced, f);
  chosen.mgm = pick(mgm_rows, NROWS(mgm_rows), mgm_name, forced, f);
}

const struct gostx_dispatch *gostx__dispatch(void) {
  pthread_once(&chosen_once, choose);
  return &chosen;
}

int gostx__level_supported(const char *level) {
  int l = level_by_name(level);
  return l >= 0 && level_supported(l, gostx__cpu());
}

const char *gostx_impl(int primitive) {
  const struct gostx_dispatch *d = gostx__dispatch();
  switch (primitive) {
    case GOSTX_PRIM_KUZNYECHIK: return d->kuz->name;
    case GOSTX_PRIM_MAGMA: return d->magma->name;
    case GOSTX_PRIM_STREEBOG: return d->streebog->name;
    case GOSTX_PRIM_MGM: return d->mgm->name;
    default: return "unknown";
  }
}

const char *gostx_primitive_name(int primitive) {
  static const char *const names[GOSTX_PRIM_COUNT] = {"kuznyechik", "magma", "streebog", "mgm"};
  return primitive >= 0 && primitive < GOSTX_PRIM_COUNT ? names[primitive] : NULL;
}

/* Row i of a primitive's table list (best first), whether or not the
 * dispatcher would choose it: for differential tests and fuzzers that compare
 * every implementation with portable. *usable says whether this CPU can run
 * it. NULL past the last row or for an unknown primitive. */
const void *gostx__impl_row(int primitive, size_t i, int *usable) {
  const struct row *rows;
  size_t n;
  switch (primitive) {
    case GOSTX_PRIM_KUZNYECHIK: rows = kuz_rows; n = NROWS(kuz_rows); break;
    case GOSTX_PRIM_MAGMA: rows = magma_rows; n = NROWS(magma_rows); break;
    case GOSTX_PRIM_STREEBOG: rows = streebog_rows; n = NROWS(streebog_rows); break;
    case GOSTX_PRIM_MGM: rows = mgm_rows; n = NROWS(mgm_rows); break;
    default: return NULL;
  }
  if (i >= n) return NULL;
  if (usable) {
    const struct gostx_cpu *f = gostx__cpu();
    *usable = level_supported(rows[i].level, f) && (!rows[i].needs || rows[i].needs(f));
  }
  return rows[i].impl;
}
