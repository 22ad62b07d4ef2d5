// Causal FIR filter along time for many channels: y[t, c] = sum_{j < TAPS} w[j] * x[t - j, c] (x before t = 0 is
// zero). x and y are (T, C) row-major fp32 (channels contiguous), w holds TAPS fp32 coefficients.
// One thread per channel walks time, keeping the last TAPS inputs in a ring buffer.
#include <cuda_runtime.h>

#define TAPS 32

__global__ void fir_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int T,
                           int C) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    float taps[TAPS];
#pragma unroll
    for (int j = 0; j < TAPS; ++j) taps[j] = w[j];
    float ring[TAPS];
#pragma unroll
    for (int j = 0; j < TAPS; ++j) ring[j] = 0.0f;
    for (int t = 0; t < T; ++t) {
        ring[t % TAPS] = x[(long)t * C + c];
        float acc = 0.0f;
#pragma unroll
        for (int j = 0; j < TAPS; ++j) acc += taps[j] * ring[(t - j + TAPS) % TAPS];
        y[(long)t * C + c] = acc;
    }
}

// The launcher the scorer calls; it must launch on `stream`.
extern "C" int launch_fir(const float* x, const float* w, float* y, int T, int C, cudaStream_t stream) {
    int threads = 128;
    fir_kernel<<<(C + threads - 1) / threads, threads, 0, stream>>>(x, w, y, T, C);
    return (int)cudaGetLastError();
}
