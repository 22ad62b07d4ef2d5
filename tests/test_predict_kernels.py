"""The speed model's validation set: the kernel pairs in benchmarks/predict_kernels compile for sm_90, and
the CPU side of benchmarks/predict_collect.py (variants, patches, launch records, artifacts) does what
benchmarks/predict_data/FORMAT.md says. The GPU side runs on the device (benchmarks/predict_device.sh)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.catalog import load_tasks

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "benchmarks" / "predict_kernels"
VARIANT_FILES = sorted(KERNELS.glob("*__*.py"))


def _collector():
    spec = importlib.util.spec_from_file_location("predict_collect", REPO / "benchmarks" / "predict_collect.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["predict_collect"] = mod
    spec.loader.exec_module(mod)
    return mod


pc = _collector()


def test_every_gpu_runtime_task_gives_baseline_reference_noop():
    variants = pc.enumerate_variants()
    tasks = [d.name for d, _ in pc.gpu_runtime_tasks()]
    # the gpu-runtime track as shipped: the 16 tasks of the H100 data, and the open-ended ones added since
    assert len(tasks) == len(load_tasks(["gpu-runtime"])) >= 16
    names = {v.name for v in variants}
    for t in tasks:
        assert {f"task.{t}.baseline", f"task.{t}.reference", f"task.{t}.noop"} <= names
    cuda = {v.group for v in variants if v.language == "cuda"}
    # the six tasks with a loader.py build kernel.cu with nvcc
    assert cuda == {
        "axpby-loads-in-flight",
        "fir-local-memory",
        "gemv-warp-per-row",
        "histogram-privatize",
        "sgemm-register-tiling",
        "transpose-smem",
    }


def test_kernel_pairs_are_at_least_ten_with_a_before_each_and_forty_pairs_in_all():
    pairs = pc.pair_files()
    assert len(pairs) >= 10
    for name, roles in pairs.items():
        assert roles[0][0] == "before", name  # before sorts first
        assert len(roles) >= 2, name
    all_pairs = pc.variant_pairs(pc.enumerate_variants(families_dir=None))
    # every gpu-runtime task x (reference, noop), plus one before->after per extra role of each kernel pair
    expected = 2 * len(load_tasks(["gpu-runtime"])) + sum(len(r) - 1 for r in pairs.values())
    assert len(all_pairs) == expected >= 40
    kinds = {p["kind"] for p in all_pairs}
    assert kinds == {"baseline->reference", "baseline->noop", "before->after"}


def test_reference_copy_has_the_solution_patch_applied(tmp_path):
    task = REPO / "evals" / "tasks" / "axpby-loads-in-flight"
    base = pc.task_code_dir(task, "baseline", tmp_path)
    ref = pc.task_code_dir(task, "reference", tmp_path)
    noop = pc.task_code_dir(task, "noop", tmp_path)
    shipped = (task / "workspace" / "kernel.cu").read_text()
    assert (base / "kernel.cu").read_text() == shipped == (noop / "kernel.cu").read_text()
    assert (ref / "kernel.cu").read_text() != shipped  # solution.patch edits kernel.cu
    assert base != noop  # the noop is built from its own copy


def test_a_broken_patch_is_reported_with_the_task(tmp_path):
    tasks = tmp_path / "tasks" / "t"
    (tasks / "workspace").mkdir(parents=True)
    (tasks / "workspace" / "kernel.py").write_text("x = 1\n")
    (tasks / "solution.patch").write_text("--- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-a\n+b\n")
    with pytest.raises(RuntimeError, match="git apply t/solution.patch failed"):
        pc.task_code_dir(tasks, "reference", tmp_path / "out")


def _compile_rowsum(tmp_path, monkeypatch, num_warps):
    """rowsum_warps' kernel compiled for sm_90 on this CPU through Triton's JIT binder, into a fresh cache."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(KERNELS))
    import rowsum_kernels

    from tools.frontends._triton_jit import compile_example

    spec = rowsum_kernels.entry(num_warps)
    compiled, _ = compile_example(spec, "sm_90")
    return spec, compiled


