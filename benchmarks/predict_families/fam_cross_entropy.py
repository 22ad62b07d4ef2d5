"""Cross-entropy forward over vocabulary rows: loss[m] = logsumexp(logits[m]) - logits[m, target[m]]; one program
per row with an online (running max and sum) loop over chunks, the same in two passes (max, then the sum), or SPLIT
programs per row each writing a partial (max, sum) that a second kernel combines (few rows, long vocabularies). A
fresh-corpus-only family (issue 31)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, empty, randint, randn, spec

FAMILY = "cross_entropy"
PROBLEMS = {}
FRESH_PROBLEMS = {
    "bf16_4096x32000": {"M": 4096, "V": 32000, "dtype": torch.bfloat16},
    "f32_512x50257": {"M": 512, "V": 50257, "dtype": torch.float32},
    "bf16_64x128256": {"M": 64, "V": 128256, "dtype": torch.bfloat16},
    "f16_8192x5000": {"M": 8192, "V": 5000, "dtype": torch.float16},
}


def fresh_designs(p):
    out = {
        "online2048w4": {"kind": "online", "BLOCK": 2048, "warps": 4, "SPLIT": 1},
        "online8192w8": {"kind": "online", "BLOCK": 8192, "warps": 8, "SPLIT": 1},
        "twopass4096w8": {"kind": "twopass", "BLOCK": 4096, "warps": 8, "SPLIT": 1},
    }
    if p["M"] < 1024:
        out["split16_b2048w4"] = {"kind": "online", "BLOCK": 2048, "warps": 4, "SPLIT": 16}
    return out


def shrink(p):
    return dict(p, M=3, dtype=torch.float16 if p["dtype"] == torch.bfloat16 else p["dtype"])


@triton.jit
def ce_online_kernel(x_ptr, t_ptr, loss_ptr, pm_ptr, ps_ptr, V, per_split, SPLIT: tl.constexpr,
                     BLOCK: tl.constexpr):  # fmt: skip
    """SPLIT 1: the row's loss; else this split's (max, sum of exp) into the partials."""
    row = tl.program_id(0).to(tl.int64)
    part = tl.program_id(1)
    lo = part * per_split
    hi = tl.minimum(lo + per_split, V)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(lo, hi, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * V + cols, mask=cols < hi, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.where(m == m_new, 1.0, tl.exp(m - m_new)) + tl.where(x > -float("inf"), tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
    if SPLIT == 1:
        tgt = tl.load(t_ptr + row).to(tl.int64)
        picked = tl.load(x_ptr + row * V + tgt).to(tl.float32)
        tl.store(loss_ptr + row, row_max + tl.log(total) - picked)
    else:
        tl.store(pm_ptr + row * SPLIT + part, row_max)
        tl.store(ps_ptr + row * SPLIT + part, total)


@triton.jit
def ce_combine_kernel(x_ptr, t_ptr, loss_ptr, pm_ptr, ps_ptr, V, SPLIT: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    i = tl.arange(0, SPLIT)
    pm = tl.load(pm_ptr + row * SPLIT + i)
    ps = tl.load(ps_ptr + row * SPLIT + i)
    top = tl.max(pm, axis=0)
    total = tl.sum(ps * tl.exp(pm - top), axis=0)
    picked = tl.load(x_ptr + row * V + tl.load(t_ptr + row).to(tl.int64)).to(tl.float32)
    tl.store(loss_ptr + row, top + tl.log(total) - picked)


@triton.jit
def ce_twopass_kernel(x_ptr, t_ptr, loss_ptr, V, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(x_ptr + row * V + cols, mask=cols < V, other=-float("inf")).to(tl.float32))
    row_max = tl.max(m, axis=0)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * V + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        s += tl.exp(x - row_max)
    picked = tl.load(x_ptr + row * V + tl.load(t_ptr + row).to(tl.int64)).to(tl.float32)
    tl.store(loss_ptr + row, row_max + tl.log(tl.sum(s, axis=0)) - picked)


def build(p, d, device):
    M, V, dt = p["M"], p["V"], p["dtype"]
    x = randn((M, V), dt, device, seed=131, scale=4.0)
    tgt = randint(0, V, (M,), device, seed=132, dtype=torch.int64)
    loss = empty((M,), torch.float32, device)
    split, block, warps = d["SPLIT"], d["BLOCK"], d["warps"]
    if d["kind"] == "twopass":
        launches = [spec(ce_twopass_kernel, (M,), x, tgt, loss, V, BLOCK=block, num_warps=warps)]
    elif split == 1:
        launches = [spec(ce_online_kernel, (M, 1), x, tgt, loss, loss, loss, V, V, SPLIT=1, BLOCK=block,
                         num_warps=warps)]  # fmt: skip
    else:
        per = -(-V // (split * block)) * block  # whole chunks per split
        pm, ps = empty((M, split), torch.float32, device), empty((M, split), torch.float32, device)
        launches = [
            spec(ce_online_kernel, (M, split), x, tgt, loss, pm, ps, V, per, SPLIT=split, BLOCK=block,
                 num_warps=warps),
            spec(ce_combine_kernel, (M,), x, tgt, loss, pm, ps, V, SPLIT=split, num_warps=1),
        ]  # fmt: skip

    def ref():
        return [torch.nn.functional.cross_entropy(x.float(), tgt, reduction="none")]

    return Built(launches, [loss], ref, 1e-4, f"M={M} V={V} {dt}, split {split}")


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_2048x151936": {"M": 2048, "V": 151936, "dtype": torch.bfloat16},
    "f32_256x128256": {"M": 256, "V": 128256, "dtype": torch.float32},
    "f16_16384x1000": {"M": 16384, "V": 1000, "dtype": torch.float16},
}
