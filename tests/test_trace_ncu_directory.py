"""kernel-trace --from an ncu output directory (the real H100 exports in tests/data/ncu; ncu itself cannot run
here): the kernel, its duration and metrics read, a profile of only PyTorch's set-up kernels warned about, and
--clock-control passed through."""

from __future__ import annotations

from pathlib import Path

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
