"""The generated validation corpora (issue 31 item 3): every ``fam_*.py`` family's problems x designs.

Three corpora: ``gen`` (a family's ``PROBLEMS`` x ``designs``; the first, measured 2026-12-02 and fitted since),
``hold`` (its ``HOLD_PROBLEMS`` x ``hold_designs``, else ``designs``: shapes the first never had, designs where
cheap, held out by construction until measured) and ``fresh`` (``FRESH_PROBLEMS`` x ``fresh_designs``, else
``designs``: shapes neither had, and families that only it has, their ``PROBLEMS`` empty; written without running
the speed model on it, so its predictions can be frozen before the GPU times it). A variant is ``<corpus>.<family>.<problem>.<design>``; its pairs
are every two designs of one problem (``design->design``). Pure enumeration: importing a family module builds no
tensors."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

DIR = Path(__file__).resolve().parent


# corpus -> (its problems' attribute, its designs' function; the latter falling back to ``designs``)
CORPORA = {
    "gen": ("PROBLEMS", "designs"),
    "hold": ("HOLD_PROBLEMS", "hold_designs"),
    "fresh": ("FRESH_PROBLEMS", "fresh_designs"),
    "skew": ("SKEW_PROBLEMS", "skew_designs"),  # the fourth: skewed histograms (fam_hist_skew), 2026-12-03
    # the fifth (2026-12-03), held out for the learned correction (benchmarks/predict_learned.py): designs never
    # timed on shapes that were, crossed over: the fresh problems with the first corpus's designs and the hold
    # problems with the fresh designs, each only where that problem never had a design of that name
    "cross": ("CROSS_PROBLEMS", "cross_designs"),
    # the sixth (2026-12-03), held out for the learned correction's band: shapes no corpus had (a family's
    # NOVEL_PROBLEMS, written before any prediction of them) x designs drawn from every designs function it has
    "novel": ("NOVEL_PROBLEMS", "novel_designs"),
}


def family_files(folder: Path = DIR) -> list[Path]:
    return sorted(folder.glob("fam_*.py"))


def load(path: Path, name: str | None = None):
    """Import a family file under ``name`` (a fresh module per name: its @triton.jit functions are its own)."""
    name = name or f"kp_gen_{path.stem}"
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(path.parent))


def corpus_of(mod, corpus: str = "gen") -> tuple[dict, object]:
    """(problems, designs function) of one family module in ``corpus`` (``CORPORA``); a family without that
    corpus's problems (a fresh-only family in ``gen``) has none there, and no designs function then (None)."""
    if corpus not in CORPORA:
        raise ValueError(f"unknown corpus {corpus!r}: one of {', '.join(CORPORA)}")
    if corpus == "cross":
        return _crossed(mod)
    if corpus == "novel":
        return _novel(mod)
    problems, designs = CORPORA[corpus]
    return getattr(mod, problems, None) or {}, getattr(mod, designs, None) or getattr(mod, "designs", None)


CROSS_PER_PROBLEM = (
    3  # designs per crossed problem (every third of the new ones at most): a corpus one device call times
)


def _crossed(mod) -> tuple[dict, object]:
    """The ``cross`` corpus of one family: ``fresh_<problem>`` (a FRESH_PROBLEMS shape) x the ``designs`` it never
    had, and ``hold_<problem>`` (a HOLD_PROBLEMS shape) x the ``fresh_designs`` it never had."""
    sets = []
    for attr, own, other in (("fresh", "fresh", "gen"), ("hold", "hold", "fresh")):
        shapes = corpus_of(mod, attr)[0]
        own_fn, other_fn = corpus_of(mod, own)[1], corpus_of(mod, other)[1]
        if shapes and own_fn and other_fn and other_fn is not own_fn:
            sets.append((attr, shapes, own_fn, other_fn))
    problems, by_id = {}, {}
    for attr, shapes, own_fn, other_fn in sets:
        for name, params in shapes.items():
            problems[f"{attr}_{name}"] = params
            by_id[id(params)] = (own_fn, other_fn)

    def designs(params):
        own_fn, other_fn = by_id[id(params)]
        try:
            mine, theirs = own_fn(params), other_fn(params)
        except (KeyError, TypeError, ValueError, ZeroDivisionError):  # a design rule written for other shapes
            return {}
        new = [(d, spec) for d, spec in theirs.items() if d not in mine]
        return dict(new[:: max(1, -(-len(new) // CROSS_PER_PROBLEM))][:CROSS_PER_PROBLEM])  # spread, at most 3

    return problems, designs


NOVEL_PER_PROBLEM = 4  # designs per novel shape, spread over every design the family's designs functions offer


def _novel(mod) -> tuple[dict, object]:
    """The ``novel`` corpus of one family: its ``NOVEL_PROBLEMS`` x at most ``NOVEL_PER_PROBLEM`` designs, spread over
    the union of what ``designs``, ``hold_designs``, ``fresh_designs`` and ``skew_designs`` offer for that shape (the
    first name wins; a designs rule written for other shapes that raises on this one offers nothing)."""
    problems = getattr(mod, "NOVEL_PROBLEMS", None) or {}
    functions = []
    for attr in ("designs", "hold_designs", "fresh_designs", "skew_designs"):
        fn = getattr(mod, attr, None)
        if fn is not None and fn not in functions:
            functions.append(fn)

    def designs(params):
        offered = {}
        for fn in functions:
            try:
                for name, spec in fn(params).items():
                    offered.setdefault(name, spec)
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                continue
        new = list(offered.items())
        return dict(new[:: max(1, -(-len(new) // NOVEL_PER_PROBLEM))][:NOVEL_PER_PROBLEM])

    return problems, designs


def enumerate_gen(folder: Path = DIR, corpus: str = "gen") -> list[tuple[str, str, str, Path]]:
    """(family, problem, design, file) of every variant of ``corpus``, in file, problem, design order."""
    out = []
    for path in family_files(folder):
        mod = load(path)
        problems, designs = corpus_of(mod, corpus)
        for problem, params in problems.items():
            for design in designs(params):
                out.append((mod.FAMILY, problem, design, path))
    return out


def build(path: Path, problem: str, design: str, device, name: str | None = None, corpus: str = "gen"):
    """The ``Built`` of one variant (gen_common.Built) of ``corpus``, its family module imported under ``name``."""
    mod = load(path, name)
    problems, designs = corpus_of(mod, corpus)
    params = problems[problem]
    return mod.build(params, designs(params)[design], device)
