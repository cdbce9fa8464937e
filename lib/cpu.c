/* CPU feature detection. x86-64: CPUID plus XGETBV (the OS must save the
 * vector state too). AArch64: the kernel's hardware capability bits
 * (getauxval). Flags of other architectures stay 0. */
#include "internal.h"

#ifdef GOSTX_ARCH_X86_64
#include <cpuid.h>
#define GOSTX_X86 1
#endif

#ifdef GOSTX_ARCH_AARCH64
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_PMULL
#define HWCAP_PMULL (1 << 4)
#endif
#endif

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct gostx_cpu cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

#ifdef GOSTX_X86
static uint64_t xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}
#endif

static void describe(void);
static void detect_x86(void);

static void detect_aarch64(void) {
#ifdef GOSTX_ARCH_AARCH64
  unsigned long hw = getauxval(AT_HWCAP);
  cpu.neon = (hw & HWCAP_ASIMD) != 0;
  cpu.pmull = cpu.neon && (hw & HWCAP_PMULL) != 0;
#endif
}

/* GOSTX_CPU_VENDOR=intel|amd overrides the vendor, which only ever decides
 * between usable rows (dispatch.c's ROW_PREFER), never what may run: so the
 * tests and the constant-time gate reach the row either vendor's CPUs
 * choose on any host (valgrind's CPUID names an Intel model on AMD hosts
 * too). Any other value leaves the detected vendor. */
static void vendor_override(void) {
  const char *v = getenv("GOSTX_CPU_VENDOR");
  if (!v) return;
  if (!strcmp(v, "intel")) cpu.intel = 1;
  else if (!strcmp(v, "amd")) cpu.intel = 0;
}

static void detect(void) {
  detect_x86();
  detect_aarch64();
  vendor_override();
#ifdef GOSTX_EMULATE_AVX512
  /* The AVX-512 files run on SIMDe's plain-C intrinsics (lib/x86_avx512.h),
   * so every feature they need is "present" on any x86-64 with SSSE3 (the
   * byte permutes' models use PSHUFB: lib/x86_avx512_emu.c). */
  if (cpu.ssse3) {
    cpu.avx512f = cpu.avx512bw = cpu.avx512vl = cpu.avx512vbmi = cpu.avx512ifma = 1;
    cpu.gfni = cpu.vpclmul = cpu.pclmul = 1;
  }
#endif
  describe();
}

static void detect_x86(void) {
#ifdef GOSTX_X86
  unsigned a, b, c, d, max;
  if (!__get_cpuid(0, &max, &b, &c, &d)) return;
  cpu.intel = b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e; /* "GenuineIntel" */
  __cpuid(1, a, b, c, d);
  cpu.family = ((a >> 8) & 0xf) == 0xf ? 0xf + ((a >> 20) & 0xff) : (a >> 8) & 0xf;
  cpu.sse2 = (d >> 26) & 1;
  cpu.ssse3 = (c >> 9) & 1;
  cpu.sse41 = (c >> 19) & 1;
  cpu.pclmul = (c >> 1) & 1;
  int osxsave = (c >> 27) & 1, avx_hw = (c >> 28) & 1;
  uint64_t xcr0 = osxsave ? xgetbv0() : 0;
  int os_avx = (xcr0 & 0x6) == 0x6;      /* XMM and YMM state */
  int os_avx512 = (xcr0 & 0xe6) == 0xe6; /* plus opmask, ZMM_Hi256, Hi16_ZMM */
  cpu.avx = avx_hw && os_avx;
  if (max >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    cpu.avx2 = cpu.avx && ((b >> 5) & 1);
    cpu.bmi2 = (b >> 8) & 1;
    cpu.adx = (b >> 19) & 1;
    cpu.gfni = (c >> 8) & 1;
    cpu.vaes = cpu.avx && ((c >> 9) & 1);
    cpu.vpclmul = cpu.avx && ((c >> 10) & 1);
    cpu.avx512f = os_avx512 && ((b >> 16) & 1);
    cpu.avx512bw = cpu.avx512f && ((b >> 30) & 1);
    cpu.avx512vl = cpu.avx512f && ((b >> 31) & 1);
    cpu.avx512vbmi = cpu.avx512f && ((c >> 1) & 1);
    cpu.avx512ifma = cpu.avx512f && ((b >> 21) & 1);
  }
#endif
}

const struct gostx_cpu *gostx__cpu(void) {
  pthread_once(&cpu_once, detect);
  return &cpu;
}

/* The feature string is built with the flags, once; only flags gostx uses. */
static char text[192];

static void describe(void) {
  static const struct { const char *name; size_t off; } flags[] = {
    {"sse2", offsetof(struct gostx_cpu, sse2)},
    {"ssse3", offsetof(struct gostx_cpu, ssse3)},
    {"sse4.1", offsetof(struct gostx_cpu, sse41)},
    {"pclmul", offsetof(struct gostx_cpu, pclmul)},
    {"avx", offsetof(struct gostx_cpu, avx)},
    {"avx2", offsetof(struct gostx_cpu, avx2)},
    {"bmi2", offsetof(struct gostx_cpu, bmi2)},
    {"vaes", offsetof(struct gostx_cpu, vaes)},
    {"vpclmulqdq", offsetof(struct gostx_cpu, vpclmul)},
    {"gfni", offsetof(struct gostx_cpu, gfni)},
    {"avx512f", offsetof(struct gostx_cpu, avx512f)},
    {"avx512bw", offsetof(struct gostx_cpu, avx512bw)},
    {"avx512vl", offsetof(struct gostx_cpu, avx512vl)},
    {"avx512vbmi", offsetof(struct gostx_cpu, avx512vbmi)},
    {"avx512ifma", offsetof(struct gostx_cpu, avx512ifma)},
    {"neon", offsetof(struct gostx_cpu, neon)},
    {"pmull", offsetof(struct gostx_cpu, pmull)},
  };
  size_t used = 0;
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
    if (!*(const int *)((const char *)&cpu + flags[i].off)) continue;
    size_t l = strlen(flags[i].name);
    if (used + l + 2 > sizeof text) break;
    if (used) text[used++] = ' ';
    memcpy(text + used, flags[i].name, l);
    used += l;
  }
  text[used] = 0;
}

const char *gostx_cpu_features(void) {
  gostx__cpu();
  return text[0] ? text : "none";
}
