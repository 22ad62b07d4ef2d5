"""Depthwise 3x3 convolution, channels-last (NHWC), stride 1, zero padding 1: one program per (row n*H + h,
BW output columns, BC channels), the nine taps unrolled."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, npow2, randn, spec

FAMILY = "dwconv"
PROBLEMS = {
    "n16_56x56_c256_f32": {"N": 16, "H": 56, "W": 56, "C": 256, "dtype": torch.float32},
    "n8_112x112_c64_f16": {"N": 8, "H": 112, "W": 112, "C": 64, "dtype": torch.float16},
    "n32_28x28_c512_bf16": {"N": 32, "H": 28, "W": 28, "C": 512, "dtype": torch.bfloat16},
}
SMALL = {
    "n16_56x56_c256_f32": {"N": 1, "H": 5, "W": 9, "C": 256, "dtype": torch.float32},
    "n8_112x112_c64_f16": {"N": 2, "H": 3, "W": 17, "C": 64, "dtype": torch.float16},
}


def designs(p):
    out = {}
    for bw in (4, 8, 16, 32):
        for bc in (32, 64, 128):
            if bc > p["C"] or bw * bc < 256 or bw * bc > 4096:
                continue
            for warps in (4,):
                out[f"w{bw}c{bc}nw{warps}"] = {"BW": bw, "BC": bc, "warps": warps}
    return out


@triton.jit
def dwconv3x3_kernel(x_ptr, w_ptr, y_ptr, H, W, C, BW: tl.constexpr, BC: tl.constexpr):
    nh = tl.program_id(0)
    h = nh % H
    n = nh // H
    ow = tl.program_id(1) * BW + tl.arange(0, BW)
    oc = tl.program_id(2) * BC + tl.arange(0, BC)
    cmask = oc < C
    acc = tl.zeros((BW, BC), tl.float32)
    for kh in tl.static_range(3):
        ih = h + kh - 1 + tl.zeros((BW, 1), tl.int32)  # a tensor: the row test broadcasts into the mask
        for kw in tl.static_range(3):
            iw = ow + kw - 1
            m = (iw[:, None] >= 0) & (iw[:, None] < W) & cmask[None, :] & (ih >= 0) & (ih < H)
            offs = ((n * H + ih) * W + iw[:, None]).to(tl.int64) * C + oc[None, :]  # [BW, BC]
            x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + (kh * 3 + kw) * C + oc, mask=cmask, other=0.0).to(tl.float32)
            acc += x * w[None, :]
    om = (ow[:, None] < W) & cmask[None, :]
    tl.store(y_ptr + ((n * H + h) * W + ow[:, None]).to(tl.int64) * C + oc[None, :], acc.to(y_ptr.dtype.element_ty),
             mask=om)  # fmt: skip


def build(p, d, device):
    N, H, W, C, dt = p["N"], p["H"], p["W"], p["C"], p["dtype"]
    x = randn((N, H, W, C), dt, device, seed=90)
    w = randn((3, 3, C), dt, device, seed=91)
    y = empty((N, H, W, C), dt, device)
    grid = (N * H, cdiv(W, d["BW"]), cdiv(C, d["BC"]))
    s = spec(dwconv3x3_kernel, grid, x, w, y, H, W, C, BW=d["BW"], BC=d["BC"], num_warps=d["warps"])

    def ref():
        xn = x.float().permute(0, 3, 1, 2)
        wn = w.float().permute(2, 0, 1)[:, None]
        return [torch.nn.functional.conv2d(xn, wn, padding=1, groups=C).permute(0, 2, 3, 1)]

    return Built([s], [y], ref, 1e-4 if dt == torch.float32 else 2e-2, f"N={N} {H}x{W} C={C} {dt} NHWC")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "n8_64x64_c384_f16": {"N": 8, "H": 64, "W": 64, "C": 384, "dtype": torch.float16},
    "n16_14x14_c1024_f32": {"N": 16, "H": 14, "W": 14, "C": 1024, "dtype": torch.float32},
    "n2_200x200_c96_bf16": {"N": 2, "H": 200, "W": 200, "C": 96, "dtype": torch.bfloat16},
}


def hold_designs(p):
    out = {}
    for bw, bc, warps in ((8, 64, 4), (16, 64, 8), (32, 32, 4), (64, 32, 4), (16, 128, 8), (8, 256, 8), (4, 128, 2)):
        if bc <= npow2(p["C"]):
            out[f"w{bw}c{bc}nw{warps}"] = {"BW": bw, "BC": bc, "warps": warps}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "n4_100x100_c200_f16": {"N": 4, "H": 100, "W": 100, "C": 200, "dtype": torch.float16},
    "n32_7x7_c2048_f32": {"N": 32, "H": 7, "W": 7, "C": 2048, "dtype": torch.float32},
    "n1_320x320_c48_bf16": {"N": 1, "H": 320, "W": 320, "C": 48, "dtype": torch.bfloat16},
}


def fresh_designs(p):
    out = {}
    for bw, bc, warps in ((2, 256, 4), (16, 32, 2), (32, 64, 8), (4, 64, 2)):
        if bc <= npow2(p["C"]):
            out[f"w{bw}c{bc}nw{warps}"] = {"BW": bw, "BC": bc, "warps": warps}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "n1_512x512_c32_f16": {"N": 1, "H": 512, "W": 512, "C": 32, "dtype": torch.float16},
    "n64_14x14_c960_f32": {"N": 64, "H": 14, "W": 14, "C": 960, "dtype": torch.float32},
}
