"""Register counts come from the ISA: kernel-trace compares the trace's figures with --isa and warns."""

from __future__ import annotations

from tools.kernel_trace import load_trace, summarize_trace
from tools.profilers.analysis import mangled_identifier, match_isa_kernel

from .trace_fixtures import FIXTURES, KERNEL_TRACE_CSV, ROCPD_DB


def _isa(name: str, vgpr: int, agpr: int, accum_offset: int | None, target: str) -> str:
    """A minimal AMDGCN text holding only the metadata the comparison reads (the CK kernel's .s is not public;
    figures per TOOL_OUTPUT_FORMATS.md pitfall 2: vgpr_count 512, agpr_count 256, accum_offset 256)."""
    block = f"\t.amdhsa_kernel {name}\n" + (f"\t\t.amdhsa_accum_offset {accum_offset}\n" if accum_offset else "")
    block += "\t.end_amdhsa_kernel\n"
    meta = (
        "\t.amdgpu_metadata\n---\namdhsa.kernels:\n"
        f"  - .name: {name}\n    .symbol: {name}.kd\n    .vgpr_count: {vgpr}\n    .agpr_count: {agpr}\n"
        f"    .sgpr_count: 100\namdhsa.target: amdgcn-amd-amdhsa--{target}\n...\n\t.end_amdgpu_metadata\n"
    )
    return block + meta


def test_gfx942_split_misreported(tmp_path):
    ck = next(d for d in load_trace(ROCPD_DB).dispatches if d.symbol and d.symbol.startswith("_ZN7ck_tile"))
    isa = tmp_path / "ck.s"
    isa.write_text(_isa(ck.symbol, 512, 256, 256, "gfx942"))
    report = summarize_trace(ROCPD_DB, isa=isa)
    (check,) = report.register_checks
    assert (check.trace_vgpr, check.trace_accum_vgpr, check.isa_vgpr, check.isa_agpr, check.isa_arch_vgpr) == (
        128,
        384,
        512,
        256,
        256,
    )
    assert not check.agrees and "misreads ACCUM_OFFSET" in check.message
    assert any("misreads ACCUM_OFFSET" in w for w in report.warnings)


def test_gfx950_halved(tmp_path):
    isa = tmp_path / "fa.s"
    isa.write_text(_isa("flash_attn_func_kernel_0", 248, 0, None, "gfx950"))  # code.json uses v0..v241 -> 248
    report = summarize_trace(KERNEL_TRACE_CSV, isa=isa)
    (check,) = report.register_checks
    assert (check.trace_vgpr, check.isa_vgpr) == (124, 248) and not check.agrees
    assert "halves gfx950" in check.message


def test_agreeing_counts_and_unmatched_isa(tmp_path):
    isa = tmp_path / "fill.s"
    isa.write_text(_isa("__amd_rocclr_fillBufferAligned", 12, 0, None, "gfx942"))
    report = summarize_trace(ROCPD_DB, kernel_regex="fill", isa=isa)
    (check,) = report.register_checks
    assert check.agrees and report.warnings == []  # trace 12 arch + 4 accum: granule rounding of 12
    real = FIXTURES / "amdgcn_isa" / "gfx942_hipcc_batched_gemm.s"  # other kernels than the trace's
    report = summarize_trace(ROCPD_DB, isa=real)
    assert report.register_checks == [] and any("matched" in w for w in report.warnings)


def test_trace_registers_warned_without_isa():
    assert any("unreliable" in w for w in summarize_trace(ROCPD_DB).warnings)


def test_mangled_names_match_demangled():
    assert mangled_identifier("_Z35batched_matrix_multiplication_naiveiiiiPKDF16bS0_PDF16b") == (
        "batched_matrix_multiplication_naive"
    )
    d = (
        load_trace(KERNEL_TRACE_CSV)
        .dispatches[0]
        .model_copy(update={"name": "foo_kernel(int, float*)", "symbol": None})
    )
    assert match_isa_kernel(d, ["_Z10foo_kerneliPf", "bar"]) == "_Z10foo_kerneliPf"
