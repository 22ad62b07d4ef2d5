"""RMSNorm backward: dx per row, and dw = sum over rows of dy * x_hat, reduced across programs either with
same-address atomics (every program adds its partial into one fp32 row) or in two phases (partials [G, N], then a
column-sum kernel)."""

import torch
import triton
import triton.language as tl
from gen_common import SMS, Built, cdiv, compile_only, empty, npow2, randn, spec

FAMILY = "rmsnorm_bwd"
PROBLEMS = {
    "bf16_16384x4096": {"M": 16384, "N": 4096, "dtype": torch.bfloat16},
    "f32_8192x1024": {"M": 8192, "N": 1024, "dtype": torch.float32},
    "f16_32768x2048": {"M": 32768, "N": 2048, "dtype": torch.float16},
}
EPS = 1e-6
SMALL = {"f32_8192x1024": {"M": 300, "N": 1024, "dtype": torch.float32}}


def designs(p):
    out = {}
    for g in (1, 2, 4):
        for warps in (4, 8):
            out[f"atomic_g{g}w{warps}"] = {"kind": "atomic", "G": SMS * g, "warps": warps}
            out[f"twophase_g{g}w{warps}"] = {"kind": "twophase", "G": SMS * g, "warps": warps}
    out["atomic_rowgrid"] = {"kind": "atomic", "G": p["M"], "warps": 4}
    return out


@triton.jit
def rmsnorm_bwd_kernel(x_ptr, w_ptr, dy_ptr, rstd_ptr, dx_ptr, dw_ptr, M, N, ATOMIC: tl.constexpr,
                       BLOCK: tl.constexpr):  # fmt: skip
    pid = tl.program_id(0)
    G = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    cmask = cols < N
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK,), tl.float32)
    for row in range(pid, M, G):
        base = tl.cast(row, tl.int64) * N
        x = tl.load(x_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
        rstd = tl.load(rstd_ptr + row)
        xh = x * rstd
        wdy = w * dy
        c = tl.sum(wdy * xh, axis=0) / N
        tl.store(dx_ptr + base + cols, (rstd * (wdy - xh * c)).to(dx_ptr.dtype.element_ty), mask=cmask)
        dw += dy * xh
    if ATOMIC:
        tl.atomic_add(dw_ptr + cols, dw, mask=cmask)
    else:
        tl.store(dw_ptr + pid * N + cols, dw, mask=cmask)


@triton.jit
def colsum_partials_kernel(p_ptr, out_ptr, G, N, BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), tl.float32)
    for g0 in range(0, G, BLOCK_G):
        g = g0 + tl.arange(0, BLOCK_G)
        m = (g[:, None] < G) & (cols[None, :] < N)
        acc += tl.sum(tl.load(p_ptr + g[:, None] * N + cols[None, :], mask=m, other=0.0), axis=0)
    tl.store(out_ptr + cols, acc, mask=cols < N)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=12)
    w = randn((N,), dt, device, seed=13)
    dy = randn((M, N), dt, device, seed=14)
    if compile_only(device):
        rstd = torch.empty((M,), dtype=torch.float32)
    else:
        rstd = torch.rsqrt((x.float() ** 2).mean(dim=1) + EPS)
    dx = empty((M, N), dt, device)
    dw = empty((N,), torch.float32, device)
    G, block = d["G"], npow2(N)
    if d["kind"] == "atomic":
        launches = [dw.zero_,
                    spec(rmsnorm_bwd_kernel, (G,), x, w, dy, rstd, dx, dw, M, N, ATOMIC=True, BLOCK=block,
                         num_warps=d["warps"])]  # fmt: skip
    else:
        part = empty((G, N), torch.float32, device)
        launches = [
            spec(rmsnorm_bwd_kernel, (G,), x, w, dy, rstd, dx, part, M, N, ATOMIC=False, BLOCK=block,
                 num_warps=d["warps"]),
            spec(colsum_partials_kernel, (cdiv(N, 128),), part, dw, G, N, BLOCK_G=32, BLOCK_N=128, num_warps=4),
        ]  # fmt: skip

    def ref():
        xf, dyf, wf = x.float(), dy.float(), w.float()
        xh = xf * rstd[:, None]
        wdy = wf * dyf
        c = (wdy * xh).sum(dim=1, keepdim=True) / N
        return [rstd[:, None] * (wdy - xh * c), (dyf * xh).sum(dim=0)]

    return Built(launches, [dx, dw], ref, 1e-3 if dt == torch.float32 else 2e-2, f"{M}x{N} {dt}, G={G}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f32_12000x768": {"M": 12000, "N": 768, "dtype": torch.float32},
    "bf16_4096x8192": {"M": 4096, "N": 8192, "dtype": torch.bfloat16},
}


def hold_designs(p):
    out = {}
    for g in (3, 8):
        for warps in (4, 16):
            out[f"atomic_g{g}w{warps}"] = {"kind": "atomic", "G": SMS * g, "warps": warps}
            out[f"twophase_g{g}w{warps}"] = {"kind": "twophase", "G": SMS * g, "warps": warps}
    out["atomic_rowgrid_w8"] = {"kind": "atomic", "G": p["M"], "warps": 8}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f32_50000x512": {"M": 50000, "N": 512, "dtype": torch.float32},
    "bf16_1000x6144": {"M": 1000, "N": 6144, "dtype": torch.bfloat16},
}


def fresh_designs(p):
    out = {}
    for g, warps in ((5, 8), (12, 4)):
        out[f"atomic_g{g}w{warps}"] = {"kind": "atomic", "G": SMS * g, "warps": warps}
        out[f"twophase_g{g}w{warps}"] = {"kind": "twophase", "G": SMS * g, "warps": warps}
    out["atomic_rowgrid_w2"] = {"kind": "atomic", "G": p["M"], "warps": 2}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_8192x5120": {"M": 8192, "N": 5120, "dtype": torch.bfloat16},
    "f32_3000x2560": {"M": 3000, "N": 2560, "dtype": torch.float32},
    "f16_65536x768": {"M": 65536, "N": 768, "dtype": torch.float16},
}
