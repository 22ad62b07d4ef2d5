"""ToolResult[T]: every tool's structured output carries the engine's model itself, so the outputSchema an agent sees
names every field the engine has (a field added in tools/models reaches agents with no edit in mcp_server/)."""

import anyio
import pytest

from mcp_server.models import ToolResult
from mcp_server.server import mcp
from tools.doctor import DoctorReport
from tools.models.check import CheckReport
from tools.models.dump import DumpResult
from tools.models.prefetch import PrefetchReport
from tools.models.schedule import ScheduleReport
from tools.models.trace import TraceReport
from tools.models.vgpr import VgprReports

ENGINE_MODEL = {
    "dump-ir": DumpResult,
    "check": CheckReport,
    "vgpr-pressure": VgprReports,
    "prefetch-data-load": PrefetchReport,
    "kernel-trace": TraceReport,
    "schedule": ScheduleReport,
    "doctor": DoctorReport,
}


def _report_schema(schema: dict) -> dict:
    """The object schema of ``report`` (``T | None``: an anyOf of a $ref into $defs and null)."""
    ref = next(s["$ref"] for s in schema["properties"]["report"]["anyOf"] if "$ref" in s)
    return schema["$defs"][ref.rsplit("/", 1)[1]]


@pytest.mark.parametrize("tool", sorted(ENGINE_MODEL))
def test_the_report_schema_has_every_field_of_the_engine_model(tool):
    tools = {t.name: t for t in anyio.run(mcp.list_tools)}
    schema = tools[tool].output_schema
    assert list(schema["properties"])[:5] == ["summary", "next_steps", "status", "job_id", "report"]
    assert set(_report_schema(schema)["properties"]) == set(ENGINE_MODEL[tool].model_fields)


def test_a_field_added_to_an_engine_model_appears_in_its_tool_result_schema():
    class Engine(CheckReport):
        added_later: int = 7

    schema = ToolResult[Engine].model_json_schema()
    assert _report_schema(schema)["properties"]["added_later"] == {
        "default": 7,
        "title": "Added Later",
        "type": "integer",
    }


def test_a_running_result_has_no_report_and_says_how_to_resume():
    r = ToolResult[TraceReport].running("profiling bench.py", 45.4, "abc123", "kernel-trace")
    assert (r.status, r.job_id, r.report) == ("running", "abc123", None)
    assert r.summary == "profiling bench.py: still running after 45s (job abc123)"
    assert r.next_steps == ["call kernel-trace with job_id='abc123' to keep waiting"]
