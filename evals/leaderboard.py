"""The leaderboard: read one or more run folders, rank agents, and write JSON, Markdown, and a self-contained HTML
page with an inline SVG chart (no scripts, no network).

Ranking: the SOL score (evals.metrics: geometric mean over tasks of the fraction of speed-of-light, a failed task
scoring 0), then tasks passed, then geomean speedup over all tasks (failed = 1.0×), then correct rate. The SOL score
with its 95 % CI is the first figure of every row; pass rate and fast_p stand beside it.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

from pydantic import BaseModel

from evals.ab import AbReport, reports_from, sol_sentence
from evals.ab import to_markdown as ab_markdown
from evals.metrics import FAST_P, effective_speedup, run_metrics
from evals.models import RunMetrics, TaskScore, read_score
from evals.render import md_cell, times
from tools.errors import InputError


class Cell(BaseModel):
    passed: bool
    undetermined: bool = False  # the output oracle could not decide: shown apart, not as a failure
    speedup: float | None = None
    reason: str = ""


class Skipped(BaseModel):
    """A result file the leaderboard left out, and why (unreadable, or a figure no scoring can produce)."""

    file: str
    reason: str


class Leaderboard(BaseModel):
    entries: list[RunMetrics]
    tasks: list[str]
    cells: dict[str, dict[str, Cell]]  # agent -> task -> cell
    ab: list[AbReport] = []  # plugin A/B pairs (agents NAME@with-kernelpilot / NAME@without-kernelpilot)
    skipped: list[Skipped] = []
    note: str = (
        "ranked by SOL score: geomean over tasks of the fraction of speed-of-light (failed = 0, floored at 1 %; "
        "incomplete tasks shown apart), 95 % bootstrap CI; rates over all tasks (but those the output oracle could "
        "not decide, marked ?); geomean speedup counts failed or untimed tasks as 1.0×"
    )


def implausible(s: TaskScore) -> str | None:
    """Why a result's figures cannot be ranked (no scoring produces them: an edited or forged file), or None. A
    speedup is a ratio of two times: finite and positive; so are its CI bounds; a fraction of speed-of-light is
    finite and not negative, and so are the agent's seconds and reported cost."""
    figures = {"speedup": s.speedup, "fraction_of_sol": s.fraction_of_sol}
    figures |= {f"speedup_ci[{i}]": v for i, v in enumerate(s.speedup_ci or ())}
    if s.agent_outcome:
        cost = s.agent_outcome.reported.get("cost_usd", s.agent_outcome.reported.get("total_cost_usd"))
        figures |= {"agent_outcome.duration_s": s.agent_outcome.duration_s}
        figures |= {"cost_usd": cost} if isinstance(cost, int | float) else {}
    for name, v in figures.items():
        positive = name.startswith("speedup")
        if v is not None and not (math.isfinite(v) and (v > 0 if positive else v >= 0)):
            return f"{name} {v!r} is not a {'positive' if positive else 'non-negative'} finite number"
    return None


def collect(dirs: list[Path], skipped: list[Skipped] | None = None) -> dict[str, list[TaskScore]]:
    """Scores per agent from run folders (``OUT`` holding ``<agent>/<task>.json``, or one agent folder). A file that
    cannot be read back, or whose figures no scoring produces (``implausible``), is left out and added to
    ``skipped`` with the reason."""
    by_agent: dict[str, list[TaskScore]] = {}
    skipped = [] if skipped is None else skipped
    for d in dirs:
        if not d.is_dir():
            raise InputError(f"{d} is not a run folder", hint="give the --out folder of `kernelpilot eval run`")
        files = sorted(d.glob("*.json")) if any(d.glob("*.json")) else sorted(d.glob("*/*.json"))
        for f in files:
            if f.name == "summary.json":
                continue
            try:
                s = read_score(f)
            except InputError as exc:
                skipped.append(Skipped(file=str(f), reason=exc.message.removeprefix(f"{f} is ")))
                continue
            if why := implausible(s):
                skipped.append(Skipped(file=str(f), reason=why))
                continue
            key = s.agent if len(dirs) == 1 else f"{s.agent} ({d.name})"
            by_agent.setdefault(key, []).append(s)
    if not by_agent:
        said = f"; skipped {len(skipped)}: {skipped[0].file} {skipped[0].reason}" if skipped else ""
        raise InputError(
            f"no task results under {', '.join(map(str, dirs))}{said}", hint="run `kernelpilot eval run` first"
        )
    return by_agent


