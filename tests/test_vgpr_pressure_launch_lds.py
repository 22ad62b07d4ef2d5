"""vgpr-pressure counts the LDS / shared memory a launch allocates, as dump-ir does.

Triton allocates its shared memory at launch (``metadata.shared``): the ISA's static group segment (AMD) or
cuobjdump's SHARED (NVIDIA) leave it out, so occupancy must be computed from the launch figure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.inputs import UNKNOWN_LAUNCH_LDS_NOTE
from tools.vgpr_pressure import analyze_path

TRITON_DOT = Path(__file__).resolve().parents[1] / "examples" / "prefetch" / "triton_dot" / "prefetched.py"


def _m(report, name):
    return report.metric(name)


def test_triton_file_on_gfx942_counts_the_lds_allocated_at_launch():
    pytest.importorskip("triton")
    from tools.dump_ir import dump_ir

    r = analyze_path(TRITON_DOT, arch="gfx942").reports[0]
    dumped = dump_ir(TRITON_DOT, "gfx942").kernels[0].resources
    # the TTGIR allocates two memdesc<2x32x32xf16> (A and B, 2 buffers of 2 KiB each): 2 x 4096 = 8192 B, all
    # allocated at launch (the binary declares 0 B) — the figure dump-ir prints.
    assert _m(r, "lds_bytes").value == 8192 == dumped.lds_bytes
    assert "0 B the binary declares + 8192 B the launch allocates" in _m(r, "lds_bytes").note
    # one occupancy function: the same waves and the same account of every limit as dump-ir, the lds limit included
    assert _m(r, "waves_per_simd").value == dumped.waves_per_simd == 8
    assert "lds 8 (8192 B per 256-thread workgroup of 65536 B per CU)" in _m(r, "waves_per_simd").note
    assert UNKNOWN_LAUNCH_LDS_NOTE not in r.notes


@pytest.mark.slow
def test_triton_file_on_sm90_counts_the_shared_memory_allocated_at_launch():
    pytest.importorskip("triton")
    from tools import toolchain
    from tools.dump_ir import dump_ir

    try:
        toolchain.find_tool("nvdisasm")
    except Exception:
        pytest.skip("no nvdisasm")
    r = analyze_path(TRITON_DOT, arch="sm_90").reports[0]
    dumped = dump_ir(TRITON_DOT, "sm_90").kernels[0].resources
    # cuobjdump's SHARED is 1024 on sm_90 (the driver's per-block reservation); the launch adds Triton's 8192 B
    assert _m(r, "shared_bytes").value == 9216 == dumped.lds_bytes
    assert _m(r, "shared_bytes").note == "at launch: 1024 B the cubin declares + 8192 B the launch allocates (dump-ir)"
    assert _m(r, "occupancy_warps_per_sm").value == dumped.occupancy_warps_per_sm


def _triton_cache_isa(cache: Path, monkeypatch) -> Path:
    """Compile the dot kernel for gfx942 into a fresh Triton cache; its ``dot_loop_kernel.amdgcn`` sits beside
    Triton's ``dot_loop_kernel.json`` (same stem), as in ~/.triton/cache."""
    triton = pytest.importorskip("triton")
    import importlib.util

    from triton.backends.compiler import GPUTarget

    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))
    spec = importlib.util.spec_from_file_location("triton_dot_prefetched", TRITON_DOT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    src = triton.compiler.ASTSource(
        fn=mod.dot_loop_kernel,
        signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "N": "i32", "K": "i32"},
        constexprs={"BM": 32, "BN": 32, "BK": 32},
    )
    triton.compile(src, target=GPUTarget("hip", "gfx942", 64), options={"num_warps": 4, "num_stages": 3})
    (isa,) = cache.glob("*/dot_loop_kernel.amdgcn")
    assert isa.with_suffix(".json").is_file()
    return isa


@pytest.mark.slow
def test_isa_file_in_a_triton_cache_takes_the_launch_lds_from_its_json(tmp_path, monkeypatch, capsys):
    isa = _triton_cache_isa(tmp_path / "cache", monkeypatch)
    r = analyze_path(isa).reports[0]
    # Without the JIT's alignment specialisation the loads are not pipelined: A and B each pass through one
    # 32x32 f16 LDS tile (2048 B) one after the other, and Triton's allocator gives them the same 2048 B.
    assert _m(r, "lds_bytes").value == 2048
    assert _m(r, "lds_bytes").note.endswith("+ 2048 B the launch allocates (dot_loop_kernel.json)")
    assert UNKNOWN_LAUNCH_LDS_NOTE not in r.notes

    from tools.cli import main

    # stated on the command line, it wins over the json
    assert main(["vgpr-pressure", str(isa), "--launch-lds", "16384"]) == 0
    assert "lds_bytes=16384" in capsys.readouterr().out

    # without the json, the ISA alone declares no LDS: the report says the launch figure is unknown
    isa.with_suffix(".json").unlink()
    r = analyze_path(isa).reports[0]
    assert _m(r, "lds_bytes").value == 0
    assert UNKNOWN_LAUNCH_LDS_NOTE in r.notes
