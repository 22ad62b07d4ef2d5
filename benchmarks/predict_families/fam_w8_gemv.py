"""int8 weight-only GEMV / skinny GEMM: W int8 [N, K] dequantised in the loop, per-row fp32 scales (gemv_common)."""

from gemv_common import gemv_build, gemv_designs, gemv_fresh_designs, gemv_hold_designs

FAMILY = "w8_gemv"
PROBLEMS = {
    "m1_8192x8192": {"M": 1, "N": 8192, "K": 8192},
    "m1_2048x16384": {"M": 1, "N": 2048, "K": 16384},
    "m16_8192x8192": {"M": 16, "N": 8192, "K": 8192},
    "m4_14336x4096": {"M": 4, "N": 14336, "K": 4096},
}
SMALL = {"m1_8192x8192": {"M": 1, "N": 256, "K": 2048}}  # M > 1: bf16 dots, wrong in the interpreter

designs = gemv_designs


def build(p, d, device):
    return gemv_build(p, d, device, quant=True)


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "m1_6144x10240": {"M": 1, "N": 6144, "K": 10240},
    "m16_8192x5120": {"M": 16, "N": 8192, "K": 5120},
    "m2_20480x2560": {"M": 2, "N": 20480, "K": 2560},
}
hold_designs = gemv_hold_designs


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "m1_11008x4096": {"M": 1, "N": 11008, "K": 4096},
    "m8_4096x10752": {"M": 8, "N": 4096, "K": 10752},
    "m2_1536x9216": {"M": 2, "N": 1536, "K": 9216},
}
fresh_designs = gemv_fresh_designs


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "m1_5120x20480": {"M": 1, "N": 5120, "K": 20480},
    "m12_2560x8192": {"M": 12, "N": 2560, "K": 8192},
    "m1_32000x4096": {"M": 1, "N": 32000, "K": 4096},
}
