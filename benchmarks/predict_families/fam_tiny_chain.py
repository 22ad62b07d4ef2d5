"""A launch-bound chain: L affine steps v = v * a_i + b_i over a small vector, fused F steps per launch (L / F
launches, each reading and writing the whole vector, ping-pong buffers)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randn, spec

FAMILY = "tiny_chain"
PROBLEMS = {
    "l16_n4096": {"L": 16, "n": 4096},
    "l8_n65536": {"L": 8, "n": 65536},
    "l32_n1024": {"L": 32, "n": 1024},
}
SMALL = {"l16_n4096": {"L": 16, "n": 3000}, "l32_n1024": {"L": 32, "n": 1000}}


def designs(p):
    out = {}
    for fuse in (1, 2, 4, 8, 16, 32):
        if fuse <= p["L"]:
            for block in (1024,):
                if block <= p["n"] or block == 1024:
                    out[f"f{fuse}b{block}"] = {"F": fuse, "BLOCK": block}
    return out


@triton.jit
def chain_kernel(x_ptr, y_ptr, n, first, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0)
    for i in tl.static_range(STEPS):
        step = first + i
        v = v * (1.0 + 0.001 * step) + 0.01 * step
    tl.store(y_ptr + offs, v, mask=mask)


def build(p, d, device):
    L, n, F = p["L"], p["n"], d["F"]
    x = randn((n,), torch.float32, device, seed=95)
    bufs = [empty((n,), torch.float32, device) for _ in range(2)]
    launches, src = [], x
    for k in range(L // F):
        dst = bufs[k % 2]
        launches.append(spec(chain_kernel, (cdiv(n, d["BLOCK"]),), src, dst, n, k * F, STEPS=F, BLOCK=d["BLOCK"],
                             num_warps=4))  # fmt: skip
        src = dst

    def ref():
        v = x.double()
        for step in range(L):
            v = v * (1.0 + 0.001 * step) + 0.01 * step
        return [v]

    return Built(launches, [src], ref, 1e-5, f"L={L} steps over n={n} fp32, {L // F} launch(es)")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "l24_n2048": {"L": 24, "n": 2048},
    "l12_n16384": {"L": 12, "n": 16384},
    "l64_n512": {"L": 64, "n": 512},
}


def hold_designs(p):
    block = 512 if p["n"] <= 2048 else 2048  # BLOCK 1024 was the first corpus's only one
    return {f"f{fuse}b{block}": {"F": fuse, "BLOCK": block} for fuse in (1, 3, 4, 8, 12, 24, 64) if p["L"] % fuse == 0}


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "l40_n3000": {"L": 40, "n": 3000},
    "l6_n100000": {"L": 6, "n": 100000},
}


def fresh_designs(p):
    block = 256 if p["n"] <= 4096 else 4096  # 512, 1024 and 2048 were the other corpora's
    return {f"f{fuse}b{block}": {"F": fuse, "BLOCK": block} for fuse in (1, 2, 3, 5, 6, 10, 40) if p["L"] % fuse == 0}


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "l128_n8192": {"L": 128, "n": 8192},
    "l4_n262144": {"L": 4, "n": 262144},
}
