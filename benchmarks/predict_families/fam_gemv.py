"""Skinny GEMM / GEMV with bf16 weights (decode-shaped linear layers), with and without split-K (gemv_common)."""

from gemv_common import gemv_build, gemv_designs, gemv_fresh_designs, gemv_hold_designs

FAMILY = "gemv"
PROBLEMS = {
    "m1_8192x8192": {"M": 1, "N": 8192, "K": 8192},
    "m1_1024x16384": {"M": 1, "N": 1024, "K": 16384},
    "m16_4096x14336": {"M": 16, "N": 4096, "K": 14336},
    "m16_28672x4096": {"M": 16, "N": 28672, "K": 4096},
}
SMALL = {"m1_8192x8192": {"M": 1, "N": 256, "K": 2048}}  # M > 1: bf16 dots, wrong in the interpreter

designs = gemv_designs


def build(p, d, device):
    return gemv_build(p, d, device, quant=False)


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "m1_5120x13824": {"M": 1, "N": 5120, "K": 13824},
    "m8_12288x4096": {"M": 8, "N": 12288, "K": 4096},
    "m4_3072x24576": {"M": 4, "N": 3072, "K": 24576},
}
hold_designs = gemv_hold_designs


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "m1_3584x18944": {"M": 1, "N": 3584, "K": 18944},
    "m3_6400x4096": {"M": 3, "N": 6400, "K": 4096},
    "m1_2048x1024": {"M": 1, "N": 2048, "K": 1024},
}
fresh_designs = gemv_fresh_designs


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "m1_7168x18432": {"M": 1, "N": 7168, "K": 18432},
    "m6_5120x6144": {"M": 6, "N": 5120, "K": 6144},
    "m1_2560x2048": {"M": 1, "N": 2560, "K": 2048},
}
