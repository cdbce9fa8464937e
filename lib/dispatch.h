/* The dispatcher (lib/dispatch.c): the process-wide choice of each
 * primitive's implementation and its rows, for the primitives' front files
 * and the tests. Not installed. */
#ifndef GOSTX_DISPATCH_H
#define GOSTX_DISPATCH_H

#include "internal.h"

/* Each primitive's table type and its ISA tables live in that primitive's
 * impl.h (lib/kuznyechik/, lib/magma/, lib/streebog/, lib/mgm/,
 * lib/gost3410/; lib/tls/pad_scan.h for TLS 1.3's padding scan); each ISA
 * file exports one const table, and lib/dispatch.c, the only file that sees
 * them all, chooses among them. */
struct gostx_kuz_impl;
struct gostx_magma_impl;
struct gostx_streebog_impl;
struct gostx_mgm_impl;
struct gostx_gx_impl;
struct gostx_tls_scan_impl;
struct gostx_dispatch {
  const struct gostx_kuz_impl *kuz;
  /* Kuznyechik's key schedule: kuz's own expand, else that of the best
   * usable row below it (the avx512 table has none: avx2's, the same bytes),
   * NULL = the portable schedule. CTR-ACPKM runs it once per section. */
  void (*kuz_expand)(gostx_kuz_key *k, const uint8_t key[32]);
  const struct gostx_magma_impl *magma;
  const struct gostx_streebog_impl *streebog;
  const struct gostx_mgm_impl *mgm;
  /* GOST R 34.10's scalar multiplications and curve steps: a curve is
   * loaded on this row per operation (gost3410/curves.c) */
  const struct gostx_gx_impl *gx;
  const struct gostx_tls_scan_impl *tls_scan; /* lib/tls's padding scan (tls/pad_scan.h) */
};
/* The process-wide choice, made once (thread-safe) on first use. */
const struct gostx_dispatch *gostx__dispatch(void);
/* 1 when the named level (lib/levels.def) runs here. */
int gostx__level_supported(const char *level);
/* Row i of a primitive's implementation list (enum gostx_alg, or
 * GOSTX__ROWS_TLS_SCAN; a const struct gostx_kuz_impl / _magma_impl /
 * _streebog_impl / _mgm_impl / _gx_impl / _tls_scan_impl *), NULL past the end;
 * *usable (may be NULL) = whether this CPU runs it. For differential tests. */
const void *gostx__impl_row(int primitive, size_t i, int *usable);
/* The primitive number of lib/tls's padding scan rows for the two calls
 * here (not an enum gostx_alg: no public name). */
enum { GOSTX__ROWS_TLS_SCAN = 1000 };
/* The same with the row's description: the dispatcher's policy as data, so
 * tests check the choice against the rows instead of re-stating them. */
struct gostx__row_info {
  int usable;        /* this CPU and OS run it */
  const char *level; /* its level (lib/levels.def) */
  int opt_in;        /* chosen only when named exactly */
  const char *name;  /* the implementation's name */
  int not_preferred; /* usable, but not chosen unnamed on this CPU (dispatch.c's ROW_PREFER) */
};
const void *gostx__impl_row_info(int alg, size_t i, struct gostx__row_info *info);

#endif
