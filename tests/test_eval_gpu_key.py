"""Two findings of session 5's Dask run and review, each a test that fails on the code before the fix:

* the GPU lock of a pinned Dask worker (``eval worker`` runs one per GPU with ``CUDA_VISIBLE_DEVICES=<gpu>`` and no
  slot) was ``gpu-all``, so the two workers of a 2-GPU host took turns on their different GPUs;
* a task's ``bytes``/``flops`` expression went through Python's ``eval``; task folders can come from other people.
"""

from __future__ import annotations

import pytest

from evals.harness.devices import Runtime
from evals.harness.timing import gpu_key, shape_expression
from tools.errors import InputError


def test_a_pinned_worker_locks_its_own_gpu(monkeypatch):
    monkeypatch.delenv("HIP_VISIBLE_DEVICES", raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    assert gpu_key(Runtime()) == "1"  # the worker pinned to GPU 1 (no slot) locks GPU 1, not every GPU
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    assert gpu_key(Runtime()) == "0"
    assert gpu_key(Runtime(visible="3")) == "3"  # an explicit slot (single-host runner) wins
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert gpu_key(Runtime()) == "all"


def test_shape_expressions_are_arithmetic_only():
    params = {"B": 8, "S": 8192, "HKV": 8, "D": 128}
    assert shape_expression("4*B*(S - S//3)*HKV*D", params) == 4 * 8 * (8192 - 8192 // 3) * 8 * 128
    assert shape_expression("2**10 / 4 - -1", {}) == 257.0
    for bad in ("__import__('os').system('true')", "open('x')", "B.__class__", "[1][0]", "10**1000", "1/0", "X*2"):
        with pytest.raises(InputError, match="performance expression"):
            shape_expression(bad, params)
