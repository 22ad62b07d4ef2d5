"""SAXPY in FlyDSL: y = alpha * x + y over a 2-D tensor, one float4 per thread per copy.

File-mode entry for kernelpilot: ``kernelpilot_entry()`` returns the jit function and CPU tensors; kernelpilot
compiles it with COMPILE_ONLY=1 for the requested gfx target (no GPU needed). On a ROCm host, ``python saxpy.py``
runs it and checks the result.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch

THREADS_M, THREADS_N, VEC = 8, 16, 4


@flyc.kernel
def saxpy_kernel(X: fx.Tensor, Y: fx.Tensor, alpha: fx.Float32, tiler: fx.TiledCopy):
    tid = fx.thread_idx.x
    bm, bn = fx.block_idx.x, fx.block_idx.y
    tile = tiler.tile_mn
    x_tile = fx.flat_divide(X, tile)[None, None, bm, bn]
    y_tile = fx.flat_divide(Y, tile)[None, None, bm, bn]
    thread = tiler.get_slice(tid)
    x_src = thread.partition_S(x_tile)
    y_src = thread.partition_S(y_tile)
    y_dst = thread.partition_D(y_tile)
    x_reg = fx.make_fragment_like(x_src)
    y_reg = fx.make_fragment_like(y_src)
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    fx.copy(atom, x_src, x_reg)
    fx.copy(atom, y_src, y_reg)
    y_reg.store(x_reg.load() * alpha + y_reg.load())
    fx.copy(atom, y_reg, y_dst)


@flyc.jit
def saxpy(X: fx.Tensor, Y: fx.Tensor, alpha: fx.Float32, stream: fx.Stream = fx.Stream(None)):
    atom = fx.make_copy_atom(fx.UniversalCopy128b(), fx.Float32)
    tiler = fx.make_tiled_copy_tv(
        atom,
        fx.make_ordered_layout((THREADS_M, THREADS_N), order=(1, 0)),
        fx.make_ordered_layout((1, VEC), order=(0, 1)),
    )
    tm, tn = tiler.tile_mn.unpack()
    m, n = X.shape.unpack()
    saxpy_kernel(X, Y, alpha, tiler).launch(
        grid=(m // tm, n // tn, 1), block=(THREADS_M * THREADS_N, 1, 1), stream=stream
    )


def kernelpilot_entry():
    """kernelpilot file mode: what to compile (shapes are multiples of the 8 x 64 tile)."""
    x = torch.empty(256, 512, dtype=torch.float32)
    y = torch.empty(256, 512, dtype=torch.float32)
    return saxpy, (x, y, 2.0)


if __name__ == "__main__":
    x = torch.randn(256, 512, device="cuda")
    y = torch.randn(256, 512, device="cuda")
    expected = 2.0 * x + y
    saxpy(x, y, 2.0)
    torch.cuda.synchronize()
    print("PASS" if torch.allclose(y, expected) else "FAIL")
