// Baseline: each thread walks its row in float4 steps and reduces it; the load is consumed in the iteration that
// issues it, so every iteration waits out the full global-memory latency (LDG -> scoreboard wait -> FFMA).
#include <cuda_runtime.h>

__global__ void row_dot_baseline(const float4* __restrict__ x, const float4* __restrict__ w, float* out, int steps,
                                 int stride) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.f;
#pragma unroll 1
    for (int i = 0; i < steps; ++i) {
        float4 a = x[i * stride + t];  // issued here ...
        float4 b = w[i * stride + t];
        acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;  // ... and waited for here, same iteration
    }
    out[t] = acc;
}
