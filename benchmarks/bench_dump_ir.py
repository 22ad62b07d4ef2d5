"""dump-ir overhead: raw compile time vs dump-ir (no cache) vs a cache hit, for the bundled examples.

Goals (issue 2): dump-ir ≤ 1.2× the raw compile; a cache hit < 100 ms. "Raw" runs the same kernel file's
kernelpilot_entry() in a fresh interpreter with the compiler's plain compile-only environment; "raw+dumps" adds the
compiler's own stage dumps (FlyDSL's FLYDSL_DUMP_IR with debug info), the by-hand way to keep every stage.

    python benchmarks/bench_dump_ir.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools.dump_ir import dump_ir  # noqa: E402
from tools.toolchain import rocm_path_for_flydsl  # noqa: E402

RAW_FLYDSL = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("k", sys.argv[1]); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m); fn, args, *kw = m.kernelpilot_entry(); fn(*args, **(kw[0] if kw else {}))
"""
RAW_TRITON = """
import importlib.util, sys, triton
from triton.backends.compiler import GPUTarget
spec = importlib.util.spec_from_file_location("k", sys.argv[1]); m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m); s = m.kernelpilot_entry()
a = sys.argv[2]
t = GPUTarget("hip", a, 64) if a.startswith("gfx") else GPUTarget("cuda", int(a[3:]), 32)
triton.compile(triton.compiler.ASTSource(fn=s["kernel"], signature=s["signature"], constexprs=s["constexprs"]),
               target=t, options=s.get("options") or {})
"""

CASES = [
    ("examples/flydsl/saxpy.py", "gfx942", RAW_FLYDSL),
    ("examples/flydsl/saxpy.py", "gfx950", RAW_FLYDSL),
    ("examples/triton/vector_add.py", "gfx942", RAW_TRITON),
    ("examples/triton/vector_add.py", "sm_90", RAW_TRITON),
]


def raw_seconds(path: Path, arch: str, script: str, dumps: bool = False) -> float:
    """One compile in a fresh interpreter; ``dumps`` turns on the compiler's own IR dumps (FLYDSL_DUMP_IR), which is
    what an engineer does by hand to keep the stages."""
    rocm, _ = rocm_path_for_flydsl()
    with tempfile.TemporaryDirectory() as cache:
        env = {
            **os.environ,
            "COMPILE_ONLY": "1",
            "ARCH": arch,
            "ROCM_PATH": str(rocm),
            "FLYDSL_RUNTIME_ENABLE_CACHE": "0",
            "TRITON_CACHE_DIR": cache,
            "TRITON_ALWAYS_COMPILE": "1",
        }
        if dumps:
            env.update(FLYDSL_DUMP_IR="1", FLYDSL_DUMP_DIR=cache, FLYDSL_DEBUG_ENABLE_DEBUG_INFO="1")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", script, str(path), arch], env=env, check=True, capture_output=True)
        return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ["KERNELPILOT_CACHE_DIR"] = tempfile.mkdtemp(prefix="kp-bench-")
    print(f"{'example':<32} {'arch':<7} {'raw s':>7} {'raw+dumps s':>11} {'dump-ir s':>9} {'ratio':>6} {'hit ms':>7}")
    for rel, arch, script in CASES:
        path = ROOT / rel
        raw = statistics.median(raw_seconds(path, arch, script) for _ in range(args.repeat))
        raw_dumps = statistics.median(raw_seconds(path, arch, script, dumps=True) for _ in range(args.repeat))
        dumps = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            dump_ir(path, arch, use_cache=False)
            dumps.append(time.perf_counter() - t0)
        dump = statistics.median(dumps)
        hits = []
        for _ in range(max(args.repeat, 5)):
            t0 = time.perf_counter()
            assert dump_ir(path, arch).cache_hit
            hits.append(time.perf_counter() - t0)
        hit_ms = statistics.median(hits) * 1000
        print(
            f"{rel:<32} {arch:<7} {raw:>7.2f} {raw_dumps:>11.2f} {dump:>9.2f} {dump / raw_dumps:>6.2f} {hit_ms:>7.1f}"
        )
    print("ratio = dump-ir / raw+dumps. sm_90 dump-ir also disassembles the cubin to SASS (nvdisasm, ~0.6 s here).")


if __name__ == "__main__":
    main()
