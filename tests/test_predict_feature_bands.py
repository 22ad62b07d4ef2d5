"""Launch features whose effect on the time the code does not fix widen the printed band (
tools/predict/evidence.py ``feature_assumptions``): strided sectors in a bandwidth-bound launch (band top x2), a
tensor accessed only at addresses from loaded data in a bandwidth-bound launch (band low lowered by its share of the
bytes moved, open below when it is all of them), and a memory-latency-bound launch on fewer SMs than the device has
(band top x1.5). Each kernel is written and compiled here for sm_90 and predicted for the H200; a kernel without the
feature keeps its kind's band."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.isa.machines import machine
from tools.predict.cli import predict_file
from tools.predict.evidence import SMALL_GRID_TOP, STRIDED_TOP

KINDS = machine("h200").kind_bands["kinds"]
DATA = Path(__file__).resolve().parent / "data" / "predict"

TRANSPOSE = """\
import torch
import triton
import triton.language as tl

R, C, BLOCK = 8192, 8192, 256


@triton.jit
def transpose_kernel(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + r * cols + c)
    tl.store(y_ptr + c * rows + r, v)


def kernelpilot_entry():
    x = torch.empty(R, C, dtype=torch.float32)
    return {"kernel": transpose_kernel, "args": (x, torch.empty_like(x), R, C), "kwargs": {"BLOCK": BLOCK, "num_warps": 4},
            "grid": (R, C // BLOCK)}
"""

EMBED = """\
import torch
import triton
import triton.language as tl

T, D, V = 262144, 128, 1 << 20


@triton.jit
def embed_kernel(idx_ptr, table_ptr, out_ptr, D: tl.constexpr, R: tl.constexpr):
    t = tl.program_id(0) * R + tl.arange(0, R)
    row = tl.load(idx_ptr + t)
    d = tl.arange(0, D)
    tl.store(out_ptr + t[:, None] * D + d[None, :], tl.load(table_ptr + row[:, None] * D + d[None, :]))


def kernelpilot_entry():
    idx = torch.randint(0, V, (T,), dtype=torch.int64)
    table = torch.empty(V, D, dtype=torch.bfloat16)
    return {"kernel": embed_kernel, "args": (idx, table, torch.empty(T, D, dtype=torch.bfloat16)),
            "kwargs": {"D": D, "R": 16, "num_warps": 4}, "grid": (T // 16,)}
"""

GEMV = """\
import torch
import triton
import triton.language as tl

M, K, BN, BK = 4096, 14336, 128, 64
PROGRAMS = 32


@triton.jit
def gemv_kernel(w_ptr, x_ptr, y_ptr, K, BN: tl.constexpr, BK: tl.constexpr):
    n = tl.program_id(0) * BN + tl.arange(0, BN)
    acc = tl.zeros((BN,), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + tl.arange(0, BK)
        w = tl.load(w_ptr + n[:, None] * K + kk[None, :])
        acc += tl.sum(w.to(tl.float32) * tl.load(x_ptr + kk)[None, :].to(tl.float32), axis=1)
    tl.store(y_ptr + n, acc)


def kernelpilot_entry():
    w = torch.empty(PROGRAMS * BN, K, dtype=torch.bfloat16)
    return {"kernel": gemv_kernel, "args": (w, torch.empty(K, dtype=torch.bfloat16), torch.empty(PROGRAMS * BN)),
            "kwargs": {"K": K, "BN": BN, "BK": BK, "num_warps": 4}, "grid": (PROGRAMS,)}
"""


def launch(tmp_path: Path, name: str, text: str):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    (p,) = predict_file(path, "sm_90", device="h200").launches
    return p


def has(p, words: str) -> bool:
    return any(words in r for r in p.band.rests_on)


def test_a_strided_bandwidth_bound_launch_gets_twice_the_band_top(tmp_path):
    p = launch(tmp_path, "transpose", TRANSPOSE)
    assert p.bound == "hbm_bandwidth" and p.band.kind == "bandwidth" and p.band.status == "assumed"
    assert has(p, "strided global access") and not has(p, "a gather")
    assert p.band.high == round(KINDS["bandwidth"]["high"] * STRIDED_TOP, 4)
    assert p.band.low == KINDS["bandwidth"]["low"]  # the point and the low end stay


@pytest.mark.slow
def test_a_coalesced_copy_keeps_its_kinds_band():
    (p,) = predict_file(DATA / "stream_copy.py", "sm_90", device="h200").launches
    assert p.bound == "hbm_bandwidth" and p.band.status == "validated" and p.band.rests_on == []
    assert (p.band.low, p.band.high) == (KINDS["bandwidth"]["low"], KINDS["bandwidth"]["high"])


@pytest.mark.slow
def test_a_gathered_table_widens_the_band_below_once_and_keeps_its_top(tmp_path):
    # one rule for a gather (tools/predict/floors.py, its distinct rows): the table's rows repeated by the indices
    # can only move fewer bytes, so the band's low end widens; its top stays the bandwidth kind's
    p = launch(tmp_path, "embed", EMBED)
    assert p.bound == "hbm_bandwidth" and p.band.status == "assumed"
    gathers = [r for r in p.band.rests_on if "a gather" in r]
    assert len(gathers) == 1 and gathers[0].startswith("table_ptr: read at addresses from loaded data")
    assert p.band.low < KINDS["bandwidth"]["low"] and p.band.high == KINDS["bandwidth"]["high"]
    assert not has(p, "strided global access")


@pytest.mark.slow
def test_a_latency_bound_launch_on_few_sms_gets_a_higher_band_top_and_a_full_grid_does_not(tmp_path):
    few = launch(tmp_path, "gemv_few", GEMV)
    assert few.programs == 32 and few.bound == "memory_latency" and few.band.kind == "latency"
    assert has(few, "memory-latency bound on 32 of 132 SMs")
    assert few.band.high == round(KINDS["latency"]["high"] * SMALL_GRID_TOP, 4)
    assert few.band.low == KINDS["latency"]["low"]
    full = launch(tmp_path, "gemv_full", GEMV.replace("PROGRAMS = 32", "PROGRAMS = 264"))
    assert full.programs == 264 and not has(full, "memory-latency bound on")
    assert full.band.high is None or full.band.high < few.band.high
