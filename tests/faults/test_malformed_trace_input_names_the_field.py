"""kernel-trace on plausible malformed profiler output (a results JSON of the wrong shape, bad ATT rows, a CSV cell
that is not a number, a directory or FIFO where a file belongs): an ``error:``/``hint:`` naming the field, the
row or the line and column, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from mcp import Client

from mcp_server.server import mcp
from tests.faults.helpers import (
    assert_clear_error,
    kp,
)
from tests.trace_fixtures import KERNEL_TRACE_CSV, extract_att
from tools.errors import InputError


def _results_json(tmp_path: Path, buffer_records) -> Path:
    doc = {"rocprofiler-sdk-tool": [{"agents": [], "kernel_symbols": [], "buffer_records": buffer_records}]}
    path = tmp_path / "1_results.json"
    path.write_text(json.dumps(doc))
    return path


def test_results_json_of_the_wrong_shape_names_the_field(tmp_path):
    # buffer_records is an object in rocprofv3's schema; a list used to raise AttributeError ('list'.get)
    from tools.kernel_trace import load_trace

    path = _results_json(tmp_path, [{"kernel_dispatch": []}])
    with pytest.raises(
        InputError, match=r"rocprofiler-sdk-tool\[0\]\.buffer_records is a JSON list, expected an object"
    ):
        load_trace(path)


@pytest.fixture(scope="module")
def rmsnorm_att(tmp_path_factory) -> Path:
    return extract_att("rmsnorm", tmp_path_factory.mktemp("att"))


def _att_with(tmp_path: Path, source: Path, edit) -> Path:
    d = tmp_path / source.name
    shutil.copytree(source, d)
    doc = json.loads((d / "code.json").read_text())
    edit(doc["code"])
    (d / "code.json").write_text(json.dumps(doc))
    return d


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # row 1 is the first instruction (row 0 names the kernel); a full row has 10 fields
        (lambda code: code.__setitem__(1, code[1][:4]), r"code\[1\] has 4 fields, expected 10"),
        (lambda code: code[1].__setitem__(6, "many"), r"code\[1\]: Hit is 'many', not a number"),
        (lambda code: code.__setitem__(1, {"isa": "s_nop 0"}), r"code\[1\] is a JSON object, expected a list of 10"),
    ],
    ids=["short-row", "non-integer-field", "non-list-row"],
)
def test_att_code_json_bad_rows_name_the_row(tmp_path, rmsnorm_att, edit, expected):
    from tools.kernel_trace import load_trace

    d = _att_with(tmp_path, rmsnorm_att, edit)
    with pytest.raises(InputError, match=expected):
        load_trace(d)


def test_att_wave_file_that_is_a_list_is_refused(tmp_path, rmsnorm_att):
    from tools.kernel_trace import load_trace

    d = _att_with(tmp_path, rmsnorm_att, lambda code: None)
    (d / "se0_sm0_sl0_wv0.json").write_text("[1, 2, 3]")
    with pytest.raises(InputError, match=r"se0_sm0_sl0_wv0\.json is a JSON list, expected an object"):
        load_trace(d)


@pytest.mark.parametrize(("cell", "why"), [("abc", "not a number"), ("1e999", "not a finite number")])
def test_csv_cell_that_is_not_a_number_names_line_and_column(tmp_path, cell, why):
    # abc used to raise ValueError, 1e999 OverflowError (int(float('inf')))
    lines = KERNEL_TRACE_CSV.read_text().splitlines()
    header = lines[0].split(",")
    col = header.index('"Start_Timestamp"')
    row = lines[3].rsplit(",", len(header) - 1 - col)  # Kernel_Name holds commas: split from the right
    row[0] = row[0].rsplit(",", 1)[0] + "," + cell
    lines[3] = ",".join(row)
    path = tmp_path / "kernel_trace.csv"
    path.write_text("\n".join(lines) + "\n")
    proc = kp("kernel-trace", "--from", str(path))
    # line 4 of the file: header is line 1, the edited row is lines[3]
    assert_clear_error(proc, f"{path}:4: column Start_Timestamp is '{cell}', {why}")


def test_isa_and_timeline_naming_a_directory_are_refused(tmp_path):
    proc = kp("kernel-trace", "--from", str(KERNEL_TRACE_CSV), "--isa", str(tmp_path))
    assert_clear_error(proc, f"{tmp_path} is a directory, not a AMDGCN ISA file (--isa)")
    proc = kp("kernel-trace", "--from", str(KERNEL_TRACE_CSV), "--timeline", str(tmp_path))
    assert_clear_error(proc, f"--timeline {tmp_path} is a directory")


def test_fifo_as_a_profiler_output_is_refused_not_read(tmp_path):
    fifo = tmp_path / "kernel_trace.csv"
    os.mkfifo(fifo)
    proc = kp("kernel-trace", "--from", str(fifo))  # reading it would block forever: refused from its stat
    assert_clear_error(proc, f"{fifo} is a FIFO, not a regular file")  # refused by the shared path guard


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_trace_error_carries_the_reason(tmp_path, monkeypatch, anyio_backend):

    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(tmp_path))
    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(tmp_path / "cache"))
    bad = _results_json(tmp_path, [])
    async with Client(mcp) as c:
        r = await c.call_tool("kernel-trace", {"trace": str(bad)})
    assert r.is_error
    text = r.content[0].text
    assert "buffer_records is a JSON list, expected an object" in text and "hint: " in text, text
