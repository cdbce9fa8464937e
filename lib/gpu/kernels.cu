/* gostx CUDA kernels: the list in kernels.inc, each a thin wrapper that
 * derives the thread's global index and runs the per-thread code of
 * gpu_block.h (the code that tests/test_gpu_block.c checks on the host).
 * Compiled by nvcc into a fatbin (sm_80, sm_90 and compute_90 PTX by
 * default) that the library embeds and gpu_device.c loads through the driver API.
 * Parameters are passed by value: they live in the constant bank and are
 * read at thread-uniform addresses. 128 threads per block for Kuznyechik
 * (about 170 registers a thread, no spills on sm_90), 256 for Magma. */
#include <stdint.h>
#include "gpu_block.h"
#include "gpu_kparams.h"

#define GOSTX_KERNEL(name, bound, n, params, body)                      \
  extern "C" __global__ void __launch_bounds__(bound)                   \
  name(GOSTX_KP_DECL(n, params)) {                                      \
    const uint64_t TID = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; \
    body                                                                \
  }
#include "kernels.inc"
