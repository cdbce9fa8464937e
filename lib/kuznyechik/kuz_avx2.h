/* The AVX2 code (lib/kuznyechik/kuz_avx2.c) that the AVX-512 BW table
 * (kuz_avx512bw.c) runs for what it has no wider kernel for: named calls,
 * so no ISA file reads another's table. x86-64 only, AVX2 required.
 * Not installed. */
#ifndef GOSTX_KUZ_AVX2_H
#define GOSTX_KUZ_AVX2_H

#include "impl.h"

#ifdef GOSTX_ARCH_X86_64
/* The gostx_kuz_avx2 table's entries (impl.h documents each). */
void gostx__kuz_avx2_encrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n);
void gostx__kuz_avx2_decrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out, size_t n);
size_t gostx__kuz_avx2_mk_init(void *sched, const gostx_kuz_key *const *keys, size_t n,
                               unsigned dirs);
void gostx__kuz_avx2_mk_encrypt(const void *sched, const uint8_t *in, uint8_t *out);
void gostx__kuz_avx2_mk_decrypt(const void *sched, const uint8_t *in, uint8_t *out);
void gostx__kuz_avx2_ctr(const gostx_kuz_key *k, uint8_t ctr[16], unsigned inc, const uint8_t *in,
                         uint8_t *out, size_t n);
void gostx__kuz_avx2_xts(const gostx_kuz_key *const *keys, size_t nkeys, uint8_t *t,
                         const size_t *idx, const uint8_t *in, uint8_t *out, size_t stride,
                         size_t nb, size_t count, int decrypt);
size_t gostx__kuz_avx2_ctr_acpkm(gostx_kuz_key *k, uint8_t ctr[16], size_t sec, const uint8_t *in,
                                 uint8_t *out, size_t nsec);
void gostx__kuz_avx2_chain(const gostx_kuz_key *k, int op, uint8_t s[16], const uint8_t *in,
                           uint8_t *out, size_t n);
/* L(S(x ^ k1)) with byte p of S's output dropped, on the AVX2 one-block
 * code (kuz_avx2.c; the counter kernels' round-1 constants). AVX2 only. */
void gostx__kuz_avx2_ls_drop(uint8_t a[16], const uint8_t x[16], const uint8_t k1[16], unsigned p);
/* CTR-ACPKM's key chain on the same code: ek becomes the next section key's
 * round keys (ACPKM, then the schedule; dk is not made), and dk = L^-1(ek). */
void gostx__kuz_avx2_acpkm_next(uint8_t ek[10][16]);
void gostx__kuz_avx2_dk(uint8_t dk[10][16], const uint8_t ek[10][16]);
#endif

#endif
