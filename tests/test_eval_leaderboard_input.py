"""The leaderboard over result files no scoring produces (edited, forged, cut off): every result with finite figures
is ranked and rendered (a speedup of 1e308 too), the others are left out and named with the reason — a speedup of
Infinity or 1e308 used to crash `--html` (exit 70, no page for anyone), NaN and -5 were printed as ``nan×`` and
``-5.00×``, and a truncated file was dropped without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.models import TaskScore
from tools.cli import main


def _result(run: Path, agent: str, task: str, speedup: str | None) -> Path:
    """A passed result whose speedup is the JSON text ``speedup`` (pydantic writes inf and NaN as null)."""
    s = TaskScore(task_id=task, track="gpu-runtime", agent=agent, passed=True, compiled=True, correct=True)
    text = s.model_dump_json().replace('"speedup":null', f'"speedup":{speedup or "null"}')
    f = run / agent / f"{task}.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text)
    return f


@pytest.fixture
def run(tmp_path) -> Path:
    run = tmp_path / "run"
    _result(run, "steady", "t1", "1.5")
    _result(run, "steady", "t2", "2.0")
    _result(run, "wild", "t1", "1e308")  # finite: ranked and shown
    _result(run, "wild", "t2", "Infinity")
    _result(run, "wild", "t3", "NaN")
    _result(run, "wild", "t4", "-5.0")
    cut = _result(run, "steady", "t3", "1.25")
    cut.write_text(cut.read_text()[:40])
    return run


LEFT_OUT = {
    "wild/t2.json": "speedup inf is not a positive finite number",
    "wild/t3.json": "speedup nan is not a positive finite number",
    "wild/t4.json": "speedup -5.0 is not a positive finite number",
    "steady/t3.json": "not a readable result (Invalid JSON: EOF while parsing",
}


def test_html_ranks_every_finite_result_and_names_the_files_it_leaves_out(run, tmp_path, capsys):
    page = tmp_path / "lb.html"
    assert main(["eval", "leaderboard", str(run), "--html", str(page)]) == 0
    html = page.read_text()
    # wild's one rankable task, at 1e308x, is its geomean too: shown in its cell and drawn in the chart
    assert '<td class="ok" title="">pass 1e+308×</td>' in html and "1e+308×</text>" in html
    assert '<td class="ok" title="">pass 1.50×</td>' in html and '<td class="ok" title="">pass 2.00×</td>' in html
    err = capsys.readouterr().err
    assert "note: left out 4 result file(s) that could not be ranked:" in err
    for name, why in LEFT_OUT.items():
        assert f"<li>{run / name}: {why}" in html and f"  {run / name}: {why}" in err


def test_markdown_never_prints_a_speedup_no_timing_gives(run, capsys):
    assert main(["eval", "leaderboard", str(run), "--md"]) == 0
    md = capsys.readouterr().out
    for bad in ("nan×", "inf×", "-5.00×", "| nan", "| inf"):
        assert bad not in md
    assert "| t1 | ✔ 1.50× | ✔ 1e+308× |" in md  # no SOL figures: steady's 2 passes rank it before wild's 1
    assert "Left out: 4 result file(s) that could not be ranked:" in md
    for name, why in LEFT_OUT.items():
        assert f"- {run / name}: {why}" in md


AGENT = "evil|agent\n<img src=x onerror=alert(1)>"
TASK = "t|1\n<b>bold</b>\\|"


def test_markdown_shows_names_and_task_ids_literally_in_their_own_cells(tmp_path, capsys):
    markdown_it = pytest.importorskip("markdown_it")
    run = tmp_path / "run"
    f = _result(run, "x", "t", "1.5")  # the file names are the harness's; the names inside are the file's
    f.write_text(f.read_text().replace('"agent":"x"', f'"agent":{json.dumps(AGENT)}').replace(
        '"task_id":"t"', f'"task_id":{json.dumps(TASK)}'))  # fmt: skip
    _result(run, "plain", "t", "2.0")
    assert main(["eval", "leaderboard", str(run), "--md"]) == 0
    md = capsys.readouterr().out
    # a GitHub-flavoured table renderer that passes raw HTML through, as GitHub's Markdown pages do
    page = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(md)
    assert "<img" not in page and "<b>" not in page  # the names' HTML is shown, never rendered
    cells = [r.split("</tr>")[0].count("<td>") + r.split("</tr>")[0].count("<th>") for r in page.split("<tr>")[1:]]
    # the ranking (a header and 2 agents) keeps its 16 columns, the task table (a header and 2 tasks) its 3
    assert cells == [16, 16, 16, 3, 3, 3]
    shown = "evil|agent &lt;img src=x onerror=alert(1)&gt;"
    assert f"<td>{shown}</td>" in page and f"<th>{shown}</th>" in page
    assert "<td>t|1 &lt;b&gt;bold&lt;/b&gt;\\|</td>" in page  # a backslash before a pipe does not unescape it