def build(dirs: list[Path]) -> Leaderboard:
    skipped: list[Skipped] = []
    by_agent = collect(dirs, skipped)
    entries = [run_metrics(a, scores).model_copy(update={"agent": a}) for a, scores in by_agent.items()]
    entries.sort(key=rank_key)
    tasks = sorted({s.task_id for scores in by_agent.values() for s in scores})
    cells = {
        a: {
            s.task_id: Cell(
                passed=s.passed,
                speedup=s.speedup,
                reason="" if s.passed else (s.reasons or [""])[0][:160],
                undetermined=s.code == "oracle_undetermined",
            )
            for s in scores
        }
        for a, scores in by_agent.items()
    }
    return Leaderboard(entries=entries, tasks=tasks, cells=cells, ab=reports_from(by_agent), skipped=skipped)


def skipped_lines(lb: Leaderboard) -> list[str]:
    """One line per result file left out, for the Markdown and HTML pages and the terminal."""
    return [f"{s.file}: {s.reason}" for s in lb.skipped]


def rank_key(m: RunMetrics) -> tuple:
    """Higher SOL score first (an agent without one after every agent with one), then passes, speedup, correctness."""
    return (m.sol_score is None, -(m.sol_score or 0.0), -m.passed, -m.geomean_speedup, -m.correct_rate, m.agent)


def sol_cell(m: RunMetrics) -> str:
    """``41 % [33–52]``: the SOL score and its 95 % CI, ``–`` when no task carried a SOL figure."""
    if m.sol_score is None:
        return "–"
    ci = f" [{100 * m.sol_score_ci[0]:.0f}–{100 * m.sol_score_ci[1]:.0f}]" if m.sol_score_ci else ""
    return f"{100 * m.sol_score:.0f} %{ci}"


def _prompt(m: RunMetrics) -> str:
    """The prompt level(s) an agent's tasks ran at: ``plain``, ``guided``, or ``plain 5 / guided 4`` when mixed."""
    if len(m.prompt_levels) == 1:
        return next(iter(m.prompt_levels))
    return " / ".join(f"{k} {v}" for k, v in m.prompt_levels.items()) or "–"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f} %"


