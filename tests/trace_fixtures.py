"""Where kernel-trace tests find their inputs: the shared fixtures beside the checkout, and tests/data/ncu."""

from __future__ import annotations

import tarfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures"
NCU_DATA = Path(__file__).resolve().parent / "data" / "ncu"

KERNEL_TRACE_CSV = FIXTURES / "rocprofv3" / "gfx950_flash_attn_kernel_trace.csv"
KERNEL_STATS_CSV = FIXTURES / "rocprofv3" / "gfx950_flash_attn_kernel_stats.csv"
ROCPD_DB = FIXTURES / "rocprofv3" / "gfx942_ck_bmm_results.db"
ATT_STATS_CSV = FIXTURES / "rocprofv3_att" / "gfx942_ck_bmm_stats_ui_output_agent_5600_dispatch_2.csv"
NCU_DETAILS_CC120 = FIXTURES / "nvidia" / "ncu_details_page_cc120.csv"
ATT_TARBALLS = {
    "ck_bmm": FIXTURES / "rocprofv3_att" / "gfx942_ck_bmm_ui_output_agent_5600_dispatch_2.tar.gz",
    "rmsnorm": FIXTURES / "rocprofv3_att" / "gfx950_flydsl_rmsnorm_ui_output_agent_19276_dispatch_18.tar.gz",
    "softmax": FIXTURES / "rocprofv3_att" / "gfx950_flydsl_softmax_ui_output_agent_47920_dispatch_13.tar.gz",
}


def extract_att(name: str, into: Path) -> Path:
    """Unpack one ATT fixture into ``into`` and return its ui_output_agent_* directory."""
    with tarfile.open(ATT_TARBALLS[name]) as tar:
        tar.extractall(into, filter="data")
    return next(p.parent for p in into.rglob("code.json"))
