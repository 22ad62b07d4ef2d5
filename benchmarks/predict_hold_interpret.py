"""Run a held-out corpus (``hold.*``, HOLD_PROBLEMS, or ``fresh.*``, FRESH_PROBLEMS, of benchmarks/predict_families)
in Triton's interpreter on this CPU, against each variant's torch reference: the first ``--designs`` designs of every problem of the masked families, the
problem shrunk where its kernels allow (rows, tokens, batch or image height cut; the row lengths, the ragged part,
kept; a family with a ``shrink(params)`` shrinks its own, bf16 to fp16 there: the interpreter's bf16 is wrong).
The GPU's own check (benchmarks/predict_device.sh) covers every variant at full size; this is the CPU's.

    TRITON_INTERPRET=1 python benchmarks/predict_hold_interpret.py [--corpus hold|fresh] [--family F ...] [--designs 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

FAMILIES = Path(__file__).resolve().parent / "predict_families"
# tiled kernels without masks (gemm, fp8, bmm, flash attention), split-K GEMVs, chains and persistent loops: no
# shrink keeps their shapes' point, and at full size the interpreter takes hours
SKIPPED = ("gemm", "gemm_fp8", "bmm", "flash_attn", "gemv", "w8_gemv", "tiny_chain", "ew_persist", "histogram")


def shrunk(family: str, p: dict) -> dict:
    small = dict(p)
    for k in ("M", "T"):
        if k in small:
            small[k] = 40 if family in ("colsum", "transpose", "rmsnorm_bwd") else 3
    if family == "dwconv":
        small.update(N=1, H=3)
    if family == "paged_decode":
        small.update(B=2, ctx=min(p["ctx"], 1024))
    if family == "scatter_add":
        small.update(R=min(p["R"], 64))
    if family == "embedding":
        small.update(V=100)
    if family == "ew_act":
        small.update(M=2)
    return small


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=("hold", "fresh"), default="hold", help="the corpus run (default hold)")
    ap.add_argument("--family", action="append", default=[], help="only these families")
    ap.add_argument("--designs", type=int, default=3, help="designs run per problem (the first ones)")
    args = ap.parse_args(argv)
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("set TRITON_INTERPRET=1 (the interpreter must be chosen before any kernel is defined)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(FAMILIES))
    import gen_common
    import registry

    gen_common.CPU_INPUTS["real"] = True
    wrong = ran = 0
    for path in registry.family_files():
        mod = registry.load(path, "kpi_" + path.stem)
        if mod.FAMILY in SKIPPED or (args.family and mod.FAMILY not in args.family):
            continue
        problems, designs_of = registry.corpus_of(mod, args.corpus)
        for problem, p in problems.items():
            small = mod.shrink(p) if hasattr(mod, "shrink") else shrunk(mod.FAMILY, p)  # a family's own
            designs = designs_of(small)
            for name in list(designs)[: args.designs]:
                t0 = time.perf_counter()
                ok, detail = gen_common.check(mod.build(small, designs[name], "cpu"))
                ran += 1
                wrong += not ok
                state = "ok" if ok else "WRONG"
                print(f"{mod.FAMILY} {problem} {name} {state} {detail} {time.perf_counter() - t0:.1f}s", flush=True)
    print(f"{ran} ran, {wrong} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
