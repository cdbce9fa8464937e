/* The dispatcher: a forced level is honoured, gostx_impl() names the table
 * that actually runs, and the common helpers behave. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kuznyechik/impl.h"
#include "magma/impl.h"
#include "mgm/impl.h"
#include "streebog/impl.h"
#include "testutil.h"
#include "dispatch.h"

/* Position of a level in gostx_levels() (the ladder, lowest first), or -1. */
static int level_index(const char *name) {
  const char *p = gostx_levels();
  for (int idx = 0; *p; idx++) {
    size_t len = strcspn(p, " ");
    if (strlen(name) == len && !strncmp(p, name, len)) return idx;
    p += len;
    p += *p == ' ';
  }
  return -1;
}

/* The implementation the dispatcher must run for alg under a GOSTX_IMPL
 * value (NULL = unset), read off its rows (gostx__impl_row_info): an exact
 * name that runs here is taken as it is; otherwise the first row, best
 * first, that is not opt-in, is not passed over on this CPU (ROW_PREFER),
 * sits at or below the forced level and runs here; the last row (portable)
 * when nothing else does. Adding an implementation or a level changes the
 * rows, not this test. */
static const void *expected_impl(int alg, const char *env) {
  struct gostx__row_info info;
  const void *impl, *last = NULL;
  int cap = env && *env ? level_index(env) : 1 << 20;
  if (env && *env && cap < 0) { /* an implementation's own name */
    for (size_t i = 0; (impl = gostx__impl_row_info(alg, i, &info)) != NULL; i++) {
      if (!strcmp(info.name, env) && info.usable) return impl;
      last = impl;
    }
    return last;
  }
  for (size_t i = 0; (impl = gostx__impl_row_info(alg, i, &info)) != NULL; i++) {
    if (!info.opt_in && !info.not_preferred && info.usable && level_index(info.level) <= cap)
      return impl;
    last = impl;
  }
  return last;
}

static const char *expected_magma(const char *level) {
  return ((const struct gostx_magma_impl *)expected_impl(GOSTX_ALG_MAGMA, level))->name;
}

static const struct gostx_kuz_impl *expected_kuz(const char *env) {
  return expected_impl(GOSTX_ALG_KUZNYECHIK, env);
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
    int ok = gostx__dispatch()->kuz == want && !strcmp(gostx_impl(GOSTX_ALG_KUZNYECHIK), want->name);
    /* The key schedule: the table's own, or for a table without one
     * (avx512bw) the first usable row's below it in the dispatcher's order. */
    void (*want_expand)(gostx_kuz_key *, const uint8_t[32]) = want->expand;
    if (!want_expand) {
      struct gostx__row_info info;
      const void *row;
      int below = 0;
      for (size_t i = 0;
           !want_expand && (row = gostx__impl_row_info(GOSTX_ALG_KUZNYECHIK, i, &info)); i++) {
        const struct gostx_kuz_impl *k = row;
        if (k == want) below = 1;
        else if (below && info.usable && !info.opt_in && !info.not_preferred) want_expand = k->expand;
      }
    }
    ok = ok && gostx__dispatch()->kuz_expand == want_expand;
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
    gostx_kuz_encrypt_blocks(&k, pt, 1, buf);
    ok = ok && !memcmp(buf, ct, 16);
    if (!ok)
      fprintf(stderr, "GOSTX_IMPL=%s: kuznyechik runs %s, want %s\n", env ? env : "(unset)",
              gostx_impl(GOSTX_ALG_KUZNYECHIK), want->name);
    _exit(ok ? 0 : 1);
  }
  int st = 0;
  CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "GOSTX_IMPL=%s picks %s", env ? env : "(unset)", expected_kuz(env)->name);
}

/* GOSTX_CPU_VENDOR (lib/cpu.c) decides the preferred rows whatever this
 * host's vendor, so that the gates reach the rows either vendor's CPUs
 * choose. The CPU is read once per process, before main (the harness's
 * level check), so each vendor runs in a fresh exec of this test
 * ("vendor NAME"): the Magma row avx512-vround must be preferred exactly
 * when the vendor is intel or the family is 25 (AMD Zen 4), and the
 * default choice must follow. */
