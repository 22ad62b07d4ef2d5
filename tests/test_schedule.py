"""schedule: barrier-delimited clusters of a hot loop, prologue and epilogue, on kernels compiled here (FlyDSL with two
and four phases, Triton's pipelined tl.dot with its sched_barrier markers, gfx942 and gfx950; Mojo where max-core is
installed) and on the CK batched-GEMM ATT fixture.

Counts are checked against the ISA text counted here with plain prefix rules, and the issuing cluster of each wait
against a walk written here: the newest operation a ``vmcnt(N)``/``lgkmcnt(N)`` retires is the (N+1)-th counted
operation before it, going back through the loop body and across its back edge.
"""

from __future__ import annotations

import json
import re
import tarfile
from pathlib import Path
from statistics import median

import pytest

from tests.conftest import EXAMPLES, FIXTURES
from tools.cli import main
from tools.dump_ir import dump_ir
from tools.errors import InputError
from tools.schedule import analyze_schedule, format_report
from tools.toolchain import package_version

DATA = Path(__file__).parent / "data" / "schedule"
CK_ATT = FIXTURES / "rocprofv3_att" / "gfx942_ck_bmm_ui_output_agent_5600_dispatch_2.tar.gz"


# --- the ISA counted independently ------------------------------------------------------------------------------


def isa_instructions(text: str) -> list[str]:
    """Instruction lines of a kernel's text, in order: no directives, labels, comments or metadata."""
    out, in_meta = [], False
    for raw in text.splitlines():
        line = raw.split(";")[0].strip()
        if line.startswith((".amdgpu_metadata", ".end_amdgpu_metadata")):
            in_meta = line.startswith(".amdgpu_metadata")
            continue
        if in_meta or not line or line.startswith((".", "//")) or line.endswith(":"):
            continue
        if re.match(r"^[a-z_][a-z0-9_]*(\s|$)", line) and not line.startswith(".amdhsa"):
            out.append(line)
    return out


def text_class(line: str) -> str:
    op = line.split()[0]
    if op.startswith("v_mfma"):
        return "mfma"
    if op.startswith("ds_read") or op.startswith("ds_load"):
        return "lds_read"
    if op.startswith("ds_write") or op.startswith("ds_store"):
        return "lds_write"
    if op.startswith(("buffer_load", "global_load")):
        return "dma_to_lds" if re.search(r"\slds(\s|$)", line) else "vmem_load"
    if op.startswith(("buffer_store", "global_store")):
        return "vmem_store"
    if op == "s_barrier":
        return "barrier"
    if op.startswith("s_waitcnt"):
        return "waitcnt"
    return "rest"


def vm_counted(line: str) -> bool:
    return text_class(line) in ("vmem_load", "dma_to_lds", "vmem_store")


def lgkm_counted(line: str) -> bool:
    return line.startswith(("ds_", "s_load", "s_buffer_load"))  # every LDS op (ds_bpermute too) and scalar loads


def newest_retired(loop: list[tuple[int, str]], p: int, counter: str, n: int) -> int | None:
    """Instruction index of the (n+1)-th operation of ``counter`` before position ``p`` of the loop body (wrapping)."""
    counted = vm_counted if counter == "vmcnt" else lgkm_counted
    seen = 0
    for k in range(1, 3 * len(loop)):
        index, line = loop[(p - k) % len(loop)]
        if counted(line):
            seen += 1
            if seen == n + 1:
                return index
    return None


def check_against_isa(rep, isa_text: str, phases: int) -> None:
    lines = isa_instructions(isa_text)
    loop = [c for c in rep.clusters if c.region == "loop"]
    assert sum(1 for c in loop if c.ends_with == "s_barrier") == phases
    assert sum(c.instructions for c in rep.clusters) == len(lines)
    for c in rep.clusters:
        mine = [text_class(lines[i]) for i in range(c.first_instruction, c.last_instruction + 1)]
        for cls in ("mfma", "lds_read", "lds_write", "vmem_load", "dma_to_lds", "vmem_store", "barrier", "waitcnt"):
            assert c.counts.get(cls, 0) == mine.count(cls), (c.id, cls)
        ops = [lines[i].split()[0] for i in range(c.first_instruction, c.last_instruction + 1)]
        assert sum(c.mfma_shapes.values()) == sum(1 for m in ops if m.startswith("v_mfma"))
        assert c.lds_read_transpose == sum(1 for m in ops if m.startswith("ds_read") and "_tr_b" in m)
    body = [(i, lines[i]) for c in loop for i in range(c.first_instruction, c.last_instruction + 1)]
    cluster_of = {i: c.id for c in loop for i in range(c.first_instruction, c.last_instruction + 1)}
    checked = 0
    for c in loop:
        for w in c.waits:
            p = next(k for k, (i, _) in enumerate(body) if i == w.index)
            for counter in ("vmcnt", "lgkmcnt"):
                m = re.search(counter + r"\((\d+)\)", w.text)
                if not m:
                    continue
                newest = newest_retired(body, p, counter, int(m.group(1)))
                if newest is None:
                    continue
                assert newest in w.retires, (w.text, newest, w.retires)
                assert cluster_of[newest] in w.issuing_clusters
                checked += 1
    assert checked >= phases  # every phase has at least one wait whose issuer the walk decides


