"""The fast lane (README "Tests": ``pytest -m "not slow"``) keeps at least one test of every test module, so a change
that breaks a module's behaviour fails in minutes, not only in the full suite. Read statically (``ast``): a test is
slow when its module sets ``pytestmark`` to the slow mark, or its class or one of its own decorators is the slow mark
(``@slow``, ``@pytest.mark.slow``); marks inside a parametrization's ``pytest.param(..., marks=slow)`` slow that case
only, so a parametrized test with one unmarked case counts as fast."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_slow_mark(node: ast.expr) -> bool:
    """``slow``, ``pytest.mark.slow`` or ``mark.slow`` (called or not)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id == "slow"
    return isinstance(node, ast.Attribute) and node.attr == "slow"


def _marks_all_slow(value: ast.expr) -> bool:
    """A ``pytestmark`` value that marks every test slow: the mark itself, or a list/tuple holding it."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return any(_is_slow_mark(e) for e in value.elts)
    return _is_slow_mark(value)


def _slow_names(tree: ast.Module) -> set[str]:
    """Module-level names bound to the slow mark (``slow = pytest.mark.slow``)."""
    names = {"slow"}
    for node in tree.body:
        if isinstance(node, ast.Assign) and _is_slow_mark(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def fast_tests(path: Path) -> list[str]:
    """The names of the tests in ``path`` that the fast lane runs."""
    tree = ast.parse(path.read_text(), filename=str(path))
    slow_names = _slow_names(tree)

    def slow(decorators: list[ast.expr]) -> bool:
        return any(
            _is_slow_mark(d) or (isinstance(d, ast.Name) and d.id in slow_names) or
            (isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id in slow_names)
            for d in decorators
        )  # fmt: skip

    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        is_pytestmark = any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and is_pytestmark and node.value is not None:
            if _marks_all_slow(node.value) or (isinstance(node.value, ast.Name) and node.value.id in slow_names):
                return []
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if not slow(node.decorator_list):
                found.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test") and not slow(node.decorator_list):
            found += [
                f"{node.name}.{f.name}"
                for f in node.body
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                and f.name.startswith("test")
                and not slow(f.decorator_list)
            ]
    return found


def test_every_test_module_keeps_a_test_in_the_fast_lane():
    modules = sorted(p for p in TESTS.rglob("test_*.py") if "data" not in p.relative_to(TESTS).parts)
    assert len(modules) > 100  # the whole suite was read, not a folder of it
    without = [str(p.relative_to(TESTS.parent)) for p in modules if not fast_tests(p)]
    assert not without, (
        f"{len(without)} test module(s) run only in the full suite (every test marked slow): {without}; keep one "
        "fast test of each module's behaviour (the smallest kernel or input that shows it) and mark the rest slow"
    )


def test_the_reader_tells_slow_from_fast_the_way_pytest_does(tmp_path):
    # the three shapes this suite uses, read as pytest's -m "not slow" selects them
    module = tmp_path / "test_shapes.py"
    module.write_text(
        "import pytest\n"
        "slow = pytest.mark.slow\n"
        "@slow\ndef test_a(): pass\n"
        "@pytest.mark.slow\ndef test_b(): pass\n"
        "@pytest.mark.parametrize('x', [1, pytest.param(2, marks=slow)])\ndef test_c(x): pass\n"
        "def test_d(): pass\n"
        "@pytest.mark.slow\nclass TestE:\n    def test_e(self): pass\n"
        "class TestF:\n    @slow\n    def test_f(self): pass\n    def test_g(self): pass\n"
    )
    assert fast_tests(module) == ["test_c", "test_d", "TestF.test_g"]
    module.write_text("import pytest\npytestmark = [pytest.mark.slow]\ndef test_a(): pass\n")
    assert fast_tests(module) == []
