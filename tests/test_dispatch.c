/* The dispatcher: a forced level is honoured, gostx_impl() names the table
 * that actually runs, and the common helpers behave. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The AVX-512 rows run where the avx512 level does and the CPU has the rest
 * of what lib/x86_avx512.h compiles those files for. */
static int avx512_set(void) {
  const struct gostx_cpu *c = gostx__cpu();
  return gostx__level_supported("avx512") && c->avx512vbmi && c->gfni && c->vpclmul && c->pclmul;
}
#endif

/* The Magma implementation a level (or the default, level NULL) must give
 * on this CPU: the best one at or below it. */
static const char *expected_magma(const char *level) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  int cap_avx512 = !level || !strcmp(level, "avx512");
  int cap_avx2 = cap_avx512 || !strcmp(level, "avx2");
  int cap_ssse3 = cap_avx2 || !strcmp(level, "ssse3");
  if (cap_avx512 && avx512_set()) return "avx512";
  if (cap_avx2 && gostx__level_supported("avx2")) return "avx2";
  if (cap_ssse3 && gostx__level_supported("ssse3")) return "ssse3";
#else
  (void)level;
#endif
  return "portable";
}

/* The Kuznyechik table the dispatcher should pick for a GOSTX_IMPL value
 * (NULL = unset) on this CPU. */
static const struct gostx_kuz_impl *expected_kuz(const char *env) {
  const struct gostx_kuz_impl *best = &gostx_kuz_portable;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (gostx__level_supported("avx2")) best = &gostx_kuz_avx2;
  else if (gostx__level_supported("ssse3")) best = &gostx_kuz_ssse3;
  if (env && !strcmp(env, "avx2")) return best;
  /* The avx512 level (and the default) add the AVX-512 row where its
   * feature set (VBMI, GFNI, ...) is present: the dispatcher's own answer
   * for the row, which test_kuz_simd and the CPU flags check. */
  int usable = 0;
  for (size_t i = 0; gostx__impl_row(GOSTX_PRIM_KUZNYECHIK, i, NULL); i++)
    if (gostx__impl_row(GOSTX_PRIM_KUZNYECHIK, i, NULL) == &gostx_kuz_avx512)
      gostx__impl_row(GOSTX_PRIM_KUZNYECHIK, i, &usable);
  const struct gostx_cpu *f = gostx__cpu();
  CHECK(usable == (gostx__level_supported("avx512") && f->avx512vbmi && f->gfni && f->vpclmul &&
                   f->pclmul),
        "avx512 kuznyechik row usable exactly with its features");
  if (usable) best = &gostx_kuz_avx512;
#endif
  if (!env || !strcmp(env, "avx512") || !strcmp(env, "avx2")) return best;
  if (!strcmp(env, "lstable")) return &gostx_kuz_lstable; /* opt-in: only by name */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (!strcmp(env, "ssse3") && gostx__level_supported("ssse3")) return &gostx_kuz_ssse3;
#endif
  return &gostx_kuz_portable;
}

/* Each choice is made once per process, so every GOSTX_IMPL value is tried
 * in a child: the table that runs must be the expected one, gostx_impl()
 * must name it, and it must encrypt the standard's vector (so the pointer
 * really reaches working code). */
static void check_kuz_choice(const char *env) {
  pid_t pid = fork();
  if (pid == 0) {
    if (env) setenv("GOSTX_IMPL", env, 1);
    else unsetenv("GOSTX_IMPL");
    const struct gostx_kuz_impl *want = expected_kuz(env);
    int ok = gostx__dispatch()->kuz == want && !strcmp(gostx_impl(GOSTX_PRIM_KUZNYECHIK), want->name);
    static const uint8_t key[32] = {0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x11, 0x22,
                                    0x33, 0x44, 0x55, 0x66, 0x77, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54,
                                    0x32, 0x10, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
    static const uint8_t pt[16] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x00,
                                   0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88};
    static const uint8_t ct[16] = {0x7f, 0x67, 0x9d, 0x90, 0xbe, 0xbc, 0x24, 0x30,
                                   0x5a, 0x46, 0x8d, 0x42, 0xb9, 0xd4, 0xed, 0xcd};
    gostx_kuz_key k;
    uint8_t buf[16];
    gostx_kuz_set_key(&k, key);
    gostx_kuz_encrypt_blocks(&k, pt, buf, 1);
    ok = ok && !memcmp(buf, ct, 16);
    if (!ok)
      fprintf(stderr, "GOSTX_IMPL=%s: kuznyechik runs %s, want %s\n", env ? env : "(unset)",
              gostx_impl(GOSTX_PRIM_KUZNYECHIK), want->name);
    _exit(ok ? 0 : 1);
  }
  int st = 0;
  CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "GOSTX_IMPL=%s picks %s", env ? env : "(unset)", expected_kuz(env)->name);
}

