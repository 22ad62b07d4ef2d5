"""A Triton kernel whose kernelpilot_entry() first sleeps: stands in for a long compile in the MCP tests.

KP_TEST_PID_FILE: where the compiling process writes its pid; KP_TEST_SLEEP_S: how long it sleeps first.
"""

import os
import time

import triton
import triton.language as tl


@triton.jit
def slow_add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1.0, mask=mask)


def kernelpilot_entry():
    if os.environ.get("KP_TEST_PID_FILE"):
        with open(os.environ["KP_TEST_PID_FILE"], "w") as f:
            f.write(str(os.getpid()))
    time.sleep(float(os.environ.get("KP_TEST_SLEEP_S", "0")))
    return {
        "kernel": slow_add_kernel,
        "signature": {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        "constexprs": {"BLOCK": 256},
        "options": {"num_warps": 4},
    }
