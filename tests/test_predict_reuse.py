"""Predict's memory-path mechanisms (the depthwise convolution and the paged decode of the generated
corpus), each on a small kernel written here and compiled for sm_90 on this CPU:

* a program re-reading its own lines (a stencil's taps) is served by the SM's L1, not the L2: the L2 term counts the
  distinct sectors (tools/predict/reuse.py), and the band's top is the time without the hits;
* a block-table load that names the rows a cp.async (LDGSTS) then copies puts two DRAM latencies in series, and a
  pipelined loop that issues its next tile's copies at the end of its body hides only the work between that issue and
  its wait (tools/predict/nvidia.py dependent_loads, run_ahead_cycles).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from tools.dump_ir.dump import dump_ir
from tools.isa.machines import machine
from tools.predict import predict_launch
from tools.predict.evidence import reuse_assumptions
from tools.predict.launch import _scalars
from tools.predict.reuse import l1_hit_fraction, l1_reuse

HEADER = "import torch\nimport triton\nimport triton.language as tl\n\n\n"

# three taps of one array (x[i-1], x[i], x[i+1]) against three loads of three different arrays
STENCIL = """
@triton.jit
def taps3(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(x_ptr + i - 1, mask=(i >= 1) & (i - 1 < N), other=0.0)
    b = tl.load(x_ptr + i, mask=i < N, other=0.0)
    c = tl.load(x_ptr + i + 1, mask=i + 1 < N, other=0.0)
    tl.store(y_ptr + i, a + b + c, mask=i < N)


def kernelpilot_entry():
    n = 1 << 24
    x, y = torch.empty(n), torch.empty(n)
    return {"kernel": taps3, "args": (x, y, n), "kwargs": {"BLOCK": 1024, "num_warps": 4}, "grid": (n // 1024,)}
"""

THREE = """
@triton.jit
def sum3(a_ptr, b_ptr, c_ptr, y_ptr, N, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < N
    s = tl.load(a_ptr + i, mask=m, other=0.0) + tl.load(b_ptr + i, mask=m, other=0.0)
    tl.store(y_ptr + i, s + tl.load(c_ptr + i, mask=m, other=0.0), mask=m)


def kernelpilot_entry():
    n = 1 << 24
    a, b, c, y = torch.empty(n), torch.empty(n), torch.empty(n), torch.empty(n)
    return {"kernel": sum3, "args": (a, b, c, y, n), "kwargs": {"BLOCK": 1024, "num_warps": 4}, "grid": (n // 1024,)}
"""

# the same taps in a loop: reuse.py follows straight-line kernels only
LOOPED = """
@triton.jit
def taps3_loop(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    for start in range(tl.program_id(0) * BLOCK * 4, (tl.program_id(0) + 1) * BLOCK * 4, BLOCK):
        i = start + tl.arange(0, BLOCK)
        a = tl.load(x_ptr + i - 1, mask=(i >= 1) & (i - 1 < N), other=0.0)
        b = tl.load(x_ptr + i, mask=i < N, other=0.0)
        tl.store(y_ptr + i, a + b, mask=i < N)


def kernelpilot_entry():
    n = 1 << 24
    x, y = torch.empty(n), torch.empty(n)
    return {"kernel": taps3_loop, "args": (x, y, n), "kwargs": {"BLOCK": 1024, "num_warps": 4},
            "grid": (n // 4096,)}
"""

# a block-table read: each iteration loads the page numbers of its BN rows, then copies the rows they name (the
# table entry is the address of the copy); CONTIG reads the same rows without a table
PAGED = """
@triton.jit
def paged_sum(q_ptr, k_ptr, table_ptr, o_ptr, CTX, MAXP, D: tl.constexpr, BN: tl.constexpr, PAGED: tl.constexpr):
    b = tl.program_id(0)
    rd = tl.arange(0, D)
    rg = tl.arange(0, 16)
    q = tl.load(q_ptr + (b * 16 + rg[:, None]) * D + rd[None, :])
    acc = tl.zeros((16, BN), tl.float32)
    for start in range(0, CTX, BN):
        t = start + tl.arange(0, BN)
        if PAGED:
            page = tl.load(table_ptr + b * MAXP + t // 16).to(tl.int64)
            row = page * 16 + t % 16
        else:
            row = (b * CTX + t).to(tl.int64)
        k = tl.load(k_ptr + row[None, :] * D + rd[:, None])
        acc += tl.dot(q, k)
    tl.store(o_ptr + (b * 16 + rg[:, None]) * BN + tl.arange(0, BN)[None, :], acc)


def kernelpilot_entry():
    b, ctx, d = 512, 4096, 128
    q = torch.empty((b * 16, d), dtype=torch.float16)
    k = torch.empty((b * ctx, d), dtype=torch.float16)
    table = torch.zeros((b, ctx // 16), dtype=torch.int32)
    o = torch.empty((b * 16, 16), dtype=torch.float32)
    return {"kernel": paged_sum, "args": (q, k, table, o, ctx, ctx // 16),
            "kwargs": {"D": d, "BN": 16, "PAGED": PAGED_FLAG, "num_warps": 4, "num_stages": 2}, "grid": (b,)}
"""


@cache
def _compiled(name: str, source: str, root: str):
    path = Path(root) / f"{name}.py"
    path.write_text(HEADER + source)
    (k,) = dump_ir(path, "sm_90").kernels
    return k


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("reuse"))
    return lambda name, source: _compiled(name, source, root)


def _ttir(k) -> str:
    return Path(next(s.path for s in k.stages if s.name == "ttir")).read_text()


def test_a_stencils_taps_are_counted_once_in_the_l2_and_their_rereads_as_l1_hits(kernels):
    taps, three = kernels("taps3", STENCIL), kernels("sum3", THREE)
    sector = int(machine("h200").value("memory_sector_bytes"))
    reuse = l1_reuse(_ttir(taps), _scalars(taps), taps.launch.grid, sector)
    # per program: three 4 KiB loads, 128 or 129 sectors each one by one; together 1026 floats, 129-130 sectors
    assert 3 * 128 <= reuse.requested_sectors <= 3 * 129
    assert 129 <= reuse.distinct_sectors <= 130
    assert reuse.hit_fraction == pytest.approx(2 / 3, abs=0.01)
    # three different arrays: no line is read twice
    other = l1_reuse(_ttir(three), _scalars(three), three.launch.grid, sector)
    assert other.hit_fraction == 0.0
    # the L1 left beside shared memory bounds the hits: a footprint twice the free L1 keeps half of them
    assert l1_hit_fraction(reuse, 2, 2 * reuse.footprint_bytes, 0) == pytest.approx(reuse.hit_fraction)
    assert l1_hit_fraction(reuse, 4, 2 * reuse.footprint_bytes, 0) == pytest.approx(reuse.hit_fraction / 2)
    assert l1_hit_fraction(reuse, 2, 2 * reuse.footprint_bytes, reuse.footprint_bytes) == 0.0
    assert l1_hit_fraction(reuse, 2, None, 0) == 0.0  # a device file without l1_bytes: no hits

    p, q = predict_launch(taps, device="h200"), predict_launch(three, device="h200")
    # the same requested bytes (3 loads + 1 store of 4 KiB per program); the taps' L2 bytes are 1 + 1 loads' worth
    assert p.figures.bytes_requested == q.figures.bytes_requested
    assert p.figures.l2_us == pytest.approx(q.figures.l2_us * 2 / 4, rel=0.02)
    assert any(n.startswith("L1 reuse") for n in p.notes)
    assert not any(n.startswith("L1 reuse") for n in q.notes)
    # HBM-bound either way (the taps read 64 MiB, the three arrays 192 MiB): the hits change no time, so the band is
    # not widened
    assert p.bound == q.bound == "hbm_bandwidth"
    assert p.figures.l2_us < p.figures.hbm_us
    assert not any("re-reads of its own lines" in r for r in p.band.rests_on)
    # where they do, the band's top is the time without the hits (whether a re-read finds its line depends on the
    # driver's L1/shared carve-out): x2 here
    (top,) = reuse_assumptions(10.0, 20.0)
    assert top.high == pytest.approx(2.0) and top.low == 1.0
    assert reuse_assumptions(10.0, 10.1) == [] and reuse_assumptions(10.0, None) == []


def test_loops_and_devices_without_an_l1_figure_claim_no_reuse(kernels):
    k = kernels("taps3_loop", LOOPED)
    assert l1_reuse(_ttir(k), _scalars(k), k.launch.grid, 32) is None
    taps = kernels("taps3", STENCIL)
    assert "l1_bytes" not in machine("h100").figures
    p = predict_launch(taps, device="h100")
    assert not any(n.startswith("L1 reuse") for n in p.notes)


@pytest.mark.slow
def test_a_table_entry_naming_a_cp_async_copy_waits_two_latencies_and_a_late_prefetch_hides_little(kernels):
    from tools.predict.launch import _assume_unknown, _trip_plan, _wave_work

    paged = kernels("paged_sum_t", PAGED.replace("PAGED_FLAG", "True"))
    contig = kernels("paged_sum_c", PAGED.replace("PAGED_FLAG", "False"))
    m = machine("h200")
    works = {}
    for name, k in (("paged", paged), ("contig", contig)):
        plan, _ = _trip_plan(k, k.launch.grid)
        plan, _ = _assume_unknown(plan, 1.0)
        text = Path(k.final_isa).read_text()
        assert "LDGSTS" in text  # the rows are copied to shared memory by cp.async (num_stages 2)
        works[name], _, _ = _wave_work(k, text, m, plan, 1.0, 4)
    w, c = works["paged"], works["contig"]
    assert w.pipelined
    # the table entry's LDG, then the LDGSTS it addresses: one latency more per iteration than the contiguous rows
    assert w.dependent_waits_iter > c.dependent_waits_iter
    assert w.dependent_waits_iter >= 0.5
    # its copies are issued after the iteration's work, behind the table load: little of the body runs ahead of them
    assert w.run_ahead_cycles_iter is not None
    assert w.run_ahead_cycles_iter < 0.5 * w.chain_cycles_iter
    assert predict_launch(paged, device="h200").predicted_us > 1.3 * predict_launch(contig, device="h200").predicted_us
