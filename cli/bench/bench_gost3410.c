/* gostx bench --gost3410: GOST R 34.10-2012 key generation, signing,
 * verification and VKO (VKO_GOSTR3410_2012_256, 8-byte UKM) on every
 * standard parameter set, one thread: operations per second (median of
 * --repeat repetitions of >= --time ms on bench_clock's clock) and
 * microseconds per operation. Sign and VKO go through the key object
 * (gostx_gost3410_key_sign, _key_vko), the door every signer of the
 * library takes, so the rows show what callers pay. Rows are named gost3410-CURVE-OP (CURVE: 256a,
 * 256b, 256c, 256d, 512a, 512b, 512c); --filter SUBSTR picks them. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_ec.h"

/* The standard sets; a row's CURVE is the set's short name in lower case
 * (gostx_gost3410_curve_short_name). */
static const gostx_gost3410_curve curves[] = {
    GOSTX_GOST3410_256_A, GOSTX_GOST3410_256_B, GOSTX_GOST3410_256_C, GOSTX_GOST3410_256_D,
    GOSTX_GOST3410_512_A, GOSTX_GOST3410_512_B, GOSTX_GOST3410_512_C,
};
#define NCURVES (sizeof curves / sizeof curves[0])

struct keys {
  gostx_bench_ec ec;      /* first: the shared jobs take a struct keys */
  gostx_gost3410_key key; /* ec.priv as the key object */
};

static int op_sign(void *a) {
  struct keys *k = a;
  return gostx_gost3410_key_sign(&k->key, k->ec.digest, k->ec.len, k->ec.sig, 2 * k->ec.len);
}
static int op_vko(void *a) {
  struct keys *k = a;
  return gostx_gost3410_key_vko(&k->key, k->ec.peer, 2 * k->ec.len, k->ec.ukm, sizeof k->ec.ukm,
                                k->ec.out, 32);
}

static const struct {
  const char *name;
  gostx_bench_job fn;
} ops[] = {{"keygen", gostx_bench_ec_keygen}, {"sign", op_sign},
           {"verify", gostx_bench_ec_verify}, {"vko", op_vko}};
#define NOPS (sizeof ops / sizeof ops[0])

static void row_name(size_t c, size_t o, char *buf, size_t cap) {
  char tag[16];
  snprintf(tag, sizeof tag, "%s", gostx_gost3410_curve_short_name(curves[c]));
  for (char *t = tag; *t; t++) *t = (char)tolower((unsigned char)*t);
  snprintf(buf, cap, "gost3410-%s-%s", tag, ops[o].name);
}

static int selected(size_t c, size_t o, const char *filter) {
  char name[64];
  row_name(c, o, name, sizeof name);
  return !filter || strstr(name, filter) != NULL;
}

int bench_gost3410_count(const char *filter, int list) {
  int n = 0;
  char name[64];
  for (size_t c = 0; c < NCURVES; c++)
    for (size_t o = 0; o < NOPS; o++)
      if (selected(c, o, filter)) {
        n++;
        if (list) {
          row_name(c, o, name, sizeof name);
          puts(name);
        }
      }
  return n;
}

static int setup(struct keys *k, gostx_gost3410_curve curve) {
  int rc = gostx_bench_ec_setup(&k->ec, curve);
  return rc ? rc : gostx_gost3410_key_set_private(&k->key, curve, k->ec.priv, k->ec.len, NULL);
}

int bench_gost3410(int repeat, double min_time, const char *filter, int json) {
  double *v = malloc((size_t)repeat * sizeof *v);
  if (!v) {
    cli_err("bench: out of memory");
    return CLI_EXIT_FAIL;
  }
  if (json)
    printf("\"gost3410\": [");
  else
    printf("\nGOST R 34.10-2012, one thread\n%-24s %12s %12s\n", "row", "ops/s", "us/op");
  int first = 1, rc = 0;
  for (size_t c = 0; c < NCURVES && !rc; c++) {
    struct keys k;
    int any = 0;
    for (size_t o = 0; o < NOPS; o++) any |= selected(c, o, filter);
    if (!any) continue;
    rc = setup(&k, curves[c]);
    for (size_t o = 0; o < NOPS && !rc; o++) {
      if (!selected(c, o, filter)) continue;
      char name[64];
      row_name(c, o, name, sizeof name);
      (void)ops[o].fn(&k); /* warm-up: the curve's tables are built on first use */
      for (int r = 0; r < repeat && !rc; r++) {
        uint64_t calls;
        double secs;
        rc = gostx_bench_run_for(bench_clock(0), min_time, ops[o].fn, &k, &calls, &secs);
        v[r] = (double)calls / secs;
      }
      if (rc) {
        if (json) printf("]");
        cli_err("bench: %s failed: %s", name, gostx_strerror(rc));
        break;
      }
      double ops_s = gostx_bench_median(v, repeat);
      if (json) {
        printf("%s\n  {\"row\": ", first ? "" : ",");
        cli_json_str(name);
        printf(", \"curve\": ");
        cli_json_str(gostx_gost3410_curve_name(curves[c]));
        printf(", \"op\": \"%s\", \"ops_per_s\": %.1f, \"us_per_op\": %.3f}", ops[o].name, ops_s,
               1e6 / ops_s);
      } else {
        printf("%-24s %12.0f %12.2f\n", name, ops_s, 1e6 / ops_s);
      }
      first = 0;
      fflush(stdout);
    }
    gostx_memzero(&k, sizeof k);
  }
  free(v);
  if (rc) return CLI_EXIT_FAIL;
  if (json) printf("\n]");
  return CLI_EXIT_OK;
}
