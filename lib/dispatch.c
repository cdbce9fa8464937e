/* The only place that chooses implementations. Each primitive gets the best
 * table the CPU (and OS) supports, once per process.
 *
 * Levels, lowest first, per architecture: lib/levels.def (x86-64: portable <
 * ssse3 < avx2 < avx512bw < avx512; AArch64: portable < neon). GOSTX_IMPL=LEVEL
 * caps the choice at that level (each primitive takes its best implementation
 * at or below it), so tests can run every path the CPU has. GOSTX_IMPL=NAME
 * with an implementation's own name picks exactly that one where it exists
 * (other primitives fall back to portable); opt-in implementations that leak
 * through the cache (e.g. "lstable", "sbtable") are only ever chosen that way. A forced
 * level the CPU cannot run falls back to the best level below it, a name it
 * cannot run (or an unknown one: names are case-sensitive) to portable;
 * gostx_impl_requested tells callers which happened. */
#include <pthread.h>
#include <stdlib.h>

#include "gost3410/impl.h"
#include "internal.h"
#include "dispatch.h"
#include "kuznyechik/impl.h"
#include "magma/impl.h"
#include "mgm/impl.h"
#include "streebog/impl.h"
#include "tls/pad_scan.h"

/* The ladder of this architecture, from lib/levels.def. */
#define LEVEL_ON_any(...) __VA_ARGS__
#ifdef GOSTX_ARCH_X86_64
#define LEVEL_ON_x86_64(...) __VA_ARGS__
#else
#define LEVEL_ON_x86_64(...)
#endif
#ifdef GOSTX_ARCH_AARCH64
#define LEVEL_ON_aarch64(...) __VA_ARGS__
#else
#define LEVEL_ON_aarch64(...)
#endif

enum level {
#define LEVEL(arch, name, test) LEVEL_ON_##arch(LEVEL_##name, )
#include "levels.def"
#undef LEVEL
  LEVEL_COUNT
};
static const char *const level_names[LEVEL_COUNT] = {
#define LEVEL(arch, name, test) LEVEL_ON_##arch(#name, )
#include "levels.def"
#undef LEVEL
};

/* What each level needs from the CPU and OS. */
static int level_supported(int level, const struct gostx_cpu *f) {
  (void)f;
  switch (level) {
#define LEVEL(arch, name, test) LEVEL_ON_##arch(case LEVEL_##name: return (test);)
#include "levels.def"
#undef LEVEL
    default: return 0;
  }
}

const char *gostx_levels(void) {
  static const char text[] = ""
#define LEVEL(arch, name, test) LEVEL_ON_##arch(" " #name)
#include "levels.def"
#undef LEVEL
      ;
  return text + 1; /* past the first space */
}

/* One row per implementation, best first within each primitive. `needs` is an
 * extra feature test beyond the level (e.g. GFNI); opt_in rows are never
 * chosen unless named exactly. Fast paths add rows here. */
struct row {
  const void *impl;
  int level;
  int opt_in;
  int (*needs)(const struct gostx_cpu *f);
  /* NULL, or when the row is chosen by default: a row whose speed depends
   * on the microarchitecture rather than the ISA. Where prefer says no it
   * is still usable (tests, the constant-time gate, GOSTX_IMPL=NAME), just
   * not chosen unnamed. */
  int (*prefer)(const struct gostx_cpu *f);
};

#define ROW(table, lvl, optin, need) {&(table), (lvl), (optin), (need), NULL}
#define ROW_PREFER(table, lvl, need, pref) {&(table), (lvl), 0, (need), (pref)}

#ifdef GOSTX_ARCH_X86_64
/* The AVX-512 files are compiled for AVX512F/BW/VL + VBMI + GFNI (+ the
 * carry-less multiplies): lib/x86_avx512.h's GOSTX_TARGET_AVX512. */
static int needs_avx512_set(const struct gostx_cpu *f) {
  return f->avx512vbmi && f->gfni && f->vpclmul && f->pclmul;
}
static int needs_pclmul(const struct gostx_cpu *f) { return f->pclmul; }
static int needs_vpclmul(const struct gostx_cpu *f) { return f->vpclmul && f->pclmul; }
static int needs_mulx(const struct gostx_cpu *f) { return f->bmi2 && f->adx; }
static int needs_ifma(const struct gostx_cpu *f) { return needs_mulx(f) && f->avx512ifma; }
/* The Magma row for the sequential modes: the one-block vector round
 * (magma_avx512.c, ~8 cycles a round on Intel, 10.6 measured on Zen 4)
 * beats the general-register core there (Intel: ROR by CL is two uops on
 * two shift ports; AMD: ~45 ALU ops a round, ~12.5 cycles). On AMD only
 * family 25 (Zen 4; Zen 3 has no VBMI): Zen 5 is not measured (simple
 * vector ops of 2 cycles would make the round ~14), and valgrind's CPUID
 * (an Intel model) with GOSTX_CPU_VENDOR=amd keeps reaching the avx512 row
 * (docs/MAGMA.md "One block"). */
