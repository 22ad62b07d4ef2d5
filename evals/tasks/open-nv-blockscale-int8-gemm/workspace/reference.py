"""Reference for open-nv-blockscale-int8-gemm: C = sum over 128-wide K groups g of (A_g B_g^T) * a_scale[:, g] *
b_scale[n // 128, g], in fp64."""

import torch

GROUP = 128


def make_inputs(params, gen, device):
    M, N, K = params["M"], params["N"], params["K"]
    a = torch.randint(-127, 128, (M, K), generator=gen, device=device, dtype=torch.int8)
    b = torch.randint(-127, 128, (N, K), generator=gen, device=device, dtype=torch.int8)
    a_scale = (torch.rand(M, K // GROUP, generator=gen, device=device) + 0.5) / 127
    b_scale = (torch.rand(-(-N // GROUP), K // GROUP, generator=gen, device=device) + 0.5) / 127
    return a, a_scale, b, b_scale


def reference(a, a_scale, b, b_scale):
    M, K = a.shape
    N = b.shape[0]
    a_deq = a.double() * a_scale.double().repeat_interleave(GROUP, dim=1)
    b_full = b_scale.double().repeat_interleave(GROUP, dim=0)[:N].repeat_interleave(GROUP, dim=1)
    return (a_deq @ (b.double() * b_full).T).float()
