/* No-op CUDA runtime registration hooks for tests/gpu_mock/host_cuda_check.cu,
 * which nvcc compiles for the host only and links with -cudart none: nvcc
 * still emits fatbin registration calls at start-up, which have nothing to
 * register here (the program launches no kernel). */
void **__cudaRegisterFatBinary(void *fatbin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);

static void *dummy_handle;
void **__cudaRegisterFatBinary(void *fatbin) { (void)fatbin; return &dummy_handle; }
void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }
void __cudaUnregisterFatBinary(void **handle) { (void)handle; }
