# Row sums of squares for MI300X/MI355X: lane l computes res[l] = sum over t < n_steps of sum(x[t, l, :]^2) with 128
# fp16 values per lane per step, accumulated in fp32. The accumulator is a 128-wide SIMD vector, reduced at the end.
#
# kernelpilot: kernel sum_squares
from max.gpu import thread_idx, block_idx

comptime WIDTH = 128
comptime LANES = 256


def sum_squares(
    x: Pointer[Float16, MutAnyOrigin],
    res: Pointer[Float32, MutAnyOrigin],
    n_steps: Int32,
    n_lanes: Int32,
):
    var lane = Int(block_idx.x) * LANES + Int(thread_idx.x)
    var acc = SIMD[DType.float32, WIDTH](0)
    for t in range(Int(n_steps)):
        var v = x.load[width=WIDTH]((t * Int(n_lanes) + lane) * WIDTH).cast[DType.float32]()
        acc += v * v
    res.store(lane, acc.reduce_add())