static int vendor_child(const char *vendor) {
  struct gostx__row_info info;
  int found = 0, ok = 1;
  for (size_t i = 0; gostx__impl_row_info(GOSTX_ALG_MAGMA, i, &info); i++) {
    if (strcmp(info.name, "avx512-vround")) continue;
    found = 1;
    /* AMD: preferred on family 25 (Zen 4) only, lib/dispatch.c's prefer_vround */
    ok = info.not_preferred == (!strcmp(vendor, "amd") && gostx__cpu()->family != 0x19);
  }
  return ok && found && !strcmp(gostx_impl(GOSTX_ALG_MAGMA), expected_magma(NULL)) ? 0 : 1;
}

#ifdef GOSTX_ARCH_X86_64 /* the vendor is x86-64's */
static void check_vendor(const char *vendor) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("GOSTX_CPU_VENDOR", vendor, 1);
    unsetenv("GOSTX_IMPL");
    execl("/proc/self/exe", "test_dispatch", "vendor", vendor, (char *)NULL);
    _exit(3);
  }
  int st = 0;
  CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
        "GOSTX_CPU_VENDOR=%s: avx512-vround preferred on intel and family 25 only, the default follows", vendor);
}
#endif

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "vendor")) return vendor_child(argv[2]);
#ifdef GOSTX_ARCH_X86_64
  check_vendor("intel");
  check_vendor("amd");
