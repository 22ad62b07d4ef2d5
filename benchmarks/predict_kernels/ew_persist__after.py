"""axpy with 4 persistent programs of 8 warps per SM, 4096 values per iteration (ew_persist: after)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from ew_kernels import entry, run
from predict_common import H100_SMS

CONFIG = (4096, H100_SMS * 4, 8)  # BLOCK, persistent programs (None: one block per program), num_warps


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