int main(void) {
  /* First, before this process's own choice: each GOSTX_IMPL value in a child. */
  static const char *const envs[] = {NULL, "portable", "ssse3", "avx2", "avx512", "lstable", "nonsense"};
  for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) check_kuz_choice(envs[i]);

  /* Before anything touches the dispatcher: ask for the portable level. If the
   * caller already forced a level (ctest runs the suite per level), check that one. */
  const char *forced = getenv("GOSTX_IMPL");
  if (!forced || !*forced) {
    /* The default choice is made once per process, so look at it in a child
     * before this process forces portable. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(strcmp(gostx_impl(GOSTX_PRIM_MAGMA), expected_magma(NULL)) != 0);
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "default magma implementation is the best here (%s)", expected_magma(NULL));
    setenv("GOSTX_IMPL", "portable", 1);
    forced = "portable";
  }

  const struct gostx_dispatch *d = gostx__dispatch();
  CHECK(d->kuz && d->magma && d->streebog && d->mgm, "dispatch table filled");
  CHECK(!strcmp(gostx_impl(GOSTX_PRIM_KUZNYECHIK), d->kuz->name), "kuznyechik name = running table");
  CHECK(!strcmp(gostx_impl(GOSTX_PRIM_MAGMA), d->magma->name), "magma name = running table");
  CHECK(!strcmp(gostx_impl(GOSTX_PRIM_STREEBOG), d->streebog->name), "streebog name = running table");
  CHECK(!strcmp(gostx_impl(GOSTX_PRIM_MGM), d->mgm->name), "mgm name = running table");
  CHECK(!strcmp(gostx_primitive_name(GOSTX_PRIM_MGM), "mgm"), "mgm primitive name");
  /* The portable level exists for every primitive, so forcing it must take. */
  if (!strcmp(forced, "portable")) {
    CHECK(d->kuz == &gostx_kuz_portable, "kuznyechik runs portable");
    CHECK(d->magma == &gostx_magma_portable, "magma runs portable");
    CHECK(d->streebog == &gostx_streebog_portable, "streebog runs portable");
    CHECK(d->mgm == &gostx_mgm_portable, "mgm runs portable");
  }
  /* A forced level picks the best Magma at or below it. */
  CHECK(!strcmp(gostx_impl(GOSTX_PRIM_MAGMA), expected_magma(forced)),
        "GOSTX_IMPL=%s: magma runs %s, want %s", forced, gostx_impl(GOSTX_PRIM_MAGMA),
        expected_magma(forced));
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  /* Levels pick the MGM multiply the CPU flags allow: a detection or row
   * bug would otherwise hide behind bit-exact results. */
  const struct gostx_cpu *cpu = gostx__cpu();
  if (!strcmp(forced, "ssse3") && cpu->ssse3)
    CHECK(d->mgm == (cpu->pclmul ? &gostx_mgm_clmul : &gostx_mgm_portable), "ssse3 level mgm: %s", d->mgm->name);
  if (!strcmp(forced, "avx2") && cpu->avx2)
    CHECK(d->mgm == (cpu->vpclmul && cpu->pclmul ? &gostx_mgm_vpclmul
                     : cpu->pclmul ? &gostx_mgm_clmul : &gostx_mgm_portable),
          "avx2 level mgm: %s", d->mgm->name);
  /* Streebog's x86-64 code needs nothing beyond x86-64: every SIMD level has it. */
  if ((!strcmp(forced, "ssse3") && cpu->ssse3) || (!strcmp(forced, "avx2") && cpu->avx2))
    CHECK(d->streebog == &gostx_streebog_x86, "%s level streebog: %s", forced, d->streebog->name);
  /* The avx512 level runs the table-free Streebog where VBMI and GFNI (and
   * the rest of lib/x86_avx512.h's set) exist, else the x86-64 code. */
  if (!strcmp(forced, "avx512") && gostx__level_supported("avx512")) {
    int full = cpu->avx512vbmi && cpu->gfni && cpu->vpclmul && cpu->pclmul;
    CHECK(d->streebog == (full ? &gostx_streebog_avx512 : &gostx_streebog_x86),
          "avx512 level streebog: %s", d->streebog->name);
  }
  if (!strcmp(forced, "avx512") && !gostx__level_supported("avx512"))
    CHECK(d->streebog != &gostx_streebog_avx512, "no AVX-512: streebog runs %s", d->streebog->name);
  if (!strcmp(forced, "pclmul"))
    CHECK(d->mgm == (cpu->pclmul && cpu->ssse3 ? &gostx_mgm_clmul : &gostx_mgm_portable), "named pclmul: %s", d->mgm->name);
  if (!strcmp(forced, "avx512") && cpu->avx2)
    CHECK(d->mgm == (avx512_set() ? &gostx_mgm_avx512
                     : cpu->vpclmul && cpu->pclmul ? &gostx_mgm_vpclmul
                     : cpu->pclmul ? &gostx_mgm_clmul : &gostx_mgm_portable),
          "avx512 level mgm: %s", d->mgm->name);
  if (!strcmp(forced, "avx512") && cpu->avx2)
    CHECK(d->magma == (avx512_set() ? &gostx_magma_avx512 : &gostx_magma_avx2),
          "avx512 level magma: %s", d->magma->name);
  if (!strcmp(forced, "avx2")) CHECK(d->magma == &gostx_magma_avx2, "magma runs the avx2 table");
  if (!strcmp(forced, "ssse3")) CHECK(d->magma == &gostx_magma_ssse3, "magma runs the ssse3 table");
#endif
  CHECK(gostx__dispatch() == d, "choice is made once");
  CHECK(!strcmp(gostx_impl(12345), "unknown"), "unknown primitive");
  for (int p = 0; p < GOSTX_PRIM_COUNT; p++) CHECK(gostx_primitive_name(p) != NULL, "primitive %d named", p);
  CHECK(gostx_primitive_name(GOSTX_PRIM_COUNT) == NULL, "out of range primitive");

  const char *features = gostx_cpu_features();
  CHECK(features && *features, "feature string");
#if defined(__x86_64__)
  CHECK(gostx__cpu()->sse2, "x86-64 always has SSE2");
  CHECK(strstr(features, "sse2") != NULL, "sse2 listed: %s", features);
#endif

  /* Error strings: every code has its own text. */
  for (int e = GOSTX_EFORMAT; e <= GOSTX_OK; e++) {
    CHECK(strcmp(gostx_strerror(e), "unknown error") != 0, "strerror(%d)", e);
    for (int f = e + 1; f <= GOSTX_OK; f++)
      CHECK(strcmp(gostx_strerror(e), gostx_strerror(f)) != 0, "strerror %d vs %d", e, f);
  }
  CHECK(!strcmp(gostx_strerror(-1000), "unknown error"), "unknown code");

  uint8_t a[64], b[64];
  t_rand_init();
  t_rand_bytes(a, sizeof a);
  memcpy(b, a, sizeof b);
  CHECK(gostx_memeq_ct(a, b, sizeof a) == 0, "equal buffers");
  CHECK(gostx_memeq_ct(a, b, 0) == 0, "empty buffers");
  for (size_t i = 0; i < sizeof a; i++)
    for (int bit = 0; bit < 8; bit++) {
      b[i] ^= (uint8_t)(1u << bit);
      CHECK(gostx_memeq_ct(a, b, sizeof a) == -1, "differs at byte %zu bit %d", i, bit);
      b[i] ^= (uint8_t)(1u << bit);
    }
  gostx_memzero(a, sizeof a);
  for (size_t i = 0; i < sizeof a; i++) CHECK(a[i] == 0, "wiped byte %zu", i);
  return t_done();
}
