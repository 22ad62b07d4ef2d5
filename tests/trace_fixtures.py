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


def results_json_doc(dispatches: tuple[int, ...]) -> dict:
    """A rocprofv3 ``-f json`` document shaped per rocprofv3-schema.json: one gfx942 agent, one kernel (axpy), and
    dispatch i running from 1000*i to 1000*i + 100 + i ns (so durations 101, 102, 103 …)."""
    return {
        "rocprofiler-sdk-tool": [
            {
                "agents": [{"id": {"handle": 7}, "type": 2, "name": "gfx942", "node_id": 2}],
                "kernel_symbols": [
                    {
                        "kernel_id": 3,
                        "kernel_name": "_Z4axpyPf.kd",
                        "formatted_kernel_name": "axpy(float*)",
                        "arch_vgpr_count": 8,
                        "accum_vgpr_count": 0,
                        "sgpr_count": 16,
                    }
                ],
                "buffer_records": {
                    "kernel_dispatch": [
                        {
                            "thread_id": 1,
                            "correlation_id": {"internal": i, "external": 0},
                            "start_timestamp": 1000 * i,
                            "end_timestamp": 1000 * i + 100 + i,
                            "dispatch_info": {
                                "agent_id": {"handle": 7},
                                "queue_id": {"handle": 1},
                                "kernel_id": 3,
                                "dispatch_id": i,
                                "private_segment_size": 0,
                                "group_segment_size": 0,
                                "workgroup_size": {"x": 64, "y": 1, "z": 1},
                                "grid_size": {"x": 4096, "y": 1, "z": 1},
                            },
                        }
                        for i in dispatches
                    ]
                },
            }
        ]
    }