static int prefer_vround(const struct gostx_cpu *f) { return f->intel || f->family == 0x19; }
#endif
#ifdef GOSTX_ARCH_AARCH64
static int needs_pmull(const struct gostx_cpu *f) { return f->pmull; }
#endif

static const struct row kuz_rows[] = {
#ifdef GOSTX_ARCH_X86_64
    ROW(gostx_kuz_avx512, LEVEL_avx512, 0, needs_avx512_set),
    ROW(gostx_kuz_avx512bw, LEVEL_avx512bw, 0, NULL),
    ROW(gostx_kuz_avx2, LEVEL_avx2, 0, NULL),
    ROW(gostx_kuz_ssse3, LEVEL_ssse3, 0, NULL),
#endif
#ifdef GOSTX_ARCH_AARCH64
    ROW(gostx_kuz_neon, LEVEL_neon, 0, NULL),
#endif
    ROW(gostx_kuz_lstable, LEVEL_portable, 1, NULL), /* leaks through the cache: named only */
    ROW(gostx_kuz_portable, LEVEL_portable, 0, NULL),
};
static const struct row magma_rows[] = {
#ifdef GOSTX_ARCH_X86_64
    ROW_PREFER(gostx_magma_avx512_vround, LEVEL_avx512, needs_avx512_set, prefer_vround),
    ROW(gostx_magma_avx512, LEVEL_avx512, 0, needs_avx512_set),
    ROW(gostx_magma_avx512bw, LEVEL_avx512bw, 0, NULL),
    ROW(gostx_magma_avx2, LEVEL_avx2, 0, NULL),
    ROW(gostx_magma_ssse3, LEVEL_ssse3, 0, NULL),
#endif
#ifdef GOSTX_ARCH_AARCH64
    ROW(gostx_magma_neon, LEVEL_neon, 0, NULL),
#endif
    ROW(gostx_magma_portable, LEVEL_portable, 0, NULL),
};
static const struct row streebog_rows[] = {
#ifdef GOSTX_ARCH_X86_64
    /* Table-free and constant-time (pi by VPERMI2B, L by GF2P8AFFINEQB). */
    ROW(gostx_streebog_avx512, LEVEL_avx512, 0, needs_avx512_set),
    ROW(gostx_streebog_avx512bw, LEVEL_avx512bw, 0, NULL),
    /* Constant-time: pi and L by vpshufb on nibbles (streebog_ct.h). */
    ROW(gostx_streebog_avx2, LEVEL_avx2, 0, NULL),
    ROW(gostx_streebog_ssse3, LEVEL_ssse3, 0, NULL),
    /* The fused LPS tables (baseline x86-64): leak through the cache, named only. */
    ROW(gostx_streebog_sbtable, LEVEL_portable, 1, NULL),
#endif
#ifdef GOSTX_ARCH_AARCH64
    ROW(gostx_streebog_neon, LEVEL_neon, 0, NULL),
#endif
    ROW(gostx_streebog_portable, LEVEL_portable, 0, NULL),
};

static const struct row mgm_rows[] = {
#ifdef GOSTX_ARCH_X86_64
    ROW(gostx_mgm_avx512, LEVEL_avx512, 0, needs_avx512_set),
    ROW(gostx_mgm_vpclmul, LEVEL_avx2, 0, needs_vpclmul),
    ROW(gostx_mgm_clmul, LEVEL_ssse3, 0, needs_pclmul),
#endif
#ifdef GOSTX_ARCH_AARCH64
    ROW(gostx_mgm_neon, LEVEL_neon, 0, needs_pmull),
#endif
    ROW(gostx_mgm_portable, LEVEL_portable, 0, NULL),
};

/* GOST R 34.10's field products. MULX/ADX came with AVX2's generation
 * (Haswell, Broadwell; Zen): the avx2 level, so GOSTX_IMPL=ssse3 or portable
 * runs the portable field. The avx512 level adds 256 paramSetA's doublings
 * on AVX-512 IFMA (Ice Lake and later, Zen 4 and later) to the MULX field. */
