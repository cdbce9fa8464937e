/* gostx: the optional CUDA backend (cmake -DGOSTX_CUDA=ON). Part of the
 * public API of CUDA builds only: gostx.h includes this header when
 * GOSTX_CUDA is defined (the CMake target defines it for its users), and a
 * default build has none of these symbols.
 *
 * A CUDA build needs no CUDA library at link or load time: the kernels are
 * embedded as a fatbin and the driver (libcuda.so.1) is opened with dlopen
 * by gostx_gpu_open. Without a driver or a GPU, gostx_gpu_open returns
 * GOSTX_EUNSUP and gostx_gpu_error() says why; everything else in the
 * library works as in a default build.
 *
 * Results are byte-for-byte those of the CPU calls named beside each
 * function. A handle is used by one thread at a time (open one per thread).
 * Host-buffer calls split the job into chunks, stage them through pinned
 * buffers and run copy-in, kernel and copy-out of successive chunks on
 * several CUDA streams at once; in and out may be equal. */
#ifndef GOSTX_GPU_H
#define GOSTX_GPU_H

#include "bulk.h"
#include "cipher.h"
#include "gost89.h"
#include "xts.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gostx_gpu gostx_gpu;
/* A device address (CUdeviceptr), for the calls on data already on the GPU. */
typedef uint64_t gostx_gpu_ptr;

/* Opens device number `device` (0 = the first). GOSTX_EUNSUP when there is
 * no CUDA driver, no such device, or the kernels cannot be loaded for it;
 * GOSTX_ENOMEM when buffers cannot be had. *g is NULL on failure. */
GOSTX_API int gostx_gpu_open(gostx_gpu **g, int device);
GOSTX_API void gostx_gpu_close(gostx_gpu *g);
/* The reason for the last failure in this thread (never NULL), e.g.
 * "no CUDA driver: libcuda.so.1: cannot open shared object file". */
GOSTX_API const char *gostx_gpu_error(void);
/* Device name, e.g. "NVIDIA H100 80GB HBM3" (valid until close). */
GOSTX_API const char *gostx_gpu_name(const gostx_gpu *g);
/* Chunk size of the host-buffer calls (bytes per stream, default 8 MiB;
 * rounded to a multiple of 16 KiB; 0 = default). Frees and re-allocates
 * the staging buffers; GOSTX_ENOMEM on failure (the handle stays usable
 * with the old size). */
GOSTX_API int gostx_gpu_set_chunk(gostx_gpu *g, size_t chunk_bytes);

/* Threads that copy unregistered host buffers into and out of the pinned
 * staging buffers (0 = the default: min(8, online CPUs); 1 = the calling
 * thread alone). The copies, not PCIe, bound host-buffer calls on
 * unregistered memory. */
GOSTX_API int gostx_gpu_set_copy_threads(gostx_gpu *g, unsigned n);
/* Pins [p, p + len) (cuMemHostRegister) for this handle until unregistered
 * or closed: host-buffer calls whose in or out lies inside a registered
 * range move that side by DMA straight from or to it, skipping the staging
 * copies (end to end at PCIe speed). Pinning takes time and locks memory:
 * register long-lived buffers once, not per call. At most 16 ranges;
 * GOSTX_ENOMEM when the driver refuses (e.g. RLIMIT_MEMLOCK, a range
 * already registered). */
GOSTX_API int gostx_gpu_host_register(gostx_gpu *g, void *p, size_t len);
GOSTX_API int gostx_gpu_host_unregister(gostx_gpu *g, void *p);

/* ---- host buffers ---- */
/* gostx_ctr_crypt(c, iv, iv_len, s = n, in, len, out): iv_len = n/2. */
GOSTX_API int gostx_gpu_ctr_crypt(gostx_gpu *g, const gostx_cipher *c, const uint8_t *iv,
                                  size_t iv_len, const uint8_t *in, size_t len, uint8_t *out);
/* gostx_ecb_encrypt / gostx_ecb_decrypt: len a multiple of n. */
GOSTX_API int gostx_gpu_ecb_encrypt(gostx_gpu *g, const gostx_cipher *c, const uint8_t *in,
                                    size_t len, uint8_t *out);
GOSTX_API int gostx_gpu_ecb_decrypt(gostx_gpu *g, const gostx_cipher *c, const uint8_t *in,
                                    size_t len, uint8_t *out);
/* Kuznyechik-XTS over consecutive sectors: sector i of the buffer (bytes
 * [i sector_len, (i + 1) sector_len)) is gostx_xts_encrypt_sector(x,
 * sector0 + i, ...). sector_len a positive multiple of 16 (no ciphertext
 * stealing here), len a multiple of sector_len. */
GOSTX_API int gostx_gpu_xts_encrypt(gostx_gpu *g, const gostx_xts_key *x, uint64_t sector0,
                                    size_t sector_len, const uint8_t *in, size_t len, uint8_t *out);
GOSTX_API int gostx_gpu_xts_decrypt(gostx_gpu *g, const gostx_xts_key *x, uint64_t sector0,
                                    size_t sector_len, const uint8_t *in, size_t len, uint8_t *out);
/* gostx_gost89_cnt(key, sbox, iv, meshing = 0, in, out, len) with the key
 * already expanded (gostx_gost89_set_key). Key meshing is sequential by
 * nature and is not offered here. */
GOSTX_API int gostx_gpu_gost89_cnt(gostx_gpu *g, const gostx_gost89_key *k, const uint8_t iv[8],
                                   const uint8_t *in, size_t len, uint8_t *out);

