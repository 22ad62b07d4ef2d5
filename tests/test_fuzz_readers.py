"""Property: whatever a profiler output's bytes are, kernel-trace gives a report or an ``error:``/``hint:`` naming the
file — never another exception. Each test mutates a real fixture (../shared/fixtures, tests/data/ncu) one way:
a CSV cell, a JSON node (type swapped, key dropped, list<->object), an ATT code.json row, a rocpd cell, or a
truncation. Derandomized and bounded, so CI runs the same examples every time.

The results.json reader has no real fixture (none was published): it is fuzzed from the schema-shaped document
of tests/trace_fixtures.py (results_json_doc).
"""

from __future__ import annotations

import copy
import csv
import io
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.trace_fixtures import (
    ATT_STATS_CSV,
    KERNEL_STATS_CSV,
    KERNEL_TRACE_CSV,
    NCU_DATA,
    NCU_DETAILS_CC120,
    ROCPD_DB,
    extract_att,
    results_json_doc,
)
from tools.errors import KernelpilotError
from tools.kernel_trace import summarize_trace
from tools.models.trace import TraceReport

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
CSV_FIXTURES = [
    KERNEL_TRACE_CSV,
    KERNEL_STATS_CSV,
    ATT_STATS_CSV,
    NCU_DETAILS_CC120,
    NCU_DATA / "h100_triton_softmax_details.csv",
    NCU_DATA / "h100_triton_softmax_raw.csv",
    NCU_DATA / "h100_triton_softmax_source_sass.csv",
    NCU_DATA / "h100_triton_softmax_source_cuda_sass.csv",
]
# Cell values a damaged or hand-edited file holds: not a number, too large for a float, empty, negative, ...
BAD_CELLS = st.sampled_from(
    ["abc", "1e999", "", "-5", "-1e20", "nan", "inf", "0x1f", "1.5", "\x00", "9" * 30, "a,b", '"', "n/a", "-"]
)
# JSON values that replace a node: the wrong type for almost every field
BAD_VALUES = st.sampled_from([None, "abc", -1, 1e300, 1.5, True, [], {}, [1, 2], {"x": 1}, "1e999", [[1]]])


def report_or_error(path: Path, **kwargs) -> TraceReport | KernelpilotError:
    """The reader and every analysis: a report, or a KernelpilotError with a message and a hint that names the file.

    Any other exception propagates and fails the property."""
    try:
        return summarize_trace(path, **kwargs)
    except KernelpilotError as exc:
        assert exc.message.strip(), "an error must say what was wrong"
        assert exc.hint.strip(), f"an error must say what to do: {exc.message}"
        assert path.name in exc.message or path.parent.name in exc.message, f"error does not name the file: {exc}"
        return exc


def _write_csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


@FUZZ
@given(fixture=st.sampled_from(CSV_FIXTURES), row=st.integers(0, 10**6), col=st.integers(0, 10**6), cell=BAD_CELLS)
def test_csv_cell_mutations_give_a_report_or_a_clear_error(fixture, row, col, cell):
    rows = list(csv.reader(io.StringIO(fixture.read_text())))
    r = rows[row % len(rows)]
    if r:
        r[col % len(r)] = cell
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / fixture.name
        path.write_text(_write_csv(rows))
        report_or_error(path)


@FUZZ
@given(fixture=st.sampled_from([*CSV_FIXTURES, ROCPD_DB]), fraction=st.floats(0, 1))
def test_truncated_files_give_a_report_or_a_clear_error(fixture, fraction):
    data = fixture.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / fixture.name
        path.write_bytes(data[: int(len(data) * fraction)])
        report_or_error(path)


