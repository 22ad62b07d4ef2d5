"""Profiler command lines (exact argument lists) and the failures a user meets when running them."""

from __future__ import annotations

import shutil

import pytest

from tools.errors import InputError, ToolchainError
from tools.executors import Executor, fetch_tree
from tools.kernel_trace import _check_run, detect_profiler, profile_command
from tools.profilers.ncu import ncu_export_command, ncu_profile_command
from tools.profilers.rocprofv3 import att_input_yaml, rocprofv3_command


def test_rocprofv3_kernel_trace_command():
    argv = rocprofv3_command(
        ["python3", "bench.py", "--n", "4"], "/tmp/o", kernel_regex="gemm", iterations=(5, 10), output_format="rocpd"
    )
    assert argv == [
        "rocprofv3", "--kernel-trace", "--stats", "--kernel-include-regex", "gemm",
        "--kernel-iteration-range", "[5-14]", "-d", "/tmp/o", "-o", "kp", "-f", "rocpd",
        "--", "python3", "bench.py", "--n", "4",
    ]  # fmt: skip


def test_rocprofv3_att_command():
    argv = rocprofv3_command(
        ["./app"], "out", att=True, att_target_cu=1, att_shader_engine_mask="0x1", att_buffer_size="256MB"
    )
    assert argv == [
        "rocprofv3", "--kernel-trace", "--stats", "--att", "--att-target-cu", "1",
        "--att-shader-engine-mask", "0x1", "--att-buffer-size", "256MB",
        "-d", "out", "-o", "kp", "-f", "csv", "--", "./app",
    ]  # fmt: skip
    assert rocprofv3_command(["./app"], "out", input_file="in.yaml") == [
        "rocprofv3", "-i", "in.yaml", "-d", "out", "-o", "kp", "-f", "csv", "--", "./app",
    ]  # fmt: skip


def test_att_input_yaml():
    assert att_input_yaml("softmax") == (
        "jobs:\n  -\n    kernel_trace: true\n    advanced_thread_trace: true\n    att_target_cu: 1\n"
        '    att_buffer_size: 0x6000000\n    output_format: [csv]\n    kernel_include_regex: "softmax"\n'
    )


def test_bad_profiler_options():
    with pytest.raises(InputError, match="no command"):
        rocprofv3_command([], "o")
    with pytest.raises(InputError, match="unknown rocprofv3 output format"):
        rocprofv3_command(["a"], "o", output_format="pftrace")


def test_ncu_commands():
    assert ncu_profile_command(["python3", "t.py"], "/tmp/r", kernel_regex="softmax", launch_skip=2) == [
        "ncu", "-f", "-o", "/tmp/r", "--section", "SourceCounters", "--section", "SpeedOfLight",
        "--section", "LaunchStats", "--section", "Occupancy", "--section", "WarpStateStats",
        "--import-source", "yes", "-k", "regex:softmax", "-s", "2", "-c", "1", "python3", "t.py",
    ]  # fmt: skip
    assert ncu_export_command("r.ncu-rep", "source") == [
        "ncu", "--import", "r.ncu-rep", "--csv", "--page", "source", "--print-source", "sass",
    ]  # fmt: skip
    assert ncu_export_command("r.ncu-rep", "raw")[-2:] == ["--print-units", "base"]


def test_commands_through_ssh_and_docker():
    argv = rocprofv3_command(["python3", "b.py", "--name", "a b"], "/tmp/o")
    assert Executor.parse("ssh:mi300").wrap(argv) == [
        "ssh", "mi300",
        "rocprofv3 --kernel-trace --stats -d /tmp/o -o kp -f csv -- python3 b.py --name 'a b'",
    ]  # fmt: skip
    assert Executor.parse("docker:rocm").wrap(argv)[:3] == ["docker", "exec", "rocm"]
    assert Executor.parse("docker:rocm").wrap(argv)[3:] == argv


@pytest.mark.skipif(bool(shutil.which("rocprofv3") or shutil.which("ncu")), reason="a profiler is installed here")
def test_missing_profiler_is_a_toolchain_error(tmp_path):
    with pytest.raises(ToolchainError, match="neither rocprofv3 nor ncu") as exc:
        detect_profiler(Executor())
    assert "rocprofiler-sdk" in exc.value.hint and "Nsight Compute" in exc.value.hint
    with pytest.raises(ToolchainError, match="cannot run 'rocprofv3': not found"):
        profile_command(["true"], profiler="rocprofv3", output_dir=tmp_path)


def test_failing_and_hanging_commands():
    failed = Executor().run(["sh", "-c", "echo boom >&2; exit 3"], timeout=10)
    with pytest.raises(ToolchainError, match="exit code 3") as exc:
        _check_run(failed, "rocprofv3", 10)
    assert "boom" in exc.value.details
    hung = Executor().run(["sleep", "5"], timeout=0.3)
    with pytest.raises(ToolchainError, match="timed out after 0 s"):
        _check_run(hung, "ncu", 0.3)


def test_fetch_tree_local_is_in_place(tmp_path):
    assert fetch_tree(Executor(), str(tmp_path), tmp_path / "copy") == tmp_path
