// fp16 matrix-vector product y = A x with fp32 accumulation: A is (M, K) row-major fp16, x is (K,) fp16,
// y is (M,) fp32. One thread per row walks its row from left to right.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void gemv_kernel(const __half* __restrict__ A, const __half* __restrict__ x, float* __restrict__ y,
                            int M, int K) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M) return;
    const __half* a = A + (long)row * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(a[k]) * __half2float(x[k]);
    y[row] = acc;
}

// The launcher the scorer calls; it must launch on `stream`.
extern "C" int launch_gemv(const __half* A, const __half* x, float* y, int M, int K, cudaStream_t stream) {
    int threads = 128;
    gemv_kernel<<<(M + threads - 1) / threads, threads, 0, stream>>>(A, x, y, M, K);
    return (int)cudaGetLastError();
}