def test_launch_record_has_the_launch_figures_format_md_names(tmp_path, monkeypatch):
    spec, compiled = _compile_rowsum(tmp_path, monkeypatch, 4)
    rec = pc.triton_launch_record(spec["kernel"], spec["args"], spec["kwargs"], spec["grid"], compiled)
    assert rec["kernel"] == "row_sum_kernel"
    assert rec["grid"] == [16384, 1, 1]  # one program per row, padded to 3 dimensions
    assert rec["block"] == [128, 1, 1] and rec["num_warps"] == 4  # 4 warps x 32 threads
    assert rec["constexprs"] == {"BLOCK": 1024}
    x, y, n = rec["args"]
    assert x == {
        "name": "x_ptr",
        "kind": "tensor",
        "shape": [16384, 4096],
        "dtype": "float32",
        "nbytes": 16384 * 4096 * 4,  # 256 MiB read once
        "stride": [4096, 1],
        "values": None,  # a float tensor's elements are data, never recorded (an int tensor of <= 1024: its values)
        "hottest": None,  # nor counted (a larger int tensor: its most common value's and line's counts)
    }
    assert y["nbytes"] == 16384 * 4
    assert n == {"name": "N", "kind": "scalar", "value": 4096}
    assert rec["hash"] == compiled.hash and rec["capture"] == "triton-jit"


def test_a_small_integer_tensor_is_recorded_with_its_values():
    import torch

    # a batch's lengths (a loop bound the kernel loads): its elements, so the predictor can evaluate the bound
    assert pc.small_int_values(torch.tensor([[7, 8], [9, 10]], dtype=torch.int32)) == [7, 8, 9, 10]
    assert pc.small_int_values(torch.zeros(pc.MAX_VALUES + 1, dtype=torch.int64)) is None  # a table: too many
    assert pc.small_int_values(torch.ones(4)) is None  # floats are data


def test_a_larger_integer_tensor_is_recorded_with_its_hottest_value_and_line_counts():
    import torch

    # histogram indices: 3000 elements, 2000 of them 5, the rest 40..1039: value 5 holds 2000, and the line of 4-byte
    # elements 32..63 (value // 32 == 1) holds 24 of the rest; with 5 in line 0 of every width it tops every count
    idx = torch.cat([torch.full((2000,), 5), torch.arange(40, 1040)]).to(torch.int32)
    rec = pc.describe_value("x_ptr", idx)
    assert rec["values"] is None and rec["hottest"] == {"1": 2000, "16": 2000, "32": 2000, "64": 2024, "128": 2088}
    assert pc.describe_value("y", torch.ones(3000))["hottest"] is None  # floats are data
    assert pc.describe_value("z", torch.arange(7))["hottest"] is None  # small: its values are recorded instead


