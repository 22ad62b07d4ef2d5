"""An sm_90 cubin that uses all 255 registers (tests/data/sm90/full_register_file.py, compiled here by Triton 3.9):
dump-ir and vgpr-pressure read it, and its spill bytes come from the SASS where ptxas -v is not kept.

nvdisasm's life-range listing refuses a function declaring 255 registers ("Invalid register count : '255'") though
ptxas gives up to 255 (R0-R254; R255 is RZ). The listing is made from a copy declaring 254: its columns follow the
registers the instructions name, so nothing is lost.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools.dump_ir import dump_ir
from tools.frontends.nvidia import ptxas_info, write_sass
from tools.isa import sass
from tools.toolchain import nvidia_tool
from tools.vgpr_pressure import analyze_path

KERNEL = Path(__file__).resolve().parent / "data" / "sm90" / "full_register_file.py"

# The 255-register kernel takes a while to compile: its tests are slow; the fast lane keeps one test of the 254-copy
# fallback on a small cubin declared to use 255 registers.
slow = pytest.mark.slow


@pytest.fixture(scope="module")
def wide():
    if not nvidia_tool("nvdisasm"):
        pytest.skip("no nvdisasm (CUDA toolkit or Triton's wheel)")
    return dump_ir(KERNEL, "sm_90").kernels[0]


def _metric(report, name):
    return next(m.value for m in report.metrics if m.name == name)


@slow
def test_the_cubin_declares_255_registers_and_nvdisasm_refuses_its_life_ranges(wide):
    data = Path(wide.binary).read_bytes()
    assert [n for _, n in sass.register_count_fields(data)] == [255]
    plr = subprocess.run(
        [nvidia_tool("nvdisasm"), "--print-life-ranges", "--life-range-mode", "narrow", "-c", wide.binary],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert plr.returncode != 0 and "Invalid register count : '255'" in plr.stderr


@slow
def test_vgpr_pressure_reads_the_255_register_cubin(wide):
    r = analyze_path(wide.binary).reports[0]
    assert (r.kernel, r.arch, _metric(r, "registers_per_thread")) == ("wide_softmax", "sm_90", 255)
    # every register the code names is live at the peak: R0-R252 = 253 (ptxas's count of 255 leaves R253-R254 unused)
    assert _metric(r, "max_live_gprs") == 253
    # the same spill bytes dump-ir reports, from the same SASS
    assert (_metric(r, "spill_store_bytes"), _metric(r, "spill_load_bytes")) == (776, 784)
    assert "255 registers/thread, 528 B stack frame, 776 B spill stores / 784 B spill loads" in r.summary


@slow
def test_vgpr_pressure_on_the_kernel_file(wide):
    r = analyze_path(KERNEL, arch="sm_90").reports[0]
    assert _metric(r, "registers_per_thread") == 255 and _metric(r, "max_live_gprs") == 253


@slow
def test_dump_ir_fills_spill_bytes_from_the_sass(wide):
    res = wide.resources
    # Triton keeps no ptxas -v log; the SASS has 174 STL + 10 STL.64 = 174 x 4 + 10 x 8 = 776 B stored and
    # 184 LDL/LDL.LU + 6 LDL.LU.64 = 184 x 4 + 6 x 8 = 784 B loaded
    assert (res.registers_per_thread, res.spill_store_bytes, res.spill_load_bytes) == (255, 776, 784)
    assert res.stack_frame_bytes == 528
    assert "spill bytes from the SASS: 184 STL = 776 B stored, 190 LDL = 784 B loaded" in res.notes[0]


@slow
def test_sass_spill_bytes_are_what_ptxas_v_reports(wide, tmp_path):
    # The rule checked against ptxas itself: assemble the kept PTX with Triton's ptxas -v and count its SASS.
    from triton.backends.nvidia.compiler import get_ptxas

    ptx = next(s.path for s in wide.stages if s.path.endswith(".ptx"))
    cubin = tmp_path / "again.cubin"
    run = subprocess.run(
        [get_ptxas(90).path, "-v", "-arch=sm_90a", ptx, "-o", str(cubin)], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    info = ptxas_info(run.stderr + run.stdout)["wide_softmax"]
    (f,) = sass.parse_sass(write_sass(cubin, tmp_path / "again.sass").read_text())
    assert sass.local_memory_bytes(f.insts) == (info["spill_stores"], info["spill_loads"])
    assert info["spill_stores"] > 0


@slow
def test_a_recorded_cubin_gets_its_spill_bytes_from_its_sass(wide, tmp_path):
    # the GPU machine's variant folder (benchmarks/predict_data/FORMAT.md): its cubin and SASS, no ptxas log
    import json
    import shutil

    from tools.predict.artifacts import read_variant

    for key in ("cubin", "sass"):
        src = wide.binary if key == "cubin" else wide.final_isa
        shutil.copy(src, tmp_path / f"kernel.{key}")
    launch = {"kernel": "wide_softmax", "grid": [1], "num_warps": 4, "shared": 0,
              "files": {"cubin": "kernel.cubin", "sass": "kernel.sass"}}  # fmt: skip
    (tmp_path / "meta.json").write_text(json.dumps({"format": 1, "launches": [launch]}))
    (k,) = read_variant(tmp_path, "sm_90")
    # the same 776 B stored / 784 B loaded dump-ir reads from this SASS (registers from the cubin: no figure given)
    assert (k.resources.registers_per_thread, k.resources.spill_store_bytes, k.resources.spill_load_bytes) == (
        255,
        776,
        784,
    )
    launch["registers"] = 255  # the profiler's register figure: the spills still come from the SASS
    (tmp_path / "meta.json").write_text(json.dumps({"format": 1, "launches": [launch]}))
    (k,) = read_variant(tmp_path, "sm_90")
    assert (k.resources.spill_store_bytes, k.resources.spill_load_bytes) == (776, 784)


def test_a_small_cubin_declaring_255_registers_is_read_through_the_254_copy(tmp_path):
    # vector_add's cubin (26 registers) with its EIATTR_REGCOUNT set to 255: nvdisasm refuses its life ranges, and
    # vgpr-pressure still reads it, reporting the 255 the cubin declares and the registers its code names
    if not nvidia_tool("nvdisasm"):
        pytest.skip("no nvdisasm (CUDA toolkit or Triton's wheel)")
    small = dump_ir(KERNEL.parents[3] / "examples" / "triton" / "vector_add.py", "sm_90").kernels[0]
    data = bytearray(Path(small.binary).read_bytes())
    fields = sass.register_count_fields(bytes(data))
    assert [n for _, n in fields] == [26]
    for at, _ in fields:
        data[at : at + 4] = (255).to_bytes(4, "little")
    declared = tmp_path / "vector_add_255.cubin"
    declared.write_bytes(bytes(data))
    plr = subprocess.run(
        [nvidia_tool("nvdisasm"), "--print-life-ranges", "--life-range-mode", "narrow", "-c", str(declared)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert plr.returncode != 0 and "Invalid register count : '255'" in plr.stderr
    wide, plain = analyze_path(declared).reports[0], analyze_path(small.binary).reports[0]
    assert (_metric(wide, "registers_per_thread"), _metric(plain, "registers_per_thread")) == (255, 26)
    assert _metric(wide, "max_live_gprs") == _metric(plain, "max_live_gprs") > 0
    assert "255 registers/thread" in wide.summary