#endif
  /* First, before this process's own choice: each GOSTX_IMPL value in a
   * child: unset, every level, every row's own name, and a name nothing has. */
  check_kuz_choice(NULL);
  char level[64];
  for (const char *p = gostx_levels(); *p;) {
    size_t len = strcspn(p, " ");
    snprintf(level, sizeof level, "%.*s", (int)len, p);
    check_kuz_choice(level);
    p += len;
    p += *p == ' ';
  }
  for (int a = 1; a < GOSTX_ALG_END; a++) {
    struct gostx__row_info info;
    for (size_t i = 0; gostx__impl_row_info(a, i, &info); i++)
      if (level_index(info.name) < 0) check_kuz_choice(info.name);
  }
  check_kuz_choice("nonsense");

  /* Before anything touches the dispatcher: ask for the portable level. If the
   * caller already forced a level (ctest runs the suite per level), check that one. */
  const char *forced = getenv("GOSTX_IMPL");
  if (!forced || !*forced) {
    /* The default choice is made once per process, so look at it in a child
     * before this process forces portable. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(strcmp(gostx_impl(GOSTX_ALG_MAGMA), expected_magma(NULL)) != 0);
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0,
          "default magma implementation is the best here (%s)", expected_magma(NULL));
    setenv("GOSTX_IMPL", "portable", 1);
    forced = "portable";
  }

  const struct gostx_dispatch *d = gostx__dispatch();
  CHECK(d->kuz && d->magma && d->streebog && d->mgm, "dispatch table filled");
  CHECK(!strcmp(gostx_impl(GOSTX_ALG_KUZNYECHIK), d->kuz->name), "kuznyechik name = running table");
  CHECK(!strcmp(gostx_impl(GOSTX_ALG_MAGMA), d->magma->name), "magma name = running table");
  CHECK(!strcmp(gostx_impl(GOSTX_ALG_STREEBOG), d->streebog->name), "streebog name = running table");
  CHECK(!strcmp(gostx_impl(GOSTX_ALG_MGM), d->mgm->name), "mgm name = running table");
  CHECK(!strcmp(gostx_alg_name(GOSTX_ALG_MGM), "mgm"), "mgm primitive name");
  /* The portable level exists for every primitive, so forcing it must take. */
  if (!strcmp(forced, "portable")) {
    CHECK(d->kuz == &gostx_kuz_portable, "kuznyechik runs portable");
    CHECK(d->magma == &gostx_magma_portable, "magma runs portable");
    CHECK(d->streebog == &gostx_streebog_portable, "streebog runs portable");
    CHECK(d->mgm == &gostx_mgm_portable, "mgm runs portable");
  }
  /* A forced level picks the best Magma at or below it. */
  CHECK(!strcmp(gostx_impl(GOSTX_ALG_MAGMA), expected_magma(forced)),
        "GOSTX_IMPL=%s: magma runs %s, want %s", forced, gostx_impl(GOSTX_ALG_MAGMA),
        expected_magma(forced));
  /* Every primitive runs what its rows say for this level. */
  CHECK(d->kuz == expected_impl(GOSTX_ALG_KUZNYECHIK, forced), "kuznyechik at %s: %s", forced, d->kuz->name);
  CHECK(d->magma == expected_impl(GOSTX_ALG_MAGMA, forced), "magma at %s: %s", forced, d->magma->name);
  CHECK(d->streebog == expected_impl(GOSTX_ALG_STREEBOG, forced), "streebog at %s: %s", forced,
        d->streebog->name);
  CHECK(d->mgm == expected_impl(GOSTX_ALG_MGM, forced), "mgm at %s: %s", forced, d->mgm->name);
  /* And the rows' own CPU tests agree with the flags, so a detection bug
   * cannot hide behind bit-exact results. */
  for (int a = 1; a < GOSTX_ALG_END; a++) {
    struct gostx__row_info info;
    for (size_t i = 0; gostx__impl_row_info(a, i, &info); i++) {
      if (!gostx__level_supported(info.level)) CHECK(!info.usable, "%s: above the CPU's levels", info.name);
#ifdef GOSTX_ARCH_X86_64
      const struct gostx_cpu *c = gostx__cpu();
      if (!strcmp(info.level, "avx512") && strcmp(info.name, "avx512") == 0)
        CHECK(info.usable == (gostx__level_supported("avx512") && c->avx512vbmi && c->gfni &&
                              c->vpclmul && c->pclmul),
              "%s avx512 row usable exactly with its features", gostx_alg_name((gostx_alg)a));
      if (!strcmp(info.name, "pclmul")) CHECK(info.usable == (c->pclmul && c->ssse3), "pclmul row");
#endif
#ifdef GOSTX_ARCH_AARCH64
      if (!strcmp(info.name, "pmull")) CHECK(info.usable == gostx__cpu()->pmull, "pmull row");
#endif
    }
  }
  CHECK(gostx__dispatch() == d, "choice is made once");
  CHECK(!strcmp(gostx_impl(12345), "unknown"), "unknown primitive");
  for (int p = 1; p < GOSTX_ALG_END; p++) {
    const char *name = gostx_alg_name((gostx_alg)p);
    CHECK(name != NULL, "alg %d named", p);
    CHECK(name && gostx_alg_by_name(name) == p, "alg %d: name and id agree", p);
    CHECK(strcmp(gostx_impl((gostx_alg)p), "unknown") != 0, "alg %d has an implementation", p);
  }
  CHECK(gostx_alg_name((gostx_alg)0) == NULL, "0 is no id");
  CHECK(gostx_alg_name(GOSTX_ALG_END) == NULL, "out of range alg");
  CHECK(gostx_alg_by_name("grasshopper") == GOSTX_ALG_KUZNYECHIK, "gost-engine's name");
  CHECK(gostx_alg_by_name("aes") == -1, "unknown name");
  /* The trap of 0.1: the cipher id named another primitive's implementation. */
  CHECK(!strcmp(gostx_impl(GOSTX_ALG_KUZNYECHIK), gostx__dispatch()->kuz->name),
        "gostx_impl(GOSTX_ALG_KUZNYECHIK) is Kuznyechik's");
  gostx_cipher c;
  static const uint8_t zero_key[GOSTX_KEY_LEN];
  CHECK(gostx_cipher_init(&c, GOSTX_ALG_STREEBOG, zero_key) == GOSTX_EINVAL, "streebog is no cipher");
  CHECK(gostx_cipher_init(&c, GOSTX_ALG_MGM, zero_key) == GOSTX_EINVAL, "mgm is no cipher");

  const char *features = gostx_cpu_features();
  CHECK(features && *features, "feature string");
#ifdef GOSTX_ARCH_X86_64
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
