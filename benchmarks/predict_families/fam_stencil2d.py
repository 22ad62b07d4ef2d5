"""A 2-D five-point stencil (one Jacobi step) over a batch of images, y = c0 * x + c1 * (the four neighbours), zero
outside the image: a program per (BH x BW tile, image), the five shifted tiles loaded with masks (the overlap served
by the caches). A fresh-corpus-only family (issue 31)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randn, spec

FAMILY = "stencil2d"
PROBLEMS = {}
C0, C1 = 0.5, 0.125
FRESH_PROBLEMS = {
    "f32_1x8192x8192": {"B": 1, "H": 8192, "W": 8192, "dtype": torch.float32},
    "f16_16x1000x1000": {"B": 16, "H": 1000, "W": 1000, "dtype": torch.float16},
    "f32_64x257x257": {"B": 64, "H": 257, "W": 257, "dtype": torch.float32},
    "f16_4x4096x1536": {"B": 4, "H": 4096, "W": 1536, "dtype": torch.float16},
}
TILES = ((8, 128, 4), (16, 64, 4), (32, 32, 4), (4, 256, 8), (32, 128, 8))  # BH, BW, warps


def fresh_designs(p):
    return {f"h{bh}w{bw}nw{warps}": {"BH": bh, "BW": bw, "warps": warps} for bh, bw, warps in TILES}


def shrink(p):
    return dict(p, B=2, H=37, W=min(p["W"], 300))


@triton.jit
def _at(x_ptr, img, r, c, H, W):
    m = (r[:, None] >= 0) & (r[:, None] < H) & (c[None, :] >= 0) & (c[None, :] < W)
    return tl.load(x_ptr + img + r[:, None] * W + c[None, :], mask=m, other=0.0).to(tl.float32)


@triton.jit
def stencil5_kernel(x_ptr, y_ptr, H, W, c0, c1, BH: tl.constexpr, BW: tl.constexpr):
    r = tl.program_id(0) * BH + tl.arange(0, BH)
    c = tl.program_id(1) * BW + tl.arange(0, BW)
    img = tl.program_id(2).to(tl.int64) * H * W
    centre = _at(x_ptr, img, r, c, H, W)
    around = _at(x_ptr, img, r - 1, c, H, W) + _at(x_ptr, img, r + 1, c, H, W)
    around += _at(x_ptr, img, r, c - 1, H, W) + _at(x_ptr, img, r, c + 1, H, W)
    m = (r[:, None] < H) & (c[None, :] < W)
    tl.store(y_ptr + img + r[:, None] * W + c[None, :], (c0 * centre + c1 * around).to(y_ptr.dtype.element_ty), mask=m)


def build(p, d, device):
    B, H, W, dt = p["B"], p["H"], p["W"], p["dtype"]
    x = randn((B, H, W), dt, device, seed=171)
    y = empty((B, H, W), dt, device)
    grid = (cdiv(H, d["BH"]), cdiv(W, d["BW"]), B)
    s = spec(stencil5_kernel, grid, x, y, H, W, C0, C1, BH=d["BH"], BW=d["BW"], num_warps=d["warps"])

    def ref():
        xp = torch.nn.functional.pad(x.float(), (1, 1, 1, 1))
        around = xp[:, :-2, 1:-1] + xp[:, 2:, 1:-1] + xp[:, 1:-1, :-2] + xp[:, 1:-1, 2:]
        return [C0 * x.float() + C1 * around]

    return Built([s], [y], ref, 1e-5 if dt == torch.float32 else 2e-2, f"{B}x {H}x{W} {dt}")


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "f32_2x6000x6000": {"B": 2, "H": 6000, "W": 6000, "dtype": torch.float32},
    "f16_256x130x130": {"B": 256, "H": 130, "W": 130, "dtype": torch.float16},
    "f32_8x2049x3073": {"B": 8, "H": 2049, "W": 3073, "dtype": torch.float32},
}