/* ---- many streams, each with its own key and IV ----
 * The GPU form of the CTR stream batch (gostx_batch_streams, GOSTX_BATCH_CTR,
 * batch.h) for streams of one length: nsectors streams of
 * sector_len bytes back to back in in and out; stream i equals
 * gostx_ctr_crypt(keys[i], ivs + i * iv_len, iv_len = n/2, s = n, ...) (nkeys =
 * nsectors), or with keys[0] for all (nkeys = 1). All keys Kuznyechik or all
 * Magma; sector_len a positive multiple of the block length (no partial
 * blocks here). Kuznyechik runs 32 streams per thread, a key per lane (the
 * article's "a stream per lane", bitsliced). The keys and IVs are uploaded
 * per call and wiped on the device and in the pinned buffer afterwards. */
GOSTX_API int gostx_gpu_batch_ctr_crypt(gostx_gpu *g, const gostx_cipher *const *keys,
                                        size_t nkeys, const uint8_t *ivs, size_t iv_len,
                                        const uint8_t *in, size_t sector_len, size_t nsectors,
                                        uint8_t *out);
/* GOST 28147-89 CNT per stream: stream i equals gostx_gost89_cnt with
 * keys[i] (expanded), IV ivs + 8 i, no key meshing. All keys must use the
 * same S-box set; sector_len a positive multiple of 8. */
GOSTX_API int gostx_gpu_batch_gost89_cnt(gostx_gpu *g, const gostx_gost89_key *const *keys,
                                         size_t nkeys, const uint8_t *ivs, const uint8_t *in,
                                         size_t sector_len, size_t nsectors, uint8_t *out);

/* ---- GPU and CPU together ----
 * gostx_ctr_crypt(c, iv, n/2, s = n, ...) over one buffer, the first
 * gpu_share of its blocks on the GPU (driven by a thread of its own) and the
 * rest on the pool at the same time (pool NULL: the calling thread). Choose
 * gpu_share = GPU rate / (GPU rate + CPU rate), both measured on this
 * machine (`gostx bench --gpu` prints the split it measured). */
GOSTX_API int gostx_gpu_ctr_crypt_split(gostx_gpu *g, gostx_pool *pool, double gpu_share,
                                        const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                                        const uint8_t *in, size_t len, uint8_t *out);

/* ---- data already in device memory ----
 * Same operations on device buffers (4-byte aligned addresses), on the
 * handle's first stream; they return when the work is done. in may equal
 * out. gostx_gpu_alloc'ed buffers are 256-byte aligned. */
GOSTX_API int gostx_gpu_alloc(gostx_gpu *g, gostx_gpu_ptr *p, size_t len);
GOSTX_API void gostx_gpu_free(gostx_gpu *g, gostx_gpu_ptr p);
GOSTX_API int gostx_gpu_upload(gostx_gpu *g, gostx_gpu_ptr dst, const void *src, size_t len);
GOSTX_API int gostx_gpu_download(gostx_gpu *g, void *dst, gostx_gpu_ptr src, size_t len);
GOSTX_API int gostx_gpu_ctr_crypt_dev(gostx_gpu *g, const gostx_cipher *c, const uint8_t *iv,
                                      size_t iv_len, gostx_gpu_ptr in, size_t len,
                                      gostx_gpu_ptr out);
GOSTX_API int gostx_gpu_ecb_encrypt_dev(gostx_gpu *g, const gostx_cipher *c, gostx_gpu_ptr in,
                                        size_t len, gostx_gpu_ptr out);
GOSTX_API int gostx_gpu_ecb_decrypt_dev(gostx_gpu *g, const gostx_cipher *c, gostx_gpu_ptr in,
                                        size_t len, gostx_gpu_ptr out);
/* XTS on device data uses len + 16 * (len / sector_len) bytes of device
 * scratch, which the handle allocates as needed and keeps until close. */
GOSTX_API int gostx_gpu_xts_encrypt_dev(gostx_gpu *g, const gostx_xts_key *x, uint64_t sector0,
                                        size_t sector_len, gostx_gpu_ptr in, size_t len,
                                        gostx_gpu_ptr out);
GOSTX_API int gostx_gpu_xts_decrypt_dev(gostx_gpu *g, const gostx_xts_key *x, uint64_t sector0,
                                        size_t sector_len, gostx_gpu_ptr in, size_t len,
                                        gostx_gpu_ptr out);
GOSTX_API int gostx_gpu_gost89_cnt_dev(gostx_gpu *g, const gostx_gost89_key *k,
                                       const uint8_t iv[8], gostx_gpu_ptr in, size_t len,
                                       gostx_gpu_ptr out);

GOSTX_API int gostx_gpu_batch_ctr_crypt_dev(gostx_gpu *g, const gostx_cipher *const *keys,
                                            size_t nkeys, const uint8_t *ivs, size_t iv_len,
                                            gostx_gpu_ptr in, size_t sector_len, size_t nsectors,
                                            gostx_gpu_ptr out);
GOSTX_API int gostx_gpu_batch_gost89_cnt_dev(gostx_gpu *g, const gostx_gost89_key *const *keys,
                                             size_t nkeys, const uint8_t *ivs, gostx_gpu_ptr in,
                                             size_t sector_len, size_t nsectors, gostx_gpu_ptr out);

/* ---- for benchmarks ---- */
/* Seconds the GPU spent on the kernels of the last call on this handle
 * (CUDA events around the launches; 0 if none ran). */
GOSTX_API double gostx_gpu_last_kernel_seconds(const gostx_gpu *g);
/* Timed pinned copies of len bytes: host-to-device, device-to-host, and
 * both at once on two streams; seconds each (wall time of the GPU events). */
GOSTX_API int gostx_gpu_copy_bench(gostx_gpu *g, size_t len, double *h2d_s, double *d2h_s,
                                   double *both_s);

#ifdef __cplusplus
}
#endif
#endif