def to_markdown(lb: Leaderboard) -> str:
    fp = [f"fast_{p:g}" for p in FAST_P]
    head = ["#", "agent", "SOL score [95 % CI]", "prompt", "passed", "incomplete", "compile", "correct", "ISA", *fp]
    head += ["geomean×", "mean SOL (passed)", "s/task", "$/task"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, m in enumerate(lb.entries, 1):
        row = [
            str(i),
            md_cell(m.agent),
            sol_cell(m),
            _prompt(m),
            f"{m.passed}/{m.tasks}",
            str(m.incomplete),
            _pct(m.compile_rate),
            _pct(m.correct_rate),
            _pct(m.isa_pass_rate),
            *[_pct(m.fast_p[k]) for k in fp],
            times(m.geomean_speedup, 3),
            _pct(m.mean_fraction_of_sol),
            "–" if m.mean_agent_seconds is None else f"{m.mean_agent_seconds:.0f}",
            "–" if m.mean_agent_cost_usd is None else f"{m.mean_agent_cost_usd:.2f}",
        ]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", f"_{lb.note}_", "", "| task | " + " | ".join(md_cell(m.agent) for m in lb.entries) + " |"]
    lines.append("|---|" + "---|" * len(lb.entries))
    for t in lb.tasks:
        row = [md_cell(t)]
        for m in lb.entries:
            c = lb.cells[m.agent].get(t)
            mark = "?" if c is not None and c.undetermined else ("✔" if c is not None and c.passed else "✘")
            row.append("–" if c is None else mark + (f" {times(c.speedup)}×" if c.speedup else ""))
        lines.append("| " + " | ".join(row) + " |")
    for r in lb.ab:
        lines += ["", ab_markdown(r).rstrip("\n")]
    if lb.skipped:
        lines += ["", f"Left out: {len(lb.skipped)} result file(s) that could not be ranked:", ""]
        lines += [f"- {md_cell(line)}" for line in skipped_lines(lb)]
    return "\n".join(lines) + "\n"


def _chart(lb: Leaderboard) -> str:
    """Horizontal bars: pass rate (left panel) and geomean speedup (right panel), one row per agent."""
    row_h, left, width = 34, 190, 1100
    panel = (width - left - 40) // 2
    height = 50 + row_h * len(lb.entries)
    top_speed = max([m.geomean_speedup for m in lb.entries] + [2.0])
    out = [
        f'<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="pass rate and geomean speedup per agent">',
        f'<text x="{left}" y="20" class="h">tasks passed</text>',
        f'<text x="{left + panel + 30}" y="20" class="h">geomean speedup (failed = 1.0×)</text>',
    ]
    for i, m in enumerate(lb.entries):
        y = 34 + i * row_h
        rate = m.passed / m.tasks if m.tasks else 0
        w1 = max(1, int(panel * rate))
        w2 = max(1, int(panel * (m.geomean_speedup / top_speed)))  # the ratio first: panel * 1e308 overflows
        x2 = left + panel + 30
        one = x2 + int(panel / top_speed)
        out += [
            f'<text x="{left - 8}" y="{y + 18}" text-anchor="end" class="a">{html.escape(m.agent)}</text>',
            f'<rect x="{left}" y="{y + 4}" width="{panel}" height="20" class="bg"/>',
            f'<rect x="{left}" y="{y + 4}" width="{w1}" height="20" class="p"/>',
            f'<text x="{left + w1 + 4}" y="{y + 19}" class="v">{m.passed}/{m.tasks}</text>',
            f'<rect x="{x2}" y="{y + 4}" width="{panel}" height="20" class="bg"/>',
            f'<rect x="{x2}" y="{y + 4}" width="{w2}" height="20" class="s"/>',
            f'<line x1="{one}" x2="{one}" y1="{y}" y2="{y + 28}" class="one"/>',
            f'<text x="{x2 + w2 + 4}" y="{y + 19}" class="v">{times(m.geomean_speedup)}×</text>',
        ]
    out.append("</svg>")
    return "\n".join(out)


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 4px} p.note{color:#57606a;margin:0 0 16px}
table{border-collapse:collapse;margin:16px 0} th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:right}
th{background:#f6f8fa} td.l,th.l{text-align:left} td.ok{background:#dafbe1} td.bad{background:#ffebe9}
svg .h{font-weight:600;font-size:13px} svg .a{font-size:13px} svg .v{font-size:12px;fill:#57606a}
svg .bg{fill:#f0f2f4} svg .p{fill:#2da44e} svg .s{fill:#0969da} svg .one{stroke:#cf222e;stroke-width:2}
"""


def to_html(lb: Leaderboard, title: str = "kernelpilot eval leaderboard") -> str:
    fp = [f"fast_{p:g}" for p in FAST_P]
    rows = []
    for i, m in enumerate(lb.entries, 1):
        cells = [
            str(i),
            html.escape(m.agent),
            sol_cell(m),
            html.escape(_prompt(m)),
            f"{m.passed}/{m.tasks}",
            str(m.incomplete),
            _pct(m.compile_rate),
            _pct(m.correct_rate),
            _pct(m.isa_pass_rate),
            *[_pct(m.fast_p[k]) for k in fp],
            f"{times(m.geomean_speedup, 3)}×",
            _pct(m.mean_fraction_of_sol),
        ]
        rows.append(
            "<tr>" + "".join(f"<td{' class=l' if j == 1 else ''}>{c}</td>" for j, c in enumerate(cells)) + "</tr>"
        )
    head = ["#", "agent", "SOL score [95 % CI]", "prompt", "passed", "incomplete", "compile", "correct", "ISA", *fp]
    head += ["geomean", "mean SOL (passed)"]
    thead = "".join(f"<th{' class=l' if j == 1 else ''}>{h}</th>" for j, h in enumerate(head))
    trows = []
    for t in lb.tasks:
        tds = [f'<td class="l">{html.escape(t)}</td>']
        for m in lb.entries:
            c = lb.cells[m.agent].get(t)
            if c is None:
                tds.append("<td>–</td>")
                continue
            label = ("pass" if c.passed else "fail") + (f" {times(c.speedup)}×" if c.speedup else "")
            tds.append(f'<td class="{"ok" if c.passed else "bad"}" title="{html.escape(c.reason)}">{label}</td>')
        trows.append("<tr>" + "".join(tds) + "</tr>")
    agents = "".join(f"<th>{html.escape(m.agent)}</th>" for m in lb.entries)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{_CSS}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<p class="note">{html.escape(lb.note)}. The red line marks 1.0×.</p>
{_chart(lb)}
<table id="ranking"><thead><tr>{thead}</tr></thead><tbody>
{chr(10).join(rows)}
</tbody></table>
<table id="tasks"><thead><tr><th class="l">task</th>{agents}</tr></thead><tbody>
{chr(10).join(trows)}
</tbody></table>
{_ab_html(lb)}
{_skipped_html(lb)}
</body></html>
"""


def _skipped_html(lb: Leaderboard) -> str:
    if not lb.skipped:
        return ""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in skipped_lines(lb))
    return f'<h2>left out</h2><p>{len(lb.skipped)} result file(s) could not be ranked:</p><ul id="skipped">{items}</ul>'


def _ab_html(lb: Leaderboard) -> str:
    """The plugin A/B pairs: both arms side by side, and the paired tests."""
    parts = []
    for r in lb.ab:
        rows = []
        for label, m in (("with kernelpilot", r.with_kernelpilot), ("without kernelpilot", r.without_kernelpilot)):
            secs = "–" if m.mean_agent_seconds is None else f"{m.mean_agent_seconds:.0f}"
            cost = "–" if m.mean_agent_cost_usd is None else f"{m.mean_agent_cost_usd:.2f}"
            rows.append(
                f'<tr><td class="l">{label}</td><td>{m.passed}/{m.tasks}</td><td>{_pct(m.fast_p["fast_1"])}</td>'
                f"<td>{m.geomean_speedup:.3f}×</td><td>{secs}</td><td>{cost}</td></tr>"
            )
        parts.append(
            f'<h2>plugin A/B: {html.escape(r.agent)}</h2><table class="ab"><thead><tr><th class="l">arm</th>'
            "<th>passed</th><th>fast_1</th><th>geomean</th><th>agent s/task</th><th>$/task</th></tr></thead><tbody>"
            + "".join(rows)
            + f"</tbody></table><p>passed only with kernelpilot {r.only_with}, only without {r.only_without}: "
            f"McNemar exact p = {r.mcnemar_p:.4g}; per task {r.wins} better, {r.losses} worse, {r.ties} tied: "
            f"sign test p = {r.sign_p:.4g}</p><p>{html.escape(sol_sentence(r.sol))}</p>"
        )
    return "\n".join(parts)


__all__ = ["Leaderboard", "Skipped", "build", "collect", "to_html", "to_markdown", "effective_speedup"]
