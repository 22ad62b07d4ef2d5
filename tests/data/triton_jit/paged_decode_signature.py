"""``paged_decode.py``'s kernel in the signature (dict) form: compiled without the JIT's launch specialisation."""

import triton  # noqa: F401  (marks this file as a Triton kernel file)
from paged_decode import BLOCK, D, paged_decode_kernel

SIGNATURE = {
    "q_ptr": "*fp16",
    "k_cache": "*fp16",
    "v_cache": "*fp16",
    "block_table": "*i32",
    "seq_lens": "*i32",
    "out_ptr": "*fp16",
    "max_blocks": "i32",
    "scale": "fp32",
    "BLOCK": "constexpr",
    "D": "constexpr",
}


def kernelpilot_entry():
    return {
        "kernel": paged_decode_kernel,
        "signature": SIGNATURE,
        "constexprs": {"BLOCK": BLOCK, "D": D},
        "options": {"num_warps": 2},
    }
