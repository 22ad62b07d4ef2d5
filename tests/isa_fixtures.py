"""Where the shared fixtures live: the ``shared/`` folder beside the repository checkout (CI clones it there)."""

from __future__ import annotations

import re
from pathlib import Path


def fixtures_dir() -> Path:
    return Path(__file__).resolve().parents[1] / ".." / "shared" / "fixtures"


def isa_text(name: str) -> str:
    return (fixtures_dir() / "amdgcn_isa" / name).read_text()


BATCHED = "gfx942_hipcc_batched_gemm.s"
SPILL = "gfx942_hipkittens_gemm_vgpr_spill94.s"
RGA = {
    BATCHED: "gfx942_hipcc_batched_gemm.kernel0.livereg_vgpr.txt",
    SPILL: "gfx942_hipkittens_gemm_vgpr_spill94.livereg_vgpr.txt",
}

_ROW_RE = re.compile(r"^\s*(\d+)\s*\|\s*(\d+)\s*\|[^|]*\|\s*(.*)$")


def rga_rows(isa_name: str) -> list[tuple[int, str]]:
    """(Rn, instruction text) per line of shae's liveness table for the first kernel of ``isa_name``."""
    rows = []
    for line in (fixtures_dir() / "rga_livereg" / RGA[isa_name]).read_text().splitlines():
        m = _ROW_RE.match(line)
        if m:
            rows.append((int(m.group(2)), m.group(3)))
    return rows
