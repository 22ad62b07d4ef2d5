"""vgpr-pressure --diff on NVIDIA dump directories: dump-ir's sm_90 folders hold SASS and cubins, no AMDGCN, and
the cubins are read."""

from __future__ import annotations

import pytest

from tests.test_frontend_detection_through_imports import KERNEL


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
