// 256-bin histogram of a byte array: hist[v] = number of bytes equal to v. hist arrives zeroed.
// One thread per byte, each incrementing its bin in global memory with an atomic.
#include <cuda_runtime.h>

__global__ void histogram_kernel(const unsigned char* __restrict__ data, int* __restrict__ hist, long n) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[data[i]], 1);
}

// The launcher the scorer calls; it must launch on `stream`. hist holds 256 zeroed ints.
extern "C" int launch_histogram(const unsigned char* data, int* hist, long n, cudaStream_t stream) {
    if (n == 0) return 0;
    int threads = 256;
    long blocks = (n + threads - 1) / threads;
    histogram_kernel<<<(unsigned)blocks, threads, 0, stream>>>(data, hist, n);
    return (int)cudaGetLastError();
}
