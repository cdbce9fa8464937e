/* The first step of TLS 1.3's content-type scan (lib/tls/record.c
 * inner_type): of a record's whole 64-byte blocks, the last one with a
 * non-zero byte, found in constant time (how much padding a record has is
 * the sender's secret). Every block is read, the same way, whatever the
 * values; the block is selected by masks, not by its address. One table
 * per ISA (pad_scan_*.c); lib/dispatch.c chooses. Not installed. */
#ifndef GOSTX_TLS_PAD_SCAN_H
#define GOSTX_TLS_PAD_SCAN_H

#include "internal.h"

struct gostx_tls_scan_impl {
  const char *name;
  /* Of the nb blocks at p: the offset of the last with a non-zero byte
   * (0 when none is), its bytes copied into sel (zeros when none is). */
  size_t (*last_block)(const uint8_t *p, size_t nb, uint64_t sel[8]);
};

extern const struct gostx_tls_scan_impl gostx_tls_scan_portable;
#ifdef GOSTX_ARCH_X86_64
extern const struct gostx_tls_scan_impl gostx_tls_scan_avx2;
#endif

/* 1 when v != 0, as a mask-ready bit the optimiser cannot branch on. */
static inline uint64_t gostx__nonzero64(uint64_t v) {
  uint64_t nz = (v | (0 - v)) >> 63;
#if defined(__GNUC__)
  __asm__("" : "+r"(nz));
#endif
  return nz;
}

#endif
