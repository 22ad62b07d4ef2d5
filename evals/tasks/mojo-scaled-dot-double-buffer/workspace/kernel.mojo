# Scaled dot products for MI300X/MI355X: lane l of the block computes out[l] = sum_t dot(x[t, l, :], w[t, l, :]) * s[t]
# over t < n_steps, with 8 fp16 values per lane per step (one 16-byte load each from x and w) and a per-step fp32
# scale. Each iteration loads its vectors and its scale and uses them at once.
#
# kernelpilot: kernel scaled_dot
from max.gpu import thread_idx, block_idx

comptime WIDTH = 8
comptime LANES = 256


def scaled_dot(
    x: Pointer[Float16, MutAnyOrigin],
    w: Pointer[Float16, MutAnyOrigin],
    s: Pointer[Float32, MutAnyOrigin],
    res: Pointer[Float32, MutAnyOrigin],
    n_steps: Int32,
):
    var lane = Int(block_idx.x) * LANES + Int(thread_idx.x)
    var acc = Float32(0)
    for t in range(Int(n_steps)):
        var xv = x.load[width=WIDTH]((t * LANES * 1024 + lane) * WIDTH)
        var wv = w.load[width=WIDTH]((t * LANES * 1024 + lane) * WIDTH)
        var sc = s.load(t)
        acc += (xv.cast[DType.float32]() * wv.cast[DType.float32]()).reduce_add() * sc
    res.store(lane, acc)
