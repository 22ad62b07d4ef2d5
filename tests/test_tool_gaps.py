"""Tool gaps agents hit (issue 23 §3): dump-ir's frontend detection through the modules an entry imports, and
vgpr-pressure --diff on NVIDIA dump directories."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.errors import InputError
from tools.frontends import detect_frontend

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)


def kernelpilot_entry():
    import torch

    return {"kernel": add_one, "args": (torch.empty(256),), "kwargs": {"BLOCK": 256}, "grid": (1,)}
"""

WRAPPER = """
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import kernel  # noqa: E402


def kernelpilot_entry():
    return kernel.kernelpilot_entry()
"""


def _scratch(tmp: Path) -> Path:
    """kernel.py and scratch/entry.py that imports it (not triton) — the way agents write wrappers."""
    (tmp / "kernel.py").write_text(KERNEL)
    (tmp / "scratch").mkdir()
    entry = tmp / "scratch" / "entry.py"
    entry.write_text(WRAPPER)
    return entry


def test_an_entry_importing_the_kernel_module_is_triton(tmp_path):
    # Before: "entry.py imports neither flydsl nor triton" unless --frontend triton.
    assert detect_frontend(_scratch(tmp_path)) == "triton"


def test_a_file_importing_no_kernel_language_is_still_refused(tmp_path):
    (tmp_path / "helper.py").write_text("import math\n")
    entry = tmp_path / "entry.py"
    entry.write_text("import helper\nimport json\n")
    with pytest.raises(InputError, match="imports neither flydsl nor triton"):
        detect_frontend(entry)


@pytest.mark.slow
def test_dump_ir_compiles_the_wrapped_kernel(tmp_path):
    from tools.dump_ir import dump_ir

    result = dump_ir(_scratch(tmp_path), "gfx942")
    assert [k.name for k in result.kernels] == ["add_one"]


@pytest.mark.slow
def test_vgpr_pressure_diff_reads_an_sm90_dump_directory(tmp_path):
    # dump-ir's sm_90 directory holds NN_sass.sass and NN_cubin.cubin, no AMDGCN: before, "contains no ISA files".
    # Now the cubins are read (nvdisasm's life ranges), and BLOCK 256 → 1024 shows in the registers per thread.
    from tools.dump_ir import dump_ir
    from tools.vgpr_pressure import analyze_path, diff_reports

    dirs = []
    for block in (256, 1024):
        src = tmp_path / f"k{block}" / "kernel.py"
        src.parent.mkdir()
        src.write_text(KERNEL.replace('"BLOCK": 256', f'"BLOCK": {block}').replace("empty(256)", f"empty({block})"))
        out = tmp_path / f"dump{block}"
        dump_ir(src, "sm_90", out=out)
        assert not list(out.rglob("*.s")) and list(out.rglob("*.cubin"))
        dirs.append(out)
    before, after = analyze_path(dirs[0]), analyze_path(dirs[1])
    assert [r.kernel for r in before.reports] == ["add_one"] and before.reports[0].vendor == "nvidia"
    d = diff_reports(before, after)
    # 256 floats over 128 threads = 2 per thread (one 8-byte load); 1024 = 8 per thread (two 16-byte loads): ptxas
    # gives 8 → 14 registers and the live peak goes 5 → 11, no regression past the threshold
    assert d.summary == "add_one: ok (registers_per_thread 8→14, max_live_gprs 5→11)"


# --- kernel-trace and ncu (the real H100 exports in tests/data/ncu; ncu itself cannot run here) ---------------------

NCU = Path(__file__).resolve().parent / "data" / "ncu"
RNG_KERNEL = (
    "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, "
    "at::native::templates::cuda::normal_and_transform<float, float, at::CUDAGeneratorImpl *>>"
)


def _ncu_dir(tmp: Path, rename: str | None = None) -> Path:
    """A kernel-trace --profiler ncu output directory: its three exports under the names it writes them."""
    out = tmp / "trace"
    out.mkdir()
    for page, fixture in (("details", "details"), ("source", "source_sass"), ("raw", "raw")):
        text = (NCU / f"h100_triton_softmax_{fixture}.csv").read_text()
        (out / f"ncu_{page}.csv").write_text(text.replace("softmax_kernel", rename) if rename else text)
    return out


def test_kernel_trace_from_reads_an_ncu_output_directory(tmp_path, capsys):
    # Before: "not an ATT output directory". The details page gives the kernel and its duration (gpu__time_duration
    # 11,360 ns), the source page the SASS samples, the raw page the headline metrics.
    from tools.cli import main

    assert main(["kernel-trace", "--from", str(_ncu_dir(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "1 dispatches of 1 kernels" in out and "softmax_kernel x1, 11360 ns (100.0%)" in out
    assert "gpu__time_duration.sum: 11,360 ns" in out
    assert "note: ncu profiled 1 launch(es) of 1 kernel(s): softmax_kernel" in out
    assert "unless it ran with --clock-control none" in out  # how ncu ran is not in the exports
    assert "warning:" not in out


def test_a_profile_of_only_pytorch_set_up_kernels_is_warned_about(tmp_path):
    # The same exports with the kernel renamed to the one torch.randn launches on CUDA: what `--profiler ncu -- python3
    # run.py` without --kernel profiled (ncu -c 1 takes the first launch, the input set-up).
    from tools.kernel_trace.report import summarize_trace

    report = summarize_trace(_ncu_dir(tmp_path, rename=RNG_KERNEL))
    assert len(report.warnings) == 1 and "PyTorch-internal kernel" in report.warnings[0]
    assert "--kernel" in report.warnings[0]
    # with --kernel naming it, the user asked for that kernel: no warning
    (tmp_path / "k").mkdir()
    assert summarize_trace(_ncu_dir(tmp_path / "k", rename=RNG_KERNEL), kernel_regex="distribution").warnings == []


def test_ncu_clock_control_is_passed_through():
    from tools.profilers.ncu import ncu_profile_command

    base = ncu_profile_command(["python3", "run.py"], "R")
    assert "--clock-control" not in base  # ncu's default (base): nothing to add
    argv = ncu_profile_command(["python3", "run.py"], "R", clock_control="none")
    assert argv[argv.index("--clock-control") + 1] == "none" and argv[-2:] == ["python3", "run.py"]
