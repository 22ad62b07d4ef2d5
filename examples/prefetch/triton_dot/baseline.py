"""Baseline: a Triton K-loop (tl.dot over K tiles) compiled with ``num_stages=1``: no software pipelining, so each
iteration's tl.loads are waited for before its tl.dot."""

import triton
import triton.language as tl

NUM_STAGES = 1


@triton.jit
def dot_loop_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def kernelpilot_entry():
    return {
        "kernel": dot_loop_kernel,
        "signature": {
            "a_ptr": "*fp16",
            "b_ptr": "*fp16",
            "c_ptr": "*fp32",
            "K": "i32",
            "BM": "constexpr",
            "BN": "constexpr",
            "BK": "constexpr",
        },
        "constexprs": {"BM": 32, "BN": 32, "BK": 32},
        "options": {"num_warps": 4, "num_stages": NUM_STAGES},
    }