static const struct row gx_rows[] = {
#ifdef GOSTX_ARCH_X86_64
    ROW(gostx_gx_avx512ifma, LEVEL_avx512, 0, needs_ifma),
    ROW(gostx_gx_mulx, LEVEL_avx2, 0, needs_mulx),
#endif
    ROW(gostx_gx_portable, LEVEL_portable, 0, NULL),
};

/* lib/tls's padding scan: AVX2 wherever it runs (the avx512 levels too). */
static const struct row tls_scan_rows[] = {
#ifdef GOSTX_ARCH_X86_64
    ROW(gostx_tls_scan_avx2, LEVEL_avx2, 0, NULL),
#endif
    ROW(gostx_tls_scan_portable, LEVEL_portable, 0, NULL),
};

static struct gostx_dispatch chosen;
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;

/* Every implementation table starts with its name (the rows' tables: the
 * primitives' impl.h). */
static const char *impl_name(const void *p) { return *(const char *const *)p; }

static int level_by_name(const char *name) {
  for (int l = 0; l < LEVEL_COUNT; l++)
    if (!strcmp(name, level_names[l])) return l;
  return -1;
}

/* Picks from rows (best first; the last row is portable and always usable).
 */
static const void *pick(const struct row *rows, size_t n, const char *forced,
                        const struct gostx_cpu *f) {
  int cap = LEVEL_COUNT - 1;
  if (forced && *forced) {
    int l = level_by_name(forced);
    if (l >= 0) {
      cap = l;
    } else {
      for (size_t i = 0; i < n; i++) /* an exact implementation name */
        if (!strcmp(impl_name(rows[i].impl), forced) && level_supported(rows[i].level, f) &&
            (!rows[i].needs || rows[i].needs(f)))
          return rows[i].impl;
      return rows[n - 1].impl;
    }
  }
  for (size_t i = 0; i < n; i++) {
    const struct row *r = &rows[i];
    if (r->opt_in || r->level > cap || !level_supported(r->level, f)) continue;
    if (r->needs && !r->needs(f)) continue;
    if (r->prefer && !r->prefer(f)) continue;
    return r->impl;
  }
  return rows[n - 1].impl;
}

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

/* Every primitive's rows, by its number (enum gostx_alg; lib/tls's padding
 * scan has no public one): the one list that GOSTX_IMPL's names and the
 * tests' row walks read. */
static const struct family {
  int alg;
  const struct row *rows;
  size_t n;
} families[] = {
    {GOSTX_ALG_KUZNYECHIK, kuz_rows, NROWS(kuz_rows)},
    {GOSTX_ALG_MAGMA, magma_rows, NROWS(magma_rows)},
    {GOSTX_ALG_STREEBOG, streebog_rows, NROWS(streebog_rows)},
    {GOSTX_ALG_MGM, mgm_rows, NROWS(mgm_rows)},
    {GOSTX_ALG_GOST3410, gx_rows, NROWS(gx_rows)},
    {GOSTX__ROWS_TLS_SCAN, tls_scan_rows, NROWS(tls_scan_rows)},
};

/* The chosen table's key schedule, or the best usable one below it: the
 * schedule is the same bytes everywhere, and a table without its own (avx512)
 * should not fall back to the portable one, ~15x slower. */
static void (*kuz_expand_for(const struct gostx_kuz_impl *im,
                             const struct gostx_cpu *f))(gostx_kuz_key *, const uint8_t[32]) {
  size_t i = 0;
  while (i < NROWS(kuz_rows) && kuz_rows[i].impl != im) i++;
  for (; i < NROWS(kuz_rows); i++) {
    const struct row *r = &kuz_rows[i];
    const struct gostx_kuz_impl *k = r->impl;
    if (k != im && (r->opt_in || !level_supported(r->level, f) || (r->needs && !r->needs(f))))
      continue;
    if (k->expand) return k->expand;
  }
  return NULL;
}

/* What became of GOSTX_IMPL, for gostx_impl_requested: the library does not
 * print, its callers (the CLI) say so. */
static gostx_impl_request request = GOSTX_IMPL_UNSET;
static char request_value[64];
static const char *request_running;

static int name_usable(const struct row *rows, size_t n, const char *name,
                       const struct gostx_cpu *f, int *exists) {
  for (size_t i = 0; i < n; i++) {
    if (strcmp(impl_name(rows[i].impl), name)) continue;
    *exists = 1;
    if (level_supported(rows[i].level, f) && (!rows[i].needs || rows[i].needs(f))) return 1;
  }
  return 0;
}

