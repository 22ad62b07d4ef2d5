// Prefetched: the rolling shared-memory prefetch of NVIDIA's recipe with cp.async (LDGSTS). Two stages in shared
// memory: the prologue issues step 0; iteration i issues step i+1 into the other stage, commits it as a group
// (LDGDEPBAR) and waits only for the previous group (DEPBAR.LE SB0, 1), so step i+1's copy is in flight while step i
// is computed. A plain register "a = next" rotation is not enough here: ptxas copies the loaded registers at the end
// of the iteration, and those MOVs stall on the load in the same iteration (kernelpilot reports that as exposed).
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void row_dot_prefetched(const float4* __restrict__ x, const float4* __restrict__ w, float* out, int steps,
                                   int stride) {
    __shared__ float4 sx[2][kThreads];
    __shared__ float4 sw[2][kThreads];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x;  // each thread reads back only what it copied: no __syncthreads needed
    float acc = 0.f;
    __pipeline_memcpy_async(&sx[0][l], &x[t], sizeof(float4));  // prologue: step 0
    __pipeline_memcpy_async(&sw[0][l], &w[t], sizeof(float4));
    __pipeline_commit();
#pragma unroll 1
    for (int i = 0; i < steps; ++i) {
        int nxt = (i + 1) & 1;
        if (i + 1 < steps) {
            __pipeline_memcpy_async(&sx[nxt][l], &x[(i + 1) * stride + t], sizeof(float4));
            __pipeline_memcpy_async(&sw[nxt][l], &w[(i + 1) * stride + t], sizeof(float4));
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);  // step i landed; step i+1 stays in flight
        float4 a = sx[i & 1][l];
        float4 b = sw[i & 1][l];
        acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    }
    out[t] = acc;
}
