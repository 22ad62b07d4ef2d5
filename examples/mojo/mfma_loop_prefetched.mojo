# mfma_loop.mojo with software prefetch: the fragments for iteration t+1 are loaded before the MFMA (AMD) /
# mma.sync (NVIDIA) of iteration t, so the global-load latency overlaps the matrix-core work of the previous tile.
# The loop is rotated: tile 0 is loaded before the loop, the last tile is computed after it.
#
# kernelpilot: kernel mfma_loop_prefetched
from max.gpu import thread_idx
from max.gpu.compute.mma import mma
from std.sys.info import is_nvidia_gpu

comptime A_WIDTH = 4
comptime B_WIDTH = 2 if is_nvidia_gpu() else 4
comptime LANES = 64


def mfma_loop_prefetched(
    a: Pointer[Float16, MutAnyOrigin],
    b: Pointer[Float16, MutAnyOrigin],
    c: Pointer[Float32, MutAnyOrigin],
    k_tiles: Int32,
):
    var lane = Int(thread_idx.x)
    var acc = SIMD[DType.float32, 4](0)
    if k_tiles < 1:
        c.store(lane * 4, acc)
        return
    var a_frag = a.load[width=A_WIDTH](lane * A_WIDTH)
    var b_frag = b.load[width=B_WIDTH](lane * B_WIDTH)
    for t in range(Int(k_tiles) - 1):
        var a_next = a.load[width=A_WIDTH](((t + 1) * LANES + lane) * A_WIDTH)
        var b_next = b.load[width=B_WIDTH](((t + 1) * LANES + lane) * B_WIDTH)
        mma(acc, a_frag, b_frag, acc)
        a_frag = a_next
        b_frag = b_next
    mma(acc, a_frag, b_frag, acc)
    c.store(lane * 4, acc)