/* Classifies GOSTX_IMPL as pick() applies it. */
static void classify(const char *forced, const struct gostx_cpu *f) {
  if (!forced || !*forced) return;
  size_t len = strlen(forced);
  if (len >= sizeof request_value) len = sizeof request_value - 1;
  memcpy(request_value, forced, len);
  request_value[len] = 0;
  int l = level_by_name(forced);
  if (l >= 0) {
    int run = l; /* pick() caps at l: the best level at or below it runs */
    while (run > 0 && !level_supported(run, f)) run--;
    request = run == l ? GOSTX_IMPL_HONOURED : GOSTX_IMPL_UNSUPPORTED;
    request_running = level_names[run];
    return;
  }
  int exists = 0, usable = 0;
  for (size_t i = 0; i < NROWS(families); i++)
    usable |= name_usable(families[i].rows, families[i].n, forced, f, &exists);
  request = usable ? GOSTX_IMPL_HONOURED : exists ? GOSTX_IMPL_UNSUPPORTED : GOSTX_IMPL_UNKNOWN;
  request_running = usable ? request_value : level_names[0];
}

static void choose(void) {
  const char *forced = getenv("GOSTX_IMPL");
  const struct gostx_cpu *f = gostx__cpu();
  classify(forced, f);
  chosen.kuz = pick(kuz_rows, NROWS(kuz_rows), forced, f);
  chosen.kuz_expand = kuz_expand_for(chosen.kuz, f);
  chosen.magma = pick(magma_rows, NROWS(magma_rows), forced, f);
  chosen.streebog = pick(streebog_rows, NROWS(streebog_rows), forced, f);
  chosen.mgm = pick(mgm_rows, NROWS(mgm_rows), forced, f);
  chosen.gx = pick(gx_rows, NROWS(gx_rows), forced, f);
  chosen.tls_scan = pick(tls_scan_rows, NROWS(tls_scan_rows), forced, f);
}

const struct gostx_dispatch *gostx__dispatch(void) {
  pthread_once(&chosen_once, choose);
  return &chosen;
}

#ifdef GOSTX_CT_PLANTS
int gostx__ct_plant; /* which planted leak is live (lib/internal.h); none by default */
#endif

gostx_impl_request gostx_impl_requested(const char **value, const char **running) {
  gostx__dispatch();
  if (value) *value = request == GOSTX_IMPL_UNSET ? NULL : request_value;
  if (running) *running = request == GOSTX_IMPL_UNSET ? NULL : request_running;
  return request;
}

int gostx__level_supported(const char *level) {
  int l = level_by_name(level);
  return l >= 0 && level_supported(l, gostx__cpu());
}

const char *gostx_impl(gostx_alg alg) {
  const struct gostx_dispatch *d = gostx__dispatch();
  switch (alg) {
    case GOSTX_ALG_KUZNYECHIK: return d->kuz->name;
    case GOSTX_ALG_MAGMA: return d->magma->name;
    case GOSTX_ALG_STREEBOG: return d->streebog->name;
    case GOSTX_ALG_MGM: return d->mgm->name;
    case GOSTX_ALG_GOST3410: return d->gx->name;
    default: return "unknown";
  }
}

/* The rows of a primitive, best first; NULL for an unknown one. */
static const struct row *rows_of(int alg, size_t *n) {
  for (size_t i = 0; i < NROWS(families); i++)
    if (families[i].alg == alg) return *n = families[i].n, families[i].rows;
  *n = 0;
  return NULL;
}

/* Row i of a primitive's table list (best first), whether or not the
 * dispatcher would choose it: for differential tests and fuzzers that compare
 * every implementation with portable. *usable says whether this CPU can run
 * it. NULL past the last row or for an unknown primitive. */
const void *gostx__impl_row(int primitive, size_t i, int *usable) {
  struct gostx__row_info info;
  const void *impl = gostx__impl_row_info(primitive, i, &info);
  if (impl && usable) *usable = info.usable;
  return impl;
}

const void *gostx__impl_row_info(int alg, size_t i, struct gostx__row_info *info) {
  size_t n;
  const struct row *rows = rows_of(alg, &n);
  if (!rows || i >= n) return NULL;
  const struct gostx_cpu *f = gostx__cpu();
  info->usable = level_supported(rows[i].level, f) && (!rows[i].needs || rows[i].needs(f));
  info->level = level_names[rows[i].level];
  info->opt_in = rows[i].opt_in;
  info->not_preferred = rows[i].prefer && !rows[i].prefer(f);
  info->name = impl_name(rows[i].impl);
  return rows[i].impl;
}
