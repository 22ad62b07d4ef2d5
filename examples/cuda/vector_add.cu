// Grid-stride vector add with float4 loads; compiled by kernelpilot's cuda frontend (nvcc).
// kernelpilot: -DVEC_ADD_UNROLL=2

#ifndef VEC_ADD_UNROLL
#define VEC_ADD_UNROLL 1
#endif

extern "C" __global__ void vector_add(const float4* __restrict__ x, const float4* __restrict__ y,
                                      float4* __restrict__ out, int n4) {
    int stride = gridDim.x * blockDim.x;
#pragma unroll VEC_ADD_UNROLL
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 a = x[i];
        float4 b = y[i];
        out[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
}
