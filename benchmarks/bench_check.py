"""Time `kernelpilot check` on the bundled FlyDSL pairs (llvm engine) at test shapes; goal under 10 s each.

Run: ``PYTHONPATH=. python benchmarks/bench_check.py``. Prints one row per pair: cold (compile both files, build
the inputs in a child, run) and warm (dump and inputs cache hits: the two CPU runs and the comparison) wall times.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

EX = Path(__file__).resolve().parents[1] / "examples" / "prefetch"
PAIRS = [
    ("flydsl_mfma", "baseline.py", "prefetched.py", {"k_tiles": 8}),
    ("flydsl_mfma", "baseline.py", "prefetched.py", {"k_tiles": 64}),
    ("flydsl_paged_decode", "baseline.py", "prefetched.py", {"n_blocks": 32}),
]


def main() -> None:
    os.environ["KERNELPILOT_CACHE_DIR"] = tempfile.mkdtemp(prefix="kp-bench-check-")
    from tools.check.compare import check

    print(f"{'pair':<28} {'shape':<16} {'cold s':>7} {'warm s':>7} {'case s':>7} verdict")
    for folder, before, after, shape in PAIRS:
        t0 = time.perf_counter()
        check(EX / folder / before, EX / folder / after, shapes=[shape])
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        rep = check(EX / folder / before, EX / folder / after, shapes=[shape])
        warm = time.perf_counter() - t0
        label = ",".join(f"{k}={v}" for k, v in shape.items())
        print(f"{folder:<28} {label:<16} {cold:>7.2f} {warm:>7.2f} {rep.cases[0].seconds:>7.2f} {rep.verdict}")


if __name__ == "__main__":
    main()