@FUZZ
@given(fixture=st.sampled_from(CSV_FIXTURES), row=st.integers(0, 10**6), keep=st.integers(0, 40))
def test_short_csv_rows_give_a_report_or_a_clear_error(fixture, row, keep):
    rows = list(csv.reader(io.StringIO(fixture.read_text())))
    i = row % len(rows)
    rows[i] = rows[i][: keep % (len(rows[i]) + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / fixture.name
        path.write_text(_write_csv(rows))
        report_or_error(path)


# --- JSON: results.json, ATT code.json and wave files --------------------------------------------------------------


def _nodes(doc, path=()):
    """Every (path, node) of a JSON document, the root included."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _nodes(v, (*path, i))


def mutate_json(doc, pick: int, how: str, value):
    """A copy of ``doc`` with one node replaced by ``value``, dropped, or switched between list and object."""
    doc = copy.deepcopy(doc)
    nodes = list(_nodes(doc))
    path, node = nodes[pick % len(nodes)]
    if how == "swap":
        new = (
            {str(i): v for i, v in enumerate(node)}
            if isinstance(node, list)
            else list(node.values())
            if (isinstance(node, dict))
            else [node]
        )
    else:
        new = value
    if not path:
        return new
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if how == "drop":
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return doc


JSON_MUTATION = {"pick": st.integers(0, 10**6), "how": st.sampled_from(["set", "drop", "swap"]), "value": BAD_VALUES}


@FUZZ
@given(**JSON_MUTATION)
def test_results_json_shape_mutations_give_a_report_or_a_clear_error(pick, how, value):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "123_results.json"
        path.write_text(json.dumps(mutate_json(results_json_doc((1, 2)), pick, how, value)))
        report_or_error(path, timeline=Path(tmp) / "timeline.json")


_ATT_CACHE: dict[str, Path] = {}


def att_dir(name: str) -> Path:
    """One extracted copy per fixture for the whole module (examples copy what they mutate)."""
    if name not in _ATT_CACHE:
        _ATT_CACHE[name] = extract_att(name, Path(tempfile.mkdtemp(prefix=f"kp-fuzz-att-{name}-")))
    return _ATT_CACHE[name]


def _att_copy(tmp: str, files: dict[str, object]) -> Path:
    """An ATT dir: the rmsnorm fixture's code.json and filenames.json, one ck_bmm wave file, edited by ``files``."""
    d = Path(tmp) / "ui_output_agent_1_dispatch_1"
    d.mkdir()
    shutil.copy(att_dir("rmsnorm") / "code.json", d / "code.json")
    shutil.copy(att_dir("rmsnorm") / "filenames.json", d / "filenames.json")
    shutil.copy(att_dir("ck_bmm") / "se0_sm0_sl0_wv0.json", d / "se0_sm0_sl0_wv0.json")
    for name, doc in files.items():
        (d / name).write_text(json.dumps(doc))
    return d


@FUZZ
@given(
    row=st.integers(0, 10**6),
    how=st.sampled_from(["short", "field", "not-a-list"]),
    n=st.integers(0, 12),
    value=BAD_VALUES,
)
def test_att_code_json_row_mutations_give_a_report_or_a_clear_error(row, how, n, value):
    doc = json.loads((att_dir("rmsnorm") / "code.json").read_text())
    rows = doc["code"]
    i = row % len(rows)
    if how == "short":
        rows[i] = rows[i][: n % len(rows[i])]
    elif how == "field":
        rows[i][n % len(rows[i])] = value
    else:
        rows[i] = value if not isinstance(value, list) else {"row": value}
    with tempfile.TemporaryDirectory() as tmp:
        d = _att_copy(tmp, {"code.json": doc})
        report_or_error(d / "code.json")


@FUZZ
@given(file=st.sampled_from(["code.json", "filenames.json", "se0_sm0_sl0_wv0.json"]), **JSON_MUTATION)
def test_att_json_shape_mutations_give_a_report_or_a_clear_error(file, pick, how, value):
    source = att_dir("ck_bmm" if file.startswith("se") else "rmsnorm") / file
    doc = json.loads(source.read_text())
    if file == "se0_sm0_sl0_wv0.json":  # aim at the part the reader uses: the wave timeline
        doc = {"wave": {"timeline": doc["wave"]["timeline"][:50]}}
    with tempfile.TemporaryDirectory() as tmp:
        d = _att_copy(tmp, {file: mutate_json(doc, pick, how, value)})
        report_or_error(d)


# --- rocpd SQLite ------------------------------------------------------------------------------------------------


def _dispatch_table(db: sqlite3.Connection) -> tuple[str, list[str]]:
    table = next(
        r[0]
        for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_kernel_dispatch%'")
    )
    return table, [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if not r[5]]  # not the primary key


@FUZZ
@given(col=st.integers(0, 10**6), cell=st.one_of(BAD_CELLS, st.sampled_from([None, -1, 10**18, 1.5, b"\x00\x01"])))
def test_rocpd_cell_mutations_give_a_report_or_a_clear_error(col, cell):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ROCPD_DB.name
        shutil.copy(ROCPD_DB, path)
        db = sqlite3.connect(path)
        table, cols = _dispatch_table(db)
        try:
            db.execute(f'UPDATE "{table}" SET "{cols[col % len(cols)]}" = ?', (cell,))
        except sqlite3.IntegrityError:  # the schema itself refuses that value (NOT NULL, typed): nothing to read
            assume(False)
        db.commit()
        db.close()
        report_or_error(path)


# --- ISA readers (vgpr-pressure, prefetch-data-load) ----------------------------------------------------------------

ISA_FIXTURES = sorted((ROCPD_DB.parents[1] / "amdgcn_isa").glob("*.s"))


def isa_report_or_error(path: Path) -> None:
    """vgpr-pressure's and prefetch-data-load's readers on one ISA file: reports, or KernelpilotErrors with a hint."""
    from tools.prefetch import analyze_prefetch
    from tools.vgpr_pressure import analyze_isa_all

    for analyse in (analyze_isa_all, analyze_prefetch):
        try:
            analyse(path)
        except KernelpilotError as exc:
            assert exc.message.strip() and exc.hint.strip(), exc


@settings(FUZZ, max_examples=15)
@given(fixture=st.sampled_from(ISA_FIXTURES), fraction=st.floats(0, 1), mid_line=st.booleans())
def test_truncated_isa_gives_a_report_or_a_clear_error(fixture, fraction, mid_line):
    text = fixture.read_text()
    cut = int(len(text) * fraction)
    if not mid_line:  # cut at a line boundary, as a copy interrupted between writes leaves it
        cut = text.rfind("\n", 0, cut) + 1
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / fixture.name
        path.write_text(text[:cut])
        isa_report_or_error(path)
