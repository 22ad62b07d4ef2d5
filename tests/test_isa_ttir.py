"""tools.isa.ttir: the location attributes and operation lines of real Triton TTIR (compiled here for gfx942)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from tools.isa.ttir import LOC_REF_RE, OP_RE, loc_lines, strip_loc

REPO = Path(__file__).resolve().parents[1]
KERNEL = REPO / "examples" / "prefetch" / "triton_dot" / "baseline.py"


@cache
def _ttir() -> str:
    from tools.dump_ir import dump_ir

    stage = next(s for s in dump_ir(KERNEL, "gfx942").kernels[0].stages if s.name == "ttir")
    return Path(stage.path).read_text()


def test_strip_loc_removes_named_and_nested_locations_and_keeps_the_op():
    # the kernel argument's location is a named one with a nested reference: loc("a_ptr"(#loc))
    line = '%x = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<32x!tt.ptr<f16>> loc("a_ptr"(#loc))'
    assert strip_loc(line) == "%x = tt.splat %a_ptr : !tt.ptr<f16> -> tensor<32x!tt.ptr<f16>>"
    assert OP_RE.match(strip_loc(line)).group(1, 2) == ("%x", "tt.splat")


@pytest.mark.slow
def test_every_location_of_a_compiled_module_is_stripped():
    """Every operation line of the module loses its loc(...) (the #locN definitions at the end are not op lines)."""
    ops = [ln for ln in _ttir().splitlines() if ln.strip() and not ln.startswith("#loc")]
    assert sum("loc(" in ln for ln in ops) > 20  # the module does carry locations
    assert [ln for ln in ops if "loc(" in strip_loc(ln)] == []


@pytest.mark.slow
def test_the_loops_location_resolves_to_the_for_statement():
    """The ``} loc(#locN)`` that closes scf.for names, through its alias chain, line 29 of baseline.py: the
    ``for _ in range(0, K, BK):`` of the kernel."""
    text = _ttir()
    lines = text.splitlines()
    opens = next(i for i, ln in enumerate(lines) if "scf.for" in ln)
    depth, close = 0, None
    for i in range(opens, len(lines)):
        depth += lines[i].count("{") - lines[i].count("}")
        if depth == 0:
            close = i
            break
    ref = LOC_REF_RE.search(lines[close]).group(1)
    for_line = next(n for n, ln in enumerate(KERNEL.read_text().splitlines(), 1) if re.match(r"\s+for _ in", ln))
    assert loc_lines(text, [ref, None, "#nowhere"]) == [for_line, None, None]
