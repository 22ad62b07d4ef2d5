"""Global atomics on an NVIDIA GPU: how long do G programs take to add to the same addresses? (issue 22)

    python benchmarks/atomic_sweep.py [--json OUT]      # on the GPU machine; prints a table, about 20 s

Calibration data for the speed model's atomic term (tools/predict/atomics.py, the machine files'
``same_address_atomic_*`` figures), not a validation: the held-out ``ho_atomic*`` pairs in
benchmarks/predict_kernels/ are. Each kernel adds constants without loading anything, so the time is the atomics':

* ``rows``: each of G programs adds 1.0 to the same N fp32 (fence-ordered ``acq_rel`` or ``relaxed``);
* ``scalar``: each of G one-warp programs adds 1.0 to one fp32;
* ``distinct``: each of G programs adds 1.0 to its own N fp32 (no address shared: the L2's atomic throughput);
* ``split``: ``rows`` as two atomics of N/2 fp32 each, one after the other, to two arrays;
* ``stored``: ``rows`` after each program first stores S fp32 of its own (a fenced atomic waits for those stores);
* ``lanes``: a histogram's update: each of G programs loads BLOCK int32 indices and adds 1 to ``out[index]``, the
  indices spread over K int32 (K=1: every lane on one address; 32: one 128-byte line; more: K/32 lines, uniform).
  Its figure is ns per lane update of the hottest line (time / (updates / lines)): what scattered lanes whose
  addresses come from loaded data cost one line, one after another (``--only lanes`` runs these alone).

Printed per case: the median time (L2 flushed before each call), element updates, updates per address, distinct
128-byte lines, and ns per update of one address.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


@triton.jit
def rows_kernel(out_ptr, BLOCK: tl.constexpr, SEM: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + cols, tl.full((BLOCK,), 1.0, tl.float32), sem=SEM)


@triton.jit
def stored_kernel(out_ptr, own_ptr, BLOCK: tl.constexpr, STORE: tl.constexpr, SEM: tl.constexpr):
    mine = tl.program_id(0).to(tl.int64) * STORE + tl.arange(0, STORE)
    tl.store(own_ptr + mine, tl.full((STORE,), 2.0, tl.float32))
    cols = tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + cols, tl.full((BLOCK,), 1.0, tl.float32), sem=SEM)


@triton.jit
def split_kernel(out_ptr, HALF: tl.constexpr, SEM: tl.constexpr):
    cols = tl.arange(0, HALF)
    tl.atomic_add(out_ptr + cols, tl.full((HALF,), 1.0, tl.float32), sem=SEM)
    tl.atomic_add(out_ptr + HALF + cols, tl.full((HALF,), 1.0, tl.float32), sem=SEM)


@triton.jit
def scalar_kernel(out_ptr, SEM: tl.constexpr):
    tl.atomic_add(out_ptr, 1.0, sem=SEM)


@triton.jit
def distinct_kernel(out_ptr, BLOCK: tl.constexpr, SEM: tl.constexpr):
    cols = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + cols, tl.full((BLOCK,), 1.0, tl.float32), sem=SEM)


@triton.jit
def lanes_kernel(idx_ptr, out_ptr, BLOCK: tl.constexpr, SEM: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs)
    tl.atomic_add(out_ptr + idx, tl.full((BLOCK,), 1, tl.int32), sem=SEM)


def lanes_cases():
    for sem in ("acq_rel", "relaxed"):
        for k in (1, 32, 128, 1024, 8192):
            for g in (1024, 4096):
                yield {"kind": "lanes", "N": k, "G": g, "sem": sem, "warps": 4, "BLOCK": 1024}


def cases():
    yield from lanes_cases()
    for sem in ("acq_rel", "relaxed"):
        for n in (32, 128, 512, 2048, 8192):
            for g in (4096, 16384):
                yield {"kind": "rows", "N": n, "G": g, "sem": sem, "warps": 4 if n <= 2048 else 8}
        for g in (16384, 65536, 262144):
            yield {"kind": "scalar", "N": 1, "G": g, "sem": sem, "warps": 1}
        for n, g in ((2048, 8192), (8192, 4096)):
            yield {"kind": "distinct", "N": n, "G": g, "sem": sem, "warps": 8}
        for n in (2048, 8192):
            yield {"kind": "split", "N": n, "G": 16384, "sem": sem, "warps": 8}
        for n in (1024, 8192):
            for store in (1024, 4096):
                yield {"kind": "stored", "N": n, "G": 16384, "sem": sem, "warps": 8, "S": store}


def run_case(c, timer) -> dict:
    n, g, sem, warps = c["N"], c["G"], c["sem"], c["warps"]
    size = n * g if c["kind"] == "distinct" else n
    out = torch.zeros(size, dtype=torch.float32, device="cuda")
    if c["kind"] == "lanes":
        gen = torch.Generator(device="cuda").manual_seed(5)
        idx = torch.randint(0, n, (g * c["BLOCK"],), generator=gen, device="cuda", dtype=torch.int32)
        out = torch.zeros(n, dtype=torch.int32, device="cuda")
        launch = lambda: lanes_kernel[(g,)](idx, out, BLOCK=c["BLOCK"], SEM=sem, num_warps=warps)  # noqa: E731
        return _timed(c, timer, launch, out, lambda: bool(torch.all(out == torch.bincount(idx, minlength=n)).item()),
                      updates=g * c["BLOCK"], size=n)  # fmt: skip
    if c["kind"] == "stored":
        own = torch.empty(g * c["S"], dtype=torch.float32, device="cuda")
        launch = lambda: stored_kernel[(g,)](out, own, BLOCK=n, STORE=c["S"], SEM=sem, num_warps=warps)  # noqa: E731
    elif c["kind"] == "split":
        launch = lambda: split_kernel[(g,)](out, HALF=n // 2, SEM=sem, num_warps=warps)  # noqa: E731
    elif c["kind"] == "rows":
        launch = lambda: rows_kernel[(g,)](out, BLOCK=n, SEM=sem, num_warps=warps)  # noqa: E731
    elif c["kind"] == "scalar":
        launch = lambda: scalar_kernel[(g,)](out, SEM=sem, num_warps=warps)  # noqa: E731
    else:
        launch = lambda: distinct_kernel[(g,)](out, BLOCK=n, SEM=sem, num_warps=warps)  # noqa: E731
    want = float(g) if c["kind"] != "distinct" else 1.0
    return _timed(c, timer, launch, out, lambda: bool(torch.all(out == want).item()), updates=n * g, size=size)


def _timed(c, timer, launch, out, check, *, updates: int, size: int) -> dict:
    """Run once and check the sums, then the median of 50 timed calls (L2 flushed before each)."""
    out.zero_()
    launch()
    torch.cuda.synchronize()
    ok = check()
    for _ in range(3):
        launch()
    times = [t.event_us for _ in range(5) for t in timer.round(launch, 10)]
    us = statistics.median(times)
    lines = max(1, size * 4 // 128)
    if c["kind"] == "lanes":  # uniform indices: the hottest line takes about updates / lines of them
        per_address = updates // lines
    else:
        per_address = c["G"] if c["kind"] != "distinct" else 1
    return {
        **c,
        "ok": ok,
        "us": round(us, 2),
        "updates": updates,
        "updates_per_address": per_address,
        "lines": lines,
        "ns_per_address_update": round(us * 1e3 / per_address, 3),
        "g_updates_per_s": round(updates / us / 1e3, 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--only", choices=["lanes"], help="run only these cases")
    args = ap.parse_args()
    from tools.profilers.timing import EventTimer

    timer = EventTimer(flush_l2=True)
    rows = []
    print(f"device: {timer.name}, triton {triton.__version__}, torch {torch.__version__}")
    print(
        f"{'kind':9} {'sem':8} {'N':>5} {'G':>7} {'us':>9} {'upd/addr':>9} {'lines':>6} {'ns/upd':>8} {'Gupd/s':>7} ok"
    )
    for c in lanes_cases() if args.only == "lanes" else cases():
        r = run_case(c, timer)
        rows.append(r)
        print(
            f"{r['kind']:9} {r['sem']:8} {r['N']:5} {r['G']:7} {r.get('S', 0):5} {r['us']:9.2f} {r['updates_per_address']:9} "
            f"{r['lines']:6} {r['ns_per_address_update']:8.3f} {r['g_updates_per_s']:7.2f} {r['ok']}",
            flush=True,
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"device": timer.name, "triton": triton.__version__, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
