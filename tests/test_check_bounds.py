"""check is bounded: the kernels run in a child with a deadline and a memory cap; a kernel file's own exit code is
never read as one of ours."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tools.check.compare import CheckTimeout, check
from tools.cli import main
from tools.dump_ir import dump_ir
from tools.errors import InputError, KernelpilotError

from .conftest import REPO

DATA = REPO / "tests" / "data" / "check" / "bounds"
WIDE = DATA / "wide_add.py"


@pytest.mark.slow
def test_an_endless_kernel_stops_at_the_timeout_with_a_timeout_error():
    dump_ir(DATA / "spin.py", "gfx942")  # the compile cached first: the figure is the run's, on a loaded machine
    t0 = time.monotonic()
    with pytest.raises(CheckTimeout, match="--timeout") as exc:
        check(DATA / "spin.py", DATA / "spin.py", timeout=20)
    elapsed = time.monotonic() - t0
    assert elapsed < 25, elapsed  # 20 s, then the child's process group killed within the runner's grace period
    assert "--timeout ran out" in exc.value.message  # while the kernels ran, unless the machine is very loaded


@pytest.mark.slow
@pytest.mark.parametrize("programs", [200_000, 10**9])
def test_a_grid_too_large_for_the_cpu_engine_is_refused_before_it_allocates(programs, capsys):
    # 200,000 workgroups × 256 threads = 51.2 M lanes; at ≥128 B a lane that is ≥6.5 GB before the kernel's own
    # values: over the 2 GB cap given here. The estimate refuses it in the child before numpy allocates anything.
    code = main(["check", str(WIDE), str(WIDE), "--shape", f"programs={programs}", "--max-memory", "2"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{programs * 256:,} lanes" in err and "the cap is 2.0 GB" in err and "hint:" in err, err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.slow
def test_a_grid_within_the_cap_runs():
    rep = check(WIDE, WIDE, shapes=[{"programs": 8}])
    assert rep.verdict == "same" and rep.cases[0].buffers[0].elements == 1024  # out_ptr: n = 1024 floats


def test_the_inputs_child_reports_a_kernel_files_exit_4_as_its_exit_not_a_convention(tmp_path):
    # the child's exit code is 0 here, and 4 would once have meant "convention not followed": only result.json counts
    argv = [sys.executable, "-m", "tools.check._inputs_child", str(DATA / "exit4.py"), "triton", "[[0, {}]]",
            str(tmp_path)]  # fmt: skip
    subprocess.run(argv, cwd=REPO, env={"PYTHONPATH": str(REPO)}, check=False, timeout=300)
    got = json.loads((tmp_path / "result.json").read_text())
    assert got["status"] == "exited" and "sys.exit(4)" in got["message"]


@pytest.mark.slow
def test_check_diagnoses_exit_4_at_import_as_the_files_own_exit(tmp_path):
    with pytest.raises(InputError) as exc:
        check(WIDE, WIDE, inputs=DATA / "exit4.py", shapes=[{"programs": 2}])
    text = exc.value.render()
    assert "sys.exit(4)" in text and "define kernelpilot_inputs" not in text, text


def test_dump_ir_diagnoses_exit_4_at_import_as_the_files_own_exit():
    with pytest.raises(KernelpilotError) as exc:
        dump_ir(DATA / "exit4.py", "gfx942", frontend="triton")
    assert "sys.exit(4)" in exc.value.render()


# A segment sum whose example arguments do not fit its grid: 8 programs, each reading its length lens[pid], but
# lens holds 2. AFTER loads the next tile a step early (the prefetch rewrite); both read lens[2..7] past its 8 bytes.
SEGMENTS = """
import torch
import triton
import triton.language as tl


@triton.jit
def seg_sum(lens_ptr, x_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    n = tl.minimum(tl.load(lens_ptr + pid), tl.load(lens_ptr + pid + EXTRA))
    acc = tl.zeros([BLOCK], tl.float32)
    BODY
    tl.store(out_ptr + pid * BLOCK + offs, acc)


def kernelpilot_entry():
    lens = torch.tensor([1, 2], dtype=torch.int32)
    return {"kernel": seg_sum, "args": (lens, torch.randn(2 * 64), torch.zeros(8 * 64)),
            "kwargs": {"BLOCK": 64, "num_warps": 1}, "grid": (8,)}
"""
PLAIN_LOOP = """for i in range(0, n):
        acc += tl.load(x_ptr + i * BLOCK + offs)"""
PREFETCHED_LOOP = """cur = tl.load(x_ptr + offs, mask=n > 0, other=0.0)
    for i in range(1, n + 1):
        nxt = tl.load(x_ptr + i * BLOCK + offs, mask=i < n, other=0.0)
        acc += cur
        cur = nxt"""


@pytest.fixture(scope="module")
def segments(tmp_path_factory):
    folder = tmp_path_factory.mktemp("segments")
    files = {}
    for name, body, extra in [("before", PLAIN_LOOP, 0), ("after", PREFETCHED_LOOP, 0),
                              ("after_reads_further", PREFETCHED_LOOP, 1)]:  # fmt: skip
        files[name] = folder / f"{name}.py"
        files[name].write_text(SEGMENTS.replace("BODY", body).replace("EXTRA", str(extra)))
    return files


@pytest.mark.slow
def test_the_same_reads_past_a_tensor_on_both_sides_are_an_input_error_naming_it_not_after(segments, capsys):
    code = main(["check", str(segments["before"]), str(segments["after"])])
    err = capsys.readouterr().err
    # lens_ptr: 2 int32 (8 B); program 7 reads lens[7] at byte 28, on both sides: the entry's fault, exit 2
    assert code == 2, err
    assert (
        "BEFORE and AFTER both make the same loads past 'lens_ptr' (2 × int32, 8 B) up to index 7 (byte offset 28)"
        in err
    )
    assert "hint: make kernelpilot_entry (or kernelpilot_inputs) pass 'lens_ptr' of at least 8 elements" in err
    assert "DIFFERENT" not in err and "AFTER: past-allocation" not in err


@pytest.mark.slow
def test_verify_leaves_such_a_pair_unchecked_instead_of_incorrect(segments):
    from tools.outcome import check_correctness

    got = check_correctness(segments["before"], segments["after"], "gfx942")
    assert (got.checked, got.ok) == (False, None), got.note
    assert got.note.startswith("correctness not checked: check: the example arguments do not fit the kernels")


@pytest.mark.slow
def test_after_reading_further_past_the_tensor_than_before_is_still_after_s_fault(segments):
    rep = check(segments["before"], segments["after_reads_further"])
    # AFTER also reads lens[pid + 1]: lens[8] (byte 32) is past anything BEFORE reads, so that access is AFTER's own
    assert rep.verdict == "different" and rep.reason.startswith("AFTER: past-allocation load of 4 B"), rep.reason
    tops = {e.kernel: e.max_offset for e in rep.cases[0].events if e.kind == "past-allocation"}
    assert tops == {"before": 28, "after": 32}
