"""A Triton-HIP kernel's LLVM IR run by check's llvm engine agrees with Triton's interpreter and with torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tools.check.compare import check, outputs

from .conftest import REPO

SOFTMAX = REPO / "tests" / "data" / "check" / "triton_softmax.py"


@pytest.mark.slow
def test_triton_softmax_llvm_engine_equals_interpreter_and_torch():
    shape = {"rows": 3, "n_cols": 200}
    llvm = outputs(SOFTMAX, "llvm", seed=5, shape=shape)["out_ptr"]
    interp = outputs(SOFTMAX, "interpreter", seed=5, shape=shape)["out_ptr"]
    x = torch.randn(3, 200, generator=torch.Generator().manual_seed(5))  # kernelpilot_inputs(5)'s x
    ref = torch.softmax(x, dim=1).numpy().ravel()
    # exp and the division round differently in each: a few float32 ulps (values are about 1/200)
    assert np.abs(llvm - interp).max() < 1e-7 and np.abs(llvm - ref).max() < 1e-7
    assert np.allclose(llvm.reshape(3, 200).sum(axis=1), 1.0, atol=1e-6)


def test_triton_masked_buffer_accesses_are_hardware_bounded_not_errors():
    rep = check(SOFTMAX, SOFTMAX, engine="llvm", shapes=[{"rows": 2, "n_cols": 100}])
    assert rep.verdict == "same"
    # columns 100..255 of a 256-wide block are masked: Triton points them past num_records, the hardware reads 0
    kinds = {e.kind for e in rep.cases[0].events}
    assert kinds == {"past-num-records"}
