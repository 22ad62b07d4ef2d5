"""No import cycle between the packages (and top-level modules) of ``tools/``.

The graph is built from the source with ``ast``: every ``import`` statement counts, the lazy ones inside functions
too, because a lazy import is still a dependency (it only moves the failure to run time). A node is a direct child
of ``tools/``: a subpackage (``tools.predict``) or a module (``tools.outcome``); an edge ``a -> b`` is an import in
``a`` of anything in ``b``. import-linter's layer contracts (pyproject.toml) cover named pairs; this test covers all.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "tools"


def _unit(module: str) -> str | None:
    """``tools.predict.amd`` → ``predict``; ``tools.outcome`` → ``outcome``; None outside tools' children."""
    parts = module.split(".")
    if parts[0] != "tools" or len(parts) < 2:
        return None
    name = parts[1]
    return name if (ROOT / name).is_dir() or (ROOT / f"{name}.py").is_file() else None


def _module_of(path: Path) -> tuple[str, str]:
    """(module name, the package its relative imports resolve against) of a file under tools/."""
    parts = ("tools",) + path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), ".".join(parts[:-1])
    return ".".join(parts), ".".join(parts[:-1])


def _imported(node: ast.AST, package: str) -> list[str]:
    """The modules (or module attributes) an import statement names, absolute."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        # ``from tools import outcome`` imports the module tools.outcome: each name may be a submodule
        return [module] + [f"{module}.{a.name}" for a in node.names]
    return []


def import_graph() -> dict[str, dict[str, list[str]]]:
    """``{a: {b: ["tools/x.py:12", ...]}}``: the import sites of every edge between tools' children."""
    graph: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(ROOT.rglob("*.py")):
        module, package = _module_of(path)
        src = _unit(module)
        if src is None:  # tools/__init__.py itself
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = {_unit(t) for t in _imported(node, package)} - {None, src}
            for dst in targets:
                graph[src][dst].append(f"{path.relative_to(ROOT.parent)}:{node.lineno}")
    return graph


def cycles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_lazy_imports():
    """The builder is not blind to imports inside functions: tools.inputs compiles a kernel source through a lazy
    ``from tools.dump_ir import dump_ir`` in ``compile_source``, and that edge is in the graph."""
    graph = import_graph()
    sites = graph["inputs"]["dump_ir"]
    text = (ROOT / "inputs.py").read_text().splitlines()
    assert any(text[int(s.rsplit(":", 1)[1]) - 1].startswith("    ") for s in sites), sites


def test_no_cycle_between_tools_packages():
    graph = import_graph()
    found = cycles(graph)
    lines = []
    for component in found:
        lines.append(" <-> ".join(component))
        for a in component:
            for b in component:
                if b in graph[a]:
                    lines.append(f"    {a} -> {b}: {', '.join(graph[a][b][:3])}")
    assert not found, "import cycles between tools/ packages:\n" + "\n".join(lines)


def test_a_cycle_is_named_with_its_members():
    """The detector itself: a -> b -> c -> a is one cycle of three, d (imported by a, importing nothing) none."""
    graph = {"a": {"b": ["x:1"], "d": ["x:2"]}, "b": {"c": ["y:1"]}, "c": {"a": ["z:1"]}}
    assert cycles(graph) == [["a", "b", "c"]]
