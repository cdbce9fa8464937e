/* Error strings, version, and the two memory helpers every module uses. */
#include "internal.h"

const char *gostx_strerror(int err) {
  switch (err) {
    case GOSTX_OK: return "success";
    case GOSTX_EINVAL: return "invalid argument";
    case GOSTX_ELEN: return "invalid length";
    case GOSTX_EAUTH: return "authentication failed";
    case GOSTX_ENOMEM: return "out of memory";
    case GOSTX_ESTATE: return "call out of order";
    case GOSTX_EPAD: return "bad padding";
    case GOSTX_EUNSUP: return "not supported";
    case GOSTX_EIO: return "input/output error";
    case GOSTX_EFORMAT: return "malformed input";
    default: return "unknown error";
  }
}

const char *gostx_version(void) { return GOSTX_VERSION_STRING; }

static const char *const alg_names[GOSTX_ALG_END] = {
    [GOSTX_ALG_KUZNYECHIK] = "kuznyechik",
    [GOSTX_ALG_MAGMA] = "magma",
    [GOSTX_ALG_STREEBOG] = "streebog",
    [GOSTX_ALG_MGM] = "mgm",
    [GOSTX_ALG_GOST3410] = "gost3410",
};

const char *gostx_alg_name(gostx_alg alg) {
  return (int)alg > 0 && alg < GOSTX_ALG_END ? alg_names[alg] : NULL;
}

int gostx_alg_by_name(const char *name) {
  if (!name) return -1;
  if (!strcmp(name, "grasshopper")) return GOSTX_ALG_KUZNYECHIK; /* gost-engine's name */
  for (int a = 1; a < GOSTX_ALG_END; a++)
    if (!strcmp(name, alg_names[a])) return a;
  return -1;
}

/* A volatile function pointer keeps the compiler from dropping the wipe. */
static void *(*const volatile memset_v)(void *, int, size_t) = memset;

void gostx_memzero(void *p, size_t len) {
  if (p && len) memset_v(p, 0, len);
}

int gostx_memeq_ct(const void *a, const void *b, size_t len) {
  const volatile uint8_t *x = a, *y = b;
  uint8_t d = 0;
  for (size_t i = 0; i < len; i++) d |= (uint8_t)(x[i] ^ y[i]);
  /* (d - 1) >> 8 is 1 when d == 0, without a branch on d. */
  return (int)((((unsigned)d - 1u) >> 8) & 1u) - 1;
}

/* The verdict of a check on secret data (an AEAD tag, padding): GOSTX_OK,
 * GOSTX_EAUTH or GOSTX_EFORMAT, returned as a constant that what follows may
 * branch on. It is public by design (a packet or record is delivered or
 * dropped, and the caller learns which): ESP open and TLS record open
 * branch on values computed from secrets only through here, so the
 * constant-time gate names this function alone (tests/ct/declassified.supp).
 * Not inlined; the constants are read from volatile memory, since the
 * compiler would otherwise return rc itself in each arm (equal there), still
 * marked secret, and move the branches into every caller. */
__attribute__((noinline)) int gostx__verdict(int rc) {
  static const volatile int verdicts[3] = {GOSTX_OK, GOSTX_EAUTH, GOSTX_EFORMAT};
  /* A memory access before the first branch: AArch64 valgrind learns
   * where it is only at memory accesses, and a branch right after the call
   * (BL writes no memory) would be reported at the caller's call, not in
   * here. (The loads below stay in their arms: loaded up front, they would
   * let the compiler select among them without a branch.) */
  (void)verdicts[0];
  if (rc == GOSTX_OK) return verdicts[0];
  if (rc == GOSTX_EAUTH) return verdicts[1];
  if (rc == GOSTX_EFORMAT) return verdicts[2];
  return rc; /* argument errors: never computed from secrets */
}

int gostx__cbc_unpad8(const uint8_t *buf, size_t len, size_t *out_len) {
  if (!len || len % 8) return GOSTX_EFORMAT;
  /* 1..8 bytes of its own length, checked with masks over the last block
   * whatever its value (a private key may be what it pads). */
  uint32_t pad = buf[len - 1], bad = ((pad - 1) | (8 - pad)) >> 31;
  for (uint32_t i = 0; i < 8; i++) {
    uint32_t covered = 0u - ((i - pad) >> 31); /* all ones when i < pad */
    bad |= covered & (buf[len - 1 - i] ^ pad);
  }
  /* The verdict is public once decided: branched on only through
   * gostx__verdict, the gate's one door. */
  if (gostx__verdict((int)((bad | (0u - bad)) >> 31) * GOSTX_EAUTH)) return GOSTX_EAUTH;
  *out_len = len - pad;
  return 0;
}