# --- ATT fixture (fast) ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ck_att(tmp_path_factory) -> Path:
    if not CK_ATT.exists():
        pytest.skip(f"shared fixtures not found at {FIXTURES}")
    out = tmp_path_factory.mktemp("ck_att")
    with tarfile.open(CK_ATT) as tar:
        tar.extractall(out, filter="data")
    return out / "ui_output_agent_5600_dispatch_2"


def test_ck_att_clusters_are_measured_beside_the_estimate(ck_att):
    rep = analyze_schedule(ck_att)
    assert rep.trace is not None and rep.trace.waves == 4
    # the fixture's four waves never enter the K loop (one K tile): its 3 clusters and the one only the loop path
    # reaches (5..8) are not measured; of the 22 others the waves ran 0, 3, 4 and 9 only in part (a branch skips the
    # rest of each), so those get no error; the 18 whole ones do
    measured = [c for c in rep.clusters if c.measured_cycles is not None]
    assert len(rep.clusters) == 26 and len(measured) == 22
    assert [c.id for c in rep.clusters if c.measured_cycles is None] == [5, 6, 7, 8]
    assert [c.id for c in measured if c.estimate_error is None] == [0, 3, 4, 9]
    assert rep.trace.clusters_measured == 18
    # the clusters' cycles add up to each wave's span: sum per wave = last stamp + its duration - first stamp
    spans = []
    for wf in sorted(ck_att.glob("se*_sm*_sl*_wv*.json")):
        ins = json.loads(wf.read_text())["wave"]["instructions"]
        spans.append(ins[-1][0] + ins[-1][3] - ins[0][0])
    total = sum(c.measured_cycles * c.measured_visits for c in measured)
    assert abs(total - median(spans)) / median(spans) < 0.05
    errors = sorted(abs(c.estimate_error) for c in measured if c.estimate_error is not None)
    assert rep.trace.median_abs_error == round(median(errors), 3)
    assert all(c.stall_classes for c in measured if c.measured_cycles > 100)
    text = format_report(rep)
    assert "estimate error per cluster: " in text and "median |error|" in rep.summary


def test_ck_att_waits_retire_what_the_decoder_says_they_wait_for(ck_att):
    """The ATT decoder lists, per executed s_waitcnt, the lines it waited on; 91 of the 92 waits of wave 0 are among
    what the waitcnt rules retire. The one exception (instruction 2507, lgkmcnt(0)) waits, on the path the wave ran,
    for an LDS access at line 1235 that only the loop-skipping path issues; the static walk goes through the loop."""
    from tools.schedule import att

    rep = analyze_schedule(ck_att)
    code = att.code_from_att(ck_att)
    index_of = {line: k for k, line in enumerate(code.lines)}
    waits = {w.index: w for c in rep.clusters for w in c.waits}
    wave = json.loads((ck_att / "se0_sm0_sl0_wv0.json").read_text())["wave"]
    outside = []
    for line, deps in wave["waitcnt"]:
        k = index_of[line]
        if not {index_of[d] for d, _ in deps} <= set(waits[k].retires):
            outside.append(k)
    assert len(wave["waitcnt"]) == 92 and outside == [2507]


