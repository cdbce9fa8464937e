/* Constant-time check markers (tests/ct, docs/QUALITY.md).
 *
 * CT_SECRET(p, len) tells valgrind memcheck that the bytes are undefined:
 * from then on every conditional branch and every memory address computed
 * from them (or from anything derived from them) is a memcheck error, i.e.
 * a secret-dependent branch or table index. CT_PUBLIC(p, len) declares bytes
 * defined again: used only on values that are public by design (ciphertext,
 * tags, the accept/reject result of a tag or padding check).
 *
 * Compiled in only with -DGOSTX_CT_CHECK (cmake -DGOSTX_CT_CHECK=ON); the
 * library itself never contains these requests. Outside valgrind the client
 * requests are a few no-op instructions, so the checker also runs natively. */
#ifndef GOSTX_CT_H
#define GOSTX_CT_H

#ifdef GOSTX_CT_CHECK
#include <valgrind/memcheck.h>
#define CT_SECRET(p, len) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (len)))
#define CT_PUBLIC(p, len) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (len)))
/* Copies the marking of len bytes (one bit per bit, 1 = secret) into vbits;
 * 0 when not running under valgrind. */
#define CT_MARKING(p, vbits, len) VALGRIND_GET_VBITS((p), (vbits), (len))
#else
#define CT_SECRET(p, len) ((void)(p), (void)(len))
#define CT_PUBLIC(p, len) ((void)(p), (void)(len))
#define CT_MARKING(p, vbits, len) ((void)(p), (void)(vbits), (void)(len), 0)
#endif

#endif
