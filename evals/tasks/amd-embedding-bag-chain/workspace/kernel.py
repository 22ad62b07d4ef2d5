"""Embedding-bag sum for MI300X/MI355X: out[b] = sum_{i < L} weight[idx[b, i]], weight (V, D) fp16 with D = 128,
idx (B, L) int32, out (B, D) fp32. One program per bag walks its L indices: each step loads an index, then the
row it names (a dependent chain: the row address is known only when the index arrives), then adds it."""

import torch
import triton
import triton.language as tl

OPTIONS = {"num_warps": 1, "num_stages": 1}


@triton.jit
def embedding_bag_kernel(idx_ptr, w_ptr, out_ptr, L, D: tl.constexpr):
    bag = tl.program_id(0).to(tl.int64)
    d = tl.arange(0, D)
    acc = tl.zeros((D,), tl.float32)
    for i in range(0, L):
        row = tl.load(idx_ptr + bag * L + i).to(tl.int64)
        acc += tl.load(w_ptr + row * D + d).to(tl.float32)
    tl.store(out_ptr + bag * D + d, acc)


def forward(idx: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    B, L = idx.shape
    D = weight.shape[1]
    out = torch.empty((B, D), device=weight.device, dtype=torch.float32)
    embedding_bag_kernel[(B,)](idx, weight, out, L, D=D, **OPTIONS)
    return out


def kernelpilot_entry():
    B, L, V, D = 4096, 64, 100000, 128
    idx, w, out = torch.empty((B, L), dtype=torch.int32), torch.empty((V, D), dtype=torch.float16), torch.empty((B, D))
    return {"kernel": embedding_bag_kernel, "args": (idx, w, out, L), "kwargs": {"D": D, **OPTIONS}, "grid": (B,)}
