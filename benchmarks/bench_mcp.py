"""MCP server start time and per-call overhead over the bare engine functions.

Start: launch ``python -m mcp_server.server`` over stdio and time until ``initialize`` and ``tools/list`` answer
(goal ≤ 1.5 s); ``python -c 'import mcp'`` is printed beside it, since the SDK import is most of it.
Overhead: the same work called directly and through the server in process (``Client(mcp)``: argument validation,
output-schema validation, JSON), median of N calls (goal ≤ 20 ms). Run: ``python benchmarks/bench_mcp.py [N]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
FIXTURES = REPO.parent / "shared" / "fixtures"
os.environ.setdefault("KERNELPILOT_CACHE_DIR", tempfile.mkdtemp(prefix="kp-bench-"))
os.environ["KERNELPILOT_ALLOWED_ROOTS"] = str(FIXTURES)
os.environ["KERNELPILOT_PROJECT_DIR"] = str(REPO)

import anyio  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from mcp_server.server import mcp  # noqa: E402
from tools.doctor import doctor  # noqa: E402
from tools.kernel_trace import summarize_trace  # noqa: E402
from tools.vgpr_pressure import analyze_path  # noqa: E402

ISA = FIXTURES / "amdgcn_isa" / "gfx942_hipcc_batched_gemm.s"
TRACE = FIXTURES / "rocprofv3" / "gfx950_flash_attn_kernel_trace.csv"


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def time_import_mcp(runs: int = 3) -> float:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import mcp.server"], check=True)
        out.append(time.perf_counter() - t)
    return median_ms(out)


async def time_start(runs: int = 3) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        async with Client(
            StdioServerParameters(command=sys.executable, args=["-m", "mcp_server.server"], env=env)
        ) as c:
            await c.list_tools()
            out.append(time.perf_counter() - t)
    return median_ms(out)


async def time_calls(n: int) -> list[tuple[str, float, float]]:
    cases = [
        ("doctor", lambda: doctor(), {}),
        ("vgpr-pressure", lambda: analyze_path(str(ISA), per_instruction=True), {"isa": str(ISA)}),
        ("kernel-trace (read)", lambda: summarize_trace(str(TRACE)), {"trace": str(TRACE)}),
    ]
    rows = []
    async with Client(mcp) as c:
        for name, bare, args in cases:
            tool = name.split(" ")[0]
            await c.call_tool(tool, args)  # warm caches and imports
            direct, served = [], []
            for _ in range(n):
                t = time.perf_counter()
                bare()
                direct.append(time.perf_counter() - t)
                t = time.perf_counter()
                r = await c.call_tool(tool, args)
                served.append(time.perf_counter() - t)
                assert not r.is_error, r.content
            rows.append((name, median_ms(direct), median_ms(served)))
    return rows


async def main(n: int) -> None:
    print(f"python -c 'import mcp.server': {time_import_mcp():.0f} ms (median of 3)")
    print(f"server start (spawn → initialize → tools/list over stdio): {await time_start():.0f} ms (median of 3)")
    print(f"\n{'tool':<22} {'bare ms':>9} {'via MCP ms':>11} {'overhead ms':>12}   (median of {n})")
    for name, direct, served in await time_calls(n):
        print(f"{name:<22} {direct:>9.1f} {served:>11.1f} {served - direct:>12.1f}")


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 20)
