"""Golden CLI output of the fixture reports, taken before the tools/ restructuring.

Each case runs ``kernelpilot …`` in-process on a file in ../shared/fixtures and compares stdout with
``tests/data/golden/<case>.txt`` byte for byte (after replacing the fixture and temp directories with ``<FIXTURES>``
and ``<TMP>``). A layout change must not change what a user or an agent reads. To record a deliberate change of
output, run ``KP_UPDATE_GOLDEN=1 pytest tests/test_cli_golden.py`` and review the diff of tests/data/golden/.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.trace_fixtures import extract_att
from tools.cli import main

GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
ISA = FIXTURES / "amdgcn_isa"
TRITON_DOT = Path(__file__).resolve().parents[1] / "examples" / "prefetch" / "triton_dot"

# case name -> argv; "{att:NAME}" is replaced with the unpacked ATT directory of that fixture tarball.
CASES: dict[str, list[str]] = {
    "vgpr_batched_gemm": ["vgpr-pressure", str(ISA / "gfx942_hipcc_batched_gemm.s")],
    "vgpr_batched_gemm_json": ["vgpr-pressure", str(ISA / "gfx942_hipcc_batched_gemm.s"), "--json"],
    "vgpr_hipkittens_spill": ["vgpr-pressure", str(ISA / "gfx942_hipkittens_gemm_vgpr_spill94.s")],
    "vgpr_hipkittens_spill_json": ["vgpr-pressure", str(ISA / "gfx942_hipkittens_gemm_vgpr_spill94.s"), "--json"],
    "prefetch_batched_gemm": ["prefetch-data-load", str(ISA / "gfx942_hipcc_batched_gemm.s")],
    "prefetch_hipkittens_spill": ["prefetch-data-load", str(ISA / "gfx942_hipkittens_gemm_vgpr_spill94.s")],
    "prefetch_hipkittens_spill_json": [
        "prefetch-data-load",
        str(ISA / "gfx942_hipkittens_gemm_vgpr_spill94.s"),
        "--json",
    ],
    "trace_rocpd": ["kernel-trace", "--from", str(FIXTURES / "rocprofv3" / "gfx942_ck_bmm_results.db")],
    "trace_kernel_stats": [
        "kernel-trace",
        "--from",
        str(FIXTURES / "rocprofv3" / "gfx950_flash_attn_kernel_stats.csv"),
    ],
    "trace_kernel_trace_json": [
        "kernel-trace",
        "--from",
        str(FIXTURES / "rocprofv3" / "gfx950_flash_attn_kernel_trace.csv"),
        "--json",
    ],
    "trace_att_stats": [
        "kernel-trace",
        "--from",
        str(FIXTURES / "rocprofv3_att" / "gfx942_ck_bmm_stats_ui_output_agent_5600_dispatch_2.csv"),
    ],
    "trace_att_rmsnorm": ["kernel-trace", "--from", "{att:rmsnorm}", "--att"],
    "trace_att_softmax_json": ["kernel-trace", "--from", "{att:softmax}", "--att", "--json"],
    # compiled in the test (Triton 3.9 cross-compiles on the CPU): one AMD and one NVIDIA report of a bundled kernel
    "vgpr_triton_dot_gfx942": ["vgpr-pressure", str(TRITON_DOT / "prefetched.py"), "--arch", "gfx942"],
    "prefetch_triton_dot_sm90": ["prefetch-data-load", str(TRITON_DOT / "baseline.py"), "--arch", "sm_90"],
    "trace_ncu_details": ["kernel-trace", "--from", str(FIXTURES / "nvidia" / "ncu_details_page_cc120.csv")],
}


def _normalise(text: str, tmp: Path) -> str:
    for path, token in ((FIXTURES, "<FIXTURES>"), (tmp, "<TMP>")):
        text = text.replace(str(path.resolve()), token).replace(str(path), token)
    return text


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="../shared/fixtures is not beside this checkout")
@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_output_matches_golden(case, tmp_path, capsys):
    argv = []
    for arg in CASES[case]:
        if arg.startswith("{att:"):
            arg = str(extract_att(arg[5:-1], tmp_path))
        argv.append(arg)
    code = main(argv)
    out = _normalise(capsys.readouterr().out, tmp_path)
    golden = GOLDEN / f"{case}.txt"
    if os.environ.get("KP_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(f"exit {code}\n{out}")
    assert golden.is_file(), f"no golden output for {case}: run KP_UPDATE_GOLDEN=1 pytest {__file__}"
    assert f"exit {code}\n{out}" == golden.read_text()
