# A K-loop of global loads feeding a matrix-core instruction, as written naively: each iteration loads its A and B
# fragments and uses them at once, so every MFMA (AMD) / mma.sync (NVIDIA) waits for a full global-load latency.
# mfma_loop_prefetched.mojo is the same loop with the loads for iteration t+1 issued before the compute of t.
#
# One source for both vendors: max.gpu.compute.mma.mma picks v_mfma_f32_16x16x16_f16 on gfx942/gfx950
# (A and B: 4 halves per lane) and mma.sync.m16n8k8 on sm_90 (A: 4 halves, B: 2 halves per thread).
#
# kernelpilot: kernel mfma_loop
from max.gpu import thread_idx
from max.gpu.compute.mma import mma
from std.sys.info import is_nvidia_gpu

comptime A_WIDTH = 4
comptime B_WIDTH = 2 if is_nvidia_gpu() else 4
comptime LANES = 64


def mfma_loop(
    a: Pointer[Float16, MutAnyOrigin],
    b: Pointer[Float16, MutAnyOrigin],
    c: Pointer[Float32, MutAnyOrigin],
    k_tiles: Int32,
):
    var lane = Int(thread_idx.x)
    var acc = SIMD[DType.float32, 4](0)
    for t in range(Int(k_tiles)):
        var a_frag = a.load[width=A_WIDTH]((t * LANES + lane) * A_WIDTH)
        var b_frag = b.load[width=B_WIDTH]((t * LANES + lane) * B_WIDTH)
        mma(acc, a_frag, b_frag, acc)
    c.store(lane * 4, acc)
