"""The predictor's terms as a table (tools/predict/terms.py) and ``predict --explain``: every bound predict can print
has its row, every figure a row names is one the machine files hold, and the explained launch marks the term that
decided its time with the figures it read and their sources."""

from __future__ import annotations

from typing import get_args

from tools.cli import main
from tools.isa.machines import machine, machine_names
from tools.models.predict import Bound
from tools.predict.terms import BY_NAME, MATRIX_UNITS, TERMS

from .conftest import EXAMPLES


def test_every_bound_predict_prints_has_a_term_row():
    rows = {"matrix" if b in MATRIX_UNITS else b for b in get_args(Bound)}
    assert rows <= set(BY_NAME), rows - set(BY_NAME)


def test_every_figure_a_term_reads_is_in_a_machine_file():
    machines = [machine(n) for n in machine_names()]
    named = {k for t in TERMS for k in t.figures}
    held = {k for m in machines for k in (*m.figures, *m.tables)}
    assert named <= held, named - held


def test_explain_marks_the_deciding_term_with_its_figures_and_sources(capsys):
    assert main(["predict", str(EXAMPLES / "triton" / "vector_add.py"), "--arch", "sm_90", "--device", "h200",
                 "--explain"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    summary = out.splitlines()[0]
    bound = summary.split("bound: ")[1].split(";")[0]
    decided = [line for line in out.splitlines() if line.lstrip().startswith("=> ")]
    assert len(decided) == 1 and decided[0].split()[1] == ("matrix" if bound in MATRIX_UNITS else bound)
    m = machine("h200")
    # each figure printed with the value and the source its machine file gives
    assert f"hbm_achievable_gbs = {m.value('hbm_achievable_gbs'):g}  ({m.source('hbm_achievable_gbs')})" in out
    assert f"launch_overhead_us = {m.value('launch_overhead_us'):g}" in out


def test_explain_with_json_is_refused_clearly(capsys):
    assert main(["predict", str(EXAMPLES / "triton" / "vector_add.py"), "--arch", "sm_90", "--explain", "--json"]) == 2
    err = capsys.readouterr().err
    assert "--explain prints text" in err and "Traceback" not in err
