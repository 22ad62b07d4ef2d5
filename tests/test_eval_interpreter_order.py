"""The CPU correctness check of Triton tasks runs through Triton's interpreter, which reduces in order; a GPU combines
lanes in shuffle order. Our own open-nv-linear-scan answer reduced a scan pair (not commutative) with ``tl.reduce``:
it passed on the CPU and was wrong on an H200 (max abs error 13, 2026-11-26). The interpreter child now combines
``tl.reduce``'s general path with the operands swapped, so such a combine fails on the CPU too, while a commutative
one keeps its bits."""

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.catalog import load_tasks
from evals.harness.runner import run_suite
from evals.models import ShapeCase

ROOT = Path(__file__).resolve().parents[1]
UNORDERED = ROOT / "tests" / "data" / "evals" / "linear_scan_unordered_reduce.patch"

PROBE = r"""
import sys, torch, triton, triton.language as tl
from evals.harness.child import reduce_out_of_order

@triton.jit
def pair(a1, x1, a2, x2):
    return a1 * a2, a2 * x1 + x2

@triton.jit
def add(a, b):
    return a + b

@triton.jit
def k(a_ptr, x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    a, x = tl.load(a_ptr + i), tl.load(x_ptr + i)
    _, end = tl.reduce((a, x), 0, pair)   # the recurrence's end state: order matters
    tl.store(out_ptr, end)
    tl.store(out_ptr + 1, tl.reduce(x, 0, add))  # a commutative custom combine: order must not change its bits

if sys.argv[1] == "swap":
    assert reduce_out_of_order()
g = torch.Generator().manual_seed(3)
a, x = torch.rand(64, generator=g) * 0.9 + 0.05, torch.rand(64, generator=g)
out = torch.zeros(2)
k[(1,)](a, x, out, N=64)
h = torch.zeros(())
for t in range(64):
    h = a[t] * h + x[t]
print(repr(float(out[0])), repr(float(out[1])), repr(float(h)))
"""


def _probe(mode: str) -> list[float]:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE, mode], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return [float(v) for v in done.stdout.split()]


def test_swapped_operands_expose_a_non_commutative_reduce_and_keep_a_commutative_one():
    end, total, truth = _probe("in-order")
    assert abs(end - truth) < 1e-5  # the interpreter's in-order reduce gets the recurrence right: it hides the bug
    end_s, total_s, _ = _probe("swap")
    assert abs(end_s - truth) > 1e-2  # swapped, the pair's combine no longer gives the recurrence
    assert total_s == total  # the commutative combine: bit for bit the same


def test_reduce_out_of_order_is_a_no_op_outside_the_interpreter(monkeypatch):
    from evals.harness.child import reduce_out_of_order

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert reduce_out_of_order() is False


@pytest.mark.slow
def test_the_unordered_linear_scan_fails_the_cpu_check_and_the_fixed_one_passes(tmp_path):
    # the task as the scorer runs it, on one shape: the task's first public length (L=300; at L=40 the unordered
    # combine's error stays inside the tolerance) with B and D cut to 1 and 16. Its four shapes took 167 s on 2 cores
    # in the interpreter; this one shows the same mismatch and the same pass in about a fifth of that.
    (task,) = load_tasks(["open-nv-linear-scan"])
    small = task.spec.correctness.model_copy(
        update={"shapes": [ShapeCase(name="b1l300d16", params={"B": 1, "L": 300, "D": 16})], "hidden_shapes": []}
    )
    task = dataclasses.replace(task, spec=task.spec.model_copy(update={"correctness": small}))
    (bad,) = run_suite(
        [task], "unordered", tmp_path, template=f"git apply {UNORDERED}", jobs=1, progress=lambda m: None
    )
    assert bad.compiled and bad.correct is False, bad.reasons
    assert any("mismatch" in r for r in bad.reasons), bad.reasons
    (good,) = run_suite([task], "excellent", tmp_path, jobs=1, progress=lambda m: None)
    assert good.compiled and good.correct, good.reasons
