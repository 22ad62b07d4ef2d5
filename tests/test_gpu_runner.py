"""The one GPU runner (tools.profilers.gpu_runner.run_pair): each side in its own process, outcomes as values.

This host has no GPU, so these tests pin what happens around the measurement: a missing GPU, an unusable
kernelpilot_run, a side that never answers, and the children's lifetime (they die with the call and with the
parent). The GPU path itself (checks, output comparison, interleaved event timing) runs on the device host; its
figures are in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tools.errors import InputError
from tools.prefetch import measure_gpu
from tools.profilers.gpu_runner import run_pair

ROOT = Path(__file__).resolve().parents[1]
DOT = ROOT / "examples" / "prefetch" / "triton_dot"


def _has_gpu() -> bool:
    import torch

    return torch.cuda.is_available()


no_gpu_here = pytest.mark.skipif(_has_gpu(), reason="asserts the no-GPU outcome")


def _write(path: Path, body: str) -> Path:
    path.write_text(textwrap.dedent(body))
    return path


def _sleeper(tmp_path: Path, name: str) -> Path:
    """A kernel file whose import records the process id, then blocks: a side that never becomes ready."""
    return _write(
        tmp_path / f"{name}.py",
        f"""
        import os, time
        open({str(tmp_path / (name + ".pid"))!r}, "w").write(str(os.getpid()))
        time.sleep(600)

        def kernelpilot_run(device):
            raise AssertionError("never reached")
        """,
    )


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie (an exited child not yet reaped by init)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _wait_for(paths: list[Path], limit: float = 120) -> list[int]:
    end = time.monotonic() + limit
    while not all(p.exists() and p.read_text() for p in paths):
        assert time.monotonic() < end, f"children never started: {[str(p) for p in paths if not p.exists()]}"
        time.sleep(0.1)
    return [int(p.read_text()) for p in paths]


@no_gpu_here
def test_no_gpu_is_an_outcome_that_says_so():
    res = run_pair(DOT / "baseline.py", DOT / "prefetched.py", timeout=300)
    # both files import (triton is here); the first side to reach the GPU check reports torch's CPU-only build
    assert res.status == "no-gpu" and not res.measured and res.comparison is None
    assert res.note.startswith("not measured: no GPU (no GPU is visible to torch (CPU-only build")
    assert res.hint and "GPU host" in res.hint
    assert res.before.correct is None and res.after.correct is None  # nothing was checked, nothing claimed


def test_a_file_without_kernelpilot_run_is_an_input_error(tmp_path):
    plain = _write(tmp_path / "plain.py", "X = 1\n")
    res = run_pair(plain, DOT / "prefetched.py", timeout=300)
    assert res.status == "input-error" and res.failed_side == "BEFORE"
    assert res.before.detail == f"{plain} defines no kernelpilot_run(device)"


def test_measure_gpu_turns_an_unusable_kernelpilot_run_into_an_input_error(tmp_path):
    # named like a runner (runner_file finds the entry's name in it) but kernelpilot_run is not callable
    odd = _write(tmp_path / "odd.py", "kernelpilot_run = 3\n")
    with pytest.raises(InputError, match="odd.py defines no kernelpilot_run"):
        measure_gpu(odd, DOT / "prefetched.py")


def test_a_side_that_fails_to_import_is_an_error_with_its_traceback(tmp_path):
    broken = _write(tmp_path / "broken.py", "raise RuntimeError('kernel module is broken')\n")
    res = run_pair(broken, broken, timeout=300)
    assert res.status == "error" and res.failed_side == "BEFORE"
    assert res.note.startswith("not measured: BEFORE failed (importing ")
    assert "RuntimeError: kernel module is broken" in res.note
    assert "RuntimeError: kernel module is broken" in res.before.error
    assert "kernelpilot_run(device) by hand" in res.hint


def test_timeout_is_an_outcome_and_both_children_are_gone_after_it(tmp_path):
    before, after = _sleeper(tmp_path, "before"), _sleeper(tmp_path, "after")
    with ThreadPoolExecutor(1) as pool:
        call = pool.submit(run_pair, before, after, timeout=45)
        pids = _wait_for([tmp_path / "before.pid", tmp_path / "after.pid"])
        res = call.result()
    assert res.status == "timeout" and res.failed_side == "BEFORE"
    assert res.note == "not measured: timed out (BEFORE did not finish start-up (import, GPU, kernelpilot_run) in time)"
    assert not any(_alive(pid) for pid in pids)  # killed with their process groups before run_pair returned


def test_children_die_when_the_parent_is_killed(tmp_path):
    before, after = _sleeper(tmp_path, "before"), _sleeper(tmp_path, "after")
    code = f"from tools.profilers.gpu_runner import run_pair; run_pair({str(before)!r}, {str(after)!r}, timeout=600)"
    parent = subprocess.Popen(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True
    )
    try:
        pids = _wait_for([tmp_path / "before.pid", tmp_path / "after.pid"])
        assert all(_alive(pid) for pid in pids)
        parent.send_signal(signal.SIGKILL)  # no clean-up code runs in the parent: the kernel must end the children
        parent.wait()
        end = time.monotonic() + 30
        while any(_alive(pid) for pid in pids) and time.monotonic() < end:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in pids)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_outputs_are_compared_in_float64_with_the_largest_difference_stated():
    import torch

    from tools.profilers.gpu_child import compare_outputs

    before = torch.tensor([1.0, 2.0, 4.0])
    # 4.004 vs 4: |diff| 0.004 <= atol 1e-5 + rtol 1e-3 * 4 = 0.00401, so allclose holds
    ok, detail = compare_outputs(torch.tensor([1.0, 2.0, 4.004], dtype=torch.float64), before, 1e-3, 1e-5)
    assert ok and detail == "max |AFTER - BEFORE| = 0.004 over 3 values (rtol 0.001, atol 1e-05)"
    ok, detail = compare_outputs(torch.tensor([1.0, 2.0, 4.1], dtype=torch.float64), before, 1e-3, 1e-5)
    assert not ok and detail.startswith("max |AFTER - BEFORE| = 0.1 over 3 values")
    ok, detail = compare_outputs(torch.zeros(2, 2), before, 1e-3, 1e-5)
    assert not ok and detail == "output shapes differ: BEFORE (3,), AFTER (2, 2)"


def test_a_held_process_says_it_is_ready_once_and_a_second_wait_returns_at_once(tmp_path):
    """The eval harness waits for its pre-started processes before the GPU lock and again before the confirmation
    session: the child prints its ready line once, so the second wait must not wait for another (on an H100 it
    waited out 120 s per process under the GPU lock)."""
    import sys
    import threading

    from tools.profilers.gpu_runner import SideProcess

    child = (
        "import json, sys\n"
        "print(json.dumps({'ready': True}), flush=True)\n"
        "nonce = sys.stdin.readline().strip()\n"
        "for line in sys.stdin:\n"
        "    print(json.dumps({'nonce': nonce, 'echo': json.loads(line)}), flush=True)\n"
    )
    side = SideProcess("x", [sys.executable, "-c", child], env={}, cwd=tmp_path, stderr_path=tmp_path / "e", hold=True)
    try:
        waits = threading.Thread(target=lambda: (side.wait_ready(600), side.wait_ready(600)), daemon=True)
        waits.start()
        waits.join(120)  # generous: the first wait is one interpreter start, the second must not block
        assert not waits.is_alive() and side.ready and not side.started
        assert side.ask({"op": 1}, timeout=120)["echo"] == {"op": 1}
    finally:
        side.close()