def test_grid_lambda_is_evaluated_on_the_bound_arguments(tmp_path, monkeypatch):
    spec, compiled = _compile_rowsum(tmp_path, monkeypatch, 1)
    rec = pc.triton_launch_record(
        spec["kernel"], spec["args"], spec["kwargs"], lambda meta: (meta["N"] // meta["BLOCK"], 2), compiled
    )
    assert rec["grid"] == [4, 2, 1]  # N=4096 / BLOCK=1024


def test_artifacts_and_meta_are_written_as_format_md_says(tmp_path, monkeypatch):
    spec, compiled = _compile_rowsum(tmp_path, monkeypatch, 8)
    rec = pc.triton_launch_record(spec["kernel"], spec["args"], spec["kwargs"], spec["grid"], compiled)
    folder = tmp_path / "pair.rowsum_warps.after_w8"
    launches = [rec, dict(rec)]  # the same compiled kernel launched twice: its files are saved once
    pc.save_launch_artifacts(launches, folder)
    rel = f"triton/{compiled.hash}"
    assert [launch["index"] for launch in launches] == [0, 1]
    assert launches[0]["artifacts"] == launches[1]["artifacts"] == rel
    files = launches[0]["files"]
    assert set(files) == {"ttir", "ttgir", "llir", "ptx", "cubin", "json", "sass"}
    for path in files.values():
        assert (folder / path).is_file()
    sass = (folder / files["sass"]).read_text()
    assert "row_sum_kernel" in sass and "LDG" in sass  # nvdisasm of the sm_90 cubin
    combined = (folder / "kernel.sass").read_text()
    assert combined.startswith(f"// ==== launch 0: row_sum_kernel ({rel})")
    assert combined.count("// ==== launch") == 1
    meta = json.loads((folder / launches[0]["files"]["json"]).read_text())
    assert meta["num_warps"] == 8
    pc.write_json(folder / "meta.json", {"launches": launches})
    assert json.loads((folder / "meta.json").read_text())["launches"][1]["files"]["cubin"].endswith(".cubin")


def test_profiler_kernels_merge_with_triton_records_in_launch_order():
    recorded = [{"kernel": "k_split", "grid": [4, 1, 1], "capture": "triton-jit"}]
    trace = {
        "traceEvents": [
            {"cat": "kernel", "name": "k_split", "ts": 20, "dur": 30.5,
             "args": {"grid": [4, 1, 1], "block": [128, 1, 1], "registers per thread": 40, "shared memory": 0}},
            {"cat": "gpu_memset", "name": "Memset (Device)", "ts": 10, "dur": 1.0, "args": {}},
            {"cat": "cpu_op", "name": "aten::zeros", "ts": 5, "dur": 9.0, "args": {}},
        ]
    }  # fmt: skip
    traced = pc.trace_kernels(trace)
    assert [(t["kernel"], t["op"]) for t in traced] == [("Memset (Device)", "memset"), ("k_split", "kernel")]
    merged = pc.merge_launches(traced, recorded)
    assert [m["capture"] for m in merged] == ["profiler", "triton-jit"]
    assert merged[1]["registers"] == 40 and merged[1]["profiled_us"] == 30.5
    assert pc.merge_launches([], recorded) == recorded


def test_list_mode_needs_no_gpu():
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "predict_collect.py"), "--list"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert out.returncode == 0, out.stderr
    # every gpu-runtime task x 3 roles, every pair file, and every generated corpus (benchmarks/predict_families)
    sys.path.insert(0, str(REPO / "benchmarks" / "predict_families"))
    import registry

    n = len(VARIANT_FILES) + 3 * len(load_tasks(["gpu-runtime"]))
    n += sum(len(pc.gen_variants(corpus=c)) for c in registry.CORPORA)
    assert {"gen", "hold", "fresh", "skew", "cross"} <= set(registry.CORPORA)
    assert out.stdout.strip().splitlines()[-1].startswith(f"{n} variants")


@pytest.mark.slow
@pytest.mark.parametrize("path", VARIANT_FILES, ids=lambda p: p.stem)
def test_kernel_file_compiles_for_sm_90(path):
    # in-process (the compile still runs in dump-ir's own child): the CLI around it is tested elsewhere
    from tools.dump_ir import dump_ir

    result = dump_ir(path, "sm_90", timeout=600)
    assert result.kernels, path.name
    for k in result.kernels:
        assert k.launch is not None and k.launch.grid, k.name  # the example launch carries its grid


def test_cuda_artifacts_keep_the_cubins_that_hold_code(tmp_path, monkeypatch):
    # The H100 run of 2026-11-25 kept the first cubin cuobjdump extracted from axpby's .so: 1528 bytes, no function
    # (its SASS is 3 lines), so no CUDA variant could be predicted. Beside a real sm_90 cubin, it is now dropped.
    import tarfile

    with tarfile.open(REPO / "benchmarks" / "predict_data" / "h100-2026-11-25.tgz", "r:gz") as tar:
        member = tar.getmember("predict_data/task.axpby-loads-in-flight.baseline/cuda/kernel.cubin")
        (tmp_path / "a_empty.cubin").write_bytes(tar.extractfile(member).read())
    _, compiled = _compile_rowsum(tmp_path, monkeypatch, 4)
    (tmp_path / "b_code.cubin").write_bytes(compiled.asm["cubin"])
    kept = pc.code_cubins([tmp_path / "a_empty.cubin", tmp_path / "b_code.cubin"])
    assert [c.name for c, _ in kept] == ["b_code.cubin"]
    assert "row_sum_kernel" in kept[0][1]
    assert pc.code_cubins([tmp_path / "a_empty.cubin"]) == []
