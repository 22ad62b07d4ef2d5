"""The parallel half of collecting the generated corpus on the GPU machine (benchmarks/predict_collect.py): each
variant is built, compiled into its own fresh Triton cache, launched once and checked against its torch reference
(outputs poisoned first), and every cubin of its cache disassembled beside it, in worker processes; the timing is
done afterwards, serially, from those caches, with nothing else on the GPU."""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
from pathlib import Path


def _cache(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    os.environ["TRITON_CACHE_DIR"] = str(path)
    with contextlib.suppress(Exception):
        import triton

        triton.knobs.cache.dir = str(path)


def disassemble_cache(cache: Path, nvdisasm: str | None) -> int:
    """``<kernel>.sass`` (nvdisasm -c) beside every cubin of a Triton cache; how many were written."""
    import subprocess

    if not nvdisasm:
        return 0
    n = 0
    for cubin in cache.rglob("*.cubin"):
        r = subprocess.run([nvdisasm, "-c", str(cubin)], capture_output=True, text=True, timeout=120)
        if r.returncode == 0:
            cubin.with_suffix(".sass").write_text(r.stdout)
            n += 1
    return n


def precompile(
    name: str, path: str, problem: str, design: str, cache: str, nvdisasm: str | None, corpus: str = "gen"
) -> dict:
    """Build, compile, launch and check one variant of ``corpus`` (registry.CORPORA) in this process; ``{"name",
    "correct", "detail", "error", "seconds"}`` (``error``: why it could not run; ``correct`` None then)."""
    import registry
    import torch
    from gen_common import check

    t0 = time.perf_counter()
    _cache(Path(cache))
    mod_name = "kpw_" + name.replace(".", "_").replace("-", "_")
    out = {"name": name, "correct": None, "detail": None, "error": None}
    try:
        built = registry.build(Path(path), problem, design, "cuda", name=mod_name, corpus=corpus)
        ok, detail = check(built)
        out["correct"], out["detail"] = bool(ok), detail
        del built
        disassemble_cache(Path(cache), nvdisasm)
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"[:500]
        traceback.print_exc(limit=3, file=sys.stderr)
        if "illegal" in str(exc) or "CUDA error" in str(exc):  # a sticky error: this process's context is gone
            sys.stderr.flush()
            os._exit(70)
    finally:
        sys.modules.pop(mod_name, None)
        torch.cuda.empty_cache()
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out
