// Grid-stride vector add with float4 loads; compiled by kernelpilot's cuda frontend (nvcc).
// kernelpilot: -Xptxas -O3

extern "C" __global__ void vector_add(const float4* __restrict__ x, const float4* __restrict__ y,
                                      float4* __restrict__ out, int n4) {
    int stride = gridDim.x * blockDim.x;
#pragma unroll 2
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 a = x[i];
        float4 b = y[i];
        out[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
}
