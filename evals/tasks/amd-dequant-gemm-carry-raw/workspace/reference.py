"""Reference for amd-dequant-gemm-carry-raw: x @ fp16(w_q * scales[k // 128]) accumulated in fp64."""

import torch

GROUP = 128


def make_inputs(params, gen, device):
    M, N, K = params["M"], params["N"], params["K"]
    x = torch.randn(M, K, generator=gen, device=device).half()
    w_q = torch.randint(-127, 128, (K, N), generator=gen, device=device, dtype=torch.int8)
    scales = (torch.rand(K // GROUP, N, generator=gen, device=device) * 1e-3 + 5e-4).half()
    return x, w_q, scales


def reference(x, w_q, scales):
    w = (w_q.float() * scales.float().repeat_interleave(GROUP, dim=0)).half()
    return (x.double() @ w.double()).float()