def test_cli_prints_the_clusters_and_json(ck_att, capsys):
    assert main(["schedule", str(ck_att), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["trace"]["waves"] == 4 and out["split_at"] == ["s_barrier"]


def test_a_trace_of_another_kernel_is_refused(ck_att):
    spill = FIXTURES / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s"
    with pytest.raises(InputError, match="the trace's code is not this kernel's"):
        analyze_schedule(spill, trace=ck_att)


def test_an_nvidia_target_is_refused():
    spill = FIXTURES / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s"
    if not spill.exists():
        pytest.skip("shared fixtures not found")
    with pytest.raises(InputError, match="not an AMD target"):
        analyze_schedule(spill, arch="sm_90")


def test_sched_barrier_markers_split_clusters():
    """HipKittens' GEMM marks its loop with ``; sched_barrier`` comments: the loop's clusters start at them."""
    spill = FIXTURES / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s"
    if not spill.exists():
        pytest.skip("shared fixtures not found")
    rep = analyze_schedule(spill)
    assert rep.split_at == ["s_barrier", "sched_barrier"]
    lines = spill.read_text().splitlines()
    markers = sum(1 for ln in lines if re.match(r"^\s*;\s*sched_barrier\b", ln))
    assert markers > 0 and any(c.ends_with == "sched_barrier" for c in rep.clusters if c.region == "loop")


# --- kernels compiled here (slow) --------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize(("example", "phases"), [("flydsl_two_phase", 2), ("flydsl_four_phase", 4)])
def test_flydsl_phases_counts_and_issuing_clusters(example, phases, arch):
    result = dump_ir(DATA / f"{example}.py", arch)
    (k,) = result.kernels
    rep = analyze_schedule(k.final_isa, arch)
    check_against_isa(rep, Path(k.final_isa).read_text(), phases)
    loop = [c for c in rep.clusters if c.region == "loop"]
    assert sum(c.counts.get("mfma", 0) for c in loop) == 2  # the two MFMAs of the source
    assert any("carries no comments" in n for n in rep.notes)  # FlyDSL's ISA is non-verbose: no marker could show
    if phases == 2:  # four dword rows of A and of B go straight to LDS, waited for before the phase's barrier
        assert sum(c.counts.get("dma_to_lds", 0) for c in loop) == 8
        dma = next(c for c in loop if c.counts.get("dma_to_lds"))
        assert [ld.consumer_cluster for ld in dma.loads if ld.kind == "dma_to_lds"] == [dma.id] * 8
        # gfx950 reads B's two fragments with ds_read_b64_tr_b16 (the kernel picks it on ARCH=gfx950)
        assert sum(c.lds_read_transpose for c in loop) == (2 if arch == "gfx950" else 0)
    if phases == 4:
        # the next iteration's operands are loaded in the last phase and waited for after the back edge
        back = [w for c in loop for w in c.waits if w.across_back_edge]
        assert back and all(min(w.clusters_ago) >= 1 for w in back)


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_triton_pipelined_dot_counts_markers_and_stages(arch):
    """Triton's stream pipeliner (num_stages=3): on gfx942 global loads staged through ds_write with the scheduler's
    ``; sched_barrier`` markers; on gfx950 DMA to LDS (``buffer_load_dword … lds``) and ``ds_read_b64_tr_b16``."""
    result = dump_ir(EXAMPLES / "prefetch" / "triton_dot" / "prefetched.py", arch)
    (k,) = result.kernels
    text = Path(k.final_isa).read_text()
    rep = analyze_schedule(k.final_isa, arch)
    check_against_isa(rep, text, {"gfx942": 2, "gfx950": 1}[arch])  # the loop's s_barriers in each ISA
    loop = [c for c in rep.clusters if c.region == "loop"]
    staged = [ld for c in loop for ld in c.loads if ld.kind in ("vmem_load", "dma_to_lds")]
    assert staged and all(ld.clusters_ahead >= 1 for ld in staged)  # every tile load is waited for a cluster later
    if arch == "gfx942":
        assert rep.split_at == ["s_barrier", "sched_barrier"]
        assert sum(1 for c in loop if c.ends_with == "sched_barrier") == 2
        assert re.search(r"^\s*; sched_barrier", text, re.M)
    else:
        assert sum(c.counts.get("dma_to_lds", 0) for c in loop) == 4
        assert sum(c.lds_read_transpose for c in loop) == 4


@pytest.mark.slow
@pytest.mark.skipif(
    package_version("max-core") is None,
    reason="max-core is not installed, so Mojo GPU kernels cannot be compiled (pip install max-core==26.7.0)",
)
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_mojo_kernel_through_the_mojo_frontend(arch):
    result = dump_ir(EXAMPLES / "mojo" / "mfma_loop_prefetched.mojo", arch)
    (k,) = result.kernels
    rep = analyze_schedule(k.final_isa, arch)
    check_against_isa(rep, Path(k.final_isa).read_text(), 0)
    # no barrier: the loop is one cluster; its loads for iteration t+1 are waited for after the back edge
    (loop,) = [c for c in rep.clusters if c.region == "loop"]
    assert loop.counts["mfma"] == 1 and loop.counts["vmem_load"] == 2
    (wait,) = [w for w in loop.waits if "vmcnt" in w.text]
    assert wait.issuing_clusters == [loop.id] and wait.clusters_ago == [1] and wait.across_back_edge
