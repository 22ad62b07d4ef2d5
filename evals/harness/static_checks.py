"""Static checks on the files the agent changed, run before anything executes. They catch, on a CPU-only machine,
the cheats that would otherwise need a GPU to expose: patching the timer, launching on a side stream, importing the
reference or the harness, and calling library code the task forbids.

These are a first gate, not the only one: the timing child also binds its timer before import and compares event
time with host time around a device-wide synchronise (``child.py``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from evals.models import CheckOutcome

# The static checks' names, the one place they are spelled: each finding's CheckOutcome.name, and what a negative
# control (evals.controls) names as the check that must catch its cheat
TIMER_PATCH = "timer or library monkeypatch"
SIDE_STREAM = "side stream"
IMPORTS_HARNESS = "imports the reference or harness"
FORBIDDEN_CALL = "forbidden call"
PYTHON_SYNTAX = "python syntax"
NATIVE_STREAM_OR_TIMER = "side stream or timer"  # .cu/.hip files: a stream or event timer of the CUDA/HIP runtime
STATIC_CHECK_NAMES = (TIMER_PATCH, SIDE_STREAM, IMPORTS_HARNESS, FORBIDDEN_CALL, PYTHON_SYNTAX, NATIVE_STREAM_OR_TIMER)

_TIMER_NAMES = {
    "elapsed_time",
    "perf_counter",
    "perf_counter_ns",
    "time",
    "monotonic",
    "synchronize",
    "Event",
    "record",
}
_PATCHABLE_MODULES = {"torch", "time", "triton", "cuda", "timeit", "np", "numpy"}
_STREAM_CALLS = {"Stream", "stream", "ExternalStream", "set_stream", "StreamContext"}
_HARNESS_MODULES = {"reference", "kp_reference", "kp_inputs", "evals", "tools"}
_CUDA_STREAM_RE = re.compile(r"\b(cudaStreamCreate\w*|hipStreamCreate\w*|cudaEventElapsedTime|hipEventElapsedTime)\b")


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _check_python(path: str, text: str, forbidden: list[str], allow_streams: bool) -> list[CheckOutcome]:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return [CheckOutcome(name=PYTHON_SYNTAX, passed=False, detail=f"{path}:{exc.lineno}: {exc.msg}")]
    found: list[CheckOutcome] = []
    # Names bound to library modules (``import time as t``) are patch targets too.
    roots = set(_PATCHABLE_MODULES)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {a.asname for a in node.names if a.asname and a.name.split(".")[0] in _PATCHABLE_MODULES}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in _PATCHABLE_MODULES:
            roots |= {a.asname or a.name for a in node.names}

    def bad(kind: str, node: ast.AST, what: str) -> None:
        found.append(CheckOutcome(name=kind, passed=False, detail=f"{path}:{getattr(node, 'lineno', 0)}: {what}"))

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                name = _dotted(t)
                root = name.split(".")[0]
                timer_attr = (
                    t.attr in _TIMER_NAMES and root not in ("self", "cls") if isinstance(t, ast.Attribute) else False
                )
                if isinstance(t, ast.Attribute) and (root in roots or (timer_attr and "." in name[len(root) + 1 :])):
                    bad(TIMER_PATCH, node, f"assigns to {name}")
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            leaf = name.rsplit(".", 1)[-1]
            if leaf in ("setattr", "__setattr__") and node.args:
                target = _dotted(node.args[0])
                if target.split(".")[0] in _PATCHABLE_MODULES:
                    bad(TIMER_PATCH, node, f"setattr on {target}")
            if not allow_streams and leaf in _STREAM_CALLS and name.split(".")[0] in {"torch", "cuda", "triton"}:
                bad(SIDE_STREAM, node, f"calls {name}: work on another stream escapes the timer")
            for f in forbidden:
                if name == f or name.startswith(f + "."):
                    bad(FORBIDDEN_CALL, node, f"calls {name}, which this task forbids")
        if isinstance(node, ast.Import | ast.ImportFrom):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in mods:
                if m.split(".")[0] in _HARNESS_MODULES:
                    bad(IMPORTS_HARNESS, node, f"imports {m}")
    return found


def static_checks(root: Path, changed: list[str], *, forbidden: list[str], allow_streams: bool) -> list[CheckOutcome]:
    """Findings in every changed file under ``root`` (deleted files are skipped); an empty list means clean."""
    out: list[CheckOutcome] = []
    for rel in changed:
        path = root / rel
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".py":
            out += _check_python(rel, text, forbidden, allow_streams)
        elif path.suffix in {".cu", ".hip", ".cpp", ".h", ".cuh"}:
            for lineno, line in enumerate(text.splitlines(), 1):
                m = _CUDA_STREAM_RE.search(line)
                if m and not allow_streams:
                    out.append(
                        CheckOutcome(
                            name=NATIVE_STREAM_OR_TIMER,
                            passed=False,
                            detail=f"{rel}:{lineno}: uses {m.group(1)}; the launcher must use the stream it is given",
                        )
                    )
    return out
