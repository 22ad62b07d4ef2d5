// Out-of-place fp32 matrix transpose, out[c][r] = in[r][c], for a rows x cols row-major input.
// Naive: each thread reads one element (coalesced along a row) and writes it to a column of the output, so
// consecutive threads write addresses `rows` floats apart — every warp's store touches 32 different sectors.
#include <cuda_runtime.h>

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        out[(long)c * rows + r] = in[(long)r * cols + c];
    }
}

// The launcher the scorer calls; it must launch on `stream`.
extern "C" int launch_transpose(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 7) / 8);
    transpose_kernel<<<grid, block, 0, stream>>>(in, out, rows, cols);
    return (int)cudaGetLastError();
}
